#include "test_util.hpp"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace vulkan_matmul_test {

using namespace tensorplay;
using vulkan::MatmulOperand;

namespace {
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

DataPtr upload(const std::vector<float>& v) {
  DataPtr d = getAllocator(kVulkan)->allocate(v.size() * 4);
  vulkan::copy_host_to_device(v.data(), d, v.size() * 4);
  return d;
}

// A strided batch x rows x cols operand: its host storage, device copy and MatmulOperand.
struct HostOperand {
  std::vector<float> data;
  DataPtr device;
  MatmulOperand op;
  float at(std::uint32_t b, std::uint32_t i, std::uint32_t j) const {
    return data[op.first + b * op.batch_stride + i * op.row_stride + j * op.col_stride];
  }
};

// A random layout: row-major or transposed, padded rows, a random first element, and a batch,
// row or column dimension broadcast (stride 0) now and then.
HostOperand random_operand(std::uint32_t batch, std::uint32_t rows, std::uint32_t cols,
                           std::mt19937_64& gen) {
  HostOperand h;
  const bool transposed = gen() % 2 == 0;
  const std::int64_t pad = static_cast<std::int64_t>(gen() % 3);
  std::int64_t rs = transposed ? 1 : cols + pad;
  std::int64_t cs = transposed ? rows + pad : 1;
  std::int64_t bs = static_cast<std::int64_t>(rows + pad) * (cols + pad) + pad;
  if (gen() % 5 == 0) bs = 0;
  if (gen() % 6 == 0) rs = 0;
  if (gen() % 6 == 0) cs = 0;
  const std::size_t first = gen() % 4;
  std::size_t last = first;
  if (batch > 0) last += static_cast<std::size_t>(bs) * (batch - 1);
  if (rows > 0) last += static_cast<std::size_t>(rs) * (rows - 1);
  if (cols > 0) last += static_cast<std::size_t>(cs) * (cols - 1);
  h.data.resize(last + 1 + gen() % 3);
  for (auto& v : h.data) {
    v = static_cast<float>(static_cast<std::int64_t>(gen() % 2000001) - 1000000) / 1e6f;
  }
  h.device = upload(h.data);
  h.op = MatmulOperand{vulkan::buffer_of(h.device), first, bs, rs, cs};
  return h;
}

// Runs bmm into a fresh C with c_first elements before and 2 after, preset to a sentinel, and
// compares with a double reference (tolerance 1e-4 relative and absolute, times sqrt(k)).
void check_bmm(const HostOperand& a, const HostOperand& b, std::uint32_t batch, std::uint32_t m,
               std::uint32_t n, std::uint32_t k, float alpha, const HostOperand* bias, float beta,
               std::size_t c_first) {
  CAPTURE(batch, m, n, k, alpha, beta, bias != nullptr, c_first);
  CAPTURE(a.op.first, a.op.batch_stride, a.op.row_stride, a.op.col_stride);
  CAPTURE(b.op.first, b.op.batch_stride, b.op.row_stride, b.op.col_stride);
  const std::size_t numel = std::size_t{batch} * m * n;
  const std::size_t total = c_first + numel + 2;
  const float sentinel = -777.25f;
  DataPtr dc = upload(std::vector<float>(total, sentinel));
  vulkan::bmm(a.op, b.op, batch, m, n, k, vulkan::buffer_of(dc), c_first, alpha,
              bias != nullptr ? &bias->op : nullptr, beta);
  std::vector<float> out(total);
  vulkan::copy_device_to_host(dc, out.data(), total * 4);
  std::size_t bad = 0;
  for (std::size_t i = 0; i < total; ++i) {
    if ((i < c_first || i >= c_first + numel) && out[i] != sentinel && bad++ == 0) {
      FAIL_CHECK("element " << i << " outside C was written");
    }
  }
  const double tol = 1e-4 * std::sqrt(std::max<double>(k, 1));
  for (std::uint32_t bi = 0; bi < batch; ++bi) {
    for (std::uint32_t i = 0; i < m; ++i) {
      for (std::uint32_t j = 0; j < n; ++j) {
        double want = 0;
        for (std::uint32_t l = 0; l < k; ++l) {
          want += static_cast<double>(a.at(bi, i, l)) * b.at(bi, l, j);
        }
        want *= alpha;
        if (bias != nullptr && beta != 0) want += static_cast<double>(beta) * bias->at(bi, i, j);
        const float got = out[c_first + (std::size_t{bi} * m + i) * n + j];
        const bool ok = std::isnan(want) ? std::isnan(got)
                                         : std::fabs(got - want) <= tol * (1 + std::fabs(want));
        if (!ok && bad++ == 0) {
          FAIL_CHECK("C[" << bi << "][" << i << "][" << j << "] = " << got << ", want " << want);
        }
      }
    }
  }
  CHECK(bad == 0);
}
}  // namespace

