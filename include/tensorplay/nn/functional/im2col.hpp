// im2col and col2im: the lowering that turns a convolution into one GEMM per image and group
// (Caffe's and PyTorch's slow_conv2d/slow_conv3d design), for 1, 2 and 3 spatial dims, and the
// differentiable ops built on them (ATen's im2col/col2im, torch.nn.functional.unfold/fold).
//
// A ConvGeometry names both sides of a convolution explicitly: the input's spatial sizes, the
// output's, the kernel, stride, left padding and dilation. Output position o of dim d reads
// input position o * stride - pad + k * dilation; anything outside [0, in) is a zero. The
// output sizes are not derived from a right padding, so asymmetric padding ('same' with an
// even kernel) and a transposed convolution's output_padding are the same geometry.
//
//   columns[c * KN + kidx][l] = input[c][position of output l under kernel offset kidx]
//
// with KN the kernel's element count and L the output's. col2im is the adjoint: it adds each
// column element back onto the input position it came from, so col2im(im2col(x)) counts every
// element once per window that reads it.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <vector>

#include <tensorplay/autograd/node.hpp>
#include <tensorplay/autograd/record.hpp>
#include <tensorplay/core/empty.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/ops/device_dispatch.hpp>
#include <tensorplay/ops/dispatch.hpp>
#include <tensorplay/ops/parallel.hpp>

namespace tensorplay {
namespace detail {

// The spatial part of a convolution, padded to three dims at the front (size 1, stride 1, no
// padding) so that every loop below is one loop nest for conv1d, conv2d and conv3d.
struct ConvGeometry {
  int nd = 0;  // the caller's spatial dims: 1, 2 or 3
  std::array<int64_t, 3> in{1, 1, 1}, out{1, 1, 1}, kernel{1, 1, 1}, stride{1, 1, 1}, pad{0, 0, 0},
      dilation{1, 1, 1};

