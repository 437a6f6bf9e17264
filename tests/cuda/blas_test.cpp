// Matrix products on CUDA through cuBLAS (backends/cuda/blas.hpp).
//
// Untagged (the cuda.host run, any machine): how an operand's strides become a cuBLAS operand,
// and plans that, run through a reference column-major GEMM with cuBLAS's semantics over "fake"
// CUDA tensors (host memory labelled cuda:0), give the CPU's products for transposed, sliced,
// broadcast and batched operands.
// [no_device]: a product that passes the host's checks stops at the device.
// [device]: mm, mv, bmm, matmul, addmm and baddbmm on the GPU against the CPU in float32,
// float64, float16 and bfloat16; the dtypes without a kernel; gradients. Not yet run on hardware.
#include <catch2/catch.hpp>

#include "fake_cuda.hpp"

#include <tensorplay/backends/cuda/blas.hpp>
#include <tensorplay/tensorplay.hpp>

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

namespace cuda_blas_test {

namespace tp = tensorplay;
namespace tc = tensorplay::cuda;
using Factor = tp::detail::linalg_impl::Factor;
using Catch::Matchers::Contains;

TEST_CASE("cuda gemm: an operand's strides as cuBLAS reads them", "[cuda][blas]") {
  const auto is = [](std::optional<tc::GemmMatrix> g, bool trans, int64_t ld) {
    return g && g->trans == trans && g->ld == ld;
  };
  CHECK(is(tc::gemm_matrix(3, 4, 4, 1), false, 4));    // row-major: X^T column-major
  CHECK(is(tc::gemm_matrix(3, 4, 1, 3), true, 3));     // column-major (a transposed view)
  CHECK(is(tc::gemm_matrix(3, 4, 10, 1), false, 10));  // a slice of wider rows
  CHECK(is(tc::gemm_matrix(1, 4, 0, 1), false, 4));    // one row: its stride is irrelevant
  CHECK(is(tc::gemm_matrix(3, 1, 1, 0), false, 1));    // one column
  CHECK(is(tc::gemm_matrix(1, 1, 0, 0), false, 1));
  CHECK_FALSE(tc::gemm_matrix(3, 4, 8, 2));                 // both strides above 1: a copy
  CHECK_FALSE(tc::gemm_matrix(3, 4, 0, 1));                 // broadcast rows: a copy
  CHECK_FALSE(tc::gemm_matrix(3, 4, 2, 1));                 // overlapping rows
  CHECK_FALSE(tc::gemm_matrix(3, 4, int64_t{1} << 32, 1));  // beyond cuBLAS's int
}

// ---- plans through a reference GEMM -------------------------------------------------------------

using cuda_test_support::kFakeCuda;
struct Blob : cuda_test_support::Blob<float> {
  Blob(std::vector<int64_t> sizes, const std::function<float(std::size_t)>& value)
      : cuda_test_support::Blob<float>(std::move(sizes), tp::kFloat, value) {}
};

// cublasGemmStridedBatchedEx's definition, column-major: C[i] = alpha * op(A[i]) op(B[i]) +
// beta * C[i], op(X)(r, l) = X[r + l * ld] or, transposed, X[l + r * ld]; beta == 0 never reads C.
void reference_gemm(bool ta, bool tb, int64_t m, int64_t n, int64_t k, float alpha, const float* a,
                    int64_t lda, int64_t sa, const float* b, int64_t ldb, int64_t sb, float beta,
                    float* c, int64_t ldc, int64_t sc, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      for (int64_t r = 0; r < m; ++r) {
        double acc = 0;
        for (int64_t l = 0; l < k; ++l) {
          const float x = ta ? a[i * sa + l + r * lda] : a[i * sa + r + l * lda];
          const float y = tb ? b[i * sb + j + l * ldb] : b[i * sb + l + j * ldb];
          acc += double(x) * double(y);
        }
        float& out = c[i * sc + r + j * ldc];
        out = static_cast<float>(alpha * acc + (beta == 0 ? 0.0 : double(beta) * out));
      }
    }
  }
}

