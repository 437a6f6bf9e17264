// Loading and launching the run-time compiled kernels: the CUDA driver's module API, reached
// without linking the driver.
//
//   const KernelCache::Ptx ptx = kernel_cache().get(source, "my_kernel", arch);
//   CUfunction f = module_cache().function(device, ptx, "my_kernel");
//   void* args[] = {&params};
//   launch(f, dim3(blocks), dim3(128), 0, stream, args);
//
// libcuda.so.1 exists only where a driver is installed, so nothing here calls a cu* function
// by name: driver_api() asks the runtime (cudaGetDriverEntryPointByVersion) for the few entry
// points once per process, and a machine without a driver gets CUDAUnavailableError with the
// runtime's reason, the first time a kernel is needed, not at start-up.
//
// Modules are cached per (device, PTX identity): the identity is the address of a KernelCache
// entry, which the cache holds (and kernel_cache() never frees), so it can never be reused by
// other PTX. Each is loaded once into the device's primary context (the runtime's), however many
// threads ask, and kept for the process's life: unloading at exit races the driver's own
// teardown, as it does for c10's jiterator.
//
// Failures are CUDADriverError, with PyTorch's "CUDA driver error: ..." wording; a module that
// does not load carries the JIT's log.
#pragma once

#include <tensorplay/backends/cuda/error.hpp>
#include <tensorplay/backends/cuda/nvrtc.hpp>
#include <tensorplay/backends/cuda/runtime.hpp>
#include <tensorplay/backends/cuda/stream.hpp>
#include <tensorplay/core/device.hpp>
#include <tensorplay/core/error.hpp>

// For the driver's types and its PFN_ function pointer typedefs only: no cu* symbol is used.
#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime_api.h>

#include <array>
#include <cstdint>
#include <cstring>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>

namespace tensorplay::cuda {

// A driver API call failed: result() is its CUresult, error() the runtime's code of the same
// number (the runtime mirrors the driver's codes for what these calls return, checked below).
class CUDADriverError : public CUDAError {
 public:
  CUDADriverError(std::string msg, CUresult result)
      : CUDAError(std::move(msg), static_cast<cudaError_t>(result)), result_(result) {}
  CUresult result() const noexcept { return result_; }

