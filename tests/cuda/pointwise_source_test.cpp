// The elementwise kernels' source (backends/cuda/pointwise_source.hpp), proven without a GPU:
// every PointwiseCode in every dtype the CPU computes it in compiles with NVRTC to PTX for
// sm_80 and sm_90, with 32- and 64-bit indexing (batched into a few programs, compiled on two
// threads); the dtype sets agree with the CPU ops themselves; the keys, names, and the host
// values the kernels read; and the float16/bfloat16 conversions the kernels use, compared bit
// for bit with core/half.hpp's.
#include <catch2/catch.hpp>

#include "fake_cuda.hpp"
#include "pointwise_ops.hpp"

#include <tensorplay/backends/cuda/nvrtc.hpp>
#include <tensorplay/backends/cuda/pointwise_source.hpp>
#include <tensorplay/tensorplay.hpp>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace cuda_pointwise_source_test {

namespace tp = tensorplay;
namespace tc = tensorplay::cuda;
using Catch::Matchers::Contains;
using C = tp::PointwiseCode;

std::vector<tp::DType> all_dtypes() {
  std::vector<tp::DType> v;
  for (int d = 0; d < tp::kNumDTypes; ++d) v.push_back(static_cast<tp::DType>(d));
  return v;
}

// Every kernel: each code in each dtype it has.
std::vector<tc::PointwiseKernelKey> all_keys(bool index64) {
  std::vector<tc::PointwiseKernelKey> keys;
  for (const tc::PointwiseOpInfo& info : tc::kPointwiseOps) {
    for (const tp::DType dt : all_dtypes()) {
      if (tc::pointwise_supports(info.code, dt)) {
        keys.push_back(tc::pointwise_kernel_key(info.code, dt, index64));
      }
    }
  }
  return keys;
}

// Under AddressSanitizer or ThreadSanitizer NVRTC runs 4-6x slower (it is not instrumented,
// but every one of its many allocations goes through the sanitizer's allocator), and what the
// sanitizer checks (this file's host code) is the same for every program; so there the 64-bit
// index variants, which differ from the 32-bit ones only in the index type, are left to the
// plain build.
using cuda_test_support::kSanitized;

TEST_CASE("pointwise kernels: every op in every dtype compiles to PTX for sm_80 and sm_90",
          "[cuda][pointwise][nvrtc]") {
  const auto start = std::chrono::steady_clock::now();
  struct Keys {
    std::vector<tc::PointwiseKernelKey> keys;
    int arch;
  };
  // Two programs per (arch, index width), each half of the kernels: a few large programs
  // spare the per-program cost (the prelude is parsed once each). About 20 ms of NVRTC per
  // kernel.
  std::vector<Keys> sets;
  std::vector<bool> widths{false};
  if (!kSanitized) widths.push_back(true);
  for (const bool index64 : widths) {
    const std::vector<tc::PointwiseKernelKey> keys = all_keys(index64);
    CHECK(keys.size() == 349);  // see the dtype sets below
    const std::size_t half = keys.size() / 2;
    for (const int arch : {80, 90}) {
      sets.push_back({{keys.begin(), keys.begin() + long(half)}, arch});
      sets.push_back({{keys.begin() + long(half), keys.end()}, arch});
    }
  }
  std::vector<cuda_test_support::Program> programs;
  for (std::size_t i = 0; i < sets.size(); ++i) {
    programs.push_back({tc::pointwise_kernel_source(sets[i].keys),
                        "pointwise_all_" + std::to_string(i),
                        sets[i].arch,
                        {},
                        {}});
  }
  cuda_test_support::compile_all(programs);
  std::size_t kernels = 0;
  for (std::size_t i = 0; i < programs.size(); ++i) {
    const cuda_test_support::Program& p = programs[i];
    const std::vector<tc::PointwiseKernelKey>& keys = sets[i].keys;
    INFO("sm_" << p.arch);
    REQUIRE(p.error.empty());
    CHECK_THAT(p.ptx, Contains(".target sm_" + std::to_string(p.arch)));
    std::size_t entries = 0;
    for (std::size_t at = p.ptx.find(".entry "); at != std::string::npos;
         at = p.ptx.find(".entry ", at + 1)) {
      ++entries;
    }
    CHECK(entries == keys.size());
    for (const tc::PointwiseKernelKey& key : keys) {
      const std::string entry = ".entry " + tc::pointwise_kernel_name(key) + "(";
      if (p.ptx.find(entry) == std::string::npos) FAIL_CHECK("no " << entry);
      ++kernels;
    }
    // Parameters are read in place (__grid_constant__): no per-thread copy in local memory.
    // (Only CUDA's sin, cos and tan use some, for their large-argument reduction.)
    for (std::size_t at = p.ptx.find(".entry "); at != std::string::npos;) {
      const std::size_t end = std::min(p.ptx.find(".entry ", at + 1), p.ptx.find(".func", at));
      const std::string name = p.ptx.substr(at + 7, p.ptx.find('(', at) - at - 7);
      const bool trig = name.find("_sin_") != std::string::npos ||
                        name.find("_cos_") != std::string::npos ||
                        name.find("_tan_") != std::string::npos;
      if (!trig && p.ptx.substr(at, end - at).find(".local") != std::string::npos) {
        FAIL_CHECK(name << " uses local memory");
      }
      at = p.ptx.find(".entry ", at + 1);
    }
  }
  CHECK(kernels == 2 * widths.size() * 349);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  WARN("compiled " << kernels << " pointwise kernels in " << programs.size() << " programs in "
                   << seconds << " s");
}

