// Elementwise ops on Vulkan against the CPU: the same front ends (promotion, broadcasting,
// out= and in-place rules, autograd), the kernel step on the device.
#include "test_util.hpp"

#include <tensorplay/tensorplay.hpp>

#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace vulkan_pointwise_test {

using namespace tensorplay;

namespace {

const TensorOptions kVk = TensorOptions().device(kVulkan);

// Random float32 values in [-3, 3), with special values sprinkled in when `special`.
Tensor values(IntArrayRef sizes, bool special = false) {
  Tensor t = rand(sizes) * 6 - 3;
  if (special && t.numel() >= 6) {
    Tensor flat = t.view({-1});
    const float inf = std::numeric_limits<float>::infinity();
    const float specials[] = {std::nanf(""), inf, -inf, 0.0f, -0.0f, 1.0f};
    for (int i = 0; i < 6; ++i) flat[i * (t.numel() / 6)].fill_(specials[i]);
  }
  return t;
}

// A Vulkan copy of `t` laid out with the strides of `t.t()`-style transposes (dims reversed),
// so kernels see a non-contiguous device operand.
Tensor strided_on_device(const Tensor& t) {
  std::vector<int64_t> strides(t.dim());
  int64_t next = 1;
  for (int64_t d = 0; d < t.dim(); ++d) {
    strides[d] = next;
    next *= std::max<int64_t>(t.size(d), 1);
  }
  Tensor v = empty_strided(t.sizes(), strides, kVk.dtype(t.dtype()));
  v.copy_(t);
  return v;
}

void check_same(const Tensor& vk, const Tensor& cpu, double rtol = 1e-5, double atol = 1e-6) {
  REQUIRE(vk.device().type() == DeviceType::Vulkan);
  const Tensor got = vk.cpu();
  CHECK(got.dtype() == cpu.dtype());
  CHECK(got.sizes() == cpu.sizes());
  if (got.dtype() == kBool) {
    CHECK(got.equal(cpu));
  } else {
    const bool close = allclose(got, cpu, rtol, atol, /*equal_nan=*/true);
    if (!close) {
      UNSCOPED_INFO("vulkan: " << got << "\ncpu: " << cpu);
    }
    CHECK(close);
  }
}

using Binary = std::function<Tensor(const Tensor&, const Tensor&)>;

const std::vector<std::pair<std::string, Binary>>& binary_ops() {
  static const std::vector<std::pair<std::string, Binary>> ops = {
      {"add", [](const Tensor& a, const Tensor& b) { return a + b; }},
      {"add alpha", [](const Tensor& a, const Tensor& b) { return add(a, b, 2.5); }},
      {"sub alpha", [](const Tensor& a, const Tensor& b) { return sub(a, b, -0.5); }},
      {"mul", [](const Tensor& a, const Tensor& b) { return a * b; }},
      {"div", [](const Tensor& a, const Tensor& b) { return a / b; }},
      {"maximum", [](const Tensor& a, const Tensor& b) { return maximum(a, b); }},
      {"minimum", [](const Tensor& a, const Tensor& b) { return minimum(a, b); }},
      {"pow", [](const Tensor& a, const Tensor& b) { return pow(a, b); }},
      {"eq", [](const Tensor& a, const Tensor& b) { return a == b; }},
      {"ne", [](const Tensor& a, const Tensor& b) { return a != b; }},
      {"lt", [](const Tensor& a, const Tensor& b) { return a < b; }},
      {"le", [](const Tensor& a, const Tensor& b) { return a <= b; }},
      {"gt", [](const Tensor& a, const Tensor& b) { return a > b; }},
      {"ge", [](const Tensor& a, const Tensor& b) { return a >= b; }},
      {"atan2", [](const Tensor& a, const Tensor& b) { return atan2(a, b); }},
      {"remainder", [](const Tensor& a, const Tensor& b) { return remainder(a, b); }},
      {"fmod", [](const Tensor& a, const Tensor& b) { return fmod(a, b); }},
      {"div trunc", [](const Tensor& a, const Tensor& b) { return a.div(b, "trunc"); }},
      {"div floor", [](const Tensor& a, const Tensor& b) { return a.div(b, "floor"); }},
  };
  return ops;
}

}  // namespace

