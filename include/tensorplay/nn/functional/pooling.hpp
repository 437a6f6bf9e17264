// Pooling: max_pool1d/2d/3d (and _with_indices), avg_pool1d/2d/3d, adaptive_avg_pool1d/2d/3d and
// adaptive_max_pool1d/2d/3d, as ATen-level ops with PyTorch's nodes (MaxPool2DWithIndicesBackward0,
// AvgPool2DBackward0, AdaptiveAvgPool2DBackward0, AdaptiveMaxPool2DBackward0 and their 3D
// twins); the 1-d forms are the 2-d ones over an unsqueezed height of 1, as in PyTorch.
//
// Every pooling is one loop over the output positions of each [D, H, W] volume (a 2-d pooling's
// plane is a volume of depth 1), and what differs is its windows: output position o of a dim
// reads the input positions first + j * step for j in [0, count) -- a strided, dilated, padded
// window (clipped to the input) or an adaptive one (floor(o * in / out) to
// ceil((o + 1) * in / out)). Averages also carry the element count the sum is divided by (the
// padded window's, the clipped one's, or divisor_override).
//
// Max pooling returns each window's first maximum (a NaN wins, as in PyTorch) and its flat
// index (d * H + h) * W + w in the volume; its gradient goes back through those indices with the
// recorded scatter_add. An average's gradient is the adjoint sum of the same windows, written as
// a recorded op whose own gradient is the average again, so second derivatives exist.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <sstream>
#include <tuple>
#include <type_traits>
#include <vector>

#include <tensorplay/autograd/node.hpp>
#include <tensorplay/autograd/record.hpp>
#include <tensorplay/autograd/saved_variable.hpp>
#include <tensorplay/core/empty.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/nn/functional/options.hpp>
#include <tensorplay/ops/device_dispatch.hpp>
#include <tensorplay/ops/dispatch.hpp>
#include <tensorplay/ops/parallel.hpp>
#include <tensorplay/ops/reduce.hpp>
#include <tensorplay/ops/scatter_gather.hpp>

