// Strided and broadcast addressing for the CUDA kernels, host side: the offset calculator a
// kernel maps a linear element index to per-operand byte offsets with (PyTorch's
// OffsetCalculator), the choice between 32- and 64-bit indexing (can_use_32bit_indexing), and the
// launch shape of an elementwise kernel.
//
//   auto calc = make_offset_calculator<3, unsigned>(iter);    // out, in0, in1
//   calc.get(i).v[k]   // operand k's byte offset of element i (dimension 0 fastest)
//
// The structs are plain data passed to the kernel by value, and the kernel runs the same code:
// their definition is written once (TENSORPLAY_CUDA_INDEXING_CODE_ below) and expanded twice,
// as C++ here and as a string into every kernel's source (indexing_device_source()), where a
// static_assert on the host's sizes and member offsets proves both compilers lay them out alike.
// So what the tests check on the CPU is the index math the device runs.
//
// Offsets are unsigned byte offsets from each operand's data pointer (its storage offset is in
// the pointer), so strides must be non-negative, as a TensorIterator's are. 32-bit indexing
// (numel and every operand's furthest byte below 2^31) divides with a multiply-high and a shift;
// anything larger uses 64-bit offsets and plain division rather than PyTorch's split into
// 32-bit sub-iterations, which would need per-part base pointers: such tensors are rare and
// large enough for the slower division not to matter against their memory traffic.
#pragma once

#include <tensorplay/backends/cuda/error.hpp>
#include <tensorplay/core/array_ref.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/safe_math.hpp>
#include <tensorplay/ops/tensor_iterator.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

// Code shared by the host compiler and NVRTC: X(tokens) either expands the tokens (host) or
// stringifies them (kernel source). Comments inside use /* */ (a // comment would swallow the
// rest of the macro), and nothing in it may be a preprocessor directive.
#define TENSORPLAY_CUDA_EXPAND_(...) __VA_ARGS__
#define TENSORPLAY_CUDA_STRINGIFY_(...) #__VA_ARGS__
// Host: functions are plain inline ones; the kernel prelude defines it as __device__ code.
#define TENSORPLAY_CUDA_HD_ inline

// clang-format off
#define TENSORPLAY_CUDA_INDEXING_CODE_(X)                                                     \
  X(                                                                                          \
  /* The most dimensions a kernel indexes, PyTorch's MAX_DIMS for CUDA. */                    \
  inline constexpr int kMaxDims = 25;                                                         \
  static_assert(sizeof(unsigned) == 4 && sizeof(unsigned long long) == 8, "index widths");    \
                                                                                              \
  template <class Index>                                                                      \
  struct DivMod {                                                                             \
    Index div;                                                                                \
    Index mod;                                                                                \
  };                                                                                          \
                                                                                              \
  /* n / divisor and n % divisor; 64-bit: plain division. */                                  \
  template <class Index>                                                                      \
  struct IntDivider {                                                                         \
    Index divisor;                                                                            \
    TENSORPLAY_CUDA_HD_ DivMod<Index> divmod(Index n) const {                                 \
      const Index q = n / divisor;                                                            \
      return DivMod<Index>{q, n - q * divisor};                                               \
    }                                                                                         \
  };                                                                                          \
                                                                                              \
  /* 32-bit: q = (umulhi(n, m1) + n) >> shift (Granlund and Montgomery, as PyTorch's          \
     IntDivider<unsigned>), exact for n and divisor below 2^31, which 32-bit indexing         \
     guarantees; a GPU has no integer divide instruction, and a division is ~20 of them. */   \
  template <>                                                                                 \
  struct IntDivider<unsigned> {                                                               \
    unsigned divisor;                                                                         \
    unsigned m1;                                                                              \
    unsigned shift;                                                                           \
    TENSORPLAY_CUDA_HD_ DivMod<unsigned> divmod(unsigned n) const {                           \
      const unsigned t = static_cast<unsigned>((static_cast<unsigned long long>(n) * m1) >> 32); \
      const unsigned q = (t + n) >> shift;                                                    \
      return DivMod<unsigned>{q, n - q * divisor};                                            \
    }                                                                                         \
  };                                                                                          \
                                                                                              \
  template <int N, class Index>                                                               \
  struct Offsets {                                                                            \
    Index v[N];                                                                               \
  };                                                                                          \
                                                                                              \
  /* sizes[d] and strides[d][k] (bytes) of iteration dimension d, dimension 0 the fastest,    \
     for operands k = 0..N-1 (outputs first, as in a TensorIterator). */                      \
  template <int N, class Index>                                                               \
  struct OffsetCalculator {                                                                   \
    int dims;                                                                                 \
    IntDivider<Index> sizes[kMaxDims];                                                        \
    Index strides[kMaxDims][N];                                                               \
                                                                                              \
    /* The outermost dimension takes the quotient left after the others without a division:  \
       a coalesced contiguous operation (one dimension) costs one multiply per operand. */    \
    TENSORPLAY_CUDA_HD_ Offsets<N, Index> get(Index linear) const {                           \
      Offsets<N, Index> out;                                                                  \
      for (int k = 0; k < N; ++k) out.v[k] = 0;                                               \
      for (int d = 0; d + 1 < dims; ++d) {                                                    \
        const DivMod<Index> dm = sizes[d].divmod(linear);                                     \
        linear = dm.div;                                                                      \
        for (int k = 0; k < N; ++k) out.v[k] += dm.mod * strides[d][k];                       \
      }                                                                                       \
      if (dims > 0) {                                                                         \
        for (int k = 0; k < N; ++k) out.v[k] += linear * strides[dims - 1][k];                \
      }                                                                                       \
      return out;                                                                             \
    }                                                                                         \
  };                                                                                          \
  )
