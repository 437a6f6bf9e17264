// Unary elementwise ops: values against double-precision references computed here with <cmath>
// (specials included), PyTorch 1.13's dtype rules, the in-place / out= / method forms, strided
// inputs, and every error path.
#include <tensorplay/ops/unary.hpp>
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace ops_unary_test {

using namespace tensorplay;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// Row-major values in, any dtype (static_cast from double, so only values the dtype holds).
Tensor make(const std::vector<double>& v, DType dt, std::vector<int64_t> sizes = {}) {
  if (sizes.empty()) sizes = {int64_t(v.size())};
  Tensor t = empty(sizes, dt);
  REQUIRE(t.numel() == int64_t(v.size()));
  dispatch_dtype(dt, [&]<class T>() {
    T* p = static_cast<T*>(t.data_ptr());
    for (std::size_t i = 0; i < v.size(); ++i) p[i] = static_cast<T>(v[i]);
  });
  return t;
}

// The elements in row-major order of the logical shape, whatever the strides, as doubles.
std::vector<double> values(const Tensor& t) {
  std::vector<double> out;
  const int64_t nd = t.dim();
  std::vector<int64_t> idx(nd, 0);
  for (int64_t n = 0; n < t.numel(); ++n) {
    int64_t off = 0;
    for (int64_t d = 0; d < nd; ++d) off += idx[d] * t.stride(d);
    dispatch_dtype(t.dtype(), [&]<class T>() {
      out.push_back(static_cast<double>(static_cast<const T*>(t.data_ptr())[off]));
    });
    for (int64_t d = nd - 1; d >= 0 && ++idx[d] == t.size(d); --d) idx[d] = 0;
  }
  return out;
}

// An exact value rounded to dtype dt, as a double (what a correctly rounded result would be).
double round_to(double v, DType dt) {
  switch (dt) {
    case kFloat: return double(float(v));
    case kHalf: return double(float(Half(v)));
    case kBFloat16: return double(float(BFloat16(v)));
    default: return v;
  }
}

// Same value, NaN equal to NaN and zeros compared with their signs.
bool same(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

// Element-wise `same` over two value lists.
bool same_all(const std::vector<double>& a, const std::vector<double>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!same(a[i], b[i])) return false;
  return true;
}

struct Tol {
  double rtol, atol;
};
// Relative error a few units in the last place; absolute a little above the smallest normal
// (results that underflow in one computation and not in the other).
Tol tol_for(DType dt) {
  switch (dt) {
    case kFloat: return {5e-7, 1e-37};
    case kDouble: return {1e-14, 1e-300};
    case kHalf: return {2e-3, 1e-7};
    case kBFloat16: return {1.6e-2, 1e-37};
    default: return {0, 0};
  }
}
double eps_of(DType dt) {
  switch (dt) {
    case kFloat: return 1.2e-7;
    case kDouble: return 2.3e-16;
    case kHalf: return 1e-3;
    case kBFloat16: return 8e-3;
    default: return 0;
  }
}

// got is within tolerance of the exact value `ref` (computed in double from the same input).
bool close(double got, double ref, DType dt, double extra_atol = 0) {
  const double want = round_to(ref, dt);
  if (std::isnan(want) || std::isnan(got)) return std::isnan(want) && std::isnan(got);
  if (std::isinf(want) || std::isinf(got)) return got == want;
  if (got == 0 && want == 0) return std::signbit(got) == std::signbit(want);
  const Tol t = tol_for(dt);
  return std::fabs(got - want) <= t.atol + extra_atol + t.rtol * std::fabs(want);
}

// Inputs for the floating ops: specials, zeros of both signs, halves (rounding), values near
// the ends of exp's range, huge values, and a sweep.
std::vector<double> float_inputs() {
  std::vector<double> v = {0.0,   -0.0,  0.5,   -0.5,   1.0,   -1.0,  1.5,    -1.5,  2.5,
                           -2.5,  3.0,   0.1,   -0.1,   1e-3,  -1e-3, 7.25,   -7.25, 20.0,
                           -20.0, 30.0,  -30.0, 88.0,   -88.0, 100.0, -100.0, 1e-20, -1e-20,
                           1e30,  -1e30, 0.999, -0.999, 1e-40, kInf,  -kInf,  kNaN};
  for (int i = 0; i <= 160; ++i) v.push_back(-10.0 + 0.125 * i + 0.01);
  return v;
}

// ---- the op table ------------------------------------------------------------------------------

using Fn = Tensor (*)(const Tensor&);
using OutFn = const Tensor& (*)(const Tensor&, const Tensor&);
using InplaceFn = const Tensor& (*)(const Tensor&);
using Method = Tensor (Tensor::*)() const;
using InplaceMethod = const Tensor& (Tensor::*)() const;
using Ref = double (*)(double);

enum class Kind {
  Float,     // integers and bool compute in float32
  Keep,      // dtype kept; integers allowed (their semantics tested separately)
  Rounding,  // dtype kept; integers are copied, bool refused
  FloatOnly  // dtype kept; only floating dtypes
};

struct Case {
  const char* name;
  Fn fn;
  OutFn out_fn;
  InplaceFn inplace_fn;
  Method method;
  InplaceMethod inplace_method;
  Ref ref;
  Kind kind;
};

Case make_case(const char* name, Fn fn, OutFn out_fn, InplaceFn inplace_fn, Method method,
               InplaceMethod inplace_method, Ref ref, Kind kind) {
  return {name, fn, out_fn, inplace_fn, method, inplace_method, ref, kind};
}
// Overloaded names (round) resolve to the parameter types above.
#define UNARY_CASE(name, kind)                                                       \
  make_case(#name, &tensorplay::name, &tensorplay::name##_out, &tensorplay::name##_, \
            &Tensor::name, &Tensor::name##_, ref_##name, Kind::kind)

// The references, in double.
double ref_neg(double x) { return -x; }
double ref_abs(double x) { return std::fabs(x); }
double ref_sign(double x) { return double(int(0 < x) - int(x < 0)); }
double ref_square(double x) { return x * x; }
double ref_relu(double x) { return x < 0 ? 0.0 : x; }
double ref_exp(double x) { return std::exp(x); }
double ref_exp2(double x) { return std::exp2(x); }
double ref_expm1(double x) { return std::expm1(x); }
double ref_log(double x) { return std::log(x); }
double ref_log2(double x) { return std::log2(x); }
double ref_log10(double x) { return std::log10(x); }
double ref_log1p(double x) { return std::log1p(x); }
double ref_sqrt(double x) { return std::sqrt(x); }
double ref_rsqrt(double x) { return 1.0 / std::sqrt(x); }
double ref_reciprocal(double x) { return 1.0 / x; }
double ref_sin(double x) { return std::sin(x); }
double ref_cos(double x) { return std::cos(x); }
double ref_tan(double x) { return std::tan(x); }
double ref_asin(double x) { return std::asin(x); }
double ref_acos(double x) { return std::acos(x); }
double ref_atan(double x) { return std::atan(x); }
double ref_sinh(double x) { return std::sinh(x); }
double ref_cosh(double x) { return std::cosh(x); }
double ref_tanh(double x) { return std::tanh(x); }
double ref_sigmoid(double x) { return 1.0 / (1.0 + std::exp(-x)); }
double ref_erf(double x) { return std::erf(x); }
double ref_floor(double x) { return std::floor(x); }
double ref_ceil(double x) { return std::ceil(x); }
double ref_trunc(double x) { return std::trunc(x); }
double ref_round(double x) { return std::nearbyint(x); }
double ref_frac(double x) { return x - std::trunc(x); }
double ref_silu(double x) { return x / (1.0 + std::exp(-x)); }
double ref_negative(double x) { return -x; }
double ref_absolute(double x) { return std::fabs(x); }
double ref_gelu(double x) { return x * 0.5 * (1.0 + std::erf(x * 0.70710678118654752440)); }
double ref_gelu_tanh(double x) {
  return 0.5 * x * (1.0 + std::tanh(0.79788456080286535588 * (x + 0.044715 * x * x * x)));
}
double ref_softplus(double x) { return x > 20.0 ? x : std::log1p(std::exp(x)); }

const std::vector<Case>& cases() {
  static const std::vector<Case> c = {
      UNARY_CASE(neg, Keep),       UNARY_CASE(abs, Keep),       UNARY_CASE(sign, Keep),
      UNARY_CASE(square, Keep),    UNARY_CASE(relu, Keep),      UNARY_CASE(exp, Float),
      UNARY_CASE(exp2, Float),     UNARY_CASE(expm1, Float),    UNARY_CASE(log, Float),
      UNARY_CASE(log2, Float),     UNARY_CASE(log10, Float),    UNARY_CASE(log1p, Float),
      UNARY_CASE(sqrt, Float),     UNARY_CASE(rsqrt, Float),    UNARY_CASE(reciprocal, Float),
      UNARY_CASE(sin, Float),      UNARY_CASE(cos, Float),      UNARY_CASE(tan, Float),
      UNARY_CASE(asin, Float),     UNARY_CASE(acos, Float),     UNARY_CASE(atan, Float),
      UNARY_CASE(sinh, Float),     UNARY_CASE(cosh, Float),     UNARY_CASE(tanh, Float),
      UNARY_CASE(sigmoid, Float),  UNARY_CASE(erf, Float),      UNARY_CASE(floor, Rounding),
      UNARY_CASE(ceil, Rounding),  UNARY_CASE(trunc, Rounding), UNARY_CASE(round, Rounding),
      UNARY_CASE(frac, FloatOnly), UNARY_CASE(silu, FloatOnly), UNARY_CASE(negative, Keep),
      UNARY_CASE(absolute, Keep),
  };
  return c;
}
#undef UNARY_CASE

constexpr DType kFloatingDTypes[] = {kFloat, kDouble, kHalf, kBFloat16};
constexpr DType kIntegralDTypes[] = {kUInt8, kInt8, kInt16, kInt32, kInt64};

// Checks every element of `got` against ref(x) for the input `x`; reports the first mismatch.
// `cancels`: the formula subtracts nearly equal terms (gelu's 1 + erf(x) for x < 0), so the
// error is relative to |x| rather than to the result.
void check_against_reference(const std::string& what, const Tensor& x, const Tensor& got, Ref ref,
                             bool cancels) {
  const std::vector<double> in = values(x), out = values(got);
  REQUIRE(in.size() == out.size());
  int bad = 0;
  std::ostringstream first;
  for (std::size_t i = 0; i < in.size(); ++i) {
    const double extra = cancels ? 4 * eps_of(got.dtype()) * std::fabs(in[i]) : 0.0;
    if (!close(out[i], ref(in[i]), got.dtype(), extra)) {
      if (bad++ == 0) {
        first.precision(17);
        first << what << "(" << in[i] << ") = " << out[i] << ", expected " << ref(in[i]);
      }
    }
  }
  INFO(first.str());
  CHECK(bad == 0);
}

// Every form of `c` on `x` gives exactly what c.fn(x) gives, and the in-place and out= forms
// return their destination and bump its version.
void check_forms(const Case& c, const Tensor& x, const Tensor& expected) {
  const std::vector<double> want = values(expected);
  auto same_values = [&](const Tensor& t) { return same_all(values(t), want); };
  CHECK(same_values((x.*c.method)()));

  Tensor out = empty({0}, expected.dtype());
  const int64_t v_out = out._version();
  const Tensor& r_out = c.out_fn(out, x);
  CHECK(&r_out == &out);
  CHECK(out.sizes() == x.sizes());
  CHECK(out._version() > v_out);
  CHECK(same_values(out));

  if (expected.dtype() == x.dtype()) {
    Tensor y = x.clone();
    const int64_t v = y._version();
    const Tensor& r = c.inplace_fn(y);
    CHECK(&r == &y);
    CHECK(y._version() > v);
    CHECK(same_values(y));
    Tensor z = x.clone();
    const Tensor& rz = (z.*c.inplace_method)();
    CHECK(&rz == &z);
    CHECK(same_values(z));
  }
}

}  // namespace

TEST_CASE("unary: every op on floating dtypes matches a double reference, in every form") {
  for (const Case& c : cases()) {
    for (DType dt : kFloatingDTypes) {
      INFO(c.name << " on " << dt);
      const Tensor x = make(float_inputs(), dt);
      const Tensor y = c.fn(x);
      CHECK(y.dtype() == dt);
      CHECK(y.sizes() == x.sizes());
      CHECK_FALSE(y.is_alias_of(x));
      check_against_reference(c.name, x, y, c.ref, false);
      check_forms(c, x, y);
    }
  }
}

TEST_CASE("unary: gelu and softplus on floating dtypes, in every form") {
  for (DType dt : kFloatingDTypes) {
    INFO(dt);
    const Tensor x = make(float_inputs(), dt);
    check_against_reference("gelu", x, gelu(x), ref_gelu, true);
    check_against_reference("gelu", x, x.gelu("none"), ref_gelu, true);
    check_against_reference("gelu_tanh", x, gelu(x, "tanh"), ref_gelu_tanh, true);
    check_against_reference("softplus", x, softplus(x), ref_softplus, false);
    check_against_reference("softplus", x, x.softplus(), ref_softplus, false);
    check_against_reference(
        "softplus(2, 5)", x, softplus(x, 2, 5),
        [](double v) { return v * 2 > 5 ? v : std::log1p(std::exp(2 * v)) / 2; }, false);

    // In place and out= agree with the functional form.
    Tensor g = x.clone();
    gelu_(g, "tanh");
    check_against_reference("gelu_", x, g, ref_gelu_tanh, true);
    Tensor g2 = x.clone();
    g2.gelu_();
    check_against_reference("Tensor::gelu_", x, g2, ref_gelu, true);
    Tensor go = empty({3}, dt);
    gelu_out(go, x, "tanh");
    check_against_reference("gelu_out", x, go, ref_gelu_tanh, true);
    Tensor s = x.clone();
    softplus_(s, 1, 20);
    check_against_reference("softplus_", x, s, ref_softplus, false);
    Tensor s2 = x.clone();
    s2.softplus_();
    check_against_reference("Tensor::softplus_", x, s2, ref_softplus, false);
    Tensor so = empty({0}, dt);
    softplus_out(so, x);
    check_against_reference("softplus_out", x, so, ref_softplus, false);
  }
}

TEST_CASE("unary: float ops on integer and bool inputs compute in float32") {
  const std::vector<double> ints = {0, 1, 2, 3, 5, 7, 100, 127};
  const std::vector<double> signed_ints = {-128, -100, -3, -1, 0, 1, 2, 50, 127};
  for (const Case& c : cases()) {
    if (c.kind != Kind::Float) continue;
    for (DType dt : kIntegralDTypes) {
      INFO(c.name << " on " << dt);
      const Tensor x = make(is_signed(dt) ? signed_ints : ints, dt);
      const Tensor y = c.fn(x);
      CHECK(y.dtype() == kFloat);
      check_against_reference(c.name, x, y, c.ref, false);
      CHECK(same_all(values((x.*c.method)()), values(y)));
      // out= of float64 gets the float32 result converted.
      Tensor od = empty({2}, kDouble);
      c.out_fn(od, x);
      CHECK(od.dtype() == kDouble);
      CHECK(same_all(values(od), values(y)));
      // In place on an integer tensor: the float result cannot be stored.
      Tensor xi = x.clone();
      const int64_t v = xi._version();
      CHECK_THROWS_WITH(c.inplace_fn(xi), Catch::Contains("result type Float can't be cast to the "
                                                          "desired output type") &&
                                              Catch::Contains(std::string(scalar_type_name(dt))));
      CHECK(xi._version() == v);
      CHECK(values(xi) == values(x));
    }
    INFO(c.name << " on bool");
    const Tensor b = make({0, 1, 1, 0}, kBool);
    const Tensor yb = c.fn(b);
    CHECK(yb.dtype() == kFloat);
    check_against_reference(c.name, b, yb, c.ref, false);
    Tensor bb = b.clone();
    CHECK_THROWS_WITH(c.inplace_fn(bb),
                      "result type Float can't be cast to the desired output type Bool");
    Tensor oi = empty({4}, kInt);
    CHECK_THROWS_WITH(c.out_fn(oi, b),
                      "result type Float can't be cast to the desired output type Int");
  }
}

TEST_CASE("unary: float ops refuse an integer out= for a floating input, accept a wider one") {
  const Tensor x = make({0.5, 1.0, 2.0}, kFloat);
  Tensor ol = empty({3}, kLong);
  CHECK_THROWS_WITH(exp_out(ol, x),
                    "result type Float can't be cast to the desired output type Long");
  Tensor ob = empty({3}, kBool);
  CHECK_THROWS_WITH(sqrt_out(ob, x),
                    "result type Float can't be cast to the desired output type Bool");
  // float64 input, float32 out: a narrowing cast is allowed (can_cast is about kinds).
  const Tensor xd = make({0.5, 1.0, 2.0}, kDouble);
  Tensor of = empty({3}, kFloat);
  const int64_t v = of._version();
  exp_out(of, xd);
  CHECK(of._version() > v);
  const std::vector<double> got = values(of);
  for (int i = 0; i < 3; ++i) CHECK(got[i] == double(float(std::exp(values(xd)[i]))));
  // Half input into a float32 out: computed as for a Half result (rounded to Half), then widened.
  const Tensor xh = make({0.1, 1.0, 3.0}, kHalf);
  Tensor oh = empty({3}, kFloat);
  exp_out(oh, xh);
  CHECK(oh.dtype() == kFloat);
  CHECK(values(oh) == values(exp(xh)));
}

TEST_CASE("unary: integer semantics of dtype-keeping ops (wrapping, copies, bool)") {
  SECTION("neg and abs wrap the most negative value, as two's complement does") {
    const Tensor a = make({-128, -5, 0, 7, 127}, kChar);
    CHECK(neg(a).dtype() == kChar);
    CHECK(values(neg(a)) == std::vector<double>{-128, 5, 0, -7, -127});
    CHECK(values(abs(a)) == std::vector<double>{-128, 5, 0, 7, 127});
    CHECK(values(-a) == values(neg(a)));
    const Tensor l = make({-9223372036854775807.0 - 1, -3, 4}, kLong);
    const std::vector<double> nl = values(neg(l));
    CHECK(nl[0] == -9223372036854775808.0);
    CHECK(nl[1] == 3);
    CHECK(values(abs(l))[0] == -9223372036854775808.0);
    const Tensor i = make({-2147483648.0, -1, 2}, kInt);
    CHECK(values(neg(i)) == std::vector<double>{-2147483648.0, 1, -2});
    const Tensor u = make({0, 1, 255}, kByte);
    CHECK(values(neg(u)) == std::vector<double>{0, 255, 1});
    CHECK(values(abs(u)) == std::vector<double>{0, 1, 255});
  }
  SECTION("sign, relu and square keep the dtype; square wraps") {
    for (DType dt : kIntegralDTypes) {
      INFO(dt);
      const std::vector<double> v =
          is_signed(dt) ? std::vector<double>{-7, -1, 0, 1, 9} : std::vector<double>{0, 1, 9};
      const Tensor x = make(v, dt);
      for (const Case& c : cases()) {
        if (c.kind != Kind::Keep) continue;
        INFO(c.name);
        const Tensor y = c.fn(x);
        CHECK(y.dtype() == dt);
        std::vector<double> want;  // the exact result, wrapped into dt as two's complement
        for (double e : v) {
          const int64_t exact = int64_t(c.ref(e));
          dispatch_dtype(dt, [&]<class T>() { want.push_back(double(static_cast<T>(exact))); });
        }
        CHECK(values(y) == want);
        check_forms(c, x, y);
      }
    }
    CHECK(values(square(make({16, -16, 11}, kChar))) == std::vector<double>{0, 0, 121});
    CHECK(values(square(make({200}, kByte))) == std::vector<double>{64});
    CHECK(values(square(make({300}, kShort))) == std::vector<double>{24464});
    CHECK(values(square(make({65536, 46341}, kInt))) ==
          std::vector<double>{0, double(int32_t(uint32_t(46341) * uint32_t(46341)))});
    CHECK(values(square(make({4294967296.0}, kLong))) == std::vector<double>{0});
  }
  SECTION("sign of bool is the identity; square of bool is int64 as pow(x, 2)") {
    const Tensor b = make({0, 1, 1}, kBool);
    CHECK(sign(b).dtype() == kBool);
    CHECK(values(sign(b)) == std::vector<double>{0, 1, 1});
    Tensor bs = b.clone();
    bs.sign_();
    CHECK(values(bs) == std::vector<double>{0, 1, 1});
    const Tensor sq = square(b);
    CHECK(sq.dtype() == kLong);
    CHECK(values(sq) == std::vector<double>{0, 1, 1});
    Tensor ol = empty({0}, kLong);
    square_out(ol, b);
    CHECK(values(ol) == std::vector<double>{0, 1, 1});
    // The result dtype is int64 and out= must have it: no casting, unlike the float ops.
    Tensor od = empty({3}, kDouble);
    CHECK_THROWS_WITH(square_out(od, b), Catch::Contains("Found dtype"));
    Tensor bb = b.clone();
    CHECK_THROWS_WITH(square_(bb), Catch::Contains("Found dtype"));
    CHECK_THROWS_WITH(bb.square_(), Catch::Contains("Found dtype"));
    CHECK(values(bb) == values(b));
  }
  SECTION("square_out of a floating input needs an out= of the same dtype") {
    const Tensor x = make({1.5, -2.0}, kFloat);
    Tensor of = empty({0}, kFloat);
    square_out(of, x);
    CHECK(values(of) == std::vector<double>{2.25, 4.0});
    Tensor od = empty({2}, kDouble);
    CHECK_THROWS_WITH(square_out(od, x), Catch::Contains("Found dtype"));
    const Tensor xi = make({3, -4}, kInt);
    Tensor ol = empty({2}, kLong);
    CHECK_THROWS_WITH(square_out(ol, xi), Catch::Contains("Found dtype"));
  }
  SECTION("floor, ceil, round and trunc copy integer tensors") {
    for (const Case& c : cases()) {
      if (c.kind != Kind::Rounding) continue;
      for (DType dt : kIntegralDTypes) {
        INFO(c.name << " on " << dt);
        const Tensor x = make({0, 1, 5, 100}, dt);
        const Tensor y = c.fn(x);
        CHECK(y.dtype() == dt);
        CHECK_FALSE(y.is_alias_of(x));
        CHECK(values(y) == values(x));
        check_forms(c, x, y);
      }
    }
  }
}

TEST_CASE("unary: special values follow PyTorch") {
  const Tensor x = make({kNaN, -0.0, 0.0, kInf, -kInf, -2.5, 2.5, 0.5, -0.5, 1.5}, kFloat);
  auto v = [](const Tensor& t) { return values(t); };
  // sign(NaN) = 0 and sign(-0.0) = +0.0: PyTorch's kernel is (0 < x) - (x < 0).
  const std::vector<double> s = v(sign(x));
  CHECK(s[0] == 0);
  CHECK_FALSE(std::signbit(s[1]));
  CHECK(s[3] == 1);
  CHECK(s[4] == -1);
  // relu keeps NaN and -0.0 (clamp_min(x, 0) returns x unless x < 0).
  const std::vector<double> r = v(relu(x));
  CHECK(std::isnan(r[0]));
  CHECK((r[1] == 0 && std::signbit(r[1])));
  CHECK(r[4] == 0);
  // round is half to even; rounding keeps the sign of zero.
  CHECK(same_all(v(round(x)), {kNaN, -0.0, 0.0, kInf, -kInf, -2.0, 2.0, 0.0, -0.0, 2.0}));
  CHECK(same_all(v(trunc(x)), {kNaN, -0.0, 0.0, kInf, -kInf, -2.0, 2.0, 0.0, -0.0, 1.0}));
  CHECK(same_all(v(floor(x)), {kNaN, -0.0, 0.0, kInf, -kInf, -3.0, 2.0, 0.0, -1.0, 1.0}));
  CHECK(same_all(v(ceil(x)), {kNaN, -0.0, 0.0, kInf, -kInf, -2.0, 3.0, 1.0, -0.0, 2.0}));
  // frac(inf) is NaN (inf - inf), frac(-2.5) = -0.5.
  const std::vector<double> f = v(frac(x));
  CHECK(std::isnan(f[3]));
  CHECK(f[5] == -0.5);
  // silu(-inf) is NaN with PyTorch's formula x / (1 + exp(-x)); sigmoid(+-inf) = 1, 0.
  CHECK(std::isnan(v(silu(x))[4]));
  CHECK(v(sigmoid(x))[3] == 1.0);
  CHECK(v(sigmoid(x))[4] == 0.0);
  // exp: +inf, +0, NaN.
  const std::vector<double> e = v(exp(x));
  CHECK(std::isnan(e[0]));
  CHECK(e[3] == kInf);
  CHECK((e[4] == 0 && !std::signbit(e[4])));
  CHECK(e[1] == 1.0);
  // rsqrt and reciprocal of signed zeros.
  CHECK(v(rsqrt(x))[1] == -kInf);
  CHECK(v(reciprocal(x))[2] == kInf);
  CHECK(std::isnan(v(sqrt(x))[5]));
  CHECK(std::isnan(v(log(x))[5]));
  CHECK(v(log(x))[2] == -kInf);
}

namespace {

// The largest error of y = f(x) (float32) against ref in double, in units in the last place of
// the correctly rounded result (subnormal results: of the smallest subnormal); `where` gets the
// worst x. A result that should be finite but is inf, or the reverse, counts as 1e9.
double max_ulp_error(const Tensor& x, const Tensor& y, Ref ref, float* where) {
  const float* px = x.data_ptr<float>();
  const float* py = y.data_ptr<float>();
  double worst = 0;
  for (int64_t i = 0; i < x.numel(); ++i) {
    const double exact = ref(double(px[i]));
    const float want = float(exact);
    double err = 0;
    if (std::isnan(exact) || std::isnan(py[i])) {
      err = std::isnan(exact) && std::isnan(py[i]) ? 0 : 1e9;
    } else if (py[i] != want) {
      if (std::isinf(want) || std::isinf(py[i])) {
        err = 1e9;
      } else {
        int e = 0;
        std::frexp(want == 0 ? 1e-45f : want, &e);
        err = std::fabs(double(py[i]) - exact) / std::ldexp(1.0, std::max(e - 24, -149));
      }
    }
    if (err > worst) worst = err, *where = px[i];
  }
  return worst;
}

// n floats evenly spaced over [lo, hi].
Tensor spread(double lo, double hi, int64_t n) {
  Tensor x = empty({n}, kFloat);
  float* p = x.data_ptr<float>();
  for (int64_t i = 0; i < n; ++i) p[i] = float(lo + (hi - lo) * double(i) / double(n - 1));
  return x;
}

// n bit patterns evenly spaced over the positive floats (subnormals included), followed by
// their negatives when `both_signs`: every binade gets its share.
Tensor spread_bits(int64_t n, bool both_signs) {
  Tensor x = empty({both_signs ? 2 * n : n}, kFloat);
  float* p = x.data_ptr<float>();
  const uint32_t last = std::bit_cast<uint32_t>(std::numeric_limits<float>::max());
  for (int64_t i = 0; i < n; ++i) {
    p[i] = std::bit_cast<float>(uint32_t(1 + uint64_t(last - 1) * uint64_t(i) / uint64_t(n - 1)));
    if (both_signs) p[n + i] = -p[i];
  }
  return x;
}

}  // namespace

TEST_CASE("unary: float32 exp, log, log1p, tanh and erf are within 2 ulp over their range") {
  auto check = [](const char* name, const Tensor& x, const Tensor& y, Ref ref, double limit) {
    float where = 0;
    const double err = max_ulp_error(x, y, ref, &where);
    INFO(name << ": " << err << " ulp at x = " << where);
    CHECK(err <= limit);
  };
  // exp: 2^22 points over [-104, 89], where it is neither 0 nor inf (subnormal results too).
  const Tensor xe = spread(-104.0, 89.0, int64_t{1} << 22);
  check("exp", xe, exp(xe), ref_exp, 2.0);
  // log over every binade; log1p, tanh and erf over both signs too.
  const Tensor xp = spread_bits(int64_t{1} << 21, false);
  check("log", xp, log(xp), ref_log, 2.0);
  const Tensor xs = spread_bits(int64_t{1} << 20, true);
  check("tanh", xs, tanh(xs), ref_tanh, 2.0);
  check("erf", xs, erf(xs), ref_erf, 2.0);
  check("log1p", xs, log1p(xs), ref_log1p, 2.0);
  // The dense middle of each function's domain, where most values fall.
  const Tensor xl = spread(-1.0, 1.0, int64_t{1} << 20);
  check("log1p", xl, log1p(xl), ref_log1p, 2.0);
  const Tensor xd = spread(-12.0, 12.0, int64_t{1} << 20);
  check("tanh", xd, tanh(xd), ref_tanh, 2.0);
  check("erf", xd, erf(xd), ref_erf, 2.0);
  check("exp", xd, exp(xd), ref_exp, 2.0);
  // Built on them: a few ulp where the result is a normal float.
  const Tensor xm = spread(-80.0, 80.0, int64_t{1} << 20);
  check("sigmoid", xm, sigmoid(xm), ref_sigmoid, 4.0);
  check("softplus", xm, softplus(xm), ref_softplus, 4.0);
  // Specials.
  const Tensor sp = make({0.0, -0.0, -1.0, kInf, -kInf, kNaN}, kFloat);
  CHECK(same_all(values(log(sp)), {-kInf, -kInf, kNaN, kInf, kNaN, kNaN}));
  CHECK(same_all(values(log1p(sp)), {0.0, -0.0, -kInf, kInf, kNaN, kNaN}));
  CHECK(same_all(values(tanh(sp.slice(0, 3))), {1.0, -1.0, kNaN}));
  CHECK(same_all(values(erf(sp.slice(0, 3))), {1.0, -1.0, kNaN}));
  CHECK(same_all(values(exp(sp.slice(0, 3))), {kInf, 0.0, kNaN}));
  CHECK(same_all(values(tanh(sp.slice(0, 0, 2))), {0.0, -0.0}));
  CHECK(same_all(values(erf(sp.slice(0, 0, 2))), {0.0, -0.0}));
}

TEST_CASE("unary: round with decimals") {
  const Tensor x = make({1.2345, -1.2355, 1234.5, 0.125, -0.5, 2.5, 15.0, 25.0}, kDouble);
  const std::vector<double> r2 = values(round(x, 2));
  CHECK(r2[0] == std::nearbyint(1.2345 * 100) / 100);
  CHECK(r2[1] == std::nearbyint(-1.2355 * 100) / 100);
  CHECK(r2[3] == 0.12);  // 12.5 rounds to even
  const std::vector<double> rm1 = values(round(x, -1));
  CHECK(rm1[2] == 1230.0);
  CHECK(rm1[6] == 20.0);  // 1.5 -> 2
  CHECK(rm1[7] == 20.0);  // 2.5 -> 2
  CHECK(values(round(x, 0)) == values(round(x)));
  const std::vector<double> m = values(x.round(-2));
  CHECK(m[2] == 1200.0);
  Tensor y = x.clone();
  const int64_t v = y._version();
  CHECK(&round_(y, 1) == &y);
  CHECK(y._version() > v);
  CHECK(values(y)[0] == std::nearbyint(1.2345 * 10) / 10);
  Tensor z = x.clone();
  z.round_(3);
  CHECK(values(z)[0] == std::nearbyint(1.2345 * 1000) / 1000);
  Tensor o = empty({0}, kDouble);
  CHECK(&round_out(o, x, 2) == &o);
  CHECK(values(o) == r2);
  // Computed in float for float32 (and for Half, in float then rounded once).
  const Tensor xf = make({1.2345f, 2.675f}, kFloat);
  const std::vector<double> rf = values(round(xf, 2));
  CHECK(rf[0] == double(std::nearbyint(1.2345f * 100.0f) / 100.0f));
  CHECK(rf[1] == double(std::nearbyint(2.675f * 100.0f) / 100.0f));
  const Tensor xh = make({1.2345, 2.5}, kHalf);
  CHECK(round(xh, 1).dtype() == kHalf);
  CHECK(values(round(xh, 1))[1] == 2.5);
}

TEST_CASE("unary: strided, transposed and expanded inputs") {
  const int64_t rows = 37, cols = 53;  // odd sizes: vector bodies and scalar tails
  std::vector<double> v(rows * cols);
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = -6.0 + 12.0 * double(i) / double(v.size());
  for (DType dt : {kFloat, kDouble, kHalf}) {
    INFO(dt);
    const Tensor a = make(v, dt, {rows, cols});
    const Tensor at = a.t();
    for (const Case& c : cases()) {
      INFO(c.name);
      // Transposed: same values as on a contiguous copy, and the result keeps the layout.
      const Tensor yt = c.fn(at);
      CHECK(yt.sizes() == at.sizes());
      CHECK(yt.strides() == at.strides());
      CHECK(same_all(values(yt), values(c.fn(at.contiguous()))));
      // A strided slice, and an out= that is itself transposed.
      const Tensor sl = a.slice(1, 1, cols, 3);
      const std::vector<double> want = values(c.fn(sl.contiguous()));
      CHECK(same_all(values(c.fn(sl)), want));
      Tensor out = empty({sl.size(1), sl.size(0)}, dt).t();
      c.out_fn(out, sl);
      CHECK(out.strides() == std::vector<int64_t>{1, sl.size(0)});
      CHECK(same_all(values(out), want));
      // In place on a non-contiguous view writes through to the base and nowhere else.
      Tensor base = a.clone();
      Tensor view = base.slice(1, 1, cols, 3);
      c.inplace_fn(view);
      CHECK(same_all(values(view), want));
      CHECK(values(base.slice(1, 0, cols, 3)) == values(a.slice(1, 0, cols, 3)));
    }
    // Expanded input: every row reads the same elements.
    const Tensor row = make({0.5, -1.0, 2.0}, dt);
    const Tensor e = exp(row.expand({4, 3}));
    CHECK(e.sizes() == std::vector<int64_t>{4, 3});
    const std::vector<double> ev = values(e), r = values(exp(row));
    for (int i = 0; i < 12; ++i) CHECK(ev[i] == r[i % 3]);
  }
}

TEST_CASE("unary: large tensors run on several threads and agree with the scalar reference") {
  const int64_t n = 300001;  // above the grain size, odd
  Tensor x = empty({n}, kFloat);
  float* p = x.data_ptr<float>();
  for (int64_t i = 0; i < n; ++i) p[i] = float(-50.0 + 100.0 * double(i) / double(n));
  const Tensor y = exp(x), s = sigmoid(x), q = sqrt(x), ng = neg(x);
  const float* py = y.data_ptr<float>();
  const float* ps = s.data_ptr<float>();
  const float* pq = q.data_ptr<float>();
  const float* pn = ng.data_ptr<float>();
  int bad = 0;
  for (int64_t i = 0; i < n; ++i) {
    const double xi = p[i];
    bad += !close(py[i], std::exp(xi), kFloat);
    bad += !close(ps[i], 1.0 / (1.0 + std::exp(-xi)), kFloat);
    bad += !same(pq[i], double(std::sqrt(p[i])));
    bad += !same(pn[i], -xi);
  }
  CHECK(bad == 0);
  // In place on the whole tensor.
  Tensor z = x.clone();
  z.exp_();
  CHECK(same_all(values(z), values(y)));
  Tensor w = x.clone();
  w.sqrt_();
  CHECK(same_all(values(w), values(q)));
}

TEST_CASE("unary: out= is resized, cast and bumped; 0-d and empty tensors") {
  const Tensor x = make({0.25, 4.0, 9.0, 16.0, 0.0, 1.0}, kFloat, {2, 3});
  Tensor out = empty({7, 1}, kFloat);
  const int64_t v = out._version();
  sqrt_out(out, x);
  CHECK(out.sizes() == std::vector<int64_t>{2, 3});
  CHECK(out._version() > v);
  CHECK(values(out) == std::vector<double>{0.5, 2, 3, 4, 0, 1});
  Tensor outd = empty({0}, kDouble);
  sqrt_out(outd, x);
  CHECK(outd.dtype() == kDouble);
  CHECK(values(outd) == std::vector<double>{0.5, 2, 3, 4, 0, 1});
  // An out= of the right shape keeps its own strides.
  Tensor tr = empty({3, 2}, kFloat).t();
  neg_out(tr, x);
  CHECK(tr.strides() == std::vector<int64_t>{1, 2});
  CHECK(values(tr) == std::vector<double>{-0.25, -4, -9, -16, -0.0, -1});

  const Tensor s = make({-3.0}, kFloat, {1}).squeeze();
  CHECK(s.dim() == 0);
  CHECK(abs(s).dim() == 0);
  CHECK(abs(s).item<float>() == 3.0f);
  CHECK(exp(s.to(kLong)).dtype() == kFloat);
  const Tensor e = empty({0, 4}, kFloat);
  CHECK(exp(e).sizes() == std::vector<int64_t>{0, 4});
  CHECK(floor(empty({0}, kInt)).numel() == 0);
}

TEST_CASE("unary: operator-, positive and the aliases") {
  const Tensor x = make({1.5, -2.0, 0.0}, kFloat);
  CHECK(values(-x) == std::vector<double>{-1.5, 2.0, -0.0});
  CHECK(std::signbit(values(-x)[2]));
  CHECK(values(negative(x)) == values(neg(x)));
  CHECK(values(absolute(x)) == values(abs(x)));
  Tensor y = x.clone();
  negative_(y);
  CHECK(values(y) == values(neg(x)));
  Tensor z = x.clone();
  absolute_(z);
  CHECK(values(z) == values(abs(x)));
  Tensor o = empty({0}, kFloat);
  negative_out(o, x);
  CHECK(values(o) == values(neg(x)));
  absolute_out(o, x);
  CHECK(values(o) == values(abs(x)));
  CHECK(positive(x).is_same(x));
  CHECK(x.positive().is_same(x));
  CHECK_THROWS_WITH(positive(make({1}, kBool)),
                    "The `+` operator, on a bool tensor is not supported.");
}

TEST_CASE("unary: errors") {
  const Tensor b = make({0, 1}, kBool);
  const Tensor i = make({1, 2}, kLong);
  const Tensor f = make({1, 2}, kFloat);
  const std::string neg_msg =
      "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
      "invert a mask, use the `~` or `logical_not()` operator instead.";
  CHECK_THROWS_WITH(neg(b), neg_msg);
  CHECK_THROWS_WITH(-b, neg_msg);
  CHECK_THROWS_WITH(b.neg_(), neg_msg);
  CHECK_THROWS_WITH(negative(b), neg_msg);
  CHECK_THROWS_WITH(abs(b), "\"abs_cpu\" not implemented for 'Bool'");
  CHECK_THROWS_WITH(relu(b), "Boolean inputs not supported for relu");
  CHECK_THROWS_WITH(b.relu_(), "Boolean inputs not supported for relu");
  CHECK_THROWS_WITH(floor(b), "\"floor_vml_cpu\" not implemented for 'Bool'");
  CHECK_THROWS_WITH(ceil(b), "\"ceil_vml_cpu\" not implemented for 'Bool'");
  CHECK_THROWS_WITH(trunc(b), "\"trunc_vml_cpu\" not implemented for 'Bool'");
  CHECK_THROWS_WITH(round(b), "\"round_vml_cpu\" not implemented for 'Bool'");
  CHECK_THROWS_WITH(frac(i), "\"frac_cpu\" not implemented for 'Long'");
  CHECK_THROWS_WITH(silu(i), "\"silu_cpu\" not implemented for 'Long'");
  CHECK_THROWS_WITH(gelu(i), "\"GeluKernelImpl\" not implemented for 'Long'");
  CHECK_THROWS_WITH(softplus(i), "\"softplus_cpu\" not implemented for 'Long'");
  CHECK_THROWS_WITH(round(i, 2), "\"round_cpu\" not implemented for 'Long'");
  CHECK_THROWS_WITH(round(i, 0), "\"round_vml_cpu\" not implemented for 'Long'");
  CHECK_THROWS_WITH(gelu(f, "erf"), "approximate argument must be either none or tanh.");
  CHECK_THROWS_WITH(f.gelu_("Tanh"), "approximate argument must be either none or tanh.");
  CHECK_THROWS_WITH(softplus(f, 1e300), Catch::Contains("value cannot be converted to type"));

  // dtype-keeping ops: out= must have the input's dtype (PyTorch's unary_op).
  Tensor od = empty({2}, kDouble);
  CHECK_THROWS_WITH(neg_out(od, f), Catch::Contains("Found dtype"));
  CHECK_THROWS_WITH(floor_out(od, f), Catch::Contains("Found dtype"));
  CHECK_THROWS_WITH(relu_out(od, f), Catch::Contains("Found dtype"));
  CHECK_THROWS_WITH(round_out(od, f, 2), Catch::Contains("Found dtype"));
  CHECK_THROWS_WITH(gelu_out(od, f), Catch::Contains("Found dtype"));
  CHECK_THROWS_WITH(softplus_out(od, f), Catch::Contains("Found dtype"));
  Tensor ol = empty({2}, kLong);
  CHECK_THROWS_WITH(floor_out(ol, make({1, 2}, kInt)), Catch::Contains("Found dtype"));

  // An undefined out=.
  CHECK_THROWS_WITH(exp_out(Tensor(), f), "exp_out: the out= tensor is undefined");
  CHECK_THROWS_WITH(round_out(Tensor(), f, 1), "round_out: the out= tensor is undefined");
  CHECK_THROWS_WITH(gelu_out(Tensor(), f), "gelu_out: the out= tensor is undefined");
  CHECK_THROWS_WITH(softplus_out(Tensor(), f), "softplus_out: the out= tensor is undefined");
  CHECK_THROWS(exp(Tensor()));

  // In place on an expanded tensor, and out= overlapping its input.
  const Tensor expanded = make({1, 2, 3}, kFloat).expand({2, 3});
  CHECK_THROWS_WITH(expanded.exp_(), Catch::Contains("more than one element of the written-to "
                                                     "tensor refers to a single memory location"));
  CHECK_THROWS_WITH(neg_(expanded), Catch::Contains("single memory location"));
  const Tensor base = make({1, 2, 3, 4}, kFloat);
  CHECK_THROWS_WITH(exp_out(base.slice(0, 1, 4), base.slice(0, 0, 3)),
                    Catch::Contains("some elements of the input tensor and the written-to tensor "
                                    "refer to a single memory location"));
}

}  // namespace ops_unary_test