TEST_CASE("binary ops on Vulkan broadcast and compute like the CPU", "[vulkan][pointwise]") {
  TP_REQUIRE_VULKAN();
  const std::vector<std::pair<std::vector<int64_t>, std::vector<int64_t>>> shapes = {
      {{7}, {7}},           {{3, 1}, {1, 5}},       {{2, 3, 4}, {4}},    {{}, {5}},
      {{1000}, {}},         {{4, 1, 3}, {2, 1}},    {{0, 3}, {3}},       {{17, 33}, {17, 33}},
      {{2, 3, 2, 3, 2}, {2, 1, 2, 1, 2}},  // five dimensions that do not coalesce
  };
  for (const auto& [name, op] : binary_ops()) {
    for (const auto& [sa, sb] : shapes) {
      CAPTURE(name, sa, sb);
      const Tensor a = values(sa, true), b = values(sb);
      check_same(op(a.vulkan(), b.vulkan()), op(a, b));
    }
    // Non-contiguous device operands (and a result laid out like them).
    const Tensor a = values({5, 6}), b = values({5, 6});
    CAPTURE(name);
    check_same(op(strided_on_device(a), strided_on_device(b)), op(a, b));
    check_same(op(strided_on_device(a), b.vulkan()), op(a, b));
  }
}

TEST_CASE("numbers mix with Vulkan tensors as wrapped constants", "[vulkan][pointwise]") {
  TP_REQUIRE_VULKAN();
  const Tensor a = values({4, 5}, true);
  const Tensor v = a.vulkan();
  check_same(v + 2, a + 2);
  check_same(v * 0.5, a * 0.5);
  check_same(3 - v, 3 - a);
  check_same(2 / v, 2 / a);
  check_same(v > 0, a > 0);
  check_same(v.pow(2), a.pow(2));
  check_same(pow(2, v), pow(2, a));
  // A CPU 0-d tensor goes with Vulkan tensors as a number does (PyTorch's rule)...
  check_same(v * tensor(1.5f), a * tensor(1.5f));
  // ...but another CPU tensor does not.
  CHECK_THROWS_WITH(v + a, Catch::Contains("Expected all tensors to be on the same device"));
  CHECK_THROWS_WITH(a + v, Catch::Contains("Expected all tensors to be on the same device"));
}

TEST_CASE("pow follows C's special cases on Vulkan", "[vulkan][pointwise]") {
  TP_REQUIRE_VULKAN();
  const float inf = std::numeric_limits<float>::infinity(), nan = std::nanf("");
  const std::vector<float> xs = {-2, -1, -0.5f, -0.0f, 0, 0.5f, 1, 2, inf, -inf, nan};
  const std::vector<float> ys = {-3, -2, -0.5f, 0, 0.5f, 1, 2, 3, inf, -inf, nan};
  const Tensor x = tensor(xs).view({-1, 1}), y = tensor(ys).view({1, -1});
  check_same(pow(x.vulkan(), y.vulkan()), pow(x, y), 1e-5, 1e-6);
}

