// Vulkan context: the process-wide instance, physical device, logical device, compute queue and
// pipeline cache, created lazily on first use; is_vulkan_available(); validation-layer support.
//
// Creation happens once (std::call_once) on the first call to vulkan::context() from any
// thread. If it fails (no loader library, no driver, no device with a compute queue, a bad
// TENSORPLAY_VULKAN_DEVICE), the failure is recorded and every later use rethrows the same
// typed error (VulkanUnavailableError, or ValueError for a bad device index), while
// is_vulkan_available() returns false and never throws.
//
// Device choice: the first physical device with a compute queue family, or the device with
// index $TENSORPLAY_VULKAN_DEVICE in vkEnumeratePhysicalDevices' order. One queue is used: a
// compute-only family if the device has one (async compute engines on discrete GPUs), else the
// first family with compute. Command pools and descriptor pools belong to the stream
// (stream.hpp), which alone touches the queue.
//
// Validation: with TENSORPLAY_VULKAN_VALIDATION=1 the instance enables
// VK_LAYER_KHRONOS_validation (missing layer = backend unavailable, with the reason) and a
// VK_EXT_debug_utils messenger that prints every warning and error to stderr and counts them
// (validation_message_count()), so a test run can fail on any validation message.
//
// Lifetime: the context is never destroyed (like the allocator table): tensors freed during
// static destruction still find a live device, and the process exit reclaims everything.
#pragma once

#include <tensorplay/backends/vulkan/loader.hpp>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

namespace tensorplay::vulkan {

namespace detail {

// Validation messages seen so far. Thread safety: relaxed atomic (the callback may run on any
// thread, including driver threads).
inline constinit std::atomic<std::uint64_t> g_validation_messages{0};

// Whether the environment variable is set to 1 (the only value that turns a switch on).
inline bool env_flag(const char* name) {
  const char* v = std::getenv(name);
  return v != nullptr && std::strcmp(v, "1") == 0;
}

inline VKAPI_ATTR VkBool32 VKAPI_CALL debug_messenger_callback(
    VkDebugUtilsMessageSeverityFlagBitsEXT severity, VkDebugUtilsMessageTypeFlagsEXT types,
    const VkDebugUtilsMessengerCallbackDataEXT* data, void* /*user*/) {
  // The loader reports its own chatter as GENERAL; only its errors count.
  const bool error = (severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT) != 0;
  if (!error && (types & (VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                          VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT)) == 0) {
    return VK_FALSE;
  }
  g_validation_messages.fetch_add(1, std::memory_order_relaxed);
  std::fprintf(stderr, "[tensorplay vulkan validation] %s: %s\n", error ? "error" : "warning",
               data != nullptr && data->pMessage != nullptr ? data->pMessage : "(no message)");
  return VK_FALSE;  // never abort the call
}

}  // namespace detail

// The live Vulkan objects. Thread safety: immutable after construction; the VkQueue needs
// external synchronisation and is used by the stream only, under its lock.
class Context {
 public:
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  const VulkanFunctions& fn() const noexcept { return fn_; }
  VkInstance instance() const noexcept { return instance_; }
  VkPhysicalDevice physical_device() const noexcept { return physical_device_; }
  VkDevice device() const noexcept { return device_; }
  VkQueue queue() const noexcept { return queue_; }
  std::uint32_t queue_family_index() const noexcept { return queue_family_index_; }
  const VkPhysicalDeviceProperties& properties() const noexcept { return properties_; }
  const VkPhysicalDeviceMemoryProperties& memory_properties() const noexcept {
    return memory_properties_;
  }
  const VkPhysicalDeviceLimits& limits() const noexcept { return properties_.limits; }
  VkPipelineCache pipeline_cache() const noexcept { return pipeline_cache_; }
  // The index in vkEnumeratePhysicalDevices' order (what TENSORPLAY_VULKAN_DEVICE selects).
  int device_index() const noexcept { return device_index_; }
  std::string device_name() const { return properties_.deviceName; }
  // The optional shader features the device reports (and the context enables): 64-bit integer
  // and floating-point arithmetic, which the int64 and float64 kernels need.
  bool has_int64() const noexcept { return enabled_features_.shaderInt64 == VK_TRUE; }
  bool has_float64() const noexcept { return enabled_features_.shaderFloat64 == VK_TRUE; }
  bool validation_enabled() const noexcept { return messenger_ != VK_NULL_HANDLE; }

