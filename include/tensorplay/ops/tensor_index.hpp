// The index types of libtorch's `t.index({Slice(1, None), 0, Ellipsis, None})`
// (torch::indexing; ATen/TensorIndexing.h): what a caller builds. Tensor::index and index_put_
// (ops/indexing.hpp) apply them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>

#include <tensorplay/core/error.hpp>
#include <tensorplay/core/tensor.hpp>

namespace tensorplay::indexing {

struct EllipsisIndexType {
  constexpr EllipsisIndexType() = default;
};
inline constexpr EllipsisIndexType Ellipsis{};
inline constexpr std::nullopt_t None = std::nullopt;

// A Python slice: start/stop/step, each optional (libtorch's torch::indexing::Slice).
class Slice {
 public:
  Slice(std::optional<int64_t> start = std::nullopt, std::optional<int64_t> stop = std::nullopt,
        std::optional<int64_t> step = std::nullopt)
      : start_(start), stop_(stop), step_(step.value_or(1)) {
    TP_CHECK_VALUE(step_ != 0, "slice step cannot be zero");
  }
  std::optional<int64_t> start() const noexcept { return start_; }
  std::optional<int64_t> stop() const noexcept { return stop_; }
  int64_t step() const noexcept { return step_; }

 private:
  std::optional<int64_t> start_, stop_;
  int64_t step_;
};

enum class TensorIndexType { None, Ellipsis, Integer, Boolean, Slice, Tensor };

class TensorIndex {
 public:
  TensorIndex(std::nullopt_t) : type_(TensorIndexType::None) {}
  TensorIndex(EllipsisIndexType) : type_(TensorIndexType::Ellipsis) {}
  TensorIndex(const char* str) : type_(TensorIndexType::Ellipsis) {
    TP_CHECK_VALUE(std::string(str) == "...",
                   "Expected \"...\" to represent an ellipsis index, but got \"", str, "\"");
  }
  template <class T>
  requires(std::is_integral_v<T> && !std::is_same_v<T, bool>) TensorIndex(T i)
      : type_(TensorIndexType::Integer), integer_(static_cast<int64_t>(i)) {}
  TensorIndex(bool b) : type_(TensorIndexType::Boolean), boolean_(b) {}
  TensorIndex(Slice s) : type_(TensorIndexType::Slice), slice_(s) {}
  TensorIndex(Tensor t) : type_(TensorIndexType::Tensor), tensor_(std::move(t)) {}

  TensorIndexType type() const noexcept { return type_; }
  bool is_none() const noexcept { return type_ == TensorIndexType::None; }
  bool is_ellipsis() const noexcept { return type_ == TensorIndexType::Ellipsis; }
  bool is_integer() const noexcept { return type_ == TensorIndexType::Integer; }
  bool is_boolean() const noexcept { return type_ == TensorIndexType::Boolean; }
  bool is_slice() const noexcept { return type_ == TensorIndexType::Slice; }
  bool is_tensor() const noexcept { return type_ == TensorIndexType::Tensor; }
  int64_t integer() const noexcept { return integer_; }
  bool boolean() const noexcept { return boolean_; }
  const Slice& slice() const noexcept { return slice_; }
  const Tensor& tensor() const noexcept { return tensor_; }

 private:
  TensorIndexType type_;
  int64_t integer_ = 0;
  bool boolean_ = false;
  Slice slice_;
  Tensor tensor_;
};

}  // namespace tensorplay::indexing
