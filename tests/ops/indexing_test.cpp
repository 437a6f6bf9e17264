#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <vector>

namespace ops_indexing_test {

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
  // Values sharing memory with the destination are refused (libtorch's assert_no_overlap).
  const char* overlap =
      "unsupported operation: some elements of the input tensor and the written-to tensor refer "
      "to a single memory location. Please clone() the tensor before performing the operation.";
  Tensor self = arange(4, kFloat);
  CHECK_THROWS_WITH(self.index_put_({tensor({1, 2, 3, 0})}, self), overlap);
  Tensor g = grid();
  CHECK_THROWS_WITH(g.index_put_({tensor({1})}, g.index({0})), overlap);
  Tensor li = arange(3, kLong);
  CHECK_THROWS_WITH(li.index_put_({li}, tensor({int64_t{5}})), overlap);  // the index too
  CHECK(values(self) == std::vector<float>{0, 1, 2, 3});
  // One value under a single mask is a masked_fill_ for libtorch: no overlap check.
  self.index_put_({tensor({false, true, true, false})}, self.index({0}));
  CHECK(values(self) == std::vector<float>{0, 0, 0, 3});
}

TEST_CASE("index_put_ takes values with extra leading 1s (libtorch's setitem)", "[ops][indexing]") {
  Tensor x = arange(2, kFloat);
  x.index_put_({Slice()}, tensor({5.f, 6.f}).view({1, 2}));
  CHECK(values(x) == std::vector<float>{5, 6});
  x.index_put_({0}, tensor({7.f}));  // x[0] is 0-d, the value [1]
  CHECK(values(x) == std::vector<float>{7, 6});
  x.index_put_({1}, tensor({8.f}).view({1, 1}));
  CHECK(values(x) == std::vector<float>{7, 8});
  Tensor g = zeros({2, 2});
  g.index_put_({0}, tensor({1.f, 2.f}).view({1, 1, 2}));
  CHECK(values(g) == std::vector<float>{1, 2, 0, 0});
  g.index_put_({tensor({0, 1})}, tensor({5.f, 6.f, 7.f, 8.f}).view({1, 1, 2, 2}));
  CHECK(values(g) == std::vector<float>{5, 6, 7, 8});
  // Only leading 1s go; the message names the shape without them.
  CHECK_THROWS_WITH(g.index_put_({tensor({0, 1})}, ones({1, 3, 2})),
                    "shape mismatch: value tensor of shape [3, 2] cannot be broadcast to indexing "
                    "result of shape [2, 2]");
  CHECK_THROWS_WITH(g.index_put_({tensor({0, 1})}, ones({2, 1, 2})),
                    "shape mismatch: value tensor of shape [2, 1, 2] cannot be broadcast to "
                    "indexing result of shape [2, 2]");
  // A value with more (non-1) dimensions than the destination fails in expand, as libtorch's.
  CHECK_THROWS_WITH(x.index_put_({0}, tensor({1.f, 2.f})),
                    "expand(tensorplay.FloatTensor{[2]}, size=[]): the number of sizes provided "
                    "(0) must be greater or equal to the number of dimensions in the tensor (1)");
  CHECK_THROWS_WITH(x.index_put_({Ellipsis}, ones({2, 2})),
                    "expand(tensorplay.FloatTensor{[2, 2]}, size=[2]): the number of sizes "
                    "provided (1) must be greater or equal to the number of dimensions in the "
                    "tensor (2)");
  // x[False] = v writes nothing and looks at nothing.
  x.index_put_({false}, ones({3, 3}));
  CHECK(values(x) == std::vector<float>{7, 8});
}

