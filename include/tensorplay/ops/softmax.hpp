// softmax and log_softmax along one dimension (libtorch's at::softmax / at::log_softmax, their
// `*_out` forms and the Tensor methods), on the line machinery of ops/reduce.hpp.
//
// Stable: each line is shifted by its maximum before exp, so large inputs do not overflow, and
// log_softmax is x - max - log(sum exp(x - max)) rather than the log of a rounded quotient. A
// line holding NaN gives NaN throughout, and a line of -inf gives NaN (0/0), as PyTorch. Float
// computes in float, double in double, Half and BFloat16 in float (rounded once; PyTorch 1.13's
// CPU kernels refuse Half, which we take). Integer and bool inputs are refused as PyTorch's CPU
// kernels refuse them, unless dtype= asks for a floating dtype (the input is converted first);
// an empty input of any dtype is returned empty before any kernel looks at it, as PyTorch does.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>

#include <tensorplay/autograd/functions/reduce.hpp>
#include <tensorplay/ops/reduce.hpp>

namespace tensorplay {
namespace detail::reduce_impl {

// T: float or double (Half and BFloat16 are converted to float by the caller). Per line: the
// maximum, the sum of exp(x - max) (both cascaded lane reductions, the same kernels as amax and
// logsumexp), then one write per element: exp(x - max) / sum, or (x - max) - log(sum) (x - max is
// exact; rounding max + log(sum) near a large max would not be). The exponentials are computed
// twice rather than parked in the output, which keeps an output that aliases the input correct;
// the vectorised exp makes that cheap.
//
// The lines of one block of the line iterator, as a line kernel of the CPU dispatch
// (for_each_line_dispatched: compiled for each level, the variant picked once per call).
struct SoftmaxShape {
  int64_t length;      // elements per line
  int64_t in_stride;   // bytes between a line's elements, input
  int64_t out_stride;  // ... and output
};
template <class T, bool kLog>
struct SoftmaxBlockKernel {
  static constexpr bool kFullLoopOptimization = true;  // ops/cpu_capability.hpp
  template <CpuCapability>
  static void run(char** data, const int64_t* s, int64_t n, const void* args) {
    const SoftmaxShape* shape = static_cast<const SoftmaxShape*>(args);
    const int64_t length = shape->length;
    const int64_t in_stride = shape->in_stride, out_stride = shape->out_stride;
    constexpr T kNegInf = -std::numeric_limits<T>::infinity();
    const MinMaxOp<T, true> max_op;
    const ExpShiftSumOp<T> sum_op;
    // y[r] = f(x[r]) over one line, as a plain loop when both are contiguous (it vectorises).
    auto write_line = [&](const char* x, char* y, auto f) {
      if (in_stride == int64_t(sizeof(T)) && out_stride == int64_t(sizeof(T))) {
        const T* xs = reinterpret_cast<const T*>(x);
        T* ys = reinterpret_cast<T*>(y);
        for (int64_t r = 0; r < length; ++r) ys[r] = f(xs[r]);
      } else {
        for (int64_t r = 0; r < length; ++r) {
          *reinterpret_cast<T*>(y + r * out_stride) =
              f(*reinterpret_cast<const T*>(x + r * in_stride));
        }
      }
    };
    if (n > 1 && s[0] == int64_t(sizeof(T)) && s[1] == int64_t(sizeof(T))) {
      // Adjacent lines (softmax over a dim that is not the innermost): tiles of lines, each pass
      // vectorised across them.
      for (int64_t c = 0; c < n; c += kLineTile) {
        const int w = int(std::min<int64_t>(kLineTile, n - c));
        const char* x = data[1] + c * int64_t(sizeof(T));
        char* y = data[0] + c * int64_t(sizeof(T));
        auto row = [&](int64_t r) { return reinterpret_cast<const T*>(x + r * in_stride); };
        T mx[kLineTile], sum[kLineTile];
        for (int i = 0; i < w; ++i) mx[i] = kNegInf, sum[i] = T(0);
        for (int64_t r = 0; r < length; ++r) {
          const T* v = row(r);
          for (int i = 0; i < w; ++i) mx[i] = max_op.combine(mx[i], v[i]);
        }
        for (int64_t r = 0; r < length; ++r) {
          const T* v = row(r);
          for (int i = 0; i < w; ++i) sum[i] += reduce_exp(v[i] - mx[i]);
        }
        for (int i = 0; i < w; ++i) sum[i] = kLog ? std::log(sum[i]) : T(1) / sum[i];
        for (int64_t r = 0; r < length; ++r) {
          const T* v = row(r);
          T* out = reinterpret_cast<T*>(y + r * out_stride);
          for (int i = 0; i < w; ++i) {
            out[i] = kLog ? (v[i] - mx[i]) - sum[i] : reduce_exp(v[i] - mx[i]) * sum[i];
          }
        }
      }
      return;
    }
    for (int64_t k = 0; k < n; ++k) {
      const char* x = data[1] + k * s[1];
      char* y = data[0] + k * s[0];
      const Strided<T> line{x, in_stride};
      const T mx = cascade_reduce<T, T>(line, length, max_op, T(0));
      const T sum = cascade_reduce<T, T>(line, length, sum_op, mx);
      if constexpr (kLog) {
        const T log_sum = std::log(sum);
        write_line(x, y, [&](T v) { return (v - mx) - log_sum; });
      } else {
        const T inv = T(1) / sum;
        write_line(x, y, [&](T v) { return reduce_exp(v - mx) * inv; });
      }
    }
  }
};

template <class T, bool kLog>
void softmax_lines(const Tensor& result, const Tensor& self, int64_t dim) {
  const Tensor in = as_line(self);
  const Tensor o = as_line(result);
  const SoftmaxShape shape{in.size(dim), in.stride(dim) * int64_t(sizeof(T)),
                           o.stride(dim) * int64_t(sizeof(T))};
  const TensorIterator iter = make_line_iterator({o}, in, dim);
  for_each_line_dispatched<SoftmaxBlockKernel<T, kLog>, kDispatchedTypes<T>>(iter, shape.length, shape);
}

template <bool kLog>
Tensor softmax_impl(const Tensor& self, int64_t dim, std::optional<DType> dtype,
                    const Tensor& out) {
  check_defined(self, kLog ? "log_softmax" : "softmax");
  const Tensor src = dtype && *dtype != self.dtype() ? self.to(*dtype) : self;
  const int64_t d = maybe_wrap_dim(dim, src.dim());
  const bool lastdim = d == std::max<int64_t>(src.dim(), 1) - 1;
  // PyTorch's CPU kernels dispatch on floating types, after returning early for an empty input;
  // the message names the kernel (log_softmax's non-last-dim kernel calls itself
  // "softmax_kernel_impl").
  TP_CHECK_NOT_IMPLEMENTED(is_floating_point(src.dtype()) || src.numel() == 0, "\"",
                           kLog && lastdim ? "log_" : "",
                           lastdim ? "softmax_lastdim_kernel_impl" : "softmax_kernel_impl",
                           "\" not implemented for '", scalar_type_name(src.dtype()), "'");
  Tensor result;
  if (out.defined()) {
    check_out_dtype(out, src.dtype());
    resize_output(out, src.sizes());
    result = out;
  } else {
    result = empty(src.sizes(), src.options());
  }
  if (result.numel() > 0) {
    // Half and BFloat16 compute in float: converted in, computed, rounded once on the way out.
    const DType compute = float_compute_dtype(src.dtype());
    const Tensor in = src.dtype() == compute ? src : src.to(compute);
    const Tensor target =
        result.dtype() == compute ? result : empty(src.sizes(), src.options().dtype(compute));
    if (!in.is_cpu()) {
      call_device_kernel_as<SoftmaxOp>(in.device().type(),
                                       kLog ? "aten::_log_softmax" : "aten::_softmax", target, in,
                                       d, kLog);
    } else {
      dispatch_dtype(compute, [&]<class T>() {
        if constexpr (kFloatType<T>) softmax_lines<T, kLog>(target, in, d);
      });
    }
    if (!target.is_same(result)) copy_impl(result, target);
  }
  bump_out(out);
  return result;
}

}  // namespace detail::reduce_impl

template <class = void>
Tensor softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype = std::nullopt) {
  return autograd::detail::differentiable<autograd::SoftmaxBackward0>(
      [&] { return detail::reduce_impl::softmax_impl<false>(self, dim, dtype, Tensor()); },
      [&](autograd::SoftmaxBackward0& fn, const Tensor& result) {
        fn.result_ = autograd::SavedVariable(result, true);
        fn.dim_ = self.dim() == 0 ? 0 : maybe_wrap_dim(dim, self.dim());
      },
      self);
}
template <class = void>
Tensor log_softmax(const Tensor& self, int64_t dim, std::optional<DType> dtype = std::nullopt) {
  return autograd::detail::differentiable<autograd::LogSoftmaxBackward0>(
      [&] { return detail::reduce_impl::softmax_impl<true>(self, dim, dtype, Tensor()); },
      [&](autograd::LogSoftmaxBackward0& fn, const Tensor& result) {
        fn.result_ = autograd::SavedVariable(result, true);
        fn.dim_ = self.dim() == 0 ? 0 : maybe_wrap_dim(dim, self.dim());
      },
      self);
}
template <class = void>
const Tensor& softmax_out(const Tensor& out, const Tensor& self, int64_t dim,
                          std::optional<DType> dtype = std::nullopt) {
  detail::reduce_impl::check_defined(out, "softmax_out");
  autograd::detail::check_out_no_grad("_softmax", self);
  detail::reduce_impl::softmax_impl<false>(self, dim, dtype, out);
  return out;
}
template <class = void>
const Tensor& log_softmax_out(const Tensor& out, const Tensor& self, int64_t dim,
                              std::optional<DType> dtype = std::nullopt) {
  detail::reduce_impl::check_defined(out, "log_softmax_out");
  autograd::detail::check_out_no_grad("_log_softmax", self);
  detail::reduce_impl::softmax_impl<true>(self, dim, dtype, out);
  return out;
}

template <class>
Tensor Tensor::softmax(int64_t dim, std::optional<DType> dtype) const {
  return tensorplay::softmax(*this, dim, dtype);
}
template <class>
Tensor Tensor::log_softmax(int64_t dim, std::optional<DType> dtype) const {
  return tensorplay::log_softmax(*this, dim, dtype);
}

}  // namespace tensorplay