TEST_CASE("pointwise kernels: one kernel is one small program", "[cuda][pointwise][nvrtc]") {
  const tc::PointwiseKernelKey key = tc::pointwise_kernel_key(C::Add, tp::kHalf);
  const std::string source = tc::pointwise_kernel_source({&key, 1});
  const std::string ptx = tc::compile_to_ptx_uncached(source, tc::pointwise_kernel_name(key), 80,
                                                      tc::pointwise_compile_options());
  CHECK_THAT(ptx, Contains(".entry tp_pointwise_add_float16_i32("));
  CHECK(ptx.find(".entry ") == ptx.rfind(".entry "));
  // The kernel's one parameter is PointwiseParams<3, unsigned>, of this compiler's size (the
  // source's static_asserts compared every member's size and alignment).
  CHECK_THAT(ptx, Contains("tp_pointwise_add_float16_i32_param_0[" +
                           std::to_string(sizeof(tc::PointwiseParams<3, unsigned>)) + "]"));
  CHECK_THAT(source, Contains("static_assert(sizeof(PointwiseParams<4, unsigned long long>) == " +
                              std::to_string(sizeof(tc::PointwiseParams<4, unsigned long long>))));
  // 128 threads a block, as the launch shape.
  CHECK_THAT(ptx, Contains(".maxntid 128, 1, 1"));
}

// ---- the dtype sets against the CPU ops ---------------------------------------------------------

using cuda_pointwise_ops::run_op;

TEST_CASE("pointwise kernels: a kernel exists for exactly the dtypes the CPU computes in",
          "[cuda][pointwise]") {
  // For inputs of each dtype, the CPU op either refuses them, promotes them (true division,
  // exp of an integer: the kernel then runs in the promoted dtype, which must have one), or
  // computes in that dtype, which must then have a kernel; and every kernel's dtype is one the
  // CPU computes in.
  for (const tc::PointwiseOpInfo& info : tc::kPointwiseOps) {
    for (const tp::DType dt : all_dtypes()) {
      INFO(info.name << " on " << tp::scalar_type_name(dt));
      const tp::Tensor a = tp::ones({3}, tp::TensorOptions().dtype(dt));
      std::optional<tp::DType> compute;
      try {
        const tp::Tensor cond = tp::ones({3}, tp::TensorOptions().dtype(tp::kBool));
        const tp::Tensor r =
            info.code == C::Where ? run_op(info.code, {cond, a, a}) : run_op(info.code, {a, a});
        // Comparisons compute in their inputs' common dtype (here dt) and write bool.
        compute = info.bool_output ? dt : r.scalar_type();
        if (info.bool_output) CHECK(r.scalar_type() == tp::kBool);
      } catch (const tp::Error&) {
      }
      if (compute) CHECK(tc::pointwise_supports(info.code, *compute));
      CHECK(tc::pointwise_supports(info.code, dt) == (compute == dt));
    }
  }
}

