// The compute ops under several user threads at once, each op itself split over the intra-op
// pool: elementwise (contiguous, broadcast, transposed/tiled), full and partial reductions,
// softmax and batched matmul. Each thread checks its own results; a full reduction must give
// the same bits every time for a fixed thread count. Run under TSan in CI; sized for seconds.
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <thread>
#include <vector>

namespace stress_ops_stress {

using namespace tensorplay;

namespace {

// One user's workload; returns whether every result matched.
bool workload(int seed) {
  const double s = 1.0 + seed;
  Tensor a = full({256, 300}, s);  // 76800 elements: above the grain size, so split
  Tensor row = arange(300, kFloat);
  Tensor sum_row = (a + row).sum({0});  // each column: 256 * (s + j)
  bool ok = true;
  const float* p = sum_row.contiguous().data_ptr<float>();
  for (int j = 0; j < 300; ++j) ok = ok && p[j] == float(256 * (s + j));
  Tensor t = (a.t() * 2).contiguous();  // a tiled transposed walk
  ok = ok && t.sum().item<double>() == 2 * s * 256 * 300;
  Tensor total = a.sum();
  for (int k = 0; k < 3; ++k) ok = ok && a.sum().item<float>() == total.item<float>();
  Tensor sm = softmax(a, 1);
  ok = ok && std::fabs(sm.sum().item<double>() - 256.0) < 1e-3;
  Tensor b = ones({8, 32, 32}), c = full({8, 32, 32}, s);
  ok = ok && bmm(b, c).sum().item<double>() == 8.0 * 32 * 32 * 32 * s;
  Tensor x = a.clone();
  x.add_(row).mul_(0.5);
  ok = ok && x[3][7].item<double>() == (s + 7) * 0.5;
  return ok;
}

}  // namespace

TEST_CASE("ops stress: concurrent callers, each op split over the pool", "[stress][ops]") {
  const int saved = get_num_threads();
  set_num_threads(3);
  std::atomic<int> failures{0};
  std::vector<std::thread> users;
  for (int u = 0; u < 3; ++u) {
    users.emplace_back([u, &failures] {
      for (int rep = 0; rep < 4; ++rep)
        if (!workload(u + rep)) failures.fetch_add(1);
    });
  }
  for (std::thread& t : users) t.join();
  set_num_threads(saved);
  CHECK(failures.load() == 0);
}

}  // namespace stress_ops_stress
