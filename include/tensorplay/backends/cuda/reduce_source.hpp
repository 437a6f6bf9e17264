// The CUDA source of the row kernels: reductions (ops/device_dispatch.hpp's ReduceOp: sum, mean,
// prod, amax, amin, argmax, argmin), softmax / log_softmax (SoftmaxOp) and cumsum / cumprod
// (ScanOp: one thread per row, in order, so results are the CPU's bit for bit). One kernel template
// each, instantiated as source per (op, dtypes, index width) and compiled at run time with NVRTC,
// as the elementwise kernels are (pointwise_source.hpp, whose prelude of loads, stores and
// conversions they share).
//
//   const ReduceKernelKey key{ReduceCode::Sum, kFloat, kHalf};
//   std::string ptx = compile_to_ptx(row_kernel_source({&key, 1}, {}), reduce_kernel_name(key),
//                                    80, pointwise_compile_options());
//   // entry reduce_kernel_name(key), one argument: ReduceParams<unsigned> by value
//
// A "row" is the set of input elements one result element (a reduction) or one line (softmax)
// is made from. ReduceParams addresses them with two offset calculators: `outer` maps a row
// index to the row's first byte in the result and the input, `inner` maps an index within the
// row to the bytes after that (the result's is 0 for a reduction). A row's index counts its
// elements in row-major order of the tensor's reduced dimensions, so argmax's index is PyTorch's
// (the flattened index for a full reduction).
//
// Two shapes of launch: a block of kRowBlock threads per row, striding through it and combining
// the partial results in shared memory in a fixed tree order (long rows); or one thread per row
// in order (`serial`: short rows, and rows whose neighbours are adjacent in memory, where the
// threads of a warp then read adjacent elements). Both are deterministic: no atomics.
//
// Semantics are the CPU's (ops/reduce_ops.hpp, ops/softmax.hpp): sum and prod accumulate in the
// front end's compute type (int64 wrapping, float or double) and store once in the result dtype;
// mean divides the sum by the row length (0/0 = NaN for an empty row); amax and amin propagate
// NaN; argmax and argmin give the index of the first NaN if there is one, else of the first
// extreme. Softmax is the CPU's stable form: max, sum of exp(x - max), then exp(x - max) / sum or
// (x - max) - log(sum), each row read before any element of it is written (so in place works).
// Float sums add in the tree's order rather than the CPU's cascade: results agree to rounding.
#pragma once

#include <tensorplay/backends/cuda/offset_calculator.hpp>
#include <tensorplay/backends/cuda/pointwise_source.hpp>
#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/ops/device_dispatch.hpp>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>

// The one argument of every row kernel, passed by value.
// clang-format off
#define TENSORPLAY_CUDA_REDUCE_PARAMS_CODE_(X)                                               \
  X(                                                                                         \
  template <class Index>                                                                     \
  struct ReduceParams {                                                                      \
    /* The result's and the input's first elements. */                                       \
    char* out;                                                                               \
    const char* in;                                                                          \
    /* Rows (result elements, or softmax lines) and the elements of each. */                 \
    Index rows;                                                                              \
    Index length;                                                                            \
    /* 1: one thread per row; 0: one block per row. */                                       \
    unsigned serial;                                                                         \
    /* Row index -> (result, input) byte offsets of its first element. */                    \
    OffsetCalculator<2, Index> outer;                                                        \
    /* Index within a row -> (result, input) byte offsets from there. */                     \
    OffsetCalculator<2, Index> inner;                                                        \
  };                                                                                         \
  )
// clang-format on

