#include <tensorplay/core/wrap_dim.hpp>

#include <catch2/catch.hpp>

namespace core_wrap_dim_test {

using namespace tensorplay;

TEST_CASE("maybe_wrap_dim wraps negative dims and rejects others with PyTorch's message",
          "[core][wrap_dim]") {
  STATIC_REQUIRE(maybe_wrap_dim(-1, 3) == 2);
  CHECK(maybe_wrap_dim(0, 2) == 0);
  CHECK(maybe_wrap_dim(-2, 2) == 0);
  CHECK(maybe_wrap_dim(0, 0) == 0);   // a scalar acts as 1-d
  CHECK(maybe_wrap_dim(-1, 0) == 0);
  CHECK_THROWS_AS(maybe_wrap_dim(2, 2), IndexError);
  CHECK_THROWS_WITH(maybe_wrap_dim(2, 2),
                    "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  CHECK_THROWS_WITH(maybe_wrap_dim(-3, 2),
                    "Dimension out of range (expected to be in range of [-2, 1], but got -3)");
  CHECK_THROWS_WITH(maybe_wrap_dim(1, 0),
                    "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
  CHECK_THROWS_WITH(maybe_wrap_dim(0, 0, /*wrap_scalar=*/false),
                    "Dimension specified as 0 but tensor has no dimensions");
}

}  // namespace core_wrap_dim_test
