// parallel_for / parallel_reduce / set_num_threads: the partition rule (PyTorch's native one),
// inline execution, nesting, thread numbers, exceptions, and determinism. Every test restores
// the thread count it found.
#include <tensorplay/ops/parallel.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace ops_parallel_test {

using namespace tensorplay;

namespace {

// Restores the thread count at the end of a test, whatever it throws.
struct NumThreadsGuard {
  int saved = get_num_threads();
  ~NumThreadsGuard() { set_num_threads(saved); }
};

struct Chunk {
  int64_t begin, end;
  int thread_num;
  std::thread::id thread;
  bool in_region;
  bool operator<(const Chunk& o) const { return begin < o.begin; }
};

// Runs parallel_for and returns its chunks in range order.
std::vector<Chunk> chunks_of(int64_t begin, int64_t end, int64_t grain) {
  std::mutex m;
  std::vector<Chunk> out;
  parallel_for(begin, end, grain, [&](int64_t b, int64_t e) {
    std::lock_guard<std::mutex> lock(m);
    out.push_back({b, e, get_thread_num(), std::this_thread::get_id(), in_parallel_region()});
  });
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<float> random_floats(std::size_t n, uint32_t seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<float> dist(-1000.0f, 1000.0f);
  std::vector<float> v(n);
  for (float& x : v) x = dist(gen);
  return v;
}

uint32_t bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

float parallel_sum(const std::vector<float>& v, int64_t grain) {
  return parallel_reduce(
      int64_t{0}, static_cast<int64_t>(v.size()), grain, 0.0f,
      [&](int64_t b, int64_t e, float acc) {
        for (int64_t i = b; i < e; ++i) acc += v[static_cast<std::size_t>(i)];
        return acc;
      },
      [](float a, float b) { return a + b; });
}

// A tensor op run from a static destructor (after main returned) must still find the pool:
// it is never destroyed. The check runs at exit of this binary; a failure aborts it.
struct ParallelAtExit {
  ~ParallelAtExit() {
    set_num_threads(2);
    std::atomic<int64_t> covered{0};
    parallel_for(0, 1 << 16, 1 << 10, [&](int64_t b, int64_t e) { covered += e - b; });
    if (covered != 1 << 16) std::abort();
  }
} parallel_at_exit;

}  // namespace

// ---- From the user's side ---------------------------------------------------------------------

TEST_CASE("parallel_for: an elementwise loop, as an op writes it", "[ops][parallel]") {
  NumThreadsGuard restore;
  set_num_threads(2);
  const int64_t n = 3 * internal::GRAIN_SIZE + 5;
  std::vector<float> a(n), b(n), c(n);
  for (int64_t i = 0; i < n; ++i) b[i] = float(i), c[i] = 0.5f * float(i);
  parallel_for(0, n, internal::GRAIN_SIZE, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) a[i] = b[i] + c[i];
  });
  for (int64_t i = 0; i < n; ++i) REQUIRE(a[i] == 1.5f * float(i));
}

TEST_CASE("parallel_reduce: a sum, as an op writes it", "[ops][parallel]") {
  NumThreadsGuard restore;
  set_num_threads(3);
  const int64_t n = 100000;
  const int64_t sum = parallel_reduce(
      int64_t{0}, n, int64_t{1000}, int64_t{0},
      [](int64_t b, int64_t e, int64_t acc) {
        for (int64_t i = b; i < e; ++i) acc += i;
        return acc;
      },
      [](int64_t x, int64_t y) { return x + y; });
  CHECK(sum == n * (n - 1) / 2);
}

TEST_CASE("the grain size knob and divup", "[ops][parallel]") {
  STATIC_REQUIRE(internal::GRAIN_SIZE == 32768);
  STATIC_REQUIRE(divup(10, 3) == 4);
  STATIC_REQUIRE(divup(9, 3) == 3);
  STATIC_REQUIRE(divup(1, 5) == 1);
}

// ---- set_num_threads / get_num_threads --------------------------------------------------------

TEST_CASE("set_num_threads / get_num_threads", "[ops][parallel]") {
  NumThreadsGuard restore;
  CHECK(get_num_threads() >= 1);
  set_num_threads(3);
  CHECK(get_num_threads() == 3);
  set_num_threads(1);
  CHECK(get_num_threads() == 1);
  set_num_threads(7);  // may exceed the cores: workers are threads, not cores
  CHECK(get_num_threads() == 7);
  CHECK_THROWS_MATCHES(set_num_threads(0), Error,
                       Catch::Matchers::Message("Expected positive number of threads"));
  CHECK_THROWS_AS(set_num_threads(-4), Error);
  CHECK(get_num_threads() == 7);  // a refused value leaves the setting alone
}

