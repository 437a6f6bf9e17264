// Reductions and scans: sum, mean, prod, max/min (all and along a dim), amax/amin, argmax/argmin,
// var/std (+ var_mean/std_mean), norm, all/any, logsumexp, cumsum/cumprod. Free functions with
// libtorch's names and overloads, their `*_out` forms (out first, as everywhere in TensorPlay),
// and the Tensor methods declared in core/tensor.hpp. The machinery is in ops/reduce.hpp.
//
// Dtype rules (PyTorch 1.13). sum/prod/cumsum/cumprod: bool and integer inputs give int64
// unless dtype= is given; the input is converted to the output dtype first, then accumulated in
// float (Half, BFloat16, float), double or int64. mean/var/std/norm/logsumexp want floating
// inputs (logsumexp promotes integers to float32). amax/amin/max/min keep the input's dtype.
// all/any give bool (uint8 for a uint8 input). An out= tensor decides the dtype of sum/mean/prod
// unless dtype= is given too, in which case the two must agree.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <tuple>
#include <type_traits>
#include <vector>

#include <tensorplay/autograd/functions/reduce.hpp>
#include <tensorplay/ops/reduce.hpp>
#include <tensorplay/ops/views.hpp>

namespace tensorplay {
namespace detail::reduce_impl {

// Reducing an empty dimension has no identity for max/min/argmax (PyTorch's
// zero_numel_check_dims). Only called for empty inputs, which have at least one dimension.
template <class = void>
void zero_numel_check_dim(const Tensor& self, int64_t dim, const char* name) {
  TP_CHECK_INDEX(self.size(dim) != 0, name, ": Expected reduction dim ", dim,
                 " to have non-zero size.");
}

template <class = void>
void zero_numel_check_dims(const Tensor& self, IntArrayRef dims, const char* name) {
  TP_CHECK(!dims.empty(), name,
           ": Expected reduction dim to be specified for input.numel() == 0. Specify the "
           "reduction dim with the 'dim' argument.");
  for (int64_t d : dims) zero_numel_check_dim(self, d, name);
}

template <class = void>
DimMask single_dim_mask(int64_t dim, int64_t ndim) {
  const int64_t d = dim;
  return dim_list_to_mask(IntArrayRef(d), ndim);
}

// ---- sum, mean, prod ------------------------------------------------------------------------

template <class = void>
DType sumlike_out_dtype(const Tensor& self, std::optional<DType> dtype, const Tensor& out) {
  if (out.defined()) return dtype.value_or(out.dtype());
  return dtype.value_or(is_integral(self.dtype(), /*include_bool=*/true) ? kLong : self.dtype());
}

template <bool kProd>
Tensor sumprod_impl(const Tensor& self, DimMask mask, bool keepdim, std::optional<DType> dtype,
                    const Tensor& out) {
  const DType out_dtype = sumlike_out_dtype(self, dtype, out);
  if (out.defined()) check_out_dtype(out, out_dtype);
  Tensor result = reduction_result(out, self, mask, keepdim, out_dtype);
  const DType compute = compute_dtype(out_dtype);
  const Tensor src = result.numel() == 0 ? self : to_compute(self, out_dtype, compute);
  if (!self.is_cpu()) {
    reduce_on_device(result, src, mask, keepdim, kProd ? ReduceCode::Prod : ReduceCode::Sum,
                     kProd ? "aten::prod" : "aten::sum");
    bump_out(out);
    return result;
  }
  dispatch_dtype(compute, [&]<class T>() {
    if constexpr (kComputeType<T>) {  // accumulates in T: int64, float (cascaded) or double
      if constexpr (kProd) {
        reduce_into<T, T>(result, !out.defined(), src, mask, keepdim, ProdOp<T>{});
      } else {
        reduce_into<T, T>(result, !out.defined(), src, mask, keepdim, SumOp<T>{});
      }
    }
  });
  bump_out(out);
  return result;
}

template <class = void>
Tensor sum_impl(const Tensor& self, OptionalIntArrayRef dim, bool keepdim,
                std::optional<DType> dtype, const Tensor& out) {
  check_defined(self, "sum");
  return sumprod_impl<false>(self, make_dim_mask(dim, self.dim()), keepdim, dtype, out);
}

template <class = void>
Tensor prod_impl(const Tensor& self, std::optional<int64_t> dim, bool keepdim,
                 std::optional<DType> dtype, const Tensor& out) {
  check_defined(self, "prod");
  const DimMask mask = dim ? single_dim_mask(*dim, self.dim()) : make_dim_mask({}, self.dim());
  return sumprod_impl<true>(self, mask, keepdim, dtype, out);
}

template <class = void>
Tensor mean_impl(const Tensor& self, OptionalIntArrayRef dim, bool keepdim,
                 std::optional<DType> dtype, const Tensor& out) {
  check_defined(self, "mean");
  const DType in_dtype = dtype.value_or(self.dtype());
  TP_CHECK(
      is_floating_point(in_dtype), "mean(): could not infer output dtype. ",
      dtype ? "Optional" : "Input",
      " dtype must be either a floating point or complex dtype. Got: ", scalar_type_name(in_dtype));
  const DimMask mask = make_dim_mask(dim, self.dim());
  const DType out_dtype = out.defined() ? dtype.value_or(out.dtype()) : in_dtype;
  if (out.defined()) {
    check_out_dtype(out, out_dtype);
    TP_CHECK(is_floating_point(out_dtype), "result type ", scalar_type_name(in_dtype),
             " can't be cast to the desired output type ", scalar_type_name(out_dtype));
  }
  Tensor result = reduction_result(out, self, mask, keepdim, out_dtype);
  const DType compute = float_compute_dtype(out_dtype);
  const Tensor src = result.numel() == 0 ? self : to_compute(self, out_dtype, compute);
  const int64_t count = reduced_count(self.sizes(), mask);
  if (!self.is_cpu()) {
    reduce_on_device(result, src, mask, keepdim, ReduceCode::Mean, "aten::mean");
    bump_out(out);
    return result;
  }
  dispatch_dtype(compute, [&]<class T>() {
    if constexpr (kFloatType<T>) {
      const T n = T(count);  // 0 for an empty reduction: 0 / 0 is NaN, as PyTorch's mean
      reduce_into<T, T>(result, !out.defined(), src, mask, keepdim, SumOp<T>{},
                        [n](T a, T) { return a / n; });
    }
  });
  bump_out(out);
  return result;
}

// ---- amax, amin, max(), min() ---------------------------------------------------------------

template <bool kMax>
Tensor amax_impl(const Tensor& self, IntArrayRef dim, bool keepdim, const Tensor& out) {
  const char* name = kMax ? "amax()" : "amin()";
  check_defined(self, kMax ? "amax" : "amin");
  if (out.defined()) {
    TP_CHECK(self.dtype() == out.dtype(), "Expected the dtype for input and out to match, but got ",
             scalar_type_name(self.dtype()), " for input's dtype and ",
             scalar_type_name(out.dtype()), " for out's dtype.");
  }
  if (self.numel() == 0) zero_numel_check_dims(self, dim, name);
  const DimMask mask = make_dim_mask(dim, self.dim());
  Tensor result = reduction_result(out, self, mask, keepdim, self.dtype());
  const DType compute = compute_dtype(self.dtype());
  if (!self.is_cpu()) {
    reduce_on_device(result, self, mask, keepdim, kMax ? ReduceCode::Amax : ReduceCode::Amin,
                     kMax ? "aten::amax" : "aten::amin");
    bump_out(out);
    return result;
  }
  const Tensor src = self.dtype() == compute || result.numel() == 0 ? self : self.to(compute);
  dispatch_dtype(compute, [&]<class T>() {
    if constexpr (kComputeType<T>) {
      reduce_into<T, T>(result, !out.defined(), src, mask, keepdim, MinMaxOp<T, kMax>{});
    }
  });
  bump_out(out);
  return result;
}

template <bool kMax>
Tensor max_all_impl(const Tensor& self) {
  check_defined(self, kMax ? "max" : "min");
  TP_CHECK(self.numel() > 0, kMax ? "max()" : "min()",
           ": Expected reduction dim to be specified for input.numel() == 0. Specify the "
           "reduction dim with the 'dim' argument.");
  return amax_impl<kMax>(self, {}, false, Tensor());
}

// ---- max(dim), min(dim), argmax, argmin: lines ----------------------------------------------

// Whether v replaces best: strictly better, or the first NaN (which then stays).
template <bool kMax, class M>
inline bool minmax_better(M v, M best) {
  if constexpr (kMax) {
    return !nan_of(best) && (v > best || nan_of(v));
  } else {
    return !nan_of(best) && (v < best || nan_of(v));
  }
}

inline constexpr int kArgLanes = 16;

// Operands of `iter`: [values (T), when with_values], indices (int64), input (T). Ties keep the
// first index.
struct MinMaxLineArgs {
  int64_t length, in_stride;
  bool with_values;
};

template <class T, bool kMax>
struct MinMaxLinesKernel {
  static constexpr bool kFullLoopOptimization = true;  // ops/cpu_capability.hpp
  template <CpuCapability>
  static void run(char** data, const int64_t* s, int64_t n, const void* args) {
    const auto& a = *static_cast<const MinMaxLineArgs*>(args);
    const int64_t length = a.length, in_stride = a.in_stride;
    const bool with_values = a.with_values;
    const int idx_arg = with_values ? 1 : 0, in_arg = with_values ? 2 : 1;
    const bool side_by_side = n > 1 && s[in_arg] == int64_t(sizeof(T)) &&
                              s[idx_arg] == int64_t(sizeof(int64_t)) &&
                              (!with_values || s[0] == int64_t(sizeof(T)));
    if (side_by_side) {  // adjacent lines (the reduced dim is not the innermost): tiles
      for (int64_t c = 0; c < n; c += kLineTile) {
        const int w = int(std::min<int64_t>(kLineTile, n - c));
        const char* base = data[in_arg] + c * int64_t(sizeof(T));
        T best[kLineTile];
        int64_t idx[kLineTile];
        const T* row0 = reinterpret_cast<const T*>(base);
        for (int i = 0; i < w; ++i) best[i] = row0[i], idx[i] = 0;
        for (int64_t r = 1; r < length; ++r) {
          const T* row = reinterpret_cast<const T*>(base + r * in_stride);
          for (int i = 0; i < w; ++i) {
            const T v = row[i];
            const bool u = minmax_better<kMax>(v, best[i]);
            best[i] = u ? v : best[i];
            idx[i] = u ? r : idx[i];
          }
        }
        int64_t* oi = reinterpret_cast<int64_t*>(data[idx_arg]) + c;
        for (int i = 0; i < w; ++i) oi[i] = idx[i];
        if (with_values) {
          T* ov = reinterpret_cast<T*>(data[0]) + c;
          for (int i = 0; i < w; ++i) ov[i] = best[i];
        }
      }
      return;
    }
    for (int64_t k = 0; k < n; ++k) {
      const char* p = data[in_arg] + k * s[in_arg];
      T best = *reinterpret_cast<const T*>(p);
      int64_t bi = 0, r = 1;
      if (in_stride == int64_t(sizeof(T)) && length >= 2 * kArgLanes) {
        // A contiguous line: independent lanes, each the first best of its own elements, then
        // the best lane (the smallest index on ties), then the tail.
        const T* x = reinterpret_cast<const T*>(p);
        T lv[kArgLanes];
        int64_t li[kArgLanes];
        for (int j = 0; j < kArgLanes; ++j) lv[j] = x[j], li[j] = j;
        for (r = kArgLanes; r + kArgLanes <= length; r += kArgLanes) {
          for (int j = 0; j < kArgLanes; ++j) {
            const T v = x[r + j];
            const bool u = minmax_better<kMax>(v, lv[j]);
            lv[j] = u ? v : lv[j];
            li[j] = u ? r + j : li[j];
          }
        }
        best = lv[0];
        bi = li[0];
        for (int j = 1; j < kArgLanes; ++j) {
          const bool tie = lv[j] == best || (nan_of(lv[j]) && nan_of(best));
          if (minmax_better<kMax>(lv[j], best) || (tie && li[j] < bi)) best = lv[j], bi = li[j];
        }
      }
      for (; r < length; ++r) {
        const T v = *reinterpret_cast<const T*>(p + r * in_stride);
        if (minmax_better<kMax>(v, best)) best = v, bi = r;
      }
      *reinterpret_cast<int64_t*>(data[idx_arg] + k * s[idx_arg]) = bi;
      if (with_values) *reinterpret_cast<T*>(data[0] + k * s[0]) = best;
    }
  }
};

template <class T, bool kMax>
void minmax_lines(const TensorIterator& iter, int64_t length, int64_t in_stride, bool with_values) {
  for_each_line_dispatched<MinMaxLinesKernel<T, kMax>, kDispatchedReduction<T>>(
      iter, length, MinMaxLineArgs{length, in_stride, with_values});
}

template <bool kMax>
std::tuple<Tensor, Tensor> minmax_dim_impl(const Tensor& self, int64_t dim, bool keepdim,
                                           const Tensor& values_out, const Tensor& indices_out) {
  const char* name = kMax ? "max()" : "min()";
  check_defined(self, kMax ? "max" : "min");
  const int64_t d = maybe_wrap_dim(dim, self.dim());
  if (self.numel() == 0) zero_numel_check_dim(self, d, name);
  if (values_out.defined()) check_out_dtype(values_out, self.dtype());
  if (indices_out.defined()) check_out_dtype(indices_out, kLong);
  const DimMask mask = single_dim_mask(d, self.dim());
  Tensor values = reduction_result(values_out, self, mask, keepdim, self.dtype());
  Tensor indices = reduction_result(indices_out, self, mask, keepdim, kLong);
  if (!self.is_cpu()) {
    const char* op = kMax ? "aten::max.dim" : "aten::min.dim";
    reduce_on_device(values, self, mask, keepdim, kMax ? ReduceCode::Amax : ReduceCode::Amin, op);
    reduce_on_device(indices, self, mask, keepdim, kMax ? ReduceCode::Argmax : ReduceCode::Argmin,
                     op);
  } else if (values.numel() > 0) {
    const DType compute = compute_dtype(self.dtype());
    const Tensor in = as_line(self.dtype() == compute ? self : self.to(compute));
    const Tensor vk = keepdim_view(values, self.sizes(), mask, keepdim);
    // Values of another dtype are found in the compute dtype and converted back (exactly).
    const Tensor vc =
        vk.dtype() == compute ? vk : empty(vk.sizes(), TensorOptions().dtype(compute));
    const Tensor i = as_line(keepdim_view(indices, self.sizes(), mask, keepdim));
    const TensorIterator iter = make_line_iterator({as_line(vc), i}, in, d);
    dispatch_dtype(compute, [&]<class T>() {
      if constexpr (kComputeType<T>) {
        minmax_lines<T, kMax>(iter, in.size(d), in.stride(d) * int64_t(sizeof(T)), true);
      }
    });
    if (!vc.is_same(vk)) copy_impl(vk, vc);
  }
  bump_out(values_out);
  bump_out(indices_out);
  return {values, indices};
}

template <bool kMax>
Tensor argmax_impl(const Tensor& self, std::optional<int64_t> dim, bool keepdim,
                   const Tensor& out) {
  const char* name = kMax ? "argmax()" : "argmin()";
  check_defined(self, kMax ? "argmax" : "argmin");
  int64_t d = 0;
  if (dim) {
    d = maybe_wrap_dim(*dim, self.dim());
    if (self.numel() == 0) zero_numel_check_dim(self, d, name);
  } else {
    TP_CHECK_INDEX(self.numel() != 0, name,
                   ": Expected reduction dim to be specified for input.numel() == 0.");
  }
  if (out.defined()) check_out_dtype(out, kLong);
  // PyTorch 1.13 has no Bool kernel, but only dispatches when there is something to compare:
  // along a dim of size 1 it fills zeros, and an empty input gives an empty result.
  const bool no_kernel = dim && self.dim() > 0 && (self.size(d) == 1 || self.numel() == 0);
  TP_CHECK_NOT_IMPLEMENTED(self.dtype() != kBool || no_kernel, "\"",
                           kMax ? "argmax_cpu" : "argmin_cpu", "\" not implemented for 'Bool'");
  const DimMask mask = dim ? single_dim_mask(d, self.dim()) : make_dim_mask({}, self.dim());
  Tensor result = reduction_result(out, self, mask, keepdim, kLong);
  if (!self.is_cpu()) {
    reduce_on_device(result, self, mask, keepdim, kMax ? ReduceCode::Argmax : ReduceCode::Argmin,
                     kMax ? "aten::argmax" : "aten::argmin");
  } else if (result.numel() > 0) {
    // dim=None: the argmax of the flattened input, one line. The conversion and views below
    // are the kernel's own: nothing records (an index result has no gradient).
    NoGradGuard no_grad;
    const DType compute = compute_dtype(self.dtype());
    const Tensor conv = self.dtype() == compute ? self : self.to(compute);
    const Tensor in = dim ? as_line(conv) : conv.reshape({-1});
    const Tensor idx =
        dim ? as_line(keepdim_view(result, self.sizes(), mask, keepdim))
            : make_tensor(result.storage(), kLong, {1}, {1}, result.storage_offset());
    const TensorIterator iter = make_line_iterator({idx}, in, dim ? d : 0);
    const int64_t ld = dim ? d : 0;
    dispatch_dtype(compute, [&]<class T>() {
      if constexpr (kComputeType<T>) {
        minmax_lines<T, kMax>(iter, in.size(ld), in.stride(ld) * int64_t(sizeof(T)), false);
      }
    });
  }
  bump_out(out);
  return result;
}

// ---- var, std -------------------------------------------------------------------------------

// Two passes, both cascaded, accumulating in double: the mean, then the squared deviations
// from it (more accurate than Welford's single pass, and it vectorises).
template <class A>
struct SquaredDeviationOp {
  static constexpr bool kAux = true;
  A identity() const { return A(0); }
  A combine(A a, A b) const { return a + b; }
  template <class M>
  A map(M x, A mean) const {
    const A d = A(x) - mean;
    return d * d;
  }
};

// The dims of a mask, in order (for composites that call the public ops).
inline std::vector<int64_t> mask_dims(DimMask mask, int64_t ndim) {
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < ndim; ++d) {
    if ((mask >> d) & 1u) dims.push_back(d);
  }
  return dims;
}

// var/std (and the mean) on a device without a fused kernel: composed of that device's mean,
// subtraction, square, sum and sqrt, in the input's dtype (the CPU accumulates in double).
// Each op raises the device's own error where it has no kernel.
template <class = void>
void var_composite(const Tensor& result, const Tensor& mean_result, const Tensor& self,
                   DimMask mask, bool keepdim, double correction, bool take_sqrt) {
  NoGradGuard no_grad;  // the front end records the graph
  const std::vector<int64_t> dims = mask_dims(mask, self.dim());
  const Tensor mean = self.mean(dims, /*keepdim=*/true);
  const double divisor = std::max(0.0, double(reduced_count(self.sizes(), mask)) - correction);
  Tensor v = self.sub(mean).square().sum(dims, keepdim).div(divisor);
  if (take_sqrt) v = v.sqrt();
  copy_impl(result, v);
  if (mean_result.defined()) copy_impl(mean_result, mean.reshape(mean_result.sizes()));
}

// var/std into `result`; the mean into `mean_result` when it is defined (var_mean, std_mean).
template <class = void>
void var_kernel(const Tensor& result, bool result_is_new, const Tensor& mean_result,
                const Tensor& self, DimMask mask, bool keepdim, double correction, bool take_sqrt) {
  if (!self.is_cpu()) {
    return var_composite(result, mean_result, self, mask, keepdim, correction, take_sqrt);
  }
  const std::vector<int64_t> keep = reduced_shape(self.sizes(), mask, true);
  const int64_t count = reduced_count(self.sizes(), mask);
  const Tensor src = self.to(float_compute_dtype(self.dtype()));
  Tensor mean = empty(keep, TensorOptions().dtype(kDouble));
  double* m = static_cast<double*>(mean.data_ptr());
  std::fill_n(m, mean.numel(), 0.0);
  dispatch_dtype(src.dtype(), [&]<class T>() {
    if constexpr (kFloatType<T>) {
      reduce_kernel<T, double>(mean, src, mask, SumOp<double>{}, Tensor());
      for (int64_t i = 0; i < mean.numel(); ++i) m[i] /= double(count);
      // max(0, N - correction): a correction of N or more divides by zero (inf, or NaN for 0)
      const double divisor = std::max(0.0, double(count) - correction);
      reduce_into<T, double>(
          result, result_is_new, src, mask, keepdim, SquaredDeviationOp<double>{},
          [divisor, take_sqrt](double a, double) {
            const double v = a / divisor;
            return take_sqrt ? std::sqrt(v) : v;
          },
          mean);
    }
  });
  if (mean_result.defined() && mean_result.numel() > 0) {
    copy_impl(keepdim_view(mean_result, self.sizes(), mask, keepdim), mean);
  }
}

template <class = void>
Tensor var_impl(const Tensor& self, OptionalIntArrayRef dim, std::optional<int64_t> correction,
                bool keepdim, bool take_sqrt, const Tensor& out) {
  check_defined(self, take_sqrt ? "std" : "var");
  TP_CHECK(is_floating_point(self.dtype()),
           "std and var only support floating point and complex dtypes");
  const DimMask mask = make_dim_mask(dim, self.dim());
  if (out.defined()) {
    TP_CHECK(can_cast(self.dtype(), out.dtype()), "result type ", scalar_type_name(self.dtype()),
             " can't be cast to the desired output type ", scalar_type_name(out.dtype()));
  }
  Tensor result = reduction_result(out, self, mask, keepdim, self.dtype());
  var_kernel(result, !out.defined(), Tensor(), self, mask, keepdim, double(correction.value_or(1)),
             take_sqrt);
  bump_out(out);
  return result;
}

template <class = void>
std::tuple<Tensor, Tensor> var_mean_impl(const Tensor& self, OptionalIntArrayRef dim,
                                         std::optional<int64_t> correction, bool keepdim,
                                         bool take_sqrt) {
  check_defined(self, take_sqrt ? "std_mean" : "var_mean");
  TP_CHECK(is_floating_point(self.dtype()), take_sqrt ? "std_mean" : "var_mean",
           " only support floating point and complex dtypes");
  const DimMask mask = make_dim_mask(dim, self.dim());
  Tensor result = reduction_result(Tensor(), self, mask, keepdim, self.dtype());
  Tensor mean = reduction_result(Tensor(), self, mask, keepdim, self.dtype());
  var_kernel(result, true, mean, self, mask, keepdim, double(correction.value_or(1)), take_sqrt);
  return {result, mean};
}

// ---- norm -----------------------------------------------------------------------------------

template <class A>
struct AbsSumOp : SumOp<A> {
  template <class M>
  A map(M x, A) const {
    return std::abs(A(x));
  }
};
template <class A>
struct SquareSumOp : SumOp<A> {
  template <class M>
  A map(M x, A) const {
    return A(x) * A(x);
  }
};
template <class A>
struct NonzeroSumOp : SumOp<A> {
  template <class M>
  A map(M x, A) const {
    return x != M(0) ? A(1) : A(0);
  }
};
template <class A>
struct AbsPowSumOp : SumOp<A> {
  A p;
  template <class M>
  A map(M x, A) const {
    return std::pow(std::abs(A(x)), p);
  }
};
template <class A, bool kMax>
struct AbsMinMaxOp : MinMaxOp<A, kMax> {
  template <class M>
  A map(M x, A) const {
    return std::abs(A(x));
  }
};

template <class = void>
Tensor norm_impl(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim,
                 std::optional<DType> dtype, const Tensor& out) {
  check_defined(self, "norm");
  TP_CHECK(is_floating_point(self.dtype()),
           "norm(): input dtype should be either floating point or complex. Got ",
           scalar_type_name(self.dtype()), " instead.");
  if (dtype) {
    TP_CHECK(is_floating_point(*dtype),
             "norm(): the desired output dtype should be either floating point or complex. Got ",
             scalar_type_name(*dtype), " instead.");
  }
  const DimMask mask = make_dim_mask(dim, self.dim());
  const DType out_dtype =
      out.defined() ? dtype.value_or(out.dtype()) : dtype.value_or(self.dtype());
  if (out.defined()) check_out_dtype(out, out_dtype);
  const double pv = p ? p->toDouble() : 2.0;
  const bool no_identity = pv < 0 || std::isinf(pv);
  if (no_identity && self.numel() == 0) {
    const std::vector<int64_t> shape = reduced_shape(self.sizes(), mask, keepdim);
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    TP_CHECK(n == 0, "linalg.vector_norm cannot compute the ", pv,
             " norm on an empty tensor because the operation does not have an identity");
  }
  Tensor result = reduction_result(out, self, mask, keepdim, out_dtype);
  const bool is_new = !out.defined();
  const Tensor src =
      result.numel() == 0 ? self : to_compute(self, out_dtype, float_compute_dtype(out_dtype));
  if (result.numel() > 0 && !self.is_cpu()) {
    // Another device: composed of its abs, pow, sum, amax/amin and sqrt, the CPU's formulas.
    NoGradGuard no_grad;  // the front end records the graph
    const std::vector<int64_t> dims = mask_dims(mask, self.dim());
    const Tensor x = src.abs();
    Tensor r;
    if (pv == 2.0) {
      r = x.square().sum(dims, keepdim).sqrt();
    } else if (pv == 1.0) {
      r = x.sum(dims, keepdim);
    } else if (pv == 0.0) {
      r = x.ne(0).to(src.dtype()).sum(dims, keepdim);
    } else if (std::isinf(pv)) {
      r = pv > 0 ? x.amax(dims, keepdim) : x.amin(dims, keepdim);
    } else {
      r = x.pow(pv).sum(dims, keepdim).pow(1.0 / pv);
    }
    copy_impl(result, r);
    bump_out(out);
    return result;
  }
  dispatch_dtype(src.dtype(), [&]<class T>() {
    if constexpr (kFloatType<T>) {
      using A = T;
      if (pv == 2.0) {
        reduce_into<T, A>(result, is_new, src, mask, keepdim, SquareSumOp<A>{},
                          [](A a, A) { return std::sqrt(a); });
      } else if (pv == 1.0) {
        reduce_into<T, A>(result, is_new, src, mask, keepdim, AbsSumOp<A>{});
      } else if (pv == 0.0) {
        reduce_into<T, A>(result, is_new, src, mask, keepdim, NonzeroSumOp<A>{});
      } else if (std::isinf(pv)) {
        if (pv > 0) {
          reduce_into<T, A>(result, is_new, src, mask, keepdim, AbsMinMaxOp<A, true>{});
        } else {
          reduce_into<T, A>(result, is_new, src, mask, keepdim, AbsMinMaxOp<A, false>{});
        }
      } else {
        AbsPowSumOp<A> op;
        op.p = A(pv);
        const A inv = A(1.0 / pv);
        reduce_into<T, A>(result, is_new, src, mask, keepdim, op,
                          [inv](A a, A) { return std::pow(a, inv); });
      }
    }
  });
  bump_out(out);
  return result;
}

// ---- all, any -------------------------------------------------------------------------------

template <bool kAll>
Tensor all_impl(const Tensor& self, std::optional<int64_t> dim, bool keepdim, const Tensor& out) {
  const char* name = kAll ? "all" : "any";
  check_defined(self, name);
  if (out.defined()) {
    TP_CHECK(out.dtype() == kBool || out.dtype() == kByte, name,
             " only supports bool tensor for result, got: ", scalar_type_name(out.dtype()));
  }
  const DimMask mask = dim ? single_dim_mask(*dim, self.dim()) : make_dim_mask({}, self.dim());
  // [all, any : uint8 compatibility]: a uint8 input gives a uint8 result.
  const DType out_dtype = out.defined() ? out.dtype() : (self.dtype() == kByte ? kByte : kBool);
  Tensor result = reduction_result(out, self, mask, keepdim, out_dtype);
  const Tensor src = self.dtype() == kBool || result.numel() == 0 ? self : self.to(kBool);
  if (result.numel() > 0 && !self.is_cpu()) {
    // Another device: all is the amin of the bools, any their amax (an empty reduction is all's
    // true and any's false).
    NoGradGuard no_grad;
    const std::vector<int64_t> dims = mask_dims(mask, self.dim());
    if (reduced_count(self.sizes(), mask) == 0) {
      result.fill_(kAll);
    } else {
      copy_impl(result, kAll ? src.amin(dims, keepdim) : src.amax(dims, keepdim));
    }
    bump_out(out);
    return result;
  }
  reduce_into<bool, bool>(result, !out.defined(), src, mask, keepdim, LogicOp<kAll>{});
  bump_out(out);
  return result;
}

// ---- logsumexp ------------------------------------------------------------------------------

template <class = void>
Tensor logsumexp_impl(const Tensor& self, IntArrayRef dim, bool keepdim, const Tensor& out) {
  check_defined(self, "logsumexp");
  if (out.defined()) {
    TP_CHECK(is_floating_point(out.dtype()),
             "logsumexp(): Expected floating point type for result tensor, but got: ",
             scalar_type_name(out.dtype()));
  }
  const DimMask mask = make_dim_mask(dim, self.dim());
  // Integer inputs give the default floating dtype.
  const DType in_dtype = is_integral(self.dtype(), /*include_bool=*/true) ? kFloat : self.dtype();
  const DType out_dtype = out.defined() ? out.dtype() : in_dtype;
  Tensor result = reduction_result(out, self, mask, keepdim, out_dtype);
  if (result.numel() > 0 && !self.is_cpu()) {
    // Another device: composed of its amax, masked_fill, sub, exp, sum and log, with the CPU's
    // shift rule below.
    NoGradGuard no_grad;  // the front end records the graph
    const std::vector<int64_t> dims = mask_dims(mask, self.dim());
    const Tensor x = self.to(in_dtype);
    Tensor shift = self.numel() == 0 ? zeros(reduced_shape(self.sizes(), mask, true), x.options())
                                     : x.amax(dims, /*keepdim=*/true);
    shift = shift.masked_fill(shift.abs().eq(std::numeric_limits<double>::infinity()), 0);
    const Tensor r = x.sub(shift).exp().sum(dims, keepdim).log();
    copy_impl(result, r.add(keepdim ? shift : shift.reshape(r.sizes())));
  } else if (result.numel() > 0) {
    const Tensor src = to_compute(self, in_dtype, float_compute_dtype(in_dtype));
    const std::vector<int64_t> keep = reduced_shape(self.sizes(), mask, true);
    dispatch_dtype(src.dtype(), [&]<class T>() {
      if constexpr (kFloatType<T>) {
        // Shift by the maximum, with an infinite maximum taken as 0 (PyTorch's masked_fill):
        // a row of -inf gives -inf, a row holding +inf gives +inf, not NaN.
        Tensor shift = empty(keep, TensorOptions().dtype(dtype_of<T>));
        T* m = static_cast<T*>(shift.data_ptr());
        const MinMaxOp<T, true> max_op;
        std::fill_n(m, shift.numel(), max_op.identity());
        reduce_kernel<T, T>(shift, src, mask, max_op, Tensor());
        for (int64_t i = 0; i < shift.numel(); ++i)
          if (std::isinf(m[i]) || src.numel() == 0) m[i] = T(0);
        reduce_into<T, T>(
            result, !out.defined(), src, mask, keepdim, ExpShiftSumOp<T>{},
            [](T a, T s) { return std::log(a) + s; }, shift);
      }
    });
  }
  bump_out(out);
  return result;
}

// ---- cumsum, cumprod ------------------------------------------------------------------------

// What a scan accumulates in: PyTorch's CPU acc_type (double for float).
template <class T>
using scan_acc_t = std::conditional_t<std::is_same_v<T, float>, double, T>;

struct ScanLineArgs {
  int64_t length, in_stride, out_stride;
};

template <class T, bool kProd>
struct ScanLinesKernel {
  static constexpr bool kFullLoopOptimization = true;  // ops/cpu_capability.hpp
  template <CpuCapability>
  static void run(char** data, const int64_t* s, int64_t n, const void* args) {
    using A = scan_acc_t<T>;
    const auto& a = *static_cast<const ScanLineArgs*>(args);
    const int64_t length = a.length, in_stride = a.in_stride, out_stride = a.out_stride;
    const A id = kProd ? A(1) : A(0);
    auto step = [](A acc, A x) { return kProd ? acc * x : acc + x; };
    if (n > 1 && s[0] == int64_t(sizeof(T)) && s[1] == int64_t(sizeof(T))) {
      for (int64_t c = 0; c < n; c += kLineTile) {  // adjacent lines: tiles
        const int w = int(std::min<int64_t>(kLineTile, n - c));
        A acc[kLineTile];
        for (int i = 0; i < w; ++i) acc[i] = id;
        for (int64_t r = 0; r < length; ++r) {
          const T* x = reinterpret_cast<const T*>(data[1] + r * in_stride) + c;
          T* y = reinterpret_cast<T*>(data[0] + r * out_stride) + c;
          for (int i = 0; i < w; ++i) {
            acc[i] = step(acc[i], A(x[i]));
            y[i] = T(acc[i]);
          }
        }
      }
      return;
    }
    for (int64_t k = 0; k < n; ++k) {
      const char* x = data[1] + k * s[1];
      char* y = data[0] + k * s[0];
      A acc = id;
      for (int64_t r = 0; r < length; ++r) {
        acc = step(acc, A(*reinterpret_cast<const T*>(x + r * in_stride)));
        *reinterpret_cast<T*>(y + r * out_stride) = T(acc);
      }
    }
  }
};

template <class T, bool kProd>
void scan_lines(const Tensor& target, const Tensor& src, int64_t dim) {
  const Tensor in = as_line(src);
  const Tensor o = as_line(target);
  const int64_t length = in.size(dim);
  const ScanLineArgs args{length, in.stride(dim) * int64_t(sizeof(T)),
                          o.stride(dim) * int64_t(sizeof(T))};
  const TensorIterator iter =
      make_line_iterator({o}, in, dim, kProd ? "aten::cumprod" : "aten::cumsum");
  for_each_line_dispatched<ScanLinesKernel<T, kProd>, kDispatchedReduction<T>>(iter, length, args);
}

// result: the output (self itself for the in-place forms), already of the right shape and dtype.
template <bool kProd>
void scan_into(const Tensor& result, const Tensor& self, int64_t dim) {
  if (result.numel() == 0) return;
  const DType compute = compute_dtype(result.dtype());
  const Tensor src = to_compute(self, result.dtype(), compute);
  const Tensor target =
      result.dtype() == compute
          ? result
          : empty(self.sizes(), TensorOptions().dtype(compute).device(self.device()));
  if (!self.is_cpu()) {  // the device's kernel (ops/device_dispatch.hpp)
    call_device_kernel_as<ScanOp>(self.device().type(), kProd ? "aten::cumprod" : "aten::cumsum",
                                  target, src, dim, kProd);
  } else {
    dispatch_dtype(compute, [&]<class T>() {
      if constexpr (kComputeType<T>) scan_lines<T, kProd>(target, src, dim);
    });
  }
  if (!target.is_same(result)) copy_impl(result, target);
}

template <bool kProd>
Tensor scan_impl(const Tensor& self, int64_t dim, std::optional<DType> dtype, const Tensor& out) {
  check_defined(self, kProd ? "cumprod" : "cumsum");
  const int64_t d = maybe_wrap_dim(dim, self.dim());
  const DType out_dtype = sumlike_out_dtype(self, dtype, out);
  Tensor result;
  if (out.defined()) {
    check_out_dtype(out, out_dtype);
    TP_CHECK(out.device() == self.device(),
             "Expected all tensors to be on the same device, but found at least two devices, ",
             self.device(), " and ", out.device(), "!");
    resize_output(out, self.sizes());
    result = out;
  } else {
    result = empty(self.sizes(), TensorOptions().dtype(out_dtype).device(self.device()));
  }
  scan_into<kProd>(result, self, d);
  bump_out(out);
  return result;
}

template <bool kProd>
const Tensor& scan_inplace(const Tensor& self, int64_t dim, std::optional<DType> dtype) {
  check_defined(self, kProd ? "cumprod_" : "cumsum_");
  const int64_t d = maybe_wrap_dim(dim, self.dim());
  const DType out_dtype = dtype.value_or(self.dtype());
  TP_CHECK(out_dtype == self.dtype(), "Bad in-place call: input tensor dtype ",
           typemeta_name(self.dtype()), " and output tensor dtype ", typemeta_name(out_dtype),
           " should match");
  scan_into<kProd>(self, self, d);
  bump_out(self);
  return self;
}

// ---- recording --------------------------------------------------------------------------------

// A dimension argument wrapped for the node (0 for a 0-d tensor, which takes 0 and -1).
inline int64_t dim_or_zero(const Tensor& self, int64_t dim) {
  return self.dim() == 0 ? 0 : maybe_wrap_dim(dim, self.dim());
}

// amax / amin / max() / min() / logsumexp: the node saves self, the result, dim and keepdim
// (the gradient of the extrema goes to the ties).
template <class NodeT, class Compute>
Tensor amax_diff(const Tensor& self, IntArrayRef dim, bool keepdim, const Compute& compute) {
  return autograd::detail::differentiable<NodeT>(
      compute,
      [&](NodeT& fn, const Tensor& result) {
        fn.self_ = autograd::SavedVariable(self, false);
        fn.result_ = autograd::SavedVariable(result, true);
        fn.dim_ = dim.vec();
        fn.keepdim_ = keepdim;
      },
      self);
}

template <class = void>
Tensor var_diff(const Tensor& self, OptionalIntArrayRef dim, std::optional<int64_t> correction,
                bool keepdim, bool take_sqrt) {
  auto save = [&](auto& fn, const Tensor& result) {
    fn.self_ = autograd::SavedVariable(self, false);
    if (take_sqrt) fn.result_ = autograd::SavedVariable(result, true);
    if (dim) fn.dim_ = dim->vec();
    fn.correction_ = double(correction.value_or(1));
    fn.keepdim_ = keepdim;
  };
  auto compute = [&] { return var_impl(self, dim, correction, keepdim, take_sqrt, Tensor()); };
  if (take_sqrt)
    return autograd::detail::differentiable<autograd::StdBackward0>(compute, save, self);
  return autograd::detail::differentiable<autograd::VarBackward0>(compute, save, self);
}

// norm's four overloads record NormBackward0..3 (PyTorch numbers them by overload).
template <int kOverload>
Tensor norm_diff(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim,
                 std::optional<DType> dtype) {
  using NodeT = autograd::NormBackwardT<kOverload>;
  return autograd::detail::differentiable<NodeT>(
      [&] { return norm_impl(self, p, dim, keepdim, dtype, Tensor()); },
      [&](NodeT& fn, const Tensor& result) {
        fn.self_ = autograd::SavedVariable(self, false);
        fn.result_ = autograd::SavedVariable(result, true);
        fn.p_ = p ? p->toDouble() : 2.0;
        fn.dim_ = dim.vec();
        fn.keepdim_ = keepdim;
      },
      self);
}

}  // namespace detail::reduce_impl

