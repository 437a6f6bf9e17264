// The generated METH_FASTCALL entry points.
//
// An op is declared once as a list of overloads, each a schema (names, keyword-only marker,
// defaults, in Python's own syntax) and a captureless lambda whose C++ signature gives the
// types:
//
//   def_method_and_function(type, module, "add",
//       overload("input, other, *, alpha=1",
//                [](const Tensor& self, const Tensor& other, const Scalar& alpha) {
//                  return self.add(other, alpha); }),
//       overload("input, other, alpha=1",
//                [](const Tensor& self, const Scalar& other, const Scalar& alpha) {
//                  return self.add(other, alpha); }));
//
// From that, entry<IsMethod, Fs...> is instantiated: a PyCFunctionFastWithKeywords that binds the
// argument array (positional, then keyword names) straight into a stack array of slots - no
// tuple, no dict - probes each overload's parameters without converting (Arg<T>::probe), converts
// only for the first overload whose probes all pass, runs the lambda (with the GIL released when
// the tensors involved are large, unless the overload takes or returns PyObject*: those work
// with the C API and keep it) and wraps the result. When nothing matches, the TypeError names
// the bad argument (one overload) or lists every accepted signature (several).
//
// The schema is parsed once, at registration: names are interned, defaults evaluated
// (ast.literal_eval, or a name of the module such as `contiguous_format`) and probed against
// their parameter's type, and the arity checked against the lambda's - so a mistake in a table
// fails the import, not a call.
#pragma once

#include <array>
#include <deque>
#include <memory>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "tensorplay/config.hpp"
#include "tensorplay/python/arg_traits.hpp"
#include "tensorplay/python/errors.hpp"
#include "tensorplay/python/to_python.hpp"

#ifndef TENSORPLAY_PY_GIL_RELEASE_NUMEL
// Kernels touching at least this many elements run with the GIL released. Below it, releasing
// and re-taking the GIL (two atomic handshakes, ~0.1 us) would cost more than the kernel.
#define TENSORPLAY_PY_GIL_RELEASE_NUMEL 32768
#endif

