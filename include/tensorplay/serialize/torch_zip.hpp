// PyTorch's torch.save zip format, both ways, with libtorch's names: pickle_save / pickle_load
// (bytes in memory) and save / load (a file). Opt-in: not part of the umbrella header.
//
// The format (torch/serialization.py, caffe2/serialize/inline_container.cc): a zip archive whose
// records live under one top folder, `<archive>/data.pkl` (the object, pickled), `<archive>/
// data/<key>` (one record per storage: its raw bytes, little-endian unless `<archive>/byteorder`
// says "big"), `<archive>/version`. A tensor is pickled as torch._utils._rebuild_tensor_v2(
// storage, storage_offset, size, stride, requires_grad, backward_hooks) where the storage is the
// persistent id ('storage', torch.XStorage, key, location, numel).
//
// Loading never executes code (pickle.hpp's restricted unpickler) and checks every geometry
// against its storage: a size/stride/offset that runs past the storage, or a storage record
// shorter than numel * itemsize, is an error, never an out-of-bounds read. Tensors that named one
// storage key share one Storage, so views come back as views (same storage, same offsets and
// strides). Every storage is copied out of the archive into memory of its own (little-endian,
// aligned), whatever device the file names: the load is map_location="cpu". requires_grad is
// restored; _rebuild_parameter loads as a tensor that requires grad (there is no Parameter type).
//
// Saving writes what torch 1.13's torch.load reads: version "3", byteorder "little", data.pkl
// (protocol 2), one record per distinct storage holding the whole storage (64-byte aligned, so a
// reader can map it), dict / OrderedDict (the IValue dict's `ordered` flag) / list / tuple /
// str / int / float / bool / None containers. Two tensors of different dtypes on one storage are
// refused with torch's message. Only CPU tensors can be saved.
//
// Deflated records need zlib (TENSORPLAY_USE_ZLIB; see zip.hpp); torch.save writes none.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include <tensorplay/core/empty.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/safe_math.hpp>
#include <tensorplay/serialize/ivalue.hpp>
#include <tensorplay/serialize/mapped_file.hpp>
#include <tensorplay/serialize/pickle.hpp>
#include <tensorplay/serialize/zip.hpp>

