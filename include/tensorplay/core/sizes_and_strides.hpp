// SizesAndStrides: a tensor's shape and strides in one packed, mostly heap-free container.
//
// Every TensorImpl has one, and sizes/strides are read on nearly every op, copied by every view
// and compared by every shape check, so the common case must not touch the allocator. Up to
// TENSORPLAY_INLINE_RANK (5) dimensions both arrays live inside the object; beyond that, one heap
// block holds the sizes followed by the strides (one allocation, one free, one cache-friendly
// run instead of two of each). The layout is c10's: the rank, then a union of the inline arrays
// and the heap pointer, 88 bytes at the default rank limit.
//
// Member names and semantics follow c10::impl::SizesAndStrides so code written against libtorch
// ports by renaming the namespace. Differences: the plain accessors (`size_at`, `stride_at`)
// are bounds-checked and throw IndexError (c10 only asserts in debug builds; `_unchecked` keeps
// c10's unchecked behaviour), and everything is constexpr, heap case included.
//
// Thread safety: none of its own; it is guarded by whatever guards the owning TensorImpl.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <vector>

#include <tensorplay/config.hpp>
#include <tensorplay/core/array_ref.hpp>
#include <tensorplay/core/error.hpp>

namespace tensorplay {

class SizesAndStrides {
 public:
  static constexpr std::size_t kInlineSize = TENSORPLAY_INLINE_RANK;
  static_assert(kInlineSize >= 1, "TENSORPLAY_INLINE_RANK must be at least 1 (the default rank)");

  using sizes_iterator = int64_t*;
  using sizes_const_iterator = const int64_t*;
  using strides_iterator = int64_t*;
  using strides_const_iterator = const int64_t*;

  // c10's default: a rank-1 tensor of size 0 with stride 1, what `empty({0})` has. A fresh
  // TensorImpl is therefore already a valid, empty, contiguous tensor.
  constexpr SizesAndStrides() noexcept : size_(1), inline_{} { inline_.values[kInlineSize] = 1; }

  constexpr ~SizesAndStrides() {
    if (!is_inline()) deallocate_(heap_);
  }

  // Copying the whole inline block (not just `size_` elements) is one fixed-size copy the
  // compiler turns into a few vector moves; a loop bounded by the rank would be a branchy
  // memcpy call. It also keeps every inline slot initialised, which constant evaluation needs.
  constexpr SizesAndStrides(const SizesAndStrides& other) : size_(other.size_) {
    if (other.is_inline()) {
      inline_ = other.inline_;
    } else {
      int64_t* block = allocate_(size_);
      std::copy_n(other.heap_, 2 * size_, block);
      heap_ = block;
    }
  }

  // Steals the heap block if there is one. The source is left at rank 0 (c10's moved-from
  // state), inline, with its inline array made the active union member again so it can be
  // copied, resized or destroyed like any other rank-0 object.
  constexpr SizesAndStrides(SizesAndStrides&& other) noexcept : size_(other.size_) {
    if (other.is_inline()) {
      inline_ = other.inline_;
    } else {
      heap_ = other.heap_;
      other.inline_ = InlineStorage{};
    }
    other.size_ = 0;
  }

  constexpr SizesAndStrides& operator=(const SizesAndStrides& other) {
    if (this == &other) return *this;
    if (other.is_inline()) {
      if (!is_inline()) deallocate_(heap_);
      inline_ = other.inline_;
    } else if (!is_inline() && size_ == other.size_) {
      // Same heap rank: the block we hold has exactly the right size, reuse it.
      std::copy_n(other.heap_, 2 * size_, heap_);
    } else {
      // Allocate before releasing anything, so a bad_alloc leaves *this unchanged.
      int64_t* block = allocate_(other.size_);
      std::copy_n(other.heap_, 2 * other.size_, block);
      if (!is_inline()) deallocate_(heap_);
      heap_ = block;
    }
    size_ = other.size_;
    return *this;
  }

  constexpr SizesAndStrides& operator=(SizesAndStrides&& other) noexcept {
    if (this == &other) return *this;
    if (!is_inline()) deallocate_(heap_);
    if (other.is_inline()) {
      inline_ = other.inline_;
    } else {
      heap_ = other.heap_;
      other.inline_ = InlineStorage{};
    }
    size_ = other.size_;
    other.size_ = 0;
    return *this;
  }

  // Equal rank and equal values; what lies in unused inline slots does not matter.
  friend constexpr bool operator==(const SizesAndStrides& a, const SizesAndStrides& b) noexcept {
    return a.sizes_arrayref() == b.sizes_arrayref() && a.strides_arrayref() == b.strides_arrayref();
  }

