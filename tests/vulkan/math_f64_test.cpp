// The float64 transcendental functions of the Vulkan backend (shaders/math_f64.glsl, through
// pointwise_typed.glsl) against the CPU (glibc and ops/vec_trig.hpp): within 2 ulp on random
// values over each function's whole range (sin and cos up to 1e308, exp to its overflow and into
// the subnormals, pow over mixed signs, integer and non-integer exponents), exactly on the
// special values (NaN, +-inf, +-0, overflow, underflow, C's pow and atan2 cases); gelu within
// what its formula's cancellation allows; autograd, broadcasting, strided operands, in place and
// out=.
#include "test_util.hpp"

#include <tensorplay/tensorplay.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace vulkan_math_f64_test {

using namespace tensorplay;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// The distance in ulps between two doubles: the number of doubles between them (0 for two NaNs;
// a NaN against a number, or -0 against +0, counts as far apart).
double ulp_distance(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : 1e300;
  if (a == 0 && b == 0) return std::signbit(a) == std::signbit(b) ? 0 : 1e300;
  const auto ordered = [](double x) {
    std::int64_t i;
    std::memcpy(&i, &x, sizeof i);
    return i < 0 ? std::numeric_limits<std::int64_t>::min() - i : i;  // -0 and +0 both 0
  };
  const std::int64_t oa = ordered(a), ob = ordered(b);
  if ((oa < 0) != (ob < 0)) return std::fabs(double(oa)) + std::fabs(double(ob));  // no overflow
  return static_cast<double>(oa > ob ? oa - ob : ob - oa);
}

Tensor from(const std::vector<double>& v) {
  Tensor t = empty({static_cast<int64_t>(v.size())}, kDouble);
  std::memcpy(t.data_ptr<double>(), v.data(), v.size() * sizeof(double));
  return t;
}

std::vector<double> values_of(const Tensor& t) {
  const Tensor c = t.cpu().contiguous();
  REQUIRE(c.dtype() == kDouble);
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

// The largest ulp distance between the Vulkan result and the CPU's, with the input where it is.
struct Worst {
  double ulps = 0;
  std::string where;
};
Worst compare(const Tensor& vk, const Tensor& cpu, const std::vector<double>& x,
              const std::vector<double>& y = {}) {
  REQUIRE(vk.is_vulkan());
  REQUIRE(vk.sizes() == cpu.sizes());
  const std::vector<double> got = values_of(vk), want = values_of(cpu);
  Worst w;
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double u = ulp_distance(got[i], want[i]);
    if (u > w.ulps) {
      std::ostringstream s;
      s.precision(17);
      s << "x = " << x[i];
      if (!y.empty()) s << ", y = " << y[i];
      s << ": vulkan " << got[i] << ", cpu " << want[i];
      w = {u, s.str()};
    }
  }
  return w;
}

// The special values: where the CPU's result is NaN, +-inf, +-0, +-1 or the argument itself
// (overflow, underflow, a function's exact values), the same bits; elsewhere within 2 ulp.
// Returns a description of the first value that is not.
std::string check_specials(const Tensor& vk, const Tensor& cpu, const std::vector<double>& x,
                           const std::vector<double>& y = {}) {
  const std::vector<double> got = values_of(vk), want = values_of(cpu);
  for (std::size_t i = 0; i < got.size(); ++i) {
    const double w = want[i];
    const bool exact = std::isnan(w) || std::isinf(w) || w == 0 || std::fabs(w) == 1 || w == x[i];
    if (ulp_distance(got[i], w) > (exact ? 0 : 2)) {
      std::ostringstream s;
      s.precision(17);
      s << "x = " << x[i];
      if (!y.empty()) s << ", y = " << y[i];
      s << ": vulkan " << got[i] << ", cpu " << w;
      return s.str();
    }
  }
  return "";
}

std::mt19937_64& rng() {
  static std::mt19937_64 r(20240611);
  return r;
}
// n values uniform in [lo, hi].
std::vector<double> uniform(int n, double lo, double hi) {
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<double> v(n);
  for (double& x : v) x = d(rng());
  return v;
}
// n values 2^e with e uniform in [lo, hi], of either sign if `signed_`.
std::vector<double> log_uniform(int n, double lo, double hi, bool signed_) {
  std::uniform_real_distribution<double> e(lo, hi);
  std::bernoulli_distribution s(0.5);
  std::vector<double> v(n);
  for (double& x : v) x = (signed_ && s(rng()) ? -1.0 : 1.0) * std::exp2(e(rng()));
  return v;
}
std::vector<double> join(std::vector<std::vector<double>> parts) {
  std::vector<double> all;
  for (const auto& p : parts) all.insert(all.end(), p.begin(), p.end());
  return all;
}

