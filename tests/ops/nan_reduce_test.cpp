// count_nonzero, nansum, nanmean, cummax, cummin (ops/nan_reduce.hpp), bincount, histc
// (ops/histogram.hpp), searchsorted and bucketize (ops/bucketize.hpp): values, dtypes, gradients
// and node names, and every error path, as torch 1.13 gives them.
#include <tensorplay/autograd/gradcheck.hpp>
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

namespace ops_nan_reduce_test {

using namespace tensorplay;

namespace {
Tensor lng(std::vector<int64_t> v) { return tensor(v, kLong); }
Tensor flt(std::vector<double> v) { return tensor(v, kFloat); }
Tensor dbl(std::vector<double> v) { return tensor(v, kDouble); }
bool same(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && a.dtype() == b.dtype() && a.equal(b);
}
std::string name_of(const Tensor& t) { return t.grad_fn() ? t.grad_fn()->name() : "None"; }
// [[1, nan, 3], [0, 2, 0]]
Tensor xnan() { return flt({1, NAN, 3, 0, 2, 0}).reshape({2, 3}); }
}  // namespace

TEST_CASE("count_nonzero, nansum, nanmean", "[ops][nan_reduce]") {
  const Tensor x = xnan();
  CHECK(same(count_nonzero(x), tensor(int64_t(4))));
  CHECK(same(x.count_nonzero(1), lng({3, 1})));
  CHECK(same(count_nonzero(x, IntArrayRef({0, 1})), tensor(int64_t(4))));
  CHECK(same(tensor({true, false}).count_nonzero(), tensor(int64_t(1))));
  CHECK(same(nansum(x), tensor(6.0f)));
  CHECK(same(x.nansum(1), flt({4, 2})));
  CHECK(same(x.nansum(1, true), flt({4, 2}).reshape({2, 1})));
  CHECK(same(nansum(lng({1, 2})), tensor(int64_t(3))));
  CHECK(same(nansum(x, {}, false, kDouble), full({}, 6.0, kDouble)));
  CHECK(nanmean(x).item<float>() == Approx(1.2f));
  CHECK(same(x.nanmean(0), flt({0.5, 2, 1.5})));
  CHECK(std::isnan(flt({NAN}).nanmean().item<float>()));
  CHECK_THROWS_WITH(nanmean(lng({1, 2})),
                    "nanmean(): expected input to have floating point dtype but got Long");
  // gradients: NaN positions get none (torch's values), nanmean divides by the count
  const Tensor y = xnan().to(kDouble).requires_grad_();
  const Tensor s = y.nansum();
  CHECK(name_of(s) == "NansumBackward0");
  s.backward();
  CHECK(same(y.grad(), dbl({1, 0, 1, 1, 1, 1}).reshape({2, 3})));
  CHECK(name_of(y.nanmean()) == "DivBackward0");
  CHECK(autograd::gradcheck([](const std::vector<Tensor>& v) { return v[0].nansum(1, true); },
                            {randn({3, 4}, kDouble).t().requires_grad_()}));
}

TEST_CASE("cummax and cummin", "[ops][nan_reduce]") {
  const auto [v, i] = cummax(flt({1, 3, 2, 3, NAN, 5}), 0);
  CHECK(same(i, lng({0, 1, 1, 3, 4, 4})));
  CHECK(v[3].item<float>() == 3);
  CHECK((std::isnan(v[4].item<float>()) && std::isnan(v[5].item<float>())));
  const auto [mv, mi] = lng({3, 1, 2, 1}).cummin(0);
  CHECK(same(mv, lng({3, 1, 1, 1})));
  CHECK(same(mi, lng({0, 1, 1, 3})));
  const auto [sv, si] = cummax(tensor(2.0), 0);
  CHECK((sv.dim() == 0 && si.dim() == 0 && si.item<int64_t>() == 0));
  const auto [rv, ri] = xnan().t().cummax(0);  // non-contiguous, along the other dim
  CHECK(same(ri, lng({0, 0, 1, 1, 1, 1}).reshape({3, 2})));
  // the gradient goes to the element copied (torch's values)
  const Tensor z = dbl({1, 3, 2, 3, 0.5}).requires_grad_();
  const Tensor zv = std::get<0>(z.cummax(0));
  CHECK(name_of(zv) == "CummaxBackward0");
  CHECK(name_of(std::get<0>(z.cummin(0))) == "CumminBackward0");
  zv.mul(arange(5, kDouble)).sum().backward();
  CHECK(same(z.grad(), dbl({0, 3, 0, 7, 0})));
  CHECK(
      autograd::gradcheck([](const std::vector<Tensor>& w) { return std::get<0>(w[0].cummin(1)); },
                          {randn({3, 4}, kDouble).requires_grad_()}));
  CHECK_THROWS_AS(cummax(flt({1}), 1), IndexError);
}

TEST_CASE("bincount and histc", "[ops][histogram]") {
  CHECK(same(bincount(lng({0, 2, 2, 5})), lng({1, 0, 2, 0, 0, 1})));
  CHECK(same(lng({0, 2, 2, 5}).bincount(std::nullopt, 8), lng({1, 0, 2, 0, 0, 1, 0, 0})));
  CHECK(same(bincount(lng({0, 2, 2}), flt({0.5, 1, 2})), flt({0.5, 0, 3})));
  CHECK(same(bincount(lng({0, 2, 2}), dbl({0.5, 1, 2})), dbl({0.5, 0, 3})));
  CHECK(same(bincount(lng({0, 2, 2}), lng({1, 2, 3})), dbl({1, 0, 5})));
  CHECK(same(bincount(empty({0}, kLong)), empty({0}, kLong)));
  CHECK(same(bincount(tensor({0, 1}, kByte)), lng({1, 1})));
  CHECK_THROWS_WITH(bincount(lng({0, -2, 2})),
                    "bincount only supports 1-d non-negative integral inputs.");
  CHECK_THROWS_WITH(bincount(lng({0, 2}).reshape({1, 2})),
                    "bincount only supports 1-d non-negative integral inputs.");
  CHECK_THROWS_AS(bincount(flt({0, 2})), Error);
  CHECK_THROWS_WITH(bincount(flt({0, 2})), "\"bincount_cpu\" not implemented for 'Float'");
  CHECK_THROWS_WITH(bincount(lng({0, 2}), std::nullopt, -1), "minlength should be >= 0");
  CHECK_THROWS_WITH(bincount(lng({0, 2}), flt({1})),
                    "weights should be 1-d and have the same length as input");

  CHECK(same(histc(flt({1, 2, 1}), 4, 0, 3), flt({0, 2, 1, 0})));
  CHECK(same(flt({1, 2, 1}).histc(4), flt({2, 0, 0, 1})));
  CHECK(same(histc(flt({1, 2, 1, 5}), 4, 0, 3), flt({0, 2, 1, 0})));
  CHECK(same(histc(flt({2, 2}), 4), flt({0, 0, 2, 0})));
  CHECK(same(histc(dbl({0.5}), 2, 0, 1), dbl({0, 1})));
  CHECK_THROWS_WITH(histc(lng({1, 2}), 4), "\"histogram_cpu\" not implemented for 'Long'");
  CHECK_THROWS_WITH(histc(flt({1, 2}), 0),
                    "torch.histogram(): bins must be > 0, but got 0 for dimension 0");
  CHECK_THROWS_WITH(histc(flt({1, 2}), 4, 3, 1), "torch.histc: max must be larger than min");
  CHECK_THROWS_WITH(histc(flt({1, NAN}), 4), Catch::Contains("is not finite"));
}

TEST_CASE("searchsorted and bucketize", "[ops][bucketize]") {
  const Tensor rows = lng({1, 3, 5, 7, 9, 2, 4, 6, 8, 10}).reshape({2, 5});
  const Tensor vals = lng({3, 6, 9, 3, 6, 9}).reshape({2, 3});
  CHECK(same(searchsorted(rows, vals), lng({1, 3, 4, 1, 2, 4}).reshape({2, 3})));
  CHECK(same(searchsorted(rows, vals, false, true), lng({2, 3, 5, 1, 3, 4}).reshape({2, 3})));
  CHECK(same(searchsorted(rows[0], vals, false, false, "right"),
             lng({2, 3, 5, 2, 3, 5}).reshape({2, 3})));
  CHECK(same(searchsorted(rows[0], Scalar(6)), tensor(int64_t(3))));
  CHECK(same(searchsorted(lng({9, 3, 5, 1, 7}), lng({3, 6, 9}), false, false, std::nullopt,
                          lng({3, 1, 2, 4, 0})),
             lng({1, 3, 4})));
  CHECK(same(searchsorted(flt({1, 3, 5}), lng({3, 6})), lng({1, 3})));
  CHECK(same(searchsorted(flt({1, NAN}), flt({NAN, 2})), lng({2, 2})));
  CHECK(same(searchsorted(rows[0], vals, true), lng({1, 3, 4, 1, 3, 4}).reshape({2, 3}).to(kInt)));
  CHECK(same(bucketize(lng({1, 5, 9}), rows[0]), lng({0, 2, 4})));
  CHECK(same(bucketize(lng({1, 5, 9}), rows[0], false, true), lng({1, 3, 5})));
  CHECK(same(bucketize(Scalar(4), lng({1, 3, 5})), tensor(int64_t(2))));
  CHECK_THROWS_WITH(bucketize(flt({1}), lng({1, 3}).reshape({1, 2})),
                    "boundaries tensor must be 1 dimension, but got dim(2)");
  CHECK_THROWS_WITH(searchsorted(rows[0], vals, false, true, "left"),
                    "torch.searchsorted(): side and right can't be set to opposites, got side of "
                    "left while right was True");
  CHECK_THROWS_WITH(searchsorted(rows[0], vals, false, false, "foo"),
                    "torch.searchsorted(): side can only be 'left' or 'right' but got foo");
  CHECK_THROWS_WITH(searchsorted(rows[0].reshape({1, 5}), vals),
                    "torch.searchsorted(): boundaries tensor should be 1 dimension or the first "
                    "N-1 dimensions of boundaries tensor and input value tensor must match, but we "
                    "got boundaries tensor [1, 5] and input value tensor [2, 3]");
  CHECK_THROWS_WITH(searchsorted(rows[0], vals, false, false, std::nullopt, flt({0, 1, 2, 3, 4})),
                    Catch::Contains("sorter must be a tensor of long dtype"));
}

}  // namespace ops_nan_reduce_test
