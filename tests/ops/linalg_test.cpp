// mm, bmm, mv, dot, outer, addmm, addmv, addbmm, baddbmm and matmul against double-precision
// reference loops written here: every dtype, transposed / sliced / expanded operands, every
// matmul shape case, out= (resize, strides, dtype, overlap), empty shapes, thread-count
// independence and every error, with PyTorch's messages.
#include <tensorplay/ops/linalg.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

namespace ops_linalg_test {

using namespace tensorplay;
using Catch::Contains;

namespace {

using V = std::vector<double>;
using S = std::vector<int64_t>;

constexpr DType kProductDTypes[] = {kUInt8, kInt8,     kInt16,   kInt32,  kInt64,
                                    kHalf,  kBFloat16, kFloat32, kFloat64};

// Row-major values in, any dtype.
Tensor make(const S& sizes, const V& values, DType dt = kFloat) {
  Tensor t = empty(sizes, TensorOptions().dtype(dt));
  REQUIRE(t.numel() == int64_t(values.size()));
  dispatch_dtype(dt, [&]<class T>() {
    T* p = static_cast<T*>(t.data_ptr());
    for (std::size_t i = 0; i < values.size(); ++i) p[i] = static_cast<T>(values[i]);
  });
  return t;
}

int64_t numel_of(const S& sizes) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

// Deterministic pseudo-random numbers (an LCG), so failures reproduce.
struct Rng {
  uint64_t state;
  explicit Rng(uint64_t seed) : state(seed * 6364136223846793005ull + 1442695040888963407ull) {}
  uint64_t next() {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return state >> 33;
  }
  // Small integers: every product and sum below is exact in every dtype (Half included).
  double small_int(bool non_negative) {
    return non_negative ? double(next() % 4) : double(int64_t(next() % 7) - 3);
  }
  double uniform() { return double(next() % 2000001) / 1000000.0 - 1.0; }
};

Tensor rand_ints(const S& sizes, DType dt, uint64_t seed) {
  Rng r(seed);
  V v(std::size_t(numel_of(sizes)));
  for (double& x : v) x = r.small_int(dt == kUInt8);
  return make(sizes, v, dt);
}

Tensor rand_reals(const S& sizes, DType dt, uint64_t seed) {
  Rng r(seed);
  V v(std::size_t(numel_of(sizes)));
  for (double& x : v) x = r.uniform();
  return make(sizes, v, dt);
}

// The elements in row-major order of the logical shape, whatever the strides, as doubles.
V values(const Tensor& t) {
  V out;
  const int64_t nd = t.dim();
  std::vector<int64_t> idx(std::size_t(nd), 0);
  for (int64_t n = 0; n < t.numel(); ++n) {
    int64_t off = 0;
    for (int64_t d = 0; d < nd; ++d) off += idx[std::size_t(d)] * t.stride(d);
    dispatch_dtype(t.dtype(), [&]<class T>() {
      out.push_back(static_cast<double>(static_cast<const T*>(t.data_ptr())[off]));
    });
    for (int64_t d = nd - 1; d >= 0 && ++idx[std::size_t(d)] == t.size(d); --d) {
      idx[std::size_t(d)] = 0;
    }
  }
  return out;
}

// Reference C = A @ B for row-major m x k and k x n value lists.
V ref_mm(const V& a, const V& b, int64_t m, int64_t k, int64_t n) {
  V c(std::size_t(m * n), 0.0);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      double s = 0;
      for (int64_t p = 0; p < k; ++p) s += a[std::size_t(i * k + p)] * b[std::size_t(p * n + j)];
      c[std::size_t(i * n + j)] = s;
    }
  return c;
}

struct Ref {
  S shape;
  V values;
};

// NumPy's matmul on value lists, written independently of the library: a 1-d left operand is
// a row and a 1-d right operand a column (their dims dropped at the end), batch dims broadcast.
Ref ref_matmul(const S& s1, const V& v1, const S& s2, const V& v2) {
  const bool vec1 = s1.size() == 1, vec2 = s2.size() == 1;
  const S m1 = vec1 ? S{1, s1[0]} : s1;
  const S m2 = vec2 ? S{s2[0], 1} : s2;
  const int64_t n = m1[m1.size() - 2], k = m1.back(), p = m2.back();
  REQUIRE(m2[m2.size() - 2] == k);
  const S b1(m1.begin(), m1.end() - 2), b2(m2.begin(), m2.end() - 2);
  const std::size_t nb = std::max(b1.size(), b2.size());
  S batch(nb);
  for (std::size_t i = 0; i < nb; ++i) {
    const int64_t x = i + b1.size() >= nb ? b1[i + b1.size() - nb] : 1;
    const int64_t y = i + b2.size() >= nb ? b2[i + b2.size() - nb] : 1;
    REQUIRE((x == y || x == 1 || y == 1));
    batch[i] = x == 1 ? y : x;
  }
  Ref r;
  const int64_t total = numel_of(batch);
  r.values.assign(std::size_t(total * n * p), 0.0);
  S idx(nb, 0);
  for (int64_t b = 0; b < total; ++b) {
    int64_t o1 = 0, o2 = 0;  // offsets of the matrices in v1 / v2
    int64_t st1 = n * k, st2 = k * p;
    for (std::size_t d = nb; d-- > 0;) {
      if (d + b1.size() >= nb) {
        const int64_t sz = b1[d + b1.size() - nb];
        if (sz != 1) o1 += idx[d] * st1;
        st1 *= sz;
      }
      if (d + b2.size() >= nb) {
        const int64_t sz = b2[d + b2.size() - nb];
        if (sz != 1) o2 += idx[d] * st2;
        st2 *= sz;
      }
    }
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < p; ++j) {
        double s = 0;
        for (int64_t q = 0; q < k; ++q) {
          s += v1[std::size_t(o1 + i * k + q)] * v2[std::size_t(o2 + q * p + j)];
        }
        r.values[std::size_t((b * n + i) * p + j)] = s;
      }
    for (std::size_t d = nb; d-- > 0;) {
      if (++idx[d] < batch[d]) break;
      idx[d] = 0;
    }
  }
  r.shape = batch;
  if (!vec1) r.shape.push_back(n);
  if (!vec2) r.shape.push_back(p);
  return r;
}

void check_close(const V& got, const V& want, double tol) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", want " << want[i]);
    CHECK(std::fabs(got[i] - want[i]) <= tol * (1.0 + std::fabs(want[i])));
  }
}

S shape_of(const Tensor& t) { return S(t.sizes().begin(), t.sizes().end()); }

// Whether t is a view of base's bytes (what "operands are not copied" amounts to for outputs).
bool shares(const Tensor& a, const Tensor& b) { return a.storage().is_alias_of(b.storage()); }

}  // namespace

// ---- mm ---------------------------------------------------------------------------------------

TEST_CASE("linalg: mm matches the reference in every dtype", "[ops][linalg]") {
  // 5x7x6 takes the plain loop for tiny products, 9x10x11 detail::gemm.
  for (const S& mkn : {S{5, 7, 6}, S{9, 10, 11}}) {
    const int64_t m = mkn[0], k = mkn[1], n = mkn[2];
    for (DType dt : kProductDTypes) {
      INFO(dt << " " << m << "x" << k << "x" << n);
      const Tensor a = rand_ints({m, k}, dt, 1), b = rand_ints({k, n}, dt, 2);
      const Tensor c = mm(a, b);
      CHECK(c.dtype() == dt);
      CHECK(shape_of(c) == S{m, n});
      CHECK(c.is_contiguous());
      CHECK(values(c) == ref_mm(values(a), values(b), m, k, n));
      CHECK(values(a.mm(b)) == values(c));
      CHECK(values(mm(b.t(), a.t())) == values(c.t()));
      CHECK(c._version() == 0);
    }
  }
}

