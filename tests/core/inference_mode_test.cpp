#include <tensorplay/core/empty.hpp>
#include <tensorplay/core/inference_mode.hpp>

#include <catch2/catch.hpp>

#include <thread>

namespace core_inference_mode_test {

using namespace tensorplay;

TEST_CASE("InferenceMode is a thread-local RAII guard", "[core][inference]") {
  CHECK_FALSE(InferenceMode::is_enabled());
  {
    InferenceMode guard;
    CHECK(InferenceMode::is_enabled());
    bool other_thread = true;
    std::thread([&] { other_thread = InferenceMode::is_enabled(); }).join();
    CHECK_FALSE(other_thread);
    {
      InferenceMode off(false);
      CHECK_FALSE(InferenceMode::is_enabled());
    }
    CHECK(InferenceMode::is_enabled());
  }
  CHECK_FALSE(InferenceMode::is_enabled());
}

TEST_CASE("tensors made in InferenceMode are inference tensors without a version counter",
          "[core][inference]") {
  Tensor normal = empty({2});
  Tensor inference;
  {
    InferenceMode guard;
    inference = empty({2});
  }
  CHECK_FALSE(normal.is_inference());
  CHECK(normal._version() == 0);
  CHECK(inference.is_inference());
  CHECK_FALSE(inference.unsafeGetTensorImpl()->version_counter().enabled());
  CHECK_THROWS_WITH(inference._version(), "Inference tensors do not track version counter.");
  inference.unsafeGetTensorImpl()->bump_version();  // disabled: nothing happens
}

}  // namespace core_inference_mode_test
