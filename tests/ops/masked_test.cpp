// masked_select, masked_scatter, nonzero, argwhere and where(condition) (ops/masked.hpp):
// row-major selection order, broadcasting, uint8 masks, every dtype, 0-d and empty inputs,
// non-contiguous inputs, out=, and every error path (checked against torch 1.13).
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

namespace ops_masked_test {

using namespace tensorplay;
using Catch::Contains;

namespace {
Tensor lng(std::vector<int64_t> v) { return tensor(v, kLong); }
Tensor flt(std::vector<double> v) { return tensor(v, kFloat); }
Tensor x23() { return arange(6.0).reshape({2, 3}); }
bool same(const Tensor& a, const Tensor& b) { return a.sizes() == b.sizes() && a.equal(b); }
}  // namespace

TEST_CASE("masked_select picks in row-major order", "[ops][masked]") {
  const Tensor x = x23();
  CHECK(same(x.masked_select(x.gt(2)), flt({3, 4, 5})));
  // the mask broadcasts against self, and self against the mask
  CHECK(same(masked_select(x, tensor({true, false, true})), flt({0, 2, 3, 5})));
  CHECK(same(x.masked_select(tensor({true}).reshape({1, 1, 1})), flt({0, 1, 2, 3, 4, 5})));
  CHECK(same(flt({7}).masked_select(tensor({true, false, true})), flt({7, 7})));
  CHECK(same(x.masked_select(tensor({1, 0, 1}, kByte)), flt({0, 2, 3, 5})));
  // a transposed self is read in its own row-major order
  CHECK(same(x.t().masked_select(x.t().lt(3)), flt({0, 1, 2})));
  CHECK(same(tensor(5.0).masked_select(tensor(true)), tensor({5.0})));
  CHECK(x.masked_select(zeros({2, 3}, kBool)).sizes() == IntArrayRef({0}));
  for (DType d : {kBool, kByte, kChar, kShort, kInt, kLong, kHalf, kBFloat16, kFloat, kDouble}) {
    INFO(d);
    CHECK(same(lng({1, 0, 1}).to(d).masked_select(tensor({false, true, true})).to(kLong),
               lng({0, 1})));
  }
  Tensor out = empty({5});
  masked_select_out(out, x, x.lt(2));
  CHECK(same(out, flt({0, 1})));
  CHECK_THROWS_WITH(x.masked_select(lng({1, 0, 1})),
                    "masked_select: expected BoolTensor or ByteTensor for mask");
  CHECK_THROWS_WITH(x.masked_select(tensor({true, false})),
                    "The size of tensor a (3) must match the size of tensor b (2) at non-singleton "
                    "dimension 1");
  CHECK_THROWS_WITH(masked_select_out(empty({1}, kLong), x, x.lt(2)),
                    "Expected out tensor to have dtype float, but got long int instead");
}

TEST_CASE("masked_scatter fills the selected elements from source, in order", "[ops][masked]") {
  const Tensor x = x23();
  CHECK(same(x.masked_scatter(x.gt(2), arange(10.0)), flt({0, 1, 2, 0, 1, 2}).reshape({2, 3})));
  CHECK(same(x.masked_scatter(tensor({true, false, true}), arange(10.0)),
             flt({0, 1, 1, 2, 4, 3}).reshape({2, 3})));
  CHECK(same(masked_scatter(x, tensor({1, 0, 1}, kByte), arange(10.0)),
             flt({0, 1, 1, 2, 4, 3}).reshape({2, 3})));
  // out of place, self broadcasts to the mask's shape
  CHECK(same(flt({9}).masked_scatter(tensor({true, false, true}), flt({1, 2})), flt({1, 9, 2})));
  // in place into a transposed self: row-major order of self's logical shape
  Tensor y = zeros({3, 2}).t();
  y.masked_scatter_(ones({2, 3}, kBool), arange(6.0));
  CHECK(same(y, x23()));
  // a source sharing memory with self is read before it is written
  Tensor z = arange(6.0);
  z.masked_scatter_(z.gt(2), z);
  CHECK(same(z, flt({0, 1, 2, 0, 1, 2})));
  for (DType d : {kBool, kByte, kChar, kShort, kInt, kLong, kHalf, kBFloat16, kFloat, kDouble}) {
    INFO(d);
    CHECK(same(zeros({3}, d).masked_scatter(tensor({false, true, true}), ones({2}, d)).to(kLong),
               lng({0, 1, 1})));
  }
  Tensor w = x23();
  CHECK_THROWS_WITH(w.masked_scatter_(w.gt(2), arange(2.0)),
                    "Number of elements of source < number of ones in mask");
  CHECK_THROWS_WITH(
      w.masked_scatter_(w.gt(2), arange(10, kLong)),
      "masked_scatter: expected self and source to have same dtypes but got Float and "
      "Long");
  CHECK_THROWS_WITH(w.masked_scatter_(lng({1, 0, 1}), arange(10.0)),
                    "masked_scatter_: expected BoolTensor or ByteTensor for mask");
  CHECK_THROWS(w.masked_scatter_(tensor({true}).reshape({1, 1, 1}), arange(10.0)));
  CHECK(same(w, x23()));  // nothing written by a refused call
}

TEST_CASE("nonzero, argwhere and where(condition)", "[ops][masked]") {
  const Tensor x = x23();
  CHECK(same(x.nonzero(), lng({0, 1, 0, 2, 1, 0, 1, 1, 1, 2}).reshape({5, 2})));
  CHECK(same(argwhere(x), x.nonzero()));
  const std::vector<Tensor> t = x.nonzero_numpy();
  REQUIRE(t.size() == 2);
  CHECK(same(t[0], lng({0, 0, 1, 1, 1})));
  CHECK(same(t[1], lng({1, 2, 0, 1, 2})));
  const std::vector<Tensor> w = where(x.gt(2));
  REQUIRE(w.size() == 2);
  CHECK(same(w[0], lng({1, 1, 1})));
  CHECK(same(w[1], lng({0, 1, 2})));
  // 0-d: a [n, 0] result, and one index tensor as a tuple
  CHECK(tensor(2.0).nonzero().sizes() == IntArrayRef({1, 0}));
  CHECK(tensor(0.0).nonzero().sizes() == IntArrayRef({0, 0}));
  REQUIRE(nonzero_numpy(tensor(2.0)).size() == 1);
  CHECK(same(nonzero_numpy(tensor(2.0))[0], lng({0})));
  CHECK(nonzero_numpy(tensor(0.0))[0].numel() == 0);
  CHECK(zeros({2, 0}).nonzero().sizes() == IntArrayRef({0, 2}));
  // NaN is nonzero; non-contiguous input keeps its logical order
  CHECK(same(flt({0, NAN, -0.0}).nonzero(), lng({1}).reshape({1, 1})));
  CHECK(same(x.t().nonzero(), lng({0, 1, 1, 0, 1, 1, 2, 0, 2, 1}).reshape({5, 2})));
  for (DType d : {kBool, kByte, kChar, kShort, kInt, kLong, kHalf, kBFloat16, kFloat, kDouble}) {
    INFO(d);
    CHECK(same(lng({0, 1, 0, 1}).to(d).nonzero(), lng({1, 3}).reshape({2, 1})));
  }
  Tensor out = empty({7}, kLong);
  CHECK((x.nonzero().stride(0) == 1 && x.nonzero().stride(1) == 5));  // column-major, as torch
  nonzero_out(out, x.lt(2));
  CHECK(same(out, lng({0, 0, 0, 1}).reshape({2, 2})));
  CHECK_THROWS_WITH(
      nonzero_out(empty({1}), x),
      "nonzero: Expected out tensor to have scalar type Long but got scalar type Float");
}

}  // namespace ops_masked_test
