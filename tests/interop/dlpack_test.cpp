// DLPack interop (interop/dlpack.hpp): the ABI, both export forms, both import forms, storage
// sharing and lifetimes in both directions, deleters run exactly once, and every error path with
// its message. The dtype codes, the exported geometry (data already offset, byte_offset 0, stride
// 1 on dims of size < 2) and the error wording were checked against torch 1.13 (and torch 2.x's
// DLConvertor.cpp for kDLBool and the versioned checks).
#include <tensorplay/interop/dlpack.hpp>

#include <tensorplay/core/empty.hpp>
#include <tensorplay/ops/as_strided.hpp>
#include <tensorplay/ops/views.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace interop_dlpack_test {

using namespace tensorplay;

namespace {

const std::vector<DType> kAllDTypes = {kBool, kByte, kChar,     kShort, kInt,
                                       kLong, kHalf, kBFloat16, kFloat, kDouble};

// A distinct byte pattern per element; bools stay 0/1 so they remain valid bool values.
Tensor filled(std::vector<int64_t> sizes, DType dtype = kFloat) {
  Tensor t = tensorplay::empty(sizes, dtype);
  auto* p = static_cast<uint8_t*>(t.data_ptr());
  for (std::size_t i = 0; i < t.nbytes(); ++i) {
    p[i] = dtype == kBool ? static_cast<uint8_t>(i % 3 == 0) : static_cast<uint8_t>(i * 7 + 3);
  }
  return t;
}

// The bytes of every element in row-major order, read through the tensor's own strides.
std::vector<uint8_t> element_bytes(const Tensor& t) {
  std::vector<uint8_t> out;
  const auto item = static_cast<std::size_t>(t.element_size());
  const auto* base = static_cast<const uint8_t*>(t.data_ptr());
  std::vector<int64_t> index(static_cast<std::size_t>(t.dim()), 0);
  for (int64_t n = 0; n < t.numel(); ++n) {
    int64_t offset = 0;
    for (std::size_t d = 0; d < index.size(); ++d) offset += index[d] * t.strides()[d];
    const uint8_t* p = base + offset * static_cast<int64_t>(item);
    out.insert(out.end(), p, p + item);
    for (auto d = static_cast<int64_t>(index.size()) - 1; d >= 0; --d) {
      if (++index[static_cast<std::size_t>(d)] < t.sizes()[static_cast<std::size_t>(d)]) break;
      index[static_cast<std::size_t>(d)] = 0;
    }
  }
  return out;
}

std::vector<int64_t> vec(const int64_t* p, int32_t n) { return {p, p + n}; }

// A managed tensor built by hand, as a foreign producer would: it owns its buffer and counts the
// calls to its deleter.
template <class Managed>
struct Foreign {
  static inline int deletes = 0;
  std::vector<float> buffer;
  std::vector<int64_t> shape, strides;
  Managed managed{};

  static void deleter(Managed* self) {
    ++deletes;
    delete static_cast<Foreign*>(self->manager_ctx);
  }

  // A float32 [2, 3] CPU tensor over 0, 1, ..., 9 (row-major unless strides are given).
  static Managed* make(std::vector<int64_t> strides = {}) {
    auto* f = new Foreign;
    f->buffer = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
    f->shape = {2, 3};
    f->strides = std::move(strides);
    Managed& m = f->managed;
    m.manager_ctx = f;
    m.deleter = &Foreign::deleter;
    m.dl_tensor.data = f->buffer.data();
    m.dl_tensor.device = {kDLCPU, 0};
    m.dl_tensor.ndim = 2;
    m.dl_tensor.dtype = {kDLFloat, 32, 1};
    m.dl_tensor.shape = f->shape.data();
    m.dl_tensor.strides = f->strides.empty() ? nullptr : f->strides.data();
    m.dl_tensor.byte_offset = 0;
    if constexpr (std::is_same_v<Managed, DLManagedTensorVersioned>) {
      m.version = {1, 0};
      m.flags = 0;
    }
    return &m;
  }
};

using ForeignLegacy = Foreign<DLManagedTensor>;
using ForeignVersioned = Foreign<DLManagedTensorVersioned>;

}  // namespace

