// Linear algebra: mm, bmm, mv, dot, outer (ger), addmm, addmv, addbmm, baddbmm and matmul, with
// their out= forms, under libtorch's names, argument orders, shape rules and messages (ATen's
// LinearAlgebra.cpp and Blas.cpp).
//
// One kernel computes every product here: gemm_batched below, C[b] = alpha * A[b] B[b] + beta *
// C[b] over a batch shape, each operand addressed through its own row, column and per-batch
// strides. So a transposed, sliced or expanded operand is never copied: its strides go to
// detail::gemm as they are (ops/gemm.hpp), and a broadcast batch dimension is a batch stride of 0
// (matmul broadcasts batches without materialising them, where PyTorch's expand + reshape may
// copy). dot is a 1 x 1 product, mv one with n = 1, outer one with k = 1, mm a batch of one.
// Products of fewer than 400 multiply-adds (a batch of 4 x 4 matrices, say) take a plain loop
// instead of detail::gemm, whose packing would cost more than the arithmetic.
//
// Batches run in parallel (parallel_for over the batch index), each batch one gemm call that
// writes its own slice of C, so the bytes of a result never depend on the thread count. A
// single product runs on the calling thread; splitting one gemm is the gemm layer's business.
//
// Outputs. A functional form returns a fresh contiguous tensor. An out= form follows PyTorch's
// structured kernels: out must already have the result dtype ("Expected out tensor to have dtype
// float, but got double instead"), is resized (resize_, contiguous) when its shape is wrong, and
// is written in place through its own strides when that is safe. When it is not (out shares
// memory with an operand, or its strides do not prove that its elements are distinct) the product
// goes to a fresh tensor that is copied into out. An out that partially overlaps an operand, or
// maps several elements to one address, is refused with PyTorch's messages. out= bumps the
// version of out once; a functional result starts at version 0.
//
// Dtypes: every dtype detail::gemm has except Bool, which PyTorch's CPU kernels refuse with
// `"addmm_impl_cpu_" not implemented for 'Bool'` (outer, a product, takes Bool: it is mul). As in
// PyTorch the refusal comes only when there is something to multiply (an empty product, or one
// with k == 0, is zeros). Integers accumulate with wrap-around, Half and BFloat16 in float and
// round once. alpha and beta are converted to the tensor's dtype (Scalar::to); for Half and
// BFloat16 that rounds them to 16 bits, where PyTorch keeps them in float.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <type_traits>
#include <utility>
#include <vector>

#include <tensorplay/autograd/functions/linalg.hpp>
#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/scalar.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/ops/copy.hpp>
#include <tensorplay/ops/dispatch.hpp>
#include <tensorplay/ops/factories.hpp>
#include <tensorplay/ops/gemm.hpp>
#include <tensorplay/ops/parallel.hpp>
#include <tensorplay/ops/resize.hpp>
#include <tensorplay/ops/tensor_iterator.hpp>  // assert_no_internal_overlap / _partial_overlap
#include <tensorplay/ops/views.hpp>

namespace tensorplay {
namespace detail::linalg_impl {

// ---- memory: when may a product be written straight into out ------------------------------

// Whether no two elements of t share an address, proven from sizes and strides: with the
// dimensions of size > 1 ordered by stride, each stride must step past everything the smaller
// ones reach. Dense tensors pass at once; a slice (every other column) passes the test; an
// expanded or self-overlapping as_strided tensor fails it.
template <class = void>
bool strides_non_overlapping(const Tensor& t) {
  if (t.is_non_overlapping_and_dense() || t.numel() <= 1) return true;
  std::vector<std::pair<int64_t, int64_t>> dims;  // (stride, size)
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.size(d) > 1) dims.emplace_back(t.stride(d), t.size(d));
  }
  std::sort(dims.begin(), dims.end());
  int64_t reach = 0;  // the largest offset the dimensions so far address
  for (const auto& [stride, size] : dims) {
    if (stride <= reach) return false;
    reach += (size - 1) * stride;
  }
  return true;
}

// Whether a and b may touch a common byte: same storage and intersecting byte ranges.
template <class = void>
bool may_share_memory(const Tensor& a, const Tensor& b) {
  if (a.numel() == 0 || b.numel() == 0 || !a.has_storage() || !b.has_storage()) return false;
  if (!a.storage().is_alias_of(b.storage())) return false;
  auto range = [](const Tensor& t) {
    const char* first = static_cast<const char*>(t.data_ptr());
    int64_t span = 1;
    for (int64_t d = 0; d < t.dim(); ++d) span += (t.size(d) - 1) * t.stride(d);
    return std::pair<const char*, const char*>(first, first + span * t.element_size());
  };
  const auto [a0, a1] = range(a);
  const auto [b0, b1] = range(b);
  return a0 < b1 && b0 < a1;
}

// ---- out= -----------------------------------------------------------------------------------

using detail::check_out_dtype;  // ops/resize.hpp; seen by the ops' `using namespace linalg_impl`

// at::native::resize_output: an out of another shape is resized to `shape` with contiguous
// strides (its storage grows if needed); one of the right shape keeps its strides.
// Every linalg out= form starts here, so this is where the out tensor meets the write funnel
// (read-only storages, inference tensors; out='s own grad rule is check_out_no_grad's).
template <class = void>
void resize_out(const Tensor& out, IntArrayRef shape) {
  autograd::detail::check_inplace(out.unsafeGetTensorImpl(), /*records=*/false);
  if (!(out.sizes() == shape)) out.resize_(shape);
}

// Refuses an out that maps several elements to one address, or that partially overlaps one of
// the factors (PyTorch's MemOverlap messages). A full overlap is allowed: the product then goes
// through a temporary.
template <class = void>
void check_out_memory(const Tensor& out, std::initializer_list<const Tensor*> factors) {
  detail::assert_no_internal_overlap(out);
  for (const Tensor* f : factors) detail::assert_no_partial_overlap(out, *f);
}

template <class = void>
void finish_out(const Tensor& out) {
  out.unsafeGetTensorImpl()->bump_version();
}

// An in-place form writes self, which therefore must already have the result's shape (the
// check_inplace of PyTorch's structured kernels).
template <class = void>
void check_inplace_size(const Tensor& self, IntArrayRef sizes) {
  TP_CHECK(self.sizes() == sizes, "Bad in-place call: input tensor size ", self.sizes(),
           " and output tensor size ", sizes, " should match");
}

// ---- the kernel -----------------------------------------------------------------------------

// One operand of a batched product: element (0, 0) of batch 0, its row and column strides and
// one stride per batch dimension (0 where it broadcasts), all in elements.
struct Operand {
  void* data = nullptr;
  int64_t rs = 1, cs = 1;
  std::vector<int64_t> batch;
};