// ==== free functions (libtorch's at:: / torch:: names) =======================================

// sum
template <class = void>
Tensor sum(const Tensor& self, std::optional<DType> dtype = std::nullopt) {
  return autograd::detail::differentiable<autograd::SumBackward0>(
      [&] { return detail::reduce_impl::sum_impl(self, std::nullopt, false, dtype, Tensor()); },
      [&](autograd::SumBackward0& fn, const Tensor&) { fn.self_sizes_ = self.sizes().vec(); },
      self);
}
template <class = void>
Tensor sum(const Tensor& self, IntArrayRef dim, bool keepdim = false,
           std::optional<DType> dtype = std::nullopt) {
  return autograd::detail::differentiable<autograd::SumBackward1>(
      [&] { return detail::reduce_impl::sum_impl(self, dim, keepdim, dtype, Tensor()); },
      [&](autograd::SumBackward1& fn, const Tensor&) {
        fn.self_sizes_ = self.sizes().vec();
        fn.dim_ = dim.vec();
        fn.keepdim_ = keepdim;
      },
      self);
}
template <class = void>
const Tensor& sum_out(const Tensor& out, const Tensor& self, IntArrayRef dim, bool keepdim = false,
                      std::optional<DType> dtype = std::nullopt) {
  detail::reduce_impl::check_defined(out, "sum_out");
  autograd::detail::check_out_no_grad("sum", self);
  detail::reduce_impl::sum_impl(self, dim, keepdim, dtype, out);
  return out;
}

