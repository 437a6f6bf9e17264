// nn::functional losses, cosine_similarity, pairwise_distance, normalize and dropout
// (nn/functional/loss.hpp, distance.hpp, dropout.hpp): values and the gradients of input and target
// against torch 1.13 for every reduction, node names, gradcheck on contiguous, strided and
// broadcast inputs, dtypes, empty inputs, dropout's statistics and generator, and every error path.
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace nn_functional_loss_test {

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

// x = sin(1.3 k), t = cos(0.9 k + 0.5), k = 0..11 as [3, 4]; p = sigmoid(x), q = (t + 1) / 2;
// w and pw per column. Which pair each loss takes is in `inputs` below.
Tensor kx() { return arange(12, dtype(kDouble)).mul(1.3).sin().reshape({3, 4}); }
Tensor kt() { return arange(12, dtype(kDouble)).mul(0.9).add(0.5).cos().reshape({3, 4}); }
Tensor kp() { return kx().sigmoid(); }
Tensor kq() { return kt().mul(0.5).add(0.5); }
Tensor kw() { return from({0.5, 1.0, 2.0, 1.5}, {4}); }
Tensor kpw() { return from({2.0, 0.5, 1.0, 3.0}, {4}); }

struct Case {
  const char* name;
  const char* reduction;
  V out, grad_input, grad_target;
};
// torch 1.13: y = F.<loss>(a, b, reduction=r), then y.backward(ones) for a reduced loss and
// y.backward(0.3 k - 1) for 'none'.
const std::vector<Case> kCases{
    {"mse",
     "none",
     {0.7701511529340699, 0.6297867427631425, 1.396597806845277, 0.09642802173420419,
      0.09525291465319893, 0.004698032821049762, 0.005050222091450071, 0.30282913027808117,
      0.9627540897969014, 0.0069328165269762826, 2.008850388079144, 2.395549321816762},
     {1.7551651237807455, -1.1110274595237326, -0.9454219144810306, -0.06210572332215586,
      -0.12345228367475355, -0.06854219737541073, 0.11370386340891049, -1.210658081601041,
      -2.7473609271458503, -0.2830960244366667, 5.669356772092078, 7.119678619828473},
     {-1.7551651237807455, 1.1110274595237326, 0.9454219144810306, 0.06210572332215586,
      0.12345228367475355, 0.06854219737541073, -0.11370386340891049, 1.210658081601041,
      2.7473609271458503, 0.2830960244366667, -5.669356772092078, -7.119678619828473}},
    {"mse",
     "mean",
     {0.7229067200283549},
     {-0.1462637603150621, 0.13226517375282532, 0.1969628988502147, 0.051754769435129834,
      -0.051438451531147324, -0.011423699562568454, 0.01184415243842818, -0.0917165213334122,
      -0.16353338852058633, -0.013877256099836605, 0.2362231988371699, 0.25795937028364035},
     {0.1462637603150621, -0.13226517375282532, -0.1969628988502147, -0.051754769435129834,
      0.051438451531147324, 0.011423699562568454, -0.01184415243842818, 0.0917165213334122,
      0.16353338852058633, 0.013877256099836605, -0.2362231988371699, -0.25795937028364035}},
    {"mse",
     "sum",
     {8.674880640340259},
     {-1.7551651237807455, 1.5871820850339038, 2.3635547862025765, 0.621057233221558,
      -0.6172614183737679, -0.13708439475082146, 0.14212982926113815, -1.1005982560009464,
      -1.962400662247036, -0.16652707319803928, 2.834678386046039, 3.0955124434036843},
     {1.7551651237807455, -1.5871820850339038, -2.3635547862025765, -0.621057233221558,
      0.6172614183737679, 0.13708439475082146, -0.14212982926113815, 1.1005982560009464,
      1.962400662247036, 0.16652707319803928, -2.834678386046039, -3.0955124434036843}},
    {"l1",
     "none",
     {0.8775825618903728, 0.7935910425169519, 1.1817773931012883, 0.310528616610779,
      0.30863070918688396, 0.06854219737541073, 0.07106491463056908, 0.5502991280004732,
      0.981200331123518, 0.08326353659901964, 1.4173391930230195, 1.5477562217018421},
     {1.0, -0.7, -0.4, -0.10000000000000009, -0.19999999999999996, -0.5, 0.7999999999999998, -1.1,
      -1.4, -1.6999999999999997, 2.0, 2.3},
     {-1.0, 0.7, 0.4, 0.10000000000000009, 0.19999999999999996, 0.5, -0.7999999999999998, 1.1, 1.4,
      1.6999999999999997, -2.0, -2.3}},
    {"l1",
     "mean",
     {0.6826313204800106},
     {-0.08333333333333333, 0.08333333333333333, 0.08333333333333333, 0.08333333333333333,
      -0.08333333333333333, -0.08333333333333333, 0.08333333333333333, -0.08333333333333333,
      -0.08333333333333333, -0.08333333333333333, 0.08333333333333333, 0.08333333333333333},
     {0.08333333333333333, -0.08333333333333333, -0.08333333333333333, -0.08333333333333333,
      0.08333333333333333, 0.08333333333333333, -0.08333333333333333, 0.08333333333333333,
      0.08333333333333333, 0.08333333333333333, -0.08333333333333333, -0.08333333333333333}},
    {"l1",
     "sum",
     {8.191575845760127},
     {-1.0, 1.0, 1.0, 1.0, -1.0, -1.0, 1.0, -1.0, -1.0, -1.0, 1.0, 1.0},
     {1.0, -1.0, -1.0, -1.0, 1.0, 1.0, -1.0, 1.0, 1.0, 1.0, -1.0, -1.0}},
    {"smooth_l1",
     "none",
     {0.5275825618903728, 0.4435910425169519, 0.8317773931012883, 0.06887715838157442,
      0.06803779618085638, 0.0033557377293212585, 0.0036073014938929077, 0.21630652162720085,
      0.631200331123518, 0.0049520118049830595, 1.0673391930230194, 1.1977562217018423},
     {1.0, -0.7, -0.4, -0.04436123094439705, -0.08818020262482397, -0.04895871241100767,
      0.08121704529207893, -0.8647557725721723, -1.4, -0.2022114460261905, 2.0, 2.3},
     {-1.0, 0.7, 0.4, 0.04436123094439705, 0.08818020262482397, 0.04895871241100767,
      -0.08121704529207893, 0.8647557725721723, 1.4, 0.2022114460261905, -2.0, -2.3}},
    {"smooth_l1",
     "mean",
     {0.42203193921456844},
     {-0.08333333333333333, 0.08333333333333333, 0.08333333333333333, 0.03696769245366417,
      -0.03674175109367666, -0.00815978540183461, 0.008460108884591557, -0.06551180095243728,
      -0.08333333333333333, -0.009912325785597576, 0.08333333333333333, 0.08333333333333333},
     {0.08333333333333333, -0.08333333333333333, -0.08333333333333333, -0.03696769245366417,
      0.03674175109367666, 0.00815978540183461, -0.008460108884591557, 0.06551180095243728,
      0.08333333333333333, 0.009912325785597576, -0.08333333333333333, -0.08333333333333333}},
    {"smooth_l1",
     "sum",
     {5.0643832705748215},
     {-1.0, 1.0, 1.0, 0.44361230944397007, -0.44090101312411994, -0.09791742482201533,
      0.10152130661509869, -0.7861416114292474, -1.0, -0.11894790942717091, 1.0, 1.0},
     {1.0, -1.0, -1.0, -0.44361230944397007, 0.44090101312411994, 0.09791742482201533,
      -0.10152130661509869, 0.7861416114292474, 1.0, 0.11894790942717091, -1.0, -1.0}},
    {"smooth_l1_0",
     "none",
     {0.8775825618903728, 0.7935910425169519, 1.1817773931012883, 0.310528616610779,
      0.30863070918688396, 0.06854219737541073, 0.07106491463056908, 0.5502991280004732,
      0.981200331123518, 0.08326353659901964, 1.4173391930230195, 1.5477562217018421},
     {1.0, -0.7, -0.4, -0.10000000000000009, -0.19999999999999996, -0.5, 0.7999999999999998, -1.1,
      -1.4, -1.6999999999999997, 2.0, 2.3},
     {-1.0, 0.7, 0.4, 0.10000000000000009, 0.19999999999999996, 0.5, -0.7999999999999998, 1.1, 1.4,
      1.6999999999999997, -2.0, -2.3}},
    {"smooth_l1_0",
     "mean",
     {0.6826313204800106},
     {-0.08333333333333333, 0.08333333333333333, 0.08333333333333333, 0.08333333333333333,
      -0.08333333333333333, -0.08333333333333333, 0.08333333333333333, -0.08333333333333333,
      -0.08333333333333333, -0.08333333333333333, 0.08333333333333333, 0.08333333333333333},
     {0.08333333333333333, -0.08333333333333333, -0.08333333333333333, -0.08333333333333333,
      0.08333333333333333, 0.08333333333333333, -0.08333333333333333, 0.08333333333333333,
      0.08333333333333333, 0.08333333333333333, -0.08333333333333333, -0.08333333333333333}},
    {"smooth_l1_0",
     "sum",
     {8.191575845760127},
     {-1.0, 1.0, 1.0, 1.0, -1.0, -1.0, 1.0, -1.0, -1.0, -1.0, 1.0, 1.0},
     {1.0, -1.0, -1.0, -1.0, 1.0, 1.0, -1.0, 1.0, 1.0, 1.0, -1.0, -1.0}},
    {"huber",
     "none",
     {0.3465495371342236, 0.29615462551017113, 0.529066435860773, 0.04821401086710209,
      0.04762645732659947, 0.002349016410524881, 0.0025251110457250353, 0.15141456513904059,
      0.40872019867411075, 0.0034664082634881413, 0.6704035158138116, 0.7486537330211053},
     {0.6, -0.42, -0.24, -0.03105286166107793, -0.06172614183737678, -0.034271098687705365,
      0.056851931704455246, -0.6053290408005205, -0.84, -0.14154801221833335, 1.2, 1.38},
     {-0.6, 0.42, 0.24, 0.03105286166107793, 0.06172614183737678, 0.034271098687705365,
      -0.056851931704455246, 0.6053290408005205, 0.84, 0.14154801221833335, -1.2, -1.38}},
    {"huber",
     "mean",
     {0.27126196792222296},
     {-0.049999999999999996, 0.049999999999999996, 0.049999999999999996, 0.025877384717564917,
      -0.025719225765573662, -0.005711849781284227, 0.00592207621921409, -0.0458582606667061,
      -0.049999999999999996, -0.006938628049918303, 0.049999999999999996, 0.049999999999999996},
     {0.049999999999999996, -0.049999999999999996, -0.049999999999999996, -0.025877384717564917,
      0.025719225765573662, 0.005711849781284227, -0.00592207621921409, 0.0458582606667061,
      0.049999999999999996, 0.006938628049918303, -0.049999999999999996, -0.049999999999999996}},
    {"huber",
     "sum",
     {3.2551436150666757},
     {-0.6, 0.6, 0.6, 0.310528616610779, -0.30863070918688396, -0.06854219737541073,
      0.07106491463056908, -0.5502991280004732, -0.6, -0.08326353659901964, 0.6, 0.6},
     {0.6, -0.6, -0.6, -0.310528616610779, 0.30863070918688396, 0.06854219737541073,
      -0.07106491463056908, 0.5502991280004732, 0.6, 0.08326353659901964, -0.6, -0.6}},
    {"bce",
     "none",
     {0.34657359027997264, 0.7230861588204787, 1.7954731443040073, 0.6117725982568569,
      0.2668881948413069, 0.6684099342568084, 0.6997232322170991, 0.850664785219415,
      0.41997648970389523, 0.5054470651174032, 1.8490874354143674, 1.63050636281153},
     {0.8775825618903728, -0.486222026903297, -1.5693575869483671, -0.22483017887024642,
      0.03860005338801357, -0.1785650906644228, -1.8945784557076508, -2.40717378685964,
      -0.9016296637399447, 1.2347236358971105, 10.065227218779361, 8.876416466396961},
     {-0.0, 0.674490729792035, 0.41240109745717135, -0.10316492387759621, 0.08834546557201528,
      -0.10755999404390792, -1.597669352599368, -0.526512297876431, 0.5794785283599578,
      1.2953720926623546, -1.6806681473065637, -3.4043632767474166}},
    {"bce",
     "mean",
     {0.8639674159369285},
     {-0.07313188015753107, 0.057883574631344886, 0.32694949728090983, 0.18735848239187183,
      0.016083355578338992, -0.029760848444070467, -0.197351922469547, -0.18236165051966965,
      -0.0536684323654729, 0.060525668426328956, 0.41938446744914004, 0.3216092922607595},
     {0.0, -0.08029651545143274, -0.08591689530357736, 0.08597076989799675, 0.036810610655006376,
      -0.017926665673984654, -0.16642389089576753, -0.03988729529366901, 0.034492769545235585,
      0.06349863199325269, -0.07002783947110681, -0.1233464955343267}},
    {"bce",
     "sum",
     {10.367608991243142},
     {-0.8775825618903728, 0.6946028955761386, 3.923393967370918, 2.248301788702462,
      0.1930002669400679, -0.3571301813288456, -2.368223069634564, -2.1883398062360357,
      -0.6440211883856748, 0.7263080211159475, 5.0326136093896805, 3.859311507129114},
     {0.0, -0.9635581854171928, -1.0310027436429283, 1.031649238775961, 0.4417273278600765,
      -0.21511998808781585, -1.9970866907492104, -0.4786475435240281, 0.413913234542827,
      0.7619835839190322, -0.8403340736532818, -1.4801579464119203}},
    {"bce_logits",
     "none",
     {0.6719338550406804, 0.6285546616347164, 1.7954731443040075, 0.6145735010433383,
      0.39756809183270303, 0.4786331103476748, 0.6997232322170992, 2.38246497870634,
      0.7632155749936662, 0.4134786205317965, 1.8490874354143674, 1.8391506738164298},
     {0.4540934607088898, -0.15373852582402062, -0.3673865975711046, -0.049881419852793124,
      -0.007053964748640866, 0.02750382472253235, -0.37274740607788914, -1.8849851382557419,
      -0.47172700588267186, 0.36097237152967065, 2.4084371908698206, 1.3445588161155537},
     {-0.34657359027997264, 0.7876085184950565, 0.41240109745717135, -0.4316733719588316,
      0.21128738191549673, -0.2554001548418595, -1.5976693525993677, 1.2761864021419402,
      1.412746448194097, 0.32210031213976886, -1.6806681473065637, -1.2181914893804715}},
    {"bce_logits",
     "mean",
     {1.0444880733235682},
     {-0.03784112172574081, 0.018302205455240552, 0.07653887449398013, 0.04156784987732757,
      -0.0029391519786003614, 0.004583970787088725, -0.038827854799780126, -0.14280190441331378,
      -0.028078988445397135, 0.0176947240945917, 0.10035154961957586, 0.048715899134621515},
     {0.028881132523331052, -0.09376291886845911, -0.08591689530357736, 0.3597278099656927,
      0.088036409131457, -0.04256669247364325, -0.1664238908957675, 0.09668078804105606,
      0.08409205048774387, 0.015789230987243576, -0.07002783947110681, -0.044137372803640273}},
    {"bce_logits",
     "sum",
     {12.53385687988282},
     {-0.4540934607088898, 0.2196264654628866, 0.9184664939277615, 0.49881419852793085,
      -0.03526982374320434, 0.0550076494450647, -0.4659342575973615, -1.7136228529597655,
      -0.3369478613447656, 0.21233668913510043, 1.2042185954349103, 0.5845907896154582},
     {0.34657359027997264, -1.1251550264215093, -1.0310027436429283, 4.316733719588313,
      1.056436909577484, -0.510800309683719, -1.99708669074921, 1.1601694564926728,
      1.0091046058529265, 0.1894707718469229, -0.8403340736532818, -0.5296484736436833}},
    {"bce_logits_plain",
     "none",
     {0.6931471805599453, 0.7230861588204787, 0.8977365721520038, 0.4078483988379048,
      0.5337763896826138, 0.6684099342568083, 0.3498616161085496, 0.5671098568129433,
      0.8399529794077902, 0.5054470651174032, 0.9245437177071837, 1.087004241874353},
     {0.4387912809451864, -0.09719505305000474, -0.1836932987855523, -0.03336775742527088,
      0.015974874895885456, -0.04412876837444052, -0.18637370303894457, -0.39115366920633293,
      -0.38161491636215156, 0.26787883847686705, 1.2042185954349103, 1.170566559210867},
     {0.0, 0.6744907297920351, 0.20620054872858568, -0.06877661591839747, 0.1766909311440306,
      -0.10755999404390776, -0.7988346762996839, -0.3510081985842874, 1.1589570567199152,
      1.2953720926623544, -0.8403340736532818, -2.2695755178316106}},
    {"bce_logits_plain",
     "mean",
     {0.6831603426114982},
     {-0.036565940078765534, 0.011570839648810088, 0.038269437246990064, 0.027806464521059043,
      0.006656197873285609, -0.00735479472907342, -0.019413927399890063, -0.029632853727752494,
      -0.02271517359298521, 0.013131315611611133, 0.05017577480978793, 0.0424118318554662},
     {-0.0, -0.08029651545143275, -0.04295844765178868, 0.05731384659866451, 0.07362122131001277,
      -0.017926665673984626, -0.08321194544788375, -0.026591530195779343, 0.06898553909047114,
      0.06349863199325267, -0.03501391973555341, -0.08223099702288444}},
    {"bce_logits_plain",
     "sum",
     {8.197924111337977},
     {-0.4387912809451864, 0.13885007578572106, 0.45923324696388074, 0.3336775742527085,
      0.0798743744794273, -0.08825753674888104, -0.23296712879868076, -0.3555942447330299,
      -0.27258208311582255, 0.15757578733933358, 0.6021092977174551, 0.5089419822655944},
     {-0.0, -0.963558185417193, -0.5155013718214642, 0.6877661591839741, 0.8834546557201531,
      -0.21511998808781552, -0.998543345374605, -0.3190983623493521, 0.8278264690856537,
      0.7619835839190321, -0.4201670368266409, -0.9867719642746133}},
    {"kl",
     "none",
     {-0.05929603110841512, -0.8773172364393459, -0.3847986968085517, -0.00543918749582628,
      -0.14135923429977057, -0.4226779260842278, -0.9979306490675804, -0.36138197916662385,
      0.15995607434908443, -0.17133956354313998, -0.009871373497688853, -0.5494587466376311},
     {0.9387912809451864, 0.4094885000150843, 0.06674479574403518, 8.526121026234408e-05,
      -0.04251760534667307, -0.32091554636580655, -0.7709913722976142, -1.028168619692404,
      -0.807361703426505, -0.2730879597779894, -0.0028278438036215547, -0.5048681039586869},
     {-0.9368378975050609, 0.3498107903871386, 0.5224358364280477, 0.5379439699589305,
      0.0670111045556975, 0.17072495328535447, -0.02838231185382578, 0.6747077022031336,
      1.788319020327108, -0.11323020993759969, -11.963109963919239, -3.457220048012613}},
    {"kl",
     "mean",
     {-0.3184095458166431},
     {-0.0782326067454322, -0.048748630954176704, -0.013905165780007328, -7.105100855195334e-05,
      -0.017715668894447117, -0.05348592439430109, -0.08031160128100148, -0.07789156209790939,
      -0.04805724425157768, -0.013386664694999481, -0.00011782682515089811, -0.018292322607198798},
     {0.07806982479208839, -0.04164414171275459, -0.10884079925584325, -0.44828664163244153,
      0.027921293564873953, 0.028454158880892408, -0.0029564908181068383, 0.05111421986387377,
      0.10644756073375641, -0.005550500487137219, -0.49846291516330166, -0.12526159594248598}},
    {"kl",
     "sum",
     {-3.820914549799717},
     {-0.9387912809451864, -0.5849835714501205, -0.16686198936008795, -0.0008526121026234401,
      -0.2125880267333654, -0.6418310927316131, -0.9637392153720179, -0.9346987451749127,
      -0.5766869310189322, -0.16063997633999377, -0.0014139219018107774, -0.2195078712863856},
     {0.9368378975050609, -0.4997297005530551, -1.3060895910701191, -5.379439699589299,
      0.3350555227784876, 0.34144990657070895, -0.03547788981728217, 0.6133706383664852,
      1.277370728805077, -0.0666060058456468, -5.981554981959619, -1.5031391513098318}},
    {"kl",
     "batchmean",
     {-1.2736381832665724},
     {-0.3129304269817288, -0.19499452381670682, -0.055620663120029314, -0.00028420403420781337,
      -0.07086267557778847, -0.21394369757720436, -0.32124640512400593, -0.31156624839163755,
      -0.19222897700631073, -0.053546658779997924, -0.00047130730060359244, -0.07316929042879519},
     {0.31227929916835356, -0.16657656685101835, -0.435363197023373, -1.7931465665297661,
      0.11168517425949581, 0.11381663552356963, -0.011825963272427353, 0.20445687945549507,
      0.42579024293502565, -0.022202001948548877, -1.9938516606532066, -0.5010463837699439}},
    {"kl_log",
     "none",
     {2.110654990693573, -0.9406164062248902, -0.6069818128411532, -0.11443205998741182,
      0.17369858026830526, 0.09102295806694428, -0.17966107883398777, 1.312723794236269,
      1.1438448154295695, 0.04223674894249036, -0.5228865029228955, -0.883222636068081},
     {2.4050785445725795, 0.8296861343963045, 0.20544708889659044, 0.03685072932612929,
      -0.11256078873416721, -0.6639921212943083, -2.0225010304221795, -2.6240204648455383,
      -1.6320650236305392, -0.8623519506265966, -0.7378424381359828, -1.312488384458205},
     {-4.515733535266152, -0.1712546500388814, 0.03734563623987083, -0.025407523327388097,
      0.14730050478782825, 0.7095036003277805, 1.8787721673549893, 4.068016638505434,
      3.2334477652319364, 0.9341544238288302, -0.3079305677098082, -0.7189236784983812}},
    {"kl_log",
     "mean",
     {0.13553178256322765},
     {-0.20042321204771496, -0.0987721588567029, -0.04280147685345634, -0.03070894110510771,
      -0.04690032863923635, -0.11066535354905138, -0.21067719066897708, -0.198789429154965,
      -0.0971467275970559, -0.04227215444248023, -0.030743434922332617, -0.04755392697312337},
     {0.376311127938846, 0.02038745833796206, -0.007780340883306418, 0.021172936106156726,
      0.061375210328261785, 0.11825060005463008, 0.1957054340994781, 0.3081830786746541,
      0.19246712888285336, 0.04579188352102109, -0.012830440321242014, -0.02604795936588339}},
    {"kl_log",
     "sum",
     {1.626381390758732},
     {-2.4050785445725795, -1.185265906280435, -0.5136177222414761, -0.36850729326129256,
      -0.5628039436708362, -1.3279842425886166, -2.528126288027725, -2.38547314985958,
      -1.165760731164671, -0.5072658533097628, -0.3689212190679914, -0.5706471236774805},
     {4.515733535266152, 0.24464950005554476, -0.0933640905996771, 0.2540752332738807,
      0.7365025239391414, 1.419007200655561, 2.3484652091937375, 3.698196944095849,
      2.3096055465942404, 0.5495026022522532, -0.1539652838549041, -0.31257551239060055}},
    {"kl_log",
     "batchmean",
     {0.5421271302529106},
     {-0.8016928481908598, -0.3950886354268116, -0.17120590741382535, -0.12283576442043084,
      -0.1876013145569454, -0.4426614141962055, -0.8427087626759083, -0.79515771661986,
      -0.3885869103882236, -0.16908861776992093, -0.12297373968933047, -0.19021570789249348},
     {1.505244511755384, 0.08154983335184823, -0.03112136353322567, 0.0846917444246269,
      0.24550084131304714, 0.4730024002185203, 0.7828217363979124, 1.2327323146986164,
      0.7698685155314134, 0.18316753408408437, -0.05132176128496806, -0.10419183746353355}},
};

using Loss = std::function<Tensor(const Tensor&, const Tensor&, Reduction)>;
Loss loss_named(const std::string& n) {
  if (n == "mse") {
    return [](const Tensor& a, const Tensor& b, Reduction r) {
      return F::mse_loss(a, b, F::MSELossFuncOptions().reduction(r));
    };
  }
  if (n == "l1") {
    return [](const Tensor& a, const Tensor& b, Reduction r) {
      return F::l1_loss(a, b, F::L1LossFuncOptions().reduction(r));
    };
  }
  if (n == "smooth_l1" || n == "smooth_l1_0") {
    const double beta = n == "smooth_l1" ? 0.7 : 0.0;
    return [beta](const Tensor& a, const Tensor& b, Reduction r) {
      return F::smooth_l1_loss(a, b, F::SmoothL1LossFuncOptions().reduction(r).beta(beta));
    };
  }
  if (n == "huber") {
    return [](const Tensor& a, const Tensor& b, Reduction r) {
      return F::huber_loss(a, b, F::HuberLossFuncOptions().reduction(r).delta(0.6));
    };
  }
  if (n == "bce") {
    return [](const Tensor& a, const Tensor& b, Reduction r) {
      return F::binary_cross_entropy(a, b,
                                     F::BinaryCrossEntropyFuncOptions().weight(kw()).reduction(r));
    };
  }
  if (n == "bce_logits") {
    return [](const Tensor& a, const Tensor& b, Reduction r) {
      return F::binary_cross_entropy_with_logits(
          a, b,
          F::BinaryCrossEntropyWithLogitsFuncOptions().weight(kw()).pos_weight(kpw()).reduction(r));
    };
  }
  if (n == "bce_logits_plain") {
    return [](const Tensor& a, const Tensor& b, Reduction r) {
      return F::binary_cross_entropy_with_logits(
          a, b, F::BinaryCrossEntropyWithLogitsFuncOptions().reduction(r));
    };
  }
  const bool log_target = n == "kl_log";
  return [log_target](const Tensor& a, const Tensor& b, Reduction r) {
    return F::kl_div(a, b, F::KLDivFuncOptions().reduction(r).log_target(log_target));
  };
}

std::pair<Tensor, Tensor> inputs(const std::string& n) {
  if (n == "bce") return {kp(), kq()};
  if (n == "bce_logits" || n == "bce_logits_plain" || n == "kl") return {kx(), kq()};
  return {kx(), kt()};
}

Reduction reduction_named(const std::string& r) {
  return r == "none" ? kNone : r == "mean" ? kMean : r == "sum" ? kSum : kBatchMean;
}

}  // namespace