// Operand view of t: its dims are [batch..., row?, col?]. Its batch dims are right-aligned
// against a batch of `nbatch` dims; missing and size-1 ones broadcast. A matrix factor that has
// no row (col) dim is a single row (column): a 1-d left (right) factor of matmul, say.
template <class = void>
Operand make_operand(const Tensor& t, std::size_t nbatch, bool has_rows, bool has_cols) {
  Operand o;
  o.data = t.data_ptr();
  const int64_t nb_t = t.dim() - int64_t(has_rows) - int64_t(has_cols);
  if (has_rows) o.rs = t.stride(nb_t);
  if (has_cols) o.cs = t.stride(t.dim() - 1);
  o.batch.assign(nbatch, 0);
  for (int64_t d = 0; d < nb_t; ++d) {
    if (t.size(d) != 1) o.batch[nbatch - std::size_t(nb_t) + std::size_t(d)] = t.stride(d);
  }
  return o;
}

// What a tiny product accumulates in: float for the 16-bit floats, the type itself for float and
// double, uint64_t for integers and bool (wrapping, then reduced modulo the target: C++20's
// conversion rule) -- the same choices as detail::gemm's plain loop.
template <class T>
using small_acc_t =
    std::conditional_t<ReducedFloatingPoint<T>, float,
                       std::conditional_t<std::is_floating_point_v<T>, T, uint64_t>>;

// Below this many multiply-adds a product is one plain loop: the blocked gemm's packing and
// full-tile padding cost more than the arithmetic there (PyTorch's bmm switches to its plain
// kernel below 400 as well). A 4x4 batch of 10000 runs about ten times faster this way.
inline constexpr int64_t kSmallProduct = 400;

// C = alpha * A B + beta * C with gemm's contract (beta == 0 never reads C; alpha == 0 or
// k == 0 never reads A or B).
template <class T>
void small_gemm(int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t a_rs, int64_t a_cs,
                const T* b, int64_t b_rs, int64_t b_cs, T beta, T* c, int64_t c_rs, int64_t c_cs) {
  using Acc = small_acc_t<T>;
  const Acc al = static_cast<Acc>(alpha), be = static_cast<Acc>(beta);
  const bool read_ab = k > 0 && al != Acc(0);
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      Acc sum = 0;
      if (read_ab) {
        for (int64_t p = 0; p < k; ++p) {
          sum +=
              static_cast<Acc>(a[i * a_rs + p * a_cs]) * static_cast<Acc>(b[p * b_rs + j * b_cs]);
        }
      }
      T& cij = c[i * c_rs + j * c_cs];
      cij = be == Acc(0) ? static_cast<T>(al * sum)
                         : static_cast<T>(al * sum + be * static_cast<Acc>(cij));
    }
  }
}

template <class T>
void gemm_batched_typed(IntArrayRef batch, int64_t nb, int64_t m, int64_t n, int64_t k, T alpha,
                        T beta, const Operand& a, const Operand& b, const Operand& c) {
  const T* pa = static_cast<const T*>(a.data);
  const T* pb = static_cast<const T*>(b.data);
  T* pc = static_cast<T*>(c.data);
  const std::size_t nd = batch.size();
  // A and B are never read when k == 0 (they may be empty, with a null data pointer).
  const bool read_ab = k > 0;
  // Each factor below the bound first, so that the product cannot overflow.
  const bool small =
      m < kSmallProduct && n < kSmallProduct && k < kSmallProduct && m * n * k < kSmallProduct;
  auto run = [&](int64_t begin, int64_t end) {
    // The multi-index of batch `begin`, then stepped like an odometer: no division per batch.
    std::vector<int64_t> idx(nd, 0);
    int64_t oa = 0, ob = 0, oc = 0;
    for (int64_t rem = begin, d = int64_t(nd) - 1; d >= 0; --d) {
      idx[d] = rem % batch[d];
      rem /= batch[d];
      oa += idx[d] * a.batch[d];
      ob += idx[d] * b.batch[d];
      oc += idx[d] * c.batch[d];
    }
    for (int64_t i = begin; i < end; ++i) {
      const T* ai = read_ab ? pa + oa : pa;
      const T* bi = read_ab ? pb + ob : pb;
      if (small) {
        small_gemm<T>(m, n, k, alpha, ai, a.rs, a.cs, bi, b.rs, b.cs, beta, pc + oc, c.rs, c.cs);
      } else {
        detail::gemm<T>(m, n, k, alpha, ai, a.rs, a.cs, bi, b.rs, b.cs, beta, pc + oc, c.rs, c.cs);
      }
      for (int64_t d = int64_t(nd) - 1; d >= 0; --d) {
        oa += a.batch[d];
        ob += b.batch[d];
        oc += c.batch[d];
        if (++idx[d] < batch[d]) break;
        oa -= a.batch[d] * batch[d];
        ob -= b.batch[d] * batch[d];
        oc -= c.batch[d] * batch[d];
        idx[d] = 0;
      }
    }
  };
  // PyTorch's grain for bmm: about GRAIN_SIZE multiply-adds per task.
  const double work = double(m) * double(n) * double(std::max<int64_t>(k, 1));
  const double grain = std::max(1.0, double(internal::GRAIN_SIZE) / work);
  parallel_for(0, nb, int64_t(grain), run);
}

// C[b] = alpha * A[b] @ B[b] + beta * C[b] for every b of `batch` (A is m x k, B k x n, C m x n;
// beta == 0 never reads C). C must not overlap itself or A or B. `kernel` names the PyTorch
// kernel whose message a Bool product gets; nullptr lets Bool through (a logical-and product).
template <class = void>
void gemm_batched(DType dt, IntArrayRef batch, int64_t m, int64_t n, int64_t k, const Scalar& alpha,
                  const Scalar& beta, const Operand& a, const Operand& b, const Operand& c,
                  const char* kernel) {
  int64_t nb = 1;
  for (int64_t s : batch) nb *= s;
  if (nb == 0 || m == 0 || n == 0) return;
  dispatch_dtype(dt, [&]<class T>() {
    if constexpr (std::is_same_v<T, bool>) {
      if (kernel != nullptr && k > 0) dtype_not_implemented(kernel, dt);
    }
    gemm_batched_typed<T>(batch, nb, m, n, k, alpha.to<T>(), beta.to<T>(), a, b, c);
  });
}

// A factor of a product: a tensor and which of its last dims are the row and column dims.
struct Factor {
  const Tensor& t;
  bool rows;
  bool cols;
};

