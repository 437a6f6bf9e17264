// Losses: mse_loss l1_loss smooth_l1_loss huber_loss binary_cross_entropy
// binary_cross_entropy_with_logits kl_div, and over class indices nll_loss and cross_entropy
// (gather along the class dim; NllLossBackward0 scatters back), as ATen-level ops (reduction a
// tensorplay::Reduction, at::Reduction's values) and in tensorplay::nn::functional with libtorch's
// option structs.
//
// mse, smooth L1, Huber and both binary cross entropies record PyTorch's nodes
// (MseLossBackward0, ..., BinaryCrossEntropyWithLogitsBackward0: autograd/functions/nn.hpp);
// l1_loss and kl_div are composites in PyTorch 1.13 and are here (AbsBackward0 / MeanBackward0,
// SubBackward0 / MulBackward0 ...). Input and target broadcast against each other (ATen does;
// F.* in Python warns or refuses first). Half and BFloat16 compute as the elementwise ops do.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <cstdint>
#include <utility>
#include <vector>

#include <tensorplay/autograd/functions/nn.hpp>
#include <tensorplay/autograd/record.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/nn/functional/options.hpp>
#include <tensorplay/ops/binary.hpp>
#include <tensorplay/ops/compare.hpp>
#include <tensorplay/ops/factories.hpp>
#include <tensorplay/ops/masked.hpp>
#include <tensorplay/ops/reduce.hpp>
#include <tensorplay/ops/result_type.hpp>
#include <tensorplay/ops/scatter_gather.hpp>
#include <tensorplay/ops/softmax.hpp>
#include <tensorplay/ops/unary.hpp>

