// cat and stack (and their out= forms) against expected values built element by element here:
// every dim (negative too), dtype promotion, strided inputs, the legacy skipping of [0] inputs,
// channels-last, empty tensors, out= (resize, dtype, overlap) and every error message.
#include <tensorplay/ops/join.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

namespace ops_join_test {

using namespace tensorplay;
using Catch::Contains;

namespace {

using V = std::vector<double>;
using S = std::vector<int64_t>;

Tensor make(const S& sizes, const V& values, DType dt = kFloat) {
  Tensor t = empty(sizes, TensorOptions().dtype(dt));
  REQUIRE(t.numel() == int64_t(values.size()));
  dispatch_dtype(dt, [&]<class T>() {
    T* p = static_cast<T*>(t.data_ptr());
    for (std::size_t i = 0; i < values.size(); ++i) p[i] = static_cast<T>(values[i]);
  });
  return t;
}

// Values 0, 1, 2, ... plus `start`.
Tensor seq(const S& sizes, double start = 0, DType dt = kFloat) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  V v(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[std::size_t(i)] = start + double(i);
  return make(sizes, v, dt);
}

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

S shape_of(const Tensor& t) { return S(t.sizes().begin(), t.sizes().end()); }

// The value of t at a multi-index (logical, any strides).
double at(const Tensor& t, const S& index) {
  int64_t off = 0;
  for (std::size_t d = 0; d < index.size(); ++d) off += index[d] * t.stride(int64_t(d));
  double v = 0;
  dispatch_dtype(t.dtype(), [&]<class T>() {
    v = static_cast<double>(static_cast<const T*>(t.data_ptr())[off]);
  });
  return v;
}

// Reference cat: for every output index, find the input that owns it along `dim`.
V ref_cat(const std::vector<Tensor>& ts, int64_t dim, const S& out_shape) {
  V out;
  int64_t n = 1;
  for (int64_t s : out_shape) n *= s;
  S idx(out_shape.size(), 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t pos = idx[std::size_t(dim)];
    for (const Tensor& t : ts) {
      if (t.dim() == 1 && t.numel() == 0) continue;
      if (pos < t.size(dim)) {
        S local = idx;
        local[std::size_t(dim)] = pos;
        out.push_back(at(t, local));
        break;
      }
      pos -= t.size(dim);
    }
    for (int64_t d = int64_t(out_shape.size()) - 1;
         d >= 0 && ++idx[std::size_t(d)] == out_shape[std::size_t(d)]; --d) {
      idx[std::size_t(d)] = 0;
    }
  }
  return out;
}

}  // namespace

TEST_CASE("join: cat along every dim, negative dims included", "[ops][join]") {
  for (int64_t dim : {0, 1, 2, -1, -2, -3}) {
    INFO("dim " << dim);
    const int64_t d = dim < 0 ? dim + 3 : dim;
    S s1 = {2, 3, 4}, s2 = {2, 3, 4}, s3 = {2, 3, 4};
    s2[std::size_t(d)] = 1;
    s3[std::size_t(d)] = 5;
    const std::vector<Tensor> ts = {seq(s1), seq(s2, 100), seq(s3, 200)};
    const Tensor c = cat(ts, dim);
    S want = {2, 3, 4};
    want[std::size_t(d)] = s1[std::size_t(d)] + 6;
    CHECK(shape_of(c) == want);
    CHECK(c.is_contiguous());
    CHECK(values(c) == ref_cat(ts, d, want));
    CHECK(c._version() == 0);
  }
}

TEST_CASE("join: cat accepts vectors, braced lists and one tensor", "[ops][join]") {
  const Tensor a = seq({2}), b = seq({3}, 10);
  CHECK(values(cat({a, b})) == V{0, 1, 10, 11, 12});
  const std::vector<Tensor> v = {b, a};
  CHECK(values(cat(v)) == V{10, 11, 12, 0, 1});
  CHECK(values(cat(a)) == V{0, 1});
  const Tensor r = cat({a}, 0);
  CHECK(!r.is_alias_of(a));  // always a new tensor
}

TEST_CASE("join: cat promotes dtypes", "[ops][join]") {
  const Tensor i = make({2}, {1, 2}, kInt), f = make({1}, {0.5}, kFloat);
  const Tensor c = cat({i, f});
  CHECK(c.dtype() == kFloat);
  CHECK(values(c) == V{1, 2, 0.5});
  CHECK(cat({make({1}, {1}, kUInt8), make({1}, {-1}, kInt8)}).dtype() == kInt16);
  CHECK(cat({make({1}, {1}, kBool), make({1}, {3}, kLong)}).dtype() == kLong);
  CHECK(cat({make({1}, {1}, kHalf), make({1}, {3}, kBFloat16)}).dtype() == kFloat);
  CHECK(cat({make({1}, {1}, kBool), make({1}, {0}, kBool)}).dtype() == kBool);
}

TEST_CASE("join: cat reads strided inputs", "[ops][join]") {
  const Tensor base = seq({4, 6});
  const Tensor t = base.t();                    // [6, 4]
  const Tensor s = base.slice(1, 0, 6, 2).t();  // [3, 4]
  const Tensor e = make({1, 4}, {7, 8, 9, 10}).expand({2, 4});
  const std::vector<Tensor> ts = {t, s, e};
  const Tensor c = cat(ts, 0);
  CHECK(shape_of(c) == S{11, 4});
  CHECK(values(c) == ref_cat(ts, 0, {11, 4}));
  const std::vector<Tensor> cols = {base, base.slice(1, 1, 3)};
  CHECK(values(cat(cols, 1)) == ref_cat(cols, 1, {4, 8}));
}

TEST_CASE("join: cat skips 1-d empty tensors (legacy rule)", "[ops][join]") {
  const Tensor e = empty({0});
  const Tensor x = seq({2, 3});
  const Tensor c = cat({e, x, e}, 1);
  CHECK(shape_of(c) == S{2, 3});
  CHECK(values(c) == values(x));
  CHECK(shape_of(cat({e, e})) == S{0});
  CHECK(shape_of(cat({e, e}, 5)) == S{0});  // no real input: dim is never wrapped
  // The skipped input still counts for the dtype.
  CHECK(cat({empty({0}, kDouble), x}).dtype() == kDouble);
  // Only [0] is skipped: other empty shapes take part in the checks.
  CHECK(shape_of(cat({empty({0, 3}), x})) == S{2, 3});
  CHECK_THROWS_WITH(cat({empty({0, 4}), x}),
                    Contains("Sizes of tensors must match except in dimension 0. Expected size 4 "
                             "but got size 3 for tensor number 1 in the list."));
  CHECK(shape_of(cat({empty({2, 0}), x}, 1)) == S{2, 3});
}

TEST_CASE("join: cat keeps channels-last when every input is", "[ops][join]") {
  const Tensor a = empty({2, 3, 2, 2}, {}, MemoryFormat::ChannelsLast).copy_(seq({2, 3, 2, 2}));
  const Tensor b = empty({1, 3, 2, 2}, {}, MemoryFormat::ChannelsLast).copy_(seq({1, 3, 2, 2}, 50));
  const Tensor c = cat({a, b});
  CHECK(c.is_contiguous(MemoryFormat::ChannelsLast));
  const std::vector<Tensor> ts = {a, b};
  CHECK(values(c) == ref_cat(ts, 0, {3, 3, 2, 2}));
  CHECK(cat({a, seq({1, 3, 2, 2})}).is_contiguous());
}

TEST_CASE("join: cat errors, with PyTorch's messages", "[ops][join]") {
  CHECK_THROWS_WITH(cat(std::vector<Tensor>{}),
                    Contains("torch.cat(): expected a non-empty list of Tensors"));
  CHECK_THROWS_WITH(cat({seq({2, 2}), seq({2, 3})}),
                    Contains("Sizes of tensors must match except in dimension 0. Expected size 2 "
                             "but got size 3 for tensor number 1 in the list."));
  CHECK_THROWS_WITH(cat({seq({2, 2}), seq({2, 2}), seq({3, 2})}, 1),
                    Contains("Sizes of tensors must match except in dimension 1. Expected size 2 "
                             "but got size 3 for tensor number 2 in the list."));
  CHECK_THROWS_WITH(cat({seq({2, 2}), seq({2, 2, 1})}),
                    Contains("Tensors must have same number of dimensions: got 2 and 3"));
  CHECK_THROWS_WITH(cat({make({}, {1}), seq({2})}),
                    Contains("zero-dimensional tensor (at position 0) cannot be concatenated"));
  CHECK_THROWS_WITH(cat({seq({2}), make({}, {1})}),
                    Contains("zero-dimensional tensor (at position 1) cannot be concatenated"));
  CHECK_THROWS_WITH(cat({seq({2, 2})}, 2),
                    Contains("Dimension out of range (expected to be in range of [-2, 1], but got "
                             "2)"));
  CHECK_THROWS_AS(cat({seq({2, 2})}, -3), IndexError);
  CHECK_THROWS_WITH(cat({Tensor()}), Contains("undefined Tensor"));
}

TEST_CASE("join: cat_out", "[ops][join]") {
  const Tensor a = seq({2, 2}), b = seq({1, 2}, 10);
  SECTION("resizes a wrong-shaped out") {
    Tensor out = empty({0});
    const Tensor& r = cat_out(out, {a, b});
    CHECK(&r == &out);
    CHECK(shape_of(out) == S{3, 2});
    CHECK(values(out) == V{0, 1, 2, 3, 10, 11});
  }
  SECTION("writes through a right-shaped out's strides, and bumps its version once") {
    Tensor buf = full({2, 3}, -1.0);
    Tensor out = buf.t();  // [3, 2], transposed
    const int64_t v = out._version();
    cat_out(out, {a, b});
    CHECK(values(out) == V{0, 1, 2, 3, 10, 11});
    CHECK(out._version() == v + 1);
  }
  SECTION("out's dtype wins when the inputs cast to it safely") {
    Tensor out = empty({0}, kDouble);
    cat_out(out, {a, b});
    CHECK(out.dtype() == kDouble);
    CHECK(values(out) == V{0, 1, 2, 3, 10, 11});
    Tensor iout = empty({0}, kLong);
    CHECK_THROWS_WITH(cat_out(iout, {a, b}),
                      Contains("torch.cat(): input types can't be cast to the desired output type "
                               "Long"));
  }
  SECTION("no input may share memory with out") {
    Tensor out = seq({3, 2});
    CHECK_THROWS_WITH(cat_out(out, {out.narrow(0, 0, 2), b}),
                      Contains("unsupported operation: some elements of the input tensor and the "
                               "written-to tensor refer to a single memory location"));
    Tensor same = seq({2, 2});
    CHECK_THROWS_WITH(cat_out(same, {same}), Contains("refer to a single memory location"));
    Tensor expanded = zeros({1, 2}).expand({3, 2});
    CHECK_THROWS_WITH(cat_out(expanded, {a, b}),
                      Contains("more than one element of the written-to tensor refers to a single "
                               "memory location"));
  }
}

TEST_CASE("join: stack along every new dim", "[ops][join]") {
  const Tensor a = seq({2, 3}), b = seq({2, 3}, 10), c = seq({2, 3}, 20);
  for (int64_t dim : {0, 1, 2, -1, -2, -3}) {
    INFO("dim " << dim);
    const int64_t d = dim < 0 ? dim + 3 : dim;
    const Tensor s = stack({a, b, c}, dim);
    S want = {2, 3};
    want.insert(want.begin() + d, 3);
    CHECK(shape_of(s) == want);
    // s.select(d, i) is input i.
    const Tensor in[3] = {a, b, c};
    for (int64_t i = 0; i < 3; ++i) CHECK(values(s.select(d, i)) == values(in[i]));
  }
  // 0-d inputs stack into a vector; dtypes promote.
  CHECK(values(stack({make({}, {1}, kInt), make({}, {2.5})})) == V{1, 2.5});
  // Strided inputs.
  const Tensor t = seq({3, 2}).t();
  CHECK(values(stack({t, a}, 1)) == V{0, 2, 4, 0, 1, 2, 1, 3, 5, 3, 4, 5});
  CHECK(shape_of(stack({empty({0, 2}), empty({0, 2})}, 1)) == S{0, 2, 2});
}

TEST_CASE("join: stack errors and stack_out", "[ops][join]") {
  CHECK_THROWS_WITH(stack(std::vector<Tensor>{}), Contains("stack expects a non-empty TensorList"));
  CHECK_THROWS_WITH(
      stack({seq({2, 3}), seq({2, 4})}),
      Contains("stack expects each tensor to be equal size, but got [2, 3] at entry 0 "
               "and [2, 4] at entry 1"));
  CHECK_THROWS_WITH(stack({seq({2, 3}), seq({2, 3}), seq({3, 2})}, 1),
                    Contains("but got [2, 3] at entry 0 and [3, 2] at entry 2"));
  // A new last dim goes straight to cat (PyTorch's path), whose checks speak.
  CHECK_THROWS_WITH(stack({seq({2, 3}), seq({2, 4})}, 2),
                    Contains("Sizes of tensors must match except in dimension 2. Expected size 3 "
                             "but got size 4 for tensor number 1 in the list."));
  CHECK_THROWS_WITH(stack({seq({2, 3})}, 3),
                    Contains("Dimension out of range (expected to be in range of [-3, 2], but got "
                             "3)"));
  Tensor out = empty({1});
  const Tensor& r = stack_out(out, {seq({2}), seq({2}, 5)}, 1);
  CHECK(&r == &out);
  CHECK(shape_of(out) == S{2, 2});
  CHECK(values(out) == V{0, 5, 1, 6});
  Tensor bad = empty({2, 2}, kInt);
  CHECK_THROWS_WITH(stack_out(bad, {seq({2}), seq({2})}),
                    Contains("input types can't be cast to the desired output type Int"));
}

// Overflow. Expanded inputs hold one element however long they are, so the joined sizes can
// exceed int64 (numel) or the bytes a dense result needs can (2^61 float64 elements).
TEST_CASE("cat and stack refuse results beyond int64", "[ops][join]") {
  const int64_t k60 = int64_t{1} << 60, k62 = int64_t{1} << 62;
  const Tensor long62 = zeros({1}).expand({k62});
  const Tensor d60 = zeros({1}, kDouble).expand({k60});
  const std::string bytes_msg =
      "Storage size calculation overflowed with sizes=[2305843009213693952]";
  // The total length itself overflows (PyTorch's wraps: to a "negative dimension" for two
  // inputs, to an empty result for four).
  CHECK_THROWS_MATCHES(cat({long62, long62}), Error,
                       Catch::Message("torch.cat(): the total size of the inputs in dimension 0 "
                                      "overflows int64"));
  CHECK_THROWS_MATCHES(cat({long62, long62, long62, long62}), Error,
                       Catch::Message("torch.cat(): the total size of the inputs in dimension 0 "
                                      "overflows int64"));
  CHECK_THROWS_MATCHES(cat({d60, d60}), Error, Catch::Message(bytes_msg));
  Tensor out = empty({0}, kDouble);
  CHECK_THROWS_MATCHES(cat_out(out, {d60, d60}), Error, Catch::Message(bytes_msg));
  CHECK(out.sizes() == std::vector<int64_t>{0});
  // stack: each length fits, the count times it does not.
  CHECK_THROWS_MATCHES(stack({long62, long62, long62, long62}), Error,
                       Catch::Message("numel: integer multiplication overflow"));
  CHECK_THROWS_MATCHES(
      stack({d60, d60}), Error,
      Catch::Message("Storage size calculation overflowed with sizes=[2, 1152921504606846976]"));
  CHECK_THROWS_MATCHES(stack({d60, d60}, 1), Error,
                       Catch::Message("Storage size calculation overflowed with "
                                      "sizes=[1152921504606846976, 2]"));
}

}  // namespace ops_join_test
