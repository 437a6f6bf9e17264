// tensorplay._C._nn's padding and upsampling ops (nn/functional/padding.hpp, upsampling.hpp),
// named and ordered as torch._C._nn's: pad, reflection_pad1d/2d/3d, replication_pad1d/2d/3d,
// and the upsample_* ops in their .vec form (output_size or scale_factors), which
// tensorplay.nn.functional.interpolate calls as torch's does; and torch.constant_pad_nd.
#include "bindings.hpp"

namespace tensorplay::python::bindings {
namespace {

using OptDims = std::optional<IntArrayRef>;

// float[]?: None, or a sequence of numbers (torch's scale_factors). Held for the call.
std::optional<std::vector<double>> float_list(PyObject* obj) {
  if (obj == Py_None) return std::nullopt;
  TP_CHECK_TYPE(PySequence_Check(obj) && !PyUnicode_Check(obj),
                "scale_factors must be tuple of floats, but got ", Py_TYPE(obj)->tp_name);
  py::sequence seq = py::reinterpret_borrow<py::sequence>(obj);
  std::vector<double> out;
  for (const py::handle item : seq) {
    const double v = PyFloat_AsDouble(item.ptr());
    if (v == -1.0 && PyErr_Occurred()) throw py::error_already_set();
    out.push_back(v);
  }
  return out;
}
std::optional<ArrayRef<double>> as_ref(const std::optional<std::vector<double>>& v) {
  if (!v) return std::nullopt;
  return ArrayRef<double>(*v);
}

}  // namespace

void register_nn_padding(const Target& t, PyObject* nn) {
  Registry::function(
      t.module, "constant_pad_nd",
      overload("input, pad, value=0", [](const Tensor& x, IntArrayRef pad, const Scalar& value) {
        return tensorplay::constant_pad_nd(x, pad, value);
      }));
  Registry::function(
      nn, "pad",
      overload("input, pad, mode=\"constant\", value=None",
               [](const Tensor& x, IntArrayRef pad, std::string_view mode,
                  std::optional<double> value) { return tensorplay::pad(x, pad, mode, value); }));
#define TP_NN_PAD_(name)                                                                        \
  Registry::function(nn, #name, overload("input, padding", [](const Tensor& x, IntArrayRef p) { \
                       return tensorplay::name(x, p);                                           \
                     }))
  TP_NN_PAD_(reflection_pad1d);
  TP_NN_PAD_(reflection_pad2d);
  TP_NN_PAD_(reflection_pad3d);
  TP_NN_PAD_(replication_pad1d);
  TP_NN_PAD_(replication_pad2d);
  TP_NN_PAD_(replication_pad3d);
#undef TP_NN_PAD_

  // upsample_*(input, output_size, [align_corners,] scale_factors).
#define TP_NN_UPSAMPLE_(name)                                                               \
  Registry::function(nn, #name,                                                             \
                     overload("input, output_size, scale_factors",                          \
                              [](const Tensor& x, const OptDims& size, PyObject* factors) { \
                                const auto f = float_list(factors);                         \
                                return tensorplay::name(x, size, as_ref(f));                \
                              }))
  TP_NN_UPSAMPLE_(upsample_nearest1d);
  TP_NN_UPSAMPLE_(upsample_nearest2d);
  TP_NN_UPSAMPLE_(upsample_nearest3d);
  TP_NN_UPSAMPLE_(_upsample_nearest_exact1d);
  TP_NN_UPSAMPLE_(_upsample_nearest_exact2d);
  TP_NN_UPSAMPLE_(_upsample_nearest_exact3d);
#undef TP_NN_UPSAMPLE_
#define TP_NN_UPSAMPLE_(name)                                                            \
  Registry::function(                                                                    \
      nn, #name,                                                                         \
      overload("input, output_size, align_corners, scale_factors",                       \
               [](const Tensor& x, const OptDims& size, bool align, PyObject* factors) { \
                 const auto f = float_list(factors);                                     \
                 return tensorplay::name(x, size, align, as_ref(f));                     \
               }))
  TP_NN_UPSAMPLE_(upsample_linear1d);
  TP_NN_UPSAMPLE_(upsample_bilinear2d);
  TP_NN_UPSAMPLE_(upsample_bicubic2d);
  TP_NN_UPSAMPLE_(upsample_trilinear3d);
#undef TP_NN_UPSAMPLE_
}

}  // namespace tensorplay::python::bindings