TEST_CASE("thread counts from the environment: the accepted forms", "[ops][parallel]") {
  CHECK(detail::parse_num_threads("4") == 4);
  CHECK(detail::parse_num_threads("16") == 16);
  CHECK(detail::parse_num_threads("4,2") == 4);  // OMP_NUM_THREADS's nested list
  CHECK(detail::parse_num_threads(nullptr) == 0);
  CHECK(detail::parse_num_threads("") == 0);
  CHECK(detail::parse_num_threads("0") == 0);
  CHECK(detail::parse_num_threads("-2") == 0);
  CHECK(detail::parse_num_threads("4x") == 0);
  CHECK(detail::parse_num_threads(" 4") == 0);
  CHECK(detail::parse_num_threads("99999999999") == 0);
  CHECK(detail::default_num_threads() >= 1);
  CHECK(detail::default_num_threads() == detail::default_num_threads());  // read once
}

TEST_CASE("outside a parallel region", "[ops][parallel]") {
  CHECK(get_thread_num() == 0);
  CHECK_FALSE(in_parallel_region());
}

// ---- The partition ----------------------------------------------------------------------------

TEST_CASE("parallel_for: chunks follow PyTorch's rule", "[ops][parallel]") {
  NumThreadsGuard restore;
  // (begin, end, grain, threads) -> chunk = max(grain, divup(n, threads)), divup(n, chunk) chunks
  using Case = std::tuple<int64_t, int64_t, int64_t, int>;
  for (auto [begin, end, grain, threads] :
       {Case{0, 1000, 100, 4}, Case{0, 1000, 300, 4}, Case{0, 1000, 600, 4}, Case{-37, 1000, 0, 3},
        Case{5, 12, 0, 4}, Case{0, 10, 1, 16}, Case{100, 100101, 7, 2}}) {
    CAPTURE(begin, end, grain, threads);
    set_num_threads(threads);
    const int64_t n = end - begin;
    const int64_t chunk = std::max(grain, divup(n, threads));
    const auto chunks = chunks_of(begin, end, grain);
    REQUIRE(static_cast<int64_t>(chunks.size()) == divup(n, chunk));
    REQUIRE(chunks.size() <= static_cast<std::size_t>(threads));
    int64_t expect = begin;  // contiguous: [begin, end) covered exactly once
    for (std::size_t t = 0; t < chunks.size(); ++t) {
      CHECK(chunks[t].begin == expect);
      CHECK(chunks[t].end == std::min(end, expect + chunk));
      if (t + 1 < chunks.size()) CHECK(chunks[t].end - chunks[t].begin >= grain);
      CHECK(chunks[t].thread_num == static_cast<int>(t));  // get_thread_num() is the task id
      CHECK(chunks[t].in_region);
      expect = chunks[t].end;
    }
    CHECK(expect == end);
    CHECK(chunks[0].thread == std::this_thread::get_id());  // the caller runs task 0
    CHECK(get_thread_num() == 0);                           // restored afterwards
    CHECK_FALSE(in_parallel_region());
  }
}

TEST_CASE("parallel_for: each element visited exactly once", "[ops][parallel]") {
  NumThreadsGuard restore;
  for (int threads : {2, 3, 4, 5}) {
    set_num_threads(threads);
    std::vector<std::atomic<int>> hits(50001);
    parallel_for(0, 50001, 997, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) hits[static_cast<std::size_t>(i)]++;
    });
    CHECK(std::all_of(hits.begin(), hits.end(), [](const std::atomic<int>& h) { return h == 1; }));
  }
}

TEST_CASE("parallel_for: runs inline for small ranges and one thread", "[ops][parallel]") {
  NumThreadsGuard restore;
  set_num_threads(4);
  const auto caller = std::this_thread::get_id();
  SECTION("range <= grain_size") {
    for (int64_t grain : {int64_t{1000}, int64_t{1001}}) {
      const auto chunks = chunks_of(0, 1000, grain);
      REQUIRE(chunks.size() == 1);
      CHECK(chunks[0].begin == 0);
      CHECK(chunks[0].end == 1000);
      CHECK(chunks[0].thread == caller);
      CHECK(chunks[0].thread_num == 0);
      CHECK_FALSE(chunks[0].in_region);  // inline is not a parallel region (PyTorch)
    }
    CHECK(chunks_of(0, 1001, 1000).size() == 2);  // one past the grain splits
  }
  SECTION("a single element, even with grain 0") {
    const auto chunks = chunks_of(41, 42, 0);
    REQUIRE(chunks.size() == 1);
    CHECK(chunks[0].thread == caller);
  }
  SECTION("one thread configured") {
    set_num_threads(1);
    const auto chunks = chunks_of(0, 1 << 20, 1);
    REQUIRE(chunks.size() == 1);
    CHECK(chunks[0].end == 1 << 20);
    CHECK(chunks[0].thread == caller);
  }
  SECTION("empty and reversed ranges call nothing") {
    CHECK(chunks_of(5, 5, 0).empty());
    CHECK(chunks_of(9, 2, 0).empty());
  }
}