TEST_CASE("linalg: integer mm wraps around as two's complement", "[ops][linalg]") {
  const Tensor a = make({1, 2}, {100, 100}, kInt8), b = make({2, 1}, {2, 1}, kInt8);
  CHECK(values(mm(a, b)) == V{double(int8_t(300 - 256))});  // 300 wraps to 44
  const Tensor u = make({1, 2}, {200, 100}, kUInt8), w = make({2, 1}, {1, 1}, kUInt8);
  CHECK(values(mm(u, w)) == V{44});
}

TEST_CASE("linalg: mm of large float matrices matches a double reference", "[ops][linalg]") {
  for (DType dt : {kFloat32, kFloat64}) {
    INFO(dt);
    const Tensor a = rand_reals({67, 53}, dt, 3), b = rand_reals({53, 91}, dt, 4);
    check_close(values(mm(a, b)), ref_mm(values(a), values(b), 67, 53, 91),
                dt == kFloat32 ? 1e-5 : 1e-12);
  }
}

TEST_CASE("linalg: Half and BFloat16 mm round once from a float accumulation", "[ops][linalg]") {
  const Tensor a = rand_reals({9, 40}, kFloat, 5), b = rand_reals({40, 11}, kFloat, 6);
  const V want = ref_mm(values(a), values(b), 9, 40, 11);
  check_close(values(mm(a.to(kHalf), b.to(kHalf))), want, 2e-2);
  check_close(values(mm(a.to(kBFloat16), b.to(kBFloat16))), want, 6e-2);
  // Each element is a float sum of exact products rounded once to Half: within Half's rounding
  // of the exact sum (plus float's accumulation error, far smaller).
  const Tensor ha = a.to(kHalf), hb = b.to(kHalf);
  const V va = values(ha), vb = values(hb), got = values(mm(ha, hb));
  for (int64_t i = 0; i < 9; ++i)
    for (int64_t j = 0; j < 11; ++j) {
      double s = 0;
      for (int64_t p = 0; p < 40; ++p)
        s += va[std::size_t(i * 40 + p)] * vb[std::size_t(p * 11 + j)];
      CHECK(std::fabs(got[std::size_t(i * 11 + j)] - s) <= 1e-3 * (1 + std::fabs(s)));
    }
}

TEST_CASE("linalg: mm takes transposed, sliced and expanded operands as they are",
          "[ops][linalg]") {
  const Tensor base_a = rand_ints({8, 10}, kFloat, 7);
  const Tensor base_b = rand_ints({12, 9}, kFloat, 8);
  SECTION("transposed") {
    const Tensor a = base_a.t();  // 10 x 8
    const Tensor b = base_a;      // 8 x 10
    CHECK(values(mm(a, b)) == ref_mm(values(a), values(b), 10, 8, 10));
    CHECK(values(mm(b.t(), a.t())) == ref_mm(values(b.t()), values(a.t()), 10, 8, 10));
  }
  SECTION("sliced: every other row and column, with an offset") {
    const Tensor a = base_a.slice(0, 1, 8, 2).slice(1, 0, 10, 2);  // 4 x 5
    const Tensor b = base_b.slice(0, 2, 12, 2).slice(1, 1, 9, 3);  // 5 x 3
    REQUIRE(!a.is_contiguous());
    CHECK(values(mm(a, b)) == ref_mm(values(a), values(b), 4, 5, 3));
  }
  SECTION("expanded (zero strides)") {
    const Tensor row = rand_ints({1, 6}, kFloat, 9).expand({4, 6});
    const Tensor col = rand_ints({6, 1}, kFloat, 10).expand({6, 5});
    CHECK(values(mm(row, col)) == ref_mm(values(row), values(col), 4, 6, 5));
  }
  SECTION("a view of the result's own future storage is not involved") {
    const Tensor c = mm(base_a, base_b.slice(0, 0, 10));
    CHECK(!shares(c, base_a));
  }
}

TEST_CASE("linalg: mm errors", "[ops][linalg]") {
  const Tensor m23 = zeros({2, 3}), m45 = zeros({4, 5}), v3 = zeros({3});
  CHECK_THROWS_WITH(mm(v3, m23), Contains("self must be a matrix"));
  CHECK_THROWS_WITH(mm(m23, v3), Contains("mat2 must be a matrix"));
  CHECK_THROWS_WITH(mm(m23, m45),
                    Contains("mat1 and mat2 shapes cannot be multiplied (2x3 and 4x5)"));
  // PyTorch 1.13's kernel dispatches on the result's dtype (self's) and then reads mat2.
  CHECK_THROWS_WITH(mm(m23, zeros({3, 2}, kDouble)),
                    Contains("expected scalar type Float but found Double"));
  CHECK_THROWS_WITH(mm(m23.to(kLong), zeros({3, 2}, kInt)),
                    Contains("expected scalar type Long but found Int"));
  CHECK_THROWS_WITH(mm(zeros({2, 3}, kBool), zeros({3, 2}, kBool)),
                    Contains("\"addmm_impl_cpu_\" not implemented for 'Bool'"));
  // As in PyTorch, nothing to multiply means no kernel and no Bool error.
  CHECK(values(mm(zeros({2, 0}, kBool), zeros({0, 2}, kBool))) == V{0, 0, 0, 0});
  CHECK(mm(zeros({0, 3}, kBool), zeros({3, 2}, kBool)).numel() == 0);
  CHECK_THROWS_WITH(mm(Tensor(), m23), Contains("undefined Tensor"));
}

TEST_CASE("linalg: mm with empty dimensions", "[ops][linalg]") {
  CHECK(shape_of(mm(zeros({0, 3}), zeros({3, 4}))) == S{0, 4});
  CHECK(shape_of(mm(zeros({2, 3}), zeros({3, 0}))) == S{2, 0});
  // k == 0: zeros, even where the new tensor's bytes were garbage.
  const Tensor c = mm(empty({3, 0}), empty({0, 2}));
  CHECK(values(c) == V(6, 0.0));
  CHECK(values(mm(empty({3, 0}, kHalf), empty({0, 2}, kHalf))) == V(6, 0.0));
}

