// Reductions, softmax and scans on CUDA (backends/cuda/reduce.hpp, reduce_source.hpp).
//
// Untagged (the cuda.host run, any machine): every row kernel compiles with NVRTC for sm_80 and
// sm_90; keys and names; and everything the kernel step works out on the host, proven on "fake"
// CUDA tensors (host memory labelled cuda:0): the row space, plan and parameter of a reduction
// or softmax over every layout, run through a host emulation of the kernels' loops, give the
// CPU's results.
// [no_device]: a reduction that passes the host's checks stops at the device.
// [device]: every reduction, softmax and scan on the GPU against the CPU, in every dtype the front
// ends give them, over contiguous, transposed, sliced and expanded inputs and out= layouts;
// argmax's NaN and tie rules; gradients through them. Not yet run on hardware.
#include <catch2/catch.hpp>

#include "fake_cuda.hpp"

#include <tensorplay/backends/cuda/reduce.hpp>
#include <tensorplay/tensorplay.hpp>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <thread>
#include <vector>

namespace cuda_reduce_test {

namespace tp = tensorplay;
namespace tc = tensorplay::cuda;
using R = tp::ReduceCode;
using Catch::Matchers::Contains;

std::vector<tp::DType> all_dtypes() {
  std::vector<tp::DType> v;
  for (int d = 0; d < tp::kNumDTypes; ++d) v.push_back(static_cast<tp::DType>(d));
  return v;
}

constexpr R kCodes[] = {R::Sum, R::Mean, R::Prod, R::Amax, R::Amin, R::Argmax, R::Argmin};

// Every reduction kernel a front end can ask for.
std::vector<tc::ReduceKernelKey> all_reduce_keys(bool index64) {
  std::vector<tc::ReduceKernelKey> keys;
  for (const R code : kCodes) {
    for (const tp::DType in : all_dtypes()) {
      for (const tp::DType out : all_dtypes()) {
        const tc::ReduceKernelKey key{code, in, out, index64};
        try {
          tc::check_reduce_kernel_key(key);
          keys.push_back(key);
        } catch (const tp::TypeError&) {
        }
      }
    }
  }
  return keys;
}

using cuda_test_support::kSanitized;

TEST_CASE("row kernels: every reduction, softmax and scan compiles to PTX for sm_80 and sm_90",
          "[cuda][reduce][nvrtc]") {
  struct Keys {
    std::vector<tc::ReduceKernelKey> reductions;
    std::vector<tc::SoftmaxKernelKey> softmaxes;
    std::vector<tc::ScanKernelKey> scans;
    int arch;
  };
  std::vector<Keys> sets;
  std::vector<bool> widths{false};
  if (!kSanitized) widths.push_back(true);
  for (const bool index64 : widths) {
    const std::vector<tc::ReduceKernelKey> keys = all_reduce_keys(index64);
    // sum, prod: 10 result dtypes each; mean: 4; amax, amin: 10; argmax, argmin: 10.
    CHECK(keys.size() == 64);
    std::vector<tc::SoftmaxKernelKey> softmaxes;
    for (const tp::DType dt : {tp::kFloat, tp::kDouble}) {
      for (const bool log : {false, true}) softmaxes.push_back({dt, log, index64});
    }
    std::vector<tc::ScanKernelKey> scans;
    for (const tp::DType dt : {tp::kLong, tp::kFloat, tp::kDouble}) {
      for (const bool prod : {false, true}) scans.push_back({dt, prod, index64});
    }
    for (const int arch : {80, 90}) sets.push_back({keys, softmaxes, scans, arch});
  }
  std::vector<cuda_test_support::Program> programs;
  for (const Keys& k : sets) {
    programs.push_back({tc::row_kernel_source(k.reductions, k.softmaxes, k.scans),
                        tc::reduce_kernel_name(k.reductions[0]),
                        k.arch,
                        {},
                        {}});
  }
  cuda_test_support::compile_all(programs);
  for (std::size_t i = 0; i < programs.size(); ++i) {
    const cuda_test_support::Program& p = programs[i];
    CAPTURE(p.arch, sets[i].reductions[0].index64);
    REQUIRE(p.error.empty());
    for (const auto& key : sets[i].reductions) {
      CHECK(p.ptx.find(".entry " + tc::reduce_kernel_name(key) + "(") != std::string::npos);
    }
    for (const auto& key : sets[i].scans) {
      CHECK(p.ptx.find(".entry " + tc::scan_kernel_name(key) + "(") != std::string::npos);
    }
    for (const auto& key : sets[i].softmaxes) {
      CHECK(p.ptx.find(".entry " + tc::softmax_kernel_name(key) + "(") != std::string::npos);
    }
  }
}

TEST_CASE("row kernels: keys, names, and the keys no kernel exists for", "[cuda][reduce]") {
  CHECK(tc::reduce_kernel_name({R::Sum, tp::kFloat, tp::kHalf, false}) ==
        "tp_reduce_sum_float32_float16_i32");
  CHECK(tc::reduce_kernel_name({R::Argmax, tp::kBFloat16, tp::kLong, true}) ==
        "tp_reduce_argmax_bfloat16_int64_i64");
  CHECK(tc::softmax_kernel_name({tp::kDouble, true, false}) == "tp_log_softmax_float64_i32");
  // What the front ends never hand over: an int32 accumulation, a mean into an integer, an
  // index of another dtype, amax changing dtype, a float16 softmax (computed in float32).
  CHECK_THROWS_MATCHES(tc::check_reduce_kernel_key({R::Sum, tp::kInt, tp::kInt}), tp::TypeError,
                       Catch::Message("cuda: no 'sum' kernel reads Int and writes Int"));
  CHECK_THROWS_AS(tc::check_reduce_kernel_key({R::Mean, tp::kLong, tp::kLong}), tp::TypeError);
  CHECK_THROWS_AS(tc::check_reduce_kernel_key({R::Argmin, tp::kFloat, tp::kInt}), tp::TypeError);
  CHECK_THROWS_AS(tc::check_reduce_kernel_key({R::Amax, tp::kHalf, tp::kFloat}), tp::TypeError);
  CHECK_THROWS_MATCHES(tc::check_softmax_kernel_key({tp::kHalf, false, false}), tp::TypeError,
                       Catch::Message("cuda: softmax kernels compute in float32 or float64, not "
                                      "Half"));
  CHECK_THROWS_AS(tc::check_reduce_kernel_key({static_cast<R>(99), tp::kFloat, tp::kFloat}),
                  tp::Error);
  CHECK(tc::scan_kernel_name({tp::kLong, true, false}) == "tp_cumprod_int64_i32");
  CHECK_THROWS_MATCHES(tc::check_scan_kernel_key({tp::kInt, false, false}), tp::TypeError,
                       Catch::Message("cuda: cumsum kernels compute in int64, float32 or float64, "
                                      "not Int"));
  // Distinct keys, distinct table slots.
  std::vector<std::uint64_t> slots;
  for (const auto& key : all_reduce_keys(false)) {
    for (const bool i64 : {false, true}) {
      auto k = key;
      k.index64 = i64;
      slots.push_back(tc::kernel_slot(tc::KernelFamily::Reduce, 0, tc::detail::pack_reduce_key(k)));
    }
  }
  std::sort(slots.begin(), slots.end());
  CHECK(std::adjacent_find(slots.begin(), slots.end()) == slots.end());
}

// ---- the kernel step's host side, over fake CUDA tensors ----------------------------------------

using cuda_test_support::kFakeCuda;
// Float32 storage shared by a fake CUDA tensor and its CPU twin.
struct Blob : cuda_test_support::Blob<float> {
  Blob(std::vector<int64_t> sizes, const std::function<float(std::size_t)>& value)
      : cuda_test_support::Blob<float>(std::move(sizes), tp::kFloat, value) {}
};

float load(const char* p) {
  float v;
  std::memcpy(&v, p, sizeof v);
  return v;
}

// The row kernels' loops (reduce_source.hpp's reduce_rows and softmax_rows) on the host, one row
// after another, each element found through the parameter's calculators. Float32 input; sums
// accumulate in double here, so compare them with a tolerance.
template <class Index>
void emulate(const tc::ReduceParams<Index>& p, std::optional<R> code, bool log = false) {
  for (Index r = 0; r < p.rows; ++r) {
    const auto base = p.outer.get(r);
    const auto at = [&](Index j) { return p.in + base.v[1] + p.inner.get(j).v[1]; };
    if (!code) {  // softmax
      float mx = load(at(0));
      for (Index j = 0; j < p.length; ++j) {
        const float v = load(at(j));
        if (std::isnan(mx) || std::isnan(v)) {
          mx = NAN;
        } else {
          mx = std::max(mx, v);
        }
      }
      double sum = 0;
      for (Index j = 0; j < p.length; ++j) sum += std::exp(double(load(at(j))) - mx);
      for (Index j = 0; j < p.length; ++j) {
        const double x = double(load(at(j))) - mx;
        const auto y = static_cast<float>(log ? x - std::log(sum) : std::exp(x) / sum);
        std::memcpy(p.out + base.v[0] + p.inner.get(j).v[0], &y, sizeof y);
      }
      continue;
    }
    double acc = *code == R::Prod ? 1 : 0;
    float best = p.length > 0 ? load(at(0)) : 0;
    int64_t best_i = 0;
    for (Index j = 0; j < p.length; ++j) {
      const float v = load(at(j));
      switch (*code) {
        case R::Sum:
        case R::Mean: acc += v; break;
        case R::Prod: acc *= v; break;
        default: {
          const bool better = *code == R::Amax || *code == R::Argmax ? v > best : v < best;
          if (!std::isnan(best) && (std::isnan(v) || better)) best = v, best_i = int64_t(j);
        }
      }
    }
    char* out = p.out + base.v[0];
    if (*code == R::Argmax || *code == R::Argmin) {
      std::memcpy(out, &best_i, sizeof best_i);
    } else {
      const float v = *code == R::Amax || *code == R::Amin ? best
                      : *code == R::Mean                   ? float(acc / double(p.length))
                                                           : float(acc);
      std::memcpy(out, &v, sizeof v);
    }
  }
}

void run_emulated(const tp::Tensor& result, const tp::Tensor& self, std::uint64_t dims,
                  std::optional<R> code, bool log = false) {
  const tc::RowSpace space = tc::make_row_space(result, self, dims, !code.has_value());
  const tc::RowLaunch plan = tc::plan_rows(space, result, self);
  REQUIRE_FALSE(plan.index64);
  emulate(tc::make_reduce_params<unsigned>(space, plan, tc::detail::device_bytes(result),
                                           tc::detail::device_bytes(self)),
          code, log);
}

float value_of(std::size_t i) { return static_cast<float>((i * 7) % 23) * 0.5f - 4.0f; }

// Views of one [4, 6, 5] base, as both twins.
struct Layout {
  const char* name;
  std::function<tp::Tensor(const tp::Tensor&)> view;
};
std::vector<Layout> layouts() {
  return {
      {"contiguous", [](const tp::Tensor& t) { return t; }},
      {"permuted",
       [](const tp::Tensor& t) {
         return t.permute({2, 0, 1});
       }},
      {"sliced with a step", [](const tp::Tensor& t) { return t.slice(1, 1, 6, 2); }},
      {"transposed slice", [](const tp::Tensor& t) { return t.transpose(0, 2).slice(0, 1, 4); }},
      {"expanded",
       [](const tp::Tensor& t) {
         return t.select(1, 2).unsqueeze(1).expand({4, 3, 5});
       }},
  };
}

std::uint64_t mask_of(const std::vector<int64_t>& dims) {
  std::uint64_t m = 0;
  for (int64_t d : dims) m |= std::uint64_t{1} << d;
  return m;
}

// A fake CUDA result of keepdim's shape, contiguous or with its dimensions stored in reverse.
struct Out {
  std::vector<float> host;
  tp::Tensor cuda, cpu;
  Out(std::vector<int64_t> shape, bool reversed, tp::DType dt = tp::kFloat) {
    std::size_t n = 1;
    for (int64_t s : shape) n *= std::size_t(s);
    host.assign(std::max<std::size_t>(n, 1) * 2, NAN);  // room for int64
    std::vector<int64_t> rev(shape.rbegin(), shape.rend());
    cuda = tp::from_blob(host.data(), reversed ? rev : shape, kFakeCuda.dtype(dt));
    cpu = tp::from_blob(host.data(), reversed ? rev : shape, tp::TensorOptions().dtype(dt));
    if (reversed) {
      std::vector<int64_t> perm;
      for (int64_t d = int64_t(shape.size()) - 1; d >= 0; --d) perm.push_back(d);
      cuda = cuda.permute(perm);
      cpu = cpu.permute(perm);
    }
  }
};

TEST_CASE("cuda reductions: the parameter addresses every layout as the CPU reduces it",
          "[cuda][reduce]") {
  Blob a({4, 6, 5}, value_of);
  const std::vector<std::vector<int64_t>> dim_sets = {{}, {0}, {1}, {2}, {0, 2}, {1, 2}, {0, 1, 2}};
  for (const Layout& layout : layouts()) {
    const tp::Tensor x = layout.view(a.cuda), x_cpu = layout.view(a.cpu);
    for (const auto& dims : dim_sets) {
      for (const bool reversed : {false, true}) {
        CAPTURE(layout.name, dims, reversed);
        std::vector<int64_t> shape(x.sizes().begin(), x.sizes().end());
        for (int64_t d : dims) shape[std::size_t(d)] = 1;
        const std::uint64_t mask = mask_of(dims);
        for (const R code : {R::Sum, R::Mean, R::Prod, R::Amax, R::Amin}) {
          if (dims.empty()) continue;
          CAPTURE(tc::reduce_code_name(code));
          Out out(shape, reversed);
          run_emulated(out.cuda, x, mask, code);
          tp::Tensor want;
          switch (code) {
            case R::Sum: want = tp::sum(x_cpu, dims, true); break;
            case R::Mean: want = tp::mean(x_cpu, dims, true); break;
            case R::Prod:
              want = x_cpu.to(tp::kDouble);
              for (int64_t d : dims) want = tp::prod(want, d, true);
              want = want.to(tp::kFloat);
              break;
            case R::Amax: want = tp::amax(x_cpu, dims, true); break;
            default: want = tp::amin(x_cpu, dims, true); break;
          }
          CHECK(tp::allclose(out.cpu, want, 1e-5, 1e-5));
        }
        // argmax over one dim, or over everything: the flattened index, in row-major order.
        if (dims.size() == 1 || dims.size() == 3) {
          for (const R code : {R::Argmax, R::Argmin}) {
            Out out(shape, reversed, tp::kLong);
            run_emulated(out.cuda, x, mask, code);
            const bool mx = code == R::Argmax;
            const tp::Tensor want =
                dims.size() == 1
                    ? (mx ? tp::argmax(x_cpu, dims[0], true) : tp::argmin(x_cpu, dims[0], true))
                    : (mx ? tp::argmax(x_cpu) : tp::argmin(x_cpu)).reshape({1, 1, 1});
            CHECK(tp::equal(out.cpu, want));
          }
        }
      }
    }
  }
}

TEST_CASE("cuda reductions: argmax's first NaN and first extreme", "[cuda][reduce]") {
  std::vector<float> v = {1, 5, 5, 2, NAN, 5, NAN, 0};
  Blob a({2, 4}, [&](std::size_t i) { return v[i]; });
  for (const R code : {R::Argmax, R::Argmin, R::Amax}) {
    Out out({2, 1}, false, code == R::Amax ? tp::kFloat : tp::kLong);
    run_emulated(out.cuda, a.cuda, mask_of({1}), code);
    const tp::Tensor want = code == R::Argmax   ? tp::argmax(a.cpu, 1, true)
                            : code == R::Argmin ? tp::argmin(a.cpu, 1, true)
                                                : tp::amax(a.cpu, {1}, true);
    CHECK(tp::allclose(out.cpu, want, 0, 0, /*equal_nan=*/true));
  }
}

TEST_CASE("cuda softmax: the parameter addresses every layout along every dimension",
          "[cuda][reduce][softmax]") {
  Blob a({4, 6, 5}, value_of);
  for (const Layout& layout : layouts()) {
    const tp::Tensor x = layout.view(a.cuda), x_cpu = layout.view(a.cpu);
    for (int64_t dim = 0; dim < 3; ++dim) {
      for (const bool log : {false, true}) {
        for (const bool reversed : {false, true}) {
          CAPTURE(layout.name, dim, log, reversed);
          Out out(std::vector<int64_t>(x.sizes().begin(), x.sizes().end()), reversed);
          run_emulated(out.cuda, x, mask_of({dim}), std::nullopt, log);
          const tp::Tensor want = log ? tp::log_softmax(x_cpu, dim) : tp::softmax(x_cpu, dim);
          CHECK(tp::allclose(out.cpu, want, 1e-5, 1e-6));
        }
      }
    }
  }
}

// The scan kernel's loop (reduce_source.hpp's scan_rows) on the host: float32 accumulated in
// float64, in order, as the kernel and the CPU do: results agree bit for bit.
template <class Index>
void emulate_scan(const tc::ReduceParams<Index>& p, bool prod) {
  for (Index r = 0; r < p.rows; ++r) {
    const auto base = p.outer.get(r);
    double acc = prod ? 1 : 0;
    for (Index j = 0; j < p.length; ++j) {
      const auto o = p.inner.get(j);
      const double x = load(p.in + base.v[1] + o.v[1]);
      acc = prod ? acc * x : acc + x;
      const auto y = static_cast<float>(acc);
      std::memcpy(p.out + base.v[0] + o.v[0], &y, sizeof y);
    }
  }
}

TEST_CASE("cuda scans: the parameter addresses every layout along every dimension",
          "[cuda][reduce][scan]") {
  Blob a({4, 6, 5}, [](std::size_t i) { return value_of(i) * 0.25f + 0.5f; });
  for (const Layout& layout : layouts()) {
    const tp::Tensor x = layout.view(a.cuda), x_cpu = layout.view(a.cpu);
    for (int64_t dim = 0; dim < 3; ++dim) {
      for (const bool prod : {false, true}) {
        for (const bool reversed : {false, true}) {
          CAPTURE(layout.name, dim, prod, reversed);
          Out out(std::vector<int64_t>(x.sizes().begin(), x.sizes().end()), reversed);
          const tc::RowSpace space = tc::make_row_space(out.cuda, x, mask_of({dim}), true);
          const tc::RowLaunch plan = tc::plan_rows(space, out.cuda, x, /*serial_only=*/true);
          CHECK(plan.serial);
          emulate_scan(
              tc::make_reduce_params<unsigned>(space, plan, tc::detail::device_bytes(out.cuda),
                                               tc::detail::device_bytes(x)),
              prod);
          const tp::Tensor want = prod ? tp::cumprod(x_cpu, dim) : tp::cumsum(x_cpu, dim);
          CHECK(tp::equal(out.cpu, want));
        }
      }
    }
  }
  // In place: each element is read before it is written.
  Blob b({3, 7}, value_of);
  const tp::Tensor want = tp::cumsum(b.cpu.clone(), 1);
  const tc::RowSpace space = tc::make_row_space(b.cuda, b.cuda, mask_of({1}), true);
  const tc::RowLaunch plan = tc::plan_rows(space, b.cuda, b.cuda, true);
  emulate_scan(tc::make_reduce_params<unsigned>(space, plan, tc::detail::device_bytes(b.cuda),
                                                tc::detail::device_bytes(b.cuda)),
               false);
  CHECK(tp::equal(b.cpu, want));
}

TEST_CASE("cuda reductions: row spaces merge what can be merged, plans pick the launch",
          "[cuda][reduce]") {
  Blob a({64, 32}, value_of);
  SECTION("a full reduction of a contiguous tensor is one row of one dimension") {
    Out out({1, 1}, false);
    const tc::RowSpace s = tc::make_row_space(out.cuda, a.cuda, mask_of({0, 1}), false);
    CHECK(s.rows == 1);
    CHECK(s.length == 2048);
    CHECK(s.inner_sizes == std::vector<int64_t>{2048});
    CHECK(s.outer_sizes.empty());
    const tc::RowLaunch l = tc::plan_rows(s, out.cuda, a.cuda);
    CHECK_FALSE(l.serial);
    CHECK(l.grid == 1);
    CHECK(l.block == tc::kRowBlock);
  }
  SECTION("short rows: a thread each") {
    Out out({64, 1}, false);
    const tc::RowSpace s = tc::make_row_space(out.cuda, a.cuda, mask_of({1}), false);
    CHECK(s.rows == 64);
    CHECK(s.length == 32);
    CHECK(s.inner_strides[1] == std::vector<int64_t>{4});
    CHECK(s.outer_strides[1] == std::vector<int64_t>{128});
    const tc::RowLaunch l = tc::plan_rows(s, out.cuda, a.cuda);
    CHECK(l.serial);
    CHECK(l.grid == 1);
  }
  SECTION("many rows side by side: a thread each, even when long") {
    Blob b({100, 2048}, value_of);
    Out out({1, 2048}, false);
    const tc::RowSpace s = tc::make_row_space(out.cuda, b.cuda, mask_of({0}), false);
    CHECK(s.rows == 2048);
    const tc::RowLaunch l = tc::plan_rows(s, out.cuda, b.cuda);
    CHECK(l.serial);
    CHECK(l.grid == 16);
    Out out2({100, 1}, false);
    CHECK_FALSE(
        tc::plan_rows(tc::make_row_space(out2.cuda, b.cuda, mask_of({1}), false), out2.cuda, b.cuda)
            .serial);
  }
  SECTION("beyond 2^31 elements: 64-bit indexing") {
    const tp::Tensor big = a.cuda.select(0, 0).select(0, 0).expand({int64_t{1} << 31, 2});
    Out out({1, 2}, false);
    const tc::RowSpace s = tc::make_row_space(out.cuda, big, mask_of({0}), false);
    const tc::RowLaunch l = tc::plan_rows(s, out.cuda, big);
    CHECK(l.index64);
    CHECK_THROWS_WITH(tc::make_reduce_params<unsigned>(s, l, nullptr, nullptr),
                      Contains("index width"));
    const auto p = tc::make_reduce_params<unsigned long long>(s, l, nullptr, nullptr);
    CHECK(p.length == (1ull << 31));
  }
  SECTION("an empty input: no rows, nothing to launch") {
    Blob e({0, 3}, value_of);
    Out out({1, 3}, false);
    const tc::RowSpace s = tc::make_row_space(out.cuda, e.cuda, mask_of({0}), false);
    CHECK(s.length == 0);
    CHECK(s.rows == 3);
    Out none({0, 1}, false);
    const tc::RowSpace s2 = tc::make_row_space(none.cuda, e.cuda, mask_of({1}), false);
    CHECK(tc::plan_rows(s2, none.cuda, e.cuda).grid == 0);
  }
  SECTION("a result of the wrong shape is refused") {
    Out out({64, 32}, false);
    CHECK_THROWS_WITH(tc::make_row_space(out.cuda, a.cuda, mask_of({1}), false),
                      Contains("result has size 32 in dimension 1"));
  }
}

TEST_CASE("without a device, a reduction that passes the host's checks stops at the device",
          "[no_device]") {
  Blob a({3, 4}, value_of);
  Out out({3, 1}, false);
  const std::string why = tp::cuda::unavailable_reason();
  CHECK_THROWS_MATCHES(tp::sum_out(out.cuda.squeeze(1), a.cuda, {1}), tc::CUDAUnavailableError,
                       Catch::Message(why));
  Out sm({3, 4}, false);
  CHECK_THROWS_AS(tp::softmax_out(sm.cuda, a.cuda, 1), tc::CUDAUnavailableError);
  CHECK_THROWS_AS(tp::cumsum_out(sm.cuda, a.cuda, 1), tc::CUDAUnavailableError);
  CHECK(std::isnan(out.host[0]));
}

// ---- on a GPU: every reduction against the CPU --------------------------------------------------

tp::Tensor sample(tp::DType dt, std::vector<int64_t> sizes, std::uint64_t seed) {
  tp::manual_seed(seed);
  const tp::Tensor x = tp::randn(sizes, tp::kDouble) * 3;
  if (dt == tp::kBool) return x.gt(0);
  if (tp::is_floating_point(dt)) return x.to(dt);
  return x.round().to(dt);  // small integers: sums and products stay in range
}

TEST_CASE("cuda reductions: every code in every dtype and layout matches the CPU", "[device]") {
  REQUIRE(tp::cuda::is_available());
  for (const tp::DType dt : all_dtypes()) {
    const tp::Tensor base = sample(dt, {5, 40, 33}, 7);
    const std::vector<std::pair<const char*, std::function<tp::Tensor(const tp::Tensor&)>>> views =
        {
            {"contiguous", [](const tp::Tensor& t) { return t; }},
            {"permuted",
             [](const tp::Tensor& t) {
               return t.permute({2, 0, 1});
             }},
            {"sliced", [](const tp::Tensor& t) { return t.slice(2, 1, 33, 3); }},
        };
    for (const auto& [name, view] : views) {
      const tp::Tensor x_cpu = view(base), x = view(base.cuda());
      for (const std::vector<int64_t>& dims :
           std::vector<std::vector<int64_t>>{{0}, {1}, {2}, {0, 2}, {0, 1, 2}}) {
        CAPTURE(tp::scalar_type_name(dt), name, dims);
        const auto same = [](const tp::Tensor& got, const tp::Tensor& want) {
          REQUIRE(got.is_cuda());
          const tp::Tensor g = got.cpu();
          if (tp::is_floating_point(want.dtype())) {
            CHECK(tp::allclose(g.to(tp::kDouble), want.to(tp::kDouble), 1e-3, 1e-3, true));
          } else {
            CHECK(tp::equal(g, want));
          }
        };
        same(tp::sum(x, dims), tp::sum(x_cpu, dims));
        same(tp::sum(x, dims, true), tp::sum(x_cpu, dims, true));
        same(tp::amax(x, dims), tp::amax(x_cpu, dims));
        same(tp::amin(x, dims, true), tp::amin(x_cpu, dims, true));
        if (tp::is_floating_point(dt)) same(tp::mean(x, dims), tp::mean(x_cpu, dims));
        if (dims.size() == 1) {
          same(tp::prod(x, dims[0]), tp::prod(x_cpu, dims[0]));
          if (dt != tp::kBool) {
            same(tp::argmax(x, dims[0]), tp::argmax(x_cpu, dims[0]));
            same(tp::argmin(x, dims[0], true), tp::argmin(x_cpu, dims[0], true));
            const auto [v, i] = tp::max(x, dims[0]);
            const auto [v_cpu, i_cpu] = tp::max(x_cpu, dims[0]);
            same(v, v_cpu);
            same(i, i_cpu);
          }
        }
      }
      if (dt != tp::kBool) {
        CHECK(tp::equal(tp::argmax(x).cpu(), tp::argmax(x_cpu)));
        CHECK(tp::equal(tp::argmin(x).cpu(), tp::argmin(x_cpu)));
      }
    }
  }
}

TEST_CASE("cuda reductions: NaN, ties, empty rows, out= and dtype=", "[device]") {
  REQUIRE(tp::cuda::is_available());
  const tp::Tensor v = tp::tensor({1.0f, 5.0f, 5.0f, NAN, 2.0f, 5.0f, 5.0f, 0.0f}).reshape({2, 4});
  CHECK(tp::equal(tp::argmax(v.cuda(), 1).cpu(), tp::argmax(v, 1)));
  CHECK(tp::equal(tp::amax(v.cuda(), {1}).cpu().isnan(), tp::amax(v, {1}).isnan()));
  // Long rows take the block kernel: a NaN and ties far apart.
  tp::Tensor long_row = tp::zeros({3, 5000});
  long_row.index_put_({1, 4000}, NAN);
  long_row.index_put_({2, 17}, 3.0);
  long_row.index_put_({2, 4999}, 3.0);
  CHECK(tp::equal(tp::argmax(long_row.cuda(), 1).cpu(), tp::argmax(long_row, 1)));
  // Empty rows: sum 0, prod 1, mean NaN.
  const tp::Tensor e = tp::zeros({0, 3}).cuda();
  CHECK(tp::equal(tp::sum(e, {0}).cpu(), tp::zeros({3})));
  CHECK(tp::equal(tp::prod(e, 0).cpu(), tp::ones({3})));
  CHECK(tp::mean(e, {0}).cpu().isnan().all().item<bool>());
  // out= of another layout, dtype= accumulation.
  const tp::Tensor x = tp::arange(24, tp::kInt).reshape({4, 6});
  tp::Tensor out = tp::empty({6, 4}, tp::TensorOptions().dtype(tp::kLong).device(tp::kCUDA)).t();
  tp::sum_out(out, x.cuda().unsqueeze(2).expand({4, 6, 3}), {2});
  CHECK(tp::equal(out.cpu(), tp::sum(x.unsqueeze(2).expand({4, 6, 3}), {2})));
  CHECK(
      tp::equal(tp::sum(x.cuda(), {1}, false, tp::kHalf).cpu(), tp::sum(x, {1}, false, tp::kHalf)));
  // Integer products wrap as on the CPU.
  const tp::Tensor big = tp::full({40}, 7, tp::TensorOptions().dtype(tp::kLong));
  CHECK(tp::equal(tp::prod(big.cuda()).cpu(), tp::prod(big)));
}

TEST_CASE("cuda softmax: every layout and dimension, float16 through float32, in place",
          "[device]") {
  REQUIRE(tp::cuda::is_available());
  for (const tp::DType dt : {tp::kFloat, tp::kDouble, tp::kHalf, tp::kBFloat16}) {
    const tp::Tensor base = sample(dt, {6, 300, 7}, 3);
    for (const bool permuted : {false, true}) {
      const tp::Tensor x_cpu = permuted ? base.permute({1, 2, 0}) : base;
      const tp::Tensor x = permuted ? base.cuda().permute({1, 2, 0}) : base.cuda();
      for (int64_t dim = 0; dim < 3; ++dim) {
        CAPTURE(tp::scalar_type_name(dt), permuted, dim);
        const double tol = dt == tp::kFloat || dt == tp::kDouble ? 1e-5 : 1e-2;
        CHECK(tp::allclose(tp::softmax(x, dim).cpu().to(tp::kDouble),
                           tp::softmax(x_cpu, dim).to(tp::kDouble), tol, tol));
        CHECK(tp::allclose(tp::log_softmax(x, dim).cpu().to(tp::kDouble),
                           tp::log_softmax(x_cpu, dim).to(tp::kDouble), tol, tol));
      }
    }
  }
  // A row of NaN or of -inf gives NaN, as the CPU.
  const tp::Tensor special = tp::tensor({NAN, 1.0f, -INFINITY, -INFINITY}).reshape({2, 2});
  CHECK(tp::softmax(special.cuda(), 1).cpu().isnan().all().item<bool>());
  // Written in place over its input.
  tp::Tensor y = tp::randn({4, 1000}).cuda();
  const tp::Tensor want = tp::softmax(y.cpu(), 1);
  tp::softmax_out(y, y, 1);
  CHECK(tp::allclose(y.cpu(), want, 1e-5, 1e-6));
}

TEST_CASE("cuda scans: cumsum and cumprod in every dtype and layout, bit for bit", "[device]") {
  REQUIRE(tp::cuda::is_available());
  for (const tp::DType dt : all_dtypes()) {
    const tp::Tensor base = sample(dt, {4, 50, 3}, 11);
    for (const bool permuted : {false, true}) {
      const tp::Tensor x_cpu = permuted ? base.permute({2, 0, 1}) : base;
      const tp::Tensor x = permuted ? base.cuda().permute({2, 0, 1}) : base.cuda();
      for (int64_t dim = 0; dim < 3; ++dim) {
        CAPTURE(tp::scalar_type_name(dt), permuted, dim);
        CHECK(tp::equal(tp::cumsum(x, dim).cpu(), tp::cumsum(x_cpu, dim)));
        if (dt != tp::kBool) CHECK(tp::equal(tp::cumprod(x, dim).cpu(), tp::cumprod(x_cpu, dim)));
      }
    }
  }
  tp::Tensor y = tp::randn({5, 300}).cuda();
  const tp::Tensor want = tp::cumsum(y.cpu(), 1);
  y.cumsum_(1);
  CHECK(tp::equal(y.cpu(), want));
}

TEST_CASE("cuda reductions and softmax: gradients through them match the CPU's", "[device]") {
  REQUIRE(tp::cuda::is_available());
  const tp::Tensor x_cpu = tp::randn({8, 16}, tp::kDouble).requires_grad_();
  const tp::Tensor x = x_cpu.detach().cuda().requires_grad_();
  (tp::log_softmax(x, 1).sum() + tp::amax(x, {0}).sum() * 2 + x.mean()).backward();
  (tp::log_softmax(x_cpu, 1).sum() + tp::amax(x_cpu, {0}).sum() * 2 + x_cpu.mean()).backward();
  REQUIRE(x.grad().is_cuda());
  CHECK(tp::allclose(x.grad().cpu(), x_cpu.grad(), 1e-9, 1e-9));
}

}  // namespace cuda_reduce_test