// mean
template <class = void>
Tensor mean(const Tensor& self, std::optional<DType> dtype = std::nullopt) {
  return autograd::detail::differentiable<autograd::MeanBackward0>(
      [&] { return detail::reduce_impl::mean_impl(self, std::nullopt, false, dtype, Tensor()); },
      [&](autograd::MeanBackward0& fn, const Tensor&) { fn.self_sizes_ = self.sizes().vec(); },
      self);
}
template <class = void>
Tensor mean(const Tensor& self, IntArrayRef dim, bool keepdim = false,
            std::optional<DType> dtype = std::nullopt) {
  return autograd::detail::differentiable<autograd::MeanBackward1>(
      [&] { return detail::reduce_impl::mean_impl(self, dim, keepdim, dtype, Tensor()); },
      [&](autograd::MeanBackward1& fn, const Tensor&) {
        fn.self_sizes_ = self.sizes().vec();
        fn.dim_ = dim.vec();
        fn.keepdim_ = keepdim;
      },
      self);
}
template <class = void>
const Tensor& mean_out(const Tensor& out, const Tensor& self, IntArrayRef dim, bool keepdim = false,
                       std::optional<DType> dtype = std::nullopt) {
  detail::reduce_impl::check_defined(out, "mean_out");
  autograd::detail::check_out_no_grad("mean", self);
  detail::reduce_impl::mean_impl(self, dim, keepdim, dtype, out);
  return out;
}

