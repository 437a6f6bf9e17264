// sort, argsort, msort and topk against a reference written here (a stable sort of (value, index)
// pairs in double precision, NaN above everything): every dtype, every dim, strided inputs,
// ties, NaN, 0-d and empty tensors, thread-count independence, and every error.
#include <tensorplay/ops/sort.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <tuple>
#include <vector>

#include <tensorplay/ops/views.hpp>

namespace ops_sort_test {

using namespace tensorplay;
using Catch::Contains;

namespace {

using V = std::vector<double>;
using S = std::vector<int64_t>;

constexpr DType kAllDTypes[] = {kBool,  kUInt8, kInt8,     kInt16,   kInt32,
                                kInt64, kHalf,  kBFloat16, kFloat32, kFloat64};

Tensor make(const S& sizes, const V& values, DType dt = kFloat) {
  Tensor t = empty(sizes, TensorOptions().dtype(dt));
  REQUIRE(t.numel() == int64_t(values.size()));
  dispatch_dtype(dt, [&]<class T>() {
    T* p = static_cast<T*>(t.data_ptr());
    for (std::size_t i = 0; i < values.size(); ++i) p[i] = static_cast<T>(values[i]);
  });
  return t;
}

V values(const Tensor& t) {
  V out;
  const int64_t nd = t.dim();
  std::vector<int64_t> idx(std::size_t(nd), 0);
  for (int64_t n = 0; n < t.numel(); ++n) {
    int64_t off = 0;
    for (int64_t d = 0; d < nd; ++d) off += idx[std::size_t(d)] * t.stride(d);
    dispatch_dtype(t.dtype(), [&]<class T>() {
      out.push_back(static_cast<double>(static_cast<const T*>(t.data_ptr())[off]));
    });
    for (int64_t d = nd - 1; d >= 0 && ++idx[std::size_t(d)] == t.size(d); --d) {
      idx[std::size_t(d)] = 0;
    }
  }
  return out;
}

S shape_of(const Tensor& t) { return S(t.sizes().begin(), t.sizes().end()); }

// Values with many ties (and NaN for floating dtypes), deterministic.
V tie_values(int64_t n, DType dt, uint64_t seed) {
  V v(static_cast<std::size_t>(n));
  uint64_t s = seed * 2654435761u + 1;
  for (double& x : v) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    const int64_t r = int64_t((s >> 33) % 9);
    if (dt == kBool) {
      x = double(r % 2);
    } else if (is_floating_point(dt) && r == 8) {
      x = std::numeric_limits<double>::quiet_NaN();
    } else {
      x = dt == kUInt8 ? double(r) : double(r - 4) * (is_floating_point(dt) ? 0.5 : 1.0);
    }
  }
  return v;
}

// The reference order of one slice: stable, NaN largest.
std::vector<std::pair<double, int64_t>> ref_sorted(const V& slice, bool descending) {
  std::vector<std::pair<double, int64_t>> e;
  for (std::size_t i = 0; i < slice.size(); ++i) e.emplace_back(slice[i], int64_t(i));
  auto less = [](double a, double b) {
    if (std::isnan(a) != std::isnan(b)) return std::isnan(b);
    return !std::isnan(a) && a < b;
  };
  std::stable_sort(e.begin(), e.end(), [&](const auto& a, const auto& b) {
    return descending ? less(b.first, a.first) : less(a.first, b.first);
  });
  return e;
}

bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

// Checks values/indices of sort (count = size along dim) or topk (count = k) of `self` along dim
// against the reference, slice by slice.
void check_sorted(const Tensor& self, int64_t dim, bool descending, const Tensor& vals,
                  const Tensor& idx, int64_t count) {
  REQUIRE(idx.dtype() == kLong);
  REQUIRE(vals.dtype() == self.dtype());
  const int64_t nd = self.dim();
  if (nd == 0) {
    CHECK(same(values(vals)[0], values(self)[0]));
    CHECK(values(idx) == V{0});
    return;
  }
  // Move `dim` last on all three and walk the slices.
  const Tensor s = self.movedim(dim, -1), v = vals.movedim(dim, -1), x = idx.movedim(dim, -1);
  const V sv = values(s), vv = values(v), xv = values(x);
  const int64_t n = self.size(dim);
  const int64_t slices = n == 0 ? 0 : self.numel() / n;
  for (int64_t sl = 0; sl < slices; ++sl) {
    const V slice(sv.begin() + sl * n, sv.begin() + (sl + 1) * n);
    const auto want = ref_sorted(slice, descending);
    for (int64_t i = 0; i < count; ++i) {
      INFO("slice " << sl << " position " << i);
      CHECK(same(vv[std::size_t(sl * count + i)], want[std::size_t(i)].first));
      CHECK(xv[std::size_t(sl * count + i)] == double(want[std::size_t(i)].second));
    }
  }
}

}  // namespace

