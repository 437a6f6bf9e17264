// Convolution (nn/functional/conv.hpp): conv1d/2d/3d and conv_transpose1d/2d/3d against a
// direct sum written in the test (every stride, padding, dilation, groups, 'same'/'valid',
// channels-last and strided inputs, integer dtypes), ConvolutionBackward0 by gradcheck (and its
// create_graph path by a second-order gradcheck), unfold/fold, and every error path.
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace nn_functional_conv_test {

using namespace tensorplay;

namespace {

// The definition, one output element at a time: y[n, o, p...] = b[o] + sum over the group's
// input channels and the kernel of w[o, c, k...] * x[n, g * cg + c, p * s - pad + k * d].
// 3 spatial dims (callers unsqueeze); x, w double.
Tensor reference_conv(const Tensor& x, const Tensor& w, const Tensor& b, std::vector<int64_t> s,
                      std::vector<int64_t> pad, std::vector<int64_t> dil, int64_t groups,
                      std::vector<int64_t> out) {
  const int64_t n = x.size(0), co = w.size(0), cg = w.size(1), og = co / groups;
  Tensor y = zeros({n, co, out[0], out[1], out[2]}, dtype(kDouble));
  auto xa = x.contiguous();
  auto wa = w.contiguous();
  auto at5 = [](const Tensor& t, int64_t a, int64_t b2, int64_t c, int64_t d, int64_t e) {
    return t.data_ptr<
        double>()[(((a * t.size(1) + b2) * t.size(2) + c) * t.size(3) + d) * t.size(4) + e];
  };
  double* yp = y.data_ptr<double>();
  for (int64_t i = 0; i < n; ++i)
    for (int64_t o = 0; o < co; ++o)
      for (int64_t p0 = 0; p0 < out[0]; ++p0)
        for (int64_t p1 = 0; p1 < out[1]; ++p1)
          for (int64_t p2 = 0; p2 < out[2]; ++p2) {
            double acc = b.defined() ? b.data_ptr<double>()[o] : 0.0;
            for (int64_t c = 0; c < cg; ++c)
              for (int64_t k0 = 0; k0 < w.size(2); ++k0)
                for (int64_t k1 = 0; k1 < w.size(3); ++k1)
                  for (int64_t k2 = 0; k2 < w.size(4); ++k2) {
                    const int64_t i0 = p0 * s[0] - pad[0] + k0 * dil[0];
                    const int64_t i1 = p1 * s[1] - pad[1] + k1 * dil[1];
                    const int64_t i2 = p2 * s[2] - pad[2] + k2 * dil[2];
                    if (i0 < 0 || i1 < 0 || i2 < 0 || i0 >= x.size(2) || i1 >= x.size(3) ||
                        i2 >= x.size(4))
                      continue;
                    acc += at5(wa, o, c, k0, k1, k2) * at5(xa, i, (o / og) * cg + c, i0, i1, i2);
                  }
            yp[(((i * co + o) * out[0] + p0) * out[1] + p1) * out[2] + p2] = acc;
          }
  return y;
}

// The transposed convolution by its definition: every input element scatters x * w onto the
// output window it maps to.
Tensor reference_conv_transpose(const Tensor& x, const Tensor& w, std::vector<int64_t> s,
                                std::vector<int64_t> pad, std::vector<int64_t> dil, int64_t groups,
                                std::vector<int64_t> out) {
  const int64_t n = x.size(0), ci = x.size(1), cig = ci / groups, cog = w.size(1);
  Tensor y = zeros({n, cog * groups, out[0], out[1], out[2]}, dtype(kDouble));
  const Tensor xa = x.contiguous(), wa = w.contiguous();
  const double* xp = xa.data_ptr<double>();
  const double* wp = wa.data_ptr<double>();
  double* yp = y.data_ptr<double>();
  const int64_t K0 = w.size(2), K1 = w.size(3), K2 = w.size(4);
  for (int64_t i = 0; i < n; ++i)
    for (int64_t c = 0; c < ci; ++c)
      for (int64_t p0 = 0; p0 < x.size(2); ++p0)
        for (int64_t p1 = 0; p1 < x.size(3); ++p1)
          for (int64_t p2 = 0; p2 < x.size(4); ++p2)
            for (int64_t o = 0; o < cog; ++o)
              for (int64_t k0 = 0; k0 < K0; ++k0)
                for (int64_t k1 = 0; k1 < K1; ++k1)
                  for (int64_t k2 = 0; k2 < K2; ++k2) {
                    const int64_t q0 = p0 * s[0] - pad[0] + k0 * dil[0];
                    const int64_t q1 = p1 * s[1] - pad[1] + k1 * dil[1];
                    const int64_t q2 = p2 * s[2] - pad[2] + k2 * dil[2];
                    if (q0 < 0 || q1 < 0 || q2 < 0 || q0 >= out[0] || q1 >= out[1] || q2 >= out[2])
                      continue;
                    const int64_t oc = (c / cig) * cog + o;
                    yp[(((i * y.size(1) + oc) * out[0] + q0) * out[1] + q1) * out[2] + q2] +=
                        xp[(((i * ci + c) * x.size(2) + p0) * x.size(3) + p1) * x.size(4) + p2] *
                        wp[(((c * cog + o) * K0 + k0) * K1 + k1) * K2 + k2];
                  }
  return y;
}

void require_close(const Tensor& got, const Tensor& want, double tol = 1e-9) {
  REQUIRE(got.sizes() == want.sizes());
  REQUIRE(allclose(got.to(kDouble), want.to(kDouble), tol, tol));
}

}  // namespace

TEST_CASE("conv2d matches the definition", "[nn][conv]") {
  struct Case {
    std::vector<int64_t> x, w;
    int64_t s, p, d, g;
  };
  for (const Case& c : std::vector<Case>{{{2, 3, 7, 6}, {4, 3, 3, 3}, 1, 0, 1, 1},
                                         {{2, 3, 7, 6}, {4, 3, 3, 2}, 2, 1, 1, 1},
                                         {{1, 4, 9, 9}, {6, 2, 3, 3}, 1, 2, 2, 2},
                                         {{3, 4, 5, 5}, {4, 1, 3, 3}, 2, 1, 1, 4},
                                         {{2, 3, 5, 4}, {5, 3, 1, 1}, 1, 0, 1, 1},
                                         {{2, 3, 5, 4}, {5, 3, 1, 1}, 2, 1, 1, 1}}) {
    const Tensor x = randn(c.x, dtype(kDouble)), w = randn(c.w, dtype(kDouble));
    const Tensor b = randn({c.w[0]}, dtype(kDouble));
    const Tensor y = conv2d(x, w, b, c.s, c.p, c.d, c.g);
    std::vector<int64_t> out{1};
    for (int i = 0; i < 2; ++i)
      out.push_back((c.x[2 + i] + 2 * c.p - c.d * (c.w[2 + i] - 1) - 1) / c.s + 1);
    const Tensor want = reference_conv(x.unsqueeze(2), w.unsqueeze(2), b, {1, c.s, c.s},
                                       {0, c.p, c.p}, {1, c.d, c.d}, c.g, out)
                            .squeeze(2);
    require_close(y, want);
  }
}

TEST_CASE("conv1d, conv3d, unbatched inputs and 'same'/'valid' padding", "[nn][conv]") {
  const Tensor x1 = randn({2, 4, 11}, dtype(kDouble)), w1 = randn({6, 2, 3}, dtype(kDouble));
  const Tensor b1 = randn({6}, dtype(kDouble));
  require_close(conv1d(x1, w1, b1, 2, 1, 2, 2),
                reference_conv(x1.unsqueeze(2).unsqueeze(2), w1.unsqueeze(2).unsqueeze(2), b1,
                               {1, 1, 2}, {0, 0, 1}, {1, 1, 2}, 2, {1, 1, 5})
                    .squeeze(2)
                    .squeeze(2));
  const Tensor x3 = randn({1, 2, 4, 5, 6}, dtype(kDouble)),
               w3 = randn({3, 2, 2, 3, 2}, dtype(kDouble));
  require_close(conv3d(x3, w3, {}, {1, 2, 1}, {1, 0, 1}),
                reference_conv(x3, w3, Tensor(), {1, 2, 1}, {1, 0, 1}, {1, 1, 1}, 1, {5, 2, 7}));
  // Unbatched: one image without the batch dim.
  const Tensor x2 = randn({3, 6, 5}, dtype(kDouble)), w2 = randn({2, 3, 3, 3}, dtype(kDouble));
  require_close(conv2d(x2, w2), conv2d(x2.unsqueeze(0), w2).squeeze(0));
  // 'same' with an even kernel pads the odd element on the right; 'valid' pads nothing.
  const Tensor we = randn({2, 3, 2, 4}, dtype(kDouble));
  const Tensor same = conv2d(x2.unsqueeze(0), we, {}, 1, "same", {2, 1});
  REQUIRE(same.sizes() == IntArrayRef({1, 2, 6, 5}));
  require_close(same, reference_conv(x2.unsqueeze(0).unsqueeze(2), we.unsqueeze(2), Tensor(),
                                     {1, 1, 1}, {0, 1, 1}, {1, 2, 1}, 1, {1, 6, 5})
                          .squeeze(2));
  require_close(conv2d(x2, w2, {}, 1, "valid"), conv2d(x2, w2));
  require_close(conv1d(x1, w1, b1, 1, "same", 1, 2), conv1d(x1, w1, b1, 1, 1, 1, 2));
}

TEST_CASE("conv_transpose matches the definition", "[nn][conv]") {
  struct Case {
    std::vector<int64_t> x, w;
    int64_t s, p, op, g, d;
  };
  for (const Case& c : std::vector<Case>{{{2, 3, 4, 5}, {3, 2, 3, 3}, 1, 0, 0, 1, 1},
                                         {{2, 4, 4, 3}, {4, 3, 3, 2}, 2, 1, 1, 2, 1},
                                         {{1, 2, 3, 3}, {2, 2, 2, 2}, 3, 0, 2, 1, 2},
                                         {{2, 3, 4, 4}, {3, 5, 1, 1}, 1, 0, 0, 1, 1}}) {
    const Tensor x = randn(c.x, dtype(kDouble)), w = randn(c.w, dtype(kDouble));
    const Tensor b = randn({c.w[1] * c.g}, dtype(kDouble));
    std::vector<int64_t> out{1};
    for (int i = 0; i < 2; ++i) {
      out.push_back((c.x[2 + i] - 1) * c.s - 2 * c.p + c.d * (c.w[2 + i] - 1) + c.op + 1);
    }
    const Tensor y = conv_transpose2d(x, w, b, c.s, c.p, c.op, c.g, c.d);
    const Tensor want = reference_conv_transpose(x.unsqueeze(2), w.unsqueeze(2), {1, c.s, c.s},
                                                 {0, c.p, c.p}, {1, c.d, c.d}, c.g, out)
                            .squeeze(2)
                            .add(b.view({1, -1, 1, 1}));
    require_close(y, want);
  }
  const Tensor x1 = randn({2, 4, 5}, dtype(kDouble)), w1 = randn({4, 3, 3}, dtype(kDouble));
  require_close(conv_transpose1d(x1, w1, {}, 2, 1, 1),
                reference_conv_transpose(x1.unsqueeze(2).unsqueeze(2), w1.unsqueeze(2).unsqueeze(2),
                                         {1, 1, 2}, {0, 0, 1}, {1, 1, 1}, 1, {1, 1, 10})
                    .squeeze(2)
                    .squeeze(2));
  const Tensor x3 = randn({1, 2, 2, 3, 2}, dtype(kDouble)),
               w3 = randn({2, 2, 2, 2, 3}, dtype(kDouble));
  require_close(conv_transpose3d(x3, w3, {}, 2),
                reference_conv_transpose(x3, w3, {2, 2, 2}, {0, 0, 0}, {1, 1, 1}, 1, {4, 6, 5}));
}

TEST_CASE("conv2d: channels-last and strided inputs, dtypes, empty batches", "[nn][conv]") {
  const Tensor x = randn({2, 6, 7, 7}), w = randn({4, 3, 3, 3}), b = randn({4});
  const Tensor want = conv2d(x, w, b, 2, 1, 1, 2);
  const Tensor xcl = x.contiguous(MemoryFormat::ChannelsLast);
  const Tensor ycl = conv2d(xcl, w, b, 2, 1, 1, 2);
  CHECK(ycl.is_contiguous(MemoryFormat::ChannelsLast));
  require_close(ycl, want, 1e-4);
  // 1x1 kernels read channels-last images in place.
  const Tensor w1 = randn({5, 6, 1, 1});
  require_close(conv2d(xcl, w1), conv2d(x, w1), 1e-4);
  const Tensor wt2 = randn({6, 2, 2, 2});
  const Tensor tcl = conv_transpose2d(xcl, wt2, {}, 2);
  CHECK(tcl.is_contiguous(MemoryFormat::ChannelsLast));
  require_close(tcl, conv_transpose2d(x, wt2, {}, 2), 1e-4);
  // A sliced (non-contiguous) input and a transposed weight.
  const Tensor big = randn({2, 6, 9, 14});
  const Tensor xs = big.slice(3, 0, 14, 2).slice(2, 1, 8);
  const Tensor wt = randn({3, 4, 3, 3}).transpose(0, 1);
  require_close(conv2d(xs, wt, {}, 1, 1, 1, 2),
                conv2d(xs.contiguous(), wt.contiguous(), {}, 1, 1, 1, 2), 1e-4);
  // Integer dtypes compute exactly; BFloat16 in float.
  const Tensor xi = randint(-3, 4, {2, 2, 5, 5}, dtype(kLong)),
               wi = randint(-3, 4, {3, 2, 2, 2}, dtype(kLong));
  const Tensor yi = conv2d(xi, wi, {}, 1, 1);
  CHECK(yi.dtype() == kLong);
  CHECK(equal(yi, conv2d(xi.to(kDouble), wi.to(kDouble), {}, 1, 1).to(kLong)));
  CHECK(conv2d(x.to(kBFloat16), w.to(kBFloat16), {}, 1, 0, 1, 2).dtype() == kBFloat16);
  // Empty batches and channels.
  CHECK(conv2d(x.slice(0, 0, 0), w, b, 1, 1, 1, 2).sizes() == IntArrayRef({0, 4, 7, 7}));
  const Tensor e = randn({0, 6, 5, 5}).requires_grad_();
  conv2d(e, randn({4, 6, 3, 3}).requires_grad_()).sum().backward();
  CHECK(e.grad().sizes() == e.sizes());
}

TEST_CASE("ConvolutionBackward0 by gradcheck, first and second order", "[nn][conv][autograd]") {
  using Ts = std::vector<Tensor>;
  auto leaf = [](IntArrayRef s) { return randn(s, dtype(kDouble)).requires_grad_(); };
  struct Op {
    const char* name;
    std::function<Tensor(const Ts&)> f;
    Ts inputs;
  };
  const Tensor cl =
      randn({2, 4, 5, 5}, dtype(kDouble)).contiguous(MemoryFormat::ChannelsLast).requires_grad_();
  const Tensor strided =
      randn({2, 4, 5, 10}, dtype(kDouble)).slice(3, 0, 10, 2).detach().requires_grad_();
  std::vector<Op> ops{
      {"conv2d groups stride pad dil",
       [](const Ts& v) {
         return conv2d(v[0], v[1], v[2], {2, 1}, {1, 2}, {1, 2}, 2);
       },
       {leaf({2, 4, 6, 5}), leaf({4, 2, 3, 2}), leaf({4})}},
      {"conv2d channels-last",
       [](const Ts& v) { return conv2d(v[0], v[1], v[2], 1, 1); },
       {cl, leaf({3, 4, 3, 3}), leaf({3})}},
      {"conv2d strided 1x1",
       [](const Ts& v) { return conv2d(v[0], v[1]); },
       {strided, leaf({3, 4, 1, 1})}},
      {"conv2d same even kernel",
       [](const Ts& v) { return conv2d(v[0], v[1], {}, 1, "same"); },
       {leaf({1, 2, 4, 4}), leaf({2, 2, 2, 3})}},
      {"conv1d",
       [](const Ts& v) { return conv1d(v[0], v[1], v[2], 2, 1); },
       {leaf({2, 3, 7}), leaf({2, 3, 3}), leaf({2})}},
      {"conv3d",
       [](const Ts& v) {
         return conv3d(v[0], v[1], {}, 1, {0, 1, 0});
       },
       {leaf({1, 2, 3, 3, 3}), leaf({2, 2, 2, 2, 2})}},
      {"conv_transpose2d",
       [](const Ts& v) { return conv_transpose2d(v[0], v[1], v[2], 2, 1, 1, 2); },
       {leaf({2, 4, 3, 3}), leaf({4, 1, 3, 3}), leaf({2})}},
      {"conv_transpose1d",
       [](const Ts& v) { return conv_transpose1d(v[0], v[1], {}, 3, 0, 1); },
       {leaf({1, 2, 4}), leaf({2, 3, 2})}},
  };
  for (const Op& op : ops) {
    INFO(op.name);
    CHECK(op.f(op.inputs).grad_fn()->name() == "ConvolutionBackward0");
    CHECK(autograd::gradcheck(op.f, op.inputs));
    // Second order: the create_graph path (recorded unfold/fold and matmuls).
    const Tensor g = randn(op.f(op.inputs).sizes(), dtype(kDouble));
    CHECK(autograd::gradcheck(
        [&](const Ts& v) {
          AutoGradMode on(true);
          const Ts gs = autograd::grad({op.f(v).mul(g).sum()}, {v[0], v[1]}, {}, true, true);
          return gs[0].square().sum().add(gs[1].square().sum());
        },
        op.inputs));
  }
}

TEST_CASE("F::conv*d and F::conv_transpose*d take libtorch's options", "[nn][conv]") {
  namespace F = tensorplay::nn::functional;
  const Tensor x = randn({2, 4, 7, 6}), w = randn({6, 2, 3, 3}), b = randn({6});
  CHECK(equal(F::conv2d(x, w, F::Conv2dFuncOptions().bias(b).stride({2, 1}).padding(1).groups(2)),
              conv2d(x, w, b, {2, 1}, 1, 1, 2)));
  CHECK(equal(F::conv2d(x, w, F::Conv2dFuncOptions().padding(F::kSame).dilation(2).groups(2)),
              conv2d(x, w, {}, 1, "same", 2, 2)));
  CHECK(F::conv2d(x, w, F::Conv2dFuncOptions().padding(F::kValid).groups(2)).sizes() ==
        IntArrayRef({2, 6, 5, 4}));
  const Tensor x1 = randn({2, 4, 9});
  CHECK(equal(F::conv1d(x1, w.select(3, 0), F::Conv1dFuncOptions().stride(2).groups(2)),
              conv1d(x1, w.select(3, 0), {}, 2, 0, 1, 2)));
  const Tensor wt = randn({4, 3, 3, 3});
  CHECK(
      equal(F::conv_transpose2d(x, wt, F::ConvTranspose2dFuncOptions().stride(2).output_padding(1)),
            conv_transpose2d(x, wt, {}, 2, 0, 1)));
  CHECK_THROWS_WITH(F::Conv2dFuncOptions().stride({1, 2, 3}),
                    "Expected 2 values, but instead got 3");
}

TEST_CASE("convolution: errors", "[nn][conv]") {
  const Tensor x = randn({2, 3, 8, 8}), w = randn({4, 3, 3, 3}), b = randn({4});
  auto message = [](const std::function<void()>& f) -> std::string {
    try {
      f();
    } catch (const Error& e) {
      return e.what();
    }
    return "no error";
  };
  CHECK(message([&] { conv2d(x, w.slice(1, 0, 2)); }) ==
        "Given groups=1, weight of size [4, 2, 3, 3], expected input[2, 3, 8, 8] to have 2 "
        "channels, but got 3 channels instead");
  CHECK(message([&] { conv2d(x.select(0, 0).select(0, 0), w); }) ==
        "Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: [8, 8]");
  CHECK(message([&] { conv2d(x, w, {}, 0); }) == "non-positive stride is not supported");
  CHECK(message([&] { conv2d(x, w, {}, 1, -1); }) == "negative padding is not supported");
  CHECK(message([&] { conv2d(x, w, {}, 1, 0, 0); }) == "non-positive dilation is not supported");
  CHECK(message([&] { conv2d(x, w, {}, 1, 0, 1, 0); }) == "non-positive groups is not supported");
  CHECK(message([&] { conv2d(x.slice(2, 0, 2).slice(3, 0, 2), w); }) ==
        "Calculated padded input size per channel: (2 x 2). Kernel size: (3 x 3). Kernel size "
        "can't be greater than actual input size");
  CHECK(message([&] { conv2d(x, w, {}, 1, 0, 1, 2); }) ==
        "Given groups=2, weight of size [4, 3, 3, 3], expected input[2, 3, 8, 8] to have 6 "
        "channels, but got 3 channels instead");
  CHECK(message([&] { conv2d(x, w, {}, 1, 0, 1, 3); }) ==
        "Given groups=3, expected weight to be divisible by 3 at dimension 0, but got weight of "
        "size [[4, 3, 3, 3]] instead");
  CHECK(message([&] { conv2d(x, w.slice(0, 0, 0)); }) ==
        "Given groups=1, expected weight to be at least 1 at dimension 0, but got weight of size "
        "[[0, 3, 3, 3]] instead");
  CHECK(message([&] { conv2d(x, w, b.slice(0, 0, 3)); }) ==
        "Given weight of size [4, 3, 3, 3], expected bias to be 1-dimensional with 4 elements, "
        "but got bias of size [3] instead");
  CHECK(message([&] { conv2d(x, w, {}, 2, "same"); }) ==
        "padding='same' is not supported for strided convolutions");
  CHECK(message([&] { conv2d(x, w, {}, 1, "foo"); }) == "Invalid padding string: 'foo'");
  CHECK(message([&] { conv2d(x, w.to(kDouble)); }) ==
        "Input type (tensorplay.FloatTensor) and weight type (tensorplay.DoubleTensor) should be "
        "the same");
  CHECK(message([&] { conv2d(x, w, b.to(kDouble)); }) ==
        "Input type (float) and bias type (double) should be the same");
  CHECK(message([&] { conv2d(x.to(kHalf), w.to(kHalf)); }) ==
        "\"slow_conv2d_cpu\" not implemented for 'Half'");
  CHECK(message([&] { conv2d(x.to(kBool), w.to(kBool)); }) ==
        "\"slow_conv2d_cpu\" not implemented for 'Bool'");
  CHECK(message([&] {
          conv2d(x, w, {}, {1, 1, 1});
        }) ==
        "expected stride to be a single integer value or a list of 2 values to match the "
        "convolution dimensions, but got stride=[1, 1, 1]");
  CHECK(message([&] { conv2d(x, w.select(0, 0).select(0, 0)); }) ==
        "weight should have at least three dimensions");
  CHECK(message([&] { conv_transpose2d(x, w); }) ==
        "Given transposed=1, weight of size [4, 3, 3, 3], expected input[2, 3, 8, 8] to have 4 "
        "channels, but got 3 channels instead");
  CHECK(message([&] { conv_transpose2d(x, w.transpose(0, 1), {}, 2, 0, 2); }) ==
        "output padding must be smaller than either stride or dilation, but got output_padding: "
        "[2, 2] stride: [2, 2] dilation: [1, 1]");
  CHECK(message([&] { conv_transpose2d(x, w.transpose(0, 1), {}, 1, 0, -1); }) ==
        "negative output_padding is not supported");
  CHECK(message([&] { convolution(x.select(0, 0), w, {}, 1, 0, 1, false, 0, 1); }) ==
        "Expected 4-dimensional input for 4-dimensional weight [4, 3, 3, 3], but got 3-dimensional "
        "input of size [3, 8, 8] instead");
}

}  // namespace nn_functional_conv_test
