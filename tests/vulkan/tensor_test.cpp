// Vulkan tensors as a libtorch user sees them: to("vulkan") / vulkan() / cpu() round trips of
// every dtype, views that materialise (the spec's one device-specific branch), fill_/zero_,
// item and printing, autograd through the device copies, and the typed errors of ops that have
// no Vulkan kernel yet. Every result is compared with the CPU's.
#include "test_util.hpp"

#include <tensorplay/tensorplay.hpp>

#include <sstream>

namespace vulkan_tensor_test {

using namespace tensorplay;

namespace {
const DType kAllDTypes[] = {kBool, kByte, kChar, kShort, kInt, kLong, kHalf, kBFloat16, kFloat,
                            kDouble};

// A CPU tensor of `dtype` with varied values (bool: alternating).
Tensor sample(IntArrayRef sizes, DType dtype) {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  Tensor t = arange(n, kDouble).remainder(7).sub(3);
  if (dtype == kBool) t = t.gt(0);
  if (dtype == kByte) t = t.abs();
  return t.to(dtype).reshape(sizes);
}
}  // namespace

TEST_CASE("every dtype round-trips through Vulkan", "[vulkan][tensor]") {
  TP_REQUIRE_VULKAN();
  for (DType dt : kAllDTypes) {
    CAPTURE(dt);
    const Tensor a = sample({3, 5}, dt);
    const Tensor v = a.vulkan();
    CHECK(v.is_vulkan());
    CHECK(v.device() == Device("vulkan:0"));
    CHECK(v.dtype() == dt);
    CHECK(v.sizes() == a.sizes());
    CHECK(v.cpu().equal(a));
    CHECK(a.to(Device("vulkan")).to(kCPU).equal(a));
    // Through a strided CPU source, and into a strided CPU destination.
    CHECK(a.t().vulkan().cpu().equal(a.t()));
    Tensor dst = empty({5, 3}, TensorOptions().dtype(dt)).t();
    dst.copy_(v);
    CHECK(dst.equal(a));
    CHECK(v.clone().cpu().equal(a));
    CHECK(v.to(kFloat).cpu().equal(a.to(kFloat)));  // conversion of a Vulkan tensor
  }
}

TEST_CASE("views of a Vulkan tensor are materialised copies", "[vulkan][tensor][views]") {
  TP_REQUIRE_VULKAN();
  for (DType dt : {kFloat, kDouble, kInt, kLong, kHalf, kByte}) {
    CAPTURE(dt);
    const Tensor a = sample({4, 6}, dt);
    const Tensor v = a.vulkan();
    const Tensor t = v.t();
    CHECK(t.is_contiguous());  // no strided addressing: the view is real bytes
    CHECK(t.cpu().equal(a.t()));
    CHECK(v.select(1, 2).cpu().equal(a.select(1, 2)));
    CHECK(v.narrow(0, 1, 2).cpu().equal(a.narrow(0, 1, 2)));
    CHECK(v.reshape({3, 8}).cpu().equal(a.reshape({3, 8})));
    CHECK(v.t().narrow(1, 1, 2).t().cpu().equal(a.t().narrow(1, 1, 2).t()));  // views of views
    CHECK(v.unsqueeze(0).expand({2, 4, 6}).cpu().equal(a.unsqueeze(0).expand({2, 4, 6})));
    // Its own bytes and its own version: a later write to the base does not reach it.
    CHECK_FALSE(t.is_alias_of(v));
    const int64_t before = t._version();
    v.fill_(1);
    CHECK(t.cpu().equal(a.t()));
    CHECK(t._version() == before);
  }
}

TEST_CASE("fill_, zero_ and copy_ on Vulkan follow the CPU", "[vulkan][tensor]") {
  TP_REQUIRE_VULKAN();
  for (DType dt : kAllDTypes) {
    CAPTURE(dt);
    Tensor v = empty({2, 3}, TensorOptions().dtype(dt).device(kVulkan));
    v.fill_(1);
    CHECK(v.cpu().equal(ones({2, 3}, dt)));
    const int64_t version = v._version();
    v.zero_();
    CHECK(v._version() == version + 1);
    CHECK(v.cpu().equal(zeros({2, 3}, dt)));
    // copy_ broadcasts and converts, from the CPU and on the device.
    v.copy_(sample({3}, kDouble));
    CHECK(v.cpu().equal(sample({3}, kDouble).to(dt).expand({2, 3})));
    Tensor w = zeros({2, 3}, TensorOptions().dtype(dt).device(kVulkan));
    w.copy_(v);
    CHECK(w.cpu().equal(v.cpu()));
  }
  Tensor f = zeros({4}, TensorOptions().device(kVulkan));
  f.fill_(0.25);
  CHECK(f.cpu().equal(full({4}, 0.25)));
  CHECK(full({2}, 7, TensorOptions().dtype(kInt).device(kVulkan)).cpu().equal(full({2}, 7, kInt)));
  // The CPU's checks apply: a value the dtype cannot hold, a shape that does not broadcast.
  Tensor b = zeros({2}, TensorOptions().dtype(kByte).device(kVulkan));
  CHECK_THROWS_AS(b.fill_(300), Error);
  CHECK_THROWS_AS(zeros({2}, TensorOptions().dtype(kInt).device(kVulkan)).fill_(1e10), Error);
  CHECK_THROWS_AS(f.copy_(ones({3})), Error);
}

TEST_CASE("item and printing read a Vulkan tensor on the host", "[vulkan][tensor]") {
  TP_REQUIRE_VULKAN();
  const Tensor v = arange(6, kFloat).reshape({2, 3}).vulkan();
  CHECK(v[1][2].item<float>() == 5.0f);
  std::ostringstream os;
  os << v;
  CHECK(os.str() ==
        "tensor([[0., 1., 2.],\n        [3., 4., 5.]], device='vulkan:0')");
  CHECK(to_string(ones({2}, TensorOptions().dtype(kLong).device(kVulkan))) ==
        "tensor([1, 1], device='vulkan:0')");
}

TEST_CASE("gradients flow through vulkan() and cpu()", "[vulkan][tensor][autograd]") {
  TP_REQUIRE_VULKAN();
  const Tensor x = arange(4, kFloat).requires_grad_();
  const Tensor y = x.vulkan();
  CHECK(y.grad_fn()->name() == "ToCopyBackward0");
  const Tensor z = y.t().cpu();  // a view on the device on the way
  (z * z).sum().backward();
  CHECK(x.grad().is_cpu());
  CHECK(x.grad().equal(arange(4, kFloat) * 2));
}

TEST_CASE("ops without a Vulkan kernel raise typed errors", "[vulkan][tensor][errors]") {
  TP_REQUIRE_VULKAN();
  const Tensor v = ones({2, 2}, TensorOptions().device(kVulkan));
  // No CPU kernel may run on device memory: host addresses of Vulkan tensors do not exist.
  CHECK_THROWS_AS(v.data_ptr(), NotImplementedError);
  CHECK_THROWS_WITH(v.data_ptr<float>(),
                    Catch::Contains("cannot be addressed by the host; copy it to the CPU"));
  CHECK_THROWS_WITH(v.sign(), Catch::Contains("Could not run 'aten::sign' with arguments from "
                                               "the 'Vulkan' backend"));
  CHECK_THROWS_WITH(v.cumsum(0), Catch::Contains("Could not run 'aten::cumsum' with arguments "
                                                 "from the 'Vulkan' backend"));
  CHECK_THROWS_AS(v.frac(), NotImplementedError);
  CHECK_THROWS_WITH(v.sort(), Catch::Contains("Could not run 'aten::sort' with arguments from "
                                               "the 'Vulkan' backend"));
  CHECK_THROWS_WITH(v.topk(1), Catch::Contains("Could not run 'aten::topk'"));
  const Tensor iv = ones({2, 2}, TensorOptions().dtype(kInt).device(kVulkan));
  CHECK_THROWS_WITH(iv.bitwise_and(iv), Catch::Contains("Could not run 'aten::bitwise_and' with "
                                                        "arguments from the 'Vulkan' backend"));
  CHECK_THROWS_WITH(iv.bitwise_left_shift(1), Catch::Contains("Could not run 'aten::"));
  CHECK_THROWS_WITH(v.cumprod(0), Catch::Contains("Could not run 'aten::cumprod'"));
  // Tensor (advanced) indexing has no device kernel: it must refuse, never read device memory
  // as host memory; indices on another device than the indexed tensor get PyTorch's message.
  const Tensor idx = tensor({int64_t{1}, int64_t{0}});
  CHECK_THROWS_WITH(v.index({idx}),
                    Catch::Contains("Could not run 'aten::index' with arguments from the 'Vulkan'"));
  CHECK_THROWS_WITH(ones({2, 2}).index({idx.vulkan()}),
                    Catch::Contains("indices should be either on cpu or on the same device as the "
                                    "indexed tensor (cpu)"));
  CHECK_THROWS_AS(v.index({idx.vulkan()}), NotImplementedError);
  Tensor host = zeros({2, 2});
  CHECK_THROWS_AS(host.index_put_({idx}, ones({2, 2}).vulkan()), Error);
  CHECK(host.equal(zeros({2, 2})));
  CHECK_THROWS_AS(ones({2, 2}) + v, Error);  // mixed devices
  // The values are untouched by the failed attempts.
  CHECK(v.cpu().equal(ones({2, 2})));
}

}  // namespace vulkan_tensor_test
