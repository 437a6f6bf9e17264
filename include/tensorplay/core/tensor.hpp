// Tensor: the user's handle. Its only data member is an intrusive_ptr<TensorImpl>, so it is one
// machine word; copying a Tensor shares the TensorImpl (Python's `b = a`), it copies nothing.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <tensorplay/core/scalar.hpp>
#include <tensorplay/core/tensor_impl.hpp>
#include <tensorplay/core/tensor_options.hpp>

namespace tensorplay {

namespace indexing {
class TensorIndex;
}  // namespace indexing
namespace autograd {
struct Node;
}  // namespace autograd

class Tensor {
 public:
  Tensor() noexcept = default;  // undefined: defined() is false
  explicit Tensor(intrusive_ptr<TensorImpl> impl) noexcept : impl_(std::move(impl)) {}

  bool defined() const noexcept { return impl_.defined(); }
  void reset() noexcept { impl_.reset(); }

  // ---- geometry -----------------------------------------------------------------------------
  IntArrayRef sizes() const { return impl("sizes")->sizes(); }
  IntArrayRef strides() const { return impl("strides")->strides(); }
  IntArrayRef shape() const { return sizes(); }
  int64_t size(int64_t dim) const { return impl("size")->size(dim); }
  int64_t stride(int64_t dim) const { return impl("stride")->stride(dim); }
  int64_t dim() const { return impl("dim")->dim(); }
  int64_t ndimension() const { return dim(); }
  int64_t numel() const { return impl("numel")->numel(); }
  int64_t storage_offset() const { return impl("storage_offset")->storage_offset(); }
  bool is_contiguous(MemoryFormat format = MemoryFormat::Contiguous) const {
    return impl("is_contiguous")->is_contiguous(format);
  }
  bool is_non_overlapping_and_dense() const {
    return impl("is_non_overlapping_and_dense")->is_non_overlapping_and_dense();
  }
  MemoryFormat suggest_memory_format() const {
    return impl("suggest_memory_format")->suggest_memory_format();
  }
  bool is_same_size(const Tensor& other) const { return sizes() == other.sizes(); }

  // ---- type and placement -------------------------------------------------------------------
  DType dtype() const { return impl("dtype")->dtype(); }
  DType scalar_type() const { return dtype(); }
  int64_t element_size() const { return static_cast<int64_t>(impl("element_size")->itemsize()); }
  int64_t itemsize() const { return element_size(); }
  std::size_t nbytes() const { return static_cast<std::size_t>(numel() * element_size()); }
  Device device() const { return impl("device")->device(); }
  bool is_cpu() const { return device().is_cpu(); }
  bool is_cuda() const { return device().is_cuda(); }
  bool is_vulkan() const { return device().is_vulkan(); }
  bool is_floating_point() const { return tensorplay::is_floating_point(dtype()); }
  TensorOptions options() const { return TensorOptions().dtype(dtype()).device(device()); }

  // ---- quantization (core/quantizer.hpp; the ops are in ops/quantized.hpp) ------------------
  bool is_quantized() const { return tensorplay::is_quantized(dtype()); }
  // The parameters of a quantized tensor; null for a dense one.
  const std::shared_ptr<Quantizer>& quantizer() const { return impl("quantizer")->quantizer(); }
  template <class = void>
  QScheme qscheme() const;
  template <class = void>
  double q_scale() const;
  template <class = void>
  int64_t q_zero_point() const;
  template <class = void>
  Tensor q_per_channel_scales() const;
  template <class = void>
  Tensor q_per_channel_zero_points() const;
  template <class = void>
  int64_t q_per_channel_axis() const;
  template <class = void>
  Tensor int_repr() const;
  template <class = void>
  Tensor dequantize() const;

  // ---- bytes --------------------------------------------------------------------------------
  const Storage& storage() const { return impl("storage")->storage(); }
  bool has_storage() const { return defined() && impl_->has_storage(); }
  bool is_alias_of(const Tensor& other) const { return storage().is_alias_of(other.storage()); }
  // The address of element 0, for host code: a tensor on a device whose memory the host cannot
  // address (Vulkan) has none, and asking raises NotImplementedError (as for PyTorch's opaque
  // Vulkan tensors), so no CPU kernel can run on such a tensor by mistake.
  void* data_ptr() const { return host_data(impl("data_ptr")); }
  const void* const_data_ptr() const { return data_ptr(); }
  void* mutable_data_ptr() const { return data_ptr(); }
  // Typed access checks the dtype, with libtorch's message.
  template <class T>
  T* data_ptr() const {
    check_dtype<T>();
    return static_cast<T*>(host_data(impl_.get()));
  }
  template <class T>
  const T* const_data_ptr() const {
    return data_ptr<T>();
  }
  template <class T>
  T* mutable_data_ptr() const {
    return data_ptr<T>();
  }

  // ---- versions, identity, ownership --------------------------------------------------------
  int64_t _version() const { return impl("_version")->version_counter().current_version(); }
  bool is_inference() const { return impl("is_inference")->is_inference(); }
  bool is_view() const { return impl("is_view")->is_view(); }
  bool requires_grad() const { return impl("requires_grad")->requires_grad(); }
  // Marks a floating-point tensor as a leaf that autograd records (core/autograd_meta.hpp).
  const Tensor& requires_grad_(bool requires_grad = true) const;

  // ---- autograd (autograd/variable.hpp, autograd/engine.hpp) --------------------------------
  // The accumulated gradient of a leaf (or of a tensor that retains its gradient); undefined
  // until a backward pass reaches it.
  const Tensor& grad() const;
  Tensor& mutable_grad() const;
  // The node that produced this tensor; null for leaves.
  template <class = void>
  const std::shared_ptr<autograd::Node>& grad_fn() const;
  template <class = void>
  bool is_leaf() const;
  // Rebinds this tensor to new_data's bytes, dtype and geometry while it stays the same tensor:
  // its version counter, .grad, hooks and history are kept (Python's `x.data = y`).
  void set_data(const Tensor& new_data) const;
  int64_t output_nr() const;
  // The root tensor a view aliases (the base of a view of a view is the root); undefined for
  // non-views.
  Tensor _base() const;
  template <class = void>
  void retain_grad() const;
  bool retains_grad() const;
  // hook(grad) -> Tensor (a replacement) or void, called when this tensor's gradient is computed.
  template <class F>
  unsigned register_hook(F&& hook) const;
  // Accumulates d(this)/d(leaf) * gradient into every leaf's .grad. `gradient` may be omitted
  // only for a tensor of one element. retain_graph defaults to create_graph.
  template <class = void>
  void backward(const Tensor& gradient = {}, std::optional<bool> retain_graph = std::nullopt,
                bool create_graph = false) const;
  bool is_same(const Tensor& other) const noexcept { return impl_ == other.impl_; }
  std::size_t use_count() const noexcept { return impl_.use_count(); }
  std::size_t weak_use_count() const noexcept { return impl_.weak_use_count(); }