 private:
  CUresult result_;
};
static_assert(int(CUDA_ERROR_INVALID_VALUE) == int(cudaErrorInvalidValue) &&
                  int(CUDA_ERROR_OUT_OF_MEMORY) == int(cudaErrorMemoryAllocation) &&
                  int(CUDA_ERROR_NO_BINARY_FOR_GPU) == int(cudaErrorNoKernelImageForDevice) &&
                  int(CUDA_ERROR_INVALID_PTX) == int(cudaErrorInvalidPtx) &&
                  int(CUDA_ERROR_UNSUPPORTED_PTX_VERSION) == int(cudaErrorUnsupportedPtxVersion) &&
                  int(CUDA_ERROR_INVALID_HANDLE) == int(cudaErrorInvalidResourceHandle) &&
                  int(CUDA_ERROR_NOT_FOUND) == int(cudaErrorSymbolNotFound) &&
                  int(CUDA_ERROR_ILLEGAL_ADDRESS) == int(cudaErrorIllegalAddress) &&
                  int(CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES) == int(cudaErrorLaunchOutOfResources) &&
                  int(CUDA_ERROR_LAUNCH_FAILED) == int(cudaErrorLaunchFailure),
              "CUDADriverError::error() relies on the driver's and the runtime's codes agreeing");

// The driver entry points the kernels need, as the driver exports them for kDriverApiVersion.
struct DriverAPI {
  PFN_cuGetErrorString_v6000 get_error_string = nullptr;
  PFN_cuGetErrorName_v6000 get_error_name = nullptr;
  PFN_cuCtxGetCurrent_v4000 ctx_get_current = nullptr;
  PFN_cuModuleLoadDataEx_v2010 module_load_data_ex = nullptr;
  PFN_cuModuleGetFunction_v2000 module_get_function = nullptr;
  PFN_cuModuleUnload_v2000 module_unload = nullptr;
  PFN_cuLaunchKernel_v4000 launch_kernel = nullptr;
};

// The ABI asked for: these entry points have not changed since CUDA 12.0, and asking for the
// oldest version that has them all keeps the pointers' types those of the typedefs above.
inline constexpr unsigned kDriverApiVersion = 12000;

// cudaGetDriverEntryPointByVersion's signature (a parameter, so that tests can stand in for a
// driver that is missing, too old, or present).
using DriverEntryPointLookup = cudaError_t (*)(const char* symbol, void** function,
                                               unsigned cuda_version, unsigned long long flags,
                                               cudaDriverEntryPointQueryResult* status);

namespace detail {

// One entry point, or CUDAUnavailableError saying why there is none.
template <class F>
void resolve_entry_point(DriverEntryPointLookup lookup, const char* symbol, F* out) {
  void* function = nullptr;
  cudaDriverEntryPointQueryResult status = cudaDriverEntryPointSymbolNotFound;
  // cudaEnableDefault: a null stream means what it means to the runtime calls of this program
  // (legacy, or per-thread under CUDA_API_PER_THREAD_DEFAULT_STREAM), as for its copies.
  const cudaError_t error =
      lookup(symbol, &function, kDriverApiVersion, cudaEnableDefault, &status);
  if (error != cudaSuccess) {
    (void)cudaGetLastError();  // not left for the next runtime call to report
    throw CUDAUnavailableError(
        ::tensorplay::detail::str_cat(describe_unavailable(error),
                                      " (looking up the CUDA driver's ", symbol, ")"),
        error);
  }
  if (status != cudaDriverEntryPointSuccess || function == nullptr) {
    const bool old = status == cudaDriverEntryPointVersionNotSufficent;
    throw CUDAUnavailableError(
        ::tensorplay::detail::str_cat(
            "CUDA driver error: the NVIDIA driver ", old ? "is too old to export " : "has no ",
            symbol, " for CUDA ", kDriverApiVersion / 1000, ".", kDriverApiVersion % 1000 / 10,
            old ? " (cudaDriverEntryPointVersionNotSufficent)"
                : " (cudaDriverEntryPointSymbolNotFound)",
            "; TensorPlay's CUDA kernels need it: install a newer driver"),
        old ? cudaErrorInsufficientDriver : cudaErrorSymbolNotFound);
  }
  *out = reinterpret_cast<F>(function);
}

}  // namespace detail

// Every entry point through `lookup`, or CUDAUnavailableError for the first that is missing.
inline DriverAPI resolve_driver_api(DriverEntryPointLookup lookup) {
  DriverAPI api;
  detail::resolve_entry_point(lookup, "cuGetErrorString", &api.get_error_string);
  detail::resolve_entry_point(lookup, "cuGetErrorName", &api.get_error_name);
  detail::resolve_entry_point(lookup, "cuCtxGetCurrent", &api.ctx_get_current);
  detail::resolve_entry_point(lookup, "cuModuleLoadDataEx", &api.module_load_data_ex);
  detail::resolve_entry_point(lookup, "cuModuleGetFunction", &api.module_get_function);
  detail::resolve_entry_point(lookup, "cuModuleUnload", &api.module_unload);
  detail::resolve_entry_point(lookup, "cuLaunchKernel", &api.launch_kernel);
  return api;
}

namespace detail {
// The process's resolution, done once (thread-safe static initialisation); a failure is kept
// and reported to every caller, as runtime.hpp's device probe is.
struct DriverProbe {
  DriverAPI api;
  std::string error;  // empty when resolved
  cudaError_t code = cudaSuccess;
};
inline const DriverProbe& driver_probe() {
  static const DriverProbe probe = [] {
    DriverProbe p;
    try {
      p.api = resolve_driver_api(&cudaGetDriverEntryPointByVersion);
    } catch (const CUDAError& e) {
      p.error = e.what();
      p.code = e.error();
    }
    return p;
  }();
  return probe;
}
}  // namespace detail

// The driver's entry points; CUDAUnavailableError where there is no (recent enough) driver.
inline const DriverAPI& driver_api() {
  const detail::DriverProbe& p = detail::driver_probe();
  if (!p.error.empty()) throw CUDAUnavailableError(p.error, p.code);
  return p.api;
}

// ---- errors ------------------------------------------------------------------------------------

// PyTorch's AT_CUDA_DRIVER_CHECK message ("CUDA driver error: <cuGetErrorString>", or "unknown
// error" when the driver cannot name it), with the CUresult's name and what was being done.
inline std::string driver_error_message(const DriverAPI& api, CUresult result,
                                        std::string_view when) {
  const char* text = nullptr;
  const char* name = nullptr;
  if (api.get_error_string == nullptr || api.get_error_string(result, &text) != CUDA_SUCCESS ||
      text == nullptr) {
    text = "unknown error";
  }
  if (api.get_error_name == nullptr || api.get_error_name(result, &name) != CUDA_SUCCESS ||
      name == nullptr) {
    name = "CUDA_ERROR_UNKNOWN";
  }
  return ::tensorplay::detail::str_cat("CUDA driver error: ", text, " (", name, " when ", when,
                                       ")");
}

[[noreturn]] inline void throw_driver_error(const DriverAPI& api, CUresult result,
                                            std::string_view when, std::string_view log = {}) {
  std::string msg = driver_error_message(api, result, when);
  if (!log.empty()) msg += ::tensorplay::detail::str_cat(":\n", log);
  throw CUDADriverError(std::move(msg), result);
}

inline void check_driver(const DriverAPI& api, CUresult result, std::string_view when) {
  if (result != CUDA_SUCCESS) throw_driver_error(api, result, when);
}

// ---- modules -----------------------------------------------------------------------------------

// A loaded module, unloaded when destroyed (from its device's context, which the destructor
// makes current if it knows the device). Move-only.
class Module {
 public:
  Module() = default;
  Module(const DriverAPI& api, CUmodule module, DeviceIndex device) noexcept
      : api_(&api), module_(module), device_(device) {}
  Module(Module&& other) noexcept { *this = std::move(other); }
  Module& operator=(Module&& other) noexcept {
    if (this != &other) {
      unload();
      api_ = other.api_;
      module_ = std::exchange(other.module_, nullptr);
      device_ = other.device_;
    }
    return *this;
  }
  Module(const Module&) = delete;
  Module& operator=(const Module&) = delete;
  ~Module() { unload(); }

