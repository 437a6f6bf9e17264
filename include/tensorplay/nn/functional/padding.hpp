// Padding: constant_pad_nd (negative pads crop), reflection_pad1d/2d/3d and
// replication_pad1d/2d/3d as ATen-level ops with their own backward kernels (the transposed
// index map of nn/functional/resample.hpp), PyTorch's circular decomposition (_pad_circular:
// slice copies, so its gradient flows through CopySlices as in torch 1.13), and pad(), the
// dispatcher behind torch.nn.functional.pad, with libtorch's F::pad(input, PadFuncOptions).
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <tensorplay/autograd/node.hpp>
#include <tensorplay/autograd/record.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/scalar.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/nn/functional/options.hpp>
#include <tensorplay/nn/functional/resample.hpp>
#include <tensorplay/ops/copy.hpp>
#include <tensorplay/ops/factories.hpp>

namespace tensorplay {

namespace detail {
template <class = void>
Tensor constant_pad_nd_backward(const Tensor& grad, const std::vector<int64_t>& pad);
}  // namespace detail

namespace autograd {

// constant_pad_nd(self, pad, value): the gradient is the output gradient cropped back, i.e.
// constant_pad_nd(grad, -pad) (derivatives.yaml), itself differentiable.
template <class = void>
struct ConstantPadNdBackward0T final : Node {
  TENSORPLAY_NODE_NAME_(ConstantPadNdBackward0)
  std::vector<int64_t> pad_;
  variable_list apply(variable_list&& grads) override {
    return {tensorplay::detail::constant_pad_nd_backward(grads[0], pad_)};
  }
};
using ConstantPadNdBackward0 = ConstantPadNdBackward0T<>;

}  // namespace autograd

// pad = (last dim's left, right, next-to-last's left, right, ...): a new tensor filled with
// value around self, or self narrowed where a pad is negative (PyTorch's constant_pad_nd, in
// self's suggested memory format).
template <class = void>
Tensor constant_pad_nd(const Tensor& self, IntArrayRef pad, const Scalar& value = 0) {
  TP_CHECK(pad.size() % 2 == 0, "Length of pad must be even but instead it equals ", pad.size());
  const int64_t l_inp = self.dim(), l_pad = static_cast<int64_t>(pad.size()) / 2;
  const int64_t l_diff = l_inp - l_pad;
  TP_CHECK(l_inp >= l_pad,
           "Length of pad should be no more than twice the number of dimensions of the input. "
           "Pad length is ",
           pad.size(), "while the input has ", l_inp, "dimensions.");
  return autograd::detail::differentiable<autograd::ConstantPadNdBackward0>(
      [&] {
        Tensor c_input = self;
        bool all_pads_non_positive = true;
        for (int64_t i = l_diff; i < l_inp; ++i) {
          const int64_t lo = pad[2 * (l_inp - i - 1)], hi = pad[2 * (l_inp - i - 1) + 1];
          if (lo < 0) c_input = c_input.narrow(i, -lo, c_input.size(i) + lo);
          if (hi < 0) c_input = c_input.narrow(i, 0, c_input.size(i) + hi);
          if (lo > 0 || hi > 0) all_pads_non_positive = false;
        }
        if (all_pads_non_positive) return c_input.clone();
        std::vector<int64_t> shape(self.sizes().begin(), self.sizes().begin() + l_diff);
        for (int64_t i = 0; i < l_pad; ++i) {
          const std::size_t p = pad.size() - static_cast<std::size_t>(i + 1) * 2;
          const int64_t size = self.size(l_diff + i), new_dim = size + pad[p] + pad[p + 1];
          TP_CHECK(new_dim > 0, "The input size ", size, ", plus negative padding ", pad[p],
                   " and ", pad[p + 1],
                   " resulted in a negative output size, which is invalid. Check dimension ",
                   l_diff + i, " of your input.");
          shape.push_back(new_dim);
        }
        Tensor out = empty(shape, self.options(), self.suggest_memory_format());
        out.fill_(value);
        Tensor c_out = out;
        for (int64_t i = l_diff; i < l_inp; ++i) {
          const int64_t lo = pad[2 * (l_inp - i - 1)], hi = pad[2 * (l_inp - i - 1) + 1];
          if (lo > 0) c_out = c_out.narrow(i, lo, c_out.size(i) - lo);
          if (hi > 0) c_out = c_out.narrow(i, 0, c_out.size(i) - hi);
        }
        c_out.copy_(c_input);
        return out;
      },
      [&](autograd::ConstantPadNdBackward0& fn, const Tensor&) { fn.pad_ = pad.vec(); }, self);
}

namespace detail {

template <class>
Tensor constant_pad_nd_backward(const Tensor& grad, const std::vector<int64_t>& pad) {
  std::vector<int64_t> neg(pad.size());
  std::transform(pad.begin(), pad.end(), neg.begin(), [](int64_t p) { return -p; });
  return constant_pad_nd(grad, neg, 0);
}

// reflection_pad{D}d / replication_pad{D}d: PyTorch's checks (padding length, a [C, ...] or
// [N, C, ...] input whose non-batch sizes are non-zero, reflection's pad < input size, an
// output that is not empty everywhere), then the index map of each padded axis.
template <int64_t D>
Tensor pad_nd_map(const Tensor& self, IntArrayRef padding, bool reflect) {
  const char* kind = reflect ? "reflection" : "replication";
  const std::string op =
      std::string(kind) + "_pad" + std::to_string(D) + "d" + (reflect && D < 3 ? "" : "_cpu");
  TP_CHECK(static_cast<int64_t>(padding.size()) == 2 * D, "padding size is expected to be ", 2 * D);
  const int64_t nd = self.dim();
  bool valid = nd == D + 1 || nd == D + 2;
  for (int64_t d = nd == D + 2 ? 1 : 0; valid && d < nd; ++d) valid = self.size(d) != 0;
  TP_CHECK(valid, "Expected ", D + 1, "D or ", D + 2,
           "D (batch mode) tensor with possibly 0 batch size and other non-zero dimensions for "
           "input, but got: ",
           self.sizes());
  TP_CHECK(self.dtype() == kFloat || self.dtype() == kDouble, "\"", op, "\" not implemented for '",
           scalar_type_name(self.dtype()), "'");
  auto plan = std::make_shared<ResamplePlan>();
  plan->name =
      std::string(reflect ? "ReflectionPad" : "ReplicationPad") + std::to_string(D) + "DBackward0";
  bool any_positive = false;
  for (int64_t a = 0; a < D; ++a) {
    const int64_t dim = nd - D + a, in = self.size(dim);
    const int64_t lo = padding[2 * (D - 1 - a)], hi = padding[2 * (D - 1 - a) + 1];
    if (reflect) {
      TP_CHECK(lo < in && hi < in, "Argument #", 4 + 2 * (D - 1 - a),
               ": Padding size should be less than the corresponding input dimension, but got: "
               "padding (",
               lo, ", ", hi, ") at dimension ", dim, " of input ", self.sizes());
    }
    ResampleAxis ax{in, in + lo + hi, 1, {}, {}};
    any_positive = any_positive || ax.out >= 1;
    for (int64_t o = 0; o < ax.out; ++o) {
      int64_t i = o - lo;
      if (reflect) {
        i = i < 0 ? -i : i;
        i = i >= in ? 2 * (in - 1) - i : i;
      } else {
        i = std::clamp<int64_t>(i, 0, in - 1);
      }
      ax.idx.push_back(i);
    }
    plan->axes.push_back(std::move(ax));
  }
  if (!any_positive) {
    std::string sizes_in, sizes_out;
    const char* names[] = {"D", "H", "W"};
    for (int64_t a = 0; a < D; ++a) {
      const char* n = names[3 - D + a];
      sizes_in += std::string(a ? ", " : "") + n + ": " + std::to_string(plan->axes[a].in);
      sizes_out += std::string(a ? " " : "") + n + ": " + std::to_string(plan->axes[a].out);
    }
    TP_ERROR("input (", sizes_in, ") is too small. Calculated output ", sizes_out);
  }
  return resample(self, std::shared_ptr<const ResamplePlan>(std::move(plan)), false);
}

}  // namespace detail

template <class = void>
Tensor reflection_pad1d(const Tensor& self, IntArrayRef padding) {
  return detail::pad_nd_map<1>(self, padding, true);
}
template <class = void>
Tensor reflection_pad2d(const Tensor& self, IntArrayRef padding) {
  return detail::pad_nd_map<2>(self, padding, true);
}
template <class = void>
Tensor reflection_pad3d(const Tensor& self, IntArrayRef padding) {
  return detail::pad_nd_map<3>(self, padding, true);
}
template <class = void>
Tensor replication_pad1d(const Tensor& self, IntArrayRef padding) {
  return detail::pad_nd_map<1>(self, padding, false);
}
template <class = void>
Tensor replication_pad2d(const Tensor& self, IntArrayRef padding) {
  return detail::pad_nd_map<2>(self, padding, false);
}
template <class = void>
Tensor replication_pad3d(const Tensor& self, IntArrayRef padding) {
  return detail::pad_nd_map<3>(self, padding, false);
}

// Circular padding of an [N, C, ...] input as PyTorch 1.13 composes it: the input copied into
// the middle of a new tensor, then each padded side copied from the opposite end (corners are
// written more than once). The copies are recorded, so the gradient is CopySlices' as in torch.
template <class = void>
Tensor _pad_circular(const Tensor& self, IntArrayRef padding) {
  const int64_t nd_in = self.dim(), ndim = nd_in - 2;
  TP_CHECK(static_cast<int64_t>(padding.size()) + 4 == nd_in * 2, "Invalid padding size, expected ",
           ndim * 2, " but got ", padding.size());
  std::vector<int64_t> shape = self.sizes().vec();
  for (int64_t i = 0; i < ndim; ++i) {
    const int64_t lo = padding[2 * (ndim - i - 1)], hi = padding[2 * (ndim - i - 1) + 1];
    const int64_t size = self.size(2 + i);
    shape[2 + i] = size + lo + hi;
    TP_CHECK(lo <= size && hi <= size, "Padding value causes wrapping around more than once.");
    TP_CHECK(shape[2 + i] >= 0, "Negative padding value is resulting in an empty dimension");
  }
  Tensor out = empty(shape, self.options());
  Tensor out_slice = out, in_slice = self;
  for (int64_t i = 0; i < ndim; ++i) {
    const int64_t dim = ndim - i + 1, lo = padding[2 * i], hi = padding[2 * i + 1];
    out_slice =
        out_slice.slice(dim, std::max<int64_t>(lo, 0), shape[dim] - std::max<int64_t>(hi, 0));
    in_slice =
        in_slice.slice(dim, std::max<int64_t>(-lo, 0), self.size(dim) - std::max<int64_t>(-hi, 0));
  }
  out_slice.copy_(in_slice);
  for (int64_t i = 0; i < ndim; ++i) {
    const int64_t dim = ndim - i + 1, lo = padding[2 * i], hi = padding[2 * i + 1];
    if (lo > 0) {
      out.narrow(dim, 0, lo).copy_(out.narrow(dim, shape[dim] - lo - std::max<int64_t>(hi, 0), lo));
    }
    if (hi > 0) {
      out.narrow(dim, shape[dim] - hi, hi).copy_(out.narrow(dim, std::max<int64_t>(lo, 0), hi));
    }
  }
  return out;
}

// at::pad (torch.nn.functional.pad): mode "constant" (value defaults to 0), "reflect",
// "replicate" or "circular"; the non-constant modes pad the last 1, 2 or 3 dimensions of a
// batched or unbatched input and take no fill value.
template <class = void>
Tensor pad(const Tensor& self, IntArrayRef pad, std::string_view mode = "constant",
           std::optional<double> value = std::nullopt) {
  const bool reflect = mode == "reflect", replicate = mode == "replicate";
  TP_CHECK_NOT_IMPLEMENTED(mode == "constant" || reflect || replicate || mode == "circular",
                           "Unrecognised padding mode ", mode);
  const int64_t input_dim = self.dim(), n = static_cast<int64_t>(pad.size());
  TP_CHECK(n % 2 == 0, "Padding length must be divisible by 2");
  TP_CHECK(n <= input_dim * 2, "Padding length too large");
  if (mode == "constant") return constant_pad_nd(self, pad, value.value_or(0.0));
  TP_CHECK(!value || *value == 0, "Padding mode \"", mode, "\" doesn't take in value argument");
  if (n == 2 && (input_dim == 2 || input_dim == 3)) {
    if (reflect) return reflection_pad1d(self, pad);
    if (replicate) return replication_pad1d(self, pad);
    return _pad_circular(self, pad);
  }
  if (n == 4 && (input_dim == 3 || input_dim == 4)) {
    if (reflect) return reflection_pad2d(self, pad);
    if (replicate) return replication_pad2d(self, pad);
    return _pad_circular(self, pad);
  }
  if (n == 6 && (input_dim == 4 || input_dim == 5)) {
    if (reflect) return reflection_pad3d(self, pad);
    if (replicate) return replication_pad3d(self, pad);
    return _pad_circular(self, pad);
  }
  TP_CHECK_NOT_IMPLEMENTED(false,
                           "Only 2D, 3D, 4D, 5D padding with non-constant padding are supported "
                           "for now");
  return {};
}

}  // namespace tensorplay

// ---- tensorplay::nn::functional -----------------------------------------------------------------
namespace tensorplay::nn::functional {

// F::pad(input, PadFuncOptions({1, 1}).mode(kReflect).value(v)), as libtorch's: the value is
// always passed on, so a non-zero value with a non-constant mode is refused.
template <class = void>
Tensor pad(const Tensor& input, const PadFuncOptions& options) {
  const char* names[] = {"constant", "reflect", "replicate", "circular"};
  return tensorplay::pad(input, options.pad(), names[static_cast<int>(options.mode())],
                         options.value());
}

}  // namespace tensorplay::nn::functional
