// tensorplay._C._nn: the ops behind tensorplay.nn.functional (python/tensorplay/nn/functional.py),
// named and ordered as torch._C._nn's and torch's own (a loss's reduction is at::Reduction's
// int: 0 none, 1 mean, 2 sum; functional.py turns the strings into it). Tables only; the Python
// checks and warnings that torch's F.* does before calling in are in functional.py.
#include <tensorplay/nn/functional.hpp>

#include "bindings.hpp"

namespace tensorplay::python::bindings {

void register_nn_functional(PyObject* m) {
  using OptTensor = std::optional<Tensor>;

  // ---- activations -------------------------------------------------------------------------
#define TP_NN_PLAIN_(name)                                                                    \
  Registry::function(m, #name,                                                                \
                     overload("input", [](const Tensor& x) { return tensorplay::name(x); })); \
  Registry::function(m, #name "_", overload("input", [](const Tensor& x) -> const Tensor& {   \
                       return tensorplay::name##_(x);                                         \
                     }))
  TP_NN_PLAIN_(relu);
  TP_NN_PLAIN_(relu6);
  TP_NN_PLAIN_(selu);
  TP_NN_PLAIN_(silu);
  TP_NN_PLAIN_(mish);
  TP_NN_PLAIN_(hardsigmoid);
  TP_NN_PLAIN_(hardswish);