TEST_CASE("DLPack ABI declarations match dlpack.h v1.0", "[interop]") {
  CHECK(kDLCPU == 1);
  CHECK(kDLCUDA == 2);
  CHECK(kDLCUDAHost == 3);
  CHECK(kDLVulkan == 7);
  CHECK(kDLROCM == 10);
  CHECK(kDLInt == 0);
  CHECK(kDLUInt == 1);
  CHECK(kDLFloat == 2);
  CHECK(kDLBfloat == 4);
  CHECK(kDLComplex == 5);
  CHECK(kDLBool == 6);
  CHECK(DLPACK_FLAG_BITMASK_READ_ONLY == 1);
  CHECK(DLPACK_FLAG_BITMASK_IS_COPIED == 2);
  CHECK(DLPACK_MAJOR_VERSION == 1);
  STATIC_REQUIRE(sizeof(DLDeviceType) == 4);
  STATIC_REQUIRE(sizeof(DLTensor) == 48);
  STATIC_REQUIRE(sizeof(DLManagedTensor) == 64);
  STATIC_REQUIRE(sizeof(DLManagedTensorVersioned) == 80);
  STATIC_REQUIRE(std::is_same_v<decltype(to_dlpack(Tensor())), DLManagedTensor*>);
  STATIC_REQUIRE(
      std::is_same_v<decltype(to_dlpack_versioned(Tensor())), DLManagedTensorVersioned*>);
}

TEST_CASE("to_dlpack describes every dtype as PyTorch does", "[interop]") {
  struct Row {
    DType dtype;
    uint8_t code;
    uint8_t bits;
  };
  const std::vector<Row> rows = {
      {kBool, kDLBool, 8},     {kByte, kDLUInt, 8},        {kChar, kDLInt, 8},
      {kShort, kDLInt, 16},    {kInt, kDLInt, 32},         {kLong, kDLInt, 64},
      {kHalf, kDLFloat, 16},   {kBFloat16, kDLBfloat, 16}, {kFloat, kDLFloat, 32},
      {kDouble, kDLFloat, 64},
  };
  REQUIRE(rows.size() == kAllDTypes.size());
  for (const Row& r : rows) {
    INFO(r.dtype);
    Tensor t = filled({2, 3}, r.dtype);
    DLManagedTensor* m = to_dlpack(t);
    const DLTensor& dl = m->dl_tensor;
    CHECK(dl.dtype.code == r.code);
    CHECK(dl.dtype.bits == r.bits);
    CHECK(dl.dtype.lanes == 1);
    CHECK(dl.device.device_type == kDLCPU);
    CHECK(dl.device.device_id == 0);
    CHECK(dl.ndim == 2);
    CHECK(vec(dl.shape, dl.ndim) == std::vector<int64_t>{2, 3});
    CHECK(vec(dl.strides, dl.ndim) == std::vector<int64_t>{3, 1});
    CHECK(dl.data == t.data_ptr());
    CHECK(dl.byte_offset == 0);
    CHECK(m->manager_ctx != nullptr);
    m->deleter(m);  // never imported: the deleter alone frees everything (LSan checks)

    DLManagedTensorVersioned* v = to_dlpack_versioned(t);
    CHECK(v->version.major == 1);
    CHECK(v->version.minor == 0);
    CHECK(v->flags == 0);
    CHECK(v->dl_tensor.dtype.code == r.code);
    CHECK(v->dl_tensor.dtype.bits == r.bits);
    CHECK(v->dl_tensor.data == t.data_ptr());
    CHECK(vec(v->dl_tensor.strides, 2) == std::vector<int64_t>{3, 1});
    v->deleter(v);
  }
}

