// Random numbers: a reproducible CPU generator and the random factories rand, randn, randint
// and their *_like forms, with libtorch's signatures (`rand(size, generator, options)`).
//
// THE ENGINE is MT19937, the 32-bit Mersenne Twister (Matsumoto & Nishimura 1998), written out
// below rather than taken from <random> so that the whole stream is ours, constexpr, and carried
// in GeneratorState. A seed s initialises it as the reference init_genrand(s mod 2^32) does (and
// as std::mt19937(s) and PyTorch's at::mt19937 do); initial_seed() still returns the full 64-bit
// s. Let w be the next 32-bit output and w64 = (w_first << 32) | w_second, two outputs.
//
// THE STREAMS. Each factory draws under the generator's mutex, one element after another in the
// storage order of its fresh dense result (row-major for rand({...}); for *_like, the memory
// order of the layout it preserves). No distribution from <random> is used: their outputs differ
// between standard libraries. Per element:
//   rand     float32  (w   & (2^24 - 1)) * 2^-24      float16   (w & (2^11 - 1)) * 2^-11
//            float64  (w64 & (2^53 - 1)) * 2^-53      bfloat16  (w & (2^8 - 1))  * 2^-8
//            all exact, so every value is a multiple of the dtype's epsilon/2 in [0, 1).
//   randn    Box-Muller on pairs of elements (2k, 2k+1): u1 then u2 are float64 uniforms as
//            above (two w64 each pair), r = sqrt(-2 ln(1 - u2)), theta = 2 pi u1;
//            element 2k = r cos(theta), element 2k+1 = r sin(theta), computed in double and
//            rounded to the dtype; an odd count drops the last sine. So randn(n) consumes
//            4 ceil(n/2) words and is a prefix of randn(n + 1) after the same seed.
//   randint  [low, high): range = high - low as uint64; the draw is w64 when the dtype is
//            int64, float64, float32 or bfloat16 and range >= 2^32, else w; the value is
//            int64(low + draw mod range) converted to the dtype. (For floating dtypes the
//            bounds are first moved onto values the dtype holds, as PyTorch's update_from /
//            update_to do; only bounds beyond 2^digits move. The modulo's bias, at most
//            range / 2^32 or range / 2^64, is PyTorch's too.)
// Reproducibility: rand and randint are integer arithmetic and exact on every platform. randn
// also goes through the C library's log, sqrt, cos and sin in double: every build against the
// same libm agrees bit for bit (glibc's are the ones PyTorch's values above came from); another
// libm can differ in a last bit.
//
// PYTORCH. These are the streams of PyTorch 1.13's CPU generator, so after the same seed
// rand and randint give torch.rand/torch.randint's values bit for bit, and randn gives
// torch.randn's for fewer than 16 elements when PyTorch's spare-sine cache is empty (right after
// seeding, or after draws of even counts). For 16 or more PyTorch switches to a vectorised
// variant, and it keeps an odd count's spare sine for the next call; we drop it, so a draw
// depends only on the state and the count. Differences: randint does not warn (we have
// no warning channel) when a floating dtype cannot represent every integer of the range, and
// the default generator is seeded from the system's entropy on first use, as libtorch's is, so
// call manual_seed for reproducible runs.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <mutex>
#include <optional>
#include <type_traits>

#include <tensorplay/core/intrusive_ptr.hpp>
#include <tensorplay/ops/device_dispatch.hpp>
#include <tensorplay/ops/dispatch.hpp>
#include <tensorplay/ops/factories.hpp>
#include <tensorplay/ops/generator.hpp>

