// resize_ / resize_as_ (libtorch's) and the engine's operand limit: the checks that guard them.
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <vector>

using namespace tensorplay;

namespace {
using S = std::vector<int64_t>;
S vec(IntArrayRef r) { return S(r.begin(), r.end()); }
}  // namespace

TEST_CASE("resize_: contiguous geometry, storage grows and never shrinks", "[ops][resize]") {
  Tensor t = arange(6, kFloat);
  const void* before = t.data_ptr();
  t.resize_({2, 3});
  CHECK(vec(t.sizes()) == S{2, 3});
  CHECK(vec(t.strides()) == S{3, 1});
  CHECK(t.data_ptr() == before);  // same bytes: nothing to grow
  CHECK(t[1][2].item<float>() == 5);
  t.resize_({2});  // shrinking keeps the storage and the leading elements
  CHECK(t.storage().nbytes() == 6 * sizeof(float));
  CHECK(t[1].item<float>() == 1);
  t.resize_({4, 5});
  CHECK(t.storage().nbytes() == 20 * sizeof(float));
  CHECK(t.view({-1})[5].item<float>() == 5);  // old elements kept when growing
  t.resize_({0});
  CHECK(t.numel() == 0);
}

TEST_CASE("resize_: views keep their offset, channels-last and resize_as_", "[ops][resize]") {
  Tensor base = zeros({10});
  Tensor v = base.slice(0, 4, 6);
  v.resize_({3});
  CHECK(v.storage_offset() == 4);
  CHECK(vec(v.sizes()) == S{3});
  Tensor c = empty({0});
  c.resize_({2, 3, 4, 5}, MemoryFormat::ChannelsLast);
  CHECK(c.is_contiguous(MemoryFormat::ChannelsLast));
  Tensor d = empty({1});
  d.resize_as_(ones({3, 2}));
  CHECK(vec(d.sizes()) == S{3, 2});
}

TEST_CASE("resize_: bad input is refused", "[ops][resize]") {
  Tensor t = empty({2});
  CHECK_THROWS_WITH(t.resize_({2, -1}),
                    "Trying to create tensor with negative dimension -1: [2, -1]");
  CHECK_THROWS_WITH(t.resize_({2}, MemoryFormat::Preserve), "Unsupported memory format Preserve");
  CHECK_THROWS_WITH(t.resize_({2, 3}, MemoryFormat::ChannelsLast),
                    "required rank 4 tensor to use channels_last format");
  float buf[4] = {};
  Tensor wrapped = from_blob(buf, {4});
  wrapped.resize_({2, 2});  // fits: allowed
  CHECK_THROWS_WITH(wrapped.resize_({5}), "Trying to resize storage that is not resizable");
  CHECK_THROWS_WITH(Tensor().resize_({2}), "resize_() called on an undefined Tensor");
}

TEST_CASE("TensorIterator takes at most kMaxOperands operands", "[ops][tensor_iterator]") {
  TensorIteratorConfig config;
  config.add_output(Tensor());
  for (int i = 1; i < kMaxOperands; ++i) config.add_input(ones({2}));
  CHECK_THROWS_WITH(config.add_input(ones({2})), "TensorIterator: at most 8 operands");
}
