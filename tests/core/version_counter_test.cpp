#include <tensorplay/core/version_counter.hpp>

#include <catch2/catch.hpp>

namespace core_version_counter_test {

using namespace tensorplay;

TEST_CASE("VariableVersion allocates its counter eagerly so copies share it",
          "[core][version]") {
  VariableVersion base;
  CHECK(base.enabled());
  CHECK(base.current_version() == 0);
  VariableVersion view = base;  // as a view's TensorImpl does
  CHECK(view.shares_counter(base));
  base.bump();
  CHECK(view.current_version() == 1);  // writing through the base moves the view
  view.bump();
  view.bump();
  CHECK(base.current_version() == 3);
  CHECK(base.use_count() == 2);

  VariableVersion other;
  CHECK_FALSE(other.shares_counter(base));
  VariableVersion at5(5);
  CHECK(at5.current_version() == 5);
}

TEST_CASE("a disabled counter tracks nothing", "[core][version]") {
  VariableVersion off(VariableVersion::DISABLED);
  CHECK_FALSE(off.enabled());
  off.bump();  // no-op, no crash
  CHECK_THROWS_WITH(off.current_version(), "Inference tensors do not track version counter.");
  CHECK_FALSE(off.shares_counter(VariableVersion(VariableVersion::DISABLED)));
  CHECK(off.use_count() == 0);
}

}  // namespace core_version_counter_test
