// TensorImpl: the flat implementation class of a strided tensor.
//
// One struct holds every field: sparse, quantized and vmap-batched tensors are not subclasses
// but nullable fields, so a dense tensor pays a few null pointers for them and kernels never
// dynamic_cast. The eight field groups of the spec, in order: (1) the element offset into the
// storage, (2) sizes and strides inline up to rank 5, (3) dtype and device, (4) the shared
// version counter and the inference flag, (5) cached contiguity and the memory-format tag,
// (6) autograd metadata, never copied, and the view flag, (7) the storage, (8) the vmap
// transform, the quantizer and the sparse state.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include <tensorplay/core/array_ref.hpp>
#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/inference_mode.hpp>
#include <tensorplay/core/intrusive_ptr.hpp>
#include <tensorplay/core/memory_format.hpp>
#include <tensorplay/core/object_pool.hpp>
#include <tensorplay/core/quantizer.hpp>
#include <tensorplay/core/sizes_and_strides.hpp>
#include <tensorplay/core/storage.hpp>
#include <tensorplay/core/version_counter.hpp>
#include <tensorplay/core/wrap_dim.hpp>

namespace tensorplay {

// Extension points filled by higher layers; the core only holds and forwards them.
// The autograd layer derives its AutogradMeta from this.
struct AutogradMetaInterface {
  virtual ~AutogradMetaInterface() = default;
  virtual bool requires_grad() const = 0;
};
// How a differentiable view came to be (c10's CreationMeta): in-place writes through views made
// in no-grad or inference mode, or through one output of a multi-view op (split, unbind), are
// refused when they would record, since their history cannot be rewritten unambiguously.
enum class CreationMeta : uint8_t { DEFAULT, MULTI_OUTPUT_NODE, NO_GRAD_MODE, INFERENCE_MODE };

// The components of a sparse tensor (indices, values...), shared by copies.
struct SparseState {
  virtual ~SparseState() = default;
};

// Whether a rank-4 geometry has NHWC (channels-last) strides: C is the innermost dimension,
// then W, then H, then N, as PyTorch's is_channels_last_strides_2d.
inline bool is_channels_last_strides(IntArrayRef sizes, IntArrayRef strides) noexcept {
  if (sizes.size() != 4) return false;
  int64_t expected = 1;
  for (int d : {1, 3, 2, 0}) {
    if (sizes[d] != 1 && strides[d] != expected) return false;
    expected *= sizes[d] > 1 ? sizes[d] : 1;
  }
  return true;
}

// Row-major or NHWC strides for `sizes`.
inline std::vector<int64_t> strides_for(IntArrayRef sizes, MemoryFormat format) {
  if (format == MemoryFormat::ChannelsLast) {
    TP_CHECK(sizes.size() == 4, "required rank 4 tensor to use channels_last format");
    std::vector<int64_t> strides(4);
    int64_t expected = 1;
    for (int d : {1, 3, 2, 0}) {
      strides[d] = expected;
      expected *= sizes[d] > 1 ? sizes[d] : 1;
    }
    return strides;
  }
  return SizesAndStrides::compute_contiguous_strides(sizes);
}

namespace detail {
// Inline geometries of every rank 0..kInlineSize with all slots 0 (TensorImpl::zero_geometry_).
// In a union so that they are never destroyed: a constant needs no destruction, and GCC 12 with
// -fsanitize=undefined cannot evaluate a std::array<SizesAndStrides>'s destructor at compile
// time.
struct ZeroGeometries {
  union {
    SizesAndStrides by_rank[SizesAndStrides::kInlineSize + 1];
  };
  constexpr ZeroGeometries() : by_rank{} {
    for (std::size_t rank = 0; rank <= SizesAndStrides::kInlineSize; ++rank) {
      by_rank[rank].resize(0);  // then growing clears every slot, the default's stride 1 too
      by_rank[rank].resize(SizesAndStrides::kInlineSize);
      by_rank[rank].resize(rank);
    }
  }
  constexpr ~ZeroGeometries() {}
};
inline constexpr ZeroGeometries kZeroGeometries{};
}  // namespace detail

// Thread safety: like any object; concurrent reads are safe, writes (set_sizes_and_strides,
// set_storage...) must not race with other accesses. The version counter is atomic.
class TensorImpl : public intrusive_ptr_target, public detail::PooledObject<TensorImpl> {
 public:
  // Note [Unique release probe] (intrusive_ptr.hpp): most TensorImpls are temporaries whose
  // last Tensor goes away with them, so a sole owner frees the impl without a locked RMW.
  static constexpr bool intrusive_ptr_probe_unique_release = true;

