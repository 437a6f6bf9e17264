#include <tensorplay/core/empty.hpp>
#include <tensorplay/core/tensor.hpp>

#include <catch2/catch.hpp>

#include <vector>

namespace core_tensor_test {

using namespace tensorplay;

TEST_CASE("a Tensor is one word and copying it shares the TensorImpl", "[core][tensor]") {
  STATIC_REQUIRE(sizeof(Tensor) == sizeof(void*));
  Tensor a = empty({2, 3});
  Tensor b = a;  // Python's b = a: nothing is copied
  CHECK(b.is_same(a));
  CHECK(a.use_count() == 2);
  CHECK(b.unsafeGetTensorImpl() == a.unsafeGetTensorImpl());
  b.reset();
  CHECK_FALSE(b.defined());
  CHECK(a.use_count() == 1);
  CHECK(a.weak_use_count() == 1);  // c10 counts the strong owners as one weak reference
}

TEST_CASE("Tensor accessors mirror libtorch", "[core][tensor]") {
  Tensor t = empty({2, 3, 4}, dtype(kDouble));
  CHECK(t.defined());
  CHECK(t.sizes() == std::vector<int64_t>{2, 3, 4});
  CHECK(t.shape() == t.sizes());
  CHECK(t.strides() == std::vector<int64_t>{12, 4, 1});
  CHECK(t.size(0) == 2);
  CHECK(t.size(-1) == 4);
  CHECK(t.stride(1) == 4);
  CHECK(t.dim() == 3);
  CHECK(t.ndimension() == 3);
  CHECK(t.numel() == 24);
  CHECK(t.dtype() == kDouble);
  CHECK(t.scalar_type() == kFloat64);
  CHECK(t.element_size() == 8);
  CHECK(t.nbytes() == 192);
  CHECK(t.device() == Device("cpu"));
  CHECK(t.is_cpu());
  CHECK_FALSE(t.is_cuda());
  CHECK(t.is_floating_point());
  CHECK(t.storage_offset() == 0);
  CHECK(t.is_contiguous());
  CHECK(t.storage().nbytes() == 192);
  CHECK(t.data_ptr() == t.storage().data());
  CHECK(t.data_ptr<double>() == t.data_ptr());
  CHECK(t.const_data_ptr<double>() == t.data_ptr());
  CHECK(t._version() == 0);
  CHECK_FALSE(t.is_inference());
  CHECK(t.options().dtype() == kDouble);
  CHECK(t.is_same_size(empty({2, 3, 4})));
  CHECK_FALSE(t.is_same_size(empty({2, 3})));
  CHECK_THROWS_WITH(t.size(3),
                    "Dimension out of range (expected to be in range of [-3, 2], but got 3)");
  CHECK_THROWS_AS(t.stride(-4), IndexError);
}

TEST_CASE("typed data_ptr checks the dtype with libtorch's message", "[core][tensor]") {
  Tensor t = empty({2});
  CHECK_THROWS_WITH(t.data_ptr<double>(), "expected scalar type Double but found Float");
  Tensor l = empty({2}, kLong);
  CHECK_THROWS_WITH(l.data_ptr<int32_t>(), "expected scalar type Int but found Long");
  CHECK(l.data_ptr<int64_t>() != nullptr);
}

TEST_CASE("an undefined tensor fails clearly", "[core][tensor]") {
  Tensor u;
  CHECK_FALSE(u.defined());
  CHECK(u.use_count() == 0);
  CHECK_FALSE(u.has_storage());
  CHECK_THROWS_WITH(u.sizes(), "sizes() called on an undefined Tensor");
  CHECK_THROWS_WITH(u.dim(), "dim() called on an undefined Tensor");
  CHECK_THROWS_WITH(u.data_ptr(), "data_ptr() called on an undefined Tensor");
  CHECK_THROWS_WITH(u.data_ptr<float>(), "data_ptr() called on an undefined Tensor");
  CHECK_THROWS_AS(u._version(), Error);
}

TEST_CASE("storage sharing and the version counter through the Tensor handle",
          "[core][tensor]") {
  Tensor a = empty({2, 3});
  Tensor alias(a.unsafeGetTensorImpl()->shallow_copy_and_detach());
  CHECK_FALSE(alias.is_same(a));
  CHECK(alias.is_alias_of(a));
  CHECK(a.storage().use_count() == 2);
  a.unsafeGetTensorImpl()->bump_version();
  CHECK(alias._version() == 1);
  Tensor other = empty({2, 3});
  CHECK_FALSE(other.is_alias_of(a));
}

TEST_CASE("the TensorImpl can be released and reclaimed", "[core][tensor]") {
  Tensor a = empty({1});
  TensorImpl* raw = a.unsafeReleaseTensorImpl();
  CHECK_FALSE(a.defined());
  Tensor back(intrusive_ptr<TensorImpl>::reclaim(raw));
  CHECK(back.numel() == 1);
  CHECK(back.use_count() == 1);
}

}  // namespace core_tensor_test
