// Reduction machinery: how sum, mean, prod, amax, var, norm, all, logsumexp... (ops/reduce_ops.hpp)
// walk their input, and how the ops along one dimension (max(dim), argmax, cumsum, softmax) walk
// their lines. The ops themselves are thin: a dtype rule, an accumulator (an Op below) and a
// finishing step.
//
// A reduction is a TensorIterator with one output whose strides are zero along the reduced
// dimensions (PyTorch's review_reduce_result): the keepdim-shaped accumulator is restrided to the
// input's sizes, so the engine sees an ordinary two-operand iteration in which many input
// elements land on one output element. The engine orders dimensions by the input's memory order
// (the output abstains where its stride is 0), so a block handed to the inner loop has one of
// three shapes, decided by the output's byte strides along iteration dimensions 0 and 1:
//   - output stride 0 along dimension 0: each row reduces to one output element. The row goes
//     through cascade_reduce: 128 bytes of independent lane accumulators (4 AVX registers, no
//     loop-carried dependency on one scalar, so the loop runs at memory speed), folded into
//     coarser levels every 16 steps, so no float accumulator ever takes more than ~16 additions
//     of like-sized terms (summing 10^7 floats keeps ~1e-7 relative error, 10^7 ones exactly);
//   - output stride != 0 along dimension 0, 0 along dimension 1: rows are accumulated into a
//     tile of outputs, vectorised across outputs, with the same 16-row cascade per output;
//   - neither: an elementwise update out = combine(out, x).
// Rows of partials (several rows onto one output) are combined pairwise (RowCascade). Strided
// data is gathered into small contiguous pieces and runs the same vectorised code.
// Every accumulation is in the accumulator type A (double for double, float for float, int64
// for integers; Half, BFloat16 and the narrow integers are widened first, see compute_dtype)
// into a buffer of dtype A; the result dtype gets it once, through the finishing step and one
// conversion.
//
// Threads. With one output element (a full reduction) the linear iteration range is cut by
// parallel_for and each chunk's partial kept in its own slot; the partials are combined in chunk
// order: deterministic for a fixed thread count. Otherwise the iteration is split along a kept
// (non-reduced) dimension, each chunk a narrowed copy of the iterator: no two threads share an
// output element, and each output's sequence of operations does not depend on the split, so the
// result is bit-identical for any thread count.
//
// Compile time: every kernel here is instantiated for int64, float and double only (bool for
// all/any), and the thread driver is type-erased (FunctionRef), because this header is part of
// the umbrella and is compiled by every translation unit.
//
// CPU levels: the block kernel (reduce_block) and the line kernels (for_each_line_dispatched)
// are compiled once per level of the run-time CPU dispatch (ops/cpu_capability.hpp) and the
// level's variant picked once per call. The order of operations is fixed by the code above, not
// by the vector width, so every level gives the same sums; only a fused multiply-add (var's
// squared deviations, exp) can move the last bit.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/empty.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/function_ref.hpp>
#include <tensorplay/core/half.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/core/wrap_dim.hpp>
#include <tensorplay/ops/copy.hpp>
#include <tensorplay/ops/cpu_capability.hpp>
#include <tensorplay/ops/device_dispatch.hpp>
#include <tensorplay/ops/parallel.hpp>
#include <tensorplay/ops/resize.hpp>
#include <tensorplay/ops/tensor_iterator.hpp>
#include <tensorplay/ops/vec_math.hpp>

