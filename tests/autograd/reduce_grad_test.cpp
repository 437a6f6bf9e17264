// Gradients of the reductions, scans and softmax: gradcheck over every op on contiguous,
// transposed and broadcast inputs, hand-checked values, node names (PyTorch 1.13's), dtypes and
// the out= refusals.
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include "grad_test_util.hpp"

#include <cmath>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

namespace autograd_reduce_grad_test {

using namespace tensorplay;
using namespace tensorplay::testing;

namespace {

struct Case {
  const char* name;  // expected grad_fn name
  Fn fn;
};

}  // namespace

TEST_CASE("reductions: gradcheck and node names", "[autograd]") {
  const std::vector<Case> cases = {
      {"SumBackward0", [](auto& a) { return a[0].sum(); }},
      {"SumBackward1", [](auto& a) { return a[0].sum(IntArrayRef{0}); }},
      {"MeanBackward0", [](auto& a) { return a[0].mean(); }},
      {"MeanBackward1",
       [](auto& a) {
         return a[0].mean({0, 1});
       }},
      {"ProdBackward0", [](auto& a) { return a[0].prod(); }},
      {"ProdBackward1", [](auto& a) { return a[0].prod(1); }},
      {"AmaxBackward0", [](auto& a) { return a[0].amax(IntArrayRef{1}); }},
      {"AminBackward0", [](auto& a) { return a[0].amin(); }},
      {"MaxBackward1", [](auto& a) { return a[0].max(); }},
      {"MinBackward1", [](auto& a) { return a[0].min(); }},
      {"MaxBackward0", [](auto& a) { return std::get<0>(a[0].max(0)); }},
      {"MinBackward0", [](auto& a) { return std::get<0>(a[0].min(-1)); }},
      {"VarBackward0", [](auto& a) { return a[0].var(); }},
      {"VarBackward0", [](auto& a) { return a[0].var(IntArrayRef{1}, int64_t{0}); }},
      {"StdBackward0", [](auto& a) { return a[0].std(IntArrayRef{0}); }},
      {"StdBackward0", [](auto& a) { return tensorplay::std(a[0], IntArrayRef{1}, int64_t{2}); }},
      {"NormBackward0", [](auto& a) { return a[0].norm(); }},
      {"NormBackward0", [](auto& a) { return a[0].norm(1); }},
      {"NormBackward0", [](auto& a) { return a[0].norm(3.5); }},
      {"NormBackward1", [](auto& a) { return a[0].norm(2, IntArrayRef{1}); }},
      {"NormBackward1", [](auto& a) { return a[0].norm(INFINITY, IntArrayRef{0}); }},
      {"NormBackward2", [](auto& a) { return a[0].norm(3, kDouble); }},
      {"NormBackward3", [](auto& a) { return a[0].norm(2, IntArrayRef{0}, false, kDouble); }},
      {"LogsumexpBackward0", [](auto& a) { return a[0].logsumexp(IntArrayRef{1}); }},
      {"CumsumBackward0", [](auto& a) { return a[0].cumsum(0); }},
      {"CumsumBackward0", [](auto& a) { return a[0].cumsum(-1); }},
      {"CumprodBackward0", [](auto& a) { return a[0].cumprod(1); }},
      {"SoftmaxBackward0", [](auto& a) { return a[0].softmax(1); }},
      {"SoftmaxBackward0", [](auto& a) { return softmax(a[0], 0); }},
      {"LogSoftmaxBackward0", [](auto& a) { return a[0].log_softmax(-1); }},
  };
  for (const Case& c : cases) {
    for (bool transposed : {false, true}) {
      INFO(c.name << (transposed ? " transposed" : ""));
      const Tensor x = leaf({3, 4}, transposed);
      CHECK(grad_fn_name(c.fn({x})) == c.name);
      CHECK(autograd::gradcheck(c.fn, {x}));
    }
    // Broadcast: the op sees x + y ([3, 1] + [1, 4]); the engine sums each gradient back.
    INFO(c.name << " broadcast");
    Fn bf = [&](const std::vector<Tensor>& a) { return c.fn({a[0].add(a[1])}); };
    CHECK(autograd::gradcheck(bf, {leaf({3, 1}), leaf({1, 4})}));
  }
}

TEST_CASE("reductions: keepdim and 3-d inputs", "[autograd]") {
  for (bool keepdim : {false, true}) {
    INFO("keepdim " << keepdim);
    const std::vector<Fn> fns = {
        [=](auto& a) {
          return a[0].sum({0, 2}, keepdim);
        },
        [=](auto& a) { return a[0].mean(IntArrayRef{-1}, keepdim); },
        [=](auto& a) { return a[0].prod(1, keepdim); },
        [=](auto& a) {
          return a[0].amax({0, 2}, keepdim);
        },
        [=](auto& a) { return std::get<0>(a[0].max(1, keepdim)); },
        [=](auto& a) { return std::get<0>(a[0].min(2, keepdim)); },
        [=](auto& a) {
          return a[0].var({0, 2}, true, keepdim);
        },
        [=](auto& a) { return a[0].std(IntArrayRef{1}, true, keepdim); },
        [=](auto& a) {
          return a[0].norm(2, {1, 2}, keepdim);
        },
        [=](auto& a) {
          return a[0].logsumexp({0, 1}, keepdim);
        },
    };
    for (std::size_t i = 0; i < fns.size(); ++i) {
      INFO("case " << i);
      CHECK(autograd::gradcheck(fns[i], {leaf({2, 3, 4})}));
    }
  }
}

TEST_CASE("reductions: hand-checked gradients", "[autograd]") {
  const Tensor x = tensor({1.0, 2.0, 3.0, 4.0}, f64()).reshape({2, 2}).detach().requires_grad_();
  x.sum().backward();
  CHECK(x.grad().equal(ones({2, 2}, f64())));
  x.mutable_grad() = Tensor();
  x.mean().backward();
  CHECK(x.grad().allclose(full({2, 2}, 0.25, f64())));
  x.mutable_grad() = Tensor();
  x.mean(IntArrayRef{1}).sum().backward();
  CHECK(x.grad().allclose(full({2, 2}, 0.5, f64())));
  x.mutable_grad() = Tensor();
  x.prod().backward();  // 24 / x
  CHECK(x.grad().allclose(tensor({24.0, 12.0, 8.0, 6.0}, f64()).reshape({2, 2})));

  // softmax([0, ln 3]) = [1/4, 3/4]; d(y0)/dx = y0 * (e0 - y) = [3/16, -3/16].
  const Tensor s = tensor({0.0, std::log(3.0)}, f64()).requires_grad_();
  s.softmax(0).select(0, 0).backward();
  CHECK(s.grad().allclose(tensor({3.0 / 16, -3.0 / 16}, f64())));

  // Ties share the gradient evenly: max, amax; max(dim) picks the first index.
  const Tensor t = tensor({1.0, 3.0, 3.0, 2.0}, f64()).requires_grad_();
  t.max().backward();
  CHECK(t.grad().allclose(tensor({0.0, 0.5, 0.5, 0.0}, f64())));
  t.mutable_grad() = Tensor();
  t.amax().backward();
  CHECK(t.grad().allclose(tensor({0.0, 0.5, 0.5, 0.0}, f64())));
  t.mutable_grad() = Tensor();
  std::get<0>(t.max(0)).backward();
  CHECK(t.grad().allclose(tensor({0.0, 1.0, 0.0, 0.0}, f64())));

  // prod with zeros: one zero gets the product of the others, two zeros give zeros.
  const Tensor z = tensor({2.0, 0.0, 3.0}, f64()).requires_grad_();
  z.prod().backward();
  CHECK(z.grad().allclose(tensor({0.0, 6.0, 0.0}, f64())));
  const Tensor zz = tensor({0.0, 5.0, 0.0}, f64()).requires_grad_();
  zz.prod().backward();
  CHECK(zz.grad().allclose(zeros({3}, f64())));
  const Tensor zc = tensor({2.0, 0.0, 3.0, 4.0}, f64()).requires_grad_();
  zc.cumprod(0).sum().backward();  // d/dx_k sum_j prod_{i<=j}: [1, 2 + 6 + 24, 0, 0]
  CHECK(zc.grad().allclose(tensor({1.0, 32.0, 0.0, 0.0}, f64())));
  CHECK(autograd::gradcheck(
      [](auto& a) { return a[0].prod(0); },
      {tensor({2.0, 0.0, 3.0, 0.0, 1.0, 4.0}, f64()).reshape({3, 2}).requires_grad_()}));
  CHECK(autograd::gradcheck(
      [](auto& a) { return a[0].cumprod(1); },
      {tensor({2.0, 0.0, 3.0, 0.0, 0.0, 4.0}, f64()).reshape({2, 3}).requires_grad_()}));
}

TEST_CASE("reductions: dtypes, integer outputs, sum_to_size", "[autograd]") {
  const Tensor x = randn({3, 4}).requires_grad_();  // float32
  x.softmax(1).mul(x).sum().backward();
  CHECK(x.grad().dtype() == kFloat);
  x.mutable_grad() = Tensor();
  x.mean(kDouble).backward();  // a float64 result, a float32 gradient
  CHECK(x.grad().dtype() == kFloat);
  CHECK(x.grad().allclose(full({3, 4}, 1.0 / 12)));
  x.mutable_grad() = Tensor();
  x.cumsum(1, kDouble).sum().backward();
  CHECK(x.grad().dtype() == kFloat);

  // argmax / argmin and max(dim)'s indices have no history.
  CHECK_FALSE(x.argmax().requires_grad());
  CHECK_FALSE(x.argmin(1).requires_grad());
  const auto [values, indices] = x.max(1);
  CHECK(values.requires_grad());
  CHECK_FALSE(indices.requires_grad());
  CHECK_FALSE(std::get<1>(x.sort(0)).requires_grad());

  // sum_to_size: libtorch's sum_to, a plain SumBackward1 where no leading dims go.
  const Tensor y = leaf({2, 3, 4});
  CHECK(y.sum_to_size({3, 4}).sizes() == IntArrayRef({3, 4}));
  CHECK(y.sum_to_size({3, 1}).allclose(y.sum({0, 2}).unsqueeze(1)));
  CHECK(grad_fn_name(y.sum_to_size({1, 3, 1})) == "SumBackward1");
  CHECK(y.sum_to_size({2, 3, 4}).is_same(y));
  CHECK(autograd::gradcheck([](auto& a) { return a[0].sum_to_size({3, 1}); }, {leaf({2, 3, 4})}));
  CHECK_THROWS_WITH(randn({4, 3}).sum_to_size({2, 3}),
                    "size {[2, 3]} is not expandable to size {[4, 3]}.");
  CHECK_THROWS_WITH(randn({4, 3}).sum_to_size({4, 3, 1}),
                    "size {[4, 3, 1]} is not expandable to size {[4, 3]}.");
}

TEST_CASE("reductions: var_mean and std_mean", "[autograd]") {
  CHECK(autograd::gradcheck(
      [](auto& a) {
        const auto [v, m] = var_mean(a[0], IntArrayRef{1});
        return v.add(m.mul(3.0));
      },
      {leaf({3, 4})}));
  CHECK(autograd::gradcheck(
      [](auto& a) {
        const auto [s, m] = std_mean(a[0]);
        return s.mul(m);
      },
      {leaf({3, 4})}));
}

TEST_CASE("reductions: in-place scans record", "[autograd]") {
  CHECK(autograd::gradcheck(
      [](auto& a) {
        Tensor t = a[0].mul(1.0);
        t.cumsum_(1);
        return t;
      },
      {leaf({3, 4})}));
  CHECK(autograd::gradcheck(
      [](auto& a) {
        Tensor t = a[0].mul(1.0);
        t.cumprod_(0);
        return t;
      },
      {leaf({3, 4})}));
}

TEST_CASE("reductions: out= refuses inputs that require grad", "[autograd]") {
  const Tensor x = randn({3, 4}).requires_grad_();
  const Tensor o = empty({0});
  const Tensor i = empty({0}, TensorOptions().dtype(kLong));
  const std::vector<std::pair<std::string, std::function<void()>>> cases = {
      {"sum", [&] { sum_out(o, x, IntArrayRef{1}); }},
      {"mean", [&] { mean_out(o, x, IntArrayRef{1}); }},
      {"prod", [&] { prod_out(o, x, 1); }},
      {"amax", [&] { amax_out(o, x, IntArrayRef{1}); }},
      {"amin", [&] { amin_out(o, x, IntArrayRef{1}); }},
      {"max", [&] { max_out(o, i, x, 1); }},
      {"min", [&] { min_out(o, i, x, 1); }},
      {"var", [&] { var_out(o, x, IntArrayRef{1}); }},
      {"std", [&] { std_out(o, x, IntArrayRef{1}); }},
      {"norm", [&] { norm_out(o, x, 2, IntArrayRef{1}); }},
      {"logsumexp", [&] { logsumexp_out(o, x, IntArrayRef{1}); }},
      {"cumsum", [&] { cumsum_out(o, x, 1); }},
      {"cumprod", [&] { cumprod_out(o, x, 1); }},
      {"_softmax", [&] { softmax_out(o, x, 1); }},
      {"_log_softmax", [&] { log_softmax_out(o, x, 1); }},
  };
  for (const auto& [name, f] : cases) {
    INFO(name);
    CHECK_THROWS_WITH(f(), name +
                               "(): functions with out=... arguments don't support automatic "
                               "differentiation, but one of the arguments requires grad.");
  }
  // Without grad the out= forms work; argmax (no derivative) takes any input.
  CHECK(sum_out(o, x.detach(), IntArrayRef{1}).sizes() == IntArrayRef({3}));
  CHECK(argmax_out(i, x, 1).sizes() == IntArrayRef({3}));
}

TEST_CASE("reductions: second derivatives", "[autograd]") {
  // H v from the formulas' own graph (create_graph) against central differences of the
  // gradient along v, for ops whose formulas differentiate again.
  const std::vector<Fn> fns = {
      [](auto& a) { return a[0].softmax(1).mul(a[0]).sum(); },
      [](auto& a) { return a[0].log_softmax(0).mul(a[0]).sum(); },
      [](auto& a) { return a[0].prod(1).sum(); },
      [](auto& a) { return a[0].var(IntArrayRef{1}).mul(a[0].mean()).sum(); },
      [](auto& a) { return a[0].norm(3).add(a[0].logsumexp(IntArrayRef{0}).sum()); },
      [](auto& a) { return a[0].cumprod(1).sum(); },
      [](auto& a) { return std::get<0>(a[0].max(1)).pow(2).sum(); },
  };
  const Tensor x0 = randn({2, 3}, f64()), v = randn({2, 3}, f64());
  auto grad_at = [&](const Fn& f, const Tensor& at, bool create) {
    const Tensor x = at.detach().requires_grad_();
    return std::make_pair(x, autograd::grad({f({x})}, {x}, {}, std::nullopt, create)[0]);
  };
  for (std::size_t i = 0; i < fns.size(); ++i) {
    INFO("case " << i);
    const auto [x, g] = grad_at(fns[i], x0, true);
    REQUIRE(g.requires_grad());
    const Tensor hv = autograd::grad({g.mul(v).sum()}, {x})[0];
    const double eps = 1e-6;
    const Tensor gp = grad_at(fns[i], x0.add(v.mul(eps)), false).second;
    const Tensor gm = grad_at(fns[i], x0.sub(v.mul(eps)), false).second;
    CHECK(hv.allclose(gp.sub(gm).div(2 * eps), 1e-4, 1e-5));
  }
}

TEST_CASE("reductions: a NaN gradient stays where max()/min() took their value", "[autograd]") {
  // torch 1.13: min()/max() over everything fill the gradient in (NaN only at the arg-min);
  // amin/amax multiply by the mask (NaN everywhere); min(dim) scatters to its index.
  const auto nan_at = [](const Tensor& g) {
    std::vector<bool> out;
    const Tensor c = g.contiguous();
    for (int64_t i = 0; i < c.numel(); ++i) out.push_back(std::isnan(c.data_ptr<float>()[i]));
    return out;
  };
  Tensor x = tensor({1.0f, -2.0f, 3.0f}).requires_grad_();
  x.min().sqrt().backward();
  CHECK(nan_at(x.grad()) == std::vector<bool>{false, true, false});
  CHECK(x.grad()[0].item<float>() == 0.0f);
  x = tensor({-3.0f, -1.0f, -2.0f}).requires_grad_();
  x.max().sqrt().backward();
  CHECK(nan_at(x.grad()) == std::vector<bool>{false, true, false});
  x = tensor({1.0f, -2.0f, 3.0f}).requires_grad_();
  x.amin().sqrt().backward();
  CHECK(nan_at(x.grad()) == std::vector<bool>{true, true, true});
}

}  // namespace autograd_reduce_grad_test
