// The CUDA source of the random kernels (ops/device_dispatch.hpp's RandomOp): rand and randn on
// the device from a counter-based generator, Philox4x32-10 (Salmon et al., "Parallel random
// numbers: as easy as 1, 2, 3", SC'11; the generator of PyTorch's and cuRAND's CUDA sampling).
// Element i of a launch draws one Philox block, counter (offset + i) and key the seed, so a draw
// needs no state on the device, every element is independent of the launch shape, and a
// generator advances by one block per element (random.hpp's CUDAGenerator).
//
// From a block's four 32-bit words: uniform float32 from the top 24 bits of word 0 (k * 2^-24,
// on [0, 1)), float64 from 53 bits of words 0 and 1; normal values by Box-Muller from two such
// uniforms (u1 taken as 1 - u, on (0, 1], so the log is finite), in float32 for float32,
// float16 and bfloat16 (rounded once on the store) and in float64 for float64. The values are
// not the CPU generator's (as PyTorch's CUDA values are not its CPU values).
#pragma once

#include <tensorplay/backends/cuda/offset_calculator.hpp>
#include <tensorplay/backends/cuda/pointwise_source.hpp>
#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/error.hpp>

#include <cstdint>
#include <span>
#include <string>

// clang-format off
#define TENSORPLAY_CUDA_PHILOX_CODE_(X)                                                      \
  X(                                                                                         \
  struct PhiloxBlock {                                                                       \
    unsigned v[4];                                                                           \
  };                                                                                         \
  /* Philox4x32 with 10 rounds: the counter mixed under the key by multiply-high rounds, the \
     key bumped by the Weyl constants between rounds (Random123's philox4x32_R). */          \
  TENSORPLAY_CUDA_HD_ PhiloxBlock philox4x32_10(PhiloxBlock c, unsigned k0, unsigned k1) {   \
    for (int round = 0; round < 10; ++round) {                                               \
      if (round > 0) {                                                                       \
        k0 += 0x9E3779B9u;                                                                   \
        k1 += 0xBB67AE85u;                                                                   \
      }                                                                                      \
      const unsigned long long p0 = 0xD2511F53ull * c.v[0];                                  \
      const unsigned long long p1 = 0xCD9E8D57ull * c.v[2];                                  \
      const PhiloxBlock next = {{static_cast<unsigned>(p1 >> 32) ^ c.v[1] ^ k0,              \
                                 static_cast<unsigned>(p1),                                  \
                                 static_cast<unsigned>(p0 >> 32) ^ c.v[3] ^ k1,              \
                                 static_cast<unsigned>(p0)}};                                \
      c = next;                                                                              \
    }                                                                                        \
    return c;                                                                                \
  }                                                                                          \
  /* The block of element `index` of a draw at `offset` under `seed`. */                     \
  TENSORPLAY_CUDA_HD_ PhiloxBlock philox_block(unsigned long long seed,                      \
                                               unsigned long long offset,                    \
                                               unsigned long long index) {                   \
    const unsigned long long n = offset + index;                                             \
    const PhiloxBlock counter = {{static_cast<unsigned>(n), static_cast<unsigned>(n >> 32),  \
                                  0u, 0u}};                                                  \
    return philox4x32_10(counter, static_cast<unsigned>(seed),                               \
                         static_cast<unsigned>(seed >> 32));                                 \
  }                                                                                          \
  /* Uniform on [0, 1): 24 bits for float32, 53 for float64. */                              \
  TENSORPLAY_CUDA_HD_ float uniform_float(unsigned w) {                                      \
    return static_cast<float>(w >> 8) * (1.0f / 16777216.0f);                                \
  }                                                                                          \
  TENSORPLAY_CUDA_HD_ double uniform_double(unsigned hi, unsigned lo) {                      \
    const unsigned long long bits =                                                          \
        (static_cast<unsigned long long>(hi) << 21) ^ (static_cast<unsigned long long>(lo) >> 11); \
    return static_cast<double>(bits & ((1ull << 53) - 1)) * (1.0 / 9007199254740992.0);      \
  }                                                                                          \
  /* The one argument of a random kernel, passed by value. */                                \
  template <class Index>                                                                     \
  struct RandomParams {                                                                      \
    char* out;                                                                               \
    unsigned long long seed;                                                                 \
    unsigned long long offset;                                                               \
    /* uniform: [a, b); normal: mean a, standard deviation b. */                             \
    double a;                                                                                \
    double b;                                                                                \
    Index numel;                                                                             \
    OffsetCalculator<1, Index> offsets;                                                      \
  };                                                                                         \
  )