namespace tensorplay {
namespace detail {

// The elementwise loss reduced as asked; BatchMean belongs to F.kl_div only.
template <class = void>
Tensor apply_loss_reduction(const Tensor& loss, Reduction reduction) {
  TP_CHECK_VALUE(reduction != kBatchMean, "batchmean is not a valid value for reduction");
  if (reduction == kMean) return loss.mean();
  if (reduction == kSum) return loss.sum();
  return loss;
}

// Floating operands only, named by PyTorch's kernel.
template <class = void>
void check_loss_dtype(const Tensor& self, const Tensor& target, const char* kernel) {
  const DType dt = result_type(self, target);
  TP_CHECK_NOT_IMPLEMENTED(is_floating_point(dt), "\"", kernel, "\" not implemented for '",
                           scalar_type_name(dt), "'");
}

// A weight the loss scales by is a constant of its formula: PyTorch refuses one that requires
// grad.
template <class = void>
void check_no_requires_grad(const Tensor& t, const char* name, const char* op) {
  TP_CHECK(!t.defined() || !t.requires_grad(), "The function '", op,
           "' is not differentiable with respect to argument '", name,
           "'. This input cannot have requires_grad True.");
}

// The shape of a loss node's forward: `elementwise()` computed with recording off, reduced, and
// NodeT (with self, target and the reduction saved, `init` the rest) recorded over (self, target).
template <class NodeT, class Elementwise, class Init>
Tensor loss_recorded(const Tensor& self, const Tensor& target, Reduction reduction,
                     const Elementwise& elementwise, const Init& init) {
  TP_CHECK_VALUE(reduction != kBatchMean, "batchmean is not a valid value for reduction");
  std::vector<int64_t> shape;
  return autograd::detail::differentiable<NodeT>(
      [&] {
        const Tensor loss = elementwise();
        shape.assign(loss.sizes().begin(), loss.sizes().end());
        return apply_loss_reduction(loss, reduction);
      },
      [&](NodeT& fn, const Tensor&) {
        fn.self_ = autograd::SavedVariable(self, false);
        fn.target_ = autograd::SavedVariable(target, false);
        fn.reduction_ = static_cast<int64_t>(reduction);
        fn.shape_ = std::move(shape);
        init(fn);
      },
      self, target);
}

}  // namespace detail

template <class = void>
Tensor mse_loss(const Tensor& self, const Tensor& target, Reduction reduction = kMean) {
  detail::check_loss_dtype(self, target, "mse_cpu");
  return detail::loss_recorded<autograd::MseLossBackward0>(
      self, target, reduction, [&] { return self.sub(target).square(); },
      autograd::detail::kSaveNothing);
}

// |self - target|, reduced (a composite in PyTorch).
template <class = void>
Tensor l1_loss(const Tensor& self, const Tensor& target, Reduction reduction = kMean) {
  return detail::apply_loss_reduction(self.sub(target).abs(), reduction);
}

// |d| < beta ? d^2 / (2 beta) : |d| - beta / 2, d = self - target (beta = 0: |d|).
template <class = void>
Tensor smooth_l1_loss(const Tensor& self, const Tensor& target, Reduction reduction = kMean,
                      double beta = 1.0) {
  TP_CHECK(beta >= 0, "smooth_l1_loss does not support negative values for beta.");
  detail::check_loss_dtype(self, target, "smooth_l1_cpu");
  return detail::loss_recorded<autograd::SmoothL1LossBackward0>(
      self, target, reduction,
      [&] {
        const Tensor d = self.sub(target), ad = d.abs();
        return d.square().mul(0.5 / beta).where(ad.lt(beta), ad.sub(0.5 * beta));
      },
      [&](auto& fn) { fn.beta_ = beta; });
}

// |d| < delta ? d^2 / 2 : delta (|d| - delta / 2).
template <class = void>
Tensor huber_loss(const Tensor& self, const Tensor& target, Reduction reduction = kMean,
                  double delta = 1.0) {
  TP_CHECK(delta > 0, "huber_loss does not support non-positive values for delta.");
  detail::check_loss_dtype(self, target, "huber_cpu");
  return detail::loss_recorded<autograd::HuberLossBackward0>(
      self, target, reduction,
      [&] {
        const Tensor d = self.sub(target), ad = d.abs();
        return d.square().mul(0.5).where(ad.lt(delta), ad.sub(0.5 * delta).mul(delta));
      },
      [&](auto& fn) { fn.delta_ = delta; });
}

// -w (t log(x) + (1 - t) log(1 - x)), each log clamped below at -100 (PyTorch's choice, so a
// confident wrong answer costs 100, not inf). The input must lie in [0, 1].
template <class = void>
Tensor binary_cross_entropy(const Tensor& self, const Tensor& target, const Tensor& weight = {},
                            Reduction reduction = kMean) {
  detail::check_no_requires_grad(weight, "weight", "binary_cross_entropy");
  detail::check_loss_dtype(self, target, "binary_cross_entropy");
  {
    NoGradGuard no_grad;
    TP_CHECK(self.numel() == 0 || self.ge(0).logical_and(self.le(1)).all().item<bool>(),
             "all elements of input should be between 0 and 1");
  }
  return detail::loss_recorded<autograd::BinaryCrossEntropyBackward0>(
      self, target, reduction,
      [&] {
        const Tensor log_x = self.log().clamp_min(-100);
        const Tensor log_1mx = self.neg().log1p().clamp_min(-100);
        const Tensor loss = target.mul(log_x).add(target.neg().add(1).mul(log_1mx)).neg();
        return weight.defined() ? loss.mul(weight) : loss;
      },
      [&](auto& fn) { fn.weight_ = autograd::SavedVariable(weight, false); });
}

// (1 - t) x + l log(1 + exp(-x)), l = 1 + (pos_weight - 1) t, times the weight; the log term is
// computed as max(-x, 0) + log(exp(-max) + exp(-x - max)), stable for large |x| (PyTorch's).
template <class = void>
Tensor binary_cross_entropy_with_logits(const Tensor& self, const Tensor& target,
                                        const Tensor& weight = {}, const Tensor& pos_weight = {},
                                        Reduction reduction = kMean) {
  detail::check_no_requires_grad(weight, "weight", "binary_cross_entropy_with_logits");
  detail::check_no_requires_grad(pos_weight, "pos_weight", "binary_cross_entropy_with_logits");
  return detail::loss_recorded<autograd::BinaryCrossEntropyWithLogitsBackward0>(
      self, target, reduction,
      [&] {
        const Tensor max_val = self.neg().clamp_min(0);
        const Tensor log_term =
            max_val.neg().exp().add(self.neg().sub(max_val).exp()).log().add(max_val);
        const Tensor lin = target.neg().add(1).mul(self);
        Tensor loss = pos_weight.defined()
                          ? lin.add(pos_weight.sub(1).mul(target).add(1).mul(log_term))
                          : lin.add(log_term);
        return weight.defined() ? loss.mul(weight) : loss;
      },
      [&](auto& fn) {
        fn.weight_ = autograd::SavedVariable(weight, false);
        fn.pos_weight_ = autograd::SavedVariable(pos_weight, false);
      });
}

// target (log(target) - self), or exp(target) (target - self) with log_target; PyTorch 1.13's
// composite: xlogy(target, target) - target * self (0 where target is 0).
template <class = void>
Tensor kl_div(const Tensor& self, const Tensor& target, Reduction reduction = kMean,
              bool log_target = false) {
  TP_CHECK(!is_integral(self.dtype(), true) && !is_integral(target.dtype(), true),
           "kl_div: Integral inputs not supported.");
  Tensor loss;
  if (log_target) {
    loss = target.exp().mul(target.sub(self));
  } else {
    // xlogy(t, t): log(1) = 0 stands in where t is 0, which also keeps the gradient finite.
    const Tensor xlogy = target.mul(target.where(target.ne(0), 1.0).log());
    loss = xlogy.sub(target.mul(self));
  }
  return detail::apply_loss_reduction(loss, reduction);
}

// ---- nll_loss, cross_entropy --------------------------------------------------------------------

namespace detail {
// nll_loss's checks (PyTorch's nll_loss_nd and nll_loss forward, their messages and order); the
// class dimension.
template <class = void>
int64_t check_nll_loss(const Tensor& self, const Tensor& target, const Tensor& weight) {
  TP_CHECK(self.dim() >= 1, "Expected 1 or more dimensions (got ", self.dim(), ")");
  TP_CHECK_VALUE(self.dim() == 1 || self.size(0) == target.size(0), "Expected input batch_size (",
                 self.size(0), ") to match target batch_size (",
                 target.dim() > 0 ? target.size(0) : 1, ").");
  if (self.dim() <= 2) {
    TP_CHECK(target.dim() <= 1, "0D or 1D target tensor expected, multi-target not supported");
  } else {
    std::vector<int64_t> want = self.sizes().vec();
    want.erase(want.begin() + 1);
    TP_CHECK(target.sizes() == IntArrayRef(want), "Expected target size ", IntArrayRef(want),
             ", got ", target.sizes());
  }
  TP_CHECK(target.dtype() == kLong, "expected scalar type Long but found ",
           scalar_type_name(target.dtype()));
  const int64_t cd = self.dim() == 1 ? 0 : 1, classes = self.size(cd);
  if (weight.defined()) {
    TP_CHECK(weight.numel() == classes, "weight tensor should be defined either for all ", classes,
             " classes or no classes but got weight tensor of shape: ", weight.sizes());
    TP_CHECK(weight.dtype() == self.dtype(), "expected scalar type ",
             scalar_type_name(self.dtype()), " but found ", scalar_type_name(weight.dtype()));
  }
  return cd;
}
}  // namespace detail

// -weight[t] * self[..., t, ...] for each target t (class dim 1, or 0 for a 1-d self), none at
// ignore_index; a mean divides by the sum of the weights used. Any rank (PyTorch's
// nll_loss_nd): NllLossBackward0 for 1-d and 2-d inputs, NllLoss2DBackward0 for the others.
template <class = void>
Tensor nll_loss(const Tensor& self, const Tensor& target, const Tensor& weight = {},
                Reduction reduction = kMean, int64_t ignore_index = -100) {
  TP_CHECK_VALUE(reduction != kBatchMean, "batchmean is not a valid value for reduction");
  detail::check_no_requires_grad(weight, "weight", "nll_loss");
  const int64_t cd = detail::check_nll_loss(self, target, weight);
  const int64_t classes = self.size(cd);
  Tensor safe, w, total;
  {
    NoGradGuard no_grad;
    const Tensor ignored = target.eq(ignore_index);
    safe = target.masked_fill(ignored, 0);
    if (safe.numel() > 0) {
      const Tensor bad = safe.lt(0).logical_or(safe.ge(classes));
      if (bad.any().item<bool>()) {
        TP_CHECK_INDEX(false, "Target ", target.masked_select(bad)[0].item<int64_t>(),
                       " is out of bounds.");
      }
    }
    w = weight.defined() ? weight.index_select(0, safe.reshape({-1})).view(target.sizes())
                         : empty(target.sizes(), self.options()).fill_(1);
    w = w.masked_fill(ignored, 0);
    total = w.sum();
  }
  auto compute = [&] {
    const Tensor loss = self.gather(cd, safe.unsqueeze(cd)).squeeze(cd).mul(w).neg();
    if (reduction == kNone) return loss;
    return reduction == kSum ? loss.sum() : loss.sum().div(total);
  };
  auto save = [&](auto& fn, const Tensor&) {
    fn.self_sizes_ = self.sizes().vec();
    fn.class_dim_ = cd;
    fn.reduction_ = static_cast<int64_t>(reduction);
    fn.target_ = autograd::SavedVariable(safe, false);
    fn.weights_ = autograd::SavedVariable(w, false);
    fn.total_weight_ = autograd::SavedVariable(total, false);
  };
  if (self.dim() <= 2)
    return autograd::detail::differentiable<autograd::NllLossBackward0>(compute, save, self);
  return autograd::detail::differentiable<autograd::NllLoss2DBackward0>(compute, save, self);
}

// log_softmax over the class dim, then nll_loss (class indices: an int64 target without the
// class dim) or the cross entropy with probabilities (a floating target of self's shape), with
// PyTorch's label smoothing (a mix with the uniform distribution over the classes).
template <class = void>
Tensor cross_entropy(const Tensor& self, const Tensor& target, const Tensor& weight = {},
                     Reduction reduction = kMean, int64_t ignore_index = -100,
                     double label_smoothing = 0.0) {
  TP_CHECK(label_smoothing >= 0.0 && label_smoothing <= 1.0,
           "label_smoothing must be between 0.0 and 1.0. Got: ", label_smoothing);
  TP_CHECK_VALUE(reduction != kBatchMean, "batchmean is not a valid value for reduction");
  TP_CHECK(self.dim() >= 1, "Expected 1 or more dimensions (got ", self.dim(), ")");
  const int64_t cd = self.dim() == 1 ? 0 : 1, classes = self.size(cd);
  const Tensor logp = self.log_softmax(cd);
  // weight seen along the class dim, for the sums over classes
  auto along_classes = [&](const Tensor& w) {
    std::vector<int64_t> shape(static_cast<std::size_t>(self.dim()), 1);
    shape[static_cast<std::size_t>(cd)] = classes;
    return w.view(shape);
  };
  if (self.sizes() == target.sizes() && is_floating_point(target.dtype())) {
    if (weight.defined()) {
      TP_CHECK(weight.numel() == classes, "weight tensor should be defined either for all ",
               classes, " classes or no classes but got weight tensor of shape: ", weight.sizes());
    }
    const Tensor t = label_smoothing > 0
                         ? target.mul(1 - label_smoothing).add(label_smoothing / double(classes))
                         : target;
    const Tensor terms = (weight.defined() ? logp.mul(along_classes(weight)) : logp).mul(t).neg();
    if (reduction == kNone) return terms.sum(cd);
    if (reduction == kSum) return terms.sum();
    return terms.sum().div(double(self.numel() / std::max<int64_t>(classes, 1)));
  }
  const Tensor nll = nll_loss(logp, target, weight, reduction, ignore_index);
  if (label_smoothing == 0.0) return nll;
  detail::check_nll_loss(self, target, weight);
  const Tensor ignored = target.eq(ignore_index);
  Tensor smooth = (weight.defined() ? logp.mul(along_classes(weight)) : logp).sum(cd).neg();
  smooth = smooth.masked_fill(ignored, 0);
  Tensor ret;
  if (reduction == kNone) {
    ret = smooth;
  } else if (reduction == kSum) {
    ret = smooth.sum();
  } else {
    // The normaliser of nll_loss's mean: the weights of the counted targets (or their number).
    const Tensor kept = ignored.logical_not();
    const Tensor norm =
        weight.defined() ? weight.index_select(0, target.masked_select(kept)).sum() : kept.sum();
    ret = smooth.sum().div(norm);
  }
  return nll.mul(1 - label_smoothing).add(ret.mul(label_smoothing / double(classes)));
}

}  // namespace tensorplay

