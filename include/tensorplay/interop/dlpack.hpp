// DLPack interop: zero-copy exchange of tensors with other frameworks (NumPy, PyTorch, CuPy,
// JAX, ...) through the DLPack C ABI, legacy (DLManagedTensor) and versioned
// (DLManagedTensorVersioned, DLPack >= 1.0). Pure C++: the Python capsule protocol
// (__dlpack__, "dltensor" / "used_dltensor" names) belongs to the binding, which calls these.
//
// Ownership, as the DLPack spec and PyTorch define it:
//  - to_dlpack / to_dlpack_versioned return a managed tensor that holds a strong reference to
//    the source tensor, so its bytes stay alive until the consumer calls `deleter` (exactly once;
//    the deleter frees the managed tensor too). Resizing the source's storage in the meantime
//    (resize_ to a larger size) swaps its block and leaves the consumer dangling, as in PyTorch.
//  - from_dlpack takes ownership on success only: the new tensor's storage calls the managed
//    tensor's deleter once, when the last tensor or view of it dies. If from_dlpack throws, the
//    caller still owns the managed tensor and must release it itself (PyTorch semantics: the
//    capsule stays unconsumed and its destructor calls the deleter).
//
// The ABI declarations: if <dlpack/dlpack.h> was included first, its types are used. Otherwise
// this header declares the DLPack v1.0 names itself, ABI-identical and with the standard names,
// and claims dlpack.h's include guard so that a later #include <dlpack/dlpack.h> is a no-op
// instead of a redefinition. Code that needs names newer than v1.0 (the float8 type codes, say)
// must include the real dlpack.h before this header.
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

#include <tensorplay/core/device.hpp>
#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/empty.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/storage.hpp>
#include <tensorplay/core/tensor.hpp>

#if defined(DLPACK_DLPACK_H_) && !defined(DLPACK_MAJOR_VERSION)
// A pre-1.0 dlpack.h (PyTorch 1.x ships one as ATen/dlpack.h) has no versioned tensor.
#error "tensorplay/interop/dlpack.hpp needs dlpack.h >= 1.0; a pre-1.0 one was included first"
#elif !defined(DLPACK_MAJOR_VERSION)
#define DLPACK_DLPACK_H_
#define TENSORPLAY_DLPACK_OWN_DECLARATIONS 1

#define DLPACK_EXTERN_C extern "C"
#define DLPACK_MAJOR_VERSION 1
#define DLPACK_MINOR_VERSION 0
#define DLPACK_DLL

#define DLPACK_FLAG_BITMASK_READ_ONLY (1UL << 0UL)
#define DLPACK_FLAG_BITMASK_IS_COPIED (1UL << 1UL)

extern "C" {

typedef struct {
  uint32_t major;
  uint32_t minor;
} DLPackVersion;

typedef enum : int32_t {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLOpenCL = 4,
  kDLVulkan = 7,
  kDLMetal = 8,
  kDLVPI = 9,
  kDLROCM = 10,
  kDLROCMHost = 11,
  kDLExtDev = 12,
  kDLCUDAManaged = 13,
  kDLOneAPI = 14,
  kDLWebGPU = 15,
  kDLHexagon = 16,
  kDLMAIA = 17,
} DLDeviceType;

typedef struct {
  DLDeviceType device_type;
  int32_t device_id;
} DLDevice;

typedef enum {
  kDLInt = 0U,
  kDLUInt = 1U,
  kDLFloat = 2U,
  kDLOpaqueHandle = 3U,
  kDLBfloat = 4U,
  kDLComplex = 5U,
  kDLBool = 6U,
} DLDataTypeCode;

typedef struct {
  uint8_t code;  // a DLDataTypeCode, stored narrow for the footprint
  uint8_t bits;
  uint16_t lanes;
} DLDataType;

typedef struct {
  void* data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t* shape;
  int64_t* strides;  // in elements; NULL means compact row-major
  uint64_t byte_offset;
} DLTensor;

typedef struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensor* self);
} DLManagedTensor;

typedef struct DLManagedTensorVersioned {
  DLPackVersion version;
  void* manager_ctx;
  void (*deleter)(struct DLManagedTensorVersioned* self);
  uint64_t flags;
  DLTensor dl_tensor;
} DLManagedTensorVersioned;

}  // extern "C"
#endif  // DLPACK_MAJOR_VERSION