namespace tensorplay {
namespace detail {

// The input positions one output position of one dim reads: first + j * step, j < count;
// `divisor` is the element count an average over a padded window counts along this dim.
struct PoolWindow {
  int64_t first = 0, step = 1, count = 0, padded = 0;
};

// The windows of each pooled dim, and how an average divides. `nd` dims are pooled (the last
// 2 or 3 of the input); a 2-d pooling has one depth window over a depth of 1.
struct PoolWindows {
  std::vector<PoolWindow> d{PoolWindow{0, 1, 1, 1}}, h, w;
  int64_t in_d = 1, in_h = 0, in_w = 0;
  int64_t nd = 2;
  bool count_include_pad = true;
  std::optional<int64_t> divisor_override;
  double divisor(const PoolWindow& z, const PoolWindow& a, const PoolWindow& b) const {
    if (divisor_override) return double(*divisor_override);
    return count_include_pad ? double(z.padded * a.padded * b.padded)
                             : double(z.count * a.count * b.count);
  }
  int64_t in_volume() const { return in_d * in_h * in_w; }
  int64_t out_volume() const { return int64_t(d.size() * h.size() * w.size()); }
  // The pooled dims' output sizes, outermost first.
  std::vector<int64_t> out_sizes() const {
    std::vector<int64_t> s{int64_t(h.size()), int64_t(w.size())};
    if (nd == 3) s.insert(s.begin(), int64_t(d.size()));
    return s;
  }
};

// A strided, padded, dilated dim: window o starts at o * stride - pad; its padded extent for an
// average ends at min(start + kernel, in + pad) (PyTorch's avg_pool2d rule).
inline std::vector<PoolWindow> sliding_windows(int64_t in, int64_t out, int64_t kernel,
                                               int64_t stride, int64_t pad, int64_t dilation) {
  std::vector<PoolWindow> v(static_cast<std::size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    PoolWindow& w = v[std::size_t(o)];
    const int64_t start = o * stride - pad;
    w.padded = std::min(start + kernel, in + pad) - start;
    int64_t j0 = start < 0 ? (-start + dilation - 1) / dilation : 0;
    int64_t j1 = kernel;
    while (j1 > j0 && start + (j1 - 1) * dilation >= in) --j1;
    w.first = start + j0 * dilation;
    w.step = dilation;
    w.count = std::max<int64_t>(j1 - j0, 0);
  }
  return v;
}

// An adaptive dim: window o covers [floor(o * in / out), ceil((o + 1) * in / out)).
inline std::vector<PoolWindow> adaptive_windows(int64_t in, int64_t out) {
  std::vector<PoolWindow> v(static_cast<std::size_t>(out));
  for (int64_t o = 0; o < out; ++o) {
    const int64_t lo = (o * in) / out, hi = ((o + 1) * in + out - 1) / out;
    v[std::size_t(o)] = {lo, 1, hi - lo, hi - lo};
  }
  return v;
}

// PyTorch's pooling_output_shape: floor (or ceil) of the window count, with ceil_mode's last
// window required to start inside the input or its left padding.
inline int64_t pooling_output_size(int64_t in, int64_t kernel, int64_t pad, int64_t stride,
                                   int64_t dilation, bool ceil_mode) {
  const int64_t span = in + 2 * pad - dilation * (kernel - 1) - 1 + (ceil_mode ? stride - 1 : 0);
  int64_t out = (span >= 0 ? span / stride : -((-span + stride - 1) / stride)) + 1;
  if (ceil_mode && (out - 1) * stride >= in + pad) --out;
  return out;
}

// The volumes of an input ([N, C, (D,) H, W] or [C, (D,) H, W]; `volume` elements each) as one
// contiguous [P, volume] tensor.
inline Tensor pool_planes(const Tensor& x, int64_t volume) {
  return x.contiguous().view({-1, volume});
}

// The result shape: the input's leading dims and the pooled dims' output sizes, in the input's
// layout.
inline Tensor pool_result(const Tensor& planes, const Tensor& like, const PoolWindows& win) {
  std::vector<int64_t> sizes = like.sizes().vec();
  const std::vector<int64_t> out = win.out_sizes();
  std::copy(out.begin(), out.end(), sizes.end() - win.nd);
  Tensor r = planes.view(sizes);
  if (like.dim() == 4 && win.nd == 2 &&
      like.suggest_memory_format() == MemoryFormat::ChannelsLast) {
    r = r.contiguous(MemoryFormat::ChannelsLast);
  }
  return r;
}

// Calls f(t, u, v, offset) for each input position of the window (z, a, c), depth outermost,
// with offset its flat index in the volume, until f returns false.
template <class F>
void for_window(const PoolWindows& win, const PoolWindow& z, const PoolWindow& a,
                const PoolWindow& c, F&& f) {
  for (int64_t t = 0; t < z.count; ++t) {
    const int64_t dz = (z.first + t * z.step) * win.in_h;
    for (int64_t u = 0; u < a.count; ++u) {
      const int64_t r = (dz + a.first + u * a.step) * win.in_w;
      for (int64_t v = 0; v < c.count; ++v) {
        if (!f(r + c.first + v * c.step)) return;
      }
    }
  }
}

// Calls f(z, a, c, o) for each output position, o its flat index in the output volume.
template <class F>
void for_outputs(const PoolWindows& win, F&& f) {
  int64_t o = 0;
  for (const PoolWindow& z : win.d) {
    for (const PoolWindow& a : win.h) {
      for (const PoolWindow& c : win.w) f(z, a, c, o++);
    }
  }
}

// [P, volume] -> the windows' maxima and their flat indices, both [P, output volume].
template <class = void>
std::tuple<Tensor, Tensor> window_max(const Tensor& planes, const PoolWindows& win,
                                      const char* name) {
  check_host_only(name, planes);
  const int64_t p = planes.size(0), out_volume = win.out_volume();
  Tensor out = empty({p, out_volume}, planes.options());
  Tensor idx = empty({p, out_volume}, planes.options().dtype(kLong));
  if (out.numel() == 0) return {out, idx};
  const int64_t volume = win.in_volume();
  dispatch_dtype(planes.dtype(), [&]<class T>() {
    if constexpr (std::is_same_v<T, bool>) {
      dtype_not_implemented(name, kBool);
    } else {
      const T* x = planes.data_ptr<T>();
      T* o = out.data_ptr<T>();
      int64_t* ix = idx.data_ptr<int64_t>();
      parallel_for(0, p, 1, [&](int64_t b, int64_t e) {
        for (int64_t q = b; q < e; ++q) {
          const T* xp = x + q * volume;
          for_outputs(win, [&](const PoolWindow& z, const PoolWindow& a, const PoolWindow& c,
                               int64_t at_out) {
            int64_t best = (z.first * win.in_h + a.first) * win.in_w + c.first;
            T m = std::numeric_limits<T>::lowest();
            if constexpr (std::numeric_limits<T>::has_infinity) {
              m = -std::numeric_limits<T>::infinity();
            }
            for_window(win, z, a, c, [&](int64_t at) {
              const T val = xp[at];
              bool nan = false;
              if constexpr (!std::is_integral_v<T>) nan = std::isnan(double(val));
              if (val > m || nan) {
                m = val;
                best = at;
              }
              return !nan;  // a NaN is the maximum: stop there
            });
            o[q * out_volume + at_out] = m;
            ix[q * out_volume + at_out] = best;
          });
        }
      });
    }
  });
  return {out, idx};
}

// [P, volume] -> the windows' averages [P, output volume] (adjoint = false), or the adjoint:
// [P, output volume] gradients spread back over their windows into [P, volume] (adjoint = true).
template <class = void>
Tensor window_mean(const Tensor& planes, const PoolWindows& win, bool adjoint, const char* name) {
  check_host_only(name, planes);
  const int64_t p = planes.size(0), out_volume = win.out_volume(), volume = win.in_volume();
  Tensor out = adjoint ? empty({p, volume}, planes.options()).zero_()
                       : empty({p, out_volume}, planes.options());
  if (out.numel() == 0 || planes.numel() == 0) return out;
  const DType dt = planes.dtype();
  TP_CHECK(dt != kBool, "\"", name, "\" not implemented for 'Bool'");
  dispatch_dtype(dt, [&]<class T>() {
    if constexpr (!std::is_same_v<T, bool>) {
      using Acc = std::conditional_t<std::is_integral_v<T>, int64_t,
                                     std::conditional_t<std::is_same_v<T, double>, double, float>>;
      const T* x = planes.data_ptr<T>();
      T* o = out.data_ptr<T>();
      parallel_for(0, p, 1, [&](int64_t b, int64_t e) {
        for (int64_t q = b; q < e; ++q) {
          for_outputs(win, [&](const PoolWindow& z, const PoolWindow& a, const PoolWindow& c,
                               int64_t at_out) {
            const double div = win.divisor(z, a, c);
            if (!adjoint) {
              const T* xv = x + q * volume;
              Acc sum = 0;
              for_window(win, z, a, c, [&](int64_t at) {
                sum += Acc(xv[at]);
                return true;
              });
              if constexpr (std::is_integral_v<T>) {
                o[q * out_volume + at_out] = T(sum / int64_t(div));
              } else {
                o[q * out_volume + at_out] = T(sum / Acc(div));
              }
            } else {
              T* ov = o + q * volume;
              const Acc g = Acc(x[q * out_volume + at_out]) / Acc(div);
              for_window(win, z, a, c, [&](int64_t at) {
                ov[at] = T(Acc(ov[at]) + g);
                return true;
              });
            }
          });
        }
      });
    }
  });
  return out;
}

}  // namespace detail

namespace autograd {

// The average poolings and their adjoints: each one's gradient is the other over the same
// windows (named as PyTorch names the four nodes). `adjoint_`: the recording op was the adjoint;
// `input_sizes_`: the recording op's input, which the gradient has.
struct WindowMeanNode : Node {
  tensorplay::detail::PoolWindows windows_;
  std::vector<int64_t> input_sizes_;
  bool adjoint_ = false;
};
#define TENSORPLAY_WINDOW_MEAN_NODE_(cls)                \
  template <class = void>                                \
  struct cls##T final : WindowMeanNode {                 \
    TENSORPLAY_NODE_NAME_(cls)                           \
    variable_list apply(variable_list&& grads) override; \
  };                                                     \
  using cls = cls##T<>;
TENSORPLAY_WINDOW_MEAN_NODE_(AvgPool2DBackward0)
TENSORPLAY_WINDOW_MEAN_NODE_(AvgPool2DBackwardBackward0)
TENSORPLAY_WINDOW_MEAN_NODE_(AdaptiveAvgPool2DBackward0)
TENSORPLAY_WINDOW_MEAN_NODE_(AdaptiveAvgPool2DBackwardBackward0)
TENSORPLAY_WINDOW_MEAN_NODE_(AvgPool3DBackward0)
TENSORPLAY_WINDOW_MEAN_NODE_(AvgPool3DBackwardBackward0)
TENSORPLAY_WINDOW_MEAN_NODE_(AdaptiveAvgPool3DBackward0)
TENSORPLAY_WINDOW_MEAN_NODE_(AdaptiveAvgPool3DBackwardBackward0)
#undef TENSORPLAY_WINDOW_MEAN_NODE_

// max_pool{2,3}d_with_indices / adaptive_max_pool{2,3}d: the gradient goes to each window's
// maximum. `nd_`: the pooled dims (the last 2 or 3).
struct WindowMaxNode : Node {
  SavedVariable indices_;
  std::vector<int64_t> input_sizes_;
  int64_t nd_ = 2;
  variable_list apply(variable_list&& grads) override {
    const Tensor idx = indices_.unpack(shared_from_this());
    const Tensor& g = grads[0];
    int64_t volume = 1, out_volume = 1;
    for (int64_t k = 1; k <= nd_; ++k) {
      volume *= input_sizes_[input_sizes_.size() - std::size_t(k)];
      out_volume *= g.size(-k);
    }
    const Tensor gi = g.contiguous().view({-1, out_volume});
    Tensor gx = empty({gi.size(0), volume}, g.options()).zero_();
    gx = gx.scatter_add(1, idx.contiguous().view({-1, out_volume}), gi);
    return {gx.view(input_sizes_)};
  }
  void release_variables() override { indices_.reset_data(); }
};
#define TENSORPLAY_WINDOW_MAX_NODE_(cls) \
  template <class = void>                \
  struct cls##T final : WindowMaxNode {  \
    TENSORPLAY_NODE_NAME_(cls)           \
  };                                     \
  using cls = cls##T<>;