// clang-format on

namespace tensorplay::cuda {

TENSORPLAY_CUDA_INDEXING_CODE_(TENSORPLAY_CUDA_EXPAND_)

// The elementwise kernels' launch shape, PyTorch's (aten/src/ATen/native/cuda/Loops.cuh): 128
// threads a block, each doing 4 elements a block-width apart (coalesced loads, some work per
// thread to hide latency). The kernel source is generated with the same numbers.
inline constexpr unsigned kPointwiseBlockSize = 128;
inline constexpr unsigned kPointwiseElementsPerThread = 4;
// CUDA's limit on gridDim.x.
inline constexpr unsigned long long kMaxGridX = 2147483647ull;

namespace detail {

// The 32-bit divider's magic numbers (PyTorch's IntDivider<unsigned int> constructor).
// A zero size (an empty iteration space, where no element is ever asked for) gets divisor 0
// and no magic.
inline IntDivider<unsigned> make_int_divider_u32(int64_t d) {
  TP_CHECK(d >= 0 && d <= std::numeric_limits<int32_t>::max(),
           "cuda: a 32-bit index divider needs a size below 2^31, got ", d);
  IntDivider<unsigned> r{static_cast<unsigned>(d), 0, 0};
  if (d == 0) return r;
  while (r.shift < 32 && (uint64_t{1} << r.shift) < static_cast<uint64_t>(d)) ++r.shift;
  const uint64_t magic =
      ((uint64_t{1} << 32) * ((uint64_t{1} << r.shift) - uint64_t(d))) / uint64_t(d) + 1;
  r.m1 = static_cast<unsigned>(magic);
  TP_CHECK(r.m1 == magic, "cuda: no 32-bit magic number for divisor ", d);
  return r;
}

template <class Index>
IntDivider<Index> make_int_divider(int64_t d) {
  if constexpr (std::is_same_v<Index, unsigned>) {
    return make_int_divider_u32(d);
  } else {
    static_assert(std::is_same_v<Index, unsigned long long>, "index type: unsigned or 64-bit");
    return IntDivider<Index>{static_cast<Index>(d)};
  }
}

// 1 + the furthest byte offset an operand reaches, or -1 when that overflows int64.
inline int64_t max_offset_plus_one(IntArrayRef sizes, IntArrayRef strides) {
  int64_t r = 1;
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    int64_t step = 0;
    if (::tensorplay::detail::mul_overflows(sizes[d] - 1, strides[d], &step) ||
        ::tensorplay::detail::add_overflows(r, step, &r)) {
      return -1;
    }
  }
  return r;
}

inline int64_t numel_of(IntArrayRef sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) {
    if (::tensorplay::detail::mul_overflows(n, s, &n)) return -1;
  }
  return n;
}

