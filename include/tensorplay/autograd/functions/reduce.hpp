// Backward formulas of the reductions, scans and softmax (PyTorch's derivatives.yaml).
// Class templates with a defaulted parameter and PyTorch's names; see pointwise.hpp.
//
// The ops that select elements (max(dim), sort, topk) send their gradient back through
// scatter_add (ops/scatter_gather.hpp), whose own backward is gather, and the other way round,
// so gradients of gradients work through them too.
// prod and cumprod of inputs holding zeros cannot divide by the input: their gradients come from
// plain kernels (prefix and suffix products), exact at first order but constants for a second
// derivative with respect to the input.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include <tensorplay/autograd/functions/indexing.hpp>
#include <tensorplay/autograd/node.hpp>
#include <tensorplay/autograd/record.hpp>
#include <tensorplay/autograd/saved_variable.hpp>
#include <tensorplay/core/empty.hpp>
#include <tensorplay/core/scalar.hpp>
#include <tensorplay/core/wrap_dim.hpp>

namespace tensorplay::autograd {

namespace detail {
// A reduced gradient with its reduced dimensions put back as size 1 (keepdim=false undone).
template <class = void>
Tensor unsqueeze_reduced(Tensor g, IntArrayRef dims, int64_t ndim, bool keepdim) {
  if (keepdim || ndim == 0) return g;
  std::vector<bool> reduced(static_cast<std::size_t>(ndim), dims.empty());
  for (int64_t d : dims) reduced[static_cast<std::size_t>(d < 0 ? d + ndim : d)] = true;
  for (int64_t d = 0; d < ndim; ++d) {
    if (reduced[static_cast<std::size_t>(d)]) g = g.unsqueeze(d);
  }
  return g;
}
}  // namespace detail

template <class = void>
struct SumBackward0T final : Node {  // sum(self)
  TENSORPLAY_NODE_NAME_(SumBackward0)
  std::vector<int64_t> self_sizes_;
  variable_list apply(variable_list&& grads) override { return {grads[0].expand(self_sizes_)}; }
};
using SumBackward0 = SumBackward0T<>;

template <class = void>
struct SumBackward1T final : Node {  // sum(self, dim, keepdim)
  TENSORPLAY_NODE_NAME_(SumBackward1)
  std::vector<int64_t> self_sizes_, dim_;
  bool keepdim_ = false;
  variable_list apply(variable_list&& grads) override {
    const auto ndim = static_cast<int64_t>(self_sizes_.size());
    return {detail::unsqueeze_reduced(grads[0], dim_, ndim, keepdim_).expand(self_sizes_)};
  }
};
using SumBackward1 = SumBackward1T<>;

// ---- helpers ----------------------------------------------------------------------------------
namespace detail {

// How many input elements each output element of a reduction over `dims` gathers (all of them
// for an empty list).
inline int64_t reduced_numel(IntArrayRef sizes, IntArrayRef dims) {
  if (dims.empty()) {
    int64_t n = 1;
    for (int64_t s : sizes) n *= s;
    return n;
  }
  const auto ndim = static_cast<int64_t>(sizes.size());
  std::vector<bool> seen(sizes.size() + 1, false);
  int64_t n = 1;
  for (int64_t d : dims) {
    const int64_t w = ndim == 0 ? 0 : maybe_wrap_dim(d, ndim);
    if (seen[static_cast<std::size_t>(w)]) continue;
    seen[static_cast<std::size_t>(w)] = true;
    if (ndim > 0) n *= sizes[static_cast<std::size_t>(w)];
  }
  return n;
}

// A contiguous tensor seen as [outer, n, inner] around dimension `dim` (0-d: one element).
struct Lines {
  int64_t outer = 1, n = 1, inner = 1;
};
inline Lines lines_of(IntArrayRef sizes, int64_t dim) {
  Lines l;
  for (int64_t d = 0; d < static_cast<int64_t>(sizes.size()); ++d) {
    const int64_t s = sizes[static_cast<std::size_t>(d)];
    if (d < dim) l.outer *= s;
    if (d == dim) l.n = s;
    if (d > dim) l.inner *= s;
  }
  return l;
}

// The gradient of an op that picked elements of self along `dim` (max(dim), sort, topk): each
// gradient goes back to where its element came from, zero elsewhere.
template <class = void>
Tensor value_selecting_backward(Tensor g, int64_t dim, Tensor indices, IntArrayRef sizes,
                                bool keepdim) {
  if (sizes.empty()) return g.reshape({});
  if (!keepdim) {
    g = g.unsqueeze(dim);
    indices = indices.unsqueeze(dim);
  }
  return zeros_for(sizes, g).scatter_add(dim, indices, g);
}

// A contiguous double copy of t on the host (no history), for the loops below.
template <class = void>
Tensor double_copy(const Tensor& t) {
  NoGradGuard no_grad;
  return t.to(kCPU, kDouble).contiguous();
}

template <class = void>
bool has_zero(const Tensor& t) {
  const Tensor d = double_copy(t);
  const double* p = d.data_ptr<double>();
  for (int64_t i = 0; i < d.numel(); ++i) {
    if (p[i] == 0.0) return true;
  }
  return false;
}

// The product of the other elements of each line along `dim` (prefix times suffix products):
// the gradient of prod that stays exact when the line holds zeros.
template <class = void>
Tensor prod_others(const Tensor& self, int64_t dim) {
  const Tensor x = double_copy(self);
  Tensor out = empty(x.sizes(), TensorOptions().dtype(kDouble));
  const Lines l = lines_of(x.sizes(), dim);
  const double* p = x.data_ptr<double>();
  double* o = out.data_ptr<double>();
  for (int64_t a = 0; a < l.outer; ++a) {
    for (int64_t i = 0; i < l.inner; ++i) {
      const int64_t base = a * l.n * l.inner + i;
      double acc = 1;
      for (int64_t j = 0; j < l.n; ++j) {  // prefix: product of the elements before j
        o[base + j * l.inner] = acc;
        acc *= p[base + j * l.inner];
      }
      acc = 1;
      for (int64_t j = l.n - 1; j >= 0; --j) {  // times the product of those after j
        o[base + j * l.inner] *= acc;
        acc *= p[base + j * l.inner];
      }
    }
  }
  NoGradGuard no_grad;
  return out.to(self.device(), self.dtype());  // back to self's device
}

// cumprod's gradient for lines holding zeros: grad_k = sum_{j >= k} g_j prod_{i <= j, i != k} x_i,
// O(n^2) per line (PyTorch's cumprod_backward takes this path only for zeros, too).
template <class = void>
Tensor cumprod_backward_zeros(const Tensor& grad, const Tensor& self, int64_t dim) {
  const Tensor x = double_copy(self), g = double_copy(grad);
  Tensor out = empty(x.sizes(), TensorOptions().dtype(kDouble));
  const Lines l = lines_of(x.sizes(), dim);
  const double *p = x.data_ptr<double>(), *gp = g.data_ptr<double>();
  double* o = out.data_ptr<double>();
  for (int64_t a = 0; a < l.outer; ++a) {
    for (int64_t i = 0; i < l.inner; ++i) {
      const int64_t base = a * l.n * l.inner + i;
      double prefix = 1;  // product of the elements before k
      for (int64_t k = 0; k < l.n; ++k) {
        double run = prefix, acc = gp[base + k * l.inner] * prefix;
        for (int64_t j = k + 1; j < l.n; ++j) {
          run *= p[base + j * l.inner];
          acc += gp[base + j * l.inner] * run;
        }
        o[base + k * l.inner] = acc;
        prefix *= p[base + k * l.inner];
      }
    }
  }
  NoGradGuard no_grad;
  return out.to(grad.dtype());
}

// 1 where cond holds, else 0, in dtype `like` (no history: a mask is a constant).
template <class = void>
Tensor mask_like(const Tensor& cond, const Tensor& like) {
  NoGradGuard no_grad;
  return cond.to(like.dtype());
}

}  // namespace detail

// ---- mean, prod -------------------------------------------------------------------------------

template <class = void>
struct MeanBackward0T final : Node {  // mean(self)
  TENSORPLAY_NODE_NAME_(MeanBackward0)
  std::vector<int64_t> self_sizes_;
  variable_list apply(variable_list&& grads) override {
    const int64_t n = detail::reduced_numel(self_sizes_, {});
    return {grads[0].expand(self_sizes_).div(Scalar(n))};
  }
};
using MeanBackward0 = MeanBackward0T<>;

template <class = void>
struct MeanBackward1T final : Node {  // mean(self, dim, keepdim)
  TENSORPLAY_NODE_NAME_(MeanBackward1)
  std::vector<int64_t> self_sizes_, dim_;
  bool keepdim_ = false;
  variable_list apply(variable_list&& grads) override {
    const auto ndim = static_cast<int64_t>(self_sizes_.size());
    const int64_t n = detail::reduced_numel(self_sizes_, dim_);
    return {detail::unsqueeze_reduced(grads[0], dim_, ndim, keepdim_)
                .expand(self_sizes_)
                .div(Scalar(n))};
  }
};
using MeanBackward1 = MeanBackward1T<>;

// prod: grad * result / self where self has no zeros (differentiable), else the product of the
// other elements (see the top of this file).
template <class = void>
struct ProdBackward0T final : Node {  // prod(self)
  TENSORPLAY_NODE_NAME_(ProdBackward0)
  SavedVariable self_, result_;
  variable_list apply(variable_list&& grads) override {
    const Tensor self = self_.unpack(), result = result_.unpack(shared_from_this());
    const Tensor g = grads[0].expand(self.sizes());
    if (!detail::has_zero(self)) return {g.mul(result).div(self)};
    const Tensor flat = self.reshape({-1});
    return {g.mul(detail::prod_others(flat, 0).view(self.sizes()))};
  }
  void release_variables() override {
    self_.reset_data();
    result_.reset_data();
  }
};
using ProdBackward0 = ProdBackward0T<>;

template <class = void>
struct ProdBackward1T final : Node {  // prod(self, dim, keepdim)
  TENSORPLAY_NODE_NAME_(ProdBackward1)
  SavedVariable self_, result_;
  int64_t dim_ = 0;
  bool keepdim_ = false;
  variable_list apply(variable_list&& grads) override {
    const Tensor self = self_.unpack(), result = result_.unpack(shared_from_this());
    const int64_t ndim = self.dim();
    const int64_t d = ndim == 0 ? 0 : maybe_wrap_dim(dim_, ndim);
    const std::vector<int64_t> dims{d};
    const Tensor g = detail::unsqueeze_reduced(grads[0], dims, ndim, keepdim_).expand(self.sizes());
    if (!detail::has_zero(self)) {
      return {g.mul(detail::unsqueeze_reduced(result, dims, ndim, keepdim_)).div(self)};
    }
    return {g.mul(detail::prod_others(self, d))};
  }
  void release_variables() override {
    self_.reset_data();
    result_.reset_data();
  }
};
using ProdBackward1 = ProdBackward1T<>;

// ---- amax, amin, max(), min(), max(dim), min(dim) ---------------------------------------------

// amax / amin: the gradient is shared evenly among the elements equal to the result.
template <class Tag>
struct AmaxLikeBackwardT final : Node {
  std::string name() const override { return Tag::name(); }
  SavedVariable self_, result_;
  std::vector<int64_t> dim_;
  bool keepdim_ = false;
  variable_list apply(variable_list&& grads) override {
    const Tensor self = self_.unpack(), result = result_.unpack(shared_from_this());
    const int64_t ndim = self.dim();
    const Tensor r = detail::unsqueeze_reduced(result, dim_, ndim, keepdim_);
    Tensor cond = self.eq(r);
    // max() / min() (all): a NaN result is shared among the NaNs (evenly_distribute_backward).
    if (Tag::kNanAware) cond = cond.logical_or(self.isnan().logical_and(r.isnan()));
    const Tensor mask = detail::mask_like(cond, self);
    std::vector<int64_t> all;
    if (dim_.empty()) {
      for (int64_t d = 0; d < ndim; ++d) all.push_back(d);
    }
    const IntArrayRef dims = dim_.empty() ? IntArrayRef(all) : IntArrayRef(dim_);
    const Tensor count = ndim == 0 ? mask : mask.sum(dims, true);
    const Tensor g = detail::unsqueeze_reduced(grads[0], dim_, ndim, keepdim_);
    // max()/min(): PyTorch's CPU form is a masked fill, so a NaN gradient lands only where the
    // result came from; amax/amin multiply by the mask (NaN everywhere), as PyTorch does.
    if constexpr (Tag::kNanAware) return {g.div(count).expand(self.sizes()).where(cond, 0.0)};
    return {g.div(count).mul(mask)};
  }
  void release_variables() override {
    self_.reset_data();
    result_.reset_data();
  }
};
namespace detail {
struct AmaxTag {
  static constexpr bool kNanAware = false;
  static std::string name() { return "AmaxBackward0"; }
};
struct AminTag {
  static constexpr bool kNanAware = false;
  static std::string name() { return "AminBackward0"; }
};
struct MaxAllTag {
  static constexpr bool kNanAware = true;
  static std::string name() { return "MaxBackward1"; }
};
struct MinAllTag {
  static constexpr bool kNanAware = true;
  static std::string name() { return "MinBackward1"; }
};
struct MaxDimTag {
  static std::string name() { return "MaxBackward0"; }
};
struct MinDimTag {
  static std::string name() { return "MinBackward0"; }
};
}  // namespace detail
using AmaxBackward0 = AmaxLikeBackwardT<detail::AmaxTag>;
using AminBackward0 = AmaxLikeBackwardT<detail::AminTag>;
using MaxBackward1 = AmaxLikeBackwardT<detail::MaxAllTag>;
using MinBackward1 = AmaxLikeBackwardT<detail::MinAllTag>;

// max(dim) / min(dim) / sort / topk: (values, indices); only the values have a gradient, which
// goes back to the positions the indices name.
template <class Tag>
struct IndexSelectingBackwardT final : Node {
  std::string name() const override { return Tag::name(); }
  std::vector<int64_t> self_sizes_;
  int64_t dim_ = 0;
  bool keepdim_ = true;
  SavedVariable indices_;
  variable_list apply(variable_list&& grads) override {
    if (!grads[0].defined()) return {Tensor()};
    return {
        detail::value_selecting_backward(grads[0], dim_, indices_.unpack(), self_sizes_, keepdim_)};
  }
  void release_variables() override { indices_.reset_data(); }
};
using MaxBackward0 = IndexSelectingBackwardT<detail::MaxDimTag>;
using MinBackward0 = IndexSelectingBackwardT<detail::MinDimTag>;

namespace detail {
// values, indices = compute() with NodeT recorded: the values get the history, the indices
// (int64) none; NodeT scatters the values' gradient back through the indices.
template <class NodeT, class Compute>
std::tuple<Tensor, Tensor> record_selecting(const Tensor& self, int64_t dim, bool keepdim,
                                            const Compute& compute) {
  std::shared_ptr<NodeT> fn = make_node<NodeT>(self);
  if (!fn) return compute();
  std::tuple<Tensor, Tensor> r;
  {
    AutoGradMode off(false);
    r = compute();
  }
  set_history(std::get<0>(r), fn);
  set_history(std::get<1>(r), fn);
  fn->self_sizes_ = self.sizes().vec();
  fn->dim_ = self.dim() == 0 ? 0 : maybe_wrap_dim(dim, self.dim());
  fn->keepdim_ = keepdim;
  fn->indices_ = SavedVariable(std::get<1>(r), true);
  return r;
}
}  // namespace detail

// ---- var, std ---------------------------------------------------------------------------------

// var: 2 / (N - correction) * grad * (self - mean); std: var's with grad / (2 std), 0 where std
// is 0 (PyTorch's masked_fill).
template <bool kStd>
struct VarStdBackwardT final : Node {
  std::string name() const override { return kStd ? "StdBackward0" : "VarBackward0"; }
  SavedVariable self_, result_;
  std::vector<int64_t> dim_;  // empty: every dimension
  double correction_ = 1;
  bool keepdim_ = false;
  variable_list apply(variable_list&& grads) override {
    const Tensor self = self_.unpack();
    const int64_t ndim = self.dim();
    Tensor g = grads[0];
    if (kStd) {
      const Tensor result = result_.unpack(shared_from_this());
      const Tensor zero = detail::mask_like(result.eq(0), result);
      // g / (2 r) where r != 0, 0 where r == 0 (r + 1 there keeps the division finite).
      g = g.sub(g.mul(zero)).div(result.mul(Scalar(2.0)).add(zero));
    }
    g = detail::unsqueeze_reduced(g, dim_, ndim, keepdim_);
    const int64_t n = detail::reduced_numel(self.sizes(), dim_);
    const double divisor = std::max(0.0, double(n) - correction_);
    std::vector<int64_t> all;
    if (dim_.empty()) {
      for (int64_t d = 0; d < ndim; ++d) all.push_back(d);
    }
    const IntArrayRef dims = dim_.empty() ? IntArrayRef(all) : IntArrayRef(dim_);
    const Tensor centered = ndim == 0 ? self.sub(self) : self.sub(self.mean(dims, true));
    return {centered.mul(g).mul(Scalar(2.0 / divisor))};
  }
  void release_variables() override {
    self_.reset_data();
    result_.reset_data();
  }
};
using VarBackward0 = VarStdBackwardT<false>;
using StdBackward0 = VarStdBackwardT<true>;

// ---- norm -------------------------------------------------------------------------------------

// p-norm over dim_ (empty: all). NormBackward0..3 differ only in the overload they record.
template <int kOverload>
struct NormBackwardT final : Node {
  std::string name() const override { return "NormBackward" + std::to_string(kOverload); }
  SavedVariable self_, result_;
  double p_ = 2;
  std::vector<int64_t> dim_;
  bool keepdim_ = false;
  variable_list apply(variable_list&& grads) override {
    const Tensor self = self_.unpack(), result = result_.unpack(shared_from_this());
    const int64_t ndim = self.dim();
    const Tensor g = detail::unsqueeze_reduced(grads[0], dim_, ndim, keepdim_);
    const Tensor norm = detail::unsqueeze_reduced(result, dim_, ndim, keepdim_);
    if (p_ == 0.0) return {self.mul(Scalar(0.0)).mul(g)};
    if (p_ == 1.0) return {self.sign().mul(g)};
    if (std::isinf(p_)) {  // shared evenly among the elements whose |x| is the norm
      const Tensor mask = detail::mask_like(self.abs().eq(norm), self);
      std::vector<int64_t> all;
      if (dim_.empty()) {
        for (int64_t d = 0; d < ndim; ++d) all.push_back(d);
      }
      const IntArrayRef dims = dim_.empty() ? IntArrayRef(all) : IntArrayRef(dim_);
      const Tensor count = ndim == 0 ? mask : mask.sum(dims, true);
      return {self.sign().mul(mask).mul(g.div(count))};
    }
    // x |x|^(p-2) g / norm^(p-1), 0 where the norm is 0 (PyTorch's masked_fill).
    const Tensor zero = detail::mask_like(norm.eq(0), norm);
    const Tensor scale = g.sub(g.mul(zero)).div(norm.pow(Scalar(p_ - 1)).add(zero));
    const Tensor dir = p_ == 2.0 ? self : self.sign().mul(self.abs().pow(Scalar(p_ - 1)));
    return {dir.mul(scale)};
  }
  void release_variables() override {
    self_.reset_data();
    result_.reset_data();
  }
};
using NormBackward0 = NormBackwardT<0>;
using NormBackward1 = NormBackwardT<1>;
using NormBackward2 = NormBackwardT<2>;
using NormBackward3 = NormBackwardT<3>;

// ---- logsumexp, cumsum, cumprod ---------------------------------------------------------------

template <class = void>
struct LogsumexpBackward0T final : Node {  // logsumexp(self, dim, keepdim)
  TENSORPLAY_NODE_NAME_(LogsumexpBackward0)
  SavedVariable self_, result_;
  std::vector<int64_t> dim_;
  bool keepdim_ = false;
  variable_list apply(variable_list&& grads) override {
    const Tensor self = self_.unpack(), result = result_.unpack(shared_from_this());
    const int64_t ndim = self.dim();
    const Tensor g = detail::unsqueeze_reduced(grads[0], dim_, ndim, keepdim_);
    const Tensor r = detail::unsqueeze_reduced(result, dim_, ndim, keepdim_);
    return {g.mul(self.sub(r).exp())};
  }
  void release_variables() override {
    self_.reset_data();
    result_.reset_data();
  }
};
using LogsumexpBackward0 = LogsumexpBackward0T<>;

template <class = void>
struct CumsumBackward0T final : Node {  // cumsum(self, dim)
  TENSORPLAY_NODE_NAME_(CumsumBackward0)
  int64_t dim_ = 0;
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    if (g.dim() == 0) return {g};
    // The reversed cumulative sum: sum_{j >= k} g_j = total - cumsum_k + g_k.
    return {g.sum(IntArrayRef(dim_), true).sub(g.cumsum(dim_)).add(g)};
  }
};
using CumsumBackward0 = CumsumBackward0T<>;

