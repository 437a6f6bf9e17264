#include "test_util.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace vulkan_reduce_test {

using namespace tensorplay;
using vulkan::ReduceKind;

namespace {
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr ReduceKind kKinds[] = {ReduceKind::Sum,  ReduceKind::Mean,   ReduceKind::Amax,
                                 ReduceKind::Amin, ReduceKind::Argmax, ReduceKind::Argmin};

bool is_arg(ReduceKind k) { return k == ReduceKind::Argmax || k == ReduceKind::Argmin; }

DataPtr upload(const std::vector<float>& v) {
  DataPtr d = getAllocator(kVulkan)->allocate(v.size() * 4);
  vulkan::copy_host_to_device(v.data(), d, v.size() * 4);
  return d;
}

// The reference of one row, in double; for argmax/argmin the index (as a double).
double reduce_cpu(const float* x, std::uint32_t n, ReduceKind kind) {
  switch (kind) {
    case ReduceKind::Sum:
    case ReduceKind::Mean: {
      double s = 0;
      for (std::uint32_t j = 0; j < n; ++j) s += x[j];
      return kind == ReduceKind::Sum ? s : (n == 0 ? std::nan("") : s / n);
    }
    default: {
      const bool want_max = kind == ReduceKind::Amax || kind == ReduceKind::Argmax;
      std::uint32_t best = 0;
      for (std::uint32_t j = 0; j < n; ++j) {
        if (std::isnan(x[j])) {
          best = j;
          break;
        }
        if (want_max ? x[j] > x[best] : x[j] < x[best]) best = j;
      }
      return is_arg(kind) ? best : x[best];
    }
  }
}

// Runs reduce_rows on `src` (rows x cols from src_first) into a fresh destination with
// dst_first elements before and 2 after the results, all preset to a sentinel, and checks the
// results against the reference and the sentinels as untouched.
void check_reduce(const std::vector<float>& src, std::size_t src_first, std::uint32_t rows,
                  std::uint32_t cols, ReduceKind kind, std::size_t dst_first) {
  CAPTURE(rows, cols, static_cast<int>(kind), src_first, dst_first);
  const std::size_t total = dst_first + rows + 2;
  const std::size_t elem = is_arg(kind) ? 8 : 4;
  DataPtr dsrc = upload(src);
  DataPtr ddst = getAllocator(kVulkan)->allocate(total * elem);
  vulkan::memset(vulkan::buffer_of(ddst), 0xAB, total * elem);
  vulkan::reduce_rows(vulkan::buffer_of(dsrc), src_first, rows, cols, kind, vulkan::buffer_of(ddst),
                      dst_first);
  std::vector<std::uint8_t> raw(total * elem);
  vulkan::copy_device_to_host(ddst, raw.data(), raw.size());
  std::vector<std::uint8_t> sentinel(elem, 0xAB);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < total; ++i) {
    const std::uint8_t* at = raw.data() + i * elem;
    if (i < dst_first || i >= dst_first + rows) {
      if (std::memcmp(at, sentinel.data(), elem) != 0) {
        if (bad++ == 0) FAIL_CHECK("element " << i << " outside the results was written");
      }
      continue;
    }
    const std::size_t r = i - dst_first;
    const double want = reduce_cpu(src.data() + src_first + r * cols, cols, kind);
    if (is_arg(kind)) {
      std::int64_t got;
      std::memcpy(&got, at, 8);
      if (got != static_cast<std::int64_t>(want)) {
        if (bad++ == 0) FAIL_CHECK("row " << r << ": index " << got << ", want " << want);
      }
      continue;
    }
    float got;
    std::memcpy(&got, at, 4);
    bool ok;
    if (std::isnan(want) || std::isnan(got)) {
      ok = std::isnan(want) && std::isnan(got);
    } else if (kind == ReduceKind::Amax || kind == ReduceKind::Amin || std::isinf(want)) {
      ok = got == static_cast<float>(want);
    } else {
      double mag = 0;  // float error grows with the magnitudes summed
      for (std::uint32_t j = 0; j < cols; ++j) mag += std::fabs(src[src_first + r * cols + j]);
      if (kind == ReduceKind::Mean) mag /= cols;
      ok = std::fabs(got - want) <= 1e-5 * mag + 1e-6;
    }
    if (!ok) {
      if (bad++ == 0) FAIL_CHECK("row " << r << ": got " << got << ", want " << want);
    }
  }
  CHECK(bad == 0);
}
}  // namespace

