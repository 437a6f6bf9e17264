// What the engine decides before any element moves: the result dtype (PyTorch's three priority
// classes), where and how outputs are allocated, out= resizing and casting, the in-place
// rules, and the thread split. Kernels come from ops/loops.hpp.
#include <tensorplay/ops/loops.hpp>
#include <tensorplay/ops/result_type.hpp>
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <atomic>
#include <vector>

namespace ops_result_type_test {

using namespace tensorplay;

namespace {

using S = std::vector<int64_t>;

S vec(IntArrayRef r) { return S(r.begin(), r.end()); }

// A promoting binary op with out= and in-place forms, written the way every op is.
Tensor plus(const Tensor& a, const Tensor& b, const Tensor& out = {}) {
  auto iter = TensorIteratorConfig()
                  .add_output(out)
                  .add_input(a)
                  .add_input(b)
                  .promote_inputs_to_common_dtype(true)
                  .cast_common_dtype_to_outputs(true)
                  .enforce_safe_casting_to_output(true)
                  .build();
  dispatch_dtype(iter.common_dtype(), [&]<class T>() {
    elementwise<T, T, T>(iter, [](opmath_t<T> x, opmath_t<T> y) { return x + y; });
  });
  return iter.output();
}

Tensor wrapped(const Scalar& s) { return detail::wrapped_scalar_tensor(s); }

std::vector<double> values(const Tensor& t) {
  Tensor d = t.to(kDouble).contiguous();
  const double* p = d.data_ptr<double>();
  return std::vector<double>(p, p + d.numel());
}

}  // namespace

TEST_CASE("result_type follows PyTorch's priority classes", "[ops][result_type]") {
  auto t = [](DType d) { return empty({2}, TensorOptions().dtype(d)); };
  auto z = [](DType d) { return empty({}, TensorOptions().dtype(d)); };
  CHECK(result_type(t(kInt), 2.5) == kFloat);
  CHECK(result_type(t(kInt), 2) == kInt);
  CHECK(result_type(t(kByte), t(kChar)) == kShort);
  CHECK(result_type(t(kHalf), t(kFloat)) == kFloat);
  CHECK(result_type(t(kHalf), 2.5) == kHalf);
  CHECK(result_type(t(kByte), 300) == kByte);  // a number never widens a tensor
  CHECK(result_type(t(kBool), true) == kBool);
  CHECK(result_type(t(kBool), 2) == kLong);
  CHECK(result_type(t(kBool), 2.5) == kFloat);
  CHECK(result_type(t(kInt), z(kLong)) == kInt);       // 0-d only raises the kind
  CHECK(result_type(t(kInt), z(kDouble)) == kDouble);  // ...to its own dtype
  CHECK(result_type(t(kLong), z(kHalf)) == kHalf);
  CHECK(result_type(z(kInt), z(kLong)) == kLong);  // among 0-d tensors: ordinary promotion
  CHECK(result_type(z(kInt), 2.5) == kFloat);
  CHECK(result_type(z(kDouble), t(kFloat)) == kFloat);
  CHECK(result_type(2, 2.5) == kFloat);
  CHECK(result_type(2, true) == kLong);
  CHECK(result_type(wrapped(2.5), t(kLong)) == kFloat);
  CHECK(wrapped(2.5).unsafeGetTensorImpl()->is_wrapped_number());
  CHECK(wrapped(2.5).dtype() == kDouble);
  CHECK(wrapped(int64_t{7}).item<int64_t>() == 7);
  CHECK(wrapped(true).dtype() == kBool);
}

TEST_CASE("the engine converts inputs to the common dtype", "[ops][result_type]") {
  Tensor i = arange(6, kInt).reshape({2, 3});
  Tensor r = plus(i, wrapped(2.5));
  CHECK(r.dtype() == kFloat);
  CHECK(values(r) == std::vector<double>{2.5, 3.5, 4.5, 5.5, 6.5, 7.5});
  Tensor u = plus(full({3}, 200, kByte), full({3}, -100, kChar));
  CHECK(u.dtype() == kShort);
  CHECK(values(u) == std::vector<double>{100, 100, 100});
  Tensor h = plus(full({2}, 1.5, kHalf), full({2}, 0.25, kFloat));
  CHECK(h.dtype() == kFloat);
  CHECK(values(h) == std::vector<double>{1.75, 1.75});
  // Half computes in float and rounds once: 2048 + 1 is not representable, 2048 + 2 is.
  Tensor hh = plus(full({1}, 2048, kHalf), full({1}, 3, kHalf));
  CHECK(hh.dtype() == kHalf);
  CHECK(values(hh) == std::vector<double>{2052});
}

TEST_CASE("allocated outputs follow the inputs' layout", "[ops][result_type]") {
  Tensor a = arange(6, kFloat).reshape({2, 3});
  CHECK(plus(a, a).is_contiguous());
  Tensor at = arange(6, kFloat).reshape({3, 2}).t();  // strides [1, 2]
  Tensor r = plus(at, at);
  CHECK(vec(r.strides()) == S{1, 2});  // as PyTorch: the transpose's memory order
  CHECK(values(r) == std::vector<double>{0, 4, 8, 2, 6, 10});
  // One transposed and one contiguous input of the same shape: the first operand decides.
  CHECK(vec(plus(at, a).strides()) == S{1, 2});
  CHECK(vec(plus(a, at).strides()) == S{3, 1});
  // Channels-last stays channels-last.
  Tensor cl = empty({2, 3, 4, 5}).contiguous(MemoryFormat::ChannelsLast).fill_(1);
  Tensor rc = plus(cl, cl);
  CHECK(rc.is_contiguous(MemoryFormat::ChannelsLast));
  // A broadcast operand has no say.
  Tensor row = arange(3, kFloat);
  CHECK(vec(plus(row, at).strides()) == S{1, 2});
}

TEST_CASE("out= is resized, restrided, converted and bumped", "[ops][result_type]") {
  Tensor a = arange(6, kFloat).reshape({2, 3});
  Tensor out = empty({0});
  Tensor r = plus(a, a, out);
  CHECK(r.is_same(out));
  CHECK(vec(out.sizes()) == S{2, 3});
  CHECK(out._version() == 1);
  CHECK(values(out) == std::vector<double>{0, 2, 4, 6, 8, 10});
  // Resized outputs get the layout an allocated one would.
  Tensor at = a.t();
  Tensor out2 = empty({5});
  plus(at, at, out2);
  CHECK(vec(out2.sizes()) == S{3, 2});
  CHECK(vec(out2.strides()) == S{1, 3});
  // The right shape keeps its strides, even non-contiguous ones.
  Tensor big = zeros({3, 4});
  Tensor window = big.slice(1, 0, 3);  // [3, 3] with stride 4
  plus(ones({3, 3}), ones({3, 3}), window);
  CHECK(vec(window.strides()) == S{4, 1});
  CHECK(values(window) == std::vector<double>(9, 2.0));
  CHECK(values(big.select(1, 3)) == std::vector<double>{0, 0, 0});
  // Another dtype: converted when safe, refused when not (PyTorch's message).
  Tensor d = empty({2, 3}, kDouble);
  plus(a, a, d);
  CHECK(values(d) == std::vector<double>{0, 2, 4, 6, 8, 10});
  CHECK(d._version() == 1);
  Tensor l = empty({2, 3}, kLong);
  CHECK_THROWS_WITH(plus(a, a, l),
                    "result type Float can't be cast to the desired output type Long");
  CHECK(l._version() == 0);
  Tensor hl = empty({2, 3}, kHalf);
  plus(arange(6, kInt).reshape({2, 3}), wrapped(0.5), hl);
  CHECK(values(hl) == std::vector<double>{0.5, 1.5, 2.5, 3.5, 4.5, 5.5});
}

TEST_CASE("in-place: self keeps its shape and dtype rules", "[ops][result_type]") {
  Tensor a = ones({3});
  CHECK_THROWS_WITH(plus(a, ones({2, 3}), a),
                    "output with shape [3] doesn't match the broadcast shape [2, 3]");
  CHECK(a._version() == 0);
  Tensor b = ones({2, 3});
  plus(b, arange(3, kFloat), b);  // other broadcasts into self
  CHECK(values(b) == std::vector<double>{1, 2, 3, 1, 2, 3});
  CHECK(b._version() == 1);
  Tensor i = ones({2}, kInt);
  CHECK_THROWS_WITH(plus(i, wrapped(1.5), i),
                    "result type Float can't be cast to the desired output type Int");
  Tensor h = full({2}, 1, kHalf);
  plus(h, full({2}, 0.5, kFloat), h);  // float result written back into half self
  CHECK(h.dtype() == kHalf);
  CHECK(values(h) == std::vector<double>{1.5, 1.5});
  // Partial self-overlap is refused; full overlap (a += a) is fine.
  Tensor x = arange(10, kFloat);
  CHECK_THROWS_WITH(plus(x.slice(0, 0, 9), x.slice(0, 0, 9), x.slice(0, 1, 10)),
                    Catch::Contains("some elements of the input tensor and the written-to "
                                    "tensor refer to a single memory location"));
  plus(x, x, x);
  CHECK(values(x)[9] == 18);
  CHECK_THROWS_WITH(plus(ones({3}), ones({3}), ones({1}).expand({3})),
                    Catch::Contains("more than one element of the written-to tensor"));
}

TEST_CASE("elementwise: contiguous, broadcast-scalar and strided rows agree", "[ops][loops]") {
  Tensor a = arange(24, kDouble).reshape({4, 6});
  auto check = [&](const Tensor& x, const Tensor& y) {
    Tensor r = plus(x, y);
    Tensor xe = x.expand(r.sizes()).contiguous(), ye = y.expand(r.sizes()).contiguous();
    std::vector<double> vx = values(xe), vy = values(ye), vr = values(r);
    for (std::size_t k = 0; k < vr.size(); ++k) REQUIRE(vr[k] == vx[k] + vy[k]);
  };
  check(a, a);                                      // contiguous
  check(a, wrapped(3.0));                           // second input a scalar
  check(wrapped(3.0), a);                           // first input a scalar
  check(a, a.select(1, 2).unsqueeze(1));            // column broadcast: strided rows with a zero
  check(a, a.select(0, 1));                         // row broadcast
  check(a.t(), a.t());                              // transposed
  check(a.slice(1, 0, 6, 2), a.slice(1, 1, 6, 2));  // every other column
  check(a.t(), a.select(1, 0));                     // mixed
}

TEST_CASE("the thread split visits every element once, for any thread count",
          "[ops][loops][parallel]") {
  const int before = get_num_threads();
  Tensor a = arange(3 * 700 * 50, kFloat).reshape({3, 700, 50});
  Tensor t = a.transpose(1, 2);  // tiled walk
  for (int threads : {1, 2, 3}) {
    set_num_threads(threads);
    for (const Tensor& x : {a, t, a.slice(2, 0, 49)}) {
      Tensor r = plus(x, wrapped(1.0));
      Tensor expect = x.contiguous();
      std::vector<double> vr = values(r.contiguous()), ve = values(expect);
      bool ok = true;
      for (std::size_t k = 0; k < vr.size(); ++k) ok = ok && vr[k] == ve[k] + 1;
      CHECK(ok);
    }
    // serial_for_each over arbitrary ranges partitions the space.
    Tensor o = empty({5, 7, 3});
    auto iter = TensorIteratorConfig()
                    .add_output(o)
                    .add_input(o.transpose(0, 2).transpose(0, 2))
                    .set_check_mem_overlap(false)
                    .build();
    std::vector<int> seen(o.numel(), 0);
    float* base = o.data_ptr<float>();
    auto mark = [&](char** data, const int64_t* strides, int64_t n) {
      for (int64_t i = 0; i < n; ++i)
        ++seen[reinterpret_cast<float*>(data[0] + i * strides[0]) - base];
    };
    for (int64_t b = 0; b < o.numel(); b += 4)
      iter.serial_for_each(mark, b, std::min(b + 4, o.numel()));
    CHECK(std::all_of(seen.begin(), seen.end(), [](int v) { return v == 1; }));
  }
  set_num_threads(before);
}

TEST_CASE("narrow restricts one iteration dimension", "[ops][tensor_iterator]") {
  Tensor o = zeros({4, 5});
  auto iter = TensorIteratorConfig().add_output(o).add_input(ones({4, 5})).build();
  iter.narrow(0, 1, 1);  // after coalescing the only dimension has 20 elements
  CHECK(iter.numel() == 1);
  CHECK_THROWS_WITH(iter.narrow(0, 1, 5), Catch::Contains("is outside dimension 0"));
  CHECK_THROWS_WITH(iter.narrow(3, 0, 1), Catch::Contains("is outside dimension 3"));
}

}  // namespace ops_result_type_test