// result = beta * self + alpha * (a @ b) over `batch`, where result already has its final shape
// and dtype and self (when defined) already has result's shape. beta == 0 ignores self, NaNs
// included. Writes result directly when that is safe, else through a temporary.
// What a device's ProductOp kernel (ops/device_dispatch.hpp) is given: product_into's arguments.
struct ProductArgs {
  const Tensor& result;
  const Tensor& self;
  Factor a, b;
  bool c_rows, c_cols;
  IntArrayRef batch;
  int64_t m, n, k;
  const Scalar& beta;
  const Scalar& alpha;
};

// An operand of a product over `nbatch` batch dims, as a device kernel addresses it: its batch
// dims right-aligned against the product's (size-1 and missing ones broadcast: stride 0), then
// its row and column strides (a missing dim: a single row or column, stride 0). Element strides.
struct ProductStrides {
  std::vector<int64_t> batch;
  int64_t rows = 0, cols = 0;
};
inline ProductStrides product_strides(const Tensor& t, std::size_t nbatch, bool has_rows,
                                      bool has_cols) {
  ProductStrides s;
  s.batch.assign(nbatch, 0);
  const int64_t nb = t.dim() - int64_t(has_rows) - int64_t(has_cols);
  if (has_rows) s.rows = t.stride(nb);
  if (has_cols) s.cols = t.stride(t.dim() - 1);
  for (int64_t d = 0; d < nb; ++d) {
    if (t.size(d) != 1) s.batch[nbatch - std::size_t(nb) + std::size_t(d)] = t.stride(d);
  }
  return s;
}

template <class = void>
void product_into(const Tensor& result, const Tensor& self, const Factor& a, const Factor& b,
                  bool c_rows, bool c_cols, IntArrayRef batch, int64_t m, int64_t n, int64_t k,
                  const Scalar& beta, const Scalar& alpha, const char* kernel) {
  for (const Tensor* t : {&self, &a.t, &b.t}) {
    TP_CHECK(!t->defined() || t->device() == result.device(),
             "Expected all tensors to be on the same device, but found at least two devices, ",
             result.device(), " and ", t->device(), "!");
  }
  if (!result.is_cpu()) {
    const ProductArgs args{result, self, a, b, c_rows, c_cols, batch, m, n, k, beta, alpha};
    return call_device_kernel_as<ProductOp>(result.device().type(), "aten::mm", args);
  }
  if (result.numel() == 0) return;
  const bool direct = strides_non_overlapping(result) && !may_share_memory(result, a.t) &&
                      !may_share_memory(result, b.t);
  const Tensor c = direct ? result : empty(result.sizes(), result.options());
  const bool use_self = self.defined() && beta.toDouble() != 0.0;
  if (use_self && !self.is_same(c)) detail::copy_impl(c, self);
  const std::size_t nbatch = batch.size();
  gemm_batched(result.dtype(), batch, m, n, k, alpha, use_self ? beta : Scalar(0),
               make_operand(a.t, nbatch, a.rows, a.cols), make_operand(b.t, nbatch, b.rows, b.cols),
               make_operand(c, nbatch, c_rows, c_cols), kernel);
  if (!c.is_same(result)) detail::copy_impl(result, c);
}

// ---- checks shared by the functional and out= forms -----------------------------------------

template <class = void>
void check_mm(const Tensor& self, const Tensor& mat2) {
  TP_CHECK(self.dim() == 2, "self must be a matrix");
  TP_CHECK(mat2.dim() == 2, "mat2 must be a matrix");
  TP_CHECK(self.size(1) == mat2.size(0), "mat1 and mat2 shapes cannot be multiplied (",
           self.size(0), "x", self.size(1), " and ", mat2.size(0), "x", mat2.size(1), ")");
}

// What PyTorch 1.13's CPU product kernels say when an operand's dtype is not the one they
// dispatched on (the typed data_ptr's check). They dispatch only once there is something to
// compute, so an empty result or an empty contraction (k == 0) never gets here: `mm` of a double
// matrix and an empty long one is an empty double matrix.
template <class = void>
void check_scalar_type(DType expected, const Tensor& t) {
  TP_CHECK(t.dtype() == expected, "expected scalar type ", scalar_type_name(expected),
           " but found ", scalar_type_name(t.dtype()));
}

// addmm's meta function, in its order: dtypes first, then shapes.
template <class = void>
void check_addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2) {
  // PyTorch 1.13's words, which name no dtypes.
  TP_CHECK(self.dtype() == mat2.dtype(), "self and mat2 must have the same dtype");
  TP_CHECK(mat1.dtype() == mat2.dtype(), "mat1 and mat2 must have the same dtype");
  TP_CHECK(mat1.dim() == 2, "mat1 must be a matrix, got ", mat1.dim(), "-D tensor");
  TP_CHECK(mat2.dim() == 2, "mat2 must be a matrix, got ", mat2.dim(), "-D tensor");
  TP_CHECK(mat1.size(1) == mat2.size(0), "mat1 and mat2 shapes cannot be multiplied (",
           mat1.size(0), "x", mat1.size(1), " and ", mat2.size(0), "x", mat2.size(1), ")");
}

// bmm / baddbmm's shape checks (common_checks_baddbmm_bmm).
template <class = void>
void check_bmm_shapes(const Tensor& batch1, const Tensor& batch2) {
  TP_CHECK(batch1.dim() == 3, "batch1 must be a 3D tensor");
  TP_CHECK(batch2.dim() == 3, "batch2 must be a 3D tensor");
  const int64_t bs = batch1.size(0), contraction = batch1.size(2);
  TP_CHECK(batch2.size(0) == bs && batch2.size(1) == contraction,
           "Expected size for first two dimensions of batch2 tensor to be: [", bs, ", ",
           contraction, "] but got: [", batch2.size(0), ", ", batch2.size(1), "].");
}

// addmv's meta function, given the added vector's rank and length (for mv: those of the result,
// a vector of mat.size(0) elements). It checks no dtypes: the kernel does (mv_into).
template <class = void>
void check_addmv(int64_t self_dim, int64_t self_numel, const Tensor& mat, const Tensor& vec) {
  TP_CHECK(mat.dim() == 2 && vec.dim() == 1 && self_dim <= 1,
           "vector + matrix @ vector expected, got ", self_dim, ", ", mat.dim(), ", ", vec.dim());
  TP_CHECK(mat.size(1) == vec.size(0) && (mat.size(0) == self_numel || self_numel == 1),
           "size mismatch, got input (", self_numel, "), mat (", mat.size(0), "x", mat.size(1),
           "), vec (", vec.size(0), ")");
}
template <class = void>
void check_addmv(const Tensor& self, const Tensor& mat, const Tensor& vec) {
  check_addmv(self.dim(), self.numel(), mat, vec);
}

