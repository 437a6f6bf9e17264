// Binary elementwise math (ops/binary.hpp): every op against double-precision reference loops,
// PyTorch 1.13's promotion table, broadcasting, strided inputs, out=, in-place rules, integer
// edge cases, NaN handling and every error message.
#include <tensorplay/ops/binary.hpp>
#include <tensorplay/ops/compare.hpp>
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <vector>

namespace ops_binary_test {

using namespace tensorplay;

namespace {

using V = std::vector<double>;
using S = std::vector<int64_t>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

constexpr std::array<DType, 10> kAllDTypes = {kBool,  kUInt8,   kInt8,     kInt16,   kInt32,
                                              kInt64, kFloat16, kBFloat16, kFloat32, kFloat64};
constexpr std::array<DType, 6> kIntDTypes = {kUInt8, kInt8, kInt16, kInt32, kInt64, kBool};
constexpr std::array<DType, 4> kFloatDTypes = {kFloat16, kBFloat16, kFloat32, kFloat64};

// Row-major values in, any dtype: a static_cast from double per element.
Tensor make(S sizes, const V& values, DType dt = kFloat) {
  Tensor t = empty(sizes, dtype(dt));
  REQUIRE(t.numel() == int64_t(values.size()));
  dispatch_dtype(dt, [&]<class T>() {
    T* p = static_cast<T*>(t.data_ptr());
    for (std::size_t i = 0; i < values.size(); ++i) p[i] = static_cast<T>(values[i]);
  });
  return t;
}
Tensor vec(const V& values, DType dt = kFloat) {
  return make({int64_t(values.size())}, values, dt);
}

// The elements in row-major order of the logical shape, whatever the strides, as doubles.
V values(const Tensor& t) {
  V out;
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

// The value dtype `dt` stores for the real `v`: round to nearest for floats, modulo 2^n for
// integers (v integral), != 0 for bool.
double stored(double v, DType dt) {
  switch (dt) {
    case kBool: return v != 0 ? 1 : 0;
    case kUInt8: return double(uint8_t(int64_t(v)));
    case kInt8: return double(int8_t(int64_t(v)));
    case kInt16: return double(int16_t(int64_t(v)));
    case kInt32: return double(int32_t(int64_t(v)));
    case kInt64: return double(int64_t(v));
    case kFloat16: return double(float(Half(v)));
    case kBFloat16: return double(float(BFloat16(v)));
    case kFloat32: return double(float(v));
    case kFloat64: return v;
    default: break;  // the quantized dtypes
  }
  return 0;
}

// Relative tolerance of a floating result computed in float (or double) and rounded once,
// against the exact value rounded once: one unit in the last place of the result type.
double tolerance(DType dt) {
  switch (dt) {
    case kFloat16: return 1e-3;
    case kBFloat16: return 8e-3;
    case kFloat32: return 2e-7;
    case kFloat64: return 1e-15;
    default: return 0;
  }
}

bool close_to(double got, double want, double rel) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  return std::fabs(got - want) <= rel * std::fabs(want) + (rel > 0 ? 1e-300 : 0);
}

void check_values(const Tensor& got, const V& want, double rel = -1) {
  const double tol = rel >= 0 ? rel : tolerance(got.dtype());
  const V g = values(got);
  REQUIRE(g.size() == want.size());
  for (std::size_t i = 0; i < g.size(); ++i) {
    INFO("element " << i << " of " << got.dtype() << ": got " << g[i] << ", want " << want[i]);
    CHECK(close_to(g[i], want[i], tol));
  }
}

// Values that every dtype in `dts` holds exactly: small integers, nonnegative for uint8.
V sample_a(DType dt) {
  if (dt == kBool) return {0, 1, 1, 0, 1, 0};
  if (dt == kUInt8) return {0, 1, 7, 100, 200, 255};
  if (is_integral(dt, false)) return {-7, -1, 0, 3, 100, 127};
  return {-7.5, -1.25, 0, 3.5, 100.25, 0.1};
}
V sample_b(DType dt) {
  if (dt == kBool) return {0, 0, 1, 1, 1, 1};
  if (dt == kUInt8) return {3, 5, 2, 9, 100, 1};
  if (is_integral(dt, false)) return {2, -3, 5, -4, 7, 1};
  return {2.5, -3, 0.75, -4.5, 7, 0.3};
}

// Runs `op` on sample tensors of dtype dt and checks it against `ref` (exact real arithmetic on
// the stored inputs) rounded to the result dtype `out_dt`.
void check_against_reference(DType dt, DType out_dt,
                             const std::function<Tensor(const Tensor&, const Tensor&)>& op,
                             const std::function<double(double, double)>& ref) {
  const Tensor a = vec(sample_a(dt), dt), b = vec(sample_b(dt), dt);
  const V va = values(a), vb = values(b);
  const Tensor r = op(a, b);
  INFO("dtype " << dt);
  REQUIRE(r.dtype() == out_dt);
  V want;
  for (std::size_t i = 0; i < va.size(); ++i) want.push_back(stored(ref(va[i], vb[i]), out_dt));
  check_values(r, want);
}

// Python's floor division and modulo, in double.
double py_floordiv(double a, double b) { return std::floor(a / b); }
double py_mod(double a, double b) {
  const double m = std::fmod(a, b);
  return (m != 0 && ((m < 0) != (b < 0))) ? m + b : m;
}

}  // namespace

// ==== values against reference loops ==========================================================

TEST_CASE("binary: add, sub and mul match double references for every dtype", "[ops][binary]") {
  for (DType dt : kAllDTypes) {
    check_against_reference(
        dt, dt, [](const Tensor& a, const Tensor& b) { return add(a, b); },
        [](double x, double y) { return x + y; });
    check_against_reference(
        dt, dt, [](const Tensor& a, const Tensor& b) { return a.mul(b); },
        [](double x, double y) { return x * y; });
    if (dt != kBool) {
      check_against_reference(
          dt, dt, [](const Tensor& a, const Tensor& b) { return sub(a, b); },
          [](double x, double y) { return x - y; });
      check_against_reference(
          dt, dt, [](const Tensor& a, const Tensor& b) { return add(a, b, 3); },
          [](double x, double y) { return x + 3 * y; });
      check_against_reference(
          dt, dt, [](const Tensor& a, const Tensor& b) { return a.sub(b, 2); },
          [](double x, double y) { return x - 2 * y; });
    }
  }
  for (DType dt : kFloatDTypes) {
    check_against_reference(
        dt, dt, [](const Tensor& a, const Tensor& b) { return add(a, b, 0.5); },
        [](double x, double y) { return x + 0.5 * y; });
  }
}

TEST_CASE("binary: bool arithmetic is logical", "[ops][binary]") {
  const Tensor t = vec({0, 0, 1, 1}, kBool), u = vec({0, 1, 0, 1}, kBool);
  CHECK((t + u).dtype() == kBool);
  CHECK(values(t + u) == V{0, 1, 1, 1});  // True + True = True
  CHECK(values(t * u) == V{0, 0, 0, 1});
  CHECK(values(add(t, u, true)) == V{0, 1, 1, 1});
  CHECK(values(add(t, u, false)) == V{0, 0, 1, 1});
  CHECK(values(maximum(t, u)) == V{0, 1, 1, 1});
  CHECK(values(minimum(t, u)) == V{0, 0, 0, 1});
}

TEST_CASE("binary: div true, trunc and floor match references", "[ops][binary]") {
  for (DType dt : kAllDTypes) {
    if (dt == kBool) continue;
    const DType true_dt = is_floating_point(dt) ? dt : kFloat;
    check_against_reference(
        dt, true_dt, [](const Tensor& a, const Tensor& b) { return div(a, b); },
        [](double x, double y) { return x / y; });
    check_against_reference(
        dt, dt, [](const Tensor& a, const Tensor& b) { return div(a, b, "trunc"); },
        [](double x, double y) { return std::trunc(x / y); });
    check_against_reference(
        dt, dt, [](const Tensor& a, const Tensor& b) { return a.div(b, "floor"); }, py_floordiv);
    check_against_reference(
        dt, dt, [](const Tensor& a, const Tensor& b) { return floor_divide(a, b); }, py_floordiv);
  }
  // Integer division rounds exactly, not through floating point.
  Tensor big = empty({2}, dtype(kLong));  // +-(2^53 + 1), not a double
  big.data_ptr<int64_t>()[0] = 9007199254740993;
  big.data_ptr<int64_t>()[1] = -9007199254740993;
  CHECK(div(big, vec({2, 2}, kLong), "trunc").data_ptr<int64_t>()[0] == 4503599627370496);
  CHECK(div(big, vec({2, 2}, kLong), "floor").data_ptr<int64_t>()[1] == -4503599627370497);
  // Python's sign rules for floor division.
  CHECK(values(div(vec({7, -7, 7, -7}, kInt), vec({2, 2, -2, -2}, kInt), "floor")) ==
        V{3, -4, -4, 3});
  CHECK(values(div(vec({7, -7, 7, -7}, kInt), vec({2, 2, -2, -2}, kInt), "trunc")) ==
        V{3, -3, -3, 3});
  CHECK(values(div(vec({7, -7, 7, -7}), vec({2, 2, -2, -2}), "floor")) == V{3, -4, -4, 3});
  // Floor division of floats: exact quotients, signed zeros, and IEEE division by zero.
  const Tensor q = div(vec({-0.0, 1, -1, 0, 5}), vec({3, 0, 0, 0, 0.5}), "floor");
  const V vq = values(q);
  CHECK(vq[0] == 0);
  CHECK(std::signbit(vq[0]));
  CHECK(vq[1] == kInf);
  CHECK(vq[2] == -kInf);
  CHECK(std::isnan(vq[3]));
  CHECK(vq[4] == 10);
  CHECK(values(div(vec({1, -1}), vec({0, 0}), "trunc")) == V{kInf, -kInf});
  CHECK(values(div(vec({1.0}), vec({3.0}), "floor")) == V{0});
}

TEST_CASE("binary: remainder and fmod follow Python's and C's sign rules", "[ops][binary]") {
  for (DType dt : kAllDTypes) {
    if (dt == kBool) continue;
    check_against_reference(
        dt, dt, [](const Tensor& a, const Tensor& b) { return remainder(a, b); }, py_mod);
    check_against_reference(
        dt, dt, [](const Tensor& a, const Tensor& b) { return a.fmod(b); },
        [](double x, double y) { return std::fmod(x, y); });
  }
  CHECK(values(remainder(vec({-3, 3, -3, 3}, kInt), vec({2, -2, -2, 2}, kInt))) == V{1, -1, -1, 1});
  CHECK(values(fmod(vec({-3, 3, -3, 3}, kInt), vec({2, -2, -2, 2}, kInt))) == V{-1, 1, -1, 1});
  CHECK(values(remainder(vec({-3.5, 3.5}), 2)) == V{0.5, 1.5});
  CHECK(values(fmod(vec({-3.5, 3.5}), 2)) == V{-1.5, 1.5});
  // Floating remainder by zero is NaN (no error).
  CHECK(std::isnan(values(remainder(vec({1.0}), 0.0))[0]));
  CHECK(std::isnan(values(fmod(vec({1.0}), 0.0))[0]));
  // A number on the left.
  const Tensor r = remainder(7, vec({3, -3}, kInt));
  CHECK(r.dtype() == kInt);
  CHECK(values(r) == V{1, -2});
  CHECK(values(7 % vec({3, -3}, kInt)) == V{1, -2});
}

TEST_CASE("binary: pow for tensors, scalar exponents and scalar bases", "[ops][binary]") {
  for (DType dt : kFloatDTypes) {
    const Tensor a = vec({0.5, 1.5, 2, 3, 0.25}, dt);
    const Tensor b = vec({2, -1, 0.5, 3, 1.5}, dt);
    const V va = values(a), vb = values(b);
    V want;
    for (int i = 0; i < 5; ++i) want.push_back(stored(std::pow(va[i], vb[i]), dt));
    check_values(pow(a, b), want);
    for (double e : {0.0, 1.0, 2.0, 3.0, 0.5, -0.5, -1.0, -2.0, 2.7, -1.3}) {
      INFO("exponent " << e);
      // Half and BFloat16 take the exponent in their own precision (ATen's exp.to<scalar_t>()).
      const double ee = dt == kFloat16 || dt == kBFloat16 ? stored(e, dt) : e;
      V w;
      for (double x : va) w.push_back(stored(std::pow(x, ee), dt));
      check_values(a.pow(e), w);
    }
  }
  // Integer powers wrap; negative integer exponents from a tensor give 0, 1 or -1.
  const Tensor base = vec({2, -2, 1, -1, 3, 0}, kInt);
  CHECK(values(pow(base, vec({3, 3, -5, -5, -1, 4}, kInt))) == V{8, -8, 1, -1, 0, 0});
  CHECK(values(pow(vec({-1, -1}, kLong), vec({-2, -3}, kLong))) == V{1, -1});
  CHECK(values(pow(vec({2}, kInt), 31)) == V{double(std::numeric_limits<int32_t>::min())});
  CHECK(values(pow(vec({3}, kInt8), 5)) == V{double(int8_t(243))});
  CHECK(values(pow(vec({16}, kUInt8), 2)) == V{0});
  CHECK(values(pow(vec({3}, kLong), 40)) == V{double(int64_t(uint64_t(12157665459056928801ull)))});
  CHECK(values(pow(base, 0)) == V{1, 1, 1, 1, 1, 1});
  CHECK(values(pow(base, 1)) == values(base));
  CHECK(values(pow(base, 2)) == V{4, 4, 1, 1, 9, 0});
  // Promotion: an integer tensor to a float exponent is float32; a bool base is int64.
  const Tensor pf = pow(vec({4, 9}, kInt), 0.5);
  CHECK(pf.dtype() == kFloat);
  CHECK(values(pf) == V{2, 3});
  CHECK(pow(vec({1, 0}, kBool), 2).dtype() == kLong);
  // Scalar base: 2 ** int tensor stays int; 2.5 ** int tensor is float32; 1 ** anything is 1.
  const Tensor e = vec({0, 1, 2, 3}, kInt);
  CHECK(pow(2, e).dtype() == kInt);
  CHECK(values(pow(2, e)) == V{1, 2, 4, 8});
  CHECK(values(pow(2, vec({-1}, kInt))) == V{0});
  CHECK(pow(2.5, e).dtype() == kFloat);
  check_values(pow(2.5, e), {1, 2.5, 6.25, 15.625});
  CHECK(values(pow(1, vec({kNaN, -5}))) == V{1, 1});
  CHECK(pow(1, e).dtype() == kInt);
  CHECK(pow(1.0, e).dtype() == kFloat);
  CHECK(pow(1, e)._version() == 0);
  // NaN and infinities as std::pow has them.
  const V pn = values(pow(vec({kNaN, 0, -8}), vec({0, -1, 1.0 / 3})));
  CHECK(pn[0] == 1);
  CHECK(pn[1] == kInf);
  CHECK(std::isnan(pn[2]));
}

TEST_CASE("binary: atan2 promotes integers to float", "[ops][binary]") {
  for (DType dt : kAllDTypes) {
    if (dt == kBool) continue;
    check_against_reference(
        dt, is_floating_point(dt) ? dt : kFloat,
        [](const Tensor& a, const Tensor& b) { return atan2(a, b); },
        [](double x, double y) { return std::atan2(x, y); });
  }
  const Tensor r = atan2(vec({1, 0}, kBool), vec({1, 1}, kBool));
  CHECK(r.dtype() == kFloat);
  check_values(r, {std::atan2(1.0, 1.0), 0});
  CHECK(arctan2(vec({1.0}), vec({-1.0})).dtype() == kFloat);
}

TEST_CASE("binary: maximum and minimum propagate NaN", "[ops][binary]") {
  for (DType dt : kAllDTypes) {
    check_against_reference(
        dt, dt, [](const Tensor& a, const Tensor& b) { return maximum(a, b); },
        [](double x, double y) { return std::max(x, y); });
    check_against_reference(
        dt, dt, [](const Tensor& a, const Tensor& b) { return a.minimum(b); },
        [](double x, double y) { return std::min(x, y); });
  }
  for (DType dt : kFloatDTypes) {
    const Tensor a = vec({kNaN, 1, kNaN, -kInf}, dt), b = vec({1, kNaN, kNaN, 2}, dt);
    const V mx = values(maximum(a, b)), mn = values(minimum(a, b));
    CHECK(std::isnan(mx[0]));
    CHECK(std::isnan(mx[1]));
    CHECK(std::isnan(mx[2]));
    CHECK(mx[3] == 2);
    CHECK(std::isnan(mn[0]));
    CHECK(std::isnan(mn[1]));
    CHECK(mn[3] == -kInf);
  }
  // Promotion applies: int and float tensors meet at float.
  const Tensor m = maximum(vec({1, 5}, kInt), vec({2.5, 2.5}));
  CHECK(m.dtype() == kFloat);
  CHECK(values(m) == V{2.5, 5});
}

TEST_CASE("binary: lerp uses PyTorch's two-sided formula", "[ops][binary]") {
  for (DType dt : kFloatDTypes) {
    const Tensor s = vec({0, 1, -2, 10}, dt), e = vec({10, 3, 2, -10}, dt);
    const V vs = values(s), ve = values(e);
    for (double w : {0.0, 0.25, 0.5, 0.75, 1.0, -0.5, 1.5}) {
      INFO(dt << " weight " << w);
      V want;
      for (int i = 0; i < 4; ++i) want.push_back(stored(vs[i] + w * (ve[i] - vs[i]), dt));
      check_values(lerp(s, e, w), want, dt == kFloat64 ? 1e-15 : tolerance(dt) * 2);
      check_values(s.lerp(e, full({4}, w, dtype(dt))), want,
                   dt == kFloat64 ? 1e-15 : tolerance(dt) * 2);
    }
  }
  // Exact at both ends, even where the one-sided formula is not.
  const float x = 1e8f, y = 1.0f;
  CHECK(values(lerp(vec({x}), vec({y}), 1.0)) == V{1.0});
  CHECK(values(lerp(vec({x}), vec({y}), 0.0)) == V{1e8});
  // Weight tensors broadcast.
  const Tensor r = lerp(zeros({2, 3}), ones({2, 3}), vec({0, 0.5, 1}));
  CHECK(values(r) == V{0, 0.5, 1, 0, 0.5, 1});
  // In place.
  Tensor t = vec({0, 4});
  t.lerp_(vec({4, 0}), 0.25);
  CHECK(values(t) == V{1, 3});
  CHECK(t._version() == 1);
}

TEST_CASE("binary: bitwise ops on integers and bools", "[ops][binary]") {
  for (DType dt : kIntDTypes) {
    const Tensor a = vec(sample_a(dt), dt), b = vec(sample_b(dt), dt);
    const V va = values(a), vb = values(b);
    V wand, wor, wxor, wnot;
    for (std::size_t i = 0; i < va.size(); ++i) {
      const int64_t x = int64_t(va[i]), y = int64_t(vb[i]);
      wand.push_back(stored(double(x & y), dt));
      wor.push_back(stored(double(x | y), dt));
      wxor.push_back(stored(double(x ^ y), dt));
      wnot.push_back(dt == kBool ? double(!x) : stored(double(~x), dt));
    }
    INFO(dt);
    CHECK(values(bitwise_and(a, b)) == wand);
    CHECK(values(a | b) == wor);
    CHECK(values(a.bitwise_xor(b)) == wxor);
    CHECK(values(~a) == wnot);
    CHECK(values(bitwise_not(a)) == wnot);
    CHECK((a & b).dtype() == dt);
  }
  CHECK(values(vec({12, 10}, kInt) & 6) == V{4, 2});
  CHECK(values(6 | vec({1, 8}, kInt)) == V{7, 14});
  CHECK(values(vec({5}, kLong) ^ 3) == V{6});
  CHECK((vec({1}, kBool) & true).dtype() == kBool);
  CHECK((vec({1}, kBool) | 2).dtype() == kLong);
  Tensor t = vec({12, 10}, kInt);
  t &= vec({4, 4}, kInt);
  t |= 1;
  t ^= vec({2, 2}, kInt);
  CHECK(values(t) == V{7, 3});
  t.bitwise_not_();
  CHECK(values(t) == V{-8, -4});
  CHECK(t._version() == 4);
  Tensor out = empty({2}, dtype(kInt));
  bitwise_and_out(out, vec({3, 5}, kInt), vec({6, 6}, kInt));
  CHECK(values(out) == V{2, 4});
  bitwise_not_out(out, vec({0, -1}, kInt));
  CHECK(values(out) == V{-1, 0});
}

TEST_CASE("binary: shifts on integers (libtorch's bitwise_left_shift / __lshift__)",
          "[ops][binary]") {
  // Values checked against torch 1.13 for counts inside the type's width.
  const Tensor x = vec({1, -8, 3, 100}, kLong);
  CHECK(values(bitwise_left_shift(x, 1)) == V{2, -16, 6, 200});
  CHECK(values(x.bitwise_right_shift(1)) == V{0, -4, 1, 50});
  CHECK(values(x.__lshift__(vec({1, 2, 3, 4}, kLong))) == V{2, -32, 24, 1600});
  CHECK(values(bitwise_left_shift(2, vec({1, 2}, kLong))) == V{4, 8});
  const Tensor i8 = vec({1, -8, 64, 127}, kChar);
  CHECK(values(i8.__lshift__(1)) == V{2, -16, -128, -2});  // wraps in the type
  CHECK(values(i8.__rshift__(7)) == V{0, -1, 0, 0});
  CHECK(values(vec({1, 200}, kByte).__lshift__(1)) == V{2, 144});
  CHECK(values(vec({1, 200}, kByte).__rshift__(1)) == V{0, 100});
  CHECK(i8.__lshift__(vec({1, 2, 3, 4}, kLong)).dtype() == kLong);  // promotes
  // Counts outside the width: PyTorch 2's definition (1.13 wraps them modulo the hardware's).
  CHECK(values(x.__lshift__(64)) == V{0, 0, 0, 0});
  CHECK(values(x.__lshift__(-1)) == V{0, 0, 0, 0});
  CHECK(values(x.__rshift__(64)) == V{0, -1, 0, 0});
  CHECK(values(i8.__rshift__(-3)) == V{0, -1, 0, 0});
  CHECK(values(vec({200}, kByte).__rshift__(9)) == V{0});
  // In place, out=, and the dtypes without a kernel.
  Tensor t = vec({5, -6}, kInt);
  t.__ilshift__(2);
  t.bitwise_right_shift_(vec({1, 1}, kInt));
  CHECK(values(t) == V{10, -12});
  CHECK(t._version() == 2);
  Tensor out = empty({2}, dtype(kInt));
  bitwise_left_shift_out(out, vec({3, 5}, kInt), 1);
  CHECK(values(out) == V{6, 10});
  CHECK_THROWS_WITH(vec({1.5}, kFloat).__lshift__(1), "\"lshift_cpu\" not implemented for 'Float'");
  CHECK_THROWS_WITH(vec({1}, kBool).__rshift__(true), "\"rshift_cpu\" not implemented for 'Bool'");
  CHECK_THROWS_WITH(x.__lshift__(1.5), "\"lshift_cpu\" not implemented for 'Float'");
  CHECK_THROWS_WITH(t.__ilshift__(1.5),
                    "result type Float can't be cast to the desired output type Int");
}

// ==== clamp ====================================================================================

TEST_CASE("binary: clamp with scalar bounds", "[ops][binary]") {
  for (DType dt : kAllDTypes) {
    if (dt == kBool) continue;
    const Tensor a = vec(sample_a(dt), dt);
    const V va = values(a);
    V both, lo, hi;
    for (double x : va) {
      both.push_back(std::min(std::max(x, 1.0), 100.0));
      lo.push_back(std::max(x, 1.0));
      hi.push_back(std::min(x, 100.0));
    }
    INFO(dt);
    CHECK(clamp(a, 1, 100).dtype() == dt);
    CHECK(values(clamp(a, 1, 100)) == both);
    CHECK(values(a.clamp(1)) == lo);
    CHECK(values(a.clamp(std::nullopt, 100)) == hi);
    CHECK(values(clamp_min(a, 1)) == lo);
    CHECK(values(a.clamp_max(100)) == hi);
    CHECK(values(clip(a, 1, 100)) == both);
  }
  // A missing bound leaves infinities alone.
  CHECK(values(clamp_min(vec({kInf, -kInf}), 0)) == V{kInf, 0});
  CHECK(values(clamp_max(vec({kInf, -kInf}, kHalf), 0)) == V{0, -kInf});
  CHECK(values(clamp(vec({kInf, -kInf}, kDouble), std::nullopt, 1)) == V{1, -kInf});
  // min > max gives max everywhere (min(max(x, lo), hi)).
  CHECK(values(clamp(vec({-5, 0, 5}), 3, 1)) == V{1, 1, 1});
  // NaN elements stay NaN; a NaN bound makes everything NaN.
  const V n = values(clamp(vec({kNaN, 2, -kInf}), 0, 1));
  CHECK(std::isnan(n[0]));
  CHECK(n[1] == 1);
  CHECK(n[2] == 0);
  for (const V& r :
       {values(clamp(vec({1, 2}), kNaN, 1)), values(clamp(vec({1, 2}), 0, kNaN)),
        values(clamp_min(vec({1, 2}), kNaN)), values(clamp_max(vec({1}, kInt), kNaN))}) {
    for (double x : r) CHECK(std::isnan(x));
  }
  // Integer self with floating bounds promotes (as PyTorch's manual result_type does).
  const Tensor p = clamp(vec({0, 5, 10}, kInt), 2.5, 7.5);
  CHECK(p.dtype() == kFloat);
  CHECK(values(p) == V{2.5, 5, 7.5});
  // uint8 takes -1 as 255 (c10's wrapping rule), so everything becomes max (PyTorch: [2, 2]).
  CHECK(clamp(vec({0, 5}, kUInt8), -1, 2).dtype() == kUInt8);
  CHECK(values(clamp(vec({0, 5}, kUInt8), -1, 2)) == V{2, 2});
  CHECK(clamp(vec({0, 5}, kBool), 0, 2).dtype() == kLong);
  // Float self is never promoted by the bounds.
  CHECK(clamp(vec({1}, kHalf), 0.5, 2.0).dtype() == kHalf);
  // In place keeps the dtype, bumps the version.
  Tensor t = vec({-3, 0, 3}, kInt);
  t.clamp_(-1, 1);
  CHECK(values(t) == V{-1, 0, 1});
  CHECK(t._version() == 1);
  t.clamp_min_(0).clamp_max_(0);
  CHECK(values(t) == V{0, 0, 0});
  CHECK(t._version() == 3);
  Tensor f = vec({-3, 3});
  f.clip_(-1.5, 1.5);
  CHECK(values(f) == V{-1.5, 1.5});
  // out=.
  Tensor out = empty({0}, dtype(kFloat));
  clamp_out(out, vec({-3, 3}), 0, 1);
  CHECK(values(out) == V{0, 1});
  CHECK(out._version() == 1);
}

TEST_CASE("binary: clamp with tensor bounds broadcasts and promotes", "[ops][binary]") {
  const Tensor x = make({2, 3}, {-5, 0, 5, 10, 15, 20});
  const Tensor lo = vec({0, 1, 2}), hi = make({2, 1}, {4, 12});
  CHECK(values(clamp(x, lo, hi)) == V{0, 1, 4, 10, 12, 12});
  CHECK(values(x.clamp(lo)) == V{0, 1, 5, 10, 15, 20});
  CHECK(values(x.clamp(std::nullopt, hi)) == V{-5, 0, 4, 10, 12, 12});
  CHECK(values(clamp_min(x, lo)) == values(maximum(x, lo)));
  CHECK(values(x.clamp_max(hi)) == values(minimum(x, hi)));
  CHECK(values(clip(x, lo, hi)) == V{0, 1, 4, 10, 12, 12});
  // Promotion: int self with float bounds gives float.
  const Tensor p = clamp(vec({0, 5, 10}, kInt), vec({2.5}), vec({7.5}));
  CHECK(p.dtype() == kFloat);
  CHECK(values(p) == V{2.5, 5, 7.5});
  // NaN in a bound gives NaN; NaN in self stays NaN.
  const V n = values(clamp(vec({1, kNaN, 3}), vec({kNaN, 0, 0}), vec({2, 2, kNaN})));
  for (double v : n) CHECK(std::isnan(v));
  // lo > hi gives hi.
  CHECK(values(clamp(vec({5}), vec({3}), vec({1}))) == V{1});
  // In place: the bounds broadcast to self, and the result must fit self's dtype.
  Tensor t = make({2, 3}, {-5, 0, 5, 10, 15, 20});
  t.clamp_(lo, hi);
  CHECK(values(t) == V{0, 1, 4, 10, 12, 12});
  CHECK(t._version() == 1);
  Tensor u = vec({1, 2, 3}, kInt);
  CHECK_THROWS_WITH(u.clamp_(vec({1.5}), vec({2.5})),
                    Catch::Contains("result type Float can't be cast to the desired output type "
                                    "Int"));
  // Single-bound clamp on bool is maximum/minimum, which bool supports.
  CHECK(values(clamp(vec({0, 1}, kBool), vec({1, 0}, kBool))) == V{1, 1});
}

TEST_CASE("binary: clamp errors", "[ops][binary]") {
  const Tensor x = vec({1, 2});
  CHECK_THROWS_WITH(
      clamp(x, std::optional<Scalar>(), std::optional<Scalar>()),
      Catch::Contains("torch.clamp: At least one of 'min' or 'max' must not be None"));
  CHECK_THROWS_WITH(
      clamp(x, std::optional<Tensor>(), std::optional<Tensor>()),
      Catch::Contains("torch.clamp: At least one of 'min' or 'max' must not be None"));
  CHECK_THROWS_WITH(x.clamp_(std::optional<Scalar>(), std::optional<Scalar>()),
                    Catch::Contains("At least one of 'min' or 'max'"));
  // In place refuses a promotion of self.
  Tensor i = vec({1, 2}, kInt);
  // (self's dtype printed as its TypeMeta, as PyTorch does here)
  CHECK_THROWS_WITH(
      i.clamp_(0.5, 1.5),
      Catch::Contains("result type Float can't be cast to the desired output type int"));
  CHECK_THROWS_WITH(vec({1}, kLong).clamp_max_(0.5),
                    Catch::Contains("can't be cast to the desired output type long int"));
  CHECK_THROWS_WITH(i.clamp_min_(0.5), Catch::Contains("result type Float can't be cast"));
  CHECK(i._version() == 0);
  // Bool with bool bounds has no kernel.
  CHECK_THROWS_WITH(clamp(vec({1}, kBool), true, true),
                    Catch::Contains("\"clamp_scalar_cpu\" not implemented for 'Bool'"));
  CHECK_THROWS_WITH(clamp_min(vec({1}, kBool), false),
                    Catch::Contains("\"clamp_min_cpu\" not implemented for 'Bool'"));
  CHECK_THROWS_WITH(clamp_max(vec({1}, kBool), false),
                    Catch::Contains("\"clamp_max_scalar_cpu\" not implemented for 'Bool'"));
  CHECK_THROWS_WITH(clamp(vec({1}, kBool), vec({0}, kBool), vec({1}, kBool)),
                    Catch::Contains("\"clamp_cpu\" not implemented for 'Bool'"));
  // A bound the dtype cannot hold.
  CHECK_THROWS_WITH(clamp(vec({1}, kUInt8), 0, 300),
                    Catch::Contains("value cannot be converted to type uint8_t without overflow"));
  // Shapes that do not broadcast.
  CHECK_THROWS_WITH(
      clamp(vec({1, 2}), vec({0, 0, 0})),
      Catch::Contains("The size of tensor a (2) must match the size of tensor b (3)"));
}

// ==== type promotion ===========================================================================

TEST_CASE("binary: the promotion table follows PyTorch's result_type", "[ops][binary]") {
  auto t = [](DType dt) { return vec({1, 0}, dt); };
  auto zero_d = [](double v, DType dt) { return make({}, {v}, dt); };
  CHECK((t(kInt) + 2.5).dtype() == kFloat);
  CHECK(values(t(kInt) + 2.5) == V{3.5, 2.5});
  CHECK((t(kUInt8) + t(kInt8)).dtype() == kShort);
  CHECK((t(kHalf) + t(kFloat)).dtype() == kFloat);
  CHECK((t(kHalf) + t(kBFloat16)).dtype() == kFloat);
  CHECK((t(kHalf) + t(kLong)).dtype() == kHalf);
  CHECK((t(kBool) + t(kBool)).dtype() == kBool);
  CHECK((t(kBool) + 1).dtype() == kLong);
  CHECK((t(kBool) + 1.5).dtype() == kFloat);
  CHECK((t(kBool) + true).dtype() == kBool);
  CHECK((t(kInt) + true).dtype() == kInt);
  CHECK((t(kUInt8) + 300).dtype() == kUInt8);
  CHECK(values(t(kUInt8) + 300) == V{45, 44});  // 300 converts to uint8 as 44
  CHECK((t(kHalf) + 2.5).dtype() == kHalf);
  CHECK((t(kInt) * 2).dtype() == kInt);
  // A 0-d tensor promotes only across kinds: int32 + 0-d int64 stays int32, float32 + 0-d
  // float64 stays float32, but int32 + 0-d float64 is float64 (a wrapped 2.5 would be float32).
  CHECK((t(kInt) + zero_d(5, kLong)).dtype() == kInt);
  CHECK((zero_d(5, kLong) + t(kInt)).dtype() == kInt);
  CHECK((t(kFloat) + zero_d(5, kDouble)).dtype() == kFloat);
  CHECK((t(kInt) + zero_d(1.5, kDouble)).dtype() == kDouble);
  CHECK((t(kInt) + zero_d(1.5, kFloat)).dtype() == kFloat);
  CHECK((zero_d(1, kLong) + zero_d(1, kInt)).dtype() == kLong);
  CHECK((zero_d(1, kInt) + 2.5).dtype() == kFloat);
  CHECK((t(kBool) + zero_d(1, kUInt8)).dtype() == kUInt8);
  // Division and atan2 of integers are float32; floor/trunc division keeps integers.
  CHECK((t(kInt) / t(kInt)).dtype() == kFloat);
  CHECK((t(kLong) / 2).dtype() == kFloat);
  CHECK(div(t(kShort), vec({2, 2}, kShort), "floor").dtype() == kShort);
  CHECK(div(t(kBool), t(kBool)).dtype() == kFloat);
  CHECK((t(kInt) / zero_d(2, kDouble)).dtype() == kDouble);
  CHECK(atan2(t(kLong), t(kInt)).dtype() == kFloat);
  // Numbers on the left promote as Python numbers do.
  CHECK((2.5 - t(kInt)).dtype() == kFloat);
  CHECK(values(2.5 - t(kInt)) == V{1.5, 2.5});
  CHECK((1 / vec({2, 4}, kInt)).dtype() == kFloat);
  CHECK(values(1 / vec({2, 4}, kInt)) == V{0.5, 0.25});
  CHECK(values(10 - vec({1, 2}, kInt)) == V{9, 8});
  CHECK(values(3 * vec({1, 2}, kInt)) == V{3, 6});
  CHECK(values(3 + vec({1, 2}, kInt)) == V{4, 3 + 2});
  CHECK(rsub(vec({1, 2}, kInt), 10, 2).dtype() == kInt);
  CHECK(values(rsub(vec({1, 2}, kInt), 10, 2)) == V{8, 6});
  CHECK(values(rsub(vec({1, 2}), vec({5, 5}))) == V{4, 3});
  CHECK(result_type(t(kInt), Scalar(2.5)) == kFloat);
}

TEST_CASE("binary: Half and BFloat16 compute in float and round once", "[ops][binary]") {
  // Every sum and product of these halves is computed exactly in float, so a single rounding
  // gives the correctly rounded result.
  const V a = {1.0009765625, 2049, 0.1, 65504, -3.5, 1e-4};
  const V b = {1.0009765625, 1, 0.2, 32, 1024.75, 3e-5};
  for (DType dt : {kFloat16, kBFloat16}) {
    const Tensor ta = vec(a, dt), tb = vec(b, dt);
    const V va = values(ta), vb = values(tb);
    V sum, prod, quot;
    for (std::size_t i = 0; i < a.size(); ++i) {
      sum.push_back(stored(double(float(va[i]) + float(vb[i])), dt));
      prod.push_back(stored(double(float(va[i]) * float(vb[i])), dt));
      quot.push_back(stored(double(float(va[i]) / float(vb[i])), dt));
    }
    INFO(dt);
    CHECK(values(ta + tb) == sum);
    CHECK(values(ta * tb) == prod);
    CHECK(values(ta / tb) == quot);
    // A number is first converted to the tensor's dtype, as PyTorch 1.13 does (half(3) * 0.1
    // is 3 * half(0.1) rounded: 0.2998046875, not the 0.30004883 of 3 * 0.1f).
    const double tenth = stored(0.1, dt);
    V by_tenth, over_tenth;
    for (double x : va) {
      by_tenth.push_back(stored(double(float(x) * float(tenth)), dt));
      over_tenth.push_back(stored(double(float(x) / float(tenth)), dt));
    }
    CHECK(values(ta * 0.1) == by_tenth);
    CHECK(values(ta / 0.1) == over_tenth);
    CHECK(values(ta.mul(make({}, {0.1}, kDouble))) == by_tenth);
  }
  // Values printed by PyTorch 1.13 for half([3, 7]) * 0.1 and half(0.7) / 0.1.
  CHECK(values(vec({3, 7}, kHalf) * 0.1) == V{0.2998046875, 0.69970703125});
  CHECK(values(vec({0.7}, kHalf) / 0.1) == V{7.00390625});
}

// ==== broadcasting and layouts =================================================================

TEST_CASE("binary: broadcasting follows PyTorch's rules and messages", "[ops][binary]") {
  const Tensor a = make({2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(values(a + vec({10, 20, 30})) == V{11, 22, 33, 14, 25, 36});
  CHECK(values(a * make({2, 1}, {2, 3})) == V{2, 4, 6, 12, 15, 18});
  const Tensor outer = make({2, 1}, {1, 2}) + make({1, 3}, {10, 20, 30});
  CHECK(outer.sizes() == IntArrayRef({2, 3}));
  CHECK(values(outer) == V{11, 21, 31, 12, 22, 32});
  const Tensor z = a - make({}, {1});
  CHECK(z.sizes() == IntArrayRef({2, 3}));
  CHECK(values(z) == V{0, 1, 2, 3, 4, 5});
  const Tensor s = make({}, {2}) * make({}, {3});
  CHECK(s.dim() == 0);
  CHECK(values(s) == V{6});
  const Tensor e = empty({0, 3}) + vec({1, 2, 3});
  CHECK(e.sizes() == IntArrayRef({0, 3}));
  CHECK(make({1, 4, 1}, {1, 2, 3, 4}).add(make({3, 1, 2}, {0, 0, 0, 0, 0, 0})).sizes() ==
        IntArrayRef({3, 4, 2}));
  CHECK_THROWS_WITH(a + vec({1, 2}),
                    Catch::Contains("The size of tensor a (3) must match the size of tensor b (2) "
                                    "at non-singleton dimension 1"));
  CHECK_THROWS_WITH(make({2, 3}, V(6, 0)) * make({3, 3}, V(9, 0)),
                    Catch::Contains("must match the size of tensor b (3) at non-singleton "
                                    "dimension 0"));
  CHECK_THROWS_AS(div(a, vec({1, 2, 3, 4})), Error);
}

TEST_CASE("binary: strided, transposed and expanded inputs", "[ops][binary]") {
  const Tensor base = make({3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12});
  const Tensor tr = base.t();  // [4, 3], non-contiguous
  REQUIRE_FALSE(tr.is_contiguous());
  const Tensor other = make({4, 3}, {1, 1, 1, 2, 2, 2, 3, 3, 3, 4, 4, 4});
  const V vt = values(tr), vo = values(other);
  V want;
  for (std::size_t i = 0; i < vt.size(); ++i) want.push_back(vt[i] * vo[i]);
  CHECK(values(tr * other) == want);
  CHECK(values(other * tr) == want);
  // Both transposed: the result keeps the transposed layout, as PyTorch's.
  const Tensor tt = tr + tr;
  CHECK(tt.strides() == tr.strides());
  CHECK(values(tt) == values(tr * 2));
  // Stepped slices.
  const Tensor stepped = vec({0, 1, 2, 3, 4, 5, 6, 7}).slice(0, 0, 8, 2);
  CHECK(values(stepped - vec({1, 1, 1, 1})) == V{-1, 1, 3, 5});
  CHECK(values(stepped % 4) == V{0, 2, 0, 2});
  // An expanded input (stride 0) on either side.
  const Tensor ex = vec({1, 2, 3}).expand({2, 3});
  CHECK(values(ex + base.slice(0, 0, 2).slice(1, 0, 3)) == V{2, 4, 6, 6, 8, 10});
  CHECK(values(vec({10}).expand({4}) / vec({1, 2, 4, 5})) == V{10, 5, 2.5, 2});
  // Mixed dtypes with strides.
  const Tensor mixed = tr.to(kInt) + other.to(kDouble);
  CHECK(mixed.dtype() == kDouble);
  V want2;
  for (std::size_t i = 0; i < vt.size(); ++i) want2.push_back(vt[i] + vo[i]);
  CHECK(values(mixed) == want2);
  // A scalar broadcast into a strided tensor.
  CHECK(values(tr.mul(2)) == V{2, 10, 18, 4, 12, 20, 6, 14, 22, 8, 16, 24});
  CHECK(values(tr.add(vec({100, 200, 300}), 2)) ==
        V{201, 405, 609, 202, 406, 610, 203, 407, 611, 204, 408, 612});
}

TEST_CASE("binary: large tensors split across threads give the same values", "[ops][binary]") {
  const int64_t n = 200003;  // above the grain size, not a multiple of anything
  Tensor a = empty({n}), b = empty({n});
  for (int64_t i = 0; i < n; ++i) {
    a.data_ptr<float>()[i] = float(i % 1000) * 0.5f;
    b.data_ptr<float>()[i] = float(i % 7) + 1.0f;
  }
  const Tensor s = a + b, q = a / b, c = a.t() * 3;
  bool ok = true;
  for (int64_t i = 0; i < n; ++i) {
    const float x = a.data_ptr<float>()[i], y = b.data_ptr<float>()[i];
    ok = ok && s.data_ptr<float>()[i] == x + y && q.data_ptr<float>()[i] == x / y &&
         c.data_ptr<float>()[i] == x * 3.0f;
  }
  CHECK(ok);
  // Strided and large: a transposed 2-d add, checked through the strides.
  const Tensor m = a.slice(0, 0, 200000).view({400, 500});
  const Tensor r = m.t() + m.t();
  REQUIRE(r.sizes() == IntArrayRef({500, 400}));
  const float* pr = r.data_ptr<float>();
  bool ok2 = true;
  for (int64_t i = 0; i < 500; ++i) {
    for (int64_t j = 0; j < 400; ++j) {
      ok2 = ok2 && pr[i * r.stride(0) + j * r.stride(1)] == 2.0f * a.data_ptr<float>()[j * 500 + i];
    }
  }
  CHECK(ok2);
}

// ==== out= =====================================================================================

TEST_CASE("binary: out= resizes, casts, and refuses unsafe casts", "[ops][binary]") {
  const Tensor a = make({2, 3}, {1, 2, 3, 4, 5, 6}), b = vec({1, 1, 1});
  // Wrong shape: resized to the broadcast shape.
  Tensor out = empty({5});
  const Tensor& r = add_out(out, a, b);
  CHECK(&r == &out);
  CHECK(out.sizes() == IntArrayRef({2, 3}));
  CHECK(values(out) == V{2, 3, 4, 5, 6, 7});
  CHECK(out._version() == 1);
  // Right shape, non-contiguous: written through its strides, not restrided.
  Tensor tout = empty({3, 2}).t();
  mul_out(tout, a, b);
  CHECK(tout.strides() == IntArrayRef({1, 2}));
  CHECK(values(tout) == V{1, 2, 3, 4, 5, 6});
  // Another dtype: the result is converted (float32 computed, stored as float64).
  Tensor dout = empty({2, 3}, dtype(kDouble));
  div_out(dout, a, vec({3, 3, 3}));
  CHECK(dout.dtype() == kDouble);
  check_values(dout,
               {double(1.0f / 3), double(2.0f / 3), 1, double(4.0f / 3), double(5.0f / 3), 2});
  Tensor iout = empty({2}, dtype(kLong));
  sub_out(iout, vec({5, 7}, kInt), vec({1, 2}, kShort));
  CHECK(values(iout) == V{4, 5});
  // Integer division into float out=, and floor division into an int out=.
  Tensor fout = empty({2}, dtype(kFloat));
  div_out(fout, vec({1, 3}, kInt), vec({2, 2}, kInt), "floor");
  CHECK(values(fout) == V{0, 1});
  // Unsafe casts are refused: float into int, anything but bool into bool.
  Tensor bad = empty({2}, dtype(kInt));
  CHECK_THROWS_WITH(
      add_out(bad, vec({1, 2}), vec({1, 2})),
      Catch::Contains("result type Float can't be cast to the desired output type Int"));
  CHECK_THROWS_WITH(
      div_out(bad, vec({1, 2}, kInt), vec({1, 2}, kInt)),
      Catch::Contains("result type Float can't be cast to the desired output type Int"));
  Tensor bout = empty({2}, dtype(kBool));
  CHECK_THROWS_WITH(
      mul_out(bout, vec({1, 2}, kInt), vec({1, 2}, kInt)),
      Catch::Contains("result type Int can't be cast to the desired output type Bool"));
  CHECK(bad._version() == 0);
  // Every op's out= variant.
  Tensor o = empty({2});
  CHECK(values(remainder_out(o, vec({5, -5}), 3)) == V{2, 1});
  CHECK(values(fmod_out(o, vec({5, -5}), vec({3, 3}))) == V{2, -2});
  CHECK(values(pow_out(o, vec({2, 3}), 2)) == V{4, 9});
  CHECK(values(pow_out(o, vec({2, 3}), vec({3, 2}))) == V{8, 9});
  CHECK(values(pow_out(o, 2, vec({3, 2}))) == V{8, 4});
  CHECK(values(pow_out(o, 1, vec({3, 2}))) == V{1, 1});
  CHECK(values(atan2_out(o, vec({0, 0}), vec({1, 1}))) == V{0, 0});
  CHECK(values(maximum_out(o, vec({1, 5}), vec({3, 3}))) == V{3, 5});
  CHECK(values(minimum_out(o, vec({1, 5}), vec({3, 3}))) == V{1, 3});
  CHECK(values(lerp_out(o, vec({0, 0}), vec({4, 8}), 0.5)) == V{2, 4});
  CHECK(values(lerp_out(o, vec({0, 0}), vec({4, 8}), vec({0.25, 0.25}))) == V{1, 2});
  CHECK(values(add_out(o, vec({1, 2}), 1.5, 2)) == V{4, 5});
  CHECK(values(sub_out(o, vec({1, 2}), 1)) == V{0, 1});
  CHECK(values(mul_out(o, vec({1, 2}), 3)) == V{3, 6});
  CHECK(values(div_out(o, vec({1, 2}), 4)) == V{0.25, 0.5});
  CHECK(values(clamp_min_out(o, vec({1, 2}), 1.5)) == V{1.5, 2});
  CHECK(values(clamp_max_out(o, vec({1, 2}), 1.5)) == V{1, 1.5});
  CHECK(values(clamp_min_out(o, vec({1, 2}), vec({2, 0}))) == V{2, 2});
  CHECK(values(clamp_max_out(o, vec({1, 2}), vec({2, 0}))) == V{1, 0});
  CHECK(values(clamp_out(o, vec({1, 2}), vec({1.5}), vec({1.75}))) == V{1.5, 1.75});
  CHECK(o._version() == 20);
  // pow(Scalar, Tensor) into out= of a given dtype, resized to the exponent's shape.
  Tensor po = empty({0}, dtype(kDouble));
  pow_out(po, 1, make({2, 2}, {1, 2, 3, 4}, kInt));
  CHECK(po.sizes() == IntArrayRef({2, 2}));
  CHECK(values(po) == V{1, 1, 1, 1});
  // Scalar-exponent pow needs an out= of the computation's dtype (a unary op in PyTorch).
  Tensor wrong = empty({2}, dtype(kDouble));
  CHECK_THROWS_AS(pow_out(wrong, vec({1, 2}), 2), Error);
}

// ==== in place =================================================================================

TEST_CASE("binary: in-place ops write self, bump its version, never broadcast it",
          "[ops][binary]") {
  Tensor a = make({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor& r = a.add_(vec({1, 1, 1}));
  CHECK(&r == &a);
  CHECK(values(a) == V{2, 3, 4, 5, 6, 7});
  CHECK(a._version() == 1);
  a.sub_(1).mul_(2).div_(2);
  CHECK(values(a) == V{1, 2, 3, 4, 5, 6});
  CHECK(a._version() == 4);
  a += make({2, 1}, {10, 20});
  a -= 1;
  a *= vec({1, 2, 3});
  a /= 2;
  CHECK(values(a) == V{5, 11, 18, 11.5, 24, 37.5});
  a %= 5;
  CHECK(values(a) == V{0, 1, 3, 1.5, 4, 2.5});
  CHECK(a._version() == 9);
  // A view written in place changes its base and shares the version counter.
  Tensor base = vec({1, 2, 3, 4});
  Tensor v = base.slice(0, 1, 3);
  v.add_(10);
  CHECK(values(base) == V{1, 12, 13, 4});
  CHECK(base._version() == 1);
  // Transposed self.
  Tensor m = make({2, 2}, {1, 2, 3, 4});
  m.t().add_(make({2, 2}, {10, 20, 30, 40}));
  CHECK(values(m) == V{11, 32, 23, 44});
  // self itself as the other operand (full overlap) is fine.
  Tensor s = vec({1, 2, 3});
  s.mul_(s);
  CHECK(values(s) == V{1, 4, 9});
  s.add_(s.view({3}));
  CHECK(values(s) == V{2, 8, 18});
  // The other operand's dtype may differ; the result is cast to self's dtype when safe.
  Tensor f = vec({1.5, 2.5});
  f.add_(vec({1, 2}, kInt));
  CHECK(values(f) == V{2.5, 4.5});
  Tensor d = vec({1, 2}, kDouble);
  d.mul_(vec({0.1, 0.1}));  // float32 other: computed in float64
  CHECK(values(d) == V{double(0.1f), 2 * double(0.1f)});
  Tensor i = vec({7, -7}, kInt);
  i.div_(2, "floor");
  CHECK(values(i) == V{3, -4});
  i.remainder_(5).pow_(2).fmod_(4);
  CHECK(values(i) == V{1, 1});
  Tensor h = vec({1, 2}, kHalf);
  h.add_(0.5);
  CHECK(h.dtype() == kHalf);
  CHECK(values(h) == V{1.5, 2.5});
  Tensor at = vec({1, -1});
  at.atan2_(vec({1, 1}));
  check_values(at, {std::atan2(1.0, 1.0), std::atan2(-1.0, 1.0)});
  Tensor pw = vec({2, 3});
  pw.pow_(vec({2, 2})).pow_(0.5);
  CHECK(values(pw) == V{2, 3});
  Tensor fd = vec({7, -7});
  fd.floor_divide_(2);
  CHECK(values(fd) == V{3, -4});
  fd.true_divide_(2).divide_(vec({0.5, 0.5}), "trunc");
  CHECK(values(fd) == V{3, -4});
  fd.multiply_(2).subtract_(vec({1, 1}), 2);
  CHECK(values(fd) == V{4, -10});
}

TEST_CASE("binary: result strides as PyTorch gives them", "[ops][binary]") {
  // A C++ number is a 0-d operand of PyTorch's iterator: the result follows the input's dimension
  // order, which differs from contiguous only for empty inputs and odd size-1 strides.
  const Tensor et = zeros({3, 0, 2}).permute({2, 1, 0});  // [2, 0, 3], strides [1, 2, 2]
  CHECK((et + 1).strides() == IntArrayRef({1, 2, 0}));
  CHECK((et * 2.5).strides() == IntArrayRef({1, 2, 0}));
  CHECK((et + et).strides() == IntArrayRef({3, 3, 1}));  // same shapes, "contiguous"
  CHECK((et + zeros({3})).strides() == IntArrayRef({1, 2, 0}));
  CHECK((zeros({2, 0, 3}) + 1).strides() == IntArrayRef({3, 3, 1}));
  const Tensor x = make({3}, {1, 2, 3}).as_strided({3, 1}, {1, 7});  // contiguous, odd stride
  const Tensor y = x + 1;
  CHECK(y.strides() == IntArrayRef({1, 3}));
  CHECK(values(y) == V{2, 3, 4});
  CHECK((x + x).strides() == IntArrayRef({1, 1}));
}

TEST_CASE("binary: in-place errors", "[ops][binary]") {
  Tensor a = vec({1, 2, 3});
  CHECK_THROWS_WITH(
      a.add_(make({2, 3}, V(6, 1))),
      Catch::Contains("output with shape [3] doesn't match the broadcast shape [2, 3]"));
  CHECK_THROWS_WITH(a.mul_(make({2, 1}, {1, 1})),
                    Catch::Contains("doesn't match the broadcast shape [2, 3]"));
  // Integer self cannot receive a float result.
  Tensor i = vec({1, 2}, kInt);
  CHECK_THROWS_WITH(
      i.add_(1.5),
      Catch::Contains("result type Float can't be cast to the desired output type Int"));
  CHECK_THROWS_WITH(
      i.div_(2), Catch::Contains("result type Float can't be cast to the desired output type Int"));
  CHECK_THROWS_WITH(i.mul_(vec({1, 2})), Catch::Contains("result type Float can't be cast"));
  CHECK_THROWS_WITH(i.atan2_(vec({1, 1}, kInt)),
                    Catch::Contains("result type Float can't be cast"));
  Tensor b = vec({1, 0}, kBool);
  CHECK_THROWS_WITH(b.add_(1), Catch::Contains("result type Long can't be cast to the desired "
                                               "output type Bool"));
  CHECK_THROWS_WITH(i.pow_(0.5), Catch::Contains("Found dtype"));
  CHECK(i._version() == 0);
  CHECK(b._version() == 0);
  // Partial overlap between self and the other operand.
  Tensor base = vec({1, 2, 3, 4, 5});
  CHECK_THROWS_WITH(base.slice(0, 0, 4).add_(base.slice(0, 1, 5)),
                    Catch::Contains("unsupported operation: some elements of the input tensor and "
                                    "the written-to tensor refer to a single memory location"));
  Tensor out = vec({1, 2, 3, 4});
  CHECK_THROWS_WITH(add_out(out.slice(0, 0, 3), out.slice(0, 1, 4), vec({1, 1, 1})),
                    Catch::Contains("refer to a single memory location"));
  // An output with internal overlap (expanded).
  Tensor ex = vec({1}).expand({3});
  CHECK_THROWS_WITH(
      ex.add_(vec({1, 2, 3})),
      Catch::Contains("unsupported operation: more than one element of the written-to "
                      "tensor refers to a single memory location"));
  CHECK(values(base) == V{1, 2, 3, 4, 5});
}

TEST_CASE("binary: an out= of the result's shape and dtype (the fast road) as the iterator's",
          "[ops][binary]") {
  const Tensor a = vec({1, 2, 3}), b = vec({10, 20, 30});
  Tensor out = empty({3});
  const void* storage = out.data_ptr();
  CHECK(&add_out(out, a, b, 2) == &out);
  CHECK(values(out) == V{21, 42, 63});
  CHECK(out.data_ptr() == storage);
  CHECK(out._version() == 1);
  CHECK(values(mul_out(out, a, 2)) == V{2, 4, 6});  // a number operand
  CHECK(out._version() == 2);
  // The output is an input exactly (an alias with the same first byte and layout): allowed.
  Tensor x = vec({1, 2, 3});
  add_out(x.view({3}), x, b);
  CHECK(values(x) == V{11, 22, 33});
  sub_out(x, a, x);
  CHECK(values(x) == V{-10, -20, -30});
  // The output overlaps the second input partly: refused, nothing written.
  Tensor base = vec({1, 2, 3, 4});
  CHECK_THROWS_WITH(add_out(base.slice(0, 1, 4), vec({1, 1, 1}), base.slice(0, 0, 3)),
                    Catch::Contains("refer to a single memory location"));
  CHECK(values(base) == V{1, 2, 3, 4});
  // A comparison into a bool out=.
  Tensor bo = empty({3}, dtype(kBool));
  CHECK(values(gt_out(bo, a, 1.5)) == V{0, 1, 1});
  CHECK(values(lt_out(bo, a, b)) == V{1, 1, 1});
  // Same first byte, another element size: PyTorch's partial overlap.
  Tensor f = vec({1, 2, 3, 4});
  CHECK_THROWS_WITH(gt_out(f.view(kBool).slice(0, 0, 4), f, 0.5),
                    Catch::Contains("refer to a single memory location"));
  // An empty out= of the right shape is still written (its version moves).
  Tensor e = empty({0});
  CHECK(add_out(e, empty({0}), empty({0})).numel() == 0);
  CHECK(e._version() == 1);
}

// ==== integers =================================================================================

TEST_CASE("binary: integer overflow wraps", "[ops][binary]") {
  const double i32max = std::numeric_limits<int32_t>::max(),
               i32min = std::numeric_limits<int32_t>::min();
  CHECK(values(vec({i32max}, kInt) + 1) == V{i32min});
  CHECK(values(vec({i32min}, kInt) - 1) == V{i32max});
  CHECK(values(vec({65536}, kInt) * vec({65536}, kInt)) == V{0});
  CHECK(values(vec({46341}, kInt) * 46341) == V{double(int32_t(uint32_t(46341u * 46341u)))});
  CHECK(values(vec({127}, kInt8) + vec({1}, kInt8)) == V{-128});
  CHECK(values(vec({255}, kUInt8) + vec({1}, kUInt8)) == V{0});
  CHECK(values(vec({0}, kUInt8) - vec({1}, kUInt8)) == V{255});
  CHECK(values(vec({-32768}, kShort) * vec({-1}, kShort)) == V{-32768});
  CHECK(values(vec({300}, kShort) * vec({300}, kShort)) == V{double(int16_t(90000))});
  // int64: computed in two's complement without undefined behaviour.
  Tensor big = empty({2}, dtype(kLong));
  big.data_ptr<int64_t>()[0] = std::numeric_limits<int64_t>::max();
  big.data_ptr<int64_t>()[1] = std::numeric_limits<int64_t>::min();
  const Tensor w = big + 1;
  CHECK(w.data_ptr<int64_t>()[0] == std::numeric_limits<int64_t>::min());
  CHECK(w.data_ptr<int64_t>()[1] == std::numeric_limits<int64_t>::min() + 1);
  const Tensor m = big * 3;
  CHECK(m.data_ptr<int64_t>()[0] == int64_t(uint64_t(std::numeric_limits<int64_t>::max()) * 3u));
  CHECK((big - big.mul(-1)).data_ptr<int64_t>()[1] == 0);
  CHECK(sub(big, big, 3).data_ptr<int64_t>()[0] ==
        int64_t(uint64_t(std::numeric_limits<int64_t>::max()) * uint64_t(-2)));
  // alpha scales in the integer type too.
  CHECK(values(add(vec({1}, kInt8), vec({100}, kInt8), 2)) == V{double(int8_t(201))});
}

TEST_CASE("binary: integer division by zero and INT_MIN / -1", "[ops][binary]") {
  for (DType dt : {kUInt8, kInt8, kInt16, kInt32, kInt64}) {
    INFO(dt);
    const Tensor a = vec({5, 6}, dt), z = vec({1, 0}, dt);
    CHECK_THROWS_WITH(div(a, z, "trunc"), Catch::Contains("ZeroDivisionError"));
    CHECK_THROWS_WITH(div(a, z, "floor"), Catch::Contains("ZeroDivisionError"));
    CHECK_THROWS_WITH(remainder(a, z), Catch::Contains("ZeroDivisionError"));
    CHECK_THROWS_WITH(fmod(a, 0), Catch::Contains("ZeroDivisionError"));
    CHECK_THROWS_WITH(a % 0, Catch::Contains("ZeroDivisionError"));
    CHECK_THROWS_WITH(floor_divide(a, 0), Catch::Contains("ZeroDivisionError"));
    // True division of integers is float division: inf, not an error.
    CHECK(values(div(a, z)) == V{5, kInf});
  }
  // INT_MIN / -1 wraps to INT_MIN for every signed width (PyTorch gives that for int8/int16;
  // for int32/int64 its hardware division traps), and INT_MIN % -1 is 0.
  auto check_min = [](DType dt, double lo) {
    INFO(dt);
    const Tensor a = vec({lo, lo, 7}, dt), b = vec({-1, -1, -1}, dt);
    CHECK(values(div(a, b, "trunc")) == V{lo, lo, -7});
    CHECK(values(div(a, b, "floor")) == V{lo, lo, -7});
    CHECK(values(remainder(a, b)) == V{0, 0, 0});
    CHECK(values(fmod(a, b)) == V{0, 0, 0});
    CHECK(values(div(a, -1, "floor")) == V{lo, lo, -7});
  };
  check_min(kInt8, -128);
  check_min(kInt16, -32768);
  check_min(kInt32, double(std::numeric_limits<int32_t>::min()));
  Tensor l = empty({1}, dtype(kLong));
  l.data_ptr<int64_t>()[0] = std::numeric_limits<int64_t>::min();
  CHECK(div(l, -1, "trunc").data_ptr<int64_t>()[0] == std::numeric_limits<int64_t>::min());
  CHECK(div(l, -1, "floor").data_ptr<int64_t>()[0] == std::numeric_limits<int64_t>::min());
  CHECK(remainder(l, -1).data_ptr<int64_t>()[0] == 0);
  CHECK(fmod(l, -1).data_ptr<int64_t>()[0] == 0);
  // uint8 floor division is truncation (no negative values).
  CHECK(values(div(vec({255, 7}, kUInt8), vec({2, 3}, kUInt8), "floor")) == V{127, 2});
}

// ==== errors ===================================================================================

TEST_CASE("binary: argument and dtype errors", "[ops][binary]") {
  const Tensor i = vec({1, 2}, kInt), f = vec({1, 2}), b = vec({1, 0}, kBool);
  // alpha
  CHECK_THROWS_WITH(add(i, i, 1.5),
                    Catch::Contains("For integral input tensors, argument alpha must not be a "
                                    "floating point number."));
  CHECK_THROWS_WITH(sub(i, 1, 0.5), Catch::Contains("argument alpha must not be a floating point"));
  CHECK_THROWS_WITH(add(f, f, true),
                    Catch::Contains("Boolean alpha only supported for Boolean results."));
  CHECK_THROWS_WITH(add(i, i, true), Catch::Contains("Boolean alpha only supported"));
  CHECK_THROWS_WITH(add(vec({1}, kInt8), vec({1}, kInt8), 1000),
                    Catch::Contains("value cannot be converted to type int8_t without overflow"));
  CHECK(values(add(f, f, 2)) == V{3, 6});  // an integer alpha with floats is fine
  // sub with bool
  CHECK_THROWS_WITH(b - b,
                    Catch::Contains("Subtraction, the `-` operator, with two bool tensors is "
                                    "not supported. Use the `^` or `logical_xor()` operator "
                                    "instead."));
  CHECK_THROWS_WITH(i - b,
                    Catch::Contains("Subtraction, the `-` operator, with a bool tensor is not "
                                    "supported. If you are trying to invert a mask, use the "
                                    "`~` or `logical_not()` operator instead."));
  CHECK_THROWS_WITH(b - 1, Catch::Contains("with a bool tensor is not supported"));
  CHECK_THROWS_WITH(f - true, Catch::Contains("with a bool tensor is not supported"));
  CHECK_THROWS_WITH(b.sub_(b), Catch::Contains("with two bool tensors"));
  CHECK_THROWS_WITH(rsub(b, 1), Catch::Contains("with a bool tensor"));
  CHECK_THROWS_WITH(1 - b, Catch::Contains("with a bool tensor"));
  // div rounding mode
  CHECK_THROWS_WITH(div(f, f, "x"),
                    Catch::Contains("div expected rounding_mode to be one of None, 'trunc', or "
                                    "'floor' but found 'x'"));
  CHECK_THROWS_WITH(f.div_(2, "round"), Catch::Contains("but found 'round'"));
  CHECK_THROWS_WITH(div(b, b, "trunc"),
                    Catch::Contains("\"div_trunc_cpu\" not implemented for 'Bool'"));
  CHECK_THROWS_WITH(div(b, b, "floor"),
                    Catch::Contains("\"div_floor_cpu\" not implemented for 'Bool'"));
  // bool has no remainder, fmod, pow
  CHECK_THROWS_WITH(remainder(b, b),
                    Catch::Contains("\"remainder_cpu\" not implemented for 'Bool'"));
  CHECK_THROWS_WITH(fmod(b, true), Catch::Contains("\"fmod_cpu\" not implemented for 'Bool'"));
  CHECK_THROWS_WITH(pow(b, b), Catch::Contains("\"pow\" not implemented for 'Bool'"));
  CHECK_THROWS_WITH(pow(b, true), Catch::Contains("\"pow\" not implemented for 'Bool'"));
  // integer to negative integer power (a scalar exponent)
  CHECK_THROWS_WITH(pow(i, -1),
                    Catch::Contains("Integers to negative integer powers are not allowed."));
  CHECK_THROWS_WITH(b.pow(-2),
                    Catch::Contains("Integers to negative integer powers are not allowed."));
  CHECK_THROWS_WITH(i.pow_(-3), Catch::Contains("Integers to negative integer powers"));
  CHECK(values(pow(i, -1.0)) == V{1, 0.5});  // a float exponent promotes instead
  CHECK_THROWS_WITH(pow(vec({2}, kInt8), 300),
                    Catch::Contains("value cannot be converted to type int8_t without overflow"));
  // bitwise on floats
  CHECK_THROWS_WITH(bitwise_and(f, f),
                    Catch::Contains("\"bitwise_and_cpu\" not implemented for 'Float'"));
  CHECK_THROWS_WITH(f | i, Catch::Contains("\"bitwise_or_cpu\" not implemented for 'Float'"));
  CHECK_THROWS_WITH(i ^ 1.5, Catch::Contains("\"bitwise_xor_cpu\" not implemented for 'Float'"));
  CHECK_THROWS_WITH(~f, Catch::Contains("\"bitwise_not_cpu\" not implemented for 'Float'"));
  CHECK_THROWS_WITH(vec({1}, kHalf).bitwise_not_(),
                    Catch::Contains("\"bitwise_not_cpu\" not implemented for 'Half'"));
  CHECK_THROWS_WITH(bitwise_and(1.5, i), Catch::Contains("not implemented for 'Float'"));
  // lerp
  CHECK_THROWS_WITH(lerp(i, i, 0.5),
                    Catch::Contains("\"lerp_kernel_scalar\" not implemented for 'Int'"));
  CHECK_THROWS_WITH(lerp(i, i, i),
                    Catch::Contains("\"lerp_kernel_tensor\" not implemented for 'Int'"));
  CHECK_THROWS_WITH(lerp(f, vec({1, 2}, kDouble), 0.5),
                    Catch::Contains("expected dtype float for `end` but got dtype double"));
  CHECK_THROWS_WITH(lerp(f, f, vec({0.5}, kDouble)),
                    Catch::Contains("expected dtype float for `weight` but got dtype double"));
  CHECK_THROWS_WITH(
      lerp(f, vec({1, 2}, kHalf), f),
      Catch::Contains("expected dtype float for `end` but got dtype tensorplay::Half"));
  Tensor small = vec({1});
  CHECK_THROWS_WITH(small.lerp_(vec({1, 2}), 0.5),
                    Catch::Contains("output with shape [1] doesn't match the broadcast shape [2]"));
  // undefined operands
  CHECK_THROWS_AS(add(Tensor(), f), Error);
  CHECK_THROWS_AS(f * Tensor(), Error);
}

// ==== operators and aliases ====================================================================

TEST_CASE("binary: operators, aliases and methods agree with the functions", "[ops][binary]") {
  const Tensor a = vec({6, -7, 8}), b = vec({4, 2, -3});
  CHECK(values(a + b) == values(add(a, b)));
  CHECK(values(a - b) == values(sub(a, b)));
  CHECK(values(a * b) == values(mul(a, b)));
  CHECK(values(a / b) == values(div(a, b)));
  CHECK(values(a % b) == values(remainder(a, b)));
  CHECK(values(a + 1) == V{7, -6, 9});
  CHECK(values(1 + a) == V{7, -6, 9});
  CHECK(values(a - 1) == V{5, -8, 7});
  CHECK(values(1 - a) == V{-5, 8, -7});
  CHECK(values(a * 2) == V{12, -14, 16});
  CHECK(values(2 * a) == V{12, -14, 16});
  CHECK(values(a / 2) == V{3, -3.5, 4});
  CHECK(values(24 / a) == V{4, 24.0f / -7.0f, 3});
  CHECK(values(a % 5) == V{1, 3, 3});
  CHECK(values(-7.5 % vec({2})) == V{0.5});
  CHECK(values(a.add(b, 2)) == V{14, -3, 2});
  CHECK(values(a.add(1, 3)) == V{9, -4, 11});
  CHECK(values(a.sub(1, 3)) == V{3, -10, 5});
  CHECK(values(a.subtract(b)) == values(a - b));
  CHECK(values(subtract(a, 1)) == values(a - 1));
  CHECK(values(a.multiply(b)) == values(a * b));
  CHECK(values(multiply(a, 2)) == values(a * 2));
  CHECK(values(a.divide(b, "floor")) == values(div(a, b, "floor")));
  CHECK(values(divide(a, 2)) == values(a / 2));
  CHECK(values(divide(a, b)) == values(a / b));
  CHECK(values(true_divide(a, b)) == values(a / b));
  CHECK(values(a.true_divide(4)) == values(a / 4));
  CHECK(values(a.floor_divide(b)) == values(div(a, b, "floor")));
  CHECK(values(a.remainder(3)) == values(a % 3));
  CHECK(values(a.fmod(b)) == values(fmod(a, b)));
  CHECK(values(a.pow(b)) == values(pow(a, b)));
  CHECK(values(a.atan2(b)) == values(atan2(a, b)));
  CHECK(values(a.maximum(b)) == V{6, 2, 8});
  CHECK(values(a.clip(vec({0}), vec({7}))) == V{6, 0, 7});
  CHECK(values(a.clamp_min(vec({7}))) == V{7, 7, 8});
  CHECK(values(a.clamp_max(vec({7}))) == V{6, -7, 7});
  Tensor c = a.clone();
  c.clamp_min_(vec({0})).clamp_max_(vec({7}));
  CHECK(values(c) == V{6, 0, 7});
  c.clip_(vec({1}), vec({2}));
  CHECK(values(c) == V{2, 1, 2});
  c.arctan2_(vec({1, 1, 1}));
  CHECK(c._version() == 4);
  // Compound assignment with a scalar and with bitwise ops on ints.
  Tensor i = vec({6, 5}, kLong);
  i += 1;
  i -= vec({1, 1}, kLong);
  i *= 3;
  i %= vec({4, 4}, kLong);
  i &= 3;
  i |= vec({4, 0}, kLong);
  i ^= 1;
  CHECK(values(i) == V{7, 2});
  CHECK(i._version() == 7);
  // Python-style floor division and modulo with numbers on the left.
  CHECK(values(remainder(-7, vec({2}))) == V{1});
}

}  // namespace ops_binary_test
