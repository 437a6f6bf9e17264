// The one dtype dispatch point: turns a runtime DType into a C++ type for a templated lambda,
//
//   dispatch_dtype(t.dtype(), [&]<class T>() { ... T* p = t.data_ptr<T>(); ... });
//
// Every op that touches elements goes through here rather than writing its own switch.
//
// Only the dense types dispatch: a quantized tensor reaching a dense kernel fails here, once for
// every op, with PyTorch's "Could not run ... 'QuantizedCPU' backend" (no kernel is instantiated
// for the quantized types; their ops are in ops/quantized.hpp).
#pragma once

#include <utility>

#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/error.hpp>

namespace tensorplay {
namespace detail {
// A dense op given a quantized tensor (torch 1.13 names the op; the dispatch point knows only the
// dtype).
[[noreturn, gnu::cold, gnu::noinline]] inline void throw_quantized_not_implemented(DType t) {
  throw_error<NotImplementedError>(
      "Could not run this operation with arguments from the 'QuantizedCPU' backend: it has no "
      "kernel for quantized tensors (dtype ",
      t, "); dequantize() the tensor first");
}
}  // namespace detail

template <class F>
decltype(auto) dispatch_dtype(DType t, F&& f) {
  switch (t) {
    case DType::Bool: return std::forward<F>(f).template operator()<bool>();
    case DType::UInt8: return std::forward<F>(f).template operator()<uint8_t>();
    case DType::Int8: return std::forward<F>(f).template operator()<int8_t>();
    case DType::Int16: return std::forward<F>(f).template operator()<int16_t>();
    case DType::Int32: return std::forward<F>(f).template operator()<int32_t>();
    case DType::Int64: return std::forward<F>(f).template operator()<int64_t>();
    case DType::Float16: return std::forward<F>(f).template operator()<Half>();
    case DType::BFloat16: return std::forward<F>(f).template operator()<BFloat16>();
    case DType::Float32: return std::forward<F>(f).template operator()<float>();
    case DType::Float64: return std::forward<F>(f).template operator()<double>();
    case DType::QInt8:
    case DType::QUInt8:
    case DType::QInt32: detail::throw_quantized_not_implemented(t);
  }
  TP_ERROR("dispatch_dtype: invalid dtype ", static_cast<int>(t));
}

}  // namespace tensorplay
