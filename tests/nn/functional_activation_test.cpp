// nn::functional activations (nn/functional/activation.hpp and the tensor ops it reuses):
// values and gradients against torch 1.13 on fixed points (kinks and both tails included), node
// names of the out-of-place and in-place forms, gradcheck on contiguous, transposed and broadcast
// inputs and second derivatives, float32/Half/BFloat16, empty inputs, integer hardtanh, the
// option structs, and every error path with PyTorch's message.
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace nn_functional_activation_test {

using namespace tensorplay;
namespace F = tensorplay::nn::functional;

namespace {

using V = std::vector<double>;
using Fn = std::function<Tensor(const Tensor&)>;

V values(const Tensor& t) {
  Tensor c = t.to(kDouble).contiguous();
  const double* p = c.data_ptr<double>();
  return V(p, p + c.numel());
}

Tensor from(const V& v, DType dt = kDouble) {
  Tensor t = empty({int64_t(v.size())}, dtype(kDouble));
  for (std::size_t i = 0; i < v.size(); ++i) t.data_ptr<double>()[i] = v[i];
  return t.to(dt);
}

void require_close(const V& got, const V& want, double tol) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", want " << want[i]);
    REQUIRE(std::abs(got[i] - want[i]) <= tol * (1 + std::abs(want[i])));
  }
}

std::string node(const Tensor& t) { return t.grad_fn() ? t.grad_fn()->name() : "None"; }

struct Case {
  const char* name;
  V out, grad;
};

// torch 1.13, float64, at x below: F.relu6, F.leaky_relu(x, 0.2), F.elu(x, 0.5), F.selu, F.mish,
// F.hardtanh(x, -2, 3), F.hardsigmoid, F.hardswish, F.silu, F.gelu, F.gelu(approximate='tanh'),
// F.softplus(x, 2, 10); the gradient is that of the sum.
const V kX{-4, -3, -2.5, -1, -0.5, 0, 0.25, 1, 2.5, 3, 4, 25};
const std::vector<Case> kCases{
    {"relu6",
     {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.25, 1.0, 2.5, 3.0, 4.0, 6.0},
     {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0}},
    {"leaky_relu",
     {-0.8, -0.6000000000000001, -0.5, -0.2, -0.1, 0.0, 0.25, 1.0, 2.5, 3.0, 4.0, 25.0},
     {0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0}},
    {"elu",
     {-0.4908421805556329, -0.475106465816068, -0.4589575006880506, -0.31606027941427883,
      -0.1967346701436833, 0.0, 0.25, 1.0, 2.5, 3.0, 4.0, 25.0},
     {0.00915781944436709, 0.024893534183931972, 0.0410424993119494, 0.18393972058572117,
      0.3032653298563167, 0.5, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0}},
    {"selu",
     {-1.7258986281898945, -1.6705687287671118, -1.6137857588732423, -1.1113307378125625,
      -0.6917581878028713, 0.0, 0.2626752468388701, 1.0507009873554805, 2.626752468388701,
      3.1521029620664414, 4.202803949421922, 26.26752468388701},
     {0.03220071265748214, 0.08753061208026487, 0.1443135819741343, 0.646768603034814,
      1.0663411530445053, 1.7580993408473766, 1.0507009873554805, 1.0507009873554805,
      1.0507009873554805, 1.0507009873554805, 1.0507009873554805, 1.0507009873554805}},
    {"mish",
     {-0.07259174079202535, -0.1456474612756246, -0.19681620390653332, -0.30340146137410895,
      -0.22074377465173, 0.0, 0.1695724096638176, 0.8650983882673103, 2.471392304557881,
      2.9865350049679575, 3.9974128069762385, 25.0},
     {-0.05377320979348033, -0.09339311453232084, -0.10974357275018568, 0.059216755877395014,
      0.28951067791351226, 0.6, 0.7541726677205928, 1.0490362200997922, 1.041129530131353,
      1.0211069109294435, 1.0044328769037503, 1.0}},
    {"hardtanh",
     {-2.0, -2.0, -2.0, -1.0, -0.5, 0.0, 0.25, 1.0, 2.5, 3.0, 3.0, 3.0},
     {0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0}},
    {"hardsigmoid",
     {0.0, 0.0, 0.08333333333333333, 0.3333333333333333, 0.4166666666666667, 0.5,
      0.5416666666666666, 0.6666666666666666, 0.9166666666666666, 1.0, 1.0, 1.0},
     {0.0, 0.0, 0.1666666716337204, 0.1666666716337204, 0.1666666716337204, 0.1666666716337204,
      0.1666666716337204, 0.1666666716337204, 0.1666666716337204, 0.0, 0.0, 0.0}},
    {"hardswish",
     {-0.0, -0.0, -0.20833333333333334, -0.3333333333333333, -0.20833333333333334, 0.0,
      0.13541666666666666, 0.6666666666666666, 2.2916666666666665, 3.0, 4.0, 25.0},
     {0.0, -0.5, -0.33333333333333337, 0.16666666666666669, 0.33333333333333337, 0.5,
      0.5833333333333334, 0.8333333333333333, 1.3333333333333335, 1.5, 1.0, 1.0}},
    {"silu",
     {-0.07194483984836623, -0.14227761953270035, -0.18964545005310887, -0.2689414213699951,
      -0.1887703343990727, 0.0, 0.14054412522144952, 0.7310585786300049, 2.3103545499468914,
      2.8577223804672998, 3.928055160151634, 24.9999999996528},
     {-0.05266461489107291, -0.08810410601516962, -0.09940111134152683, 0.07232948812851325,
      0.2600388126973482, 0.5, 0.6237100215701977, 0.9276705118714869, 1.0994011113415267,
      1.0881041060151693, 1.0526646148910728, 1.000000000333312}},
    {"gelu",
     {-0.00012668496733247991, -0.00404969409489031, -0.015524163314440398, -0.15865525393145702,
      -0.15426876936299344, 0.0, 0.14967658142073093, 0.841344746068543, 2.4844758366855597,
      2.99595030590511, 3.9998733150326675, 25.0},
     {-0.0005036496612264215, -0.01194564720418392, -0.03761108590814519, -0.08331547058768635,
      0.13250487534383712, 0.5, 0.695373354883636, 1.0833154705876864, 1.037611085908145,
      1.011945647204184, 1.0005036496612265, 1.0}},
    {"gelu_tanh",
     {-7.024594819227126e-05, -0.0036373920817729943, -0.015084266089998577, -0.1588080093917233,
      -0.15428599017485606, 0.0, 0.149675350701685, 0.8411919906082768, 2.484915733910001,
      2.996362607918227, 3.9999297540518075, 25.0},
     {-0.00033512319712218684, -0.011584166630969648, -0.03795157621266618, -0.08296408384578258,
      0.13263009646535764, 0.5, 0.6953540951510604, 1.0829640838457826, 1.037951576212666,
      1.0115841666309695, 1.000335123197122, 1.0}},
    {"softplus",
     {0.00016770318644788442, 0.0012378425688652247, 0.003357674244559034, 0.06346400552148625,
      0.15663084375911143, 0.34657359027997264, 0.48703849209005334, 1.0634640055214863,
      2.503357674244559, 3.001237842568865, 4.000167703186448, 25.0},
     {0.00033535013046647816, 0.0024726231566347748, 0.006692850924284856, 0.11920292202211755,
      0.2689414213699951, 0.5, 0.6224593312018546, 0.8807970779778824, 0.9933071490757152,
      0.9975273768433652, 0.9996646498695335, 1.0}}};