  // A tensor of `sizes`/`strides` at `storage_offset` elements into `storage`. New tensors
  // made inside InferenceMode are inference tensors: no version counter.
  TensorImpl(Storage storage, DType dtype, IntArrayRef sizes, IntArrayRef strides,
             int64_t storage_offset = 0)
      : storage_offset_(storage_offset),
        dtype_(dtype),
        device_(storage ? storage.device() : Device(kCPU)),
        version_counter_(make_version_counter()),
        inference_(InferenceMode::is_enabled()),
        storage_(std::move(storage)) {
    set_sizes_and_strides(sizes, strides);
  }
  // c10's default geometry: rank 1, sizes [0], strides [1].
  TensorImpl(Storage storage, DType dtype)
      : dtype_(dtype),
        device_(storage ? storage.device() : Device(kCPU)),
        version_counter_(make_version_counter()),
        inference_(InferenceMode::is_enabled()),
        storage_(std::move(storage)) {
    numel_ = 0;
  }
  // A contiguous tensor of `sizes` (empty()'s hot path): the geometry is written straight into
  // a zeroed one of the right rank (zero_geometry_). inference_ is read off the counter just
  // made rather than from the thread-local flag a second time (make_version_counter disables
  // it exactly in inference mode).
  TensorImpl(Storage storage, DType dtype, IntArrayRef sizes)
      : sizes_and_strides_(zero_geometry_(sizes.size())),
        dtype_(dtype),
        device_(storage ? storage.device() : Device(kCPU)),
        version_counter_(make_version_counter()),
        inference_(!version_counter_.enabled()),
        storage_(std::move(storage)) {
    if (sizes.size() > SizesAndStrides::kInlineSize) resize_cold_(sizes.size());
    // Sizes copied in the loop that computes the strides: a loop of its own would become a
    // memcpy call.
    const int64_t* src = sizes.data();
    int64_t* sz = sizes_and_strides_.sizes_data();
    int64_t* st = sizes_and_strides_.strides_data();
    int64_t stride = 1;
    for (std::size_t d = sizes.size(); d-- > 0;) {
      const int64_t s = src[d];
      sz[d] = s;
      st[d] = stride;
      __builtin_mul_overflow(stride, s > 1 ? s : 1, &stride);  // wraps, see contiguous_strides_
    }
    // Row-major strides are contiguous and dense, which the members' initialisers say; only
    // numel (checked) and the channels-last tag (a rank-4 tensor with C == 1 is both) remain.
    refresh_numel();
    is_channels_last_ = dim() == 4 && is_channels_last_strides(this->sizes(), this->strides());
  }

  // The spec's copy: everything that describes the data comes along (the storage and version
  // counter are shared, so the copy is an alias), everything that describes where the data
  // came from stays behind. autograd_meta_ is deliberately absent: a copy starts with no
  // history, else b.backward() would feed gradients into a's graph without anyone asking.
  TensorImpl(const TensorImpl& other)
      : intrusive_ptr_target(),
        storage_offset_(other.storage_offset_),
        sizes_and_strides_(other.sizes_and_strides_),
        numel_(other.numel_),
        dtype_(other.dtype_),
        device_(other.device_),
        version_counter_(other.version_counter_),
        inference_(other.inference_),
        is_contiguous_(other.is_contiguous_),
        is_non_overlapping_and_dense_(other.is_non_overlapping_and_dense_),
        is_channels_last_(other.is_channels_last_),
        memory_format_(other.memory_format_),
        storage_(other.storage_),
        transform_value_(other.transform_value_),
        quantizer_(other.quantizer_),
        sparse_state_(other.sparse_state_) {}
  TensorImpl& operator=(const TensorImpl&) = delete;

  ~TensorImpl() override = default;

  // Runs when the last strong reference goes (c10's): what this impl holds is dropped at once,
  // so a weak_intrusive_ptr<TensorImpl> keeps only the object's own memory alive, not its bytes,
  // history or base.
  void release_resources() override {
    storage_ = Storage();
    autograd_meta_.reset();
    view_base_.reset();
    transform_value_.reset();
    quantizer_.reset();
    sparse_state_.reset();
  }

