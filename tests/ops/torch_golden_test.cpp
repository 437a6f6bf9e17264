// The ops of the ops issue against Debian's torch 1.13, from data it computed
// (data/make_torch_golden.py -> data/torch_golden.safetensors): index families, shape ops,
// data-dependent ops, einsum, cdist and nn::functional. Each case runs the call torch ran on the
// same inputs and compares every output (dtype, shape, values) and, where the case has them, the
// gradients of (out0 * w).sum() with respect to the inputs torch differentiated, once with
// contiguous inputs and once with the same values in strided ones. Cases also cover every dtype
// (forward) of the index and shape ops, and empty and 0-d inputs. The table below and the
// generator name the same cases; a case on one side only fails the test.
#include <tensorplay/nn/functional.hpp>
#include <tensorplay/serialize/safetensors.hpp>
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <functional>
#include <limits>
#include <map>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace ops_torch_golden_test {

namespace tp = tensorplay;
namespace F = tensorplay::nn::functional;
using tp::Tensor;
using Outs = std::vector<Tensor>;
using In = const std::vector<Tensor>&;
using Fn = std::function<Outs(In)>;

Outs outs(const Tensor& t) { return {t}; }
template <class... T>
Outs outs(const std::tuple<T...>& t) {
  return std::apply([](const auto&... x) { return Outs{x...}; }, t);
}
Outs outs(const std::vector<Tensor>& v) { return v; }

