// The elementwise ops on CUDA (backends/cuda/pointwise.hpp) and the driver layer they launch
// through (backends/cuda/module.hpp).
//
// Untagged (the cuda.host run, any machine): the driver layer against a stand-in driver (entry
// points missing, too old or present; error messages; JIT logs; the module cache's one load per
// (device, PTX); launch arguments), and everything the kernel step works out on the host,
// proven on iterators over "fake" CUDA tensors (host memory labelled cuda:0): keys, plans, and
// parameters that, run through a host emulation of the kernel's loop, give the CPU's results
// for every layout; the errors raised before any device is touched.
// [no_device]: the real entry-point lookup on a machine without a driver.
// [device]: every PointwiseCode on the GPU against the CPU, in every dtype the op has, on
// contiguous, transposed, broadcast and sliced operands; scalars and CPU 0-d operands; in place
// and out=; 64-bit indexing; streams; the CPU's ZeroDivisionError. Not yet run on hardware.
#include <catch2/catch.hpp>

#include "fake_cuda.hpp"
#include "pointwise_ops.hpp"

#include <tensorplay/backends/cuda/module.hpp>
#include <tensorplay/backends/cuda/pointwise.hpp>
#include <tensorplay/tensorplay.hpp>

#include <algorithm>
#include <atomic>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <exception>
#include <functional>
#include <limits>
#include <mutex>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <typeinfo>
#include <vector>

namespace cuda_pointwise_test {

namespace tp = tensorplay;
namespace tc = tensorplay::cuda;
using C = tp::PointwiseCode;
using Catch::Matchers::Contains;

// ---- a stand-in driver ------------------------------------------------------------------------
// Function pointers with the driver's signatures, recording their calls, so that the module and
// launch layer's own logic runs without libcuda. Tests use it one at a time (Catch2 runs them
// serially; the threaded test only loads through it).
namespace fake {

std::vector<std::string> symbols;  // asked of the entry-point lookup, in order
unsigned version = 0;
unsigned long long flags = ~0ull;
std::atomic<int> loads{0}, unloads{0}, lookups{0}, launches{0};
CUresult load_result = CUDA_SUCCESS;
std::string jit_log;
std::size_t log_capacity = 0;
CUresult launch_result = CUDA_SUCCESS;
struct Launch {
  CUfunction f;
  unsigned grid[3], block[3], shared;
  CUstream stream;
  void** params;
  void** extra;
} last_launch{};

void reset() {
  symbols.clear();
  version = 0;
  flags = ~0ull;
  loads = unloads = lookups = launches = 0;
  load_result = CUDA_SUCCESS;
  jit_log.clear();
  log_capacity = 0;
  launch_result = CUDA_SUCCESS;
  last_launch = {};
}

template <class T>
T handle(std::uintptr_t v) {
  return reinterpret_cast<T>(v);
}

CUresult CUDAAPI get_error_string(CUresult r, const char** s) {
  switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS: *s = "an illegal memory access was encountered"; break;
    case CUDA_ERROR_INVALID_PTX: *s = "a PTX JIT compilation failed"; break;
    case CUDA_ERROR_NOT_FOUND: *s = "named symbol not found"; break;
    default: return CUDA_ERROR_INVALID_VALUE;  // a code the driver cannot name
  }
  return CUDA_SUCCESS;
}
CUresult CUDAAPI get_error_name(CUresult r, const char** s) {
  switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS: *s = "CUDA_ERROR_ILLEGAL_ADDRESS"; break;
    case CUDA_ERROR_INVALID_PTX: *s = "CUDA_ERROR_INVALID_PTX"; break;
    case CUDA_ERROR_NOT_FOUND: *s = "CUDA_ERROR_NOT_FOUND"; break;
    default: return CUDA_ERROR_INVALID_VALUE;
  }
  return CUDA_SUCCESS;
}
CUresult CUDAAPI ctx_get_current(CUcontext* c) {
  *c = handle<CUcontext>(0x10);  // a context is current: no cudaFree(nullptr)
  return CUDA_SUCCESS;
}
CUresult CUDAAPI module_load_data_ex(CUmodule* m, const void*, unsigned n, CUjit_option* options,
                                     void** values) {
  const int id = ++loads;
  if (n == 2 && options[0] == CU_JIT_ERROR_LOG_BUFFER &&
      options[1] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES) {
    log_capacity = reinterpret_cast<std::uintptr_t>(values[1]);
    if (load_result != CUDA_SUCCESS) {
      std::strncpy(static_cast<char*>(values[0]), jit_log.c_str(), log_capacity - 1);
    }
  }
  if (load_result != CUDA_SUCCESS) return load_result;
  std::this_thread::sleep_for(std::chrono::milliseconds(5));  // a JIT takes a while
  *m = handle<CUmodule>(0x1000u * std::uintptr_t(id));
  return CUDA_SUCCESS;
}
CUresult CUDAAPI module_get_function(CUfunction* f, CUmodule m, const char* name) {
  ++lookups;
  if (std::string(name) == "missing") return CUDA_ERROR_NOT_FOUND;
  *f = handle<CUfunction>(reinterpret_cast<std::uintptr_t>(m) + std::strlen(name));
  return CUDA_SUCCESS;
}
CUresult CUDAAPI module_unload(CUmodule) {
  ++unloads;
  return CUDA_SUCCESS;
}
CUresult CUDAAPI launch_kernel(CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                               unsigned by, unsigned bz, unsigned shared, CUstream stream,
                               void** params, void** extra) {
  ++launches;
  last_launch = {f, {gx, gy, gz}, {bx, by, bz}, shared, stream, params, extra};
  return launch_result;
}

tc::DriverAPI api() {
  tc::DriverAPI a;
  a.get_error_string = &get_error_string;
  a.get_error_name = &get_error_name;
  a.ctx_get_current = &ctx_get_current;
  a.module_load_data_ex = &module_load_data_ex;
  a.module_get_function = &module_get_function;
  a.module_unload = &module_unload;
  a.launch_kernel = &launch_kernel;
  return a;
}

// Entry-point lookups: a driver with everything; one missing cuLaunchKernel; one too old for
// cuModuleLoadDataEx; no driver at all (what the runtime answers on this machine).
void* function_for(const std::string& s) {
  const tc::DriverAPI a = api();
  if (s == "cuGetErrorString") return reinterpret_cast<void*>(a.get_error_string);
  if (s == "cuGetErrorName") return reinterpret_cast<void*>(a.get_error_name);
  if (s == "cuCtxGetCurrent") return reinterpret_cast<void*>(a.ctx_get_current);
  if (s == "cuModuleLoadDataEx") return reinterpret_cast<void*>(a.module_load_data_ex);
  if (s == "cuModuleGetFunction") return reinterpret_cast<void*>(a.module_get_function);
  if (s == "cuModuleUnload") return reinterpret_cast<void*>(a.module_unload);
  if (s == "cuLaunchKernel") return reinterpret_cast<void*>(a.launch_kernel);
  return nullptr;
}
cudaError_t lookup_all(const char* symbol, void** f, unsigned v, unsigned long long fl,
                       cudaDriverEntryPointQueryResult* status) {
  symbols.push_back(symbol);
  version = v;
  flags = fl;
  *f = function_for(symbol);
  *status = *f != nullptr ? cudaDriverEntryPointSuccess : cudaDriverEntryPointSymbolNotFound;
  return cudaSuccess;
}
cudaError_t lookup_without_launch(const char* symbol, void** f, unsigned v, unsigned long long fl,
                                  cudaDriverEntryPointQueryResult* status) {
  if (std::string(symbol) == "cuLaunchKernel") {
    *f = nullptr;
    *status = cudaDriverEntryPointSymbolNotFound;
    return cudaSuccess;
  }
  return lookup_all(symbol, f, v, fl, status);
}
cudaError_t lookup_old(const char* symbol, void** f, unsigned v, unsigned long long fl,
                       cudaDriverEntryPointQueryResult* status) {
  if (std::string(symbol) == "cuModuleLoadDataEx") {
    *f = nullptr;
    *status = cudaDriverEntryPointVersionNotSufficent;
    return cudaSuccess;
  }
  return lookup_all(symbol, f, v, fl, status);
}
cudaError_t lookup_no_driver(const char* symbol, void**, unsigned, unsigned long long,
                             cudaDriverEntryPointQueryResult*) {
  symbols.push_back(symbol);
  return cudaErrorInsufficientDriver;
}

}  // namespace fake