  // ---- geometry -----------------------------------------------------------------------------
  IntArrayRef sizes() const noexcept { return sizes_and_strides_.sizes_arrayref(); }
  IntArrayRef strides() const noexcept { return sizes_and_strides_.strides_arrayref(); }
  int64_t dim() const noexcept { return static_cast<int64_t>(sizes_and_strides_.size()); }
  int64_t numel() const noexcept { return numel_; }
  int64_t size(int64_t d) const {
    return sizes_and_strides_.size_at_unchecked(maybe_wrap_dim(d, dim(), /*wrap_scalar=*/false));
  }
  int64_t stride(int64_t d) const {
    return sizes_and_strides_.stride_at_unchecked(maybe_wrap_dim(d, dim(), /*wrap_scalar=*/false));
  }
  int64_t storage_offset() const noexcept { return storage_offset_; }
  const SizesAndStrides& sizes_and_strides() const noexcept { return sizes_and_strides_; }

  bool is_contiguous(MemoryFormat format = MemoryFormat::Contiguous) const noexcept {
    return format == MemoryFormat::ChannelsLast ? is_channels_last_ : is_contiguous_;
  }
  bool is_non_overlapping_and_dense() const noexcept { return is_non_overlapping_and_dense_; }
  // The layout the tensor was created with (a tag; contiguity above is computed).
  MemoryFormat suggest_memory_format() const noexcept {
    return is_channels_last_ && !is_contiguous_ ? MemoryFormat::ChannelsLast
                                                : MemoryFormat::Contiguous;
  }

  void set_sizes_and_strides(IntArrayRef sizes, IntArrayRef strides) {
    TP_CHECK(sizes.size() == strides.size(), "dimensionality of sizes (", sizes.size(),
             ") must match dimensionality of strides (", strides.size(), ")");
    sizes_and_strides_.set_sizes(sizes);
    sizes_and_strides_.set_strides(strides);
    refresh();
  }
  void set_sizes_and_strides(IntArrayRef sizes, IntArrayRef strides, int64_t storage_offset) {
    set_sizes_and_strides(sizes, strides);
    set_storage_offset(storage_offset);
  }
  // Row-major strides computed in place (no temporary vector).
  void set_sizes_contiguous(IntArrayRef sizes) {
    sizes_and_strides_.set_sizes(sizes);
    contiguous_strides_();
  }
  void set_storage_offset(int64_t offset) {
    TP_CHECK(offset >= 0, "Tensor: invalid storage offset ", offset);
    storage_offset_ = offset;
  }

  // ---- type and placement -------------------------------------------------------------------
  DType dtype() const noexcept { return dtype_; }
  std::size_t itemsize() const noexcept { return tensorplay::itemsize(dtype_); }
  Device device() const noexcept { return device_; }

  // ---- bytes --------------------------------------------------------------------------------
  const Storage& storage() const noexcept { return storage_; }
  bool has_storage() const noexcept { return storage_.defined(); }
  void set_storage(Storage storage) {
    storage_ = std::move(storage);
    if (storage_) device_ = storage_.device();
  }
  // Address of element 0: the storage's block plus the offset. Null for an unallocated block.
  void* data() const noexcept {
    char* base = static_cast<char*>(storage_ ? storage_.mutable_data() : nullptr);
    return base ? base + storage_offset_ * static_cast<int64_t>(itemsize()) : nullptr;
  }

  // ---- version counter ----------------------------------------------------------------------
  const VariableVersion& version_counter() const noexcept { return version_counter_; }
  void set_version_counter(VariableVersion v) noexcept { version_counter_ = std::move(v); }
  void share_version_counter(const TensorImpl& other) noexcept {
    version_counter_ = other.version_counter_;
  }
  void bump_version() noexcept { version_counter_.bump(); }
  // A fresh counter at 0 (clone's last step: a new value has never been modified).
  void reset_version() { version_counter_ = make_version_counter(); }
  bool is_inference() const noexcept { return inference_; }

