// The Vulkan kernels of reductions, softmax and matrix products behind the device dispatch
// point (ops/device_dispatch.hpp's ReduceOp, SoftmaxOp, ProductOp): the tensor-level glue over
// the buffer-level shaders of reduce.hpp, softmax.hpp and matmul.hpp. The front ends (shapes,
// dtypes, out=, autograd) are the CPU's.
//
// Float32 compute (int64 indices for argmax/argmin); reductions and products also in int32,
// int64 and float64, softmax in float64 (the 64-bit ones where the device has the shader
// feature). Float16 and bfloat16 compute in
// float32, bool and the 8- and 16-bit integers in int32 (converted on the device by cast.hpp),
// as the CPU does. A reduction over any set of dimensions runs as rows: the input permuted so
// that the kept dimensions come first (a copy on Vulkan, where every view is one), then one row
// per output element.
#pragma once

#include <tensorplay/backends/vulkan/cast.hpp>
#include <tensorplay/backends/vulkan/matmul.hpp>
#include <tensorplay/backends/vulkan/pointwise.hpp>
#include <tensorplay/backends/vulkan/reduce.hpp>
#include <tensorplay/backends/vulkan/softmax.hpp>
#include <tensorplay/core/grad_mode.hpp>
#include <tensorplay/ops/device_dispatch.hpp>
#include <tensorplay/ops/linalg.hpp>
#include <tensorplay/ops/views.hpp>

#include <cstdint>
#include <string_view>
#include <vector>