namespace tensorplay::python {

// ---- signatures of the C++ callables -------------------------------------------------------
namespace detail {
template <class M>
struct CallTraits;
template <class C, class R, class... A>
struct CallTraits<R (C::*)(A...) const> {
  using result = R;
  using args = std::tuple<A...>;
};
template <class F>
using Traits = CallTraits<decltype(&F::operator())>;
}  // namespace detail

template <class F>
struct Overload {
  static_assert(std::is_empty_v<F> && std::is_default_constructible_v<F>,
                "an overload is a captureless lambda");
  const char* schema;
};
template <class F>
constexpr Overload<F> overload(const char* schema, F) noexcept {
  return {schema};
}

// ---- parsed schemas --------------------------------------------------------------------------
struct Param {
  std::string name;
  std::string type;
  PyObject* interned = nullptr;       // the name, interned: keywords compare by pointer first
  PyObject* default_value = nullptr;  // owned (immortal: lives as long as the module)
  bool kwonly = false;
  bool varargs = false;  // `*size`: takes the run of remaining positional arguments
};

struct OverloadSpec {
  std::vector<Param> params;
  std::size_t npositional = 0;  // parameters that can be given by position
  std::string signature;        // "(Tensor input, Tensor other, *, Number alpha=1)"
};

inline constexpr std::size_t kMaxParams = 16;

namespace detail {

inline std::vector<std::string> split_schema(std::string_view s) {
  std::vector<std::string> out;
  int depth = 0;
  std::string cur;
  for (char c : s) {
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (c == ',' && depth == 0) {
      out.push_back(cur);
      cur.clear();
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) out.push_back(cur);
  for (auto& p : out) {
    const auto b = p.find_first_not_of(' ');
    const auto e = p.find_last_not_of(' ');
    p = b == std::string::npos ? "" : p.substr(b, e - b + 1);
  }
  return out;
}

inline PyObject* eval_default(const std::string& text, PyObject* module) {
  namespace py = pybind11;
  try {
    return py::module_::import("ast").attr("literal_eval")(text).release().ptr();
  } catch (py::error_already_set&) {
    PyObject* v = PyObject_GetAttrString(module, text.c_str());
    if (!v) throw;
    return v;
  }
}

template <class Tuple, std::size_t... I>
std::vector<std::string> type_names(std::index_sequence<I...>) {
  return {std::string(ArgOf<std::tuple_element_t<I, Tuple>>::name)...};
}
template <class Tuple, std::size_t... I>
bool probe_one(std::size_t k, const Slot& s, std::index_sequence<I...>) noexcept {
  bool ok = false;
  ((I == k ? (ok = ArgOf<std::tuple_element_t<I, Tuple>>::probe(s), 0) : 0), ...);
  return ok;
}

}  // namespace detail

template <class F>
OverloadSpec parse_overload(const char* op, const char* schema, PyObject* module) {
  using Args = typename detail::Traits<F>::args;
  constexpr std::size_t n = std::tuple_size_v<Args>;
  static_assert(n <= kMaxParams, "too many parameters");
  const auto types = detail::type_names<Args>(std::make_index_sequence<n>());
  OverloadSpec spec;
  bool kwonly = false;
  for (const std::string& item : detail::split_schema(schema)) {
    if (item == "*") {
      kwonly = true;
      continue;
    }
    Param p;
    std::string text = item;
    if (text.starts_with('*')) {
      p.varargs = true;
      text.erase(0, 1);
    }
    if (const auto eq = text.find('='); eq != std::string::npos) {
      p.default_value = detail::eval_default(text.substr(eq + 1), module);
      text.resize(eq);
    }
    p.name = text;
    p.kwonly = kwonly;
    if (p.varargs) kwonly = true;
    if (!p.kwonly) spec.npositional = spec.params.size() + 1;
    spec.params.push_back(std::move(p));
  }
  if (spec.params.size() != n) {
    throw Error(std::string("binding of ") + op + "(" + schema + "): the schema names " +
                std::to_string(spec.params.size()) + " parameters, the C++ function takes " +
                std::to_string(n));
  }
  std::string sig = "(";
  for (std::size_t k = 0; k < n; ++k) {
    Param& p = spec.params[k];
    p.type = types[k];
    p.interned = PyUnicode_InternFromString(p.name.c_str());
    if (p.default_value &&
        !detail::probe_one<Args>(k, Slot{p.default_value}, std::make_index_sequence<n>())) {
      throw Error(std::string("binding of ") + op + ": the default of '" + p.name + "' is not a " +
                  p.type);
    }
    if (k) sig += ", ";
    if (p.kwonly && !p.varargs && (k == 0 || !spec.params[k - 1].kwonly)) sig += "*, ";
    sig += p.type + " " + (p.varargs ? "*" : "") + p.name;
  }
  spec.signature = sig + ")";
  return spec;
}

// ---- binding arguments to parameters ---------------------------------------------------------
namespace detail {

inline std::size_t find_param(const OverloadSpec& spec, PyObject* name) noexcept {
  for (std::size_t k = 0; k < spec.params.size(); ++k) {
    if (spec.params[k].interned == name) return k;
  }
  for (std::size_t k = 0; k < spec.params.size(); ++k) {
    if (PyUnicode_Compare(spec.params[k].interned, name) == 0) return k;
  }
  return spec.params.size();
}

// Fills slots[0..params) or returns false (with `why` set when asked) if the call's shape
// (counts and names) cannot bind to this overload. Types are not looked at here.
inline bool bind(const OverloadSpec& spec, PyObject* self, PyObject* const* args, Py_ssize_t nargs,
                 PyObject* kwnames, Slot* slots, std::string* why = nullptr) {
  const std::size_t n = spec.params.size();
  for (std::size_t k = 0; k < n; ++k) slots[k] = Slot{};
  std::size_t p = 0;
  if (self) slots[p++].obj = self;
  for (Py_ssize_t a = 0; a < nargs; ++a) {
    if (p >= spec.npositional) {
      if (why) {
        *why = "takes " + std::to_string(spec.npositional - (self ? 1 : 0)) +
               " positional arguments but " + std::to_string(nargs) + " were given";
      }
      return false;
    }
    if (spec.params[p].varargs) {
      const Py_ssize_t rest = nargs - a;
      // One argument is the list itself (f((2, 3)), f([a, b])) unless it is an element: an int
      // (f(2)) or a tensor (f(t) for `*tensors`).
      if (rest == 1 && !is_int_like(args[a]) && !is_tensor(args[a])) {
        slots[p].obj = args[a];
      } else {
        slots[p].items = args + a;
        slots[p].nitems = rest;
      }
      ++p;
      break;
    }
    slots[p++].obj = args[a];
  }
  if (kwnames) {
    const Py_ssize_t nkw = PyTuple_GET_SIZE(kwnames);
    for (Py_ssize_t j = 0; j < nkw; ++j) {
      PyObject* name = PyTuple_GET_ITEM(kwnames, j);
      const std::size_t k = find_param(spec, name);
      if (k == n) {
        if (why)
          *why = std::string("got an unexpected keyword argument '") + PyUnicode_AsUTF8(name) + "'";
        return false;
      }
      if (slots[k].filled()) {
        if (why) *why = "got multiple values for argument '" + spec.params[k].name + "'";
        return false;
      }
      slots[k].obj = args[nargs + j];
    }
  }
  for (std::size_t k = 0; k < n; ++k) {
    if (slots[k].filled()) continue;
    if (!spec.params[k].default_value) {
      if (why) *why = "missing required argument '" + spec.params[k].name + "'";
      return false;
    }
    slots[k].obj = spec.params[k].default_value;
  }
  return true;
}

inline std::string py_type_name(PyObject* obj) {
  if (is_tensor(obj)) return "Tensor";
  return Py_TYPE(obj)->tp_name;
}

// The TypeError when no overload took the arguments (slow path: builds the message).
template <class... Fs>
[[noreturn]] void no_match(const char* name, const std::vector<OverloadSpec>& specs, PyObject* self,
                           PyObject* const* args, Py_ssize_t nargs, PyObject* kwnames,
                           bool (*const probes[])(const OverloadSpec&, const Slot*, std::size_t*)) {
  Slot slots[kMaxParams];
  if (specs.size() == 1) {
    std::string why;
    if (!bind(specs[0], self, args, nargs, kwnames, slots, &why)) {
      throw TypeError(std::string(name) + "() " + why);
    }
    std::size_t bad = 0;
    probes[0](specs[0], slots, &bad);
    const Param& p = specs[0].params[bad];
    const Slot& s = slots[bad];
    std::string got = s.obj ? py_type_name(s.obj) : "tuple";
    if (s.items) {
      for (Py_ssize_t i = 0; i < s.nitems; ++i) {
        if (!is_int_like(s.items[i])) got = "tuple containing " + py_type_name(s.items[i]);
      }
    }
    std::string where;
    const bool by_keyword = kwnames && find_param(specs[0], p.interned) < specs[0].params.size() &&
                            bad >= static_cast<std::size_t>(nargs) + (self ? 1 : 0);
    if (!by_keyword) where = " (position " + std::to_string(bad + (self ? 0 : 1)) + ")";
    throw TypeError(std::string(name) + "(): argument '" + p.name + "'" + where + " must be " +
                    p.type + ", not " + got);
  }
  std::string got;
  for (Py_ssize_t a = 0; a < nargs; ++a) got += (a ? ", " : "") + py_type_name(args[a]);
  if (kwnames) {
    for (Py_ssize_t j = 0; j < PyTuple_GET_SIZE(kwnames); ++j) {
      got += (got.empty() ? "" : ", ") +
             std::string(PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, j))) + "=" +
             py_type_name(args[nargs + j]);
    }
  }
  std::string msg = std::string(name) + "() received an invalid combination of arguments - got (" +
                    got + "), but expected one of:\n";
  for (const auto& spec : specs) {
    std::string sig = spec.signature;
    if (self) {  // a method does not list `self`
      const auto comma = sig.find(", ");
      sig = comma == std::string::npos ? "()" : "(" + sig.substr(comma + 2);
    }
    msg += " * " + sig + "\n";
  }
  throw TypeError(msg);
}

// Releases the GIL for the lifetime of the object when asked to (and re-takes it on unwinding).
class GilRelease {
 public:
  explicit GilRelease(bool release) noexcept : state_(release ? PyEval_SaveThread() : nullptr) {}
  ~GilRelease() {
    if (state_) PyEval_RestoreThread(state_);
  }
  GilRelease(const GilRelease&) = delete;
  GilRelease& operator=(const GilRelease&) = delete;

