// Random numbers on CUDA (ops/device_dispatch.hpp's RandomOp): c10's CUDAGeneratorImpl model, a
// seed and an offset into the Philox counter space per device, and the kernel step of rand,
// randn, rand_like and randn_like without an explicit generator (random_source.hpp draws).
//
//   tp::cuda::manual_seed(7);        // the current device's generator (torch.cuda.manual_seed)
//   tp::cuda::manual_seed_all(7);    // every device's
//   tp::manual_seed(7);              // the CPU's and every device's, as torch.manual_seed
//
// A draw of n elements takes the generator's (seed, offset) and advances the offset by n under
// the generator's lock, so concurrent draws get disjoint counters and a sequence after a seed
// is reproducible. Until a seed is set, a device's generator starts from PyTorch's default seed
// (67280421310721), as torch's CUDA generators do.
#pragma once

#include <tensorplay/backends/cuda/device_kernels.hpp>
#include <tensorplay/backends/cuda/error.hpp>
#include <tensorplay/backends/cuda/kernel_table.hpp>
#include <tensorplay/backends/cuda/module.hpp>
#include <tensorplay/backends/cuda/offset_calculator.hpp>
#include <tensorplay/backends/cuda/random_source.hpp>
#include <tensorplay/backends/cuda/runtime.hpp>
#include <tensorplay/backends/cuda/stream.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/ops/device_dispatch.hpp>
#include <tensorplay/ops/generator.hpp>
#include <tensorplay/ops/tensor_iterator.hpp>

#include <cuda.h>

#include <cstdint>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

namespace tensorplay {
namespace cuda {

// PyTorch's default_rng_seed_val.
inline constexpr std::uint64_t kDefaultCUDASeed = 67280421310721ull;

// One device's generator: Philox's key (the seed) and the next unused counter (the offset).
class CUDAGenerator {
 public:
  // (seed, offset) for a draw of `blocks` Philox blocks, the offset advanced past them. A
  // tp::manual_seed newer than the last this generator followed reseeds it first.
  std::pair<std::uint64_t, std::uint64_t> reserve(std::uint64_t blocks) {
    const std::lock_guard<std::mutex> lock(mutex_);
    follow_manual_seed();
    const std::pair<std::uint64_t, std::uint64_t> state{seed_, offset_};
    offset_ += blocks;
    return state;
  }
  void set_current_seed(std::uint64_t seed) {
    const std::lock_guard<std::mutex> lock(mutex_);
    follow_manual_seed();
    seed_ = seed;
    offset_ = 0;
  }
  std::uint64_t current_seed() {
    const std::lock_guard<std::mutex> lock(mutex_);
    follow_manual_seed();
    return seed_;
  }
  std::uint64_t offset() {
    const std::lock_guard<std::mutex> lock(mutex_);
    follow_manual_seed();
    return offset_;
  }

 private:
  void follow_manual_seed() {
    ::tensorplay::detail::ManualSeedState& s = ::tensorplay::detail::manual_seed_state();
    const std::lock_guard<std::mutex> lock(s.mutex);
    if (s.epoch != epoch_) {
      epoch_ = s.epoch;
      seed_ = s.seed;
      offset_ = 0;
    }
  }

  std::mutex mutex_;
  std::uint64_t seed_ = kDefaultCUDASeed;
  std::uint64_t offset_ = 0;
  std::uint64_t epoch_ = 0;  // none followed yet: a manual_seed made before this one applies
};

namespace detail {
// One generator per device index (up to the most devices a Device can name), made on first use;
// never destroyed. Needs no device: the generators are host state.
inline CUDAGenerator& generator_slot(DeviceIndex device) {
  static std::mutex mutex;
  static auto* const all = new std::vector<std::unique_ptr<CUDAGenerator>>(128);
  TP_CHECK_INDEX(device >= 0 && device < 128, "cuda: no generator for device ", int(device));
  const std::lock_guard<std::mutex> lock(mutex);
  auto& g = (*all)[static_cast<std::size_t>(device)];
  if (!g) g = std::make_unique<CUDAGenerator>();
  return *g;
}
}  // namespace detail

// c10's getDefaultCUDAGenerator: the default generator of `device` (-1: the current device).
inline CUDAGenerator& default_generator(DeviceIndex device = -1) {
  return detail::generator_slot(device < 0 ? current_device() : device);
}

// torch.cuda.manual_seed / manual_seed_all / initial_seed.
inline void manual_seed(std::uint64_t seed) { default_generator().set_current_seed(seed); }
inline void manual_seed_all(std::uint64_t seed) {
  for (DeviceIndex d = 0, n = device_count(); d < n; ++d) {
    default_generator(d).set_current_seed(seed);
  }
}
inline std::uint64_t initial_seed() { return default_generator().current_seed(); }

// The launch's parameter for filling t (its iteration space, one output) from a reserved
// (seed, offset); Index as the kernel's.
template <class Index>
RandomParams<Index> make_random_params(const TensorIterator& iter, std::uint64_t seed,
                                       std::uint64_t offset, double a, double b) {
  RandomParams<Index> p{};
  p.out = static_cast<char*>(iter.tensor(0).unsafeGetTensorImpl()->data());
  p.seed = seed;
  p.offset = offset;
  p.a = a;
  p.b = b;
  p.numel = static_cast<Index>(iter.numel());
  p.offsets = make_offset_calculator<1, Index>(iter);
  return p;
}

}  // namespace cuda

template <class>
void DeviceKernel<RandomOp, DeviceType::CUDA>::run(const Tensor& self, bool normal, double a,
                                                   double b) {
  using namespace cuda;
  if (self.numel() == 0) return;
  const TensorIterator iter =
      TensorIteratorConfig().add_output(self).set_check_mem_overlap(false).build();
  RandomKernelKey key{self.dtype(), normal, !can_use_32bit_indexing(iter)};
  check_random_kernel_key(key);
  const LaunchShape shape = pointwise_launch_shape(iter.numel(), !key.index64);
  CUDAGuard guard(self.device().index());
  const DeviceIndex device = guard.current_device().index();
  const auto [seed, offset] =
      default_generator(device).reserve(static_cast<std::uint64_t>(iter.numel()));
  const CUfunction function = kernel_function(
      device,
      kernel_slot(KernelFamily::Random, device,
                  static_cast<std::uint32_t>(key.dtype) | (key.normal ? 1u : 0u) << 4 |
                      (key.index64 ? 1u : 0u) << 5),
      random_kernel_name(key),
      [&] {
        return random_kernel_source({&key, 1});
      },
      pointwise_compile_options());
  const CUDAStream stream = getCurrentCUDAStream(device);
  const auto go = [&](auto params) {
    void* args[] = {&params};
    launch(function, dim3(static_cast<unsigned>(shape.grid)), dim3(shape.block), 0, stream.stream(),
           args);
  };
  if (key.index64) {
    go(make_random_params<unsigned long long>(iter, seed, offset, a, b));
  } else {
    go(make_random_params<unsigned>(iter, seed, offset, a, b));
  }
}

}  // namespace tensorplay
