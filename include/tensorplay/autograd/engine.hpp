// The engine: runs a graph backwards from some outputs (libtorch's torch::autograd::Engine).
//
// Iterative, on the calling thread: a first pass counts, for every node reachable from the
// roots, how many edges lead to it; a node runs when all of them have delivered (gradients for
// the same input are summed in an input buffer); ready nodes run latest-created first, as
// PyTorch orders them. No recursion anywhere, so the depth of a graph is bounded by memory only.
// Independent graphs can be run from several threads at once.
#pragma once

#include <tensorplay/compiled/definitions.hpp>

#include <cstdint>
#include <optional>
#include <queue>
#include <unordered_map>
#include <utility>
#include <vector>

#include <tensorplay/autograd/functions/basic.hpp>
#include <tensorplay/autograd/node.hpp>
#include <tensorplay/autograd/record.hpp>
#include <tensorplay/autograd/variable.hpp>
#include <tensorplay/core/autograd_meta.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/grad_mode.hpp>
#include <tensorplay/core/tensor.hpp>

namespace tensorplay::autograd {

namespace detail {

struct NodeState {
  int dependencies = 0;
  bool needed = true;    // autograd::grad() runs only nodes that lead to an input
  variable_list buffer;  // gradients received so far, one slot per input of the node
};

struct ReadyOrder {
  bool operator()(const Node* a, const Node* b) const noexcept {
    return a->sequence_nr() < b->sequence_nr();  // latest first
  }
};

inline bool is_expandable_to(IntArrayRef shape, IntArrayRef desired) {
  if (shape.size() > desired.size()) return false;
  for (std::size_t i = 1; i <= shape.size(); ++i) {
    const int64_t s = shape[shape.size() - i], t = desired[desired.size() - i];
    if (s != t && s != 1) return false;
  }
  return true;
}

// A gradient produced for input `e` of a node must match the shape, dtype and device recorded
// there (a gradient through to() comes back in the other dtype or on the other device:
// ToCopyBackward0 passes it on and it is converted here).
template <class = void>
Tensor validate_grad(Tensor g, const Node& producer, std::size_t index, const Edge& e) {
  const InputMetadata& m = e.function->input_metadata(e.input_nr);
  const IntArrayRef want(m.shape.data(), m.shape.size());
  if (g.sizes() != want) {
    TP_CHECK(is_expandable_to(want, g.sizes()), "Function ", producer.name(),
             " returned an invalid gradient at index ", index, " - got ", g.sizes(),
             " but expected shape compatible with ", want);
    g = g.sum_to_size(want);
  }
  if (g.dtype() != m.dtype || g.device() != m.device) g = g.to(m.device, m.dtype);
  return g;
}

template <class = void>
variable_list run_backward(const variable_list& outputs, const variable_list& grad_outputs,
                           bool keep_graph, bool create_graph, const variable_list& inputs,
                           bool allow_unused, bool accumulate_grad) {
  TP_CHECK(grad_outputs.empty() || grad_outputs.size() == outputs.size(),
           "grad_tensors should have the same length as tensors (got ", grad_outputs.size(),
           " and ", outputs.size(), ")");
  edge_list roots;
  variable_list root_grads;
  roots.reserve(outputs.size());
  root_grads.reserve(outputs.size());
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    const Tensor& out = outputs[i];
    TP_CHECK(out.defined(), "element ", i, " of tensors is undefined");
    Edge e = gradient_edge(out);
    TP_CHECK(e.is_valid(), "element ", i,
             " of tensors does not require grad and does not have a grad_fn");
    Tensor g = grad_outputs.empty() ? Tensor() : grad_outputs[i];
    if (!g.defined()) {
      TP_CHECK(out.numel() == 1, "grad can be implicitly created only for scalar outputs");
      g = empty(out.sizes(), out.options());
      g.fill_(1);
    } else {
      TP_CHECK(g.sizes() == out.sizes(), "Mismatch in shape: grad_output[", i,
               "] has a shape of tensorplay.Size(", g.sizes(), ") and output[", i,
               "] has a shape of tensorplay.Size(", out.sizes(), ").");
    }
    roots.push_back(std::move(e));
    root_grads.push_back(std::move(g));
  }
  auto root = std::make_shared<GraphRoot>(std::move(roots), std::move(root_grads));

  // Dependency counts over the reachable graph.
  std::unordered_map<Node*, NodeState> state;
  state.reserve(128);
  std::vector<Node*> stack{root.get()};
  state[root.get()];
  while (!stack.empty()) {
    Node* fn = stack.back();
    stack.pop_back();
    for (const Edge& e : fn->next_edges()) {
      Node* next = e.function.get();
      if (!next) continue;
      auto [it, inserted] = state.try_emplace(next);
      ++it->second.dependencies;
      if (inserted) stack.push_back(next);
    }
  }

