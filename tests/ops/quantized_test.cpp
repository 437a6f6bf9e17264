// Quantized tensors (ops/quantized.hpp, core/quantizer.hpp): values against PyTorch's rules
// computed here, against PyTorch 1.13 itself (data/quantized_cases.txt, written by
// data/make_quantized.py), every error path, and views sharing storage and quantizer.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <tensorplay/ops/quantized.hpp>
#include <tensorplay/tensorplay.hpp>

namespace ops_quantized_test {

using namespace tensorplay;
using I = std::vector<int64_t>;

// One record of the data file: key -> its whitespace-separated values (repr: the rest of the
// line, unescaped).
struct Case {
  std::string op;
  std::map<std::string, std::vector<std::string>> f;
  std::string repr;
  const std::vector<std::string>& at(const std::string& k) const {
    auto it = f.find(k);
    if (it == f.end()) throw std::runtime_error("case " + op + " lacks " + k);
    return it->second;
  }
  bool has(const std::string& k) const { return f.count(k) > 0; }
  I ints(const std::string& k) const {
    I v;
    for (const auto& s : at(k)) v.push_back(std::stoll(s));
    return v;
  }
  I shape(const std::string& k) const {
    if (at(k).size() == 1 && at(k)[0] == "-") return {};
    return ints(k);
  }
  std::vector<float> floats(const std::string& k) const {
    std::vector<float> v;
    for (const auto& s : at(k)) v.push_back(std::strtof(s.c_str(), nullptr));
    return v;
  }
  std::vector<double> doubles(const std::string& k) const {
    std::vector<double> v;
    for (const auto& s : at(k)) v.push_back(std::strtod(s.c_str(), nullptr));
    return v;
  }
  double d(const std::string& k) const { return doubles(k).at(0); }
  int64_t i(const std::string& k) const { return ints(k).at(0); }
};

std::vector<Case> load_cases() {
  std::ifstream in(std::filesystem::path(__FILE__).parent_path() / "data" / "quantized_cases.txt");
  REQUIRE(in.good());
  std::vector<Case> cases;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    if (line.rfind("case ", 0) == 0) {
      cases.emplace_back();
      cases.back().op = line.substr(5);
    } else if (line == "end") {
      continue;
    } else if (line.rfind("repr ", 0) == 0) {
      std::string r;
      for (std::size_t k = 5; k < line.size(); ++k) {
        if (line[k] == '\\' && k + 1 < line.size() && line[k + 1] == 'n') {
          r += '\n';
          ++k;
        } else {
          r += line[k];
        }
      }
      cases.back().repr = r;
    } else {
      std::istringstream ss(line);
      std::string key, v;
      ss >> key;
      auto& vals = cases.back().f[key];
      while (ss >> v) vals.push_back(v);
    }
  }
  return cases;
}

Tensor floats_tensor(const std::vector<float>& v, const I& shape) {
  Tensor t = empty(shape, TensorOptions().dtype(kFloat));
  std::copy(v.begin(), v.end(), t.data_ptr<float>());
  return t;
}
template <class T>
Tensor typed_tensor(const I& v, const I& shape) {
  Tensor t = empty(shape, TensorOptions().dtype(dtype_of<T>));
  for (std::size_t k = 0; k < v.size(); ++k) t.data_ptr<T>()[k] = static_cast<T>(v[k]);
  return t;
}
Tensor doubles_tensor(const std::vector<double>& v) {
  Tensor t = empty({static_cast<int64_t>(v.size())}, TensorOptions().dtype(kDouble));
  std::copy(v.begin(), v.end(), t.data_ptr<double>());
  return t;
}
I int_values(const Tensor& t) {
  const Tensor c = t.to(kLong).contiguous();
  return I(c.data_ptr<int64_t>(), c.data_ptr<int64_t>() + c.numel());
}
std::vector<float> float_values(const Tensor& t) {
  const Tensor c = t.contiguous();
  return std::vector<float>(c.data_ptr<float>(), c.data_ptr<float>() + c.numel());
}
I vec(IntArrayRef r) { return I(r.begin(), r.end()); }

// The integers of a quantized tensor made from `ints` of its underlying dtype.
Tensor make_q(DType qdt, const I& ints, const I& shape, double scale, int64_t zp) {
  const DType u = toUnderlying(qdt);
  Tensor raw = u == kByte ? typed_tensor<uint8_t>(ints, shape)
                          : (u == kChar ? typed_tensor<int8_t>(ints, shape)
                                        : typed_tensor<int32_t>(ints, shape));
  return _make_per_tensor_quantized_tensor(raw, scale, zp);
}

// PyTorch's quantize_val written out from its definition (round half to even of value / scale
// in float, plus the zero point, clamped), independent of the library's helper.
int64_t reference_quantize(float value, double scale, int64_t zp, int64_t qmin, int64_t qmax) {
  const float inv = 1.0f / static_cast<float>(scale);
  const float r = static_cast<float>(zp) + std::nearbyint(value * inv);
  if (!(std::fabs(r) < 9.2e18f)) return qmin;
  return std::min(qmax, std::max(qmin, static_cast<int64_t>(r)));
}

