// The CUDA kernel of every elementwise op (ops/device_dispatch.hpp's PointwiseOp): the front
// ends (promotion, broadcasting, out= and in-place rules, autograd) are the CPU's and have built
// a TensorIterator; this is its kernel step. One kernel family (pointwise_source.hpp) walks the
// iterator's space with each operand's own byte strides, so broadcast, transposed and sliced
// operands and out= views need no copies.
//
// A call works out, on the host and before touching a device (so its checks run anywhere):
//  * the kernel: PointwiseKernelKey from the code and the iterator's dtypes, refused (TypeError,
//    "\"remainder_cuda\" not implemented for 'Bool'") where no kernel exists, with 64-bit
//    indexing where can_use_32bit_indexing says the space needs it;
//  * its one parameter, PointwiseParams: operand pointers (a device tensor's first element), the
//    offset calculator, the code's scalars in the compute type, and a CPU 0-d input (a wrapped
//    number) as a constant in the parameter, never uploaded.
// Then, under a CUDAGuard for the iterator's device: the kernel from a per-process table of
// (device, key), compiled on first use through kernel_cache() (one NVRTC program per kernel,
// for the device's architecture) and loaded through module_cache(); launched on the device's
// current stream, without waiting for it.
//
// Integer division and remainder by zero raise the CPU's ZeroDivisionError. A constant divisor
// is checked on the host (no launch, no wait). A device divisor is checked by the kernel, which
// ORs kPointwiseErrorZeroDivision into a word the launch allocates from the caching allocator on
// the same stream and clears with cudaMemsetAsync; the word is copied back after the kernel and
// the stream waited for, so only these ops with a tensor divisor synchronise.
#pragma once

#include <tensorplay/backends/cuda/allocator.hpp>
#include <tensorplay/backends/cuda/device_kernels.hpp>
#include <tensorplay/backends/cuda/error.hpp>
#include <tensorplay/backends/cuda/kernel_table.hpp>
#include <tensorplay/backends/cuda/module.hpp>
#include <tensorplay/backends/cuda/nvrtc.hpp>
#include <tensorplay/backends/cuda/offset_calculator.hpp>
#include <tensorplay/backends/cuda/pointwise_source.hpp>
#include <tensorplay/backends/cuda/runtime.hpp>
#include <tensorplay/backends/cuda/stream.hpp>
#include <tensorplay/core/device.hpp>
#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/ops/device_dispatch.hpp>
#include <tensorplay/ops/tensor_iterator.hpp>

