// gather, scatter (src, value, reduce=), scatter_add, scatter_reduce, index_select, index_add,
// index_copy, take, put_ and index_put_(accumulate) (ops/scatter_gather.hpp, ops/indexing.hpp):
// values, every dtype, 0-d and empty operands, non-contiguous operands, out=, determinism, and
// every error path. Expected values and messages were checked against torch 1.13.
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace ops_scatter_gather_test {

using namespace tensorplay;
using Catch::Contains;

namespace {
Tensor lng(std::vector<int64_t> v) { return tensor(v, kLong); }
Tensor flt(std::vector<double> v) { return tensor(v, kFloat); }
// x = [[0, 1, 2], [3, 4, 5]] (float32).
Tensor x23() { return arange(6.0).reshape({2, 3}); }
Tensor i22() { return lng({0, 1, 1, 0}).reshape({2, 2}); }
bool same(const Tensor& a, const Tensor& b) { return a.sizes() == b.sizes() && a.equal(b); }

const DType kAllDTypes[] = {kBool, kByte, kChar,     kShort, kInt,
                            kLong, kHalf, kBFloat16, kFloat, kDouble};
}  // namespace

TEST_CASE("gather picks along dim, as torch.gather", "[ops][scatter_gather]") {
  const Tensor x = x23();
  CHECK(same(x.gather(1, i22()), flt({0, 1, 4, 3}).reshape({2, 2})));
  CHECK(same(gather(x, -1, i22()), flt({0, 1, 4, 3}).reshape({2, 2})));
  // index smaller than self apart from dim, larger along dim
  CHECK(same(x.gather(1, lng({0, 1, 1, 0}).reshape({1, 4})), flt({0, 1, 1, 0}).reshape({1, 4})));
  CHECK(same(x.gather(0, lng({1, 0, 1}).reshape({1, 3})), flt({3, 1, 5}).reshape({1, 3})));
  // 0-d operands count as one element along dim 0
  CHECK(same(tensor(3.0).gather(0, tensor(int64_t(0))), tensor(3.0)));
  CHECK(same(tensor(3.0).gather(0, lng({0})), flt({3})));
  CHECK(same(flt({3}).gather(0, tensor(int64_t(0))), tensor(3.0f)));
  // empty index: empty result of the index's shape
  CHECK(x.gather(1, empty({2, 0}, kLong)).sizes() == IntArrayRef({2, 0}));
  CHECK(x.gather(1, empty({0, 9}, kLong)).sizes() == IntArrayRef({0, 9}));
  // non-contiguous self and index
  const Tensor xt = x.t();                                        // [[0, 3], [1, 4], [2, 5]]
  const Tensor it = lng({1, 0, 0, 1, 1, 0}).reshape({2, 3}).t();  // [[1, 1], [0, 1], [0, 0]]
  CHECK(same(xt.gather(1, it), flt({3, 3, 1, 4, 2, 2}).reshape({3, 2})));
  CHECK(x.gather(1, i22()).is_contiguous());
  SECTION("every dtype") {
    for (DType d : kAllDTypes) {
      INFO(d);
      const Tensor v = tensor({1, 0, 1, 1}, kLong).reshape({2, 2}).to(d);
      const Tensor r = v.gather(1, lng({1, 1, 0, 0}).reshape({2, 2}));
      CHECK(r.dtype() == d);
      CHECK(same(r.to(kLong), lng({0, 0, 1, 1}).reshape({2, 2})));
    }
  }
  SECTION("out=") {
    Tensor out = empty({3, 3});
    gather_out(out, x, 1, i22());
    CHECK(same(out, flt({0, 1, 4, 3}).reshape({2, 2})));
    CHECK_THROWS_WITH(
        gather_out(empty({2, 2}, kLong), x, 1, i22()),
        Contains("Expected out tensor to have dtype float, but got long int instead"));
  }
}

TEST_CASE("gather refuses bad input with PyTorch's messages", "[ops][scatter_gather][errors]") {
  const Tensor x = x23();
  CHECK_THROWS_WITH(x.gather(1, i22().to(kInt)), "gather(): Expected dtype int64 for index");
  CHECK_THROWS_WITH(x.gather(1, lng({0, 5}).reshape({1, 2})),
                    "index 5 is out of bounds for dimension 1 with size 3");
  CHECK_THROWS_WITH(x.gather(1, lng({-1}).reshape({1, 1})),
                    "index -1 is out of bounds for dimension 1 with size 3");
  CHECK_THROWS_WITH(x.gather(1, lng({0, 1})),
                    "Index tensor must have the same number of dimensions as input tensor");
  CHECK_THROWS_WITH(x.gather(0, lng({0, 1, 1, 0}).reshape({1, 4})),
                    "Size does not match at dimension 1 expected index [1, 4] to be smaller than "
                    "self [2, 3] apart from dimension 0");
  CHECK_THROWS_AS(x.gather(2, i22()), IndexError);
  CHECK_THROWS_AS(x.gather(1, i22(), /*sparse_grad=*/true), NotImplementedError);
}

TEST_CASE("scatter writes src or a value along dim", "[ops][scatter_gather]") {
  const Tensor x = x23();
  CHECK(same(x.scatter(1, i22(), ones({2, 2})), flt({1, 1, 2, 1, 1, 5}).reshape({2, 3})));
  CHECK(same(x.scatter(1, i22(), 7), flt({7, 7, 2, 7, 7, 5}).reshape({2, 3})));
  CHECK(same(x.scatter(1, lng({0, 1, 2, 0}).reshape({1, 4}), 2.0),
             flt({2, 2, 2, 3, 4, 5}).reshape({2, 3})));
  // reduce=
  CHECK(same(x.scatter(1, i22(), ones({2, 2}), "add"), flt({1, 2, 2, 4, 5, 5}).reshape({2, 3})));
  CHECK(same(x.scatter(1, i22(), ones({2, 2}), "multiply"), x));
  CHECK(same(x.scatter(1, i22(), 2.0, "multiply"), flt({0, 2, 2, 6, 8, 5}).reshape({2, 3})));
  // src larger than index: only its index-shaped corner is read
  CHECK(same(zeros({2, 3}).scatter(1, lng({2}).reshape({1, 1}), x.add(1)),
             flt({0, 0, 1, 0, 0, 0}).reshape({2, 3})));
  // a value is converted to self's dtype (int64 self, 2.7 -> 2)
  CHECK(same(lng({1, 2}).scatter(0, lng({0}), 2.7), lng({2, 2})));
  // the out-of-place result is contiguous, and self is unchanged
  CHECK(x.t().scatter(0, lng({0}).reshape({1, 1}), 1.0).is_contiguous());
  CHECK(same(x, x23()));
  // in place on a non-contiguous self
  Tensor y = zeros({3, 2}).t();
  y.scatter_(1, lng({2, 0}).reshape({2, 1}), flt({5, 6}).reshape({2, 1}));
  CHECK(same(y, flt({0, 0, 5, 6, 0, 0}).reshape({2, 3})));
  // an empty index writes nothing and checks no shapes
  CHECK(same(x.scatter(1, empty({0}, kLong), ones({2})), x));
  SECTION("every dtype") {
    for (DType d : kAllDTypes) {
      INFO(d);
      const Tensor z = zeros({2, 2}, d);
      const Tensor r = z.scatter(1, lng({1, 0}).reshape({2, 1}), ones({2, 1}, d));
      CHECK(same(r.to(kLong), lng({0, 1, 1, 0}).reshape({2, 2})));
      CHECK(same(z.scatter(1, lng({1, 0}).reshape({2, 1}), 1).to(kLong),
                 lng({0, 1, 1, 0}).reshape({2, 2})));
    }
  }
}

TEST_CASE("scatter refuses bad input", "[ops][scatter_gather][errors]") {
  const Tensor x = x23();
  CHECK_THROWS_WITH(x.scatter(1, i22(), ones({2, 2}, kDouble)),
                    "scatter(): Expected self.dtype to be equal to src.dtype");
  CHECK_THROWS_WITH(x.scatter(1, i22().to(kInt), ones({2, 2})),
                    "scatter(): Expected dtype int64 for index");
  CHECK_THROWS_WITH(x.scatter(1, i22().to(kInt), 2.0), "scatter(): Expected dtype int64 for index");
  CHECK_THROWS_WITH(x.scatter(1, i22(), ones({1, 1})),
                    "Expected index [2, 2] to be smaller than self [2, 3] apart from dimension 1 "
                    "and to be smaller size than src [1, 1]");
  CHECK_THROWS_WITH(x.scatter(0, lng({0, 1, 1, 0}).reshape({1, 4}), 2.0),
                    "Expected index [1, 4] to be smaller than self [2, 3] apart from dimension 0");
  CHECK_THROWS_WITH(x.scatter(1, lng({0}).reshape({1, 1, 1}), 2.0),
                    "Index tensor must have the same number of dimensions as self tensor");
  CHECK_THROWS_WITH(x.scatter(1, i22(), ones({2})),
                    "Index tensor must have the same number of dimensions as src tensor");
  CHECK_THROWS_WITH(x.scatter(1, lng({3}).reshape({1, 1}), ones({2, 2})),
                    "index 3 is out of bounds for dimension 1 with size 3");
  CHECK_THROWS_WITH(x.scatter(1, lng({-1}).reshape({1, 1}), 1.0),
                    "index -1 is out of bounds for dimension 1 with size 3");
  CHECK_THROWS_WITH(x.scatter(1, i22(), ones({2, 2}), "mean"),
                    "reduce argument must be either add or multiply.");
  CHECK_THROWS_WITH(x.scatter_add(1, i22(), ones({2, 2}, kLong)),
                    "scatter(): Expected self.dtype to be equal to src.dtype");
  CHECK_THROWS_WITH(lng({1, 2}).scatter(0, lng({0}), 1e30),
                    Contains("value cannot be converted to type int64_t without overflow"));
  CHECK_THROWS_AS(x.scatter(2, i22(), 1.0), IndexError);
  // an expanded self: several elements share one address
  CHECK_THROWS_WITH(x.expand({2, 2, 3}).scatter_(1, lng({0}).reshape({1, 1, 1}), 1.0),
                    Contains("more than one element of the written-to tensor refers to a single "
                             "memory location"));
  // src overlapping self
  Tensor y = arange(6.0);
  CHECK_THROWS_WITH(y.scatter_(0, lng({0, 1}), y.narrow(0, 1, 2)),
                    Contains("some elements of the input tensor and the written-to tensor refer "
                             "to a single memory location"));
}

TEST_CASE("scatter_add and scatter_reduce combine in index order", "[ops][scatter_gather]") {
  const Tensor x = x23();
  CHECK(same(x.scatter_add(1, i22(), ones({2, 2})), flt({1, 2, 2, 4, 5, 5}).reshape({2, 3})));
  const Tensor five = ones({2, 2}).mul(5);
  CHECK(same(x.scatter_reduce(1, i22(), five, "sum"), flt({5, 6, 2, 8, 9, 5}).reshape({2, 3})));
  CHECK(same(x.scatter_reduce(1, i22(), five, "prod"), flt({0, 5, 2, 15, 20, 5}).reshape({2, 3})));
  CHECK(
      same(x.scatter_reduce(1, i22(), five, "mean"), flt({2.5, 3, 2, 4, 4.5, 5}).reshape({2, 3})));
  CHECK(same(x.scatter_reduce(1, i22(), five, "mean", false),
             flt({5, 5, 2, 5, 5, 5}).reshape({2, 3})));
  CHECK(same(x.scatter_reduce(1, i22(), five, "amax", false),
             flt({5, 5, 2, 5, 5, 5}).reshape({2, 3})));
  CHECK(same(x.scatter_reduce(1, i22(), five.neg(), "amin"),
             flt({-5, -5, 2, -5, -5, 5}).reshape({2, 3})));
  CHECK(same(x.scatter_reduce(1, i22(), five.neg(), "amax"), x));
  CHECK(same(x.scatter_reduce(1, i22(), five, "sum", false),
             flt({5, 5, 2, 5, 5, 5}).reshape({2, 3})));
  CHECK(same(x.scatter_reduce(1, i22(), five, "prod", false),
             flt({5, 5, 2, 5, 5, 5}).reshape({2, 3})));
  // integer mean rounds down, as torch's floor division
  CHECK(same(arange(6, kLong).scatter_reduce(0, lng({0, 0, 1}), lng({1, 2, 3}), "mean"),
             lng({1, 2, 2, 3, 4, 5})));
  CHECK(same(arange(6, kLong).scatter_reduce(0, lng({0, 0, 1}), lng({1, 2, 4}), "mean", false),
             lng({1, 4, 2, 3, 4, 5})));
  CHECK(same(lng({1, 2, 3}).scatter_reduce(0, lng({0, 0}), lng({5, 7}), "mean"), lng({4, 2, 3})));
  // amax/amin without self start from the dtype's extreme
  CHECK(same(flt({1, 2, 3}).scatter_reduce(0, lng({0, 0}), flt({5, 7}), "amin", false),
             flt({5, 2, 3})));
  CHECK(
      same(tensor({9, 9}, kChar).scatter_reduce(0, lng({1}), tensor({-128}, kChar), "amax", false),
           tensor({9, -128}, kChar)));
  // NaN wins amax and amin, from self or from src
  const Tensor nan_max = flt({1, NAN}).scatter_reduce(0, lng({0, 1}), flt({NAN, 1}), "amax");
  CHECK((std::isnan(nan_max[0].item<float>()) && std::isnan(nan_max[1].item<float>())));
  // bools: sum is or, prod is and
  CHECK(same(tensor({true, false}).scatter_reduce(0, lng({0, 1}), tensor({true, true}), "sum"),
             tensor({true, true})));
  CHECK(same(tensor({true, false}).scatter_reduce(0, lng({0, 0}), tensor({false, true}), "prod"),
             tensor({false, false})));
  CHECK_THROWS_WITH(x.scatter_reduce(1, i22(), five, "foo"),
                    "reduce argument must be either sum, prod, mean, amax or amin.");
  CHECK_THROWS_WITH(x.scatter_reduce(1, i22(), five.to(kDouble), "sum"),
                    "scatter(): Expected self.dtype to be equal to src.dtype");
  SECTION("every dtype") {
    for (DType d : kAllDTypes) {
      if (d == kBool) continue;
      INFO(d);
      const Tensor z = ones({2, 3}, d);
      const Tensor src = ones({2, 2}, d).mul(2);
      CHECK(same(z.scatter_add(1, i22(), src).to(kLong), lng({3, 3, 1, 3, 3, 1}).reshape({2, 3})));
      for (const char* r : {"sum", "prod", "mean", "amax", "amin"}) {
        INFO(r);
        const Tensor got = z.scatter_reduce(1, lng({0, 0}).reshape({1, 2}), src, r);
        const double want = std::string(r) == "sum"    ? 5
                            : std::string(r) == "prod" ? 4
                            : std::string(r) == "mean" ? (is_integral(d, true) ? 1 : 5.0 / 3)
                            : std::string(r) == "amax" ? 2
                                                       : 1;
        CHECK(got[0][0].item<double>() == Approx(want).epsilon(1e-2));
        CHECK(got[0][1].item<double>() == 1);
      }
    }
  }
}

TEST_CASE("scatter_add accumulates deterministically, in index order", "[ops][scatter_gather]") {
  // 2^16 additions of values that round differently in other orders, into 3 targets per row.
  const int64_t n = 1 << 16;
  const Tensor src = rand({4, n});
  const Tensor index = randint(0, 3, {4, n}, kLong);
  const Tensor got = zeros({4, 3}).scatter_add(1, index, src);
  const float* s = src.data_ptr<float>();
  const int64_t* ix = index.data_ptr<int64_t>();
  for (int64_t r = 0; r < 4; ++r) {
    float want[3] = {0, 0, 0};
    for (int64_t j = 0; j < n; ++j) want[ix[r * n + j]] += s[r * n + j];
    for (int64_t c = 0; c < 3; ++c) CHECK(got[r][c].item<float>() == want[c]);
  }
  CHECK(same(got, zeros({4, 3}).scatter_add(1, index, src)));
}

TEST_CASE("index_select, index_add, index_copy along a dim", "[ops][scatter_gather]") {
  const Tensor x = x23();
  CHECK(same(x.index_select(1, lng({2, 0, 2})), flt({2, 0, 2, 5, 3, 5}).reshape({2, 3})));
  CHECK(same(index_select(x, 1, lng({2, 0, 2}).to(kInt)), flt({2, 0, 2, 5, 3, 5}).reshape({2, 3})));
  CHECK(same(x.index_select(1, tensor(int64_t(1))), flt({1, 4}).reshape({2, 1})));
  CHECK(same(x.t().index_select(1, lng({1})), flt({3, 4, 5}).reshape({3, 1})));
  CHECK(x.index_select(0, empty({0}, kLong)).sizes() == IntArrayRef({0, 3}));
  CHECK(same(tensor(5.0).index_select(0, lng({0})), tensor(5.0)));
  Tensor out = empty({3, 3});
  index_select_out(out, x, 1, lng({1, 2}));
  CHECK(same(out, flt({1, 2, 4, 5}).reshape({2, 2})));

  CHECK(same(x.index_add(1, lng({0, 0}), ones({2, 2})), flt({2, 1, 2, 5, 4, 5}).reshape({2, 3})));
  CHECK(
      same(x.index_add(1, lng({0, 0}), ones({2, 2}), 2), flt({4, 1, 2, 7, 4, 5}).reshape({2, 3})));
  CHECK(same(flt({1, 2}).index_add(0, lng({0}), flt({3}), 0.5), flt({2.5, 2})));
  CHECK(same(lng({1, 2}).index_add(0, lng({0}), lng({3}), 2), lng({7, 2})));
  CHECK(same(tensor(1.0).index_add(0, lng({0}), tensor(2.0)), tensor(3.0)));
  CHECK(same(x.t().index_add(0, lng({2}).to(kInt), ones({1, 2})),
             flt({0, 3, 1, 4, 3, 6}).reshape({3, 2})));

  CHECK(same(x.index_copy(1, lng({2, 0}), ones({2, 2})), flt({1, 1, 1, 1, 4, 1}).reshape({2, 3})));
  CHECK(same(tensor(1.0).index_copy(0, lng({0}), tensor(2.0)), tensor(2.0)));
  // a repeated index: the last write wins
  CHECK(same(x.index_copy(0, lng({0, 0}), arange(6.0).reshape({2, 3}).add(1)),
             flt({4, 5, 6, 3, 4, 5}).reshape({2, 3})));
  SECTION("every dtype") {
    for (DType d : kAllDTypes) {
      INFO(d);
      const Tensor v = tensor({0, 1, 1, 0}, kLong).reshape({2, 2}).to(d);
      CHECK(same(v.index_select(1, lng({1, 1})).to(kLong), lng({1, 1, 0, 0}).reshape({2, 2})));
      CHECK(same(v.index_copy(0, lng({1}), ones({1, 2}, d)).to(kLong),
                 lng({0, 1, 1, 1}).reshape({2, 2})));
      CHECK(same(zeros({2}, d).index_add(0, lng({1}), ones({1}, d)).to(kLong), lng({0, 1})));
    }
  }
}

TEST_CASE("index_select, index_add, index_copy refuse bad input", "[ops][scatter_gather][errors]") {
  const Tensor x = x23();
  CHECK_THROWS_WITH(x.index_select(1, flt({2})),
                    "index_select(): Expected dtype int32 or int64 for index");
  CHECK_THROWS_AS(x.index_select(1, lng({2}).reshape({1, 1})), IndexError);
  CHECK_THROWS_WITH(x.index_select(1, lng({2}).reshape({1, 1})),
                    "index_select(): Index is supposed to be a vector");
  CHECK_THROWS_AS(x.index_select(1, lng({3})), IndexError);
  CHECK_THROWS_WITH(x.index_select(1, lng({-1})), "index out of range in self");
  CHECK_THROWS_WITH(tensor(5.0).index_select(0, lng({1})), "index out of range in self");
  CHECK_THROWS_WITH(tensor(5.0).index_select(0, lng({0, 0})),
                    "index_select(): Index to scalar can have only 1 value, got 2 value(s)");

  CHECK_THROWS_WITH(x.index_add(1, lng({0, 0}), ones({2, 3})),
                    "index_add_(): Number of indices (2) should be equal to source.size(dim): (3), "
                    "for dim: 1");
  CHECK_THROWS_WITH(x.index_add(1, lng({0, 0}), ones({2, 2}, kLong)),
                    "index_add_(): self (Float) and source (Long) must have the same scalar type");
  CHECK_THROWS_AS(x.index_add(1, lng({0, 3}), ones({2, 2})), IndexError);
  CHECK_THROWS_WITH(x.index_add(1, lng({0, 3}), ones({2, 2})), "index out of range in self");
  CHECK_THROWS_WITH(x.index_add(1, flt({0, 0}), ones({2, 2})),
                    "index_add_(): Expected dtype int32/int64 for index but got: Float");
  CHECK_THROWS_WITH(x.index_add(1, lng({0, 0}).reshape({1, 2}), ones({2, 2})),
                    "index_add_(): Index is supposed to be a vector, but got dim: 2 with type: "
                    "Long and size: [1, 2]");
  CHECK_THROWS_WITH(
      x.index_add(1, lng({0, 0}), ones({2})),
      "index_add_(): Indexing dim 1 is out of bounds of the source tensor with dim 1");
  CHECK_THROWS_WITH(
      x.index_add(0, lng({0}), ones({1, 2})),
      Contains("index_add_(): source has size 2 at dimension 1 where self has size 3"));
  CHECK_THROWS_WITH(lng({1, 2}).index_add(0, lng({0}), lng({3}), 0.5),
                    "For integral input tensors, argument alpha must not be a floating point "
                    "number.");

  CHECK_THROWS_WITH(x.index_copy(1, lng({2, 0}), ones({2, 3})),
                    "index_copy_(): Number of indices (2) should be equal to source.size(dim) (3)");
  CHECK_THROWS_WITH(x.index_copy(1, lng({2, 0}).to(kInt), ones({2, 2})),
                    "index_copy_(): Expected a long tensor for index, but got Int");
  CHECK_THROWS_AS(x.index_copy(1, lng({2, 5}), ones({2, 2})), IndexError);
  CHECK_THROWS_WITH(x.index_copy(1, lng({2, 5}), ones({2, 2})),
                    "index_copy_(): index 5 is out of bounds for dimension 1 with size 3");
  CHECK_THROWS_WITH(x.index_copy(1, lng({2, 0}), ones({2, 2}, kLong)),
                    "index_copy_(): self and source expected to have the same dtype, but got "
                    "(self) Float and (source) Long");
  CHECK_THROWS_WITH(x.index_copy(1, lng({2, 0}), ones({2})),
                    "index_copy_(): When source and destination are not scalars, their "
                    "dimensionality must match. Source dimensionality (1), destination "
                    "dimensionality (2)");
  CHECK_THROWS_WITH(x.index_copy(0, lng({0}), ones({1, 2})),
                    "index_copy_(): Source/destination tensor must have same slice shapes. "
                    "Destination slice shape: 3 at dimension 1 and source slice shape: 2 at "
                    "dimension 1.");
  CHECK_THROWS_WITH(x.index_copy(0, lng({0}).reshape({1, 1}), ones({1, 3})),
                    "index_copy_(): Index should have dimension 1 or 0 (got 2)");
  // writes into an expanded self are refused
  CHECK_THROWS_WITH(zeros({3}).expand({2, 3}).index_add_(0, lng({0}), ones({1, 3})),
                    Contains("more than one element of the written-to tensor"));
}

TEST_CASE("take and put_ address the row-major element order", "[ops][scatter_gather]") {
  const Tensor x = x23();
  CHECK(same(x.take(lng({5, 0, -1, 2}).reshape({2, 2})), flt({5, 0, 5, 2}).reshape({2, 2})));
  CHECK(same(take(x, tensor(int64_t(5))), tensor(5.0f)));
  CHECK(same(tensor(5.0).take(lng({0, 0})), tensor({5.0, 5.0})));
  CHECK(zeros({0}).take(empty({0}, kLong)).numel() == 0);
  const Tensor m = flt({1, 2, 3, 4}).reshape({2, 2}).t();  // [[1, 3], [2, 4]]
  CHECK(same(m.take(lng({1})), flt({3})));

  CHECK(same(x.put(lng({0, 0}), flt({1, 2})), flt({2, 1, 2, 3, 4, 5}).reshape({2, 3})));
  CHECK(same(x.put(lng({0, 0}), flt({1, 2}), true), flt({3, 1, 2, 3, 4, 5}).reshape({2, 3})));
  CHECK(same(flt({1, 2}).put_(lng({-1}), flt({5})), flt({1, 5})));
  CHECK(same(flt({1, 2}).put_(lng({1}).reshape({1, 1}), flt({5})), flt({1, 5})));
  Tensor mt = m.clone(MemoryFormat::Preserve);
  mt.put_(lng({1}), flt({5}).reshape({1, 1}));
  CHECK(same(mt, flt({1, 5, 2, 4}).reshape({2, 2})));
  for (DType d : kAllDTypes) {
    INFO(d);
    CHECK(
        same(zeros({3}, d).put_(lng({2}), ones({1}, d)).take(lng({2, 0})).to(kLong), lng({1, 0})));
  }

  CHECK_THROWS_AS(x.take(lng({6})), IndexError);
  CHECK_THROWS_WITH(x.take(lng({6})),
                    "out of range: tried to access index 6 on a tensor of 6 elements.");
  CHECK_THROWS_WITH(x.take(lng({-7})),
                    "out of range: tried to access index -7 on a tensor of 6 elements.");
  CHECK_THROWS_WITH(x.take(flt({1})), "take(): Expected a long tensor for index, but got Float");
  CHECK_THROWS_WITH(x.take(lng({1}).to(kInt)),
                    "take(): Expected a long tensor for index, but got Int");
  CHECK_THROWS_WITH(zeros({0}).take(lng({0})), "take(): tried to take from an empty tensor");
  Tensor y = x23();
  CHECK_THROWS_WITH(y.put_(lng({0, 0}), flt({1})),
                    "put_(): Expected source and index to have the same number of elements, but "
                    "got source.numel() = 1, index.numel() = 2");
  CHECK_THROWS_WITH(y.put_(lng({0, 9}), flt({1, 2})),
                    "out of range: tried to access index 9 on a tensor of 6 elements.");
  CHECK_THROWS_WITH(y.put_(lng({0, 1}), lng({1, 2})),
                    "put_(): self and source expected to have the same dtype, but got self.dtype = "
                    "Float and source.dtype = Long");
  CHECK_THROWS_WITH(y.put_(flt({0}), flt({1})),
                    "put_(): Expected a long tensor for index, but got Float");
  CHECK_THROWS_WITH(zeros({0}).put_(lng({0}), flt({1})),
                    "put_(): Tried to put elements into an empty tensor");
  CHECK_THROWS_WITH(flt({1, 2}).expand({2, 2}).put_(lng({-1}), flt({5})),
                    Contains("more than one element of the written-to tensor"));
  CHECK(same(y, x23()));  // a refused put_ wrote nothing
}

TEST_CASE("index_put_ with accumulate adds repeated indices up", "[ops][scatter_gather]") {
  using indexing::TensorIndex;
  Tensor x = x23();
  const std::vector<TensorIndex> idx = {TensorIndex(lng({0, 0}))};
  x.index_put_(idx, tensor(1.0f), /*accumulate=*/true);
  CHECK(same(x, flt({2, 3, 4, 3, 4, 5}).reshape({2, 3})));
  CHECK(same(x23().index_put(idx, tensor(1.0f), true), flt({2, 3, 4, 3, 4, 5}).reshape({2, 3})));
  CHECK(same(index_put(x23(), idx, tensor(1.0f)), flt({1, 1, 1, 3, 4, 5}).reshape({2, 3})));
  const std::vector<TensorIndex> pair = {TensorIndex(lng({1, 1, 0})), TensorIndex(lng({2, 2, 0}))};
  CHECK(same(x23().index_put(pair, flt({1, 2, 3}), true), flt({3, 1, 2, 3, 4, 8}).reshape({2, 3})));
  // basic indices only: the view is added to
  const std::vector<TensorIndex> row = {TensorIndex(1)};
  CHECK(same(x23().index_put(row, flt({1, 1, 1}), true), flt({0, 1, 2, 4, 5, 6}).reshape({2, 3})));
}

}  // namespace ops_scatter_gather_test