TEST_CASE("losses: values and gradients against torch 1.13", "[nn]") {
  for (const Case& c : kCases) {
    INFO(c.name << " " << c.reduction);
    const auto [a0, b0] = inputs(c.name);
    const Tensor a = a0.requires_grad_(), b = b0.requires_grad_();
    const Reduction r = reduction_named(c.reduction);
    const Tensor y = loss_named(c.name)(a, b, r);
    require_close(values(y), c.out, 1e-12);
    if (r == kNone) {
      y.backward(arange(12, dtype(kDouble)).mul(0.3).sub(1).reshape({3, 4}));
    } else {
      y.backward();
    }
    require_close(values(a.grad()), c.grad_input, 1e-10);
    require_close(values(b.grad()), c.grad_target, 1e-10);
    // float32: the same values within float rounding
    const Tensor yf = loss_named(c.name)(a0.detach().to(kFloat), b0.detach().to(kFloat), r);
    // (the float64 weights of bce and bce_logits promote the result, as torch's ops do)
    const std::string n = c.name;
    CHECK(yf.dtype() == (n == "bce" || n == "bce_logits" ? kDouble : kFloat));
    require_close(values(yf), c.out, 1e-5);
  }
}

TEST_CASE("losses: node names", "[nn]") {
  const Tensor x = kx().requires_grad_(), t = kt();
  CHECK(node(mse_loss(x, t)) == "MseLossBackward0");
  CHECK(node(mse_loss(x, t, kNone)) == "MseLossBackward0");
  CHECK(node(l1_loss(x, t)) == "MeanBackward0");
  CHECK(node(l1_loss(x, t, kNone)) == "AbsBackward0");
  CHECK(node(smooth_l1_loss(x, t)) == "SmoothL1LossBackward0");
  CHECK(node(smooth_l1_loss(x, t, kSum, 0.0)) == "SmoothL1LossBackward0");
  CHECK(node(huber_loss(x, t)) == "HuberLossBackward0");
  CHECK(node(binary_cross_entropy(x.sigmoid(), kq())) == "BinaryCrossEntropyBackward0");
  CHECK(node(binary_cross_entropy_with_logits(x, kq())) == "BinaryCrossEntropyWithLogitsBackward0");
  CHECK(node(kl_div(x, kq(), kNone)) == "SubBackward0");
  CHECK(node(kl_div(x, kq())) == "MeanBackward0");
  CHECK(node(F::dropout(x, F::DropoutFuncOptions().p(0.3))) == "MulBackward0");
  CHECK(node(F::dropout(x, F::DropoutFuncOptions().p(1.0))) == "MulBackward0");
  // Nothing requires grad: no node; the target alone: a node too.
  CHECK(node(mse_loss(kx(), t)) == "None");
  CHECK(node(mse_loss(kx(), t.requires_grad_())) == "MseLossBackward0");
}

