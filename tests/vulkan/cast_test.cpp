// Dtype conversion on Vulkan (the cast shaders) against the CPU's conversions, exactly: every
// pair of dtypes from contiguous, strided and broadcast sources, the single rounding to float16
// and bfloat16 from wide sources; and the ops that compute float16, bfloat16, bool and the 8-
// and 16-bit integers in their wide dtype (elementwise ops, reductions, softmax, products).
#include "test_util.hpp"

#include <tensorplay/tensorplay.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace vulkan_cast_test {

using namespace tensorplay;

namespace {

const DType kAll[] = {kBool, kByte, kChar, kShort, kInt, kLong, kHalf, kBFloat16, kFloat, kDouble};

bool wide_ok(DType a, DType b) { return vulkan::converts_on_device(a, b); }

// Equal values (NaN where the CPU has NaN, -0 where it has -0), dtype and shape.
void check_same(const Tensor& vk, const Tensor& cpu) {
  REQUIRE(vk.is_vulkan());
  const Tensor got = vk.cpu();
  REQUIRE(got.dtype() == cpu.dtype());
  REQUIRE(got.sizes() == cpu.sizes());
  bool same;
  if (is_floating_point(cpu.dtype())) {
    const Tensor g = got.to(kDouble), c = cpu.to(kDouble);
    same = allclose(g, c, 0.0, 0.0, /*equal_nan=*/true) &&
           allclose(g.reciprocal(), c.reciprocal(), 0.0, 0.0, true);
  } else {
    same = got.equal(cpu);
  }
  if (!same) UNSCOPED_INFO("vulkan: " << got << "\ncpu: " << cpu);
  CHECK(same);
}

// Values every dtype holds after the CPU's conversion is defined: integers in [-100, 100] (to
// uint8 only non-negative ones) and fractions, plus, for the floating sources, NaN, infinities
// and signed zeros (only into floating or bool targets, where they are defined).
Tensor sample(DType from, DType to, int64_t n) {
  Tensor t = rand({n}, kDouble) * 200 - 100;
  if (!is_floating_point(from)) t = t.round();
  if (to == kByte || from == kByte) t = t.abs();
  if (is_floating_point(from) && (is_floating_point(to) || to == kBool)) {
    const double inf = std::numeric_limits<double>::infinity();
    const double specials[] = {std::nan(""), inf, -inf, 0.0, -0.0, 65519.0, 65520.0, 1e-8};
    for (int i = 0; i < 8; ++i) t[i * 3].fill_(specials[i]);
  }
  if (from == kBool) t = t.gt(0);
  return t.to(from);
}

}  // namespace

TEST_CASE("every dtype converts to every dtype on Vulkan as on the CPU",
          "[vulkan][cast][dtypes]") {
  TP_REQUIRE_VULKAN();
  for (DType from : kAll) {
    for (DType to : kAll) {
      if (!wide_ok(from, to)) continue;
      INFO(scalar_type_name(from) << " -> " << scalar_type_name(to));
      const Tensor a = sample(from, to, 60).reshape({6, 10});
      const Tensor v = a.vulkan();
      check_same(v.to(to), a.to(to));
      // A strided (transposed) source and destination, and a broadcast source.
      check_same(v.t().to(to), a.t().to(to));
      Tensor dst = empty({10, 6}, TensorOptions().dtype(to).device(kVulkan)).t();
      dst.copy_(v);
      check_same(dst, a.to(to));
      Tensor wide = empty({4, 6, 10}, TensorOptions().dtype(to).device(kVulkan));
      wide.copy_(v);
      check_same(wide, a.to(to).expand({4, 6, 10}));
    }
  }
}