  int64_t kernel_numel() const { return kernel[0] * kernel[1] * kernel[2]; }
  int64_t out_numel() const { return out[0] * out[1] * out[2]; }
  int64_t in_numel() const { return in[0] * in[1] * in[2]; }
  // A 1x1 window over every position: the columns are the input itself.
  bool is_pointwise() const {
    for (int d = 0; d < 3; ++d) {
      if (kernel[d] != 1 || stride[d] != 1 || pad[d] != 0 || out[d] != in[d]) return false;
    }
    return true;
  }
  // The caller's spatial values of one field (the last nd of the padded three).
  std::vector<int64_t> spatial(const std::array<int64_t, 3>& v) const {
    return {v.begin() + (3 - nd), v.end()};
  }
};

// A geometry from the caller's nd-long parameter lists and the output sizes the op computed.
inline ConvGeometry make_geometry(IntArrayRef in, IntArrayRef out, IntArrayRef kernel,
                                  IntArrayRef stride, IntArrayRef pad, IntArrayRef dilation) {
  ConvGeometry g;
  g.nd = int(in.size());
  for (int i = 0; i < g.nd; ++i) {
    const int d = 3 - g.nd + i;
    g.in[d] = in[i];
    g.out[d] = out[i];
    g.kernel[d] = kernel[i];
    g.stride[d] = stride[i];
    g.pad[d] = pad[i];
    g.dilation[d] = dilation[i];
  }
  return g;
}

// Where an image's spatial elements are: the stride of each of the three (padded) dims.
inline std::array<int64_t, 3> spatial_strides(const Tensor& t, int nd) {
  std::array<int64_t, 3> s{0, 0, 0};
  for (int i = 0; i < nd; ++i) s[3 - nd + i] = t.stride(t.dim() - nd + i);
  return s;
}

// The range [lo, hi) of output positions o in [0, out) whose input position
// o * stride - pad + offset lies in [0, in).
inline void valid_range(int64_t in, int64_t out, int64_t stride, int64_t start, int64_t& lo,
                        int64_t& hi) {
  // o >= ceil(-start / stride) and o <= floor((in - 1 - start) / stride).
  lo = start >= 0 ? 0 : (-start + stride - 1) / stride;
  hi = in - 1 - start < 0 ? 0 : (in - 1 - start) / stride + 1;
  lo = std::min(lo, out);
  hi = std::clamp(hi, lo, out);
}

// Visits every (channel, kernel offset, outer output position) row segment: `row(offset into
// columns, inside, at, lo, hi)`: when `inside`, [lo, hi) of the innermost output dim reads the
// input elements at + o * stride (`at`, the element of position 0, may lie in the padding and
// be negative) and the rest is padding; otherwise the whole segment is padding.
template <class F>
void for_each_window_row(const ConvGeometry& g, int64_t channels, int64_t xc,
                         const std::array<int64_t, 3>& xs, const F& row) {
  const int64_t kn = g.kernel_numel(), l = g.out_numel();
  for (int64_t c = 0; c < channels; ++c) {
    int64_t kidx = 0;
    for (int64_t k0 = 0; k0 < g.kernel[0]; ++k0) {
      for (int64_t k1 = 0; k1 < g.kernel[1]; ++k1) {
        for (int64_t k2 = 0; k2 < g.kernel[2]; ++k2, ++kidx) {
          const int64_t s0 = k0 * g.dilation[0] - g.pad[0];
          const int64_t s1 = k1 * g.dilation[1] - g.pad[1];
          const int64_t s2 = k2 * g.dilation[2] - g.pad[2];
          int64_t lo = 0, hi = 0;
          valid_range(g.in[2], g.out[2], g.stride[2], s2, lo, hi);
          int64_t col = (c * kn + kidx) * l;
          for (int64_t o0 = 0; o0 < g.out[0]; ++o0) {
            const int64_t i0 = o0 * g.stride[0] + s0;
            for (int64_t o1 = 0; o1 < g.out[1]; ++o1, col += g.out[2]) {
              const int64_t i1 = o1 * g.stride[1] + s1;
              const bool inside = i0 >= 0 && i0 < g.in[0] && i1 >= 0 && i1 < g.in[1];
              row(col, inside, c * xc + i0 * xs[0] + i1 * xs[1] + s2 * xs[2], lo, hi);
            }
          }
        }
      }
    }
  }
}

// columns (channels * KN rows of L, contiguous) from `channels` channels of one image at x, the
// channels `xc` apart and the spatial dims at `xs`.
template <class T>
void im2col(const ConvGeometry& g, int64_t channels, const T* x, int64_t xc,
            const std::array<int64_t, 3>& xs, T* columns) {
  const int64_t ol = g.out[2], st = g.stride[2] * xs[2];
  for_each_window_row(g, channels, xc, xs,
                      [&](int64_t col, bool inside, int64_t at, int64_t lo, int64_t hi) {
                        T* dst = columns + col;
                        if (!inside) {
                          std::fill(dst, dst + ol, T(0));
                          return;
                        }
                        // Index from `at`; never form a pointer outside the input.
                        std::fill(dst, dst + lo, T(0));
                        if (st == 1) {
                          if (hi > lo)
                            std::memcpy(dst + lo, x + (at + lo), std::size_t(hi - lo) * sizeof(T));
                        } else {
                          for (int64_t o = lo; o < hi; ++o) dst[o] = x[at + o * st];
                        }
                        std::fill(dst + hi, dst + ol, T(0));
                      });
}

// The adjoint: adds every column element onto the input element it was read from (x must hold
// what the sum starts from, zeros for a plain col2im).
template <class T>
void col2im(const ConvGeometry& g, int64_t channels, const T* columns, T* x, int64_t xc,
            const std::array<int64_t, 3>& xs) {
  const int64_t st = g.stride[2] * xs[2];
  for_each_window_row(g, channels, xc, xs,
                      [&](int64_t col, bool inside, int64_t at, int64_t lo, int64_t hi) {
                        if (!inside) return;
                        const T* src = columns + col;
                        for (int64_t o = lo; o < hi; ++o) x[at + o * st] += src[o];
                      });
}

// The transposed lowering, for images whose channels are adjacent (channels-last): rows
// [l0, l1) of the L x (KN * channels) matrix whose row l holds, kernel offset after kernel offset,
// the `channels` values of the element output position l reads there (zeros in the padding):
//   rows[(l - l0) * KN * channels + kidx * channels + c] = x[c + position(l, kidx)]
// Each piece is one contiguous run of channels, and the matching weight is the channels-last
// weight [Cs, k..., C / groups] as it lies.
template <class F>
void for_each_window_run(const ConvGeometry& g, int64_t l0, int64_t l1,
                         const std::array<int64_t, 3>& xs, const F& run) {
  for (int64_t l = l0; l < l1; ++l) {
    const int64_t o2 = l % g.out[2], o1 = (l / g.out[2]) % g.out[1], o0 = l / (g.out[2] * g.out[1]);
    int64_t kidx = 0;
    for (int64_t k0 = 0; k0 < g.kernel[0]; ++k0) {
      const int64_t i0 = o0 * g.stride[0] - g.pad[0] + k0 * g.dilation[0];
      for (int64_t k1 = 0; k1 < g.kernel[1]; ++k1) {
        const int64_t i1 = o1 * g.stride[1] - g.pad[1] + k1 * g.dilation[1];
        for (int64_t k2 = 0; k2 < g.kernel[2]; ++k2, ++kidx) {
          const int64_t i2 = o2 * g.stride[2] - g.pad[2] + k2 * g.dilation[2];
          const bool inside =
              i0 >= 0 && i0 < g.in[0] && i1 >= 0 && i1 < g.in[1] && i2 >= 0 && i2 < g.in[2];
          run(l - l0, kidx, inside, inside ? i0 * xs[0] + i1 * xs[1] + i2 * xs[2] : 0);
        }
      }
    }
  }
}

template <class T>
void im2row(const ConvGeometry& g, int64_t channels, const T* x, const std::array<int64_t, 3>& xs,
            int64_t l0, int64_t l1, T* rows) {
  const int64_t width = g.kernel_numel() * channels;
  for_each_window_run(g, l0, l1, xs, [&](int64_t r, int64_t kidx, bool inside, int64_t at) {
    T* dst = rows + r * width + kidx * channels;
    if (inside) {
      std::memcpy(dst, x + at, std::size_t(channels) * sizeof(T));
    } else {
      std::fill(dst, dst + channels, T(0));
    }
  });
}

// The adjoint: adds each row piece back onto the channels it was read from.
template <class T>
void row2im(const ConvGeometry& g, int64_t channels, const T* rows, int64_t l0, int64_t l1, T* x,
            const std::array<int64_t, 3>& xs) {
  const int64_t width = g.kernel_numel() * channels;
  for_each_window_run(g, l0, l1, xs, [&](int64_t r, int64_t kidx, bool inside, int64_t at) {
    if (!inside) return;
    const T* src = rows + r * width + kidx * channels;
    T* dst = x + at;
    for (int64_t c = 0; c < channels; ++c) dst[c] += src[c];
  });
}

// [N, C, in...] -> [N, C * KN, L] (contiguous).
template <class = void>
Tensor unfold_kernel(const Tensor& input, const ConvGeometry& g) {
  check_host_only("im2col", input);
  const int64_t n = input.size(0), c = input.size(1), kn = g.kernel_numel(), l = g.out_numel();
  Tensor cols = empty({n, c * kn, l}, input.options());
  if (cols.numel() == 0) return cols;
  const auto xs = spatial_strides(input, g.nd);
  dispatch_dtype(input.dtype(), [&]<class T>() {
    const T* x = input.data_ptr<T>();
    T* out = cols.data_ptr<T>();
    parallel_for(0, n, 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        im2col<T>(g, c, x + i * input.stride(0), input.stride(1), xs, out + i * c * kn * l);
      }
    });
  });
  return cols;
}

