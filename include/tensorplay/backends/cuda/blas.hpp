// Matrix products on CUDA through cuBLAS (ops/device_dispatch.hpp's ProductOp: mm, mv, bmm,
// addmm, baddbmm, matmul, linear and their out= forms). The front ends (shapes, broadcasting of
// batch dims, dtypes, autograd) are the CPU's; this is the kernel step.
//
// cuBLAS is column-major; a row-major product C = A @ B is the column-major C^T = B^T @ A^T,
// so B is cuBLAS's first operand and A its second. Each operand is read in place when one of
// its matrix strides is 1 and the other a valid leading dimension (a transposed or sliced
// matrix is a cuBLAS transpose flag and a leading dimension, no copy); otherwise (both strides
// above 1, or a broadcast row or column) it is copied contiguous first. The innermost batch
// dimension is cuBLAS's strided batch (stride 0 broadcasts), outer ones a loop of calls.
// plan_gemm works this out on the host, before touching a device, and the tests run its result
// through a reference column-major GEMM on the CPU.
//
// float32, float64, float16 and bfloat16, as PyTorch's CUDA products; float16 and bfloat16
// accumulate in float32 (cuBLAS's CUBLAS_COMPUTE_32F), float32 in float32 without TF32
// (PyTorch's default, torch.backends.cuda.matmul.allow_tf32 = False). Other dtypes raise
// PyTorch's "\"addmm_cuda\" not implemented for 'Long'". An empty contraction (k == 0) gives
// beta * self, or zeros, without calling cuBLAS.
//
// Handles: one cuBLAS handle per (thread, device), created on first use and set to the current
// stream before each call, as PyTorch's handle pool does; they are not destroyed (at process exit
// the driver may already be gone).
#pragma once

#include <tensorplay/backends/cuda/device_kernels.hpp>
#include <tensorplay/backends/cuda/error.hpp>
#include <tensorplay/backends/cuda/stream.hpp>
#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/grad_mode.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/ops/device_dispatch.hpp>
#include <tensorplay/ops/linalg.hpp>

#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <unordered_map>
#include <vector>

