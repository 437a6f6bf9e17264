// The CUDA kernels of reductions, softmax and scans (ops/device_dispatch.hpp's ReduceOp,
// SoftmaxOp and ScanOp):
// the front ends (dims, keepdim, dtypes and their promotion, out=, autograd) are the CPU's and
// hand over a result and an input on the device; this is the kernel step, for any layout of
// both (no copies: the row kernels of reduce_source.hpp address every element through offset
// calculators).
//
// The host works out, before touching a device (so its checks run anywhere, and the tests check
// them on the CPU):
//  * the row space (make_row_space): the input's dimensions split into the kept ones, which
//    number the rows, and the reduced ones (softmax: its one dimension), which number a row's
//    elements in row-major order; in each, size-1 dimensions dropped and neighbours merged
//    where both tensors step through them as one;
//  * the plan (plan_rows): the kernel's key with 32- or 64-bit indexing, and the launch: a
//    block per row, or a thread per row for short rows and for rows that sit side by side in
//    memory (the threads of a warp then read neighbouring elements);
//  * the parameter (make_reduce_params): pointers and the two offset calculators.
// Then, under a CUDAGuard for the result's device, the kernel (compiled on first use) runs on the
// device's current stream, without waiting for it.
#pragma once

#include <tensorplay/backends/cuda/device_kernels.hpp>
#include <tensorplay/backends/cuda/error.hpp>
#include <tensorplay/backends/cuda/kernel_table.hpp>
#include <tensorplay/backends/cuda/module.hpp>
#include <tensorplay/backends/cuda/offset_calculator.hpp>
#include <tensorplay/backends/cuda/pointwise_source.hpp>
#include <tensorplay/backends/cuda/reduce_source.hpp>
#include <tensorplay/backends/cuda/stream.hpp>
#include <tensorplay/core/device.hpp>
#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/ops/device_dispatch.hpp>

#include <cuda.h>

#include <array>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace tensorplay {
namespace cuda {

// Rows of a reduction or softmax over a result and an input: dimension 0 of each space is the
// fastest (the tensor's last), strides are in bytes, operand 0 the result and 1 the input.
struct RowSpace {
  std::vector<int64_t> outer_sizes, inner_sizes;
  std::array<std::vector<int64_t>, 2> outer_strides, inner_strides;
  int64_t rows = 1, length = 1;
};

namespace detail {

// Drops size-1 dimensions and merges dimension d + 1 into d where both operands step through
// the pair as through one dimension (which keeps the linear order of the space's elements).
inline void coalesce_row_dims(std::vector<int64_t>& sizes,
                              std::array<std::vector<int64_t>, 2>& strides) {
  std::vector<int64_t> s;
  std::array<std::vector<int64_t>, 2> st;
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    if (sizes[d] == 1) continue;
    if (!s.empty() && sizes[d] != 0 && s.back() != 0 && strides[0][d] == st[0].back() * s.back() &&
        strides[1][d] == st[1].back() * s.back()) {
      s.back() *= sizes[d];
      continue;
    }
    s.push_back(sizes[d]);
    st[0].push_back(strides[0][d]);
    st[1].push_back(strides[1][d]);
  }
  sizes = std::move(s);
  strides = std::move(st);
}

}  // namespace detail

// The row space of `self` with the dimensions in `dims` (one bit each) reduced into `result`:
// for a reduction, result has self's rank with size 1 along the reduced dimensions (keepdim's
// shape) and is written once per row; for softmax (`along_rows`), result has self's shape and is
// written along each row too.
template <class = void>
RowSpace make_row_space(const Tensor& result, const Tensor& self, std::uint64_t dims,
                        bool along_rows) {
  TP_CHECK(result.dim() == self.dim(), "cuda: a row kernel's result has the input's rank, got ",
           result.dim(), " and ", self.dim());
  RowSpace r;
  const int64_t out_item = result.itemsize(), in_item = self.itemsize();
  for (int64_t d = self.dim() - 1; d >= 0; --d) {
    const bool reduced = ((dims >> d) & 1u) != 0;
    TP_CHECK(result.size(d) == (reduced && !along_rows ? 1 : self.size(d)),
             "cuda: a row kernel's result has size ", result.size(d), " in dimension ", d,
             " for an input of size ", self.size(d));
    auto& sizes = reduced ? r.inner_sizes : r.outer_sizes;
    auto& strides = reduced ? r.inner_strides : r.outer_strides;
    sizes.push_back(self.size(d));
    strides[0].push_back(reduced && !along_rows ? 0 : result.stride(d) * out_item);
    strides[1].push_back(self.stride(d) * in_item);
  }
  for (int64_t s : r.outer_sizes) r.rows *= s;
  for (int64_t s : r.inner_sizes) r.length *= s;
  detail::coalesce_row_dims(r.outer_sizes, r.outer_strides);
  detail::coalesce_row_dims(r.inner_sizes, r.inner_strides);
  return r;
}

