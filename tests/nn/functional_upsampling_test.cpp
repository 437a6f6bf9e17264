// nn::functional upsampling (nn/functional/upsampling.hpp): upsample_nearest1d/2d/3d,
// _upsample_nearest_exact*, upsample_linear1d, upsample_bilinear2d, upsample_bicubic2d,
// upsample_trilinear3d (both overloads) and F::interpolate against torch 1.13 (values, gradients,
// node names), gradcheck and second derivatives on contiguous and strided inputs, channels-last
// layouts, dtypes, empty batches and every error path.
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <functional>
#include <string>
#include <vector>

#include "resample_test_util.hpp"

namespace nn_functional_upsampling_test {

using namespace tensorplay;
namespace F = tensorplay::nn::functional;

namespace {

using V = std::vector<double>;
using testing::ResampleCase;
V values(const Tensor& t) { return testing::resample_values(t); }
std::string node(const Tensor& t) { return testing::resample_node(t); }
Tensor x_of(IntArrayRef shape) { return testing::resample_input(shape); }

// Generated with torch 1.13: y = <op>(x), (y * weights).sum().backward().
const std::vector<ResampleCase> kCases{
    {"nearest 1d scale",
     {1, 2, 3},
     [](const Tensor& x) {
       return F::interpolate(x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{2.5}));
     },
     {0.0, 0.0, 0.0, 1.927116370834, 1.927116370834, 1.031002743643, 1.031002743643,
      -1.375532318368, -1.375532318368, -1.375532318368, -1.76690931144, -1.76690931144,
      0.430239976176, 0.430239976176},
     {1.934809330185, -1.447068445269, -1.426717508631, 1.961936884316, 0.907276116381,
      -1.467010256248},
     "UpsampleNearest1DBackward1"},
    {"nearest 1d size",
     {1, 2, 5},
     [](const Tensor& x) {
       return F::interpolate(x, F::InterpolateFuncOptions().size(std::vector<int64_t>{3}));
     },
     {0.0, 1.927116370834, -1.375532318368, 0.430239976176, 1.997086690749, -1.655652938171},
     {1.0, 0.764842187284, 0.0, 0.1699671429, 0.0, -0.5048461046, -0.942222340669, 0.0,
      -0.936456687291, 0.0},
     "UpsampleNearest1DBackward1"},
    {"nearest 2d",
     {1, 2, 2, 3},
     [](const Tensor& x) {
       return upsample_nearest2d(x, {3, 7});
     },
     {0.0,
      0.0,
      0.0,
      1.927116370834,
      1.927116370834,
      1.031002743643,
      1.031002743643,
      0.0,
      0.0,
      0.0,
      1.927116370834,
      1.927116370834,
      1.031002743643,
      1.031002743643,
      -1.375532318368,
      -1.375532318368,
      -1.375532318368,
      -1.76690931144,
      -1.76690931144,
      0.430239976176,
      0.430239976176,
      1.997086690749,
      1.997086690749,
      1.997086690749,
      0.638196724699,
      0.638196724699,
      -1.655652938171,
      -1.655652938171,
      1.997086690749,
      1.997086690749,
      1.997086690749,
      0.638196724699,
      0.638196724699,
      -1.655652938171,
      -1.655652938171,
      -1.523967167838,
      -1.523967167838,
      -1.523967167838,
      0.840334073653,
      0.840334073653,
      1.973543928549,
      1.973543928549},
     {3.896746214501, -0.539792328887, -2.893727764879, -1.202958336282, 1.785504881642,
      0.879486390912, -2.106951353086, -2.116731480633, 1.585203458042, 2.523964711124,
      -0.458366608777, -1.873369743001},
     "UpsampleNearest2DBackward0"},
    {"nearest 2d double",
     {1, 1, 2, 3},
     [](const Tensor& x) {
       return upsample_nearest2d(x, {4, 6}, 2.0, 2.0);
     },
     {0.0,
      0.0,
      1.927116370834,
      1.927116370834,
      1.031002743643,
      1.031002743643,
      0.0,
      0.0,
      1.927116370834,
      1.927116370834,
      1.031002743643,
      1.031002743643,
      -1.375532318368,
      -1.375532318368,
      -1.76690931144,
      -1.76690931144,
      0.430239976176,
      0.430239976176,
      -1.375532318368,
      -1.375532318368,
      -1.76690931144,
      -1.76690931144,
      0.430239976176,
      0.430239976176},
     {1.461093735366, 1.440545553194, -0.971402911578, 0.275173501957, -1.802810368482,
      -0.888010557001},
     "UpsampleNearest2DBackward0"},
    {"nearest 3d",
     {1, 1, 2, 2, 3},
     [](const Tensor& x) {
       return F::interpolate(
           x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{1.5, 1, 0.7}));
     },
     {0.0, 1.927116370834, -1.375532318368, -1.76690931144, 0.0, 1.927116370834, -1.375532318368,
      -1.76690931144, 1.997086690749, 0.638196724699, -1.523967167838, 0.840334073653},
     {0.057777659331, -0.171614500006, 0.0, -0.32029367844, -0.318333735177, 0.0, 0.77556587851,
      0.999858636383, 0.0, 0.753902254343, 0.153373862038, 0.0},
     "UpsampleNearest3DBackward1"},
    {"nearest-exact 2d",
     {1, 1, 3, 4},
     [](const Tensor& x) {
       return F::interpolate(
           x, F::InterpolateFuncOptions().size(std::vector<int64_t>{5, 3}).mode(kNearestExact));
     },
     {0.0, 1.031002743643, -1.375532318368, 0.0, 1.031002743643, -1.375532318368, -1.76690931144,
      1.997086690749, 0.638196724699, -1.655652938171, 0.840334073653, 1.973543928549,
      -1.655652938171, 0.840334073653, 1.973543928549},
     {0.4951538954, 0.0, -0.177380153384, -0.766489544391, -0.490260821341, 0.0, 0.186512369423,
      0.77556587851, 0.480569982267, 0.0, -0.193819347788, -0.777052410067},
     "UpsampleNearestExact2DBackward1"},
    {"linear",
     {2, 1, 4},
     [](const Tensor& x) { return upsample_linear1d(x, {7}, false); },
     {0.0, 0.688255846727, 1.789465201489, 1.479059557239, 0.859107382071, -0.516055510507,
      -1.375532318368, -1.76690931144, -0.982213137292, 0.273300741346, 1.213663333462,
      1.900023121746, 1.123514569717, 0.638196724699},
     {1.503824773461, 0.178561504423, -1.461792614096, -1.159570287504, 0.756508908207,
      1.582379103281, 0.333909479737, -1.270594746775},
     "UpsampleLinear1DBackward0"},
    {"linear align",
     {2, 1, 4},
     [](const Tensor& x) { return upsample_linear1d(x, {7}, true); },
     {0.0, 0.963558185417, 1.927116370834, 1.479059557239, 1.031002743643, -0.172264787363,
      -1.375532318368, -1.76690931144, -0.668334667632, 0.430239976176, 1.213663333462,
      1.997086690749, 1.317641707724, 0.638196724699},
     {1.382421093642, 0.299965184243, -1.662873736614, -0.958489164986, 0.574295308678,
      1.76459270281, 0.270680662151, -1.207365929189},
     "UpsampleLinear1DBackward0"},
    {"linear down",
     {1, 1, 7},
     [](const Tensor& x) {
       return F::interpolate(
           x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{0.4}).mode(kLinear));
     },
     {1.445337278126, -1.473376566636},
     {0.25, 0.75, 0.0, 0.573631640463, 0.191210546821, 0.0, 0.0},
     "UpsampleLinear1DBackward1"},
    {"bilinear",
     {1, 2, 3, 3},
     [](const Tensor& x) {
       return upsample_bilinear2d(x, {4, 5}, false);
     },
     {0.0,
      0.770846548334,
      1.927116370834,
      1.38944819452,
      1.031002743643,
      -0.85970769898,
      -0.668484491623,
      -0.381649680587,
      0.240655736151,
      0.655526013976,
      -0.110800189949,
      -0.412477933125,
      -0.864994547888,
      -0.557179739178,
      -0.351969866704,
      1.997086690749,
      1.453530704329,
      0.638196724699,
      -0.738113073023,
      -1.655652938171,
      -1.523967167838,
      -0.578246671242,
      0.840334073653,
      1.520259986591,
      1.973543928549,
      -0.436795622565,
      -0.600589268858,
      -0.846279738298,
      -0.3480891282,
      -0.015962054802,
      0.588846967664,
      0.167384744454,
      -0.46480859036,
      -0.68843452089,
      -0.837518474576,
      1.211079739439,
      1.469684030925,
      1.857590468154,
      0.612672272753,
      -0.217273190848},
     {0.997425369835, 0.386703473083, -0.69568069212, -0.240429130331, -0.335245848665,
      -0.021163168684, -0.036511545367, 0.953160669561, 0.780262711485, 0.078055878274,
      -0.932356018945, -0.805573177794, -0.265766686487, 0.081752137843, 0.329557870696,
      0.984123578835, 0.605620405317, -0.511558042862},
     "UpsampleBilinear2DBackward0"},
    {"bilinear align",
     {1, 1, 3, 4},
     [](const Tensor& x) {
       return F::interpolate(x, F::InterpolateFuncOptions()
                                    .scale_factor(std::vector<double>{1.5, 0.5})
                                    .mode(kBilinear)
                                    .align_corners(true));
     },
     {0.0, -1.375532318368, -1.17793954096, -0.033046289657, -1.729823853684, 1.083312459316,
      -1.655652938171, 1.973543928549},
     {1.0566557143, 0.0, 0.0, 0.596560152418, -0.514836798512, 0.0, 0.0, -0.960868527927,
      -0.804334934897, 0.0, 0.0, -0.125639859674},
     "UpsampleBilinear2DBackward1"},
    {"bilinear recompute",
     {1, 1, 3, 4},
     [](const Tensor& x) {
       return F::interpolate(x, F::InterpolateFuncOptions()
                                    .scale_factor(std::vector<double>{1.7})
                                    .mode(kBilinear)
                                    .recompute_scale_factor(true));
     },
     {0.0,
      0.963558185417,
      1.777764099636,
      1.180355014842,
      -0.172264787363,
      -1.375532318368,
      -0.706763724576,
      0.310801044197,
      1.34321089789,
      1.402591237566,
      0.423697810672,
      -0.570040701141,
      -1.76690931144,
      -0.668334667632,
      0.691381095271,
      1.735945571654,
      1.317641707724,
      0.638196724699,
      -1.700155487479,
      -1.221219898856,
      -0.401397738445,
      0.962148548704,
      1.37122008375,
      1.439405047009,
      -1.655652938171,
      -1.589810053005,
      -1.129916960923,
      0.446283866738,
      1.406939001101,
      1.973543928549},
     {1.144218311665, 0.983641875679, -0.059831818005, -1.089372864099, -0.603627641093,
      -0.807433891835, -0.273414562901, 0.539459020328, 0.471526897306, 1.177636623646,
      0.791687419034, -0.354610592245},
     "UpsampleBilinear2DBackward1"},
    {"bilinear scale",
     {1, 1, 3, 4},
     [](const Tensor& x) {
       return F::interpolate(
           x, F::InterpolateFuncOptions().scale_factor(std::vector<double>{1.7}).mode(kBilinear));
     },
     {0.0,
      0.736838612378,
      1.870436477575,
      1.426346990933,
      0.677100528641,
      -0.738508331365,
      -0.675582972021,
      0.100732770924,
      1.295064683148,
      1.380267266,
      1.105392947204,
      -0.07458639295,
      -1.714941390516,
      -0.877891600543,
      0.409877307107,
      1.309375381487,
      1.764304360377,
      0.946831973843,
      -1.704736632261,
      -1.305973227107,
      -0.692491065333,
      0.462805933614,
      1.355629941716,
      1.375485266149,
      -1.655652938171,
      -1.605302496573,
      -1.52784027873,
      -0.202740003475,
      1.006982581726,
      1.673576614018},
     {1.226540157742, 0.972729123842, -0.562918042353, -0.671122998367, -0.588307414061,
      -0.868098828615, -0.01094822087, 0.313869100127, 0.515399083014, 1.398765510378,
      0.45617316053, -0.262201853887},
     "UpsampleBilinear2DBackward1"},
    {"bicubic",
     {1, 1, 3, 4},
     [](const Tensor& x) {
       return upsample_bicubic2d(x, {5, 6}, false);
     },
     {0.004589161014,  1.226397194935,  2.116833814907, 1.351439520582,  -0.421473106516,
      -1.786481295324, -0.882859684543, 0.396533274355, 1.714458989605,  1.715877015071,
      0.399586239434,  -0.879541416381, -1.95763407599, -0.815226547124, 0.869428099635,
      1.92831932288,   1.464533587215,  0.520237526257, -1.908722602348, -1.55904470418,
      -0.474656254031, 1.033902492367,  1.688835734197, 1.621399090952,  -1.639191186813,
      -1.907102022133, -1.390871312323, 0.258685022214, 1.644341873398,  2.220873669642},
     {1.178113543427, 1.147789746349, -0.111304436027, -1.212186702231, -0.615714330429,
      -0.967045341973, -0.296508406303, 0.657252080259, 0.404934175013, 1.338556350505,
      0.873649784995, -0.477657686105},
     "UpsampleBicubic2DBackward0"},
    {"bicubic align",
     {1, 1, 4, 3},
     [](const Tensor& x) {
       return upsample_bicubic2d(x, {3, 5}, true);
     },
     {0.0, 1.047568837966, 1.927116370834, 1.659726717004, 1.031002743643, 0.511919830586,
      -0.201384284185, -0.929621577549, -1.104587894138, -1.009265196703, -1.523967167838,
      -0.448054970989, 0.840334073653, 1.628592242491, 1.973543928549},
     {1.547340703361, 0.290973043827, -1.400749678743, -0.744738486949, 0.211322896726,
      0.851202094536, -0.744738486949, 0.211322896726, 0.851202094536, 1.037028372975,
      -1.024299397964, -1.553066203453},
     "UpsampleBicubic2DBackward0"},
    {"trilinear",
     {1, 1, 2, 3, 2},
     [](const Tensor& x) {
       return upsample_trilinear3d(x, {3, 2, 4}, false);
     },
     {0.257750685911,  0.468676564066,  0.890528320378,  1.101454198534,  -1.067431297669,
      -0.805874247617, -0.282760147513, -0.02120309746,  0.670826234715,  0.653008419798,
      0.617372789966,  0.599554975049,  -0.425546988486, -0.184414859241, 0.297849399251,
      0.538981528496,  1.083901783519,  0.83734027553,   0.344217259553,  0.097655751565,
      0.216337320697,  0.437044529136,  0.878458946014,  1.099166154452},
     {1.85481835191, 0.223666804007, -0.006345534366, -0.205554632342, -1.873854955007,
      -0.840330701032, 1.424537956494, 1.629918968858, 0.166587857291, -0.07604045222,
      -0.92477438462, -1.858040325517},
     "UpsampleTrilinear3DBackward0"},
    {"trilinear align",
     {1, 1, 2, 3, 2},
     [](const Tensor& x) {
       return F::interpolate(x, F::InterpolateFuncOptions()
                                    .scale_factor(std::vector<double>{2})
                                    .mode(kTrilinear)
                                    .align_corners(true));
     },
     {0.0,
      0.642372123611,
      1.284744247223,
      1.927116370834,
      0.412401097457,
      0.476953030023,
      0.541504962588,
      0.606056895153,
      0.824802194914,
      0.311533936434,
      -0.201734322047,
      -0.715002580527,
      0.471420332626,
      -0.023845731402,
      -0.519111795431,
      -1.014377859459,
      -0.647744489407,
      -0.529185973485,
      -0.410627457564,
      -0.292068941642,
      -1.76690931144,
      -1.034526215568,
      -0.302143119696,
      0.430239976176,
      0.665695563583,
      0.942955871985,
      1.220216180387,
      1.497476488789,
      0.453597678032,
      0.411892336242,
      0.370186994453,
      0.328481652664,
      0.24149979248,
      -0.1191711995,
      -0.479842191481,
      -0.840513183462,
      -0.071204956851,
      -0.364494489843,
      -0.657784022835,
      -0.951073555826,
      -0.484516569964,
      -0.324077534786,
      -0.163638499608,
      -0.00319946443,
      -0.897828183076,
      -0.283660579728,
      0.330507023619,
      0.944674626967,
      1.331391127166,
      1.243539620359,
      1.155688113551,
      1.067836606744,
      0.494794258606,
      0.346831642462,
      0.198869026318,
      0.050906410174,
      -0.341802609953,
      -0.549876335434,
      -0.757950060915,
      -0.966023786396,
      -0.613830246329,
      -0.705143248284,
      -0.796456250239,
      -0.887769252193,
      -0.32128865052,
      -0.118969096086,
      0.083350458348,
      0.285670012782,
      -0.028747054711,
      0.467205056112,
      0.963157166935,
      1.459109277758,
      1.997086690749,
      1.544123368732,
      1.091160046716,
      0.638196724699,
      0.535990839181,
      0.281770948682,
      0.027551058183,
      -0.226668832316,
      -0.925105012387,
      -0.980581471368,
      -1.03605793035,
      -1.091534389331,
      -1.156455535806,
      -1.045792006724,
      -0.935128477643,
      -0.824464948561,
      -0.158060731077,
      0.086139342614,
      0.330339416304,
      0.574539489994,
      0.840334073653,
      1.218070691952,
      1.595807310251,
      1.973543928549},
     {0.614550461246, 0.217945881937, -0.102586373669, 0.028130796324, 0.227797712192,
      -0.44893099286, 0.17718546542, -0.48380187426, 0.036538996077, 0.12398554646, -0.477211243735,
      -0.534257297323},
     "UpsampleTrilinear3DBackward1"},
};

}  // namespace

