// TensorPlay quickstart: the memory stack from the user's side.
//
//   bytes      DataPtr <- Allocator (a caching allocator on the CPU)
//   containers Storage -> StorageImpl (reference-counted, shared by views)
//   tensors    Tensor -> TensorImpl (sizes/strides inline, a shared version counter)
#include <tensorplay/tensorplay.hpp>

#include <iostream>

namespace tp = tensorplay;

int main() {
  std::cout << "TensorPlay " << TENSORPLAY_VERSION_MAJOR << "." << TENSORPLAY_VERSION_MINOR
            << "." << TENSORPLAY_VERSION_PATCH << "\n\n";

  // 1. Tensors, and where their bytes come from.
  auto& cache = tp::CachingAllocator::instance();
  const auto before = cache.stats();
  tp::Tensor a = tp::empty({2, 3});
  std::cout << "a = empty({2, 3}): sizes " << a.sizes() << ", strides " << a.strides()
            << ", dtype " << a.dtype() << ", device " << a.device() << ", "
            << a.nbytes() << " bytes\n";
  void* first_block = a.data_ptr();
  a.reset();                     // the block goes back to the cache, not to the system
  tp::Tensor b = tp::empty({6});  // same rounded size: the same block comes back (LIFO)
  const auto after = cache.stats();
  std::cout << "free a, then b = empty({6}) reuses a's block: "
            << (b.data_ptr() == first_block ? "true" : "false") << "\n"
            << "allocator: " << after.num_allocs - before.num_allocs << " allocations, "
            << after.cache_hits - before.cache_hits << " cache hits, "
            << after.allocated_bytes << " bytes in use, " << after.cached_bytes
            << " bytes cached\n\n";

  // 2. Storage sharing: a copy of a Tensor is the same tensor; a TensorImpl copy is an alias.
  tp::Tensor c = b;  // Python's `c = b`: one more reference, nothing copied
  std::cout << "c = b: same TensorImpl " << (c.is_same(b) ? "true" : "false")
            << ", use_count " << b.use_count() << "\n";
  tp::Tensor alias(b.unsafeGetTensorImpl()->shallow_copy_and_detach());
  std::cout << "alias (a TensorImpl copy): shares storage " << (alias.is_alias_of(b) ? "true" : "false")
            << ", storage use_count " << b.storage().use_count() << "\n\n";

  // 3. The version counter: shared by aliases, bumped by in-place writes.
  std::cout << "b._version() = " << b._version() << ", alias._version() = " << alias._version()
            << "\n";
  b.unsafeGetTensorImpl()->bump_version();  // what every in-place op does
  std::cout << "after an in-place write to b: b._version() = " << b._version()
            << ", alias._version() = " << alias._version() << "\n";

  // 4. Foreign memory: from_blob wraps it without copying.
  float data[6] = {1, 2, 3, 4, 5, 6};
  tp::Tensor f = tp::from_blob(data, {3, 2});
  f.data_ptr<float>()[0] = 99.f;
  std::cout << "\nfrom_blob over a float[6]: data[0] is now " << data[0] << ", strides "
            << f.strides() << "\n";

  // 5. The spec's view/clone demo: a view shares bytes and version, a clone owns new bytes.
  std::cout << "\n--- views and clones ---\n";
  tp::Tensor m = tp::tensor({{1., 2., 3.}, {4., 5., 6.}});
  tp::Tensor v = m[0];       // view
  std::cout << std::boolalpha << (m.data_ptr() == v.data_ptr()) << "\n";  // true: same storage
  tp::Tensor k = m.clone();  // clone
  std::cout << (m.data_ptr() == k.data_ptr()) << "\n";                    // false: new storage
  v[0].fill_(99.0);          // write the view: m changes
  k[0].fill_(-1.0);          // write the clone: m does not
  std::cout << m << "\n";
  std::cout << "m._version() = " << m._version() << " (shared with the view), k._version() = "
            << k._version() << "\n";

  // 6. Indexing as in libtorch.
  using namespace tp::indexing;
  std::cout << "m.index({Slice(), 1}) = " << m.index({Slice(), 1}) << "\n";
  std::cout << "arange(6).view({2, 3}).t() = " << tp::arange(6).view({2, 3}).t() << "\n";

  // 7. Math: broadcasting, PyTorch's type promotion, reductions, matmul, softmax.
  std::cout << "\n--- compute ---\n";
  tp::Tensor x = tp::arange(6, tp::kInt).view({2, 3});
  std::cout << "x + 2.5 = " << x + 2.5 << "\n";  // int32 + a number -> float32
  tp::Tensor w = tp::tensor({{1., 0.}, {0., 1.}, {1., 1.}});
  tp::Tensor y = x.to(tp::kFloat).matmul(w);     // [2, 3] @ [3, 2]
  std::cout << "x @ w = " << y << "\n";
  std::cout << "softmax(x @ w, 1) = " << tp::softmax(y, 1) << "\n";
  std::cout << "sum over dim 0 = " << y.sum({0}) << ", mean = " << y.mean() << "\n";
  return 0;
}