TEST_CASE("reduce_rows matches a double reference on random shapes", "[vulkan][reduce]") {
  TP_REQUIRE_VULKAN();
  auto& gen = tp_vk_test::rng();
  const std::uint32_t col_choices[] = {0, 1, 2, 255, 256, 257, 511, 1000, 3001};
  for (int trial = 0; trial < 90; ++trial) {
    const ReduceKind kind = kKinds[trial % 6];
    const std::uint32_t rows = trial % 13 == 0 ? 0 : (trial % 7 == 0 ? 1 : gen() % 40);
    std::uint32_t cols = trial % 3 == 0 ? col_choices[gen() % 9] : gen() % 700;
    if (cols == 0 && kind != ReduceKind::Sum && kind != ReduceKind::Mean) cols = 1;
    const std::size_t src_first = gen() % 5, dst_first = gen() % 4;
    // Small integers make ties common; a few NaNs and infinities now and then.
    const bool ties = gen() % 2 == 0;
    std::vector<float> src(src_first + std::size_t{rows} * cols + gen() % 3);
    for (auto& v : src) {
      v = ties ? static_cast<float>(static_cast<int>(gen() % 7) - 3)
               : static_cast<float>(static_cast<std::int64_t>(gen() % 2000001) - 1000000) / 1e6f;
      const auto r = gen() % 1000;
      if (r < 3) v = kNaN;
      if (r == 3) v = kInf;
      if (r == 4) v = -kInf;
    }
    if (src.empty()) src.push_back(0.0f);  // a range needs at least one element
    check_reduce(src, src_first, rows, cols, kind, dst_first);
  }
}

TEST_CASE("reduce_rows of one long row", "[vulkan][reduce]") {
  TP_REQUIRE_VULKAN();
  auto& gen = tp_vk_test::rng();
  const std::uint32_t cols = 300000;
  std::vector<float> src(cols + 3);
  for (auto& v : src) v = static_cast<float>(gen() % 1000000) / 1e6f;  // all positive: no luck
  src[3 + 123457] = 2.0f;  // the max, twice: the first one wins
  src[3 + 299999] = 2.0f;
  src[3 + 77777] = -1.0f;  // the min, twice
  src[3 + 200000] = -1.0f;
  for (ReduceKind kind : kKinds) check_reduce(src, 3, 1, cols, kind, 1);
  // And a NaN late in the row: amax/amin NaN, argmax/argmin its index.
  src[3 + 250001] = kNaN;
  for (ReduceKind kind : kKinds) check_reduce(src, 3, 1, cols, kind, 0);
}

TEST_CASE("reduce_rows NaN, infinity and tie semantics", "[vulkan][reduce]") {
  TP_REQUIRE_VULKAN();
  // Rows of 5: first NaN wins arg*; ties take the first; infinities are ordinary values.
  const std::vector<float> src = {
      1,     kNaN,  3,     kNaN,  3,      // NaN at 1
      2,     5,     5,     -1,    -1,     // max 5 at 1, min -1 at 3
      -kInf, -kInf, -kInf, -kInf, -kInf,  // all -inf: amax -inf, argmax 0
      kInf,  0,     kNaN,  -kInf, kInf,   // NaN beats the infinities
      7,     7,     7,     7,     7,      // all equal: index 0
  };
  for (ReduceKind kind : kKinds) check_reduce(src, 0, 5, 5, kind, 0);
  // Exact values, beyond what check_reduce's reference says.
  DataPtr dsrc = upload(src);
  DataPtr ddst = getAllocator(kVulkan)->allocate(5 * 8);
  std::vector<std::int64_t> idx(5);
  vulkan::reduce_rows(vulkan::buffer_of(dsrc), 0, 5, 5, ReduceKind::Argmax, vulkan::buffer_of(ddst),
                      0);
  vulkan::copy_device_to_host(ddst, idx.data(), 40);
  CHECK(idx == std::vector<std::int64_t>{1, 1, 0, 2, 0});
  vulkan::reduce_rows(vulkan::buffer_of(dsrc), 0, 5, 5, ReduceKind::Argmin, vulkan::buffer_of(ddst),
                      0);
  vulkan::copy_device_to_host(ddst, idx.data(), 40);
  CHECK(idx == std::vector<std::int64_t>{1, 3, 0, 2, 0});
  std::vector<float> val(5);
  vulkan::reduce_rows(vulkan::buffer_of(dsrc), 0, 5, 5, ReduceKind::Sum, vulkan::buffer_of(ddst),
                      0);
  vulkan::copy_device_to_host(ddst, val.data(), 20);
  CHECK(std::isnan(val[0]));
  CHECK(val[1] == 10.0f);
  CHECK(val[2] == -kInf);
  CHECK(std::isnan(val[3]));
  CHECK(val[4] == 35.0f);
}

