// Reductions and scans (ops/reduce.hpp, ops/reduce_ops.hpp): every op against double-precision
// reference loops written here, on contiguous, permuted, sliced and expanded inputs, over many
// dim lists with and without keepdim; the dtype rules; empty and 0-d inputs; the numerics the
// cascade promises; thread determinism; out= and in-place forms; and every error path with
// PyTorch 1.13's message.
#include <tensorplay/ops/reduce.hpp>
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <numeric>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace ops_reduce_test {

using namespace tensorplay;

namespace {

using V = std::vector<double>;
using S = std::vector<int64_t>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Row-major values in, any dtype (static_cast from double per element).
Tensor make(S sizes, const V& vals, DType dt = kFloat) {
  Tensor t = empty(sizes, dtype(dt));
  REQUIRE(t.numel() == int64_t(vals.size()));
  dispatch_dtype(dt, [&]<class T>() {
    T* p = static_cast<T*>(t.data_ptr());
    for (std::size_t i = 0; i < vals.size(); ++i) p[i] = static_cast<T>(vals[i]);
  });
  return t;
}

// The elements in row-major order of the logical shape, read through the strides.
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

// Deterministic pseudo-random values in [lo, hi).
V random_values(int64_t n, uint64_t seed, double lo = -1, double hi = 1) {
  V v(n);
  uint64_t x = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (auto& e : v) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    e = lo + (hi - lo) * double(x >> 11) / double(uint64_t(1) << 53);
  }
  return v;
}
// Small integers, exactly representable in every dtype and exactly summable.
V small_ints(int64_t n, uint64_t seed, int lo = -4, int hi = 5) {
  V v = random_values(n, seed, lo, hi);
  for (auto& e : v) e = std::floor(e);
  return v;
}

int64_t numel_of(const S& s) {
  int64_t n = 1;
  for (int64_t x : s) n *= x;
  return n;
}

// The same logical tensor in several memory layouts.
enum class Layout { Contiguous, Permuted, Sliced, Expanded };
const Layout kLayouts[] = {Layout::Contiguous, Layout::Permuted, Layout::Sliced, Layout::Expanded};

Tensor with_layout(const S& sizes, const V& vals, DType dt, Layout layout) {
  const int64_t nd = int64_t(sizes.size());
  switch (layout) {
    case Layout::Contiguous: return make(sizes, vals, dt);
    case Layout::Permuted: {  // stored with the dimensions reversed, then permuted back
      S rev(sizes.rbegin(), sizes.rend());
      Tensor base = empty(rev, dtype(dt));
      Tensor view = base.permute([&] {
        S p(nd);
        for (int64_t d = 0; d < nd; ++d) p[d] = nd - 1 - d;
        return p;
      }());
      view.copy_(make(sizes, vals, dt));
      return view;
    }
    case Layout::Sliced: {  // every other element of a tensor twice as long in the last dim
      S big = sizes;
      big.back() = 2 * big.back() + 1;
      Tensor base = zeros(big, dtype(dt));
      Tensor view = base.slice(nd - 1, 1, std::nullopt, 2);
      view.copy_(make(sizes, vals, dt));
      return view;
    }
    case Layout::Expanded: {  // dimension 0 broadcast from size 1: the values repeat
      S one = sizes;
      one[0] = 1;
      V first(vals.begin(), vals.begin() + numel_of(one));
      return make(one, first, dt).expand(sizes);
    }
  }
  return Tensor();
}

// The reduced dims of `dims` (PyTorch's rules: negative wrap, empty = all) as a set.
std::set<int64_t> dim_set(const S& dims, int64_t nd) {
  std::set<int64_t> s;
  if (dims.empty()) {
    for (int64_t d = 0; d < nd; ++d) s.insert(d);
  }
  for (int64_t d : dims) s.insert(d < 0 ? d + nd : d);
  return s;
}

S reduced_sizes(const S& sizes, const std::set<int64_t>& dims, bool keepdim) {
  S out;
  for (int64_t d = 0; d < int64_t(sizes.size()); ++d) {
    if (!dims.count(d)) {
      out.push_back(sizes[d]);
    } else if (keepdim) {
      out.push_back(1);
    }
  }
  return out;
}

// For each output element (row-major), the input elements that fold into it, in row-major order.
std::vector<V> groups(const S& sizes, const V& vals, const std::set<int64_t>& dims) {
  const S keep = reduced_sizes(sizes, dims, true);
  std::vector<V> g(numel_of(keep));
  const int64_t nd = int64_t(sizes.size());
  std::vector<int64_t> idx(nd, 0);
  for (std::size_t n = 0; n < vals.size(); ++n) {
    int64_t o = 0;
    for (int64_t d = 0; d < nd; ++d) o = o * keep[d] + (dims.count(d) ? 0 : idx[d]);
    g[o].push_back(vals[n]);
    for (int64_t d = nd - 1; d >= 0 && ++idx[d] == sizes[d]; --d) idx[d] = 0;
  }
  return g;
}

double ref_sum(const V& g) {
  double s = 0;
  for (double x : g) s += x;
  return s;
}
double ref_prod(const V& g) {
  double s = 1;
  for (double x : g) s *= x;
  return s;
}
double ref_max(const V& g) {
  double m = -kInf;
  for (double x : g) {
    if (std::isnan(x)) return kNaN;
    m = std::max(m, x);
  }
  return m;
}
double ref_min(const V& g) {
  double m = kInf;
  for (double x : g) {
    if (std::isnan(x)) return kNaN;
    m = std::min(m, x);
  }
  return m;
}
double ref_var(const V& g, double correction) {
  const double n = double(g.size());
  const double mean = ref_sum(g) / n;
  double m2 = 0;
  for (double x : g) m2 += (x - mean) * (x - mean);
  return m2 / std::max(0.0, n - correction);
}

bool close(double a, double b, double rtol, double atol = 0) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::fabs(a - b) <= atol + rtol * std::fabs(b);
}

// Checks shape and every value of `got` against `want` (row-major).
void check_values(const Tensor& got, const S& shape, const V& want, double rtol, double atol = 0) {
  REQUIRE(got.sizes() == IntArrayRef(shape));
  const V v = values(got);
  REQUIRE(v.size() == want.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    INFO("element " << i << ": got " << v[i] << ", want " << want[i]);
    CHECK(close(v[i], want[i], rtol, atol));
  }
}

const std::vector<S> kDimLists3 = {{},     {0},    {1},    {2},       {-1},
                                   {0, 2}, {2, 0}, {1, 2}, {0, 1, 2}, {-3, -1}};

// Restores the thread count when a test changes it.
struct ThreadCount {
  int saved = get_num_threads();
  explicit ThreadCount(int n) { set_num_threads(n); }
  ~ThreadCount() { set_num_threads(saved); }
};

bool bitwise_equal(const Tensor& a, const Tensor& b) {
  if (a.sizes() != b.sizes() || a.dtype() != b.dtype()) return false;
  const Tensor ac = a.contiguous(), bc = b.contiguous();
  return std::memcmp(ac.data_ptr(), bc.data_ptr(), ac.nbytes()) == 0;
}

}  // namespace

// ---- sum ------------------------------------------------------------------------------------

TEST_CASE("reduce: sum over every dim list, keepdim and layout matches a double reference",
          "[ops][reduce]") {
  const S sizes = {3, 4, 5};
  for (DType dt : {kFloat, kDouble}) {
    for (Layout layout : kLayouts) {
      const Tensor x = with_layout(sizes, random_values(60, 1), dt, layout);
      const V logical = values(x);
      for (const S& dims : kDimLists3) {
        for (bool keepdim : {false, true}) {
          const auto set = dim_set(dims, 3);
          V want;
          for (const V& g : groups(sizes, logical, set)) want.push_back(ref_sum(g));
          INFO("dtype " << dt << " layout " << int(layout) << " dims " << IntArrayRef(dims)
                        << " keepdim " << keepdim);
          const Tensor r = x.sum(dims, keepdim);
          CHECK(r.dtype() == dt);
          check_values(r, reduced_sizes(sizes, set, keepdim), want, dt == kFloat ? 1e-5 : 1e-12,
                       1e-6);
          check_values(tensorplay::sum(x, dims, keepdim), reduced_sizes(sizes, set, keepdim), want,
                       dt == kFloat ? 1e-5 : 1e-12, 1e-6);
        }
      }
    }
  }
}

