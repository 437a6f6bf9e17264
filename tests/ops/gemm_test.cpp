// detail::gemm against a naive double-precision triple loop: shapes on and around every tile and
// block edge, all four transpose combinations (expressed as strides, never copies), strided and
// negatively strided operands, broadcast (zero-stride) B, row- and column-major and strided C,
// and the BLAS corner cases (beta == 0 never reads C, alpha == 0 / k == 0 never read A and B).
// Built with -DTENSORPLAY_USE_BLAS=1 the same cases check the CBLAS route and its fallback.
#include <catch2/catch.hpp>

#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <thread>
#include <type_traits>
#include <vector>

#include <tensorplay/core/half.hpp>
#include <tensorplay/ops/gemm.hpp>

namespace ops_gemm_test {

namespace tp = tensorplay;

namespace {

template <class T>
constexpr bool is_float_like_v =
    std::is_floating_point_v<T> || std::is_same_v<T, tp::Half> || std::is_same_v<T, tp::BFloat16>;

template <class T>
double to_double(T x) {
  if constexpr (std::is_same_v<T, tp::Half> || std::is_same_v<T, tp::BFloat16>) {
    return static_cast<double>(static_cast<float>(x));
  } else {
    return static_cast<double>(x);
  }
}

// What fills the slots of a buffer that are not elements of the matrix (padding between strided
// columns, the gaps of a padded row): NaN for floating types, so that reading one shows in the
// result, and a value that must survive untouched for C.
template <class T>
T sentinel() {
  if constexpr (is_float_like_v<T>) {
    return T(std::numeric_limits<float>::quiet_NaN());
  } else {
    return T(77);
  }
}

template <class T>
bool same_bits_or_both_nan(T x, T y) {
  if constexpr (is_float_like_v<T>) {
    const double a = to_double(x), b = to_double(y);
    return (std::isnan(a) && std::isnan(b)) || a == b;
  } else {
    return x == y;
  }
}

// How a rows x cols operand is laid out in its buffer.
enum class Layout {
  RowMajor,   // rs = cols, cs = 1
  ColMajor,   // rs = 1, cs = rows: the transpose of a contiguous matrix
  Strided,    // every other column of a padded row-major buffer: cs = 2, rs = 2 * cols + 3
  NegRows,    // rows in reverse: rs = -cols, the pointer at the last row
  Broadcast,  // one row repeated: rs = 0, cs = 1 (an expanded operand; inputs only)
};

const char* name(Layout l) {
  switch (l) {
    case Layout::RowMajor: return "row-major";
    case Layout::ColMajor: return "col-major";
    case Layout::Strided: return "strided";
    case Layout::NegRows: return "negative row stride";
    case Layout::Broadcast: return "broadcast rows";
  }
  return "?";
}

template <class T>
struct Operand {
  std::vector<T> buf;
  int64_t off = 0, rs = 0, cs = 0;
  T* ptr() { return buf.data() + off; }
  const T& at(int64_t i, int64_t j) const { return buf[off + i * rs + j * cs]; }
  T& at(int64_t i, int64_t j) { return buf[off + i * rs + j * cs]; }
};

template <class T>
T random_value(std::mt19937& rng) {
  if constexpr (is_float_like_v<T>) {
    return T(std::uniform_real_distribution<float>(-1.0f, 1.0f)(rng));
  } else {
    return T(std::uniform_int_distribution<int>(-5, 5)(rng));
  }
}

template <class T>
Operand<T> make_operand(int64_t rows, int64_t cols, Layout layout, std::mt19937& rng) {
  Operand<T> o;
  int64_t size = rows * cols;
  switch (layout) {
    case Layout::RowMajor: o.rs = cols, o.cs = 1; break;
    case Layout::ColMajor: o.rs = 1, o.cs = rows; break;
    case Layout::Strided: o.rs = 2 * cols + 3, o.cs = 2, size = rows * o.rs; break;
    case Layout::NegRows: o.rs = -cols, o.cs = 1, o.off = rows > 0 ? (rows - 1) * cols : 0; break;
    case Layout::Broadcast: o.rs = 0, o.cs = 1, size = cols; break;
  }
  o.buf.assign(static_cast<std::size_t>(size), sentinel<T>());
  for (int64_t i = 0; i < rows; ++i)
    for (int64_t j = 0; j < cols; ++j) o.at(i, j) = random_value<T>(rng);
  return o;
}

template <class T>
double epsilon() {
  if constexpr (std::is_same_v<T, tp::Half>) {
    return std::ldexp(1.0, -10);
  } else if constexpr (std::is_same_v<T, tp::BFloat16>) {
    return std::ldexp(1.0, -7);
  } else if constexpr (std::is_floating_point_v<T>) {
    return std::numeric_limits<T>::epsilon();
  } else {
    return 0.0;
  }
}

// The precision products are accumulated in: float for the 16-bit types.
template <class T>
double accumulation_epsilon() {
  if constexpr (std::is_same_v<T, tp::Half> || std::is_same_v<T, tp::BFloat16>) {
    return std::numeric_limits<float>::epsilon();
  } else {
    return epsilon<T>();
  }
}

struct Case {
  int64_t m, n, k;
  Layout la = Layout::RowMajor, lb = Layout::RowMajor, lc = Layout::RowMajor;
  double alpha = 1, beta = 0;
  bool nan_in_c = false;  // fill C with NaN first (only meaningful with beta == 0)
};

// Runs one case and checks every element of C against the double-precision reference, with the
// standard error bound |err| <= (k + 2) * eps_acc * (|alpha| sum|a||b| + |beta c|) plus one
// rounding of the result to T; and checks that nothing outside C was written.
template <class T>
void check_gemm(const Case& cs, uint32_t seed = 1234) {
  std::mt19937 rng(seed);
  auto a = make_operand<T>(cs.m, cs.k, cs.la, rng);
  auto b = make_operand<T>(cs.k, cs.n, cs.lb, rng);
  auto c = make_operand<T>(cs.m, cs.n, cs.lc, rng);
  if (cs.nan_in_c) {
    if constexpr (is_float_like_v<T>) {
      for (int64_t i = 0; i < cs.m; ++i)
        for (int64_t j = 0; j < cs.n; ++j) c.at(i, j) = T(std::nanf(""));
    }
  }
  const Operand<T> c0 = c;

  tp::detail::gemm<T>(cs.m, cs.n, cs.k, T(cs.alpha), a.ptr(), a.rs, a.cs, b.ptr(), b.rs, b.cs,
                      T(cs.beta), c.ptr(), c.rs, c.cs);

  INFO("m=" << cs.m << " n=" << cs.n << " k=" << cs.k << " A " << name(cs.la) << ", B "
            << name(cs.lb) << ", C " << name(cs.lc) << ", alpha=" << cs.alpha << " beta=" << cs.beta
            << (cs.nan_in_c ? " (NaN in C)" : ""));
  int64_t bad = 0;
  double worst = 0;
  for (int64_t i = 0; i < cs.m; ++i) {
    for (int64_t j = 0; j < cs.n; ++j) {
      double ref = 0, mag = 0;
      for (int64_t p = 0; p < cs.k; ++p) {
        const double prod = to_double(a.at(i, p)) * to_double(b.at(p, j));
        ref += prod;
        mag += std::abs(prod);
      }
      ref *= cs.alpha;
      mag *= std::abs(cs.alpha);
      if (cs.beta != 0) {
        ref += cs.beta * to_double(c0.at(i, j));
        mag += std::abs(cs.beta * to_double(c0.at(i, j)));
      }
      const double tol =
          double(cs.k + 2) * accumulation_epsilon<T>() * mag + epsilon<T>() * std::abs(ref);
      const double got = to_double(c.at(i, j));
      const double err = std::abs(got - ref);
      if (!(err <= tol)) {
        if (bad++ == 0) {
          UNSCOPED_INFO("first mismatch at (" << i << ", " << j << "): got " << got << ", expected "
                                              << ref << ", tolerance " << tol);
        }
      }
      if (err > worst || std::isnan(err)) worst = err;
    }
  }
  CAPTURE(worst);
  CHECK(bad == 0);

  // The buffer of C outside the matrix is untouched (strided C has gaps between its elements).
  int64_t clobbered = 0;
  std::vector<bool> inside(c.buf.size(), false);
  for (int64_t i = 0; i < cs.m; ++i)
    for (int64_t j = 0; j < cs.n; ++j) inside[c.off + i * c.rs + j * c.cs] = true;
  for (std::size_t e = 0; e < c.buf.size(); ++e)
    if (!inside[e] && !same_bits_or_both_nan(c.buf[e], c0.buf[e])) ++clobbered;
  CHECK(clobbered == 0);
}

// The shapes: tile edges (MR, NR, KC and one either side), block edges (past MC, NC, 2 KC),
// primes, vectors (m == 1 or n == 1 take their own road), and empty dimensions.
template <class T>
std::vector<std::array<int64_t, 3>> shapes() {
  using B =
      tp::detail::gemm_impl::Blocking<std::conditional_t<std::is_same_v<T, double>, double, float>>;
  const int64_t MR = B::MR, NR = B::NR, KC = B::KC;
  return {
      {1, 1, 1},
      {2, 3, 4},
      {MR, NR, 1},
      {MR - 1, NR - 1, 5},
      {MR + 1, NR + 1, 7},
      {MR, NR, KC},
      {MR + 1, NR - 1, KC + 1},
      {2 * MR - 1, 2 * NR + 1, KC - 1},
      {37, 53, 71},
      {64, 64, 64},
      {1024, 1, 7},
      {1, 1024, 7},
      {1, 1, 300},
      {7, 9, 2 * KC + 3},
      {0, 5, 5},
      {5, 0, 5},
      {0, 0, 0},
  };
}

template <class T>
std::vector<std::pair<double, double>> alpha_betas() {
  if constexpr (is_float_like_v<T>) {
    return {{1, 0}, {-1.5, 0.5}, {2, 1}};
  } else {
    return {{1, 0}, {-2, 3}, {2, 1}};
  }
}

}  // namespace

TEMPLATE_TEST_CASE("gemm matches the naive product for all transpose combinations", "[ops][gemm]",
                   float, double, int64_t, tp::Half) {
  for (const auto& s : shapes<TestType>()) {
    for (Layout la : {Layout::RowMajor, Layout::ColMajor}) {
      for (Layout lb : {Layout::RowMajor, Layout::ColMajor}) {
        for (const auto& [alpha, beta] : alpha_betas<TestType>()) {
          check_gemm<TestType>({s[0], s[1], s[2], la, lb, Layout::RowMajor, alpha, beta});
        }
      }
    }
  }
}

TEMPLATE_TEST_CASE("gemm handles strided, reversed and broadcast operands", "[ops][gemm]", float,
                   double, int64_t, tp::Half) {
  const std::vector<std::array<int64_t, 3>> sizes = {
      {1, 1, 1}, {5, 7, 3}, {37, 53, 71}, {64, 33, 130}};
  for (const auto& s : sizes) {
    const auto [m, n, k] = s;
    for (Layout l : {Layout::Strided, Layout::NegRows, Layout::ColMajor}) {
      check_gemm<TestType>({m, n, k, l, Layout::RowMajor, Layout::RowMajor, 1, 0});
      check_gemm<TestType>({m, n, k, Layout::RowMajor, l, Layout::RowMajor, 1, 0});
      check_gemm<TestType>({m, n, k, Layout::RowMajor, Layout::RowMajor, l, 2, 1});
      check_gemm<TestType>({m, n, k, l, l, l, -1, 1});
    }
    check_gemm<TestType>({m, n, k, Layout::RowMajor, Layout::Broadcast, Layout::RowMajor, 1, 0});
    check_gemm<TestType>({m, n, k, Layout::ColMajor, Layout::Broadcast, Layout::ColMajor, 2, 1});
  }
}

TEMPLATE_TEST_CASE("gemm crosses the MC, NC and KC blocks", "[ops][gemm]", float, double) {
  using B = tp::detail::gemm_impl::Blocking<TestType>;
  // One more than a block in each loop, so every loop runs a full and a partial iteration.
  check_gemm<TestType>({B::MC + B::MR + 1, 19, B::KC + 5});
  check_gemm<TestType>(
      {9, B::NC + 3, 5, Layout::ColMajor, Layout::RowMajor, Layout::RowMajor, 1, 1});
  check_gemm<TestType>({B::MC + 1, B::NR + 1, 2 * B::KC + 1, Layout::ColMajor, Layout::ColMajor,
                        Layout::ColMajor, -1.5, 0.5});
}

TEMPLATE_TEST_CASE("gemm with beta == 0 ignores NaN in C", "[ops][gemm]", float, double, tp::Half) {
  for (const auto& s : shapes<TestType>()) {
    check_gemm<TestType>(
        {s[0], s[1], s[2], Layout::RowMajor, Layout::RowMajor, Layout::RowMajor, 1, 0, true});
    check_gemm<TestType>(
        {s[0], s[1], s[2], Layout::ColMajor, Layout::RowMajor, Layout::ColMajor, 2.5, 0, true});
  }
}

TEMPLATE_TEST_CASE("gemm with k == 0 or alpha == 0 is C = beta * C and never reads A or B",
                   "[ops][gemm]", float, double, tp::Half) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const TestType a[6] = {TestType(nan), TestType(nan), TestType(nan),
                         TestType(nan), TestType(nan), TestType(nan)};
  const TestType b[6] = {TestType(nan), TestType(nan), TestType(nan),
                         TestType(nan), TestType(nan), TestType(nan)};
  TestType c[4] = {TestType(1), TestType(2), TestType(3), TestType(4)};