 private:
  PyThreadState* state_;
};

template <class F>
struct Invoker {
  using Args = typename Traits<F>::args;
  using R = typename Traits<F>::result;
  static constexpr std::size_t n = std::tuple_size_v<Args>;
  // An overload that takes or returns Python objects works with the C API: it keeps the GIL.
  static constexpr bool kMayReleaseGil =
      !std::is_same_v<R, PyObject*> && ![]<std::size_t... I>(std::index_sequence<I...>) {
    return (std::is_same_v<std::remove_cvref_t<std::tuple_element_t<I, Args>>, PyObject*> || ...);
  }
  (std::make_index_sequence<n>());

  // Probes every parameter; on failure `bad` (when given) is the first one that failed.
  static bool probe(const OverloadSpec&, const Slot* slots, std::size_t* bad) noexcept {
    return probe_impl(slots, bad, std::make_index_sequence<n>());
  }
  template <std::size_t... I>
  static bool probe_impl(const Slot* slots, std::size_t* bad, std::index_sequence<I...>) noexcept {
    std::size_t failed = n;
    const bool ok =
        ((ArgOf<std::tuple_element_t<I, Args>>::probe(slots[I]) || (failed = I, false)) && ...);
    if (bad) *bad = failed;
    return ok;
  }

  static PyObject* call(const Slot* slots) {
    return call_impl(slots, std::make_index_sequence<n>());
  }
  template <std::size_t... I>
  static PyObject* call_impl(const Slot* slots, std::index_sequence<I...>) {
    // Braced initialization converts left to right; the holders outlive the call.
    std::tuple<decltype(ArgOf<std::tuple_element_t<I, Args>>::load(slots[I]))...> held{
        ArgOf<std::tuple_element_t<I, Args>>::load(slots[I])...};
    const int64_t work =
        (int64_t{0} + ... + arg_work<std::tuple_element_t<I, Args>>(std::get<I>(held)));
    const bool release = kMayReleaseGil && work >= TENSORPLAY_PY_GIL_RELEASE_NUMEL;
    if constexpr (std::is_void_v<R>) {
      {
        GilRelease gil(release);
        F{}(std::get<I>(held)...);
      }
      Py_RETURN_NONE;
    } else if constexpr (std::is_reference_v<R>) {
      std::remove_reference_t<R>* result;
      {
        GilRelease gil(release);
        result = &F{}(std::get<I>(held)...);
      }
      return to_python(*result);
    } else {
      std::optional<R> result;
      {
        GilRelease gil(release);
        result.emplace(F{}(std::get<I>(held)...));
      }
      return to_python(std::move(*result));
    }
  }
};

template <class... Fs>
struct OpTable {
  static inline const char* name = nullptr;
  static inline std::vector<OverloadSpec> specs;
};

template <bool IsMethod, class... Fs>
PyObject* entry(PyObject* self, PyObject* const* args, Py_ssize_t nargs_f, PyObject* kwnames) {
  TP_PY_TRY
  const Py_ssize_t nargs = PyVectorcall_NARGS(nargs_f);
  PyObject* bound_self = IsMethod ? self : nullptr;
  const auto& specs = OpTable<Fs...>::specs;
  Slot slots[kMaxParams];
  PyObject* result = nullptr;
  std::size_t i = 0;
  const bool matched = ((bind(specs[i], bound_self, args, nargs, kwnames, slots) &&
                                 Invoker<Fs>::probe(specs[i], slots, nullptr)
                             ? (result = Invoker<Fs>::call(slots), true)
                             : (++i, false)) ||
                        ...);
  if (!matched) {
    static constexpr bool (*probes[])(const OverloadSpec&, const Slot*,
                                      std::size_t*) = {&Invoker<Fs>::probe...};
    no_match(OpTable<Fs...>::name, specs, bound_self, args, nargs, kwnames, probes);
  }
  return result;
  TP_PY_CATCH(nullptr)
}

}  // namespace detail