namespace tensorplay {
namespace detail {

// The uniform [0, 1) of the header comment, for each floating dtype.
template <class T>
T uniform01(CPUGeneratorImpl& g) noexcept {
  if constexpr (std::is_same_v<T, double>) {
    return static_cast<double>(g.random64() & ((uint64_t{1} << 53) - 1)) * 0x1p-53;
  } else {
    constexpr int digits = std::numeric_limits<T>::digits;  // 24, 11, 8
    const uint32_t bits = g.random() & ((uint32_t{1} << digits) - 1);
    return static_cast<T>(static_cast<float>(bits) / static_cast<float>(1u << digits));  // exact
  }
}

template <class T>
void uniform_fill(const Tensor& t, CPUGeneratorImpl& g) {
  T* p = static_cast<T*>(t.data_ptr());
  for (int64_t i = 0, n = t.numel(); i < n; ++i) p[i] = uniform01<T>(g);
}

template <class T>
void normal_fill(const Tensor& t, CPUGeneratorImpl& g) {
  constexpr double two_pi = 2.0 * 3.14159265358979323846;
  T* p = static_cast<T*>(t.data_ptr());
  const int64_t n = t.numel();
  for (int64_t i = 0; i < n; i += 2) {
    const double u1 = uniform01<double>(g);
    const double u2 = uniform01<double>(g);
    const double r = std::sqrt(-2.0 * std::log(1.0 - u2));  // 1 - u2 is in (0, 1]
    const double theta = two_pi * u1;
    p[i] = static_cast<T>(r * std::cos(theta));
    if (i + 1 < n) p[i + 1] = static_cast<T>(r * std::sin(theta));
  }
}

// int64(v) for a value of a floating T, saturating where the conversion would be undefined
// (PyTorch's casts there are undefined; saturating keeps the bounds checks meaningful).
template <class T>
int64_t saturating_int64(T v) noexcept {
  const double d = static_cast<double>(v);
  if (std::isnan(d)) return 0;
  if (d >= 9223372036854775808.0) return std::numeric_limits<int64_t>::max();
  if (d < -9223372036854775808.0) return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(d);
}

// PyTorch's update_from / update_to for floating dtypes: when from + 1 (or to - 1) rounds past
// from (or to) in T, move the bound by one ulp of T so that the cast bounds stay inside
// [from, to). Only bounds beyond 2^digits are affected.
template <class T>
int64_t update_from(int64_t from) {
  const int64_t from_plus_1 = saturating_int64(static_cast<T>(from + 1));
  if (from_plus_1 < from) {
    int64_t mag = from + 1 < 0 ? -(from + 1) : from + 1;
    int n = 0;
    while (mag >>= 1) ++n;
    from = from_plus_1 + (int64_t{1} << (n - std::numeric_limits<T>::digits + 1));
  }
  return from;
}

template <class T>
int64_t update_to(int64_t to) {
  const int64_t to_minus_1 = saturating_int64(static_cast<T>(to - 1));
  if (to_minus_1 >= to) {
    int64_t mag = to - 1 < 0 ? -(to - 1) : to - 1;
    int n = 0;
    while (mag >>= 1) ++n;
    to = to_minus_1 - (int64_t{1} << (n - std::numeric_limits<T>::digits + 1));
  }
  return to;
}

// random_(from, to) on a fresh dense tensor: PyTorch's random_from_to checks, then the randint
// stream of the header comment.
inline void random_from_to(const Tensor& t, int64_t from, int64_t to, const Generator& gen) {
  TP_CHECK(from < to, "random_ expects 'from' to be less than 'to', but got from=", from,
           " >= to=", to);
  dispatch_dtype(t.dtype(), [&]<class T>() {
    if constexpr (!std::is_integral_v<T>) {
      from = update_from<T>(from);
      to = update_to<T>(to);
      TP_CHECK(from < to,
               "random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, but "
               "got from=",
               from, " >= to=", to);
    }
    const int64_t to_inc = to - 1;
    const char* name = typemeta_name(t.dtype());
    if constexpr (std::is_integral_v<T>) {
      const auto lo = static_cast<int64_t>(std::numeric_limits<T>::lowest());
      const auto hi = static_cast<int64_t>(std::numeric_limits<T>::max());
      TP_CHECK(from >= lo && from <= hi, "from is out of bounds for ", name);
      TP_CHECK(to_inc >= lo && to_inc <= hi, "to - 1 is out of bounds for ", name);
    } else {
      const auto lo = static_cast<double>(std::numeric_limits<T>::lowest());
      const auto hi = static_cast<double>(std::numeric_limits<T>::max());
      const auto f = static_cast<double>(from), ti = static_cast<double>(to_inc);
      TP_CHECK(f >= lo && f <= hi, "from is out of bounds for ", name);
      TP_CHECK(ti >= lo && ti <= hi, "to - 1 is out of bounds for ", name);
    }
    const int64_t n = t.numel();
    if (n == 0) return;
    const uint64_t range = static_cast<uint64_t>(to) - static_cast<uint64_t>(from);
    const bool wide =
        (std::is_same_v<T, int64_t> || std::is_same_v<T, double> || std::is_same_v<T, float> ||
         std::is_same_v<T, BFloat16>)&&range >= (uint64_t{1} << 32);
    fill_on_host(t, [&](const Tensor& h) {
      T* p = h.data_ptr<T>();
      CPUGeneratorImpl& g = *gen.unsafeGetGeneratorImpl();
      std::lock_guard<std::mutex> lock(g.mutex());
      for (int64_t i = 0; i < n; ++i) {
        const uint64_t draw = wide ? g.random64() : g.random();
        p[i] = static_cast<T>(static_cast<int64_t>(draw % range + static_cast<uint64_t>(from)));
      }
    });
  });
}

template <class = void>
void uniform_fill(const Tensor& t, const Generator& gen) {
  dispatch_dtype(t.dtype(), [&]<class T>() {
    if constexpr (std::is_integral_v<T>) {
      dtype_not_implemented("check_uniform_bounds", t.dtype());
    } else {
      fill_on_host(t, [&](const Tensor& h) {
        CPUGeneratorImpl& g = *gen.unsafeGetGeneratorImpl();
        std::lock_guard<std::mutex> lock(g.mutex());
        uniform_fill<T>(h, g);
      });
    }
  });
}

template <class = void>
void normal_fill(const Tensor& t, const Generator& gen) {
  dispatch_dtype(t.dtype(), [&]<class T>() {
    if constexpr (std::is_integral_v<T>) {
      dtype_not_implemented("normal_kernel_cpu", t.dtype());
    } else {
      fill_on_host(t, [&](const Tensor& h) {
        CPUGeneratorImpl& g = *gen.unsafeGetGeneratorImpl();
        std::lock_guard<std::mutex> lock(g.mutex());
        normal_fill<T>(h, g);
      });
    }
  });
}

// A draw from the device's own generator when t is on a device whose backend has one
// (ops/device_dispatch.hpp's RandomOp: CUDA's counter-based Philox) and no generator was given;
// false otherwise, and the values are drawn on the host from the CPU generator.
template <class = void>
bool random_on_device(const Tensor& t, const std::optional<Generator>& g, bool normal) {
  if (g || t.is_cpu() || !is_floating_point(t.dtype())) return false;
  return try_device_kernel<RandomOp>(t.device().type(), t, normal, 0.0, 1.0);
}

}  // namespace detail

// ---- rand: uniform on [0, 1), floating dtypes only -----------------------------------------

template <class = void>
Tensor rand(IntArrayRef size, std::optional<Generator> generator,
            const TensorOptions& options = {}) {
  Tensor t = empty(size, options);
  if (!detail::random_on_device(t, generator, false)) {
    detail::uniform_fill(t, detail::generator_or_default(generator));
  }
  return t;
}
template <class = void>
Tensor rand(IntArrayRef size, const TensorOptions& options = {}) {
  return rand(size, std::nullopt, options);
}

// ---- randn: standard normal, floating dtypes only ------------------------------------------

template <class = void>
Tensor randn(IntArrayRef size, std::optional<Generator> generator,
             const TensorOptions& options = {}) {
  Tensor t = empty(size, options);
  if (!detail::random_on_device(t, generator, true)) {
    detail::normal_fill(t, detail::generator_or_default(generator));
  }
  return t;
}
template <class = void>
Tensor randn(IntArrayRef size, const TensorOptions& options = {}) {
  return randn(size, std::nullopt, options);
}

// ---- randint: uniform integers in [low, high), int64 unless the options say otherwise -------
// (libtorch defaults its options argument to kLong, so an options value without a dtype would
// give float32 there; here a missing dtype always means int64, as torch.randint's does.)

template <class = void>
Tensor randint(int64_t low, int64_t high, IntArrayRef size, std::optional<Generator> generator,
               const TensorOptions& options = kLong) {
  Tensor t = empty(size, options.has_dtype() ? options : options.dtype(kLong));
  detail::random_from_to(t, low, high, detail::generator_or_default(generator));
  return t;
}
template <class = void>
Tensor randint(int64_t low, int64_t high, IntArrayRef size, const TensorOptions& options = kLong) {
  return randint(low, high, size, std::nullopt, options);
}
template <class = void>
Tensor randint(int64_t high, IntArrayRef size, std::optional<Generator> generator,
               const TensorOptions& options = kLong) {
  return randint(0, high, size, std::move(generator), options);
}
template <class = void>
Tensor randint(int64_t high, IntArrayRef size, const TensorOptions& options = kLong) {
  return randint(0, high, size, std::nullopt, options);
}

// ---- *_like: self's shape, dtype, device and (by default, Preserve) layout ------------------
// The values are drawn in the result's memory order, so rand_like of a transposed tensor after
// manual_seed(s) holds rand({...}) of the same seed laid out transposed.

template <class = void>
Tensor rand_like(const Tensor& self, const TensorOptions& options = {},
                 std::optional<MemoryFormat> memory_format = std::nullopt) {
  Tensor t = empty_like(self, options, memory_format);
  if (!detail::random_on_device(t, std::nullopt, false)) {
    detail::uniform_fill(t, detail::getDefaultCPUGenerator());
  }
  return t;
}

template <class = void>
Tensor randn_like(const Tensor& self, const TensorOptions& options = {},
                  std::optional<MemoryFormat> memory_format = std::nullopt) {
  Tensor t = empty_like(self, options, memory_format);
  if (!detail::random_on_device(t, std::nullopt, true)) {
    detail::normal_fill(t, detail::getDefaultCPUGenerator());
  }
  return t;
}

template <class = void>
Tensor randint_like(const Tensor& self, int64_t low, int64_t high,
                    const TensorOptions& options = {},
                    std::optional<MemoryFormat> memory_format = std::nullopt) {
  Tensor t = empty_like(self, options, memory_format);
  detail::random_from_to(t, low, high, detail::getDefaultCPUGenerator());
  return t;
}

template <class = void>
Tensor randint_like(const Tensor& self, int64_t high, const TensorOptions& options = {},
                    std::optional<MemoryFormat> memory_format = std::nullopt) {
  return randint_like(self, 0, high, options, memory_format);
}

}  // namespace tensorplay