  // ---- autograd and views -------------------------------------------------------------------
  const std::shared_ptr<AutogradMetaInterface>& autograd_meta() const noexcept {
    return autograd_meta_;
  }
  void set_autograd_meta(std::shared_ptr<AutogradMetaInterface> meta) noexcept {
    autograd_meta_ = std::move(meta);
  }
  // A view requires grad when it was given history or when its base requires grad (PyTorch's
  // DifferentiableViewMeta): a view taken before its base joined the graph follows it.
  bool requires_grad() const {
    return (autograd_meta_ && autograd_meta_->requires_grad()) ||
           (view_base_ && view_base_->requires_grad());
  }
  // Differentiable views (PyTorch's DifferentiableViewMeta without the heap record): the root
  // base (never itself a view), the version when the view was made (its history is regenerated
  // from the base's when they differ) and how it was made. Every alias of a non-inference tensor
  // made by a view op is one, whether or not anything requires grad, so that an in-place op with
  // a grad-requiring operand on a view rewrites its base's history.
  bool is_view() const noexcept { return static_cast<bool>(view_base_); }
  const intrusive_ptr<TensorImpl>& view_base() const noexcept { return view_base_; }
  uint32_t view_version() const noexcept { return view_version_; }
  CreationMeta creation_meta() const noexcept { return creation_meta_; }
  void set_creation_meta(CreationMeta c) noexcept { creation_meta_ = c; }
  // No longer a view (PyTorch's _unsafe_view: an op's result that aliases only the op's own
  // temporary is a new value, not a view of that temporary).
  void clear_view() noexcept {
    view_base_.reset();
    creation_meta_ = CreationMeta::DEFAULT;
  }
  // Makes this impl a view of `base` (or of base's root when base is itself a view), with
  // PyTorch's propagation of the creation mode along view chains.
  void set_view_of(const TensorImpl& base, CreationMeta creation) {
    if (base.view_base_) {
      if (creation == CreationMeta::DEFAULT || base.creation_meta_ == CreationMeta::INFERENCE_MODE)
        creation = base.creation_meta_;
      view_base_ = base.view_base_;
    } else {
      view_base_ =
          intrusive_ptr<TensorImpl>::unsafe_reclaim_from_nonowning(const_cast<TensorImpl*>(&base));
    }
    creation_meta_ = creation;
    view_version_ = version_counter_.current_version();
  }
  // A 0-d tensor made from a C++ number (`t + 2.5`): it takes part in type promotion only by
  // its kind (c10's is_wrapped_number), so `int_tensor + 2.5` is float32, not float64.
  bool is_wrapped_number() const noexcept { return is_wrapped_number_; }
  void set_wrapped_number(bool v) noexcept { is_wrapped_number_ = v; }

  // ---- nullable extensions ------------------------------------------------------------------
  const intrusive_ptr<TensorImpl>& transform_value() const noexcept { return transform_value_; }
  void set_transform_value(intrusive_ptr<TensorImpl> v) noexcept {
    transform_value_ = std::move(v);
  }
  // The quantization parameters of a quantized tensor (core/quantizer.hpp); null for every
  // dense tensor. Views carry it along (ops/as_strided.hpp).
  bool has_quantizer() const noexcept { return quantizer_ != nullptr; }
  const std::shared_ptr<Quantizer>& quantizer() const noexcept { return quantizer_; }
  void set_quantizer(std::shared_ptr<Quantizer> q) noexcept { quantizer_ = std::move(q); }
  bool is_sparse() const noexcept { return sparse_state_ != nullptr; }
  const std::shared_ptr<SparseState>& sparse_state() const noexcept { return sparse_state_; }
  void set_sparse_state(std::shared_ptr<SparseState> s) noexcept { sparse_state_ = std::move(s); }

  // Takes other's bytes and what they mean (storage, dtype, device, sizes, strides, offset,
  // quantizer) and keeps this impl's identity: its version counter and autograd metadata (c10's
  // shallow_copy_from; what set_data() builds on).
  void shallow_copy_from(const TensorImpl& other) {
    dtype_ = other.dtype_;
    set_storage(other.storage_);
    device_ = other.device_;
    set_sizes_and_strides(other.sizes(), other.strides(), other.storage_offset_);
    memory_format_ = other.memory_format_;
    quantizer_ = other.quantizer_;  // what the bytes mean, for a quantized dtype
  }

  // A new TensorImpl sharing storage, geometry and version counter, with no autograd history
  // (c10's shallow_copy_and_detach; what detach() builds on).
  intrusive_ptr<TensorImpl> shallow_copy_and_detach() const {
    return make_intrusive<TensorImpl>(*this);
  }

 private:
  static VariableVersion make_version_counter() {
    return InferenceMode::is_enabled() ? VariableVersion(VariableVersion::DISABLED)
                                       : VariableVersion(0);
  }

