// The device dispatch point: the device twin of dispatch_dtype. An op's front end (argument
// checks, shapes, dtypes, promotion, autograd recording) is shared by every device; only its
// kernel step depends on the device, and it is chosen here:
//
//   dispatch_device(t.device().type(), "aten::sort", [&]<DeviceType D>() { ... });
//   call_device_kernel<CopyOp>(device_type, dst, src);   // a backend's DeviceKernel<CopyOp, D>
//
// A device that is not compiled in costs nothing (its branch is discarded: if constexpr on
// is_compiled_in<D>), and a device without a kernel for the op raises PyTorch's
// NotImplementedError: "Could not run 'aten::sort' with arguments from the 'Vulkan' backend."
//
// Backends add kernels by specialising DeviceKernel<Op, D> (an op tag from below, D their
// device type) with a static `run`, in their opt-in headers (backends/<device>/ops.hpp), which
// the umbrella includes when the backend's macro is on, so every translation unit sees the same
// kernels. CPU kernels stay in the op headers themselves.
#pragma once

#include <tensorplay/core/device.hpp>
#include <tensorplay/core/device_policy.hpp>
#include <tensorplay/core/error.hpp>

#include <string_view>

namespace tensorplay {

// PyTorch's name of a device's backend dispatch key, as its messages spell it.
constexpr std::string_view backend_name(DeviceType t) noexcept {
  switch (t) {
    case DeviceType::CPU: return "CPU";
    case DeviceType::CUDA: return "CUDA";
    case DeviceType::Vulkan: return "Vulkan";
  }
  return "Undefined";
}

namespace detail {
// PyTorch's message, and why: the backend is compiled in without a kernel for the op, or the
// backend is not compiled in at all.
[[noreturn]] inline void throw_no_device_kernel(std::string_view op, DeviceType t,
                                                bool compiled_in) {
  if (compiled_in) {
    throw_error<NotImplementedError>(
        "Could not run '", op, "' with arguments from the '", backend_name(t),
        "' backend. TensorPlay's ", backend_name(t), " backend has no kernel for it",
        t == DeviceType::CPU ? "" : " yet; move the tensors with .cpu() first");
  }
  throw_error<NotImplementedError>("Could not run '", op, "' with arguments from the '",
                                   backend_name(t), "' backend. TensorPlay was compiled without ",
                                   "it: define ", device_feature_macro(t),
                                   " (link the matching tensorplay:: target)");
}
}  // namespace detail

// Calls f.template operator()<D>() for the run-time device type t; a device that is not compiled
// in gets PyTorch's "Could not run" error for `op`.
template <class F>
decltype(auto) dispatch_device(DeviceType t, std::string_view op, F&& f) {
  switch (t) {
    case DeviceType::CPU:
      return f.template operator()<DeviceType::CPU>();
    case DeviceType::CUDA:
      if constexpr (is_compiled_in<DeviceType::CUDA>) return f.template operator()<DeviceType::CUDA>();
      break;
    case DeviceType::Vulkan:
      if constexpr (is_compiled_in<DeviceType::Vulkan>) {
        return f.template operator()<DeviceType::Vulkan>();
      }
      break;
  }
  detail::throw_no_device_kernel(op, t, /*compiled_in=*/false);
}

// A backend's kernel for op tag Op on device D: specialisations have `static void run(...)`.
// The primary template has none.
template <class Op, DeviceType D>
struct DeviceKernel {};

namespace detail {
template <class Op, DeviceType D, class... A>
void run_device_kernel(const A&... a) {
  if constexpr (requires { DeviceKernel<Op, D>::run(a...); }) {
    DeviceKernel<Op, D>::run(a...);
  } else {
    throw_no_device_kernel(Op::name, D, /*compiled_in=*/true);
  }
}
}  // namespace detail

// Runs Op's kernel for device t with the arguments, or raises the "Could not run" error.
template <class Op, class... A>
void call_device_kernel(DeviceType t, const A&... a) {
  dispatch_device(t, Op::name,
                  [&]<DeviceType D>() { detail::run_device_kernel<Op, D>(a...); });
}

// ---- op tags: the ops whose kernel step goes through DeviceKernel -----------------------------
struct CopyOp {  // run(const Tensor& dst, const Tensor& src): one side is on the device
  static constexpr std::string_view name = "aten::copy_";
};
struct FillOp {  // run(const Tensor& self, const Scalar& value)
  static constexpr std::string_view name = "aten::fill_.Scalar";
};

}  // namespace tensorplay
