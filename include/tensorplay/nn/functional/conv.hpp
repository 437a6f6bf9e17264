// Convolution: ATen's convolution (conv1d/2d/3d, conv_transpose1d/2d/3d, 'same' and 'valid'
// padding) and ConvolutionBackward0, over im2col (nn/functional/im2col.hpp) and the GEMM.
//
// One engine serves both directions. A convolution links a "big" side (a regular convolution's
// input, a transposed one's output) and a "small" side through a weight [Cs, Cb / groups, k...]
// and a ConvGeometry that maps small positions to big windows. Per image and group:
//   big -> small:  small = W (Cs/g x Cb/g*KN) @ im2col(big)        (regular forward)
//   small -> big:  big  += col2im(W^T @ small)                     (transposed forward)
//   weight:        dW   += small @ im2col(big)^T                   (both weight gradients)
// so a regular convolution's input gradient is the transposed forward and the other way round,
// as in PyTorch's slow_conv2d / slow_conv_transpose2d. Images run in parallel; the weight
// gradient sums per-thread partials in a fixed order (deterministic). A 1x1 window with
// stride 1 and no padding skips im2col: the GEMM reads the image in place.
//
// Results take the input's layout: a channels-last input (or weight) gives a channels-last
// result, as PyTorch's CPU convolution does. Under create_graph, ConvolutionBackward0 writes its
// gradients with recorded ops (unfold/fold and matmul), so second derivatives exist.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <tensorplay/autograd/node.hpp>
#include <tensorplay/autograd/record.hpp>
#include <tensorplay/autograd/saved_variable.hpp>
#include <tensorplay/core/empty.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/grad_mode.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/nn/functional/im2col.hpp>
#include <tensorplay/nn/functional/options.hpp>
#include <tensorplay/ops/device_dispatch.hpp>
#include <tensorplay/ops/dispatch.hpp>
#include <tensorplay/ops/gemm.hpp>
#include <tensorplay/ops/linalg.hpp>
#include <tensorplay/ops/parallel.hpp>
#include <tensorplay/ops/reduce.hpp>