  TensorImpl* unsafeGetTensorImpl() const noexcept { return impl_.get(); }
  TensorImpl* unsafeReleaseTensorImpl() noexcept { return impl_.release(); }
  const intrusive_ptr<TensorImpl>& getIntrusivePtr() const noexcept { return impl_; }
  intrusive_ptr<TensorImpl> unsafeReleaseIntrusivePtr() noexcept { return std::move(impl_); }

  // ==== Operations. Declared here as libtorch declares them on at::Tensor; each is defined in
  // the ops header named beside it (all included by <tensorplay/tensorplay.hpp>).
  // The math ops are member templates with a defaulted parameter (`template <class = void>`):
  // callers write t.exp() as usual, and a translation unit instantiates the dtype kernels of
  // only the ops it calls (an inline non-template body would instantiate every op's kernels in
  // every file that includes the umbrella: seconds of compile time). Their free functions and
  // the helpers that dispatch follow the same rule.

  // ---- views: one as_strided, everything else is offset/stride arithmetic (ops/views.hpp) ----
  template <class = void>
  Tensor as_strided(IntArrayRef size, IntArrayRef stride,
                    std::optional<int64_t> storage_offset = std::nullopt) const;
  template <class = void>
  const Tensor& as_strided_(IntArrayRef size, IntArrayRef stride,
                            std::optional<int64_t> storage_offset = std::nullopt) const;
  template <class = void>
  Tensor select(int64_t dim, int64_t index) const;
  template <class = void>
  Tensor operator[](int64_t index) const;
  template <class = void>
  Tensor slice(int64_t dim = 0, std::optional<int64_t> start = std::nullopt,
               std::optional<int64_t> end = std::nullopt, int64_t step = 1) const;
  template <class = void>
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  // start as a 0-d integer tensor (libtorch's narrow.Tensor).
  template <class = void>
  Tensor narrow(int64_t dim, const Tensor& start, int64_t length) const;
  template <class = void>
  Tensor view(IntArrayRef size) const;
  template <class = void>
  Tensor view(DType dtype) const;
  template <class = void>
  Tensor view_as(const Tensor& other) const;
  template <class = void>
  Tensor reshape(IntArrayRef shape) const;
  template <class = void>
  Tensor reshape_as(const Tensor& other) const;
  template <class = void>
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  template <class = void>
  const Tensor& transpose_(int64_t dim0, int64_t dim1) const;
  template <class = void>
  Tensor swapdims(int64_t dim0, int64_t dim1) const;
  template <class = void>
  Tensor swapaxes(int64_t dim0, int64_t dim1) const;
  template <class = void>
  Tensor t() const;
  template <class = void>
  const Tensor& t_() const;
  template <class = void>
  Tensor mT() const;
  template <class = void>
  Tensor permute(IntArrayRef dims) const;
  template <class = void>
  Tensor expand(IntArrayRef size, bool implicit = false) const;
  template <class = void>
  Tensor expand_as(const Tensor& other) const;
  template <class = void>
  Tensor squeeze() const;
  template <class = void>
  Tensor squeeze(int64_t dim) const;
  template <class = void>
  Tensor squeeze(IntArrayRef dims) const;
  template <class = void>
  const Tensor& squeeze_() const;
  template <class = void>
  const Tensor& squeeze_(int64_t dim) const;
  template <class = void>
  Tensor unsqueeze(int64_t dim) const;
  template <class = void>
  const Tensor& unsqueeze_(int64_t dim) const;
  template <class = void>
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  template <class = void>
  Tensor unflatten(int64_t dim, IntArrayRef sizes) const;
  template <class = void>
  std::vector<Tensor> split(int64_t split_size, int64_t dim = 0) const;
  template <class = void>
  std::vector<Tensor> split(IntArrayRef split_sizes, int64_t dim = 0) const;
  template <class = void>
  std::vector<Tensor> split_with_sizes(IntArrayRef split_sizes, int64_t dim = 0) const;
  template <class = void>
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  template <class = void>
  std::vector<Tensor> unbind(int64_t dim = 0) const;
  template <class = void>
  Tensor diagonal(int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) const;
  template <class = void>
  Tensor unfold(int64_t dimension, int64_t size, int64_t step) const;
  template <class = void>
  Tensor movedim(IntArrayRef source, IntArrayRef destination) const;
  template <class = void>
  Tensor movedim(int64_t source, int64_t destination) const;
  template <class = void>
  Tensor moveaxis(IntArrayRef source, IntArrayRef destination) const;
  template <class = void>
  Tensor moveaxis(int64_t source, int64_t destination) const;
  template <class = void>
  Tensor alias() const;
  // Slices by a number of sections or at indices (slice views, SliceBackward0 each).
  template <class = void>
  std::vector<Tensor> tensor_split(int64_t sections, int64_t dim = 0) const;
  template <class = void>
  std::vector<Tensor> tensor_split(IntArrayRef indices, int64_t dim = 0) const;
  template <class = void>
  std::vector<Tensor> tensor_split(const Tensor& tensor_indices_or_sections, int64_t dim = 0) const;
  template <class = void>
  std::vector<Tensor> hsplit(int64_t sections) const;
  template <class = void>
  std::vector<Tensor> hsplit(IntArrayRef indices) const;
  template <class = void>
  std::vector<Tensor> vsplit(int64_t sections) const;
  template <class = void>
  std::vector<Tensor> vsplit(IntArrayRef indices) const;
  template <class = void>
  std::vector<Tensor> dsplit(int64_t sections) const;
  template <class = void>
  std::vector<Tensor> dsplit(IntArrayRef indices) const;
  // A new TensorImpl on the same storage, sharing the version counter, with no history.
  Tensor detach() const;
  Tensor& detach_();

