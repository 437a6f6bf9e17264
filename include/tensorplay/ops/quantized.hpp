// Quantized tensors: making them (quantize_per_tensor, quantize_per_channel,
// _make_per_*_quantized_tensor), reading them (dequantize, int_repr, the q_* accessors,
// qscheme) and the quantized kernels of torch.ops.quantized (add, add_relu, mul, mul_relu,
// linear), with PyTorch 1.13's arithmetic and messages.
//
// A quantized tensor is an ordinary TensorImpl of dtype QInt8/QUInt8/QInt32 whose quantizer_
// (core/quantizer.hpp) holds the parameters: no subclass. Views carry the quantizer through the
// one aliasing funnel (ops/as_strided.hpp); clone, copy_, fill_, relu, the comparisons and
// equal accept quantized tensors (ops/quantize_kernel.hpp); every other dense op refuses them
// at the dtype dispatch point or in the iteration engine. CPU only, as PyTorch's QuantizedCPU.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/empty.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/quantizer.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/ops/as_strided.hpp>
#include <tensorplay/ops/copy.hpp>
#include <tensorplay/ops/quantize_kernel.hpp>
#include <tensorplay/ops/tensor_iterator.hpp>

namespace tensorplay {
namespace detail {

inline void check_quantized_dtype(DType dtype) {
  TP_CHECK(is_quantized(dtype), "ScalarType ", scalar_type_name(dtype),
           " is not supported in new_qtensor.");
}

// A scale must be a positive finite number. (PyTorch 1.13 accepts any double and computes with
// it: a zero scale quantizes everything to the minimum, a negative one flips signs; we refuse
// those instead.)
inline void check_scale(double scale, const char* op) {
  TP_CHECK_VALUE(std::isfinite(scale) && scale > 0, op,
                 ": scale must be a positive finite number, got ", scale);
}

// PyTorch's checkZeroPoint: within the underlying integer type's range.
inline void check_zero_point(const char* fn, int64_t zero_point, DType dtype) {
  dispatch_quantized(dtype, [&]<class U>() {
    TP_CHECK(zero_point <= std::numeric_limits<U>::max(), fn, " zero_point ", zero_point,
             " is above upper bound.");
    TP_CHECK(zero_point >= std::numeric_limits<U>::min(), fn, " zero_point ", zero_point,
             " is below lower bound.");
  });
}

inline void check_quantized_cpu(const Tensor& self, const char* op) {
  TP_CHECK_NOT_IMPLEMENTED(self.is_cpu(), "Could not run 'aten::", op,
                           "' with arguments from the '", self.device(),
                           "' backend: quantized tensors live on the CPU only");
}

// scales (any floating dtype) and zero_points (any integer dtype) of per-channel parameters,
// checked as PyTorch's quantize_per_channel checks them, read into vectors.
inline void read_channel_params(const Tensor& scales, const Tensor& zero_points,
                                std::vector<double>& s, std::vector<int64_t>& z) {
  TP_CHECK(scales.dim() == 1, "scale tensor must have dimension 1");
  TP_CHECK(zero_points.dim() == 1, "zero_points tensor must have dimension 1");
  TP_CHECK(scales.numel() == zero_points.numel(),
           "number of elements in scales and zero_points must match");
  TP_CHECK_TYPE(is_floating_point(scales.dtype()) || is_integral(scales.dtype(), false),
                "scales must be a real tensor, got ", scales.dtype());
  TP_CHECK_NOT_IMPLEMENTED(is_integral(zero_points.dtype(), /*include_bool=*/false),
                           "per-channel quantization with floating-point zero_points "
                           "(torch.per_channel_affine_float_qparams) is not supported; got "
                           "zero_points of dtype ",
                           zero_points.dtype());
  const Tensor sd = contiguous_copy(scales.to(kDouble));
  const Tensor zl = contiguous_copy(zero_points.to(kLong));
  const double* sp = sd.data_ptr<double>();
  const int64_t* zp = zl.data_ptr<int64_t>();
  s.assign(sp, sp + sd.numel());
  z.assign(zp, zp + zl.numel());
}

// Broadcast integers of two per-tensor quantized operands of one dtype, contiguous, and the
// broadcast shape (torch.ops.quantized.add and mul broadcast as the dense ops do).
struct QuantizedPair {
  std::vector<int64_t> shape;
  Tensor a, b;
};
inline QuantizedPair broadcast_ints(const Tensor& qa, const Tensor& qb) {
  QuantizedPair p;
  p.shape = infer_size(qa.sizes(), qb.sizes());
  p.a = contiguous_copy(underlying_alias(qa).expand(p.shape));
  p.b = contiguous_copy(underlying_alias(qb).expand(p.shape));
  return p;
}

// The checks of quantized::add / mul (PyTorch's, typos included: "suported", "shceme").
inline void check_binary_operands(const Tensor& qa, const Tensor& qb, const char* op) {
  const Quantizer& a = quantizer_or_throw(qa, op);
  const Quantizer& b = quantizer_or_throw(qb, op);
  const bool add = op[0] == 'a';
  TP_CHECK(a.qscheme() == b.qscheme(),
           add ? "Both inputs to Add must have the same quantization shceme."
               : "Both inputs to Mul must have the same quantization scheme.");
  TP_CHECK(a.qscheme() == kPerTensorAffine,
           add ? "Only per tensor quantization is suported in Add."
               : "Only per tensor quantization is supported in Mul.");
  TP_CHECK(qa.dtype() == qb.dtype(), add ? "Add operands should have same data type."
                                         : "Mul operands should have same data type.");
  check_quantized_cpu(qa, op);
  check_quantized_cpu(qb, op);
}

// PyTorch's qadd_kernel: both operands dequantized (fused multiply-add with the premultiplied
// zero point), added in float, optionally clamped at 0, requantized with the output's scale and
// zero point (float reciprocal of the scale, round half to even, clamp).
template <bool Relu>
Tensor quantized_add_impl(const Tensor& qa, const Tensor& qb, double scale, int64_t zero_point) {
  check_binary_operands(qa, qb, "add");
  check_scale(scale, "quantized::add");
  check_zero_point("quantize_tensor_per_tensor_affine", zero_point, qa.dtype());
  const auto& pa = per_tensor_quantizer(qa);
  const auto& pb = per_tensor_quantizer(qb);
  const QuantizedPair p = broadcast_ints(qa, qb);
  Tensor out =
      empty_quantized(p.shape, make_per_tensor_affine_quantizer(scale, zero_point, qa.dtype()));
  const Dequantizer da(pa.scale(), pa.zero_point()), db(pb.scale(), pb.zero_point());
  const int64_t n = out.numel();
  dispatch_quantized(qa.dtype(), [&]<class U>() {
    const U* x = static_cast<const U*>(p.a.data_ptr());
    const U* y = static_cast<const U*>(p.b.data_ptr());
    U* o = static_cast<U*>(out.data_ptr());
    for (int64_t i = 0; i < n; ++i) {
      float c = da(x[i]) + db(y[i]);
      if constexpr (Relu) c = c < 0.0f ? 0.0f : c;
      o[i] = quantize_val<U>(scale, zero_point, c);
    }
  });
  return out;
}

// PyTorch's qmul_kernel: the product of the zero-point-shifted integers (int32), requantized by
// the float multiplier sa * sb / s (round half to even, then the zero point, clamp); with ReLU
// the result is clamped below at the zero point.
template <bool Relu>
Tensor quantized_mul_impl(const Tensor& qa, const Tensor& qb, double scale, int64_t zero_point) {
  check_binary_operands(qa, qb, "mul");
  check_scale(scale, "quantized::mul");
  check_zero_point("quantize_tensor_per_tensor_affine", zero_point, qa.dtype());
  const auto& pa = per_tensor_quantizer(qa);
  const auto& pb = per_tensor_quantizer(qb);
  const QuantizedPair p = broadcast_ints(qa, qb);
  Tensor out =
      empty_quantized(p.shape, make_per_tensor_affine_quantizer(scale, zero_point, qa.dtype()));
  const float inv_scale = 1.0f / static_cast<float>(scale);
  const float multiplier =
      static_cast<float>(pa.scale()) * static_cast<float>(pb.scale()) * inv_scale;
  const auto za = static_cast<int32_t>(pa.zero_point()), zb = static_cast<int32_t>(pb.zero_point());
  const int64_t n = out.numel();
  dispatch_quantized(qa.dtype(), [&]<class U>() {
    const U* x = static_cast<const U*>(p.a.data_ptr());
    const U* y = static_cast<const U*>(p.b.data_ptr());
    U* o = static_cast<U*>(out.data_ptr());
    for (int64_t i = 0; i < n; ++i) {
      // int32 as PyTorch's kernel; an int64 product keeps qint32 operands defined (PyTorch's
      // wraps there).
      const int64_t c = static_cast<int64_t>(static_cast<int32_t>(x[i]) - za) *
                        static_cast<int64_t>(static_cast<int32_t>(y[i]) - zb);
      const float r = std::nearbyint(static_cast<float>(c) * multiplier);
      int64_t q = zero_point + static_cast<int64_t>(r);
      q = std::clamp<int64_t>(q, std::numeric_limits<U>::min(), std::numeric_limits<U>::max());
      if constexpr (Relu) q = q < zero_point ? zero_point : q;
      o[i] = static_cast<U>(q);
    }
  });
  return out;
}

}  // namespace detail

// ---- making quantized tensors -------------------------------------------------------------

// round(self / scale) + zero_point, clamped to dtype's range (ties to even), as `dtype`
// (kQUInt8, kQInt8 or kQInt32) with a per-tensor affine quantizer. self must be float32.
template <class = void>
Tensor quantize_per_tensor(const Tensor& self, double scale, int64_t zero_point, DType dtype) {
  TP_CHECK(self.defined(), "quantize_per_tensor: the tensor is undefined");
  detail::check_quantized_dtype(dtype);
  TP_CHECK(self.dtype() == kFloat, "Quantize only works on Float Tensor, got ",
           scalar_type_name(self.dtype()));
  detail::check_quantized_cpu(self, "quantize_per_tensor");
  detail::check_scale(scale, "quantize_per_tensor");
  detail::check_zero_point("quantize_tensor_per_tensor_affine", zero_point, dtype);
  Tensor out = detail::empty_quantized(self.sizes(),
                                       make_per_tensor_affine_quantizer(scale, zero_point, dtype));
  detail::quantize_into(out, self);
  return out;
}

// One (scale, zero point) per index along `axis` (scales: a 1-d real tensor, zero_points: a 1-d
// integer tensor, both of self.size(axis) elements).
template <class = void>
Tensor quantize_per_channel(const Tensor& self, const Tensor& scales, const Tensor& zero_points,
                            int64_t axis, DType dtype) {
  TP_CHECK(self.defined() && scales.defined() && zero_points.defined(),
           "quantize_per_channel: a tensor is undefined");
  detail::check_quantized_dtype(dtype);
  TP_CHECK_INDEX(axis >= 0 && axis < self.dim(),
                 "Channel axis out of range in per channel affine quantization. Got: ", axis,
                 "Expected: [0, ", self.dim(), ")");
  TP_CHECK(self.dtype() == kFloat,
           "quantize_tensor_per_channel_affine expects a Float Tensor, got ",
           scalar_type_name(self.dtype()));
  detail::check_quantized_cpu(self, "quantize_per_channel");
  std::vector<double> s;
  std::vector<int64_t> z;
  detail::read_channel_params(scales, zero_points, s, z);
  TP_CHECK(static_cast<int64_t>(s.size()) == self.size(axis),
           "length of scales must equal to channel");
  for (double v : s) detail::check_scale(v, "quantize_per_channel");
  for (int64_t v : z) detail::check_zero_point("quantize_tensor_per_channel_affine", v, dtype);
  Tensor out = detail::empty_quantized(
      self.sizes(), make_per_channel_affine_quantizer(std::move(s), std::move(z), axis, dtype));
  detail::quantize_into(out, self);
  return out;
}

// A quantized tensor over a copy of the integers of `self` (int8 -> qint8, uint8 -> quint8,
// int32 -> qint32), read with the given parameters.
template <class = void>
Tensor _make_per_tensor_quantized_tensor(const Tensor& self, double scale, int64_t zero_point) {
  TP_CHECK(self.defined(), "_make_per_tensor_quantized_tensor: the tensor is undefined");
  const DType d = self.dtype();
  TP_CHECK(d == kByte || d == kChar || d == kInt,
           "Creation of quantized tensor requires quantized dtype like torch.quint8");
  detail::check_quantized_cpu(self, "_make_per_tensor_quantized_tensor");
  detail::check_scale(scale, "_make_per_tensor_quantized_tensor");
  const DType q = to_quantized_dtype(d);
  detail::check_zero_point("_make_per_tensor_quantized_tensor", zero_point, q);
  Tensor out =
      detail::empty_quantized(self.sizes(), make_per_tensor_affine_quantizer(scale, zero_point, q));
  detail::copy_impl(detail::underlying_alias(out), self);
  return out;
}

template <class = void>
Tensor _make_per_channel_quantized_tensor(const Tensor& self, const Tensor& scales,
                                          const Tensor& zero_points, int64_t axis) {
  TP_CHECK(self.defined() && scales.defined() && zero_points.defined(),
           "_make_per_channel_quantized_tensor: a tensor is undefined");
  const DType d = self.dtype();
  TP_CHECK(d == kByte || d == kChar || d == kInt,
           "Creation of quantized tensor requires quantized dtype like torch.quint8");
  TP_CHECK_INDEX(axis >= 0 && axis < self.dim(),
                 "Channel axis out of range in per channel affine quantization. Got: ", axis,
                 "Expected: [0, ", self.dim(), ")");
  detail::check_quantized_cpu(self, "_make_per_channel_quantized_tensor");
  std::vector<double> s;
  std::vector<int64_t> z;
  detail::read_channel_params(scales, zero_points, s, z);
  TP_CHECK(static_cast<int64_t>(s.size()) == self.size(axis),
           "length of scales must equal to channel");
  const DType q = to_quantized_dtype(d);
  for (double v : s) detail::check_scale(v, "_make_per_channel_quantized_tensor");
  for (int64_t v : z) detail::check_zero_point("_make_per_channel_quantized_tensor", v, q);
  Tensor out = detail::empty_quantized(
      self.sizes(), make_per_channel_affine_quantizer(std::move(s), std::move(z), axis, q));
  detail::copy_impl(detail::underlying_alias(out), self);
  return out;
}

// ---- reading them ---------------------------------------------------------------------------

// The real values as float32 ((q - zero_point) * scale); a dense tensor is returned as it is
// (torch's Tensor.dequantize of a float tensor).
template <class = void>
Tensor dequantize(const Tensor& self) {
  TP_CHECK(self.defined(), "dequantize: the tensor is undefined");
  if (!self.is_quantized()) return self;
  return detail::dequantize_values(self);
}

template <class>
Tensor Tensor::dequantize() const {
  return tensorplay::dequantize(*this);
}

// The integers, as a new contiguous tensor of the underlying dtype (uint8, int8, int32).
template <class>
Tensor Tensor::int_repr() const {
  detail::quantizer_or_throw(*this, "int_repr");
  return detail::contiguous_copy(detail::underlying_alias(*this));
}

template <class>
QScheme Tensor::qscheme() const {
  return detail::quantizer_or_throw(*this, "qscheme").qscheme();
}

template <class>
double Tensor::q_scale() const {
  detail::quantizer_or_throw(*this, "q_scale");
  return detail::per_tensor_quantizer(*this).scale();
}

template <class>
int64_t Tensor::q_zero_point() const {
  detail::quantizer_or_throw(*this, "q_zero_point");
  return detail::per_tensor_quantizer(*this).zero_point();
}

// float64, as PyTorch's.
template <class>
Tensor Tensor::q_per_channel_scales() const {
  detail::quantizer_or_throw(*this, "q_per_channel_scales");
  const auto& s = detail::per_channel_quantizer(*this).scales();
  Tensor out = empty({static_cast<int64_t>(s.size())}, TensorOptions().dtype(kDouble));
  std::copy(s.begin(), s.end(), out.data_ptr<double>());
  return out;
}

// int64, as PyTorch's.
template <class>
Tensor Tensor::q_per_channel_zero_points() const {
  detail::quantizer_or_throw(*this, "q_per_channel_zero_points");
  const auto& z = detail::per_channel_quantizer(*this).zero_points();
  Tensor out = empty({static_cast<int64_t>(z.size())}, TensorOptions().dtype(kLong));
  std::copy(z.begin(), z.end(), out.data_ptr<int64_t>());
  return out;
}

template <class>
int64_t Tensor::q_per_channel_axis() const {
  detail::quantizer_or_throw(*this, "q_per_channel_axis");
  return detail::per_channel_quantizer(*this).axis();
}

// ---- torch.ops.quantized ------------------------------------------------------------------
namespace quantized {

// qa + qb requantized to (scale, zero_point); both per-tensor quantized, of one dtype, shapes
// broadcast.
template <class = void>
Tensor add(const Tensor& qa, const Tensor& qb, double scale, int64_t zero_point) {
  return detail::quantized_add_impl<false>(qa, qb, scale, zero_point);
}
template <class = void>
Tensor add_relu(const Tensor& qa, const Tensor& qb, double scale, int64_t zero_point) {
  return detail::quantized_add_impl<true>(qa, qb, scale, zero_point);
}
template <class = void>
Tensor mul(const Tensor& qa, const Tensor& qb, double scale, int64_t zero_point) {
  return detail::quantized_mul_impl<false>(qa, qb, scale, zero_point);
}
template <class = void>
Tensor mul_relu(const Tensor& qa, const Tensor& qb, double scale, int64_t zero_point) {
  return detail::quantized_mul_impl<true>(qa, qb, scale, zero_point);
}

// y = x W^T + bias, quantized to (scale, zero_point) as quint8: x a per-tensor quint8 tensor of
// shape [..., K], W a qint8 weight [N, K] (per tensor, or per channel along axis 0), bias an
// optional float32 [N]. The products of the zero-point-shifted integers are summed in int32
// (int64 here, so no sum wraps), scaled by x_scale * w_scale[n] in double, biased and
// requantized. (torch.ops.quantized.linear takes prepacked weights; its fbgemm/onednn kernels
// requantize with their own roundings, so results agree with it to within one step.)
template <class = void>
Tensor linear(const Tensor& x, const Tensor& w, const std::optional<Tensor>& bias, double scale,
              int64_t zero_point) {
  const auto& px = detail::per_tensor_quantizer_or(x, "quantized::linear");
  TP_CHECK(x.dtype() == kQUInt8, "quantized::linear: expected the input to be quint8, got ",
           x.dtype());
  TP_CHECK(w.dtype() == kQInt8, "quantized::linear: expected the weight to be qint8, got ",
           w.dtype());
  const Quantizer& qw = detail::quantizer_or_throw(w, "quantized::linear");
  TP_CHECK(w.dim() == 2,
           "quantized::linear: the weight must be 2-d ([out_features, "
           "in_features]), got ",
           w.dim(), "-d");
  TP_CHECK(x.dim() >= 1, "quantized::linear: the input must have at least one dimension");
  const int64_t k = w.size(1), n_out = w.size(0);
  TP_CHECK(x.size(-1) == k, "quantized::linear: mat1 and mat2 shapes cannot be multiplied (",
           x.numel() / (k == 0 ? 1 : x.size(-1)), "x", x.size(-1), " and ", k, "x", n_out, ")");
  TP_CHECK(qw.qscheme() == kPerTensorAffine ||
               static_cast<const PerChannelAffineQuantizer&>(qw).axis() == 0,
           "quantized::linear: a per-channel weight must be quantized along axis 0");
  detail::check_quantized_cpu(x, "quantized::linear");
  detail::check_scale(scale, "quantized::linear");
  detail::check_zero_point("quantize_tensor_per_tensor_affine", zero_point, kQUInt8);
  Tensor b;
  if (bias.has_value() && bias->defined()) {
    TP_CHECK(bias->dtype() == kFloat && bias->dim() == 1 && bias->size(0) == n_out,
             "quantized::linear: bias must be a float32 tensor of shape [", n_out, "], got ",
             bias->dtype(), " of shape ", bias->sizes());
    b = detail::contiguous_copy(*bias);
  }
  std::vector<double> ws(static_cast<std::size_t>(n_out));
  std::vector<int64_t> wz(static_cast<std::size_t>(n_out));
  for (int64_t o = 0; o < n_out; ++o) {
    if (qw.qscheme() == kPerTensorAffine) {
      const auto& p = static_cast<const PerTensorAffineQuantizer&>(qw);
      ws[o] = p.scale();
      wz[o] = p.zero_point();
    } else {
      const auto& p = static_cast<const PerChannelAffineQuantizer&>(qw);
      ws[o] = p.scales()[o];
      wz[o] = p.zero_points()[o];
    }
  }
  const Tensor xi = detail::contiguous_copy(detail::underlying_alias(x));
  const Tensor wi = detail::contiguous_copy(detail::underlying_alias(w));
  std::vector<int64_t> out_shape(x.sizes().begin(), x.sizes().end());
  out_shape.back() = n_out;
  Tensor out = detail::empty_quantized(
      out_shape, make_per_tensor_affine_quantizer(scale, zero_point, kQUInt8));
  int64_t m = 1;  // the rows: every dim of x but the last
  for (int64_t d = 0; d + 1 < x.dim(); ++d) m *= x.size(d);
  const uint8_t* xp = static_cast<const uint8_t*>(xi.data_ptr());
  const int8_t* wp = static_cast<const int8_t*>(wi.data_ptr());
  const float* bp = b.defined() ? b.data_ptr<float>() : nullptr;
  uint8_t* op = static_cast<uint8_t*>(out.data_ptr());
  const int64_t xz = px.zero_point();
  for (int64_t r = 0; r < m; ++r) {
    for (int64_t o = 0; o < n_out; ++o) {
      int64_t acc = 0;
      for (int64_t i = 0; i < k; ++i)
        acc += (static_cast<int64_t>(xp[r * k + i]) - xz) *
               (static_cast<int64_t>(wp[o * k + i]) - wz[static_cast<std::size_t>(o)]);
      double y = static_cast<double>(acc) * px.scale() * ws[static_cast<std::size_t>(o)];
      if (bp) y += bp[o];
      op[r * n_out + o] = detail::quantize_val<uint8_t>(scale, zero_point, static_cast<float>(y));
    }
  }
  return out;
}

}  // namespace quantized
}  // namespace tensorplay
