// SmallVector<T, N>: a vector of trivially copyable T that keeps up to N elements inline and
// moves to the heap beyond. The iteration engine builds a few of these per op (shape, strides,
// dimension order); with std::vector each would be a malloc/free pair on every `a + b`.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <type_traits>

#include <tensorplay/core/array_ref.hpp>

namespace tensorplay {

template <class T, std::size_t N>
class SmallVector {
  static_assert(std::is_trivially_copyable_v<T>, "SmallVector holds trivially copyable types");

 public:
  SmallVector() noexcept = default;
  explicit SmallVector(std::size_t n, T value = T()) { assign(n, value); }
  SmallVector(const T* first, const T* last) { assign(first, last); }
  SmallVector(const SmallVector& o) { assign(o.begin(), o.end()); }
  SmallVector& operator=(const SmallVector& o) {
    if (this != &o) assign(o.begin(), o.end());
    return *this;
  }
  SmallVector(SmallVector&& o) noexcept { *this = std::move(o); }
  SmallVector& operator=(SmallVector&& o) noexcept {
    if (this == &o) return *this;
    if (o.heap_) {  // steal the block
      heap_ = std::move(o.heap_);
      data_ = heap_.get();
      capacity_ = o.capacity_;
    } else {
      heap_.reset();
      data_ = inline_;
      capacity_ = N;
      std::copy_n(o.inline_, o.size_, inline_);
    }
    size_ = o.size_;
    o.data_ = o.inline_;
    o.capacity_ = N;
    o.size_ = 0;
    return *this;
  }

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  T* data() noexcept { return data_; }
  const T* data() const noexcept { return data_; }
  T* begin() noexcept { return data_; }
  T* end() noexcept { return data_ + size_; }
  const T* begin() const noexcept { return data_; }
  const T* end() const noexcept { return data_ + size_; }
  std::reverse_iterator<T*> rbegin() noexcept { return std::reverse_iterator<T*>(end()); }
  std::reverse_iterator<T*> rend() noexcept { return std::reverse_iterator<T*>(begin()); }
  T& operator[](std::size_t i) noexcept { return data_[i]; }
  const T& operator[](std::size_t i) const noexcept { return data_[i]; }
  T& back() noexcept { return data_[size_ - 1]; }
  operator ArrayRef<T>() const noexcept { return ArrayRef<T>(data_, size_); }

  void reserve(std::size_t n) {
    if (n <= capacity_) return;
    std::unique_ptr<T[]> block(new T[n]);
    std::copy_n(data_, size_, block.get());
    heap_ = std::move(block);
    data_ = heap_.get();
    capacity_ = n;
  }
  void resize(std::size_t n, T value = T()) {
    reserve(n);
    if (n > size_) std::fill(data_ + size_, data_ + n, value);
    size_ = n;
  }
  void assign(std::size_t n, T value) {
    size_ = 0;
    resize(n, value);
  }
  void assign(const T* first, const T* last) {
    const std::size_t n = std::size_t(last - first);
    size_ = 0;
    reserve(n);
    std::copy_n(first, n, data_);
    size_ = n;
  }
  void clear() noexcept { size_ = 0; }
  void push_back(T v) {
    if (size_ == capacity_) reserve(2 * capacity_);
    data_[size_++] = v;
  }

 private:
  T* data_ = inline_;
  std::size_t size_ = 0, capacity_ = N;
  std::unique_ptr<T[]> heap_;
  T inline_[N];
};

}  // namespace tensorplay
