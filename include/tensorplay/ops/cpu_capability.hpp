// Run-time CPU dispatch (PyTorch's DispatchStub and ATEN_CPU_CAPABILITY): the hot loops are
// compiled once per instruction-set level and the best one the CPU runs is picked at run time,
// so a plain `-O2` build runs AVX2 or AVX-512 code on a CPU that has it.
//
//   tensorplay::get_cpu_capability()   // "DEFAULT", "AVX2" or "AVX512"
//   TENSORPLAY_CPU_CAPABILITY=avx2 ./app  // force a level (default|avx2|avx512)
//
// Levels: Default (the translation unit's own -march: SSE2 on a plain x86-64 build), AVX2
// (AVX2 + FMA + F16C, with BMI1/2, LZCNT and POPCNT, i.e. x86-64-v3) and AVX512 (AVX-512
// F/BW/VL/DQ on top of AVX2, i.e. x86-64-v4). The level is detected once, from CPUID through
// __builtin_cpu_supports (which also checks that the OS saves the AVX / AVX-512 registers).
//
// The environment variable is read once, on the first kernel call. A value is matched without
// regard to case, so "AVX2" as printed round-trips. A level above what the CPU has falls back to
// the best one it has (PyTorch would pick the faulting kernel); an unknown value is ignored with
// one warning on stderr, as PyTorch's TORCH_WARN does: it is read lazily, in the middle of
// whichever op runs first, where an exception would surface far from its cause and again on
// every op. An empty value counts as unset.
//
// Mechanism. A kernel is a class with a static member function template
// `template <CpuCapability C> static R run(A...)` holding ISA-neutral C++ (plus, where an ISA
// matters, code chosen by C: the GEMM tile). cpu_dispatch<K, R(A...)>() returns a pointer to the
// variant for the current level: a wrapper per level whose target attribute enables that ISA and
// whose `flatten` makes the compiler inline the whole generic body into it (loops, the op lambda,
// vec_math, convert<>), so the body is vectorised for that ISA. Callers choose the pointer once
// per op call and run rows through it (the row loops already go through a function pointer).
// That one helper is the only place where a level picks code, as dispatch_dtype is for dtypes.
//
// What is compiled: the levels from the translation unit's own -march up to AVX512. With
// __AVX2__ and __FMA__ defined no Default variant exists; with the AVX-512 macros, only the
// AVX-512 one. TENSORPLAY_CPU_DISPATCH=0 (and every non-x86-64 or non-GCC/Clang build) compiles
// one variant, the translation unit's own level, and reports that level; it is the default with
// Clang, whose flatten does not inline recursively (see config.hpp). As for any header-only SIMD
// code, every translation unit of a program must be built with the same -march.
#pragma once

#include <atomic>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include <tensorplay/config.hpp>

#include <type_traits>

// x86-64 with GCC or Clang: target attributes and <immintrin.h> intrinsics are available in any
// function whatever -march is (TENSORPLAY_X86_SIMD_), and variants are compiled unless the knob
// turns them off (TENSORPLAY_CPU_DISPATCH_X86_).
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define TENSORPLAY_X86_SIMD_ 1
#include <cpuid.h>
#else
#define TENSORPLAY_X86_SIMD_ 0
#endif
#if TENSORPLAY_CPU_DISPATCH && TENSORPLAY_X86_SIMD_
#define TENSORPLAY_CPU_DISPATCH_X86_ 1
#else
#define TENSORPLAY_CPU_DISPATCH_X86_ 0
#endif

