// Reductions, softmax and matrix products on Vulkan against the CPU, through the public API:
// the CPU's front ends (shapes, dims, keepdim, out=, autograd), the device's kernels.
#include "test_util.hpp"

#include <tensorplay/tensorplay.hpp>

#include <cmath>
#include <limits>
#include <tuple>
#include <vector>

namespace vulkan_ops_test {

using namespace tensorplay;

namespace {

const TensorOptions kVk = TensorOptions().device(kVulkan);

void check_close(const Tensor& vk, const Tensor& cpu, double rtol = 1e-4, double atol = 1e-5) {
  REQUIRE(vk.is_vulkan());
  const Tensor got = vk.cpu();
  CHECK(got.dtype() == cpu.dtype());
  CHECK(got.sizes() == cpu.sizes());
  if (!is_floating_point(got.dtype())) {
    CHECK(got.equal(cpu));
    return;
  }
  const bool close = allclose(got, cpu, rtol, atol, /*equal_nan=*/true);
  if (!close) UNSCOPED_INFO("vulkan: " << got << "\ncpu: " << cpu);
  CHECK(close);
}

}  // namespace

TEST_CASE("reductions on Vulkan match the CPU over any dims", "[vulkan][ops][reduce]") {
  TP_REQUIRE_VULKAN();
  const Tensor a = randn({4, 5, 300});
  const Tensor v = a.vulkan();
  check_close(v.sum(), a.sum());
  check_close(v.mean(), a.mean());
  check_close(v.amax(), a.amax());
  check_close(v.amin(), a.amin());
  check_close(v.argmax(), a.argmax());
  check_close(v.argmin(), a.argmin());
  for (const std::vector<int64_t>& dims :
       std::vector<std::vector<int64_t>>{{0}, {1}, {2}, {-1}, {0, 2}, {2, 0}, {0, 1, 2}}) {
    for (bool keepdim : {false, true}) {
      CAPTURE(dims, keepdim);
      check_close(v.sum(dims, keepdim), a.sum(dims, keepdim));
      check_close(v.mean(dims, keepdim), a.mean(dims, keepdim));
      check_close(v.amax(dims, keepdim), a.amax(dims, keepdim));
      check_close(v.amin(dims, keepdim), a.amin(dims, keepdim));
    }
  }
  for (int64_t d : {0, 1, 2}) {
    CAPTURE(d);
    check_close(v.argmax(d), a.argmax(d));
    check_close(v.argmin(d, true), a.argmin(d, true));
    const auto [values, indices] = v.max(d);
    const auto [cvalues, cindices] = a.max(d);
    check_close(values, cvalues);
    check_close(indices, cindices);
    const auto [mvalues, mindices] = v.min(d, true);
    check_close(mvalues, std::get<0>(a.min(d, true)));
    check_close(mindices, std::get<1>(a.min(d, true)));
  }
  // NaN propagates as on the CPU; ties go to the first index; an empty sum is 0, an empty mean
  // NaN; a 0-d tensor reduces to itself.
  Tensor n = tensor({1.0f, std::nanf(""), 3.0f, 3.0f});
  check_close(n.vulkan().amax(), n.amax());
  check_close(n.vulkan().argmax(), n.argmax());
  check_close(n.vulkan().sum(), n.sum());
  const Tensor t = tensor({2.0f, 5.0f, 5.0f, 1.0f});
  check_close(t.vulkan().argmax(), t.argmax());
  check_close(zeros({3, 0}, kVk).sum(1), zeros({3, 0}).sum(1));
  check_close(zeros({3, 0}, kVk).mean(1), zeros({3, 0}).mean(1));
  check_close(tensor(2.5f).vulkan().sum(), tensor(2.5f).sum());
  // The CPU's checks come first.
  CHECK_THROWS_AS(zeros({0}, kVk).amax(), Error);
  CHECK_THROWS_AS(zeros({3, 0}, kVk).argmax(1), IndexError);
  // out= on the device; on another device, PyTorch's message.
  Tensor out = empty({0}, kVk);
  sum_out(out, v, {1});
  check_close(out, a.sum(1));
  Tensor cpu_out = empty({0});
  CHECK_THROWS_WITH(sum_out(cpu_out, v, {1}),
                    Catch::Contains("Expected all tensors to be on the same device"));
  // 8- and 16-bit dtypes reduce in int32 (cast_test.cpp has more).
  CHECK(arange(6, kShort).vulkan().amax().cpu().equal(arange(6, kShort).amax()));
}

TEST_CASE("prod, var, std and logsumexp on Vulkan match the CPU", "[vulkan][ops][reduce]") {
  TP_REQUIRE_VULKAN();
  // Values near 1, so products of hundreds of them stay finite.
  const Tensor a = rand({4, 5, 150}) * 0.2 + 0.9;
  const Tensor v = a.vulkan();
  check_close(v.prod(), a.prod(), 1e-3);
  check_close(v.var(), a.var());
  check_close(v.std(), a.std());
  check_close(v.logsumexp({0, 1, 2}), a.logsumexp({0, 1, 2}));
  for (const std::vector<int64_t>& dims :
       std::vector<std::vector<int64_t>>{{0}, {2}, {-1}, {0, 2}, {0, 1, 2}}) {
    for (bool keepdim : {false, true}) {
      CAPTURE(dims, keepdim);
      if (dims.size() == 1) check_close(v.prod(dims[0], keepdim), a.prod(dims[0], keepdim), 1e-3);
      check_close(v.var(dims, true, keepdim), a.var(dims, true, keepdim));
      check_close(v.std(dims, false, keepdim), a.std(dims, false, keepdim));
      check_close(v.logsumexp(dims, keepdim), a.logsumexp(dims, keepdim));
      const auto [var, mean] = var_mean(v, dims, true, keepdim);
      const auto [cvar, cmean] = var_mean(a, dims, true, keepdim);
      check_close(var, cvar);
      check_close(mean, cmean);
      check_close(std::get<0>(std_mean(v, dims, true, keepdim)),
                  std::get<0>(std_mean(a, dims, true, keepdim)));
    }
  }
  // prod of an empty row is 1; logsumexp's shift: rows of -inf give -inf, a row holding +inf
  // gives +inf; var with correction >= N is inf (or NaN for 0 / 0).
  check_close(zeros({3, 0}, kVk).prod(1), zeros({3, 0}).prod(1));
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor e = tensor({{-inf, -inf}, {1.0f, inf}, {0.5f, 2.0f}});
  check_close(e.vulkan().logsumexp({1}), e.logsumexp({1}));
  const Tensor two = tensor({1.0f, 3.0f});
  check_close(var(two.vulkan(), {0}, int64_t{2}, false), var(two, {0}, int64_t{2}, false));
  // Gradients, through the composites.
  Tensor x = a.narrow(2, 0, 7).vulkan().requires_grad_();
  Tensor xc = a.narrow(2, 0, 7).requires_grad_();
  (x.std(IntArrayRef{2}).sum() + x.logsumexp({1}).sum() + x.prod(2).sum()).backward();
  (xc.std(IntArrayRef{2}).sum() + xc.logsumexp({1}).sum() + xc.prod(2).sum()).backward();
  check_close(x.grad(), xc.grad(), 1e-3);
  // prod's gradient with a zero in a line: the product of the others (computed on the host).
  const Tensor z = tensor({{2.0f, 0.0f, 3.0f}, {1.0f, 4.0f, 5.0f}});
  Tensor zv = z.vulkan().requires_grad_(), zc = z.clone().requires_grad_();
  zv.prod(1).sum().backward();
  zc.prod(1).sum().backward();
  check_close(zv.grad(), zc.grad());
  CHECK_THROWS_WITH(arange(6, kInt).vulkan().var(), Catch::Contains("floating point"));
}

TEST_CASE("norm, all and any on Vulkan match the CPU", "[vulkan][ops][reduce]") {
  TP_REQUIRE_VULKAN();
  const Tensor a = randn({4, 6, 5});
  const Tensor v = a.vulkan();
  const double inf = std::numeric_limits<double>::infinity();
  for (double p : {2.0, 1.0, 0.0, 3.0, 0.5, inf, -inf}) {
    INFO("p = " << p);
    check_close(v.norm(p), a.norm(p));
    check_close(v.norm(p, {1}), a.norm(p, {1}));
    check_close(v.norm(p, {0, 2}, /*keepdim=*/true), a.norm(p, {0, 2}, true));
  }
  // Gradients reach the Vulkan input.
  Tensor x = v.clone().requires_grad_();
  x.norm().backward();
  check_close(x.grad(), a / a.norm());
  const Tensor b = rand({5, 7}) > 0.3;
  for (const Tensor& t : {b, b.to(kFloat), b.to(kByte)}) {
    INFO(scalar_type_name(t.dtype()));
    check_close(t.vulkan().all(), t.all());
    check_close(t.vulkan().any(1), t.any(1));
    check_close(t.vulkan().all(0, /*keepdim=*/true), t.all(0, true));
  }
  check_close(zeros({3, 0}, kVk).all(1), zeros({3, 0}).all(1));
  check_close(zeros({3, 0}, kVk).any(1), zeros({3, 0}).any(1));
  CHECK_THROWS_WITH(zeros({0}, kVk).norm(inf), Catch::Contains("does not have an identity"));
}

TEST_CASE("softmax and log_softmax on Vulkan match the CPU", "[vulkan][ops][softmax]") {
  TP_REQUIRE_VULKAN();
  for (const std::vector<int64_t>& shape :
       std::vector<std::vector<int64_t>>{{7}, {5, 3}, {3, 300}, {2, 3, 4}, {400, 2}}) {
    const Tensor a = randn(shape) * 4;
    for (int64_t d = -1; d < int64_t(shape.size()); ++d) {
      CAPTURE(shape, d);
      check_close(a.vulkan().softmax(d), a.softmax(d));
      check_close(a.vulkan().log_softmax(d), a.log_softmax(d));
    }
  }
  const Tensor n = tensor({1.0f, std::nanf(""), 2.0f});
  check_close(n.vulkan().softmax(0), n.softmax(0));
  // float64 (shaderFloat64): short and long rows, to float64 precision; 1e-12 apart survives.
  if (vulkan::context().has_float64()) {
    for (const std::vector<int64_t>& shape : std::vector<std::vector<int64_t>>{{5, 3}, {3, 300}}) {
      const Tensor a = randn(shape, kDouble) * 4;
      for (int64_t d : {int64_t{0}, int64_t{1}}) {
        CAPTURE(shape, d);
        check_close(a.vulkan().softmax(d), a.softmax(d), 1e-13, 1e-15);
        check_close(a.vulkan().log_softmax(d), a.log_softmax(d), 1e-13, 1e-14);
      }
    }
    const Tensor close = tensor({0.0, 1e-12}, kDouble);
    CHECK(close.vulkan().log_softmax(0).cpu()[1].item<double>() >
          close.vulkan().log_softmax(0).cpu()[0].item<double>());
    const Tensor nd = tensor({1.0, std::nan(""), 2.0}, kDouble);
    check_close(nd.vulkan().softmax(0), nd.softmax(0));
  }
  CHECK_THROWS_AS(arange(6, kLong).vulkan().softmax(0), NotImplementedError);  // the CPU's check
}

TEST_CASE("matrix products on Vulkan match the CPU", "[vulkan][ops][matmul]") {
  TP_REQUIRE_VULKAN();
  const Tensor a = randn({37, 70}), b = randn({70, 19}), bias = randn({19});
  const Tensor va = a.vulkan(), vb = b.vulkan();
  check_close(va.mm(vb), a.mm(b));
  check_close(va.t().t().mm(vb), a.mm(b));
  check_close(va.mm(vb.t().contiguous().t()), a.mm(b));
  check_close(addmm(bias.vulkan(), va, vb, 0.5, 2), addmm(bias, a, b, 0.5, 2));
  check_close(matmul(va, vb), matmul(a, b));
  check_close(matmul(va, vb.select(1, 0)), matmul(a, b.select(1, 0)));  // matrix @ vector
  check_close(va.mv(vb.select(1, 3)), a.mv(b.select(1, 3)));
  const Tensor x = randn({3, 4, 5}), y = randn({3, 5, 6});
  check_close(bmm(x.vulkan(), y.vulkan()), bmm(x, y));
  check_close(matmul(x.vulkan(), y.vulkan()), matmul(x, y));
  const Tensor p = randn({2, 1, 4, 5}), q = randn({3, 5, 2});
  check_close(matmul(p.vulkan(), q.vulkan()), matmul(p, q));  // broadcast batch dims
  // k == 0: zeros (or beta * self).
  check_close(zeros({3, 0}, kVk).mm(zeros({0, 4}, kVk)), zeros({3, 0}).mm(zeros({0, 4})));
  // In place: the product reads the old values.
  Tensor c = randn({37, 19});
  Tensor vc = c.vulkan();
  vc.addmm_(va, vb, 1, -1);
  check_close(vc, c.addmm(a, b, 1, -1));
  CHECK_THROWS_WITH(va.mm(b), Catch::Contains("Expected all tensors to be on the same device"));
  // float64 (shaderFloat64): the CPU's values to float64 rounding, in every product form.
  if (vulkan::context().has_float64()) {
    const Tensor da = randn({37, 70}, kDouble), db = randn({70, 19}, kDouble);
    const Tensor bias = randn({19}, kDouble), batch = randn({3, 5, 70}, kDouble);
    CHECK(allclose(da.vulkan().mm(db.vulkan()).cpu(), da.mm(db), 1e-12, 1e-12));
    CHECK(allclose(da.vulkan().t().t().mm(db.t().contiguous().vulkan().t()).cpu(), da.mm(db),
                   1e-12, 1e-12));
    CHECK(allclose(addmm(bias.vulkan(), da.vulkan(), db.vulkan(), 0.5, 2).cpu(),
                   addmm(bias, da, db, 0.5, 2), 1e-12, 1e-12));
    CHECK(allclose(matmul(batch.vulkan(), db.vulkan()).cpu(), matmul(batch, db), 1e-12, 1e-12));
    // 1 + 2^-40 survives in float64 (a float32 product would lose it).
    const Tensor one = full({1, 1}, 1.0 + 0x1p-40, kDouble);
    CHECK(one.vulkan().mm(ones({1, 1}, kDouble).vulkan()).cpu().item<double>() == 1.0 + 0x1p-40);
    CHECK_THROWS_WITH(da.vulkan().mm(db.to(kFloat).vulkan()),
                      Catch::Contains("expected scalar type Double but found Float"));
  }
}

TEST_CASE("gradients flow through Vulkan reductions, softmax and products",
          "[vulkan][ops][autograd]") {
  TP_REQUIRE_VULKAN();
  const Tensor a = randn({6, 5}), w = randn({5, 3}), b = randn({3});
  auto loss_of = [](const Tensor& x, const Tensor& w, const Tensor& b) {
    return (x.mm(w) + b).relu().log_softmax(1).mean(0).sum();
  };
  const Tensor vw = w.vulkan().requires_grad_(), vb = b.vulkan().requires_grad_();
  const Tensor cw = w.clone().requires_grad_(), cb = b.clone().requires_grad_();
  const Tensor vl = loss_of(a.vulkan(), vw, vb);
  const Tensor cl = loss_of(a, cw, cb);
  check_close(vl, cl);
  vl.backward();
  cl.backward();
  check_close(vw.grad(), cw.grad());
  check_close(vb.grad(), cb.grad());
}

}  // namespace vulkan_ops_test