  CUmodule get() const noexcept { return module_; }
  DeviceIndex device() const noexcept { return device_; }
  explicit operator bool() const noexcept { return module_ != nullptr; }

  // The module's kernel `name` (an extern "C" entry): CUDADriverError (CUDA_ERROR_NOT_FOUND)
  // when it has none.
  CUfunction function(const std::string& name) const {
    TP_CHECK(module_ != nullptr, "cuda: looking up '", name, "' in an empty module");
    CUfunction f = nullptr;
    const CUresult r = api_->module_get_function(&f, module_, name.c_str());
    if (r != CUDA_SUCCESS) {
      throw_driver_error(*api_, r, ::tensorplay::detail::str_cat("looking up kernel '", name, "'"));
    }
    return f;
  }

 private:
  void unload() noexcept {
    if (module_ == nullptr) return;
    int previous = -1;
    const bool switch_device = device_ >= 0 && cudaGetDevice(&previous) == cudaSuccess &&
                               previous != device_ && cudaSetDevice(device_) == cudaSuccess;
    (void)api_->module_unload(std::exchange(module_, nullptr));
    if (switch_device) (void)cudaSetDevice(previous);
    (void)cudaGetLastError();
  }

  const DriverAPI* api_ = nullptr;
  CUmodule module_ = nullptr;
  DeviceIndex device_ = -1;
};

// The JIT's error log buffer: large enough for ptxas's messages on a whole module.
inline constexpr std::size_t kJitLogBytes = 16384;

// Loads PTX (NUL-terminated text) into the current context; `device` (-1: unknown) is only
// remembered for unloading. A failure is CUDADriverError with the JIT's log.
inline Module load_module(const DriverAPI& api, const std::string& ptx, DeviceIndex device = -1) {
  std::array<char, kJitLogBytes> log{};
  std::array<CUjit_option, 2> options = {CU_JIT_ERROR_LOG_BUFFER,
                                         CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  // The driver's convention: option values are pointer-sized, a size passed in the pointer.
  std::array<void*, 2> values = {log.data(),
                                 reinterpret_cast<void*>(static_cast<std::uintptr_t>(log.size()))};
  CUmodule module = nullptr;
  const CUresult r = api.module_load_data_ex(
      &module, ptx.c_str(), static_cast<unsigned>(options.size()), options.data(), values.data());
  if (r != CUDA_SUCCESS) {
    log.back() = '\0';
    std::string text(log.data());
    while (!text.empty() && (text.back() == '\n' || text.back() == '\0')) text.pop_back();
    throw_driver_error(api, r,
                       device >= 0
                           ? ::tensorplay::detail::str_cat("loading a module on cuda:", int(device))
                           : std::string("loading a module"),
                       text);
  }
  return Module(api, module, device);
}

namespace detail {
// Makes sure the calling thread has a context for the driver calls that follow: the runtime
// binds the current device's primary context lazily, on the first runtime call that needs one,
// and a thread that has only selected a device may not have it yet (c10's jiterator does the
// same: cudaFree(nullptr) is the runtime's documented way to force it).
inline void ensure_context(const DriverAPI& api) {
  CUcontext context = nullptr;
  check_driver(api, api.ctx_get_current(&context), "reading the current context");
  if (context == nullptr) TP_CUDA_CHECK(cudaFree(nullptr), "initialising the device's context");
}
}  // namespace detail

// Loads PTX into device's primary context (the runtime's, so that kernels see its memory and
// streams), with the device made current for the call.
inline Module load_module_on_device(const DriverAPI& api, DeviceIndex device,
                                    const std::string& ptx) {
  CUDAGuard guard(device);
  detail::ensure_context(api);
  return load_module(api, ptx, guard.current_device().index());
}

// Modules per (device, PTX identity), and their kernels per name. Thread safe: the maps are
// guarded by a mutex; a module is loaded outside it, once however many threads ask for it (the
// others wait for that load, as KernelCache's compilations), and a failed load is not cached.
class ModuleCache {
 public:
  using Ptx = KernelCache::Ptx;
  // How a module is loaded (load_module_on_device; tests stand in for the device).
  using Loader = Module (*)(const DriverAPI&, DeviceIndex, const std::string&);

  explicit ModuleCache(const DriverAPI& api, Loader loader = &load_module_on_device)
      : api_(&api), loader_(loader) {}
  ModuleCache(const ModuleCache&) = delete;
  ModuleCache& operator=(const ModuleCache&) = delete;

  // The module of ptx on device, loading it on first use.
  CUmodule module(DeviceIndex device, const Ptx& ptx) { return entry(device, ptx)->get(); }

  // Kernel `name` of that module, looked up once.
  CUfunction function(DeviceIndex device, const Ptx& ptx, const std::string& name) {
    const std::shared_ptr<const Module> m = entry(device, ptx);
    const Key key{device, ptx.get()};
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      const auto& functions = entries_.at(key).functions;
      if (const auto it = functions.find(name); it != functions.end()) return it->second;
    }
    const CUfunction f = m->function(name);  // outside the lock: a driver call
    const std::lock_guard<std::mutex> lock(mutex_);
    entries_.at(key).functions.emplace(name, f);
    return f;
  }

  // Modules loaded (or loading) so far.
  std::size_t size() const {
    const std::lock_guard<std::mutex> lock(mutex_);
    return entries_.size();
  }

 private:
  using Key = std::pair<DeviceIndex, const std::string*>;
  struct Entry {
    Ptx ptx;  // held: the identity stays this PTX's for as long as the entry exists
    std::shared_future<std::shared_ptr<const Module>> module;
    std::unordered_map<std::string, CUfunction> functions;
  };

  std::shared_ptr<const Module> entry(DeviceIndex device, const Ptx& ptx) {
    TP_CHECK(ptx != nullptr, "cuda: loading a module without PTX");
    const Key key{device, ptx.get()};
    std::promise<std::shared_ptr<const Module>> promise;
    std::shared_future<std::shared_ptr<const Module>> pending;
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      const auto it = entries_.find(key);
      if (it != entries_.end()) {
        pending = it->second.module;
      } else {
        entries_.emplace(key, Entry{ptx, promise.get_future().share(), {}});
      }
    }
    if (pending.valid()) return pending.get();  // rethrows the loading thread's error
    try {
      auto m = std::make_shared<const Module>(loader_(*api_, device, *ptx));
      promise.set_value(m);
      return m;
    } catch (...) {
      promise.set_exception(std::current_exception());
      const std::lock_guard<std::mutex> lock(mutex_);
      entries_.erase(key);  // the next call tries again
      throw;
    }
  }

