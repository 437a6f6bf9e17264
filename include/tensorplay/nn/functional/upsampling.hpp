// Upsampling: upsample_nearest1d/2d/3d, _upsample_nearest_exact1d/2d/3d, upsample_linear1d,
// upsample_bilinear2d, upsample_bicubic2d and upsample_trilinear3d as ATen-level ops (both of
// ATen's overloads: explicit output_size with per-axis scales, node ...Backward0, and the .vec
// form with output_size or scale_factors, node ...Backward1), computed and differentiated by the
// separable kernel of nn/functional/resample.hpp with PyTorch's source indices and weights, and
// tensorplay::nn::functional::interpolate with libtorch's InterpolateFuncOptions.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <tensorplay/core/error.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/nn/functional/options.hpp>
#include <tensorplay/nn/functional/pooling.hpp>
#include <tensorplay/nn/functional/resample.hpp>

namespace tensorplay {
namespace detail {

enum class UpsampleKind { Nearest, NearestExact, Linear, Cubic };

// PyTorch's compute_scales_value: 1 / scale where a positive scale is given, else in / out.
template <class M>
M upsample_scale(std::optional<double> scale, int64_t in, int64_t out) {
  return scale && *scale > 0 ? static_cast<M>(1.0 / *scale)
                             : static_cast<M>(in) / static_cast<M>(out);
}

// The taps of one axis, computed in M as PyTorch's compute_indices_weights_* compute them
// (float for nearest, the op-math type of the tensor for the interpolating modes).
template <class M>
ResampleAxis upsample_axis(UpsampleKind kind, int64_t in, int64_t out, std::optional<double> scale,
                           bool align_corners) {
  ResampleAxis ax{in, out, 1, {}, {}};
  if (kind == UpsampleKind::Nearest || kind == UpsampleKind::NearestExact) {
    // nearest: floorf(o * scale) in float, with shortcuts for equal and doubled sizes;
    // nearest-exact: floor((o + 0.5) * scale), where o + 0.5 makes the product a double.
    const float s = upsample_scale<float>(scale, in, out);
    for (int64_t o = 0; o < out; ++o) {
      int64_t i = 0;
      if (kind == UpsampleKind::NearestExact) {
        i = static_cast<int64_t>(std::floor((static_cast<double>(o) + 0.5) * s));
      } else if (out == in || out == 2 * in) {
        i = out == in ? o : o >> 1;
      } else {
        i = static_cast<int64_t>(std::floor(static_cast<float>(o) * s));
      }
      ax.idx.push_back(std::min(i, in - 1));
    }
    return ax;
  }
  // area_pixel_compute_scale and area_pixel_compute_source_index.
  const M s = align_corners ? (out > 1 ? static_cast<M>(in - 1) / static_cast<M>(out - 1) : M(0))
                            : upsample_scale<M>(scale, in, out);
  const bool cubic = kind == UpsampleKind::Cubic;
  ax.taps = cubic ? 4 : 2;
  for (int64_t o = 0; o < out; ++o) {
    // As in PyTorch, o + 0.5 is a double, so the product is rounded to M only at the end.
    M real = align_corners
                 ? s * static_cast<M>(o)
                 : static_cast<M>(static_cast<double>(s) * (static_cast<double>(o) + 0.5) - 0.5);
    if (!align_corners && !cubic) real = std::max(real, M(0));
    // guard_index_and_lambda
    const int64_t i = std::min(static_cast<int64_t>(std::floor(real)), in - 1);
    const M t = std::min(std::max(real - static_cast<M>(i), M(0)), M(1));
    if (!cubic) {
      ax.idx.insert(ax.idx.end(), {i, i + (i < in - 1 ? 1 : 0)});
      ax.w.insert(ax.w.end(), {static_cast<double>(M(1) - t), static_cast<double>(t)});
      continue;
    }
    // get_cubic_upsample_coefficients with A = -0.75; taps clamped into the input.
    const M a = M(-0.75);
    auto conv1 = [&](M x) { return ((a + 2) * x - (a + 3)) * x * x + 1; };
    auto conv2 = [&](M x) { return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a; };
    const M coeffs[4] = {conv2(t + 1), conv1(t), conv1(1 - t), conv2(2 - t)};
    for (int64_t k = 0; k < 4; ++k) {
      ax.idx.push_back(std::clamp<int64_t>(i - 1 + k, 0, in - 1));
      ax.w.push_back(static_cast<double>(coeffs[k]));
    }
  }
  return ax;
}

// Every upsample_* op: ATen's checks (upsample_{1,2,3}d_common_check, the dtypes each kernel
// takes), then the plan of its D axes. `name`: the node PyTorch records for this overload.
template <int64_t D>
Tensor upsample(const Tensor& input, IntArrayRef output_size,
                const std::array<std::optional<double>, 3>& scales, UpsampleKind kind,
                bool align_corners, const std::string& name) {
  TP_CHECK(static_cast<int64_t>(output_size.size()) == D, "It is expected output_size equals to ",
           D, ", but got size ", output_size.size());
  TP_CHECK(input.dim() == D + 2, "It is expected input_size equals to ", D + 2, ", but got size ",
           input.dim());
  bool positive = true;
  std::string in_str, out_str;
  const char* names[] = {"D", "H", "W"};
  for (int64_t a = 0; a < D; ++a) {
    positive = positive && input.size(2 + a) > 0 && output_size[a] > 0;
    const std::string sep = a ? ", " : "";
    in_str += sep + names[3 - D + a] + ": " + std::to_string(input.size(2 + a));
    out_str += sep + names[3 - D + a] + ": " + std::to_string(output_size[a]);
  }
  TP_CHECK(positive, "Input and output sizes should be greater than 0, but got input (", in_str,
           D == 1 ? ") and output (" : ") output (", out_str, ")");
  int64_t rest = 1;
  for (int64_t d = 1; d < input.dim(); ++d) rest *= input.size(d);
  TP_CHECK(input.numel() != 0 || rest != 0, "Non-empty ", D + 2,
           "D data tensor expected but got a tensor with sizes ", input.sizes());
  const DType dt = input.dtype();
  const bool nearest = kind == UpsampleKind::Nearest || kind == UpsampleKind::NearestExact;
  TP_CHECK(dt == kFloat || dt == kDouble || dt == kBFloat16 || (nearest && dt == kByte), "\"",
           nearest                       ? "compute_indices_weights_nearest"
           : kind == UpsampleKind::Cubic ? "compute_indices_weights_cubic"
                                         : "compute_indices_weights_linear",
           "\" not implemented for '", scalar_type_name(dt), "'");
  auto plan = std::make_shared<ResamplePlan>();
  plan->name = name;
  // PyTorch keeps a channels-last 4-d input's layout in the nearest and bilinear kernels.
  plan->channels_last = D == 2 && kind != UpsampleKind::Cubic &&
                        input.suggest_memory_format() == MemoryFormat::ChannelsLast;
  for (int64_t a = 0; a < D; ++a) {
    const int64_t in = input.size(2 + a), out = output_size[a];
    const auto s = scales[static_cast<std::size_t>(a)];
    plan->axes.push_back(dt == kDouble ? upsample_axis<double>(kind, in, out, s, align_corners)
                                       : upsample_axis<float>(kind, in, out, s, align_corners));
  }
  return resample(input, std::shared_ptr<const ResamplePlan>(std::move(plan)), false);
}

// The .vec overloads' compute_output_size: exactly one of output_size and scale_factors, one
// entry per spatial dimension; sizes from scale factors are floor(size * factor).
template <int64_t D>
Tensor upsample_vec(const Tensor& input, std::optional<IntArrayRef> output_size,
                    std::optional<ArrayRef<double>> scale_factors, UpsampleKind kind,
                    bool align_corners, const std::string& name) {
  const int64_t spatial = input.dim() - 2;
  TP_CHECK(output_size.has_value() != scale_factors.has_value(),
           "Must specify exactly one of output_size and scale_factors");
  std::vector<int64_t> size;
  std::array<std::optional<double>, 3> scales{};
  if (output_size) {
    TP_CHECK(static_cast<int64_t>(output_size->size()) == spatial,
             "Expected static_cast<int64_t>(output_size->size()) == spatial_dimensions to be "
             "true, but got false.  (Could this error message be improved?  If so, please "
             "report an enhancement request to PyTorch.)");
    size = output_size->vec();
  } else {
    TP_CHECK(static_cast<int64_t>(scale_factors->size()) == spatial,
             "Expected static_cast<int64_t>(scale_factors->size()) == spatial_dimensions to be "
             "true, but got false.  (Could this error message be improved?  If so, please "
             "report an enhancement request to PyTorch.)");
    for (int64_t a = 0; a < spatial; ++a) {
      const double f = (*scale_factors)[static_cast<std::size_t>(a)];
      size.push_back(static_cast<int64_t>(static_cast<double>(input.size(2 + a)) * f));
      if (a < 3) scales[static_cast<std::size_t>(a)] = f;
    }
  }
  return upsample<D>(input, size, scales, kind, align_corners, name);
}

}  // namespace detail

// ---- the ATen-level ops -------------------------------------------------------------------------
template <class = void>
Tensor upsample_nearest1d(const Tensor& self, IntArrayRef output_size,
                          std::optional<double> scales = std::nullopt) {
  return detail::upsample<1>(self, output_size, {scales}, detail::UpsampleKind::Nearest, false,
                             "UpsampleNearest1DBackward0");
}
template <class = void>
Tensor upsample_nearest1d(const Tensor& input, std::optional<IntArrayRef> output_size,
                          std::optional<ArrayRef<double>> scale_factors) {
  return detail::upsample_vec<1>(input, output_size, scale_factors, detail::UpsampleKind::Nearest,
                                 false, "UpsampleNearest1DBackward1");
}
template <class = void>
Tensor upsample_nearest2d(const Tensor& self, IntArrayRef output_size,
                          std::optional<double> scales_h = std::nullopt,
                          std::optional<double> scales_w = std::nullopt) {
  return detail::upsample<2>(self, output_size, {scales_h, scales_w}, detail::UpsampleKind::Nearest,
                             false, "UpsampleNearest2DBackward0");
}
template <class = void>
Tensor upsample_nearest2d(const Tensor& input, std::optional<IntArrayRef> output_size,
                          std::optional<ArrayRef<double>> scale_factors) {
  return detail::upsample_vec<2>(input, output_size, scale_factors, detail::UpsampleKind::Nearest,
                                 false, "UpsampleNearest2DBackward1");
}
template <class = void>
Tensor upsample_nearest3d(const Tensor& self, IntArrayRef output_size,
                          std::optional<double> scales_d = std::nullopt,
                          std::optional<double> scales_h = std::nullopt,
                          std::optional<double> scales_w = std::nullopt) {
  return detail::upsample<3>(self, output_size, {scales_d, scales_h, scales_w},
                             detail::UpsampleKind::Nearest, false, "UpsampleNearest3DBackward0");
}
template <class = void>
Tensor upsample_nearest3d(const Tensor& input, std::optional<IntArrayRef> output_size,
                          std::optional<ArrayRef<double>> scale_factors) {
  return detail::upsample_vec<3>(input, output_size, scale_factors, detail::UpsampleKind::Nearest,
                                 false, "UpsampleNearest3DBackward1");
}
template <class = void>
Tensor _upsample_nearest_exact1d(const Tensor& self, IntArrayRef output_size,
                                 std::optional<double> scales = std::nullopt) {
  return detail::upsample<1>(self, output_size, {scales}, detail::UpsampleKind::NearestExact, false,
                             "UpsampleNearestExact1DBackward0");
}
template <class = void>
Tensor _upsample_nearest_exact1d(const Tensor& input, std::optional<IntArrayRef> output_size,
                                 std::optional<ArrayRef<double>> scale_factors) {
  return detail::upsample_vec<1>(input, output_size, scale_factors,
                                 detail::UpsampleKind::NearestExact, false,
                                 "UpsampleNearestExact1DBackward1");
}
template <class = void>
Tensor _upsample_nearest_exact2d(const Tensor& self, IntArrayRef output_size,
                                 std::optional<double> scales_h = std::nullopt,
                                 std::optional<double> scales_w = std::nullopt) {
  return detail::upsample<2>(self, output_size, {scales_h, scales_w},
                             detail::UpsampleKind::NearestExact, false,
                             "UpsampleNearestExact2DBackward0");
}
template <class = void>
Tensor _upsample_nearest_exact2d(const Tensor& input, std::optional<IntArrayRef> output_size,
                                 std::optional<ArrayRef<double>> scale_factors) {
  return detail::upsample_vec<2>(input, output_size, scale_factors,
                                 detail::UpsampleKind::NearestExact, false,
                                 "UpsampleNearestExact2DBackward1");
}
template <class = void>
Tensor _upsample_nearest_exact3d(const Tensor& self, IntArrayRef output_size,
                                 std::optional<double> scales_d = std::nullopt,
                                 std::optional<double> scales_h = std::nullopt,
                                 std::optional<double> scales_w = std::nullopt) {
  return detail::upsample<3>(self, output_size, {scales_d, scales_h, scales_w},
                             detail::UpsampleKind::NearestExact, false,
                             "UpsampleNearestExact3DBackward0");
}
template <class = void>
Tensor _upsample_nearest_exact3d(const Tensor& input, std::optional<IntArrayRef> output_size,
                                 std::optional<ArrayRef<double>> scale_factors) {
  return detail::upsample_vec<3>(input, output_size, scale_factors,
                                 detail::UpsampleKind::NearestExact, false,
                                 "UpsampleNearestExact3DBackward1");
}
template <class = void>
Tensor upsample_linear1d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                         std::optional<double> scales = std::nullopt) {
  return detail::upsample<1>(self, output_size, {scales}, detail::UpsampleKind::Linear,
                             align_corners, "UpsampleLinear1DBackward0");
}
template <class = void>
Tensor upsample_linear1d(const Tensor& input, std::optional<IntArrayRef> output_size,
                         bool align_corners, std::optional<ArrayRef<double>> scale_factors) {
  return detail::upsample_vec<1>(input, output_size, scale_factors, detail::UpsampleKind::Linear,
                                 align_corners, "UpsampleLinear1DBackward1");
}
template <class = void>
Tensor upsample_bilinear2d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                           std::optional<double> scales_h = std::nullopt,
                           std::optional<double> scales_w = std::nullopt) {
  return detail::upsample<2>(self, output_size, {scales_h, scales_w}, detail::UpsampleKind::Linear,
                             align_corners, "UpsampleBilinear2DBackward0");
}
template <class = void>
Tensor upsample_bilinear2d(const Tensor& input, std::optional<IntArrayRef> output_size,
                           bool align_corners, std::optional<ArrayRef<double>> scale_factors) {
  return detail::upsample_vec<2>(input, output_size, scale_factors, detail::UpsampleKind::Linear,
                                 align_corners, "UpsampleBilinear2DBackward1");
}
template <class = void>
Tensor upsample_bicubic2d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                          std::optional<double> scales_h = std::nullopt,
                          std::optional<double> scales_w = std::nullopt) {
  return detail::upsample<2>(self, output_size, {scales_h, scales_w}, detail::UpsampleKind::Cubic,
                             align_corners, "UpsampleBicubic2DBackward0");
}
template <class = void>
Tensor upsample_bicubic2d(const Tensor& input, std::optional<IntArrayRef> output_size,
                          bool align_corners, std::optional<ArrayRef<double>> scale_factors) {
  return detail::upsample_vec<2>(input, output_size, scale_factors, detail::UpsampleKind::Cubic,
                                 align_corners, "UpsampleBicubic2DBackward1");
}
template <class = void>
Tensor upsample_trilinear3d(const Tensor& self, IntArrayRef output_size, bool align_corners,
                            std::optional<double> scales_d = std::nullopt,
                            std::optional<double> scales_h = std::nullopt,
                            std::optional<double> scales_w = std::nullopt) {
  return detail::upsample<3>(self, output_size, {scales_d, scales_h, scales_w},
                             detail::UpsampleKind::Linear, align_corners,
                             "UpsampleTrilinear3DBackward0");
}
template <class = void>
Tensor upsample_trilinear3d(const Tensor& input, std::optional<IntArrayRef> output_size,
                            bool align_corners, std::optional<ArrayRef<double>> scale_factors) {
  return detail::upsample_vec<3>(input, output_size, scale_factors, detail::UpsampleKind::Linear,
                                 align_corners, "UpsampleTrilinear3DBackward1");
}

}  // namespace tensorplay

