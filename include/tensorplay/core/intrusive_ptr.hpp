// intrusive_ptr: the reference-counted handle of TensorPlay's ownership chain
// (Tensor -> TensorImpl -> Storage -> StorageImpl), with c10::intrusive_ptr's API and semantics.
//
// The count lives inside the object (in intrusive_ptr_target), so a handle is one raw pointer,
// a copy is one relaxed atomic increment, and there is no control block to allocate or chase.
// The price: objects must be heap-allocated by make_intrusive (or come back through reclaim),
// because the last release deletes them.
//
// Everything here is constexpr (C++20): make_intrusive, copies, moves, weak references and the
// final delete run inside constant expressions (tests/constexpr/intrusive_ptr_constexpr.cpp).
// At run time the count is accessed through std::atomic_ref; under std::is_constant_evaluated()
// it is plain arithmetic, which is exact there since constant evaluation is single-threaded.
#pragma once

#include <atomic>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <type_traits>
#include <utility>

#include <tensorplay/config.hpp>
#include <tensorplay/core/error.hpp>

// TENSORPLAY_INTRUSIVE_PTR_DEBUG_CHECKS (config.hpp) guards the raw-pointer entry points
// (reclaim & co.): they throw tensorplay::Error, as c10's TORCH_INTERNAL_ASSERT_DEBUG_ONLY throws
// c10::Error. Off with NDEBUG because reclaim sits on hot borrow paths.

namespace tensorplay {

class intrusive_ptr_target;

namespace raw {
// Constructor tag: adopt a pointer without touching the count (reclaim() is the public way).
struct DontIncreaseRefcount {};
namespace intrusive_ptr {
constexpr void incref(intrusive_ptr_target* self);
}
namespace weak_intrusive_ptr {
constexpr void incref(intrusive_ptr_target* self);
}
}  // namespace raw

namespace detail {

// The packed count: one 64-bit word, so one load observes both counts (lock() reads "still
// strong > 0?" in the word it then increments; the debug checks see a consistent pair).
//
// Layout: weak count (c10's: weak_intrusive_ptrs, plus one while strong > 0) in the low 32 bits,
// strong count MINUS ONE in the high 32 bits. The bias is for the hot release: subtracting one
// strong reference turns the word negative exactly when strong reaches 0 (the high half goes
// from 0 to 0xffffffff), so GCC folds the test into the flags of the RMW, `lock sub; js`, as
// c10's separate counter gets `lock sub; je`. Strong in the low half would need the RMW's old
// value (`lock xadd`, then shift/test it) because no flag of a 64-bit subtraction depends on
// the low half alone; the unbiased high half would need a compare against 2^32. The price: a
// last release must load the weak count after its decrement (c10 1.13 does the same), ~2 ns
// more than reading it from a `lock xadd` result (intrusive_ptr_make in the benchmarks); the
// tensor types skip it (Note [Unique release probe]). The bias caps strong at 2^31 (retain_
// asserts it), weak at 2^32 - 1.
inline constexpr std::uint64_t kStrongOne = std::uint64_t{1} << 32;
inline constexpr std::uint64_t kWeakOne = 1;
// A constructed, never-owned target: strong 0, weak 0 (Note [Stack objects]).
inline constexpr std::uint64_t kNoRefs = ~std::uint64_t{0} << 32;
// A freshly made object: one strong reference and the weak +1 that strong references carry.
inline constexpr std::uint64_t kUniqueRef = kNoRefs + kStrongOne + kWeakOne;
static_assert(kUniqueRef == 1);

constexpr std::uint32_t strong_count(std::uint64_t combined) noexcept {
  return static_cast<std::uint32_t>(combined >> 32) + 1;
}
constexpr std::uint32_t weak_count(std::uint64_t combined) noexcept {
  return static_cast<std::uint32_t>(combined);
}
// Strong is 0 exactly when the word is negative (strong <= 2^31, see above).
constexpr bool no_strong(std::uint64_t combined) noexcept {
  return static_cast<std::int64_t>(combined) < 0;
}

// Note [Unique release probe]: a target type may declare
//   static constexpr bool intrusive_ptr_probe_unique_release = true;
// and then every release first loads the count: if it reads "1 strong, weak +1 only", this
// handle is the sole reference and none can appear (a new one needs an existing one), so the
// object is deleted with no atomic RMW at all (newer c10 does this for every type). That saves
// a locked instruction, and the store-buffer drain it implies, on each last release, and costs
// a load on each shared one, which must wait for the locked increment that usually precedes it
// on the same line: measured ~3.5 ns of a ~13 ns copy+destroy (bench/intrusive_ptr_bench.cpp).
// So it is opt-in, for types whose handles are mostly released last: the three objects that a
// tensor allocates (TensorImpl, StorageImpl, VersionCounter) die with their temporaries, which
// takes empty({2,3}) + destroy from three locked RMWs to none (measured ~15 of ~38 ns,
// empty_2x3 in bench/tensor_bench.cpp); a plain intrusive_ptr copy is shared.
template <class T>
inline constexpr bool probes_unique_release_v = requires {
  requires T::intrusive_ptr_probe_unique_release;
};

// The default "null" of intrusive_ptr<T>. c10 lets a type pick another sentinel (an address of
// a static object that is never counted); the NullType parameter is kept for that reason.
template <class TTarget>
struct intrusive_target_default_null_type final {
  static constexpr TTarget* singleton() noexcept { return nullptr; }
};

// Converting between two NullTypes maps one sentinel onto the other, so an empty pointer stays
// empty (and is never dereferenced as an object) across an upcast.
template <class To, class ToNull, class FromNull, class From>
constexpr To* convert_null_(From* p) noexcept {
  return p == FromNull::singleton() ? ToNull::singleton() : static_cast<To*>(p);
}

}  // namespace detail

// Base class of everything an intrusive_ptr can own.
//
// Note [Weak references] (c10's scheme):
//   - strong == number of intrusive_ptrs; weak == number of weak_intrusive_ptrs, plus one while
//     strong > 0. Hence strong > 0 implies weak > 0, and "weak == 0" means "memory unreachable".
//   - When strong drops to 0, release_resources() runs (the object is dead to users, but weak
//     holders still need the count, so the memory stays); when weak drops to 0 the object is
//     deleted. If no weak reference exists when the last strong releaser looks (right after
//     its decrement), the object is deleted at once and release_resources() is NOT called: the
//     destructor does that work.
//   - strong never goes back up from 0: lock() increments only with a CAS that refuses 0.
//
// Note [Stack objects]: a constructed target has counts 0/0, and every raw-pointer entry point
// (reclaim, unsafe_reclaim_from_nonowning, weak reclaim) checks in debug builds that the count
// says "owned by someone". Only make_intrusive sets it to 1, so an object that did not come from
// make_intrusive (a stack or member object) cannot be turned into an owner by accident.
//
// Thread safety: the count is atomic (atomic_ref); the object's other members are the owner's.
class intrusive_ptr_target {
  // Not `mutable` (g++ 12 rejects mutating a mutable member in constant evaluation); the const
  // paths const_cast instead, which is sound because make_intrusive always creates a non-const
  // object, even for intrusive_ptr<const T>.
  alignas(std::atomic_ref<std::uint64_t>::required_alignment) std::uint64_t combined_refcount_;

