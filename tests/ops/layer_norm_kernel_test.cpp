// The fused layer_norm kernels (ops/layer_norm_kernel.hpp) through native_layer_norm and its
// NativeLayerNormBackward0 node, against a definition written out here in double: random shapes
// (rows of 1 to 1500 elements, normalized_shape of 1 and 2 dims), with and without weight and
// bias, contiguous, transposed, sliced and expanded inputs and gradients, several eps, Half and
// BFloat16, every CPU level, one and two threads (bit-identical), empty rows, gradcheck.
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace ops_layer_norm_kernel_test {

namespace tp = tensorplay;
using tp::Tensor;

std::vector<double> values(const Tensor& t) {
  const Tensor c = t.to(tp::kDouble).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}

void require_close(const std::vector<double>& got, const std::vector<double>& want, double tol) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", want " << want[i]);
    REQUIRE(std::abs(got[i] - want[i]) <= tol * (1 + std::abs(want[i])));
  }
}

// The definition, in double, over rows of n (row-major order of the input's elements): y, mean,
// rstd, and for a gradient dy: dx, dw, db (dw, db summed over the rows).
struct Reference {
  std::vector<double> y, mean, rstd, dx, dw, db;
};
Reference reference(const Tensor& input, int64_t n, const Tensor& weight, const Tensor& bias,
                    double eps, const Tensor& grad) {
  const std::vector<double> x = values(input);
  const std::vector<double> w = weight.defined() ? values(weight) : std::vector<double>();
  const std::vector<double> b = bias.defined() ? values(bias) : std::vector<double>();
  const std::vector<double> g = grad.defined() ? values(grad) : std::vector<double>();
  const int64_t m = n == 0 ? 0 : int64_t(x.size()) / n;
  Reference r;
  r.y.resize(x.size());
  r.dx.resize(x.size());
  r.dw.assign(std::size_t(n), 0.0);
  r.db.assign(std::size_t(n), 0.0);
  for (int64_t i = 0; i < m; ++i) {
    const double* row = x.data() + i * n;
    double mean = 0, var = 0;
    for (int64_t j = 0; j < n; ++j) mean += row[j];
    mean /= double(n);
    for (int64_t j = 0; j < n; ++j) var += (row[j] - mean) * (row[j] - mean);
    var /= double(n);
    const double rstd = 1 / std::sqrt(var + eps);
    r.mean.push_back(mean);
    r.rstd.push_back(rstd);
    auto wj = [&](int64_t j) { return w.empty() ? 1.0 : w[std::size_t(j)]; };
    for (int64_t j = 0; j < n; ++j) {
      const double xhat = (row[j] - mean) * rstd;
      r.y[std::size_t(i * n + j)] = xhat * wj(j) + (b.empty() ? 0.0 : b[std::size_t(j)]);
    }
    if (g.empty()) continue;
    // dx = rstd * (gw - mean(gw) - xhat * mean(gw * xhat)), gw = dy * w
    double mg = 0, mgx = 0;
    for (int64_t j = 0; j < n; ++j) {
      const double gw = g[std::size_t(i * n + j)] * wj(j);
      mg += gw;
      mgx += gw * (row[j] - mean) * rstd;
    }
    mg /= double(n);
    mgx /= double(n);
    for (int64_t j = 0; j < n; ++j) {
      const double xhat = (row[j] - mean) * rstd, gij = g[std::size_t(i * n + j)];
      r.dx[std::size_t(i * n + j)] = rstd * (gij * wj(j) - mg - xhat * mgx);
      r.dw[std::size_t(j)] += gij * xhat;
      r.db[std::size_t(j)] += gij;
    }
  }
  return r;
}

// `t`'s values laid out as `layout` says (same sizes and values, other strides).
Tensor laid_out(const Tensor& t, const std::string& layout) {
  if (layout == "transposed") {  // the last two dims swapped in memory
    return t.transpose(-1, -2).contiguous().transpose(-1, -2);
  }
  if (layout == "sliced") {  // every other element of a wider tensor
    std::vector<int64_t> wide = t.sizes().vec();
    wide.back() *= 2;
    Tensor w = tp::zeros(wide, t.options());
    Tensor s = w.slice(-1, 0, wide.back(), 2);
    s.copy_(t);
    return s;
  }
  return t;
}

