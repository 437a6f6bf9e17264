// The device dispatch point (ops/device_dispatch.hpp), and the guards that keep CPU kernels off
// device memory. Device tensors here are fakes: host memory labelled cuda:0 (from_blob), since
// no device backend is compiled into the unit tests (tests/vulkan runs the real one).
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <vector>

namespace ops_device_dispatch_test {
struct TestOp {
  static constexpr std::string_view name = "test::op";
};
struct CountedOp {
  static constexpr std::string_view name = "test::counted";
};
inline int g_counted_calls = 0;
}  // namespace ops_device_dispatch_test

// A CPU kernel for the test op (a backend's specialisation lives in namespace tensorplay).
template <>
struct tensorplay::DeviceKernel<ops_device_dispatch_test::CountedOp, tensorplay::DeviceType::CPU> {
  static void run(const Tensor& t, int k) {
    CHECK(t.is_cpu());
    ops_device_dispatch_test::g_counted_calls += k;
  }
};

namespace ops_device_dispatch_test {

using namespace tensorplay;

TEST_CASE("dispatch_device picks the compiled-in device", "[ops][device_dispatch]") {
  CHECK(dispatch_device(kCPU, "test::op", []<DeviceType D>() { return int(D); }) == int(kCPU));
  CHECK_THROWS_MATCHES(
      dispatch_device(kCUDA, "aten::sort", []<DeviceType D>() { return int(D); }),
      NotImplementedError,
      Catch::Message("Could not run 'aten::sort' with arguments from the 'CUDA' backend. "
                     "TensorPlay was compiled without it: define TENSORPLAY_USE_CUDA (link the "
                     "matching tensorplay:: target)"));
#if !TENSORPLAY_USE_VULKAN  // (tensorplay::compiled carries the backend when it is built with it)
  CHECK_THROWS_WITH(dispatch_device(kVulkan, "aten::sort", []<DeviceType>() {}),
                    Catch::StartsWith("Could not run 'aten::sort' with arguments from the "
                                      "'Vulkan' backend. TensorPlay was compiled without it: "
                                      "define TENSORPLAY_USE_VULKAN"));
#endif
  CHECK(backend_name(kCPU) == "CPU");
  CHECK(backend_name(kCUDA) == "CUDA");
  CHECK(backend_name(kVulkan) == "Vulkan");
}

TEST_CASE("call_device_kernel runs a backend's kernel or names the missing one",
          "[ops][device_dispatch]") {
  g_counted_calls = 0;
  call_device_kernel<CountedOp>(kCPU, ones({1}), 3);
  CHECK(g_counted_calls == 3);
  CHECK_THROWS_MATCHES(call_device_kernel<TestOp>(kCPU, ones({1})), NotImplementedError,
                       Catch::Message("Could not run 'test::op' with arguments from the 'CPU' "
                                      "backend. TensorPlay's CPU backend has no kernel for it"));
}

TEST_CASE("CPU kernels refuse device memory with typed errors", "[ops][device_dispatch]") {
  std::vector<float> host(4, 1.f);
  const Tensor fake = from_blob(host.data(), {2, 2}, TensorOptions().device(Device("cuda:0")));
  // No host address for device memory: every CPU kernel gets its pointers here.
  CHECK_THROWS_MATCHES(fake.data_ptr(), NotImplementedError,
                       Catch::Message("data_ptr: the memory of a tensor on cuda:0 cannot be "
                                      "addressed by the host; copy it to the CPU with .cpu() "
                                      "first"));
  CHECK_THROWS_AS(fake.data_ptr<float>(), NotImplementedError);
  CHECK_THROWS_AS(fake.mutable_data_ptr(), NotImplementedError);
  // The engine: operands all on one other device mean an op without a kernel there.
  CHECK_THROWS_WITH(fake + fake,
                    Catch::StartsWith("Could not run this operation with arguments from the "
                                      "'CUDA' backend"));
  CHECK_THROWS_AS(fake.sum(), NotImplementedError);
  CHECK_THROWS_AS(fake.exp(), NotImplementedError);
  CHECK_THROWS_AS(fake + 1, NotImplementedError);
  CHECK_THROWS_AS(fake.mm(fake), Error);  // its result cannot even be allocated here
  // Mixed devices keep PyTorch's message.
  CHECK_THROWS_WITH(ones({2, 2}) + fake,
                    "Expected all tensors to be on the same device, but found at least two "
                    "devices, cpu and cuda:0!");
  CHECK(host == std::vector<float>(4, 1.f));  // nothing was written
}

}  // namespace ops_device_dispatch_test