TEST_CASE("quantized dtypes: names, sizes, promotion, and the dense tables untouched",
          "[ops][quantized]") {
  STATIC_REQUIRE(kNumDTypes == 10);
  STATIC_REQUIRE(itemsize(kQUInt8) == 1);
  STATIC_REQUIRE(itemsize(kQInt8) == 1);
  STATIC_REQUIRE(itemsize(kQInt32) == 4);
  STATIC_REQUIRE(toUnderlying(kQUInt8) == kByte);
  STATIC_REQUIRE(is_quantized(kQInt32) && !is_quantized(kInt));
  STATIC_REQUIRE(!is_floating_point(kQInt8) && !is_integral(kQInt8, true));
  CHECK(dtype_name(kQUInt8) == "quint8");
  CHECK(dtype_name(kQInt8) == "qint8");
  CHECK(dtype_name(kQInt32) == "qint32");
  std::ostringstream os;
  os << kQUInt8 << ' ' << kPerTensorAffine << ' ' << kPerChannelAffine;
  CHECK(os.str() == "tensorplay.quint8 tensorplay.per_tensor_affine tensorplay.per_channel_affine");
  CHECK(parse_dtype("tensorplay.qint32") == kQInt32);
  CHECK(promote_types(kQUInt8, kQUInt8) == kQUInt8);
  CHECK_THROWS_WITH(promote_types(kQUInt8, kFloat),
                    "promoteTypes with quantized numbers is not handled yet; figure out what the "
                    "correct rules should be, offending types: QUInt8 Float");
  CHECK_THROWS_AS(to_quantized_dtype(kFloat), ValueError);
  CHECK(to_quantized_dtype(kInt) == kQInt32);
}

TEST_CASE("quantize_per_tensor follows PyTorch's rounding and clamping", "[ops][quantized]") {
  // Ties go to even before the zero point is added; values past the range clamp; NaN and
  // infinities land on the minimum, as torch's conversion to int64 does on x86.
  const std::vector<float> v = {0.5f,
                                1.5f,
                                2.5f,
                                -0.5f,
                                -1.5f,
                                300.0f,
                                -300.0f,
                                std::numeric_limits<float>::quiet_NaN(),
                                std::numeric_limits<float>::infinity(),
                                3e9f};
  const Tensor x = floats_tensor(v, {10});
  for (DType dt : {kQUInt8, kQInt8, kQInt32}) {
    const int64_t qmin = dt == kQUInt8 ? 0 : (dt == kQInt8 ? -128 : INT32_MIN);
    const int64_t qmax = dt == kQUInt8 ? 255 : (dt == kQInt8 ? 127 : INT32_MAX);
    const Tensor q = quantize_per_tensor(x, 1.0, 1, dt);
    CHECK(q.dtype() == dt);
    CHECK(q.is_quantized());
    CHECK(q.qscheme() == kPerTensorAffine);
    CHECK(q.q_scale() == 1.0);
    CHECK(q.q_zero_point() == 1);
    const I got = int_values(q.int_repr());
    for (std::size_t k = 0; k < v.size(); ++k)
      CHECK(got[k] == reference_quantize(v[k], 1.0, 1, qmin, qmax));
  }
  const I ties = int_values(quantize_per_tensor(x, 1.0, 1, kQInt8).int_repr());
  CHECK(I(ties.begin(), ties.begin() + 5) == I{1, 3, 3, 1, -1});
  // int_repr is a new contiguous tensor of the underlying dtype.
  const Tensor q = quantize_per_tensor(x, 1.0, 1, kQUInt8);
  CHECK(q.int_repr().dtype() == kByte);
  CHECK_FALSE(q.int_repr().is_alias_of(q));
}

TEST_CASE("quantized values and reprs match PyTorch 1.13 (generated cases)", "[ops][quantized]") {
  const std::vector<Case> cases = load_cases();
  REQUIRE(cases.size() > 100);
  int checked = 0, reprs = 0;
  for (const Case& c : cases) {
    INFO("case " << c.op << " #" << checked);
    if (c.op == "quantize_per_tensor" || c.op == "quantize_per_channel") {
      const DType dt = parse_dtype(c.at("dtype")[0]);
      const Tensor x = floats_tensor(c.floats("input"), c.shape("shape"));
      const Tensor q = c.op == "quantize_per_tensor"
                           ? quantize_per_tensor(x, c.d("scale"), c.i("zp"), dt)
                           : quantize_per_channel(
                                 x, doubles_tensor(c.doubles("scales")),
                                 typed_tensor<int64_t>(
                                     c.ints("zps"), {static_cast<int64_t>(c.ints("zps").size())}),
                                 c.i("axis"), dt);
      CHECK(vec(q.sizes()) == c.shape("shape"));
      CHECK(int_values(q.int_repr()) == c.ints("int"));
      // Bit for bit, except where PyTorch's qint32 kernel wraps q - zero_point in int32 (q at
      // the ends of the range): there the exact difference is expected.
      const std::vector<float> deq = float_values(q.dequantize());
      std::vector<float> want = c.floats("deq");
      const I qi = c.ints("int");
      REQUIRE(deq.size() == want.size());
      for (std::size_t k = 0; k < deq.size(); ++k) {
        const int64_t zp = c.op == "quantize_per_tensor" ? c.i("zp") : 0;
        const int64_t diff = qi[k] - zp;
        if (c.op == "quantize_per_tensor" && (diff > INT32_MAX || diff < INT32_MIN))
          want[k] = static_cast<float>(diff) * static_cast<float>(c.d("scale"));
        CHECK(deq[k] == want[k]);
      }
      if (!c.repr.empty()) {
        CHECK(q.toString() == c.repr);
        ++reprs;
      }
    } else if (c.op == "linear") {
      const Tensor x =
          make_q(kQUInt8, c.ints("x_int"), c.shape("x_shape"), c.d("x_scale"), c.i("x_zp"));
      const I ws = c.shape("w_shape");
      Tensor w;
      if (c.has("w_scale")) {
        w = make_q(kQInt8, c.ints("w_int"), ws, c.d("w_scale"), c.i("w_zp"));
      } else {
        w = _make_per_channel_quantized_tensor(typed_tensor<int8_t>(c.ints("w_int"), ws),
                                               doubles_tensor(c.doubles("w_scales")),
                                               typed_tensor<int64_t>(c.ints("w_zps"), {ws[0]}), 0);
      }
      const Tensor bias = floats_tensor(c.floats("bias"), {ws[0]});
      const Tensor y = quantized::linear(x, w, bias, c.d("scale"), c.i("zp"));
      const I got = int_values(y.int_repr()), want = c.ints("int");
      REQUIRE(got.size() == want.size());
      // torch's kernel requantizes the int32 sum with its own float roundings: one step.
      for (std::size_t k = 0; k < got.size(); ++k) CHECK(std::abs(got[k] - want[k]) <= 1);
    } else {
      const DType dt = parse_dtype(c.at("dtype")[0]);
      const Tensor a = make_q(dt, c.ints("a_int"), c.shape("shape_a"), c.d("a_scale"), c.i("a_zp"));
      const Tensor b = make_q(dt, c.ints("b_int"), c.shape("shape_b"), c.d("b_scale"), c.i("b_zp"));
      Tensor r;
      if (c.op == "add") r = quantized::add(a, b, c.d("scale"), c.i("zp"));
      if (c.op == "add_relu") r = quantized::add_relu(a, b, c.d("scale"), c.i("zp"));
      if (c.op == "mul") r = quantized::mul(a, b, c.d("scale"), c.i("zp"));
      if (c.op == "mul_relu") r = quantized::mul_relu(a, b, c.d("scale"), c.i("zp"));
      REQUIRE(r.defined());
      CHECK(r.q_scale() == c.d("scale"));
      CHECK(r.q_zero_point() == c.i("zp"));
      CHECK(int_values(r.int_repr()) == c.ints("int"));
    }
    ++checked;
  }
  CHECK(checked == static_cast<int>(cases.size()));
  CHECK(reprs > 20);
}

