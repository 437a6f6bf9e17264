// TensorOptions: the dtype, device, memory format, requires_grad and pinned_memory a factory
// should produce (libtorch's
// builder: `TensorOptions().dtype(kDouble).device("cpu")`, or the free functions
// `dtype(kDouble)`, `device(kCPU)`; a DType, Device or MemoryFormat converts implicitly).
#pragma once

#include <optional>
#include <ostream>
#include <type_traits>
#include <utility>

#include <tensorplay/core/device.hpp>
#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/memory_format.hpp>

namespace tensorplay {

class TensorOptions {
 public:
  TensorOptions() noexcept = default;
  TensorOptions(DType d) noexcept : dtype_(d) {}
  TensorOptions(Device d) noexcept : device_(d) {}
  TensorOptions(DeviceType t) noexcept : device_(Device(t)) {}
  TensorOptions(MemoryFormat f) noexcept : memory_format_(f) {}
  // Anything a Device can be built from ("cuda:1", a DeviceType and an index), as in libtorch.
  template <class... Args>
  requires(sizeof...(Args) > 0 && std::is_constructible_v<Device, Args&&...> &&
           !(sizeof...(Args) == 1 && (std::is_same_v<std::decay_t<Args>, Device> && ...)))
      TensorOptions(Args&&... args)
      : device_(Device(std::forward<Args>(args)...)) {}

  // Builders return a modified copy.
  TensorOptions dtype(std::optional<DType> d) const noexcept {
    TensorOptions r = *this;
    r.dtype_ = d;
    return r;
  }
  template <class T>
  TensorOptions dtype() const noexcept {
    return dtype(dtype_of<T>);
  }
  TensorOptions device(std::optional<Device> d) const noexcept {
    TensorOptions r = *this;
    r.device_ = d;
    return r;
  }
  TensorOptions memory_format(std::optional<MemoryFormat> f) const noexcept {
    TensorOptions r = *this;
    r.memory_format_ = f;
    return r;
  }
  TensorOptions requires_grad(std::optional<bool> r) const noexcept {
    TensorOptions o = *this;
    o.requires_grad_ = r;
    return o;
  }
  // Page-locked CPU memory (getPinnedMemoryAllocator(): the CUDA backend's), for asynchronous
  // copies to and from a device.
  TensorOptions pinned_memory(std::optional<bool> p) const noexcept {
    TensorOptions o = *this;
    o.pinned_memory_ = p ? static_cast<signed char>(*p) : kUnset;
    return o;
  }

  // Accessors fill in the defaults (float32 on the CPU, row-major), as libtorch's do.
  DType dtype() const noexcept { return dtype_.value_or(kFloat); }
  Device device() const noexcept { return device_.value_or(Device(kCPU)); }
  MemoryFormat memory_format() const noexcept {
    return memory_format_.value_or(MemoryFormat::Contiguous);
  }
  bool requires_grad() const noexcept { return requires_grad_.value_or(false); }
  bool pinned_memory() const noexcept { return pinned_memory_ == 1; }
  bool has_pinned_memory() const noexcept { return pinned_memory_ != kUnset; }
  std::optional<bool> pinned_memory_opt() const noexcept {
    if (!has_pinned_memory()) return std::nullopt;
    return pinned_memory_ == 1;
  }
  bool has_dtype() const noexcept { return dtype_.has_value(); }
  bool has_requires_grad() const noexcept { return requires_grad_.has_value(); }
  bool has_device() const noexcept { return device_.has_value(); }
  bool has_memory_format() const noexcept { return memory_format_.has_value(); }
  std::optional<DType> dtype_opt() const noexcept { return dtype_; }
  std::optional<Device> device_opt() const noexcept { return device_; }
  std::optional<MemoryFormat> memory_format_opt() const noexcept { return memory_format_; }

  // *this with every field that `other` sets taken from `other` (libtorch's merge_in).
  TensorOptions merge_in(const TensorOptions& other) const noexcept {
    TensorOptions r = *this;
    if (other.dtype_) r.dtype_ = other.dtype_;
    if (other.device_) r.device_ = other.device_;
    if (other.memory_format_) r.memory_format_ = other.memory_format_;
    if (other.requires_grad_) r.requires_grad_ = other.requires_grad_;
    if (other.has_pinned_memory()) r.pinned_memory_ = other.pinned_memory_;
    return r;
  }

  friend std::ostream& operator<<(std::ostream& os, const TensorOptions& o) {
    return os << "TensorOptions(dtype=" << o.dtype() << ", device=" << o.device()
              << ", memory_format=" << o.memory_format()
              << ", requires_grad=" << (o.requires_grad() ? "true" : "false")
              << ", pinned_memory=" << (o.pinned_memory() ? "true" : "false") << ")";
  }

 private:
  std::optional<DType> dtype_;
  std::optional<Device> device_;
  std::optional<MemoryFormat> memory_format_;
  std::optional<bool> requires_grad_;
  // A plain tri-state rather than another optional<bool> (GCC's -Wmaybe-uninitialized sees the
  // empty optionals' storage copied and warns falsely on some targets).
  static constexpr signed char kUnset = -1;
  signed char pinned_memory_ = kUnset;
};

inline TensorOptions dtype(DType d) noexcept { return TensorOptions().dtype(d); }
template <class T>
TensorOptions dtype() noexcept {
  return TensorOptions().dtype<T>();
}
inline TensorOptions device(Device d) noexcept { return TensorOptions().device(d); }
inline TensorOptions memory_format(MemoryFormat f) noexcept {
  return TensorOptions().memory_format(f);
}
inline TensorOptions requires_grad(bool r = true) noexcept {
  return TensorOptions().requires_grad(r);
}

}  // namespace tensorplay
