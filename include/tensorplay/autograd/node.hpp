// The graph: Node (a backward function, libtorch's torch::autograd::Node) and Edge (which input
// of which node a gradient flows to).
//
// A node is created by a differentiable op when an input requires grad. Its next_edges point at
// the nodes of the op's inputs (their grad_fn, or the AccumulateGrad of a leaf), in argument
// order; apply() maps the gradients of the op's outputs to the gradients of its inputs. The
// input metadata records the shape and dtype each incoming gradient must have.
//
// Destruction is iterative: a chain of 100000 nodes is freed without 100000 nested destructor
// calls (each ~Node hands its edges to a thread-local work list that the outermost one drains).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <tensorplay/core/error.hpp>
#include <tensorplay/core/grad_mode.hpp>
#include <tensorplay/core/small_vector.hpp>
#include <tensorplay/core/tensor.hpp>

// A node's name() as PyTorch spells it: TENSORPLAY_NODE_NAME_(ExpBackward0).
#define TENSORPLAY_NODE_NAME_(cls) \
  std::string name() const override { return #cls; }

namespace tensorplay::autograd {

using variable_list = std::vector<Tensor>;

struct Node;

struct Edge {
  Edge() noexcept = default;
  Edge(std::shared_ptr<Node> fn, uint32_t nr) noexcept : function(std::move(fn)), input_nr(nr) {}
  bool is_valid() const noexcept { return function != nullptr; }

  std::shared_ptr<Node> function;  // null: the input needs no gradient
  uint32_t input_nr = 0;
};
using edge_list = std::vector<Edge>;

// What a gradient arriving at one input of a node must look like.
struct InputMetadata {
  SmallVector<int64_t, 6> shape;
  DType dtype = kFloat;
  Device device{DeviceType::CPU};
};

// A tensor hook: receives the gradient, returns a replacement or an undefined tensor (keep).
using hook_fn = std::function<Tensor(const Tensor&)>;

namespace detail {
inline uint64_t next_sequence_nr() noexcept {
  static thread_local uint64_t n = 0;
  return n++;
}
struct DeletionQueue {
  std::vector<std::shared_ptr<Node>> pending;
  bool draining = false;
};
inline DeletionQueue& deletion_queue() {
  static thread_local DeletionQueue q;
  return q;
}
}  // namespace detail

struct Node : std::enable_shared_from_this<Node> {
  Node() noexcept : sequence_nr_(detail::next_sequence_nr()) {}
  Node(const Node&) = delete;
  Node& operator=(const Node&) = delete;
  virtual ~Node() { release_edges_iteratively(); }

  // PyTorch's class name: "ExpBackward0", "AccumulateGrad", ...
  virtual std::string name() const = 0;
  // Gradients of the forward outputs in, gradients of the forward inputs out (one per edge;
  // undefined where an input needs none). Undefined incoming gradients mean zero.
  virtual variable_list apply(variable_list&& grads) = 0;
  // Frees saved tensors after a backward pass that does not retain the graph.
  virtual void release_variables() {}

  variable_list operator()(variable_list&& grads) { return apply(std::move(grads)); }

  // ---- edges: one per input of the forward op ------------------------------------------------
  const edge_list& next_edges() const noexcept { return next_edges_; }
  edge_list& next_edges() noexcept { return next_edges_; }
  const Edge& next_edge(std::size_t i) const { return next_edges_.at(i); }
  std::size_t num_outputs() const noexcept { return next_edges_.size(); }
  void set_next_edges(edge_list edges) { next_edges_ = std::move(edges); }
  void add_next_edge(Edge edge) { next_edges_.push_back(std::move(edge)); }
  bool should_compute_output(std::size_t i) const noexcept {
    return i < next_edges_.size() && next_edges_[i].is_valid();
  }

  // ---- inputs: one per output of the forward op ----------------------------------------------
  uint32_t add_input_metadata(const Tensor& t) {
    const TensorImpl* impl = t.unsafeGetTensorImpl();
    return add_input_metadata(impl->sizes(), impl->dtype(), impl->device());
  }
  // Also for inputs that may never receive a gradient (a multi-output op's unused outputs).
  uint32_t add_input_metadata(IntArrayRef shape, DType dtype, Device device = Device(kCPU)) {
    // The first input's metadata is stored inline: most nodes have one, and it costs no malloc.
    InputMetadata& m = num_inputs_ == 0 ? first_input_ : more_inputs_.emplace_back();
    m.shape.assign(shape.begin(), shape.end());
    m.dtype = dtype;
    m.device = device;
    return num_inputs_++;
  }
  uint32_t num_inputs() const noexcept { return num_inputs_; }
  const InputMetadata& input_metadata(std::size_t i) const {
    TP_CHECK(i < num_inputs_, "input_metadata: index ", i, " out of range for ", name());
    return i == 0 ? first_input_ : more_inputs_[i - 1];
  }

  // Order of creation on its thread; the engine runs later nodes first.
  uint64_t sequence_nr() const noexcept { return sequence_nr_; }

  // Hooks on the tensor that is this node's output `nr` (register_hook on a non-leaf).
  void add_tensor_pre_hook(uint32_t nr, hook_fn fn) {
    tensor_pre_hooks_.emplace_back(nr, std::move(fn));
  }
  const std::vector<std::pair<uint32_t, hook_fn>>& tensor_pre_hooks() const noexcept {
    return tensor_pre_hooks_;
  }
  // retain_grad(): the gradient arriving at output `nr` is stored into that tensor's .grad.
  void add_retain_grad(uint32_t nr, std::weak_ptr<AutogradMetaInterface> meta) {
    retained_.emplace_back(nr, std::move(meta));
  }
  const std::vector<std::pair<uint32_t, std::weak_ptr<AutogradMetaInterface>>>& retained()
      const noexcept {
    return retained_;
  }
  // The tensor with this metadata got a new node (an in-place op): it retains that one's.
  void remove_retain_grad(const AutogradMetaInterface* meta) {
    std::erase_if(retained_, [meta](const auto& r) {
      const std::shared_ptr<AutogradMetaInterface> m = r.second.lock();
      return !m || m.get() == meta;
    });
  }

 protected:
  edge_list next_edges_;

 private:
  void release_edges_iteratively() noexcept {
    detail::DeletionQueue& q = detail::deletion_queue();
    for (Edge& e : next_edges_) {
      if (e.function) q.pending.push_back(std::move(e.function));
    }
    if (q.draining) return;
    q.draining = true;
    while (!q.pending.empty()) {
      std::shared_ptr<Node> n = std::move(q.pending.back());
      q.pending.pop_back();
      n.reset();  // may run ~Node, which appends its own edges
    }
    q.draining = false;
  }

  uint64_t sequence_nr_;
  uint32_t num_inputs_ = 0;
  InputMetadata first_input_;
  std::vector<InputMetadata> more_inputs_;
  std::vector<std::pair<uint32_t, hook_fn>> tensor_pre_hooks_;
  std::vector<std::pair<uint32_t, std::weak_ptr<AutogradMetaInterface>>> retained_;
};

}  // namespace tensorplay::autograd