  // A geometry of rank n whose values are about to be written: for inline ranks a copy of a
  // constant (a fixed 80-byte copy), where growing the default rank-1 geometry with resize()
  // would clear the exposed slots with a run-time length (two memset calls). Higher ranks start
  // from the default and are resized (resize_cold_).
  static SizesAndStrides zero_geometry_(std::size_t n) {
    if (n <= SizesAndStrides::kInlineSize) return detail::kZeroGeometries.by_rank[n];
    return SizesAndStrides();
  }
  // Out of line, so that the rare heap case does not weigh on inlining the common one.
  [[gnu::noinline, gnu::cold]] void resize_cold_(std::size_t n) { sizes_and_strides_.resize(n); }

  // Row-major strides for the current sizes, and the flags they imply.
  void contiguous_strides_() {
    // Through local pointers: a store through int64_t* may alias the rank (a size_t), so
    // indexing through sizes_and_strides_ would reload the rank and re-pick the storage on
    // every step.
    const int64_t n = dim();
    const int64_t* sz = sizes_and_strides_.sizes_data();
    int64_t* st = sizes_and_strides_.strides_data();
    int64_t stride = 1;
    for (int64_t d = n - 1; d >= 0; --d) {
      st[d] = stride;
      const int64_t s = sz[d];
      // Wraps (defined) as PyTorch's does when a 0 elsewhere lets the product pass the numel
      // check: [0, 2^32, 2^32] gets strides [0, 2^32, 1].
      __builtin_mul_overflow(stride, s > 1 ? s : 1, &stride);
    }
    // Row-major strides are contiguous and dense by construction; only numel and the
    // channels-last tag (a rank-4 tensor with C == 1 is both) need computing.
    refresh_numel();
    is_contiguous_ = true;
    is_non_overlapping_and_dense_ = true;
    is_channels_last_ = n == 4 && is_channels_last_strides(this->sizes(), this->strides());
    memory_format_ = MemoryFormat::Contiguous;
  }

  // Checked as c10's safe_compute_numel (entry points check first with their own messages;
  // this is the net under every geometry change).
  void refresh_numel() {
    uint64_t n = 1;
    bool overflow = false;
    for (int64_t s : sizes()) {
      TP_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", sizes());
      overflow |= __builtin_mul_overflow(n, static_cast<uint64_t>(s), &n);
    }
    TP_CHECK(!overflow && n <= static_cast<uint64_t>(INT64_MAX),
             "numel: integer multiplication overflow");
    numel_ = static_cast<int64_t>(n);
  }

  // Recomputes the cached numel and contiguity after a geometry change.
  void refresh() {
    refresh_numel();
    const IntArrayRef sizes = this->sizes(), strides = this->strides();
    is_contiguous_ = SizesAndStrides::is_contiguous(sizes, strides);
    is_channels_last_ = is_channels_last_strides(sizes, strides);
    is_non_overlapping_and_dense_ =
        is_contiguous_ || SizesAndStrides::is_non_overlapping_and_dense(sizes, strides);
    memory_format_ = suggest_memory_format();
  }

  int64_t storage_offset_ = 0;         // (1) in elements
  SizesAndStrides sizes_and_strides_;  // (2) inline up to rank 5
  int64_t numel_ = 0;                  //     cached product of sizes
  DType dtype_;                        // (3)
  Device device_;
  VariableVersion version_counter_;  // (4) shared with every alias
  bool inference_ = false;
  bool is_contiguous_ = true;  // (5) cached from the geometry
  bool is_non_overlapping_and_dense_ = true;
  bool is_channels_last_ = false;
  MemoryFormat memory_format_ = MemoryFormat::Contiguous;
  bool is_wrapped_number_ = false;
  CreationMeta creation_meta_ = CreationMeta::DEFAULT;  // (6) views only
  uint32_t view_version_ = 0;
  std::shared_ptr<AutogradMetaInterface> autograd_meta_;  // never copied
  intrusive_ptr<TensorImpl> view_base_;        //     the root base of a view, never copied
  Storage storage_;                            // (7) the shared bytes
  intrusive_ptr<TensorImpl> transform_value_;  // (8) vmap batching wrapper
  std::shared_ptr<Quantizer> quantizer_;
  std::shared_ptr<SparseState> sparse_state_;
};

}  // namespace tensorplay
