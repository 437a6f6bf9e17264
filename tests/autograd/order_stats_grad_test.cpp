// Gradients of the order statistics (ops/order_stats.hpp): PyTorch 1.13's node names, gradcheck
// on contiguous and transposed leaves (distinct values, so no tie sits at a selected element),
// median()'s even split among equal elements, and quantile's composite graph.
#include <tensorplay/autograd/gradcheck.hpp>
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace autograd_order_stats_grad_test {

using namespace tensorplay;

namespace {
using Fn = std::function<Tensor(const Tensor&)>;
std::string name_of(const Tensor& t) { return t.grad_fn() ? t.grad_fn()->name() : "None"; }
Tensor dbl(std::vector<double> v) { return tensor(v, kDouble); }
// A [3, 4] float64 leaf, contiguous or a transpose, with distinct values.
std::vector<Tensor> layouts() {
  return {arange(12, kDouble).mul(5).remainder(12).reshape({3, 4}).div(3).requires_grad_(),
          arange(12, kDouble).mul(7).remainder(12).reshape({4, 3}).div(3).t().requires_grad_()};
}
}  // namespace

TEST_CASE("node names", "[autograd][order_stats]") {
  const Tensor x = dbl({3, 1, 2, 5, 4}).requires_grad_();
  CHECK(name_of(std::get<0>(kthvalue(x, 2))) == "KthvalueBackward0");
  CHECK(name_of(std::get<1>(kthvalue(x, 2))) == "None");
  CHECK(name_of(median(x)) == "MedianBackward0");
  CHECK(name_of(std::get<0>(median(x, 0))) == "MedianBackward1");
  CHECK(name_of(nanmedian(x)) == "NanmedianBackward0");
  CHECK(name_of(std::get<0>(nanmedian(x, 0))) == "NanmedianBackward1");
  CHECK(name_of(std::get<0>(mode(x))) == "ModeBackward0");
  for (const char* how : {"linear", "midpoint"}) {
    const Tensor q = quantile(x, 0.3, std::nullopt, false, how);
    CHECK(name_of(q) == "SqueezeBackward3");
    CHECK(q.grad_fn()->next_edges()[0].function->name() == "LerpBackward1");
  }
  for (const char* how : {"lower", "higher", "nearest"}) {
    const Tensor q = nanquantile(x, 0.3, std::nullopt, false, how);
    CHECK(name_of(q) == "SqueezeBackward3");
    CHECK(q.grad_fn()->next_edges()[0].function->name() == "GatherBackward0");
  }
  CHECK(name_of(quantile(x, dbl({0.3, 0.5}), 0)) == "SqueezeBackward3");
}

TEST_CASE("gradcheck", "[autograd][order_stats]") {
  const Tensor q = dbl({0.2, 0.5, 1});
  const std::vector<std::pair<const char*, Fn>> cases = {
      {"kthvalue", [](const Tensor& t) { return std::get<0>(t.kthvalue(2, 1)); }},
      {"kthvalue keepdim", [](const Tensor& t) { return std::get<0>(t.kthvalue(3, 0, true)); }},
      {"median", [](const Tensor& t) { return t.median(); }},
      {"median dim", [](const Tensor& t) { return std::get<0>(t.median(0)); }},
      {"nanmedian", [](const Tensor& t) { return t.nanmedian(); }},
      {"nanmedian dim", [](const Tensor& t) { return std::get<0>(t.nanmedian(1, true)); }},
      {"mode", [](const Tensor& t) { return std::get<0>(t.mode(1)); }},
      {"quantile", [](const Tensor& t) { return t.quantile(0.3); }},
      {"quantile dim", [q](const Tensor& t) { return t.quantile(q, 1, true); }},
      {"quantile midpoint", [q](const Tensor& t) { return t.quantile(q, 0, false, "midpoint"); }},
      {"nanquantile nearest",
       [](const Tensor& t) { return t.nanquantile(0.4, 1, false, "nearest"); }},
  };
  for (const auto& [what, fn] : cases) {
    for (const Tensor& leaf : layouts()) {
      INFO(what << (leaf.is_contiguous() ? "" : " (transposed)"));
      CHECK(autograd::gradcheck([&](const std::vector<Tensor>& v) { return fn(v[0]); }, {leaf}));
    }
  }
}

TEST_CASE("gradient values", "[autograd][order_stats]") {
  // median(): shared evenly among the elements equal to it (torch's evenly_distribute_backward)
  const Tensor x = dbl({2, 1, 2, 3}).requires_grad_();
  x.median().backward();
  CHECK(x.grad().equal(dbl({0.5, 0, 0.5, 0})));
  // a NaN median: among the NaNs
  const Tensor y = dbl({NAN, 1, NAN}).requires_grad_();
  y.median().backward();
  CHECK(y.grad().equal(dbl({0.5, 0, 0.5})));
  // median(dim): to the index only
  const Tensor z = dbl({2, 1, 2, 3}).requires_grad_();
  std::get<0>(z.median(0)).backward();
  CHECK(z.grad().equal(dbl({1, 0, 0, 0})));
  // mode: to the last index of the mode
  const Tensor w = dbl({1, 2, 2, 1, 3}).requires_grad_();
  std::get<0>(w.mode()).backward();
  CHECK(w.grad().equal(dbl({0, 0, 0, 1, 0})));
  // quantile linear: the weights of the two neighbours
  const Tensor u = dbl({3, 1, 2, 5, 4}).requires_grad_();
  u.quantile(0.3).backward();
  CHECK(u.grad().allclose(dbl({0.2, 0, 0.8, 0, 0})));
  // ...and q's gradient through the weights (linear only; torch 1.13's values)
  const Tensor q = dbl({0.3, 0.6}).requires_grad_();
  quantile(dbl({3, 1, 2, 5, 4}), q).sum().backward();
  CHECK(q.grad().allclose(dbl({4, 4})));
  CHECK_FALSE(quantile(dbl({3, 1, 2}), q, std::nullopt, false, "lower").requires_grad());
  CHECK(autograd::gradcheck(
      [](const std::vector<Tensor>& v) { return quantile(v[0], v[1], 1); },
      {arange(12, kDouble).mul(5).remainder(12).reshape({3, 4}).requires_grad_(),
       dbl({0.1, 0.45, 0.8}).requires_grad_()}));
}

}  // namespace autograd_order_stats_grad_test
