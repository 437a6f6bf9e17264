// The CPU random generator: Generator (at::Generator / torch.Generator), its MT19937 engine and
// state, the process's default generator and manual_seed. The streams the random factories draw
// from it are described in ops/random.hpp; this header is what a caller needs to seed, fork or
// save a generator.
#pragma once

#include <array>
#include <cstdint>
#include <mutex>
#include <optional>
#if defined(_WIN32)
#include <random>
#else
#include <cstdio>
#endif

#include <tensorplay/core/device.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/intrusive_ptr.hpp>

namespace tensorplay {
namespace detail {

// MT19937: a value type (copying it forks the stream), constexpr throughout.
class mt19937 {
 public:
  static constexpr int kStateSize = 624;

  constexpr explicit mt19937(uint32_t seed = 5489u) noexcept { this->seed(seed); }

  constexpr void seed(uint32_t s) noexcept {
    key_[0] = s;
    for (int i = 1; i < kStateSize; ++i) {
      key_[i] = 1812433253u * (key_[i - 1] ^ (key_[i - 1] >> 30)) + static_cast<uint32_t>(i);
    }
    pos_ = kStateSize;  // twist before the first output
  }

  constexpr uint32_t operator()() noexcept {
    if (pos_ >= kStateSize) twist();
    uint32_t y = key_[pos_++];
    y ^= y >> 11;  // tempering
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    y ^= y >> 18;
    return y;
  }

  constexpr const std::array<uint32_t, kStateSize>& key() const noexcept { return key_; }
  constexpr uint32_t pos() const noexcept { return pos_; }
  constexpr void set(const std::array<uint32_t, kStateSize>& key, uint32_t pos) noexcept {
    key_ = key;
    pos_ = pos;
  }

 private:
  // Regenerates all 624 words in place (the reference algorithm: words past 227 read the already
  // regenerated ones, which is part of the definition).
  constexpr void twist() noexcept {
    for (int i = 0; i < kStateSize; ++i) {
      const uint32_t y = (key_[i] & 0x80000000u) | (key_[(i + 1) % kStateSize] & 0x7fffffffu);
      key_[i] = key_[(i + 397) % kStateSize] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
    }
    pos_ = 0;
  }

  std::array<uint32_t, kStateSize> key_{};
  uint32_t pos_ = kStateSize;
};

// c10's default_rng_seed_val: what a Generator made without a seed starts from.
inline constexpr uint64_t default_rng_seed_val = 67280421310721ull;

// 53 random bits (c10 keeps seeds exactly representable as a Python float).
// Read from the system's entropy source, as c10 reads /dev/urandom (std::random_device where
// there is none).
inline uint64_t non_deterministic_seed() {
#if defined(_WIN32)
  std::random_device rd;
  const uint64_t s = (uint64_t{rd()} << 32) + rd();
#else
  uint64_t s = 0;
  std::FILE* f = std::fopen("/dev/urandom", "rb");
  const bool ok = f && std::fread(&s, sizeof s, 1, f) == 1;
  if (f) std::fclose(f);
  TP_CHECK(ok, "Generator: could not read a random seed from /dev/urandom");
#endif
  return s & 0x1FFFFFFFFFFFFFull;
}

}  // namespace detail

// A generator's complete state: restoring it replays the same stream.
struct GeneratorState {
  uint64_t seed = detail::default_rng_seed_val;             // initial_seed()
  std::array<uint32_t, detail::mt19937::kStateSize> key{};  // MT19937's 624 words
  uint32_t pos = detail::mt19937::kStateSize;               // next word; 624: twist first
  friend bool operator==(const GeneratorState&, const GeneratorState&) = default;
};

namespace detail {

// Thread safety: every member function locks mutex_, except random()/random64(), whose callers
// hold it (a factory locks once for the whole tensor, as PyTorch's kernels do).
class CPUGeneratorImpl : public intrusive_ptr_target {
 public:
  explicit CPUGeneratorImpl(uint64_t seed) : seed_(seed), engine_(static_cast<uint32_t>(seed)) {}

  void set_current_seed(uint64_t seed) {
    std::lock_guard<std::mutex> lock(mutex_);
    seed_ = seed;
    engine_.seed(static_cast<uint32_t>(seed));
  }
  uint64_t current_seed() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return seed_;
  }
  GeneratorState get_state() const {
    std::lock_guard<std::mutex> lock(mutex_);
    return GeneratorState{seed_, engine_.key(), engine_.pos()};
  }
  void set_state(const GeneratorState& s) {
    TP_CHECK_VALUE(s.pos <= static_cast<uint32_t>(mt19937::kStateSize),
                   "Generator::set_state: invalid MT19937 position ", s.pos, " (expected 0..",
                   mt19937::kStateSize, ")");
    std::lock_guard<std::mutex> lock(mutex_);
    seed_ = s.seed;
    engine_.set(s.key, s.pos);
  }

