// Dimension wrapping: negative dims count from the end, with PyTorch's IndexError wording.
#pragma once

#include <cstdint>

#include <tensorplay/core/error.hpp>

namespace tensorplay {

// Maps dim in [-ndim, ndim) to [0, ndim). A 0-d tensor behaves as if it had one dimension
// (PyTorch's wrap_scalar), so dim 0 and -1 are valid for it.
constexpr int64_t maybe_wrap_dim(int64_t dim, int64_t ndim, bool wrap_scalar = true) {
  if (ndim <= 0) {
    TP_CHECK_INDEX(wrap_scalar, "Dimension specified as ", dim, " but tensor has no dimensions");
    ndim = 1;
  }
  const int64_t min = -ndim, max = ndim - 1;
  TP_CHECK_INDEX(dim >= min && dim <= max, "Dimension out of range (expected to be in range of [",
                 min, ", ", max, "], but got ", dim, ")");
  return dim < 0 ? dim + ndim : dim;
}

}  // namespace tensorplay
