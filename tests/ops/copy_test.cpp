// copy_, clone, contiguous, to, fill_, zero_, item: values, layouts, versions and every error,
// with expected values and messages taken from PyTorch 1.13.
#include <tensorplay/ops/copy.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <bit>
#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

namespace ops_copy_test {

using namespace tensorplay;

namespace {

constexpr std::array<DType, 10> kAllDTypes = {kBool,  kUInt8,   kInt8,     kInt16,   kInt32,
                                              kInt64, kFloat16, kBFloat16, kFloat32, kFloat64};

// A view of t's storage with explicit geometry, sharing t's version counter: what as_strided
// does. The tests spell transposes, slices and expands with it so they need only copy.hpp.
Tensor view_of(const Tensor& t, std::vector<int64_t> sizes, std::vector<int64_t> strides,
               int64_t offset = 0) {
  auto impl = make_intrusive<TensorImpl>(t.storage(), t.dtype(), sizes, strides, offset);
  impl->share_version_counter(*t.unsafeGetTensorImpl());
  impl->set_view_of(*t.unsafeGetTensorImpl(), CreationMeta::DEFAULT);
  return Tensor(std::move(impl));
}
Tensor transposed(const Tensor& t) {  // t.t() for a 2-d tensor
  return view_of(t, {t.size(1), t.size(0)}, {t.stride(1), t.stride(0)}, t.storage_offset());
}

// Row-major values in, any dtype: static_cast from double per element.
Tensor make(std::vector<int64_t> sizes, const std::vector<double>& values, DType dt = kFloat) {
  Tensor t = empty(sizes, dtype(dt));
  REQUIRE(t.numel() == int64_t(values.size()));
  dispatch_dtype(dt, [&]<class T>() {
    T* p = static_cast<T*>(t.data_ptr());
    for (std::size_t i = 0; i < values.size(); ++i) p[i] = static_cast<T>(values[i]);
  });
  return t;
}
Tensor seq(int64_t n, DType dt = kFloat) {
  std::vector<double> v(n);
  for (int64_t i = 0; i < n; ++i) v[i] = double(i);
  return make({n}, v, dt);
}
Tensor seq2(int64_t rows, int64_t cols, DType dt = kFloat) {
  Tensor a = seq(rows * cols, dt);
  return view_of(a, {rows, cols}, {cols, 1});
}

// The elements in row-major order of the logical shape, whatever the strides, as doubles.
std::vector<double> values(const Tensor& t) {
  std::vector<double> out;
  const int64_t nd = t.dim();
  std::vector<int64_t> idx(nd, 0);
  for (int64_t n = 0; n < t.numel(); ++n) {
    int64_t off = 0;
    for (int64_t d = 0; d < nd; ++d) off += idx[d] * t.stride(d);
    dispatch_dtype(t.dtype(), [&]<class T>() {
      out.push_back(static_cast<double>(static_cast<const T*>(t.data_ptr())[off]));
    });
    for (int64_t d = nd - 1; d >= 0 && ++idx[d] == t.size(d); --d) idx[d] = 0;
  }
  return out;
}

using V = std::vector<double>;
using S = std::vector<int64_t>;

// PyTorch's conversion of an exactly known value `s` to dtype `to`, computed in double.
double reference_convert(double s, DType to) {
  switch (to) {
    case kBool: return s != 0 ? 1 : 0;                            // NaN is true
    case kUInt8: return double(uint8_t(int64_t(std::trunc(s))));  // through int64: -1 -> 255
    case kInt8: return double(int8_t(std::trunc(s)));
    case kInt16: return double(int16_t(std::trunc(s)));
    case kInt32: return double(int32_t(std::trunc(s)));
    case kInt64: return double(int64_t(std::trunc(s)));
    case kFloat16: return double(float(Half(s)));
    case kBFloat16: return double(float(BFloat16(s)));
    case kFloat32: return double(float(s));
    case kFloat64: return s;
    default: break;  // the quantized dtypes
  }
  return 0;
}

// Whether converting `s` to `to` is defined (float -> integer out of range is UB in C++ and
// unspecified in PyTorch; it is not tested).
bool defined_conversion(double s, DType to) {
  if (!is_integral(to, /*include_bool=*/false)) return true;
  if (!std::isfinite(s)) return false;
  const double t = std::trunc(s);
  switch (to) {
    case kUInt8: return std::fabs(t) < 9.2e18;  // defined through int64
    case kInt8: return t >= -128 && t <= 127;
    case kInt16: return t >= -32768 && t <= 32767;
    case kInt32: return t >= -2147483648.0 && t <= 2147483647.0;
    default: return std::fabs(t) < 9.2e18;
  }
}

// Whether `v` is held exactly by `dt` (integer sources get integer values in range).
bool representable(double v, DType dt) {
  if (dt == kBool) return v == 0 || v == 1;
  if (!is_integral(dt, false)) return true;  // floats round; the reference reads back the result
  return std::isfinite(v) && v == std::trunc(v) && defined_conversion(v, dt) &&
         (dt != kUInt8 || (v >= 0 && v <= 255));
}

bool same_value(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

}  // namespace

// ---- copy_: what a libtorch user writes ---------------------------------------------------

TEST_CASE("copy_ copies values into the destination and returns it", "[ops][copy]") {
  Tensor src = make({2, 3}, {1, 2, 3, 4, 5, 6});
  Tensor dst = empty({2, 3});
  const Tensor& r = dst.copy_(src);
  CHECK(&r == &dst);
  CHECK(values(dst) == V{1, 2, 3, 4, 5, 6});
  CHECK_FALSE(dst.is_alias_of(src));
  src.fill_(0);
  CHECK(values(dst) == V{1, 2, 3, 4, 5, 6});
}

TEST_CASE("copy_ converts between every pair of dtypes as PyTorch does", "[ops][copy]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  const V samples = {0,     1,     -1,   2.5,  -2.5,    0.1,      7.75,  127,     -128,
                     200.5, 255,   -255, 300,  1000.75, -3000.25, 65504, 65520,   70000,
                     1e10,  -1e10, 1e-8, 3e38, nan,     inf,      -inf,  0.333333};
  for (DType from : kAllDTypes) {
    for (DType to : kAllDTypes) {
      // Source values the source dtype holds, read back so rounding to the source is settled.
      V src_vals;
      for (double v : samples) {
        if (!representable(v, from)) continue;
        const double s = values(make({1}, {v}, from))[0];
        if (defined_conversion(s, to)) src_vals.push_back(s);
      }
      if (src_vals.empty()) continue;
      Tensor src = make({int64_t(src_vals.size())}, src_vals, from);
      Tensor dst = empty({int64_t(src_vals.size())}, dtype(to));
      dst.copy_(src);
      const V got = values(dst);
      for (std::size_t i = 0; i < src_vals.size(); ++i) {
        INFO(from << " -> " << to << " of " << src_vals[i]);
        CHECK(same_value(got[i], reference_convert(src_vals[i], to)));
      }
    }
  }
}

TEST_CASE("copy_ conversions match PyTorch's outputs", "[ops][copy]") {
  // Values printed by PyTorch 1.13 for the same conversions.
  auto conv = [](const V& v, DType from, DType to) {
    Tensor d = empty({int64_t(v.size())}, dtype(to));
    d.copy_(make({int64_t(v.size())}, v, from));
    return values(d);
  };
  CHECK(conv({-1.5, 2.7, -0.3, 255.9, -255.5, 300.0}, kFloat, kUInt8) == V{255, 2, 0, 255, 1, 44});
  CHECK(conv({-1.5, 2.7, 127.9, -128.9}, kFloat, kInt8) == V{-1, 2, 127, -128});
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  CHECK(conv({nan, inf, 0.0, -0.0, 1e-30}, kFloat, kBool) == V{1, 1, 0, 0, 1});
  CHECK(conv({nan, inf, 0.0, -0.0, 1e-30}, kHalf, kBool) == V{1, 1, 0, 0, 0});
  CHECK(conv({65504, 65519.99, 1e-8, 6e-8, 1.0 / 3}, kDouble, kHalf) ==
        V{65504, 65504, 0, 5.960464477539063e-08, 0.333251953125});
  CHECK(conv({65520}, kDouble, kHalf)[0] == inf);
  CHECK(conv({2.5, -2.5, 65504}, kHalf, kInt32) == V{2, -2, 65504});
  CHECK(conv({2.5, -2.5, -3.75}, kBFloat16, kUInt8) == V{2, 254, 253});
  CHECK(conv({1.00390625, 1.01171875}, kFloat, kBFloat16) == V{1.0, 1.015625});
  CHECK(conv({1, 0}, kBool, kHalf) == V{1, 0});
  CHECK(conv({70000}, kInt32, kHalf)[0] == inf);
  CHECK(conv({1.0009765625}, kHalf, kBFloat16) == V{1.0});
  CHECK(conv({-7}, kInt8, kUInt8) == V{249});
  CHECK(conv({300, -1}, kInt32, kInt8) == V{44, -1});
  CHECK(conv({200}, kUInt8, kInt8) == V{-56});
  // A double is rounded once, straight to 16 bits (core/half.hpp); PyTorch goes through float
  // and rounds twice, giving 1.0 here.
  CHECK(conv({1 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40)}, kDouble, kHalf) ==
        V{1 + std::ldexp(1.0, -10)});
}

