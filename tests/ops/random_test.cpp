// Random numbers: the generator, its documented streams (golden values from our engine,
// re-derived here from std::mt19937, whose output the C++ standard fixes, and cross-checked with
// PyTorch 1.13, whose CPU generator has the same streams), statistics, and every error.
#include <tensorplay/ops/random.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

namespace ops_random_test {

using namespace tensorplay;

namespace {

template <class T>
std::vector<T> values(const Tensor& t) {
  REQUIRE(t.is_non_overlapping_and_dense());
  const T* p = t.data_ptr<T>();
  return std::vector<T>(p, p + t.numel());  // storage order
}

std::vector<uint16_t> bits16(const Tensor& t) {
  std::vector<uint16_t> out(static_cast<std::size_t>(t.numel()));
  std::memcpy(out.data(), t.data_ptr(), out.size() * 2);
  return out;
}

// The documented streams, written independently of the header on top of std::mt19937.
struct Reference {
  std::mt19937 e;
  explicit Reference(uint64_t seed) : e(static_cast<uint32_t>(seed)) {}
  uint32_t w() { return static_cast<uint32_t>(e()); }
  uint64_t w64() {
    const uint64_t hi = w();
    return (hi << 32) | w();
  }
  float uniform_float() { return static_cast<float>(w() & 0xFFFFFF) / 16777216.0f; }
  double uniform_double() {
    return static_cast<double>(w64() & 0x1FFFFFFFFFFFFF) / 9007199254740992.0;
  }
  std::vector<double> normal(int64_t n) {
    std::vector<double> out;
    while (static_cast<int64_t>(out.size()) < n) {
      const double u1 = uniform_double(), u2 = uniform_double();
      const double r = std::sqrt(-2.0 * std::log(1.0 - u2));
      const double theta = 2.0 * 3.14159265358979323846 * u1;
      out.push_back(r * std::cos(theta));
      out.push_back(r * std::sin(theta));
    }
    out.resize(static_cast<std::size_t>(n));
    return out;
  }
};

// A generator advanced by `words` raw draws.
GeneratorState state_after(uint64_t seed, int64_t words) {
  Generator g(seed);
  for (int64_t i = 0; i < words; ++i) g.random();
  return g.get_state();
}

}  // namespace

// ================================ From the user's side =======================================

TEST_CASE("manual_seed(0) gives torch's numbers", "[ops][random]") {
  // torch.manual_seed(0); torch.rand(5) etc., printed by PyTorch 1.13.
  manual_seed(0);
  CHECK(values<float>(rand({5})) == std::vector<float>{0x1.fc2abp-2f, 0x1.89545ep-1f, 0x1.6a675p-4f,
                                                       0x1.0e66p-3f, 0x1.3acd0cp-2f});
  manual_seed(0);
  CHECK(values<double>(rand({3}, kDouble)) ==
        std::vector<double>{0x1.f0aac97c4aa2fp-1, 0x1.6a675d821cccp-1, 0x1.d6687b744a5f6p-2});
  manual_seed(0);
  CHECK(bits16(rand({4}, kHalf)) == std::vector<uint16_t>{0x3558, 0x345e, 0x3a75, 0x38c0});
  manual_seed(0);
  CHECK(bits16(rand({4}, kBFloat16)) == std::vector<uint16_t>{0x3f2c, 0x3e3c, 0x3eea, 0x3f40});
  manual_seed(0);
  CHECK(values<double>(randn({6}, kDouble)) ==
        std::vector<double>{0x1.8a7eb8902be3ap+0, -0x1.2c78a087c6feap-2, -0x1.16e2920a70ee5p+1,
                            0x1.23096ca3e350dp-1, -0x1.15a341987e136p+0, -0x1.660a590b74404p+0});
  manual_seed(0);
  CHECK(values<float>(randn({5})) == std::vector<float>{0x1.8a7eb8p+0f, -0x1.2c78ap-2f,
                                                        -0x1.16e292p+1f, 0x1.23096cp-1f,
                                                        -0x1.15a342p+0f});
  manual_seed(0);
  CHECK(values<int64_t>(randint(0, 10, {10})) ==
        std::vector<int64_t>{4, 9, 3, 0, 3, 9, 7, 3, 7, 3});
  manual_seed(0);
  CHECK(values<int64_t>(randint(-(int64_t{1} << 62), int64_t{1} << 62, {3})) ==
        std::vector<int64_t>{-3711235831533098449, -642142871786238784, -2716036421228801285});
  manual_seed(0);
  CHECK(values<int32_t>(randint(INT32_MIN, int64_t{1} << 31, {3}, kInt)) ==
        std::vector<int32_t>{209652396, 398764591, 924231285});
  manual_seed(0);
  CHECK(values<float>(randint(0, int64_t{1} << 40, {3}, kFloat)) ==
        std::vector<float>{245195849728.0f, 192984694784.0f, 954192953344.0f});
  manual_seed(0);
  CHECK(values<bool>(randint(0, 2, {8}, kBool)) ==
        std::vector<bool>{false, true, true, false, true, true, true, true});
  // to = 3004 is moved to 3002 first (3003 rounds up to 3004 in half), as PyTorch's update_to.
  manual_seed(0);
  std::vector<float> h;
  for (Half x : values<Half>(randint(0, 3004, {4}, kHalf))) h.push_back(static_cast<float>(x));
  CHECK(h == std::vector<float>{1668, 2872, 2488, 1976});
}

TEST_CASE("a Generator argument is a separate, shared stream", "[ops][random]") {
  Generator gen(42);
  manual_seed(1);
  const auto before = detail::getDefaultCPUGenerator().get_state();
  // Golden values of our engine for seed 42 (also torch's, drawn in this order from one
  // torch.Generator().manual_seed(42)); checked against the reference below.
  CHECK(values<float>(rand({4}, gen)) ==
        std::vector<float>{0x1.c3b8ccp-1f, 0x1.d47b66p-1f, 0x1.880d7p-2f, 0x1.eb2a1cp-1f});
  CHECK(values<double>(rand({2}, gen, kDouble)) ==
        std::vector<double>{0x1.fa3563ccea238p-4, 0x1.aebc98cb2c14p-5});
  CHECK(values<double>(randn({4}, gen, kDouble)) ==
        std::vector<double>{-0x1.1f7383f8320c1p+0, -0x1.7d99b0fe3842ep-3, 0x1.1aa65763ab83bp+1,
                            -0x1.46a78cdb84d7bp-1});
  CHECK(values<int64_t>(randint(-5, 5, {8}, gen)) ==
        std::vector<int64_t>{0, 0, 2, 1, 4, 1, -2, -4});
  CHECK(detail::getDefaultCPUGenerator().get_state() == before);  // untouched

  // The same draws from the reference implementation.
  Reference ref(42);
  for (float v : {0x1.c3b8ccp-1f, 0x1.d47b66p-1f, 0x1.880d7p-2f, 0x1.eb2a1cp-1f}) {
    CHECK(ref.uniform_float() == v);
  }
  CHECK(ref.uniform_double() == 0x1.fa3563ccea238p-4);
  CHECK(ref.uniform_double() == 0x1.aebc98cb2c14p-5);
  CHECK(ref.normal(4) == std::vector<double>{-0x1.1f7383f8320c1p+0, -0x1.7d99b0fe3842ep-3,
                                             0x1.1aa65763ab83bp+1, -0x1.46a78cdb84d7bp-1});
  for (int64_t v : {0, 0, 2, 1, 4, 1, -2, -4}) CHECK(static_cast<int64_t>(ref.w() % 10) - 5 == v);

  // Copies share the state; passing a copy advances the original.
  Generator copy = gen;
  CHECK(copy == gen);
  Generator a(7), b(7);
  rand({3}, a);
  Generator a2 = a;
  rand({3}, a2);
  rand({3}, b);
  rand({3}, b);
  CHECK(a.get_state() == b.get_state());
  CHECK(!(a == b));
}

// =================================== The engine ==============================================

TEST_CASE("our MT19937 is the standard one", "[ops][random]") {
  // The values the C++ standard requires of std::mt19937 (first output, 10000th output).
  STATIC_REQUIRE(detail::mt19937()() == 3499211612u);
  STATIC_REQUIRE([] {
    detail::mt19937 e;
    for (int i = 0; i < 9999; ++i) e();
    return e();
  }() == 4123659995u);
  for (uint32_t seed : {0u, 1u, 42u, 5489u, 0xFFFFFFFFu}) {
    detail::mt19937 ours(seed);
    std::mt19937 theirs(seed);
    bool same = true;
    for (int i = 0; i < 2000; ++i) same = same && ours() == theirs();
    CHECK(same);
  }
  // A 64-bit seed keeps its low 32 bits for the engine (as PyTorch's), all 64 for initial_seed.
  const uint64_t big = (uint64_t{1} << 32) + 7;
  Generator g(big), h(7);
  CHECK(g.initial_seed() == big);
  CHECK(values<float>(rand({3}, g)) == values<float>(rand({3}, h)));
}

TEST_CASE("the documented streams, element by element", "[ops][random]") {
  SECTION("rand float32 and float64") {
    Generator g(2024);
    Reference ref(2024);
    const auto f = values<float>(rand({257}, g));
    bool same = true;
    for (float v : f) same = same && v == ref.uniform_float();
    const auto d = values<double>(rand({100}, g, kDouble));
    for (double v : d) same = same && v == ref.uniform_double();
    CHECK(same);
  }
  SECTION("rand float16 and bfloat16 use 11 and 8 bits of one word") {
    Generator g(5);
    Reference ref(5);
    const auto h = values<Half>(rand({64}, g, kHalf));
    const auto b = values<BFloat16>(rand({64}, g, kBFloat16));
    bool same = true;
    for (Half v : h) same = same && static_cast<float>(v) == (ref.w() & 0x7FF) / 2048.0f;
    for (BFloat16 v : b) same = same && static_cast<float>(v) == (ref.w() & 0xFF) / 256.0f;
    CHECK(same);
  }
  SECTION("randn: Box-Muller on pairs, rounded to the dtype") {
    Generator g(11);
    Reference ref(11);
    CHECK(values<double>(randn({1001}, g, kDouble)) == ref.normal(1001));
    Generator g2(11);
    const auto f = values<float>(randn({1001}, g2));
    const auto d = Reference(11).normal(1001);
    bool same = true;
    for (std::size_t i = 0; i < f.size(); ++i) same = same && f[i] == static_cast<float>(d[i]);
    CHECK(same);
  }
  SECTION("randn(n) is a prefix of randn(n + 1) and consumes 4 ceil(n/2) words") {
    Generator a(3), b(3);
    const auto five = values<double>(randn({5}, a, kDouble));
    const auto six = values<double>(randn({6}, b, kDouble));
    CHECK(five == std::vector<double>(six.begin(), six.begin() + 5));
    CHECK(a.get_state() == state_after(3, 12));  // the 6th value's pair was drawn and dropped
    Generator c(3);
    randn({0}, c);
    CHECK(c.get_state() == state_after(3, 0));
  }
  SECTION("words per element") {
    Generator g(8);
    rand({5}, g);  // float: one word each
    CHECK(g.get_state() == state_after(8, 5));
    rand({5}, g, kDouble);  // double: two
    CHECK(g.get_state() == state_after(8, 15));
    randint(0, 100, {4}, g);  // range < 2^32: one
    CHECK(g.get_state() == state_after(8, 19));
    randint(0, int64_t{1} << 33, {4}, g);  // int64 and range >= 2^32: two
    CHECK(g.get_state() == state_after(8, 27));
    randint(INT32_MIN, int64_t{1} << 31, {4}, g, kInt);  // int32: always one
    CHECK(g.get_state() == state_after(8, 31));
  }
  SECTION("randint: low + draw mod range") {
    Generator g(77);
    Reference ref(77);
    const auto v = values<int64_t>(randint(-1000, 999, {500}, g));
    bool same = true;
    for (int64_t x : v) same = same && x == static_cast<int64_t>(ref.w() % 1999) - 1000;
    const int64_t lo = -(int64_t{1} << 50);
    const auto wide = values<int64_t>(randint(lo, int64_t{1} << 50, {100}, g));
    for (int64_t x : wide) {
      same = same &&
             x == static_cast<int64_t>(ref.w64() % (uint64_t{1} << 51) + static_cast<uint64_t>(lo));
    }
    CHECK(same);
  }
}

TEST_CASE("the Generator's seeds and states", "[ops][random]") {
  CHECK(Generator().initial_seed() == 67280421310721ull);  // c10's default_rng_seed_val
  Generator g(5);
  CHECK(g.initial_seed() == 5);
  CHECK(g.current_seed() == 5);
  CHECK(&g.manual_seed(9) == &g);
  CHECK(g.initial_seed() == 9);
  g.set_current_seed(10);
  CHECK(g.current_seed() == 10);
  CHECK(g.device() == Device(kCPU));

  // Same seed, same tensor; different seeds, different tensors.
  Generator a(123), b(123), c(124);
  const auto ra = values<float>(rand({16}, a));
  CHECK(ra == values<float>(rand({16}, b)));
  CHECK(ra != values<float>(rand({16}, c)));
  a.manual_seed(123);
  CHECK(values<float>(rand({16}, a)) == ra);  // reseeding restarts the stream

  // get_state/set_state replay, and clone forks.
  Generator s(99);
  rand({7}, s);
  const GeneratorState saved = s.get_state();
  CHECK(saved.seed == 99);
  CHECK(saved.pos == 7);
  const auto next = values<double>(randn({9}, s, kDouble));
  s.set_state(saved);
  CHECK(values<double>(randn({9}, s, kDouble)) == next);
  s.set_state(saved);
  Generator fork = s.clone();
  CHECK(!(fork == s));
  CHECK(fork.get_state() == saved);
  CHECK(values<int64_t>(randint(1000, {5}, fork)) == values<int64_t>(randint(1000, {5}, s)));
  // Restoring into another generator replays there too.
  Generator other(1);
  other.set_state(saved);
  CHECK(other.initial_seed() == 99);

  GeneratorState bad = saved;
  bad.pos = 625;
  const GeneratorState current = s.get_state();
  CHECK_THROWS_AS(s.set_state(bad), ValueError);
  CHECK_THROWS_WITH(s.set_state(bad),
                    "Generator::set_state: invalid MT19937 position 625 (expected 0..624)");
  CHECK(s.get_state() == current);  // unchanged by the failed calls

  // seed() draws a fresh, 53-bit seed and uses it.
  Generator r;
  const uint64_t fresh = r.seed();
  CHECK(fresh < (uint64_t{1} << 53));
  CHECK(r.initial_seed() == fresh);
}

TEST_CASE("the default generator", "[ops][random]") {
  const Generator& d = detail::getDefaultCPUGenerator();
  CHECK(&d == &detail::getDefaultCPUGenerator());
  manual_seed(31);
  CHECK(d.initial_seed() == 31);
  const auto x = values<float>(rand({4}));
  manual_seed(31);
  CHECK(values<float>(rand({4})) == x);
  Generator copy = d;  // a handle: drawing through it advances the default stream
  manual_seed(31);
  rand({2}, copy);
  CHECK(values<float>(rand({2})) == std::vector<float>(x.begin() + 2, x.end()));
  // std::nullopt selects the default generator.
  manual_seed(31);
  CHECK(values<float>(rand({4}, std::nullopt)) == x);
}

TEST_CASE("concurrent draws from the default generator are serialised", "[ops][random]") {
  manual_seed(2);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([] {
      for (int k = 0; k < 10; ++k) rand({100});
    });
  }
  for (auto& t : threads) t.join();
  // Every word was consumed exactly once: 4 threads x 10 tensors x 100 floats.
  GeneratorState expected = state_after(2, 4000);
  CHECK(detail::getDefaultCPUGenerator().get_state() == expected);
}

