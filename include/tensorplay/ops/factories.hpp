// Factories: tensors made from a shape and a value, a range, or nested lists, with libtorch's
// signatures and dtype rules (zeros, ones, full, arange, linspace, eye, the *_like family,
// scalar_tensor and tensor). rand/randn/randint and their *_like forms are in ops/random.hpp.
//
// Every factory allocates a fresh dense tensor (core/empty.hpp) and writes its elements with a
// plain typed loop chosen by dispatch_dtype. A fresh tensor is non-overlapping and dense, so a
// value that is the same for every element is written over data[0, numel) whatever the strides;
// values that depend on the index (arange, eye, tensor) address through the strides.
//
// Dtype rules (PyTorch 1.13): with no dtype in the options, zeros/ones/linspace/eye/scalar_tensor
// give the default float32; `full` infers it from the fill value (bool -> bool, integer -> int64,
// floating -> float32); `arange` gives int64 when start, end and step are all integral (bool
// counts as integral, as in libtorch) and float32 otherwise; `tensor` promotes over its leaves,
// each C++ int/long mapping to int64 and float/double to float32. The *_like functions take the
// input's dtype and device unless the options override them.
//
// Only CPU tensors are written here: a factory asked for another device fails with
// NotImplementedError after the allocator has been asked (so a device that is not compiled in
// still reports the macro to define).
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include <tensorplay/core/empty.hpp>
#include <tensorplay/core/scalar.hpp>
#include <tensorplay/ops/device_dispatch.hpp>
#include <tensorplay/ops/dispatch.hpp>

