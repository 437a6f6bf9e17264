// The copy kernel: every element move (copy_, clone, contiguous, to, and the iteration
// engine's write-back of outputs computed in another dtype) ends in detail::copy_impl.
//
// One kernel does every element move: the TensorIterator walks destination and source (any
// strides, the source broadcast to the destination's shape) and an inner loop converts each
// element from the source dtype to the destination dtype. The cases that dominate in practice
// get shorter roads: same dtype and both contiguous is one memcpy, contiguous rows are plain
// pointer loops the compiler vectorises, and a transpose is walked in cache-sized tiles by the
// iterator. No autograd here: ops/copy.hpp holds the differentiable API on top.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <optional>
#include <type_traits>

#include <tensorplay/core/convert.hpp>
#include <tensorplay/core/empty.hpp>
#include <tensorplay/ops/cpu_capability.hpp>
#include <tensorplay/ops/device_dispatch.hpp>
#include <tensorplay/ops/dispatch.hpp>
#include <tensorplay/ops/factories.hpp>
#include <tensorplay/ops/tensor_iterator.hpp>

#if TENSORPLAY_X86_SIMD_
#include <immintrin.h>
#endif

namespace tensorplay {
namespace detail {

#if TENSORPLAY_X86_SIMD_
// F16C's conversions, eight at a time; target-attributed, so they exist in every x86-64 build
// and run only where the AVX2 level does (see convert_contiguous_simd).
[[gnu::target(TENSORPLAY_TARGET_AVX2_)]] inline int64_t half_from_float_f16c(Half* out,
                                                                             const float* in,
                                                                             int64_t n) noexcept {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm256_cvtps_ph(_mm256_loadu_ps(in + i), _MM_FROUND_TO_NEAREST_INT);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + i), h);
  }
  return i;
}
[[gnu::target(TENSORPLAY_TARGET_AVX2_)]] inline int64_t float_from_half_f16c(float* out,
                                                                             const Half* in,
                                                                             int64_t n) noexcept {
  int64_t i = 0;
  for (; i + 8 <= n; i += 8) {
    const __m128i h = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in + i));
    _mm256_storeu_ps(out + i, _mm256_cvtph_ps(h));
  }
  return i;
}
#endif

// float <-> Half eight at a time on the conversion instructions of the AVX2 level (F16C); they
// round to nearest-even exactly as Half's constructor does, so results are the same at every
// level. The scalar conversion is integer bit-twiddling the compiler cannot vectorise. The
// level is asked per call (a row or a block): the F16C helper is then inlined into the AVX2 and
// AVX-512 variants of the caller's loop. Returns how many elements were done; the caller's loop
// finishes the rest.
template <class To, class From>
inline int64_t convert_contiguous_simd(To* out, const From* in, int64_t n) noexcept {
#if TENSORPLAY_X86_SIMD_
  if constexpr (std::is_same_v<To, Half> && std::is_same_v<From, float>) {
    if (cpu_has_avx2_level()) return half_from_float_f16c(out, in, n);
  } else if constexpr (std::is_same_v<To, float> && std::is_same_v<From, Half>) {
    if (cpu_has_avx2_level()) return float_from_half_f16c(out, in, n);
  }
#endif
  (void)out, (void)in, (void)n;
  return 0;
}

// Contiguous bytes, src and dst not overlapping. Past kStreamingCopyBytes the copy bypasses the
// cache: a destination that size evicts useful lines anyway on its way to memory, and
// non-temporal stores skip the read-for-ownership of every destination line (a third less
// traffic; 64 MiB took 7.9 ms with memcpy, 5.7 ms streamed, on the benchmark machine). glibc
// makes the same switch, but past a threshold derived from the L3 size, which virtual machines
// often report as hundreds of MiB, so it never does there.
inline constexpr std::size_t kStreamingCopyBytes = std::size_t{16} << 20;