TEST_CASE("parallel_for: no nested parallelism", "[ops][parallel]") {
  NumThreadsGuard restore;
  set_num_threads(4);
  std::mutex m;
  std::vector<std::string> problems;
  std::atomic<int> outer{0};
  parallel_for(0, 4000, 1000, [&](int64_t b, int64_t) {
    const int task = get_thread_num();
    const auto me = std::this_thread::get_id();
    int calls = 0;
    parallel_for(0, 1 << 20, 1, [&](int64_t ib, int64_t ie) {
      ++calls;
      std::lock_guard<std::mutex> lock(m);
      if (ib != 0 || ie != 1 << 20) problems.push_back("nested range was split");
      if (std::this_thread::get_id() != me) problems.push_back("nested ran on another thread");
      if (get_thread_num() != 0) problems.push_back("nested thread num is not 0");
      if (!in_parallel_region()) problems.push_back("nested not in a parallel region");
    });
    const int64_t nested_sum = parallel_reduce(
        int64_t{0}, int64_t{1} << 20, int64_t{1}, int64_t{0},
        [](int64_t rb, int64_t re, int64_t acc) { return acc + (re - rb); },
        [](int64_t x, int64_t y) { return x + y; });
    std::lock_guard<std::mutex> lock(m);
    if (calls != 1) problems.push_back("nested called more than once");
    if (nested_sum != int64_t{1} << 20) problems.push_back("nested reduce wrong");
    if (get_thread_num() != task || task != b / 1000) problems.push_back("thread num not restored");
    if (!in_parallel_region()) problems.push_back("region flag not restored");
    ++outer;
  });
  CHECK(outer == 4);
  CHECK(problems.empty());
  CHECK_FALSE(in_parallel_region());
}

// ---- Exceptions -------------------------------------------------------------------------------

TEST_CASE("parallel_for: an exception in a chunk reaches the caller after all chunks ran",
          "[ops][parallel]") {
  NumThreadsGuard restore;
  set_num_threads(4);
  for (int64_t bad : {0, 1, 3}) {  // the caller's own chunk, and workers' chunks
    CAPTURE(bad);
    std::atomic<int> finished{0};
    CHECK_THROWS_MATCHES(parallel_for(0, 400, 100,
                                      [&](int64_t b, int64_t) {
                                        if (b / 100 == bad) {
                                          ++finished;
                                          throw IndexError("chunk " + std::to_string(b / 100));
                                        }
                                        std::this_thread::sleep_for(std::chrono::milliseconds(2));
                                        ++finished;
                                      }),
                         IndexError, Catch::Matchers::Message("chunk " + std::to_string(bad)));
    CHECK(finished == 4);  // nothing was still running when the exception surfaced
  }
  SECTION("every chunk throws: one of them comes out") {
    try {
      parallel_for(0, 400, 100,
                   [](int64_t b, int64_t) { throw std::runtime_error(std::to_string(b)); });
      FAIL("no exception");
    } catch (const std::runtime_error& e) {
      const std::string what = e.what();
      CHECK((what == "0" || what == "100" || what == "200" || what == "300"));
    }
  }
  SECTION("inline calls throw straight through") {
    CHECK_THROWS_AS(parallel_for(0, 10, 100, [](int64_t, int64_t) { throw ValueError("x"); }),
                    ValueError);
  }
  SECTION("the pool keeps working afterwards") { CHECK(chunks_of(0, 400, 100).size() == 4); }
  CHECK_FALSE(in_parallel_region());
  CHECK(get_thread_num() == 0);
}

TEST_CASE("parallel_reduce: exceptions propagate", "[ops][parallel]") {
  NumThreadsGuard restore;
  set_num_threads(3);
  auto sum = [](int64_t b, int64_t e, int64_t acc) {
    if (b <= 250 && 250 < e) throw Error("bad element 250");
    return acc + (e - b);
  };
  CHECK_THROWS_MATCHES(
      parallel_reduce(int64_t{0}, int64_t{300}, int64_t{10}, int64_t{0}, sum, std::plus<>{}), Error,
      Catch::Matchers::Message("bad element 250"));
}

TEST_CASE("negative grain sizes are refused", "[ops][parallel]") {
  CHECK_THROWS_MATCHES(
      parallel_for(0, 10, -1, [](int64_t, int64_t) {}), Error,
      Catch::Matchers::Message("Expected grain_size >= 0 to be true, but got false."));
  CHECK_THROWS_MATCHES(
      parallel_reduce(
          int64_t{0}, int64_t{10}, int64_t{-1}, 0, [](int64_t, int64_t, int acc) { return acc; },
          std::plus<>{}),
      Error, Catch::Matchers::Message("Expected grain_size >= 0 to be true, but got false."));
}

