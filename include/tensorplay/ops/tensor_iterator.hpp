// TensorIterator: the one strided iteration engine. Every elementwise kernel (copy, fill, unary,
// binary, ...) describes its operands here and supplies only an inner loop; broadcasting,
// layouts, dimension order and loop nesting are worked out once, in this file.
//
//   auto iter = TensorIteratorConfig().add_output(out).add_input(a).add_input(b).build();
//   iter.for_each([](char** data, const int64_t* strides, int64_t n) {
//     for (int64_t i = 0; i < n; ++i) { /* operand k's element: data[k] + i * strides[k] */ }
//   });
//
// Modelled on PyTorch's TensorIterator (aten/src/ATen/TensorIterator.cpp): operands broadcast
// to one shape; byte strides per operand (0 along broadcast dimensions); dimensions sorted so
// the output is walked in memory order (a transposed destination is written sequentially);
// adjacent dimensions that are contiguous for every operand merged, so a contiguous op is one
// flat loop. Internally dimension 0 is the innermost (fastest). Type promotion, output
// allocation and parallel_for come later; what they need is here: per-operand dtypes, perm(),
// and a 2-d loop form that a parallel driver can hand out in ranges.
#pragma once

#include <algorithm>
#include <cstdint>
#include <numeric>
#include <type_traits>
#include <utility>
#include <vector>

#include <tensorplay/core/tensor.hpp>

