// The view family (ops/as_strided.hpp, ops/views.hpp): values read through views, aliasing,
// version-counter sharing across every op, edge shapes, and every error path with PyTorch
// 1.13's exact message (the expected strings were taken from torch 1.13 itself).
#include <tensorplay/core/empty.hpp>
#include <tensorplay/ops/as_strided.hpp>
#include <tensorplay/ops/copy.hpp>
#include <tensorplay/ops/factories.hpp>  // tensor(): index and start tensors
#include <tensorplay/ops/views.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <numeric>
#include <string>
#include <utility>
#include <vector>

namespace ops_views_test {

using namespace tensorplay;

namespace {

// 0, 1, 2, ... in a fresh float tensor of the given shape (torch.arange(n).reshape(sizes)).
Tensor arange_f(std::vector<int64_t> sizes) {
  Tensor t = tensorplay::empty(sizes);
  float* p = t.data_ptr<float>();
  for (int64_t i = 0; i < t.numel(); ++i) p[i] = static_cast<float>(i);
  return t;
}

// Element at a multi-index, read through the tensor's own strides.
float at(const Tensor& t, std::vector<int64_t> idx) {
  REQUIRE(static_cast<int64_t>(idx.size()) == t.dim());
  int64_t off = 0;
  for (std::size_t d = 0; d < idx.size(); ++d) off += idx[d] * t.stride(static_cast<int64_t>(d));
  return t.data_ptr<float>()[off];
}

// All elements in row-major order of the logical shape.
std::vector<float> values(const Tensor& t) {
  std::vector<float> out;
  const int64_t n = t.dim();
  std::vector<int64_t> idx(static_cast<std::size_t>(n), 0);
  if (t.numel() == 0) return out;
  while (true) {
    out.push_back(at(t, idx));
    int64_t d = n - 1;
    while (d >= 0 && ++idx[d] == t.size(d)) idx[d--] = 0;
    if (d < 0) break;
  }
  return out;
}

std::vector<int64_t> vec(IntArrayRef r) { return r.vec(); }
using V = std::vector<float>;
using I = std::vector<int64_t>;

struct FakeQuantizer final : Quantizer {
  FakeQuantizer() : Quantizer(kQUInt8) {}
  QScheme qscheme() const noexcept override { return kPerTensorAffine; }
  bool equalTo(const Quantizer&) const noexcept override { return false; }
};
struct FakeSparse final : SparseState {};

}  // namespace

// ============================================================================================
// From the user's side
// ============================================================================================

TEST_CASE("views read and write the base's elements", "[ops][views]") {
  std::vector<float> data{0, 1, 2, 3, 4, 5};
  Tensor a = from_blob(data.data(), {2, 3});

  Tensor row = a[1];
  CHECK(vec(row.sizes()) == I{3});
  CHECK(values(row) == V{3, 4, 5});
  CHECK(row.data_ptr() == a.data_ptr<float>() + 3);

  Tensor col = a.select(1, -1);
  CHECK(values(col) == V{2, 5});
  CHECK(col.stride(0) == 3);

  Tensor t = a.t();
  CHECK(vec(t.sizes()) == I{3, 2});
  CHECK(vec(t.strides()) == I{1, 3});
  CHECK(values(t) == V{0, 3, 1, 4, 2, 5});
  CHECK_FALSE(t.is_contiguous());

  // A write through a view is a write into the base, and vice versa (Python's v[0] = 99).
  row.data_ptr<float>()[0] = 99.f;
  CHECK(data[3] == 99.f);
  data[5] = -1.f;
  CHECK(at(t, {2, 1}) == -1.f);

  Tensor v = a.view({3, 2});
  CHECK(values(v) == V{0, 1, 2, 99, 4, -1});
  CHECK(v.is_contiguous());
  Tensor flat = a.reshape({-1});
  CHECK(vec(flat.sizes()) == I{6});
  CHECK(flat.data_ptr() == a.data_ptr());
}

TEST_CASE("every view shares the storage and is a view; detach is not", "[ops][views]") {
  Tensor a = arange_f({2, 3, 4});
  // clang-format off
  const std::vector<std::pair<const char*, std::function<Tensor(const Tensor&)>>> ops = {
      {"as_strided", [](const Tensor& x) { return x.as_strided({2, 2}, {1, 2}); }},
      {"alias", [](const Tensor& x) { return x.alias(); }},
      {"select", [](const Tensor& x) { return x.select(1, 2); }},
      {"[]", [](const Tensor& x) { return x[1]; }},
      {"slice", [](const Tensor& x) { return x.slice(2, 1, 3); }},
      {"narrow", [](const Tensor& x) { return x.narrow(0, 1, 1); }},
      {"view", [](const Tensor& x) { return x.view({6, 4}); }},
      {"view_as", [](const Tensor& x) { return x.view_as(empty({4, 6})); }},
      {"reshape", [](const Tensor& x) { return x.reshape({4, -1}); }},
      {"reshape_as", [](const Tensor& x) { return x.reshape_as(empty({24})); }},
      {"transpose", [](const Tensor& x) { return x.transpose(0, 2); }},
      {"swapdims", [](const Tensor& x) { return x.swapdims(0, 1); }},
      {"swapaxes", [](const Tensor& x) { return x.swapaxes(1, 2); }},
      {"t", [](const Tensor& x) { return x[0].t(); }},
      {"mT", [](const Tensor& x) { return x.mT(); }},
      {"permute", [](const Tensor& x) { return x.permute({2, 0, 1}); }},
      {"expand", [](const Tensor& x) { return x.expand({5, 2, 3, 4}); }},
      {"expand_as", [](const Tensor& x) { return x.expand_as(empty({2, 2, 3, 4})); }},
      {"squeeze", [](const Tensor& x) { return x.squeeze(); }},
      {"squeeze(dim)", [](const Tensor& x) { return x.squeeze(1); }},
      {"squeeze(dims)", [](const Tensor& x) { return x.squeeze(I{0, 1}); }},
      {"unsqueeze", [](const Tensor& x) { return x.unsqueeze(-1); }},
      {"flatten", [](const Tensor& x) { return x.flatten(); }},
      {"unflatten", [](const Tensor& x) { return x.unflatten(2, {2, 2}); }},
      {"split", [](const Tensor& x) { return x.split(2, 2)[1]; }},
      {"split(sizes)", [](const Tensor& x) { return x.split(I{1, 3}, -1)[1]; }},
      {"split_with_sizes", [](const Tensor& x) { return x.split_with_sizes({1, 2}, 1)[0]; }},
      {"chunk", [](const Tensor& x) { return x.chunk(2, 2)[1]; }},
      {"unbind", [](const Tensor& x) { return x.unbind(1)[2]; }},
      {"diagonal", [](const Tensor& x) { return x.diagonal(1, 1, 2); }},
      {"unfold", [](const Tensor& x) { return x.unfold(2, 2, 1); }},
      {"movedim", [](const Tensor& x) { return x.movedim(0, -1); }},
      {"movedim(list)", [](const Tensor& x) { return x.movedim(I{0, 1}, I{2, 0}); }},
      {"moveaxis", [](const Tensor& x) { return x.moveaxis(I{2}, I{0}); }},
      {"moveaxis(int)", [](const Tensor& x) { return x.moveaxis(1, 0); }},
  };
  // clang-format on
  for (const auto& [name, op] : ops) {
    INFO(name);
    Tensor base = arange_f({2, 3, 4});
    Tensor v = op(base);
    CHECK(v.is_view());
    CHECK(v.is_alias_of(base));
    CHECK(v.storage().unsafeGetStorageImpl() == base.storage().unsafeGetStorageImpl());
    CHECK(v.dtype() == base.dtype());
    CHECK_FALSE(v.is_same(base));
    // The version counter is one object for the whole family: bump through the base, see it
    // in the view; bump through the view, see it in the base.
    CHECK(v._version() == 0);
    base.unsafeGetTensorImpl()->bump_version();
    CHECK(v._version() == 1);
    v.unsafeGetTensorImpl()->bump_version();
    CHECK(base._version() == 2);
    // ... and a view of the view is in the same family.
    Tensor vv = v.alias();
    vv.unsafeGetTensorImpl()->bump_version();
    CHECK(base._version() == 3);
    CHECK(v.unsafeGetTensorImpl()->version_counter().shares_counter(
        base.unsafeGetTensorImpl()->version_counter()));
  }

  // view(dtype) and detach() alias the bytes and the version, but are not views (_is_view() is
  // False for both in PyTorch: no gradient can flow through them).
  for (Tensor v : {a.view(kInt), a.view(kFloat), a.view(kHalf), a.detach()}) {
    CHECK_FALSE(v.is_view());
    CHECK(v.is_alias_of(a));
    a.unsafeGetTensorImpl()->bump_version();
    CHECK(v._version() == a._version());
    v.unsafeGetTensorImpl()->bump_version();
    CHECK(v._version() == a._version());
  }
}

TEST_CASE("a write through a real in-place op is seen by every view", "[ops][views]") {
  Tensor a = arange_f({2, 3});
  Tensor row = a[1];
  Tensor col = a.t()[2];
  row.fill_(7);  // an ordinary in-place op bumps the shared counter
  CHECK(a._version() == 1);
  CHECK(col._version() == 1);
  CHECK(values(a) == V{0, 1, 2, 7, 7, 7});
  CHECK(values(col) == V{2, 7});
}

TEST_CASE("in-place view ops reshape the tensor itself and bump its version", "[ops][views]") {
  Tensor a = arange_f({2, 3});
  void* p = a.data_ptr();
  CHECK(&a.t_() == &a);
  CHECK(vec(a.sizes()) == I{3, 2});
  CHECK(vec(a.strides()) == I{1, 3});
  CHECK(a.data_ptr() == p);
  CHECK(a._version() == 1);  // PyTorch: every in-place op bumps, t_() included
  a.transpose_(0, 1);
  CHECK(vec(a.sizes()) == I{2, 3});
  a.unsqueeze_(0);
  CHECK(vec(a.sizes()) == I{1, 2, 3});
  CHECK(vec(a.strides()) == I{6, 3, 1});
  a.unsqueeze_(-1);
  CHECK(vec(a.sizes()) == I{1, 2, 3, 1});
  a.squeeze_(0);
  CHECK(vec(a.sizes()) == I{2, 3, 1});
  a.squeeze_(1);  // not size 1: unchanged, still bumped
  CHECK(vec(a.sizes()) == I{2, 3, 1});
  a.squeeze_();
  CHECK(vec(a.sizes()) == I{2, 3});
  a.as_strided_({2}, {2}, 1);
  CHECK(values(a) == V{1, 3});
  CHECK(a.storage_offset() == 1);
  a.transpose_(0, 0);       // a no-op that still counts as an in-place op
  a.as_strided_({3}, {1});  // offset defaults to the tensor's own
  CHECK(values(a) == V{1, 2, 3});
  CHECK(a._version() == 10);
  CHECK_FALSE(a.is_view());  // in place: the tensor stays what it was

  Tensor v = arange_f({2, 2}).alias();
  v.t_();
  CHECK(v.is_view());
}

// ============================================================================================
// as_strided, alias, detach
// ============================================================================================

TEST_CASE("as_strided takes absolute offsets and keeps the base's by default", "[ops][views]") {
  Tensor a = arange_f({10});
  Tensor b = a.as_strided({3}, {2}, 3);  // 3, 5, 7
  CHECK(values(b) == V{3, 5, 7});
  CHECK(b.storage_offset() == 3);
  // The offset is absolute within the storage, not relative to b's own offset.
  CHECK(values(b.as_strided({2}, {1}, 0)) == V{0, 1});
  // Without an offset the view keeps the tensor's own.
  Tensor c = b.as_strided({2, 2}, {1, 1});
  CHECK(c.storage_offset() == 3);
  CHECK(values(c) == V{3, 4, 4, 5});  // overlapping windows are fine
  Tensor e = a.as_strided({4}, {0});  // stride 0: broadcast
  CHECK(values(e) == V{0, 0, 0, 0});
  // The farthest element may be the storage's last.
  CHECK(values(a.as_strided({2, 2}, {8, 1}, 0)) == V{0, 1, 8, 9});
  // No element, no bound: any offset and stride (PyTorch allows it).
  CHECK(a.as_strided({0, 3}, {100, 1}, 10).numel() == 0);
  CHECK(a.as_strided({0}, {1}, 100).storage_offset() == 100);
  CHECK(a.as_strided({}, {}, 9).dim() == 0);
  CHECK(values(a.as_strided({}, {}, 9)) == V{9});
}

TEST_CASE("as_strided's geometry checks", "[ops][views]") {
  Tensor a = arange_f({2, 3});
  CHECK_THROWS_WITH(a.as_strided({2, 3}, {3, 1}, 5),
                    "setStorage: sizes [2, 3], strides [3, 1], storage offset 5, and itemsize 4 "
                    "requiring a storage size of 44 are out of bounds for storage of size 24");
  CHECK_THROWS_WITH(a.as_strided({}, {}, 6),
                    "setStorage: sizes [], strides [], storage offset 6, and itemsize 4 requiring "
                    "a storage size of 28 are out of bounds for storage of size 24");
  CHECK_THROWS_WITH(
      a.as_strided({2, 3}, {-3, 1}),
      "as_strided: Negative strides are not supported at the moment, got strides: [-3, 1]");
  CHECK_THROWS_WITH(a.as_strided({-1}, {1}),
                    "Storage size calculation overflowed with sizes=[-1] and strides=[1]");
  CHECK_THROWS_WITH(a.as_strided({2, -1}, {1, 1}),
                    "Storage size calculation overflowed with sizes=[2, -1] and strides=[1, 1]");
  CHECK_THROWS_WITH(
      a.as_strided({2, 2}, {INT64_MAX / 2, 4}),
      "Storage size calculation overflowed with sizes=[2, 2] and strides=[4611686018427387903, "
      "4]");
  CHECK_THROWS_WITH(a.as_strided({2, 3}, {3}), "mismatch in length of strides and shape");
  CHECK_THROWS_WITH(a.as_strided({2, 3}, {3, 1}, -1), "Tensor: invalid storage offset -1");
  CHECK_THROWS_WITH(a.as_strided_({7}, {1}),
                    "setStorage: sizes [7], strides [1], storage offset 0, and itemsize 4 "
                    "requiring a storage size of 28 are out of bounds for storage of size 24");
  CHECK_THROWS_WITH(a.as_strided_({1}, {-1}),
                    "as_strided: Negative strides are not supported at the moment, got strides: "
                    "[-1]");
  CHECK_THROWS_WITH(a.as_strided_({1}, {}), "mismatch in length of strides and shape");
  CHECK_THROWS_WITH(a.as_strided_({1}, {1}, -2), "Tensor: invalid storage offset -2");
  CHECK_THROWS_AS(a.as_strided({7}, {1}), Error);
  // A failed in-place geometry change leaves the tensor untouched.
  CHECK(vec(a.sizes()) == I{2, 3});
  CHECK(a._version() == 0);
}

TEST_CASE("views carry the quantizer and the inference flag, never autograd history",
          "[ops][views]") {
  Tensor a = arange_f({2, 3});
  auto q = std::make_shared<FakeQuantizer>();
  a.unsafeGetTensorImpl()->set_quantizer(q);
  CHECK(a.t().unsafeGetTensorImpl()->quantizer() == q);
  CHECK(a[0].unsafeGetTensorImpl()->quantizer() == q);
  CHECK(a.view(kInt).unsafeGetTensorImpl()->quantizer() == q);
  CHECK(a.detach().unsafeGetTensorImpl()->quantizer() == q);

  Tensor inf;
  {
    InferenceMode guard;
    inf = arange_f({2, 2});
    Tensor normal_view = a.t();  // a view of a normal tensor stays normal, even in the mode
    CHECK_FALSE(normal_view.is_inference());
    CHECK_FALSE(a.view(kInt).is_inference());
    CHECK(normal_view._version() == a._version());
  }
  CHECK(inf.is_inference());
  CHECK(inf.t().is_inference());  // a view of an inference tensor is one, outside the mode too
  CHECK(inf.view(kInt).is_inference());
  CHECK_THROWS_WITH(inf.t()._version(), "Inference tensors do not track version counter.");
}

TEST_CASE("views of sparse tensors are refused", "[ops][views]") {
  Tensor s = arange_f({3});
  s.unsafeGetTensorImpl()->set_sparse_state(std::make_shared<FakeSparse>());
  CHECK_THROWS_WITH(s.as_strided({1}, {1}),
                    "Could not run 'aten::as_strided' with arguments from the 'SparseCPU' "
                    "backend.");
  CHECK_THROWS_AS(s.view({3}), NotImplementedError);
  CHECK_THROWS_WITH(s.as_strided_({1}, {1}),
                    "Could not run 'aten::as_strided_' with arguments from the 'SparseCPU' "
                    "backend.");
}

TEST_CASE("the device policy table says which devices alias", "[ops][views]") {
  // CPU addresses memory through strides. Without a device that has no strided addressing
  // (Vulkan) compiled in, the materialising branch of make_alias is compiled out (tests/vulkan
  // runs it).
  STATIC_REQUIRE(detail::supports_strided_views(kCPU));
  STATIC_REQUIRE(detail::kEveryDeviceAliases == !TENSORPLAY_USE_VULKAN);
}

TEST_CASE("detach and detach_", "[ops][views]") {
  Tensor a = arange_f({2, 3});
  Tensor d = a.detach();
  CHECK(d.data_ptr() == a.data_ptr());
  CHECK_FALSE(d.is_same(a));
  CHECK(vec(d.sizes()) == I{2, 3});
  CHECK_FALSE(d.is_view());
  CHECK(d.unsafeGetTensorImpl()->autograd_meta() == nullptr);
  CHECK(&a.detach_() == &a);
  CHECK(a._version() == 0);

  Tensor v = a[0];
  CHECK_THROWS_WITH(v.detach_(), Catch::StartsWith("Can't detach views in-place. Use detach() instead. If you are using"));
  Tensor al = a.alias();
  CHECK(al.is_view());
  CHECK(vec(al.sizes()) == I{2, 3});
}

TEST_CASE("view ops on an undefined tensor fail clearly", "[ops][views]") {
  Tensor u;
  CHECK_THROWS_WITH(u.select(0, 0), "select() called on an undefined Tensor");
  CHECK_THROWS_WITH(u.view({1}), "view() called on an undefined Tensor");
  CHECK_THROWS_WITH(u.as_strided({1}, {1}), "as_strided() called on an undefined Tensor");
}

// ============================================================================================
// select, [], slice, narrow
// ============================================================================================

TEST_CASE("select and operator[]", "[ops][views]") {
  Tensor a = arange_f({2, 3});
  CHECK(values(a.select(0, -1)) == V{3, 4, 5});
  CHECK(values(a.select(-1, 1)) == V{1, 4});
  CHECK(a.select(1, 2).storage_offset() == 2);
  CHECK(values(a[0][2]) == V{2});
  CHECK(a[1][1].dim() == 0);

  CHECK_THROWS_WITH(a.select(0, 5),
                    "select(): index 5 out of range for tensor of size [2, 3] at dimension 0");
  CHECK_THROWS_WITH(a.select(-1, -4),
                    "select(): index -4 out of range for tensor of size [2, 3] at dimension 1");
  CHECK_THROWS_AS(a.select(0, 2), IndexError);
  CHECK_THROWS_WITH(a[2],
                    "select(): index 2 out of range for tensor of size [2, 3] at dimension 0");
  CHECK_THROWS_WITH(a.select(2, 0),
                    "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  CHECK_THROWS_WITH(arange_f({}).select(0, 0), "select() cannot be applied to a 0-dim tensor.");
  CHECK_THROWS_AS(arange_f({})[0], IndexError);
  CHECK_THROWS_WITH(empty({0}).select(0, 0),
                    "select(): index 0 out of range for tensor of size [0] at dimension 0");
}

TEST_CASE("slice clamps its bounds as Python does", "[ops][views]") {
  Tensor a = arange_f({5});
  CHECK(values(a.slice(0, 1, 4)) == V{1, 2, 3});
  CHECK(values(a.slice(0, 1, std::nullopt, 2)) == V{1, 3});
  CHECK(values(a.slice(0, std::nullopt, std::nullopt, 3)) == V{0, 3});
  CHECK(values(a.slice(0, -2)) == V{3, 4});
  CHECK(values(a.slice(0, 0, -1)) == V{0, 1, 2, 3});
  CHECK(values(a.slice(0, -10, 10)) == V{0, 1, 2, 3, 4});
  CHECK(a.slice(0, 7, 10).numel() == 0);
  CHECK(a.slice(0, 3, 1).numel() == 0);  // end before start: empty
  CHECK(a.slice(0, 4, -10).numel() == 0);
  CHECK(values(a.slice(0, 0, 5, INT64_MAX)) == V{0});  // no overflow in the size arithmetic
  CHECK(values(a.slice()) == V{0, 1, 2, 3, 4});
  CHECK(a.slice(0, 2).storage_offset() == 2);
  CHECK(a.slice(0, 7).storage_offset() == 5);  // clamped start: one past the end, PyTorch's

  Tensor m = arange_f({2, 3});
  Tensor s = m.slice(1, -2, std::nullopt, 2);
  CHECK(vec(s.sizes()) == I{2, 1});
  CHECK(vec(s.strides()) == I{3, 2});
  CHECK(values(s) == V{1, 4});

  CHECK_THROWS_WITH(a.slice(0, 0, 5, 0), "slice step must be positive");
  CHECK_THROWS_WITH(a.slice(0, 0, 5, -1), "slice step must be positive");
  CHECK_THROWS_WITH(arange_f({}).slice(0, 0, 1), "slice() cannot be applied to a 0-dim tensor.");
  CHECK_THROWS_AS(arange_f({}).slice(0, 0, 1), IndexError);
  CHECK_THROWS_WITH(a.slice(1),
                    "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
}

TEST_CASE("narrow", "[ops][views]") {
  Tensor a = arange_f({2, 3});
  CHECK(values(a.narrow(1, 1, 2)) == V{1, 2, 4, 5});
  CHECK(values(a.narrow(0, -1, 1)) == V{3, 4, 5});
  CHECK(a.narrow(0, 2, 0).numel() == 0);  // start == size is allowed with length 0
  CHECK(vec(a.narrow(0, -2, 2).sizes()) == I{2, 3});
  CHECK(empty({0}).narrow(0, 0, 0).numel() == 0);
  CHECK(empty({0}).narrow(0, -1, 0).numel() == 0);

  CHECK_THROWS_WITH(a.narrow(0, 1, 2), "start (1) + length (2) exceeds dimension size (2).");
  CHECK_THROWS_WITH(a.narrow(0, 0, 3), "start (0) + length (3) exceeds dimension size (2).");
  CHECK_THROWS_WITH(a.narrow(0, 1, -1), "start (1) + length (-1) exceeds dimension size (2).");
  CHECK_THROWS_WITH(a.narrow(0, 3, 1),
                    "Dimension out of range (expected to be in range of [-2, 1], but got 3)");
  CHECK_THROWS_WITH(a.narrow(0, -3, 1),
                    "Dimension out of range (expected to be in range of [-2, 1], but got -3)");
  CHECK_THROWS_WITH(arange_f({}).narrow(0, 0, 1), "narrow() cannot be applied to a 0-dim tensor.");
  CHECK_THROWS_WITH(a.narrow(2, 0, 1),
                    "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

// ============================================================================================
// view, reshape, view(dtype)
// ============================================================================================

TEST_CASE("view infers -1 and keeps the offset", "[ops][views]") {
  Tensor a = arange_f({2, 3, 4});
  CHECK(vec(a.view({-1, 4}).sizes()) == I{6, 4});
  CHECK(vec(a.view({4, -1}).sizes()) == I{4, 6});
  CHECK(vec(a.view({24}).strides()) == I{1});
  CHECK(vec(a.view({1, 24, 1}).strides()) == I{24, 1, 1});
  Tensor r = a[1].view({-1});
  CHECK(r.storage_offset() == 12);
  CHECK(values(r)[0] == 12.f);
  // `view({})` would pick view(DType) (an enum from empty braces is an exact match), exactly as
  // libtorch's at::Tensor::view does; an empty shape is spelled IntArrayRef{}.
  CHECK(vec(arange_f({}).view(IntArrayRef{}).sizes()) == I{});
  CHECK(vec(arange_f({}).view({1, 1}).strides()) == I{1, 1});
  CHECK(vec(arange_f({1}).view(IntArrayRef{}).sizes()) == I{});
  CHECK(vec(arange_f({}).view({-1}).sizes()) == I{1});
}

TEST_CASE("view follows PyTorch's stride-compatibility rule", "[ops][views]") {
  Tensor a = arange_f({4, 6});
  // Merging and splitting inside a contiguous chunk works on non-contiguous tensors.
  // Every other column is still one evenly strided block: [4, 3] with strides [6, 2].
  Tensor e = a.slice(1, 0, 6, 2);
  CHECK(vec(e.view({12}).strides()) == I{2});
  CHECK(values(e.view({2, 6})) == values(e));
  Tensor s = a.slice(1, 0, 3);  // [4, 3], strides [6, 1]: each row is its own chunk
  CHECK(vec(s.view({4, 3, 1}).strides()) == I{6, 1, 1});
  CHECK(vec(s.view({4, 1, 3}).strides()) == I{6, 3, 1});
  CHECK(values(s.view({4, 3})) == values(s));
  Tensor t = a.t();  // [6, 4], strides [1, 6]
  CHECK(vec(t.view({6, 2, 2}).strides()) == I{1, 12, 6});
  CHECK(values(t.view({6, 2, 2})) == values(t));
  CHECK_THROWS_WITH(t.view({24}),
                    "view size is not compatible with input tensor's size and stride (at least "
                    "one dimension spans across two contiguous subspaces). Use .reshape(...) "
                    "instead.");
  CHECK_THROWS_WITH(s.view({12}),
                    "view size is not compatible with input tensor's size and stride (at least "
                    "one dimension spans across two contiguous subspaces). Use .reshape(...) "
                    "instead.");
  // Size-1 dims may sit anywhere, with any stride.
  Tensor u = a.as_strided({4, 1, 6}, {6, 100, 1});
  CHECK(vec(u.view({2, 2, 6}).strides()) == I{12, 6, 1});
  CHECK(vec(u.view({24}).strides()) == I{1});
}

TEST_CASE("an 8-d view across several contiguous chunks", "[ops][views]") {
  // Base [2,3,4,5,6] permuted so that it has three chunks: (2), (3,4) and (5,6), then a view
  // regrouping each chunk differently into 8 dims (heap-stored geometry, rank > 5).
  Tensor base = arange_f({2, 3, 4, 5, 6});
  Tensor p = base.permute({1, 2, 0, 3, 4});  // [3,4,2,5,6] strides [120,30,360,6,1]
  const I shape{3, 2, 2, 2, 1, 5, 3, 2};
  Tensor v = p.view(shape);
  CHECK(v.dim() == 8);
  CHECK(vec(v.sizes()) == shape);
  CHECK(vec(v.strides()) == I{120, 60, 30, 360, 30, 6, 2, 1});  // torch 1.13's strides
  CHECK(values(v) == values(p));
  CHECK(v.data_ptr() == base.data_ptr());
  // And back: an 8-d tensor viewed to 2-d where it can be ...
  CHECK(vec(v.view({12, 2, 30}).strides()) == I{30, 360, 1});
  CHECK(values(v.view({12, 2, 30})) == values(p));
  // ... and refused where a dim would straddle chunks (2 from one chunk, 5 from another).
  CHECK_THROWS_WITH(v.view({3, 4, 10, 6}),
                    "view size is not compatible with input tensor's size and stride (at least "
                    "one dimension spans across two contiguous subspaces). Use .reshape(...) "
                    "instead.");
  Tensor r = v.reshape({3, 4, 10, 6});  // reshape copies instead
  CHECK(values(r) == values(p));
  CHECK_FALSE(r.is_alias_of(base));
}

TEST_CASE("view on zero-size tensors", "[ops][views]") {
  Tensor z = empty({0, 3});
  CHECK(vec(z.view({3, 0}).sizes()) == I{3, 0});
  CHECK(vec(z.view({3, 0}).strides()) == I{1, 1});
  CHECK(vec(z.view({0, 3}).strides()) == vec(z.strides()));
  CHECK(vec(z.view({-1, 3}).sizes()) == I{0, 3});
  CHECK(vec(z.view({2, 4, 0}).sizes()) == I{2, 4, 0});
  CHECK(vec(z.t().view({0}).sizes()) == I{0});  // any strides: nothing is addressed
  CHECK_THROWS_WITH(z.view({-1, 0}),
                    "cannot reshape tensor of 0 elements into shape [-1, 0] because the "
                    "unspecified dimension size -1 can be any value and is ambiguous");
  CHECK_THROWS_WITH(z.view(IntArrayRef{}), "shape '[]' is invalid for input of size 0");
}

TEST_CASE("view's shape errors", "[ops][views]") {
  Tensor a = arange_f({2, 3});
  CHECK_THROWS_WITH(a.view({2, 5}), "shape '[2, 5]' is invalid for input of size 6");
  CHECK_THROWS_WITH(a.view({-1, 4}), "shape '[-1, 4]' is invalid for input of size 6");
  CHECK_THROWS_WITH(a.view({-1, -1}), "only one dimension can be inferred");
  CHECK_THROWS_WITH(a.view({-2, 3}), "invalid shape dimension -2");
  CHECK_THROWS_WITH(a.view_as(empty({5})), "shape '[5]' is invalid for input of size 6");
  CHECK_THROWS_WITH(a.reshape({5}), "shape '[5]' is invalid for input of size 6");
  CHECK_THROWS_WITH(a.reshape({-1, -1}), "only one dimension can be inferred");
  CHECK_THROWS_WITH(a.reshape_as(empty({5})), "shape '[5]' is invalid for input of size 6");
}

TEST_CASE("reshape views when it can and copies when it must", "[ops][views]") {
  Tensor a = arange_f({2, 3});
  Tensor v = a.reshape({3, 2});
  CHECK(v.is_view());
  CHECK(v.data_ptr() == a.data_ptr());
  CHECK(a.reshape({2, 3}).is_view());

  // The copy path (clone(MemoryFormat::Contiguous) from ops/copy.hpp): a transpose cannot be
  // flattened in place. The result is a new value: not a view, version 0, own storage.
  Tensor t = a.t();
  t.unsafeGetTensorImpl()->bump_version();
  Tensor r = t.reshape({6});
  CHECK(values(r) == V{0, 3, 1, 4, 2, 5});
  CHECK(r.is_contiguous());
  CHECK_FALSE(r.is_view());
  CHECK_FALSE(r.is_alias_of(a));
  CHECK(r._version() == 0);
  CHECK(r.storage_offset() == 0);
  r.data_ptr<float>()[0] = 42.f;
  CHECK(values(a)[0] == 0.f);
  CHECK(values(t.reshape_as(empty({3, 2}))) == V{0, 3, 1, 4, 2, 5});
  Tensor e = arange_f({4}).expand({3, 4}).reshape({2, 6});
  CHECK(values(e) == V{0, 1, 2, 3, 0, 1, 2, 3, 0, 1, 2, 3});
}

TEST_CASE("view(dtype) reinterprets the bytes", "[ops][views]") {
  Tensor f = empty({2, 2});
  float* p = f.data_ptr<float>();
  p[0] = 1.0f;
  p[1] = -2.0f;
  p[2] = 0.5f;
  p[3] = 3.0f;

  Tensor i = f.view(kInt);  // same item size: same geometry
  CHECK(i.dtype() == kInt);
  CHECK(vec(i.sizes()) == I{2, 2});
  CHECK(i.data_ptr<int32_t>()[0] == 0x3f800000);
  CHECK(f.view(kFloat).data_ptr() == f.data_ptr());

  Tensor h = f.view(kInt16);  // smaller: the last dim grows
  CHECK(vec(h.sizes()) == I{2, 4});
  CHECK(vec(h.strides()) == I{4, 1});
  Tensor ft = f.t().contiguous().t();  // strides [1, 2]: last stride not 1
  CHECK_THROWS_WITH(ft.view(kHalf),
                    "self.stride(-1) must be 1 to view Float as Half (different element sizes), "
                    "but got 2");
  Tensor b = f.view(kUInt8);
  CHECK(vec(b.sizes()) == I{2, 8});
  uint8_t expected[4];
  std::memcpy(expected, &p[1], 4);
  CHECK(b.data_ptr<uint8_t>()[4] == expected[0]);
  CHECK(f[1].view(kByte).storage_offset() == 8);  // the offset scales too

  Tensor d = f.view(kDouble);  // larger: the last dim shrinks
  CHECK(vec(d.sizes()) == I{2, 1});
  CHECK(vec(d.strides()) == I{1, 1});
  double d0;
  std::memcpy(&d0, p, 8);
  CHECK(std::memcmp(d.data_ptr<double>(), &d0, 8) == 0);
  Tensor row = arange_f({8}).slice(0, 2, 6);
  CHECK(row.view(kDouble).storage_offset() == 1);
  CHECK(vec(arange_f({2, 4}).slice(1, 2).view(kDouble).sizes()) == I{2, 1});
  CHECK(empty({0}).view(kDouble).numel() == 0);
  // A 0-d tensor may change dtype only to one of the same size.
  CHECK(arange_f({}).view(kInt).dim() == 0);

  CHECK_THROWS_WITH(arange_f({}).view(kHalf),
                    "self.dim() cannot be 0 to view Float as Half (different element sizes)");
  CHECK_THROWS_WITH(arange_f({2, 3}).view(kLong),
                    "self.size(-1) must be divisible by 2 to view Float as Long (different "
                    "element sizes), but got 3");
  CHECK_THROWS_WITH(arange_f({10}).as_strided({2}, {2}, 1).view(kDouble),
                    "self.storage_offset() must be divisible by 2 to view Float as Double "
                    "(different element sizes), but got 1");
  CHECK_THROWS_WITH(arange_f({10}).as_strided({2}, {2}, 0).view(kDouble),
                    "self.stride(-1) must be 1 to view Float as Double (different element "
                    "sizes), but got 2");
  CHECK_THROWS_WITH(arange_f({12}).as_strided({3, 2}, {3, 1}).view(kDouble),
                    "self.stride(0) must be divisible by 2 to view Float as Double (different "
                    "element sizes), but got 3");
  CHECK_THROWS_WITH(empty({2, 0}).view(kFloat64),
                    "self.stride(0) must be divisible by 2 to view Float as Double (different "
                    "element sizes), but got 1");
  CHECK_THROWS_WITH(empty({4}, kBool).view(kInt64),
                    "self.size(-1) must be divisible by 8 to view Bool as Long (different "
                    "element sizes), but got 4");
}

// ============================================================================================
// transpose, t, mT, permute, movedim
// ============================================================================================

TEST_CASE("transpose, t, mT", "[ops][views]") {
  Tensor a = arange_f({2, 3, 4});
  Tensor t = a.transpose(0, 2);
  CHECK(vec(t.sizes()) == I{4, 3, 2});
  CHECK(vec(t.strides()) == I{1, 4, 12});
  CHECK(at(t, {3, 1, 1}) == at(a, {1, 1, 3}));
  CHECK(vec(a.transpose(-1, -2).sizes()) == I{2, 4, 3});
  CHECK(vec(a.transpose(1, 1).sizes()) == I{2, 3, 4});
  CHECK(a.transpose(1, 1).is_view());
  CHECK(vec(a.mT().sizes()) == I{2, 4, 3});
  CHECK(vec(arange_f({3}).t().sizes()) == I{3});
  CHECK(arange_f({}).t().dim() == 0);
  CHECK(arange_f({}).transpose(0, -1).dim() == 0);

  CHECK_THROWS_WITH(a.t(), "t() expects a tensor with <= 2 dimensions, but self is 3D");
  CHECK_THROWS_WITH(a.t_(), "t_() expects a tensor with <= 2 dimensions, but self is 3D");
  CHECK_THROWS_WITH(arange_f({3}).mT(),
                    "tensor.mT is only supported on matrices or batches of matrices. Got 1-D "
                    "tensor.");
  CHECK_THROWS_WITH(a.transpose(0, 3),
                    "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
  CHECK_THROWS_WITH(a.transpose_(0, 3),
                    "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
  CHECK_THROWS_AS(a.swapdims(-4, 0), IndexError);
}

TEST_CASE("permute", "[ops][views]") {
  Tensor a = arange_f({2, 3, 4});
  Tensor p = a.permute({2, 0, 1});
  CHECK(vec(p.sizes()) == I{4, 2, 3});
  CHECK(vec(p.strides()) == I{1, 12, 4});
  CHECK(at(p, {3, 1, 2}) == at(a, {1, 2, 3}));
  CHECK(vec(a.permute({-1, -2, -3}).sizes()) == I{4, 3, 2});
  CHECK(arange_f({}).permute({}).dim() == 0);

  CHECK_THROWS_WITH(a.permute({0, 1}),
                    "permute(sparse_coo): number of dimensions in the tensor input does not "
                    "match the length of the desired ordering of dimensions i.e. input.dim() = "
                    "3 is not equal to len(dims) = 2");
  CHECK_THROWS_WITH(a.permute({0, 0, 1}), "permute(): duplicate dims are not allowed.");
  CHECK_THROWS_WITH(a.permute({0, -3, 1}), "permute(): duplicate dims are not allowed.");
  CHECK_THROWS_WITH(a.permute({0, 3, 1}),
                    "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
}

TEST_CASE("movedim and moveaxis", "[ops][views]") {
  Tensor a = arange_f({2, 3, 4, 5});
  CHECK(vec(a.movedim(I{0, 1}, I{2, 0}).sizes()) == I{3, 4, 2, 5});
  CHECK(vec(a.movedim(0, -1).sizes()) == I{3, 4, 5, 2});
  CHECK(vec(a.moveaxis(-1, 0).sizes()) == I{5, 2, 3, 4});
  CHECK(vec(a.movedim(I{}, I{}).sizes()) == I{2, 3, 4, 5});
  Tensor m = a.movedim(I{3, 1}, I{0, 3});
  CHECK(vec(m.sizes()) == I{5, 2, 4, 3});
  CHECK(at(m, {4, 1, 3, 2}) == at(a, {1, 2, 3, 4}));
  CHECK(arange_f({}).movedim(0, 0).dim() == 0);
  CHECK(arange_f({}).movedim(0, -1).is_view());

  CHECK_THROWS_WITH(a.movedim(I{0, 1}, I{0}),
                    "movedim: Invalid source or destination dims: source ([0, 1] dims) should "
                    "contain the same number of dims as destination ([0] dims)");
  CHECK_THROWS_WITH(a.movedim(I{0, -4}, I{0, 1}), "movedim: repeated dim in `source` ([0, -4])");
  CHECK_THROWS_WITH(a.movedim(I{0, 1}, I{1, 1}), "movedim: repeated dim in `destination` ([1, 1])");
  CHECK_THROWS_WITH(a.movedim(4, 0),
                    "Dimension out of range (expected to be in range of [-4, 3], but got 4)");
  CHECK_THROWS_WITH(a.moveaxis(0, -5),
                    "Dimension out of range (expected to be in range of [-4, 3], but got -5)");
}

// ============================================================================================
// expand
// ============================================================================================

TEST_CASE("expand broadcasts with stride 0", "[ops][views]") {
  Tensor a = arange_f({3});
  Tensor e = a.expand({2, 3});
  CHECK(vec(e.strides()) == I{0, 1});
  CHECK(values(e) == V{0, 1, 2, 0, 1, 2});
  Tensor m = arange_f({2, 3});
  CHECK(vec(m.expand({3, -1, -1}).strides()) == I{0, 3, 1});
  CHECK(vec(m.expand({1, 2, 3}).strides()) == I{6, 3, 1});  // a new size-1 dim is not broadcast
  CHECK(vec(m.slice(1, 0, 1).expand({2, 4}).strides()) == I{3, 0});
  CHECK(vec(empty({1, 1}).expand({0, 4}).sizes()) == I{0, 4});
  CHECK(vec(empty({0, 1}).expand({0, 4}).strides()) == I{1, 0});
  Tensor s = arange_f({}).expand({2, 2});
  CHECK(vec(s.strides()) == I{0, 0});
  CHECK(arange_f({}).expand({}).dim() == 0);
  CHECK(vec(m.expand_as(empty({4, 2, 3})).sizes()) == I{4, 2, 3});
  CHECK(vec(a.expand({3}, /*implicit=*/true).sizes()) == I{3});

  CHECK_THROWS_WITH(a.expand({2, 4}),
                    "The expanded size of the tensor (4) must match the existing size (3) at "
                    "non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [3]");
  CHECK_THROWS_WITH(m.expand({2, 3, 4}),
                    "The expanded size of the tensor (4) must match the existing size (3) at "
                    "non-singleton dimension 2.  Target sizes: [2, 3, 4].  Tensor sizes: [2, 3]");
  CHECK_THROWS_WITH(m.expand({4}),
                    "expand(tensorplay.FloatTensor{[2, 3]}, size=[4]): the number of sizes "
                    "provided (1) must be greater or equal to the number of dimensions in the "
                    "tensor (2)");
  CHECK_THROWS_WITH(m.expand_as(empty({3})),
                    "expand(tensorplay.FloatTensor{[2, 3]}, size=[3]): the number of sizes "
                    "provided (1) must be greater or equal to the number of dimensions in the "
                    "tensor (2)");
  CHECK_THROWS_WITH(m.expand({-1, -1, 3}),
                    "The expanded size of the tensor (-1) isn't allowed in a leading, "
                    "non-existing dimension 0");
  CHECK_THROWS_WITH(m.expand({2, -2}),
                    "The expanded size of the tensor (-2) must match the existing size (3) at "
                    "non-singleton dimension 1.  Target sizes: [2, -2].  Tensor sizes: [2, 3]");
}

// ============================================================================================
// squeeze, unsqueeze
// ============================================================================================

TEST_CASE("squeeze and unsqueeze", "[ops][views]") {
  Tensor a = arange_f({1, 3, 1, 2});
  CHECK(vec(a.squeeze().sizes()) == I{3, 2});
  CHECK(vec(a.squeeze(0).sizes()) == I{3, 1, 2});
  CHECK(vec(a.squeeze(-2).sizes()) == I{1, 3, 2});
  CHECK(vec(a.squeeze(1).sizes()) == I{1, 3, 1, 2});  // not size 1: same geometry, still a view
  CHECK(a.squeeze(1).is_view());
  CHECK(vec(a.squeeze(I{0, 1, 2}).sizes()) == I{3, 2});
  CHECK(vec(a.squeeze(I{-2}).sizes()) == I{1, 3, 2});
  CHECK(vec(a.squeeze(I{}).sizes()) == I{1, 3, 1, 2});
  CHECK(arange_f({}).squeeze().dim() == 0);
  CHECK(arange_f({}).squeeze(0).dim() == 0);
  CHECK(arange_f({}).squeeze(I{-1}).dim() == 0);
  CHECK(arange_f({1, 1}).squeeze().dim() == 0);

  Tensor b = arange_f({2, 3});
  CHECK(vec(b.unsqueeze(0).sizes()) == I{1, 2, 3});
  CHECK(vec(b.unsqueeze(0).strides()) == I{6, 3, 1});
  CHECK(vec(b.unsqueeze(1).strides()) == I{3, 3, 1});
  CHECK(vec(b.unsqueeze(2).strides()) == I{3, 1, 1});
  CHECK(vec(b.unsqueeze(-1).sizes()) == I{2, 3, 1});
  CHECK(vec(b.unsqueeze(-3).sizes()) == I{1, 2, 3});
  CHECK(b.unsqueeze(1).is_contiguous());
  CHECK(vec(arange_f({}).unsqueeze(0).sizes()) == I{1});
  CHECK(vec(arange_f({}).unsqueeze(-1).sizes()) == I{1});

  CHECK_THROWS_WITH(b.unsqueeze(3),
                    "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
  CHECK_THROWS_WITH(b.unsqueeze(-4),
                    "Dimension out of range (expected to be in range of [-3, 2], but got -4)");
  CHECK_THROWS_WITH(b.unsqueeze_(3),
                    "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
  CHECK_THROWS_WITH(b.squeeze(2),
                    "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  CHECK_THROWS_WITH(b.squeeze_(2),
                    "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  CHECK_THROWS_WITH(arange_f({}).squeeze(1),
                    "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
  CHECK_THROWS_WITH(a.squeeze(I{0, -4}), "dim 0 appears multiple times in the list of dims");
  CHECK_THROWS_WITH(a.squeeze(I{4}),
                    "Dimension out of range (expected to be in range of [-4, 3], but got 4)");
}

// ============================================================================================
// flatten, unflatten
// ============================================================================================

TEST_CASE("flatten and unflatten", "[ops][views]") {
  Tensor a = arange_f({2, 3, 4});
  CHECK(vec(a.flatten().sizes()) == I{24});
  CHECK(vec(a.flatten(1).sizes()) == I{2, 12});
  CHECK(vec(a.flatten(0, 1).sizes()) == I{6, 4});
  CHECK(vec(a.flatten(-2, -1).sizes()) == I{2, 12});
  CHECK(a.flatten(1, 1).is_same(a));  // PyTorch returns the tensor itself
  CHECK(vec(arange_f({}).flatten().sizes()) == I{1});
  CHECK(arange_f({}).flatten().is_view());
  CHECK(vec(empty({0, 1, 3, 0}).flatten(1, 2).sizes()) == I{0, 3, 0});
  Tensor tf = a.transpose(0, 1).flatten(1);  // a copy: dims 1..2 are not mergeable
  CHECK(vec(tf.sizes()) == I{3, 8});
  CHECK_FALSE(tf.is_view());
  CHECK(at(tf, {1, 5}) == at(a, {1, 1, 1}));

  CHECK(vec(a.unflatten(1, {3, 1}).sizes()) == I{2, 3, 1, 4});
  CHECK(vec(a.unflatten(-1, {2, -1}).sizes()) == I{2, 3, 2, 2});
  CHECK(vec(a.unflatten(2, {-1}).sizes()) == I{2, 3, 4});
  CHECK(values(a.unflatten(2, {2, 2})) == values(a));
  CHECK(vec(empty({2, 0}).unflatten(1, {0, 5}).sizes()) == I{2, 0, 5});

  CHECK_THROWS_WITH(a.flatten(2, 0),
                    "flatten() has invalid args: start_dim cannot come after end_dim");
  CHECK_THROWS_WITH(a.flatten(0, 3),
                    "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
  CHECK_THROWS_WITH(arange_f({2, 3}).unflatten(1, {2, 2}),
                    "unflatten: Provided sizes [2, 2] don't multiply up to the size of dim 1 (3) "
                    "in the input tensor");
  CHECK_THROWS_WITH(arange_f({2, 3}).unflatten(-1, {0, -1}),
                    "unflatten: Provided sizes [0, -1] don't multiply up to the size of dim 1 "
                    "(3) in the input tensor");
  CHECK_THROWS_WITH(arange_f({2, 3}).unflatten(1, {-1, -1}),
                    "unflatten got an unexpected error:\nonly one dimension can be inferred");
  CHECK_THROWS_WITH(arange_f({2, 3}).unflatten(1, {}), "unflatten: sizes must be non-empty");
  CHECK_THROWS_WITH(arange_f({2, 3}).unflatten(1, {-2, 3}), "invalid shape dimension -2");
  CHECK_THROWS_WITH(empty({2, 0}).unflatten(1, {0, -1}),
                    "cannot reshape tensor of 0 elements into shape [0, -1] because the "
                    "unspecified dimension size -1 can be any value and is ambiguous");
  CHECK_THROWS_WITH(arange_f({}).unflatten(0, {1}),
                    "Dimension specified as 0 but tensor has no dimensions");
  CHECK_THROWS_WITH(arange_f({2, 3}).unflatten(2, {1}),
                    "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

// ============================================================================================
// split, chunk, unbind
// ============================================================================================

TEST_CASE("split and split_with_sizes", "[ops][views]") {
  Tensor a = arange_f({5});
  auto s = a.split(2);
  REQUIRE(s.size() == 3);
  CHECK(values(s[0]) == V{0, 1});
  CHECK(values(s[1]) == V{2, 3});
  CHECK(values(s[2]) == V{4});
  CHECK(s[2].storage_offset() == 4);
  CHECK(a.split(7).size() == 1);  // larger than the dim: the whole tensor, one piece
  CHECK(a.split(5).size() == 1);
  CHECK(empty({0}).split(2).size() == 1);
  CHECK(empty({0}).split(0).size() == 1);
  CHECK(vec(arange_f({2, 5}).split(2, -1)[2].sizes()) == I{2, 1});

  auto w = a.split_with_sizes({2, 0, 3});
  REQUIRE(w.size() == 3);
  CHECK(values(w[0]) == V{0, 1});
  CHECK(w[1].numel() == 0);
  CHECK(values(w[2]) == V{2, 3, 4});
  CHECK(a.split(I{1, 4})[1].numel() == 4);
  CHECK(empty({0}).split_with_sizes({}).empty());

  CHECK_THROWS_WITH(a.split(0),
                    "split_size can only be 0 if dimension size is 0, but got dimension size of 5");
  CHECK_THROWS_WITH(a.split(-1), "split expects split_size be non-negative, but got split_size=-1");
  CHECK_THROWS_WITH(arange_f({}).split(1), "split expects at least a 1-dimensional tensor");
  CHECK_THROWS_WITH(a.split(1, 1),
                    "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
  CHECK_THROWS_WITH(a.split_with_sizes({2, 4}, -1),
                    "split_with_sizes expects split_sizes to sum exactly to 5 (input tensor's "
                    "size at dimension -1), but got split_sizes=[2, 4]");
  CHECK_THROWS_WITH(a.split_with_sizes({2, 2}),
                    "split_with_sizes expects split_sizes to sum exactly to 5 (input tensor's "
                    "size at dimension 0), but got split_sizes=[2, 2]");
  CHECK_THROWS_WITH(a.split_with_sizes({}),
                    "split_with_sizes expects split_sizes to sum exactly to 5 (input tensor's "
                    "size at dimension 0), but got split_sizes=[]");
  CHECK_THROWS_WITH(a.split(I{6, -1}),
                    "split_with_sizes expects split_sizes have only non-negative entries, but "
                    "got split_sizes=[6, -1]");
  CHECK_THROWS_WITH(a.split_with_sizes({-1, 6}),
                    "split_with_sizes expects split_sizes have only non-negative entries, but "
                    "got split_sizes=[-1, 6]");
  CHECK_THROWS_WITH(arange_f({}).split_with_sizes({1}),
                    "split expects at least a 1-dimensional tensor");
}

TEST_CASE("chunk and unbind", "[ops][views]") {
  auto sizes = [](const std::vector<Tensor>& ts) {
    I out;
    for (const Tensor& t : ts) out.push_back(t.numel());
    return out;
  };
  CHECK(sizes(empty({5}).chunk(3)) == I{2, 2, 1});
  CHECK(sizes(empty({6}).chunk(4)) == I{2, 2, 2});  // fewer chunks than asked, as PyTorch
  CHECK(sizes(empty({5}).chunk(4)) == I{2, 2, 1});
  CHECK(sizes(empty({5}).chunk(9)) == I{1, 1, 1, 1, 1});
  CHECK(sizes(empty({0}).chunk(3)) == I{0, 0, 0});
  CHECK(empty({0, 2}).chunk(2, 0).size() == 2);
  CHECK(vec(empty({0, 2}).chunk(2, 1)[1].sizes()) == I{0, 1});
  auto c = arange_f({2, 5}).chunk(2, -1);
  CHECK(values(c[1]) == V{3, 4, 8, 9});

  auto u = arange_f({2, 3}).unbind(1);
  REQUIRE(u.size() == 3);
  CHECK(values(u[2]) == V{2, 5});
  CHECK(u[2].is_view());
  CHECK(arange_f({2, 3}).unbind(-2).size() == 2);
  CHECK(empty({0, 3}).unbind().empty());

  CHECK_THROWS_WITH(empty({3}).chunk(0), "chunk expects `chunks` to be greater than 0, got: 0");
  CHECK_THROWS_WITH(empty({3}).chunk(-1), "chunk expects `chunks` to be greater than 0, got: -1");
  CHECK_THROWS_WITH(arange_f({}).chunk(1), "chunk expects at least a 1-dimensional tensor");
  CHECK_THROWS_WITH(empty({3}).chunk(1, 1),
                    "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
  CHECK_THROWS_WITH(arange_f({}).unbind(0),
                    "Dimension specified as 0 but tensor has no dimensions");
  CHECK_THROWS_AS(arange_f({}).unbind(0), IndexError);
  CHECK_THROWS_WITH(empty({2, 3}).unbind(2),
                    "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

// ============================================================================================
// diagonal, unfold
// ============================================================================================

TEST_CASE("diagonal", "[ops][views]") {
  Tensor a = arange_f({3, 4});
  CHECK(values(a.diagonal()) == V{0, 5, 10});
  CHECK(values(a.diagonal(1)) == V{1, 6, 11});
  CHECK(values(a.diagonal(2)) == V{2, 7});
  CHECK(values(a.diagonal(-1)) == V{4, 9});
  CHECK(values(a.diagonal(-2)) == V{8});
  CHECK(a.diagonal(-1).storage_offset() == 4);
  CHECK(a.diagonal(5).numel() == 0);
  CHECK(a.diagonal(5).storage_offset() == 0);  // off the end: the offset stays put
  CHECK(a.diagonal(-5).numel() == 0);
  CHECK(values(a.diagonal(0, 1, 0)) == V{0, 5, 10});

  Tensor b = arange_f({2, 3, 4});
  Tensor d = b.diagonal(1, 2, 0);  // the diagonal dim goes last
  CHECK(vec(d.sizes()) == I{3, 1});
  CHECK(vec(d.strides()) == I{4, 13});
  CHECK(at(d, {2, 0}) == at(b, {1, 2, 0}));
  CHECK(b.diagonal(-1, -1, 0).storage_offset() == 1);
  CHECK(vec(b.diagonal(0, -1, -2).sizes()) == I{2, 3});

  CHECK_THROWS_WITH(a.diagonal(0, 0, 0), "diagonal dimensions cannot be identical 0, 0");
  CHECK_THROWS_WITH(a.diagonal(0, -1, 1), "diagonal dimensions cannot be identical -1, 1");
  CHECK_THROWS_WITH(a.diagonal(0, 0, 2),
                    "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  CHECK_THROWS_WITH(arange_f({}).diagonal(),
                    "Dimension out of range (expected to be in range of [-1, 0], but got 1)");
}

TEST_CASE("unfold", "[ops][views]") {
  Tensor a = arange_f({2, 3});
  Tensor u = a.unfold(1, 2, 1);
  CHECK(vec(u.sizes()) == I{2, 2, 2});
  CHECK(vec(u.strides()) == I{3, 1, 1});
  CHECK(values(u) == V{0, 1, 1, 2, 3, 4, 4, 5});
  CHECK(vec(arange_f({6}).unfold(0, 4, 3).sizes()) == I{1, 4});
  CHECK(vec(arange_f({2, 3, 4}).unfold(-1, 2, 2).strides()) == I{12, 4, 2, 1});
  CHECK(vec(a.unfold(1, 0, 1).sizes()) == I{2, 4, 0});
  CHECK(vec(a.unfold(0, 1, 1).sizes()) == I{2, 3, 1});
  CHECK(vec(arange_f({}).unfold(0, 1, 1).sizes()) == I{1});
  CHECK(vec(arange_f({}).unfold(0, 0, 1).sizes()) == I{0});

  CHECK_THROWS_WITH(a.unfold(1, 4, 1), "maximum size for tensor at dimension 1 is 3 but size is 4");
  CHECK_THROWS_WITH(arange_f({}).unfold(0, 2, 1),
                    "maximum size for tensor at dimension 0 is 1 but size is 2");
  CHECK_THROWS_WITH(a.unfold(1, 2, 0), "step is 0 but must be > 0");
  CHECK_THROWS_WITH(a.unfold(1, -1, 1),
                    "Storage size calculation overflowed with sizes=[2, 5, -1] and strides=[3, 1, "
                    "1]");
  CHECK_THROWS_WITH(a.unfold(2, 1, 1),
                    "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
}

// ============================================================================================
// Edge shapes
// ============================================================================================

TEST_CASE("zero-size dims go through every view op", "[ops][views]") {
  Tensor z = empty({2, 0, 3});
  CHECK(vec(z.select(0, 1).sizes()) == I{0, 3});
  CHECK(vec(z.slice(2, 1).sizes()) == I{2, 0, 2});
  CHECK(vec(z.transpose(0, 1).sizes()) == I{0, 2, 3});
  CHECK(vec(z.permute({2, 1, 0}).sizes()) == I{3, 0, 2});
  CHECK(vec(z.view({0, 6}).sizes()) == I{0, 6});
  CHECK(vec(z.reshape({3, 0}).sizes()) == I{3, 0});
  CHECK(z.reshape({3, 0}).is_view());
  CHECK(vec(z.expand({4, 2, 0, 3}).sizes()) == I{4, 2, 0, 3});
  CHECK(vec(z.unsqueeze(1).sizes()) == I{2, 1, 0, 3});
  CHECK(vec(z.flatten().sizes()) == I{0});
  CHECK(vec(z.diagonal(0, 0, 2).sizes()) == I{0, 2});
  CHECK(vec(z.unfold(2, 2, 1).sizes()) == I{2, 0, 2, 2});
  CHECK(z.unbind(1).empty());
  CHECK(z.split(1, 1).size() == 1);
  CHECK(vec(z.movedim(1, 0).sizes()) == I{0, 2, 3});
  CHECK(vec(z.as_strided({2, 0}, {7, 7}, 1000).sizes()) == I{2, 0});
  for (const Tensor& v : {z.select(0, 1), z.slice(2, 1), z.view({0, 6})}) {
    CHECK(v.is_alias_of(z));
    CHECK(v.numel() == 0);
  }
}

TEST_CASE("0-d tensors", "[ops][views]") {
  Tensor s = arange_f({});
  s.data_ptr<float>()[0] = 7.f;
  CHECK(values(s.view({1, 1, 1})) == V{7});
  CHECK(values(s.reshape({1})) == V{7});
  CHECK(s.unsqueeze(0).dim() == 1);
  CHECK(s.expand({3}).stride(0) == 0);
  CHECK(s.squeeze().dim() == 0);
  CHECK(s.alias().dim() == 0);
  CHECK(s.permute({}).dim() == 0);
  CHECK(s.t().dim() == 0);
  CHECK(s.flatten().dim() == 1);
  CHECK(values(s.unfold(0, 1, 1)) == V{7});
  Tensor x = arange_f({3});
  CHECK(values(x[2]) == V{2});
  CHECK(x[2].dim() == 0);
  CHECK(x[2].storage_offset() == 2);
  CHECK(values(x[2].view({1})) == V{2});
  CHECK(x[2].unsqueeze(0).stride(0) == 1);
}

TEST_CASE("ranks above the inline limit go through the heap path", "[ops][views]") {
  Tensor a = arange_f({2, 1, 2, 1, 2, 1, 2});
  CHECK(a.dim() == 7);
  CHECK(vec(a.squeeze().sizes()) == I{2, 2, 2, 2});
  CHECK(vec(a.permute({6, 5, 4, 3, 2, 1, 0}).sizes()) == I{2, 1, 2, 1, 2, 1, 2});
  CHECK(values(a.transpose(0, 6)) == values(a.permute({6, 1, 2, 3, 4, 5, 0})));
  CHECK(vec(a[1].sizes()) == I{1, 2, 1, 2, 1, 2});
  CHECK(vec(a.unsqueeze(7).sizes()) == I{2, 1, 2, 1, 2, 1, 2, 1});
  CHECK(vec(a.squeeze().unsqueeze(0).sizes()) == I{1, 2, 2, 2, 2});  // back inline
  CHECK(values(a.view({16})) == values(a));
  Tensor b = arange_f(I(70, 1));  // more dims than the 64-bit dim set holds
  CHECK(b.permute([] {
           I p(70);
           std::iota(p.rbegin(), p.rend(), 0);
           return p;
         }())
            .dim() == 70);
  CHECK(b.squeeze(I{0, 69, 35}).dim() == 67);
  CHECK_THROWS_WITH(b.squeeze(I{69, -1}), "dim 69 appears multiple times in the list of dims");
  CHECK(b.movedim(69, 0).dim() == 70);
}

// ============================================================================================
// tensor_split, hsplit, vsplit, dsplit; narrow with a tensor start; the free functions
// ============================================================================================

namespace {
// (size along dim, storage offset) of each piece.
std::vector<std::pair<int64_t, int64_t>> pieces(const std::vector<Tensor>& ts, int64_t dim) {
  std::vector<std::pair<int64_t, int64_t>> out;
  for (const Tensor& t : ts) out.emplace_back(t.size(dim), t.storage_offset());
  return out;
}
using P = std::vector<std::pair<int64_t, int64_t>>;
}  // namespace

TEST_CASE("tensor_split by sections and by indices (values from torch 1.13)", "[ops][views]") {
  Tensor x = arange_f({7, 2});
  // The first size % sections pieces are one longer.
  CHECK(pieces(x.tensor_split(3), 0) == P{{3, 0}, {2, 6}, {2, 10}});
  CHECK(pieces(x.tensor_split(3, 1), 1) == P{{1, 0}, {1, 1}, {0, 2}});
  CHECK(pieces(x.tensor_split(9), 0).size() == 9);
  CHECK(pieces(x.tensor_split(9), 0).back() == std::pair<int64_t, int64_t>{0, 14});
  // Indices are slice bounds: clamped, and out of order gives an empty piece.
  CHECK(pieces(x.tensor_split({1, 5}), 0) == P{{1, 0}, {4, 2}, {2, 10}});
  CHECK(pieces(x.tensor_split({5, 1}), 0) == P{{5, 0}, {0, 10}, {6, 2}});
  CHECK(pieces(x.tensor_split({-1, 9}), 0) == P{{6, 0}, {1, 12}, {0, 14}});
  CHECK(pieces(x.tensor_split(I{}), 0) == P{{7, 0}});
  const auto parts = x.tensor_split(2, -1);
  CHECK(values(parts[1]) == V{1, 3, 5, 7, 9, 11, 13});
  CHECK(parts[0].is_alias_of(x));
  // A tensor argument: 0-d is a number of sections, 1-d a list of indices.
  CHECK(pieces(x.tensor_split(tensor(int64_t{3})), 0) == P{{3, 0}, {2, 6}, {2, 10}});
  CHECK(pieces(x.tensor_split(tensor({1, 3})), 0) == P{{1, 0}, {2, 2}, {4, 6}});
  CHECK(pieces(x.tensor_split(tensor({0, 1, 2, 3}).slice(0, 1, 4, 2)), 0) ==
        P{{1, 0}, {2, 2}, {4, 6}});  // a strided index tensor
  CHECK(pieces(tensor_split(x, 3), 0) == pieces(x.tensor_split(3), 0));
  CHECK(pieces(tensor_split(x, {1, 5}, 0), 0) == pieces(x.tensor_split({1, 5}), 0));
  CHECK(pieces(tensor_split(x, tensor({2})), 0) == P{{2, 0}, {5, 4}});

  CHECK_THROWS_WITH(x.tensor_split(0), "number of sections must be larger than 0, got 0");
  CHECK_THROWS_WITH(x.tensor_split(-1), "number of sections must be larger than 0, got -1");
  CHECK_THROWS_AS(x.tensor_split(2, 2), IndexError);
  CHECK_THROWS_WITH(x.tensor_split(2, 2),
                    "Dimension out of range (expected to be in range of [-2, 1], but got 2)");
  CHECK_THROWS_WITH(x.tensor_split(I{1}, -3),
                    "Dimension out of range (expected to be in range of [-2, 1], but got -3)");
  const char* zero_dim =
      "tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims";
  CHECK_THROWS_WITH(arange_f({}).tensor_split(2), zero_dim);
  CHECK_THROWS_WITH(arange_f({}).tensor_split(I{1}), zero_dim);
  CHECK_THROWS_WITH(arange_f({}).tensor_split(tensor({1})), zero_dim);
  CHECK_THROWS_WITH(x.tensor_split(tensor({1.0, 3.0})),
                    "tensor_split expected tensor_indices_or_sections to have dtype of long, but "
                    "got Float");
  CHECK_THROWS_WITH(x.tensor_split(tensor(3, dtype(kInt))),
                    "tensor_split expected tensor_indices_or_sections to have dtype of long, but "
                    "got Int");
  CHECK_THROWS_WITH(x.tensor_split(tensor({{1, 3}})),
                    "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                    "one-dimensional tensor, but got a tensor with 2 dims");
}

TEST_CASE("hsplit, vsplit, dsplit", "[ops][views]") {
  Tensor x = arange_f({7, 2});
  CHECK(pieces(x.hsplit(2), 1) == P{{1, 0}, {1, 1}});
  CHECK(pieces(x.hsplit(I{1}), 1) == P{{1, 0}, {1, 1}});
  CHECK(pieces(x.hsplit({1}), 1) == P{{2, 0}});  // braces around one number: one section
  CHECK(pieces(x[0].hsplit(2), 0) == P{{1, 0}, {1, 1}});  // a 1-d tensor splits along dim 0
  CHECK(pieces(x.vsplit(7), 0).size() == 7);
  CHECK(pieces(x.vsplit({2, 3}), 0) == P{{2, 0}, {1, 4}, {4, 6}});
  Tensor y = x.unsqueeze(0);
  CHECK(pieces(y.dsplit(2), 2) == P{{1, 0}, {1, 1}});
  CHECK(pieces(y.dsplit(I{1}), 2) == P{{1, 0}, {1, 1}});
  CHECK(pieces(hsplit(x, 2), 1) == pieces(x.hsplit(2), 1));
  CHECK(pieces(hsplit(x, I{1}), 1) == pieces(x.hsplit(I{1}), 1));
  CHECK(pieces(vsplit(x, 7), 0) == pieces(x.vsplit(7), 0));
  CHECK(pieces(vsplit(x, {2, 3}), 0) == pieces(x.vsplit({2, 3}), 0));
  CHECK(pieces(dsplit(y, 2), 2) == pieces(y.dsplit(2), 2));
  CHECK(pieces(dsplit(y, I{1}), 2) == pieces(y.dsplit(I{1}), 2));

  CHECK_THROWS_WITH(x.hsplit(3),
                    "torch.hsplit attempted to split along dimension 1, but the size of the "
                    "dimension 2 is not divisible by the split_size 3!");
  CHECK_THROWS_WITH(x.hsplit(0),
                    "torch.hsplit attempted to split along dimension 1, but the size of the "
                    "dimension 2 is not divisible by the split_size 0!");
  CHECK_THROWS_WITH(x.vsplit(2),
                    "torch.vsplit attempted to split along dimension 0, but the size of the "
                    "dimension 7 is not divisible by the split_size 2!");
  CHECK_THROWS_WITH(y.dsplit(0),
                    "torch.dsplit attempted to split along dimension 2, but the size of the "
                    "dimension 2 is not divisible by the split_size 0!");
  CHECK_THROWS_WITH(x.hsplit(-1), "number of sections must be larger than 0, got -1");
  CHECK_THROWS_WITH(arange_f({}).hsplit(2),
                    "torch.hsplit requires a tensor with at least 1 dimension, but got a tensor "
                    "with 0 dimensions!");
  CHECK_THROWS_WITH(arange_f({}).hsplit(I{1}),
                    "torch.hsplit requires a tensor with at least 1 dimension, but got a tensor "
                    "with 0 dimensions!");
  CHECK_THROWS_WITH(x[0].vsplit(2),
                    "torch.vsplit requires a tensor with at least 2 dimension, but got a tensor "
                    "with 1 dimensions!");
  CHECK_THROWS_WITH(x[0].vsplit(I{1}),
                    "torch.vsplit requires a tensor with at least 2 dimension, but got a tensor "
                    "with 1 dimensions!");
  CHECK_THROWS_WITH(x.dsplit(2),
                    "torch.dsplit requires a tensor with at least 3 dimension, but got a tensor "
                    "with 2 dimensions!");
  CHECK_THROWS_WITH(x.dsplit(I{1}),
                    "torch.dsplit requires a tensor with at least 3 dimension, but got a tensor "
                    "with 2 dimensions!");
}

TEST_CASE("narrow: a bad start is libtorch 1.13's IndexError; a tensor start", "[ops][views]") {
  Tensor x = arange_f({3, 4});
  // libtorch 1.13 wraps start as a dim (later versions say "start out of range").
  CHECK_THROWS_AS(x.narrow(0, 4, 0), IndexError);
  CHECK_THROWS_WITH(x.narrow(0, 4, 0),
                    "Dimension out of range (expected to be in range of [-3, 2], but got 4)");
  CHECK_THROWS_AS(narrow(x, 0, -4, 1), IndexError);
  CHECK(values(x.narrow(0, tensor(int64_t{1}), 1)) == V{4, 5, 6, 7});
  CHECK(values(x.narrow(1, tensor(-1, dtype(kInt)), 1)) == V{3, 7, 11});
  CHECK(values(narrow(x, 0, tensor(int64_t{2}), 1)) == V{8, 9, 10, 11});
  CHECK(x.narrow(0, tensor(int64_t{1}), 1).is_alias_of(x));
  const char* msg = "start must be an 0-dim integral Tensor.";
  CHECK_THROWS_WITH(x.narrow(0, tensor(1.0), 1), msg);
  CHECK_THROWS_WITH(x.narrow(0, tensor({1}), 1), msg);
  CHECK_THROWS_WITH(narrow(x, 0, tensor(true), 1), msg);
  CHECK_THROWS_AS(x.narrow(0, tensor(int64_t{9}), 1), IndexError);
}

TEST_CASE("free functions: libtorch's at:: spellings of the view methods", "[ops][views]") {
  Tensor a = arange_f({2, 3, 4});
  const auto same = [](const Tensor& x, const Tensor& y) {
    return x.sizes() == y.sizes() && x.strides() == y.strides() &&
           x.storage_offset() == y.storage_offset() && x.is_alias_of(y);
  };
  CHECK(same(alias(a), a.alias()));
  CHECK(same(as_strided(a, {2, 2}, {1, 2}, 1), a.as_strided({2, 2}, {1, 2}, 1)));
  CHECK(same(as_strided(a, {3}, {2}), a.as_strided({3}, {2})));
  CHECK(same(select(a, 1, -1), a.select(1, -1)));
  CHECK(same(slice(a, 2, 1, 4, 2), a.slice(2, 1, 4, 2)));
  CHECK(same(slice(a), a.slice()));
  CHECK(same(narrow(a, 2, 1, 2), a.narrow(2, 1, 2)));
  CHECK(same(reshape(a, {6, 4}), a.reshape({6, 4})));
  CHECK(same(transpose(a, 0, 2), a.transpose(0, 2)));
  CHECK(same(swapdims(a, 0, 1), a.swapdims(0, 1)));
  CHECK(same(swapaxes(a, 1, 2), a.swapaxes(1, 2)));
  CHECK(same(t(a[0]), a[0].t()));
  CHECK(same(permute(a, {2, 0, 1}), a.permute({2, 0, 1})));
  CHECK(same(movedim(a, {0, 1}, {2, 0}), a.movedim({0, 1}, {2, 0})));
  CHECK(same(movedim(a, 0, -1), a.movedim(0, -1)));
  CHECK(same(moveaxis(a, {0}, {1}), a.moveaxis({0}, {1})));
  CHECK(same(moveaxis(a, 2, 0), a.moveaxis(2, 0)));
  Tensor u = arange_f({2, 1, 3, 1});
  CHECK(same(squeeze(u), u.squeeze()));
  CHECK(same(squeeze(u, 1), u.squeeze(1)));
  CHECK(same(squeeze(u, I{1, 3}), u.squeeze(I{1, 3})));
  CHECK(same(unsqueeze(a, 3), a.unsqueeze(3)));
  CHECK(same(flatten(a), a.flatten()));
  CHECK(same(flatten(a, 1), a.flatten(1)));
  CHECK(same(unflatten(a, 2, {2, 2}), a.unflatten(2, {2, 2})));
  CHECK(same(diagonal(a), a.diagonal()));
  CHECK(same(diagonal(a, 1, 1, 2), a.diagonal(1, 1, 2)));
  Tensor& d = detach_(u);
  CHECK(&d == &u);
  CHECK(same(detach(a), a));
  const auto all_same = [&](const std::vector<Tensor>& x, const std::vector<Tensor>& y) {
    if (x.size() != y.size()) return false;
    for (std::size_t i = 0; i < x.size(); ++i) {
      if (!same(x[i], y[i])) return false;
    }
    return true;
  };
  CHECK(all_same(split(a, 2, 2), a.split(2, 2)));
  CHECK(all_same(split(a, {1, 3}, 2), a.split({1, 3}, 2)));
  CHECK(all_same(split(a, 1), a.split(1)));
  CHECK(all_same(split_with_sizes(a, {2, 1}, 1), a.split_with_sizes({2, 1}, 1)));
  CHECK(all_same(chunk(a, 2, -1), a.chunk(2, -1)));
  CHECK(all_same(unbind(a), a.unbind()));
  CHECK(all_same(unbind(a, 1), a.unbind(1)));
  // In place through the free function: self itself changes.
  Tensor b = arange_f({2, 3});
  const Tensor& r = as_strided_(b, {3, 2}, {1, 3});
  CHECK(&r == &b);
  CHECK(vec(b.strides()) == I{1, 3});
  // Errors are the methods' own.
  CHECK_THROWS_WITH(select(a, 0, 2),
                    "select(): index 2 out of range for tensor of size [2, 3, 4] at dimension 0");
  CHECK_THROWS_AS(transpose(a, 0, 3), IndexError);
}

// Overflow: kHuge's product overflows int64; kBig's numel (2^61) fits but its float64 bytes do
// not. A view of stride-0 dims reaches one element however many it repeats, so kBig views are
// legal (as in PyTorch) and kHuge ones are refused by numel.
namespace {
constexpr int64_t k29 = int64_t{1} << 29, k32 = int64_t{1} << 32, k62 = int64_t{1} << 62;
const std::vector<int64_t> kBig{2, 4, k29, k29};
const std::vector<int64_t> kHuge{k32, k32};
const char* const kNumelMsg = "numel: integer multiplication overflow";
}  // namespace

TEST_CASE("as_strided: element and byte counts beyond int64", "[ops][views]") {
  Tensor d = zeros({1}, kDouble);
  CHECK_THROWS_MATCHES(d.as_strided(kHuge, {0, 0}), Error, Catch::Message(kNumelMsg));
  CHECK_THROWS_MATCHES(d.as_strided_(kHuge, {0, 0}), Error, Catch::Message(kNumelMsg));
  CHECK(d.as_strided(kBig, {0, 0, 0, 0}).numel() == int64_t{1} << 61);
  CHECK_THROWS_MATCHES(d.as_strided(kBig, {1, 1, 1, 1}), Error,
                       Catch::Message("setStorage: sizes [2, 4, 536870912, 536870912], strides "
                                      "[1, 1, 1, 1], storage offset 0, and itemsize 8 requiring "
                                      "a storage size of 8589934616 are out of bounds for "
                                      "storage of size 8"));
  // The offset's bytes overflow (PyTorch's check wraps here and lets the view through).
  CHECK_THROWS_MATCHES(d.as_strided({1}, {1}, int64_t{1} << 61), Error,
                       Catch::Message("Storage size calculation overflowed with sizes=[1] and "
                                      "strides=[1]"));
  // No element, nothing reached: overflowing strides and offsets pass, as in PyTorch.
  CHECK(d.as_strided({0, k62}, {k62, 4}).numel() == 0);
  CHECK(d.as_strided({0}, {1}, k62).numel() == 0);
}

TEST_CASE("expand: element counts beyond int64", "[ops][views]") {
  Tensor d = zeros({1}, kDouble);
  CHECK_THROWS_MATCHES(d.expand(kHuge), Error, Catch::Message(kNumelMsg));
  CHECK_THROWS_MATCHES(zeros({3}).expand({k62, 3}), Error, Catch::Message(kNumelMsg));
  // PyTorch's sticky rule: a 0 before the overflow gives an empty view, after it does not.
  CHECK(d.expand({0, k32, k32}).numel() == 0);
  CHECK_THROWS_MATCHES(d.expand({k32, k32, 0}), Error, Catch::Message(kNumelMsg));
  Tensor big = d.expand(kBig);  // 2^64 bytes' worth of elements over 8 bytes
  CHECK(big.numel() == int64_t{1} << 61);
  CHECK(big.strides() == std::vector<int64_t>{0, 0, 0, 0});
  CHECK(big.select(3, k29 - 1).select(2, k29 - 1).select(1, 3).select(0, 1).item<double>() == 0);
}

TEST_CASE("view and reshape: shapes whose product overflows int64", "[ops][views]") {
  Tensor none = zeros({0});
  // PyTorch's product wraps to 0, matches, and setting the sizes then fails.
  CHECK_THROWS_MATCHES(none.view({k62, 4}), Error, Catch::Message(kNumelMsg));
  CHECK_THROWS_MATCHES(none.view({k62, 4, 0}), Error, Catch::Message(kNumelMsg));
  CHECK_THROWS_MATCHES(none.reshape({k62, 4}), Error, Catch::Message(kNumelMsg));
  CHECK_THROWS_MATCHES(none.unflatten(0, {k62, 4}), Error, Catch::Message(kNumelMsg));
  CHECK_THROWS_MATCHES(zeros({4}).unflatten(0, {k62, 4, -1}), Error,
                       Catch::Message("unflatten: Provided sizes [4611686018427387904, 4, -1] "
                                      "don't multiply up to the size of dim 0 (4) in the input "
                                      "tensor"));
  CHECK(none.view({0, k62, 4}).strides() == std::vector<int64_t>{0, 4, 1});  // torch's, wrapped
  CHECK_THROWS_MATCHES(
      zeros({4}).view({k62, 4, -1}), Error,
      Catch::Message("shape '[4611686018427387904, 4, -1]' is invalid for input of size 4"));
  CHECK_THROWS_MATCHES(
      zeros({4}).reshape({k32, k32, -1}), Error,
      Catch::Message("shape '[4294967296, 4294967296, -1]' is invalid for input of size 4"));
  CHECK_THROWS_MATCHES(
      zeros({4}).view(kHuge), Error,
      Catch::Message("shape '[4294967296, 4294967296]' is invalid for input of size 4"));
  // 2^61 float64 elements (expanded) view and reshape freely, -1 included.
  Tensor big = zeros({1}, kDouble).expand({int64_t{1} << 61});
  Tensor v = big.view({int64_t{1} << 60, 2});
  CHECK(v.strides() == std::vector<int64_t>{0, 0});
  Tensor r = big.reshape({int64_t{1} << 31, -1});
  CHECK(r.sizes() == std::vector<int64_t>{int64_t{1} << 31, int64_t{1} << 30});
  CHECK(r.is_alias_of(big));
}

TEST_CASE("unfold: window counts beyond int64 and huge steps", "[ops][views]") {
  CHECK_THROWS_MATCHES(zeros({1}).expand({k62}).unfold(0, 4, 1), Error, Catch::Message(kNumelMsg));
  Tensor w = zeros({1}, kDouble).expand({int64_t{1} << 61}).unfold(0, 2, 1);
  CHECK(w.sizes() == std::vector<int64_t>{(int64_t{1} << 61) - 1, 2});
  // stride * step overflows: one window, whose stride is never used, keeps the old one
  // (PyTorch's product wraps and fails as a SymInt).
  Tensor a = arange_f({2, 4}).unfold(0, 1, (int64_t{1} << 61) + 1);
  CHECK(a.sizes() == std::vector<int64_t>{1, 4, 1});
  CHECK(a.strides() == std::vector<int64_t>{4, 1, 4});
}

}  // namespace ops_views_test