TEST_CASE("losses: gradcheck on contiguous, strided and broadcast inputs", "[nn]") {
  manual_seed(11);
  using Fn = std::function<Tensor(const std::vector<Tensor>&)>;
  const std::vector<std::pair<const char*, Fn>> ops{
      {"mse", [](const std::vector<Tensor>& v) { return mse_loss(v[0], v[1], kNone); }},
      {"l1", [](const std::vector<Tensor>& v) { return l1_loss(v[0], v[1], kSum); }},
      {"smooth_l1",
       [](const std::vector<Tensor>& v) { return smooth_l1_loss(v[0], v[1], kMean, 0.5); }},
      {"huber", [](const std::vector<Tensor>& v) { return huber_loss(v[0], v[1], kNone, 0.4); }},
      {"bce",
       [](const std::vector<Tensor>& v) {
         return binary_cross_entropy(v[0].sigmoid(), v[1].sigmoid(), arange(5, dtype(kDouble)),
                                     kMean);
       }},
      {"bce_logits",
       [](const std::vector<Tensor>& v) {
         return binary_cross_entropy_with_logits(v[0], v[1].sigmoid(), arange(5, dtype(kDouble)),
                                                 full({5}, 1.5, dtype(kDouble)), kSum);
       }},
      {"bce_logits plain",
       [](const std::vector<Tensor>& v) {
         return binary_cross_entropy_with_logits(v[0], v[1], {}, {}, kNone);
       }},
      {"kl", [](const std::vector<Tensor>& v) { return kl_div(v[0], v[1].exp(), kSum); }},
      {"kl log", [](const std::vector<Tensor>& v) { return kl_div(v[0], v[1], kMean, true); }},
      {"cosine_similarity",
       [](const std::vector<Tensor>& v) { return cosine_similarity(v[0], v[1], 1); }},
      {"cosine_similarity dim 0",
       [](const std::vector<Tensor>& v) { return cosine_similarity(v[0], v[1], 0); }},
      {"pairwise_distance",
       [](const std::vector<Tensor>& v) { return pairwise_distance(v[0], v[1]); }},
      {"pairwise_distance p=3 keepdim",
       [](const std::vector<Tensor>& v) { return pairwise_distance(v[0], v[1], 3, 1e-6, true); }},
      {"normalize", [](const std::vector<Tensor>& v) { return normalize(v[0].add(v[1])); }},
      {"normalize p=3",
       [](const std::vector<Tensor>& v) { return normalize(v[0].mul(v[1]), 3.0, 0); }},
  };
  for (const auto& [name, f] : ops) {
    for (const char* layout : {"contiguous", "transposed", "sliced", "broadcast"}) {
      INFO(name << " " << layout);
      const std::string l = layout;
      Tensor a;
      Tensor b = randn({4, 5}, dtype(kDouble));
      if (l == "transposed") {
        a = randn({5, 4}, dtype(kDouble)).t();
      } else if (l == "sliced") {
        a = randn({4, 10}, dtype(kDouble)).slice(1, 1, 10, 2);
      } else if (l == "broadcast") {  // a [1, 5] input against a [4, 5] target
        a = randn({1, 5}, dtype(kDouble));
      } else {
        a = randn({4, 5}, dtype(kDouble));
      }
      CHECK(autograd::gradcheck(f, {a.detach().requires_grad_(), b.requires_grad_()}));
    }
  }
  // Second derivatives of the recorded losses.
  for (const auto& [name, f] : ops) {
    INFO(name << " second derivative");
    const Tensor a = randn({4, 5}, dtype(kDouble)).requires_grad_();
    const Tensor b = randn({4, 5}, dtype(kDouble)).requires_grad_();
    CHECK(autograd::gradcheck(
        [&](const std::vector<Tensor>& v) {
          AutoGradMode on(true);
          return autograd::grad({f(v).sum()}, {v[0]}, {}, true, true)[0];
        },
        {a, b}));
  }
}