TEST_CASE("from_dlpack(to_dlpack(t)) round-trips every dtype and shares the bytes", "[interop]") {
  for (DType d : kAllDTypes) {
    for (bool versioned : {false, true}) {
      INFO(d << (versioned ? " versioned" : " legacy"));
      Tensor t = filled({2, 3}, d);
      Tensor u = versioned ? from_dlpack(to_dlpack_versioned(t)) : from_dlpack(to_dlpack(t));
      CHECK(u.dtype() == d);
      CHECK(u.device() == Device(kCPU));
      CHECK(u.sizes() == t.sizes());
      CHECK(u.strides() == t.strides());
      CHECK(u.storage_offset() == 0);
      CHECK(u.data_ptr() == t.data_ptr());
      CHECK_FALSE(u.storage().resizable());  // foreign memory: never reallocated by us
      CHECK(u.storage().nbytes() == t.nbytes());
      CHECK(element_bytes(u) == element_bytes(t));
      // Writes are visible both ways (bytes 0 and 1 are valid for every dtype, bool included).
      static_cast<uint8_t*>(u.data_ptr())[0] = 1;
      CHECK(static_cast<uint8_t*>(t.data_ptr())[0] == 1);
      static_cast<uint8_t*>(t.data_ptr())[t.nbytes() - 1] = 0;
      CHECK(static_cast<uint8_t*>(u.data_ptr())[t.nbytes() - 1] == 0);
    }
  }
}

TEST_CASE("DLPack round trips of views keep their geometry", "[interop]") {
  Tensor base = filled({4, 5}, kInt);

  SECTION("transposed") {
    Tensor v = base.t();
    DLManagedTensor* m = to_dlpack(v);
    CHECK(vec(m->dl_tensor.shape, 2) == std::vector<int64_t>{5, 4});
    CHECK(vec(m->dl_tensor.strides, 2) == std::vector<int64_t>{1, 5});
    Tensor u = from_dlpack(m);
    CHECK(u.strides() == std::vector<int64_t>{1, 5});
    CHECK_FALSE(u.is_contiguous());
    CHECK(u.data_ptr() == v.data_ptr());
    CHECK(element_bytes(u) == element_bytes(v));
  }
  SECTION("sliced, with a storage offset: data is already offset, byte_offset is 0") {
    Tensor v = base.slice(0, 1, 3).slice(1, 2, 5);  // [2, 3], strides [5, 1], offset 7
    REQUIRE(v.storage_offset() == 7);
    DLManagedTensorVersioned* m = to_dlpack_versioned(v);
    CHECK(m->dl_tensor.data == static_cast<int32_t*>(base.data_ptr()) + 7);
    CHECK(m->dl_tensor.byte_offset == 0);
    CHECK(vec(m->dl_tensor.strides, 2) == std::vector<int64_t>{5, 1});
    Tensor u = from_dlpack(m);
    CHECK(u.sizes() == std::vector<int64_t>{2, 3});
    CHECK(u.strides() == std::vector<int64_t>{5, 1});
    CHECK(u.storage_offset() == 0);
    CHECK(u.data_ptr() == v.data_ptr());
    CHECK(u.storage().nbytes() == (5 + 2 + 1) * sizeof(int32_t));  // just what the view reaches
    CHECK(element_bytes(u) == element_bytes(v));
    u.data_ptr<int32_t>()[5 + 2] = -42;  // u[1][2] is base[2][4]
    CHECK(base.data_ptr<int32_t>()[2 * 5 + 4] == -42);
  }
  SECTION("expanded: stride 0 is exported and imported as is") {
    Tensor row = filled({3}, kInt);
    Tensor v = row.expand({4, 3});
    DLManagedTensor* m = to_dlpack(v);
    CHECK(vec(m->dl_tensor.strides, 2) == std::vector<int64_t>{0, 1});
    Tensor u = from_dlpack(m);
    CHECK(u.strides() == std::vector<int64_t>{0, 1});
    CHECK(u.storage().nbytes() == 3 * sizeof(int32_t));
    CHECK(element_bytes(u) == element_bytes(v));
  }
  SECTION("dims of size 0 or 1 export stride 1 (PyTorch's gh-83069 normalisation)") {
    Tensor v = base.slice(0, 2, 3).slice(1, 0, 5, 2);  // [1, 3], strides [5, 2]
    DLManagedTensor* m = to_dlpack(v);
    CHECK(vec(m->dl_tensor.strides, 2) == std::vector<int64_t>{1, 2});
    Tensor u = from_dlpack(m);
    CHECK(u.strides() == std::vector<int64_t>{1, 2});
    CHECK(element_bytes(u) == element_bytes(v));
  }
  SECTION("a 0-dim tensor has no shape or strides arrays") {
    Tensor v = base.select(0, 3).select(0, 1);
    DLManagedTensor* m = to_dlpack(v);
    CHECK(m->dl_tensor.ndim == 0);
    CHECK(m->dl_tensor.shape == nullptr);
    CHECK(m->dl_tensor.strides == nullptr);
    Tensor u = from_dlpack(m);
    CHECK(u.dim() == 0);
    CHECK(u.numel() == 1);
    CHECK(*u.data_ptr<int32_t>() == base.data_ptr<int32_t>()[3 * 5 + 1]);
  }
  SECTION("an empty tensor has a NULL data pointer") {
    Tensor v = tensorplay::empty({2, 0}, kInt);
    DLManagedTensorVersioned* m = to_dlpack_versioned(v);
    CHECK(m->dl_tensor.data == nullptr);
    CHECK(vec(m->dl_tensor.shape, 2) == std::vector<int64_t>{2, 0});
    Tensor u = from_dlpack(m);
    CHECK(u.sizes() == std::vector<int64_t>{2, 0});
    CHECK(u.numel() == 0);
    CHECK(u.storage().nbytes() == 0);
  }
}