TEST_CASE("reduce: sum of large and odd shapes takes every inner-loop path", "[ops][reduce]") {
  // Rows long enough for the lane cascade (> 512 elements), outer reductions with more than 16
  // rows (the column cascade), tails that are not multiples of the lane count, strided rows.
  for (const S& sizes : std::vector<S>{{37, 1500}, {1500, 37}, {3, 700, 5}, {2, 3, 4, 5, 6}}) {
    const V vals = random_values(numel_of(sizes), 7);
    const int64_t nd = int64_t(sizes.size());
    for (Layout layout : {Layout::Contiguous, Layout::Permuted, Layout::Sliced}) {
      const Tensor x = with_layout(sizes, vals, kDouble, layout);
      for (int64_t d = 0; d < nd; ++d) {
        const std::set<int64_t> set = {d};
        V want;
        for (const V& g : groups(sizes, vals, set)) want.push_back(ref_sum(g));
        INFO("sizes " << IntArrayRef(sizes) << " layout " << int(layout) << " dim " << d);
        check_values(x.sum(d), reduced_sizes(sizes, set, false), want, 1e-12, 1e-12);
        check_values(x.to(kFloat).sum(d), reduced_sizes(sizes, set, false), want, 1e-5, 1e-4);
      }
      check_values(x.sum(), {}, {ref_sum(vals)}, 1e-12);
    }
  }
}

TEST_CASE("reduce: sum dtype rules", "[ops][reduce]") {
  const V v = {1, 2, 3, 4, 5, 6};
  SECTION("bool and integer inputs give int64") {
    for (DType dt : {kBool, kUInt8, kInt8, kInt16, kInt32, kInt64}) {
      const V vals = dt == kBool ? V{1, 0, 1, 1, 0, 1} : v;
      const Tensor r = make({2, 3}, vals, dt).sum();
      CHECK(r.dtype() == kLong);
      CHECK(r.item<int64_t>() == int64_t(ref_sum(vals)));
      CHECK(make({2, 3}, vals, dt).sum(1).dtype() == kLong);
    }
  }
  SECTION("floating inputs keep their dtype") {
    for (DType dt : {kHalf, kBFloat16, kFloat, kDouble}) {
      const Tensor r = make({2, 3}, v, dt).sum(0);
      CHECK(r.dtype() == dt);
      CHECK(values(r) == V{5, 7, 9});
    }
  }
  SECTION("dtype= converts the input first") {
    const Tensor x = make({4}, {0.5, 1.5, 2.5, -1.5});
    const Tensor r = x.sum(kInt);
    CHECK(r.dtype() == kInt);
    CHECK(r.item<int64_t>() == 0 + 1 + 2 - 1);  // truncated element by element
    CHECK(x.sum(kDouble).dtype() == kDouble);
    CHECK(x.sum(kDouble).item<double>() == 3.0);
    CHECK(x.sum({0}, false, kBool).item<bool>());
    CHECK(make({3}, {100, 100, 100}, kInt64).sum(kByte).item<int64_t>() == 300 % 256);
    CHECK(make({2}, {1, 2}, kInt32).sum(IntArrayRef{0}, true, kHalf).dtype() == kHalf);
  }
  SECTION("Half accumulates in float and rounds once") {
    // 4096 copies of 1: a Half accumulator would stop at 2048.
    const Tensor h = ones({4096}, dtype(kHalf));
    CHECK(h.sum().item<double>() == 4096.0);
    const Tensor b = ones({64, 1000}, dtype(kBFloat16));
    CHECK(values(b.sum(1)) == V(64, 1000.0));
    CHECK(values(b.t().sum(1)) == V(1000, 64.0));
  }
  SECTION("int64 sums wrap as int64 does, not through double") {
    const int64_t big = int64_t(1) << 60;
    const Tensor x = make({3}, {0, 0, 0}, kLong);
    x.data_ptr<int64_t>()[0] = big + 1;
    x.data_ptr<int64_t>()[1] = big + 3;
    x.data_ptr<int64_t>()[2] = 5;
    CHECK(x.sum().item<int64_t>() == 2 * big + 9);
  }
}

TEST_CASE("reduce: sum_out and its dtype checks", "[ops][reduce]") {
  const Tensor x = make({2, 3}, {1, 2, 3, 4, 5, 6}, kInt32);
  SECTION("out= decides the dtype") {
    Tensor out = empty({0}, dtype(kDouble));
    const int64_t v0 = out._version();
    const Tensor& r = sum_out(out, x, {1});
    CHECK(&r == &out);
    CHECK(out.sizes() == IntArrayRef({2}));
    CHECK(values(out) == V{6, 15});
    CHECK(out._version() > v0);
  }
  SECTION("keepdim and a non-contiguous out") {
    Tensor base = zeros({2, 4}, dtype(kLong));
    Tensor out = base.slice(1, 0, 4, 2).view({2, 2}).slice(1, 0, 1);  // [2, 1], stride (4, 2)
    sum_out(out, x, {1}, true);
    CHECK(values(base) == V{6, 0, 0, 0, 15, 0, 0, 0});
  }
  SECTION("dtype= and out= must agree") {
    Tensor out = empty({2}, dtype(kFloat));
    CHECK_THROWS_WITH(sum_out(out, x, {1}, false, kDouble),
                      "Expected out tensor to have dtype double, but got float instead");
    CHECK_THROWS_WITH(sum_out(out, x, {1}, false, kLong),
                      "Expected out tensor to have dtype long int, but got float instead");
  }
}