// ---- registration ----------------------------------------------------------------------------
// Method tables live as long as the process (CPython keeps pointers to them).
class Registry {
 public:
  // Tensor methods: self is the first parameter of every overload.
  template <class... Fs>
  static void method(PyTypeObject* type, PyObject* module, const char* name, Overload<Fs>... ovs) {
    prepare<Fs...>(module, name, ovs...);
    add_to_type(type, make_def(name, &detail::entry<true, Fs...>));
  }
  // Module functions: tp.add(input, other).
  template <class... Fs>
  static void function(PyObject* module, const char* name, Overload<Fs>... ovs) {
    prepare<Fs...>(module, name, ovs...);
    add_to_module(module, make_def(name, &detail::entry<false, Fs...>));
  }
  // Both variants from one declaration, as torch's `variants: function, method`.
  template <class... Fs>
  static void method_and_function(PyTypeObject* type, PyObject* module, const char* name,
                                  Overload<Fs>... ovs) {
    prepare<Fs...>(module, name, ovs...);
    add_to_type(type, make_def(name, &detail::entry<true, Fs...>));
    add_to_module(module, make_def(name, &detail::entry<false, Fs...>));
  }

 private:
  template <class... Fs>
  static void prepare(PyObject* module, const char* name, Overload<Fs>... ovs) {
    using Table = detail::OpTable<Fs...>;
    if (!Table::specs.empty()) return;  // the same overload set registered as a second variant
    Table::name = name;
    (Table::specs.push_back(parse_overload<Fs>(name, ovs.schema, module)), ...);
  }
  static PyMethodDef* make_def(const char* name, _PyCFunctionFastWithKeywords fn) {
    static std::deque<PyMethodDef> defs;
    defs.push_back({name, reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(fn)),
                    METH_FASTCALL | METH_KEYWORDS, nullptr});
    return &defs.back();
  }
  // Our own tables must not define a name twice; a name pybind11 (or Python code) already
  // installed on the target wins and the generated entry is skipped.
  static bool first_definition(const void* target, const char* name) {
    static std::set<std::pair<const void*, std::string>> seen;
    if (!seen.emplace(target, name).second) {
      throw Error(std::string("duplicate binding of '") + name + "'");
    }
    return true;
  }
  static void add_to_type(PyTypeObject* type, PyMethodDef* def) {
    first_definition(type, def->ml_name);
    PyObject* dict = type->tp_dict;
    if (PyDict_GetItemString(dict, def->ml_name)) return;
    PyObject* descr = detail::checked(PyDescr_NewMethod(type, def));
    const int rc = PyDict_SetItemString(dict, def->ml_name, descr);
    Py_DECREF(descr);
    if (rc < 0) throw pybind11::error_already_set();
    PyType_Modified(type);
  }
  static void add_to_module(PyObject* module, PyMethodDef* def) {
    first_definition(module, def->ml_name);
    if (PyObject_HasAttrString(module, def->ml_name)) return;
    PyObject* name = detail::checked(PyModule_GetNameObject(module));
    PyObject* fn = PyCFunction_NewEx(def, nullptr, name);
    Py_DECREF(name);
    if (!fn || PyModule_AddObject(module, def->ml_name, fn) < 0) {
      Py_XDECREF(fn);
      throw pybind11::error_already_set();
    }
  }
};

}  // namespace tensorplay::python
