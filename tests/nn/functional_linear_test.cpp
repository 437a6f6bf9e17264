// linear and bilinear (nn/functional/linear.hpp): values against explicit sums, PyTorch's node
// choice (addmm for a 2-d input with a bias), gradcheck, and the bilinear shape errors.
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

namespace nn_functional_linear_test {

using namespace tensorplay;
namespace F = tensorplay::nn::functional;

TEST_CASE("linear and bilinear values and nodes", "[nn][linear]") {
  const Tensor x = randn({4, 3}, dtype(kDouble)).requires_grad_();
  const Tensor w = randn({5, 3}, dtype(kDouble)).requires_grad_();
  const Tensor b = randn({5}, dtype(kDouble)).requires_grad_();
  const Tensor y = F::linear(x, w, b);
  CHECK(allclose(y, x.matmul(w.t()).add(b)));
  CHECK(y.grad_fn()->name() == "AddmmBackward0");
  CHECK(linear(x, w).grad_fn()->name() == "MmBackward0");
  CHECK(linear(x.select(0, 0), w, b).grad_fn()->name() == "AddBackward0");
  const Tensor x3 = randn({2, 4, 3}, dtype(kDouble)).requires_grad_();
  CHECK(allclose(linear(x3, w, b), x3.matmul(w.t()).add(b)));
  // bilinear: y[..., a] = x1 W[a] x2.
  const Tensor x1 = randn({2, 3, 4}, dtype(kDouble)).requires_grad_();
  const Tensor x2 = randn({2, 3, 2}, dtype(kDouble)).requires_grad_();
  const Tensor wb = randn({5, 4, 2}, dtype(kDouble)).requires_grad_();
  const Tensor y2 = F::bilinear(x1, x2, wb, b);
  REQUIRE(y2.sizes() == IntArrayRef({2, 3, 5}));
  for (int64_t a = 0; a < 5; ++a) {
    const Tensor want = x1.unsqueeze(-2).matmul(wb.select(0, a)).matmul(x2.unsqueeze(-1));
    CHECK(allclose(y2.select(-1, a), want.squeeze(-1).squeeze(-1).add(b.select(0, a))));
  }
  using Ts = std::vector<Tensor>;
  CHECK(autograd::gradcheck([](const Ts& v) { return linear(v[0], v[1], v[2]); }, {x, w, b}));
  CHECK(autograd::gradcheck([](const Ts& v) { return bilinear(v[0], v[1], v[2], v[3]); },
                            {x1, x2, wb, b}));
}

TEST_CASE("bilinear: errors", "[nn][linear]") {
  const Tensor a = randn({2, 3}), b = randn({2, 4}), w = randn({5, 3, 4});
  auto message = [](const std::function<void()>& f) -> std::string {
    try {
      f();
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  CHECK(message([&] { bilinear(a, b, w.slice(1, 0, 2)); }) ==
        "bilinear(): input1 size does not match weight size: got 3 but expected 2");
  CHECK(message([&] { bilinear(a, b.slice(0, 0, 1), w); }) ==
        "bilinear(): input batch dimensions do not match at dim 0: got 2 and 1");
  CHECK(message([&] { bilinear(a.select(0, 0), b, w); }) ==
        "bilinear(): input dimensions do not match: got 1 and 2");
  CHECK(message([&] { bilinear(a, b, w, randn({4})); }) ==
        "bilinear(): bias size does not match weight size: got 4 but expected 5");
  CHECK(message([&] { bilinear(a, b, w.slice(2, 0, 3)); }) ==
        "bilinear(): input2 size does not match weight size: got 4 but expected 3");
}

}  // namespace nn_functional_linear_test