TEST_CASE("reduce: sum of empty and 0-d inputs", "[ops][reduce]") {
  SECTION("empty") {
    const Tensor e = empty({0, 3});
    CHECK(e.sum().item<double>() == 0.0);
    check_values(e.sum(0), {3}, {0, 0, 0}, 0);
    check_values(e.sum(1), {0}, {}, 0);
    check_values(e.sum({0}, true), {1, 3}, {0, 0, 0}, 0);
    CHECK(empty({0}, dtype(kInt)).sum().dtype() == kLong);
    check_values(empty({2, 0}, dtype(kHalf)).sum(1), {2}, {0, 0}, 0);
  }
  SECTION("0-d") {
    const Tensor s = make({}, {2.5});
    check_values(s.sum(), {}, {2.5}, 0);
    check_values(s.sum(0), {}, {2.5}, 0);
    check_values(s.sum(-1, true), {}, {2.5}, 0);
    check_values(s.sum(IntArrayRef{}), {}, {2.5}, 0);
    CHECK_THROWS_AS(s.sum(1), IndexError);
    CHECK_THROWS_WITH(s.sum(1),
                      "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
  }
}

TEST_CASE("reduce: dim list errors", "[ops][reduce]") {
  const Tensor x = ones({2, 3});
  CHECK_THROWS_AS(x.sum(2), IndexError);
  CHECK_THROWS_WITH(x.sum(2),
                    "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  CHECK_THROWS_WITH(x.sum({0, -3}),
                    "Dimension out of range (expected to be in range of [-2, 1], but got -3)");
  CHECK_THROWS_WITH(x.sum({1, 1}), "dim 1 appears multiple times in the list of dims");
  CHECK_THROWS_WITH(x.sum({1, -1}), "dim 1 appears multiple times in the list of dims");
  CHECK_THROWS_WITH(x.mean({0, 0}), "dim 0 appears multiple times in the list of dims");
  CHECK_THROWS_WITH(x.amax({0, -2}), "dim 0 appears multiple times in the list of dims");
  CHECK_THROWS_AS(x.prod(5), IndexError);
  CHECK_THROWS_AS(x.amax(5), IndexError);
  CHECK_THROWS_AS(x.var(IntArrayRef{3}), IndexError);
  CHECK_THROWS_AS(x.norm(2, {3}), IndexError);
  CHECK_THROWS_AS(x.all(2), IndexError);
  CHECK_THROWS_AS(x.logsumexp({2}), IndexError);
  CHECK_THROWS_AS(x.max(2), IndexError);
  CHECK_THROWS_AS(x.argmax(2), IndexError);
  CHECK_THROWS_AS(x.cumsum(2), IndexError);
  CHECK_THROWS_AS(x.cumprod(-3), IndexError);
  CHECK_THROWS_WITH(tensorplay::sum(Tensor()), Catch::Contains("undefined"));
  Tensor undefined_out;
  CHECK_THROWS_WITH(sum_out(undefined_out, x, {1}), "sum_out(): the tensor is undefined");
  // PyTorch's dim masks stop at 64 dimensions.
  const Tensor deep = ones(S(65, 1));
  CHECK_THROWS_WITH(deep.sum(), "only tensors with up to 64 dims are supported");
  CHECK_THROWS_WITH(deep.amax({0}), "only tensors with up to 64 dims are supported");
  CHECK(ones(S(64, 1)).sum({63}).dim() == 63);
}

// ---- numerics and threads -------------------------------------------------------------------

TEST_CASE("reduce: summing 10^7 floats is exact for ones and within 1e-6 for 0.1f",
          "[ops][reduce]") {
  const int64_t n = 10000000;
  const Tensor o = ones({n});
  CHECK(o.sum().item<float>() == 1e7f);
  CHECK(o.mean().item<float>() == 1.0f);
  const double tenth = double(0.1f);
  const Tensor t = full({n}, 0.1f);
  const double got = t.sum().item<double>();
  CHECK(std::fabs(got - tenth * double(n)) <= 1e-6 * tenth * double(n));
  // The same through the column cascade (an outer reduction) and through strided rows.
  const Tensor cols = full({n / 10, 10}, 0.1f);
  for (double v : values(cols.sum(0))) CHECK(std::fabs(v - tenth * 1e6) <= 1e-6 * tenth * 1e6);
  const Tensor strided = full({2 * n}, 0.1f).slice(0, 0, std::nullopt, 2);
  CHECK(std::fabs(strided.sum().item<double>() - tenth * double(n)) <= 1e-6 * tenth * double(n));
  CHECK(ones({n / 100, 100}).t().sum().item<float>() == 1e7f);
}

TEST_CASE("reduce: a non-contiguous input gives the contiguous result", "[ops][reduce]") {
  // Integer-valued floats: every order of summation is exact, so the results are equal.
  const V vals = small_ints(300 * 200, 3);
  const Tensor c = make({300, 200}, vals);
  const Tensor t = with_layout({300, 200}, vals, kFloat, Layout::Permuted);
  const Tensor s = with_layout({300, 200}, vals, kFloat, Layout::Sliced);
  for (const Tensor& x : {t, s}) {
    CHECK(bitwise_equal(x.sum(), c.sum()));
    CHECK(bitwise_equal(x.sum(0), c.sum(0)));
    CHECK(bitwise_equal(x.sum(1), c.sum(1)));
  }
  // Random values: equal to rounding.
  const V r = random_values(300 * 200, 4);
  const Tensor rc = make({300, 200}, r), rt = with_layout({300, 200}, r, kFloat, Layout::Permuted);
  CHECK(close(rt.sum().item<double>(), rc.sum().item<double>(), 1e-5, 1e-4));
  check_values(rt.sum(0), {200}, values(rc.sum(0)), 1e-5, 1e-5);
}

TEST_CASE("reduce: results are deterministic for a thread count and split-independent per output",
          "[ops][reduce]") {
  const Tensor x = make({1000, 1000}, random_values(1000000, 11));
  Tensor one_dim1, one_dim0, one_mean;
  {
    ThreadCount threads(1);
    one_dim1 = x.sum(1);
    one_dim0 = x.sum(0);
    one_mean = x.mean(1);
  }
  ThreadCount threads(2);
  const Tensor full1 = x.sum(), tfull1 = x.t().sum();
  const Tensor v1 = x.var(), n1 = x.norm();
  for (int rep = 0; rep < 5; ++rep) {
    CHECK(bitwise_equal(x.sum(), full1));
    CHECK(bitwise_equal(x.t().sum(), tfull1));
    CHECK(bitwise_equal(x.var(), v1));
    CHECK(bitwise_equal(x.norm(), n1));
    // Partial reductions: one thread per output element, identical for 1 and 2 threads.
    CHECK(bitwise_equal(x.sum(1), one_dim1));
    CHECK(bitwise_equal(x.sum(0), one_dim0));
    CHECK(bitwise_equal(x.mean(1), one_mean));
  }
  CHECK(close(full1.item<double>(), ref_sum(values(x)), 1e-5, 1e-3));
}

// ---- mean -----------------------------------------------------------------------------------

TEST_CASE("reduce: mean matches the reference and follows the dtype rules", "[ops][reduce]") {
  const S sizes = {3, 4, 5};
  for (Layout layout : kLayouts) {
    const Tensor x = with_layout(sizes, random_values(60, 2), kDouble, layout);
    const V logical = values(x);
    for (const S& dims : kDimLists3) {
      for (bool keepdim : {false, true}) {
        const auto set = dim_set(dims, 3);
        V want;
        for (const V& g : groups(sizes, logical, set))
          want.push_back(ref_sum(g) / double(g.size()));
        check_values(x.mean(dims, keepdim), reduced_sizes(sizes, set, keepdim), want, 1e-12, 1e-14);
      }
    }
  }
  CHECK(make({4}, {1, 2, 3, 4}, kHalf).mean().dtype() == kHalf);
  CHECK(make({4}, {1, 2, 3, 4}, kHalf).mean().item<double>() == 2.5);
  CHECK(make({2, 2}, {1, 2, 3, 5}, kBFloat16).mean(1).dtype() == kBFloat16);
  CHECK(make({3}, {1, 2, 4}, kInt).mean(kFloat).item<double>() == Approx(7.0 / 3));
  CHECK(make({3}, {1, 2, 4}, kInt).mean({0}, true, kDouble).dtype() == kDouble);
  CHECK(std::isnan(empty({0}).mean().item<double>()));
  check_values(empty({2, 0}).mean(1), {2}, {kNaN, kNaN}, 0);
  check_values(make({}, {3.0}).mean(0), {}, {3.0}, 0);
}

TEST_CASE("reduce: mean errors", "[ops][reduce]") {
  CHECK_THROWS_WITH(make({2}, {1, 2}, kLong).mean(),
                    "mean(): could not infer output dtype. Input dtype must be either a floating "
                    "point or complex dtype. Got: Long");
  CHECK_THROWS_WITH(make({2}, {1, 2}, kInt).mean(0),
                    "mean(): could not infer output dtype. Input dtype must be either a floating "
                    "point or complex dtype. Got: Int");
  CHECK_THROWS_WITH(make({2}, {1, 2}, kBool).mean(), Catch::Contains("Got: Bool"));
  CHECK_THROWS_WITH(make({2}, {1, 2}).mean(kLong),
                    "mean(): could not infer output dtype. Optional dtype must be either a "
                    "floating point or complex dtype. Got: Long");
  Tensor out = empty({2}, dtype(kDouble));
  CHECK_THROWS_WITH(mean_out(out, make({2, 2}, {1, 2, 3, 4}), {1}, false, kFloat),
                    "Expected out tensor to have dtype float, but got double instead");
  Tensor lout = empty({2}, dtype(kLong));
  CHECK_THROWS_WITH(mean_out(lout, make({2, 2}, {1, 2, 3, 4}), {1}),
                    "result type Float can't be cast to the desired output type Long");
  mean_out(out, make({2, 2}, {1, 2, 3, 4}), {1});
  CHECK(values(out) == V{1.5, 3.5});
}

// ---- prod -----------------------------------------------------------------------------------

TEST_CASE("reduce: prod over all and one dim", "[ops][reduce]") {
  const S sizes = {3, 4, 5};
  const V vals = random_values(60, 5, 0.5, 1.5);
  for (Layout layout : kLayouts) {
    const Tensor x = with_layout(sizes, vals, kDouble, layout);
    const V logical = values(x);
    check_values(x.prod(), {}, {ref_prod(logical)}, 1e-12);
    for (int64_t d : {0, 1, 2, -1}) {
      for (bool keepdim : {false, true}) {
        const std::set<int64_t> set = {d < 0 ? d + 3 : d};
        V want;
        for (const V& g : groups(sizes, logical, set)) want.push_back(ref_prod(g));
        check_values(x.prod(d, keepdim), reduced_sizes(sizes, set, keepdim), want, 1e-12);
      }
    }
  }
  const Tensor i = make({2, 3}, {1, 2, 3, 4, 5, 6}, kInt16);
  CHECK(i.prod().dtype() == kLong);
  CHECK(i.prod().item<int64_t>() == 720);
  CHECK(values(i.prod(1)) == V{6, 120});
  CHECK(make({3}, {1, 0, 1}, kBool).prod().item<int64_t>() == 0);
  CHECK(i.prod(kDouble).dtype() == kDouble);
  CHECK(empty({0}).prod().item<double>() == 1.0);
  check_values(empty({0, 2}).prod(0), {2}, {1, 1}, 0);
  CHECK(make({}, {3}).prod(0).item<double>() == 3.0);
  Tensor out = empty({0}, dtype(kDouble));
  prod_out(out, i, 0);
  CHECK(values(out) == V{4, 10, 18});
  CHECK_THROWS_WITH(prod_out(out, i, 0, false, kFloat),
                    "Expected out tensor to have dtype float, but got double instead");
}

// ---- max, min, amax, amin -------------------------------------------------------------------

TEST_CASE("reduce: amax and amin over dim lists and layouts", "[ops][reduce]") {
  const S sizes = {3, 4, 5};
  for (DType dt : {kFloat, kDouble, kInt32, kInt8, kUInt8, kInt64, kHalf, kBFloat16}) {
    const V vals = dt == kUInt8 ? small_ints(60, 9, 0, 100) : small_ints(60, 9, -50, 50);
    for (Layout layout : kLayouts) {
      const Tensor x = with_layout(sizes, vals, dt, layout);
      const V logical = values(x);
      for (const S& dims : kDimLists3) {
        for (bool keepdim : {false, true}) {
          const auto set = dim_set(dims, 3);
          V wmax, wmin;
          for (const V& g : groups(sizes, logical, set)) {
            wmax.push_back(ref_max(g));
            wmin.push_back(ref_min(g));
          }
          const Tensor a = x.amax(dims, keepdim), b = x.amin(dims, keepdim);
          CHECK(a.dtype() == dt);
          check_values(a, reduced_sizes(sizes, set, keepdim), wmax, 0);
          check_values(b, reduced_sizes(sizes, set, keepdim), wmin, 0);
        }
      }
    }
  }
  const Tensor b = make({2, 3}, {0, 1, 0, 0, 0, 0}, kBool);
  CHECK(b.amax().dtype() == kBool);
  CHECK(values(b.amax(1)) == V{1, 0});
  CHECK(values(b.amin(0)) == V{0, 0, 0});
  CHECK(make({}, {7}).amax().item<double>() == 7);
  CHECK(make({}, {7}).amin(0, true).item<double>() == 7);
}

TEST_CASE("reduce: max and min propagate NaN", "[ops][reduce]") {
  const Tensor x = make({2, 4}, {1, kNaN, 3, -kInf, kInf, 2, 0, -1});
  CHECK(std::isnan(x.max().item<double>()));
  CHECK(std::isnan(x.min().item<double>()));
  check_values(x.amax(1), {2}, {kNaN, kInf}, 0);
  check_values(x.amin(1), {2}, {kNaN, -1}, 0);
  check_values(x.amax(0), {4}, {kInf, kNaN, 3, -1}, 0);
  // NaN first, last, in the middle of a long row (lanes and tails).
  for (int64_t pos : {0, 1, 37, 512, 999}) {
    Tensor y = ones({1000});
    y.data_ptr<float>()[pos] = std::numeric_limits<float>::quiet_NaN();
    CHECK(std::isnan(y.amax().item<double>()));
    CHECK(std::isnan(y.amin().item<double>()));
    CHECK(std::isnan(y.view({10, 100}).amax(1)[pos / 100].item<double>()));
    CHECK(std::isnan(y.view({10, 100}).t().amax(0)[pos / 100].item<double>()));
  }
}

TEST_CASE("reduce: max() and min() of all elements", "[ops][reduce]") {
  const Tensor x = make({2, 3}, {3, -7, 2, 9, 0, -1}, kInt);
  CHECK(x.max().dtype() == kInt);
  CHECK(x.max().item<int64_t>() == 9);
  CHECK(x.min().item<int64_t>() == -7);
  CHECK(tensorplay::max(x.t()).item<int64_t>() == 9);
  CHECK(x.max().dim() == 0);
  CHECK(make({3}, {0, 1, 0}, kBool).max().item<bool>());
  CHECK_FALSE(make({3}, {0, 1, 0}, kBool).min().item<bool>());
  CHECK_THROWS_WITH(empty({0}).max(),
                    "max(): Expected reduction dim to be specified for input.numel() == 0. Specify "
                    "the reduction dim with the 'dim' argument.");
  CHECK_THROWS_WITH(empty({2, 0}).min(), Catch::StartsWith("min(): Expected reduction dim"));
}

TEST_CASE("reduce: amax and amin errors", "[ops][reduce]") {
  const Tensor e = empty({0, 3});
  CHECK_THROWS_AS(e.amax(0), IndexError);
  CHECK_THROWS_WITH(e.amax(0), "amax(): Expected reduction dim 0 to have non-zero size.");
  CHECK_THROWS_WITH(e.amin(-2), "amin(): Expected reduction dim -2 to have non-zero size.");
  CHECK_THROWS_WITH(e.amax(),
                    "amax(): Expected reduction dim to be specified for input.numel() "
                    "== 0. Specify the reduction dim with the 'dim' argument.");
  check_values(e.amax(1), {0}, {}, 0);  // the empty dim is not reduced: fine
  Tensor out = empty({3}, dtype(kDouble));
  CHECK_THROWS_WITH(amax_out(out, ones({2, 3}), {0}),
                    "Expected the dtype for input and out to match, but got Float for input's "
                    "dtype and Double for out's dtype.");
  Tensor fout = empty({7}, dtype(kFloat));
  const int64_t v0 = fout._version();
  amin_out(fout, make({2, 3}, {1, 5, 3, 4, 2, 6}), {0});
  CHECK(values(fout) == V{1, 2, 3});
  CHECK(fout._version() > v0);
}

TEST_CASE("reduce: max(dim) and min(dim) give values and first indices", "[ops][reduce]") {
  const S sizes = {3, 4, 5};
  for (DType dt : {kFloat, kDouble, kInt32, kUInt8, kHalf, kBool}) {
    // Few distinct values: plenty of ties, which must resolve to the first index.
    const V vals = dt == kBool ? small_ints(60, 13, 0, 2) : small_ints(60, 13, 0, 4);
    for (Layout layout : kLayouts) {
      const Tensor x = with_layout(sizes, vals, dt, layout);
      const V logical = values(x);
      for (int64_t d : {0, 1, 2, -1}) {
        for (bool keepdim : {false, true}) {
          const int64_t wd = d < 0 ? d + 3 : d;
          const std::set<int64_t> set = {wd};
          V wmax, wmin, imax, imin;
          for (const V& g : groups(sizes, logical, set)) {
            const auto mx = std::max_element(g.begin(), g.end());
            const auto mn = std::min_element(g.begin(), g.end());
            wmax.push_back(*mx);
            wmin.push_back(*mn);
            imax.push_back(double(mx - g.begin()));
            imin.push_back(double(mn - g.begin()));
          }
          INFO("dtype " << dt << " layout " << int(layout) << " dim " << d);
          const auto [mv, mi] = x.max(d, keepdim);
          const auto [nv, ni] = tensorplay::min(x, d, keepdim);
          const S shape = reduced_sizes(sizes, set, keepdim);
          CHECK(mv.dtype() == dt);
          CHECK(mi.dtype() == kLong);
          check_values(mv, shape, wmax, 0);
          check_values(mi, shape, imax, 0);
          check_values(nv, shape, wmin, 0);
          check_values(ni, shape, imin, 0);
          // argmax/argmin agree with the indices (bool has no argmax in PyTorch).
          if (dt != kBool) {
            check_values(x.argmax(d, keepdim), shape, imax, 0);
            check_values(x.argmin(d, keepdim), shape, imin, 0);
          }
        }
      }
    }
  }
}

TEST_CASE("reduce: max(dim) picks the first NaN and handles long lines", "[ops][reduce]") {
  const Tensor x = make({2, 5}, {1, kNaN, 3, kNaN, 9, -kInf, -kInf, -5, -kInf, -5});
  const auto [v, i] = x.max(1);
  check_values(v, {2}, {kNaN, -5}, 0);
  check_values(i, {2}, {1, 2}, 0);
  const auto [w, j] = x.min(1);
  check_values(w, {2}, {kNaN, -kInf}, 0);
  check_values(j, {2}, {1, 0}, 0);
  check_values(x.argmax(1), {2}, {1, 2}, 0);
  check_values(x.t().argmax(0), {2}, {1, 2}, 0);
  check_values(x.t().argmin(0), {2}, {1, 0}, 0);
  // A long row: the maximum's last occurrence is not the one reported.
  V long_row = small_ints(5000, 17, 0, 50);
  long_row[1234] = 100;
  long_row[4321] = 100;
  const Tensor lr = make({5000}, long_row);
  CHECK(std::get<1>(lr.max(0)).item<int64_t>() == 1234);
  CHECK(lr.argmax().item<int64_t>() == 1234);
  CHECK(make({2, 5000},
             [&] {
               V v = long_row;
               v.insert(v.end(), long_row.begin(), long_row.end());
               return v;
             }())
            .argmax(1)[1]
            .item<int64_t>() == 1234);
}

TEST_CASE("reduce: argmax of long contiguous lines with ties and NaN", "[ops][reduce]") {
  // Lines long enough for the lane scan, with few distinct values (ties across lanes) and, in
  // some rows, NaNs; the reference is the first best element.
  for (int64_t len : {31, 32, 33, 47, 100, 1000}) {
    for (DType dt : {kFloat, kDouble, kInt32, kHalf}) {
      const int64_t rows = 6;
      V vals = small_ints(rows * len, uint64_t(len), 0, 5);
      if (dt != kInt32) {
        vals[2 * len + len / 2] = kNaN;  // row 2: one NaN
        vals[3 * len + len - 1] = kNaN;  // row 3: NaN last, and earlier
        vals[3 * len + 17] = kNaN;
        vals[4 * len] = kNaN;  // row 4: NaN first
      }
      const Tensor x = make({rows, len}, vals, dt);
      V imax, imin;
      for (int64_t r = 0; r < rows; ++r) {
        int64_t bmax = 0, bmin = 0;
        for (int64_t k = 0; k < len; ++k) {
          const double v = vals[r * len + k];
          const double cmax = vals[r * len + bmax], cmin = vals[r * len + bmin];
          if (!std::isnan(cmax) && (v > cmax || std::isnan(v))) bmax = k;
          if (!std::isnan(cmin) && (v < cmin || std::isnan(v))) bmin = k;
        }
        imax.push_back(double(bmax));
        imin.push_back(double(bmin));
      }
      INFO("len " << len << " dtype " << dt);
      check_values(x.argmax(1), {rows}, imax, 0);
      check_values(x.argmin(1), {rows}, imin, 0);
      check_values(std::get<1>(x.max(1)), {rows}, imax, 0);
      check_values(std::get<1>(x.min(-1, true)), {rows, 1}, imin, 0);
      check_values(x.t().argmax(0), {rows}, imax, 0);
    }
  }
}

TEST_CASE("reduce: max(dim) on 0-d and empty inputs, and its errors", "[ops][reduce]") {
  const Tensor s = make({}, {4});
  const auto [v, i] = s.max(0);
  CHECK(v.dim() == 0);
  CHECK(v.item<double>() == 4);
  CHECK(i.item<int64_t>() == 0);
  CHECK(std::get<0>(s.min(-1, true)).dim() == 0);
  const auto [ev, ei] = empty({0, 3}).max(1);
  CHECK(ev.sizes() == IntArrayRef({0}));
  CHECK(ei.sizes() == IntArrayRef({0}));
  CHECK_THROWS_AS(empty({0, 3}).max(0), IndexError);
  CHECK_THROWS_WITH(empty({0, 3}).max(0), "max(): Expected reduction dim 0 to have non-zero size.");
  CHECK_THROWS_WITH(empty({3, 0}).min(-1),
                    "min(): Expected reduction dim 1 to have non-zero size.");
  CHECK_THROWS_AS(s.max(1), IndexError);
}

TEST_CASE("reduce: max_out and min_out", "[ops][reduce]") {
  const Tensor x = make({2, 3}, {1, 5, 3, 4, 2, 6});
  Tensor v = empty({0}), i = empty({0}, dtype(kLong));
  const int64_t v0 = v._version();
  const auto r = max_out(v, i, x, 1);
  CHECK(&std::get<0>(r) == &v);
  CHECK(values(v) == V{5, 6});
  CHECK(values(i) == V{1, 2});
  CHECK(v._version() > v0);
  min_out(v, i, x, 0, true);
  CHECK(v.sizes() == IntArrayRef({1, 3}));
  CHECK(values(i) == V{0, 1, 0});
  Tensor bad_i = empty({2}, dtype(kFloat));
  CHECK_THROWS_WITH(max_out(v, bad_i, x, 1),
                    "Expected out tensor to have dtype long int, but got float instead");
  Tensor bad_v = empty({2}, dtype(kDouble));
  CHECK_THROWS_WITH(max_out(bad_v, i, x, 1),
                    "Expected out tensor to have dtype float, but got double instead");
}

TEST_CASE("reduce: argmax and argmin over all elements", "[ops][reduce]") {
  const Tensor x = make({2, 3}, {3, 9, 2, 9, -4, -4}, kInt16);
  CHECK(x.argmax().dtype() == kLong);
  CHECK(x.argmax().dim() == 0);
  CHECK(x.argmax().item<int64_t>() == 1);
  CHECK(x.argmin().item<int64_t>() == 4);
  // Flattened in the logical order of the transpose: 3, 9, 9, -4, 2, -4.
  CHECK(x.t().argmax().item<int64_t>() == 1);
  CHECK(x.t().argmin().item<int64_t>() == 3);
  CHECK(x.argmax(std::nullopt, true).sizes() == IntArrayRef({1, 1}));
  CHECK(make({}, {5}).argmax().item<int64_t>() == 0);
  CHECK(make({}, {5}).argmin(0).item<int64_t>() == 0);
  CHECK(make({4}, {1, kNaN, 7, kNaN}).argmax().item<int64_t>() == 1);
  CHECK(make({4}, {1, kNaN, 7, kNaN}, kHalf).argmin().item<int64_t>() == 1);
  Tensor out = empty({0}, dtype(kLong));
  argmax_out(out, x, 0);
  CHECK(values(out) == V{1, 0, 0});
  argmin_out(out, x, 1, true);
  CHECK(values(out) == V{2, 1});
  Tensor bad = empty({0}, dtype(kInt));
  CHECK_THROWS_WITH(argmax_out(bad, x, 0),
                    "Expected out tensor to have dtype long int, but got int instead");
}

TEST_CASE("reduce: argmax and argmin errors", "[ops][reduce]") {
  CHECK_THROWS_AS(empty({0}).argmax(), IndexError);
  CHECK_THROWS_WITH(empty({0}).argmax(),
                    "argmax(): Expected reduction dim to be specified for input.numel() == 0.");
  CHECK_THROWS_WITH(empty({2, 0}).argmin(1),
                    "argmin(): Expected reduction dim 1 to have non-zero size.");
  check_values(empty({2, 0}).argmin(0), {0}, {}, 0);
  CHECK_THROWS_AS(make({2}, {0, 1}, kBool).argmax(), NotImplementedError);
  CHECK_THROWS_WITH(make({2}, {0, 1}, kBool).argmax(), "\"argmax_cpu\" not implemented for 'Bool'");
  CHECK_THROWS_WITH(make({2}, {0, 1}, kBool).argmin(0),
                    "\"argmin_cpu\" not implemented for 'Bool'");
  CHECK_THROWS_WITH(make({1}, {1}, kBool).argmax(), "\"argmax_cpu\" not implemented for 'Bool'");
  CHECK_THROWS_WITH(make({}, {1}, kBool).argmax(0), "\"argmax_cpu\" not implemented for 'Bool'");
  CHECK_THROWS_WITH(make({3, 1}, {1, 0, 1}, kBool).argmax(0),
                    "\"argmax_cpu\" not implemented for 'Bool'");
}

TEST_CASE("reduce: argmax and argmin of Bool where PyTorch needs no kernel", "[ops][reduce]") {
  // PyTorch 1.13 has no Bool kernel but answers without one along a dim of size 1 (zeros) and
  // for an empty input (an empty result).
  const Tensor b = make({3, 1}, {1, 0, 1}, kBool);
  const Tensor r = b.argmax(1);
  CHECK(r.dtype() == kLong);
  check_values(r, {3}, {0, 0, 0}, 0);
  const Tensor k = b.argmin(-1, true);
  check_values(k, {3, 1}, {0, 0, 0}, 0);
  CHECK(k.strides() == IntArrayRef({1, 1}));
  const Tensor e = empty({2, 0}, dtype(kBool)).argmax(0);
  CHECK(e.dtype() == kLong);
  check_values(e, {0}, {}, 0);
  check_values(empty({0, 3}, dtype(kBool)).argmin(1, true), {0, 1}, {}, 0);
  CHECK_THROWS_WITH(empty({2, 0}, dtype(kBool)).argmax(1),
                    "argmax(): Expected reduction dim 1 to have non-zero size.");
}

// ---- var, std -------------------------------------------------------------------------------

TEST_CASE("reduce: var and std with correction match the reference", "[ops][reduce]") {
  const S sizes = {3, 4, 5};
  for (DType dt : {kFloat, kDouble}) {
    for (Layout layout : kLayouts) {
      // An offset far from zero: the two-pass algorithm must not cancel catastrophically.
      const Tensor x = with_layout(sizes, random_values(60, 21, 1000, 1001), dt, layout);
      const V logical = values(x);
      for (const S& dims : kDimLists3) {
        for (int64_t correction : {0, 1, 2}) {
          for (bool keepdim : {false, true}) {
            const auto set = dim_set(dims, 3);
            V wvar, wstd;
            for (const V& g : groups(sizes, logical, set)) {
              wvar.push_back(ref_var(g, double(correction)));
              wstd.push_back(std::sqrt(ref_var(g, double(correction))));
            }
            INFO("dtype " << dt << " layout " << int(layout) << " dims " << IntArrayRef(dims)
                          << " correction " << correction);
            const S shape = reduced_sizes(sizes, set, keepdim);
            const double tol = dt == kFloat ? 1e-5 : 1e-9;
            check_values(x.var(dims, std::optional<int64_t>(correction), keepdim), shape, wvar,
                         tol);
            check_values(tensorplay::std(x, dims, std::optional<int64_t>(correction), keepdim),
                         shape, wstd, tol);
            if (correction < 2) {
              check_values(x.var(dims, correction == 1, keepdim), shape, wvar, tol);
              check_values(x.std(dims, correction == 1, keepdim), shape, wstd, tol);
            }
          }
        }
      }
    }
  }
  const Tensor y = make({4}, {1, 2, 3, 4});
  CHECK(y.var().item<double>() == Approx(5.0 / 3));
  CHECK(y.var(false).item<double>() == Approx(1.25));
  CHECK(y.std().item<double>() == Approx(std::sqrt(5.0 / 3)));
  CHECK(tensorplay::var(y, {0}, std::optional<int64_t>(3)).item<double>() == Approx(5.0));
  CHECK(tensorplay::var(y, {0}, std::optional<int64_t>()).item<double>() == Approx(5.0 / 3));
  CHECK(make({4}, {1, 2, 3, 4}, kHalf).var().dtype() == kHalf);
  // Beware libtorch's overloads: t.std(0) is std(unbiased=false), t.std(IntArrayRef{0}) a dim.
  CHECK(make({4}, {1, 2, 3, 4}, kBFloat16).std(IntArrayRef{0}).item<double>() ==
        Approx(1.291).epsilon(0.01));
  CHECK(make({4}, {1, 2, 3, 4}).std(0).item<double>() == Approx(std::sqrt(1.25)));
}

TEST_CASE("reduce: var with correction at or beyond N, and empty or 0-d inputs", "[ops][reduce]") {
  const Tensor y = make({3}, {1, 2, 4});
  CHECK(std::isinf(tensorplay::var(y, {0}, std::optional<int64_t>(3)).item<double>()));
  CHECK(std::isinf(tensorplay::var(y, {0}, std::optional<int64_t>(5)).item<double>()));
  CHECK(std::isnan(make({}, {2}).var().item<double>()));  // 0 / 0
  CHECK(make({}, {2}).var(false).item<double>() == 0);
  CHECK(std::isnan(make({3}, {5, 5, 5}).var({0}, std::optional<int64_t>(3)).item<double>()));
  CHECK(make({3}, {5, 5, 5}).var().item<double>() == 0);
  CHECK(std::isnan(empty({0}).var().item<double>()));
  check_values(empty({2, 0}).std(IntArrayRef{1}), {2}, {kNaN, kNaN}, 0);
  check_values(empty({0, 2}).var(IntArrayRef{1}), {0}, {}, 0);
}

TEST_CASE("reduce: var_mean, std_mean, var_out and the var errors", "[ops][reduce]") {
  const Tensor x = make({2, 3}, {1, 2, 6, 4, 4, 4}, kDouble);
  const auto [v, m] = var_mean(x, IntArrayRef{1});
  check_values(v, {2}, {7, 0}, 1e-12);
  check_values(m, {2}, {3, 4}, 1e-12);
  const auto [s, m2] = std_mean(x, {1}, std::optional<int64_t>(0), true);
  check_values(s, {2, 1}, {std::sqrt(14.0 / 3), 0}, 1e-12);
  check_values(m2, {2, 1}, {3, 4}, 1e-12);
  const auto [va, ma] = var_mean(x);
  CHECK(ma.item<double>() == Approx(21.0 / 6));
  CHECK(va.dim() == 0);
  Tensor out = empty({0}, dtype(kDouble));
  var_out(out, make({2, 3}, {1, 2, 6, 4, 4, 4}), {1});
  CHECK(values(out) == V{7, 0});
  std_out(out, x, {0}, std::optional<int64_t>(0));
  check_values(out, {3}, {1.5, 1, 1}, 1e-12);
  Tensor lout = empty({2}, dtype(kLong));
  CHECK_THROWS_WITH(var_out(lout, x, {1}),
                    "result type Double can't be cast to the desired output type Long");
  CHECK_THROWS_WITH(make({2}, {1, 2}, kLong).var(),
                    "std and var only support floating point and complex dtypes");
  CHECK_THROWS_WITH(make({2}, {1, 2}, kInt).std(0, true), Catch::Contains("floating point"));
  CHECK_THROWS_WITH(var_mean(make({2}, {1, 2}, kBool)), Catch::Contains("floating point"));
}

// ---- norm -----------------------------------------------------------------------------------

TEST_CASE("reduce: norm for every kind of p", "[ops][reduce]") {
  const S sizes = {3, 4, 5};
  auto ref_norm = [](const V& g, double p) {
    if (p == 0) {
      double c = 0;
      for (double x : g) c += x != 0;
      return c;
    }
    if (std::isinf(p)) {
      double m = p > 0 ? 0 : kInf;
      for (double x : g) m = p > 0 ? std::max(m, std::fabs(x)) : std::min(m, std::fabs(x));
      return m;
    }
    double s = 0;
    for (double x : g) s += std::pow(std::fabs(x), p);
    return std::pow(s, 1 / p);
  };
  V vals = random_values(60, 31, -2, 2);
  vals[7] = 0;
  vals[23] = 0;
  for (DType dt : {kFloat, kDouble}) {
    for (Layout layout : kLayouts) {
      const Tensor x = with_layout(sizes, vals, dt, layout);
      const V logical = values(x);
      for (double p : {2.0, 1.0, 0.0, 3.0, 0.5, kInf, -kInf, -1.5}) {
        for (const S& dims : std::vector<S>{{}, {0}, {2}, {0, 2}, {-1, 1}}) {
          for (bool keepdim : {false, true}) {
            const auto set = dim_set(dims, 3);
            V want;
            for (const V& g : groups(sizes, logical, set)) want.push_back(ref_norm(g, p));
            INFO("p " << p << " dims " << IntArrayRef(dims) << " layout " << int(layout));
            check_values(x.norm(p, dims, keepdim), reduced_sizes(sizes, set, keepdim), want,
                         dt == kFloat ? 2e-5 : 1e-12);
          }
        }
        check_values(x.norm(p), {}, {ref_norm(logical, p)}, dt == kFloat ? 2e-5 : 1e-12);
      }
    }
  }
  const Tensor y = make({2, 2}, {3, 4, 0, 0});
  CHECK(y.norm().item<double>() == 5);
  CHECK(tensorplay::norm(y, 1).item<double>() == 7);
  CHECK(y.norm(std::nullopt, {1}).sizes() == IntArrayRef({2}));
  CHECK(values(y.norm(std::nullopt, {1})) == V{5, 0});
  CHECK(y.norm(2, kDouble).dtype() == kDouble);
  CHECK(y.norm(2, {0}, true, kDouble).sizes() == IntArrayRef({1, 2}));
  const Tensor h = make({2}, {3, 4}, kHalf);
  CHECK(h.norm().dtype() == kHalf);
  CHECK(h.norm().item<double>() == 5);
  CHECK(empty({0}).norm().item<double>() == 0);
  CHECK(empty({0, 3}).norm(1, {0}).sizes() == IntArrayRef({3}));
  Tensor out = empty({0});
  norm_out(out, y, 2, {0});
  check_values(out, {2}, {3, 4}, 1e-7);
}

TEST_CASE("reduce: norm errors", "[ops][reduce]") {
  CHECK_THROWS_WITH(make({2}, {3, 4}, kLong).norm(),
                    "norm(): input dtype should be either floating point or complex. Got Long "
                    "instead.");
  CHECK_THROWS_WITH(make({2}, {3, 4}).norm(2, kInt),
                    Catch::Contains("the desired output dtype should be either floating point"));
  CHECK_THROWS_WITH(empty({0}).norm(kInf),
                    Catch::Contains("cannot compute the inf norm on an empty tensor"));
  CHECK_THROWS_WITH(empty({2, 0}).norm(-1, {1}),
                    Catch::Contains("norm on an empty tensor because the operation does not have "
                                    "an identity"));
  check_values(empty({0, 2}).norm(kInf, {1}), {0}, {}, 0);  // nothing to reduce: fine
  Tensor out = empty({2}, dtype(kDouble));
  CHECK_THROWS_WITH(norm_out(out, ones({2, 2}), 2, {0}, false, kFloat),
                    "Expected out tensor to have dtype float, but got double instead");
}

// ---- all, any -------------------------------------------------------------------------------

TEST_CASE("reduce: all and any over everything and one dim", "[ops][reduce]") {
  const S sizes = {3, 4, 5};
  for (DType dt : {kBool, kFloat, kInt32, kUInt8, kHalf, kDouble}) {
    // Mostly nonzero, so that `all` is sometimes true along a dim.
    V vals = small_ints(60, 41, 1, 4);
    for (int64_t k : {3, 17, 18, 44}) vals[k] = 0;
    if (dt == kBool)
      for (auto& v : vals) v = v != 0;
    for (Layout layout : kLayouts) {
      const Tensor x = with_layout(sizes, vals, dt, layout);
      const V logical = values(x);
      const DType rd = dt == kUInt8 ? kUInt8 : kBool;
      auto all_of = [](const V& g) {
        return double(std::all_of(g.begin(), g.end(), [](double v) { return v != 0; }));
      };
      auto any_of = [](const V& g) {
        return double(std::any_of(g.begin(), g.end(), [](double v) { return v != 0; }));
      };
      CHECK(x.all().dtype() == rd);
      CHECK(x.all().item<double>() == all_of(logical));
      CHECK(x.any().item<double>() == any_of(logical));
      for (int64_t d : {0, 1, 2, -1}) {
        for (bool keepdim : {false, true}) {
          const std::set<int64_t> set = {d < 0 ? d + 3 : d};
          V wall, wany;
          for (const V& g : groups(sizes, logical, set)) {
            wall.push_back(all_of(g));
            wany.push_back(any_of(g));
          }
          const Tensor a = x.all(d, keepdim);
          CHECK(a.dtype() == rd);
          check_values(a, reduced_sizes(sizes, set, keepdim), wall, 0);
          check_values(tensorplay::any(x, d, keepdim), reduced_sizes(sizes, set, keepdim), wany, 0);
        }
      }
    }
  }
  CHECK(make({2}, {kNaN, 1}).all().item<bool>());  // NaN is true
  CHECK(empty({0}).all().item<bool>());
  CHECK_FALSE(empty({0}).any().item<bool>());
  check_values(empty({2, 0}).all(1), {2}, {1, 1}, 0);
  check_values(empty({2, 0}).any(1), {2}, {0, 0}, 0);
  CHECK(make({}, {0}).all(0).dim() == 0);
}

TEST_CASE("reduce: all_out and any_out", "[ops][reduce]") {
  const Tensor x = make({2, 2}, {1, 0, 1, 1});
  Tensor out = empty({0}, dtype(kBool));
  all_out(out, x, 1);
  CHECK(values(out) == V{0, 1});
  Tensor bout = empty({0}, dtype(kByte));
  any_out(bout, x, 0);
  CHECK(bout.dtype() == kByte);
  CHECK(values(bout) == V{1, 1});
  Tensor bad = empty({2}, dtype(kFloat));
  CHECK_THROWS_WITH(all_out(bad, x, 1), "all only supports bool tensor for result, got: Float");
  CHECK_THROWS_WITH(any_out(bad, x, 1), "any only supports bool tensor for result, got: Float");
}

// ---- logsumexp ------------------------------------------------------------------------------

TEST_CASE("reduce: logsumexp is stable and matches the reference", "[ops][reduce]") {
  const S sizes = {3, 4, 5};
  auto ref_lse = [](const V& g) {
    const double m = ref_max(g);
    if (std::isnan(m)) return kNaN;
    if (std::isinf(m)) return m;
    double s = 0;
    for (double x : g) s += std::exp(x - m);
    return m + std::log(s);
  };
  for (DType dt : {kFloat, kDouble}) {
    for (Layout layout : kLayouts) {
      // Values up to 1000: exp would overflow without the shift.
      const Tensor x = with_layout(sizes, random_values(60, 51, -1000, 1000), dt, layout);
      const V logical = values(x);
      for (const S& dims : kDimLists3) {
        for (bool keepdim : {false, true}) {
          const auto set = dim_set(dims, 3);
          V want;
          for (const V& g : groups(sizes, logical, set)) want.push_back(ref_lse(g));
          check_values(x.logsumexp(dims, keepdim), reduced_sizes(sizes, set, keepdim), want,
                       dt == kFloat ? 1e-6 : 1e-12);
        }
      }
    }
  }
  const Tensor special =
      make({4, 3}, {-kInf, -kInf, -kInf, kInf, 1, 2, kInf, -kInf, 0, kNaN, 1, 2});
  check_values(special.logsumexp({1}), {4}, {-kInf, kInf, kInf, kNaN}, 0);
  const Tensor i = make({3}, {0, 1, 2}, kLong);
  CHECK(i.logsumexp({0}).dtype() == kFloat);
  CHECK(i.logsumexp({0}).item<double>() == Approx(std::log(1 + std::exp(1.0) + std::exp(2.0))));
  CHECK(make({2}, {0, 0}, kHalf).logsumexp({0}).dtype() == kHalf);
  CHECK(make({2}, {0, 0}, kBool).logsumexp({0}).dtype() == kFloat);
  CHECK(empty({0}).logsumexp({0}).item<double>() == -kInf);
  check_values(empty({2, 0}).logsumexp({1}), {2}, {-kInf, -kInf}, 0);
  CHECK(make({}, {3}).logsumexp({0}).item<double>() == 3);
  Tensor out = empty({0}, dtype(kDouble));
  logsumexp_out(out, make({2, 2}, {0, 0, 1, 1}), {1});
  check_values(out, {2}, {std::log(2.0), 1 + std::log(2.0)}, 1e-7);
  Tensor lout = empty({0}, dtype(kLong));
  CHECK_THROWS_WITH(logsumexp_out(lout, i, {0}),
                    "logsumexp(): Expected floating point type for result tensor, but got: Long");
}

// ---- cumsum, cumprod ------------------------------------------------------------------------

TEST_CASE("reduce: cumsum and cumprod along every dim and layout", "[ops][reduce]") {
  const S sizes = {3, 70, 5};
  const V vals = random_values(numel_of(sizes), 61, 0.9, 1.1);
  for (DType dt : {kFloat, kDouble}) {
    for (Layout layout : kLayouts) {
      const Tensor x = with_layout(sizes, vals, dt, layout);
      const V logical = values(x);
      for (int64_t d : {0, 1, 2, -1}) {
        const int64_t wd = d < 0 ? d + 3 : d;
        // Reference scan along wd in double.
        V wsum(logical.size()), wprod(logical.size());
        const int64_t inner = wd == 2 ? 1 : (wd == 1 ? 5 : 350);
        for (std::size_t n = 0; n < logical.size(); ++n) {
          const int64_t pos = (int64_t(n) / inner) % sizes[wd];
          wsum[n] = logical[n] + (pos > 0 ? wsum[n - inner] : 0);
          wprod[n] = logical[n] * (pos > 0 ? wprod[n - inner] : 1);
        }
        INFO("dtype " << dt << " layout " << int(layout) << " dim " << d);
        const Tensor cs = x.cumsum(d), cp = tensorplay::cumprod(x, d);
        CHECK(cs.dtype() == dt);
        check_values(cs, sizes, wsum, dt == kFloat ? 1e-6 : 1e-13);
        check_values(cp, sizes, wprod, dt == kFloat ? 1e-6 : 1e-13);
      }
    }
  }
}

TEST_CASE("reduce: cumsum and cumprod dtype rules, 0-d and empty inputs", "[ops][reduce]") {
  const Tensor i = make({4}, {1, 2, 3, 4}, kInt32);
  CHECK(i.cumsum(0).dtype() == kLong);
  CHECK(values(i.cumsum(0)) == V{1, 3, 6, 10});
  CHECK(values(i.cumprod(0)) == V{1, 2, 6, 24});
  CHECK(make({3}, {1, 1, 0}, kBool).cumsum(0).dtype() == kLong);
  CHECK(values(make({3}, {1, 1, 0}, kBool).cumsum(0)) == V{1, 2, 2});
  CHECK(i.cumsum(0, kDouble).dtype() == kDouble);
  CHECK(i.cumsum(0, kInt16).dtype() == kInt16);
  CHECK(values(make({3}, {0.5, 1.5, 2.7}).cumsum(0, kInt)) == V{0, 1, 3});
  const Tensor h = ones({3000}, dtype(kHalf));
  CHECK(h.cumsum(0).dtype() == kHalf);
  CHECK(h.cumsum(0)[2047].item<double>() == 2048);
  CHECK(make({2}, {1.5, 2}, kBFloat16).cumprod(0).dtype() == kBFloat16);
  CHECK(make({}, {3}).cumsum(0).dim() == 0);
  CHECK(make({}, {3}).cumprod(-1).item<double>() == 3);
  CHECK(empty({0, 2}).cumsum(0).sizes() == IntArrayRef({0, 2}));
  CHECK(empty({2, 0}, dtype(kInt)).cumprod(1).dtype() == kLong);
}

TEST_CASE("reduce: cumsum_, cumprod_ and the out= forms", "[ops][reduce]") {
  Tensor x = make({2, 3}, {1, 2, 3, 4, 5, 6});
  const int64_t v0 = x._version();
  const Tensor& r = x.cumsum_(1);
  CHECK(&r == &x);
  CHECK(values(x) == V{1, 3, 6, 4, 9, 15});
  CHECK(x._version() > v0);
  x.t().cumsum_(1);  // in place through a transposed view: along the original dim 0
  CHECK(values(x) == V{1, 3, 6, 5, 12, 21});
  Tensor i = make({3}, {5, 6, 7}, kInt32);
  i.cumprod_(0);
  CHECK(i.dtype() == kInt32);
  CHECK(values(i) == V{5, 30, 210});
  CHECK_THROWS_WITH(make({2}, {1, 2}).cumsum_(0, kDouble),
                    "Bad in-place call: input tensor dtype float and output tensor dtype double "
                    "should match");
  CHECK_THROWS_AS(make({2}, {1, 2}).cumsum_(1), IndexError);
  Tensor out = empty({0}, dtype(kDouble));
  cumsum_out(out, make({3}, {1, 2, 3}, kInt), 0);
  CHECK(values(out) == V{1, 3, 6});
  cumprod_out(out, make({3}, {1, 2, 3}), 0);
  CHECK(values(out) == V{1, 2, 6});
  CHECK_THROWS_WITH(cumsum_out(out, make({3}, {1, 2, 3}), 0, kFloat),
                    "Expected out tensor to have dtype float, but got double instead");
}

}  // namespace ops_reduce_test
