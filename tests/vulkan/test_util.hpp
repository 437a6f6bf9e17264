// Shared helpers of the Vulkan tests: the skip macro for machines without a Vulkan device, and
// running this test binary again in a subprocess with a different environment (to simulate a
// missing loader or driver, which the process-wide context cannot be made to forget).
#pragma once

#include <tensorplay/backends/vulkan/vulkan.hpp>
#include <tensorplay/core/device_policy.hpp>

#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

// A test that needs the device returns early, with a warning, when there is none; main()
// then reports the run as skipped (exit code 77), never as passed.
#define TP_REQUIRE_VULKAN()                                                                  \
  do {                                                                                       \
    if (!::tensorplay::is_vulkan_available()) {                                              \
      WARN("SKIPPED: Vulkan not available: " << ::tensorplay::vulkan::unavailable_reason()); \
      return;                                                                                \
    }                                                                                        \
  } while (false)

namespace tp_vk_test {

struct ChildResult {
  int exit_code = -1;  // -1 when the child did not exit normally
  std::string output;  // stdout and stderr
};

// Runs `<this binary> <test_spec>` with `env_assignments` ("NAME=value", or "NAME=" to unset)
// added to the environment; returns its exit code and output.
inline ChildResult run_self(const std::string& test_spec,
                            const std::vector<std::string>& env_assignments) {
  std::array<char, 4096> self{};
  const ssize_t n = ::readlink("/proc/self/exe", self.data(), self.size() - 1);
  REQUIRE(n > 0);
  std::string unset, set;  // env wants its -u options before the assignments
  for (const std::string& a : env_assignments) {
    if (a.back() == '=') {
      unset += " -u " + a.substr(0, a.size() - 1);
    } else {
      set += " '" + a + "'";
    }
  }
  std::string cmd = "env" + unset + set;
  cmd +=
      " '" + std::string(self.data(), static_cast<std::size_t>(n)) + "' '" + test_spec + "' 2>&1";
  ChildResult r;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  REQUIRE(pipe != nullptr);
  std::array<char, 4096> buf{};
  std::size_t got = 0;
  while ((got = std::fread(buf.data(), 1, buf.size(), pipe)) > 0) r.output.append(buf.data(), got);
  const int status = ::pclose(pipe);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

inline std::mt19937_64& rng() {
  static thread_local std::mt19937_64 gen(0x7e45021a9ULL);
  return gen;
}

inline std::vector<std::uint8_t> random_bytes(std::size_t n, std::mt19937_64& gen = rng()) {
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(gen());
  return v;
}

}  // namespace tp_vk_test
