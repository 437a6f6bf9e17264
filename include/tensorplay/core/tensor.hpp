// Tensor: the user's handle. Its only data member is an intrusive_ptr<TensorImpl>, so it is one
// machine word; copying a Tensor shares the TensorImpl (Python's `b = a`), it copies nothing.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <tensorplay/core/scalar.hpp>
#include <tensorplay/core/tensor_impl.hpp>
#include <tensorplay/core/tensor_options.hpp>

namespace tensorplay {

namespace indexing {
class TensorIndex;
}  // namespace indexing

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
  TensorOptions options() const {
    return TensorOptions().dtype(dtype()).device(device());
  }

  // ---- bytes --------------------------------------------------------------------------------
  const Storage& storage() const { return impl("storage")->storage(); }
  bool has_storage() const { return defined() && impl_->has_storage(); }
  bool is_alias_of(const Tensor& other) const {
    return storage().is_alias_of(other.storage());
  }
  void* data_ptr() const { return impl("data_ptr")->data(); }
  const void* const_data_ptr() const { return data_ptr(); }
  void* mutable_data_ptr() const { return data_ptr(); }
  // Typed access checks the dtype, with libtorch's message.
  template <class T>
  T* data_ptr() const {
    check_dtype<T>();
    return static_cast<T*>(impl_->data());
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
  bool is_same(const Tensor& other) const noexcept { return impl_ == other.impl_; }
  std::size_t use_count() const noexcept { return impl_.use_count(); }
  std::size_t weak_use_count() const noexcept { return impl_.weak_use_count(); }

  TensorImpl* unsafeGetTensorImpl() const noexcept { return impl_.get(); }
  TensorImpl* unsafeReleaseTensorImpl() noexcept { return impl_.release(); }
  const intrusive_ptr<TensorImpl>& getIntrusivePtr() const noexcept { return impl_; }
  intrusive_ptr<TensorImpl> unsafeReleaseIntrusivePtr() noexcept { return std::move(impl_); }

  // ==== Operations. Declared here as libtorch declares them on at::Tensor; each is defined in
  // the ops header named beside it (all included by <tensorplay/tensorplay.hpp>).

  // ---- views: one as_strided, everything else is offset/stride arithmetic (ops/views.hpp) ----
  Tensor as_strided(IntArrayRef size, IntArrayRef stride,
                    std::optional<int64_t> storage_offset = std::nullopt) const;
  const Tensor& as_strided_(IntArrayRef size, IntArrayRef stride,
                            std::optional<int64_t> storage_offset = std::nullopt) const;
  Tensor select(int64_t dim, int64_t index) const;
  Tensor operator[](int64_t index) const;
  Tensor slice(int64_t dim = 0, std::optional<int64_t> start = std::nullopt,
               std::optional<int64_t> end = std::nullopt, int64_t step = 1) const;
  Tensor narrow(int64_t dim, int64_t start, int64_t length) const;
  Tensor view(IntArrayRef size) const;
  Tensor view(DType dtype) const;
  Tensor view_as(const Tensor& other) const;
  Tensor reshape(IntArrayRef shape) const;
  Tensor reshape_as(const Tensor& other) const;
  Tensor transpose(int64_t dim0, int64_t dim1) const;
  const Tensor& transpose_(int64_t dim0, int64_t dim1) const;
  Tensor swapdims(int64_t dim0, int64_t dim1) const;
  Tensor swapaxes(int64_t dim0, int64_t dim1) const;
  Tensor t() const;
  const Tensor& t_() const;
  Tensor mT() const;
  Tensor permute(IntArrayRef dims) const;
  Tensor expand(IntArrayRef size, bool implicit = false) const;
  Tensor expand_as(const Tensor& other) const;
  Tensor squeeze() const;
  Tensor squeeze(int64_t dim) const;
  Tensor squeeze(IntArrayRef dims) const;
  const Tensor& squeeze_() const;
  const Tensor& squeeze_(int64_t dim) const;
  Tensor unsqueeze(int64_t dim) const;
  const Tensor& unsqueeze_(int64_t dim) const;
  Tensor flatten(int64_t start_dim = 0, int64_t end_dim = -1) const;
  Tensor unflatten(int64_t dim, IntArrayRef sizes) const;
  std::vector<Tensor> split(int64_t split_size, int64_t dim = 0) const;
  std::vector<Tensor> split(IntArrayRef split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> split_with_sizes(IntArrayRef split_sizes, int64_t dim = 0) const;
  std::vector<Tensor> chunk(int64_t chunks, int64_t dim = 0) const;
  std::vector<Tensor> unbind(int64_t dim = 0) const;
  Tensor diagonal(int64_t offset = 0, int64_t dim1 = 0, int64_t dim2 = 1) const;
  Tensor unfold(int64_t dimension, int64_t size, int64_t step) const;
  Tensor movedim(IntArrayRef source, IntArrayRef destination) const;
  Tensor movedim(int64_t source, int64_t destination) const;
  Tensor moveaxis(IntArrayRef source, IntArrayRef destination) const;
  Tensor moveaxis(int64_t source, int64_t destination) const;
  Tensor alias() const;
  // A new TensorImpl on the same storage, sharing the version counter, with no history.
  Tensor detach() const;
  Tensor& detach_();

  // ---- indexing (ops/indexing.hpp) ----------------------------------------------------------
  Tensor index(ArrayRef<indexing::TensorIndex> indices) const;
  Tensor index(std::initializer_list<indexing::TensorIndex> indices) const;
  const Tensor& index_put_(ArrayRef<indexing::TensorIndex> indices, const Tensor& rhs) const;
  const Tensor& index_put_(ArrayRef<indexing::TensorIndex> indices, const Scalar& v) const;
  const Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices,
                           const Tensor& rhs) const;
  const Tensor& index_put_(std::initializer_list<indexing::TensorIndex> indices,
                           const Scalar& v) const;

  // ---- copies (ops/copy.hpp) ----------------------------------------------------------------
  const Tensor& copy_(const Tensor& src, bool non_blocking = false) const;
  Tensor clone(std::optional<MemoryFormat> memory_format = std::nullopt) const;
  Tensor contiguous(MemoryFormat memory_format = MemoryFormat::Contiguous) const;
  Tensor to(DType dtype, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> memory_format = std::nullopt) const;
  Tensor to(Device device, DType dtype, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> memory_format = std::nullopt) const;
  Tensor to(const TensorOptions& options, bool non_blocking = false, bool copy = false,
            std::optional<MemoryFormat> memory_format = std::nullopt) const;
  const Tensor& fill_(const Scalar& value) const;
  const Tensor& zero_() const;
  Scalar item() const;
  template <class T>
  T item() const;

  // ---- printing (ops/print.hpp) -------------------------------------------------------------
  std::string toString() const;

 private:
  // Every accessor of an undefined tensor fails the same clear way.
  TensorImpl* impl(const char* what) const {
    TP_CHECK(impl_.defined(), what, "() called on an undefined Tensor");
    return impl_.get();
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

}  // namespace tensorplay
