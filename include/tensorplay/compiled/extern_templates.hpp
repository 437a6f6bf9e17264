// Separately compiled mode (TENSORPLAY_SEPARATE_COMPILATION=1, the tensorplay::compiled CMake
// target): the public templates listed in instantiations.inc are instantiated once, in the
// static library built from src/, and every other translation unit only declares them, so it
// compiles no engine, kernel, autograd formula or printing code of its own (the model is Asio's
// ASIO_SEPARATE_COMPILATION and spdlog's SPDLOG_COMPILED_LIB). Behaviour is identical: the same
// definitions run, compiled once instead of in every file.
//
// Included by the umbrella header last. The list comes from cmake/tensorplay_instantiations.py,
// which reads it from the headers (every public deferred template), and CTest checks it is
// current.
#pragma once

#include <tensorplay/tensorplay.hpp>

#if TENSORPLAY_SEPARATE_COMPILATION
// The allocator table and every device check must be the same in all translation units of a
// program, so the library and the files that link it must agree on the backends compiled in:
// the library defines the symbol named after its own configuration (src/instantiate_0.cpp), and
// every file of the separately compiled mode refers to the one named after its own, so a file
// built with another backend set than the library fails to link, naming the mismatch.
#if TENSORPLAY_USE_VULKAN
extern "C" const int tensorplay_compiled_library_was_built_with_vulkan;
#define TENSORPLAY_COMPILED_VULKAN_ tensorplay_compiled_library_was_built_with_vulkan
#else
extern "C" const int tensorplay_compiled_library_was_built_without_vulkan;
#define TENSORPLAY_COMPILED_VULKAN_ tensorplay_compiled_library_was_built_without_vulkan
#endif
#if TENSORPLAY_USE_CUDA
extern "C" const int tensorplay_compiled_library_was_built_with_cuda;
#define TENSORPLAY_COMPILED_CUDA_ tensorplay_compiled_library_was_built_with_cuda
#else
extern "C" const int tensorplay_compiled_library_was_built_without_cuda;
#define TENSORPLAY_COMPILED_CUDA_ tensorplay_compiled_library_was_built_without_cuda
#endif
namespace {
[[gnu::used]] const int* const tensorplay_compiled_config_check_[] = {
    &TENSORPLAY_COMPILED_VULKAN_, &TENSORPLAY_COMPILED_CUDA_};
}  // namespace
#undef TENSORPLAY_COMPILED_VULKAN_
#undef TENSORPLAY_COMPILED_CUDA_

#define TENSORPLAY_INSTANTIATE(group, ns, ...) \
  namespace ns {                                \
  extern template __VA_ARGS__;                  \
  }
#ifdef TENSORPLAY_DECLARATIONS_ONLY_
#define TENSORPLAY_INSTANTIATE_INTERNAL(group, ns, ...)
#else
#define TENSORPLAY_INSTANTIATE_INTERNAL TENSORPLAY_INSTANTIATE
#endif
#include <tensorplay/compiled/instantiations.inc>
#undef TENSORPLAY_INSTANTIATE
#undef TENSORPLAY_INSTANTIATE_INTERNAL
#if TENSORPLAY_USE_VULKAN
namespace tensorplay {
#define TENSORPLAY_VULKAN_KERNEL_(...) extern template __VA_ARGS__;
TENSORPLAY_VULKAN_KERNELS_(TENSORPLAY_VULKAN_KERNEL_)
#undef TENSORPLAY_VULKAN_KERNEL_
}  // namespace tensorplay
#endif
#if TENSORPLAY_USE_CUDA
namespace tensorplay {
#define TENSORPLAY_CUDA_KERNEL_(...) extern template __VA_ARGS__;
TENSORPLAY_CUDA_KERNELS_(TENSORPLAY_CUDA_KERNEL_)
#undef TENSORPLAY_CUDA_KERNEL_
}  // namespace tensorplay
#endif
#endif
