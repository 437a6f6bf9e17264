// The binding layer, header-only: include this (not the umbrella) from a pybind11 extension.
//
//   tensor_object.hpp  TensorObject, wrap() and the identity cache
//   unwrap.hpp         tensor_probe() and tensor_value/ref/mut()
//   arg_traits.hpp     Arg<T>: the non-throwing probe and the conversion per parameter type
//   to_python.hpp      results back to Python
//   fastcall.hpp       METH_FASTCALL entries generated from C++ signatures, Registry
//   errors.hpp         C++ exception -> Python exception
//   enum_object.hpp, device_object.hpp, size_object.hpp: dtype/memory_format, device, Size
#pragma once

#include "tensorplay/python/arg_traits.hpp"
#include "tensorplay/python/device_object.hpp"
#include "tensorplay/python/enum_object.hpp"
#include "tensorplay/python/errors.hpp"
#include "tensorplay/python/fastcall.hpp"
#include "tensorplay/python/size_object.hpp"
#include "tensorplay/python/tensor_object.hpp"
#include "tensorplay/python/to_python.hpp"
#include "tensorplay/python/unwrap.hpp"
