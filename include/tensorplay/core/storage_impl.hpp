// StorageImpl: a reference-counted block of bytes on one device, shared by every TensorImpl that
// views it. The count is embedded (intrusive_ptr_target), so a Storage handle is one word.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <utility>

#include <tensorplay/core/allocator.hpp>
#include <tensorplay/core/data_ptr.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/intrusive_ptr.hpp>
#include <tensorplay/core/object_pool.hpp>

namespace tensorplay {

// Tag that makes "this number is a byte count" explicit at construction (c10's spelling).
struct use_byte_size_t {};
inline constexpr use_byte_size_t use_byte_size{};

// Thread safety: the bytes are unsynchronised (like any buffer); the metadata is changed only
// by resize/set_data_ptr, which callers must not race with readers.
class StorageImpl final : public intrusive_ptr_target, public detail::PooledObject<StorageImpl> {
 public:
  // Note [Unique release probe] (intrusive_ptr.hpp): a storage is usually owned by one
  // TensorImpl and dies with it, so a sole owner frees it without a locked RMW.
  static constexpr bool intrusive_ptr_probe_unique_release = true;

  // Takes ownership of an existing block (foreign memory, or one allocated by the caller).
  StorageImpl(use_byte_size_t, std::size_t nbytes, DataPtr data_ptr, Allocator* allocator,
              bool resizable)
      : data_ptr_(std::move(data_ptr)),
        nbytes_(nbytes),
        allocator_(allocator),
        resizable_(resizable) {
    TP_CHECK(!resizable || allocator, "For resizable storage, allocator must be provided");
  }
  // Allocates nbytes from the allocator.
  StorageImpl(use_byte_size_t, std::size_t nbytes, Allocator* allocator, bool resizable)
      : StorageImpl(use_byte_size, nbytes, checked(allocator)->allocate(nbytes), allocator,
                    resizable) {}

  std::size_t nbytes() const noexcept { return nbytes_; }
  const void* data() const noexcept { return data_ptr_.get(); }
  void* mutable_data() noexcept { return data_ptr_.get(); }
  const DataPtr& data_ptr() const noexcept { return data_ptr_; }
  DataPtr& mutable_data_ptr() noexcept { return data_ptr_; }
  Device device() const noexcept { return data_ptr_.device(); }
  DeviceType device_type() const noexcept { return data_ptr_.device().type(); }
  Allocator* allocator() const noexcept { return allocator_; }
  bool resizable() const noexcept { return resizable_; }
  // A read-only storage (a read-only memory mapping): every in-place or out= write into a
  // tensor or view on it is refused by autograd::detail::check_inplace, the one funnel writes
  // pass, instead of faulting on the protected page. Set once, before any tensor sees it.
  bool read_only() const noexcept { return read_only_; }
  void set_read_only(bool read_only) noexcept { read_only_ = read_only; }

  // Replaces the block; returns the old one (c10's set_data_ptr).
  DataPtr set_data_ptr(DataPtr data_ptr) noexcept {
    std::swap(data_ptr_, data_ptr);
    return data_ptr;
  }
  void set_nbytes(std::size_t nbytes) noexcept { nbytes_ = nbytes; }

  // Grows or shrinks a resizable storage: a new block from the same allocator, the common
  // prefix copied over (c10's resize_bytes_cpu). Views keep pointing at this StorageImpl, so
  // they see the new block.
  void resize_bytes(std::size_t new_nbytes) {
    TP_CHECK(resizable_, "Trying to resize storage that is not resizable");
    DataPtr fresh = allocator_->allocate(new_nbytes, device());
    const std::size_t keep = std::min(nbytes_, new_nbytes);
    if (keep > 0) allocator_->copy_data(fresh, data_ptr_, keep);
    data_ptr_ = std::move(fresh);
    nbytes_ = new_nbytes;
  }

  // Frees the bytes when the last strong reference goes, even if weak ones remain.
  void release_resources() override {
    data_ptr_.clear();
    nbytes_ = 0;
  }

 private:
  static Allocator* checked(Allocator* a) {
    TP_CHECK(a, "StorageImpl: an allocator is required to allocate bytes");
    return a;
  }

  DataPtr data_ptr_;
  std::size_t nbytes_;
  Allocator* allocator_;  // not owned; allocators are never destroyed
  bool resizable_;
  bool read_only_ = false;
};

}  // namespace tensorplay