TEST_CASE("float <-> half copies round exactly as Half's constructor", "[ops][copy]") {
  // Long contiguous runs, so a vectorised conversion (F16C under -march=x86-64-v3) is exercised:
  // every 16-bit pattern widened, and floats around every half-way point narrowed.
  const int64_t n = 1 << 16;
  Tensor h = empty({n}, dtype(kHalf));
  for (int64_t i = 0; i < n; ++i) h.data_ptr<Half>()[i] = Half(uint16_t(i), Half::from_bits());
  Tensor f = empty({n}, dtype(kFloat));
  f.copy_(h);
  for (int64_t i = 0; i < n; ++i) {
    const float want = float(h.data_ptr<Half>()[i]);
    const float got = f.data_ptr<float>()[i];
    if (!(std::isnan(want) ? std::isnan(got) : got == want && signbit(got) == signbit(want))) {
      FAIL_CHECK("half bits " << i << ": got " << got << ", want " << want);
    }
  }
  Tensor g = empty({4 * n}, dtype(kFloat));
  for (int64_t i = 0; i < 4 * n; ++i) {  // patterns that straddle the dropped 13 bits
    g.data_ptr<float>()[i] =
        std::bit_cast<float>(uint32_t(i >> 2) << 13 | uint32_t(0xFFF + (i & 3)));
  }
  Tensor h2 = empty({4 * n}, dtype(kHalf));
  h2.copy_(g);
  for (int64_t i = 0; i < 4 * n; ++i) {
    const Half want(g.data_ptr<float>()[i]);
    const Half got = h2.data_ptr<Half>()[i];
    if (!(isnan(want) ? isnan(got) : got.x == want.x)) {
      FAIL_CHECK("float " << g.data_ptr<float>()[i] << ": got bits " << got.x << ", want "
                          << want.x);
    }
  }
  SUCCEED("every pattern compared; a mismatch fails above");
}

TEST_CASE("large contiguous copies stream and stay exact", "[ops][copy]") {
  // Past 16 MiB a contiguous copy uses streaming stores (when built for AVX); a destination
  // one byte off the allocator's alignment exercises the unaligned head and tail.
  const int64_t n = (int64_t{16} << 20) + 77;
  Tensor src = empty({n}, dtype(kUInt8));
  uint8_t* s = src.data_ptr<uint8_t>();
  for (int64_t i = 0; i < n; ++i) s[i] = uint8_t(i * 131 + 7);
  Tensor base = empty({n + 1}, dtype(kUInt8));
  Tensor dst = view_of(base, {n}, {1}, 1);
  dst.copy_(src);
  CHECK(std::memcmp(dst.data_ptr(), s, std::size_t(n)) == 0);
  Tensor c = src.clone();
  CHECK(std::memcmp(c.data_ptr(), s, std::size_t(n)) == 0);
}