// ==================================== Statistics =============================================
// Fixed seeds, so these are deterministic; the bounds are 5 standard errors wide.

TEST_CASE("rand is uniform on [0, 1)", "[ops][random]") {
  constexpr int n = 100000;
  for (DType d : {kFloat, kDouble}) {
    Generator g(1);
    Tensor t = rand({n}, g, d);
    double sum = 0, sq = 0, lo = 1, hi = 0;
    dispatch_dtype(d, [&]<class T>() {
      for (T v : values<T>(t)) {
        const double x = static_cast<double>(v);
        sum += x;
        sq += (x - 0.5) * (x - 0.5);
        lo = std::min(lo, x);
        hi = std::max(hi, x);
      }
    });
    CHECK(std::abs(sum / n - 0.5) < 5 * std::sqrt(1.0 / 12 / n));
    CHECK(std::abs(sq / n - 1.0 / 12) < 5 * std::sqrt((1.0 / 80 - 1.0 / 144) / n));
    CHECK(lo >= 0.0);
    CHECK(hi < 1.0);
  }
}

TEST_CASE("randn is standard normal", "[ops][random]") {
  constexpr int n = 100000;
  Generator g(1);
  const auto v = values<float>(randn({n}, g));
  double sum = 0, sq = 0;
  int beyond2 = 0;
  for (float x : v) {
    sum += x;
    sq += static_cast<double>(x) * x;
    beyond2 += std::abs(x) > 2 ? 1 : 0;
  }
  CHECK(std::abs(sum / n) < 5 / std::sqrt(double(n)));
  CHECK(std::abs(sq / n - 1) < 5 * std::sqrt(2.0 / n));
  const double p2 = 0.0455;  // P(|Z| > 2)
  CHECK(std::abs(beyond2 / double(n) - p2) < 5 * std::sqrt(p2 * (1 - p2) / n));
  CHECK(randn({3}, g, kHalf).dtype() == kHalf);
  CHECK(randn({3}, g, kBFloat16).dtype() == kBFloat16);
}