// ---- the driver layer, without a driver ---------------------------------------------------------

TEST_CASE("cuda driver entry points: resolved by version, or a typed error saying which",
          "[cuda][module]") {
  fake::reset();
  const tc::DriverAPI api = tc::resolve_driver_api(&fake::lookup_all);
  CHECK(fake::symbols == std::vector<std::string>{"cuGetErrorString", "cuGetErrorName",
                                                  "cuCtxGetCurrent", "cuModuleLoadDataEx",
                                                  "cuModuleGetFunction", "cuModuleUnload",
                                                  "cuLaunchKernel"});
  CHECK(fake::version == tc::kDriverApiVersion);
  CHECK(fake::version == 12000);
  CHECK(fake::flags == cudaEnableDefault);
  CHECK(api.launch_kernel == &fake::launch_kernel);
  CHECK(api.module_load_data_ex == &fake::module_load_data_ex);
  CHECK(api.get_error_string == &fake::get_error_string);

  // No driver: the runtime's reason (PyTorch's "Found no NVIDIA driver..." where there is none,
  // "too old" where there is one) and the first entry point asked for.
  fake::reset();
  try {
    (void)tc::resolve_driver_api(&fake::lookup_no_driver);
    FAIL("resolved without a driver");
  } catch (const tc::CUDAUnavailableError& e) {
    CHECK(e.error() == cudaErrorInsufficientDriver);
    CHECK_THAT(e.what(), Contains("NVIDIA driver") && Contains("cuGetErrorString"));
  }
  CHECK(fake::symbols.size() == 1);  // stops at the first failure

  CHECK_THROWS_MATCHES(tc::resolve_driver_api(&fake::lookup_without_launch),
                       tc::CUDAUnavailableError,
                       Catch::Message("CUDA driver error: the NVIDIA driver has no cuLaunchKernel "
                                      "for CUDA 12.0 (cudaDriverEntryPointSymbolNotFound); "
                                      "TensorPlay's CUDA kernels need it: install a newer driver"));
  CHECK_THROWS_MATCHES(
      tc::resolve_driver_api(&fake::lookup_old), tc::CUDAUnavailableError,
      Catch::Message("CUDA driver error: the NVIDIA driver is too old to export "
                     "cuModuleLoadDataEx for CUDA 12.0 (cudaDriverEntryPointVersionNotSufficent); "
                     "TensorPlay's CUDA kernels need it: install a newer driver"));
  // Every failure is a CUDAError (and so a tensorplay::Error).
  CHECK_THROWS_AS(tc::resolve_driver_api(&fake::lookup_old), tc::CUDAError);
}

TEST_CASE("cuda driver errors read as PyTorch's \"CUDA driver error: ...\"", "[cuda][module]") {
  const tc::DriverAPI api = fake::api();
  CHECK(tc::driver_error_message(api, CUDA_ERROR_ILLEGAL_ADDRESS, "launching a kernel") ==
        "CUDA driver error: an illegal memory access was encountered "
        "(CUDA_ERROR_ILLEGAL_ADDRESS when launching a kernel)");
  // A code the driver cannot describe: PyTorch's fallback.
  CHECK(tc::driver_error_message(api, CUDA_ERROR_UNKNOWN, "loading a module") ==
        "CUDA driver error: unknown error (CUDA_ERROR_UNKNOWN when loading a module)");
  try {
    tc::check_driver(api, CUDA_ERROR_ILLEGAL_ADDRESS, "launching a kernel");
    FAIL("no error");
  } catch (const tc::CUDADriverError& e) {
    CHECK(e.result() == CUDA_ERROR_ILLEGAL_ADDRESS);
    CHECK(e.error() == cudaErrorIllegalAddress);  // the runtime's code of the same number
  }
  CHECK_NOTHROW(tc::check_driver(api, CUDA_SUCCESS, "nothing"));
}

TEST_CASE("cuda modules: loaded with the JIT's log on failure, unloaded once", "[cuda][module]") {
  fake::reset();
  const tc::DriverAPI api = fake::api();
  {
    tc::Module m = tc::load_module(api, ".version 9.0\n");
    CHECK(m);
    CHECK(fake::log_capacity == tc::kJitLogBytes);
    CHECK(m.function("tp_kernel") != nullptr);
    CHECK_THROWS_MATCHES(m.function("missing"), tc::CUDADriverError,
                         Catch::Message("CUDA driver error: named symbol not found "
                                        "(CUDA_ERROR_NOT_FOUND when looking up kernel 'missing')"));
    tc::Module moved = std::move(m);
    CHECK_FALSE(m);  // NOLINT(bugprone-use-after-move): a moved-from module is empty
    CHECK(moved);
    CHECK(fake::unloads == 0);
  }
  CHECK(fake::unloads == 1);

  fake::load_result = CUDA_ERROR_INVALID_PTX;
  fake::jit_log = "ptxas application ptx input, line 9; fatal   : Parsing error near 'x'\n";
  try {
    (void)tc::load_module(api, "garbage", 0);
    FAIL("loaded");
  } catch (const tc::CUDADriverError& e) {
    CHECK(e.result() == CUDA_ERROR_INVALID_PTX);
    CHECK(std::string(e.what()) ==
          "CUDA driver error: a PTX JIT compilation failed (CUDA_ERROR_INVALID_PTX when loading "
          "a module on cuda:0):\nptxas application ptx input, line 9; fatal   : Parsing error "
          "near 'x'");
  }
  CHECK(fake::unloads == 1);  // nothing loaded, nothing to unload
}

TEST_CASE("cuda module cache: one load per (device, PTX), whatever the threads", "[cuda][module]") {
  fake::reset();
  const tc::DriverAPI api = fake::api();
  // Stands in for load_module_on_device (which needs a device): the module of the fake driver.
  const auto loader = [](const tc::DriverAPI& a, tp::DeviceIndex, const std::string& ptx) {
    return tc::load_module(a, ptx);
  };
  tc::ModuleCache cache(api, loader);
  const auto ptx = std::make_shared<const std::string>(".version 9.0\n");
  const auto same_text = std::make_shared<const std::string>(*ptx);  // another cache entry

  std::vector<std::thread> threads;
  std::vector<CUfunction> seen(8);
  for (std::size_t i = 0; i < seen.size(); ++i) {
    threads.emplace_back([&, i] { seen[i] = cache.function(0, ptx, "tp_kernel"); });
  }
  for (std::thread& t : threads) t.join();
  CHECK(fake::loads == 1);
  CHECK(std::count(seen.begin(), seen.end(), seen[0]) == std::ptrdiff_t(seen.size()));
  CHECK(cache.size() == 1);
  CHECK(fake::lookups >= 1);
  const int lookups = fake::lookups;
  CHECK(cache.function(0, ptx, "tp_kernel") == seen[0]);  // looked up once, then remembered
  CHECK(fake::lookups == lookups);

  CHECK(cache.module(1, ptx) != cache.module(0, ptx));        // another device: its own load
  CHECK(cache.module(0, same_text) != cache.module(0, ptx));  // identity, not text
  CHECK(fake::loads == 3);
  CHECK(cache.size() == 3);

  // A failed load is reported to the caller and not cached.
  fake::load_result = CUDA_ERROR_INVALID_PTX;
  const auto bad = std::make_shared<const std::string>("garbage");
  CHECK_THROWS_AS(cache.module(0, bad), tc::CUDADriverError);
  CHECK(cache.size() == 3);
  fake::load_result = CUDA_SUCCESS;
  CHECK(cache.module(0, bad) != nullptr);
  CHECK(cache.size() == 4);
  CHECK_THROWS_WITH(cache.module(0, nullptr), Contains("without PTX"));
  CHECK(fake::unloads == 0);  // the cache keeps its modules
}

