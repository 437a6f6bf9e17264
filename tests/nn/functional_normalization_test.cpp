// nn::functional normalisation (nn/functional/normalization.hpp): layer_norm, group_norm,
// batch_norm (training and evaluation, running statistics) and instance_norm against torch 1.13
// (values and the gradients of input, weight and bias), node names, gradcheck of the closed-form
// backward nodes on contiguous, strided and broadcast inputs (and second derivatives), the
// returned statistics, dtypes, empty inputs and every error path.
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <cmath>
#include <functional>
#include <string>
#include <tuple>
#include <vector>

namespace nn_functional_normalization_test {

using namespace tensorplay;
namespace F = tensorplay::nn::functional;

namespace {

using V = std::vector<double>;

V values(const Tensor& t) {
  Tensor c = t.to(kDouble).contiguous();
  const double* p = c.data_ptr<double>();
  return V(p, p + c.numel());
}

Tensor from(const V& v, IntArrayRef shape, DType dt = kDouble) {
  Tensor t = empty({int64_t(v.size())}, dtype(kDouble));
  for (std::size_t i = 0; i < v.size(); ++i) t.data_ptr<double>()[i] = v[i];
  return t.reshape(shape).to(dt);
}

void require_close(const V& got, const V& want, double tol) {
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << ", want " << want[i]);
    REQUIRE(std::abs(got[i] - want[i]) <= tol * (1 + std::abs(want[i])));
  }
}

std::string node(const Tensor& t) { return t.grad_fn() ? t.grad_fn()->name() : "None"; }

// x = 2 sin(1.3 k) and the output weights cos(0.7 k), k = 0..23, shaped [2, 3, 4].
Tensor x0() { return arange(24, dtype(kDouble)).mul(1.3).sin().mul(2).reshape({2, 3, 4}); }
Tensor gw() { return arange(24, dtype(kDouble)).mul(0.7).cos().reshape({2, 3, 4}); }
const V kW4{1.5, -0.5, 2, 0.25}, kB4{0.1, 0.2, -0.3, 0.4};
const V kW3{1.5, -0.5, 2}, kB3{0.1, 0.2, -0.3};
const V kRunningMean{0.5, -0.5, 0.1}, kRunningVar{2, 0.5, 1.5};

