#include <tensorplay/core/empty.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

namespace core_empty_test {

using namespace tensorplay;

TEST_CASE("empty allocates contiguous, resizable, 64-byte aligned storage", "[core][empty]") {
  Tensor t = empty({2, 3});
  CHECK(t.dtype() == kFloat);
  CHECK(t.device() == Device(kCPU));
  CHECK(t.strides() == std::vector<int64_t>{3, 1});
  CHECK(t.storage().nbytes() == 24);
  CHECK(t.storage().resizable());
  CHECK(reinterpret_cast<std::uintptr_t>(t.data_ptr()) % 64 == 0);
  float* p = t.data_ptr<float>();
  for (int i = 0; i < 6; ++i) p[i] = float(i);  // ASan checks the whole block is ours

  CHECK(empty({}).dim() == 0);  // a scalar has one element
  CHECK(empty({}).numel() == 1);
  Tensor z = empty({2, 0});
  CHECK(z.numel() == 0);
  CHECK(z.strides() == std::vector<int64_t>{1, 1});
  CHECK(z.data_ptr() == nullptr);  // zero bytes, no block (as PyTorch)

  for (DType d : {kBool, kByte, kChar, kShort, kInt, kLong, kHalf, kBFloat16, kFloat, kDouble}) {
    Tensor e = empty({5}, d);
    CHECK(e.dtype() == d);
    CHECK(e.nbytes() == 5 * itemsize(d));
  }
}

TEST_CASE("empty with a memory format", "[core][empty]") {
  Tensor cl = empty({2, 3, 4, 5}, {}, MemoryFormat::ChannelsLast);
  CHECK(cl.strides() == std::vector<int64_t>{60, 1, 15, 3});
  CHECK(cl.is_contiguous(MemoryFormat::ChannelsLast));
  Tensor cl2 = empty({2, 3, 4, 5}, memory_format(MemoryFormat::ChannelsLast));
  CHECK(cl2.strides() == cl.strides());
  CHECK_THROWS_WITH(empty({2, 3}, {}, MemoryFormat::ChannelsLast),
                    "required rank 4 tensor to use channels_last format");
  CHECK_THROWS_WITH(empty({2}, {}, MemoryFormat::Preserve),
                    "Preserve memory format is unsupported by empty");
  CHECK_THROWS_WITH(empty({2}, memory_format(MemoryFormat::Contiguous), MemoryFormat::Contiguous),
                    Catch::StartsWith("Cannot set memory_format both in TensorOptions"));
}

TEST_CASE("empty rejects bad sizes and devices that are not compiled in", "[core][empty]") {
  CHECK_THROWS_WITH(empty({-1, 2}), "Trying to create tensor with negative dimension -1: [-1, 2]");
  CHECK_THROWS_WITH(empty({int64_t{1} << 40, int64_t{1} << 40}),
                    Catch::StartsWith("Storage size calculation overflowed"));
  CHECK_THROWS_WITH(empty({2}, Device("cuda")), Catch::Contains("TENSORPLAY_USE_CUDA"));
#if !TENSORPLAY_USE_VULKAN  // (tensorplay::compiled carries the backend when it is built with it)
  CHECK_THROWS_WITH(empty({2}, kVulkan), Catch::Contains("TENSORPLAY_USE_VULKAN"));
#endif
}

TEST_CASE("empty_strided sizes its storage from the geometry", "[core][empty]") {
  Tensor t = empty_strided({2, 3}, {1, 2});
  CHECK(t.strides() == std::vector<int64_t>{1, 2});
  CHECK(t.storage().nbytes() == 6 * 4);
  CHECK_FALSE(t.is_contiguous());
  Tensor gap = empty_strided({2, 2}, {10, 1}, kDouble);
  CHECK(gap.storage().nbytes() == (1 + 10 + 1) * 8);
  CHECK(empty_strided({3, 0}, {5, 7}).storage().nbytes() == 0);
  CHECK_THROWS_WITH(empty_strided({2}, {1, 1}),
                    "mismatch in length of strides and shape: sizes [2] strides [1, 1]");
  CHECK_THROWS_WITH(empty_strided({2}, {-1}), Catch::Contains("Negative strides"));
}

TEST_CASE("from_blob wraps foreign memory without copying or freeing", "[core][from_blob]") {
  float data[6] = {1, 2, 3, 4, 5, 6};
  {
    Tensor t = from_blob(data, {2, 3});
    CHECK(t.data_ptr() == data);
    CHECK(t.strides() == std::vector<int64_t>{3, 1});
    CHECK_FALSE(t.storage().resizable());
    t.data_ptr<float>()[5] = 60.f;
  }
  CHECK(data[5] == 60.f);  // still ours, written through the tensor

  Tensor col = from_blob(data, {3}, {2}, kFloat);  // every other element
  CHECK(col.storage().nbytes() == 5 * 4);
  int64_t ints[4] = {1, 2, 3, 4};
  Tensor l = from_blob(ints, {2, 2}, kLong);
  CHECK(l.data_ptr<int64_t>()[3] == 4);
}

TEST_CASE("from_blob with a deleter runs it once, when the last alias dies",
          "[core][from_blob]") {
  int calls = 0;
  void* freed = nullptr;
  auto* heap = new float[4]{1, 2, 3, 4};
  {
    Tensor t = from_blob(heap, {4}, [&](void* p) {
      ++calls;
      freed = p;
      delete[] static_cast<float*>(p);
    });
    Tensor alias(t.unsafeGetTensorImpl()->shallow_copy_and_detach());
    t.reset();
    CHECK(calls == 0);
  }
  CHECK(calls == 1);
  CHECK(freed == heap);

  // Bad geometry is rejected before the blob is adopted: the deleter never runs.
  float stack[2];
  CHECK_THROWS(from_blob(stack, {-2}, [&](void*) { ++calls; }));
  CHECK_THROWS_WITH(from_blob(stack, {2}, {-1}, [&](void*) { ++calls; }),
                    Catch::Contains("Negative strides"));
  CHECK(calls == 1);
}

// Two cases per entry point: sizes whose product overflows int64 (kHuge), and sizes whose numel
// fits but whose float64 byte count does not (kBig: 2^61 elements, 2^64 bytes). `empty` is
// qualified where its argument is a std::vector, or ADL finds std::empty.
namespace {
constexpr int64_t k29 = int64_t{1} << 29, k32 = int64_t{1} << 32;
const std::vector<int64_t> kBig{2, 4, k29, k29};
const std::vector<int64_t> kHuge{k32, k32};
const char* const kBigMsg =
    "Storage size calculation overflowed with sizes=[2, 4, 536870912, 536870912]";
const char* const kBigStridedMsg =
    "Storage size calculation overflowed with sizes=[2, 4, 536870912, 536870912] and "
    "strides=[1152921504606846976, 288230376151711744, 536870912, 1]";
const char* const kNumelMsg = "numel: integer multiplication overflow";
}  // namespace

TEST_CASE("empty and empty_strided refuse element and byte counts beyond int64", "[core][empty]") {
  CHECK_THROWS_MATCHES(tensorplay::empty(kHuge), Error,
                       Catch::Message("Storage size calculation overflowed with "
                                      "sizes=[4294967296, 4294967296]"));
  CHECK_THROWS_MATCHES(tensorplay::empty(kBig, kDouble), Error, Catch::Message(kBigMsg));
  CHECK_THROWS_MATCHES(tensorplay::empty(kBig, {}, MemoryFormat::ChannelsLast), Error,
                       Catch::Message("Storage size calculation overflowed with "
                                      "sizes=[2, 4, 536870912, 536870912]"));
  // PyTorch's sticky rule: a 0 before the overflow makes an empty tensor, after it does not.
  CHECK(empty({0, k32, k32}).numel() == 0);
  CHECK_THROWS_MATCHES(empty({k32, k32, 0}), Error,
                       Catch::Message("Storage size calculation overflowed with "
                                      "sizes=[4294967296, 4294967296, 0]"));

  // Stride-0 dims reach one element however many they repeat: only numel can overflow.
  CHECK_THROWS_MATCHES(empty_strided(kHuge, {0, 0}), Error, Catch::Message(kNumelMsg));
  CHECK(empty_strided(kBig, {0, 0, 0, 0}, kDouble).numel() == int64_t{1} << 61);
  CHECK_THROWS_MATCHES(empty_strided(kBig, {int64_t{1} << 60, int64_t{1} << 58, k29, 1}, kDouble),
                       Error, Catch::Message(kBigStridedMsg));
}

TEST_CASE("from_blob refuses element and byte counts beyond int64", "[core][from_blob]") {
  double blob[1] = {0};
  CHECK_THROWS_MATCHES(from_blob(blob, kHuge, kDouble), Error, Catch::Message(kNumelMsg));
  CHECK_THROWS_MATCHES(from_blob(blob, kHuge, {0, 0}, kDouble), Error, Catch::Message(kNumelMsg));
  // PyTorch's from_blob multiplies unchecked here and wraps to a 0-byte storage.
  CHECK_THROWS_MATCHES(from_blob(blob, kBig, kDouble), Error, Catch::Message(kBigStridedMsg));
  CHECK(from_blob(blob, kBig, {0, 0, 0, 0}, kDouble).numel() == int64_t{1} << 61);
  // Refused before the blob is adopted: the deleter never runs.
  int calls = 0;
  CHECK_THROWS_MATCHES(from_blob(
                           blob, kHuge, [&](void*) { ++calls; }, kDouble),
                       Error, Catch::Message(kNumelMsg));
  CHECK_THROWS_MATCHES(from_blob(
                           blob, kHuge, {0, 0}, [&](void*) { ++calls; }, kDouble),
                       Error, Catch::Message(kNumelMsg));
  CHECK_THROWS_MATCHES(from_blob(
                           blob, kBig, [&](void*) { ++calls; }, kDouble),
                       Error, Catch::Message(kBigStridedMsg));
  CHECK(calls == 0);
}

}  // namespace core_empty_test