  // ---- shape ops (ops/shape_ops.hpp) ----------------------------------------------------------
  // New memory, not views: flips, rolls, repeats, triangles, diagonals (ops/shape_ops.hpp);
  // broadcast_to, cross, kron (ops/shape_join.hpp).
  template <class = void>
  Tensor flip(IntArrayRef dims) const;
  template <class = void>
  Tensor fliplr() const;
  template <class = void>
  Tensor flipud() const;
  template <class = void>
  Tensor roll(IntArrayRef shifts, IntArrayRef dims = {}) const;
  template <class = void>
  Tensor rot90(int64_t k = 1, IntArrayRef dims = {0, 1}) const;
  template <class = void>
  Tensor repeat(IntArrayRef repeats) const;
  template <class = void>
  Tensor tile(IntArrayRef dims) const;
  template <class = void>
  Tensor repeat_interleave(const Tensor& repeats, std::optional<int64_t> dim = std::nullopt,
                           std::optional<int64_t> output_size = std::nullopt) const;
  template <class = void>
  Tensor repeat_interleave(int64_t repeats, std::optional<int64_t> dim = std::nullopt,
                           std::optional<int64_t> output_size = std::nullopt) const;
  template <class = void>
  Tensor tril(int64_t diagonal = 0) const;
  template <class = void>
  Tensor triu(int64_t diagonal = 0) const;
  template <class = void>
  const Tensor& tril_(int64_t diagonal = 0) const;
  template <class = void>
  const Tensor& triu_(int64_t diagonal = 0) const;
  template <class = void>
  Tensor diag(int64_t diagonal = 0) const;
  template <class = void>
  Tensor diag_embed(int64_t offset = 0, int64_t dim1 = -2, int64_t dim2 = -1) const;
  template <class = void>
  Tensor diagflat(int64_t offset = 0) const;
  template <class = void>
  Tensor trace() const;
  template <class = void>
  Tensor broadcast_to(IntArrayRef size) const;
  template <class = void>
  Tensor cross(const Tensor& other, std::optional<int64_t> dim = std::nullopt) const;
  template <class = void>
  Tensor kron(const Tensor& other) const;