TEST_CASE("layer_norm kernel: forward and backward against the definition", "[ops]") {
  tp::manual_seed(11);
  struct Shape {
    std::vector<int64_t> sizes;
    int64_t k;  // normalised dims
  };
  const std::vector<Shape> shapes{{{3, 1}, 1},     {{5, 7}, 1},    {{2, 3, 33}, 1},
                                  {{4, 300}, 1},   {{3, 1500}, 1}, {{2, 3, 4}, 2},
                                  {{6, 5, 70}, 2}, {{1, 1}, 1},    {{7, 257}, 1}};
  for (const Shape& s : shapes) {
    for (tp::DType dt : {tp::kFloat, tp::kDouble}) {
      for (int affine = 0; affine < 4; ++affine) {
        for (const char* layout : {"contiguous", "transposed", "sliced"}) {
          const double eps = affine == 3 ? 1e-3 : 1e-5;
          INFO("sizes " << tp::IntArrayRef(s.sizes) << " k " << s.k << " " << dt << " affine "
                        << affine << " " << layout);
          const std::vector<int64_t> norm(s.sizes.end() - s.k, s.sizes.end());
          int64_t n = 1;
          for (int64_t v : norm) n *= v;
          const Tensor x0 = tp::randn(s.sizes, tp::dtype(dt)).mul(3).add(1.5);
          const Tensor x = laid_out(x0, layout).detach().requires_grad_();
          const Tensor w =
              (affine & 1) ? tp::randn(norm, tp::dtype(dt)).requires_grad_() : Tensor();
          const Tensor b =
              (affine & 2) ? tp::randn(norm, tp::dtype(dt)).requires_grad_() : Tensor();
          const Tensor g = laid_out(tp::randn(s.sizes, tp::dtype(dt)), layout);
          const auto [y, mean, rstd] = tp::native_layer_norm(x, norm, w, b, eps);
          const Reference r = reference(x0, n, w, b, eps, g);
          const double tol = dt == tp::kFloat ? 2e-5 : 1e-12;
          CHECK(y.dtype() == dt);
          CHECK(y.sizes() == x.sizes());
          CHECK(y.is_contiguous());
          std::vector<int64_t> stat = s.sizes;
          for (int64_t d = int64_t(stat.size()) - s.k; d < int64_t(stat.size()); ++d) {
            stat[std::size_t(d)] = 1;
          }
          CHECK(mean.sizes() == tp::IntArrayRef(stat));
          CHECK(rstd.sizes() == tp::IntArrayRef(stat));
          require_close(values(y), r.y, tol);
          require_close(values(mean), r.mean, tol);
          require_close(values(rstd), r.rstd, tol);
          CHECK(y.grad_fn()->name() == "NativeLayerNormBackward0");
          y.backward(g);
          require_close(values(x.grad()), r.dx, dt == tp::kFloat ? 1e-4 : 1e-10);
          if (w.defined()) {
            CHECK(w.grad().sizes() == w.sizes());
            require_close(values(w.grad()), r.dw, dt == tp::kFloat ? 1e-4 : 1e-10);
          }
          if (b.defined()) require_close(values(b.grad()), r.db, dt == tp::kFloat ? 1e-4 : 1e-10);
        }
      }
    }
  }
}

TEST_CASE("layer_norm kernel: expanded and broadcast gradients, expanded parameters", "[ops]") {
  tp::manual_seed(12);
  const Tensor x = tp::randn({4, 6, 10}, tp::dtype(tp::kDouble)).requires_grad_();
  const Tensor w = tp::randn({10}, tp::dtype(tp::kDouble)).requires_grad_();
  const Tensor b = tp::randn({10}, tp::dtype(tp::kDouble)).requires_grad_();
  // sum() hands the node a gradient of stride 0 everywhere.
  tp::layer_norm(x, {10}, w, b).sum().backward();
  const Reference r = reference(x, 10, w, b, 1e-5, tp::ones({4, 6, 10}, tp::dtype(tp::kDouble)));
  require_close(values(x.grad()), r.dx, 1e-10);
  require_close(values(w.grad()), r.dw, 1e-10);
  require_close(values(b.grad()), r.db, 1e-10);
  // A weight expanded from a row (stride 0 along the first normalised dim) and an expanded input.
  const Tensor row = tp::randn({1, 10}, tp::dtype(tp::kDouble));
  const Tensor xe = row.expand({6, 10}).add(0).detach().requires_grad_();
  const Tensor we = tp::randn({10}, tp::dtype(tp::kDouble)).requires_grad_();
  const Tensor y = tp::layer_norm(row.expand({3, 6, 10}), {6, 10}, we.unsqueeze(0).expand({6, 10}));
  const Reference r2 =
      reference(row.expand({3, 6, 10}), 60, we.unsqueeze(0).expand({6, 10}), {}, 1e-5, Tensor());
  require_close(values(y), r2.y, 1e-12);
  CHECK(tp::autograd::gradcheck(
      [](const std::vector<Tensor>& v) {
        return tp::layer_norm(v[0].unsqueeze(0).expand({2, 6, 10}), {6, 10},
                              v[1].unsqueeze(0).expand({6, 10}));
      },
      {xe, we}));
}