// clang-format on

namespace tensorplay::cuda {

TENSORPLAY_CUDA_PHILOX_CODE_(TENSORPLAY_CUDA_EXPAND_)

// One random kernel: a floating dtype, the distribution, the index width.
struct RandomKernelKey {
  DType dtype = kFloat;
  bool normal = false;
  bool index64 = false;
  friend bool operator==(const RandomKernelKey&, const RandomKernelKey&) = default;
};

inline void check_random_kernel_key(const RandomKernelKey& key) {
  TP_CHECK_TYPE(is_floating_point(key.dtype), "cuda: ", key.normal ? "randn" : "rand",
                " kernels draw floating dtypes, not ", scalar_type_name(key.dtype));
}

// Its entry name in the PTX: tp_<uniform|normal>_<dtype>_<i32|i64>.
inline std::string random_kernel_name(const RandomKernelKey& key) {
  check_random_kernel_key(key);
  return ::tensorplay::detail::str_cat("tp_", key.normal ? "normal_" : "uniform_",
                                       dtype_name(key.dtype), key.index64 ? "_i64" : "_i32");
}

namespace detail {
template <class Index>
void append_random_params_layout_check(std::string& s, const char* index) {
  using P = RandomParams<Index>;
  append_layout_check<P>(
      s, ::tensorplay::detail::str_cat("RandomParams<", index, ">"),
      {member_layout("out", &P::out), member_layout("seed", &P::seed),
       member_layout("offset", &P::offset), member_layout("a", &P::a), member_layout("b", &P::b),
       member_layout("numel", &P::numel), member_layout("offsets", &P::offsets)});
}
}  // namespace detail

// The CUDA source of one NVRTC program holding the random kernels of `keys`.
inline std::string random_kernel_source(std::span<const RandomKernelKey> keys) {
  using ::tensorplay::detail::str_cat;
  std::string s = detail::pointwise_prelude();
  s += "namespace tp {\n";
  s += TENSORPLAY_CUDA_PHILOX_CODE_(TENSORPLAY_CUDA_STRINGIFY_);
  s += "\n";
  detail::append_random_params_layout_check<unsigned>(s, "unsigned");
  detail::append_random_params_layout_check<unsigned long long>(s, "unsigned long long");
  s += R"CUDA(
// Element by element, as the elementwise kernels go (for_each_element); C: the compute type
// (float or double).
template <class T, bool kNormal, class I>
__device__ __forceinline__ void random_fill(const RandomParams<I>& p) {
  typedef typename opmath<T>::type C;
  for_each_element(p.numel, [&](I idx) {
    const PhiloxBlock r = philox_block(p.seed, p.offset, static_cast<unsigned long long>(idx));
    C u1, u2;
    if constexpr (is_same<C, double>::value) {
      u1 = uniform_double(r.v[0], r.v[1]);
      u2 = uniform_double(r.v[2], r.v[3]);
    } else {
      u1 = uniform_float(r.v[0]);
      u2 = uniform_float(r.v[1]);
    }
    C v;
    if constexpr (kNormal) {
      const C radius = sqrt(C(-2) * log(C(1) - u1));
      v = static_cast<C>(p.a) + static_cast<C>(p.b) * radius * cos(C(6.283185307179586477) * u2);
    } else {
      v = static_cast<C>(p.a) + (static_cast<C>(p.b) - static_cast<C>(p.a)) * u1;
    }
    store<T>(p.out + p.offsets.get(idx).v[0], v);
  });
}

}  // namespace tp
)CUDA";
  for (const RandomKernelKey& key : keys) {
    const std::string_view index = key.index64 ? "unsigned long long" : "unsigned";
    s += str_cat("extern \"C\" __global__ void __launch_bounds__(", kPointwiseBlockSize, ") ",
                 random_kernel_name(key), "(const __grid_constant__ tp::RandomParams<", index,
                 "> p) {\n  tp::random_fill<", detail::cuda_storage_type(key.dtype), ", ",
                 key.normal ? "true" : "false", ", ", index, ">(p);\n}\n");
  }
  return s;
}

}  // namespace tensorplay::cuda
