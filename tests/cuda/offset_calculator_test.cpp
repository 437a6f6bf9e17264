// The CUDA kernels' host-side index math (backends/cuda/offset_calculator.hpp), on the CPU: the
// offset calculator against a plain coordinate-by-coordinate reference and against the CPU
// TensorIterator's own addressing, the 32-bit magic division, the 32/64-bit choice and the
// launch shape. The calculator's get() is the very code the kernels run (shared source), so
// this proves the device's addressing without a device.
#include <catch2/catch.hpp>

#include <tensorplay/backends/cuda/offset_calculator.hpp>
#include <tensorplay/tensorplay.hpp>

#include <array>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace cuda_offset_calculator_test {

namespace tp = tensorplay;
namespace tc = tensorplay::cuda;
using Catch::Matchers::Contains;

// Operand k's byte offset of element `linear` (dimension 0 fastest), by plain division.
int64_t reference_offset(const std::vector<int64_t>& sizes, const std::vector<int64_t>& strides,
                         int64_t linear) {
  int64_t offset = 0;
  for (std::size_t d = 0; d < sizes.size(); ++d) {
    offset += (linear % sizes[d]) * strides[d];
    linear /= sizes[d];
  }
  return offset;
}

// Every element's offsets from both index widths against the reference.
template <int N>
void check_all(const std::vector<int64_t>& sizes,
               const std::array<std::vector<int64_t>, N>& strides) {
  std::array<tp::IntArrayRef, N> refs;
  for (std::size_t k = 0; k < std::size_t(N); ++k) refs[k] = strides[k];
  const auto c32 = tc::make_offset_calculator<N, unsigned>(sizes, refs);
  const auto c64 = tc::make_offset_calculator<N, unsigned long long>(sizes, refs);
  int64_t numel = 1;
  for (int64_t s : sizes) numel *= s;
  for (int64_t i = 0; i < numel; ++i) {
    const auto o32 = c32.get(static_cast<unsigned>(i));
    const auto o64 = c64.get(static_cast<unsigned long long>(i));
    for (std::size_t k = 0; k < std::size_t(N); ++k) {
      const int64_t want = reference_offset(sizes, strides[k], i);
      CHECK(int64_t(o32.v[k]) == want);
      CHECK(int64_t(o64.v[k]) == want);
    }
  }
}

TEST_CASE("offset calculator: contiguous, transposed and broadcast operands", "[cuda][index]") {
  // [3, 4, 5] float32 (dimension 0 fastest): contiguous output, a transposed input, and an
  // input broadcast along two dimensions (stride 0).
  check_all<3>({5, 4, 3}, {{{4, 20, 80}, {48, 12, 4}, {4, 0, 0}}});
  // One (coalesced) dimension: the outermost-dimension path alone.
  check_all<2>({1000}, {{{8}, {2}}});
  // Size-1 dimensions and a 0-d space (numel 1, no dimensions).
  check_all<2>({1, 7, 1}, {{{4, 4, 4}, {0, 16, 0}}});
  check_all<1>({}, {{{}}});
  const auto c = tc::make_offset_calculator<1, unsigned>({}, {tp::IntArrayRef{}});
  CHECK(c.dims == 0);
  CHECK(c.get(0).v[0] == 0);
}

TEST_CASE("offset calculator: the maximum number of dimensions", "[cuda][index]") {
  std::vector<int64_t> sizes(tc::kMaxDims, 1), s0(tc::kMaxDims), s1(tc::kMaxDims, 0);
  sizes[0] = 3;
  sizes[7] = 2;
  sizes[24] = 2;
  int64_t step = 1;
  for (int d = 0; d < tc::kMaxDims; ++d) {
    s0[std::size_t(d)] = step;
    step *= sizes[std::size_t(d)];
  }
  s1[7] = 5;
  check_all<2>(sizes, {s0, s1});
  sizes.push_back(1);
  s0.push_back(step);
  s1.push_back(0);
  const std::array<tp::IntArrayRef, 2> refs{s0, s1};
  CHECK_THROWS_WITH((tc::make_offset_calculator<2, unsigned>(sizes, refs)),
                    "tensor has too many (>25) dims");
  CHECK_THROWS_WITH((tc::make_offset_calculator<2, unsigned long long>(sizes, refs)),
                    "tensor has too many (>25) dims");
}