template <class = void>
void check_dot(const Tensor& self, const Tensor& other) {
  TP_CHECK(self.dim() == 1 && other.dim() == 1, "1D tensors expected, but got ", self.dim(),
           "D and ", other.dim(), "D tensors");
  TP_CHECK(self.dtype() == other.dtype(),
           "dot : expected both vectors to have same dtype, but found ",
           scalar_type_name(self.dtype()), " and ", scalar_type_name(other.dtype()));
  TP_CHECK(self.numel() == other.numel(), "inconsistent tensor size, expected tensor [",
           self.numel(), "] and src [", other.numel(),
           "] to have the same number of elements, but got ", self.numel(), " and ", other.numel(),
           " elements respectively");
}

template <class = void>
void check_outer(const Tensor& self, const Tensor& vec2) {
  TP_CHECK(self.dim() == 1, "outer: Expected 1-D argument self, but got ", self.dim(), "-D");
  TP_CHECK(vec2.dim() == 1, "outer: Expected 1-D argument vec2, but got ", vec2.dim(), "-D");
}

// ---- bodies ---------------------------------------------------------------------------------

template <class = void>
void mm_into(const Tensor& result, const Tensor& self, const Tensor& mat2) {
  if (result.numel() > 0 && self.size(1) > 0) {
    check_scalar_type(result.dtype(), self);
    check_scalar_type(result.dtype(), mat2);
  }
  product_into(result, Tensor(), {self, true, true}, {mat2, true, true}, true, true, {},
               self.size(0), mat2.size(1), self.size(1), 0, 1, "addmm_impl_cpu_");
}

// result = beta * self + alpha * mat @ vec, self already expanded (or undefined) and of any
// dtype (converted into result first, as PyTorch's addmv copies it). The kernel dispatches on
// mat's dtype, then reads vec and writes result in it.
template <class = void>
void mv_into(const Tensor& result, const Tensor& self, const Tensor& mat, const Tensor& vec,
             const Scalar& beta, const Scalar& alpha) {
  if (mat.numel() > 0) {
    check_scalar_type(mat.dtype(), vec);
    check_scalar_type(mat.dtype(), result);
  }
  product_into(result, self, {mat, true, true}, {vec, true, false}, true, false, {}, mat.size(0), 1,
               mat.size(1), beta, alpha, "addmv_impl_cpu");
}

// self of any dtype (converted into result first); the kernel dispatches on batch1's dtype,
// then reads batch2 and writes result in it.
template <class = void>
void bmm_into(const Tensor& result, const Tensor& self, const Tensor& batch1, const Tensor& batch2,
              const Scalar& beta, const Scalar& alpha, const char* kernel) {
  if (result.numel() > 0 && batch1.size(2) > 0) {
    check_scalar_type(batch1.dtype(), batch2);
    check_scalar_type(batch1.dtype(), result);
  }
  const int64_t bs = batch1.size(0);
  product_into(result, self, {batch1, true, true}, {batch2, true, true}, true, true,
               IntArrayRef(&bs, 1), batch1.size(1), batch2.size(2), batch1.size(2), beta, alpha,
               kernel);
}

template <class = void>
void addbmm_into(const Tensor& result, const Tensor& self, const Tensor& batch1,
                 const Tensor& batch2, const Scalar& beta, const Scalar& alpha) {
  if (result.numel() == 0) return;
  const bool direct = strides_non_overlapping(result) && !may_share_memory(result, batch1) &&
                      !may_share_memory(result, batch2);
  const Tensor c = direct ? result : empty(result.sizes(), result.options());
  const bool use_self = beta.toDouble() != 0.0;
  if (use_self && !self.is_same(c)) detail::copy_impl(c, self);
  const int64_t nb = batch1.size(0);
  const int64_t m = batch1.size(1), n = batch2.size(2), k = batch1.size(2);
  const Operand oc = make_operand(c, 0, true, true);
  Scalar be = use_self ? beta : Scalar(0);
  if (nb == 0) {  // no products: C = beta * self (zeros for beta == 0)
    gemm_batched(c.dtype(), {}, m, n, 0, alpha, be, oc, oc, oc, "addmm_impl_cpu_");
  }
  // Sequential on purpose: every batch accumulates into the same C, in PyTorch's order.
  for (int64_t i = 0; i < nb; ++i) {
    const Tensor b1 = batch1.select(0, i), b2 = batch2.select(0, i);
    gemm_batched(c.dtype(), {}, m, n, k, alpha, be, make_operand(b1, 0, true, true),
                 make_operand(b2, 0, true, true), oc, "addmm_impl_cpu_");
    be = Scalar(1);
  }
  if (!c.is_same(result)) detail::copy_impl(result, c);
}

template <class = void>
void check_addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2) {
  TP_CHECK(batch1.dim() == 3, "batch1 must be a 3D tensor");
  TP_CHECK(batch2.dim() == 3, "batch2 must be a 3D tensor");
  TP_CHECK(batch1.size(0) == batch2.size(0),
           "batch1 and batch2 must have same number of batches, got ", batch1.size(0), " and ",
           batch2.size(0));
  TP_CHECK(batch1.size(2) == batch2.size(1), "Incompatible matrix sizes for bmm (", batch1.size(1),
           "x", batch1.size(2), " and ", batch2.size(1), "x", batch2.size(2), ")");
  // Each batch is an addmm_ into the result, whose dtype is self's.
  if (batch1.size(0) > 0) {
    TP_CHECK(self.dtype() == batch2.dtype(), "self and mat2 must have the same dtype");
    TP_CHECK(batch1.dtype() == batch2.dtype(), "mat1 and mat2 must have the same dtype");
  }
}

// self's dtype is free: PyTorch 1.13 copies it into the result (batch2's dtype) first.
template <class = void>
void check_baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2) {
  (void)self;
  TP_CHECK(batch1.dim() == 3, "batch1 must be a 3D tensor");
  TP_CHECK(batch2.dim() == 3, "batch2 must be a 3D tensor");
  check_bmm_shapes(batch1, batch2);
}

// The broadcast of two batch shapes, right-aligned (PyTorch's infer_size and its message).
template <class = void>
std::vector<int64_t> broadcast_batch(IntArrayRef a, IntArrayRef b) {
  const std::size_t n = std::max(a.size(), b.size());
  std::vector<int64_t> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::ptrdiff_t ia = std::ptrdiff_t(i) - std::ptrdiff_t(n - a.size());
    const std::ptrdiff_t ib = std::ptrdiff_t(i) - std::ptrdiff_t(n - b.size());
    const int64_t sa = ia >= 0 ? a[std::size_t(ia)] : 1, sb = ib >= 0 ? b[std::size_t(ib)] : 1;
    TP_CHECK(sa == sb || sa == 1 || sb == 1, "The size of tensor a (", sa,
             ") must match the size of tensor b (", sb, ") at non-singleton dimension ", i);
    out[i] = sa == 1 ? sb : sa;
  }
  return out;
}