#undef TP_NN_PLAIN_
  Registry::function(m, "leaky_relu",
                     overload("input, negative_slope=0.01", [](const Tensor& x, double slope) {
                       return tensorplay::leaky_relu(x, slope);
                     }));
  Registry::function(
      m, "leaky_relu_",
      overload("input, negative_slope=0.01", [](const Tensor& x, double slope) -> const Tensor& {
        return tensorplay::leaky_relu_(x, slope);
      }));
  Registry::function(m, "elu",
                     overload("input, alpha=1.0, scale=1.0, input_scale=1.0",
                              [](const Tensor& x, double alpha, double scale, double input_scale) {
                                return tensorplay::elu(x, alpha, scale, input_scale);
                              }));
  Registry::function(m, "elu_",
                     overload("input, alpha=1.0, scale=1.0, input_scale=1.0",
                              [](const Tensor& x, double alpha, double scale,
                                 double input_scale) -> const Tensor& {
                                return tensorplay::elu_(x, alpha, scale, input_scale);
                              }));
  Registry::function(
      m, "hardtanh",
      overload("input, min_val=-1.0, max_val=1.0", [](const Tensor& x, double lo, double hi) {
        return tensorplay::hardtanh(x, lo, hi);
      }));
  Registry::function(m, "hardtanh_",
                     overload("input, min_val=-1.0, max_val=1.0",
                              [](const Tensor& x, double lo, double hi) -> const Tensor& {
                                return tensorplay::hardtanh_(x, lo, hi);
                              }));
  Registry::function(
      m, "gelu",
      overload("input, approximate='none'", [](const Tensor& x, std::string_view approximate) {
        return tensorplay::gelu(x, approximate);
      }));
  Registry::function(m, "softplus",
                     overload("input, beta=1.0, threshold=20.0",
                              [](const Tensor& x, double beta, double threshold) {
                                return tensorplay::softplus(x, beta, threshold);
                              }));

  // ---- normalisation -------------------------------------------------------------------------
  Registry::function(m, "layer_norm",
                     overload("input, normalized_shape, weight=None, bias=None, eps=1e-05",
                              [](const Tensor& x, IntArrayRef shape, const OptTensor& w,
                                 const OptTensor& b, double eps) {
                                return tensorplay::layer_norm(x, shape, w ? *w : Tensor(),
                                                              b ? *b : Tensor(), eps);
                              }));
  Registry::function(
      m, "group_norm",
      overload(
          "input, num_groups, weight=None, bias=None, eps=1e-05",
          [](const Tensor& x, int64_t groups, const OptTensor& w, const OptTensor& b, double eps) {
            return tensorplay::group_norm(x, groups, w ? *w : Tensor(), b ? *b : Tensor(), eps);
          }));
  Registry::function(
      m, "batch_norm",
      overload("input, weight, bias, running_mean, running_var, training, momentum, eps",
               [](const Tensor& x, const OptTensor& w, const OptTensor& b, const OptTensor& rm,
                  const OptTensor& rv, bool training, double momentum, double eps) {
                 return tensorplay::batch_norm(x, w ? *w : Tensor(), b ? *b : Tensor(),
                                               rm ? *rm : Tensor(), rv ? *rv : Tensor(), training,
                                               momentum, eps);
               }));
  Registry::function(
      m, "instance_norm",
      overload("input, weight, bias, running_mean, running_var, use_input_stats, momentum, eps",
               [](const Tensor& x, const OptTensor& w, const OptTensor& b, const OptTensor& rm,
                  const OptTensor& rv, bool use_input_stats, double momentum, double eps) {
                 return tensorplay::instance_norm(x, w ? *w : Tensor(), b ? *b : Tensor(),
                                                  rm ? *rm : Tensor(), rv ? *rv : Tensor(),
                                                  use_input_stats, momentum, eps);
               }));

  // ---- losses ----------------------------------------------------------------------------------
  Registry::function(
      m, "mse_loss",
      overload("input, target, reduction=1", [](const Tensor& x, const Tensor& t, int64_t r) {
        TP_CHECK_VALUE(r >= 0 && r <= 2, r, " is not a valid value for reduction");
        return tensorplay::mse_loss(x, t, static_cast<Reduction>(r));
      }));
  Registry::function(
      m, "l1_loss",
      overload("input, target, reduction=1", [](const Tensor& x, const Tensor& t, int64_t r) {
        TP_CHECK_VALUE(r >= 0 && r <= 2, r, " is not a valid value for reduction");
        return tensorplay::l1_loss(x, t, static_cast<Reduction>(r));
      }));
  Registry::function(
      m, "smooth_l1_loss",
      overload("input, target, reduction=1, beta=1.0",
               [](const Tensor& x, const Tensor& t, int64_t r, double beta) {
                 TP_CHECK_VALUE(r >= 0 && r <= 2, r, " is not a valid value for reduction");
                 return tensorplay::smooth_l1_loss(x, t, static_cast<Reduction>(r), beta);
               }));
  Registry::function(
      m, "huber_loss",
      overload("input, target, reduction=1, delta=1.0",
               [](const Tensor& x, const Tensor& t, int64_t r, double delta) {
                 TP_CHECK_VALUE(r >= 0 && r <= 2, r, " is not a valid value for reduction");
                 return tensorplay::huber_loss(x, t, static_cast<Reduction>(r), delta);
               }));
  Registry::function(
      m, "binary_cross_entropy",
      overload("input, target, weight=None, reduction=1", [](const Tensor& x, const Tensor& t,
                                                             const OptTensor& w, int64_t r) {
        TP_CHECK_VALUE(r >= 0 && r <= 2, r, " is not a valid value for reduction");
        return tensorplay::binary_cross_entropy(x, t, w ? *w : Tensor(), static_cast<Reduction>(r));
      }));
  Registry::function(
      m, "binary_cross_entropy_with_logits",
      overload(
          "input, target, weight=None, pos_weight=None, reduction=1",
          [](const Tensor& x, const Tensor& t, const OptTensor& w, const OptTensor& pw, int64_t r) {
            TP_CHECK_VALUE(r >= 0 && r <= 2, r, " is not a valid value for reduction");
            return tensorplay::binary_cross_entropy_with_logits(
                x, t, w ? *w : Tensor(), pw ? *pw : Tensor(), static_cast<Reduction>(r));
          }));
  Registry::function(
      m, "kl_div",
      overload("input, target, reduction=1, *, log_target=False",
               [](const Tensor& x, const Tensor& t, int64_t r, bool log_target) {
                 TP_CHECK_VALUE(r >= 0 && r <= 2, r, " is not a valid value for reduction");
                 return tensorplay::kl_div(x, t, static_cast<Reduction>(r), log_target);
               }));

  // ---- distance, normalize, dropout
  // ---------------------------------------------------------------
  Registry::function(m, "cosine_similarity",
                     overload("x1, x2, dim=1, eps=1e-08",
                              [](const Tensor& a, const Tensor& b, int64_t dim, double eps) {
                                return tensorplay::cosine_similarity(a, b, dim, eps);
                              }));
  Registry::function(
      m, "pairwise_distance",
      overload("x1, x2, p=2.0, eps=1e-06, keepdim=False",
               [](const Tensor& a, const Tensor& b, double p, double eps, bool keepdim) {
                 return tensorplay::pairwise_distance(a, b, p, eps, keepdim);
               }));
  Registry::function(m, "normalize",
                     overload("input, p=2.0, dim=1, eps=1e-12",
                              [](const Tensor& x, double p, int64_t dim, double eps) {
                                return tensorplay::normalize(x, p, dim, eps);
                              }));
  Registry::function(m, "dropout",
                     overload("input, p, train", [](const Tensor& x, double p, bool train) {
                       return tensorplay::dropout(x, p, train);
                     }));
  Registry::function(
      m, "dropout_",
      overload("input, p, train", [](const Tensor& x, double p, bool train) -> const Tensor& {
        return tensorplay::dropout_(x, p, train);
      }));
  // Losses over class indices, embedding, one_hot (torch._C._nn's nll_loss_nd, cross_entropy_loss,
  // torch.embedding, torch._C._nn.one_hot).
  Registry::function(
      m, "nll_loss_nd",
      overload("input, target, weight=None, reduction=1, ignore_index=-100",
               [](const Tensor& x, const Tensor& t, const OptTensor& w, int64_t r, int64_t ignore) {
                 TP_CHECK_VALUE(r >= 0 && r <= 2, r, " is not a valid value for reduction");
                 return tensorplay::nll_loss(x, t, w ? *w : Tensor(), static_cast<Reduction>(r),
                                             ignore);
               }));
  Registry::function(
      m, "cross_entropy_loss",
      overload("input, target, weight=None, reduction=1, ignore_index=-100, label_smoothing=0.0",
               [](const Tensor& x, const Tensor& t, const OptTensor& w, int64_t r, int64_t ignore,
                  double smoothing) {
                 TP_CHECK_VALUE(r >= 0 && r <= 2, r, " is not a valid value for reduction");
                 return tensorplay::cross_entropy(x, t, w ? *w : Tensor(),
                                                  static_cast<Reduction>(r), ignore, smoothing);
               }));
  Registry::function(m, "embedding",
                     overload("weight, input, padding_idx=-1, scale_grad_by_freq=False, "
                              "sparse=False",
                              [](const Tensor& w, const Tensor& idx, int64_t padding_idx,
                                 bool scale, bool sparse) {
                                return tensorplay::embedding(w, idx, padding_idx, scale, sparse);
                              }));
  Registry::function(m, "embedding_renorm_",
                     overload("input, indices, max_norm, norm_type",
                              [](const Tensor& w, const Tensor& idx, double max_norm,
                                 double norm_type) -> const Tensor& {
                                return tensorplay::embedding_renorm_(w, idx, max_norm, norm_type);
                              }));
  Registry::function(m, "one_hot",
                     overload("tensor, num_classes=-1", [](const Tensor& t, int64_t n) {
                       return tensorplay::one_hot(t, n);
                     }));
  // ---- linear, convolution, pooling ----------------------------------------------------------
  Registry::function(m, "linear",
                     overload("input, weight, bias=None",
                              [](const Tensor& x, const Tensor& w, const OptTensor& b) {
                                return tensorplay::linear(x, w, b);
                              }));
  Registry::function(
      m, "bilinear",
      overload("input1, input2, weight, bias=None",
               [](const Tensor& x1, const Tensor& x2, const Tensor& w, const OptTensor& b) {
                 return tensorplay::bilinear(x1, x2, w, b);
               }));
  // The int-list padding first: a str never probes as one.