TEST_CASE("quantize and make: every argument check", "[ops][quantized]") {
  const Tensor x = floats_tensor({-1.0f, 0.0f, 0.26f, 2.5f, 3.0f, 100.0f}, {2, 3});
  const Tensor s2 = doubles_tensor({0.1, 0.2});
  const Tensor z2 = typed_tensor<int64_t>({0, 5}, {2});
  CHECK_THROWS_WITH(quantize_per_tensor(x, 0.1, 10, kFloat),
                    "ScalarType Float is not supported in new_qtensor.");
  CHECK_THROWS_WITH(quantize_per_tensor(x.to(kDouble), 0.1, 10, kQUInt8),
                    "Quantize only works on Float Tensor, got Double");
  CHECK_THROWS_WITH(quantize_per_tensor(x, 0.1, 300, kQUInt8),
                    "quantize_tensor_per_tensor_affine zero_point 300 is above upper bound.");
  CHECK_THROWS_WITH(quantize_per_tensor(x, 0.1, -1, kQUInt8),
                    "quantize_tensor_per_tensor_affine zero_point -1 is below lower bound.");
  CHECK_THROWS_AS(quantize_per_tensor(x, 0.0, 0, kQInt8), ValueError);
  CHECK_THROWS_AS(quantize_per_tensor(x, -0.1, 0, kQInt8), ValueError);
  CHECK_THROWS_AS(quantize_per_tensor(x, std::nan(""), 0, kQInt8), ValueError);
  CHECK_THROWS_WITH(quantize_per_tensor(Tensor(), 0.1, 0, kQInt8),
                    "quantize_per_tensor: the tensor is undefined");

  CHECK_THROWS_WITH(quantize_per_channel(x, s2, z2, 0, kFloat),
                    "ScalarType Float is not supported in new_qtensor.");
  CHECK_THROWS_AS(quantize_per_channel(x, s2, z2, 2, kQInt8), IndexError);
  CHECK_THROWS_WITH(quantize_per_channel(x, s2, z2, -1, kQInt8),
                    "Channel axis out of range in per channel affine quantization. Got: "
                    "-1Expected: [0, 2)");
  CHECK_THROWS_WITH(quantize_per_channel(x.to(kInt), s2, z2, 0, kQUInt8),
                    "quantize_tensor_per_channel_affine expects a Float Tensor, got Int");
  CHECK_THROWS_WITH(quantize_per_channel(x, s2.view({1, 2}), z2, 0, kQInt8),
                    "scale tensor must have dimension 1");
  CHECK_THROWS_WITH(quantize_per_channel(x, s2, z2.view({1, 2}), 0, kQInt8),
                    "zero_points tensor must have dimension 1");
  CHECK_THROWS_WITH(quantize_per_channel(x, s2, typed_tensor<int64_t>({0, 5, 1}, {3}), 0, kQInt8),
                    "number of elements in scales and zero_points must match");
  CHECK_THROWS_WITH(quantize_per_channel(x, doubles_tensor({0.1, 0.2, 0.3}),
                                         typed_tensor<int64_t>({0, 5, 1}, {3}), 0, kQInt8),
                    "length of scales must equal to channel");
  CHECK_THROWS_WITH(quantize_per_channel(x, s2, typed_tensor<int64_t>({0, 500}, {2}), 0, kQUInt8),
                    "quantize_tensor_per_channel_affine zero_point 500 is above upper bound.");
  CHECK_THROWS_AS(quantize_per_channel(x, s2, z2.to(kFloat), 0, kQUInt8), NotImplementedError);
  CHECK_THROWS_AS(quantize_per_channel(x, typed_tensor<bool>({1, 1}, {2}), z2, 0, kQUInt8),
                  TypeError);
  CHECK_THROWS_AS(quantize_per_channel(x, doubles_tensor({0.1, 0.0}), z2, 0, kQUInt8), ValueError);
  CHECK_THROWS_WITH(quantize_per_channel(Tensor(), s2, z2, 0, kQUInt8),
                    "quantize_per_channel: a tensor is undefined");

  const Tensor raw = typed_tensor<uint8_t>({1, 2, 255}, {3});
  const Tensor m = _make_per_tensor_quantized_tensor(raw, 0.5, 3);
  CHECK(m.dtype() == kQUInt8);
  CHECK(float_values(m.dequantize()) == std::vector<float>{-1.0f, -0.5f, 126.0f});
  CHECK_FALSE(m.is_alias_of(raw));  // a copy of the integers, as PyTorch's
  CHECK_THROWS_WITH(_make_per_tensor_quantized_tensor(x, 0.5, 3),
                    "Creation of quantized tensor requires quantized dtype like torch.quint8");
  CHECK_THROWS_WITH(_make_per_tensor_quantized_tensor(typed_tensor<int16_t>({1}, {1}), 0.5, 3),
                    "Creation of quantized tensor requires quantized dtype like torch.quint8");
  CHECK_THROWS_AS(_make_per_tensor_quantized_tensor(raw, -1.0, 3), ValueError);
  CHECK_THROWS_WITH(_make_per_tensor_quantized_tensor(raw, 0.5, 256),
                    "_make_per_tensor_quantized_tensor zero_point 256 is above upper bound.");
  CHECK_THROWS_WITH(_make_per_tensor_quantized_tensor(Tensor(), 0.5, 3),
                    "_make_per_tensor_quantized_tensor: the tensor is undefined");
  const Tensor raw2 = typed_tensor<int8_t>({1, 2}, {1, 2});
  const Tensor pc = _make_per_channel_quantized_tensor(raw2, s2, z2, 1);
  CHECK(pc.q_per_channel_axis() == 1);
  CHECK(int_values(pc.q_per_channel_zero_points()) == I{0, 5});
  CHECK_THROWS_WITH(_make_per_channel_quantized_tensor(x, s2, z2, 1),
                    "Creation of quantized tensor requires quantized dtype like torch.quint8");
  CHECK_THROWS_AS(_make_per_channel_quantized_tensor(raw2, s2, z2, 2), IndexError);
  CHECK_THROWS_WITH(_make_per_channel_quantized_tensor(raw2, s2, z2, 0),
                    "length of scales must equal to channel");
  CHECK_THROWS_WITH(
      _make_per_channel_quantized_tensor(raw2, s2, typed_tensor<int64_t>({0, 300}, {2}), 1),
      "_make_per_channel_quantized_tensor zero_point 300 is above upper bound.");
  CHECK_THROWS_AS(_make_per_channel_quantized_tensor(raw2, doubles_tensor({0.1, -1}), z2, 1),
                  ValueError);
  CHECK_THROWS_WITH(_make_per_channel_quantized_tensor(Tensor(), s2, z2, 1),
                    "_make_per_channel_quantized_tensor: a tensor is undefined");
}