namespace tensorplay {
namespace cuda {

// How cuBLAS reads one operand: its column-major matrix `trans`posed or not, with leading
// dimension `ld` (elements).
struct GemmMatrix {
  bool trans = false;
  int64_t ld = 1;
};

// A row-major rows x cols matrix with element strides rs, cs as cuBLAS's operand for op(X^T):
// X^T is stored column-major (cols x rows, ld rs) when cs is 1, and X itself (rows x cols, ld cs,
// transposed) when rs is 1; a dimension of size 1 takes any stride. nullopt: neither (a copy).
inline std::optional<GemmMatrix> gemm_matrix(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  constexpr int64_t kMaxLd = std::numeric_limits<int>::max();
  const auto fits = [](int64_t ld) { return ld <= kMaxLd; };
  if (cs == 1 || cols <= 1) {  // X^T column-major: cols x rows, leading dimension rs
    const int64_t ld = rows <= 1 ? std::max<int64_t>(1, cols) : rs;
    if (ld >= std::max<int64_t>(1, cols) && fits(ld)) return GemmMatrix{false, ld};
  }
  if (rs == 1 || rows <= 1) {  // X column-major: rows x cols, leading dimension cs
    const int64_t ld = cols <= 1 ? std::max<int64_t>(1, rows) : cs;
    if (ld >= std::max<int64_t>(1, rows) && fits(ld)) return GemmMatrix{true, ld};
  }
  return std::nullopt;
}

// One cuBLAS call sequence for C = alpha * A @ B + beta * C over the batch. Operand 0 is A,
// 1 is B, 2 is C (element strides). cuBLAS's call: (m, n, k) = (n, m, k) of the row-major
// product, first operand B (`first`), second A (`second`).
struct GemmPlan {
  std::array<bool, 3> copy{};  // operands that must be made contiguous first (then plan again)
  GemmMatrix first, second;    // B and A as cuBLAS reads them
  int64_t ldc = 1;
  int64_t m = 0, n = 0, k = 0;
  // The innermost batch dimension: cuBLAS's batch count and each operand's stride (A, B, C).
  int64_t count = 1;
  std::array<int64_t, 3> batch_stride{};
  // The outer batch dimensions, a loop of calls: sizes and each operand's strides.
  std::vector<int64_t> outer;
  std::vector<std::array<int64_t, 3>> outer_strides;
};

// The plan for result `c` = a @ b (ProductArgs' factors, rows and cols flags, batch, m, n, k).
template <class = void>
GemmPlan plan_gemm(const ::tensorplay::detail::linalg_impl::Factor& a,
                   const ::tensorplay::detail::linalg_impl::Factor& b, const Tensor& c, bool c_rows,
                   bool c_cols, IntArrayRef batch, int64_t m, int64_t n, int64_t k) {
  constexpr int64_t kMaxInt = std::numeric_limits<int>::max();
  TP_CHECK(m <= kMaxInt && n <= kMaxInt && k <= kMaxInt, "cuda: a product of ", m, "x", k, " and ",
           k, "x", n, " matrices: cuBLAS takes dimensions below 2^31");
  GemmPlan plan;
  plan.m = n;
  plan.n = m;
  plan.k = k;
  const std::size_t nbatch = batch.size();
  const auto sa = ::tensorplay::detail::linalg_impl::product_strides(a.t, nbatch, a.rows, a.cols);
  const auto sb = ::tensorplay::detail::linalg_impl::product_strides(b.t, nbatch, b.rows, b.cols);
  const auto sc = ::tensorplay::detail::linalg_impl::product_strides(c, nbatch, c_rows, c_cols);
  const std::optional<GemmMatrix> ga = gemm_matrix(m, k, sa.rows, sa.cols);
  const std::optional<GemmMatrix> gb = gemm_matrix(k, n, sb.rows, sb.cols);
  const std::optional<GemmMatrix> gc = gemm_matrix(m, n, sc.rows, sc.cols);
  plan.copy = {!ga, !gb, !gc || gc->trans};  // C is written as C^T column-major: not transposed
  if (ga) plan.second = *ga;
  if (gb) plan.first = *gb;
  if (gc) plan.ldc = gc->ld;
  for (std::size_t d = 0; d < nbatch; ++d) {
    const std::array<int64_t, 3> st{sa.batch[d], sb.batch[d], sc.batch[d]};
    if (d + 1 == nbatch) {
      plan.count = batch[d];
      plan.batch_stride = st;
    } else {
      plan.outer.push_back(batch[d]);
      plan.outer_strides.push_back(st);
    }
  }
  TP_CHECK(plan.count <= kMaxInt, "cuda: a batch of ", plan.count,
           " products: cuBLAS takes fewer than 2^31");
  return plan;
}

// Calls f(offsets) once per cuBLAS call of `plan`: each combination of the outer batch indices,
// with A's, B's and C's element offsets for it.
template <class F>
void for_each_gemm_call(const GemmPlan& plan, F&& f) {
  std::vector<int64_t> idx(plan.outer.size(), 0);
  int64_t total = 1;
  for (int64_t s : plan.outer) total *= s;
  for (int64_t o = 0; o < total; ++o) {
    std::array<int64_t, 3> off{};
    for (std::size_t d = 0; d < idx.size(); ++d) {
      for (std::size_t x = 0; x < 3; ++x) off[x] += idx[d] * plan.outer_strides[d][x];
    }
    f(off);
    for (std::size_t d = idx.size(); d-- > 0;) {  // odometer over the outer batch dims
      if (++idx[d] < plan.outer[d]) break;
      idx[d] = 0;
    }
  }
}

namespace detail {

[[noreturn]] inline void throw_cublas(cublasStatus_t status, const char* call) {
  throw CUDAError(::tensorplay::detail::str_cat("CUDA error: ", cublasGetStatusString(status),
                                                " when calling `", call, "`"),
                  cudaErrorUnknown);
}
#define TENSORPLAY_CUBLAS_CHECK_(call)                                    \
  do {                                                                    \
    const cublasStatus_t tp_cublas_status_ = (call);                      \
    if (tp_cublas_status_ != CUBLAS_STATUS_SUCCESS) {                     \
      ::tensorplay::cuda::detail::throw_cublas(tp_cublas_status_, #call); \
    }                                                                     \
  } while (false)

// This thread's handle for `device` (current), bound to `stream`.
inline cublasHandle_t cublas_handle(DeviceIndex device, cudaStream_t stream) {
  thread_local std::unordered_map<DeviceIndex, cublasHandle_t> handles;
  cublasHandle_t& h = handles[device];
  if (h == nullptr) TENSORPLAY_CUBLAS_CHECK_(cublasCreate(&h));
  TENSORPLAY_CUBLAS_CHECK_(cublasSetStream(h, stream));
  return h;
}

inline cudaDataType cuda_data_type(DType dt) {
  switch (dt) {
    case kFloat: return CUDA_R_32F;
    case kDouble: return CUDA_R_64F;
    case kHalf: return CUDA_R_16F;
    case kBFloat16: return CUDA_R_16BF;
    default: break;
  }
  TP_CHECK_NOT_IMPLEMENTED(false, "\"addmm_cuda\" not implemented for '", scalar_type_name(dt),
                           "'");
  return CUDA_R_32F;
}

// Runs `plan` on the device: C = alpha * A @ B + beta * C, element pointers of the operands'
// first elements.
inline void run_gemm(const GemmPlan& plan, DType dt, const char* a, const char* b, char* c,
                     double alpha, double beta, DeviceIndex device) {
  const cudaDataType type = cuda_data_type(dt);
  const cublasComputeType_t compute = dt == kDouble ? CUBLAS_COMPUTE_64F : CUBLAS_COMPUTE_32F;
  const float alpha32 = static_cast<float>(alpha), beta32 = static_cast<float>(beta);
  const void* pa = dt == kDouble ? static_cast<const void*>(&alpha) : &alpha32;
  const void* pb = dt == kDouble ? static_cast<const void*>(&beta) : &beta32;
  const cublasHandle_t h = cublas_handle(device, getCurrentCUDAStream(device).stream());
  const auto item = static_cast<int64_t>(itemsize(dt));
  const auto op = [](bool t) { return t ? CUBLAS_OP_T : CUBLAS_OP_N; };
  for_each_gemm_call(plan, [&](const std::array<int64_t, 3>& off) {
    const auto bytes = [&](std::size_t x) { return off[x] * item; };
    TENSORPLAY_CUBLAS_CHECK_(cublasGemmStridedBatchedEx(
        h, op(plan.first.trans), op(plan.second.trans), static_cast<int>(plan.m),
        static_cast<int>(plan.n), static_cast<int>(plan.k), pa, b + bytes(1), type,
        static_cast<int>(plan.first.ld), plan.batch_stride[1], a + bytes(0), type,
        static_cast<int>(plan.second.ld), plan.batch_stride[0], pb, c + bytes(2), type,
        static_cast<int>(plan.ldc), plan.batch_stride[2], static_cast<int>(plan.count), compute,
        CUBLAS_GEMM_DEFAULT));
  });
}

}  // namespace detail
}  // namespace cuda

template <class>
void DeviceKernel<ProductOp, DeviceType::CUDA>::run(
    const ::tensorplay::detail::linalg_impl::ProductArgs& p) {
  using ::tensorplay::detail::linalg_impl::Factor;
  const DType dt = p.result.dtype();
  const bool use_self = p.self.defined() && p.beta.toDouble() != 0.0;
  (void)cuda::detail::cuda_data_type(dt);  // PyTorch's error for dtypes cuBLAS has no GEMM for
  for (const Tensor* t : {&p.a.t, &p.b.t, use_self ? &p.self : &p.result}) {
    TP_CHECK_TYPE(t->dtype() == dt, "expected scalar type ", scalar_type_name(dt), " but found ",
                  scalar_type_name(t->dtype()));
  }
  if (p.result.numel() == 0) return;
  NoGradGuard no_grad;  // the copies below are the kernel's own
  // C: the result itself when cuBLAS can write it and it overlaps no input, else a temporary.
  const bool aliased = p.result.storage().is_alias_of(p.a.t.storage()) ||
                       p.result.storage().is_alias_of(p.b.t.storage());
  Tensor c = p.result;
  cuda::GemmPlan plan = cuda::plan_gemm(p.a, p.b, c, p.c_rows, p.c_cols, p.batch, p.m, p.n, p.k);
  if (aliased || plan.copy[2] || !p.result.is_non_overlapping_and_dense()) {
    c = empty(p.result.sizes(), p.result.options());
  }
  if (use_self) {
    if (!p.self.is_same(c)) ::tensorplay::detail::copy_impl(c, p.self);
  }
  if (p.k == 0) {  // beta * self, or zeros: cuBLAS is not needed
    if (use_self) {
      c.mul_(p.beta);
    } else {
      c.zero_();
    }
  } else {
    const Tensor a = plan.copy[0] ? p.a.t.contiguous() : p.a.t;
    const Tensor b = plan.copy[1] ? p.b.t.contiguous() : p.b.t;
    plan = cuda::plan_gemm(Factor{a, p.a.rows, p.a.cols}, Factor{b, p.b.rows, p.b.cols}, c,
                           p.c_rows, p.c_cols, p.batch, p.m, p.n, p.k);
    TP_CHECK(!plan.copy[0] && !plan.copy[1] && !plan.copy[2],
             "cuda: contiguous operands of a product are not cuBLAS operands");
    const auto data = [](const Tensor& t) {
      return static_cast<char*>(t.unsafeGetTensorImpl()->data());
    };
    cuda::CUDAGuard guard(p.result.device().index());
    cuda::detail::run_gemm(plan, dt, data(a), data(b), data(c), p.alpha.toDouble(),
                           use_self ? p.beta.toDouble() : 0.0, guard.current_device().index());
  }
  if (!c.is_same(p.result)) ::tensorplay::detail::copy_impl(p.result, c);
}

}  // namespace tensorplay