TEST_CASE("unary ops and clamp on Vulkan compute like the CPU", "[vulkan][pointwise]") {
  TP_REQUIRE_VULKAN();
  using Unary = std::function<Tensor(const Tensor&)>;
  const std::vector<std::pair<std::string, Unary>> ops = {
      {"neg", [](const Tensor& t) { return -t; }},
      {"abs", [](const Tensor& t) { return t.abs(); }},
      {"exp", [](const Tensor& t) { return t.exp(); }},
      {"log", [](const Tensor& t) { return t.log(); }},
      {"sqrt", [](const Tensor& t) { return t.sqrt(); }},
      {"rsqrt", [](const Tensor& t) { return t.rsqrt(); }},
      {"tanh", [](const Tensor& t) { return t.tanh(); }},
      {"sigmoid", [](const Tensor& t) { return t.sigmoid(); }},
      {"relu", [](const Tensor& t) { return t.relu(); }},
      {"gelu", [](const Tensor& t) { return t.gelu(); }},
      {"gelu tanh", [](const Tensor& t) { return t.gelu("tanh"); }},
      {"silu", [](const Tensor& t) { return silu(t); }},
      {"sin", [](const Tensor& t) { return t.sin(); }},
      {"cos", [](const Tensor& t) { return t.cos(); }},
      {"reciprocal", [](const Tensor& t) { return t.reciprocal(); }},
      {"square", [](const Tensor& t) { return t.square(); }},
      {"clamp", [](const Tensor& t) { return t.clamp(-1, 0.5); }},
      {"clamp min", [](const Tensor& t) { return t.clamp(0.25, std::nullopt); }},
      {"clamp max", [](const Tensor& t) { return t.clamp(std::nullopt, -0.25); }},
      {"clamp nan bound", [](const Tensor& t) { return t.clamp(std::nanf(""), 1); }},
      // tan away from its poles, asin/acos mostly inside [-1, 1].
      {"tan", [](const Tensor& t) { return (t * 0.45).tan(); }},
      {"asin", [](const Tensor& t) { return (t / 2.5).asin(); }},
      {"acos", [](const Tensor& t) { return (t / 2.5).acos(); }},
      {"atan", [](const Tensor& t) { return t.atan(); }},
      {"sinh", [](const Tensor& t) { return t.sinh(); }},
      {"cosh", [](const Tensor& t) { return t.cosh(); }},
      {"exp2", [](const Tensor& t) { return t.exp2(); }},
      {"expm1", [](const Tensor& t) { return t.expm1(); }},
      {"log2", [](const Tensor& t) { return t.log2(); }},
      {"log10", [](const Tensor& t) { return t.log10(); }},
      {"log1p", [](const Tensor& t) { return t.log1p(); }},
      {"erf", [](const Tensor& t) { return t.erf(); }},
      {"floor", [](const Tensor& t) { return t.floor(); }},
      {"ceil", [](const Tensor& t) { return t.ceil(); }},
      {"trunc", [](const Tensor& t) { return t.trunc(); }},
      {"round", [](const Tensor& t) { return (t * 2).round(); }},  // halves: to even
  };
  for (const auto& [name, op] : ops) {
    for (const auto& shape : std::vector<std::vector<int64_t>>{{}, {1}, {300}, {3, 0}, {6, 7, 5}}) {
      CAPTURE(name, shape);
      const Tensor a = values(shape, true);
      check_same(op(a.vulkan()), op(a), 1e-5, 2e-6);
    }
    CAPTURE(name);
    const Tensor a = values({9, 4}, true);
    check_same(op(strided_on_device(a)), op(a), 1e-5, 2e-6);
    // Larger arguments, where exp overflows and tanh saturates.
    const Tensor big = values({64}) * 30;
    check_same(op(big.vulkan()), op(big), 1e-5, 2e-6);
  }
}

TEST_CASE("where on Vulkan takes a bool condition and broadcasts", "[vulkan][pointwise]") {
  TP_REQUIRE_VULKAN();
  const Tensor c = rand({3, 1, 5}) > 0.5, a = values({4, 5}), b = values({5});
  check_same(where(c.vulkan(), a.vulkan(), b.vulkan()), where(c, a, b));
  check_same(where(c.vulkan(), a.vulkan(), 0.0), where(c, a, 0.0));
  // Comparisons produce the condition on the device.
  const Tensor v = a.vulkan();
  check_same(where(v > 0, v, -v), where(a > 0, a, -a));
}

TEST_CASE("in-place and out= elementwise ops write Vulkan tensors", "[vulkan][pointwise]") {
  TP_REQUIRE_VULKAN();
  const Tensor a = values({6, 7}), b = values({7});
  Tensor v = a.vulkan();
  const int64_t version = v._version();
  v.add_(b.vulkan(), 2);
  CHECK(v._version() == version + 1);
  check_same(v, a + 2 * b);
  v.mul_(0.5).exp_().clamp_(0, 2);
  check_same(v, (a + 2 * b).mul(0.5).exp().clamp(0, 2));
  // out=: resized to the result, also when it is laid out otherwise.
  Tensor out = empty({0}, kVk);
  add_out(out, a.vulkan(), b.vulkan());
  check_same(out, a + b);
  Tensor strided = strided_on_device(zeros({6, 7}));
  mul_out(strided, a.vulkan(), b.vulkan());
  CHECK(strided.stride(0) == 1);
  check_same(strided, a * b);
  // A bool out= of a comparison, and one written through a strided layout.
  Tensor mask = strided_on_device(zeros({6, 7}, kBool));
  gt_out(mask, a.vulkan(), b.vulkan());
  check_same(mask, a > b);
}

