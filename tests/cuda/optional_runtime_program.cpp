// Built against tensorplay::cuda: starts and does its CPU work whether or not the machine has a
// CUDA driver or a GPU (the runtime is linked, the driver library never is; the
// cuda_no_link_dependency tests read this program's NEEDED entries and run it here, where there
// is no driver). Where there is no device, moving a tensor raises CUDAUnavailableError.
#include <tensorplay/tensorplay.hpp>

#include <cstdio>

static_assert(TENSORPLAY_USE_CUDA);
static_assert(tensorplay::is_compiled_in<tensorplay::kCUDA>);

int main() {
  namespace tp = tensorplay;
  const tp::Tensor sum = tp::ones({4, 4}).sum();
  if (sum.item<float>() != 16.0f) return 1;
  const bool available = tp::cuda::is_available();
  std::printf("cuda-optional ok: CPU works; CUDA %s%s\n", available ? "available" : "unavailable: ",
              available ? "" : tp::cuda::unavailable_reason().c_str());
  if (!available) {
    try {
      (void)tp::ones({2}).cuda();
      return 3;
    } catch (const tp::cuda::CUDAUnavailableError&) {
    }
  }
  return 0;
}
