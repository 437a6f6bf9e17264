// The kernels under the quantized ops (ops/quantized.hpp): PyTorch's quantize_val and
// dequantize arithmetic, bit for bit, and the few dense entry points that accept quantized
// tensors (copy_, clone through empty_like, fill_, eq/ne, relu, equal). Included at the end of
// ops/copy_kernel.hpp, so every op header sees them; the dense kernels never do.
//
// A quantized tensor's bytes are its integers: underlying_alias() reinterprets them as the
// underlying dense dtype (QUInt8 -> UInt8, ...) over the same storage and geometry, and the dense
// copy machinery moves them. No dense kernel is ever instantiated for a quantized dtype.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <memory>
#include <vector>

#include <tensorplay/core/empty.hpp>
#include <tensorplay/core/quantizer.hpp>
#include <tensorplay/core/scalar.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/ops/copy_kernel.hpp>
#include <tensorplay/ops/dispatch.hpp>

namespace tensorplay {
namespace detail {

// ---- scalar arithmetic (PyTorch's, ATen/native/quantized/AffineQuantizerBase.cpp) ----------

// The underlying integer type U of a quantized dtype: round half to even in float after
// multiplying by the float reciprocal of the scale, add the zero point (in float, as PyTorch's
// `zero_point + Round(value * inv_scale)` does), convert to int64 and clamp to U's range. A
// value with no int64 image (NaN, +-inf, beyond 2^63) converts as x86's cvttss2si does, to
// INT64_MIN, so it lands on U's minimum, which is what torch gives.
template <class U>
U quantize_val(double scale, int64_t zero_point, float value) noexcept {
  const float inv_scale = 1.0f / static_cast<float>(scale);
  const float r = static_cast<float>(zero_point) + std::nearbyint(value * inv_scale);
  constexpr float kTwo63 = 9223372036854775808.0f;
  int64_t q =
      (r >= -kTwo63 && r < kTwo63) ? static_cast<int64_t>(r) : std::numeric_limits<int64_t>::min();
  q = std::clamp<int64_t>(q, std::numeric_limits<U>::min(), std::numeric_limits<U>::max());
  return static_cast<U>(q);
}

// (q - zero_point) * scale as PyTorch computes it: the difference converted to float, times the
// scale as a float. (PyTorch's qint32 kernel subtracts in int32, which wraps for differences
// beyond the int32 range, e.g. q = INT32_MIN with a positive zero point; the difference here is
// exact, so those extreme values dequantize to their true value instead.)
struct Dequantizer {
  float scale;
  int64_t zero_point;
  Dequantizer(double s, int64_t zp) noexcept : scale(static_cast<float>(s)), zero_point(zp) {}
  float operator()(int64_t q) const noexcept { return static_cast<float>(q - zero_point) * scale; }
};

// The (scale, zero point) of a per-tensor quantized tensor; TP_CHECK with PyTorch's message
// otherwise.
inline const PerTensorAffineQuantizer& per_tensor_quantizer(const Tensor& t) {
  const Quantizer* q = t.unsafeGetTensorImpl()->quantizer().get();
  TP_CHECK(q && q->qscheme() == kPerTensorAffine,
           "Expected quantizer->qscheme() == kPerTensorAffine to be true, but got false.");
  return static_cast<const PerTensorAffineQuantizer&>(*q);
}
inline const PerChannelAffineQuantizer& per_channel_quantizer(const Tensor& t) {
  const Quantizer* q = t.unsafeGetTensorImpl()->quantizer().get();
  TP_CHECK(q && q->qscheme() == kPerChannelAffine,
           "Expected quantizer->qscheme() == kPerChannelAffine to be true, but got false.");
  return static_cast<const PerChannelAffineQuantizer&>(*q);
}

// A quantized tensor's quantizer, or the error that a dense one gets from a quantized-only op
// (torch 1.13: "Could not run 'aten::q_scale' with arguments from the 'CPU' backend").
inline const Quantizer& quantizer_or_throw(const Tensor& t, const char* op) {
  const TensorImpl* impl = t.unsafeGetTensorImpl();
  TP_CHECK(impl != nullptr, op, ": the tensor is undefined");
  if (!is_quantized(impl->dtype())) {
    throw_error<NotImplementedError>("Could not run 'aten::", op,
                                     "' with arguments from the 'CPU' backend: it takes a "
                                     "quantized tensor, got one of dtype ",
                                     impl->dtype());
  }
  // empty() with a quantized dtype makes integers without parameters (PyTorch's
  // UnknownQuantizer).
  TP_CHECK(impl->has_quantizer(), op, ": this ", impl->dtype(),
           " tensor has no quantizer (empty() with a quantized dtype makes none); make quantized "
           "tensors with quantize_per_tensor, quantize_per_channel or "
           "_make_per_tensor_quantized_tensor");
  return *impl->quantizer();
}

// The integers of a quantized tensor as its underlying dense dtype: same storage, geometry and
// version counter, no quantizer, not a view (a kernel's handle on the bytes).
inline Tensor underlying_alias(const Tensor& q) {
  const TensorImpl& b = *q.unsafeGetTensorImpl();
  auto impl = make_intrusive<TensorImpl>(b.storage(), toUnderlying(b.dtype()), b.sizes(),
                                         b.strides(), b.storage_offset());
  impl->share_version_counter(b);
  return Tensor(std::move(impl));
}

// An uninitialised contiguous quantized tensor (PyTorch's _empty_affine_quantized /
// _empty_per_channel_affine_quantized): the storage sized by the dtype's itemsize, the quantizer
// set.
inline Tensor empty_quantized(IntArrayRef sizes, std::shared_ptr<Quantizer> quantizer) {
  Tensor t = empty(sizes, TensorOptions().dtype(quantizer->scalar_type()));
  t.unsafeGetTensorImpl()->set_quantizer(std::move(quantizer));
  return t;
}

// The element count of the dims after `axis` (the run of one channel in a contiguous layout).
inline int64_t inner_size(IntArrayRef sizes, int64_t axis) {
  int64_t n = 1;
  for (std::size_t d = static_cast<std::size_t>(axis) + 1; d < sizes.size(); ++d) n *= sizes[d];
  return n;
}

// A contiguous copy of a dense tensor, through the copy kernel only (this header sits under
// copy.hpp, so it cannot call Tensor::contiguous).
inline Tensor contiguous_copy(const Tensor& t) {
  Tensor c = empty(t.sizes(), TensorOptions().dtype(t.dtype()));
  copy_impl(c, t);
  return c;
}

// The per-tensor quantizer of a quantized `t`, with the error a dense or per-channel one gets.
inline const PerTensorAffineQuantizer& per_tensor_quantizer_or(const Tensor& t, const char* op) {
  quantizer_or_throw(t, op);
  return per_tensor_quantizer(t);
}

// The underlying C++ type of a quantized dtype, for a templated lambda.
template <class F>
decltype(auto) dispatch_quantized(DType t, F&& f) {
  switch (t) {
    case DType::QInt8: return std::forward<F>(f).template operator()<int8_t>();
    case DType::QUInt8: return std::forward<F>(f).template operator()<uint8_t>();
    case DType::QInt32: return std::forward<F>(f).template operator()<int32_t>();
    default: break;
  }
  TP_ERROR("expected a quantized dtype, got ", t);
}

// Writes round(src / scale) + zero_point into the quantized `dst` (its own quantizer), src a
// float32 tensor of dst's shape. Computed contiguously, then moved into dst's layout by the
// dense copy of the integers.
template <class = void>
void quantize_into(const Tensor& dst, const Tensor& src) {
  TP_CHECK(src.dtype() == kFloat, "Quantize only works on Float Tensor, got ",
           scalar_type_name(src.dtype()));
  const Tensor s = src.is_contiguous() ? src : contiguous_copy(src);
  const float* in = s.data_ptr<float>();
  const Quantizer& q = quantizer_or_throw(dst, "quantize_per_tensor");
  const int64_t n = s.numel();
  Tensor ints = empty(dst.sizes(), TensorOptions().dtype(toUnderlying(dst.dtype())));
  dispatch_quantized(dst.dtype(), [&]<class U>() {
    U* out = static_cast<U*>(ints.data_ptr());
    if (q.qscheme() == kPerTensorAffine) {
      const auto& pt = static_cast<const PerTensorAffineQuantizer&>(q);
      for (int64_t i = 0; i < n; ++i) out[i] = quantize_val<U>(pt.scale(), pt.zero_point(), in[i]);
    } else {
      const auto& pc = static_cast<const PerChannelAffineQuantizer&>(q);
      const int64_t inner = inner_size(dst.sizes(), pc.axis());
      const auto channels = static_cast<int64_t>(pc.scales().size());
      for (int64_t i = 0; i < n; ++i) {
        const auto c = static_cast<std::size_t>((i / inner) % channels);
        out[i] = quantize_val<U>(pc.scales()[c], pc.zero_points()[c], in[i]);
      }
    }
  });
  copy_impl(underlying_alias(dst), ints);
}

// The real values of a quantized tensor: a new contiguous float32 tensor.
template <class = void>
Tensor dequantize_values(const Tensor& self) {
  const Quantizer& q = quantizer_or_throw(self, "dequantize");
  const Tensor ints = contiguous_copy(underlying_alias(self));
  Tensor out = empty(self.sizes(), TensorOptions().dtype(kFloat));
  float* o = out.data_ptr<float>();
  const int64_t n = self.numel();
  dispatch_quantized(self.dtype(), [&]<class U>() {
    const U* in = static_cast<const U*>(ints.data_ptr());
    if (q.qscheme() == kPerTensorAffine) {
      const auto& pt = static_cast<const PerTensorAffineQuantizer&>(q);
      const Dequantizer deq(pt.scale(), pt.zero_point());
      for (int64_t i = 0; i < n; ++i) o[i] = deq(in[i]);
    } else {
      const auto& pc = static_cast<const PerChannelAffineQuantizer&>(q);
      const int64_t inner = inner_size(self.sizes(), pc.axis());
      const auto channels = static_cast<int64_t>(pc.scales().size());
      // PyTorch's per-channel kernel multiplies by the float64 scale, then rounds to float.
      for (int64_t i = 0; i < n; ++i) {
        const auto c = static_cast<std::size_t>((i / inner) % channels);
        o[i] =
            static_cast<float>(static_cast<double>(in[i] - pc.zero_points()[c]) * pc.scales()[c]);
      }
    }
  });
  return out;
}

// ---- dense entry points that accept quantized tensors ----------------------------------------

// copy_ with a quantized side (PyTorch's copy_ rules): quantized <- quantized of the same dtype
// and scheme copies the integers and adopts src's quantizer; quantized <- float32 quantizes with
// dst's parameters; anything else is refused with PyTorch's message.
template <class>
void quantized_copy(const Tensor& dst, const Tensor& src) {
  TP_CHECK_NOT_IMPLEMENTED(dst.is_cpu() && src.is_cpu(),
                           "Could not run 'aten::copy_' with arguments from the 'Quantized",
                           dst.is_cpu() ? src.device() : dst.device(),
                           "' backend: quantized tensors live on the CPU only");
  TP_CHECK(dst.is_quantized(),
           "Copying from quantized Tensor to non-quantized Tensor is not allowed, please use "
           "dequantize to get a float Tensor from a quantized Tensor");
  TP_CHECK(dst.sizes() == src.sizes(),
           "Quantized copy only works with Tensors with the same shape");
  if (!src.is_quantized()) {
    TP_CHECK(src.dtype() == kFloat, "Quantized copy only works with kFloat as source Tensor");
    quantize_into(dst, src);
    return;
  }
  const Quantizer& dq = quantizer_or_throw(dst, "copy_");
  const Quantizer& sq = quantizer_or_throw(src, "copy_");
  TP_CHECK(dq.qscheme() == sq.qscheme(), "Quantized Copy only works with same qscheme");
  TP_CHECK(dst.dtype() == src.dtype(),
           "Expected self.scalar_type() == src.scalar_type() to be true, but got false.");
  dst.unsafeGetTensorImpl()->set_quantizer(src.unsafeGetTensorImpl()->quantizer());
  copy_impl(underlying_alias(dst), underlying_alias(src));
}

// fill_ of a quantized tensor: the value quantized with each element's parameters (a float
// tensor of the value, quantized into self).
template <class = void>
void quantized_fill(const Tensor& self, const Scalar& value) {
  quantizer_or_throw(self, "fill_");
  Tensor f = empty(self.sizes(), TensorOptions().dtype(kFloat));
  fill_kernel<float>(f, static_cast<float>(value.toDouble()));
  quantize_into(self, f);
}

// relu of a quantized tensor (PyTorch's qrelu): max(q, zero_point), same parameters.
template <class = void>
Tensor quantized_relu(const Tensor& self) {
  const auto& pt = per_tensor_quantizer(self);
  Tensor out = empty_quantized(self.sizes(), self.unsafeGetTensorImpl()->quantizer());
  const Tensor ints = contiguous_copy(underlying_alias(self));
  const int64_t n = self.numel();
  dispatch_quantized(self.dtype(), [&]<class U>() {
    const U* in = static_cast<const U*>(ints.data_ptr());
    U* o = static_cast<U*>(out.data_ptr());
    const auto zp = static_cast<U>(pt.zero_point());
    for (int64_t i = 0; i < n; ++i) o[i] = in[i] < zp ? zp : in[i];
  });
  return out;
}

// A quantized operand of a dense comparison is compared by its real values (PyTorch's
// eq_quantized_cpu and friends dequantize).
inline Tensor dequantize_if_quantized(const Tensor& t) {
  return t.defined() && is_quantized(t.dtype()) ? dequantize_values(t) : t;
}

// torch.equal of quantized tensors: the same scheme, dtype and parameters, the same shape and
// the same integers.
template <class = void>
bool quantized_equal(const Tensor& self, const Tensor& other) {
  TP_CHECK(self.is_quantized() && other.is_quantized(),
           "equal: a quantized tensor can only be compared with a quantized tensor (got ",
           self.dtype(), " and ", other.dtype(), "); dequantize() the quantized one");
  const Quantizer& a = quantizer_or_throw(self, "equal");
  const Quantizer& b = quantizer_or_throw(other, "equal");
  if (!a.equalTo(b) || self.sizes() != other.sizes()) return false;
  const Tensor x = contiguous_copy(underlying_alias(self));
  const Tensor y = contiguous_copy(underlying_alias(other));
  return x.numel() == 0 || std::memcmp(x.data_ptr(), y.data_ptr(),
                                       x.numel() * static_cast<int64_t>(x.itemsize())) == 0;
}

}  // namespace detail
}  // namespace tensorplay
