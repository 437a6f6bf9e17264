// NumPy's .npz: a zip archive of .npy members, one per array, named "<key>.npy". np.savez stores
// the members, np.savez_compressed deflates them (zlib: TENSORPLAY_USE_ZLIB, see zip.hpp).
// Opt-in: not part of the umbrella header.
//
//   numpy::savez("weights.npz", {{"w", w}, {"b", b}});
//   std::map<std::string, Tensor> arrays = numpy::load_npz("weights.npz");  // keys "w", "b"
//
// Keys are the member names without their ".npy" suffix, as np.load's NpzFile gives them. A
// member that is not an .npy array (np.load would hand back its raw bytes) is an error naming it,
// as is anything wrong with the archive or with a member (zip.hpp's and numpy.hpp's checks).
#pragma once

#include <map>
#include <string>
#include <string_view>

#include <tensorplay/serialize/numpy.hpp>
#include <tensorplay/serialize/zip.hpp>

namespace tensorplay::numpy {

namespace detail {

template <class = void>
std::string npz_bytes(const std::map<std::string, Tensor>& arrays, bool compress) {
  serialize::ZipWriter zip;
  for (const auto& [key, tensor] : arrays) {
    zip.write_record(key + ".npy", save_bytes(tensor), compress);
  }
  zip.finalize();
  return zip.release();
}

}  // namespace detail

// The bytes of np.savez(file, **arrays) (stored members) or, with compress, of
// np.savez_compressed.
template <class = void>
std::string savez_bytes(const std::map<std::string, Tensor>& arrays, bool compress = false) {
  return detail::npz_bytes(arrays, compress);
}

// np.savez(path, **arrays), to exactly `path` (no ".npz" appended).
template <class = void>
void savez(const std::string& path, const std::map<std::string, Tensor>& arrays) {
  tensorplay::detail::npy_write_file(path, detail::npz_bytes(arrays, false), "numpy.savez");
}

// np.savez_compressed(path, **arrays): deflated members (needs TENSORPLAY_USE_ZLIB).
template <class = void>
void savez_compressed(const std::string& path, const std::map<std::string, Tensor>& arrays) {
  tensorplay::detail::npy_write_file(path, detail::npz_bytes(arrays, true),
                                     "numpy.savez_compressed");
}

// Every array of an .npz held in memory, keyed by member name without ".npy".
template <class = void>
std::map<std::string, Tensor> load_npz_bytes(std::string_view bytes) {
  const serialize::ZipReader zip(bytes.data(), bytes.size());
  std::map<std::string, Tensor> out;
  for (const std::string& name : zip.names()) {
    const std::string member = zip.read(name);
    TP_CHECK_VALUE(member.starts_with(tensorplay::detail::kNpyMagic), "numpy.load: member '", name,
                   "' of the .npz archive is not an .npy array");
    std::string key = name;
    if (key.ends_with(".npy")) key.resize(key.size() - 4);
    Tensor t = load_bytes(member);
    TP_CHECK_VALUE(out.emplace(key, std::move(t)).second, "numpy.load: the .npz archive holds '",
                   key, "' twice");
  }
  return out;
}

// np.load(path) of an .npz file: every array, read eagerly.
template <class = void>
std::map<std::string, Tensor> load_npz(const std::string& path) {
  return load_npz_bytes(tensorplay::detail::npy_read_file(path));
}

}  // namespace tensorplay::numpy