 private:
  friend Context& context();
  Context() {
    try {
      create();
    } catch (...) {
      destroy();
      throw;
    }
  }
  ~Context() = delete;  // never destroyed; see the header comment

  void create() {
    const detail::LoaderLibrary& lib = detail::loader_library();
    if (!lib.error.empty()) throw VulkanUnavailableError(lib.error);
    detail::load_global_functions(fn_, lib.get_instance_proc_addr);
    create_instance();
    detail::load_instance_functions(fn_, instance_);
    if (validation_requested_) create_messenger();
    pick_physical_device();
    create_device();
  }

  void create_instance() {
    validation_requested_ = detail::env_flag("TENSORPLAY_VULKAN_VALIDATION");
    std::vector<const char*> layers;
    std::vector<const char*> extensions;
    VkDebugUtilsMessengerCreateInfoEXT messenger_info = messenger_create_info();
    if (validation_requested_) {
      std::uint32_t n = 0;
      TP_VK_CHECK(fn_.vkEnumerateInstanceLayerProperties(&n, nullptr));
      std::vector<VkLayerProperties> available(n);
      TP_VK_CHECK(fn_.vkEnumerateInstanceLayerProperties(&n, available.data()));
      bool found = false;
      for (const auto& l : available) {
        found = found || std::strcmp(l.layerName, "VK_LAYER_KHRONOS_validation") == 0;
      }
      if (!found) {
        throw VulkanUnavailableError(
            "TENSORPLAY_VULKAN_VALIDATION=1 but the VK_LAYER_KHRONOS_validation layer is not "
            "installed (Debian: apt-get install vulkan-validationlayers)");
      }
      layers.push_back("VK_LAYER_KHRONOS_validation");
      extensions.push_back(VK_EXT_DEBUG_UTILS_EXTENSION_NAME);
    }
    VkApplicationInfo app{};
    app.sType = VK_STRUCTURE_TYPE_APPLICATION_INFO;
    app.pApplicationName = "tensorplay";
    app.pEngineName = "tensorplay";
    app.engineVersion = VK_MAKE_API_VERSION(0, TENSORPLAY_VERSION_MAJOR, TENSORPLAY_VERSION_MINOR,
                                            TENSORPLAY_VERSION_PATCH);
    app.apiVersion = VK_API_VERSION_1_1;
    VkInstanceCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO;
    // Chained here too, so vkCreateInstance/vkDestroyInstance themselves are validated.
    info.pNext = validation_requested_ ? &messenger_info : nullptr;
    info.pApplicationInfo = &app;
    info.enabledLayerCount = static_cast<std::uint32_t>(layers.size());
    info.ppEnabledLayerNames = layers.data();
    info.enabledExtensionCount = static_cast<std::uint32_t>(extensions.size());
    info.ppEnabledExtensionNames = extensions.data();
    const VkResult r = fn_.vkCreateInstance(&info, nullptr, &instance_);
    if (r == VK_ERROR_INCOMPATIBLE_DRIVER) {
      throw VulkanUnavailableError(
          "no Vulkan device found: no installed Vulkan driver supports Vulkan 1.1 "
          "(vkCreateInstance returned VK_ERROR_INCOMPATIBLE_DRIVER)",
          r);
    }
    if (r != VK_SUCCESS) {
      throw VulkanUnavailableError(
          ::tensorplay::detail::str_cat("cannot create a Vulkan instance: vkCreateInstance "
                                        "returned ",
                                        vk_result_name(r)),
          r);
    }
  }

  static VkDebugUtilsMessengerCreateInfoEXT messenger_create_info() {
    VkDebugUtilsMessengerCreateInfoEXT info{};
    info.sType = VK_STRUCTURE_TYPE_DEBUG_UTILS_MESSENGER_CREATE_INFO_EXT;
    info.messageSeverity = VK_DEBUG_UTILS_MESSAGE_SEVERITY_WARNING_BIT_EXT |
                           VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT;
    info.messageType = VK_DEBUG_UTILS_MESSAGE_TYPE_GENERAL_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_VALIDATION_BIT_EXT |
                       VK_DEBUG_UTILS_MESSAGE_TYPE_PERFORMANCE_BIT_EXT;
    info.pfnUserCallback = &detail::debug_messenger_callback;
    return info;
  }