namespace tensorplay {
namespace detail {

// The stride that walks an image's spatial dims as one flat dim, or -1 when they do not
// flatten (a sliced or permuted image).
inline int64_t flat_spatial_stride(const Tensor& t, int nd) {
  const int64_t last = t.dim() - 1;
  for (int64_t d = t.dim() - nd; d < last; ++d) {
    if (t.size(d) != 1 && t.stride(d) != t.stride(d + 1) * t.size(d + 1)) return -1;
  }
  return t.stride(last);
}

// An empty [N, C, spatial...] tensor in `format` (channels-last only for 4-d).
inline Tensor empty_image(int64_t n, int64_t c, const std::vector<int64_t>& spatial,
                          const TensorOptions& options, MemoryFormat format) {
  std::vector<int64_t> sizes{n, c};
  sizes.insert(sizes.end(), spatial.begin(), spatial.end());
  if (sizes.size() != 4) format = MemoryFormat::Contiguous;
  return empty(sizes, options, format);
}

// The layout a convolution's result takes: channels-last when the input or the weight is.
inline MemoryFormat conv_memory_format(const Tensor& input, const Tensor& weight) {
  if (input.dim() != 4) return MemoryFormat::Contiguous;
  const bool cl = input.suggest_memory_format() == MemoryFormat::ChannelsLast ||
                  weight.suggest_memory_format() == MemoryFormat::ChannelsLast;
  return cl ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous;
}

// The sizes every kernel below shares.
struct ConvShape {
  int64_t n, cb, cs, groups, cbg, csg, kn, kc, l;
  ConvShape(const ConvGeometry& g, int64_t n_, int64_t cb_, int64_t cs_, int64_t groups_)
      : n(n_),
        cb(cb_),
        cs(cs_),
        groups(groups_),
        cbg(cb_ / groups_),
        csg(cs_ / groups_),
        kn(g.kernel_numel()),
        kc(cbg * kn),
        l(g.out_numel()) {}
};

// Output positions per im2row tile: about 512 KiB of floats, so the tile stays in L2 while
// the GEMM packs it.
inline int64_t row_tile(int64_t width) { return std::max<int64_t>(1, (int64_t(1) << 17) / width); }

// Where the two sides' elements are: the big side's channel and spatial strides (xl: flat, or
// -1), the small side's channel and flat spatial strides, and whether the GEMM can read the big
// side in place (a 1x1 window over an image whose spatial dims flatten).
struct ConvLayout {
  std::array<int64_t, 3> xs;
  int64_t xc, yc, yl, xl;
  bool direct;
  bool rowwise;  // channels adjacent (channels-last): lower to rows (im2row) instead of columns
  int64_t tile;  // output positions per im2row tile
  std::size_t scratch;  // elements of one task's column (or row-tile) buffer
  ConvLayout(const ConvGeometry& g, const ConvShape& s, const Tensor& big, const Tensor& small)
      : xs(spatial_strides(big, g.nd)),
        xc(big.stride(1)),
        yc(small.stride(1)),
        yl(flat_spatial_stride(small, g.nd)),
        xl(flat_spatial_stride(big, g.nd)),
        direct(g.is_pointwise() && xl >= 0),
        rowwise(!direct && xc == 1 && big.size(1) > 1),
        tile(row_tile(s.kc)),
        scratch(direct    ? 0
                : rowwise ? std::size_t(std::min(tile, s.l) * s.kc)
                          : std::size_t(s.kc * s.l)) {}
};

// The weight [Cs, Cb / groups, k...] as the rows meet it: [Cs, k..., Cb / groups], contiguous.
inline Tensor rowwise_weight(const Tensor& w) {
  std::vector<int64_t> order{0};
  for (int64_t d = 2; d < w.dim(); ++d) order.push_back(d);
  order.push_back(1);
  return w.permute(order).contiguous();
}

// big [N, Cb, in...] -> small [N, Cs, out...] (+ bias), w contiguous [Cs, Kc].
template <class T>
void conv_big_to_small(const ConvGeometry& g, const ConvShape& s, const Tensor& big,
                       const Tensor& w, const Tensor& bias, const Tensor& small) {
  const ConvLayout lay(g, s, big, small);
  const auto& xs = lay.xs;
  const int64_t xc = lay.xc, yc = lay.yc, yl = lay.yl, xl = lay.xl;
  const bool direct = lay.direct;
  const T* x = big.data_ptr<T>();
  const T* wp = w.data_ptr<T>();
  const T* bp = bias.defined() ? bias.data_ptr<T>() : nullptr;
  T* y = small.data_ptr<T>();
  const Tensor wr = lay.rowwise ? rowwise_weight(w) : Tensor();
  const int64_t tile = lay.tile;
  parallel_for(0, s.n, 1, [&](int64_t b, int64_t e) {
    std::vector<T> col(lay.scratch);
    for (int64_t i = b; i < e; ++i) {
      for (int64_t gi = 0; gi < s.groups; ++gi) {
        const T* xi = x + i * big.stride(0) + gi * s.cbg * xc;
        T* yi = y + i * small.stride(0) + gi * s.csg * yc;
        T beta(0);
        if (bp) {
          for (int64_t o = 0; o < s.csg; ++o) {
            for (int64_t p = 0; p < s.l; ++p) yi[o * yc + p * yl] = bp[gi * s.csg + o];
          }
          beta = T(1);
        }
        if (lay.rowwise) {  // y^T[l, o] = rows[l, :] . W'[o, :], tile by tile
          const T* wg = wr.data_ptr<T>() + gi * s.csg * s.kc;
          for (int64_t l0 = 0; l0 < s.l; l0 += tile) {
            const int64_t l1 = std::min(l0 + tile, s.l);
            im2row<T>(g, s.cbg, xi, xs, l0, l1, col.data());
            gemm<T>(l1 - l0, s.csg, s.kc, T(1), col.data(), s.kc, 1, wg, 1, s.kc, beta,
                    yi + l0 * yl, yl, yc);
          }
          continue;
        }
        if (!direct) im2col<T>(g, s.cbg, xi, xc, xs, col.data());
        gemm<T>(s.csg, s.l, s.kc, T(1), wp + gi * s.csg * s.kc, s.kc, 1, direct ? xi : col.data(),
                direct ? xc : s.l, direct ? xl : 1, beta, yi, yc, yl);
      }
    }
  });
}

// small [N, Cs, out...] -> big [N, Cb, in...] (zeroed here), w contiguous [Cs, Kc]; small's
// spatial dims must flatten.
template <class T>
void conv_small_to_big(const ConvGeometry& g, const ConvShape& s, const Tensor& small,
                       const Tensor& w, const Tensor& big) {
  const ConvLayout lay(g, s, big, small);
  const auto& xs = lay.xs;
  const int64_t xc = lay.xc, yc = lay.yc, yl = lay.yl, xl = lay.xl;
  const bool direct = lay.direct;
  if (!direct) big.zero_();  // col2im adds onto it
  const T* y = small.data_ptr<T>();
  const T* wp = w.data_ptr<T>();
  T* x = big.data_ptr<T>();
  const Tensor wr = lay.rowwise ? rowwise_weight(w) : Tensor();
  const int64_t tile = lay.tile;
  parallel_for(0, s.n, 1, [&](int64_t b, int64_t e) {
    std::vector<T> col(lay.scratch);
    for (int64_t i = b; i < e; ++i) {
      for (int64_t gi = 0; gi < s.groups; ++gi) {
        T* xi = x + i * big.stride(0) + gi * s.cbg * xc;
        const T* yi = y + i * small.stride(0) + gi * s.csg * yc;
        const T* wg = wp + gi * s.csg * s.kc;
        if (lay.rowwise) {  // rows[l, :] = sum_o y^T[l, o] W'[o, :], added back tile by tile
          const T* wrg = wr.data_ptr<T>() + gi * s.csg * s.kc;
          for (int64_t l0 = 0; l0 < s.l; l0 += tile) {
            const int64_t l1 = std::min(l0 + tile, s.l);
            gemm<T>(l1 - l0, s.kc, s.csg, T(1), yi + l0 * yl, yl, yc, wrg, s.kc, 1, T(0),
                    col.data(), s.kc, 1);
            row2im<T>(g, s.cbg, col.data(), l0, l1, xi, xs);
          }
        } else if (direct) {
          gemm<T>(s.kc, s.l, s.csg, T(1), wg, 1, s.kc, yi, yc, yl, T(0), xi, xc, xl);
        } else {
          gemm<T>(s.kc, s.l, s.csg, T(1), wg, 1, s.kc, yi, yc, yl, T(0), col.data(), s.l, 1);
          col2im<T>(g, s.cbg, col.data(), xi, xc, xs);
        }
      }
    }
  });
}

// dW [Cs, Kc] = sum over images of small @ im2col(big)^T; small's spatial dims must flatten.
// Each task sums its own images into its own partial; the partials are added in task order.
template <class T>
void conv_weight_grad(const ConvGeometry& g, const ConvShape& s, const Tensor& big,
                      const Tensor& small, const Tensor& dw) {
  const ConvLayout lay(g, s, big, small);
  const auto& xs = lay.xs;
  const int64_t xc = lay.xc, yc = lay.yc, yl = lay.yl, xl = lay.xl;
  const bool direct = lay.direct;
  const int64_t tasks = std::max<int64_t>(1, std::min<int64_t>(s.n, get_num_threads()));
  const int64_t wn = s.cs * s.kc;
  std::vector<T> partial(std::size_t(tasks * wn), T(0));
  const T* x = big.data_ptr<T>();
  const T* y = small.data_ptr<T>();
  const int64_t tile = lay.tile;
  parallel_for(0, tasks, 1, [&](int64_t b, int64_t e) {
    std::vector<T> col(lay.scratch);
    for (int64_t t = b; t < e; ++t) {
      T* acc = partial.data() + t * wn;
      for (int64_t i = t * s.n / tasks; i < (t + 1) * s.n / tasks; ++i) {
        for (int64_t gi = 0; gi < s.groups; ++gi) {
          const T* xi = x + i * big.stride(0) + gi * s.cbg * xc;
          const T* yi = y + i * small.stride(0) + gi * s.csg * yc;
          if (lay.rowwise) {  // W'[o, :] += sum_l y^T[l, o] rows[l, :]
            for (int64_t l0 = 0; l0 < s.l; l0 += tile) {
              const int64_t l1 = std::min(l0 + tile, s.l);
              im2row<T>(g, s.cbg, xi, xs, l0, l1, col.data());
              gemm<T>(s.csg, s.kc, l1 - l0, T(1), yi + l0 * yl, yc, yl, col.data(), s.kc, 1, T(1),
                      acc + gi * s.csg * s.kc, s.kc, 1);
            }
            continue;
          }
          if (!direct) im2col<T>(g, s.cbg, xi, xc, xs, col.data());
          gemm<T>(s.csg, s.kc, s.l, T(1), yi, yc, yl, direct ? xi : col.data(), direct ? xl : 1,
                  direct ? xc : s.l, T(1), acc + gi * s.csg * s.kc, s.kc, 1);
        }
      }
    }
  });
  // Rowwise partials are in the [Cs, k..., Cb / groups] order: summed there, then permuted.
  const Tensor sum = lay.rowwise ? empty({wn}, dw.options()) : dw;
  T* out = sum.data_ptr<T>();
  for (int64_t j = 0; j < wn; ++j) {
    T acc = partial[std::size_t(j)];
    for (int64_t t = 1; t < tasks; ++t) acc += partial[std::size_t(t * wn + j)];
    out[j] = acc;
  }
  if (lay.rowwise) {
    std::vector<int64_t> shape{dw.size(0)}, order{0, dw.dim() - 1};
    for (int64_t d = 2; d < dw.dim(); ++d) shape.push_back(dw.size(d));
    shape.push_back(dw.size(1));
    for (int64_t d = 1; d < dw.dim() - 1; ++d) order.push_back(d);
    dw.copy_(sum.view(shape).permute(order));
  }
}

// The dtypes the CPU convolution computes in: PyTorch's slow_conv kernels take every real type
// but Half and Bool.
template <class F>
void dispatch_conv(DType dt, const char* kernel, const F& f) {
  if (dt == kHalf || dt == kBool) dtype_not_implemented(kernel, dt);
  dispatch_dtype(dt, [&]<class T>() {
    if constexpr (!std::is_same_v<T, bool> && !std::is_same_v<T, Half>) f.template operator()<T>();
  });
}

inline const char* conv_kernel_name(int nd, bool transposed) {
  if (transposed)
    return nd == 3 ? "slow_conv_transpose3d_out_cpu" : "slow_conv_transpose2d_out_cpu";
  return nd == 3 ? "compute_columns3d" : "slow_conv2d_cpu";
}

// The unrecorded forward: big -> small for a regular convolution, small -> big (+ bias) for a
// transposed one.
template <class = void>
Tensor conv_forward_kernel(const Tensor& input, const Tensor& weight, const Tensor& bias,
                           const ConvGeometry& g, bool transposed, int64_t groups) {
  check_host_only("convolution", input, weight, bias);
  const MemoryFormat fmt = conv_memory_format(input, weight);
  const Tensor w = weight.contiguous();
  const int64_t n = input.size(0);
  Tensor out;
  if (!transposed) {
    out = empty_image(n, weight.size(0), g.spatial(g.out), input.options(), fmt);
    if (out.numel() == 0) return out;
    const ConvShape s(g, n, input.size(1), weight.size(0), groups);
    dispatch_conv(input.dtype(), conv_kernel_name(g.nd, false), [&]<class T>() {
      conv_big_to_small<T>(g, s, input, w, bias.defined() ? bias.contiguous() : bias, out);
    });
    return out;
  }
  const int64_t cb = weight.size(1) * groups;
  out = empty_image(n, cb, g.spatial(g.in), input.options(), fmt);
  if (out.numel() == 0) return out;
  const ConvShape s(g, n, cb, input.size(1), groups);
  const Tensor small =
      input.contiguous(fmt == MemoryFormat::ChannelsLast ? fmt : MemoryFormat::Contiguous);
  dispatch_conv(input.dtype(), conv_kernel_name(g.nd, true),
                [&]<class T>() { conv_small_to_big<T>(g, s, small, w, out); });
  if (bias.defined()) {
    std::vector<int64_t> shape(std::size_t(out.dim()), 1);
    shape[1] = cb;
    out.add_(bias.reshape(shape));
  }
  return out;
}

}  // namespace detail

namespace autograd {

// convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
// groups): PyTorch's convolution_backward, with the geometry the forward resolved.
template <class = void>
struct ConvolutionBackward0T final : Node {
  TENSORPLAY_NODE_NAME_(ConvolutionBackward0)
  SavedVariable input_, weight_;
  tensorplay::detail::ConvGeometry geometry_;
  bool transposed_ = false;
  int64_t groups_ = 1;
  variable_list apply(variable_list&& grads) override;
  void release_variables() override {
    input_.reset_data();
    weight_.reset_data();
  }
};
using ConvolutionBackward0 = ConvolutionBackward0T<>;

}  // namespace autograd

namespace detail {

// The recorded convolution over a resolved geometry (what every public entry point calls).
template <class = void>
Tensor convolution_geometry(const Tensor& input, const Tensor& weight, const Tensor& bias,
                            const ConvGeometry& g, bool transposed, int64_t groups) {
  return autograd::detail::differentiable<autograd::ConvolutionBackward0>(
      [&] { return conv_forward_kernel(input, weight, bias, g, transposed, groups); },
      [&](autograd::ConvolutionBackward0& fn, const Tensor&) {
        fn.input_ = autograd::SavedVariable(input, false);
        fn.weight_ = autograd::SavedVariable(weight, false);
        fn.geometry_ = g;
        fn.transposed_ = transposed;
        fn.groups_ = groups;
      },
      input, weight, bias);
}

// The parameter lists of a convolution over nd spatial dims, each given as one value or nd.
inline std::vector<int64_t> expand_conv_param(IntArrayRef v, int64_t nd, const char* name) {
  if (int64_t(v.size()) == nd) return v.vec();
  if (v.size() == 1) return std::vector<int64_t>(std::size_t(nd), v[0]);
  std::ostringstream os;
  os << "expected " << name << " to be a single integer value or a list of " << nd
     << " values to match the convolution dimensions, but got " << name << "=" << v;
  throw Error(os.str());
}

inline std::string size_text(IntArrayRef v) {
  std::ostringstream os;
  os << v;
  return os.str();
}

// PyTorch's check_shape_forward (and the parameter checks of _convolution before it).
template <class = void>
void check_conv_shape(const Tensor& input, const Tensor& weight, const Tensor& bias,
                      IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation,
                      bool transposed, IntArrayRef output_padding, int64_t groups) {
  TP_CHECK(groups > 0, "non-positive groups is not supported");
  for (int64_t v : stride) TP_CHECK(v > 0, "non-positive stride is not supported");
  for (int64_t v : padding) TP_CHECK(v >= 0, "negative padding is not supported");
  for (int64_t v : output_padding) TP_CHECK(v >= 0, "negative output_padding is not supported");
  for (int64_t v : dilation) TP_CHECK(v > 0, "non-positive dilation is not supported");
  TP_CHECK(input.dtype() == weight.dtype(), "Input type (tensorplay.",
           legacy_type_name(input.dtype()), ") and weight type (tensorplay.",
           legacy_type_name(weight.dtype()), ") should be the same");
  TP_CHECK(!bias.defined() || bias.dtype() == input.dtype(), "Input type (",
           typemeta_name(input.dtype()), ") and bias type (",
           bias.defined() ? typemeta_name(bias.dtype()) : "", ") should be the same");
  const int64_t k = weight.dim();
  TP_CHECK(k >= 3, "weight should have at least three dimensions");
  TP_CHECK(input.dim() == k, "Expected ", k, "-dimensional input for ", k, "-dimensional weight ",
           weight.sizes(), ", but got ", input.dim(), "-dimensional input of size ", input.sizes(),
           " instead");
  const std::string wsize = size_text(weight.sizes());
  TP_CHECK(weight.size(0) >= groups, "Given groups=", groups, ", expected weight to be at least ",
           groups, " at dimension 0, but got weight of size [", wsize, "] instead");
  TP_CHECK(weight.size(0) % groups == 0, "Given groups=", groups,
           ", expected weight to be divisible by ", groups,
           " at dimension 0, but got weight of "
           "size [",
           wsize, "] instead");
  if (!transposed) {
    TP_CHECK(input.size(1) == weight.size(1) * groups, "Given groups=", groups, ", weight of size ",
             weight.sizes(), ", expected input", input.sizes(), " to have ",
             weight.size(1) * groups, " channels, but got ", input.size(1), " channels instead");
    TP_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == weight.size(0)),
             "Given weight of size ", weight.sizes(), ", expected bias to be 1-dimensional with ",
             weight.size(0), " elements, but got bias of size ",
             bias.defined() ? size_text(bias.sizes()) : "", " instead");
    std::ostringstream padded, kernel;
    bool too_small = false;
    for (int64_t d = 2; d < k; ++d) {
      const int64_t p = input.size(d) + 2 * padding[std::size_t(d - 2)];
      const int64_t kk = dilation[std::size_t(d - 2)] * (weight.size(d) - 1) + 1;
      padded << (d > 2 ? " x " : "") << p;
      kernel << (d > 2 ? " x " : "") << kk;
      too_small = too_small || p < kk;
    }
    TP_CHECK(!too_small, "Calculated padded input size per channel: (", padded.str(),
             "). Kernel size: (", kernel.str(),
             "). Kernel size can't be greater than actual input size");
  } else {
    TP_CHECK(input.size(1) == weight.size(0), "Given transposed=1, weight of size ", weight.sizes(),
             ", expected input", input.sizes(), " to have ", weight.size(0), " channels, but got ",
             input.size(1), " channels instead");
    TP_CHECK(!bias.defined() || (bias.dim() == 1 && bias.size(0) == weight.size(1) * groups),
             "Given transposed=1, weight of size ", weight.sizes(),
             ", expected bias to be 1-dimensional with ", weight.size(1) * groups,
             " elements, but got bias of size ", bias.defined() ? size_text(bias.sizes()) : "",
             " instead");
    for (std::size_t d = 0; d < output_padding.size(); ++d) {
      TP_CHECK(output_padding[d] < stride[d] || output_padding[d] < dilation[d],
               "output padding must be smaller than either stride or dilation, but got "
               "output_padding: ",
               output_padding, " stride: ", stride, " dilation: ", dilation);
    }
  }
}

}  // namespace detail