// ---- recording ------------------------------------------------------------------------------

// a @ b (compute()) with NodeT recorded, both factors saved for the formula (`name`: the node's
// name where NodeT takes one, matmul's).
template <class NodeT, class Compute>
Tensor record_product(const Tensor& a, const Tensor& b, const Compute& compute,
                      const char* name = nullptr) {
  return autograd::detail::differentiable<NodeT>(
      compute,
      [&](NodeT& fn, const Tensor&) {
        fn.self_ = autograd::SavedVariable(a, false);
        fn.other_ = autograd::SavedVariable(b, false);
        if constexpr (requires { fn.name_; }) fn.name_ = name;
      },
      a, b);
}

template <class NodeT>
void save_addproduct(NodeT& fn, const Tensor& a, const Tensor& b, const Scalar& beta,
                     const Scalar& alpha) {
  fn.self_ = autograd::SavedVariable(a, false);
  fn.other_ = autograd::SavedVariable(b, false);
  fn.beta_ = beta;
  fn.alpha_ = alpha;
}

// beta * self + alpha * a @ b (compute()) with NodeT recorded: edges to self, a and b.
template <class NodeT, class Compute>
Tensor record_addproduct(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta,
                         const Scalar& alpha, const Compute& compute) {
  return autograd::detail::differentiable<NodeT>(
      compute, [&](NodeT& fn, const Tensor&) { save_addproduct(fn, a, b, beta, alpha); }, self, a,
      b);
}

template <class = void>
const Tensor& addmm_out_impl(const Tensor& out, const Tensor& self, const Tensor& mat1,
                             const Tensor& mat2, const Scalar& beta, const Scalar& alpha);
template <class = void>
const Tensor& baddbmm_out_impl(const Tensor& out, const Tensor& self, const Tensor& batch1,
                               const Tensor& batch2, const Scalar& beta, const Scalar& alpha);

}  // namespace detail::linalg_impl

// ==== mm, bmm, mv, dot, outer ===================================================================

template <class = void>
Tensor mm(const Tensor& self, const Tensor& mat2) {
  return detail::linalg_impl::record_product<autograd::MmBackward0>(self, mat2, [&] {
    detail::linalg_impl::check_mm(self, mat2);
    Tensor result = empty({self.size(0), mat2.size(1)}, self.options());
    detail::linalg_impl::mm_into(result, self, mat2);
    return result;
  });
}

template <class = void>
const Tensor& mm_out(const Tensor& out, const Tensor& self, const Tensor& mat2) {
  using namespace detail::linalg_impl;
  autograd::detail::check_out_no_grad("mm", self, mat2);
  check_mm(self, mat2);
  check_out_dtype(out, self.dtype());
  resize_out(out, {self.size(0), mat2.size(1)});
  check_out_memory(out, {&self, &mat2});
  mm_into(out, self, mat2);
  finish_out(out);
  return out;
}

template <class = void>
Tensor bmm(const Tensor& self, const Tensor& mat2) {
  using namespace detail::linalg_impl;
  return record_product<autograd::BmmBackward0>(self, mat2, [&] {
    check_bmm_shapes(self, mat2);
    Tensor result = empty({self.size(0), self.size(1), mat2.size(2)}, mat2.options());
    bmm_into(result, Tensor(), self, mat2, 0, 1, "bmm");
    return result;
  });
}

template <class = void>
const Tensor& bmm_out(const Tensor& out, const Tensor& self, const Tensor& mat2) {
  using namespace detail::linalg_impl;
  autograd::detail::check_out_no_grad("bmm", self, mat2);
  check_bmm_shapes(self, mat2);
  check_out_dtype(out, mat2.dtype());
  resize_out(out, {self.size(0), self.size(1), mat2.size(2)});
  check_out_memory(out, {&self, &mat2});
  bmm_into(out, Tensor(), self, mat2, 0, 1, "bmm");
  finish_out(out);
  return out;
}

template <class = void>
Tensor mv(const Tensor& self, const Tensor& vec) {
  using namespace detail::linalg_impl;
  // As PyTorch: the result is allocated first (self.size(0) fails on a 0-d self), then checked
  // as addmv's `self`.
  return record_product<autograd::MvBackward0>(self, vec, [&] {
    Tensor result = empty({self.size(0)}, vec.options());
    check_addmv(result, self, vec);
    mv_into(result, Tensor(), self, vec, 0, 1);
    return result;
  });
}

template <class = void>
const Tensor& mv_out(const Tensor& out, const Tensor& self, const Tensor& vec) {
  using namespace detail::linalg_impl;
  autograd::detail::check_out_no_grad("mv", self, vec);
  const int64_t rows = self.size(0);
  check_addmv(1, rows, self, vec);
  check_out_dtype(out, vec.dtype());
  resize_out(out, {rows});
  check_out_memory(out, {&self, &vec});
  mv_into(out, Tensor(), self, vec, 0, 1);
  finish_out(out);
  return out;
}

template <class = void>
Tensor dot(const Tensor& self, const Tensor& other) {
  using namespace detail::linalg_impl;
  return record_product<autograd::DotBackward0>(self, other, [&] {
    check_dot(self, other);
    // PyTorch's dot dispatches before it looks at the length: an empty Bool dot fails too.
    if (self.dtype() == kBool) detail::dtype_not_implemented("dot", kBool);
    Tensor result = empty({}, self.options());
    product_into(result, Tensor(), {self, false, true}, {other, true, false}, false, false, {}, 1,
                 1, self.numel(), 0, 1, "dot");
    return result;
  });
}

template <class = void>
const Tensor& dot_out(const Tensor& out, const Tensor& self, const Tensor& other) {
  autograd::detail::check_out_no_grad("dot", self, other);
  detail::linalg_impl::resize_out(out, {});
  TP_CHECK(out.dtype() == self.dtype(), "result dtype ", scalar_type_name(out.dtype()),
           " does not match input dtype ", scalar_type_name(self.dtype()));
  detail::copy_impl(out, dot(self, other));
  detail::linalg_impl::finish_out(out);
  return out;
}

