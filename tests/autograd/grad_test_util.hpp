// Helpers shared by the autograd tests: float64 leaves (contiguous or laid out as a transpose),
// node names, and the case tables the gradcheck loops run over.
#pragma once

#include <tensorplay/tensorplay.hpp>

#include <functional>
#include <string>
#include <vector>

namespace tensorplay::testing {

using Fn = std::function<Tensor(const std::vector<Tensor>&)>;

inline TensorOptions f64() { return TensorOptions().dtype(kDouble); }

// A float64 leaf of `sizes` that requires grad; transposed: the same kind of values laid out as
// the transpose of a contiguous tensor (a non-contiguous leaf).
inline Tensor leaf(IntArrayRef sizes, bool transposed = false) {
  if (!transposed || sizes.size() != 2) return randn(sizes, f64()).requires_grad_();
  return randn({sizes[1], sizes[0]}, f64()).t().detach().requires_grad_();
}

inline std::string grad_fn_name(const Tensor& t) {
  return t.grad_fn() ? t.grad_fn()->name() : "None";
}

}  // namespace tensorplay::testing
