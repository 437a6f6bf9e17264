// dropout: ATen's dropout/dropout_ (input * mask / (1 - p), the mask drawn from a generator, so
// the gradient is MulBackward0 through the same mask) and nn::functional::dropout with
// libtorch's DropoutFuncOptions (plus the generator).
//
// As PyTorch 1.13: p = 0, evaluation mode or an empty input return the input itself; p = 1
// multiplies by a zero. Each element is kept when a uniform draw in [0, 1) is below 1 - p (the
// same rule as bernoulli_(1 - p)); the draws are the library's, not torch's.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <optional>

#include <tensorplay/core/error.hpp>
#include <tensorplay/core/grad_mode.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/nn/functional/options.hpp>
#include <tensorplay/ops/binary.hpp>
#include <tensorplay/ops/compare.hpp>
#include <tensorplay/ops/factories.hpp>
#include <tensorplay/ops/generator.hpp>
#include <tensorplay/ops/random.hpp>

namespace tensorplay {
namespace detail {

// The scaled keep-mask: 1 / (1 - p) where kept, 0 elsewhere, in input's dtype.
template <class = void>
Tensor dropout_noise(const Tensor& input, double p, std::optional<Generator> generator) {
  const DType dt = is_floating_point(input.dtype()) ? input.dtype() : kFloat;
  const Tensor u = rand(input.sizes(), generator, input.options().dtype(dt));
  return u.lt(1 - p).to(dt).div(1 - p);
}

template <class = void>
void check_dropout_p(double p) {
  TP_CHECK(p >= 0 && p <= 1, "dropout probability has to be between 0 and 1, but got ", p);
}

}  // namespace detail

template <class = void>
Tensor dropout(const Tensor& input, double p, bool train,
               std::optional<Generator> generator = std::nullopt) {
  detail::check_dropout_p(p);
  if (p == 0 || !train || input.numel() == 0) return input;
  if (p == 1) return input.mul(zeros({}, input.options()));
  Tensor noise;
  {
    NoGradGuard no_grad;
    noise = detail::dropout_noise(input, p, generator);
  }
  return input.mul(noise);
}

template <class = void>
const Tensor& dropout_(const Tensor& input, double p, bool train,
                       std::optional<Generator> generator = std::nullopt) {
  detail::check_dropout_p(p);
  if (p == 0 || !train || input.numel() == 0) return input;
  if (p == 1) return input.mul_(zeros({}, input.options()));
  Tensor noise;
  {
    NoGradGuard no_grad;
    noise = detail::dropout_noise(input, p, generator);
  }
  return input.mul_(noise);
}

}  // namespace tensorplay

namespace tensorplay::nn::functional {

template <class = void>
Tensor dropout(const Tensor& input, const DropoutFuncOptions& options = {}) {
  TP_CHECK_VALUE(options.p() >= 0 && options.p() <= 1,
                 "dropout probability has to be between 0 and 1, but got ", options.p());
  return options.inplace()
             ? tensorplay::dropout_(input, options.p(), options.training(), options.generator())
             : tensorplay::dropout(input, options.p(), options.training(), options.generator());
}

}  // namespace tensorplay::nn::functional
