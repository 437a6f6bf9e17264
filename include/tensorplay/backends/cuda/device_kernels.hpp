// The CUDA backend's kernels behind the one device dispatch point (ops/device_dispatch.hpp's
// DeviceKernel<Op, D>), declared; ops/device_dispatch.hpp includes this so every translation
// unit that dispatches sees the same specialisations (declarations-only files included), and
// copy.hpp, pointwise.hpp, reduce.hpp, blas.hpp and random.hpp define the run()s. Each is a
// deferred template: compiled where it is used in header-only mode, once in tensorplay::compiled
// (src/instantiate_0.cpp) otherwise.
#pragma once

#include <tensorplay/ops/device_dispatch.hpp>

#include <cstdint>

namespace tensorplay {

class Scalar;
class Tensor;
class TensorIterator;
namespace detail::linalg_impl {
struct ProductArgs;
}  // namespace detail::linalg_impl

template <>
struct DeviceKernel<CopyOp, DeviceType::CUDA> {
  template <class = void>
  static void run(const Tensor& dst, const Tensor& src);
};
template <>
struct DeviceKernel<NonBlockingCopyOp, DeviceType::CUDA> {
  template <class = void>
  static void run(const Tensor& dst, const Tensor& src);
};
template <>
struct DeviceKernel<FillOp, DeviceType::CUDA> {
  template <class = void>
  static void run(const Tensor& self, const Scalar& value);
};
template <>
struct DeviceKernel<PointwiseOp, DeviceType::CUDA> {
  template <class = void>
  static void run(const TensorIterator& iter, PointwiseCode code, double s0, double s1);
};
template <>
struct DeviceKernel<ReduceOp, DeviceType::CUDA> {
  template <class = void>
  static void run(const Tensor& result, const Tensor& self, std::uint64_t dims, ReduceCode code);
};
template <>
struct DeviceKernel<RandomOp, DeviceType::CUDA> {
  template <class = void>
  static void run(const Tensor& self, bool normal, double a, double b);
};
template <>
struct DeviceKernel<ScanOp, DeviceType::CUDA> {
  template <class = void>
  static void run(const Tensor& result, const Tensor& self, int64_t dim, bool prod);
};
template <>
struct DeviceKernel<ProductOp, DeviceType::CUDA> {
  template <class = void>
  static void run(const detail::linalg_impl::ProductArgs& p);
};
template <>
struct DeviceKernel<SoftmaxOp, DeviceType::CUDA> {
  template <class = void>
  static void run(const Tensor& result, const Tensor& self, int64_t dim, bool log);
};

}  // namespace tensorplay

// The explicit instantiations of the run()s, for src/instantiate_0.cpp and
// compiled/extern_templates.hpp.
#define TENSORPLAY_CUDA_KERNELS_(X)                                                               \
  X(void DeviceKernel<CopyOp, DeviceType::CUDA>::run<>(const Tensor&, const Tensor&))             \
  X(void DeviceKernel<NonBlockingCopyOp, DeviceType::CUDA>::run<>(const Tensor&, const Tensor&))  \
  X(void DeviceKernel<FillOp, DeviceType::CUDA>::run<>(const Tensor&, const Scalar&))             \
  X(void DeviceKernel<PointwiseOp, DeviceType::CUDA>::run<>(const TensorIterator&, PointwiseCode, \
                                                            double, double))                      \
  X(void DeviceKernel<ReduceOp, DeviceType::CUDA>::run<>(const Tensor&, const Tensor&,            \
                                                         std::uint64_t, ReduceCode))              \
  X(void DeviceKernel<SoftmaxOp, DeviceType::CUDA>::run<>(const Tensor&, const Tensor&, int64_t,  \
                                                          bool))                                  \
  X(void DeviceKernel<ProductOp, DeviceType::CUDA>::run<>(const detail::linalg_impl::ProductArgs&))