TEST_CASE("accessors: per-tensor, per-channel, and dense tensors", "[ops][quantized]") {
  const Tensor x = floats_tensor({-1.0f, 0.0f, 0.26f, 2.5f, 3.0f, 100.0f}, {2, 3});
  const Tensor q = quantize_per_tensor(x, 0.1, 10, kQUInt8);
  const Tensor pc = quantize_per_channel(x, doubles_tensor({0.1, 0.2}),
                                         typed_tensor<int64_t>({0, 5}, {2}), 0, kQInt8);
  CHECK(pc.qscheme() == kPerChannelAffine);
  CHECK(pc.q_per_channel_scales().dtype() == kDouble);
  CHECK(pc.q_per_channel_scales().data_ptr<double>()[1] == 0.2);
  CHECK(pc.q_per_channel_zero_points().dtype() == kLong);
  CHECK(int_values(pc.int_repr()) == I{-10, 0, 3, 17, 20, 127});
  CHECK(pc.int_repr().dtype() == kChar);
  CHECK_THROWS_WITH(pc.q_scale(),
                    "Expected quantizer->qscheme() == kPerTensorAffine to be true, but got false.");
  CHECK_THROWS_WITH(pc.q_zero_point(),
                    "Expected quantizer->qscheme() == kPerTensorAffine to be true, but got false.");
  CHECK_THROWS_WITH(
      q.q_per_channel_axis(),
      "Expected quantizer->qscheme() == kPerChannelAffine to be true, but got false.");
  CHECK_THROWS_AS(q.q_per_channel_scales(), Error);
  CHECK_THROWS_AS(q.q_per_channel_zero_points(), Error);
  // A dense tensor: PyTorch's "Could not run 'aten::q_scale' with arguments from the 'CPU'
  // backend".
  for (auto f :
       {+[](const Tensor& t) { (void)t.q_scale(); },
        +[](const Tensor& t) { (void)t.q_zero_point(); },
        +[](const Tensor& t) { (void)t.qscheme(); }, +[](const Tensor& t) { (void)t.int_repr(); },
        +[](const Tensor& t) { (void)t.q_per_channel_axis(); },
        +[](const Tensor& t) { (void)t.q_per_channel_scales(); },
        +[](const Tensor& t) { (void)t.q_per_channel_zero_points(); }}) {
    CHECK_THROWS_AS(f(x), NotImplementedError);
  }
  CHECK_THROWS_WITH(x.q_scale(), Catch::StartsWith("Could not run 'aten::q_scale' with "
                                                   "arguments from the 'CPU' backend"));
  // dequantize of a dense tensor is the tensor itself, as torch's.
  CHECK(x.dequantize().is_same(x));
  CHECK_THROWS_AS(dequantize(Tensor()), Error);
  // empty() with a quantized dtype makes integers with no parameters: usable only through
  // clear errors.
  const Tensor bare = empty({2}, TensorOptions().dtype(kQUInt8));
  CHECK(bare.nbytes() == 2);
  CHECK_THROWS_WITH(bare.q_scale(), Catch::Contains("has no quantizer"));
  CHECK_THROWS_WITH(bare.dequantize(), Catch::Contains("has no quantizer"));
  CHECK(empty({2}, TensorOptions().dtype(kQInt32)).nbytes() == 8);
}

