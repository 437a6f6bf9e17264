// Pooling (nn/functional/pooling.hpp): max_pool1d/2d/3d with indices, avg_pool1d/2d/3d,
// adaptive_avg/max_pool1d/2d/3d against loops over the windows written in the test, node names,
// gradcheck (second order for the averages), layouts, dtypes and every error path.
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <string>
#include <vector>

namespace nn_functional_pooling_test {

using namespace tensorplay;

namespace {

// Window [lo, hi) of output o along a dim, before clipping, as PyTorch documents them.
struct Win {
  int64_t lo, hi;
};

// One plane's pooling by the definition: `pick` folds the clipped window's values.
Tensor reference_pool(const Tensor& x, int64_t oh, int64_t ow,
                      const std::function<Win(int64_t, bool)>& window,
                      const std::function<double(const std::vector<double>&, Win, Win)>& pick,
                      int64_t dil_h = 1, int64_t dil_w = 1) {
  const Tensor xc = x.to(kDouble).contiguous();
  const int64_t planes = xc.numel() / (x.size(-2) * x.size(-1)), ih = x.size(-2), iw = x.size(-1);
  std::vector<int64_t> sizes = x.sizes().vec();
  sizes[sizes.size() - 2] = oh;
  sizes.back() = ow;
  Tensor y = empty(sizes, dtype(kDouble));
  for (int64_t p = 0; p < planes; ++p)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j) {
        const Win a = window(i, true), b = window(j, false);
        std::vector<double> vals;
        for (int64_t h = a.lo; h < a.hi; h += dil_h)
          for (int64_t w = b.lo; w < b.hi; w += dil_w)
            if (h >= 0 && h < ih && w >= 0 && w < iw)
              vals.push_back(xc.data_ptr<double>()[(p * ih + h) * iw + w]);
        y.data_ptr<double>()[(p * oh + i) * ow + j] = pick(vals, a, b);
      }
  return y;
}

double max_of(const std::vector<double>& v, Win, Win) {
  return *std::max_element(v.begin(), v.end());
}

}  // namespace

// The error message f throws, or "no error".
std::string message(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.what();
  }
  return "no error";
}

// gradcheck of f at `in`, and of its gradient (second order: the gradient is linear in the
// incoming gradient, which is an input here).
void check_first_and_second_order(const std::function<Tensor(const std::vector<Tensor>&)>& f,
                                  const Tensor& in) {
  using Ts = std::vector<Tensor>;
  CHECK(autograd::gradcheck(f, {in}));
  const Tensor g = randn(f({in}).sizes(), dtype(kDouble)).requires_grad_();
  CHECK(autograd::gradcheck(
      [&](const Ts& v) {
        AutoGradMode on(true);
        const Ts gs = autograd::grad({f({v[0]}).mul(v[1]).sum()}, {v[0]}, {}, true, true);
        return gs[0].square().sum();
      },
      {in, g}));
}

TEST_CASE("max_pool2d matches the definition, indices address the maxima", "[nn][pool]") {
  const Tensor x = randn({2, 3, 9, 8}, dtype(kDouble));
  struct Case {
    int64_t k, s, p, d;
    bool ceil;
  };
  for (const Case& c : std::vector<Case>{
           {2, 2, 0, 1, false}, {3, 2, 1, 1, true}, {3, 1, 1, 2, false}, {2, 3, 1, 1, true}}) {
    INFO("k " << c.k << " s " << c.s << " p " << c.p << " d " << c.d << " ceil " << c.ceil);
    auto [y, idx] = max_pool2d_with_indices(x, c.k, c.s, c.p, c.d, c.ceil);
    auto win = [&](int64_t o, bool) {
      return Win{o * c.s - c.p, o * c.s - c.p + c.d * (c.k - 1) + 1};
    };
    CHECK(allclose(y, reference_pool(x, y.size(2), y.size(3), win, max_of, c.d, c.d)));
    CHECK(equal(x.flatten(2).gather(2, idx.flatten(2)), y.flatten(2)));
  }
  // A NaN is a window's maximum.
  Tensor n = zeros({1, 1, 2, 2});
  n.data_ptr<float>()[3] = std::numeric_limits<float>::quiet_NaN();
  CHECK(std::isnan(max_pool2d(n, 2).item<float>()));
  CHECK(std::get<1>(max_pool2d_with_indices(n, 2)).item<int64_t>() == 3);
  // max_pool1d is max_pool2d over a height of 1 (PyTorch's node: SqueezeBackward1).
  const Tensor x1 = randn({2, 3, 10}, dtype(kDouble)).requires_grad_();
  CHECK(equal(max_pool1d(x1, 3, 2, 1),
              max_pool2d(x1.unsqueeze(2), {1, 3}, {1, 2}, {0, 1}).squeeze(2)));
  CHECK(max_pool1d(x1, 3).grad_fn()->name() == "SqueezeBackward1");
  CHECK(max_pool2d(x.requires_grad_(), 2).grad_fn()->name() == "MaxPool2DWithIndicesBackward0");
  // Channels-last in, channels-last out; unbatched; empty batch.
  const Tensor cl = x.detach().contiguous(MemoryFormat::ChannelsLast);
  CHECK(max_pool2d(cl, 2).is_contiguous(MemoryFormat::ChannelsLast));
  CHECK(equal(max_pool2d(cl, 3, 2, 1), max_pool2d(x, 3, 2, 1)));
  CHECK(equal(max_pool2d(x.select(0, 1), 2), max_pool2d(x, 2).select(0, 1)));
  CHECK(max_pool2d(x.slice(0, 0, 0), 2).sizes() == IntArrayRef({0, 3, 4, 4}));
}

