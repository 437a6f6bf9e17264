// Run-time CPU dispatch (ops/cpu_capability.hpp): how TENSORPLAY_CPU_CAPABILITY is read (case,
// fallback to what the CPU has, unknown and empty values), get_cpu_capability(), the test
// override, and that every level this CPU runs gives the same results: bit for bit where the
// operation rounds once (elementwise arithmetic, conversions including Half and BFloat16, sqrt,
// sum/amax), and within stated bounds where a level fuses a multiply-add the default level
// rounds twice (vec_math's exp, var, softmax) or where the GEMM tile (and so the blocking of k)
// differs between levels.
#include <tensorplay/ops/cpu_capability.hpp>
#include <tensorplay/ops/gemm.hpp>
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace ops_cpu_capability_test {

using namespace tensorplay;
using detail::CpuCapability;

namespace {

// Every level this process can run, lowest first.
std::vector<CpuCapability> levels() {
  std::vector<CpuCapability> out;
  for (int c = int(detail::kCpuCapabilityMin); c <= int(detail::max_cpu_capability()); ++c)
    out.push_back(CpuCapability(c));
  return out;
}

// Undoes the override however a test leaves.
struct OverrideGuard {
  ~OverrideGuard() { detail::reset_cpu_capability_for_testing(); }
};

// f() evaluated at each level; the values as doubles (exact for every dtype used here).
std::vector<std::vector<double>> at_each_level(const std::function<Tensor()>& f) {
  OverrideGuard guard;
  std::vector<std::vector<double>> out;
  for (CpuCapability c : levels()) {
    detail::set_cpu_capability_for_testing(c);
    REQUIRE(detail::cpu_capability() == c);
    const Tensor t = f().to(kDouble).contiguous();
    const double* p = t.data_ptr<double>();
    out.emplace_back(p, p + t.numel());
  }
  return out;
}

bool same_bits(double a, double b) {
  return (std::isnan(a) && std::isnan(b)) || std::memcmp(&a, &b, sizeof(double)) == 0;
}

void check_identical(const std::vector<std::vector<double>>& r) {
  for (std::size_t l = 1; l < r.size(); ++l) {
    REQUIRE(r[l].size() == r[0].size());
    int64_t differ = 0;
    for (std::size_t i = 0; i < r[0].size(); ++i) differ += !same_bits(r[l][i], r[0][i]);
    INFO("level " << detail::cpu_capability_name(levels()[l]) << " against "
                  << detail::cpu_capability_name(levels()[0]));
    CHECK(differ == 0);
  }
}

// |x - y| <= atol + rtol * |y|, NaN matching NaN, infinities equal.
void check_close(const std::vector<std::vector<double>>& r, double rtol, double atol) {
  for (std::size_t l = 1; l < r.size(); ++l) {
    REQUIRE(r[l].size() == r[0].size());
    int64_t differ = 0;
    for (std::size_t i = 0; i < r[0].size(); ++i) {
      const double x = r[l][i], y = r[0][i];
      if (same_bits(x, y)) continue;
      differ += !(std::abs(x - y) <= atol + rtol * std::abs(y));
    }
    INFO("level " << detail::cpu_capability_name(levels()[l]));
    CHECK(differ == 0);
  }
}

// Values spanning signs, magnitudes, zeros, infinities and NaN, so that every branch of the
// kernels (and every rounding case of the conversions) is exercised.
Tensor mixed(int64_t n, uint64_t seed) {
  manual_seed(seed);
  Tensor t = randn({n}) * 100.0;
  float* p = t.data_ptr<float>();
  const float specials[] = {0.0f,
                            -0.0f,
                            std::numeric_limits<float>::infinity(),
                            -std::numeric_limits<float>::infinity(),
                            std::numeric_limits<float>::quiet_NaN(),
                            1e-40f,
                            65504.0f,
                            65520.0f,
                            6.1e-5f,
                            3.0e38f};
  for (int64_t i = 0; i < n; i += 97) p[i] = specials[(i / 97) % 10];
  return t;
}

// t (float) with NaN made 0 and everything clamped to [-lim, lim].
Tensor finite(const Tensor& t, float lim) {
  Tensor c = t.contiguous().clone();
  float* p = c.data_ptr<float>();
  for (int64_t i = 0; i < c.numel(); ++i) {
    const float v = std::isnan(p[i]) ? 0.0f : p[i];
    p[i] = v < -lim ? -lim : (v > lim ? lim : v);
  }
  return c;
}

}  // namespace

TEST_CASE("TENSORPLAY_CPU_CAPABILITY values are read without regard to case", "[ops]") {
  using detail::parse_cpu_capability;
  CHECK(parse_cpu_capability("default") == CpuCapability::Default);
  CHECK(parse_cpu_capability("avx2") == CpuCapability::AVX2);
  CHECK(parse_cpu_capability("avx512") == CpuCapability::AVX512);
  CHECK(parse_cpu_capability("AVX512") == CpuCapability::AVX512);  // what get_cpu_capability prints
  CHECK(parse_cpu_capability("Avx2") == CpuCapability::AVX2);
  CHECK(parse_cpu_capability("DEFAULT") == CpuCapability::Default);
  CHECK_FALSE(parse_cpu_capability("avx").has_value());
  CHECK_FALSE(parse_cpu_capability("avx512 ").has_value());
  CHECK_FALSE(parse_cpu_capability("sse2").has_value());
  CHECK_FALSE(parse_cpu_capability("").has_value());
}

TEST_CASE("a requested level above the CPU's falls back to the best it has", "[ops]") {
  using detail::choose_cpu_capability;
  CHECK(choose_cpu_capability("avx512", CpuCapability::AVX2) == CpuCapability::AVX2);
  CHECK(choose_cpu_capability("avx512", CpuCapability::Default) == CpuCapability::Default);
  CHECK(choose_cpu_capability("avx2", CpuCapability::Default) == CpuCapability::Default);
  // At or below the CPU's: taken as asked.
  CHECK(choose_cpu_capability("default", CpuCapability::AVX512) == CpuCapability::Default);
  CHECK(choose_cpu_capability("avx2", CpuCapability::AVX512) == CpuCapability::AVX2);
  CHECK(choose_cpu_capability("AVX512", CpuCapability::AVX512) == CpuCapability::AVX512);
}

TEST_CASE("an unset, empty or unknown TENSORPLAY_CPU_CAPABILITY leaves the CPU's best", "[ops]") {
  using detail::choose_cpu_capability;
  for (CpuCapability hw : {CpuCapability::Default, CpuCapability::AVX2, CpuCapability::AVX512}) {
    CHECK(choose_cpu_capability(nullptr, hw) == hw);
    CHECK(choose_cpu_capability("", hw) == hw);
    // Unknown: ignored, with a warning on stderr (a kernel call is no place for an exception).
    CHECK(choose_cpu_capability("avx1024", hw) == hw);
  }
}

TEST_CASE("get_cpu_capability names the level the kernels run at", "[ops]") {
  const std::string name = get_cpu_capability();
  CHECK((name == "DEFAULT" || name == "AVX2" || name == "AVX512"));
  CHECK(name == detail::cpu_capability_name(detail::cpu_capability()));
  CHECK(std::string(detail::cpu_capability_name(CpuCapability::Default)) == "DEFAULT");
  CHECK(std::string(detail::cpu_capability_name(CpuCapability::AVX2)) == "AVX2");
  CHECK(std::string(detail::cpu_capability_name(CpuCapability::AVX512)) == "AVX512");
  // Without an override the level is the environment's choice within what was compiled.
  CpuCapability expected = detail::choose_cpu_capability(std::getenv("TENSORPLAY_CPU_CAPABILITY"),
                                                         detail::detect_cpu_capability());
  if (expected < detail::kCpuCapabilityMin) expected = detail::kCpuCapabilityMin;
  if (expected > detail::kCpuCapabilityMax) expected = detail::kCpuCapabilityMax;
  CHECK(detail::cpu_capability() == expected);
}

TEST_CASE("the test override is clamped to what the CPU and the build support", "[ops]") {
  OverrideGuard guard;
  detail::set_cpu_capability_for_testing(CpuCapability::AVX512);
  CHECK(detail::cpu_capability() == detail::max_cpu_capability());
  detail::set_cpu_capability_for_testing(CpuCapability::Default);
  CHECK(detail::cpu_capability() == detail::kCpuCapabilityMin);
  CHECK(get_cpu_capability() == detail::cpu_capability_name(detail::kCpuCapabilityMin));
  detail::reset_cpu_capability_for_testing();
  CHECK((detail::cpu_capability() == detail::runtime_cpu_capability() ||
         detail::runtime_cpu_capability() < detail::kCpuCapabilityMin));
}

TEST_CASE("elementwise arithmetic is identical at every level", "[ops]") {
  const Tensor a = mixed(4099, 1), b = mixed(4099, 2);
  for (DType dt : {kFloat, kDouble, kHalf, kBFloat16, kInt, kLong, kByte}) {
    INFO("dtype " << dt);
    const Tensor x = a.to(dt), y = b.to(dt);
    check_identical(at_each_level([&] { return x + y; }));
    check_identical(at_each_level([&] { return x * y; }));
    check_identical(at_each_level([&] { return x - 3; }));  // a broadcast scalar
    if (is_floating_point(dt)) check_identical(at_each_level([&] { return x / y; }));
  }
  // Strided and broadcast rows: a transposed operand, a row broadcast.
  const Tensor m = mixed(63 * 65, 3).view({63, 65}), r = mixed(65, 4);
  check_identical(at_each_level([&] { return m.t().contiguous() + m.t(); }));
  check_identical(at_each_level([&] { return m * r; }));
  check_identical(at_each_level([&] { return maximum(m, r); }));
  // Square roots take the SSE2 or AVX instruction: both round correctly.
  check_identical(at_each_level([&] { return sqrt(abs(m)); }));
  check_identical(at_each_level([&] { return rsqrt(abs(m.to(kDouble))); }));
}

TEST_CASE("vectorised elementary functions agree across levels within their error bounds",
          "[ops]") {
  // exp/log/tanh/erf of ops/vec_math.hpp are within 2 ulp of the exact value with or without
  // FMA, so two levels differ by at most 4 ulp (float: 4 * 2^-23 relative).
  const Tensor x = mixed(4099, 5) / 20;
  const double rtol = 4 * std::ldexp(1.0, -23);
  check_close(at_each_level([&] { return exp(x); }), rtol, 0);
  check_close(at_each_level([&] { return log(abs(x)); }), rtol, 1e-37);
  check_close(at_each_level([&] { return tanh(x); }), rtol, 1e-37);
  check_close(at_each_level([&] { return erf(x); }), rtol, 1e-37);
  check_close(at_each_level([&] { return exp(x.to(kHalf)); }), std::ldexp(1.0, -10), 0);
}

TEST_CASE("conversions are identical at every level, Half and BFloat16 included", "[ops]") {
  const Tensor f = mixed(4099, 6);
  for (DType to : {kHalf, kBFloat16, kDouble, kInt}) {
    INFO("to " << to);
    const Tensor src = to == kInt ? finite(f, 1e6f) : f;
    check_identical(at_each_level([&] { return src.to(to); }));
    const Tensor back = src.to(to);
    check_identical(at_each_level([&] { return back.to(kFloat); }));
  }
  const Tensor h = f.to(kHalf);
  check_identical(at_each_level([&] { return h.to(kBFloat16); }));
  check_identical(at_each_level([&] { return h.to(kDouble); }));
  // Strided sources (a transpose: the iterator's 2-d blocks) and the integer roads.
  const Tensor m = f.narrow(0, 0, 64 * 64).view({64, 64}).t();
  check_identical(at_each_level([&] { return m.to(kHalf); }));
  check_identical(at_each_level([&] { return m.contiguous(); }));
  check_identical(at_each_level([&] { return arange(10000, dtype(kLong)).to(kFloat); }));
}

TEST_CASE("reductions are identical at every level, or within their rounding", "[ops]") {
  const Tensor x = mixed(100003, 7) / 50;
  const Tensor fx = finite(x, 1e3f);
  const Tensor m = fx.narrow(0, 0, 317 * 311).view({317, 311});
  // The order of operations is fixed by the kernel, not by the vector width: the same sums.
  check_identical(at_each_level([&] { return fx.sum(); }));
  check_identical(at_each_level([&] { return m.sum(0); }));
  check_identical(at_each_level([&] { return m.sum(1); }));
  check_identical(at_each_level([&] { return m.t().sum(1); }));
  check_identical(at_each_level([&] { return x.amax(); }));  // NaN propagation
  check_identical(at_each_level([&] { return m.amin(IntArrayRef{1}); }));
  check_identical(at_each_level([&] { return fx.to(kDouble).sum(); }));
  check_identical(at_each_level([&] { return (fx * 100).to(kLong).sum(); }));
  check_identical(at_each_level([&] { return fx.to(kHalf).sum(); }));
  // A fused multiply-add at the AVX levels: var's squared deviations, norm's squares, exp.
  check_close(at_each_level([&] { return m.var(IntArrayRef{0}); }), 1e-5, 0);
  check_close(at_each_level([&] { return fx.norm(); }), 1e-5, 0);
  check_close(at_each_level([&] { return logsumexp(m, IntArrayRef{1}); }), 1e-5, 1e-6);
}

TEST_CASE("softmax agrees across levels", "[ops]") {
  const Tensor x = finite(mixed(64 * 129, 8), 50.0f).view({64, 129}) / 40;
  for (int64_t dim : {0, 1}) {
    check_close(at_each_level([&] { return softmax(x, dim); }), 1e-5, 1e-7);
    check_close(at_each_level([&] { return log_softmax(x, dim); }), 1e-5, 1e-6);
    check_close(at_each_level([&] { return softmax(x.to(kBFloat16), dim); }), 1e-2, 1e-4);
  }
}

namespace {

// C = alpha A B + beta C through detail::gemm at every level, each against a double-precision
// reference: |c - ref| <= 2 k eps sum_p |A(i,p) B(p,j)| (+ the beta term), the classic bound
// for any order of summation, with or without FMA. A and B are read through the given strides
// (a transpose, a column stride of 2), C has a row stride past its width.
template <class T>
void check_gemm_levels(int64_t m, int64_t n, int64_t k, bool a_trans, int64_t b_cs) {
  INFO("m " << m << " n " << n << " k " << k << " a_trans " << a_trans << " b_cs " << b_cs);
  std::vector<T> a(std::size_t(m * k)), b(std::size_t(k * n * b_cs));
  uint32_t s = 12345;
  auto next = [&] {
    s = s * 1664525u + 1013904223u;
    return T(int32_t(s >> 8) % 2001 - 1000) / T(256);
  };
  for (T& v : a) v = next();
  for (T& v : b) v = next();
  const int64_t a_rs = a_trans ? 1 : k, a_cs = a_trans ? m : 1;
  const int64_t b_rs = n * b_cs, c_rs = n + 3;
  const T alpha = T(1.5), beta = T(-0.5);
  std::vector<T> c0(std::size_t(m * c_rs));
  for (T& v : c0) v = next();
  OverrideGuard guard;
  for (CpuCapability level : levels()) {
    INFO("level " << detail::cpu_capability_name(level));
    detail::set_cpu_capability_for_testing(level);
    std::vector<T> c = c0;
    detail::gemm<T>(m, n, k, alpha, a.data(), a_rs, a_cs, b.data(), b_rs, b_cs, beta, c.data(),
                    c_rs, 1);
    int64_t bad = 0;
    for (int64_t i = 0; i < m; ++i) {
      for (int64_t j = 0; j < n; ++j) {
        double ref = 0, mag = 0;
        for (int64_t p = 0; p < k; ++p) {
          const double t = double(a[i * a_rs + p * a_cs]) * double(b[p * b_rs + j * b_cs]);
          ref += t;
          mag += std::abs(t);
        }
        const double c_old = double(c0[i * c_rs + j]);
        ref = double(alpha) * ref + double(beta) * c_old;
        const double eps = std::numeric_limits<T>::epsilon();
        const double bound =
            2 * double(k + 2) * eps * (std::abs(double(alpha)) * mag + std::abs(c_old)) + 1e-30;
        bad += !(std::abs(double(c[i * c_rs + j]) - ref) <= bound);
      }
    }
    CHECK(bad == 0);
    // Columns between n and the row stride are never written.
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = n; j < c_rs; ++j) bad += c[i * c_rs + j] != c0[i * c_rs + j];
    CHECK(bad == 0);
  }
}

template <class T, CpuCapability C>
void check_gemm_edges() {
  using B = detail::gemm_impl::Blocking<T, C>;
  const int64_t MR = B::MR, NR = B::NR, KC = B::KC;
  check_gemm_levels<T>(MR, NR, 7, false, 1);
  check_gemm_levels<T>(MR - 1, NR - 1, KC + 1, false, 1);
  check_gemm_levels<T>(MR + 1, NR + 1, 5, true, 1);
  check_gemm_levels<T>(2 * MR + 1, 2 * NR - 1, 33, true, 2);
}

}  // namespace

