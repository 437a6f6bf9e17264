// Differential test: random sequences of ops on random shapes and memory layouts, each step
// checked against a naive reference (row-major std::vector<double>, loops written here). The
// layouts are what the engine must see through: contiguous, permuted (transposed) storage,
// every-other-element slices, broadcast operands both implicit and as expand()ed views, and
// in-place and out= forms writing into strided destinations.
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <numeric>
#include <random>
#include <string>
#include <vector>

namespace ops_differential_test {

using namespace tensorplay;

namespace {

using Shape = std::vector<int64_t>;

struct Ref {
  Shape shape;
  std::vector<double> v;  // row-major
};

int64_t numel_of(const Shape& s) {
  return std::accumulate(s.begin(), s.end(), int64_t{1}, std::multiplies<>());
}

// Row-major index of `idx` (right-aligned) in `shape`, where size-1 dims broadcast.
int64_t broadcast_offset(const Shape& shape, const Shape& idx) {
  int64_t off = 0;
  const std::size_t lead = idx.size() - shape.size();
  for (std::size_t d = 0; d < shape.size(); ++d) {
    off = off * shape[d] + (shape[d] == 1 ? 0 : idx[lead + d]);
  }
  return off;
}

void next_index(Shape& idx, const Shape& shape) {
  for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) {
    if (++idx[d] < shape[d]) return;
    idx[d] = 0;
  }
}

Shape broadcast_shape(const Shape& a, const Shape& b) {
  Shape out(std::max(a.size(), b.size()));
  for (std::size_t i = 0; i < out.size(); ++i) {
    const int64_t sa = i < out.size() - a.size() ? 1 : a[i - (out.size() - a.size())];
    const int64_t sb = i < out.size() - b.size() ? 1 : b[i - (out.size() - b.size())];
    out[i] = sa == 1 ? sb : sa;
  }
  return out;
}

Ref ref_binary(const Ref& a, const Ref& b, const std::function<double(double, double)>& f) {
  Ref r{broadcast_shape(a.shape, b.shape), {}};
  const int64_t n = numel_of(r.shape);
  r.v.resize(n);
  Shape idx(r.shape.size(), 0);
  for (int64_t i = 0; i < n; ++i, next_index(idx, r.shape)) {
    r.v[i] = f(a.v[broadcast_offset(a.shape, idx)], b.v[broadcast_offset(b.shape, idx)]);
  }
  return r;
}

Ref ref_unary(const Ref& a, const std::function<double(double)>& f) {
  Ref r = a;
  for (double& x : r.v) x = f(x);
  return r;
}

// Sum / mean / max over one dim.
Ref ref_reduce(const Ref& a, int64_t dim, bool keepdim, int kind) {
  Shape out = a.shape;
  out[dim] = 1;
  Ref r{out, std::vector<double>(numel_of(out), kind == 2 ? -INFINITY : 0.0)};
  Shape idx(a.shape.size(), 0);
  for (int64_t i = 0; i < numel_of(a.shape); ++i, next_index(idx, a.shape)) {
    Shape o = idx;
    o[dim] = 0;
    double& acc = r.v[broadcast_offset(out, o)];
    acc = kind == 2 ? std::max(acc, a.v[i]) : acc + a.v[i];
  }
  if (kind == 1)
    for (double& x : r.v) x /= double(a.shape[dim]);
  if (!keepdim) r.shape.erase(r.shape.begin() + dim);
  return r;
}

Ref ref_matmul(const Ref& a, const Ref& b) {  // 2-d only
  const int64_t m = a.shape[0], k = a.shape[1], n = b.shape[1];
  Ref r{{m, n}, std::vector<double>(m * n, 0.0)};
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j)
      for (int64_t p = 0; p < k; ++p) r.v[i * n + j] += a.v[i * k + p] * b.v[p * n + j];
  return r;
}