TEST_CASE("layer_norm kernel: gradcheck and second derivatives", "[ops]") {
  tp::manual_seed(13);
  for (int64_t n : {int64_t(1), int64_t(3), int64_t(40)}) {
    INFO("n " << n);
    const Tensor x = tp::randn({3, n}, tp::dtype(tp::kDouble)).requires_grad_();
    const Tensor w = tp::randn({n}, tp::dtype(tp::kDouble)).requires_grad_();
    const Tensor b = tp::randn({n}, tp::dtype(tp::kDouble)).requires_grad_();
    auto f = [n](const std::vector<Tensor>& v) {
      return tp::layer_norm(v[0], {n}, v[1], v[2], 0.1);
    };
    CHECK(tp::autograd::gradcheck(f, {x, w, b}));
    const Tensor xt = tp::randn({n, 3}, tp::dtype(tp::kDouble)).t().detach().requires_grad_();
    CHECK(tp::autograd::gradcheck(f, {xt, w, b}));
    // create_graph: the formula path, differentiable again
    const Tensor g = tp::randn({3, n}, tp::dtype(tp::kDouble));
    CHECK(tp::autograd::gradcheck(
        [&](const std::vector<Tensor>& v) {
          tp::AutoGradMode on(true);
          const auto gs = tp::autograd::grad({f(v).mul(g).sum()}, {v[0], v[1]}, {}, true, true);
          return gs[0].sum().add(gs[1].square().sum());
        },
        {x, w, b}));
  }
}

TEST_CASE("layer_norm kernel: Half and BFloat16 compute in float", "[ops]") {
  tp::manual_seed(14);
  for (tp::DType dt : {tp::kHalf, tp::kBFloat16}) {
    INFO(dt);
    const Tensor x = tp::randn({5, 48}).to(dt).requires_grad_();
    const Tensor w = tp::randn({48}).to(dt).requires_grad_();
    const Tensor b = tp::randn({48}).to(dt).requires_grad_();
    const Tensor g = tp::randn({5, 48}).to(dt);
    const auto [y, mean, rstd] = tp::native_layer_norm(x, {48}, w, b, 1e-5);
    CHECK(y.dtype() == dt);
    CHECK(mean.dtype() == tp::kFloat);
    const Reference r = reference(x, 48, w, b, 1e-5, g);
    const double tol = dt == tp::kHalf ? 1e-2 : 5e-2;
    require_close(values(y), r.y, tol);
    y.backward(g);
    CHECK(x.grad().dtype() == dt);
    CHECK(w.grad().dtype() == dt);
    CHECK(b.grad().dtype() == dt);
    require_close(values(x.grad()), r.dx, 5 * tol);
    require_close(values(w.grad()), r.dw, 5 * tol);
    require_close(values(b.grad()), r.db, 5 * tol);
  }
}

TEST_CASE("layer_norm kernel: every CPU level and thread count", "[ops]") {
  tp::manual_seed(15);
  const Tensor x = tp::randn({64, 1000}).mul(4).add(2);
  const Tensor w = tp::randn({1000}), b = tp::randn({1000}), g = tp::randn({64, 1000});
  // (y, dx, dw, db) at the current level and thread count.
  auto run = [&] {
    const Tensor xr = x.detach().requires_grad_(), wr = w.detach().requires_grad_();
    const Tensor br = b.detach().requires_grad_();
    const Tensor y = tp::layer_norm(xr, {1000}, wr, br);
    y.backward(g);
    return std::vector<Tensor>{y.detach(), xr.grad(), wr.grad(), br.grad()};
  };
  const Reference r = reference(x, 1000, w, b, 1e-5, g);
  const int threads = tp::get_num_threads();
  for (auto level : {tp::detail::CpuCapability::Default, tp::detail::CpuCapability::AVX2,
                     tp::detail::CpuCapability::AVX512}) {
    INFO("level " << int(level));
    tp::detail::set_cpu_capability_for_testing(level);
    tp::set_num_threads(1);
    const std::vector<Tensor> one = run();
    tp::set_num_threads(2);
    const std::vector<Tensor> two = run();
    for (std::size_t i = 0; i < one.size(); ++i) CHECK(tp::equal(one[i], two[i]));
    require_close(values(one[0]), r.y, 2e-5);
    require_close(values(one[1]), r.dx, 1e-4);
    require_close(values(one[2]), r.dw, 1e-4);
    require_close(values(one[3]), r.db, 1e-4);
  }
  tp::detail::reset_cpu_capability_for_testing();
  tp::set_num_threads(threads);
}

TEST_CASE("layer_norm kernel: empty rows and no rows", "[ops]") {
  const auto [y, mean, rstd] = tp::native_layer_norm(tp::empty({3, 0}), {0}, {}, {}, 1e-5);
  CHECK(y.sizes() == tp::IntArrayRef{3, 0});
  CHECK(values(mean) == std::vector<double>{0, 0, 0});  // PyTorch: mean 0, rstd NaN
  for (double v : values(rstd)) CHECK(std::isnan(v));
  const Tensor x = tp::empty({0, 4}).requires_grad_();
  const Tensor w = tp::ones({4}).requires_grad_();
  const Tensor y0 = tp::layer_norm(x, {4}, w);
  CHECK(y0.sizes() == tp::IntArrayRef{0, 4});
  y0.sum().backward();
  CHECK(x.grad().sizes() == tp::IntArrayRef{0, 4});
  CHECK(values(w.grad()) == std::vector<double>{0, 0, 0, 0});
}

}  // namespace ops_layer_norm_kernel_test
