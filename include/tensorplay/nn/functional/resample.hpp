// The one kernel behind reflection/replication padding and every upsampling mode: a separable
// resampling of the trailing 1 to 3 dimensions, where each output position along an axis reads a
// few input positions ("taps") with weights. Padding and nearest modes are one tap of weight 1,
// (bi/tri)linear two, bicubic four. The backward pass is the transposed map (a scatter-add over
// the same taps), and the transpose of that is the forward again, so one differentiable function
// and one node serve all of these ops and their higher derivatives.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <tensorplay/autograd/node.hpp>
#include <tensorplay/autograd/record.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/tensor.hpp>
#include <tensorplay/ops/device_dispatch.hpp>
#include <tensorplay/ops/dispatch.hpp>
#include <tensorplay/ops/factories.hpp>
#include <tensorplay/ops/loops.hpp>
#include <tensorplay/ops/parallel.hpp>

namespace tensorplay::detail {

// One resampled axis: output position o reads input positions idx[o * taps + k] with weights
// w[o * taps + k] (w empty: every weight is 1, and the kernel copies instead of multiplying).
struct ResampleAxis {
  int64_t in = 1, out = 1, taps = 1;
  std::vector<int64_t> idx;
  std::vector<double> w;
};

// What a resampling op and its node need: the axes (the trailing axes.size() dimensions), the
// forward node's name (PyTorch's, e.g. ReflectionPad2DBackward0) and whether the forward result
// is channels-last (upsampling keeps a channels-last 4-d input's layout, as PyTorch does).
struct ResamplePlan {
  std::vector<ResampleAxis> axes;
  std::string name;
  bool channels_last = false;
};

// The gather (transpose false: src has the axes' `in` sizes, dst their `out` sizes) or its
// transpose, the scatter-add (src `out`, dst `in`), over any strides of src and dst. Leading
// dimensions are independent slices, split across threads; a scatter accumulates each slice in
// opmath precision before storing it.
template <class T>
void resample_kernel(const Tensor& src, const Tensor& dst, const ResamplePlan& plan,
                     bool transpose) {
  using M = std::conditional_t<std::is_integral_v<T>, double, opmath_t<T>>;
  const int64_t nd = src.dim(), na = static_cast<int64_t>(plan.axes.size()), lead = nd - na;
  // Three axes always: missing leading ones are size-1 identities.
  static const ResampleAxis unit{1, 1, 1, {0}, {}};
  std::array<const ResampleAxis*, 3> ax{&unit, &unit, &unit};
  std::array<int64_t, 3> ss{0, 0, 0}, ds{0, 0, 0};
  for (int64_t a = 0; a < na; ++a) {
    ax[3 - na + a] = &plan.axes[a];
    ss[3 - na + a] = src.stride(lead + a);
    ds[3 - na + a] = dst.stride(lead + a);
  }
  int64_t slices = 1;
  for (int64_t d = 0; d < lead; ++d) slices *= src.size(d);
  int64_t slice_out = 1, slice_in = 1;
  for (const ResampleAxis* a : ax) slice_out *= a->out, slice_in *= a->in;
  // An empty output still has a (zero) transpose to write when the input is not empty.
  if (slices == 0 || (!transpose && slice_out == 0)) return;
  const T* sp = src.data_ptr<T>();
  T* dp = dst.data_ptr<T>();
  // The storage offsets of slice n in src and dst (leading dimensions in any strides).
  auto offsets = [&](int64_t n) {
    int64_t so = 0, dof = 0;
    for (int64_t d = lead - 1; d >= 0; --d) {
      const int64_t i = n % src.size(d);
      n /= src.size(d);
      so += i * src.stride(d);
      dof += i * dst.stride(d);
    }
    return std::pair{so, dof};
  };
  auto weight = [](const ResampleAxis* a, int64_t j) {
    return a->w.empty() ? M(1) : static_cast<M>(a->w[static_cast<std::size_t>(j)]);
  };
  const int64_t work = std::max<int64_t>(1, slice_out * ax[0]->taps * ax[1]->taps * ax[2]->taps);
  const int64_t grain = std::max<int64_t>(1, internal::GRAIN_SIZE / work);
  parallel_for(0, slices, grain, [&](int64_t b, int64_t e) {
    std::vector<M> acc(transpose ? static_cast<std::size_t>(slice_in) : 0);
    for (int64_t n = b; n < e; ++n) {
      const auto [so, dof] = offsets(n);
      const T* s = sp + so;
      T* d = dp + dof;
      if (transpose) std::fill(acc.begin(), acc.end(), M(0));
      for (int64_t o0 = 0; o0 < ax[0]->out; ++o0) {
        for (int64_t o1 = 0; o1 < ax[1]->out; ++o1) {
          for (int64_t o2 = 0; o2 < ax[2]->out; ++o2) {
            if (!transpose) {
              // Nested as PyTorch's kernels: the outer axis' weights multiply the inner sums.
              M v0 = 0;
              for (int64_t k0 = 0; k0 < ax[0]->taps; ++k0) {
                const int64_t j0 = o0 * ax[0]->taps + k0, i0 = ax[0]->idx[j0];
                M v1 = 0;
                for (int64_t k1 = 0; k1 < ax[1]->taps; ++k1) {
                  const int64_t j1 = o1 * ax[1]->taps + k1, i1 = ax[1]->idx[j1];
                  M v2 = 0;
                  for (int64_t k2 = 0; k2 < ax[2]->taps; ++k2) {
                    const int64_t j2 = o2 * ax[2]->taps + k2, i2 = ax[2]->idx[j2];
                    const M x = static_cast<M>(s[i0 * ss[0] + i1 * ss[1] + i2 * ss[2]]);
                    v2 += ax[2]->w.empty() ? x : weight(ax[2], j2) * x;
                  }
                  v1 += ax[1]->w.empty() ? v2 : weight(ax[1], j1) * v2;
                }
                v0 += ax[0]->w.empty() ? v1 : weight(ax[0], j0) * v1;
              }
              d[o0 * ds[0] + o1 * ds[1] + o2 * ds[2]] = static_cast<T>(v0);
            } else {
              const M g = static_cast<M>(s[o0 * ss[0] + o1 * ss[1] + o2 * ss[2]]);
              for (int64_t k0 = 0; k0 < ax[0]->taps; ++k0) {
                const int64_t j0 = o0 * ax[0]->taps + k0, i0 = ax[0]->idx[j0];
                const M g0 = weight(ax[0], j0) * g;
                for (int64_t k1 = 0; k1 < ax[1]->taps; ++k1) {
                  const int64_t j1 = o1 * ax[1]->taps + k1, i1 = ax[1]->idx[j1];
                  const M g1 = weight(ax[1], j1) * g0;
                  for (int64_t k2 = 0; k2 < ax[2]->taps; ++k2) {
                    const int64_t j2 = o2 * ax[2]->taps + k2, i2 = ax[2]->idx[j2];
                    acc[(i0 * ax[1]->in + i1) * ax[2]->in + i2] += weight(ax[2], j2) * g1;
                  }
                }
              }
            }
          }
        }
      }
      if (transpose) {
        for (int64_t i0 = 0; i0 < ax[0]->in; ++i0)
          for (int64_t i1 = 0; i1 < ax[1]->in; ++i1)
            for (int64_t i2 = 0; i2 < ax[2]->in; ++i2)
              d[i0 * ds[0] + i1 * ds[1] + i2 * ds[2]] =
                  static_cast<T>(acc[(i0 * ax[1]->in + i1) * ax[2]->in + i2]);
      }
    }
  });
}

}  // namespace tensorplay::detail