static_assert(DLPACK_MAJOR_VERSION == 1,
              "tensorplay/interop/dlpack.hpp implements the DLPack 1.x ABI; the included "
              "dlpack.h declares another major version");

// The layout is the contract with the other side, so pin it where the C ABI is the usual LP64
// one (every platform we build on).
#if UINTPTR_MAX == UINT64_MAX
static_assert(sizeof(DLDevice) == 8 && sizeof(DLDataType) == 4);
static_assert(sizeof(DLTensor) == 48 && offsetof(DLTensor, device) == 8 &&
              offsetof(DLTensor, ndim) == 16 && offsetof(DLTensor, dtype) == 20 &&
              offsetof(DLTensor, shape) == 24 && offsetof(DLTensor, strides) == 32 &&
              offsetof(DLTensor, byte_offset) == 40);
static_assert(sizeof(DLManagedTensor) == 64 && offsetof(DLManagedTensor, manager_ctx) == 48 &&
              offsetof(DLManagedTensor, deleter) == 56);
static_assert(sizeof(DLManagedTensorVersioned) == 80 &&
              offsetof(DLManagedTensorVersioned, manager_ctx) == 8 &&
              offsetof(DLManagedTensorVersioned, deleter) == 16 &&
              offsetof(DLManagedTensorVersioned, flags) == 24 &&
              offsetof(DLManagedTensorVersioned, dl_tensor) == 32);
#endif

namespace tensorplay {

// The version to_dlpack_versioned stamps: what the fields we fill mean, whatever dlpack.h the
// program includes.
inline constexpr uint32_t kDLPackMajorVersion = 1;
inline constexpr uint32_t kDLPackMinorVersion = 0;

namespace detail {

inline DLDataType dlpack_dtype(DType dtype) {
  DLDataType out{};
  out.bits = static_cast<uint8_t>(itemsize(dtype) * 8);
  out.lanes = 1;
  switch (dtype) {
    case DType::Bool: out.code = kDLBool; break;
    case DType::UInt8: out.code = kDLUInt; break;
    case DType::Int8:
    case DType::Int16:
    case DType::Int32:
    case DType::Int64: out.code = kDLInt; break;
    case DType::Float16:
    case DType::Float32:
    case DType::Float64: out.code = kDLFloat; break;
    case DType::BFloat16: out.code = kDLBfloat; break;
    default: TP_ERROR("to_dlpack: invalid dtype value ", static_cast<int>(dtype));
  }
  return out;
}

inline DLDevice dlpack_device(Device device) {
  DLDevice out{};
  // CPU memory is device 0 in DLPack; an accelerator tensor without an index is on the
  // default device, which is 0 as well.
  out.device_id = device.is_cpu() ? 0 : (device.has_index() ? device.index() : 0);
  switch (device.type()) {
    case DeviceType::CPU: out.device_type = kDLCPU; break;
    case DeviceType::CUDA: out.device_type = kDLCUDA; break;
    case DeviceType::Vulkan: out.device_type = kDLVulkan; break;
    default: TP_ERROR("Cannot pack tensors on ", device.str());
  }
  return out;
}

// PyTorch's toScalarType wording, including its quirk of calling bfloat16 widths kFloat.
inline DType dtype_from_dlpack(const DLDataType& dtype) {
  TP_CHECK(dtype.lanes == 1, "TensorPlay does not support lanes != 1");
  const int bits = dtype.bits;
  switch (dtype.code) {
    case kDLUInt: TP_CHECK(bits == 8, "Unsupported kUInt bits ", bits); return DType::UInt8;
    case kDLInt:
      switch (bits) {
        case 8: return DType::Int8;
        case 16: return DType::Int16;
        case 32: return DType::Int32;
        case 64: return DType::Int64;
        default: TP_ERROR("Unsupported kInt bits ", bits);
      }
    case kDLFloat:
      switch (bits) {
        case 16: return DType::Float16;
        case 32: return DType::Float32;
        case 64: return DType::Float64;
        default: TP_ERROR("Unsupported kFloat bits ", bits);
      }
    case kDLBfloat: TP_CHECK(bits == 16, "Unsupported kFloat bits ", bits); return DType::BFloat16;
    case kDLBool: TP_CHECK(bits == 8, "Unsupported kDLBool bits ", bits); return DType::Bool;
    default: TP_ERROR("Unsupported code ", static_cast<int>(dtype.code));
  }
}

inline Device device_from_dlpack(const DLDevice& device) {
  DeviceType type{};
  switch (device.device_type) {
    case kDLCPU: return Device(DeviceType::CPU);  // device_id carries nothing for host memory
    case kDLCUDA: type = DeviceType::CUDA; break;
    case kDLVulkan: type = DeviceType::Vulkan; break;
    default: TP_ERROR("Unsupported device_type: ", static_cast<int>(device.device_type));
  }
  TP_CHECK_VALUE(device.device_id >= 0 && device.device_id <= 127, "from_dlpack: device_id ",
                 device.device_id, " is out of range for device type ", device_type_name(type),
                 " (expected 0 to 127)");
  return Device(type, static_cast<DeviceIndex>(device.device_id));
}

// What a managed tensor we produce points at: the source tensor (kept alive) and the shape and
// strides arrays the DLTensor borrows, all freed by the deleter in one delete.
template <class Managed>
struct DLPackExportContext {
  Tensor handle;
  std::vector<int64_t> shape_and_strides;  // ndim sizes, then ndim strides
  Managed managed{};