TEST_CASE("linalg: empty products never look at the factors' dtypes", "[ops][linalg]") {
  // PyTorch 1.13 dispatches its kernels only when there is something to multiply: an empty
  // result, or an empty contraction (zeros), comes back in the result's dtype, whatever the
  // other factor's (and Bool passes too), with the strides of a new tensor.
  const Tensor d32 = ones({3, 2}, kDouble);
  Tensor r = mm(d32, ones({2, 0}, kLong));
  CHECK(r.dtype() == kDouble);
  CHECK(shape_of(r) == S{3, 0});
  CHECK(r.strides() == IntArrayRef({1, 1}));
  CHECK(mm(ones({3, 2}, kLong), ones({2, 0}, kDouble)).dtype() == kLong);
  CHECK(mm(ones({0, 2}, kDouble), ones({2, 3}, kLong)).strides() == IntArrayRef({3, 1}));
  r = mm(ones({3, 0}, kDouble), ones({0, 2}, kLong));  // k == 0: zeros
  CHECK(r.dtype() == kDouble);
  CHECK(values(r) == V(6, 0.0));
  CHECK(values(mm(ones({2, 0}, kBool), ones({0, 2}, kBool))) == V(4, 0.0));
  r = matmul(d32, ones({2, 0}, kLong));
  CHECK(r.dtype() == kDouble);
  CHECK(shape_of(r) == S{3, 0});
  r = matmul(ones({2, 3, 2}, kDouble), ones({2, 0}, kLong));
  CHECK(r.dtype() == kDouble);
  CHECK(shape_of(r) == S{2, 3, 0});
  CHECK(r.strides() == IntArrayRef({3, 1, 1}));
  // 2-D @ 3-D folds the transposed right operand and transposes back: an empty result keeps
  // the transposed strides (contiguous() returns an empty tensor as it is), in mat2's dtype.
  r = matmul(ones({3, 2}, kDouble), ones({2, 2, 0}, kLong));
  CHECK(r.dtype() == kLong);
  CHECK(shape_of(r) == S{2, 3, 0});
  CHECK(r.strides() == IntArrayRef({3, 1, 3}));
  CHECK(matmul(ones({3, 2}), ones({4, 2, 5})).strides() == IntArrayRef({15, 5, 1}));
  // mv: the result has vec's dtype; an empty matrix gives it zeros.
  r = mv(ones({3, 0}, kLong), ones({0}, kDouble));
  CHECK(r.dtype() == kDouble);
  CHECK(values(r) == V(3, 0.0));
  CHECK(mv(ones({0, 2}, kLong), ones({2}, kDouble)).dtype() == kDouble);
  CHECK(values(mv(ones({2, 0}, kBool), ones({0}, kBool))) == V(2, 0.0));
  CHECK(matmul(ones({0, 2}, kDouble), ones({2}, kLong)).dtype() == kLong);
  CHECK(matmul(ones({2}, kDouble), ones({2, 0}, kLong)).dtype() == kDouble);
  // bmm: the result has batch2's dtype.
  r = bmm(ones({1, 3, 2}, kDouble), ones({1, 2, 0}, kLong));
  CHECK(r.dtype() == kLong);
  CHECK(r.strides() == IntArrayRef({3, 1, 1}));
  CHECK(values(bmm(ones({1, 3, 0}, kDouble), ones({1, 0, 2}, kLong))) == V(6, 0.0));
  CHECK(bmm(ones({0, 3, 2}, kDouble), ones({0, 2, 2}, kLong)).dtype() == kLong);
  // Non-empty, the same calls fail in the kernel.
  CHECK_THROWS_WITH(mm(d32, ones({2, 2}, kLong)),
                    Contains("expected scalar type Double but found Long"));
  CHECK_THROWS_WITH(bmm(ones({1, 3, 2}, kDouble), ones({1, 2, 2}, kLong)),
                    Contains("expected scalar type Double but found Long"));
  CHECK_THROWS_WITH(matmul(d32, ones({2}, kLong)),
                    Contains("expected scalar type Double but found Long"));
  // dot checks its dtypes first, empty or not (PyTorch's order).
  CHECK_THROWS_WITH(dot(ones({0}, kDouble), ones({0}, kLong)),
                    Contains("dot : expected both vectors to have same dtype, but found Double "
                             "and Long"));
}

// ---- out= -----------------------------------------------------------------------------------

TEST_CASE("linalg: mm_out resizes, keeps good strides and checks dtype", "[ops][linalg][out]") {
  const Tensor a = rand_ints({3, 4}, kFloat, 11), b = rand_ints({4, 5}, kFloat, 12);
  const V want = ref_mm(values(a), values(b), 3, 4, 5);
  SECTION("wrong shape: resized to a contiguous [3, 5]") {
    Tensor out = empty({7});
    const Tensor& r = mm_out(out, a, b);
    CHECK(&r == &out);
    CHECK(shape_of(out) == S{3, 5});
    CHECK(out.is_contiguous());
    CHECK(values(out) == want);
  }
  SECTION("empty out grows its storage") {
    Tensor out = empty({0});
    mm_out(out, a, b);
    CHECK(values(out) == want);
    CHECK(out.storage().nbytes() >= 15 * sizeof(float));
  }
  SECTION("right shape, transposed strides: written in place through them") {
    Tensor buf = full({5, 3}, 9.0);
    Tensor out = buf.t();
    const void* p = out.data_ptr();
    mm_out(out, a, b);
    CHECK(out.data_ptr() == p);
    CHECK(shape_of(out) == S{3, 5});
    CHECK(out.strides()[0] == 1);
    CHECK(values(out) == want);
  }
  SECTION("right shape, a slice of a bigger buffer: only the slice changes") {
    Tensor buf = full({3, 10}, 9.0);
    Tensor out = buf.slice(1, 0, 10, 2);
    mm_out(out, a, b);
    CHECK(values(out) == want);
    CHECK(values(buf.slice(1, 1, 10, 2)) == V(15, 9.0));
  }
  SECTION("dtype mismatch") {
    Tensor out = empty({3, 5}, kDouble);
    CHECK_THROWS_WITH(mm_out(out, a, b),
                      Contains("Expected out tensor to have dtype float, but got double instead"));
  }
  SECTION("version bumps once") {
    Tensor out = empty({3, 5});
    const int64_t v = out._version();
    mm_out(out, a, b);
    CHECK(out._version() == v + 1);
  }
}

TEST_CASE("linalg: out= that overlaps an operand", "[ops][linalg][out]") {
  SECTION("out is an operand: computed through a temporary, still correct") {
    Tensor a = rand_ints({4, 4}, kFloat, 13);
    const Tensor b = rand_ints({4, 4}, kFloat, 14);
    const V want = ref_mm(values(a), values(b), 4, 4, 4);
    mm_out(a, a, b);
    CHECK(values(a) == want);
    Tensor c = rand_ints({4, 4}, kFloat, 15);
    const V want2 = ref_mm(values(b), values(c), 4, 4, 4);
    mm_out(c, b, c);
    CHECK(values(c) == want2);
  }
  SECTION("partial overlap is refused") {
    Tensor buf = rand_ints({5, 4}, kFloat, 16);
    const Tensor a = buf.narrow(0, 0, 4);
    Tensor out = buf.narrow(0, 1, 4);
    CHECK_THROWS_WITH(mm_out(out, a, zeros({4, 4})),
                      Contains("unsupported operation: some elements of the input tensor and the "
                               "written-to tensor refer to a single memory location"));
  }
  SECTION("an out whose elements share addresses is refused") {
    Tensor out = zeros({1, 5}).expand({3, 5});
    CHECK_THROWS_WITH(mm_out(out, zeros({3, 4}), zeros({4, 5})),
                      Contains("unsupported operation: more than one element of the written-to "
                               "tensor refers to a single memory location"));
  }
}