// run_gemm's calls (for_each_gemm_call's), made on the reference: the first operand is B, the
// second A.
void run_reference(const tc::GemmPlan& plan, const tp::Tensor& a, const tp::Tensor& b,
                   const tp::Tensor& c, float alpha, float beta) {
  REQUIRE_FALSE(plan.copy[0]);
  REQUIRE_FALSE(plan.copy[1]);
  REQUIRE_FALSE(plan.copy[2]);
  const auto ptr = [](const tp::Tensor& t) {
    return static_cast<float*>(t.unsafeGetTensorImpl()->data());
  };
  tc::for_each_gemm_call(plan, [&](const std::array<int64_t, 3>& off) {
    reference_gemm(plan.first.trans, plan.second.trans, plan.m, plan.n, plan.k, alpha,
                   ptr(b) + off[1], plan.first.ld, plan.batch_stride[1], ptr(a) + off[0],
                   plan.second.ld, plan.batch_stride[0], beta, ptr(c) + off[2], plan.ldc,
                   plan.batch_stride[2], plan.count);
  });
}

float value_of(std::size_t i) { return static_cast<float>((i * 5) % 13) * 0.25f - 1.5f; }

TEST_CASE("cuda gemm: plans compute every layout's product as the CPU does", "[cuda][blas]") {
  Blob base_a({8, 12}, value_of), base_b({12, 10}, [](std::size_t i) { return value_of(i + 3); });
  struct Case {
    const char* name;
    std::function<tp::Tensor(const tp::Tensor&)> a, b;  // views of base_a, base_b
  };
  const std::vector<Case> cases = {
      {"row-major", [](const tp::Tensor& t) { return t.slice(1, 0, 7); },
       [](const tp::Tensor& t) { return t.slice(0, 0, 7); }},
      {"a transposed", [](const tp::Tensor& t) { return t.t().slice(0, 0, 5); },
       [](const tp::Tensor& t) { return t.slice(0, 0, 8); }},
      {"b transposed", [](const tp::Tensor& t) { return t.slice(1, 0, 10); },
       [](const tp::Tensor& t) { return t.t(); }},
      {"both transposed, sliced rows", [](const tp::Tensor& t) { return t.t().slice(0, 2, 9); },
       [](const tp::Tensor& t) { return t.t().slice(0, 2, 10); }},
  };
  for (const Case& k : cases) {
    CAPTURE(k.name);
    const tp::Tensor a = k.a(base_a.cuda), b = k.b(base_b.cuda);
    const tp::Tensor want = tp::mm(k.a(base_a.cpu), k.b(base_b.cpu));
    Blob out({want.size(0), want.size(1)}, [](std::size_t) { return NAN; });
    const tc::GemmPlan plan = tc::plan_gemm(Factor{a, true, true}, Factor{b, true, true}, out.cuda,
                                            true, true, {}, a.size(0), b.size(1), a.size(1));
    run_reference(plan, a, b, out.cuda, 1, 0);
    CHECK(tp::allclose(out.cpu, want, 1e-5, 1e-5));
  }
  SECTION("addmm: beta * C + alpha * A @ B") {
    Blob out({8, 10}, [](std::size_t i) { return float(i % 4); });
    const tp::Tensor c0 = out.cpu.clone();
    const tp::Tensor a = base_a.cuda, b = base_b.cuda;
    run_reference(tc::plan_gemm(Factor{a, true, true}, Factor{b, true, true}, out.cuda, true, true,
                                {}, 8, 10, 12),
                  a, b, out.cuda, 0.5f, 2.0f);
    CHECK(tp::allclose(out.cpu, tp::addmm(c0, base_a.cpu, base_b.cpu, 2.0, 0.5), 1e-5, 1e-5));
  }
  SECTION("matrix @ vector and vector @ matrix: a missing dimension") {
    const tp::Tensor v = base_b.cuda.select(1, 3);  // 12 elements, stride 10
    Blob out({8}, [](std::size_t) { return NAN; });
    run_reference(tc::plan_gemm(Factor{base_a.cuda, true, true}, Factor{v, true, false}, out.cuda,
                                true, false, {}, 8, 1, 12),
                  base_a.cuda, v, out.cuda, 1, 0);
    CHECK(tp::allclose(out.cpu, tp::mv(base_a.cpu, base_b.cpu.select(1, 3)), 1e-5, 1e-5));
    const tp::Tensor u = base_a.cuda.select(0, 2);  // 12 elements, contiguous
    Blob out2({10}, [](std::size_t) { return NAN; });
    run_reference(tc::plan_gemm(Factor{u, false, true}, Factor{base_b.cuda, true, true}, out2.cuda,
                                false, true, {}, 1, 10, 12),
                  u, base_b.cuda, out2.cuda, 1, 0);
    CHECK(tp::allclose(out2.cpu, tp::matmul(base_a.cpu.select(0, 2), base_b.cpu), 1e-5, 1e-5));
  }
  SECTION("batched, with broadcast batch dimensions") {
    Blob x({2, 3, 4, 5}, value_of), y({5, 6}, value_of), z({3, 6, 5}, value_of);
    Blob out({2, 3, 4, 6}, [](std::size_t) { return NAN; });
    // x @ y: y broadcast over both batch dims (strides 0).
    const std::vector<int64_t> batch{2, 3};
    run_reference(tc::plan_gemm(Factor{x.cuda, true, true}, Factor{y.cuda, true, true}, out.cuda,
                                true, true, batch, 4, 6, 5),
                  x.cuda, y.cuda, out.cuda, 1, 0);
    CHECK(tp::allclose(out.cpu, tp::matmul(x.cpu, y.cpu), 1e-5, 1e-5));
    // x @ z^T: z broadcast over the outer batch dim, transposed in its matrix dims.
    const tp::Tensor zt = z.cuda.transpose(1, 2);
    const tc::GemmPlan plan = tc::plan_gemm(Factor{x.cuda, true, true}, Factor{zt, true, true},
                                            out.cuda, true, true, batch, 4, 6, 5);
    CHECK(plan.outer == std::vector<int64_t>{2});
    CHECK(plan.count == 3);
    CHECK(plan.outer_strides[0][1] == 0);
    CHECK(plan.first.trans);
    run_reference(plan, x.cuda, zt, out.cuda, 1, 0);
    CHECK(tp::allclose(out.cpu, tp::matmul(x.cpu, z.cpu.transpose(1, 2)), 1e-5, 1e-5));
  }
  SECTION("what cuBLAS cannot read is copied first") {
    const tp::Tensor stepped = base_a.cuda.slice(1, 0, 12, 2);  // strides (12, 2)
    Blob out({8, 10}, [](std::size_t) { return NAN; });
    const tc::GemmPlan p1 =
        tc::plan_gemm(Factor{stepped, true, true}, Factor{base_b.cuda.slice(0, 0, 6), true, true},
                      out.cuda, true, true, {}, 8, 10, 6);
    CHECK(p1.copy == std::array<bool, 3>{true, false, false});
    const tp::Tensor rows = base_b.cuda.select(0, 0).unsqueeze(0).expand({12, 10});
    const tc::GemmPlan p2 = tc::plan_gemm(Factor{base_a.cuda, true, true}, Factor{rows, true, true},
                                          out.cuda, true, true, {}, 8, 10, 12);
    CHECK(p2.copy == std::array<bool, 3>{false, true, false});
    Blob out_t({10, 8}, [](std::size_t) { return NAN; });  // a column-major result
    const tc::GemmPlan p3 =
        tc::plan_gemm(Factor{base_a.cuda, true, true}, Factor{base_b.cuda, true, true},
                      out_t.cuda.t(), true, true, {}, 8, 10, 12);
    CHECK(p3.copy == std::array<bool, 3>{false, false, true});
  }
}