TEST_CASE("avg_pool2d and adaptive pooling match the definition", "[nn][pool]") {
  const Tensor x = randn({2, 2, 7, 9}, dtype(kDouble));
  for (bool include : {true, false}) {
    for (bool ceil : {false, true}) {
      INFO("count_include_pad " << include << " ceil " << ceil);
      const int64_t k = 3, s = 2, p = 1, ih = 7, iw = 9;
      const Tensor y = avg_pool2d(x, k, s, p, ceil, include);
      auto win = [&](int64_t o, bool) { return Win{o * s - p, o * s - p + k}; };
      auto mean = [&](const std::vector<double>& v, Win a, Win b) {
        double sum = 0;
        for (double e : v) sum += e;
        if (!include) return sum / double(v.size());
        // The padded window ends at in + pad at most (PyTorch's rule).
        const int64_t hh = std::min(a.hi, ih + p) - a.lo, ww = std::min(b.hi, iw + p) - b.lo;
        return sum / double(hh * ww);
      };
      CHECK(allclose(y, reference_pool(x, y.size(2), y.size(3), win, mean)));
    }
  }
  CHECK(allclose(avg_pool2d(x, 2, {}, 0, false, true, 3), avg_pool2d(x, 2).mul(4.0 / 3.0)));
  // Integers: the sum divided and truncated as PyTorch does.
  const Tensor xi = arange(16, dtype(kLong)).reshape({1, 1, 4, 4});
  CHECK(equal(avg_pool2d(xi, 2), tensor({{{{2, 4}, {10, 12}}}}, dtype(kLong))));
  // Adaptive windows: floor(o * in / out) to ceil((o + 1) * in / out).
  for (int64_t oh : {1, 3, 4}) {
    INFO("output " << oh);
    auto win = [&](int64_t o, bool h) {
      const int64_t in = h ? 7 : 9, out = h ? oh : 5;
      return Win{o * in / out, ((o + 1) * in + out - 1) / out};
    };
    auto mean = [](const std::vector<double>& v, Win, Win) {
      double sum = 0;
      for (double e : v) sum += e;
      return sum / double(v.size());
    };
    CHECK(allclose(adaptive_avg_pool2d(x, {oh, 5}), reference_pool(x, oh, 5, win, mean)));
    auto [m, idx] = adaptive_max_pool2d(x, {oh, 5});
    CHECK(allclose(m, reference_pool(x, oh, 5, win, max_of)));
    CHECK(equal(x.flatten(2).gather(2, idx.flatten(2)), m.flatten(2)));
  }
  const Tensor xg = x.detach().requires_grad_();
  CHECK(adaptive_avg_pool2d(xg, 1).grad_fn()->name() == "MeanBackward1");
  CHECK(adaptive_avg_pool2d(xg, 2).grad_fn()->name() == "AdaptiveAvgPool2DBackward0");
  CHECK(std::get<0>(adaptive_max_pool2d(xg, 2)).grad_fn()->name() == "AdaptiveMaxPool2DBackward0");
  CHECK(avg_pool2d(xg, 2).grad_fn()->name() == "AvgPool2DBackward0");
  CHECK(allclose(avg_pool1d(x.select(2, 0), 3, 2, 1),
                 avg_pool2d(x.select(2, 0).unsqueeze(2), {1, 3}, {1, 2}, {0, 1}).squeeze(2)));
  CHECK(allclose(adaptive_avg_pool1d(x.select(2, 0), 4),
                 adaptive_avg_pool2d(x.select(2, 0).unsqueeze(2), {1, 4}).squeeze(2)));
}

