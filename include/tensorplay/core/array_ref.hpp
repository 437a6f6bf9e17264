// ArrayRef: a non-owning, read-only view of contiguous elements (c10::ArrayRef's interface).
//
// An ArrayRef is a pointer and a length, nothing more, so it is passed by value. It never owns
// what it points at: the elements must outlive it. That makes it the right type for a
// parameter (`empty(IntArrayRef size)` accepts `{2, 3}`, a std::vector, a std::array, a C array
// or one element without copying) and for returning a view of storage the callee keeps alive
// (`t.sizes()`), and the wrong type for a member or a local that outlives the expression that
// made it. Everything is constexpr, so shape arithmetic written against it runs at compile time.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>
#include <ostream>
#include <type_traits>
#include <vector>

#include <tensorplay/core/error.hpp>

namespace tensorplay {

template <class T>
class ArrayRef final {
 public:
  // Only const iterators: an ArrayRef is a read-only window, mutation goes through the owner.
  using iterator = const T*;
  using const_iterator = const T*;
  using reverse_iterator = std::reverse_iterator<iterator>;
  using size_type = std::size_t;
  using value_type = T;

  // Empty: data() is nullptr. The invariant "nullptr implies length 0" holds for every
  // constructor, so an empty view never carries a dangling pointer anyone could read through.
  constexpr ArrayRef() noexcept = default;

  // One element, viewed as a list of length 1 (`expand(5)` style calls). Implicit as in c10.
  // The element is referenced, not copied: a temporary argument dies with the full-expression.
  constexpr ArrayRef(const T& one) noexcept : data_(&one), length_(1) {}  // NOLINT

  constexpr ArrayRef(const T* data, std::size_t length) noexcept : data_(data), length_(length) {}

  constexpr ArrayRef(const T* begin, const T* end) noexcept
      : data_(begin), length_(static_cast<std::size_t>(end - begin)) {}

  // A std::vector<bool> is a bitfield with no data(), so it cannot be viewed; the constraint
  // turns the otherwise cryptic instantiation error into "no matching constructor".
  template <class A>
  requires(!std::is_same_v<T, bool>) constexpr ArrayRef(
      const std::vector<T, A>& v) noexcept  // NOLINT
      : data_(v.data()), length_(v.size()) {}

  template <std::size_t N>
  constexpr ArrayRef(const std::array<T, N>& a) noexcept  // NOLINT
      : data_(a.data()), length_(N) {}

  template <std::size_t N>
  constexpr ArrayRef(const T (&a)[N]) noexcept : data_(a), length_(N) {}  // NOLINT

  // The lifetime trap, as in c10: the array behind a braced list lives until the end of the
  // full-expression that created it. `empty({2, 3})` is therefore safe (the call finishes
  // first), but `IntArrayRef r = {2, 3};` leaves `r` dangling on the next line. An empty list
  // yields nullptr rather than whatever begin() of an empty list happens to be.
  // GCC's -Winit-list-lifetime flags exactly this by design; the warning is the comment above.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Winit-list-lifetime"
#endif
  constexpr ArrayRef(const std::initializer_list<T>& il) noexcept  // NOLINT
      : data_(il.begin() == il.end() ? nullptr : il.begin()), length_(il.size()) {}
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

  // Assigning from a temporary element or braced list would dangle immediately, so it is
  // refused at compile time. The template form keeps `ref = {}` choosing the (defaulted) copy
  // assignment from an empty ArrayRef.
  template <class U>
  requires std::is_same_v<U, T> ArrayRef& operator=(U&& temporary) = delete;
  template <class U>
  requires std::is_same_v<U, T> ArrayRef& operator=(std::initializer_list<U>) = delete;

  constexpr iterator begin() const noexcept { return data_; }
  constexpr iterator end() const noexcept { return data_ + length_; }
  constexpr const_iterator cbegin() const noexcept { return data_; }
  constexpr const_iterator cend() const noexcept { return data_ + length_; }
  constexpr reverse_iterator rbegin() const noexcept { return reverse_iterator(end()); }
  constexpr reverse_iterator rend() const noexcept { return reverse_iterator(begin()); }

  constexpr bool empty() const noexcept { return length_ == 0; }
  constexpr const T* data() const noexcept { return data_; }
  constexpr std::size_t size() const noexcept { return length_; }

  // Unchecked, like std::vector's: this is the hot path (`t.sizes()[d]` inside loops).
  constexpr const T& operator[](std::size_t i) const noexcept { return data_[i]; }

  // Checked. In a constant expression a bad index is a compile error (the throw is not
  // constexpr); at run time it is an IndexError.
  constexpr const T& at(std::size_t i) const {
    TP_CHECK_INDEX(i < length_, "ArrayRef: invalid index Index = ", i, "; Length = ", length_);
    return data_[i];
  }

  constexpr const T& front() const {
    TP_CHECK_INDEX(!empty(), "ArrayRef: attempted to access front() of empty list");
    return data_[0];
  }

  constexpr const T& back() const {
    TP_CHECK_INDEX(!empty(), "ArrayRef: attempted to access back() of empty list");
    return data_[length_ - 1];
  }

  // The m elements starting at n. Written as two comparisons rather than `n + m <= size()` so
  // that a huge m cannot wrap around and pass.
  constexpr ArrayRef slice(std::size_t n, std::size_t m) const {
    TP_CHECK_INDEX(n <= length_ && m <= length_ - n, "ArrayRef: invalid slice, N = ", n,
                   "; M = ", m, "; size = ", length_);
    return ArrayRef(data_ + n, m);
  }

  // Everything after the first n.
  constexpr ArrayRef slice(std::size_t n) const {
    TP_CHECK_INDEX(n <= length_, "ArrayRef: invalid slice, N = ", n, "; size = ", length_);
    return ArrayRef(data_ + n, length_ - n);
  }

  constexpr bool equals(ArrayRef other) const noexcept {
    if (length_ != other.length_) return false;
    for (std::size_t i = 0; i < length_; ++i) {
      if (!(data_[i] == other.data_[i])) return false;
    }
    return true;
  }

  // The one expensive operation: an owning copy.
  constexpr std::vector<T> vec() const { return std::vector<T>(begin(), end()); }

 private:
  const T* data_ = nullptr;
  std::size_t length_ = 0;
};

// Templates (not hidden friends) on purpose: deduction refuses implicit conversions, so
// `sizes == 2` does not quietly compare against a one-element list. C++20 synthesises `!=` and
// the reversed `vector == ArrayRef` from these two.
template <class T>
constexpr bool operator==(ArrayRef<T> a, ArrayRef<T> b) noexcept {
  return a.equals(b);
}

template <class T, class A>
constexpr bool operator==(ArrayRef<T> a, const std::vector<T, A>& b) noexcept {
  return a.equals(ArrayRef<T>(b));
}

// "[2, 3]", "[]": c10's format, which error messages and test output rely on.
template <class T>
std::ostream& operator<<(std::ostream& os, ArrayRef<T> list) {
  os << '[';
  for (std::size_t i = 0; i < list.size(); ++i) {
    if (i > 0) os << ", ";
    os << list[i];
  }
  return os << ']';
}

using IntArrayRef = ArrayRef<int64_t>;

}  // namespace tensorplay
