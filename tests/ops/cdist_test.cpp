// cdist (ops/cdist.hpp): values against the distances written with broadcasting ops for every
// kind of p, both paths (kernel and matrix product) and the mode that picks them, batch
// broadcasting, empty operands, non-contiguous operands, node names, gradients (gradcheck of
// CdistBackward0 and EuclideanDistBackward0) and every error message, as torch 1.13 gives them.
#include <tensorplay/autograd/gradcheck.hpp>
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace ops_cdist_test {

using namespace tensorplay;

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
Tensor dbl(IntArrayRef sizes) { return randn(sizes, kDouble); }
std::string name_of(const Tensor& t) { return t.grad_fn() ? t.grad_fn()->name() : "None"; }
// The distances spelled with broadcasting: |x1[..., i, :] - x2[..., j, :]|_p.
Tensor reference(const Tensor& x1, const Tensor& x2, double p) {
  const Tensor d = x1.unsqueeze(-2).sub(x2.unsqueeze(-3)).abs();
  const std::vector<int64_t> last{-1};
  if (p == 0) return d.ne(0).to(x1.dtype()).sum(last);
  if (std::isinf(p)) return d.amax(last);
  return d.pow(p).sum(last).pow(1.0 / p);
}
bool close(const Tensor& a, const Tensor& b, double tol = 1e-10) {
  return a.sizes() == b.sizes() && a.dtype() == b.dtype() && a.allclose(b, tol, tol);
}
}  // namespace

TEST_CASE("cdist values", "[ops][cdist]") {
  const Tensor x1 = dbl({3, 4}), x2 = dbl({5, 4});
  for (const double p : {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, kInf}) {
    CAPTURE(p);
    CHECK(close(cdist(x1, x2, p), reference(x1, x2, p)));
    CHECK(close(cdist(x1.t().contiguous().t(), x2, p), reference(x1, x2, p)));
  }
  CHECK(close(cdist(x1, x1, 0).diagonal(), zeros({3}, kDouble)));
  // float: the kernel computes in float
  const Tensor f1 = x1.to(kFloat), f2 = x2.to(kFloat);
  CHECK(close(cdist(f1, f2), reference(f1, f2, 2), 1e-5));
  // both paths, every mode: the matrix-product path agrees to rounding
  const Tensor big = dbl({30, 4});
  for (const auto mode : {std::optional<int64_t>(), std::optional<int64_t>(0),
                          std::optional<int64_t>(1), std::optional<int64_t>(2)}) {
    CHECK(close(cdist(big, x2, 2, mode), reference(big, x2, 2), 1e-8));
    CHECK(close(cdist(x1, x2, 2, mode), reference(x1, x2, 2), 1e-8));
  }
  // batches broadcast (and 3-d against 2-d)
  const Tensor b1 = dbl({2, 1, 3, 4}), b2 = dbl({5, 6, 4});
  CHECK(close(cdist(b1, b2, 1.5), reference(b1, b2, 1.5)));
  CHECK(close(cdist(b1, b2, 2, 1), reference(b1, b2, 2), 1e-8));
  CHECK(close(cdist(b1, x2), reference(b1, x2, 2)));
  // a transposed (non-contiguous) operand on the matrix-product path too
  const Tensor bt = dbl({4, 30}).t();
  CHECK(close(cdist(bt, x2, 2), reference(bt, x2, 2), 1e-8));
  // empty operands: [0, R], [P, 0], and no columns: zeros
  CHECK(cdist(dbl({0, 4}), x2).sizes() == IntArrayRef({0, 5}));
  CHECK(cdist(x1, dbl({0, 4})).sizes() == IntArrayRef({3, 0}));
  CHECK(cdist(dbl({0, 3, 4}), dbl({1, 5, 4})).sizes() == IntArrayRef({0, 3, 5}));
  CHECK(close(cdist(dbl({3, 0}), dbl({5, 0})), zeros({3, 5}, kDouble)));
}

