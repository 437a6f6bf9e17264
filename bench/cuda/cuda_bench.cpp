// The CUDA backend's figures on a GPU (issue 15, point 10), one JSON object per line, for
// bench/cuda/compare_torch.py to set beside the same cases measured with the machine's PyTorch:
//   copy_gbs     device-to-device cudaMemcpyAsync of 2^24 float32 (the bandwidth reference)
//   add_gbs      tp::add_out of 2^24 float32 (12 bytes moved per element)
//   launch_us    a one-element add_out, enqueue to completion, averaged over 10000 in a row
//   alloc_ns     tp::empty of 1 MiB on the device and its free (the caching allocator)
//   mm_tflops    tp::mm of two 4096 x 4096 float32 matrices (cuBLAS, no TF32)
// Plain C++ (no benchmark library: the GPU machine may not have one); exits 77 without a device.
// Built with the CUDA tests (tests/cuda/CMakeLists.txt); run by tests/cuda/gpu_check.sh.
#include <tensorplay/tensorplay.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

namespace tp = tensorplay;
namespace tc = tensorplay::cuda;

namespace {

// The best of `rounds` timings of `reps` calls of f (seconds per call), each round ending with
// the device's queue drained.
double seconds_per_call(const std::function<void()>& f, int reps, int rounds = 5) {
  f();
  tc::synchronize();
  double best = 1e30;
  for (int r = 0; r < rounds; ++r) {
    const auto start = std::chrono::steady_clock::now();
    for (int i = 0; i < reps; ++i) f();
    tc::synchronize();
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    best = std::min(best, took.count() / reps);
  }
  return best;
}

void report(const char* name, double value, const char* unit) {
  std::printf("{\"case\": \"%s\", \"value\": %.6g, \"unit\": \"%s\"}\n", name, value, unit);
}

}  // namespace

int main() {
  if (!tc::is_available()) {
    std::printf("no CUDA device (%s): skipped\n", tc::unavailable_reason().c_str());
    return 77;
  }
  const tp::TensorOptions on = tp::TensorOptions().device(tp::kCUDA);
  const int64_t n = int64_t{1} << 24;
  const tp::Tensor a = tp::rand({n}, on), b = tp::rand({n}, on), c = tp::empty({n}, on);
  const double copy = seconds_per_call([&] { c.copy_(a); }, 20);
  report("copy_gbs", 2.0 * 4 * double(n) / copy / 1e9, "GB/s");
  const double add = seconds_per_call([&] { tp::add_out(c, a, b); }, 20);
  report("add_gbs", 3.0 * 4 * double(n) / add / 1e9, "GB/s");
  const tp::Tensor x = tp::ones({1}, on), y = tp::empty({1}, on);
  report("launch_us", seconds_per_call([&] { tp::add_out(y, x, x); }, 10000) * 1e6, "us");
  report("alloc_ns",
         seconds_per_call([&] { (void)tp::empty({int64_t{1} << 18}, on); }, 10000) * 1e9, "ns");
  const tp::Tensor m1 = tp::rand({4096, 4096}, on), m2 = tp::rand({4096, 4096}, on);
  const double mm = seconds_per_call([&] { (void)tp::mm(m1, m2); }, 5);
  report("mm_tflops", 2.0 * 4096.0 * 4096.0 * 4096.0 / mm / 1e12, "TFLOP/s");
  return 0;
}