TENSORPLAY_WINDOW_MAX_NODE_(MaxPool2DWithIndicesBackward0)
TENSORPLAY_WINDOW_MAX_NODE_(AdaptiveMaxPool2DBackward0)
TENSORPLAY_WINDOW_MAX_NODE_(MaxPool3DWithIndicesBackward0)
TENSORPLAY_WINDOW_MAX_NODE_(AdaptiveMaxPool3DBackward0)
#undef TENSORPLAY_WINDOW_MAX_NODE_

}  // namespace autograd

namespace detail {

// The recorded average over `win` (adjoint: its adjoint, whose result has `result_sizes`: the
// average's input sizes), with NodeT as its node.
template <class NodeT>
Tensor window_mean_op(const Tensor& x, const PoolWindows& win, bool adjoint,
                      IntArrayRef result_sizes = {}) {
  return autograd::detail::differentiable<NodeT>(
      [&] {
        const Tensor r = window_mean(pool_planes(x, adjoint ? win.out_volume() : win.in_volume()),
                                     win, adjoint, win.nd == 3 ? "avg_pool3d" : "avg_pool2d");
        return adjoint ? r.view(result_sizes) : pool_result(r, x, win);
      },
      [&](NodeT& fn, const Tensor&) {
        fn.windows_ = win;
        fn.input_sizes_ = x.sizes().vec();
        fn.adjoint_ = adjoint;
      },
      x);
}

// The dtypes a pooling computes in: every floating type but Half (integers too for avg_pool2d),
// PyTorch's CPU kernels' set.
inline void check_pool_dtype(const Tensor& x, const char* name, bool integers) {
  const DType dt = x.dtype();
  if (dt == kHalf || dt == kBool || (!integers && !is_floating_point(dt))) {
    dtype_not_implemented(name, dt);
  }
}

// One 2-d pooling's parameters, checked as PyTorch's max_pool2d / avg_pool2d check them.
struct Pool2dParams {
  int64_t kh, kw, sh, sw, ph, pw, dh = 1, dw = 1, oh, ow;
};
inline Pool2dParams pool2d_params(const Tensor& x, IntArrayRef kernel, IntArrayRef stride,
                                  IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                  const char* name) {
  auto two = [&](IntArrayRef v, bool may_be_empty, const char* what) {
    TP_CHECK((may_be_empty && v.empty()) || v.size() == 1 || v.size() == 2, name, ": ", what);
    return v.empty() ? std::pair<int64_t, int64_t>{0, 0}
                     : std::pair<int64_t, int64_t>{v[0], v.size() == 2 ? v[1] : v[0]};
  };
  Pool2dParams p{};
  std::tie(p.kh, p.kw) =
      two(kernel, false, "kernel_size must either be a single int, or a tuple of two ints");
  std::tie(p.sh, p.sw) =
      two(stride, true, "stride must either be omitted, a single int, or a tuple of two ints");
  if (stride.empty()) std::tie(p.sh, p.sw) = std::pair{p.kh, p.kw};
  std::tie(p.ph, p.pw) =
      two(padding, false, "padding must be either be a single int, or a tuple of two ints");
  if (!dilation.empty()) {
    std::tie(p.dh, p.dw) =
        two(dilation, false, "dilation must be either a single int, or a tuple of two ints");
  }
  TP_CHECK(p.sh != 0 && p.sw != 0, "stride should not be zero");
  TP_CHECK(p.kh > 0 && p.kw > 0, "kernel size should be greater than zero, but got kH: ", p.kh,
           " kW: ", p.kw);
  TP_CHECK(p.sh > 0 && p.sw > 0, "stride should be greater than zero, but got dH: ", p.sh,
           " dW: ", p.sw);
  TP_CHECK(p.dh > 0 && p.dw > 0, "dilation should be greater than zero, but got dilationH: ", p.dh,
           " dilationW: ", p.dw);
  TP_CHECK(p.ph >= 0 && p.pw >= 0 && p.ph <= p.kh / 2 && p.pw <= p.kw / 2,
           "pad should be at most half of kernel size, but got pad=", p.ph > p.kh / 2 ? p.ph : p.pw,
           " and kernel_size=", p.ph > p.kh / 2 ? p.kh : p.kw);
  bool ok = x.dim() == 3 || x.dim() == 4;
  for (int64_t d = x.dim() - 3; ok && d < x.dim(); ++d) ok = x.size(d) != 0;
  TP_CHECK(ok, "non-empty 3D or 4D (batch mode) tensor expected for input");
  const int64_t ih = x.size(-2), iw = x.size(-1);
  p.oh = pooling_output_size(ih, p.kh, p.ph, p.sh, p.dh, ceil_mode);
  p.ow = pooling_output_size(iw, p.kw, p.pw, p.sw, p.dw, ceil_mode);
  TP_CHECK(p.oh >= 1 && p.ow >= 1, "Given input size: (", x.size(-3), "x", ih, "x", iw,
           "). Calculated output size: (", x.size(-3), "x", p.oh, "x", p.ow,
           "). Output size is too small");
  return p;
}

// The windows of the parameters over x's plane.
inline PoolWindows pool2d_windows(const Tensor& x, const Pool2dParams& p) {
  PoolWindows w;
  w.in_h = x.size(-2);
  w.in_w = x.size(-1);
  w.h = sliding_windows(w.in_h, p.oh, p.kh, p.sh, p.ph, p.dh);
  w.w = sliding_windows(w.in_w, p.ow, p.kw, p.sw, p.pw, p.dw);
  return w;
}

// One 3-d pooling's parameters (T, H, W: depth first), checked as PyTorch's max_pool3d /
// avg_pool3d check them.
struct Pool3dParams {
  int64_t k[3], s[3], p[3], dl[3] = {1, 1, 1}, o[3];
};
inline Pool3dParams pool3d_params(const Tensor& x, IntArrayRef kernel, IntArrayRef stride,
                                  IntArrayRef padding, IntArrayRef dilation, bool ceil_mode,
                                  bool avg) {
  const char* name = avg ? "avg_pool3d" : "max_pool3d";
  auto three = [&](IntArrayRef v, int64_t* out, bool may_be_empty, const char* what) {
    TP_CHECK((may_be_empty && v.empty()) || v.size() == 1 || v.size() == 3, name, ": ", what);
    for (std::size_t i = 0; i < 3 && !v.empty(); ++i) out[i] = v[v.size() == 3 ? i : 0];
  };
  Pool3dParams q{};
  three(kernel, q.k, false,
        avg ? "kernel_size must be a single int, or a tuple of three ints"
            : "kernel_size must either be a single int, or a tuple of three ints");
  three(stride, q.s, true,
        avg ? "stride must be omitted, a single int, or a tuple of three ints"
            : "stride must either be omitted, a single int, or a tuple of three ints");
  if (stride.empty()) std::copy(q.k, q.k + 3, q.s);
  three(padding, q.p, false,
        avg ? "padding must be a single int, or a tuple of three ints"
            : "padding must be either be a single int, or a tuple of three ints");
  if (!dilation.empty()) {
    three(dilation, q.dl, false, "dilation must be either a single int, or a tuple of three ints");
  }
  TP_CHECK(q.s[0] != 0 && q.s[1] != 0 && q.s[2] != 0, "stride should not be zero");
  TP_CHECK(q.k[0] > 0 && q.k[1] > 0 && q.k[2] > 0,
           "kernel size should be greater than zero, but got kT: ", q.k[0], " kH: ", q.k[1],
           " kW: ", q.k[2]);
  TP_CHECK(q.s[0] > 0 && q.s[1] > 0 && q.s[2] > 0,
           "stride should be greater than zero, but got dT: ", q.s[0], " dH: ", q.s[1],
           " dW: ", q.s[2]);
  TP_CHECK(q.dl[0] > 0 && q.dl[1] > 0 && q.dl[2] > 0,
           "dilation should be greater than zero, but got dilationT: ", q.dl[0],
           " dilationH: ", q.dl[1], " dilationW: ", q.dl[2]);
  for (int i = 0; i < 3; ++i) {
    TP_CHECK(q.p[i] >= 0 && q.p[i] <= q.k[i] / 2,
             "pad should be at most half of kernel size, but got pad=", q.p[i],
             " and kernel_size=", q.k[i]);
  }
  TP_CHECK(x.dim() == 4 || x.dim() == 5,
           "non-empty 4D or 5D (batch mode) tensor expected for input");
  for (int64_t d = x.dim() - 4; d < x.dim(); ++d) {
    TP_CHECK(x.size(d) != 0, name,
             "(): Expected input's non-batch dimensions to have positive length, but input has a "
             "shape of ",
             x.sizes(), " and non-batch dimension ", d - (x.dim() - 4), " has length zero!");
  }
  const int64_t it = x.size(-3), ih = x.size(-2), iw = x.size(-1);
  if (avg) {
    TP_CHECK(it >= q.k[0] && ih >= q.k[1] && iw >= q.k[2], "input image (T: ", it, " H: ", ih,
             " W: ", iw, ") smaller than kernel size (kT: ", q.k[0], " kH: ", q.k[1],
             " kW: ", q.k[2], ")");
  }
  const int64_t in[3] = {it, ih, iw};
  for (int i = 0; i < 3; ++i) {
    q.o[i] = pooling_output_size(in[i], q.k[i], q.p[i], q.s[i], q.dl[i], ceil_mode);
  }
  TP_CHECK(q.o[0] >= 1 && q.o[1] >= 1 && q.o[2] >= 1, "Given input size: (", x.size(-4), "x", it,
           "x", ih, "x", iw, "). Calculated output size: (", x.size(-4), "x", q.o[0], "x", q.o[1],
           "x", q.o[2], "). Output size is too small");
  return q;
}

// The windows of the parameters over x's volume.
inline PoolWindows pool3d_windows(const Tensor& x, const Pool3dParams& q) {
  PoolWindows w;
  w.nd = 3;
  w.in_d = x.size(-3);
  w.in_h = x.size(-2);
  w.in_w = x.size(-1);
  w.d = sliding_windows(w.in_d, q.o[0], q.k[0], q.s[0], q.p[0], q.dl[0]);
  w.h = sliding_windows(w.in_h, q.o[1], q.k[1], q.s[1], q.p[1], q.dl[1]);
  w.w = sliding_windows(w.in_w, q.o[2], q.k[2], q.s[2], q.p[2], q.dl[2]);
  return w;
}

// A 3-d adaptive pooling's output_size (one value or three) and its input check.
inline PoolWindows adaptive3d_windows_of(const Tensor& x, IntArrayRef output_size,
                                         const char* name) {
  TP_CHECK(output_size.size() == 1 || output_size.size() == 3, name, ": output_size must be 3");
  int64_t o[3];
  for (std::size_t i = 0; i < 3; ++i) o[i] = output_size[output_size.size() == 3 ? i : 0];
  TP_CHECK(o[0] >= 0 && o[1] >= 0 && o[2] >= 0, name,
           ": elements of output_size must be greater than or equal to 0 but received {", o[0],
           ", ", o[1], ", ", o[2], "}");
  TP_CHECK(x.dim() == 4 || x.dim() == 5, name, "(): Expected 4D or 5D tensor, but got",
           std::string_view(name) == "adaptive_max_pool3d" ? ": " : " ", x.sizes());
  for (int64_t d = x.dim() - 4; d < x.dim(); ++d) {
    TP_CHECK(x.size(d) > 0, name,
             "(): Expected input to have non-zero size for non-batch dimensions, but input has "
             "sizes ",
             x.sizes(), " with dimension ", d, " being empty");
  }
  PoolWindows w;
  w.nd = 3;
  w.in_d = x.size(-3);
  w.in_h = x.size(-2);
  w.in_w = x.size(-1);
  w.d = adaptive_windows(w.in_d, o[0]);
  w.h = adaptive_windows(w.in_h, o[1]);
  w.w = adaptive_windows(w.in_w, o[2]);
  w.count_include_pad = false;
  return w;
}

// adaptive pooling's output_size (one value or two) and its input check.
inline PoolWindows adaptive_windows_of(const Tensor& x, IntArrayRef output_size, const char* name) {
  TP_CHECK(output_size.size() == 1 || output_size.size() == 2, name, ": output_size must be 2");
  const int64_t oh = output_size[0], ow = output_size.size() == 2 ? output_size[1] : oh;
  TP_CHECK(oh >= 0 && ow >= 0, name,
           ": elements of output_size must be greater than or equal to "
           "0 but received {",
           oh, ", ", ow, "}");
  TP_CHECK(x.dim() == 3 || x.dim() == 4, name, "(): Expected 3D or 4D tensor, but got ", x.sizes());
  for (int64_t d = x.dim() - 3; d < x.dim(); ++d) {
    TP_CHECK(x.size(d) > 0, name,
             "(): Expected input to have non-zero size for non-batch "
             "dimensions, but input has sizes ",
             x.sizes(), " with dimension ", d, " being empty");
  }
  PoolWindows w;
  w.in_h = x.size(-2);
  w.in_w = x.size(-1);
  w.h = adaptive_windows(w.in_h, oh);
  w.w = adaptive_windows(w.in_w, ow);
  w.count_include_pad = false;
  return w;
}

// The recorded maximum over `win`, with NodeT as its node.
template <class NodeT>
std::tuple<Tensor, Tensor> window_max_op(const Tensor& x, const PoolWindows& win,
                                         const char* name) {
  Tensor indices;
  Tensor out = autograd::detail::differentiable<NodeT>(
      [&] {
        auto [v, i] = window_max(pool_planes(x, win.in_volume()), win, name);
        indices = pool_result(i, x, win);
        return pool_result(v, x, win);
      },
      [&](NodeT& fn, const Tensor&) {
        fn.indices_ = autograd::SavedVariable(indices, false);
        fn.input_sizes_ = x.sizes().vec();
        fn.nd_ = win.nd;
      },
      x);
  return {out, indices};
}

}  // namespace detail

