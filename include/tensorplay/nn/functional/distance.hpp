// cosine_similarity, pairwise_distance and normalize (ATen's at::cosine_similarity,
// at::pairwise_distance, F.normalize), composites as in PyTorch 1.13, so their gradients are those
// of the ops they are made of.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include <tensorplay/core/error.hpp>
#include <tensorplay/core/grad_mode.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/nn/functional/options.hpp>
#include <tensorplay/ops/binary.hpp>
#include <tensorplay/ops/reduce.hpp>
#include <tensorplay/ops/result_type.hpp>
#include <tensorplay/ops/unary.hpp>
#include <tensorplay/ops/views.hpp>

namespace tensorplay {

// sum(x1 / max(|x1|, eps) * x2 / max(|x2|, eps), dim) after broadcasting x1 and x2 together in
// their common (floating) dtype.
template <class = void>
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2, int64_t dim = 1, double eps = 1e-8) {
  const DType common = result_type(x1, x2);
  TP_CHECK(is_floating_point(common),
           "expected common dtype to be floating point, yet common dtype is ",
           scalar_type_name(common));
  Tensor a = x1.dtype() == common ? x1 : x1.to(common);
  Tensor b = x2.dtype() == common ? x2 : x2.to(common);
  const Tensor ab = a.mul(b);  // broadcasts (or fails with the size message)
  a = a.expand(ab.sizes());
  b = b.expand(ab.sizes());
  // PyTorch 1.13's formula: each vector divided by its norm (clamped below at eps, as a
  // constant), then the products summed (SumBackward1).
  const std::vector<int64_t> d{dim};
  Tensor n1 = a.norm(2, d, false).clone(), n2 = b.norm(2, d, false).clone();
  {
    NoGradGuard no_grad;
    n1.clamp_min_(eps);
    n2.clamp_min_(eps);
  }
  return a.div(n1.unsqueeze(dim)).mul(b.div(n2.unsqueeze(dim))).sum(d, false);
}

// ||x1 - x2 + eps||_p over the last dimension of the broadcast shape (NormBackward1).
template <class = void>
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2, double p = 2.0, double eps = 1e-6,
                         bool keepdim = false) {
  const std::vector<int64_t> innermost{std::max(x1.dim(), x2.dim()) - 1};
  return x1.sub(x2).add(eps).norm(Scalar(p), innermost, keepdim);
}

// input / max(||input||_p over dim, eps).
template <class = void>
Tensor normalize(const Tensor& input, double p = 2.0, int64_t dim = 1, double eps = 1e-12) {
  const std::vector<int64_t> d{dim};
  const Tensor denom = input.norm(Scalar(p), d, true).clamp_min(eps).expand_as(input);
  return input.div(denom);
}

}  // namespace tensorplay

namespace tensorplay::nn::functional {

template <class = void>
Tensor cosine_similarity(const Tensor& x1, const Tensor& x2,
                         const CosineSimilarityFuncOptions& options = {}) {
  return tensorplay::cosine_similarity(x1, x2, options.dim(), options.eps());
}

template <class = void>
Tensor pairwise_distance(const Tensor& x1, const Tensor& x2,
                         const PairwiseDistanceFuncOptions& options = {}) {
  return tensorplay::pairwise_distance(x1, x2, options.p(), options.eps(), options.keepdim());
}

template <class = void>
Tensor normalize(const Tensor& input, const NormalizeFuncOptions& options = {}) {
  return tensorplay::normalize(input, options.p(), options.dim(), options.eps());
}

}  // namespace tensorplay::nn::functional