TEST_CASE("randint covers [low, high) evenly and never returns high", "[ops][random]") {
  constexpr int n = 100000;
  Generator g(1);
  const auto v = values<int64_t>(randint(-3, 4, {n}, g));
  std::vector<int> counts(7, 0);
  bool in_range = true;
  for (int64_t x : v) {
    in_range = in_range && x >= -3 && x < 4;
    if (in_range) ++counts[static_cast<std::size_t>(x + 3)];
  }
  REQUIRE(in_range);
  const double p = 1.0 / 7;
  for (int c : counts) CHECK(std::abs(c - n * p) < 5 * std::sqrt(n * p * (1 - p)));

  std::vector<bool> seen(256, false);
  for (uint8_t x : values<uint8_t>(randint(0, 256, {n}, g, kByte))) seen[x] = true;
  CHECK(std::count(seen.begin(), seen.end(), true) == 256);

  int ones = 0;
  for (bool b : values<bool>(randint(0, 2, {n}, g, kBool))) ones += b;
  CHECK(std::abs(ones - n / 2.0) < 5 * std::sqrt(n / 4.0));

  const auto small = values<int64_t>(randint(5, {1000}, g));
  CHECK(std::all_of(small.begin(), small.end(), [](int64_t x) { return x >= 0 && x < 5; }));
  const auto full_range = values<int64_t>(randint(INT64_MIN, INT64_MAX, {1000}, g));
  CHECK(std::count(full_range.begin(), full_range.end(), INT64_MAX) == 0);
  const auto as_double = values<double>(randint(-10, 10, {1000}, g, kDouble));
  CHECK(std::all_of(as_double.begin(), as_double.end(),
                    [](double x) { return x == std::floor(x) && x >= -10 && x < 10; }));
}