// ---- max pooling --------------------------------------------------------------------------------

// [N, C, H, W] or [C, H, W] -> the windows' maxima and their flat indices h * W + w.
template <class = void>
std::tuple<Tensor, Tensor> max_pool2d_with_indices(const Tensor& self, IntArrayRef kernel_size,
                                                   IntArrayRef stride = {}, IntArrayRef padding = 0,
                                                   IntArrayRef dilation = 1,
                                                   bool ceil_mode = false) {
  const auto p =
      detail::pool2d_params(self, kernel_size, stride, padding, dilation, ceil_mode, "max_pool2d");
  detail::check_pool_dtype(self, "max_pool2d", false);
  return detail::window_max_op<autograd::MaxPool2DWithIndicesBackward0>(
      self, detail::pool2d_windows(self, p), "max_pool2d");
}

template <class = void>
Tensor max_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = 0, IntArrayRef dilation = 1, bool ceil_mode = false) {
  return std::get<0>(
      max_pool2d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode));
}

// [N, C, L] or [C, L]: max_pool2d over a height of 1.
template <class = void>
std::tuple<Tensor, Tensor> max_pool1d_with_indices(const Tensor& self, IntArrayRef kernel_size,
                                                   IntArrayRef stride = {}, IntArrayRef padding = 0,
                                                   IntArrayRef dilation = 1,
                                                   bool ceil_mode = false) {
  TP_CHECK(self.dim() == 2 || self.dim() == 3,
           "max_pool1d: Expected 2D or 3D (batch mode) tensor "
           "with optional 0 dim batch size for input, but got:",
           self.sizes());
  auto one = [](IntArrayRef v, int64_t fill) {
    return std::vector<int64_t>{fill, v.empty() ? fill : v[0]};
  };
  TP_CHECK(kernel_size.size() == 1,
           "max_pool1d: kernel_size must either be a single int, or a "
           "tuple of one int");
  auto [v, i] = max_pool2d_with_indices(
      self.unsqueeze(-2), one(kernel_size, 1),
      stride.empty() ? std::vector<int64_t>{1, kernel_size[0]} : one(stride, 1), one(padding, 0),
      one(dilation, 1), ceil_mode);
  return {v.squeeze(-2), i.squeeze(-2)};
}