namespace tensorplay {
namespace detail {

// ---- memory overlap (c10's MemOverlap): what an in-place write may safely assume ------------

enum class MemOverlap { No, Yes, TooHard };
enum class MemOverlapStatus { Full, Partial, No, TooHard };

// Whether two elements of `t` share an address. Only a stride-0 dimension of size > 1 proves
// it; other non-dense layouts (as_strided with overlapping windows) are too hard to decide.
inline MemOverlap has_internal_overlap(const TensorImpl& t) {
  if (t.is_non_overlapping_and_dense()) return MemOverlap::No;
  for (int64_t d = 0; d < t.dim(); ++d) {
    if (t.strides()[d] == 0 && t.sizes()[d] > 1) return MemOverlap::Yes;
  }
  return MemOverlap::TooHard;
}

// How the bytes of a and b relate. Decided only for dense tensors, whose bytes are exactly
// [data, data + numel * itemsize): equal ranges with equal strides are Full (element i of one
// is element i of the other), any other intersection is Partial.
inline MemOverlapStatus get_overlap_status(const TensorImpl& a, const TensorImpl& b) {
  if (&a == &b) return MemOverlapStatus::Full;
  if (a.numel() == 0 || b.numel() == 0) return MemOverlapStatus::No;
  if (!a.is_non_overlapping_and_dense() || !b.is_non_overlapping_and_dense()) {
    return MemOverlapStatus::TooHard;
  }
  if (!a.has_storage() || !a.storage().is_alias_of(b.storage())) return MemOverlapStatus::No;
  const char* a0 = static_cast<const char*>(a.data());
  const char* b0 = static_cast<const char*>(b.data());
  const char* a1 = a0 + a.numel() * int64_t(a.itemsize());
  const char* b1 = b0 + b.numel() * int64_t(b.itemsize());
  if (a0 == b0 && a1 == b1) {
    return a.strides() == b.strides() ? MemOverlapStatus::Full : MemOverlapStatus::Partial;
  }
  return a0 < b1 && b0 < a1 ? MemOverlapStatus::Partial : MemOverlapStatus::No;
}

inline void assert_no_internal_overlap(const Tensor& t) {
  TP_CHECK(has_internal_overlap(*t.unsafeGetTensorImpl()) != MemOverlap::Yes,
           "unsupported operation: more than one element of the written-to tensor refers to a "
           "single memory location. Please clone() the tensor before performing the operation.");
}

inline void assert_no_partial_overlap(const Tensor& a, const Tensor& b) {
  TP_CHECK(get_overlap_status(*a.unsafeGetTensorImpl(), *b.unsafeGetTensorImpl()) !=
               MemOverlapStatus::Partial,
           "unsupported operation: some elements of the input tensor and the written-to tensor "
           "refer to a single memory location. Please clone() the tensor before performing the "
           "operation.");
}

// ---- shapes and dimension order -------------------------------------------------------------

// The broadcast of two shapes, right-aligned (PyTorch's infer_size, and its message).
inline std::vector<int64_t> infer_size(IntArrayRef a, IntArrayRef b) {
  const int64_t n = int64_t(std::max(a.size(), b.size()));
  std::vector<int64_t> out(n);
  for (int64_t i = 0; i < n; ++i) {
    const int64_t ia = int64_t(a.size()) - n + i, ib = int64_t(b.size()) - n + i;
    const int64_t sa = ia >= 0 ? a[ia] : 1, sb = ib >= 0 ? b[ib] : 1;
    TP_CHECK(sa == sb || sa == 1 || sb == 1, "The size of tensor a (", sa,
             ") must match the size of tensor b (", sb, ") at non-singleton dimension ", i);
    out[i] = sa == 1 ? sb : sa;
  }
  return out;
}

}  // namespace detail

// Whether each operand steps by exactly its element size in the inner dimension, element types
// given in operand order: how a kernel picks a plain pointer loop that the compiler vectorises,
// `if (is_inner_contiguous<float, double>(strides)) { float* o = ...; o[i] = ...; }`.
template <class... Ts>
bool is_inner_contiguous(const int64_t* strides) noexcept {
  int k = 0;
  return ((strides[k++] == int64_t(sizeof(Ts))) && ...);
}

class TensorIterator;

// Collects operands and options; build() does the work. Outputs come first (PyTorch's rule).
class TensorIteratorConfig {
 public:
  TensorIteratorConfig& add_output(const Tensor& t) {
    TP_CHECK(num_outputs_ == int(tensors_.size()),
             "TensorIteratorConfig: add outputs before inputs");
    tensors_.push_back(t);
    ++num_outputs_;
    return *this;
  }
  TensorIteratorConfig& add_input(const Tensor& t) {
    tensors_.push_back(t);
    return *this;
  }
  TensorIteratorConfig& add_const_input(const Tensor& t) { return add_input(t); }
  // Reject an output that aliases itself (expanded) or partly aliases an input. Default on.
  TensorIteratorConfig& set_check_mem_overlap(bool v) {
    check_mem_overlap_ = v;
    return *this;
  }
  // Until type promotion exists, an op that mixes dtypes (copy_) turns this off. Default on.
  TensorIteratorConfig& check_all_same_dtype(bool v) {
    same_dtype_ = v;
    return *this;
  }
  TensorIteratorConfig& check_all_same_device(bool v) {
    same_device_ = v;
    return *this;
  }
  // Walk in row-major order of the shape: no reordering, no tiling (order-dependent kernels).
  TensorIteratorConfig& enforce_linear_iteration(bool v = true) {
    linear_ = v;
    return *this;
  }

  TensorIterator build() const;

 private:
  std::vector<Tensor> tensors_;
  int num_outputs_ = 0;
  bool check_mem_overlap_ = true, same_dtype_ = true, same_device_ = true, linear_ = false;
};

class TensorIterator {
 public:
  int ntensors() const noexcept { return int(tensors_.size()); }
  int noutputs() const noexcept { return num_outputs_; }
  int ninputs() const noexcept { return ntensors() - num_outputs_; }
  const Tensor& tensor(int arg) const { return tensors_[arg]; }
  DType dtype(int arg = 0) const { return tensors_[arg].dtype(); }
  int64_t element_size(int arg) const { return tensors_[arg].element_size(); }
  char* data_ptr(int arg) const { return data_[arg]; }