// ATen's convolution: the one entry point under conv1d/2d/3d and conv_transpose1d/2d/3d.
// input [N, C, spatial...] (batched only: the convN wrappers unsqueeze an unbatched input).
template <class = void>
Tensor convolution(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,
                   IntArrayRef stride, IntArrayRef padding, IntArrayRef dilation, bool transposed,
                   IntArrayRef output_padding, int64_t groups) {
  const Tensor b = bias.value_or(Tensor());
  const int64_t nd = std::max<int64_t>(weight.dim() - 2, 1);
  const auto st = detail::expand_conv_param(stride, nd, "stride");
  const auto pd = detail::expand_conv_param(padding, nd, "padding");
  const auto dl = detail::expand_conv_param(dilation, nd, "dilation");
  const auto op = detail::expand_conv_param(output_padding, nd, "output_padding");
  detail::check_conv_shape(input, weight, b, st, pd, dl, transposed, op, groups);
  const std::size_t nds = std::size_t(nd);
  std::vector<int64_t> in(nds), out(nds), kernel(nds);
  for (std::size_t d = 0; d < nds; ++d) {
    kernel[d] = weight.size(int64_t(d) + 2);
    const int64_t span = dl[d] * (kernel[d] - 1);
    const int64_t x = input.size(int64_t(d) + 2);
    if (transposed) {  // the big side is the output
      out[d] = x;
      in[d] = (x - 1) * st[d] - 2 * pd[d] + span + op[d] + 1;
    } else {
      in[d] = x;
      out[d] = (x + 2 * pd[d] - span - 1) / st[d] + 1;
    }
  }
  return detail::convolution_geometry(
      input, weight, b, detail::make_geometry(in, out, kernel, st, pd, dl), transposed, groups);
}