template <class = void>
Tensor max_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = 0, IntArrayRef dilation = 1, bool ceil_mode = false) {
  return std::get<0>(
      max_pool1d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode));
}

// [N, C, D, H, W] or [C, D, H, W] -> the windows' maxima and their flat indices
// (d * H + h) * W + w.
template <class = void>
std::tuple<Tensor, Tensor> max_pool3d_with_indices(const Tensor& self, IntArrayRef kernel_size,
                                                   IntArrayRef stride = {}, IntArrayRef padding = 0,
                                                   IntArrayRef dilation = 1,
                                                   bool ceil_mode = false) {
  const auto q =
      detail::pool3d_params(self, kernel_size, stride, padding, dilation, ceil_mode, false);
  detail::check_pool_dtype(self, "max_pool3d_with_indices_cpu", false);
  return detail::window_max_op<autograd::MaxPool3DWithIndicesBackward0>(
      self, detail::pool3d_windows(self, q), "max_pool3d");
}

template <class = void>
Tensor max_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = 0, IntArrayRef dilation = 1, bool ceil_mode = false) {
  return std::get<0>(
      max_pool3d_with_indices(self, kernel_size, stride, padding, dilation, ceil_mode));
}

// ---- average pooling ----------------------------------------------------------------------------

template <class = void>
Tensor avg_pool2d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = 0, bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt) {
  const auto p =
      detail::pool2d_params(self, kernel_size, stride, padding, {}, ceil_mode, "avg_pool2d");
  TP_CHECK(!divisor_override || *divisor_override != 0, "divisor must be not zero");
  detail::check_pool_dtype(self, "avg_pool2d", true);
  detail::PoolWindows w = detail::pool2d_windows(self, p);
  w.count_include_pad = count_include_pad;
  w.divisor_override = divisor_override;
  return detail::window_mean_op<autograd::AvgPool2DBackward0>(self, w, false);
}