TEST_CASE("pointwise kernels: the table covers every code once", "[cuda][pointwise]") {
  std::set<std::string_view> names;
  for (std::size_t i = 0; i < tc::kPointwiseOps.size(); ++i) {
    const tc::PointwiseOpInfo& info = tc::kPointwiseOps[i];
    CHECK(static_cast<std::size_t>(info.code) == i);
    CHECK(names.insert(info.name).second);
    CHECK(&tc::pointwise_op_info(info.code) == &info);
    // The name is PyTorch's op name, or says which variant (div's rounding modes, gelu's tanh).
    CHECK_THAT(std::string(tp::pointwise_name(info.code)),
               Contains(std::string(info.name.substr(0, info.name.find('_')))));
  }
  CHECK(tc::kPointwiseOps.size() == static_cast<std::size_t>(C::None));
  CHECK_THROWS_AS(tc::pointwise_op_info(C::None), tp::NotImplementedError);
  CHECK_THROWS_WITH(tc::pointwise_op_info(C::None),
                    Contains("Could not run 'aten::<elementwise>' with arguments from the 'CUDA' "
                             "backend"));
  CHECK_THROWS_AS(tc::pointwise_supports(C::None, tp::kFloat), tp::NotImplementedError);
}

TEST_CASE("pointwise kernels: keys and names", "[cuda][pointwise]") {
  const tc::PointwiseKernelKey add = tc::pointwise_kernel_key(C::Add, tp::kFloat);
  CHECK(add.arity == 2);
  CHECK(add.out == tp::kFloat);
  CHECK(add.inputs[0] == tp::kFloat);
  CHECK(add.inputs[1] == tp::kFloat);
  CHECK_FALSE(add.index64);
  CHECK(tc::pointwise_kernel_name(add) == "tp_pointwise_add_float32_i32");
  const tc::PointwiseKernelKey eq = tc::pointwise_kernel_key(C::Eq, tp::kHalf, true);
  CHECK(eq.out == tp::kBool);
  CHECK(eq.inputs[0] == tp::kHalf);
  CHECK(tc::pointwise_compute_dtype(eq) == tp::kHalf);
  CHECK(tc::pointwise_kernel_name(eq) == "tp_pointwise_eq_float16_i64");
  const tc::PointwiseKernelKey where = tc::pointwise_kernel_key(C::Where, tp::kBFloat16);
  CHECK(where.arity == 3);
  CHECK(where.inputs[0] == tp::kBool);
  CHECK(where.inputs[1] == tp::kBFloat16);
  CHECK(where.out == tp::kBFloat16);
  CHECK(tc::pointwise_kernel_name(where) == "tp_pointwise_where_bfloat16_i32");
  CHECK(tc::pointwise_kernel_name(tc::pointwise_kernel_key(C::DivTrunc, tp::kLong, true)) ==
        "tp_pointwise_div_trunc_int64_i64");
  CHECK(tc::pointwise_kernel_name(tc::pointwise_kernel_key(C::GeluTanh, tp::kDouble)) ==
        "tp_pointwise_gelu_tanh_float64_i32");
  // Every kernel's name is its own.
  std::set<std::string> names;
  for (const bool index64 : {false, true}) {
    for (const tc::PointwiseKernelKey& key : all_keys(index64)) {
      CHECK(names.insert(tc::pointwise_kernel_name(key)).second);
    }
  }
  CHECK(names.size() == 2 * 349);
  // The same key, the same source: kernels cache by source.
  CHECK(tc::pointwise_kernel_source({&add, 1}) == tc::pointwise_kernel_source({&add, 1}));
}

