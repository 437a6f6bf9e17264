// Autograd through views, copies and indexing (ops/as_strided.hpp, ops/views.hpp, ops/copy.hpp,
// ops/indexing.hpp, autograd/functions/views.hpp): gradcheck through every view op on
// contiguous and transposed inputs, PyTorch 1.13's node names, in-place writes through views
// (CopySlices and the regenerated view nodes), the in-place view ops, copy_/fill_/zero_, index
// and index_put_, and detach. Every expected value and message was checked against torch 1.13.
#include <tensorplay/autograd/gradcheck.hpp>
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace autograd_views_grad_test {

using namespace tensorplay;
using indexing::Slice;

namespace {

using Fn = std::function<Tensor(const Tensor&)>;

std::string name_of(const Tensor& t) { return t.grad_fn() ? t.grad_fn()->name() : "None"; }

Tensor dbl(std::vector<double> v, IntArrayRef shape) { return tensor(v, kDouble).reshape(shape); }
Tensor lng(std::vector<int64_t> v) { return tensor(v, kLong); }

// a = [[0, .1, .2], [.3, .4, .5]], a leaf that requires grad (not a view: cloned after reshape).
Tensor leaf23() { return arange(6, kDouble).div(10).reshape({2, 3}).clone().requires_grad_(); }

bool close(const Tensor& a, const Tensor& b) {
  return a.defined() && a.sizes() == b.sizes() && a.allclose(b, 1e-6, 1e-9);
}

const char* kLeafMsg = "a leaf Variable that requires grad is being used in an in-place operation.";
const char* kViewOfLeafMsg =
    "a view of a leaf Variable that requires grad is being used in an in-place operation.";

}  // namespace

TEST_CASE("gradcheck through every view, copy and indexing op", "[autograd]") {
  struct Case {
    const char* what;
    Fn fn;
  };
  const Tensor mask = tensor({true, false, true}, kBool);
  const std::vector<Case> cases = {
      {"select", [](const Tensor& x) { return x.select(1, -1); }},
      {"operator[]", [](const Tensor& x) { return x[2]; }},
      {"slice step", [](const Tensor& x) { return x.slice(1, 1, 4, 2); }},
      {"narrow", [](const Tensor& x) { return x.narrow(0, 1, 2); }},
      {"transpose", [](const Tensor& x) { return x.transpose(0, 1); }},
      {"transpose same dim", [](const Tensor& x) { return x.transpose(1, 1); }},
      {"t", [](const Tensor& x) { return x.t(); }},
      {"permute",
       [](const Tensor& x) {
         return x.unsqueeze(0).permute({2, 0, 1});
       }},
      {"movedim", [](const Tensor& x) { return x.movedim(0, 1); }},
      {"view",
       [](const Tensor& x) {
         return x.view({3, 2, 2});
       }},
      {"reshape (view or copy)", [](const Tensor& x) { return x.reshape({12}); }},
      {"flatten", [](const Tensor& x) { return x.flatten(); }},
      {"unflatten",
       [](const Tensor& x) {
         return x.unflatten(1, {2, 2});
       }},
      {"expand",
       [](const Tensor& x) {
         return x.expand({2, 3, 4});
       }},
      {"expand size 1",
       [](const Tensor& x) {
         return x.select(1, 0).unsqueeze(1).expand({3, 5});
       }},
      {"squeeze", [](const Tensor& x) { return x.unsqueeze(1).squeeze(); }},
      {"squeeze dim", [](const Tensor& x) { return x.unsqueeze(0).squeeze(0); }},
      {"unsqueeze", [](const Tensor& x) { return x.unsqueeze(-1); }},
      {"diagonal", [](const Tensor& x) { return x.diagonal(); }},
      {"diagonal offset", [](const Tensor& x) { return x.diagonal(1); }},
      {"diagonal swapped dims", [](const Tensor& x) { return x.diagonal(-1, 1, 0); }},
      {"unfold overlapping", [](const Tensor& x) { return x.unfold(1, 2, 1); }},
      {"unfold dim 0", [](const Tensor& x) { return x.unfold(0, 2, 1); }},
      {"as_strided overlapping",
       [](const Tensor& x) {
         return x.as_strided({3, 3}, {1, 1}, x.storage_offset());
       }},
      {"as_strided zero stride",
       [](const Tensor& x) {
         return x.as_strided({2, 3}, {0, 1}, x.storage_offset() + 1);
       }},
      {"as_strided of a view",
       [](const Tensor& x) {
         return x.select(1, 1).as_strided({2}, {x.stride(0)},
                                          x.storage_offset() + x.stride(1) + x.stride(0));
       }},
      {"alias", [](const Tensor& x) { return x.index({"..."}); }},
      {"split",
       [](const Tensor& x) {
         auto p = x.split(2, 1);
         return p[0].mul(2).add(p[1]);
       }},
      {"split, one piece used", [](const Tensor& x) { return x.split(2, 0)[1]; }},
      {"split_with_sizes",
       [](const Tensor& x) {
         return x.split_with_sizes({1, 3}, 1)[1];
       }},
      {"chunk", [](const Tensor& x) { return x.chunk(2, 1)[1]; }},
      {"unbind",
       [](const Tensor& x) {
         auto p = x.unbind(1);
         return p[3].mul(3).add(p[0]);
       }},
      {"index repeated",
       [](const Tensor& x) {
         return x.index({lng({2, 0, 2})});
       }},
      {"index after slice",
       [](const Tensor& x) {
         return x.index({Slice(1), lng({3, 3, 0})});
       }},
      {"index two tensors",
       [](const Tensor& x) {
         return x.index({lng({0, 2}), lng({1, 1})});
       }},
      {"index mask", [&](const Tensor& x) { return x.index({mask}); }},
      {"index_put_",
       [](const Tensor& x) {
         Tensor c = x.clone();
         c.index_put_({lng({0, 2})}, x.narrow(0, 1, 2).mul(3));
         return c;
       }},
      {"index_put_ through slices",
       [](const Tensor& x) {
         Tensor c = x.clone();
         c.index_put_({Slice(), lng({1, 3})}, x.select(1, 0).unsqueeze(1));
         return c;
       }},
      {"clone", [](const Tensor& x) { return x.clone(); }},
      {"contiguous", [](const Tensor& x) { return x.contiguous(); }},
      {"copy_ into a view",
       [](const Tensor& x) {
         Tensor c = x.clone();
         c.select(0, 1).copy_(x.select(0, 0).mul(2));
         return c;
       }},
      {"exp_ through a view",
       [](const Tensor& x) {
         Tensor c = x.clone();
         c[1].exp_();
         return c;
       }},
      {"exp_ through a view of a view",
       [](const Tensor& x) {
         Tensor c = x.clone();
         c.select(0, 1).slice(0, 1, 3).exp_();
         return c;
       }},
      {"exp_ through a transposed view",
       [](const Tensor& x) {
         Tensor c = x.clone();
         c.t().select(0, 2).exp_();
         return c;
       }},
      {"sibling view after exp_",
       [](const Tensor& x) {
         Tensor c = x.clone();
         Tensor s = c.select(1, 0);
         c.select(0, 0).exp_();
         return s;
       }},
      {"fill_ through a view",
       [](const Tensor& x) {
         Tensor c = x.clone();
         c.select(1, 2).fill_(2);
         return c;
       }},
      {"zero_ through a view",
       [](const Tensor& x) {
         Tensor c = x.clone();
         c.slice(0, 0, 2).zero_();
         return c;
       }},
      {"transpose_",
       [](const Tensor& x) {
         Tensor c = x.clone();
         c.transpose_(0, 1);
         return c;
       }},
      {"t_ on a view",
       [](const Tensor& x) {
         Tensor c = x.clone().narrow(1, 1, 2);
         c.t_();
         return c;
       }},
      {"squeeze_ / unsqueeze_",
       [](const Tensor& x) {
         Tensor c = x.clone();
         c.unsqueeze_(0).unsqueeze_(2).squeeze_(0);
         return c;
       }},
      {"as_strided_",
       [](const Tensor& x) {
         Tensor c = x.clone();
         c.as_strided_({2, 2}, {1, 2});
         return c;
       }},
  };
  const Tensor contiguous = randn({3, 4}, kDouble).requires_grad_();
  const Tensor transposed = randn({4, 3}, kDouble).t().requires_grad_();
  for (const Case& c : cases) {
    for (const Tensor& x : {contiguous, transposed}) {
      INFO(c.what << (x.is_contiguous() ? " (contiguous)" : " (transposed)"));
      CHECK(autograd::gradcheck([&](const std::vector<Tensor>& in) { return c.fn(in[0]); }, {x}));
    }
  }
}

TEST_CASE("view ops record PyTorch's node names", "[autograd]") {
  const Tensor a = randn({3, 4}, kDouble).requires_grad_();
  const Tensor s = randn({3}, kDouble).requires_grad_();
  struct Case {
    const char* expected;
    Tensor t;
  };
  const std::vector<Case> cases = {
      {"SelectBackward0", a.select(0, 1)},
      {"SelectBackward0", a[0]},
      {"SliceBackward0", a.slice(0, 1)},
      {"SliceBackward0", a.narrow(0, 1, 1)},
      {"TBackward0", a.t()},
      {"TBackward0", s.t()},
      {"TransposeBackward0", a.transpose(0, 1)},
      {"TransposeBackward0", a.transpose(0, 0)},
      {"TransposeBackward0", a.swapaxes(0, 1)},
      {"TransposeBackward0", a.mT()},
      {"PermuteBackward0", a.permute({1, 0})},
      {"PermuteBackward0", a.movedim(0, 1)},
      {"PermuteBackward0", a.movedim(0, 0)},
      {"AliasBackward0", s[0].movedim(0, 0)},
      {"ViewBackward0", a.view({12})},
      {"ViewBackward0", a.view_as(a)},
      {"ViewBackward0", a.unflatten(1, {2, 2})},
      {"ReshapeAliasBackward0", a.reshape({12})},
      {"ReshapeAliasBackward0", a.flatten()},
      {"ReshapeAliasBackward0", s[0].flatten()},
      {"UnsafeViewBackward0", a.t().reshape({12})},
      {"UnsafeViewBackward0", a.t().flatten()},
      {"ExpandBackward0", a.slice(0, 0, 1).expand({3, 4})},
      {"ExpandBackward0", a.expand_as(a)},
      {"SqueezeBackward0", a.squeeze()},
      {"SqueezeBackward1", a.squeeze(0)},
      {"SqueezeBackward1", a.unsqueeze(0).squeeze(0)},
      {"UnsqueezeBackward0", a.unsqueeze(0)},
      {"UnsqueezeBackward0", s[0].unsqueeze(0)},
      {"DiagonalBackward0", a.diagonal()},
      {"UnfoldBackward0", a.unfold(1, 2, 1)},
      {"AsStridedBackward0", a.as_strided({2}, {1})},
      {"AliasBackward0", a.alias()},
      {"AliasBackward0", s.index({"..."})},
      {"SliceBackward0", s.index({Slice()})},
      {"UnsqueezeBackward0", s.index({indexing::None})},
      {"IndexBackward0", a.index({lng({0, 1})})},
      {"IndexBackward0", a.index({tensor({true, false, true}, kBool)})},
      {"CloneBackward0", a.clone()},
      {"CloneBackward0", a.t().contiguous()},
      {"ToCopyBackward0", a.to(kFloat)},
      {"SplitBackward0", a.split(2)[1]},
      {"SplitBackward0", a.chunk(2)[0]},
      {"SplitWithSizesBackward0", a.split_with_sizes({1, 2})[0]},
      {"UnbindBackward0", a.unbind()[2]},
  };
  for (const Case& c : cases) {
    INFO(c.expected);
    CHECK(name_of(c.t) == c.expected);
  }
  // The next node of a copying reshape is the clone.
  CHECK(a.t().reshape({12}).grad_fn()->next_edge(0).function->name() == "CloneBackward0");
  // Nothing to do, nothing recorded: the very tensor comes back.
  CHECK(a.contiguous().is_same(a));
  CHECK(a.to(kDouble).is_same(a));
  CHECK(s.flatten().is_same(s));
  // A dtype view is not differentiable (PyTorch: no grad_fn, requires_grad false).
  CHECK_FALSE(a.view(kLong).requires_grad());
  // Views of tensors that do not require grad, and views under no_grad, have no history; the
  // latter still require grad through their base (PyTorch's DifferentiableViewMeta).
  CHECK_FALSE(randn({3}).select(0, 1).requires_grad());
  {
    NoGradGuard no_grad;
    CHECK(a.select(0, 1).requires_grad());
    CHECK(a.select(0, 1).grad_fn() == nullptr);
    CHECK(a.clone().grad_fn() == nullptr);
  }
  // as_strided reaching past its input (here a row of `a`): elements outside the input get no
  // gradient, as in PyTorch.
  const Tensor r = a.detach().clone().requires_grad_();
  r.select(0, 1).as_strided({6}, {1}).sum().backward();
  CHECK(close(r.grad(), dbl({0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0}, {3, 4})));
  // Multi-output views share one node; each piece is its own output of it.
  const std::vector<Tensor> pieces = a.unbind(1);
  for (std::size_t i = 0; i < pieces.size(); ++i) {
    CHECK(pieces[i].grad_fn() == pieces[0].grad_fn());
    CHECK(pieces[i].output_nr() == static_cast<int64_t>(i));
    CHECK(pieces[i]._base().is_same(a));
  }
  // A view of a view records its own node, but its base is the root.
  const Tensor vv = a.select(0, 1).slice(0, 1);
  CHECK(vv._base().is_same(a));
  CHECK(vv.grad_fn()->next_edge(0).function->name() == "SelectBackward0");
}

TEST_CASE("in-place writes through views rewrite the base's history", "[autograd]") {
  const double e1 = std::exp(0.1), e2 = std::exp(0.2);
  SECTION("base, view and sibling view after exp_") {
    const Tensor a = leaf23();
    const Tensor b = a.clone();
    const Tensor s = b.select(1, 0);  // made before the write, overlapping it
    const Tensor v = b[0];
    v.exp_();
    CHECK(name_of(b) == "CopySlices");
    CHECK(name_of(v) == "AsStridedBackward0");
    CHECK(name_of(s) == "AsStridedBackward0");
    CHECK(b.grad_fn()->next_edge(0).function->name() == "CloneBackward0");
    CHECK(v.grad_fn()->next_edge(0).function == b.grad_fn());

    s.sum().backward(Tensor(), /*retain_graph=*/true);
    CHECK(close(a.grad(), dbl({1, 0, 0, 1, 0, 0}, {2, 3})));
    a.mutable_grad() = Tensor();
    v.sum().backward(Tensor(), true);
    CHECK(close(a.grad(), dbl({1, e1, e2, 0, 0, 0}, {2, 3})));
    a.mutable_grad() = Tensor();
    b.sum().backward(Tensor(), true);
    CHECK(close(a.grad(), dbl({1, e1, e2, 1, 1, 1}, {2, 3})));
  }
  SECTION("a view of a view") {
    const Tensor a = leaf23();
    const Tensor b = a.clone();
    const Tensor w = b[0].slice(0, 1);
    CHECK(name_of(w) == "SliceBackward0");
    w.exp_();
    CHECK(name_of(b) == "CopySlices");
    CHECK(name_of(w) == "AsStridedBackward0");
    b.sum().backward();
    CHECK(close(a.grad(), dbl({1, e1, e2, 1, 1, 1}, {2, 3})));
  }
  SECTION("copy_ of a tensor that requires grad into a view") {
    const Tensor a = leaf23();
    const Tensor w = dbl({5, 7}, {2}).requires_grad_();
    const Tensor b = a.clone();
    const Tensor v = b.select(1, 1);
    v.copy_(w.mul(1));
    CHECK(name_of(b) == "CopySlices");
    CHECK(name_of(v) == "AsStridedBackward0");
    b.mul(arange(6, kDouble).reshape({2, 3})).sum().backward();
    CHECK(close(a.grad(), dbl({0, 0, 2, 3, 0, 5}, {2, 3})));
    CHECK(close(w.grad(), dbl({1, 4}, {2})));
    CHECK(close(b.detach(), dbl({0, 5, .2, .3, 7, .5}, {2, 3})));
  }
  SECTION("setting elements: select + fill_, and index_put_") {
    const Tensor a = leaf23();
    Tensor c = a.clone();
    c.index_put_({0}, 5);
    CHECK(name_of(c) == "CopySlices");
    c.sum().backward();
    CHECK(close(a.grad(), dbl({0, 0, 0, 1, 1, 1}, {2, 3})));
    c = a.clone();
    c.index_put_({lng({0})}, ones({3}, kDouble));
    CHECK(name_of(c) == "IndexPutBackward0");
    const Tensor vals = ones({3}, kDouble).requires_grad_();
    c = a.clone();
    c.index_put_({lng({1, 1})}, vals);
    CHECK(name_of(c) == "IndexPutBackward0");
    c.sum().backward();
    CHECK(close(vals.grad(), dbl({2, 2, 2}, {3})));  // written twice, both count
  }
  SECTION("the leaf rules") {
    const Tensor a = leaf23();
    CHECK_THROWS_WITH(a[0].exp_(), kViewOfLeafMsg);
    CHECK_THROWS_WITH(a.select(1, 0).copy_(zeros({2}, kDouble)), kViewOfLeafMsg);
    CHECK_THROWS_WITH(a.index_put_({0, lng({1})}, 1.0), kViewOfLeafMsg);
    CHECK_THROWS_WITH(a.copy_(zeros({2, 3}, kDouble)), kLeafMsg);
    CHECK_THROWS_WITH(a.fill_(1), kLeafMsg);
    CHECK_THROWS_WITH(a.zero_(), kLeafMsg);
    CHECK_THROWS_WITH(a.index_put_({lng({0})}, 1.0), kLeafMsg);
    CHECK(a._version() == 0);
    {
      NoGradGuard no_grad;  // PyTorch's way to initialise a leaf in place
      a[0].fill_(1);
      a.zero_();
    }
    CHECK(a._version() == 2);
    CHECK(a.is_leaf());
  }
}

TEST_CASE("copies: copy_, fill_, zero_, to, clone", "[autograd]") {
  // copy_ into a tensor that does not require grad: it now does, through CopyBackwards; the
  // gradient goes back summed to the source's shape and in its dtype.
  const Tensor x = zeros({3});
  const Tensor y = ones({1}, kDouble).requires_grad_();
  x.copy_(y);
  CHECK(name_of(x) == "CopyBackwards");
  CHECK(x.dtype() == kFloat);
  x.sum().backward();
  CHECK(y.grad().dtype() == kDouble);
  CHECK(close(y.grad(), dbl({3}, {1})));
  // The overwritten value gets no gradient.
  const Tensor a = leaf23();
  Tensor c = a.clone();
  c.copy_(y.mul(2));
  c.sum().backward();
  CHECK(close(a.grad(), zeros({2, 3}, kDouble)));
  c = a.clone();
  c.fill_(2);
  CHECK(name_of(c) == "FillBackward2");
  c = a.clone();
  c.zero_();
  CHECK(name_of(c) == "ZeroBackward0");
  // to() converts the gradient back to the input's dtype.
  const Tensor f = a.to(kFloat);
  f.sum().backward();
  CHECK(a.grad().dtype() == kDouble);
  CHECK(close(a.grad(), ones({2, 3}, kDouble)));
}

TEST_CASE("in-place view ops", "[autograd]") {
  const Tensor a = leaf23();
  struct Case {
    const char* expected;
    std::function<const Tensor&(const Tensor&)> op;
  };
  const std::vector<Case> cases = {
      {"TransposeBackward1", [](const Tensor& t) -> const Tensor& { return t.transpose_(0, 1); }},
      {"TBackward1", [](const Tensor& t) -> const Tensor& { return t.t_(); }},
      {"SqueezeBackward2", [](const Tensor& t) -> const Tensor& { return t.squeeze_(); }},
      {"SqueezeBackward3", [](const Tensor& t) -> const Tensor& { return t.squeeze_(0); }},
      {"UnsqueezeBackward1", [](const Tensor& t) -> const Tensor& { return t.unsqueeze_(0); }},
      {"AsStridedBackward1",
       [](const Tensor& t) -> const Tensor& { return t.as_strided_({2}, {1}); }},
  };
  for (const Case& c : cases) {
    INFO(c.expected);
    CHECK_THROWS_WITH(c.op(a), kLeafMsg);
    CHECK_THROWS_WITH(c.op(a.slice(0, 0)), kViewOfLeafMsg);
    const Tensor b = a.clone();
    CHECK(c.op(b).is_same(b));
    CHECK(name_of(b) == c.expected);
    CHECK(b._version() == 1);
    CHECK(b.grad_fn()->next_edge(0).function->name() == "CloneBackward0");
    // On a view: the view's own history; the base's is untouched (no element changed).
    const Tensor base = a.clone();
    const Tensor v = base.slice(0, 0);
    c.op(v);
    CHECK(name_of(v) == c.expected);
    CHECK(v.grad_fn()->next_edge(0).function->name() == "SliceBackward0");
    CHECK(name_of(base) == "CloneBackward0");
  }
  CHECK(a._version() == 0);
  const Tensor b = a.clone();
  b.t_();
  b.mul(arange(6, kDouble).reshape({3, 2})).sum().backward();
  CHECK(close(a.grad(), dbl({0, 2, 4, 1, 3, 5}, {2, 3})));
}

TEST_CASE("detach and detach_ under autograd", "[autograd]") {
  const Tensor x = randn({3}, kDouble).requires_grad_();
  const Tensor y = x.exp();
  const Tensor d = y.detach();
  CHECK_FALSE(d.requires_grad());
  CHECK(d.is_leaf());
  CHECK_FALSE(d.is_view());
  d.add_(1);  // shares the version counter: the saved result is now stale
  CHECK(y._version() == 1);
  CHECK_THROWS_WITH(y.sum().backward(),
                    Catch::Matchers::StartsWith(
                        "one of the variables needed for gradient computation has been modified "
                        "by an inplace operation: [tensorplay.DoubleTensor [3]], which is output 0 "
                        "of ExpBackward0, is at version 1; expected version 0 instead."));
  // detach_ on a non-leaf: a leaf that does not require grad; no version bump.
  Tensor z = x.mul(2);
  z.detach_();
  CHECK(z.is_leaf());
  CHECK_FALSE(z.requires_grad());
  CHECK(z._version() == 0);
  // On a leaf: it keeps its gradient.
  Tensor w = randn({2}, kDouble).requires_grad_();
  w.sum().backward();
  w.detach_();
  CHECK_FALSE(w.requires_grad());
  CHECK(close(w.grad(), ones({2}, kDouble)));
  // Views refuse, whether or not they require grad.
  Tensor v = x.select(0, 0);
  CHECK_THROWS_WITH(v.detach_(), Catch::StartsWith("Can't detach views in-place. Use detach() instead. If you are using"));
  Tensor u = zeros({3}).select(0, 0);
  CHECK_THROWS_WITH(u.detach_(), Catch::StartsWith("Can't detach views in-place. Use detach() instead. If you are using"));
}

TEST_CASE("gradients of view gradients (create_graph)", "[autograd]") {
  const Tensor x = randn({3, 4}, kDouble).requires_grad_();
  const std::vector<Fn> views = {
      [](const Tensor& t) { return t.select(0, 1); },
      [](const Tensor& t) { return t.unfold(1, 2, 1); },
      [](const Tensor& t) {
        return t.slice(1, 0, 1).expand({2, 3, 5});
      },
      [](const Tensor& t) { return t.split(3, 1)[1]; },
      [](const Tensor& t) {
        return t.index({lng({2, 2})});
      },
      [](const Tensor& t) {
        return t.as_strided({2, 2}, {0, 1});
      },
  };
  for (std::size_t i = 0; i < views.size(); ++i) {
    INFO("view " << i);
    const Tensor y = views[i](x);
    const Tensor go = randn(y.sizes(), kDouble).requires_grad_();
    const Tensor g = autograd::grad({y}, {x}, {go}, true, true)[0];
    REQUIRE(g.requires_grad());
    // g is linear in go: d(sum(g * r))/d(go) is the view of r.
    const Tensor r = randn({3, 4}, kDouble);
    const Tensor gg = autograd::grad({g.mul(r).sum()}, {go})[0];
    CHECK(close(gg, views[i](r).contiguous()));
  }
}

TEST_CASE("as_strided of an input whose elements overlap refuses to differentiate", "[autograd]") {
  Tensor x = tensor({1.0, 2.0}, dtype(kDouble).requires_grad(true));
  Tensor e = x.expand({3, 2});  // three rows on the same two elements
  Tensor y = e.as_strided({2}, {1}, e.storage_offset());
  CHECK_THROWS_AS(y.sum().backward({}, true), NotImplementedError);
  CHECK_THROWS_WITH(y.sum().backward(),
                    "the derivative of as_strided for an input whose elements overlap in memory "
                    "(e.g. an expanded tensor) is not implemented; call .contiguous() on the "
                    "input first");
  // The workaround: a contiguous input differentiates as usual.
  Tensor z = e.contiguous().as_strided({2}, {1}, 0);
  z.sum().backward();
  CHECK(x.grad().sum().item<double>() == 2.0);
}

// Every view knows its base, whether or not anything requires grad (PyTorch's views): an in-place
// op with a grad-requiring operand through a view of a plain tensor gives the base the history.
// Each expectation below was checked against torch 1.13.
TEST_CASE("autograd through views of tensors that do not require grad", "[autograd]") {
  const auto rg = TensorOptions().dtype(kDouble).requires_grad(true);
  SECTION("x[0] = y * 2 (index_put_) and narrow().mul_(b) give the base CopySlices") {
    const Tensor x = zeros({3}, kDouble);
    const Tensor y = full({}, 1.5, rg);
    x.index_put_({0}, y * 2);
    CHECK(x.requires_grad());
    CHECK(name_of(x) == "CopySlices");
    x.mul(dbl({2, 3, 4}, {3})).sum().backward();
    CHECK(close(y.grad(), full({}, 4.0, kDouble)));

    const Tensor a = tensor({1.0, 2.0, 3.0}, kDouble);  // not a view (dbl() reshapes)
    const Tensor b = full({1}, 5.0, rg);
    a.narrow(0, 1, 1).mul_(b);
    CHECK(name_of(a) == "CopySlices");
    CHECK(close(a.detach(), dbl({1, 10, 3}, {3})));
    a.sum().backward();
    CHECK(close(b.grad(), dbl({2}, {1})));
  }
  SECTION("a view taken before its base joined the graph follows it") {
    const Tensor x = zeros({3}, kDouble);
    const Tensor v = x.select(0, 1);
    CHECK_FALSE(v.requires_grad());
    CHECK(v.grad_fn() == nullptr);
    const Tensor r = ones({3}, rg);
    x.add_(r);
    CHECK(name_of(x) == "AddBackward0");
    CHECK(v.requires_grad());
    CHECK(name_of(v) == "AsStridedBackward0");
    CHECK_FALSE(v.is_leaf());
    v.mul(3).backward();
    CHECK(close(r.grad(), dbl({0, 3, 0}, {3})));
  }
  SECTION("a view taken before its base became a leaf that requires grad") {
    const Tensor x = zeros({3}, kDouble);
    const Tensor v = x[0];
    x.requires_grad_();
    CHECK(v.requires_grad());  // through its base
    CHECK(v.grad_fn() == nullptr);
    CHECK(v.is_leaf());
    CHECK_THROWS_WITH(v.mul_(2), kViewOfLeafMsg);
  }
  SECTION("views made in no-grad or inference mode cannot be modified in place with grad") {
    const char* no_grad_msg =
        "A view was created in no_grad mode and is being modified inplace with grad mode "
        "enabled. Given that this use case is ambiguous and error-prone, it is forbidden. You "
        "can clarify your code by moving both the view and the inplace either both inside the "
        "no_grad block (if you don't want the inplace to be tracked) or both outside (if you "
        "want the inplace to be tracked).";
    const Tensor x = leaf23().clone();
    Tensor v;
    {
      NoGradGuard no_grad;
      v = x.slice(1, 0, 2);
    }
    CHECK(v.requires_grad());
    CHECK(v.grad_fn() == nullptr);
    CHECK_THROWS_WITH(v.mul_(2), no_grad_msg);
    // The same refusal when only the other operand requires grad.
    const Tensor plain = zeros({3}, kDouble);
    Tensor pv;
    {
      NoGradGuard no_grad;
      pv = plain.narrow(0, 0, 2);
    }
    CHECK_THROWS_WITH(pv.mul_(ones({2}, rg)), no_grad_msg);
    CHECK_NOTHROW(pv.mul_(2));  // nothing records: allowed
    {
      NoGradGuard no_grad;
      CHECK_NOTHROW(v.mul_(2));  // both inside the block: allowed
    }
    // Reading grad_fn once the base was modified in place with grad.
    const Tensor y = leaf23().clone();
    Tensor w;
    {
      NoGradGuard no_grad;
      w = y[0];
    }
    y.mul_(2);
    CHECK_THROWS_WITH(w.grad_fn(),
                      "A view was created in no_grad mode and its base or another view of its "
                      "base has been modified inplace with grad mode enabled. Given that this use "
                      "case is ambiguous and error-prone, it is forbidden. You can clarify your "
                      "code by moving both the view and the inplace either both inside the "
                      "no_grad block (if you don't want the inplace to be tracked) or both "
                      "outside (if you want the inplace to be tracked).");

    const Tensor z = leaf23().clone();
    Tensor iv;
    {
      InferenceMode guard;
      iv = z.slice(1, 0, 2);
    }
    CHECK_FALSE(iv.is_inference());
    CHECK(iv.is_view());
    CHECK_THROWS_WITH(
        iv.mul_(2),
        "A view was created in inference mode and is being modified inplace in normal mode. "
        "Given that this use case is ambiguous and error-prone, it is forbidden. You can clarify "
        "your code by moving both the view and the inplace either both inside the inference_mode "
        "block (if you don't want the inplace to be tracked) or both outside (if you want the "
        "inplace to be tracked).");
    z.mul_(2);
    CHECK_THROWS_WITH(iv.grad_fn(),
                      "A view was created in inference mode and its base or another view of its "
                      "base has been modified inplace in normal mode. Given that this use case is "
                      "ambiguous and error-prone, it is forbidden. You can clarify your code by "
                      "moving both the view and the inplace either both inside the "
                      "inference_mode block (if you don't want the inplace to be tracked) or both "
                      "outside (if you want the inplace to be tracked).");
    // Views of inference tensors are plain aliases.
    Tensor inf, inf_view;
    {
      InferenceMode guard;
      inf = ones({3});
      inf_view = inf[0];
    }
    CHECK_FALSE(inf_view.is_view());
    CHECK_FALSE(inf_view._base().defined());
  }
  SECTION("outputs of split, chunk and unbind refuse in-place writes that record") {
    const char* tail =
        " is a view and is being modified inplace. This view is the output of a function that "
        "returns multiple views. Such functions do not allow the output views to be modified "
        "inplace. You should replace the inplace operation by an out-of-place one.";
    const Tensor x = leaf23().clone();
    CHECK_THROWS_WITH(x.unbind()[0].mul_(2), std::string("Output 0 of UnbindBackward0") + tail);
    CHECK_THROWS_WITH(x.split(1)[1].add_(1), std::string("Output 1 of SplitBackward0") + tail);
    CHECK_THROWS_WITH(x.chunk(2)[0].zero_(), std::string("Output 0 of SplitBackward0") + tail);
    CHECK_THROWS_WITH(x.split_with_sizes({1, 2}, 1)[1].exp_(),
                      std::string("Output 1 of SplitWithSizesBackward0") + tail);
    // A plain tensor's pieces take in-place writes unless one records.
    const Tensor p = ones({2, 3}, kDouble);
    const std::vector<Tensor> pieces = p.unbind();
    pieces[0].mul_(2);
    CHECK(close(p, dbl({2, 2, 2, 1, 1, 1}, {2, 3})));
    CHECK_THROWS_WITH(
        pieces[1].mul_(ones({3}, rg)),
        "A view was created in no_grad mode and is being modified inplace with grad mode enabled. "
        "This view is the output of a function that returns multiple views. Such functions do not "
        "allow the output views to be modified inplace. You should replace the inplace operation "
        "by an out-of-place one.");
    {
      NoGradGuard no_grad;  // made in no-grad mode: ordinary no-grad views
      const std::vector<Tensor> q = x.unbind();
      CHECK(q[0].unsafeGetTensorImpl()->creation_meta() == CreationMeta::NO_GRAD_MODE);
    }
  }
  SECTION("_base() is the root for every view, with or without grad") {
    const Tensor x = ones({2, 3});
    CHECK(x[0].slice(0, 1)._base().is_same(x));
    CHECK(x.t().unsqueeze(0).select(0, 0)._base().is_same(x));
    CHECK(x.unbind()[1]._base().is_same(x));
    CHECK(x[0].is_view());
    CHECK_FALSE(x._base().defined());
    const Tensor l = ones({2, 3}, kLong);
    CHECK(l[0]._base().is_same(l));
    CHECK_FALSE(l.detach().is_view());
    CHECK_FALSE(x.view(kInt).is_view());
    const Tensor g = leaf23();
    CHECK(g.t().clone()._base().defined() == false);
  }
}

TEST_CASE("AccumulateGrad gives .grad the leaf's layout", "[autograd]") {
  // PyTorch's layout contract: a non-overlapping, dense leaf gets a gradient with its strides.
  const Tensor t = arange(6, kDouble).reshape({2, 3}).t().requires_grad_();  // strides [1, 3]
  t.mul(2).sum().backward();
  CHECK(t.grad().strides() == IntArrayRef({1, 3}));
  CHECK(close(t.grad(), full({3, 2}, 2.0, kDouble)));
  // A row-major gradient into a transposed leaf (matmul's) is restrided, not stolen as is.
  const Tensor w = arange(6, kDouble).reshape({3, 2}).t().requires_grad_();  // [2, 3], [1, 2]
  ones({4, 2}, kDouble).mm(w).sum().backward();
  CHECK(w.grad().strides() == IntArrayRef({1, 2}));
  CHECK(close(w.grad(), full({2, 3}, 4.0, kDouble)));
  // channels-last leaves keep channels-last gradients.
  const Tensor c = ones({2, 3, 4, 5}, kDouble).contiguous(MemoryFormat::ChannelsLast).requires_grad_();
  c.sum().backward();
  CHECK(c.grad().is_contiguous(MemoryFormat::ChannelsLast));
  // A leaf that overlaps itself (expanded) gets a contiguous gradient.
  const Tensor e = ones({3}, kDouble).expand({2, 3}).requires_grad_();
  e.sum().backward();
  CHECK(e.grad().is_contiguous());
}

TEST_CASE("retain_grad follows a tensor to its new node after an in-place op", "[autograd]") {
  // PyTorch 1.13: .grad of a retaining tensor is the gradient of its newest value.
  const Tensor a = ones({3}, kDouble).requires_grad_();
  const Tensor x = a.mul(1.0);
  x.retain_grad();
  x.masked_fill_(tensor({false, false, true}), 3.5);
  x.sum().backward();
  CHECK(close(x.grad(), ones({3}, kDouble)));
  CHECK(close(a.grad(), dbl({1, 1, 0}, {3})));
  // Through a view: the view's regenerated node keeps retaining.
  const Tensor b = ones({2, 3}, kDouble).requires_grad_();
  const Tensor y = b.mul(2.0);
  const Tensor row = y[0];
  row.retain_grad();
  y.mul_(3);
  row.mul(2).sum().backward();
  CHECK(name_of(row) == "AsStridedBackward0");
  CHECK(close(row.grad(), full({3}, 2.0, kDouble)));
  CHECK(close(b.grad(), dbl({12, 12, 12, 0, 0, 0}, {2, 3})));
}

TEST_CASE("a base given CopySlices keeps retaining its previous node's gradient", "[autograd]") {
  // libtorch 1.13's set_gradient_edge does not move retain_grad (the direct in-place op does).
  const Tensor a = ones({2, 3}, kDouble).requires_grad_();
  const Tensor x = a.mul(1.0);
  x.retain_grad();
  x[0].fill_(2.0);  // through a view: x gets CopySlices
  CHECK(name_of(x) == "CopySlices");
  x.mul(2.5).sum().backward();
  CHECK(close(x.grad(), dbl({0, 0, 0, 2.5, 2.5, 2.5}, {2, 3})));
}

}  // namespace autograd_views_grad_test