template <class = void>
Tensor avg_pool1d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = 0, bool ceil_mode = false, bool count_include_pad = true) {
  TP_CHECK(self.dim() == 2 || self.dim() == 3, "Expected 2 to 3 dimensions, but got ", self.dim(),
           "-dimensional tensor for argument #1 'self' (while checking arguments for avg_pool1d)");
  TP_CHECK(kernel_size.size() == 1, "avg_pool1d() argument 'kernel_size' should contain one int");
  const std::vector<int64_t> k{1, kernel_size[0]};
  const std::vector<int64_t> s{1, stride.empty() ? kernel_size[0] : stride[0]};
  const std::vector<int64_t> pd{0, padding.empty() ? 0 : padding[0]};
  return avg_pool2d(self.unsqueeze(-2), k, s, pd, ceil_mode, count_include_pad).squeeze(-2);
}

template <class = void>
Tensor avg_pool3d(const Tensor& self, IntArrayRef kernel_size, IntArrayRef stride = {},
                  IntArrayRef padding = 0, bool ceil_mode = false, bool count_include_pad = true,
                  std::optional<int64_t> divisor_override = std::nullopt) {
  const auto q = detail::pool3d_params(self, kernel_size, stride, padding, {}, ceil_mode, true);
  TP_CHECK(!divisor_override || *divisor_override != 0, "divisor must be not zero");
  detail::check_pool_dtype(self, "avg_pool3d_out_frame", true);
  detail::PoolWindows w = detail::pool3d_windows(self, q);
  w.count_include_pad = count_include_pad;
  w.divisor_override = divisor_override;
  return detail::window_mean_op<autograd::AvgPool3DBackward0>(self, w, false);
}