// How a row kernel is launched: `grid` blocks of `block` threads, a block per row or (serial)
// a thread per row; index64 selects the kernel compiled for 64-bit offsets.
struct RowLaunch {
  bool serial = false;
  bool index64 = false;
  unsigned block = kRowBlock;
  unsigned long long grid = 0;
};

// Rows at most this long are reduced by one thread each.
inline constexpr int64_t kSerialRowMax = 64;

// `serial_only`: a thread per row whatever the rows (the scans, which run in order).
template <class = void>
RowLaunch plan_rows(const RowSpace& space, const Tensor& result, const Tensor& self,
                    bool serial_only = false) {
  RowLaunch l;
  const auto byte_strides = [](const Tensor& t) {
    std::vector<int64_t> s(t.strides().begin(), t.strides().end());
    for (int64_t& x : s) x *= t.itemsize();
    return s;
  };
  const std::vector<int64_t> in_strides = byte_strides(self), out_strides = byte_strides(result);
  const std::array<IntArrayRef, 1> in{IntArrayRef(in_strides)}, out{IntArrayRef(out_strides)};
  l.index64 =
      !can_use_32bit_indexing(self.sizes(), in) || !can_use_32bit_indexing(result.sizes(), out);
  // Neighbouring rows adjacent in the input, and its rows' own elements further apart.
  const bool rows_side_by_side = !space.outer_sizes.empty() && !space.inner_sizes.empty() &&
                                 space.outer_strides[1][0] < space.inner_strides[1][0] &&
                                 space.rows >= 1024;
  l.serial = serial_only || space.length <= kSerialRowMax || rows_side_by_side ||
             static_cast<unsigned long long>(space.rows) > kMaxGridX;
  if (space.rows == 0) return l;  // grid 0: nothing to launch
  if (l.serial) {
    l.block = kSerialRowBlock;
    l.grid = (static_cast<unsigned long long>(space.rows) + l.block - 1) / l.block;
  } else {
    l.grid = static_cast<unsigned long long>(space.rows);
  }
  return l;
}

// The kernel's parameter: `out` and `in` are the result's and the input's first elements.
template <class Index>
ReduceParams<Index> make_reduce_params(const RowSpace& space, const RowLaunch& launch, char* out,
                                       const char* in) {
  static_assert(std::is_same_v<Index, unsigned> || std::is_same_v<Index, unsigned long long>);
  TP_CHECK(launch.index64 == (std::is_same_v<Index, unsigned long long>),
           "cuda: the parameter's index width is not the launch's");
  ReduceParams<Index> p{};
  p.out = out;
  p.in = in;
  p.rows = static_cast<Index>(space.rows);
  p.length = static_cast<Index>(space.length);
  p.serial = launch.serial ? 1u : 0u;
  const auto calc = [](const std::vector<int64_t>& sizes,
                       const std::array<std::vector<int64_t>, 2>& strides) {
    return make_offset_calculator<2, Index>(
        sizes, std::array<IntArrayRef, 2>{IntArrayRef(strides[0]), IntArrayRef(strides[1])});
  };
  p.outer = calc(space.outer_sizes, space.outer_strides);
  p.inner = calc(space.inner_sizes, space.inner_strides);
  return p;
}

namespace detail {

inline std::uint32_t pack_reduce_key(const ReduceKernelKey& key) {
  return static_cast<std::uint32_t>(key.code) | static_cast<std::uint32_t>(key.in) << 4 |
         static_cast<std::uint32_t>(key.out) << 8 | (key.index64 ? 1u : 0u) << 12;
}
inline std::uint32_t pack_scan_key(const ScanKernelKey& key) {
  return static_cast<std::uint32_t>(key.dtype) | (key.prod ? 1u : 0u) << 4 |
         (key.index64 ? 1u : 0u) << 5;
}
inline std::uint32_t pack_softmax_key(const SoftmaxKernelKey& key) {
  return static_cast<std::uint32_t>(key.dtype) | (key.log ? 1u : 0u) << 4 |
         (key.index64 ? 1u : 0u) << 5;
}

inline char* device_bytes(const Tensor& t) {
  return static_cast<char*>(t.unsafeGetTensorImpl()->data());
}

// Launches the kernel `name` over `space` on the result's device and current stream.
template <class Source>
void launch_rows(const RowSpace& space, const RowLaunch& plan, const Tensor& result,
                 const Tensor& self, std::uint64_t slot_key, KernelFamily family,
                 const std::string& name, Source&& source) {
  TP_CHECK(self.device() == result.device(), "Expected all tensors to be on the same device, ",
           "but found at least two devices, ", self.device(), " and ", result.device(), "!");
  if (plan.grid == 0) return;
  CUDAGuard guard(result.device().index());
  const DeviceIndex device = guard.current_device().index();
  const CUDAStream stream = getCurrentCUDAStream(device);
  const CUfunction function =
      kernel_function(device, kernel_slot(family, device, static_cast<std::uint32_t>(slot_key)),
                      name, source, pointwise_compile_options());
  const auto go = [&](auto params) {
    void* args[] = {&params};
    launch(function, dim3(static_cast<unsigned>(plan.grid)), dim3(plan.block), 0, stream.stream(),
           args);
  };
  if (plan.index64) {
    go(make_reduce_params<unsigned long long>(space, plan, device_bytes(result),
                                              device_bytes(self)));
  } else {
    go(make_reduce_params<unsigned>(space, plan, device_bytes(result), device_bytes(self)));
  }
}

}  // namespace detail

