// The one dtype dispatch point: turns a runtime DType into a C++ type for a templated lambda,
//
//   dispatch_dtype(t.dtype(), [&]<class T>() { ... T* p = t.data_ptr<T>(); ... });
//
// Every op that touches elements goes through here rather than writing its own switch.
#pragma once

#include <utility>

#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/error.hpp>

namespace tensorplay {

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
  }
  TP_ERROR("dispatch_dtype: invalid dtype ", static_cast<int>(t));
}

}  // namespace tensorplay