TEST_CASE("A DLPack export keeps the producer's bytes alive", "[interop]") {
  DLManagedTensor* m = nullptr;
  DLManagedTensorVersioned* mv = nullptr;
  std::vector<uint8_t> expected;
  {
    Tensor t = filled({3, 4}, kDouble);
    expected = element_bytes(t);
    m = to_dlpack(t);
    mv = to_dlpack_versioned(t.t());
  }  // the producer's last handle is gone; only the exports hold the storage
  CHECK(element_bytes(from_dlpack(mv).t()) == expected);  // ASan: the block must still be live

  Tensor u = from_dlpack(m);
  Tensor view = u.slice(1, 1, 3);
  u.reset();
  std::vector<uint8_t> expected_view(48);  // columns 1 and 2 of each of the 3 rows
  for (std::size_t r = 0; r < 3; ++r) {
    std::memcpy(expected_view.data() + r * 16, expected.data() + (r * 4 + 1) * 8, 16);
  }
  CHECK(element_bytes(view) == expected_view);
  CHECK(element_bytes(view.t().t()) == element_bytes(view));
  static_cast<double*>(view.data_ptr())[0] = 1.5;  // still writable memory
  CHECK(static_cast<double*>(view.data_ptr())[0] == 1.5);
}

TEST_CASE("from_dlpack calls the producer's deleter exactly once, when the storage dies",
          "[interop]") {
  SECTION("legacy") {
    ForeignLegacy::deletes = 0;
    Tensor u = from_dlpack(ForeignLegacy::make());
    CHECK(u.sizes() == std::vector<int64_t>{2, 3});
    CHECK(u.strides() == std::vector<int64_t>{3, 1});  // NULL strides: row-major
    CHECK(u.data_ptr<float>()[4] == 4.0f);
    Tensor view = u.t();
    u.reset();
    CHECK(ForeignLegacy::deletes == 0);  // a view still holds the storage
    CHECK(view.data_ptr<float>()[1] == 1.0f);
    view.reset();
    CHECK(ForeignLegacy::deletes == 1);
  }
  SECTION("versioned, with explicit strides") {
    ForeignVersioned::deletes = 0;
    {
      Tensor u = from_dlpack(ForeignVersioned::make({1, 2}));  // column-major [2, 3]
      CHECK(u.strides() == std::vector<int64_t>{1, 2});
      CHECK(u.storage().nbytes() == 6 * sizeof(float));
      CHECK(element_bytes(u).size() == 6 * sizeof(float));
      Tensor copy_of_handle = u;
      CHECK(ForeignVersioned::deletes == 0);
    }
    CHECK(ForeignVersioned::deletes == 1);
  }
  SECTION("through a chain: foreign -> TensorPlay -> DLPack -> TensorPlay") {
    ForeignLegacy::deletes = 0;
    Tensor u = from_dlpack(ForeignLegacy::make());
    DLManagedTensorVersioned* again = to_dlpack_versioned(u.slice(1, 1, 3));
    u.reset();
    CHECK(ForeignLegacy::deletes == 0);  // the export holds u alive
    Tensor w = from_dlpack(again);
    CHECK(w.data_ptr<float>()[0] == 1.0f);
    CHECK(w.strides() == std::vector<int64_t>{3, 1});
    w.reset();  // releases the export, which releases u, which releases the foreign tensor
    CHECK(ForeignLegacy::deletes == 1);
  }
  SECTION("a NULL deleter is allowed: nothing is called") {
    ForeignLegacy::deletes = 0;
    DLManagedTensor* m = ForeignLegacy::make();
    m->deleter = nullptr;
    from_dlpack(m).reset();
    CHECK(ForeignLegacy::deletes == 0);
    delete static_cast<ForeignLegacy*>(m->manager_ctx);  // we kept ownership ourselves
  }
}

