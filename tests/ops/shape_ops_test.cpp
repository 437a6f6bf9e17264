// The shape ops (ops/shape_ops.hpp, ops/shape_join.hpp): values against index formulas written
// here (each result element checked against the input element the op's definition names),
// every dtype, empty and 0-d inputs, non-contiguous (transposed, sliced, expanded) inputs, the
// in-place and out= forms, and every error path with PyTorch 1.13's message (taken from torch
// 1.13 itself).
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace ops_shape_ops_test {

using namespace tensorplay;
using Index = std::vector<int64_t>;

namespace {

const std::vector<DType> kAllTypes = {kBool, kByte, kChar,     kShort, kInt,
                                      kLong, kHalf, kBFloat16, kFloat, kDouble};

// 0, 1, 2, ... of the given shape as `dtype` (bool: alternating), through float64.
Tensor seq(Index sizes, DType dtype = kDouble) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  const Tensor t = arange(n, kDouble).reshape(sizes);
  if (dtype == kBool) return t.remainder(2).to(kBool);
  return t.to(dtype);
}

// The element of t (any dtype) at a multi-index, as a double.
double at(const Tensor& t, const Index& idx) {
  const Tensor d = t.to(kDouble);
  int64_t off = d.storage_offset();
  for (std::size_t k = 0; k < idx.size(); ++k) off += idx[k] * d.stride(int64_t(k));
  return static_cast<const double*>(d.storage().data())[off];
}

// Every multi-index of a shape, row-major.
std::vector<Index> indices(IntArrayRef sizes) {
  std::vector<Index> all;
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  Index idx(sizes.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    all.push_back(idx);
    for (int64_t d = int64_t(sizes.size()) - 1; d >= 0; --d) {
      if (++idx[d] < sizes[d]) break;
      idx[d] = 0;
    }
  }
  return all;
}

// result[i] == input[source(i)] for every index i, or 0 where source gives nothing.
using Source = std::function<std::optional<Index>(const Index&)>;
void check_map(const Tensor& result, const Tensor& input, const Source& source) {
  const Tensor r = result.to(kDouble), x = input.to(kDouble);
  for (const Index& i : indices(result.sizes())) {
    const std::optional<Index> s = source(i);
    INFO("result index " << IntArrayRef(i));
    REQUIRE(at(r, i) == (s ? at(x, *s) : 0.0));
  }
}

Tensor lng(std::vector<int64_t> v) { return tensor(v, kLong); }

}  // namespace