// outer is mul in PyTorch (self.reshape({n, 1}) * vec2), so it promotes mixed dtypes and takes
// Bool; here it is a k = 1 product, which rounds exactly as the elementwise product does.
template <class = void>
Tensor outer(const Tensor& self, const Tensor& vec2) {
  using namespace detail::linalg_impl;
  return record_product<autograd::OuterBackward>(self, vec2, [&] {
    check_outer(self, vec2);
    const DType dt = promote_types(self.dtype(), vec2.dtype());
    const Tensor a = self.to(dt), b = vec2.to(dt);
    Tensor result = empty({a.size(0), b.size(0)}, a.options());
    product_into(result, Tensor(), {a, true, false}, {b, false, true}, true, true, {}, a.size(0),
                 b.size(0), 1, 0, 1, nullptr);
    return result;
  });
}

// mul_out's rules: the promoted dtype must cast safely to out's.
template <class = void>
const Tensor& outer_out(const Tensor& out, const Tensor& self, const Tensor& vec2) {
  using namespace detail::linalg_impl;
  autograd::detail::check_out_no_grad("mul", self, vec2);
  check_outer(self, vec2);
  const DType dt = promote_types(self.dtype(), vec2.dtype());
  TP_CHECK(can_cast(dt, out.dtype()), "result type ", scalar_type_name(dt),
           " can't be cast to the desired output type ", scalar_type_name(out.dtype()));
  resize_out(out, {self.size(0), vec2.size(0)});
  check_out_memory(out, {&self, &vec2});
  const Tensor a = self.to(dt), b = vec2.to(dt);
  if (out.dtype() == dt) {
    product_into(out, Tensor(), {a, true, false}, {b, false, true}, true, true, {}, a.size(0),
                 b.size(0), 1, 0, 1, nullptr);
  } else {
    detail::copy_impl(out, outer(a, b));
  }
  finish_out(out);
  return out;
}

// torch.ger: the deprecated alias of outer (PyTorch also warns).
template <class = void>
Tensor ger(const Tensor& self, const Tensor& vec2) {
  return outer(self, vec2);
}
template <class = void>
const Tensor& ger_out(const Tensor& out, const Tensor& self, const Tensor& vec2) {
  return outer_out(out, self, vec2);
}

// ==== addmm, addmv, addbmm, baddbmm ============================================================

template <class = void>
Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
             const Scalar& alpha = 1) {
  using namespace detail::linalg_impl;
  return record_addproduct<autograd::AddmmBackward0>(self, mat1, mat2, beta, alpha, [&] {
    check_addmm(self, mat1, mat2);
    Tensor result = empty({mat1.size(0), mat2.size(1)}, mat1.options());
    const Tensor self_e = self.expand(result.sizes());
    product_into(result, self_e, {mat1, true, true}, {mat2, true, true}, true, true, {},
                 mat1.size(0), mat2.size(1), mat1.size(1), beta, alpha, "addmm_impl_cpu_");
    return result;
  });
}

template <class = void>
const Tensor& addmm_out(const Tensor& out, const Tensor& self, const Tensor& mat1,
                        const Tensor& mat2, const Scalar& beta = 1, const Scalar& alpha = 1) {
  autograd::detail::check_out_no_grad("addmm", self, mat1, mat2);
  return detail::linalg_impl::addmm_out_impl(out, self, mat1, mat2, beta, alpha);
}

namespace detail::linalg_impl {
template <class>
const Tensor& addmm_out_impl(const Tensor& out, const Tensor& self, const Tensor& mat1,
                             const Tensor& mat2, const Scalar& beta, const Scalar& alpha) {
  check_addmm(self, mat1, mat2);
  check_out_dtype(out, mat1.dtype());
  const Tensor self_e = self.expand({mat1.size(0), mat2.size(1)});
  resize_out(out, {mat1.size(0), mat2.size(1)});
  check_out_memory(out, {&mat1, &mat2});
  product_into(out, self_e, {mat1, true, true}, {mat2, true, true}, true, true, {}, mat1.size(0),
               mat2.size(1), mat1.size(1), beta, alpha, "addmm_impl_cpu_");
  finish_out(out);
  return out;
}
}  // namespace detail::linalg_impl

template <class = void>
Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta = 1,
             const Scalar& alpha = 1) {
  using namespace detail::linalg_impl;
  return record_addproduct<autograd::AddmvBackward0>(self, mat, vec, beta, alpha, [&] {
    check_addmv(self, mat, vec);
    Tensor result = empty({mat.size(0)}, vec.options());
    mv_into(result, self.expand({mat.size(0)}), mat, vec, beta, alpha);
    return result;
  });
}

template <class = void>
const Tensor& addmv_out(const Tensor& out, const Tensor& self, const Tensor& mat, const Tensor& vec,
                        const Scalar& beta = 1, const Scalar& alpha = 1) {
  using namespace detail::linalg_impl;
  autograd::detail::check_out_no_grad("addmv", self, mat, vec);
  check_addmv(self, mat, vec);
  check_out_dtype(out, vec.dtype());
  const Tensor self_e = self.expand({mat.size(0)});
  resize_out(out, {mat.size(0)});
  check_out_memory(out, {&mat, &vec});
  mv_into(out, self_e, mat, vec, beta, alpha);
  finish_out(out);
  return out;
}

// beta * self + alpha * sum_b batch1[b] @ batch2[b]; the result has self's dtype.
template <class = void>
Tensor addbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2,
              const Scalar& beta = 1, const Scalar& alpha = 1) {
  using namespace detail::linalg_impl;
  return record_addproduct<autograd::AddbmmBackward0>(self, batch1, batch2, beta, alpha, [&] {
    check_addbmm(self, batch1, batch2);
    const Tensor self_e = self.expand({batch1.size(1), batch2.size(2)});
    Tensor result = empty(self_e.sizes(), self.options());
    addbmm_into(result, self_e, batch1, batch2, beta, alpha);
    return result;
  });
}

template <class = void>
const Tensor& addbmm_out(const Tensor& out, const Tensor& self, const Tensor& batch1,
                         const Tensor& batch2, const Scalar& beta = 1, const Scalar& alpha = 1) {
  using namespace detail::linalg_impl;
  autograd::detail::check_out_no_grad("addbmm", self, batch1, batch2);
  check_addbmm(self, batch1, batch2);
  const Tensor self_e = self.expand({batch1.size(1), batch2.size(2)});
  check_out_dtype(out, self.dtype());
  resize_out(out, self_e.sizes());
  check_out_memory(out, {&batch1, &batch2});
  addbmm_into(out, self_e, batch1, batch2, beta, alpha);
  finish_out(out);
  return out;
}