template <class = void>
struct CumprodBackward0T final : Node {  // cumprod(self, dim)
  TENSORPLAY_NODE_NAME_(CumprodBackward0)
  SavedVariable self_, result_;
  int64_t dim_ = 0;
  variable_list apply(variable_list&& grads) override {
    const Tensor self = self_.unpack(), result = result_.unpack(shared_from_this());
    const Tensor& g = grads[0];
    if (self.dim() == 0) return {g};
    if (detail::has_zero(self)) return {detail::cumprod_backward_zeros(g, self, dim_)};
    // sum_{j >= k} g_j out_j / x_k, the reversed cumulative sum as in CumsumBackward0.
    const Tensor w = g.mul(result);
    return {w.sum(IntArrayRef(dim_), true).sub(w.cumsum(dim_)).add(w).div(self)};
  }
  void release_variables() override {
    self_.reset_data();
    result_.reset_data();
  }
};
using CumprodBackward0 = CumprodBackward0T<>;

// ---- softmax, log_softmax ---------------------------------------------------------------------

template <class = void>
struct SoftmaxBackward0T final : Node {  // _softmax(self, dim, half_to_float)
  TENSORPLAY_NODE_NAME_(SoftmaxBackward0)
  SavedVariable result_;
  int64_t dim_ = 0;
  variable_list apply(variable_list&& grads) override {
    const Tensor y = result_.unpack(shared_from_this());
    const Tensor& g = grads[0];
    if (y.dim() == 0) return {g.mul(Scalar(0.0))};
    // y * (g - sum(g * y))
    return {y.mul(g.sub(g.mul(y).sum(IntArrayRef(dim_), true)))};
  }
  void release_variables() override { result_.reset_data(); }
};
using SoftmaxBackward0 = SoftmaxBackward0T<>;