Ref ref_transpose(const Ref& a, int64_t d0, int64_t d1) {
  Ref r{a.shape, std::vector<double>(a.v.size())};
  std::swap(r.shape[d0], r.shape[d1]);
  Shape idx(a.shape.size(), 0);
  for (int64_t i = 0; i < numel_of(a.shape); ++i, next_index(idx, a.shape)) {
    Shape o = idx;
    std::swap(o[d0], o[d1]);
    r.v[broadcast_offset(r.shape, o)] = a.v[i];
  }
  return r;
}

Ref to_ref(const Tensor& t) {
  Tensor c = t.to(kDouble).contiguous();
  const double* p = c.data_ptr<double>();
  return Ref{Shape(t.sizes().begin(), t.sizes().end()), std::vector<double>(p, p + t.numel())};
}

class Gen {
 public:
  explicit Gen(uint32_t seed) : rng_(seed) {}
  int64_t uniform(int64_t lo, int64_t hi) {  // inclusive
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng_);
  }
  bool coin() { return uniform(0, 1) == 1; }

  Shape shape(int64_t max_rank) {
    Shape s(uniform(1, max_rank));
    for (int64_t& x : s) x = uniform(1, 5);
    return s;
  }
  std::vector<double> values(int64_t n) {
    std::vector<double> v(n);
    for (double& x : v) x = double(uniform(-40, 40)) / 8.0;  // exact in float too
    return v;
  }

  // A tensor holding `r` in one of several layouts.
  Tensor materialize(const Ref& r, DType dt) {
    Tensor base = from_blob(const_cast<double*>(r.v.data()), r.shape, kDouble).to(dt).clone();
    const int64_t nd = int64_t(r.shape.size());
    switch (uniform(0, 2)) {
      case 0: return base;
      case 1: {  // the same values with permuted storage order
        std::vector<int64_t> perm(nd);
        std::iota(perm.begin(), perm.end(), 0);
        std::shuffle(perm.begin(), perm.end(), rng_);
        std::vector<int64_t> inv(nd);
        for (int64_t d = 0; d < nd; ++d) inv[perm[d]] = d;
        return base.permute(perm).contiguous().permute(inv);
      }
      default: {  // every other element along each dim of a bigger buffer
        Shape big = r.shape;
        for (int64_t& x : big) x *= 2;
        Tensor holder = zeros(big, dt);
        Tensor view = holder;
        for (int64_t d = 0; d < nd; ++d) view = view.slice(d, 0, big[d], 2);
        view.copy_(base);
        return view;
      }
    }
  }

  // A shape that broadcasts against `s`: some dims set to 1, maybe fewer leading dims.
  Shape broadcastable(const Shape& s) {
    Shape b(s.begin() + uniform(0, int64_t(s.size()) - 1), s.end());
    for (int64_t& x : b)
      if (uniform(0, 3) == 0) x = 1;
    return b;
  }

 private:
  std::mt19937 rng_;
};

void check_close(const Tensor& t, const Ref& r, double tol, const std::string& trace) {
  INFO(trace);
  REQUIRE(Shape(t.sizes().begin(), t.sizes().end()) == r.shape);
  const Ref got = to_ref(t);
  for (std::size_t i = 0; i < r.v.size(); ++i) {
    const double e = r.v[i], g = got.v[i];
    if (std::isnan(e)) {
      REQUIRE(std::isnan(g));
    } else {
      REQUIRE(std::fabs(g - e) <= tol * (1.0 + std::fabs(e)));
    }
  }
}