  // The iteration shape after reordering and coalescing; dimension 0 is the innermost.
  int ndim() const noexcept { return int(shape_.size()); }
  IntArrayRef shape() const noexcept { return shape_; }
  int64_t numel() const noexcept { return numel_; }
  // Byte stride of operand `arg` along iteration dimension `dim`.
  int64_t stride(int arg, int dim) const { return strides_[dim * ntensors() + arg]; }
  // perm()[i]: the output dimension that iteration dimension i came from, before coalescing
  // (to allocate outputs in the inputs' layout).
  IntArrayRef perm() const noexcept { return perm_; }
  // The cache-blocking tile, {dim-0 extent, dim-1 extent}, or {0, 0} when off.
  std::pair<int64_t, int64_t> tile() const noexcept { return {tile_, tile_}; }

  // Every operand is one run of consecutive elements: the kernel may treat them as flat arrays.
  bool is_contiguous() const {
    if (numel_ == 1) return true;
    bool ok = ndim() == 1;
    for (int k = 0; ok && k < ntensors(); ++k) ok = stride(k, 0) == element_size(k);
    return ok;
  }

  // Calls `loop` over the whole iteration space, in either of PyTorch's loop forms:
  //   1-d: loop(char** data, const int64_t* strides, int64_t n)
  //        strides[k] is operand k's byte step;
  //   2-d: loop(char** data, const int64_t* strides, int64_t size0, int64_t size1)
  //        strides[k] inner, strides[ntensors() + k] outer (lets a kernel hoist work out of rows).
  template <class Loop>
  void for_each(Loop&& loop) const;

 private:
  friend class TensorIteratorConfig;
  void compute_strides(IntArrayRef shape);
  void reorder_dimensions(bool linear);
  void coalesce_dimensions();
  void choose_tiling();
  int64_t& st(int dim, int arg) { return strides_[dim * ntensors() + arg]; }