// prod
template <class = void>
Tensor prod(const Tensor& self, std::optional<DType> dtype = std::nullopt) {
  return autograd::detail::differentiable<autograd::ProdBackward0>(
      [&] { return detail::reduce_impl::prod_impl(self, std::nullopt, false, dtype, Tensor()); },
      [&](autograd::ProdBackward0& fn, const Tensor& result) {
        fn.self_ = autograd::SavedVariable(self, false);
        fn.result_ = autograd::SavedVariable(result, true);
      },
      self);
}
template <class = void>
Tensor prod(const Tensor& self, int64_t dim, bool keepdim = false,
            std::optional<DType> dtype = std::nullopt) {
  return autograd::detail::differentiable<autograd::ProdBackward1>(
      [&] { return detail::reduce_impl::prod_impl(self, dim, keepdim, dtype, Tensor()); },
      [&](autograd::ProdBackward1& fn, const Tensor& result) {
        fn.self_ = autograd::SavedVariable(self, false);
        fn.result_ = autograd::SavedVariable(result, true);
        fn.dim_ = dim;
        fn.keepdim_ = keepdim;
      },
      self);
}
template <class = void>
const Tensor& prod_out(const Tensor& out, const Tensor& self, int64_t dim, bool keepdim = false,
                       std::optional<DType> dtype = std::nullopt) {
  detail::reduce_impl::check_defined(out, "prod_out");
  autograd::detail::check_out_no_grad("prod", self);
  detail::reduce_impl::prod_impl(self, dim, keepdim, dtype, out);
  return out;
}

