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

#include <cstdint>
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

// Whether device type t's backend is compiled in (is_compiled_in, at run time).
constexpr bool backend_compiled_in(DeviceType t) noexcept {
  switch (t) {
    case DeviceType::CPU: return true;
    case DeviceType::CUDA: return is_compiled_in<DeviceType::CUDA>;
    case DeviceType::Vulkan: return is_compiled_in<DeviceType::Vulkan>;
  }
  return false;
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

// A CPU kernel's guard: a defined tensor of another device among `ts` gets the dispatch
// point's error for 'aten::<op>' (every op without device kernels calls it before touching
// memory).
template <class... Ts>
void check_host_only(std::string_view op, const Ts&... ts) {
  auto one = [&](const auto& t) {
    if (t.defined() && !t.is_cpu()) {
      throw_no_device_kernel(str_cat("aten::", op), t.device().type(),
                             backend_compiled_in(t.device().type()));
    }
  };
  (one(ts), ...);
}

// A CPU loop asked to run over tensors of another device: the op has no kernel there, or the
// device's backend is not compiled in at all.
[[noreturn, gnu::cold, gnu::noinline]] inline void throw_no_device_loop(Device d) {
  if (!backend_compiled_in(d.type())) {
    throw_error<NotImplementedError>(
        "Could not run this operation with arguments from the '", backend_name(d.type()),
        "' backend. TensorPlay was compiled without it: define ", device_feature_macro(d.type()),
        " (link the matching tensorplay:: target)");
  }
  throw_error<NotImplementedError>(
      "Could not run this operation with arguments from the '", backend_name(d.type()),
      "' backend: TensorPlay's ", backend_name(d.type()),
      " backend has no kernel for it yet; move the tensors with .cpu() first");
}

// The same for an op known by its CPU kernel's name ("sign_cpu" is PyTorch's 'aten::sign').
[[noreturn, gnu::cold, gnu::noinline]] inline void throw_no_device_op(std::string_view kernel,
                                                                      Device d) {
  if (kernel.ends_with("_cpu")) kernel.remove_suffix(4);
  throw_no_device_kernel(str_cat("aten::", kernel), d.type(), backend_compiled_in(d.type()));
}
}  // namespace detail

#if !TENSORPLAY_USE_VULKAN
// libtorch's at::is_vulkan_available(): whether Vulkan tensors can be made. Without the Vulkan
// backend compiled in, never (backends/vulkan/context.hpp defines it otherwise).
inline bool is_vulkan_available() noexcept { return false; }
#endif
#if !TENSORPLAY_USE_CUDA
// libtorch's torch::cuda::is_available() and device_count(): without the CUDA backend compiled
// in, no devices (backends/cuda/runtime.hpp defines them otherwise).
namespace cuda {
inline bool is_available() noexcept { return false; }
inline DeviceIndex device_count() noexcept { return 0; }
}  // namespace cuda
#endif