TEST_CASE("from_dlpack honours byte_offset, flags, minor versions and devices", "[interop]") {
  SECTION("byte_offset in whole elements") {
    ForeignLegacy::deletes = 0;
    DLManagedTensor* m = ForeignLegacy::make();
    m->dl_tensor.byte_offset = 2 * sizeof(float);
    Tensor u = from_dlpack(m);
    CHECK(u.data_ptr<float>()[0] == 2.0f);
    CHECK(u.data_ptr<float>()[5] == 7.0f);
    u.reset();
    CHECK(ForeignLegacy::deletes == 1);
  }
  SECTION("byte_offset that is not a multiple of the element size") {
    std::vector<uint8_t> bytes = {10, 11, 12, 13, 14, 15, 16};
    int64_t shape[] = {2, 2};
    DLManagedTensor m{};
    m.dl_tensor.data = bytes.data();
    m.dl_tensor.device = {kDLCPU, 0};
    m.dl_tensor.ndim = 2;
    m.dl_tensor.dtype = {kDLUInt, 8, 1};
    m.dl_tensor.shape = shape;
    m.dl_tensor.byte_offset = 3;
    Tensor u = from_dlpack(&m);  // deleter NULL: the stack owns everything
    CHECK(u.dtype() == kByte);
    CHECK(element_bytes(u) == std::vector<uint8_t>{13, 14, 15, 16});
  }
  SECTION("read-only and is-copied flags and a newer minor version are accepted") {
    ForeignVersioned::deletes = 0;
    DLManagedTensorVersioned* m = ForeignVersioned::make();
    m->flags = DLPACK_FLAG_BITMASK_READ_ONLY | DLPACK_FLAG_BITMASK_IS_COPIED;
    m->version.minor = 7;
    Tensor u = from_dlpack(m);
    CHECK(u.data_ptr<float>()[3] == 3.0f);
    u.reset();
    CHECK(ForeignVersioned::deletes == 1);
  }
  SECTION("a negative stride on a dim of size 1 means nothing and is accepted") {
    ForeignLegacy::deletes = 0;
    DLManagedTensor* m = ForeignLegacy::make({-7, 1});
    auto* f = static_cast<ForeignLegacy*>(m->manager_ctx);
    f->shape = {1, 3};
    m->dl_tensor.shape = f->shape.data();
    Tensor u = from_dlpack(m);
    CHECK(u.strides() == std::vector<int64_t>{1, 1});
    CHECK(element_bytes(u).size() == 3 * sizeof(float));
  }
  SECTION("CUDA and Vulkan tensors keep their device and index, without touching the bytes") {
    ForeignLegacy::deletes = 0;
    DLManagedTensor* m = ForeignLegacy::make();
    m->dl_tensor.device = {kDLCUDA, 1};
    Tensor u = from_dlpack(m);
    CHECK(u.device() == Device(kCUDA, 1));
    CHECK(u.storage().device() == Device(kCUDA, 1));
    DLManagedTensor* back = to_dlpack(u);
    CHECK(back->dl_tensor.device.device_type == kDLCUDA);
    CHECK(back->dl_tensor.device.device_id == 1);
    back->deleter(back);

    DLManagedTensorVersioned* mv = ForeignVersioned::make();
    mv->dl_tensor.device = {kDLVulkan, 0};
    Tensor w = from_dlpack(mv);
    CHECK(w.device() == Device(kVulkan, 0));
    DLManagedTensorVersioned* wb = to_dlpack_versioned(w);
    CHECK(wb->dl_tensor.device.device_type == kDLVulkan);
    CHECK(wb->dl_tensor.device.device_id == 0);
    wb->deleter(wb);
  }
  SECTION("to_dlpack of a device tensor without an index reports device 0") {
    float x = 1.0f;
    Tensor t = from_blob(&x, {1}, TensorOptions().device(Device(kCUDA)));
    DLManagedTensor* m = to_dlpack(t);
    CHECK(m->dl_tensor.device.device_type == kDLCUDA);
    CHECK(m->dl_tensor.device.device_id == 0);
    m->deleter(m);
  }
}