Fn op_named(const std::string& n) {
  if (n == "relu6") return [](const Tensor& x) { return F::relu6(x); };
  if (n == "leaky_relu") {
    return [](const Tensor& x) {
      return F::leaky_relu(x, F::LeakyReLUFuncOptions().negative_slope(0.2));
    };
  }
  if (n == "elu") return [](const Tensor& x) { return F::elu(x, F::ELUFuncOptions().alpha(0.5)); };
  if (n == "selu") return [](const Tensor& x) { return F::selu(x); };
  if (n == "mish") return [](const Tensor& x) { return F::mish(x); };
  if (n == "hardtanh") {
    return [](const Tensor& x) {
      return F::hardtanh(x, F::HardtanhFuncOptions().min_val(-2).max_val(3));
    };
  }
  if (n == "hardsigmoid") return [](const Tensor& x) { return F::hardsigmoid(x); };
  if (n == "hardswish") return [](const Tensor& x) { return F::hardswish(x); };
  if (n == "silu") return [](const Tensor& x) { return F::silu(x); };
  if (n == "gelu") return [](const Tensor& x) { return F::gelu(x); };
  if (n == "gelu_tanh") {
    return [](const Tensor& x) { return F::gelu(x, F::GELUFuncOptions().approximate("tanh")); };
  }
  return [](const Tensor& x) {
    return F::softplus(x, F::SoftplusFuncOptions().beta(2).threshold(10));
  };
}

