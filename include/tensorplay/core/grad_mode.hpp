// Grad mode: whether operations record autograd history on this thread (libtorch's GradMode,
// AutoGradMode and NoGradGuard; Python's torch.no_grad / enable_grad / is_grad_enabled).
//
// Thread-local: one thread's no_grad block never affects another's. InferenceMode (core) turns
// recording off too, so is_enabled() reads both flags.
#pragma once

#include <tensorplay/core/inference_mode.hpp>

namespace tensorplay {

namespace detail {
inline thread_local bool grad_mode_enabled = true;
}  // namespace detail

struct GradMode {
  static bool is_enabled() noexcept {
    return detail::grad_mode_enabled && !detail::inference_mode_enabled;
  }
  static void set_enabled(bool enabled) noexcept { detail::grad_mode_enabled = enabled; }
};

// Sets grad mode for a scope and restores the previous value on exit.
class AutoGradMode {
 public:
  explicit AutoGradMode(bool enabled) noexcept : prev_(detail::grad_mode_enabled) {
    detail::grad_mode_enabled = enabled;
  }
  ~AutoGradMode() { detail::grad_mode_enabled = prev_; }
  AutoGradMode(const AutoGradMode&) = delete;
  AutoGradMode& operator=(const AutoGradMode&) = delete;

 private:
  bool prev_;
};

// `torch::NoGradGuard no_grad;`: nothing in the scope records history.
struct NoGradGuard : AutoGradMode {
  NoGradGuard() noexcept : AutoGradMode(false) {}
};

inline bool is_grad_enabled() noexcept { return GradMode::is_enabled(); }
inline void set_grad_enabled(bool enabled) noexcept { GradMode::set_enabled(enabled); }

}  // namespace tensorplay