struct Case {
  const char* name;
  V out, grad_input, grad_weight, grad_bias;
};
// torch 1.13: y = F.<op>(x, ...), then (y * gw).sum().backward() (see each op below).
const std::vector<Case> kCases{
    {"layer_norm",
     {-0.3828500442230549, -0.42300549166399687, 0.7338573782930207,  0.03974008925188316,
      -2.2253681249234742, 0.16087018826117647,  2.17918142209168,    0.4580987705230407,
      -1.4120841673615474, 0.6615957683842955,   0.9009533101005491,  0.7326927483231703,
      0.8825646313558455,  0.8035035686970233,   -1.6326761817178874, 0.7379088685039401,
      2.4170373090152757,  0.17278366898252462,  -2.7144099094287184, 0.3020201883339728,
      1.460403239883581,   -0.29574648876426163, -1.31256469621149,   0.05196346933037521},
     {0.910219065470814,    -0.42941952021705054, 0.06905450642046967, -0.549854051674233,
      -0.40549766003086796, 0.6803843782430805,   -0.613566033544724,  0.33867931533251167,
      0.43355868738731423,  -0.6416899225979724,  0.591988124282915,   -0.3838568890722571,
      -0.18414248327571026, 0.8965725115252139,   -1.0610568300959453, 0.3486268018464417,
      0.40729748824112144,  -0.6387522740087097,  0.6177907378650558,  -0.38633595209746735,
      0.1485068552659949,   0.16480306941038,     -0.828858353236609,  0.5155484285602342},
     {0.5236356877223672, 0.6143034516227808, -0.17124184111786683, 1.3276309116227032},
     {0.6537969657514914, 0.133008443797916, -0.45033602758808355, -0.8218804285048698}},
    {"layer_norm2",
     {-0.1245899319072056, -0.413378435541258,   0.8733776447601493,  0.11694260587255778,
      -2.017668266323844,  0.12120932431727663,  2.253469294175399,   0.47652971070511385,
      -1.8984674514106965, 0.8191261484088121,   0.6009994109161767,  0.7149796832235691,
      0.5331736092449959,  0.7954423006743538,   -1.7562155113858602, 0.6497859450185284,
      2.2906636893006147,  0.2100076817151306,   -2.8467110196636893, 0.2841420677677429,
      1.9348236142089377,  -0.45782220394330125, -0.9431078891351428, 0.07753002683414878},
     {0.9749545309352808,  -0.392281946259364,   0.13422071509271788, -0.1704146229467798,
      -1.085163067023254,  0.2329269845291374,   -0.8203112541657438, -0.07065703368314105,
      0.7539773837682403,  -0.435603712567543,   0.9706403530859354,  -0.09228833076548608,
      -0.4417936853930345, 0.43282108205687525,  -1.2270150771666755, 0.03842030218224242,
      0.3465293410391735,  -0.17047113811719972, 1.5198713117457123,  0.23668171344038885,
      0.2725134071772296,  0.3177321950499093,   -1.2538643320064198, -0.07142512000820159},
     {-0.29968804830060397, 2.0669024708884947, 0.7771684077313802, 0.09647192741095535,
      1.6266864897163624, -0.1633015929374892, -1.8985685128795549, -0.2871185825673277,
      -0.8660363251456688, -1.9400845673462774, 0.6460585129380931, 1.3852589188829108},
     {0.4807113458833159, -0.1828794148466234, -0.7604591292045129, -0.9803830325958496,
      -0.7392174768499077, -0.15038639114975805, 0.5091737641603045, 0.9292615421262456,
      0.9123030967180832, 0.46627424979429744, -0.19905066254387516, -0.7707589380352657}},
    {"group_norm",
     {-0.382850044223055,  1.9690164749919907,   -0.05846434457325522, 0.9205198214962337,
      -3.4004908332312995, -0.14348075304470584, 1.95938606656876,     0.4485926231382443,
      0.7040280557871825,  0.6615957683842953,   0.9009533101005492,   2.3615419865853626,
      0.8825646313558455,  -1.71051070609107,    0.5331690454294719,   -0.47581773700788005,
      2.7893830786870346,  -0.19113467593009847, -1.710807432071539,   -0.48787886999616326,
      -0.2534677466278603, -0.2957464887642617,  -1.3125646962114899,  -3.0842922453569983},
     {0.6831822458238317,    0.22430821456075511,  -0.6983263813859317,  -0.20916407899865525,
      -0.062185438146695304, -0.6354914402486526,  -0.2073064931255547,  0.904983371520903,
      -0.04744293068146435,  -0.14933112532795353, 0.6128238334390061,   -0.41604977742958826,
      -0.48085278259092135,  -0.5407037479226575,  0.8833277702876997,   0.13822876022587877,
      -0.10743175622316448,  0.3197299238844352,   -0.08013847503337457, -0.13215969262789662,
      -0.017970059847818742, 0.1491939516957828,   -0.3547943915647255,  0.22357049971676168},
     {-0.5579077641721726, -1.3173182631436502, 4.169554237165807},
     {1.7362672373232426, -0.36226481528798216, -1.8594134685788066}},
    {"batch_norm_train",
     {0.10860748330991854,  2.367738564952924,   1.3172373194077205,  -1.5039094675393092,
      0.8342962387368845,   0.05253915137026497, -0.5049530185241596, -0.02145293598581635,
      -2.470433210512303,   -2.3000818531037623, 0.7584257198217077,  2.2243687486071564,
      0.3612436279188976,   -2.0697902176657355, -1.3094663278780274, 1.5283390174936118,
      -0.45531954059484225, 0.28292768725046213, 0.90792008776054,    0.5040423299866668,
      1.6442745390708886,   1.8118486621960481,  -1.1564088373046943, -2.911993768775041},
     {1.3807601924482453,   0.32344893487177057,  -0.010450595670709776, 0.17456694074430235,
      0.439803996022068,    0.3389732892139323,   0.10977232482039348,   -0.06993421527551,
      0.9258667384803911,   1.2169049946847816,   0.9146856168050592,    0.14547713464369974,
      -0.48769010513642924, -0.14882003231743685, -0.3916102130802592,   -0.8402051218594833,
      -0.13062373405778221, -0.24479988216276885, -0.24174481336911796,  -0.20144696519121472,
      0.12092957029743416,  -0.7453377688284887,  -1.3033252700962075,   -1.2752010159866694},
     {3.5417067771815027, -1.420501382514363, -0.06451984988059234},
     {-1.44301023076367, 0.5488314382868844, 0.4087677459332397}},
    {"batch_norm_eval",
     {-0.4303287600696678,  1.6136817108394481,    0.6632120532594916,  -1.8892974577413268,
      1.0958312070005414,   -0.45777241759331355,  -1.5656892754349712, -0.6048185742132702,
      -3.166959686108818,   -2.951918440443922,    0.9089564499162831,  2.759474225526265,
      -0.20174931680190245, -2.401293502567158,    -1.7133697230943168, 0.854212073054909,
      -1.467051536860784,   8.395517595127364e-05, 1.2421455552145158,  0.4395101093575771,
      2.0271983967959555,   2.23873382995142,      -1.508214828731874,  -3.7243590161158338},
     {1.0606575201393356,  0.8112356176631108,  0.18027692829373773, -0.535468817356888,
      0.6662451440541409,  0.6621682522213983,  0.3466632847045816,  -0.13188284237204353,
      1.2664895545508414,  1.6327568735223927,  1.2311131223464578,  0.25045763305781,
      -0.5507874161118953, -1.0052080442988631, -0.9868636224431149, -0.5043818187829071,
      -0.1435446803804634, -0.5558300786176509, -0.7066999057964035, -0.5251977247884755,
      0.22329019800510955, -0.8713367501218721, -1.5561604096542512, -1.5090975128490953},
     {3.722127671903956, -2.4226549389032117, -0.10743052979529673},
     {-1.44301023076367, 0.5488314382868844, 0.4087677459332397}},
    {"instance_norm",
     {-0.38285004422305496, 1.9690164749919907,  0.8753930337197656,  -2.061559464488701,
      0.9751227083078249,   0.16087018826117647, -0.4197953555229199, 0.08380245895391861,
      -2.31611222314873,    -2.1463830735371814, 0.9009533101005491,  2.3615419865853626,
      0.8825646313558453,   -1.7105107060910696, -0.8995071362884154, 2.12745321102364,
      -0.5723457696717587,  0.1727836689825246,  0.8036024773571796,  0.3959596233320544,
      1.5138709865114413,   1.6829859550570467,  -1.3125646962114899, -3.0842922453569983},
     {0.9261834866644749,   -0.05275418688175203,  -0.45698582475357463, -0.41644347502914825,
      0.028776051071821115, 0.15081435357442186,   0.074008976874185,    -0.25359938152042794,
      -0.20524019533658394, 0.11250949398436151,   0.3100595835697609,   -0.21732888221753863,
      0.11011665563556049,  0.03385594825589699,   -0.08821785751237611, -0.05575474637908133,
      0.014037788646632712, -0.042658650346691966, 0.009987723950282882, 0.018633137749776325,
      0.5169382262699899,   -0.3958188243738203,   -0.2765508263924752,  0.15543142449630598},
     {2.2966805457759567, -0.31824137082067083, 0.3158890348946981},
     {-1.44301023076367, 0.5488314382868844, 0.4087677459332397}},
};