TEST_CASE("bmm matches a double reference on random shapes and layouts", "[vulkan][matmul]") {
  TP_REQUIRE_VULKAN();
  auto& gen = tp_vk_test::rng();
  const std::uint32_t size_choices[] = {0, 1, 2, 15, 16, 17, 31, 33, 48};
  const float alphas[] = {1.0f, -0.5f, 2.0f};
  const float betas[] = {0.0f, 1.0f, 0.25f};
  for (int trial = 0; trial < 80; ++trial) {
    auto pick = [&] {
      return gen() % 3 == 0 ? size_choices[gen() % 9] : static_cast<std::uint32_t>(gen() % 40);
    };
    const std::uint32_t batch = trial % 17 == 0 ? 0 : 1 + static_cast<std::uint32_t>(gen() % 3);
    const std::uint32_t m = pick(), n = pick(), k = pick();
    const HostOperand a = random_operand(batch, m, k, gen);
    const HostOperand b = random_operand(batch, k, n, gen);
    const float alpha = alphas[gen() % 3];
    HostOperand bias;
    const bool with_bias = gen() % 2 == 0;
    if (with_bias) bias = random_operand(batch, m, n, gen);  // includes row/column broadcasts
    CAPTURE(trial);
    check_bmm(a, b, batch, m, n, k, alpha, with_bias ? &bias : nullptr, betas[gen() % 3],
              gen() % 5);
  }
}

TEST_CASE("bmm of larger matrices", "[vulkan][matmul]") {
  TP_REQUIRE_VULKAN();
  auto& gen = tp_vk_test::rng();
  const HostOperand a = random_operand(2, 130, 300, gen);
  const HostOperand b = random_operand(2, 300, 97, gen);
  const HostOperand bias = random_operand(2, 130, 97, gen);
  check_bmm(a, b, 2, 130, 97, 300, 1.5f, &bias, -1.0f, 3);
}

TEST_CASE("bmm with a broadcast bias row, as linear/addmm use it", "[vulkan][matmul]") {
  TP_REQUIRE_VULKAN();
  auto& gen = tp_vk_test::rng();
  // x (5 x 20) @ W^T (W: 7 x 20, so B = W^T has col_stride 20) + bias (7): bias row_stride 0.
  const HostOperand x = random_operand(1, 5, 20, gen);
  HostOperand w;
  w.data.resize(7 * 20);
  for (std::size_t i = 0; i < w.data.size(); ++i) w.data[i] = static_cast<float>(i % 11) / 10;
  w.device = upload(w.data);
  w.op = MatmulOperand{vulkan::buffer_of(w.device), 0, 0, 1, 20};  // W^T: k x n
  HostOperand bias;
  bias.data = {1, 2, 3, 4, 5, 6, 7};
  bias.device = upload(bias.data);
  bias.op = MatmulOperand{vulkan::buffer_of(bias.device), 0, 0, 0, 1};
  check_bmm(x, w, 1, 5, 7, 20, 1.0f, &bias, 1.0f, 0);
  // And a batch of 3 sharing W and the bias (batch stride 0), as a 3-D linear does.
  HostOperand xs = random_operand(3, 5, 20, gen);
  check_bmm(xs, w, 3, 5, 7, 20, 1.0f, &bias, 1.0f, 2);
}

TEST_CASE("bmm with k == 0 gives beta * bias, or zeros", "[vulkan][matmul]") {
  TP_REQUIRE_VULKAN();
  auto& gen = tp_vk_test::rng();
  // Empty A and B ranges: they are not bound.
  HostOperand empty;
  empty.op = MatmulOperand{vulkan::BufferRange{}, 0, 0, 0, 0};
  check_bmm(empty, empty, 2, 3, 4, 0, 1.0f, nullptr, 0.0f, 1);
  const HostOperand bias = random_operand(2, 3, 4, gen);
  check_bmm(empty, empty, 2, 3, 4, 0, 1.0f, &bias, 0.5f, 0);
}

TEST_CASE("bmm with beta == 0 ignores NaN in the bias; NaN in A propagates", "[vulkan][matmul]") {
  TP_REQUIRE_VULKAN();
  auto& gen = tp_vk_test::rng();
  HostOperand a = random_operand(1, 4, 3, gen);
  const HostOperand b = random_operand(1, 3, 5, gen);
  HostOperand bias;
  bias.data.assign(20, kNaN);
  bias.device = upload(bias.data);
  bias.op = MatmulOperand{vulkan::buffer_of(bias.device), 0, 0, 5, 1};
  check_bmm(a, b, 1, 4, 5, 3, 1.0f, &bias, 0.0f, 0);
  a.data[a.op.first + a.op.row_stride * 2] = kNaN;  // A[0][2][0]
  a.device = upload(a.data);
  a.op.buffer = vulkan::buffer_of(a.device);
  check_bmm(a, b, 1, 4, 5, 3, 1.0f, nullptr, 0.0f, 0);
}