// Special values, and ordinary ones around them (see check_specials).
const std::vector<double>& specials() {
  static const std::vector<double> v = {
      0.0,      -0.0,     kInf,      -kInf,      kNaN,     1.0,       -1.0,
      0.5,      -0.5,     2.0,       -2.0,       3.0,      1e-310,    -1e-310,
      5e-324,   -5e-324,  1e-300,    1e300,      -1e300,   709.78,    709.79,
      710.4,    710.5,    -745.1,    -745.2,     -746.0,   1e22,      -1e22,
      0x1p1023, 0x1p-1022, 1.5707963267948966, 3.141592653589793, 6.283185307179586, 20.0,
      -20.0,    0.75,     5.95,      -6.5,       1e-17,    -1e-17};
  return v;
}

bool has_float64() {
  if (vulkan::context().has_float64()) return true;
  WARN("SKIPPED: the Vulkan device has no shaderFloat64");
  return false;
}

using Unary = std::function<Tensor(const Tensor&)>;
struct UnaryCase {
  const char* name;
  Unary fn;
  std::vector<double> values;
};

}  // namespace

TEST_CASE("float64 transcendental functions on Vulkan are within 2 ulp of the CPU",
          "[vulkan][pointwise][float64][math]") {
  TP_REQUIRE_VULKAN();
  if (!has_float64()) return;
  const int n = 4000;
  // Moderate and huge arguments of the trigonometric functions: Cody and Waite's reduction up to
  // 2^17, Payne and Hanek's beyond (1e22, 1e300 and everything up to 2^1024).
  const auto trig_values = [&] {
    return join({uniform(n, -10, 10), uniform(n, -2e5, 2e5), uniform(n / 4, 1e5, 1e6),
                 log_uniform(n, -30, 1024, true),
                 {1e5, 1e22, -1e22, 1e300, 0x1.fffffffffffffp1023}});
  };
  const std::vector<UnaryCase> cases = {
      {"exp", [](const Tensor& x) { return x.exp(); },
       join({uniform(n, -746, 711), uniform(n, -1, 1)})},
      {"expm1", [](const Tensor& x) { return x.expm1(); },
       join({uniform(n, -40, 711), uniform(n, -1, 1), log_uniform(n, -60, 0, true)})},
      {"exp2", [](const Tensor& x) { return x.exp2(); },
       join({uniform(n, -1080, 1030), uniform(n, -1, 1)})},
      {"log", [](const Tensor& x) { return x.log(); },
       join({log_uniform(n, -1074, 1024, false), uniform(n, 0.5, 2)})},
      {"log2", [](const Tensor& x) { return x.log2(); },
       join({log_uniform(n, -1074, 1024, false), uniform(n, 0.5, 2)})},
      {"log10", [](const Tensor& x) { return x.log10(); },
       join({log_uniform(n, -1074, 1024, false), uniform(n, 0.5, 2), {10, 100, 1e22}})},
      {"log1p", [](const Tensor& x) { return x.log1p(); },
       join({log_uniform(n, -1074, 1024, false), uniform(n, -1, 1),
             log_uniform(n, -60, 0, true)})},
      {"sin", [](const Tensor& x) { return x.sin(); }, trig_values()},
      {"cos", [](const Tensor& x) { return x.cos(); }, trig_values()},
      {"tan", [](const Tensor& x) { return x.tan(); }, trig_values()},
      {"asin", [](const Tensor& x) { return x.asin(); },
       join({uniform(n, -1, 1), log_uniform(n, -60, 0, true)})},
      {"acos", [](const Tensor& x) { return x.acos(); },
       join({uniform(n, -1, 1), log_uniform(n, -60, 0, true)})},
      {"atan", [](const Tensor& x) { return x.atan(); },
       join({uniform(n, -4, 4), log_uniform(n, -1074, 1024, true)})},
      {"sinh", [](const Tensor& x) { return x.sinh(); },
       join({uniform(n, -711, 711), uniform(n, -2, 2)})},
      {"cosh", [](const Tensor& x) { return x.cosh(); },
       join({uniform(n, -711, 711), uniform(n, -2, 2)})},
      {"tanh", [](const Tensor& x) { return x.tanh(); },
       join({uniform(n, -25, 25), uniform(n, -1, 1), log_uniform(n, -60, 0, true)})},
      {"erf", [](const Tensor& x) { return x.erf(); },
       join({uniform(n, -7, 7), log_uniform(n, -60, 3, true)})},
      {"sigmoid", [](const Tensor& x) { return x.sigmoid(); },
       join({uniform(n, -750, 750), uniform(n, -5, 5)})},
      {"silu", [](const Tensor& x) { return silu(x); },
       join({uniform(n, -750, 750), uniform(n, -5, 5)})},
  };
  for (const UnaryCase& c : cases) {
    SECTION(c.name) {
      const std::vector<double> x = c.values;
      const Tensor cpu = from(x);
      const Worst w = compare(c.fn(cpu.vulkan()), c.fn(cpu), x);
      INFO(c.name << ": max " << w.ulps << " ulp at " << w.where);
      CHECK(w.ulps <= 2);
      // The special values exactly (an ulp off a 0 or an inf is a wrong special value).
      const Tensor s = from(specials());
      const std::string bad = check_specials(c.fn(s.vulkan()), c.fn(s), specials());
      INFO(c.name << " on special values: " << bad);
      CHECK(bad.empty());
    }
  }
}