TEST_CASE("integer inputs promote to float32 on Vulkan where the CPU promotes",
          "[vulkan][pointwise]") {
  TP_REQUIRE_VULKAN();
  const Tensor i = arange(12, kLong).reshape({3, 4});
  const Tensor f = values({4});
  check_same(i.vulkan() + f.vulkan(), i + f);  // long + float -> float
  check_same(i.vulkan() / 4, i / 4);           // true division of integers -> float
  check_same(i.vulkan().sqrt(), i.sqrt());     // a float op of integers -> float
  check_same(i.vulkan() > 5.5, i > 5.5);
}

TEST_CASE("elementwise ops Vulkan cannot run raise typed errors", "[vulkan][pointwise][errors]") {
  TP_REQUIRE_VULKAN();
  const Tensor i = arange(4, kInt).vulkan();
  const Tensor f = ones({4}, kVk);
  // Ops without a shader: PyTorch's "Could not run" wording, as NotImplementedError, naming
  // the op when it has a code.
  CHECK_THROWS_AS(f.sign(), NotImplementedError);
  CHECK_THROWS_WITH(f.frac(), Catch::Contains("Could not run 'aten::frac' with arguments from "
                                              "the 'Vulkan' backend"));
  // An op the typed shaders lack for a dtype (the front ends promote integers before any such
  // op reaches the device, so the kernel's own check is called directly): TypeError naming the
  // dtypes it has.
  using vulkan::detail::pointwise_shaders_for;
  CHECK_THROWS_AS(pointwise_shaders_for(kInt, PointwiseCode::Exp, "aten::exp"), TypeError);
  CHECK_THROWS_WITH(pointwise_shaders_for(kLong, PointwiseCode::Sqrt, "aten::sqrt"),
                    Catch::Contains("'aten::sqrt' on the Vulkan backend computes in float32 (and "
                                    "float64); got a tensor of dtype Long"));
  CHECK_THROWS_WITH(pointwise_shaders_for(kHalf, PointwiseCode::Add, "aten::add"),
                    Catch::Contains("computes in float32 (and int32, int64, float64)"));
  // The operands are untouched.
  CHECK(f.cpu().equal(ones({4})));
  CHECK(i.cpu().equal(arange(4, kInt)));
}

TEST_CASE("gradients of elementwise ops flow on Vulkan", "[vulkan][pointwise][autograd]") {
  TP_REQUIRE_VULKAN();
  const Tensor a = values({3, 4}), b = values({4});
  const Tensor x = a.vulkan().requires_grad_(), y = b.vulkan().requires_grad_();
  const Tensor z = (x * y + x.exp()).tanh();
  z.backward(ones({3, 4}, kVk));
  const Tensor xc = a.clone().requires_grad_(), yc = b.clone().requires_grad_();
  (xc * yc + xc.exp()).tanh().backward(ones({3, 4}));
  REQUIRE(x.grad().defined());
  check_same(x.grad(), xc.grad(), 1e-4, 1e-5);
  // y broadcast: its gradient is a sum over the broadcast dimension, which needs a reduction on
  // the device (the reduction kernels are the reduction tests' business; here: it matches).
  if (y.grad().defined()) check_same(y.grad(), yc.grad(), 1e-4, 1e-5);
}

TEST_CASE("fmod and remainder on Vulkan are exact for large quotients, as C's fmod",
          "[vulkan][pointwise]") {
  TP_REQUIRE_VULKAN();
  // x - trunc(x / y) * y loses every digit here; the shader's subtraction loop does not.
  const Tensor x = tensor({1e30, -3e25, 7.5e12, 16777217.0, -4.0, 4.0}, kFloat);
  const Tensor y = tensor({3.0, 7.0, -0.1, 2.0, 2.0, -3.0}, kFloat);
  check_same(x.vulkan().fmod(y.vulkan()), x.fmod(y), 0.0, 0.0);
  check_same(x.vulkan().remainder(y.vulkan()), x.remainder(y), 0.0, 0.0);
  check_same(div(x.vulkan(), y.vulkan(), "floor"), div(x, y, "floor"), 0.0, 0.0);
  // A zero remainder keeps the dividend's sign.
  CHECK(std::signbit(x.vulkan().fmod(y.vulkan()).cpu()[4].item<float>()));
}

}  // namespace vulkan_pointwise_test