namespace tensorplay {
namespace detail {
template <class = void>
Tensor resample(const Tensor& x, const std::shared_ptr<const ResamplePlan>& plan, bool transpose);
}  // namespace detail

namespace autograd {

// The node of every resampling op. Its name is the forward op's (PyTorch's, carried by the
// plan); the node of a backward pass (recorded under create_graph) is named as PyTorch names
// the derivative of a backward function: ReflectionPad2DBackwardBackward0.
template <class = void>
struct ResampleBackwardT final : Node {
  std::shared_ptr<const tensorplay::detail::ResamplePlan> plan_;
  bool transpose_ = false;
  std::string name() const override {
    if (!transpose_) return plan_->name;
    const std::string& n = plan_->name;
    const std::size_t at = n.rfind("Backward");
    return n.substr(0, at) + "Backward" + n.substr(at);
  }
  variable_list apply(variable_list&& grads) override {
    return {tensorplay::detail::resample(grads[0], plan_, !transpose_)};
  }
};
using ResampleBackward = ResampleBackwardT<>;

}  // namespace autograd

namespace detail {

// x resampled by `plan` (or by its transpose), recorded as ResampleBackward. The result is
// contiguous, or channels-last where the plan asks for it.
template <class>
Tensor resample(const Tensor& x, const std::shared_ptr<const ResamplePlan>& plan, bool transpose) {
  check_host_only(plan->name, x);
  return autograd::detail::differentiable<autograd::ResampleBackward>(
      [&] {
        std::vector<int64_t> shape = x.sizes().vec();
        const std::size_t lead = shape.size() - plan->axes.size();
        for (std::size_t a = 0; a < plan->axes.size(); ++a) {
          shape[lead + a] = transpose ? plan->axes[a].in : plan->axes[a].out;
        }
        const bool cl = plan->channels_last && shape.size() == 4 && !transpose;
        Tensor out =
            empty(shape, x.options(), cl ? MemoryFormat::ChannelsLast : MemoryFormat::Contiguous);
        dispatch_dtype(x.dtype(), [&]<class T>() {
          if constexpr (std::is_same_v<T, bool>) {
            TP_ERROR("resample: bool is not supported");
          } else {
            resample_kernel<T>(x, out, *plan, transpose);
          }
        });
        return out;
      },
      [&](autograd::ResampleBackward& fn, const Tensor&) {
        fn.plan_ = plan;
        fn.transpose_ = transpose;
      },
      x);
}

}  // namespace detail
}  // namespace tensorplay
