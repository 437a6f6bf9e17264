// Catch2 main of the CUDA backend's tests. CTest runs the binary three times (tests/cuda/
// CMakeLists.txt), saying in TP_CUDA_TESTS_EXPECT which machine a run is for:
//   no_device  the [no_device] tests, of a machine without a driver or a GPU; exits 77 (skipped)
//              where a device exists, since their expectations would not hold there
//   device     the [device] tests; exits 77 (skipped, never passed) where there is no device
// Without the variable (the host-only run, and by hand) every selected test runs.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <tensorplay/backends/cuda/runtime.hpp>

#include <cstdio>
#include <cstdlib>
#include <string_view>

int main(int argc, char* argv[]) {
  const char* expect = std::getenv("TP_CUDA_TESTS_EXPECT");
  const bool available = tensorplay::cuda::is_available();
  if (expect != nullptr && std::string_view(expect) == "device" && !available) {
    std::printf("SKIPPED: no CUDA device (%s): the CUDA device tests were skipped, not passed\n",
                tensorplay::cuda::unavailable_reason().c_str());
    return 77;
  }
  if (expect != nullptr && std::string_view(expect) == "no_device" && available) {
    std::printf("SKIPPED: a CUDA device is present; the no-device tests do not apply\n");
    return 77;
  }
  return Catch::Session().run(argc, argv);
}