// The calculator built from a CPU TensorIterator, against the iterator's own element addresses
// (its serial walk visits elements in the same linear order, dimension 0 fastest).
template <int N, class Index>
void check_against_iterator(const tp::TensorIterator& iter) {
  const auto calc = tc::make_offset_calculator<N, Index>(iter);
  int64_t linear = 0;
  iter.serial_for_each(
      [&](char** data, const int64_t* strides, int64_t n) {
        for (int64_t j = 0; j < n; ++j, ++linear) {
          const auto o = calc.get(static_cast<Index>(linear));
          for (int k = 0; k < N; ++k) {
            CHECK(iter.data_ptr(k) + o.v[k] == data[k] + j * strides[k]);
          }
        }
      },
      0, iter.numel());
  CHECK(linear == iter.numel());
}

TEST_CASE("offset calculator: from TensorIterators over views (sliced, transposed, expanded)",
          "[cuda][index]") {
  const tp::Tensor base =
      tp::arange(0, 4 * 6 * 5, tp::TensorOptions().dtype(tp::kDouble)).reshape({4, 6, 5});
  // A slice with a storage offset and a step, a transposed view, an expanded row.
  const tp::Tensor sliced = base.slice(1, 1, 5, 2).slice(2, 1, 4);  // [4, 2, 3]
  CHECK(sliced.storage_offset() > 0);
  const tp::Tensor transposed = base.slice(2, 0, 4).transpose(0, 2).slice(2, 1, 3);
  const tp::Tensor row = tp::arange(0, 3, tp::TensorOptions().dtype(tp::kDouble));
  SECTION("binary: sliced + expanded row") {
    const tp::TensorIterator iter = tp::TensorIteratorConfig()
                                        .add_output(tp::Tensor())
                                        .add_input(sliced)
                                        .add_input(row)
                                        .build();
    check_against_iterator<3, unsigned>(iter);
    check_against_iterator<3, unsigned long long>(iter);
  }
  SECTION("a transposed, sliced output written in place") {
    const tp::Tensor out = tp::zeros({4, 6, 5}, tp::TensorOptions().dtype(tp::kDouble))
                               .slice(2, 0, 4)
                               .transpose(0, 2)
                               .slice(2, 1, 3);
    const tp::TensorIterator iter =
        tp::TensorIteratorConfig().add_output(out).add_input(transposed).add_input(out).build();
    REQUIRE(iter.ndim() >= 2);
    check_against_iterator<3, unsigned>(iter);
    check_against_iterator<3, unsigned long long>(iter);
  }
  SECTION("where: three inputs of three dtypes, one broadcast") {
    const tp::Tensor cond = tp::ones({4, 1, 3}, tp::TensorOptions().dtype(tp::kBool));
    const tp::TensorIterator iter = tp::TensorIteratorConfig()
                                        .add_output(tp::Tensor())
                                        .add_input(cond)
                                        .add_input(sliced)
                                        .add_input(row)
                                        .check_all_same_dtype(false)
                                        .build();
    check_against_iterator<4, unsigned>(iter);
  }
  SECTION("the iterator's operand count must be the calculator's") {
    const tp::TensorIterator iter =
        tp::TensorIteratorConfig().add_output(tp::Tensor()).add_input(sliced).build();
    CHECK_THROWS_WITH((tc::make_offset_calculator<3, unsigned>(iter)),
                      Contains("an offset calculator for 3 operands over an iterator with 2"));
  }
}

TEST_CASE("offset calculator: 32-bit magic division is exact below 2^31", "[cuda][index]") {
  std::vector<int64_t> divisors;
  for (int64_t d = 1; d <= 300; ++d) divisors.push_back(d);
  for (int s = 9; s <= 31; ++s) {
    const int64_t p = int64_t{1} << s;
    for (int64_t d : {p - 3, p - 1, p, p + 1, p + 7}) {
      if (d <= std::numeric_limits<int32_t>::max()) divisors.push_back(d);
    }
  }
  divisors.push_back(641);
  divisors.push_back(6700417);
  divisors.push_back(1000000007);
  const int64_t kMax = std::numeric_limits<int32_t>::max();
  for (const int64_t d : divisors) {
    const tc::IntDivider<unsigned> div = tc::detail::make_int_divider_u32(d);
    std::vector<int64_t> ns = {0,     1,    d - 1,    d,        d + 1,    2 * d - 1,
                               2 * d, kMax, kMax - 1, kMax - d, kMax / 2, 12345678};
    for (uint64_t i = 1; i < 64; ++i) {
      ns.push_back(static_cast<int64_t>((i * 0x9e3779b97f4a7c15ull) >> 33) & kMax);  // scattered
    }
    for (const int64_t n : ns) {
      if (n < 0 || n > kMax) continue;
      const tc::DivMod<unsigned> dm = div.divmod(static_cast<unsigned>(n));
      if (dm.div != n / d || dm.mod != n % d) {
        FAIL_CHECK("magic division of " << n << " by " << d << " gave " << dm.div << " rem "
                                        << dm.mod);
      }
    }
  }
  CHECK_THROWS_WITH(tc::detail::make_int_divider_u32(int64_t{1} << 31),
                    Contains("needs a size below 2^31"));
  CHECK_THROWS_WITH(tc::detail::make_int_divider_u32(-1), Contains("needs a size below 2^31"));
  // A zero size (an empty space) builds; no element is ever asked for.
  CHECK(tc::detail::make_int_divider_u32(0).divisor == 0);
}