  // The rank.
  [[nodiscard]] constexpr std::size_t size() const noexcept { return size_; }

  // One branch on the rank picks the storage; the heap block keeps sizes in [0, n) and strides
  // in [n, 2n).
  constexpr const int64_t* sizes_data() const noexcept {
    return is_inline() ? inline_.values : heap_;
  }
  constexpr int64_t* sizes_data() noexcept { return is_inline() ? inline_.values : heap_; }
  constexpr const int64_t* strides_data() const noexcept {
    return is_inline() ? inline_.values + kInlineSize : heap_ + size_;
  }
  constexpr int64_t* strides_data() noexcept {
    return is_inline() ? inline_.values + kInlineSize : heap_ + size_;
  }

  constexpr sizes_const_iterator sizes_begin() const noexcept { return sizes_data(); }
  constexpr sizes_iterator sizes_begin() noexcept { return sizes_data(); }
  constexpr sizes_const_iterator sizes_end() const noexcept { return sizes_data() + size_; }
  constexpr sizes_iterator sizes_end() noexcept { return sizes_data() + size_; }
  constexpr strides_const_iterator strides_begin() const noexcept { return strides_data(); }
  constexpr strides_iterator strides_begin() noexcept { return strides_data(); }
  constexpr strides_const_iterator strides_end() const noexcept { return strides_data() + size_; }
  constexpr strides_iterator strides_end() noexcept { return strides_data() + size_; }

  // Views into this object: invalidated by resize, set_sizes of another rank, assignment and
  // destruction.
  constexpr IntArrayRef sizes_arrayref() const noexcept { return {sizes_data(), size_}; }
  constexpr IntArrayRef strides_arrayref() const noexcept { return {strides_data(), size_}; }

  // Checked accessors. The check is one predictable branch; the `_unchecked` forms are for loops
  // whose bound is already size().
  constexpr int64_t size_at(std::size_t dim) const {
    check_dim_(dim);
    return sizes_data()[dim];
  }
  constexpr int64_t& size_at(std::size_t dim) {
    check_dim_(dim);
    return sizes_data()[dim];
  }
  constexpr int64_t stride_at(std::size_t dim) const {
    check_dim_(dim);
    return strides_data()[dim];
  }
  constexpr int64_t& stride_at(std::size_t dim) {
    check_dim_(dim);
    return strides_data()[dim];
  }
  constexpr int64_t size_at_unchecked(std::size_t dim) const noexcept { return sizes_data()[dim]; }
  constexpr int64_t& size_at_unchecked(std::size_t dim) noexcept { return sizes_data()[dim]; }
  constexpr int64_t stride_at_unchecked(std::size_t dim) const noexcept {
    return strides_data()[dim];
  }
  constexpr int64_t& stride_at_unchecked(std::size_t dim) noexcept { return strides_data()[dim]; }

  // Sets the sizes, changing the rank to new_sizes.size() if it differs (strides of the
  // surviving dims are kept, new ones are 0, as with resize). The argument may point into this
  // very object (`s.set_sizes(s.sizes_arrayref().slice(1))`): it is read before any storage it
  // could live in is moved or freed.
  constexpr void set_sizes(IntArrayRef new_sizes) {
    const std::size_t n = new_sizes.size();
    if (n == size_) {
      // Same storage, no relayout. A forward element copy is right even when the source
      // overlaps: within our block it can only start at or after sizes_data().
      int64_t* dst = sizes_data();
      for (std::size_t i = 0; i < n; ++i) dst[i] = new_sizes[i];
    } else if (n <= kInlineSize) {
      std::array<int64_t, kInlineSize> saved{};
      std::copy_n(new_sizes.begin(), n, saved.begin());
      resize(n);
      std::copy_n(saved.begin(), n, inline_.values);
    } else {
      relayout_to_heap_(n, new_sizes.data());
    }
  }

  // Unlike set_sizes this never changes the rank: strides without sizes make no sense.
  constexpr void set_strides(IntArrayRef new_strides) {
    TP_CHECK(new_strides.size() == size_, "mismatch in length of strides and shape: expected ",
             size_, " strides but got ", new_strides.size());
    int64_t* dst = strides_data();
    for (std::size_t i = 0; i < size_; ++i) dst[i] = new_strides[i];
  }