// ---- adaptive pooling ---------------------------------------------------------------------------

// output_size: (oh, ow) or one value for both. A 1 x 1 output is the mean over the plane.
template <class = void>
Tensor adaptive_avg_pool2d(const Tensor& self, IntArrayRef output_size) {
  const detail::PoolWindows w =
      detail::adaptive_windows_of(self, output_size, "adaptive_avg_pool2d");
  detail::check_pool_dtype(self, "adaptive_avg_pool2d", false);
  if (w.h.size() == 1 && w.w.size() == 1) return self.mean({-1, -2}, true);
  return detail::window_mean_op<autograd::AdaptiveAvgPool2DBackward0>(self, w, false);
}

template <class = void>
std::tuple<Tensor, Tensor> adaptive_max_pool2d(const Tensor& self, IntArrayRef output_size) {
  TP_CHECK(self.dim() == 3 || self.dim() == 4,
           "adaptive_max_pool2d(): Expected 3D or 4D tensor, "
           "but got: ",
           self.sizes());
  const detail::PoolWindows w =
      detail::adaptive_windows_of(self, output_size, "adaptive_max_pool2d");
  detail::check_pool_dtype(self, "adaptive_max_pool2d", false);
  return detail::window_max_op<autograd::AdaptiveMaxPool2DBackward0>(self, w,
                                                                     "adaptive_max_pool2d");
}

// output_size: (od, oh, ow) or one value for all three. A 1 x 1 x 1 output is the mean over the
// volume.
template <class = void>
Tensor adaptive_avg_pool3d(const Tensor& self, IntArrayRef output_size) {
  const detail::PoolWindows w =
      detail::adaptive3d_windows_of(self, output_size, "adaptive_avg_pool3d");
  if (is_integral(self.dtype(), /*include_bool=*/true)) {
    detail::dtype_not_implemented("adaptive_avg_pool3d_cpu", self.dtype());
  }
  if (w.out_volume() == 1) return self.mean({-1, -2, -3}, true);
  return detail::window_mean_op<autograd::AdaptiveAvgPool3DBackward0>(self, w, false);
}

template <class = void>
std::tuple<Tensor, Tensor> adaptive_max_pool3d(const Tensor& self, IntArrayRef output_size) {
  const detail::PoolWindows w =
      detail::adaptive3d_windows_of(self, output_size, "adaptive_max_pool3d");
  detail::check_pool_dtype(self, "adaptive_max_pool3d_cpu", false);
  return detail::window_max_op<autograd::AdaptiveMaxPool3DBackward0>(self, w,
                                                                     "adaptive_max_pool3d");
}

