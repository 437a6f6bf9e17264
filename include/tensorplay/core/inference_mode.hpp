// InferenceMode: a thread-local RAII guard under which new tensors are inference tensors
// (no version counter, never saved for backward). libtorch's c10::InferenceMode.
//
// The autograd layer reads the same flag to also disable gradient recording.
#pragma once

namespace tensorplay {

namespace detail {
// Trivially destructible thread_local: readable at any point of a thread's life.
inline thread_local bool inference_mode_enabled = false;
}  // namespace detail

class InferenceMode {
 public:
  explicit InferenceMode(bool enabled = true) noexcept : prev_(detail::inference_mode_enabled) {
    detail::inference_mode_enabled = enabled;
  }
  ~InferenceMode() { detail::inference_mode_enabled = prev_; }
  InferenceMode(const InferenceMode&) = delete;
  InferenceMode& operator=(const InferenceMode&) = delete;

  static bool is_enabled() noexcept { return detail::inference_mode_enabled; }

 private:
  bool prev_;
};

}  // namespace tensorplay