TEST_CASE("upsampling: values, gradients and node names against torch 1.13", "[nn]") {
  testing::check_resample_cases(kCases, 1e-5);
}

TEST_CASE("upsampling: hand-computed values", "[nn]") {
  const Tensor x = tensor(V{1, 2, 4}).reshape({1, 1, 3});
  // nearest to 5: source floor(o * 3/5) = 0 0 1 1 2.
  CHECK(values(upsample_nearest1d(x, {5})) == V{1, 1, 2, 2, 4});
  // nearest-exact to 5: floor((o + 0.5) * 3/5) = 0 0 1 2 2.
  CHECK(values(_upsample_nearest_exact1d(x, {5})) == V{1, 1, 2, 4, 4});
  // linear, align_corners to 5: positions 0 0.5 1 1.5 2.
  CHECK(values(upsample_linear1d(x, {5}, true)) == V{1, 1.5, 2, 3, 4});
  // linear, half-pixel to 6: positions max(0.5 o - 0.25, 0) = 0 0.25 0.75 1.25 1.75 2.25.
  testing::resample_require_close(values(upsample_linear1d(x, {6}, false)),
                                  V{1, 1.25, 1.75, 2.5, 3.5, 4}, 1e-7);
}

TEST_CASE("upsampling: gradcheck on contiguous and strided inputs, second derivatives", "[nn]") {
  manual_seed(7);
  using Fn = std::function<Tensor(const std::vector<Tensor>&)>;
  auto x4 = [](const Tensor& t) { return t.reshape({1, 1, 4, 5}); };
  const std::vector<std::pair<const char*, Fn>> ops{
      {"nearest 1d",
       [](const std::vector<Tensor>& v) { return upsample_nearest1d(v[0].unsqueeze(0), {7}); }},
      {"nearest 2d",
       [&](const std::vector<Tensor>& v) {
         return upsample_nearest2d(x4(v[0]), {6, 3});
       }},
      {"nearest 3d",
       [](const std::vector<Tensor>& v) {
         return upsample_nearest3d(v[0].reshape({1, 1, 2, 2, 5}), {3, 1, 8});
       }},
      {"nearest-exact 2d",
       [&](const std::vector<Tensor>& v) {
         return _upsample_nearest_exact2d(x4(v[0]), {7, 3});
       }},
      {"linear",
       [](const std::vector<Tensor>& v) {
         return upsample_linear1d(v[0].unsqueeze(0), {9}, false);
       }},
      {"linear align",
       [](const std::vector<Tensor>& v) {
         return upsample_linear1d(v[0].unsqueeze(0), {3}, true);
       }},
      {"bilinear",
       [&](const std::vector<Tensor>& v) {
         return upsample_bilinear2d(x4(v[0]), {7, 3}, false);
       }},
      {"bilinear align",
       [&](const std::vector<Tensor>& v) {
         return upsample_bilinear2d(x4(v[0]), {5, 8}, true);
       }},
      {"bicubic",
       [&](const std::vector<Tensor>& v) {
         return upsample_bicubic2d(x4(v[0]), {6, 9}, false);
       }},
      {"bicubic align",
       [&](const std::vector<Tensor>& v) {
         return upsample_bicubic2d(x4(v[0]), {3, 4}, true);
       }},
      {"trilinear",
       [](const std::vector<Tensor>& v) {
         return upsample_trilinear3d(v[0].reshape({1, 1, 2, 2, 5}), {3, 3, 4}, false);
       }},
      {"trilinear align",
       [](const std::vector<Tensor>& v) {
         return upsample_trilinear3d(v[0].reshape({1, 2, 2, 1, 5}), {3, 2, 7}, true);
       }},
  };
  for (const auto& [name, fn] : ops) {
    INFO(name);
    testing::check_resample_grads(fn);
  }
  const Tensor a = randn({1, 1, 2, 3}, dtype(kDouble)).requires_grad_();
  const Tensor g =
      autograd::grad({upsample_bilinear2d(a, {4, 4}, false)}, {a},
                     {ones({1, 1, 4, 4}, dtype(kDouble)).requires_grad_()}, true, true)[0];
  CHECK(node(g) == "UpsampleBilinear2DBackwardBackward0");
}