namespace detail {

// convNd's unbatched form: a [C, spatial...] input is one image.
template <class F>
Tensor conv_batchify(const Tensor& input, const Tensor& weight, int64_t nd, const char* name,
                     const F& f) {
  const bool batched = input.dim() == nd + 2;
  TP_CHECK(batched || input.dim() == nd + 1, "Expected ", nd + 1, "D (unbatched) or ", nd + 2,
           "D (batched) input to ", name, ", but got input of size: ", input.sizes());
  TP_CHECK(weight.dim() >= 3, "weight should have at least three dimensions");
  if (batched) return f(input);
  return f(input.unsqueeze(0)).squeeze(0);
}

// conv with padding='same' or 'valid' (PyTorch's _convolution_mode): 'same' pads
// dilation * (kernel - 1) in total per dim, the odd element on the right, stride 1 only.
template <class = void>
Tensor conv_padding_mode(const Tensor& input, const Tensor& weight,
                         const std::optional<Tensor>& bias, IntArrayRef stride,
                         std::string_view padding, IntArrayRef dilation, int64_t groups,
                         int64_t nd) {
  if (padding == "valid") {
    return convolution(input, weight, bias, stride, IntArrayRef(int64_t(0)), dilation, false,
                       IntArrayRef(int64_t(0)), groups);
  }
  TP_CHECK(padding == "same", "Invalid padding string: '", padding, "'");
  const auto st = expand_conv_param(stride, nd, "stride");
  for (int64_t s : st) TP_CHECK(s == 1, "padding='same' is not supported for strided convolutions");
  const auto dl = expand_conv_param(dilation, nd, "dilation");
  const std::size_t nds = std::size_t(nd);
  std::vector<int64_t> left(nds), kernel(nds), spatial(nds);
  bool symmetric = true;
  for (std::size_t d = 0; d < nds; ++d) {
    kernel[d] = weight.dim() > int64_t(d) + 2 ? weight.size(int64_t(d) + 2) : 1;
    const int64_t total = dl[d] * (kernel[d] - 1);
    left[d] = total / 2;
    symmetric = symmetric && total % 2 == 0;
    spatial[d] = input.size(int64_t(d) + 2);
  }
  if (symmetric) {
    return convolution(input, weight, bias, st, left, dl, false, IntArrayRef(int64_t(0)), groups);
  }
  // The checks of the symmetric call, then the asymmetric geometry: out = in.
  const Tensor b = bias.value_or(Tensor());
  check_conv_shape(input, weight, b, st, left, dl, false, std::vector<int64_t>(std::size_t(nd), 0),
                   groups);
  return convolution_geometry(input, weight, b,
                              make_geometry(spatial, spatial, kernel, st, left, dl), false, groups);
}

}  // namespace detail