  static_assert(std::atomic_ref<std::uint64_t>::is_always_lock_free,
                "intrusive_ptr needs a lock-free 64-bit atomic");

  template <class, class>
  friend class intrusive_ptr;
  template <class, class>
  friend class weak_intrusive_ptr;
  friend constexpr void raw::intrusive_ptr::incref(intrusive_ptr_target* self);
  friend constexpr void raw::weak_intrusive_ptr::incref(intrusive_ptr_target* self);

  // ---- the count: atomic at run time, plain in constant evaluation -----------------------
  constexpr std::uint64_t& word_() const noexcept {
    return const_cast<std::uint64_t&>(combined_refcount_);
  }
  constexpr std::uint64_t load_(std::memory_order order) const noexcept {
    if (std::is_constant_evaluated()) return combined_refcount_;
    return std::atomic_ref<std::uint64_t>(word_()).load(order);
  }
  constexpr void store_relaxed_(std::uint64_t value) const noexcept {
    if (std::is_constant_evaluated()) {
      word_() = value;
      return;
    }
    std::atomic_ref<std::uint64_t>(word_()).store(value, std::memory_order_relaxed);
  }
  // Increments only need to happen-before the matching decrement, which the hand-over of the
  // handle already guarantees: relaxed. Returns the new value.
  constexpr std::uint64_t add_relaxed_(std::uint64_t inc) const noexcept {
    if (std::is_constant_evaluated()) return word_() += inc;
    return std::atomic_ref<std::uint64_t>(word_()).fetch_add(inc, std::memory_order_relaxed) + inc;
  }
  // Every use of the object must happen-before its destruction, so each decrement releases
  // (publishes this owner's writes) and the final one acquires (sees everyone's). acq_rel on all
  // of them is the simple way, and costs nothing extra on x86 / modern ARM. Returns the new value
  // (a caller that only tests its sign lets GCC drop the value and branch on the RMW's flags,
  // see kStrongOne).
  constexpr std::uint64_t sub_acq_rel_(std::uint64_t dec) const noexcept {
    if (std::is_constant_evaluated()) return word_() -= dec;
    return std::atomic_ref<std::uint64_t>(word_()).fetch_sub(dec, std::memory_order_acq_rel) - dec;
  }
  // lock(): acquire on success so a weak holder that wins a strong reference sees the writes of
  // the owners that released before it (it got no handle from them to synchronise through).
  constexpr bool cas_weak_acquire_(std::uint64_t& expected, std::uint64_t desired) const noexcept {
    if (std::is_constant_evaluated()) {
      if (word_() != expected) {
        expected = word_();
        return false;
      }
      word_() = desired;
      return true;
    }
    return std::atomic_ref<std::uint64_t>(word_()).compare_exchange_weak(
        expected, desired, std::memory_order_acquire, std::memory_order_relaxed);
  }