TEST_CASE("dense ops refuse quantized tensors at the dispatch point", "[ops][quantized]") {
  const Tensor x = floats_tensor({1.0f, 2.0f, 3.0f}, {3});
  const Tensor q = quantize_per_tensor(x, 0.1, 10, kQUInt8);
  const std::string msg =
      "Could not run this operation with arguments from the 'QuantizedCPU' "
      "backend";
  CHECK_THROWS_WITH(q + q, Catch::StartsWith(msg));
  CHECK_THROWS_AS(q + q, NotImplementedError);
  CHECK_THROWS_WITH(q.exp(), Catch::StartsWith(msg));
  CHECK_THROWS_AS(q.sum(), Error);
  CHECK_THROWS_WITH(q.neg(), Catch::StartsWith(msg));
  CHECK_THROWS_WITH(q.to(kFloat),
                    "Copying from quantized Tensor to non-quantized Tensor is not allowed, please "
                    "use dequantize to get a float Tensor from a quantized Tensor");
  CHECK_THROWS_WITH(x + q, Catch::StartsWith(msg));
  CHECK_THROWS_WITH(result_type(x, q), Catch::Contains("promoteTypes with quantized numbers"));
  CHECK_THROWS_WITH(q.view(kByte), Catch::StartsWith("view(dtype) is not supported for quantized"));
  CHECK_THROWS_WITH(q[0].item(), Catch::StartsWith(msg));
}

TEST_CASE("clone, copy_, fill_, relu, comparisons and equal on quantized tensors",
          "[ops][quantized]") {
  const Tensor x = floats_tensor({-1.0f, 0.0f, 0.26f, 2.5f, 3.0f, 100.0f}, {2, 3});
  const Tensor q = quantize_per_tensor(x, 0.1, 10, kQUInt8);
  const Tensor qi = quantize_per_tensor(x, 0.1, 10, kQInt8);
  const Tensor pc = quantize_per_channel(x, doubles_tensor({0.1, 0.2}),
                                         typed_tensor<int64_t>({0, 5}, {2}), 0, kQInt8);

  const Tensor c = q.clone();
  CHECK_FALSE(c.is_alias_of(q));
  CHECK(c.quantizer() == q.quantizer());  // immutable: shared
  CHECK(int_values(c.int_repr()) == int_values(q.int_repr()));
  // A transposed (non-contiguous) clone keeps its layout and values.
  const Tensor ct = q.t().clone();
  CHECK(vec(ct.strides()) == I{1, 3});
  CHECK(int_values(ct.int_repr()) == int_values(q.t().int_repr()));
  CHECK(int_values(q.t().contiguous().int_repr()) == I{0, 35, 10, 40, 13, 255});
  CHECK(pc.clone().equal(pc));

  // copy_ from a quantized tensor of the same scheme takes its integers and parameters.
  Tensor d =
      quantize_per_tensor(floats_tensor(std::vector<float>(6, 0.0f), {2, 3}), 0.5, 1, kQUInt8);
  d.copy_(q);
  CHECK(d.q_scale() == 0.1);
  CHECK(int_values(d.int_repr()) == int_values(q.int_repr()));
  CHECK(d._version() == 1);
  // from float32: quantized with the destination's own parameters (per-channel too).
  Tensor e = q.clone();
  e.copy_(floats_tensor({0.5f, 0.5f, 0.5f, 0.5f, 0.5f, 0.5f}, {2, 3}));
  CHECK(int_values(e.int_repr()) == I(6, 15));
  Tensor pcc = pc.clone();
  pcc.copy_(floats_tensor(std::vector<float>(6, 1.0f), {2, 3}));
  CHECK(int_values(pcc.int_repr()) == I{10, 10, 10, 10, 10, 10});
  CHECK_THROWS_WITH(q.clone().copy_(qi),
                    "Expected self.scalar_type() == src.scalar_type() to be true, but got false.");
  CHECK_THROWS_WITH(qi.clone().copy_(pc), "Quantized Copy only works with same qscheme");
  CHECK_THROWS_WITH(q.clone().copy_(x.to(kInt)),
                    "Quantized copy only works with kFloat as source Tensor");
  CHECK_THROWS_WITH(q.clone().copy_(x[0]),
                    "Quantized copy only works with Tensors with the same shape");
  CHECK_THROWS_WITH(x.clone().copy_(q),
                    "Copying from quantized Tensor to non-quantized Tensor is not allowed, please "
                    "use dequantize to get a float Tensor from a quantized Tensor");

  Tensor f = q.clone();
  f.fill_(0.26);
  CHECK(int_values(f.int_repr()) == I(6, 13));
  Tensor pf = pc.clone();
  pf.fill_(0.26);
  CHECK(int_values(pf.int_repr()) == I{3, 3, 3, 6, 6, 6});
  // fill_ through a view writes the base.
  Tensor g = q.clone();
  g[1].fill_(0.0);
  CHECK(int_values(g.int_repr()) == I{0, 10, 13, 10, 10, 10});

  const Tensor r = q.relu();
  CHECK(r.is_quantized());
  CHECK(r.q_zero_point() == 10);
  CHECK(int_values(r.int_repr()) == I{10, 10, 13, 35, 40, 255});
  Tensor r2 = q.clone();
  r2.relu_();
  CHECK(int_values(r2.int_repr()) == I{10, 10, 13, 35, 40, 255});
  CHECK_THROWS_WITH(pc.relu(),
                    "Expected quantizer->qscheme() == kPerTensorAffine to be true, but got false.");

  // Comparisons dequantize, as PyTorch's.
  const Tensor eq = (q == qi);
  CHECK(eq.dtype() == kBool);
  CHECK(int_values(eq) == I{1, 1, 1, 1, 1, 0});
  CHECK(int_values(q == 0.3) == I{0, 0, 1, 0, 0, 0});
  CHECK(int_values(q != x) == I{0, 0, 1, 0, 0, 1});
  CHECK(int_values(q > 2.0) == I{0, 0, 0, 1, 1, 1});

  CHECK(q.equal(quantize_per_tensor(x, 0.1, 10, kQUInt8)));
  CHECK_FALSE(q.equal(quantize_per_tensor(x, 0.2, 10, kQUInt8)));
  CHECK_FALSE(q.equal(quantize_per_tensor(x.neg(), 0.1, 10, kQUInt8)));
  CHECK_FALSE(q.equal(qi));
  CHECK_FALSE(q.equal(q[0]));
  CHECK(quantize_per_tensor(x, 0.1, 10, kQUInt8).t().equal(q.t().clone()));
  CHECK_THROWS_WITH(q.equal(x),
                    Catch::StartsWith("equal: a quantized tensor can only be compared"));
}