TEST_CASE("copy_ handles any layout on either side", "[ops][copy]") {
  Tensor a = seq2(3, 4);  // [[0..3], [4..7], [8..11]]
  SECTION("transposed source") {
    Tensor dst = empty({4, 3});
    dst.copy_(transposed(a));
    CHECK(values(dst) == V{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11});
  }
  SECTION("transposed destination") {
    Tensor base = empty({4, 3});
    Tensor dst = transposed(base);  // 3x4 with strides (1, 3)
    dst.copy_(a);
    CHECK(values(dst) == values(a));
    CHECK(values(base) == V{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11});
  }
  SECTION("sliced source, every other column, with conversion") {
    Tensor src = view_of(a, {3, 2}, {4, 2}, 1);  // a[:, 1::2]
    Tensor dst = empty({3, 2}, dtype(kInt64));
    dst.copy_(src);
    CHECK(values(dst) == V{1, 3, 5, 7, 9, 11});
  }
  SECTION("sliced destination leaves the gaps alone") {
    Tensor base = make({2, 4}, {-1, -1, -1, -1, -1, -1, -1, -1}, kDouble);
    view_of(base, {2, 2}, {4, 2}, 0).copy_(make({2, 2}, {1, 2, 3, 4}));
    CHECK(values(base) == V{1, -1, 2, -1, 3, -1, 4, -1});
  }
  SECTION("permuted 3-d on both sides") {
    Tensor x = seq(24);
    Tensor src = view_of(x, {2, 3, 4}, {1, 8, 2});  // some permutation of 24 distinct elements
    Tensor dbase = empty({24}, dtype(kInt16));
    Tensor dst = view_of(dbase, {2, 3, 4}, {12, 1, 3});
    dst.copy_(src);
    CHECK(values(dst) == values(src));
  }
  SECTION("transposes through 8x8 blocks, with ragged edges") {
    for (auto [r, c] : {std::pair<int64_t, int64_t>{20, 13}, {8, 8}, {9, 17}, {7, 30}}) {
      Tensor m = seq2(r, c, kInt32);
      Tensor dst = empty({c, r}, dtype(kDouble));
      dst.copy_(transposed(m));
      Tensor same = empty({c, r}, dtype(kInt32));
      same.copy_(transposed(m));
      CHECK(values(dst) == values(transposed(m)));
      CHECK(values(same) == values(transposed(m)));
    }
  }
  SECTION("large transposes are tiled and still exact") {
    for (DType dt : {kFloat, kDouble, kUInt8, kHalf}) {
      Tensor big = seq2(300, 257, dt == kUInt8 ? kInt32 : kFloat);
      Tensor dst = empty({257, 300}, dtype(dt));
      dst.copy_(transposed(big));
      Tensor ref = empty({257, 300}, dtype(kDouble));
      ref.copy_(transposed(big));
      Tensor back = empty({257, 300}, dtype(kDouble));
      back.copy_(dst);
      V expect = values(ref);
      for (double& e : expect) e = reference_convert(e, dt);
      CHECK(values(back) == expect);
    }
  }
}

TEST_CASE("copy_ broadcasts the source to the destination's shape", "[ops][copy]") {
  Tensor dst = empty({2, 3});
  dst.copy_(make({3}, {1, 2, 3}));
  CHECK(values(dst) == V{1, 2, 3, 1, 2, 3});
  dst.copy_(make({2, 1}, {7, 8}, kInt32));
  CHECK(values(dst) == V{7, 7, 7, 8, 8, 8});
  dst.copy_(make({}, {5}, kDouble));
  CHECK(values(dst) == V{5, 5, 5, 5, 5, 5});
  Tensor x = make({3}, {4, 5, 6});
  dst.copy_(view_of(x, {2, 3}, {0, 1}));  // an expanded source
  CHECK(values(dst) == V{4, 5, 6, 4, 5, 6});
  Tensor d3 = empty({2, 2, 3}, dtype(kInt64));
  d3.copy_(make({1, 3}, {1, 2, 3}));
  CHECK(values(d3) == V{1, 2, 3, 1, 2, 3, 1, 2, 3, 1, 2, 3});
  // Zero-size tensors broadcast too: [0] receives from [1].
  Tensor z = empty({0});
  z.copy_(make({1}, {1}));
  CHECK(z.numel() == 0);
}

TEST_CASE("copy_ rejects shapes that do not broadcast, with PyTorch's messages", "[ops][copy]") {
  CHECK_THROWS_WITH(empty({3, 4}).copy_(empty({3})),
                    "The size of tensor a (4) must match the size of tensor b (3) at "
                    "non-singleton dimension 1");
  CHECK_THROWS_WITH(empty({3, 4}).copy_(empty({2, 4})),
                    "The size of tensor a (3) must match the size of tensor b (2) at "
                    "non-singleton dimension 0");
  // The destination never broadcasts.
  CHECK_THROWS_WITH(empty({4}).copy_(empty({3, 4})),
                    "output with shape [4] doesn't match the broadcast shape [3, 4]");
  CHECK_THROWS_WITH(empty({1, 4}).copy_(empty({3, 4})),
                    "output with shape [1, 4] doesn't match the broadcast shape [3, 4]");
  CHECK_THROWS_WITH(empty({3, 4}).copy_(empty({1, 3, 4})),
                    "output with shape [3, 4] doesn't match the broadcast shape [1, 3, 4]");
  CHECK_THROWS_WITH(empty({1}).copy_(empty({0})),
                    "output with shape [1] doesn't match the broadcast shape [0]");
  CHECK_THROWS_AS(empty({4}).copy_(empty({3, 4})), Error);
}

TEST_CASE("copy_ into an expanded destination is rejected", "[ops][copy]") {
  Tensor x = empty({3});
  Tensor expanded = view_of(x, {2, 3}, {0, 1});
  const char* msg =
      "unsupported operation: more than one element of the written-to tensor refers to a single "
      "memory location. Please clone() the tensor before performing the operation.";
  CHECK_THROWS_WITH(expanded.copy_(empty({2, 3})), msg);
  CHECK_THROWS_WITH(expanded.copy_(empty({3})), msg);
  CHECK(x._version() == 0);  // a failed copy_ does not bump
}

