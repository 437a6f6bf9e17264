// as_strided: the one place an aliasing tensor is made.
//
// A view has three invariants: it reuses its base's Storage; it shares the base's version
// counter (an in-place write through either one must move the version both of them report,
// or autograd's guard on saved tensors guards nothing); and it carries the base's quantizer.
// Written into each of the twenty-odd view ops, one of them would some day drop the counter,
// and no ordinary test would notice. So the invariants live here, once: detail::make_alias
// builds every view TensorImpl, Tensor::as_strided is its public face, and every other view
// op (ops/views.hpp) is offset and stride arithmetic followed by a call to as_strided. The
// in-place forms (as_strided_, transpose_, ...) change a tensor's own geometry and go through
// detail::set_strided, which runs the same checks.
//
// Offsets are absolute, in elements from the start of the storage, as in PyTorch: a view of a
// view at offset 3 asked for offset 0 sees element 0 of the storage, not element 3.
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>

#include <tensorplay/autograd/functions/views.hpp>
#include <tensorplay/autograd/record.hpp>
#include <tensorplay/core/aliasing_views.hpp>
#include <tensorplay/core/autograd_meta.hpp>
#include <tensorplay/core/device_policy.hpp>
#include <tensorplay/core/inference_mode.hpp>
#include <tensorplay/core/safe_math.hpp>
#include <tensorplay/core/tensor.hpp>