// The reduction kernel's key for writing `result` from `self` (checked).
inline ReduceKernelKey reduce_kernel_key(ReduceCode code, DType in, DType out, bool index64) {
  const ReduceKernelKey key{code, in, out, index64};
  check_reduce_kernel_key(key);
  return key;
}

}  // namespace cuda

template <class>
void DeviceKernel<ReduceOp, DeviceType::CUDA>::run(const Tensor& result, const Tensor& self,
                                                   std::uint64_t dims, ReduceCode code) {
  using namespace cuda;
  const RowSpace space = make_row_space(result, self, dims, /*along_rows=*/false);
  const RowLaunch plan = plan_rows(space, result, self);
  const ReduceKernelKey key = reduce_kernel_key(code, self.dtype(), result.dtype(), plan.index64);
  TP_CHECK_INDEX(space.length > 0 || code == ReduceCode::Sum || code == ReduceCode::Mean ||
                     code == ReduceCode::Prod || space.rows == 0,
                 reduce_code_name(code), "(): Expected reduction dim to have non-zero size.");
  cuda::detail::launch_rows(space, plan, result, self, cuda::detail::pack_reduce_key(key),
                            KernelFamily::Reduce, reduce_kernel_name(key), [&] {
                              return row_kernel_source({&key, 1}, {});
                            });
}

template <class>
void DeviceKernel<SoftmaxOp, DeviceType::CUDA>::run(const Tensor& result, const Tensor& self,
                                                    int64_t dim, bool log) {
  using namespace cuda;
  TP_CHECK_TYPE(result.dtype() == self.dtype(), "cuda: ", log ? "log_softmax" : "softmax",
                " writes its input's dtype ", scalar_type_name(self.dtype()), ", not ",
                scalar_type_name(result.dtype()));
  const SoftmaxKernelKey probe{self.dtype(), log, false};
  check_softmax_kernel_key(probe);
  const std::uint64_t dims = self.dim() == 0 ? 0 : std::uint64_t{1} << dim;
  const RowSpace space = make_row_space(result, self, dims, /*along_rows=*/true);
  const RowLaunch plan = plan_rows(space, result, self);
  const SoftmaxKernelKey key{self.dtype(), log, plan.index64};
  cuda::detail::launch_rows(space, plan, result, self, cuda::detail::pack_softmax_key(key),
                            KernelFamily::Softmax, softmax_kernel_name(key), [&] {
                              return row_kernel_source({}, {&key, 1});
                            });
}

template <class>
void DeviceKernel<ScanOp, DeviceType::CUDA>::run(const Tensor& result, const Tensor& self,
                                                 int64_t dim, bool prod) {
  using namespace cuda;
  TP_CHECK_TYPE(result.dtype() == self.dtype(), "cuda: ", prod ? "cumprod" : "cumsum",
                " writes its input's dtype ", scalar_type_name(self.dtype()), ", not ",
                scalar_type_name(result.dtype()));
  check_scan_kernel_key(ScanKernelKey{self.dtype(), prod, false});
  const std::uint64_t dims = self.dim() == 0 ? 0 : std::uint64_t{1} << dim;
  const RowSpace space = make_row_space(result, self, dims, /*along_rows=*/true);
  const RowLaunch plan = plan_rows(space, result, self, /*serial_only=*/true);
  const ScanKernelKey key{self.dtype(), prod, plan.index64};
  cuda::detail::launch_rows(space, plan, result, self, cuda::detail::pack_scan_key(key),
                            KernelFamily::Scan, scan_kernel_name(key), [&] {
                              return row_kernel_source({}, {}, {&key, 1});
                            });
}

}  // namespace tensorplay
