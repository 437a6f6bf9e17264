// safetensors: Hugging Face's tensor file format, read zero-copy through a memory mapping.
//
//   auto weights = tensorplay::safetensors::load_file("model.safetensors");
//   tensorplay::safetensors::save_file({{"w", w}, {"b", b}}, "out.safetensors", {{"k", "v"}});
//   auto f = tensorplay::safetensors::safe_open("model.safetensors");
//   for (const auto& name : f.keys()) use(f.get_tensor(name));
//
// The format (the reference implementation, safetensors/src/tensor.rs): an 8-byte little-endian
// header size N; N bytes of UTF-8 JSON {"name": {"dtype": "F32", "shape": [..], "data_offsets":
// [begin, end]}, ..., "__metadata__": {str: str}} padded with spaces to a multiple of 8; then the
// data block, each tensor's bytes at [begin, end) relative to its start, row-major, little-endian.
//
// Reading follows the reference's checks and adds the ones it leaves to serde: every malformed
// file is a typed error naming the reference's error kind (HeaderTooSmall, HeaderTooLarge,
// InvalidHeaderLength, InvalidHeader, InvalidHeaderDeserialization, InvalidOffset,
// TensorInvalidInfo, ValidationOverflow, MetadataIncompleteBuffer), never a read past the end:
// header over 100 MB (MAX_HEADER_SIZE), invalid UTF-8 or JSON, missing or unknown fields,
// negative or non-integer shapes, numel * itemsize overflowing, offsets out of order, with holes,
// overlapping, not matching the shape, or not ending exactly at the end of the file. Dtypes:
// BOOL U8 I8 I16 I32 I64 F16 BF16 F32 F64; the reference's others (F8_*, U16, U32, U64, ...) are
// a NotImplementedError naming the dtype, an unknown name a ValueError. BOOL bytes other than 0
// and 1 are refused (they are not valid bool values).
//
// Zero copy: load_file and safe_open map the file (read-only, or copy-on-write when writable)
// and each CPU tensor's storage points into the mapping, holding a reference to it: tensors stay
// valid after the loader is gone, and the file is unmapped when the last one dies. A read-only
// load's tensors refuse in-place writes (clone() them, or load with writable=true: writes then go
// to private pages and never to the file). A tensor whose offset is not a multiple of its element
// size (possible only in files not written by the reference, whose header sizes are multiples of
// 8) is copied into an aligned storage instead. Tensors for another device are copied there.
//
// Writing produces the reference writer's bytes exactly: tensors ordered by the reference's
// dtype order, descending (I64 F64 F32 I32 BF16 F16 I16 I8 U8 BOOL), then by name; compact JSON
// as serde_json writes it; "__metadata__" first when the metadata is not empty (an empty map
// writes none, as Python's metadata=None does; the reference writes several entries in hash
// order, here they are sorted by key). Non-contiguous tensors are written contiguous, non-CPU
// ones copied to the CPU first, and tensors that share memory are written once each (the format
// has no sharing; Python's save_file refuses them instead). Little-endian hosts only.
#pragma once

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <tensorplay/core/device.hpp>
#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/empty.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/safe_math.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/ops/copy.hpp>
#include <tensorplay/serialize/json.hpp>
#include <tensorplay/serialize/mapped_file.hpp>

