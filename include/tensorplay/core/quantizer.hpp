// Quantizer: how the integers of a quantized tensor (dtype QInt8, QUInt8 or QInt32) map to real
// numbers, real = (q - zero_point) * scale, with one (scale, zero_point) for the whole tensor
// (per-tensor affine) or one per index along a channel axis (per-channel affine). c10's
// Quantizer classes, minus the ones PyTorch keeps for float qparams.
//
// A quantizer is immutable once made: views share it (TensorImpl::quantizer_, a shared_ptr that
// the one aliasing constructor copies), and an op that needs other parameters makes a new one.
// Thread safety: immutable after construction, so shared freely.
#pragma once

#include <cstdint>
#include <memory>
#include <ostream>
#include <string_view>
#include <utility>
#include <vector>

#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/error.hpp>

namespace tensorplay {

// c10's QScheme (the two affine schemes that this library implements; the symmetric and
// float-qparams ones PyTorch lists are not made by any op here).
enum class QScheme : uint8_t {
  PER_TENSOR_AFFINE = 0,
  PER_CHANNEL_AFFINE = 1,
};
inline constexpr QScheme kPerTensorAffine = QScheme::PER_TENSOR_AFFINE;
inline constexpr QScheme kPerChannelAffine = QScheme::PER_CHANNEL_AFFINE;
inline constexpr int kNumQSchemes = 2;

// "per_tensor_affine": torch's attribute name (torch.per_tensor_affine).
constexpr std::string_view qscheme_name(QScheme q) noexcept {
  switch (q) {
    case QScheme::PER_TENSOR_AFFINE: return "per_tensor_affine";
    case QScheme::PER_CHANNEL_AFFINE: return "per_channel_affine";
  }
  return "unknown_qscheme";
}
// Prints as Python prints the qscheme object: "tensorplay.per_tensor_affine".
inline std::ostream& operator<<(std::ostream& os, QScheme q) {
  return os << "tensorplay." << qscheme_name(q);
}

// The base the TensorImpl field points to. scalar_type() is the quantized dtype it was made
// for.
struct Quantizer {
  explicit Quantizer(DType scalar_type) noexcept : scalar_type_(scalar_type) {}
  virtual ~Quantizer() = default;
  Quantizer(const Quantizer&) = delete;
  Quantizer& operator=(const Quantizer&) = delete;

  virtual QScheme qscheme() const noexcept = 0;
  // Same scheme, dtype and parameters (c10's equalTo, what torch.equal compares).
  virtual bool equalTo(const Quantizer& other) const noexcept = 0;
  DType scalar_type() const noexcept { return scalar_type_; }

 private:
  DType scalar_type_;
};

class PerTensorAffineQuantizer final : public Quantizer {
 public:
  PerTensorAffineQuantizer(DType scalar_type, double scale, int64_t zero_point) noexcept
      : Quantizer(scalar_type), scale_(scale), zero_point_(zero_point) {}
  QScheme qscheme() const noexcept override { return kPerTensorAffine; }
  double scale() const noexcept { return scale_; }
  int64_t zero_point() const noexcept { return zero_point_; }
  bool equalTo(const Quantizer& other) const noexcept override {
    if (other.qscheme() != kPerTensorAffine || other.scalar_type() != scalar_type()) return false;
    const auto& o = static_cast<const PerTensorAffineQuantizer&>(other);
    return o.scale_ == scale_ && o.zero_point_ == zero_point_;
  }

 private:
  double scale_;
  int64_t zero_point_;
};

// One (scale, zero_point) per index along `axis`. The parameters are held as plain vectors
// (PyTorch holds float64 and int64 tensors; q_per_channel_scales() makes those on request), so
// that the core layer needs no tensor ops to slice them when a view narrows the axis.
class PerChannelAffineQuantizer final : public Quantizer {
 public:
  PerChannelAffineQuantizer(DType scalar_type, std::vector<double> scales,
                            std::vector<int64_t> zero_points, int64_t axis)
      : Quantizer(scalar_type),
        scales_(std::move(scales)),
        zero_points_(std::move(zero_points)),
        axis_(axis) {
    TP_CHECK(scales_.size() == zero_points_.size(),
             "number of elements in scales and zero_points must match");
  }
  QScheme qscheme() const noexcept override { return kPerChannelAffine; }
  const std::vector<double>& scales() const noexcept { return scales_; }
  const std::vector<int64_t>& zero_points() const noexcept { return zero_points_; }
  int64_t axis() const noexcept { return axis_; }
  bool equalTo(const Quantizer& other) const noexcept override {
    if (other.qscheme() != kPerChannelAffine || other.scalar_type() != scalar_type()) return false;
    const auto& o = static_cast<const PerChannelAffineQuantizer&>(other);
    return o.axis_ == axis_ && o.scales_ == scales_ && o.zero_points_ == zero_points_;
  }

 private:
  std::vector<double> scales_;
  std::vector<int64_t> zero_points_;
  int64_t axis_;
};

// c10's factory names.
inline std::shared_ptr<Quantizer> make_per_tensor_affine_quantizer(double scale, int64_t zero_point,
                                                                   DType scalar_type) {
  return std::make_shared<PerTensorAffineQuantizer>(scalar_type, scale, zero_point);
}
inline std::shared_ptr<Quantizer> make_per_channel_affine_quantizer(
    std::vector<double> scales, std::vector<int64_t> zero_points, int64_t axis, DType scalar_type) {
  return std::make_shared<PerChannelAffineQuantizer>(scalar_type, std::move(scales),
                                                     std::move(zero_points), axis);
}

}  // namespace tensorplay