TEST_CASE("linalg: every out= form", "[ops][linalg][out]") {
  const Tensor m = rand_ints({3, 4}, kFloat, 17), v = rand_ints({4}, kFloat, 18);
  const Tensor b1 = rand_ints({2, 3, 4}, kFloat, 19), b2 = rand_ints({2, 4, 5}, kFloat, 20);
  SECTION("bmm_out") {
    Tensor out = empty({1});
    bmm_out(out, b1, b2);
    CHECK(values(out) == values(bmm(b1, b2)));
    CHECK(shape_of(out) == S{2, 3, 5});
    Tensor bad = empty({2, 3, 5}, kDouble);
    CHECK_THROWS_WITH(bmm_out(bad, b1, b2),
                      Contains("Expected out tensor to have dtype float, but got double instead"));
  }
  SECTION("mv_out") {
    Tensor out = empty({2, 2});
    mv_out(out, m, v);
    CHECK(shape_of(out) == S{3});
    CHECK(values(out) == ref_mm(values(m), values(v), 3, 4, 1));
    Tensor bad = empty({3}, kInt);
    CHECK_THROWS_WITH(mv_out(bad, m, v), Contains("Expected out tensor to have dtype float"));
  }
  SECTION("dot_out") {
    Tensor out = empty({5});
    dot_out(out, v, v);
    CHECK(out.dim() == 0);
    CHECK(values(out) == ref_mm(values(v), values(v), 1, 4, 1));
    Tensor bad = empty({}, kDouble);
    CHECK_THROWS_WITH(dot_out(bad, v, v),
                      Contains("result dtype Double does not match input dtype Float"));
  }
  SECTION("addmm_out") {
    const Tensor self = rand_ints({5}, kFloat, 21), m2 = rand_ints({4, 5}, kFloat, 22);
    Tensor out = empty({0});
    addmm_out(out, self, m, m2, 2, 3);
    const V p = ref_mm(values(m), values(m2), 3, 4, 5);
    const V s = values(self);
    V want(15);
    for (int i = 0; i < 15; ++i)
      want[std::size_t(i)] = 2 * s[std::size_t(i % 5)] + 3 * p[std::size_t(i)];
    CHECK(values(out) == want);
    Tensor bad = empty({3, 5}, kHalf);
    CHECK_THROWS_WITH(addmm_out(bad, self, m, m2),
                      Contains("Expected out tensor to have dtype float, but got tensorplay::Half "
                               "instead"));
  }
  SECTION("addmm_out in place (out is self) reads self") {
    Tensor c = rand_ints({3, 5}, kFloat, 23);
    const Tensor m2 = rand_ints({4, 5}, kFloat, 24);
    const V s = values(c), p = ref_mm(values(m), values(m2), 3, 4, 5);
    addmm_out(c, c, m, m2, 1, 1);
    V want(15);
    for (int i = 0; i < 15; ++i) want[std::size_t(i)] = s[std::size_t(i)] + p[std::size_t(i)];
    CHECK(values(c) == want);
  }
  SECTION("baddbmm_out / addbmm_out / addmv_out / outer_out / matmul_out") {
    Tensor o1 = empty({0});
    baddbmm_out(o1, zeros({1}), b1, b2);
    CHECK(values(o1) == values(bmm(b1, b2)));
    Tensor o2 = empty({0});
    addbmm_out(o2, zeros({3, 5}), b1, b2, 0, 1);
    CHECK(values(o2) == values(addbmm(zeros({3, 5}), b1, b2, 0, 1)));
    Tensor o3 = empty({0});
    addmv_out(o3, zeros({3}), m, v);
    CHECK(values(o3) == values(mv(m, v)));
    Tensor o4 = empty({0}, kDouble);  // outer casts to out's dtype (float -> double is safe)
    outer_out(o4, v, v);
    CHECK(o4.dtype() == kDouble);
    CHECK(values(o4) == values(outer(v, v)));
    Tensor o5 = empty({0}, kInt);
    CHECK_THROWS_WITH(outer_out(o5, v, v),
                      Contains("result type Float can't be cast to the desired output type Int"));
    Tensor o6 = empty({0});
    ger_out(o6, v, v);
    CHECK(values(o6) == values(outer(v, v)));
  }
}

// ---- bmm / baddbmm / addbmm -------------------------------------------------------------------

TEST_CASE("linalg: bmm matches the reference, batch by batch", "[ops][linalg][bmm]") {
  for (DType dt : kProductDTypes) {
    INFO(dt);
    const Tensor a = rand_ints({3, 4, 5}, dt, 25), b = rand_ints({3, 5, 2}, dt, 26);
    const Tensor c = bmm(a, b);
    CHECK(shape_of(c) == S{3, 4, 2});
    CHECK(c.dtype() == dt);
    const Ref r = ref_matmul({3, 4, 5}, values(a), {3, 5, 2}, values(b));
    CHECK(values(c) == r.values);
    CHECK(values(a.bmm(b)) == r.values);
  }
}

TEST_CASE("linalg: bmm on permuted, sliced and expanded batches", "[ops][linalg][bmm]") {
  const Tensor base = rand_ints({5, 4, 6}, kFloat, 27);
  const Tensor a = base.permute({2, 1, 0});  // [6, 4, 5], no unit stride inside
  const Tensor b = rand_ints({6, 3, 5}, kFloat, 28).transpose(1, 2);  // [6, 5, 3]
  CHECK(values(bmm(a, b)) == ref_matmul({6, 4, 5}, values(a), {6, 5, 3}, values(b)).values);
  const Tensor e = rand_ints({1, 5, 3}, kFloat, 29).expand({6, 5, 3});  // batch stride 0
  CHECK(values(bmm(a, e)) == ref_matmul({6, 4, 5}, values(a), {6, 5, 3}, values(e)).values);
  const Tensor s = base.slice(0, 0, 5, 2);  // [3, 4, 6] every other batch
  const Tensor t = rand_ints({3, 6, 2}, kFloat, 30);
  CHECK(values(bmm(s, t)) == ref_matmul({3, 4, 6}, values(s), {3, 6, 2}, values(t)).values);
}

TEST_CASE("linalg: bmm gives the same bytes for any thread count", "[ops][linalg][bmm]") {
  const int saved = get_num_threads();
  const Tensor a = rand_reals({48, 33, 40}, kFloat, 31), b = rand_reals({48, 40, 29}, kFloat, 32);
  set_num_threads(1);
  const Tensor one = bmm(a, b);
  set_num_threads(2);
  const Tensor two = bmm(a, b);
  set_num_threads(3);
  const Tensor three = matmul(a, b);
  set_num_threads(saved);
  REQUIRE(one.nbytes() == two.nbytes());
  CHECK(std::memcmp(one.data_ptr(), two.data_ptr(), one.nbytes()) == 0);
  CHECK(std::memcmp(one.data_ptr(), three.data_ptr(), one.nbytes()) == 0);
  check_close(values(one), ref_matmul({48, 33, 40}, values(a), {48, 40, 29}, values(b)).values,
              1e-5);
}

TEST_CASE("linalg: bmm errors and empty batches", "[ops][linalg][bmm]") {
  CHECK_THROWS_WITH(bmm(zeros({3, 4}), zeros({3, 4, 5})), Contains("batch1 must be a 3D tensor"));
  CHECK_THROWS_WITH(bmm(zeros({2, 3, 4}), zeros({4, 5})), Contains("batch2 must be a 3D tensor"));
  CHECK_THROWS_WITH(bmm(zeros({2, 3, 4}), zeros({3, 4, 5})),
                    Contains("Expected size for first two dimensions of batch2 tensor to be: "
                             "[2, 4] but got: [3, 4]."));
  CHECK_THROWS_WITH(bmm(zeros({2, 3, 4}), zeros({2, 5, 5})),
                    Contains("to be: [2, 4] but got: [2, 5]."));
  CHECK_THROWS_WITH(bmm(zeros({2, 3, 4}), zeros({2, 4, 5}, kDouble)),
                    Contains("expected scalar type Float but found Double"));
  CHECK_THROWS_WITH(bmm(zeros({2, 3, 4}, kBool), zeros({2, 4, 5}, kBool)),
                    Contains("\"bmm\" not implemented for 'Bool'"));
  CHECK(shape_of(bmm(zeros({0, 3, 4}), zeros({0, 4, 5}))) == S{0, 3, 5});
  CHECK(values(bmm(empty({2, 2, 0}), empty({2, 0, 3}))) == V(12, 0.0));
}

