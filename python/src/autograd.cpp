// Autograd from Python: grad_fn objects, backward, autograd.grad, hooks with removable handles,
// and the grad-mode switches the Python context managers (tensorplay/autograd) are built on.
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include "bindings.hpp"

namespace tensorplay::python::bindings {
namespace {

using autograd::Node;

// A Python hook: removable (the handle drops the callable), run with the GIL re-taken since
// backward runs with it released.
struct PyHook {
  py::object fn;
  bool removed = false;
  ~PyHook() {
    if (fn) {
      py::gil_scoped_acquire gil;
      fn = py::object();
    }
  }
};

struct RemovableHandle {
  std::shared_ptr<PyHook> hook;
  void remove() {
    if (!hook) return;
    hook->removed = true;
    hook->fn = py::object();
  }
};

std::vector<Tensor> tensors_of(PyObject* obj, const char* what) {
  if (is_tensor(obj)) return {unchecked_tensor(obj)};
  std::vector<Tensor> out;
  TP_CHECK_TYPE(PyTuple_Check(obj) || PyList_Check(obj), what,
                " must be a Tensor or a sequence of Tensors, not ", Py_TYPE(obj)->tp_name);
  const Py_ssize_t n = PySequence_Fast_GET_SIZE(obj);
  for (Py_ssize_t i = 0; i < n; ++i) {
    PyObject* item = PySequence_Fast_GET_ITEM(obj, i);
    if (item == Py_None) {
      out.emplace_back();
      continue;
    }
    TP_CHECK_TYPE(is_tensor(item), what, " must contain Tensors, not ", Py_TYPE(item)->tp_name);
    out.push_back(unchecked_tensor(item));
  }
  return out;
}

// Inference mode entered and left from Python (`with tp.inference_mode():`).
struct InferenceModeScope {
  explicit InferenceModeScope(bool on) : enabled(on) {}
  bool enabled;
  std::optional<InferenceMode> guard;
  void enter() { guard.emplace(enabled); }
  void exit() { guard.reset(); }
};

}  // namespace

PyObject* node_to_python(const std::shared_ptr<Node>& node) {
  if (!node) Py_RETURN_NONE;
  return py::cast(node).release().ptr();
}

void register_autograd(const Target& t, py::module_& m) {
  py::class_<Node, std::shared_ptr<Node>>(m, "Node")
      .def("name", &Node::name)
      .def_property_readonly("next_functions",
                             [](const Node& n) {
                               py::tuple out(n.next_edges().size());
                               for (std::size_t i = 0; i < n.next_edges().size(); ++i) {
                                 const auto& e = n.next_edges()[i];
                                 out[i] = py::make_tuple(
                                     e.function ? py::cast(e.function) : py::none(), e.input_nr);
                               }
                               return out;
                             })
      .def("__repr__", [](const Node& n) {
        char address[32];
        std::snprintf(address, sizeof address, "%p", static_cast<const void*>(&n));
        return "<" + n.name() + " object at " + address + ">";
      });

  py::class_<RemovableHandle>(m, "RemovableHandle").def("remove", &RemovableHandle::remove);

  py::class_<InferenceModeScope>(m, "_InferenceMode")
      .def(py::init<bool>())
      .def("__enter__", &InferenceModeScope::enter)
      .def("__exit__", [](InferenceModeScope& s, py::args) { s.exit(); });

  m.def("is_grad_enabled", &is_grad_enabled);
  m.def("_set_grad_enabled", &set_grad_enabled);
  m.def("is_inference_mode_enabled", &InferenceMode::is_enabled);

  // autograd.backward / autograd.grad: the Python wrappers normalize the arguments.
  m.def("_backward", [](py::handle tensors, py::handle grads, std::optional<bool> retain_graph,
                        bool create_graph) {
    auto outs = tensors_of(tensors.ptr(), "tensors");
    auto gs = grads.is_none() ? std::vector<Tensor>{} : tensors_of(grads.ptr(), "grad_tensors");
    py::gil_scoped_release nogil;
    autograd::backward(outs, gs, retain_graph, create_graph);
  });
  m.def("_grad", [](py::handle outputs, py::handle inputs, py::handle grad_outputs,
                    std::optional<bool> retain_graph, bool create_graph, bool allow_unused) {
    auto outs = tensors_of(outputs.ptr(), "outputs");
    auto ins = tensors_of(inputs.ptr(), "inputs");
    auto gs = grad_outputs.is_none() ? std::vector<Tensor>{}
                                     : tensors_of(grad_outputs.ptr(), "grad_outputs");
    std::vector<Tensor> result;
    {
      py::gil_scoped_release nogil;
      result = autograd::grad(outs, ins, gs, retain_graph, create_graph, allow_unused);
    }
    return py::reinterpret_steal<py::tuple>(to_python(result));
  });

  Registry::method(t.type, t.module, "backward",
                   overload("self, gradient=None, retain_graph=None, create_graph=False",
                            [](const Tensor& self, const std::optional<Tensor>& gradient,
                               std::optional<bool> retain_graph, bool create_graph) {
                              // Always without the GIL: the graph may be long even when `self` is
                              // small.
                              detail::GilRelease gil(true);
                              self.backward(gradient.value_or(Tensor()), retain_graph,
                                            create_graph);
                            }));
  Registry::method(t.type, t.module, "requires_grad_",
                   overload("self, requires_grad=True",
                            [](const Tensor& self, bool requires_grad) -> const Tensor& {
                              // torch's Python method words it its own way (C++: "Only
                              // Tensors of floating point and complex dtype ...").
                              TP_CHECK(!requires_grad || tensorplay::is_floating_point(self.dtype()),
                                       "only Tensors of floating point dtype can require "
                                       "gradients");
                              return self.requires_grad_(requires_grad);
                            }));
  Registry::method(t.type, t.module, "retain_grad",
                   overload("self", [](const Tensor& self) { self.retain_grad(); }));
  Registry::method(t.type, t.module, "_is_view",
                   overload("self", [](const Tensor& self) { return self.is_view(); }));
  Registry::method_and_function(
      t.type, t.module, "detach",
      overload("input", [](const Tensor& self) { return self.detach(); }));
  Registry::method_and_function(
      t.type, t.module, "detach_",
      overload("input", [](Tensor& self) -> Tensor& { return self.detach_(); }));
  Registry::method(t.type, t.module, "register_hook",
                   overload("self, hook", [](const Tensor& self, PyObject* fn) {
                     TP_CHECK_TYPE(PyCallable_Check(fn), "register_hook expects a callable, got ",
                                   Py_TYPE(fn)->tp_name);
                     auto hook = std::make_shared<PyHook>();
                     hook->fn = py::reinterpret_borrow<py::object>(fn);
                     self.register_hook([hook](const Tensor& grad) -> Tensor {
                       py::gil_scoped_acquire gil;
                       if (hook->removed) return Tensor();
                       py::object r = hook->fn(py::reinterpret_steal<py::object>(wrap(grad)));
                       if (r.is_none()) return Tensor();
                       TP_CHECK_TYPE(is_tensor(r.ptr()), "hook returned an object of type ",
                                     Py_TYPE(r.ptr())->tp_name, ", expected a Tensor or None");
                       return unchecked_tensor(r.ptr());
                     });
                     return py::cast(RemovableHandle{hook}).release().ptr();
                   }));
}

}  // namespace tensorplay::python::bindings