TEST_CASE("cuda launch: cuLaunchKernel's arguments, and its failure as a CUDADriverError",
          "[cuda][module]") {
  fake::reset();
  const tc::DriverAPI api = fake::api();
  int param = 7;
  void* args[] = {&param};
  const auto f = fake::handle<CUfunction>(0x42);
  const auto stream = fake::handle<cudaStream_t>(0x77);
  tc::launch(api, f, dim3(5, 2, 1), dim3(128), 64, stream, args);
  CHECK(fake::launches == 1);
  CHECK(fake::last_launch.f == f);
  CHECK(fake::last_launch.grid[0] == 5);
  CHECK(fake::last_launch.grid[1] == 2);
  CHECK(fake::last_launch.grid[2] == 1);
  CHECK(fake::last_launch.block[0] == 128);
  CHECK(fake::last_launch.block[1] == 1);
  CHECK(fake::last_launch.shared == 64);
  CHECK(fake::last_launch.stream == stream);
  CHECK(fake::last_launch.params == args);
  CHECK(fake::last_launch.extra == nullptr);
  fake::launch_result = CUDA_ERROR_ILLEGAL_ADDRESS;
  CHECK_THROWS_MATCHES(tc::launch(api, f, dim3(1), dim3(1), 0, stream, args), tc::CUDADriverError,
                       Catch::Message("CUDA driver error: an illegal memory access was "
                                      "encountered (CUDA_ERROR_ILLEGAL_ADDRESS when launching a "
                                      "kernel)"));
}

TEST_CASE("cuda kernels compile for the newest architecture the device runs", "[cuda][pointwise]") {
  const std::vector<int> archs = {75, 80, 86, 87, 89, 90, 100, 120};
  CHECK(tc::detail::nvrtc_arch_for(90, archs) == 90);
  CHECK(tc::detail::nvrtc_arch_for(88, archs) == 87);
  CHECK(tc::detail::nvrtc_arch_for(121, archs) == 120);
  CHECK_THROWS_MATCHES(tc::detail::nvrtc_arch_for(70, archs), tc::CUDAError,
                       Catch::Message("CUDA error: no kernel image is available for execution on "
                                      "the device (the device is sm_70; NVRTC compiles for sm_75, "
                                      "sm_80, sm_86, sm_87, sm_89, sm_90, sm_100, sm_120)"));
  // This toolkit's NVRTC: an A100 and an H100/H200 get their own architectures.
  CHECK(tc::detail::nvrtc_arch_for(80, tc::nvrtc_supported_archs()) == 80);
  CHECK(tc::detail::nvrtc_arch_for(90, tc::nvrtc_supported_archs()) == 90);
}

TEST_CASE("without a driver, the driver layer raises CUDAUnavailableError saying why",
          "[no_device]") {
  int driver = 0;
  if (cudaDriverGetVersion(&driver) != cudaSuccess || driver == 0) {
    CHECK_THROWS_AS(tc::driver_api(), tc::CUDAUnavailableError);
    CHECK_THROWS_WITH(tc::driver_api(),
                      Contains("Found no NVIDIA driver on your system") &&
                          Contains("(looking up the CUDA driver's cuGetErrorString)"));
    CHECK_THROWS_AS(tc::module_cache(), tc::CUDAUnavailableError);
    void* args[] = {nullptr};
    CHECK_THROWS_AS(tc::launch(nullptr, dim3(1), dim3(1), 0, nullptr, args),
                    tc::CUDAUnavailableError);
  } else {  // a driver without a GPU: the entry points are there
    CHECK_NOTHROW(tc::driver_api());
  }
}

// ---- the kernel step's host side, over fake CUDA tensors
// ----------------------------------------- Host memory labelled cuda:0: an iterator over such
// tensors is a CUDA iterator (its kernel step is DeviceKernel<PointwiseOp, CUDA>), and the "device"
// pointers in its parameters are readable here, so a host emulation of the kernel's loop proves the
// addressing.

using cuda_test_support::Blob;
using cuda_test_support::kFakeCuda;

float f32_of(std::uint64_t bits) { return std::bit_cast<float>(static_cast<std::uint32_t>(bits)); }

// The kernel's loop (pointwise_source.hpp's tp::pointwise) on the host, for float32 add, where
// and neg: each element's operands found through the parameter's offsets and constants.
template <int N, class Index>
void emulate(const tc::PointwiseParams<N, Index>& p, C code) {
  for (Index i = 0; i < p.numel; ++i) {
    const auto o = p.offsets.get(i);
    const auto in = [&](int k) {
      if (p.constant_mask & (1u << k)) return f32_of(p.constants[k]);
      float v;
      std::memcpy(&v, p.data[k] + o.v[k], sizeof v);
      return v;
    };
    const auto cond = [&](int k) {
      if (p.constant_mask & (1u << k)) return p.constants[k] != 0;
      return *reinterpret_cast<const unsigned char*>(p.data[k] + o.v[k]) != 0;
    };
    float r = 0;
    if constexpr (N == 2) {
      REQUIRE(code == C::Neg);
      r = -in(1);
    } else if constexpr (N == 3) {
      REQUIRE(code == C::Add);
      r = in(1) + f32_of(p.scalars[0]) * in(2);
    } else {
      REQUIRE(code == C::Where);
      r = cond(1) ? in(2) : in(3);
    }
    std::memcpy(p.data[0] + o.v[0], &r, sizeof r);
  }
}

// The plan and parameter of iter, emulated.
void run_emulated(const tp::TensorIterator& iter, C code, double s0) {
  const tc::PointwisePlan plan = tc::plan_pointwise(iter, code);
  REQUIRE_FALSE(plan.key.index64);
  switch (iter.ntensors()) {
    case 2: emulate(tc::make_pointwise_params<2, unsigned>(iter, plan.key, s0, 0), code); break;
    case 3: emulate(tc::make_pointwise_params<3, unsigned>(iter, plan.key, s0, 0), code); break;
    default: emulate(tc::make_pointwise_params<4, unsigned>(iter, plan.key, s0, 0), code);
  }
}

float value_of(std::size_t i) { return static_cast<float>(i % 17) * 0.75f - 5.0f; }

TEST_CASE("cuda pointwise: the parameter addresses every layout as the CPU iterates it",
          "[cuda][pointwise]") {
  // Views of one [6, 10] base; each case gives the op's operands as views of both twins.
  Blob<float> a({6, 10}, tp::kFloat, value_of);
  Blob<float> b({10, 6}, tp::kFloat, [](std::size_t i) { return 0.5f * float(i) - 3.0f; });
  Blob<float> row({1, 10}, tp::kFloat, [](std::size_t i) { return float(i) + 0.25f; });
  struct Case {
    const char* name;
    std::function<tp::Tensor(const Blob<float>&, bool)> a, b;
  };
  const auto pick = [](const Blob<float>& x, bool on_cuda) { return on_cuda ? x.cuda : x.cpu; };
  const std::vector<Case> cases = {
      {"contiguous", [&](auto&, bool c) { return pick(a, c); },
       [&](auto&, bool c) {
         return pick(b, c).reshape({6, 10});
       }},
      {"column blocks", [&](auto&, bool c) { return pick(a, c).slice(1, 0, 5); },
       [&](auto&, bool c) { return pick(a, c).slice(1, 5, 10); }},
      {"transposed", [&](auto&, bool c) { return pick(a, c); },
       [&](auto&, bool c) { return pick(b, c).t(); }},
      {"sliced with a step", [&](auto&, bool c) { return pick(a, c).slice(0, 1, 6, 2); },
       [&](auto&, bool c) { return pick(b, c).t().slice(0, 1, 6, 2); }},
      {"broadcast", [&](auto&, bool c) { return pick(a, c); },
       [&](auto&, bool c) { return pick(row, c); }},
      {"expanded",
       [&](auto&, bool c) {
         return pick(row, c).expand({6, 10});
       },
       [&](auto&, bool c) {
         return pick(a, c).select(1, 3).unsqueeze(1).expand({6, 10});
       }},
      {"CPU 0-d operand", [&](auto&, bool c) { return pick(a, c).t(); },
       [&](auto&, bool) { return tp::scalar_tensor(1.5f, tp::kFloat); }},
  };
  for (const Case& k : cases) {
    for (const bool transposed_out : {false, true}) {
      CAPTURE(k.name, transposed_out);
      const tp::Tensor a_cuda = k.a(a, true), b_cuda = k.b(b, true);
      const tp::Tensor a_cpu = k.a(a, false), b_cpu = k.b(b, false);
      const tp::Tensor want = tp::add(a_cpu, b_cpu, 2.5);
      // The output: a fake CUDA tensor of the result's shape, row-major or transposed.
      const std::vector<int64_t> shape(want.sizes().begin(), want.sizes().end());
      std::vector<int64_t> rev(shape.rbegin(), shape.rend());
      Blob<float> out(transposed_out ? rev : shape, tp::kFloat, [](std::size_t) { return NAN; });
      const tp::Tensor out_cuda = transposed_out ? out.cuda.t() : out.cuda;
      const tp::Tensor out_cpu = transposed_out ? out.cpu.t() : out.cpu;
      const tp::TensorIterator iter = tp::TensorIteratorConfig()
                                          .add_output(out_cuda)
                                          .add_input(a_cuda)
                                          .add_input(b_cuda)
                                          .build();
      REQUIRE(iter.device() == tp::Device(tp::kCUDA, 0));
      run_emulated(iter, C::Add, 2.5);
      CHECK(tp::equal(out_cpu, want));
    }
  }

  // where: a bool condition, and a CPU 0-d operand in the middle slot; neg: one input.
  Blob<std::uint8_t> cond({6, 10}, tp::kBool,
                          [](std::size_t i) { return std::uint8_t(i % 3 == 0 ? 1 : 0); });
  Blob<float> out({6, 10}, tp::kFloat, [](std::size_t) { return NAN; });
  const tp::Tensor zero = tp::scalar_tensor(-0.5f, tp::kFloat);
  run_emulated(tp::TensorIteratorConfig()
                   .add_output(out.cuda)
                   .add_input(cond.cuda.t().t())
                   .add_input(zero)
                   .add_input(b.cuda.t())
                   .check_all_same_dtype(false)
                   .build(),
               C::Where, 0);
  CHECK(tp::equal(out.cpu, tp::where(cond.cpu, zero, b.cpu.t())));
  run_emulated(tp::TensorIteratorConfig().add_output(out.cuda).add_input(b.cuda.t()).build(),
               C::Neg, 0);
  CHECK(tp::equal(out.cpu, tp::neg(b.cpu.t())));
}