  constexpr std::uint32_t refcount() const noexcept {
    return detail::strong_count(load_(std::memory_order_relaxed));
  }
  constexpr std::uint32_t weakcount() const noexcept {
    return detail::weak_count(load_(std::memory_order_relaxed));
  }

 protected:
  constexpr intrusive_ptr_target() noexcept : combined_refcount_(detail::kNoRefs) {}

  // The count is a property of the memory location, not of the value: copies and moves start
  // a fresh object at 0/0 and assignments leave the target's count alone.
  constexpr intrusive_ptr_target(const intrusive_ptr_target&) noexcept : intrusive_ptr_target() {}
  constexpr intrusive_ptr_target(intrusive_ptr_target&&) noexcept : intrusive_ptr_target() {}
  constexpr intrusive_ptr_target& operator=(const intrusive_ptr_target&) noexcept { return *this; }
  constexpr intrusive_ptr_target& operator=(intrusive_ptr_target&&) noexcept { return *this; }

  // Protected: an intrusive_ptr_target is destroyed by its last reference or as a stack/member
  // object of a derived type, never through a bare intrusive_ptr_target* by user code.
  // constexpr (C++20) so that objects can die inside constant expressions. g++ 12 does not treat
  // an implicit destructor that overrides a constexpr virtual one as constexpr: a class that is
  // destroyed in a constant expression must declare `constexpr ~Derived() override {}`.
  constexpr virtual ~intrusive_ptr_target() {
    // Destroying a target that still has owners means a double free is coming. The release
    // paths leave strong == 0 and weak <= 1 (the weak +1 is not dropped when nobody can see it).
    assert(refcount() == 0 && weakcount() <= 1 &&
           "intrusive_ptr_target destroyed while intrusive_ptr/weak_intrusive_ptr still own it");
  }

 private:
  // Called once, when the last strong reference goes away while weak references remain: drop
  // expensive state (a StorageImpl frees its bytes here) although the memory must live on for
  // the weak holders. Not called if there are no weak references: the destructor runs directly.
  // constexpr so that it may run in constant evaluation; overrides need not be.
  constexpr virtual void release_resources() {}
};

template <class TTarget, class NullType = detail::intrusive_target_default_null_type<TTarget>>
class weak_intrusive_ptr;

template <class TTarget, class NullType = detail::intrusive_target_default_null_type<TTarget>>
class intrusive_ptr final {
  // No static_assert(is_base_of<intrusive_ptr_target, TTarget>) at class level: a class that
  // holds an intrusive_ptr to its own type is incomplete here. Members that touch the count
  // check it instead.
  static_assert(std::is_base_of_v<TTarget, std::remove_pointer_t<decltype(NullType::singleton())>>,
                "NullType::singleton() must return a TTarget*");

  TTarget* target_;

  template <class, class>
  friend class intrusive_ptr;
  friend class weak_intrusive_ptr<TTarget, NullType>;

  static constexpr intrusive_ptr_target* base_(TTarget* p) noexcept {
    static_assert(std::is_base_of_v<intrusive_ptr_target, TTarget>,
                  "intrusive_ptr<T> requires T to derive from intrusive_ptr_target");
    return const_cast<intrusive_ptr_target*>(static_cast<const intrusive_ptr_target*>(p));
  }

  constexpr void retain_() noexcept {
    if (target_ != NullType::singleton()) {
      [[maybe_unused]] const std::uint64_t now = base_(target_)->add_relaxed_(detail::kStrongOne);
      // 1 would mean we resurrected a dead object: only lock() may add to strong, and never
      // from 0. A negative word would mean strong passed 2^31, which the bias cannot represent.
      assert(detail::strong_count(now) != 1 && "intrusive_ptr: refcount increased from zero");
      assert(!detail::no_strong(now) && "intrusive_ptr: refcount overflow");
    }
  }

  constexpr void reset_() noexcept {
    if (target_ == NullType::singleton()) return;
    intrusive_ptr_target* t = base_(target_);
    // Note [Unique release probe]: for opted-in types, a sole owner deletes without an RMW.
    // Acquire, so that the writes of the owners whose releases left us alone happen-before the
    // destructor (what the acq_rel decrement gives on the other path). The store keeps the
    // destructor's "no owners left" assertion true.
    if constexpr (detail::probes_unique_release_v<std::remove_const_t<TTarget>>) {
      if (t->load_(std::memory_order_acquire) == detail::kUniqueRef) {
        t->store_relaxed_(detail::kUniqueRef - detail::kStrongOne);
        delete target_;
        return;
      }
    }
    // One acq_rel RMW, whose result is only sign-tested: `lock sub; js` (see kStrongOne).
    if (detail::no_strong(t->sub_acq_rel_(detail::kStrongOne))) release_last_strong_(t);
  }