#define TENSORPLAY_CONV_ND_(N)                                                                     \
  template <class = void>                                                                          \
  Tensor conv##N##d(const Tensor& input, const Tensor& weight,                                     \
                    const std::optional<Tensor>& bias = std::nullopt, IntArrayRef stride = 1,      \
                    IntArrayRef padding = 0, IntArrayRef dilation = 1, int64_t groups = 1) {       \
    return detail::conv_batchify(input, weight, N, "conv" #N "d", [&](const Tensor& x) {           \
      return convolution(x, weight, bias, stride, padding, dilation, false, 0, groups);            \
    });                                                                                            \
  }                                                                                                \
  template <class = void>                                                                          \
  Tensor conv##N##d(const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias,  \
                    IntArrayRef stride, PaddingString padding, IntArrayRef dilation = 1,           \
                    int64_t groups = 1) {                                                          \
    return detail::conv_batchify(input, weight, N, "conv" #N "d", [&](const Tensor& x) {           \
      return detail::conv_padding_mode(x, weight, bias, stride, padding.value, dilation, groups,   \
                                       N);                                                         \
    });                                                                                            \
  }                                                                                                \
  template <class = void>                                                                          \
  Tensor conv_transpose##N##d(                                                                     \
      const Tensor& input, const Tensor& weight, const std::optional<Tensor>& bias = std::nullopt, \
      IntArrayRef stride = 1, IntArrayRef padding = 0, IntArrayRef output_padding = 0,             \
      int64_t groups = 1, IntArrayRef dilation = 1) {                                              \
    return detail::conv_batchify(input, weight, N, "conv_transpose" #N "d", [&](const Tensor& x) { \
      return convolution(x, weight, bias, stride, padding, dilation, true, output_padding,         \
                         groups);                                                                  \
    });                                                                                            \
  }
