// Streams, events and guards (backends/cuda/stream.hpp) and record_stream, with c10's names.
// [device] tests need a GPU; the others are the behaviour without one.
#include <catch2/catch.hpp>

#include <tensorplay/tensorplay.hpp>

#include <set>

namespace cuda_stream_test {

namespace tp = tensorplay;
namespace cu = tensorplay::cuda;

TEST_CASE("without a device, streams and guards raise CUDAUnavailableError", "[no_device]") {
  CHECK_THROWS_AS(cu::getCurrentCUDAStream(), cu::CUDAUnavailableError);
  CHECK_THROWS_AS(cu::getDefaultCUDAStream(), cu::CUDAUnavailableError);
  CHECK_THROWS_AS(cu::getStreamFromPool(), cu::CUDAUnavailableError);
  CHECK_THROWS_AS(cu::getStreamFromPool(/*isHighPriority=*/true, 0), cu::CUDAUnavailableError);
  CHECK_THROWS_AS(cu::CUDAGuard(0), cu::CUDAUnavailableError);
  // An event is created by its first record, so constructing one needs no device.
  cu::CUDAEvent event;
  CHECK_FALSE(event.isCreated());
  CHECK(event.query());
  CHECK_NOTHROW(event.synchronize());
  CHECK_THROWS_AS(event.record(), cu::CUDAUnavailableError);
}

TEST_CASE("stream and guard arguments are checked", "[no_device]") {
  CHECK_THROWS_WITH(cu::CUDAGuard(tp::Device("cpu")), "CUDAGuard: expected a CUDA device, got cpu");
  CHECK_THROWS_AS(cu::CUDAGuard(tp::Device("cpu")), tp::ValueError);
  cu::CUDAEvent a, b;
  CHECK_THROWS_WITH(a.elapsed_time(b),
                    "Both events must be recorded before calculating elapsed time.");
  const cu::CUDAStream s(0, nullptr);
  CHECK_THROWS_WITH(cu::record_stream(tp::ones({2}), s),
                    "record_stream: expected a CUDA tensor, got a tensor on cpu");
}

TEST_CASE("the current stream is per thread and device, the default stream until set", "[device]") {
  REQUIRE(cu::is_available());
  CHECK(cu::getCurrentCUDAStream() == cu::getDefaultCUDAStream());
  CHECK(cu::getCurrentCUDAStream().stream() == nullptr);
  const cu::CUDAStream side = cu::getStreamFromPool();
  {
    cu::CUDAStreamGuard guard(side);
    CHECK(cu::getCurrentCUDAStream() == side);
    CHECK(guard.original_stream() == cu::getDefaultCUDAStream());
  }
  CHECK(cu::getCurrentCUDAStream() == cu::getDefaultCUDAStream());
}

TEST_CASE("the stream pool hands out 32 streams per priority round robin", "[device]") {
  REQUIRE(cu::is_available());
  std::set<cudaStream_t> low, high;
  for (int i = 0; i < 64; ++i) {
    low.insert(cu::getStreamFromPool(false).stream());
    high.insert(cu::getStreamFromPool(true).stream());
  }
  CHECK(low.size() == 32);
  CHECK(high.size() == 32);
  CHECK(cu::getStreamFromPool(true).priority() <= cu::getStreamFromPool(false).priority());
}

TEST_CASE("events record, block, query and time stream work", "[device]") {
  REQUIRE(cu::is_available());
  const cu::CUDAStream s = cu::getStreamFromPool();
  cu::CUDAEvent start(cudaEventDefault), stop(cudaEventDefault);
  start.record(s);
  stop.record(s);
  stop.block(cu::getCurrentCUDAStream());
  stop.synchronize();
  CHECK(stop.query());
  CHECK(start.elapsed_time(stop) >= 0.0f);
  s.synchronize();
  CHECK(s.query());
}

TEST_CASE("allocations follow the current stream; record_stream defers reuse", "[device]") {
  REQUIRE(cu::is_available());
  const cu::CUDAStream side = cu::getStreamFromPool();
  const void* freed = nullptr;
  {
    cu::CUDAStreamGuard guard(side);
    const tp::Tensor x = tp::empty({256}, tp::TensorOptions().device(tp::kCUDA));
    freed = x.storage().data_ptr().get();
  }
  // A block freed on `side` is not reused by the default stream...
  const tp::Tensor y = tp::empty({256}, tp::TensorOptions().device(tp::kCUDA));
  CHECK(y.storage().data_ptr().get() != freed);
  // ...but is by `side` again.
  {
    cu::CUDAStreamGuard guard(side);
    const tp::Tensor z = tp::empty({256}, tp::TensorOptions().device(tp::kCUDA));
    CHECK(z.storage().data_ptr().get() == freed);
    cu::record_stream(z, cu::getDefaultCUDAStream());
  }
  cu::synchronize();
}

}  // namespace cuda_stream_test
