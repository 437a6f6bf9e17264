// The CUDA runtime layer from a user's side: device queries, tensors on "cuda", the caching
// allocator's torch.cuda memory functions. Tests tagged [device] need a GPU (the cuda.device
// CTest run); the others are what a machine without a driver or a GPU must do (cuda.no_device,
// which CI runs).
#include <catch2/catch.hpp>

#include <tensorplay/tensorplay.hpp>

#include <string>

namespace cuda_runtime_test {

namespace tp = tensorplay;

TEST_CASE("without a device the queries answer and never throw", "[no_device]") {
  CHECK_FALSE(tp::cuda::is_available());
  CHECK(tp::cuda::device_count() == 0);
  const std::string why = tp::cuda::unavailable_reason();
  CHECK_THAT(why, Catch::Matchers::Contains("NVIDIA driver") ||
                      Catch::Matchers::Contains("No CUDA GPUs are available"));
  // The allocator table has the backend (it is compiled in); it touches no device until used.
  CHECK(tp::is_compiled_in<tp::kCUDA>);
  CHECK(tp::getAllocator(tp::kCUDA) != nullptr);
}

TEST_CASE("without a device, making a CUDA tensor raises CUDAUnavailableError saying why",
          "[no_device]") {
  const std::string why = tp::cuda::unavailable_reason();
  const tp::Tensor a = tp::ones({2, 3});
  CHECK_THROWS_WITH(a.cuda(), why);
  CHECK_THROWS_AS(a.cuda(), tp::cuda::CUDAUnavailableError);
  CHECK_THROWS_AS(a.to(tp::Device("cuda:0")), tp::cuda::CUDAUnavailableError);
  CHECK_THROWS_AS(tp::empty({4}, tp::TensorOptions().device(tp::kCUDA)),
                  tp::cuda::CUDAUnavailableError);
  // Zero bytes too, as PyTorch (its lazy init runs before any allocation).
  CHECK_THROWS_AS(tp::empty({0}, tp::TensorOptions().device(tp::kCUDA)),
                  tp::cuda::CUDAUnavailableError);
  CHECK_THROWS_AS(tp::cuda::synchronize(), tp::cuda::CUDAUnavailableError);
  CHECK_THROWS_AS(tp::cuda::current_device(), tp::cuda::CUDAUnavailableError);
  CHECK_THROWS_AS(tp::cuda::memory_allocated(), tp::cuda::CUDAUnavailableError);
  // The CPU tensor is untouched and CPU work goes on.
  CHECK(a.sum().item<float>() == 6.0f);
}

TEST_CASE("CUDA tensors come from the caching allocator of their device", "[device]") {
  REQUIRE(tp::cuda::is_available());
  REQUIRE(tp::cuda::device_count() >= 1);
  const auto before = tp::cuda::memory_allocated(0);
  {
    const tp::Tensor x = tp::empty({1000}, tp::TensorOptions().device(tp::kCUDA));
    CHECK(x.is_cuda());
    CHECK(x.device() == tp::Device(tp::kCUDA, 0));
    // 4000 bytes, rounded to 512-byte blocks.
    CHECK(tp::cuda::memory_allocated(0) == before + 4096);
    CHECK(tp::cuda::memory_reserved(0) >= tp::cuda::memory_allocated(0));
    CHECK(tp::cuda::memory_stats(0).at("allocated_bytes.all.current") ==
          static_cast<std::int64_t>(before + 4096));
  }
  CHECK(tp::cuda::memory_allocated(0) == before);
  tp::cuda::empty_cache();
  CHECK_NOTHROW(tp::cuda::synchronize());
}

TEST_CASE("a device index past the last device is c10's invalid device ordinal", "[device]") {
  REQUIRE(tp::cuda::is_available());
  const tp::Device past(tp::kCUDA, static_cast<tp::DeviceIndex>(tp::cuda::device_count()));
  CHECK_THROWS_WITH(tp::empty({4}, tp::TensorOptions().device(past)),
                    Catch::Matchers::StartsWith("CUDA error: invalid device ordinal"));
}

}  // namespace cuda_runtime_test
