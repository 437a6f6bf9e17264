// Elementwise ops on Vulkan in int32, int64 and float64 (shaders/pointwise_typed.glsl) against
// the CPU, exactly: arithmetic with alpha, comparisons, where, clamp, abs, neg, relu, square,
// (float64) division, remainder, roots and rounding; wrapped numbers, broadcasting, strided
// operands, in place, integer wrap-around, float64 values that float32 would round; and the
// typed errors for the ops and dtypes that have no kernel.
#include "test_util.hpp"

#include <tensorplay/tensorplay.hpp>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace vulkan_typed_pointwise_test {

using namespace tensorplay;

namespace {

bool has_dtype(DType dt) {
  if (dt == kLong) return vulkan::context().has_int64();
  if (dt == kDouble) return vulkan::context().has_float64();
  return true;
}

// Exactly the CPU's values (NaN where the CPU has NaN), dtype and shape.
void check_exact(const Tensor& vk, const Tensor& cpu) {
  REQUIRE(vk.is_vulkan());
  const Tensor got = vk.cpu();
  REQUIRE(got.dtype() == cpu.dtype());
  REQUIRE(got.sizes() == cpu.sizes());
  // Floats: equal values, and equal reciprocals (which tells -0 from +0).
  const bool same = is_floating_point(cpu.dtype())
                        ? allclose(got, cpu, 0.0, 0.0, /*equal_nan=*/true) &&
                              allclose(got.reciprocal(), cpu.reciprocal(), 0.0, 0.0, true)
                        : got.equal(cpu);
  if (!same) UNSCOPED_INFO("vulkan: " << got << "\ncpu: " << cpu);
  CHECK(same);
}

// Values of `dt` with its edge cases: both extremes of the integer types (to wrap), and for
// float64 NaN, infinities, signed zeros and values float32 cannot hold.
Tensor sample(DType dt, int64_t n, int seed) {
  Tensor t = (rand({n}, kDouble) * 200 - 100).floor().to(dt);
  Tensor flat = t.view({-1});
  if (dt == kDouble) {
    const double inf = std::numeric_limits<double>::infinity();
    const double specials[] = {std::nan(""), inf, -inf, 0.0, -0.0, 1.0 + 1e-12, -2.5, 1e300};
    for (int i = 0; i < 8; ++i) flat[(i * 5 + seed) % n].fill_(specials[i]);
  } else {
    const double lo = dt == kInt ? double(std::numeric_limits<int32_t>::min()) : -0x1p63;
    const double hi = dt == kInt ? double(std::numeric_limits<int32_t>::max()) : 0x1p62;
    flat[seed % n].fill_(lo);
    flat[(seed + 7) % n].fill_(hi);
    flat[(seed + 3) % n].fill_(0);
  }
  return t;
}

using Op = std::function<Tensor(const Tensor&, const Tensor&)>;

const std::vector<std::pair<std::string, Op>>& common_ops() {
  static const std::vector<std::pair<std::string, Op>> ops = {
      {"add", [](const Tensor& a, const Tensor& b) { return a + b; }},
      {"add alpha", [](const Tensor& a, const Tensor& b) { return add(a, b, 3); }},
      {"sub alpha", [](const Tensor& a, const Tensor& b) { return sub(a, b, -2); }},
      {"mul", [](const Tensor& a, const Tensor& b) { return a * b; }},
      {"maximum", [](const Tensor& a, const Tensor& b) { return maximum(a, b); }},
      {"minimum", [](const Tensor& a, const Tensor& b) { return minimum(a, b); }},
      {"eq", [](const Tensor& a, const Tensor& b) { return a == b; }},
      {"ne", [](const Tensor& a, const Tensor& b) { return a != b; }},
      {"lt", [](const Tensor& a, const Tensor& b) { return a < b; }},
      {"le", [](const Tensor& a, const Tensor& b) { return a <= b; }},
      {"gt", [](const Tensor& a, const Tensor& b) { return a > b; }},
      {"ge", [](const Tensor& a, const Tensor& b) { return a >= b; }},
      {"where", [](const Tensor& a, const Tensor& b) { return where(a > b, a, b); }},
      {"neg", [](const Tensor& a, const Tensor&) { return -a; }},
      {"abs", [](const Tensor& a, const Tensor&) { return a.abs(); }},
      {"relu", [](const Tensor& a, const Tensor&) { return a.relu(); }},
      {"square", [](const Tensor& a, const Tensor&) { return a.square(); }},
      {"clamp", [](const Tensor& a, const Tensor&) { return a.clamp(-20, 30); }},
      {"clamp_min", [](const Tensor& a, const Tensor&) { return a.clamp_min(5); }},
      {"clamp_max", [](const Tensor& a, const Tensor&) { return a.clamp_max(-5); }},
      {"add number", [](const Tensor& a, const Tensor&) { return a + 7; }},
      {"mul number", [](const Tensor& a, const Tensor&) { return a * -3; }},
      {"where numbers", [](const Tensor& a, const Tensor& b) { return where(a > b, a, 4); }},
      {"gt number", [](const Tensor& a, const Tensor&) { return a > 2; }},
  };
  return ops;
}

const std::vector<std::pair<std::string, Op>>& float64_ops() {
  static const std::vector<std::pair<std::string, Op>> ops = {
      {"div", [](const Tensor& a, const Tensor& b) { return a / b; }},
      {"div trunc", [](const Tensor& a, const Tensor& b) { return div(a, b, "trunc"); }},
      {"div floor", [](const Tensor& a, const Tensor& b) { return div(a, b, "floor"); }},
      {"remainder", [](const Tensor& a, const Tensor& b) { return a.remainder(b); }},
      {"fmod", [](const Tensor& a, const Tensor& b) { return a.fmod(b); }},
      {"sqrt", [](const Tensor& a, const Tensor&) { return a.sqrt(); }},
      {"rsqrt", [](const Tensor& a, const Tensor&) { return a.rsqrt(); }},
      {"reciprocal", [](const Tensor& a, const Tensor&) { return a.reciprocal(); }},
      {"floor", [](const Tensor& a, const Tensor&) { return (a / 3).floor(); }},
      {"ceil", [](const Tensor& a, const Tensor&) { return (a / 3).ceil(); }},
      {"trunc", [](const Tensor& a, const Tensor&) { return (a / 3).trunc(); }},
      {"round", [](const Tensor& a, const Tensor&) { return (a / 2).round(); }},
      {"div number", [](const Tensor& a, const Tensor&) { return a / 3; }},
  };
  return ops;
}

}  // namespace