TEST_CASE("pooling gradients by gradcheck", "[nn][pool][autograd]") {
  using Ts = std::vector<Tensor>;
  const Tensor x = randn({2, 2, 6, 7}, dtype(kDouble)).requires_grad_();
  const Tensor cl =
      randn({2, 2, 6, 7}, dtype(kDouble)).contiguous(MemoryFormat::ChannelsLast).requires_grad_();
  std::vector<std::pair<const char*, std::function<Tensor(const Ts&)>>> ops{
      {"max_pool2d", [](const Ts& v) { return max_pool2d(v[0], 3, 2, 1, 1, true); }},
      {"max_pool2d dilated", [](const Ts& v) { return max_pool2d(v[0], 2, 1, 1, 2); }},
      {"max_pool1d", [](const Ts& v) { return max_pool1d(v[0].flatten(2), 4, 3, 2); }},
      {"avg_pool2d", [](const Ts& v) { return avg_pool2d(v[0], 3, 2, 1, true, false); }},
      {"avg_pool2d divisor", [](const Ts& v) { return avg_pool2d(v[0], 2, 1, 1, false, true, 5); }},
      {"adaptive_avg_pool2d",
       [](const Ts& v) {
         return adaptive_avg_pool2d(v[0], {4, 3});
       }},
      {"adaptive_max_pool2d",
       [](const Ts& v) { return std::get<0>(adaptive_max_pool2d(v[0], 4)); }},
  };
  for (const auto& [name, f] : ops) {
    for (const Tensor& in : {x, cl}) {
      INFO(name);
      check_first_and_second_order(f, in);
    }
  }
  // The average's gradient is a node of its own, whose gradient is the average again.
  const Tensor w = ones({2, 2, 3, 3}, dtype(kDouble)).requires_grad_();
  const Tensor gx = autograd::grad({avg_pool2d(x, 2).mul(w).sum()}, {x}, {}, true, true)[0];
  REQUIRE(gx.grad_fn());
  CHECK(gx.grad_fn()->name() == "AvgPool2DBackwardBackward0");
}

TEST_CASE("F:: pooling takes libtorch's options", "[nn][pool]") {
  namespace F = tensorplay::nn::functional;
  const Tensor x = randn({2, 3, 7, 8});
  CHECK(equal(F::max_pool2d(x, F::MaxPool2dFuncOptions(3).stride(2).padding(1).ceil_mode(true)),
              max_pool2d(x, 3, 2, 1, 1, true)));
  CHECK(equal(std::get<1>(F::max_pool2d_with_indices(x, F::MaxPool2dFuncOptions({2, 3}))),
              std::get<1>(max_pool2d_with_indices(x, {2, 3}))));
  CHECK(equal(F::avg_pool2d(x, F::AvgPool2dFuncOptions(2).count_include_pad(false).padding(1)),
              avg_pool2d(x, 2, 2, 1, false, false)));
  CHECK(equal(F::avg_pool1d(x.select(2, 0), F::AvgPool1dFuncOptions(3)),
              avg_pool1d(x.select(2, 0), 3)));
  CHECK(equal(F::max_pool1d(x.select(2, 0), F::MaxPool1dFuncOptions(2).stride(1)),
              max_pool1d(x.select(2, 0), 2, 1)));
  CHECK(equal(F::adaptive_avg_pool2d(x, F::AdaptiveAvgPool2dFuncOptions({3, 4})),
              adaptive_avg_pool2d(x, {3, 4})));
  CHECK(equal(F::adaptive_max_pool2d(x, F::AdaptiveMaxPool2dFuncOptions(3)),
              std::get<0>(adaptive_max_pool2d(x, 3))));
}

