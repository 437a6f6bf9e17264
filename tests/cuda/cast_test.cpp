// The CUDA copy kernel (backends/cuda/cast_source.hpp) and the copies and fills built on it
// (backends/cuda/copy.hpp).
//
// Untagged (the cuda.host run, any machine): the kernels' one-rounding conversions into float16
// and bfloat16 (code shared with the host) against core/half.hpp's, bit for bit; every copy kernel
// compiles with NVRTC for sm_80 and sm_90; plans and parameters over "fake" CUDA tensors that,
// run through a host emulation of the kernel's loop, copy every layout as the CPU does; the
// CPU's overlap error, raised before any device is touched.
// [no_device]: a strided device copy and a fill stop at the device.
#include <catch2/catch.hpp>

#include "fake_cuda.hpp"

#include <tensorplay/backends/cuda/copy.hpp>
#include <tensorplay/tensorplay.hpp>

#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace cuda_cast_test {

namespace tp = tensorplay;
namespace tc = tensorplay::cuda;
using Catch::Matchers::Contains;
using cuda_test_support::Blob;

TEST_CASE("cuda copies: float64 and int64 become float16 and bfloat16 with one rounding",
          "[cuda][copy]") {
  std::vector<double> doubles = {0.0,      -0.0,    1.0,     -1.0,     65504.0,
                                 65519.99, 65520.0, 1e-8,    -6e-8,    2.9802322387695312e-08,
                                 1e300,    -1e300,  1e-300,  INFINITY, -INFINITY,
                                 NAN,      0.1,     1.0 / 3, 3.0e38,   3.5e38};
  // Halfway cases between float16 neighbours, nudged by a double ulp: a double rounding through
  // float32 would land them on the tie.
  for (double base : {1.0, 1024.0, 0.00048828125}) {
    const double half_ulp = base * std::ldexp(1.0, -11);
    doubles.push_back(base + half_ulp + base * std::ldexp(1.0, -40));
    doubles.push_back(base + half_ulp - base * std::ldexp(1.0, -40));
    doubles.push_back(base + half_ulp);
  }
  std::mt19937_64 rng(5);
  for (int i = 0; i < 20000; ++i) {
    const double d = std::bit_cast<double>(rng());
    // Keep most in float16's neighbourhood, where the rounding matters.
    doubles.push_back(i % 4 == 0
                          ? d
                          : std::ldexp(std::fmod(std::fabs(d), 1.0) + 1.0, int(i % 40) - 25) *
                                (i % 3 == 0 ? -1 : 1));
  }
  for (const double d : doubles) {
    CAPTURE(d);
    const float odd = tc::detail::double_to_float_odd(d);
    CHECK(tc::detail::float_to_half_bits(odd) == tp::Half(d).x);
    CHECK(tc::detail::float_to_bfloat16_bits(odd) == tp::BFloat16(d).x);
  }
  std::vector<long long> ints = {0,
                                 1,
                                 -1,
                                 2049,
                                 65519,
                                 65520,
                                 (1ll << 24) + 1,
                                 (1ll << 53) + 1,
                                 (1ll << 62) + (1ll << 40) + 1,
                                 std::numeric_limits<long long>::max(),
                                 std::numeric_limits<long long>::min()};
  for (int i = 0; i < 20000; ++i) {
    ints.push_back(static_cast<long long>(rng()) >> (i % 63));
  }
  for (const long long v : ints) {
    CAPTURE(v);
    const float odd = tc::detail::int64_to_float_odd(v);
    CHECK(tc::detail::float_to_half_bits(odd) == tp::Half(v).x);
    CHECK(tc::detail::float_to_bfloat16_bits(odd) == tp::BFloat16(v).x);
  }
}

TEST_CASE("cuda copies: every pair of dtypes compiles to PTX for sm_80 and sm_90",
          "[cuda][copy][nvrtc]") {
  std::vector<std::vector<tc::CastKernelKey>> sets;
  std::vector<cuda_test_support::Program> programs;
  std::vector<bool> widths{false};
  if (!cuda_test_support::kSanitized) widths.push_back(true);
  for (const bool index64 : widths) {
    std::vector<tc::CastKernelKey> keys;
    for (int o = 0; o < tp::kNumDTypes; ++o) {
      for (int i = 0; i < tp::kNumDTypes; ++i) {
        keys.push_back({static_cast<tp::DType>(o), static_cast<tp::DType>(i), index64});
      }
    }
    for (const int arch : {80, 90}) {
      sets.push_back(keys);
      programs.push_back({tc::cast_kernel_source(keys), "cast_all", arch, {}, {}});
    }
  }
  cuda_test_support::compile_all(programs);
  for (std::size_t p = 0; p < programs.size(); ++p) {
    CAPTURE(programs[p].arch);
    REQUIRE(programs[p].error.empty());
    for (const tc::CastKernelKey& key : sets[p]) {
      const std::string entry = ".entry " + tc::cast_kernel_name(key) + "(";
      if (programs[p].ptx.find(entry) == std::string::npos) FAIL_CHECK("no " << entry);
    }
  }
  CHECK(tc::cast_kernel_name({tp::kHalf, tp::kLong, true}) == "tp_cast_float16_int64_i64");
}

