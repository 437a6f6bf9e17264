// searchsorted and bucketize (PyTorch's Bucketization.cpp): for each value, the insertion point
// in a sorted sequence (1-d, or one sorted row per leading index of the values), left or right
// of equal elements, optionally through a sorter permutation. NaN sorts last, as in torch.sort.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include <tensorplay/core/error.hpp>
#include <tensorplay/core/grad_mode.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/ops/copy.hpp>
#include <tensorplay/ops/dispatch.hpp>
#include <tensorplay/ops/factories.hpp>
#include <tensorplay/ops/result_type.hpp>
#include <tensorplay/ops/scatter_gather.hpp>  // host_only

namespace tensorplay {

template <class = void>
Tensor searchsorted(const Tensor& sorted_sequence, const Tensor& self, bool out_int32 = false,
                    bool right = false, std::optional<std::string_view> side = std::nullopt,
                    const std::optional<Tensor>& sorter = std::nullopt) {
  detail::scatter_gather::host_only("searchsorted", {&sorted_sequence, &self});
  if (side) {
    TP_CHECK(*side == "left" || *side == "right",
             "torch.searchsorted(): side can only be 'left' or 'right' but got ", *side);
    TP_CHECK(!(right && *side == "left"),
             "torch.searchsorted(): side and right can't be set to opposites, got side of ", *side,
             " while right was True");
    right = *side == "right";
  }
  const Tensor& b = sorted_sequence;
  bool rows_match = b.dim() == 1;
  if (!rows_match && b.dim() == self.dim()) {
    rows_match = true;
    for (int64_t d = 0; d + 1 < b.dim(); ++d) rows_match = rows_match && b.size(d) == self.size(d);
  }
  TP_CHECK(b.dim() >= 1 && rows_match,
           "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
           "dimensions of boundaries tensor and input value tensor must match, but we got "
           "boundaries tensor ",
           b.sizes(), " and input value tensor ", self.sizes());
  if (sorter) {
    TP_CHECK(sorter->dtype() == kLong,
             "torch.searchsorted(): sorter must be a tensor of long dtype but got dtype ",
             scalar_type_name(sorter->dtype()));
    TP_CHECK(sorter->sizes() == b.sizes(),
             "torch.searchsorted(): boundary and sorter must have the same size, but got "
             "boundary tensor ",
             b.sizes(), "and got sorter tensor ", sorter->sizes());
  }
  NoGradGuard no_grad;
  const DType common = promote_types(b.dtype(), self.dtype());
  const Tensor bs = (sorter ? b.gather(-1, *sorter) : b).to(common).contiguous();
  const Tensor vs = self.to(common).contiguous();
  Tensor out = empty(self.sizes(), TensorOptions().dtype(out_int32 ? kInt : kLong));
  const int64_t n = bs.size(-1), rows = b.dim() == 1 ? 1 : bs.numel() / std::max<int64_t>(n, 1);
  const int64_t per_row = b.dim() == 1 ? vs.numel() : (rows == 0 ? 0 : vs.numel() / rows);
  TP_CHECK(!out_int32 || n < (int64_t(1) << 31),
           "torch.searchsorted(): the size of boundaries' last dimension should be less than ",
           int64_t(1) << 31, ", but we got ", n);
  dispatch_dtype(common, [&]<class T>() {
    const T* bp = bs.data_ptr<T>();
    const T* vp = vs.data_ptr<T>();
    for (int64_t i = 0; i < vs.numel(); ++i) {
      const T* row = bp + (b.dim() == 1 ? 0 : (i / per_row) * n);
      const T v = vp[i];
      int64_t lo = 0, hi = n;
      while (lo < hi) {  // NaN compares false: it sorts after everything
        const int64_t mid = lo + (hi - lo) / 2;
        const bool go_right = right ? !(row[mid] > v) : !(row[mid] >= v);
        if (go_right) {
          lo = mid + 1;
        } else {
          hi = mid;
        }
      }
      if (out_int32) {
        out.data_ptr<int32_t>()[i] = static_cast<int32_t>(lo);
      } else {
        out.data_ptr<int64_t>()[i] = lo;
      }
    }
  });
  return out;
}
template <class = void>
Tensor searchsorted(const Tensor& sorted_sequence, const Scalar& self, bool out_int32 = false,
                    bool right = false, std::optional<std::string_view> side = std::nullopt,
                    const std::optional<Tensor>& sorter = std::nullopt) {
  return searchsorted(sorted_sequence, detail::wrapped_scalar_tensor(self), out_int32, right, side,
                      sorter);
}

// The bucket of each value: searchsorted on 1-d boundaries.
template <class = void>
Tensor bucketize(const Tensor& self, const Tensor& boundaries, bool out_int32 = false,
                 bool right = false) {
  TP_CHECK(boundaries.dim() == 1, "boundaries tensor must be 1 dimension, but got dim(",
           boundaries.dim(), ")");
  return searchsorted(boundaries, self, out_int32, right);
}
template <class = void>
Tensor bucketize(const Scalar& self, const Tensor& boundaries, bool out_int32 = false,
                 bool right = false) {
  return bucketize(detail::wrapped_scalar_tensor(self), boundaries, out_int32, right);
}

}  // namespace tensorplay