template <class = void>
struct LogSoftmaxBackward0T final : Node {  // _log_softmax(self, dim, half_to_float)
  TENSORPLAY_NODE_NAME_(LogSoftmaxBackward0)
  SavedVariable result_;
  int64_t dim_ = 0;
  variable_list apply(variable_list&& grads) override {
    const Tensor y = result_.unpack(shared_from_this());
    const Tensor& g = grads[0];
    if (y.dim() == 0) return {g.mul(Scalar(0.0))};
    // g - exp(y) * sum(g)
    return {g.sub(y.exp().mul(g.sum(IntArrayRef(dim_), true)))};
  }
  void release_variables() override { result_.reset_data(); }
};
using LogSoftmaxBackward0 = LogSoftmaxBackward0T<>;

// nansum(self, dim, keepdim, dtype): the gradient everywhere but at self's NaNs.
template <class = void>
struct NansumBackward0T final : Node {
  TENSORPLAY_NODE_NAME_(NansumBackward0)
  SavedVariable self_;
  std::vector<int64_t> dim_;
  bool keepdim_ = false;
  void release_variables() override { self_.reset_data(); }
  variable_list apply(variable_list&& grads) override {
    const Tensor self = self_.unpack(shared_from_this());
    return {detail::unsqueeze_reduced(grads[0], dim_, self.dim(), keepdim_)
                .expand(self.sizes())
                .masked_fill(self.isnan(), 0)};
  }
};
using NansumBackward0 = NansumBackward0T<>;

// cummax / cummin(self, dim): each output's gradient goes to the element it copied.
template <class Tag>
struct CumExtremeBackwardT final : Node {
  std::string name() const override { return Tag::name(); }
  std::vector<int64_t> self_sizes_;
  int64_t dim_ = 0;
  SavedVariable indices_;
  void release_variables() override { indices_.reset_data(); }
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    if (!g.defined()) return {Tensor()};
    return {detail::zeros_for(self_sizes_, g).scatter_add(dim_, indices_.unpack(), g)};
  }
};
namespace detail {
struct CummaxTag {
  static std::string name() { return "CummaxBackward0"; }
};
struct CumminTag {
  static std::string name() { return "CumminBackward0"; }
};
}  // namespace detail
using CummaxBackward0 = CumExtremeBackwardT<detail::CummaxTag>;
using CumminBackward0 = CumExtremeBackwardT<detail::CumminTag>;

}  // namespace tensorplay::autograd
