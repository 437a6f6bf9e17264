// Kernels that build a Vulkan tensor by writing into parts of it: cat and stack, index_put_
// with basic indices, and the gradients of views (scattered into zeros). Views of a Vulkan
// tensor are copies, so each of these writes through an alias made under
// detail::AliasingViewsGuard and the strided copy shader; every result is compared with the
// CPU's. Plus the factories whose values are made on the host (arange, linspace, eye,
// tensor, the random ones) given a Vulkan device.
#include "test_util.hpp"

#include <tensorplay/tensorplay.hpp>

#include <vector>

namespace vulkan_write_through_test {

using namespace tensorplay;

namespace {
const TensorOptions kOnVulkan = TensorOptions().device(Device(kVulkan));

std::vector<Tensor> on_vulkan(const std::vector<Tensor>& ts) {
  std::vector<Tensor> out;
  for (const Tensor& t : ts) out.push_back(t.vulkan());
  return out;
}
}  // namespace

TEST_CASE("cat and stack on Vulkan match the CPU for every dim and dtype", "[vulkan][join]") {
  TP_REQUIRE_VULKAN();
  auto& gen = tp_vk_test::rng();
  for (DType dt : {kFloat, kDouble, kInt, kLong, kHalf, kByte, kBool}) {
    for (int trial = 0; trial < 6; ++trial) {
      const int64_t rank = 1 + static_cast<int64_t>(gen() % 3);
      const int64_t dim = static_cast<int64_t>(gen() % rank);
      std::vector<int64_t> shape(static_cast<std::size_t>(rank));
      for (auto& s : shape) s = 1 + static_cast<int64_t>(gen() % 4);
      std::vector<Tensor> parts;
      for (int k = 0; k < 3; ++k) {
        std::vector<int64_t> s = shape;
        s[static_cast<std::size_t>(dim)] = static_cast<int64_t>(gen() % 3);  // 0 too
        parts.push_back(randint(-5, 5, s).to(dt));
      }
      CAPTURE(dt, shape, dim);
      const Tensor got = cat(on_vulkan(parts), dim);
      CHECK(got.is_vulkan());
      CHECK(got.cpu().equal(cat(parts, dim)));
      // Inputs that are themselves materialised views.
      if (rank == 2 && parts[0].size(1) == parts[1].size(1)) {
        const Tensor t0 = parts[0].vulkan().t(), t1 = parts[1].vulkan().t();
        CHECK(cat({t0, t1}, 1).cpu().equal(cat({parts[0].t(), parts[1].t()}, 1)));
      }
      std::vector<Tensor> same(3, parts[2]);
      CHECK(stack(on_vulkan(same), dim).cpu().equal(stack(same, dim)));
    }
  }
  // Promotion across inputs, cat_out and stack_out into Vulkan tensors.
  const Tensor f = arange(4, kFloat).reshape({2, 2});
  const Tensor i = arange(4, kInt).reshape({2, 2});
  CHECK(cat({f.vulkan(), i.vulkan()}, 1).cpu().equal(cat({f, i}, 1)));
  Tensor out = empty({0}, kOnVulkan);
  cat_out(out, {f.vulkan(), f.vulkan()}, 0);
  CHECK(out.cpu().equal(cat({f, f}, 0)));
  stack_out(out, {f.vulkan(), f.vulkan()}, 2);
  CHECK(out.cpu().equal(stack({f, f}, 2)));
  CHECK_THROWS_WITH(cat({f.vulkan(), arange(3, kFloat).vulkan()}, 0),
                    Catch::Contains("Tensors must have same number of dimensions"));
}

TEST_CASE("index_put_ with basic indices writes the Vulkan tensor itself", "[vulkan][indexing]") {
  TP_REQUIRE_VULKAN();
  using indexing::None;
  using indexing::Slice;
  Tensor z = zeros({3, 4}, kOnVulkan);
  Tensor ref = zeros({3, 4});
  z.index_put_({1}, 7.0);
  ref.index_put_({1}, 7.0);
  z.index_put_({Slice(), 2}, arange(3, kFloat).vulkan());
  ref.index_put_({Slice(), 2}, arange(3, kFloat));
  z.index_put_({Slice(0, 2), Slice(None, None, 2)}, tensor({{-1.f, -2.f}}).vulkan());
  ref.index_put_({Slice(0, 2), Slice(None, None, 2)}, tensor({{-1.f, -2.f}}));
  CHECK(z.cpu().equal(ref));
  // A user's view is still a copy: writing it leaves the base alone (README, Vulkan section).
  z.select(0, 0).fill_(100);
  CHECK(z.cpu().equal(ref));
}

TEST_CASE("gradients through views of Vulkan tensors reach the base", "[vulkan][autograd]") {
  TP_REQUIRE_VULKAN();
  const Tensor w = arange(12, kFloat).reshape({3, 4});
  auto grad_of = [&](bool vulkan, auto&& f) {
    Tensor x = (vulkan ? ones({3, 4}, kOnVulkan) : ones({3, 4})).requires_grad_();
    (f(x) * (vulkan ? f(w.vulkan()) : f(w))).sum().backward();
    return x.grad().cpu();
  };
  auto check = [&](auto&& f) { CHECK(grad_of(true, f).equal(grad_of(false, f))); };
  check([](const Tensor& x) { return x.select(0, 1); });
  check([](const Tensor& x) { return x.narrow(1, 1, 2); });
  check([](const Tensor& x) { return x.t(); });
  check([](const Tensor& x) { return x.diagonal(); });
  check([](const Tensor& x) { return x.reshape({2, 6}); });
  check([](const Tensor& x) { return x.split(2, 1)[1]; });
  check([](const Tensor& x) { return x.unbind(0)[2]; });
  check([](const Tensor& x) { return x.index({indexing::Slice(1, indexing::None), 0}); });
  check([](const Tensor& x) { return cat({x, x.narrow(0, 0, 1)}, 0); });
  check([](const Tensor& x) { return stack({x, x}, 1); });
}

TEST_CASE("factories whose values are made on the host, given a Vulkan device",
          "[vulkan][factories]") {
  TP_REQUIRE_VULKAN();
  const Tensor a = arange(1, 10, 2, kOnVulkan);
  CHECK(a.is_vulkan());
  CHECK(a.cpu().equal(arange(1, 10, 2)));
  CHECK(arange(0.5, 3, kOnVulkan.dtype(kFloat)).cpu().equal(arange(0.5, 3, kFloat)));
  CHECK(linspace(-1, 1, 7, kOnVulkan).cpu().equal(linspace(-1, 1, 7)));
  CHECK(linspace(3, 3, 1, kOnVulkan).cpu().equal(linspace(3, 3, 1)));
  CHECK(eye(3, 5, kOnVulkan).cpu().equal(eye(3, 5)));
  CHECK(eye(4, kOnVulkan.dtype(kBool)).cpu().equal(eye(4, kBool)));
  CHECK(tensor({{1, 2}, {3, 4}}, kOnVulkan).cpu().equal(tensor({{1, 2}, {3, 4}})));
  const std::vector<double> values{0.5, -1.5};
  CHECK(tensor(ArrayRef<double>(values), kOnVulkan).cpu().equal(tensor(ArrayRef<double>(values))));
  // The CPU generator's values, bit for bit, and its stream advances the same way.
  manual_seed(7);
  const Tensor r = rand({5}, kOnVulkan), n = randn({2, 3}, kOnVulkan),
               k = randint(0, 9, {4}, kOnVulkan);
  manual_seed(7);
  CHECK(r.cpu().equal(rand({5})));
  CHECK(n.cpu().equal(randn({2, 3})));
  CHECK(k.cpu().equal(randint(0, 9, {4})));
  CHECK(r.is_vulkan());
  // The CPU's argument checks still speak.
  CHECK_THROWS_WITH(arange(0, 1, 0, kOnVulkan), Catch::Contains("step must be nonzero"));
  CHECK_THROWS_WITH(eye(-1, kOnVulkan), Catch::Contains("n must be greater or equal to 0"));
  CHECK_THROWS_WITH(randint(0, 300, {2}, kOnVulkan.dtype(kByte)),
                    Catch::Contains("to - 1 is out of bounds for"));
}

}  // namespace vulkan_write_through_test
