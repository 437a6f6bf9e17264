// GEMM on raw pointers: C = alpha * A * B + beta * C, every operand addressed through its own
// row and column stride, so a transposed (or sliced, or every-other-column) operand is only a
// different pair of strides and is never copied by the caller.
//
//   detail::gemm<T>(m, n, k, alpha, a, a_rs, a_cs, b, b_rs, b_cs, beta, c, c_rs, c_cs)
//     A is m x k: A(i, p) = a[i * a_rs + p * a_cs]
//     B is k x n: B(p, j) = b[p * b_rs + j * b_cs]
//     C is m x n: C(i, j) = c[i * c_rs + j * c_cs]
//
// BLAS semantics: beta == 0 never reads C (NaN garbage there is overwritten, not propagated) and
// alpha == 0 or k == 0 never reads A or B. C must not overlap A, B, or itself (no zero or
// overlapping strides for C); A and B may use any strides, zero included (a broadcast operand).
//
// float and double take the blocked path below (or CBLAS when TENSORPLAY_USE_BLAS is 1 and the
// strides are expressible in BLAS); every other dtype takes a plain loop that is correct rather
// than fast: Half and BFloat16 accumulate in float, the integer types in uint64_t (so overflow
// wraps as two's complement, as in PyTorch, instead of being undefined behaviour).
//
// The blocked path is the GotoBLAS / BLIS design (Goto & van de Geijn, "Anatomy of
// high-performance matrix multiplication", 2008; BLIS's five loops around a micro-kernel):
//
//   for jc in n by NC:                 B block (KC x NC) lives in L3
//     for pc in k by KC:               pack B[pc:pc+KC, jc:jc+NC] into NR-column micro-panels
//       for ic in m by MC:             A block (MC x KC) lives in L2
//         pack A[ic:ic+MC, pc:pc+KC] into MR-row micro-panels
//         for jr in NC by NR:          one B micro-panel (KC x NR) lives in L1
//           for ir in MC by MR:
//             micro-kernel: an MR x NR tile of C held in registers, KC rank-1 updates
//
// Packing is where strides and transposition are handled: whatever the layout of A and B, the
// micro-kernel reads both from contiguous, 64-byte aligned buffers in exactly the order it
// consumes them, and the zero padding of edge panels lets it always run a full MR x NR tile (the
// edge of C is then written element by element).
//
// The micro-kernel is plain C++ on GCC/Clang vector types (`vector_size`), which the compiler
// turns into broadcasts and FMAs for the instruction set it is compiled for. No intrinsics, so
// no path depends on an ISA. The blocking is a template on the CPU level (ops/cpu_capability.hpp):
// every level from the build's -march up to AVX-512 is compiled, each inside a function whose
// target attribute enables that ISA, and the level the CPU runs picks the variant at run time.
// The tile shape follows the level's register file: 16 bytes (SSE2 or NEON) and AVX2 (16
// registers) take a 6 x 2-vector tile, 12 accumulators + 2 B vectors + 1 broadcast of A
// (AVX2: 6 x 16 floats); AVX-512 (32 zmm registers) takes 12 x 32 floats, 24 + 2 + 1.
#pragma once

#include <algorithm>
#include <climits>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>
#include <vector>

#include <tensorplay/config.hpp>
#include <tensorplay/core/half.hpp>
#include <tensorplay/ops/cpu_capability.hpp>

#if TENSORPLAY_USE_BLAS
#include <cblas.h>
#endif

