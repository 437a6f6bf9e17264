// kthvalue, median, nanmedian, mode, quantile, nanquantile (ops/order_stats.hpp): values and
// indices as torch 1.13 gives them (ties, NaN, empty and 0-d inputs, strided inputs, keepdim),
// dtypes, out= forms and every error path with torch's message.
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

namespace ops_order_stats_test {

using namespace tensorplay;

namespace {
Tensor lng(std::vector<int64_t> v) { return tensor(v, kLong); }
Tensor flt(std::vector<double> v) { return tensor(v, kFloat); }
bool same(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && a.dtype() == b.dtype() && a.equal(b);
}
bool is_nan(const Tensor& t) { return std::isnan(t.item().toDouble()); }
// values[i] == self[indices[i]] along the last dim of a 2-d self
bool points_to(const Tensor& self, const Tensor& v, const Tensor& i) {
  return same(self.gather(-1, i.unsqueeze(-1)).squeeze(-1), v);
}
}  // namespace

TEST_CASE("kthvalue", "[ops][order_stats]") {
  const Tensor x = flt({3, 1, 2, 5, 4});
  for (int64_t k = 1; k <= 5; ++k) {
    const auto [v, i] = kthvalue(x, k);
    CHECK(v.item<float>() == float(k));
    CHECK(x[i.item<int64_t>()].item<float>() == float(k));
  }
  // ties: torch 1.13's indices
  CHECK(same(std::get<1>(flt({2, 1, 2, 2}).kthvalue(3)), tensor(int64_t(2))));
  CHECK(same(std::get<1>(flt({2, 1, 2, 2}).kthvalue(2)), tensor(int64_t(0))));
  // NaN is the largest
  const auto [nv, ni] = kthvalue(flt({1, NAN, 2}), 3);
  CHECK(is_nan(nv));
  CHECK(ni.item<int64_t>() == 1);
  CHECK(std::get<0>(kthvalue(flt({1, NAN, 2}), 2)).item<float>() == 2);
  // every dtype but Bool and Half
  for (DType dt : {kUInt8, kInt8, kInt16, kInt32, kLong, kBFloat16, kFloat, kDouble}) {
    const auto [v, i] = x.to(dt).kthvalue(2);
    CHECK(same(v, tensor(2.0).to(dt)));
    CHECK(same(i, tensor(int64_t(2))));
  }
  CHECK_THROWS_WITH(kthvalue(x.to(kHalf), 1), "\"kthvalue_cpu\" not implemented for 'Half'");
  CHECK(same(std::get<0>(kthvalue(tensor(true), 1)), tensor(true)));  // 0-d: copied, any dtype
  CHECK_THROWS_WITH(kthvalue(tensor({true, false}), 1),
                    "\"kthvalue_cpu\" not implemented for 'Bool'");
  // 2-d, strided, keepdim
  const Tensor m = flt({5, 1, 4, 2, 8, 0, 3, 7, 6}).reshape({3, 3});
  const auto [v0, i0] = m.t().kthvalue(2, 1);  // along m's columns
  CHECK(same(v0, flt({3, 7, 4})));
  CHECK(same(i0, lng({2, 2, 0})));
  const auto [vk, ik] = m.kthvalue(1, 0, true);
  CHECK(same(vk, flt({2, 1, 0}).reshape({1, 3})));
  CHECK(same(ik, lng({1, 0, 1}).reshape({1, 3})));
  CHECK(points_to(m, std::get<0>(m.kthvalue(3)), std::get<1>(m.kthvalue(3))));
  // 0-d and empty
  CHECK(same(std::get<0>(kthvalue(tensor(3.0f), 1, 0, true)), tensor(3.0f)));
  CHECK(same(std::get<1>(kthvalue(tensor(3.0f), 1)), tensor(int64_t(0))));
  CHECK(std::get<0>(kthvalue(empty({2, 0}), 1, 0)).sizes() == IntArrayRef{0});
  // errors
  CHECK_THROWS_WITH(kthvalue(x, 0), "kthvalue(): selected number k out of range for dimension 0");
  CHECK_THROWS_WITH(kthvalue(x, 6), "kthvalue(): selected number k out of range for dimension 0");
  CHECK_THROWS_WITH(kthvalue(tensor(3.0f), 2),
                    "kthvalue(): selected number k out of range for dimension 0");
  CHECK_THROWS_AS(kthvalue(x, 1, 1), IndexError);
  CHECK_THROWS_AS(kthvalue(empty({0}), 1), IndexError);
  CHECK_THROWS_WITH(kthvalue(empty({2, 0}), 1, 1),
                    "kthvalue(): Expected reduction dim 1 to have non-zero size.");
  // out=
  Tensor ov = empty({0}), oi = empty({0}, kLong);
  kthvalue_out(ov, oi, m, 2, 1);
  CHECK(same(ov, flt({4, 2, 6})));
  CHECK(same(oi, lng({2, 0, 2})));
  CHECK_THROWS_WITH(kthvalue_out(empty({0}, kLong), oi, m, 1),
                    "output values must be of same type as input");
  CHECK_THROWS_WITH(kthvalue_out(ov, empty({0}), m, 1),
                    "output indices must be of scalar type Long");
  CHECK_THROWS_WITH(kthvalue_out(ov, oi, m.to(kDouble).requires_grad_(), 1),
                    Catch::StartsWith("kthvalue(): functions with out=... arguments"));
}

TEST_CASE("median and nanmedian", "[ops][order_stats]") {
  CHECK(same(median(flt({3, 1, 2, 5, 4})), tensor(3.0f)));
  CHECK(same(flt({4, 1, 2, 3}).median(), tensor(2.0f)));  // the lower median
  CHECK(same(lng({1, 2, 3, 4}).median(), tensor(int64_t(2))));
  CHECK(same(flt({1, 2, 3, 4}).to(kBFloat16).median(), tensor(2.0f).to(kBFloat16)));
  CHECK(is_nan(flt({1, NAN, 2}).median()));
  CHECK(same(flt({1, NAN, 2}).nanmedian(), tensor(1.0f)));
  CHECK(is_nan(flt({NAN, NAN}).nanmedian()));
  CHECK(same(lng({1, 2, 3}).nanmedian(), tensor(int64_t(2))));
  CHECK(is_nan(median(empty({0}))));
  CHECK(is_nan(nanmedian(empty({2, 0}))));
  CHECK(same(median(empty({0}, kLong)), tensor(std::numeric_limits<int64_t>::min())));
  CHECK(same(median(tensor(3.0f)), tensor(3.0f)));
  CHECK_THROWS_WITH(median(tensor({true, false})), "\"median_cpu\" not implemented for 'Bool'");
  CHECK_THROWS_WITH(nanmedian(flt({1}).to(kHalf)), "\"median_cpu\" not implemented for 'Half'");
  // along a dim: ties by index (torch 1.13's indices)
  CHECK(same(std::get<1>(median(flt({2, 1, 2, 2}), 0)), tensor(int64_t(0))));
  CHECK(same(std::get<1>(median(flt({2, 2, 2, 2}), 0)), tensor(int64_t(1))));
  CHECK(same(std::get<1>(median(zeros({3, 4}).t(), 0)), lng({1, 1, 1})));
  const auto [nv, ni] = median(flt({1, NAN, 2, NAN}), 0);  // the first NaN
  CHECK(is_nan(nv));
  CHECK(ni.item<int64_t>() == 1);
  const auto [mv, mi] = nanmedian(flt({1, NAN, 2}), 0);
  CHECK(mv.item<float>() == 1);
  CHECK(mi.item<int64_t>() == 0);
  const auto [av, ai] = flt({NAN, NAN}).nanmedian(0);
  CHECK(is_nan(av));
  CHECK(ai.item<int64_t>() == 0);
  const Tensor m = flt({5, 1, 4, 2, 8, 0, 3, 7, 6}).reshape({3, 3});
  const auto [v1, i1] = m.median(1, true);
  CHECK(same(v1, flt({4, 2, 6}).reshape({3, 1})));
  CHECK(same(i1, lng({2, 0, 2}).reshape({3, 1})));
  const auto [v0, i0] = m.t().nanmedian(1);
  CHECK(same(v0, flt({3, 7, 4})));
  CHECK(same(i0, lng({2, 2, 0})));
  for (DType dt : {kUInt8, kInt8, kInt16, kInt32, kLong, kBFloat16, kDouble}) {
    CHECK(same(std::get<0>(m.to(dt).median(0)), flt({3, 7, 4}).to(dt)));
  }
  CHECK_THROWS_WITH(median(m.to(kHalf), 0), "\"median_out\" not implemented for 'Half'");
  CHECK_THROWS_WITH(nanmedian(m.to(kBool), 0), "\"median_out\" not implemented for 'Bool'");
  // 0-d, empty
  CHECK(same(std::get<1>(median(tensor(3.0f), 0, true)), tensor(int64_t(0))));
  CHECK(std::get<0>(median(empty({2, 0}), 0)).sizes() == IntArrayRef{0});
  CHECK_THROWS_WITH(median(empty({2, 0}), 1),
                    "median(): Expected reduction dim 1 to have non-zero size.");
  CHECK_THROWS_WITH(nanmedian(empty({2, 0}), 1),
                    "median(): Expected reduction dim 1 to have non-zero size.");
  CHECK_THROWS_AS(median(tensor(3.0f), 1), IndexError);
  // out=
  Tensor ov = empty({0}), oi = empty({0}, kLong);
  median_out(ov, oi, m, 0);
  CHECK(same(ov, flt({3, 7, 4})));
  nanmedian_out(ov, oi, flt({NAN, 1, 2, 3}).reshape({2, 2}), 1, true);
  CHECK(same(ov, flt({1, 2}).reshape({2, 1})));
  CHECK(same(oi, lng({1, 0}).reshape({2, 1})));
  CHECK_THROWS_WITH(median_out(empty({0}, kLong), oi, m, 0),
                    "Expected tensor for 'values' to have the same type as tensor for argument #2 "
                    "'self'; but type tensorplay.LongTensor does not equal tensorplay.FloatTensor "
                    "(while checking arguments for median)");
  CHECK_THROWS_WITH(nanmedian_out(ov, empty({0}), m, 0),
                    "Expected tensor for argument #1 'indices' to have scalar type Long; but got "
                    "tensorplay.FloatTensor instead (while checking arguments for median)");
}

TEST_CASE("mode", "[ops][order_stats]") {
  // the smallest of the most frequent values, its last index
  const auto [v, i] = mode(flt({1, 2, 2, 1, 3}));
  CHECK(v.item<float>() == 1);
  CHECK(i.item<int64_t>() == 3);
  const auto [v2, i2] = flt({2, 1, 2, 1, 3}).mode();
  CHECK(v2.item<float>() == 1);
  CHECK(i2.item<int64_t>() == 3);
  const auto [cv, ci] = lng({1, 2, 2, 3, 3, 1}).reshape({2, 3}).mode(0);
  CHECK(same(cv, lng({1, 2, 1})));
  CHECK(same(ci, lng({0, 0, 1})));
  // each NaN counts once
  const auto [nv, ni] = flt({NAN, 1, 1, NAN, NAN}).mode();
  CHECK(nv.item<float>() == 1);
  CHECK(ni.item<int64_t>() == 2);
  for (DType dt : {kBool, kUInt8, kInt8, kInt16, kInt32, kLong, kHalf, kBFloat16, kDouble}) {
    const auto [dv, di] = flt({1, 0, 1}).to(dt).mode();
    CHECK(same(dv, tensor(1.0).to(dt)));
    CHECK(di.item<int64_t>() == 2);
  }
  const Tensor m = flt({5, 1, 5, 2, 2, 0, 3, 7, 3}).reshape({3, 3});
  const auto [mv, mi] = m.t().mode(0, true);
  CHECK(same(mv, flt({5, 2, 3}).reshape({1, 3})));
  CHECK(same(mi, lng({2, 1, 2}).reshape({1, 3})));
  CHECK(same(std::get<0>(mode(tensor(3.0f), 0, true)), tensor(3.0f)));
  CHECK(std::get<0>(mode(empty({2, 0}), 0)).sizes() == IntArrayRef{0});
  CHECK_THROWS_WITH(mode(empty({0})), "mode(): Expected reduction dim 0 to have non-zero size.");
  CHECK_THROWS_AS(mode(tensor(3.0f), 1), IndexError);
  Tensor ov = empty({0}), oi = empty({0}, kLong);
  mode_out(ov, oi, m, 1);
  CHECK(same(ov, flt({5, 2, 3})));
  CHECK(same(oi, lng({2, 1, 2})));
  CHECK_THROWS_WITH(mode_out(empty({0}, kLong), oi, m, 0),
                    "expected scalar type 'Float' but got 'Long' for values output");
  CHECK_THROWS_WITH(mode_out(ov, empty({0}), m, 0),
                    "expected scalar type 'Long' but got 'Float' for indices output");
}

TEST_CASE("quantile and nanquantile", "[ops][order_stats]") {
  const Tensor x = flt({3, 1, 2, 5, 4});
  CHECK(quantile(x, 0.3).item<float>() == Approx(2.2));
  CHECK(same(quantile(x, 0.3, std::nullopt, false, "lower"), tensor(2.0f)));
  CHECK(same(quantile(x, 0.3, std::nullopt, false, "higher"), tensor(3.0f)));
  CHECK(same(quantile(x, 0.3, std::nullopt, false, "midpoint"), tensor(2.5f)));
  CHECK(same(quantile(x, 0.3, std::nullopt, false, "nearest"), tensor(2.0f)));
  // nearest rounds half to even
  CHECK(same(flt({0, 1, 2, 3}).quantile(flt({0.5, 0.25, 1.0 / 6}), std::nullopt, false, "nearest"),
             flt({2, 1, 0})));
  const Tensor q = flt({0.1, 0.9});
  CHECK(quantile(x, q).allclose(flt({1.4, 4.6})));
  // dims and keepdim
  const Tensor m = flt({5, 1, 4, 2, 8, 0, 3, 7, 6}).reshape({3, 3});
  CHECK(same(m.quantile(0.5, 1), flt({4, 2, 6})));
  CHECK(same(m.t().quantile(0.5, 0, true), flt({4, 2, 6}).reshape({1, 3})));
  CHECK(m.quantile(q, 1).sizes() == IntArrayRef{2, 3});
  CHECK(m.quantile(q, 1, true).sizes() == IntArrayRef{2, 3, 1});
  CHECK(m.quantile(q, std::nullopt, true).sizes() == IntArrayRef{2, 1, 1});
  CHECK(same(quantile(tensor(3.0f), 0.3, 0), tensor(3.0f)));
  CHECK(same(quantile(tensor(3.0), 0.3, std::nullopt, true), tensor(3.0)));
  // NaN
  CHECK(is_nan(quantile(flt({NAN, 1, 2}), 0.5)));
  CHECK(same(nanquantile(flt({NAN, 1, 2}), 0.5), tensor(1.5f)));
  CHECK(is_nan(flt({NAN}).nanquantile(0.5)));
  // out=
  Tensor out = empty({0});
  quantile_out(out, x, q);
  CHECK(out.allclose(flt({1.4, 4.6})));
  nanquantile_out(out, flt({NAN, 1, 2}), 0.5);
  CHECK(same(out, tensor(1.5f)));
  CHECK_THROWS_WITH(quantile_out(empty({0}, kLong), x, 0.5),
                    "quantile() out tensor must be same dtype as the input tensor");
  // errors
  CHECK_THROWS_WITH(quantile(x, 1.5), "quantile() q must be in the range [0, 1] but got 1.5");
  CHECK_THROWS_WITH(nanquantile(x, -0.5), "quantile() q must be in the range [0, 1] but got -0.5");
  CHECK_THROWS_WITH(quantile(x, flt({0.5, -1})), "quantile() q values must be in the range [0, 1]");
  CHECK_THROWS_WITH(quantile(x.to(kLong), 0.5),
                    "quantile() input tensor must be either float or double dtype");
  CHECK_THROWS_WITH(quantile(x, 0.5, std::nullopt, false, "cubic"),
                    "quantile() interpolation must be one of linear, lower, higher, midpoint or "
                    "nearest, but got cubic");
  CHECK_THROWS_WITH(quantile(empty({2, 0}), 0.5, 0), "quantile() input tensor must be non-empty");
  CHECK_THROWS_WITH(quantile(x, flt({0.5}).reshape({1, 1})),
                    "quantile() q must be a scalar or 1D tensor");
  CHECK_THROWS_WITH(quantile(x, full({}, 0.5, kDouble)),
                    "quantile() q tensor must be same dtype as the input tensor");
  CHECK_THROWS_AS(quantile(x, 0.5, 1), IndexError);
}

}  // namespace ops_order_stats_test
