// DLPack's stream protocol for CUDA tensors (backends/cuda/dlpack.hpp).
// Untagged: the stream values' meaning; a CPU tensor or stream -1 asks nothing of the device.
// [no_device]: a CUDA producer asked to synchronise stops at the device.
// [device]: a consumer stream waits for the producer's queued work; export/import of kDLCUDA.
#include <catch2/catch.hpp>

#include "fake_cuda.hpp"

#include <tensorplay/backends/cuda/dlpack.hpp>
#include <tensorplay/interop/dlpack.hpp>
#include <tensorplay/tensorplay.hpp>

#include <cstdint>
#include <string>

namespace cuda_dlpack_test {

namespace tp = tensorplay;
namespace tc = tensorplay::cuda;

TEST_CASE("dlpack streams: 1 and 2 are the default streams, 0 is refused", "[cuda][dlpack]") {
  CHECK(tc::dlpack_stream_handle(1) == cudaStreamLegacy);
  CHECK(tc::dlpack_stream_handle(2) == cudaStreamPerThread);
  CHECK(tc::dlpack_stream_handle(0x1234) == reinterpret_cast<cudaStream_t>(std::intptr_t{0x1234}));
  CHECK_THROWS_WITH(tc::dlpack_stream_handle(0),
                    Catch::Matchers::Contains("stream 0 is ambiguous"));
  CHECK_THROWS_AS(tc::dlpack_stream_handle(-1), tp::ValueError);
  // Nothing to wait for: a CPU tensor, or a consumer that asks for no synchronisation.
  tc::dlpack_sync_producer(tp::ones({2}), 7);
  cuda_test_support::Blob<float> fake({2}, tp::kFloat, [](std::size_t) { return 1.0f; });
  tc::dlpack_sync_producer(fake.cuda, -1);
}

TEST_CASE("without a device, a CUDA producer asked to synchronise stops at the device",
          "[no_device]") {
  cuda_test_support::Blob<float> fake({2}, tp::kFloat, [](std::size_t) { return 1.0f; });
  CHECK_THROWS_AS(tc::dlpack_sync_producer(fake.cuda, 1), tc::CUDAUnavailableError);
}

TEST_CASE("dlpack: kDLCUDA round trip, and a consumer stream that waits", "[device]") {
  REQUIRE(tp::cuda::is_available());
  const tp::Tensor x = tp::arange(6, tp::kFloat).reshape({2, 3}).cuda();
  auto* m = tp::to_dlpack(x);
  CHECK(m->dl_tensor.device.device_type == kDLCUDA);
  const tp::Tensor y = tp::from_dlpack(m);
  CHECK(y.is_cuda());
  CHECK(tp::equal(y.cpu(), x.cpu()));
  const tc::CUDAStream side = tc::getStreamFromPool();
  const tp::Tensor z = x * 2;  // queued on the current stream
  tc::dlpack_sync_producer(z, static_cast<int64_t>(reinterpret_cast<std::intptr_t>(side.stream())));
  side.synchronize();  // after the wait, z's values are there
  CHECK(tp::equal(z.cpu(), x.cpu() * 2));
  CHECK(tc::dlpack_consumer_stream(0) == 1);  // the default stream is named 1
}

}  // namespace cuda_dlpack_test
