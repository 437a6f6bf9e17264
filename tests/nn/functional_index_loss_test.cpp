// nll_loss, cross_entropy (class indices and probabilities, weight, ignore_index,
// label_smoothing, every reduction), embedding and one_hot (nn/functional/loss.hpp,
// nn/functional/embedding.hpp): values and gradients against torch 1.13's (printed by torch for
// the inputs below), node names, gradcheck, and every error path.
#include <tensorplay/autograd/gradcheck.hpp>
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

namespace nn_functional_index_loss_test {

using namespace tensorplay;
namespace F = tensorplay::nn::functional;
using Catch::Contains;

namespace {
Tensor lng(std::vector<int64_t> v) { return tensor(v, kLong); }
Tensor dbl(std::vector<double> v) { return tensor(v, kDouble); }
// sin(arange(12) / 7) as [3, 4], float64, requiring grad.
Tensor x34() { return arange(12, kDouble).reshape({3, 4}).div(7).sin().requires_grad_(); }
Tensor w4() { return dbl({0.5, 1.0, 2.0, 1.5}); }

// The loss and x's gradient of sum(loss * [1, 2, ...]), compared with torch's.
void check(const std::string& what, const Tensor& x, const Tensor& loss,
           std::vector<double> want_loss, std::vector<double> want_grad) {
  INFO(what);
  CHECK(loss.reshape({-1}).allclose(dbl(want_loss), 1e-9, 1e-12));
  const Tensor seed = arange(1, loss.numel() + 1, kDouble).reshape(loss.sizes());
  const Tensor g = autograd::grad({loss.mul(seed).sum()}, {x})[0];
  CHECK(g.reshape({-1}).allclose(dbl(want_grad), 1e-9, 1e-12));
}
std::string name_of(const Tensor& t) { return t.grad_fn() ? t.grad_fn()->name() : "None"; }
}  // namespace

TEST_CASE("nll_loss matches torch", "[nn][loss]") {
  Tensor x = x34();
  check("mean", x, F::nll_loss(x, lng({1, 0, 3})), {-0.5610685810948212},
        {0, -1.0 / 3, 0, 0, -1.0 / 3, 0, 0, 0, 0, 0, 0, -1.0 / 3});
  check("none, weight", x, nll_loss(x, lng({1, 0, 3}), w4(), kNone),
        {-0.14237172979226365, -0.27041710667941576, -1.4999997002000525},
        {0, -1, 0, 0, -1, 0, 0, 0, 0, 0, 0, -4.5});
  check("mean, weight, ignored", x,
        F::nll_loss(x, lng({1, -100, 3}), F::NLLLossFuncOptions().weight(w4())),
        {-0.6569485719969265}, {0, -0.4, 0, 0, 0, 0, 0, 0, 0, 0, 0, -0.6});
  check("sum, ignore_index 0", x,
        F::nll_loss(x, lng({1, 0, 3}), F::NLLLossFuncOptions().reduction(kSum).ignore_index(0)),
        {-1.142371529925632}, {0, -1, 0, 0, 0, 0, 0, 0, 0, 0, 0, -1});
  CHECK(name_of(nll_loss(x, lng({1, 0, 3}))) == "NllLossBackward0");
  // 1-d input with a 0-d target; a 4-d input with NllLoss2DBackward0
  CHECK(nll_loss(x[0], tensor(int64_t(2))).item<double>() == Approx(-x[0][2].item<double>()));
  const Tensor r4 = nll_loss(x.view({1, 3, 2, 2}), lng({1, 0, 2, 1}).view({1, 2, 2}), {}, kNone);
  CHECK(name_of(r4) == "NllLoss2DBackward0");
  CHECK(r4.reshape({-1}).allclose(
      dbl({-0.5408342133588315, -0.14237172979226365, -0.9899030763721239, -0.8414709848078965})));
  // everything ignored: the mean is 0 / 0
  CHECK(std::isnan(nll_loss(x, lng({-100, -100, -100})).item<double>()));
  for (const Tensor& in : {x34(), randn({4, 3}, kDouble).t().requires_grad_()}) {
    CHECK(autograd::gradcheck(
        [](const std::vector<Tensor>& v) {
          return nll_loss(v[0], lng({1, -100, 2}), dbl({0.5, 1.0, 2.0, 1.5}).narrow(0, 0, 4));
        },
        {in}));
  }
}

TEST_CASE("nll_loss refuses bad input", "[nn][loss][errors]") {
  const Tensor x = x34();
  CHECK_THROWS_AS(nll_loss(x, lng({1, 0})), ValueError);
  CHECK_THROWS_WITH(nll_loss(x, lng({1, 0})),
                    "Expected input batch_size (3) to match target batch_size (2).");
  CHECK_THROWS_AS(nll_loss(x, lng({1, 0, 4})), IndexError);
  CHECK_THROWS_WITH(nll_loss(x, lng({1, 0, 4})), "Target 4 is out of bounds.");
  CHECK_THROWS_WITH(nll_loss(x, lng({1, 0, -1})), "Target -1 is out of bounds.");
  CHECK_THROWS_WITH(nll_loss(x, lng({1, 0, 3}).to(kInt)),
                    "expected scalar type Long but found Int");
  CHECK_THROWS_WITH(nll_loss(x, lng({1, 0, 3}), ones({2}, kDouble)),
                    "weight tensor should be defined either for all 4 classes or no classes but "
                    "got weight tensor of shape: [2]");
  CHECK_THROWS_WITH(nll_loss(x, lng({1, 0, 3}), ones({4})),
                    "expected scalar type Double but found Float");
  CHECK_THROWS_WITH(nll_loss(x.view({3, 4, 1}), lng({1, 0, 3})),
                    "Expected target size [3, 1], got [3]");
  CHECK_THROWS_WITH(nll_loss(x, lng({1, 0, 3}).view({3, 1})),
                    "0D or 1D target tensor expected, multi-target not supported");
  CHECK_THROWS_WITH(nll_loss(tensor(1.0), tensor(int64_t(0))),
                    "Expected 1 or more dimensions (got 0)");
  CHECK_THROWS_WITH(nll_loss(x, lng({1, 0, 3}), ones({4}, kDouble).requires_grad_()),
                    Contains("is not differentiable with respect to argument 'weight'"));
}

TEST_CASE("cross_entropy matches torch", "[nn][loss]") {
  Tensor x = x34();
  check("mean", x, F::cross_entropy(x, lng({1, 0, 3})), {1.4558799165023297},
        {0.06674926812336834, -0.2563710817423875, 0.08848085358169434, 0.10114096003732481,
         -0.2625886730459314, 0.0793065517102684, 0.08772599051068605, 0.09555613082497699,
         0.07882421219043792, 0.0828503427612427, 0.08539609505516402, -0.2470706500068447});
  CHECK(name_of(cross_entropy(x, lng({1, 0, 3}))) == "NllLossBackward0");
  check("label smoothing, weight", x,
        F::cross_entropy(x, lng({1, 0, 3}),
                         F::CrossEntropyFuncOptions().weight(w4()).label_smoothing(0.2)),
        {1.4771079972692431},
        {0.06175339819620344, -0.2025229691628402, 0.05957156292744574, 0.08119800803919106,
         -0.09568263747985545, 0.03488259194500779, 0.023688560498612603, 0.037111485036235035,
         0.10596177434280168, 0.10346633033713527, 0.09049100449665452, -0.2999191091765915});
  check("label smoothing, ignored", x,
        F::cross_entropy(x, lng({1, -100, 3}), F::CrossEntropyFuncOptions().label_smoothing(0.1)),
        {1.4071661013290195},
        {0.08762390218505253, -0.3470566226135813, 0.12022128037254153, 0.1392114400559872, 0, 0, 0,
         0, 0.1057363182856569, 0.11177551414186407, 0.11559414258274604, -0.33310597501026706});
  check("label smoothing, weight, ignored, none", x,
        cross_entropy(x, lng({2, -100, 3}), w4(), kNone, -100, 0.3),
        {2.3602682579188503, 0.0, 1.9341611294395102},
        {0.3179398527569365, 0.3348239897217865, -1.0788394546774775, 0.4260756121987546, 0, 0, 0,
         0, 0.8984205213423663, 0.8375556459129376, 0.6452049190824786, -2.381181086337783});
  const Tensor p = arange(12, kDouble).reshape({3, 4}).cos().softmax(1);
  check("probabilities", x, F::cross_entropy(x, p), {1.411368662685702},
        {-0.09902073670114447, -0.027717281824810553, 0.04825722985190533, 0.07848078867404967,
         0.04441696226233094, 0.012089473977107088, -0.04448981123492391, -0.012016625004514076,
         -0.027788666893605825, 0.03327100878105514, 0.032112269421419024, -0.03759461130886839});
  check("probabilities, weight, label smoothing, none", x,
        cross_entropy(x, p, w4(), kNone, -100, 0.1),
        {1.3395282753065838, 1.9819744445385865, 1.6354069313445287},
        {-0.04797536813876464, -0.09050756410263978, -0.01758392172025639, 0.15606685396166095,
         0.5370785776782412, 0.29681990777309214, -0.7427847143923143, -0.0911137710590189,
         0.37644776898035626, 0.41233495364602096, -0.09695623400430746, -0.6918264886220702});
  CHECK(cross_entropy(x.to(kFloat).detach(), lng({1, 0, 3})).item<float>() ==
        Approx(1.4558799165023297).epsilon(1e-5));
  CHECK_THROWS_WITH(cross_entropy(x, lng({1, 0, 3}), {}, kMean, -100, 1.5),
                    "label_smoothing must be between 0.0 and 1.0. Got: 1.5");
  CHECK_THROWS_WITH(cross_entropy(x, p.narrow(1, 0, 3)),
                    "0D or 1D target tensor expected, multi-target not supported");
  CHECK_THROWS_WITH(cross_entropy(x, lng({1, 0, 3}).to(kInt)),
                    "expected scalar type Long but found Int");
}

TEST_CASE("embedding looks rows up and adds gradients back", "[nn][embedding]") {
  const Tensor w = arange(6, kDouble).reshape({3, 2}).requires_grad_();
  const Tensor r = F::embedding(lng({0, 2, 2, 1}).view({2, 2}), w);
  CHECK(r.sizes() == IntArrayRef({2, 2, 2}));
  CHECK(r.reshape({-1}).equal(dbl({0, 1, 4, 5, 4, 5, 2, 3})));
  CHECK(name_of(r) == "EmbeddingBackward0");
  CHECK(embedding(w, lng({1}).to(kInt)).equal(dbl({2, 3}).view({1, 2})));
  // padding_idx gets no gradient; scale_grad_by_freq divides by the count (torch's values)
  auto grad_of = [&](const F::EmbeddingFuncOptions& o) {
    return autograd::grad({F::embedding(lng({0, 2, 2, 1}), w, o).sum()}, {w})[0];
  };
  CHECK(grad_of(F::EmbeddingFuncOptions().padding_idx(2))
            .equal(dbl({1, 1, 1, 1, 0, 0}).view({3, 2})));
  CHECK(grad_of(F::EmbeddingFuncOptions().padding_idx(-1))
            .equal(dbl({1, 1, 1, 1, 0, 0}).view({3, 2})));
  CHECK(grad_of(F::EmbeddingFuncOptions().scale_grad_by_freq(true))
            .equal(dbl({1, 1, 1, 1, 1, 1}).view({3, 2})));
  CHECK(grad_of({}).equal(dbl({1, 1, 1, 1, 2, 2}).view({3, 2})));
  // max_norm renormalises the looked-up rows in place
  Tensor w2 = dbl({3, 4, 0.3, 0.4, 6, 8}).view({3, 2});
  F::embedding(lng({0, 1}), w2, F::EmbeddingFuncOptions().max_norm(1.0));
  CHECK(w2.allclose(dbl({0.6, 0.8, 0.3, 0.4, 6, 8}).view({3, 2}), 1e-6));
  CHECK(autograd::gradcheck(
      [](const std::vector<Tensor>& v) {
        return embedding(v[0], lng({2, 0, 2}));
      },
      {randn({2, 3}, kDouble).t().requires_grad_()}));

  CHECK_THROWS_WITH(embedding(w, dbl({0})),
                    "Expected tensor for argument #1 'indices' to have one of the following "
                    "scalar types: Long, Int; but got tensorplay.DoubleTensor instead (while "
                    "checking arguments for embedding)");
  CHECK_THROWS_AS(embedding(w, lng({3})), IndexError);
  CHECK_THROWS_WITH(embedding(w, lng({-1})), "index out of range in self");
  CHECK_THROWS_WITH(F::embedding(lng({0}), w, F::EmbeddingFuncOptions().padding_idx(5)),
                    "Padding_idx must be within num_embeddings");
  CHECK_THROWS_WITH(embedding(w[0], lng({0})), "'weight' must be 2-D");
  CHECK_THROWS_AS(embedding(w, lng({0}), -1, false, true), NotImplementedError);
}

TEST_CASE("one_hot", "[nn][embedding]") {
  CHECK(F::one_hot(lng({0, 2})).equal(lng({1, 0, 0, 0, 0, 1}).view({2, 3})));
  CHECK(one_hot(lng({0, 2}), 4).equal(lng({1, 0, 0, 0, 0, 0, 1, 0}).view({2, 4})));
  CHECK(one_hot(tensor(int64_t(1)), 3).equal(lng({0, 1, 0})));
  CHECK(one_hot(empty({0}, kLong), 3).sizes() == IntArrayRef({0, 3}));
  CHECK(one_hot(lng({1, 0}).view({2, 1}).t(), 2).sizes() == IntArrayRef({1, 2, 2}));
  CHECK_THROWS_WITH(one_hot(lng({0, 2}), 2), "Class values must be smaller than num_classes.");
  CHECK_THROWS_WITH(one_hot(lng({0, -1}), 3), "Class values must be non-negative.");
  CHECK_THROWS_WITH(one_hot(dbl({0, 1}), 3), "one_hot is only applicable to index tensor.");
  CHECK_THROWS_WITH(one_hot(empty({0}, kLong)),
                    "Can not infer total number of classes from empty tensor.");
}

}  // namespace nn_functional_index_loss_test