  void create_messenger() {
    if (fn_.vkCreateDebugUtilsMessengerEXT == nullptr) {
      throw VulkanUnavailableError(
          "TENSORPLAY_VULKAN_VALIDATION=1 but VK_EXT_debug_utils is not available");
    }
    const VkDebugUtilsMessengerCreateInfoEXT info = messenger_create_info();
    TP_VK_CHECK(fn_.vkCreateDebugUtilsMessengerEXT(instance_, &info, nullptr, &messenger_));
  }

  // The queue family to use on a device: compute-only if any, else the first with compute;
  // UINT32_MAX when the device cannot run compute shaders.
  std::uint32_t compute_queue_family(VkPhysicalDevice pd) const {
    std::uint32_t n = 0;
    fn_.vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, nullptr);
    std::vector<VkQueueFamilyProperties> families(n);
    fn_.vkGetPhysicalDeviceQueueFamilyProperties(pd, &n, families.data());
    std::uint32_t any = UINT32_MAX;
    for (std::uint32_t i = 0; i < n; ++i) {
      if (families[i].queueCount == 0 || !(families[i].queueFlags & VK_QUEUE_COMPUTE_BIT)) {
        continue;
      }
      if (!(families[i].queueFlags & VK_QUEUE_GRAPHICS_BIT)) return i;
      if (any == UINT32_MAX) any = i;
    }
    return any;
  }

  void pick_physical_device() {
    std::uint32_t n = 0;
    TP_VK_CHECK(fn_.vkEnumeratePhysicalDevices(instance_, &n, nullptr));
    std::vector<VkPhysicalDevice> devices(n);
    if (n > 0) TP_VK_CHECK(fn_.vkEnumeratePhysicalDevices(instance_, &n, devices.data()));
    devices.resize(n);
    if (devices.empty()) {
      throw VulkanUnavailableError(
          "no Vulkan device found (vkEnumeratePhysicalDevices "
          "reported none)");
    }
    if (const char* env = std::getenv("TENSORPLAY_VULKAN_DEVICE"); env != nullptr && *env) {
      char* end = nullptr;
      const long index = std::strtol(env, &end, 10);
      TP_CHECK_VALUE(*end == '\0' && index >= 0 && index < static_cast<long>(devices.size()),
                     "TENSORPLAY_VULKAN_DEVICE=", env,
                     " is not a valid Vulkan device index: ", devices.size(),
                     " device(s) found, valid indices are 0 to ", devices.size() - 1);
      const std::uint32_t family = compute_queue_family(devices[index]);
      TP_CHECK_VALUE(family != UINT32_MAX, "TENSORPLAY_VULKAN_DEVICE=", env,
                     " selects a Vulkan device without a compute queue");
      use_device(static_cast<int>(index), devices[index], family);
      return;
    }
    for (std::size_t i = 0; i < devices.size(); ++i) {
      const std::uint32_t family = compute_queue_family(devices[i]);
      if (family != UINT32_MAX) {
        use_device(static_cast<int>(i), devices[i], family);
        return;
      }
    }
    throw VulkanUnavailableError("no Vulkan device found with a compute queue (" +
                                 std::to_string(devices.size()) + " device(s) without one)");
  }

  void use_device(int index, VkPhysicalDevice pd, std::uint32_t family) {
    device_index_ = index;
    physical_device_ = pd;
    queue_family_index_ = family;
    fn_.vkGetPhysicalDeviceProperties(pd, &properties_);
    fn_.vkGetPhysicalDeviceMemoryProperties(pd, &memory_properties_);
    VkPhysicalDeviceFeatures reported{};
    fn_.vkGetPhysicalDeviceFeatures(pd, &reported);
    enabled_features_ = VkPhysicalDeviceFeatures{};
    enabled_features_.shaderInt64 = reported.shaderInt64;
    enabled_features_.shaderFloat64 = reported.shaderFloat64;
  }