namespace tensorplay {
namespace detail {

// The message of PyTorch's AT_DISPATCH macros when a kernel lacks a dtype.
[[noreturn]] inline void dtype_not_implemented(const char* kernel, DType d) {
  TP_ERROR("\"", kernel, "\" not implemented for '", scalar_type_name(d), "'");
}

// Factories and fills whose values are made on the host (arange, linspace, eye, tensor(...), the
// random ones): fill(h) writes the CPU tensor h. For a tensor on another device, h is a host
// tensor of its shape and dtype, then copied over by that device's copy kernel (the one
// cross-device entry): one upload, the values bit for bit the CPU's, and the CPU generator's
// stream advances as it would for a CPU tensor (PyTorch's device generators differ from it).
template <class Fill>
void fill_on_host(const Tensor& t, Fill&& fill) {
  if (t.is_cpu()) {
    fill(t);
    return;
  }
  Tensor host = empty(t.sizes(), TensorOptions().dtype(t.dtype()));
  fill(host);
  call_device_kernel<CopyOp>(t.device().type(), t, host);
}

// Writes `value` (already converted, with Scalar's checked conversion) to every element of a
// fresh dense tensor. Storage order is fine for any dense layout: the element set is the same.
template <class T>
void fill_dense(const Tensor& t, T value) {
  T* p = static_cast<T*>(t.data_ptr());
  for (int64_t i = 0, n = t.numel(); i < n; ++i) p[i] = value;
}

// On another device: that device's fill kernel (ops/device_dispatch.hpp).
template <class = void>
const Tensor& fill_dense(const Tensor& t, const Scalar& value, const char* op) {
  if (!t.is_cpu()) {
    call_device_kernel<FillOp>(t.device().type(), t, value);
    return t;
  }
  (void)op;
  dispatch_dtype(t.dtype(), [&]<class T>() { fill_dense<T>(t, value.to<T>()); });
  return t;
}

// All-zero bits are zero (or false) in every dtype we have, so zeroing is one memset.
template <class = void>
const Tensor& zero_dense(const Tensor& t, const char* op) {
  if (!t.is_cpu()) return fill_dense(t, Scalar(0), op);
  if (t.numel() > 0) std::memset(t.data_ptr(), 0, t.nbytes());
  return t;
}

// Dense strides that keep the dimension order of a strided (possibly overlapping or gapped)
// tensor: PyTorch's infer_dense_strides, what empty_like uses under Preserve for a tensor that is
// not already non-overlapping and dense. Dimensions are ordered innermost first by stride with
// TensorIterator's rule: a stride of 0 compares as "ambiguous" (the dimension keeps its
// row-major place), equal strides put the smaller size inside; the sort is a stable insertion
// sort, so ties keep row-major order.
inline std::vector<int64_t> infer_dense_strides(IntArrayRef sizes, IntArrayRef strides) {
  const std::size_t ndim = sizes.size();
  std::vector<int64_t> out(ndim);
  if (ndim == 0) return out;
  // perm[0] is the innermost dimension; start from row-major order (last dimension inside).
  std::vector<std::size_t> perm(ndim);
  for (std::size_t i = 0; i < ndim; ++i) perm[i] = ndim - 1 - i;
  // > 0: dimension a belongs outside b; < 0: inside; 0: no opinion.
  auto compare = [&](std::size_t a, std::size_t b) -> int {
    if (strides[a] == 0 || strides[b] == 0) return 0;
    if (strides[a] != strides[b]) return strides[a] < strides[b] ? -1 : 1;
    return sizes[a] > sizes[b] ? 1 : 0;
  };
  for (std::size_t i = 1; i < ndim; ++i) {
    std::size_t cur = i;
    for (std::size_t j = i; j-- > 0;) {
      const int c = compare(perm[j], perm[cur]);
      if (c > 0) {
        std::swap(perm[j], perm[cur]);
        cur = j;
      } else if (c < 0) {
        break;
      }
    }
  }
  int64_t running = 1;
  for (std::size_t d : perm) {
    out[d] = running;
    if (sizes[d] > 1) running *= sizes[d];  // a 0 or 1 size does not widen the next stride
  }
  return out;
}

}  // namespace detail

// ---- Constant fills -------------------------------------------------------------------------

template <class = void>
Tensor zeros(IntArrayRef size, const TensorOptions& options = {}) {
  Tensor t = empty(size, options);
  detail::zero_dense(t, "zeros");
  return t;
}

template <class = void>
Tensor ones(IntArrayRef size, const TensorOptions& options = {}) {
  Tensor t = empty(size, options);
  detail::fill_dense(t, Scalar(1), "ones");
  return t;
}

// With no dtype given, the fill value decides it (PyTorch >= 1.8): bool -> bool,
// integral -> int64, floating -> the default float32.
template <class = void>
Tensor full(IntArrayRef size, const Scalar& fill_value, const TensorOptions& options = {}) {
  TensorOptions opts = options;
  if (!opts.has_dtype()) {
    opts = opts.dtype(fill_value.isBoolean()         ? kBool
                      : fill_value.isIntegral(false) ? kLong
                                                     : kFloat);
  }
  Tensor t = empty(size, opts);
  detail::fill_dense(t, fill_value, "full");
  return t;
}

template <class = void>
Tensor scalar_tensor(const Scalar& s, const TensorOptions& options = {}) {
  Tensor t = empty({}, options);
  detail::fill_dense(t, s, "scalar_tensor");
  return t;
}

// ---- *_like ---------------------------------------------------------------------------------

// An uninitialised tensor shaped like `self`, with self's dtype and device unless `options`
// overrides them. The memory format (from `options` or the explicit argument, not both) defaults
// to Preserve: a non-overlapping and dense input has its strides copied (a transposed input
// gives a transposed result); any other strided input gets dense strides in the same dimension
// order (infer_dense_strides above); Contiguous or ChannelsLast lay the result out that way.
template <class = void>
Tensor empty_like(const Tensor& self, const TensorOptions& options = {},
                  std::optional<MemoryFormat> memory_format = std::nullopt) {
  TP_CHECK(!(options.has_memory_format() && memory_format.has_value()),
           "Cannot set memory_format both in TensorOptions and explicit argument; please delete "
           "the redundant setter.");
  const MemoryFormat format =
      memory_format.value_or(options.memory_format_opt().value_or(MemoryFormat::Preserve));
  const TensorOptions opts = self.options().merge_in(options).memory_format(std::nullopt);
  Tensor out;
  if (format == MemoryFormat::Preserve) {
    if (self.is_non_overlapping_and_dense()) {
      out = empty_strided(self.sizes(), self.strides(), opts);
    } else {
      const auto strides = detail::infer_dense_strides(self.sizes(), self.strides());
      out = empty_strided(self.sizes(), strides, opts);
    }
  } else {
    out = empty(self.sizes(), opts.memory_format(format));
  }
  // A quantized result of self's dtype takes self's parameters (PyTorch's empty_like of a
  // quantized tensor), so that clone() and the *_like factories give a usable quantized tensor.
  if (is_quantized(out.dtype()) && out.dtype() == self.dtype()) [[unlikely]]
    out.unsafeGetTensorImpl()->set_quantizer(self.unsafeGetTensorImpl()->quantizer());
  return out;
}

template <class = void>
Tensor zeros_like(const Tensor& self, const TensorOptions& options = {},
                  std::optional<MemoryFormat> memory_format = std::nullopt) {
  Tensor t = empty_like(self, options, memory_format);
  detail::zero_dense(t, "zeros_like");
  return t;
}

template <class = void>
Tensor ones_like(const Tensor& self, const TensorOptions& options = {},
                 std::optional<MemoryFormat> memory_format = std::nullopt) {
  Tensor t = empty_like(self, options, memory_format);
  detail::fill_dense(t, Scalar(1), "ones_like");
  return t;
}

// The dtype is self's (or the options'), never inferred from the value: full_like(int_tensor,
// 2.7) holds 2s, as PyTorch's does.
template <class = void>
Tensor full_like(const Tensor& self, const Scalar& fill_value,
                 const TensorOptions& options = {},
                 std::optional<MemoryFormat> memory_format = std::nullopt) {
  Tensor t = empty_like(self, options, memory_format);
  detail::fill_dense(t, fill_value, "full_like");
  return t;
}

// ---- Ranges ---------------------------------------------------------------------------------

namespace detail {

// The type arange computes in (c10's CPU acc_type): double for float and double, float for the
// 16-bit floats, int64 for every integer type.
template <class T>
using arange_acc_t = std::conditional_t<std::is_integral_v<T>, int64_t,
                                        std::conditional_t<ReducedFloatingPoint<T>, float, double>>;

// a·b rounded on its own. The volatile round trip stops the compiler from fusing the product into
// the add that follows (GCC does that across statements under -ffp-contract=fast, its default in
// the GNU modes), which would change last bits that PyTorch's kernel rounds twice.
template <class T>
T rounded_product(T a, T b) noexcept {
  volatile T p = a * b;
  return p;
}

// The order in which PyTorch 1.13's CPU range kernels produce their values, which decides their
// last bits. They run through its 256-bit vector loop (the AVX2 build it dispatches to, and the
// default build, both have V = 32 / sizeof(T) lanes): each full block of 2·V elements is two
// vectors, and a vector whose first index is i holds base = x(i), the scalar formula rounded to
// T, then lane(base, k) for k = 1..V-1; the elements after the last full block take x(i). (A torch
// run that splits more than 32768 elements across threads restarts the blocks at each chunk;
// this is the single-chunk result, torch's on one thread.)
template <class T, class X, class Lane>
void vector_loop_fill(T* out, int64_t n, X&& x, Lane&& lane) {
  constexpr int64_t V = static_cast<int64_t>(32 / sizeof(T));
  const int64_t blocked = n / (2 * V) * (2 * V);
  int64_t i = 0;
  for (; i < blocked; i += V) {
    const T base = x(i);
    out[i] = base;
    for (int64_t k = 1; k < V; ++k) out[i + k] = lane(base, k);
  }
  for (; i < n; ++i) out[i] = x(i);
}

// Floating arange, bit for bit as torch.arange: x(i) = T(start + step·i) and
// lane(base, k) = T(base + k·step), in Acc. How each a·b + c rounds was read off torch's results
// (its AVX2 build has FMA and GCC contracts): start + step·i is one fused multiply-add, and so is
// base + k·step for float and double, while Half and BFloat16 round k·step first. std::fma and
// rounded_product state this independently of our own compiler's contraction flags.
template <class T, class Acc>
void arange_fill_floating(T* out, int64_t n, Acc start, Acc step) {
  auto x = [&](int64_t i) { return static_cast<T>(std::fma(step, static_cast<Acc>(i), start)); };
  auto lane = [&](T base, int64_t k) {
    const Acc b = static_cast<Acc>(base), kk = static_cast<Acc>(k);
    if constexpr (ReducedFloatingPoint<T>) {
      return static_cast<T>(b + rounded_product(kk, step));
    } else {
      return static_cast<T>(std::fma(kk, step, b));
    }
  };
  vector_loop_fill(out, n, x, lane);
}

// Integer arange: start + step·i in int64, wrapped to T. The wrap is two's complement, as the
// vector and scalar paths of PyTorch both give; computing in uint64 keeps overflow defined.
template <class T>
void arange_fill_integral(T* out, int64_t n, int64_t start, int64_t step) {
  const uint64_t s = static_cast<uint64_t>(start), d = static_cast<uint64_t>(step);
  for (int64_t i = 0; i < n; ++i) {
    out[i] = static_cast<T>(static_cast<int64_t>(s + d * static_cast<uint64_t>(i)));
  }
}

}  // namespace detail

// Values start, start + step, ... up to but excluding end. The length is PyTorch's
// ceil((end - start) / step), computed in double from the Scalars (for int64 results, from the
// int64 difference), so arange(0, 1, 0.1) has 10 elements. Values are computed in arange_acc_t
// from the Scalars converted to it (an int64 arange from 0.5 starts at 0, as PyTorch's does).
template <class = void>
Tensor arange(const Scalar& start, const Scalar& end, const Scalar& step,
              const TensorOptions& options = {}) {
  const bool integral = !options.has_dtype() && start.isIntegral(true) && end.isIntegral(true) &&
                        step.isIntegral(true);
  const TensorOptions opts = integral ? options.dtype(kLong) : options;
  return dispatch_dtype(opts.dtype(), [&]<class T>() -> Tensor {
    if constexpr (std::is_same_v<T, bool>) {
      detail::dtype_not_implemented("arange_cpu", kBool);
    } else {
      using Acc = detail::arange_acc_t<T>;
      const Acc xstart = start.to<Acc>(), xend = end.to<Acc>(), xstep = step.to<Acc>();
      TP_CHECK(xstep > 0 || xstep < 0, "step must be nonzero");  // NaN fails both
      TP_CHECK(
          std::isfinite(static_cast<double>(xstart)) && std::isfinite(static_cast<double>(xend)),
          "unsupported range: ", xstart, " -> ", xend);
      TP_CHECK((xstep > 0 && xend >= xstart) || (xstep < 0 && xend <= xstart),
               "upper bound and larger bound inconsistent with step sign");
      double size_d;
      if constexpr (std::is_same_v<T, int64_t>) {
        // The exact int64 difference (wrapping where PyTorch's would overflow: a negative
        // wrapped difference then fails the size check below instead of being undefined).
        const auto diff =
            static_cast<int64_t>(static_cast<uint64_t>(xend) - static_cast<uint64_t>(xstart));
        size_d = std::ceil(static_cast<double>(diff) / static_cast<double>(xstep));
      } else {
        size_d = std::ceil((end.toDouble() - start.toDouble()) / step.toDouble());
      }
      // 2^63 itself does not convert to int64, hence < rather than PyTorch's <=.
      TP_CHECK(size_d >= 0 && size_d < 9223372036854775808.0, "invalid size, possible overflow?");
      const auto n = static_cast<int64_t>(size_d);
      Tensor t = empty({n}, opts);
      detail::fill_on_host(t, [&](const Tensor& h) {
        if constexpr (std::is_integral_v<T>) {
          detail::arange_fill_integral(h.data_ptr<T>(), n, xstart, xstep);
        } else {
          detail::arange_fill_floating(h.data_ptr<T>(), n, xstart, xstep);
        }
      });
      return t;
    }
  });
}

template <class = void>
Tensor arange(const Scalar& start, const Scalar& end, const TensorOptions& options = {}) {
  return arange(start, end, Scalar(1), options);
}

template <class = void>
Tensor arange(const Scalar& end, const TensorOptions& options = {}) {
  return arange(Scalar(0), end, Scalar(1), options);
}

namespace detail {

// PyTorch 1.13's CPU linspace, bit for bit. The step is computed in T for floating types (in
// double for integers); element i < steps/2 counts up from start and the rest count down from end,
// so both endpoints are exact and the rounding is symmetric:
//   x(i) = start + step·i  (i < steps/2),   end - step·(steps-1-i)  (otherwise),
// and the lanes of each vector (vector_loop_fill) are lane(base, k) = base + k·step, whichever
// side of the halfway point they fall on.
//  - float/double: x(i) is one fused multiply-add; the lanes round k·step, then the sum (both
//    read off torch's results, as for arange).
//  - Half/BFloat16: c10's arithmetic, rounding to T after every operation, an integer operand
//    converted to T first (Half * int64 is Half * Half(int64)); nothing can fuse.
//  - integers: start and end are converted to T, x(i) is computed in double (fused) and truncated
//    toward zero by the conversion to T; the lanes add the rounded k·step in double to that
//    truncated base and truncate again.
template <class T>
void linspace_fill(T* out, int64_t steps, T start, T end) {
  const int64_t halfway = steps / 2;
  if constexpr (ReducedFloatingPoint<T>) {
    const T step = (end - start) / (steps - 1);
    auto x = [&](int64_t i) -> T {
      return i < halfway ? start + step * i : end - step * (steps - i - 1);
    };
    auto lane = [&](T base, int64_t k) -> T { return base + k * step; };
    vector_loop_fill(out, steps, x, lane);
  } else {
    using step_t = std::conditional_t<std::is_integral_v<T>, double, T>;
    const step_t s = static_cast<step_t>(start), e = static_cast<step_t>(end);
    const step_t step = (e - s) / static_cast<step_t>(steps - 1);
    auto x = [&](int64_t i) -> T {
      return static_cast<T>(i < halfway ? std::fma(step, static_cast<step_t>(i), s)
                                        : std::fma(-step, static_cast<step_t>(steps - i - 1), e));
    };
    auto lane = [&](T base, int64_t k) -> T {
      return static_cast<T>(static_cast<step_t>(base) +
                            rounded_product(static_cast<step_t>(k), step));
    };
    vector_loop_fill(out, steps, x, lane);
  }
}

}  // namespace detail

// `steps` evenly spaced values from start to end inclusive (steps == 1 gives [start]). The dtype
// is the options' or float32; start and end are converted to it first (checked), as PyTorch does.
template <class = void>
Tensor linspace(const Scalar& start, const Scalar& end, int64_t steps,
                const TensorOptions& options = {}) {
  TP_CHECK(steps >= 0, "number of steps must be non-negative");
  Tensor t = empty({steps}, options);
  if (steps == 0) return t;
  if (steps == 1) {  // PyTorch's fill_(start): defined for bool too
    detail::fill_dense(t, start, "linspace");
    return t;
  }
  dispatch_dtype(t.dtype(), [&]<class T>() {
    if constexpr (std::is_same_v<T, bool>) {
      detail::dtype_not_implemented("linspace_cpu", kBool);
    } else {
      const T from = start.to<T>(), to = end.to<T>();
      detail::fill_on_host(t, [&](const Tensor& h) {
        detail::linspace_fill<T>(h.data_ptr<T>(), steps, from, to);
      });
    }
  });
  return t;
}

// The n x m identity (ones on the main diagonal, zeros elsewhere), in any dtype including bool.
template <class = void>
Tensor eye(int64_t n, int64_t m, const TensorOptions& options = {}) {
  TP_CHECK(n >= 0, "n must be greater or equal to 0, got ", n);
  TP_CHECK(m >= 0, "m must be greater or equal to 0, got ", m);
  // PyTorch's eye resizes its result, and resize_ checks numel before the bytes.
  detail::safe_compute_numel({n, m});
  Tensor t = empty({n, m}, options);
  detail::fill_on_host(t, [&](const Tensor& h) {
    detail::zero_dense(h, "eye");
    const int64_t diag = n < m ? n : m;
    const int64_t step = h.numel() > 0 ? h.stride(0) + h.stride(1) : 0;
    dispatch_dtype(h.dtype(), [&]<class T>() {
      T* p = h.data_ptr<T>();
      for (int64_t i = 0; i < diag; ++i) p[i * step] = static_cast<T>(1);
    });
  });
  return t;
}

template <class = void>
Tensor eye(int64_t n, const TensorOptions& options = {}) { return eye(n, n, options); }

// ---- tensor(...) from values ----------------------------------------------------------------

namespace detail {

// The C++ element types tensor() accepts, and the dtype each asks for (libtorch's
// compute_desired_dtype): every other integer (int, long, long long, unsigned, char) -> int64,
// float/double -> the default float32, the exact types bool, int8_t, uint8_t, int16_t, Half and
// BFloat16 keep their own dtype.
template <class T>
concept TensorDataElement = std::is_arithmetic_v<T> || ReducedFloatingPoint<T>;

template <TensorDataElement T>
constexpr DType desired_dtype() noexcept {
  if constexpr (std::is_same_v<T, bool>) {
    return kBool;
  } else if constexpr (std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t> ||
                       std::is_same_v<T, int16_t> || ReducedFloatingPoint<T>) {
    return dtype_of<T>;
  } else if constexpr (std::is_integral_v<T>) {
    return kLong;
  } else {
    return kFloat;
  }
}

// A (nested) braced list of numbers, what tensor({{1., 2.}, {3., 4.}}) receives (libtorch's
// TensorDataContainer). A braced list always prefers the initializer_list constructor, so `{1}`
// is a one-element list and only a bare number is a leaf; `{}` is an empty list.
//
// It holds the initializer_list by reference: the arrays behind the braces live until the end of
// the full expression that calls tensor(), which is all the time it needs. Never store one.
class TensorDataContainer {
 public:
  TensorDataContainer() noexcept : is_scalar_(false) {}
  template <TensorDataElement T>
  TensorDataContainer(T value) noexcept  // NOLINT: implicit, so that {1, 2} converts
      : is_scalar_(true), scalar_(value), dtype_(desired_dtype<T>()) {}
  TensorDataContainer(std::initializer_list<TensorDataContainer> list) noexcept
      : is_scalar_(false), list_(list) {}

