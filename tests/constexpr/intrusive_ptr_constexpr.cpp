// intrusive_ptr in constant expressions: every static_assert below runs make_intrusive, copies,
// moves, weak references and the final delete inside the compiler's constant evaluator, which
// also rejects leaks, double deletes and use-after-free. Building this file is the test.
#include <cstdint>
#include <type_traits>
#include <utility>

#include <tensorplay/core/intrusive_ptr.hpp>

namespace {

using tensorplay::intrusive_ptr;
using tensorplay::intrusive_ptr_target;
using tensorplay::make_intrusive;
using tensorplay::weak_intrusive_ptr;

struct Node : intrusive_ptr_target {
  int value;
  constexpr explicit Node(int v) : value(v) {}
  // g++ 12 needs the explicit constexpr destructor to destroy a Node in a constant expression.
  constexpr ~Node() override {}
};

struct Child : Node {
  constexpr explicit Child(int v) : Node(v) {}
  constexpr ~Child() override {}
};

// Records the order of release_resources() and destruction into caller-owned ints.
struct Tracked : intrusive_ptr_target {
  int* released;
  int* destroyed;
  int* order;  // 10 * (release step) + (destroy step), steps counted from 1
  int* step;
  constexpr Tracked(int* r, int* d, int* o, int* s)
      : released(r), destroyed(d), order(o), step(s) {}
  constexpr ~Tracked() override {
    ++*destroyed;
    *order += ++*step;
  }
  constexpr void release_resources() override {
    ++*released;
    *order += 10 * ++*step;
  }
};

// ---- layout ------------------------------------------------------------------------------
static_assert(sizeof(intrusive_ptr<Node>) == sizeof(void*));
static_assert(sizeof(weak_intrusive_ptr<Node>) == sizeof(void*));
static_assert(std::is_same_v<intrusive_ptr<Node>::element_type, Node>);
static_assert(std::is_nothrow_move_constructible_v<intrusive_ptr<Node>>);
static_assert(std::is_convertible_v<intrusive_ptr<Child>, intrusive_ptr<Node>>);
static_assert(!std::is_convertible_v<intrusive_ptr<Node>, intrusive_ptr<Child>>);
static_assert(std::is_convertible_v<intrusive_ptr<Node>, intrusive_ptr<const Node>>);
// No way in from a raw pointer (Note [Stack objects]): only make_intrusive / reclaim.
static_assert(!std::is_constructible_v<intrusive_ptr<Node>, Node*>);
static_assert(!std::is_constructible_v<weak_intrusive_ptr<Node>, Node*>);

// ---- make_intrusive, use_count, destruction -------------------------------------------------
static_assert([] {
  auto p = make_intrusive<Node>(7);
  return p->value == 7 && (*p).value == 7 && p.use_count() == 1 && p.unique() &&
         p.weak_use_count() == 1 && p.defined() && static_cast<bool>(p) && p != nullptr;
}());

static_assert([] {
  intrusive_ptr<Node> p;
  intrusive_ptr<Node> q(nullptr);
  return !p.defined() && p.use_count() == 0 && p.weak_use_count() == 0 && !p.unique() &&
         p == nullptr && p == q && p.get() == nullptr;
}());

// ---- copy --------------------------------------------------------------------------------
static_assert([] {
  auto p = make_intrusive<Node>(1);
  auto q = p;
  intrusive_ptr<Node> r;
  r = q;
  return p.use_count() == 3 && q.use_count() == 3 && p == q && q == r && !p.unique() &&
         p.weak_use_count() == 1;
}());

static_assert([] {
  auto p = make_intrusive<Node>(1);
  std::uint32_t inside = 0;
  {
    auto q = p;
    inside = p.use_count();
  }
  return inside == 2 && p.use_count() == 1;
}());

// Self copy-assignment keeps the count.
static_assert([] {
  auto p = make_intrusive<Node>(1);
  auto& alias = p;
  p = alias;
  return p.use_count() == 1 && p->value == 1;
}());

// ---- move --------------------------------------------------------------------------------
static_assert([] {
  auto p = make_intrusive<Node>(2);
  Node* raw = p.get();
  auto q = std::move(p);
  intrusive_ptr<Node> r;
  r = std::move(q);
  return !p.defined() && !q.defined() && r.get() == raw && r.use_count() == 1;
}());

// Move-assigning over a live pointer destroys the old target (its last reference).
static_assert([] {
  int released = 0, destroyed = 0, order = 0, step = 0;
  auto a = make_intrusive<Tracked>(&released, &destroyed, &order, &step);
  {
    int r2 = 0, d2 = 0, o2 = 0, s2 = 0;
    auto b = make_intrusive<Tracked>(&r2, &d2, &o2, &s2);
    b = std::move(a);
    if (d2 != 1 || r2 != 0) return false;  // no weak refs: destructor only
  }
  return destroyed == 1 && released == 0;
}());

// ---- upcast and const ------------------------------------------------------------------------
static_assert([] {
  intrusive_ptr<Node> base = make_intrusive<Child>(5);
  intrusive_ptr<Child> child = make_intrusive<Child>(6);
  intrusive_ptr<Node> base2 = child;
  intrusive_ptr<const Node> cbase = std::move(base);
  return cbase->value == 5 && base2->value == 6 && child.use_count() == 2 && !base.defined();
}());

static_assert([] {
  auto p = make_intrusive<const Node>(3);
  auto q = p;
  return q->value == 3 && p.use_count() == 2;
}());

// ---- reset, swap ---------------------------------------------------------------------------
static_assert([] {
  auto p = make_intrusive<Node>(1);
  auto q = p;
  p.reset();
  bool ok = !p.defined() && q.use_count() == 1;
  q.reset();
  return ok && !q.defined() && q.use_count() == 0;
}());

static_assert([] {
  auto a = make_intrusive<Node>(1);
  auto b = make_intrusive<Node>(2);
  swap(a, b);
  a.swap(b);
  swap(a, b);
  return a->value == 2 && b->value == 1;
}());

// ---- release / reclaim / raw --------------------------------------------------------------
static_assert([] {
  auto p = make_intrusive<Node>(4);
  Node* raw = p.release();
  auto q = intrusive_ptr<Node>::reclaim(raw);
  auto r = intrusive_ptr<Node>::reclaim_copy(q.get());
  auto s = intrusive_ptr<Node>::unsafe_reclaim_from_nonowning(q.get());
  return !p.defined() && q.use_count() == 3 && r == s;
}());

static_assert([] {
  auto p = make_intrusive<Node>(4);
  tensorplay::raw::intrusive_ptr::incref(p.get());
  const auto with_extra = p.use_count();
  tensorplay::raw::intrusive_ptr::decref(p.get());
  Node* weak_raw = tensorplay::raw::intrusive_ptr::make_weak(p.get());
  const auto weak_now = p.weak_use_count();
  tensorplay::raw::weak_intrusive_ptr::incref(weak_raw);
  tensorplay::raw::weak_intrusive_ptr::decref(weak_raw);
  Node* strong_raw = tensorplay::raw::weak_intrusive_ptr::lock(weak_raw);
  const auto strong_now = tensorplay::raw::weak_intrusive_ptr::use_count(weak_raw);
  tensorplay::raw::intrusive_ptr::decref(strong_raw);
  tensorplay::raw::weak_intrusive_ptr::decref(weak_raw);
  return with_extra == 2 && weak_now == 2 && strong_now == 2 && p.use_count() == 1 &&
         p.weak_use_count() == 1;
}());

// ---- weak pointers ---------------------------------------------------------------------------
static_assert([] {
  auto p = make_intrusive<Node>(9);
  weak_intrusive_ptr<Node> w(p);
  const bool alive =
      !w.expired() && w.use_count() == 1 && w.weak_use_count() == 2 && p.weak_use_count() == 2;
  auto locked = w.lock();
  const bool lock_ok = locked == p && locked->value == 9 && p.use_count() == 2;
  locked.reset();
  p.reset();
  // Strong gone: expired, lock() yields null, the memory lives on until w dies.
  return alive && lock_ok && w.expired() && w.use_count() == 0 && !w.lock().defined() &&
         w.weak_use_count() == 1;
}());

static_assert([] {
  weak_intrusive_ptr<Node> w;
  weak_intrusive_ptr<Node> from_null{intrusive_ptr<Node>()};
  return w.expired() && w.use_count() == 0 && !w.lock() && w == from_null;
}());

// Weak copies, moves, assignment from a strong pointer, upcast, swap.
static_assert([] {
  auto c = make_intrusive<Child>(8);
  weak_intrusive_ptr<Child> wc(c);
  weak_intrusive_ptr<Child> wc2 = wc;
  weak_intrusive_ptr<Node> wn = std::move(wc2);
  weak_intrusive_ptr<Node> wn2;
  wn2 = wn;
  weak_intrusive_ptr<Node> wn3;
  wn3 = c;
  swap(wn2, wn3);
  const auto weak_refs = c.weak_use_count();  // wc, wn, wn2, wn3 + 1 for the strong side
  return weak_refs == 5 && !wc2._unsafe_get_target() && wn.lock()->value == 8 && wn2 == wn3;
}());

// Weak release / reclaim round trip.
static_assert([] {
  auto p = make_intrusive<Node>(1);
  weak_intrusive_ptr<Node> w(p);
  Node* raw = w.release();
  auto back = weak_intrusive_ptr<Node>::reclaim(raw);
  auto copy = weak_intrusive_ptr<Node>::reclaim_copy(raw);
  return w.expired() && back == copy && p.weak_use_count() == 3;
}());

// ---- release_resources / destruction order -----------------------------------------------------
// No weak references: the destructor runs, release_resources does not (c10's rule).
static_assert([] {
  int released = 0, destroyed = 0, order = 0, step = 0;
  {
    auto p = make_intrusive<Tracked>(&released, &destroyed, &order, &step);
    auto q = p;
  }
  return released == 0 && destroyed == 1 && order == 1;
}());

// With a weak reference: release_resources at the last strong release (step 1), the
// destructor at the last weak release (step 2).
static_assert([] {
  int released = 0, destroyed = 0, order = 0, step = 0;
  weak_intrusive_ptr<Tracked> w;
  {
    auto p = make_intrusive<Tracked>(&released, &destroyed, &order, &step);
    w = p;
  }
  const bool after_strong = released == 1 && destroyed == 0 && w.expired();
  w.reset();
  return after_strong && released == 1 && destroyed == 1 && order == 12;
}());

// A weak-only pointer (its object already released) dies with its last copy.
constexpr int weak_only_lifetime() {
  int released = 0, destroyed = 0, order = 0, step = 0;
  weak_intrusive_ptr<Tracked> w{make_intrusive<Tracked>(&released, &destroyed, &order, &step)};
  weak_intrusive_ptr<Tracked> w2 = w;
  w.reset();
  const int before = destroyed;
  w2.reset();
  return released * 100 + before * 10 + destroyed;
}
static_assert(weak_only_lifetime() == 101);

// ---- a constexpr function that builds, shares and tears down a small graph -------------------
// A doubly linked list: strong `next`, weak `prev`. Node k's memory is pinned by node k+1's
// `prev`, so its members would outlive its last strong reference; release_resources() drops
// them at that point (as TensorImpl does), otherwise the chain after the head would leak (the
// evaluator reports it).
struct ListNode : intrusive_ptr_target {
  int value;
  intrusive_ptr<ListNode> next;
  weak_intrusive_ptr<ListNode> prev;
  constexpr explicit ListNode(int v) : value(v) {}
  constexpr ~ListNode() override {}
  constexpr void release_resources() override {
    next.reset();
    prev.reset();
  }
};

constexpr int sum_list(int n) {
  intrusive_ptr<ListNode> head;
  for (int i = n; i > 0; --i) {
    auto node = make_intrusive<ListNode>(i);
    if (head) head->prev = node;
    node->next = std::move(head);
    head = std::move(node);
  }
  int sum = 0;
  for (auto it = head; it; it = it->next) {
    sum += it->value;
    if (auto p = it->prev.lock()) sum += 1000 * p->value;  // back links resolve while alive
  }
  return sum;  // head's destructor frees the chain; the evaluator checks nothing leaks
}
static_assert(sum_list(4) == 1 + 2 + 3 + 4 + 1000 * (1 + 2 + 3));

}  // namespace
