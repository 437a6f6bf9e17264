// Autograd through the shape ops (ops/shape_ops.hpp, ops/shape_join.hpp,
// autograd/functions/shape.hpp): gradcheck on contiguous, transposed and broadcast (expanded)
// inputs, gradients of gradients, PyTorch 1.13's node names (checked against torch 1.13), and
// the in-place tril_/triu_ rules.
#include <tensorplay/autograd/gradcheck.hpp>
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

namespace autograd_shape_grad_test {

using namespace tensorplay;

namespace {

using Fn = std::function<Tensor(const Tensor&)>;

std::string name_of(const Tensor& t) { return t.grad_fn() ? t.grad_fn()->name() : "None"; }

// The three layouts each op is checked on, all of shape (3, 4): a contiguous leaf, a transposed
// leaf, and a (1, 4) leaf expanded inside the function (its gradient sums over the rows).
struct Input {
  const char* what;
  Tensor leaf;
  Fn view;
};
std::vector<Input> inputs() {
  return {
      {"contiguous", randn({3, 4}, kDouble).requires_grad_(), [](const Tensor& x) { return x; }},
      {"transposed", randn({4, 3}, kDouble).t().detach().requires_grad_(),
       [](const Tensor& x) { return x; }},
      {"expanded", randn({1, 4}, kDouble).requires_grad_(),
       [](const Tensor& x) {
         return x.expand({3, 4});
       }},
  };
}

Tensor lng(std::vector<int64_t> v) { return tensor(v, kLong); }

// The gradient of fn at x for the incoming gradient w, with its graph: gradcheck of it with
// respect to w checks that each backward formula is itself differentiable (double backward).
// gradcheck evaluates its function under no_grad for the finite differences: grad mode is
// turned back on here, as the function needs a graph to differentiate.
Tensor grad_of(const Fn& fn, const Tensor& x, const Tensor& w) {
  AutoGradMode enable(true);
  return autograd::grad({fn(x)}, {x}, {w}, true, true)[0];
}

}  // namespace

TEST_CASE("gradcheck through every shape op", "[autograd][shape]") {
  struct Case {
    const char* what;
    Fn fn;
  };
  const Tensor other = randn({3, 4}, kDouble);
  const std::vector<Case> cases = {
      {"flip",
       [](const Tensor& x) {
         return x.flip({0, 1});
       }},
      {"flip one dim", [](const Tensor& x) { return x.flip({-1}); }},
      {"fliplr", [](const Tensor& x) { return x.fliplr(); }},
      {"flipud", [](const Tensor& x) { return flipud(x); }},
      {"roll",
       [](const Tensor& x) {
         return x.roll({1, -1}, {0, 1});
       }},
      {"roll flattened", [](const Tensor& x) { return x.roll({5}); }},
      {"rot90", [](const Tensor& x) { return x.rot90(); }},
      {"rot90 k=2", [](const Tensor& x) { return x.rot90(2); }},
      {"rot90 k=-1 dims swapped",
       [](const Tensor& x) {
         return x.rot90(-1, {1, 0});
       }},
      {"repeat",
       [](const Tensor& x) {
         return x.repeat({2, 1, 2});
       }},
      {"tile", [](const Tensor& x) { return x.tile({2}); }},
      {"repeat_interleave scalar", [](const Tensor& x) { return x.repeat_interleave(2, 1); }},
      {"repeat_interleave flat", [](const Tensor& x) { return x.repeat_interleave(2); }},
      {"repeat_interleave tensor",
       [](const Tensor& x) {
         return x.repeat_interleave(lng({2, 0, 3}), 0);
       }},
      {"tril", [](const Tensor& x) { return x.tril(); }},
      {"tril -1", [](const Tensor& x) { return tril(x, -1); }},
      {"triu 1", [](const Tensor& x) { return x.triu(1); }},
      {"tril_",
       [](const Tensor& x) {
         Tensor c = x.mul(2);
         c.tril_(1);
         return c;
       }},
      {"triu_ through a view",
       [](const Tensor& x) {
         Tensor c = x.clone();
         c.narrow(1, 1, 3).triu_();
         return c;
       }},
      {"diag of a matrix", [](const Tensor& x) { return x.diag(1); }},
      {"diag of a vector", [](const Tensor& x) { return x.select(0, 1).diag(-1); }},
      {"diag_embed", [](const Tensor& x) { return x.diag_embed(1, 0, 2); }},
      {"diagflat", [](const Tensor& x) { return x.diagflat(); }},
      {"trace", [](const Tensor& x) { return x.trace(); }},
      {"broadcast_to",
       [](const Tensor& x) {
         return x.broadcast_to({2, 3, 4});
       }},
      {"broadcast_tensors",
       [](const Tensor& x) {
         auto b = broadcast_tensors({x.select(0, 0), x.narrow(0, 0, 2).unsqueeze(1)});
         return b[0].mul(b[1]);
       }},
      {"meshgrid",
       [](const Tensor& x) {
         auto g = meshgrid({x.select(0, 0), x.select(1, 1)}, "xy");
         return g[0].mul(g[1]);
       }},
      {"atleast_3d", [](const Tensor& x) { return atleast_3d(x); }},
      {"hstack",
       [](const Tensor& x) {
         return hstack({x, x.mul(2)});
       }},
      {"vstack",
       [](const Tensor& x) {
         return vstack({x.select(0, 0), x});
       }},
      {"dstack",
       [](const Tensor& x) {
         return dstack({x, x});
       }},
      {"column_stack",
       [](const Tensor& x) {
         return column_stack({x.select(1, 0), x});
       }},
      {"block_diag",
       [](const Tensor& x) {
         return block_diag({x, x.select(0, 2), x.select(0, 0).select(0, 1)});
       }},
      {"cross", [](const Tensor& x) { return x.cross(x.flip({0}).mul(2), 0); }},
      {"linalg_cross broadcast",
       [](const Tensor& x) {
         return linalg_cross(x.narrow(1, 0, 3), x.narrow(0, 0, 1).narrow(1, 1, 3));
       }},
      {"kron", [&](const Tensor& x) { return kron(x, other.narrow(0, 0, 2)); }},
      {"kron of ranks 2 and 1", [&](const Tensor& x) { return x.kron(x.select(0, 1)); }},
      {"tensordot", [&](const Tensor& x) { return tensordot(x, other.t(), {1}, {0}); }},
      {"tensordot two dims",
       [&](const Tensor& x) {
         return tensordot(x, other, {0, 1}, {0, 1});
       }},
  };
  for (const Input& in : inputs()) {
    for (const Case& c : cases) {
      INFO(c.what << " (" << in.what << ")");
      CHECK(autograd::gradcheck([&](const std::vector<Tensor>& v) { return c.fn(in.view(v[0])); },
                                {in.leaf}));
    }
  }
}

TEST_CASE("gradients of the shape ops' gradients", "[autograd][shape]") {
  const std::vector<Fn> fns = {
      [](const Tensor& x) { return x.flip({1}); },
      [](const Tensor& x) { return x.roll({1}, {1}); },
      [](const Tensor& x) { return x.rot90(); },
      [](const Tensor& x) {
        return x.repeat({2, 2});
      },
      [](const Tensor& x) {
        return x.repeat_interleave(lng({1, 2, 0}), 0);
      },
      [](const Tensor& x) { return x.tril(); },
      [](const Tensor& x) { return x.triu(-1); },
      [](const Tensor& x) { return x.diag(); },
      [](const Tensor& x) { return x.select(0, 0).diag(); },
      [](const Tensor& x) { return x.diag_embed(); },
      [](const Tensor& x) { return x.trace().mul(x.sum()); },
      [](const Tensor& x) {
        return block_diag({x, x.select(0, 0)});
      },
      [](const Tensor& x) { return linalg_cross(x.narrow(1, 0, 3), x.narrow(1, 1, 3)); },
  };
  for (std::size_t i = 0; i < fns.size(); ++i) {
    INFO("function " << i);
    const Tensor x = randn({3, 4}, kDouble).requires_grad_();
    const Tensor w = randn(fns[i](x).sizes(), kDouble).requires_grad_();
    CHECK(autograd::gradcheck(
        [&](const std::vector<Tensor>& v) { return grad_of(fns[i], x, v[0]); }, {w}));
  }
}

TEST_CASE("shape ops record PyTorch's node names", "[autograd][shape]") {
  const Tensor a = randn({3, 4}, kDouble).requires_grad_();
  const Tensor b = randn({3, 4}, kDouble).requires_grad_();
  const Tensor v = randn({3}, kDouble).requires_grad_();
  const Tensor c = randn({4, 3}, kDouble).requires_grad_();
  struct Case {
    const char* expected;
    Tensor t;
  };
  Tensor in_place = a.mul(1);
  in_place.tril_();
  Tensor in_place_u = a.mul(1);
  in_place_u.triu_(1);
  const std::vector<Case> cases = {
      {"RepeatBackward0", a.repeat({2, 1, 1})},
      {"RepeatBackward0", a.tile({2})},
      {"IndexSelectBackward0", a.repeat_interleave(2, 0)},
      {"IndexSelectBackward0", a.repeat_interleave(2)},
      {"IndexSelectBackward0", a.repeat_interleave(lng({1, 2, 0}), 0)},
      {"FlipBackward0", a.flip({0})},
      {"FlipBackward0", a.fliplr()},
      {"FlipBackward0", a.flipud()},
      {"RollBackward0", a.roll({1}, {0})},
      {"RollBackward0", a.roll({1})},
      {"Rot90Backward0", a.rot90()},
      {"Rot90Backward0", a.rot90(2)},
      {"Rot90Backward0", a.rot90(0)},
      {"TrilBackward0", a.tril()},
      {"TriuBackward0", a.triu()},
      {"TrilBackward0", in_place},
      {"TriuBackward0", in_place_u},
      {"DiagBackward0", v.diag()},
      {"DiagBackward0", a.diag()},
      {"DiagEmbedBackward0", a.diag_embed()},
      {"DiagBackward0", a.diagflat()},
      {"DiagBackward0", v.diagflat()},
      {"TraceBackward0", a.trace()},
      {"ReshapeAliasBackward0", tensordot(a, c, {1}, {0})},
      {"UnsafeViewBackward0", kron(a, b)},
      {"LinalgCrossBackward0", c.cross(c, 1)},
      {"LinalgCrossBackward0", linalg_cross(c, c)},
      {"LinalgCrossBackward0", cross(c, c)},
      {"ExpandBackward0", a.broadcast_to({2, 3, 4})},
      {"ExpandBackward0", broadcast_tensors({a, v.unsqueeze(1)})[1]},
      {"None", broadcast_tensors({a, v.unsqueeze(1)})[0]},
      {"ExpandBackward0", meshgrid({v, v}, "ij")[0]},
      {"BlockDiagBackward0", block_diag({a, b})},
      {"BlockDiagBackward0", block_diag({a})},
      {"None", atleast_1d(a)},
      {"UnsqueezeBackward0", atleast_2d(v)},
      {"UnsqueezeBackward0", atleast_3d(a)},
      {"UnsqueezeBackward0", atleast_3d(v)},
      {"CatBackward0", hstack({a, b})},
      {"CatBackward0", hstack({v, v})},
      {"CatBackward0", vstack({v, v})},
      {"CatBackward0", dstack({a, b})},
      {"CatBackward0", column_stack({v, v})},
      {"CatBackward0", column_stack({a, a})},
      {"SliceBackward0", a.tensor_split(2)[1]},
      {"SliceBackward0", a.hsplit(2)[0]},
      {"SplitWithSizesBackward0", a.split(IntArrayRef{1, 2})[1]},
  };
  for (const Case& k : cases) {
    INFO(k.expected);
    CHECK(name_of(k.t) == k.expected);
  }
  // The double-backward nodes of repeat_interleave's pair.
  const Tensor r = a.repeat_interleave(2, 0);
  const Tensor g = grad_of([](const Tensor& x) { return x.repeat_interleave(2, 0); }, a,
                           randn(r.sizes(), kDouble).requires_grad_());
  CHECK(name_of(g) == "IndexAddBackward0");
  // Integral results carry no history.
  CHECK(name_of(a.trace()) == "TraceBackward0");
  CHECK_FALSE(repeat_interleave(lng({1, 2})).requires_grad());
}

TEST_CASE("tril_ and triu_ follow the in-place rules", "[autograd][shape]") {
  const Tensor leaf = randn({3, 3}, kDouble).requires_grad_();
  REQUIRE_THROWS_WITH(leaf.tril_(),
                      "a leaf Variable that requires grad is being used in an in-place operation.");
  REQUIRE_THROWS_WITH(leaf.narrow(0, 0, 2).triu_(),
                      "a view of a leaf Variable that requires "
                      "grad is being used in an in-place operation.");
  // Through a view: the base's history becomes CopySlices, the gradient is masked.
  Tensor base = leaf.mul(1);
  base.narrow(1, 1, 2).tril_();
  CHECK(name_of(base) == "CopySlices");
  base.sum().backward();
  const Tensor expected = tensor(std::vector<double>{1, 1, 0, 1, 1, 1, 1, 1, 1}, kDouble);
  CHECK(leaf.grad().reshape({9}).equal(expected));
  // An integral tensor's tril_ records nothing and bumps its version.
  Tensor ints = arange(9, kLong).reshape({3, 3});
  const auto v0 = ints._version();
  ints.triu_();
  CHECK(ints._version() == v0 + 1);
  CHECK(ints.sum().item<int64_t>() == 0 + 1 + 2 + 4 + 5 + 8);
}

}  // namespace autograd_shape_grad_test