namespace ops_scatter_gather_test {
namespace {
// The layouts a line can have: dense (the index's dim contiguous in every operand, the kernels'
// fast road) and strided (each operand transposed in memory, or sliced).
Tensor in_layout(const Tensor& t, int layout) {
  if (layout == 1) return t.transpose(0, 2).contiguous().transpose(0, 2);  // dim 2 not innermost
  if (layout == 2) {  // every other element along the last dim
    std::vector<int64_t> wide = t.sizes().vec();
    wide.back() *= 2;
    Tensor w = zeros(wide, t.options());
    Tensor s = w.slice(2, 0, wide.back(), 2);
    s.copy_(t);
    return s;
  }
  return t;
}
// Element (a, b, c) of a 3-d tensor as a double.
double at3(const Tensor& t, int64_t a, int64_t b, int64_t c) {
  return t.select(0, a).select(0, b).select(0, c).item().toDouble();
}
}  // namespace

TEST_CASE("gather and the scatters: dense and strided lines against the definition",
          "[ops][scatter_gather]") {
  manual_seed(21);
  const std::vector<int64_t> self_sizes{3, 4, 5};
  for (DType dt : {kByte, kShort, kHalf, kFloat, kDouble, kLong}) {
    for (int64_t dim = 0; dim < 3; ++dim) {
      // 0: dense along dim 2; 1: transposed in memory; 2: sliced; 3: src alone sliced
      for (int layout = 0; layout < 4; ++layout) {
        INFO(dt << " dim " << dim << " layout " << layout);
        std::vector<int64_t> isz{2, 3, 4};  // the index: smaller apart from dim, longer along it
        isz[std::size_t(dim)] = 7;
        const int64_t size = self_sizes[std::size_t(dim)];
        const int own = layout == 3 ? 0 : layout;
        const Tensor self = in_layout(randint(0, 9, self_sizes, kLong).to(dt), own);
        const Tensor index = in_layout(randint(0, size, isz, kLong), own);
        const Tensor src = in_layout(randint(0, 9, isz, kLong).to(dt), layout == 3 ? 2 : own);
        // where index position (a, b, c) points into self
        auto target = [&](int64_t a, int64_t b, int64_t c) {
          std::array<int64_t, 3> p{a, b, c};
          p[std::size_t(dim)] = index.select(0, a).select(0, b).select(0, c).item<int64_t>();
          return p;
        };
        const Tensor g = self.gather(dim, index);
        Tensor want_scatter = self.to(kDouble).clone(MemoryFormat::Contiguous);
        Tensor want_add = self.to(kDouble).clone(MemoryFormat::Contiguous);
        Tensor want_value = self.to(kDouble).clone(MemoryFormat::Contiguous);
        Tensor want_max = self.to(kDouble).clone(MemoryFormat::Contiguous);
        Tensor want_amin = full(self_sizes, std::numeric_limits<double>::infinity(), kDouble);
        Tensor touched = zeros(self_sizes, kBool);
        for (int64_t a = 0; a < isz[0]; ++a) {
          for (int64_t b = 0; b < isz[1]; ++b) {
            for (int64_t c = 0; c < isz[2]; ++c) {
              const auto p = target(a, b, c);
              REQUIRE(at3(g, a, b, c) == at3(self, p[0], p[1], p[2]));
              const double v = at3(src, a, b, c);
              double* ws = want_scatter.data_ptr<double>() + (p[0] * 4 + p[1]) * 5 + p[2];
              double* wa = want_add.data_ptr<double>() + (p[0] * 4 + p[1]) * 5 + p[2];
              double* wv = want_value.data_ptr<double>() + (p[0] * 4 + p[1]) * 5 + p[2];
              double* wm = want_max.data_ptr<double>() + (p[0] * 4 + p[1]) * 5 + p[2];
              double* wn = want_amin.data_ptr<double>() + (p[0] * 4 + p[1]) * 5 + p[2];
              *ws = v;  // the last write in line order wins (dim is the line)
              *wa += v;
              *wv = 3;
              *wm = std::max(*wm, v);
              *wn = std::min(*wn, v);
              touched.data_ptr<bool>()[(p[0] * 4 + p[1]) * 5 + p[2]] = true;
            }
          }
        }
        want_amin = want_amin.where(touched, self.to(kDouble));
        CHECK(g.dtype() == dt);
        CHECK(g.sizes() == IntArrayRef(isz));
        CHECK(same(self.scatter(dim, index, src).to(kDouble), want_scatter));
        CHECK(same(self.scatter_add(dim, index, src).to(kDouble), want_add));
        CHECK(same(self.scatter(dim, index, 3.0).to(kDouble), want_value));
        CHECK(same(self.scatter_reduce(dim, index, src, "amax").to(kDouble), want_max));
        CHECK(same(self.scatter_reduce(dim, index, src, "amin", false).to(kDouble), want_amin));
        // an out-of-range index in the middle of a line: PyTorch's message
        for (int64_t bad : {size, int64_t(-1)}) {
          Tensor wrong = index.clone();
          std::vector<int64_t> mid{1, 2, 3};
          mid[std::size_t(dim)] = 4;
          wrong.select(0, mid[0]).select(0, mid[1]).select(0, mid[2]).fill_(bad);
          const Tensor w = in_layout(wrong.contiguous(), own);
          const std::string msg = "index " + std::to_string(bad) +
                                  " is out of bounds for dimension " + std::to_string(dim) +
                                  " with size " + std::to_string(size);
          CHECK_THROWS_WITH(self.gather(dim, w), msg);
          CHECK_THROWS_WITH(self.scatter(dim, w, src), msg);
          CHECK_THROWS_WITH(self.scatter(dim, w, 1.0), msg);
          CHECK_THROWS_WITH(self.scatter_add(dim, w, src), msg);
          CHECK_THROWS_WITH(self.scatter_reduce(dim, w, src, "prod", false), msg);
        }
      }
    }
  }
}

}  // namespace ops_scatter_gather_test
