// Normalisation: ATen's native_layer_norm, native_group_norm and native_batch_norm (each
// returning the output and the statistics its backward reuses, and recording
// NativeLayerNormBackward0 / NativeGroupNormBackward0 / NativeBatchNormBackward0 with a
// closed-form backward, autograd/functions/nn.hpp), the composites layer_norm, group_norm,
// batch_norm and instance_norm (which PyTorch builds from batch_norm over a [1, N*C, ...] view),
// and tensorplay::nn::functional's forms with libtorch's option structs.
//
// Statistics are biased (divide by the count) for normalising, and batch_norm's running variance
// takes the unbiased batch variance, as PyTorch. Float and double compute in their own type, Half
// and BFloat16 in float (the output has the input's dtype; the statistics stay in float).
// layer_norm runs a fused row kernel forward and backward (ops/layer_norm_kernel.hpp) on the
// CPU; the others, and layer_norm on other devices, run the library's reductions and
// elementwise ops with recording off.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <cstdint>
#include <tuple>
#include <vector>

#include <tensorplay/autograd/functions/nn.hpp>
#include <tensorplay/autograd/record.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/grad_mode.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/nn/functional/options.hpp>
#include <tensorplay/ops/binary.hpp>
#include <tensorplay/ops/factories.hpp>
#include <tensorplay/ops/layer_norm_kernel.hpp>
#include <tensorplay/ops/reduce.hpp>
#include <tensorplay/ops/unary.hpp>
#include <tensorplay/ops/views.hpp>