#if TENSORPLAY_X86_SIMD_
// The streamed copy: 32-byte AVX stores at the AVX2 level, 16-byte SSE2 ones (every x86-64)
// otherwise. Streaming stores need a destination aligned to their width: `head` bytes go first.
inline std::size_t stream_head(const char* d, std::size_t width, std::size_t n) noexcept {
  return std::min(n, (width - reinterpret_cast<std::uintptr_t>(d) % width) % width);
}
[[gnu::target(TENSORPLAY_TARGET_AVX2_)]] inline void stream_copy_avx(char* d, const char* s,
                                                                     std::size_t n) noexcept {
  std::size_t i = stream_head(d, 32, n);
  std::memcpy(d, s, i);
  for (; i + 128 <= n; i += 128) {
    for (std::size_t k = 0; k < 128; k += 32) {
      const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(s + i + k));
      _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i + k), v);
    }
  }
  _mm_sfence();  // order the streamed stores before anything that follows
  std::memcpy(d + i, s + i, n - i);
}
inline void stream_copy_sse2(char* d, const char* s, std::size_t n) noexcept {
  std::size_t i = stream_head(d, 16, n);
  std::memcpy(d, s, i);
  for (; i + 128 <= n; i += 128) {
    for (std::size_t k = 0; k < 128; k += 16) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(s + i + k));
      _mm_stream_si128(reinterpret_cast<__m128i*>(d + i + k), v);
    }
  }
  _mm_sfence();
  std::memcpy(d + i, s + i, n - i);
}
#endif

inline void copy_bytes(void* dst, const void* src, std::size_t n) noexcept {
  if (dst == src) return;
#if TENSORPLAY_X86_SIMD_
  if (n >= kStreamingCopyBytes) {
    char* d = static_cast<char*>(dst);
    const char* s = static_cast<const char*>(src);
    if (cpu_has_avx2_level()) {
      stream_copy_avx(d, s, n);
    } else {
      stream_copy_sse2(d, s, n);
    }
    return;
  }
#endif
  std::memcpy(dst, src, n);
}

// Whether a row of n elements written at out overlaps the n read at in (byte strides >= 0).
inline bool rows_overlap(const char* out, int64_t out_step, const char* in, int64_t in_step,
                         int64_t n, int64_t item) noexcept {
  return out < in + (n - 1) * in_step + item && in < out + (n - 1) * out_step + item;
}

// A contiguous row whose source overlaps it (dst and src views of one storage that PyTorch's
// overlap check cannot judge, so it copies them). PyTorch 1.13's vectorised loop reads 64
// bytes (two AVX2 vectors), stores them, and moves on; the tail goes element by element.
// Copying in those steps gives the values PyTorch gives.
template <class T>
inline void copy_overlapping_row(T* out, const T* in, int64_t n) noexcept {
  constexpr int64_t kChunk = 64 / int64_t(sizeof(T));
  int64_t i = 0;
  for (; i + kChunk <= n; i += kChunk) {
    T buf[kChunk];
    std::memcpy(buf, in + i, sizeof(buf));
    std::memcpy(out + i, buf, sizeof(buf));
  }
  for (; i < n; ++i) out[i] = in[i];
}

// The inner loop of every copy. Contiguous rows and broadcast scalars get their own plain
// loops: with typed pointers and unit steps the compiler emits vector code.
template <class To, class From>
inline void copy_loop(char** data, const int64_t* strides, int64_t n) {
  char* out = data[0];
  const char* in = data[1];
  if constexpr (std::is_same_v<To, From>) {
    if (is_inner_contiguous<To, From>(strides) &&
        rows_overlap(out, strides[0], in, strides[1], n, int64_t(sizeof(To)))) {
      return copy_overlapping_row(reinterpret_cast<To*>(out), reinterpret_cast<const From*>(in), n);
    }
  }
  if (is_inner_contiguous<To, From>(strides)) {
    To* o = reinterpret_cast<To*>(out);
    const From* p = reinterpret_cast<const From*>(in);
    for (int64_t i = convert_contiguous_simd(o, p, n); i < n; ++i) o[i] = convert<To>(p[i]);
  } else if (strides[1] == 0) {
    const To v = convert<To>(*reinterpret_cast<const From*>(in));
    for (int64_t i = 0; i < n; ++i) *reinterpret_cast<To*>(out + i * strides[0]) = v;
  } else {
    for (int64_t i = 0; i < n; ++i) {
      *reinterpret_cast<To*>(out + i * strides[0]) =
          convert<To>(*reinterpret_cast<const From*>(in + i * strides[1]));
    }
  }
}