// The argument checks every builder shares; returns numel.
inline int64_t check_index_space(IntArrayRef sizes, ArrayRef<IntArrayRef> strides) {
  TP_CHECK(sizes.size() <= std::size_t(kMaxDims), "tensor has too many (>", kMaxDims, ") dims");
  for (int64_t s : sizes) TP_CHECK(s >= 0, "cuda: negative size ", s, " in an index space");
  for (std::size_t k = 0; k < strides.size(); ++k) {
    TP_CHECK(strides[k].size() == sizes.size(), "cuda: operand ", k, " has ", strides[k].size(),
             " strides for ", sizes.size(), " dimensions");
    for (int64_t st : strides[k]) {
      TP_CHECK(st >= 0, "cuda: operand ", k, " has the negative stride ", st,
               "; the kernels address with unsigned offsets");
    }
  }
  const int64_t numel = numel_of(sizes);
  TP_CHECK(numel >= 0, "cuda: the number of elements overflows int64");
  if (numel > 0) {
    for (std::size_t k = 0; k < strides.size(); ++k) {
      TP_CHECK(max_offset_plus_one(sizes, strides[k]) >= 0, "cuda: operand ", k,
               "'s byte offsets overflow int64");
    }
  }
  return numel;
}

}  // namespace detail

// PyTorch's TensorIteratorBase::can_use_32bit_indexing: the element count and each operand's
// furthest byte (plus one) fit in int32. `strides` holds each operand's byte strides, one per
// size. An empty space always fits.
inline bool can_use_32bit_indexing(IntArrayRef sizes, ArrayRef<IntArrayRef> strides) {
  constexpr int64_t kMax = std::numeric_limits<int32_t>::max();
  const int64_t numel = detail::check_index_space(sizes, strides);
  if (numel == 0) return true;
  if (numel > kMax) return false;
  for (IntArrayRef st : strides) {
    if (detail::max_offset_plus_one(sizes, st) > kMax) return false;
  }
  return true;
}

namespace detail {
// A TensorIterator's per-operand byte strides, as can_use_32bit_indexing takes them.
template <class = void>
std::vector<std::vector<int64_t>> iterator_strides(const TensorIterator& iter) {
  std::vector<std::vector<int64_t>> out(std::size_t(iter.ntensors()));
  for (int k = 0; k < iter.ntensors(); ++k) {
    for (int d = 0; d < iter.ndim(); ++d) out[std::size_t(k)].push_back(iter.stride(k, d));
  }
  return out;
}
inline std::vector<IntArrayRef> as_refs(const std::vector<std::vector<int64_t>>& v) {
  return std::vector<IntArrayRef>(v.begin(), v.end());
}
}  // namespace detail

template <class = void>
bool can_use_32bit_indexing(const TensorIterator& iter) {
  const auto strides = detail::iterator_strides(iter);
  return can_use_32bit_indexing(iter.shape(), detail::as_refs(strides));
}

// The calculator for an iteration space of `sizes` (dimension 0 fastest) whose N operands step
// by strides[k] bytes. Index is unsigned (32-bit: the space must pass can_use_32bit_indexing) or
// unsigned long long.
template <int N, class Index>
OffsetCalculator<N, Index> make_offset_calculator(IntArrayRef sizes,
                                                  const std::array<IntArrayRef, N>& strides) {
  static_assert(N >= 1, "an offset calculator needs an operand");
  const ArrayRef<IntArrayRef> all(strides.data(), strides.size());
  detail::check_index_space(sizes, all);
  if constexpr (std::is_same_v<Index, unsigned>) {
    TP_CHECK(can_use_32bit_indexing(sizes, all),
             "cuda: this iteration space needs 64-bit indexing (can_use_32bit_indexing is false)");
  }
  OffsetCalculator<N, Index> calc{};
  calc.dims = static_cast<int>(sizes.size());
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    calc.sizes[d] = detail::make_int_divider<Index>(sizes[d]);
    for (std::size_t k = 0; k < std::size_t(N); ++k) {
      calc.strides[d][k] = static_cast<Index>(strides[k][d]);
    }
  }
  return calc;
}

// The calculator of a TensorIterator's (reordered, coalesced) iteration space; the iterator has
// exactly N operands.
template <int N, class Index>
OffsetCalculator<N, Index> make_offset_calculator(const TensorIterator& iter) {
  TP_CHECK(iter.ntensors() == N, "cuda: an offset calculator for ", N,
           " operands over an iterator with ", iter.ntensors());
  const auto strides = detail::iterator_strides(iter);
  std::array<IntArrayRef, N> refs;
  for (std::size_t k = 0; k < std::size_t(N); ++k) refs[k] = strides[k];
  return make_offset_calculator<N, Index>(iter.shape(), refs);
}