  static void deleter(Managed* self) {
    delete static_cast<DLPackExportContext*>(self->manager_ctx);
  }
};

template <class Managed>
Managed* to_dlpack_impl(const Tensor& src) {
  TP_CHECK(src.defined(), "to_dlpack: cannot pack an undefined tensor");
  const DLDataType dtype = dlpack_dtype(src.dtype());
  const DLDevice device = dlpack_device(src.device());
  const IntArrayRef sizes = src.sizes();
  const IntArrayRef strides = src.strides();
  const std::size_t ndim = sizes.size();

  auto* ctx = new DLPackExportContext<Managed>{src, std::vector<int64_t>(2 * ndim), Managed{}};
  for (std::size_t i = 0; i < ndim; ++i) {
    ctx->shape_and_strides[i] = sizes[i];
    // A dimension of size 0 or 1 is never stepped over, so its stride is arbitrary; PyTorch
    // exports 1 there (gh-83069) because some consumers test contiguity on the raw strides.
    ctx->shape_and_strides[ndim + i] = sizes[i] < 2 ? 1 : strides[i];
  }
  Managed& m = ctx->managed;
  m.manager_ctx = ctx;
  m.deleter = &DLPackExportContext<Managed>::deleter;
  DLTensor& dl = m.dl_tensor;
  // The first element's address with byte_offset 0, as PyTorch exports: consumers that ignore
  // byte_offset (several do) still read the right bytes.
  // The raw address (data_ptr() refuses device memory): a device tensor exports its device's
  // address, which only that device's code may dereference.
  dl.data = src.unsafeGetTensorImpl()->data();
  dl.device = device;
  dl.ndim = static_cast<int32_t>(ndim);
  dl.dtype = dtype;
  dl.shape = ndim ? ctx->shape_and_strides.data() : nullptr;
  dl.strides = ndim ? ctx->shape_and_strides.data() + ndim : nullptr;
  dl.byte_offset = 0;
  if constexpr (std::is_same_v<Managed, DLManagedTensorVersioned>) {
    m.version.major = kDLPackMajorVersion;
    m.version.minor = kDLPackMinorVersion;
    m.flags = 0;
  }
  return &m;
}

// The storage's deleter: hands the managed tensor back to its producer.
template <class Managed>
void release_dlpack(void* ctx) {
  auto* managed = static_cast<Managed*>(ctx);
  if (managed->deleter) managed->deleter(managed);  // DLPack allows a NULL deleter
}

template <class Managed>
Tensor from_dlpack_impl(Managed* src) {
  const DLTensor& dl = src->dl_tensor;
  const Device device = device_from_dlpack(dl.device);
  const DType dtype = dtype_from_dlpack(dl.dtype);
  TP_CHECK_VALUE(dl.ndim >= 0, "from_dlpack: ndim must be non-negative, got ", dl.ndim);
  TP_CHECK_VALUE(dl.ndim == 0 || dl.shape != nullptr, "from_dlpack: shape is NULL for a tensor of ",
                 dl.ndim, " dimensions");
  const IntArrayRef sizes(dl.shape, static_cast<std::size_t>(dl.ndim));
  std::vector<int64_t> strides;
  if (dl.strides == nullptr) {
    strides = SizesAndStrides::compute_contiguous_strides(sizes);
  } else {
    strides.assign(dl.strides, dl.strides + dl.ndim);
    for (std::size_t i = 0; i < strides.size(); ++i) {
      if (sizes[i] < 2 && strides[i] < 0) {
        strides[i] = 1;  // never stepped over, so a negative value here is harmless
      } else {
        TP_CHECK_VALUE(strides[i] >= 0,
                       "At least one stride in the given DLPack tensor is negative, and tensors "
                       "with negative strides are not currently supported. (You can probably "
                       "work around this by making a copy of the tensor first.) Got strides ",
                       IntArrayRef(strides), " for shape ", sizes);
      }
    }
  }
  const std::size_t nbytes = storage_nbytes(sizes, strides, itemsize(dtype));
  // byte_offset is applied to the pointer, not turned into a storage offset: it need not be a
  // multiple of the element size.
  void* data = dl.data ? static_cast<char*>(dl.data) + dl.byte_offset : nullptr;
  TP_CHECK_VALUE(data != nullptr || nbytes == 0,
                 "from_dlpack: the data pointer is NULL but the tensor has shape ", sizes);

  // Every allocation happens while the storage does not yet own the managed tensor, and the
  // owning DataPtr is installed last by a noexcept swap: if anything above throws, the caller
  // still owns `src` and nothing has called its deleter.
  Storage storage(use_byte_size, nbytes, DataPtr(data, device));
  Tensor out = make_tensor(storage, dtype, sizes, strides);
  storage.set_data_ptr(DataPtr(data, src, &release_dlpack<Managed>, device));
  return out;
}

}  // namespace detail

// Exports `src` without copying (torch.utils.dlpack.to_dlpack / at::toDLPack). The result must
// be released by calling its deleter exactly once (directly, or by handing it to a consumer
// such as from_dlpack). Strides are in elements; dims of size 0 or 1 report stride 1.
inline DLManagedTensor* to_dlpack(const Tensor& src) {
  return detail::to_dlpack_impl<DLManagedTensor>(src);
}

// The DLPack >= 1.0 form: version {1, 0}, flags 0 (writable, not a copy).
inline DLManagedTensorVersioned* to_dlpack_versioned(const Tensor& src) {
  return detail::to_dlpack_impl<DLManagedTensorVersioned>(src);
}

// Imports a managed tensor without copying (torch.utils.dlpack.from_dlpack / at::fromDLPack).
// On success the returned tensor owns `src` (its deleter runs once, when the last alias of the
// storage dies); on error nothing is taken and the caller must still release `src`.
// byte_offset is honoured; NULL strides mean row-major; negative strides are refused (TensorPlay
// has none) except on dims of size 0 or 1, where they mean nothing.
inline Tensor from_dlpack(DLManagedTensor* src) {
  TP_CHECK_VALUE(src != nullptr, "from_dlpack: received a NULL DLManagedTensor");
  return detail::from_dlpack_impl(src);
}

// As above, for DLPack >= 1.0. A major version above 1 is refused before any other field is
// read (the layout past `flags` may differ). DLPACK_FLAG_BITMASK_READ_ONLY is accepted, as
// PyTorch accepts it: the resulting tensor is writable and writing through it is the caller's
// responsibility. DLPACK_FLAG_BITMASK_IS_COPIED needs no handling.
inline Tensor from_dlpack(DLManagedTensorVersioned* src) {
  TP_CHECK_VALUE(src != nullptr, "from_dlpack: received a NULL DLManagedTensorVersioned");
  TP_CHECK(src->version.major <= kDLPackMajorVersion,
           "unsupported DLPack capsule major version: ", src->version.major,
           ". Maximum supported version: ", kDLPackMajorVersion);
  return detail::from_dlpack_impl(src);
}

}  // namespace tensorplay
