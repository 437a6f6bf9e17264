// The fused CPU kernels of native_layer_norm and its backward (ATen's LayerNormKernelImpl and
// LayerNormBackwardKernelImpl): the input is seen as M rows of N elements (the normalised dims
// flattened), and each row is read from cache rather than walked once per elementwise op.
//
// Forward, per row: the mean and the biased variance as two cascaded lane reductions (the same
// cascade_reduce as sum and var, so a row of 10^6 elements keeps float's precision), then one
// pass y = (x - mean) * rstd * w + b (x - mean exact where it matters: a row of one element
// gives 0, not the rounding of x * rstd - mean * rstd). Backward, per row: the two sums
// ds = sum(dy * w * (x - mean)) and db = sum(dy * w) in one pass, then one pass
// dx = rstd * dy * w + b' * (x - mean) + c' with b' = -ds * rstd^3 / N and c' = -db * rstd / N
// (PyTorch's closed form, centred so that a large mean does not cancel). The weight and bias
// gradients are column sums over the rows, computed by column tiles (each column's rows summed in
// row order, 16 at a time in the compute type and folded into double), so they are the same
// whatever the thread count.
//
// Float and double compute in their own type, Half and BFloat16 in float (converted in, rounded
// once on the way out); the statistics are in the compute type. The row kernels are compiled
// for each level of the run-time CPU dispatch (ops/cpu_capability.hpp) and walk the rows through
// the line iterator of ops/reduce.hpp, which splits them across threads; strided rows (an
// expanded gradient, a transposed input) go through the same code, gathered into pieces.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <tuple>
#include <vector>

#include <tensorplay/core/empty.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/ops/cpu_capability.hpp>
#include <tensorplay/ops/parallel.hpp>
#include <tensorplay/ops/reduce.hpp>

