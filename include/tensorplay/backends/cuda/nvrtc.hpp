// Run-time compilation of the CUDA kernels: CUDA C++ source to PTX with NVRTC, and the cache
// that makes it a one-time cost (CuPy's, jitify's and PyTorch's jiterator's model).
//
//   std::string ptx = cuda::compile_to_ptx(source, "add_f32", 80);   // via kernel_cache()
//
// NVRTC needs no GPU and no driver (it is linked as CUDA::nvrtc), so every kernel source is
// proven to compile on any machine with the toolkit. A failed compilation throws NVRTCError,
// whose message holds NVRTC's log and the kernel's name.
//
// The cache has two levels. In the process: a map from everything the PTX depends on to the
// PTX, where a kernel that several threads ask for at once is compiled once (the others wait
// for it). On disk, shared by processes: one file per kernel under
//   $TENSORPLAY_CUDA_CACHE_DIR, else $XDG_CACHE_HOME/tensorplay/cuda (XDG_CACHE_HOME absolute),
//   else $HOME/.cache/tensorplay/cuda
// named by a 128-bit hash of (source, name, NVRTC version, arch, options). An entry is a
// 64-byte header (magic, format version, key, payload length and checksum, header checksum)
// and the PTX; one that does not check out in every field (truncated, damaged, another
// format) is deleted and rebuilt, never used. Entries are written to a temporary file and
// renamed into place, so a reader sees a whole entry or none, and concurrent writers of one
// entry both leave a valid one. The disk is best effort: when the directory cannot be made,
// read or written, the kernel is compiled anyway and the failure only counted in stats().
// Nothing is evicted; removing the directory empties the cache.
#pragma once

#include <tensorplay/backends/cuda/error.hpp>
#include <tensorplay/core/error.hpp>

#include <nvrtc.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <future>
#include <iterator>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace tensorplay::cuda {

// NVRTC failed: result() is its status, log() the compiler's log (empty when the failure was
// not a compilation's). The message is PyTorch's "CUDA NVRTC error: ..." with the kernel's name
// and the log.
class NVRTCError : public Error {
 public:
  NVRTCError(std::string msg, nvrtcResult result, std::string log)
      : Error(std::move(msg)), result_(result), log_(std::move(log)) {}
  nvrtcResult result() const noexcept { return result_; }
  const std::string& log() const noexcept { return log_; }

 private:
  nvrtcResult result_;
  std::string log_;
};

namespace detail {

[[noreturn]] inline void throw_nvrtc_error(nvrtcResult result, std::string_view when,
                                           std::string log = {}) {
  std::string msg = ::tensorplay::detail::str_cat("CUDA NVRTC error: ", nvrtcGetErrorString(result),
                                                  " (", when, ")");
  if (!log.empty()) msg += ":\n" + log;
  throw NVRTCError(std::move(msg), result, std::move(log));
}

// Destroys an NVRTC program on every path out of a compilation.
class ProgramGuard {
 public:
  explicit ProgramGuard(nvrtcProgram p) noexcept : p_(p) {}
  ~ProgramGuard() { (void)nvrtcDestroyProgram(&p_); }
  ProgramGuard(const ProgramGuard&) = delete;
  ProgramGuard& operator=(const ProgramGuard&) = delete;

 private:
  nvrtcProgram p_;
};

}  // namespace detail

// Throws NVRTCError when an NVRTC call fails (#undef'd at the end of this header).
#define TP_NVRTC_CHECK_(expr, when)                                            \
  do {                                                                         \
    const nvrtcResult tp_nvrtc_result_ = (expr);                               \
    if (tp_nvrtc_result_ != NVRTC_SUCCESS) {                                   \
      ::tensorplay::cuda::detail::throw_nvrtc_error(tp_nvrtc_result_, (when)); \
    }                                                                          \
  } while (false)

// NVRTC's version, {major, minor}: part of every cache key, since another compiler may emit
// other PTX for the same source.
inline std::pair<int, int> nvrtc_version() {
  static const std::pair<int, int> v = [] {
    std::pair<int, int> r{0, 0};
    TP_NVRTC_CHECK_(nvrtcVersion(&r.first, &r.second), "reading NVRTC's version");
    return r;
  }();
  return v;
}