// ---- tensorplay::nn::functional -----------------------------------------------------------------
namespace tensorplay::nn::functional {

template <class = void>
Tensor mse_loss(const Tensor& input, const Tensor& target, const MSELossFuncOptions& options = {}) {
  return tensorplay::mse_loss(input, target, options.reduction());
}
template <class = void>
Tensor l1_loss(const Tensor& input, const Tensor& target, const L1LossFuncOptions& options = {}) {
  return tensorplay::l1_loss(input, target, options.reduction());
}
template <class = void>
Tensor smooth_l1_loss(const Tensor& input, const Tensor& target,
                      const SmoothL1LossFuncOptions& options = {}) {
  return tensorplay::smooth_l1_loss(input, target, options.reduction(), options.beta());
}
template <class = void>
Tensor huber_loss(const Tensor& input, const Tensor& target,
                  const HuberLossFuncOptions& options = {}) {
  return tensorplay::huber_loss(input, target, options.reduction(), options.delta());
}
template <class = void>
Tensor binary_cross_entropy(const Tensor& input, const Tensor& target,
                            const BinaryCrossEntropyFuncOptions& options = {}) {
  return tensorplay::binary_cross_entropy(input, target, options.weight(), options.reduction());
}
template <class = void>
Tensor binary_cross_entropy_with_logits(
    const Tensor& input, const Tensor& target,
    const BinaryCrossEntropyWithLogitsFuncOptions& options = {}) {
  return tensorplay::binary_cross_entropy_with_logits(input, target, options.weight(),
                                                      options.pos_weight(), options.reduction());
}
template <class = void>
Tensor nll_loss(const Tensor& input, const Tensor& target, const NLLLossFuncOptions& options = {}) {
  return tensorplay::nll_loss(input, target, options.weight(), options.reduction(),
                              options.ignore_index());
}
template <class = void>
Tensor cross_entropy(const Tensor& input, const Tensor& target,
                     const CrossEntropyFuncOptions& options = {}) {
  return tensorplay::cross_entropy(input, target, options.weight(), options.reduction(),
                                   options.ignore_index(), options.label_smoothing());
}
// kBatchMean: the sum divided by the batch size (input.size(0); the sum for a 0-d input).
template <class = void>
Tensor kl_div(const Tensor& input, const Tensor& target, const KLDivFuncOptions& options = {}) {
  if (options.reduction() != kBatchMean) {
    return tensorplay::kl_div(input, target, options.reduction(), options.log_target());
  }
  const Tensor sum = tensorplay::kl_div(input, target, kSum, options.log_target());
  return input.dim() == 0 ? sum : sum.div(input.size(0));
}

}  // namespace tensorplay::nn::functional
