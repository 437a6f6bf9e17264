// TensorPlay configuration: the version and every compile-time knob.
//
// Each knob is an overridable default (xtensor's config style): define the macro before the
// first TensorPlay include, or on the command line, to change it. Every translation unit of one
// program must agree on them; the CMake targets carry the feature macros for that reason.
#pragma once

// CMake reads the version from these three lines.
#define TENSORPLAY_VERSION_MAJOR 0
#define TENSORPLAY_VERSION_MINOR 1
#define TENSORPLAY_VERSION_PATCH 0

#define TENSORPLAY_VERSION \
  (TENSORPLAY_VERSION_MAJOR * 10000 + TENSORPLAY_VERSION_MINOR * 100 + TENSORPLAY_VERSION_PATCH)

// ---- Feature macros (opt-in backends). Off unless defined to 1. ---------------------------
#ifndef TENSORPLAY_USE_CUDA
#define TENSORPLAY_USE_CUDA 0
#endif
#ifndef TENSORPLAY_USE_VULKAN
#define TENSORPLAY_USE_VULKAN 0
#endif
#ifndef TENSORPLAY_USE_BLAS
#define TENSORPLAY_USE_BLAS 0
#endif
// zlib's deflate for compressed zip members (serialize/zip.hpp: .npz of np.savez_compressed);
// stored members, torch.save's archives and safetensors need nothing.
#ifndef TENSORPLAY_USE_ZLIB
#define TENSORPLAY_USE_ZLIB 0
#endif

// ---- Separately compiled mode -----------------------------------------------------------
// 1: the public templates are instantiated once in the tensorplay::compiled static library
// (src/) and only declared in every other translation unit (compiled/extern_templates.hpp).
// Link tensorplay::compiled, which sets it, rather than defining it by hand.
#ifndef TENSORPLAY_SEPARATE_COMPILATION
#define TENSORPLAY_SEPARATE_COMPILATION 0
#endif

// ---- CPU caching allocator ---------------------------------------------------------------
// Alignment of every CPU data pointer, and the size of the block header in front of it.
#ifndef TENSORPLAY_CPU_ALIGNMENT
#define TENSORPLAY_CPU_ALIGNMENT 64
#endif
// Bytes one thread may keep in its private free lists before blocks spill to the shared pool.
#ifndef TENSORPLAY_CPU_THREAD_CACHE_BYTES
#define TENSORPLAY_CPU_THREAD_CACHE_BYTES (std::size_t{256} << 20)
#endif
// Default cap on the bytes kept in the shared pool (changeable at run time with
// CachingAllocator::set_max_cached_bytes). Blocks freed beyond it go back to the system.
#ifndef TENSORPLAY_CPU_MAX_CACHED_BYTES
#define TENSORPLAY_CPU_MAX_CACHED_BYTES (std::size_t{1} << 30)
#endif

// ---- Tensor metadata ---------------------------------------------------------------------
// Ranks up to this are stored inline in SizesAndStrides (no heap allocation).
#ifndef TENSORPLAY_INLINE_RANK
#define TENSORPLAY_INLINE_RANK 5
#endif

// ---- Debug checks ------------------------------------------------------------------------
// intrusive_ptr::reclaim / unsafe_reclaim_from_nonowning verify that the pointer is owned
// (catches reclaiming a stack object). On unless NDEBUG, like assert.
#ifndef TENSORPLAY_INTRUSIVE_PTR_DEBUG_CHECKS
#ifdef NDEBUG
#define TENSORPLAY_INTRUSIVE_PTR_DEBUG_CHECKS 0
#else
#define TENSORPLAY_INTRUSIVE_PTR_DEBUG_CHECKS 1
#endif
#endif

// ---- Small-object pool -------------------------------------------------------------------
// TensorImpl, StorageImpl and VersionCounter objects freed by a thread are kept (up to this many
// of each class per thread) for its next tensor; 0 sends them straight back to operator delete.
#ifndef TENSORPLAY_OBJECT_POOL_SIZE
#define TENSORPLAY_OBJECT_POOL_SIZE 256
#endif

// ---- Intra-op parallelism ----------------------------------------------------------------
// Elements below which an op stays on one thread (PyTorch's at::internal::GRAIN_SIZE): a loop
// over fewer costs less than waking a worker. Ops pass it as parallel_for's grain_size, and no
// chunk but the last is then smaller.
#ifndef TENSORPLAY_GRAIN_SIZE
#define TENSORPLAY_GRAIN_SIZE 32768
#endif

// ---- Run-time CPU dispatch (ops/cpu_capability.hpp) --------------------------------------
// 1: the hot loops are compiled for every x86-64 level from the build's -march up to AVX-512
// and the best one the CPU runs is picked at run time (TENSORPLAY_CPU_CAPABILITY overrides it).
// 0: one variant, for the build's -march. Only x86-64 with GCC or Clang has variants. Default
// 1 with GCC only: Clang's [[gnu::flatten]] inlines just the calls written in the function
// itself, not their callees (llvm-project issue 60689, changed in 2026 by PRs 174899 and
// 188615), so a variant's loops stay at the build's own ISA and the variants would cost
// compile time for nothing; define it to 1 with a Clang whose flatten recurses.
#ifndef TENSORPLAY_CPU_DISPATCH
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TENSORPLAY_CPU_DISPATCH 1
#else
#define TENSORPLAY_CPU_DISPATCH 0
#endif
#endif