// How an elementwise kernel over `numel` elements is launched: `grid` blocks of `block`
// threads, each thread doing up to `elements_per_thread` elements; `index32` selects the
// kernel compiled for 32-bit offsets. grid is 0 for an empty space: nothing to launch.
struct LaunchShape {
  unsigned block = kPointwiseBlockSize;
  unsigned elements_per_thread = kPointwiseElementsPerThread;
  unsigned long long grid = 0;
  bool index32 = true;
};

inline LaunchShape pointwise_launch_shape(int64_t numel, bool index32) {
  TP_CHECK(numel >= 0, "cuda: a launch over ", numel, " elements");
  TP_CHECK(!index32 || numel <= std::numeric_limits<int32_t>::max(), "cuda: ", numel,
           " elements need 64-bit indexing");
  LaunchShape shape;
  shape.index32 = index32;
  const auto work = static_cast<unsigned long long>(shape.block) * shape.elements_per_thread;
  shape.grid = (static_cast<unsigned long long>(numel) + work - 1) / work;
  TP_CHECK(shape.grid <= kMaxGridX, "cuda: ", numel, " elements need ", shape.grid,
           " blocks, more than a grid holds (", kMaxGridX, ")");
  return shape;
}

template <class = void>
LaunchShape pointwise_launch_shape(const TensorIterator& iter) {
  return pointwise_launch_shape(iter.numel(), can_use_32bit_indexing(iter));
}

namespace detail {

// One member's size and alignment, for append_layout_check.
struct MemberLayout {
  const char* name;
  std::size_t size, align;
};
template <class T, class M>
constexpr MemberLayout member_layout(const char* name, M T::*) noexcept {
  return {name, sizeof(M), alignof(M)};
}

// Appends to kernel source a static_assert that NVRTC lays `type` out as this compiler does:
// the same size and alignment, for it and for each of its members (in declaration order, which
// then fixes every member's offset: both sides place a member at the next multiple of its
// alignment). NVRTC has no offsetof to compare offsets directly.
template <class T>
void append_layout_check(std::string& s, const std::string& type,
                         std::initializer_list<MemberLayout> members) {
  s += "static_assert(sizeof(" + type + ") == " + std::to_string(sizeof(T)) + " && alignof(" +
       type + ") == " + std::to_string(alignof(T));
  for (const MemberLayout& m : members) {
    const std::string member = type + "::" + m.name;
    s += " && sizeof(" + member + ") == " + std::to_string(m.size) + " && alignof(decltype(" +
         member + ")) == " + std::to_string(m.align);
  }
  s += ", \"host and device layouts of " + type + " differ\");\n";
}

template <int N, class Index>
void append_calculator_layout_check(std::string& s, const char* index) {
  using C = OffsetCalculator<N, Index>;
  append_layout_check<C>(s, "OffsetCalculator<" + std::to_string(N) + ", " + index + ">",
                         {member_layout("dims", &C::dims), member_layout("sizes", &C::sizes),
                          member_layout("strides", &C::strides)});
}

}  // namespace detail

// The definitions above as kernel source (in namespace tp), followed by the layout checks of
// every calculator a kernel may take (1 to 4 operands, both index widths).
inline std::string indexing_device_source() {
  std::string s = "namespace tp {\n";
  s += TENSORPLAY_CUDA_INDEXING_CODE_(TENSORPLAY_CUDA_STRINGIFY_);
  s += "\n";
  detail::append_calculator_layout_check<1, unsigned>(s, "unsigned");
  detail::append_calculator_layout_check<2, unsigned>(s, "unsigned");
  detail::append_calculator_layout_check<3, unsigned>(s, "unsigned");
  detail::append_calculator_layout_check<4, unsigned>(s, "unsigned");
  detail::append_calculator_layout_check<1, unsigned long long>(s, "unsigned long long");
  detail::append_calculator_layout_check<2, unsigned long long>(s, "unsigned long long");
  detail::append_calculator_layout_check<3, unsigned long long>(s, "unsigned long long");
  detail::append_calculator_layout_check<4, unsigned long long>(s, "unsigned long long");
  s += "}  // namespace tp\n";
  return s;
}

}  // namespace tensorplay::cuda
