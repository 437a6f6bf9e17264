#include <tensorplay/core/storage.hpp>

#include <catch2/catch.hpp>

#include <cstring>

namespace core_storage_test {

using namespace tensorplay;

namespace {
int frees = 0;
void counting_free(void* p) {
  ++frees;
  std::free(p);
}
}  // namespace

TEST_CASE("Storage allocates from the CPU allocator and is one word", "[core][storage]") {
  STATIC_REQUIRE(sizeof(Storage) == sizeof(void*));
  Storage s(use_byte_size, 100, getCPUAllocator(), /*resizable=*/true);
  CHECK(s.defined());
  CHECK(s.nbytes() == 100);
  CHECK(s.data() != nullptr);
  CHECK(reinterpret_cast<std::uintptr_t>(s.data()) % 64 == 0);
  CHECK(s.device() == Device(kCPU));
  CHECK(s.device_type() == kCPU);
  CHECK(s.allocator() == getCPUAllocator());
  CHECK(s.resizable());
  CHECK(s.use_count() == 1);
  std::memset(s.mutable_data(), 7, 100);
}

TEST_CASE("Storage copies alias the same StorageImpl", "[core][storage]") {
  Storage a(use_byte_size, 16);
  Storage b = a;
  Storage c(use_byte_size, 16);
  CHECK(a.is_alias_of(b));
  CHECK(b.is_alias_of(a));
  CHECK_FALSE(a.is_alias_of(c));
  CHECK(a.use_count() == 2);
  CHECK_FALSE(a.unique());
  CHECK(a.data() == b.data());
  CHECK(a.unsafeGetStorageImpl() == b.unsafeGetStorageImpl());
  Storage undefined;
  CHECK_FALSE(undefined.defined());
  CHECK_FALSE(undefined.is_alias_of(Storage()));
}

TEST_CASE("resizable storage keeps its prefix; fixed storage refuses", "[core][storage]") {
  Storage s(use_byte_size, 8, getCPUAllocator(), /*resizable=*/true);
  auto* bytes = static_cast<unsigned char*>(s.mutable_data());
  for (int i = 0; i < 8; ++i) bytes[i] = static_cast<unsigned char>(i + 1);
  Storage view = s;  // an alias sees the new block
  s.resize_bytes(1000);
  CHECK(s.nbytes() == 1000);
  CHECK(view.nbytes() == 1000);
  bytes = static_cast<unsigned char*>(view.mutable_data());
  for (int i = 0; i < 8; ++i) CHECK(bytes[i] == i + 1);
  s.resize_bytes(4);
  bytes = static_cast<unsigned char*>(s.mutable_data());
  for (int i = 0; i < 4; ++i) CHECK(bytes[i] == i + 1);
  s.resize_bytes(0);
  CHECK(s.nbytes() == 0);

  Storage fixed(use_byte_size, 8, getCPUAllocator(), /*resizable=*/false);
  CHECK_THROWS_WITH(fixed.resize_bytes(16), "Trying to resize storage that is not resizable");
  CHECK_THROWS_WITH(Storage(use_byte_size, 8, DataPtr(), nullptr, /*resizable=*/true),
                    "For resizable storage, allocator must be provided");
}

TEST_CASE("Storage wraps foreign memory with or without a deleter", "[core][storage]") {
  float stack_data[4] = {1, 2, 3, 4};
  {
    Storage s = Storage::wrap_foreign(stack_data, sizeof stack_data);
    CHECK(s.data() == stack_data);
    CHECK(s.nbytes() == 16);
    CHECK_FALSE(s.resizable());
    CHECK_THROWS(s.resize_bytes(32));
  }  // nothing freed: the array is the caller's

  frees = 0;
  void* heap = std::malloc(64);
  {
    Storage s(use_byte_size, 64, DataPtr(heap, counting_free, Device(kCPU)));
    Storage t = s;
    s = Storage();
    CHECK(frees == 0);  // t still holds it
  }
  CHECK(frees == 1);
}

TEST_CASE("set_data_ptr swaps the block and returns the old one", "[core][storage]") {
  Storage s(use_byte_size, 8);
  const void* old = s.data();
  DataPtr previous = s.set_data_ptr(getCPUAllocator()->allocate(32));
  s.set_nbytes(32);
  CHECK(previous.get() == old);
  CHECK(s.data() != old);
  CHECK(s.nbytes() == 32);
}

TEST_CASE("a weakly referenced StorageImpl frees its bytes at the last strong reference",
          "[core][storage]") {
  frees = 0;
  weak_intrusive_ptr<StorageImpl> weak(intrusive_ptr<StorageImpl>{});
  {
    Storage s(use_byte_size, 64, DataPtr(std::malloc(64), counting_free, Device(kCPU)));
    weak = weak_intrusive_ptr<StorageImpl>(s.getIntrusivePtr());
    CHECK(frees == 0);
  }
  CHECK(frees == 1);  // release_resources ran although the weak pointer keeps the object
  CHECK(weak.expired());
}

}  // namespace core_storage_test