TEST_CASE("bmm splits a batch beyond maxComputeWorkGroupCount[2]", "[vulkan][matmul]") {
  TP_REQUIRE_VULKAN();
  auto& gen = tp_vk_test::rng();
  const std::uint64_t max_z = vulkan::context().limits().maxComputeWorkGroupCount[2];
  if (max_z > (1u << 17)) {
    WARN("maxComputeWorkGroupCount[2] is " << max_z << ": batch splitting not exercised");
  }
  const auto batch = static_cast<std::uint32_t>(std::min<std::uint64_t>(max_z + 3, 1u << 17));
  const HostOperand a = random_operand(batch, 2, 1, gen);
  const HostOperand b = random_operand(batch, 1, 1, gen);
  check_bmm(a, b, batch, 2, 1, 1, 1.0f, nullptr, 0.0f, 1);
}

TEST_CASE("bmm checks its arguments", "[vulkan][matmul]") {
  TP_REQUIRE_VULKAN();
  DataPtr d = getAllocator(kVulkan)->allocate(64 * 4);
  DataPtr e = getAllocator(kVulkan)->allocate(64 * 4);
  const vulkan::BufferRange r = vulkan::buffer_of(d), c = vulkan::buffer_of(e);
  const MatmulOperand ok{r, 0, 64, 8, 1};  // 8 x 8
  CHECK_NOTHROW(vulkan::bmm(ok, ok, 1, 8, 8, 8, c, 0));
  // C: 64 elements.
  CHECK_THROWS_AS(vulkan::bmm(ok, ok, 1, 8, 8, 8, c, 1), IndexError);
  CHECK_THROWS_WITH(vulkan::bmm(ok, ok, 1, 8, 8, 8, c, 1),
                    Catch::Contains("destination range of 64"));
  // An operand reading past its range (A from element 1 reads 64).
  const MatmulOperand shifted{r, 1, 0, 8, 1};
  CHECK_THROWS_AS(vulkan::bmm(shifted, ok, 1, 8, 8, 8, c, 0), IndexError);
  CHECK_THROWS_WITH(vulkan::bmm(ok, shifted, 1, 8, 8, 8, c, 0),
                    Catch::Contains("operand b reads element 64"));
  CHECK_THROWS_AS(vulkan::bmm(ok, ok, 1, 8, 8, 8, c, 0, 1.0f, &shifted, 1.0f), IndexError);
  // float64 elements: the same 256 bytes hold 32 of them.
  CHECK_THROWS_AS(vulkan::bmm(ok, ok, 1, 8, 8, 8, c, 0, 1.0, nullptr, 0.0, kHalf), TypeError);
  if (vulkan::context().has_float64()) {
    CHECK_THROWS_WITH(vulkan::bmm(ok, ok, 1, 8, 8, 8, c, 0, 1.0, nullptr, 0.0, kDouble),
                      Catch::Contains("do not fit a destination range of 32"));
  }
  // A batch of 2 with batch stride 64 reads past the range; batch stride 0 broadcasts.
  CHECK_THROWS_AS(vulkan::bmm(ok, ok, 2, 4, 4, 4, c, 0), IndexError);
  const MatmulOperand bcast{r, 0, 0, 8, 1};
  CHECK_NOTHROW(vulkan::bmm(bcast, bcast, 2, 4, 4, 4, c, 0));
  // Negative strides.
  const MatmulOperand neg{r, 63, 0, -8, 1};
  CHECK_THROWS_AS(vulkan::bmm(neg, ok, 1, 8, 8, 8, c, 0), ValueError);
  // Offsets and strides beyond 32-bit indices; a huge stride of a size-1 dimension is fine.
  const std::int64_t big = std::int64_t{1} << 32;
  const MatmulOperand far{r, static_cast<std::size_t>(big), 0, 8, 1};
  CHECK_THROWS_AS(vulkan::bmm(far, ok, 1, 8, 8, 8, c, 0), NotImplementedError);
  const MatmulOperand wide{r, 0, 0, big, 1};
  CHECK_THROWS_AS(vulkan::bmm(wide, ok, 1, 8, 8, 8, c, 0), NotImplementedError);
  CHECK_THROWS_WITH(vulkan::bmm(wide, ok, 1, 8, 8, 8, c, 0), Catch::Contains("32-bit"));
  CHECK_NOTHROW(vulkan::bmm(wide, ok, 1, 1, 8, 8, c, 0));
  CHECK_THROWS_AS(vulkan::bmm(ok, ok, 1, 8, 8, 8, c, static_cast<std::size_t>(big)),
                  NotImplementedError);
  // Empty C: a no-op, whatever the operands.
  CHECK_NOTHROW(vulkan::bmm(far, neg, 0, 8, 8, 8, c, 1000));
  CHECK_NOTHROW(vulkan::bmm(far, neg, 1, 0, 8, 8, c, 1000));
  CHECK_NOTHROW(vulkan::bmm(far, neg, 1, 8, 0, 8, c, 1000));
}

}  // namespace vulkan_matmul_test