using Op = std::function<Tensor(const Tensor&, const Tensor&, const Tensor&)>;
Op op_named(const std::string& n) {
  if (n == "layer_norm") {
    return [](const Tensor& x, const Tensor& w, const Tensor& b) {
      return F::layer_norm(x, F::LayerNormFuncOptions({4}).weight(w).bias(b).eps(1e-5));
    };
  }
  if (n == "layer_norm2") {  // normalized_shape [3, 4], weight and bias kW4 repeated 3 times
    return [](const Tensor& x, const Tensor& w, const Tensor& b) {
      return layer_norm(x, {3, 4}, w.unsqueeze(0).expand({3, 4}), b.unsqueeze(0).expand({3, 4}),
                        1e-3);
    };
  }
  if (n == "group_norm") {  // x viewed as [2, 6, 2], 3 groups, weight and bias repeated twice
    return [](const Tensor& x, const Tensor& w, const Tensor& b) {
      const Tensor w6 = w.unsqueeze(0).expand({2, 3}).reshape({6});
      const Tensor b6 = b.unsqueeze(0).expand({2, 3}).reshape({6});
      return F::group_norm(x.reshape({2, 6, 2}), F::GroupNormFuncOptions(3).weight(w6).bias(b6))
          .reshape({2, 3, 4});
    };
  }
  if (n == "batch_norm_train") {
    return [](const Tensor& x, const Tensor& w, const Tensor& b) {
      return F::batch_norm(x, {}, {}, F::BatchNormFuncOptions().weight(w).bias(b).training(true));
    };
  }
  if (n == "batch_norm_eval") {
    return [](const Tensor& x, const Tensor& w, const Tensor& b) {
      return F::batch_norm(x, from(kRunningMean, {3}), from(kRunningVar, {3}),
                           F::BatchNormFuncOptions().weight(w).bias(b));
    };
  }
  return [](const Tensor& x, const Tensor& w, const Tensor& b) {
    return F::instance_norm(x, F::InstanceNormFuncOptions().weight(w).bias(b));
  };
}