TEST_CASE("flip, fliplr, flipud", "[ops][shape]") {
  for (DType t : kAllTypes) {
    INFO(t);
    const Tensor x = seq({2, 3, 4}, t);
    const Tensor r = x.flip({0, -1});
    REQUIRE(r.sizes() == x.sizes());
    REQUIRE(r.dtype() == t);
    REQUIRE(r.is_contiguous());
    check_map(r, x, [](const Index& i) { return Index{1 - i[0], i[1], 3 - i[2]}; });
  }
  const Tensor x = seq({3, 4});
  // Non-contiguous inputs: transposed, sliced with a step, expanded.
  check_map(x.t().flip({0}), x.t(), [](const Index& i) { return Index{3 - i[0], i[1]}; });
  const Tensor s = x.slice(1, 0, 4, 2);
  check_map(s.flip({1}), s, [](const Index& i) { return Index{i[0], 1 - i[1]}; });
  const Tensor e = seq({3}).expand({2, 3});
  check_map(e.flip({1}), e, [](const Index& i) { return Index{i[0], 2 - i[1]}; });
  check_map(x.flip({}), x, [](const Index& i) { return i; });
  check_map(x.fliplr(), x, [](const Index& i) { return Index{i[0], 3 - i[1]}; });
  check_map(flipud(x), x, [](const Index& i) { return Index{2 - i[0], i[1]}; });
  // A copy, never a view.
  REQUIRE_FALSE(x.flip({}).is_alias_of(x));
  // 0-d and empty.
  const Tensor z = scalar_tensor(5, kLong);
  REQUIRE(z.flip({0}).item<int64_t>() == 5);
  REQUIRE(z.flip({}).dim() == 0);
  REQUIRE(seq({0, 3}).flip({0, 1}).sizes() == IntArrayRef{0, 3});
  // Seven flipped dimensions: more than one iteration's operands.
  const Tensor big = seq({2, 2, 2, 2, 2, 2, 2});
  check_map(big.flip({0, 1, 2, 3, 4, 5, 6}), big, [](const Index& i) {
    Index o(i);
    for (auto& v : o) v = 1 - v;
    return o;
  });
  REQUIRE_THROWS_WITH(x.flip({0, 0}), "dim 0 appears multiple times in the list of dims");
  REQUIRE_THROWS_WITH(x.flip({1, -1}), "dim 1 appears multiple times in the list of dims");
  REQUIRE_THROWS_AS(x.flip({2}), IndexError);
  REQUIRE_THROWS_WITH(x.flip({2}),
                      "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  REQUIRE_THROWS_WITH(seq({3}).fliplr(), "Input must be >= 2-d.");
  REQUIRE_THROWS_WITH(z.flipud(), "Input must be >= 1-d.");
}

TEST_CASE("roll", "[ops][shape]") {
  for (DType t : kAllTypes) {
    INFO(t);
    const Tensor x = seq({3, 4}, t);
    check_map(x.roll({1, -5}, {0, 1}), x, [](const Index& i) {
      return Index{(i[0] + 2) % 3, (i[1] + 1) % 4};
    });
  }
  const Tensor x = seq({3, 4});
  // No dims: the flattened tensor rolls, the shape stays.
  const Tensor flat = x.roll({2});
  REQUIRE(flat.sizes() == x.sizes());
  check_map(flat, x, [](const Index& i) {
    const int64_t k = (i[0] * 4 + i[1] + 10) % 12;
    return Index{k / 4, k % 4};
  });
  check_map(roll(x.t(), 1, 0), x.t(), [](const Index& i) { return Index{(i[0] + 3) % 4, i[1]}; });
  // A dim listed twice rolls twice.
  check_map(x.roll({1, 1}, {1, 1}), x, [](const Index& i) { return Index{i[0], (i[1] + 2) % 4}; });
  check_map(x.roll({0}, {0}), x, [](const Index& i) { return i; });
  const Tensor z = scalar_tensor(3.5);
  REQUIRE(z.roll({1}).item<double>() == 3.5);
  REQUIRE(z.roll({1}).dim() == 0);
  // An empty tensor is copied before its dims are looked at.
  REQUIRE(seq({0, 3}).roll({1}, {5}).sizes() == IntArrayRef{0, 3});
  REQUIRE_THROWS_WITH(x.roll({1, 2}, {0}), "shifts and dimensions must align. shifts: 2, dims:1");
  REQUIRE_THROWS_WITH(x.roll({1, 2}), "shifts and dimensions must align. shifts: 2, dims:0");
  REQUIRE_THROWS_WITH(x.roll({}, {}), "`shifts` required");
  REQUIRE_THROWS_AS(x.roll({1}, {5}), IndexError);
  REQUIRE_THROWS_WITH(x.roll({1}, {5}),
                      "Dimension out of range (expected to be in range of [-2, 1], but got 5)");
  REQUIRE_THROWS_WITH(z.roll({1}, {0}), "Dimension specified as 0 but tensor has no dimensions");
}

TEST_CASE("rot90", "[ops][shape]") {
  const Tensor x = seq({3, 4});
  // k = 1 turns from the first dim towards the second: r[i][j] = x[j][n-1-i].
  const Tensor r1 = x.rot90();
  REQUIRE(r1.sizes() == IntArrayRef{4, 3});
  check_map(r1, x, [](const Index& i) { return Index{i[1], 3 - i[0]}; });
  check_map(x.rot90(2), x, [](const Index& i) { return Index{2 - i[0], 3 - i[1]}; });
  check_map(x.rot90(-1), x, [](const Index& i) { return Index{2 - i[1], i[0]}; });
  check_map(x.rot90(3), x, [](const Index& i) { return Index{2 - i[1], i[0]}; });
  check_map(x.rot90(4), x, [](const Index& i) { return i; });
  check_map(x.rot90(1, {1, 0}), x, [](const Index& i) { return Index{2 - i[1], i[0]}; });
  const Tensor y = seq({2, 3, 4}, kInt);
  check_map(rot90(y, 1, {0, 2}), y, [](const Index& i) { return Index{i[2], i[1], 3 - i[0]}; });
  REQUIRE(rot90(y, 1, {0, 2}).dtype() == kInt);
  REQUIRE_THROWS_WITH(x.rot90(1, {0}), "expected total rotation dims == 2, but got dims = 1");
  REQUIRE_THROWS_WITH(seq({3}).rot90(), "expected total dims >= 2, but got total dims = 1");
  REQUIRE_THROWS_WITH(x.rot90(1, {0, 0}),
                      "expected rotation dims to be different, but got dim0 = 0 and dim1 = 0");
  REQUIRE_THROWS_WITH(x.rot90(1, {0, 2}),
                      "expected rotation dims to be different, but got dim0 = 0 and dim1 = 2");
  REQUIRE_THROWS_WITH(y.rot90(1, {0, 5}), "Rotation dim1 out of range, dim1 = 5");
  REQUIRE_THROWS_WITH(y.rot90(1, {-4, 1}), "Rotation dim0 out of range, dim0 = -4");
}

TEST_CASE("repeat and tile", "[ops][shape]") {
  for (DType t : kAllTypes) {
    INFO(t);
    const Tensor x = seq({2, 3}, t);
    const Tensor r = x.repeat({2, 1, 2});
    REQUIRE(r.sizes() == IntArrayRef{2, 2, 6});
    REQUIRE(r.dtype() == t);
    check_map(r, x, [](const Index& i) { return Index{i[1], i[2] % 3}; });
  }
  const Tensor x = seq({2, 3});
  check_map(x.t().repeat({2, 2}), x.t(), [](const Index& i) { return Index{i[0] % 3, i[1] % 2}; });
  const Tensor e = seq({3}).expand({2, 3});
  check_map(e.repeat({1, 2}), e, [](const Index& i) { return Index{i[0], i[1] % 3}; });
  REQUIRE(x.repeat({0, 2}).sizes() == IntArrayRef{0, 6});
  REQUIRE(seq({0}).repeat({3, 2}).sizes() == IntArrayRef{3, 0});
  const Tensor z = scalar_tensor(7, kLong);
  const Tensor zr = z.repeat({2, 3});
  REQUIRE(zr.sizes() == IntArrayRef{2, 3});
  REQUIRE(zr.sum().item<int64_t>() == 42);
  REQUIRE(z.repeat({}).dim() == 0);
  // tile pads the repeats with leading 1s instead of refusing them.
  check_map(x.tile({2}), x, [](const Index& i) { return Index{i[0], i[1] % 3}; });
  REQUIRE(tile(x, {2}).sizes() == IntArrayRef{2, 6});
  REQUIRE(x.tile({2, 1, 1}).sizes() == IntArrayRef{2, 2, 3});
  REQUIRE_THROWS_WITH(x.repeat({2}),
                      "Number of dimensions of repeat dims can not be smaller than "
                      "number of dimensions of tensor");
  REQUIRE_THROWS_WITH(x.repeat({-1, 1}),
                      "Trying to create tensor with negative dimension -2: "
                      "[-2, 3]");
  REQUIRE_THROWS_WITH(x.tile({-1, 1}),
                      "Trying to create tensor with negative dimension -2: "
                      "[-2, 3]");
}

TEST_CASE("repeat_interleave", "[ops][shape]") {
  // The index form: i repeated repeats[i] times, in repeats' dtype.
  const Tensor idx = repeat_interleave(tensor(std::vector<int32_t>{2, 0, 3}, kInt));
  REQUIRE(idx.dtype() == kInt);
  check_map(idx, lng({0, 0, 2, 2, 2}), [](const Index& i) { return i; });
  REQUIRE(repeat_interleave(lng({}), 0).numel() == 0);
  // An int second argument is the repeats of the (self, repeats) form, as in libtorch.
  REQUIRE(repeat_interleave(lng({1, 2}), 3).numel() == 6);
  REQUIRE(repeat_interleave(lng({1, 2}), std::optional<int64_t>(3)).numel() == 3);
  for (DType t : kAllTypes) {
    INFO(t);
    const Tensor x = seq({3, 2}, t);
    const Tensor r = x.repeat_interleave(lng({1, 0, 2}), 0);
    REQUIRE(r.sizes() == IntArrayRef{3, 2});
    REQUIRE(r.dtype() == t);
    check_map(r, x, [](const Index& i) { return Index{i[0] == 0 ? 0 : 2, i[1]}; });
  }
  const Tensor x = seq({2, 3});
  // No dim: flattened.
  const Tensor f = x.repeat_interleave(2);
  REQUIRE(f.sizes() == IntArrayRef{12});
  check_map(f, x, [](const Index& i) { return Index{i[0] / 6, (i[0] / 2) % 3}; });
  check_map(x.t().repeat_interleave(2, 1), x.t(), [](const Index& i) {
    return Index{i[0], i[1] / 2};
  });
  check_map(repeat_interleave(x, lng({3}), -1), x, [](const Index& i) {
    return Index{i[0], i[1] / 3};
  });
  check_map(x.repeat_interleave(scalar_tensor(2, kLong), 0), x, [](const Index& i) {
    return Index{i[0] / 2, i[1]};
  });
  REQUIRE(scalar_tensor(1.5).repeat_interleave(3).sizes() == IntArrayRef{3});
  REQUIRE(x.repeat_interleave(0, 1).sizes() == IntArrayRef{2, 0});
  REQUIRE(x.repeat_interleave(2, 0, 4).sizes() == IntArrayRef{4, 3});
  REQUIRE_THROWS_WITH(x.repeat_interleave(-1), "repeats can not be negative");
  REQUIRE_THROWS_WITH(x.repeat_interleave(lng({1, -1, 1}), 1), "repeats can not be negative");
  REQUIRE_THROWS_WITH(x.repeat_interleave(lng({1, 2}).view({1, 2}), 0),
                      "repeats must be 0-dim or 1-dim tensor");
  REQUIRE_THROWS_WITH(x.repeat_interleave(lng({1, 2}), 1),
                      "repeats must have the same size as input along dim");
  REQUIRE_THROWS_WITH(x.repeat_interleave(tensor({1.0f, 2.0f}), 0),
                      "\"repeat_interleave_cpu\" not implemented for 'Float'");
  REQUIRE_THROWS_WITH(repeat_interleave(lng({1}).view({1, 1})),
                      "repeat_interleave only accept 1D vector as repeat");
  REQUIRE_THROWS_WITH(repeat_interleave(lng({1, 2}), std::optional<int64_t>(5)),
                      "allocated size does not match required size");
  REQUIRE_THROWS_AS(x.repeat_interleave(2, 2), IndexError);
}

TEST_CASE("tril and triu, in place and out=", "[ops][shape]") {
  for (DType t : kAllTypes) {
    INFO(t);
    const Tensor x = seq({2, 3, 4}, t).add(t == kBool ? 0 : 1);
    for (int64_t k : {-2, -1, 0, 1, 5}) {
      INFO(k);
      check_map(x.tril(k), x, [k](const Index& i) -> std::optional<Index> {
        if (i[2] - i[1] <= k) return i;
        return std::nullopt;
      });
      check_map(x.triu(k), x, [k](const Index& i) -> std::optional<Index> {
        if (i[2] - i[1] >= k) return i;
        return std::nullopt;
      });
    }
  }
  const Tensor x = seq({3, 4}).add(1);
  // Transposed input and a broadcast (expanded) one.
  check_map(x.t().tril(), x.t(), [](const Index& i) -> std::optional<Index> {
    if (i[1] <= i[0]) return i;
    return std::nullopt;
  });
  const Tensor e = seq({4}).add(1).expand({3, 4});
  check_map(triu(e, 1), e, [](const Index& i) -> std::optional<Index> {
    if (i[1] - i[0] >= 1) return i;
    return std::nullopt;
  });
  // In place, through a view of a larger tensor.
  Tensor big = seq({3, 4}).add(1);
  const uint32_t v0 = big._version();
  Tensor view = big.narrow(1, 1, 3);
  view.tril_();
  REQUIRE(big._version() == v0 + 1);
  check_map(big, x, [](const Index& i) -> std::optional<Index> {
    if (i[1] == 0 || i[1] - 1 <= i[0]) return i;
    return std::nullopt;
  });
  Tensor up = x.clone();
  REQUIRE(&up.triu_(1) == &up);
  check_map(up, x, [](const Index& i) -> std::optional<Index> {
    if (i[1] - i[0] >= 1) return i;
    return std::nullopt;
  });
  // out=: resized, dtype checked, version bumped.
  Tensor out = empty({0}, kDouble);
  REQUIRE(&tril_out(out, x, -1) == &out);
  REQUIRE(out.sizes() == x.sizes());
  REQUIRE(out._version() == 1);
  check_map(out, x, [](const Index& i) -> std::optional<Index> {
    if (i[1] - i[0] <= -1) return i;
    return std::nullopt;
  });
  triu_out(out, x);
  check_map(out, x, [](const Index& i) -> std::optional<Index> {
    if (i[1] >= i[0]) return i;
    return std::nullopt;
  });
  REQUIRE(seq({0, 3}).tril().sizes() == IntArrayRef{0, 3});
  REQUIRE_THROWS_WITH(tril_out(empty({0}, kDouble), x.to(kFloat)),
                      "Expected out tensor to have dtype float, but got double instead");
  REQUIRE_THROWS_AS(seq({3}).tril(), IndexError);
  REQUIRE_THROWS_WITH(seq({3}).triu(),
                      "Dimension out of range (expected to be in range of [-1, 0], but got -2)");
  REQUIRE_THROWS_WITH(seq({3}).tril_(),
                      "Dimension out of range (expected to be in range of [-1, 0], but got -2)");
  REQUIRE_THROWS_WITH(scalar_tensor(1.0).tril(),
                      "Dimension specified as -2 but tensor has no dimensions");
  REQUIRE_THROWS_WITH(tril_out(empty({0}), seq({3}, kFloat)),
                      "Dimension out of range (expected to be in range of [-1, 0], but got -2)");
}

TEST_CASE("diag, diag_embed, diagflat", "[ops][shape]") {
  for (DType t : kAllTypes) {
    INFO(t);
    const Tensor v = seq({3}, t);
    for (int64_t k : {-1, 0, 2}) {
      INFO(k);
      const Tensor m = v.diag(k);
      REQUIRE(m.sizes() == IntArrayRef{3 + std::abs(k), 3 + std::abs(k)});
      REQUIRE(m.dtype() == t);
      check_map(m, v, [k](const Index& i) -> std::optional<Index> {
        if (i[1] - i[0] != k) return std::nullopt;
        return Index{std::min(i[0], i[1])};
      });
    }
    const Tensor m = seq({3, 4}, t);
    check_map(diag(m, 1), m, [](const Index& i) { return Index{i[0], i[0] + 1}; });
    REQUIRE(diag(m, 1).sizes() == IntArrayRef{3});
    REQUIRE(diag(m, -3).numel() == 0);
  }
  const Tensor m = seq({3, 4});
  check_map(m.t().diag(), m.t(), [](const Index& i) { return Index{i[0], i[0]}; });
  REQUIRE_FALSE(m.diag().is_alias_of(m));
  Tensor out = empty({0});
  diag_out(out, seq({2}, kFloat));
  REQUIRE(out.sizes() == IntArrayRef{2, 2});
  check_map(out, seq({2}), [](const Index& i) -> std::optional<Index> {
    if (i[0] != i[1]) return std::nullopt;
    return Index{i[0]};
  });
  REQUIRE_THROWS_WITH(diag(seq({2, 2, 2})), "matrix or a vector expected");
  REQUIRE_THROWS_WITH(diag(scalar_tensor(1.0)), "matrix or a vector expected");
  REQUIRE_THROWS_WITH(diag_out(empty({0}, kInt), seq({2}, kFloat)),
                      "Expected out tensor to have dtype float, but got int instead");

  for (DType t : kAllTypes) {
    const Tensor x = seq({2, 3}, t);
    const Tensor r = diag_embed(x, 1, 0, 2);
    REQUIRE(r.sizes() == IntArrayRef{4, 2, 4});
    check_map(r, x, [](const Index& i) -> std::optional<Index> {
      if (i[2] - i[0] != 1) return std::nullopt;
      return Index{i[1], i[0]};
    });
  }
  const Tensor x = seq({2, 3});
  check_map(x.diag_embed(), x, [](const Index& i) -> std::optional<Index> {
    if (i[1] != i[2]) return std::nullopt;
    return Index{i[0], i[1]};
  });
  check_map(x.t().diag_embed(-1, 2, 1), x.t(), [](const Index& i) -> std::optional<Index> {
    if (i[2] - i[1] != 1) return std::nullopt;
    return Index{i[0], i[1]};
  });
  REQUIRE_THROWS_WITH(diag_embed(x, 0, 1, 1), "diagonal dimensions cannot be identical 1, 1");
  REQUIRE_THROWS_WITH(diag_embed(x, 0, 1, -2), "diagonal dimensions cannot be identical 1, -2");
  REQUIRE_THROWS_AS(diag_embed(x, 0, 0, 5), IndexError);
  REQUIRE_THROWS_WITH(diag_embed(scalar_tensor(1.0)),
                      "Dimension out of range (expected to be in range of [-1, 0], but got -2)");

  const Tensor d = x.t().diagflat(-1);
  REQUIRE(d.sizes() == IntArrayRef{7, 7});
  check_map(d, x.t().contiguous().view({6}), [](const Index& i) -> std::optional<Index> {
    if (i[0] - i[1] != 1) return std::nullopt;
    return Index{i[1]};
  });
  REQUIRE(scalar_tensor(2.0).diagflat().sizes() == IntArrayRef{1, 1});
}

TEST_CASE("trace", "[ops][shape]") {
  const Tensor m = seq({3, 4});
  REQUIRE(m.trace().item<double>() == 0 + 5 + 10);
  REQUIRE(trace(m.t()).item<double>() == 15);
  for (DType t : {kByte, kChar, kShort, kInt, kLong}) {
    const Tensor r = seq({3, 3}, t).trace();
    REQUIRE(r.dtype() == kLong);
    REQUIRE(r.item<int64_t>() == 12);
  }
  REQUIRE(seq({2, 2}, kFloat).trace().dtype() == kFloat);
  REQUIRE(seq({0, 3}).trace().item<double>() == 0);
  REQUIRE_THROWS_WITH(seq({3}).trace(), "trace: expected a matrix, but got tensor with dim 1");
  REQUIRE_THROWS_WITH(seq({2, 2}, kBool).trace(), "\"trace\" not implemented for 'Bool'");
  REQUIRE_THROWS_WITH(seq({2, 2}, kHalf).trace(), "\"trace\" not implemented for 'Half'");
}

TEST_CASE("broadcast_to, broadcast_tensors, meshgrid", "[ops][shape]") {
  const Tensor x = seq({3, 1});
  const Tensor b = x.broadcast_to({2, 3, 4});
  REQUIRE(b.sizes() == IntArrayRef{2, 3, 4});
  REQUIRE(b.is_alias_of(x));
  check_map(b, x, [](const Index& i) { return Index{i[1], 0}; });
  REQUIRE_THROWS_WITH(broadcast_to(seq({3, 4}), {3, 5}),
                      Catch::Contains("The expanded size of the tensor (5) must match the "
                                      "existing size (4) at non-singleton dimension 1"));
  const Tensor v = seq({4});
  auto bt = broadcast_tensors({x, v, scalar_tensor(1.0)});
  REQUIRE(bt.size() == 3);
  for (const Tensor& t : bt) REQUIRE(t.sizes() == IntArrayRef{3, 4});
  // A tensor already of the broadcast shape is returned as is.
  const Tensor full34 = seq({3, 4});
  REQUIRE(broadcast_tensors({full34, v})[0].is_same(full34));
  REQUIRE_THROWS_WITH(broadcast_tensors({seq({3, 4}), seq({5})}),
                      "The size of tensor a (4) must match the size of tensor b (5) at "
                      "non-singleton dimension 1");

  const Tensor a = seq({2}), c = seq({3}).add(10);
  auto ij = meshgrid({a, c}, "ij");
  REQUIRE(ij[0].sizes() == IntArrayRef{2, 3});
  check_map(ij[0], a, [](const Index& i) { return Index{i[0]}; });
  check_map(ij[1], c, [](const Index& i) { return Index{i[1]}; });
  auto xy = meshgrid({a, c, scalar_tensor(1.0, kDouble)}, "xy");
  REQUIRE(xy[0].sizes() == IntArrayRef{3, 2, 1});
  check_map(xy[0], a, [](const Index& i) { return Index{i[1]}; });
  check_map(xy[1], c, [](const Index& i) { return Index{i[0]}; });
  REQUIRE(meshgrid({a}).at(0).sizes() == IntArrayRef{2});
  REQUIRE_THROWS_WITH(meshgrid(std::vector<Tensor>{}, "ij"),
                      "meshgrid expects a non-empty TensorList");
  REQUIRE_THROWS_WITH(meshgrid({a, a.to(kLong)}, "ij"),
                      "meshgrid expects all tensors to have the same dtype");
  REQUIRE_THROWS_WITH(meshgrid({a, a}, "foo"),
                      "torch.meshgrid: indexing must be one of \"xy\" "
                      "or \"ij\", but received: foo");
  REQUIRE_THROWS_WITH(meshgrid({seq({2, 2})}, "ij"),
                      Catch::StartsWith("torch.meshgrid: Expected 0D or 1D tensor in the tensor "
                                        "list but got:"));
}

TEST_CASE("atleast_nd and the stacks", "[ops][shape]") {
  const Tensor s = scalar_tensor(2.0), v = seq({3}), m = seq({2, 3}), c = seq({2, 3, 4});
  REQUIRE(atleast_1d(s).sizes() == IntArrayRef{1});
  REQUIRE(atleast_1d(v).is_same(v));
  REQUIRE(atleast_2d(s).sizes() == IntArrayRef{1, 1});
  REQUIRE(atleast_2d(v).sizes() == IntArrayRef{1, 3});
  REQUIRE(atleast_2d(m).is_same(m));
  REQUIRE(atleast_3d(s).sizes() == IntArrayRef{1, 1, 1});
  REQUIRE(atleast_3d(v).sizes() == IntArrayRef{1, 3, 1});
  REQUIRE(atleast_3d(m).sizes() == IntArrayRef{2, 3, 1});
  REQUIRE(atleast_3d(c).is_same(c));
  auto list = atleast_2d({s, v});
  REQUIRE(list.size() == 2);
  REQUIRE(list[1].sizes() == IntArrayRef{1, 3});
  REQUIRE(atleast_1d(std::vector<Tensor>{s, m})[1].is_same(m));
  REQUIRE(atleast_3d(std::vector<Tensor>{v})[0].sizes() == IntArrayRef{1, 3, 1});

  // hstack: vectors along 0, matrices along 1; mixed dtypes promote as cat does.
  const Tensor hv = hstack({v, s, v.to(kInt)});
  REQUIRE(hv.sizes() == IntArrayRef{7});
  REQUIRE(hv.dtype() == kDouble);
  REQUIRE(at(hv, {3}) == 2.0);
  const Tensor hm = hstack({m, m.t().t()});
  REQUIRE(hm.sizes() == IntArrayRef{2, 6});
  check_map(hm, m, [](const Index& i) { return Index{i[0], i[1] % 3}; });
  const Tensor vs = vstack({v, m});
  REQUIRE(vs.sizes() == IntArrayRef{3, 3});
  check_map(vs.narrow(0, 1, 2), m, [](const Index& i) { return i; });
  REQUIRE(row_stack({v, v}).sizes() == IntArrayRef{2, 3});
  const Tensor ds = dstack({m, m});
  REQUIRE(ds.sizes() == IntArrayRef{2, 3, 2});
  check_map(ds, m, [](const Index& i) { return Index{i[0], i[1]}; });
  REQUIRE(dstack({v, v}).sizes() == IntArrayRef{1, 3, 2});
  const Tensor cs = column_stack({v, seq({3, 2}), s.expand({3})});
  REQUIRE(cs.sizes() == IntArrayRef{3, 4});
  check_map(cs.select(1, 0), v, [](const Index& i) { return i; });
  REQUIRE(at(cs, {2, 3}) == 2.0);
  REQUIRE(column_stack({s}).sizes() == IntArrayRef{1, 1});

  Tensor out = empty({0});
  REQUIRE(&hstack_out(out, {v.to(kFloat), v.to(kFloat)}) == &out);
  REQUIRE(out.sizes() == IntArrayRef{6});
  vstack_out(out, {v.to(kFloat), v.to(kFloat)});
  REQUIRE(out.sizes() == IntArrayRef{2, 3});
  row_stack_out(out, {v.to(kFloat)});
  REQUIRE(out.sizes() == IntArrayRef{1, 3});
  dstack_out(out, {m.to(kFloat)});
  REQUIRE(out.sizes() == IntArrayRef{2, 3, 1});
  column_stack_out(out, {v.to(kFloat), v.to(kFloat)});
  REQUIRE(out.sizes() == IntArrayRef{3, 2});

  const std::vector<Tensor> none;
  REQUIRE_THROWS_WITH(hstack(none), "hstack expects a non-empty TensorList");
  REQUIRE_THROWS_WITH(vstack(none), "vstack expects a non-empty TensorList");
  REQUIRE_THROWS_WITH(dstack(none), "dstack expects a non-empty TensorList");
  REQUIRE_THROWS_WITH(column_stack(none), "column_stack expects a non-empty TensorList");
  REQUIRE_THROWS_WITH(hstack_out(out, none), "hstack expects a non-empty TensorList");
  REQUIRE_THROWS_WITH(vstack({v, seq({4})}), Catch::Contains("Sizes of tensors must match"));
}

TEST_CASE("block_diag", "[ops][shape]") {
  const Tensor a = seq({2, 2}), b = seq({3}, kInt), s = scalar_tensor(9, kLong);
  const Tensor r = block_diag({a, b, s, seq({0, 2})});
  REQUIRE(r.sizes() == IntArrayRef{4, 8});
  REQUIRE(r.dtype() == kDouble);
  check_map(r.narrow(0, 0, 2), a, [](const Index& i) -> std::optional<Index> {
    if (i[1] < 2) return i;
    return std::nullopt;
  });
  REQUIRE(at(r, {2, 3}) == 1.0);
  REQUIRE(at(r, {3, 5}) == 9.0);
  REQUIRE(r.sum().item<double>() == 0 + 1 + 2 + 3 + 0 + 1 + 2 + 9);
  REQUIRE(block_diag({b, s}).dtype() == kInt);  // a 0-d input does not promote
  REQUIRE(block_diag({b, s.reshape({1})}).dtype() == kLong);
  REQUIRE(block_diag({a.t()}).sizes() == IntArrayRef{2, 2});
  check_map(block_diag({a.t()}), a.t(), [](const Index& i) { return i; });
  const Tensor e = block_diag(std::vector<Tensor>{});
  REQUIRE(e.sizes() == IntArrayRef{1, 0});
  REQUIRE(e.dtype() == kFloat);
  REQUIRE_THROWS_WITH(block_diag({a, seq({2, 2, 2})}),
                      "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input 1 "
                      "has 3 dimensions");
}

TEST_CASE("cross and linalg_cross", "[ops][shape]") {
  const auto reference = [](const Tensor& a, const Tensor& b, const Index& i, int64_t dim) {
    auto comp = [&](const Tensor& t, int64_t k) {
      Index j = i;
      j[dim] = k;
      for (std::size_t d = 0; d < j.size(); ++d) {
        if (t.size(int64_t(d)) == 1) j[d] = 0;
      }
      return at(t, j);
    };
    const int64_t k = i[dim], k1 = (k + 1) % 3, k2 = (k + 2) % 3;
    return comp(a, k1) * comp(b, k2) - comp(a, k2) * comp(b, k1);
  };
  for (DType t : {kByte, kChar, kShort, kInt, kLong, kFloat, kDouble}) {
    INFO(t);
    const Tensor a = seq({2, 3}, t), b = seq({2, 3}, t).flip({1}).add(1);
    const Tensor r = linalg_cross(a, b);
    REQUIRE(r.dtype() == t);
    REQUIRE(r.sizes() == IntArrayRef{2, 3});
    if (t == kByte) continue;  // unsigned wraps
    for (const Index& i : indices(r.sizes())) REQUIRE(at(r, i) == reference(a, b, i, 1));
  }
  // Broadcast batch, dim 0, transposed operand; cross finds the first size-3 dim.
  const Tensor a = seq({3, 1}), b = seq({4, 3}).t().add(2);
  const Tensor r = a.cross(b, 0);
  REQUIRE(r.sizes() == IntArrayRef{3, 4});
  for (const Index& i : indices(r.sizes())) REQUIRE(at(r, i) == reference(a, b, i, 0));
  const Tensor r2 = cross(seq({3, 4}), seq({3, 4}).mul(2).add(1));
  for (const Index& i : indices(r2.sizes())) {
    REQUIRE(at(r2, i) == reference(seq({3, 4}), seq({3, 4}).mul(2).add(1), i, 0));
  }
  Tensor out = empty({0}, kDouble);
  REQUIRE(&linalg_cross_out(out, a.expand({3, 4}), b, 0) == &out);
  REQUIRE(out.sizes() == IntArrayRef{3, 4});
  REQUIRE(out.sub(r).abs().max().item<double>() == 0);
  cross_out(out, seq({2, 3}), seq({2, 3}), 1);
  REQUIRE(out.sizes() == IntArrayRef{2, 3});
  REQUIRE(out.abs().max().item<double>() == 0);  // a x a = 0
  REQUIRE(linalg_cross(seq({0, 3}), seq({0, 3})).sizes() == IntArrayRef{0, 3});
  REQUIRE_THROWS_WITH(linalg_cross(seq({3, 4}), seq({3, 4}), 1),
                      "linalg.cross: inputs dimension 1 must have length 3. Got 4 and 4");
  REQUIRE_THROWS_WITH(linalg_cross(seq({4, 3}), seq({4, 3}), -2),
                      "linalg.cross: inputs dimension -2 must have length 3. Got 4 and 4");
  REQUIRE_THROWS_WITH(linalg_cross(seq({3}), seq({2, 3})),
                      "linalg.cross: inputs must have the same number of dimensions.");
  REQUIRE_THROWS_WITH(linalg_cross(seq({2, 3}), seq({4, 3})),
                      "The size of tensor a (2) must match the size of tensor b (4) at "
                      "non-singleton dimension 0");
  REQUIRE_THROWS_WITH(linalg_cross(seq({3}, kFloat), seq({3}, kLong)),
                      "expected scalar type Float but found Long");
  REQUIRE_THROWS_WITH(linalg_cross(seq({3}, kBool), seq({3}, kBool)),
                      "\"cross\" not implemented for 'Bool'");
  REQUIRE_THROWS_WITH(linalg_cross(seq({3}, kHalf), seq({3}, kHalf)),
                      "\"cross\" not implemented for 'Half'");
  REQUIRE_THROWS_WITH(cross(seq({2, 4}), seq({2, 4})), "no dimension of size 3 in input");
  REQUIRE_THROWS_WITH(linalg_cross_out(empty({0}, kFloat), seq({3}), seq({3})),
                      "Expected out tensor to have dtype double, but got float instead");
  REQUIRE_THROWS_AS(linalg_cross(seq({3}), seq({3}), 1), IndexError);
}

TEST_CASE("kron", "[ops][shape]") {
  const Tensor a = seq({2, 3}), b = seq({2, 2}).add(1);
  const Tensor r = kron(a, b);
  REQUIRE(r.sizes() == IntArrayRef{4, 6});
  REQUIRE(r.is_contiguous());
  for (const Index& i : indices(r.sizes())) {
    REQUIRE(at(r, i) == at(a, {i[0] / 2, i[1] / 2}) * at(b, {i[0] % 2, i[1] % 2}));
  }
  // Ranks differ: the smaller is padded with leading 1s; transposed input; ints.
  const Tensor v = seq({3}, kInt);
  const Tensor rv = a.t().kron(v);
  REQUIRE(rv.sizes() == IntArrayRef{3, 6});
  REQUIRE(rv.dtype() == kDouble);
  for (const Index& i : indices(rv.sizes())) {
    REQUIRE(at(rv, i) == at(a.t(), {i[0], i[1] / 3}) * at(v, {i[1] % 3}));
  }
  REQUIRE(kron(v, v).dtype() == kInt);
  REQUIRE(kron(scalar_tensor(2.0), a).sizes() == IntArrayRef{2, 3});
  REQUIRE(kron(seq({0, 2}), b).sizes() == IntArrayRef{0, 4});
  Tensor out = empty({0});
  REQUIRE(&kron_out(out, a, b) == &out);
  REQUIRE(out.sizes() == IntArrayRef{4, 6});
  REQUIRE(out.sub(r).abs().max().item<double>() == 0);
  REQUIRE_THROWS_WITH(kron_out(empty({0}, kLong), a, b),
                      "result type Double can't be cast to the desired output type Long");
}

TEST_CASE("tensordot", "[ops][shape]") {
  const Tensor a = seq({2, 3, 4}), b = seq({4, 3, 5}).sub(7);
  const Tensor r = tensordot(a, b, {1, 2}, {1, 0});
  REQUIRE(r.sizes() == IntArrayRef{2, 5});
  for (const Index& i : indices(r.sizes())) {
    double s = 0;
    for (int64_t j = 0; j < 3; ++j) {
      for (int64_t k = 0; k < 4; ++k) s += at(a, {i[0], j, k}) * at(b, {k, j, i[1]});
    }
    REQUIRE(at(r, i) == s);
  }
  // No contraction: the outer product; a size-1 contracted dim is summed on the other side.
  REQUIRE(tensordot(seq({2}), seq({3}), {}, {}).sizes() == IntArrayRef{2, 3});
  const Tensor one = seq({1, 3});
  const Tensor r1 = tensordot(one, seq({4, 3}), {0}, {0});
  REQUIRE(r1.sizes() == IntArrayRef{3, 3});
  REQUIRE(at(r1, {2, 1}) == 2.0 * (1 + 4 + 7 + 10));
  Tensor out = empty({0}, kDouble);
  REQUIRE(&tensordot_out(out, a, b, {1, 2}, {1, 0}) == &out);
  REQUIRE(out.sub(r).abs().max().item<double>() == 0);
  REQUIRE_THROWS_WITH(tensordot(seq({3, 4}), seq({3, 4}), {0}, {1}),
                      "contracted dimensions need to match, but first has size 3 in dim 0 and "
                      "second has size 4 in dim 1");
  REQUIRE_THROWS_WITH(tensordot(seq({3, 4}), seq({3, 4}), {0, 1}, {0}),
                      "both dimension lists should have same length");
  REQUIRE_THROWS_WITH(tensordot(seq({3, 3}), seq({3, 3}), {0, -2}, {0, 1}),
                      "dim 0 appears multiple times in the list of dims");
  REQUIRE_THROWS_WITH(tensordot_out(empty({0}, kFloat), a, b, {1, 2}, {1, 0}),
                      "tensordot: Expected the output tensor to have dtype Double, but got an "
                      "output tensor with dtype Float");
}

}  // namespace ops_shape_ops_test