TEST_CASE("float16 and bfloat16 on Vulkan are rounded once from wide sources",
          "[vulkan][cast][dtypes]") {
  TP_REQUIRE_VULKAN();
  // 2^24 + 2^16 + 1 lies just above the bfloat16 midpoint 2^24 + 2^16; through float (which
  // rounds it to the midpoint) it would round to even, down.
  const Tensor ints = tensor({int64_t{16777216 + 65536 + 1}, int64_t{-(16777216 + 65536 + 1)},
                              int64_t{65521}, int64_t{2147483647}, int64_t{-2147483647 - 1}});
  for (DType to : {kHalf, kBFloat16}) {
    INFO(scalar_type_name(to));
    check_same(ints.to(kInt).vulkan().to(to), ints.to(kInt).to(to));
    if (wide_ok(kLong, to)) {
      const Tensor big = tensor({int64_t{(int64_t{1} << 40) + (int64_t{1} << 32) + 1},
                                 std::numeric_limits<int64_t>::min(),
                                 std::numeric_limits<int64_t>::max()});
      check_same(ints.vulkan().to(to), ints.to(to));
      check_same(big.vulkan().to(to), big.to(to));
      // 1 + 2^-11 + 2^-40 is just above a float16 midpoint; float rounds it onto the midpoint.
      const Tensor d = tensor({1.0 + 0x1p-11 + 0x1p-40, 1.0 + 0x1p-8 + 0x1p-40, 1e300, -1e-300,
                               65519.99, 3.3961e38},
                              kDouble);
      check_same(d.vulkan().to(to), d.to(to));
    }
    // Subnormal float16 values, and the ties between them.
    const Tensor f = tensor({0x1p-25f, 0x1.8p-24f, 0x1.8p-23f, 0x1p-24f * 3.5f, 6e-5f, -0x1p-26f});
    check_same(f.vulkan().to(to), f.to(to));
  }
}

TEST_CASE("fill_ of every dtype on Vulkan, contiguous and through strides",
          "[vulkan][cast][fill]") {
  TP_REQUIRE_VULKAN();
  for (DType dt : kAll) {
    INFO(scalar_type_name(dt));
    const Scalar value = dt == kBool ? Scalar(true) : dt == kByte ? Scalar(200) : Scalar(-7);
    Tensor v = zeros({3, 5}, TensorOptions().dtype(dt).device(kVulkan));
    v.fill_(value);
    check_same(v, full({3, 5}, value, TensorOptions().dtype(dt)));
    // A strided view through the aliasing guard a kernel uses (a column of v).
    Tensor c = zeros({3, 5}, TensorOptions().dtype(dt));
    c.select(1, 2).fill_(value);
    Tensor w = zeros({3, 5}, TensorOptions().dtype(dt).device(kVulkan));
    {
      tensorplay::detail::AliasingViewsGuard alias;
      w.select(1, 2).fill_(value);
    }
    check_same(w, c);
    check_same(full({4}, value, TensorOptions().dtype(dt).device(kVulkan)),
               full({4}, value, TensorOptions().dtype(dt)));
  }
  // The CPU fill's range check: 300 does not fit int8.
  Tensor i8 = zeros({2}, TensorOptions().dtype(kChar).device(kVulkan));
  CHECK_THROWS_WITH(i8.fill_(300), Catch::Contains("value cannot be converted to type int8_t"));
  CHECK(i8.cpu().equal(zeros({2}, kChar)));
}

TEST_CASE("8- and 16-bit views of a Vulkan tensor materialise on the device",
          "[vulkan][cast][views]") {
  TP_REQUIRE_VULKAN();
  for (DType dt : {kBool, kByte, kChar, kShort, kHalf, kBFloat16}) {
    INFO(scalar_type_name(dt));
    const Tensor a = sample(kFloat, dt, 35).reshape({5, 7}).to(dt);
    const Tensor v = a.vulkan();
    check_same(v.t(), a.t().contiguous());
    check_same(v.slice(1, 1, 6, 2), a.slice(1, 1, 6, 2).contiguous());
    check_same(v.t().contiguous(), a.t().contiguous());
    check_same(v.t().cpu().vulkan(), a.t());
  }
}