#define TP_NN_CONV_(N)                                                                            \
  Registry::function(                                                                             \
      m, "conv" #N "d",                                                                           \
      overload("input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1",             \
               [](const Tensor& x, const Tensor& w, const OptTensor& b, IntArrayRef stride,       \
                  IntArrayRef padding, IntArrayRef dilation, int64_t groups) {                    \
                 return tensorplay::conv##N##d(x, w, b, stride, padding, dilation, groups);       \
               }),                                                                                \
      overload("input, weight, bias=None, stride=1, padding='valid', dilation=1, groups=1",       \
               [](const Tensor& x, const Tensor& w, const OptTensor& b, IntArrayRef stride,       \
                  std::string_view padding, IntArrayRef dilation, int64_t groups) {               \
                 return tensorplay::conv##N##d(x, w, b, stride, padding, dilation, groups);       \
               }));                                                                               \
  Registry::function(m, "conv_transpose" #N "d",                                                  \
                     overload("input, weight, bias=None, stride=1, padding=0, output_padding=0, " \
                              "groups=1, dilation=1",                                             \
                              [](const Tensor& x, const Tensor& w, const OptTensor& b,            \
                                 IntArrayRef stride, IntArrayRef padding, IntArrayRef out_pad,    \
                                 int64_t groups, IntArrayRef dilation) {                          \
                                return tensorplay::conv_transpose##N##d(                          \
                                    x, w, b, stride, padding, out_pad, groups, dilation);         \
                              }))
  TP_NN_CONV_(1);
  TP_NN_CONV_(2);
  TP_NN_CONV_(3);