  uint32_t random() noexcept { return engine_(); }  // caller holds mutex()
  uint64_t random64() noexcept {                    // caller holds mutex()
    const uint64_t hi = engine_();
    const uint64_t lo = engine_();
    return (hi << 32) | lo;
  }
  std::mutex& mutex() const noexcept { return mutex_; }

 private:
  mutable std::mutex mutex_;
  uint64_t seed_;
  mt19937 engine_;
};

}  // namespace detail

// A handle to a CPU random generator, as at::Generator / torch.Generator: copies share one
// state (so passing a Generator to rand advances the caller's stream); clone() forks it.
// Generator() starts from c10's default seed 67280421310721; Generator(seed) from `seed`.
class Generator {
 public:
  Generator() : Generator(detail::default_rng_seed_val) {}
  explicit Generator(uint64_t seed) : impl_(make_intrusive<detail::CPUGeneratorImpl>(seed)) {}

  // libtorch's names.
  void set_current_seed(uint64_t seed) const { impl_->set_current_seed(seed); }
  uint64_t current_seed() const { return impl_->current_seed(); }
  // torch.Generator's names. seed() reseeds from the system's entropy and returns the new seed.
  const Generator& manual_seed(uint64_t seed) const {
    set_current_seed(seed);
    return *this;
  }
  uint64_t initial_seed() const { return current_seed(); }
  uint64_t seed() const {
    const uint64_t s = detail::non_deterministic_seed();
    set_current_seed(s);
    return s;
  }

  GeneratorState get_state() const { return impl_->get_state(); }
  void set_state(const GeneratorState& state) const { impl_->set_state(state); }
  Generator clone() const {
    Generator g;
    g.set_state(get_state());
    return g;
  }

  Device device() const noexcept { return Device(kCPU); }
  std::mutex& mutex() const noexcept { return impl_->mutex(); }
  // One raw draw (w and w64 of the header comment), locking for just that draw.
  uint32_t random() const {
    std::lock_guard<std::mutex> lock(mutex());
    return impl_->random();
  }
  uint64_t random64() const {
    std::lock_guard<std::mutex> lock(mutex());
    return impl_->random64();
  }
  detail::CPUGeneratorImpl* unsafeGetGeneratorImpl() const noexcept { return impl_.get(); }

  // Identity, as libtorch compares generators: the same shared state.
  friend bool operator==(const Generator& a, const Generator& b) noexcept {
    return a.impl_ == b.impl_;
  }

 private:
  intrusive_ptr<detail::CPUGeneratorImpl> impl_;
};

namespace detail {

// The process's default CPU generator (libtorch's at::detail::getDefaultCPUGenerator). Never
// destroyed, so tensors drawn during static destruction still find it; seeded from
// the system's entropy on first use. Thread safety: the static's initialisation is thread-safe and
// the generator locks its own mutex.
inline const Generator& getDefaultCPUGenerator() {
  static const Generator* gen = new Generator(non_deterministic_seed());
  return *gen;
}

inline const Generator& generator_or_default(const std::optional<Generator>& g) {
  return g ? *g : getDefaultCPUGenerator();
}

}  // namespace detail

namespace detail {
// The last manual_seed and how many there have been, for the generators of device backends
// (CUDA's), which follow it as torch.manual_seed seeds every device: a generator that sees a
// newer epoch than its own takes the seed and restarts its sequence.
struct ManualSeedState {
  std::mutex mutex;
  uint64_t seed = 0;
  uint64_t epoch = 0;
};
inline ManualSeedState& manual_seed_state() {
  static ManualSeedState* const state = new ManualSeedState();  // never destroyed
  return *state;
}
}  // namespace detail

// Seeds the default CPU generator and every device's default generator (torch::manual_seed).
inline void manual_seed(uint64_t seed) {
  detail::getDefaultCPUGenerator().set_current_seed(seed);
  detail::ManualSeedState& s = detail::manual_seed_state();
  const std::lock_guard<std::mutex> lock(s.mutex);
  s.seed = seed;
  ++s.epoch;
}

}  // namespace tensorplay