namespace tensorplay {
namespace detail::reduce_impl {

// A dimension list or nothing (= every dimension), for the internal entry points. The public
// ops take IntArrayRef, an empty list meaning every dimension as in PyTorch 1.13: libtorch's
// OptionalIntArrayRef is not in core yet, and a plain std::optional<IntArrayRef> in the public
// signatures could not be built from `{0, 1}`, and from an `int` would point at a temporary that
// dies inside the optional's constructor.
using OptionalIntArrayRef = std::optional<IntArrayRef>;

// ---- dimension lists ------------------------------------------------------------------------

// A set of dimensions, one bit each (PyTorch's DimMask; it too stops at 64 dimensions).
using DimMask = uint64_t;

template <class = void>
bool mask_has(DimMask m, int64_t d) {
  return d < 64 && ((m >> d) & 1) != 0;
}

template <class = void>
DimMask dim_list_to_mask(IntArrayRef dims, int64_t ndim) {
  TP_CHECK(ndim <= 64, "only tensors with up to 64 dims are supported");
  DimMask mask = 0;
  for (int64_t d : dims) {
    const int64_t w = maybe_wrap_dim(d, ndim);
    TP_CHECK(!mask_has(mask, w), "dim ", w, " appears multiple times in the list of dims");
    mask |= DimMask{1} << w;
  }
  return mask;
}

// No list, or an empty one, reduces every dimension (PyTorch 1.13's make_dim_mask).
template <class = void>
DimMask make_dim_mask(OptionalIntArrayRef dims, int64_t ndim) {
  if (!dims.has_value() || dims->empty()) {
    TP_CHECK(ndim <= 64, "only tensors with up to 64 dims are supported");
    return ndim == 64 ? ~DimMask{0} : (DimMask{1} << ndim) - 1;
  }
  return dim_list_to_mask(*dims, ndim);
}

// The result's shape: reduced dimensions become 1 (keepdim) or disappear.
template <class = void>
std::vector<int64_t> reduced_shape(IntArrayRef sizes, DimMask mask, bool keepdim) {
  std::vector<int64_t> shape;
  for (int64_t d = 0; d < int64_t(sizes.size()); ++d) {
    if (!mask_has(mask, d)) {
      shape.push_back(sizes[d]);
    } else if (keepdim) {
      shape.push_back(1);
    }
  }
  return shape;
}

// How many input elements fold into each output element.
template <class = void>
int64_t reduced_count(IntArrayRef sizes, DimMask mask) {
  int64_t n = 1;
  for (int64_t d = 0; d < int64_t(sizes.size()); ++d)
    if (mask_has(mask, d)) n *= sizes[d];
  return n;
}

// `result` (the reduced shape, keepdim or not) seen with the input's sizes and stride 0 along
// every reduced dimension: what the iterator's output operand is. An internal view: it shares
// the storage, not the version counter (the op bumps the caller's tensor itself).
template <class = void>
Tensor reduction_view(const Tensor& result, IntArrayRef sizes, DimMask mask, bool keepdim) {
  std::vector<int64_t> strides(sizes.size());
  int64_t k = 0;
  for (int64_t d = 0; d < int64_t(sizes.size()); ++d) {
    if (mask_has(mask, d)) {
      strides[d] = 0;
      if (keepdim) ++k;
    } else {
      strides[d] = result.stride(k++);
    }
  }
  return make_tensor(result.storage(), result.dtype(), sizes, strides, result.storage_offset());
}

// `result` (the reduced shape) with its reduced dimensions put back as size-1 dimensions.
template <class = void>
Tensor keepdim_view(const Tensor& result, IntArrayRef sizes, DimMask mask, bool keepdim) {
  if (keepdim) return result;
  std::vector<int64_t> shape, strides;
  int64_t k = 0;
  for (int64_t d = 0; d < int64_t(sizes.size()); ++d) {
    if (mask_has(mask, d)) {
      shape.push_back(1);
      strides.push_back(1);
    } else {
      shape.push_back(result.size(k));
      strides.push_back(result.stride(k++));
    }
  }
  return make_tensor(result.storage(), result.dtype(), shape, strides, result.storage_offset());
}

template <class = void>
void check_defined(const Tensor& t, const char* op) {
  TP_CHECK(t.defined(), op, "(): the tensor is undefined");
}

// The result tensor of a reduction: `out` resized to the reduced shape, or a new tensor.
// (On self's device; an out= elsewhere is refused, PyTorch's message.)
template <class = void>
Tensor reduction_result(const Tensor& out, const Tensor& self, DimMask mask, bool keepdim,
                        DType dtype) {
  if (!backend_compiled_in(self.device().type())) detail::throw_no_device_loop(self.device());
  const std::vector<int64_t> shape = reduced_shape(self.sizes(), mask, keepdim);
  if (out.defined()) {
    // The write funnel: read-only storages, inference tensors (out='s own grad rule is
    // check_out_no_grad's).
    autograd::detail::check_inplace(out.unsafeGetTensorImpl(), /*records=*/false);
    TP_CHECK(out.device() == self.device(),
             "Expected all tensors to be on the same device, but found at least two devices, ",
             self.device(), " and ", out.device(), "!");
    resize_output(out, shape);
    return out;
  }
  return empty(shape, TensorOptions().dtype(dtype).device(self.device()));
}

// The kernel step of a reduction of a tensor off the CPU: the device's ReduceOp kernel
// (ops/device_dispatch.hpp) writes `result` (the reduced shape) from self.
template <class = void>
void reduce_on_device(const Tensor& result, const Tensor& self, DimMask mask, bool keepdim,
                      ReduceCode code, std::string_view name) {
  if (result.numel() == 0) return;
  call_device_kernel_as<ReduceOp>(self.device().type(), name,
                                  keepdim_view(result, self.sizes(), mask, keepdim), self,
                                  std::uint64_t{mask}, code);
}

// out= results are modified in place: one version bump, as every in-place op.
template <class = void>
void bump_out(const Tensor& out) {
  if (out.defined()) out.unsafeGetTensorImpl()->bump_version();
}

// ---- compute dtypes --------------------------------------------------------------------------

// Kernels are instantiated for three element types only: int64, float and double. Every other
// dtype is converted to one of them first and the result converted back, which changes no value:
// Half and BFloat16 compute in float anyway and widen exactly, integers and bool widen exactly
// to int64 (and sums, products and scans of integers accumulate in int64 anyway). It costs a
// copy of the input; it saves instantiating every kernel ten times in every translation unit
// that includes the umbrella header.
template <class T>
inline constexpr bool kComputeType =
    std::is_same_v<T, int64_t> || std::is_same_v<T, float> || std::is_same_v<T, double>;
template <class T>
inline constexpr bool kFloatType = std::is_same_v<T, float> || std::is_same_v<T, double>;

// float for Half/BFloat16/float, double for double.
template <class = void>
DType float_compute_dtype(DType t) {
  return t == kDouble ? kDouble : kFloat;
}
// ...and int64 for integers and bool.
template <class = void>
DType compute_dtype(DType t) {
  return is_floating_point(t) ? float_compute_dtype(t) : kLong;
}

// PyTorch converts the input to the output dtype first (so sum(x, dtype=kInt) truncates each
// element), then we widen to the dtype the kernel runs in.
template <class = void>
Tensor to_compute(const Tensor& self, DType out_dtype, DType compute) {
  Tensor src = self;
  if (src.dtype() != out_dtype) src = src.to(out_dtype);
  if (src.dtype() != compute) src = src.to(compute);
  return src;
}

// ---- accumulators ---------------------------------------------------------------------------

template <class A>
inline bool nan_of(A x) {
  if constexpr (std::is_floating_point_v<A>) {
    return x != x;
  } else {
    (void)x;
    return false;
  }
}

// An integer as the unsigned type its arithmetic wraps in (never promoted to a signed int):
// integer sums and products overflow modulo 2^n, as PyTorch's do, not into undefined behaviour.
template <class A>
constexpr auto wrapping(A x) noexcept {
  using U = std::conditional_t<(sizeof(A) < sizeof(unsigned)), unsigned, std::make_unsigned_t<A>>;
  return static_cast<U>(x);
}

// The ops: identity(), combine(a, b) (associative; evaluation order is fixed by the kernel, so
// results are reproducible) and map(x, aux) from the input's compute type to A. kAux: map reads a
// per-output value (the mean for var, the row maximum for logsumexp).
template <class A>
struct SumOp {
  static constexpr bool kAux = false;
  A identity() const { return A(0); }
  A combine(A a, A b) const {
    if constexpr (std::is_integral_v<A>) {
      return static_cast<A>(wrapping<A>(a) + wrapping<A>(b));  // wraps, as the CPU's add
    } else {
      return a + b;
    }
  }
  template <class M>
  A map(M x, A) const {
    return A(x);
  }
};

template <class A>
struct ProdOp {
  static constexpr bool kAux = false;
  A identity() const { return A(1); }
  A combine(A a, A b) const {
    if constexpr (std::is_integral_v<A>) {
      return static_cast<A>(wrapping<A>(a) * wrapping<A>(b));  // wraps, as the CPU's mul
    } else {
      return a * b;
    }
  }
  template <class M>
  A map(M x, A) const {
    return A(x);
  }
};

// max/min that propagate NaN whichever side it is on.
template <class A, bool kMax>
struct MinMaxOp {
  static constexpr bool kAux = false;
  A identity() const {
    if constexpr (std::is_floating_point_v<A>) {
      return kMax ? -std::numeric_limits<A>::infinity() : std::numeric_limits<A>::infinity();
    } else {
      return kMax ? std::numeric_limits<A>::lowest() : std::numeric_limits<A>::max();
    }
  }
  A combine(A a, A b) const {
    if constexpr (kMax) {
      return (b > a || nan_of(b)) ? b : a;
    } else {
      return (b < a || nan_of(b)) ? b : a;
    }
  }
  template <class M>
  A map(M x, A) const {
    return A(x);
  }
};

// all / any over bool inputs.
template <bool kAll>
struct LogicOp {
  static constexpr bool kAux = false;
  bool identity() const { return kAll; }
  bool combine(bool a, bool b) const { return kAll ? (a && b) : (a || b); }
  bool map(bool x, bool) const { return x; }
};

// exp for the kernels: float through vec_math's exp_f32 (within 1 ulp, and it vectorises, where
// a call to expf per element does not), double through std::exp.
template <class T>
inline T reduce_exp(T x) {
  if constexpr (std::is_same_v<T, float>) {
    return exp_f32(x);
  } else {
    return std::exp(x);
  }
}

// sum(exp(x - shift)): logsumexp, and the denominator of softmax.
template <class A>
struct ExpShiftSumOp {
  static constexpr bool kAux = true;
  static constexpr bool kMapFirst = true;
  A identity() const { return A(0); }
  A combine(A a, A b) const { return a + b; }
  A map(A x, A shift) const { return reduce_exp(x - shift); }
};

// ---- the cascade ----------------------------------------------------------------------------

// Independent accumulators per row: 128 bytes of them, four AVX registers.
template <class A>
inline constexpr int kReduceLanes = sizeof(A) >= 32 ? 4 : int(128 / sizeof(A));
// Each accumulator takes kFold terms before it is folded into the next level up.
inline constexpr int64_t kFold = 16;
inline constexpr int kUpLevels = 4;

// Folds acc[0..w) into level 0 of `up`, and a level into the next every kFold folds (a base-16
// counter over `folds`): the pairwise-summation error bound with 16-way leaves.
template <class A, class Op, int W>
inline void cascade_fold(A (&up)[kUpLevels][W], const A* acc, int w, int64_t folds, const Op& op) {
  for (int j = 0; j < w; ++j) up[0][j] = op.combine(up[0][j], acc[j]);
  const A id = op.identity();
  int64_t period = kFold;
  for (int lv = 0; lv + 1 < kUpLevels && folds % period == 0; ++lv, period *= kFold) {
    for (int j = 0; j < w; ++j) {
      up[lv + 1][j] = op.combine(up[lv + 1][j], up[lv][j]);
      up[lv][j] = id;
    }
  }
}

// Elements of T at a byte stride, handed out as contiguous pieces: pointers into the tensor when
// the stride is the element size, copies gathered into `buf` otherwise. Strided data thus runs
// the same (vectorised, cascaded) code as contiguous data, with the same order of operations,
// and each kernel is instantiated once rather than once per layout.
template <class T>
struct Strided {
  const char* p;
  int64_t stride;
  const T* get(int64_t i0, int64_t len, T* buf) const {
    if (stride == int64_t(sizeof(T))) return reinterpret_cast<const T*>(p) + i0;
    for (int64_t k = 0; k < len; ++k) buf[k] = *reinterpret_cast<const T*>(p + (i0 + k) * stride);
    return buf;
  }
};

// Whether an op's map is costly enough (exp) that it should run as its own plain loop, which the
// compiler vectorises, before the lane accumulation, which it vectorises only for simple maps.
template <class Op>
inline constexpr bool kMapFirst = requires {
  Op::kMapFirst;
};

// Reduces the n elements of `row`, each mapped with op.map(x, aux): lanes of independent
// accumulators, cascaded (see the file comment). The order of operations depends on n only.
template <class T, class A, class Op>
inline A cascade_reduce(Strided<T> row, int64_t n, const Op& op, A aux) {
  constexpr int L = kReduceLanes<A>;
  constexpr int64_t kBlock = L * kFold;
  const A id = op.identity();
  T buf[kBlock];
  [[maybe_unused]] A mapped[kMapFirst<Op> ? kBlock : 1];
  // Elements [i0, i0 + len) of the row, mapped: the returned f(t) is element i0 + t.
  auto piece = [&](int64_t i0, int64_t len) {
    const T* q = row.get(i0, len, buf);
    if constexpr (kMapFirst<Op>) {
      for (int64_t t = 0; t < len; ++t) mapped[t] = op.map(q[t], aux);
      return [&mapped](int64_t t) { return mapped[t]; };
    } else {
      return [q, &op, aux](int64_t t) { return op.map(q[t], aux); };
    }
  };
  if (n < L) {
    const auto v = piece(0, n);
    A r = id;
    for (int64_t i = 0; i < n; ++i) r = op.combine(r, v(i));
    return r;
  }
  // `up` is set (below) exactly when a full block exists and read only then (folds > 0); GCC's
  // -O3 passes, which the dispatch variants run, cannot see that and warn. Setting it on every
  // call instead would cost 128 bytes of stores per row (per output, for a short-row sum).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
  A up[kUpLevels][L];
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif
  int64_t i = 0, folds = 0;
  if (n >= kBlock) {
    for (auto& level : up)
      for (A& a : level) a = id;
    for (; i + kBlock <= n; i += kBlock) {
      const auto v = piece(i, kBlock);
      A acc[L];
      for (int j = 0; j < L; ++j) acc[j] = v(j);
      for (int64_t k = L; k < kBlock; k += L)
        for (int j = 0; j < L; ++j) acc[j] = op.combine(acc[j], v(k + j));
      cascade_fold(up, acc, L, ++folds, op);
    }
  }
  const int64_t tail = n - i;
  const auto v = piece(i, tail);
  A acc[L];
  for (int j = 0; j < L; ++j) acc[j] = id;
  int64_t k = 0;
  for (; k + L <= tail; k += L)
    for (int j = 0; j < L; ++j) acc[j] = op.combine(acc[j], v(k + j));
  A rest = id;
  for (; k < tail; ++k) rest = op.combine(rest, v(k));
  if (folds > 0) {
    for (int lv = 0; lv < kUpLevels; ++lv)
      for (int j = 0; j < L; ++j) acc[j] = op.combine(acc[j], up[lv][j]);
  }
  for (int w = L / 2; w >= 1; w /= 2)
    for (int j = 0; j < w; ++j) acc[j] = op.combine(acc[j], acc[j + w]);
  return op.combine(acc[0], rest);
}

// Reduces m1 rows of m0 columns column-wise (row r, column i at in + r * row_stride + i *
// col_stride) and combines each column's result into its output (out + i * out_stride). Tiles
// of outputs, vectorised across them; per output the same 16-row cascade as cascade_reduce, so
// each output's sequence of operations depends on m1 only, not on the tile it sits in.
template <class T, class A, class Op>
inline void cascade_columns(const char* in, int64_t col_stride, int64_t row_stride, int64_t m0,
                            int64_t m1, char* out, int64_t out_stride, const char* aux,
                            int64_t aux_stride, const Op& op) {
  constexpr int W = 2 * kReduceLanes<A>;
  const A id = op.identity();
  T buf[W];
  A auxv[W];
  for (int64_t c = 0; c < m0; c += W) {
    const int w = int(std::min<int64_t>(W, m0 - c));
    for (int i = 0; i < w; ++i) {
      if constexpr (Op::kAux) {
        auxv[i] = *reinterpret_cast<const A*>(aux + (c + i) * aux_stride);
      } else {
        (void)aux, (void)aux_stride;
        auxv[i] = A{};
      }
    }
    auto row = [&](int64_t r) {
      return Strided<T>{in + r * row_stride, col_stride}.get(c, w, buf);
    };
    A up[kUpLevels][W];  // set unconditionally, as in cascade_reduce
    for (auto& level : up)
      for (A& a : level) a = id;
    A acc[W];
    int64_t r = 0, folds = 0;
    if (m1 >= kFold) {
      for (; r + kFold <= m1; r += kFold) {
        const T* q = row(r);
        for (int i = 0; i < w; ++i) acc[i] = op.map(q[i], auxv[i]);
        for (int64_t k = 1; k < kFold; ++k) {
          q = row(r + k);
          for (int i = 0; i < w; ++i) acc[i] = op.combine(acc[i], op.map(q[i], auxv[i]));
        }
        cascade_fold(up, acc, w, ++folds, op);
      }
    }
    for (int i = 0; i < w; ++i) acc[i] = id;
    for (; r < m1; ++r) {
      const T* q = row(r);
      for (int i = 0; i < w; ++i) acc[i] = op.combine(acc[i], op.map(q[i], auxv[i]));
    }
    if (folds > 0) {
      for (int lv = 0; lv < kUpLevels; ++lv)
        for (int i = 0; i < w; ++i) acc[i] = op.combine(acc[i], up[lv][i]);
    }
    for (int i = 0; i < w; ++i) {
      A* o = reinterpret_cast<A*>(out + (c + i) * out_stride);
      *o = op.combine(*o, acc[i]);
    }
  }
}

// A stream of partials (one per row) combined pairwise, as a binary counter: stack_[k] holds the
// combination of 2^k consecutive partials. Used where rows, not elements, accumulate.
template <class A, class Op>
class RowCascade {
 public:
  explicit RowCascade(const Op& op) : op_(op) {}
  void add(A v) {
    int k = 0;
    for (uint64_t c = count_++; (c & 1) != 0; c >>= 1, ++k) v = op_.combine(stack_[k], v);
    stack_[k] = v;
  }
  A result() const {
    A r = op_.identity();
    for (int k = 63; k >= 0; --k)
      if (((count_ >> k) & 1) != 0) r = op_.combine(r, stack_[k]);
    return r;
  }