// ---- parallel_reduce --------------------------------------------------------------------------

TEST_CASE("parallel_reduce: folds the chunk partials in chunk order", "[ops][parallel]") {
  NumThreadsGuard restore;
  set_num_threads(4);
  // A non-commutative combine shows the order: concatenation of chunk ranges.
  const std::string r = parallel_reduce(
      int64_t{0}, int64_t{40}, int64_t{10}, std::string{},
      [](int64_t b, int64_t e, std::string acc) {
        return acc + "[" + std::to_string(b) + "," + std::to_string(e) + ")";
      },
      [](const std::string& a, const std::string& b) { return a + b; });
  CHECK(r == "[0,10)[10,20)[20,30)[30,40)");
  SECTION("empty range: ident") {
    CHECK(parallel_reduce(
              int64_t{3}, int64_t{3}, int64_t{0}, 42, [](int64_t, int64_t, int) { return 0; },
              std::plus<>{}) == 42);
  }
  SECTION("small range: one f(begin, end, ident) on the caller") {
    const auto caller = std::this_thread::get_id();
    const int64_t v = parallel_reduce(
        int64_t{0}, int64_t{100}, int64_t{100}, int64_t{7},
        [&](int64_t b, int64_t e, int64_t acc) {
          CHECK(std::this_thread::get_id() == caller);
          CHECK(get_thread_num() == 0);
          return acc * 1000 + (e - b);
        },
        [](int64_t, int64_t) -> int64_t { throw std::logic_error("sf must not run"); });
    CHECK(v == 7100);
  }
  SECTION("bool results (no vector<bool> word sharing)") {
    auto all_even = [](int64_t b, int64_t e, bool acc) {
      for (int64_t i = b; i < e; ++i) acc = acc && (2 * i) % 2 == 0;
      return acc;
    };
    CHECK(parallel_reduce(int64_t{0}, int64_t{100000}, int64_t{7}, true, all_even,
                          [](bool a, bool b) { return a && b; }));
  }
}

TEST_CASE("parallel_reduce: a float sum is bit-identical run to run for a fixed thread count",
          "[ops][parallel]") {
  NumThreadsGuard restore;
  const auto v = random_floats(std::size_t{1} << 20, 1234);
  const int64_t grain = 1 << 12;
  std::vector<uint32_t> per_count;
  for (int threads : {1, 2, 3, 4}) {
    CAPTURE(threads);
    set_num_threads(threads);
    const uint32_t first = bits(parallel_sum(v, grain));
    for (int run = 0; run < 20; ++run) REQUIRE(bits(parallel_sum(v, grain)) == first);
    // And it is exactly the fold of the documented partition, computed here sequentially.
    const int64_t n = static_cast<int64_t>(v.size());
    const int64_t chunk = std::max(grain, divup(n, threads));
    float expect = 0.0f;
    for (int64_t b = 0; b < n; b += chunk) {
      float part = 0.0f;
      for (int64_t i = b; i < std::min(n, b + chunk); ++i) part += v[static_cast<std::size_t>(i)];
      expect += part;
    }
    CHECK(bits(parallel_sum(v, grain)) == bits(expect));
    per_count.push_back(first);
  }
  // Different thread counts cut differently, so the rounding may differ, but not by much.
  double exact = 0.0;
  for (float x : v) exact += x;
  set_num_threads(4);
  CHECK(parallel_sum(v, grain) == Approx(exact).epsilon(1e-4));
}

TEST_CASE("parallel_for: an elementwise loop writes the same bytes for 1, 2, 3, 4 threads",
          "[ops][parallel]") {
  NumThreadsGuard restore;
  const auto x = random_floats(200003, 99);
  std::vector<std::vector<float>> outs;
  for (int threads : {1, 2, 3, 4}) {
    set_num_threads(threads);
    std::vector<float> out(x.size());
    parallel_for(0, static_cast<int64_t>(x.size()), 4096, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        const float xi = x[static_cast<std::size_t>(i)];
        out[static_cast<std::size_t>(i)] = std::sin(xi) * xi + std::sqrt(std::fabs(xi)) / 3.0f;
      }
    });
    outs.push_back(std::move(out));
  }
  for (std::size_t k = 1; k < outs.size(); ++k) {
    CHECK(std::memcmp(outs[0].data(), outs[k].data(), outs[0].size() * sizeof(float)) == 0);
  }
}

TEST_CASE("set_num_threads takes effect at the next call, up and down", "[ops][parallel]") {
  NumThreadsGuard restore;
  for (int threads : {4, 2, 6, 1, 3, 2}) {
    set_num_threads(threads);
    const auto chunks = chunks_of(0, 6000, 1);
    CHECK(chunks.size() == static_cast<std::size_t>(threads));
  }
}

}  // namespace ops_parallel_test