namespace tensorplay {
namespace serialize::detail {

// The newest file format version torch's PyTorchStreamReader reads
// (kMaxSupportedFileFormatVersion).
inline constexpr int64_t kMaxTorchFileVersion = 10;

inline std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

// `mapping`: the mapped file `zip` reads (load(path, mmap=true)); stored, aligned little-endian
// records then back their storages in place instead of being copied.
inline IValue read_torch_zip(const ZipReader& zip, const MappedFile* mapping = nullptr) {
  const auto& entries = zip.entries();
  TP_CHECK(!entries.empty(),
           "PytorchStreamReader failed reading zip archive: the archive is empty");
  const std::string& first = entries.front().name;
  const auto slash = first.find('/');
  TP_CHECK(slash != std::string::npos && slash > 0,
           "PytorchStreamReader failed reading zip archive: file in archive is not in a "
           "subdirectory: ",
           first);
  const std::string prefix = first.substr(0, slash + 1);
  for (const auto& e : entries) {
    TP_CHECK(e.name.compare(0, prefix.size(), prefix) == 0,
             "PytorchStreamReader failed reading zip archive: file in archive is not in a "
             "subdirectory ",
             prefix, ": ", e.name);
  }
  std::string version_name = prefix + "version";
  if (!zip.contains(version_name)) version_name = prefix + ".data/version";
  const std::string version_text = trim(zip.read(version_name));
  int64_t version = -1;
  if (!version_text.empty() && version_text.size() < 10 &&
      version_text.find_first_not_of("0123456789") == std::string::npos) {
    version = std::stoll(version_text);
  }
  TP_CHECK(version >= 1 && version <= kMaxTorchFileVersion,
           "Attempted to read a PyTorch file with version ", version_text,
           ", but the maximum supported version for reading is ", kMaxTorchFileVersion);
  bool big_endian = false;
  if (zip.contains(prefix + "byteorder")) {
    const std::string order = trim(zip.read(prefix + "byteorder"));
    TP_CHECK(order == "little" || order == "big", "Unknown endianness type: ", order,
             " (expected \"little\" or \"big\")");
    big_endian = order == "big";
  }

  std::unordered_map<std::string, Tensor> storages;  // key -> flat tensor over the storage
  PersistentLoad persistent_load = [&](const IValue& pid) -> IValue {
    const bool ok = pid.isTuple() && pid.toTuple().size() == 5 && pid.toTuple()[0].isString() &&
                    pid.toTuple()[0].toStringRef() == "storage" && pid.toTuple()[1].isString() &&
                    pid.toTuple()[2].isString() && pid.toTuple()[3].isString() &&
                    pid.toTuple()[4].isInt();
    TP_CHECK(
        ok,
        "Weights only load failed. WeightsUnpickler error: unsupported persistent id (expected "
        "('storage', torch.XStorage, key, location, numel))");
    const auto& t = pid.toTuple();
    const std::string& cls = t[1].toStringRef();
    const auto dtype =
        cls.rfind("torch.", 0) == 0 ? dtype_from_storage_class(cls.substr(6)) : std::nullopt;
    TP_CHECK(dtype.has_value(),
             "Weights only load failed. WeightsUnpickler error: unsupported "
             "storage type ",
             cls);
    const std::string& key = t[2].toStringRef();
    const int64_t numel = t[4].toInt();
    if (auto it = storages.find(key); it != storages.end()) {
      TP_CHECK(it->second.dtype() == *dtype && it->second.numel() == numel, "storage ", key,
               " is referenced with two different types or sizes");
      return it->second;
    }
    TP_CHECK_VALUE(numel >= 0, "storage ", key, " has a negative element count ", numel);
    const std::size_t nbytes =
        tensorplay::detail::contiguous_nbytes(IntArrayRef(&numel, 1), itemsize(*dtype));
    // Storage records are bounds-checked but their CRC-32 is not verified, as PyTorch's reader
    // (its miniz is built with MINIZ_DISABLE_ZIP_READER_CRC32_CHECKS): a checksum pass would
    // double the load time and read every page of a mapped load. data.pkl and the small records
    // are verified.
    const std::string record = prefix + "data/" + key;
    const ZipEntry& entry = zip.entry(record);
    TP_CHECK_VALUE(entry.uncompressed_size >= nbytes, "storage record ", record, " has ",
                   static_cast<long long>(entry.uncompressed_size), " bytes, but its storage of ",
                   numel, " ", cls, " elements needs ", static_cast<long long>(nbytes));
    const std::size_t item = itemsize(*dtype);
    const bool in_place = mapping && entry.method == 0 && !big_endian && *dtype != DType::Bool &&
                          entry.data_offset % item == 0;
    if (in_place) {
      const int64_t one = 1;
      Tensor flat = tensorplay::detail::make_tensor(
          mapping->storage(static_cast<std::size_t>(entry.data_offset), nbytes), *dtype,
          IntArrayRef(&numel, 1), IntArrayRef(&one, 1));
      storages.emplace(key, flat);
      return flat;
    }
    Storage storage(use_byte_size, nbytes, getCPUAllocator(), /*resizable=*/true);
    if (entry.method == 0) {
      const auto view = zip.stored_view(record, /*check_crc=*/false);
      if (nbytes) std::memcpy(storage.mutable_data(), view.data(), nbytes);
    } else {
      const std::string bytes = zip.read(record);
      if (nbytes) std::memcpy(storage.mutable_data(), bytes.data(), nbytes);
    }
    if (big_endian && item > 1) {
      auto* p = static_cast<unsigned char*>(storage.mutable_data());
      for (std::size_t i = 0; i < nbytes; i += item) std::reverse(p + i, p + i + item);
    }
    if (*dtype == DType::Bool) {
      // A bool holding another byte is undefined behaviour in C++: any nonzero byte is true.
      auto* p = static_cast<unsigned char*>(storage.mutable_data());
      for (std::size_t i = 0; i < nbytes; ++i) p[i] = p[i] != 0;
    }
    const int64_t one = 1;
    Tensor flat = tensorplay::detail::make_tensor(std::move(storage), *dtype,
                                                  IntArrayRef(&numel, 1), IntArrayRef(&one, 1));
    storages.emplace(key, flat);
    return flat;
  };
  const std::string pkl = zip.read(prefix + "data.pkl");
  return unpickle(std::string_view(pkl), persistent_load);
}

inline void write_torch_zip(const IValue& value, ZipWriter& zip, const std::string& archive) {
  struct Saved {
    std::string key;
    DType dtype;
    Storage storage;
  };
  std::unordered_map<const StorageImpl*, std::size_t> index;
  std::vector<Saved> saved;
  PersistentStorageId storage_id = [&](const Tensor& t) {
    const Storage& s = t.storage();
    auto [it, fresh] = index.emplace(s.unsafeGetStorageImpl(), saved.size());
    if (fresh) {
      saved.push_back(Saved{std::to_string(saved.size()), t.dtype(), s});
    } else {
      TP_CHECK(saved[it->second].dtype == t.dtype(),
               "Cannot save multiple tensors or storages that view the same data as different "
               "types");
    }
    const Saved& rec = saved[it->second];
    return StorageRef{rec.key, "cpu", static_cast<int64_t>(s.nbytes() / itemsize(rec.dtype))};
  };
  const std::string pkl = pickle(value, storage_id);
  const std::string dir = archive + "/";
  zip.write_record(dir + "data.pkl", pkl);
  zip.write_record(dir + "byteorder", std::string_view("little"));
  for (const Saved& rec : saved) {
    const std::size_t n = rec.storage.nbytes() / itemsize(rec.dtype) * itemsize(rec.dtype);
    zip.write_record(dir + "data/" + rec.key, rec.storage.data(), n);
  }
  zip.write_record(dir + "version", std::string_view("3\n"));
  zip.finalize();
}

}  // namespace serialize::detail

// torch.save's bytes for `value` (libtorch's torch::pickle_save): a zip archive torch.load reads.
inline std::vector<char> pickle_save(const IValue& value) {
  serialize::ZipWriter zip;
  serialize::detail::write_torch_zip(value, zip, "archive");
  const std::string& s = zip.str();
  return std::vector<char>(s.begin(), s.end());
}

// Loads what torch.save (or pickle_save / save) wrote, from bytes in memory.
inline IValue pickle_load(std::span<const std::byte> data) {
  serialize::ZipReader zip(data);
  return serialize::detail::read_torch_zip(zip);
}
inline IValue pickle_load(const std::vector<char>& data) {
  return pickle_load(std::as_bytes(std::span<const char>(data.data(), data.size())));
}
inline IValue pickle_load(std::string_view data) {
  return pickle_load(std::as_bytes(std::span<const char>(data.data(), data.size())));
}

// torch.save(value, path). The archive's top folder is the file's stem, as torch names it.
inline void save(const IValue& value, const std::string& path) {
  std::string archive = std::filesystem::path(path).stem().string();
  if (archive.empty()) archive = "archive";
  serialize::ZipWriter zip(path);
  serialize::detail::write_torch_zip(value, zip, archive);
}

// torch.load(path, map_location="cpu", weights_only=True, mmap=mmap). The file is mapped and read
// in place. By default every storage is copied out of it into memory of its own (as torch 1.13
// loads). With mmap (torch 2.1's torch.load(mmap=True)) the storages of stored, aligned records
// point into a private copy-on-write mapping instead: no copy, pages read on first touch, writes
// stay in this process (the file never changes), and the mapping lives while a tensor does.
// Such storages cannot grow (resize_ raises, as torch's mmap-loaded ones).
inline IValue load(const std::string& path, bool mmap = false) {
  const MappedFile file = MappedFile::open(path, MapMode::CopyOnWrite);
  const serialize::ZipReader zip(file.data(), file.size());
  return serialize::detail::read_torch_zip(zip, mmap ? &file : nullptr);
}

}  // namespace tensorplay