// beta * self + alpha * batch1 @ batch2, batch by batch; the result has batch2's dtype. The 3-D
// checks come first here (PyTorch expands self with batch1's sizes before it checks, so a 2-D
// batch1 can fail on that expand instead).
template <class = void>
Tensor baddbmm(const Tensor& self, const Tensor& batch1, const Tensor& batch2,
               const Scalar& beta = 1, const Scalar& alpha = 1) {
  using namespace detail::linalg_impl;
  return record_addproduct<autograd::BaddbmmBackward0>(self, batch1, batch2, beta, alpha, [&] {
    check_baddbmm(self, batch1, batch2);
    Tensor result = empty({batch1.size(0), batch1.size(1), batch2.size(2)}, batch2.options());
    const Tensor self_e = self.expand(result.sizes());
    bmm_into(result, self_e, batch1, batch2, beta, alpha, "baddbmm");
    return result;
  });
}

template <class = void>
const Tensor& baddbmm_out(const Tensor& out, const Tensor& self, const Tensor& batch1,
                          const Tensor& batch2, const Scalar& beta = 1, const Scalar& alpha = 1) {
  autograd::detail::check_out_no_grad("baddbmm", self, batch1, batch2);
  return detail::linalg_impl::baddbmm_out_impl(out, self, batch1, batch2, beta, alpha);
}

namespace detail::linalg_impl {
template <class>
const Tensor& baddbmm_out_impl(const Tensor& out, const Tensor& self, const Tensor& batch1,
                               const Tensor& batch2, const Scalar& beta, const Scalar& alpha) {
  check_baddbmm(self, batch1, batch2);
  const std::vector<int64_t> shape = {batch1.size(0), batch1.size(1), batch2.size(2)};
  const Tensor self_e = self.expand(shape);
  check_out_dtype(out, batch2.dtype());
  resize_out(out, shape);
  check_out_memory(out, {&batch1, &batch2});
  bmm_into(out, self_e, batch1, batch2, beta, alpha, "baddbmm");
  finish_out(out);
  return out;
}
}  // namespace detail::linalg_impl

// ==== matmul ====================================================================================

namespace detail::linalg_impl {

// PyTorch 1.13's should_fold: whether matmul folds the batch of a >= 3-D operand into the rows
// of one mm / mv (reshape copies a batch that is not contiguous) rather than going through bmm:
// whenever the other operand is 1-D or 2-D, except a 3-D @ 2-D whose 3-D operand has its last
// two dims transposed behind a slowest batch dim (bmm then runs each GEMM transposed).
// Replicated so that results, strides and shape errors read as PyTorch's on the same path.
template <class = void>
bool matmul_folds(const Tensor& big, int64_t other_dim) {
  const int64_t d = big.dim();
  if (!(d >= 3 && (other_dim == 1 || other_dim == 2))) return false;
  return !(d == 3 && other_dim == 2 && big.stride(-1) != 1 &&
           big.stride(0) == big.size(1) * big.size(2));
}
template <class = void>
bool matmul_should_fold(const Tensor& t1, const Tensor& t2, bool has_out) {
  // A 2-D @ >= 3-D into out= goes through bmm here: the folded form would write out transposed.
  if (has_out && t1.dim() == 2 && t2.dim() >= 3) return false;
  return matmul_folds(t1, t2.dim()) || matmul_folds(t2, t1.dim());
}

// The folded case: big (>= 3-D) @ small (1-D or 2-D) as one mm / mv on big's rows.
template <class = void>
Tensor matmul_folded(const Tensor& out, const Tensor& t1, const Tensor& t2) {
  const bool transpose = t2.dim() > t1.dim();
  const Tensor big = transpose ? t2.mT() : t1;
  const Tensor small = !transpose ? t2 : (t1.dim() == 2 ? t1.t() : t1);
  const IntArrayRef sizes = big.sizes();
  std::vector<int64_t> shape(sizes.begin(), sizes.end() - 1);
  int64_t folded = 1;
  for (int64_t s : shape) folded *= s;
  const bool small_is_matrix = small.dim() == 2;
  if (small_is_matrix) shape.push_back(small.size(1));
  const Tensor big_folded = big.reshape({folded, sizes.back()});
  if (!out.defined()) {
    if (small_is_matrix) {
      const Tensor r = tensorplay::mm(big_folded, small).view(shape);
      return transpose ? r.mT().contiguous() : r;
    }
    return tensorplay::mv(big_folded, small).view(shape);
  }
  resize_out(out, shape);
  const Tensor reshaped =
      small_is_matrix ? out.reshape({folded, small.size(1)}) : out.reshape({folded});
  if (small_is_matrix) {
    tensorplay::mm_out(reshaped, big_folded, small);
  } else {
    tensorplay::mv_out(reshaped, big_folded, small);
  }
  // A non-contiguous out is reshaped by copy: write the result back. (PyTorch copies the folded
  // shape into out here, which fails to broadcast; the view makes the shapes agree.)
  if (!reshaped.is_alias_of(out)) {
    detail::copy_impl(out, reshaped.view(out.sizes()));
    finish_out(out);
  }
  return out;
}

// The batched case, broadcasting batch dims through zero batch strides (no expand copies). A
// 1-D left operand is one row, a 1-D right operand one column; their dims are dropped from
// the result, as PyTorch's unsqueeze / squeeze do.
template <class = void>
Tensor matmul_batched(const Tensor& out, const Tensor& t1, const Tensor& t2) {
  const int64_t d1 = t1.dim(), d2 = t2.dim();
  const int64_t n = d1 > 1 ? t1.size(-2) : 1;
  const int64_t m1 = t1.size(-1);
  const int64_t m2 = d2 > 1 ? t2.size(-2) : t2.size(0);
  const int64_t p = d2 > 1 ? t2.size(-1) : 1;
  const IntArrayRef batch1 = t1.sizes().slice(0, std::size_t(std::max<int64_t>(d1 - 2, 0)));
  const IntArrayRef batch2 = t2.sizes().slice(0, std::size_t(std::max<int64_t>(d2 - 2, 0)));
  std::vector<int64_t> shape = broadcast_batch(batch1, batch2);
  int64_t bs = 1;
  for (int64_t s : shape) bs *= s;
  TP_CHECK(m1 == m2, "Expected size for first two dimensions of batch2 tensor to be: [", bs, ", ",
           m1, "] but got: [", bs, ", ", m2, "].");
  const std::vector<int64_t> batch = shape;
  if (d1 > 1) shape.push_back(n);
  if (d2 > 1) shape.push_back(p);
  Tensor result;
  if (out.defined()) {
    autograd::detail::check_out_no_grad("bmm", t1, t2);
    check_out_dtype(out, t2.dtype());
    resize_out(out, shape);
    result = out;
  } else {
    result = empty(shape, t2.options());
  }
  if (result.numel() > 0 && m1 > 0) {  // bmm's kernel, dispatched on t1's dtype
    check_scalar_type(t1.dtype(), t2);
    check_scalar_type(t1.dtype(), result);
  }
  if (out.defined()) check_out_memory(out, {&t1, &t2});
  product_into(result, Tensor(), {t1, d1 > 1, true}, {t2, true, d2 > 1}, d1 > 1, d2 > 1, batch, n,
               p, m1, 0, 1, "bmm");
  if (out.defined()) finish_out(out);
  return result;
}

// _matmul_impl: `out` undefined for the functional form.
template <class = void>
Tensor matmul_impl(const Tensor& out, const Tensor& t1, const Tensor& t2) {
  const int64_t d1 = t1.dim(), d2 = t2.dim();
  TP_CHECK(d1 != 0 && d2 != 0, "both arguments to matmul need to be at least 1D, but they are ", d1,
           "D and ", d2, "D");
  const bool has_out = out.defined();
  if (d1 == 1 && d2 == 1)
    return has_out ? tensorplay::dot_out(out, t1, t2) : tensorplay::dot(t1, t2);
  if (d1 == 2 && d2 == 1) return has_out ? tensorplay::mv_out(out, t1, t2) : tensorplay::mv(t1, t2);
  if (d1 == 1 && d2 == 2) {
    if (!has_out) return tensorplay::mm(t1.unsqueeze(0), t2).squeeze_(0);
    tensorplay::mm_out(out, t1.unsqueeze(0), t2);  // resizes out to [1, p]
    return out.squeeze_(0);
  }
  if (d1 == 2 && d2 == 2) return has_out ? tensorplay::mm_out(out, t1, t2) : tensorplay::mm(t1, t2);
  if (matmul_should_fold(t1, t2, has_out)) return matmul_folded(out, t1, t2);
  return matmul_batched(out, t1, t2);
}

}  // namespace detail::linalg_impl