bool four_wide(const std::string& n) { return n == "layer_norm" || n == "layer_norm2"; }

}  // namespace

TEST_CASE("normalisation: values and gradients against torch 1.13", "[nn]") {
  for (const Case& c : kCases) {
    INFO(c.name);
    const bool wide = four_wide(c.name);
    const Tensor x = x0().requires_grad_();
    const Tensor w = from(wide ? kW4 : kW3, {wide ? 4 : 3}).requires_grad_();
    const Tensor b = from(wide ? kB4 : kB3, {wide ? 4 : 3}).requires_grad_();
    const Tensor y = op_named(c.name)(x, w, b);
    require_close(values(y), c.out, 1e-10);
    y.mul(gw()).sum().backward();
    require_close(values(x.grad()), c.grad_input, 1e-9);
    // layer_norm2's torch leaves were kW4 / kB4 repeated to [3, 4]: sum their rows
    const auto rows = [&](const V& v) {
      V r(4, 0.0);
      for (std::size_t i = 0; i < v.size(); ++i) r[i % 4] += v[i];
      return v.size() == 12 ? r : v;
    };
    require_close(values(w.grad()), rows(c.grad_weight), 1e-9);
    require_close(values(b.grad()), rows(c.grad_bias), 1e-9);
    // float32 input, weight and bias: the same within float rounding
    const Tensor yf =
        op_named(c.name)(x0().to(kFloat), w.detach().to(kFloat), b.detach().to(kFloat));
    CHECK(yf.dtype() == kFloat);
    require_close(values(yf), c.out, 1e-5);
  }
}

TEST_CASE("normalisation: node names and returned statistics", "[nn]") {
  const Tensor x = x0().requires_grad_();
  CHECK(node(layer_norm(x, {4})) == "NativeLayerNormBackward0");
  CHECK(node(group_norm(x, 3)) == "NativeGroupNormBackward0");
  CHECK(node(batch_norm(x, {}, {}, {}, {}, true, 0.1, 1e-5)) == "NativeBatchNormBackward0");
  CHECK(node(batch_norm(x, {}, {}, from(kRunningMean, {3}), from(kRunningVar, {3}), false, 0.1,
                        1e-5)) == "NativeBatchNormBackward0");
  CHECK(node(instance_norm(x, {}, {}, {}, {}, true, 0.1, 1e-5)) == "ViewBackward0");
  // Without any input requiring grad: no node.
  CHECK(node(layer_norm(x0(), {4})) == "None");

  const auto [y, mean, rstd] = native_layer_norm(x0(), {4}, {}, {}, 1e-5);
  CHECK(mean.sizes() == IntArrayRef{2, 3, 1});
  CHECK(rstd.sizes() == IntArrayRef{2, 3, 1});
  require_close(values(mean), values(x0().mean({2}, true)), 1e-12);
  const V var = values(x0().var({2}, std::optional<int64_t>(0), true));
  const V rs = values(rstd);
  for (std::size_t i = 0; i < rs.size(); ++i)
    CHECK(std::abs(rs[i] - 1 / std::sqrt(var[i] + 1e-5)) < 1e-12);
  const auto [gy, gmean, grstd] = native_group_norm(x0(), {}, {}, 2, 3, 4, 3, 1e-5);
  CHECK(gmean.sizes() == IntArrayRef{2, 3});
  CHECK(grstd.sizes() == IntArrayRef{2, 3});
  const auto [by, bmean, binvstd] = native_batch_norm(x0(), {}, {}, {}, {}, true, 0.1, 1e-5);
  CHECK(bmean.sizes() == IntArrayRef{3});
  require_close(values(bmean), values(x0().mean({0, 2})), 1e-12);
  const auto [ey, emean, einvstd] = native_batch_norm(x0(), {}, {}, from(kRunningMean, {3}),
                                                      from(kRunningVar, {3}), false, 0.1, 1e-5);
  CHECK(emean.numel() == 0);
  CHECK(einvstd.numel() == 0);
}