// The GPU architectures this NVRTC compiles for (compute capability x 10: 80, 90...).
inline const std::vector<int>& nvrtc_supported_archs() {
  static const std::vector<int> archs = [] {
    int n = 0;
    TP_NVRTC_CHECK_(nvrtcGetNumSupportedArchs(&n), "counting NVRTC's architectures");
    std::vector<int> r(static_cast<std::size_t>(n));
    if (n > 0) TP_NVRTC_CHECK_(nvrtcGetSupportedArchs(r.data()), "listing NVRTC's architectures");
    return r;
  }();
  return archs;
}

// Compiles `source` (CUDA C++; kernels `extern "C"` so their names are the PTX entry names) to
// PTX for compute capability arch / 10 (PTX `.target sm_<arch>`), with NVRTC's options added
// after the architecture. `name` names the program in NVRTC's log and in errors. No cache.
// Thread safe: each call is its own NVRTC program.
inline std::string compile_to_ptx_uncached(std::string_view source, std::string_view name, int arch,
                                           const std::vector<std::string>& options = {}) {
  const std::vector<int>& archs = nvrtc_supported_archs();
  if (std::find(archs.begin(), archs.end(), arch) == archs.end()) {
    std::string list;
    for (int a : archs) list += (list.empty() ? "" : ", ") + std::to_string(a);
    const auto [major, minor] = nvrtc_version();
    throw ValueError(::tensorplay::detail::str_cat("cuda: NVRTC ", major, ".", minor,
                                                   " cannot compile kernel '", name, "' for sm_",
                                                   arch, "; it supports ", list));
  }
  const std::string text(source);  // NVRTC wants it NUL-terminated
  const std::string file = std::string(name) + ".cu";
  nvrtcProgram program = nullptr;
  TP_NVRTC_CHECK_(nvrtcCreateProgram(&program, text.c_str(), file.c_str(), 0, nullptr, nullptr),
                  "creating a program");
  const detail::ProgramGuard guard(program);
  std::vector<std::string> all;
  all.reserve(options.size() + 1);
  all.push_back("--gpu-architecture=compute_" + std::to_string(arch));
  all.insert(all.end(), options.begin(), options.end());
  std::vector<const char*> argv;
  argv.reserve(all.size());
  for (const std::string& o : all) argv.push_back(o.c_str());
  const nvrtcResult result =
      nvrtcCompileProgram(program, static_cast<int>(argv.size()), argv.data());
  if (result != NVRTC_SUCCESS) {
    std::string log;
    std::size_t size = 0;
    if (nvrtcGetProgramLogSize(program, &size) == NVRTC_SUCCESS && size > 1) {
      log.resize(size);
      if (nvrtcGetProgramLog(program, log.data()) != NVRTC_SUCCESS) log.clear();
      while (!log.empty() && (log.back() == '\0' || log.back() == '\n')) log.pop_back();
    }
    detail::throw_nvrtc_error(
        result, ::tensorplay::detail::str_cat("compiling kernel '", name, "' for sm_", arch),
        std::move(log));
  }
  std::size_t size = 0;
  TP_NVRTC_CHECK_(nvrtcGetPTXSize(program, &size), "sizing the PTX");
  std::string ptx(size, '\0');
  TP_NVRTC_CHECK_(nvrtcGetPTX(program, ptx.data()), "reading the PTX");
  while (!ptx.empty() && ptx.back() == '\0') ptx.pop_back();
  return ptx;
}

// ---- the cache ---------------------------------------------------------------------------------

// What a KernelCache did, since it was made.
struct KernelCacheStats {
  int64_t memory_hits = 0;      // served from the process's map (or another thread's compile)
  int64_t disk_hits = 0;        // read from a valid disk entry
  int64_t compilations = 0;     // NVRTC runs (failed ones included)
  int64_t disk_writes = 0;      // entries written
  int64_t corrupt_entries = 0;  // disk entries that did not check out: deleted and rebuilt
  int64_t disk_errors = 0;      // the directory could not be made, read or written
};