TEST_CASE("linalg: baddbmm", "[ops][linalg][bmm]") {
  const Tensor a = rand_ints({2, 3, 4}, kDouble, 33), b = rand_ints({2, 4, 5}, kDouble, 34);
  const Tensor self = rand_ints({3, 1}, kDouble, 35);  // broadcasts to [2, 3, 5]
  const V p = ref_matmul({2, 3, 4}, values(a), {2, 4, 5}, values(b)).values;
  const V s = values(self);
  const Tensor r = baddbmm(self, a, b, 0.5, -2);
  V want(30);
  for (int i = 0; i < 30; ++i)
    want[std::size_t(i)] = 0.5 * s[std::size_t((i / 5) % 3)] - 2 * p[std::size_t(i)];
  CHECK(values(r) == want);
  CHECK(values(self.baddbmm(a, b, 0.5, -2)) == want);
  SECTION("beta = 0 ignores NaN in self") {
    const Tensor nan_self = full({2, 3, 5}, std::numeric_limits<double>::quiet_NaN(), kDouble);
    CHECK(values(baddbmm(nan_self, a, b, 0, 1)) == p);
  }
  SECTION("k = 0 gives beta * self") {
    const Tensor e = baddbmm(full({2, 3, 5}, 4.0, kDouble), empty({2, 3, 0}, kDouble),
                             empty({2, 0, 5}, kDouble), 0.5);
    CHECK(values(e) == V(30, 2.0));
  }
  SECTION("in place") {
    Tensor c = full({2, 3, 5}, 1.0, kDouble);
    c.baddbmm_(a, b);
    V w(30);
    for (int i = 0; i < 30; ++i) w[std::size_t(i)] = 1 + p[std::size_t(i)];
    CHECK(values(c) == w);
    Tensor small = zeros({3, 5}, kDouble);
    CHECK_THROWS_WITH(small.baddbmm_(a, b),
                      Contains("Bad in-place call: input tensor size [3, 5] and output tensor "
                               "size [2, 3, 5] should match"));
  }
  SECTION("errors") {
    // self's dtype is free (PyTorch 1.13 copies it into the double result first).
    const Tensor mixed = baddbmm(self.to(kFloat), a, b, 0.5, -2);
    CHECK(mixed.dtype() == kDouble);
    CHECK(values(mixed) == want);
    CHECK_THROWS_WITH(baddbmm(zeros({2, 3, 5}, kDouble), a.to(kFloat), b),
                      Contains("expected scalar type Float but found Double"));
    CHECK_THROWS_WITH(baddbmm(zeros({2, 3, 5}, kDouble), a, b.to(kFloat)),
                      Contains("expected scalar type Double but found Float"));
    CHECK_THROWS_WITH(baddbmm(zeros({4, 5}, kDouble), a, b),
                      Contains("The expanded size of the tensor (3) must match the existing size "
                               "(4) at non-singleton dimension 1"));
    CHECK_THROWS_WITH(baddbmm(zeros({1}, kDouble), a[0], b),
                      Contains("batch1 must be a 3D tensor"));
    CHECK_THROWS_WITH(baddbmm(zeros({1}, kDouble), a, b[0]),
                      Contains("batch2 must be a 3D tensor"));
    CHECK_THROWS_WITH(baddbmm(zeros({1}, kDouble), a, b.narrow(1, 0, 3)),
                      Contains("but got: [2, 3]."));
    CHECK_THROWS_WITH(baddbmm(zeros({1}, kBool), a.to(kBool), b.to(kBool)),
                      Contains("\"baddbmm\" not implemented for 'Bool'"));
  }
}

TEST_CASE("linalg: addbmm sums the batch products", "[ops][linalg][bmm]") {
  const Tensor a = rand_ints({3, 2, 4}, kFloat, 36), b = rand_ints({3, 4, 5}, kFloat, 37);
  const V p = ref_matmul({3, 2, 4}, values(a), {3, 4, 5}, values(b)).values;
  const Tensor self = rand_ints({5}, kFloat, 38);
  const V s = values(self);
  V want(10);
  for (int i = 0; i < 10; ++i) {
    double sum = 0;
    for (int bt = 0; bt < 3; ++bt) sum += p[std::size_t(bt * 10 + i)];
    want[std::size_t(i)] = 2 * s[std::size_t(i % 5)] + 3 * sum;
  }
  CHECK(values(addbmm(self, a, b, 2, 3)) == want);
  CHECK(values(self.addbmm(a, b, 2, 3)) == want);
  // No batches: beta * self; beta = 0 gives zeros even over NaN.
  CHECK(values(addbmm(full({2, 5}, 3.0), empty({0, 2, 4}), empty({0, 4, 5}), 2)) == V(10, 6.0));
  CHECK(values(addbmm(full({2, 5}, std::nanf("")), empty({0, 2, 4}), empty({0, 4, 5}), 0)) ==
        V(10, 0.0));
  CHECK_THROWS_WITH(addbmm(self, a[0], b), Contains("batch1 must be a 3D tensor"));
  CHECK_THROWS_WITH(addbmm(self, a, b[0]), Contains("batch2 must be a 3D tensor"));
  CHECK_THROWS_WITH(addbmm(self, a.narrow(0, 0, 2), b),
                    Contains("batch1 and batch2 must have same number of batches, got 2 and 3"));
  CHECK_THROWS_WITH(addbmm(self, a, b.narrow(1, 0, 3)),
                    Contains("Incompatible matrix sizes for bmm (2x4 and 3x5)"));
  // PyTorch 1.13's exact words (no dtypes named).
  CHECK_THROWS_WITH(addbmm(self.to(kDouble), a, b), "self and mat2 must have the same dtype");
  CHECK_THROWS_WITH(addbmm(self, a.to(kDouble), b), "mat1 and mat2 must have the same dtype");
  CHECK_THROWS_WITH(addbmm(zeros({4}), a, b), Contains("The expanded size of the tensor"));
}

// ---- mv / dot / outer -------------------------------------------------------------------------

TEST_CASE("linalg: mv", "[ops][linalg]") {
  for (DType dt : kProductDTypes) {
    INFO(dt);
    const Tensor m = rand_ints({4, 6}, dt, 39), v = rand_ints({6}, dt, 40);
    CHECK(values(mv(m, v)) == ref_mm(values(m), values(v), 4, 6, 1));
    CHECK(values(m.t().contiguous().t().mv(v)) == ref_mm(values(m), values(v), 4, 6, 1));
  }
  const Tensor m = rand_ints({6, 8}, kFloat, 41);
  const Tensor mt = m.t();                                          // column-major matrix
  const Tensor v = rand_ints({16}, kFloat, 42).slice(0, 0, 16, 2);  // strided vector
  CHECK(values(mv(mt, v.narrow(0, 0, 6))) ==
        ref_mm(values(mt), values(v.narrow(0, 0, 6)), 8, 6, 1));
  CHECK(values(mv(m, v)) == ref_mm(values(m), values(v), 6, 8, 1));
  CHECK(values(mv(empty({3, 0}), empty({0}))) == V(3, 0.0));
  CHECK(mv(zeros({0, 2}), zeros({2})).numel() == 0);
  CHECK_THROWS_WITH(mv(zeros({3}), zeros({3})),
                    Contains("vector + matrix @ vector expected, got 1, 1, 1"));
  CHECK_THROWS_WITH(mv(zeros({3, 4}), zeros({4, 1})),
                    Contains("vector + matrix @ vector expected, got 1, 2, 2"));
  CHECK_THROWS_WITH(mv(zeros({3, 4}), zeros({5})),
                    Contains("size mismatch, got input (3), mat (3x4), vec (5)"));
  CHECK_THROWS_WITH(mv(zeros({3, 4}), zeros({4}, kDouble)),
                    Contains("expected scalar type Float but found Double"));
  CHECK_THROWS_WITH(mv(zeros({3, 4}, kDouble), zeros({4})),
                    Contains("expected scalar type Double but found Float"));
  CHECK_THROWS_WITH(mv(zeros({3, 4}, kBool), zeros({4}, kBool)),
                    Contains("\"addmv_impl_cpu\" not implemented for 'Bool'"));
  CHECK_THROWS_AS(mv(zeros({}), zeros({3})), IndexError);
}

