#include "test_util.hpp"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace vulkan_softmax_test {

using namespace tensorplay;

namespace {
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInf = std::numeric_limits<float>::infinity();

DataPtr upload(const std::vector<float>& v) {
  DataPtr d = getAllocator(kVulkan)->allocate(v.size() * 4);
  vulkan::copy_host_to_device(v.data(), d, v.size() * 4);
  return d;
}

// The reference, in double, with PyTorch's stable formula (so infinities and NaN give what
// PyTorch gives).
std::vector<double> softmax_cpu(const float* x, std::uint32_t n, bool log) {
  double m = -std::numeric_limits<double>::infinity();
  bool nan = false;
  for (std::uint32_t j = 0; j < n; ++j) {
    nan = nan || std::isnan(x[j]);
    m = std::max(m, static_cast<double>(x[j]));
  }
  std::vector<double> out(n, std::nan(""));
  if (nan) return out;
  double s = 0;
  for (std::uint32_t j = 0; j < n; ++j) s += std::exp(x[j] - m);
  for (std::uint32_t j = 0; j < n; ++j) {
    out[j] = log ? (x[j] - m) - std::log(s) : std::exp(x[j] - m) / s;
  }
  return out;
}

// Runs softmax_rows into a fresh destination with dst_first elements before and 3 after the
// results, all preset to a sentinel, and checks the results and the untouched sentinels.
void check_softmax(const std::vector<float>& src, std::size_t src_first, std::uint32_t rows,
                   std::uint32_t cols, bool log, std::size_t dst_first) {
  CAPTURE(rows, cols, log, src_first, dst_first);
  const std::size_t numel = std::size_t{rows} * cols;
  const std::size_t total = dst_first + numel + 3;
  const float sentinel = -12345.5f;
  DataPtr dsrc = upload(src);
  DataPtr ddst = upload(std::vector<float>(total, sentinel));
  vulkan::softmax_rows(vulkan::buffer_of(dsrc), src_first, rows, cols, log, vulkan::buffer_of(ddst),
                       dst_first);
  std::vector<float> out(total);
  vulkan::copy_device_to_host(ddst, out.data(), total * 4);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < total; ++i) {
    if (i < dst_first || i >= dst_first + numel) {
      if (out[i] != sentinel && bad++ == 0) FAIL_CHECK("element " << i << " was written");
    }
  }
  for (std::uint32_t r = 0; r < rows; ++r) {
    const std::vector<double> want =
        softmax_cpu(src.data() + src_first + std::size_t{r} * cols, cols, log);
    for (std::uint32_t j = 0; j < cols; ++j) {
      const double w = want[j];
      const float g = out[dst_first + std::size_t{r} * cols + j];
      bool ok;
      if (std::isnan(w) || std::isnan(g) || std::isinf(w)) {
        ok = std::isnan(w) ? std::isnan(g) : g == static_cast<float>(w);
      } else {
        ok = std::fabs(g - w) <= (log ? 1e-5 + 1e-5 * std::fabs(w) : 1e-7 + 1e-4 * std::fabs(w));
      }
      if (!ok && bad++ == 0) {
        FAIL_CHECK("row " << r << " column " << j << ": got " << g << ", want " << w);
      }
    }
  }
  CHECK(bad == 0);
}
}  // namespace

TEST_CASE("softmax_rows matches a double reference on random shapes", "[vulkan][softmax]") {
  TP_REQUIRE_VULKAN();
  auto& gen = tp_vk_test::rng();
  const std::uint32_t col_choices[] = {0, 1, 2, 255, 256, 257, 513, 2000};
  for (int trial = 0; trial < 60; ++trial) {
    const bool log = trial % 2 == 1;
    const std::uint32_t rows = trial % 11 == 0 ? 0 : (trial % 5 == 0 ? 1 : gen() % 30);
    const std::uint32_t cols = trial % 3 == 0 ? col_choices[gen() % 8] : gen() % 600;
    const std::size_t src_first = gen() % 5, dst_first = gen() % 4;
    // Values up to +-20, some trials shifted by a large offset (only stable with the max
    // subtracted), a few -inf (masked) entries.
    const float shift = gen() % 4 == 0 ? 5000.0f : 0.0f;
    std::vector<float> src(src_first + std::size_t{rows} * cols + 1);
    for (auto& v : src) {
      v = shift + static_cast<float>(static_cast<std::int64_t>(gen() % 4000001) - 2000000) / 1e5f;
      if (gen() % 200 == 0) v = -kInf;
    }
    check_softmax(src, src_first, rows, cols, log, dst_first);
  }
}