  std::vector<Tensor> tensors_;
  std::vector<char*> data_;
  int num_outputs_ = 0;
  std::vector<int64_t> shape_, strides_, perm_;  // strides_: [dim][operand], in bytes
  int64_t numel_ = 0, tile_ = 0;
};

inline TensorIterator TensorIteratorConfig::build() const {
  TP_CHECK(!tensors_.empty(), "TensorIterator: no operands");
  for (const Tensor& t : tensors_) TP_CHECK(t.defined(), "TensorIterator: undefined operand");
  // PyTorch's order of checks: memory overlap, then devices and dtypes, then shapes.
  for (int o = 0; check_mem_overlap_ && o < num_outputs_; ++o) {
    detail::assert_no_internal_overlap(tensors_[o]);
    for (std::size_t i = num_outputs_; i < tensors_.size(); ++i) {
      detail::assert_no_partial_overlap(tensors_[o], tensors_[i]);
    }
  }
  const Tensor& first = tensors_[0];
  for (const Tensor& t : tensors_) {
    TP_CHECK(!same_device_ || t.device() == first.device(),
             "Expected all tensors to be on the same device, but found at least two devices, ",
             first.device(), " and ", t.device(), "!");
    TP_CHECK(!same_dtype_ || t.dtype() == first.dtype(), "Found dtype ", t.dtype(),
             " but expected ", first.dtype());
  }
  // Outputs take part in broadcasting but cannot grow: they are written where they are.
  std::vector<int64_t> shape(first.sizes().begin(), first.sizes().end());
  for (const Tensor& t : tensors_) {
    if (!(t.sizes() == IntArrayRef(shape))) shape = detail::infer_size(shape, t.sizes());
  }
  for (int o = 0; o < num_outputs_; ++o) {
    TP_CHECK(tensors_[o].sizes() == IntArrayRef(shape), "output with shape ", tensors_[o].sizes(),
             " doesn't match the broadcast shape ", IntArrayRef(shape));
  }
  TensorIterator it;
  it.tensors_ = tensors_;
  it.num_outputs_ = num_outputs_;
  for (const Tensor& t : tensors_) it.data_.push_back(static_cast<char*>(t.data_ptr()));
  it.compute_strides(shape);
  it.reorder_dimensions(linear_);
  it.coalesce_dimensions();
  if (!linear_) it.choose_tiling();
  return it;
}

// Right-aligns each operand against the shape; a size-1 or missing dimension is broadcast by a
// zero stride, so an inner loop never needs to know that broadcasting happened.
inline void TensorIterator::compute_strides(IntArrayRef shape) {
  const int nd = int(shape.size()), nt = ntensors();
  shape_.assign(shape.begin(), shape.end());
  strides_.assign(nd * nt, 0);
  numel_ = 1;
  for (int64_t s : shape_) numel_ *= s;
  for (int k = 0; k < nt; ++k) {
    const Tensor& t = tensors_[k];
    for (int d = 0, off = nd - int(t.dim()); d < int(t.dim()); ++d) {
      const bool broadcast = t.sizes()[d] == 1 && shape[d + off] != 1;
      st(d + off, k) = broadcast ? 0 : t.strides()[d] * element_size(k);
    }
  }
}

// Puts the dimension with the smallest output stride innermost (PyTorch's reorder_dimensions,
// and the order PyTorch's infer_dense_strides gives clone). An insertion sort from reversed
// (row-major) order in which operands vote in turn, outputs first: a transposed destination is
// written in its own memory order and inputs only break ties. A broadcast (0) stride abstains,
// and if every operand abstains the dimensions keep their row-major places.
inline void TensorIterator::reorder_dimensions(bool linear) {
  const int nd = ndim(), nt = ntensors();
  auto should_swap = [&](int64_t d0, int64_t d1) {  // > 0: d1 belongs inside d0
    for (int k = 0; k < nt && !linear; ++k) {
      const int64_t s0 = st(int(d0), k), s1 = st(int(d1), k);
      if (s0 == 0 || s1 == 0) continue;
      if (s0 != s1) return s0 < s1 ? -1 : 1;
      if (shape_[d0] > shape_[d1]) return 1;  // equal strides: the smaller dimension inside
    }
    return 0;
  };
  perm_.resize(nd);
  std::iota(perm_.rbegin(), perm_.rend(), int64_t{0});
  for (int i = 1; i < nd; ++i) {
    for (int d0 = i - 1, d1 = i; d0 >= 0; --d0) {
      const int c = should_swap(perm_[d0], perm_[d1]);
      if (c < 0) break;
      if (c > 0) std::swap(perm_[d0], perm_[d1]), d1 = d0;
    }
  }
  std::vector<int64_t> shape(nd), strides(strides_.size());
  for (int i = 0; i < nd; ++i) {
    shape[i] = shape_[perm_[i]];
    std::copy_n(strides_.begin() + perm_[i] * nt, nt, strides.begin() + i * nt);
  }
  shape_ = std::move(shape);
  strides_ = std::move(strides);
}

// Merges dimension d into the one below it when every operand steps across the pair as across
// one longer dimension (size * stride of the lower == stride of the upper), or when either has
// size 1. A contiguous tensor of any rank becomes one dimension: one long vectorisable loop.
inline void TensorIterator::coalesce_dimensions() {
  const int nd = ndim(), nt = ntensors();
  if (nd <= 1) return;
  int prev = 0;
  for (int d = 1; d < nd; ++d) {
    const int64_t s0 = shape_[prev], s1 = shape_[d];
    bool merge = true;
    for (int k = 0; k < nt && s0 != 1 && s1 != 1; ++k)
      merge = merge && s0 * st(prev, k) == st(d, k);
    if (merge) {
      if (s0 == 1)
        for (int k = 0; k < nt; ++k) st(prev, k) = st(d, k);
      shape_[prev] = s0 * s1;
    } else if (++prev != d) {
      for (int k = 0; k < nt; ++k) st(prev, k) = st(d, k);
      shape_[prev] = s1;
    }
  }
  shape_.resize(prev + 1);
  strides_.resize((prev + 1) * nt);
}

// Cache blocking. When an input's fastest dimension is not the output's (a transpose), walking
// whole rows of dimension 0 reads one element per cache line and evicts each line before its
// neighbours are needed. Moving that input's fastest dimension to position 1 and walking square
// tiles of dimensions 0 and 1 keeps the lines of both operands resident for a whole tile. It
// is general (any rank, any operand count) and invisible to kernels, which see 2-d blocks.
inline void TensorIterator::choose_tiling() {
  const int nd = ndim(), nt = ntensors();
  int64_t max_item = 1;
  for (int k = 0; k < nt; ++k) max_item = std::max(max_item, element_size(k));
  for (int k = 0; k < nt && nd >= 2; ++k) {
    int best = -1;  // the dimension along which operand k steps least, broadcasts aside
    for (int d = 0; d < nd; ++d) {
      const int64_t s = st(d, k);
      if (s != 0 && shape_[d] > 1 && (best < 0 || s < st(best, k))) best = d;
    }
    // Worth it when each step along dimension 0 lands on a new cache line and a row is longer
    // than a tile. Capacity alone is no guide: power-of-two strides map a row's lines onto a
    // few L1 sets, so even a row that "fits" evicts itself.
    const int64_t tile = max_item <= 4 ? 128 : 64;  // 128x128 floats: 64 KiB per operand (L2)
    if (best <= 0 || st(0, k) < 64 || shape_[0] <= tile) continue;
    for (int d = best; d > 1; --d) {  // rotate `best` down to position 1
      std::swap(shape_[d], shape_[d - 1]);
      for (int j = 0; j < nt; ++j) std::swap(st(d, j), st(d - 1, j));
    }
    tile_ = tile;
    return;
  }
}

template <class Loop>
void TensorIterator::for_each(Loop&& loop) const {
  if (numel_ == 0) return;
  const int nt = ntensors(), nd = ndim();
  // Dimensions 0 and 1 go to the loop (as size-1 dims if missing); the rest are counted here.
  const int64_t n0 = nd > 0 ? shape_[0] : 1, n1 = nd > 1 ? shape_[1] : 1;
  std::vector<int64_t> s2(2 * nt, 0);
  for (int k = 0; k < nt; ++k) {
    s2[k] = nd > 0 ? stride(k, 0) : 0;
    s2[nt + k] = nd > 1 ? stride(k, 1) : 0;
  }
  std::vector<char*> base(data_), ptrs(nt);
  auto block = [&](int64_t i0, int64_t j0, int64_t m0, int64_t m1) {
    for (int k = 0; k < nt; ++k) ptrs[k] = base[k] + i0 * s2[k] + j0 * s2[nt + k];
    if constexpr (std::is_invocable_v<Loop&, char**, const int64_t*, int64_t, int64_t>) {
      loop(ptrs.data(), s2.data(), m0, m1);
    } else {
      for (int64_t j = 0; j < m1; ++j) {  // PyTorch's loop_2d_from_1d
        if (j > 0)
          for (int k = 0; k < nt; ++k) ptrs[k] += s2[nt + k];
        loop(ptrs.data(), s2.data(), m0);
      }
    }
  };
  std::vector<int64_t> counter(std::max(nd, 2), 0);
  for (;;) {
    if (tile_ > 0) {
      for (int64_t j0 = 0; j0 < n1; j0 += tile_) {
        for (int64_t i0 = 0; i0 < n0; i0 += tile_) {
          block(i0, j0, std::min(tile_, n0 - i0), std::min(tile_, n1 - j0));
        }
      }
    } else {
      block(0, 0, n0, n1);
    }
    // Odometer over dimensions >= 2, moving the base pointers incrementally.
    int d = 2;
    for (; d < nd; ++d) {
      for (int k = 0; k < nt; ++k) base[k] += stride(k, d);
      if (++counter[d] < shape_[d]) break;
      for (int k = 0; k < nt; ++k) base[k] -= shape_[d] * stride(k, d);
      counter[d] = 0;
    }
    if (d >= nd) return;
  }
}

}  // namespace tensorplay