  // ---- indexing (ops/indexing.hpp) ----------------------------------------------------------
  template <class = void>
  Tensor index(ArrayRef<indexing::TensorIndex> indices) const;
  template <class = void>
  Tensor index(std::initializer_list<indexing::TensorIndex> indices) const;
  template <class = void>
  const Tensor& index_put_(ArrayRef<indexing::TensorIndex> indices, const Tensor& rhs) const;
  template <class = void>
  const Tensor& index_put_(ArrayRef<indexing::TensorIndex> indices, const Scalar& v) const;
  template <class = void>
  const Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices,
                           const Tensor& rhs) const;
  template <class = void>
  const Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices,
                           const Scalar& v) const;
  // value at the positions `index` (int64, 0-d or 1-d) along dim.
  template <class = void>
  Tensor index_fill(int64_t dim, const Tensor& index, const Scalar& value) const;
  template <class = void>
  Tensor index_fill(int64_t dim, const Tensor& index, const Tensor& value) const;
  template <class = void>
  const Tensor& index_fill_(int64_t dim, const Tensor& index, const Scalar& value) const;
  template <class = void>
  const Tensor& index_fill_(int64_t dim, const Tensor& index, const Tensor& value) const;
  // index_put_ with accumulate: repeated indices add up (in index order), as libtorch's
  // index_put_(indices, values, accumulate).
  template <class = void>
  const Tensor& index_put_(ArrayRef<indexing::TensorIndex> indices, const Tensor& values,
                           bool accumulate) const;
  template <class = void>
  Tensor index_put(ArrayRef<indexing::TensorIndex> indices, const Tensor& values,
                   bool accumulate = false) const;

  // ---- gather, scatter, index_select/add/copy, take/put (ops/scatter_gather.hpp) -----------
  template <class = void>
  Tensor gather(int64_t dim, const Tensor& index, bool sparse_grad = false) const;
  template <class = void>
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src) const;
  template <class = void>
  Tensor scatter(int64_t dim, const Tensor& index, const Scalar& value) const;
  template <class = void>
  Tensor scatter(int64_t dim, const Tensor& index, const Tensor& src,
                 std::string_view reduce) const;
  template <class = void>
  Tensor scatter(int64_t dim, const Tensor& index, const Scalar& value,
                 std::string_view reduce) const;
  template <class = void>
  const Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src) const;
  template <class = void>
  const Tensor& scatter_(int64_t dim, const Tensor& index, const Scalar& value) const;
  template <class = void>
  const Tensor& scatter_(int64_t dim, const Tensor& index, const Tensor& src,
                         std::string_view reduce) const;
  template <class = void>
  const Tensor& scatter_(int64_t dim, const Tensor& index, const Scalar& value,
                         std::string_view reduce) const;
  template <class = void>
  Tensor scatter_add(int64_t dim, const Tensor& index, const Tensor& src) const;
  template <class = void>
  const Tensor& scatter_add_(int64_t dim, const Tensor& index, const Tensor& src) const;
  // reduce: "sum", "prod", "mean", "amax" or "amin".
  template <class = void>
  Tensor scatter_reduce(int64_t dim, const Tensor& index, const Tensor& src,
                        std::string_view reduce, bool include_self = true) const;
  template <class = void>
  const Tensor& scatter_reduce_(int64_t dim, const Tensor& index, const Tensor& src,
                                std::string_view reduce, bool include_self = true) const;
  template <class = void>
  Tensor index_select(int64_t dim, const Tensor& index) const;
  template <class = void>
  Tensor index_add(int64_t dim, const Tensor& index, const Tensor& source,
                   const Scalar& alpha = 1) const;
  template <class = void>
  const Tensor& index_add_(int64_t dim, const Tensor& index, const Tensor& source,
                           const Scalar& alpha = 1) const;
  template <class = void>
  Tensor index_copy(int64_t dim, const Tensor& index, const Tensor& source) const;
  template <class = void>
  const Tensor& index_copy_(int64_t dim, const Tensor& index, const Tensor& source) const;
  // The index addresses the elements in row-major order, whatever the strides.
  template <class = void>
  Tensor take(const Tensor& index) const;
  template <class = void>
  Tensor put(const Tensor& index, const Tensor& source, bool accumulate = false) const;
  template <class = void>
  const Tensor& put_(const Tensor& index, const Tensor& source, bool accumulate = false) const;

  // ---- masked_select, masked_scatter, nonzero (ops/masked.hpp) -------------------------------
  template <class = void>
  Tensor masked_select(const Tensor& mask) const;
  template <class = void>
  Tensor masked_scatter(const Tensor& mask, const Tensor& source) const;
  template <class = void>
  const Tensor& masked_scatter_(const Tensor& mask, const Tensor& source) const;
  template <class = void>
  Tensor nonzero() const;
  // nonzero(as_tuple=True): one index tensor per dimension.
  template <class = void>
  std::vector<Tensor> nonzero_numpy() const;
  template <class = void>
  Tensor argwhere() const;

  // ---- copies (ops/copy.hpp) ----------------------------------------------------------------
  template <class = void>
  const Tensor& copy_(const Tensor& src, bool non_blocking = false) const;
  template <class = void>
  Tensor clone(std::optional<MemoryFormat> memory_format = std::nullopt) const;
  template <class = void>
  Tensor contiguous(MemoryFormat memory_format = MemoryFormat::Contiguous) const;
  template <class = void>
  Tensor to(DType dtype, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> memory_format = std::nullopt) const;
  template <class = void>
  Tensor to(Device device, DType dtype, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> memory_format = std::nullopt) const;
  template <class = void>
  Tensor to(const TensorOptions& options, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> memory_format = std::nullopt) const;
  // libtorch's device shorthands: to(kCPU), to(kCUDA) (the current device) and to(kVulkan).
  template <class = void>
  Tensor cpu() const;
  template <class = void>
  Tensor cuda() const;
  template <class = void>
  Tensor vulkan() const;
  // Page-locked host memory (libtorch's pin_memory / is_pinned): a pinned copy of a CPU tensor
  // (itself if it is pinned already), for asynchronous copies to a device; needs the CUDA
  // backend. is_pinned() is whether the storage came from getPinnedMemoryAllocator().
  template <class = void>
  Tensor pin_memory() const;
  template <class = void>
  bool is_pinned() const;
  template <class = void>
  const Tensor& fill_(const Scalar& value) const;
  template <class = void>
  const Tensor& fill_(const Tensor& value) const;  // a 0-d value, which receives a gradient
  template <class = void>
  const Tensor& zero_() const;
  // A template (over an unused int, so that item<float>() still names the typed form) whose
  // device path, a copy to the host, is compiled only where item() is called.
  template <int = 0>
  Scalar item() const;
  template <class T>
  T item() const;

  // ---- unary math (ops/unary.hpp) -----------------------------------------------------------
  // @@unary-methods@@
  template <class = void>
  Tensor neg() const;
  template <class = void>
  const Tensor& neg_() const;
  template <class = void>
  Tensor abs() const;
  template <class = void>
  const Tensor& abs_() const;
  template <class = void>
  Tensor sign() const;
  template <class = void>
  const Tensor& sign_() const;
  template <class = void>
  Tensor square() const;
  template <class = void>
  const Tensor& square_() const;
  template <class = void>
  Tensor relu() const;
  template <class = void>
  const Tensor& relu_() const;
  template <class = void>
  Tensor exp() const;
  template <class = void>
  const Tensor& exp_() const;
  template <class = void>
  Tensor exp2() const;
  template <class = void>
  const Tensor& exp2_() const;
  template <class = void>
  Tensor expm1() const;
  template <class = void>
  const Tensor& expm1_() const;
  template <class = void>
  Tensor log() const;
  template <class = void>
  const Tensor& log_() const;
  template <class = void>
  Tensor log2() const;
  template <class = void>
  const Tensor& log2_() const;
  template <class = void>
  Tensor log10() const;
  template <class = void>
  const Tensor& log10_() const;
  template <class = void>
  Tensor log1p() const;
  template <class = void>
  const Tensor& log1p_() const;
  template <class = void>
  Tensor sqrt() const;
  template <class = void>
  const Tensor& sqrt_() const;
  template <class = void>
  Tensor rsqrt() const;
  template <class = void>
  const Tensor& rsqrt_() const;
  template <class = void>
  Tensor reciprocal() const;
  template <class = void>
  const Tensor& reciprocal_() const;
  template <class = void>
  Tensor sin() const;
  template <class = void>
  const Tensor& sin_() const;
  template <class = void>
  Tensor cos() const;
  template <class = void>
  const Tensor& cos_() const;
  template <class = void>
  Tensor tan() const;
  template <class = void>
  const Tensor& tan_() const;
  template <class = void>
  Tensor asin() const;
  template <class = void>
  const Tensor& asin_() const;
  template <class = void>
  Tensor acos() const;
  template <class = void>
  const Tensor& acos_() const;
  template <class = void>
  Tensor atan() const;
  template <class = void>
  const Tensor& atan_() const;
  template <class = void>
  Tensor sinh() const;
  template <class = void>
  const Tensor& sinh_() const;
  template <class = void>
  Tensor cosh() const;
  template <class = void>
  const Tensor& cosh_() const;
  template <class = void>
  Tensor tanh() const;
  template <class = void>
  const Tensor& tanh_() const;
  template <class = void>
  Tensor sigmoid() const;
  template <class = void>
  const Tensor& sigmoid_() const;
  template <class = void>
  Tensor erf() const;
  template <class = void>
  const Tensor& erf_() const;
  template <class = void>
  Tensor floor() const;
  template <class = void>
  const Tensor& floor_() const;
  template <class = void>
  Tensor ceil() const;
  template <class = void>
  const Tensor& ceil_() const;
  template <class = void>
  Tensor trunc() const;
  template <class = void>
  const Tensor& trunc_() const;
  template <class = void>
  Tensor round() const;
  template <class = void>
  const Tensor& round_() const;
  template <class = void>
  Tensor frac() const;
  template <class = void>
  const Tensor& frac_() const;
  template <class = void>
  Tensor silu() const;
  template <class = void>
  const Tensor& silu_() const;
  template <class = void>
  Tensor negative() const;
  template <class = void>
  const Tensor& negative_() const;
  template <class = void>
  Tensor absolute() const;
  template <class = void>
  const Tensor& absolute_() const;
  template <class = void>
  Tensor round(int64_t decimals) const;
  template <class = void>
  const Tensor& round_(int64_t decimals) const;
  template <class = void>
  Tensor gelu(std::string_view approximate = "none") const;
  template <class = void>
  const Tensor& gelu_(std::string_view approximate = "none") const;
  template <class = void>
  Tensor softplus(const Scalar& beta = 1, const Scalar& threshold = 20) const;
  template <class = void>
  const Tensor& softplus_(const Scalar& beta = 1, const Scalar& threshold = 20) const;
  template <class = void>
  Tensor positive() const;
  template <class = void>
  Tensor operator-() const;  // neg()

  // ---- binary math, comparison and logic (ops/binary.hpp, ops/compare.hpp) ------------------
  // @@binary-methods@@
  template <class = void>
  Tensor add(const Tensor& other, const Scalar& alpha = 1) const;
  template <class = void>
  Tensor add(const Scalar& other, const Scalar& alpha = 1) const;
  template <class = void>
  const Tensor& add_(const Tensor& other, const Scalar& alpha = 1) const;
  template <class = void>
  const Tensor& add_(const Scalar& other, const Scalar& alpha = 1) const;
  template <class = void>
  Tensor sub(const Tensor& other, const Scalar& alpha = 1) const;
  template <class = void>
  Tensor sub(const Scalar& other, const Scalar& alpha = 1) const;
  template <class = void>
  const Tensor& sub_(const Tensor& other, const Scalar& alpha = 1) const;
  template <class = void>
  const Tensor& sub_(const Scalar& other, const Scalar& alpha = 1) const;
  template <class = void>
  Tensor subtract(const Tensor& other, const Scalar& alpha = 1) const;
  template <class = void>
  Tensor subtract(const Scalar& other, const Scalar& alpha = 1) const;
  template <class = void>
  const Tensor& subtract_(const Tensor& other, const Scalar& alpha = 1) const;
  template <class = void>
  const Tensor& subtract_(const Scalar& other, const Scalar& alpha = 1) const;
  template <class = void>
  Tensor mul(const Tensor& other) const;
  template <class = void>
  Tensor mul(const Scalar& other) const;
  template <class = void>
  const Tensor& mul_(const Tensor& other) const;
  template <class = void>
  const Tensor& mul_(const Scalar& other) const;
  template <class = void>
  Tensor multiply(const Tensor& other) const;
  template <class = void>
  Tensor multiply(const Scalar& other) const;
  template <class = void>
  const Tensor& multiply_(const Tensor& other) const;
  template <class = void>
  const Tensor& multiply_(const Scalar& other) const;
  // rounding_mode: std::nullopt (true division), "trunc" or "floor".
  template <class = void>
  Tensor div(const Tensor& other,
             std::optional<std::string_view> rounding_mode = std::nullopt) const;
  template <class = void>
  Tensor div(const Scalar& other,
             std::optional<std::string_view> rounding_mode = std::nullopt) const;
  template <class = void>
  const Tensor& div_(const Tensor& other,
                     std::optional<std::string_view> rounding_mode = std::nullopt) const;
  template <class = void>
  const Tensor& div_(const Scalar& other,
                     std::optional<std::string_view> rounding_mode = std::nullopt) const;
  template <class = void>
  Tensor divide(const Tensor& other,
                std::optional<std::string_view> rounding_mode = std::nullopt) const;
  template <class = void>
  Tensor divide(const Scalar& other,
                std::optional<std::string_view> rounding_mode = std::nullopt) const;
  template <class = void>
  const Tensor& divide_(const Tensor& other,
                        std::optional<std::string_view> rounding_mode = std::nullopt) const;
  template <class = void>
  const Tensor& divide_(const Scalar& other,
                        std::optional<std::string_view> rounding_mode = std::nullopt) const;
  template <class = void>
  Tensor true_divide(const Tensor& other) const;
  template <class = void>
  Tensor true_divide(const Scalar& other) const;
  template <class = void>
  const Tensor& true_divide_(const Tensor& other) const;
  template <class = void>
  const Tensor& true_divide_(const Scalar& other) const;
  template <class = void>
  Tensor floor_divide(const Tensor& other) const;
  template <class = void>
  Tensor floor_divide(const Scalar& other) const;
  template <class = void>
  const Tensor& floor_divide_(const Tensor& other) const;
  template <class = void>
  const Tensor& floor_divide_(const Scalar& other) const;
  template <class = void>
  Tensor remainder(const Tensor& other) const;
  template <class = void>
  Tensor remainder(const Scalar& other) const;
  template <class = void>
  const Tensor& remainder_(const Tensor& other) const;
  template <class = void>
  const Tensor& remainder_(const Scalar& other) const;
  template <class = void>
  Tensor fmod(const Tensor& other) const;
  template <class = void>
  Tensor fmod(const Scalar& other) const;
  template <class = void>
  const Tensor& fmod_(const Tensor& other) const;
  template <class = void>
  const Tensor& fmod_(const Scalar& other) const;
  template <class = void>
  Tensor pow(const Tensor& exponent) const;
  template <class = void>
  Tensor pow(const Scalar& exponent) const;
  template <class = void>
  const Tensor& pow_(const Tensor& exponent) const;
  template <class = void>
  const Tensor& pow_(const Scalar& exponent) const;
  template <class = void>
  Tensor atan2(const Tensor& other) const;
  template <class = void>
  const Tensor& atan2_(const Tensor& other) const;
  template <class = void>
  Tensor arctan2(const Tensor& other) const;
  template <class = void>
  const Tensor& arctan2_(const Tensor& other) const;
  template <class = void>
  Tensor maximum(const Tensor& other) const;
  template <class = void>
  Tensor minimum(const Tensor& other) const;
  template <class = void>
  Tensor clamp(const std::optional<Scalar>& min,
               const std::optional<Scalar>& max = std::nullopt) const;
  template <class = void>
  Tensor clamp(const std::optional<Tensor>& min, const std::optional<Tensor>& max = {}) const;
  template <class = void>
  const Tensor& clamp_(const std::optional<Scalar>& min,
                       const std::optional<Scalar>& max = std::nullopt) const;
  template <class = void>
  const Tensor& clamp_(const std::optional<Tensor>& min,
                       const std::optional<Tensor>& max = {}) const;
  template <class = void>
  Tensor clamp_min(const Scalar& min) const;
  template <class = void>
  Tensor clamp_min(const Tensor& min) const;
  template <class = void>
  const Tensor& clamp_min_(const Scalar& min) const;
  template <class = void>
  const Tensor& clamp_min_(const Tensor& min) const;
  template <class = void>
  Tensor clamp_max(const Scalar& max) const;
  template <class = void>
  Tensor clamp_max(const Tensor& max) const;
  template <class = void>
  const Tensor& clamp_max_(const Scalar& max) const;
  template <class = void>
  const Tensor& clamp_max_(const Tensor& max) const;
  template <class = void>
  Tensor clip(const std::optional<Scalar>& min,
              const std::optional<Scalar>& max = std::nullopt) const;
  template <class = void>
  Tensor clip(const std::optional<Tensor>& min, const std::optional<Tensor>& max = {}) const;
  template <class = void>
  const Tensor& clip_(const std::optional<Scalar>& min,
                      const std::optional<Scalar>& max = std::nullopt) const;
  template <class = void>
  const Tensor& clip_(const std::optional<Tensor>& min,
                      const std::optional<Tensor>& max = {}) const;
  template <class = void>
  Tensor lerp(const Tensor& end, const Scalar& weight) const;
  template <class = void>
  Tensor lerp(const Tensor& end, const Tensor& weight) const;
  template <class = void>
  const Tensor& lerp_(const Tensor& end, const Scalar& weight) const;
  template <class = void>
  const Tensor& lerp_(const Tensor& end, const Tensor& weight) const;
  template <class = void>
  Tensor bitwise_and(const Tensor& other) const;
  template <class = void>
  Tensor bitwise_and(const Scalar& other) const;
  template <class = void>
  const Tensor& bitwise_and_(const Tensor& other) const;
  template <class = void>
  const Tensor& bitwise_and_(const Scalar& other) const;
  template <class = void>
  Tensor bitwise_or(const Tensor& other) const;
  template <class = void>
  Tensor bitwise_or(const Scalar& other) const;
  template <class = void>
  const Tensor& bitwise_or_(const Tensor& other) const;
  template <class = void>
  const Tensor& bitwise_or_(const Scalar& other) const;
  template <class = void>
  Tensor bitwise_xor(const Tensor& other) const;
  template <class = void>
  Tensor bitwise_xor(const Scalar& other) const;
  template <class = void>
  const Tensor& bitwise_xor_(const Tensor& other) const;
  template <class = void>
  const Tensor& bitwise_xor_(const Scalar& other) const;
  // Shifts (integral dtypes); libtorch's __lshift__/__ilshift__ spellings too (C++ has no
  // operator<< for tensors: that one prints).
  template <class = void>
  Tensor bitwise_left_shift(const Tensor& other) const;
  template <class = void>
  Tensor bitwise_left_shift(const Scalar& other) const;
  template <class = void>
  const Tensor& bitwise_left_shift_(const Tensor& other) const;
  template <class = void>
  const Tensor& bitwise_left_shift_(const Scalar& other) const;
  template <class = void>
  Tensor bitwise_right_shift(const Tensor& other) const;
  template <class = void>
  Tensor bitwise_right_shift(const Scalar& other) const;
  template <class = void>
  const Tensor& bitwise_right_shift_(const Tensor& other) const;
  template <class = void>
  const Tensor& bitwise_right_shift_(const Scalar& other) const;
  template <class = void>
  Tensor __lshift__(const Tensor& other) const;
  template <class = void>
  Tensor __lshift__(const Scalar& other) const;
  template <class = void>
  const Tensor& __ilshift__(const Tensor& other) const;
  template <class = void>
  const Tensor& __ilshift__(const Scalar& other) const;
  template <class = void>
  Tensor __rshift__(const Tensor& other) const;
  template <class = void>
  Tensor __rshift__(const Scalar& other) const;
  template <class = void>
  const Tensor& __irshift__(const Tensor& other) const;
  template <class = void>
  const Tensor& __irshift__(const Scalar& other) const;
  template <class = void>
  Tensor bitwise_not() const;
  template <class = void>
  const Tensor& bitwise_not_() const;
  template <class = void>
  Tensor operator~() const;
  // Compound assignment is the in-place op: self keeps its shape and dtype.
  template <class = void>
  const Tensor& operator+=(const Tensor& other) const;
  template <class = void>
  const Tensor& operator+=(const Scalar& other) const;
  template <class = void>
  const Tensor& operator-=(const Tensor& other) const;
  template <class = void>
  const Tensor& operator-=(const Scalar& other) const;
  template <class = void>
  const Tensor& operator*=(const Tensor& other) const;
  template <class = void>
  const Tensor& operator*=(const Scalar& other) const;
  template <class = void>
  const Tensor& operator/=(const Tensor& other) const;
  template <class = void>
  const Tensor& operator/=(const Scalar& other) const;
  template <class = void>
  const Tensor& operator%=(const Tensor& other) const;
  template <class = void>
  const Tensor& operator%=(const Scalar& other) const;
  template <class = void>
  const Tensor& operator&=(const Tensor& other) const;
  template <class = void>
  const Tensor& operator&=(const Scalar& other) const;
  template <class = void>
  const Tensor& operator|=(const Tensor& other) const;
  template <class = void>
  const Tensor& operator|=(const Scalar& other) const;
  template <class = void>
  const Tensor& operator^=(const Tensor& other) const;
  template <class = void>
  const Tensor& operator^=(const Scalar& other) const;
  // comparison and logic (ops/compare.hpp): bool results; the `_` forms keep self's dtype.
  template <class = void>
  Tensor eq(const Tensor& other) const;
  template <class = void>
  Tensor eq(const Scalar& other) const;
  template <class = void>
  const Tensor& eq_(const Tensor& other) const;
  template <class = void>
  const Tensor& eq_(const Scalar& other) const;
  template <class = void>
  Tensor ne(const Tensor& other) const;
  template <class = void>
  Tensor ne(const Scalar& other) const;
  template <class = void>
  const Tensor& ne_(const Tensor& other) const;
  template <class = void>
  const Tensor& ne_(const Scalar& other) const;
  template <class = void>
  Tensor lt(const Tensor& other) const;
  template <class = void>
  Tensor lt(const Scalar& other) const;
  template <class = void>
  const Tensor& lt_(const Tensor& other) const;
  template <class = void>
  const Tensor& lt_(const Scalar& other) const;
  template <class = void>
  Tensor le(const Tensor& other) const;
  template <class = void>
  Tensor le(const Scalar& other) const;
  template <class = void>
  const Tensor& le_(const Tensor& other) const;
  template <class = void>
  const Tensor& le_(const Scalar& other) const;
  template <class = void>
  Tensor gt(const Tensor& other) const;
  template <class = void>
  Tensor gt(const Scalar& other) const;
  template <class = void>
  const Tensor& gt_(const Tensor& other) const;
  template <class = void>
  const Tensor& gt_(const Scalar& other) const;
  template <class = void>
  Tensor ge(const Tensor& other) const;
  template <class = void>
  Tensor ge(const Scalar& other) const;
  template <class = void>
  const Tensor& ge_(const Tensor& other) const;
  template <class = void>
  const Tensor& ge_(const Scalar& other) const;
  template <class = void>
  Tensor not_equal(const Tensor& other) const;
  template <class = void>
  Tensor not_equal(const Scalar& other) const;
  template <class = void>
  Tensor less(const Tensor& other) const;
  template <class = void>
  Tensor less(const Scalar& other) const;
  template <class = void>
  Tensor less_equal(const Tensor& other) const;
  template <class = void>
  Tensor less_equal(const Scalar& other) const;
  template <class = void>
  Tensor greater(const Tensor& other) const;
  template <class = void>
  Tensor greater(const Scalar& other) const;
  template <class = void>
  Tensor greater_equal(const Tensor& other) const;
  template <class = void>
  Tensor greater_equal(const Scalar& other) const;
  template <class = void>
  Tensor logical_and(const Tensor& other) const;
  template <class = void>
  const Tensor& logical_and_(const Tensor& other) const;
  template <class = void>
  Tensor logical_or(const Tensor& other) const;
  template <class = void>
  const Tensor& logical_or_(const Tensor& other) const;
  template <class = void>
  Tensor logical_xor(const Tensor& other) const;
  template <class = void>
  const Tensor& logical_xor_(const Tensor& other) const;
  template <class = void>
  Tensor logical_not() const;
  template <class = void>
  const Tensor& logical_not_() const;
  template <class = void>
  Tensor isnan() const;
  template <class = void>
  Tensor isinf() const;
  template <class = void>
  Tensor isfinite() const;
  template <class = void>
  Tensor isposinf() const;
  template <class = void>
  Tensor isneginf() const;
  // self where condition, other elsewhere.
  template <class = void>
  Tensor where(const Tensor& condition, const Tensor& other) const;
  template <class = void>
  Tensor where(const Tensor& condition, const Scalar& other) const;
  template <class = void>
  Tensor masked_fill(const Tensor& mask, const Scalar& value) const;
  template <class = void>
  Tensor masked_fill(const Tensor& mask, const Tensor& value) const;
  template <class = void>
  const Tensor& masked_fill_(const Tensor& mask, const Scalar& value) const;
  template <class = void>
  const Tensor& masked_fill_(const Tensor& mask, const Tensor& value) const;
  template <class = void>
  Tensor isclose(const Tensor& other, double rtol = 1e-05, double atol = 1e-08,
                 bool equal_nan = false) const;
  template <class = void>
  bool allclose(const Tensor& other, double rtol = 1e-05, double atol = 1e-08,
                bool equal_nan = false) const;
  template <class = void>
  bool equal(const Tensor& other) const;

  // ---- reductions that skip elements, running extremes (ops/nan_reduce.hpp) ---------------
  template <class = void>
  Tensor count_nonzero(IntArrayRef dim = {}) const;
  template <class = void>
  Tensor nansum(IntArrayRef dim = {}, bool keepdim = false,
                std::optional<DType> dtype = std::nullopt) const;
  template <class = void>
  Tensor nanmean(IntArrayRef dim = {}, bool keepdim = false,
                 std::optional<DType> dtype = std::nullopt) const;
  template <class = void>
  std::tuple<Tensor, Tensor> cummax(int64_t dim) const;
  template <class = void>
  std::tuple<Tensor, Tensor> cummin(int64_t dim) const;
  // ---- order statistics (ops/order_stats.hpp) -------------------------------------------------
  template <class = void>
  std::tuple<Tensor, Tensor> kthvalue(int64_t k, int64_t dim = -1, bool keepdim = false) const;
  template <class = void>
  Tensor median() const;
  template <class = void>
  std::tuple<Tensor, Tensor> median(int64_t dim, bool keepdim = false) const;
  template <class = void>
  Tensor nanmedian() const;
  template <class = void>
  std::tuple<Tensor, Tensor> nanmedian(int64_t dim, bool keepdim = false) const;
  template <class = void>
  std::tuple<Tensor, Tensor> mode(int64_t dim = -1, bool keepdim = false) const;
  template <class = void>
  Tensor quantile(const Tensor& q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                  std::string_view interpolation = "linear") const;
  template <class = void>
  Tensor quantile(double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                  std::string_view interpolation = "linear") const;
  template <class = void>
  Tensor nanquantile(const Tensor& q, std::optional<int64_t> dim = std::nullopt,
                     bool keepdim = false, std::string_view interpolation = "linear") const;
  template <class = void>
  Tensor nanquantile(double q, std::optional<int64_t> dim = std::nullopt, bool keepdim = false,
                     std::string_view interpolation = "linear") const;
  // ---- counting (ops/histogram.hpp) ----------------------------------------------------------
  template <class = void>
  Tensor bincount(const std::optional<Tensor>& weights = std::nullopt, int64_t minlength = 0) const;
  template <class = void>
  Tensor histc(int64_t bins = 100, const Scalar& min = 0, const Scalar& max = 0) const;

  // ---- reductions, scans and softmax (ops/reduce.hpp, ops/softmax.hpp) ----------------------
  // @@reduce-methods@@
  // Dimension lists are IntArrayRef, libtorch's OptionalIntArrayRef calls spelled the same way
  // (`t.sum({0, 1})`, `t.sum(1)`); an empty list reduces every dimension (PyTorch 1.13).
  template <class = void>
  Tensor sum(std::optional<DType> dtype = std::nullopt) const;
  template <class = void>
  Tensor sum(IntArrayRef dim, bool keepdim = false,
             std::optional<DType> dtype = std::nullopt) const;
  // Sums this tensor down to `size`, which must be expandable to its shape (libtorch's).
  template <class = void>
  Tensor sum_to_size(IntArrayRef size) const;
  template <class = void>
  Tensor mean(std::optional<DType> dtype = std::nullopt) const;
  template <class = void>
  Tensor mean(IntArrayRef dim, bool keepdim = false,
              std::optional<DType> dtype = std::nullopt) const;
  template <class = void>
  Tensor prod(std::optional<DType> dtype = std::nullopt) const;
  template <class = void>
  Tensor prod(int64_t dim, bool keepdim = false, std::optional<DType> dtype = std::nullopt) const;
  template <class = void>
  Tensor max() const;
  template <class = void>
  Tensor min() const;
  template <class = void>
  std::tuple<Tensor, Tensor> max(int64_t dim, bool keepdim = false) const;
  template <class = void>
  std::tuple<Tensor, Tensor> min(int64_t dim, bool keepdim = false) const;
  template <class = void>
  Tensor amax(IntArrayRef dim = {}, bool keepdim = false) const;
  template <class = void>
  Tensor amin(IntArrayRef dim = {}, bool keepdim = false) const;
  template <class = void>
  Tensor argmax(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  template <class = void>
  Tensor argmin(std::optional<int64_t> dim = std::nullopt, bool keepdim = false) const;
  template <class = void>
  Tensor var(bool unbiased = true) const;
  template <class = void>
  Tensor var(IntArrayRef dim, bool unbiased = true, bool keepdim = false) const;
  template <class = void>
  Tensor var(IntArrayRef dim, std::optional<int64_t> correction, bool keepdim = false) const;
  template <class = void>
  Tensor std(bool unbiased = true) const;
  template <class = void>
  Tensor std(IntArrayRef dim, bool unbiased = true, bool keepdim = false) const;
  template <class = void>
  Tensor std(IntArrayRef dim, std::optional<int64_t> correction, bool keepdim = false) const;
  template <class = void>
  Tensor norm(const Scalar& p = 2) const;
  template <class = void>
  Tensor norm(const std::optional<Scalar>& p, DType dtype) const;
  template <class = void>
  Tensor norm(const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim = false) const;
  template <class = void>
  Tensor norm(const std::optional<Scalar>& p, IntArrayRef dim, bool keepdim, DType dtype) const;
  template <class = void>
  Tensor all() const;
  template <class = void>
  Tensor all(int64_t dim, bool keepdim = false) const;
  template <class = void>
  Tensor any() const;
  template <class = void>
  Tensor any(int64_t dim, bool keepdim = false) const;
  template <class = void>
  Tensor logsumexp(IntArrayRef dim, bool keepdim = false) const;
  template <class = void>
  Tensor cumsum(int64_t dim, std::optional<DType> dtype = std::nullopt) const;
  template <class = void>
  const Tensor& cumsum_(int64_t dim, std::optional<DType> dtype = std::nullopt) const;
  template <class = void>
  Tensor cumprod(int64_t dim, std::optional<DType> dtype = std::nullopt) const;
  template <class = void>
  const Tensor& cumprod_(int64_t dim, std::optional<DType> dtype = std::nullopt) const;
  template <class = void>
  Tensor softmax(int64_t dim, std::optional<DType> dtype = std::nullopt) const;
  template <class = void>
  Tensor log_softmax(int64_t dim, std::optional<DType> dtype = std::nullopt) const;

  // ---- geometry changes (ops/resize.hpp) ---------------------------------------------------
  const Tensor& resize_(IntArrayRef size,
                        std::optional<MemoryFormat> memory_format = std::nullopt) const;
  const Tensor& resize_as_(const Tensor& the_template,
                           std::optional<MemoryFormat> memory_format = std::nullopt) const;

  // ---- linear algebra (ops/linalg.hpp) and sorting (ops/sort.hpp) ----------------------------
  template <class = void>
  Tensor mm(const Tensor& mat2) const;
  template <class = void>
  Tensor bmm(const Tensor& mat2) const;
  template <class = void>
  Tensor mv(const Tensor& vec) const;
  template <class = void>
  Tensor dot(const Tensor& other) const;
  template <class = void>
  Tensor outer(const Tensor& vec2) const;
  template <class = void>
  Tensor ger(const Tensor& vec2) const;
  template <class = void>
  Tensor matmul(const Tensor& other) const;
  template <class = void>
  Tensor addmm(const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
               const Scalar& alpha = 1) const;
  template <class = void>
  const Tensor& addmm_(const Tensor& mat1, const Tensor& mat2, const Scalar& beta = 1,
                       const Scalar& alpha = 1) const;
  template <class = void>
  Tensor addmv(const Tensor& mat, const Tensor& vec, const Scalar& beta = 1,
               const Scalar& alpha = 1) const;
  template <class = void>
  Tensor addbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1,
                const Scalar& alpha = 1) const;
  template <class = void>
  Tensor baddbmm(const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1,
                 const Scalar& alpha = 1) const;
  template <class = void>
  const Tensor& baddbmm_(const Tensor& batch1, const Tensor& batch2, const Scalar& beta = 1,
                         const Scalar& alpha = 1) const;
  template <class = void>
  std::tuple<Tensor, Tensor> sort(int64_t dim = -1, bool descending = false) const;
  template <class = void>
  std::tuple<Tensor, Tensor> sort(std::optional<bool> stable, int64_t dim = -1,
                                  bool descending = false) const;
  template <class = void>
  Tensor argsort(int64_t dim = -1, bool descending = false) const;
  template <class = void>
  Tensor argsort(bool stable, int64_t dim = -1, bool descending = false) const;
  template <class = void>
  Tensor argsort(int dim, bool descending = false) const;  // argsort(1): not ambiguous
  template <class = void>
  Tensor msort() const;
  template <class = void>
  std::tuple<Tensor, Tensor> topk(int64_t k, int64_t dim = -1, bool largest = true,
                                  bool sorted = true) const;

  // ---- printing (ops/print.hpp) -------------------------------------------------------------
  template <class = void>
  std::string toString() const;

 private:
  // Every accessor of an undefined tensor fails the same clear way.
  TensorImpl* impl(const char* what) const {
    TP_CHECK(impl_.defined(), what, "() called on an undefined Tensor");
    return impl_.get();
  }

  static void* host_data(TensorImpl* i) {
    if (!i->device().is_cpu()) [[unlikely]]
      throw_not_host_addressable(i->device());
    return i->data();
  }
  // Out of line and cold, so that data_ptr() stays a compare and a load where it is inlined.
  [[noreturn, gnu::noinline, gnu::cold]] static void throw_not_host_addressable(Device d) {
    detail::throw_error<NotImplementedError>("data_ptr: the memory of a tensor on ", d,
                                             " cannot be addressed by the host; copy it to the "
                                             "CPU with .cpu() first");
  }

  template <class T>
  void check_dtype() const {
    const DType actual = impl("data_ptr")->dtype();
    TP_CHECK(actual == dtype_of<std::remove_cv_t<T>>, "expected scalar type ",
             scalar_type_name(dtype_of<std::remove_cv_t<T>>), " but found ",
             scalar_type_name(actual));
  }

  intrusive_ptr<TensorImpl> impl_;
};

static_assert(sizeof(Tensor) == sizeof(void*), "a Tensor is one machine word");

// libtorch's TensorList: a read-only view of tensors; a std::vector<Tensor>, a braced list or one
// tensor converts to it.
using TensorList = ArrayRef<Tensor>;

}  // namespace tensorplay