TEST_CASE("reduce_rows of empty rows: sum 0, prod 1, mean NaN", "[vulkan][reduce]") {
  TP_REQUIRE_VULKAN();
  DataPtr dsrc = upload({1.0f});
  DataPtr ddst = getAllocator(kVulkan)->allocate(3 * 4);
  std::vector<float> out(3);
  vulkan::reduce_rows(vulkan::buffer_of(dsrc), 0, 3, 0, ReduceKind::Sum, vulkan::buffer_of(ddst),
                      0);
  vulkan::copy_device_to_host(ddst, out.data(), 12);
  CHECK(out == std::vector<float>{0, 0, 0});
  vulkan::reduce_rows(vulkan::buffer_of(dsrc), 0, 3, 0, ReduceKind::Mean, vulkan::buffer_of(ddst),
                      0);
  vulkan::copy_device_to_host(ddst, out.data(), 12);
  for (float v : out) CHECK(std::isnan(v));
  vulkan::reduce_rows(vulkan::buffer_of(dsrc), 0, 3, 0, ReduceKind::Prod, vulkan::buffer_of(ddst),
                      0);
  vulkan::copy_device_to_host(ddst, out.data(), 12);
  CHECK(out == std::vector<float>{1, 1, 1});
  // No element is read: the source may be an empty range.
  vulkan::reduce_rows(vulkan::BufferRange{}, 0, 3, 0, ReduceKind::Sum, vulkan::buffer_of(ddst), 0);
  vulkan::copy_device_to_host(ddst, out.data(), 12);
  CHECK(out == std::vector<float>{0, 0, 0});
}

TEST_CASE("reduce_rows folds rows beyond maxComputeWorkGroupCount[0] into y", "[vulkan][reduce]") {
  TP_REQUIRE_VULKAN();
  const std::uint64_t max_x = vulkan::context().limits().maxComputeWorkGroupCount[0];
  const auto rows = static_cast<std::uint32_t>(std::min<std::uint64_t>(max_x + 77, 1u << 20));
  const std::uint32_t cols = 3;
  std::vector<float> src(std::size_t{rows} * cols);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>((i * 7919) % 1000);
  check_reduce(src, 0, rows, cols, ReduceKind::Argmax, 0);
}

TEST_CASE("reduce_rows checks its arguments", "[vulkan][reduce]") {
  TP_REQUIRE_VULKAN();
  DataPtr d = getAllocator(kVulkan)->allocate(64 * 4);
  const vulkan::BufferRange r = vulkan::buffer_of(d);
  for (ReduceKind kind :
       {ReduceKind::Amax, ReduceKind::Amin, ReduceKind::Argmax, ReduceKind::Argmin}) {
    CHECK_THROWS_AS(vulkan::reduce_rows(r, 0, 4, 0, kind, r, 0), IndexError);
    CHECK_THROWS_AS(vulkan::reduce_rows(r, 0, 0, 0, kind, r, 0), IndexError);
  }
  CHECK_THROWS_WITH(vulkan::reduce_rows(r, 0, 4, 0, ReduceKind::Argmax, r, 0),
                    Catch::Contains("argmax() of an empty row") &&
                        Catch::Contains("Expected reduction dim to have non-zero size"));
  CHECK_THROWS_AS(vulkan::reduce_rows(r, 0, 2, 2, static_cast<ReduceKind>(7), r, 0), ValueError);
  // Source: 8 x 8 from element 1 reads element 64.
  CHECK_THROWS_AS(vulkan::reduce_rows(r, 1, 8, 8, ReduceKind::Sum, r, 0), IndexError);
  CHECK_NOTHROW(vulkan::reduce_rows(r, 0, 8, 8, ReduceKind::Sum, r, 56));
  // Destination: 64 float32 or 32 int64 elements.
  CHECK_THROWS_AS(vulkan::reduce_rows(r, 0, 8, 8, ReduceKind::Sum, r, 57), IndexError);
  CHECK_THROWS_AS(vulkan::reduce_rows(r, 0, 8, 8, ReduceKind::Argmax, r, 25), IndexError);
  CHECK_THROWS_WITH(vulkan::reduce_rows(r, 0, 8, 8, ReduceKind::Argmax, r, 25),
                    Catch::Contains("int64"));
  CHECK_NOTHROW(vulkan::reduce_rows(r, 0, 8, 8, ReduceKind::Argmax, r, 24));
  // Offsets beyond 32-bit indices.
  const std::size_t big = std::size_t{1} << 32;
  CHECK_THROWS_AS(vulkan::reduce_rows(r, big, 1, 1, ReduceKind::Sum, r, 0), NotImplementedError);
  CHECK_THROWS_AS(vulkan::reduce_rows(r, 0, 1, 1, ReduceKind::Sum, r, big), NotImplementedError);
  CHECK_THROWS_AS(vulkan::reduce_rows(r, 0, 1, 1, ReduceKind::Argmin, r, big / 2),
                  NotImplementedError);
  CHECK_THROWS_WITH(vulkan::reduce_rows(r, big, 1, 1, ReduceKind::Sum, r, 0),
                    Catch::Contains("32-bit"));
  // rows == 0 is a no-op, whatever the offsets.
  CHECK_NOTHROW(vulkan::reduce_rows(r, 1000, 0, 5, ReduceKind::Sum, r, 1000));
}

}  // namespace vulkan_reduce_test