  bool is_scalar() const noexcept { return is_scalar_; }
  const Scalar& scalar() const noexcept { return scalar_; }
  const std::initializer_list<TensorDataContainer>& list() const noexcept { return list_; }

  // PyTorch's shape inference: follow the first element down until a number (or an empty
  // list); check_nesting also makes sure every other element agrees.
  std::vector<int64_t> sizes() const {
    std::vector<int64_t> s;
    for (const TensorDataContainer* node = this; !node->is_scalar_;) {
      s.push_back(static_cast<int64_t>(node->list_.size()));
      if (node->list_.size() == 0) break;
      node = node->list_.begin();
    }
    return s;
  }

  // The promotion of every leaf's desired dtype; float32 when there is no leaf at all, as
  // torch.tensor([]) is float32.
  DType infer_dtype() const {
    std::optional<DType> d;
    visit_leaves([&](const TensorDataContainer& leaf) {
      d = d ? promote_types(*d, leaf.dtype_) : leaf.dtype_;
    });
    return d.value_or(kFloat);
  }

  // libtorch's check of the nesting, which it makes while the braces are constructed: inner
  // lists first, left to right, each list's elements against its first element's sizes, with
  // its message ("Expected all sub-lists to have sizes: 2 (e.g. {5, 6}), but got sub-list {7}
  // with sizes: 1"). Returns this node's sizes.
  std::vector<int64_t> check_nesting() const {
    if (is_scalar_) return {};
    std::vector<int64_t> first;
    for (const TensorDataContainer* it = list_.begin(); it != list_.end(); ++it) {
      std::vector<int64_t> s = it->check_nesting();
      if (it == list_.begin()) {
        first = std::move(s);
        continue;
      }
      TP_CHECK(s == first, "Expected all sub-lists to have sizes: ", SizesText{first}, " (e.g. ",
               *list_.begin(), "), but got sub-list ", *it, " with sizes: ", SizesText{s});
    }
    first.insert(first.begin(), static_cast<int64_t>(list_.size()));
    return first;
  }

