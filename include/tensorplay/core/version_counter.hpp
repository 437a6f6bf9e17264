// The version counter: how many times a tensor's bytes were modified in place.
//
// Autograd records the version when it saves a tensor and refuses to use it if the version has
// moved (see the spec's "version guard"). Views must share one counter with their base, so
// VariableVersion allocates its counter eagerly at construction: with lazy allocation the first
// view would get a counter of its own and an in-place write through the base would never move
// the view's version. The guard would still be there, guarding nothing.
#pragma once

#include <atomic>
#include <cstdint>

#include <tensorplay/core/error.hpp>
#include <tensorplay/core/intrusive_ptr.hpp>
#include <tensorplay/core/object_pool.hpp>

namespace tensorplay {

// The shared counter object. Thread-safe: bumps and reads are relaxed atomics (the version is a
// tag compared for equality, it orders no other memory).
struct VersionCounter final : intrusive_ptr_target, detail::PooledObject<VersionCounter> {
  // Note [Unique release probe] (intrusive_ptr.hpp): a counter is usually owned by the one
  // TensorImpl it was made for (views share it) and dies with it.
  static constexpr bool intrusive_ptr_probe_unique_release = true;

  std::atomic<uint32_t> version_{0};
  explicit VersionCounter(uint32_t version = 0) noexcept : version_(version) {}
  void bump() noexcept { version_.fetch_add(1, std::memory_order_relaxed); }
  uint32_t current_version() const noexcept { return version_.load(std::memory_order_relaxed); }
};

// The per-TensorImpl handle on a (possibly shared) VersionCounter. Copies alias the counter.
// An inference tensor's handle is disabled: it holds no counter and costs no atomics.
class VariableVersion {
 public:
  enum Disabled { DISABLED };

  VariableVersion(uint32_t version = 0) : counter_(make_intrusive<VersionCounter>(version)) {}
  explicit VariableVersion(Disabled) noexcept {}

  bool enabled() const noexcept { return counter_.defined(); }

  // Called by every in-place operation on the tensor (and through the shared counter, on all of
  // its views). Inference tensors cannot be modified outside InferenceMode (PyTorch's rule),
  // which the caller checks; here a disabled counter is simply not bumped.
  void bump() noexcept {
    if (counter_) counter_->bump();
  }

  uint32_t current_version() const {
    TP_CHECK(counter_, "Inference tensors do not track version counter.");
    return counter_->current_version();
  }

  bool shares_counter(const VariableVersion& other) const noexcept {
    return counter_ && counter_ == other.counter_;
  }

  // Number of TensorImpls aliasing this counter (a view family's size). For tests.
  uint32_t use_count() const noexcept { return counter_ ? counter_.use_count() : 0; }

 private:
  intrusive_ptr<VersionCounter> counter_;
};

}  // namespace tensorplay