namespace tensorplay {
namespace detail {

// ---- Which devices can alias ------------------------------------------------------------------
// A view is pure metadata only if the device's kernels address memory through strides. CPU and
// CUDA do; Vulkan does not (a shader sees a texture or a packed buffer), so a view there has to
// be materialised. Each DevicePolicy states it; a device whose policy is not compiled in has no
// kernels to disagree, so aliasing (metadata only) is the harmless default for it.
template <DeviceType D>
constexpr bool policy_supports_strided_views() noexcept {
  if constexpr (requires {
                  { DevicePolicy<D>::supports_strided_views } -> std::convertible_to<bool>;
                }) {
    return DevicePolicy<D>::supports_strided_views;
  } else {
    return true;
  }
}

template <std::size_t... I>
constexpr std::array<bool, kNumDeviceTypes> make_strided_view_table(std::index_sequence<I...>) {
  return {policy_supports_strided_views<static_cast<DeviceType>(I)>()...};
}

// The compile-time table, indexed by DeviceType, built from the policies compiled in.
inline constexpr std::array<bool, kNumDeviceTypes> kStridedViewTable =
    make_strided_view_table(std::make_index_sequence<kNumDeviceTypes>{});

constexpr bool supports_strided_views(DeviceType t) noexcept {
  return kStridedViewTable[static_cast<std::size_t>(t)];
}

// True when no compiled-in device needs materialised views; the materialising branch below is
// then discarded at compile time (and, being a discarded statement, odr-uses nothing).
inline constexpr bool kEveryDeviceAliases = [] {
  for (bool b : kStridedViewTable) {
    if (!b) return false;
  }
  return true;
}();

// ---- The geometry checks (PyTorch's setStrided, in its order) ---------------------------------
// 1. one stride per size; 2. no negative stride; 3. the farthest element the geometry reaches
// lies inside the storage (a tensor with no elements reaches nothing, so any offset passes,
// and so do strides whose products overflow, as in PyTorch); 4. the offset itself is not
// negative; 5. numel fits in int64 (stride-0 dims reach one element however many they repeat,
// so only this catches expand({1 << 32, 1 << 32})). A negative size is reported as PyTorch
// reports it, by its storage-size computation ("overflowed"), which it is: (size - 1) * stride
// goes negative. One pass over the dims with flags, so the happy path is a short loop and one
// branch. The arithmetic is core/safe_math.hpp's, in checked uint64.
inline void check_strided_geometry(IntArrayRef size, IntArrayRef stride, int64_t offset,
                                   std::size_t itemsize, const Storage& storage) {
  TP_CHECK(size.size() == stride.size(), "mismatch in length of strides and shape");
  bool negative_stride = false, negative_size = false, empty = false;
  bool extent_overflow = false, numel_overflow = false;
  uint64_t last = 0;   // element index (relative to offset) of the farthest element
  uint64_t numel = 1;  // sticky overflow, as safe_compute_numel's
  for (std::size_t i = 0; i < size.size(); ++i) {
    negative_stride |= stride[i] < 0;
    negative_size |= size[i] < 0;
    empty |= size[i] == 0;
    numel_overflow |= mul_overflows(numel, static_cast<uint64_t>(size[i]), &numel);
    if (size[i] > 0 && stride[i] > 0) {
      uint64_t term = 0;
      extent_overflow |= mul_overflows(static_cast<uint64_t>(size[i] - 1),
                                       static_cast<uint64_t>(stride[i]), &term);
      extent_overflow |= add_overflows(last, term, &last);
    }
  }
  TP_CHECK(!negative_stride,
           "as_strided: Negative strides are not supported at the moment, got strides: ", stride);
  int64_t need = 0;  // bytes: (last + 1 + offset) * itemsize, offset possibly negative
  if (!empty) {
    extent_overflow |= add_overflows(last, 1, &need);
    extent_overflow |= add_overflows(need, offset, &need);
    extent_overflow |= mul_overflows(need, itemsize, &need);
  }
  TP_CHECK(!negative_size && !extent_overflow,
           "Storage size calculation overflowed with sizes=", size, " and strides=", stride);
  if (!empty) {
    const auto have = static_cast<int64_t>(storage ? storage.nbytes() : 0);
    TP_CHECK(need <= have, "setStorage: sizes ", size, ", strides ", stride, ", storage offset ",
             offset, ", and itemsize ", itemsize, " requiring a storage size of ", need,
             " are out of bounds for storage of size ", have);
  }
  TP_CHECK(offset >= 0, "Tensor: invalid storage offset ", offset);
  TP_CHECK(!numel_overflow && numel <= kStorageMax, "numel: integer multiplication overflow");
}

inline void check_not_sparse(const TensorImpl& self, const char* op) {
  TP_CHECK_NOT_IMPLEMENTED(
      !self.is_sparse(), "Could not run 'aten::", op, "' with arguments from the 'Sparse",
      device_type_name(self.device().type(), /*lower_case=*/false), "' backend.");
}

// How a view made now is marked (PyTorch's: in inference mode, no-grad mode, or normally).
inline CreationMeta current_creation_meta() noexcept {
  if (InferenceMode::is_enabled()) return CreationMeta::INFERENCE_MODE;
  return GradMode::is_enabled() ? CreationMeta::DEFAULT : CreationMeta::NO_GRAD_MODE;
}

// ---- Quantizers of views (invariant 3) ----------------------------------------------------------
// A per-tensor quantizer applies to any view unchanged. A per-channel one names an axis and holds
// one (scale, zero point) per index along it, so a view must say how its dims relate to its
// base's: the op knows (it computed the geometry), the funnel applies it. A view op that does
// not say (transpose, permute, expand, as_strided) is refused on a per-channel base, with
// PyTorch's message.
struct ChannelMap {
  enum class Kind : uint8_t {
    None,     // any geometry: refused for a per-channel base
    Regroup,  // the same elements in row-major order, dims split or merged (view, squeeze...)
    Select,   // `dim` dropped at index `start`
    Slice,    // `dim` narrowed to start, start + step, ...
  };
  Kind kind = Kind::None;
  int64_t dim = 0, start = 0, step = 1;
};

[[noreturn, gnu::cold]] inline void throw_not_uniformly_quantized() {
  TP_ERROR("Setting strides is possible only on uniformly quantized tensor");
}

// The quantizer of a view of sizes `size` of a per-channel quantized `base`.
inline std::shared_ptr<Quantizer> per_channel_view_quantizer(const TensorImpl& base,
                                                             IntArrayRef size, ChannelMap map) {
  const auto& pc = static_cast<const PerChannelAffineQuantizer&>(*base.quantizer());
  const int64_t axis = pc.axis();
  const auto channels = static_cast<int64_t>(pc.scales().size());
  const DType dt = pc.scalar_type();
  switch (map.kind) {
    case ChannelMap::Kind::None: throw_not_uniformly_quantized();
    case ChannelMap::Kind::Select:
      if (map.dim == axis) {  // one channel left: its parameters apply to the whole view
        const auto c = static_cast<std::size_t>(map.start);
        return make_per_tensor_affine_quantizer(pc.scales()[c], pc.zero_points()[c], dt);
      }
      if (map.dim > axis) return base.quantizer();
      return make_per_channel_affine_quantizer(pc.scales(), pc.zero_points(), axis - 1, dt);
    case ChannelMap::Kind::Slice: {
      if (map.dim != axis) return base.quantizer();
      std::vector<double> scales;
      std::vector<int64_t> zero_points;
      for (int64_t i = 0, c = map.start; i < size[axis]; ++i, c += map.step) {
        scales.push_back(pc.scales()[static_cast<std::size_t>(c)]);
        zero_points.push_back(pc.zero_points()[static_cast<std::size_t>(c)]);
      }
      return make_per_channel_affine_quantizer(std::move(scales), std::move(zero_points), axis, dt);
    }
    case ChannelMap::Kind::Regroup: {
      // The channel axis survives when some dim of the view has its size and the same number of
      // elements before it (row-major regrouping keeps everything else on either side).
      int64_t before = 1;
      for (int64_t d = 0; d < axis; ++d) before *= base.sizes()[d];
      int64_t prefix = 1;
      for (std::size_t k = 0; k < size.size(); ++k) {
        if (prefix == before && size[k] == channels) {
          if (static_cast<int64_t>(k) == axis) return base.quantizer();
          return make_per_channel_affine_quantizer(pc.scales(), pc.zero_points(),
                                                   static_cast<int64_t>(k), dt);
        }
        prefix *= size[k];
      }
      // A squeezed channel axis of size 1: one channel, as select leaves.
      if (channels == 1)
        return make_per_tensor_affine_quantizer(pc.scales()[0], pc.zero_points()[0], dt);
      TP_CHECK(false, "view: the channel axis ", axis, " (size ", channels,
               ") of a per-channel quantized tensor of size ", base.sizes(),
               " would be split or merged by the view of size ", size);
    }
  }
  throw_not_uniformly_quantized();
}

// ---- The one constructor of aliasing TensorImpls ----------------------------------------------
// `dtype` differs from the base's only for view(DType); `is_view` is false only there too,
// where PyTorch makes a non-differentiable view (shared bytes and version, but _is_view() is
// false, as autograd cannot flow between dtypes). Every other alias records its root base in
// the new TensorImpl (no allocation: one pointer copy).
template <class = void>
Tensor make_alias(const TensorImpl& base, IntArrayRef size, IntArrayRef stride, int64_t offset,
                  DType dtype, bool is_view = true, ChannelMap channels = {}) {
  check_not_sparse(base, "as_strided");
  check_strided_geometry(size, stride, offset, itemsize(dtype), base.storage());
  // A quantized tensor's integers mean nothing under another dtype (torch 1.13 crashes).
  TP_CHECK(dtype == base.dtype() || !is_quantized(base.dtype()),
           "view(dtype) is not supported for quantized tensors (", base.dtype(), " as ", dtype,
           "); use int_repr() for the integers");

  intrusive_ptr<TensorImpl> impl;
  if (dtype == base.dtype()) {
    // The hot path. TensorImpl's copy constructor is c10's shallow copy: it shares storage_
    // (invariant 1) and version_counter_ (invariant 2) and copies quantizer_ (invariant 3) and
    // the inference flag, and leaves autograd_meta_ behind. Sharing the counter by copying it
    // here, rather than constructing a fresh one and then calling share_version_counter,
    // saves the allocation and release of a counter that would be thrown away at once.
    impl = make_intrusive<TensorImpl>(base);
  } else {
    // A different element type: TensorImpl has no dtype setter, so build a fresh one on the
    // same storage and apply the three invariants by hand. The guard gives the new impl the
    // base's inference-ness (the constructor reads the thread's mode, the base may differ).
    InferenceMode mode(base.is_inference());
    impl = make_intrusive<TensorImpl>(base.storage(), dtype);
    impl->share_version_counter(base);
    impl->set_quantizer(base.quantizer());
  }
  impl->set_sizes_and_strides(size, stride);
  impl->set_storage_offset(offset);
  // Invariant 3 for a per-channel quantizer (a per-tensor one was copied above as it is). The
  // dense path pays the null test.
  if (base.has_quantizer() && base.quantizer()->qscheme() == kPerChannelAffine) [[unlikely]]
    impl->set_quantizer(per_channel_view_quantizer(base, size, channels));
  // Views of inference tensors are plain aliases, as in PyTorch (they can have no history).
  if (is_view && !base.is_inference()) impl->set_view_of(base, current_creation_meta());
  Tensor view(std::move(impl));

  if constexpr (!kEveryDeviceAliases) {
    // A device without strided addressing (Vulkan) cannot alias: the view becomes a copy of
    // the elements it addresses, gathered by that device's own copy kernel, with a version
    // counter of its own (writes through it do not reach the base, as with PyTorch's Vulkan
    // backend), except inside a kernel's AliasingViewsGuard. Without such a device compiled
    // in, this branch is discarded at compile time.
    if (!supports_strided_views(base.device().type()) && !aliasing_device_views) {
      return view.clone(MemoryFormat::Contiguous);
    }
  }
  return view;
}

// The in-place form: the same checks, then `self` itself takes the geometry (no new impl, no
// alias). Callers that are user-visible in-place ops bump the version afterwards.
inline void set_strided(TensorImpl& self, IntArrayRef size, IntArrayRef stride, int64_t offset,
                        const char* op = "as_strided_") {
  check_not_sparse(self, op);
  if (self.has_quantizer() && self.quantizer()->qscheme() == kPerChannelAffine)
    throw_not_uniformly_quantized();
  TP_CHECK_NOT_IMPLEMENTED(supports_strided_views(self.device().type()), op, ": the ",
                           self.device().type(),
                           " backend has no strided addressing, so a tensor's geometry cannot "
                           "be changed in place");
  check_strided_geometry(size, stride, offset, self.itemsize(), self.storage());
  self.set_sizes_and_strides(size, stride);
  self.set_storage_offset(offset);
}

// ---- The funnel every view op ends in ---------------------------------------------------------
// The alias, and its autograd history: when `self` requires grad (and grad mode is on) the view
// records a node named after the op (SelectBackward0, ...) whose function, made by
// `make_backward()` only then, maps the view's gradient to self's (autograd/functions/views.hpp).
// No view op builds its result any other way, so none can forget the history.
// `channels` says how the view's dims map to self's, for a per-channel quantized self (above).
template <class MakeBackward>
Tensor view_op(const Tensor& self, IntArrayRef size, IntArrayRef stride, int64_t offset,
               const char* name, MakeBackward&& make_backward, ChannelMap channels = {}) {
  const TensorImpl& base = *self.unsafeGetTensorImpl();
  Tensor view = make_alias(base, size, stride, offset, base.dtype(), /*is_view=*/true, channels);
  if (autograd::detail::records_view(self)) {
    autograd::detail::record_view(view, self, name, make_backward());
  }
  return view;
}

// A view with self's own geometry (transpose(d, d), squeeze of a dim that is not 1, alias).
template <class = void>
Tensor same_view(const Tensor& self, const char* name) {
  const TensorImpl& s = *self.unsafeGetTensorImpl();
  return view_op(
      self, s.sizes(), s.strides(), s.storage_offset(), name,
      [] { return autograd::detail::ViewFn([](const Tensor& g) { return g; }); },
      ChannelMap{ChannelMap::Kind::Regroup});
}

}  // namespace detail

template <class>
Tensor Tensor::as_strided(IntArrayRef size, IntArrayRef stride,
                          std::optional<int64_t> storage_offset) const {
  const TensorImpl* self = impl("as_strided");
  const int64_t offset = storage_offset.value_or(self->storage_offset());
  return detail::view_op(*this, size, stride, offset, "AsStridedBackward0", [&] {
    return autograd::detail::as_strided_grad(*this, size, stride, offset);
  });
}

// In-place view ops are in-place ops: PyTorch bumps the version for each (t_() included), and
// refuses them on leaves that require grad.
template <class>
const Tensor& Tensor::as_strided_(IntArrayRef size, IntArrayRef stride,
                                  std::optional<int64_t> storage_offset) const {
  TensorImpl* self = impl("as_strided_");
  const int64_t offset = storage_offset.value_or(self->storage_offset());
  auto node = autograd::detail::begin_inplace_view(*this, "AsStridedBackward1", [&] {
    return autograd::detail::as_strided_grad(*this, size, stride, offset);
  });
  detail::set_strided(*self, size, stride, offset);
  self->bump_version();
  autograd::detail::end_inplace_view(*this, node);
  return *this;
}

// A view of the whole tensor, same geometry (what movedim of a 0-d returns).
template <class>
Tensor Tensor::alias() const {
  impl("alias");
  return detail::same_view(*this, "AliasBackward0");
}


}  // namespace tensorplay

// View gradients scatter into zeros (zero_, copy_). Included last: copy.hpp includes this file.
#include <tensorplay/ops/copy.hpp>
