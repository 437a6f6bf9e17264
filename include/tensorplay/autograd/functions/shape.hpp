// Backward formulas of the shape ops (ops/shape_ops.hpp): flip, roll, rot90, repeat,
// repeat_interleave, tril/triu, diag/diag_embed, trace, block_diag and linalg_cross, with
// PyTorch 1.13's node names (derivatives.yaml). Each formula is written with recorded ops (flip,
// roll, sum, mul, diagonal, ...), so gradients of gradients exist. The ops PyTorch composes from
// others (tile, fliplr, kron, tensordot, hstack, meshgrid, ...) have no node of their own.
#pragma once

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

#include <tensorplay/autograd/functions/views.hpp>
#include <tensorplay/autograd/node.hpp>
#include <tensorplay/autograd/record.hpp>
#include <tensorplay/autograd/saved_variable.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/ops/factories.hpp>

namespace tensorplay::autograd {

template <class = void>
struct FlipBackward0T final : Node {  // flip(self, dims)
  TENSORPLAY_NODE_NAME_(FlipBackward0)
  std::vector<int64_t> dims_;
  variable_list apply(variable_list&& grads) override { return {grads[0].flip(dims_)}; }
};
using FlipBackward0 = FlipBackward0T<>;

template <class = void>
struct RollBackward0T final : Node {  // roll(self, shifts, dims): rolled back
  TENSORPLAY_NODE_NAME_(RollBackward0)
  std::vector<int64_t> shifts_, dims_;
  variable_list apply(variable_list&& grads) override {
    std::vector<int64_t> back(shifts_.size());
    for (std::size_t i = 0; i < shifts_.size(); ++i) back[i] = -shifts_[i];
    return {grads[0].roll(back, dims_)};
  }
};
using RollBackward0 = RollBackward0T<>;

template <class = void>
struct Rot90Backward0T final : Node {  // rot90(self, k, dims): rotated back
  TENSORPLAY_NODE_NAME_(Rot90Backward0)
  int64_t k_ = 1;
  std::vector<int64_t> dims_;
  variable_list apply(variable_list&& grads) override { return {grads[0].rot90(-k_, dims_)}; }
};
using Rot90Backward0 = Rot90Backward0T<>;

// repeat(self, repeats): every copy of an element adds its gradient. The gradient, of shape
// (r0*s0, r1*s1, ...), is regrouped as (r0, s0, r1, s1, ...) and summed over the r's (the
// leading dims repeat added have s = 1).
template <class = void>
struct RepeatBackward0T final : Node {
  TENSORPLAY_NODE_NAME_(RepeatBackward0)
  std::vector<int64_t> self_sizes_, repeats_;
  variable_list apply(variable_list&& grads) override {
    const std::size_t n = repeats_.size(), pad = n - self_sizes_.size();
    std::vector<int64_t> grouped, summed;
    for (std::size_t i = 0; i < n; ++i) {
      grouped.push_back(repeats_[i]);
      grouped.push_back(i < pad ? 1 : self_sizes_[i - pad]);
      summed.push_back(static_cast<int64_t>(2 * i));
    }
    return {grads[0].reshape(grouped).sum(summed).reshape(self_sizes_)};
  }
};
using RepeatBackward0 = RepeatBackward0T<>;

template <class = void>
struct TrilBackward0T final : Node {  // tril(self, diagonal), tril_
  TENSORPLAY_NODE_NAME_(TrilBackward0)
  int64_t diagonal_ = 0;
  variable_list apply(variable_list&& grads) override { return {grads[0].tril(diagonal_)}; }
};
using TrilBackward0 = TrilBackward0T<>;

template <class = void>
struct TriuBackward0T final : Node {  // triu(self, diagonal), triu_
  TENSORPLAY_NODE_NAME_(TriuBackward0)
  int64_t diagonal_ = 0;
  variable_list apply(variable_list&& grads) override { return {grads[0].triu(diagonal_)}; }
};
using TriuBackward0 = TriuBackward0T<>;

// diag(self, diagonal): of a vector, the gradient's diagonal; of a matrix, zeros with the
// gradient on the diagonal (diagonal's own scatter, differentiable).
template <class = void>
struct DiagBackward0T final : Node {
  TENSORPLAY_NODE_NAME_(DiagBackward0)
  std::vector<int64_t> self_sizes_;
  int64_t diagonal_ = 0;
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    if (self_sizes_.size() == 1) return {g.diagonal(diagonal_)};
    const int64_t k = diagonal_;
    return {detail::view_scatter(
        g, self_sizes_, [k](const Tensor& t) { return t.diagonal(k); }, "DiagonalBackward0")};
  }
};
using DiagBackward0 = DiagBackward0T<>;

template <class = void>
struct DiagEmbedBackward0T final : Node {  // diag_embed(self, offset, dim1, dim2)
  TENSORPLAY_NODE_NAME_(DiagEmbedBackward0)
  int64_t offset_ = 0, dim1_ = -2, dim2_ = -1;
  variable_list apply(variable_list&& grads) override {
    return {grads[0].diagonal(offset_, dim1_, dim2_)};
  }
};
using DiagEmbedBackward0 = DiagEmbedBackward0T<>;

// trace(self): the (0-d) gradient on the diagonal of a matrix of self's shape.
template <class = void>
struct TraceBackward0T final : Node {
  TENSORPLAY_NODE_NAME_(TraceBackward0)
  std::vector<int64_t> self_sizes_;
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    return {eye(self_sizes_[0], self_sizes_[1], g.options()).mul(g)};
  }
};
using TraceBackward0 = TraceBackward0T<>;

// block_diag(tensors): input i receives its block of the gradient, in its own shape (a vector
// was a 1-row block, a 0-d tensor a 1x1 one).
template <class = void>
struct BlockDiagBackward0T final : Node {
  TENSORPLAY_NODE_NAME_(BlockDiagBackward0)
  std::vector<std::vector<int64_t>> sizes_;  // each input's shape
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    variable_list out(sizes_.size());
    int64_t row = 0, col = 0;
    for (std::size_t i = 0; i < sizes_.size(); ++i) {
      const auto& s = sizes_[i];
      const int64_t rows = s.size() == 2 ? s[0] : 1;
      const int64_t cols = s.size() == 2 ? s[1] : (s.size() == 1 ? s[0] : 1);
      if (should_compute_output(i)) {
        out[i] = g.slice(0, row, row + rows).slice(1, col, col + cols).reshape(s);
      }
      row += rows;
      col += cols;
    }
    return out;
  }
};
using BlockDiagBackward0 = BlockDiagBackward0T<>;

// linalg_cross(self, other, dim): d(a x b) = da x b + a x db, so self's gradient is
// other x grad and other's is grad x self (the engine sums a broadcast input's back).
template <class = void>
struct LinalgCrossBackward0T final : Node {
  TENSORPLAY_NODE_NAME_(LinalgCrossBackward0)
  SavedVariable self_, other_;
  int64_t dim_ = -1;
  void release_variables() override {
    self_.reset_data();
    other_.reset_data();
  }
  variable_list apply(variable_list&& grads) override {
    const Tensor& g = grads[0];
    Tensor gs, go;
    if (should_compute_output(0)) gs = other_.unpack(shared_from_this()).cross(g, dim_);
    if (should_compute_output(1)) go = g.cross(self_.unpack(shared_from_this()), dim_);
    return {gs, go};
  }
};
using LinalgCrossBackward0 = LinalgCrossBackward0T<>;

}  // namespace tensorplay::autograd