TEST_CASE("pointwise kernels: keys no kernel exists for are refused", "[cuda][pointwise]") {
  SECTION("a dtype outside the op's set: PyTorch's dispatch message") {
    CHECK_THROWS_WITH(tc::pointwise_kernel_key(C::Remainder, tp::kBool),
                      "\"remainder_cuda\" not implemented for 'Bool'");
    CHECK_THROWS_WITH(tc::pointwise_kernel_key(C::Exp, tp::kInt),
                      "\"exp_cuda\" not implemented for 'Int'");
    CHECK_THROWS_WITH(tc::pointwise_kernel_key(C::Sub, tp::kBool),
                      "\"sub_cuda\" not implemented for 'Bool'");
  }
  SECTION("an unknown code") {
    CHECK_THROWS_AS(tc::pointwise_kernel_key(C::None, tp::kFloat), tp::NotImplementedError);
  }
  tc::PointwiseKernelKey key = tc::pointwise_kernel_key(C::Mul, tp::kFloat);
  SECTION("the wrong number of inputs") {
    key.arity = 1;
    CHECK_THROWS_WITH(tc::check_pointwise_kernel_key(key),
                      "cuda: 'aten::mul' takes 2 inputs, got 1");
    CHECK_THROWS_AS(tc::pointwise_kernel_name(key), tp::Error);
  }
  SECTION("inputs of another dtype than the computation's") {
    key.inputs[1] = tp::kHalf;
    CHECK_THROWS_AS(tc::check_pointwise_kernel_key(key), tp::TypeError);
    CHECK_THROWS_WITH(tc::check_pointwise_kernel_key(key),
                      "cuda: 'aten::mul' computes in one dtype; got inputs of dtypes Float and "
                      "Half");
    std::vector<tc::PointwiseKernelKey> keys{key};
    CHECK_THROWS_AS(tc::pointwise_kernel_source(keys), tp::TypeError);
  }
  SECTION("an output of another dtype") {
    // An op computes in its output's dtype: the inputs then differ.
    key.out = tp::kDouble;
    CHECK_THROWS_WITH(tc::check_pointwise_kernel_key(key),
                      "cuda: 'aten::mul' computes in one dtype; got inputs of dtypes Double and "
                      "Float");
    // A comparison computes in its inputs' and writes bool.
    tc::PointwiseKernelKey lt = tc::pointwise_kernel_key(C::Lt, tp::kInt);
    lt.out = tp::kInt;
    CHECK_THROWS_AS(tc::check_pointwise_kernel_key(lt), tp::TypeError);
    CHECK_THROWS_WITH(tc::check_pointwise_kernel_key(lt),
                      "cuda: 'aten::lt' computing in Int writes Bool, not Int");
  }
  SECTION("where's condition must be bool") {
    tc::PointwiseKernelKey where = tc::pointwise_kernel_key(C::Where, tp::kFloat);
    where.inputs[0] = tp::kByte;
    CHECK_THROWS_AS(tc::check_pointwise_kernel_key(where), tp::TypeError);
    CHECK_THROWS_WITH(tc::check_pointwise_kernel_key(where),
                      "where expected condition to be a boolean tensor, but got a tensor with "
                      "dtype Byte");
  }
}

TEST_CASE("pointwise kernels: scalars and constants as the kernels read them",
          "[cuda][pointwise]") {
  using L = std::numeric_limits<std::int64_t>;
  const auto f32 = [](float f) { return std::uint64_t{std::bit_cast<std::uint32_t>(f)}; };
  // Through the storage dtype, as the CPU's alpha.to<T>(), then the compute type's bits.
  CHECK(tc::pointwise_scalar_bits(tp::kHalf, 0.1) == f32(static_cast<float>(tp::Half(0.1))));
  CHECK(tc::pointwise_scalar_bits(tp::kHalf, 0.1) != f32(0.1f));
  CHECK(tc::pointwise_scalar_bits(tp::kBFloat16, 0.1) ==
        f32(static_cast<float>(tp::BFloat16(0.1))));
  CHECK(tc::pointwise_scalar_bits(tp::kFloat, 0.1) == f32(0.1f));
  CHECK(tc::pointwise_scalar_bits(tp::kDouble, 0.1) == std::bit_cast<std::uint64_t>(0.1));
  CHECK(std::isnan(std::bit_cast<float>(
      static_cast<std::uint32_t>(tc::pointwise_scalar_bits(tp::kFloat, std::nan(""))))));
  CHECK(tc::pointwise_scalar_bits(tp::kFloat, -INFINITY) == f32(-INFINITY));
  // Integers: two's complement in the type's width; int64's extremes saturate (clamp's missing
  // bound arrives as +-2^63).
  CHECK(tc::pointwise_scalar_bits(tp::kChar, -1) == 0xffu);
  CHECK(tc::pointwise_scalar_bits(tp::kByte, 255) == 0xffu);
  CHECK(tc::pointwise_scalar_bits(tp::kByte, -1) == 0xffu);  // c10 lets negatives wrap
  CHECK(tc::pointwise_scalar_bits(tp::kShort, -32768) == 0x8000u);
  CHECK(tc::pointwise_scalar_bits(tp::kInt, 2147483647.0) == 0x7fffffffu);
  CHECK(tc::pointwise_scalar_bits(tp::kInt, -2) == 0xfffffffeu);
  CHECK(tc::pointwise_scalar_bits(tp::kLong, 0x1p63) == std::uint64_t(L::max()));
  CHECK(tc::pointwise_scalar_bits(tp::kLong, -0x1p63) == std::uint64_t(L::min()));
  CHECK(tc::pointwise_scalar_bits(tp::kLong, -3) == std::uint64_t(-3));
  CHECK(tc::pointwise_scalar_bits(tp::kLong, std::nan("")) == 0u);
  CHECK(tc::pointwise_scalar_bits(tp::kBool, 0.5) == 1u);
  CHECK(tc::pointwise_scalar_bits(tp::kBool, 0) == 0u);
  // A CPU 0-d input: its bytes, zero-extended.
  CHECK(tc::pointwise_constant_bits(tp::scalar_tensor(1.5, tp::kHalf)) == 0x3e00u);
  CHECK(tc::pointwise_constant_bits(tp::scalar_tensor(-2, tp::kChar)) == 0xfeu);
  CHECK(tc::pointwise_constant_bits(tp::scalar_tensor(true, tp::kBool)) == 1u);
  CHECK(tc::pointwise_constant_bits(tp::scalar_tensor(-1.0, tp::kDouble)) ==
        std::bit_cast<std::uint64_t>(-1.0));
  CHECK(tc::pointwise_constant_bits(tp::ones({1, 1}, tp::TensorOptions().dtype(tp::kInt))) == 1u);
  CHECK_THROWS_WITH(tc::pointwise_constant_bits(tp::ones({2})),
                    Contains("a constant operand is a CPU tensor of one element"));
  CHECK_THROWS_WITH(tc::pointwise_constant_bits(tp::Tensor()),
                    Contains("a constant operand is a CPU tensor of one element"));
}