TEST_CASE("linalg: addmv", "[ops][linalg]") {
  const Tensor m = rand_ints({3, 4}, kDouble, 43), v = rand_ints({4}, kDouble, 44);
  const V p = ref_mm(values(m), values(v), 3, 4, 1);
  const Tensor self = make({3}, {1, 2, 3}, kDouble);
  V want(3);
  for (int i = 0; i < 3; ++i) want[std::size_t(i)] = 2 * (i + 1) + 0.5 * p[std::size_t(i)];
  CHECK(values(addmv(self, m, v, 2, 0.5)) == want);
  CHECK(values(self.addmv(m, v, 2, 0.5)) == want);
  // A 1-element self broadcasts; beta = 0 drops a NaN self.
  CHECK(values(addmv(make({1}, {10}, kDouble), m, v, 1, 1)) == V{10 + p[0], 10 + p[1], 10 + p[2]});
  CHECK(values(addmv(full({}, std::nan(""), kDouble), m, v, 0, 1)) == p);
  CHECK(values(addmv(self, empty({3, 0}, kDouble), empty({0}, kDouble), 3)) == V{3, 6, 9});
  CHECK_THROWS_WITH(addmv(zeros({3, 1}, kDouble), m, v),
                    Contains("vector + matrix @ vector expected, got 2, 2, 1"));
  CHECK_THROWS_WITH(addmv(zeros({2}, kDouble), m, v),
                    Contains("size mismatch, got input (2), mat (3x4), vec (4)"));
  // self may have another dtype: PyTorch 1.13 copies it into the result (vec's dtype) first.
  const Tensor mixed = addmv(make({3}, {1, 2, 3}, kFloat), m, v, 2, 0.5);
  CHECK(mixed.dtype() == kDouble);
  CHECK(values(mixed) == want);
  CHECK_THROWS_WITH(addmv(self, m.to(kFloat), v),
                    Contains("expected scalar type Float but found Double"));
}

TEST_CASE("linalg: dot", "[ops][linalg]") {
  for (DType dt : kProductDTypes) {
    INFO(dt);
    const Tensor a = rand_ints({9}, dt, 45), b = rand_ints({9}, dt, 46);
    const Tensor d = dot(a, b);
    CHECK(d.dim() == 0);
    CHECK(d.dtype() == dt);
    CHECK(values(d) == ref_mm(values(a), values(b), 1, 9, 1));
    CHECK(values(a.dot(b)) == values(d));
  }
  const Tensor x = rand_reals({1000}, kFloat, 47), y = rand_reals({3000}, kFloat, 48);
  const Tensor ys = y.slice(0, 0, 3000, 3);  // stride 3
  check_close(values(dot(x, ys)), ref_mm(values(x), values(ys), 1, 1000, 1), 1e-5);
  check_close(values(dot(x, full({1}, 2.0).expand({1000}))),
              ref_mm(values(x), V(1000, 2.0), 1, 1000, 1), 1e-5);
  CHECK(values(dot(empty({0}), empty({0}))) == V{0});
  CHECK_THROWS_WITH(dot(zeros({2, 3}), zeros({3})),
                    Contains("1D tensors expected, but got 2D and 1D tensors"));
  CHECK_THROWS_WITH(dot(zeros({3}), zeros({3}, kDouble)),
                    Contains("dot : expected both vectors to have same dtype, but found Float and "
                             "Double"));
  CHECK_THROWS_WITH(
      dot(zeros({3}), zeros({4})),
      Contains("inconsistent tensor size, expected tensor [3] and src [4] to have the "
               "same number of elements, but got 3 and 4 elements respectively"));
  CHECK_THROWS_WITH(dot(zeros({0}, kBool), zeros({0}, kBool)),
                    Contains("\"dot\" not implemented for 'Bool'"));
}

TEST_CASE("linalg: outer and ger", "[ops][linalg]") {
  for (DType dt : kProductDTypes) {
    INFO(dt);
    const Tensor a = rand_ints({4}, dt, 49), b = rand_ints({3}, dt, 50);
    const Tensor o = outer(a, b);
    CHECK(o.dtype() == dt);
    CHECK(values(o) == ref_mm(values(a), values(b), 4, 1, 3));
    CHECK(values(a.outer(b)) == values(o));
    CHECK(values(a.ger(b)) == values(o));
  }
  // outer is mul: dtypes promote, and Bool is a logical and.
  const Tensor oi = outer(make({2}, {1, 2}, kInt), make({2}, {0.5, 3}, kFloat));
  CHECK(oi.dtype() == kFloat);
  CHECK(values(oi) == V{0.5, 3, 1, 6});
  CHECK(values(outer(make({2}, {1, 0}, kBool), make({3}, {1, 1, 0}, kBool))) ==
        V{1, 1, 0, 0, 0, 0});
  CHECK(shape_of(outer(zeros({0}), zeros({3}))) == S{0, 3});
  CHECK_THROWS_WITH(outer(zeros({2, 2}), zeros({2})),
                    Contains("outer: Expected 1-D argument self, but got 2-D"));
  CHECK_THROWS_WITH(outer(zeros({2}), zeros({})),
                    Contains("outer: Expected 1-D argument vec2, but got 0-D"));
}

// ---- addmm ------------------------------------------------------------------------------------