TEST_CASE("int32, int64 and float64 elementwise ops on Vulkan match the CPU exactly",
          "[vulkan][pointwise][dtypes]") {
  TP_REQUIRE_VULKAN();
  for (DType dt : {kInt, kLong, kDouble}) {
    if (!has_dtype(dt)) {
      WARN("this Vulkan device has no " << scalar_type_name(dt) << " shaders: skipped");
      continue;
    }
    const Tensor a = sample(dt, 48, 1).reshape({6, 8}), b = sample(dt, 48, 2).reshape({6, 8});
    const Tensor row = sample(dt, 8, 3);
    std::vector<std::pair<std::string, Op>> ops = common_ops();
    if (dt == kDouble) ops.insert(ops.end(), float64_ops().begin(), float64_ops().end());
    for (const auto& [name, op] : ops) {
      INFO(scalar_type_name(dt) << " " << name);
      check_exact(op(a.vulkan(), b.vulkan()), op(a, b));
      check_exact(op(a.vulkan(), row.vulkan()), op(a, row));  // broadcasting
      // Transposed (strided) operands.
      check_exact(op(a.t().contiguous().vulkan().t(), b.vulkan()), op(a, b));
    }
  }
}

TEST_CASE("typed elementwise ops on Vulkan: in place, out=, wrap-around, float64 precision",
          "[vulkan][pointwise][dtypes]") {
  TP_REQUIRE_VULKAN();
  // int32 wraps as on the CPU.
  const int32_t imax = std::numeric_limits<int32_t>::max();
  const Tensor big = full({3}, imax, kInt);
  check_exact(big.vulkan() + 1, big + 1);
  check_exact(big.vulkan() * big.vulkan(), big * big);
  check_exact(full({2}, std::numeric_limits<int32_t>::min(), kInt).vulkan().abs(),
              full({2}, std::numeric_limits<int32_t>::min(), kInt).abs());
  // In place and out=.
  Tensor v = arange(6, kInt).vulkan();
  v.mul_(3).sub_(arange(6, kInt).vulkan());
  CHECK(v.cpu().equal(arange(6, kInt) * 2));
  Tensor out = empty({6}, TensorOptions().dtype(kInt).device(kVulkan));
  maximum_out(out, v, full({6}, 5, kInt).vulkan());
  CHECK(out.cpu().equal(maximum(arange(6, kInt) * 2, full({6}, 5, kInt))));
  if (vulkan::context().has_int64()) {
    const int64_t lmax = std::numeric_limits<int64_t>::max();
    const Tensor l = full({2}, lmax, kLong);
    check_exact(l.vulkan() + 1, l + 1);  // wraps to the minimum
    check_exact(l.vulkan() - 3, l - 3);  // a 64-bit number, uploaded
    CHECK((l.vulkan() - 3).cpu()[0].item<int64_t>() == lmax - 3);
  }
  if (vulkan::context().has_float64()) {
    // 1 + 1e-12 is 1 in float32: a float64 kernel keeps it.
    const Tensor d = full({4}, 1.0 + 1e-12, kDouble);
    CHECK(((d.vulkan() - 1) * 1e12).cpu().sub(1).abs().max().item<double>() < 1e-3);
    check_exact(d.vulkan() * 3.000000000001, d * 3.000000000001);
  }
}