TEST_CASE("normalisation: running statistics", "[nn]") {
  // torch 1.13, momentum 0.3, x as above
  const Tensor rm = from(kRunningMean, {3}), rv = from(kRunningVar, {3});
  F::batch_norm(x0(), rm, rv, F::BatchNormFuncOptions().training(true).momentum(0.3));
  require_close(values(rm), V{0.34779725636998043, -0.3452608096586825, 0.07664352299676527},
                1e-12);
  require_close(values(rv), V{1.9613401253030085, 1.0270589599122788, 1.869516828947483}, 1e-12);
  const Tensor im = from(kRunningMean, {3}), iv = from(kRunningVar, {3});
  F::instance_norm(x0(),
                   F::InstanceNormFuncOptions().running_mean(im).running_var(iv).momentum(0.3));
  require_close(values(im), V{0.3477972563699804, -0.34526080965868255, 0.0766435229967653}, 1e-12);
  require_close(values(iv), V{1.9899367018858527, 1.101745254314379, 2.0009427457899145}, 1e-12);
  // Evaluation leaves them alone; so does an empty batch in training.
  F::batch_norm(x0(), rm, rv);
  require_close(values(rm), V{0.34779725636998043, -0.3452608096586825, 0.07664352299676527},
                1e-12);
  const Tensor em = from(kRunningMean, {3});
  const Tensor ey = F::batch_norm(empty({0, 3}, dtype(kDouble)), em, {},
                                  F::BatchNormFuncOptions().training(true));
  CHECK(ey.sizes() == IntArrayRef{0, 3});
  CHECK(values(em) == kRunningMean);
  // instance_norm from running statistics (use_input_stats false) is batch_norm in evaluation
  // over each (sample, channel).
  const Tensor y = F::instance_norm(x0(), F::InstanceNormFuncOptions()
                                              .running_mean(from(kRunningMean, {3}))
                                              .running_var(from(kRunningVar, {3}))
                                              .use_input_stats(false));
  require_close(values(y),
                values(batch_norm(x0(), {}, {}, from(kRunningMean, {3}), from(kRunningVar, {3}),
                                  false, 0.1, 1e-5)),
                1e-12);
}