namespace tensorplay::safetensors {

// A missing tensor name (Python's KeyError; a LookupError, as IndexError is).
class KeyError : public IndexError {
 public:
  using IndexError::IndexError;
};

namespace detail {

using tensorplay::detail::json::Value;

inline constexpr uint64_t kMaxHeaderSize = 100'000'000;  // the reference's MAX_HEADER_SIZE

struct DTypeEntry {
  const char* name;
  DType dtype;
  int order;  // position in the reference's Dtype enum (which orders the writer's output)
};
inline constexpr DTypeEntry kDTypes[] = {
    {"BOOL", kBool, 0},   {"U8", kByte, 1},       {"I8", kChar, 2}, {"I16", kShort, 5},
    {"F16", kHalf, 7},    {"BF16", kBFloat16, 8}, {"I32", kInt, 9}, {"F32", kFloat, 11},
    {"F64", kDouble, 12}, {"I64", kLong, 13},
};
// Dtypes of the format that TensorPlay has no type for.
inline constexpr const char* kUnsupported[] = {"F8_E5M2", "F8_E4M3", "F8_E8M0", "U16", "U32", "U64",
                                               "F4",      "F6_E2M3", "F6_E3M2", "C64", "E8M0"};

inline const DTypeEntry& entry_of(DType dt) {
  for (const DTypeEntry& e : kDTypes) {
    if (e.dtype == dt) return e;
  }
  TP_ERROR("safetensors: no dtype for ", dt);  // unreachable: every DType is listed
}

inline DType dtype_of(const std::string& name, const std::string& tensor) {
  for (const DTypeEntry& e : kDTypes) {
    if (name == e.name) return e.dtype;
  }
  for (const char* u : kUnsupported) {
    TP_CHECK_NOT_IMPLEMENTED(name != u, "safetensors: tensor \"", tensor, "\" has dtype ", name,
                             ", which TensorPlay does not support (supported: BOOL U8 I8 I16 I32 "
                             "I64 F16 BF16 F32 F64)");
  }
  throw ValueError(
      tensorplay::detail::str_cat("safetensors: InvalidHeaderDeserialization: tensor \"", tensor,
                                  "\" has an unknown dtype \"", name, "\""));
}

struct TensorInfo {
  DType dtype;
  std::vector<int64_t> shape;
  uint64_t begin = 0, end = 0;  // relative to the data block
};

struct Header {
  std::map<std::string, TensorInfo> tensors;  // sorted by name, as Python's keys()
  std::map<std::string, std::string> metadata;
  uint64_t data_start = 0;  // 8 + N
};

[[noreturn]] inline void bad_header(const std::string& what) {
  throw ValueError("safetensors: InvalidHeaderDeserialization: " + what);
}

inline TensorInfo parse_info(const std::string& name, const Value& v) {
  if (!v.is_object()) bad_header("the entry of tensor \"" + name + "\" is not an object");
  const Value *dtype = nullptr, *shape = nullptr, *offsets = nullptr;
  for (const auto& [key, field] : v.as_object()) {
    if (key == "dtype") {
      dtype = &field;
    } else if (key == "shape") {
      shape = &field;
    } else if (key == "data_offsets") {
      offsets = &field;
    } else {
      bad_header("unknown field \"" + key + "\" in the entry of tensor \"" + name + "\"");
    }
  }
  if (!dtype || !shape || !offsets) {
    bad_header(std::string("missing field \"") +
               (!dtype   ? "dtype"
                : !shape ? "shape"
                         : "data_offsets") +
               "\" in tensor \"" + name + "\"");
  }
  if (!dtype->is_string()) bad_header("the dtype of tensor \"" + name + "\" is not a string");
  TensorInfo info;
  info.dtype = dtype_of(dtype->as_string(), name);
  if (!shape->is_array()) bad_header("the shape of tensor \"" + name + "\" is not an array");
  for (const Value& d : shape->as_array()) {
    if (!d.is_int() || d.is_negative()) {
      bad_header("the shape of tensor \"" + name +
                 "\" has an entry that is not a non-negative "
                 "integer");
    }
    const uint64_t s = d.as_uint64();
    if (s > tensorplay::detail::kStorageMax) {
      throw ValueError("safetensors: ValidationOverflow: the shape of tensor \"" + name +
                       "\" has a dimension too large");
    }
    info.shape.push_back(static_cast<int64_t>(s));
  }
  if (!offsets->is_array() || offsets->as_array().size() != 2 || !offsets->as_array()[0].is_int() ||
      offsets->as_array()[0].is_negative() || !offsets->as_array()[1].is_int() ||
      offsets->as_array()[1].is_negative()) {
    bad_header("the data_offsets of tensor \"" + name +
               "\" are not two non-negative integers [begin, end]");
  }
  info.begin = offsets->as_array()[0].as_uint64();
  info.end = offsets->as_array()[1].as_uint64();
  return info;
}

// Parses and validates the header of a safetensors file of `size` bytes at `data`.
inline Header parse_header(const std::byte* data, std::size_t size) {
  if (size < 8) {
    throw ValueError(tensorplay::detail::str_cat(
        "safetensors: HeaderTooSmall: the file is ", static_cast<long long>(size),
        " bytes long, shorter than the 8-byte header size"));
  }
  uint64_t n = 0;
  for (int i = 7; i >= 0; --i) n = (n << 8) | std::to_integer<uint64_t>(data[i]);
  if (n > kMaxHeaderSize) {
    throw ValueError(tensorplay::detail::str_cat("safetensors: HeaderTooLarge: the header size ", n,
                                                 " is over the limit of ", kMaxHeaderSize,
                                                 " bytes"));
  }
  if (n > size - 8) {
    throw ValueError(tensorplay::detail::str_cat(
        "safetensors: InvalidHeaderLength: the header size ", n, " goes past the end of the file (",
        static_cast<long long>(size), " bytes)"));
  }
  const std::string_view text(reinterpret_cast<const char*>(data + 8), n);
  Value root;
  try {
    root = tensorplay::detail::json::parse(text);
  } catch (const ValueError& e) {
    const bool utf8 = std::string_view(e.what()).find("UTF-8") != std::string_view::npos;
    throw ValueError(std::string("safetensors: ") +
                     (utf8 ? "InvalidHeader: the header is not valid UTF-8: "
                           : "InvalidHeaderDeserialization: the header is not valid JSON: ") +
                     e.what());
  }
  if (!root.is_object()) bad_header("the header is not a JSON object");
  Header h;
  h.data_start = 8 + n;
  std::vector<std::pair<const std::string*, const TensorInfo*>> order;
  for (const auto& [name, v] : root.as_object()) {
    if (name == "__metadata__") {
      if (!v.is_object()) bad_header("__metadata__ is not an object");
      for (const auto& [key, value] : v.as_object()) {
        if (!value.is_string())
          bad_header("the __metadata__ value of \"" + key + "\" is not a string");
        h.metadata.emplace(key, value.as_string());
      }
      continue;
    }
    h.tensors.emplace(name, parse_info(name, v));  // names are unique: the parser refuses dups
  }
  for (const auto& [name, info] : h.tensors) order.emplace_back(&name, &info);
  // The reference's validate(): in offset order, each tensor starts where the previous ended
  // (no holes, no overlaps), its size is numel * itemsize, and the last ends at the file's end.
  std::sort(order.begin(), order.end(), [](const auto& a, const auto& b) {
    return std::pair(a.second->begin, a.second->end) < std::pair(b.second->begin, b.second->end);
  });
  uint64_t start = 0;
  for (const auto& [name, info] : order) {
    if (info->begin != start || info->end < info->begin) {
      throw ValueError(tensorplay::detail::str_cat(
          "safetensors: InvalidOffset: tensor \"", *name, "\" has data_offsets [", info->begin,
          ", ", info->end, "], expected them to start at ", start,
          " (tensors must cover the data block in order, without holes or overlaps)"));
    }
    start = info->end;
    uint64_t numel = 0, nbytes = 0;
    if (tensorplay::detail::safe_multiplies_u64(info->shape, &numel) ||
        numel > tensorplay::detail::kStorageMax ||
        __builtin_mul_overflow(numel, uint64_t(itemsize(info->dtype)), &nbytes) ||
        nbytes > tensorplay::detail::kStorageMax) {
      throw ValueError("safetensors: ValidationOverflow: the shape of tensor \"" + *name +
                       "\" overflows numel * itemsize");
    }
    if (info->end - info->begin != nbytes) {
      throw ValueError(tensorplay::detail::str_cat(
          "safetensors: TensorInvalidInfo: tensor \"", *name, "\" of shape ",
          IntArrayRef(info->shape), " and dtype ", entry_of(info->dtype).name, " needs ", nbytes,
          " bytes, but its data_offsets [", info->begin, ", ", info->end, "] span ",
          info->end - info->begin));
    }
  }
  if (start != size - h.data_start) {
    throw ValueError(tensorplay::detail::str_cat(
        "safetensors: MetadataIncompleteBuffer: the tensors cover ", start,
        " bytes of data, but the file has ", static_cast<long long>(size - h.data_start),
        " bytes after the header"));
  }
  return h;
}

// BOOL bytes must be 0 or 1: any other byte read as a C++ bool is undefined behaviour.
inline void check_bool_bytes(const std::string& name, const std::byte* p, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if (std::to_integer<unsigned>(p[i]) > 1) {
      throw ValueError("safetensors: tensor \"" + name +
                       "\" has dtype BOOL but holds a byte that is neither 0 nor 1");
    }
  }
}

// A fresh CPU tensor with a copy of the bytes.
template <class = void>
Tensor copy_tensor(const TensorInfo& info, const std::byte* src) {
  Tensor t = empty(info.shape, TensorOptions().dtype(info.dtype));
  const std::size_t nbytes = info.end - info.begin;
  if (nbytes > 0) std::memcpy(t.data_ptr(), src, nbytes);
  return t;
}

inline void check_endianness() {
  TP_CHECK_NOT_IMPLEMENTED(std::endian::native == std::endian::little,
                           "safetensors: only little-endian hosts are supported");
}

struct Entry {
  const std::string* name;
  Tensor data;  // contiguous, on the CPU
};

// The header bytes (padded) and the tensors in the reference writer's order.
template <class = void>
std::string build_header(const std::map<std::string, Tensor>& tensors,
                         const std::map<std::string, std::string>& metadata,
                         std::vector<Entry>* entries) {
  check_endianness();
  for (const auto& [name, t] : tensors) {
    TP_CHECK_VALUE(name != "__metadata__",
                   "safetensors: \"__metadata__\" is reserved and cannot name a tensor");
    TP_CHECK_VALUE(t.defined(), "safetensors: tensor \"", name, "\" is undefined");
    // Contiguous on the CPU: a copy only when it is not already.
    Tensor c = t.is_cpu() ? t : t.to(Device(kCPU), t.dtype());
    entries->push_back({&name, c.contiguous()});
  }
  std::stable_sort(entries->begin(), entries->end(), [](const Entry& a, const Entry& b) {
    const int oa = entry_of(a.data.dtype()).order, ob = entry_of(b.data.dtype()).order;
    if (oa != ob) return oa > ob;
    return *a.name < *b.name;
  });
  Value::Object root;
  if (!metadata.empty()) {
    Value::Object m;
    for (const auto& [k, v] : metadata) m.emplace_back(k, Value::string(v));
    root.emplace_back("__metadata__", Value::object(std::move(m)));
  }
  uint64_t offset = 0;
  for (const Entry& e : *entries) {
    Value::Array shape;
    for (int64_t s : e.data.sizes()) shape.push_back(Value::unsigned_integer(uint64_t(s)));
    const uint64_t nbytes = uint64_t(e.data.numel()) * e.data.itemsize();
    Value::Object info;
    info.emplace_back("dtype", Value::string(entry_of(e.data.dtype()).name));
    info.emplace_back("shape", Value::array(std::move(shape)));
    info.emplace_back("data_offsets", Value::array({Value::unsigned_integer(offset),
                                                    Value::unsigned_integer(offset + nbytes)}));
    root.emplace_back(*e.name, Value::object(std::move(info)));
    offset += nbytes;
  }
  std::string header = tensorplay::detail::json::dump(Value::object(std::move(root)));
  header.append((8 - header.size() % 8) % 8, ' ');
  std::string out(8, '\0');
  const uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[std::size_t(i)] = static_cast<char>((n >> (8 * i)) & 0xFF);
  return out + header;
}

}  // namespace detail