namespace tensorplay::detail {

namespace gemm_impl {

// ---- Vector type and tile shape ----------------------------------------------------------

// Bytes in one SIMD register at level C.
template <CpuCapability C>
inline constexpr int kVecBytes =
    C == CpuCapability::AVX512 ? 64 : (C == CpuCapability::AVX2 ? 32 : 16);

#if defined(__GNUC__) || defined(__clang__)
// GCC/Clang generic vectors: arithmetic is element-wise, a scalar operand is broadcast, and the
// compiler emits the best instructions the function's target has (or splits them where it has
// none, as an unoptimised build that does not inline the variants would).
template <class T, int kBytes>
struct VecOf {
  typedef T type __attribute__((vector_size(kBytes)));
};
#define TP_GEMM_RESTRICT __restrict__
#else
// Other compilers: the same operations on a plain array, left to the auto-vectoriser.
template <class T, int kBytes>
struct ArrayVec {
  static constexpr int kN = kBytes / int(sizeof(T));
  T v[kN];
  ArrayVec& operator+=(const ArrayVec& o) {
    for (int i = 0; i < kN; ++i) v[i] += o.v[i];
    return *this;
  }
  friend ArrayVec operator*(T s, const ArrayVec& x) {
    ArrayVec r;
    for (int i = 0; i < kN; ++i) r.v[i] = s * x.v[i];
    return r;
  }
};
template <class T, int kBytes>
struct VecOf {
  using type = ArrayVec<T, kBytes>;
};
#define TP_GEMM_RESTRICT
#endif

// Tile and block sizes. The blocking is sized from byte budgets tuned on the machine this was
// written on (Intel Sapphire Rapids: 48 KiB L1d and 2 MiB L2 per core, a large shared L3) and
// stays sensible on any recent x86 or ARM core:
//  - KC = 512: with AVX2 one B micro-panel (KC x NR) is then 32 KiB, so it stays in L1 (with the
//    MR x KC A micro-panel beside it) for the whole jr iteration. A deep KC also halves how often
//    each element of C is loaded and stored (k / KC times), which is what held 256 back on large
//    products (2048: 80 -> 95 GFLOP/s). With AVX-512 the panel is 64 KiB, past L1, and streams
//    from L2; still 512 measured best there (1024^3 float, one core: KC 192/256/384/512 gave
//    86/89/90/95 GFLOP/s, and each C tile is prefetched, see micro_kernel).
//  - MC: the packed A block (MC x KC) is 384 KiB, a fifth of L2, so it stays there while every
//    B micro-panel passes over it. AVX2: MC = 192 float, 96 double; AVX-512: 192, 96.
//  - NC: the packed B block (KC x NC) is 8 MiB, held in L3: NC = 4096 float, 2048 double.
// Measured (1024^3 float, AVX2, one core): KC 256/384/512 gave 107/112/114 GFLOP/s; MC 96..384
// and NC 2048..4096 were within noise of each other.
// C defaults to the widest compiled level (for code that only wants one level's shape).
template <class T, CpuCapability C = kCpuCapabilityMax>
struct Blocking {
  static constexpr int kBytes = kVecBytes<C>;
  using Vec = typename VecOf<T, kBytes>::type;
  static constexpr int kLanes = kBytes / int(sizeof(T));
  // MR rows broadcast from A times 2 vectors of B: 2*MR accumulators + 2 B vectors + 1
  // broadcast must fit the register file (16 vector registers below AVX-512, 32 with it).
  static constexpr int MR = kBytes == 64 ? 12 : 6;
  static constexpr int NR = 2 * kLanes;
  static constexpr int64_t KC = 512;
  static constexpr int64_t MC = (384 << 10) / (KC * int64_t(sizeof(T))) / MR * MR;
  static constexpr int64_t NC = (8 << 20) / (KC * int64_t(sizeof(T))) / NR * NR;
};

// Always inlined, so that no vector crosses a call: a 64-byte vector passed or returned by value
// between functions compiled for different targets would change the ABI.
#if defined(__GNUC__) || defined(__clang__)
#define TP_GEMM_INLINE inline __attribute__((always_inline))
#else
#define TP_GEMM_INLINE inline
#endif

template <class V, class T>
TP_GEMM_INLINE void load_vec(V& v, const T* p) noexcept {
  std::memcpy(&v, p, sizeof(V));  // one unaligned vector load
}

template <class V, class T>
TP_GEMM_INLINE void store_vec(T* p, const V& v) noexcept {
  std::memcpy(p, &v, sizeof(V));
}

// ---- Packing buffers ---------------------------------------------------------------------

// A grow-only, 64-byte aligned scratch buffer. Thread safety: each instance is thread_local, so
// it is only ever touched by its own thread; it is kept (not freed) between calls so that a loop
// of matmuls allocates once.
struct PackBuffer {
  static constexpr std::align_val_t kAlign{64};
  void* data = nullptr;
  std::size_t bytes = 0;

  PackBuffer() = default;
  PackBuffer(const PackBuffer&) = delete;
  PackBuffer& operator=(const PackBuffer&) = delete;
  ~PackBuffer() { ::operator delete(data, kAlign); }

