// CUDA copies and fill_ (backends/cuda/copy.hpp) from a user's side: to/cuda/cpu round trips of
// every dtype, host layouts and conversions, factories on "cuda". All need a GPU ([device]).
#include <catch2/catch.hpp>

#include <tensorplay/tensorplay.hpp>

namespace cuda_copy_test {

namespace tp = tensorplay;

const tp::TensorOptions kOnCuda = tp::TensorOptions().device(tp::kCUDA);

TEST_CASE("every dtype round-trips through the device bit for bit", "[device]") {
  REQUIRE(tp::cuda::is_available());
  for (tp::DType dt : {tp::kFloat, tp::kDouble, tp::kHalf, tp::kBFloat16, tp::kByte, tp::kChar,
                       tp::kShort, tp::kInt, tp::kLong, tp::kBool}) {
    const tp::Tensor a = (tp::arange(24) % 7).to(dt).reshape({2, 3, 4});
    const tp::Tensor d = a.cuda();
    CHECK(d.is_cuda());
    CHECK(d.dtype() == dt);
    CHECK(tp::equal(d.cpu(), a));
  }
}

TEST_CASE("host layouts, broadcasts and conversions are done on the host side", "[device]") {
  REQUIRE(tp::cuda::is_available());
  const tp::Tensor a = tp::arange(12, tp::kFloat).reshape({3, 4});
  CHECK(tp::equal(a.t().cuda().cpu(), a.t()));  // a strided host source
  CHECK(tp::equal(a.to(tp::Device("cuda:0"), tp::kDouble).cpu(), a.to(tp::kDouble)));
  const tp::Tensor d = tp::empty({3, 4}, kOnCuda);
  d.copy_(tp::arange(4, tp::kInt));  // broadcast and convert on upload
  CHECK(tp::equal(d.cpu(), tp::arange(4, tp::kFloat).expand({3, 4})));
  tp::Tensor host = tp::empty({4, 3}, tp::kDouble);
  host.t().copy_(d);  // convert and lay out on download
  CHECK(tp::equal(host.t(), tp::arange(4, tp::kDouble).expand({3, 4})));
}

TEST_CASE("a device copy that needs the strided kernel says so", "[device]") {
  REQUIRE(tp::cuda::is_available());
  const tp::Tensor d = tp::arange(12, tp::kFloat).reshape({3, 4}).cuda();
  CHECK_THROWS_AS(d.to(tp::kDouble), tp::NotImplementedError);  // converts on the device
  CHECK_THROWS_WITH(d.select(1, 0).cpu(), Catch::Matchers::Contains("aten::copy_"));
  // A dense permutation moves as one block.
  CHECK(tp::equal(d.t().cpu(), tp::arange(12, tp::kFloat).reshape({3, 4}).t()));
}

TEST_CASE("factories and fill_ on cuda", "[device]") {
  REQUIRE(tp::cuda::is_available());
  CHECK(tp::equal(tp::zeros({5}, kOnCuda).cpu(), tp::zeros({5})));
  CHECK(tp::equal(tp::ones({2, 2}, kOnCuda.dtype(tp::kLong)).cpu(), tp::ones({2, 2}, tp::kLong)));
  CHECK(tp::equal(tp::full({3}, 2.5, kOnCuda).cpu(), tp::full({3}, 2.5)));
  const tp::Tensor d = tp::empty({4}, kOnCuda);
  d.fill_(7);
  CHECK(tp::equal(d.cpu(), tp::full({4}, 7.0)));
  CHECK(d._version() == 1);
}

}  // namespace cuda_copy_test