namespace tensorplay {
namespace vulkan::detail {

// t's storage range; an empty one for a storage of no bytes (which kernels never read).
inline BufferRange range_of(const Tensor& t) {
  if (t.storage().nbytes() == 0) return BufferRange{};
  return buffer_of(*t.storage().unsafeGetStorageImpl());
}

// `t` itself when it is contiguous (what a kernel writes), else a new contiguous tensor that
// the caller copies back with finish_into.
inline Tensor contiguous_target(const Tensor& t) {
  return t.is_contiguous() ? t : empty(t.sizes(), t.options());
}
inline void finish_into(const Tensor& result, const Tensor& target) {
  if (!target.is_same(result)) ::tensorplay::detail::copy_impl(result, target);
}

}  // namespace vulkan::detail

template <class>
void DeviceKernel<ReduceOp, DeviceType::Vulkan>::run(const Tensor& result, const Tensor& self,
                                                     std::uint64_t dims, ReduceCode code) {
  using namespace vulkan::detail;
  using vulkan::ReduceKind;
  ReduceKind kind = ReduceKind::Sum;
  std::string_view name = "aten::sum";
  switch (code) {
    case ReduceCode::Sum: break;
    case ReduceCode::Mean: kind = ReduceKind::Mean, name = "aten::mean"; break;
    case ReduceCode::Amax: kind = ReduceKind::Amax, name = "aten::amax"; break;
    case ReduceCode::Amin: kind = ReduceKind::Amin, name = "aten::amin"; break;
    case ReduceCode::Argmax: kind = ReduceKind::Argmax, name = "aten::argmax"; break;
    case ReduceCode::Argmin: kind = ReduceKind::Argmin, name = "aten::argmin"; break;
    case ReduceCode::Prod: kind = ReduceKind::Prod, name = "aten::prod"; break;
  }
  const bool arg = code == ReduceCode::Argmax || code == ReduceCode::Argmin;
  // Float16, bfloat16 and the 8- and 16-bit integers reduce in their wide dtype (a result of a
  // narrow dtype, e.g. a float16 sum accumulated in float32, is converted at the end).
  const DType wide = wide_compute_dtype(self.dtype());
  const DType want = arg ? kLong : wide;
  if (wide != self.dtype() ||
      (result.dtype() != want && wide_compute_dtype(result.dtype()) == want)) {
    if (result.numel() == 0) return;
    NoGradGuard no_grad;
    const Tensor self_wide = wide == self.dtype() ? self : vulkan::cast_to(self, wide);
    const Tensor result_wide =
        result.dtype() == want ? result : empty(result.sizes(), result.options().dtype(want));
    run(result_wide, self_wide, dims, code);
    if (!result_wide.is_same(result)) vulkan::cast_copy(result, result_wide);
    return;
  }
  const DType dt = self.dtype();
  const bool integral = dt == kInt || dt == kLong;
  // int32 sums and products reach here as int64 (the front end's accumulation type); a mean
  // of integers is the front end's error.
  TP_CHECK_TYPE(vulkan::reduce_supports(dt) && !(integral && code == ReduceCode::Mean), "'", name,
                "' on the Vulkan backend computes in float32, int32, int64 or float64 ",
                "(the 64-bit ones where the device has shaderInt64 / shaderFloat64); got a "
                "tensor of dtype ",
                scalar_type_name(dt),
                " (convert it with .to(kFloat), or move the tensors with .cpu())");
  TP_CHECK_TYPE(result.dtype() == (arg ? kLong : dt), "'", name, "' on the Vulkan backend writes ",
                arg ? "int64" : scalar_type_name(dt), " results; got an out= tensor of dtype ",
                scalar_type_name(result.dtype()));
  if (result.numel() == 0) return;
  NoGradGuard no_grad;  // the permutation below is the kernel's own
  std::vector<int64_t> perm;
  for (int pass = 0; pass < 2; ++pass) {
    for (int64_t d = 0; d < self.dim(); ++d) {
      if (((dims >> d) & 1u) == static_cast<std::uint64_t>(pass)) perm.push_back(d);
    }
  }
  bool identity = true;
  for (std::size_t i = 0; i < perm.size(); ++i) identity = identity && perm[i] == int64_t(i);
  const Tensor rows_view = identity ? self.contiguous() : self.permute(perm).contiguous();
  const int64_t rows = result.numel();
  const int64_t cols = self.numel() / rows;
  const Tensor target = contiguous_target(result);
  vulkan::reduce_rows(range_of(rows_view), static_cast<std::size_t>(rows_view.storage_offset()),
                      checked_u32(rows, "a reduction into"), checked_u32(cols, "a reduction of"),
                      kind, range_of(target), static_cast<std::size_t>(target.storage_offset()),
                      dt);
  finish_into(result, target);
}

template <class>
void DeviceKernel<SoftmaxOp, DeviceType::Vulkan>::run(const Tensor& result, const Tensor& self,
                                                      int64_t dim, bool log) {
  using namespace vulkan::detail;
  const std::string_view name = log ? "aten::_log_softmax" : "aten::_softmax";
  if (self.numel() == 0) return;
  NoGradGuard no_grad;
  // Float16 and bfloat16 compute in float32, as on the CPU.
  if (wide_compute_dtype(self.dtype()) == kFloat && wide_compute_dtype(result.dtype()) == kFloat &&
      (self.dtype() != kFloat || result.dtype() != kFloat)) {
    const Tensor x = self.dtype() == kFloat ? self : vulkan::cast_to(self, kFloat);
    const Tensor y =
        result.dtype() == kFloat ? result : empty(result.sizes(), result.options().dtype(kFloat));
    run(y, x, dim, log);
    if (!y.is_same(result)) vulkan::cast_copy(result, y);
    return;
  }
  const DType dt = self.dtype();
  TP_CHECK_TYPE((dt == kFloat || dt == kDouble) && result.dtype() == dt, "'", name,
                "' on the Vulkan backend computes in float32, float64 (on a device with "
                "shaderFloat64), float16 or bfloat16; got ",
                scalar_type_name(dt), " and ", scalar_type_name(result.dtype()),
                " (convert it with .to(kFloat), or move the tensors with .cpu())");
  TP_CHECK_TYPE(dt == kFloat || vulkan::context().has_float64(), "'", name,
                "' in float64 on the Vulkan backend needs a device with shaderFloat64, which '",
                vulkan::context().device_name(), "' does not report");
  const int64_t last = self.dim() - 1;
  const bool lastdim = self.dim() == 0 || dim == last;
  const Tensor x = lastdim ? self.contiguous() : self.transpose(dim, last).contiguous();
  const int64_t cols = self.dim() == 0 ? 1 : self.size(dim);
  const int64_t rows = self.numel() / cols;
  const Tensor y = lastdim ? contiguous_target(result) : empty(x.sizes(), x.options());
  vulkan::softmax_rows(range_of(x), static_cast<std::size_t>(x.storage_offset()),
                       checked_u32(rows, "a softmax over"), checked_u32(cols, "a softmax of"), log,
                       range_of(y), static_cast<std::size_t>(y.storage_offset()), dt);
  if (lastdim) {
    finish_into(result, y);
  } else {
    ::tensorplay::detail::copy_impl(result, y.transpose(dim, last));
  }
}

template <class>
void DeviceKernel<ProductOp, DeviceType::Vulkan>::run(
    const ::tensorplay::detail::linalg_impl::ProductArgs& p) {
  using namespace vulkan::detail;
  const std::string_view name = "aten::mm";
  // Float16 and bfloat16 compute in float32 (the CPU's accumulation type), rounded once; the
  // 8- and 16-bit integers in int32 (wrapping, so the result is the CPU's modulo 2^n).
  const bool defined_self = p.self.defined();
  const DType wide_dt = wide_compute_dtype(p.result.dtype());
  if (p.result.dtype() != wide_dt && p.result.dtype() != kBool &&
      p.a.t.dtype() == p.result.dtype() && p.b.t.dtype() == p.result.dtype() &&
      (!defined_self || p.self.dtype() == p.result.dtype())) {
    if (p.result.numel() == 0) return;
    NoGradGuard no_grad;
    const auto wide = [wide_dt](const Tensor& t) { return vulkan::cast_to(t, wide_dt); };
    const Tensor a = wide(p.a.t), b = wide(p.b.t);
    const Tensor bias = defined_self ? wide(p.self) : Tensor();
    const Tensor c = empty(p.result.sizes(), p.result.options().dtype(wide_dt));
    using ::tensorplay::detail::linalg_impl::Factor;
    using ::tensorplay::detail::linalg_impl::ProductArgs;
    run(ProductArgs{c, bias, Factor{a, p.a.rows, p.a.cols}, Factor{b, p.b.rows, p.b.cols}, p.c_rows,
                    p.c_cols, p.batch, p.m, p.n, p.k, p.beta, p.alpha});
    vulkan::cast_copy(p.result, c);
    return;
  }
  const DType dt = p.result.dtype();
  const bool use_self = p.self.defined() && p.beta.toDouble() != 0.0;
  const bool known = dt == kFloat || dt == kDouble || dt == kInt || dt == kLong;
  for (const Tensor* t : {&p.result, &p.a.t, &p.b.t, use_self ? &p.self : &p.result}) {
    TP_CHECK_TYPE(t->dtype() == dt && known, "'", name,
                  "' on the Vulkan backend computes in the floating and integer dtypes other "
                  "than bool, all operands of one dtype; got ",
                  scalar_type_name(dt), " and ", scalar_type_name(t->dtype()));
  }
  TP_CHECK_TYPE(vulkan::matmul_supports(dt), "'", name, "' in ", scalar_type_name(dt),
                " on the Vulkan backend needs a device with ",
                dt == kDouble ? "shaderFloat64" : "shaderInt64", ", which '",
                vulkan::context().device_name(),
                "' does not report (convert the tensors with "
                ".to(kFloat), or move them with .cpu())");
  if (p.result.numel() == 0) return;
  const std::size_t nbatch = p.batch.size();
  using ::tensorplay::detail::linalg_impl::product_strides;
  using Strides = ::tensorplay::detail::linalg_impl::ProductStrides;
  // C is written contiguously and must not overlap the inputs (in place: a temporary).
  const bool aliased = p.result.storage().is_alias_of(p.a.t.storage()) ||
                       p.result.storage().is_alias_of(p.b.t.storage()) ||
                       (use_self && p.result.storage().is_alias_of(p.self.storage()));
  const Tensor c =
      p.result.is_contiguous() && !aliased ? p.result : empty(p.result.sizes(), p.result.options());
  const Strides sa = product_strides(p.a.t, nbatch, p.a.rows, p.a.cols);
  const Strides sb = product_strides(p.b.t, nbatch, p.b.rows, p.b.cols);
  const Strides sbias = use_self ? product_strides(p.self, nbatch, p.c_rows, p.c_cols) : Strides{};
  // The innermost batch dim is the shader's; outer ones are a loop of dispatches.
  int64_t outer = 1;
  for (std::size_t d = 0; d + 1 < nbatch; ++d) outer *= p.batch[d];
  const int64_t inner = nbatch > 0 ? p.batch[nbatch - 1] : 1;
  const std::uint32_t m = checked_u32(p.m, "a product of"), n = checked_u32(p.n, "a product of"),
                      k = checked_u32(p.k, "a product of");
  const std::uint32_t nb = checked_u32(inner, "a batch of");
  const double alpha = p.alpha.toDouble();
  const double beta = use_self ? p.beta.toDouble() : 0.0;
  std::vector<int64_t> idx(nbatch > 0 ? nbatch - 1 : 0, 0);
  for (int64_t o = 0; o < outer; ++o) {
    int64_t off_a = 0, off_b = 0, off_bias = 0;
    for (std::size_t d = 0; d < idx.size(); ++d) {
      off_a += idx[d] * sa.batch[d];
      off_b += idx[d] * sb.batch[d];
      if (use_self) off_bias += idx[d] * sbias.batch[d];
    }
    auto operand = [&](const Tensor& t, const Strides& s, int64_t off) {
      // (With k == 0 the factors are empty and never read: any valid range will do.)
      if (t.numel() == 0) return vulkan::MatmulOperand{range_of(c), 0, 0, 0, 0};
      return vulkan::MatmulOperand{range_of(t), static_cast<std::size_t>(t.storage_offset() + off),
                                   nbatch > 0 ? s.batch[nbatch - 1] : 0, s.rows, s.cols};
    };
    const vulkan::MatmulOperand a = operand(p.a.t, sa, off_a), b = operand(p.b.t, sb, off_b);
    vulkan::MatmulOperand bias{};
    if (use_self) bias = operand(p.self, sbias, off_bias);
    const auto c_first = static_cast<std::size_t>(c.storage_offset() + o * inner * p.m * p.n);
    vulkan::bmm(a, b, nb, m, n, k, range_of(c), c_first, alpha, use_self ? &bias : nullptr, beta,
                dt);
    for (std::size_t d = idx.size(); d-- > 0;) {  // odometer over the outer batch dims
      if (++idx[d] < p.batch[d]) break;
      idx[d] = 0;
    }
  }
  finish_into(p.result, c);
}

}  // namespace tensorplay