  const DriverAPI* api_;
  Loader loader_;
  mutable std::mutex mutex_;  // guards entries_
  std::map<Key, Entry> entries_;
};

// The process's module cache, over driver_api() (CUDAUnavailableError without a driver). Never
// destroyed: its modules stay loaded until the process ends (see the top of this file).
inline ModuleCache& module_cache() {
  static ModuleCache* const cache = new ModuleCache(driver_api());
  return *cache;
}

// ---- launches ----------------------------------------------------------------------------------

// Launches `function` on `stream` (a runtime stream is a driver stream: cudaStream_t is
// CUstream) with `params`, cuLaunchKernel's array of one pointer per kernel parameter, through
// `api`. The calling thread's current device must be the function's (a CUDAGuard).
inline void launch(const DriverAPI& api, CUfunction function, dim3 grid, dim3 block,
                   unsigned shared_bytes, cudaStream_t stream, void** params) {
  detail::ensure_context(api);
  const CUresult r = api.launch_kernel(function, grid.x, grid.y, grid.z, block.x, block.y, block.z,
                                       shared_bytes, stream, params, nullptr);
  check_driver(api, r, "launching a kernel");
}

inline void launch(CUfunction function, dim3 grid, dim3 block, unsigned shared_bytes,
                   cudaStream_t stream, void** params) {
  launch(driver_api(), function, grid, block, shared_bytes, stream, params);
}

}  // namespace tensorplay::cuda