  SECTION("alpha == 0, beta == 2") {
    tp::detail::gemm<TestType>(2, 2, 3, TestType(0), a, 3, 1, b, 2, 1, TestType(2), c, 2, 1);
    CHECK(to_double(c[0]) == 2);
    CHECK(to_double(c[3]) == 8);
  }
  SECTION("k == 0, beta == 0 with NaN in C") {
    for (auto& x : c) x = TestType(nan);
    tp::detail::gemm<TestType>(2, 2, 0, TestType(1), a, 3, 1, b, 2, 1, TestType(0), c, 2, 1);
    for (auto x : c) CHECK(to_double(x) == 0);
  }
  SECTION("alpha == 0, beta == 1 leaves C as it is") {
    tp::detail::gemm<TestType>(2, 2, 3, TestType(0), a, 3, 1, b, 2, 1, TestType(1), c, 2, 1);
    CHECK(to_double(c[1]) == 2);
    CHECK(to_double(c[2]) == 3);
  }
  SECTION("m == 0 or n == 0 touches nothing") {
    tp::detail::gemm<TestType>(0, 2, 3, TestType(1), a, 3, 1, b, 2, 1, TestType(0), c, 2, 1);
    tp::detail::gemm<TestType>(2, 0, 3, TestType(1), a, 3, 1, b, 2, 1, TestType(0), c, 2, 1);
    CHECK(to_double(c[0]) == 1);
    CHECK(to_double(c[3]) == 4);
  }
}