TEST_CASE("normalisation: gradcheck on contiguous, strided and broadcast inputs", "[nn]") {
  manual_seed(3);
  using Fn = std::function<Tensor(const std::vector<Tensor>&)>;
  const std::vector<std::pair<const char*, Fn>> ops{
      {"layer_norm",
       [](const std::vector<Tensor>& v) { return layer_norm(v[0], {5}, v[1], v[2]); }},
      {"layer_norm 2d",
       [](const std::vector<Tensor>& v) {
         return layer_norm(v[0], {4, 5}, v[1].unsqueeze(0).expand({4, 5}), {}, 1e-3);
       }},
      {"group_norm",
       [](const std::vector<Tensor>& v) {
         const Tensor x = v[0].reshape({2, 2, 5}).mul(1);
         return group_norm(x.transpose(1, 2), 5, v[1], v[2]);
       }},
      {"batch_norm train",
       [](const std::vector<Tensor>& v) {
         return batch_norm(v[0], v[1], v[2], {}, {}, true, 0.1, 1e-5);
       }},
      {"batch_norm eval",
       [](const std::vector<Tensor>& v) {
         return batch_norm(v[0], v[1], v[2], full({5}, 0.3, dtype(kDouble)),
                           full({5}, 1.7, dtype(kDouble)), false, 0.1, 1e-5);
       }},
      {"batch_norm 3d",
       [](const std::vector<Tensor>& v) {
         return batch_norm(v[0].reshape({2, 2, 5}).transpose(1, 2), v[1], v[2], {}, {}, true, 0.1,
                           1e-5);
       }},
      {"instance_norm",
       [](const std::vector<Tensor>& v) {
         return instance_norm(v[0].reshape({2, 5, 2}), v[1], v[2], {}, {}, true, 0.1, 1e-5);
       }},
      {"no weight", [](const std::vector<Tensor>& v) { return layer_norm(v[0], {5}, {}, v[2]); }},
  };
  for (const auto& [name, f] : ops) {
    for (const char* layout : {"contiguous", "transposed", "sliced", "broadcast"}) {
      INFO(name << " " << layout);
      const std::string l = layout;
      Tensor x;
      if (l == "transposed") {
        x = randn({5, 4}, dtype(kDouble)).t();
      } else if (l == "sliced") {
        x = randn({4, 10}, dtype(kDouble)).slice(1, 1, 10, 2);
      } else if (l == "broadcast") {  // a row repeated: varies along the normalised dim only
        x = randn({1, 5}, dtype(kDouble)).expand({4, 5}).add(randn({4, 1}, dtype(kDouble)));
      } else {
        x = randn({4, 5}, dtype(kDouble));
      }
      x = x.detach().requires_grad_();
      const Tensor w = randn({5}, dtype(kDouble)).requires_grad_();
      const Tensor b = randn({5}, dtype(kDouble)).requires_grad_();
      CHECK(autograd::gradcheck(f, {x, w, b}));
    }
  }
  // Second derivatives through the backward formulas.
  for (const auto& [name, f] : ops) {
    INFO(name << " second derivative");
    const Tensor x = randn({4, 5}, dtype(kDouble)).requires_grad_();
    const Tensor w = randn({5}, dtype(kDouble)).requires_grad_();
    const Tensor b = randn({5}, dtype(kDouble)).requires_grad_();
    const Tensor g = randn(f({x, w, b}).sizes(), dtype(kDouble));
    const bool weighted = std::string(name) != "no weight";
    CHECK(autograd::gradcheck(
        [&](const std::vector<Tensor>& v) {
          AutoGradMode on(true);
          const auto gs =
              autograd::grad({f(v).mul(g).sum()}, {v[0], weighted ? v[1] : v[2]}, {}, true, true);
          return gs[0].sum().add(gs[1].square().sum());
        },
        {x, w, b}));
  }
}

TEST_CASE("normalisation: dtypes and empty inputs", "[nn]") {
  for (DType dt : {kHalf, kBFloat16}) {
    INFO(dt);
    const Tensor x = x0().to(dt);
    const Tensor y = layer_norm(x, {4});
    CHECK(y.dtype() == dt);
    require_close(values(y), values(layer_norm(x.to(kDouble), {4}).to(dt)), 2e-2);
    CHECK(group_norm(x, 3).dtype() == dt);
    CHECK(batch_norm(x, {}, {}, {}, {}, true, 0.1, 1e-5).dtype() == dt);
    // the affine parameters in float32: the output keeps the input's dtype
    CHECK(layer_norm(x, {4}, ones({4})).dtype() == dt);
  }
  CHECK(layer_norm(empty({0, 4}), {4}).sizes() == IntArrayRef{0, 4});
  CHECK(group_norm(empty({0, 4, 2}), 2).sizes() == IntArrayRef{0, 4, 2});
  CHECK(instance_norm(empty({0, 3, 4}), {}, {}, {}, {}, true, 0.1, 1e-5).sizes() ==
        IntArrayRef{0, 3, 4});
}

