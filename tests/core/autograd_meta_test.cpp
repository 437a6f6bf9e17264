#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

namespace core_autograd_meta_test {

using namespace tensorplay;

TEST_CASE("factories honour TensorOptions::requires_grad", "[core][autograd_meta]") {
  CHECK_FALSE(empty({2}).requires_grad());
  CHECK(empty({2}).unsafeGetTensorImpl()->autograd_meta() == nullptr);  // nothing allocated
  CHECK(empty({2}, requires_grad()).requires_grad());
  CHECK(empty_strided({2}, {1}, requires_grad()).requires_grad());
  float buf[2] = {1, 2};
  CHECK(from_blob(buf, {2}, requires_grad()).requires_grad());
  CHECK(zeros({2}, requires_grad()).requires_grad());
  CHECK(ones({2}, dtype(kDouble).requires_grad(true)).requires_grad());
  CHECK(full({2}, 1.5, requires_grad()).requires_grad());
  CHECK(arange(3., requires_grad()).requires_grad());
  CHECK(linspace(0, 1, 3, requires_grad()).requires_grad());
  CHECK(eye(2, requires_grad()).requires_grad());
  CHECK(tensor({1., 2.}, requires_grad()).requires_grad());
  CHECK(rand({2}, requires_grad()).requires_grad());
  CHECK(randn({2}, requires_grad()).requires_grad());
  CHECK(zeros_like(ones({2}), requires_grad()).requires_grad());
  CHECK_FALSE(zeros_like(ones({2}, requires_grad())).requires_grad());  // options, not self

  CHECK_THROWS_WITH(ones({2}, dtype(kLong).requires_grad(true)),
                    "Only Tensors of floating point and complex dtype can require gradients");
  CHECK_THROWS_WITH(arange(3, requires_grad()),
                    "Only Tensors of floating point and complex dtype can require gradients");
}

TEST_CASE("requires_grad_ marks floating-point leaves", "[core][autograd_meta]") {
  Tensor t = ones({2, 2});
  CHECK(&t.requires_grad_() == &t);
  CHECK(t.requires_grad());
  t.requires_grad_(false);
  CHECK_FALSE(t.requires_grad());
  Tensor plain = ones({2});
  plain.requires_grad_(false);  // no metadata needed to say no
  CHECK(plain.unsafeGetTensorImpl()->autograd_meta() == nullptr);
  CHECK_THROWS_WITH(ones({2}, kLong).requires_grad_(),
                    "Only Tensors of floating point and complex dtype can require gradients");
  CHECK_NOTHROW(ones({2}, kLong).requires_grad_(false));
  // detach() and TensorImpl copies start without history (the spec's copy constructor).
  CHECK_FALSE(t.requires_grad_().detach().requires_grad());
}

TEST_CASE("printing shows requires_grad=True as PyTorch does", "[core][autograd_meta]") {
  CHECK(ones({2}, requires_grad()).toString() == "tensor([1., 1.], requires_grad=True)");
  CHECK(ones({2}, dtype(kDouble).requires_grad(true)).toString() ==
        "tensor([1., 1.], dtype=tensorplay.float64, requires_grad=True)");
  CHECK(zeros({0, 3}, requires_grad()).toString() ==
        "tensor([], size=(0, 3), requires_grad=True)");
  CHECK(ones({2, 2}).requires_grad_().toString() ==
        "tensor([[1., 1.],\n        [1., 1.]], requires_grad=True)");
}

}  // namespace core_autograd_meta_test
