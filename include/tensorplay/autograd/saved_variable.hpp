// SavedVariable: a tensor a backward formula needs, and the version guard on it.
//
// Saving records the tensor's version; unpacking refuses a tensor whose version moved since (an
// in-place write would otherwise silently give a wrong gradient), with PyTorch's message. An
// op's own output is saved without its grad_fn and holds that node only weakly: the node owns
// its SavedVariables, so a strong reference back would be a cycle that never frees. After a
// backward pass that does not retain the graph the data is released, and a second pass gets
// PyTorch's "Trying to backward through the graph a second time" error.
#pragma once

#include <memory>
#include <sstream>
#include <string>

#include <tensorplay/autograd/node.hpp>
#include <tensorplay/core/autograd_meta.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/tensor.hpp>

namespace tensorplay::autograd {

namespace detail {
inline constexpr const char* kBackwardTwice =
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you "
    "call .backward() or autograd.grad(). Specify retain_graph=True if you need to backward "
    "through the graph a second time or if you need to access saved tensors after calling "
    "backward.";
}  // namespace detail

class SavedVariable {
 public:
  SavedVariable() = default;

  // `is_output`: `t` is an output of the node that saves it (exp saves its result).
  SavedVariable(const Tensor& t, bool is_output) {
    if (!t.defined()) return;
    const TensorImpl* impl = t.unsafeGetTensorImpl();
    TP_CHECK(!impl->is_inference(),
             "Inference tensors cannot be saved for backward. To work around you can make a "
             "clone to get a normal tensor and use it in autograd.");
    was_default_constructed_ = false;
    saved_version_ = impl->version_counter().current_version();
    is_output_ = is_output;
    const AutogradMeta* meta = tensorplay::detail::autograd_meta(impl);
    requires_grad_ = meta && meta->requires_grad();
    output_nr_ = meta ? meta->output_nr_ : 0;
    if (is_output && requires_grad_) {
      // Bytes and version counter without the history; the node is held weakly.
      data_ = Tensor(impl->shallow_copy_and_detach());
      weak_grad_fn_ = meta->grad_fn_;
    } else {
      data_ = t;
    }
  }

  bool defined() const noexcept { return !was_default_constructed_; }

  // The saved tensor, checked against its version. `saved_for` is the node that owns this
  // SavedVariable: an unpacked output gets it back as grad_fn (so create_graph can
  // differentiate through it).
  Tensor unpack(const std::shared_ptr<Node>& saved_for = nullptr) const {
    if (was_default_constructed_) return Tensor();
    TP_CHECK(data_.defined(), detail::kBackwardTwice);
    const uint32_t current = data_.unsafeGetTensorImpl()->version_counter().current_version();
    if (current != saved_version_) throw_modified(current, saved_for);
    if (!is_output_ || !requires_grad_ || !GradMode::is_enabled()) return data_;
    // Under create_graph: an alias whose history is the node that saved it.
    std::shared_ptr<Node> fn = saved_for ? saved_for : weak_grad_fn_.lock();
    Tensor out(data_.unsafeGetTensorImpl()->shallow_copy_and_detach());
    if (fn) {
      AutogradMeta& m = tensorplay::detail::materialize_autograd_meta(out.unsafeGetTensorImpl());
      m.grad_fn_ = std::move(fn);
      m.output_nr_ = output_nr_;
    }
    return out;
  }

  void reset_data() noexcept { data_.reset(); }

 private:
  [[noreturn]] void throw_modified(uint32_t current, const std::shared_ptr<Node>& saved_for) const {
    std::shared_ptr<Node> fn;
    if (is_output_) {
      fn = saved_for ? saved_for : weak_grad_fn_.lock();
    } else if (const AutogradMeta* m =
                   tensorplay::detail::autograd_meta(data_.unsafeGetTensorImpl())) {
      fn = m->grad_fn_;
    }
    std::ostringstream msg;
    msg << "one of the variables needed for gradient computation has been modified by an "
           "inplace operation: [tensorplay."
        << legacy_type_name(data_.dtype()) << " " << data_.sizes() << "]";
    if (fn) msg << ", which is output " << output_nr_ << " of " << fn->name() << ",";
    msg << " is at version " << current << "; expected version " << saved_version_
        << " instead. Hint: the tensor was saved for backward at version " << saved_version_
        << "; look for an in-place operation on it or on a view of it (a method ending in '_', "
           "an out= argument or an indexed assignment) between the forward pass and "
           "backward().";
    throw Error(msg.str());
  }

  Tensor data_;
  std::weak_ptr<Node> weak_grad_fn_;
  uint32_t saved_version_ = 0;
  uint32_t output_nr_ = 0;
  bool was_default_constructed_ = true;
  bool is_output_ = false;
  bool requires_grad_ = false;
};

}  // namespace tensorplay::autograd
