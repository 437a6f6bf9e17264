// Allocator: the runtime interface every device's memory source implements, and the
// compile-time contract (AllocationPolicy) that a device policy states.
//
// Upper layers never name an allocator: they call getAllocator(device.type()) (see
// device_policy.hpp), so swapping an implementation never touches the core.
#pragma once

#include <concepts>
#include <cstddef>

#include <cstring>

#include <tensorplay/core/data_ptr.hpp>
#include <tensorplay/core/device.hpp>

namespace tensorplay {

class Allocator {
 public:
  virtual ~Allocator() = default;
  // Returns a block of at least nbytes, suitably aligned, owned by the returned DataPtr.
  // nbytes == 0 is valid and may return a null data pointer.
  virtual DataPtr allocate(std::size_t nbytes) const = 0;
  // Device-indexed form; single-device backends ignore the device (the spec's default).
  virtual DataPtr allocate(std::size_t nbytes, const Device& device) const {
    (void)device;
    return allocate(nbytes);
  }
  // Copies the first nbytes of src to dst, two blocks of this allocator's (c10's copy_data;
  // what a storage that grows keeps). A device allocator copies on its device.
  virtual void copy_data(const DataPtr& dst, const DataPtr& src, std::size_t nbytes) const {
    if (nbytes > 0) std::memcpy(dst.get(), src.get(), nbytes);
  }
  // The deleter of the blocks this allocator returns, if it is one plain function whose
  // context is the data pointer (lets raw_allocate/raw_deallocate round-trip); else null.
  virtual DeleterFnPtr raw_deleter() const noexcept { return nullptr; }

  void* raw_allocate(std::size_t nbytes) const {
    DataPtr p = allocate(nbytes);
    TP_CHECK(p.get() == p.get_context() && (p.get_deleter() == raw_deleter() || !p),
             "raw_allocate: this allocator's blocks need their context to be freed");
    return p.release();
  }
  void raw_deallocate(void* ptr) const {
    if (DeleterFnPtr d = raw_deleter()) {
      if (ptr) d(ptr);
      return;
    }
    TP_CHECK(ptr == nullptr, "raw_deallocate: this allocator has no raw deleter");
  }
};

// What a device allocation policy offers (checked at compile time). Each backend specialises
// DevicePolicy<D> (device_policy.hpp) and the runtime allocator table is built from the
// specialisations that satisfy this concept.
template <class P>
concept AllocationPolicy = requires {
  { P::device_type } -> std::convertible_to<DeviceType>;
  // Whether tensors on the device can alias storage through strides (Vulkan cannot).
  { P::supports_strided_views } -> std::convertible_to<bool>;
  { P::allocator() }
  noexcept->std::convertible_to<Allocator*>;
  typename P::allocator_type;
}
&&std::derived_from<typename P::allocator_type, Allocator>;

}  // namespace tensorplay