TENSORPLAY_CONV_ND_(1)
TENSORPLAY_CONV_ND_(2)
TENSORPLAY_CONV_ND_(3)
#undef TENSORPLAY_CONV_ND_

namespace nn::functional {

// libtorch's F::convNd(input, weight, F::ConvNdFuncOptions()...) and F::conv_transposeNd.
#define TENSORPLAY_F_CONV_(N)                                                                \
  template <class = void>                                                                    \
  Tensor conv##N##d(const Tensor& input, const Tensor& weight,                               \
                    const Conv##N##dFuncOptions& options = {}) {                             \
    if (options.padding_mode()) {                                                            \
      const std::string_view mode = *options.padding_mode() == kSame ? "same" : "valid";     \
      return tensorplay::conv##N##d(input, weight, options.bias(), options.stride(), mode,   \
                                    options.dilation(), options.groups());                   \
    }                                                                                        \
    return tensorplay::conv##N##d(input, weight, options.bias(), options.stride(),           \
                                  options.padding(), options.dilation(), options.groups());  \
  }                                                                                          \
  template <class = void>                                                                    \
  Tensor conv_transpose##N##d(const Tensor& input, const Tensor& weight,                     \
                              const ConvTranspose##N##dFuncOptions& options = {}) {          \
    return tensorplay::conv_transpose##N##d(input, weight, options.bias(), options.stride(), \
                                            options.padding(), options.output_padding(),     \
                                            options.groups(), options.dilation());           \
  }
