// Vulkan backend errors: the typed exceptions the backend throws and the check macro that turns
// a failed VkResult into one.
//
//  * tensorplay::OutOfMemoryError (core/error.hpp): a device allocation failed after the caching
//    allocator freed its cache and retried.
//  * vulkan::VulkanError (derives from Error): a Vulkan call failed; result() is the VkResult.
//  * vulkan::VulkanUnavailableError (derives from VulkanError): the backend cannot start on this
//    machine (no loader, no device, a bad TENSORPLAY_VULKAN_DEVICE); what() says why.
#pragma once

#include <tensorplay/config.hpp>

#if !TENSORPLAY_USE_VULKAN
#error "tensorplay/backends/vulkan/ headers need TENSORPLAY_USE_VULKAN=1: link tensorplay::vulkan"
#endif

#include <string>
#include <utility>

#include <tensorplay/core/error.hpp>

namespace tensorplay {

namespace vulkan {

class VulkanError : public Error {
 public:
  VulkanError(std::string msg, int result) : Error(std::move(msg)), result_(result) {}
  // The VkResult of the failed call (0 = VK_SUCCESS when the failure is not a Vulkan call's).
  int result() const noexcept { return result_; }

 private:
  int result_;
};

class VulkanUnavailableError : public VulkanError {
 public:
  explicit VulkanUnavailableError(std::string msg, int result = 0)
      : VulkanError(std::move(msg), result) {}
};

// VkResult's enumerator name, for messages (int so this header needs no Vulkan header).
constexpr const char* vk_result_name(int r) noexcept {
  switch (r) {
    case 0: return "VK_SUCCESS";
    case 1: return "VK_NOT_READY";
    case 2: return "VK_TIMEOUT";
    case 5: return "VK_INCOMPLETE";
    case -1: return "VK_ERROR_OUT_OF_HOST_MEMORY";
    case -2: return "VK_ERROR_OUT_OF_DEVICE_MEMORY";
    case -3: return "VK_ERROR_INITIALIZATION_FAILED";
    case -4: return "VK_ERROR_DEVICE_LOST";
    case -5: return "VK_ERROR_MEMORY_MAP_FAILED";
    case -6: return "VK_ERROR_LAYER_NOT_PRESENT";
    case -7: return "VK_ERROR_EXTENSION_NOT_PRESENT";
    case -8: return "VK_ERROR_FEATURE_NOT_PRESENT";
    case -9: return "VK_ERROR_INCOMPATIBLE_DRIVER";
    case -10: return "VK_ERROR_TOO_MANY_OBJECTS";
    case -11: return "VK_ERROR_FORMAT_NOT_SUPPORTED";
    case -12: return "VK_ERROR_FRAGMENTED_POOL";
    case -13: return "VK_ERROR_UNKNOWN";
    case -1000069000: return "VK_ERROR_OUT_OF_POOL_MEMORY";
    case -1000072003: return "VK_ERROR_INVALID_EXTERNAL_HANDLE";
    case -1000161000: return "VK_ERROR_FRAGMENTATION";
  }
  return "VkResult(?)";
}

namespace detail {
[[noreturn]] __attribute__((noinline, cold)) inline void throw_vk_error(int result,
                                                                        const char* call) {
  // Running out of memory inside the driver is still out of memory for the caller.
  const std::string msg = ::tensorplay::detail::str_cat("Vulkan: ", call, " failed with ",
                                                        vk_result_name(result), " (", result, ")");
  if (result == -1 || result == -2) throw OutOfMemoryError(msg);
  throw VulkanError(msg, result);
}
}  // namespace detail

}  // namespace vulkan
}  // namespace tensorplay

// TP_VK_CHECK(vkCall(...)): throws vulkan::VulkanError (OutOfMemoryError for the two
// out-of-memory results) naming the call when it does not return VK_SUCCESS.
#define TP_VK_CHECK(call)                                                 \
  do {                                                                    \
    const int tp_vk_result_ = static_cast<int>(call);                     \
    if (__builtin_expect(tp_vk_result_ != 0, 0)) {                        \
      ::tensorplay::vulkan::detail::throw_vk_error(tp_vk_result_, #call); \
    }                                                                     \
  } while (false)