TEST_CASE("cuda pointwise: keys, plans and parameters from a CUDA iterator", "[cuda][pointwise]") {
  Blob<float> a({4, 250}, tp::kFloat, value_of);
  Blob<float> out({4, 250}, tp::kFloat, value_of);
  const tp::TensorIterator iter =
      tp::TensorIteratorConfig().add_output(out.cuda).add_input(a.cuda).add_input(a.cuda).build();
  const tc::PointwisePlan plan = tc::plan_pointwise(iter, C::Mul);
  CHECK(plan.key == tc::pointwise_kernel_key(C::Mul, tp::kFloat));
  CHECK(plan.device == 0);
  CHECK(plan.shape.grid == 2);  // 1000 elements, 512 a block
  CHECK(plan.shape.block == 128);
  CHECK_FALSE(plan.error_word);
  const auto p = tc::make_pointwise_params<3, unsigned>(iter, plan.key, 0.1, -2.0);
  CHECK(p.data[0] == reinterpret_cast<char*>(out.host.data()));
  CHECK(p.data[1] == reinterpret_cast<char*>(a.host.data()));
  CHECK(p.numel == 1000);
  CHECK(p.constant_mask == 0);
  CHECK(p.error == nullptr);
  CHECK(p.scalars[0] == tc::pointwise_scalar_bits(tp::kFloat, 0.1));
  CHECK(p.scalars[1] == tc::pointwise_scalar_bits(tp::kFloat, -2.0));
  CHECK(p.offsets.dims == 1);  // contiguous: coalesced into one dimension
  // A parameter of the wrong arity or index width is refused.
  CHECK_THROWS_WITH((tc::make_pointwise_params<2, unsigned>(iter, plan.key, 0, 0)),
                    Contains("a kernel of 3 operands for an iterator of 3 and a parameter of 2"));
  CHECK_THROWS_WITH((tc::make_pointwise_params<3, unsigned long long>(iter, plan.key, 0, 0)),
                    Contains("index width"));

  // A storage offset is in the pointer; a CPU 0-d input is a constant (half: its bits).
  Blob<std::uint16_t> h({8}, tp::kHalf, [](std::size_t) { return std::uint16_t{0}; });
  Blob<std::uint16_t> hout({3}, tp::kHalf, [](std::size_t) { return std::uint16_t{0}; });
  const tp::TensorIterator hi = tp::TensorIteratorConfig()
                                    .add_output(hout.cuda)
                                    .add_input(h.cuda.slice(0, 5, 8))
                                    .add_input(tp::scalar_tensor(1.5, tp::kHalf))
                                    .build();
  const tc::PointwisePlan hp = tc::plan_pointwise(hi, C::Sub);
  CHECK(hp.key == tc::pointwise_kernel_key(C::Sub, tp::kHalf));
  const auto q = tc::make_pointwise_params<3, unsigned>(hi, hp.key, 1, 0);
  CHECK(q.data[1] == reinterpret_cast<char*>(h.host.data() + 5));
  CHECK(q.data[2] == nullptr);
  CHECK(q.constant_mask == 0b100u);
  CHECK(q.constants[2] == 0x3e00u);
  CHECK(q.scalars[0] == tc::pointwise_scalar_bits(tp::kHalf, 1.0));

  // Beyond 2^31 bytes of reach: the 64-bit kernel and parameter (nothing is read here).
  Blob<std::uint8_t> small({8}, tp::kByte, [](std::size_t) { return std::uint8_t{0}; });
  const tp::Tensor far =
      tp::from_blob(small.host.data(), {2, 4}, {int64_t{1} << 31, 1}, kFakeCuda.dtype(tp::kByte));
  Blob<std::uint8_t> far_out({2, 4}, tp::kByte, [](std::size_t) { return std::uint8_t{0}; });
  const tp::TensorIterator wide =
      tp::TensorIteratorConfig().add_output(far_out.cuda).add_input(far).add_input(far).build();
  const tc::PointwisePlan wp = tc::plan_pointwise(wide, C::Add);
  CHECK(wp.key.index64);
  CHECK_FALSE(wp.shape.index32);
  const auto w = tc::make_pointwise_params<3, unsigned long long>(wide, wp.key, 1, 0);
  CHECK(w.numel == 8);
  CHECK(w.offsets.get(4).v[0] == 4);
  CHECK(w.offsets.get(4).v[1] == (1ull << 31));
  CHECK(w.offsets.get(7).v[2] == (1ull << 31) + 3);
  CHECK_THROWS_WITH((tc::make_pointwise_params<3, unsigned>(wide, wp.key, 1, 0)),
                    Contains("index width"));
}

TEST_CASE("cuda pointwise: integer division reads an error word unless the divisor is a constant",
          "[cuda][pointwise]") {
  Blob<int> a({5}, tp::kInt, [](std::size_t i) { return int(i); });
  Blob<int> out({5}, tp::kInt, [](std::size_t) { return 0; });
  Blob<float> fa({5}, tp::kFloat, value_of);
  Blob<float> fout({5}, tp::kFloat, value_of);
  const auto iter = [](const tp::Tensor& o, const tp::Tensor& x, const tp::Tensor& y) {
    return tp::TensorIteratorConfig().add_output(o).add_input(x).add_input(y).build();
  };
  const tp::Tensor three = tp::scalar_tensor(3, tp::kInt);
  for (const C code : {C::DivTrunc, C::DivFloor, C::Remainder, C::Fmod}) {
    CHECK(tc::plan_pointwise(iter(out.cuda, a.cuda, a.cuda), code).error_word);
    CHECK_FALSE(tc::plan_pointwise(iter(out.cuda, a.cuda, three), code).error_word);
    CHECK_FALSE(tc::plan_pointwise(iter(fout.cuda, fa.cuda, fa.cuda), code).error_word);
  }
  // A constant dividend does not spare the check.
  CHECK(tc::plan_pointwise(iter(out.cuda, three, a.cuda), C::Remainder).error_word);
  CHECK_FALSE(tc::plan_pointwise(iter(out.cuda, a.cuda, a.cuda), C::Add).error_word);
}

// The exception a call throws: its type's name and message.
template <class F>
std::pair<std::string, std::string> thrown(F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    return {typeid(e).name(), e.what()};
  }
  return {"nothing", ""};
}

