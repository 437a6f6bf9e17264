#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <vector>

using namespace tensorplay;
using namespace tensorplay::indexing;

namespace {
std::vector<float> values(const Tensor& t) {
  Tensor c = t.contiguous();
  const float* p = c.data_ptr<float>();
  return std::vector<float>(p, p + c.numel());
}
std::vector<int64_t> shape(const Tensor& t) { return t.sizes().vec(); }
Tensor grid() { return arange(12, kFloat).view({3, 4}); }  // [[0..3],[4..7],[8..11]]
}  // namespace

TEST_CASE("basic indices are views of the tensor", "[ops][indexing]") {
  Tensor x = grid();
  Tensor row = x.index({1});
  CHECK(values(row) == std::vector<float>{4, 5, 6, 7});
  CHECK(row.is_alias_of(x));
  CHECK(values(x.index({Slice(), 2})) == std::vector<float>{2, 6, 10});
  CHECK(values(x.index({Slice(1, None), Slice(None, None, 2)})) == std::vector<float>{4, 6, 8, 10});
  CHECK(values(x.index({-1, -1})) == std::vector<float>{11});
  CHECK(shape(x.index({None, 1, Ellipsis, None})) == std::vector<int64_t>{1, 4, 1});
  CHECK(shape(x.index({"...", 0})) == std::vector<int64_t>{3});
  CHECK(shape(x.index({Ellipsis})) == std::vector<int64_t>{3, 4});
  CHECK(shape(x.index({true})) == std::vector<int64_t>{1, 3, 4});
  CHECK(shape(x.index({false})) == std::vector<int64_t>{0, 3, 4});
  CHECK(shape(x.index({1, true})) == std::vector<int64_t>{1, 4});
  CHECK(shape(x.index({Slice(5, 10)})) == std::vector<int64_t>{0, 4});  // clamped, as Python
  CHECK(values(x[2]) == std::vector<float>{8, 9, 10, 11});
}

TEST_CASE("writing through an index changes the base", "[ops][indexing]") {
  Tensor a = tensor({{1., 2., 3.}, {4., 5., 6.}});
  Tensor v = a[0];
  v.index_put_({0}, 99.0);
  CHECK(values(a) == std::vector<float>{99, 2, 3, 4, 5, 6});
  a.index_put_({Slice(), 1}, tensor({-1.f, -2.f}));
  CHECK(values(a) == std::vector<float>{99, -1, 3, 4, -2, 6});
  const int64_t before = a._version();
  a.index_put_({1}, 0);
  CHECK(a._version() == before + 1);
  CHECK(values(a) == std::vector<float>{99, -1, 3, 0, 0, 0});
}

TEST_CASE("advanced indices gather with NumPy's placement", "[ops][indexing]") {
  Tensor x = grid();
  Tensor r = x.index({tensor({0, 2})});
  CHECK(shape(r) == std::vector<int64_t>{2, 4});
  CHECK(values(r) == std::vector<float>{0, 1, 2, 3, 8, 9, 10, 11});
  CHECK_FALSE(r.is_alias_of(x));
  CHECK(values(x.index({Slice(), tensor({0, 2})})) == std::vector<float>{0, 2, 4, 6, 8, 10});
  CHECK(values(x.index({tensor({0, -1})})) == std::vector<float>{0, 1, 2, 3, 8, 9, 10, 11});
  CHECK(values(x.index({tensor({0, 2}), Slice(1, None)})) ==
        std::vector<float>{1, 2, 3, 9, 10, 11});
  CHECK(values(x.index({tensor(1)})) == std::vector<float>{4, 5, 6, 7});  // 0-d index
  CHECK(shape(x.index({tensor(std::vector<int64_t>{})})) == std::vector<int64_t>{0, 4});

  Tensor y = arange(24, kFloat).view({2, 3, 4});
  // Non-adjacent advanced dims: the index shape goes first (torch: [2, 3]).
  Tensor na = y.index({tensor({0, 1}), Slice(), tensor({1, 2})});
  CHECK(shape(na) == std::vector<int64_t>{2, 3});
  CHECK(values(na) == std::vector<float>{1, 5, 9, 14, 18, 22});
  // Adjacent: in place of the indexed dims (torch: [2, 2]).
  Tensor ad = y.index({Slice(), tensor({0, 1}), tensor({1, 2})});
  CHECK(shape(ad) == std::vector<int64_t>{2, 2});
  CHECK(values(ad) == std::vector<float>{1, 6, 13, 18});
  // Broadcast index tensors.
  Tensor bc = x.index({tensor({{0}, {2}}), tensor({1, 3})});
  CHECK(shape(bc) == std::vector<int64_t>{2, 2});
  CHECK(values(bc) == std::vector<float>{1, 3, 9, 11});
}