  // Changes the rank. Dims [0, min(old, new)) keep their size and stride; new dims get size 0
  // and stride 0 (c10's choice: the caller is about to overwrite them). Crossing the inline
  // limit moves the values between the inline arrays and the heap block, and shrinking back
  // under it frees the block, so a tensor reshaped from 8-d to 2-d stops paying for the heap.
  constexpr void resize(std::size_t new_size) {
    const std::size_t old_size = size_;
    if (new_size == old_size) return;
    if (new_size <= kInlineSize && is_inline()) {
      // The fast path: slots past the old rank may hold stale values from an earlier, larger
      // rank, so clear exactly the ones being exposed.
      if (new_size > old_size) {
        std::fill(inline_.values + old_size, inline_.values + new_size, int64_t{0});
        std::fill(inline_.values + kInlineSize + old_size, inline_.values + kInlineSize + new_size,
                  int64_t{0});
      }
      size_ = new_size;
    } else if (new_size <= kInlineSize) {
      // Heap -> inline. Read the pointer before the inline array becomes the active member
      // (they share bytes), build the whole inline block, then free.
      int64_t* block = heap_;
      InlineStorage fresh{};
      std::copy_n(block, new_size, fresh.values);
      std::copy_n(block + old_size, new_size, fresh.values + kInlineSize);
      inline_ = fresh;
      deallocate_(block);
      size_ = new_size;
    } else {
      relayout_to_heap_(new_size, nullptr);
    }
  }

  // ---- Shape arithmetic (static, constexpr) -------------------------------------------------

  // Row-major strides: strides[i] = strides[i+1] * max(sizes[i+1], 1), last stride 1. The max
  // keeps a zero-size dim from zeroing every stride to its left, so (2, 0) gives (1, 1) rather
  // than (0, 1): strides stay positive and distinct, and nothing ever divides by a size.
  //
  // Built back to front with push_back and reversed, not as `vector(n)` filled by index: clang
  // 14 rejects libstdc++ 12's constexpr value-initialisation of a sized vector, and this form is
  // constant-evaluable with both compilers at the cost of one reverse of a handful of ints.
  static constexpr std::vector<int64_t> compute_contiguous_strides(IntArrayRef sizes) {
    std::vector<int64_t> strides;
    strides.reserve(sizes.size());
    int64_t running = 1;
    for (std::size_t i = sizes.size(); i-- > 0;) {
      strides.push_back(running);
      // Wraps (defined) for sizes whose product overflows (numel 0 from a 0 elsewhere).
      __builtin_mul_overflow(running, std::max<int64_t>(sizes[i], 1), &running);
    }
    std::reverse(strides.begin(), strides.end());
    return strides;
  }

  // PyTorch's contiguity (c10 _compute_contiguous): walking from the last dim, every dim of
  // size other than 1 must have stride equal to the product of the sizes to its right. A size-1
  // dim is never stepped along, so its stride is ignored; a tensor with no elements has no
  // addresses to get wrong, so it is contiguous whatever its strides.
  static constexpr bool is_contiguous(IntArrayRef sizes, IntArrayRef strides) {
    check_same_rank_(sizes, strides);
    for (int64_t s : sizes) {
      if (s == 0) return true;
    }
    int64_t expected = 1;
    for (std::size_t i = sizes.size(); i-- > 0;) {
      if (sizes[i] == 1) continue;
      if (strides[i] != expected) return false;
      expected *= sizes[i];
    }
    return true;
  }

  // PyTorch's "non-overlapping and dense": the elements occupy exactly numel consecutive slots
  // in *some* dim order (contiguous, channels-last, transposed all qualify; expanded, sliced
  // with a step, or overlapping views do not). As TensorImpl computes it, a contiguous layout
  // short-circuits to true (so every zero-size tensor is dense too), and otherwise c10's
  // compute_non_overlapping_and_dense runs: rank 1 needs size < 2 or stride 1; higher ranks
  // order the dims by increasing stride, with size-0/1 dims moved to the end because their
  // strides are never used, and require each stride to be exactly the product of the sizes of
  // the dims before it in that order.
  static constexpr bool is_non_overlapping_and_dense(IntArrayRef sizes, IntArrayRef strides) {
    if (is_contiguous(sizes, strides)) return true;  // also checks the ranks agree
    const std::size_t n = sizes.size();
    if (n == 1) return sizes[0] < 2 || strides[0] == 1;
    // The permutation lives on the stack for inline ranks; only rare high ranks allocate, with
    // a bare new[] (constant-evaluable under both compilers, unlike a sized std::vector with
    // clang 14 + libstdc++ 12; nothing between new and delete can throw).
    if (n <= kInlineSize) {
      std::array<std::size_t, kInlineSize> perm{};
      return dense_in_stride_order_(sizes, strides, perm.data());
    }
    std::size_t* perm = new std::size_t[n];
    const bool dense = dense_in_stride_order_(sizes, strides, perm);
    delete[] perm;
    return dense;
  }