TEST_CASE("cuda pointwise: what is refused is refused before any device is touched",
          "[cuda][pointwise]") {
  // Each call would throw CUDAUnavailableError here, or launch on host pointers on a GPU
  // machine, if it reached the device: so these prove the order of the checks everywhere.
  Blob<int> a({5}, tp::kInt, [](std::size_t i) { return int(i) - 2; });
  Blob<int> out({5}, tp::kInt, [](std::size_t) { return 0; });

  // Integer division by a constant zero: the CPU's ZeroDivisionError, as the front ends pass it.
  const auto cpu = thrown([&] { (void)tp::div(a.cpu, 0, "floor"); });
  CHECK(cpu.second == "ZeroDivisionError");
  CHECK(thrown([&] { tp::div_out(out.cuda, a.cuda, 0, "floor"); }) == cpu);
  CHECK(thrown([&] { tp::div_out(out.cuda, a.cuda, 0, "trunc"); }) == cpu);
  CHECK(thrown([&] { tp::remainder_out(out.cuda, a.cuda, 0); }) == cpu);
  CHECK(thrown([&] { tp::fmod_out(out.cuda, a.cuda, 0); }) == cpu);
  CHECK(out.host == std::vector<int>(5, 0));  // nothing written

  // An empty space launches nothing.
  Blob<float> e({0, 3}, tp::kFloat, value_of);
  Blob<float> e_out({0, 3}, tp::kFloat, value_of);
  CHECK_NOTHROW(tp::add_out(e_out.cuda, e.cuda, e.cuda));
  CHECK_NOTHROW(tp::exp_out(e_out.cuda, e.cuda.t().t()));

  // No kernel for the dtypes: PyTorch's messages, even for an empty space.
  Blob<std::uint8_t> bools({0}, tp::kBool, [](std::size_t) { return std::uint8_t{0}; });
  const auto kernel = [](const tp::TensorIterator& it, C code) {
    tp::DeviceKernel<tp::PointwiseOp, tp::kCUDA>::run(it, code, 1, 0);
  };
  const tp::TensorIterator bool_iter = tp::TensorIteratorConfig()
                                           .add_output(bools.cuda)
                                           .add_input(bools.cuda)
                                           .add_input(bools.cuda)
                                           .build();
  CHECK_THROWS_WITH(kernel(bool_iter, C::Remainder),
                    "\"remainder_cuda\" not implemented for 'Bool'");
  Blob<double> d({5}, tp::kDouble, [](std::size_t i) { return double(i); });
  Blob<float> f({5}, tp::kFloat, value_of);
  const tp::TensorIterator mixed = tp::TensorIteratorConfig()
                                       .add_output(f.cuda)
                                       .add_input(f.cuda)
                                       .add_input(d.cuda)
                                       .check_all_same_dtype(false)
                                       .build();
  CHECK_THROWS_AS(kernel(mixed, C::Add), tp::TypeError);
  CHECK_THROWS_AS(kernel(mixed, C::None), tp::NotImplementedError);
  CHECK_THROWS_WITH(kernel(mixed, C::None), Contains("Could not run this operation with arguments "
                                                     "from the 'CUDA' backend"));
  CHECK_THROWS_WITH(kernel(mixed, C::Neg), Contains("'aten::neg' takes 1 inputs and one output"));
}

TEST_CASE("cuda pointwise: the kernel table tells (device, key) apart", "[cuda][pointwise]") {
  std::set<std::uint64_t> slots;
  std::size_t n = 0;
  for (const tc::PointwiseOpInfo& info : tc::kPointwiseOps) {
    for (int d = 0; d < tp::kNumDTypes; ++d) {
      const auto dt = static_cast<tp::DType>(d);
      if (!tc::pointwise_supports(info.code, dt)) continue;
      for (const bool i64 : {false, true}) {
        for (const tp::DeviceIndex device : {0, 1, 7}) {
          slots.insert(
              tc::detail::pack_kernel_slot(device, tc::pointwise_kernel_key(info.code, dt, i64)));
          ++n;
        }
      }
    }
  }
  CHECK(slots.size() == n);
}

TEST_CASE("without a device, an op that passes the host's checks stops at the device",
          "[no_device]") {
  // The kernel step is reached (not a CPU loop's "Could not run"), and the first device call
  // says why it cannot run.
  Blob<int> a({5}, tp::kInt, [](std::size_t i) { return int(i) + 1; });
  Blob<int> out({5}, tp::kInt, [](std::size_t) { return 0; });
  const std::string why = tp::cuda::unavailable_reason();
  CHECK_THROWS_MATCHES(tp::add_out(out.cuda, a.cuda, a.cuda), tc::CUDAUnavailableError,
                       Catch::Message(why));
  CHECK_THROWS_MATCHES(tp::div_out(out.cuda, a.cuda, 2, "floor"), tc::CUDAUnavailableError,
                       Catch::Message(why));
  CHECK_THROWS_AS(tp::div_out(out.cuda, a.cuda, a.cuda, "floor"), tc::CUDAUnavailableError);
  CHECK(out.host == std::vector<int>(5, 0));
}

// ---- on a GPU: every op against the CPU ---------------------------------------------------------

using cuda_pointwise_ops::bound;
using cuda_pointwise_ops::run_op;

// The ops whose results are IEEE-exact on both sides (the same roundings in the same order):
// compared bit for bit. The others call libm functions, CUDA's and the host's, which may differ
// in the last bits.
bool exact_op(C code) {
  switch (code) {
    case C::Add:
    case C::Sub:
    case C::Mul:
    case C::Div:
    case C::Maximum:
    case C::Minimum:
    case C::Eq:
    case C::Ne:
    case C::Lt:
    case C::Le:
    case C::Gt:
    case C::Ge:
    case C::Remainder:
    case C::Fmod:
    case C::DivTrunc:
    case C::DivFloor:
    case C::Where:
    case C::Neg:
    case C::Abs:
    case C::Sqrt:
    case C::Rsqrt:
    case C::Relu:
    case C::Clamp:
    case C::Reciprocal:
    case C::Square:
    case C::Floor:
    case C::Ceil:
    case C::Trunc:
    case C::Round: return true;
    default: return false;
  }
}

int mantissa_bits(tp::DType dt) {
  switch (dt) {
    case tp::kHalf: return 10;
    case tp::kBFloat16: return 7;
    case tp::kFloat: return 23;
    default: return 52;
  }
}

// "" when got (the device's, downloaded) matches want (the CPU's): exactly for integers, bool and
// the exact ops (NaN matching NaN, zeros by sign too); else within a few units in the last place
// of max(|value|, 1) in the dtype: 2 for float16/bfloat16 (both sides round one float32 result),
// 8 for float32/float64 (libm functions differ by a few ulp; the floor at 1 absorbs cancellation
// in gelu & co. near zero). Otherwise the first mismatch.
std::string mismatch(const tp::Tensor& got, const tp::Tensor& want, bool exact) {
  if (got.dtype() != want.dtype()) {
    return tp::detail::str_cat("dtype ", got.dtype(), " != ", want.dtype());
  }
  if (got.sizes() != want.sizes()) {
    return tp::detail::str_cat("sizes ", got.sizes(), " != ", want.sizes());
  }
  const tp::DType dt = got.dtype();
  if (!tp::is_floating_point(dt)) {
    if (tp::equal(got, want)) return "";
    const tp::Tensor g = got.to(tp::kLong).contiguous(), w = want.to(tp::kLong).contiguous();
    for (int64_t i = 0; i < g.numel(); ++i) {
      if (g.data_ptr<int64_t>()[i] != w.data_ptr<int64_t>()[i]) {
        return tp::detail::str_cat("element ", i, ": ", g.data_ptr<int64_t>()[i],
                                   " != ", w.data_ptr<int64_t>()[i]);
      }
    }
    return "values differ";
  }
  const tp::Tensor g = got.to(tp::kDouble).contiguous(), w = want.to(tp::kDouble).contiguous();
  const double ulps = tp::itemsize(dt) == 2 ? 2 : 8;
  for (int64_t i = 0; i < g.numel(); ++i) {
    const double x = g.data_ptr<double>()[i], y = w.data_ptr<double>()[i];
    if (std::isnan(x) && std::isnan(y)) continue;
    bool ok = false;
    if (exact || std::isinf(x) || std::isinf(y) || std::isnan(x) || std::isnan(y)) {
      ok = x == y && std::signbit(x) == std::signbit(y);
    } else {
      const double scale = std::max({std::fabs(x), std::fabs(y), 1.0});
      const double ulp = std::ldexp(1.0, std::ilogb(scale) - mantissa_bits(dt));
      ok = std::fabs(x - y) <= ulps * ulp;
    }
    if (!ok) {
      return tp::detail::str_cat("element ", i, ": ", x, " != ", y, " (", exact ? "exact" : "ulps",
                                 ")");
    }
  }
  return "";
}

