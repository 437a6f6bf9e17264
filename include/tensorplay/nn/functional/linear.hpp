// linear and bilinear (torch.nn.functional.linear / bilinear, ATen's composites): linear is
// addmm for a 2-d input with a bias (AddmmBackward0), otherwise matmul plus the bias, as in
// PyTorch; bilinear is x1^T W[a] x2 per output feature, one matmul and a product-sum.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <cstdint>
#include <optional>
#include <vector>

#include <tensorplay/core/error.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/ops/linalg.hpp>
#include <tensorplay/ops/reduce.hpp>

namespace tensorplay {

// input [..., in], weight [out, in], bias [out] -> [..., out].
template <class = void>
Tensor linear(const Tensor& input, const Tensor& weight,
              const std::optional<Tensor>& bias = std::nullopt) {
  const bool has_bias = bias.has_value() && bias->defined();
  if (input.dim() == 2 && has_bias) return addmm(*bias, input, weight.t());
  const Tensor out = input.matmul(weight.t());
  return has_bias ? out.add(*bias) : out;
}

// input1 [..., n], input2 [..., m], weight [out, n, m], bias [out] -> [..., out] with
// y[..., a] = sum_nm input1[..., n] weight[a, n, m] input2[..., m] + bias[a].
template <class = void>
Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                const std::optional<Tensor>& bias = std::nullopt) {
  TP_CHECK(input1.dim() == input2.dim(), "bilinear(): input dimensions do not match: got ",
           input1.dim(), " and ", input2.dim());
  for (int64_t d = 0; d + 1 < input1.dim(); ++d) {
    TP_CHECK(input1.size(d) == input2.size(d),
             "bilinear(): input batch dimensions do not match "
             "at dim ",
             d, ": got ", input1.size(d), " and ", input2.size(d));
  }
  TP_CHECK(weight.dim() == 3 && input1.size(-1) == weight.size(1),
           "bilinear(): input1 size does not match weight size: got ", input1.size(-1),
           " but expected ", weight.dim() > 1 ? weight.size(1) : 0);
  TP_CHECK(input2.size(-1) == weight.size(2),
           "bilinear(): input2 size does not match weight size: got ", input2.size(-1),
           " but expected ", weight.size(2));
  const bool has_bias = bias.has_value() && bias->defined();
  TP_CHECK(!has_bias || (bias->dim() == 1 && bias->size(0) == weight.size(0)),
           "bilinear(): bias size does not match weight size: got ", has_bias ? bias->size(-1) : 0,
           " but expected ", weight.size(0));
  const int64_t out = weight.size(0), n = weight.size(1), m = weight.size(2);
  std::vector<int64_t> shape = input1.sizes().vec();
  shape.back() = out;
  const Tensor x1 = input1.reshape({-1, n}), x2 = input2.reshape({-1, m});
  // [B, n] @ [n, out * m] -> [B, out, m], times x2 over m.
  const Tensor t = x1.matmul(weight.permute({1, 0, 2}).reshape({n, out * m})).view({-1, out, m});
  Tensor y = t.mul(x2.unsqueeze(1)).sum(-1).view(shape);
  return has_bias ? y.add(*bias) : y;
}

namespace nn::functional {

// libtorch's F::linear / F::bilinear (an undefined bias: none).
template <class = void>
Tensor linear(const Tensor& input, const Tensor& weight, const Tensor& bias = {}) {
  return tensorplay::linear(input, weight, bias);
}
template <class = void>
Tensor bilinear(const Tensor& input1, const Tensor& input2, const Tensor& weight,
                const Tensor& bias = {}) {
  return tensorplay::bilinear(input1, input2, weight, bias);
}

}  // namespace nn::functional
}  // namespace tensorplay
