// resize_ / resize_as_ (libtorch's) and the engine's operand limit: the checks that guard them.
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <vector>

namespace ops_resize_test {

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

// kHuge's product overflows int64; kBig's numel (2^61) fits but its float64 bytes do not.
namespace {
constexpr int64_t k29 = int64_t{1} << 29, k32 = int64_t{1} << 32;
const S kBig{2, 4, k29, k29};
const S kHuge{k32, k32};
const char* const kBigMsg =
    "Storage size calculation overflowed with sizes=[2, 4, 536870912, 536870912]";
const char* const kNumelMsg = "numel: integer multiplication overflow";
}  // namespace

TEST_CASE("resize_: element and byte counts beyond int64 are refused, the tensor untouched",
          "[ops][resize]") {
  // PyTorch sets the sizes before it finds the overflow, leaving a tensor that claims 2^61
  // elements over 8 bytes; here the tensor keeps its geometry.
  Tensor t = empty({1}, kDouble);
  CHECK_THROWS_MATCHES(t.resize_(kHuge), Error, Catch::Message(kNumelMsg));
  CHECK_THROWS_MATCHES(t.resize_(kBig), Error, Catch::Message(kBigMsg));
  CHECK_THROWS_MATCHES(t.resize_(kBig, MemoryFormat::ChannelsLast), Error, Catch::Message(kBigMsg));
  CHECK_THROWS_MATCHES(t.resize_({int64_t{1} << 16, int64_t{1} << 16, int64_t{1} << 16, 1 << 16},
                                 MemoryFormat::ChannelsLast),
                       Error, Catch::Message(kNumelMsg));
  CHECK(vec(t.sizes()) == S{1});
  CHECK(t.storage().nbytes() == 8);
  // The sticky rule of PyTorch's numel: a 0 before the overflow is an empty tensor.
  t.resize_({0, k32, k32});
  CHECK(t.numel() == 0);
  CHECK_THROWS_MATCHES(t.resize_({k32, k32, 0}), Error, Catch::Message(kNumelMsg));

  // The storage offset counts too: numel * itemsize fits, adding the offset does not.
  Tensor bytes = zeros({4}, kByte);
  Tensor view = bytes.slice(0, 1);
  CHECK_THROWS_MATCHES(view.resize_({INT64_MAX}), Error,
                       Catch::Message("Storage size calculation overflowed with "
                                      "sizes=[9223372036854775807]"));
  CHECK(view.storage_offset() == 1);

  // resize_as_: a template of 2^61 float64 elements exists (expanded, 8 bytes of storage), but
  // no storage holds it contiguously. (A template's numel always fits: nothing makes one.)
  Tensor big = ones({1}, kDouble).expand(kBig);
  Tensor u = empty({1}, kDouble);
  CHECK_THROWS_MATCHES(u.resize_as_(big), Error, Catch::Message(kBigMsg));
  CHECK_THROWS_MATCHES(u.resize_as_(big, MemoryFormat::Preserve), Error, Catch::Message(kBigMsg));
  CHECK(vec(u.sizes()) == S{1});
}

TEST_CASE("resize_ to the same sizes keeps the strides unless a format is asked for",
          "[ops][resize]") {
  Tensor x = empty({2, 3}).t();
  x.resize_as_(x);
  CHECK(vec(x.strides()) == S{1, 3});
  x.resize_({3, 2});
  CHECK(vec(x.strides()) == S{1, 3});
  // An explicit format restrides even at the same sizes (PyTorch's empty_tensor_restride).
  x.resize_({3, 2}, MemoryFormat::Contiguous);
  CHECK(vec(x.strides()) == S{2, 1});
  Tensor y = empty({2, 3}).t();
  y.resize_as_(y, MemoryFormat::Contiguous);
  CHECK(vec(y.strides()) == S{2, 1});
  // Preserve is resize_as_'s only: the template's suggested layout.
  Tensor z = empty({2, 3}).t();
  z.resize_as_(z, MemoryFormat::Preserve);
  CHECK(vec(z.strides()) == S{2, 1});
  Tensor cl = empty({2, 3, 4, 5}, {}, MemoryFormat::ChannelsLast);
  Tensor a = empty({1});
  a.resize_as_(cl, MemoryFormat::Preserve);
  CHECK(vec(a.strides()) == S{60, 1, 15, 3});
  Tensor b = empty({1});
  b.resize_as_(cl);
  CHECK(vec(b.strides()) == S{60, 20, 5, 1});
  cl.resize_({2, 3, 4, 5});
  CHECK(vec(cl.strides()) == S{60, 1, 15, 3});
  cl.resize_({2, 3, 4, 6});
  CHECK(vec(cl.strides()) == S{72, 24, 6, 1});
  // A same-size restride that reaches more bytes grows the storage (an expanded tensor).
  Tensor e = ones({1}).expand({3});
  e.resize_({3}, MemoryFormat::Contiguous);
  CHECK(vec(e.strides()) == S{1});
  CHECK(e.storage().nbytes() == 3 * sizeof(float));
}

}  // namespace ops_resize_test