// Random operand values, per op and input: domains where the functions are mostly finite, a
// nonzero divisor for integer division, non-negative integer exponents; plus the special values
// (zeros of both signs, infinities, NaN; integer extremes) at the front of each base.
struct Values {
  std::mt19937_64 rng;
  explicit Values(std::uint64_t seed) : rng(seed) {}

  tp::Tensor make(C code, int input, tp::DType dt, const std::vector<int64_t>& sizes) {
    int64_t n = 1;
    for (int64_t s : sizes) n *= s;
    if (dt == tp::kBool || (code == C::Where && input == 0)) {
      std::vector<int64_t> v(static_cast<std::size_t>(n));
      for (auto& x : v) x = int64_t(rng() % 2);
      return tp::from_blob(v.data(), sizes, tp::kLong).to(tp::kBool, false, /*copy=*/true);
    }
    if (tp::is_floating_point(dt)) {
      double lo = -4, hi = 4;
      switch (code) {
        case C::Asin:
        case C::Acos: lo = -1, hi = 1; break;
        case C::Log:
        case C::Log2:
        case C::Log10:
        case C::Sqrt:
        case C::Rsqrt: lo = 0.01, hi = 10; break;
        case C::Log1p: lo = -0.9, hi = 10; break;
        case C::Pow:
          lo = input == 0 ? 0.1 : -3;
          hi = 3;
          break;
        default: break;
      }
      std::uniform_real_distribution<double> u(lo, hi);
      std::vector<double> v(static_cast<std::size_t>(n));
      for (auto& x : v) x = u(rng);
      const double special[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1.0, -1.0};
      for (std::size_t i = 0; i < v.size() && i < std::size(special); ++i) {
        v[(i * 7 + std::size_t(input)) % v.size()] = special[i];
      }
      return tp::from_blob(v.data(), sizes, tp::kDouble).to(dt, false, /*copy=*/true);
    }
    const bool is_unsigned = dt == tp::kByte;
    const bool divisor = input == 1 && (code == C::DivTrunc || code == C::DivFloor ||
                                        code == C::Remainder || code == C::Fmod);
    int64_t lo = is_unsigned ? 0 : -20, hi = is_unsigned ? 40 : 20;
    if (code == C::Pow && input == 0) lo = is_unsigned ? 0 : -5, hi = 5;
    if (code == C::Pow && input == 1) lo = 0, hi = 6;
    std::uniform_int_distribution<int64_t> u(lo, hi);
    std::vector<int64_t> v(static_cast<std::size_t>(n));
    for (auto& x : v) {
      x = u(rng);
      if (divisor && x == 0) x = 3;
    }
    if (code != C::Pow && !v.empty()) {  // the extremes, and a division of the minimum by -1
      const auto [min, max] = [&]() -> std::pair<int64_t, int64_t> {
        switch (dt) {
          case tp::kByte: return {0, 255};
          case tp::kChar: return {-128, 127};
          case tp::kShort: return {-32768, 32767};
          case tp::kInt: return {std::numeric_limits<int32_t>::min(), 2147483647};
          default:
            return {std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::max()};
        }
      }();
      if (input == 0) {
        v[0] = min;
        if (v.size() > 1) v[1] = max;
      } else if (!is_unsigned) {
        v[0] = -1;
      }
    }
    return tp::from_blob(v.data(), sizes, tp::kLong).to(dt, false, /*copy=*/true);
  }
};

enum class Layout { Contiguous, Transposed, Broadcast, Sliced };
const char* layout_name(Layout l) {
  switch (l) {
    case Layout::Contiguous: return "contiguous";
    case Layout::Transposed: return "transposed";
    case Layout::Broadcast: return "broadcast";
    case Layout::Sliced: return "sliced";
  }
  return "?";
}

// An operand of logical shape `shape` in layout l: a dense base (which is what moves to the
// device) and the view taken of it on either side.
struct Operand {
  tp::Tensor base;
  std::function<tp::Tensor(const tp::Tensor&)> view;
};

Operand make_operand(Values& values, C code, int input, tp::DType dt, std::vector<int64_t> shape,
                     Layout l) {
  const std::size_t r = shape.size();
  switch (l) {
    case Layout::Contiguous:
      return {values.make(code, input, dt, shape), [](const tp::Tensor& t) { return t; }};
    case Layout::Transposed: {
      std::swap(shape.front(), shape.back());
      const int64_t last = int64_t(r) - 1;
      return {values.make(code, input, dt, shape),
              [last](const tp::Tensor& t) { return t.transpose(0, last); }};
    }
    case Layout::Broadcast: {
      // The first input keeps the full shape; the others lose a dimension to a size of 1
      // (broadcast by the iterator) or are expanded views of one.
      if (input == 0)
        return {values.make(code, input, dt, shape), [](const tp::Tensor& t) { return t; }};
      const std::vector<int64_t> full = shape;
      shape[std::size_t(input) % r] = 1;
      if (input == 1)
        return {values.make(code, input, dt, shape), [](const tp::Tensor& t) { return t; }};
      return {values.make(code, input, dt, shape),
              [full](const tp::Tensor& t) { return t.expand(full); }};
    }
    case Layout::Sliced: {
      const std::vector<int64_t> logical = shape;
      for (auto& s : shape) s = 2 * s + 1;
      return {values.make(code, input, dt, shape), [logical](const tp::Tensor& t) {
                tp::Tensor v = t;
                for (std::size_t d = 0; d < logical.size(); ++d) {
                  v = v.slice(int64_t(d), 1, 1 + 2 * logical[d], 2);
                }
                return v;
              }};
    }
  }
  return {};
}

std::vector<tp::DType> all_dtypes() {
  std::vector<tp::DType> v;
  for (int d = 0; d < tp::kNumDTypes; ++d) v.push_back(static_cast<tp::DType>(d));
  return v;
}

// The device's architecture for the kernels, as the launch path picks it.
int kernel_arch() {
  return tc::detail::nvrtc_arch_for(tc::detail::device_arch(0), tc::nvrtc_supported_archs());
}

// Compiles the kernels of `keys` through the process's cache on every core first, exactly as the
// launch path asks for them (same source, name, arch and options), so that the sweep below does
// not compile them one by one.
void warm_kernels(const std::vector<tc::PointwiseKernelKey>& keys) {
  const int arch = kernel_arch();
  std::atomic<std::size_t> next{0};
  std::mutex mutex;
  std::exception_ptr error;
  std::vector<std::thread> threads;
  const unsigned n = std::max(2u, std::thread::hardware_concurrency());
  for (unsigned t = 0; t < n; ++t) {
    threads.emplace_back([&] {
      for (std::size_t i; (i = next.fetch_add(1)) < keys.size();) {
        try {
          (void)tc::kernel_cache().get(tc::pointwise_kernel_source({&keys[i], 1}),
                                       tc::pointwise_kernel_name(keys[i]), arch,
                                       tc::pointwise_compile_options());
        } catch (...) {
          const std::lock_guard<std::mutex> lock(mutex);
          if (!error) error = std::current_exception();
        }
      }
    });
  }
  for (std::thread& t : threads) t.join();
  if (error) std::rethrow_exception(error);
}