// A transposing block: the output steps by one element along dimension 0 and the input along
// dimension 1 (the iterator's tiling put the input's fastest dimension there). Moving 8x8
// squares through a small buffer turns both sides into short unit-stride runs, which the
// compiler turns into vector loads, shuffles and stores; a row-by-row walk would read one
// element per cache line. Edges narrower than 8 go through the row loop.
template <class To, class From>
inline void copy_transpose_block(char* out, const char* in, int64_t out_s1, int64_t in_s0,
                                 int64_t m0, int64_t m1) {
  for (int64_t j = 0; j + 8 <= m1; j += 8) {
    for (int64_t i = 0; i + 8 <= m0; i += 8) {
      To b[8][8];
      for (int x = 0; x < 8; ++x) {
        for (int y = 0; y < 8; ++y) {
          b[x][y] = convert<To>(*reinterpret_cast<const From*>(in + (i + y) * in_s0 +
                                                               (j + x) * int64_t(sizeof(From))));
        }
      }
      for (int x = 0; x < 8; ++x) {
        for (int y = 0; y < 8; ++y) {
          *reinterpret_cast<To*>(out + (i + y) * int64_t(sizeof(To)) + (j + x) * out_s1) = b[x][y];
        }
      }
    }
  }
}

template <class To, class From>
inline void copy_loop_2d(char** data, const int64_t* strides, int64_t m0, int64_t m1) {
  int64_t done0 = 0, done1 = 0;  // the square part handled by the transposing blocks
  // Transposing blocks only for same-type moves (clone/contiguous of a transpose): converting
  // copies are rarer, and 100 dtype pairs of block code would cost compile time everywhere.
  // Not when the block's bytes meet its source's: PyTorch then reads element by element.
  if (std::is_same_v<To, From> && strides[0] == int64_t(sizeof(To)) &&
      strides[3] == int64_t(sizeof(From)) && m0 >= 8 && m1 >= 8 &&
      !(data[0] < data[1] + (m0 - 1) * strides[1] + (m1 - 1) * strides[3] + sizeof(From) &&
        data[1] < data[0] + (m0 - 1) * strides[0] + (m1 - 1) * strides[2] + sizeof(To))) {
    copy_transpose_block<To, From>(data[0], data[1], strides[2], strides[1], m0, m1);
    done0 = m0 & ~int64_t{7};
    done1 = m1 & ~int64_t{7};
  }
  // Rows j < done1 still owe their columns [done0, m0); rows from done1 on owe everything.
  for (int64_t j = 0; j < m1; ++j) {
    const int64_t from = j < done1 ? done0 : 0;
    if (from == m0) continue;
    char* ptrs[2] = {data[0] + j * strides[2] + from * strides[0],
                     data[1] + j * strides[3] + from * strides[1]};
    copy_loop<To, From>(ptrs, strides, m0 - from);
  }
}

// A same-dtype copy only moves bytes, so it is instantiated once per element size.
template <class F>
void dispatch_element_bits(std::size_t itemsize, F&& f) {
  switch (itemsize) {
    case 1: return f.template operator()<uint8_t>();
    case 2: return f.template operator()<uint16_t>();
    case 4: return f.template operator()<uint32_t>();
    default: return f.template operator()<uint64_t>();
  }
}

// Converting copies between the dtypes a model moves most (the floating types among
// themselves, and int32/int64 into float) get their own vectorised loops. The other pairs go
// through a wide type in blocks: the source's exact value as int64 (integral and bool sources)
// or as double (floating sources), then convert<To> from there. Each step is exact except the
// last, which is the same single rounding convert<To, From> does, so the results are the
// direct conversion's; the cost is one extra pass over an L1-resident block. Ten loaders and
// twenty storers instead of ninety pair kernels keep every translation unit that includes the
// engine small to compile.
template <class From, class W>
void load_wide(const char* in, int64_t stride, int64_t n, W* buf) {
  if (stride == int64_t(sizeof(From))) {
    const From* p = reinterpret_cast<const From*>(in);
    for (int64_t i = 0; i < n; ++i) buf[i] = convert<W>(p[i]);
  } else {
    for (int64_t i = 0; i < n; ++i)
      buf[i] = convert<W>(*reinterpret_cast<const From*>(in + i * stride));
  }
}

template <class To, class W>
void store_wide(const W* buf, int64_t n, char* out, int64_t stride) {
  if (stride == int64_t(sizeof(To))) {
    To* p = reinterpret_cast<To*>(out);
    for (int64_t i = 0; i < n; ++i) p[i] = convert<To>(buf[i]);
  } else {
    for (int64_t i = 0; i < n; ++i) *reinterpret_cast<To*>(out + i * stride) = convert<To>(buf[i]);
  }
}