TEST_CASE("views of a per-tensor quantized tensor share storage and quantizer",
          "[ops][quantized][views]") {
  Tensor x = floats_tensor({0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}, {3, 4});
  const Tensor q = quantize_per_tensor(x, 0.5, 3, kQInt8);
  const auto& qz = q.quantizer();
  for (const Tensor& v :
       {q.select(0, 1), q.slice(1, 1, 3), q.t(), q.view({4, 3}), q.permute({1, 0}), q.unsqueeze(0),
        q.reshape({12}), q.expand({2, 3, 4}), q.as_strided({2, 2}, {4, 1}, 1),
        q.transpose(0, 1).select(0, 2), q.narrow(0, 1, 2), q.flatten(), q.detach(), q.alias()}) {
    CHECK(v.is_alias_of(q));
    CHECK(v.quantizer() == qz);
    CHECK(v.dtype() == kQInt8);
  }
  CHECK(int_values(q.t()[1].int_repr()) == I{5, 13, 21});  // x / 0.5 + 3 for 1, 5, 9
  CHECK(float_values(q.select(1, 2).dequantize()) == std::vector<float>{2, 6, 10});
  // Writes through a view reach the base, and bump the shared version.
  Tensor w = q.clone();
  w.t()[0].copy_(floats_tensor({-1, -1, -1}, {3}));
  CHECK(float_values(w.select(1, 0).dequantize()) == std::vector<float>{-1, -1, -1});
  // set_data (Python's `t.data = q`) takes the quantizer with the bytes.
  Tensor holder = q.clone();
  holder.set_data(q.select(0, 1));
  CHECK(holder.quantizer() == q.quantizer());
  CHECK(int_values(holder.int_repr()) == I{11, 13, 15, 17});
  // In-place geometry changes are allowed for per-tensor tensors.
  Tensor ip = q.clone();
  ip.t_();
  CHECK(vec(ip.sizes()) == I{4, 3});
  CHECK(ip.quantizer() == q.quantizer());
}