 private:
  // Wrapped in a struct so that assigning it as a whole is a trivial member assignment, which
  // C++20 lets a constant expression use to switch the union's active member (an array member
  // could only be activated element by element).
  struct InlineStorage {
    int64_t values[2 * kInlineSize];  // sizes in [0, k), strides in [k, 2k)
  };

  constexpr bool is_inline() const noexcept { return size_ <= kInlineSize; }

  // The heap block, 2 * rank elements. Constant evaluation may only use new[]/delete[] (C++20
  // transient allocation; unique_ptr's members only became constexpr in C++23), so that is what
  // it gets. At run time malloc/free, as c10 uses: new[] and delete[] each add two out-of-line
  // calls (operator new[] -> operator new -> malloc, new-handler loop included), which measured
  // ~4 ns of a ~9 ns rank-6 copy. The two never mix: a block allocated during constant
  // evaluation cannot outlive it, so it is also freed there, by delete[].
  static constexpr int64_t* allocate_(std::size_t rank) {
    if (std::is_constant_evaluated()) return new int64_t[2 * rank];
    void* block = std::malloc(2 * rank * sizeof(int64_t));
    if (block == nullptr) throw std::bad_alloc();
    return static_cast<int64_t*>(block);
  }
  static constexpr void deallocate_(int64_t* block) noexcept {
    if (std::is_constant_evaluated()) {
      delete[] block;
    } else {
      std::free(block);
    }
  }

  constexpr void check_dim_(std::size_t dim) const {
    TP_CHECK_INDEX(dim < size_, "SizesAndStrides: dimension ", dim,
                   " out of range for a tensor of rank ", size_);
  }

  static constexpr void check_same_rank_(IntArrayRef sizes, IntArrayRef strides) {
    TP_CHECK(sizes.size() == strides.size(),
             "mismatch in length of strides and shape: ", sizes.size(), " sizes and ",
             strides.size(), " strides");
  }

  // Moves to a fresh heap block of rank n > kInlineSize, from inline or from a heap block of
  // another rank, keeping the first min(old, n) strides and either the first min(old, n) sizes
  // (sizes_src == nullptr) or n sizes read from sizes_src. Everything is read from the old
  // storage before it is freed, which is what makes self-aliasing set_sizes safe. A fresh block
  // even when shrinking: the strides must move to offset n anyway, and the exact-size block
  // keeps copies simple (c10 reallocs here, which is no cheaper).
  constexpr void relayout_to_heap_(std::size_t n, const int64_t* sizes_src) {
    const std::size_t keep = std::min(size_, n);
    int64_t* block = allocate_(n);
    if (sizes_src != nullptr) {
      std::copy_n(sizes_src, n, block);
    } else {
      std::copy_n(sizes_data(), keep, block);
      std::fill(block + keep, block + n, int64_t{0});
    }
    std::copy_n(strides_data(), keep, block + n);
    std::fill(block + n + keep, block + 2 * n, int64_t{0});
    if (!is_inline()) deallocate_(heap_);
    heap_ = block;
    size_ = n;
  }

  // c10's ordering loop over a permutation buffer of sizes.size() entries. Insertion sort: the
  // rank is tiny, it is constexpr, and it allocates nothing. The result cannot depend on how
  // ties are ordered: two dims of size >= 2 with equal strides always fail the running-product
  // test, since the product strictly grows.
  static constexpr bool dense_in_stride_order_(IntArrayRef sizes, IntArrayRef strides,
                                               std::size_t* perm) noexcept {
    const std::size_t n = sizes.size();
    const auto before = [&](std::size_t a, std::size_t b) {
      if (sizes[a] < 2) return false;
      if (sizes[b] < 2) return true;
      return strides[a] < strides[b];
    };
    for (std::size_t i = 0; i < n; ++i) {
      std::size_t j = i;
      while (j > 0 && before(i, perm[j - 1])) {
        perm[j] = perm[j - 1];
        --j;
      }
      perm[j] = i;
    }
    int64_t required = 1;
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t d = perm[i];
      if (sizes[d] < 2) return true;  // only size-0/1 dims remain, their strides are free
      if (strides[d] != required) return false;
      required *= sizes[d];
    }
    return true;
  }

  // The rank; also the discriminator of the union below (inline iff size_ <= kInlineSize).
  std::size_t size_;
  union {
    InlineStorage inline_;
    int64_t* heap_;  // 2 * size_ elements: sizes, then strides
  };
};

}  // namespace tensorplay
