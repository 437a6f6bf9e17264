// unique and unique_consecutive (ops/unique.hpp), against torch 1.13's results.
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

namespace ops_unique_test {

using namespace tensorplay;

namespace {
Tensor lng(std::vector<int64_t> v) { return tensor(v, kLong); }
bool same(const Tensor& a, const Tensor& b) {
  return a.sizes() == b.sizes() && a.dtype() == b.dtype() && a.equal(b);
}
}  // namespace

TEST_CASE("unique", "[ops][unique]") {
  auto [u, inv, cnt] = unique(lng({3, 1, 2, 1, 3}), true, true, true);
  CHECK(same(u, lng({1, 2, 3})));
  CHECK(same(inv, lng({2, 0, 1, 0, 2})));
  CHECK(same(cnt, lng({2, 1, 2})));
  CHECK(std::get<1>(unique(lng({3, 1, 2}))).numel() == 0);  // not asked for: empty
  CHECK(same(std::get<1>(unique(lng({3, 1, 2, 1}).reshape({2, 2}), true, true)),
             lng({2, 0, 1, 0}).reshape({2, 2})));
  auto [r, rinv, rcnt] = unique(lng({1, 2, 0, 5, 1, 2}).reshape({3, 2}), true, true, true, 0);
  CHECK(same(r, lng({0, 5, 1, 2}).reshape({2, 2})));
  CHECK(same(rinv, lng({1, 0, 1})));
  CHECK(same(rcnt, lng({1, 2})));
  auto [c, cinv, ccnt] = unique(lng({1, 2, 1, 0, 5, 0}).reshape({2, 3}), true, false, true, 1);
  CHECK(same(c, lng({1, 2, 0, 5}).reshape({2, 2})));
  CHECK(same(ccnt, lng({2, 1})));
  // 0-d: a 1-element output and a 0-d inverse
  auto [s, sinv, scnt] = unique(tensor(int64_t(3)), true, true);
  CHECK(same(s, lng({3})));
  CHECK((sinv.dim() == 0 && sinv.item<int64_t>() == 0));
  CHECK(same(std::get<0>(unique(tensor({true, false, true}))), tensor({false, true})));
  CHECK(std::get<0>(unique(empty({0}, kLong))).numel() == 0);
  CHECK(std::get<0>(unique(zeros({0, 3}), true, false, false, 0)).sizes() == IntArrayRef({0, 3}));
  // each NaN is its own element; NaN sorts last
  const Tensor nan_u = std::get<0>(unique(tensor({1.0f, NAN, NAN, 1.0f})));
  REQUIRE(nan_u.numel() == 3);
  CHECK((nan_u[0].item<float>() == 1 && std::isnan(nan_u[1].item<float>()) &&
         std::isnan(nan_u[2].item<float>())));
  for (DType d : {kByte, kChar, kShort, kInt, kLong, kHalf, kBFloat16, kFloat, kDouble}) {
    INFO(d);
    CHECK(same(std::get<0>(unique(lng({3, 1, 3}).to(d))), lng({1, 3}).to(d)));
  }
  CHECK_THROWS_AS(unique(lng({1, 2}).reshape({1, 2}), true, false, false, 2), IndexError);
  CHECK_THROWS_WITH(unique(zeros({2, 0}), true, false, false, 0),
                    "There are 0 sized dimensions, and they aren't selected, so unique cannot be "
                    "applied");
}

TEST_CASE("unique_consecutive", "[ops][unique]") {
  auto [u, inv, cnt] = unique_consecutive(lng({1, 1, 2, 2, 3, 1, 1, 2}), true, true);
  CHECK(same(u, lng({1, 2, 3, 1, 2})));
  CHECK(same(inv, lng({0, 0, 1, 1, 2, 3, 3, 4})));
  CHECK(same(cnt, lng({2, 2, 1, 2, 1})));
  auto [r, rinv, rcnt] =
      unique_consecutive(lng({1, 1, 1, 1, 2, 3, 1, 1}).reshape({4, 2}), false, true, 0);
  CHECK(same(r, lng({1, 1, 2, 3, 1, 1}).reshape({3, 2})));
  CHECK(same(rcnt, lng({2, 1, 1})));
  CHECK(same(std::get<0>(unique_consecutive(tensor(int64_t(3)))), lng({3})));
}

}  // namespace ops_unique_test
