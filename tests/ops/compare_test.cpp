// Comparison and logic (ops/compare.hpp): comparisons against double references for every
// dtype, promotion before comparing, out= and in-place dtypes, NaN, logical ops, the NaN and
// infinity tests, where, masked_fill, isclose/allclose/equal, and every error message.
#include <tensorplay/ops/binary.hpp>
#include <tensorplay/ops/compare.hpp>
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

namespace ops_compare_test {

using namespace tensorplay;

namespace {

using V = std::vector<double>;
using S = std::vector<int64_t>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

constexpr std::array<DType, 10> kAllDTypes = {kBool,  kUInt8,   kInt8,     kInt16,   kInt32,
                                              kInt64, kFloat16, kBFloat16, kFloat32, kFloat64};

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

V sample_a(DType dt) {
  if (dt == kBool) return {0, 1, 1, 0, 1, 0};
  if (dt == kUInt8) return {0, 1, 7, 100, 200, 255};
  if (is_integral(dt, false)) return {-7, -1, 0, 3, 100, 127};
  return {-7.5, -1.25, 0, 3.5, kNaN, kInf};
}
V sample_b(DType dt) {
  if (dt == kBool) return {0, 0, 1, 1, 1, 1};
  if (dt == kUInt8) return {3, 1, 7, 9, 100, 255};
  if (is_integral(dt, false)) return {2, -1, 5, 3, 7, 127};
  return {2.5, -1.25, 0.75, -4.5, kNaN, kInf};
}

using Ref = std::function<bool(double, double)>;

}  // namespace

TEST_CASE("compare: eq ne lt le gt ge match references for every dtype", "[ops][compare]") {
  const std::array<std::pair<const char*, Ref>, 6> refs = {{
      {"eq", [](double x, double y) { return x == y; }},
      {"ne", [](double x, double y) { return x != y; }},
      {"lt", [](double x, double y) { return x < y; }},
      {"le", [](double x, double y) { return x <= y; }},
      {"gt", [](double x, double y) { return x > y; }},
      {"ge", [](double x, double y) { return x >= y; }},
  }};
  for (DType dt : kAllDTypes) {
    const Tensor a = vec(sample_a(dt), dt), b = vec(sample_b(dt), dt);
    const V va = values(a), vb = values(b);
    const std::array<Tensor, 6> got = {eq(a, b), a.ne(b), a<b, le(a, b), a> b, a.ge(b)};
    for (int k = 0; k < 6; ++k) {
      INFO(dt << " " << refs[k].first);
      REQUIRE(got[k].dtype() == kBool);
      V want;
      for (std::size_t i = 0; i < va.size(); ++i) want.push_back(refs[k].second(va[i], vb[i]));
      CHECK(values(got[k]) == want);
    }
  }
}

TEST_CASE("compare: operands are promoted before comparing", "[ops][compare]") {
  // int tensor < 2.5 compares in float, not against a truncated 2.
  CHECK(values(vec({1, 2, 3}, kInt) < 2.5) == V{1, 1, 0});
  CHECK(values(vec({1, 2, 3}, kInt) == 2.0) == V{0, 1, 0});
  CHECK(values(vec({2}, kInt) == 2.5) == V{0});
  // uint8 with int8: both become int16, so 200 > -1.
  CHECK(values(vec({200}, kUInt8) > vec({-1}, kInt8)) == V{1});
  // Half against float32: compared in float32.
  CHECK(values(vec({0.1}, kHalf) == vec({0.1})) == V{0});
  CHECK(values(vec({0.5}, kHalf) == vec({0.5})) == V{1});
  // A number the dtype can hold in its wrapped form: -1 is 255 for uint8 (c10's rule).
  CHECK(values(vec({255, 0}, kUInt8) == -1) == V{1, 0});
  CHECK(values(vec({1, 0}, kBool) == 1) == V{1, 0});
  CHECK(values(vec({1, 0}, kBool) == true) == V{1, 0});
  CHECK(values(vec({1, 0}, kBool) < 0.5) == V{0, 1});
  // Broadcasting and strides.
  const Tensor m = make({2, 3}, {1, 2, 3, 4, 5, 6});
  CHECK(values(m > vec({2, 2, 7})) == V{0, 0, 0, 1, 1, 0});
  CHECK(values(m.t() >= make({3, 1}, {2, 5, 3})) == V{0, 1, 0, 1, 1, 1});
  CHECK((m.t() == m.t()).strides() == m.t().strides());
  CHECK(values(make({}, {3}) <= m) == V{0, 0, 1, 1, 1, 1});
  CHECK_THROWS_WITH(
      m == vec({1, 2}),
      Catch::Contains("The size of tensor a (3) must match the size of tensor b (2)"));
  // Large enough to take several threads.
  const Tensor big = arange(100000, dtype(kFloat));
  const Tensor gt = big > 49999.5;
  int64_t count = 0;
  for (int64_t i = 0; i < gt.numel(); ++i) count += gt.data_ptr<bool>()[i];
  CHECK(count == 50000);
}

TEST_CASE("compare: NaN compares unequal to everything", "[ops][compare]") {
  const Tensor n = vec({kNaN, kNaN, 1}), o = vec({kNaN, 1, kNaN});
  CHECK(values(n == o) == V{0, 0, 0});
  CHECK(values(n != o) == V{1, 1, 1});
  CHECK(values(n < o) == V{0, 0, 0});
  CHECK(values(n >= o) == V{0, 0, 0});
  CHECK(values(n == n) == V{0, 0, 1});
  CHECK(values(vec({kNaN}, kHalf) != vec({kNaN}, kHalf)) == V{1});
}

TEST_CASE("compare: number overloads, operators and aliases", "[ops][compare]") {
  const Tensor a = vec({1, 2, 3});
  CHECK(values(a == 2) == V{0, 1, 0});
  CHECK(values(2 == a) == V{0, 1, 0});
  CHECK(values(a != 2) == V{1, 0, 1});
  CHECK(values(2 != a) == V{1, 0, 1});
  CHECK(values(a < 2) == V{1, 0, 0});
  CHECK(values(2 < a) == V{0, 0, 1});
  CHECK(values(a <= 2) == V{1, 1, 0});
  CHECK(values(2 <= a) == V{0, 1, 1});
  CHECK(values(a > 2) == V{0, 0, 1});
  CHECK(values(2 > a) == V{1, 0, 0});
  CHECK(values(a >= 2) == V{0, 1, 1});
  CHECK(values(2 >= a) == V{1, 1, 0});
  CHECK(values(a.eq(2)) == values(eq(a, 2)));
  CHECK(values(a.lt(vec({2, 2, 2}))) == V{1, 0, 0});
  CHECK(values(a.le(2)) == V{1, 1, 0});
  CHECK(values(a.gt(2)) == V{0, 0, 1});
  CHECK(values(a.ge(vec({2}))) == V{0, 1, 1});
  CHECK(values(not_equal(a, 2)) == V{1, 0, 1});
  CHECK(values(a.not_equal(vec({2}))) == V{1, 0, 1});
  CHECK(values(less(a, 2)) == V{1, 0, 0});
  CHECK(values(a.less(vec({2}))) == V{1, 0, 0});
  CHECK(values(less_equal(a, vec({2}))) == V{1, 1, 0});
  CHECK(values(a.less_equal(2)) == V{1, 1, 0});
  CHECK(values(greater(a, vec({2}))) == V{0, 0, 1});
  CHECK(values(a.greater(2)) == V{0, 0, 1});
  CHECK(values(greater_equal(a, 2)) == V{0, 1, 1});
  CHECK(values(a.greater_equal(vec({2}))) == V{0, 1, 1});
  // A number converts to the tensor's dtype unchecked, as in PyTorch 1.13: 256 is 0 for uint8
  // and 1000 is -24 for int8.
  CHECK(values(vec({1, 0}, kUInt8) == 256) == V{0, 1});
  CHECK(values(vec({0}, kUInt8) < 256) == V{0});
  CHECK(values(vec({0, -24}, kInt8) == 1000) == V{0, 1});
  Tensor out = empty({1}, dtype(kBool));
  gt_out(out, vec({1}, kInt16), 70000);  // 70000 is 4464 as int16
  CHECK(values(out) == V{0});
}

TEST_CASE("compare: out= of any dtype and in-place keeping self's dtype", "[ops][compare]") {
  const Tensor a = vec({1, 2, 3}), b = vec({3, 2, 1});
  Tensor out = empty({0}, dtype(kBool));
  const Tensor& r = lt_out(out, a, b);
  CHECK(&r == &out);
  CHECK(out.sizes() == IntArrayRef({3}));
  CHECK(values(out) == V{1, 0, 0});
  CHECK(out._version() == 1);
  Tensor fout = empty({3}, dtype(kFloat));
  eq_out(fout, a, b);
  CHECK(fout.dtype() == kFloat);
  CHECK(values(fout) == V{0, 1, 0});
  Tensor iout = empty({2, 3}, dtype(kLong));
  ge_out(iout, make({2, 1}, {1, 3}), vec({1, 2, 3}));
  CHECK(values(iout) == V{1, 0, 0, 1, 1, 1});
  Tensor hout = empty({3}, dtype(kHalf));
  ne_out(hout, a, 2);
  CHECK(values(hout) == V{1, 0, 1});
  le_out(hout, a, vec({2}));
  CHECK(values(hout) == V{1, 1, 0});
  gt_out(hout, a, 1);
  CHECK(values(hout) == V{0, 1, 1});
  CHECK(hout._version() == 3);
  // In place: self keeps its dtype and gets 0/1; the other operand may be of another dtype.
  Tensor s = vec({1, 2, 3});
  const Tensor& rs = s.eq_(vec({1, 0, 3}, kInt));
  CHECK(&rs == &s);
  CHECK(s.dtype() == kFloat);
  CHECK(values(s) == V{1, 0, 1});
  CHECK(s._version() == 1);
  Tensor i = vec({5, -5, 0}, kInt);
  i.gt_(0.5);
  CHECK(i.dtype() == kInt);
  CHECK(values(i) == V{1, 0, 0});
  Tensor bb = vec({1, 0}, kBool);
  bb.ne_(vec({1, 1}, kBool));
  CHECK(values(bb) == V{0, 1});
  Tensor v = vec({1, 2, 3});
  v.lt_(2).add_(1).le_(vec({1, 2, 3})).ge_(1).ne_(0).eq_(1);  // [1,0,0] [2,1,1] [0,1,1] ...
  CHECK(values(v) == V{0, 1, 1});
  CHECK(v._version() == 6);
  // In place cannot broadcast self.
  Tensor small = vec({1});
  CHECK_THROWS_WITH(small.lt_(vec({1, 2})),
                    Catch::Contains("output with shape [1] doesn't match the broadcast shape [2]"));
  CHECK_THROWS_WITH(small.eq_(make({2, 1}, {1, 2})),
                    Catch::Contains("doesn't match the broadcast"));
  CHECK(small._version() == 0);
}

TEST_CASE("compare: logical and/or/xor/not on any dtype", "[ops][compare]") {
  for (DType dt : kAllDTypes) {
    const Tensor a = vec(sample_a(dt), dt), b = vec(sample_b(dt), dt);
    const V va = values(a), vb = values(b);
    V wand, wor, wxor, wnot;
    for (std::size_t i = 0; i < va.size(); ++i) {
      const bool x = va[i] != 0, y = vb[i] != 0;  // NaN is true
      wand.push_back(x && y);
      wor.push_back(x || y);
      wxor.push_back(x != y);
      wnot.push_back(!x);
    }
    INFO(dt);
    CHECK(logical_and(a, b).dtype() == kBool);
    CHECK(values(logical_and(a, b)) == wand);
    CHECK(values(a.logical_or(b)) == wor);
    CHECK(values(logical_xor(a, b)) == wxor);
    CHECK(values(logical_not(a)) == wnot);
    CHECK(values(a.logical_not()) == wnot);
  }
  // Mixed dtypes and broadcasting.
  CHECK(values(logical_and(vec({0, 2, kNaN}), vec({1}, kInt))) == V{0, 1, 1});
  CHECK(values(logical_or(make({2, 1}, {0, 1}, kBool), vec({0, 0.5}))) == V{0, 1, 1, 1});
  // In place keeps self's dtype; out= of any dtype receives 0/1.
  Tensor f = vec({0, 2, -3});
  f.logical_and_(vec({1, 1, 0}, kBool));
  CHECK(f.dtype() == kFloat);
  CHECK(values(f) == V{0, 1, 0});
  f.logical_or_(vec({1, 0, 0}));
  CHECK(values(f) == V{1, 1, 0});
  f.logical_xor_(vec({1, 1, 1}, kInt));
  CHECK(values(f) == V{0, 0, 1});
  f.logical_not_();
  CHECK(values(f) == V{1, 1, 0});
  CHECK(f._version() == 4);
  Tensor iout = empty({0}, dtype(kInt));
  logical_not_out(iout, vec({0, 5}));
  CHECK(iout.dtype() == kInt);
  CHECK(values(iout) == V{1, 0});
  logical_xor_out(iout, vec({0, 5}), vec({1, 1}));
  CHECK(values(iout) == V{1, 0});
  Tensor bout = empty({2}, dtype(kBool));
  logical_and_out(bout, vec({1, 1}, kLong), vec({0, 7}, kUInt8));
  CHECK(values(bout) == V{0, 1});
  logical_or_out(bout, vec({0, 0}), vec({0, 1}));
  CHECK(values(bout) == V{0, 1});
  Tensor small = vec({1});
  CHECK_THROWS_WITH(small.logical_and_(vec({1, 0})),
                    Catch::Contains("output with shape [1] doesn't match the broadcast shape [2]"));
}

TEST_CASE("compare: isnan isinf isfinite isposinf isneginf", "[ops][compare]") {
  for (DType dt : kAllDTypes) {
    INFO(dt);
    if (is_floating_point(dt)) {
      const Tensor t = vec({kNaN, kInf, -kInf, 1, 0}, dt);
      CHECK(values(isnan(t)) == V{1, 0, 0, 0, 0});
      CHECK(values(t.isinf()) == V{0, 1, 1, 0, 0});
      CHECK(values(isfinite(t)) == V{0, 0, 0, 1, 1});
      CHECK(values(t.isposinf()) == V{0, 1, 0, 0, 0});
      CHECK(values(isneginf(t)) == V{0, 0, 1, 0, 0});
    } else {
      const Tensor t = vec({0, 1, 1}, dt);
      CHECK(values(t.isnan()) == V{0, 0, 0});
      CHECK(values(isinf(t)) == V{0, 0, 0});
      CHECK(values(t.isfinite()) == V{1, 1, 1});
      CHECK(values(isposinf(t)) == V{0, 0, 0});
      CHECK(values(t.isneginf()) == V{0, 0, 0});
    }
    CHECK(isnan(vec({1}, dt)).dtype() == kBool);
    CHECK(isfinite(vec({1}, dt)).dtype() == kBool);
  }
  // Strided input, result in its shape.
  const Tensor m = make({2, 2}, {kNaN, 1, 2, kInf}).t();
  CHECK(values(isnan(m)) == V{1, 0, 0, 0});
  CHECK(values(isfinite(m)) == V{0, 1, 1, 0});
  CHECK(isinf(m).sizes() == IntArrayRef({2, 2}));
  CHECK(isinf(make({2, 2}, {1, 2, 3, 4}, kInt).t()).sizes() == IntArrayRef({2, 2}));
  // out= variants need a bool out= and resize it.
  Tensor out = empty({0}, dtype(kBool));
  isposinf_out(out, vec({kInf, -kInf, 1}));
  CHECK(values(out) == V{1, 0, 0});
  isneginf_out(out, vec({kInf, -kInf}));
  CHECK(values(out) == V{0, 1});
  isposinf_out(out, vec({1, 2, 3, 4}, kInt));
  CHECK(values(out) == V{0, 0, 0, 0});
  Tensor fout = empty({1}, dtype(kFloat));
  CHECK_THROWS_WITH(isposinf_out(fout, vec({1})),
                    Catch::Contains("isposinf does not support non-boolean outputs."));
  CHECK_THROWS_WITH(isneginf_out(fout, vec({1})),
                    Catch::Contains("isneginf does not support non-boolean outputs."));
}

TEST_CASE("compare: where selects, broadcasts three ways and promotes", "[ops][compare]") {
  const Tensor cond = vec({1, 0, 1}, kBool);
  CHECK(values(where(cond, vec({1, 2, 3}), vec({-1, -2, -3}))) == V{1, -2, 3});
  for (DType dt : kAllDTypes) {
    const Tensor x = vec({1, 0, 1}, dt), y = vec({0, 1, 0}, dt);
    const Tensor r = where(cond, x, y);
    INFO(dt);
    CHECK(r.dtype() == dt);
    CHECK(values(r) == V{1, 1, 1});
  }
  // Three-way broadcasting: [2,1,1] x [3] x [1,3].
  const Tensor c3 = make({2, 1, 1}, {1, 0}, kBool);
  const Tensor r3 = where(c3, vec({1, 2, 3}), make({1, 3}, {-1, -2, -3}));
  CHECK(r3.sizes() == IntArrayRef({2, 1, 3}));
  CHECK(values(r3) == V{1, 2, 3, -1, -2, -3});
  const Tensor rc = where(vec({1, 0}, kBool), make({2, 1}, {5, 6}), 0);
  CHECK(rc.sizes() == IntArrayRef({2, 2}));
  CHECK(values(rc) == V{5, 0, 6, 0});
  // Promotion between self and other; numbers join as Python numbers.
  CHECK(where(cond, vec({1, 2, 3}, kInt), vec({0.5, 0.5, 0.5})).dtype() == kFloat);
  CHECK(where(cond, vec({1, 2, 3}, kUInt8), vec({1, 2, 3}, kInt8)).dtype() == kShort);
  const Tensor ws = where(cond, vec({1, 2, 3}, kInt), 0.5);
  CHECK(ws.dtype() == kFloat);
  CHECK(values(ws) == V{1, 0.5, 3});
  const Tensor sw = where(cond, 7, vec({1, 2, 3}, kShort));
  CHECK(sw.dtype() == kShort);
  CHECK(values(sw) == V{7, 2, 7});
  CHECK(where(cond, 1, 2).dtype() == kLong);
  CHECK(values(where(cond, 1, 2)) == V{1, 2, 1});
  CHECK(where(cond, 1.5, 2).dtype() == kFloat);
  CHECK(where(cond, true, false).dtype() == kBool);
  CHECK(values(vec({1, 2, 3}).where(cond, vec({9}))) == V{1, 9, 3});
  CHECK(values(vec({1, 2, 3}).where(cond, 9)) == V{1, 9, 3});
  // Strided condition and operands.
  const Tensor ct = make({2, 2}, {1, 0, 0, 1}, kBool).t();
  CHECK(values(where(ct, make({2, 2}, {1, 2, 3, 4}).t(), 0)) == V{1, 0, 0, 4});
  // NaN is selected like any value.
  CHECK(std::isnan(values(where(vec({1}, kBool), vec({kNaN}), 0))[0]));
  // A uint8 condition is still accepted (deprecated in PyTorch).
  CHECK(values(where(vec({2, 0}, kUInt8), vec({1, 1}), vec({0, 0}))) == V{1, 0});
  // out=.
  Tensor out = empty({0});
  where_out(out, cond, vec({1, 2, 3}), 0.0 * vec({1, 1, 1}));
  CHECK(values(out) == V{1, 0, 3});
  CHECK(out._version() == 1);
  // Errors.
  CHECK_THROWS_WITH(where(vec({1, 0}), vec({1, 2}), vec({3, 4})),
                    Catch::Contains("where expected condition to be a boolean tensor, but got a "
                                    "tensor with dtype Float"));
  CHECK_THROWS_WITH(where(vec({1, 0}, kInt), 1, 2),
                    Catch::Contains("but got a tensor with dtype Int"));
  CHECK_THROWS_WITH(where_out(Tensor(), cond, vec({1}), vec({1})),
                    Catch::Contains("where_out: the out tensor is undefined"));
  Tensor iout = empty({3}, dtype(kInt));
  CHECK_THROWS_WITH(where_out(iout, cond, vec({1, 2, 3}), vec({1, 2, 3})),
                    Catch::Contains("Expected out type to be Float but got Int"));
  CHECK_THROWS_WITH(where(cond, vec({1, 2}), vec({1, 2, 3})),
                    Catch::Contains("must match the size of tensor b"));
}

TEST_CASE("compare: empty results have PyTorch's strides", "[ops][compare]") {
  // torch.zeros(3, 0, 2).permute(2, 1, 0): sizes [2, 0, 3], strides [1, 2, 2].
  const Tensor et = zeros({3, 0, 2}).permute({2, 1, 0});
  const Tensor gt = et > 0;  // through the iterator with a 0-d operand
  CHECK(gt.sizes() == IntArrayRef({2, 0, 3}));
  CHECK(gt.strides() == IntArrayRef({1, 2, 0}));
  CHECK((et == et).strides() == IntArrayRef({3, 3, 1}));  // same shapes, "contiguous": contiguous
  CHECK(where(gt, et, et).strides() == IntArrayRef({3, 3, 1}));  // all the same shape
  CHECK(where(gt, et, 1.0).strides() == IntArrayRef({1, 2, 0}));
  CHECK(where(zeros({3}, kBool), et, et).strides() == IntArrayRef({1, 2, 0}));
  CHECK(where(et == et, et, et).strides() == IntArrayRef({3, 3, 1}));
  const Tensor t = zeros({4, 0}).t();  // [0, 4], strides [1, 1]
  CHECK(where(t > 0, t, 1.0).strides() == IntArrayRef({1, 0}));
  CHECK(where(t > 0, t, t).strides() == IntArrayRef({4, 1}));
  const Tensor s = zeros({4, 5, 6}).slice(1, 2, 2);  // [4, 0, 6], strides [30, 6, 1]
  CHECK(where(s > 0, s, s).strides() == IntArrayRef({6, 6, 1}));
}

TEST_CASE("compare: masked_fill and masked_fill_", "[ops][compare]") {
  const Tensor mask = vec({1, 0, 1}, kBool);
  for (DType dt : kAllDTypes) {
    INFO(dt);
    const Tensor t = vec({0, 0, 0}, dt);
    const Tensor r = t.masked_fill(mask, 1);
    CHECK(r.dtype() == dt);
    CHECK(values(r) == V{1, 0, 1});
    CHECK(values(t) == V{0, 0, 0});
    CHECK(r._version() == 0);
  }
  // In place, with the mask broadcast to self.
  Tensor m = make({2, 3}, {1, 2, 3, 4, 5, 6});
  const Tensor& rm = m.masked_fill_(mask, -1.5);
  CHECK(&rm == &m);
  CHECK(values(m) == V{-1.5, 2, -1.5, -1.5, 5, -1.5});
  CHECK(m._version() == 1);
  m.masked_fill_(make({2, 1}, {0, 1}, kBool), make({}, {9}));
  CHECK(values(m) == V{-1.5, 2, -1.5, 9, 9, 9});
  CHECK(m._version() == 2);
  // Out of place: self broadcasts with the mask.
  const Tensor ob = masked_fill(vec({1, 2, 3}), make({2, 1}, {1, 0}, kBool), 0);
  CHECK(ob.sizes() == IntArrayRef({2, 3}));
  CHECK(ob.is_contiguous());
  CHECK(values(ob) == V{0, 0, 0, 1, 2, 3});
  CHECK(values(masked_fill(vec({1, 2}), vec({0, 1}, kBool), make({}, {7}, kLong))) == V{1, 7});
  // A strided self is written through its strides.
  Tensor base = make({2, 2}, {1, 2, 3, 4});
  base.t().masked_fill_(make({2, 2}, {1, 1, 0, 0}, kBool), 0);
  CHECK(values(base) == V{0, 2, 0, 4});
  // The value converts to self's dtype (truncating a float for an int tensor, as PyTorch).
  CHECK(values(vec({0, 0}, kInt).masked_fill(vec({1, 0}, kBool), 2.7)) == V{2, 0});
  CHECK(values(vec({0, 0}, kBool).masked_fill(vec({1, 0}, kBool), 5)) == V{1, 0});
  CHECK(std::isnan(values(vec({0}).masked_fill(vec({1}, kBool), kNaN))[0]));
  // An expanded self is allowed (every write stores the same value).
  Tensor one = vec({1});
  one.expand({3}).masked_fill_(vec({0, 1, 0}, kBool), 5);
  CHECK(values(one) == V{5});
  // Errors.
  Tensor t = vec({1, 2, 3});
  CHECK_THROWS_WITH(t.masked_fill_(vec({1, 0, 1}), 0),
                    Catch::Contains("masked_fill_ only supports boolean masks, but got mask with "
                                    "dtype float"));
  CHECK_THROWS_WITH(t.masked_fill(vec({1, 0, 1}, kUInt8), 0),
                    Catch::Contains("but got mask with dtype unsigned char"));
  CHECK_THROWS_WITH(t.masked_fill_(mask, vec({1, 2})),
                    Catch::Contains("masked_fill_ only supports a 0-dimensional value tensor, but "
                                    "got tensor with 1 dimension(s)."));
  CHECK_THROWS_WITH(masked_fill(t, mask, make({1, 1}, {1})),
                    Catch::Contains("but got tensor with 2 dimension(s)."));
  CHECK_THROWS_WITH(
      t.masked_fill_(make({2, 3}, V(6, 1), kBool), 0),
      Catch::Contains("output with shape [3] doesn't match the broadcast shape [2, 3]"));
  CHECK_THROWS_WITH(
      t.masked_fill(vec({1, 0}, kBool), 0),
      Catch::Contains("The size of tensor a (2) must match the size of tensor b (3)"));
  CHECK_THROWS_WITH(vec({1}, kUInt8).masked_fill_(vec({1}, kBool), 300),
                    Catch::Contains("value cannot be converted to type uint8_t without overflow"));
  Tensor shared = vec({1, 0, 1, 0}, kBool);
  CHECK_THROWS_WITH(shared.slice(0, 0, 3).masked_fill_(shared.slice(0, 1, 4), true),
                    Catch::Contains("refer to a single memory location"));
  CHECK(t._version() == 0);
}

TEST_CASE("compare: isclose, allclose and equal", "[ops][compare]") {
  const Tensor a = vec({1, 1, 1, kNaN, kInf, -kInf, 0});
  const Tensor b = vec({1, 1 + 1e-6, 1.1, kNaN, kInf, kInf, 1e-9});
  CHECK(isclose(a, b).dtype() == kBool);
  CHECK(values(isclose(a, b)) == V{1, 1, 0, 0, 1, 0, 1});
  CHECK(values(a.isclose(b, 1e-5, 1e-8, true)) == V{1, 1, 0, 1, 1, 0, 1});
  CHECK(values(isclose(a, b, 0.2, 0)) == V{1, 1, 1, 0, 1, 0, 0});
  CHECK(values(isclose(a, b, 0, 0)) == V{1, 0, 0, 0, 1, 0, 0});
  // Reference: |a - b| <= atol + rtol * |b|, computed in the tensors' precision.
  for (DType dt : {kFloat32, kFloat64, kInt32, kInt64}) {
    const Tensor x = vec({100, 100, 100, -5}, dt), y = vec({101, 102, 99, -5}, dt);
    const V vx = values(x), vy = values(y);
    V want;
    for (int i = 0; i < 4; ++i)
      want.push_back(std::fabs(vx[i] - vy[i]) <= 0.5 + 0.01 * std::fabs(vy[i]));
    INFO(dt);
    CHECK(values(isclose(x, y, 0.01, 0.5)) == want);
  }
  CHECK(values(isclose(vec({1, 0}, kBool), vec({1, 1}, kBool))) == V{1, 0});
  CHECK(values(isclose(vec({1.0009765625}, kHalf), vec({1}, kHalf), 1e-3)) == V{1});
  CHECK(values(isclose(make({2, 1}, {1, 2}), vec({1, 2, 3}))) == V{1, 0, 0, 0, 1, 0});
  CHECK(allclose(vec({1, 2}), vec({1 + 1e-7, 2})));
  CHECK_FALSE(allclose(vec({1, 2}), vec({1, 2.1})));
  CHECK_FALSE(allclose(vec({kNaN}), vec({kNaN})));
  CHECK(vec({kNaN}).allclose(vec({kNaN}), 1e-5, 1e-8, true));
  CHECK(allclose(make({2, 2}, {1, 2, 3, 4}).t(), make({2, 2}, {1, 3, 2, 4})));
  CHECK(allclose(empty({0}), empty({0})));
  CHECK_THROWS_WITH(isclose(vec({1}), vec({1}, kDouble)),
                    Catch::Contains("Float did not match Double"));
  CHECK_THROWS_WITH(isclose(vec({1}), vec({1}), -1),
                    Catch::Contains("rtol must be greater than or equal to zero, but got -1"));
  CHECK_THROWS_WITH(allclose(vec({1}), vec({1}), 1e-5, -0.5),
                    Catch::Contains("atol must be greater than or equal to zero, but got -0.5"));
  // equal: same dtype required, shapes must match, NaN is unequal.
  CHECK(equal(vec({1, 2, 3}), vec({1, 2, 3})));
  CHECK_FALSE(equal(vec({1, 2, 3}), vec({1, 2, 4})));
  CHECK_FALSE(equal(vec({1, 2, 3}), make({3, 1}, {1, 2, 3})));
  CHECK_FALSE(equal(vec({kNaN}), vec({kNaN})));
  CHECK(make({2, 2}, {1, 2, 3, 4}).t().equal(make({2, 2}, {1, 3, 2, 4})));
  CHECK(equal(empty({0}, dtype(kInt)), empty({0}, dtype(kInt))));
  CHECK(equal(vec({1, 0}, kBool), vec({1, 0}, kBool)));
  CHECK(equal(vec({-0.0}), vec({0.0})));
  const Tensor big = arange(100000, dtype(kLong));
  Tensor big2 = big.clone();
  CHECK(equal(big, big2));
  big2.data_ptr<int64_t>()[99999] = 0;
  CHECK_FALSE(equal(big, big2));
  // Different dtypes compare in their common dtype (PyTorch 1.13 prints these results).
  CHECK(equal(vec({1, 1}), vec({1, 1}, kDouble)));
  CHECK_FALSE(equal(vec({0.1}), vec({0.1}, kDouble)));
  CHECK(equal(vec({1, 1}, kInt), vec({1, 1})));
}

}  // namespace ops_compare_test
