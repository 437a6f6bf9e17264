// Random numbers on CUDA (backends/cuda/random.hpp, random_source.hpp).
//
// Untagged (the cuda.host run, any machine): Philox4x32-10 (code shared with the kernels)
// against Random123's known-answer vectors; the uniform conversions' ranges; every random kernel
// compiles with NVRTC for sm_80 and sm_90; the generators' seeds and offsets, and how they follow
// tp::manual_seed; the parameter of a draw over a fake CUDA tensor, run through a host emulation
// of the kernel, gives the distributions asked for.
// [no_device]: rand on the device stops at the device.
// [device]: rand/randn/rand_like/randn_like in every floating dtype: ranges, moments,
// reproducibility under manual_seed. Not yet run on hardware.
#include <catch2/catch.hpp>

#include "fake_cuda.hpp"

#include <tensorplay/backends/cuda/random.hpp>
#include <tensorplay/tensorplay.hpp>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace cuda_random_test {

namespace tp = tensorplay;
namespace tc = tensorplay::cuda;

TEST_CASE("Philox4x32-10 gives Random123's known answers", "[cuda][random]") {
  const auto same = [](const tc::PhiloxBlock& got, std::array<unsigned, 4> want) {
    return got.v[0] == want[0] && got.v[1] == want[1] && got.v[2] == want[2] && got.v[3] == want[3];
  };
  CHECK(same(tc::philox4x32_10({{0, 0, 0, 0}}, 0, 0),
             {0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}));
  CHECK(same(tc::philox4x32_10({{~0u, ~0u, ~0u, ~0u}}, ~0u, ~0u),
             {0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}));
  CHECK(same(tc::philox4x32_10({{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}}, 0xa4093822u,
                               0x299f31d0u),
             {0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}));
  // Element i of a draw at offset o is counter o + i under the seed's two words.
  const tc::PhiloxBlock b = tc::philox_block(0x0000000500000007ull, (1ull << 32) - 1, 1);
  CHECK(same(b, {tc::philox4x32_10({{0, 1, 0, 0}}, 7, 5).v[0],
                 tc::philox4x32_10({{0, 1, 0, 0}}, 7, 5).v[1],
                 tc::philox4x32_10({{0, 1, 0, 0}}, 7, 5).v[2],
                 tc::philox4x32_10({{0, 1, 0, 0}}, 7, 5).v[3]}));
}

TEST_CASE("random kernels: uniform values lie in [0, 1)", "[cuda][random]") {
  CHECK(tc::uniform_float(0) == 0.0f);
  CHECK(tc::uniform_float(0xffffffffu) == 1.0f - 0x1p-24f);
  CHECK(tc::uniform_float(0xffffffffu) < 1.0f);
  CHECK(tc::uniform_double(0, 0) == 0.0);
  CHECK(tc::uniform_double(0xffffffffu, 0xffffffffu) < 1.0);
  CHECK(tc::uniform_double(0xffffffffu, 0) > 0.99);
}

TEST_CASE("random kernels: every dtype and distribution compiles to PTX", "[cuda][random][nvrtc]") {
  std::vector<tc::RandomKernelKey> keys;
  for (const tp::DType dt : {tp::kFloat, tp::kDouble, tp::kHalf, tp::kBFloat16}) {
    for (const bool normal : {false, true}) {
      for (const bool i64 : {false, true}) keys.push_back({dt, normal, i64});
    }
  }
  std::vector<cuda_test_support::Program> programs;
  for (const int arch : {80, 90}) {
    programs.push_back({tc::random_kernel_source(keys), "random_all", arch, {}, {}});
  }
  cuda_test_support::compile_all(programs);
  for (const auto& p : programs) {
    CAPTURE(p.arch);
    REQUIRE(p.error.empty());
    for (const auto& key : keys) {
      CHECK(p.ptx.find(".entry " + tc::random_kernel_name(key) + "(") != std::string::npos);
    }
  }
  CHECK(tc::random_kernel_name({tp::kHalf, true, false}) == "tp_normal_float16_i32");
  CHECK_THROWS_MATCHES(tc::check_random_kernel_key({tp::kInt, false, false}), tp::TypeError,
                       Catch::Message("cuda: rand kernels draw floating dtypes, not Int"));
}

TEST_CASE("cuda generators: offsets advance per element, seeds restart the sequence",
          "[cuda][random]") {
  tc::CUDAGenerator g;
  CHECK(g.current_seed() == tc::kDefaultCUDASeed);
  const auto first = g.reserve(10);
  CHECK(first.second == 0);
  CHECK(g.reserve(3).second == 10);
  CHECK(g.offset() == 13);
  g.set_current_seed(42);
  CHECK(g.reserve(1) == std::pair<std::uint64_t, std::uint64_t>{42, 0});
  // tp::manual_seed reseeds every device's generator, as torch.manual_seed does.
  tp::manual_seed(1234);
  CHECK(g.reserve(5) == std::pair<std::uint64_t, std::uint64_t>{1234, 0});
  CHECK(g.offset() == 5);
  tc::CUDAGenerator fresh;  // made after the seed: follows it too
  CHECK(fresh.current_seed() == 1234);
  CHECK(&tc::detail::generator_slot(1) == &tc::detail::generator_slot(1));
  CHECK(&tc::detail::generator_slot(0) != &tc::detail::generator_slot(1));
  CHECK_THROWS_AS(tc::detail::generator_slot(-2), tp::IndexError);
}