// The copy kernel's loop (cast_source.hpp's tp::cast) on the host, for float32 -> float32.
template <class Index>
void emulate(const tc::PointwiseParams<2, Index>& p) {
  for (Index i = 0; i < p.numel; ++i) {
    const auto o = p.offsets.get(i);
    float v;
    if (p.constant_mask & 2u) {
      v = std::bit_cast<float>(static_cast<std::uint32_t>(p.constants[1]));
    } else {
      std::memcpy(&v, p.data[1] + o.v[1], sizeof v);
    }
    std::memcpy(p.data[0] + o.v[0], &v, sizeof v);
  }
}

void run_emulated(const tp::Tensor& dst, const tp::Tensor& src) {
  const tp::TensorIterator iter = tp::detail::copy_iterator(dst, src);
  const tc::detail::CastPlan plan = tc::detail::plan_cast(iter);
  REQUIRE_FALSE(plan.key.index64);
  CHECK(plan.key.out == dst.dtype());
  CHECK(plan.key.in == src.dtype());
  emulate(tc::make_pointwise_operands<2, unsigned>(iter));
}

float value_of(std::size_t i) { return static_cast<float>(i % 29) * 0.5f - 3.0f; }

TEST_CASE("cuda copies: the parameter copies every layout as the CPU does", "[cuda][copy]") {
  Blob<float> a({6, 8}, tp::kFloat, value_of);
  struct Case {
    const char* name;
    std::function<tp::Tensor(const tp::Tensor&)> src;
    std::vector<int64_t> shape;
  };
  const std::vector<Case> cases = {
      {"transposed", [](const tp::Tensor& t) { return t.t(); }, {8, 6}},
      {"sliced with a step", [](const tp::Tensor& t) { return t.slice(1, 1, 8, 3); }, {6, 3}},
      {"a column", [](const tp::Tensor& t) { return t.select(1, 5); }, {6}},
      {"broadcast row", [](const tp::Tensor& t) { return t.select(0, 2); }, {4, 8}},
      {"expanded column",
       [](const tp::Tensor& t) {
         return t.select(1, 1).unsqueeze(1).expand({6, 5});
       },
       {6, 5}},
  };
  for (const Case& k : cases) {
    for (const bool transposed_dst : {false, true}) {
      CAPTURE(k.name, transposed_dst);
      std::vector<int64_t> rev(k.shape.rbegin(), k.shape.rend());
      Blob<float> out(transposed_dst ? rev : k.shape, tp::kFloat, [](std::size_t) { return NAN; });
      const tp::Tensor dst = transposed_dst && k.shape.size() == 2 ? out.cuda.t() : out.cuda;
      const tp::Tensor dst_cpu = transposed_dst && k.shape.size() == 2 ? out.cpu.t() : out.cpu;
      run_emulated(dst, k.src(a.cuda));
      const tp::Tensor want = tp::empty(dst_cpu.sizes());
      want.copy_(k.src(a.cpu));
      CHECK(tp::equal(dst_cpu, want));
    }
  }
  SECTION("fill: the value is a constant operand") {
    Blob<float> out({5, 4}, tp::kFloat, [](std::size_t) { return NAN; });
    run_emulated(out.cuda.t().slice(0, 1, 3), tp::scalar_tensor(2.5, tp::kFloat));
    const tp::Tensor want = tp::full({5, 4}, NAN);
    want.t().slice(0, 1, 3).fill_(2.5);
    CHECK(tp::allclose(out.cpu, want, 0, 0, /*equal_nan=*/true));
  }
}

TEST_CASE("cuda copies: the CPU's errors, before any device is touched", "[cuda][copy]") {
  Blob<float> a({4}, tp::kFloat, value_of), b({3}, tp::kFloat, value_of);
  CHECK_THROWS_WITH(tp::detail::copy_iterator(a.cuda.unsqueeze(0).expand({3, 4}), a.cuda),
                    Contains("unsupported operation: more than one element of the written-to "
                             "tensor refers to a single memory location"));
  CHECK_THROWS_AS(a.cuda.copy_(b.cuda), tp::Error);  // shapes that do not broadcast
}

TEST_CASE("without a device, strided device copies and fills stop at the device", "[no_device]") {
  Blob<float> a({3, 4}, tp::kFloat, value_of), out({4, 3}, tp::kFloat, value_of);
  const std::string why = tp::cuda::unavailable_reason();
  CHECK_THROWS_MATCHES(out.cuda.copy_(a.cuda.t()), tc::CUDAUnavailableError, Catch::Message(why));
  CHECK_THROWS_MATCHES(out.cuda.t().fill_(1), tc::CUDAUnavailableError, Catch::Message(why));
  CHECK(out.host[0] == value_of(0));
}

}  // namespace cuda_cast_test