TEST_CASE("linalg: addmm", "[ops][linalg]") {
  const Tensor m1 = rand_ints({3, 4}, kFloat, 51), m2 = rand_ints({4, 2}, kFloat, 52);
  const V p = ref_mm(values(m1), values(m2), 3, 4, 2);
  SECTION("beta and alpha, self broadcast from [2], [3, 1], [1, 1] and 0-d") {
    for (const S& shape : {S{2}, S{3, 1}, S{1, 1}, S{}, S{3, 2}}) {
      const Tensor self = rand_ints(shape, kFloat, 53);
      const Tensor se = self.expand({3, 2});
      const V s = values(se);
      V want(6);
      for (int i = 0; i < 6; ++i)
        want[std::size_t(i)] = -1 * s[std::size_t(i)] + 2 * p[std::size_t(i)];
      CHECK(values(addmm(self, m1, m2, -1, 2)) == want);
      CHECK(values(self.addmm(m1, m2, -1, 2)) == want);
    }
  }
  SECTION("defaults are beta = alpha = 1") {
    const Tensor self = full({3, 2}, 1.0);
    V want(6);
    for (int i = 0; i < 6; ++i) want[std::size_t(i)] = 1 + p[std::size_t(i)];
    CHECK(values(addmm(self, m1, m2)) == want);
  }
  SECTION("beta = 0 ignores self, NaN and inf included") {
    const Tensor self = full({3, 2}, std::numeric_limits<float>::quiet_NaN());
    CHECK(values(addmm(self, m1, m2, 0, 1)) == p);
    CHECK(values(addmm(full({1}, INFINITY), m1, m2, 0.0, 1)) == p);
  }
  SECTION("alpha = 0 never reads the factors (BLAS semantics), in both kernels") {
    for (int64_t k : {2, 40}) {
      const Tensor nan_m1 = full({3, k}, NAN), any_m2 = full({k, 2}, 1.0);
      CHECK(values(addmm(make({2}, {1, 2}), nan_m1, any_m2, 2, 0)) == V{2, 4, 2, 4, 2, 4});
    }
  }
  SECTION("k = 0: beta * self, or zeros for beta = 0") {
    const Tensor self = make({2}, {1, -2});
    CHECK(values(addmm(self, empty({3, 0}), empty({0, 2}), 3)) == V{3, -6, 3, -6, 3, -6});
    CHECK(values(addmm(full({2}, NAN), empty({3, 0}), empty({0, 2}), 0)) == V(6, 0.0));
  }
  SECTION("integers: alpha and beta convert to the dtype") {
    const Tensor a = rand_ints({3, 4}, kLong, 54), b = rand_ints({4, 2}, kLong, 55);
    const V q = ref_mm(values(a), values(b), 3, 4, 2);
    V want(6);
    for (int i = 0; i < 6; ++i) want[std::size_t(i)] = 5 + 3 * q[std::size_t(i)];
    CHECK(values(addmm(full({1}, 1, kLong), a, b, 5, 3)) == want);
  }
  SECTION("in place") {
    Tensor c = full({3, 2}, 2.0);
    const Tensor& r = c.addmm_(m1, m2, 0.5, 1);
    CHECK(&r == &c);
    V want(6);
    for (int i = 0; i < 6; ++i) want[std::size_t(i)] = 1 + p[std::size_t(i)];
    CHECK(values(c) == want);
    Tensor wrong = zeros({2});
    CHECK_THROWS_WITH(wrong.addmm_(m1, m2),
                      Contains("Bad in-place call: input tensor size [2] and output tensor size "
                               "[3, 2] should match"));
  }
  SECTION("errors, in PyTorch's order") {
    CHECK_THROWS_WITH(addmm(zeros({3, 2}, kDouble), m1, m2),
                      "self and mat2 must have the same dtype");  // PyTorch 1.13's exact words
    CHECK_THROWS_WITH(addmm(zeros({3, 2}), m1.to(kDouble), m2),
                      "mat1 and mat2 must have the same dtype");
    CHECK_THROWS_WITH(addmm(zeros({3, 2}), zeros({2, 3, 4}), m2),
                      Contains("mat1 must be a matrix, got 3-D tensor"));
    CHECK_THROWS_WITH(addmm(zeros({3, 2}), m1, zeros({4})),
                      Contains("mat2 must be a matrix, got 1-D tensor"));
    CHECK_THROWS_WITH(addmm(zeros({3, 2}), m1, zeros({3, 2})),
                      Contains("mat1 and mat2 shapes cannot be multiplied (3x4 and 3x2)"));
    CHECK_THROWS_WITH(addmm(zeros({4}), m1, m2),
                      Contains("The expanded size of the tensor (2) must match the existing size "
                               "(4) at non-singleton dimension 1.  Target sizes: [3, 2].  Tensor "
                               "sizes: [4]"));
    CHECK_THROWS_WITH(addmm(zeros({3, 2}, kBool), m1.to(kBool), m2.to(kBool)),
                      Contains("\"addmm_impl_cpu_\" not implemented for 'Bool'"));
  }
}

// ---- matmul -----------------------------------------------------------------------------------

namespace {

void check_matmul(const Tensor& a, const Tensor& b, const S& want_shape) {
  const Ref r = ref_matmul(shape_of(a), values(a), shape_of(b), values(b));
  REQUIRE(r.shape == want_shape);
  const Tensor c = matmul(a, b);
  CHECK(shape_of(c) == want_shape);
  CHECK(c.is_contiguous());
  CHECK(values(c) == r.values);
  CHECK(values(a.matmul(b)) == r.values);
  // out=: starting from a wrong shape, and from the right shape with other strides.
  Tensor out = empty({1}, c.options());
  matmul_out(out, a, b);
  CHECK(shape_of(out) == want_shape);
  CHECK(values(out) == r.values);
  if (c.dim() >= 2) {
    Tensor strided = empty(want_shape, c.options())
                         .transpose(0, c.dim() - 1)
                         .contiguous()
                         .transpose(0, c.dim() - 1);
    REQUIRE(shape_of(strided) == want_shape);
    matmul_out(strided, a, b);
    CHECK(values(strided) == r.values);
  }
}

}  // namespace

TEST_CASE("linalg: matmul covers every shape case", "[ops][linalg][matmul]") {
  auto R = [](const S& s, uint64_t seed) { return rand_ints(s, kFloat, seed); };
  SECTION("1-d @ 1-d: dot, 0-d") { check_matmul(R({4}, 1), R({4}, 2), S{}); }
  SECTION("2-d @ 1-d: mv") { check_matmul(R({3, 4}, 3), R({4}, 4), S{3}); }
  SECTION("1-d @ 2-d: a row times a matrix") { check_matmul(R({4}, 5), R({4, 5}, 6), S{5}); }
  SECTION("2-d @ 2-d: mm") { check_matmul(R({3, 4}, 7), R({4, 5}, 8), S{3, 5}); }
  SECTION("3-d @ 1-d (folded into mv)") { check_matmul(R({10, 3, 4}, 9), R({4}, 10), S{10, 3}); }
  SECTION("1-d @ 3-d") { check_matmul(R({4}, 11), R({10, 4, 5}, 12), S{10, 5}); }
  SECTION("3-d @ 2-d (folded into mm)") {
    check_matmul(R({10, 3, 4}, 13), R({4, 5}, 14), S{10, 3, 5});
  }
  SECTION("2-d @ 3-d (batched, the matrix broadcast)") {
    check_matmul(R({3, 4}, 15), R({10, 4, 5}, 16), S{10, 3, 5});
  }
  SECTION("3-d @ 3-d") { check_matmul(R({2, 3, 4}, 17), R({2, 4, 5}, 18), S{2, 3, 5}); }
  SECTION("batch dims broadcast") {
    check_matmul(R({2, 1, 3, 4}, 19), R({5, 4, 6}, 20), S{2, 5, 3, 6});
    check_matmul(R({1, 3, 4}, 21), R({7, 4, 2}, 22), S{7, 3, 2});
    check_matmul(R({2, 3, 1, 2, 4}, 23), R({3, 5, 4, 1}, 24), S{2, 3, 5, 2, 1});
  }
  SECTION("1-d with a broadcast 4-d operand") {
    check_matmul(R({2, 1, 3, 4}, 25), R({4}, 26), S{2, 1, 3});
    check_matmul(R({4}, 27), R({2, 3, 4, 5}, 28), S{2, 3, 5});
  }
  SECTION("a batch that is not contiguous is folded through a copy (PyTorch 1.13)") {
    const Tensor a = R({3, 10, 4}, 29).transpose(0, 1);  // [10, 3, 4]
    check_matmul(a, R({4, 5}, 30), S{10, 3, 5});
    check_matmul(a, R({4}, 31), S{10, 3});
  }
  SECTION("expanded operands are read in place") {
    const Tensor a = R({1, 3, 4}, 32).expand({6, 3, 4});
    const Tensor b = R({4, 1}, 33).expand({4, 5});
    check_matmul(a, b, S{6, 3, 5});
    check_matmul(b.t(), a.transpose(1, 2), S{6, 5, 3});
  }
  SECTION("operands that require grad take the same path, same values") {
    const Tensor m34 = R({3, 4}, 44), b = R({10, 4, 5}, 45), v4 = R({4}, 46);
    for (const auto& [x, y] : {std::pair<Tensor, Tensor>{m34, b}, {v4, b}, {b.mT(), m34.t()}}) {
      const Tensor xg = x.clone().requires_grad_(), yg = y.clone().requires_grad_();
      const Ref r = ref_matmul(shape_of(x), values(x), shape_of(y), values(y));
      for (const Tensor& c : {matmul(xg, y), matmul(x, yg)}) {
        CHECK(shape_of(c) == r.shape);
        CHECK(c.is_contiguous());
        CHECK(values(c) == r.values);
      }
    }
  }
  SECTION("empty shapes") {
    check_matmul(R({0, 3, 4}, 34), R({4, 5}, 35), S{0, 3, 5});
    check_matmul(R({2, 3, 0}, 36), R({2, 0, 5}, 37), S{2, 3, 5});
    check_matmul(R({3, 5, 0}, 38), R({0, 0}, 39), S{3, 5, 0});
    check_matmul(R({0}, 40), R({0}, 41), S{});
    check_matmul(R({2, 0, 4}, 42), R({3, 1, 4, 6}, 43), S{3, 2, 0, 6});
  }
}

