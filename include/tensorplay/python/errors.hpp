// C++ exceptions -> Python exceptions, one mapping for the whole binding.
//
// tensorplay::IndexError / ValueError / TypeError / NotImplementedError become the Python
// exceptions of the same names; every other tensorplay::Error and std::exception becomes a
// RuntimeError, and std::bad_alloc a MemoryError. The message is what() unchanged. A Python
// exception raised inside a callback (a hook) crosses the C++ frames as
// pybind11::error_already_set and is restored as it was.
#pragma once

#include <pybind11/pybind11.h>

#include <exception>
#include <new>

#include "tensorplay/core/error.hpp"

namespace tensorplay::python {

// Call only inside a catch block: sets the Python error for the exception being handled.
inline void set_python_error() noexcept {
  try {
    throw;
  } catch (pybind11::error_already_set& e) {
    e.restore();
  } catch (const pybind11::builtin_exception& e) {
    e.set_error();
  } catch (const IndexError& e) {
    PyErr_SetString(PyExc_IndexError, e.what());
  } catch (const ValueError& e) {
    PyErr_SetString(PyExc_ValueError, e.what());
  } catch (const TypeError& e) {
    PyErr_SetString(PyExc_TypeError, e.what());
  } catch (const NotImplementedError& e) {
    PyErr_SetString(PyExc_NotImplementedError, e.what());
  } catch (const std::bad_alloc&) {
    PyErr_NoMemory();
  } catch (const std::exception& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  } catch (...) {
    PyErr_SetString(PyExc_RuntimeError, "unknown C++ exception");
  }
}

// The same mapping for functions bound through pybind11 itself.
inline void register_exception_translator() {
  pybind11::register_exception_translator([](std::exception_ptr p) {
    if (!p) return;
    try {
      std::rethrow_exception(p);
    } catch (...) {
      set_python_error();
    }
  });
}

}  // namespace tensorplay::python

// Brackets the body of a CPython entry point: any C++ exception becomes the Python error and
// the entry returns `on_error` (nullptr or -1, as the slot's protocol wants).
#define TP_PY_TRY try {
#define TP_PY_CATCH(on_error)                 \
  }                                           \
  catch (...) {                               \
    ::tensorplay::python::set_python_error(); \
    return on_error;                          \
  }
