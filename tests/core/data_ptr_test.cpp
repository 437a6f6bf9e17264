#include <tensorplay/core/data_ptr.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <type_traits>

namespace core_data_ptr_test {

using namespace tensorplay;

namespace {
int deletes = 0;
std::uintptr_t last_ctx = 0;  // an address, compared only
void counting_deleter(void* ctx) {
  ++deletes;
  last_ctx = reinterpret_cast<std::uintptr_t>(ctx);
}
void other_deleter(void*) {}
}  // namespace

TEST_CASE("DataPtr owns its block and calls the deleter once", "[core][data_ptr]") {
  deletes = 0;
  int block = 0;
  {
    DataPtr p(&block, counting_deleter, Device(kCPU));
    CHECK(p.get() == &block);
    CHECK(p.get_context() == &block);  // the spec's form: ctx is the data pointer
    CHECK(p.device() == Device(kCPU));
    CHECK(static_cast<bool>(p));
    CHECK(deletes == 0);
  }
  CHECK(deletes == 1);
  CHECK(last_ctx == reinterpret_cast<std::uintptr_t>(&block));
}

TEST_CASE("DataPtr passes a separate context to the deleter", "[core][data_ptr]") {
  deletes = 0;
  int data = 0, ctx = 0;
  { DataPtr p(&data, &ctx, counting_deleter, Device("cuda:1")); CHECK(p.device().index() == 1); }
  CHECK(deletes == 1);
  CHECK(last_ctx == reinterpret_cast<std::uintptr_t>(&ctx));
}

TEST_CASE("DataPtr moves, never copies", "[core][data_ptr]") {
  STATIC_REQUIRE_FALSE(std::is_copy_constructible_v<DataPtr>);
  STATIC_REQUIRE_FALSE(std::is_copy_assignable_v<DataPtr>);
  STATIC_REQUIRE(std::is_nothrow_move_constructible_v<DataPtr>);
  deletes = 0;
  int x = 0, y = 0;
  DataPtr a(&x, counting_deleter, Device(kCPU));
  DataPtr b(std::move(a));
  CHECK(!a);
  CHECK(a.get() == nullptr);
  CHECK(b.get() == &x);
  DataPtr c(&y, counting_deleter, Device(kCPU));
  c = std::move(b);  // c's old block is released exactly once
  CHECK(deletes == 1);
  CHECK(last_ctx == reinterpret_cast<std::uintptr_t>(&y));
  CHECK(c.get() == &x);
  c = std::move(c);  // self-move keeps the block
  CHECK(c.get() == &x);
  c.clear();
  CHECK(deletes == 2);
  CHECK(!c);
  c.clear();  // idempotent
  CHECK(deletes == 2);
}

TEST_CASE("DataPtr release hands ownership to the caller", "[core][data_ptr]") {
  deletes = 0;
  int x = 0;
  void* raw = nullptr;
  {
    DataPtr p(&x, counting_deleter, Device(kCPU));
    raw = p.release();
    CHECK(!p);
  }
  CHECK(raw == &x);
  CHECK(deletes == 0);
  int ctx = 0;
  DataPtr q(&x, &ctx, counting_deleter, Device(kCPU));
  CHECK(q.release_context() == &ctx);
  CHECK(deletes == 0);
}

TEST_CASE("DataPtr over foreign memory never frees it", "[core][data_ptr]") {
  int x = 0;
  { DataPtr p(&x, Device(kCPU)); CHECK(p.get_deleter() == nullptr); }
  DataPtr empty;
  CHECK(empty == nullptr);
  CHECK(empty.device() == Device(kCPU));
}

TEST_CASE("DataPtr context casts and deleter exchange", "[core][data_ptr]") {
  deletes = 0;
  int x = 0;
  DataPtr p(&x, counting_deleter, Device(kCPU));
  CHECK(p.cast_context<int>(counting_deleter) == &x);
  CHECK(p.cast_context<int>(other_deleter) == nullptr);
  CHECK_FALSE(p.compare_exchange_deleter(other_deleter, other_deleter));
  CHECK(p.compare_exchange_deleter(counting_deleter, other_deleter));
  p.clear();
  CHECK(deletes == 0);  // the new deleter ran instead
  DataPtr a(&x, counting_deleter, Device(kCPU)), b;
  swap(a, b);
  CHECK(!a);
  CHECK(b.get() == &x);
}

}  // namespace core_data_ptr_test