TEST_CASE("cuda pointwise: every op in every dtype and layout matches the CPU", "[device]") {
  REQUIRE(tp::cuda::is_available());
  // Every kernel the front ends launch: each op in each dtype it has, but floor, ceil, trunc
  // and round of integers, which the front ends copy instead (the copy path, not this kernel).
  std::vector<tc::PointwiseKernelKey> keys;
  for (const tc::PointwiseOpInfo& info : tc::kPointwiseOps) {
    const bool rounding = info.code == C::Floor || info.code == C::Ceil || info.code == C::Trunc ||
                          info.code == C::Round;
    for (const tp::DType dt : all_dtypes()) {
      if (tc::pointwise_supports(info.code, dt) && !(rounding && !tp::is_floating_point(dt))) {
        keys.push_back(tc::pointwise_kernel_key(info.code, dt));
      }
    }
  }
  const auto start = std::chrono::steady_clock::now();
  warm_kernels(keys);
  const double compile_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  Values values(20240611);
  std::mt19937 pick(7);
  int ops = 0, failures = 0;
  for (const tc::PointwiseKernelKey& key : keys) {
    const tc::PointwiseOpInfo& info = tc::pointwise_op_info(key.code);
    const tp::DType dt = tc::pointwise_compute_dtype(key);
    // Each layout for every input, then a random mix; a 3-d and a large 1-d (many blocks) space.
    for (int round = 0; round < 6; ++round) {
      std::vector<int64_t> shape;
      if (round == 5) {
        shape = {int64_t(5000 + pick() % 3000)};
      } else {
        const std::size_t rank = 2 + pick() % 2;
        for (std::size_t d = 0; d < rank; ++d) shape.push_back(int64_t(1 + pick() % 7));
      }
      std::vector<tp::Tensor> on_cpu, on_cuda;
      std::string layouts;
      for (int k = 0; k < info.arity; ++k) {
        const Layout l = round < 4 ? static_cast<Layout>(round) : static_cast<Layout>(pick() % 4);
        const tp::DType in_dt = key.inputs[std::size_t(k)];
        const Operand o =
            make_operand(values, key.code, k, in_dt, shape,
                         shape.size() == 1 && l == Layout::Transposed ? Layout::Sliced : l);
        on_cpu.push_back(o.view(o.base));
        on_cuda.push_back(o.view(o.base.cuda()));
        layouts += std::string(k > 0 ? ", " : "") + layout_name(l);
      }
      const tp::Tensor want = run_op(key.code, on_cpu);
      const tp::Tensor got = run_op(key.code, on_cuda);
      ++ops;
      const std::string diff = got.is_cuda() ? mismatch(got.cpu(), want, exact_op(key.code))
                                             : std::string("the result is not on the device");
      if (!diff.empty()) {
        ++failures;
        FAIL_CHECK(tp::pointwise_name(key.code)
                   << " " << tp::scalar_type_name(dt) << " over " << tp::IntArrayRef(shape) << " ("
                   << layouts << "): " << diff);
      }
    }
  }
  CHECK(failures == 0);
  WARN("checked " << ops << " device ops (" << keys.size() << " kernels, compiled or read in "
                  << compile_s << " s) against the CPU");
}

const tp::TensorOptions kOnCuda = tp::TensorOptions().device(tp::kCUDA);

tp::Tensor random_tensor(Values& v, tp::DType dt, std::vector<int64_t> sizes, C code = C::Add,
                         int input = 0) {
  return v.make(code, input, dt, sizes);
}

TEST_CASE("cuda pointwise: scalars, alpha and CPU 0-d operands", "[device]") {
  REQUIRE(tp::cuda::is_available());
  Values v(11);
  for (const tp::DType dt : all_dtypes()) {
    CAPTURE(dt);
    const tp::Tensor a = random_tensor(v, dt, {4, 5}, C::Mul, 0);
    const tp::Tensor b = random_tensor(v, dt, {4, 5}, C::Remainder, 1);  // no zeros
    const tp::Tensor ad = a.cuda(), bd = b.cuda();
    const bool is_float = tp::is_floating_point(dt);
    // A wrapped number.
    const tp::Scalar s = dt == tp::kBool ? tp::Scalar(true)
                         : is_float      ? tp::Scalar(2.5)
                                         : tp::Scalar(3);
    CHECK(mismatch((ad * s).cpu(), a * s, true).empty());
    CHECK(mismatch((ad + s).cpu(), a + s, true).empty());
    CHECK(mismatch(ad.eq(s).cpu(), a.eq(s), true).empty());
    if (dt != tp::kBool) {
      // alpha in the storage dtype first, as the CPU takes it (float16's 0.1 is Half(0.1)).
      const tp::Scalar alpha = is_float ? tp::Scalar(0.1) : tp::Scalar(3);
      CHECK(mismatch(tp::add(ad, bd, alpha).cpu(), tp::add(a, b, alpha), true).empty());
      CHECK(mismatch(tp::sub(ad, bd, alpha).cpu(), tp::sub(a, b, alpha), true).empty());
      CHECK(mismatch(tp::sub(ad, s, alpha).cpu(), tp::sub(a, s, alpha), true).empty());
      // clamp with one bound: the other is the type's extreme (int64's saturates in transit).
      const std::optional<tp::Scalar> none;
      CHECK(mismatch(tp::clamp(ad, bound(2), none).cpu(), tp::clamp(a, bound(2), none), true)
                .empty());
      CHECK(mismatch(tp::clamp(ad, none, bound(7)).cpu(), tp::clamp(a, none, bound(7)), true)
                .empty());
      // A scalar first operand: the constant is input 0.
      const tp::Tensor e = random_tensor(v, dt, {4, 5}, C::Pow, 1);
      CHECK(mismatch(tp::pow(2, e.cuda()).cpu(), tp::pow(2, e), !is_float).empty());
      const tp::Scalar five = is_float ? tp::Scalar(5.5) : tp::Scalar(5);
      CHECK(mismatch(tp::remainder(five, bd).cpu(), tp::remainder(five, b), true).empty());
    }
    // where with a scalar on either side, and masked_fill_.
    const tp::Tensor cond = random_tensor(v, tp::kBool, {4, 5});
    const tp::Tensor condd = cond.cuda();
    CHECK(mismatch(tp::where(condd, s, bd).cpu(), tp::where(cond, s, b), true).empty());
    CHECK(mismatch(tp::where(condd, ad, s).cpu(), tp::where(cond, a, s), true).empty());
    const tp::Tensor filled = a.clone(), filledd = a.cuda();
    filled.masked_fill_(cond, s);
    filledd.masked_fill_(condd, s);
    CHECK(mismatch(filledd.cpu(), filled, true).empty());
  }
  // A CPU 0-d tensor that is not a wrapped number.
  const tp::Tensor x = random_tensor(v, tp::kFloat, {3, 4});
  const tp::Tensor half = tp::scalar_tensor(0.5);
  CHECK(mismatch((x.cuda() * half).cpu(), x * half, true).empty());
  CHECK(mismatch(tp::atan2(x.cuda(), half).cpu(), tp::atan2(x, half), false).empty());
  // 0-d operands: a device 0-d with a CPU one; and an out= whose inputs are all constants.
  const tp::Tensor zd = tp::scalar_tensor(2.0, tp::kFloat).cuda() + tp::scalar_tensor(3.0);
  CHECK(zd.is_cuda());
  CHECK(zd.dim() == 0);
  CHECK(zd.cpu().item<float>() == 5.0f);
  const tp::Tensor out0 = tp::empty(std::vector<int64_t>{}, kOnCuda.dtype(tp::kDouble));
  tp::mul_out(out0, tp::scalar_tensor(2.0, tp::kDouble), tp::scalar_tensor(-4.0, tp::kDouble));
  CHECK(out0.cpu().item<double>() == -8.0);
  // Empty spaces launch nothing and give empty results of the right shape.
  const tp::Tensor e = tp::empty({0, 3}, kOnCuda) + 1;
  CHECK(e.is_cuda());
  CHECK(e.sizes() == tp::IntArrayRef({0, 3}));
  CHECK(tp::exp(tp::empty({2, 0}, kOnCuda)).sizes() == tp::IntArrayRef({2, 0}));
}

