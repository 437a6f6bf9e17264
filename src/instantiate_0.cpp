// tensorplay::compiled, part 1 of 4: explicit instantiations of the templates that
// instantiations.inc assigns to group 0 (see include/tensorplay/compiled/extern_templates.hpp).
// The four parts build in parallel; each owns a fixed share of the list.
#include <tensorplay/tensorplay.hpp>

// The library's configuration, which every file linking it checks (compiled/extern_templates.hpp).
#if TENSORPLAY_USE_VULKAN
extern "C" const int tensorplay_compiled_library_was_built_with_vulkan = 1;
#else
extern "C" const int tensorplay_compiled_library_was_built_without_vulkan = 1;
#endif
#if TENSORPLAY_USE_CUDA
extern "C" const int tensorplay_compiled_library_was_built_with_cuda = 1;
#else
extern "C" const int tensorplay_compiled_library_was_built_without_cuda = 1;
#endif

#define TENSORPLAY_INSTANTIATE(group, ns, ...) \
  TENSORPLAY_INSTANTIATE_IN_##group(namespace ns { template __VA_ARGS__; })
#define TENSORPLAY_INSTANTIATE_IN_0(...) __VA_ARGS__
#define TENSORPLAY_INSTANTIATE_IN_1(...)
#define TENSORPLAY_INSTANTIATE_IN_2(...)
#define TENSORPLAY_INSTANTIATE_IN_3(...)
#define TENSORPLAY_INSTANTIATE_INTERNAL TENSORPLAY_INSTANTIATE
#include <tensorplay/compiled/instantiations.inc>

// The Vulkan backend's kernels (backends/vulkan/device_kernels.hpp).
#if TENSORPLAY_USE_VULKAN
namespace tensorplay {
#define TENSORPLAY_VULKAN_KERNEL_(...) template __VA_ARGS__;
TENSORPLAY_VULKAN_KERNELS_(TENSORPLAY_VULKAN_KERNEL_)
#undef TENSORPLAY_VULKAN_KERNEL_
}  // namespace tensorplay
#endif

// The CUDA backend's kernels (backends/cuda/device_kernels.hpp).
#if TENSORPLAY_USE_CUDA
namespace tensorplay {
#define TENSORPLAY_CUDA_KERNEL_(...) template __VA_ARGS__;
TENSORPLAY_CUDA_KERNELS_(TENSORPLAY_CUDA_KERNEL_)
#undef TENSORPLAY_CUDA_KERNEL_
}  // namespace tensorplay
#endif
