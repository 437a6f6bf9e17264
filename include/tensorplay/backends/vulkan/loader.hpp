// Vulkan loader: opens the Vulkan loader library (libvulkan.so.1) at run time with dlopen, as
// volk does, and fills a table of Vulkan entry points from it.
//
// Nothing links libvulkan: a program built with tensorplay::vulkan starts and does CPU work on
// a machine without Vulkan, and is_vulkan_available() (context.hpp) reports false there. Every
// Vulkan header is included with VK_NO_PROTOTYPES, so no TensorPlay code can call a prototype by
// accident; all calls go through VulkanFunctions, filled in three steps: the global functions
// from vkGetInstanceProcAddr(nullptr, ...), the instance functions once an instance exists, the
// device functions from vkGetDeviceProcAddr (skipping the loader's dispatch trampoline).
//
// TENSORPLAY_VULKAN_LOADER=<path> overrides the library opened (tests point it at a missing file
// to simulate a machine without Vulkan). The library is opened once per process and never
// closed: objects created from it stay valid until exit.
#pragma once

#include <tensorplay/backends/vulkan/error.hpp>

#ifndef VK_NO_PROTOTYPES
#define VK_NO_PROTOTYPES
#endif
#include <vulkan/vulkan.h>

#include <dlfcn.h>

#include <cstdlib>
#include <string>

// The entry points TensorPlay uses, by the level they are loaded at (X-macro lists).
#define TP_VK_GLOBAL_FUNCTIONS(X)           \
  X(vkCreateInstance)                       \
  X(vkEnumerateInstanceExtensionProperties) \
  X(vkEnumerateInstanceLayerProperties)

#define TP_VK_INSTANCE_FUNCTIONS(X)           \
  X(vkDestroyInstance)                        \
  X(vkEnumeratePhysicalDevices)               \
  X(vkGetPhysicalDeviceProperties)            \
  X(vkGetPhysicalDeviceQueueFamilyProperties) \
  X(vkGetPhysicalDeviceMemoryProperties)      \
  X(vkGetPhysicalDeviceFeatures)              \
  X(vkCreateDevice)                           \
  X(vkGetDeviceProcAddr)

// From VK_EXT_debug_utils: null unless validation was asked for and the extension exists.
#define TP_VK_DEBUG_UTILS_FUNCTIONS(X) \
  X(vkCreateDebugUtilsMessengerEXT)    \
  X(vkDestroyDebugUtilsMessengerEXT)

#define TP_VK_DEVICE_FUNCTIONS(X)  \
  X(vkDestroyDevice)               \
  X(vkGetDeviceQueue)              \
  X(vkQueueSubmit)                 \
  X(vkQueueWaitIdle)               \
  X(vkDeviceWaitIdle)              \
  X(vkAllocateMemory)              \
  X(vkFreeMemory)                  \
  X(vkMapMemory)                   \
  X(vkUnmapMemory)                 \
  X(vkCreateBuffer)                \
  X(vkDestroyBuffer)               \
  X(vkBindBufferMemory)            \
  X(vkGetBufferMemoryRequirements) \
  X(vkCreateFence)                 \
  X(vkDestroyFence)                \
  X(vkResetFences)                 \
  X(vkWaitForFences)               \
  X(vkGetFenceStatus)              \
  X(vkCreateCommandPool)           \
  X(vkDestroyCommandPool)          \
  X(vkAllocateCommandBuffers)      \
  X(vkFreeCommandBuffers)          \
  X(vkBeginCommandBuffer)          \
  X(vkEndCommandBuffer)            \
  X(vkResetCommandBuffer)          \
  X(vkCmdCopyBuffer)               \
  X(vkCmdFillBuffer)               \
  X(vkCmdPipelineBarrier)          \
  X(vkCmdBindPipeline)             \
  X(vkCmdBindDescriptorSets)       \
  X(vkCmdPushConstants)            \
  X(vkCmdDispatch)                 \
  X(vkCreateShaderModule)          \
  X(vkDestroyShaderModule)         \
  X(vkCreateDescriptorSetLayout)   \
  X(vkDestroyDescriptorSetLayout)  \
  X(vkCreatePipelineLayout)        \
  X(vkDestroyPipelineLayout)       \
  X(vkCreateComputePipelines)      \
  X(vkDestroyPipeline)             \
  X(vkCreatePipelineCache)         \
  X(vkDestroyPipelineCache)        \
  X(vkCreateDescriptorPool)        \
  X(vkDestroyDescriptorPool)       \
  X(vkResetDescriptorPool)         \
  X(vkAllocateDescriptorSets)      \
  X(vkUpdateDescriptorSets)

