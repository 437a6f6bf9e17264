#include <tensorplay/core/device_policy.hpp>

#include <catch2/catch.hpp>

#include <cstdlib>
#include <string>

namespace core_device_policy_test {

using namespace tensorplay;

namespace {
// A counting allocator over malloc, to prove the runtime table can be overridden.
struct CountingAllocator final : Allocator {
  using Allocator::allocate;
  mutable int allocations = 0;
  static void deleter(void* p) { std::free(p); }
  DataPtr allocate(std::size_t n) const override {
    ++allocations;
    void* p = n ? std::malloc(n) : nullptr;
    return DataPtr(p, &deleter, Device(kCPU));
  }
  DeleterFnPtr raw_deleter() const noexcept override { return &deleter; }
};
}  // namespace

TEST_CASE("the CPU policy is compiled in and selects the caching allocator", "[core][allocator]") {
  STATIC_REQUIRE(AllocationPolicy<DevicePolicy<kCPU>>);
  STATIC_REQUIRE(is_compiled_in<kCPU>);
  STATIC_REQUIRE(std::is_same_v<DevicePolicy<kCPU>::allocator_type, CachingAllocator>);
  CHECK(getCPUAllocator() == &CachingAllocator::instance());
  CHECK(getAllocator(kCPU) == getCPUAllocator());
}

TEST_CASE("a device that is not compiled in names the macro to define", "[core][allocator]") {
  STATIC_REQUIRE_FALSE(AllocationPolicy<DevicePolicy<kCUDA>>);
  STATIC_REQUIRE(is_compiled_in<kVulkan> == bool(TENSORPLAY_USE_VULKAN));
  CHECK_THROWS_WITH(getAllocator(kCUDA), Catch::Contains("TENSORPLAY_USE_CUDA") &&
                                             Catch::Contains("compiled without CUDA"));
#if !TENSORPLAY_USE_VULKAN  // (tensorplay::compiled carries the backend when it is built with it)
  CHECK_THROWS_WITH(getAllocator(kVulkan), Catch::Contains("TENSORPLAY_USE_VULKAN"));
#endif
  CHECK_THROWS_AS(getAllocator(kCUDA), Error);
  CHECK_THROWS_WITH(getPinnedMemoryAllocator(), Catch::Contains("TENSORPLAY_USE_CUDA"));
}

TEST_CASE("setAllocator overrides a device's allocator and null restores it",
          "[core][allocator]") {
  CountingAllocator counting;
  setAllocator(kCPU, &counting);
  CHECK(getCPUAllocator() == &counting);
  {
    DataPtr p = getAllocator(kCPU)->allocate(16);
    CHECK(p.get() != nullptr);
  }
  CHECK(counting.allocations == 1);
  setAllocator(kCPU, nullptr);
  CHECK(getCPUAllocator() == &CachingAllocator::instance());

  setPinnedMemoryAllocator(&counting);
  CHECK(getPinnedMemoryAllocator() == &counting);
  setPinnedMemoryAllocator(nullptr);
  CHECK_THROWS(getPinnedMemoryAllocator());
}

TEST_CASE("raw_allocate and raw_deallocate round-trip through the Allocator interface",
          "[core][allocator]") {
  CountingAllocator counting;
  void* p = counting.raw_allocate(32);
  REQUIRE(p != nullptr);
  counting.raw_deallocate(p);
  counting.raw_deallocate(nullptr);
  // The device-indexed entry point defaults to the plain one.
  DataPtr q = counting.allocate(8, Device(kCPU));
  CHECK(counting.allocations == 2);
}

}  // namespace core_device_policy_test