template <class W>
void copy_through_wide(const TensorIterator& iter, DType to, DType from) {
  using Load = void (*)(const char*, int64_t, int64_t, W*);
  using Store = void (*)(const W*, int64_t, char*, int64_t);
  const Load load = dispatch_dtype(from, []<class F>() -> Load { return &load_wide<F, W>; });
  const Store store = dispatch_dtype(to, []<class T>() -> Store { return &store_wide<T, W>; });
  iter.for_each([load, store](char** d, const int64_t* s, int64_t n) {
    constexpr int64_t kBlock = 256;
    W buf[kBlock];
    for (int64_t i = 0; i < n; i += kBlock) {
      const int64_t m = std::min(kBlock, n - i);
      load(d[1] + i * s[1], s[1], m, buf);
      store(buf, m, d[0] + i * s[0], s[0]);
    }
  });
}

// Calls f.template operator()<To, From>() when (to, from) has a direct loop; false otherwise.
template <class F>
bool dispatch_direct_conversion(DType to, DType from, F&& f) {
  auto floating = [](DType t) {
    return t == kFloat || t == kDouble || t == kHalf || t == kBFloat16;
  };
  if (floating(to) && floating(from)) {
    dispatch_dtype(to, [&]<class To>() {
      if constexpr (std::is_floating_point_v<To> || ReducedFloatingPoint<To>) {
        dispatch_dtype(from, [&]<class From>() {
          if constexpr (std::is_floating_point_v<From> || ReducedFloatingPoint<From>) {
            f.template operator()<To, From>();
          }
        });
      }
    });
    return true;
  }
  if (to == kFloat && from == kInt) return f.template operator()<float, int32_t>(), true;
  if (to == kFloat && from == kLong) return f.template operator()<float, int64_t>(), true;
  return false;
}

template <class = void>
void copy_kernel(const TensorIterator& iter) {
  const DType to = iter.dtype(0), from = iter.dtype(1);
  if (to == from && iter.is_contiguous()) {
    // memmove: a full overlap (two views of the same elements) may still reach here.
    std::memmove(iter.data_ptr(0), iter.data_ptr(1), std::size_t(iter.numel()) * itemsize(to));
  } else if (to == from) {
    // The loops compiled for the current CPU level (ops/cpu_capability.hpp), picked once.
    dispatch_element_bits(itemsize(to), [&]<class B>() {
      const auto block = cpu_dispatch_fn<&copy_loop_2d<B, B>, (sizeof(B) >= 4)>();
      iter.for_each(
          [block](char** d, const int64_t* s, int64_t m0, int64_t m1) { block(d, s, m0, m1); });
    });
  } else if (!dispatch_direct_conversion(to, from, [&]<class To, class From>() {
               const auto row = cpu_dispatch_fn<&copy_loop<To, From>, kDispatchedTypes<To, From>>();
               iter.for_each([row](char** d, const int64_t* s, int64_t n) { row(d, s, n); });
             })) {
    if (is_floating_point(from)) {
      copy_through_wide<double>(iter, to, from);
    } else {
      copy_through_wide<int64_t>(iter, to, from);
    }
  }
}

// The iteration of dst = src (any dtypes; src broadcast to dst's shape, which is kept), with
// PyTorch's overlap checks. Devices are the caller's: a device's copy kernel builds it too.
template <class = void>
TensorIterator copy_iterator(const Tensor& dst, const Tensor& src) {
  return TensorIteratorConfig()
      .add_output(dst)
      .add_input(src)
      .check_all_same_dtype(false)
      .check_all_same_device(false)
      .resize_outputs(false)
      .build();
}

// copy_ with a quantized side (ops/quantize_kernel.hpp, included at the end of this file).
template <class = void>
void quantized_copy(const Tensor& dst, const Tensor& src);