namespace detail {

// FNV-1a: a 64-bit checksum of an entry's bytes, and the 128-bit variant for keys (two different
// kernels colliding in 128 bits is not a practical concern; corruption is caught by the
// checksums, not the key).
inline uint64_t fnv1a64(std::string_view bytes) noexcept {
  uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ull;
  }
  return h;
}
__extension__ using uint128_t = unsigned __int128;
inline std::array<unsigned char, 16> fnv1a128(std::string_view bytes) noexcept {
  const uint128_t prime = (uint128_t{1} << 88) + 0x13bu;
  uint128_t h = (uint128_t{0x6c62272e07bb0142ull} << 64) | 0x62b821756295c58dull;
  for (const char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= prime;
  }
  std::array<unsigned char, 16> out{};
  for (std::size_t i = 0; i < 16; ++i) out[i] = static_cast<unsigned char>(h >> (8 * (15 - i)));
  return out;
}

// Everything a kernel's PTX depends on, unambiguously (lengths before the variable parts).
inline std::string kernel_key_material(std::string_view source, std::string_view name, int arch,
                                       const std::vector<std::string>& options) {
  const auto [major, minor] = nvrtc_version();
  std::string m =
      ::tensorplay::detail::str_cat("tensorplay.cuda.ptx 1\nnvrtc ", major, ".", minor, "\narch ",
                                    arch, "\nname ", name.size(), ":", name, "\n");
  for (const std::string& o : options)
    m += ::tensorplay::detail::str_cat("option ", o.size(), ":", o, "\n");
  m += ::tensorplay::detail::str_cat("source ", source.size(), ":");
  m += source;
  return m;
}

// The on-disk entry: a 64-byte header, then the PTX. Integers little-endian.
//   0 magic "TPCUDAPX"   8 format version (u32)   12 header size (u32)   16 key (16 bytes)
//   32 payload length (u64)   40 payload FNV-1a 64 (u64)   48 FNV-1a 64 of bytes 0..47 (u64)
//   56 reserved (zero)
inline constexpr std::string_view kEntryMagic = "TPCUDAPX";
inline constexpr uint32_t kEntryFormat = 1;
inline constexpr std::size_t kEntryHeaderSize = 64;

inline void put_le(std::string& s, std::size_t at, uint64_t v, int bytes) {
  for (int i = 0; i < bytes; ++i) s[at + std::size_t(i)] = static_cast<char>((v >> (8 * i)) & 0xff);
}
inline uint64_t get_le(std::string_view s, std::size_t at, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) {
    v |= uint64_t(static_cast<unsigned char>(s[at + std::size_t(i)])) << (8 * i);
  }
  return v;
}

inline std::string encode_entry(const std::array<unsigned char, 16>& key, std::string_view ptx) {
  std::string e(kEntryHeaderSize, '\0');
  e.replace(0, 8, kEntryMagic);
  put_le(e, 8, kEntryFormat, 4);
  put_le(e, 12, kEntryHeaderSize, 4);
  for (std::size_t i = 0; i < 16; ++i) e[16 + i] = static_cast<char>(key[i]);
  put_le(e, 32, ptx.size(), 8);
  put_le(e, 40, fnv1a64(ptx), 8);
  put_le(e, 48, fnv1a64(std::string_view(e).substr(0, 48)), 8);
  e += ptx;
  return e;
}

// The PTX of a whole, undamaged entry for `key`, or false.
inline bool decode_entry(std::string_view e, const std::array<unsigned char, 16>& key,
                         std::string* ptx) {
  if (e.size() < kEntryHeaderSize || e.substr(0, 8) != kEntryMagic) return false;
  if (get_le(e, 8, 4) != kEntryFormat || get_le(e, 12, 4) != kEntryHeaderSize) return false;
  if (get_le(e, 48, 8) != fnv1a64(e.substr(0, 48)) || get_le(e, 56, 8) != 0) return false;
  for (std::size_t i = 0; i < 16; ++i) {
    if (static_cast<unsigned char>(e[16 + i]) != key[i]) return false;
  }
  const uint64_t length = get_le(e, 32, 8);
  if (length != e.size() - kEntryHeaderSize) return false;
  const std::string_view payload = e.substr(kEntryHeaderSize);
  if (get_le(e, 40, 8) != fnv1a64(payload)) return false;
  ptx->assign(payload);
  return true;
}