// Uniform in [-2.5, 2.5), float64, requiring grad; laid out as `layout` says.
Tensor input(const std::string& layout) {
  Tensor t;
  if (layout == "transposed") {
    t = rand({5, 4}, dtype(kDouble)).t();
  } else if (layout == "sliced") {
    t = rand({4, 10}, dtype(kDouble)).slice(1, 0, 10, 2);
  } else if (layout == "broadcast") {
    t = rand({1, 5}, dtype(kDouble)).expand({4, 5});
  } else {
    t = rand({4, 5}, dtype(kDouble));
  }
  return t.mul(5).sub(2.5).detach().requires_grad_();
}

}  // namespace

TEST_CASE("activations: values and gradients against torch 1.13", "[nn]") {
  for (const Case& c : kCases) {
    INFO(c.name);
    const Tensor x = from(kX).requires_grad_();
    const Tensor y = op_named(c.name)(x);
    require_close(values(y), c.out, 1e-12);
    y.sum().backward();
    // torch's hardsigmoid backward scales by a float32 1/6
    require_close(values(x.grad()), c.grad, 1e-7);
    // float32: the same values within float rounding (2 ulp functions)
    require_close(values(op_named(c.name)(from(kX, kFloat))), c.out, 2e-6);
  }
}

TEST_CASE("activations: node names of the out-of-place and in-place forms", "[nn]") {
  const Tensor leaf = from({-1, 0.5, 2}).requires_grad_();
  const auto name_of = [&](const std::function<Tensor(const Tensor&)>& f) {
    return node(f(leaf.mul(1)));
  };
  CHECK(name_of([](const Tensor& x) { return relu6(x); }) == "HardtanhBackward0");
  CHECK(name_of([](const Tensor& x) { return relu6_(x); }) == "HardtanhBackward0");
  CHECK(name_of([](const Tensor& x) { return hardtanh(x); }) == "HardtanhBackward0");
  CHECK(name_of([](const Tensor& x) { return hardtanh_(x); }) == "HardtanhBackward0");
  CHECK(name_of([](const Tensor& x) { return leaky_relu(x); }) == "LeakyReluBackward0");
  CHECK(name_of([](const Tensor& x) { return leaky_relu_(x); }) == "LeakyReluBackward1");
  CHECK(name_of([](const Tensor& x) { return elu(x); }) == "EluBackward0");
  CHECK(name_of([](const Tensor& x) { return elu_(x); }) == "EluBackward1");
  CHECK(name_of([](const Tensor& x) { return selu(x); }) == "EluBackward0");
  CHECK(name_of([](const Tensor& x) { return selu_(x); }) == "EluBackward1");
  CHECK(name_of([](const Tensor& x) { return mish(x); }) == "MishBackward0");
  CHECK(name_of([](const Tensor& x) { return mish_(x); }) == "MishBackward0");
  CHECK(name_of([](const Tensor& x) { return hardsigmoid(x); }) == "HardsigmoidBackward0");
  CHECK(name_of([](const Tensor& x) { return hardsigmoid_(x); }) == "HardsigmoidBackward0");
  CHECK(name_of([](const Tensor& x) { return hardswish(x); }) == "HardswishBackward0");
  CHECK(name_of([](const Tensor& x) { return hardswish_(x); }) == "HardswishBackward0");
  CHECK(name_of([](const Tensor& x) { return F::relu(x); }) == "ReluBackward0");
  CHECK(name_of([](const Tensor& x) { return F::silu(x); }) == "SiluBackward0");
  CHECK(name_of([](const Tensor& x) { return F::gelu(x); }) == "GeluBackward0");
  CHECK(name_of([](const Tensor& x) { return F::softplus(x); }) == "SoftplusBackward0");
}

TEST_CASE("activations: gradcheck on contiguous, strided and broadcast inputs", "[nn]") {
  manual_seed(7);
  for (const Case& c : kCases) {
    for (const char* layout : {"contiguous", "transposed", "sliced", "broadcast"}) {
      INFO(c.name << " " << layout);
      const Fn f = op_named(c.name);
      CHECK(autograd::gradcheck([&](const std::vector<Tensor>& v) { return f(v[0]); },
                                {input(layout)}));
    }
  }
  // Second derivatives of the smooth ones (the formulas are differentiable).
  for (const char* name : {"elu", "selu", "mish", "softplus", "gelu", "silu"}) {
    INFO(name);
    const Fn f = op_named(name);
    CHECK(autograd::gradcheck(
        [&](const std::vector<Tensor>& v) {
          AutoGradMode on(true);
          return autograd::grad({f(v[0]).sum()}, {v[0]}, {}, true, true)[0];
        },
        {input("contiguous")}));
  }
}