// ================================ dtypes, shapes, errors =====================================

TEST_CASE("random factories' dtypes, shapes and layouts", "[ops][random]") {
  CHECK(rand({2, 3}).dtype() == kFloat);
  CHECK(rand({2, 3}).sizes() == std::vector<int64_t>{2, 3});
  CHECK(rand({2, 3}).strides() == std::vector<int64_t>{3, 1});
  CHECK(rand({}).dim() == 0);
  CHECK(rand({0, 4}).numel() == 0);
  CHECK(randn({2}, kDouble).dtype() == kDouble);
  CHECK(randint(10, {3}).dtype() == kLong);
  CHECK(randint(0, 10, {3}, kInt).dtype() == kInt);
  CHECK(randint(0, 10, {3}, TensorOptions().device(kCPU)).dtype() == kLong);  // see the header
  CHECK(randint(0, 10, {3}, kFloat).dtype() == kFloat);
  CHECK(rand({2, 3, 4, 5}, MemoryFormat::ChannelsLast).strides() ==
        std::vector<int64_t>{60, 1, 15, 3});

  // *_like: the input's shape, dtype and layout; values drawn in memory order. With seed 0 a
  // transposed [2, 3] input gets torch.rand(6) laid out transposed, as torch.rand_like gives.
  Tensor t = empty_strided({2, 3}, {1, 2}, kDouble);
  manual_seed(0);
  Tensor r = rand_like(t, kFloat);
  CHECK(r.strides() == std::vector<int64_t>{1, 2});
  CHECK(r.dtype() == kFloat);
  manual_seed(0);
  CHECK(values<float>(r) == values<float>(rand({6})));
  CHECK(randn_like(t).dtype() == kDouble);
  CHECK(randn_like(t).strides() == std::vector<int64_t>{1, 2});
  Tensor ri = randint_like(t, 10);
  CHECK(ri.dtype() == kDouble);  // self's dtype, not int64
  const auto rv = values<double>(ri);
  CHECK(std::all_of(rv.begin(), rv.end(),
                    [](double x) { return x >= 0 && x < 10 && x == std::floor(x); }));
  const auto iv = values<int32_t>(randint_like(empty({50}, kInt), -2, 2));
  CHECK(std::all_of(iv.begin(), iv.end(), [](int32_t x) { return x >= -2 && x < 2; }));
  CHECK(rand_like(t, {}, MemoryFormat::Contiguous).strides() == std::vector<int64_t>{3, 1});
}