TEST_CASE("gemm agrees with the reference at every level, edge tiles and strides included",
          "[ops]") {
  // The edges of every level's tile, whichever level runs them.
  check_gemm_edges<float, CpuCapability::Default>();
  check_gemm_edges<float, CpuCapability::AVX2>();
  check_gemm_edges<float, CpuCapability::AVX512>();
  check_gemm_edges<double, CpuCapability::AVX2>();
  check_gemm_edges<double, CpuCapability::AVX512>();
  check_gemm_levels<float>(97, 131, 300, false, 1);
  check_gemm_levels<double>(61, 67, 129, true, 2);
  check_gemm_levels<float>(1, 77, 50, false, 1);  // vector-shaped: the plain loop
  check_gemm_levels<float>(77, 1, 50, true, 1);
  // Through the Tensor API, Half included (it accumulates in float on the plain loop).
  const Tensor a = mixed(40 * 50, 9).view({40, 50}) / 1000, b = mixed(50 * 30, 10).view({50, 30});
  const Tensor fa = finite(a, 1.0f), fb = finite(b, 1.0f) / 1000;
  check_close(at_each_level([&] { return matmul(fa, fb); }), 1e-4, 1e-6);
  check_close(at_each_level([&] { return matmul(fa.to(kHalf), fb.to(kHalf)); }), 1e-2, 1e-3);
}

}  // namespace ops_cpu_capability_test