TEST_CASE("losses: broadcasting, dtypes and empty inputs", "[nn]") {
  // ATen broadcasts input against target (F.mse_loss in Python warns first).
  const Tensor y = mse_loss(kx(), from({0.5, -0.5, 0, 1}, {4}), kNone);
  CHECK(y.sizes() == IntArrayRef{3, 4});
  CHECK(values(y)[1] == Approx(std::pow(values(kx())[1] + 0.5, 2)));
  for (DType dt : {kHalf, kBFloat16}) {
    INFO(dt);
    const Tensor m = mse_loss(kx().to(dt), kt().to(dt));
    CHECK(m.dtype() == dt);
    CHECK(values(m)[0] == Approx(values(mse_loss(kx(), kt()))[0]).epsilon(2e-2));
    CHECK(binary_cross_entropy(kp().to(dt), kq().to(dt)).dtype() == dt);
    CHECK(binary_cross_entropy_with_logits(kx().to(dt), kq().to(dt)).dtype() == dt);
  }
  const Tensor e = empty({0, 4}, dtype(kDouble));
  CHECK(std::isnan(mse_loss(e, e).item<double>()));
  CHECK(mse_loss(e, e, kSum).item<double>() == 0);
  CHECK(mse_loss(e, e, kNone).sizes() == IntArrayRef{0, 4});
  CHECK(std::isnan(l1_loss(e, e).item<double>()));
  CHECK(std::isnan(binary_cross_entropy(e, e).item<double>()));
  CHECK(std::isnan(binary_cross_entropy_with_logits(e, e).item<double>()));
  CHECK(huber_loss(e, e, kNone).sizes() == IntArrayRef{0, 4});
  // BCE's logs are clamped at -100: a certain wrong answer costs 100.
  CHECK(binary_cross_entropy(from({0.0, 1.0}, {2}), from({1.0, 0.0}, {2})).item<double>() ==
        Approx(100));
  // batchmean of a 0-d input is the sum
  CHECK(F::kl_div(from({-1}, {}), from({0.5}, {}), F::KLDivFuncOptions().reduction(kBatchMean))
            .item<double>() == Approx(0.1534264097));
}

