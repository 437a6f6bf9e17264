#include "test_util.hpp"

#include <algorithm>
#include <numeric>
#include <vector>

namespace vulkan_gather_test {

using namespace tensorplay;

namespace {
// The CPU reference: row-major walk over the view.
std::vector<float> gather_cpu(const std::vector<float>& src, const std::vector<std::int64_t>& sizes,
                              const std::vector<std::int64_t>& strides, std::int64_t offset) {
  std::int64_t numel = 1;
  for (auto s : sizes) numel *= s;
  std::vector<float> out(static_cast<std::size_t>(numel));
  std::vector<std::int64_t> idx(sizes.size(), 0);
  for (std::int64_t i = 0; i < numel; ++i) {
    std::int64_t at = offset;
    for (std::size_t d = 0; d < sizes.size(); ++d) at += idx[d] * strides[d];
    out[static_cast<std::size_t>(i)] = src[static_cast<std::size_t>(at)];
    for (std::size_t d = sizes.size(); d-- > 0;) {
      if (++idx[d] < sizes[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}
}  // namespace

TEST_CASE("contiguous_gather materialises random strided views like the CPU", "[vulkan][gather]") {
  TP_REQUIRE_VULKAN();
  auto& gen = tp_vk_test::rng();
  for (int trial = 0; trial < 120; ++trial) {
    const int ndim = static_cast<int>(gen() % 9);  // 0..8
    // A contiguous base, then a view of it: permuted, sliced with steps, some dims expanded.
    std::vector<std::int64_t> base_sizes(ndim);
    for (auto& s : base_sizes) s = 1 + static_cast<std::int64_t>(gen() % (ndim > 5 ? 3 : 6));
    std::vector<std::int64_t> base_strides(ndim);
    std::int64_t base_numel = 1;
    for (int d = ndim - 1; d >= 0; --d) {
      base_strides[d] = base_numel;
      base_numel *= base_sizes[d];
    }
    const std::int64_t pad = static_cast<std::int64_t>(gen() % 50);
    std::int64_t offset = pad;
    std::vector<std::int64_t> sizes(ndim), strides(ndim);
    for (int d = 0; d < ndim; ++d) {
      const std::int64_t step = 1 + static_cast<std::int64_t>(gen() % 2);
      const std::int64_t start = static_cast<std::int64_t>(gen() % base_sizes[d]);
      sizes[d] = (base_sizes[d] - start + step - 1) / step;
      strides[d] = base_strides[d] * step;
      offset += start * base_strides[d];
      if (gen() % 7 == 0) strides[d] = 0;  // expanded (broadcast) dimension
      if (gen() % 11 == 0) sizes[d] = 0;   // an empty view now and then
    }
    std::vector<int> perm(ndim);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), gen);
    std::vector<std::int64_t> psizes(ndim), pstrides(ndim);
    for (int d = 0; d < ndim; ++d) {
      psizes[d] = sizes[perm[d]];
      pstrides[d] = strides[perm[d]];
    }
    CAPTURE(trial, psizes, pstrides, offset);

    std::vector<float> src(static_cast<std::size_t>(pad + base_numel));
    for (auto& v : src)
      v = static_cast<float>(static_cast<std::int32_t>(gen() % 2000001) - 1000000) / 7.0f;
    const std::vector<float> expect = gather_cpu(src, psizes, pstrides, offset);
    DataPtr dsrc = getAllocator(kVulkan)->allocate(src.size() * 4);
    vulkan::copy_host_to_device(src.data(), dsrc, src.size() * 4);
    const std::size_t dst_first = gen() % 3;
    DataPtr ddst = getAllocator(kVulkan)->allocate((expect.size() + dst_first + 1) * 4);
    vulkan::fill_(vulkan::buffer_of(ddst), -1.0f, expect.size() + dst_first + 1);
    vulkan::contiguous_gather(vulkan::buffer_of(dsrc), psizes, pstrides, offset,
                              vulkan::buffer_of(ddst), dst_first);
    std::vector<float> out(expect.size() + dst_first + 1);
    vulkan::copy_device_to_host(ddst, out.data(), out.size() * 4);
    std::vector<float> want(out.size(), -1.0f);
    std::copy(expect.begin(), expect.end(), want.begin() + static_cast<std::ptrdiff_t>(dst_first));
    CHECK(out == want);
  }
}

TEST_CASE("contiguous_gather of a transpose of a large matrix", "[vulkan][gather]") {
  TP_REQUIRE_VULKAN();
  const std::int64_t rows = 1031, cols = 517;
  std::vector<float> src(static_cast<std::size_t>(rows * cols));
  std::iota(src.begin(), src.end(), 0.0f);
  const std::vector<std::int64_t> sizes{cols, rows}, strides{1, cols};
  const std::vector<float> expect = gather_cpu(src, sizes, strides, 0);
  DataPtr dsrc = getAllocator(kVulkan)->allocate(src.size() * 4);
  DataPtr ddst = getAllocator(kVulkan)->allocate(src.size() * 4);
  vulkan::copy_host_to_device(src.data(), dsrc, src.size() * 4);
  vulkan::contiguous_gather(vulkan::buffer_of(dsrc), sizes, strides, 0, vulkan::buffer_of(ddst));
  std::vector<float> out(src.size());
  vulkan::copy_device_to_host(ddst, out.data(), out.size() * 4);
  CHECK(out == expect);
}

TEST_CASE("contiguous_gather checks its arguments", "[vulkan][gather]") {
  TP_REQUIRE_VULKAN();
  DataPtr d = getAllocator(kVulkan)->allocate(64 * 4);
  const vulkan::BufferRange r = vulkan::buffer_of(d);
  const std::vector<std::int64_t> nine(9, 1);
  CHECK_THROWS_AS(vulkan::contiguous_gather(r, nine, nine, 0, r), NotImplementedError);
  const std::vector<std::int64_t> s{8, 8}, st{8, 1};
  CHECK_THROWS_AS(vulkan::contiguous_gather(r, s, std::vector<std::int64_t>{1}, 0, r), ValueError);
  CHECK_THROWS_AS(vulkan::contiguous_gather(r, s, st, 1, r), IndexError);  // reads element 64
  CHECK_THROWS_AS(vulkan::contiguous_gather(r, s, std::vector<std::int64_t>{-8, 1}, 63, r),
                  ValueError);
}

TEST_CASE("strided_copy writes into a strided destination", "[vulkan][gather]") {
  TP_REQUIRE_VULKAN();
  // A 4 x 3 source read transposed (a 3 x 4 view) into rows 1..3, columns 1..4 of a 4 x 6
  // destination (the kind of slice cat writes).
  std::vector<float> src(12);
  std::iota(src.begin(), src.end(), 1.0f);
  DataPtr dsrc = getAllocator(kVulkan)->allocate(src.size() * 4);
  DataPtr ddst = getAllocator(kVulkan)->allocate(4 * 6 * 4);
  vulkan::copy_host_to_device(src.data(), dsrc, src.size() * 4);
  vulkan::fill_(vulkan::buffer_of(ddst), 0.0f, 24);
  const std::vector<std::int64_t> sizes{3, 4}, src_strides{1, 3}, dst_strides{6, 1};
  vulkan::strided_copy(vulkan::buffer_of(dsrc), sizes, src_strides, 0, vulkan::buffer_of(ddst),
                       dst_strides, 6 + 1);
  std::vector<float> out(24);
  vulkan::copy_device_to_host(ddst, out.data(), out.size() * 4);
  std::vector<float> want(24, 0.0f);
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 4; ++c) {
      want[std::size_t((1 + r) * 6 + 1 + c)] = src[std::size_t(c * 3 + r)];
    }
  }
  CHECK(out == want);
  // The destination's reach is checked like the source's.
  CHECK_THROWS_AS(vulkan::strided_copy(vulkan::buffer_of(dsrc), sizes, src_strides, 0,
                                       vulkan::buffer_of(ddst), dst_strides, 7 + 6),
                  IndexError);
  CHECK_THROWS_AS(vulkan::strided_copy(vulkan::buffer_of(dsrc), sizes, src_strides, 0,
                                       vulkan::buffer_of(ddst), std::vector<std::int64_t>{6}, 0),
                  ValueError);
}

}  // namespace vulkan_gather_test