namespace tensorplay {
namespace detail {

// Floating inputs only; the message names PyTorch's kernel.
template <class = void>
void check_norm_dtype(const Tensor& input, const char* kernel) {
  TP_CHECK_NOT_IMPLEMENTED(is_floating_point(input.dtype()), "\"", kernel,
                           "\" not implemented for '", scalar_type_name(input.dtype()), "'");
}

// input converted to its compute dtype (float for Half and BFloat16).
template <class = void>
Tensor to_compute(const Tensor& input) {
  const DType c = input.dtype() == kDouble ? kDouble : kFloat;
  return input.dtype() == c ? input : input.to(c);
}

// x * weight + bias over `shape` (each optional), the normalised x given.
template <class = void>
Tensor affine(const Tensor& x, const Tensor& weight, const Tensor& bias, IntArrayRef shape) {
  Tensor out = weight.defined() ? x.mul(weight.reshape(shape)) : x;
  return bias.defined() ? out.add(bias.reshape(shape)) : out;
}

// [1, C, 1, ...] for an input of `ndim` dims with C channels.
inline std::vector<int64_t> channel_shape(int64_t ndim, int64_t c) {
  std::vector<int64_t> s(static_cast<std::size_t>(ndim), 1);
  s[1] = c;
  return s;
}

template <class = void>
void check_layer_norm_inputs(const Tensor& input, IntArrayRef normalized_shape,
                             const Tensor& weight, const Tensor& bias) {
  const int64_t k = int64_t(normalized_shape.size());
  TP_CHECK(k >= 1,
           "Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
           "element, but got normalized_shape = ",
           normalized_shape);
  TP_CHECK(!weight.defined() || weight.sizes() == normalized_shape,
           "Expected weight to be of same shape as normalized_shape, but got weight of shape ",
           weight.sizes(), " and normalized_shape = ", normalized_shape);
  TP_CHECK(!bias.defined() || bias.sizes() == normalized_shape,
           "Expected bias to be of same shape as normalized_shape, but got bias of shape ",
           bias.sizes(), " and normalized_shape = ", normalized_shape);
  const IntArrayRef sizes = input.sizes();
  const int64_t n = input.dim();
  if (n < k || sizes.slice(std::size_t(n - k)) != normalized_shape) {
    std::string expected = "[*";
    for (int64_t s : normalized_shape) expected += ", " + std::to_string(s);
    TP_ERROR("Given normalized_shape=", normalized_shape, ", expected input with shape ", expected,
             "], but got input of size", sizes);
  }
}

}  // namespace detail

// ---- layer_norm ---------------------------------------------------------------------------------

// (output, mean, rstd): mean and rstd have the input's outer dims and size 1 in the normalised
// ones.
template <class = void>
std::tuple<Tensor, Tensor, Tensor> native_layer_norm(const Tensor& input,
                                                     IntArrayRef normalized_shape,
                                                     const Tensor& weight, const Tensor& bias,
                                                     double eps) {
  detail::check_layer_norm_inputs(input, normalized_shape, weight, bias);
  detail::check_norm_dtype(input, "LayerNormKernelImpl");
  const int64_t k = int64_t(normalized_shape.size()), n = input.dim();
  Tensor mean, rstd;
  Tensor out = autograd::detail::differentiable<autograd::NativeLayerNormBackward0>(
      [&] {
        const Tensor x = detail::to_compute(input);
        if (!x.is_cpu()) {  // a device without the fused kernel: its own ops
          const std::vector<int64_t> row = autograd::detail::dims_from(n - k, n);
          mean = x.mean(row, true);
          rstd = x.var(row, std::optional<int64_t>(0), true).add(eps).rsqrt();
          std::vector<int64_t> shape(static_cast<std::size_t>(n - k), 1);
          shape.insert(shape.end(), normalized_shape.begin(), normalized_shape.end());
          return detail::affine(x.sub(mean).mul(rstd), weight, bias, shape).to(input.dtype());
        }
        // The fused kernel over M rows of N (ops/layer_norm_kernel.hpp); the statistics keep
        // the input's outer dims and size 1 in the normalised ones.
        int64_t rows = 1, cols = 1;
        std::vector<int64_t> stat_shape;
        for (int64_t d = 0; d < n; ++d) {
          (d < n - k ? rows : cols) *= input.size(d);
          stat_shape.push_back(d < n - k ? input.size(d) : 1);
        }
        auto [y, mu, rs] = detail::layer_norm_impl::forward(x, weight, bias, rows, cols, eps);
        mean = mu.view(stat_shape);
        rstd = rs.view(stat_shape);
        return y.view(input.sizes()).to(input.dtype());
      },
      [&](autograd::NativeLayerNormBackward0& fn, const Tensor&) {
        fn.save(input, weight, mean, rstd, eps);
        fn.normalized_ndim_ = k;
      },
      input, weight, bias);
  return {out, mean, rstd};
}

template <class = void>
Tensor layer_norm(const Tensor& input, IntArrayRef normalized_shape, const Tensor& weight = {},
                  const Tensor& bias = {}, double eps = 1e-5, bool cudnn_enable = true) {
  (void)cudnn_enable;
  return std::get<0>(native_layer_norm(input, normalized_shape, weight, bias, eps));
}

// ---- group_norm ---------------------------------------------------------------------------------

// (output, mean, rstd), the statistics of shape [N, group]; input of shape [N, C, HxW...].
template <class = void>
std::tuple<Tensor, Tensor, Tensor> native_group_norm(const Tensor& input, const Tensor& weight,
                                                     const Tensor& bias, int64_t N, int64_t C,
                                                     int64_t HxW, int64_t group, double eps) {
  TP_CHECK(input.numel() == N * C * HxW, "Expected input to have ", N * C * HxW,
           " elements, but got ", input.numel());
  TP_CHECK(group > 0 && C % group == 0,
           "Expected number of channels in input to be divisible by num_groups, but got input of "
           "shape ",
           input.sizes(), " and num_groups=", group);
  TP_CHECK(!weight.defined() || (weight.dim() == 1 && weight.numel() == C),
           "Expected weight to be a vector of size equal to the number of channels in input, but "
           "got weight of shape ",
           weight.sizes(), " and input of shape ", input.sizes());
  TP_CHECK(!bias.defined() || (bias.dim() == 1 && bias.numel() == C),
           "Expected bias to be a vector of size equal to the number of channels in input, but "
           "got bias of shape ",
           bias.sizes(), " and input of shape ", input.sizes());
  detail::check_norm_dtype(input, "GroupNormKernelImpl");
  Tensor mean, rstd;
  Tensor out = autograd::detail::differentiable<autograd::NativeGroupNormBackward0>(
      [&] {
        const Tensor x = detail::to_compute(input).reshape({N, group, C / group * HxW});
        const std::vector<int64_t> last{2};
        mean = x.mean(last, false);
        rstd = x.var(last, std::optional<int64_t>(0), false).add(eps).rsqrt();
        const Tensor xhat = x.sub(mean.unsqueeze(2)).mul(rstd.unsqueeze(2)).reshape(input.sizes());
        return detail::affine(xhat, weight, bias, detail::channel_shape(input.dim(), C))
            .to(input.dtype());
      },
      [&](autograd::NativeGroupNormBackward0& fn, const Tensor&) {
        fn.save(input, weight, mean, rstd, eps);
        fn.group_ = group;
      },
      input, weight, bias);
  return {out, mean, rstd};
}

template <class = void>
Tensor group_norm(const Tensor& input, int64_t num_groups, const Tensor& weight = {},
                  const Tensor& bias = {}, double eps = 1e-5, bool cudnn_enabled = true) {
  (void)cudnn_enabled;
  const int64_t n = input.size(0), c = input.size(1);  // IndexError below 2 dims, as PyTorch
  int64_t hxw = 1;
  for (int64_t d = 2; d < input.dim(); ++d) hxw *= input.size(d);
  TP_CHECK(num_groups > 0 && c % num_groups == 0,
           "Expected number of channels in input to be divisible by num_groups, but got input of "
           "shape ",
           input.sizes(), " and num_groups=", num_groups);
  return std::get<0>(native_group_norm(input, weight, bias, n, c, hxw, num_groups, eps));
}

// ---- batch_norm ---------------------------------------------------------------------------------

// (output, save_mean, save_invstd). Training: normalised by the batch's statistics per channel
// (dim 1), which are returned, and the running statistics (when given) move towards them by
// `momentum`; evaluation: by the running statistics, and the two returned tensors are empty.
template <class = void>
std::tuple<Tensor, Tensor, Tensor> native_batch_norm(const Tensor& input, const Tensor& weight,
                                                     const Tensor& bias, const Tensor& running_mean,
                                                     const Tensor& running_var, bool training,
                                                     double momentum, double eps) {
  const int64_t c = input.dim() > 1 ? input.size(1) : 0;
  const auto check_numel = [&](const Tensor& t, const char* name) {
    TP_CHECK(!t.defined() || t.numel() == c, name, " should contain ", c, " elements not ",
             t.numel());
  };
  check_numel(weight, "weight");
  check_numel(bias, "bias");
  if (!training) {
    TP_CHECK(running_mean.defined(), "running_mean must be defined in evaluation mode");
    TP_CHECK(running_var.defined(), "running_var must be defined in evaluation mode");
  }
  check_numel(running_mean, "running_mean");
  check_numel(running_var, "running_var");
  detail::check_norm_dtype(input, "batch_norm");
  const std::vector<int64_t> axes = autograd::detail::dims_except(input.dim(), 1);
  const std::vector<int64_t> channel = detail::channel_shape(input.dim(), c);
  Tensor mean, invstd;
  Tensor out = autograd::detail::differentiable<autograd::NativeBatchNormBackward0>(
      [&] {
        const Tensor x = detail::to_compute(input);
        if (training) {
          mean = x.mean(axes, false);
          const Tensor var = x.var(axes, std::optional<int64_t>(0), false);
          invstd = var.add(eps).rsqrt();
          const int64_t count = c == 0 ? 0 : input.numel() / c;
          if (count > 0) {
            // (1 - momentum) * running + momentum * batch, with the unbiased batch variance.
            const double unbias = count > 1 ? double(count) / double(count - 1) : 1.0;
            if (running_mean.defined()) {
              running_mean.mul_(1 - momentum).add_(mean.mul(momentum));
            }
            if (running_var.defined()) {
              running_var.mul_(1 - momentum).add_(var.mul(momentum * unbias));
            }
          }
        } else {
          mean = detail::to_compute(running_mean);
          invstd = detail::to_compute(running_var).add(eps).rsqrt();
        }
        const Tensor xhat = x.sub(mean.reshape(channel)).mul(invstd.reshape(channel));
        return detail::affine(xhat, weight, bias, channel).to(input.dtype());
      },
      [&](autograd::NativeBatchNormBackward0& fn, const Tensor&) {
        fn.save(input, weight, mean, invstd, eps);
        fn.training_ = training;
      },
      input, weight, bias);
  if (!training) {
    const Tensor none = empty({0}, mean.options());
    return {out, none, none};
  }
  return {out, mean, invstd};
}

template <class = void>
Tensor batch_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                  const Tensor& running_mean, const Tensor& running_var, bool training,
                  double momentum, double eps, bool cudnn_enabled = true) {
  (void)cudnn_enabled;
  return std::get<0>(
      native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps));
}