TEST_CASE("cosine_similarity and normalize against torch 1.13", "[nn]") {
  const Tensor x = from({1, 2, 3, 0, -1, 2}, {2, 3}), y = from({2, 0, 1, 1, 1, 1}, {2, 3});
  require_close(values(F::cosine_similarity(x, y)), {0.5976143046671969, 0.25819888974716115},
                1e-14);
  require_close(values(F::cosine_similarity(x, y, F::CosineSimilarityFuncOptions().dim(0))),
                {0.8944271909999159, -0.4472135954999579, 0.9805806756909201}, 1e-14);
  require_close(values(F::normalize(x)),
                {0.2672612419124244, 0.5345224838248488, 0.8017837257372732, 0.0,
                 -0.4472135954999579, 0.8944271909999159},
                1e-14);
  require_close(values(F::normalize(x, F::NormalizeFuncOptions().p(1).dim(0))),
                {1.0, 0.6666666666666666, 0.6, 0.0, -0.3333333333333333, 0.4}, 1e-14);
  // zero vectors: eps keeps both finite
  CHECK(values(cosine_similarity(zeros({1, 3}), ones({1, 3}))) == V{0});
  CHECK(values(normalize(zeros({1, 3}))) == V{0, 0, 0});
  // broadcasting and integer promotion to the common floating dtype
  CHECK(cosine_similarity(x, from({1, 1, 1}, {3})).sizes() == IntArrayRef{2});
  CHECK(cosine_similarity(x.to(kFloat), y.to(kLong)).dtype() == kFloat);
  REQUIRE_THROWS_WITH(cosine_similarity(x.to(kLong), y.to(kLong)),
                      "expected common dtype to be floating point, yet common dtype is Long");
  REQUIRE_THROWS_WITH(cosine_similarity(x, ones({2, 4}, dtype(kDouble))),
                      "The size of tensor a (3) must match the size of tensor b (4) at "
                      "non-singleton dimension 1");
}

