// The iteration engine: broadcasting, strides, dimension order, coalescing, tiling, the loop
// driver, the overlap rules and their messages.
#include <tensorplay/ops/tensor_iterator.hpp>

#include <tensorplay/core/empty.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <utility>
#include <vector>

namespace ops_tensor_iterator_test {

using namespace tensorplay;

namespace {

using S = std::vector<int64_t>;

Tensor view_of(const Tensor& t, S sizes, S strides, int64_t offset = 0) {
  auto impl = make_intrusive<TensorImpl>(t.storage(), t.dtype(), sizes, strides, offset);
  impl->share_version_counter(*t.unsafeGetTensorImpl());
  return Tensor(std::move(impl));
}

S shape_of(const TensorIterator& it) { return S(it.shape().begin(), it.shape().end()); }
S strides_of(const TensorIterator& it, int arg) {
  S s;
  for (int d = 0; d < it.ndim(); ++d) s.push_back(it.stride(arg, d));
  return s;
}

// Every (offset of operand 0, offset of operand 1) pair the driver visits, in elements.
template <class Loop>
std::vector<std::pair<int64_t, int64_t>> visits(const TensorIterator& it, Loop wrap) {
  std::vector<std::pair<int64_t, int64_t>> out;
  char* b0 = it.data_ptr(0);
  char* b1 = it.data_ptr(1);
  const int64_t e0 = it.element_size(0), e1 = it.element_size(1);
  it.for_each(wrap([&](char* p0, char* p1) { out.emplace_back((p0 - b0) / e0, (p1 - b1) / e1); }));
  return out;
}
auto one_d = [](auto record) {
  return [record](char** data, const int64_t* strides, int64_t n) {
    for (int64_t i = 0; i < n; ++i) record(data[0] + i * strides[0], data[1] + i * strides[1]);
  };
};
auto two_d = [](auto record) {
  return [record](char** data, const int64_t* strides, int64_t n0, int64_t n1) {
    for (int64_t j = 0; j < n1; ++j) {
      for (int64_t i = 0; i < n0; ++i) {
        record(data[0] + i * strides[0] + j * strides[2],
               data[1] + i * strides[1] + j * strides[3]);
      }
    }
  };
};

// The pairs a naive row-major walk of the output's logical shape gives, sorted.
std::vector<std::pair<int64_t, int64_t>> expected_pairs(const Tensor& out, const Tensor& in) {
  std::vector<std::pair<int64_t, int64_t>> pairs;
  const int64_t nd = out.dim(), off = nd - in.dim();
  S idx(nd, 0);
  for (int64_t n = 0; n < out.numel(); ++n) {
    int64_t o = 0, i = 0;
    for (int64_t d = 0; d < nd; ++d) o += idx[d] * out.stride(d);
    for (int64_t d = 0; d < in.dim(); ++d) i += in.size(d) == 1 ? 0 : idx[d + off] * in.stride(d);
    pairs.emplace_back(o, i);
    for (int64_t d = nd - 1; d >= 0 && ++idx[d] == out.size(d); --d) idx[d] = 0;
  }
  std::sort(pairs.begin(), pairs.end());
  return pairs;
}

}  // namespace

TEST_CASE("infer_size broadcasts right-aligned with PyTorch's message", "[ops][tensor_iterator]") {
  CHECK(detail::infer_size(S{3, 1}, S{4}) == S{3, 4});
  CHECK(detail::infer_size(S{}, S{2, 3}) == S{2, 3});
  CHECK(detail::infer_size(S{5, 1, 3}, S{4, 1}) == S{5, 4, 3});
  CHECK(detail::infer_size(S{0}, S{1}) == S{0});
  CHECK_THROWS_WITH(detail::infer_size(S{2, 3}, S{2, 4}),
                    "The size of tensor a (3) must match the size of tensor b (4) at "
                    "non-singleton dimension 1");
  CHECK_THROWS_WITH(detail::infer_size(S{3}, S{2, 4}),
                    "The size of tensor a (3) must match the size of tensor b (4) at "
                    "non-singleton dimension 1");
}

TEST_CASE("operands are broadcast by zero strides", "[ops][tensor_iterator]") {
  Tensor out = empty({2, 3});
  Tensor row = empty({3});
  Tensor col = empty({2, 1});
  Tensor scalar = empty({});
  auto it = TensorIteratorConfig()
                .add_output(out)
                .add_input(row)
                .add_input(col)
                .add_input(scalar)
                .build();
  CHECK(it.ntensors() == 4);
  CHECK(it.noutputs() == 1);
  CHECK(it.ninputs() == 3);
  CHECK(it.numel() == 6);
  CHECK(shape_of(it) == S{3, 2});  // innermost first
  CHECK(strides_of(it, 0) == S{4, 12});
  CHECK(strides_of(it, 1) == S{4, 0});
  CHECK(strides_of(it, 2) == S{0, 4});
  CHECK(strides_of(it, 3) == S{0, 0});
  CHECK_FALSE(it.is_contiguous());
}

TEST_CASE("contiguous operands coalesce into one dimension", "[ops][tensor_iterator]") {
  Tensor a = empty({2, 3, 4}), b = empty({2, 3, 4}, dtype(kDouble));
  auto it = TensorIteratorConfig().add_output(a).add_input(b).check_all_same_dtype(false).build();
  CHECK(shape_of(it) == S{24});
  CHECK(strides_of(it, 0) == S{4});
  CHECK(strides_of(it, 1) == S{8});
  CHECK(it.is_contiguous());
  CHECK(it.tile() == std::pair<int64_t, int64_t>{0, 0});
  // A slice breaks coalescing only where it breaks contiguity.
  Tensor base = empty({2, 3, 8});
  Tensor sliced = view_of(base, {2, 3, 4}, {24, 8, 1});
  auto it2 = TensorIteratorConfig().add_output(empty({2, 3, 4})).add_input(sliced).build();
  CHECK(shape_of(it2) == S{4, 6});
  CHECK(strides_of(it2, 1) == S{4, 32});
  CHECK_FALSE(it2.is_contiguous());
  // Size-1 dimensions always merge.
  auto it3 = TensorIteratorConfig().add_output(empty({1, 5, 1})).build();
  CHECK(shape_of(it3) == S{5});
  CHECK(it3.is_contiguous());
}

TEST_CASE("dimensions are ordered by the output's strides", "[ops][tensor_iterator]") {
  Tensor base = empty({4, 3});
  Tensor out_t = view_of(base, {3, 4}, {1, 3});  // a transposed destination
  Tensor in = empty({3, 4});
  auto it = TensorIteratorConfig().add_output(out_t).add_input(in).build();
  // Output dim 0 (stride 1) becomes the innermost; the output is written sequentially.
  CHECK(S(it.perm().begin(), it.perm().end()) == S{0, 1});
  CHECK(shape_of(it) == S{3, 4});
  CHECK(strides_of(it, 0) == S{4, 12});
  CHECK(strides_of(it, 1) == S{16, 4});
  // With linear iteration the row-major order of the shape is kept.
  auto lin =
      TensorIteratorConfig().add_output(out_t).add_input(in).enforce_linear_iteration().build();
  CHECK(S(lin.perm().begin(), lin.perm().end()) == S{1, 0});
  CHECK(strides_of(lin, 0) == S{12, 4});
  // A broadcast output dimension abstains; the input decides.
  Tensor x = empty({4});
  auto it2 = TensorIteratorConfig()
                 .add_output(view_of(x, {3, 4}, {0, 1}))
                 .add_input(view_of(empty({4, 3}), {3, 4}, {1, 3}))
                 .set_check_mem_overlap(false)
                 .build();
  CHECK(strides_of(it2, 0)[0] == 0);
  CHECK(strides_of(it2, 1)[0] == 4);
  // 3-d permutation: the output's order is recovered exactly.
  Tensor b3 = empty({24});
  Tensor out3 = view_of(b3, {2, 3, 4}, {1, 8, 2});
  auto it3 = TensorIteratorConfig().add_output(out3).add_input(empty({2, 3, 4})).build();
  CHECK(S(it3.perm().begin(), it3.perm().end()) == S{0, 2, 1});
  // ... and then its outer two dimensions, contiguous for both operands, merge.
  CHECK(shape_of(it3) == S{2, 12});
  CHECK(strides_of(it3, 0) == S{4, 8});
  CHECK(strides_of(it3, 1) == S{48, 4});
}

TEST_CASE("for_each visits every element once, in both loop forms", "[ops][tensor_iterator]") {
  std::vector<std::pair<Tensor, Tensor>> cases;
  Tensor big = empty({70, 90});
  cases.emplace_back(empty({3, 4}), view_of(empty({4, 3}), {3, 4}, {1, 3}));
  cases.emplace_back(view_of(empty({4, 3}), {3, 4}, {1, 3}), empty({3, 4}));
  cases.emplace_back(empty({2, 3, 4}), view_of(empty({24}), {2, 3, 4}, {1, 8, 2}));
  cases.emplace_back(empty({2, 3, 4}), empty({3, 1}));
  cases.emplace_back(empty({90, 70}), view_of(big, {90, 70}, {1, 90}));  // tiled
  cases.emplace_back(empty({5, 90, 70}), view_of(empty({90 * 70 * 5}), {5, 90, 70}, {1, 5, 450}));
  cases.emplace_back(empty({}), empty({}));
  cases.emplace_back(empty({0, 3}), empty({3}));
  for (auto& [out, in] : cases) {
    auto it = TensorIteratorConfig().add_output(out).add_input(in).build();
    auto expect = expected_pairs(out, in);
    auto got1 = visits(it, one_d);
    auto got2 = visits(it, two_d);
    std::sort(got1.begin(), got1.end());
    std::sort(got2.begin(), got2.end());
    CHECK(got1 == expect);
    CHECK(got2 == expect);
  }
}

TEST_CASE("a transpose is walked in cache tiles", "[ops][tensor_iterator]") {
  Tensor src = view_of(empty({512, 512}), {512, 512}, {1, 512});
  auto it = TensorIteratorConfig().add_output(empty({512, 512})).add_input(src).build();
  CHECK(it.tile() == std::pair<int64_t, int64_t>{128, 128});
  auto itd = TensorIteratorConfig()
                 .add_output(empty({512, 512}, dtype(kDouble)))
                 .add_input(view_of(empty({512, 512}, dtype(kDouble)), {512, 512}, {1, 512}))
                 .build();
  CHECK(itd.tile() == std::pair<int64_t, int64_t>{64, 64});
  // The input's fastest dimension is moved next to the output's, whatever the rank.
  Tensor s3 = view_of(empty({8 * 600 * 600}), {8, 600, 600}, {1, 8, 4800});
  auto it3 = TensorIteratorConfig().add_output(empty({8, 600, 600})).add_input(s3).build();
  CHECK(it3.tile().first > 0);
  CHECK(it3.stride(1, 1) == 4);  // dim 1 is the input's unit-stride dimension
  // A transpose no wider than a tile is one block already: no tiling.
  Tensor small = view_of(empty({16, 16}), {16, 16}, {1, 16});
  CHECK(TensorIteratorConfig().add_output(empty({16, 16})).add_input(small).build().tile() ==
        std::pair<int64_t, int64_t>{0, 0});
  // Linear iteration forbids it.
  CHECK(TensorIteratorConfig()
            .add_output(empty({512, 512}))
            .add_input(src)
            .enforce_linear_iteration()
            .build()
            .tile() == std::pair<int64_t, int64_t>{0, 0});
}

TEST_CASE("is_inner_contiguous tests each operand's inner step", "[ops][tensor_iterator]") {
  const int64_t s1[] = {4, 8};
  CHECK(is_inner_contiguous<float, double>(s1));
  CHECK_FALSE(is_inner_contiguous<float, float>(s1));
  const int64_t s2[] = {4, 0};
  CHECK_FALSE(is_inner_contiguous<float, float>(s2));
}

TEST_CASE("overlap detection follows c10's MemOverlap", "[ops][tensor_iterator]") {
  Tensor a = empty({6});
  auto impl = [](const Tensor& t) -> const TensorImpl& { return *t.unsafeGetTensorImpl(); };
  CHECK(detail::has_internal_overlap(impl(a)) == detail::MemOverlap::No);
  CHECK(detail::has_internal_overlap(impl(view_of(a, {2, 3}, {0, 1}))) == detail::MemOverlap::Yes);
  CHECK(detail::has_internal_overlap(impl(view_of(a, {2, 3}, {1, 1}))) ==
        detail::MemOverlap::TooHard);
  using St = detail::MemOverlapStatus;
  CHECK(detail::get_overlap_status(impl(a), impl(a)) == St::Full);
  CHECK(detail::get_overlap_status(impl(a), impl(view_of(a, {6}, {1}))) == St::Full);
  CHECK(detail::get_overlap_status(impl(view_of(a, {3}, {1}, 0)), impl(view_of(a, {3}, {1}, 3))) ==
        St::No);
  CHECK(detail::get_overlap_status(impl(view_of(a, {4}, {1}, 0)), impl(view_of(a, {4}, {1}, 2))) ==
        St::Partial);
  CHECK(detail::get_overlap_status(impl(view_of(a, {2, 3}, {3, 1})),
                                   impl(view_of(a, {2, 3}, {1, 2}))) == St::Partial);
  CHECK(detail::get_overlap_status(impl(view_of(a, {3}, {2})), impl(a)) == St::TooHard);
  CHECK(detail::get_overlap_status(impl(a), impl(empty({6}))) == St::No);
  CHECK(detail::get_overlap_status(impl(a), impl(empty({0}))) == St::No);
}

TEST_CASE("build() errors carry PyTorch's messages", "[ops][tensor_iterator]") {
  CHECK_THROWS_WITH(TensorIteratorConfig()
                        .add_output(empty({3}))
                        .add_input(empty({4}))
                        .resize_outputs(false)
                        .build(),
                    "The size of tensor a (3) must match the size of tensor b (4) at "
                    "non-singleton dimension 0");
  CHECK_THROWS_WITH(TensorIteratorConfig()
                        .add_output(empty({4}))
                        .add_input(empty({3, 4}))
                        .resize_outputs(false)
                        .build(),
                    "output with shape [4] doesn't match the broadcast shape [3, 4]");
  CHECK_THROWS_WITH(
      TensorIteratorConfig().add_output(empty({2})).add_input(empty({2}, dtype(kLong))).build(),
      "Found dtype Float but expected Long");
  Tensor x = empty({3});
  CHECK_THROWS_WITH(TensorIteratorConfig().add_output(view_of(x, {2, 3}, {0, 1})).build(),
                    "unsupported operation: more than one element of the written-to tensor "
                    "refers to a single memory location. Please clone() the tensor before "
                    "performing the operation.");
  Tensor a = empty({6});
  CHECK_THROWS_WITH(TensorIteratorConfig()
                        .add_output(view_of(a, {4}, {1}, 2))
                        .add_input(view_of(a, {4}, {1}, 0))
                        .build(),
                    "unsupported operation: some elements of the input tensor and the written-to "
                    "tensor refer to a single memory location. Please clone() the tensor before "
                    "performing the operation.");
  // Without the overlap check both are accepted.
  CHECK_NOTHROW(TensorIteratorConfig()
                    .add_output(view_of(a, {4}, {1}, 2))
                    .add_input(view_of(a, {4}, {1}, 0))
                    .set_check_mem_overlap(false)
                    .build());
  std::vector<float> host(3);
  Tensor fake_cuda = from_blob(host.data(), {3}, TensorOptions().device(Device(kCUDA, 0)));
  // Operands on a device whose backend is not compiled in: no kernel and no outputs there.
  // Mixed devices (a CPU out= too): PyTorch's message.
  CHECK_THROWS_MATCHES(
      TensorIteratorConfig().add_output(Tensor()).add_input(fake_cuda).build(),
      NotImplementedError,
      Catch::Message("Could not run this operation with arguments from the 'CUDA' backend. "
                     "TensorPlay was compiled without it: define TENSORPLAY_USE_CUDA (link the "
                     "matching tensorplay:: target)"));
  CHECK_THROWS_WITH(TensorIteratorConfig().add_output(empty({3})).add_input(fake_cuda).build(),
                    "Expected all tensors to be on the same device, but found at least two "
                    "devices, cpu and cuda:0!");
  CHECK_THROWS_WITH(TensorIteratorConfig()
                        .add_output(empty({3}))
                        .add_input(fake_cuda)
                        .add_input(empty({3}))
                        .build(),
                    "Expected all tensors to be on the same device, but found at least two "
                    "devices, cpu and cuda:0!");
  CHECK_THROWS_WITH(TensorIteratorConfig().add_input(empty({3})).add_output(empty({3})),
                    "TensorIteratorConfig: add outputs before inputs");
  CHECK_THROWS_WITH(TensorIteratorConfig().build(), "TensorIterator: no operands");
  CHECK_THROWS_WITH(TensorIteratorConfig().add_output(Tensor()).build(),
                    "TensorIterator: an output-only iterator needs its output");
  CHECK_THROWS_WITH(TensorIteratorConfig().add_input(Tensor()), "TensorIterator: undefined input");
}

TEST_CASE("zero-size and 0-d iterations", "[ops][tensor_iterator]") {
  auto z = TensorIteratorConfig()
               .add_output(empty({0, 3}))
               .add_input(empty({3}))
               .resize_outputs(false)
               .build();
  CHECK(z.numel() == 0);
  int calls = 0;
  z.for_each([&](char**, const int64_t*, int64_t) { ++calls; });
  CHECK(calls == 0);
  auto s = TensorIteratorConfig().add_output(empty({})).build();
  CHECK(s.numel() == 1);
  CHECK(s.ndim() == 0);
  CHECK(s.is_contiguous());
  int64_t total = 0;
  s.for_each([&](char**, const int64_t*, int64_t n) { total += n; });
  CHECK(total == 1);
}

TEST_CASE("allocated outputs take PyTorch's layout, empty shapes included",
          "[ops][tensor_iterator]") {
  auto out_strides = [](const Tensor& a, const Tensor& b) {
    auto it = TensorIteratorConfig().add_output(Tensor()).add_input(a).add_input(b).build();
    return S(it.output().strides().begin(), it.output().strides().end());
  };
  Tensor base = empty({6});
  // Same shape and contiguous (every empty tensor is): contiguous, whatever the strides.
  const Tensor et = view_of(base, {2, 0, 3}, {1, 2, 2});  // zeros(3, 0, 2).permute(2, 1, 0)
  CHECK(out_strides(et, et) == S{3, 3, 1});
  CHECK(out_strides(view_of(base, {4, 0, 6}, {30, 6, 1}), view_of(base, {4, 0, 6}, {30, 6, 1})) ==
        S{6, 6, 1});
  const Tensor odd = view_of(base, {1, 3}, {7, 1});  // contiguous, size-1 dim with stride 7
  CHECK(out_strides(odd, odd) == S{3, 1});
  // Otherwise the dimension order: row-major gives contiguous strides; any other order
  // multiplies the sizes as they are, so dims laid out past a zero-size one get stride 0
  // (PyTorch: torch.zeros(3, 0, 2).permute(2, 1, 0) + torch.tensor(1.) has strides (1, 2, 0)).
  const Tensor scalar = empty({});
  CHECK(out_strides(et, scalar) == S{1, 2, 0});
  CHECK(out_strides(view_of(base, {0, 4}, {1, 1}), scalar) == S{1, 0});
  CHECK(out_strides(view_of(base, {2, 0, 3}, {3, 3, 1}), scalar) == S{3, 3, 1});
  CHECK(out_strides(view_of(base, {3, 1}, {1, 7}), scalar) == S{1, 3});
  CHECK(out_strides(view_of(base, {3, 2}, {1, 3}), scalar) == S{1, 3});  // non-empty: unchanged
}

}  // namespace ops_tensor_iterator_test