TEST_CASE("can_use_32bit_indexing follows PyTorch's rule", "[cuda][index]") {
  const int64_t kMax = std::numeric_limits<int32_t>::max();
  using Refs = std::vector<tp::IntArrayRef>;
  // The element count.
  const std::vector<int64_t> one{1};
  CHECK(tc::can_use_32bit_indexing({kMax}, Refs{tp::IntArrayRef(one)}));
  CHECK_FALSE(tc::can_use_32bit_indexing({kMax + 1}, Refs{tp::IntArrayRef(one)}));
  // The furthest byte (plus one) of every operand: 1 + (size - 1) * stride.
  const std::vector<int64_t> small{1}, big{2};
  const int64_t n = (kMax - 1) / 2 + 1;  // 1 + (n - 1) * 2 == kMax
  CHECK(tc::can_use_32bit_indexing({n}, Refs{small, big}));
  CHECK_FALSE(tc::can_use_32bit_indexing({n + 1}, Refs{small, big}));
  // A broadcast operand reaches nothing along its zero strides.
  const std::vector<int64_t> contiguous{8, int64_t(8) << 20}, broadcast{0, 0};
  CHECK_FALSE(tc::can_use_32bit_indexing({1 << 20, 1 << 9}, Refs{contiguous, broadcast}));
  CHECK(tc::can_use_32bit_indexing({1 << 20, 1 << 7}, Refs{broadcast, broadcast}));
  // Empty: always.
  CHECK(tc::can_use_32bit_indexing({0, int64_t{1} << 40}, Refs{std::vector<int64_t>{8, 8}}));
}

TEST_CASE("offset calculator: spaces beyond 32 bits take 64-bit offsets", "[cuda][index]") {
  // 2^33 float64 elements in two dimensions, plus a broadcast operand: never touched, only
  // indexed (the calculator is arithmetic).
  const std::vector<int64_t> sizes{int64_t{1} << 20, int64_t{1} << 13};
  const std::vector<int64_t> out{8, int64_t{8} << 20}, bcast{0, 8};
  const std::array<tp::IntArrayRef, 2> refs{out, bcast};
  using Refs = std::vector<tp::IntArrayRef>;
  CHECK_FALSE(tc::can_use_32bit_indexing(sizes, Refs{out, bcast}));
  CHECK_THROWS_WITH((tc::make_offset_calculator<2, unsigned>(sizes, refs)),
                    Contains("needs 64-bit indexing"));
  const auto calc = tc::make_offset_calculator<2, unsigned long long>(sizes, refs);
  const int64_t numel = sizes[0] * sizes[1];
  for (const int64_t i : {int64_t{0}, int64_t{1} << 20, (int64_t{1} << 32) + 5, numel - 1}) {
    const auto o = calc.get(static_cast<unsigned long long>(i));
    CHECK(int64_t(o.v[0]) == reference_offset(sizes, out, i));
    CHECK(int64_t(o.v[1]) == reference_offset(sizes, bcast, i));
  }
  CHECK(calc.get(static_cast<unsigned long long>(numel - 1)).v[0] == (uint64_t(numel) - 1) * 8);
  const tc::LaunchShape shape = tc::pointwise_launch_shape(numel, false);
  CHECK_FALSE(shape.index32);
  CHECK(shape.grid == uint64_t(numel) / 512);
}

TEST_CASE("offset calculator: zero-size spaces", "[cuda][index]") {
  const std::vector<int64_t> sizes{3, 0, 4}, st{4, 12, 0};
  const std::array<tp::IntArrayRef, 1> refs{st};
  using Refs = std::vector<tp::IntArrayRef>;
  CHECK(tc::can_use_32bit_indexing(sizes, Refs{st}));
  const auto calc = tc::make_offset_calculator<1, unsigned>(sizes, refs);
  CHECK(calc.dims == 3);
  const tc::LaunchShape shape = tc::pointwise_launch_shape(0, true);
  CHECK(shape.grid == 0);  // nothing to launch
  // From an iterator over an empty tensor.
  const tp::TensorIterator iter =
      tp::TensorIteratorConfig().add_output(tp::Tensor()).add_input(tp::ones({2, 0, 3})).build();
  CHECK(tc::pointwise_launch_shape(iter).grid == 0);
  CHECK(tc::pointwise_launch_shape(iter).index32);
  (void)tc::make_offset_calculator<2, unsigned>(iter);
}