// [N, C * KN, L] -> [N, C, in...] (contiguous), each column element added where it came from.
template <class = void>
Tensor fold_kernel(const Tensor& columns, const ConvGeometry& g, int64_t channels) {
  check_host_only("col2im", columns);
  const int64_t n = columns.size(0);
  std::vector<int64_t> sizes{n, channels};
  for (int64_t s : g.spatial(g.in)) sizes.push_back(s);
  Tensor x = empty(sizes, columns.options()).zero_();
  if (x.numel() == 0 || columns.numel() == 0) return x;
  const Tensor cols = columns.contiguous();
  const auto xs = spatial_strides(x, g.nd);
  const int64_t per_image = cols.numel() / std::max<int64_t>(n, 1);
  dispatch_dtype(x.dtype(), [&]<class T>() {
    const T* src = cols.data_ptr<T>();
    T* dst = x.data_ptr<T>();
    parallel_for(0, n, 1, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) {
        col2im<T>(g, channels, src + i * per_image, dst + i * x.stride(0), x.stride(1), xs);
      }
    });
  });
  return x;
}

}  // namespace detail

namespace autograd {

// im2col(self, ...) -> columns: the gradient is col2im of the columns' gradient (and the other
// way round), each written with the recorded op so that gradients of gradients exist.
template <class = void>
struct Im2ColBackward0T final : Node {
  TENSORPLAY_NODE_NAME_(Im2ColBackward0)
  tensorplay::detail::ConvGeometry geometry_;
  int64_t channels_ = 0;
  variable_list apply(variable_list&& grads) override;
};
using Im2ColBackward0 = Im2ColBackward0T<>;

template <class = void>
struct Col2ImBackward0T final : Node {
  TENSORPLAY_NODE_NAME_(Col2ImBackward0)
  tensorplay::detail::ConvGeometry geometry_;
  variable_list apply(variable_list&& grads) override;
};
using Col2ImBackward0 = Col2ImBackward0T<>;

}  // namespace autograd

namespace detail {

// The recorded forms: [N, C, in...] -> [N, C * KN, L] and back.
template <class = void>
Tensor unfold_nd(const Tensor& input, const ConvGeometry& g) {
  return autograd::detail::differentiable<autograd::Im2ColBackward0>(
      [&] { return unfold_kernel(input, g); },
      [&](autograd::Im2ColBackward0& fn, const Tensor&) {
        fn.geometry_ = g;
        fn.channels_ = input.size(1);
      },
      input);
}

template <class = void>
Tensor fold_nd(const Tensor& columns, const ConvGeometry& g, int64_t channels) {
  return autograd::detail::differentiable<autograd::Col2ImBackward0>(
      [&] { return fold_kernel(columns, g, channels); },
      [&](autograd::Col2ImBackward0& fn, const Tensor&) { fn.geometry_ = g; }, columns);
}

}  // namespace detail

template <class V>
autograd::variable_list autograd::Im2ColBackward0T<V>::apply(variable_list&& grads) {
  return {tensorplay::detail::fold_nd(grads[0], geometry_, channels_)};
}

template <class V>
autograd::variable_list autograd::Col2ImBackward0T<V>::apply(variable_list&& grads) {
  return {tensorplay::detail::unfold_nd(grads[0], geometry_)};
}

}  // namespace tensorplay
