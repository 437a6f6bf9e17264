#include <tensorplay/core/tensor_impl.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <vector>

namespace core_tensor_impl_test {

using namespace tensorplay;

namespace {
struct FakeAutogradMeta final : AutogradMetaInterface {
  bool requires_grad() const override { return true; }
};
struct FakeQuantizer final : Quantizer {
  FakeQuantizer() : Quantizer(kQUInt8) {}
  QScheme qscheme() const noexcept override { return kPerTensorAffine; }
  bool equalTo(const Quantizer&) const noexcept override { return false; }
};
struct FakeSparse final : SparseState {};

intrusive_ptr<TensorImpl> make_impl(std::vector<int64_t> sizes, std::vector<int64_t> strides,
                                    std::size_t nbytes = 4096) {
  return make_intrusive<TensorImpl>(Storage(use_byte_size, nbytes), kFloat, sizes, strides);
}
}  // namespace

TEST_CASE("TensorImpl holds geometry, dtype, device and caches contiguity",
          "[core][tensor_impl]") {
  auto t = make_impl({2, 3, 4}, {12, 4, 1});
  CHECK(t->dim() == 3);
  CHECK(t->numel() == 24);
  CHECK(t->sizes() == std::vector<int64_t>{2, 3, 4});
  CHECK(t->strides() == std::vector<int64_t>{12, 4, 1});
  CHECK(t->size(-1) == 4);
  CHECK(t->stride(0) == 12);
  CHECK_THROWS_AS(t->size(3), IndexError);
  CHECK(t->dtype() == kFloat);
  CHECK(t->itemsize() == 4);
  CHECK(t->device() == Device(kCPU));
  CHECK(t->is_contiguous());
  CHECK(t->is_non_overlapping_and_dense());
  CHECK_FALSE(t->is_view());
  CHECK_FALSE(t->is_inference());
  CHECK_FALSE(t->has_quantizer());
  CHECK_FALSE(t->is_sparse());
  CHECK_FALSE(t->transform_value().defined());
  CHECK(t->autograd_meta() == nullptr);
  CHECK_FALSE(t->requires_grad());

  t->set_sizes_and_strides(std::vector<int64_t>{3, 2}, std::vector<int64_t>{1, 3}, 1);
  CHECK_FALSE(t->is_contiguous());
  CHECK(t->is_non_overlapping_and_dense());  // a transpose is dense
  CHECK(t->storage_offset() == 1);
  CHECK(t->data() == static_cast<char*>(t->storage().mutable_data()) + 4);
  t->set_sizes_and_strides(std::vector<int64_t>{3, 2}, std::vector<int64_t>{0, 1});
  CHECK_FALSE(t->is_non_overlapping_and_dense());  // expanded
  t->set_sizes_contiguous(std::vector<int64_t>{2, 0});
  CHECK(t->strides() == std::vector<int64_t>{1, 1});
  CHECK(t->numel() == 0);

  CHECK_THROWS_WITH(t->set_sizes_and_strides(std::vector<int64_t>{2}, std::vector<int64_t>{1, 1}),
                    "dimensionality of sizes (1) must match dimensionality of strides (2)");
  CHECK_THROWS_WITH(t->set_storage_offset(-1), "Tensor: invalid storage offset -1");
  CHECK_THROWS_WITH(
      t->set_sizes_contiguous(std::vector<int64_t>{-1, 2}),
      "Trying to create tensor with negative dimension -1: [-1, 2]");
}

TEST_CASE("the default geometry is c10's: rank 1, sizes [0]", "[core][tensor_impl]") {
  TensorImpl t(Storage(use_byte_size, 0), kDouble);
  CHECK(t.dim() == 1);
  CHECK(t.numel() == 0);
  CHECK(t.sizes() == std::vector<int64_t>{0});
  CHECK(t.data() == nullptr);  // zero bytes: no block
}

TEST_CASE("rank > 5 geometry spills to the heap and back", "[core][tensor_impl]") {
  auto t = make_impl({1, 2, 1, 2, 1, 2, 1, 2}, {16, 8, 8, 4, 4, 2, 2, 1});
  CHECK(t->dim() == 8);
  CHECK(t->numel() == 16);
  CHECK(t->is_contiguous());
  t->set_sizes_contiguous(std::vector<int64_t>{4, 4});
  CHECK(t->dim() == 2);
  CHECK(t->strides() == std::vector<int64_t>{4, 1});
}

TEST_CASE("channels-last strides are recognised and produced", "[core][tensor_impl]") {
  const std::vector<int64_t> sizes{2, 3, 4, 5};
  const auto cl = strides_for(sizes, MemoryFormat::ChannelsLast);
  CHECK(cl == std::vector<int64_t>{60, 1, 15, 3});
  auto t = make_impl(sizes, cl, 4 * 120);
  CHECK(t->is_contiguous(MemoryFormat::ChannelsLast));
  CHECK_FALSE(t->is_contiguous());
  CHECK(t->is_non_overlapping_and_dense());
  CHECK(t->suggest_memory_format() == MemoryFormat::ChannelsLast);
  CHECK_THROWS_WITH(strides_for(std::vector<int64_t>{2, 3}, MemoryFormat::ChannelsLast),
                    "required rank 4 tensor to use channels_last format");
}

TEST_CASE("the copy constructor shares data and version, drops autograd history",
          "[core][tensor_impl]") {
  auto a = make_impl({2, 3}, {3, 1});
  a->set_autograd_meta(std::make_shared<FakeAutogradMeta>());
  a->set_quantizer(std::make_shared<FakeQuantizer>());
  a->set_sparse_state(std::make_shared<FakeSparse>());
  a->set_transform_value(make_impl({1}, {1}));
  auto root = make_impl({2, 3}, {3, 1});
  a->set_view_of(*root, CreationMeta::NO_GRAD_MODE);
  REQUIRE(a->is_view());
  REQUIRE(a->requires_grad());

  auto b = make_intrusive<TensorImpl>(*a);  // TensorImpl b = a
  CHECK(b->storage().is_alias_of(a->storage()));  // storage shared: b is an alias
  CHECK(b->data() == a->data());
  CHECK(b->sizes() == a->sizes());
  CHECK(b->strides() == a->strides());
  CHECK(b->dtype() == a->dtype());
  CHECK(b->version_counter().shares_counter(a->version_counter()));
  CHECK(b->quantizer() == a->quantizer());
  CHECK(b->sparse_state() == a->sparse_state());
  CHECK(b->transform_value() == a->transform_value());
  CHECK(b->autograd_meta() == nullptr);  // no history
  CHECK_FALSE(b->is_view());             // nor where it came from
  CHECK_FALSE(b->requires_grad());
  CHECK(b.use_count() == 1);  // the reference count is the object's own, not copied

  a->bump_version();
  CHECK(b->version_counter().current_version() == 1);
  b->reset_version();  // clone's last step: a fresh counter at 0
  CHECK(b->version_counter().current_version() == 0);
  CHECK_FALSE(b->version_counter().shares_counter(a->version_counter()));

  auto c = a->shallow_copy_and_detach();
  CHECK(c->storage().is_alias_of(a->storage()));
  CHECK(c->autograd_meta() == nullptr);
}

TEST_CASE("a view records its root base and the mode it was made in", "[core][tensor_impl]") {
  auto root = make_impl({4}, {1});
  auto v = make_impl({2}, {1});
  v->share_version_counter(*root);
  root->bump_version();
  v->set_view_of(*root, CreationMeta::DEFAULT);
  CHECK(v->view_base().get() == root.get());
  CHECK(v->view_version() == 1);
  // A view of a view points at the root; a non-default mode sticks along the chain, and an
  // inference-mode one wins over anything later (c10's propagate_creation_meta).
  auto w = make_impl({1}, {1});
  w->share_version_counter(*v);
  v->set_creation_meta(CreationMeta::NO_GRAD_MODE);
  w->set_view_of(*v, CreationMeta::DEFAULT);
  CHECK(w->view_base().get() == root.get());
  CHECK(w->creation_meta() == CreationMeta::NO_GRAD_MODE);
  w->set_view_of(*v, CreationMeta::MULTI_OUTPUT_NODE);
  CHECK(w->creation_meta() == CreationMeta::MULTI_OUTPUT_NODE);
  v->set_creation_meta(CreationMeta::INFERENCE_MODE);
  w->set_view_of(*v, CreationMeta::MULTI_OUTPUT_NODE);
  CHECK(w->creation_meta() == CreationMeta::INFERENCE_MODE);
}

TEST_CASE("release_resources drops what the impl holds when the last strong reference goes",
          "[core][tensor_impl]") {
  // c10's contract: a weak reference keeps the TensorImpl's memory, not its bytes or history.
  auto root = make_impl({4}, {1});
  auto a = make_impl({4}, {1});
  const Storage storage = a->storage();
  a->set_autograd_meta(std::make_shared<FakeAutogradMeta>());
  a->set_quantizer(std::make_shared<FakeQuantizer>());
  a->set_sparse_state(std::make_shared<FakeSparse>());
  a->set_transform_value(make_impl({1}, {1}));
  a->set_view_of(*root, CreationMeta::DEFAULT);
  std::weak_ptr<Quantizer> quantizer = a->quantizer();
  std::weak_ptr<SparseState> sparse = a->sparse_state();
  std::weak_ptr<AutogradMetaInterface> meta = a->autograd_meta();
  const weak_intrusive_ptr<TensorImpl> transform(a->transform_value());
  REQUIRE(storage.use_count() == 2);
  REQUIRE(root.use_count() == 2);
  const weak_intrusive_ptr<TensorImpl> weak(a);
  a.reset();
  CHECK(weak.use_count() == 0);
  CHECK(storage.use_count() == 1);  // the bytes are back with their other owner alone
  CHECK(root.use_count() == 1);     // the base is no longer held
  CHECK(quantizer.expired());
  CHECK(sparse.expired());
  CHECK(meta.expired());
  CHECK(transform.expired());
}

TEST_CASE("share_version_counter makes two impls one family", "[core][tensor_impl]") {
  auto a = make_impl({4}, {1});
  auto v = make_impl({2}, {1});
  v->share_version_counter(*a);
  a->bump_version();
  CHECK(v->version_counter().current_version() == 1);
}

TEST_CASE("the contiguous-sizes constructor matches set_sizes_contiguous",
          "[core][tensor_impl]") {
  // empty()'s constructor writes the geometry into a zeroed one of the right rank instead of
  // resizing the default one: every rank, inline and heap, must come out as the general path.
  const int64_t big = int64_t{1} << 32;
  const std::vector<std::vector<int64_t>> shapes{
      {},           {0},          {5},          {2, 3},          {2, 0, 3},
      {1, 1, 1, 1}, {2, 1, 3, 3}, {2, 3, 4, 5}, {1, 2, 3, 4, 5}, {2, 1, 2, 1, 2, 1},
      {1, 2, 1, 2, 1, 2, 1, 2},   {0, big, big}};
  for (const auto& sizes : shapes) {
    INFO("sizes " << IntArrayRef(sizes));
    auto expected = make_intrusive<TensorImpl>(Storage(use_byte_size, 0), kFloat);
    expected->set_sizes_contiguous(sizes);
    auto t = make_intrusive<TensorImpl>(Storage(use_byte_size, 0), kFloat, IntArrayRef(sizes));
    CHECK(t->dim() == static_cast<int64_t>(sizes.size()));
    CHECK(t->sizes() == expected->sizes());
    CHECK(t->strides() == expected->strides());
    CHECK(t->strides() == IntArrayRef(SizesAndStrides::compute_contiguous_strides(sizes)));
    CHECK(t->numel() == expected->numel());
    CHECK(t->is_contiguous());
    CHECK(t->is_non_overlapping_and_dense());
    CHECK(t->is_contiguous(MemoryFormat::ChannelsLast) ==
          expected->is_contiguous(MemoryFormat::ChannelsLast));
    CHECK(t->suggest_memory_format() == MemoryFormat::Contiguous);
    CHECK(t->storage_offset() == 0);
    CHECK(t->dtype() == kFloat);
    CHECK_FALSE(t->is_inference());
    CHECK(t->version_counter().enabled());
    CHECK(t->version_counter().current_version() == 0);
  }
  // A rank-4 tensor with one channel is both contiguous and channels-last.
  auto c1 = make_intrusive<TensorImpl>(Storage(use_byte_size, 0), kFloat,
                                       IntArrayRef(std::vector<int64_t>{2, 1, 3, 3}));
  CHECK(c1->is_contiguous(MemoryFormat::ChannelsLast));
  // Reshaping afterwards works from the constructed geometry (inline <-> heap).
  auto r = make_intrusive<TensorImpl>(Storage(use_byte_size, 0), kFloat,
                                      IntArrayRef(std::vector<int64_t>{2, 3}));
  r->set_sizes_contiguous(std::vector<int64_t>{1, 2, 1, 2, 1, 2, 1});
  CHECK(r->strides() == std::vector<int64_t>{8, 4, 4, 2, 2, 1, 1});
  r->set_sizes_contiguous(std::vector<int64_t>{4});
  CHECK(r->strides() == std::vector<int64_t>{1});
}

TEST_CASE("the contiguous-sizes constructor checks sizes and honours inference mode",
          "[core][tensor_impl]") {
  CHECK_THROWS_WITH(make_intrusive<TensorImpl>(Storage(use_byte_size, 0), kFloat,
                                               IntArrayRef(std::vector<int64_t>{2, -1})),
                    "Trying to create tensor with negative dimension -1: [2, -1]");
  const int64_t big = int64_t{1} << 32;
  CHECK_THROWS_WITH(make_intrusive<TensorImpl>(Storage(use_byte_size, 0), kFloat,
                                               IntArrayRef(std::vector<int64_t>{big, big, 4})),
                    "numel: integer multiplication overflow");
  {
    InferenceMode guard;
    auto t = make_intrusive<TensorImpl>(Storage(use_byte_size, 0), kFloat,
                                        IntArrayRef(std::vector<int64_t>{2}));
    CHECK(t->is_inference());
    CHECK_FALSE(t->version_counter().enabled());
  }
  auto t = make_intrusive<TensorImpl>(Storage(use_byte_size, 0), kFloat,
                                      IntArrayRef(std::vector<int64_t>{2}));
  CHECK_FALSE(t->is_inference());
  CHECK(t->version_counter().enabled());
}

// Note [Unique release probe]: the three objects a tensor allocates opt in.
static_assert(detail::probes_unique_release_v<TensorImpl>);
static_assert(detail::probes_unique_release_v<StorageImpl>);
static_assert(detail::probes_unique_release_v<VersionCounter>);

TEST_CASE("a TensorImpl released by its sole owner frees its storage and counter",
          "[core][tensor_impl]") {
  // The probe path (no RMW) must run the same destructors as the RMW path: the storage's bytes
  // go back to the allocator, a shared storage and counter survive their other owner.
  auto a = make_intrusive<TensorImpl>(Storage(use_byte_size, 64), kFloat,
                                      IntArrayRef(std::vector<int64_t>{16}));
  auto b = make_intrusive<TensorImpl>(*a);  // shares storage and version counter
  const Storage storage = a->storage();
  CHECK(storage.use_count() == 3u);
  CHECK(a->version_counter().use_count() == 2u);
  a.reset();  // sole owner of a, sharer of the storage and the counter
  CHECK(storage.use_count() == 2u);
  CHECK(b->version_counter().use_count() == 1u);
  b->bump_version();
  CHECK(b->version_counter().current_version() == 1);
  weak_intrusive_ptr<TensorImpl> w(b);
  b.reset();  // a weak reference: release_resources drops the storage now
  CHECK(w.expired());
  CHECK(storage.use_count() == 1u);
}

}  // namespace core_tensor_impl_test