template <class>
void copy_impl(const Tensor& dst, const Tensor& src) {
  TP_CHECK(src.defined(), "copy_: the source tensor is undefined");
  // Quantized tensors copy their integers (and quantize a float source); the dense path below
  // never sees one. One dtype test per side.
  if (is_quantized(dst.dtype()) || is_quantized(src.dtype())) return quantized_copy(dst, src);
  // The one cross-device entry (the spec's): a copy that involves another device is that
  // device's kernel, which picks its path from both devices (upload, download, on-device).
  if (!dst.is_cpu() || !src.is_cpu()) {
    return call_device_kernel<CopyOp>(dst.is_cpu() ? src.device().type() : dst.device().type(), dst,
                                      src);
  }
  // a.copy_(a), or another view of exactly the same elements: nothing to move (PyTorch returns
  // early for both).
  if (dst.is_same(src) ||
      (dst.data_ptr() == src.data_ptr() && dst.dtype() == src.dtype() &&
       dst.sizes() == src.sizes() && dst.strides() == src.strides() && dst.is_alias_of(src))) {
    return;
  }
  // Contiguous same-dtype copies of equal shape skip the iterator: one memcpy.
  if (dst.dtype() == src.dtype() && dst.sizes() == src.sizes() && dst.is_contiguous() &&
      src.is_contiguous()) {
    assert_no_partial_overlap(dst, src);  // what passes does not overlap, or is dst == src
    if (dst.numel() > 0) copy_bytes(dst.data_ptr(), src.data_ptr(), dst.nbytes());
    return;
  }
  // Mixed dtypes are the point of copy_; devices were checked above. The iterator refuses
  // the overlaps PyTorch can prove partial; the rest (a strided or expanded source sharing
  // bytes with dst) are copied in place in iteration order, as PyTorch does, which the values
  // PyTorch gives then depend on (a[2:5].copy_(a[0:6:2]) reads a[2] after writing it).
  TensorIterator iter = copy_iterator(dst, src);
  if (iter.numel() == 0) return;
  copy_kernel(iter);
}

// copy_(src, non_blocking=true): the device's asynchronous copy where its backend has one
// (CUDA, to and from pinned memory), else the blocking copy; CPU copies are always synchronous.
template <class = void>
void copy_impl_non_blocking(const Tensor& dst, const Tensor& src) {
  TP_CHECK(src.defined(), "copy_: the source tensor is undefined");
  if (!dst.is_cpu() || !src.is_cpu()) {
    const DeviceType t = dst.is_cpu() ? src.device().type() : dst.device().type();
    if (try_device_kernel<NonBlockingCopyOp>(t, dst, src)) return;
  }
  copy_impl(dst, src);
}

// clone and to: new bytes laid out by empty_like's policy (Preserve keeps a dense input's
// strides and gives any other input dense strides in its own dimension order), filled by one
// memcpy when the layouts agree, and a version of 0.
template <class>
Tensor copy_to_new(const Tensor& self, const TensorOptions& options, MemoryFormat format,
                   bool non_blocking) {
  // A non-blocking copy from a device to the CPU lands in pinned memory, as PyTorch's _to_copy
  // does, so that it can be asynchronous.
  const bool pin_out = non_blocking && !self.is_cpu() && options.device().is_cpu() &&
                       !options.has_pinned_memory() && is_compiled_in<DeviceType::CUDA> &&
                       self.is_cuda();
  Tensor out = empty_like(self, pin_out ? options.pinned_memory(true) : options, format);
  if (out.dtype() == self.dtype() && out.strides() == self.strides() &&
      self.is_non_overlapping_and_dense() && self.is_cpu() && out.is_cpu()) {
    // Dense with equal strides: both are the same run of numel elements from data_ptr.
    if (self.numel() > 0) copy_bytes(out.data_ptr(), self.data_ptr(), self.nbytes());
  } else if (non_blocking) {
    copy_impl_non_blocking(out, self);
  } else {
    copy_impl(out, self);
  }
  // The copy may have bumped the counter; what we return has never been modified.
  out.unsafeGetTensorImpl()->reset_version();
  return out;
}

template <class T>
void fill_kernel(const Tensor& self, T value) {
  if (self.is_non_overlapping_and_dense()) {  // one run of numel elements from data_ptr
    T* p = static_cast<T*>(self.data_ptr());
    for (int64_t i = 0, n = self.numel(); i < n; ++i) p[i] = value;
    return;
  }
  // Writing one value many times to a shared location is harmless: no overlap check.
  auto iter = TensorIteratorConfig().add_output(self).set_check_mem_overlap(false).build();
  iter.for_each([value](char** data, const int64_t* strides, int64_t n) {
    if (strides[0] == int64_t(sizeof(T))) {
      T* p = reinterpret_cast<T*>(data[0]);
      for (int64_t i = 0; i < n; ++i) p[i] = value;
    } else {
      for (int64_t i = 0; i < n; ++i) *reinterpret_cast<T*>(data[0] + i * strides[0]) = value;
    }
  });
}

}  // namespace detail
}  // namespace tensorplay

// The quantized copies and fills (they use the copy kernel above).
#include <tensorplay/ops/quantize_kernel.hpp>