TEST_CASE("float16, bfloat16, bool and 8/16-bit integer ops on Vulkan compute in the wide dtype",
          "[vulkan][cast][pointwise][dtypes]") {
  TP_REQUIRE_VULKAN();
  for (DType dt : {kHalf, kBFloat16, kChar, kByte, kShort}) {
    INFO(scalar_type_name(dt));
    // Integers (finite, exact in every dtype here); the conversion test has the special values.
    const Tensor a = sample(kInt, dt, 48).reshape({6, 8}).to(dt);
    const Tensor b = sample(kInt, dt, 48).reshape({6, 8}).to(dt);
    const Tensor va = a.vulkan(), vb = b.vulkan();
    check_same(va + vb, a + b);
    check_same(add(va, vb, 3), add(a, b, 3));
    check_same(va * vb, a * b);  // integers wrap in their own width
    check_same(maximum(va, vb.t().contiguous().t()), maximum(a, b));
    check_same(va < vb, a < b);
    check_same(where(va > vb, va, vb), where(a > b, a, b));
    check_same(-va, -a);
    check_same(va.clamp(-20, 30), a.clamp(-20, 30));
    check_same(va + 7, a + 7);
    Tensor inplace = va.clone();
    inplace.mul_(vb);
    check_same(inplace, a * b);
    check_same(va.sum(), a.sum());
    check_same(va.sum(1), a.sum(1));
    check_same(va.amax(0), a.amax(0));
    check_same(va.argmax(1), a.argmax(1));
    check_same(std::get<0>(va.max(1)), std::get<0>(a.max(1)));
    if (is_floating_point(dt)) {
      check_same(va.relu(), a.relu());
      // Transcendental functions: float32 on the device, rounded to dt once, as the CPU does.
      const Tensor e = (va / 20).exp().cpu().to(kFloat), ce = (a / 20).exp().to(kFloat);
      CHECK(allclose(e, ce, 1e-2, 1e-3));
      CHECK(allclose(va.mean().cpu().to(kFloat), a.mean().to(kFloat), 1e-2, 1e-2));
      CHECK(allclose(va.softmax(1).cpu().to(kFloat), a.softmax(1).to(kFloat), 1e-2, 1e-3));
      const Tensor m = va.mm(vb.t()).cpu().to(kFloat), cm = a.mm(b.t()).to(kFloat);
      CHECK(allclose(m, cm, 1e-2, 1.0));
    }
  }
  // Integer products, wrapping in their own width (int8 and int16 through int32).
  for (DType dt : {kInt, kLong, kChar, kByte, kShort}) {
    if (!wide_ok(dt, dt)) continue;
    INFO(scalar_type_name(dt) << " products");
    const Tensor a = sample(kInt, dt, 35).reshape({5, 7}).to(dt);
    const Tensor b = sample(kInt, dt, 28).reshape({7, 4}).to(dt);
    const Tensor c = sample(kInt, dt, 20).reshape({5, 4}).to(dt);
    check_same(a.vulkan().mm(b.vulkan()), a.mm(b));
    check_same(addmm(c.vulkan(), a.vulkan(), b.vulkan(), 2, 3), addmm(c, a, b, 2, 3));
    check_same(matmul(a.vulkan().expand({3, 5, 7}), b.vulkan()), matmul(a.expand({3, 5, 7}), b));
    const Tensor big = full({2, 70}, 100, dt), big_t = full({70, 2}, 100, dt);  // k > 64: tiles
    check_same(big.vulkan().mm(big_t.vulkan()), big.mm(big_t));
  }
  CHECK_THROWS_AS(ones({2, 2}, kBool).vulkan().mm(ones({2, 2}, kBool).vulkan()), TypeError);
  // bool: logical arithmetic through int32.
  const Tensor p = rand({20}) > 0.5, q = rand({20}) > 0.5;
  check_same(p.vulkan() + q.vulkan(), p + q);
  check_same(p.vulkan() * q.vulkan(), p * q);
  check_same(maximum(p.vulkan(), q.vulkan()), maximum(p, q));
  check_same(p.vulkan().sum(), p.sum());
  check_same(p.vulkan() == q.vulkan(), p == q);
}

TEST_CASE("gradients flow through float16 ops on Vulkan", "[vulkan][cast][autograd]") {
  TP_REQUIRE_VULKAN();
  const Tensor a = randn({4, 3}).to(kHalf);
  Tensor x = a.vulkan().requires_grad_();
  (x * x).sum().backward();
  REQUIRE(x.grad().defined());
  CHECK(x.grad().is_vulkan());
  CHECK(x.grad().dtype() == kHalf);
  check_same(x.grad(), a * 2);
}

}  // namespace vulkan_cast_test