// max, min
template <class = void>
Tensor max(const Tensor& self) {
  return detail::reduce_impl::amax_diff<autograd::MaxBackward1>(
      self, {}, false, [&] { return detail::reduce_impl::max_all_impl<true>(self); });
}
template <class = void>
Tensor min(const Tensor& self) {
  return detail::reduce_impl::amax_diff<autograd::MinBackward1>(
      self, {}, false, [&] { return detail::reduce_impl::max_all_impl<false>(self); });
}
template <class = void>
std::tuple<Tensor, Tensor> max(const Tensor& self, int64_t dim, bool keepdim = false) {
  return autograd::detail::record_selecting<autograd::MaxBackward0>(self, dim, keepdim, [&] {
    return detail::reduce_impl::minmax_dim_impl<true>(self, dim, keepdim, Tensor(), Tensor());
  });
}
template <class = void>
std::tuple<Tensor, Tensor> min(const Tensor& self, int64_t dim, bool keepdim = false) {
  return autograd::detail::record_selecting<autograd::MinBackward0>(self, dim, keepdim, [&] {
    return detail::reduce_impl::minmax_dim_impl<false>(self, dim, keepdim, Tensor(), Tensor());
  });
}
// libtorch's order: (values, indices) outputs first.
template <class = void>
std::tuple<const Tensor&, const Tensor&> max_out(const Tensor& max, const Tensor& max_values,
                                                 const Tensor& self, int64_t dim,
                                                 bool keepdim = false) {
  detail::reduce_impl::check_defined(max, "max_out");
  detail::reduce_impl::check_defined(max_values, "max_out");
  autograd::detail::check_out_no_grad("max", self);
  detail::reduce_impl::minmax_dim_impl<true>(self, dim, keepdim, max, max_values);
  return {max, max_values};
}
template <class = void>
std::tuple<const Tensor&, const Tensor&> min_out(const Tensor& min, const Tensor& min_indices,
                                                 const Tensor& self, int64_t dim,
                                                 bool keepdim = false) {
  detail::reduce_impl::check_defined(min, "min_out");
  detail::reduce_impl::check_defined(min_indices, "min_out");
  autograd::detail::check_out_no_grad("min", self);
  detail::reduce_impl::minmax_dim_impl<false>(self, dim, keepdim, min, min_indices);
  return {min, min_indices};
}