TEST_CASE("cuda pointwise: in place and out= through views of every layout", "[device]") {
  REQUIRE(tp::cuda::is_available());
  Values v(23);
  for (const tp::DType dt : {tp::kFloat, tp::kInt, tp::kHalf, tp::kLong}) {
    CAPTURE(dt);
    const bool is_float = tp::is_floating_point(dt);
    tp::Tensor base = random_tensor(v, dt, {6, 8}, C::Mul);
    tp::Tensor based = base.cuda();
    const auto same = [&](const char* what) {
      CAPTURE(what);
      CHECK(mismatch(based.cpu(), base, true).empty());
    };
    const tp::Tensor row = random_tensor(v, dt, {8}, C::Mul, 1);
    const int64_t version = based._version();
    base.add_(row);
    based.add_(row.cuda());
    same("add_ of a broadcast row");
    CHECK(based._version() == version + 1);
    const tp::Tensor t = random_tensor(v, dt, {8, 6}, C::Mul, 1);
    base.t().mul_(t);
    based.t().mul_(t.cuda());
    same("mul_ through a transposed view");
    base.slice(1, 1, 8, 2).sub_(2);
    based.slice(1, 1, 8, 2).sub_(2);
    same("sub_ of a scalar through a sliced view");
    base.slice(0, 0, 6, 3).neg_();
    based.slice(0, 0, 6, 3).neg_();
    same("neg_ of rows with a step");
    base.t().clamp_(bound(-3), bound(5));
    based.t().clamp_(bound(-3), bound(5));
    same("clamp_ through a transposed view");
    if (is_float) {
      base.slice(1, 0, 4).sqrt_();
      based.slice(1, 0, 4).sqrt_();
      CHECK(mismatch(based.cpu(), base, true).empty());
    }

    // out=: a transposed (dense) out keeps its strides; a sliced one is written in place; a
    // wrong-sized one is resized.
    const tp::Tensor a = random_tensor(v, dt, {6, 8}, C::Mul),
                     b = random_tensor(v, dt, {6, 8}, C::Mul, 1);
    const tp::Tensor ad = a.cuda(), bd = b.cuda();
    const tp::Tensor out_t = tp::empty({8, 6}, kOnCuda.dtype(dt)).t();
    tp::add_out(out_t, ad, bd);
    CHECK(out_t.strides() == tp::IntArrayRef({1, 6}));
    CHECK(mismatch(out_t.cpu(), tp::add(a, b), true).empty());
    tp::Tensor wide = tp::zeros({6, 16}, tp::TensorOptions().dtype(dt));
    const tp::Tensor wided = wide.cuda();
    tp::mul_out(wide.slice(1, 0, 16, 2), a, b);
    tp::mul_out(wided.slice(1, 0, 16, 2), ad, bd);
    CHECK(mismatch(wided.cpu(), wide, true).empty());
    const tp::Tensor resized = tp::empty({0}, kOnCuda.dtype(dt));
    tp::sub_out(resized, ad, bd);
    CHECK(resized.sizes() == tp::IntArrayRef({6, 8}));
    CHECK(mismatch(resized.cpu(), tp::sub(a, b), true).empty());
    const tp::Tensor flags = tp::empty({8, 6}, kOnCuda.dtype(tp::kBool)).t();
    tp::lt_out(flags, ad, bd);
    CHECK(mismatch(flags.cpu(), a.lt(b), true).empty());
    const tp::Tensor neg_out = tp::empty({6, 8}, kOnCuda.dtype(dt));
    tp::neg_out(neg_out, ad.t().t());
    CHECK(mismatch(neg_out.cpu(), tp::neg(a), true).empty());
    const tp::Tensor cond = random_tensor(v, tp::kBool, {6, 8});
    const tp::Tensor w = tp::empty({6, 8}, kOnCuda.dtype(dt));
    tp::where_out(w, cond.cuda(), ad, bd);
    CHECK(mismatch(w.cpu(), tp::where(cond, a, b), true).empty());
  }
}

TEST_CASE("cuda pointwise: integer division by zero raises the CPU's ZeroDivisionError",
          "[device]") {
  REQUIRE(tp::cuda::is_available());
  for (const tp::DType dt : {tp::kByte, tp::kChar, tp::kShort, tp::kInt, tp::kLong}) {
    CAPTURE(dt);
    const tp::Tensor a = tp::arange(12).to(dt).reshape({3, 4});
    std::vector<int64_t> ones(12, 1);
    ones[6] = 0;  // one zero, in the middle of the block
    const tp::Tensor b = tp::from_blob(ones.data(), {3, 4}, tp::kLong).to(dt, false, /*copy=*/true);
    const tp::Tensor ad = a.cuda(), bd = b.cuda();
    const std::vector<
        std::pair<const char*, std::function<tp::Tensor(const tp::Tensor&, const tp::Tensor&)>>>
        ops = {{"div floor", [](auto& x, auto& y) { return tp::div(x, y, "floor"); }},
               {"div trunc", [](auto& x, auto& y) { return tp::div(x, y, "trunc"); }},
               {"remainder", [](auto& x, auto& y) { return tp::remainder(x, y); }},
               {"fmod", [](auto& x, auto& y) { return tp::fmod(x, y); }},
               {"remainder, transposed",
                [](auto& x, auto& y) { return tp::remainder(x.t(), y.t()); }}};
    for (const auto& entry : ops) {
      // (Not a structured binding: clang 14 cannot capture one in the lambdas below.)
      const char* name = entry.first;
      const auto& op = entry.second;
      CAPTURE(name);
      const auto cpu = thrown([&] { (void)op(a, b); });
      REQUIRE(cpu.second == "ZeroDivisionError");
      CHECK(thrown([&] { (void)op(ad, bd); }) == cpu);
      // A constant zero divisor (checked on the host), and a scalar dividend with a zero
      // divisor on the device.
      CHECK(thrown([&] { (void)op(ad, tp::scalar_tensor(0, dt)); }) == cpu);
      CHECK(thrown([&] { (void)tp::remainder(7, bd); }) == cpu);
      // The word is cleared per launch: the same op without a zero then succeeds.
      const tp::Tensor ok = b + b.eq(0).to(dt);  // no zeros
      CHECK(mismatch(op(ad, ok.cuda()).cpu(), op(a, ok), true).empty());
    }
    // In place too; the error word's block returns to the allocator.
    const auto allocated = tp::cuda::memory_allocated(0);
    CHECK(thrown([&] { ad.clone().remainder_(bd); }).second == "ZeroDivisionError");
    CHECK(tp::cuda::memory_allocated(0) == allocated);
  }
  // Floating division by zero is IEEE's, without an error.
  const tp::Tensor x = tp::tensor(std::vector<float>{1.0f, -1.0f, 0.0f});
  const tp::Tensor zero = tp::zeros({3});
  CHECK(mismatch(tp::div(x.cuda(), zero.cuda(), "floor").cpu(), tp::div(x, zero, "floor"), true)
            .empty());
  CHECK(mismatch(tp::remainder(x.cuda(), zero.cuda()).cpu(), tp::remainder(x, zero), true).empty());
}

TEST_CASE("cuda pointwise: spaces beyond 2^31 bytes run the 64-bit kernels", "[device]") {
  REQUIRE(tp::cuda::is_available());
  const int64_t far = int64_t{1} << 31;
  tp::Tensor x = tp::empty({far + 4}, kOnCuda.dtype(tp::kByte));  // 2 GiB, never filled
  const tp::Tensor lo = tp::arange(4).to(tp::kByte), hi = (tp::arange(4) + 10).to(tp::kByte);
  x.narrow(0, 0, 4).copy_(lo);
  x.narrow(0, far, 4).copy_(hi);
  const tp::Tensor view = x.as_strided({2, 4}, {far, 1});
  CHECK_FALSE(tc::can_use_32bit_indexing(
      tp::TensorIteratorConfig().add_output(tp::Tensor()).add_input(view).build()));
  const tp::Tensor expected = tp::stack({lo, hi});
  CHECK(mismatch((view + 1).cpu(), expected + 1, true).empty());
  view.mul_(3);  // a 64-bit output
  CHECK(mismatch(x.narrow(0, 0, 4).cpu(), lo * 3, true).empty());
  CHECK(mismatch(x.narrow(0, far, 4).cpu(), hi * 3, true).empty());
  x = tp::Tensor();
  tp::cuda::empty_cache();
}

TEST_CASE("cuda pointwise: kernels run on the current stream", "[device]") {
  REQUIRE(tp::cuda::is_available());
  Values v(5);
  const tp::Tensor a = random_tensor(v, tp::kFloat, {256, 1024});
  const tp::Tensor b = random_tensor(v, tp::kFloat, {256, 1024}, C::Add, 1);
  const tc::CUDAStream side = tc::getStreamFromPool();
  tp::Tensor got;
  {
    const tc::CUDAStreamGuard guard(side);
    const tp::Tensor ad = a.cuda(), bd = b.cuda();
    got = ((ad * bd + ad) * 0.5).cpu();  // uploads, kernels and the download: one stream
  }
  CHECK(mismatch(got, (a * b + a) * 0.5, true).empty());
  // The default stream still works after the side stream's work.
  CHECK(mismatch((a.cuda() - 1).cpu(), a - 1, true).empty());
}

}  // namespace cuda_pointwise_test