namespace tensorplay {
namespace detail {

// Ordered: a level includes every level below it.
enum class CpuCapability : int { Default = 0, AVX2 = 1, AVX512 = 2 };

// The level this translation unit's own flags (-march) already guarantee.
#if defined(__AVX512F__) && defined(__AVX512BW__) && defined(__AVX512VL__) && \
    defined(__AVX512DQ__) && defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
inline constexpr CpuCapability kCpuCapabilityBaseline = CpuCapability::AVX512;
#elif defined(__AVX2__) && defined(__FMA__) && defined(__F16C__)
inline constexpr CpuCapability kCpuCapabilityBaseline = CpuCapability::AVX2;
#else
inline constexpr CpuCapability kCpuCapabilityBaseline = CpuCapability::Default;
#endif

// The levels that have compiled variants: [kCpuCapabilityMin, kCpuCapabilityMax].
inline constexpr CpuCapability kCpuCapabilityMin = kCpuCapabilityBaseline;
inline constexpr CpuCapability kCpuCapabilityMax =
    TENSORPLAY_CPU_DISPATCH_X86_ ? CpuCapability::AVX512 : kCpuCapabilityBaseline;

inline constexpr const char* cpu_capability_name(CpuCapability c) noexcept {
  switch (c) {
    case CpuCapability::Default: return "DEFAULT";
    case CpuCapability::AVX2: return "AVX2";
    case CpuCapability::AVX512: return "AVX512";
  }
  return "DEFAULT";
}

// "default", "avx2", "avx512" in any case; nothing for any other text.
inline std::optional<CpuCapability> parse_cpu_capability(std::string_view s) noexcept {
  std::string lower(s);
  for (char& ch : lower) ch = char(std::tolower(static_cast<unsigned char>(ch)));
  if (lower == "default") return CpuCapability::Default;
  if (lower == "avx2") return CpuCapability::AVX2;
  if (lower == "avx512") return CpuCapability::AVX512;
  return std::nullopt;
}

// What the CPU (and OS) support, from CPUID; Default off x86-64.
inline CpuCapability detect_cpu_capability() noexcept {
#if TENSORPLAY_X86_SIMD_
  __builtin_cpu_init();
  // F16C and LZCNT straight from CPUID: clang's __builtin_cpu_supports does not know them. F16C
  // works on the YMM state, whose OS support the "avx2" answer already includes.
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  const bool f16c = __get_cpuid(1, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 29)) != 0;
  const bool lzcnt = __get_cpuid(0x80000001u, &eax, &ebx, &ecx, &edx) && (ecx & (1u << 5)) != 0;
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") && f16c &&
                    __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") && lzcnt &&
                    __builtin_cpu_supports("popcnt");
  const bool avx512 = avx2 && __builtin_cpu_supports("avx512f") &&
                      __builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
                      __builtin_cpu_supports("avx512dq");
  if (avx512) return CpuCapability::AVX512;
  if (avx2) return CpuCapability::AVX2;
#endif
  return CpuCapability::Default;
}

// The level to run given the environment variable's value (null when unset) and what the CPU
// has: the request, lowered to what the CPU has; the CPU's best when unset, empty or unknown
// (unknown: with a warning on stderr).
inline CpuCapability choose_cpu_capability(const char* env, CpuCapability detected) noexcept {
  if (env == nullptr || *env == '\0') return detected;
  const std::optional<CpuCapability> requested = parse_cpu_capability(env);
  if (!requested) {
    std::fprintf(stderr,
                 "[W tensorplay] ignoring invalid value for TENSORPLAY_CPU_CAPABILITY: '%s' "
                 "(expected default, avx2 or avx512)\n",
                 env);
    return detected;
  }
  return *requested < detected ? *requested : detected;
}

// The run-time choice before the translation unit's limits apply; computed once (a
// function-local static: thread-safe initialisation, read-only afterwards).
inline CpuCapability runtime_cpu_capability() noexcept {
  static const CpuCapability c =
      choose_cpu_capability(std::getenv("TENSORPLAY_CPU_CAPABILITY"), detect_cpu_capability());
  return c;
}

// A test override: -1 for none, else a CpuCapability. Thread safety: an atomic, so a test may
// switch it while no op runs; ops running during a switch finish on the level they picked.
inline std::atomic<int>& cpu_capability_override() noexcept {
  static std::atomic<int> value{-1};
  return value;
}

// Runs every later op call at `c` (lowered to what the CPU supports and raised to the
// translation unit's baseline, as the environment variable is), so that one process can compare
// the variants. For tests and benchmarks; reset_cpu_capability_for_testing() undoes it.
inline void set_cpu_capability_for_testing(CpuCapability c) noexcept {
  const CpuCapability hw = detect_cpu_capability();
  cpu_capability_override().store(int(c < hw ? c : hw), std::memory_order_relaxed);
}
inline void reset_cpu_capability_for_testing() noexcept {
  cpu_capability_override().store(-1, std::memory_order_relaxed);
}

// The level kernels run at: the override or the run-time choice, clamped to the compiled range.
inline CpuCapability cpu_capability() noexcept {
  const int o = cpu_capability_override().load(std::memory_order_relaxed);
  CpuCapability c = o >= 0 ? CpuCapability(o) : runtime_cpu_capability();
  if (c < kCpuCapabilityMin) c = kCpuCapabilityMin;
  if (c > kCpuCapabilityMax) c = kCpuCapabilityMax;
  return c;
}

// The best level this process can run (what the CPU supports, within the compiled range).
inline CpuCapability max_cpu_capability() noexcept {
  CpuCapability c = detect_cpu_capability();
  if (c < kCpuCapabilityMin) c = kCpuCapabilityMin;
  if (c > kCpuCapabilityMax) c = kCpuCapabilityMax;
  return c;
}

// ---- variants ------------------------------------------------------------------------------

// The function attributes of each level's wrapper. GCC only, and only in an optimised build
// (an -O0 debug or sanitizer build stays unoptimised, and quick to compile):
// - every variant: `vect-cost-model=dynamic`. At -O2 GCC's vectoriser (cost model
//   "very-cheap") leaves scalar every loop whose trip count is not a known multiple of the
//   vector width, i.e. every elementwise row (add of 2^20 floats at AVX2: 660 us against 180 us);
// - kernels that declare `static constexpr bool kFullLoopOptimization = true` (reductions,
//   scans, softmax, the GEMM): `O3`, whose loop passes keep the reductions' 32 lane accumulators
//   in registers at the AVX2 level (sum of 2^20 floats: 130 us at -O2, 50 us). O3 on every
//   kernel cost 10% more compile time in every including file for no measurable gain elsewhere.
// AVX-512 code prefers 512-bit vectors: GCC's default tuning keeps auto-vectorised loops at 256
// bits. Clang vectorises at -O2 and knows neither option.
#if defined(__clang__)
#define TENSORPLAY_TARGET_AVX2_ "avx2,fma,f16c,bmi,bmi2,lzcnt,popcnt"
#define TENSORPLAY_TARGET_AVX512_ TENSORPLAY_TARGET_AVX2_ ",avx512f,avx512bw,avx512vl,avx512dq"
#define TENSORPLAY_VARIANT_ATTRS_ gnu::flatten
#define TENSORPLAY_VARIANT_ATTRS_FULL_ gnu::flatten
#else
#define TENSORPLAY_TARGET_AVX2_ "avx2,fma,f16c,bmi,bmi2,lzcnt,popcnt"
#define TENSORPLAY_TARGET_AVX512_ \
  TENSORPLAY_TARGET_AVX2_ ",avx512f,avx512bw,avx512vl,avx512dq,prefer-vector-width=512"
#if defined(__OPTIMIZE__)
#define TENSORPLAY_VARIANT_ATTRS_ gnu::flatten, gnu::optimize("vect-cost-model=dynamic")
#define TENSORPLAY_VARIANT_ATTRS_FULL_ gnu::flatten, gnu::optimize("O3")
#else
#define TENSORPLAY_VARIANT_ATTRS_ gnu::flatten
#define TENSORPLAY_VARIANT_ATTRS_FULL_ gnu::flatten
#endif
#endif

// One level's wrappers with the given attributes.
#define TENSORPLAY_CPU_VARIANTS_(ATTRS)                                                    \
  [[gnu::target(TENSORPLAY_TARGET_AVX2_), ATTRS]] static R avx2(A... a) {                  \
    return K::template run<CpuCapability::AVX2>(a...);                                     \
  }                                                                                        \
  [[gnu::target(TENSORPLAY_TARGET_AVX512_), ATTRS]] static R avx512(A... a) {              \
    return K::template run<CpuCapability::AVX512>(a...);                                   \
  }                                                                                        \
  /* The build's own level when it is AVX2 or AVX512 (-march=x86-64-v3 or above): the same \
     attributes, so that it is compiled as the variants are. */                            \
  [[ATTRS]] static R own_level(A... a) { return K::template run<kCpuCapabilityMin>(a...); }

template <class K>
concept FullLoopOptimization = K::kFullLoopOptimization;

// The variants of kernel K (see the top of this file) with signature R(A...).
template <class K, class Sig>
struct CpuVariants;

template <class K, class R, class... A>
struct CpuVariants<K, R(A...)> {
  using Fn = R (*)(A...);

#if TENSORPLAY_CPU_DISPATCH_X86_
  struct Vectorized {
    TENSORPLAY_CPU_VARIANTS_(TENSORPLAY_VARIANT_ATTRS_)
  };
  struct FullyOptimized {
    TENSORPLAY_CPU_VARIANTS_(TENSORPLAY_VARIANT_ATTRS_FULL_)
  };
  using Set = std::conditional_t<FullLoopOptimization<K>, FullyOptimized, Vectorized>;
#endif

