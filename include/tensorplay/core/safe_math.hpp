// Overflow-checked element and byte counts: the one place user-given sizes are multiplied.
//
// A size list is user input, and int64 products of user input overflow: resize_({2, 4, 1 << 29,
// 1 << 29}) on a float64 tensor has a numel that fits in int64 (2^61) but a byte count that does
// not, and a storage sized with the wrapped product is eight bytes long. So every element count
// and byte count computed from sizes goes through these helpers (c10/util/safe_numerics.h and
// ATen's computeStorageNbytes*), with PyTorch's messages: "numel: integer multiplication
// overflow" where PyTorch's TensorImpl computes numel, "Storage size calculation overflowed with
// sizes=..." where it sizes a storage.
#pragma once

#include <cstddef>
#include <cstdint>
#include <limits>

#include <tensorplay/core/array_ref.hpp>
#include <tensorplay/core/error.hpp>

namespace tensorplay::detail {

// True when a + b (a * b) does not fit in *out's type; *out gets the wrapped value either way.
template <class A, class B, class T>
constexpr bool add_overflows(A a, B b, T* out) noexcept {
  return __builtin_add_overflow(a, b, out);
}
template <class A, class B, class T>
constexpr bool mul_overflows(A a, B b, T* out) noexcept {
  return __builtin_mul_overflow(a, b, out);
}

// The largest element or byte count a tensor may have (c10's storage_max).
inline constexpr uint64_t kStorageMax = static_cast<uint64_t>(std::numeric_limits<int64_t>::max());

// c10's safe_multiplies_u64: the product of `sizes`, true if any step overflowed. The flag is
// sticky, as PyTorch's is: [2^32, 2^32, 0] overflows but [0, 2^32, 2^32] does not, so the same
// sizes pass or fail here as there. A negative size reads as a huge uint64, so it overflows too
// (unless a 0 came first).
constexpr bool safe_multiplies_u64(IntArrayRef sizes, uint64_t* out) noexcept {
  uint64_t n = 1;
  bool overflow = false;
  for (int64_t s : sizes) overflow |= mul_overflows(n, static_cast<uint64_t>(s), &n);
  *out = n;
  return overflow;
}

// TensorImpl's safe_compute_numel: the element count of `sizes`, refused when it exceeds int64.
inline int64_t safe_compute_numel(IntArrayRef sizes) {
  uint64_t n = 0;
  const bool overflow = safe_multiplies_u64(sizes, &n) || n > kStorageMax;
  TP_CHECK(!overflow, "numel: integer multiplication overflow");
  return static_cast<int64_t>(n);
}

// Bytes a strided geometry reaches: itemsize * (storage_offset + 1 + sum((size-1)*stride)), 0 if
// any size is 0 (ATen's computeStorageNbytes: as there, a 0 returns before the overflow of the
// dims before it is looked at). Negative sizes/strides and overflow are rejected.
inline std::size_t storage_nbytes(IntArrayRef sizes, IntArrayRef strides, std::size_t itemsize,
                                  int64_t storage_offset = 0) {
  TP_CHECK(sizes.size() == strides.size(), "mismatch in length of strides and shape: sizes ", sizes,
           " strides ", strides);
  uint64_t n = 1;
  bool overflow = add_overflows(n, storage_offset, &n);
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    TP_CHECK(sizes[i] >= 0, "Trying to create tensor with negative dimension ", sizes[i], ": ",
             sizes);
    TP_CHECK(
        strides[i] >= 0,
        "as_strided: Negative strides are not supported at the moment, got strides: ", strides);
    if (sizes[i] == 0) return 0;
    uint64_t term = 0;
    overflow |= mul_overflows(static_cast<uint64_t>(sizes[i] - 1),
                              static_cast<uint64_t>(strides[i]), &term);
    overflow |= add_overflows(n, term, &n);
  }
  overflow |= mul_overflows(n, itemsize, &n);
  TP_CHECK(!overflow && n <= kStorageMax, "Storage size calculation overflowed with sizes=", sizes,
           " and strides=", strides);
  return static_cast<std::size_t>(n);
}

// Bytes of a contiguous tensor of `sizes` starting `storage_offset` elements in: itemsize *
// (numel + storage_offset) (ATen's computeStorageNbytesContiguous), with the same checks.
inline std::size_t contiguous_nbytes(IntArrayRef sizes, std::size_t itemsize,
                                     int64_t storage_offset = 0) {
  for (int64_t s : sizes) {
    TP_CHECK(s >= 0, "Trying to create tensor with negative dimension ", s, ": ", sizes);
  }
  uint64_t n = 0;
  bool overflow = safe_multiplies_u64(sizes, &n);
  overflow |= add_overflows(n, storage_offset, &n);
  overflow |= mul_overflows(n, itemsize, &n);
  TP_CHECK(!overflow && n <= kStorageMax, "Storage size calculation overflowed with sizes=", sizes);
  return static_cast<std::size_t>(n);
}

}  // namespace tensorplay::detail