TEST_CASE("pooling: errors", "[nn][pool]") {
  const Tensor x = randn({2, 3, 6, 6});
  CHECK(message([&] {
          max_pool2d(x, {1, 2, 3});
        }) == "max_pool2d: kernel_size must either be a single int, or a tuple of two ints");
  CHECK(message([&] {
          max_pool2d(x, 2, {1, 2, 3});
        }) == "max_pool2d: stride must either be omitted, a single int, or a tuple of two ints");
  CHECK(message([&] {
          max_pool2d(x, 2, 1, {1, 2, 3});
        }) == "max_pool2d: padding must be either be a single int, or a tuple of two ints");
  CHECK(message([&] {
          max_pool2d(x, 2, 1, 0, {1, 2, 3});
        }) == "max_pool2d: dilation must be either a single int, or a tuple of two ints");
  CHECK(message([&] { max_pool2d(x, 2, 0); }) == "stride should not be zero");
  CHECK(message([&] { max_pool2d(x, 0, 1); }) ==
        "kernel size should be greater than zero, but got kH: 0 kW: 0");
  CHECK(message([&] { max_pool2d(x, 2, -1); }) ==
        "stride should be greater than zero, but got dH: -1 dW: -1");
  CHECK(message([&] { max_pool2d(x, 2, 1, 0, 0); }) ==
        "dilation should be greater than zero, but got dilationH: 0 dilationW: 0");
  CHECK(message([&] { max_pool2d(x, 2, 1, 2); }) ==
        "pad should be at most half of kernel size, but got pad=2 and kernel_size=2");
  CHECK(message([&] { max_pool2d(x.slice(2, 0, 1).slice(3, 0, 1), 3); }) ==
        "Given input size: (3x1x1). Calculated output size: (3x0x0). Output size is too small");
  CHECK(message([&] { max_pool2d(x.select(0, 0).select(0, 0), 2); }) ==
        "non-empty 3D or 4D (batch mode) tensor expected for input");
  CHECK(message([&] { avg_pool2d(x, 2, {}, 0, false, true, 0); }) == "divisor must be not zero");
  CHECK(message([&] { max_pool2d(x.to(kLong), 2); }) ==
        "\"max_pool2d\" not implemented for 'Long'");
  CHECK(message([&] { max_pool2d(x.to(kHalf), 2); }) ==
        "\"max_pool2d\" not implemented for 'Half'");
  CHECK(message([&] { avg_pool2d(x.to(kBool), 2); }) ==
        "\"avg_pool2d\" not implemented for 'Bool'");
  CHECK(message([&] { adaptive_avg_pool2d(x.to(kLong), 2); }) ==
        "\"adaptive_avg_pool2d\" not implemented for 'Long'");
  CHECK(message([&] {
          adaptive_avg_pool2d(x, {1, 2, 3});
        }) == "adaptive_avg_pool2d: output_size must be 2");
  CHECK(message([&] { adaptive_avg_pool2d(x.select(0, 0).select(0, 0), 2); }) ==
        "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [6, 6]");
  CHECK(message([&] { adaptive_avg_pool2d(x.slice(2, 0, 0), 2); }) ==
        "adaptive_avg_pool2d(): Expected input to have non-zero size for non-batch dimensions, "
        "but input has sizes [2, 3, 0, 6] with dimension 2 being empty");
  CHECK(message([&] { adaptive_avg_pool2d(x, -1); }) ==
        "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but "
        "received {-1, -1}");
  CHECK(message([&] { adaptive_max_pool2d(x.select(0, 0).select(0, 0), 2); }) ==
        "adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: [6, 6]");
  CHECK(message([&] { max_pool1d(x, 2); }) ==
        "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
        "input, but got:[2, 3, 6, 6]");
  CHECK(message([&] { avg_pool1d(x, 2); }) ==
        "Expected 2 to 3 dimensions, but got 4-dimensional tensor for argument #1 'self' (while "
        "checking arguments for avg_pool1d)");
}