TEST_CASE("upsampling: layouts, dtypes and empty batches", "[nn]") {
  const Tensor x = x_of({2, 3, 4, 5});
  const Tensor cl = x.contiguous(MemoryFormat::ChannelsLast);
  const Tensor tr = x.transpose(2, 3).contiguous().transpose(2, 3);
  using O = F::InterpolateFuncOptions;
  for (const auto mode : {kNearest, kBilinear, kBicubic, kNearestExact}) {
    const O o = O().size(std::vector<int64_t>{7, 3}).mode(mode);
    const Tensor want = F::interpolate(x, o);
    CHECK(F::interpolate(cl, o).equal(want));
    CHECK(F::interpolate(tr, o).equal(want));
    CHECK(F::interpolate(x.narrow(3, 1, 3), o)
              .equal(F::interpolate(x.narrow(3, 1, 3).contiguous(), o)));
  }
  // A channels-last input stays channels-last in nearest and bilinear (not bicubic), as in torch.
  CHECK(upsample_nearest2d(cl, {8, 10}).is_contiguous(MemoryFormat::ChannelsLast));
  CHECK(upsample_bilinear2d(cl, {8, 10}, false).is_contiguous(MemoryFormat::ChannelsLast));
  CHECK(upsample_bicubic2d(cl, {8, 10}, false).is_contiguous());
  // nearest takes uint8 and bfloat16; the interpolating modes bfloat16.
  const Tensor u = upsample_nearest2d(arange(6, dtype(kByte)).reshape({1, 1, 2, 3}), {4, 6});
  CHECK(u.dtype() == kByte);
  CHECK(values(u.select(2, 3)) == V{3, 3, 4, 4, 5, 5});
  const Tensor bf = upsample_bilinear2d(x.to(kBFloat16), {7, 3}, false);
  CHECK(bf.dtype() == kBFloat16);
  testing::resample_require_close(values(bf), values(upsample_bilinear2d(x, {7, 3}, false)), 2e-2);
  // An empty batch gives an empty result.
  CHECK(upsample_bilinear2d(empty({0, 2, 3, 4}), {2, 2}, false).sizes().vec() ==
        std::vector<int64_t>{0, 2, 2, 2});
  CHECK(upsample_nearest1d(empty({0, 2, 3}), {5}).sizes().vec() == std::vector<int64_t>{0, 2, 5});
  // scale factors: the size is floor(size * factor) and the factor is the kernel's scale.
  const std::vector<double> f{1.7};
  CHECK(upsample_linear1d(x_of({1, 1, 3}), std::nullopt, false, ArrayRef<double>(f)).size(2) == 5);
}