TEST_CASE("softmax_rows of one long row", "[vulkan][softmax]") {
  TP_REQUIRE_VULKAN();
  auto& gen = tp_vk_test::rng();
  const std::uint32_t cols = 300000;
  std::vector<float> src(cols + 2);
  for (auto& v : src) v = static_cast<float>(gen() % 1000000) / 1e5f;  // [0, 10)
  check_softmax(src, 2, 1, cols, false, 1);
  check_softmax(src, 2, 1, cols, true, 0);
}

TEST_CASE("softmax_rows NaN and infinity semantics", "[vulkan][softmax]") {
  TP_REQUIRE_VULKAN();
  const std::vector<float> src = {
      1,     2,     3,     4,      // ordinary
      1,     kNaN,  3,     4,      // NaN: the whole row NaN
      -kInf, 0,     -kInf, 1,      // masked entries: 0 (softmax), -inf (log_softmax)
      -kInf, -kInf, -kInf, -kInf,  // all masked: NaN, as in PyTorch
      kInf,  0,     1,     2,      // +inf: NaN (inf - inf)
      1000,  1001,  1002,  1003,   // = row 0: the max is subtracted first
  };
  for (bool log : {false, true}) {
    check_softmax(src, 0, 6, 4, log, 0);
    DataPtr dsrc = upload(src);
    DataPtr ddst = getAllocator(kVulkan)->allocate(src.size() * 4);
    vulkan::softmax_rows(vulkan::buffer_of(dsrc), 0, 6, 4, log, vulkan::buffer_of(ddst), 0);
    std::vector<float> out(src.size());
    vulkan::copy_device_to_host(ddst, out.data(), out.size() * 4);
    for (int j = 0; j < 4; ++j) {
      CAPTURE(log, j);
      CHECK(std::isnan(out[4 + j]));
      CHECK(std::isnan(out[12 + j]));
      CHECK(std::isnan(out[16 + j]));
      CHECK(std::fabs(out[20 + j] - out[j]) <= 1e-6f);
    }
    CHECK(out[8] == (log ? -kInf : 0.0f));
    CHECK(out[10] == (log ? -kInf : 0.0f));
  }
}

TEST_CASE("softmax_rows folds rows beyond maxComputeWorkGroupCount[0] into y",
          "[vulkan][softmax]") {
  TP_REQUIRE_VULKAN();
  const std::uint64_t max_x = vulkan::context().limits().maxComputeWorkGroupCount[0];
  const auto rows = static_cast<std::uint32_t>(std::min<std::uint64_t>(max_x + 77, 1u << 20));
  const std::uint32_t cols = 2;
  std::vector<float> src(std::size_t{rows} * cols);
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<float>((i * 7919) % 100) / 9;
  check_softmax(src, 0, rows, cols, false, 0);
}

TEST_CASE("softmax_rows checks its arguments", "[vulkan][softmax]") {
  TP_REQUIRE_VULKAN();
  DataPtr d = getAllocator(kVulkan)->allocate(64 * 4);
  DataPtr e = getAllocator(kVulkan)->allocate(64 * 4);
  const vulkan::BufferRange r = vulkan::buffer_of(d), s = vulkan::buffer_of(e);
  CHECK_THROWS_AS(vulkan::softmax_rows(r, 1, 8, 8, false, s, 0), IndexError);  // reads 64
  CHECK_THROWS_AS(vulkan::softmax_rows(r, 0, 8, 8, true, s, 1), IndexError);   // writes 64
  CHECK_THROWS_WITH(vulkan::softmax_rows(r, 0, 8, 8, true, s, 1),
                    Catch::Contains("result elements from 1 do not fit a range of 64"));
  CHECK_NOTHROW(vulkan::softmax_rows(r, 0, 8, 8, true, s, 0));
  const std::size_t big = std::size_t{1} << 32;
  CHECK_THROWS_AS(vulkan::softmax_rows(r, big, 1, 1, false, s, 0), NotImplementedError);
  CHECK_THROWS_AS(vulkan::softmax_rows(r, 0, 1, 1, false, s, big - 1), NotImplementedError);
  CHECK_THROWS_WITH(vulkan::softmax_rows(r, big, 1, 1, false, s, 0), Catch::Contains("32-bit"));
  // Empty: no-ops, whatever the offsets.
  CHECK_NOTHROW(vulkan::softmax_rows(r, 1000, 0, 8, false, s, 1000));
  CHECK_NOTHROW(vulkan::softmax_rows(r, 1000, 8, 0, false, s, 1000));
}

}  // namespace vulkan_softmax_test