namespace tensorplay::vulkan {

// The Vulkan entry points, one member per function, named as the function.
// Thread safety: filled once during context creation, read-only afterwards.
struct VulkanFunctions {
  PFN_vkGetInstanceProcAddr vkGetInstanceProcAddr = nullptr;
#define TP_VK_DECLARE_(name) PFN_##name name = nullptr;
  TP_VK_GLOBAL_FUNCTIONS(TP_VK_DECLARE_)
  TP_VK_INSTANCE_FUNCTIONS(TP_VK_DECLARE_)
  TP_VK_DEBUG_UTILS_FUNCTIONS(TP_VK_DECLARE_)
  TP_VK_DEVICE_FUNCTIONS(TP_VK_DECLARE_)
#undef TP_VK_DECLARE_
};

namespace detail {

// The outcome of opening the loader library: the entry point, or why there is none.
struct LoaderLibrary {
  void* handle = nullptr;
  PFN_vkGetInstanceProcAddr get_instance_proc_addr = nullptr;
  std::string path;   // what was opened (or tried last)
  std::string error;  // empty on success
};

// The library path to open: $TENSORPLAY_VULKAN_LOADER, else the SONAME of the Vulkan loader.
inline std::string loader_library_path() {
  const char* env = std::getenv("TENSORPLAY_VULKAN_LOADER");
  return env != nullptr && *env != '\0' ? std::string(env) : std::string("libvulkan.so.1");
}

// Opens the loader once per process and records the outcome; never closes the library.
// Thread safety: function-local static initialisation (the first caller opens it); the record
// is read-only afterwards and never destroyed.
inline const LoaderLibrary& loader_library() {
  static const LoaderLibrary* lib = [] {
    auto* l = new LoaderLibrary();
    l->path = loader_library_path();
    l->handle = ::dlopen(l->path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (l->handle == nullptr) {
      const char* why = ::dlerror();
      l->error = "cannot open the Vulkan loader library '" + l->path +
                 "': " + (why != nullptr ? why : "dlopen failed");
      return l;
    }
    l->get_instance_proc_addr =
        reinterpret_cast<PFN_vkGetInstanceProcAddr>(::dlsym(l->handle, "vkGetInstanceProcAddr"));
    if (l->get_instance_proc_addr == nullptr) {
      l->error = "the Vulkan loader library '" + l->path +
                 "' has no vkGetInstanceProcAddr (not a Vulkan loader?)";
    }
    return l;
  }();
  return *lib;
}

// The three loading steps. A missing global or device function is an error (they are core
// Vulkan 1.0); the debug-utils functions may stay null.
inline void load_global_functions(VulkanFunctions& f, PFN_vkGetInstanceProcAddr gipa) {
  f.vkGetInstanceProcAddr = gipa;
#define TP_VK_LOAD_(name)                                             \
  f.name = reinterpret_cast<PFN_##name>(gipa(VK_NULL_HANDLE, #name)); \
  if (f.name == nullptr) throw VulkanUnavailableError("the Vulkan loader does not export " #name);
  TP_VK_GLOBAL_FUNCTIONS(TP_VK_LOAD_)
#undef TP_VK_LOAD_
}

inline void load_instance_functions(VulkanFunctions& f, VkInstance instance) {
#define TP_VK_LOAD_(name)                                                          \
  f.name = reinterpret_cast<PFN_##name>(f.vkGetInstanceProcAddr(instance, #name)); \
  if (f.name == nullptr)                                                           \
    throw VulkanUnavailableError("the Vulkan instance does not provide " #name);
  TP_VK_INSTANCE_FUNCTIONS(TP_VK_LOAD_)
#undef TP_VK_LOAD_
#define TP_VK_LOAD_OPTIONAL_(name) \
  f.name = reinterpret_cast<PFN_##name>(f.vkGetInstanceProcAddr(instance, #name));
  TP_VK_DEBUG_UTILS_FUNCTIONS(TP_VK_LOAD_OPTIONAL_)
#undef TP_VK_LOAD_OPTIONAL_
}

inline void load_device_functions(VulkanFunctions& f, VkDevice device) {
#define TP_VK_LOAD_(name)                                                           \
  f.name = reinterpret_cast<PFN_##name>(f.vkGetDeviceProcAddr(device, #name));      \
  if (f.name == nullptr) throw VulkanUnavailableError("the Vulkan device does not " \
                                                      "provide " #name);
  TP_VK_DEVICE_FUNCTIONS(TP_VK_LOAD_)
#undef TP_VK_LOAD_
}

}  // namespace detail
}  // namespace tensorplay::vulkan