// instance_norm: batch_norm of the input viewed as [1, N * C, ...], the per-channel tensors
// repeated N times; the running statistics (when given) become the mean over the batch of the
// repeated ones' update, as PyTorch's composite does.
template <class = void>
Tensor instance_norm(const Tensor& input, const Tensor& weight, const Tensor& bias,
                     const Tensor& running_mean, const Tensor& running_var, bool use_input_stats,
                     double momentum, double eps, bool cudnn_enabled = true) {
  (void)cudnn_enabled;
  TP_CHECK(use_input_stats || (running_mean.defined() && running_var.defined()),
           "Expected running_mean and running_var to be defined when use_input_stats is false");
  const int64_t b = input.size(0), c = input.size(1);
  std::vector<int64_t> shape(input.sizes().begin(), input.sizes().end());
  shape[0] = 1;
  shape[1] = b * c;
  const auto repeat = [&](const Tensor& t) {
    return t.defined() ? t.unsqueeze(0).expand({b, t.numel()}).reshape({-1}) : Tensor();
  };
  Tensor rm, rv;
  {
    NoGradGuard no_grad;
    rm = repeat(running_mean);
    rv = repeat(running_var);
  }
  const Tensor out = batch_norm(input.contiguous().view(shape), repeat(weight), repeat(bias), rm,
                                rv, use_input_stats, momentum, eps, cudnn_enabled);
  {
    NoGradGuard no_grad;
    const std::vector<int64_t> batch{0};
    if (running_mean.defined()) running_mean.copy_(rm.view({b, c}).mean(batch, false));
    if (running_var.defined()) running_var.copy_(rv.view({b, c}).mean(batch, false));
  }
  return out.view(input.sizes());
}

}  // namespace tensorplay

