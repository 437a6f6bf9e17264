// embedding (a table lookup: index_select of rows, EmbeddingBackward0 adds the gradients back)
// and one_hot, as ATen-level ops and in tensorplay::nn::functional with libtorch's options
// (padding_idx, max_norm's in-place renormalisation, scale_grad_by_freq).
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <cmath>
#include <cstdint>
#include <optional>
#include <vector>

#include <tensorplay/autograd/functions/nn.hpp>
#include <tensorplay/autograd/record.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/grad_mode.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/nn/functional/options.hpp>
#include <tensorplay/ops/compare.hpp>
#include <tensorplay/ops/reduce.hpp>
#include <tensorplay/ops/scatter_gather.hpp>

namespace tensorplay {

// weight[indices]: indices.sizes() + [embedding_dim]. padding_idx (-1: none) gets no gradient.
template <class = void>
Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx = -1,
                 bool scale_grad_by_freq = false, bool sparse = false) {
  TP_CHECK(weight.dim() == 2, "'weight' must be 2-D");
  TP_CHECK(indices.dtype() == kLong || indices.dtype() == kInt,
           "Expected tensor for argument #1 'indices' to have one of the following scalar types: "
           "Long, Int; but got tensorplay.",
           legacy_type_name(indices.dtype()), " instead (while checking arguments for embedding)");
  TP_CHECK_NOT_IMPLEMENTED(!sparse,
                           "embedding(): sparse=True needs sparse gradients, which tensorplay "
                           "does not have yet");
  std::vector<int64_t> shape = indices.sizes().vec();
  shape.push_back(weight.size(1));
  const Tensor idx = indices.to(kLong);
  return autograd::detail::differentiable<autograd::EmbeddingBackward0>(
      [&] { return weight.index_select(0, idx.reshape({-1})).view(shape); },
      [&](autograd::EmbeddingBackward0& fn, const Tensor&) {
        fn.num_weights_ = weight.size(0);
        fn.padding_idx_ = padding_idx;
        fn.scale_grad_by_freq_ = scale_grad_by_freq;
        fn.indices_ = autograd::SavedVariable(idx, false);
      },
      weight);
}

// Rows of self that indices name, scaled in place to norm max_norm where their norm_type-norm
// exceeds it (each row once; PyTorch's embedding_renorm_, no history).
template <class = void>
const Tensor& embedding_renorm_(const Tensor& self, const Tensor& indices, double max_norm,
                                double norm_type) {
  NoGradGuard no_grad;
  std::vector<bool> seen(static_cast<std::size_t>(self.size(0)), false);
  const Tensor idx = indices.to(kLong).contiguous();
  const int64_t* p = idx.data_ptr<int64_t>();
  for (int64_t i = 0; i < idx.numel(); ++i) {
    TP_CHECK_INDEX(p[i] >= 0 && p[i] < self.size(0), "index out of range in self");
    if (seen[static_cast<std::size_t>(p[i])]) continue;
    seen[static_cast<std::size_t>(p[i])] = true;
    const Tensor row = self.select(0, p[i]);
    const double norm = row.norm(norm_type).item<double>();
    if (norm > max_norm) row.mul_(max_norm / (norm + 1e-7));
  }
  return self;
}

// [..., num_classes] int64 with a one at each value (num_classes -1: the largest value + 1).
template <class = void>
Tensor one_hot(const Tensor& self, int64_t num_classes = -1) {
  TP_CHECK(self.dtype() == kLong, "one_hot is only applicable to index tensor.");
  if (self.numel() == 0) {
    TP_CHECK(num_classes > 0, "Can not infer total number of classes from empty tensor.");
  } else {
    TP_CHECK(self.min().item<int64_t>() >= 0, "Class values must be non-negative.");
    const int64_t top = self.max().item<int64_t>();
    if (num_classes == -1) {
      num_classes = top + 1;
    } else {
      TP_CHECK(top < num_classes, "Class values must be smaller than num_classes.");
    }
  }
  std::vector<int64_t> shape = self.sizes().vec();
  shape.push_back(num_classes);
  Tensor out = empty(shape, self.options()).zero_();
  if (self.numel() > 0) out.scatter_(-1, self.unsqueeze(-1), 1);
  return out;
}

}  // namespace tensorplay

// ---- tensorplay::nn::functional -----------------------------------------------------------------
namespace tensorplay::nn::functional {

// F::embedding(input, weight, options): a negative padding_idx counts from the end; max_norm
// renormalises the looked-up rows of weight in place first, as torch's F.embedding.
template <class = void>
Tensor embedding(const Tensor& input, const Tensor& weight,
                 const EmbeddingFuncOptions& options = {}) {
  int64_t padding_idx = -1;
  if (options.padding_idx()) {
    TP_CHECK(weight.dim() == 2, "'weight' must be 2-D");
    const int64_t p = *options.padding_idx(), n = weight.size(0);
    TP_CHECK(p < n && p >= -n, "Padding_idx must be within num_embeddings");
    padding_idx = p < 0 ? p + n : p;
  }
  if (options.max_norm()) {
    embedding_renorm_(weight, input, *options.max_norm(), options.norm_type());
  }
  return tensorplay::embedding(weight, input, padding_idx, options.scale_grad_by_freq(),
                               options.sparse());
}

template <class = void>
Tensor one_hot(const Tensor& tensor, int64_t num_classes = -1) {
  return tensorplay::one_hot(tensor, num_classes);
}

}  // namespace tensorplay::nn::functional
