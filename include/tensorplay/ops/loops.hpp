// Elementwise kernels on the iteration engine: an op supplies one scalar function, this file
// supplies the loops (PyTorch's cpu_kernel / basic_loop).
//
//   elementwise<float, float, float>(iter, [](float a, float b) { return a + b; });
//
// Template arguments are the storage types of the output and of each input; the function is
// called with each input's compute type (opmath_t: float for Half and BFloat16, else the type
// itself) and its result is converted to the output's storage type once, by convert<> (so a
// Half op computes in float and rounds once). Three row shapes get their own plain loops that
// the compiler vectorises: every operand contiguous, and (for two inputs) every
// operand contiguous but one input broadcast (stride 0, loaded once: `t * 2`, row broadcasts).
// Anything else takes the strided loop. The iterator's thread split and tiling apply as usual.
// The row is compiled once per CPU level and the level's variant picked once per call
// (ops/cpu_capability.hpp).
#pragma once

#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include <tensorplay/core/convert.hpp>
#include <tensorplay/core/half.hpp>
#include <tensorplay/ops/cpu_capability.hpp>
#include <tensorplay/ops/tensor_iterator.hpp>

namespace tensorplay {

// The type a kernel computes in for elements stored as T (at::opmath_type).
template <class T>
struct opmath_type {
  using type = T;
};
template <>
struct opmath_type<Half> {
  using type = float;
};
template <>
struct opmath_type<BFloat16> {
  using type = float;
};
template <class T>
using opmath_t = typename opmath_type<T>::type;

namespace detail {

template <class T>
inline opmath_t<T> load_op(const char* p) noexcept {
  return static_cast<opmath_t<T>>(*reinterpret_cast<const T*>(p));
}

// S: the input (0-based) that is a broadcast scalar in this row, or -1 for none.
template <int S, class Out, class... In, std::size_t... I, class Op>
inline void contiguous_row(char** data, int64_t n, const Op& op, std::index_sequence<I...>) {
  Out* out = reinterpret_cast<Out*>(data[0]);
  const std::tuple<const In*...> in{reinterpret_cast<const In*>(data[I + 1])...};
  const std::tuple<opmath_t<In>...> scalar{
      (int(I) == S ? load_op<In>(data[I + 1]) : opmath_t<In>{})...};
  for (int64_t i = 0; i < n; ++i) {
    out[i] =
        convert<Out>(op((int(I) == S ? std::get<I>(scalar) : opmath_t<In>(std::get<I>(in)[i]))...));
  }
}

template <class Out, class... In, std::size_t... I, class Op>
inline void strided_row(char** data, const int64_t* strides, int64_t n, const Op& op,
                        std::index_sequence<I...>) {
  char* out = data[0];
  for (int64_t i = 0; i < n; ++i) {
    *reinterpret_cast<Out*>(out + i * strides[0]) =
        convert<Out>(op(load_op<In>(data[I + 1] + i * strides[I + 1])...));
  }
}

template <class Out, class... In, class Op>
inline void elementwise_row_impl(char** data, const int64_t* strides, int64_t n, const Op& op) {
  using Seq = std::index_sequence_for<In...>;
  constexpr int N = int(sizeof...(In));
  if (is_inner_contiguous<Out, In...>(strides)) {
    return contiguous_row<-1, Out, In...>(data, n, op, Seq{});
  }
  if constexpr (N == 2) {
    // One broadcast input, everything else contiguous.
    bool done = false;
    [&]<std::size_t... S>(std::index_sequence<S...>) {
      (void)((!done && strides[S + 1] == 0 &&
              [&] {
                const int64_t sizes[] = {int64_t(sizeof(Out)), int64_t(sizeof(In))...};
                for (int k = 0; k <= N; ++k)
                  if (k != int(S) + 1 && strides[k] != sizes[k]) return false;
                return true;
              }() &&
              (contiguous_row<int(S), Out, In...>(data, n, op, Seq{}), done = true)) ||
             ...);
    }
    (Seq{});
    if (done) return;
  }
  strided_row<Out, In...>(data, strides, n, op, Seq{});
}

// One row through a plain function pointer with the op behind a `const void*`: the iterator
// walk and the thread split are instantiated once for every kernel, and only this row once per
// (op, dtypes). Hundreds of such pairs exist in the ops headers; each including file pays for
// what it instantiates.
using RowFn = void (*)(const void* op, char** data, const int64_t* strides, int64_t n);

template <class Op, class Out, class... In>
struct ElementwiseRowKernel {
  template <CpuCapability>
  static void run(const void* op, char** data, const int64_t* strides, int64_t n) {
    elementwise_row_impl<Out, In...>(data, strides, n, *static_cast<const Op*>(op));
  }
};

// The row for (Op, Out, In...) compiled for the current CPU level.
template <class Op, class Out, class... In>
RowFn elementwise_row_fn() noexcept {
  return cpu_dispatch<ElementwiseRowKernel<Op, Out, In...>,
                      void(const void*, char**, const int64_t*, int64_t),
                      kDispatchedTypes<Out, In...>>();
}

// Runs a row kernel over the iterator (threads as for_each decides) and finishes it.
template <class = void>
void run_rows(const TensorIterator& iter, RowFn fn, const void* op) {
  iter.for_each(
      [fn, op](char** data, const int64_t* strides, int64_t n) { fn(op, data, strides, n); });
  iter.finish();
}

}  // namespace detail

// Runs `op` over every element of `iter` (outputs: one) and finishes the iterator (converted
// outputs written back, versions bumped).
template <class Out, class... In, class Op>
void elementwise(const TensorIterator& iter, const Op& op) {
  TP_CHECK(iter.noutputs() == 1 && iter.ninputs() == int(sizeof...(In)),
           "elementwise: operand count mismatch");
  detail::run_rows(iter, detail::elementwise_row_fn<Op, Out, In...>(), &op);
}

}  // namespace tensorplay