// ---- tensorplay::nn::functional -----------------------------------------------------------------
namespace tensorplay::nn::functional {

template <class = void>
Tensor layer_norm(const Tensor& input, const LayerNormFuncOptions& options) {
  return tensorplay::layer_norm(input, options.normalized_shape(), options.weight(), options.bias(),
                                options.eps());
}

template <class = void>
Tensor group_norm(const Tensor& input, const GroupNormFuncOptions& options) {
  return tensorplay::group_norm(input, options.num_groups(), options.weight(), options.bias(),
                                options.eps());
}

// Training needs more than one value per channel (F.batch_norm's check).
template <class = void>
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const BatchNormFuncOptions& options = {}) {
  if (options.training()) {
    int64_t per_channel = input.dim() > 0 ? input.size(0) : 1;
    for (int64_t d = 2; d < input.dim(); ++d) per_channel *= input.size(d);
    TP_CHECK_VALUE(per_channel != 1,
                   "Expected more than 1 value per channel when training, got input size ",
                   input.sizes());
  }
  return tensorplay::batch_norm(input, options.weight(), options.bias(), running_mean, running_var,
                                options.training(), options.momentum(), options.eps());
}

template <class = void>
Tensor instance_norm(const Tensor& input, const InstanceNormFuncOptions& options = {}) {
  if (options.use_input_stats()) {
    int64_t spatial = 1;
    for (int64_t d = 2; d < input.dim(); ++d) spatial *= input.size(d);
    TP_CHECK_VALUE(spatial != 1,
                   "Expected more than 1 spatial element when training, got input size ",
                   input.sizes());
  }
  return tensorplay::instance_norm(input, options.weight(), options.bias(), options.running_mean(),
                                   options.running_var(), options.use_input_stats(),
                                   options.momentum(), options.eps());
}

}  // namespace tensorplay::nn::functional