  // The last strong reference went away. Out of line, so that the shared release stays c10's
  // `lock sub; jcc` (plus a movabs of 2^32, which waits for nothing): inlined, GCC keeps the
  // count's address in a register for this path and computes it (an lea) before the locked
  // subtraction on every release.
  [[gnu::noinline]] constexpr void release_last_strong_(intrusive_ptr_target* t) noexcept {
    // weak == 1 is only the +1 of the strong references: no weak_intrusive_ptr exists, and none
    // can appear now (it would need a strong or weak reference), so delete without
    // release_resources (c10's semantics). Otherwise release, then drop the +1; whoever takes
    // weak to 0 (us, or the last weak holder) deletes. The weak count is loaded rather than
    // taken from the decrement (which would cost the decrement its flags form): strong is 0 for
    // good, and a weak holder that leaves in between only makes us the one that deletes; the
    // load acquires, as c10's does, to see that holder's writes before the destructor runs.
    bool should_delete = detail::weak_count(t->load_(std::memory_order_acquire)) == 1;
    if (!should_delete) {
      // release_resources is conceptually part of destruction, which may mutate even const
      // objects; hence base_()'s const_cast for intrusive_ptr<const T>.
      t->release_resources();
      should_delete = detail::weak_count(t->sub_acq_rel_(detail::kWeakOne)) == 0;
    }
    if (should_delete) delete target_;
  }

  // Raw-pointer construction is private: only make_intrusive / reclaim / lock create owners
  // (Note [Stack objects]). This one adopts a brand-new object: nobody else can see it yet, so a
  // plain store of "1 strong, 1 weak" is enough (a relaxed store is a plain mov on x86, an
  // atomic increment a lock-prefixed add).
  constexpr explicit intrusive_ptr(TTarget* target) noexcept : target_(target) {
    if (target_ != NullType::singleton()) {
      assert(base_(target_)->load_(std::memory_order_relaxed) == detail::kNoRefs &&
             "intrusive_ptr: new target already counted (did its constructor make an "
             "intrusive_ptr from `this`?)");
      base_(target_)->store_relaxed_(detail::kUniqueRef);
    }
  }

  constexpr intrusive_ptr(TTarget* target, raw::DontIncreaseRefcount) noexcept : target_(target) {}

 public:
  using element_type = TTarget;

  constexpr intrusive_ptr() noexcept : target_(NullType::singleton()) {}
  constexpr intrusive_ptr(std::nullptr_t) noexcept : target_(NullType::singleton()) {}  // NOLINT

  // From the heap, so as safe as make_intrusive; not constexpr because unique_ptr is not (C++20).
  // Takes a unique_ptr to non-const T: a `new const T` could not have its count written.
  explicit intrusive_ptr(std::unique_ptr<std::remove_const_t<TTarget>> rhs) noexcept
      : intrusive_ptr(rhs.release()) {}

  constexpr intrusive_ptr(const intrusive_ptr& rhs) noexcept : target_(rhs.target_) { retain_(); }
  constexpr intrusive_ptr(intrusive_ptr&& rhs) noexcept : target_(rhs.target_) {
    rhs.target_ = NullType::singleton();
  }

  // Upcasts (Derived -> Base, T -> const T). Constrained rather than static_asserted so that
  // std::is_convertible answers truthfully.
  template <class From, class FromNullType>
  requires std::is_convertible_v<From*, TTarget*>
  constexpr intrusive_ptr(const intrusive_ptr<From, FromNullType>& rhs) noexcept  // NOLINT
      : target_(detail::convert_null_<TTarget, NullType, FromNullType>(rhs.target_)) {
    retain_();
  }
  template <class From, class FromNullType>
  requires std::is_convertible_v<From*, TTarget*>
  constexpr intrusive_ptr(intrusive_ptr<From, FromNullType>&& rhs) noexcept  // NOLINT
      : target_(detail::convert_null_<TTarget, NullType, FromNullType>(rhs.target_)) {
    rhs.target_ = FromNullType::singleton();
  }

  constexpr ~intrusive_ptr() noexcept { reset_(); }

  // Copy-and-swap: safe for self-assignment, and the old target is released only after the new
  // one is retained (so `p = p->child` works even if p held the last reference to p->child's
  // owner).
  constexpr intrusive_ptr& operator=(const intrusive_ptr& rhs) & noexcept {
    intrusive_ptr tmp(rhs);
    swap(tmp);
    return *this;
  }
  constexpr intrusive_ptr& operator=(intrusive_ptr&& rhs) & noexcept {
    intrusive_ptr tmp(std::move(rhs));
    swap(tmp);
    return *this;
  }
  template <class From, class FromNullType>
  requires std::is_convertible_v<From*, TTarget*>
  constexpr intrusive_ptr& operator=(const intrusive_ptr<From, FromNullType>& rhs) & noexcept {
    intrusive_ptr tmp(rhs);
    swap(tmp);
    return *this;
  }
  template <class From, class FromNullType>
  requires std::is_convertible_v<From*, TTarget*>
  constexpr intrusive_ptr& operator=(intrusive_ptr<From, FromNullType>&& rhs) & noexcept {
    intrusive_ptr tmp(std::move(rhs));
    swap(tmp);
    return *this;
  }