// Every case of make_torch_golden.py, by name. Keep the two in the same order.
std::map<std::string, Fn> cases() {
  std::map<std::string, Fn> c;
  const auto add = [&c](const std::string& name, Fn fn) { REQUIRE(c.emplace(name, fn).second); };
  // ---- index families ----
  add("gather.dim1", [](In i) { return outs(tp::gather(i[0], 1, i[1])); });
  add("gather.int32.dim0", [](In i) { return outs(tp::gather(i[0], 0, i[1])); });
  add("scatter.src", [](In i) { return outs(tp::scatter(i[0], 1, i[1], i[2])); });
  add("scatter.value", [](In i) { return outs(tp::scatter(i[0], 1, i[1], 2.5)); });
  add("scatter_add", [](In i) { return outs(tp::scatter_add(i[0], 1, i[1], i[2])); });
  for (const char* red : {"sum", "prod", "mean", "amax", "amin"}) {
    for (bool incl : {true, false}) {
      add(std::string("scatter_reduce.") + red + (incl ? ".self" : ".noself"),
          [red = std::string(red), incl](In i) {
            return outs(tp::scatter_reduce(i[0], 1, i[1], i[2], red, incl));
          });
    }
  }
  add("index_select", [](In i) { return outs(tp::index_select(i[0], 0, i[1])); });
  add("index_select.int64.dim1", [](In i) { return outs(tp::index_select(i[0], 1, i[1])); });
  add("index_add.alpha", [](In i) { return outs(tp::index_add(i[0], 0, i[1], i[2], 2)); });
  add("index_copy", [](In i) { return outs(tp::index_copy(i[0], 0, i[1], i[2])); });
  add("index_fill", [](In i) { return outs(tp::index_fill(i[0], 1, i[1], -1.5)); });
  add("index_put.accumulate", [](In i) {
    const std::vector<tp::indexing::TensorIndex> idx{i[1], i[2]};
    return outs(tp::index_put(i[0], idx, i[3], true));
  });
  add("index_put.assign", [](In i) {
    const std::vector<tp::indexing::TensorIndex> idx{i[1], i[2]};
    return outs(tp::index_put(i[0], idx, i[3]));
  });
  add("masked_select.broadcast", [](In i) { return outs(tp::masked_select(i[0], i[1])); });
  add("masked_scatter", [](In i) { return outs(tp::masked_scatter(i[0], i[1], i[2])); });
  add("take", [](In i) { return outs(tp::take(i[0], i[1])); });
  add("put.accumulate", [](In i) { return outs(tp::put(i[0], i[1], i[2], true)); });
  add("nonzero", [](In i) { return outs(tp::nonzero(i[0])); });
  add("nonzero.bool.3d", [](In i) { return outs(tp::nonzero(i[0])); });
  add("where.one_arg", [](In i) { return outs(tp::where(i[0])); });
  // ---- shape ops ----
  add("repeat_interleave.tensor", [](In i) { return outs(tp::repeat_interleave(i[0], i[1], 0)); });
  add("repeat_interleave.int", [](In i) { return outs(tp::repeat_interleave(i[0], 2)); });
  add("tile", [](In i) { return outs(tp::tile(i[0], {2, 1, 2})); });
  add("flip", [](In i) { return outs(tp::flip(i[0], {0, 2})); });
  add("roll.dims", [](In i) { return outs(tp::roll(i[0], {1, -2}, {0, 1})); });
  add("roll.flat", [](In i) { return outs(tp::roll(i[0], std::vector<int64_t>{5})); });
  add("rot90.k1", [](In i) { return outs(tp::rot90(i[0], 1, {0, 1})); });
  add("rot90.k3", [](In i) { return outs(tp::rot90(i[0], 3, {1, 2})); });
  add("tril.diag-1", [](In i) { return outs(tp::tril(i[0], -1)); });
  add("triu.diag1", [](In i) { return outs(tp::triu(i[0], 1)); });
  add("tril.batched", [](In i) { return outs(tp::tril(i[0])); });
  add("diag.1d", [](In i) { return outs(tp::diag(i[0], 1)); });
  add("diag.2d", [](In i) { return outs(tp::diag(i[0], -1)); });
  add("diag_embed", [](In i) { return outs(tp::diag_embed(i[0], 1, 0, 2)); });
  add("diagflat", [](In i) { return outs(tp::diagflat(i[0], -1)); });
  add("trace", [](In i) { return outs(tp::trace(i[0])); });
  add("kron", [](In i) { return outs(tp::kron(i[0], i[1])); });
  add("cross.dim1", [](In i) { return outs(tp::cross(i[0], i[1], 1)); });
  add("tensordot", [](In i) { return outs(tp::tensordot(i[0], i[1], {1, 2}, {0, 1})); });
  add("block_diag", [](In i) { return outs(tp::block_diag({i[0], i[1]})); });
  // ---- data-dependent and search ops ----
  add("unique.sorted", [](In i) { return outs(tp::unique(i[0], true, true, true)); });
  add("unique.dim0", [](In i) { return outs(tp::unique(i[0], true, true, true, 0)); });
  add("unique_consecutive", [](In i) { return outs(tp::unique_consecutive(i[0], true, true)); });
  add("bincount.weights", [](In i) { return outs(tp::bincount(i[0], i[1], 7)); });
  add("histc", [](In i) { return outs(tp::histc(i[0], 5, -1, 1)); });
  add("bucketize.right", [](In i) { return outs(tp::bucketize(i[0], i[1], false, true)); });
  add("searchsorted.2d", [](In i) { return outs(tp::searchsorted(i[0], i[1])); });
  add("searchsorted.side_right.int32",
      [](In i) { return outs(tp::searchsorted(i[0], i[1], true, false, "right")); });
  add("cummax", [](In i) { return outs(tp::cummax(i[0], 1)); });
  add("cummin", [](In i) { return outs(tp::cummin(i[0], 1)); });
  add("kthvalue", [](In i) { return outs(tp::kthvalue(i[0], 2, 1)); });
  add("median.dim", [](In i) { return outs(tp::median(i[0], 1)); });
  add("median.all", [](In i) { return outs(tp::median(i[0])); });
  add("nanmedian.dim", [](In i) { return outs(tp::nanmedian(i[0], 1)); });
  add("mode", [](In i) { return outs(tp::mode(i[0], 1)); });
  for (const char* interp : {"linear", "lower", "higher", "midpoint", "nearest"}) {
    add(std::string("quantile.") + interp, [interp = std::string(interp)](In i) {
      return outs(tp::quantile(i[0], i[1], 1, false, interp));
    });
  }
  add("nanquantile", [](In i) { return outs(tp::nanquantile(i[0], 0.3, 1, true)); });
  add("nansum.dim", [](In i) { return outs(tp::nansum(i[0], {1})); });
  add("nanmean.dim", [](In i) { return outs(tp::nanmean(i[0], {1})); });
  add("count_nonzero.dim0", [](In i) { return outs(tp::count_nonzero(i[0], {0})); });
  // ---- einsum and cdist ----
  add("einsum.bmm", [](In i) { return outs(tp::einsum("bij,bjk->bik", {i[0], i[1]})); });
  add("einsum.diag", [](In i) { return outs(tp::einsum("ii->i", {i[0]})); });
  add("einsum.ellipsis", [](In i) { return outs(tp::einsum("...ij->...ji", {i[0]})); });
  add("einsum.dot", [](In i) { return outs(tp::einsum("ij,ij->", {i[0], i[1]})); });
  add("einsum.chain", [](In i) { return outs(tp::einsum("ij,jk,kl->il", {i[0], i[1], i[2]})); });
  for (const auto& [p, name] : std::vector<std::pair<double, const char*>>{
           {2.0, "cdist.p2"},
           {1.0, "cdist.p1"},
           {0.0, "cdist.p0"},
           {3.0, "cdist.p3"},
           {std::numeric_limits<double>::infinity(), "cdist.pinf"}}) {
    add(name, [p = p](In i) { return outs(tp::cdist(i[0], i[1], p)); });
  }
  // ---- nn::functional ----
  add("conv1d.groups", [](In i) { return outs(tp::conv1d(i[0], i[1], i[2], 2, 1, 1, 2)); });
  add("conv2d.dilation", [](In i) {
    return outs(tp::conv2d(i[0], i[1], i[2], {2, 1}, {1, 0}, {1, 2}));
  });
  add("conv2d.same",
      [](In i) { return outs(F::conv2d(i[0], i[1], F::Conv2dFuncOptions().padding(F::kSame))); });
  add("conv3d", [](In i) { return outs(tp::conv3d(i[0], i[1], i[2], 1, {1, 0, 1})); });
  add("conv_transpose2d",
      [](In i) { return outs(tp::conv_transpose2d(i[0], i[1], i[2], 2, 1, 1)); });
  add("conv_transpose1d.groups",
      [](In i) { return outs(tp::conv_transpose1d(i[0], i[1], std::nullopt, 2, 0, 0, 2)); });
  add("max_pool2d.indices",
      [](In i) { return outs(tp::max_pool2d_with_indices(i[0], 3, 2, 1, 1, true)); });
  add("max_pool1d.dilation", [](In i) { return outs(tp::max_pool1d(i[0], 3, 2, 0, 2)); });
  add("avg_pool2d.ceil", [](In i) {
    return outs(tp::avg_pool2d(i[0], {3, 2}, 2, 1, true, false));
  });
  add("avg_pool2d.divisor",
      [](In i) { return outs(tp::avg_pool2d(i[0], 2, {}, 0, false, true, 3)); });
  add("avg_pool1d", [](In i) { return outs(tp::avg_pool1d(i[0], 3, 2, 1)); });
  add("adaptive_avg_pool2d", [](In i) { return outs(tp::adaptive_avg_pool2d(i[0], {3, 4})); });
  add("adaptive_max_pool2d", [](In i) { return outs(tp::adaptive_max_pool2d(i[0], {3, 4})); });
  add("adaptive_avg_pool1d", [](In i) { return outs(tp::adaptive_avg_pool1d(i[0], 4)); });
  add("max_pool3d.indices", [](In i) {
    return outs(tp::max_pool3d_with_indices(i[0], {3, 2, 2}, {2, 1, 2}, {1, 1, 0}, 1, true));
  });
  add("max_pool3d.dilation", [](In i) { return outs(tp::max_pool3d(i[0], 2, 1, 0, {2, 1, 2})); });
  add("avg_pool3d.ceil", [](In i) {
    return outs(tp::avg_pool3d(i[0], {3, 2, 2}, 2, 1, true, false));
  });
  add("avg_pool3d.divisor",
      [](In i) { return outs(tp::avg_pool3d(i[0], 2, {}, 0, false, true, 3)); });
  add("adaptive_avg_pool3d", [](In i) { return outs(tp::adaptive_avg_pool3d(i[0], {3, 4, 2})); });
  add("adaptive_max_pool3d", [](In i) { return outs(tp::adaptive_max_pool3d(i[0], {2, 3, 4})); });
  add("interpolate.area_5d", [](In i) {
    return outs(F::interpolate(
        i[0], F::InterpolateFuncOptions().size(std::vector<int64_t>{4, 3, 3}).mode(tp::kArea)));
  });
  add("batch_norm.train", [](In i) {
    Tensor rm = i[3].clone(), rv = i[4].clone();
    Tensor y = tp::batch_norm(i[0], i[1], i[2], rm, rv, true, 0.1, 1e-5);
    return Outs{y, rm, rv};
  });
  add("batch_norm.eval",
      [](In i) { return outs(tp::batch_norm(i[0], i[1], i[2], i[3], i[4], false, 0.1, 1e-3)); });
  add("layer_norm", [](In i) { return outs(tp::layer_norm(i[0], {4, 5}, i[1], i[2])); });
  add("group_norm", [](In i) { return outs(tp::group_norm(i[0], 3, i[1], i[2])); });
  add("instance_norm", [](In i) { return outs(F::instance_norm(i[0])); });
  add("embedding.padding_idx", [](In i) { return outs(tp::embedding(i[0], i[1], 2)); });
  add("one_hot", [](In i) { return outs(tp::one_hot(i[0], 5)); });
  add("act.gelu", [](In i) { return outs(F::gelu(i[0])); });
  add("act.gelu.tanh",
      [](In i) { return outs(F::gelu(i[0], F::GELUFuncOptions().approximate("tanh"))); });
  add("act.elu", [](In i) { return outs(F::elu(i[0], F::ELUFuncOptions().alpha(0.5))); });
  add("act.selu", [](In i) { return outs(F::selu(i[0])); });
  add("act.silu", [](In i) { return outs(F::silu(i[0])); });
  add("act.mish", [](In i) { return outs(F::mish(i[0])); });
  add("act.softplus",
      [](In i) { return outs(F::softplus(i[0], F::SoftplusFuncOptions().beta(2).threshold(1))); });
  add("act.hardswish", [](In i) { return outs(F::hardswish(i[0])); });
  add("act.hardsigmoid", [](In i) { return outs(F::hardsigmoid(i[0])); });
  add("act.leaky_relu", [](In i) {
    return outs(F::leaky_relu(i[0], F::LeakyReLUFuncOptions().negative_slope(0.2)));
  });
  add("act.relu6", [](In i) { return outs(F::relu6(i[0])); });
  add("act.hardtanh", [](In i) {
    return outs(F::hardtanh(i[0], F::HardtanhFuncOptions().min_val(-0.5).max_val(0.7)));
  });
  add("cross_entropy.weight_ignore_smoothing",
      [](In i) { return outs(tp::cross_entropy(i[0], i[1], i[2], tp::kMean, 1, 0.1)); });
  add("cross_entropy.probs",
      [](In i) { return outs(tp::cross_entropy(i[0], i[1], {}, tp::kMean, -100, 0.2)); });
  add("cross_entropy.spatial_sum",
      [](In i) { return outs(tp::cross_entropy(i[0], i[1], {}, tp::kSum)); });
  add("nll_loss.weight", [](In i) { return outs(tp::nll_loss(i[0], i[1], i[2])); });
  add("mse_loss.sum", [](In i) { return outs(tp::mse_loss(i[0], i[1], tp::kSum)); });
  add("l1_loss.none", [](In i) { return outs(tp::l1_loss(i[0], i[1], tp::kNone)); });
  add("smooth_l1_loss", [](In i) { return outs(tp::smooth_l1_loss(i[0], i[1], tp::kMean, 0.5)); });
  add("huber_loss", [](In i) { return outs(tp::huber_loss(i[0], i[1], tp::kMean, 1.5)); });
  add("binary_cross_entropy.weight",
      [](In i) { return outs(tp::binary_cross_entropy(i[0], i[1], i[2])); });
  add("bce_with_logits.pos_weight",
      [](In i) { return outs(tp::binary_cross_entropy_with_logits(i[0], i[1], {}, i[2])); });
  add("kl_div.batchmean_log_target", [](In i) {
    return outs(
        F::kl_div(i[0], i[1], F::KLDivFuncOptions().reduction(tp::kBatchMean).log_target(true)));
  });
  add("cosine_similarity", [](In i) { return outs(tp::cosine_similarity(i[0], i[1], 1)); });
  add("normalize.p1_dim0", [](In i) { return outs(tp::normalize(i[0], 1.0, 0)); });
  // ---- every dtype (forward), empty and 0-d inputs ----
  for (const char* n : {"bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
                        "float32", "float64"}) {
    const std::string d = std::string("dtype.") + n + ".";
    add(d + "gather", [](In i) { return outs(tp::gather(i[0], 1, i[1])); });
    add(d + "index_select", [](In i) { return outs(tp::index_select(i[0], 0, i[1])); });
    add(d + "take", [](In i) { return outs(tp::take(i[0], i[1])); });
    add(d + "masked_select", [](In i) { return outs(tp::masked_select(i[0], i[1])); });
    add(d + "flip_roll", [](In i) { return outs(tp::roll(tp::flip(i[0], {1}), 2, 2)); });
    add(d + "tril", [](In i) { return outs(tp::tril(i[0], 1)); });
    add(d + "repeat_interleave", [](In i) { return outs(tp::repeat_interleave(i[0], i[1], 1)); });
    add(d + "nonzero", [](In i) { return outs(tp::nonzero(i[0])); });
    add(d + "index_fill", [](In i) { return outs(tp::index_fill(i[0], 1, i[1], 1)); });
    const std::string_view sv(n);
    if (sv != "bool" && sv != "float16" && sv != "bfloat16") {
      add(d + "scatter_add", [](In i) { return outs(tp::scatter_add(i[0], 1, i[1], i[2])); });
      add(d + "unique", [](In i) { return outs(tp::unique(i[0], true, true, true)); });
    }
  }
  add("empty.gather", [](In i) { return outs(tp::gather(i[0], 1, i[1])); });
  add("empty.index_select", [](In i) { return outs(tp::index_select(i[0], 0, i[1])); });
  add("empty.nonzero", [](In i) { return outs(tp::nonzero(i[0])); });
  add("empty.unique", [](In i) { return outs(tp::unique(i[0], true, true, true)); });
  add("empty.cdist", [](In i) { return outs(tp::cdist(i[0], i[1])); });
  add("empty.masked_select", [](In i) { return outs(tp::masked_select(i[0], i[1])); });
  add("0d.gather", [](In i) { return outs(tp::gather(i[0], 0, i[1])); });
  add("0d.take", [](In i) { return outs(tp::take(i[0], i[1])); });
  add("0d.index_select", [](In i) { return outs(tp::index_select(i[0], 0, i[1])); });
  add("0d.nonzero", [](In i) { return outs(tp::nonzero(i[0])); });
  add("0d.flip", [](In i) { return outs(tp::flip(i[0], {0})); });
  add("0d.masked_select", [](In i) { return outs(tp::masked_select(i[0], i[1])); });
  return c;
}