TEST_CASE("pairwise_distance against torch 1.13", "[nn]") {
  const Tensor x = from({1, 2, 3, 4, 5, 6}, {2, 3}), y = from({1, 0, 1, -1, 2, 0.5}, {2, 3});
  require_close(values(F::pairwise_distance(x, y)), {2.8284285389599293, 8.015611455154435}, 1e-14);
  const Tensor k = F::pairwise_distance(x, y, F::PairwiseDistanceFuncOptions().p(1).keepdim(true));
  CHECK(k.sizes() == IntArrayRef{2, 1});
  require_close(values(k), {4.000003, 13.500003}, 1e-14);
  // broadcast against one row; p = inf; eps = 0
  require_close(values(pairwise_distance(x, y[0], INFINITY, 0)), {2, 5}, 1e-14);
  CHECK(pairwise_distance(x.requires_grad_(), y).grad_fn()->name() == "NormBackward1");
  // 0-d operands: the norm over the (only) dimension of the scalar difference
  CHECK(pairwise_distance(from({1}, {}), from({3}, {})).item<double>() ==
        Approx(1.999999).epsilon(1e-12));
  REQUIRE_THROWS_WITH(pairwise_distance(x, ones({5}, dtype(kDouble))),
                      "The size of tensor a (3) must match the size of tensor b (5) at "
                      "non-singleton dimension 1");
}