  constexpr TTarget* get() const noexcept { return target_; }
  constexpr TTarget& operator*() const noexcept { return *target_; }
  constexpr TTarget* operator->() const noexcept { return target_; }
  constexpr explicit operator bool() const noexcept { return target_ != NullType::singleton(); }
  // Null checks are everywhere in tensor code; this one is a single compare.
  constexpr bool defined() const noexcept { return target_ != NullType::singleton(); }

  constexpr void reset() noexcept {
    reset_();
    target_ = NullType::singleton();
  }
  constexpr void swap(intrusive_ptr& rhs) noexcept { std::swap(target_, rhs.target_); }

  // Snapshots (relaxed): exact only while no other thread changes the count.
  constexpr std::uint32_t use_count() const noexcept {
    return target_ == NullType::singleton() ? 0 : base_(target_)->refcount();
  }
  // Includes the +1 that the strong references hold (c10's meaning).
  constexpr std::uint32_t weak_use_count() const noexcept {
    return target_ == NullType::singleton() ? 0 : base_(target_)->weakcount();
  }
  constexpr bool unique() const noexcept { return use_count() == 1; }

  // Gives up ownership without decrementing: the caller now holds one strong reference as a raw
  // pointer and must hand it back with reclaim() (C APIs, intrusive lists).
  [[nodiscard]] constexpr TTarget* release() noexcept {
    TTarget* result = target_;
    target_ = NullType::singleton();
    return result;
  }

  // Takes back a strong reference produced by release(); the count is not touched.
  static constexpr intrusive_ptr reclaim(TTarget* owning_ptr) {
#if TENSORPLAY_INTRUSIVE_PTR_DEBUG_CHECKS
    // Stricter than c10 (which lets strong == 0 through): a pointer from release() is owned.
    TP_CHECK(owning_ptr == NullType::singleton() || base_(owning_ptr)->refcount() > 0,
             "intrusive_ptr::reclaim: pointer is not owned; only pointers from "
             "intrusive_ptr::release() may be reclaimed (stack object?)");
#endif
    return intrusive_ptr(owning_ptr, raw::DontIncreaseRefcount{});
  }

  // A new strong reference to an object whose raw pointer is (and stays) owned elsewhere.
  static constexpr intrusive_ptr reclaim_copy(TTarget* owning_ptr) {
    intrusive_ptr ret = reclaim(owning_ptr);
    ret.retain_();
    return ret;
  }

  // enable_shared_from_this's equivalent: a new owner for a live object reached through a
  // borrowed raw pointer (e.g. `this`). The object must already be owned by an intrusive_ptr.
  static constexpr intrusive_ptr unsafe_reclaim_from_nonowning(TTarget* raw_ptr) {
#if TENSORPLAY_INTRUSIVE_PTR_DEBUG_CHECKS
    TP_CHECK(raw_ptr == NullType::singleton() || base_(raw_ptr)->refcount() > 0,
             "intrusive_ptr::unsafe_reclaim_from_nonowning: object is not owned by an "
             "intrusive_ptr (stack object, or already released)");
#endif
    intrusive_ptr ret(raw_ptr, raw::DontIncreaseRefcount{});
    ret.retain_();
    return ret;
  }

  // make_intrusive's body; a member so it can reach the private constructor. The object is
  // created non-const even for intrusive_ptr<const T>, so the count may be written through a
  // const path without touching a const object.
  template <class... Args>
  static constexpr intrusive_ptr make(Args&&... args) {
    return intrusive_ptr(new std::remove_const_t<TTarget>(std::forward<Args>(args)...));
  }
};

template <class TTarget, class NullType = detail::intrusive_target_default_null_type<TTarget>,
          class... Args>
constexpr intrusive_ptr<TTarget, NullType> make_intrusive(Args&&... args) {
  return intrusive_ptr<TTarget, NullType>::make(std::forward<Args>(args)...);
}

template <class TTarget, class NullType>
constexpr void swap(intrusive_ptr<TTarget, NullType>& lhs,
                    intrusive_ptr<TTarget, NullType>& rhs) noexcept {
  lhs.swap(rhs);
}

// Identity comparisons (the pointee's address). operator< orders with std::less so that
// unrelated objects get the total order that a raw `<` does not promise (std::map, std::set).
template <class T1, class N1, class T2, class N2>
constexpr bool operator==(const intrusive_ptr<T1, N1>& lhs,
                          const intrusive_ptr<T2, N2>& rhs) noexcept {
  return lhs.get() == rhs.get();
}
template <class T1, class N1, class T2, class N2>
constexpr bool operator!=(const intrusive_ptr<T1, N1>& lhs,
                          const intrusive_ptr<T2, N2>& rhs) noexcept {
  return lhs.get() != rhs.get();
}
template <class T1, class N1>
constexpr bool operator==(const intrusive_ptr<T1, N1>& lhs, std::nullptr_t) noexcept {
  return lhs.get() == nullptr;
}
template <class T2, class N2>
constexpr bool operator==(std::nullptr_t, const intrusive_ptr<T2, N2>& rhs) noexcept {
  return nullptr == rhs.get();
}
template <class T1, class N1>
constexpr bool operator!=(const intrusive_ptr<T1, N1>& lhs, std::nullptr_t) noexcept {
  return lhs.get() != nullptr;
}
template <class T2, class N2>
constexpr bool operator!=(std::nullptr_t, const intrusive_ptr<T2, N2>& rhs) noexcept {
  return nullptr != rhs.get();
}
template <class T1, class N1, class T2, class N2>
constexpr bool operator<(const intrusive_ptr<T1, N1>& lhs,
                         const intrusive_ptr<T2, N2>& rhs) noexcept {
  using P = std::common_type_t<T1*, T2*>;
  return std::less<P>()(lhs.get(), rhs.get());
}

// A non-owning reference that can be upgraded with lock() while the object is alive, and
// keeps only the memory (not the resources, see release_resources) alive after that.
// Thread safety: as intrusive_ptr; lock() is safe against a concurrent last strong release.
template <class TTarget, class NullType>
class weak_intrusive_ptr final {
  static_assert(std::is_base_of_v<TTarget, std::remove_pointer_t<decltype(NullType::singleton())>>,
                "NullType::singleton() must return a TTarget*");