TEST_CASE("copy_ within one tensor: PyTorch's overlap rules", "[ops][copy]") {
  const char* partial =
      "unsupported operation: some elements of the input tensor and the written-to tensor refer "
      "to a single memory location. Please clone() the tensor before performing the operation.";
  Tensor a = seq(6);
  SECTION("shift right and shift left overlap partially: PyTorch refuses both") {
    CHECK_THROWS_WITH(view_of(a, {5}, {1}, 1).copy_(view_of(a, {5}, {1}, 0)), partial);
    CHECK_THROWS_WITH(view_of(a, {5}, {1}, 0).copy_(view_of(a, {5}, {1}, 1)), partial);
    CHECK(values(a) == V{0, 1, 2, 3, 4, 5});
    CHECK(a._version() == 0);
  }
  SECTION("a square matrix copied from its own transpose is a partial overlap") {
    Tensor m = seq2(3, 3);
    CHECK_THROWS_WITH(m.copy_(transposed(m)), partial);
  }
  SECTION("a.copy_(a) changes nothing and bumps the version once") {
    a.copy_(a);
    CHECK(values(a) == V{0, 1, 2, 3, 4, 5});
    CHECK(a._version() == 1);
  }
  SECTION("an alias with the same geometry is a full overlap: allowed, element by element") {
    a.copy_(view_of(a, {6}, {1}));
    CHECK(values(a) == V{0, 1, 2, 3, 4, 5});
    CHECK(a._version() == 1);
    Tensor m = seq2(3, 4);  // two transposed views of the same elements
    transposed(m).copy_(transposed(view_of(m, {3, 4}, {4, 1})));
    CHECK(values(m) == V{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
    // Same bytes in another order (m.t() against m.view({4, 3})) is partial: refused.
    CHECK_THROWS_AS(transposed(m).copy_(view_of(m, {4, 3}, {3, 1})), Error);
    Tensor as_int = make({2}, {0, 0}, kInt32);
    Tensor as_float = Tensor(make_intrusive<TensorImpl>(as_int.storage(), kFloat, S{2}, S{1}));
    as_float.copy_(make({2}, {1.5, 2.5}));
    as_int.copy_(as_float);  // same bytes, same strides, different dtype: converts in place
    CHECK(values(as_int) == V{1, 2});
  }
  SECTION("overlaps PyTorch cannot judge are copied in place, in iteration order") {
    // dst = a[2:5], src = a[0:6:2]: too hard to decide, so copied element by element, reading
    // a[2] after it was written (PyTorch 1.13 gives [0, 1, 0, 0, 4, 5]).
    view_of(a, {3}, {1}, 2).copy_(view_of(a, {3}, {2}, 0));
    CHECK(values(a) == V{0, 1, 0, 0, 4, 5});
    CHECK(a._version() == 1);
    // A row copied from a column of the same matrix (PyTorch gives [0, 3, 6] too).
    Tensor m = seq2(3, 3);
    view_of(m, {3}, {1}, 0).copy_(view_of(m, {3}, {3}, 0));
    CHECK(values(m) == V{0, 3, 6, 3, 4, 5, 6, 7, 8});
    // A broadcast of a's first element into all of a.
    Tensor b = seq(4);
    b.copy_(view_of(b, {4}, {0}, 0));
    CHECK(values(b) == V{0, 0, 0, 0});
    // x.view(3, 2).copy_(x[:2].expand(3, 2)): rows of x from its own first row.
    Tensor x = seq(6);
    view_of(x, {3, 2}, {2, 1}).copy_(view_of(x, {3, 2}, {0, 1}));
    CHECK(values(x) == V{0, 1, 0, 1, 0, 1});
    // t[::2][1:].copy_(t[::2][:-1]): each element reads the one just written.
    Tensor t = seq(10);
    view_of(t, {4}, {2}, 2).copy_(view_of(t, {4}, {2}, 0));
    CHECK(values(t) == V{0, 1, 0, 3, 0, 5, 0, 7, 0, 9});
    view_of(t, {4}, {2}, 1).copy_(view_of(t, {4}, {2}, 3));  // forwards: reads ahead, unchanged
    CHECK(values(t) == V{0, 3, 0, 5, 0, 7, 0, 9, 0, 9});
  }
  SECTION("contiguous rows over their own source: PyTorch's 64-byte steps") {
    // Rows of 20 shifted by one element, gaps between rows (not dense, so not refused).
    // PyTorch reads and stores 64 bytes at a time, then finishes the row element by element.
    Tensor f = seq(60);
    view_of(f, {2, 20}, {21, 1}, 1).copy_(view_of(f, {2, 20}, {21, 1}, 0));
    V want(60);
    for (int i = 0; i < 60; ++i) want[i] = i;
    for (int i = 1; i <= 16; ++i) want[i] = i - 1;  // the 16-float step read before stored
    for (int i = 17; i <= 20; ++i) want[i] = 15;    // the tail, element by element
    for (int i = 22; i <= 37; ++i) want[i] = i - 1;
    for (int i = 38; i <= 41; ++i) want[i] = 36;
    CHECK(values(f) == want);
    Tensor l = seq(60, kInt64);  // 8 int64 per step
    view_of(l, {2, 20}, {21, 1}, 1).copy_(view_of(l, {2, 20}, {21, 1}, 0));
    const V row{0, 0, 1, 2, 3, 4, 5, 6, 7, 7, 9, 10, 11, 12, 13, 14, 15, 15, 15, 15, 15};
    const V got = values(l);
    CHECK(V(got.begin(), got.begin() + 21) == row);
  }
}

TEST_CASE("copy_ bumps the destination's version exactly once", "[ops][copy]") {
  Tensor dst = empty({4, 4});
  Tensor view = view_of(dst, {4}, {1});
  dst.copy_(seq2(4, 4));  // memcpy path
  CHECK(dst._version() == 1);
  dst.copy_(transposed(seq2(4, 4)));  // iterator path
  CHECK(dst._version() == 2);
  dst.copy_(seq2(4, 4, kInt64));  // converting path
  CHECK(dst._version() == 3);
  view.copy_(make({4}, {1, 2, 3, 4}));  // a view shares the counter with its base
  CHECK(dst._version() == 4);
  CHECK(view._version() == 4);
  Tensor src = seq(16);
  const auto sv = src._version();
  dst.copy_(view_of(src, {4, 4}, {4, 1}));
  CHECK(src._version() == sv);  // the source is read, not written
  Tensor z = empty({0});
  z.copy_(empty({0}));
  CHECK(z._version() == 1);
}

TEST_CASE("copy_ checks devices and definedness", "[ops][copy]") {
  std::vector<float> host(4, 0.f);
  Tensor fake_cuda = from_blob(host.data(), {4}, TensorOptions().device(Device(kCUDA, 0)));
  // Both directions are the device's kernel (ops/device_dispatch.hpp), absent here.
  CHECK_THROWS_WITH(empty({4}).copy_(fake_cuda),
                    "Could not run 'aten::copy_' with arguments from the 'CUDA' backend. TensorPlay was "
                    "compiled without it: define TENSORPLAY_USE_CUDA (link the matching "
                    "tensorplay:: target)");
  CHECK_THROWS_AS(fake_cuda.copy_(empty({4})), NotImplementedError);
  CHECK_THROWS_AS(fake_cuda.to(kCPU), NotImplementedError);
  CHECK_THROWS_AS(fake_cuda.cpu(), NotImplementedError);
#if !TENSORPLAY_USE_VULKAN  // (tensorplay::compiled carries the backend when it is built with it)
  CHECK_THROWS_AS(empty({4}).vulkan(), Error);  // no Vulkan allocator without the backend
#endif
  CHECK_THROWS_WITH(empty({4}).copy_(Tensor()), "copy_: the source tensor is undefined");
  CHECK_THROWS_WITH(Tensor().copy_(empty({4})), "device() called on an undefined Tensor");
}

// ---- clone ------------------------------------------------------------------------------

TEST_CASE("clone makes new bytes with version 0", "[ops][copy][clone]") {
  Tensor a = seq2(2, 3);
  for (int i = 0; i < 5; ++i) a.unsafeGetTensorImpl()->bump_version();
  REQUIRE(a._version() == 5);
  Tensor c = a.clone();
  CHECK(c._version() == 0);
  CHECK(values(c) == values(a));
  CHECK(c.sizes() == S{2, 3});
  CHECK(c.strides() == S{3, 1});
  CHECK_FALSE(c.is_alias_of(a));
  CHECK(c.data_ptr() != a.data_ptr());
  CHECK(c.storage_offset() == 0);
  CHECK_FALSE(c.unsafeGetTensorImpl()->version_counter().shares_counter(
      a.unsafeGetTensorImpl()->version_counter()));
  c.fill_(-1);  // writing the clone leaves the source alone
  CHECK(values(a) == V{0, 1, 2, 3, 4, 5});
  CHECK(c.dtype() == a.dtype());
  // A clone through the iterator path is reset too.
  Tensor t = transposed(a);
  Tensor ct = t.clone(MemoryFormat::Contiguous);
  CHECK(ct._version() == 0);
}

TEST_CASE("clone keeps every dtype's bytes", "[ops][copy][clone]") {
  for (DType dt : kAllDTypes) {
    Tensor a = make({2, 2}, {0, 1, 1, 0}, dt);
    Tensor c = a.clone();
    CHECK(c.dtype() == dt);
    CHECK(values(c) == values(a));
  }
}

TEST_CASE("clone's layout policy follows PyTorch's Preserve rule", "[ops][copy][clone]") {
  SECTION("contiguous stays contiguous") { CHECK(seq2(3, 4).clone().strides() == S{4, 1}); }
  SECTION("a transposed (dense) input keeps its transposed strides") {
    Tensor t = transposed(seq2(3, 4));
    Tensor c = t.clone();
    CHECK(c.strides() == S{1, 4});
    CHECK(values(c) == values(t));
    CHECK(t.clone(MemoryFormat::Contiguous).strides() == S{3, 1});
    CHECK(values(t.clone(MemoryFormat::Contiguous)) == values(t));
  }
  SECTION("a sliced, non-dense input becomes dense in its own dimension order") {
    Tensor a = seq2(3, 4);
    Tensor sliced = view_of(a, {3, 2}, {4, 2});  // a[:, ::2]
    Tensor c = sliced.clone();
    CHECK(c.strides() == S{2, 1});
    CHECK(values(c) == V{0, 2, 4, 6, 8, 10});
    // torch.zeros(4, 6).t()[:, ::2].clone().stride() == (1, 6)
    Tensor b = seq2(4, 6);
    Tensor ts = view_of(b, {6, 2}, {1, 12});
    CHECK(ts.clone().strides() == S{1, 6});
    CHECK(values(ts.clone()) == values(ts));
    // A channels-last tensor sliced along H keeps channels-last order: (30, 1, 15, 3).
    Tensor x = empty({2, 3, 4, 5}, {}, MemoryFormat::ChannelsLast);
    Tensor xs = view_of(x, {2, 3, 2, 5}, {60, 1, 30, 3});
    CHECK(xs.clone().strides() == S{30, 1, 15, 3});
  }
  SECTION("expanded inputs get dense strides (PyTorch: (3,1)->(3,4) gives (4, 1))") {
    Tensor col = make({3, 1}, {1, 2, 3});
    Tensor e = view_of(col, {3, 4}, {1, 0});
    Tensor c = e.clone();
    CHECK(c.strides() == S{4, 1});
    CHECK(values(c) == V{1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3});
    CHECK(view_of(col, {5, 3}, {0, 1}).clone().strides() == S{3, 1});
    Tensor t3 = seq(6);
    CHECK(view_of(t3, {3, 4, 2}, {2, 0, 1}).clone().strides() == S{8, 2, 1});
    CHECK(view_of(t3, {2, 4, 3}, {1, 0, 2}).clone().strides() == S{1, 2, 8});  // permuted
    CHECK(view_of(t3, {2, 2, 3}, {0, 3, 1}).clone().strides() == S{6, 3, 1});
  }
  SECTION("channels_last") {
    Tensor x = empty({2, 3, 4, 5});
    CHECK(x.clone(MemoryFormat::ChannelsLast).strides() == S{60, 1, 15, 3});
    Tensor cl = x.clone(MemoryFormat::ChannelsLast);
    CHECK(cl.clone().strides() == S{60, 1, 15, 3});  // Preserve keeps it
    CHECK(cl.clone(MemoryFormat::Contiguous).strides() == S{60, 20, 5, 1});
    CHECK(empty({2, 1, 4, 5}).clone(MemoryFormat::ChannelsLast).strides() == S{20, 1, 5, 1});
    Tensor v = seq(120);
    Tensor nchw = view_of(v, {2, 3, 4, 5}, {60, 20, 5, 1});
    CHECK(values(nchw.clone(MemoryFormat::ChannelsLast)) == values(nchw));
    CHECK_THROWS_WITH(empty({2, 3}).clone(MemoryFormat::ChannelsLast),
                      "required rank 4 tensor to use channels_last format");
  }
  SECTION("0-d and zero-size") {
    Tensor s = make({}, {3.5});
    Tensor c = s.clone();
    CHECK(c.dim() == 0);
    CHECK(c.item<double>() == 3.5);
    Tensor z = empty({0, 3});
    CHECK(z.clone().sizes() == S{0, 3});
    CHECK(z.clone().strides() == S{3, 1});
    Tensor zt = transposed(empty({3, 0}));  // torch.zeros(3, 0).t().clone().stride() == (1, 1)
    CHECK(zt.clone().strides() == S{1, 1});
  }
}

// ---- contiguous and to ------------------------------------------------------------------

TEST_CASE("contiguous returns self when already contiguous, else a row-major clone",
          "[ops][copy]") {
  Tensor a = seq2(2, 3);
  a.unsafeGetTensorImpl()->bump_version();
  Tensor same = a.contiguous();
  CHECK(same.is_same(a));
  CHECK(same._version() == 1);
  Tensor t = transposed(a);
  Tensor c = t.contiguous();
  CHECK_FALSE(c.is_same(t));
  CHECK(c.is_contiguous());
  CHECK(c.strides() == S{2, 1});
  CHECK(values(c) == V{0, 3, 1, 4, 2, 5});
  CHECK(c._version() == 0);
  Tensor x = empty({2, 3, 4, 5});
  Tensor cl = x.contiguous(MemoryFormat::ChannelsLast);
  CHECK(cl.strides() == S{60, 1, 15, 3});
  CHECK(cl.contiguous(MemoryFormat::ChannelsLast).is_same(cl));
  CHECK(a.contiguous(MemoryFormat::Preserve).is_same(a));  // contiguous already: no check
  CHECK_THROWS_WITH(t.contiguous(MemoryFormat::Preserve),
                    "preserve memory format is unsupported by the contiguous operator");
  CHECK_THROWS_WITH(t.contiguous(MemoryFormat::ChannelsLast),
                    "required rank 4 tensor to use channels_last format");
}

TEST_CASE("to() aliases when nothing changes and copies otherwise", "[ops][copy][to]") {
  Tensor a = seq2(2, 3);
  CHECK(a.to(kFloat).is_same(a));
  CHECK(a.to(Device(kCPU), kFloat).is_same(a));
  CHECK(a.to(TensorOptions()).is_same(a));
  CHECK(a.to(TensorOptions().dtype(kFloat).device(kCPU)).is_same(a));
  CHECK(a.to(kFloat, false, false, MemoryFormat::Contiguous).is_same(a));

  Tensor copied = a.to(kFloat, /*non_blocking=*/false, /*copy=*/true);
  CHECK_FALSE(copied.is_same(a));
  CHECK_FALSE(copied.is_alias_of(a));
  CHECK(values(copied) == values(a));
  CHECK(copied._version() == 0);

  Tensor d = a.to(kDouble);
  CHECK(d.dtype() == kDouble);
  CHECK(values(d) == values(a));
  CHECK(d._version() == 0);
  Tensor i8 = a.to(TensorOptions().dtype(kInt8));
  CHECK(i8.dtype() == kInt8);
  CHECK(values(i8) == values(a));
  CHECK(a.to(Device("cpu"), kHalf).dtype() == kHalf);
  // PyTorch copies for "cpu:0" (a device that differs from "cpu" by its index).
  Tensor c0 = a.to(Device("cpu:0"), kFloat);
  CHECK_FALSE(c0.is_same(a));
  CHECK(values(c0) == values(a));

  // Preserve: a transposed input keeps its strides; an explicit format is honoured.
  Tensor t = transposed(seq2(2, 3));
  CHECK(t.to(kDouble).strides() == S{1, 3});
  CHECK(t.to(kDouble, false, false, MemoryFormat::Contiguous).strides() == S{2, 1});
  // libtorch compares the format with suggest_memory_format(), which is Contiguous for any
  // non-channels-last tensor: a transpose asked to be contiguous is returned as is.
  CHECK(t.to(kFloat, false, false, MemoryFormat::Contiguous).is_same(t));
  Tensor x = empty({2, 3, 4, 5});
  CHECK(x.to(TensorOptions(), false, false, MemoryFormat::ChannelsLast).strides() ==
        S{60, 1, 15, 3});
  CHECK(x.to(TensorOptions().memory_format(MemoryFormat::ChannelsLast)).strides() ==
        S{60, 1, 15, 3});
  Tensor cl = x.contiguous(MemoryFormat::ChannelsLast);
  CHECK(cl.to(kFloat, false, false, MemoryFormat::ChannelsLast).is_same(cl));
  CHECK_FALSE(cl.to(kFloat, false, false, MemoryFormat::Contiguous).is_same(cl));
}

TEST_CASE("to() errors", "[ops][copy][to]") {
  Tensor a = empty({2});
  CHECK_THROWS_WITH(a.to(TensorOptions().memory_format(MemoryFormat::Contiguous), false, false,
                         MemoryFormat::Contiguous),
                    "Cannot set memory_format both in TensorOptions and explicit argument; "
                    "please delete the redundant setter.");
  CHECK_THROWS_WITH(a.to(Device(kCUDA), kFloat),
                    Catch::Matchers::StartsWith("no allocator for device type CUDA"));
}

// ---- fill_, zero_, item -----------------------------------------------------------------

TEST_CASE("fill_ writes the value in every dtype and bumps the version", "[ops][copy][fill]") {
  for (DType dt : kAllDTypes) {
    Tensor t = empty({2, 3}, dtype(dt));
    t.fill_(1);
    CHECK(values(t) == V{1, 1, 1, 1, 1, 1});
    CHECK(t._version() == 1);
  }
  Tensor f = empty({3});
  f.fill_(2.5);
  CHECK(values(f) == V{2.5, 2.5, 2.5});
  Tensor i = empty({3}, dtype(kInt32));
  i.fill_(2.5);  // truncated, as PyTorch's fill_
  CHECK(values(i) == V{2, 2, 2});
  Tensor u = empty({2}, dtype(kUInt8));
  u.fill_(-1);  // c10 lets negative integers wrap into unsigned types
  CHECK(values(u) == V{255, 255});
  u.fill_(-255);
  CHECK(values(u) == V{1, 1});
  Tensor b = empty({2}, dtype(kBool));
  b.fill_(2.5);
  CHECK(values(b) == V{1, 1});
  b.fill_(std::numeric_limits<double>::quiet_NaN());
  CHECK(values(b) == V{1, 1});
  Tensor h = empty({1}, dtype(kHalf));
  h.fill_(std::numeric_limits<double>::infinity());
  CHECK(std::isinf(values(h)[0]));
  h.fill_(65504.0);
  CHECK(values(h) == V{65504});
  Tensor l = empty({1}, dtype(kInt64));
  l.fill_(int64_t{9223372036854775807});
  CHECK(l.item<int64_t>() == 9223372036854775807);
}

TEST_CASE("fill_ on views writes only the view", "[ops][copy][fill]") {
  Tensor a = make({3, 4}, V(12, 0));
  view_of(a, {3, 2}, {4, 2}, 1).fill_(7);  // a[:, 1::2]
  CHECK(values(a) == V{0, 7, 0, 7, 0, 7, 0, 7, 0, 7, 0, 7});
  transposed(view_of(a, {2, 4}, {4, 1})).fill_(1);  // rows 0-1 through a transpose
  CHECK(values(a) == V{1, 1, 1, 1, 1, 1, 1, 1, 0, 7, 0, 7});
  CHECK(a._version() == 2);
  Tensor x = make({3}, {0, 0, 0});
  view_of(x, {2, 3}, {0, 1}).fill_(4);  // an expanded destination is fine for fill_
  CHECK(values(x) == V{4, 4, 4});
  Tensor big = empty({300, 200}, dtype(kDouble));
  transposed(big).fill_(3);
  CHECK(values(big) == V(60000, 3.0));
}

TEST_CASE("fill_ rejects values the dtype cannot hold, with c10's message", "[ops][copy][fill]") {
  auto msg = [](const char* type) {
    return std::string("value cannot be converted to type ") + type + " without overflow";
  };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK_THROWS_WITH(empty({2}, dtype(kUInt8)).fill_(300), msg("uint8_t"));
  CHECK_THROWS_WITH(empty({2}, dtype(kUInt8)).fill_(-256), msg("uint8_t"));
  CHECK_THROWS_WITH(empty({2}, dtype(kUInt8)).fill_(-0.5), msg("uint8_t"));
  CHECK_THROWS_WITH(empty({2}, dtype(kUInt8)).fill_(255.9), msg("uint8_t"));
  CHECK_THROWS_WITH(empty({2}, dtype(kInt8)).fill_(1e10), msg("int8_t"));
  CHECK_THROWS_WITH(empty({2}, dtype(kInt8)).fill_(128), msg("int8_t"));
  CHECK_THROWS_WITH(empty({2}, dtype(kInt16)).fill_(1e6), msg("int16_t"));
  CHECK_THROWS_WITH(empty({2}, dtype(kInt32)).fill_(nan), msg("int"));
  CHECK_THROWS_WITH(empty({2}, dtype(kInt32)).fill_(std::numeric_limits<double>::infinity()),
                    msg("int"));
  CHECK_THROWS_WITH(empty({2}, dtype(kInt64)).fill_(1e30), msg("int64_t"));
  CHECK_THROWS_WITH(empty({2}, dtype(kHalf)).fill_(1e10), msg("tensorplay::Half"));
  CHECK_THROWS_WITH(empty({2}, dtype(kHalf)).fill_(65519.0), msg("tensorplay::Half"));
  CHECK_THROWS_WITH(empty({2}, dtype(kBFloat16)).fill_(1e39), msg("tensorplay::BFloat16"));
  CHECK_THROWS_WITH(empty({2}, dtype(kFloat)).fill_(1e300), msg("float"));
  Tensor t = make({2}, {1, 2}, kUInt8);
  CHECK_THROWS(t.fill_(1000));
  CHECK(values(t) == V{1, 2});  // nothing written
  CHECK(t._version() == 0);     // and no bump
  std::vector<float> host(2);
  Tensor fake_cuda = from_blob(host.data(), {2}, TensorOptions().device(kCUDA));
  CHECK_THROWS_WITH(fake_cuda.fill_(1),
                    "Could not run 'aten::fill_.Scalar' with arguments from the 'CUDA' backend. TensorPlay was "
                    "compiled without it: define TENSORPLAY_USE_CUDA (link the matching "
                    "tensorplay:: target)");
}

TEST_CASE("fill_ with a 0-d tensor value, and the free fill / fill_", "[ops][copy][fill]") {
  Tensor t = make({2, 3}, V(6, 0));
  const Tensor& r = t.fill_(make({}, {2.5}));
  CHECK(&r == &t);
  CHECK(values(t) == V(6, 2.5));
  CHECK(t._version() == 1);
  Tensor i = make({3}, {0, 0, 0}, kInt64);
  i.fill_(make({}, {2.5}, kDouble));  // converted as fill_(2.5): truncated
  CHECK(values(i) == V{2, 2, 2});
  Tensor b = make({2}, {0, 0}, kBool);
  b.fill_(make({}, {2.5}));
  CHECK(values(b) == V{1, 1});
  Tensor f = make({2}, {0, 0});
  f.fill_(make({}, {1}, kBool));
  CHECK(values(f) == V{1, 1});
  // A value that aliases self is read before anything is written.
  Tensor a = seq(4);
  a.fill_(view_of(a, {}, {}, 2));
  CHECK(values(a) == V{2, 2, 2, 2});
  // Through a view, only the view.
  Tensor base = make({2, 2}, V(4, 0));
  transposed(base).fill_(make({}, {3}));
  CHECK(values(base) == V(4, 3));

  const char* one_d = "fill_ only supports 0-dimension value tensor but got tensor with 1 dimensions.";
  CHECK_THROWS_AS(t.fill_(make({1}, {1})), Error);
  CHECK_THROWS_WITH(t.fill_(make({1}, {1})), one_d);
  CHECK_THROWS_WITH(t.fill_(make({2, 2}, V(4, 1))),
                    "fill_ only supports 0-dimension value tensor but got tensor with 2 dimensions.");
  CHECK(t._version() == 1);  // nothing written, no bump
  CHECK_THROWS_WITH(make({2}, {1, 2}, kUInt8).fill_(make({}, {300})),
                    "value cannot be converted to type uint8_t without overflow");

  // libtorch's free forms.
  Tensor s = seq2(2, 3);
  const Tensor& fr = fill_(s, 4);
  CHECK(&fr == &s);
  CHECK(values(s) == V(6, 4));
  fill_(s, make({}, {5}));
  CHECK(values(s) == V(6, 5));
  CHECK(s._version() == 2);
  // fill: a new tensor like self (its layout too), version 0; self is untouched.
  Tensor src = transposed(seq2(2, 3));
  Tensor n = fill(src, 7);
  CHECK(values(n) == V(6, 7));
  CHECK(n.sizes() == IntArrayRef{3, 2});
  CHECK(n.strides() == IntArrayRef{1, 3});
  CHECK(n._version() == 0);
  CHECK(!n.is_alias_of(src));
  CHECK(values(src) == V{0, 3, 1, 4, 2, 5});
  Tensor nt = fill(make({2}, {0, 0}, kInt64), make({}, {2.5}));
  CHECK(nt.dtype() == kInt64);
  CHECK(values(nt) == V{2, 2});
  CHECK_THROWS_WITH(fill(src, make({2}, {1, 2})), one_d);
  CHECK_THROWS_WITH(fill_(src, make({2}, {1, 2})), one_d);
}

TEST_CASE("zero_ zeroes any layout and bumps once", "[ops][copy][fill]") {
  for (DType dt : kAllDTypes) {
    Tensor t = make({2, 2}, {1, 1, 1, 1}, dt);
    t.zero_();
    CHECK(values(t) == V{0, 0, 0, 0});
    CHECK(t._version() == 1);
  }
  Tensor a = make({2, 4}, V(8, 5));
  view_of(a, {2, 2}, {4, 2}, 1).zero_();
  CHECK(values(a) == V{5, 0, 5, 0, 5, 0, 5, 0});
  CHECK(a._version() == 1);
  Tensor h = make({2}, {-0.5, 2}, kHalf);
  h.zero_();
  CHECK_FALSE(signbit(h.data_ptr<Half>()[0]));  // +0, not -0
}

TEST_CASE("item returns a Scalar of the tensor's kind", "[ops][copy][item]") {
  CHECK(make({}, {2.5}).item().toDouble() == 2.5);
  CHECK(make({}, {2.5}).item().isFloatingPoint());
  CHECK(make({1}, {7}, kUInt8).item().toLong() == 7);
  CHECK(make({1}, {7}, kUInt8).item().isIntegral(false));
  CHECK(make({1, 1}, {1}, kBool).item().isBoolean());
  CHECK(make({1, 1}, {1}, kBool).item().toBool());
  CHECK(make({}, {-3}, kInt64).item().type() == kLong);
  CHECK(make({}, {1.5}, kHalf).item().type() == kDouble);
  CHECK(make({}, {1.5}, kBFloat16).item<float>() == 1.5f);
  CHECK(make({}, {3.75}, kFloat).item<int>() == 3);
  CHECK(make({}, {3.75}, kDouble).item<Half>() == Half(3.75f));
  Tensor a = seq(5);
  CHECK(view_of(a, {}, {}, 3).item<float>() == 3.f);  // a view at an offset
  for (DType dt : kAllDTypes) CHECK(make({1}, {1}, dt).item<double>() == 1.0);
}

TEST_CASE("item errors", "[ops][copy][item]") {
  CHECK_THROWS_WITH(empty({2}).item(), "a Tensor with 2 elements cannot be converted to Scalar");
  CHECK_THROWS_WITH(empty({0}).item(), "a Tensor with 0 elements cannot be converted to Scalar");
  CHECK_THROWS_AS(empty({2, 3}).item(), ValueError);
  CHECK_THROWS_WITH(make({}, {300}, kInt32).item<int8_t>(),
                    "value cannot be converted to type int8_t without overflow");
  CHECK_THROWS_WITH(make({}, {1e300}, kDouble).item<float>(),
                    "value cannot be converted to type float without overflow");
  std::vector<float> host(1);
  Tensor fake_cuda = from_blob(host.data(), {1}, TensorOptions().device(kCUDA));
  // item() reads on the host through a copy, which needs the device's kernel.
  CHECK_THROWS_AS(fake_cuda.item(), NotImplementedError);
}

}  // namespace ops_copy_test