TEST_CASE("upsampling: error paths", "[nn]") {
  const Tensor x = ones({1, 2, 3, 4});
  REQUIRE_THROWS_WITH(upsample_nearest2d(x, {2, 3, 4}),
                      "It is expected output_size equals to 2, but got size 3");
  REQUIRE_THROWS_WITH(upsample_nearest2d(ones({2, 3, 4}), {2, 3}),
                      "It is expected input_size equals to 4, but got size 3");
  REQUIRE_THROWS_WITH(upsample_linear1d(x, {2}, false),
                      "It is expected input_size equals to 3, but got size 4");
  REQUIRE_THROWS_WITH(upsample_nearest3d(x, {2, 2, 2}),
                      "It is expected input_size equals to 5, but got size 4");
  REQUIRE_THROWS_WITH(upsample_bilinear2d(x, {0, 3}, false),
                      "Input and output sizes should be greater than 0, but got input (H: 3, W: 4) "
                      "output (H: 0, W: 3)");
  REQUIRE_THROWS_WITH(upsample_nearest1d(ones({1, 2, 4}), {0}),
                      "Input and output sizes should be greater than 0, but got input (W: 4) and "
                      "output (W: 0)");
  REQUIRE_THROWS_WITH(upsample_trilinear3d(ones({1, 1, 2, 3, 4}), {0, 1, 1}, false),
                      "Input and output sizes should be greater than 0, but got input (D: 2, H: 3, "
                      "W: 4) output (D: 0, H: 1, W: 1)");
  REQUIRE_THROWS_WITH(upsample_nearest2d(ones({1, 0, 3, 4}), {2, 2}),
                      "Non-empty 4D data tensor expected but got a tensor with sizes [1, 0, 3, 4]");
  REQUIRE_THROWS_WITH(upsample_nearest2d(ones({1, 2, 3, 4}, dtype(kLong)), {2, 2}),
                      "\"compute_indices_weights_nearest\" not implemented for 'Long'");
  REQUIRE_THROWS_WITH(upsample_bilinear2d(ones({1, 2, 3, 4}, dtype(kByte)), {2, 2}, false),
                      "\"compute_indices_weights_linear\" not implemented for 'Byte'");
  REQUIRE_THROWS_WITH(upsample_bicubic2d(ones({1, 2, 3, 4}, dtype(kHalf)), {2, 2}, false),
                      "\"compute_indices_weights_cubic\" not implemented for 'Half'");
  // The .vec overloads.
  const std::vector<int64_t> s2{2, 2};
  const std::vector<double> f2{2, 2}, f1{2};
  REQUIRE_THROWS_WITH(upsample_nearest2d(x, std::nullopt, std::nullopt),
                      "Must specify exactly one of output_size and scale_factors");
  REQUIRE_THROWS_WITH(upsample_nearest2d(x, IntArrayRef(s2), ArrayRef<double>(f2)),
                      "Must specify exactly one of output_size and scale_factors");
  REQUIRE_THROWS_WITH(upsample_nearest2d(x, std::nullopt, ArrayRef<double>(f1)),
                      Catch::StartsWith("Expected static_cast<int64_t>(scale_factors->size()) == "
                                        "spatial_dimensions to be true"));
  const std::vector<int64_t> s1{2};
  REQUIRE_THROWS_WITH(upsample_bilinear2d(x, std::optional<IntArrayRef>(s1), false, std::nullopt),
                      Catch::StartsWith("Expected static_cast<int64_t>(output_size->size()) == "
                                        "spatial_dimensions to be true"));
  // F::interpolate's argument checks (torch.nn.functional.interpolate's ValueErrors).
  using O = F::InterpolateFuncOptions;
  const std::vector<int64_t> sz{2, 3};
  REQUIRE_THROWS_AS(F::interpolate(x, O().size(sz).scale_factor(f2)), ValueError);
  REQUIRE_THROWS_WITH(F::interpolate(x, O().size(sz).scale_factor(f2)),
                      "only one of size or scale_factor should be defined");
  REQUIRE_THROWS_WITH(F::interpolate(x, O()), "either size or scale_factor should be defined");
  REQUIRE_THROWS_WITH(
      F::interpolate(x, O().size(std::vector<int64_t>{2, 3, 4})),
      "Input and output must have the same number of spatial dimensions, but got "
      "input with spatial dimensions of [3, 4] and output size of [2, 3, 4]. Please "
      "provide input tensor in (N, C, d1, d2, ...,dK) format and output size in "
      "(o1, o2, ...,oK) format.");
  REQUIRE_THROWS_WITH(
      F::interpolate(x, O().scale_factor(std::vector<double>{2, 2, 2})),
      Catch::StartsWith("Input and scale_factor must have the same number of "
                        "spatial dimensions, but got input with spatial "
                        "dimensions of [3, 4] and scale_factor of shape [2, 2, 2]"));
  REQUIRE_THROWS_WITH(F::interpolate(x, O().size(sz).recompute_scale_factor(true)),
                      "recompute_scale_factor is not meaningful with an explicit size.");
  REQUIRE_THROWS_AS(F::interpolate(x, O().size(sz).align_corners(true)), ValueError);
  REQUIRE_THROWS_WITH(F::interpolate(x, O().size(sz).align_corners(false)),
                      "align_corners option can only be set with the interpolating modes: linear "
                      "| bilinear | bicubic | trilinear");
  REQUIRE_THROWS_WITH(F::interpolate(x, O().size(sz).antialias(true)),
                      "Anti-alias option is only supported for bilinear and bicubic modes");
  REQUIRE_THROWS_AS(F::interpolate(x, O().size(sz).mode(kBilinear).antialias(true)),
                    NotImplementedError);
  // 'area' is adaptive average pooling to the size (its values: tests/ops/torch_golden_test.cpp).
  CHECK(equal(F::interpolate(x, O().size(sz).mode(kArea)), adaptive_avg_pool2d(x, sz)));
  REQUIRE_THROWS_AS(F::interpolate(x, O().size(sz).mode(kLinear)), NotImplementedError);
  REQUIRE_THROWS_WITH(F::interpolate(x, O().size(sz).mode(kLinear)),
                      "Got 4D input, but linear mode needs 3D input");
  REQUIRE_THROWS_WITH(
      F::interpolate(ones({1, 2, 3}), O().size(std::vector<int64_t>{2}).mode(kTrilinear)),
      "Got 3D input, but trilinear mode needs 5D input");
  REQUIRE_THROWS_WITH(F::interpolate(ones({1, 1, 2, 2, 3}), O().scale_factor(f1).mode(kBilinear)),
                      "Got 5D input, but bilinear mode needs 4D input");
  REQUIRE_THROWS_WITH(F::interpolate(ones({2, 3}), O().scale_factor(f1)),
                      "Input Error: Only 3D, 4D and 5D input Tensors supported (got 2D) for the "
                      "modes: nearest | linear | bilinear | bicubic | trilinear | area | "
                      "nearest-exact (got nearest)");
  REQUIRE_THROWS_WITH(F::interpolate(ones({1, 2, 3}), O().scale_factor(f1).mode(kBicubic)),
                      Catch::EndsWith("(got 3D) for the modes: nearest | linear | bilinear | "
                                      "bicubic | trilinear | area | nearest-exact (got bicubic)"));
}

}  // namespace nn_functional_upsampling_test
