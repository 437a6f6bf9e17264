// ops/vec_trig.hpp: the float sin cos tan asin acos atan sinh cosh and the double exp log sin
// cos, sampled across their whole ranges against references one precision up (glibc's double
// functions for the float ones, long double for the double ones), their special values, large
// arguments of the trigonometric functions, and the same functions seen through the tensor API
// (contiguous rows, the blocked trigonometric rows, strided views, Half). The exhaustive checks
// (every float) were run outside CI; their maxima are in the header's comments. No timing here.
#include <tensorplay/ops/vec_trig.hpp>
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

namespace ops_vec_trig_test {

using namespace tensorplay;
namespace d = tensorplay::detail;

namespace {

constexpr float kInfF = std::numeric_limits<float>::infinity();
constexpr float kNaNF = std::numeric_limits<float>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Error of a float result in units of the float ulp at the exact value `ref` (a double, exact
// to 2^-28 float ulp); NaN and infinities must match exactly (infinite error otherwise), and
// a result that overflows to inf is exact when the rounded reference does too.
double ulp_error_f32(float got, double ref) {
  if (std::isnan(ref) || std::isnan(got)) return std::isnan(ref) && std::isnan(got) ? 0 : kInf;
  if (std::isinf(got) || std::isinf(float(ref))) return got == float(ref) ? 0 : kInf;
  const double a = std::fabs(ref);
  int e = 0;
  std::frexp(a, &e);
  const double ulp = a < 0x1p-126 ? 0x1p-149 : std::ldexp(1.0, e - 24);
  return std::fabs(double(got) - ref) / ulp;
}

double ulp_error_f64(double got, long double ref) {
  if (std::isnan(double(ref)) || std::isnan(got))
    return std::isnan(double(ref)) && std::isnan(got) ? 0 : kInf;
  if (std::isinf(got) || std::isinf(double(ref))) return got == double(ref) ? 0 : kInf;
  const long double a = fabsl(ref);
  int e = 0;
  frexpl(a, &e);
  const long double ulp = e - 53 < -1074 ? ldexpl(1.0L, -1074) : ldexpl(1.0L, e - 53);
  return double(fabsl((long double)got - ref) / ulp);
}

// Same bits, or both NaN.
bool same_f32(float a, float b) {
  return std::bit_cast<uint32_t>(a) == std::bit_cast<uint32_t>(b) ||
         (std::isnan(a) && std::isnan(b));
}

// The functions through wrappers (pointers to them are the scalar calls a strided row makes),
// and the loops over contiguous values that the ops run, where the compiler inlines the
// wrapper and vectorises.
#define TP_VEC_TRIG_WRAP_(name)                                                      \
  [[gnu::always_inline]] inline float name##_w(float x) { return d::name##_f32(x); } \
  double ref_##name(double x) { return std::name(x); }
TP_VEC_TRIG_WRAP_(sin)
TP_VEC_TRIG_WRAP_(cos)
TP_VEC_TRIG_WRAP_(tan)
TP_VEC_TRIG_WRAP_(asin)
TP_VEC_TRIG_WRAP_(acos)
TP_VEC_TRIG_WRAP_(atan)
TP_VEC_TRIG_WRAP_(sinh)
TP_VEC_TRIG_WRAP_(cosh)
#undef TP_VEC_TRIG_WRAP_

template <float (*Fn)(float)>
void contiguous_loop(float* out, const float* x, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = Fn(x[i]);
}

struct F32Case {
  const char* name;
  float (*fn)(float);
  double (*ref)(double);
  void (*loop)(float*, const float*, std::size_t);
};

const std::vector<F32Case>& f32_cases() {
  static const std::vector<F32Case> cases = {{"sin", sin_w, ref_sin, contiguous_loop<sin_w>},
                                             {"cos", cos_w, ref_cos, contiguous_loop<cos_w>},
                                             {"tan", tan_w, ref_tan, contiguous_loop<tan_w>},
                                             {"asin", asin_w, ref_asin, contiguous_loop<asin_w>},
                                             {"acos", acos_w, ref_acos, contiguous_loop<acos_w>},
                                             {"atan", atan_w, ref_atan, contiguous_loop<atan_w>},
                                             {"sinh", sinh_w, ref_sinh, contiguous_loop<sinh_w>},
                                             {"cosh", cosh_w, ref_cosh, contiguous_loop<cosh_w>}};
  return cases;
}

const F32Case& f32_case(const std::string& name) {
  return *std::find_if(f32_cases().begin(), f32_cases().end(),
                       [&](const F32Case& k) { return name == k.name; });
}

// Every 2^15 + 1-th float bit pattern (all exponents, both signs, NaNs included: 131k values)
// and 2^15 evenly spaced values in [-4, 4] (where most arguments of these functions are).
std::vector<float> sample_floats() {
  std::vector<float> v;
  for (uint64_t b = 0; b < (uint64_t(1) << 32); b += (1u << 15) + 1) {
    v.push_back(std::bit_cast<float>(uint32_t(b)));
  }
  for (int i = 0; i <= (1 << 15); ++i) v.push_back(-4.0f + 8.0f * float(i) / float(1 << 15));
  return v;
}

// The bound every float function keeps (measured over every float: 0.5018 ulp at most, with
// or without FMA): all but correctly rounded.
constexpr double kF32Bound = 0.51;

}  // namespace

TEST_CASE("vec_trig: float functions within 0.51 ulp on a sample of the whole range", "[ops]") {
  const std::vector<float> x = sample_floats();
  std::vector<float> vec(x.size());
  for (const F32Case& c : f32_cases()) {
    INFO(c.name);
    c.loop(vec.data(), x.data(), x.size());
    double worst = 0;
    float worst_x = 0;
    for (std::size_t i = 0; i < x.size(); ++i) {
      const double e = ulp_error_f32(vec[i], c.ref(double(x[i])));
      if (e > worst) worst = e, worst_x = x[i];
      // The scalar call (what a strided row runs) gives the vectorised loop's bits.
      if (std::bit_cast<uint32_t>(c.fn(x[i])) != std::bit_cast<uint32_t>(vec[i]) &&
          !(std::isnan(vec[i]) && std::isnan(c.fn(x[i])))) {
        FAIL_CHECK("scalar and vector results differ at " << x[i]);
      }
    }
    INFO("worst at " << worst_x);
    CHECK(worst <= kF32Bound);
  }
}

TEST_CASE("vec_trig: the row and one-element forms of sin, cos, tan give the same bits", "[ops]") {
  // The sample (large arguments, inf and NaN among ordinary ones, so that some blocks of 256
  // take the full reduction and most do not), in place and out of place.
  const std::vector<float> x = sample_floats();
  const std::pair<d::TrigFn, const char*> fns[] = {
      {d::TrigFn::Sin, "sin"}, {d::TrigFn::Cos, "cos"}, {d::TrigFn::Tan, "tan"}};
  for (const auto& [fn, name] : fns) {
    INFO(name);
    const F32Case& c = f32_case(name);
    std::vector<float> want(x.size()), row(x.size()), in_place = x;
    c.loop(want.data(), x.data(), x.size());
    bool same = true;
    const auto n = int64_t(x.size());
    if (fn == d::TrigFn::Sin) {
      d::trig_row_f32<d::TrigFn::Sin>(row.data(), x.data(), n);
      d::trig_row_f32<d::TrigFn::Sin>(in_place.data(), in_place.data(), n);
      for (std::size_t i = 0; i < x.size(); ++i)
        same = same && same_f32(d::trig_scalar_f32<d::TrigFn::Sin>(x[i]), want[i]);
    } else if (fn == d::TrigFn::Cos) {
      d::trig_row_f32<d::TrigFn::Cos>(row.data(), x.data(), n);
      d::trig_row_f32<d::TrigFn::Cos>(in_place.data(), in_place.data(), n);
      for (std::size_t i = 0; i < x.size(); ++i)
        same = same && same_f32(d::trig_scalar_f32<d::TrigFn::Cos>(x[i]), want[i]);
    } else {
      d::trig_row_f32<d::TrigFn::Tan>(row.data(), x.data(), n);
      d::trig_row_f32<d::TrigFn::Tan>(in_place.data(), in_place.data(), n);
      for (std::size_t i = 0; i < x.size(); ++i)
        same = same && same_f32(d::trig_scalar_f32<d::TrigFn::Tan>(x[i]), want[i]);
    }
    for (std::size_t i = 0; i < x.size(); ++i) {
      same = same && same_f32(row[i], want[i]) && same_f32(in_place[i], want[i]);
    }
    CHECK(same);
  }
}

TEST_CASE("vec_trig: special values of the float functions", "[ops]") {
  const float specials[] = {0.0f,  -0.0f,  kInfF,   -kInfF, kNaNF, 1.0f,   -1.0f,   0.5f,
                            -0.5f, 1e-45f, -1e-45f, 1e-30f, 89.5f, -89.5f, 3.4e38f, -3.4e38f};
  for (const F32Case& c : f32_cases()) {
    for (float v : specials) {
      INFO(c.name << "(" << v << ")");
      const float got = c.fn(v);
      const float want = float(c.ref(double(v)));
      if (std::isnan(want)) {
        CHECK(std::isnan(got));
      } else {
        CHECK(ulp_error_f32(got, c.ref(double(v))) <= kF32Bound);
        if (want == 0.0f) CHECK(std::signbit(got) == std::signbit(want));  // sin(-0) = -0 ...
      }
    }
  }
  // Exact values the callers rely on.
  CHECK(d::cos_f32(0.0f) == 1.0f);
  CHECK(d::cosh_f32(0.0f) == 1.0f);
  CHECK(d::acos_f32(1.0f) == 0.0f);
  CHECK(d::acos_f32(-1.0f) == float(std::acos(-1.0)));
  CHECK(d::asin_f32(1.0f) == float(std::asin(1.0)));
  CHECK(d::asin_f32(-1.0f) == -float(std::asin(1.0)));
  CHECK(std::isnan(d::asin_f32(kNaNF)));
  CHECK(std::isnan(d::acos_f32(-kInfF)));
  CHECK(std::isnan(d::asin_f32(1.0000001f)));
  CHECK(std::isnan(d::acos_f32(-1.0000001f)));
  CHECK(d::atan_f32(kInfF) == float(std::atan(kInf)));
  CHECK(d::sinh_f32(-90.0f) == -kInfF);
  CHECK(d::cosh_f32(-90.0f) == kInfF);
}

TEST_CASE("vec_trig: sin, cos and tan of large arguments keep their accuracy", "[ops]") {
  // Powers of two and their neighbours up to the largest float, and the floats nearest to
  // multiples of pi/2 (where x - n pi/2 cancels most), on both sides of the 2^17 switch to the
  // full reduction.
  std::vector<float> x;
  for (int e = 10; e < 128; ++e) {
    const float p = std::ldexp(1.0f, e);
    x.insert(x.end(), {p, std::nextafter(p, 0.0f), std::nextafter(p, kInfF), -p, 1.5f * p});
  }
  x.push_back(std::numeric_limits<float>::max());
  x.push_back(-std::numeric_limits<float>::max());
  for (double n = 1; n < 1e30; n *= 1.37) {
    const float f = float(n * 1.5707963267948966);
    x.insert(x.end(), {f, std::nextafter(f, 0.0f), std::nextafter(f, kInfF)});
  }
  for (float v : {131071.99f, 131072.0f, 131072.02f, 102940.0f, 205887.42f}) x.push_back(v);
  for (const char* name : {"sin", "cos", "tan"}) {
    const F32Case& c = f32_case(name);
    std::vector<float> vec(x.size());
    c.loop(vec.data(), x.data(), x.size());
    for (std::size_t i = 0; i < x.size(); ++i) {
      INFO(name << "(" << x[i] << ")");
      CHECK(ulp_error_f32(vec[i], c.ref(double(x[i]))) <= kF32Bound);
    }
  }
}

TEST_CASE("vec_trig: double exp and log within 1 ulp on random samples", "[ops]") {
  std::mt19937_64 gen(20261202);
  std::uniform_real_distribution<double> wide(-746.0, 710.0), near(-2.0, 2.0);
  constexpr int kN = 1 << 15;
  std::vector<double> xe(kN), xl(kN), oe(kN), ol(kN);
  for (int i = 0; i < kN; ++i) {
    xe[i] = i % 2 ? wide(gen) : near(gen);
    // Positive doubles of every exponent, subnormals included, and values near 1.
    const uint64_t bits = (gen() & 0x7FFFFFFFFFFFFFFFull) % 0x7FF0000000000000ull;
    xl[i] = i % 2 ? std::bit_cast<double>(bits) : 1.0 + near(gen) / 4;
  }
  for (int i = 0; i < kN; ++i) oe[i] = d::exp_f64(xe[i]);
  for (int i = 0; i < kN; ++i) ol[i] = d::log_f64(xl[i]);
  double worst_exp = 0, worst_log = 0;
  for (int i = 0; i < kN; ++i) {
    worst_exp = std::max(worst_exp, ulp_error_f64(oe[i], expl((long double)xe[i])));
    worst_log = std::max(worst_log, ulp_error_f64(ol[i], logl((long double)xl[i])));
  }
  CHECK(worst_exp < 1.0);  // measured on 10^8 samples: 0.76 (the double rounding of subnormals)
  CHECK(worst_log < 1.0);  // 0.83
}

TEST_CASE("vec_trig: special values of the double exp and log", "[ops]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(d::exp_f64(0.0) == 1.0);
  CHECK(d::exp_f64(-0.0) == 1.0);
  CHECK(d::exp_f64(kInf) == kInf);
  CHECK(d::exp_f64(-kInf) == 0.0);
  CHECK(std::isnan(d::exp_f64(nan)));
  CHECK(d::exp_f64(709.78) == std::exp(709.78));
  CHECK(d::exp_f64(709.79) == kInf);
  CHECK(d::exp_f64(-745.2) == 0.0);
  CHECK(d::exp_f64(-745.1) == std::exp(-745.1));                  // the smallest subnormal
  CHECK(ulp_error_f64(d::exp_f64(-720.5), expl(-720.5L)) < 1.0);  // subnormal result
  CHECK(d::log_f64(1.0) == 0.0);
  CHECK(d::log_f64(0.0) == -kInf);
  CHECK(d::log_f64(-0.0) == -kInf);
  CHECK(d::log_f64(kInf) == kInf);
  CHECK(std::isnan(d::log_f64(-1.0)));
  CHECK(std::isnan(d::log_f64(-kInf)));
  CHECK(std::isnan(d::log_f64(nan)));
  const double tiny = std::numeric_limits<double>::denorm_min();
  CHECK(ulp_error_f64(d::log_f64(tiny), logl((long double)tiny)) < 1.0);
  CHECK(ulp_error_f64(d::log_f64(0x1p-1030), logl(0x1p-1030L)) < 1.0);
  CHECK(ulp_error_f64(d::log_f64(std::numeric_limits<double>::max()),
                      logl((long double)std::numeric_limits<double>::max())) < 1.0);
}

namespace {

// Doubles for sin and cos: every magnitude (random exponents up to the largest, so that glibc's
// fallback beyond 2^17 is sampled too), uniform values in [-10, 10] and in [-2^17, 2^17], the
// neighbours of n pi/2 rounded to double, and the doubles below 2^17 nearest to a multiple of
// pi/2 (found from the continued fractions of pi/2 scaled to each binade: the reduction's worst
// cancellations, 2^-61 to 2^-53 from the multiple).
std::vector<double> sample_trig_doubles() {
  std::mt19937_64 gen(20261207);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::vector<double> v;
  constexpr int kN = 1 << 16;
  for (int i = 0; i < kN; ++i) {
    double x = 0;
    switch (i % 4) {
      case 0: x = 20.0 * unit(gen) - 10.0; break;
      case 1: x = std::ldexp(0.5 + 0.5 * unit(gen), int(gen() % 2098) - 1073); break;
      case 2: x = 262144.0 * unit(gen) - 131072.0; break;
      default: {
        const double m = std::floor(83443.0 * unit(gen)) * 1.5707963267948966;
        x = std::nextafter(m, gen() & 1 ? kInf : -kInf);
      }
    }
    v.push_back(x);
  }
  const double hard[] = {0x1.6c6cbc45dc8dep+5,  0x1.6c6cbc45dc8dep+8,  0x1.6c6cbc45dc8dep+11,
                         0x1.65a1dd290660fp+16, 0x1.635e3d74befcap+14, 0x1.5a4fbea3a16b6p+13,
                         0x1.4832c1016648ep+12, 0x1.23f8c5bcf003ep+11, 0x1.242b09b3988c3p+11,
                         0x1.67df345e78b43p+15, 0x1.921fb54442d18p+0,  0x1.921fb54442d18p+1,
                         0x1.2d97c7f3321d2p+2,  0x1.921fb54442d18p+2,  0x1.f6a7a2955385ep+2};
  for (double x : hard) {
    for (double y : {x, std::nextafter(x, 0.0), std::nextafter(x, kInf)}) {
      v.push_back(y);
      v.push_back(-y);
    }
  }
  return v;
}

// Same bits, or both NaN.
bool same_f64(double a, double b) {
  return std::bit_cast<uint64_t>(a) == std::bit_cast<uint64_t>(b) ||
         (std::isnan(a) && std::isnan(b));
}

}  // namespace

TEST_CASE("vec_trig: double sin and cos within 1 ulp on random samples", "[ops]") {
  const std::vector<double> x = sample_trig_doubles();
  const auto n = int64_t(x.size());
  std::vector<double> rs(x.size()), rc(x.size());
  d::trig_row_f64<d::TrigFn::Sin>(rs.data(), x.data(), n);
  d::trig_row_f64<d::TrigFn::Cos>(rc.data(), x.data(), n);
  double worst_sin = 0, worst_cos = 0, worst_sin_x = 0, worst_cos_x = 0;
  bool same = true;
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double es = ulp_error_f64(rs[i], sinl((long double)x[i]));
    const double ec = ulp_error_f64(rc[i], cosl((long double)x[i]));
    if (es > worst_sin) worst_sin = es, worst_sin_x = x[i];
    if (ec > worst_cos) worst_cos = ec, worst_cos_x = x[i];
    // The row (blocks, glibc for the few beyond 2^17) gives the one-element function's bits.
    same = same && same_f64(rs[i], d::sin_f64(x[i])) && same_f64(rc[i], d::cos_f64(x[i]));
  }
  INFO("sin worst at " << worst_sin_x << ", cos worst at " << worst_cos_x);
  CHECK(worst_sin < 1.0);  // measured on 3 * 10^7 samples: 0.79, with FMA or without
  CHECK(worst_cos < 1.0);  // 0.79
  CHECK(same);
  // In place, and rows whose length is not a multiple of the block.
  std::vector<double> in_place(x.begin(), x.begin() + 1000);
  d::trig_row_f64<d::TrigFn::Sin>(in_place.data(), in_place.data(), 1000);
  bool in_place_same = true;
  for (int i = 0; i < 1000; ++i) in_place_same = in_place_same && same_f64(in_place[i], rs[i]);
  CHECK(in_place_same);
}

TEST_CASE("vec_trig: special values of the double sin and cos", "[ops]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double tiny = std::numeric_limits<double>::denorm_min();
  const double big = std::numeric_limits<double>::max();
  for (double (*f)(double) : {d::sin_f64, d::cos_f64}) {
    CHECK(std::isnan(f(nan)));
    CHECK(std::isnan(f(kInf)));
    CHECK(std::isnan(f(-kInf)));
  }
  CHECK(std::bit_cast<uint64_t>(d::sin_f64(0.0)) == std::bit_cast<uint64_t>(0.0));
  CHECK(std::bit_cast<uint64_t>(d::sin_f64(-0.0)) == std::bit_cast<uint64_t>(-0.0));
  CHECK(d::cos_f64(0.0) == 1.0);
  CHECK(d::cos_f64(-0.0) == 1.0);
  CHECK(d::sin_f64(tiny) == tiny);  // sin(x) rounds to x below 2^-26
  CHECK(d::sin_f64(-0x1p-30) == -0x1p-30);
  CHECK(d::cos_f64(0x1p-30) == 1.0);
  // Both sides of the switch to glibc at 2^17, and the largest doubles.
  for (double v : {131072.0, std::nextafter(131072.0, 0.0), std::nextafter(131072.0, kInf), 1e22,
                   big, -big, 0x1p1000}) {
    INFO(v);
    CHECK(ulp_error_f64(d::sin_f64(v), sinl((long double)v)) < 1.0);
    CHECK(ulp_error_f64(d::cos_f64(v), cosl((long double)v)) < 1.0);
  }
  // Row forms: NaN and inf among ordinary values and one huge one, in a block of 256.
  std::vector<double> x(300, 0.75), out(300);
  x[3] = nan;
  x[4] = -kInf;
  x[5] = 1e300;
  x[6] = -0.0;
  d::trig_row_f64<d::TrigFn::Sin>(out.data(), x.data(), 300);
  CHECK(std::isnan(out[3]));
  CHECK(std::isnan(out[4]));
  CHECK(out[5] == std::sin(1e300));
  CHECK(std::bit_cast<uint64_t>(out[6]) == std::bit_cast<uint64_t>(-0.0));
  CHECK(out[7] == d::sin_f64(0.75));
}

namespace {
// The float elements of t (any layout, float or Half) in row-major order of its shape.
std::vector<float> floats_of(const Tensor& t) {
  const Tensor c = t.to(kFloat).contiguous();
  const float* p = c.data_ptr<float>();
  return std::vector<float>(p, p + c.numel());
}
}  // namespace

TEST_CASE("vec_trig: the tensor ops use these functions, in every layout and for Half", "[ops]") {
  // 3 x 700 values, one huge and one infinite in the middle: blocks of the trigonometric rows
  // with and without the large-argument reduction, and a scalar tail. Values in [-10, 10], or
  // in [-1, 1] for asin and acos.
  const int64_t rows = 3, cols = 700;
  const auto input = [&](float scale) {
    Tensor t = empty({rows, cols}, kFloat);
    float* p = t.data_ptr<float>();
    for (int64_t i = 0; i < rows * cols; ++i)
      p[i] = scale * (-1.0f + 2.0f * float(i) / float(rows * cols));
    p[1000] = 1e30f;
    p[1001] = -kInfF;
    return t;
  };
  const Tensor wide = input(10.0f), unit = input(1.0f);
  struct Op {
    const char* name;
    Tensor (*fn)(const Tensor&);
    const Tensor* x;
  };
  const Op ops[] = {{"sin", [](const Tensor& t) { return tensorplay::sin(t); }, &wide},
                    {"cos", [](const Tensor& t) { return tensorplay::cos(t); }, &wide},
                    {"tan", [](const Tensor& t) { return tensorplay::tan(t); }, &wide},
                    {"asin", [](const Tensor& t) { return tensorplay::asin(t); }, &unit},
                    {"acos", [](const Tensor& t) { return tensorplay::acos(t); }, &unit},
                    {"atan", [](const Tensor& t) { return tensorplay::atan(t); }, &wide},
                    {"sinh", [](const Tensor& t) { return tensorplay::sinh(t); }, &wide},
                    {"cosh", [](const Tensor& t) { return tensorplay::cosh(t); }, &wide}};
  for (const Op& op : ops) {
    INFO(op.name);
    const F32Case& c = f32_case(op.name);
    const Tensor& x = *op.x;
    const Tensor y = op.fn(x);
    REQUIRE(y.dtype() == kFloat);
    const std::vector<float> xv = floats_of(x), yv = floats_of(y);
    for (std::size_t i = 0; i < xv.size(); ++i) {
      INFO(xv[i]);
      CHECK(ulp_error_f32(yv[i], c.ref(double(xv[i]))) <= kF32Bound);
      CHECK(same_f32(yv[i], c.fn(xv[i])));  // the row gives the scalar function's bits
    }
    // Transposed (strided rows), a strided slice, and in place: the same bits.
    const std::vector<float> yt = floats_of(op.fn(x.t()).t());
    const std::vector<float> ys = floats_of(op.fn(x.slice(1, 1, cols, 3)));
    const std::vector<float> ws = floats_of(op.fn(x.slice(1, 1, cols, 3).contiguous()));
    Tensor b = x.clone();
    if (std::string(op.name) == "sin") b.sin_();
    if (std::string(op.name) == "cos") b.cos_();
    if (std::string(op.name) == "tan") b.tan_();
    const std::vector<float> yb = floats_of(b);
    const bool in_place = std::string(op.name).size() == 3;
    bool all_same = true;
    for (std::size_t i = 0; i < yv.size(); ++i) {
      all_same = all_same && same_f32(yt[i], yv[i]) && (!in_place || same_f32(yb[i], yv[i]));
    }
    for (std::size_t i = 0; i < ys.size(); ++i) all_same = all_same && same_f32(ys[i], ws[i]);
    CHECK(all_same);
    // Half: computed in float, rounded to Half once.
    const Tensor h = x.to(kHalf);
    const Tensor yh = op.fn(h);
    REQUIRE(yh.dtype() == kHalf);
    const std::vector<float> got = floats_of(yh), want = floats_of(op.fn(h.to(kFloat)).to(kHalf));
    bool half_same = true;
    for (std::size_t i = 0; i < got.size(); ++i) half_same = half_same && same_f32(got[i], want[i]);
    CHECK(half_same);
  }
  // Double exp and log through the API.
  const Tensor xd = linspace(-20, 20, 1001, TensorOptions().dtype(kDouble));
  const Tensor ed = tensorplay::exp(xd), ld = tensorplay::log(tensorplay::abs(xd));
  for (int64_t i = 0; i < 1001; ++i) {
    const double v = xd.data_ptr<double>()[i];
    CHECK(ulp_error_f64(ed.data_ptr<double>()[i], expl((long double)v)) < 1.0);
    CHECK(ulp_error_f64(ld.data_ptr<double>()[i], logl(fabsl((long double)v))) < 1.0);
  }
}

TEST_CASE("vec_trig: double sin and cos through the tensor API, in every layout", "[ops]") {
  // 3 x 700 doubles in [-30, 30], one huge (glibc's path) and one infinite in the middle.
  Tensor x = linspace(-30, 30, 2100, TensorOptions().dtype(kDouble)).reshape({3, 700});
  double* p = x.data_ptr<double>();
  p[1000] = 1e300;
  p[1001] = -kInf;
  const auto doubles_of = [](const Tensor& t) {
    const Tensor c = t.contiguous();
    const double* q = c.data_ptr<double>();
    return std::vector<double>(q, q + c.numel());
  };
  for (const bool is_sin : {true, false}) {
    INFO((is_sin ? "sin" : "cos"));
    const auto op = [&](const Tensor& t) {
      return is_sin ? tensorplay::sin(t) : tensorplay::cos(t);
    };
    const Tensor y = op(x);
    REQUIRE(y.dtype() == kDouble);
    const std::vector<double> xv = doubles_of(x), yv = doubles_of(y);
    for (std::size_t i = 0; i < xv.size(); ++i) {
      const long double ref = is_sin ? sinl((long double)xv[i]) : cosl((long double)xv[i]);
      CHECK(ulp_error_f64(yv[i], ref) < 1.0);
    }
    // Transposed (strided rows), a strided slice, and in place: the same bits. (Not the bits of
    // this file's d::sin_f64, whose level may differ from the kernels': with FMA or without,
    // the last bit of a double result can differ.)
    bool all_same = true;
    const std::vector<double> yt = doubles_of(op(x.t()).t());
    const std::vector<double> ys = doubles_of(op(x.slice(1, 1, 700, 3)));
    const std::vector<double> ws = doubles_of(op(x.slice(1, 1, 700, 3).contiguous()));
    Tensor b = x.clone();
    if (is_sin) {
      b.sin_();
    } else {
      b.cos_();
    }
    const std::vector<double> yb = doubles_of(b);
    for (std::size_t i = 0; i < yv.size(); ++i) {
      all_same = all_same && same_f64(yt[i], yv[i]) && same_f64(yb[i], yv[i]);
    }
    for (std::size_t i = 0; i < ys.size(); ++i) all_same = all_same && same_f64(ys[i], ws[i]);
    CHECK(all_same);
  }
}

}  // namespace ops_vec_trig_test
