// Run-time compilation (backends/cuda/nvrtc.hpp): NVRTC to PTX without a GPU, its typed error,
// and the kernel cache's two levels: the process's map (one compilation however many threads
// ask) and the disk (shared, checked on every read, rebuilt when damaged, best effort when the
// directory is unusable). Every test uses its own directory under /tmp.
#include <catch2/catch.hpp>

#include <tensorplay/backends/cuda/nvrtc.hpp>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace cuda_nvrtc_test {

namespace tc = tensorplay::cuda;
namespace fs = std::filesystem;
using Catch::Matchers::Contains;

constexpr const char* kKernel =
    "extern \"C\" __global__ void tp_test_scale(float* p, float s) {\n"
    "  p[blockIdx.x * blockDim.x + threadIdx.x] *= s;\n"
    "}\n";

// A fresh directory, removed with everything in it at the end of the test.
class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "tp_nvrtc_test.XXXXXX").string();
    REQUIRE(::mkdtemp(pattern.data()) != nullptr);
    path_ = pattern;
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
void write_file(const fs::path& p, const std::string& bytes) {
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Sets an environment variable for a scope and restores it.
class EnvVar {
 public:
  EnvVar(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value != nullptr) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~EnvVar() {
    if (old_) {
      ::setenv(name_, old_->c_str(), 1);
    } else {
      ::unsetenv(name_);
    }
  }
  EnvVar(const EnvVar&) = delete;
  EnvVar& operator=(const EnvVar&) = delete;

 private:
  const char* name_;
  std::optional<std::string> old_;
};

TEST_CASE("NVRTC compiles CUDA C++ to PTX without a GPU", "[cuda][nvrtc]") {
  const auto [major, minor] = tc::nvrtc_version();
  CHECK(major >= 11);
  CHECK(minor >= 0);
  for (const int arch : {80, 90}) {
    const std::string ptx = tc::compile_to_ptx_uncached(kKernel, "scale", arch);
    CHECK_THAT(ptx, Contains(".version "));
    CHECK_THAT(ptx, Contains(".target sm_" + std::to_string(arch)));
    CHECK_THAT(ptx, Contains(".entry tp_test_scale"));
    CHECK(ptx.back() != '\0');
  }
  // Options after the architecture reach NVRTC.
  const std::string ptx = tc::compile_to_ptx_uncached(
      "extern \"C\" __global__ void k(int* p) { p[0] = VALUE; }", "defined", 80, {"-DVALUE=42"});
  CHECK_THAT(ptx, Contains("42"));
}

TEST_CASE("a compilation error throws NVRTCError with the log and the kernel's name",
          "[cuda][nvrtc]") {
  const std::string broken = "extern \"C\" __global__ void k(float* p) { p[0] = undeclared_x; }";
  try {
    (void)tc::compile_to_ptx_uncached(broken, "broken_kernel", 80);
    FAIL("no error");
  } catch (const tc::NVRTCError& e) {
    CHECK(e.result() == NVRTC_ERROR_COMPILATION);
    CHECK_THAT(e.log(), Contains("undeclared_x"));
    CHECK_THAT(e.log(), Contains("broken_kernel.cu"));
    const std::string what = e.what();
    CHECK_THAT(what, Contains("CUDA NVRTC error: NVRTC_ERROR_COMPILATION"));
    CHECK_THAT(what, Contains("compiling kernel 'broken_kernel' for sm_80"));
    CHECK_THAT(what, Contains(e.log()));
  }
  // A tensorplay::Error, as every error of the library.
  CHECK_THROWS_AS(tc::compile_to_ptx_uncached(broken, "k", 90), tensorplay::Error);
  // An invalid option is NVRTC's error too, without a compilation log.
  CHECK_THROWS_AS(tc::compile_to_ptx_uncached(kKernel, "k", 80, {"--no-such-option"}),
                  tc::NVRTCError);
}

TEST_CASE("an architecture NVRTC does not support is a ValueError", "[cuda][nvrtc]") {
  CHECK_THROWS_AS(tc::compile_to_ptx_uncached(kKernel, "k", 12), tensorplay::ValueError);
  CHECK_THROWS_WITH(tc::compile_to_ptx_uncached(kKernel, "old", 12),
                    Contains("cannot compile kernel 'old' for sm_12; it supports ") &&
                        Contains("80") && Contains("90"));
  const std::vector<int>& archs = tc::nvrtc_supported_archs();
  CHECK(std::find(archs.begin(), archs.end(), 80) != archs.end());
  CHECK(std::find(archs.begin(), archs.end(), 90) != archs.end());
}

TEST_CASE("kernel cache: memory, then disk, then NVRTC", "[cuda][nvrtc][cache]") {
  const TempDir dir;
  const fs::path cache_dir = dir.path() / "nested" / "cuda";  // made on first write
  std::string first;
  {
    tc::KernelCache cache(cache_dir);
    CHECK(cache.directory() == cache_dir);
    first = *cache.get(kKernel, "scale", 80);
    CHECK_THAT(first, Contains(".target sm_80"));
    tc::KernelCacheStats s = cache.stats();
    CHECK(s.compilations == 1);
    CHECK(s.disk_writes == 1);
    CHECK(s.disk_hits == 0);
    CHECK(s.memory_hits == 0);
    const fs::path entry = cache.entry_path(kKernel, "scale", 80);
    CHECK(entry.parent_path() == cache_dir);
    CHECK(fs::is_regular_file(entry));
    // The second request is served from memory: the same PTX object.
    const tc::KernelCache::Ptx a = cache.get(kKernel, "scale", 80);
    const tc::KernelCache::Ptx b = cache.get(kKernel, "scale", 80);
    CHECK(a == b);
    s = cache.stats();
    CHECK(s.memory_hits == 2);
    CHECK(s.compilations == 1);
    // Another arch, name or option is another kernel, and another file.
    (void)cache.get(kKernel, "scale", 90);
    (void)cache.get(kKernel, "scale", 80, {"--fmad=false"});
    (void)cache.get(kKernel, "scale_again", 80);
    CHECK(cache.stats().compilations == 4);
    CHECK(cache.entry_path(kKernel, "scale", 90) != entry);
    CHECK(cache.entry_path(kKernel, "scale", 80, {"--fmad=false"}) != entry);
    std::size_t files = 0;
    for (const auto& e : fs::directory_iterator(cache_dir)) files += e.is_regular_file() ? 1 : 0;
    CHECK(files == 4);  // and no temporary files left behind
  }
  // A new process (a new cache over the same directory) reads it from disk.
  tc::KernelCache again(cache_dir);
  CHECK(*again.get(kKernel, "scale", 80) == first);
  const tc::KernelCacheStats s = again.stats();
  CHECK(s.disk_hits == 1);
  CHECK(s.compilations == 0);
  CHECK(s.corrupt_entries == 0);
  // A memory-only cache has no files.
  tc::KernelCache memory;
  CHECK(memory.directory().empty());
  CHECK(memory.entry_path(kKernel, "scale", 80).empty());
  CHECK(*memory.get(kKernel, "scale", 80) == first);
  CHECK(memory.stats().compilations == 1);
}

TEST_CASE("kernel cache: a damaged entry is deleted and rebuilt, never used",
          "[cuda][nvrtc][cache]") {
  const TempDir dir;
  std::string good_ptx, good_entry;
  fs::path entry;
  {
    tc::KernelCache cache(dir.path());
    good_ptx = *cache.get(kKernel, "scale", 80);
    entry = cache.entry_path(kKernel, "scale", 80);
    good_entry = read_file(entry);
  }
  REQUIRE(good_entry.size() == 64 + good_ptx.size());
  REQUIRE(good_entry.compare(64, std::string::npos, good_ptx) == 0);
  // A different kernel's valid entry, to be put in this one's place.
  std::string other_entry;
  {
    tc::KernelCache cache(dir.path());
    (void)cache.get(kKernel, "scale", 90);
    other_entry = read_file(cache.entry_path(kKernel, "scale", 90));
  }
  const auto flip = [&](std::size_t at) {
    std::string e = good_entry;
    e[at] = static_cast<char>(e[at] ^ 0x20);
    return e;
  };
  const std::vector<std::pair<const char*, std::string>> damage = {
      {"truncated in the payload", good_entry.substr(0, good_entry.size() / 2)},
      {"truncated in the header", good_entry.substr(0, 20)},
      {"empty", std::string()},
      {"a byte of the payload flipped", flip(64 + good_ptx.size() / 3)},
      {"the last byte flipped", flip(good_entry.size() - 1)},
      {"the magic damaged", flip(2)},
      {"another format version", flip(8)},
      {"the key damaged", flip(20)},
      {"the length damaged", flip(33)},
      {"the payload checksum damaged", flip(41)},
      {"the header checksum damaged", flip(50)},
      {"the reserved bytes set", flip(60)},
      {"bytes appended", good_entry + "garbage"},
      {"another kernel's entry", other_entry},
  };
  for (const auto& [what, bytes] : damage) {
    INFO(what);
    write_file(entry, bytes);
    tc::KernelCache cache(dir.path());
    CHECK(*cache.get(kKernel, "scale", 80) == good_ptx);
    const tc::KernelCacheStats s = cache.stats();
    CHECK(s.corrupt_entries == 1);
    CHECK(s.disk_hits == 0);
    CHECK(s.compilations == 1);
    CHECK(s.disk_writes == 1);
    CHECK(read_file(entry) == good_entry);  // rebuilt
  }
  // ...and the rebuilt entry is used again.
  tc::KernelCache cache(dir.path());
  CHECK(*cache.get(kKernel, "scale", 80) == good_ptx);
  CHECK(cache.stats().disk_hits == 1);
}

TEST_CASE("kernel cache: an unusable directory still compiles", "[cuda][nvrtc][cache]") {
  const TempDir dir;
  // Under a regular file no directory can be made (whatever the permissions, root's included).
  write_file(dir.path() / "a_file", "not a directory");
  for (const fs::path& unusable : {dir.path() / "a_file" / "cuda", dir.path() / "a_file"}) {
    INFO(unusable.string());
    tc::KernelCache cache(unusable);
    const std::string ptx = *cache.get(kKernel, "scale", 80);
    CHECK_THAT(ptx, Contains(".entry tp_test_scale"));
    const tc::KernelCacheStats s = cache.stats();
    CHECK(s.compilations == 1);
    CHECK(s.disk_writes == 0);
    CHECK(s.disk_errors >= 1);
    // Memory still caches.
    (void)cache.get(kKernel, "scale", 80);
    CHECK(cache.stats().memory_hits == 1);
  }
}

TEST_CASE("kernel cache: a failed compilation is not cached", "[cuda][nvrtc][cache]") {
  const TempDir dir;
  tc::KernelCache cache(dir.path());
  const std::string broken = "extern \"C\" __global__ void k() { syntax error }";
  CHECK_THROWS_AS(cache.get(broken, "broken", 80), tc::NVRTCError);
  CHECK_THROWS_AS(cache.get(broken, "broken", 80), tc::NVRTCError);
  CHECK(cache.stats().compilations == 2);
  CHECK(cache.stats().disk_writes == 0);
  CHECK_FALSE(fs::exists(cache.entry_path(broken, "broken", 80)));
}

TEST_CASE("kernel cache: threads asking for one kernel compile it once", "[cuda][nvrtc][cache]") {
  const TempDir dir;
  tc::KernelCache cache(dir.path());
  constexpr int kThreads = 4;
  std::vector<tc::KernelCache::Ptx> got(kThreads);
  {
    std::vector<std::thread> threads;
    for (int t = 0; t < kThreads; ++t) {
      threads.emplace_back([&, t] { got[std::size_t(t)] = cache.get(kKernel, "scale", 80); });
    }
    for (std::thread& t : threads) t.join();
  }
  for (const tc::KernelCache::Ptx& p : got) CHECK(p == got[0]);
  const tc::KernelCacheStats s = cache.stats();
  CHECK(s.compilations == 1);
  CHECK(s.memory_hits == kThreads - 1);
  // Two caches over one directory (two processes) writing the same entry at once: both
  // succeed and the entry is whole.
  const TempDir shared;
  tc::KernelCache a(shared.path()), b(shared.path());
  std::string pa, pb;
  std::thread ta([&] { pa = *a.get(kKernel, "scale", 90); });
  std::thread tb([&] { pb = *b.get(kKernel, "scale", 90); });
  ta.join();
  tb.join();
  CHECK(pa == pb);
  tc::KernelCache c(shared.path());
  CHECK(*c.get(kKernel, "scale", 90) == pa);
  CHECK(c.stats().disk_hits == 1);
}

TEST_CASE("kernel cache directory: TENSORPLAY_CUDA_CACHE_DIR, XDG_CACHE_HOME, HOME",
          "[cuda][nvrtc][cache]") {
  const TempDir dir;
  const std::string mine = (dir.path() / "mine").string();
  {
    const EnvVar a("TENSORPLAY_CUDA_CACHE_DIR", mine.c_str());
    const EnvVar b("XDG_CACHE_HOME", "/xdg");
    CHECK(tc::default_kernel_cache_dir() == fs::path(mine));
  }
  {
    const EnvVar a("TENSORPLAY_CUDA_CACHE_DIR", nullptr);
    const EnvVar b("XDG_CACHE_HOME", "/xdg");
    const EnvVar c("HOME", "/home/someone");
    CHECK(tc::default_kernel_cache_dir() == fs::path("/xdg/tensorplay/cuda"));
  }
  {
    // Empty variables count as unset; a relative XDG_CACHE_HOME is invalid (the XDG spec).
    const EnvVar a("TENSORPLAY_CUDA_CACHE_DIR", "");
    const EnvVar b("XDG_CACHE_HOME", "relative/cache");
    const EnvVar c("HOME", "/home/someone");
    CHECK(tc::default_kernel_cache_dir() == fs::path("/home/someone/.cache/tensorplay/cuda"));
  }
  {
    const EnvVar a("TENSORPLAY_CUDA_CACHE_DIR", nullptr);
    const EnvVar b("XDG_CACHE_HOME", nullptr);
    const EnvVar c("HOME", nullptr);
    CHECK(tc::default_kernel_cache_dir().empty());
  }
  // The process's cache takes the directory at its first use, which in this binary is here.
  const EnvVar a("TENSORPLAY_CUDA_CACHE_DIR", mine.c_str());
  const std::string ptx = tc::compile_to_ptx(kKernel, "scale_global", 80);
  CHECK_THAT(ptx, Contains(".entry tp_test_scale"));
  CHECK(tc::compile_to_ptx(kKernel, "scale_global", 80) == ptx);
  if (tc::kernel_cache().directory() == fs::path(mine)) {
    CHECK(fs::is_regular_file(tc::kernel_cache().entry_path(kKernel, "scale_global", 80)));
  } else {
    WARN("the process's kernel cache was made before this test; its directory is not checked");
  }
}

}  // namespace cuda_nvrtc_test