TEST_CASE("dropout", "[nn]") {
  manual_seed(5);
  const Tensor x = ones({200, 100}, dtype(kDouble));
  const Tensor y = F::dropout(x, F::DropoutFuncOptions().p(0.3));
  const V v = values(y);
  int64_t kept = 0;
  for (double e : v) {
    REQUIRE((e == 0 || std::abs(e - 1 / 0.7) < 1e-12));
    kept += e != 0;
  }
  CHECK(std::abs(double(kept) / 20000 - 0.7) < 0.02);
  // The gradient goes through the same mask.
  const Tensor a = ones({50}, dtype(kDouble)).requires_grad_();
  const Tensor b = dropout(a, 0.5, true);
  b.sum().backward();
  CHECK(values(a.grad()) == values(b.detach()));
  // A generator makes it reproducible; the default one moves on.
  Generator g1(42), g2(42);
  CHECK(values(F::dropout(x, F::DropoutFuncOptions().generator(g1))) ==
        values(F::dropout(x, F::DropoutFuncOptions().generator(g2))));
  CHECK(values(F::dropout(x)) != values(F::dropout(x)));
  // p = 0, evaluation mode and empty inputs return the input itself; p = 1 zeroes.
  CHECK(F::dropout(x, F::DropoutFuncOptions().p(0)).is_same(x));
  CHECK(F::dropout(x, F::DropoutFuncOptions().training(false)).is_same(x));
  const Tensor e = empty({0}, dtype(kDouble));
  CHECK(F::dropout(e).is_same(e));
  CHECK(values(F::dropout(from({1, 2}, {2}), F::DropoutFuncOptions().p(1))) == V{0, 0});
  // In place.
  const Tensor z = ones({1000}, dtype(kDouble));
  CHECK(F::dropout(z, F::DropoutFuncOptions().inplace(true)).is_same(z));
  const V zv = values(z);
  CHECK(std::count(zv.begin(), zv.end(), 0.0) > 300);
  CHECK(node(dropout_(ones({4}, dtype(kDouble)).requires_grad_().mul(1), 0.5, true)) ==
        "MulBackward0");
  // float32 and bfloat16 keep their dtype
  CHECK(dropout(ones({8}), 0.5, true).dtype() == kFloat);
  CHECK(dropout(ones({8}, dtype(kBFloat16)), 0.5, true).dtype() == kBFloat16);
  // p outside [0, 1]: RuntimeError from ATen, ValueError from F (as Python's F.dropout)
  REQUIRE_THROWS_AS(dropout(x, 1.5, true), Error);
  REQUIRE_THROWS_WITH(dropout(x, 1.5, true),
                      "dropout probability has to be between 0 and 1, but got 1.5");
  REQUIRE_THROWS_AS(F::dropout(x, F::DropoutFuncOptions().p(-0.1)), ValueError);
  REQUIRE_THROWS_WITH(F::dropout(x, F::DropoutFuncOptions().p(-0.1)),
                      "dropout probability has to be between 0 and 1, but got -0.1");
}