TENSORPLAY_F_CONV_(1)
TENSORPLAY_F_CONV_(2)
TENSORPLAY_F_CONV_(3)
#undef TENSORPLAY_F_CONV_

}  // namespace nn::functional

template <class V>
autograd::variable_list autograd::ConvolutionBackward0T<V>::apply(variable_list&& grads) {
  using tensorplay::detail::ConvShape;
  auto me = shared_from_this();
  const Tensor x = input_.unpack(me), w = weight_.unpack(me);
  const Tensor& gy = grads[0];
  tensorplay::detail::check_host_only("convolution_backward", x, w, gy);
  const auto& g = geometry_;
  variable_list out(3);
  // The bias gradient: gy summed over every dim but the channels.
  if (should_compute_output(2)) {
    std::vector<int64_t> dims{0};
    for (int64_t d = 2; d < gy.dim(); ++d) dims.push_back(d);
    out[2] = gy.sum(dims);
  }
  const Tensor& big = transposed_ ? gy : x;    // [N, Cb, in...]
  const Tensor& small = transposed_ ? x : gy;  // [N, Cs, out...]
  const int64_t n = x.size(0), cs = w.size(0), groups = groups_;
  const ConvShape s(g, n, w.size(1) * groups, cs, groups);
  if (GradMode::is_enabled()) {
    // create_graph: the same products as recorded ops, so that they have gradients too.
    const Tensor wv = w.reshape({groups, s.csg, s.kc});
    const Tensor cols = tensorplay::detail::unfold_nd(big, g).view({n, groups, s.kc, s.l});
    const Tensor sv = small.reshape({n, groups, s.csg, s.l});
    if (should_compute_output(1)) {
      out[1] = sv.matmul(cols.transpose(-1, -2)).sum(0).reshape(w.sizes());
    }
    if (should_compute_output(0)) {
      out[0] = transposed_
                   ? wv.matmul(cols).reshape(x.sizes())
                   : tensorplay::detail::fold_nd(
                         wv.transpose(1, 2).matmul(sv).reshape({n, groups * s.kc, s.l}), g, s.cb);
    }
    return out;
  }
  const MemoryFormat fmt = tensorplay::detail::conv_memory_format(x, w);
  const Tensor wc = w.contiguous();
  const Tensor sc = small.contiguous(fmt);
  if (should_compute_output(0)) {
    if (transposed_) {
      out[0] = tensorplay::detail::empty_image(n, cs, g.spatial(g.out), x.options(), fmt);
      if (out[0].numel() > 0) {
        tensorplay::detail::dispatch_conv(x.dtype(), "slow_conv2d_cpu", [&]<class T>() {
          tensorplay::detail::conv_big_to_small<T>(g, s, big, wc, Tensor(), out[0]);
        });
      }
    } else {
      out[0] = tensorplay::detail::empty_image(n, s.cb, g.spatial(g.in), x.options(), fmt);
      if (out[0].numel() > 0) {
        tensorplay::detail::dispatch_conv(x.dtype(), "slow_conv2d_cpu", [&]<class T>() {
          tensorplay::detail::conv_small_to_big<T>(g, s, sc, wc, out[0]);
        });
      }
    }
  }
  if (should_compute_output(1)) {
    out[1] = empty(w.sizes(), w.options());
    if (n == 0 || s.l == 0) {
      out[1].zero_();
    } else if (out[1].numel() > 0) {
      tensorplay::detail::dispatch_conv(x.dtype(), "slow_conv2d_cpu", [&]<class T>() {
        tensorplay::detail::conv_weight_grad<T>(g, s, big, sc, out[1]);
      });
    }
  }
  return out;
}

}  // namespace tensorplay