inline std::string hex(const std::array<unsigned char, 16>& key) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s;
  for (const unsigned char b : key) {
    s += digits[b >> 4];
    s += digits[b & 15];
  }
  return s;
}

}  // namespace detail

// Where the process-wide cache keeps its files (see the top of this file); empty when neither
// variable nor HOME is set, and the cache then lives in memory only.
inline std::filesystem::path default_kernel_cache_dir() {
  const auto env = [](const char* name) -> std::string {
    const char* v = std::getenv(name);
    return v != nullptr ? std::string(v) : std::string();
  };
  if (std::string dir = env("TENSORPLAY_CUDA_CACHE_DIR"); !dir.empty()) return dir;
  // The XDG spec: a relative XDG_CACHE_HOME is invalid and ignored.
  if (std::string xdg = env("XDG_CACHE_HOME"); !xdg.empty() && xdg.front() == '/') {
    return std::filesystem::path(xdg) / "tensorplay" / "cuda";
  }
  if (std::string home = env("HOME"); !home.empty()) {
    return std::filesystem::path(home) / ".cache" / "tensorplay" / "cuda";
  }
  return {};
}

// Kernel source -> PTX, compiled once per process and once per machine (see the top of this
// file). Thread safe: the map is guarded by a mutex, compilations run outside it (in parallel
// for different kernels), and the counters are atomic.
class KernelCache {
 public:
  using Ptx = std::shared_ptr<const std::string>;

  // An empty `directory` keeps the cache in memory only.
  explicit KernelCache(std::filesystem::path directory = {}) : dir_(std::move(directory)) {}
  KernelCache(const KernelCache&) = delete;
  KernelCache& operator=(const KernelCache&) = delete;

  const std::filesystem::path& directory() const noexcept { return dir_; }

