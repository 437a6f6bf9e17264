// Backward nodes of the order statistics (ops/order_stats.hpp), PyTorch's names: the (values,
// indices) forms scatter the gradient back through the indices (value_selecting_reduction_backward
// in derivatives.yaml); median() / nanmedian() over all elements share it evenly among the
// elements equal to the result (evenly_distribute_backward, NaN results among the NaNs), as max().
// quantile is composite in PyTorch (sort, gather, lerp_, squeeze_) and records their nodes.
#pragma once

#include <string>

#include <tensorplay/autograd/functions/reduce.hpp>

namespace tensorplay::autograd {

namespace detail {
struct KthvalueTag {
  static std::string name() { return "KthvalueBackward0"; }
};
struct MedianDimTag {
  static std::string name() { return "MedianBackward1"; }
};
struct NanmedianDimTag {
  static std::string name() { return "NanmedianBackward1"; }
};
struct ModeTag {
  static std::string name() { return "ModeBackward0"; }
};
struct MedianAllTag {
  static constexpr bool kNanAware = true;
  static std::string name() { return "MedianBackward0"; }
};
struct NanmedianAllTag {
  static constexpr bool kNanAware = true;
  static std::string name() { return "NanmedianBackward0"; }
};
}  // namespace detail

using KthvalueBackward0 = IndexSelectingBackwardT<detail::KthvalueTag>;
using MedianBackward1 = IndexSelectingBackwardT<detail::MedianDimTag>;
using NanmedianBackward1 = IndexSelectingBackwardT<detail::NanmedianDimTag>;
using ModeBackward0 = IndexSelectingBackwardT<detail::ModeTag>;
using MedianBackward0 = AmaxLikeBackwardT<detail::MedianAllTag>;
using NanmedianBackward0 = AmaxLikeBackwardT<detail::NanmedianAllTag>;

}  // namespace tensorplay::autograd