namespace {

// Expects from_dlpack(m) to throw E with exactly `message`, and to leave m to the caller: the
// deleter has not run, and running it now (as the caller must) is the first and only call.
template <class E, class Managed>
void check_refused(Managed* m, const std::string& message) {
  Foreign<Managed>::deletes = 0;
  CHECK_THROWS_MATCHES(from_dlpack(m), E, Catch::Message(message));
  CHECK(Foreign<Managed>::deletes == 0);
  m->deleter(m);
  CHECK(Foreign<Managed>::deletes == 1);
}

template <class Managed>
void check_dtype_errors() {
  auto with_dtype = [](uint8_t code, uint8_t bits, uint16_t lanes = 1) {
    Managed* m = Foreign<Managed>::make();
    m->dl_tensor.dtype = {code, bits, lanes};
    return m;
  };
  check_refused<Error>(with_dtype(kDLFloat, 32, 2), "TensorPlay does not support lanes != 1");
  check_refused<Error>(with_dtype(kDLUInt, 16), "Unsupported kUInt bits 16");
  check_refused<Error>(with_dtype(kDLUInt, 64), "Unsupported kUInt bits 64");
  check_refused<Error>(with_dtype(kDLInt, 1), "Unsupported kInt bits 1");
  check_refused<Error>(with_dtype(kDLInt, 128), "Unsupported kInt bits 128");
  check_refused<Error>(with_dtype(kDLFloat, 8), "Unsupported kFloat bits 8");
  check_refused<Error>(with_dtype(kDLBfloat, 32), "Unsupported kFloat bits 32");  // torch's text
  check_refused<Error>(with_dtype(kDLBool, 16), "Unsupported kDLBool bits 16");
  check_refused<Error>(with_dtype(kDLOpaqueHandle, 64), "Unsupported code 3");
  check_refused<Error>(with_dtype(kDLComplex, 64), "Unsupported code 5");
  check_refused<Error>(with_dtype(9, 8), "Unsupported code 9");
}

template <class Managed>
void check_geometry_and_device_errors() {
  using F = Foreign<Managed>;
  Managed* m = F::make();
  m->dl_tensor.device = {kDLCUDAHost, 0};
  check_refused<Error>(m, "Unsupported device_type: 3");
  m = F::make();
  m->dl_tensor.device = {kDLOpenCL, 0};
  check_refused<Error>(m, "Unsupported device_type: 4");
  m = F::make();
  m->dl_tensor.device = {kDLCUDA, 128};
  check_refused<ValueError>(
      m, "from_dlpack: device_id 128 is out of range for device type cuda (expected 0 to 127)");
  m = F::make();
  m->dl_tensor.device = {kDLVulkan, -1};
  check_refused<ValueError>(
      m, "from_dlpack: device_id -1 is out of range for device type vulkan (expected 0 to 127)");

  m = F::make();
  m->dl_tensor.ndim = -1;
  check_refused<ValueError>(m, "from_dlpack: ndim must be non-negative, got -1");
  m = F::make();
  m->dl_tensor.shape = nullptr;
  check_refused<ValueError>(m, "from_dlpack: shape is NULL for a tensor of 2 dimensions");
  m = F::make();
  static_cast<F*>(m->manager_ctx)->shape[0] = -1;
  check_refused<Error>(m, "Trying to create tensor with negative dimension -1: [-1, 3]");
  m = F::make({3, -1});
  check_refused<ValueError>(
      m,
      "At least one stride in the given DLPack tensor is negative, and tensors with negative "
      "strides are not currently supported. (You can probably work around this by making a copy "
      "of the tensor first.) Got strides [3, -1] for shape [2, 3]");
  m = F::make();
  m->dl_tensor.data = nullptr;
  check_refused<ValueError>(m,
                            "from_dlpack: the data pointer is NULL but the tensor has shape "
                            "[2, 3]");
}

}  // namespace

