// gradcheck: compares the gradients autograd computes with finite differences
// (torch.autograd.gradcheck). Inputs are float64; every output element's row of the Jacobian
// comes from one autograd::grad call, every input element's column from two evaluations of `fn`
// at x +- eps. A mismatch throws tensorplay::Error naming the output and input and showing both
// Jacobians, as PyTorch's message does; success returns true.
#pragma once

#include <cmath>
#include <sstream>
#include <vector>

#include <tensorplay/autograd/engine.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/grad_mode.hpp>
#include <tensorplay/core/tensor.hpp>

namespace tensorplay::autograd {

namespace detail {
// Storage offsets (in elements) of a tensor's elements, in row-major order of its indices.
inline std::vector<int64_t> element_offsets(const Tensor& t) {
  std::vector<int64_t> offsets;
  offsets.reserve(static_cast<std::size_t>(t.numel()));
  const int64_t nd = t.dim();
  std::vector<int64_t> idx(static_cast<std::size_t>(nd), 0);
  int64_t off = t.storage_offset();
  for (int64_t i = 0; i < t.numel(); ++i) {
    offsets.push_back(off);
    for (int64_t d = nd - 1; d >= 0; --d) {
      if (++idx[static_cast<std::size_t>(d)] < t.size(d)) {
        off += t.stride(d);
        break;
      }
      off -= t.stride(d) * (t.size(d) - 1);
      idx[static_cast<std::size_t>(d)] = 0;
    }
  }
  return offsets;
}

// The values of a float64 tensor in row-major order.
inline std::vector<double> values_of(const Tensor& t) {
  const auto* base = static_cast<const double*>(t.storage().data());
  std::vector<double> v;
  for (int64_t off : element_offsets(t)) v.push_back(base[off]);
  return v;
}
}  // namespace detail

template <class F>
bool gradcheck(F&& fn, const std::vector<Tensor>& inputs, double eps = 1e-6, double atol = 1e-5,
               double rtol = 1e-3) {
  std::vector<Tensor> diff;  // the inputs that require grad
  std::vector<std::size_t> diff_index;
  for (std::size_t i = 0; i < inputs.size(); ++i) {
    const Tensor& x = inputs[i];
    if (!x.defined() || !x.requires_grad()) continue;
    TP_CHECK(x.dtype() == kDouble, "gradcheck: input ", i,
             " requires grad but is not float64 (got ", x.dtype(),
             "); finite differences need double precision");
    diff.push_back(x);
    diff_index.push_back(i);
  }
  TP_CHECK(!diff.empty(),
           "gradcheck expects at least one input tensor to require gradient, but "
           "none of the them have requires_grad=True.");
  const Tensor out = fn(inputs);
  TP_CHECK(out.defined() && out.dtype() == kDouble,
           "gradcheck: the function must return a "
           "float64 tensor");
  const int64_t m = out.numel();

  // Numerical Jacobians: column j of input k from central differences.
  std::vector<std::vector<double>> numerical(diff.size()), analytical(diff.size());
  for (std::size_t k = 0; k < diff.size(); ++k) {
    const Tensor& x = diff[k];
    const std::vector<int64_t> offsets = detail::element_offsets(x);
    auto* data = static_cast<double*>(x.storage().mutable_data());
    std::vector<double>& J = numerical[k];
    J.assign(static_cast<std::size_t>(m * x.numel()), 0.0);
    NoGradGuard no_grad;
    for (std::size_t j = 0; j < offsets.size(); ++j) {
      const double orig = data[offsets[j]];
      data[offsets[j]] = orig + eps;
      const std::vector<double> plus = detail::values_of(fn(inputs));
      data[offsets[j]] = orig - eps;
      const std::vector<double> minus = detail::values_of(fn(inputs));
      data[offsets[j]] = orig;
      for (int64_t r = 0; r < m; ++r) {
        J[static_cast<std::size_t>(r) * offsets.size() + j] =
            (plus[static_cast<std::size_t>(r)] - minus[static_cast<std::size_t>(r)]) / (2 * eps);
      }
    }
    analytical[k].assign(J.size(), 0.0);
  }

  // Analytical Jacobians: row r from a backward pass seeded with the r-th unit vector.
  for (int64_t r = 0; r < m; ++r) {
    Tensor seed = empty(out.sizes(), out.options());
    seed.zero_();
    static_cast<double*>(
        seed.data_ptr())[detail::element_offsets(seed)[static_cast<std::size_t>(r)] -
                         seed.storage_offset()] = 1.0;
    const variable_list grads = grad({out}, diff, {seed}, /*retain_graph=*/true,
                                     /*create_graph=*/false, /*allow_unused=*/true);
    for (std::size_t k = 0; k < diff.size(); ++k) {
      if (!grads[k].defined()) continue;
      TP_CHECK(grads[k].sizes() == diff[k].sizes(), "gradcheck: the gradient of input ",
               diff_index[k], " has shape ", grads[k].sizes(), ", expected ", diff[k].sizes());
      const std::vector<double> row = detail::values_of(grads[k].to(kDouble));
      for (std::size_t j = 0; j < row.size(); ++j) {
        analytical[k][static_cast<std::size_t>(r) * row.size() + j] = row[j];
      }
    }
  }

  for (std::size_t k = 0; k < diff.size(); ++k) {
    const std::vector<double>& n = numerical[k];
    const std::vector<double>& a = analytical[k];
    for (std::size_t e = 0; e < n.size(); ++e) {
      if (std::abs(a[e] - n[e]) <= atol + rtol * std::abs(n[e])) continue;
      std::ostringstream msg;
      const std::size_t cols = static_cast<std::size_t>(diff[k].numel());
      msg << "Jacobian mismatch for output 0 with respect to input " << diff_index[k]
          << " at (output element " << e / cols << ", input element " << e % cols
          << "),\nnumerical:" << n[e] << "\nanalytical:" << a[e] << "\n";
      throw Error(msg.str());
    }
  }
  return true;
}

}  // namespace tensorplay::autograd