TEST_CASE("rand and randn accept only floating dtypes", "[ops][random]") {
  CHECK_THROWS_WITH(rand({2}, kLong), "\"check_uniform_bounds\" not implemented for 'Long'");
  CHECK_THROWS_WITH(rand({2}, kBool), "\"check_uniform_bounds\" not implemented for 'Bool'");
  CHECK_THROWS_WITH(rand({0}, kByte), "\"check_uniform_bounds\" not implemented for 'Byte'");
  CHECK_THROWS_WITH(randn({2}, kLong), "\"normal_kernel_cpu\" not implemented for 'Long'");
  CHECK_THROWS_WITH(randn({2}, kInt), "\"normal_kernel_cpu\" not implemented for 'Int'");
  CHECK_THROWS_WITH(rand_like(empty({2}, kShort)),
                    "\"check_uniform_bounds\" not implemented for 'Short'");
  CHECK_THROWS_WITH(randn_like(empty({2}, kChar)),
                    "\"normal_kernel_cpu\" not implemented for 'Char'");
}

TEST_CASE("randint's bounds errors, with PyTorch's messages", "[ops][random]") {
  CHECK_THROWS_WITH(randint(5, 5, {2}),
                    "random_ expects 'from' to be less than 'to', but got from=5 >= to=5");
  CHECK_THROWS_WITH(randint(6, 5, {2}),
                    "random_ expects 'from' to be less than 'to', but got from=6 >= to=5");
  CHECK_THROWS_WITH(randint(0, {2}),
                    "random_ expects 'from' to be less than 'to', but got from=0 >= to=0");
  CHECK_THROWS_WITH(randint(5, 5, {0}),  // checked even when nothing is drawn
                    "random_ expects 'from' to be less than 'to', but got from=5 >= to=5");
  const int64_t big = int64_t{1} << 40;
  struct Case {
    DType dtype;
    const char* name;
  };
  for (Case c : {Case{kBool, "bool"}, Case{kByte, "unsigned char"}, Case{kChar, "signed char"},
                 Case{kShort, "short int"}, Case{kInt, "int"}}) {
    CAPTURE(c.name);
    CHECK_THROWS_WITH(randint(0, big, {2}, c.dtype),
                      std::string("to - 1 is out of bounds for ") + c.name);
    CHECK_THROWS_WITH(randint(-big, 2, {2}, c.dtype),
                      std::string("from is out of bounds for ") + c.name);
  }
  CHECK_THROWS_WITH(randint(0, 257, {3}, kByte), "to - 1 is out of bounds for unsigned char");
  CHECK_THROWS_WITH(randint(-1, 3, {0}, kByte), "from is out of bounds for unsigned char");
  CHECK_THROWS_WITH(randint(-129, 3, {3}, kChar), "from is out of bounds for signed char");
  CHECK_THROWS_WITH(randint(-2, 3, {3}, kBool), "from is out of bounds for bool");
  CHECK_THROWS_WITH(randint(0, 65506, {3}, kHalf), "to - 1 is out of bounds for tensorplay::Half");
  CHECK_THROWS_WITH(randint(-65505, 0, {3}, kHalf), "from is out of bounds for tensorplay::Half");
  CHECK_NOTHROW(randint(0, 65505, {3}, kHalf));
  CHECK_NOTHROW(randint(0, 2, {3}, kBool));
  CHECK_NOTHROW(randint(-128, 128, {3}, kChar));
  CHECK_NOTHROW(randint(INT32_MIN, int64_t{1} << 31, {3}, kInt));
  // A range that collapses once the bounds are moved onto float values (PyTorch's update_from:
  // 2^60 + 2 rounds below from = 2^60 + 1, so from moves up one float ulp, 2^37).
  const int64_t b60 = int64_t{1} << 60;
  CHECK_THROWS_WITH(randint(b60 + 1, b60 + 3, {1}, kFloat),
                    "random_ expects 'from' casted to dtype to be less than 'to' casted to dtype, "
                    "but got from=1152921642045800448 >= to=1152921504606846979");
  CHECK_THROWS_WITH(randint_like(empty({2}, kByte), 0, 300),
                    "to - 1 is out of bounds for unsigned char");
}