TEST_CASE("float64 gelu on Vulkan follows the CPU's formula",
          "[vulkan][pointwise][float64][math]") {
  TP_REQUIRE_VULKAN();
  if (!has_float64()) return;
  // x / 2 (1 + erf(x / sqrt 2)) (and the tanh form) cancel for negative x: an ulp of erf near -1
  // is a large relative error of 1 + erf, the same on both sides. So either within 2 ulp, or
  // within an ulp of 1 (times |x| / 2, doubled) of each other.
  const std::vector<double> x =
      join({uniform(4000, -10, 10), uniform(1000, -1, 1), {1e200, -1e200, 0.0, -0.0, kInf}});
  for (const bool tanh_form : {false, true}) {
    const auto fn = [&](const Tensor& t) { return tanh_form ? gelu(t, "tanh") : gelu(t); };
    const Tensor cpu = from(x);
    const std::vector<double> got = values_of(fn(cpu.vulkan())), want = values_of(fn(cpu));
    for (std::size_t i = 0; i < x.size(); ++i) {
      const bool close = ulp_distance(got[i], want[i]) <= 2 ||
                         std::fabs(got[i] - want[i]) <= std::fabs(x[i]) * 0x1p-52;
      if (!close) {
        INFO((tanh_form ? "gelu tanh" : "gelu") << " at " << x[i] << ": vulkan " << got[i]
                                                << ", cpu " << want[i]);
        CHECK(close);
      }
    }
    // -inf gives NaN in both (x (1 + erf) is -inf * 0), as on the CPU.
    CHECK(std::isnan(values_of(fn(from({-kInf}).vulkan()))[0]));
  }
}

TEST_CASE("float64 pow and atan2 on Vulkan are within 2 ulp of the CPU, exact in C's cases",
          "[vulkan][pointwise][float64][math]") {
  TP_REQUIRE_VULKAN();
  if (!has_float64()) return;
  const int n = 4000;
  // Bases of both signs and every magnitude; exponents integers (so negative bases give numbers)
  // and not, small and large (results overflow and underflow into the subnormals).
  std::vector<double> base = join({log_uniform(n, -20, 20, true), uniform(n, 0, 3),
                                   log_uniform(n, -1074, 1024, false), uniform(n, -2, 2)});
  std::vector<double> expo = join({uniform(n, -30, 30), uniform(n, -300, 300), uniform(n, -2, 2),
                                   uniform(n, -60, 60)});
  for (int i = 0; i < n; ++i) expo[i] = std::round(expo[i]);  // negative bases: integers
  for (int i = 3 * n; i < 4 * n; i += 2) expo[i] = std::round(expo[i]);
  // Every pair of special values.
  std::vector<double> sb, se;
  for (const double a : specials()) {
    for (const double b : specials()) {
      sb.push_back(a);
      se.push_back(b);
    }
  }
  const std::vector<double> odd = {-1, -0.0, 0.0, -2, -kInf, kInf, -1, -3};
  const std::vector<double> odd_e = {1e300, 3, -3, 1025, -1, 2.5, kNaN, 0.5};
  sb.insert(sb.end(), odd.begin(), odd.end());
  se.insert(se.end(), odd_e.begin(), odd_e.end());

  SECTION("pow") {
    const Tensor b = from(base), e = from(expo);
    const Worst w = compare(b.vulkan().pow(e.vulkan()), b.pow(e), base, expo);
    INFO("pow: max " << w.ulps << " ulp at " << w.where);
    CHECK(w.ulps <= 2);
    const Tensor s = from(sb), t = from(se);
    const std::string bad = check_specials(s.vulkan().pow(t.vulkan()), s.pow(t), sb, se);
    INFO("pow on special values: " << bad);
    CHECK(bad.empty());
  }
  SECTION("atan2") {
    const std::vector<double> y = join({log_uniform(n, -1074, 1024, true), uniform(n, -3, 3)});
    const std::vector<double> x = join({log_uniform(n, -1074, 1024, true), uniform(n, -3, 3)});
    const Tensor ty = from(y), tx = from(x);
    const Worst w = compare(atan2(ty.vulkan(), tx.vulkan()), atan2(ty, tx), y, x);
    INFO("atan2: max " << w.ulps << " ulp at " << w.where);
    CHECK(w.ulps <= 2);
    const Tensor s = from(sb), t = from(se);
    const std::string bad = check_specials(atan2(s.vulkan(), t.vulkan()), atan2(s, t), sb, se);
    INFO("atan2 on special values: " << bad);
    CHECK(bad.empty());
  }
}