// The same values in a tensor that is not contiguous: every other element of a buffer twice as
// long in the last dim (0-d and empty tensors are returned as copies).
Tensor strided_copy(const Tensor& t) {
  if (t.dim() == 0 || t.numel() == 0) return t.clone();
  std::vector<int64_t> sizes(t.sizes().begin(), t.sizes().end());
  sizes.back() *= 2;
  Tensor v = tp::empty(sizes, t.options()).slice(-1, 0, sizes.back(), 2);
  v.copy_(t);
  return v;
}

// Same dtype and shape; integers and bools exactly, floats to rounding (NaN matches NaN).
// `rtol` for doubles: 1e-9 unless the case says otherwise.
void check_same(const Tensor& got, const Tensor& want, const std::string& what,
                double rtol = 1e-9) {
  INFO(what << ": got " << got << "\nwant " << want);
  REQUIRE(got.dtype() == want.dtype());
  REQUIRE(got.sizes() == want.sizes());
  if (tp::is_floating_point(want.dtype())) {
    if (want.dtype() != tp::kDouble) rtol = 1e-5;
    CHECK(tp::allclose(got, want, rtol, rtol * 1e-2, true));
  } else {
    CHECK(tp::equal(got, want));
  }
}

std::string golden_path() {
  return (std::filesystem::path(__FILE__).parent_path() / "data" / "torch_golden.safetensors")
      .string();
}