  TTarget* target_;

  template <class, class>
  friend class weak_intrusive_ptr;

  static constexpr intrusive_ptr_target* base_(TTarget* p) noexcept {
    static_assert(std::is_base_of_v<intrusive_ptr_target, TTarget>,
                  "weak_intrusive_ptr<T> requires T to derive from intrusive_ptr_target");
    return const_cast<intrusive_ptr_target*>(static_cast<const intrusive_ptr_target*>(p));
  }

  constexpr void retain_() noexcept {
    if (target_ != NullType::singleton()) {
      [[maybe_unused]] const std::uint64_t now = base_(target_)->add_relaxed_(detail::kWeakOne);
      assert(detail::weak_count(now) != 1 && "weak_intrusive_ptr: weakcount increased from zero");
    }
  }

  constexpr void reset_() noexcept {
    // The last weak reference (counting the strong references' +1) frees the memory;
    // release_resources already ran when strong reached 0.
    if (target_ != NullType::singleton() &&
        detail::weak_count(base_(target_)->sub_acq_rel_(detail::kWeakOne)) == 0) {
      delete target_;
    }
    target_ = NullType::singleton();
  }

  constexpr explicit weak_intrusive_ptr(TTarget* target) noexcept : target_(target) {}

 public:
  using element_type = TTarget;

  // An empty weak pointer (c10 spells it weak_intrusive_ptr<T>(intrusive_ptr<T>())).
  constexpr weak_intrusive_ptr() noexcept : target_(NullType::singleton()) {}

  template <class From, class FromNullType>
  requires std::is_convertible_v<From*, TTarget*>
  constexpr explicit weak_intrusive_ptr(const intrusive_ptr<From, FromNullType>& ptr) noexcept
      : target_(detail::convert_null_<TTarget, NullType, FromNullType>(ptr.get())) {
    retain_();
  }

  constexpr weak_intrusive_ptr(const weak_intrusive_ptr& rhs) noexcept : target_(rhs.target_) {
    retain_();
  }
  constexpr weak_intrusive_ptr(weak_intrusive_ptr&& rhs) noexcept : target_(rhs.target_) {
    rhs.target_ = NullType::singleton();
  }
  template <class From, class FromNullType>
  requires std::is_convertible_v<From*, TTarget*>
  constexpr weak_intrusive_ptr(
      const weak_intrusive_ptr<From, FromNullType>& rhs) noexcept  // NOLINT
      : target_(detail::convert_null_<TTarget, NullType, FromNullType>(rhs.target_)) {
    retain_();
  }
  template <class From, class FromNullType>
  requires std::is_convertible_v<From*, TTarget*>
  constexpr weak_intrusive_ptr(weak_intrusive_ptr<From, FromNullType>&& rhs) noexcept  // NOLINT
      : target_(detail::convert_null_<TTarget, NullType, FromNullType>(rhs.target_)) {
    rhs.target_ = FromNullType::singleton();
  }

  constexpr ~weak_intrusive_ptr() noexcept { reset_(); }

