// einsum (ops/einsum.hpp): values against the ops each equation spells (matmul, diagonal, sum,
// outer products, broadcasting), the greedy contraction order, empty and 0-d operands,
// non-contiguous operands, the node names torch 1.13 gives, gradients, and every error message.
#include <tensorplay/autograd/gradcheck.hpp>
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <string>
#include <vector>

namespace ops_einsum_test {

using namespace tensorplay;

namespace {
Tensor dbl(IntArrayRef sizes) { return randn(sizes, kDouble); }
bool close(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && a.dtype() == b.dtype() && a.allclose(b, 1e-10, 1e-10);
}
std::string name_of(const Tensor& t) { return t.grad_fn() ? t.grad_fn()->name() : "None"; }
}  // namespace

TEST_CASE("einsum values", "[ops][einsum]") {
  const Tensor a = dbl({2, 3}), b = dbl({3, 4}), c = dbl({4, 5}), v = dbl({3}), w = dbl({4});
  const Tensor sq = dbl({3, 3}), ba = dbl({5, 2, 3}), bb = dbl({5, 3, 4});
  CHECK(close(einsum("ij,jk->ik", {a, b}), a.matmul(b)));
  CHECK(close(einsum("ij,jk", {a, b}), a.matmul(b)));  // implicit output: i k
  CHECK(close(einsum("bij,bjk->bik", {ba, bb}), ba.bmm(bb)));
  CHECK(close(einsum("ij,jk,kl->il", {a, b, c}), a.matmul(b).matmul(c)));
  CHECK(close(einsum("ii", {sq}), sq.diagonal().sum()));
  CHECK(close(einsum("ii->i", {sq}), sq.diagonal()));
  CHECK(close(einsum("i,j->ij", {v, w}), v.unsqueeze(1).mul(w)));
  CHECK(close(einsum("i,j", {v, w}), v.unsqueeze(1).mul(w)));
  CHECK(close(einsum("ij->ji", {a}), a.t()));
  CHECK(close(einsum("ji", {a}), a.t()));  // implicit output sorts: i j, so a transpose
  CHECK(close(einsum("ij->", {a}), a.sum()));
  CHECK(close(einsum("ij->j", {a}), a.sum({0})));
  CHECK(close(einsum("i,i->", {v, v}), v.dot(v)));
  CHECK(close(einsum("i,i", {v, v}), v.dot(v)));
  CHECK(close(einsum("ij,ij->ij", {a, a}), a.mul(a)));
  CHECK(close(einsum(" i j -> j i ", {a}), a.t()));  // spaces ignored
  // ellipsis: batch dims broadcast, output ellipsis first when implicit
  const Tensor e1 = dbl({2, 1, 2, 3}), e2 = dbl({4, 3, 4});
  CHECK(close(einsum("...ij,...jk->...ik", {e1, e2}), e1.matmul(e2)));
  CHECK(close(einsum("...ij,...jk", {e1, e2}), e1.matmul(e2)));
  CHECK(close(einsum("ij...->...", {ba}), ba.sum({0, 1})));
  CHECK(close(einsum("i...->...i", {ba}), ba.movedim(0, -1)));
  CHECK(close(einsum("...->...", {a}), a));
  // size-1 dimensions broadcast between operands
  const Tensor r = dbl({1, 3});
  CHECK(close(einsum("ij,ij->ij", {r, a}), r.mul(a)));
  const Tensor p = dbl({2, 1});
  CHECK(close(einsum("ij,jk->ik", {p, b}), p.mul(b.sum({0}, true))));  // j: 1 against 3
  CHECK(close(einsum("ij,jk->ik", {p.expand({2, 3}), b}), p.expand({2, 3}).matmul(b)));
  // bilinear, three operands
  const Tensor x1 = dbl({2, 3}), W = dbl({4, 3, 5}), x2 = dbl({2, 5});
  const Tensor bil = einsum("bn,anm,bm->ba", {x1, W, x2});
  const Tensor ref = x1.unsqueeze(1).unsqueeze(3).mul(W).mul(x2.unsqueeze(1).unsqueeze(2));
  CHECK(close(bil, ref.sum({2, 3})));
  // upper case letters sort before lower case in the implicit output
  CHECK(close(einsum("aB", {a}), a.t()));
  // the same operand repeated
  CHECK(close(einsum("ij,ij,ij->", {a, a, a}), a.mul(a).mul(a).sum()));
  // diagonal inside a contraction: sum_i A[i,i] v[i]
  CHECK(close(einsum("ii,i->i", {sq, v}), sq.diagonal().mul(v)));
  CHECK(close(einsum("iij->ij", {dbl({3, 3, 2}).fill_(2)}), full({3, 2}, 2.0, kDouble)));
}

TEST_CASE("einsum: empty, 0-d, non-contiguous, dtypes, path", "[ops][einsum]") {
  const Tensor z = einsum("ij,jk->ik", {dbl({0, 3}), dbl({3, 4})});
  CHECK(z.sizes() == IntArrayRef({0, 4}));
  CHECK(close(einsum("ij,jk->ik", {dbl({2, 0}), dbl({0, 4})}), zeros({2, 4}, kDouble)));
  CHECK(close(einsum("ij->", {dbl({2, 0})}), zeros({}, kDouble)));
  CHECK(einsum("i,j->ij", {dbl({0}), dbl({3})}).sizes() == IntArrayRef({0, 3}));
  const Tensor s = full({}, 3.0, kDouble), t = full({}, 2.0, kDouble);
  CHECK(close(einsum("", {s}), s));
  CHECK(close(einsum("->", {s}), s));
  CHECK(close(einsum(",", {s, t}), full({}, 6.0, kDouble)));
  CHECK(close(einsum("...,...", {s, dbl({2}).fill_(1)}), full({2}, 3.0, kDouble)));
  // transposed and sliced operands
  const Tensor at = dbl({3, 2}).t(), bt = dbl({4, 6}).t().narrow(0, 0, 3);
  CHECK(!at.is_contiguous());
  CHECK(close(einsum("ij,jk->ik", {at, bt}), at.matmul(bt)));
  CHECK(close(einsum("ij,jk->ki", {at, bt}), at.matmul(bt).t()));
  // integer operands compute in their dtype (sum of one operand widens to int64, as torch)
  const Tensor ia = arange(6, kInt).reshape({2, 3}), ib = arange(12, kInt).reshape({3, 4});
  CHECK(einsum("ij,jk->ik", {ia, ib}).equal(ia.matmul(ib)));
  CHECK(einsum("ij->", {ia}).dtype() == kLong);
  // an explicit path reproduces the default result
  const Tensor a = dbl({2, 3}), b = dbl({3, 4}), c = dbl({4, 5});
  CHECK(close(einsum("ij,jk,kl->il", {a, b, c}, IntArrayRef({1, 2, 0, 1})), a.matmul(b.matmul(c))));
  CHECK_THROWS_WITH(
      einsum("ij,jk,kl->il", {a, b, c}, IntArrayRef({0, 1})),
      "einsum(): expected contraction path given in path parameter to have size 4 but got 2");
  CHECK_THROWS_WITH(einsum("ij,jk,kl->il", {a, b, c}, IntArrayRef({0, 0, 0, 1})),
                    "einsum(): invalid contraction (0, 0) cannot contract an operand with itself");
  CHECK_THROWS_WITH(einsum("ij,jk,kl->il", {a, b, c}, IntArrayRef({0, 3, 0, 1})),
                    "einsum(): invalid contraction (0, 3) operand index is out of bounds");
}

TEST_CASE("einsum: greedy contraction order", "[ops][einsum]") {
  // A chain whose left-to-right order builds a [64, 64] intermediate: the greedy choice
  // contracts b and c first (a [64, 1] intermediate). The values agree either way.
  const Tensor a = dbl({64, 2}), b = dbl({2, 64}), c = dbl({64, 1});
  CHECK(close(einsum("ij,jk,kl->il", {a, b, c}), a.matmul(b.matmul(c))));
  // As einsum aligns them: dims i l (output), then j k; dim_counts {1, 0, 2, 2}.
  const std::vector<Tensor> aligned{a.unsqueeze(1).unsqueeze(3), b.unsqueeze(0).unsqueeze(0),
                                    c.t().unsqueeze(0).unsqueeze(0)};
  const auto pair = detail::einsum_impl::greedy_pair(aligned, {1, 0, 2, 2}, 2);
  CHECK((pair.first == 1 && pair.second == 2));
}

TEST_CASE("einsum: node names and gradients", "[ops][einsum]") {
  const Tensor a = dbl({2, 3}).requires_grad_(), b = dbl({3, 4}), v = dbl({3}).requires_grad_();
  // torch 1.13's grad_fn for each shape of equation
  CHECK(name_of(einsum("ij,jk->ik", {a, b})) == "ViewBackward0");
  CHECK(name_of(einsum("i,i", {v, dbl({3})})) == "ViewBackward0");
  CHECK(name_of(einsum("i,j->ij", {v, dbl({2})})) == "MulBackward0");
  CHECK(name_of(einsum("ij->ji", {a})) == "PermuteBackward0");
  CHECK(name_of(einsum("ij->", {a})) == "SumBackward1");
  CHECK(name_of(einsum("ii->i", {dbl({3, 3}).requires_grad_()})) == "PermuteBackward0");
  using V = std::vector<Tensor>;
  // contiguous, transposed and broadcast (stride 0) leaves
  const Tensor ta = dbl({3, 2}).t().requires_grad_();
  const Tensor bc = dbl({3, 1}).requires_grad_();
  CHECK(autograd::gradcheck(
      [](const V& x) {
        return einsum("ij,jk->ik", {x[0], x[1]});
      },
      {a, dbl({3, 4}).requires_grad_()}));
  CHECK(autograd::gradcheck(
      [](const V& x) {
        return einsum("ij,jk->ki", {x[0], x[1]});
      },
      {ta, dbl({4, 3}).t().requires_grad_()}));
  CHECK(autograd::gradcheck(
      [](const V& x) {
        return einsum("ij,jk->ik", {x[0], x[1].expand({3, 4})});
      },
      {a, bc}));
  CHECK(autograd::gradcheck([](const V& x) { return einsum("ii->i", {x[0]}); },
                            {dbl({3, 3}).requires_grad_()}));
  CHECK(autograd::gradcheck([](const V& x) { return einsum("ii", {x[0]}); },
                            {dbl({3, 3}).requires_grad_()}));
  CHECK(autograd::gradcheck(
      [](const V& x) {
        return einsum("bn,anm,bm->ba", {x[0], x[1], x[2]});
      },
      {dbl({2, 3}).requires_grad_(), dbl({4, 3, 5}).requires_grad_(),
       dbl({2, 5}).requires_grad_()}));
  CHECK(autograd::gradcheck(
      [](const V& x) {
        return einsum("...ij,...jk", {x[0], x[1]});
      },
      {dbl({2, 1, 2, 3}).requires_grad_(), dbl({4, 3, 2}).requires_grad_()}));
  CHECK(autograd::gradcheck([](const V& x) { return einsum("ij,ij->", {x[0], x[0]}); }, {a}));
}

TEST_CASE("einsum errors", "[ops][einsum]") {
  const Tensor a = dbl({2, 3}), b = dbl({3, 4}), c = dbl({2, 3, 4});
  CHECK_THROWS_WITH(einsum("ij", TensorList{}), "einsum(): must provide at least one operand");
  CHECK_THROWS_WITH(einsum("ij", {c}),
                    "einsum(): the number of subscripts in the equation (2) does not match the "
                    "number of dimensions (3) for operand 0 and no ellipsis was given");
  CHECK_THROWS_WITH(einsum("ijk...", {a}),
                    "einsum(): the number of subscripts in the equation (3) is more than the "
                    "number of dimensions (2) for operand 0");
  CHECK_THROWS_WITH(einsum("i$j", {a}),
                    "einsum(): invalid subscript given at index 1 in the equation string, "
                    "subscripts must be in [a-zA-Z]");
  CHECK_THROWS_WITH(einsum("ij-ji", {a}),
                    "einsum(): invalid subscript given at index 2 in the equation string, "
                    "subscripts must be in [a-zA-Z]");
  CHECK_THROWS_WITH(einsum("ij->j>", {a}),
                    "einsum(): invalid subscript given at index 5 in the equation string, "
                    "subscripts must be in [a-zA-Z]");
  CHECK_THROWS_WITH(einsum("ij,jk", {a}),
                    "einsum(): fewer operands were provided than specified in the equation");
  CHECK_THROWS_WITH(einsum("ij", {a, b}),
                    "einsum(): more operands were provided than specified in the equation");
  CHECK_THROWS_WITH(einsum("i..j", {a}),
                    "einsum(): found '.' for operand 0 that is not part of any ellipsis");
  CHECK_THROWS_WITH(einsum("...i...", {a}),
                    "einsum(): found '.' for operand 0 for which an ellipsis was already found");
  CHECK_THROWS_WITH(einsum("ij->..", {a}),
                    "einsum(): found '.' for output that is not part of any ellipsis (...)");
  CHECK_THROWS_WITH(einsum("...ij->......", {a}),
                    "einsum(): found '.' for output but an ellipsis (...) was already found");
  CHECK_THROWS_WITH(einsum("ij->ii", {a}),
                    "einsum(): output subscript i appears more than once in the output");
  CHECK_THROWS_WITH(
      einsum("ij->k", {a}),
      "einsum(): output subscript k does not appear in the equation for any input operand");
  CHECK_THROWS_WITH(einsum("ii", {a}),
                    "einsum(): subscript i is repeated for operand 0 but the sizes don't match, "
                    "3 != 2");
  CHECK_THROWS_WITH(einsum("ij,ij", {a, b}),
                    "einsum(): subscript i has size 3 for operand 1 which does not broadcast "
                    "with previously seen size 2");
  CHECK_THROWS_WITH(einsum("...ij,...jk", {dbl({2, 2, 3}), dbl({3, 3, 4})}),
                    "einsum(): dimension 0 covered by ellipsis in operand 1has size 3 which does "
                    "not broadcast with previously seen ellipsis with size 2 for the respective "
                    "dimension");
}

}  // namespace ops_einsum_test
