// Gradients of the matrix products, matmul, cat / stack and sort / topk: gradcheck on
// contiguous, transposed and batched inputs, PyTorch 1.13's node names, in-place products, the
// out= refusals and a small MLP trained one step.
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include "grad_test_util.hpp"

#include <functional>
#include <string>
#include <tuple>
#include <vector>

namespace autograd_linalg_grad_test {

using namespace tensorplay;
using namespace tensorplay::testing;

namespace {

struct Case {
  const char* name;  // expected grad_fn name (PyTorch 1.13's)
  std::vector<std::vector<int64_t>> shapes;
  Fn fn;
};

}  // namespace

TEST_CASE("products: gradcheck and node names", "[autograd]") {
  const std::vector<Case> cases = {
      {"MmBackward0", {{3, 4}, {4, 2}}, [](auto& a) { return a[0].mm(a[1]); }},
      {"BmmBackward0", {{2, 3, 4}, {2, 4, 5}}, [](auto& a) { return a[0].bmm(a[1]); }},
      {"MvBackward0", {{3, 4}, {4}}, [](auto& a) { return a[0].mv(a[1]); }},
      {"DotBackward0", {{4}, {4}}, [](auto& a) { return a[0].dot(a[1]); }},
      {"MulBackward0", {{3}, {4}}, [](auto& a) { return a[0].outer(a[1]); }},
      {"MulBackward0", {{3}, {4}}, [](auto& a) { return ger(a[0], a[1]); }},
      {"AddmmBackward0",
       {{3, 2}, {3, 4}, {4, 2}},
       [](auto& a) { return a[0].addmm(a[1], a[2], 0.5, 2); }},
      {"AddmmBackward0", {{2}, {3, 4}, {4, 2}}, [](auto& a) { return addmm(a[0], a[1], a[2]); }},
      {"AddmvBackward0", {{3}, {3, 4}, {4}}, [](auto& a) { return a[0].addmv(a[1], a[2], 2, 3); }},
      {"AddbmmBackward0",
       {{3, 5}, {2, 3, 4}, {2, 4, 5}},
       [](auto& a) { return a[0].addbmm(a[1], a[2], 1, -1); }},
      {"BaddbmmBackward0",
       {{1, 3, 5}, {2, 3, 4}, {2, 4, 5}},
       [](auto& a) { return a[0].baddbmm(a[1], a[2], 0.25, 1); }},
      // matmul dispatches as PyTorch's composite does.
      {"DotBackward0", {{4}, {4}}, [](auto& a) { return a[0].matmul(a[1]); }},
      {"MvBackward0", {{3, 4}, {4}}, [](auto& a) { return a[0].matmul(a[1]); }},
      {"SqueezeBackward3", {{4}, {4, 2}}, [](auto& a) { return a[0].matmul(a[1]); }},
      {"MmBackward0", {{3, 4}, {4, 2}}, [](auto& a) { return matmul(a[0], a[1]); }},
      {"UnsafeViewBackward0", {{2, 3, 4}, {4, 2}}, [](auto& a) { return a[0].matmul(a[1]); }},
      {"UnsafeViewBackward0", {{2, 3, 4}, {4}}, [](auto& a) { return a[0].matmul(a[1]); }},
      {"UnsafeViewBackward0", {{4}, {2, 4, 3}}, [](auto& a) { return a[0].matmul(a[1]); }},
      {"UnsafeViewBackward0", {{3, 4}, {2, 4, 3}}, [](auto& a) { return a[0].matmul(a[1]); }},
      {"UnsafeViewBackward0", {{2, 1, 3, 4}, {5, 4, 2}}, [](auto& a) { return a[0].matmul(a[1]); }},
  };
  for (const Case& c : cases) {
    for (bool transposed : {false, true}) {
      INFO(c.name << " " << c.shapes.size() << " inputs" << (transposed ? " transposed" : ""));
      std::vector<Tensor> in;
      for (const auto& s : c.shapes) in.push_back(leaf(s, transposed));
      CHECK(grad_fn_name(c.fn(in)) == c.name);
      CHECK(autograd::gradcheck(c.fn, in));
    }
  }
  // outer promotes: each factor's gradient comes back in its own dtype.
  const Tensor of = randn({3}).requires_grad_(), od = randn({2}, f64()).requires_grad_();
  of.outer(od).sum().backward();
  CHECK(of.grad().dtype() == kFloat);
  CHECK(od.grad().allclose(full({2}, of.sum().item<double>(), f64())));
  // A factor that does not require grad gets no gradient; the other one does.
  const Tensor a = leaf({3, 4}), b = randn({4, 2}, f64());
  a.mm(b).sum().backward();
  CHECK(a.grad().allclose(ones({3, 2}, f64()).mm(b.t())));
  CHECK_FALSE(b.grad().defined());
}

TEST_CASE("products: hand-checked mm gradient and float32", "[autograd]") {
  const Tensor a = tensor({1.0, 2.0, 3.0, 4.0}).reshape({2, 2}).detach().requires_grad_();
  const Tensor b = tensor({5.0, 6.0, 7.0, 8.0}).reshape({2, 2}).detach().requires_grad_();
  a.mm(b).sum().backward();
  // d sum(AB)/dA = 1 B^T: row sums of B; d/dB = A^T 1: column sums of A.
  CHECK(a.grad().allclose(tensor({11.0f, 15.0f, 11.0f, 15.0f}).reshape({2, 2})));
  CHECK(b.grad().allclose(tensor({4.0f, 4.0f, 6.0f, 6.0f}).reshape({2, 2})));
  CHECK(a.grad().dtype() == kFloat);
}

TEST_CASE("products: in-place addmm_ and baddbmm_ record", "[autograd]") {
  CHECK(autograd::gradcheck(
      [](auto& a) {
        Tensor t = a[0].mul(1.0);
        t.addmm_(a[1], a[2], 0.5, 2);
        return t;
      },
      {leaf({3, 2}), leaf({3, 4}), leaf({4, 2})}));
  CHECK(autograd::gradcheck(
      [](auto& a) {
        Tensor t = a[0].mul(1.0);
        t.baddbmm_(a[1], a[2], 2, 1);
        return t;
      },
      {leaf({2, 3, 5}), leaf({2, 3, 4}), leaf({2, 4, 5})}));
  Tensor t = leaf({3, 2}).mul(1.0);
  t.addmm_(leaf({3, 4}), leaf({4, 2}));
  CHECK(grad_fn_name(t) == "AddmmBackward0");
}

TEST_CASE("joins and sorts: gradcheck and node names", "[autograd]") {
  const std::vector<Case> cases = {
      {"CatBackward0",
       {{2, 3}, {4, 3}},
       [](auto& a) {
         return cat({a[0], a[1]});
       }},
      {"CatBackward0",
       {{3, 2}, {3, 4}},
       [](auto& a) {
         return cat({a[0], a[1], a[0]}, -1);
       }},
      // A 1-d empty input is skipped by cat; it gets no gradient.
      {"CatBackward0",
       {{0}, {3, 2}},
       [](auto& a) {
         return cat({a[0], a[1]}, 1);
       }},
      {"StackBackward0",
       {{2, 3}, {2, 3}},
       [](auto& a) {
         return stack({a[0], a[1]});
       }},
      {"StackBackward0",
       {{2, 3}, {2, 3}},
       [](auto& a) {
         return stack({a[0], a[1]}, -1);
       }},
      {"StackBackward0",
       {{2, 3}, {2, 3}},
       [](auto& a) {
         return stack({a[1], a[0]}, 1);
       }},
      {"SortBackward0", {{3, 4}}, [](auto& a) { return std::get<0>(a[0].sort()); }},
      {"SortBackward0", {{3, 4}}, [](auto& a) { return std::get<0>(a[0].sort(0, true)); }},
      {"SortBackward0", {{3, 4}}, [](auto& a) { return a[0].msort(); }},
      {"TopkBackward0", {{3, 4}}, [](auto& a) { return std::get<0>(a[0].topk(2)); }},
      {"TopkBackward0", {{3, 4}}, [](auto& a) { return std::get<0>(a[0].topk(1, 0, false)); }},
  };
  for (const Case& c : cases) {
    for (bool transposed : {false, true}) {
      INFO(c.name << (transposed ? " transposed" : ""));
      std::vector<Tensor> in;
      for (const auto& s : c.shapes) in.push_back(leaf(s, transposed));
      CHECK(grad_fn_name(c.fn(in)) == c.name);
      CHECK(autograd::gradcheck(c.fn, in));
    }
  }
  // sort: each gradient goes back to where its value came from.
  const Tensor x = tensor({3.0, 1.0, 2.0}, f64()).requires_grad_();
  std::get<0>(x.sort()).mul(tensor({10.0, 20.0, 30.0}, f64())).sum().backward();
  CHECK(x.grad().allclose(tensor({30.0, 10.0, 20.0}, f64())));
  // cat of float32 and float64: each input's gradient in its own dtype.
  const Tensor f = randn({2}).requires_grad_(), d = randn({2}, f64()).requires_grad_();
  cat({f, d}).sum().backward();
  CHECK(f.grad().dtype() == kFloat);
  CHECK(d.grad().dtype() == kDouble);
}

TEST_CASE("products and joins: out= refuses inputs that require grad", "[autograd]") {
  const Tensor m = randn({3, 3}).requires_grad_(), v = randn({3}).requires_grad_();
  const Tensor b = randn({2, 3, 3}).requires_grad_();
  const Tensor o = empty({0});
  const std::vector<std::pair<std::string, std::function<void()>>> cases = {
      {"mm", [&] { mm_out(o, m, m); }},
      {"bmm", [&] { bmm_out(o, b, b); }},
      {"mv", [&] { mv_out(o, m, v); }},
      {"dot", [&] { dot_out(o, v, v); }},
      {"mul", [&] { outer_out(o, v, v); }},
      {"mul", [&] { ger_out(o, v, v); }},
      {"addmm", [&] { addmm_out(o, m, m, m); }},
      {"addmv", [&] { addmv_out(o, v, m, v); }},
      {"addbmm", [&] { addbmm_out(o, m, b, b); }},
      {"baddbmm", [&] { baddbmm_out(o, b, b, b); }},
      {"mm", [&] { matmul_out(o, m, m); }},
      {"dot", [&] { matmul_out(o, v, v); }},
      {"mv", [&] { matmul_out(o, m, v); }},
      {"bmm", [&] { matmul_out(o, b, b); }},
      {"cat",
       [&] {
         cat_out(o, {m.detach(), m});
       }},
      {"stack",
       [&] {
         stack_out(o, {m, m});
       }},
  };
  for (const auto& [name, f] : cases) {
    INFO(name);
    CHECK_THROWS_WITH(f(), name +
                               "(): functions with out=... arguments don't support automatic "
                               "differentiation, but one of the arguments requires grad.");
  }
  CHECK(mm_out(o, m.detach(), m.detach()).sizes() == IntArrayRef({3, 3}));
}

TEST_CASE("a two-layer MLP trains", "[autograd]") {
  // x @ w1 + b1 -> relu -> @ w2 + b2 -> log_softmax -> negative log-likelihood of class 0.
  const Tensor x = randn({8, 4}, f64());
  const Tensor w1 = randn({4, 16}, f64()).mul(0.5).requires_grad_();
  const Tensor b1 = zeros({16}, f64()).requires_grad_();
  const Tensor w2 = randn({16, 3}, f64()).mul(0.5).requires_grad_();
  const Tensor b2 = zeros({3}, f64()).requires_grad_();
  const Fn loss_fn = [&](const std::vector<Tensor>& p) {
    const Tensor h = x.mm(p[0]).add(p[1]).relu();
    const Tensor logits = p[2].t().matmul(h.t()).t().add(p[3]);
    return logits.log_softmax(1).select(1, 0).mean().neg();
  };
  const std::vector<Tensor> params = {w1, b1, w2, b2};
  CHECK(autograd::gradcheck(loss_fn, params));
  const Tensor before = loss_fn(params);
  before.backward();
  for (const Tensor& p : params) REQUIRE(p.grad().defined());
  {
    NoGradGuard no_grad;
    for (const Tensor& p : params) p.sub_(p.grad().mul(0.1));
  }
  const Tensor after = loss_fn(params);
  CHECK(after.item<double>() < before.item<double>());
}

}  // namespace autograd_linalg_grad_test