// ---- tensorplay::nn::functional -----------------------------------------------------------------
namespace tensorplay::nn::functional {

namespace detail {
inline const char* interpolate_mode_name(InterpolateMode m) {
  const char* names[] = {"nearest",   "linear", "bilinear",     "bicubic",
                         "trilinear", "area",   "nearest-exact"};
  return names[static_cast<int>(m)];
}
}  // namespace detail

// F::interpolate as torch.nn.functional.interpolate: exactly one of size and scale_factor (one
// value for every spatial dimension, or one each); align_corners only for the interpolating
// modes (default false); recompute_scale_factor turns scale factors into a size and drops
// them. Calls the .vec overloads, as torch does (so the nodes are ...Backward1).
template <class = void>
Tensor interpolate(const Tensor& input, const InterpolateFuncOptions& options = {}) {
  const InterpolateMode mode = options.mode();
  const bool plain = mode == kNearest || mode == kArea || mode == kNearestExact;
  TP_CHECK_VALUE(!plain || !options.align_corners(),
                 "align_corners option can only be set with the interpolating modes: linear | "
                 "bilinear | bicubic | trilinear");
  const bool align_corners = options.align_corners().value_or(false);
  const int64_t dim = input.dim() - 2;
  const auto& size = options.size();
  const auto& scale_factor = options.scale_factor();
  TP_CHECK_VALUE(!(size && scale_factor), "only one of size or scale_factor should be defined");
  TP_CHECK_VALUE(size || scale_factor, "either size or scale_factor should be defined");
  const std::vector<int64_t> spatial(input.sizes().begin() + std::min<int64_t>(2, input.dim()),
                                     input.sizes().end());
  std::optional<std::vector<int64_t>> output_size;
  std::optional<std::vector<double>> scale_factors;
  if (size) {
    std::vector<int64_t> s = *size;
    if (s.size() == 1 && dim != 1)
      s.assign(static_cast<std::size_t>(std::max<int64_t>(dim, 0)), s[0]);
    TP_CHECK_VALUE(static_cast<int64_t>(s.size()) == dim,
                   "Input and output must have the same number of spatial dimensions, but got "
                   "input with spatial dimensions of ",
                   IntArrayRef(spatial), " and output size of ", IntArrayRef(s),
                   ". Please provide input tensor in (N, C, d1, d2, ...,dK) format and output "
                   "size in (o1, o2, ...,oK) format.");
    output_size = s;
  } else {
    std::vector<double> f = *scale_factor;
    if (f.size() == 1 && dim != 1)
      f.assign(static_cast<std::size_t>(std::max<int64_t>(dim, 0)), f[0]);
    TP_CHECK_VALUE(static_cast<int64_t>(f.size()) == dim,
                   "Input and scale_factor must have the same number of spatial dimensions, but "
                   "got input with spatial dimensions of ",
                   IntArrayRef(spatial), " and scale_factor of shape ", ArrayRef<double>(f),
                   ". Please provide input tensor in (N, C, d1, d2, ...,dK) format and "
                   "scale_factor in (s1, s2, ...,sK) format.");
    scale_factors = f;
  }
  const bool recompute = options.recompute_scale_factor().value_or(false);
  TP_CHECK_VALUE(!(recompute && size),
                 "recompute_scale_factor is not meaningful with an explicit size.");
  if (recompute || (mode == kArea && !output_size)) {
    std::vector<int64_t> s;
    for (int64_t i = 0; i < dim; ++i) {
      s.push_back(static_cast<int64_t>(
          std::floor(static_cast<double>(input.size(2 + i)) * (*scale_factors)[i])));
    }
    output_size = s;
    scale_factors.reset();
  }
  TP_CHECK_VALUE(!options.antialias() || ((mode == kBilinear || mode == kBicubic) && dim == 2),
                 "Anti-alias option is only supported for bilinear and bicubic modes");
  TP_CHECK_NOT_IMPLEMENTED(!options.antialias(),
                           "interpolate(): antialias=True is not implemented in tensorplay yet");
  std::optional<IntArrayRef> os;
  if (output_size) os = IntArrayRef(*output_size);
  std::optional<ArrayRef<double>> sf;
  if (scale_factors) sf = ArrayRef<double>(*scale_factors);
  const int64_t nd = input.dim();
  if (mode == kNearest) {
    if (nd == 3) return tensorplay::upsample_nearest1d(input, os, sf);
    if (nd == 4) return tensorplay::upsample_nearest2d(input, os, sf);
    if (nd == 5) return tensorplay::upsample_nearest3d(input, os, sf);
  }
  if (mode == kNearestExact) {
    if (nd == 3) return tensorplay::_upsample_nearest_exact1d(input, os, sf);
    if (nd == 4) return tensorplay::_upsample_nearest_exact2d(input, os, sf);
    if (nd == 5) return tensorplay::_upsample_nearest_exact3d(input, os, sf);
  }
  if (mode == kArea) {  // adaptive average pooling to the output size, as torch's interpolate
    if (nd == 3) return tensorplay::adaptive_avg_pool1d(input, *os);
    if (nd == 4) return tensorplay::adaptive_avg_pool2d(input, *os);
    if (nd == 5) return tensorplay::adaptive_avg_pool3d(input, *os);
  }
  if (mode == kLinear && nd == 3)
    return tensorplay::upsample_linear1d(input, os, align_corners, sf);
  if (mode == kBilinear && nd == 4) {
    return tensorplay::upsample_bilinear2d(input, os, align_corners, sf);
  }
  if (mode == kTrilinear && nd == 5) {
    return tensorplay::upsample_trilinear3d(input, os, align_corners, sf);
  }
  if (mode == kBicubic && nd == 4) {
    return tensorplay::upsample_bicubic2d(input, os, align_corners, sf);
  }
  const bool lin = mode == kLinear || mode == kBilinear || mode == kTrilinear;
  if (lin && nd >= 3 && nd <= 5) {
    const int64_t need = mode == kLinear ? 3 : mode == kBilinear ? 4 : 5;
    TP_CHECK_NOT_IMPLEMENTED(false, "Got ", nd, "D input, but ",
                             detail::interpolate_mode_name(mode), " mode needs ", need, "D input");
  }
  TP_CHECK_NOT_IMPLEMENTED(false, "Input Error: Only 3D, 4D and 5D input Tensors supported (got ",
                           nd,
                           "D) for the modes: nearest | linear | bilinear | bicubic | trilinear | "
                           "area | nearest-exact (got ",
                           detail::interpolate_mode_name(mode), ")");
  return {};
}

}  // namespace tensorplay::nn::functional