// The kernel's loop (random_source.hpp's random_fill) on the host, float32.
template <class Index>
void emulate(const tc::RandomParams<Index>& p, bool normal) {
  for (Index i = 0; i < p.numel; ++i) {
    const tc::PhiloxBlock r = tc::philox_block(p.seed, p.offset, i);
    const float u1 = tc::uniform_float(r.v[0]), u2 = tc::uniform_float(r.v[1]);
    const float v = normal ? float(p.a) + float(p.b) * std::sqrt(-2.0f * std::log(1.0f - u1)) *
                                              std::cos(6.2831853f * u2)
                           : float(p.a) + (float(p.b) - float(p.a)) * u1;
    std::memcpy(p.out + p.offsets.get(i).v[0], &v, sizeof v);
  }
}

TEST_CASE("cuda random: a draw's parameter gives the distributions asked for", "[cuda][random]") {
  cuda_test_support::Blob<float> t({64, 128}, tp::kFloat, [](std::size_t) { return NAN; });
  for (const bool normal : {false, true}) {
    CAPTURE(normal);
    const tp::Tensor view = t.cuda.t();  // any layout: one element per index of the space
    const tp::TensorIterator iter =
        tp::TensorIteratorConfig().add_output(view).set_check_mem_overlap(false).build();
    emulate(tc::make_random_params<unsigned>(iter, 99, 1000, 0.0, 1.0), normal);
    const double mean = t.cpu.mean().item<double>();
    const double std = t.cpu.std().item<double>();
    if (normal) {
      CHECK(std::abs(mean) < 0.05);
      CHECK(std::abs(std - 1.0) < 0.05);
    } else {
      CHECK(t.cpu.min().item<float>() >= 0.0f);
      CHECK(t.cpu.max().item<float>() < 1.0f);
      CHECK(std::abs(mean - 0.5) < 0.02);
      CHECK(std::abs(std - std::sqrt(1.0 / 12)) < 0.02);
    }
  }
}

TEST_CASE("without a device, drawing on the device stops at the device", "[no_device]") {
  CHECK_THROWS_AS(tp::rand({4}, tp::TensorOptions().device(tp::kCUDA)), tc::CUDAUnavailableError);
  cuda_test_support::Blob<float> t({8}, tp::kFloat, [](std::size_t) { return 0.0f; });
  const std::string why = tp::cuda::unavailable_reason();
  CHECK_THROWS_MATCHES(tp::rand_like(t.cuda), tc::CUDAUnavailableError, Catch::Message(why));
}

// ---- on a GPU -----------------------------------------------------------------------------------

TEST_CASE("cuda random: rand and randn in every floating dtype, reproducible under a seed",
          "[device]") {
  REQUIRE(tp::cuda::is_available());
  const tp::TensorOptions on = tp::TensorOptions().device(tp::kCUDA);
  for (const tp::DType dt : {tp::kFloat, tp::kDouble, tp::kHalf, tp::kBFloat16}) {
    CAPTURE(tp::scalar_type_name(dt));
    const tp::Tensor u = tp::rand({1000, 1000}, on.dtype(dt)).cpu().to(tp::kDouble);
    CHECK(u.min().item<double>() >= 0.0);
    CHECK(u.max().item<double>() <= 1.0);  // float16 rounds values near 1 up to 1
    CHECK(std::abs(u.mean().item<double>() - 0.5) < 0.01);
    const tp::Tensor n = tp::randn({1000, 1000}, on.dtype(dt)).cpu().to(tp::kDouble);
    CHECK(std::abs(n.mean().item<double>()) < 0.01);
    CHECK(std::abs(n.std().item<double>() - 1.0) < 0.01);
  }
  tc::manual_seed(5);
  const tp::Tensor a = tp::randn({257}, on).cpu();
  const tp::Tensor b = tp::randn({257}, on).cpu();
  tc::manual_seed(5);
  CHECK(tp::equal(tp::randn({257}, on).cpu(), a));
  CHECK_FALSE(tp::equal(a, b));
  tp::manual_seed(9);  // seeds the CUDA generators too
  const tp::Tensor c = tp::rand_like(tp::empty({3, 4}, on)).cpu();
  tp::manual_seed(9);
  CHECK(tp::equal(tp::rand({3, 4}, on).cpu(), c));
  // An explicit CPU generator draws on the host and uploads, as before.
  tp::Generator g(3);
  const tp::Tensor h = tp::rand({5}, g, on);
  CHECK(h.is_cuda());
  CHECK(tp::equal(h.cpu(), tp::rand({5}, tp::Generator(3))));
}

}  // namespace cuda_random_test