  // The PTX of `source` (compile_to_ptx_uncached's arguments), from memory, disk or NVRTC.
  // Throws what compile_to_ptx_uncached throws; a failure is not cached.
  Ptx get(std::string_view source, std::string_view name, int arch,
          const std::vector<std::string>& options = {}) {
    std::string material = detail::kernel_key_material(source, name, arch, options);
    std::promise<Ptx> promise;
    std::shared_future<Ptx> pending;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      const auto it = entries_.find(material);
      if (it != entries_.end()) {
        pending = it->second;
      } else {
        entries_.emplace(material, promise.get_future().share());
      }
    }
    if (pending.valid()) {
      Ptx ptx = pending.get();  // rethrows the compiling thread's error
      memory_hits_.fetch_add(1, std::memory_order_relaxed);
      return ptx;
    }
    try {
      Ptx ptx = std::make_shared<const std::string>(
          load_or_compile(material, source, name, arch, options));
      promise.set_value(ptx);
      return ptx;
    } catch (...) {
      promise.set_exception(std::current_exception());
      const std::lock_guard<std::mutex> lock(mutex_);
      entries_.erase(material);  // the next call tries again
      throw;
    }
  }

  // The file that holds (or would hold) that kernel's entry; empty for a memory-only cache.
  std::filesystem::path entry_path(std::string_view source, std::string_view name, int arch,
                                   const std::vector<std::string>& options = {}) const {
    if (dir_.empty()) return {};
    return entry_path_for(
        detail::fnv1a128(detail::kernel_key_material(source, name, arch, options)));
  }

  KernelCacheStats stats() const noexcept {
    KernelCacheStats s;
    s.memory_hits = memory_hits_.load(std::memory_order_relaxed);
    s.disk_hits = disk_hits_.load(std::memory_order_relaxed);
    s.compilations = compilations_.load(std::memory_order_relaxed);
    s.disk_writes = disk_writes_.load(std::memory_order_relaxed);
    s.corrupt_entries = corrupt_entries_.load(std::memory_order_relaxed);
    s.disk_errors = disk_errors_.load(std::memory_order_relaxed);
    return s;
  }

 private:
  std::filesystem::path entry_path_for(const std::array<unsigned char, 16>& key) const {
    return dir_ / (detail::hex(key) + ".ptx");
  }

  std::string load_or_compile(const std::string& material, std::string_view source,
                              std::string_view name, int arch,
                              const std::vector<std::string>& options) {
    const std::array<unsigned char, 16> key = detail::fnv1a128(material);
    std::string ptx;
    if (!dir_.empty() && read_entry(key, &ptx)) {
      disk_hits_.fetch_add(1, std::memory_order_relaxed);
      return ptx;
    }
    compilations_.fetch_add(1, std::memory_order_relaxed);
    ptx = compile_to_ptx_uncached(source, name, arch, options);
    if (!dir_.empty()) write_entry(key, ptx);
    return ptx;
  }

  bool read_entry(const std::array<unsigned char, 16>& key, std::string* ptx) {
    const std::filesystem::path path = entry_path_for(key);
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) {
      if (ec) disk_errors_.fetch_add(1, std::memory_order_relaxed);  // not merely absent
      return false;
    }
    std::ifstream in(path, std::ios::binary);
    if (!in) {
      disk_errors_.fetch_add(1, std::memory_order_relaxed);
      return false;
    }
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (!in.bad() && detail::decode_entry(bytes, key, ptx)) return true;
    // Never trusted: deleted (a concurrent writer's rename may already have replaced it, in
    // which case this removes a good entry, which is rebuilt; correctness does not depend on
    // the race) and compiled again.
    corrupt_entries_.fetch_add(1, std::memory_order_relaxed);
    std::filesystem::remove(path, ec);
    return false;
  }

  void write_entry(const std::array<unsigned char, 16>& key, std::string_view ptx) {
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec) {
      disk_errors_.fetch_add(1, std::memory_order_relaxed);
      return;
    }
    const std::filesystem::path path = entry_path_for(key);
    // Unique per process and write: a rename then publishes a whole entry atomically.
    std::filesystem::path tmp = path;
    tmp += ::tensorplay::detail::str_cat(".tmp.", static_cast<long>(::getpid()), ".",
                                         temp_counter_.fetch_add(1, std::memory_order_relaxed));
    const std::string entry = detail::encode_entry(key, ptx);
    bool ok = false;
    {
      std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
      if (out) {
        out.write(entry.data(), static_cast<std::streamsize>(entry.size()));
        out.close();
        ok = !out.fail();
      }
    }
    if (ok) {
      std::filesystem::rename(tmp, path, ec);
      ok = !ec;
    }
    if (!ok) {
      disk_errors_.fetch_add(1, std::memory_order_relaxed);
      std::filesystem::remove(tmp, ec);
      return;
    }
    disk_writes_.fetch_add(1, std::memory_order_relaxed);
  }

  const std::filesystem::path dir_;
  std::mutex mutex_;  // guards entries_
  // Keyed by the whole key material (not its hash): a hit in memory is exact.
  std::unordered_map<std::string, std::shared_future<Ptx>> entries_;
  std::atomic<int64_t> memory_hits_{0}, disk_hits_{0}, compilations_{0}, disk_writes_{0};
  std::atomic<int64_t> corrupt_entries_{0}, disk_errors_{0};
  std::atomic<uint64_t> temp_counter_{0};
};

// The process's cache, in default_kernel_cache_dir() as it was at first use. Never destroyed:
// kernels may be compiled during static destruction.
inline KernelCache& kernel_cache() {
  static KernelCache* const cache = new KernelCache(default_kernel_cache_dir());
  return *cache;
}

// compile_to_ptx_uncached through the process's cache.
inline std::string compile_to_ptx(std::string_view source, std::string_view name, int arch,
                                  const std::vector<std::string>& options = {}) {
  return *kernel_cache().get(source, name, arch, options);
}

}  // namespace tensorplay::cuda

#undef TP_NVRTC_CHECK_