TEST_CASE("index_put_ with basic indices follows libtorch's copy_to overlap rules",
          "[ops][indexing]") {
  // t[None] = t: the value, expanded to t.unsqueeze(0), is the same view: nothing to do.
  Tensor t = arange(4, kFloat);
  t.index_put_({None}, t);
  CHECK(values(t) == std::vector<float>{0, 1, 2, 3});
  // t[-1] = t for t of shape [1, 4]: the value loses its leading 1 and is t[-1] itself.
  Tensor r = arange(4, kFloat).view({1, 4});
  r.index_put_({-1}, r);
  CHECK(values(r) == std::vector<float>{0, 1, 2, 3});
  // t[...] = t[0:1]: expanded, the value is not dense, so copied row by row (libtorch's values),
  // while t.copy_(t[0:1]) is a partial overlap that copy_ refuses.
  Tensor g = grid();
  CHECK_THROWS_WITH(g.copy_(g.narrow(0, 0, 1)),
                    "unsupported operation: some elements of the input tensor and the written-to "
                    "tensor refer to a single memory location. Please clone() the tensor before "
                    "performing the operation.");
  g.index_put_({Ellipsis}, g.narrow(0, 0, 1));
  CHECK(values(g) == std::vector<float>{0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3});
  // A 0-d value fills: it is read first, so it may be an element of the destination.
  Tensor a = arange(4, kFloat);
  a.index_put_({Slice(1, None)}, a.index({0}));
  CHECK(values(a) == std::vector<float>{0, 0, 0, 0});
  Tensor b = arange(4, kFloat);
  b.index_put_({Slice(2, None)}, b.narrow(0, 0, 2).view({1, 1, 2}));
  CHECK(values(b) == std::vector<float>{0, 1, 0, 1});
  // ...and is checked against the dtype as fill_ checks it; a 0-d slot is a copy, which wraps.
  Tensor u = arange(4, kByte);
  CHECK_THROWS_WITH(u.index_put_({Slice()}, scalar_tensor(300, kLong)),
                    "value cannot be converted to type uint8_t without overflow");
  u.index_put_({0}, scalar_tensor(300, kLong));
  CHECK(u.index({0}).item<int64_t>() == 44);
  // A shifted slice of itself is a partial overlap.
  Tensor c = arange(4, kFloat);
  CHECK_THROWS_AS(c.index_put_({Slice(1, None)}, c.narrow(0, 0, 3)), Error);
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

TEST_CASE("index_fill and index_fill_ (values from torch 1.13)", "[ops][indexing]") {
  using F = std::vector<float>;
  Tensor x = grid();
  const Tensor i = tensor({0, 2});
  CHECK(values(x.index_fill(1, i, -1)) == F{-1, 1, -1, 3, -1, 5, -1, 7, -1, 9, -1, 11});
  CHECK(values(x.index_fill(0, i, tensor(-2.f))) == F{-2, -2, -2, -2, 4, 5, 6, 7, -2, -2, -2, -2});
  CHECK(values(x.index_fill(-1, i, 1)) == F{1, 1, 1, 3, 1, 5, 1, 7, 1, 9, 1, 11});
  CHECK(values(x.index_fill(0, tensor(int64_t{1}), 1)) ==
        F{0, 1, 2, 3, 1, 1, 1, 1, 8, 9, 10, 11});                    // a 0-d index
  CHECK(values(x.index_fill(0, tensor({-1}), 1)) == F{0, 1, 2, 3, 4, 5, 6, 7, 1, 1, 1, 1});
  CHECK(values(x.index_fill(0, tensor({0, 0, 2}), 7)) == F{7, 7, 7, 7, 4, 5, 6, 7, 7, 7, 7, 7});
  CHECK(values(x.index_fill(0, tensor(std::vector<int64_t>{}), 1)) == values(x));
  CHECK(values(index_fill(x, 0, i, 7)) == values(x.index_fill(0, i, 7)));
  CHECK(values(index_fill(x, 0, i, tensor(7.f))) == values(x.index_fill(0, i, 7)));
  CHECK(values(x) == F{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});  // out of place
  // The result: self's layout (clone), version 0; the value converted to self's dtype.
  Tensor r = x.t().index_fill(0, i, 7);
  CHECK(r.strides().vec() == std::vector<int64_t>{1, 4});
  CHECK(r._version() == 0);
  CHECK(values(arange(6, kFloat).view({3, 2}).to(kLong).index_fill(0, i, 2.5).to(kFloat)) ==
        F{2, 2, 2, 3, 2, 2});
  CHECK(values(x.index_fill(0, i, tensor(int64_t{1}))) == F{1, 1, 1, 1, 4, 5, 6, 7, 1, 1, 1, 1});
  CHECK(values(x.to(kBool).index_fill(0, i, 2.5).to(kFloat)) == F(12, 1));
  // A 0-d self is indexed along dim 0 / -1 as one element.
  CHECK(tensor(5.f).index_fill(0, tensor({0}), 1).item<float>() == 1);
  CHECK(tensor(5.f).index_fill(-1, tensor(int64_t{-1}), 2).item<float>() == 2);
  // With nothing beside dim, no index is checked (nothing is iterated).
  CHECK(zeros({0, 3}).index_fill(1, tensor({7}), 1).numel() == 0);

  // In place: self changes through any layout, one version bump.
  Tensor y = grid();
  const Tensor& ry = y.index_fill_(1, i, 0);
  CHECK(&ry == &y);
  CHECK(values(y) == F{0, 1, 0, 3, 0, 5, 0, 7, 0, 9, 0, 11});
  CHECK(y._version() == 1);
  y.index_fill_(0, tensor(std::vector<int64_t>{}), 1);
  CHECK(y._version() == 2);  // bumped even with nothing written, as PyTorch
  Tensor z = zeros({2, 3});
  z.t().index_fill_(0, tensor({1}), tensor(4.f));  // column 1 through a transpose
  CHECK(values(z) == F{0, 4, 0, 0, 4, 0});
  Tensor e = zeros({3, 1});
  e.expand({3, 4}).index_fill_(0, tensor({1}), 3);  // an expanded self is allowed
  CHECK(values(e) == F{0, 3, 0});
  Tensor w = zeros({4});
  w.index_fill_(0, w.to(kLong).slice(0, 0, 1), 1);  // a different dtype: no overlap
  CHECK(values(w) == F{1, 0, 0, 0});
}

TEST_CASE("index_fill rejects bad arguments with PyTorch's errors", "[ops][indexing]") {
  Tensor x = grid();
  const Tensor i = tensor({0, 2});
  CHECK_THROWS_AS(x.index_fill(0, i.to(kFloat), 1), IndexError);
  CHECK_THROWS_WITH(x.index_fill(0, i.to(kFloat), 1),
                    "index_fill_(): Expected dtype int64 for index.");
  CHECK_THROWS_WITH(x.index_fill_(0, i.to(kInt), 1),
                    "index_fill_(): Expected dtype int64 for index.");
  CHECK_THROWS_WITH(x.index_fill(5, i.to(kFloat), 1),  // the index dtype is checked first
                    "index_fill_(): Expected dtype int64 for index.");
  CHECK_THROWS_AS(x.index_fill(2, i, 1), IndexError);
  CHECK_THROWS_WITH(x.index_fill(2, i, 1),
                    "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  CHECK_THROWS_WITH(x.index_fill(5, tensor({{0}}), 1),  // the dim before the index rank
                    "Dimension out of range (expected to be in range of [-2, 1], but got 5)");
  CHECK_THROWS_WITH(tensor(5.f).index_fill(1, tensor(int64_t{0}), 1),
                    "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
  CHECK_THROWS_WITH(x.index_fill(0, tensor({{0, 1}}), 1), "Index has to be a vector/scalar");
  CHECK_THROWS_AS(x.index_fill(0, tensor({3}), 1), IndexError);
  CHECK_THROWS_WITH(x.index_fill(0, tensor({3}), 1),
                    "index 3 is out of bounds for dimension 0 with size 3");
  CHECK_THROWS_WITH(x.index_fill(0, tensor({-4}), 1),
                    "index -4 is out of bounds for dimension 0 with size 3");
  CHECK_THROWS_WITH(tensor(5.f).index_fill(0, tensor({1}), 1),
                    "index 1 is out of bounds for dimension 0 with size 1");
  // The value's conversion is checked before the indices, even with no index.
  const Tensor bytes = x.to(kByte);
  CHECK_THROWS_WITH(bytes.index_fill(0, tensor({5}), 300),
                    "value cannot be converted to type uint8_t without overflow");
  CHECK_THROWS_WITH(bytes.index_fill(0, tensor(std::vector<int64_t>{}), tensor(int64_t{300})),
                    "value cannot be converted to type uint8_t without overflow");
  // A tensor value must be 0-d; that is checked before the index.
  const char* one_d =
      "index_fill_ only supports a 0-dimensional value tensor, but got tensor with 1 dimension(s).";
  CHECK_THROWS_WITH(x.index_fill(0, i, tensor({-2.f})), one_d);
  CHECK_THROWS_WITH(x.index_fill(0, tensor({{0}}), tensor({1.f, 2.f})), one_d);
  CHECK_THROWS_WITH(x.index_fill_(0, i, tensor({-2.f})), one_d);
  // The index may not share memory with self.
  Tensor b = zeros({4}, kLong);
  CHECK_THROWS_WITH(b.index_fill_(0, b.slice(0, 0, 2), 1),
                    "unsupported operation: some elements of the input tensor and the written-to "
                    "tensor refer to a single memory location. Please clone() the tensor before "
                    "performing the operation.");
  // A failed call writes nothing, not even the indices before a bad one.
  Tensor c = grid();
  CHECK_THROWS(c.index_fill_(0, tensor({0, 5}), 1));
  CHECK(values(c) == values(grid()));
  CHECK(c._version() == 0);
}

TEST_CASE("index_put_ with an index out of bounds writes nothing", "[ops][indexing]") {
  // libtorch checks every index before writing; the valid index 0 must not be written first.
  const Tensor t = zeros({3});
  CHECK_THROWS_AS(t.index_put_({tensor({int64_t{0}, int64_t{5}})}, 2), IndexError);
  CHECK_THROWS_WITH(t.index_put_({tensor({int64_t{0}, int64_t{5}})}, 2),
                    "index 5 is out of bounds for dimension 0 with size 3");
  CHECK(t.eq(0).all().item<bool>());
  CHECK(t._version() == 0);
  const Tensor m = zeros({2, 3});
  CHECK_THROWS_AS(m.index_put_({tensor({int64_t{1}, int64_t{0}}), tensor({int64_t{2}, int64_t{-4}})},
                               ones({2})),
                  IndexError);
  CHECK(m.eq(0).all().item<bool>());
}

}  // namespace ops_indexing_test