#undef TP_NN_CONV_
  using OptInts = std::optional<IntArrayRef>;
  using OptInt = std::optional<int64_t>;
  Registry::function(
      m, "max_pool2d_with_indices",
      overload("input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False",
               [](const Tensor& x, IntArrayRef k, const OptInts& s, IntArrayRef p, IntArrayRef d,
                  bool ceil) {
                 return tensorplay::max_pool2d_with_indices(x, k, s.value_or(IntArrayRef()), p, d,
                                                            ceil);
               }));
  Registry::function(
      m, "max_pool3d_with_indices",
      overload("input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False",
               [](const Tensor& x, IntArrayRef k, const OptInts& s, IntArrayRef p, IntArrayRef d,
                  bool ceil) {
                 return tensorplay::max_pool3d_with_indices(x, k, s.value_or(IntArrayRef()), p, d,
                                                            ceil);
               }));
  Registry::function(
      m, "max_pool1d_with_indices",
      overload("input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False",
               [](const Tensor& x, IntArrayRef k, const OptInts& s, IntArrayRef p, IntArrayRef d,
                  bool ceil) {
                 return tensorplay::max_pool1d_with_indices(x, k, s.value_or(IntArrayRef()), p, d,
                                                            ceil);
               }));
  Registry::function(m, "avg_pool2d",
                     overload("input, kernel_size, stride=None, padding=0, ceil_mode=False, "
                              "count_include_pad=True, divisor_override=None",
                              [](const Tensor& x, IntArrayRef k, const OptInts& s, IntArrayRef p,
                                 bool ceil, bool include, OptInt divisor) {
                                return tensorplay::avg_pool2d(x, k, s.value_or(IntArrayRef()), p,
                                                              ceil, include, divisor);
                              }));
  Registry::function(m, "avg_pool3d",
                     overload("input, kernel_size, stride=None, padding=0, ceil_mode=False, "
                              "count_include_pad=True, divisor_override=None",
                              [](const Tensor& x, IntArrayRef k, const OptInts& s, IntArrayRef p,
                                 bool ceil, bool include, OptInt divisor) {
                                return tensorplay::avg_pool3d(x, k, s.value_or(IntArrayRef()), p,
                                                              ceil, include, divisor);
                              }));
  Registry::function(m, "avg_pool1d",
                     overload("input, kernel_size, stride=None, padding=0, ceil_mode=False, "
                              "count_include_pad=True",
                              [](const Tensor& x, IntArrayRef k, const OptInts& s, IntArrayRef p,
                                 bool ceil, bool include) {
                                return tensorplay::avg_pool1d(x, k, s.value_or(IntArrayRef()), p,
                                                              ceil, include);
                              }));
  Registry::function(m, "adaptive_avg_pool2d",
                     overload("input, output_size", [](const Tensor& x, IntArrayRef size) {
                       return tensorplay::adaptive_avg_pool2d(x, size);
                     }));
  Registry::function(m, "adaptive_avg_pool1d",
                     overload("input, output_size", [](const Tensor& x, IntArrayRef size) {
                       return tensorplay::adaptive_avg_pool1d(x, size);
                     }));
  Registry::function(m, "adaptive_max_pool2d",
                     overload("input, output_size", [](const Tensor& x, IntArrayRef size) {
                       return tensorplay::adaptive_max_pool2d(x, size);
                     }));
  Registry::function(m, "adaptive_avg_pool3d",
                     overload("input, output_size", [](const Tensor& x, IntArrayRef size) {
                       return tensorplay::adaptive_avg_pool3d(x, size);
                     }));
  Registry::function(m, "adaptive_max_pool3d",
                     overload("input, output_size", [](const Tensor& x, IntArrayRef size) {
                       return tensorplay::adaptive_max_pool3d(x, size);
                     }));
  Registry::function(m, "adaptive_max_pool1d",
                     overload("input, output_size", [](const Tensor& x, IntArrayRef size) {
                       return tensorplay::adaptive_max_pool1d(x, size);
                     }));
}

}  // namespace tensorplay::python::bindings