TEST_CASE("random factories write only CPU tensors", "[ops][random]") {
  CHECK_THROWS_WITH(rand({2}, Device("cuda")), Catch::Contains("TENSORPLAY_USE_CUDA"));
  CHECK_THROWS_WITH(randint(3, {2}, Device("cuda")), Catch::Contains("TENSORPLAY_USE_CUDA"));
}

// Overflow: sizes whose product overflows int64, and sizes whose numel fits (2^61) but whose
// float64 bytes do not (torch 1.13's messages).
TEST_CASE("random factories refuse element and byte counts beyond int64", "[ops][random]") {
  const int64_t k29 = int64_t{1} << 29, k32 = int64_t{1} << 32;
  const std::vector<int64_t> big{2, 4, k29, k29}, huge{k32, k32};
  const std::string big_msg =
      "Storage size calculation overflowed with sizes=[2, 4, 536870912, 536870912]";
  const std::string huge_msg =
      "Storage size calculation overflowed with sizes=[4294967296, 4294967296]";
  CHECK_THROWS_MATCHES(rand(huge), Error, Catch::Message(huge_msg));
  CHECK_THROWS_MATCHES(rand(big, kDouble), Error, Catch::Message(big_msg));
  CHECK_THROWS_MATCHES(randn(huge), Error, Catch::Message(huge_msg));
  CHECK_THROWS_MATCHES(randn(big, kDouble), Error, Catch::Message(big_msg));
  CHECK_THROWS_MATCHES(randint(5, huge), Error, Catch::Message(huge_msg));
  CHECK_THROWS_MATCHES(randint(0, 5, big, kDouble), Error, Catch::Message(big_msg));
  const Tensor wide = empty_strided({int64_t{1} << 61}, {0}, kDouble);
  const std::string like_msg =
      "Storage size calculation overflowed with sizes=[2305843009213693952] and strides=[1]";
  CHECK_THROWS_MATCHES(rand_like(wide), Error, Catch::Message(like_msg));
  CHECK_THROWS_MATCHES(randn_like(wide), Error, Catch::Message(like_msg));
}

}  // namespace ops_random_test
