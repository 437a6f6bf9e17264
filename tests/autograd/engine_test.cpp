// The autograd engine from the user's side: the spec's version-guard demo, saved tensors,
// backward/grad/hooks/retain_graph/create_graph, grad modes and inference mode, deep graphs.
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <memory>
#include <thread>
#include <vector>

namespace autograd_engine_test {

using namespace tensorplay;

namespace {
std::vector<double> values(const Tensor& t) {
  Tensor c = t.to(kDouble).contiguous();
  const double* p = c.data_ptr<double>();
  return std::vector<double>(p, p + c.numel());
}
}  // namespace

TEST_CASE("the spec's version guard: a saved output modified in place refuses backward",
          "[autograd][engine]") {
  Tensor x = tensor({1.0, 2.0}, dtype(kFloat).requires_grad(true));
  Tensor h = x.exp();  // backward replays exp's output
  CHECK(h._version() == 0);
  h.add_(1.0);  // in place: version 0 -> 1
  CHECK(h._version() == 1);
  Tensor y = h.sum();
  CHECK_THROWS_WITH(
      y.backward(),
      Catch::StartsWith("one of the variables needed for gradient computation has been modified "
                        "by an inplace operation: [tensorplay.FloatTensor [2]], which is output 0 "
                        "of ExpBackward0, is at version 1; expected version 0 instead. Hint: "));
}

TEST_CASE("only ops that saved the tensor complain about in-place changes", "[autograd][engine]") {
  Tensor x = tensor({1.0, 2.0}, dtype(kDouble).requires_grad(true));
  Tensor a = x.mul(1.0);  // MulBackward1 saves nothing
  Tensor y = a.add(1.0);  // AddBackward1 saves nothing
  a.mul_(3.0);
  y.sum().backward();
  CHECK(values(x.grad()) == std::vector<double>{1.0, 1.0});

  Tensor b = x.mul(1.0);
  Tensor z = b.mul(x);  // MulBackward0 saves b (for x's gradient) and x
  b.add_(1.0);
  CHECK_THROWS_WITH(z.sum().backward(),
                    Catch::Contains("[tensorplay.DoubleTensor [2]], which is output 0 of "
                                    "AddBackward1, is at version 1; expected version 0 instead."));
}

TEST_CASE("a saved output holds its node weakly: graphs are freed", "[autograd][engine]") {
  std::weak_ptr<autograd::Node> weak_fn;
  std::weak_ptr<autograd::Node> weak_acc;
  {
    Tensor x = ones({3}, requires_grad());
    Tensor y = x.exp().exp();  // each ExpBackward0 saves its own output
    weak_fn = y.grad_fn();
    weak_acc = y.grad_fn()->next_edges()[0].function->next_edges()[0].function;
    CHECK(weak_acc.lock()->name() == "AccumulateGrad");
    CHECK_FALSE(weak_fn.expired());
  }
  CHECK(weak_fn.expired());
  CHECK(weak_acc.expired());
}

TEST_CASE("graph structure: names, next_edges, is_leaf, output_nr, printing",
          "[autograd][engine]") {
  Tensor x = tensor({1.0f, 2.0f}, requires_grad());
  Tensor w = tensor({3.0f, 4.0f});
  Tensor y = x.mul(w).add(x);
  CHECK(x.is_leaf());
  CHECK_FALSE(y.is_leaf());
  CHECK(w.is_leaf());
  CHECK(x.grad_fn() == nullptr);
  CHECK(y.grad_fn()->name() == "AddBackward0");
  const auto& edges = y.grad_fn()->next_edges();
  REQUIRE(edges.size() == 2);
  CHECK(edges[0].function->name() == "MulBackward0");
  CHECK(edges[1].function->name() == "AccumulateGrad");
  CHECK_FALSE(edges[0].function->next_edges()[1].is_valid());  // w needs no gradient
  CHECK(y.output_nr() == 0);
  CHECK(y.requires_grad());
  CHECK(y.toString() == "tensor([ 4., 10.], grad_fn=<AddBackward0>)");
  CHECK(x.toString() == "tensor([1., 2.], requires_grad=True)");
}

TEST_CASE("backward accumulates into leaves; gradients of non-scalars need a gradient",
          "[autograd][engine]") {
  Tensor x = tensor({1.0, 2.0, 3.0}, dtype(kDouble).requires_grad(true));
  Tensor y = x.mul(x);
  CHECK_THROWS_WITH(y.backward(), "grad can be implicitly created only for scalar outputs");
  CHECK_THROWS_WITH(y.backward(ones({2}, kDouble)),
                    "Mismatch in shape: grad_output[0] has a shape of tensorplay.Size([2]) and "
                    "output[0] has a shape of tensorplay.Size([3]).");
  y.backward(tensor({1.0, 1.0, 0.5}, kDouble), /*retain_graph=*/true);
  CHECK(values(x.grad()) == std::vector<double>{2.0, 4.0, 3.0});
  y.backward(ones({3}, kDouble));  // accumulates
  CHECK(values(x.grad()) == std::vector<double>{4.0, 8.0, 9.0});
  CHECK_THROWS_WITH(y.backward(ones({3}, kDouble)),
                    "Trying to backward through the graph a second time (or directly access "
                    "saved tensors after they have already been freed). Saved intermediate values "
                    "of the graph are freed when you call .backward() or autograd.grad(). Specify "
                    "retain_graph=True if you need to backward through the graph a second time or "
                    "if you need to access saved tensors after calling backward.");
  Tensor plain = ones({2});
  CHECK_THROWS_WITH(plain.sum().backward(),
                    "element 0 of tensors does not require grad and does not have a grad_fn");
  // A graph whose nodes saved nothing can be run twice (PyTorch's behaviour too).
  Tensor s = x.add(1.0).sum();
  s.backward();
  s.backward();
  CHECK(values(x.grad()) == std::vector<double>{6.0, 10.0, 11.0});
  // autograd::backward with several roots.
  Tensor a = tensor({1.0}, dtype(kDouble).requires_grad(true));
  autograd::backward({a.mul(2.0), a.mul(3.0)}, {ones({1}, kDouble), ones({1}, kDouble)});
  CHECK(values(a.grad()) == std::vector<double>{5.0});
  CHECK_THROWS_WITH(autograd::backward({a.mul(2.0)}, {ones({1}, kDouble), ones({1}, kDouble)}),
                    "grad_tensors should have the same length as tensors (got 2 and 1)");
}

TEST_CASE("a chain of 100000 ops runs backward and is freed without recursion",
          "[autograd][engine]") {
  Tensor x = tensor({1.0f}, requires_grad());
  Tensor y = x;
  for (int i = 0; i < 100000; ++i) y = y.mul(1.0f);
  y.sum().backward();
  CHECK(values(x.grad()) == std::vector<double>{1.0});
  // Dropped without running backward: the destructor chain is iterative too.
  Tensor z = x;
  for (int i = 0; i < 100000; ++i) z = z.add(1.0f);
  z.reset();
  SUCCEED();
}

TEST_CASE("autograd::grad returns gradients without touching .grad", "[autograd][engine]") {
  Tensor x = tensor({1.0, 2.0}, dtype(kDouble).requires_grad(true));
  Tensor u = tensor({5.0}, dtype(kDouble).requires_grad(true));
  Tensor y = x.mul(x).sum();
  auto g = autograd::grad({y}, {x}, {}, /*retain_graph=*/true);
  CHECK(values(g[0]) == std::vector<double>{2.0, 4.0});
  CHECK_FALSE(x.grad().defined());
  CHECK_THROWS_WITH(autograd::grad({y}, {x, u}, {}, true),
                    "One of the differentiated Tensors appears to not have been used in the "
                    "graph. Set allow_unused=True if this is the desired behavior.");
  auto g2 = autograd::grad({y}, {x, u}, {}, true, false, /*allow_unused=*/true);
  CHECK(g2[0].defined());
  CHECK_FALSE(g2[1].defined());
  CHECK_THROWS_WITH(autograd::grad({y}, {ones({2})}),
                    "One of the differentiated Tensors does not require grad");
  // An intermediate as input: the gradient arriving at it.
  Tensor h = x.mul(3.0);
  Tensor z = h.mul(h).sum();
  auto gh = autograd::grad({z}, {h});
  CHECK(values(gh[0]) == std::vector<double>{6.0, 12.0});
}

TEST_CASE("create_graph gives second derivatives", "[autograd][engine]") {
  Tensor x = tensor({0.5, -1.0}, dtype(kDouble).requires_grad(true));
  Tensor y = x.mul(x).mul(x).sum();  // x^3
  auto g1 = autograd::grad({y}, {x}, {}, std::nullopt, /*create_graph=*/true);
  CHECK(g1[0].requires_grad());
  CHECK(values(g1[0]) == std::vector<double>{0.75, 3.0});  // 3x^2
  auto g2 = autograd::grad({g1[0].sum()}, {x});
  CHECK(values(g2[0]) == std::vector<double>{3.0, -6.0});  // 6x
  // backward(create_graph) leaves a differentiable .grad.
  Tensor e = x.exp().sum();
  e.backward({}, std::nullopt, /*create_graph=*/true);
  CHECK(x.grad().requires_grad());
  // x.grad's history holds x (through its AccumulateGrad): the reference cycle PyTorch warns
  // about for backward(create_graph=True). Resetting the gradient breaks it.
  x.mutable_grad().reset();
}

TEST_CASE("hooks and retain_grad", "[autograd][engine]") {
  Tensor x = tensor({1.0, 2.0}, dtype(kDouble).requires_grad(true));
  std::vector<double> seen;
  x.register_hook([&](const Tensor& g) { seen = values(g); });   // observes
  x.register_hook([](const Tensor& g) { return g.mul(10.0); });  // replaces
  Tensor h = x.mul(2.0);
  h.retain_grad();
  CHECK(h.retains_grad());
  h.register_hook([](const Tensor& g) { return g.add(1.0); });
  h.mul(h).sum().backward();
  // dL/dh = 2h = [4, 8]; h's hook adds 1 -> [5, 9] (retained after hooks); x gets 2*[5, 9] * 10.
  CHECK(values(h.grad()) == std::vector<double>{5.0, 9.0});
  CHECK(seen == std::vector<double>{10.0, 18.0});
  CHECK(values(x.grad()) == std::vector<double>{100.0, 180.0});
  CHECK_THROWS_WITH(ones({1}).register_hook([](const Tensor&) {}),
                    "cannot register a hook on a tensor that doesn't require gradient");
  CHECK_THROWS_WITH(ones({1}).retain_grad(),
                    "can't retain_grad on Tensor that has requires_grad=False");
}

TEST_CASE("grad modes are thread-local guards", "[autograd][grad_mode]") {
  Tensor x = ones({2}, requires_grad());
  CHECK(is_grad_enabled());
  {
    NoGradGuard no_grad;
    CHECK_FALSE(is_grad_enabled());
    Tensor y = x.mul(2.0);
    CHECK_FALSE(y.requires_grad());
    CHECK(y.grad_fn() == nullptr);
    x.mul_(1.0);  // a leaf may be updated in place without grad mode (an optimizer step)
    {
      AutoGradMode enable(true);
      CHECK(x.mul(2.0).requires_grad());
    }
    bool other_thread = false;
    std::thread([&] { other_thread = is_grad_enabled(); }).join();
    CHECK(other_thread);
  }
  CHECK(is_grad_enabled());
  CHECK_THROWS_WITH(x.mul_(2.0),
                    "a leaf Variable that requires grad is being used in an in-place operation.");
  CHECK_THROWS_WITH(x.exp().requires_grad_(false),
                    Catch::StartsWith("you can only change requires_grad flags of leaf "
                                      "variables."));
}

TEST_CASE("inference mode: no versions, no graph, no in-place updates outside",
          "[autograd][inference]") {
  Tensor x = ones({2}, requires_grad());
  Tensor inf;
  {
    InferenceMode guard;
    CHECK(InferenceMode::is_enabled());
    CHECK_FALSE(is_grad_enabled());
    inf = x.mul(2.0);
    CHECK(inf.is_inference());
    CHECK_FALSE(inf.requires_grad());
    inf.add_(1.0);  // fine inside
  }
  CHECK_THROWS_WITH(inf.add_(1.0),
                    "Inplace update to inference tensor outside InferenceMode is not allowed.You "
                    "can make a clone to get a normal tensor before doing inplace update.See "
                    "https://github.com/pytorch/rfcs/pull/17 for more details.");
  CHECK_THROWS_WITH(inf._version(), "Inference tensors do not track version counter.");
  CHECK_THROWS_WITH(x.mul(inf),
                    "Inference tensors cannot be saved for backward. To work around you can make "
                    "a clone to get a normal tensor and use it in autograd.");
  CHECK_NOTHROW(x.add(inf));  // AddBackward0 saves nothing
}

TEST_CASE("independent graphs backpropagate on several threads", "[autograd][engine]") {
  Tensor shared = tensor({1.0, 2.0}, dtype(kDouble).requires_grad(true));
  std::vector<std::thread> threads;
  std::vector<std::vector<double>> results(4);
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      Tensor x = tensor({double(t), 1.0}, dtype(kDouble).requires_grad(true));
      for (int i = 0; i < 50; ++i) x.mul(x).add(shared).sum().backward();
      results[static_cast<std::size_t>(t)] = values(x.grad());
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 4; ++t) {
    CHECK(results[static_cast<std::size_t>(t)] == std::vector<double>{100.0 * t, 100.0});
  }
  CHECK(values(shared.grad()) == std::vector<double>{200.0, 200.0});
}