TEST_CASE("float64 transcendental functions on Vulkan: autograd, broadcasting, strides, in place",
          "[vulkan][pointwise][float64][math]") {
  TP_REQUIRE_VULKAN();
  if (!has_float64()) return;
  const auto within = [](const Tensor& vk, const Tensor& cpu, double ulps) {
    REQUIRE(vk.is_vulkan());
    REQUIRE(vk.dtype() == kDouble);
    const Worst w = compare(vk, cpu, values_of(cpu));
    INFO("max " << w.ulps << " ulp at " << w.where);
    CHECK(w.ulps <= ulps);
  };
  const Tensor a = rand({6, 5}, kDouble) * 8 - 4;
  SECTION("autograd") {
    // exp's gradient is its result; tanh's and sigmoid's are built from theirs.
    Tensor xv = a.vulkan().requires_grad_(), xc = a.clone().requires_grad_();
    (xv.exp().sum() + xv.tanh().sum() + xv.sigmoid().sum()).backward();
    (xc.exp().sum() + xc.tanh().sum() + xc.sigmoid().sum()).backward();
    REQUIRE(xv.grad().defined());
    // Sums of terms such as 1 - tanh(x)^2 cancel, so a 1-ulp difference in a function value can
    // be many ulps of the gradient: compared to float64 precision in absolute terms instead.
    CHECK(allclose(xv.grad().cpu(), xc.grad(), 1e-14, 1e-15));
    Tensor pv = a.abs().vulkan().requires_grad_(), pc = a.abs().requires_grad_();
    pv.pow(2.5).log().sum().backward();
    pc.pow(2.5).log().sum().backward();
    within(pv.grad(), pc.grad(), 4);
  }
  SECTION("broadcasting and strided operands") {
    const Tensor row = rand({5}, kDouble) * 4 - 2;
    within(a.abs().vulkan().pow(row.vulkan()), a.abs().pow(row), 2);       // broadcast exponent
    within(atan2(a.vulkan().t(), a.t().contiguous().vulkan()), atan2(a.t(), a.t()), 2);
    within(a.vulkan().t().sin(), a.t().sin(), 2);                          // transposed input
    within(a.vulkan().narrow(1, 1, 3).log1p(), a.narrow(1, 1, 3).log1p(), 2);
    within(a.vulkan().pow(2.0), a.pow(2.0), 2);  // a wrapped exponent (uploaded)
    within(pow(2.0, a.vulkan()), pow(2.0, a), 2);
  }
  SECTION("in place and out=") {
    Tensor v = a.vulkan().clone();
    v.exp_();
    within(v, a.exp(), 2);
    Tensor wt = a.vulkan().clone().t();
    wt.cos_();  // strided, in place
    within(wt, a.t().cos(), 2);
    Tensor out = empty({6, 5}, kDouble).vulkan();
    erf_out(out, a.vulkan());
    within(out, a.erf(), 2);
    Tensor pout = empty({6, 5}, kDouble).vulkan();
    pow_out(pout, a.abs().vulkan(), a.vulkan());
    within(pout, a.abs().pow(a), 2);
  }
}

}  // namespace vulkan_math_f64_test