TEST_CASE("sort: every dtype, every dim, both directions", "[ops][sort]") {
  for (DType dt : kAllDTypes) {
    const Tensor t = make({4, 5, 6}, tie_values(120, dt, 1), dt);
    for (int64_t dim : {0, 1, 2, -1, -3}) {
      for (bool desc : {false, true}) {
        INFO(dt << " dim " << dim << " descending " << desc);
        const auto [v, i] = sort(t, dim, desc);
        CHECK(shape_of(v) == S{4, 5, 6});
        CHECK(shape_of(i) == S{4, 5, 6});
        check_sorted(t, maybe_wrap_dim(dim, 3), desc, v, i, t.size(dim));
        const auto [v2, i2] = t.sort(std::optional<bool>(true), dim, desc);
        CHECK(values(i2) == values(i));
      }
    }
  }
}

TEST_CASE("sort: NaN is the largest value, ties keep their order", "[ops][sort]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor t = make({7}, {3, nan, -1, 3, nan, -0.0, 0.0}, kFloat);
  {
    const auto [v, i] = sort(t);
    const V vv = values(v);
    CHECK(values(i) == V{2, 5, 6, 0, 3, 1, 4});
    CHECK(vv[0] == -1);
    CHECK(std::isnan(vv[5]));
    CHECK(std::isnan(vv[6]));
    // -0.0 and 0.0 are equal: they keep their original order.
    CHECK(std::signbit(vv[1]));
    CHECK(!std::signbit(vv[2]));
  }
  {
    const auto [v, i] = sort(t, 0, /*descending=*/true);
    CHECK(values(i) == V{1, 4, 0, 3, 5, 6, 2});
  }
  for (DType dt : {kHalf, kBFloat16, kDouble}) {
    INFO(dt);
    CHECK(values(argsort(t.to(dt))) == V{2, 5, 6, 0, 3, 1, 4});
    CHECK(values(argsort(t.to(dt), 0, true)) == V{1, 4, 0, 3, 5, 6, 2});
  }
}

TEST_CASE("sort: strided inputs and output layout", "[ops][sort]") {
  const Tensor base = make({6, 8}, tie_values(48, kFloat, 2), kFloat);
  SECTION("transposed input: outputs keep its (dense) strides") {
    const Tensor t = base.t();  // [8, 6]
    const auto [v, i] = sort(t, 1);
    CHECK(v.strides() == t.strides());
    CHECK(i.strides() == t.strides());
    check_sorted(t, 1, false, v, i, 6);
  }
  SECTION("sliced input: dense outputs") {
    const Tensor t = base.slice(1, 1, 8, 2);  // [6, 4], not dense
    const auto [v, i] = sort(t, 0, true);
    CHECK(v.is_contiguous());
    check_sorted(t, 0, true, v, i, 6);
  }
  SECTION("expanded input") {
    const Tensor t = make({1, 5}, {4, 1, 3, 1, 2}).expand({3, 5});
    const auto [v, i] = sort(t, 1);
    check_sorted(t, 1, false, v, i, 5);
    CHECK(values(v) == V{1, 1, 2, 3, 4, 1, 1, 2, 3, 4, 1, 1, 2, 3, 4});
    const auto [v0, i0] = sort(t, 0);  // all equal along dim 0: identity order
    CHECK(values(i0) == V{0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2});
  }
}

TEST_CASE("sort: 0-d and empty tensors", "[ops][sort]") {
  const Tensor s = make({}, {5}, kInt);
  for (int64_t dim : {0, -1}) {
    const auto [v, i] = sort(s, dim);
    CHECK(v.dim() == 0);
    CHECK(values(v) == V{5});
    CHECK(values(i) == V{0});
  }
  CHECK_THROWS_AS(sort(s, 1), IndexError);
  const auto [v, i] = sort(zeros({3, 0}), 1);
  CHECK(shape_of(v) == S{3, 0});
  const auto [v2, i2] = sort(zeros({0, 4}), 1);
  CHECK(shape_of(i2) == S{0, 4});
  CHECK(values(msort(make({}, {2}))) == V{2});
}

TEST_CASE("sort: errors", "[ops][sort]") {
  CHECK_THROWS_WITH(
      sort(zeros({2, 3}), 2),
      Contains("Dimension out of range (expected to be in range of [-2, 1], but got 2)"));
  CHECK_THROWS_AS(argsort(zeros({2, 3}), -3), IndexError);
  CHECK_THROWS_AS(zeros({2}).topk(1, 1), IndexError);
  CHECK_THROWS_WITH(sort(Tensor()), Contains("undefined Tensor"));
}