 private:
  const Op& op_;
  A stack_[64];
  uint64_t count_ = 0;
};

// Operands: 0 the accumulator view (A), 1 the input (T), 2 the aux view (A) when Op::kAux.
// `s`: the engine's 2-d strides, s[k] along dimension 0 and s[nt + k] along dimension 1.
// `sink`: a full reduction's running partial (every element goes there), else null.
template <class T, class A, class Op>
inline void reduce_block(char** data, const int64_t* s, int64_t m0, int64_t m1, const Op& op,
                         RowCascade<A, Op>* sink) {
  constexpr int nt = Op::kAux ? 3 : 2;
  auto aux_at = [&](int64_t i, int64_t j) -> A {
    if constexpr (Op::kAux) {
      return *reinterpret_cast<const A*>(data[2] + i * s[2] + j * s[nt + 2]);
    } else {
      (void)i, (void)j;
      return A{};
    }
  };
  auto row = [&](int64_t j) {
    return cascade_reduce<T, A>(Strided<T>{data[1] + j * s[nt + 1], s[1]}, m0, op, aux_at(0, j));
  };
  if (sink != nullptr) {  // a full reduction: one output element, whatever the strides say
    for (int64_t j = 0; j < m1; ++j) sink->add(row(j));
    return;
  }
  if (s[0] == 0) {  // each row of dimension 0 reduces to one output element
    if (s[nt] == 0) {
      RowCascade<A, Op> rows(op);
      for (int64_t j = 0; j < m1; ++j) rows.add(row(j));
      A* o = reinterpret_cast<A*>(data[0]);
      *o = op.combine(*o, rows.result());
    } else {
      for (int64_t j = 0; j < m1; ++j) {
        A* o = reinterpret_cast<A*>(data[0] + j * s[nt]);
        *o = op.combine(*o, row(j));
      }
    }
    return;
  }
  if (s[nt] == 0 && m1 > 1) {  // rows accumulate into one row of outputs
    cascade_columns<T, A>(data[1], s[1], s[nt + 1], m0, m1, data[0], s[0],
                          Op::kAux ? data[2] : nullptr, Op::kAux ? s[2] : 0, op);
    return;
  }
  for (int64_t j = 0; j < m1; ++j) {  // no reduction inside the block
    for (int64_t i = 0; i < m0; ++i) {
      A* o = reinterpret_cast<A*>(data[0] + i * s[0] + j * s[nt]);
      const T x = *reinterpret_cast<const T*>(data[1] + i * s[1] + j * s[nt + 1]);
      *o = op.combine(*o, op.map(x, aux_at(i, j)));
    }
  }
}

// reduce_block as a kernel of the CPU dispatch (ops/cpu_capability.hpp): compiled for each
// level, the level's variant picked once per reduction. `sink`: a RowCascade<A, Op> or null.
using ReduceBlockSig = void(char**, const int64_t*, int64_t, int64_t, const void*, void*);

template <class T, class A, class Op>
struct ReduceBlockKernel {
  static constexpr bool kFullLoopOptimization = true;  // ops/cpu_capability.hpp
  template <CpuCapability>
  static void run(char** data, const int64_t* s, int64_t m0, int64_t m1, const void* op,
                  void* sink) {
    reduce_block<T, A>(data, s, m0, m1, *static_cast<const Op*>(op),
                       static_cast<RowCascade<A, Op>*>(sink));
  }
};

// ---- the typeless driver: iterator, thread split -------------------------------------------

// The iterator of a reduction: operand 0 the accumulator seen through reduction_view, 1 the
// input, 2 the aux tensor (when defined), likewise restrided.
template <class = void>
TensorIterator make_reduction_iterator(const Tensor& acc, const Tensor& self, DimMask mask,
                                       const Tensor& aux) {
  TensorIteratorConfig config;
  config.add_output(reduction_view(acc, self.sizes(), mask, true))
      .add_input(self)
      .check_all_same_dtype(false)
      .resize_outputs(false)
      .is_reduction(true);
  if (aux.defined()) config.add_input(reduction_view(aux, self.sizes(), mask, true));
  return config.build();
}

// Full reductions keep one partial per chunk of GRAIN_SIZE-aligned slots: parallel_for's chunks
// are at least GRAIN_SIZE long, so `begin / GRAIN_SIZE` names each chunk's slot uniquely and in
// chunk order whatever the thread count (unused slots keep the identity).
template <class = void>
int64_t full_reduction_slots(int64_t numel) {
  return std::max<int64_t>(1, divup(numel, internal::GRAIN_SIZE));
}

template <class = void>
void run_full_reduction(int64_t numel, FunctionRef<void(int64_t, int64_t, int64_t)> chunk) {
  parallel_for(0, numel, internal::GRAIN_SIZE,
               [&](int64_t b, int64_t e) { chunk(b, e, b / internal::GRAIN_SIZE); });
}

// Partial reductions: split along the largest kept dimension (the outermost on ties), each
// chunk a narrowed copy of the iterator, so that every output element belongs to one thread.
template <class = void>
void run_partial_reduction(const TensorIterator& iter, loop2d_t block) {
  const int64_t numel = iter.numel();
  int split = -1;
  for (int d = 0; d < iter.ndim(); ++d) {
    if (iter.stride(0, d) != 0 && iter.shape()[d] > 1 &&
        (split < 0 || iter.shape()[d] >= iter.shape()[split])) {
      split = d;
    }
  }
  if (split < 0 || numel <= internal::GRAIN_SIZE || get_num_threads() == 1) {
    iter.serial_for_each_2d(block, 0, numel);
    return;
  }
  const int64_t extent = iter.shape()[split];
  const int64_t per_slice = numel / extent;
  parallel_for(0, extent, std::max<int64_t>(1, internal::GRAIN_SIZE / per_slice),
               [&](int64_t b, int64_t e) {
                 TensorIterator sub = iter;
                 sub.narrow(split, b, e - b);
                 sub.serial_for_each_2d(block, 0, sub.numel());
               });
}

// Reduces `self` (dtype T) over `mask` into `acc`: dtype A, contiguous, the keepdim shape,
// already holding op.identity(). `aux` (Op::kAux): dtype A, the keepdim shape.
template <class T, class A, class Op>
void reduce_kernel(const Tensor& acc, const Tensor& self, DimMask mask, const Op& op,
                   const Tensor& aux) {
  if (self.numel() == 0) return;
  const TensorIterator iter = make_reduction_iterator(acc, self, mask, aux);
  const auto block =
      cpu_dispatch<ReduceBlockKernel<T, A, Op>, ReduceBlockSig, kDispatchedReduction<T>>();
  if (acc.numel() == 1) {
    const int64_t slots = full_reduction_slots(iter.numel());
    std::unique_ptr<A[]> partial(new A[std::size_t(slots)]);
    for (int64_t k = 0; k < slots; ++k) partial[k] = op.identity();
    run_full_reduction(iter.numel(), [&](int64_t b, int64_t e, int64_t slot) {
      RowCascade<A, Op> sink(op);
      iter.serial_for_each([&](char** data, const int64_t* s, int64_t m0,
                               int64_t m1) { block(data, s, m0, m1, &op, &sink); },
                           b, e);
      partial[slot] = sink.result();
    });
    A total = partial[0];
    for (int64_t k = 1; k < slots; ++k) total = op.combine(total, partial[k]);
    A* out = static_cast<A*>(acc.data_ptr());
    *out = op.combine(*out, total);
    return;
  }
  run_partial_reduction(iter, [&](char** data, const int64_t* s, int64_t m0, int64_t m1) {
    block(data, s, m0, m1, &op, nullptr);
  });
}

struct NoFinish {};

// The whole reduction: accumulate `self` (dtype T) in A, finish each accumulated value with
// fin(acc, aux) (unless Fin is NoFinish), and write `result` (the reduced shape, any dtype)
// once. `result_is_new`: it was just allocated by the op, so when its dtype is A and there is
// nothing to finish it serves as the accumulator itself.
template <class T, class A, class Op, class Fin = NoFinish>
void reduce_into(const Tensor& result, bool result_is_new, const Tensor& self, DimMask mask,
                 bool keepdim, const Op& op, const Fin& fin = {}, const Tensor& aux = {}) {
  if (!self.is_cpu()) detail::throw_no_device_loop(self.device());  // CPU accumulation only
  if (result.numel() == 0) return;
  const std::vector<int64_t> keep = reduced_shape(self.sizes(), mask, true);
  constexpr bool kNoFinish = std::is_same_v<Fin, NoFinish>;
  const bool direct = kNoFinish && result_is_new && result.dtype() == dtype_of<A>;
  Tensor acc = direct ? make_tensor(result.storage(), result.dtype(), keep,
                                    SizesAndStrides::compute_contiguous_strides(keep),
                                    result.storage_offset())
                      : empty(keep, TensorOptions().dtype(dtype_of<A>));
  A* a = static_cast<A*>(acc.data_ptr());
  const int64_t n = acc.numel();
  std::fill_n(a, n, op.identity());
  reduce_kernel<T, A>(acc, self, mask, op, aux);
  if constexpr (!kNoFinish) {
    const A* x = aux.defined() ? static_cast<const A*>(aux.data_ptr()) : nullptr;
    for (int64_t i = 0; i < n; ++i) a[i] = fin(a[i], x != nullptr ? x[i] : A{});
  }
  if (!direct) copy_impl(keepdim_view(result, self.sizes(), mask, keepdim), acc);
}

// ---- lines: the ops along one dimension -----------------------------------------------------

// `t` without dimension `dim` (an internal view): the first element of each line.
template <class = void>
Tensor without_dim(const Tensor& t, int64_t dim) {
  std::vector<int64_t> sizes, strides;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (d == dim) continue;
    sizes.push_back(t.size(d));
    strides.push_back(t.stride(d));
  }
  return make_tensor(t.storage(), t.dtype(), sizes, strides, t.storage_offset());
}

// A 0-d tensor as a 1-d one of one element: ops along a dimension treat a scalar as a line.
template <class = void>
Tensor as_line(const Tensor& t) {
  if (t.dim() > 0) return t;
  return make_tensor(t.storage(), t.dtype(), {1}, {1}, t.storage_offset());
}

// An iterator over the lines along `dim` of same-shaped operands (outputs first, then the
// input): each of its elements is where one line starts. Kernels are 1-d loops over lines,
// `loop(data, strides, n)`, and find element r of a line at r * stride(dim) bytes.
template <class = void>
TensorIterator make_line_iterator(std::initializer_list<Tensor> outputs, const Tensor& input,
                                  int64_t dim, std::string_view op = {}) {
  if (!input.is_cpu()) {  // CPU line kernels only
    if (!op.empty()) detail::throw_no_device_kernel(op, input.device().type(), true);
    detail::throw_no_device_loop(input.device());
  }
  TensorIteratorConfig config;
  config.set_check_mem_overlap(false).check_all_same_dtype(false).resize_outputs(false);
  for (const Tensor& o : outputs) config.add_output(without_dim(o, dim));
  config.add_input(without_dim(input, dim));
  return config.build();
}

// Lines are independent: the engine's thread split, with a grain counted in elements.
template <class Loop>
void for_each_line(const TensorIterator& iter, int64_t line_length, const Loop& loop) {
  if (iter.numel() == 0 || line_length == 0) return;
  iter.for_each(loop, std::max<int64_t>(1, internal::GRAIN_SIZE / line_length));
}

// Lines processed side by side: tiles of up to this many adjacent lines, vectorised across them.
inline constexpr int64_t kLineTile = 64;

// for_each_line with a line kernel of the CPU dispatch (ops/cpu_capability.hpp):
// K::run<C>(data, strides, n, &args) does the n lines of one block; its level's variant is
// picked once per call.
using LineBlockSig = void(char**, const int64_t*, int64_t, const void*);

template <class K, bool Multi = true, class Args>
void for_each_line_dispatched(const TensorIterator& iter, int64_t line_length, const Args& args) {
  const auto block = cpu_dispatch<K, LineBlockSig, Multi>();
  for_each_line(iter, line_length, [block, &args](char** data, const int64_t* s, int64_t n) {
    block(data, s, n, &args);
  });
}

}  // namespace detail::reduce_impl
}  // namespace tensorplay

// The ops built on this machinery, included here so that one include defines every method
// declared at core/tensor.hpp's reduction marker.
#include <tensorplay/ops/reduce_ops.hpp>
#include <tensorplay/ops/softmax.hpp>
