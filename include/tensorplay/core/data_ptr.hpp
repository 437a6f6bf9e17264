// DataPtr: a move-only owning handle to a block of device memory.
//
// The way a block must be released is tied to the way it was obtained (free, delete[],
// cudaFree, or nothing at all for foreign memory), so the deleter travels with the pointer:
// `ctx` is what the plain function-pointer deleter receives, usually the data pointer itself,
// a separate context only when extra state must come along. Copying would mean releasing twice,
// so it does not compile; transfer ownership by moving or with release().
#pragma once

#include <cstddef>
#include <type_traits>
#include <utility>

#include <tensorplay/core/device.hpp>

namespace tensorplay {

using DeleterFnPtr = void (*)(void*);

namespace detail {
inline void deleteNothing(void*) noexcept {}
}  // namespace detail

class DataPtr {
 public:
  DataPtr() noexcept : DataPtr(nullptr, Device(DeviceType::CPU)) {}
  // Non-owning: memory that someone else frees (no deleter is called).
  DataPtr(void* data, Device device) noexcept
      : data_(data), ctx_(nullptr), deleter_(nullptr), device_(device) {}
  // Owning, the spec's form: the deleter receives the data pointer itself.
  DataPtr(void* data, DeleterFnPtr deleter, Device device) noexcept
      : data_(data), ctx_(data), deleter_(deleter), device_(device) {}
  DataPtr(void* data, void* ctx, DeleterFnPtr deleter, Device device) noexcept
      : data_(data), ctx_(ctx), deleter_(deleter), device_(device) {}

  DataPtr(const DataPtr&) = delete;
  DataPtr& operator=(const DataPtr&) = delete;
  DataPtr(DataPtr&& other) noexcept : DataPtr() { swap(other); }
  DataPtr& operator=(DataPtr&& other) noexcept {
    if (this != &other) {
      clear();
      swap(other);
    }
    return *this;
  }
  ~DataPtr() { clear(); }

  // Releases the block now (calls the deleter once) and leaves the handle empty.
  void clear() noexcept {
    if (deleter_) deleter_(ctx_);
    data_ = ctx_ = nullptr;
    deleter_ = nullptr;
  }
  // Hands ownership to the caller: returns the data pointer; the deleter is not called.
  [[nodiscard]] void* release() noexcept {
    void* p = data_;
    data_ = ctx_ = nullptr;
    deleter_ = nullptr;
    return p;
  }
  // As release(), but returns the context (what the deleter would have received).
  [[nodiscard]] void* release_context() noexcept {
    void* c = ctx_;
    data_ = ctx_ = nullptr;
    deleter_ = nullptr;
    return c;
  }

  void* get() const noexcept { return data_; }
  void* get_context() const noexcept { return ctx_; }
  DeleterFnPtr get_deleter() const noexcept { return deleter_; }
  Device device() const noexcept { return device_; }
  void unsafe_set_device(Device device) noexcept { device_ = device; }
  explicit operator bool() const noexcept { return data_ != nullptr; }

  template <class T>
  T* cast_context(DeleterFnPtr expected_deleter) const noexcept {
    return deleter_ == expected_deleter ? static_cast<T*>(ctx_) : nullptr;
  }

  // Swaps the deleter only if it is the expected one (c10's contract); true on success.
  [[nodiscard]] bool compare_exchange_deleter(DeleterFnPtr expected,
                                              DeleterFnPtr new_deleter) noexcept {
    if (deleter_ != expected) return false;
    deleter_ = new_deleter;
    return true;
  }

  void swap(DataPtr& other) noexcept {
    std::swap(data_, other.data_);
    std::swap(ctx_, other.ctx_);
    std::swap(deleter_, other.deleter_);
    std::swap(device_, other.device_);
  }
  friend void swap(DataPtr& a, DataPtr& b) noexcept { a.swap(b); }

  friend bool operator==(const DataPtr& p, std::nullptr_t) noexcept { return !p; }

 private:
  void* data_;
  void* ctx_;
  DeleterFnPtr deleter_;
  Device device_;
};

static_assert(!std::is_copy_constructible_v<DataPtr> && !std::is_copy_assignable_v<DataPtr>,
              "DataPtr owns its block: copying would release it twice");
static_assert(std::is_nothrow_move_constructible_v<DataPtr> &&
              std::is_nothrow_move_assignable_v<DataPtr>);

}  // namespace tensorplay