TEST_CASE("normalisation: error paths", "[nn]") {
  const Tensor x = ones({2, 3});
  REQUIRE_THROWS_WITH(layer_norm(x, {4}),
                      "Given normalized_shape=[4], expected input with shape "
                      "[*, 4], but got input of size[2, 3]");
  REQUIRE_THROWS_WITH(layer_norm(x, {2, 3, 1}),
                      Catch::Contains("expected input with shape [*, 2, 3, 1]"));
  REQUIRE_THROWS_WITH(layer_norm(x, {3}, ones({4})),
                      "Expected weight to be of same shape as normalized_shape, but got weight of "
                      "shape [4] and normalized_shape = [3]");
  REQUIRE_THROWS_WITH(layer_norm(x, {3}, {}, ones({4})),
                      "Expected bias to be of same shape as normalized_shape, but got bias of "
                      "shape [4] and normalized_shape = [3]");
  REQUIRE_THROWS_WITH(layer_norm(x, {}),
                      "Expected normalized_shape to be at least 1-dimensional, i.e., containing at "
                      "least one element, but got normalized_shape = []");
  REQUIRE_THROWS_AS(layer_norm(ones({2, 3}, dtype(kLong)), {3}), Error);
  REQUIRE_THROWS_WITH(layer_norm(ones({2, 3}, dtype(kLong)), {3}),
                      "\"LayerNormKernelImpl\" not implemented for 'Long'");

  const Tensor g = ones({2, 4, 3});
  REQUIRE_THROWS_WITH(group_norm(g, 3),
                      "Expected number of channels in input to be divisible by num_groups, but got "
                      "input of shape [2, 4, 3] and num_groups=3");
  REQUIRE_THROWS_WITH(group_norm(g, 2, ones({3})),
                      "Expected weight to be a vector of size equal to the number of channels in "
                      "input, but got weight of shape [3] and input of shape [2, 4, 3]");
  REQUIRE_THROWS_WITH(group_norm(g, 2, {}, ones({3})),
                      Catch::Contains("Expected bias to be a vector of size equal to the number of "
                                      "channels in input, but got bias of shape [3]"));
  REQUIRE_THROWS_AS(group_norm(ones({4}), 2), IndexError);
  REQUIRE_THROWS_WITH(group_norm(ones({2, 4}, dtype(kInt)), 2),
                      "\"GroupNormKernelImpl\" not implemented for 'Int'");

  REQUIRE_THROWS_WITH(batch_norm(x, {}, {}, {}, {}, false, 0.1, 1e-5),
                      "running_mean must be defined in evaluation mode");
  REQUIRE_THROWS_WITH(batch_norm(x, {}, {}, zeros({3}), {}, false, 0.1, 1e-5),
                      "running_var must be defined in evaluation mode");
  REQUIRE_THROWS_WITH(batch_norm(x, {}, {}, zeros({4}), ones({3}), false, 0.1, 1e-5),
                      "running_mean should contain 3 elements not 4");
  REQUIRE_THROWS_WITH(batch_norm(x, {}, {}, zeros({3}), ones({2}), false, 0.1, 1e-5),
                      "running_var should contain 3 elements not 2");
  REQUIRE_THROWS_WITH(batch_norm(x, ones({4}), {}, zeros({3}), ones({3}), false, 0.1, 1e-5),
                      "weight should contain 3 elements not 4");
  REQUIRE_THROWS_WITH(batch_norm(x, {}, ones({4}), zeros({3}), ones({3}), false, 0.1, 1e-5),
                      "bias should contain 3 elements not 4");
  REQUIRE_THROWS_WITH(batch_norm(ones({3}), {}, {}, zeros({3}), ones({3}), false, 0.1, 1e-5),
                      "running_mean should contain 0 elements not 3");
  REQUIRE_THROWS_WITH(batch_norm(ones({2, 3}, dtype(kLong)), {}, {}, {}, {}, true, 0.1, 1e-5),
                      "\"batch_norm\" not implemented for 'Long'");
  REQUIRE_THROWS_AS(F::batch_norm(ones({1, 3}), {}, {}, F::BatchNormFuncOptions().training(true)),
                    ValueError);
  REQUIRE_THROWS_WITH(
      F::batch_norm(ones({1, 3}), {}, {}, F::BatchNormFuncOptions().training(true)),
      "Expected more than 1 value per channel when training, got input size [1, 3]");
  REQUIRE_THROWS_AS(F::instance_norm(ones({2, 3, 1})), ValueError);
  REQUIRE_THROWS_WITH(F::instance_norm(ones({2, 3})),
                      "Expected more than 1 spatial element when training, got input size [2, 3]");
  REQUIRE_THROWS_WITH(instance_norm(ones({2, 3, 4}), {}, {}, {}, {}, false, 0.1, 1e-5),
                      "Expected running_mean and running_var to be defined when use_input_stats is "
                      "false");
}

}  // namespace nn_functional_normalization_test