TEST_CASE("gemm on the other dtypes: BFloat16, int32, uint8", "[ops][gemm]") {
  check_gemm<tp::BFloat16>(
      {37, 53, 71, Layout::ColMajor, Layout::RowMajor, Layout::RowMajor, 1, 0});
  check_gemm<tp::BFloat16>({5, 6, 300, Layout::RowMajor, Layout::ColMajor, Layout::Strided, 2, 1});
  check_gemm<int32_t>({37, 53, 71, Layout::ColMajor, Layout::ColMajor, Layout::RowMajor, -2, 3});
  check_gemm<int16_t>({9, 4, 11, Layout::Strided, Layout::RowMajor, Layout::ColMajor, 1, 1});
}

TEST_CASE("gemm on integers wraps like two's complement, as torch.mm does", "[ops][gemm]") {
  // torch.mm(torch.tensor([[100]], dtype=torch.int8), torch.tensor([[2]], dtype=torch.int8))
  // is -56; 2**62 * 4 in int64 is 0.
  const int8_t a8 = 100, b8 = 2;
  int8_t c8 = 0;
  tp::detail::gemm<int8_t>(1, 1, 1, 1, &a8, 1, 1, &b8, 1, 1, 0, &c8, 1, 1);
  CHECK(c8 == -56);
  const int64_t a64 = int64_t{1} << 62, b64 = 4;
  int64_t c64 = 5;
  tp::detail::gemm<int64_t>(1, 1, 1, 1, &a64, 1, 1, &b64, 1, 1, 0, &c64, 1, 1);
  CHECK(c64 == 0);
}