  void create_device() {
    const float priority = 1.0f;
    VkDeviceQueueCreateInfo queue_info{};
    queue_info.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    queue_info.queueFamilyIndex = queue_family_index_;
    queue_info.queueCount = 1;
    queue_info.pQueuePriorities = &priority;
    VkDeviceCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
    info.queueCreateInfoCount = 1;
    info.pQueueCreateInfos = &queue_info;
    info.pEnabledFeatures = &enabled_features_;
    const VkResult r = fn_.vkCreateDevice(physical_device_, &info, nullptr, &device_);
    if (r != VK_SUCCESS) {
      device_ = VK_NULL_HANDLE;
      throw VulkanUnavailableError(::tensorplay::detail::str_cat(
                                       "cannot create a Vulkan device on '", properties_.deviceName,
                                       "': vkCreateDevice returned ", vk_result_name(r)),
                                   r);
    }
    detail::load_device_functions(fn_, device_);
    fn_.vkGetDeviceQueue(device_, queue_family_index_, 0, &queue_);
    VkPipelineCacheCreateInfo cache_info{};
    cache_info.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO;
    TP_VK_CHECK(fn_.vkCreatePipelineCache(device_, &cache_info, nullptr, &pipeline_cache_));
  }

  // Undoes a partial creation (only on failure; a working context lives forever).
  void destroy() noexcept {
    if (device_ != VK_NULL_HANDLE && fn_.vkDestroyDevice != nullptr) {
      if (pipeline_cache_ != VK_NULL_HANDLE && fn_.vkDestroyPipelineCache != nullptr) {
        fn_.vkDestroyPipelineCache(device_, pipeline_cache_, nullptr);
      }
      fn_.vkDestroyDevice(device_, nullptr);
    }
    if (instance_ != VK_NULL_HANDLE && fn_.vkDestroyInstance != nullptr) {
      if (messenger_ != VK_NULL_HANDLE && fn_.vkDestroyDebugUtilsMessengerEXT != nullptr) {
        fn_.vkDestroyDebugUtilsMessengerEXT(instance_, messenger_, nullptr);
      }
      fn_.vkDestroyInstance(instance_, nullptr);
    }
    device_ = VK_NULL_HANDLE;
    instance_ = VK_NULL_HANDLE;
    messenger_ = VK_NULL_HANDLE;
  }

  VulkanFunctions fn_;
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_device_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  std::uint32_t queue_family_index_ = 0;
  int device_index_ = -1;
  bool validation_requested_ = false;
  VkPhysicalDeviceProperties properties_{};
  VkPhysicalDeviceMemoryProperties memory_properties_{};
  VkPhysicalDeviceFeatures enabled_features_{};
  VkPipelineCache pipeline_cache_ = VK_NULL_HANDLE;
};

namespace detail {
// The outcome of the one creation attempt. Thread safety: written inside call_once, read-only
// afterwards; never destroyed.
struct ContextState {
  std::once_flag once;
  Context* context = nullptr;
  std::exception_ptr error;
  std::string reason;
};
inline ContextState& context_state() noexcept {
  static ContextState* state = new ContextState();
  return *state;
}
}  // namespace detail

// The process-wide context, created on first use; throws the creation error (the same one on
// every call) when Vulkan cannot be used here.
inline Context& context() {
  detail::ContextState& s = detail::context_state();
  std::call_once(s.once, [&s] {
    try {
      s.context = new Context();
    } catch (const std::exception& e) {
      s.error = std::current_exception();
      s.reason = e.what();
    } catch (...) {
      s.error = std::current_exception();
      s.reason = "unknown error while creating the Vulkan context";
    }
  });
  if (s.context == nullptr) std::rethrow_exception(s.error);
  return *s.context;
}

// Why Vulkan is unavailable ("" when it is available). Creates the context if needed.
inline std::string unavailable_reason() {
  try {
    context();
    return {};
  } catch (...) {
    return detail::context_state().reason;
  }
}

// Warnings and errors reported by the validation layer (or the loader) so far; always 0 when
// TENSORPLAY_VULKAN_VALIDATION is not set.
inline std::uint64_t validation_message_count() noexcept {
  return detail::g_validation_messages.load(std::memory_order_relaxed);
}

}  // namespace tensorplay::vulkan

namespace tensorplay {

// Whether the Vulkan backend can run here (libtorch's at::is_vulkan_available()): a loader
// library, a driver and a device with a compute queue. Never throws.
inline bool is_vulkan_available() noexcept {
  try {
    vulkan::context();
    return true;
  } catch (...) {
    return false;
  }
}

}  // namespace tensorplay