#include <cuda.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace tensorplay {
namespace cuda {

namespace detail {

// Whether iterator operand k is a constant: a CPU input (the iterator lets only 0-d ones in)
// of an iteration that runs on a device.
template <class = void>
bool is_pointwise_constant(const TensorIterator& iter, int k) {
  return k >= iter.noutputs() && !iter.is_cpu() && iter.tensor(k).is_cpu();
}

// The integer division codes, whose kernels report a zero divisor.
inline bool divides_integers(const PointwiseKernelKey& key) {
  using C = PointwiseCode;
  const bool division = key.code == C::DivTrunc || key.code == C::DivFloor ||
                        key.code == C::Remainder || key.code == C::Fmod;
  return division && is_integral(pointwise_compute_dtype(key), /*include_bool=*/false);
}

// The CPU's error for an integer division by zero (ops/binary.hpp's div_trunc_int & co.).
[[noreturn]] inline void throw_zero_division() { TP_ERROR("ZeroDivisionError"); }

}  // namespace detail

// The kernel that computes iter for `code`: its output's and inputs' dtypes (checked against the
// kernels that exist, check_pointwise_kernel_key's errors) and its index width.
template <class = void>
PointwiseKernelKey pointwise_kernel_key(const TensorIterator& iter, PointwiseCode code) {
  const PointwiseOpInfo& info = pointwise_op_info(code);
  TP_CHECK(iter.noutputs() == 1 && iter.ninputs() == info.arity, "cuda: '", pointwise_name(code),
           "' takes ", info.arity, " inputs and one output, got ", iter.ninputs(), " and ",
           iter.noutputs());
  PointwiseKernelKey key;
  key.code = code;
  key.arity = info.arity;
  key.out = iter.dtype(0);
  // Unused slots repeat the last input, as pointwise_kernel_key(code, dtype) fills them, so
  // that equal kernels have equal keys.
  for (std::size_t k = 0; k < key.inputs.size(); ++k) {
    key.inputs[k] = iter.input_dtype(std::min(int(k), info.arity - 1));
  }
  key.index64 = !can_use_32bit_indexing(iter);
  check_pointwise_kernel_key(key);
  return key;
}

// What a launch over iter needs besides the parameter: the kernel, the launch shape (grid 0: an
// empty space, nothing to launch), the device, and whether to read the kernel's error word (an
// integer division by a tensor; a constant divisor is checked on the host instead).
struct PointwisePlan {
  PointwiseKernelKey key;
  LaunchShape shape;
  DeviceIndex device = -1;
  bool error_word = false;
};

template <class = void>
PointwisePlan plan_pointwise(const TensorIterator& iter, PointwiseCode code) {
  PointwisePlan plan;
  plan.key = pointwise_kernel_key(iter, code);
  plan.shape = pointwise_launch_shape(iter.numel(), !plan.key.index64);
  plan.device = iter.tensor(0).device().index();  // the output's, which the kernel writes
  plan.error_word = detail::divides_integers(plan.key) && !detail::is_pointwise_constant(iter, 2);
  return plan;
}

// A parameter's operands for iter (N of them), with Index the kernel's index type: pointers
// (a device tensor's first element: Tensor::data_ptr() refuses device tensors), CPU inputs as
// constants, the element count and the offset calculator; scalars zero and `error` null.
template <int N, class Index>
PointwiseParams<N, Index> make_pointwise_operands(const TensorIterator& iter) {
  TP_CHECK(iter.ntensors() == N, "cuda: a kernel of ", N, " operands for an iterator of ",
           iter.ntensors());
  PointwiseParams<N, Index> p{};
  p.error = nullptr;
  p.numel = static_cast<Index>(iter.numel());
  p.constant_mask = 0;
  for (int k = 0; k < N; ++k) {
    const Tensor& t = iter.tensor(k);
    if (detail::is_pointwise_constant(iter, k)) {
      p.constants[k] = pointwise_constant_bits(t);
      p.constant_mask |= 1u << k;
      p.data[k] = nullptr;
    } else {
      TP_CHECK(t.device() == iter.device(), "Expected all tensors to be on the same device, but ",
               "found at least two devices, ", iter.device(), " and ", t.device(), "!");
      p.data[k] = static_cast<char*>(t.unsafeGetTensorImpl()->data());
    }
  }
  p.offsets = make_offset_calculator<N, Index>(iter);
  return p;
}

// The kernel's parameter for iter (N operands: the key's arity + 1), with Index the key's
// index type; `error` is left null (the launch sets it when the plan asks for the word).
template <int N, class Index>
PointwiseParams<N, Index> make_pointwise_params(const TensorIterator& iter,
                                                const PointwiseKernelKey& key, double s0,
                                                double s1) {
  TP_CHECK(iter.ntensors() == N && key.arity + 1 == N, "cuda: a kernel of ", key.arity + 1,
           " operands for an iterator of ", iter.ntensors(), " and a parameter of ", N);
  TP_CHECK(key.index64 == (std::is_same_v<Index, unsigned long long>),
           "cuda: the parameter's index width is not the kernel's");
  PointwiseParams<N, Index> p = make_pointwise_operands<N, Index>(iter);
  const DType compute = pointwise_compute_dtype(key);
  p.scalars[0] = pointwise_scalar_bits(compute, s0);
  p.scalars[1] = pointwise_scalar_bits(compute, s1);
  return p;
}

namespace detail {

// The kernel's key in kernel_slot's 32 bits.
inline std::uint32_t pack_pointwise_key(const PointwiseKernelKey& key) {
  static_assert(kNumDTypes <= 16 && kNumPointwiseCodes < 256, "the packing's field widths");
  std::uint32_t v = static_cast<std::uint32_t>(key.code);
  v |= static_cast<std::uint32_t>(key.out) << 8;
  for (std::size_t k = 0; k < 3; ++k)
    v |= static_cast<std::uint32_t>(key.inputs[k]) << (12 + 4 * k);
  v |= static_cast<std::uint32_t>(key.arity & 3) << 24;
  v |= static_cast<std::uint32_t>(key.index64 ? 1 : 0) << 26;
  return v;
}
// (device, key) in one word: the kernel table's key.
inline std::uint64_t pack_kernel_slot(DeviceIndex device, const PointwiseKernelKey& key) {
  return kernel_slot(KernelFamily::Pointwise, device, pack_pointwise_key(key));
}

// The kernel of `key` on `device` (current, under the caller's CUDAGuard).
inline CUfunction pointwise_function(DeviceIndex device, const PointwiseKernelKey& key) {
  return kernel_function(
      device, pack_kernel_slot(device, key), pointwise_kernel_name(key),
      [&] {
        return pointwise_kernel_source({&key, 1});
      },
      pointwise_compile_options());
}

template <int N, class Index>
void launch_pointwise(const TensorIterator& iter, const PointwisePlan& plan, double s0, double s1) {
  PointwiseParams<N, Index> params = make_pointwise_params<N, Index>(iter, plan.key, s0, s1);
  CUDAGuard guard(plan.device);
  const DeviceIndex device = guard.current_device().index();
  const CUDAStream stream = getCurrentCUDAStream(device);
  const CUfunction function = pointwise_function(device, plan.key);
  DataPtr word;  // freed after the wait below, so reused only after the kernel is done
  if (plan.error_word) {
    word = CUDACachingAllocator::instance().allocate(sizeof(unsigned),
                                                     Device(DeviceType::CUDA, device));
    TP_CUDA_CHECK(cudaMemsetAsync(word.get(), 0, sizeof(unsigned), stream.stream()),
                  "clearing a kernel's error word");
    params.error = static_cast<unsigned*>(word.get());
  }
  void* args[] = {&params};
  launch(function, dim3(static_cast<unsigned>(plan.shape.grid)), dim3(plan.shape.block), 0,
         stream.stream(), args);
  if (plan.error_word) {
    unsigned flags = 0;
    TP_CUDA_CHECK(cudaMemcpyAsync(&flags, word.get(), sizeof(unsigned), cudaMemcpyDeviceToHost,
                                  stream.stream()),
                  "reading a kernel's error word");
    stream.synchronize();
    if ((flags & kPointwiseErrorZeroDivision) != 0) throw_zero_division();
  }
}

template <class = void>
void run_pointwise(const TensorIterator& iter, PointwiseCode code, double s0, double s1) {
  // An op no device has a kernel for: what pointwise_on_device says for a backend without one.
  if (code == PointwiseCode::None) ::tensorplay::detail::throw_no_device_loop(iter.device());
  const PointwisePlan plan = plan_pointwise(iter, code);  // checks, even for an empty space
  if (plan.shape.grid == 0) return;
  if (divides_integers(plan.key) && is_pointwise_constant(iter, 2) &&
      pointwise_constant_bits(iter.tensor(2)) == 0) {
    throw_zero_division();  // as the CPU, before any element is written
  }
  const bool i64 = plan.key.index64;
  switch (plan.key.arity) {
    case 1:
      return i64 ? launch_pointwise<2, unsigned long long>(iter, plan, s0, s1)
                 : launch_pointwise<2, unsigned>(iter, plan, s0, s1);
    case 2:
      return i64 ? launch_pointwise<3, unsigned long long>(iter, plan, s0, s1)
                 : launch_pointwise<3, unsigned>(iter, plan, s0, s1);
    default:
      return i64 ? launch_pointwise<4, unsigned long long>(iter, plan, s0, s1)
                 : launch_pointwise<4, unsigned>(iter, plan, s0, s1);
  }
}

}  // namespace detail
}  // namespace cuda

template <class>
void DeviceKernel<PointwiseOp, DeviceType::CUDA>::run(const TensorIterator& iter,
                                                      PointwiseCode code, double s0, double s1) {
  cuda::detail::run_pointwise(iter, code, s0, s1);
}

}  // namespace tensorplay
