// CUDA copies and fill_ (backends/cuda/copy.hpp) from a user's side: to/cuda/cpu round trips of
// every dtype, host layouts and conversions, device copies of every layout and dtype pair (the
// copy kernel), peer copies, factories on "cuda". All need a GPU ([device]); the host-side half
// of the copy kernel is tested in cast_test.cpp.
#include <catch2/catch.hpp>

#include <tensorplay/tensorplay.hpp>

#include <cmath>

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

TEST_CASE("device copies of any layout and dtype run on the device, as the CPU's", "[device]") {
  REQUIRE(tp::cuda::is_available());
  const tp::Tensor a = tp::arange(24, tp::kDouble).reshape({2, 3, 4}) * 0.37 - 4;
  const tp::Tensor d = a.cuda();
  for (tp::DType to : {tp::kFloat, tp::kDouble, tp::kHalf, tp::kBFloat16, tp::kByte, tp::kChar,
                       tp::kShort, tp::kInt, tp::kLong, tp::kBool}) {
    CAPTURE(tp::scalar_type_name(to));
    CHECK(tp::equal(d.to(to).cpu(), a.to(to)));  // converts on the device
    CHECK(tp::equal(d.permute({2, 0, 1}).to(to).cpu(), a.permute({2, 0, 1}).to(to)));
    CHECK(tp::equal(d.select(2, 1).contiguous().to(to).cpu(), a.select(2, 1).to(to)));
  }
  CHECK(tp::equal(d.select(1, 0).cpu(), a.select(1, 0)));  // a strided download
  const tp::Tensor out = tp::zeros({4, 2, 3}, kOnCuda.dtype(tp::kHalf));
  out.permute({1, 2, 0}).copy_(d);  // strided, converting destination
  CHECK(tp::equal(out.cpu(), a.permute({2, 0, 1}).to(tp::kHalf)));
  out.select(0, 1).copy_(d.select(2, 3).t());  // a view into a view
  const tp::Tensor want = a.permute({2, 0, 1}).to(tp::kHalf);
  want.select(0, 1).copy_(a.select(2, 3).t());
  CHECK(tp::equal(out.cpu(), want));
  // One rounding from float64 to float16, uint8 from negative values through int64, NaN is true.
  const tp::Tensor edge = tp::tensor(
      {1.0 + std::ldexp(1.0, -11) + std::ldexp(1.0, -40), -1.0, -3.7, NAN, 65519.99, 1e-8});
  for (tp::DType to : {tp::kHalf, tp::kBFloat16, tp::kByte, tp::kBool}) {
    if (to == tp::kByte) {
      CHECK(tp::equal(edge.slice(0, 1, 3).cuda().to(to).cpu(), edge.slice(0, 1, 3).to(to)));
    } else {
      CHECK(tp::allclose(edge.cuda().to(to).cpu().to(tp::kDouble), edge.to(to).to(tp::kDouble), 0,
                         0, true));
    }
  }
  // Overlapping copies are the CPU's error.
  CHECK_THROWS_WITH(d.select(0, 0).unsqueeze(0).expand({2, 3, 4}).copy_(d),
                    Catch::Matchers::Contains("more than one element of the written-to tensor"));
  // A strided upload and a fill of a strided view.
  const tp::Tensor e = tp::zeros({3, 4}, kOnCuda);
  e.t().copy_(tp::arange(12, tp::kFloat).reshape({4, 3}));
  CHECK(tp::equal(e.cpu(), tp::arange(12, tp::kFloat).reshape({4, 3}).t()));
  e.select(1, 2).fill_(-1);
  CHECK(tp::equal(e.cpu().select(1, 2), tp::full({3}, -1.0)));
}

TEST_CASE("copies between two devices", "[device]") {
  REQUIRE(tp::cuda::is_available());
  if (tp::cuda::device_count() < 2) {
    WARN("one CUDA device: peer copies not exercised");
    return;
  }
  const tp::Tensor a = tp::arange(12, tp::kFloat).reshape({3, 4});
  const tp::Tensor d0 = a.cuda();
  const tp::Tensor d1 = d0.to(tp::Device("cuda:1"));
  CHECK(d1.device() == tp::Device("cuda:1"));
  CHECK(tp::equal(d1.cpu(), a));
  CHECK(tp::equal(d0.t().to(tp::Device("cuda:1"), tp::kDouble).cpu(), a.t().to(tp::kDouble)));
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
