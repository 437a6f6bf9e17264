#include <tensorplay/core/array_ref.hpp>

#include <array>
#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <catch2/catch.hpp>

namespace core_array_ref_test {

using tensorplay::ArrayRef;
using tensorplay::IntArrayRef;

namespace {

// Stands in for a libtorch-style factory taking `IntArrayRef size`: the braced list at the call
// site lives until the call returns.
int64_t product(IntArrayRef sizes) {
  int64_t p = 1;
  for (int64_t s : sizes) p *= s;
  return p;
}

std::string str(IntArrayRef r) {
  std::ostringstream os;
  os << r;
  return os.str();
}

}  // namespace

TEST_CASE("ArrayRef: empty by default", "[core][array_ref]") {
  IntArrayRef r;
  CHECK(r.empty());
  CHECK(r.size() == 0);
  CHECK(r.data() == nullptr);
  CHECK(r.begin() == r.end());
  CHECK(r.vec().empty());
}

TEST_CASE("ArrayRef: constructors", "[core][array_ref]") {
  SECTION("pointer and length, begin and end") {
    const int64_t raw[] = {4, 5, 6};
    IntArrayRef a(raw, 3);
    IntArrayRef b(raw + 1, raw + 3);
    CHECK(a.size() == 3);
    CHECK(a.data() == raw);
    CHECK(b.size() == 2);
    CHECK(b[0] == 5);
    CHECK(b[1] == 6);
  }
  SECTION("std::vector views without copying") {
    std::vector<int64_t> v{2, 3, 4};
    IntArrayRef r = v;
    CHECK(r.data() == v.data());
    CHECK(r.size() == 3);
    v[1] = 30;  // a view, not a copy
    CHECK(r[1] == 30);
  }
  SECTION("std::array and C arrays") {
    std::array<int64_t, 2> a{7, 8};
    int64_t c[4] = {1, 2, 3, 4};
    IntArrayRef ra = a;
    IntArrayRef rc = c;
    CHECK(ra.size() == 2);
    CHECK(ra.data() == a.data());
    CHECK(rc.size() == 4);
    CHECK(rc.data() == c);
  }
  SECTION("a single element") {
    int64_t x = 42;
    IntArrayRef r = x;
    CHECK(r.size() == 1);
    CHECK(r.data() == &x);
    CHECK(r[0] == 42);
  }
  SECTION("initializer lists at a call site, as in empty({2, 3})") {
    CHECK(product({2, 3}) == 6);
    CHECK(product({2, 3, 4}) == 24);
    CHECK(product({}) == 1);
    CHECK(product(5) == 5);
  }
  SECTION("an empty initializer list has a null data pointer") {
    std::initializer_list<int64_t> il{};
    IntArrayRef r = il;
    CHECK(r.empty());
    CHECK(r.data() == nullptr);
  }
  SECTION("other element types") {
    std::vector<double> v{1.5, 2.5};
    ArrayRef<double> r = v;
    CHECK(r.back() == 2.5);
    STATIC_REQUIRE_FALSE(std::is_constructible_v<ArrayRef<bool>, const std::vector<bool>&>);
  }
  SECTION("assignment from a temporary element or list is refused") {
    STATIC_REQUIRE_FALSE(std::is_assignable_v<IntArrayRef&, int64_t&&>);
    STATIC_REQUIRE_FALSE(std::is_assignable_v<IntArrayRef&, std::initializer_list<int64_t>>);
    STATIC_REQUIRE(std::is_assignable_v<IntArrayRef&, IntArrayRef>);
    STATIC_REQUIRE(std::is_trivially_copyable_v<IntArrayRef>);
  }
}

TEST_CASE("ArrayRef: element access", "[core][array_ref]") {
  std::vector<int64_t> v{2, 3, 4};
  IntArrayRef r = v;
  CHECK(r[0] == 2);
  CHECK(r.at(2) == 4);
  CHECK(r.front() == 2);
  CHECK(r.back() == 4);
  CHECK(std::vector<int64_t>(r.rbegin(), r.rend()) == std::vector<int64_t>{4, 3, 2});
  CHECK(r.cend() - r.cbegin() == 3);

  int64_t sum = 0;
  for (int64_t x : r) sum += x;
  CHECK(sum == 9);
}

TEST_CASE("ArrayRef: errors", "[core][array_ref]") {
  std::vector<int64_t> v{2, 3};
  IntArrayRef r = v;
  CHECK_THROWS_AS(r.at(2), tensorplay::IndexError);
  CHECK_THROWS_WITH(r.at(2), "ArrayRef: invalid index Index = 2; Length = 2");
  CHECK_THROWS_AS(r.at(static_cast<std::size_t>(-1)), tensorplay::IndexError);

  IntArrayRef e;
  CHECK_THROWS_AS(e.front(), tensorplay::IndexError);
  CHECK_THROWS_AS(e.back(), tensorplay::IndexError);
  CHECK_THROWS_AS(e.at(0), tensorplay::IndexError);

  CHECK_THROWS_AS(r.slice(1, 2), tensorplay::IndexError);
  CHECK_THROWS_AS(r.slice(3), tensorplay::IndexError);
  CHECK_THROWS_WITH(r.slice(1, 2), "ArrayRef: invalid slice, N = 1; M = 2; size = 2");
  // n + m would wrap around to 1 here; the check must not be fooled.
  CHECK_THROWS_AS(r.slice(2, static_cast<std::size_t>(-1)), tensorplay::IndexError);
  // Every error is also a tensorplay::Error.
  CHECK_THROWS_AS(r.at(5), tensorplay::Error);
}

TEST_CASE("ArrayRef: slice", "[core][array_ref]") {
  std::vector<int64_t> v{1, 2, 3, 4, 5};
  IntArrayRef r = v;
  CHECK(r.slice(1, 3) == std::vector<int64_t>{2, 3, 4});
  CHECK(r.slice(2) == std::vector<int64_t>{3, 4, 5});
  CHECK(r.slice(5).empty());
  CHECK(r.slice(0, 0).empty());
  CHECK(r.slice(0) == r);
  CHECK(r.slice(1, 3).data() == v.data() + 1);
}

TEST_CASE("ArrayRef: comparison and vec", "[core][array_ref]") {
  std::vector<int64_t> v{2, 3};
  const int64_t c[] = {2, 3};
  IntArrayRef a = v;
  IntArrayRef b = c;
  CHECK(a == b);
  CHECK_FALSE(a != b);
  CHECK(a.equals(b));
  CHECK(a == std::vector<int64_t>{2, 3});
  CHECK(std::vector<int64_t>{2, 3} == a);
  CHECK(a != std::vector<int64_t>{2, 4});
  CHECK(std::vector<int64_t>{2} != a);
  CHECK(a != IntArrayRef{});
  CHECK(IntArrayRef{} == IntArrayRef{});
  CHECK(IntArrayRef{} == std::vector<int64_t>{});

  std::vector<int64_t> copy = a.vec();
  CHECK(copy == v);
  CHECK(copy.data() != v.data());
}

TEST_CASE("ArrayRef: printing like c10", "[core][array_ref]") {
  CHECK(str({2, 3}) == "[2, 3]");
  CHECK(str({}) == "[]");
  CHECK(str(7) == "[7]");
  CHECK(str({-1, 0, 5}) == "[-1, 0, 5]");
}

}  // namespace core_array_ref_test