TEST_CASE("int32, int64 and float64 reductions on Vulkan match the CPU exactly",
          "[vulkan][reduce][dtypes]") {
  TP_REQUIRE_VULKAN();
  for (DType dt : {kInt, kLong, kDouble}) {
    // int32 sums and products accumulate in int64, as on the CPU.
    if (!has_dtype(dt) || !vulkan::context().has_int64()) continue;
    INFO(scalar_type_name(dt));
    const Tensor a = sample(dt, 6 * 300, 3).reshape({6, 300});  // long rows: workgroup trees
    const Tensor small = (arange(24, kDouble).remainder(5) - 2).to(dt).reshape({2, 3, 4});
    for (const Tensor& t : {a, small}) {
      check_exact(t.vulkan().sum(), t.sum());
      check_exact(t.vulkan().sum(-1), t.sum(-1));
      check_exact(t.vulkan().sum(0, /*keepdim=*/true), t.sum(0, true));
      // (A float64 product of 300 such values overflows, and whether inf meets a 0 of its row
      // depends on the order: NaN or 0. Integers wrap, in any order.)
      if (dt != kDouble || t.size(-1) < 10) check_exact(t.vulkan().prod(-1), t.prod(-1));
      check_exact(t.vulkan().amax(-1), t.amax(-1));
      check_exact(t.vulkan().amin(0), t.amin(0));
      check_exact(t.vulkan().argmax(-1), t.argmax(-1));
      check_exact(t.vulkan().argmin(), t.argmin());
      const auto [values, indices] = t.vulkan().max(0);
      check_exact(values, std::get<0>(t.max(0)));
      check_exact(indices, std::get<1>(t.max(0)));
      if (dt == kDouble) check_exact(t.vulkan().mean(-1), t.mean(-1));
    }
  }
}

TEST_CASE("integer division and rounding on Vulkan match the CPU, ZeroDivisionError included",
          "[vulkan][pointwise][dtypes][errors]") {
  TP_REQUIRE_VULKAN();
  for (DType dt : {kInt, kLong, kChar, kShort}) {
    if (!has_dtype(dt)) continue;
    INFO(scalar_type_name(dt));
    // Every sign pairing, exact and inexact, and the most negative value over -1 (wraps).
    const double lo = dt == kInt ? double(std::numeric_limits<int32_t>::min())
                      : dt == kLong ? -0x1p63 : dt == kChar ? -128.0 : -32768.0;
    const Tensor a = tensor({7.0, -7.0, 7.0, -7.0, 6.0, -6.0, 0.0, lo, lo, 5.0}, kDouble).to(dt);
    const Tensor b = tensor({2.0, 2.0, -2.0, -2.0, 3.0, -3.0, 5.0, -1.0, 1.0, 7.0}, kDouble).to(dt);
    const Tensor va = a.vulkan(), vb = b.vulkan();
    check_exact(div(va, vb, "trunc"), div(a, b, "trunc"));
    check_exact(div(va, vb, "floor"), div(a, b, "floor"));
    check_exact(va.remainder(vb), a.remainder(b));
    check_exact(va.fmod(vb), a.fmod(b));
    check_exact(va.remainder(3), a.remainder(3));     // a wrapped number
    check_exact(va.fmod(-4), a.fmod(-4));
    check_exact(va.floor(), a.floor());
    // Integer powers wrap; negative exponents give 0, or +-1 for a base of +-1.
    const Tensor e = tensor({3.0, 2.0, 63.0, -1.0, -2.0, 0.0, 5.0, 1.0, 2.0, -3.0}, kDouble).to(dt);
    check_exact(va.pow(e.vulkan()), a.pow(e));
    check_exact(tensor({-1.0, 1.0, -1.0, 2.0}, kDouble).to(dt).vulkan().pow(
                    tensor({-3.0, -5.0, -4.0, -1.0}, kDouble).to(dt).vulkan()),
                tensor({-1.0, 1.0, -1.0, 2.0}, kDouble).to(dt).pow(
                    tensor({-3.0, -5.0, -4.0, -1.0}, kDouble).to(dt)));
    check_exact(va.pow(3), a.pow(3));
    CHECK_THROWS_WITH(va.pow(-2), Catch::Contains("Integers to negative integer powers"));
    check_exact(va.round(), a.round());
    // A zero divisor anywhere: the CPU's error, and the output is untouched.
    Tensor target = va.clone();
    const Tensor zero_in = b.clone().index_put_({3}, 0);
    CHECK_THROWS_WITH(target.remainder_(zero_in.vulkan()), Catch::Contains("ZeroDivisionError"));
    CHECK_THROWS_WITH(div(va, zero_in.vulkan(), "floor"), Catch::Contains("ZeroDivisionError"));
    CHECK_THROWS_WITH(va.fmod(0), Catch::Contains("ZeroDivisionError"));
    CHECK_THROWS_WITH(a.fmod(0), Catch::Contains("ZeroDivisionError"));  // the CPU's
    CHECK(target.cpu().equal(a));
  }
}

}  // namespace vulkan_typed_pointwise_test