// An open safetensors file: the header parsed and validated, the file mapped. Tensors from
// get_tensor share the mapping (zero copy on the CPU) and outlive this object.
class SafeOpen {
 public:
  SafeOpen(const std::string& path, Device device = kCPU, bool writable = false) : device_(device) {
    detail::check_endianness();
    file_ = MappedFile::open(path, writable ? MapMode::CopyOnWrite : MapMode::ReadOnly);
    try {
      header_ = detail::parse_header(file_.data(), file_.size());
    } catch (const Error& e) {
      // Rethrown with the file named, keeping the type.
      const std::string msg = std::string(e.what()) + " (in <" + path + ">)";
      if (dynamic_cast<const NotImplementedError*>(&e)) throw NotImplementedError(msg);
      throw ValueError(msg);
    }
  }

  // Tensor names, sorted (Python's keys()).
  std::vector<std::string> keys() const {
    std::vector<std::string> k;
    k.reserve(header_.tensors.size());
    for (const auto& [name, info] : header_.tensors) k.push_back(name);
    return k;
  }
  bool contains(const std::string& name) const { return header_.tensors.count(name) != 0; }
  // The __metadata__ map (empty when the file has none).
  const std::map<std::string, std::string>& metadata() const noexcept { return header_.metadata; }

  Tensor get_tensor(const std::string& name) const {
    const auto it = header_.tensors.find(name);
    if (it == header_.tensors.end()) throw KeyError("File does not contain tensor " + name);
    const detail::TensorInfo& info = it->second;
    const std::size_t offset = header_.data_start + info.begin;
    const std::size_t nbytes = info.end - info.begin;
    const std::byte* src = file_.data() ? file_.data() + offset : nullptr;
    if (info.dtype == kBool) detail::check_bool_bytes(name, src, nbytes);
    Tensor t;
    if (nbytes == 0 || offset % itemsize(info.dtype) != 0) {
      t = detail::copy_tensor(info, src);  // empty, or misaligned: an aligned copy
    } else {
      t = tensorplay::detail::make_tensor(file_.storage(offset, nbytes), info.dtype, info.shape,
                                          SizesAndStrides::compute_contiguous_strides(info.shape));
    }
    if (!device_.is_cpu()) t = t.to(device_, t.dtype());
    return t;
  }