TEST_CASE("activations: in-place forms", "[nn]") {
  for (const char* name : {"relu6", "leaky_relu", "elu", "selu", "hardtanh", "hardsigmoid",
                           "hardswish", "mish", "silu", "relu"}) {
    INFO(name);
    const std::string n = name;
    const Tensor x = from(kX);
    const Tensor y = x.clone();
    Tensor want;
    Tensor got;
    if (n == "relu6") {
      want = relu6(x), got = F::relu6(y, F::ReLU6FuncOptions().inplace(true));
    } else if (n == "leaky_relu") {
      want = leaky_relu(x, 0.3);
      got = F::leaky_relu(y, F::LeakyReLUFuncOptions().negative_slope(0.3).inplace(true));
    } else if (n == "elu") {
      want = elu(x, 0.7), got = F::elu(y, F::ELUFuncOptions().alpha(0.7).inplace(true));
    } else if (n == "selu") {
      want = selu(x), got = F::selu(y, F::SELUFuncOptions().inplace(true));
    } else if (n == "hardtanh") {
      want = hardtanh(x, -0.5, 0.5);
      got = F::hardtanh(y, F::HardtanhFuncOptions().min_val(-0.5).max_val(0.5).inplace(true));
    } else if (n == "hardsigmoid") {
      want = hardsigmoid(x), got = F::hardsigmoid(y, F::HardsigmoidFuncOptions().inplace(true));
    } else if (n == "hardswish") {
      want = hardswish(x), got = F::hardswish(y, F::HardswishFuncOptions().inplace(true));
    } else if (n == "mish") {
      want = mish(x), got = F::mish(y, F::MishFuncOptions().inplace(true));
    } else if (n == "silu") {
      want = silu(x), got = F::silu(y, F::SiLUFuncOptions().inplace(true));
    } else {
      want = relu(x), got = F::relu(y, F::ReLUFuncOptions().inplace(true));
    }
    CHECK(got.is_same(y));
    CHECK(values(y) == values(want));
    CHECK(values(x) == kX);
  }
  // In-place backward from the result, through a non-leaf, matches the out-of-place gradient.
  for (const char* name : {"leaky_relu", "elu", "hardtanh"}) {
    INFO(name);
    const std::string n = name;
    const Tensor a = from(kX).requires_grad_(), b = from(kX).requires_grad_();
    const Tensor ya = n == "leaky_relu" ? leaky_relu(a, 0.1) : n == "elu" ? elu(a, 2) : hardtanh(a);
    const Tensor bm = b.mul(1);
    if (n == "leaky_relu") leaky_relu_(bm, 0.1);
    if (n == "elu") elu_(bm, 2);
    if (n == "hardtanh") hardtanh_(bm);
    ya.mul(from(kX)).sum().backward();
    bm.mul(from(kX)).sum().backward();
    require_close(values(b.grad()), values(a.grad()), 1e-12);
  }
  // Through a view: the base gets the in-place history.
  const Tensor leaf = from({-1, -2, 3, 4}).requires_grad_();
  const Tensor base = leaf.mul(1);
  leaky_relu_(base.slice(0, 0, 2), 0.5);
  base.sum().backward();
  CHECK(values(leaf.grad()) == V{0.5, 0.5, 1, 1});
}

TEST_CASE("activations: in-place backward with a negative slope is refused", "[nn]") {
  const Tensor x = from({-1, 2}).requires_grad_();
  const Tensor a = leaky_relu_(x.mul(1), -0.5);
  REQUIRE_THROWS_WITH(a.sum().backward(),
                      Catch::Contains("In-place leakyReLu backward calculation is triggered with "
                                      "a negative slope which is not supported."));
  const Tensor b = elu_(x.mul(1), -0.5);
  REQUIRE_THROWS_WITH(b.sum().backward(),
                      Catch::Contains("In-place elu backward calculation is triggered with a "
                                      "negative slope which is not supported."));
  // Out of place, a negative slope is fine.
  const Tensor c = leaky_relu(x, -0.5);
  c.sum().backward();
  CHECK(values(x.grad()) == V{-0.5, 1});
}