TEST_CASE("cdist nodes and gradients", "[ops][cdist]") {
  const Tensor x1 = dbl({3, 4}).requires_grad_(), x2 = dbl({5, 4});
  CHECK(name_of(cdist(x1, x2)) == "CdistBackward0");
  CHECK(name_of(cdist(x1, x2, 2, 2)) == "CdistBackward0");
  CHECK(name_of(cdist(dbl({0, 4}).requires_grad_(), x2)) == "CdistBackward0");
  const Tensor mm = cdist(x1, x2, 2, 1);
  CHECK(name_of(mm) == "ViewBackward0");
  CHECK(mm.grad_fn()->next_edges()[0].function->name() == "EuclideanDistBackward0");
  CHECK(name_of(cdist(dbl({30, 4}).requires_grad_(), x2)) == "ViewBackward0");

  using V = std::vector<Tensor>;
  for (const double p : {0.0, 0.5, 1.0, 1.5, 2.0, 3.0, kInf}) {
    CAPTURE(p);
    const auto f = [p](const V& x) { return cdist(x[0], x[1], p); };
    CHECK(autograd::gradcheck(f, {dbl({3, 4}).requires_grad_(), dbl({5, 4}).requires_grad_()}));
    // transposed leaves, broadcast batches
    CHECK(autograd::gradcheck(
        f, {dbl({4, 3}).t().requires_grad_(), dbl({4, 5}).t().requires_grad_()}));
    CHECK(autograd::gradcheck(
        f, {dbl({2, 1, 3, 4}).requires_grad_(), dbl({3, 5, 4}).requires_grad_()}));
  }
  // the matrix-product path (EuclideanDistBackward0), batched and broadcast
  const auto mm_fn = [](const V& x) { return cdist(x[0], x[1], 2, 1); };
  CHECK(autograd::gradcheck(mm_fn, {dbl({3, 4}).requires_grad_(), dbl({5, 4}).requires_grad_()}));
  CHECK(autograd::gradcheck(mm_fn,
                            {dbl({2, 1, 3, 4}).requires_grad_(), dbl({3, 5, 4}).requires_grad_()}));
  // a zero distance has a zero (sub)gradient on both paths
  const Tensor same = dbl({2, 3}).requires_grad_();
  for (const int64_t mode : {1, 2}) {
    cdist(same, same.detach(), 2, mode).diagonal().sum().backward();
    CHECK(close(same.grad(), zeros({2, 3}, kDouble)));
    same.mutable_grad() = Tensor();
  }
  // empty operands: zero gradients of the right shape
  const Tensor e = dbl({3, 0}).requires_grad_();
  cdist(e, dbl({5, 0})).sum().backward();
  CHECK(e.grad().sizes() == IntArrayRef({3, 0}));
  // The direct kernel's backward has no derivative: a second derivative fails, as in torch,
  // instead of being lost.
  const Tensor a = dbl({3, 2}).requires_grad_(), b = dbl({4, 2}).requires_grad_();
  const Tensor ga = autograd::grad({cdist(a, b, 1.5).sum()}, {a}, {}, true, true)[0];
  REQUIRE(ga.grad_fn());
  CHECK_THROWS_WITH(ga.sum().backward(), "derivative for aten::_cdist_backward is not implemented");
}

TEST_CASE("cdist errors", "[ops][cdist]") {
  const Tensor x1 = dbl({3, 4}), x2 = dbl({5, 4});
  CHECK_THROWS_WITH(cdist(x1.to(kInt), x2),
                    "cdist only supports floating-point dtypes, X1 got: Int");
  CHECK_THROWS_WITH(cdist(x1, x2.to(kInt)),
                    "cdist only supports floating-point dtypes, X2 got: Int");
  CHECK_THROWS_WITH(cdist(x1.to(kInt), x2.to(kInt), -1),
                    "cdist only supports floating-point dtypes, X1 got: Int");
  CHECK_THROWS_WITH(cdist(dbl({3}), x2), "cdist only supports at least 2D tensors, X1 got: 1D");
  CHECK_THROWS_WITH(cdist(x1, dbl({3})), "cdist only supports at least 2D tensors, X2 got: 1D");
  CHECK_THROWS_WITH(cdist(x1, dbl({3, 3})),
                    "X1 and X2 must have the same number of columns. X1: 4 X2: 3");
  CHECK_THROWS_WITH(cdist(x1, x2, -1), "cdist only supports non-negative p values");
  CHECK_THROWS_WITH(cdist(x1, x2, -1, 1), "cdist only supports non-negative p values");
  CHECK_THROWS_WITH(cdist(x1, x2, 2, 3), "possible modes: 0, 1, 2, but was: 3");
  CHECK_THROWS_WITH(cdist(x1.to(kFloat), x2), "expected scalar type Float but found Double");
  CHECK_THROWS_WITH(cdist(x1.to(kHalf), x2.to(kHalf)), "\"cdist\" not implemented for 'Half'");
  CHECK_THROWS_WITH(cdist(dbl({2, 3, 4}), dbl({3, 5, 4})),
                    "The size of tensor a (2) must match the size of tensor b (3) at "
                    "non-singleton dimension 0");
}

}  // namespace ops_cdist_test