  template <class T>
  T* get(std::size_t count) {
    const std::size_t need = count * sizeof(T);
    if (need > bytes) {
      ::operator delete(data, kAlign);
      data = nullptr;
      bytes = 0;
      data = ::operator new(need, kAlign);
      bytes = need;
    }
    return static_cast<T*>(data);
  }
};

// A's buffer is per thread by construction: when the ic loop is run in parallel, each worker
// packs its own A block into its own buffer. B's buffer belongs to the calling thread and is
// shared read-only by the workers of one call.
inline PackBuffer& pack_buffer_a() {
  thread_local PackBuffer buf;
  return buf;
}
inline PackBuffer& pack_buffer_b() {
  thread_local PackBuffer buf;
  return buf;
}

// ---- Packing -----------------------------------------------------------------------------

// A[0:mc, 0:kc] -> MR-row micro-panels: panel r holds rows [r*MR, r*MR+MR) column after column
// (dst[p * MR + i]), rows past mc zero. The branches only give the compiler unit-stride loops for
// the two common layouts (row-major A and transposed A); the strided loop handles the rest.
template <class T, CpuCapability C>
void pack_a(int64_t mc, int64_t kc, const T* a, int64_t a_rs, int64_t a_cs,
            T* TP_GEMM_RESTRICT dst) {
  constexpr int MR = Blocking<T, C>::MR;
  for (int64_t ir = 0; ir < mc; ir += MR, dst += MR * kc) {
    const int64_t mr = std::min<int64_t>(MR, mc - ir);
    const T* src = a + ir * a_rs;
    if (mr == MR && a_rs == 1) {
      for (int64_t p = 0; p < kc; ++p)
        for (int i = 0; i < MR; ++i) dst[p * MR + i] = src[p * a_cs + i];
    } else if (mr == MR) {
      for (int64_t p = 0; p < kc; ++p)
        for (int i = 0; i < MR; ++i) dst[p * MR + i] = src[i * a_rs + p * a_cs];
    } else {
      for (int64_t p = 0; p < kc; ++p)
        for (int i = 0; i < MR; ++i) dst[p * MR + i] = i < mr ? src[i * a_rs + p * a_cs] : T(0);
    }
  }
}

// B[0:kc, 0:nc] -> NR-column micro-panels: panel r holds columns [r*NR, r*NR+NR) row after row
// (dst[p * NR + j]), columns past nc zero. For transposed B (b_rs == 1) the loop walks each
// source column contiguously and scatters into the panel.
template <class T, CpuCapability C>
void pack_b(int64_t kc, int64_t nc, const T* b, int64_t b_rs, int64_t b_cs,
            T* TP_GEMM_RESTRICT dst) {
  constexpr int NR = Blocking<T, C>::NR;
  for (int64_t jr = 0; jr < nc; jr += NR, dst += NR * kc) {
    const int64_t nr = std::min<int64_t>(NR, nc - jr);
    const T* src = b + jr * b_cs;
    if (nr == NR && b_cs == 1) {
      for (int64_t p = 0; p < kc; ++p)
        for (int j = 0; j < NR; ++j) dst[p * NR + j] = src[p * b_rs + j];
    } else if (nr == NR) {
      for (int j = 0; j < NR; ++j)
        for (int64_t p = 0; p < kc; ++p) dst[p * NR + j] = src[p * b_rs + j * b_cs];
    } else {
      for (int64_t p = 0; p < kc; ++p)
        for (int j = 0; j < NR; ++j) dst[p * NR + j] = j < nr ? src[p * b_rs + j * b_cs] : T(0);
    }
  }
}

// ---- Micro-kernel ------------------------------------------------------------------------

// C[0:mr, 0:nr] = alpha * Apanel * Bpanel + beta * C[0:mr, 0:nr], with the full MR x NR product
// accumulated in registers (MR x 2 vectors). A full tile of row-major C is read and written a
// vector at a time; an edge tile, or C with a non-unit column stride, goes through a local tile.
template <class T, CpuCapability C>
TP_GEMM_INLINE void micro_kernel(int64_t kc, const T* TP_GEMM_RESTRICT ap,
                                 const T* TP_GEMM_RESTRICT bp, T alpha, T beta, T* c, int64_t c_rs,
                                 int64_t c_cs, int64_t mr, int64_t nr) {
  using B = Blocking<T, C>;
  using V = typename B::Vec;
  constexpr int MR = B::MR;
  constexpr int L = B::kLanes;
  constexpr int NR = B::NR;

  V acc[MR][2];
  for (int i = 0; i < MR; ++i) acc[i][0] = acc[i][1] = V{};
#if defined(__GNUC__) || defined(__clang__)
  // C's tile is read and written once, after kc rank-1 updates: fetching its lines now hides
  // the misses (C rarely stays in cache between two visits to one tile) behind the loop.
  if (c_cs == 1) {
    for (int i = 0; i < MR && i < mr; ++i) {
      __builtin_prefetch(c + i * c_rs, 1);
      __builtin_prefetch(c + i * c_rs + NR - 1, 1);
    }
  }
#endif

  for (int64_t p = 0; p < kc; ++p) {
    V b0, b1;
    load_vec(b0, bp);
    load_vec(b1, bp + L);
#if defined(__GNUC__) || defined(__clang__)
#pragma GCC unroll 16
#endif
    for (int i = 0; i < MR; ++i) {
      acc[i][0] += ap[i] * b0;  // broadcast of ap[i]; one FMA per vector
      acc[i][1] += ap[i] * b1;
    }
    ap += MR;
    bp += NR;
  }

  if (mr == MR && nr == NR && c_cs == 1) {
    for (int i = 0; i < MR; ++i) {
      T* ci = c + i * c_rs;
      for (int h = 0; h < 2; ++h) {
        V r = alpha * acc[i][h];
        if (beta != T(0)) {
          V old;
          load_vec(old, ci + h * L);
          r += beta * old;
        }
        store_vec(ci + h * L, r);
      }
    }
    return;
  }
  alignas(64) T tile[MR][NR];
  for (int i = 0; i < MR; ++i) {
    store_vec(&tile[i][0], acc[i][0]);
    store_vec(&tile[i][L], acc[i][1]);
  }
  for (int64_t i = 0; i < mr; ++i) {
    for (int64_t j = 0; j < nr; ++j) {
      T& cij = c[i * c_rs + j * c_cs];
      cij = beta == T(0) ? alpha * tile[i][j] : alpha * tile[i][j] + beta * cij;
    }
  }
}

// One packed A block (mc x kc) times one packed B block (kc x nc) into C[0:mc, 0:nc]. The jr loop
// is outside so that one B micro-panel stays in L1 while the A block streams from L2.
template <class T, CpuCapability C>
void macro_kernel(int64_t mc, int64_t nc, int64_t kc, T alpha, const T* apack, const T* bpack,
                  T beta, T* c, int64_t c_rs, int64_t c_cs) {
  constexpr int MR = Blocking<T, C>::MR;
  constexpr int NR = Blocking<T, C>::NR;
  for (int64_t jr = 0; jr < nc; jr += NR) {
    const int64_t nr = std::min<int64_t>(NR, nc - jr);
    for (int64_t ir = 0; ir < mc; ir += MR) {
      const int64_t mr = std::min<int64_t>(MR, mc - ir);
      micro_kernel<T, C>(kc, apack + ir * kc, bpack + jr * kc, alpha, beta,
                         c + ir * c_rs + jr * c_cs, c_rs, c_cs, mr, nr);
    }
  }
}

// The five loops. Preconditions: m, n, k > 0.
template <class T, CpuCapability C>
void gemm_blocked(int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t a_rs, int64_t a_cs,
                  const T* b, int64_t b_rs, int64_t b_cs, T beta, T* c, int64_t c_rs,
                  int64_t c_cs) {
  using B = Blocking<T, C>;
  constexpr int64_t MR = B::MR, NR = B::NR, KC = B::KC, MC = B::MC, NC = B::NC;
  const int64_t kc_max = std::min(KC, k);
  // Buffers sized for this call's largest block (rounded up to whole micro-panels).
  T* bpack = pack_buffer_b().get<T>(kc_max * ((std::min(NC, n) + NR - 1) / NR * NR));
  T* apack = pack_buffer_a().get<T>(kc_max * ((std::min(MC, m) + MR - 1) / MR * MR));

  for (int64_t jc = 0; jc < n; jc += NC) {
    const int64_t nc = std::min(NC, n - jc);
    for (int64_t pc = 0; pc < k; pc += KC) {
      const int64_t kc = std::min(KC, k - pc);
      // beta applies once, to the first partial product; later ones accumulate onto C.
      const T beta_p = pc == 0 ? beta : T(1);
      pack_b<T, C>(kc, nc, b + pc * b_rs + jc * b_cs, b_rs, b_cs, bpack);
      // Parallel seam: the ic iterations write disjoint rows of C and only read bpack, so this
      // loop (or the jr loop inside macro_kernel, for small m) is where parallel_for goes. Each
      // worker then packs into its own thread_local A buffer; pack_b above may also be split
      // across workers, followed by a barrier before this loop.
      for (int64_t ic = 0; ic < m; ic += MC) {
        const int64_t mc = std::min(MC, m - ic);
        pack_a<T, C>(mc, kc, a + ic * a_rs + pc * a_cs, a_rs, a_cs, apack);
        macro_kernel<T, C>(mc, nc, kc, alpha, apack, bpack, beta_p, c + ic * c_rs + jc * c_cs,
                           c_rs, c_cs);
      }
    }
  }
}

// ---- The plain path (every dtype; float/double for degenerate shapes) ------------------

// Accumulator type: float for the 16-bit floats (as PyTorch's CPU kernels do), the type itself
// for float/double, and uint64_t for integers and bool, whose arithmetic wraps (defined
// behaviour) and whose conversion back to a narrower type is modular (C++20).
template <class T>
using gemm_acc_t = std::conditional_t<std::is_same_v<T, Half> || std::is_same_v<T, BFloat16>, float,
                                      std::conditional_t<std::is_floating_point_v<T>, T, uint64_t>>;

// sum_p x[p * xs] * y[p * ys] over eight independent partial sums: a single running sum would
// wait on the latency of every add (4 cycles) instead of its throughput, eight times slower.
template <class Acc, class T>
Acc dot(int64_t k, const T* x, int64_t xs, const T* y, int64_t ys) {
  constexpr int64_t kLanes = 8;
  Acc lanes[kLanes] = {};
  const int64_t body = k - k % kLanes;
  if (xs == 1 && ys == 1) {  // the common case, spelled out so that it vectorises
    for (int64_t p = 0; p < body; p += kLanes)
      for (int64_t l = 0; l < kLanes; ++l)
        lanes[l] += static_cast<Acc>(x[p + l]) * static_cast<Acc>(y[p + l]);
  } else {
    for (int64_t p = 0; p < body; p += kLanes)
      for (int64_t l = 0; l < kLanes; ++l)
        lanes[l] += static_cast<Acc>(x[(p + l) * xs]) * static_cast<Acc>(y[(p + l) * ys]);
  }
  Acc s = 0;
  for (int64_t p = body; p < k; ++p) s += static_cast<Acc>(x[p * xs]) * static_cast<Acc>(y[p * ys]);
  for (int64_t l = 0; l < kLanes; ++l) s += lanes[l];
  return s;
}

template <class T>
void gemm_plain(int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t a_rs, int64_t a_cs,
                const T* b, int64_t b_rs, int64_t b_cs, T beta, T* c, int64_t c_rs, int64_t c_cs) {
  using Acc = gemm_acc_t<T>;
  const Acc al = static_cast<Acc>(alpha);
  const Acc be = static_cast<Acc>(beta);
  auto store = [&](T& cij, Acc sum) {
    cij = be == Acc(0) ? static_cast<T>(al * sum)
                       : static_cast<T>(al * sum + be * static_cast<Acc>(cij));
  };
  // Vector-shaped products take whichever of the two forms walks memory contiguously: a dot
  // product per row of A (n == 1, rows of A contiguous) or an axpy over rows of B (m == 1, rows
  // of B contiguous). The other layout is the transposed problem, C^T = B^T A^T.
  if (n == 1 && m > 1 && std::abs(a_cs) > std::abs(a_rs)) {
    gemm_plain(int64_t{1}, m, k, alpha, b, b_cs, b_rs, a, a_cs, a_rs, beta, c, c_cs, c_rs);
    return;
  }
  if (m == 1 && n > 1 && std::abs(b_rs) < std::abs(b_cs)) {
    gemm_plain(n, int64_t{1}, k, alpha, b, b_cs, b_rs, a, a_cs, a_rs, beta, c, c_cs, c_rs);
    return;
  }
  if (n == 1) {
    for (int64_t i = 0; i < m; ++i) store(c[i * c_rs], dot<Acc>(k, a + i * a_rs, a_cs, b, b_rs));
    return;
  }
  // One row of C accumulated at a time, rank-1 style (i, p, j): the inner loop walks a row of B.
  std::vector<Acc> row(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < m; ++i) {
    std::fill(row.begin(), row.end(), Acc(0));
    for (int64_t p = 0; p < k; ++p) {
      const Acc av = static_cast<Acc>(a[i * a_rs + p * a_cs]);
      const T* bp = b + p * b_rs;
      for (int64_t j = 0; j < n; ++j) row[j] += av * static_cast<Acc>(bp[j * b_cs]);
    }
    for (int64_t j = 0; j < n; ++j) store(c[i * c_rs + j * c_cs], row[j]);
  }
}

// C = beta * C (the whole answer when k == 0 or alpha == 0); beta == 0 writes zeros unread.
template <class T>
void gemm_scale_c(int64_t m, int64_t n, T beta, T* c, int64_t c_rs, int64_t c_cs) {
  using Acc = gemm_acc_t<T>;
  const Acc be = static_cast<Acc>(beta);
  if (be == Acc(1)) return;
  for (int64_t i = 0; i < m; ++i)
    for (int64_t j = 0; j < n; ++j) {
      T& cij = c[i * c_rs + j * c_cs];
      cij = be == Acc(0) ? T(0) : static_cast<T>(be * static_cast<Acc>(cij));
    }
}

// The two paths as kernels of the CPU dispatch (ops/cpu_capability.hpp): the blocked path's
// tile follows the level; the plain loop is the same code, vectorised for the level.
using GemmSig = void(int64_t, int64_t, int64_t, const void*, const void*, int64_t, int64_t,
                     const void*, int64_t, int64_t, const void*, void*, int64_t, int64_t);

template <class T, bool kBlocked>
struct GemmKernel {
  static constexpr bool kFullLoopOptimization = true;  // ops/cpu_capability.hpp
  template <CpuCapability C>
  static void run(int64_t m, int64_t n, int64_t k, const void* alpha, const void* a, int64_t a_rs,
                  int64_t a_cs, const void* b, int64_t b_rs, int64_t b_cs, const void* beta,
                  void* c, int64_t c_rs, int64_t c_cs) {
    const T al = *static_cast<const T*>(alpha), be = *static_cast<const T*>(beta);
    const T* pa = static_cast<const T*>(a);
    const T* pb = static_cast<const T*>(b);
    T* pc = static_cast<T*>(c);
    if constexpr (kBlocked) {
      gemm_blocked<T, C>(m, n, k, al, pa, a_rs, a_cs, pb, b_rs, b_cs, be, pc, c_rs, c_cs);
    } else {
      gemm_plain(m, n, k, al, pa, a_rs, a_cs, pb, b_rs, b_cs, be, pc, c_rs, c_cs);
    }
  }
};

// Runs the blocked (kBlocked) or plain path of T at the current CPU level. The scalars travel by
// address: Half and BFloat16 are classes, and a variant's signature stays the same for all T.
template <bool kBlocked, class T>
void gemm_dispatch(int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t a_rs,
                   int64_t a_cs, const T* b, int64_t b_rs, int64_t b_cs, T beta, T* c,
                   int64_t c_rs, int64_t c_cs) {
  cpu_dispatch<GemmKernel<T, kBlocked>, GemmSig>()(m, n, k, &alpha, a, a_rs, a_cs, b, b_rs, b_cs,
                                                   &beta, c, c_rs, c_cs);
}

// ---- CBLAS (TENSORPLAY_USE_BLAS) ---------------------------------------------------------

// How one row-major operand (rows x cols, strides rs/cs) is passed to row-major CBLAS: as is,
// with leading dimension rs (needs cs == 1, rs >= cols), or transposed, with leading dimension cs
// (needs rs == 1, cs >= rows). A stride along a dimension of size 1 is never used, so it may be
// anything. ok == false: not expressible (zero, negative or overlapping strides, a non-unit
// inner stride, or a value past int), and the caller falls back to the blocked kernel.
struct BlasOperand {
  bool ok = false;
  bool trans = false;
  int64_t ld = 0;
};

inline BlasOperand blas_operand(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  BlasOperand r;
  if ((cs == 1 || cols == 1) && (rows == 1 || rs >= std::max<int64_t>(1, cols))) {
    r = {true, false, rows == 1 ? std::max<int64_t>(1, cols) : rs};
  } else if ((rs == 1 || rows == 1) && (cols == 1 || cs >= std::max<int64_t>(1, rows))) {
    r = {true, true, cols == 1 ? std::max<int64_t>(1, rows) : cs};
  }
  if (r.ld > INT_MAX) r.ok = false;
  return r;
}

#if TENSORPLAY_USE_BLAS
// Preconditions: m, n, k > 0 and C row-major-normalised (see gemm). Returns false when BLAS
// cannot express the call.
template <class T>
bool gemm_cblas(int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t a_rs, int64_t a_cs,
                const T* b, int64_t b_rs, int64_t b_cs, T beta, T* c, int64_t c_rs, int64_t c_cs) {
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX) return false;
  const BlasOperand oa = blas_operand(m, k, a_rs, a_cs);
  const BlasOperand ob = blas_operand(k, n, b_rs, b_cs);
  const BlasOperand oc = blas_operand(m, n, c_rs, c_cs);
  if (!oa.ok || !ob.ok || !oc.ok || oc.trans) return false;
  const auto ta = oa.trans ? CblasTrans : CblasNoTrans;
  const auto tb = ob.trans ? CblasTrans : CblasNoTrans;
  if constexpr (std::is_same_v<T, float>) {
    cblas_sgemm(CblasRowMajor, ta, tb, int(m), int(n), int(k), alpha, a, int(oa.ld), b, int(ob.ld),
                beta, c, int(oc.ld));
  } else {
    cblas_dgemm(CblasRowMajor, ta, tb, int(m), int(n), int(k), alpha, a, int(oa.ld), b, int(ob.ld),
                beta, c, int(oc.ld));
  }
  return true;
}
#endif

}  // namespace gemm_impl