TEST_CASE("linalg: matmul in integer and 16-bit dtypes", "[ops][linalg][matmul]") {
  for (DType dt : kProductDTypes) {
    INFO(dt);
    const Tensor a = rand_ints({2, 1, 3, 4}, dt, 44), b = rand_ints({5, 4, 2}, dt, 45);
    const Ref r = ref_matmul(shape_of(a), values(a), shape_of(b), values(b));
    const Tensor c = matmul(a, b);
    CHECK(c.dtype() == dt);
    CHECK(values(c) == r.values);
  }
}

TEST_CASE("linalg: matmul errors", "[ops][linalg][matmul]") {
  CHECK_THROWS_WITH(matmul(zeros({}), zeros({2, 2})),
                    Contains("both arguments to matmul need to be at least 1D, but they are 0D and "
                             "2D"));
  CHECK_THROWS_WITH(matmul(zeros({3}), zeros({})), Contains("but they are 1D and 0D"));
  CHECK_THROWS_WITH(matmul(zeros({3}), zeros({4})),
                    Contains("inconsistent tensor size, expected tensor [3] and src [4]"));
  CHECK_THROWS_WITH(matmul(zeros({2, 3}), zeros({4})),
                    Contains("size mismatch, got input (2), mat (2x3), vec (4)"));
  CHECK_THROWS_WITH(matmul(zeros({3}), zeros({4, 5})),
                    Contains("mat1 and mat2 shapes cannot be multiplied (1x3 and 4x5)"));
  // The folded path reports mm's / mv's message on the folded shapes, as PyTorch does.
  CHECK_THROWS_WITH(matmul(zeros({10, 3, 4}), zeros({5, 6})),
                    Contains("mat1 and mat2 shapes cannot be multiplied (30x4 and 5x6)"));
  CHECK_THROWS_WITH(matmul(zeros({10, 3, 4}), zeros({5})),
                    Contains("size mismatch, got input (30), mat (30x4), vec (5)"));
  // 2-D @ 3-D folds too (PyTorch 1.13): the batch of the transposed right operand into rows.
  CHECK_THROWS_WITH(matmul(zeros({3, 4}), zeros({10, 5, 6})),
                    Contains("mat1 and mat2 shapes cannot be multiplied (60x5 and 4x3)"));
  CHECK_THROWS_WITH(matmul(zeros({4}), zeros({10, 5, 6})),
                    Contains("size mismatch, got input (60), mat (60x5), vec (4)"));
  // A batch that is not contiguous is folded through a copy...
  CHECK_THROWS_WITH(matmul(zeros({3, 4, 2}).transpose(0, 1), zeros({3, 5})),
                    Contains("mat1 and mat2 shapes cannot be multiplied (12x2 and 3x5)"));
  // ...except a 3-D operand whose last two dims are transposed: bmm, and bmm's message.
  CHECK_THROWS_WITH(matmul(zeros({4, 2, 3}).transpose(1, 2), zeros({3, 5})),
                    Contains("Expected size for first two dimensions of batch2 tensor to be: "
                             "[4, 2] but got: [4, 3]."));
  CHECK_THROWS_WITH(matmul(zeros({2, 4, 2, 3}).transpose(2, 3), zeros({3, 5})),
                    Contains("mat1 and mat2 shapes cannot be multiplied (24x2 and 3x5)"));
  // The batched path reports bmm's.
  CHECK_THROWS_WITH(matmul(zeros({2, 3, 4}), zeros({3, 4, 5})),
                    Contains("The size of tensor a (2) must match the size of tensor b (3) at "
                             "non-singleton dimension 0"));
  CHECK_THROWS_WITH(matmul(zeros({2, 3, 4}), zeros({2, 4, 5}, kDouble)),
                    Contains("expected scalar type Float but found Double"));
  CHECK_THROWS_WITH(matmul(zeros({2, 3, 4}, kBool), zeros({2, 4, 5}, kBool)),
                    Contains("\"bmm\" not implemented for 'Bool'"));
  Tensor out = empty({0}, kDouble);
  CHECK_THROWS_WITH(matmul_out(out, zeros({2, 3, 4}), zeros({2, 4, 5})),
                    Contains("Expected out tensor to have dtype float, but got double instead"));
}

TEST_CASE("linalg: matmul_out into an operand or a view", "[ops][linalg][matmul]") {
  Tensor a = rand_ints({2, 3, 3}, kFloat, 46);
  const Tensor b = rand_ints({2, 3, 3}, kFloat, 47);
  const V want = ref_matmul({2, 3, 3}, values(a), {2, 3, 3}, values(b)).values;
  matmul_out(a, a, b);  // full overlap with an operand: through a temporary
  CHECK(values(a) == want);
  // 1-d @ 2-d with out: mm_out into [1, p], then squeezed.
  Tensor o = empty({2, 2});
  matmul_out(o, make({2}, {1, 2}), make({2, 3}, {1, 2, 3, 4, 5, 6}));
  CHECK(shape_of(o) == S{3});
  CHECK(values(o) == V{9, 12, 15});
  // Every path bumps out's version once.
  Tensor ob = empty({2, 3, 3});
  const int64_t v0 = ob._version();
  matmul_out(ob, b, b);  // batched
  CHECK(ob._version() == v0 + 1);
  Tensor of = empty({3, 2}).t();  // [2, 3], not contiguous: folded through a copy
  const int64_t v1 = of._version();
  matmul_out(of, rand_ints({2, 1, 4}, kFloat, 48), rand_ints({4, 3}, kFloat, 49));
  CHECK(shape_of(of) == S{2, 1, 3});  // resized: the shape differed
  CHECK(of._version() == v1 + 1);
  Tensor og = empty({3, 2}).t().unsqueeze(1);  // [2, 1, 3], right shape, strided
  const int64_t v2 = og._version();
  const Tensor x = rand_ints({2, 1, 4}, kFloat, 50), y = rand_ints({4, 3}, kFloat, 51);
  matmul_out(og, x, y);
  CHECK(og._version() == v2 + 1);
  CHECK(values(og) == ref_matmul({2, 1, 4}, values(x), {4, 3}, values(y)).values);
}

}  // namespace ops_linalg_test