// amax, amin
template <class = void>
Tensor amax(const Tensor& self, IntArrayRef dim = {}, bool keepdim = false) {
  return detail::reduce_impl::amax_diff<autograd::AmaxBackward0>(self, dim, keepdim, [&] {
    return detail::reduce_impl::amax_impl<true>(self, dim, keepdim, Tensor());
  });
}
template <class = void>
Tensor amin(const Tensor& self, IntArrayRef dim = {}, bool keepdim = false) {
  return detail::reduce_impl::amax_diff<autograd::AminBackward0>(self, dim, keepdim, [&] {
    return detail::reduce_impl::amax_impl<false>(self, dim, keepdim, Tensor());
  });
}
template <class = void>
const Tensor& amax_out(const Tensor& out, const Tensor& self, IntArrayRef dim = {},
                       bool keepdim = false) {
  detail::reduce_impl::check_defined(out, "amax_out");
  autograd::detail::check_out_no_grad("amax", self);
  detail::reduce_impl::amax_impl<true>(self, dim, keepdim, out);
  return out;
}
template <class = void>
const Tensor& amin_out(const Tensor& out, const Tensor& self, IntArrayRef dim = {},
                       bool keepdim = false) {
  detail::reduce_impl::check_defined(out, "amin_out");
  autograd::detail::check_out_no_grad("amin", self);
  detail::reduce_impl::amax_impl<false>(self, dim, keepdim, out);
  return out;
}

// argmax, argmin
template <class = void>
Tensor argmax(const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false) {
  return detail::reduce_impl::argmax_impl<true>(self, dim, keepdim, Tensor());
}
template <class = void>
Tensor argmin(const Tensor& self, std::optional<int64_t> dim = std::nullopt, bool keepdim = false) {
  return detail::reduce_impl::argmax_impl<false>(self, dim, keepdim, Tensor());
}
template <class = void>
const Tensor& argmax_out(const Tensor& out, const Tensor& self,
                         std::optional<int64_t> dim = std::nullopt, bool keepdim = false) {
  detail::reduce_impl::check_defined(out, "argmax_out");
  detail::reduce_impl::argmax_impl<true>(self, dim, keepdim, out);
  return out;
}
template <class = void>
const Tensor& argmin_out(const Tensor& out, const Tensor& self,
                         std::optional<int64_t> dim = std::nullopt, bool keepdim = false) {
  detail::reduce_impl::check_defined(out, "argmin_out");
  detail::reduce_impl::argmax_impl<false>(self, dim, keepdim, out);
  return out;
}

// var, std: libtorch 1.13's three overloads each (unbiased all, unbiased dims, correction),
// their out= forms and var_mean / std_mean (which return (var or std, mean)). As in libtorch,
// `var(t, 1)` and `var(t, {1})` pick the `bool unbiased` overload (a standard conversion beats a
// user-defined one); a dimension is written `var(t, IntArrayRef{1})` or `var(t, {0, 1})`.

namespace detail::reduce_impl {
// var_mean / std_mean. PyTorch records one VarMeanBackward0 / StdMeanBackward0 node; here, when
// recording, the two results carry the histories of var (std) and mean, whose gradients add up
// to the same thing.
template <class = void>
std::tuple<Tensor, Tensor> var_mean_diff(const Tensor& self, OptionalIntArrayRef dim,
                                         std::optional<int64_t> correction, bool keepdim,
                                         bool take_sqrt) {
  if (!autograd::detail::any_requires_grad(self)) {
    return var_mean_impl(self, dim, correction, keepdim, take_sqrt);
  }
  Tensor m = dim ? tensorplay::mean(self, *dim, keepdim) : tensorplay::mean(self);
  return {var_diff(self, dim, correction, keepdim, take_sqrt), m};
}
}  // namespace detail::reduce_impl