  // Writes the leaves through the strides (check_nesting has made sure they fit).
  // Offsets stay integers until a leaf is written: a tensor with a zero-size dimension has no
  // block, and stepping a null pointer would be undefined even when nothing is written.
  template <class T>
  void fill(T* data, IntArrayRef strides, std::size_t dim = 0, int64_t offset = 0) const {
    if (is_scalar_) {
      data[offset] = scalar_.to<T>();
      return;
    }
    for (const TensorDataContainer& child : list_) {
      child.fill(data, strides, dim + 1, offset);
      offset += strides[dim];
    }
  }

  // libtorch's printing: {a, b} for lists, a leaf as its C++ type prints (bool as 1/0, int8_t and
  // uint8_t as characters, floating point with the stream's default 6 significant digits).
  friend std::ostream& operator<<(std::ostream& os, const TensorDataContainer& c) {
    if (c.is_scalar_) {
      dispatch_dtype(c.dtype_, [&]<class T>() {
        if constexpr (std::is_same_v<T, float>) {
          os << c.scalar_.toDouble();  // float and double leaves both ask for float32
        } else {
          os << c.scalar_.to<T>();
        }
      });
      return os;
    }
    os << "{";
    for (const TensorDataContainer* it = c.list_.begin(); it != c.list_.end(); ++it) {
      if (it != c.list_.begin()) os << ", ";
      os << *it;
    }
    return os << "}";
  }

