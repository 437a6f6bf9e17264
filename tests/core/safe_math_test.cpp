// The checked element and byte counts every size-taking entry point goes through.
#include <tensorplay/core/safe_math.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

namespace core_safe_math_test {

using namespace tensorplay;
using namespace tensorplay::detail;

namespace {
constexpr int64_t k29 = int64_t{1} << 29, k32 = int64_t{1} << 32;
// numel 2^61 fits in int64; as float64 bytes (2^64) it does not.
const std::vector<int64_t> kBig{2, 4, k29, k29};
const std::vector<int64_t> kHuge{k32, k32};  // numel 2^64
}  // namespace

// c10's sticky rule, usable at compile time.
static_assert([] {
  uint64_t n = 0;
  const int64_t s[] = {2, 3, 4};
  return !safe_multiplies_u64(s, &n) && n == 24;
}());
static_assert([] {
  uint64_t n = 0;
  const int64_t s[] = {k32, k32, 0};
  return safe_multiplies_u64(s, &n) && n == 0;
}());
static_assert([] {
  uint64_t n = 0;
  const int64_t s[] = {0, k32, k32};
  return !safe_multiplies_u64(s, &n) && n == 0;
}());

TEST_CASE("safe_compute_numel refuses counts beyond int64", "[core][safe_math]") {
  CHECK(safe_compute_numel(kBig) == int64_t{1} << 61);
  CHECK(safe_compute_numel({}) == 1);
  CHECK(safe_compute_numel({0, k32, k32}) == 0);
  CHECK_THROWS_MATCHES(safe_compute_numel(kHuge), Error,
                       Catch::Message("numel: integer multiplication overflow"));
  // 2^63 fits in uint64 but not in int64.
  CHECK_THROWS_MATCHES(safe_compute_numel({int64_t{1} << 62, 2}), Error,
                       Catch::Message("numel: integer multiplication overflow"));
  CHECK_THROWS_MATCHES(safe_compute_numel({k32, k32, 0}), Error,
                       Catch::Message("numel: integer multiplication overflow"));
}

TEST_CASE("contiguous_nbytes: numel, offset and itemsize are all checked", "[core][safe_math]") {
  CHECK(contiguous_nbytes({2, 3}, 8) == 48);
  CHECK(contiguous_nbytes({2, 3}, 8, 2) == 64);
  CHECK(contiguous_nbytes(kBig, 1) == std::size_t{1} << 61);
  CHECK_THROWS_MATCHES(contiguous_nbytes(kHuge, 1), Error,
                       Catch::Message("Storage size calculation overflowed with sizes=[4294967296, "
                                      "4294967296]"));
  CHECK_THROWS_MATCHES(contiguous_nbytes(kBig, 8), Error,
                       Catch::Message("Storage size calculation overflowed with sizes=[2, 4, "
                                      "536870912, 536870912]"));
  // numel * itemsize fits; the offset pushes it past int64.
  const int64_t k62 = int64_t{1} << 62;
  CHECK(contiguous_nbytes({k62}, 1, k62 - 1) == (std::size_t{1} << 63) - 1);
  CHECK_THROWS_MATCHES(contiguous_nbytes({k62}, 1, k62), Error,
                       Catch::Message("Storage size calculation overflowed with "
                                      "sizes=[4611686018427387904]"));
  CHECK_THROWS_MATCHES(contiguous_nbytes({2, -1}, 1), Error,
                       Catch::Message("Trying to create tensor with negative dimension -1: "
                                      "[2, -1]"));
}

TEST_CASE("storage_nbytes: the extent of a strided geometry", "[core][safe_math]") {
  CHECK(storage_nbytes({2, 3}, {1, 2}, 4) == 24);
  CHECK(storage_nbytes({2, 3}, {1, 2}, 4, 2) == 32);
  CHECK(storage_nbytes({3, 0}, {k32 * k29, 1}, 8) == 0);  // a 0 size reaches nothing
  CHECK(storage_nbytes(kHuge, {0, 0}, 8) == 8);           // its numel is the caller's to check
  CHECK_THROWS_MATCHES(storage_nbytes(kHuge, {k32, 1}, 1), Error,
                       Catch::Message("Storage size calculation overflowed with sizes=[4294967296, "
                                      "4294967296] and strides=[4294967296, 1]"));
  CHECK_THROWS_MATCHES(
      storage_nbytes({int64_t{1} << 61}, {1}, 8), Error,
      Catch::Message("Storage size calculation overflowed with sizes=[2305843009213693952] and "
                     "strides=[1]"));
  CHECK_THROWS_MATCHES(storage_nbytes({1}, {1}, 8, int64_t{1} << 60), Error,
                       Catch::Message("Storage size calculation overflowed with sizes=[1] and "
                                      "strides=[1]"));
}

}  // namespace core_safe_math_test