TEST_CASE("activations: dtypes, empty inputs, integer hardtanh", "[nn]") {
  for (DType dt : {kHalf, kBFloat16}) {
    for (const Case& c : kCases) {
      INFO(c.name << " " << dt);
      const Tensor y = op_named(c.name)(from(kX, dt));
      CHECK(y.dtype() == dt);
      // The reference rounded to the dtype, and the result within a few of its ulps.
      V want = c.out;
      require_close(values(y), values(from(want, dt)), dt == kHalf ? 4e-3 : 2e-2);
    }
  }
  for (const Case& c : kCases) {
    const Tensor e = op_named(c.name)(empty({0, 3}, dtype(kFloat)));
    CHECK(e.sizes() == IntArrayRef{0, 3});
  }
  const Tensor i = from({-8, -1, 0, 3, 9}, kLong);
  CHECK(relu6(i).dtype() == kLong);
  CHECK(values(relu6(i)) == V{0, 0, 0, 3, 6});
  CHECK(values(hardtanh(i, -2, 5)) == V{-2, -1, 0, 3, 5});
  // min_val > max_val: max_val wins, as torch's clamp; NaN passes through.
  CHECK(values(hardtanh(from({-2, 0.5, 3}), 1, -1)) == V{-1, -1, -1});
  CHECK(std::isnan(values(hardtanh(from({NAN})))[0]));
  CHECK(std::isnan(values(leaky_relu(from({NAN})))[0]));
}

TEST_CASE("activations: out= forms", "[nn]") {
  const Tensor x = from(kX);
  const Tensor out = empty({12}, dtype(kDouble));
  CHECK(leaky_relu_out(out, x, 0.3).is_same(out));
  CHECK(values(out) == values(leaky_relu(x, 0.3)));
  elu_out(out, x, 0.5);
  CHECK(values(out) == values(elu(x, 0.5)));
  hardtanh_out(out, x, -1, 2);
  CHECK(values(out) == values(hardtanh(x, -1, 2)));
  hardsigmoid_out(out, x);
  CHECK(values(out) == values(hardsigmoid(x)));
  hardswish_out(out, x);
  CHECK(values(out) == values(hardswish(x)));
  mish_out(out, x);
  CHECK(values(out) == values(mish(x)));
  const Tensor g = from(kX).requires_grad_();
  REQUIRE_THROWS_WITH(mish_out(out, g),
                      Catch::Contains("mish(): functions with out=... arguments don't support "
                                      "automatic differentiation"));
  REQUIRE_THROWS_WITH(leaky_relu_out(empty({12}, dtype(kFloat)), x),
                      Catch::Contains("Found dtype Float but expected Double"));
}

TEST_CASE("activations: error paths", "[nn]") {
  const Tensor l = from({1, 2}, kLong);
  const Tensor b = from({1, 0}, kBool);
  const std::vector<std::pair<Fn, std::string>> kernels{
      {[](const Tensor& x) { return leaky_relu(x); }, "leaky_relu_cpu"},
      {[](const Tensor& x) { return elu(x); }, "elu_cpu"},
      {[](const Tensor& x) { return selu(x); }, "elu_cpu"},
      {[](const Tensor& x) { return mish(x); }, "mish_cpu"},
      {[](const Tensor& x) { return hardsigmoid(x); }, "hardsigmoid_cpu"},
      {[](const Tensor& x) { return hardswish(x); }, "hardswish_cpu"},
      {[](const Tensor& x) { return F::silu(x); }, "silu_cpu"},
      {[](const Tensor& x) { return F::gelu(x); }, "GeluKernelImpl"},
      {[](const Tensor& x) { return F::softplus(x); }, "softplus_cpu"}};
  for (const auto& [f, kernel] : kernels) {
    INFO(kernel);
    REQUIRE_THROWS_AS(f(l), Error);
    REQUIRE_THROWS_WITH(f(l), "\"" + kernel + "\" not implemented for 'Long'");
    REQUIRE_THROWS_WITH(f(b), "\"" + kernel + "\" not implemented for 'Bool'");
  }
  REQUIRE_THROWS_AS(hardtanh(b), Error);
  REQUIRE_THROWS_WITH(hardtanh(b), "Bool inputs not supported for hardtanh");
  REQUIRE_THROWS_WITH(F::relu6(b), "Bool inputs not supported for hardtanh");
  REQUIRE_THROWS_WITH(F::relu(b), "Boolean inputs not supported for relu");
  REQUIRE_THROWS_WITH(F::gelu(from({1}), F::GELUFuncOptions().approximate("exact")),
                      "approximate argument must be either none or tanh.");
  // In place on a leaf that requires grad.
  const Tensor leaf = from({1, 2}).requires_grad_();
  REQUIRE_THROWS_WITH(F::elu(leaf, F::ELUFuncOptions().inplace(true)),
                      "a leaf Variable that requires grad is being used in an in-place operation.");
}

}  // namespace nn_functional_activation_test