TEST_CASE("offset calculator: argument checks", "[cuda][index]") {
  const std::vector<int64_t> sizes{4, 3}, good{4, 16}, one{4};
  SECTION("a negative size") {
    const std::vector<int64_t> bad{4, -3};
    CHECK_THROWS_WITH((tc::make_offset_calculator<1, unsigned>(bad, {good})),
                      Contains("negative size -3"));
  }
  SECTION("a negative stride") {
    const std::vector<int64_t> bad{4, -16};
    CHECK_THROWS_WITH((tc::make_offset_calculator<1, unsigned long long>(sizes, {bad})),
                      Contains("operand 0 has the negative stride -16"));
  }
  SECTION("strides that do not match the sizes") {
    CHECK_THROWS_WITH((tc::make_offset_calculator<2, unsigned>(sizes, {good, one})),
                      Contains("operand 1 has 1 strides for 2 dimensions"));
  }
  SECTION("an element count beyond int64") {
    const std::vector<int64_t> huge{int64_t{1} << 40, int64_t{1} << 40}, st{1, 1};
    CHECK_THROWS_WITH((tc::make_offset_calculator<1, unsigned long long>(huge, {st})),
                      Contains("number of elements overflows int64"));
  }
  SECTION("offsets beyond int64") {
    const std::vector<int64_t> sz{4, 4}, st{1, int64_t{1} << 62};
    CHECK_THROWS_WITH((tc::make_offset_calculator<1, unsigned long long>(sz, {st})),
                      Contains("operand 0's byte offsets overflow int64"));
  }
}

TEST_CASE("elementwise launch shape", "[cuda][index]") {
  const int64_t kMax = std::numeric_limits<int32_t>::max();
  CHECK(tc::kPointwiseBlockSize == 128);
  CHECK(tc::kPointwiseElementsPerThread == 4);
  CHECK(tc::pointwise_launch_shape(1, true).grid == 1);
  CHECK(tc::pointwise_launch_shape(512, true).grid == 1);
  CHECK(tc::pointwise_launch_shape(513, true).grid == 2);
  const tc::LaunchShape big = tc::pointwise_launch_shape(kMax, true);
  CHECK(big.index32);
  CHECK(big.grid == (uint64_t(kMax) + 511) / 512);
  CHECK(big.block == 128);
  CHECK(big.elements_per_thread == 4);
  // The whole grid's last index stays below 2^32, as the kernel's 32-bit arithmetic needs.
  CHECK(big.grid * big.block * big.elements_per_thread < (uint64_t{1} << 32));
  CHECK_THROWS_WITH(tc::pointwise_launch_shape(kMax + 1, true), Contains("need 64-bit indexing"));
  CHECK_THROWS_WITH(tc::pointwise_launch_shape(-1, false), Contains("a launch over -1 elements"));
  CHECK_THROWS_WITH(tc::pointwise_launch_shape(int64_t{512} << 31, false),
                    Contains("more than a grid holds"));
  CHECK(tc::pointwise_launch_shape((int64_t{512} << 31) - 512, false).grid == tc::kMaxGridX);
  // From an iterator: 32-bit when it fits.
  const tp::TensorIterator iter =
      tp::TensorIteratorConfig().add_output(tp::Tensor()).add_input(tp::ones({3, 1000})).build();
  const tc::LaunchShape s = tc::pointwise_launch_shape(iter);
  CHECK(s.index32);
  CHECK(s.grid == 6);
  CHECK(tc::can_use_32bit_indexing(iter));
}

TEST_CASE("offset calculator: the kernel source carries the same definition", "[cuda][index]") {
  const std::string src = tc::indexing_device_source();
  CHECK_THAT(src, Contains("struct OffsetCalculator"));
  CHECK_THAT(src, Contains("inline constexpr int kMaxDims = 25;"));
  // The layout checks carry this compiler's numbers.
  CHECK_THAT(src, Contains("static_assert(sizeof(OffsetCalculator<4, unsigned long long>) == " +
                           std::to_string(sizeof(tc::OffsetCalculator<4, unsigned long long>))));
}

}  // namespace cuda_offset_calculator_test