  // autograd::grad: where each input's gradient is read, and which nodes must run for it.
  struct Capture {
    Node* fn;
    uint32_t input_nr;
    std::size_t index;
  };
  std::vector<Capture> captures;
  variable_list captured(inputs.size());
  if (!inputs.empty()) {
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      const Tensor& in = inputs[i];
      TP_CHECK(in.defined() && in.requires_grad(),
               "One of the differentiated Tensors does not require grad");
      Edge e = in.is_leaf() ? Edge(try_get_grad_accumulator(in), 0) : gradient_edge(in);
      if (e.function && state.count(e.function.get())) {
        captures.push_back({e.function.get(), e.input_nr, i});
      }
    }
    if (!accumulate_grad) {
      // A node is needed if it captures or leads to a node that does: Kahn's order, reversed.
      std::unordered_map<Node*, int> deps;
      for (auto& [fn, s] : state) deps[fn] = s.dependencies;
      std::vector<Node*> order{root.get()};
      for (std::size_t k = 0; k < order.size(); ++k) {
        for (const Edge& e : order[k]->next_edges()) {
          if (e.function && --deps[e.function.get()] == 0) order.push_back(e.function.get());
        }
      }
      for (auto& [fn, s] : state) s.needed = false;
      for (const Capture& c : captures) state[c.fn].needed = true;
      for (auto it = order.rbegin(); it != order.rend(); ++it) {
        NodeState& s = state[*it];
        for (const Edge& e : (*it)->next_edges()) {
          if (e.function && state[e.function.get()].needed) s.needed = true;
        }
      }
    }
  }

  AutoGradMode grad_mode(create_graph);
  std::priority_queue<Node*, std::vector<Node*>, ReadyOrder> ready;
  ready.push(root.get());
  while (!ready.empty()) {
    Node* fn = ready.top();
    ready.pop();
    NodeState& s = state[fn];
    variable_list in = std::move(s.buffer);
    in.resize(fn->num_inputs());

    // Tensor hooks, retained gradients and captures see the gradient that arrived.
    for (const auto& [nr, hook] : fn->tensor_pre_hooks()) {
      if (nr < in.size() && in[nr].defined()) {
        Tensor r = hook(in[nr]);
        if (r.defined()) in[nr] = std::move(r);
      }
    }
    for (const auto& [nr, weak] : fn->retained()) {
      std::shared_ptr<AutogradMetaInterface> meta = weak.lock();
      if (!meta || nr >= in.size() || !in[nr].defined()) continue;
      AutogradMeta& m = static_cast<AutogradMeta&>(*meta);
      if (!m.grad_.defined()) {
        m.grad_ = create_graph ? in[nr] : in[nr].detach().clone();
      } else {
        m.grad_ = create_graph ? m.grad_.add(in[nr]) : m.grad_.add(in[nr]).detach();
      }
    }
    for (const Capture& c : captures) {
      if (c.fn == fn && c.input_nr < in.size() && in[c.input_nr].defined()) {
        captured[c.index] = in[c.input_nr];
      }
    }

    bool run = s.needed;
    if (!accumulate_grad && dynamic_cast<AccumulateGrad*>(fn)) run = false;
    bool any = fn == root.get();
    for (const Tensor& g : in) any = any || g.defined();
    variable_list out;
    if (run && any) {
      out = fn->apply(std::move(in));
      if (!keep_graph) fn->release_variables();
    } else if (run && !keep_graph) {
      fn->release_variables();
    }
    const edge_list& edges = fn->next_edges();
    TP_CHECK(out.empty() || out.size() == edges.size(), "Function ", fn->name(),
             " returned an incorrect number of gradients (expected ", edges.size(), ", got ",
             out.size(), ")");
    for (std::size_t i = 0; i < edges.size(); ++i) {
      const Edge& e = edges[i];
      if (!e.function) continue;
      NodeState& next = state[e.function.get()];
      if (i < out.size() && out[i].defined()) {
        Tensor g = validate_grad(std::move(out[i]), *fn, i, e);
        variable_list& buf = next.buffer;
        if (buf.size() <= e.input_nr) buf.resize(e.function->num_inputs());
        Tensor& slot = buf[e.input_nr];
        slot = slot.defined() ? slot.add(g) : std::move(g);
      }
      if (--next.dependencies == 0) ready.push(e.function.get());
    }
  }

  if (!inputs.empty()) {
    for (std::size_t i = 0; i < inputs.size(); ++i) {
      TP_CHECK(captured[i].defined() || allow_unused,
               "One of the differentiated Tensors appears to not have been used in the graph. "
               "Set allow_unused=True if this is the desired behavior.");
    }
  }
  return captured;
}

}  // namespace detail

// Accumulates the gradients of `tensors` (seeded with grad_tensors, or ones for one-element
// outputs) into the .grad of every leaf that requires grad. With create_graph, a leaf's .grad
// keeps a history that holds the leaf: a reference cycle (as in PyTorch, which warns about it)
// until the gradient is reset; autograd::grad has no such cycle.
template <class = void>
void backward(const variable_list& tensors, const variable_list& grad_tensors = {},
              std::optional<bool> retain_graph = std::nullopt, bool create_graph = false) {
  detail::run_backward(tensors, grad_tensors, retain_graph.value_or(create_graph), create_graph, {},
                       /*allow_unused=*/true, /*accumulate_grad=*/true);
}

// The gradients of `outputs` with respect to `inputs`, returned instead of accumulated.
template <class = void>
variable_list grad(const variable_list& outputs, const variable_list& inputs,
                   const variable_list& grad_outputs = {},
                   std::optional<bool> retain_graph = std::nullopt, bool create_graph = false,
                   bool allow_unused = false) {
  return detail::run_backward(outputs, grad_outputs, retain_graph.value_or(create_graph),
                              create_graph, inputs, allow_unused, /*accumulate_grad=*/false);
}

}  // namespace tensorplay::autograd

namespace tensorplay {
template <class>
void Tensor::backward(const Tensor& gradient, std::optional<bool> retain_graph,
                      bool create_graph) const {
  autograd::backward(
      {*this}, gradient.defined() ? autograd::variable_list{gradient} : autograd::variable_list{},
      retain_graph, create_graph);
}
}  // namespace tensorplay