 private:
  template <class F>
  void visit_leaves(F&& f) const {
    if (is_scalar_) {
      f(*this);
      return;
    }
    for (const TensorDataContainer& child : list_) child.visit_leaves(f);
  }

  // c10's printing of a sizes vector in this message: space-separated, no brackets.
  struct SizesText {
    const std::vector<int64_t>& sizes;
    friend std::ostream& operator<<(std::ostream& os, const SizesText& t) {
      for (std::size_t i = 0; i < t.sizes.size(); ++i) os << (i ? " " : "") << t.sizes[i];
      return os;
    }
  };

  bool is_scalar_;
  Scalar scalar_;
  DType dtype_ = kFloat;
  std::initializer_list<TensorDataContainer> list_;
};

template <class T>
Tensor tensor_from_values(const T* data, std::size_t n, const TensorOptions& options) {
  const TensorOptions opts = options.has_dtype() ? options : options.dtype(desired_dtype<T>());
  Tensor t = empty({static_cast<int64_t>(n)}, opts);
  fill_on_host(t, [&](const Tensor& h) {
    dispatch_dtype(h.dtype(), [&]<class U>() {
      U* out = h.data_ptr<U>();
      for (std::size_t i = 0; i < n; ++i) out[i] = Scalar(data[i]).template to<U>();
    });
  });
  return t;
}

}  // namespace detail

// A tensor holding a (nested) braced list of numbers, or a 0-d tensor for a bare number:
//   tensor({1.0, 2.0}) -> float32 [2];  tensor({1, 2}) -> int64;  tensor({true, false}) -> bool;
//   tensor({{1., 2.}, {3., 4.}}) -> float32 [2, 2];  tensor({1, 2}, kDouble) -> float64.
// Mixed leaves promote (tensor({1, 2.5}) is float32, as in Python; libtorch's C++ rejects them).
// Ragged lists fail with libtorch's message: "Expected all sub-lists to have sizes: 2 (e.g.
// {5, 6}), but got sub-list {7} with sizes: 1". Values are converted with Scalar's checked
// conversion.
inline Tensor tensor(detail::TensorDataContainer data, const TensorOptions& options = {}) {
  const std::vector<int64_t> sizes = data.check_nesting();
  const TensorOptions opts = options.has_dtype() ? options : options.dtype(data.infer_dtype());
  Tensor t = empty(sizes, opts);
  detail::fill_on_host(t, [&](const Tensor& h) {
    dispatch_dtype(h.dtype(),
                   [&]<class T>() { data.fill(static_cast<T*>(h.data_ptr()), h.strides()); });
  });
  return t;
}

// 1-d tensors from contiguous values; the dtype rule is the braced list's.
template <detail::TensorDataElement T>
Tensor tensor(ArrayRef<T> values, const TensorOptions& options = {}) {
  return detail::tensor_from_values(values.data(), values.size(), options);
}

template <detail::TensorDataElement T, class A>
Tensor tensor(const std::vector<T, A>& values, const TensorOptions& options = {}) {
  if constexpr (std::is_same_v<T, bool>) {
    // std::vector<bool> is a bitfield with no data(): copy it out as bytes, keeping kBool.
    const std::vector<uint8_t> bytes(values.begin(), values.end());
    return detail::tensor_from_values(bytes.data(), bytes.size(),
                                      options.has_dtype() ? options : options.dtype(kBool));
  } else {
    return detail::tensor_from_values(values.data(), values.size(), options);
  }
}

}  // namespace tensorplay