TEST_CASE("without a device, a product that passes the host's checks stops at the device",
          "[no_device]") {
  Blob a({3, 4}, value_of), b({4, 2}, value_of), out({3, 2}, [](std::size_t) { return NAN; });
  CHECK_THROWS_MATCHES(tp::mm_out(out.cuda, a.cuda, b.cuda), tc::CUDAUnavailableError,
                       Catch::Message(tp::cuda::unavailable_reason()));
}

TEST_CASE("cuda products: integer dtypes have no kernel, with PyTorch's message", "[cuda][blas]") {
  // Refused before any device call (an out= result: nothing to allocate on the device).
  std::vector<std::int64_t> host(12, 1), out(9, 0);
  const tp::Tensor a = tp::from_blob(host.data(), {3, 4}, kFakeCuda.dtype(tp::kLong));
  const tp::Tensor b = tp::from_blob(host.data(), {4, 3}, kFakeCuda.dtype(tp::kLong));
  const tp::Tensor c = tp::from_blob(out.data(), {3, 3}, kFakeCuda.dtype(tp::kLong));
  CHECK_THROWS_MATCHES(tp::mm_out(c, a, b), tp::NotImplementedError,
                       Catch::Message("\"addmm_cuda\" not implemented for 'Long'"));
}

// ---- on a GPU -----------------------------------------------------------------------------------

