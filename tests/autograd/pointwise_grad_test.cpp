// Gradients of the elementwise ops from the user's side: each op's node name (PyTorch 1.13's),
// gradcheck on contiguous, transposed and broadcast float64 inputs, the in-place forms, second
// derivatives, out= and leaf refusals, dtypes, and which saved tensors guard in-place writes.
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace autograd_pointwise_grad_test {

using namespace tensorplay;

namespace {

using Fn = std::function<Tensor(const std::vector<Tensor>&)>;
using autograd::gradcheck;

std::vector<double> values(const Tensor& t) {
  Tensor c = t.to(kDouble).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

// Uniform in [lo, hi), float64, requiring grad; `transposed` lays it out as a t() view.
Tensor input(IntArrayRef shape, double lo, double hi, bool transposed = false) {
  Tensor t;
  if (transposed) {
    t = rand({shape[1], shape[0]}, dtype(kDouble)).t();
  } else {
    t = rand(shape, dtype(kDouble));
  }
  {
    NoGradGuard g;
    t.mul_(hi - lo).add_(lo);
  }
  return t.requires_grad_();
}

// The first derivative as a function (create_graph), whose gradcheck checks the second. Grad
// mode on: gradcheck evaluates its function under no_grad for the finite differences.
Fn first_derivative(const Fn& fn) {
  return [fn](const std::vector<Tensor>& v) {
    AutoGradMode on(true);
    return autograd::grad({fn(v).sum()}, {v[0]}, {}, true, /*create_graph=*/true)[0];
  };
}

struct Domain {
  double lo, hi;
};
constexpr Domain kAny{-2, 2}, kPos{0.5, 2}, kUnit{-0.9, 0.9};

}  // namespace

TEST_CASE("unary ops: node names, gradcheck, in place and second derivatives", "[autograd]") {
  manual_seed(1);
  struct Case {
    const char* node;
    Fn fn, inplace;
    Domain d = kAny;
    bool smooth = true;  // second derivative checked
  };
#define TP_UNARY_(op, node, ...)                                                       \
  Case {                                                                               \
    node, [](const std::vector<Tensor>& v) { return v[0].op(); },                      \
        [](const std::vector<Tensor>& v) { return v[0].clone().op##_(); }, __VA_ARGS__ \
  }
  const std::vector<Case> cases = {
      TP_UNARY_(neg, "NegBackward0", kAny, false),  // linear: no second derivative graph
      TP_UNARY_(abs, "AbsBackward0"),
      TP_UNARY_(sign, "SignBackward0", kAny, false),
      TP_UNARY_(square, "PowBackward0"),
      TP_UNARY_(relu, "ReluBackward0", kAny, false),
      TP_UNARY_(exp, "ExpBackward0"),
      TP_UNARY_(exp2, "Exp2Backward0"),
      TP_UNARY_(expm1, "Expm1Backward0"),
      TP_UNARY_(log, "LogBackward0", kPos),
      TP_UNARY_(log2, "Log2Backward0", kPos),
      TP_UNARY_(log10, "Log10Backward0", kPos),
      TP_UNARY_(log1p, "Log1PBackward0", kPos),
      TP_UNARY_(sqrt, "SqrtBackward0", kPos),
      TP_UNARY_(rsqrt, "RsqrtBackward0", kPos),
      TP_UNARY_(reciprocal, "ReciprocalBackward0", kPos),
      TP_UNARY_(sin, "SinBackward0"),
      TP_UNARY_(cos, "CosBackward0"),
      TP_UNARY_(tan, "TanBackward0", kUnit),
      TP_UNARY_(asin, "AsinBackward0", kUnit),
      TP_UNARY_(acos, "AcosBackward0", kUnit),
      TP_UNARY_(atan, "AtanBackward0"),
      TP_UNARY_(sinh, "SinhBackward0"),
      TP_UNARY_(cosh, "CoshBackward0"),
      TP_UNARY_(tanh, "TanhBackward0"),
      TP_UNARY_(sigmoid, "SigmoidBackward0"),
      TP_UNARY_(erf, "ErfBackward0"),
      TP_UNARY_(floor, "FloorBackward0", kAny, false),
      TP_UNARY_(ceil, "CeilBackward0", kAny, false),
      TP_UNARY_(trunc, "TruncBackward0", kAny, false),
      TP_UNARY_(round, "RoundBackward0", kAny, false),
      TP_UNARY_(frac, "FracBackward0", kAny, false),
      TP_UNARY_(silu, "SiluBackward0"),
      TP_UNARY_(gelu, "GeluBackward0"),
      TP_UNARY_(softplus, "SoftplusBackward0"),
      Case{"GeluBackward0", [](const auto& v) { return v[0].gelu("tanh"); },
           [](const auto& v) { return v[0].clone().gelu_("tanh"); }},
      Case{"SoftplusBackward0", [](const auto& v) { return v[0].softplus(2, 1); },
           [](const auto& v) { return v[0].clone().softplus_(2, 1); }},
      Case{"RoundBackward1", [](const auto& v) { return v[0].round(1); },
           [](const auto& v) { return v[0].clone().round_(1); }, kAny, false},
      Case{"PowBackward0", [](const auto& v) { return v[0].pow(2.5); },
           [](const auto& v) { return v[0].clone().pow_(2.5); }, kPos},
      Case{"PowBackward0", [](const auto& v) { return v[0].pow(0); },
           [](const auto& v) { return v[0].clone().pow_(0); }, kAny, false},
      Case{"PowBackward2", [](const auto& v) { return pow(2.5, v[0]); }, nullptr},
      Case{"AddBackward1", [](const auto& v) { return v[0].add(2, 3); },
           [](const auto& v) { return v[0].clone().add_(2, 3); }, kAny, false},
      Case{"SubBackward1", [](const auto& v) { return v[0] - 2; },
           [](const auto& v) { return v[0].clone().sub_(2); }, kAny, false},
      Case{"RsubBackward1", [](const auto& v) { return 2 - v[0]; }, nullptr, kAny, false},
      Case{"MulBackward1", [](const auto& v) { return v[0] * 3; },
           [](const auto& v) { return v[0].clone().mul_(3); }, kAny, false},
      Case{"DivBackward1", [](const auto& v) { return v[0] / 4; },
           [](const auto& v) { return v[0].clone().div_(4); }, kAny, false},
      Case{"DivBackward3", [](const auto& v) { return v[0].div(0.3, "floor"); },
           [](const auto& v) { return v[0].clone().div_(0.3, "trunc"); }, kAny, false},
      Case{"DivBackward0", [](const auto& v) { return 2 / v[0]; }, nullptr, kPos},
      Case{"FmodBackward0", [](const auto& v) { return v[0].fmod(0.7); },
           [](const auto& v) { return v[0].clone().fmod_(0.7); }, kAny, false},
      Case{"RemainderBackward0", [](const auto& v) { return v[0].remainder(0.7); },
           [](const auto& v) { return v[0].clone().remainder_(0.7); }, kAny, false},
      Case{"ClampBackward1", [](const auto& v) { return v[0].clamp(-1.0, 1.0); },
           [](const auto& v) { return v[0].clone().clamp_(-1.0, 1.0); }, kAny, false},
      Case{"ClampMinBackward0", [](const auto& v) { return v[0].clamp_min(0.5); },
           [](const auto& v) { return v[0].clone().clamp_min_(0.5); }, kAny, false},
      Case{"ClampMaxBackward0", [](const auto& v) { return v[0].clamp_max(0.5); },
           [](const auto& v) { return v[0].clone().clamp_max_(0.5); }, kAny, false},
      Case{"MaskedFillBackward0", [](const auto& v) { return v[0].masked_fill(v[0].gt(0.5), 1.5); },
           [](const auto& v) { return v[0].clone().masked_fill_(v[0].gt(0.5), 1.5); }, kAny, false},
      Case{"WhereBackward0", [](const auto& v) { return where(v[0].gt(0), v[0], 2.0); }, nullptr,
           kAny, false},
  };
#undef TP_UNARY_
  for (const Case& c : cases) {
    INFO(c.node);
    for (bool transposed : {false, true}) {
      Tensor x = input({3, 4}, c.d.lo, c.d.hi, transposed);
      CHECK(c.fn({x}).grad_fn()->name() == c.node);
      CHECK(gradcheck(c.fn, {x}));
      if (c.inplace) {
        CHECK(c.inplace({x}).grad_fn()->name() == c.node);
        CHECK(gradcheck(c.inplace, {x}));
      }
      if (c.smooth) CHECK(gradcheck(first_derivative(c.fn), {x}));
    }
  }
}

TEST_CASE("binary and ternary ops: node names, gradcheck with broadcasting", "[autograd]") {
  manual_seed(2);
  struct Case {
    const char* node;
    Fn fn, inplace;
    Domain a = kAny, b = kAny;
  };
  const std::vector<Case> cases = {
      {"AddBackward0", [](const auto& v) { return v[0] + v[1]; },
       [](const auto& v) { return v[0].clone().add_(v[1], 2); }},
      {"AddBackward0", [](const auto& v) { return add(v[0], v[1], 2.5); }, nullptr},
      {"SubBackward0", [](const auto& v) { return sub(v[0], v[1], 2); },
       [](const auto& v) { return v[0].clone() -= v[1]; }},
      {"RsubBackward0", [](const auto& v) { return rsub(v[0], v[1], 3); }, nullptr},
      {"MulBackward0", [](const auto& v) { return v[0] * v[1]; },
       [](const auto& v) { return v[0].clone() *= v[1]; }},
      {"DivBackward0", [](const auto& v) { return v[0] / v[1]; },
       [](const auto& v) { return v[0].clone().div_(v[1]); }, kAny, kPos},
      {"DivBackward2", [](const auto& v) { return v[0].div(v[1], "floor"); },
       [](const auto& v) { return v[0].clone().div_(v[1], "trunc"); }, kAny, kPos},
      {"PowBackward1", [](const auto& v) { return v[0].pow(v[1]); },
       [](const auto& v) { return v[0].clone().pow_(v[1]); }, kPos},
      {"Atan2Backward0", [](const auto& v) { return atan2(v[0], v[1]); },
       [](const auto& v) { return v[0].clone().atan2_(v[1]); }},
      {"MaximumBackward0", [](const auto& v) { return maximum(v[0], v[1]); }, nullptr},
      {"MinimumBackward0", [](const auto& v) { return minimum(v[0], v[1]); }, nullptr},
      {"FmodBackward1", [](const auto& v) { return fmod(v[0], v[1]); },
       [](const auto& v) { return v[0].clone().fmod_(v[1]); }, kAny, kPos},
      {"RemainderBackward1", [](const auto& v) { return v[0] % v[1]; },
       [](const auto& v) { return v[0].clone().remainder_(v[1]); }, kAny, kPos},
      {"ClampMinBackward1", [](const auto& v) { return v[0].clamp_min(v[1]); },
       [](const auto& v) { return v[0].clone().clamp_min_(v[1]); }},
      {"ClampMaxBackward1", [](const auto& v) { return v[0].clamp_max(v[1]); },
       [](const auto& v) { return v[0].clone().clamp_max_(v[1]); }},
      {"ClampBackward0", [](const auto& v) { return v[0].clamp(v[1]); },
       [](const auto& v) { return v[0].clone().clamp_(std::optional<Tensor>(), v[1]); }},
      {"LerpBackward0", [](const auto& v) { return v[0].lerp(v[1], 0.3); },
       [](const auto& v) { return v[0].clone().lerp_(v[1], 0.7); }},
      {"WhereBackward0", [](const auto& v) { return where(v[0].gt(v[1]), v[0], v[1]); }, nullptr},
      {"MaskedFillBackward1",
       [](const auto& v) { return v[0].masked_fill(v[0].gt(0), v[1].sum()); },
       [](const auto& v) { return v[0].clone().masked_fill_(v[0].gt(0), v[1].sum()); }},
      // Three inputs: the third is a third of the domain above the second.
      {"ClampBackward0", [](const auto& v) { return v[0].clamp(v[1], v[1] + 1); },
       [](const auto& v) { return v[0].clone().clamp_(v[1], v[1] + 1); }},
      {"LerpBackward1", [](const auto& v) { return v[0].lerp(v[1], v[1].sigmoid()); },
       [](const auto& v) { return v[0].clone().lerp_(v[1], v[1].sigmoid()); }},
  };
  const std::vector<std::vector<int64_t>> shapes[] = {{{3, 4}, {3, 4}}, {{3, 1}, {1, 4}}};
  for (const Case& c : cases) {
    INFO(c.node);
    for (int layout = 0; layout < 3; ++layout) {
      const auto& s = shapes[layout == 2];
      Tensor a = input(s[0], c.a.lo, c.a.hi, layout == 1);
      Tensor b = input(s[1], c.b.lo, c.b.hi, layout == 1);
      CHECK(c.fn({a, b}).grad_fn()->name() == c.node);
      CHECK(gradcheck(c.fn, {a, b}));
      CHECK(gradcheck(c.fn, {a, b.detach()}));  // one side only
      CHECK(gradcheck(c.fn, {a.detach(), b}));
      // In place, self cannot broadcast: only same-shape layouts.
      if (c.inplace && layout != 2) {
        CHECK(c.inplace({a, b}).grad_fn()->name() == c.node);
        CHECK(gradcheck(c.inplace, {a, b}));
      }
    }
  }
}

TEST_CASE("gradient values against hand-derived formulas", "[autograd]") {
  Tensor x = tensor({0.5, 1.0, 2.0}, dtype(kDouble).requires_grad(true));
  Tensor y = tensor({2.0, 1.0, -1.0}, dtype(kDouble).requires_grad(true));
  const auto grads = [&](const Tensor& out) {
    return autograd::grad({out.sum()}, {x, y}, {}, std::nullopt, false, /*allow_unused=*/true);
  };
  auto g = grads(x.exp());
  CHECK(values(g[0]) == values(x.detach().exp()));
  g = grads(x.sin().mul(y));  // d/dx = cos(x) y, d/dy = sin(x)
  CHECK(values(g[0]) == values(x.detach().cos().mul(y.detach())));
  CHECK(values(g[1]) == values(x.detach().sin()));
  g = grads(x / y);  // 1 / y, -x / y^2
  CHECK(values(g[0]) == std::vector<double>{0.5, 1.0, -1.0});
  CHECK(values(g[1]) == std::vector<double>{-0.125, -1.0, -2.0});
  g = grads(x.pow(y));  // y x^(y-1), x^y log(x)
  CHECK(values(g[0])[0] == Approx(2 * 0.5));
  CHECK(values(g[0])[2] == Approx(-1.0 / 4));
  CHECK(values(g[1])[2] == Approx(0.5 * std::log(2.0)));
  // Ties split the gradient in halves (PyTorch 1.13); the winner takes all otherwise.
  g = grads(maximum(x, y));
  CHECK(values(g[0]) == std::vector<double>{0.0, 0.5, 1.0});
  CHECK(values(g[1]) == std::vector<double>{1.0, 0.5, 0.0});
  g = grads(minimum(x, y));
  CHECK(values(g[0]) == std::vector<double>{1.0, 0.5, 0.0});
  // clamp passes the gradient at the bounds themselves (subgradient 1).
  g = grads(x.clamp(1.0, 2.0));
  CHECK(values(g[0]) == std::vector<double>{0.0, 1.0, 1.0});
  g = grads(x.clamp_max(y));  // y wins where x > y
  CHECK(values(g[0]) == std::vector<double>{1.0, 1.0, 0.0});
  CHECK(values(g[1]) == std::vector<double>{0.0, 0.0, 1.0});
  // pow with a zero base: no NaN from log(0) for a non-negative exponent.
  Tensor z = tensor({0.0, 1.0}, dtype(kDouble).requires_grad(true));
  Tensor e = tensor({2.0, 3.0}, dtype(kDouble).requires_grad(true));
  g = autograd::grad({z.pow(e).sum()}, {z, e});
  CHECK(values(g[0]) == std::vector<double>{0.0, 3.0});
  CHECK(values(g[1]) == std::vector<double>{0.0, 0.0});
  // masked_fill with a tensor value: the value collects the filled positions' gradient.
  Tensor v = tensor(3.0, dtype(kDouble).requires_grad(true));
  g = autograd::grad({x.masked_fill(x.gt(0.7), v).mul(y).sum()}, {x, v});
  CHECK(values(g[0]) == std::vector<double>{2.0, 0.0, 0.0});
  CHECK(values(g[1]) == std::vector<double>{0.0});
  // Integer-valued steps: zero, not undefined.
  g = grads(x.floor().add(x.div(y, "floor")));
  CHECK(values(g[0]) == std::vector<double>{0.0, 0.0, 0.0});
  CHECK(values(g[1]) == std::vector<double>{0.0, 0.0, 0.0});
}

TEST_CASE("second derivatives through the formulas (create_graph)", "[autograd]") {
  Tensor x = tensor({0.5, 1.0, 2.0}, dtype(kDouble).requires_grad(true));
  const auto d2 = [&](const std::function<Tensor(const Tensor&)>& f) {
    Tensor g = autograd::grad({f(x).sum()}, {x}, {}, true, /*create_graph=*/true)[0];
    REQUIRE(g.requires_grad());
    return values(autograd::grad({g.sum()}, {x})[0]);
  };
  const std::vector<double> xs = {0.5, 1.0, 2.0};
  const auto each = [&](double (*f)(double)) {
    std::vector<double> r;
    for (double v : xs) r.push_back(f(v));
    return r;
  };
  const auto near = [](const std::vector<double>& a, const std::vector<double>& b) {
    for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i] == Approx(b[i]));
  };
  near(d2([](const Tensor& t) { return t.exp(); }), each([](double v) { return std::exp(v); }));
  near(d2([](const Tensor& t) { return t.sin(); }), each([](double v) { return -std::sin(v); }));
  near(d2([](const Tensor& t) { return t.tanh(); }), each([](double v) {
         const double th = std::tanh(v);
         return -2 * th * (1 - th * th);
       }));
  near(d2([](const Tensor& t) { return t * t; }), {2.0, 2.0, 2.0});
  near(d2([](const Tensor& t) { return 1.0 / t; }), each([](double v) { return 2 / (v * v * v); }));
  near(d2([](const Tensor& t) { return t.pow(3); }), each([](double v) { return 6 * v; }));
  near(d2([](const Tensor& t) { return t.pow(t); }),
       each([](double v) {  // x^x (ln x + 1)^2 + x^(x-1)
         return std::pow(v, v) * (std::pow(std::log(v) + 1, 2) + 1 / v);
       }));
}

TEST_CASE("out= refuses arguments that require grad; in place refuses leaves", "[autograd]") {
  Tensor x = randn({3}, dtype(kDouble).requires_grad(true));
  Tensor plain = randn({3}, dtype(kDouble)), out = empty({3}, dtype(kDouble));
  const std::string tail =
      "(): functions with out=... arguments don't support automatic differentiation, but one of "
      "the arguments requires grad.";
  CHECK_THROWS_WITH(exp_out(out, x), "exp" + tail);
  CHECK_THROWS_WITH(square_out(out, x), "square" + tail);
  CHECK_THROWS_WITH(add_out(out, plain, x), "add" + tail);
  CHECK_THROWS_WITH(mul_out(out, x, 2), "mul" + tail);
  CHECK_THROWS_WITH(clamp_out(out, x, 0.0, 1.0), "clamp" + tail);
  CHECK_THROWS_WITH(clamp_min_out(out, plain, x), "clamp_min" + tail);
  CHECK_THROWS_WITH(pow_out(out, 2, x), "pow" + tail);
  CHECK_THROWS_WITH(where_out(out, plain.gt(0), plain, x), "where" + tail);
  CHECK_THROWS_WITH(sin_out(x.detach().clone().requires_grad_(), plain), "sin" + tail);
  {
    NoGradGuard no_grad;  // nothing records: out= is fine
    CHECK_NOTHROW(exp_out(out, x));
    CHECK_NOTHROW(add_out(out, x, x));
  }
  CHECK_NOTHROW(exp_out(out, plain));

  const char* leaf = "a leaf Variable that requires grad is being used in an in-place operation.";
  CHECK_THROWS_WITH(x.exp_(), leaf);
  CHECK_THROWS_WITH(exp_(x), leaf);
  CHECK_THROWS_WITH(x.add_(1), leaf);
  CHECK_THROWS_WITH(x.mul_(plain), leaf);
  CHECK_THROWS_WITH(x.clamp_(0.0, 1.0), leaf);
  CHECK_THROWS_WITH(x.masked_fill_(plain.gt(0), 0.0), leaf);
  CHECK_THROWS_WITH(x += plain, leaf);
  // A plain tensor written in place with an input that requires grad joins the graph.
  Tensor p = plain.clone();
  p.mul_(x);
  CHECK(p.grad_fn()->name() == "MulBackward0");
  p.sum().backward();
  CHECK(values(x.grad()) == values(plain));
}

TEST_CASE("gradients keep the input's dtype", "[autograd]") {
  Tensor f = randn({2, 3}, dtype(kFloat).requires_grad(true));
  Tensor d = randn({3}, dtype(kDouble).requires_grad(true));
  Tensor y = f.exp().mul(d).sigmoid().add(f.square());  // float32 * float64 -> float64
  CHECK(y.dtype() == kDouble);
  y.sum().backward();
  CHECK(f.grad().dtype() == kFloat);
  CHECK(d.grad().dtype() == kDouble);
  CHECK(d.grad().sizes() == IntArrayRef({3}));
  Tensor h = randn({4}, dtype(kFloat).requires_grad(true));
  h.clone().relu_().mul(2.5).sum().backward();
  CHECK(h.grad().dtype() == kFloat);
}

TEST_CASE("only ops that really saved a tensor complain when it changes in place", "[autograd]") {
  Tensor x = randn({3}, dtype(kDouble).requires_grad(true));
  Tensor plain = randn({3}, dtype(kDouble));
  const char* modified =
      "one of the variables needed for gradient computation has been modified by an inplace "
      "operation";

  Tensor c = x.clone();
  Tensor y = c * 2;      // MulBackward1 saves nothing
  Tensor s = c + plain;  // AddBackward0 saves nothing
  c.add_(1);
  CHECK_NOTHROW((y + s).sum().backward());
  CHECK(values(x.grad()) == std::vector<double>{3.0, 3.0, 3.0});

  Tensor a = x.clone(), b = x.clone();
  Tensor z = a * b;  // saves both
  a.add_(1);
  CHECK_THROWS_WITH(z.sum().backward(),
                    Catch::StartsWith(modified) &&
                        Catch::Contains("which is output 0 of AddBackward1, is at version 1; "
                                        "expected version 0 instead"));

  // plain needs no gradient, so mul saves only plain (for x's gradient), not x's clone.
  Tensor a2 = x.clone(), q = plain.clone();
  Tensor z2 = a2 * q;
  a2.mul_(3);
  CHECK_NOTHROW(z2.sum().backward());
  Tensor z3 = x.clone() * q;
  q.add_(1);
  CHECK_THROWS_WITH(z3.sum().backward(), Catch::StartsWith(modified));

  // exp saves its result, sin its input: each one guards what it saved.
  Tensor e = x.clone();
  Tensor ee = e.exp();
  e.add_(1);
  CHECK_NOTHROW(ee.sum().backward());
  Tensor sn = x.clone();
  Tensor ss = sn.sin();
  sn.add_(1);
  CHECK_THROWS_WITH(ss.sum().backward(), Catch::StartsWith(modified));
  // In place, the node saves a clone of the original input: later writes are fine.
  Tensor i = x.clone();
  i.sin_();
  Tensor i2 = i.mul(1.0);
  i.add_(1);
  CHECK_NOTHROW(i2.sum().backward());
}

TEST_CASE("comparison and bitwise ops accept inputs that require grad", "[autograd]") {
  Tensor x = randn({4}, dtype(kDouble).requires_grad(true));
  Tensor y = randn({4}, dtype(kDouble).requires_grad(true));
  for (const Tensor& r : {x.gt(y), x < y, x == 0.5, x.ne(y), x.isnan(), x.logical_and(y),
                          x.isfinite(), x.isclose(y), x.sign().to(kLong) & 1}) {
    CHECK_FALSE(r.requires_grad());
    CHECK(!r.grad_fn());
  }
  // An integer result of a float op has no history either.
  CHECK_FALSE(x.floor().to(kLong).requires_grad());
}

TEST_CASE("fill and index_fill: node names, gradients to self and to a 0-d value", "[autograd]") {
  manual_seed(3);
  const auto name = [](const Tensor& t) { return t.grad_fn() ? t.grad_fn()->name() : "None"; };
  const Tensor idx = tensor({0, 2, 0});  // a repeated index
  const std::vector<std::pair<const char*, Fn>> cases = {
      {"IndexFillBackward0", [&](const auto& v) { return v[0].index_fill(1, idx, 1.5); }},
      {"IndexFillBackward0", [&](const auto& v) { return v[0].clone().index_fill_(0, idx, -1); }},
      {"IndexFillBackward1", [&](const auto& v) { return v[0].index_fill(1, idx, v[1].sum()); }},
      {"IndexFillBackward1",
       [&](const auto& v) { return index_fill(v[0], -1, idx.select(0, 1), v[1].sum()); }},
      {"IndexFillBackward1",
       [&](const auto& v) { return v[0].clone().index_fill_(0, idx, v[1].sum()); }},
      {"FillBackward3", [](const auto& v) { return v[0].clone().fill_(v[1].sum()); }},
      {"FillBackward0", [](const auto& v) { return fill(v[0], 2.5); }},
      {"FillBackward1", [](const auto& v) { return fill(v[0], v[1].sum()); }},
  };
  for (const auto& [node, fn] : cases) {
    INFO(node);
    const bool takes_value = std::string(node) != "IndexFillBackward0" &&
                             std::string(node) != "FillBackward0";
    // Squared, so that the first derivative still depends on the inputs: the second derivative
    // then runs through the node's formula applied to a gradient that requires grad.
    const Fn squared = [fn = fn](const std::vector<Tensor>& v) { return fn(v).pow(2); };
    for (bool transposed : {false, true}) {
      Tensor a = input({3, 4}, -2, 2, transposed);
      Tensor b = input({2}, -2, 2);
      CHECK(name(fn({a, b})) == node);
      CHECK(gradcheck(fn, {a, b}));
      CHECK(gradcheck(fn, {a, b.detach()}));
      if (takes_value) CHECK(gradcheck(fn, {a.detach(), b}));
      // fill's gradient to self is a constant zero: only the value has a second derivative.
      if (std::string(node).rfind("Fill", 0) != 0) {
        CHECK(gradcheck(first_derivative(squared), {a, b}));
      }
      if (takes_value) {
        const Fn d_value = [squared](const std::vector<Tensor>& v) {
          AutoGradMode on(true);
          return autograd::grad({squared(v).sum()}, {v[1]}, {}, true, /*create_graph=*/true)[0];
        };
        CHECK(gradcheck(d_value, {a, b}));
      }
    }
  }
  // The values: self loses the filled positions; the value collects their gradient, each
  // position once however often the index names it (torch 1.13: 44 below).
  Tensor x = arange(12, dtype(kDouble)).view({3, 4}).detach().requires_grad_();
  Tensor v = tensor(5.0, dtype(kDouble).requires_grad(true));
  const Tensor w = arange(12, dtype(kDouble)).view({3, 4});
  auto g = autograd::grad({x.index_fill(0, idx, v).mul(w).sum()}, {x, v});
  CHECK(values(g[0]) == std::vector<double>{0, 0, 0, 0, 4, 5, 6, 7, 0, 0, 0, 0});
  CHECK(values(g[1]) == std::vector<double>{44});
  // fill_ through a view of a non-leaf: CopySlices on the base, the value gets the view's part.
  Tensor y = x.clone();
  y.slice(0, 1).fill_(v);
  CHECK(name(y) == "CopySlices");
  g = autograd::grad({y.mul(w).sum()}, {x, v});
  CHECK(values(g[0]) == std::vector<double>{0, 1, 2, 3, 0, 0, 0, 0, 0, 0, 0, 0});
  CHECK(values(g[1]) == std::vector<double>{4 + 5 + 6 + 7 + 8 + 9 + 10 + 11});
  // A value that requires grad makes a plain self record too (edges: none, value).
  Tensor p = zeros({3}, dtype(kDouble));
  p.fill_(v);
  CHECK(name(p) == "FillBackward3");
  CHECK(values(autograd::grad({p.sum()}, {v})[0]) == std::vector<double>{3});
  CHECK(name(fill(zeros({2}, dtype(kDouble)), v)) == "FillBackward1");
  // The leaf rule comes before fill_'s own check of the value, as in PyTorch.
  CHECK_THROWS_WITH(x.fill_(tensor({1.0, 2.0})),
                    "a leaf Variable that requires grad is being used in an in-place operation.");
  CHECK_THROWS_WITH(x.index_fill_(0, idx, 1.0),
                    "a leaf Variable that requires grad is being used in an in-place operation.");
  CHECK_THROWS_WITH(x.index_fill_(0, idx.to(kFloat), tensor({1.0, 2.0})),
                    "a leaf Variable that requires grad is being used in an in-place operation.");
  CHECK_THROWS_WITH(x.masked_fill_(x.gt(0), tensor({1.0, 2.0})),
                    "a leaf Variable that requires grad is being used in an in-place operation.");
}

}  // namespace autograd_pointwise_grad_test
