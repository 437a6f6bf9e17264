// Storage: the one-word handle on a StorageImpl. Copying a Storage aliases the bytes; two
// Storages are the same storage exactly when they point at the same StorageImpl.
#pragma once

#include <cstddef>
#include <utility>

#include <tensorplay/core/device_policy.hpp>
#include <tensorplay/core/storage_impl.hpp>

namespace tensorplay {

class Storage {
 public:
  Storage() noexcept = default;
  explicit Storage(intrusive_ptr<StorageImpl> impl) noexcept : impl_(std::move(impl)) {}

  // Fresh bytes from an allocator (the device's default one when null).
  Storage(use_byte_size_t, std::size_t nbytes, Allocator* allocator = nullptr,
          bool resizable = false)
      : impl_(make_intrusive<StorageImpl>(use_byte_size, nbytes,
                                          allocator ? allocator : getCPUAllocator(), resizable)) {}
  // Adopts a block: foreign memory with a no-op or custom deleter, or an existing DataPtr.
  Storage(use_byte_size_t, std::size_t nbytes, DataPtr data_ptr, Allocator* allocator = nullptr,
          bool resizable = false)
      : impl_(make_intrusive<StorageImpl>(use_byte_size, nbytes, std::move(data_ptr), allocator,
                                          resizable)) {}

  // Wraps memory someone else owns; the storage never frees it.
  static Storage wrap_foreign(void* data, std::size_t nbytes, Device device = kCPU) {
    return Storage(use_byte_size, nbytes, DataPtr(data, device));
  }

  bool defined() const noexcept { return impl_.defined(); }
  explicit operator bool() const noexcept { return defined(); }

  std::size_t nbytes() const noexcept { return impl_->nbytes(); }
  const void* data() const noexcept { return impl_->data(); }
  void* mutable_data() const noexcept { return impl_->mutable_data(); }
  const DataPtr& data_ptr() const noexcept { return impl_->data_ptr(); }
  DataPtr& mutable_data_ptr() const noexcept { return impl_->mutable_data_ptr(); }
  DataPtr set_data_ptr(DataPtr d) const noexcept { return impl_->set_data_ptr(std::move(d)); }
  void set_nbytes(std::size_t n) const noexcept { impl_->set_nbytes(n); }
  void resize_bytes(std::size_t n) const { impl_->resize_bytes(n); }
  bool resizable() const noexcept { return impl_->resizable(); }
  bool read_only() const noexcept { return impl_->read_only(); }
  void set_read_only(bool read_only) const noexcept { impl_->set_read_only(read_only); }
  Allocator* allocator() const noexcept { return impl_->allocator(); }
  Device device() const noexcept { return impl_->device(); }
  DeviceType device_type() const noexcept { return impl_->device_type(); }

  bool is_alias_of(const Storage& other) const noexcept { return impl_ && impl_ == other.impl_; }
  std::size_t use_count() const noexcept { return impl_.use_count(); }
  bool unique() const noexcept { return impl_.unique(); }

  StorageImpl* unsafeGetStorageImpl() const noexcept { return impl_.get(); }
  const intrusive_ptr<StorageImpl>& getIntrusivePtr() const noexcept { return impl_; }

 private:
  intrusive_ptr<StorageImpl> impl_;
};

static_assert(sizeof(Storage) == sizeof(void*));

}  // namespace tensorplay