TEST_CASE("cuda products: mm, mv, bmm, matmul, addmm and baddbmm match the CPU", "[device]") {
  REQUIRE(tp::cuda::is_available());
  for (const tp::DType dt : {tp::kFloat, tp::kDouble, tp::kHalf, tp::kBFloat16}) {
    CAPTURE(tp::scalar_type_name(dt));
    const double tol = dt == tp::kFloat ? 1e-4 : dt == tp::kDouble ? 1e-10 : 3e-2;
    const auto same = [&](const tp::Tensor& got, const tp::Tensor& want) {
      REQUIRE(got.is_cuda());
      CHECK(tp::allclose(got.cpu().to(tp::kDouble), want.to(tp::kDouble), tol, tol));
    };
    tp::manual_seed(1);
    const tp::Tensor a = tp::randn({33, 70}).to(dt), b = tp::randn({70, 21}).to(dt);
    const tp::Tensor bias = tp::randn({21}).to(dt);
    same(tp::mm(a.cuda(), b.cuda()), tp::mm(a, b));
    same(tp::mm(a.t().contiguous().cuda().t(), b.cuda()), tp::mm(a, b));
    same(tp::mm(a.cuda().slice(1, 0, 70, 2), b.cuda().slice(0, 0, 70, 2)),
         tp::mm(a.slice(1, 0, 70, 2), b.slice(0, 0, 70, 2)));
    same(tp::mv(a.cuda(), b.cuda().select(1, 4)), tp::mv(a, b.select(1, 4)));
    same(tp::addmm(bias.cuda(), a.cuda(), b.cuda(), 0.5, 2), tp::addmm(bias, a, b, 0.5, 2));
    const tp::Tensor x = tp::randn({4, 3, 9, 11}).to(dt), y = tp::randn({3, 11, 5}).to(dt);
    same(tp::matmul(x.cuda(), y.cuda()), tp::matmul(x, y));
    same(tp::bmm(x[0].cuda(), y.cuda()), tp::bmm(x[0], y));
    same(tp::baddbmm(tp::ones({3, 9, 5}).to(dt).cuda(), x[1].cuda(), y.cuda(), 2, 0.25),
         tp::baddbmm(tp::ones({3, 9, 5}).to(dt), x[1], y, 2, 0.25));
    // An empty contraction: beta * self, or zeros.
    same(tp::mm(tp::empty({3, 0}).to(dt).cuda(), tp::empty({0, 4}).to(dt).cuda()),
         tp::zeros({3, 4}));
    // In place over an operand: written through a temporary.
    tp::Tensor c = a.cuda().slice(1, 0, 33);
    const tp::Tensor want = tp::addmm(a.slice(1, 0, 33), a, a.t().slice(0, 0, 70).slice(1, 0, 33));
    c.addmm_(a.cuda(), a.cuda().t().slice(1, 0, 33));
    same(c, want);
  }
  const tp::Tensor ones_long = tp::ones({2, 2}, tp::TensorOptions().dtype(tp::kLong)).cuda();
  CHECK_THROWS_MATCHES(tp::mm(ones_long, ones_long), tp::NotImplementedError,
                       Catch::Message("\"addmm_cuda\" not implemented for 'Long'"));
}

TEST_CASE("cuda products: gradients of a linear layer match the CPU's", "[device]") {
  REQUIRE(tp::cuda::is_available());
  tp::manual_seed(2);
  const tp::Tensor w_cpu = tp::randn({5, 7}, tp::kDouble).requires_grad_();
  const tp::Tensor x_cpu = tp::randn({3, 7}, tp::kDouble), b_cpu = tp::randn({5}, tp::kDouble);
  const tp::Tensor w = w_cpu.detach().cuda().requires_grad_();
  tp::addmm(b_cpu.cuda(), x_cpu.cuda(), w.t()).relu().sum().backward();
  tp::addmm(b_cpu, x_cpu, w_cpu.t()).relu().sum().backward();
  REQUIRE(w.grad().is_cuda());
  CHECK(tp::allclose(w.grad().cpu(), w_cpu.grad(), 1e-10, 1e-10));
}

}  // namespace cuda_blas_test