  constexpr weak_intrusive_ptr& operator=(const weak_intrusive_ptr& rhs) & noexcept {
    weak_intrusive_ptr tmp(rhs);
    swap(tmp);
    return *this;
  }
  constexpr weak_intrusive_ptr& operator=(weak_intrusive_ptr&& rhs) & noexcept {
    weak_intrusive_ptr tmp(std::move(rhs));
    swap(tmp);
    return *this;
  }
  template <class From, class FromNullType>
  requires std::is_convertible_v<From*, TTarget*>
  constexpr weak_intrusive_ptr& operator=(
      const weak_intrusive_ptr<From, FromNullType>& rhs) & noexcept {
    weak_intrusive_ptr tmp(rhs);
    swap(tmp);
    return *this;
  }
  template <class From, class FromNullType>
  requires std::is_convertible_v<From*, TTarget*>
  constexpr weak_intrusive_ptr& operator=(weak_intrusive_ptr<From, FromNullType>&& rhs) & noexcept {
    weak_intrusive_ptr tmp(std::move(rhs));
    swap(tmp);
    return *this;
  }
  template <class From, class FromNullType>
  requires std::is_convertible_v<From*, TTarget*>
  constexpr weak_intrusive_ptr& operator=(const intrusive_ptr<From, FromNullType>& rhs) & noexcept {
    weak_intrusive_ptr tmp(rhs);
    swap(tmp);
    return *this;
  }

  constexpr void reset() noexcept { reset_(); }
  constexpr void swap(weak_intrusive_ptr& rhs) noexcept { std::swap(target_, rhs.target_); }

  // The pointer without a liveness guarantee (the memory is live, the object may be released);
  // for std::hash and identity checks only. c10's name.
  constexpr TTarget* _unsafe_get_target() const noexcept { return target_; }

  // The STRONG count: 0 once expired.
  constexpr std::uint32_t use_count() const noexcept {
    return target_ == NullType::singleton() ? 0 : base_(target_)->refcount();
  }
  constexpr std::uint32_t weak_use_count() const noexcept {
    return target_ == NullType::singleton() ? 0 : base_(target_)->weakcount();
  }
  constexpr bool expired() const noexcept { return use_count() == 0; }

  // A strong reference if the object is still alive, else empty. A CAS loop rather than a
  // fetch_add: incrementing blindly could lift strong from 0 to 1 after the last owner started
  // destroying the object. Once strong is 0 it stays 0, so the loop only retries while other
  // owners are changing the count.
  constexpr intrusive_ptr<TTarget, NullType> lock() const noexcept {
    if (target_ == NullType::singleton()) return intrusive_ptr<TTarget, NullType>();
    intrusive_ptr_target* t = base_(target_);
    std::uint64_t combined = t->load_(std::memory_order_relaxed);
    do {
      if (detail::no_strong(combined)) return intrusive_ptr<TTarget, NullType>();
    } while (!t->cas_weak_acquire_(combined, combined + detail::kStrongOne));
    return intrusive_ptr<TTarget, NullType>(target_, raw::DontIncreaseRefcount{});
  }

  // Gives up the weak reference as a raw pointer (count untouched); hand it back with reclaim().
  [[nodiscard]] constexpr TTarget* release() noexcept {
    TTarget* result = target_;
    target_ = NullType::singleton();
    return result;
  }

  // Takes back a weak reference produced by release().
  static constexpr weak_intrusive_ptr reclaim(TTarget* owning_weak_ptr) {
#if TENSORPLAY_INTRUSIVE_PTR_DEBUG_CHECKS
    // A weak reference exists only if weak > 1 while strong > 0 (the +1 is not ours), or weak > 0
    // once strong == 0. A stack object has 0/0 and fails (Note [Stack objects]).
    TP_CHECK(
        owning_weak_ptr == NullType::singleton() || base_(owning_weak_ptr)->weakcount() > 1 ||
            (base_(owning_weak_ptr)->refcount() == 0 && base_(owning_weak_ptr)->weakcount() > 0),
        "weak_intrusive_ptr::reclaim: pointer holds no weak reference; only pointers from "
        "weak_intrusive_ptr::release() may be reclaimed");
#endif
    return weak_intrusive_ptr(owning_weak_ptr);
  }

