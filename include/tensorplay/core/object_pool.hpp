// ObjectPool: per-thread free lists for the core's own small, fixed-size objects.
//
// Creating a tensor allocates three small objects (TensorImpl, StorageImpl, VersionCounter) and
// destroying it frees them; through glibc that is half the cost of empty({2,3}). Each class
// that opts in (by deriving from PooledObject<Self>) gets a thread-local LIFO list of its freed
// blocks: a pop to allocate, a push to free, no lock and no atomic. A block freed on another
// thread joins that thread's list. The lists are capped (TENSORPLAY_OBJECT_POOL_SIZE) and
// drained at thread exit; a free after the thread's drain goes to operator delete.
// Under AddressSanitizer the pool is off, so every object stays visible to ASan.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>

#include <tensorplay/config.hpp>

#if defined(__SANITIZE_ADDRESS__)
#define TENSORPLAY_DETAIL_POOL_OFF_ 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TENSORPLAY_DETAIL_POOL_OFF_ 1
#endif
#endif

namespace tensorplay::detail {

template <std::size_t Size, std::size_t Align>
class ObjectPool {
 public:
  static void* allocate() {
    State& s = state;
    if (Node* n = s.head) {
      s.head = n->next;
      --s.count;
      return n;
    }
    return ::operator new (Size, std::align_val_t{Align});
  }

  static void deallocate(void* p) noexcept {
#ifndef TENSORPLAY_DETAIL_POOL_OFF_
    State& s = state;
    if (s.count < TENSORPLAY_OBJECT_POOL_SIZE && !s.dead) {
      if (!s.registered) register_drain();
      Node* n = static_cast<Node*>(p);
      n->next = s.head;
      s.head = n;
      ++s.count;
      return;
    }
#endif
    ::operator delete (p, std::align_val_t{Align});
  }

 private:
  struct Node {
    Node* next;
  };
  // Trivially destructible, so it is readable for the thread's whole life, including after
  // the drain below ran (then `dead` sends frees to operator delete).
  struct State {
    Node* head;
    std::uint32_t count;
    bool registered;
    bool dead;
  };
  static inline thread_local constinit State state{nullptr, 0, false, false};

  // Registered on a thread's first pooled free: drains the list when the thread exits.
  struct Drain {
    ~Drain() {
      State& s = state;
      s.dead = true;
      while (Node* n = s.head) {
        s.head = n->next;
        ::operator delete (n, std::align_val_t{Align});
      }
      s.count = 0;
    }
  };
  static void register_drain() noexcept {
    static thread_local Drain drain;
    (void)drain;
    state.registered = true;
  }
};

// Gives a class pooled operator new/delete. Objects of a larger derived class bypass the pool.
template <class Self>
struct PooledObject {
  static void* operator new(std::size_t n) {
    if (n == sizeof(Self)) return ObjectPool<sizeof(Self), alignof(Self)>::allocate();
    return ::operator new (n, std::align_val_t{alignof(Self)});
  }
  static void operator delete(void* p, std::size_t n) noexcept {
    if (n == sizeof(Self)) return ObjectPool<sizeof(Self), alignof(Self)>::deallocate(p);
    ::operator delete (p, std::align_val_t{alignof(Self)});
  }
};

}  // namespace tensorplay::detail