template <class = void>
Tensor adaptive_avg_pool1d(const Tensor& self, IntArrayRef output_size) {
  TP_CHECK(output_size.size() == 1, "adaptive_avg_pool1d: output_size must be 1");
  return adaptive_avg_pool2d(self.unsqueeze(-2), std::vector<int64_t>{1, output_size[0]})
      .squeeze(-2);
}

template <class = void>
std::tuple<Tensor, Tensor> adaptive_max_pool1d(const Tensor& self, IntArrayRef output_size) {
  TP_CHECK(output_size.size() == 1, "adaptive_max_pool1d: output_size must be 1");
  auto [v, i] = adaptive_max_pool2d(self.unsqueeze(-2), std::vector<int64_t>{1, output_size[0]});
  return {v.squeeze(-2), i.squeeze(-2)};
}

namespace nn::functional {

// libtorch's F::max_poolNd / avg_poolNd / adaptive_*_poolNd with their *FuncOptions.
#define TENSORPLAY_F_POOL_(N)                                                                      \
  template <class = void>                                                                          \
  std::tuple<Tensor, Tensor> max_pool##N##d_with_indices(const Tensor& input,                      \
                                                         const MaxPool##N##dFuncOptions& o) {      \
    return tensorplay::max_pool##N##d_with_indices(input, o.kernel_size(), o.stride(),             \
                                                   o.padding(), o.dilation(), o.ceil_mode());      \
  }                                                                                                \
  template <class = void>                                                                          \
  Tensor max_pool##N##d(const Tensor& input, const MaxPool##N##dFuncOptions& o) {                  \
    return std::get<0>(max_pool##N##d_with_indices(input, o));                                     \
  }                                                                                                \
  template <class = void>                                                                          \
  Tensor avg_pool##N##d(const Tensor& input, const AvgPool##N##dFuncOptions& o) {                  \
    if constexpr (N == 1) {                                                                        \
      return tensorplay::avg_pool1d(input, o.kernel_size(), o.stride(), o.padding(),               \
                                    o.ceil_mode(), o.count_include_pad());                         \
    } else if constexpr (N == 2) {                                                                 \
      return tensorplay::avg_pool2d(input, o.kernel_size(), o.stride(), o.padding(),               \
                                    o.ceil_mode(), o.count_include_pad(), o.divisor_override());   \
    } else {                                                                                       \
      return tensorplay::avg_pool3d(input, o.kernel_size(), o.stride(), o.padding(),               \
                                    o.ceil_mode(), o.count_include_pad(), o.divisor_override());   \
    }                                                                                              \
  }                                                                                                \
  template <class = void>                                                                          \
  Tensor adaptive_avg_pool##N##d(const Tensor& input, const AdaptiveAvgPool##N##dFuncOptions& o) { \
    return tensorplay::adaptive_avg_pool##N##d(input, o.output_size());                            \
  }                                                                                                \
  template <class = void>                                                                          \
  std::tuple<Tensor, Tensor> adaptive_max_pool##N##d_with_indices(                                 \
      const Tensor& input, const AdaptiveMaxPool##N##dFuncOptions& o) {                            \
    return tensorplay::adaptive_max_pool##N##d(input, o.output_size());                            \
  }                                                                                                \
  template <class = void>                                                                          \
  Tensor adaptive_max_pool##N##d(const Tensor& input, const AdaptiveMaxPool##N##dFuncOptions& o) { \
    return std::get<0>(tensorplay::adaptive_max_pool##N##d(input, o.output_size()));               \
  }
TENSORPLAY_F_POOL_(1)
TENSORPLAY_F_POOL_(2)
TENSORPLAY_F_POOL_(3)
#undef TENSORPLAY_F_POOL_

}  // namespace nn::functional

// Each average node's gradient: the other direction over the same windows, recorded with the
// node of that direction.
#define TENSORPLAY_WINDOW_MEAN_APPLY_(cls, other)                                              \
  template <class V>                                                                           \
  autograd::variable_list autograd::cls##T<V>::apply(variable_list&& grads) {                  \
    return {tensorplay::detail::window_mean_op<autograd::other>(grads[0], windows_, !adjoint_, \
                                                                input_sizes_)};                \
  }
TENSORPLAY_WINDOW_MEAN_APPLY_(AvgPool2DBackward0, AvgPool2DBackwardBackward0)
TENSORPLAY_WINDOW_MEAN_APPLY_(AvgPool2DBackwardBackward0, AvgPool2DBackward0)
TENSORPLAY_WINDOW_MEAN_APPLY_(AdaptiveAvgPool2DBackward0, AdaptiveAvgPool2DBackwardBackward0)
TENSORPLAY_WINDOW_MEAN_APPLY_(AdaptiveAvgPool2DBackwardBackward0, AdaptiveAvgPool2DBackward0)
TENSORPLAY_WINDOW_MEAN_APPLY_(AvgPool3DBackward0, AvgPool3DBackwardBackward0)
TENSORPLAY_WINDOW_MEAN_APPLY_(AvgPool3DBackwardBackward0, AvgPool3DBackward0)
TENSORPLAY_WINDOW_MEAN_APPLY_(AdaptiveAvgPool3DBackward0, AdaptiveAvgPool3DBackwardBackward0)
TENSORPLAY_WINDOW_MEAN_APPLY_(AdaptiveAvgPool3DBackwardBackward0, AdaptiveAvgPool3DBackward0)
#undef TENSORPLAY_WINDOW_MEAN_APPLY_

}  // namespace tensorplay
