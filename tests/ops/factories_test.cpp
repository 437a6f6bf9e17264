// Factories: values, dtypes, shapes, strides and every error, cross-checked against PyTorch 1.13
// (the hex-float and bit-pattern literals below were printed by torch and pasted here).
#include <tensorplay/ops/factories.hpp>

#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <vector>

namespace ops_factories_test {

using namespace tensorplay;

namespace {

using Sizes = std::vector<int64_t>;

// The elements in row-major (logical) order, read through the strides.
template <class T>
std::vector<T> elements(const Tensor& t) {
  std::vector<T> out;
  const int64_t n = t.numel();
  if (n == 0) return out;
  const T* base = t.data_ptr<T>();
  std::vector<int64_t> index(static_cast<std::size_t>(t.dim()), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t offset = 0;
    for (int64_t d = 0; d < t.dim(); ++d) offset += index[d] * t.stride(d);
    out.push_back(base[offset]);
    for (int64_t d = t.dim() - 1; d >= 0; --d) {
      if (++index[d] < t.size(d)) break;
      index[d] = 0;
    }
  }
  return out;
}

// The elements of a contiguous tensor as their bit patterns (exact comparison with torch's,
// which also tells -0.0 from 0.0).
template <class Bits>
std::vector<Bits> bits(const Tensor& t) {
  REQUIRE(t.is_contiguous());
  REQUIRE(t.element_size() == static_cast<int64_t>(sizeof(Bits)));
  std::vector<Bits> out(static_cast<std::size_t>(t.numel()));
  if (!out.empty()) std::memcpy(out.data(), t.data_ptr(), out.size() * sizeof(Bits));
  return out;
}
template <class T, class Bits>
std::vector<Bits> bits_of(std::initializer_list<T> values) {
  std::vector<Bits> out;
  for (T v : values) {
    Bits b;
    std::memcpy(&b, &v, sizeof(Bits));
    out.push_back(b);
  }
  return out;
}

// An allocator that claims to be a CUDA device but hands out host memory: lets a test reach the
// device kernels' dispatch without a CUDA build.
struct FakeDeviceAllocator final : Allocator {
  static void deleter(void* p) { std::free(p); }
  DataPtr allocate(std::size_t n) const override { return allocate(n, Device(kCUDA, 0)); }
  DataPtr allocate(std::size_t n, const Device& device) const override {
    return DataPtr(n ? std::malloc(n) : nullptr, &deleter, device);
  }
};

}  // namespace

// ================================ From the user's side =======================================

TEST_CASE("the libtorch factory calls a user writes", "[ops][factories]") {
  Tensor z = zeros({2, 3});
  CHECK(z.dtype() == kFloat);
  CHECK(z.sizes() == Sizes{2, 3});
  CHECK(z.strides() == Sizes{3, 1});
  CHECK(elements<float>(z) == std::vector<float>(6, 0.0f));

  Tensor o = ones({2}, kLong);
  CHECK(o.dtype() == kLong);
  CHECK(elements<int64_t>(o) == std::vector<int64_t>{1, 1});

  Tensor f = full({2, 2}, 7);
  CHECK(f.dtype() == kLong);
  CHECK(elements<int64_t>(f) == std::vector<int64_t>(4, 7));

  CHECK(elements<int64_t>(arange(5)) == std::vector<int64_t>{0, 1, 2, 3, 4});
  CHECK(elements<int64_t>(arange(1, 4)) == std::vector<int64_t>{1, 2, 3});
  CHECK(arange(0, 1, 0.1).dtype() == kFloat);
  CHECK(arange(0, 1, 0.1).numel() == 10);
  CHECK(elements<float>(linspace(0, 1, 5)) == std::vector<float>{0, 0.25f, 0.5f, 0.75f, 1});

  CHECK(elements<float>(eye(3)) == std::vector<float>{1, 0, 0, 0, 1, 0, 0, 0, 1});
  CHECK(elements<float>(eye(2, 3)) == std::vector<float>{1, 0, 0, 0, 1, 0});

  Tensor a = tensor({1.0, 2.0});
  CHECK(a.dtype() == kFloat);
  CHECK(elements<float>(a) == std::vector<float>{1, 2});
  CHECK(tensor({1, 2}).dtype() == kLong);
  CHECK(tensor({true, false}).dtype() == kBool);
  Tensor m = tensor({{1., 2.}, {3., 4.}});
  CHECK(m.sizes() == Sizes{2, 2});
  CHECK(elements<float>(m) == std::vector<float>{1, 2, 3, 4});
  CHECK(tensor({1, 2}, kDouble).dtype() == kDouble);

  Tensor zl = zeros_like(m);
  CHECK(zl.sizes() == m.sizes());
  CHECK(zl.dtype() == kFloat);
  Tensor ol = ones_like(m, kInt);
  CHECK(ol.dtype() == kInt);
  CHECK(elements<int32_t>(ol) == std::vector<int32_t>(4, 1));
  CHECK(elements<float>(full_like(m, 2.5)) == std::vector<float>(4, 2.5f));
  CHECK(scalar_tensor(3).dim() == 0);
}

TEST_CASE("a transposed input gives transposed *_like results", "[ops][factories]") {
  // zeros(3, 2).t() as a user would see it: sizes [2, 3], strides [1, 2].
  Tensor t = empty_strided({2, 3}, {1, 2});
  for (Tensor r : {empty_like(t), zeros_like(t), ones_like(t), full_like(t, 4)}) {
    CHECK(r.sizes() == Sizes{2, 3});
    CHECK(r.strides() == Sizes{1, 2});
  }
  CHECK(zeros_like(t, MemoryFormat::Contiguous).strides() == Sizes{3, 1});
  CHECK(zeros_like(t, {}, MemoryFormat::Contiguous).strides() == Sizes{3, 1});
}

// ================================= zeros / ones / full =======================================

TEST_CASE("zeros, ones and full in every dtype", "[ops][factories]") {
  for (DType d : {kBool, kByte, kChar, kShort, kInt, kLong, kHalf, kBFloat16, kFloat, kDouble}) {
    Tensor z = zeros({2, 3}, d), o = ones({3}, d), f = full({2}, 1, d);
    CHECK(z.dtype() == d);
    CHECK(o.dtype() == d);
    CHECK(f.dtype() == d);
    dispatch_dtype(d, [&]<class T>() {
      CHECK(elements<T>(z) == std::vector<T>(6, static_cast<T>(0)));
      CHECK(elements<T>(o) == std::vector<T>(3, static_cast<T>(1)));
      CHECK(elements<T>(f) == std::vector<T>(2, static_cast<T>(1)));
    });
  }
  // 0-d and empty shapes.
  CHECK(zeros({}).dim() == 0);
  CHECK(elements<float>(ones({})) == std::vector<float>{1});
  CHECK(zeros({2, 0}).numel() == 0);
  CHECK(full({0}, 3.5).numel() == 0);
  // The options' memory format reaches the allocation.
  CHECK(zeros({2, 3, 4, 5}, MemoryFormat::ChannelsLast).strides() == Sizes{60, 1, 15, 3});
  Tensor cl = ones({1, 2, 2, 3}, MemoryFormat::ChannelsLast);
  CHECK(elements<float>(cl) == std::vector<float>(12, 1.0f));
}

TEST_CASE("full infers its dtype from the fill value, as PyTorch 1.13", "[ops][factories]") {
  CHECK(full({2}, 7).dtype() == kLong);
  CHECK(full({2}, int8_t{7}).dtype() == kLong);  // any C++ integer is an integral Scalar
  CHECK(full({2}, true).dtype() == kBool);
  CHECK(full({2}, 1.5).dtype() == kFloat);
  CHECK(full({2}, 1.5f).dtype() == kFloat);
  CHECK(full({2}, Half(1.5f)).dtype() == kFloat);
  CHECK(elements<bool>(full({2}, true)) == std::vector<bool>{true, true});
  // An explicit dtype wins; the value is converted (float -> int truncates, as fill_ does).
  CHECK(elements<int64_t>(full({2}, 1.5, kLong)) == std::vector<int64_t>{1, 1});
  CHECK(elements<bool>(full({2}, 1.5, kBool)) == std::vector<bool>{true, true});
  CHECK(elements<double>(full({1}, 7, kDouble)) == std::vector<double>{7.0});
  // Values that do not fit are rejected by Scalar's checked conversion.
  CHECK_THROWS_WITH(full({2}, 300, kByte),
                    Catch::StartsWith("value cannot be converted to type uint8"));
  CHECK_THROWS_WITH(full({2}, 1e40, kFloat),
                    Catch::StartsWith("value cannot be converted to type float"));
  CHECK_THROWS_WITH(full({2}, 70000, kHalf),
                    Catch::StartsWith("value cannot be converted to type"));
  // Infinity is a value, not an overflow.
  CHECK(std::isinf(elements<float>(full({1}, 1.0 / 0.0))[0]));
}

TEST_CASE("scalar_tensor is a 0-d tensor of the default dtype", "[ops][factories]") {
  Tensor s = scalar_tensor(3);
  CHECK(s.dim() == 0);
  CHECK(s.dtype() == kFloat);  // not inferred from the Scalar, as PyTorch's
  CHECK(elements<float>(s) == std::vector<float>{3});
  CHECK(elements<float>(scalar_tensor(true)) == std::vector<float>{1});
  CHECK(elements<int64_t>(scalar_tensor(2.9, kLong)) == std::vector<int64_t>{2});
}

// ======================================== arange =============================================

TEST_CASE("arange infers int64 only when start, end and step are all integral",
          "[ops][factories]") {
  CHECK(arange(5).dtype() == kLong);
  CHECK(arange(1, 4).dtype() == kLong);
  CHECK(arange(0, 10, 3).dtype() == kLong);
  CHECK(arange(true, 3).dtype() == kLong);  // bool counts as integral (libtorch's isIntegral(true))
  CHECK(elements<int64_t>(arange(true, 3)) == std::vector<int64_t>{1, 2});
  CHECK(arange(5.0).dtype() == kFloat);
  CHECK(arange(0, 3.0).dtype() == kFloat);
  CHECK(arange(0, 3, 1.0).dtype() == kFloat);
  CHECK(arange(5, kInt).dtype() == kInt);
  CHECK(arange(0, 3, 1, kDouble).dtype() == kDouble);
  CHECK(arange(3).strides() == Sizes{1});
}

TEST_CASE("arange's length is ceil((end - start) / step) in double", "[ops][factories]") {
  CHECK(arange(0, 1, 0.1).numel() == 10);
  CHECK(arange(1, 2.5, 0.5).numel() == 3);
  CHECK(arange(0, 10, 3).numel() == 4);
  CHECK(arange(1, 1).numel() == 0);
  CHECK(arange(-1, -1).numel() == 0);
  CHECK(arange(0, 1, 1.0 / 0.0).numel() == 0);  // step inf: ceil(0) elements
  // int32 sizes come from the double Scalars (ceil(3.2) = 4), int64 from the int64 difference
  // of the truncated bounds (3 - 0 = 3): PyTorch's own quirk, kept.
  CHECK(elements<int32_t>(arange(0.5, 3.7, kInt)) == std::vector<int32_t>{0, 1, 2, 3});
  CHECK(elements<int64_t>(arange(0.5, 3.7, kLong)) == std::vector<int64_t>{0, 1, 2});
}

TEST_CASE("arange values in every dtype", "[ops][factories]") {
  CHECK(elements<int64_t>(arange(10, 0, -3)) == std::vector<int64_t>{10, 7, 4, 1});
  CHECK(elements<int32_t>(arange(0, 10, 3, kInt)) == std::vector<int32_t>{0, 3, 6, 9});
  CHECK(elements<uint8_t>(arange(0, 300, 100, kByte)) == std::vector<uint8_t>{0, 100, 200});
  // Computed in int64 and wrapped to uint8, as PyTorch's: 0, -1, -2 -> 0, 255, 254.
  CHECK(elements<uint8_t>(arange(0, -3, -1, kByte)) == std::vector<uint8_t>{0, 255, 254});
  CHECK(elements<int8_t>(arange(-2, 2, 1, kChar)) == std::vector<int8_t>{-2, -1, 0, 1});
  CHECK(elements<float>(arange(0., 3.)) == std::vector<float>{0, 1, 2});
  // Half computes in float and rounds each value: 50000 is not a half, 49984 is the nearest.
  Tensor h = arange(0, 70000, 10000, kHalf);
  CHECK(h.dtype() == kHalf);
  std::vector<float> hv;
  for (Half x : elements<Half>(h)) hv.push_back(static_cast<float>(x));
  CHECK(hv == std::vector<float>{0, 10000, 20000, 30000, 40000, 49984, 60000});
}

TEST_CASE("arange matches torch.arange bit for bit", "[ops][factories]") {
  // Fewer than 16 float32 elements: the scalar formula start + step * i.
  CHECK(bits<uint32_t>(arange(0, 1, 0.1)) ==
        bits_of<float, uint32_t>({0x0p+0f, 0x1.99999ap-4f, 0x1.99999ap-3f, 0x1.333334p-2f,
                                  0x1.99999ap-2f, 0x1p-1f, 0x1.333334p-1f, 0x1.666666p-1f,
                                  0x1.99999ap-1f, 0x1.ccccccp-1f}));
  // 27 elements: the first 16 come from PyTorch's vector loop (each run of 8 from a rounded
  // base), which is why element 10 is -2^-26-ish rather than 0 and 11..12 differ from the
  // one-rounding formula.
  CHECK(bits<uint32_t>(arange(-3, 5, 0.3)) ==
        bits_of<float, uint32_t>(
            {-0x1.8p+1f,       -0x1.59999ap+1f, -0x1.333334p+1f, -0x1.0cccccp+1f, -0x1.ccccccp+0f,
             -0x1.8p+0f,       -0x1.333334p+0f, -0x1.ccccccp-1f, -0x1.333334p-1f, -0x1.333334p-2f,
             -0x1.99999ap-26f, 0x1.333332p-2f,  0x1.333332p-1f,  0x1.ccccccp-1f,  0x1.333332p+0f,
             0x1.8p+0f,        0x1.ccccccp+0f,  0x1.0cccccp+1f,  0x1.333334p+1f,  0x1.59999ap+1f,
             0x1.8p+1f,        0x1.a66666p+1f,  0x1.ccccccp+1f,  0x1.f33334p+1f,  0x1.0cccccp+2f,
             0x1.2p+2f,        0x1.333334p+2f}));
  CHECK(bits<uint64_t>(arange(-3, 5, 0.3, kDouble)) ==
        bits_of<double, uint64_t>({-0x1.8p+1,
                                   -0x1.599999999999ap+1,
                                   -0x1.3333333333333p+1,
                                   -0x1.0cccccccccccdp+1,
                                   -0x1.ccccccccccccdp+0,
                                   -0x1.8p+0,
                                   -0x1.3333333333334p+0,
                                   -0x1.ccccccccccccep-1,
                                   -0x1.3333333333334p-1,
                                   -0x1.3333333333335p-2,
                                   -0x1p-53,
                                   0x1.3333333333331p-2,
                                   0x1.3333333333332p-1,
                                   0x1.cccccccccccccp-1,
                                   0x1.3333333333332p+0,
                                   0x1.7ffffffffffffp+0,
                                   0x1.cccccccccccccp+0,
                                   0x1.0ccccccccccccp+1,
                                   0x1.3333333333333p+1,
                                   0x1.5999999999999p+1,
                                   0x1.8p+1,
                                   0x1.a666666666666p+1,
                                   0x1.ccccccccccccdp+1,
                                   0x1.f333333333333p+1,
                                   0x1.0ccccccccccccp+2,
                                   0x1.2p+2,
                                   0x1.3333333333333p+2}));
  CHECK(bits<uint16_t>(arange(0.5, 20, 0.7, kHalf)) ==
        std::vector<uint16_t>{0x3800, 0x3ccd, 0x3f9a, 0x4133, 0x429a, 0x4400, 0x44b3,
                              0x4566, 0x461a, 0x46cd, 0x4780, 0x481a, 0x4873, 0x48cd,
                              0x4926, 0x4980, 0x49da, 0x4a33, 0x4a8d, 0x4ae6, 0x4b40,
                              0x4b9a, 0x4bf3, 0x4c26, 0x4c53, 0x4c80, 0x4cad, 0x4cda});
  CHECK(bits<uint16_t>(arange(0.5, 20, 0.7, kBFloat16)) ==
        std::vector<uint16_t>{0x3f00, 0x3f9a, 0x3ff3, 0x4026, 0x4053, 0x4080, 0x4096,
                              0x40ad, 0x40c3, 0x40da, 0x40f0, 0x4103, 0x410e, 0x411a,
                              0x4125, 0x4130, 0x413b, 0x4146, 0x4152, 0x415d, 0x4168,
                              0x4173, 0x417e, 0x4185, 0x418a, 0x4190, 0x4196, 0x419b});
}

TEST_CASE("arange rejects bad ranges with PyTorch's messages", "[ops][factories]") {
  CHECK_THROWS_AS(arange(0, 1, 0), Error);
  CHECK_THROWS_WITH(arange(0, 1, 0), "step must be nonzero");
  CHECK_THROWS_WITH(arange(0, 1, 0.0), "step must be nonzero");
  CHECK_THROWS_WITH(arange(0, 1, 0.0 / 0.0), "step must be nonzero");   // NaN
  CHECK_THROWS_WITH(arange(0, 5, 0.5, kLong), "step must be nonzero");  // 0.5 -> int64 0
  CHECK_THROWS_WITH(arange(1, 0, 1), "upper bound and larger bound inconsistent with step sign");
  CHECK_THROWS_WITH(arange(0, 1, -1), "upper bound and larger bound inconsistent with step sign");
  CHECK_THROWS_WITH(arange(0, 1.0 / 0.0), "unsupported range: 0 -> inf");
  CHECK_THROWS_WITH(arange(-1.0 / 0.0, 0), "unsupported range: -inf -> 0");
  CHECK_THROWS_WITH(arange(0, 1e20), "invalid size, possible overflow?");
  CHECK_THROWS_WITH(arange(0, 1, 1e-30), "invalid size, possible overflow?");
  // int64 bounds whose difference overflows: the wrapped difference is negative.
  CHECK_THROWS_WITH(arange(INT64_MIN, INT64_MAX), "invalid size, possible overflow?");
  // The dtype is checked first, whatever the bounds.
  CHECK_THROWS_WITH(arange(5, kBool), "\"arange_cpu\" not implemented for 'Bool'");
  CHECK_THROWS_WITH(arange(0, 1, 0, kBool), "\"arange_cpu\" not implemented for 'Bool'");
  // Bounds that do not fit the computation type (float for Half) fail Scalar's conversion.
  CHECK_THROWS_WITH(arange(0, 1e40, 1e39, kHalf),
                    Catch::StartsWith("value cannot be converted to type float"));
}

// ======================================= linspace ============================================

TEST_CASE("linspace sizes, dtypes and small cases", "[ops][factories]") {
  CHECK(linspace(0, 1, 0).numel() == 0);
  CHECK(linspace(0, 1, 0).sizes() == Sizes{0});
  CHECK(elements<float>(linspace(0, 1, 1)) == std::vector<float>{0});  // steps = 1 -> [start]
  CHECK(linspace(0, 10, 5).dtype() == kFloat);  // integer bounds still give the default float
  CHECK(elements<int64_t>(linspace(0, 10, 5, kLong)) == std::vector<int64_t>{0, 2, 5, 7, 10});
  CHECK(elements<int64_t>(linspace(0, 10, 4, kLong)) == std::vector<int64_t>{0, 3, 6, 10});
  CHECK(elements<int64_t>(linspace(10, 0, 4, kLong)) == std::vector<int64_t>{10, 6, 3, 0});
  CHECK(elements<int32_t>(linspace(0.5, 1, 1, kInt)) == std::vector<int32_t>{0});
  // steps 0 and 1 never reach the kernel, so bool is fine there, as in PyTorch.
  CHECK(elements<bool>(linspace(0, 1, 1, kBool)) == std::vector<bool>{false});
  CHECK(linspace(0, 1, 0, kBool).numel() == 0);
  // Both endpoints are exact (the second half counts down from end).
  const auto v = elements<float>(linspace(-1.7, 3.1, 37));
  CHECK(v.front() == -1.7f);
  CHECK(v.back() == 3.1f);
}

TEST_CASE("linspace matches torch.linspace bit for bit", "[ops][factories]") {
  CHECK(bits<uint32_t>(linspace(0, 1, 20)) ==
        bits_of<float, uint32_t>({0x0p+0f,        0x1.af286cp-5f, 0x1.af286cp-4f, 0x1.435e5p-3f,
                                  0x1.af286cp-3f, 0x1.0d7944p-2f, 0x1.435e5p-2f,  0x1.79435ep-2f,
                                  0x1.af286cp-2f, 0x1.e50d7ap-2f, 0x1.0d7944p-1f, 0x1.286bcap-1f,
                                  0x1.435e5p-1f,  0x1.5e50d8p-1f, 0x1.79435ep-1f, 0x1.9435e4p-1f,
                                  0x1.af286cp-1f, 0x1.ca1af2p-1f, 0x1.e50d7ap-1f, 0x1p+0f}));
  CHECK(bits<uint32_t>(linspace(-1.7, 3.1, 37)) ==
        bits_of<float, uint32_t>(
            {-0x1.b33334p+0f, -0x1.911112p+0f, -0x1.6eeefp+0f,  -0x1.4cccccp+0f, -0x1.2aaaacp+0f,
             -0x1.088888p+0f, -0x1.ccccccp-1f, -0x1.888888p-1f, -0x1.444444p-1f, -0x1p-1f,
             -0x1.777776p-2f, -0x1.ddddd8p-3f, -0x1.99999p-4f,  0x1.11112p-5f,   0x1.55556p-3f,
             0x1.333338p-2f,  0x1.bbbbcp-2f,   0x1.222224p-1f,  0x1.666668p-1f,  0x1.aaaaaep-1f,
             0x1.eeeef2p-1f,  0x1.19999cp+0f,  0x1.3bbbbep+0f,  0x1.5dddep+0f,   0x1.7ffffcp+0f,
             0x1.a2221ep+0f,  0x1.c4444p+0f,   0x1.e66664p+0f,  0x1.044442p+1f,  0x1.155554p+1f,
             0x1.266664p+1f,  0x1.377776p+1f,  0x1.488888p+1f,  0x1.599998p+1f,  0x1.6aaaaap+1f,
             0x1.7bbbbap+1f,  0x1.8cccccp+1f}));
  CHECK(bits<uint64_t>(linspace(-1.7, 3.1, 37, kDouble)) ==
        bits_of<double, uint64_t>({-0x1.b333333333333p+0,
                                   -0x1.9111111111111p+0,
                                   -0x1.6eeeeeeeeeeefp+0,
                                   -0x1.4ccccccccccccp+0,
                                   -0x1.2aaaaaaaaaaaap+0,
                                   -0x1.0888888888888p+0,
                                   -0x1.cccccccccccccp-1,
                                   -0x1.8888888888887p-1,
                                   -0x1.4444444444444p-1,
                                   -0x1p-1,
                                   -0x1.7777777777777p-2,
                                   -0x1.ddddddddddddcp-3,
                                   -0x1.9999999999998p-4,
                                   0x1.1111111111114p-5,
                                   0x1.5555555555556p-3,
                                   0x1.3333333333334p-2,
                                   0x1.bbbbbbbbbbbbcp-2,
                                   0x1.2222222222222p-1,
                                   0x1.6666666666666p-1,
                                   0x1.aaaaaaaaaaaabp-1,
                                   0x1.eeeeeeeeeeefp-1,
                                   0x1.199999999999ap+0,
                                   0x1.3bbbbbbbbbbbcp+0,
                                   0x1.5dddddddddddep+0,
                                   0x1.8p+0,
                                   0x1.a222222222222p+0,
                                   0x1.c444444444444p+0,
                                   0x1.e666666666666p+0,
                                   0x1.0444444444444p+1,
                                   0x1.1555555555555p+1,
                                   0x1.2666666666666p+1,
                                   0x1.3777777777777p+1,
                                   0x1.4888888888889p+1,
                                   0x1.599999999999ap+1,
                                   0x1.6aaaaaaaaaaabp+1,
                                   0x1.7bbbbbbbbbbbcp+1,
                                   0x1.8cccccccccccdp+1}));
  CHECK(bits<uint16_t>(linspace(-1.7, 3.1, 37, kHalf)) ==
        std::vector<uint16_t>{0xbecd, 0xbe44, 0xbdbc, 0xbd34, 0xbcab, 0xbc22, 0xbb34, 0xba23,
                              0xb912, 0xb802, 0xb5e0, 0xb378, 0xae70, 0x2820, 0x3150, 0x34cc,
                              0x36ec, 0x3887, 0x3998, 0x3aa9, 0x3bba, 0x3c66, 0x3cee, 0x3d76,
                              0x3dff, 0x3e87, 0x3f10, 0x3f99, 0x4010, 0x4054, 0x4099, 0x40de,
                              0x4122, 0x4166, 0x41aa, 0x41ef, 0x4233});
  CHECK(bits<uint16_t>(linspace(-1.7, 3.1, 37, kBFloat16)) ==
        std::vector<uint16_t>{0xbfda, 0xbfc9, 0xbfb8, 0xbfa6, 0xbf96, 0xbf84, 0xbf66, 0xbf44,
                              0xbf22, 0xbf00, 0xbebc, 0xbe70, 0xbdc0, 0x3d20, 0x3e30, 0x3e98,
                              0x3ee0, 0x3f12, 0x3f34, 0x3f57, 0x3f79, 0x3f8e, 0x3f9f, 0x3fb0,
                              0x3fc1, 0x3fd2, 0x3fe3, 0x3ff4, 0x4003, 0x400c, 0x4014, 0x401c,
                              0x4024, 0x402c, 0x4035, 0x403d, 0x4046});
  CHECK(elements<int64_t>(linspace(-7, 93, 19, kLong)) ==
        std::vector<int64_t>{-7, -1, 4, 9, 15, 20, 26, 31, 37, 42, 48, 53, 59, 64, 70, 75, 81, 87,
                             93});
  CHECK(elements<int8_t>(linspace(3, -100, 70, kChar)) ==
        std::vector<int8_t>{3,   1,   0,   -1,  -2,  -4,  -5,  -7,  -8,  -10, -11, -13, -14, -16,
                            -17, -19, -20, -22, -23, -25, -26, -28, -29, -31, -32, -34, -35, -37,
                            -38, -40, -41, -43, -44, -45, -46, -48, -49, -51, -52, -54, -55, -57,
                            -58, -60, -61, -63, -64, -66, -67, -69, -70, -72, -73, -75, -76, -78,
                            -79, -81, -82, -84, -85, -87, -88, -90, -92, -94, -95, -97, -98, -100});
}

TEST_CASE("linspace errors", "[ops][factories]") {
  CHECK_THROWS_WITH(linspace(0, 1, -1), "number of steps must be non-negative");
  CHECK_THROWS_WITH(linspace(0, 1, -1, kBool), "number of steps must be non-negative");
  CHECK_THROWS_WITH(linspace(0, 1, 2, kBool), "\"linspace_cpu\" not implemented for 'Bool'");
  CHECK_THROWS_WITH(linspace(0, 300, 3, kByte),
                    Catch::StartsWith("value cannot be converted to type uint8"));
  CHECK_THROWS_WITH(linspace(0, 1e40, 3),
                    Catch::StartsWith("value cannot be converted to type float"));
}

// ========================================== eye ==============================================

TEST_CASE("eye in every dtype and shape", "[ops][factories]") {
  Tensor e = eye(3, 2, kLong);
  CHECK(e.sizes() == Sizes{3, 2});
  CHECK(e.strides() == Sizes{2, 1});
  CHECK(elements<int64_t>(e) == std::vector<int64_t>{1, 0, 0, 1, 0, 0});
  CHECK(elements<bool>(eye(2, 3, kBool)) ==
        std::vector<bool>{true, false, false, false, true, false});
  CHECK(elements<Half>(eye(2, kHalf))[3] == Half(1.0f));
  CHECK(eye(0).sizes() == Sizes{0, 0});
  CHECK(eye(3, 0).sizes() == Sizes{3, 0});
  CHECK(eye(0, 3).numel() == 0);
  CHECK(eye(1).numel() == 1);
  CHECK(eye(4).dtype() == kFloat);
}

TEST_CASE("eye rejects negative sizes, n first", "[ops][factories]") {
  CHECK_THROWS_WITH(eye(-1), "n must be greater or equal to 0, got -1");
  CHECK_THROWS_WITH(eye(-1, -2), "n must be greater or equal to 0, got -1");
  CHECK_THROWS_WITH(eye(2, -1), "m must be greater or equal to 0, got -1");
}

// ======================================= *_like ==============================================

TEST_CASE("*_like keeps a dense layout and infers one for any other", "[ops][factories]") {
  struct Case {
    Sizes sizes, strides, expected;
  };
  // Inputs built with empty_strided (the geometry is what matters); each expected stride set was
  // printed by torch.empty_like on the same geometry made with views.
  const std::vector<Case> cases = {
      {{2, 3}, {3, 1}, {3, 1}},                        // contiguous
      {{2, 3}, {1, 2}, {1, 2}},                        // zeros(3, 2).t()
      {{3, 1, 4}, {1, 3, 3}, {1, 3, 3}},               // dense despite the size-1 dim
      {{3, 4}, {2, 6}, {1, 3}},                        // zeros(4, 6).t()[::2]
      {{4, 2, 2}, {1, 12, 8}, {1, 8, 4}},              // permuted then sliced
      {{3, 4}, {1, 0}, {4, 1}},                        // expanded: 0 keeps its place
      {{4, 3}, {1, 0}, {3, 1}},                        // expanded then transposed
      {{2, 4, 3, 3}, {60, 5, 2, 20}, {36, 3, 1, 12}},  // sliced channels-last-ish
      {{2, 3, 4, 5}, {60, 1, 15, 3}, {60, 1, 15, 3}},  // channels last
  };
  for (const Case& c : cases) {
    Tensor in = empty_strided(c.sizes, c.strides);
    CAPTURE(c.sizes, c.strides);
    CHECK(detail::infer_dense_strides(c.sizes, c.strides) == c.expected);
    for (Tensor out : {empty_like(in), zeros_like(in), ones_like(in, kInt), full_like(in, 2)}) {
      CHECK(out.sizes() == c.sizes);
      CHECK(out.strides() == c.expected);
      CHECK(out.is_non_overlapping_and_dense());
      CHECK(out.storage_offset() == 0);
    }
  }
  CHECK(detail::infer_dense_strides({}, {}).empty());
  CHECK(detail::infer_dense_strides({5}, {7}) == Sizes{1});
}

TEST_CASE("*_like memory formats, dtype and device overrides, values", "[ops][factories]") {
  Tensor nhwc = empty({2, 3, 4, 5}, MemoryFormat::ChannelsLast);
  CHECK(zeros_like(nhwc).strides() == Sizes{60, 1, 15, 3});
  CHECK(zeros_like(nhwc, MemoryFormat::Contiguous).strides() == Sizes{60, 20, 5, 1});
  Tensor nchw = empty({2, 3, 4, 5});
  CHECK(zeros_like(nchw, {}, MemoryFormat::ChannelsLast).strides() == Sizes{60, 1, 15, 3});
  CHECK(zeros_like(nchw, MemoryFormat::Preserve).strides() == Sizes{60, 20, 5, 1});
  CHECK_THROWS_WITH(zeros_like(empty({2, 3}), MemoryFormat::ChannelsLast),
                    "required rank 4 tensor to use channels_last format");
  CHECK_THROWS_WITH(empty_like(nchw, MemoryFormat::Contiguous, MemoryFormat::Contiguous),
                    "Cannot set memory_format both in TensorOptions and explicit argument; please "
                    "delete the redundant setter.");

  Tensor i = empty({2}, kInt);
  CHECK(empty_like(i).dtype() == kInt);
  CHECK(zeros_like(i, kDouble).dtype() == kDouble);
  CHECK(ones_like(i).device() == Device(kCPU));
  // full_like keeps the dtype; it does not infer it from the value (2.7 -> int 2, true -> 1.0).
  CHECK(elements<int32_t>(full_like(i, 2.7)) == std::vector<int32_t>{2, 2});
  CHECK(elements<float>(full_like(zeros({2}), true)) == std::vector<float>{1, 1});
  CHECK_THROWS_WITH(full_like(empty({2}, kByte), 300),
                    Catch::StartsWith("value cannot be converted to type uint8"));
  // Every element of a permuted result is written, wherever it lives.
  Tensor p = ones_like(empty_strided({2, 3, 4}, {1, 8, 2}), kShort);
  CHECK(elements<int16_t>(p) == std::vector<int16_t>(24, 1));
  CHECK(zeros_like(empty({0, 3})).sizes() == Sizes{0, 3});
  CHECK_THROWS_WITH(empty_like(Tensor()), Catch::EndsWith("called on an undefined Tensor"));
}

// ======================================= tensor() ============================================

TEST_CASE("tensor() dtype rules for each C++ element type", "[ops][factories]") {
  CHECK(tensor({1, 2}).dtype() == kLong);
  CHECK(tensor({1L, 2L}).dtype() == kLong);
  CHECK(tensor({1LL, 2LL}).dtype() == kLong);
  CHECK(tensor({1u, 2u}).dtype() == kLong);
  CHECK(tensor({1.0f, 2.0f}).dtype() == kFloat);
  CHECK(tensor({1.0, 2.0}).dtype() == kFloat);  // floats map to the default dtype
  CHECK(tensor({true, false}).dtype() == kBool);
  CHECK(tensor({int8_t{1}, int8_t{2}}).dtype() == kChar);
  CHECK(tensor({uint8_t{1}, uint8_t{2}}).dtype() == kByte);
  CHECK(tensor({int16_t{1}, int16_t{2}}).dtype() == kShort);
  CHECK(tensor({Half(1.0f), Half(2.0f)}).dtype() == kHalf);
  CHECK(tensor({BFloat16(1.0f)}).dtype() == kBFloat16);
  // Mixed leaves promote, as torch.tensor([1, 2.5]) and torch.tensor([True, 2]) do.
  CHECK(tensor({1, 2.5}).dtype() == kFloat);
  CHECK(elements<float>(tensor({1, 2.5})) == std::vector<float>{1, 2.5f});
  CHECK(tensor({true, 2}).dtype() == kLong);
  CHECK(tensor({int16_t{1}, 2}).dtype() == kLong);
  CHECK(tensor({Half(1.0f), 2.0}).dtype() == kFloat);
  // An explicit dtype forces the conversion.
  Tensor d = tensor({1, 2}, kDouble);
  CHECK(d.dtype() == kDouble);
  CHECK(elements<double>(d) == std::vector<double>{1, 2});
  CHECK(elements<int64_t>(tensor({1.5, -2.5}, kLong)) == std::vector<int64_t>{1, -2});
  CHECK_THROWS_WITH(tensor({300}, kByte), Catch::StartsWith("value cannot be converted to type"));
}

TEST_CASE("tensor() from nested lists", "[ops][factories]") {
  Tensor t2 = tensor({{1, 2, 3}, {4, 5, 6}});
  CHECK(t2.sizes() == Sizes{2, 3});
  CHECK(t2.strides() == Sizes{3, 1});
  CHECK(elements<int64_t>(t2) == std::vector<int64_t>{1, 2, 3, 4, 5, 6});
  Tensor t3 = tensor({{{1., 2.}, {3., 4.}}, {{5., 6.}, {7., 8.}}});
  CHECK(t3.sizes() == Sizes{2, 2, 2});
  CHECK(elements<float>(t3) == std::vector<float>{1, 2, 3, 4, 5, 6, 7, 8});
  Tensor one = tensor({{7}});
  CHECK(one.sizes() == Sizes{1, 1});
  // A bare number is a 0-d tensor.
  Tensor s = tensor(3.5);
  CHECK(s.dim() == 0);
  CHECK(s.dtype() == kFloat);
  CHECK(elements<float>(s) == std::vector<float>{3.5f});
  // Empty lists: float32, as torch.tensor([]) and torch.tensor([[], []]).
  CHECK(tensor({}).sizes() == Sizes{0});
  CHECK(tensor({}).dtype() == kFloat);
  CHECK(tensor({{}, {}}).sizes() == Sizes{2, 0});
  CHECK(tensor({{}}).sizes() == Sizes{1, 0});
  CHECK(tensor({}, kLong).dtype() == kLong);
  // Through the strides of a non-contiguous allocation too.
  Tensor cl = tensor({{{{1., 2.}}, {{3., 4.}}}}, MemoryFormat::ChannelsLast);
  CHECK(cl.sizes() == Sizes{1, 2, 1, 2});
  CHECK(cl.strides() == Sizes{4, 1, 4, 2});
  CHECK(elements<float>(cl) == std::vector<float>{1, 2, 3, 4});
}

TEST_CASE("tensor() rejects ragged lists with libtorch's messages", "[ops][factories]") {
  // libtorch checks each list as its braces are built: inner lists first, then each list's
  // elements against its first, printing both (expected strings from libtorch 1.13's C++ API).
  CHECK_THROWS_AS(tensor({{5, 6}, {7}}), Error);
  CHECK_THROWS_WITH(tensor({{5, 6}, {7}}),
                    "Expected all sub-lists to have sizes: 2 (e.g. {5, 6}), but got sub-list {7} "
                    "with sizes: 1");
  CHECK_THROWS_WITH(tensor({{1, 2}, {5, 6, 7}}),
                    "Expected all sub-lists to have sizes: 2 (e.g. {1, 2}), but got sub-list "
                    "{5, 6, 7} with sizes: 3");
  CHECK_THROWS_WITH(tensor({{1, 2}, {3, 4}, {5}}),
                    "Expected all sub-lists to have sizes: 2 (e.g. {1, 2}), but got sub-list {5} "
                    "with sizes: 1");
  // An inner list fails before the outer one compares its elements.
  CHECK_THROWS_WITH(tensor({{{1, 2}, {3, 4}}, {{5, 6}, {7}}}),
                    "Expected all sub-lists to have sizes: 2 (e.g. {5, 6}), but got sub-list {7} "
                    "with sizes: 1");
  CHECK_THROWS_WITH(tensor({{{1, 2}, {3, 4}}, {{5, 6}}}),
                    "Expected all sub-lists to have sizes: 2 2 (e.g. {{1, 2}, {3, 4}}), but got "
                    "sub-list {{5, 6}} with sizes: 1 2");
  CHECK_THROWS_WITH(tensor({{{1, 2}}, {{3, 4}, {5, 6}}}),
                    "Expected all sub-lists to have sizes: 1 2 (e.g. {{1, 2}}), but got sub-list "
                    "{{3, 4}, {5, 6}} with sizes: 2 2");
  CHECK_THROWS_WITH(tensor({{1, 2}, {}}),
                    "Expected all sub-lists to have sizes: 2 (e.g. {1, 2}), but got sub-list {} "
                    "with sizes: 0");
  CHECK_THROWS_WITH(tensor({{}, {1}}),
                    "Expected all sub-lists to have sizes: 0 (e.g. {}), but got sub-list {1} "
                    "with sizes: 1");
  // A number where a list belongs, and the reverse: sizes that print as nothing.
  CHECK_THROWS_WITH(tensor({{1, 2}, 3}),
                    "Expected all sub-lists to have sizes: 2 (e.g. {1, 2}), but got sub-list 3 "
                    "with sizes: ");
  CHECK_THROWS_WITH(tensor({1, {2, 3}}),
                    "Expected all sub-lists to have sizes:  (e.g. 1), but got sub-list {2, 3} "
                    "with sizes: 2");
  CHECK_THROWS_WITH(tensor({{{1, 2}}, {3}}),
                    "Expected all sub-lists to have sizes: 1 2 (e.g. {{1, 2}}), but got sub-list "
                    "{3} with sizes: 1");
  // Leaves print as their C++ type does: floating point with 6 significant digits, bool as 1/0,
  // int8_t and uint8_t as characters, Half as its float value.
  CHECK_THROWS_WITH(tensor({{0.1, 1e20}, {1e-10}}),
                    "Expected all sub-lists to have sizes: 2 (e.g. {0.1, 1e+20}), but got sub-list "
                    "{1e-10} with sizes: 1");
  CHECK_THROWS_WITH(tensor({{1.5f, 2.f}, {0.333333333f}}),
                    "Expected all sub-lists to have sizes: 2 (e.g. {1.5, 2}), but got sub-list "
                    "{0.333333} with sizes: 1");
  CHECK_THROWS_WITH(tensor({{true, false}, {true}}),
                    "Expected all sub-lists to have sizes: 2 (e.g. {1, 0}), but got sub-list {1} "
                    "with sizes: 1");
  CHECK_THROWS_WITH(tensor({{int8_t{65}, int8_t{66}}, {int8_t{67}}}),
                    "Expected all sub-lists to have sizes: 2 (e.g. {A, B}), but got sub-list {C} "
                    "with sizes: 1");
  CHECK_THROWS_WITH(tensor({{uint8_t{97}}, {}}),
                    "Expected all sub-lists to have sizes: 1 (e.g. {a}), but got sub-list {} "
                    "with sizes: 0");
  CHECK_THROWS_WITH(tensor({{int16_t{65}}, {}}),
                    "Expected all sub-lists to have sizes: 1 (e.g. {65}), but got sub-list {} "
                    "with sizes: 0");
  CHECK_THROWS_WITH(tensor({{Half(1.5), Half(2)}, {Half(3)}}),
                    "Expected all sub-lists to have sizes: 2 (e.g. {1.5, 2}), but got sub-list {3} "
                    "with sizes: 1");
  // A double beyond float's range prints as itself.
  CHECK_THROWS_WITH(tensor({{1e300}, {}}),
                    "Expected all sub-lists to have sizes: 1 (e.g. {1e+300}), but got sub-list {} "
                    "with sizes: 0");
}

TEST_CASE("tensor() from std::vector and ArrayRef", "[ops][factories]") {
  const std::vector<double> dv{1.5, 2.5, 3.5};
  Tensor a = tensor(dv);
  CHECK(a.dtype() == kFloat);  // libtorch: vector<double> -> the default dtype
  CHECK(a.sizes() == Sizes{3});
  CHECK(elements<float>(a) == std::vector<float>{1.5f, 2.5f, 3.5f});
  CHECK(tensor(std::vector<int>{1, 2}).dtype() == kLong);
  CHECK(tensor(std::vector<int16_t>{1, 2}).dtype() == kShort);
  CHECK(tensor(dv, kDouble).dtype() == kDouble);
  CHECK(elements<double>(tensor(dv, kDouble)) == dv);
  const std::array<int64_t, 4> arr{4, 3, 2, 1};
  Tensor b = tensor(ArrayRef<int64_t>(arr));
  CHECK(elements<int64_t>(b) == std::vector<int64_t>{4, 3, 2, 1});
  Tensor c = tensor(std::vector<bool>{true, false, true});
  CHECK(c.dtype() == kBool);
  CHECK(elements<bool>(c) == std::vector<bool>{true, false, true});
  CHECK(tensor(std::vector<float>{}).sizes() == Sizes{0});
  CHECK_THROWS_WITH(tensor(std::vector<int>{1, 256}, kByte),
                    Catch::StartsWith("value cannot be converted to type"));
}

// ===================================== devices ===============================================

TEST_CASE("factories on a device without kernels raise typed errors", "[ops][factories]") {
  // Without a CUDA build the allocator lookup fails first, naming the macro.
  CHECK_THROWS_WITH(zeros({2}, Device("cuda")), Catch::Contains("TENSORPLAY_USE_CUDA"));
  CHECK_THROWS_WITH(arange(3, Device("cuda")), Catch::Contains("TENSORPLAY_USE_CUDA"));
  // With an allocator for the device, writing the elements needs that device's fill_ or copy_
  // kernel (arange, eye, tensor... make their values on the host and copy them over), which a
  // build without CUDA does not have.
  FakeDeviceAllocator fake;
  setAllocator(kCUDA, &fake);
  CHECK(empty({2}, Device("cuda:0")).device() == Device(kCUDA, 0));  // allocation itself is fine
  CHECK_THROWS_AS(zeros({2}, Device("cuda:0")), NotImplementedError);
  CHECK_THROWS_WITH(ones({2}, Device("cuda:0")),
                    "Could not run 'aten::fill_.Scalar' with arguments from the 'CUDA' backend. TensorPlay was "
                    "compiled without it: define TENSORPLAY_USE_CUDA (link the matching "
                    "tensorplay:: target)");
  CHECK_THROWS_AS(full({2}, 1, Device("cuda:0")), NotImplementedError);
  CHECK_THROWS_AS(arange(3, Device("cuda:0")), NotImplementedError);
  CHECK_THROWS_AS(linspace(0, 1, 3, Device("cuda:0")), NotImplementedError);
  CHECK_THROWS_AS(eye(2, Device("cuda:0")), NotImplementedError);
  CHECK_THROWS_AS(tensor({1, 2}, Device("cuda:0")), NotImplementedError);
  CHECK_THROWS_AS(tensor(std::vector<int>{1}, Device("cuda:0")), NotImplementedError);
  CHECK_THROWS_AS(scalar_tensor(1, Device("cuda:0")), NotImplementedError);
  CHECK_THROWS_AS(zeros_like(empty({2}), Device("cuda:0")), NotImplementedError);
  setAllocator(kCUDA, nullptr);
}

// Overflow, two cases per factory: sizes whose product overflows int64, and sizes whose numel
// fits (2^61) but whose float64 byte count does not. Messages from torch 1.13.
namespace {
constexpr int64_t k29 = int64_t{1} << 29, k32 = int64_t{1} << 32, k61 = int64_t{1} << 61;
const std::vector<int64_t> kBig{2, 4, k29, k29};
const std::vector<int64_t> kHuge{k32, k32};
const char* const kBigMsg =
    "Storage size calculation overflowed with sizes=[2, 4, 536870912, 536870912]";
const char* const kHugeMsg =
    "Storage size calculation overflowed with sizes=[4294967296, 4294967296]";
}  // namespace

TEST_CASE("factories refuse element and byte counts beyond int64", "[ops][factories]") {
  CHECK_THROWS_MATCHES(zeros(kHuge), Error, Catch::Message(kHugeMsg));
  CHECK_THROWS_MATCHES(zeros(kBig, kDouble), Error, Catch::Message(kBigMsg));
  CHECK_THROWS_MATCHES(ones(kHuge), Error, Catch::Message(kHugeMsg));
  CHECK_THROWS_MATCHES(ones(kBig, kDouble), Error, Catch::Message(kBigMsg));
  CHECK_THROWS_MATCHES(full(kHuge, 1.5), Error, Catch::Message(kHugeMsg));
  CHECK_THROWS_MATCHES(full(kBig, 1.5, kDouble), Error, Catch::Message(kBigMsg));

  // Counts: arange's beyond int64 is its own error; within it, the bytes are checked.
  CHECK_THROWS_MATCHES(arange(0, 1e19), Error, Catch::Message("invalid size, possible overflow?"));
  CHECK_THROWS_MATCHES(
      arange(0, k61, 1, kDouble), Error,
      Catch::Message("Storage size calculation overflowed with sizes=[2305843009213693952]"));
  CHECK_THROWS_MATCHES(
      linspace(0, 1, k61, kDouble), Error,
      Catch::Message("Storage size calculation overflowed with sizes=[2305843009213693952]"));
  CHECK_THROWS_MATCHES(linspace(0, 1, INT64_MAX, kDouble), Error,
                       Catch::Message("Storage size calculation overflowed with "
                                      "sizes=[9223372036854775807]"));

  // eye resizes its result in PyTorch: numel is checked before the bytes.
  CHECK_THROWS_MATCHES(eye(k32, k32), Error,
                       Catch::Message("numel: integer multiplication overflow"));
  CHECK_THROWS_MATCHES(eye(int64_t{1} << 31, int64_t{1} << 31, kDouble), Error,
                       Catch::Message("Storage size calculation overflowed with "
                                      "sizes=[2147483648, 2147483648]"));
}

TEST_CASE("*_like of a tensor too large to hold densely", "[ops][factories]") {
  // 2^61 float64 elements repeated over one (stride 0): no dense tensor of them fits.
  const Tensor big = empty_strided({k61}, {0}, kDouble);
  const char* msg =
      "Storage size calculation overflowed with sizes=[2305843009213693952] and strides=[1]";
  CHECK_THROWS_MATCHES(empty_like(big), Error, Catch::Message(msg));
  CHECK_THROWS_MATCHES(zeros_like(big), Error, Catch::Message(msg));
  CHECK_THROWS_MATCHES(ones_like(big), Error, Catch::Message(msg));
  CHECK_THROWS_MATCHES(full_like(big, 2), Error, Catch::Message(msg));
  CHECK_THROWS_MATCHES(empty_like(big, {}, MemoryFormat::Contiguous), Error,
                       Catch::Message("Storage size calculation overflowed with "
                                      "sizes=[2305843009213693952]"));
  // (The numel case cannot arise here: no tensor whose numel overflows can be made.)
}

}  // namespace ops_factories_test