TEST_CASE("sort: argsort and msort", "[ops][sort]") {
  const Tensor t = make({2, 4}, {3, 1, 2, 1, 0, 5, 5, -1});
  CHECK(values(argsort(t)) == V{1, 3, 2, 0, 3, 0, 1, 2});
  CHECK(values(t.argsort(1, true)) == V{0, 2, 1, 3, 1, 2, 0, 3});
  CHECK(values(t.argsort(/*stable=*/true, 0, false)) == V{1, 0, 0, 1, 0, 1, 1, 0});
  CHECK(values(argsort(t, /*stable=*/true)) == values(argsort(t)));
  // An int dim picks the dim overload (libtorch's pair alone would be ambiguous there).
  CHECK(values(argsort(t, 0)) == V{1, 0, 0, 1, 0, 1, 1, 0});
  CHECK(values(t.argsort(0)) == V{1, 0, 0, 1, 0, 1, 1, 0});
  CHECK(values(argsort(t, int64_t{1}, true)) == V{0, 2, 1, 3, 1, 2, 0, 3});
  CHECK(values(msort(t)) == V{0, 1, 2, -1, 3, 5, 5, 1});
  CHECK(values(t.msort()) == values(msort(t)));
}

TEST_CASE("sort: the result does not depend on the thread count", "[ops][sort]") {
  const int saved = get_num_threads();
  const Tensor t = make({300, 257}, tie_values(300 * 257, kFloat, 3), kFloat);
  set_num_threads(1);
  const auto [v1, i1] = sort(t, 1, true);
  set_num_threads(2);
  const auto [v2, i2] = sort(t, 1, true);
  const auto [tv, ti] = topk(t, 10, 1);
  set_num_threads(saved);
  CHECK(std::memcmp(v1.data_ptr(), v2.data_ptr(), v1.nbytes()) == 0);
  CHECK(std::memcmp(i1.data_ptr(), i2.data_ptr(), i1.nbytes()) == 0);
  check_sorted(t, 1, true, v2, i2, 257);
  check_sorted(t, 1, true, tv, ti, 10);
}

TEST_CASE("topk: largest and smallest, every k", "[ops][sort][topk]") {
  for (DType dt : kAllDTypes) {
    if (dt == kBool) continue;
    const Tensor t = make({3, 9}, tie_values(27, dt, 4), dt);
    for (int64_t k = 0; k <= 9; ++k) {
      for (bool largest : {true, false}) {
        INFO(dt << " k " << k << " largest " << largest);
        const auto [v, i] = topk(t, k, 1, largest);
        CHECK(shape_of(v) == S{3, k});
        CHECK(v.is_contiguous());
        check_sorted(t, 1, largest, v, i, k);
      }
    }
    const auto [v0, i0] = t.topk(2, 0, false, false);
    CHECK(shape_of(v0) == S{2, 9});
    check_sorted(t, 0, false, v0, i0, 2);
  }
}

TEST_CASE("topk: NaN counts as the largest", "[ops][sort][topk]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const Tensor t = make({5}, {1, nan, 7, -2, 7});
  const auto [v, i] = topk(t, 3);
  const V vv = values(v);
  CHECK(std::isnan(vv[0]));
  CHECK(vv[1] == 7);
  CHECK(vv[2] == 7);
  CHECK(values(i) == V{1, 2, 4});
  const auto [vs, is] = topk(t, 2, -1, /*largest=*/false);
  CHECK(values(vs) == V{-2, 1});
  CHECK(values(is) == V{3, 0});
}

TEST_CASE("topk: 0-d, empty and errors", "[ops][sort][topk]") {
  const Tensor s = make({}, {3}, kInt);
  for (int64_t k : {0, 1}) {
    const auto [v, i] = topk(s, k);
    CHECK(v.dim() == 0);
    CHECK(values(v) == V{3});
    CHECK(values(i) == V{0});
  }
  // PyTorch's topk copies a 0-d input without its kernel, so even Bool works there.
  CHECK(values(std::get<0>(topk(make({}, {1}, kBool), 1))) == V{1});
  CHECK_THROWS_WITH(topk(s, 2), Contains("selected index k out of range"));
  CHECK_THROWS_WITH(topk(zeros({2, 3}), 4), Contains("selected index k out of range"));
  CHECK_THROWS_WITH(topk(zeros({2, 3}), -1), Contains("selected index k out of range"));
  CHECK_THROWS_WITH(topk(zeros({2, 3}, kBool), 1),
                    Contains("\"topk_cpu\" not implemented for 'Bool'"));
  CHECK_THROWS_WITH(topk(zeros({0}, kBool), 0),
                    Contains("\"topk_cpu\" not implemented for 'Bool'"));
  const auto [v, i] = topk(zeros({0, 3}), 2);
  CHECK(shape_of(v) == S{0, 2});
  const auto [v2, i2] = topk(zeros({4, 0}), 0);
  CHECK(shape_of(i2) == S{4, 0});
}

}  // namespace ops_sort_test