TEST_CASE("boolean masks select elements", "[ops][indexing]") {
  Tensor x = grid();
  Tensor mask = tensor({true, false, true});
  CHECK(values(x.index({mask})) == std::vector<float>{0, 1, 2, 3, 8, 9, 10, 11});
  Tensor full_mask = tensor({{false, true, false, false}, {false, false, true, true},
                             {true, false, false, false}});
  CHECK(values(x.index({full_mask})) == std::vector<float>{1, 6, 7, 8});
  Tensor z = zeros({3, 4});
  z.index_put_({full_mask}, -1.0);
  CHECK(values(z) == std::vector<float>{0, -1, 0, 0, 0, 0, -1, -1, -1, 0, 0, 0});
}

TEST_CASE("index_put_ scatters with advanced indices", "[ops][indexing]") {
  Tensor z = zeros({3, 4});
  z.index_put_({tensor({0, 2}), Slice(1, None)}, tensor({7.f, 8.f, 9.f}));
  CHECK(values(z) == std::vector<float>{0, 7, 8, 9, 0, 0, 0, 0, 0, 7, 8, 9});
  Tensor w = zeros({4});
  w.index_put_({tensor({3, 1})}, tensor({1.0, 2.0}, kDouble));  // converted to float
  CHECK(values(w) == std::vector<float>{0, 2, 0, 1});
  // The values alias the destination: they are read before anything is written.
  Tensor self = arange(4, kFloat);
  self.index_put_({tensor({1, 2, 3, 0})}, self);
  CHECK(values(self) == std::vector<float>{3, 0, 1, 2});
}

TEST_CASE("bad indices raise PyTorch's errors", "[ops][indexing]") {
  Tensor x = grid();
  CHECK_THROWS_AS(x.index({0, 0, 0}), IndexError);
  CHECK_THROWS_WITH(x.index({0, 0, 0}), "too many indices for tensor of dimension 2");
  CHECK_THROWS_WITH(x.index({5}), "index 5 is out of bounds for dimension 0 with size 3");
  CHECK_THROWS_WITH(x.index({Slice(), -5}), "index -5 is out of bounds for dimension 1 with size 4");
  // The dimension named is the indexed tensor's, not the partly selected view's (PyTorch's).
  CHECK_THROWS_WITH(x.index({0, 7}), "index 7 is out of bounds for dimension 1 with size 4");
  CHECK_THROWS_WITH(x.index({tensor({true, false})}),
                    "The shape of the mask [2] at index 0 does not match the shape of the "
                    "indexed tensor [3, 4] at index 0");
  CHECK_THROWS_AS(x.index({tensor({true, false})}), IndexError);
  CHECK_THROWS_WITH(x.index({tensor({5})}), "index 5 is out of bounds for dimension 0 with size 3");
  CHECK_THROWS_WITH(x.index({tensor({1.0})}),
                    "tensors used as indices must be long, byte or bool tensors");
  CHECK_THROWS_AS(x.index({tensor({1.0})}), IndexError);
  CHECK_THROWS_AS(Slice(0, 2, 0), ValueError);
  CHECK_THROWS_WITH(Slice(0, 2, 0), "slice step cannot be zero");
  CHECK_THROWS_WITH(x.index({Slice(2, 0, -1)}), "step must be greater than zero");
  CHECK_THROWS_WITH(x.index({"..x"}),
                    "Expected \"...\" to represent an ellipsis index, but got \"..x\"");
  CHECK_THROWS_WITH(x.index_put_({tensor({0, 1})}, ones({3})),
                    "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing "
                    "result of shape [2, 4]");
  CHECK_THROWS_WITH(x.index({tensor({0, 1}), tensor({0, 1, 2})}),
                    "The size of tensor a (2) must match the size of tensor b (3) at "
                    "non-singleton dimension 0");
}