TEST_CASE("views of a per-channel quantized tensor keep the channel axis consistent",
          "[ops][quantized][views]") {
  Tensor x = empty({2, 3, 4}, TensorOptions().dtype(kFloat));
  for (int k = 0; k < 24; ++k) x.data_ptr<float>()[k] = static_cast<float>(k) / 4.0f - 2.0f;
  const Tensor pc = quantize_per_channel(x, doubles_tensor({0.1, 0.2, 0.3}),
                                         typed_tensor<int64_t>({0, 5, -3}, {3}), 1, kQInt8);
  auto axis = [](const Tensor& t) { return t.q_per_channel_axis(); };
  auto zps = [](const Tensor& t) { return int_values(t.q_per_channel_zero_points()); };

  // select before the axis shifts it; after it keeps it (shared); on it leaves one channel.
  CHECK(axis(pc.select(0, 1)) == 0);
  CHECK(pc.select(2, 1).quantizer() == pc.quantizer());
  const Tensor one = pc.select(1, 1);
  CHECK(one.qscheme() == kPerTensorAffine);
  CHECK(one.q_scale() == 0.2);
  CHECK(one.q_zero_point() == 5);
  // slicing the axis slices the parameters; elsewhere they are shared.
  CHECK(zps(pc.slice(1, 1)) == I{5, -3});
  CHECK(zps(pc.slice(1, 0, 3, 2)) == I{0, -3});
  CHECK(zps(pc.narrow(1, 1, 1)) == I{5});
  CHECK(pc.slice(2, 1).quantizer() == pc.quantizer());
  CHECK(pc.slice(0, 1).quantizer() == pc.quantizer());
  // regrouping views find the axis again, or refuse to split or merge it.
  CHECK(axis(pc.unsqueeze(0)) == 2);
  CHECK(pc.unsqueeze(3).quantizer() == pc.quantizer());
  CHECK(axis(pc.view({2, 3, 2, 2})) == 1);
  CHECK(axis(pc.view({1, 2, 3, 4}).squeeze(0)) == 1);
  CHECK(axis(pc.reshape({2, 3, 4})) == 1);
  CHECK(axis(pc.flatten(2)) == 1);
  CHECK(pc.view({2, 3, 4}).quantizer() == pc.quantizer());
  CHECK_THROWS_WITH(pc.view({6, 4}), Catch::StartsWith("view: the channel axis 1 (size 3) of a "
                                                       "per-channel quantized tensor"));
  CHECK_THROWS_AS(pc.flatten(), Error);
  CHECK_THROWS_AS(pc.reshape({24}), Error);
  // A non-viewable reshape copies, then regroups the copy's channel axis: dims 0 and 1 of
  // [2, 2, 3] (strides [12, 3, 1]) do not merge in place.
  const Tensor pc2 = quantize_per_channel(x.view({4, 2, 3}), doubles_tensor({0.1, 0.2, 0.3}),
                                          typed_tensor<int64_t>({0, 5, -3}, {3}), 2, kQInt8);
  const Tensor strided = pc2.slice(0, 0, 4, 2);
  const Tensor copied = strided.reshape({4, 3});
  CHECK_FALSE(copied.is_alias_of(pc2));
  CHECK(axis(copied) == 1);
  CHECK(float_values(copied.dequantize()) == float_values(strided.dequantize().reshape({4, 3})));
  // The values a view reads are its base's, with the matching parameters.
  const Tensor deq = pc.dequantize();
  // (One channel selected is per-tensor, which PyTorch dequantizes with a float scale, the
  // per-channel kernel with a double one: equal to within a float rounding.)
  CHECK(int_values(pc.select(1, 2).int_repr()) == int_values(pc.int_repr().select(1, 2)));
  const std::vector<float> one_deq = float_values(pc.select(1, 2).dequantize());
  const std::vector<float> base_deq = float_values(deq.select(1, 2));
  for (std::size_t k = 0; k < one_deq.size(); ++k)
    CHECK(one_deq[k] == Approx(base_deq[k]).epsilon(1e-6));
  CHECK(float_values(pc.slice(1, 1).dequantize()) == float_values(deq.slice(1, 1)));
  CHECK(float_values(pc.select(0, 1).dequantize()) == float_values(deq.select(0, 1)));
  CHECK(float_values(pc.unsqueeze(0).dequantize()) == float_values(deq));
  // Squeezing a size-1 channel axis leaves one channel: per-tensor.
  const Tensor narrow1 = pc.narrow(1, 2, 1).squeeze(1);
  CHECK(narrow1.qscheme() == kPerTensorAffine);
  CHECK(narrow1.q_zero_point() == -3);
  // PyTorch's refusals: any view that sets strides freely.
  const std::string msg = "Setting strides is possible only on uniformly quantized tensor";
  CHECK_THROWS_WITH(pc.transpose(0, 2), msg);
  CHECK_THROWS_WITH(pc.permute({2, 0, 1}), msg);
  CHECK_THROWS_WITH(pc.as_strided({2}, {1}), msg);
  CHECK_THROWS_WITH(pc.slice(2, 0, 1).expand({2, 3, 4}), msg);
  CHECK_THROWS_WITH(pc.diagonal(0, 0, 2), msg);
  Tensor ip = pc.clone();
  CHECK_THROWS_WITH(ip.unsqueeze_(0), msg);
  CHECK(vec(ip.sizes()) == I{2, 3, 4});
  // Views still share storage and carry the dtype.
  CHECK(pc.select(1, 1).is_alias_of(pc));
  CHECK(pc.slice(1, 1).dtype() == kQInt8);
}

