// The option structs of tensorplay::nn::functional, named and defaulted as libtorch's
// torch::nn::functional::*FuncOptions, and the loss reduction enum (at::Reduction's values).
// Plain types without templates: the separately compiled mode's user files see them in full
// (compiled/public_api.hpp includes this header), since the declared ops take them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include <tensorplay/core/error.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/ops/generator.hpp>

namespace tensorplay {

// How a loss reduces its elementwise values: at::Reduction's None = 0, Mean = 1, Sum = 2, and
// BatchMean, which only kl_div accepts (the sum divided by the batch size, as F.kl_div does).
enum class Reduction : int64_t { None = 0, Mean = 1, Sum = 2, BatchMean = 3 };
inline constexpr Reduction kNone = Reduction::None;
inline constexpr Reduction kMean = Reduction::Mean;
inline constexpr Reduction kSum = Reduction::Sum;
inline constexpr Reduction kBatchMean = Reduction::BatchMean;

// The reduction a Python string names ('none' 'mean' 'sum', and 'batchmean' where allowed),
// refused with torch.nn._reduction's ValueError.
inline Reduction reduction_from_string(std::string_view s, bool allow_batchmean = false) {
  if (s == "none") return kNone;
  if (s == "mean") return kMean;
  if (s == "sum") return kSum;
  TP_CHECK_VALUE(allow_batchmean && s == "batchmean", s, " is not a valid value for reduction");
  return kBatchMean;
}

// A convolution's padding given as a string ('same' or 'valid'): the type of the padding
// parameter of conv1d/2d/3d's second overload. Made from a string literal, std::string or
// std::string_view, never from an integer (a plain `0` must pick the IntArrayRef overload, not
// convert to a null const char*).
struct PaddingString {
  template <std::size_t N>
  PaddingString(const char (&s)[N]) : value(s, N - 1) {}  // NOLINT: implicit as a string
  PaddingString(std::string_view s) : value(s) {}         // NOLINT
  PaddingString(const std::string& s) : value(s) {}       // NOLINT
  std::string_view value;
};
// The modes of pad and interpolate: libtorch's mode tags (torch::kReflect, torch::kBilinear, ...)
// as two enums.
enum class PadMode { Constant, Reflect, Replicate, Circular };
inline constexpr PadMode kConstant = PadMode::Constant;
inline constexpr PadMode kReflect = PadMode::Reflect;
inline constexpr PadMode kReplicate = PadMode::Replicate;
inline constexpr PadMode kCircular = PadMode::Circular;
enum class InterpolateMode { Nearest, Linear, Bilinear, Bicubic, Trilinear, Area, NearestExact };
inline constexpr InterpolateMode kNearest = InterpolateMode::Nearest;
inline constexpr InterpolateMode kLinear = InterpolateMode::Linear;
inline constexpr InterpolateMode kBilinear = InterpolateMode::Bilinear;
inline constexpr InterpolateMode kBicubic = InterpolateMode::Bicubic;
inline constexpr InterpolateMode kTrilinear = InterpolateMode::Trilinear;
inline constexpr InterpolateMode kArea = InterpolateMode::Area;
inline constexpr InterpolateMode kNearestExact = InterpolateMode::NearestExact;

namespace nn::functional {

// libtorch's TORCH_ARG: a private member NAME_ with the chainable setter NAME(value) and the
// getter NAME(); the default follows the macro (`TENSORPLAY_NN_ARG_(double, eps) = 1e-5;`).
#define TENSORPLAY_NN_ARG_(T, name)                  \
 public:                                             \
  auto& name(const T& value) {                       \
    name##_ = value;                                 \
    return *this;                                    \
  }                                                  \
  const T& name() const noexcept { return name##_; } \
                                                     \
 private:                                            \
  T name##_

// ---- activations --------------------------------------------------------------------------------
struct ReLUFuncOptions {
  TENSORPLAY_NN_ARG_(bool, inplace) = false;
};
using ReLU6FuncOptions = ReLUFuncOptions;
using SELUFuncOptions = ReLUFuncOptions;
using HardsigmoidFuncOptions = ReLUFuncOptions;
using HardswishFuncOptions = ReLUFuncOptions;
using SiLUFuncOptions = ReLUFuncOptions;
using MishFuncOptions = ReLUFuncOptions;
struct LeakyReLUFuncOptions {
  TENSORPLAY_NN_ARG_(double, negative_slope) = 1e-2;
  TENSORPLAY_NN_ARG_(bool, inplace) = false;
};
struct ELUFuncOptions {
  TENSORPLAY_NN_ARG_(double, alpha) = 1.0;
  TENSORPLAY_NN_ARG_(bool, inplace) = false;
};
struct GELUFuncOptions {
  TENSORPLAY_NN_ARG_(std::string, approximate) = "none";
};
struct SoftplusFuncOptions {
  TENSORPLAY_NN_ARG_(double, beta) = 1.0;
  TENSORPLAY_NN_ARG_(double, threshold) = 20.0;
};
struct HardtanhFuncOptions {
  TENSORPLAY_NN_ARG_(double, min_val) = -1.0;
  TENSORPLAY_NN_ARG_(double, max_val) = 1.0;
  TENSORPLAY_NN_ARG_(bool, inplace) = false;
};

// ---- normalisation ------------------------------------------------------------------------------
struct LayerNormFuncOptions {
  LayerNormFuncOptions(std::vector<int64_t> normalized_shape)  // NOLINT: implicit as libtorch's
      : normalized_shape_(std::move(normalized_shape)) {}
  TENSORPLAY_NN_ARG_(std::vector<int64_t>, normalized_shape);
  TENSORPLAY_NN_ARG_(Tensor, weight) = {};
  TENSORPLAY_NN_ARG_(Tensor, bias) = {};
  TENSORPLAY_NN_ARG_(double, eps) = 1e-5;
};
struct GroupNormFuncOptions {
  GroupNormFuncOptions(int64_t num_groups) : num_groups_(num_groups) {}  // NOLINT
  TENSORPLAY_NN_ARG_(int64_t, num_groups);
  TENSORPLAY_NN_ARG_(Tensor, weight) = {};
  TENSORPLAY_NN_ARG_(Tensor, bias) = {};
  TENSORPLAY_NN_ARG_(double, eps) = 1e-5;
};
struct BatchNormFuncOptions {
  TENSORPLAY_NN_ARG_(Tensor, weight) = {};
  TENSORPLAY_NN_ARG_(Tensor, bias) = {};
  TENSORPLAY_NN_ARG_(bool, training) = false;
  TENSORPLAY_NN_ARG_(double, momentum) = 0.1;
  TENSORPLAY_NN_ARG_(double, eps) = 1e-5;
};
struct InstanceNormFuncOptions {
  TENSORPLAY_NN_ARG_(Tensor, running_mean) = {};
  TENSORPLAY_NN_ARG_(Tensor, running_var) = {};
  TENSORPLAY_NN_ARG_(Tensor, weight) = {};
  TENSORPLAY_NN_ARG_(Tensor, bias) = {};
  TENSORPLAY_NN_ARG_(bool, use_input_stats) = true;
  TENSORPLAY_NN_ARG_(double, momentum) = 0.1;
  TENSORPLAY_NN_ARG_(double, eps) = 1e-5;
};

// ---- losses -------------------------------------------------------------------------------------
struct MSELossFuncOptions {
  TENSORPLAY_NN_ARG_(Reduction, reduction) = kMean;
};
using L1LossFuncOptions = MSELossFuncOptions;
struct SmoothL1LossFuncOptions {
  TENSORPLAY_NN_ARG_(Reduction, reduction) = kMean;
  TENSORPLAY_NN_ARG_(double, beta) = 1.0;
};
struct HuberLossFuncOptions {
  TENSORPLAY_NN_ARG_(Reduction, reduction) = kMean;
  TENSORPLAY_NN_ARG_(double, delta) = 1.0;
};
struct BinaryCrossEntropyFuncOptions {
  TENSORPLAY_NN_ARG_(Tensor, weight) = {};
  TENSORPLAY_NN_ARG_(Reduction, reduction) = kMean;
};
struct BinaryCrossEntropyWithLogitsFuncOptions {
  TENSORPLAY_NN_ARG_(Tensor, weight) = {};
  TENSORPLAY_NN_ARG_(Reduction, reduction) = kMean;
  TENSORPLAY_NN_ARG_(Tensor, pos_weight) = {};
};
struct KLDivFuncOptions {
  TENSORPLAY_NN_ARG_(Reduction, reduction) = kMean;
  TENSORPLAY_NN_ARG_(bool, log_target) = false;
};

struct NLLLossFuncOptions {
  TENSORPLAY_NN_ARG_(Tensor, weight) = {};
  TENSORPLAY_NN_ARG_(int64_t, ignore_index) = -100;
  TENSORPLAY_NN_ARG_(Reduction, reduction) = kMean;
};
struct CrossEntropyFuncOptions {
  TENSORPLAY_NN_ARG_(Tensor, weight) = {};
  TENSORPLAY_NN_ARG_(int64_t, ignore_index) = -100;
  TENSORPLAY_NN_ARG_(Reduction, reduction) = kMean;
  TENSORPLAY_NN_ARG_(double, label_smoothing) = 0.0;
};

// ---- embedding ----------------------------------------------------------------------------------
struct EmbeddingFuncOptions {
  TENSORPLAY_NN_ARG_(std::optional<int64_t>, padding_idx) = std::nullopt;
  TENSORPLAY_NN_ARG_(std::optional<double>, max_norm) = std::nullopt;
  TENSORPLAY_NN_ARG_(double, norm_type) = 2.0;
  TENSORPLAY_NN_ARG_(bool, scale_grad_by_freq) = false;
  TENSORPLAY_NN_ARG_(bool, sparse) = false;
};

// ---- distance, normalize, dropout ---------------------------------------------------------------
struct CosineSimilarityFuncOptions {
  TENSORPLAY_NN_ARG_(int64_t, dim) = 1;
  TENSORPLAY_NN_ARG_(double, eps) = 1e-8;
};
struct PairwiseDistanceFuncOptions {
  TENSORPLAY_NN_ARG_(double, p) = 2.0;
  TENSORPLAY_NN_ARG_(double, eps) = 1e-6;
  TENSORPLAY_NN_ARG_(bool, keepdim) = false;
};
struct NormalizeFuncOptions {
  TENSORPLAY_NN_ARG_(double, p) = 2.0;
  TENSORPLAY_NN_ARG_(int64_t, dim) = 1;
  TENSORPLAY_NN_ARG_(double, eps) = 1e-12;
};
struct DropoutFuncOptions {
  TENSORPLAY_NN_ARG_(double, p) = 0.5;
  TENSORPLAY_NN_ARG_(bool, training) = true;
  TENSORPLAY_NN_ARG_(bool, inplace) = false;
  // Beyond libtorch's options: the generator the mask is drawn from (the default one if unset).
  TENSORPLAY_NN_ARG_(std::optional<Generator>, generator) = std::nullopt;
};

// ---- padding and interpolation ------------------------------------------------------------------
struct PadFuncOptions {
  PadFuncOptions(std::vector<int64_t> pad) : pad_(std::move(pad)) {}  // NOLINT: as libtorch's
  TENSORPLAY_NN_ARG_(std::vector<int64_t>, pad);
  TENSORPLAY_NN_ARG_(PadMode, mode) = kConstant;
  TENSORPLAY_NN_ARG_(double, value) = 0;
};

struct InterpolateFuncOptions {
  TENSORPLAY_NN_ARG_(std::optional<std::vector<int64_t>>, size) = std::nullopt;
  TENSORPLAY_NN_ARG_(std::optional<std::vector<double>>, scale_factor) = std::nullopt;
  TENSORPLAY_NN_ARG_(InterpolateMode, mode) = kNearest;
  TENSORPLAY_NN_ARG_(std::optional<bool>, align_corners) = std::nullopt;
  TENSORPLAY_NN_ARG_(std::optional<bool>, recompute_scale_factor) = std::nullopt;
  TENSORPLAY_NN_ARG_(bool, antialias) = false;
};

// ---- convolution and pooling --------------------------------------------------------------------

// libtorch's ExpandingArray<D>: D values, given as one (repeated) or as a list of D.
template <std::size_t D>
class ExpandingArray {
 public:
  ExpandingArray(int64_t v) : values_(D, v) {}  // NOLINT: implicit, as libtorch's
  ExpandingArray(std::initializer_list<int64_t> v) : values_(v) { check(); }
  ExpandingArray(std::vector<int64_t> v) : values_(std::move(v)) { check(); }  // NOLINT
  operator IntArrayRef() const noexcept { return values_; }                    // NOLINT
  const std::vector<int64_t>& vec() const noexcept { return values_; }

 private:
  void check() const {
    TP_CHECK(values_.size() == D, "Expected ", D, " values, but instead got ", values_.size());
  }
  std::vector<int64_t> values_;
};

// padding=torch::kValid / torch::kSame.
enum class ConvPaddingMode { Valid, Same };
inline constexpr ConvPaddingMode kValid = ConvPaddingMode::Valid;
inline constexpr ConvPaddingMode kSame = ConvPaddingMode::Same;

template <std::size_t D>
struct ConvFuncOptions {
  TENSORPLAY_NN_ARG_(Tensor, bias) = {};
  TENSORPLAY_NN_ARG_(ExpandingArray<D>, stride) = 1;
  TENSORPLAY_NN_ARG_(ExpandingArray<D>, dilation) = 1;
  TENSORPLAY_NN_ARG_(int64_t, groups) = 1;

 public:
  // padding(1), padding({1, 2}) or padding(kSame): the int form unless mode() is set.
  auto& padding(ExpandingArray<D> v) {
    padding_ = std::move(v);
    mode_.reset();
    return *this;
  }
  auto& padding(ConvPaddingMode m) {
    mode_ = m;
    return *this;
  }
  const ExpandingArray<D>& padding() const noexcept { return padding_; }
  const std::optional<ConvPaddingMode>& padding_mode() const noexcept { return mode_; }

 private:
  ExpandingArray<D> padding_ = 0;
  std::optional<ConvPaddingMode> mode_;
};
using Conv1dFuncOptions = ConvFuncOptions<1>;
using Conv2dFuncOptions = ConvFuncOptions<2>;
using Conv3dFuncOptions = ConvFuncOptions<3>;

template <std::size_t D>
struct ConvTransposeFuncOptions {
  TENSORPLAY_NN_ARG_(Tensor, bias) = {};
  TENSORPLAY_NN_ARG_(ExpandingArray<D>, stride) = 1;
  TENSORPLAY_NN_ARG_(ExpandingArray<D>, padding) = 0;
  TENSORPLAY_NN_ARG_(ExpandingArray<D>, output_padding) = 0;
  TENSORPLAY_NN_ARG_(int64_t, groups) = 1;
  TENSORPLAY_NN_ARG_(ExpandingArray<D>, dilation) = 1;
};
using ConvTranspose1dFuncOptions = ConvTransposeFuncOptions<1>;
using ConvTranspose2dFuncOptions = ConvTransposeFuncOptions<2>;
using ConvTranspose3dFuncOptions = ConvTransposeFuncOptions<3>;

template <std::size_t D>
struct MaxPoolFuncOptions {
  MaxPoolFuncOptions(ExpandingArray<D> kernel_size)  // NOLINT: implicit as libtorch's
      : kernel_size_(std::move(kernel_size)), stride_(kernel_size_) {}
  TENSORPLAY_NN_ARG_(ExpandingArray<D>, kernel_size);
  TENSORPLAY_NN_ARG_(ExpandingArray<D>, stride);
  TENSORPLAY_NN_ARG_(ExpandingArray<D>, padding) = 0;
  TENSORPLAY_NN_ARG_(ExpandingArray<D>, dilation) = 1;
  TENSORPLAY_NN_ARG_(bool, ceil_mode) = false;
};
using MaxPool1dFuncOptions = MaxPoolFuncOptions<1>;
using MaxPool2dFuncOptions = MaxPoolFuncOptions<2>;
using MaxPool3dFuncOptions = MaxPoolFuncOptions<3>;

template <std::size_t D>
struct AvgPoolFuncOptions {
  AvgPoolFuncOptions(ExpandingArray<D> kernel_size)  // NOLINT: implicit as libtorch's
      : kernel_size_(std::move(kernel_size)), stride_(kernel_size_) {}
  TENSORPLAY_NN_ARG_(ExpandingArray<D>, kernel_size);
  TENSORPLAY_NN_ARG_(ExpandingArray<D>, stride);
  TENSORPLAY_NN_ARG_(ExpandingArray<D>, padding) = 0;
  TENSORPLAY_NN_ARG_(bool, ceil_mode) = false;
  TENSORPLAY_NN_ARG_(bool, count_include_pad) = true;
  TENSORPLAY_NN_ARG_(std::optional<int64_t>, divisor_override) = std::nullopt;
};
using AvgPool1dFuncOptions = AvgPoolFuncOptions<1>;
using AvgPool2dFuncOptions = AvgPoolFuncOptions<2>;
using AvgPool3dFuncOptions = AvgPoolFuncOptions<3>;

template <std::size_t D>
struct AdaptivePoolFuncOptions {
  AdaptivePoolFuncOptions(ExpandingArray<D> output_size)  // NOLINT: implicit as libtorch's
      : output_size_(std::move(output_size)) {}
  TENSORPLAY_NN_ARG_(ExpandingArray<D>, output_size);
};
using AdaptiveAvgPool1dFuncOptions = AdaptivePoolFuncOptions<1>;
using AdaptiveAvgPool2dFuncOptions = AdaptivePoolFuncOptions<2>;
using AdaptiveMaxPool1dFuncOptions = AdaptivePoolFuncOptions<1>;
using AdaptiveMaxPool2dFuncOptions = AdaptivePoolFuncOptions<2>;
using AdaptiveAvgPool3dFuncOptions = AdaptivePoolFuncOptions<3>;
using AdaptiveMaxPool3dFuncOptions = AdaptivePoolFuncOptions<3>;

#undef TENSORPLAY_NN_ARG_

}  // namespace nn::functional
}  // namespace tensorplay
