// Quantized tensors (ops/quantized.hpp): tp.quantize_per_tensor / quantize_per_channel /
// dequantize / _make_per_*_quantized_tensor, the Tensor methods int_repr, q_scale, q_zero_point,
// q_per_channel_*, qscheme and dequantize, and torch.ops.quantized's kernels in _C._quantized
// (python/tensorplay/ops.py presents them as tp.ops.quantized). The dtype objects
// (tp.quint8, ...) come from the dtype enum; the qscheme objects (tp.per_tensor_affine, ...)
// are made here.
#include "bindings.hpp"

namespace tensorplay::python::bindings {

void register_quantized(const Target& t, PyObject* quantized_module) {
  PyTypeObject* type = t.type;
  PyObject* m = t.module;
  init_enum_type<QScheme>(m);

  Registry::function(m, "quantize_per_tensor",
                     overload("input, scale, zero_point, dtype",
                              [](const Tensor& self, double scale, int64_t zero_point, DType d) {
                                return tensorplay::quantize_per_tensor(self, scale, zero_point, d);
                              }));
  Registry::function(m, "quantize_per_channel",
                     overload("input, scales, zero_points, axis, dtype",
                              [](const Tensor& self, const Tensor& scales,
                                 const Tensor& zero_points, int64_t axis, DType d) {
                                return tensorplay::quantize_per_channel(self, scales, zero_points,
                                                                        axis, d);
                              }));
  Registry::function(m, "_make_per_tensor_quantized_tensor",
                     overload("input, scale, zero_point",
                              [](const Tensor& self, double scale, int64_t zero_point) {
                                return tensorplay::_make_per_tensor_quantized_tensor(self, scale,
                                                                                     zero_point);
                              }));
  Registry::function(
      m, "_make_per_channel_quantized_tensor",
      overload("input, scale, zero_point, axis", [](const Tensor& self, const Tensor& scales,
                                                    const Tensor& zero_points, int64_t axis) {
        return tensorplay::_make_per_channel_quantized_tensor(self, scales, zero_points, axis);
      }));
  Registry::method_and_function(type, m, "dequantize", overload("input", [](const Tensor& self) {
                                  return tensorplay::dequantize(self);
                                }));
  Registry::method_and_function(
      type, m, "int_repr", overload("input", [](const Tensor& self) { return self.int_repr(); }));
  Registry::method_and_function(
      type, m, "q_scale", overload("input", [](const Tensor& self) { return self.q_scale(); }));
  Registry::method_and_function(type, m, "q_zero_point", overload("input", [](const Tensor& self) {
                                  return self.q_zero_point();
                                }));
  Registry::method_and_function(
      type, m, "q_per_channel_scales",
      overload("input", [](const Tensor& self) { return self.q_per_channel_scales(); }));
  Registry::method_and_function(
      type, m, "q_per_channel_zero_points",
      overload("input", [](const Tensor& self) { return self.q_per_channel_zero_points(); }));
  Registry::method_and_function(
      type, m, "q_per_channel_axis",
      overload("input", [](const Tensor& self) { return self.q_per_channel_axis(); }));
  Registry::method(type, m, "qscheme",
                   overload("self", [](const Tensor& self) { return self.qscheme(); }));
  // torch's is_quantized is a property; _tensor.py makes one of this.
  Registry::method(type, m, "_is_quantized",
                   overload("self", [](const Tensor& self) { return self.is_quantized(); }));

  // torch.ops.quantized (linear's prepacking is Python, in ops.py).
  Registry::function(quantized_module, "add",
                     overload("qa, qb, scale, zero_point",
                              [](const Tensor& a, const Tensor& b, double scale, int64_t zp) {
                                return tensorplay::quantized::add(a, b, scale, zp);
                              }));
  Registry::function(quantized_module, "add_relu",
                     overload("qa, qb, scale, zero_point",
                              [](const Tensor& a, const Tensor& b, double scale, int64_t zp) {
                                return tensorplay::quantized::add_relu(a, b, scale, zp);
                              }));
  Registry::function(quantized_module, "mul",
                     overload("qa, qb, scale, zero_point",
                              [](const Tensor& a, const Tensor& b, double scale, int64_t zp) {
                                return tensorplay::quantized::mul(a, b, scale, zp);
                              }));
  Registry::function(quantized_module, "mul_relu",
                     overload("qa, qb, scale, zero_point",
                              [](const Tensor& a, const Tensor& b, double scale, int64_t zp) {
                                return tensorplay::quantized::mul_relu(a, b, scale, zp);
                              }));
  Registry::function(
      quantized_module, "_linear",
      overload("X, W, B, scale, zero_point",
               [](const Tensor& x, const Tensor& w, const std::optional<Tensor>& b, double scale,
                  int64_t zp) { return tensorplay::quantized::linear(x, w, b, scale, zp); }));
}

}  // namespace tensorplay::python::bindings
