// Device: construction, parsing and printing, equality, hashing, and every error message.
#include <tensorplay/core/device.hpp>

#include <catch2/catch.hpp>

#include <functional>
#include <sstream>
#include <string>
#include <type_traits>
#include <unordered_set>
#include <vector>

namespace core_device_test {

using namespace tensorplay;

namespace {

std::string printed(const Device& d) {
  std::ostringstream os;
  os << d;
  return os.str();
}

std::string printed(DeviceType t) {
  std::ostringstream os;
  os << t;
  return os.str();
}

}  // namespace

TEST_CASE("Device from type and index", "[core][device]") {
  const Device cpu(kCPU);
  CHECK(cpu.type() == DeviceType::CPU);
  CHECK(cpu.index() == -1);
  CHECK_FALSE(cpu.has_index());
  CHECK(cpu.is_cpu());
  CHECK_FALSE(cpu.is_cuda());
  CHECK_FALSE(cpu.is_vulkan());
  CHECK(cpu.str() == "cpu");

  const Device cpu0(kCPU, 0);
  CHECK(cpu0.has_index());
  CHECK(cpu0.str() == "cpu:0");

  const Device cuda1(kCUDA, 1);
  CHECK(cuda1.is_cuda());
  CHECK(cuda1.index() == 1);
  CHECK(cuda1.str() == "cuda:1");

  const Device vk(kVulkan);
  CHECK(vk.is_vulkan());
  CHECK(vk.str() == "vulkan");

  CHECK(Device(kCUDA, 127).str() == "cuda:127");

  // A DeviceType converts implicitly, as in c10.
  const Device implicit = kCUDA;
  CHECK(implicit == Device(kCUDA, -1));

  Device d(kCUDA);
  d.set_index(3);
  CHECK(d.str() == "cuda:3");
  d.set_index(-1);
  CHECK(d.str() == "cuda");

  STATIC_REQUIRE(Device(kCUDA, 2).index() == 2);
  STATIC_REQUIRE(Device(kVulkan).is_vulkan());
  STATIC_REQUIRE(std::is_trivially_copyable_v<Device>);
  STATIC_REQUIRE(sizeof(Device) == 2);
}

TEST_CASE("Device parses and prints round trip", "[core][device]") {
  struct Row {
    const char* str;
    DeviceType type;
    int index;
  };
  const Row rows[] = {
      {"cpu", kCPU, -1},        {"cpu:0", kCPU, 0},      {"cuda", kCUDA, -1},
      {"cuda:0", kCUDA, 0},     {"cuda:1", kCUDA, 1},    {"cuda:10", kCUDA, 10},
      {"cuda:127", kCUDA, 127}, {"vulkan", kVulkan, -1}, {"vulkan:0", kVulkan, 0},
      {"vulkan:3", kVulkan, 3},
  };
  for (const auto& r : rows) {
    INFO(r.str);
    const Device d(r.str);
    CHECK(d.type() == r.type);
    CHECK(int(d.index()) == r.index);
    CHECK(d.str() == r.str);
    CHECK(printed(d) == r.str);
    CHECK(Device(std::string(r.str)) == d);
    CHECK(Device(d.str()) == d);
  }
  // Implicit from strings, as c10 allows.
  const Device from_literal = "cuda:2";
  CHECK(from_literal == Device(kCUDA, 2));
}

TEST_CASE("DeviceType names", "[core][device]") {
  CHECK(device_type_name(kCPU) == "cpu");
  CHECK(device_type_name(kCUDA) == "cuda");
  CHECK(device_type_name(kVulkan) == "vulkan");
  CHECK(device_type_name(kCPU, false) == "CPU");
  CHECK(device_type_name(kCUDA, false) == "CUDA");
  CHECK(device_type_name(kVulkan, false) == "VULKAN");
  CHECK(device_type_name(static_cast<DeviceType>(9)) == "unknown");
  CHECK(printed(kCUDA) == "CUDA");  // c10 prints the DeviceType upper case
  CHECK(kNumDeviceTypes == 3);
}

TEST_CASE("Device equality and hashing", "[core][device]") {
  CHECK(Device("cuda:1") == Device(kCUDA, 1));
  CHECK(Device("cuda") != Device("cuda:0"));  // "current" is not device 0
  CHECK(Device("cuda:0") != Device("cuda:1"));
  CHECK(Device("cpu") != Device("cuda"));
  CHECK(Device("cuda:0") != Device("vulkan:0"));

  std::vector<Device> all;
  for (DeviceType t : {kCPU, kCUDA, kVulkan}) {
    const int max_index = t == kCPU ? 0 : 127;
    for (int i = -1; i <= max_index; ++i) all.emplace_back(t, static_cast<DeviceIndex>(i));
  }
  const std::hash<Device> h;
  std::unordered_set<std::size_t> hashes;
  for (const Device& d : all) {
    CHECK(h(d) == h(Device(d.str())));  // equal devices hash equal
    hashes.insert(h(d));
  }
  CHECK(hashes.size() == all.size());  // and every distinct device hashes differently
  std::unordered_set<Device> set(all.begin(), all.end());
  CHECK(set.size() == all.size());
  CHECK(set.count(Device("vulkan:5")) == 1);
}

TEST_CASE("Device error messages", "[core][device]") {
  const std::string expected_types =
      "Expected one of cpu, cuda, vulkan device type at start of device string: ";
  struct Row {
    const char* input;
    std::string message;
  };
  const Row rows[] = {
      {"", "Device string must not be empty"},
      {"foo", expected_types + "foo"},
      {"CUDA", expected_types + "CUDA"},
      {"cuda0", expected_types + "cuda0"},
      {" cuda", expected_types + " cuda"},
      {"foo:1", expected_types + "foo:1"},
      {"cuda:x", "Invalid device string: 'cuda:x'"},
      {"cuda:-1", "Invalid device string: 'cuda:-1'"},
      {"cuda:+1", "Invalid device string: 'cuda:+1'"},
      {"cuda:01", "Invalid device string: 'cuda:01'"},
      {"cuda:00", "Invalid device string: 'cuda:00'"},
      {"cuda:", "Invalid device string: 'cuda:'"},
      {"cuda:1:2", "Invalid device string: 'cuda:1:2'"},
      {"cuda:1 ", "Invalid device string: 'cuda:1 '"},
      {"cuda:1000", "Invalid device string: 'cuda:1000'"},
      {"cuda:128", "Device index out of range: 'cuda:128'"},
      {"cuda:999", "Device index out of range: 'cuda:999'"},
      {"cpu:1", "CPU device index must be -1 or zero, got 1"},
      {"cpu:127", "CPU device index must be -1 or zero, got 127"},
  };
  for (const auto& r : rows) {
    INFO("'" << r.input << "'");
    CHECK_THROWS_AS(Device(r.input), Error);
    CHECK_THROWS_WITH(Device(r.input), r.message);
    CHECK_THROWS_WITH(Device(std::string(r.input)), r.message);
  }

  CHECK_THROWS_AS(Device(kCUDA, -2), Error);
  CHECK_THROWS_WITH(Device(kCUDA, -2), "Device index must be -1 or non-negative, got -2");
  CHECK_THROWS_WITH(Device(kVulkan, -128), "Device index must be -1 or non-negative, got -128");
  CHECK_THROWS_WITH(Device(kCPU, 1), "CPU device index must be -1 or zero, got 1");
  CHECK_THROWS_WITH(Device(kCPU, -5), "Device index must be -1 or non-negative, got -5");
  Device d(kCUDA, 1);
  CHECK_THROWS_WITH(d.set_index(-3), "Device index must be -1 or non-negative, got -3");
  Device c(kCPU);
  CHECK_THROWS_WITH(c.set_index(2), "CPU device index must be -1 or zero, got 2");
}

}  // namespace core_device_test