  // Only the levels above the build's own are instantiated (discarded branches are not). The
  // default level is the kernel itself under the translation unit's own flags: it runs on CPUs
  // without AVX2 only, and vectorising it as the others would cost compile time in every file.
  static Fn pick(CpuCapability c) noexcept {
#if TENSORPLAY_CPU_DISPATCH_X86_
    if constexpr (kCpuCapabilityMin < CpuCapability::AVX512) {
      if (c == CpuCapability::AVX512) return &Set::avx512;
    }
    if constexpr (kCpuCapabilityMin < CpuCapability::AVX2) {
      if (c == CpuCapability::AVX2) return &Set::avx2;
    }
    if constexpr (kCpuCapabilityMin > CpuCapability::Default) return &Set::own_level;
#endif
    (void)c;
    return &K::template run<kCpuCapabilityMin>;
  }
};

#undef TENSORPLAY_CPU_VARIANTS_

// The element types whose kernels get the AVX2 and AVX-512 variants: the 32- and 64-bit types
// (with bool as a comparison's output or a mask). The 8- and 16-bit types (bool alone, int8,
// uint8, int16, half, bfloat16) run their translation unit's own level: every variant is a
// full copy of the kernel in every including file, and these dtypes are rare in hot loops
// (half and bfloat16 rows still convert through the F16C helpers, picked per row).
template <class T>
inline constexpr bool kWideElement =
    std::is_same_v<T, float> || std::is_same_v<T, double> || std::is_same_v<T, int32_t> ||
    std::is_same_v<T, int64_t>;
template <class... T>
inline constexpr bool kDispatchedTypes =
    ((kWideElement<T> || std::is_same_v<T, bool>) && ...) && (kWideElement<T> || ...);

// Reductions (their block kernels are the largest, compiled with O3) get variants for the
// floating types only: integer sums and scans are exact whatever the order and rarely hot.
template <class T>
inline constexpr bool kDispatchedReduction = std::is_same_v<T, float> || std::is_same_v<T, double>;

// The variant of K for the current level: the one dispatch point. Multi = false compiles the
// kernel at the translation unit's own level only (see kDispatchedTypes).
template <class K, class Sig, bool Multi = true>
typename CpuVariants<K, Sig>::Fn cpu_dispatch() noexcept {
  if constexpr (Multi) {
    return CpuVariants<K, Sig>::pick(cpu_capability());
  } else {
    return &K::template run<kCpuCapabilityMin>;
  }
}

// A plain function as a kernel whose code is the same at every level (only the compiler's
// instruction choice differs): cpu_dispatch_fn<&f<T>>().
template <auto Fn>
struct FnKernel;
template <class R, class... A, R (*F)(A...)>
struct FnKernel<F> {
  template <CpuCapability>
  static R run(A... a) {
    return F(a...);
  }
};

template <auto F, bool Multi = true>
auto cpu_dispatch_fn() noexcept {
  return cpu_dispatch<FnKernel<F>, std::remove_pointer_t<decltype(F)>, Multi>();
}

// Whether leaf helpers with hand-written SIMD (F16C conversions, square roots) may take their
// AVX2 road: asked once per row or block. The target-attributed helper it selects is inlined
// into the AVX2 and AVX-512 variants (their ISA includes its own) and called from the others.
inline bool cpu_has_avx2_level() noexcept {
  return TENSORPLAY_X86_SIMD_ && cpu_capability() >= CpuCapability::AVX2;
}

}  // namespace detail

// The level the CPU kernels run at, named as torch.backends.cpu.get_cpu_capability() names it:
// "DEFAULT", "AVX2" or "AVX512".
template <class = void>
std::string get_cpu_capability() {
  return detail::cpu_capability_name(detail::cpu_capability());
}

}  // namespace tensorplay