void run_sequence(uint32_t seed, DType dt, double tol) {
  Gen g(seed);
  Ref x{g.shape(4), {}};
  x.v = g.values(numel_of(x.shape));
  Tensor t = g.materialize(x, dt);
  std::string trace = "seed " + std::to_string(seed) + " shape " + std::to_string(x.shape.size());
  for (int step = 0; step < 12; ++step) {
    const int64_t op = g.uniform(0, 11);
    trace += " op" + std::to_string(op);
    Ref y{g.broadcastable(x.shape), {}};
    y.v = g.values(numel_of(y.shape));
    Tensor u = g.materialize(y, dt);
    if (g.coin()) u = u.expand(x.shape);  // an explicit zero-stride view
    switch (op) {
      case 0: t = t + u, x = ref_binary(x, y, std::plus<>()); break;
      case 1:
        t = sub(t, u, 2), x = ref_binary(x, y, [](double a, double b) { return a - 2 * b; });
        break;
      case 2: t = t * u, x = ref_binary(x, y, std::multiplies<>()); break;
      case 3:
        t = maximum(t, u), x = ref_binary(x, y, [](double a, double b) { return std::max(a, b); });
        break;
      case 4: {  // in place into a strided destination
        Tensor dst = g.materialize(x, dt);
        dst.mul_(u);
        t = dst, x = ref_binary(x, y, std::multiplies<>());
        break;
      }
      case 5: {  // out= into a destination of another layout and the wrong shape
        Tensor out = empty({0}, dt);
        add_out(out, t, u);
        t = out, x = ref_binary(x, y, std::plus<>());
        break;
      }
      case 6: t = tanh(t), x = ref_unary(x, [](double a) { return std::tanh(a); }); break;
      case 7: t = neg(abs(t)), x = ref_unary(x, [](double a) { return -std::fabs(a); }); break;
      case 8: {
        if (x.shape.size() < 2) break;
        const int64_t d0 = g.uniform(0, int64_t(x.shape.size()) - 1);
        const int64_t d1 = g.uniform(0, int64_t(x.shape.size()) - 1);
        t = t.transpose(d0, d1), x = ref_transpose(x, d0, d1);
        break;
      }
      case 9: {  // a reduction along one dim (kept to rank >= 1)
        const int64_t d = g.uniform(0, int64_t(x.shape.size()) - 1);
        const bool keep = x.shape.size() == 1 || g.coin();
        const int kind = int(g.uniform(0, 2));
        if (kind == 0) t = t.sum({d}, keep);
        if (kind == 1) t = t.mean({d}, keep);
        if (kind == 2) t = t.amax({d}, keep);
        x = ref_reduce(x, d, keep, kind);
        break;
      }
      case 10: {  // matmul with a random right operand, on the last two dims flattened to 2-d
        const int64_t rows = numel_of(x.shape) / x.shape.back(), cols = x.shape.back();
        Tensor a2 = t.reshape({rows, cols});
        Ref a{{rows, cols}, x.v};
        Ref b{{cols, g.uniform(1, 4)}, {}};
        b.v = g.values(numel_of(b.shape));
        t = matmul(a2, g.materialize(b, dt)), x = ref_matmul(a, b);
        break;
      }
      default:
        t = sigmoid(t), x = ref_unary(x, [](double a) { return 1 / (1 + std::exp(-a)); });
        break;
    }
    check_close(t, x, tol, trace);
    // Keep magnitudes bounded so that float32 tolerances stay meaningful.
    double m = 0;
    for (double v : x.v) m = std::max(m, std::fabs(v));
    if (m > 64) {
      t = t * 0.015625, x = ref_unary(x, [](double a) { return a * 0.015625; });
    }
  }
}

}  // namespace

TEST_CASE("differential: random op sequences match a naive reference (float64)",
          "[ops][differential]") {
  for (uint32_t seed = 1; seed <= 300; ++seed) run_sequence(seed, kDouble, 1e-12);
}

TEST_CASE("differential: random op sequences match a naive reference (float32, 2 threads)",
          "[ops][differential]") {
  const int before = get_num_threads();
  set_num_threads(2);
  for (uint32_t seed = 1000; seed <= 1150; ++seed) run_sequence(seed, kFloat, 1e-4);
  set_num_threads(before);
}

}  // namespace ops_differential_test
