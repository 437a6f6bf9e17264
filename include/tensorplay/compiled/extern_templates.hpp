// Separately compiled mode (TENSORPLAY_SEPARATE_COMPILATION=1, the tensorplay::compiled CMake
// target): the public templates listed in instantiations.inc are instantiated once, in the
// static library built from src/, and every other translation unit only declares them, so it
// compiles no engine, kernel, autograd formula or printing code of its own (the model is Asio's
// ASIO_SEPARATE_COMPILATION and spdlog's SPDLOG_COMPILED_LIB). Behaviour is identical: the same
// definitions run, compiled once instead of in every file.
//
// Included by the umbrella header last, after every definition. The list comes from
// cmake/tensorplay_instantiations.py; a template it misses is still instantiated where used.
#pragma once

#include <tensorplay/tensorplay.hpp>

#if TENSORPLAY_SEPARATE_COMPILATION && TENSORPLAY_USE_VULKAN
// The library's translation units are built without the backend, and the allocator table and
// every device check must be the same in all translation units of a program.
#error "tensorplay::compiled does not include the Vulkan backend yet: build code that uses \
tensorplay::vulkan header-only (link tensorplay::vulkan, not tensorplay::compiled)"
#endif

#if TENSORPLAY_SEPARATE_COMPILATION
#define TENSORPLAY_INSTANTIATE(group, ...) extern template __VA_ARGS__;
#include <tensorplay/compiled/instantiations.inc>
#undef TENSORPLAY_INSTANTIATE
#endif