  const MappedFile& file() const noexcept { return file_; }

 private:
  MappedFile file_;
  detail::Header header_;
  Device device_;
};

// Python's safe_open(path, framework="pt", device=...), plus writable (copy-on-write tensors).
inline SafeOpen safe_open(const std::string& path, Device device = kCPU, bool writable = false) {
  return SafeOpen(path, device, writable);
}

// Every tensor of the file (safetensors.torch.load_file).
template <class = void>
std::map<std::string, Tensor> load_file(const std::string& path, Device device = kCPU,
                                        bool writable = false) {
  const SafeOpen f(path, device, writable);
  std::map<std::string, Tensor> out;
  for (const std::string& name : f.keys()) out.emplace(name, f.get_tensor(name));
  return out;
}

// Every tensor of the bytes of a safetensors file, copied (safetensors.torch.load).
template <class = void>
std::map<std::string, Tensor> load(std::string_view bytes) {
  detail::check_endianness();
  const auto* data = reinterpret_cast<const std::byte*>(bytes.data());
  const detail::Header h = detail::parse_header(data, bytes.size());
  std::map<std::string, Tensor> out;
  for (const auto& [name, info] : h.tensors) {
    const std::byte* src = data + h.data_start + info.begin;
    if (info.dtype == kBool) detail::check_bool_bytes(name, src, info.end - info.begin);
    out.emplace(name, detail::copy_tensor(info, src));
  }
  return out;
}