TEST_CASE("quantized add, mul and linear: operand checks and rules", "[ops][quantized]") {
  const Tensor x = floats_tensor({-1.0f, 0.0f, 0.26f, 2.5f, 3.0f, 100.0f}, {2, 3});
  const Tensor q = quantize_per_tensor(x, 0.1, 10, kQUInt8);
  const Tensor qi = quantize_per_tensor(x, 0.1, 10, kQInt8);
  const Tensor pc = quantize_per_channel(x, doubles_tensor({0.1, 0.2}),
                                         typed_tensor<int64_t>({0, 5}, {2}), 0, kQUInt8);
  // add: the values of the float sum requantized; mul: of the product.
  const Tensor s = quantized::add(q, q, 0.2, 3);
  CHECK(float_values(s.dequantize()) == std::vector<float>{-0.6f, 0.0f, 0.6f, 5.0f, 6.0f, 49.0f});
  CHECK(int_values(quantized::add_relu(q, q, 0.2, 3).int_repr()) == I{3, 3, 6, 28, 33, 248});
  CHECK(int_values(quantized::mul(q, q, 0.2, 3).int_repr()) == I{8, 3, 3, 34, 48, 255});
  CHECK(int_values(quantized::mul(q, q[0], 0.2, 3).int_repr()) == I{8, 3, 3, 0, 3, 40});
  CHECK_THROWS_WITH(quantized::add(q, pc, 0.2, 3),
                    "Both inputs to Add must have the same quantization shceme.");
  CHECK_THROWS_WITH(quantized::add(pc, pc, 0.2, 3),
                    "Only per tensor quantization is suported in Add.");
  CHECK_THROWS_WITH(quantized::add(q, qi, 0.2, 3), "Add operands should have same data type.");
  CHECK_THROWS_WITH(quantized::mul(q, pc, 0.2, 3),
                    "Both inputs to Mul must have the same quantization scheme.");
  CHECK_THROWS_WITH(quantized::mul(pc, pc, 0.2, 3),
                    "Only per tensor quantization is supported in Mul.");
  CHECK_THROWS_WITH(quantized::mul(q, qi, 0.2, 3), "Mul operands should have same data type.");
  CHECK_THROWS_WITH(quantized::add(q, q, 0.2, 300),
                    "quantize_tensor_per_tensor_affine zero_point 300 is above upper bound.");
  CHECK_THROWS_AS(quantized::add(q, q, -0.2, 3), ValueError);
  CHECK_THROWS_AS(quantized::mul(q, q, 0.0, 3), ValueError);
  CHECK_THROWS_AS(quantized::add(x, x, 0.2, 3), NotImplementedError);
  CHECK_THROWS_WITH(
      quantized::add(
          q,
          quantize_per_tensor(floats_tensor(std::vector<float>(9, 1.0f), {3, 3}), 0.1, 10, kQUInt8),
          0.2, 3),
      Catch::StartsWith("The size of tensor a (2) must match the size of tensor b (3)"));

  // linear against the float reference: dequantize, matmul, bias, requantize.
  const Tensor xin = quantize_per_tensor(
      floats_tensor({0.5f, -1.0f, 2.0f, 0.25f, 1.5f, -0.75f}, {2, 3}), 0.05, 128, kQUInt8);
  const Tensor w = quantize_per_tensor(
      floats_tensor({0.1f, 0.2f, -0.3f, 0.4f, -0.5f, 0.6f}, {2, 3}), 0.01, 0, kQInt8);
  const Tensor b = floats_tensor({0.1f, -0.2f}, {2});
  const Tensor y = quantized::linear(xin, w, b, 0.02, 100);
  const Tensor ref = xin.dequantize().matmul(w.dequantize().t()) + b;
  const I got = int_values(y.int_repr());
  const std::vector<float> rv = float_values(ref);
  for (std::size_t k = 0; k < got.size(); ++k)
    CHECK(got[k] == reference_quantize(rv[k], 0.02, 100, 0, 255));
  CHECK(vec(quantized::linear(xin.unsqueeze(0), w, std::nullopt, 0.02, 100).sizes()) == I{1, 2, 2});
  // No input features: every output is the bias, requantized.
  const Tensor empty_in =
      quantize_per_tensor(empty({3, 0}, TensorOptions().dtype(kFloat)), 0.05, 128, kQUInt8);
  const Tensor empty_w =
      quantize_per_tensor(empty({2, 0}, TensorOptions().dtype(kFloat)), 0.01, 0, kQInt8);
  CHECK(int_values(quantized::linear(empty_in, empty_w, b, 0.02, 100).int_repr()) ==
        I{105, 90, 105, 90, 105, 90});
  CHECK_THROWS_WITH(quantized::linear(qi, w, b, 0.02, 100),
                    "quantized::linear: expected the input to be quint8, got tensorplay.qint8");
  CHECK_THROWS_WITH(quantized::linear(xin, xin, b, 0.02, 100),
                    "quantized::linear: expected the weight to be qint8, got tensorplay.quint8");
  CHECK_THROWS_AS(quantized::linear(x, w, b, 0.02, 100), NotImplementedError);
  CHECK_THROWS_WITH(quantized::linear(xin, w.unsqueeze(0), b, 0.02, 100),
                    Catch::StartsWith("quantized::linear: the weight must be 2-d"));
  CHECK_THROWS_WITH(quantized::linear(xin, w.slice(1, 0, 2), b, 0.02, 100),
                    Catch::StartsWith("quantized::linear: mat1 and mat2 shapes cannot be"));
  CHECK_THROWS_WITH(quantized::linear(xin, w, floats_tensor({0.1f}, {1}), 0.02, 100),
                    Catch::StartsWith("quantized::linear: bias must be a float32 tensor"));
  CHECK_THROWS_WITH(quantized::linear(xin, w, b, 0.02, 256),
                    "quantize_tensor_per_tensor_affine zero_point 256 is above upper bound.");
  CHECK_THROWS_AS(quantized::linear(xin, w, b, 0.0, 100), ValueError);
  const Tensor wpc1 = _make_per_channel_quantized_tensor(
      typed_tensor<int8_t>({1, 2, 3, 4, 5, 6}, {2, 3}), doubles_tensor({0.1, 0.1, 0.1}),
      typed_tensor<int64_t>({0, 0, 0}, {3}), 1);
  CHECK_THROWS_WITH(quantized::linear(xin, wpc1, b, 0.02, 100),
                    "quantized::linear: a per-channel weight must be quantized along axis 0");
  CHECK_THROWS_WITH(
      quantized::linear(quantize_per_tensor(floats_tensor({1.0f}, {}), 0.1, 0, kQUInt8), w, b, 0.02,
                        100),
      "quantized::linear: the input must have at least one dimension");
}

}  // namespace ops_quantized_test