TEST_CASE("ops against torch 1.13: outputs and gradients of the ops issue's ops", "[ops]") {
  const std::map<std::string, Tensor> file = tp::safetensors::load_file(golden_path());
  const std::map<std::string, Fn> table = cases();
  std::set<std::string> in_file;
  for (const auto& [key, t] : file) in_file.insert(key.substr(0, key.rfind('.')));
  for (const std::string& name : in_file) {
    INFO("case in the file, not in the table: " << name);
    CHECK(table.count(name) == 1);
  }
  int checked = 0;
  for (const auto& [name, fn] : table) {
    for (bool contiguous : {true, false}) {
      INFO("case " << name << (contiguous ? "" : ", non-contiguous inputs"));
      REQUIRE(in_file.count(name) == 1);
      const auto get = [&](const std::string& key) -> const Tensor* {
        const auto it = file.find(name + "." + key);
        return it == file.end() ? nullptr : &it->second;
      };
      std::vector<Tensor> inputs;
      for (int k = 0; const Tensor* t = get("in" + std::to_string(k)); ++k) {
        // A copy that owns its bytes (the file is a read-only mapping), requiring grad where
        // torch's did.
        Tensor x = contiguous ? t->clone() : strided_copy(*t);
        if (!contiguous && t->dim() > 0 && t->numel() > 1) REQUIRE_FALSE(x.is_contiguous());
        inputs.push_back(x.requires_grad_(get("grad" + std::to_string(k)) != nullptr));
      }
      const Outs got = fn(inputs);
      std::size_t nout = 0;
      while (get("out" + std::to_string(nout)) != nullptr) ++nout;
      REQUIRE(got.size() == nout);
      for (std::size_t k = 0; k < nout; ++k) {
        check_same(got[k].detach(), *get("out" + std::to_string(k)), "out" + std::to_string(k));
      }
      if (const Tensor* w = get("w")) {
        got[0].mul(*w).sum().backward();
        for (std::size_t k = 0; k < inputs.size(); ++k) {
          if (const Tensor* g = get("grad" + std::to_string(k))) {
            REQUIRE(inputs[k].grad().defined());
            // torch 1.13's hardsigmoid_backward scales a double gradient by the float
            // constant 1.0f / 6.0f (relative error ~1e-8); ours divides by 6 exactly.
            check_same(inputs[k].grad(), *g, "grad" + std::to_string(k),
                       name == "act.hardsigmoid" ? 1e-7 : 1e-9);
          }
        }
      }
      ++checked;
    }
  }
  CHECK(checked == 2 * 252);
}

}  // namespace ops_torch_golden_test