// var
template <class = void>
Tensor var(const Tensor& self, bool unbiased = true) {
  return detail::reduce_impl::var_diff(self, std::nullopt, unbiased ? 1 : 0, false, false);
}
template <class = void>
Tensor var(const Tensor& self, IntArrayRef dim, bool unbiased = true, bool keepdim = false) {
  return detail::reduce_impl::var_diff(self, dim, unbiased ? 1 : 0, keepdim, false);
}
template <class = void>
Tensor var(const Tensor& self, IntArrayRef dim, std::optional<int64_t> correction,
           bool keepdim = false) {
  return detail::reduce_impl::var_diff(self, dim, correction, keepdim, false);
}
template <class = void>
const Tensor& var_out(const Tensor& out, const Tensor& self, IntArrayRef dim, bool unbiased = true,
                      bool keepdim = false) {
  detail::reduce_impl::check_defined(out, "var_out");
  autograd::detail::check_out_no_grad("var", self);
  detail::reduce_impl::var_impl(self, dim, unbiased ? 1 : 0, keepdim, false, out);
  return out;
}
template <class = void>
const Tensor& var_out(const Tensor& out, const Tensor& self, IntArrayRef dim,
                      std::optional<int64_t> correction, bool keepdim = false) {
  detail::reduce_impl::check_defined(out, "var_out");
  autograd::detail::check_out_no_grad("var", self);
  detail::reduce_impl::var_impl(self, dim, correction, keepdim, false, out);
  return out;
}
template <class = void>
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, bool unbiased = true) {
  return detail::reduce_impl::var_mean_diff(self, std::nullopt, unbiased ? 1 : 0, false, false);
}
template <class = void>
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, IntArrayRef dim, bool unbiased = true,
                                    bool keepdim = false) {
  return detail::reduce_impl::var_mean_diff(self, dim, unbiased ? 1 : 0, keepdim, false);
}
template <class = void>
std::tuple<Tensor, Tensor> var_mean(const Tensor& self, IntArrayRef dim,
                                    std::optional<int64_t> correction, bool keepdim = false) {
  return detail::reduce_impl::var_mean_diff(self, dim, correction, keepdim, false);
}

// std (the square root of var)
template <class = void>
Tensor std(const Tensor& self, bool unbiased = true) {
  return detail::reduce_impl::var_diff(self, std::nullopt, unbiased ? 1 : 0, false, true);
}
template <class = void>
Tensor std(const Tensor& self, IntArrayRef dim, bool unbiased = true, bool keepdim = false) {
  return detail::reduce_impl::var_diff(self, dim, unbiased ? 1 : 0, keepdim, true);
}
template <class = void>
Tensor std(const Tensor& self, IntArrayRef dim, std::optional<int64_t> correction,
           bool keepdim = false) {
  return detail::reduce_impl::var_diff(self, dim, correction, keepdim, true);
}
template <class = void>
const Tensor& std_out(const Tensor& out, const Tensor& self, IntArrayRef dim, bool unbiased = true,
                      bool keepdim = false) {
  detail::reduce_impl::check_defined(out, "std_out");
  autograd::detail::check_out_no_grad("std", self);
  detail::reduce_impl::var_impl(self, dim, unbiased ? 1 : 0, keepdim, true, out);
  return out;
}
template <class = void>
const Tensor& std_out(const Tensor& out, const Tensor& self, IntArrayRef dim,
                      std::optional<int64_t> correction, bool keepdim = false) {
  detail::reduce_impl::check_defined(out, "std_out");
  autograd::detail::check_out_no_grad("std", self);
  detail::reduce_impl::var_impl(self, dim, correction, keepdim, true, out);
  return out;
}
template <class = void>
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, bool unbiased = true) {
  return detail::reduce_impl::var_mean_diff(self, std::nullopt, unbiased ? 1 : 0, false, true);
}
template <class = void>
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, IntArrayRef dim, bool unbiased = true,
                                    bool keepdim = false) {
  return detail::reduce_impl::var_mean_diff(self, dim, unbiased ? 1 : 0, keepdim, true);
}
template <class = void>
std::tuple<Tensor, Tensor> std_mean(const Tensor& self, IntArrayRef dim,
                                    std::optional<int64_t> correction, bool keepdim = false) {
  return detail::reduce_impl::var_mean_diff(self, dim, correction, keepdim, true);
}

// norm
template <class = void>
Tensor norm(const Tensor& self, const Scalar& p = 2) {
  return detail::reduce_impl::norm_diff<0>(self, p, {}, false, std::nullopt);
}
template <class = void>
Tensor norm(const Tensor& self, const std::optional<Scalar>& p, DType dtype) {
  return detail::reduce_impl::norm_diff<2>(self, p, {}, false, dtype);
}
template <class = void>
Tensor norm(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim,
            bool keepdim = false) {
  return detail::reduce_impl::norm_diff<1>(self, p, dim, keepdim, std::nullopt);
}
template <class = void>
Tensor norm(const Tensor& self, const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim,
            DType dtype) {
  return detail::reduce_impl::norm_diff<3>(self, p, dim, keepdim, dtype);
}
template <class = void>
const Tensor& norm_out(const Tensor& out, const Tensor& self, const std::optional<Scalar>& p,
                       IntArrayRef dim, bool keepdim = false) {
  detail::reduce_impl::check_defined(out, "norm_out");
  autograd::detail::check_out_no_grad("norm", self);
  detail::reduce_impl::norm_impl(self, p, dim, keepdim, std::nullopt, out);
  return out;
}
template <class = void>
const Tensor& norm_out(const Tensor& out, const Tensor& self, const std::optional<Scalar>& p,
                       IntArrayRef dim, bool keepdim, DType dtype) {
  detail::reduce_impl::check_defined(out, "norm_out");
  autograd::detail::check_out_no_grad("norm", self);
  detail::reduce_impl::norm_impl(self, p, dim, keepdim, dtype, out);
  return out;
}

// all, any
template <class = void>
Tensor all(const Tensor& self) {
  return detail::reduce_impl::all_impl<true>(self, std::nullopt, false, Tensor());
}
template <class = void>
Tensor all(const Tensor& self, int64_t dim, bool keepdim = false) {
  return detail::reduce_impl::all_impl<true>(self, dim, keepdim, Tensor());
}
template <class = void>
const Tensor& all_out(const Tensor& out, const Tensor& self, int64_t dim, bool keepdim = false) {
  detail::reduce_impl::check_defined(out, "all_out");
  detail::reduce_impl::all_impl<true>(self, dim, keepdim, out);
  return out;
}
template <class = void>
Tensor any(const Tensor& self) {
  return detail::reduce_impl::all_impl<false>(self, std::nullopt, false, Tensor());
}
template <class = void>
Tensor any(const Tensor& self, int64_t dim, bool keepdim = false) {
  return detail::reduce_impl::all_impl<false>(self, dim, keepdim, Tensor());
}
template <class = void>
const Tensor& any_out(const Tensor& out, const Tensor& self, int64_t dim, bool keepdim = false) {
  detail::reduce_impl::check_defined(out, "any_out");
  detail::reduce_impl::all_impl<false>(self, dim, keepdim, out);
  return out;
}

// logsumexp
template <class = void>
Tensor logsumexp(const Tensor& self, IntArrayRef dim, bool keepdim = false) {
  return detail::reduce_impl::amax_diff<autograd::LogsumexpBackward0>(self, dim, keepdim, [&] {
    return detail::reduce_impl::logsumexp_impl(self, dim, keepdim, Tensor());
  });
}
template <class = void>
const Tensor& logsumexp_out(const Tensor& out, const Tensor& self, IntArrayRef dim,
                            bool keepdim = false) {
  detail::reduce_impl::check_defined(out, "logsumexp_out");
  autograd::detail::check_out_no_grad("logsumexp", self);
  detail::reduce_impl::logsumexp_impl(self, dim, keepdim, out);
  return out;
}