  // A new weak reference to an object whose raw pointer is owned (weakly or strongly) elsewhere.
  static constexpr weak_intrusive_ptr reclaim_copy(TTarget* owning_ptr) {
#if TENSORPLAY_INTRUSIVE_PTR_DEBUG_CHECKS
    TP_CHECK(owning_ptr == NullType::singleton() || base_(owning_ptr)->weakcount() > 0,
             "weak_intrusive_ptr::reclaim_copy: pointer is not owned by anyone");
#endif
    weak_intrusive_ptr ret(owning_ptr);
    ret.retain_();
    return ret;
  }
};

template <class TTarget, class NullType>
constexpr void swap(weak_intrusive_ptr<TTarget, NullType>& lhs,
                    weak_intrusive_ptr<TTarget, NullType>& rhs) noexcept {
  lhs.swap(rhs);
}

template <class T1, class N1, class T2, class N2>
constexpr bool operator==(const weak_intrusive_ptr<T1, N1>& lhs,
                          const weak_intrusive_ptr<T2, N2>& rhs) noexcept {
  return lhs._unsafe_get_target() == rhs._unsafe_get_target();
}
template <class T1, class N1, class T2, class N2>
constexpr bool operator!=(const weak_intrusive_ptr<T1, N1>& lhs,
                          const weak_intrusive_ptr<T2, N2>& rhs) noexcept {
  return lhs._unsafe_get_target() != rhs._unsafe_get_target();
}
template <class T1, class N1, class T2, class N2>
constexpr bool operator<(const weak_intrusive_ptr<T1, N1>& lhs,
                         const weak_intrusive_ptr<T2, N2>& rhs) noexcept {
  using P = std::common_type_t<T1*, T2*>;
  return std::less<P>()(lhs._unsafe_get_target(), rhs._unsafe_get_target());
}

// Documents that a raw pointer is a weak reference (c10's alias).
using weak_intrusive_ptr_target = intrusive_ptr_target;

// One machine word each: the whole point of counting inside the object.
static_assert(sizeof(intrusive_ptr<intrusive_ptr_target>) == sizeof(void*));
static_assert(sizeof(weak_intrusive_ptr<intrusive_ptr_target>) == sizeof(void*));

// Raw-pointer reference counting for code that must pass plain pointers (C callbacks, legacy
// interfaces). Functions under raw::intrusive_ptr take pointers that hold a STRONG reference,
// those under raw::weak_intrusive_ptr pointers that hold a WEAK one; mixing them up corrupts
// the count. Unlike reclaim(), these do not accept a NullType sentinel other than nullptr.
namespace raw {
namespace intrusive_ptr {

constexpr void incref(intrusive_ptr_target* self) {
  if (self) self->add_relaxed_(detail::kStrongOne);
}

constexpr void decref(intrusive_ptr_target* self) {
  // Adopt the reference and let the temporary drop it (possibly destroying the object).
  (void)tensorplay::intrusive_ptr<intrusive_ptr_target>::reclaim(self);
}

// Turns the caller's strong raw pointer into a new weak raw pointer (the strong one is kept).
template <class T>
constexpr T* make_weak(T* self) {
  auto ptr = tensorplay::intrusive_ptr<T>::reclaim(self);
  tensorplay::weak_intrusive_ptr<T> wptr(ptr);
  (void)ptr.release();
  return wptr.release();
}

constexpr std::uint32_t use_count(intrusive_ptr_target* self) {
  auto ptr = tensorplay::intrusive_ptr<intrusive_ptr_target>::reclaim(self);
  const std::uint32_t r = ptr.use_count();
  (void)ptr.release();
  return r;
}

}  // namespace intrusive_ptr

namespace weak_intrusive_ptr {

constexpr void incref(weak_intrusive_ptr_target* self) { self->add_relaxed_(detail::kWeakOne); }

constexpr void decref(weak_intrusive_ptr_target* self) {
  (void)tensorplay::weak_intrusive_ptr<intrusive_ptr_target>::reclaim(self);
}

// Weak raw pointer -> new strong raw pointer, or nullptr if expired (the weak one is kept).
template <class T>
constexpr T* lock(T* self) {
  auto wptr = tensorplay::weak_intrusive_ptr<T>::reclaim(self);
  auto ptr = wptr.lock();
  (void)wptr.release();
  return ptr.release();
}

// The STRONG count of the object behind a weak raw pointer.
constexpr std::uint32_t use_count(weak_intrusive_ptr_target* self) {
  auto wptr = tensorplay::weak_intrusive_ptr<intrusive_ptr_target>::reclaim(self);
  const std::uint32_t r = wptr.use_count();
  (void)wptr.release();
  return r;
}

}  // namespace weak_intrusive_ptr
}  // namespace raw
}  // namespace tensorplay

// Hash and order by identity, so both pointers work as keys of unordered and ordered containers.
namespace std {
template <class TTarget, class NullType>
struct hash<tensorplay::intrusive_ptr<TTarget, NullType>> {
  size_t operator()(const tensorplay::intrusive_ptr<TTarget, NullType>& x) const noexcept {
    return hash<TTarget*>()(x.get());
  }
};
template <class TTarget, class NullType>
struct hash<tensorplay::weak_intrusive_ptr<TTarget, NullType>> {
  size_t operator()(const tensorplay::weak_intrusive_ptr<TTarget, NullType>& x) const noexcept {
    return hash<TTarget*>()(x._unsafe_get_target());
  }
};
template <class TTarget, class NullType>
struct less<tensorplay::intrusive_ptr<TTarget, NullType>> {
  constexpr bool operator()(
      const tensorplay::intrusive_ptr<TTarget, NullType>& lhs,
      const tensorplay::intrusive_ptr<TTarget, NullType>& rhs) const noexcept {
    return less<TTarget*>()(lhs.get(), rhs.get());
  }
};
template <class TTarget, class NullType>
struct less<tensorplay::weak_intrusive_ptr<TTarget, NullType>> {
  constexpr bool operator()(
      const tensorplay::weak_intrusive_ptr<TTarget, NullType>& lhs,
      const tensorplay::weak_intrusive_ptr<TTarget, NullType>& rhs) const noexcept {
    return less<TTarget*>()(lhs._unsafe_get_target(), rhs._unsafe_get_target());
  }
};
}  // namespace std
