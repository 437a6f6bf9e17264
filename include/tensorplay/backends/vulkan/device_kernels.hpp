// The Vulkan backend's kernels behind the one device dispatch point (ops/device_dispatch.hpp's
// DeviceKernel<Op, D>), declared. ops/device_dispatch.hpp includes this, so every translation
// unit that dispatches sees the same specialisations, including one that parses the ops as
// declarations only (separately compiled mode); ops.hpp, kernels.hpp and pointwise.hpp define
// the run()s. Each is a deferred template: compiled where it is used in header-only mode, once
// in tensorplay::compiled (src/instantiate_0.cpp) in separately compiled mode.
#pragma once

#include <cstdint>

#include <tensorplay/ops/device_dispatch.hpp>

namespace tensorplay {

class Scalar;
class Tensor;
class TensorIterator;
namespace detail::linalg_impl {
struct ProductArgs;
}  // namespace detail::linalg_impl

template <>
struct DeviceKernel<CopyOp, DeviceType::Vulkan> {
  template <class = void>
  static void run(const Tensor& dst, const Tensor& src);
};
template <>
struct DeviceKernel<FillOp, DeviceType::Vulkan> {
  template <class = void>
  static void run(const Tensor& self, const Scalar& value);
};
template <>
struct DeviceKernel<ReduceOp, DeviceType::Vulkan> {
  template <class = void>
  static void run(const Tensor& result, const Tensor& self, std::uint64_t dims, ReduceCode code);
};
template <>
struct DeviceKernel<SoftmaxOp, DeviceType::Vulkan> {
  template <class = void>
  static void run(const Tensor& result, const Tensor& self, int64_t dim, bool log);
};
template <>
struct DeviceKernel<ProductOp, DeviceType::Vulkan> {
  template <class = void>
  static void run(const detail::linalg_impl::ProductArgs& p);
};
template <>
struct DeviceKernel<PointwiseOp, DeviceType::Vulkan> {
  template <class = void>
  static void run(const TensorIterator& iter, PointwiseCode code, double s0, double s1);
};

}  // namespace tensorplay

// The explicit instantiations of the run()s (TENSORPLAY_VULKAN_KERNEL_(declaration)), for
// src/instantiate_0.cpp and compiled/extern_templates.hpp.
#define TENSORPLAY_VULKAN_KERNELS_(X)                                                           \
  X(void DeviceKernel<CopyOp, DeviceType::Vulkan>::run<>(const Tensor&, const Tensor&))        \
  X(void DeviceKernel<FillOp, DeviceType::Vulkan>::run<>(const Tensor&, const Scalar&))        \
  X(void DeviceKernel<ReduceOp, DeviceType::Vulkan>::run<>(const Tensor&, const Tensor&,       \
                                                           std::uint64_t, ReduceCode))          \
  X(void DeviceKernel<SoftmaxOp, DeviceType::Vulkan>::run<>(const Tensor&, const Tensor&,      \
                                                            int64_t, bool))                     \
  X(void DeviceKernel<ProductOp, DeviceType::Vulkan>::run<>(                                   \
      const detail::linalg_impl::ProductArgs&))                                                 \
  X(void DeviceKernel<PointwiseOp, DeviceType::Vulkan>::run<>(const TensorIterator&,           \
                                                              PointwiseCode, double, double))