// cumsum, cumprod
template <class = void>
Tensor cumsum(const Tensor& self, int64_t dim, std::optional<DType> dtype = std::nullopt) {
  return autograd::detail::differentiable<autograd::CumsumBackward0>(
      [&] { return detail::reduce_impl::scan_impl<false>(self, dim, dtype, Tensor()); },
      [&](autograd::CumsumBackward0& fn, const Tensor&) {
        fn.dim_ = self.dim() == 0 ? 0 : maybe_wrap_dim(dim, self.dim());
      },
      self);
}
template <class = void>
const Tensor& cumsum_out(const Tensor& out, const Tensor& self, int64_t dim,
                         std::optional<DType> dtype = std::nullopt) {
  detail::reduce_impl::check_defined(out, "cumsum_out");
  autograd::detail::check_out_no_grad("cumsum", self);
  detail::reduce_impl::scan_impl<false>(self, dim, dtype, out);
  return out;
}
template <class = void>
Tensor cumprod(const Tensor& self, int64_t dim, std::optional<DType> dtype = std::nullopt) {
  return autograd::detail::differentiable<autograd::CumprodBackward0>(
      [&] { return detail::reduce_impl::scan_impl<true>(self, dim, dtype, Tensor()); },
      [&](autograd::CumprodBackward0& fn, const Tensor& result) {
        fn.self_ = autograd::SavedVariable(self, false);
        fn.result_ = autograd::SavedVariable(result, true);
        fn.dim_ = self.dim() == 0 ? 0 : maybe_wrap_dim(dim, self.dim());
      },
      self);
}
template <class = void>
const Tensor& cumprod_out(const Tensor& out, const Tensor& self, int64_t dim,
                          std::optional<DType> dtype = std::nullopt) {
  detail::reduce_impl::check_defined(out, "cumprod_out");
  autograd::detail::check_out_no_grad("cumprod", self);
  detail::reduce_impl::scan_impl<true>(self, dim, dtype, out);
  return out;
}

// ==== Tensor methods (declared in core/tensor.hpp) ===========================================

template <class>
Tensor Tensor::sum(std::optional<DType> dtype) const {
  return tensorplay::sum(*this, dtype);
}
template <class>
Tensor Tensor::sum(IntArrayRef dim, bool keepdim, std::optional<DType> dtype) const {
  return tensorplay::sum(*this, dim, keepdim, dtype);
}
template <class>
Tensor Tensor::sum_to_size(IntArrayRef size) const {
  // libtorch's sum_to: the leading dimensions summed away, those of size 1 in `size` summed
  // with keepdim; `size` must be expandable to this tensor's shape.
  const IntArrayRef shape = sizes();
  bool expandable = size.size() <= shape.size();
  for (std::size_t i = 1; expandable && i <= size.size(); ++i) {
    const int64_t s = size[size.size() - i], t = shape[shape.size() - i];
    expandable = s == t || s == 1;
  }
  TP_CHECK(expandable, "size {", size, "} is not expandable to size {", shape, "}.");
  if (shape == size) return *this;
  const int64_t lead = dim() - static_cast<int64_t>(size.size());
  std::vector<int64_t> dims;
  for (int64_t d = 0; d < lead; ++d) dims.push_back(d);
  for (int64_t d = lead; d < dim(); ++d) {
    if (size[static_cast<std::size_t>(d - lead)] == 1 && shape[static_cast<std::size_t>(d)] != 1)
      dims.push_back(d);
  }
  Tensor r = dims.empty() ? *this : this->sum(dims, /*keepdim=*/true);
  return lead > 0 ? r.view(size) : r;
}
template <class>
Tensor Tensor::mean(std::optional<DType> dtype) const {
  return tensorplay::mean(*this, dtype);
}
template <class>
Tensor Tensor::mean(IntArrayRef dim, bool keepdim, std::optional<DType> dtype) const {
  return tensorplay::mean(*this, dim, keepdim, dtype);
}
template <class>
Tensor Tensor::prod(std::optional<DType> dtype) const {
  return tensorplay::prod(*this, dtype);
}
template <class>
Tensor Tensor::prod(int64_t dim, bool keepdim, std::optional<DType> dtype) const {
  return tensorplay::prod(*this, dim, keepdim, dtype);
}
template <class>
Tensor Tensor::max() const {
  return tensorplay::max(*this);
}
template <class>
Tensor Tensor::min() const {
  return tensorplay::min(*this);
}
template <class>
std::tuple<Tensor, Tensor> Tensor::max(int64_t dim, bool keepdim) const {
  return tensorplay::max(*this, dim, keepdim);
}
template <class>
std::tuple<Tensor, Tensor> Tensor::min(int64_t dim, bool keepdim) const {
  return tensorplay::min(*this, dim, keepdim);
}
template <class>
Tensor Tensor::amax(IntArrayRef dim, bool keepdim) const {
  return tensorplay::amax(*this, dim, keepdim);
}
template <class>
Tensor Tensor::amin(IntArrayRef dim, bool keepdim) const {
  return tensorplay::amin(*this, dim, keepdim);
}
template <class>
Tensor Tensor::argmax(std::optional<int64_t> dim, bool keepdim) const {
  return tensorplay::argmax(*this, dim, keepdim);
}
template <class>
Tensor Tensor::argmin(std::optional<int64_t> dim, bool keepdim) const {
  return tensorplay::argmin(*this, dim, keepdim);
}
template <class>
Tensor Tensor::var(bool unbiased) const {
  return tensorplay::var(*this, unbiased);
}
template <class>
Tensor Tensor::var(IntArrayRef dim, bool unbiased, bool keepdim) const {
  return tensorplay::var(*this, dim, unbiased, keepdim);
}
template <class>
Tensor Tensor::var(IntArrayRef dim, std::optional<int64_t> correction, bool keepdim) const {
  return tensorplay::var(*this, dim, correction, keepdim);
}
template <class>
Tensor Tensor::std(bool unbiased) const {
  return tensorplay::std(*this, unbiased);
}
template <class>
Tensor Tensor::std(IntArrayRef dim, bool unbiased, bool keepdim) const {
  return tensorplay::std(*this, dim, unbiased, keepdim);
}
template <class>
Tensor Tensor::std(IntArrayRef dim, std::optional<int64_t> correction, bool keepdim) const {
  return tensorplay::std(*this, dim, correction, keepdim);
}
template <class>
Tensor Tensor::norm(const Scalar& p) const {
  return tensorplay::norm(*this, p);
}
template <class>
Tensor Tensor::norm(const std::optional<Scalar>& p, DType dtype) const {
  return tensorplay::norm(*this, p, dtype);
}
template <class>
Tensor Tensor::norm(const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim) const {
  return tensorplay::norm(*this, p, dim, keepdim);
}
template <class>
Tensor Tensor::norm(const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim,
                    DType dtype) const {
  return tensorplay::norm(*this, p, dim, keepdim, dtype);
}
template <class>
Tensor Tensor::all() const {
  return tensorplay::all(*this);
}
template <class>
Tensor Tensor::all(int64_t dim, bool keepdim) const {
  return tensorplay::all(*this, dim, keepdim);
}
template <class>
Tensor Tensor::any() const {
  return tensorplay::any(*this);
}
template <class>
Tensor Tensor::any(int64_t dim, bool keepdim) const {
  return tensorplay::any(*this, dim, keepdim);
}
template <class>
Tensor Tensor::logsumexp(IntArrayRef dim, bool keepdim) const {
  return tensorplay::logsumexp(*this, dim, keepdim);
}
template <class>
Tensor Tensor::cumsum(int64_t dim, std::optional<DType> dtype) const {
  return tensorplay::cumsum(*this, dim, dtype);
}
template <class>
const Tensor& Tensor::cumsum_(int64_t dim, std::optional<DType> dtype) const {
  const int64_t d = detail::reduce_impl::dim_or_zero(*this, dim);
  return autograd::detail::differentiable_inplace<autograd::CumsumBackward0>(
      *this, [&] { detail::reduce_impl::scan_inplace<false>(*this, dim, dtype); },
      [&](autograd::CumsumBackward0& fn) { fn.dim_ = d; }, autograd::detail::kSaveNothing);
}
template <class>
Tensor Tensor::cumprod(int64_t dim, std::optional<DType> dtype) const {
  return tensorplay::cumprod(*this, dim, dtype);
}
template <class>
const Tensor& Tensor::cumprod_(int64_t dim, std::optional<DType> dtype) const {
  const int64_t d = detail::reduce_impl::dim_or_zero(*this, dim);
  return autograd::detail::differentiable_inplace<autograd::CumprodBackward0>(
      *this, [&] { detail::reduce_impl::scan_inplace<true>(*this, dim, dtype); },
      [&](autograd::CumprodBackward0& fn) {
        fn.self_ = autograd::SavedVariable(clone(), false);
        fn.dim_ = d;
      },
      [&](autograd::CumprodBackward0& fn) { fn.result_ = autograd::SavedVariable(*this, true); });
}

}  // namespace tensorplay

// Last, after every definition above: scatter_add, which the selecting ops' gradients use
// (value_selecting_backward); it includes headers that include this one.
#include <tensorplay/ops/scatter_gather.hpp>