namespace tensorplay::detail::layer_norm_impl {

using reduce_impl::Strided;

// What the row kernels share: the row length, the byte stride within a row of each operand (in
// the order of the iterator's operands), and the affine parameters (contiguous, N elements,
// null when absent).
struct RowArgs {
  int64_t n = 0;
  std::array<int64_t, 5> stride{};
  const void* weight = nullptr;
  const void* bias = nullptr;
  double eps = 0;
};

// Elements per piece of a gathered strided row and per fold of the backward's sums.
inline constexpr int64_t kPiece = 256;

// Forward. Operands: y (row), mean, rstd, x (row). GCC's O3 passes see cascade_reduce's `up`
// as maybe uninitialised once it is inlined here (it is set whenever it is read; see there).
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#endif
template <class T>
struct ForwardKernel {
  static constexpr bool kFullLoopOptimization = true;  // ops/cpu_capability.hpp
  template <CpuCapability>
  static void run(char** data, const int64_t* s, int64_t lines, const void* raw) {
    const RowArgs& a = *static_cast<const RowArgs*>(raw);
    const int64_t n = a.n, ys = a.stride[0], xs = a.stride[3];
    const T* w = static_cast<const T*>(a.weight);
    const T* b = static_cast<const T*>(a.bias);
    const T eps = T(a.eps);
    for (int64_t k = 0; k < lines; ++k) {
      char* y = data[0] + k * s[0];
      const char* x = data[3] + k * s[3];
      const Strided<T> row{x, xs};
      const T mean =
          reduce_impl::cascade_reduce<T, T>(row, n, reduce_impl::SumOp<T>{}, T(0)) / T(n);
      const T var =
          reduce_impl::cascade_reduce<T, T>(row, n, reduce_impl::SquaredDeviationOp<T>{}, mean) /
          T(n);
      const T rstd = T(1) / std::sqrt(std::max(var, T(0)) + eps);
      *reinterpret_cast<T*>(data[1] + k * s[1]) = mean;
      *reinterpret_cast<T*>(data[2] + k * s[2]) = rstd;
      // y[0..len) from x[0..len) (both contiguous), the affine parameters from column c0.
      auto piece = [&](const T* xp, T* yp, int64_t c0, int64_t len) {
        if (w && b) {
          for (int64_t j = 0; j < len; ++j) yp[j] = ((xp[j] - mean) * rstd) * w[c0 + j] + b[c0 + j];
        } else if (w) {
          for (int64_t j = 0; j < len; ++j) yp[j] = ((xp[j] - mean) * rstd) * w[c0 + j];
        } else if (b) {
          for (int64_t j = 0; j < len; ++j) yp[j] = ((xp[j] - mean) * rstd) + b[c0 + j];
        } else {
          for (int64_t j = 0; j < len; ++j) yp[j] = (xp[j] - mean) * rstd;
        }
      };
      if (ys == int64_t(sizeof(T)) && xs == int64_t(sizeof(T))) {
        piece(reinterpret_cast<const T*>(x), reinterpret_cast<T*>(y), 0, n);
        continue;
      }
      T xbuf[kPiece], ybuf[kPiece];
      for (int64_t c = 0; c < n; c += kPiece) {
        const int64_t len = std::min(kPiece, n - c);
        piece(row.get(c, len, xbuf), ybuf, c, len);
        for (int64_t j = 0; j < len; ++j) *reinterpret_cast<T*>(y + (c + j) * ys) = ybuf[j];
      }
    }
  }
};

#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic pop
#endif

// Backward, the input's gradient. Operands: dx (row), dy (row), x (row), mean, rstd.
template <class T>
struct BackwardKernel {
  static constexpr bool kFullLoopOptimization = true;
  template <CpuCapability>
  static void run(char** data, const int64_t* s, int64_t lines, const void* raw) {
    const RowArgs& a = *static_cast<const RowArgs*>(raw);
    const int64_t n = a.n, dxs = a.stride[0];
    const T* w = static_cast<const T*>(a.weight);
    constexpr int L = reduce_impl::kReduceLanes<T>;
    T gbuf[kPiece], xbuf[kPiece], obuf[kPiece];
    for (int64_t k = 0; k < lines; ++k) {
      char* dx = data[0] + k * s[0];
      const Strided<T> dy{data[1] + k * s[1], a.stride[1]};
      const Strided<T> x{data[2] + k * s[2], a.stride[2]};
      const T mean = *reinterpret_cast<const T*>(data[3] + k * s[3]);
      const T rstd = *reinterpret_cast<const T*>(data[4] + k * s[4]);
      // ds = sum(dy * w * (x - mean)), db = sum(dy * w): lanes over a piece, each folded into
      // double (a piece is at most kPiece / L terms per lane).
      double ds = 0, db = 0;
      for (int64_t c = 0; c < n; c += kPiece) {
        const int64_t len = std::min(kPiece, n - c);
        const T* gp = dy.get(c, len, gbuf);
        const T* xp = x.get(c, len, xbuf);
        T as[L] = {}, ab[L] = {};
        int64_t j = 0;
        if (w) {
          for (; j + L <= len; j += L) {
            for (int l = 0; l < L; ++l) {
              const T g = gp[j + l] * w[c + j + l];
              as[l] += g * (xp[j + l] - mean);
              ab[l] += g;
            }
          }
          for (; j < len; ++j) {
            const T g = gp[j] * w[c + j];
            as[0] += g * (xp[j] - mean);
            ab[0] += g;
          }
        } else {
          for (; j + L <= len; j += L) {
            for (int l = 0; l < L; ++l) {
              as[l] += gp[j + l] * (xp[j + l] - mean);
              ab[l] += gp[j + l];
            }
          }
          for (; j < len; ++j) {
            as[0] += gp[j] * (xp[j] - mean);
            ab[0] += gp[j];
          }
        }
        for (int h = L / 2; h >= 1; h /= 2) {
          for (int l = 0; l < h; ++l) as[l] += as[l + h], ab[l] += ab[l + h];
        }
        ds += double(as[0]);
        db += double(ab[0]);
      }
      const T scale = T(1) / T(n);
      const T bb = T(-ds * double(rstd) * double(rstd) * double(rstd)) * scale;
      const T cc = -T(db) * rstd * scale;
      const bool contiguous = dxs == int64_t(sizeof(T));
      for (int64_t c = 0; c < n; c += kPiece) {
        const int64_t len = std::min(kPiece, n - c);
        const T* gp = dy.get(c, len, gbuf);
        const T* xp = x.get(c, len, xbuf);
        T* op = contiguous ? reinterpret_cast<T*>(dx) + c : obuf;
        if (w) {
          for (int64_t j = 0; j < len; ++j)
            op[j] = rstd * gp[j] * w[c + j] + bb * (xp[j] - mean) + cc;
        } else {
          for (int64_t j = 0; j < len; ++j) op[j] = rstd * gp[j] + bb * (xp[j] - mean) + cc;
        }
        if (!contiguous) {
          for (int64_t j = 0; j < len; ++j) *reinterpret_cast<T*>(dx + (c + j) * dxs) = obuf[j];
        }
      }
    }
  }
};

// The M x N view of t's last dims (a copy only when they cannot be viewed so).
template <class = void>
Tensor as_rows(const Tensor& t, int64_t m, int64_t n) {
  return t.reshape({m, n});
}

// An iterator over the M rows of the [M, N] operands (rows first, then [M, 1] statistics).
template <class = void>
TensorIterator row_iterator(std::initializer_list<Tensor> outputs,
                            std::initializer_list<Tensor> inputs) {
  TensorIteratorConfig config;
  config.set_check_mem_overlap(false).check_all_same_dtype(false).resize_outputs(false);
  for (const Tensor& o : outputs) config.add_output(reduce_impl::without_dim(o, 1));
  for (const Tensor& i : inputs) config.add_input(reduce_impl::without_dim(i, 1));
  return config.build();
}

// A parameter as N contiguous elements of the compute dtype (undefined stays undefined).
template <class = void>
Tensor param_of(const Tensor& p, DType compute, int64_t n) {
  if (!p.defined()) return p;
  return p.to(compute).contiguous().reshape({n});
}

// (y, mean, rstd) of the compute-dtype input x seen as [M, N]: y is [M, N] contiguous in the
// compute dtype, mean and rstd [M, 1]. Empty rows (N = 0) have mean 0 and rstd NaN, as PyTorch.
template <class = void>
std::tuple<Tensor, Tensor, Tensor> forward(const Tensor& x, const Tensor& weight,
                                           const Tensor& bias, int64_t m, int64_t n, double eps) {
  const DType dt = x.dtype();
  const Tensor xr = as_rows(x, m, n);
  Tensor y = empty({m, n}, x.options());
  Tensor mean = empty({m, 1}, x.options()), rstd = empty({m, 1}, x.options());
  if (m == 0) return {y, mean, rstd};
  if (n == 0) {
    mean.zero_();
    rstd.fill_(std::numeric_limits<double>::quiet_NaN());
    return {y, mean, rstd};
  }
  const Tensor w = param_of(weight, dt, n), b = param_of(bias, dt, n);
  dispatch_dtype(dt, [&]<class T>() {
    if constexpr (reduce_impl::kFloatType<T>) {
      RowArgs args;
      args.n = n;
      args.stride = {y.stride(1) * int64_t(sizeof(T)), 0, 0, xr.stride(1) * int64_t(sizeof(T)), 0};
      args.weight = w.defined() ? w.data_ptr() : nullptr;
      args.bias = b.defined() ? b.data_ptr() : nullptr;
      args.eps = eps;
      const TensorIterator iter = row_iterator({y, mean, rstd}, {xr});
      reduce_impl::for_each_line_dispatched<ForwardKernel<T>, true>(iter, n, args);
    }
  });
  return {y, mean, rstd};
}

// Column sums over the M rows: dw[j] = sum_i dy[i, j] * (x[i, j] - mean[i]) * rstd[i] and
// db[j] = sum_i dy[i, j] (either may be skipped), by tiles of columns in parallel.
template <class T>
void param_grads(const Tensor& dy, const Tensor& x, const T* mean, const T* rstd, T* dw, T* db,
                 int64_t m, int64_t n) {
  constexpr int64_t kTile = 64, kFold = 16;
  const char* gp = static_cast<const char*>(dy.data_ptr());
  const char* xp = static_cast<const char*>(x.data_ptr());
  const int64_t gr = dy.stride(0) * int64_t(sizeof(T)), gc = dy.stride(1) * int64_t(sizeof(T));
  const int64_t xr = x.stride(0) * int64_t(sizeof(T)), xc = x.stride(1) * int64_t(sizeof(T));
  const int64_t tiles = (n + kTile - 1) / kTile;
  parallel_for(0, tiles,
               std::max<int64_t>(1, internal::GRAIN_SIZE / (kTile * std::max<int64_t>(m, 1))),
               [&](int64_t t0, int64_t t1) {
                 for (int64_t t = t0; t < t1; ++t) {
                   const int64_t c0 = t * kTile, w = std::min(kTile, n - c0);
                   double tw[kTile] = {}, tb[kTile] = {};
                   for (int64_t i0 = 0; i0 < m; i0 += kFold) {
                     T pw[kTile] = {}, pb[kTile] = {};
                     for (int64_t i = i0; i < std::min(m, i0 + kFold); ++i) {
                       const char* g = gp + i * gr + c0 * gc;
                       const char* xv = xp + i * xr + c0 * xc;
                       const T mu = mean[i], rs = rstd[i];
                       for (int64_t j = 0; j < w; ++j) {
                         const T gv = *reinterpret_cast<const T*>(g + j * gc);
                         pw[j] += gv * ((*reinterpret_cast<const T*>(xv + j * xc) - mu) * rs);
                         pb[j] += gv;
                       }
                     }
                     for (int64_t j = 0; j < w; ++j) tw[j] += double(pw[j]), tb[j] += double(pb[j]);
                   }
                   for (int64_t j = 0; j < w; ++j) {
                     if (dw) dw[c0 + j] = T(tw[j]);
                     if (db) db[c0 + j] = T(tb[j]);
                   }
                 }
               });
}

// (dx, dw, db) of native_layer_norm from the compute-dtype dy and x seen as [M, N], the saved
// mean and rstd (M elements) and the weight; each computed when its mask entry is set. dx is
// [M, N] contiguous, dw and db have N elements, all in the compute dtype.
template <class = void>
std::tuple<Tensor, Tensor, Tensor> backward(const Tensor& dy, const Tensor& x, const Tensor& mean,
                                            const Tensor& rstd, const Tensor& weight, int64_t m,
                                            int64_t n, std::array<bool, 3> mask) {
  const DType dt = x.dtype();
  const Tensor g = as_rows(dy.to(dt), m, n), xr = as_rows(x, m, n);
  const Tensor mu = mean.to(dt).contiguous().reshape({m, 1});
  const Tensor rs = rstd.to(dt).contiguous().reshape({m, 1});
  Tensor dx, dw, db;
  if (mask[0]) dx = empty({m, n}, x.options());
  if (mask[1]) dw = empty({n}, x.options());
  if (mask[2]) db = empty({n}, x.options());
  if (m == 0 || n == 0) {
    if (dw.defined()) dw.zero_();
    if (db.defined()) db.zero_();
    return {dx, dw, db};
  }
  const Tensor w = param_of(weight, dt, n);
  dispatch_dtype(dt, [&]<class T>() {
    if constexpr (reduce_impl::kFloatType<T>) {
      if (mask[0]) {
        RowArgs args;
        args.n = n;
        const int64_t es = int64_t(sizeof(T));
        args.stride = {dx.stride(1) * es, g.stride(1) * es, xr.stride(1) * es, 0, 0};
        args.weight = w.defined() ? w.data_ptr() : nullptr;
        const TensorIterator iter = row_iterator({dx}, {g, xr, mu, rs});
        reduce_impl::for_each_line_dispatched<BackwardKernel<T>, true>(iter, n, args);
      }
      if (mask[1] || mask[2]) {
        param_grads<T>(g, xr, mu.data_ptr<T>(), rs.data_ptr<T>(),
                       mask[1] ? dw.data_ptr<T>() : nullptr, mask[2] ? db.data_ptr<T>() : nullptr,
                       m, n);
      }
    }
  });
  return {dx, dw, db};
}

}  // namespace tensorplay::detail::layer_norm_impl