TEST_CASE("losses: error paths", "[nn]") {
  const Tensor x = kx(), t = kt();
  REQUIRE_THROWS_AS(reduction_from_string("foo"), ValueError);
  REQUIRE_THROWS_WITH(reduction_from_string("foo"), "foo is not a valid value for reduction");
  REQUIRE_THROWS_WITH(reduction_from_string("batchmean"),
                      "batchmean is not a valid value for reduction");
  CHECK(reduction_from_string("batchmean", true) == kBatchMean);
  CHECK(reduction_from_string("sum") == kSum);
  REQUIRE_THROWS_AS(mse_loss(x, t, kBatchMean), ValueError);
  REQUIRE_THROWS_WITH(mse_loss(x, ones({4, 4}, dtype(kDouble))),
                      "The size of tensor a (3) must match the size of tensor b (4) at "
                      "non-singleton dimension 0");
  const Tensor l = ones({3}, dtype(kLong));
  REQUIRE_THROWS_WITH(mse_loss(l, l), "\"mse_cpu\" not implemented for 'Long'");
  REQUIRE_THROWS_WITH(smooth_l1_loss(l, l), "\"smooth_l1_cpu\" not implemented for 'Long'");
  REQUIRE_THROWS_WITH(huber_loss(l, l), "\"huber_cpu\" not implemented for 'Long'");
  REQUIRE_THROWS_WITH(binary_cross_entropy(l, l),
                      "\"binary_cross_entropy\" not implemented for 'Long'");
  REQUIRE_THROWS_WITH(kl_div(l, l), "kl_div: Integral inputs not supported.");
  REQUIRE_THROWS_WITH(smooth_l1_loss(x, t, kMean, -1),
                      "smooth_l1_loss does not support negative values for beta.");
  REQUIRE_THROWS_WITH(huber_loss(x, t, kMean, 0),
                      "huber_loss does not support non-positive values for delta.");
  REQUIRE_THROWS_WITH(binary_cross_entropy(x, kq()),
                      "all elements of input should be between 0 and 1");
  REQUIRE_THROWS_WITH(binary_cross_entropy(from({NAN}, {1}), from({1}, {1})),
                      "all elements of input should be between 0 and 1");
  const Tensor wg = ones({4}, dtype(kDouble)).requires_grad_();
  REQUIRE_THROWS_WITH(binary_cross_entropy(kp(), kq(), wg),
                      "The function 'binary_cross_entropy' is not differentiable with respect to "
                      "argument 'weight'. This input cannot have requires_grad True.");
  REQUIRE_THROWS_WITH(binary_cross_entropy_with_logits(x, kq(), wg),
                      "The function 'binary_cross_entropy_with_logits' is not differentiable with "
                      "respect to argument 'weight'. This input cannot have requires_grad True.");
  REQUIRE_THROWS_WITH(binary_cross_entropy_with_logits(x, kq(), {}, wg),
                      "The function 'binary_cross_entropy_with_logits' is not differentiable with "
                      "respect to argument 'pos_weight'. This input cannot have requires_grad "
                      "True.");
}

}  // namespace nn_functional_loss_test