// Calls f.template operator()<D>() for the run-time device type t; a device that is not compiled
// in gets PyTorch's "Could not run" error for `op`.
template <class F>
decltype(auto) dispatch_device(DeviceType t, std::string_view op, F&& f) {
  switch (t) {
    case DeviceType::CPU: return f.template operator()<DeviceType::CPU>();
    case DeviceType::CUDA:
      if constexpr (is_compiled_in<DeviceType::CUDA>)
        return f.template operator()<DeviceType::CUDA>();
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
void run_device_kernel(std::string_view name, const A&... a) {
  if constexpr (requires { DeviceKernel<Op, D>::run(a...); }) {
    DeviceKernel<Op, D>::run(a...);
  } else {
    throw_no_device_kernel(name, D, /*compiled_in=*/true);
  }
}
}  // namespace detail

// Runs Op's kernel for device t with the arguments, or raises the "Could not run" error naming
// `name` (an op tag shared by several ops: reductions, products) or Op::name.
template <class Op, class... A>
void call_device_kernel_as(DeviceType t, std::string_view name, const A&... a) {
  dispatch_device(t, name, [&]<DeviceType D>() { detail::run_device_kernel<Op, D>(name, a...); });
}
template <class Op, class... A>
void call_device_kernel(DeviceType t, const A&... a) {
  call_device_kernel_as<Op>(t, Op::name, a...);
}

// Runs Op's kernel for device t when its backend has one and returns true; false when it has
// none (the caller takes its general path). A device that is not compiled in raises the error.
namespace detail {
template <class Op, DeviceType D, class... A>
bool run_device_kernel_if_any(const A&... a) {
  if constexpr (requires { DeviceKernel<Op, D>::run(a...); }) {
    DeviceKernel<Op, D>::run(a...);
    return true;
  } else {
    return false;
  }
}
}  // namespace detail
template <class Op, class... A>
bool try_device_kernel(DeviceType t, const A&... a) {
  return dispatch_device(
      t, Op::name, [&]<DeviceType D>() { return detail::run_device_kernel_if_any<Op, D>(a...); });
}

// ---- op tags: the ops whose kernel step goes through DeviceKernel -----------------------------
struct CopyOp {  // run(const Tensor& dst, const Tensor& src): one side is on the device
  static constexpr std::string_view name = "aten::copy_";
};
// copy_(src, non_blocking=true), run(const Tensor& dst, const Tensor& src): a copy that may
// return before it completes (with pinned host memory); optional: a backend without it gets the
// blocking CopyOp.
struct NonBlockingCopyOp {
  static constexpr std::string_view name = "aten::copy_";
};
struct FillOp {  // run(const Tensor& self, const Scalar& value)
  static constexpr std::string_view name = "aten::fill_.Scalar";
};

// Reductions over a set of dimensions: run(const Tensor& result, const Tensor& self,
// std::uint64_t dims, ReduceCode code), dims one bit per reduced dimension of self, result of
// self's rank with size 1 along them (keepdim's shape; any layout), in the op's result dtype
// (int64 for the arg reductions). Argmax/Argmin give the first index of the extreme (of the
// first NaN, if any), as PyTorch.
enum class ReduceCode : std::uint32_t { Sum, Mean, Prod, Amax, Amin, Argmax, Argmin };
struct ReduceOp {};

// cumsum / cumprod along one dimension: run(const Tensor& result, const Tensor& self,
// int64_t dim, bool prod), result of self's shape and dtype (int64, float32 or float64: the
// front end's compute dtype; float32 accumulates in float64, as the CPU's); result may be self.
struct ScanOp {};

// Random numbers from the device's own generator (CUDA: counter-based Philox), for rand/randn
// and their *_like forms without an explicit generator: run(const Tensor& self, bool normal,
// double a, double b) fills self (a floating dtype) uniformly on [a, b), or normally with mean a
// and standard deviation b. Optional: without it, values are drawn on the host.
struct RandomOp {
  static constexpr std::string_view name = "aten::uniform_";
};

// softmax / log_softmax along one dimension: run(const Tensor& result, const Tensor& self,
// int64_t dim, bool log), result of self's shape and dtype.
struct SoftmaxOp {};

// Matrix products (mm, mv, bmm, addmm, baddbmm, matmul, linear...): run(const ProductArgs&),
// the arguments of ops/linalg.hpp's product_into.
struct ProductOp {};

// Elementwise ops: one tag, the op chosen by a code. run(const TensorIterator& iter,
// PointwiseCode code, double s0, double s1) computes iter's output 0 from its inputs, all on the
// device but CPU 0-d inputs (wrapped numbers), in iter's dtypes; s0/s1 are the code's scalars.
// The front end (ops/tensor_iterator.hpp's pointwise_on_device) finishes the iterator.
struct PointwiseOp {};
#define TENSORPLAY_POINTWISE_CODES_(X)                                                            \
  /* binary: out = f(in0, in1); add/sub: in0 + s0 * in1 */                                        \
  X(Add, "add")                                                                                   \
  X(Sub, "sub")                                                                                   \
  X(Mul, "mul")                                                                                   \
  X(Div, "div") X(Maximum, "maximum") X(Minimum, "minimum") X(Pow, "pow") X(Eq, "eq") X(Ne, "ne") \
      X(Lt, "lt") X(Le, "le") X(Gt, "gt") X(Ge, "ge") X(Atan2, "atan2") X(Remainder, "remainder") \
          X(Fmod, "fmod") X(DivTrunc, "div")                                                      \
              X(DivFloor, "div") /* ternary: out = in0 ? in1 : in2 */                             \
      X(Where, "where")          /* unary; clamp: min(max(x, s0), s1) */                          \
      X(Neg, "neg") X(Abs, "abs") X(Exp, "exp") X(Log, "log") X(Sqrt, "sqrt") X(Rsqrt, "rsqrt")   \
          X(Tanh, "tanh") X(Sigmoid, "sigmoid") X(Relu, "relu") X(Gelu, "gelu")                   \
              X(GeluTanh, "gelu") X(Silu, "silu") X(Sin, "sin") X(Cos, "cos") X(Clamp, "clamp")   \
                  X(Reciprocal, "reciprocal") X(Square, "square") X(Tan, "tan") X(Asin, "asin")   \
                      X(Acos, "acos") X(Atan, "atan") X(Sinh, "sinh") X(Cosh, "cosh")             \
                          X(Exp2, "exp2") X(Expm1, "expm1") X(Log2, "log2") X(Log10, "log10")     \
                              X(Log1p, "log1p") X(Erf, "erf") X(Floor, "floor") X(Ceil, "ceil")   \
                                  X(Trunc, "trunc") X(Round, "round")
enum class PointwiseCode : std::uint32_t {
#define TENSORPLAY_POINTWISE_ENUM_(code, name) code,
  TENSORPLAY_POINTWISE_CODES_(TENSORPLAY_POINTWISE_ENUM_)
#undef TENSORPLAY_POINTWISE_ENUM_
      None  // an op no device has a kernel for
};
// The op's name in PyTorch's messages ("aten::add").
constexpr std::string_view pointwise_name(PointwiseCode code) noexcept {
  switch (code) {
#define TENSORPLAY_POINTWISE_NAME_(code, name) \
  case PointwiseCode::code: return "aten::" name;
    TENSORPLAY_POINTWISE_CODES_(TENSORPLAY_POINTWISE_NAME_)
#undef TENSORPLAY_POINTWISE_NAME_
    case PointwiseCode::None: break;
  }
  return "aten::<elementwise>";
}
#undef TENSORPLAY_POINTWISE_CODES_
// An elementwise functor's code: its static member kDevice, or None.
template <class Op>
constexpr PointwiseCode pointwise_code_of() noexcept {
  if constexpr (requires { Op::kDevice; }) {
    return Op::kDevice;
  } else {
    return PointwiseCode::None;
  }
}

}  // namespace tensorplay

// The opt-in backends' kernels, declared (their headers define them): every file that dispatches
// sees the same specialisations of DeviceKernel.
#if TENSORPLAY_USE_VULKAN
#include <tensorplay/backends/vulkan/device_kernels.hpp>
#endif
#if TENSORPLAY_USE_CUDA
#include <tensorplay/backends/cuda/device_kernels.hpp>
#endif
