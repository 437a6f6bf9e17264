// Device: where a tensor's bytes live. A DeviceType plus an optional index (-1 = "current").
//
// The device type is the key chosen once and used twice: getAllocator(type) picks the memory
// policy, and the same key picks the kernel.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>
#include <string_view>

#include <tensorplay/core/error.hpp>

namespace tensorplay {

enum class DeviceType : int8_t { CPU = 0, CUDA = 1, Vulkan = 2 };
inline constexpr int kNumDeviceTypes = 3;

constexpr DeviceType kCPU = DeviceType::CPU;
constexpr DeviceType kCUDA = DeviceType::CUDA;
constexpr DeviceType kVulkan = DeviceType::Vulkan;

using DeviceIndex = int8_t;

// Lower-case name as it appears in device strings ("cpu", "cuda", "vulkan").
constexpr std::string_view device_type_name(DeviceType t, bool lower_case = true) noexcept {
  switch (t) {
    case DeviceType::CPU: return lower_case ? "cpu" : "CPU";
    case DeviceType::CUDA: return lower_case ? "cuda" : "CUDA";
    case DeviceType::Vulkan: return lower_case ? "vulkan" : "VULKAN";
  }
  return "unknown";
}

inline std::ostream& operator<<(std::ostream& os, DeviceType t) {
  return os << device_type_name(t, /*lower_case=*/false);
}

class Device {
 public:
  // Implicit, as in c10: a DeviceType is usable wherever a Device is expected.
  constexpr Device(DeviceType type, DeviceIndex index = -1) : type_(type), index_(index) {
    validate();
  }

  // Parses "cpu", "cuda", "cuda:1", "vulkan", "vulkan:0" (c10's grammar and messages).
  Device(const std::string& str) : Device(parse(str)) {}
  Device(const char* str) : Device(std::string(str)) {}

  constexpr DeviceType type() const noexcept { return type_; }
  constexpr DeviceIndex index() const noexcept { return index_; }
  constexpr bool has_index() const noexcept { return index_ != -1; }
  constexpr bool is_cpu() const noexcept { return type_ == DeviceType::CPU; }
  constexpr bool is_cuda() const noexcept { return type_ == DeviceType::CUDA; }
  constexpr bool is_vulkan() const noexcept { return type_ == DeviceType::Vulkan; }
  constexpr void set_index(DeviceIndex index) {
    index_ = index;
    validate();
  }

  std::string str() const {
    std::string s(device_type_name(type_));
    if (has_index()) {
      s += ':';
      s += std::to_string(index_);
    }
    return s;
  }

  friend constexpr bool operator==(const Device&, const Device&) = default;

 private:
  constexpr void validate() const {
    TP_CHECK(index_ >= -1, "Device index must be -1 or non-negative, got ", int(index_));
    TP_CHECK(type_ != DeviceType::CPU || index_ <= 0, "CPU device index must be -1 or zero, got ",
             int(index_));
  }

  static Device parse(const std::string& str) {
    TP_CHECK(!str.empty(), "Device string must not be empty");
    const auto colon = str.find(':');
    const std::string name = str.substr(0, colon);
    DeviceType type{};
    if (name == "cpu") {
      type = DeviceType::CPU;
    } else if (name == "cuda") {
      type = DeviceType::CUDA;
    } else if (name == "vulkan") {
      type = DeviceType::Vulkan;
    } else {
      TP_ERROR("Expected one of cpu, cuda, vulkan device type at start of device string: ", str);
    }
    if (colon == std::string::npos) return Device(type);
    const std::string digits = str.substr(colon + 1);
    // Like c10: digits only, no sign, no leading zero unless it is the only digit.
    bool ok = !digits.empty() && digits.size() <= 3 && (digits.size() == 1 || digits[0] != '0');
    for (char c : digits) ok = ok && c >= '0' && c <= '9';
    TP_CHECK(ok, "Invalid device string: '", str, "'");
    const int index = std::stoi(digits);
    TP_CHECK(index <= 127, "Device index out of range: '", str, "'");
    return Device(type, static_cast<DeviceIndex>(index));
  }

  DeviceType type_;
  DeviceIndex index_ = -1;
};

inline std::ostream& operator<<(std::ostream& os, const Device& d) { return os << d.str(); }

}  // namespace tensorplay

template <>
struct std::hash<tensorplay::Device> {
  std::size_t operator()(const tensorplay::Device& d) const noexcept {
    return (static_cast<std::size_t>(static_cast<uint8_t>(d.type())) << 8) |
           static_cast<uint8_t>(d.index());
  }
};