// Matrix product with NumPy's rules: 1-D @ 1-D is dot (0-D), 2-D @ 1-D mv, 1-D @ 2-D a row times
// a matrix, 2-D @ 2-D mm, and anything with a 3-D or larger operand a batched product whose batch
// dims broadcast ([2, 1, 3, 4] @ [5, 4, 6] -> [2, 5, 3, 6]; a 1-D operand is a row on the left,
// a column on the right, and its dim is dropped: [10, 3, 4] @ [4] -> [10, 3]).
template <class = void>
Tensor matmul(const Tensor& self, const Tensor& other) {
  const int64_t d1 = self.dim(), d2 = other.dim();
  const bool record = autograd::detail::any_requires_grad(self, other) && d1 > 0 && d2 > 0;
  // The folded and batched paths reshape a product they made: the result is a new value, not a
  // view of that temporary (PyTorch's _unsafe_view).
  auto compute = [&] {
    Tensor r = detail::linalg_impl::matmul_impl(Tensor(), self, other);
    if (r.defined()) r.unsafeGetTensorImpl()->clear_view();
    return r;
  };
  if (!record) return compute();
  // As PyTorch's composite: dot, mv and mm record their own nodes.
  if (d1 == 1 && d2 == 1) return dot(self, other);
  if (d1 == 2 && d2 == 1) return mv(self, other);
  if (d1 == 2 && d2 == 2) return mm(self, other);
  return detail::linalg_impl::record_product<autograd::MatmulBackward>(
      self, other, compute, d1 == 1 && d2 == 2 ? "SqueezeBackward3" : "UnsafeViewBackward0");
}

template <class = void>
const Tensor& matmul_out(const Tensor& out, const Tensor& self, const Tensor& other) {
  detail::linalg_impl::matmul_impl(out, self, other);
  return out;
}

// ==== Tensor methods ============================================================================

template <class>
Tensor Tensor::mm(const Tensor& mat2) const {
  return tensorplay::mm(*this, mat2);
}
template <class>
Tensor Tensor::bmm(const Tensor& mat2) const {
  return tensorplay::bmm(*this, mat2);
}
template <class>
Tensor Tensor::mv(const Tensor& vec) const {
  return tensorplay::mv(*this, vec);
}
template <class>
Tensor Tensor::dot(const Tensor& other) const {
  return tensorplay::dot(*this, other);
}
template <class>
Tensor Tensor::outer(const Tensor& vec2) const {
  return tensorplay::outer(*this, vec2);
}
template <class>
Tensor Tensor::ger(const Tensor& vec2) const {
  return tensorplay::ger(*this, vec2);
}
template <class>
Tensor Tensor::matmul(const Tensor& other) const {
  return tensorplay::matmul(*this, other);
}
template <class>
Tensor Tensor::addmm(const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                     const Scalar& alpha) const {
  return tensorplay::addmm(*this, mat1, mat2, beta, alpha);
}
template <class>
const Tensor& Tensor::addmm_(const Tensor& mat1, const Tensor& mat2, const Scalar& beta,
                             const Scalar& alpha) const {
  detail::linalg_impl::check_addmm(*this, mat1, mat2);
  detail::linalg_impl::check_inplace_size(*this, {mat1.size(0), mat2.size(1)});
  return autograd::detail::differentiable_inplace<autograd::AddmmBackward0>(
      *this, [&] { detail::linalg_impl::addmm_out_impl(*this, *this, mat1, mat2, beta, alpha); },
      [&](autograd::AddmmBackward0& fn) {
        detail::linalg_impl::save_addproduct(fn, mat1, mat2, beta, alpha);
      },
      autograd::detail::kSaveNothing, mat1, mat2);
}
template <class>
Tensor Tensor::addmv(const Tensor& mat, const Tensor& vec, const Scalar& beta,
                     const Scalar& alpha) const {
  return tensorplay::addmv(*this, mat, vec, beta, alpha);
}
template <class>
Tensor Tensor::addbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                      const Scalar& alpha) const {
  return tensorplay::addbmm(*this, batch1, batch2, beta, alpha);
}
template <class>
Tensor Tensor::baddbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                       const Scalar& alpha) const {
  return tensorplay::baddbmm(*this, batch1, batch2, beta, alpha);
}
template <class>
const Tensor& Tensor::baddbmm_(const Tensor& batch1, const Tensor& batch2, const Scalar& beta,
                               const Scalar& alpha) const {
  detail::linalg_impl::check_baddbmm(*this, batch1, batch2);
  detail::linalg_impl::check_inplace_size(*this, {batch1.size(0), batch1.size(1), batch2.size(2)});
  return autograd::detail::differentiable_inplace<autograd::BaddbmmBackward0>(
      *this,
      [&] { detail::linalg_impl::baddbmm_out_impl(*this, *this, batch1, batch2, beta, alpha); },
      [&](autograd::BaddbmmBackward0& fn) {
        detail::linalg_impl::save_addproduct(fn, batch1, batch2, beta, alpha);
      },
      autograd::detail::kSaveNothing, batch1, batch2);
}

}  // namespace tensorplay
