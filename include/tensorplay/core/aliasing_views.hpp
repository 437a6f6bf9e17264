// AliasingViewsGuard: views that alias on every device, for kernels.
//
// Views on a device without strided addressing (Vulkan) are copies (ops/as_strided.hpp's
// make_alias): right for a user's view, wrong for a kernel that builds a tensor by writing
// through views of it (cat's slices, the zeros a view's gradient is scattered into, the
// gradient of an in-place op on a view, index_put_'s target). Inside this guard such views alias
// their base as CPU views do, and the device's copy kernel writes the strided destination. The
// aliases are the kernel's own: none may outlive the guard's scope. Thread-local, like GradMode.
#pragma once

namespace tensorplay::detail {

inline thread_local bool aliasing_device_views = false;

class AliasingViewsGuard {
 public:
  AliasingViewsGuard() noexcept : prev_(aliasing_device_views) { aliasing_device_views = true; }
  ~AliasingViewsGuard() { aliasing_device_views = prev_; }
  AliasingViewsGuard(const AliasingViewsGuard&) = delete;
  AliasingViewsGuard& operator=(const AliasingViewsGuard&) = delete;

 private:
  bool prev_;
};

}  // namespace tensorplay::detail