namespace tensorplay::cuda {

TENSORPLAY_CUDA_REDUCE_PARAMS_CODE_(TENSORPLAY_CUDA_EXPAND_)

// Threads of a block that reduces one row.
inline constexpr unsigned kRowBlock = 256;
// Threads of a block of serial rows (one each).
inline constexpr unsigned kSerialRowBlock = 128;

// ---- kernel keys --------------------------------------------------------------------------------

// The name of a reduction in PyTorch's messages and in kernel names.
constexpr std::string_view reduce_code_name(ReduceCode code) noexcept {
  switch (code) {
    case ReduceCode::Sum: return "sum";
    case ReduceCode::Mean: return "mean";
    case ReduceCode::Prod: return "prod";
    case ReduceCode::Amax: return "amax";
    case ReduceCode::Amin: return "amin";
    case ReduceCode::Argmax: return "argmax";
    case ReduceCode::Argmin: return "argmin";
  }
  return "?";
}

// One reduction kernel: the op, the input's dtype (the front end's compute dtype for sum, prod
// and mean; the tensor's own for the others) and the result's.
struct ReduceKernelKey {
  ReduceCode code = ReduceCode::Sum;
  DType in = kFloat;
  DType out = kFloat;
  bool index64 = false;
  friend bool operator==(const ReduceKernelKey&, const ReduceKernelKey&) = default;
};

// One softmax kernel: float32 or float64 in and out (the front end computes float16 and
// bfloat16 in float32).
struct SoftmaxKernelKey {
  DType dtype = kFloat;
  bool log = false;
  bool index64 = false;
  friend bool operator==(const SoftmaxKernelKey&, const SoftmaxKernelKey&) = default;
};

// One scan kernel (cumsum, cumprod): int64, float32 or float64 in and out (the front end's
// compute dtype); float32 accumulates in float64, as the CPU's scan does.
struct ScanKernelKey {
  DType dtype = kFloat;
  bool prod = false;
  bool index64 = false;
  friend bool operator==(const ScanKernelKey&, const ScanKernelKey&) = default;
};

// The dtype a sum, prod or mean of results of dtype `out` computes in: the front ends' (ops/
// reduce.hpp's compute_dtype): int64 for the integers and bool, float64 for float64, else float32.
constexpr DType reduce_accumulate_dtype(DType out) noexcept {
  if (out == kDouble) return kDouble;
  return is_floating_point(out) ? kFloat : kLong;
}

// Refuses a key no kernel exists for, with the dtypes the front ends never give it.
inline void check_reduce_kernel_key(const ReduceKernelKey& key) {
  const std::string_view name = reduce_code_name(key.code);
  TP_CHECK(name != "?", "cuda: unknown reduction code ", static_cast<unsigned>(key.code));
  bool ok = false;
  switch (key.code) {
    case ReduceCode::Sum:
    case ReduceCode::Prod: ok = reduce_accumulate_dtype(key.out) == key.in; break;
    case ReduceCode::Mean:
      ok = is_floating_point(key.out) && reduce_accumulate_dtype(key.out) == key.in;
      break;
    case ReduceCode::Amax:
    case ReduceCode::Amin: ok = key.in == key.out; break;
    case ReduceCode::Argmax:
    case ReduceCode::Argmin: ok = key.out == kLong; break;
  }
  TP_CHECK_TYPE(ok, "cuda: no '", name, "' kernel reads ", scalar_type_name(key.in), " and writes ",
                scalar_type_name(key.out));
}

inline void check_softmax_kernel_key(const SoftmaxKernelKey& key) {
  TP_CHECK_TYPE(key.dtype == kFloat || key.dtype == kDouble,
                "cuda: ", key.log ? "log_softmax" : "softmax",
                " kernels compute in float32 or float64, not ", scalar_type_name(key.dtype));
}

inline void check_scan_kernel_key(const ScanKernelKey& key) {
  TP_CHECK_TYPE(key.dtype == kLong || key.dtype == kFloat || key.dtype == kDouble,
                "cuda: ", key.prod ? "cumprod" : "cumsum",
                " kernels compute in int64, float32 or float64, not ", scalar_type_name(key.dtype));
}

// Entry names in the PTX: tp_reduce_<op>_<in>_<out>_<i32|i64>, tp_<log_>softmax_<dtype>_<...>,
// tp_<cumsum|cumprod>_<dtype>_<...>.
inline std::string reduce_kernel_name(const ReduceKernelKey& key) {
  check_reduce_kernel_key(key);
  return ::tensorplay::detail::str_cat("tp_reduce_", reduce_code_name(key.code), "_",
                                       dtype_name(key.in), "_", dtype_name(key.out),
                                       key.index64 ? "_i64" : "_i32");
}
inline std::string scan_kernel_name(const ScanKernelKey& key) {
  check_scan_kernel_key(key);
  return ::tensorplay::detail::str_cat("tp_", key.prod ? "cumprod_" : "cumsum_",
                                       dtype_name(key.dtype), key.index64 ? "_i64" : "_i32");
}
inline std::string softmax_kernel_name(const SoftmaxKernelKey& key) {
  check_softmax_kernel_key(key);
  return ::tensorplay::detail::str_cat("tp_", key.log ? "log_" : "", "softmax_",
                                       dtype_name(key.dtype), key.index64 ? "_i64" : "_i32");
}

// ---- the source ---------------------------------------------------------------------------------

namespace detail {

template <class Index>
void append_reduce_params_layout_check(std::string& s, const char* index) {
  using P = ReduceParams<Index>;
  append_layout_check<P>(
      s, ::tensorplay::detail::str_cat("ReduceParams<", index, ">"),
      {member_layout("out", &P::out), member_layout("in", &P::in), member_layout("rows", &P::rows),
       member_layout("length", &P::length), member_layout("serial", &P::serial),
       member_layout("outer", &P::outer), member_layout("inner", &P::inner)});
}

inline std::string row_kernels_prelude() {
  std::string s = pointwise_prelude();
  s += "namespace tp {\n";
  s += TENSORPLAY_CUDA_REDUCE_PARAMS_CODE_(TENSORPLAY_CUDA_STRINGIFY_);
  s += "\n";
  append_reduce_params_layout_check<unsigned>(s, "unsigned");
  append_reduce_params_layout_check<unsigned long long>(s, "unsigned long long");
  s += ::tensorplay::detail::str_cat("constexpr unsigned kRowBlock = ", kRowBlock, "u;\n");
  s += R"CUDA(
// A partial result: a value, and for argmax/argmin the row index it was found at.
template <class V> struct Acc {
  V v;
  long long i;
};

// ---- the reductions: where a partial result starts, combine, and the stored value ----
// Max-like reductions start from the row's element 0 (kFromFirst: combining it again is
// harmless, and their rows are never empty); sum and prod from their identity.
template <class V> __device__ __forceinline__ bool is_nan(V v) { return v != v; }

struct red_sum {
  static constexpr bool kFromFirst = false;
  template <class V> static __device__ __forceinline__ Acc<V> identity() { return Acc<V>{V(0), 0}; }
  template <class V> static __device__ __forceinline__ Acc<V> combine(Acc<V> a, Acc<V> b) {
    if constexpr (is_int<V>::value) {
      return Acc<V>{wrap_add(a.v, b.v), 0};
    } else {
      return Acc<V>{a.v + b.v, 0};
    }
  }
  template <class V> static __device__ __forceinline__ V finish(Acc<V> a, long long) {
    return a.v;
  }
};
struct red_mean : red_sum {
  template <class V> static __device__ __forceinline__ V finish(Acc<V> a, long long n) {
    return a.v / V(n);  /* 0 / 0 is NaN for an empty row, as the CPU's */
  }
};
struct red_prod {
  static constexpr bool kFromFirst = false;
  template <class V> static __device__ __forceinline__ Acc<V> identity() { return Acc<V>{V(1), 0}; }
  template <class V> static __device__ __forceinline__ Acc<V> combine(Acc<V> a, Acc<V> b) {
    if constexpr (is_int<V>::value) {
      return Acc<V>{wrap_mul(a.v, b.v), 0};
    } else {
      return Acc<V>{a.v * b.v, 0};
    }
  }
  template <class V> static __device__ __forceinline__ V finish(Acc<V> a, long long) {
    return a.v;
  }
};
// amax / amin: a NaN wins.
template <bool kMax> struct red_extreme {
  static constexpr bool kFromFirst = true;
  template <class V> static __device__ __forceinline__ Acc<V> combine(Acc<V> a, Acc<V> b) {
    if (is_nan(a.v)) return a;
    if (is_nan(b.v)) return b;
    if constexpr (kMax) {
      return a.v < b.v ? b : a;
    } else {
      return b.v < a.v ? b : a;
    }
  }
  template <class V> static __device__ __forceinline__ V finish(Acc<V> a, long long) {
    return a.v;
  }
};
// argmax / argmin: the first NaN, else the first extreme (the smaller index on ties).
template <bool kMax> struct red_arg {
  static constexpr bool kFromFirst = true;
  template <class V> static __device__ __forceinline__ Acc<V> combine(Acc<V> a, Acc<V> b) {
    const bool an = is_nan(a.v), bn = is_nan(b.v);
    if (an || bn) {
      if (an && bn) return a.i <= b.i ? a : b;
      return an ? a : b;
    }
    const bool b_better = kMax ? a.v < b.v : b.v < a.v;
    const bool a_better = kMax ? b.v < a.v : a.v < b.v;
    if (b_better) return b;
    if (a_better) return a;
    return a.i <= b.i ? a : b;
  }
  template <class V> static __device__ __forceinline__ long long finish(Acc<V> a, long long) {
    return a.i;
  }
};

// Element j of the row whose offsets are `base`, with its row index.
template <class S, class V, class I>
__device__ __forceinline__ Acc<V> row_element(const ReduceParams<I>& p, const Offsets<2, I>& base,
                                              I j) {
  const Offsets<2, I> o = p.inner.get(j);
  return Acc<V>{static_cast<V>(load<S>(p.in + base.v[1] + o.v[1])), static_cast<long long>(j)};
}

// The row's partial result over elements t, t + step, ... (t = 0, step = 1: the whole row).
template <class Op, class S, class V, class I>
__device__ __forceinline__ Acc<V> reduce_strided(const ReduceParams<I>& p,
                                                 const Offsets<2, I>& base, I t, I step) {
  Acc<V> a;
  if constexpr (Op::kFromFirst) {
    a = row_element<S, V>(p, base, I(0));
  } else {
    a = Op::template identity<V>();
  }
  for (I j = t; j < p.length; j += step) a = Op::combine(a, row_element<S, V>(p, base, j));
  return a;
}

// A block's partial results combined in a fixed tree order; every thread gets the total.
template <class Op, class V>
__device__ __forceinline__ Acc<V> block_combine(Acc<V> a, Acc<V>* shared) {
  const unsigned t = threadIdx.x;
  shared[t] = a;
  __syncthreads();
  for (unsigned s = kRowBlock / 2; s > 0; s >>= 1) {
    if (t < s) shared[t] = Op::combine(shared[t], shared[t + s]);
    __syncthreads();
  }
  const Acc<V> total = shared[0];
  __syncthreads();  /* shared is reused by the caller's next combine */
  return total;
}

// The row of this thread (serial launches) or of this block.
template <class I> __device__ __forceinline__ I this_row(bool serial) {
  const I block = static_cast<I>(blockIdx.x);
  return serial ? block * static_cast<I>(blockDim.x) + static_cast<I>(threadIdx.x) : block;
}

// The reduction kernel. V: the type values are compared or accumulated in (the input's compute
// type); Out: the result's storage type.
template <class Op, class S, class Out, class V, class I>
__device__ __forceinline__ void reduce_rows(const ReduceParams<I>& p) {
  __shared__ Acc<V> shared[kRowBlock];
  if (p.serial) {
    const I row = this_row<I>(true);
    if (row >= p.rows) return;
    const Offsets<2, I> base = p.outer.get(row);
    const Acc<V> a = reduce_strided<Op, S, V>(p, base, I(0), I(1));
    store<Out>(p.out + base.v[0], Op::finish(a, static_cast<long long>(p.length)));
    return;
  }
  const Offsets<2, I> base = p.outer.get(this_row<I>(false));
  Acc<V> a = reduce_strided<Op, S, V>(p, base, static_cast<I>(threadIdx.x), I(kRowBlock));
  a = block_combine<Op>(a, shared);
  if (threadIdx.x == 0) {
    store<Out>(p.out + base.v[0], Op::finish(a, static_cast<long long>(p.length)));
  }
}

// Softmax along a row: T is float or double; input and result of type T.
template <class T, bool kLog, class I>
__device__ __forceinline__ void softmax_rows(const ReduceParams<I>& p) {
  __shared__ Acc<T> shared[kRowBlock];
  const bool serial = p.serial != 0;
  const I row = this_row<I>(serial);
  if (serial && row >= p.rows) return;
  const Offsets<2, I> base = p.outer.get(row);
  const I t = serial ? I(0) : static_cast<I>(threadIdx.x);
  const I step = serial ? I(1) : I(kRowBlock);
  Acc<T> mx = reduce_strided<red_extreme<true>, T, T>(p, base, t, step);
  if (!serial) mx = block_combine<red_extreme<true>>(mx, shared);
  Acc<T> sum{T(0), 0};
  for (I j = t; j < p.length; j += step) sum.v += exp(row_element<T, T>(p, base, j).v - mx.v);
  if (!serial) sum = block_combine<red_sum>(sum, shared);
  const T k = kLog ? log(sum.v) : T(1) / sum.v;
  for (I j = t; j < p.length; j += step) {
    const Offsets<2, I> o = p.inner.get(j);
    const T x = row_element<T, T>(p, base, j).v;
    store<T>(p.out + base.v[0] + o.v[0], kLog ? (x - mx.v) - k : exp(x - mx.v) * k);
  }
}

// cumsum / cumprod along a row, one thread per row in order (each element read before it is
// written: in place works). T: the storage and result type; A: the accumulator (float64 for
// float32, as the CPU's).
template <class T, class A, bool kProd, class I>
__device__ __forceinline__ void scan_rows(const ReduceParams<I>& p) {
  const I row = this_row<I>(true);
  if (row >= p.rows) return;
  const Offsets<2, I> base = p.outer.get(row);
  A acc = kProd ? A(1) : A(0);
  for (I j = 0; j < p.length; ++j) {
    const Offsets<2, I> o = p.inner.get(j);
    const A x = static_cast<A>(load<T>(p.in + base.v[1] + o.v[1]));
    if constexpr (is_int<A>::value) {
      acc = kProd ? wrap_mul(acc, x) : wrap_add(acc, x);
    } else {
      acc = kProd ? acc * x : acc + x;
    }
    store<T>(p.out + base.v[0] + o.v[0], static_cast<T>(acc));
  }
}

}  // namespace tp
)CUDA";
  return s;
}

}  // namespace detail