// ---- the kernels' float16 / bfloat16 conversions against core/half.hpp ----------------------

bool same_float(float a, float b) {
  return std::bit_cast<std::uint32_t>(a) == std::bit_cast<std::uint32_t>(b);
}

TEST_CASE("pointwise kernels: float16 and bfloat16 conversions are core/half.hpp's, bit for bit",
          "[cuda][pointwise]") {
  std::size_t mismatches = 0;
  const auto check_half = [&](float f) {
    if (tc::detail::float_to_half_bits(f) != tp::detail::fp32_to_fp16(f)) ++mismatches;
  };
  const auto check_bf16 = [&](float f) {
    if (tc::detail::float_to_bfloat16_bits(f) != tp::detail::fp32_to_bf16(f)) ++mismatches;
  };
  for (std::uint32_t h = 0; h <= 0xffffu; ++h) {
    const auto bits = static_cast<std::uint16_t>(h);
    // Widening: every pattern, NaNs included.
    if (!same_float(tc::detail::half_bits_to_float(bits), tp::detail::fp16_to_fp32(bits))) {
      ++mismatches;
    }
    if (!same_float(tc::detail::bfloat16_bits_to_float(bits), tp::detail::bf16_to_fp32(bits))) {
      ++mismatches;
    }
    // Narrowing: every value, the midpoint to its neighbour (a tie, exactly representable in
    // float) and the floats on either side of it.
    const float fh = tp::detail::fp16_to_fp32(bits), fb = tp::detail::bf16_to_fp32(bits);
    check_half(fh);
    check_bf16(fb);
    if ((h & 0x7fffu) < 0x7c00u) {
      const float next = tp::detail::fp16_to_fp32(static_cast<std::uint16_t>(h + 1));
      const float mid = static_cast<float>((double(fh) + double(next)) / 2);
      for (const float f : {mid, std::nextafter(mid, -INFINITY), std::nextafter(mid, INFINITY)}) {
        check_half(f);
      }
    }
    if ((h & 0x7fffu) < 0x7f80u) {
      const float next = tp::detail::bf16_to_fp32(static_cast<std::uint16_t>(h + 1));
      const float mid = static_cast<float>((double(fb) + double(next)) / 2);
      for (const float f : {mid, std::nextafter(mid, -INFINITY), std::nextafter(mid, INFINITY)}) {
        check_bf16(f);
      }
    }
  }
  // A sweep of all float bit patterns (every 65521st: subnormals, overflow, NaN payloads).
  for (std::uint64_t w = 0; w <= 0xffffffffull; w += 65521) {
    const float f = std::bit_cast<float>(static_cast<std::uint32_t>(w));
    check_half(f);
    check_bf16(f);
  }
  CHECK(mismatches == 0);
}

}  // namespace cuda_pointwise_source_test