TEST_CASE("set_data rebinds the bytes and keeps the tensor's identity", "[autograd][engine]") {
  Tensor w = ones({2}).requires_grad_();
  (w * 3).sum().backward();
  const auto version = w._version();
  const Tensor replacement = tensor({5.0f, 6.0f, 7.0f});
  w.set_data(replacement);
  CHECK(w.data_ptr() == replacement.data_ptr());
  CHECK(w.sizes() == IntArrayRef{3});
  CHECK(w.requires_grad());
  CHECK(w.is_leaf());
  CHECK(w._version() == version);  // the counter is w's own, not replacement's
  CHECK(w.grad().sizes() == IntArrayRef{2});
  w.mutable_grad().reset();
  (w * 2).sum().backward();
  CHECK(w.grad().sizes() == IntArrayRef{3});
  w.set_data(tensor({1.0, 2.0}, kDouble));  // another dtype: a new AccumulateGrad for the new data
  w.mutable_grad().reset();
  (w * w).sum().backward();
  CHECK(w.grad().dtype() == kDouble);
  CHECK(w.grad().allclose(tensor({2.0, 4.0}, kDouble)));
  CHECK_THROWS_WITH(w.set_data(tensor({1, 2})),
                    "data set to a tensor that requires gradients must be floating point or "
                    "complex dtype");
  CHECK_THROWS_WITH(w.set_data(Tensor()), "set_data(): the new data is an undefined tensor");
}

}  // namespace autograd_engine_test