TEST_CASE("3-d pooling: gradients, node names, options and errors", "[nn][pool]") {
  // Values against torch 1.13 are in tests/ops/torch_golden_test.cpp; the 3-d forms share the
  // 2-d forms' windows, so a depth of 1 gives the 2-d answer exactly.
  using Ts = std::vector<Tensor>;
  const Tensor x = randn({2, 2, 4, 5, 3}, dtype(kDouble)).requires_grad_();
  std::vector<std::pair<const char*, std::function<Tensor(const Ts&)>>> ops{
      {"max_pool3d",
       [](const Ts& v) {
         return max_pool3d(v[0], {2, 3, 2}, {2, 1, 1}, {1, 1, 0});
       }},
      {"max_pool3d dilated",
       [](const Ts& v) {
         return max_pool3d(v[0], 2, 1, 0, {1, 2, 1});
       }},
      {"avg_pool3d", [](const Ts& v) { return avg_pool3d(v[0], 3, 2, 1, true, false); }},
      {"avg_pool3d divisor", [](const Ts& v) { return avg_pool3d(v[0], 2, 1, 1, false, true, 5); }},
      {"adaptive_avg_pool3d",
       [](const Ts& v) {
         return adaptive_avg_pool3d(v[0], {3, 2, 2});
       }},
      {"adaptive_max_pool3d",
       [](const Ts& v) { return std::get<0>(adaptive_max_pool3d(v[0], 2)); }},
  };
  for (const auto& [name, f] : ops) {
    INFO(name);
    check_first_and_second_order(f, x);
  }
  CHECK(max_pool3d(x, 2).grad_fn()->name() == "MaxPool3DWithIndicesBackward0");
  CHECK(avg_pool3d(x, 2).grad_fn()->name() == "AvgPool3DBackward0");
  CHECK(adaptive_avg_pool3d(x, 2).grad_fn()->name() == "AdaptiveAvgPool3DBackward0");
  CHECK(adaptive_avg_pool3d(x, 1).grad_fn()->name() == "MeanBackward1");
  CHECK(std::get<0>(adaptive_max_pool3d(x, 2)).grad_fn()->name() == "AdaptiveMaxPool3DBackward0");
  const Tensor w = ones({2, 2, 2, 2, 1}, dtype(kDouble)).requires_grad_();
  const Tensor gx = autograd::grad({avg_pool3d(x, 2).mul(w).sum()}, {x}, {}, true, true)[0];
  REQUIRE(gx.grad_fn());
  CHECK(gx.grad_fn()->name() == "AvgPool3DBackwardBackward0");
  // Depth 1: the 2-d pooling, indices included.
  const Tensor p = randn({2, 3, 1, 6, 5});
  CHECK(equal(max_pool3d(p, {1, 3, 2}, {1, 2, 1}, {0, 1, 1}).squeeze(2),
              max_pool2d(p.squeeze(2), {3, 2}, {2, 1}, {1, 1})));
  CHECK(equal(std::get<1>(max_pool3d_with_indices(p, {1, 2, 2})).squeeze(2),
              std::get<1>(max_pool2d_with_indices(p.squeeze(2), 2))));
  CHECK(allclose(avg_pool3d(p, {1, 3, 3}, 1, {0, 1, 1}, true, false).squeeze(2),
                 avg_pool2d(p.squeeze(2), 3, 1, 1, true, false)));
  CHECK(allclose(adaptive_avg_pool3d(p, {1, 4, 3}).squeeze(2),
                 adaptive_avg_pool2d(p.squeeze(2), {4, 3})));
  // Unbatched input, integer average, interpolate's area mode.
  const Tensor xi = arange(2 * 4 * 4 * 4, dtype(kLong)).view({2, 4, 4, 4});
  CHECK(equal(avg_pool3d(xi, 2), avg_pool3d(xi.unsqueeze(0).to(kDouble), 2).squeeze(0).to(kLong)));
  namespace F = tensorplay::nn::functional;
  CHECK(
      allclose(F::interpolate(
                   x, F::InterpolateFuncOptions().size(std::vector<int64_t>{2, 3, 2}).mode(kArea)),
               adaptive_avg_pool3d(x, {2, 3, 2})));
  CHECK(equal(F::max_pool3d(x, F::MaxPool3dFuncOptions(2).stride(1).padding(1)),
              max_pool3d(x, 2, 1, 1)));
  CHECK(equal(F::avg_pool3d(x, F::AvgPool3dFuncOptions(2).count_include_pad(false).padding(1)),
              avg_pool3d(x, 2, 2, 1, false, false)));
  CHECK(equal(F::adaptive_avg_pool3d(x, F::AdaptiveAvgPool3dFuncOptions({3, 2, 1})),
              adaptive_avg_pool3d(x, {3, 2, 1})));
  CHECK(equal(F::adaptive_max_pool3d(x, F::AdaptiveMaxPool3dFuncOptions(2)),
              std::get<0>(adaptive_max_pool3d(x, 2))));

  const Tensor y = randn({1, 2, 4, 5, 4});
  // PyTorch's messages, word for word.
  CHECK(message([&] {
          max_pool3d(y, {2, 2});
        }) == "max_pool3d: kernel_size must either be a single int, or a tuple of three ints");
  CHECK(message([&] {
          max_pool3d(y, 2, {1, 1});
        }) == "max_pool3d: stride must either be omitted, a single int, or a tuple of three ints");
  CHECK(message([&] {
          max_pool3d(y, 2, 1, {1, 1});
        }) == "max_pool3d: padding must be either be a single int, or a tuple of three ints");
  CHECK(message([&] {
          max_pool3d(y, 2, 1, 0, {1, 1});
        }) == "max_pool3d: dilation must be either a single int, or a tuple of three ints");
  CHECK(message([&] {
          avg_pool3d(y, {2, 2});
        }) == "avg_pool3d: kernel_size must be a single int, or a tuple of three ints");
  CHECK(message([&] {
          avg_pool3d(y, 2, {1, 1});
        }) == "avg_pool3d: stride must be omitted, a single int, or a tuple of three ints");
  CHECK(message([&] {
          avg_pool3d(y, 2, 1, {1, 1});
        }) == "avg_pool3d: padding must be a single int, or a tuple of three ints");
  CHECK(message([&] { max_pool3d(y, {0, 2, 2}); }) == "stride should not be zero");
  CHECK(message([&] {
          max_pool3d(y, {-1, 2, 2}, 1);
        }) == "kernel size should be greater than zero, but got kT: -1 kH: 2 kW: 2");
  CHECK(message([&] {
          avg_pool3d(y, 2, {-1, 1, 1});
        }) == "stride should be greater than zero, but got dT: -1 dH: 1 dW: 1");
  CHECK(message([&] {
          max_pool3d(y, 2, 1, 0, {0, 1, 1});
        }) ==
        "dilation should be greater than zero, but got dilationT: 0 dilationH: 1 dilationW: 1");
  CHECK(message([&] {
          max_pool3d(y, 2, 1, {2, 0, 0});
        }) == "pad should be at most half of kernel size, but got pad=2 and kernel_size=2");
  CHECK(message([&] { max_pool3d(y.flatten(0, 2), 2); }) ==
        "non-empty 4D or 5D (batch mode) tensor expected for input");
  CHECK(message([&] {
          max_pool3d(randn({2, 0, 4, 4, 4}), 2);
        }) ==
        "max_pool3d(): Expected input's non-batch dimensions to have positive length, but input "
        "has a shape of [2, 0, 4, 4, 4] and non-batch dimension 0 has length zero!");
  CHECK(max_pool3d(randn({0, 2, 4, 4, 4}), 2).sizes() == IntArrayRef{0, 2, 2, 2, 2});
  CHECK(message([&] {
          max_pool3d(y, {5, 2, 2});
        }) ==
        "Given input size: (2x4x5x4). Calculated output size: (2x0x2x2). Output size is too "
        "small");
  CHECK(message([&] {
          avg_pool3d(y, {6, 2, 2}, 1, {3, 0, 0});
        }) == "input image (T: 4 H: 5 W: 4) smaller than kernel size (kT: 6 kH: 2 kW: 2)");
  CHECK(message([&] { avg_pool3d(y, 2, {}, 0, false, true, 0); }) == "divisor must be not zero");
  CHECK(message([&] { max_pool3d(y.to(kLong), 2); }) ==
        "\"max_pool3d_with_indices_cpu\" not implemented for 'Long'");
  CHECK(message([&] { avg_pool3d(y.to(kHalf), 2); }) ==
        "\"avg_pool3d_out_frame\" not implemented for 'Half'");
  CHECK(message([&] { adaptive_avg_pool3d(y.to(kLong), 2); }) ==
        "\"adaptive_avg_pool3d_cpu\" not implemented for 'Long'");
  CHECK(message([&] { adaptive_max_pool3d(y.to(kHalf), 2); }) ==
        "\"adaptive_max_pool3d_cpu\" not implemented for 'Half'");
  CHECK(message([&] {
          adaptive_avg_pool3d(y, {2, 2});
        }) == "adaptive_avg_pool3d: output_size must be 3");
  CHECK(message([&] {
          adaptive_avg_pool3d(randn({3, 3}), 2);
        }) == "adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got [3, 3]");
  CHECK(message([&] {
          adaptive_max_pool3d(randn({3, 3}), 2);
        }) == "adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: [3, 3]");
  CHECK(message([&] {
          adaptive_avg_pool3d(randn({1, 2, 0, 3, 3}), 2);
        }) ==
        "adaptive_avg_pool3d(): Expected input to have non-zero size for non-batch dimensions, "
        "but input has sizes [1, 2, 0, 3, 3] with dimension 2 being empty");
  CHECK(message([&] {
          adaptive_max_pool3d(y, {-1, 2, 2});
        }) ==
        "adaptive_max_pool3d: elements of output_size must be greater than or equal to 0 but "
        "received {-1, 2, 2}");
}

}  // namespace nn_functional_pooling_test