// The metadata of the bytes of a safetensors file (empty when it has none).
inline std::map<std::string, std::string> load_metadata(std::string_view bytes) {
  return detail::parse_header(reinterpret_cast<const std::byte*>(bytes.data()), bytes.size())
      .metadata;
}

// The bytes of a safetensors file holding `tensors` (safetensors.torch.save).
template <class = void>
std::string save(const std::map<std::string, Tensor>& tensors,
                 const std::map<std::string, std::string>& metadata = {}) {
  std::vector<detail::Entry> entries;
  std::string out = detail::build_header(tensors, metadata, &entries);
  for (const detail::Entry& e : entries) {
    const std::size_t nbytes = std::size_t(e.data.numel()) * e.data.itemsize();
    if (nbytes > 0) out.append(static_cast<const char*>(e.data.const_data_ptr()), nbytes);
  }
  return out;
}

// Writes a safetensors file (safetensors.torch.save_file).
template <class = void>
void save_file(const std::map<std::string, Tensor>& tensors, const std::string& path,
               const std::map<std::string, std::string>& metadata = {}) {
  std::vector<detail::Entry> entries;
  const std::string header = detail::build_header(tensors, metadata, &entries);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  const int open_errno = errno;
  TP_CHECK(out.is_open(), "safetensors: unable to open file <", path,
           "> for writing: ", tensorplay::detail::errno_text(open_errno));
  out.write(header.data(), std::streamsize(header.size()));
  for (const detail::Entry& e : entries) {
    const std::size_t nbytes = std::size_t(e.data.numel()) * e.data.itemsize();
    if (nbytes > 0)
      out.write(static_cast<const char*>(e.data.const_data_ptr()), std::streamsize(nbytes));
  }
  out.flush();
  TP_CHECK(out.good(), "safetensors: writing <", path, "> failed");
}

}  // namespace tensorplay::safetensors
