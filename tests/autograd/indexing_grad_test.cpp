// Gradients of the index families (autograd/functions/indexing.hpp): gradcheck of every op with
// respect to each differentiable operand on contiguous, transposed and broadcast (expanded)
// leaves, second derivatives through the gather/scatter_add pair, PyTorch 1.13's node names, the
// NotImplemented node of scatter(reduce=), and scatter_reduce's tie rule.
#include <tensorplay/autograd/gradcheck.hpp>
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

namespace autograd_indexing_grad_test {

using namespace tensorplay;

namespace {
using Fn2 = std::function<Tensor(const Tensor&, const Tensor&)>;
Tensor lng(std::vector<int64_t> v) { return tensor(v, kLong); }
std::string name_of(const Tensor& t) { return t.grad_fn() ? t.grad_fn()->name() : "None"; }

// Three layouts of a float64 [3, 4] leaf with distinct values: contiguous, a transpose, and a
// broadcast row (a stride-0 leaf, whose gradient sums over the broadcast dimension).
std::vector<Tensor> layouts34() {
  return {randn({3, 4}, kDouble).requires_grad_(), randn({4, 3}, kDouble).t().requires_grad_(),
          randn({1, 4}, kDouble).requires_grad_()};
}
Tensor shape34(const Tensor& x) { return x.expand({3, 4}); }

struct Case {
  const char* what;
  Fn2 fn;  // (self, other): other is a [3, 4] float64 leaf, for ops with two operands
};
}  // namespace

TEST_CASE("gradcheck through every index op", "[autograd][indexing]") {
  const Tensor idx = lng({0, 2, 1, 2, 0, 0, 1, 1}).reshape({2, 4});  // repeats within lines
  const Tensor col = lng({3, 0, 3});
  const std::vector<Case> cases = {
      {"gather", [&](const Tensor& a, const Tensor&) { return shape34(a).gather(0, idx); }},
      {"scatter src",
       [&](const Tensor& a, const Tensor& b) {
         return shape34(a).scatter(0, lng({0, 2, 1, 2}).reshape({1, 4}), b);
       }},
      {"scatter value",
       [&](const Tensor& a, const Tensor&) {
         return shape34(a).scatter(1, idx.t().narrow(0, 0, 3), 2.5);
       }},
      {"scatter_add",
       [&](const Tensor& a, const Tensor& b) { return shape34(a).scatter_add(0, idx, b); }},
      {"scatter_reduce sum",
       [&](const Tensor& a, const Tensor& b) {
         return shape34(a).scatter_reduce(0, idx, b, "sum");
       }},
      {"scatter_reduce mean",
       [&](const Tensor& a, const Tensor& b) {
         return shape34(a).scatter_reduce(0, idx, b, "mean");
       }},
      {"scatter_reduce mean, no self",
       [&](const Tensor& a, const Tensor& b) {
         return shape34(a).scatter_reduce(0, idx, b, "mean", false);
       }},
      {"scatter_reduce prod",
       [&](const Tensor& a, const Tensor& b) {
         return shape34(a).scatter_reduce(0, idx, b, "prod");
       }},
      {"scatter_reduce prod, no self",
       [&](const Tensor& a, const Tensor& b) {
         return shape34(a).scatter_reduce(0, idx, b, "prod", false);
       }},
      {"scatter_reduce amax",
       [&](const Tensor& a, const Tensor& b) {
         return shape34(a).scatter_reduce(0, idx, b, "amax");
       }},
      {"scatter_reduce amin, no self",
       [&](const Tensor& a, const Tensor& b) {
         return shape34(a).scatter_reduce(0, idx, b, "amin", false);
       }},
      {"index_select",
       [&](const Tensor& a, const Tensor&) { return shape34(a).index_select(1, col); }},
      {"index_add",
       [&](const Tensor& a, const Tensor& b) {
         return shape34(a).index_add(1, col, b.narrow(1, 0, 3), 1.5);
       }},
      {"index_copy",
       [&](const Tensor& a, const Tensor& b) {
         return shape34(a).index_copy(1, lng({3, 0}), b.narrow(1, 1, 2));
       }},
      {"take",
       [&](const Tensor& a, const Tensor&) {
         return shape34(a).take(lng({11, 0, 5, 5}));
       }},
      {"put",
       [&](const Tensor& a, const Tensor& b) {
         return shape34(a).put(lng({7, 1}), b[0].narrow(0, 0, 2));
       }},
      {"put accumulate",
       [&](const Tensor& a, const Tensor& b) {
         return shape34(a).put(lng({7, 7, 1}), b[1].narrow(0, 0, 3), true);
       }},
      {"masked_select",
       [&](const Tensor& a, const Tensor&) {
         return shape34(a).masked_select(tensor({true, false, true, true}));
       }},
      {"masked_scatter",
       [&](const Tensor& a, const Tensor& b) {
         return shape34(a).masked_scatter(tensor({true, false, true, false}), b);
       }},
      {"index_put accumulate",
       [&](const Tensor& a, const Tensor& b) {
         std::vector<indexing::TensorIndex> list = {indexing::TensorIndex(lng({2, 0, 2}))};
         return shape34(a).index_put(list, b.narrow(0, 0, 3), true);
       }},
  };
  for (const Case& c : cases) {
    for (const Tensor& a : layouts34()) {
      for (const Tensor& b :
           {randn({3, 4}, kDouble).requires_grad_(), randn({4, 3}, kDouble).t().requires_grad_()}) {
        INFO(c.what << ", self " << a.sizes() << " strides " << a.strides() << ", other strides "
                    << b.strides());
        CHECK(autograd::gradcheck([&](const std::vector<Tensor>& in) { return c.fn(in[0], in[1]); },
                                  {a, b}));
      }
    }
  }
}

TEST_CASE("second derivatives: gather and scatter_add are each other's gradient",
          "[autograd][indexing]") {
  const Tensor idx = lng({0, 2, 1, 2, 0, 0}).reshape({2, 3});
  for (const Tensor& a :
       {randn({3, 3}, kDouble).requires_grad_(), randn({3, 3}, kDouble).t().requires_grad_()}) {
    // d/da of (grad of sum(gather(a)^2)) exists: the backward is differentiable.
    CHECK(autograd::gradcheck(
        [&](const std::vector<Tensor>& in) {
          AutoGradMode on(true);  // gradcheck runs its function under no_grad
          const Tensor y = in[0].gather(0, idx);
          return autograd::grad({y.mul(y).sum()}, {in[0]}, {}, true, true)[0];
        },
        {a}));
    CHECK(autograd::gradcheck(
        [&](const std::vector<Tensor>& in) {
          AutoGradMode on(true);
          const Tensor y = in[0].index_select(0, lng({2, 2, 0}));
          return autograd::grad({y.mul(y).sum()}, {in[0]}, {}, true, true)[0];
        },
        {a}));
  }
}

TEST_CASE("index ops record PyTorch's node names", "[autograd][indexing]") {
  const Tensor x = randn({2, 3}, kDouble).requires_grad_();
  const Tensor s = randn({2, 2}, kDouble).requires_grad_();
  const Tensor i = lng({0, 1, 1, 0}).reshape({2, 2});
  CHECK(name_of(x.gather(1, i)) == "GatherBackward0");
  CHECK(name_of(x.scatter(1, i, s)) == "ScatterBackward0");
  CHECK(name_of(x.scatter(1, i, 2.0)) == "ScatterBackward1");
  CHECK(name_of(x.scatter(1, i, s, "add")) == "tensorplay::autograd::NotImplemented");
  CHECK(name_of(x.scatter_add(1, i, s)) == "ScatterAddBackward0");
  CHECK(name_of(x.scatter_reduce(1, i, s, "prod")) == "ScatterReduceBackward0");
  CHECK(name_of(x.index_select(1, lng({0}))) == "IndexSelectBackward0");
  CHECK(name_of(x.index_add(1, lng({0, 1}), s)) == "IndexAddBackward0");
  CHECK(name_of(x.index_copy(1, lng({0, 1}), s)) == "IndexCopyBackward0");
  CHECK(name_of(x.take(lng({0, 1}))) == "TakeBackward0");
  CHECK(name_of(x.put(lng({0, 1}), s[0])) == "PutBackward0");
  CHECK(name_of(x.masked_select(x.gt(0))) == "MaskedSelectBackward0");
  // (a source of 8 elements: the mask may select all 6 of x's)
  CHECK(name_of(x.masked_scatter(x.gt(0), s.reshape({-1}).repeat({2}))) ==
        "MaskedScatterBackward0");
  std::vector<indexing::TensorIndex> list = {indexing::TensorIndex(lng({0}))};
  CHECK(name_of(x.index_put(list, s[0][0], true)) == "IndexPutBackward0");
  // in place on a non-leaf
  Tensor y = x.mul(1);
  y.scatter_add_(1, i, s);
  CHECK(name_of(y) == "ScatterAddBackward0");
  // integer results have no history
  CHECK(name_of(x.nonzero()) == "None");
}

TEST_CASE("scatter with reduce= has no derivative, as in PyTorch", "[autograd][indexing]") {
  const Tensor x = randn({2, 3}, kDouble).requires_grad_();
  const Tensor r = x.scatter(1, lng({0, 1, 1, 0}).reshape({2, 2}), 2.0, "multiply");
  CHECK_THROWS_WITH(r.sum().backward(), "derivative for aten::scatter is not implemented");
}

TEST_CASE("scatter_reduce amax/amin share the gradient among ties", "[autograd][indexing]") {
  // torch 1.13's values: x = [[0, 1, 2], [3, 4, 5]], src = 3 everywhere.
  const Tensor x = arange(6, kDouble).reshape({2, 3}).requires_grad_();
  const Tensor s = ones({2, 2}, kDouble).requires_grad_();
  const Tensor r = x.scatter_reduce(1, lng({0, 1, 1, 0}).reshape({2, 2}), s.mul(3), "amax");
  r.sum().backward();
  CHECK(x.grad().allclose(tensor({0.0, 0.0, 1.0, 0.5, 1.0, 1.0}, kDouble).reshape({2, 3})));
  CHECK(s.grad().allclose(tensor({3.0, 3.0, 0.0, 1.5}, kDouble).reshape({2, 2})));
  // Without include_self, self takes no part: src gets the whole gradient even where self holds
  // the same value (PyTorch 1.13 counted self among the ties and gave src half).
  const Tensor a = tensor({5.0, 0.0}, kDouble).reshape({1, 2}).requires_grad_();
  const Tensor b = tensor({5.0}, kDouble).reshape({1, 1}).requires_grad_();
  a.scatter_reduce(1, lng({0}).reshape({1, 1}), b, "amax", false).sum().backward();
  CHECK(a.grad().allclose(tensor({0.0, 1.0}, kDouble).reshape({1, 2})));
  CHECK(b.grad().allclose(tensor({1.0}, kDouble).reshape({1, 1})));
}

TEST_CASE("scatter_reduce prod with zeros (torch 1.13's values)", "[autograd][indexing]") {
  const Tensor x = tensor({2.0, 2.0}, kDouble).reshape({1, 2}).requires_grad_();
  const Tensor s = tensor({0.0, 3.0, 4.0}, kDouble).reshape({1, 3}).requires_grad_();
  const Tensor r = x.scatter_reduce(1, lng({0, 0, 1}).reshape({1, 3}), s, "prod");
  CHECK(r.allclose(tensor({0.0, 8.0}, kDouble).reshape({1, 2})));
  r.sum().backward();
  CHECK(x.grad().allclose(tensor({0.0, 4.0}, kDouble).reshape({1, 2})));
  CHECK(s.grad().allclose(tensor({6.0, 0.0, 2.0}, kDouble).reshape({1, 3})));
  // two zeros at one position: every gradient there is zero
  const Tensor y = tensor({0.0, 2.0}, kDouble).reshape({1, 2}).requires_grad_();
  const Tensor t = tensor({0.0, 3.0, 0.0}, kDouble).reshape({1, 3}).requires_grad_();
  y.scatter_reduce(1, lng({0, 0, 1}).reshape({1, 3}), t, "prod").sum().backward();
  CHECK(y.grad().allclose(tensor({0.0, 0.0}, kDouble).reshape({1, 2})));
  CHECK(t.grad().allclose(tensor({0.0, 0.0, 2.0}, kDouble).reshape({1, 3})));
}

TEST_CASE("in-place index ops on leaves are refused", "[autograd][indexing]") {
  const Tensor x = randn({2, 3}, kDouble).requires_grad_();
  const char* msg = "a leaf Variable that requires grad is being used in an in-place operation.";
  CHECK_THROWS_WITH(x.scatter_(1, lng({0}).reshape({1, 1}), 1.0), msg);
  CHECK_THROWS_WITH(x.index_add_(0, lng({0}), ones({1, 3}, kDouble)), msg);
  CHECK_THROWS_WITH(x.put_(lng({0}), ones({1}, kDouble)), msg);
  CHECK_THROWS_WITH(x.masked_scatter_(x.gt(0), x.detach()), msg);
  // a saved index modified in place is caught at backward
  Tensor idx = lng({0, 1});
  const Tensor r = x.index_select(1, idx);
  idx.add_(0);
  CHECK_THROWS_WITH(r.sum().backward(), Catch::Contains("modified by an inplace operation"));
}

}  // namespace autograd_indexing_grad_test