// C = alpha * A * B + beta * C; see the top of this file for the contract.
template <class T>
void gemm(int64_t m, int64_t n, int64_t k, T alpha, const T* a, int64_t a_rs, int64_t a_cs,
          const T* b, int64_t b_rs, int64_t b_cs, T beta, T* c, int64_t c_rs, int64_t c_cs) {
  using namespace gemm_impl;
  if (m <= 0 || n <= 0) return;
  if (k <= 0 || static_cast<gemm_acc_t<T>>(alpha) == gemm_acc_t<T>(0)) {
    gemm_scale_c(m, n, beta, c, c_rs, c_cs);
    return;
  }
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, double>) {
    // Both paths want C row-major (unit column stride: full tiles are stored a vector at a
    // time). A column-major C is the row-major C^T = B^T A^T: swap the operands and strides.
    if (c_cs != 1 && n != 1 && (c_rs == 1 || m == 1)) {
      gemm(n, m, k, alpha, b, b_cs, b_rs, a, a_cs, a_rs, beta, c, c_cs, c_rs);
      return;
    }
#if TENSORPLAY_USE_BLAS
    if (gemm_cblas(m, n, k, alpha, a, a_rs, a_cs, b, b_rs, b_cs, beta, c, c_rs, c_cs)) return;
#endif
    // A vector-shaped product (m == 1 or n == 1) would waste all but 1/MR (1/NR) of the tile
    // on zero padding; the plain loop is a dot product or an axpy there.
    if (m == 1 || n == 1) {
      gemm_dispatch<false>(m, n, k, alpha, a, a_rs, a_cs, b, b_rs, b_cs, beta, c, c_rs, c_cs);
      return;
    }
    gemm_dispatch<true>(m, n, k, alpha, a, a_rs, a_cs, b, b_rs, b_cs, beta, c, c_rs, c_cs);
  } else {
    gemm_dispatch<false>(m, n, k, alpha, a, a_rs, a_cs, b, b_rs, b_cs, beta, c, c_rs, c_cs);
  }
}

}  // namespace tensorplay::detail

#undef TP_GEMM_RESTRICT
#undef TP_GEMM_INLINE
