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
// flat loop. Internally dimension 0 is the innermost (fastest). On top of that: PyTorch's type
// promotion (ops/result_type.hpp), output allocation in the inputs' layout, out= resizing and
// casting, the in-place rules, and a thread split through parallel_for (ops/parallel.hpp).
#pragma once

#include <algorithm>
#include <array>
#include <cstdint>
#include <numeric>
#include <type_traits>
#include <utility>
#include <vector>

#include <tensorplay/autograd/record.hpp>
#include <tensorplay/core/empty.hpp>
#include <tensorplay/core/function_ref.hpp>
#include <tensorplay/core/small_vector.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/ops/device_dispatch.hpp>
#include <tensorplay/ops/dispatch.hpp>
#include <tensorplay/ops/parallel.hpp>
#include <tensorplay/ops/resize.hpp>
#include <tensorplay/ops/result_type.hpp>

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

// c10's assert_no_overlap: an input of an op that writes `out` may share no element with it,
// not even all of them (the indexing ops and the joins read while they write).
inline void assert_no_overlap(const Tensor& out, const Tensor& input) {
  const MemOverlapStatus lap =
      get_overlap_status(*out.unsafeGetTensorImpl(), *input.unsafeGetTensorImpl());
  TP_CHECK(lap != MemOverlapStatus::Partial && lap != MemOverlapStatus::Full,
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

// Defined in ops/copy_kernel.hpp (included at the end of this file): finish() converts through
// copy_impl, build() converts inputs through copy_to_new (the kernels, never the recorded ops).
// Templates, as build() and finish() are, so that the copy kernels (every dtype pair, every CPU
// level) are compiled only in a file that runs an op, not in every file that includes the
// umbrella.
template <class = void>
void copy_impl(const Tensor& dst, const Tensor& src);
template <class = void>
Tensor copy_to_new(const Tensor& self, const TensorOptions& options, MemoryFormat format,
                   bool non_blocking = false);
template <class = void>
Tensor to_dtype(const Tensor& self, DType dtype) {
  return copy_to_new(self, self.options().dtype(dtype), MemoryFormat::Preserve);
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

// The inner loop every kernel hands the engine, type-erased so that the driver (odometer,
// tiling, thread split) exists once: loop(data, strides, size0, size1) with strides[k] operand
// k's byte step along dimension 0 and strides[ntensors() + k] along dimension 1.
using loop2d_t = FunctionRef<void(char**, const int64_t*, int64_t, int64_t)>;

class TensorIterator;

// Operands one iteration can have (outputs and inputs together).
inline constexpr int kMaxOperands = 8;

// Collects operands and options; build() does the work. Outputs come first (PyTorch's rule).
// An output may be an undefined Tensor: build() allocates it, with the result dtype, the
// broadcast shape and the inputs' memory layout.
class TensorIteratorConfig {
 public:
  TensorIteratorConfig& add_output(const Tensor& t) {
    TP_CHECK(num_outputs_ == ntensors_, "TensorIteratorConfig: add outputs before inputs");
    push(t);
    ++num_outputs_;
    return *this;
  }
  TensorIteratorConfig& add_input(const Tensor& t) {
    TP_CHECK(t.defined(), "TensorIterator: undefined input");
    push(t);
    return *this;
  }
  TensorIteratorConfig& add_const_input(const Tensor& t) { return add_input(t); }
  // Reject an output that aliases itself (expanded) or partly aliases an input. Default on.
  TensorIteratorConfig& set_check_mem_overlap(bool v) {
    check_mem_overlap_ = v;
    return *this;
  }
  // Require every operand to have the first one's dtype. Default on; promotion turns it off.
  TensorIteratorConfig& check_all_same_dtype(bool v) {
    same_dtype_ = v;
    return *this;
  }
  TensorIteratorConfig& check_all_same_device(bool v) {
    same_device_ = v;
    return *this;
  }
  // Compute in the inputs' result_type; inputs of another dtype are converted first.
  TensorIteratorConfig& promote_inputs_to_common_dtype(bool v) {
    promote_inputs_ = v;
    if (v) same_dtype_ = false;
    return *this;
  }
  // An integral (or bool) common dtype becomes float32: true division, sqrt, exp...
  TensorIteratorConfig& promote_integer_inputs_to_float(bool v) {
    int_to_float_ = v;
    return *this;
  }
  // A given output of another dtype than the computation's receives the result converted.
  TensorIteratorConfig& cast_common_dtype_to_outputs(bool v) {
    cast_outputs_ = v;
    if (v) same_dtype_ = false;
    return *this;
  }
  // ...and only if the conversion is a safe one (can_cast): `int_t.add_(1.5)` is refused.
  TensorIteratorConfig& enforce_safe_casting_to_output(bool v) {
    safe_casting_ = v;
    return *this;
  }
  // The dtype of the computation's outputs, when it is not the inputs' (comparisons: bool).
  TensorIteratorConfig& declare_static_dtype(DType t) {
    static_dtype_ = t;
    return *this;
  }
  // A given output of the wrong shape is resized (out= semantics). Default on. An output that
  // is also an input (in-place) is never resized: it must already have the broadcast shape.
  TensorIteratorConfig& resize_outputs(bool v) {
    resize_outputs_ = v;
    return *this;
  }
  // The output is a view of the result with zero strides along reduced dimensions: it takes
  // part in broadcasting, is never resized, and its self-overlap is intended.
  TensorIteratorConfig& is_reduction(bool v) {
    is_reduction_ = v;
    return *this;
  }
  // Walk in row-major order of the shape: no reordering, no tiling (order-dependent kernels).
  TensorIteratorConfig& enforce_linear_iteration(bool v = true) {
    linear_ = v;
    return *this;
  }

  template <class = void>
  TensorIterator build() const;

 private:
  void push(const Tensor& t) {
    TP_CHECK(ntensors_ < kMaxOperands, "TensorIterator: at most ", kMaxOperands, " operands");
    tensors_[ntensors_++] = t;
  }

  std::array<Tensor, kMaxOperands> tensors_;
  int ntensors_ = 0, num_outputs_ = 0;
  bool check_mem_overlap_ = true, same_dtype_ = true, same_device_ = true, linear_ = false;
  bool promote_inputs_ = false, int_to_float_ = false, cast_outputs_ = false;
  bool safe_casting_ = true, resize_outputs_ = true, is_reduction_ = false;
  std::optional<DType> static_dtype_;
};

class TensorIterator {
 public:
  int ntensors() const noexcept { return ntensors_; }
  int noutputs() const noexcept { return num_outputs_; }
  int ninputs() const noexcept { return ntensors() - num_outputs_; }
  // The operand the kernel reads or writes (after any dtype conversion).
  const Tensor& tensor(int arg) const { return tensors_[arg]; }
  // The result as the caller sees it: the given out= tensor, or the allocated one.
  const Tensor& output(int arg = 0) const {
    return originals_[arg].defined() ? originals_[arg] : tensors_[arg];
  }
  const Tensor& input(int arg = 0) const { return tensors_[num_outputs_ + arg]; }
  DType dtype(int arg = 0) const { return tensors_[arg].dtype(); }
  DType input_dtype(int arg = 0) const { return dtype(num_outputs_ + arg); }
  // The dtype the inputs were promoted to (the first input's when promotion is off).
  DType common_dtype() const noexcept { return common_dtype_; }
  // The device the op runs on. Off the CPU there are no host pointers (data_ptr is null) and the
  // kernel step is the device's (ops/device_dispatch.hpp); CPU 0-d inputs (wrapped numbers) may
  // still be among the operands.
  Device device() const noexcept { return device_; }
  bool is_cpu() const noexcept { return device_.is_cpu(); }
  int64_t element_size(int arg) const { return element_sizes_[arg]; }
  char* data_ptr(int arg) const { return data_[arg]; }

  // The iteration shape after reordering and coalescing; dimension 0 is the innermost.
  int ndim() const noexcept { return int(shape_.size()); }
  IntArrayRef shape() const noexcept { return shape_; }
  int64_t numel() const noexcept { return numel_; }
  // Byte stride of operand `arg` along iteration dimension `dim`.
  int64_t stride(int arg, int dim) const { return strides_[dim * ntensors() + arg]; }
  // perm()[i]: the broadcast dimension that iteration dimension i came from, before coalescing.
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

  // Calls `loop` over the whole iteration space, on several threads when it has more than
  // `grain_size` elements (parallel_for's rule). Each element is visited once, by one thread;
  // which thread does not change what an elementwise kernel writes. Loop forms (PyTorch's):
  //   1-d: loop(char** data, const int64_t* strides, int64_t n)
  //        strides[k] is operand k's byte step;
  //   2-d: loop(char** data, const int64_t* strides, int64_t size0, int64_t size1)
  //        strides[k] inner, strides[ntensors() + k] outer (lets a kernel hoist work out of rows).
  // A reduction must not use it (two threads could share an output element): see
  // serial_for_each and narrow.
  template <class Loop>
  void for_each(Loop&& loop, int64_t grain_size = internal::GRAIN_SIZE) const {
    for_each_2d(as_loop2d(loop, ntensors()), grain_size);
  }
  // The linear range [begin, end) of the iteration space (dimension 0 fastest) on this thread.
  template <class Loop>
  void serial_for_each(Loop&& loop, int64_t begin, int64_t end) const {
    serial_for_each_2d(as_loop2d(loop, ntensors()), begin, end);
  }
  // Restricts iteration dimension `dim` to [start, start + size): how a reduction gives each
  // thread its own slice of the outputs.
  void narrow(int dim, int64_t start, int64_t size);

  // Writes every output computed in another dtype back into the caller's tensor, and bumps the
  // version of every output the caller passed in (out= and in-place). Kernels call it last.
  template <class = void>
  void finish() const;

  void for_each_2d(loop2d_t loop, int64_t grain_size) const;
  void serial_for_each_2d(loop2d_t loop, int64_t begin, int64_t end) const;

 private:
  friend class TensorIteratorConfig;
  template <class Loop>
  static auto as_loop2d(Loop& loop, int nt) {
    return [&loop, nt](char** data, const int64_t* strides, int64_t m0, int64_t m1) {
      if constexpr (std::is_invocable_v<Loop&, char**, const int64_t*, int64_t, int64_t>) {
        (void)nt;
        loop(data, strides, m0, m1);
      } else {  // PyTorch's loop_2d_from_1d
        char* ptrs[kMaxOperands];
        for (int k = 0; k < nt; ++k) ptrs[k] = data[k];
        for (int64_t j = 0; j < m1; ++j) {
          if (j > 0)
            for (int k = 0; k < nt; ++k) ptrs[k] += strides[nt + k];
          loop(ptrs, strides, m0);
        }
      }
    };
  }
  void compute_strides(IntArrayRef shape, const bool* pending);
  void reorder_dimensions(bool linear);
  void coalesce_dimensions();
  void choose_tiling();
  void pointers_at(const int64_t* counter, char** ptrs) const;
  int64_t& st(int dim, int arg) { return strides_[dim * ntensors() + arg]; }

  // Fixed-size operand arrays and inline dimension buffers: building an iterator for a small
  // op allocates nothing but its outputs.
  std::array<Tensor, kMaxOperands> tensors_, originals_;  // originals_[o]: the caller's out
  std::array<int64_t, kMaxOperands> element_sizes_{};
  std::array<char*, kMaxOperands> data_{};
  std::array<bool, kMaxOperands> given_outputs_{};  // outputs the caller passed in
  int ntensors_ = 0, num_outputs_ = 0;
  DType common_dtype_ = kFloat;
  SmallVector<int64_t, 8> shape_, perm_;
  SmallVector<int64_t, 32> strides_;  // [dim][operand], in bytes
  int64_t numel_ = 0, tile_ = 0;
  Device device_ = DeviceType::CPU;
};

namespace detail {

// Strides, in elements, for a new tensor of `shape` whose dimensions are laid out in `perm`
// order, innermost first (what TensorIterator allocates outputs with). PyTorch's rule, which
// only an empty shape tells apart: row-major order gives contiguous strides; any other order
// multiplies the sizes as they are (compatible_stride), so every dimension laid out outside a
// zero-size one gets stride 0.
inline SmallVector<int64_t, 8> strides_from_perm(IntArrayRef shape, IntArrayRef perm) {
  bool row_major = true;
  for (std::size_t i = 0; i < perm.size(); ++i)
    row_major = row_major && perm[i] == int64_t(perm.size() - 1 - i);
  SmallVector<int64_t, 8> strides(shape.size());
  int64_t next = 1;
  for (int64_t d : perm) {
    strides[d] = next;
    next *= row_major ? std::max<int64_t>(shape[d], 1) : shape[d];
  }
  return strides;
}

}  // namespace detail

template <class>
TensorIterator TensorIteratorConfig::build() const {
  TP_CHECK(ntensors_ > 0, "TensorIterator: no operands");
  const int nt = ntensors_;
  auto is_input_too = [&](int o) {
    for (int i = num_outputs_; i < nt; ++i)
      if (tensors_[i].is_same(tensors_[o])) return true;
    return false;
  };
  // PyTorch's order of checks: memory overlap, then devices and dtypes, then shapes.
  for (int o = 0; o < num_outputs_; ++o) {
    if (!check_mem_overlap_ || !tensors_[o].defined()) continue;
    if (!is_reduction_) detail::assert_no_internal_overlap(tensors_[o]);
    for (int i = num_outputs_; i < nt; ++i)
      detail::assert_no_partial_overlap(tensors_[o], tensors_[i]);
  }
  // The reference operand: the first input, or the output of an output-only op (fill_).
  const Tensor& first_input = tensors_[num_outputs_ < nt ? num_outputs_ : 0];
  TP_CHECK(first_input.defined(), "TensorIterator: an output-only iterator needs its output");
  const Tensor* first_defined = &first_input;  // devices compare in operand order
  for (int k = 0; k < nt; ++k) {
    if (tensors_[k].defined()) {
      first_defined = &tensors_[k];
      break;
    }
  }
  // The device the op runs on: that of the first operand other than a CPU 0-d input (a wrapped
  // number goes with tensors of any device, as in PyTorch). Off the CPU the iterator works out
  // shapes, dtypes and outputs (allocated on that device) as usual, but has no host pointers:
  // the op's kernel step goes to the device dispatch point (ops/device_dispatch.hpp), and a CPU
  // loop run over it is refused (for_each).
  auto cpu_scalar_input = [&](int k) {
    return k >= num_outputs_ && tensors_[k].is_cpu() && tensors_[k].dim() == 0;
  };
  const Tensor* device_operand = nullptr;
  for (int k = 0; k < nt && !device_operand; ++k) {
    if (tensors_[k].defined() && !cpu_scalar_input(k)) device_operand = &tensors_[k];
  }
  const Device device = device_operand ? device_operand->device() : first_defined->device();
  // (A device whose backend is not compiled in has no kernels, and no outputs can be made.)
  if (!backend_compiled_in(device.type())) detail::throw_no_device_loop(device);
  for (int k = 0; k < nt; ++k) {
    const Tensor& t = tensors_[k];
    if (!t.defined()) continue;
    // The elementwise engine runs dense kernels only: a quantized operand is refused here, once
    // for every op built on it (PyTorch's QuantizedCPU dispatch error).
    if (is_quantized(t.dtype())) [[unlikely]]
      detail::throw_quantized_not_implemented(t.dtype());
    TP_CHECK(!same_device_ || t.device() == device || cpu_scalar_input(k),
             "Expected all tensors to be on the same device, but found at least two devices, ",
             device, " and ", t.device(), "!");
    TP_CHECK(!same_dtype_ || t.dtype() == first_input.dtype(), "Found dtype ",
             scalar_type_name(t.dtype()), " but expected ", scalar_type_name(first_input.dtype()));
  }
  // The common dtype: inputs' result_type, or simply the first input's.
  DType common = first_input.dtype();
  if (promote_inputs_) {
    ResultTypeState state;
    for (int i = num_outputs_; i < nt; ++i) state = update_result_type_state(tensors_[i], state);
    common = result_type(state);
  }
  if (int_to_float_ && !is_floating_point(common)) common = kDefaultFloatDType;

  // The broadcast shape. Outputs that will be resized do not take part; in-place ones do
  // (as inputs), so `a.add_(b)` cannot grow `a`.
  std::array<bool, kMaxOperands> pending{};  // outputs to allocate or resize
  for (int o = 0; o < num_outputs_; ++o) {
    // (With no inputs, as in fill_, there is no other shape to resize to.)
    pending[o] = !tensors_[o].defined() ||
                 (resize_outputs_ && !is_reduction_ && num_outputs_ < nt && !is_input_too(o));
  }
  SmallVector<int64_t, 8> shape;
  bool have_shape = false;
  for (int k = 0; k < nt; ++k) {
    if (pending[k]) continue;
    const IntArrayRef s = tensors_[k].sizes();
    if (!have_shape) {
      shape.assign(s.begin(), s.end());
      have_shape = true;
    } else if (!(s == IntArrayRef(shape))) {
      const std::vector<int64_t> b = detail::infer_size(shape, s);
      shape.assign(b.data(), b.data() + b.size());
    }
  }
  for (int o = 0; o < num_outputs_; ++o) {
    if (pending[o]) {
      // An out= of the right shape keeps its strides; only a mismatch resizes.
      if (tensors_[o].defined() && tensors_[o].sizes() == IntArrayRef(shape)) pending[o] = false;
      continue;
    }
    TP_CHECK(tensors_[o].sizes() == IntArrayRef(shape), "output with shape ", tensors_[o].sizes(),
             " doesn't match the broadcast shape ", IntArrayRef(shape));
  }

  TensorIterator it;
  it.num_outputs_ = num_outputs_;
  it.common_dtype_ = common;
  it.ntensors_ = nt;
  it.tensors_ = tensors_;
  for (int o = 0; o < num_outputs_; ++o) {
    it.given_outputs_[o] = tensors_[o].defined();
    // A caller's tensor is about to be written: inference tensors and leaves that require grad
    // refuse here, before any byte moves (autograd's rules for in-place and out= writes).
    if (it.given_outputs_[o]) autograd::detail::check_inplace(tensors_[o]);
  }
  // Inputs in another dtype are converted up front (a 0-d or wrapped one costs nothing much).
  for (int i = num_outputs_; promote_inputs_ && i < nt; ++i) {
    if (it.tensors_[i].dtype() != common) it.tensors_[i] = detail::to_dtype(it.tensors_[i], common);
  }
  if (int_to_float_ && !promote_inputs_) {
    for (int i = num_outputs_; i < nt; ++i)
      if (it.tensors_[i].dtype() != common)
        it.tensors_[i] = detail::to_dtype(it.tensors_[i], common);
  }
  const DType out_dtype = static_dtype_.value_or(common);
  for (int o = 0; o < num_outputs_; ++o) {
    const Tensor& t = tensors_[o];
    if (!t.defined() || !cast_outputs_ || t.dtype() == out_dtype) continue;
    TP_CHECK(!safe_casting_ || can_cast(out_dtype, t.dtype()), "result type ",
             scalar_type_name(out_dtype), " can't be cast to the desired output type ",
             scalar_type_name(t.dtype()));
  }
  for (int k = 0; k < nt; ++k) {
    it.element_sizes_[k] =
        pending[k] ? int64_t(itemsize(out_dtype)) : it.tensors_[k].element_size();
  }
  // The common case, every existing operand contiguous with the result's shape, is one flat
  // dimension: no dimension order to find and nothing to coalesce.
  bool fast = true;
  for (int k = 0; k < nt && fast; ++k) {
    fast = pending[k] ||
           (it.tensors_[k].is_contiguous() && it.tensors_[k].sizes() == IntArrayRef(shape));
  }
  if (fast) {
    int64_t numel = 1;
    for (int64_t s : shape) numel *= s;
    it.numel_ = numel;
    if (!shape.empty()) {  // a 0-d iteration has no dimensions at all
      it.shape_.assign(1, numel);
      it.strides_.assign(it.element_sizes_.data(), it.element_sizes_.data() + nt);
    }
    it.perm_.resize(shape.size());
    std::iota(it.perm_.rbegin(), it.perm_.rend(), int64_t{0});
  } else {
    // Dimension order from the operands that exist; then outputs are made in that order.
    it.compute_strides(shape, pending.data());
    it.reorder_dimensions(linear_);
  }
  // Output o's iteration strides, from the strides (in elements) of the tensor it writes.
  auto set_strides = [&](int o, IntArrayRef strides) {
    if (fast) {
      if (!shape.empty()) it.st(0, o) = it.element_sizes_[o];
      return;
    }
    for (int i = 0; i < int(shape.size()); ++i) {
      const int64_t d = it.perm_[i];
      it.st(i, o) = shape[d] == 1 ? 0 : strides[d] * it.element_sizes_[o];
    }
  };
  bool any_pending = false;
  for (int o = 0; o < num_outputs_; ++o) any_pending = any_pending || pending[o];
  if (any_pending) {
    // PyTorch's fast setup, in its order: when every existing operand has the result's shape
    // and is contiguous (as every empty tensor is), outputs are contiguous; when they share one
    // dense layout, outputs take exactly that layout; otherwise the dimension order found above.
    SmallVector<int64_t, 8> strides;
    bool all_contiguous = true;
    for (int k = 0; k < nt && all_contiguous; ++k) {
      all_contiguous = pending[k] || (it.tensors_[k].sizes() == IntArrayRef(shape) &&
                                      it.tensors_[k].is_contiguous());
    }
    if (all_contiguous) {
      SmallVector<int64_t, 8> row_major(shape.size());
      std::iota(row_major.rbegin(), row_major.rend(), int64_t{0});
      strides = detail::strides_from_perm(shape, row_major);
    }
    for (int k = 0; k < nt && strides.empty(); ++k) {
      if (pending[k]) continue;
      const Tensor& t = it.tensors_[k];
      if (t.sizes() == IntArrayRef(shape) && t.is_non_overlapping_and_dense()) {
        strides.assign(t.strides().data(), t.strides().data() + t.dim());
      }
    }
    for (int k = 0; k < nt && !strides.empty(); ++k) {
      if (pending[k]) continue;
      const Tensor& t = it.tensors_[k];
      if (!(t.sizes() == IntArrayRef(shape)) || !(t.strides() == IntArrayRef(strides)))
        strides.clear();
    }
    if (strides.empty()) strides = detail::strides_from_perm(shape, it.perm_);
    for (int o = 0; o < num_outputs_; ++o) {
      if (!pending[o]) continue;
      const Tensor& given = tensors_[o];
      if (given.defined() && given.dtype() == out_dtype) {
        // Resized outputs take the layout a new one would get (both are dense: same bytes).
        detail::resize_output(given, shape);
        given.unsafeGetTensorImpl()->set_sizes_and_strides(shape, strides);
        it.tensors_[o] = given;
      } else {
        if (given.defined()) detail::resize_output(given, shape);  // filled by finish()
        it.tensors_[o] =
            empty_strided(shape, strides, TensorOptions().dtype(out_dtype).device(device));
        if (given.defined()) it.originals_[o] = given;
      }
      set_strides(o, strides);
    }
  }
  // A given output in the wrong dtype: compute into a temporary of the computation's dtype,
  // laid out like the given output so that no strides change; finish() converts it back.
  for (int o = 0; o < num_outputs_; ++o) {
    const Tensor& t = it.tensors_[o];
    if (pending[o] || t.dtype() == out_dtype) continue;
    // Without casting, a promoting op cannot write another dtype; a mixed-dtype kernel (copy)
    // that promotes nothing reads and writes each operand in its own dtype.
    TP_CHECK(cast_outputs_ || !promote_inputs_, "Found dtype ", scalar_type_name(t.dtype()),
             " but expected ", scalar_type_name(out_dtype));
    if (!cast_outputs_) continue;
    it.originals_[o] = t;
    it.tensors_[o] = empty_strided(t.sizes(), detail::strides_from_perm(shape, it.perm_),
                                   TensorOptions().dtype(out_dtype).device(device));
    it.element_sizes_[o] = int64_t(itemsize(out_dtype));
    set_strides(o, it.tensors_[o].strides());
  }
  it.device_ = device;
  if (device.is_cpu()) {
    for (int k = 0; k < nt; ++k) it.data_[k] = static_cast<char*>(it.tensors_[k].data_ptr());
  }
  if (!fast) {
    it.coalesce_dimensions();
    if (!linear_) it.choose_tiling();
  }
  return it;
}

// The kernel step of an elementwise op whose iterator is off the CPU: the device's PointwiseOp
// kernel for `code` (scalars s0, s1 as the code defines them), then finish(). A code the device
// has no kernel for raises PyTorch's "Could not run 'aten::...'" error.
template <class = void>
void pointwise_on_device(const TensorIterator& iter, PointwiseCode code, double s0 = 0,
                         double s1 = 0) {
  const std::string_view name = pointwise_name(code);
  dispatch_device(iter.device().type(), name, [&]<DeviceType D>() {
    if constexpr (requires { DeviceKernel<PointwiseOp, D>::run(iter, code, s0, s1); }) {
      DeviceKernel<PointwiseOp, D>::run(iter, code, s0, s1);
    } else if (code == PointwiseCode::None) {
      detail::throw_no_device_loop(iter.device());
    } else {
      detail::throw_no_device_kernel(name, D, /*compiled_in=*/true);
    }
  });
  iter.finish();
}

template <class>
void TensorIterator::finish() const {
  for (int o = 0; o < num_outputs_; ++o) {
    if (originals_[o].defined()) {
      detail::copy_impl(originals_[o], tensors_[o]);
    }
    if (given_outputs_[o]) output(o).unsafeGetTensorImpl()->bump_version();
  }
}

// Right-aligns each operand against the shape; a size-1 or missing dimension is broadcast by a
// zero stride, so an inner loop never needs to know that broadcasting happened.
inline void TensorIterator::compute_strides(IntArrayRef shape, const bool* pending) {
  const int nd = int(shape.size()), nt = ntensors();
  shape_.assign(shape.begin(), shape.end());
  strides_.assign(nd * nt, 0);
  numel_ = 1;
  for (int64_t s : shape_) numel_ *= s;
  for (int k = 0; k < nt; ++k) {
    if (pending[k]) continue;  // made later, in the order the others decide
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
  SmallVector<int64_t, 8> shape(nd);
  SmallVector<int64_t, 32> strides(strides_.size());
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

// The address of every operand's element at the iteration multi-index `counter`.
inline void TensorIterator::pointers_at(const int64_t* counter, char** ptrs) const {
  for (int k = 0; k < ntensors(); ++k) {
    char* p = data_[k];
    for (int d = 0; d < ndim(); ++d) p += counter[d] * stride(k, d);
    ptrs[k] = p;
  }
}

// Walks [begin, end) as a few 2-d blocks: a partial row up to the next row start, then as many
// whole rows of dimension 0 as dimension 1 allows, and so on. Pointers are recomputed from the
// linear position at each block (a few divisions per row at worst), which is what lets a
// thread start anywhere.
inline void TensorIterator::serial_for_each_2d(loop2d_t loop, int64_t begin, int64_t end) const {
  if (!is_cpu()) detail::throw_no_device_loop(device_);
  if (begin >= end) return;
  const int nt = ntensors(), nd = ndim();
  int64_t s2[2 * kMaxOperands];
  for (int k = 0; k < nt; ++k) {
    s2[k] = nd > 0 ? stride(k, 0) : 0;
    s2[nt + k] = nd > 1 ? stride(k, 1) : 0;
  }
  char* ptrs[kMaxOperands];
  if (nd == 0) {  // one element
    for (int k = 0; k < nt; ++k) ptrs[k] = data_[k];
    loop(ptrs, s2, 1, 1);
    return;
  }
  int64_t small[16];
  std::vector<int64_t> large(nd > 16 ? nd : 0);
  int64_t* counter = nd > 16 ? large.data() : small;
  const int64_t n0 = shape_[0], n1 = nd > 1 ? shape_[1] : 1;
  for (int64_t pos = begin; pos < end;) {
    int64_t rem = pos;
    for (int d = 0; d < nd; ++d) {
      counter[d] = rem % shape_[d];
      rem /= shape_[d];
    }
    pointers_at(counter, ptrs);
    const int64_t left = end - pos;
    if (counter[0] != 0 || left < n0) {
      const int64_t m = std::min(n0 - counter[0], left);
      loop(ptrs, s2, m, 1);
      pos += m;
    } else {
      const int64_t rows = std::min(left / n0, n1 - (nd > 1 ? counter[1] : 0));
      loop(ptrs, s2, n0, rows);
      pos += rows * n0;
    }
  }
}

// Untiled: contiguous chunks of the linear range, one per task (parallel_for's partition, so
// the split depends only on the size and the thread count). Tiled: tasks are strips of tiles
// (one tile of dimension 1 by all of dimension 0), walked tile by tile.
inline void TensorIterator::for_each_2d(loop2d_t loop, int64_t grain_size) const {
  if (!is_cpu()) detail::throw_no_device_loop(device_);
  if (numel_ == 0) return;
  if (tile_ == 0) {
    parallel_for(0, numel_, grain_size,
                 [&](int64_t b, int64_t e) { serial_for_each_2d(loop, b, e); });
    return;
  }
  const int nt = ntensors(), nd = ndim();
  const int64_t n0 = shape_[0], n1 = shape_[1];
  const int64_t tiles0 = divup(n0, tile_), tiles1 = divup(n1, tile_);
  const int64_t strips = numel_ / (n0 * n1) * tiles1;
  int64_t s2[2 * kMaxOperands];
  for (int k = 0; k < nt; ++k) s2[k] = stride(k, 0), s2[nt + k] = stride(k, 1);
  const int64_t strip_grain = std::max<int64_t>(1, grain_size / (n0 * tile_));
  parallel_for(0, strips, strip_grain, [&](int64_t b, int64_t e) {
    std::vector<int64_t> counter(nd, 0);
    char* ptrs[kMaxOperands];
    for (int64_t u = b; u < e; ++u) {
      int64_t rem = u / tiles1;
      counter[1] = (u % tiles1) * tile_;
      for (int d = 2; d < nd; ++d) {
        counter[d] = rem % shape_[d];
        rem /= shape_[d];
      }
      for (int64_t t0 = 0; t0 < tiles0; ++t0) {
        counter[0] = t0 * tile_;
        pointers_at(counter.data(), ptrs);
        loop(ptrs, s2, std::min(tile_, n0 - counter[0]), std::min(tile_, n1 - counter[1]));
      }
    }
  });
}

inline void TensorIterator::narrow(int dim, int64_t start, int64_t size) {
  TP_CHECK(dim >= 0 && dim < ndim() && start >= 0 && size >= 0 && start + size <= shape_[dim],
           "TensorIterator::narrow: [", start, ", ", start + size, ") is outside dimension ", dim,
           " of size ", dim < ndim() && dim >= 0 ? shape_[dim] : 0);
  if (!is_cpu()) detail::throw_no_device_loop(device_);
  for (int k = 0; k < ntensors(); ++k) data_[k] += start * stride(k, dim);
  shape_[dim] = size;
  numel_ = 1;
  for (int64_t s : shape_) numel_ *= s;
}

}  // namespace tensorplay

// finish() converts through the copy kernel, which in turn is built on this engine.
#include <tensorplay/ops/copy_kernel.hpp>