TEST_CASE("from_dlpack refuses what TensorPlay cannot represent, leaving ownership alone",
          "[interop]") {
  SECTION("dtypes, legacy") { check_dtype_errors<DLManagedTensor>(); }
  SECTION("dtypes, versioned") { check_dtype_errors<DLManagedTensorVersioned>(); }
  SECTION("geometry and devices, legacy") { check_geometry_and_device_errors<DLManagedTensor>(); }
  SECTION("geometry and devices, versioned") {
    check_geometry_and_device_errors<DLManagedTensorVersioned>();
  }
  SECTION("a newer major version is refused before any other field is read") {
    DLManagedTensorVersioned* m = ForeignVersioned::make();
    m->version = {2, 0};
    m->dl_tensor.dtype = {kDLComplex, 64, 4};  // would fail later; the version check comes first
    check_refused<Error>(
        m, "unsupported DLPack capsule major version: 2. Maximum supported version: 1");
  }
  SECTION("NULL managed tensors") {
    CHECK_THROWS_MATCHES(from_dlpack(static_cast<DLManagedTensor*>(nullptr)), ValueError,
                         Catch::Message("from_dlpack: received a NULL DLManagedTensor"));
    CHECK_THROWS_MATCHES(from_dlpack(static_cast<DLManagedTensorVersioned*>(nullptr)), ValueError,
                         Catch::Message("from_dlpack: received a NULL DLManagedTensorVersioned"));
  }
  SECTION("to_dlpack of an undefined tensor") {
    CHECK_THROWS_MATCHES(to_dlpack(Tensor()), Error,
                         Catch::Message("to_dlpack: cannot pack an undefined tensor"));
    CHECK_THROWS_MATCHES(to_dlpack_versioned(Tensor()), Error,
                         Catch::Message("to_dlpack: cannot pack an undefined tensor"));
  }
}

}  // namespace interop_dlpack_test