TEST_CASE("gemm from several threads at once uses per-thread packing buffers", "[ops][gemm]") {
  // Each thread packs into its own thread_local buffers; two concurrent products of different
  // sizes (so the buffers are also regrown) must both be right.
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 2; ++t) {
    threads.emplace_back([t, &wrong] {
      const int64_t n = 40 + 23 * t;
      std::vector<float> a(n * n, 1.0f), b(n * n, 0.5f), c(n * n, -1.0f);
      for (int rep = 0; rep < 3; ++rep)
        tp::detail::gemm<float>(n, n, n, 1.0f, a.data(), n, 1, b.data(), 1, n, 0.0f, c.data(), n,
                                1);
      for (float x : c)
        if (x != 0.5f * float(n)) ++wrong;
    });
  }
  for (auto& th : threads) th.join();
  CHECK(wrong == 0);
}

TEST_CASE("blas_operand: which strides BLAS can express", "[ops][gemm]") {
  using tp::detail::gemm_impl::blas_operand;
  // Row-major, padded row-major, transposed, padded transposed.
  auto r = blas_operand(3, 4, 4, 1);
  CHECK((r.ok && !r.trans && r.ld == 4));
  r = blas_operand(3, 4, 10, 1);
  CHECK((r.ok && !r.trans && r.ld == 10));
  r = blas_operand(3, 4, 1, 3);
  CHECK((r.ok && r.trans && r.ld == 3));
  r = blas_operand(3, 4, 1, 8);
  CHECK((r.ok && r.trans && r.ld == 8));
  // A dimension of size 1 makes its stride irrelevant.
  r = blas_operand(1, 4, 0, 1);
  CHECK((r.ok && !r.trans && r.ld == 4));
  r = blas_operand(3, 1, 5, 7);
  CHECK((r.ok && !r.trans && r.ld == 5));
  r = blas_operand(1, 4, 9, 3);
  CHECK((r.ok && r.trans && r.ld == 3));
  // Not expressible: every other column, overlapping rows, zero and negative strides.
  CHECK_FALSE(blas_operand(3, 4, 8, 2).ok);
  CHECK_FALSE(blas_operand(3, 4, 2, 1).ok);
  CHECK_FALSE(blas_operand(3, 4, 0, 1).ok);
  CHECK_FALSE(blas_operand(3, 4, -4, 1).ok);
  CHECK_FALSE(blas_operand(3, 4, 1, int64_t{1} << 40).ok);
}

}  // namespace ops_gemm_test
