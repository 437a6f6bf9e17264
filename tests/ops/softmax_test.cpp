// softmax and log_softmax (ops/softmax.hpp): values against double-precision reference loops
// along every dim of contiguous, permuted, sliced and expanded inputs; stability for large and
// infinite inputs; the dtype rules (dtype=, Half, BFloat16, the integer error); 0-d and empty
// inputs; the out= forms; and every error path with PyTorch 1.13's message.
#include <tensorplay/ops/softmax.hpp>
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace ops_softmax_test {

using namespace tensorplay;

namespace {

using V = std::vector<double>;
using S = std::vector<int64_t>;

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

Tensor make(S sizes, const V& vals, DType dt = kFloat) {
  Tensor t = empty(sizes, dtype(dt));
  REQUIRE(t.numel() == int64_t(vals.size()));
  dispatch_dtype(dt, [&]<class T>() {
    T* p = static_cast<T*>(t.data_ptr());
    for (std::size_t i = 0; i < vals.size(); ++i) p[i] = static_cast<T>(vals[i]);
  });
  return t;
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

V random_values(int64_t n, uint64_t seed, double lo, double hi) {
  V v(n);
  uint64_t x = seed * 6364136223846793005ULL + 1442695040888963407ULL;
  for (auto& e : v) {
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    e = lo + (hi - lo) * double(x >> 11) / double(uint64_t(1) << 53);
  }
  return v;
}

enum class Layout { Contiguous, Permuted, Sliced, Expanded };

Tensor with_layout(const S& sizes, const V& vals, DType dt, Layout layout) {
  const int64_t nd = int64_t(sizes.size());
  switch (layout) {
    case Layout::Contiguous: return make(sizes, vals, dt);
    case Layout::Permuted: {
      S rev(sizes.rbegin(), sizes.rend()), perm(nd);
      for (int64_t d = 0; d < nd; ++d) perm[d] = nd - 1 - d;
      Tensor view = empty(rev, dtype(dt)).permute(perm);
      view.copy_(make(sizes, vals, dt));
      return view;
    }
    case Layout::Sliced: {
      S big = sizes;
      big.back() = 2 * big.back() + 1;
      Tensor view = zeros(big, dtype(dt)).slice(nd - 1, 1, std::nullopt, 2);
      view.copy_(make(sizes, vals, dt));
      return view;
    }
    case Layout::Expanded: {
      S one = sizes;
      one[0] = 1;
      int64_t n = 1;
      for (int64_t x : one) n *= x;
      return make(one, V(vals.begin(), vals.begin() + n), dt).expand(sizes);
    }
  }
  return Tensor();
}

// Softmax (or log_softmax) of the row-major `vals` of `sizes` along `dim`, in double.
V ref_softmax(const S& sizes, const V& vals, int64_t dim, bool log) {
  int64_t inner = 1;
  for (int64_t d = dim + 1; d < int64_t(sizes.size()); ++d) inner *= sizes[d];
  const int64_t len = sizes.empty() ? 1 : sizes[dim];
  V out(vals.size());
  for (std::size_t start = 0; start < vals.size(); ++start) {
    if ((int64_t(start) / inner) % len != 0) continue;  // not the first element of a line
    double mx = -kInf;
    bool nan = false;
    for (int64_t r = 0; r < len; ++r) {
      const double v = vals[start + r * inner];
      nan = nan || std::isnan(v);
      mx = std::max(mx, v);
    }
    double sum = 0;
    for (int64_t r = 0; r < len; ++r) sum += std::exp(vals[start + r * inner] - mx);
    for (int64_t r = 0; r < len; ++r) {
      const double d = vals[start + r * inner] - mx;
      out[start + r * inner] = nan ? kNaN : log ? d - std::log(sum) : std::exp(d) / sum;
    }
  }
  return out;
}

bool close(double a, double b, double rtol, double atol) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (std::isinf(a) || std::isinf(b)) return a == b;
  return std::fabs(a - b) <= atol + rtol * std::fabs(b);
}

void check_values(const Tensor& got, const S& shape, const V& want, double rtol, double atol) {
  REQUIRE(got.sizes() == IntArrayRef(shape));
  const V v = values(got);
  REQUIRE(v.size() == want.size());
  for (std::size_t i = 0; i < v.size(); ++i) {
    INFO("element " << i << ": got " << v[i] << ", want " << want[i]);
    CHECK(close(v[i], want[i], rtol, atol));
  }
}

}  // namespace

TEST_CASE("softmax: softmax and log_softmax match a double reference along every dim and layout",
          "[ops][softmax]") {
  // 70 lines side by side (more than a tile of 64) and lines longer than a tile.
  for (const S& sizes : std::vector<S>{{3, 4, 5}, {2, 70, 3}, {130, 3}}) {
    const int64_t nd = int64_t(sizes.size());
    int64_t n = 1;
    for (int64_t x : sizes) n *= x;
    const V vals = random_values(n, 3, -20, 20);
    for (DType dt : {kFloat, kDouble}) {
      for (Layout layout :
           {Layout::Contiguous, Layout::Permuted, Layout::Sliced, Layout::Expanded}) {
        const Tensor x = with_layout(sizes, vals, dt, layout);
        const V logical = values(x);
        for (int64_t dim = -nd; dim < nd; ++dim) {
          const int64_t d = dim < 0 ? dim + nd : dim;
          INFO("sizes " << IntArrayRef(sizes) << " dtype " << dt << " layout " << int(layout)
                        << " dim " << dim);
          const double rtol = dt == kFloat ? 1e-5 : 1e-12;
          const Tensor s = x.softmax(dim);
          CHECK(s.dtype() == dt);
          CHECK(s.is_contiguous());
          check_values(s, sizes, ref_softmax(sizes, logical, d, false), rtol, 1e-30);
          check_values(tensorplay::softmax(x, dim), sizes, ref_softmax(sizes, logical, d, false),
                       rtol, 1e-30);
          check_values(x.log_softmax(dim), sizes, ref_softmax(sizes, logical, d, true), rtol,
                       dt == kFloat ? 1e-5 : 1e-12);
          check_values(tensorplay::log_softmax(x, dim), sizes, ref_softmax(sizes, logical, d, true),
                       rtol, dt == kFloat ? 1e-5 : 1e-12);
        }
      }
    }
  }
}

TEST_CASE("softmax: rows sum to one", "[ops][softmax]") {
  const Tensor x = make({50, 300}, random_values(15000, 5, -5, 5));
  for (int64_t dim : {0, 1}) {
    const V sums = values(x.softmax(dim).sum(dim));
    for (double s : sums) CHECK(s == Approx(1.0).epsilon(1e-5));
    // exp of log_softmax, summed in double.
    const V ls = values(x.log_softmax(dim).contiguous());
    const int64_t rows = dim == 1 ? 50 : 300, len = dim == 1 ? 300 : 50;
    for (int64_t r = 0; r < rows; ++r) {
      double s = 0;
      for (int64_t k = 0; k < len; ++k) s += std::exp(ls[dim == 1 ? r * 300 + k : k * 300 + r]);
      CHECK(s == Approx(1.0).epsilon(1e-5));
    }
  }
}

TEST_CASE("softmax: stable for large and infinite inputs", "[ops][softmax]") {
  // exp(1000) overflows float and double: only the max shift makes this finite.
  const Tensor big = make({2, 3}, {1000, 1001, 1002, -1000, -1001, -1002});
  const V e = ref_softmax({2, 3}, {0, 1, 2, 2, 1, 0}, 1, false);
  check_values(big.softmax(1), {2, 3}, e, 1e-6, 0);
  check_values(big.log_softmax(1), {2, 3}, ref_softmax({2, 3}, {0, 1, 2, 2, 1, 0}, 1, true), 1e-6,
               0);
  // As PyTorch: -inf entries get 0 (log: -inf); a line holding +inf (inf - inf), only -inf
  // (0 / 0) or NaN is NaN throughout.
  const Tensor inf = make({4, 3}, {-kInf, 0, 0, kInf, 0, 1, -kInf, -kInf, -kInf, kNaN, 0, 1});
  check_values(inf.softmax(1), {4, 3},
               {0, 0.5, 0.5, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN}, 1e-7, 0);
  check_values(
      inf.log_softmax(1), {4, 3},
      {-kInf, -std::log(2.0), -std::log(2.0), kNaN, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN, kNaN},
      1e-7, 0);
  // The same along dim 0 (the side-by-side path).
  check_values(inf.t().contiguous().softmax(0), {3, 4},
               {0, kNaN, kNaN, kNaN, 0.5, kNaN, kNaN, kNaN, 0.5, kNaN, kNaN, kNaN}, 1e-7, 0);
  check_values(
      inf.t().contiguous().log_softmax(0), {3, 4},
      {-kInf, kNaN, kNaN, kNaN, -std::log(2.0), kNaN, kNaN, kNaN, -std::log(2.0), kNaN, kNaN, kNaN},
      1e-7, 0);
  // A log-probability far below exp's range stays finite in log_softmax.
  const Tensor wide = make({2}, {0, -200}, kFloat);
  CHECK(wide.log_softmax(0)[1].item<double>() == Approx(-200.0));
  CHECK(wide.softmax(0)[1].item<double>() == 0);
}

TEST_CASE("softmax: dtype rules", "[ops][softmax]") {
  const Tensor i = make({2, 2}, {1, 2, 3, 4}, kLong);
  SECTION("integer and bool inputs are refused with PyTorch's kernel name") {
    CHECK_THROWS_AS(i.softmax(1), NotImplementedError);
    CHECK_THROWS_WITH(i.softmax(1), "\"softmax_lastdim_kernel_impl\" not implemented for 'Long'");
    CHECK_THROWS_WITH(i.softmax(0), "\"softmax_kernel_impl\" not implemented for 'Long'");
    CHECK_THROWS_WITH(i.log_softmax(-1),
                      "\"log_softmax_lastdim_kernel_impl\" not implemented for 'Long'");
    CHECK_THROWS_WITH(make({2}, {1, 0}, kBool).log_softmax(0),
                      "\"log_softmax_lastdim_kernel_impl\" not implemented for 'Bool'");
    // PyTorch 1.13's log_softmax kernel for a dim that is not the last calls itself this.
    CHECK_THROWS_WITH(make({2, 2}, {1, 0, 1, 1}, kInt).log_softmax(0),
                      "\"softmax_kernel_impl\" not implemented for 'Int'");
    CHECK_THROWS_WITH(tensorplay::softmax(make({}, {1}, kByte), 0),
                      "\"softmax_lastdim_kernel_impl\" not implemented for 'Byte'");
  }
  SECTION("dtype= converts the input first") {
    const Tensor s = i.softmax(1, kFloat);
    CHECK(s.dtype() == kFloat);
    check_values(s, {2, 2}, ref_softmax({2, 2}, {1, 2, 3, 4}, 1, false), 1e-6, 0);
    const Tensor l = make({2, 2}, {1, 2, 3, 4}).log_softmax(0, kDouble);
    CHECK(l.dtype() == kDouble);
    check_values(l, {2, 2}, ref_softmax({2, 2}, {1, 2, 3, 4}, 0, true), 1e-7, 0);
    CHECK_THROWS_WITH(make({2}, {1, 2}).softmax(0, kInt),
                      "\"softmax_lastdim_kernel_impl\" not implemented for 'Int'");
  }
  SECTION("Half and BFloat16 compute in float and round once") {
    const V vals = random_values(40, 9, -3, 3);
    for (DType dt : {kHalf, kBFloat16}) {
      const Tensor x = make({4, 10}, vals, dt);
      const V logical = values(x);
      for (int64_t dim : {0, 1}) {
        const Tensor s = x.softmax(dim);
        CHECK(s.dtype() == dt);
        // The float result rounded once: within half an ulp of the narrow type (plus float's).
        const Tensor f = x.to(kFloat).softmax(dim).to(dt);
        CHECK(values(s) == values(f));
        check_values(s, {4, 10}, ref_softmax({4, 10}, logical, dim, false),
                     dt == kHalf ? 1e-3 : 8e-3, 0);
        check_values(x.log_softmax(dim), {4, 10}, ref_softmax({4, 10}, logical, dim, true),
                     dt == kHalf ? 1e-3 : 8e-3, 1e-3);
      }
    }
  }
}

TEST_CASE("softmax: 0-d and empty inputs", "[ops][softmax]") {
  const Tensor s = make({}, {3.5});
  CHECK(s.softmax(0).dim() == 0);
  CHECK(s.softmax(0).item<double>() == 1.0);
  CHECK(s.softmax(-1).item<double>() == 1.0);
  CHECK(s.log_softmax(0).item<double>() == 0.0);
  CHECK_THROWS_AS(s.softmax(1), IndexError);
  CHECK_THROWS_WITH(s.softmax(1),
                    "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
  CHECK(empty({0, 3}).softmax(1).sizes() == IntArrayRef({0, 3}));
  CHECK(empty({0, 3}).softmax(0).sizes() == IntArrayRef({0, 3}));
  CHECK(empty({2, 0}, dtype(kDouble)).log_softmax(1).dtype() == kDouble);
  // An empty input is returned before the kernel looks at its dtype: any dtype, contiguous.
  for (DType dt : {kLong, kBool, kByte, kInt}) {
    for (int64_t dim : {0, 1}) {
      const Tensor e = empty({2, 0}, dtype(dt)).softmax(dim);
      CHECK(e.dtype() == dt);
      CHECK(e.sizes() == IntArrayRef({2, 0}));
      CHECK(e.strides() == IntArrayRef({1, 1}));
      CHECK(empty({0, 3}, dtype(dt)).log_softmax(dim).strides() == IntArrayRef({3, 1}));
    }
  }
  CHECK(empty({3, 0}, dtype(kLong)).t().softmax(1).strides() == IntArrayRef({3, 1}));
  CHECK(empty({2, 0}, dtype(kLong)).softmax(1, kFloat).dtype() == kFloat);
  // ...but its dim is still checked.
  CHECK_THROWS_WITH(empty({2, 0}, dtype(kLong)).softmax(2),
                    "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  CHECK(make({1, 3}, {1, 2, 3}).softmax(0).sum().item<double>() == 3.0);  // lines of one: 1s
}

TEST_CASE("softmax: dim errors", "[ops][softmax]") {
  const Tensor x = ones({2, 3});
  CHECK_THROWS_AS(x.softmax(2), IndexError);
  CHECK_THROWS_WITH(x.softmax(2),
                    "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  CHECK_THROWS_WITH(x.log_softmax(-3),
                    "Dimension out of range (expected to be in range of [-2, 1], but got -3)");
  CHECK_THROWS_WITH(tensorplay::softmax(Tensor(), 0), "softmax(): the tensor is undefined");
}

TEST_CASE("softmax: softmax_out and log_softmax_out", "[ops][softmax]") {
  const Tensor x = make({2, 3}, {1, 2, 3, 3, 2, 1});
  Tensor out = empty({0});
  const int64_t v0 = out._version();
  const Tensor& r = softmax_out(out, x, 1);
  CHECK(&r == &out);
  CHECK(out.sizes() == IntArrayRef({2, 3}));
  check_values(out, {2, 3}, ref_softmax({2, 3}, {1, 2, 3, 3, 2, 1}, 1, false), 1e-6, 0);
  CHECK(out._version() > v0);
  // A non-contiguous out of the right shape is written through its strides.
  Tensor base = zeros({3, 2});
  Tensor tout = base.t();
  log_softmax_out(tout, x, 0);
  check_values(tout, {2, 3}, ref_softmax({2, 3}, {1, 2, 3, 3, 2, 1}, 0, true), 1e-6, 0);
  Tensor dout = empty({2, 3}, dtype(kDouble));
  CHECK_THROWS_WITH(softmax_out(dout, x, 1),
                    "Expected out tensor to have dtype float, but got double instead");
  softmax_out(dout, x, 1, kDouble);
  check_values(dout, {2, 3}, ref_softmax({2, 3}, {1, 2, 3, 3, 2, 1}, 1, false), 1e-12, 0);
}

}  // namespace ops_softmax_test