// The CUDA source of one NVRTC program holding the reduction kernels of `reductions`, the
// softmax kernels of `softmaxes` and the scan kernels of `scans` (each key checked), an
// `extern "C"` entry each.
inline std::string row_kernel_source(std::span<const ReduceKernelKey> reductions,
                                     std::span<const SoftmaxKernelKey> softmaxes,
                                     std::span<const ScanKernelKey> scans = {}) {
  using ::tensorplay::detail::str_cat;
  std::string s = detail::row_kernels_prelude();
  s += "\n";
  for (const ReduceKernelKey& key : reductions) {
    const std::string name = reduce_kernel_name(key);  // checks the key
    std::string_view op;
    switch (key.code) {
      case ReduceCode::Sum: op = "tp::red_sum"; break;
      case ReduceCode::Mean: op = "tp::red_mean"; break;
      case ReduceCode::Prod: op = "tp::red_prod"; break;
      case ReduceCode::Amax: op = "tp::red_extreme<true>"; break;
      case ReduceCode::Amin: op = "tp::red_extreme<false>"; break;
      case ReduceCode::Argmax: op = "tp::red_arg<true>"; break;
      case ReduceCode::Argmin: op = "tp::red_arg<false>"; break;
    }
    const std::string_view index = key.index64 ? "unsigned long long" : "unsigned";
    // Values in the input's compute type: float32 for float16 and bfloat16.
    s += str_cat("extern \"C\" __global__ void __launch_bounds__(", kRowBlock, ") ", name,
                 "(const __grid_constant__ tp::ReduceParams<", index, "> p) {\n  tp::reduce_rows<",
                 op, ", ", detail::cuda_storage_type(key.in), ", ",
                 detail::cuda_storage_type(key.out), ", ", detail::cuda_compute_type(key.in), ", ",
                 index, ">(p);\n}\n");
  }
  for (const SoftmaxKernelKey& key : softmaxes) {
    const std::string name = softmax_kernel_name(key);
    const std::string_view index = key.index64 ? "unsigned long long" : "unsigned";
    s += str_cat("extern \"C\" __global__ void __launch_bounds__(", kRowBlock, ") ", name,
                 "(const __grid_constant__ tp::ReduceParams<", index, "> p) {\n  tp::softmax_rows<",
                 detail::cuda_storage_type(key.dtype), ", ", key.log ? "true" : "false", ", ",
                 index, ">(p);\n}\n");
  }
  for (const ScanKernelKey& key : scans) {
    const std::string name = scan_kernel_name(key);
    const std::string_view index = key.index64 ? "unsigned long long" : "unsigned";
    const std::string_view type = detail::cuda_storage_type(key.dtype);
    s += str_cat("extern \"C\" __global__ void __launch_bounds__(", kRowBlock, ") ", name,
                 "(const __grid_constant__ tp::ReduceParams<", index, "> p) {\n  tp::scan_rows<",
                 type, ", ", key.dtype == kFloat ? "double" : type, ", ",
                 key.prod ? "true" : "false", ", ", index, ">(p);\n}\n");
  }
  return s;
}

}  // namespace tensorplay::cuda
