// Printing: repr(t) as PyTorch 1.13 prints it. The golden strings at the end were produced by
// PyTorch 1.13 itself (repr of the same values, shape, strides and print options) and pasted
// here, with `torch.` renamed `tensorplay.` in the suffixes, so this test needs no Python.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include <tensorplay/core/empty.hpp>
#include <tensorplay/ops/print.hpp>

namespace ops_print_test {

using namespace tensorplay;

namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();
constexpr double kInf = std::numeric_limits<double>::infinity();

// Test values are written as double for the floating types and int64 for the others.
template <class T>
using value_t = std::conditional_t<std::is_floating_point_v<T> || std::is_same_v<T, Half> ||
                                       std::is_same_v<T, BFloat16>,
                                   double, int64_t>;

// A tensor of dtype T over its own copy of `storage`, with the given geometry (contiguous when
// no strides are given): the way a user wraps existing memory, and how we build views without
// depending on the view ops.
template <class T>
Tensor make(const std::vector<value_t<T>>& storage, std::vector<int64_t> sizes,
            std::vector<int64_t> strides = {}, int64_t offset = 0) {
  if (strides.empty()) strides = SizesAndStrides::compute_contiguous_strides(sizes);
  T* data = new T[storage.empty() ? 1 : storage.size()];
  for (std::size_t i = 0; i < storage.size(); ++i) data[i] = static_cast<T>(storage[i]);
  return from_blob(
      data + offset, sizes, strides, [data](void*) { delete[] data; }, TensorOptions(dtype_of<T>));
}

// start + step * k with k = (i * mul) % mod (mod 0: no modulo), then the `sets` overrides;
// computed in double exactly as the generator computed it in Python.
template <class T>
std::vector<value_t<T>> seq(int64_t n, value_t<T> start, value_t<T> step, int64_t mul, int64_t mod,
                            std::vector<std::pair<int64_t, value_t<T>>> sets) {
  std::vector<value_t<T>> v(static_cast<std::size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    const int64_t k = mod ? (i * mul) % mod : i * mul;
    v[static_cast<std::size_t>(i)] = start + step * static_cast<value_t<T>>(k);
  }
  for (const auto& [i, x] : sets) v[static_cast<std::size_t>(i)] = x;
  return v;
}

// The options are process-wide: every test starts and ends with the defaults.
struct DefaultPrintOptions {
  DefaultPrintOptions() { set_printoptions(PrintOptions{}); }
  ~DefaultPrintOptions() { set_printoptions(PrintOptions{}); }
  DefaultPrintOptions(const DefaultPrintOptions&) = delete;
  DefaultPrintOptions& operator=(const DefaultPrintOptions&) = delete;
};

}  // namespace

// ---- From the user's side ---------------------------------------------------------------------

TEST_CASE("print: operator<<, toString() and to_string() agree", "[ops][print]") {
  const DefaultPrintOptions restore;
  float data[] = {99, 2, 3, 4, 5, 6};
  const Tensor t = from_blob(data, {2, 3});
  const std::string expected =
      "tensor([[99.,  2.,  3.],\n"
      "        [ 4.,  5.,  6.]])";
  std::ostringstream os;
  os << t;
  CHECK(os.str() == expected);
  CHECK(t.toString() == expected);
  CHECK(to_string(t) == expected);
}

TEST_CASE("print: a printed tensor reflects later writes to its memory", "[ops][print]") {
  const DefaultPrintOptions restore;
  double data[] = {1, 2};
  const Tensor t = from_blob(data, {2}, kDouble);
  CHECK(to_string(t) == "tensor([1., 2.], dtype=tensorplay.float64)");
  data[1] = 0.5;
  CHECK(to_string(t) == "tensor([1.0000, 0.5000], dtype=tensorplay.float64)");
}

TEST_CASE("print: set_printoptions as torch.set_printoptions", "[ops][print]") {
  const DefaultPrintOptions restore;
  double data[] = {1.12345, 2.5};
  const Tensor t = from_blob(data, {2}, kDouble);
  set_printoptions(2);
  CHECK(to_string(t) == "tensor([1.12, 2.50], dtype=tensorplay.float64)");
  set_printoptions({}, {}, {}, {}, "default");
  CHECK(to_string(t) == "tensor([1.1235, 2.5000], dtype=tensorplay.float64)");
  set_printoptions(PrintOptions{.precision = 1, .sci_mode = true});
  CHECK(to_string(t) == "tensor([1.1e+00, 2.5e+00], dtype=tensorplay.float64)");
  set_printoptions(PrintOptions{});
  CHECK(to_string(t) == "tensor([1.1235, 2.5000], dtype=tensorplay.float64)");
}

TEST_CASE("print: an undefined tensor prints as libtorch prints it", "[ops][print]") {
  const Tensor t;
  CHECK(to_string(t) == "[ Tensor (undefined) ]");
  std::ostringstream os;
  os << t;
  CHECK(os.str() == "[ Tensor (undefined) ]");
}

// ---- Options -------------------------------------------------------------------------------

TEST_CASE("print: get_printoptions starts at PyTorch's defaults", "[ops][print]") {
  const DefaultPrintOptions restore;
  const PrintOptions o = get_printoptions();
  CHECK(o.precision == 4);
  CHECK(o.threshold == 1000);
  CHECK(o.edgeitems == 3);
  CHECK(o.linewidth == 80);
  CHECK_FALSE(o.sci_mode.has_value());
  CHECK(o == PrintOptions{});
}

TEST_CASE("print: profiles", "[ops][print]") {
  const DefaultPrintOptions restore;
  set_printoptions({}, {}, {}, {}, "short");
  CHECK(get_printoptions() == PrintOptions{.precision = 2, .threshold = 1000, .edgeitems = 2});
  set_printoptions({}, {}, {}, {}, "full");
  CHECK(get_printoptions().threshold == std::numeric_limits<double>::infinity());
  CHECK(get_printoptions().edgeitems == 3);
  CHECK(get_printoptions().precision == 4);
  set_printoptions(7, 10, 1, 50, "default");  // the profile first, then the given options
  CHECK(get_printoptions() ==
        PrintOptions{.precision = 7, .threshold = 10, .edgeitems = 1, .linewidth = 50});
  set_printoptions({}, {}, {}, {}, "default");
  CHECK(get_printoptions() == PrintOptions{});
}

TEST_CASE("print: sci_mode is assigned by every set_printoptions call", "[ops][print]") {
  const DefaultPrintOptions restore;
  set_printoptions({}, {}, {}, {}, {}, true);
  CHECK(get_printoptions().sci_mode == std::optional<bool>(true));
  set_printoptions(3);  // as in PyTorch: omitting sci_mode returns to automatic
  CHECK_FALSE(get_printoptions().sci_mode.has_value());
  CHECK(get_printoptions().precision == 3);
}

TEST_CASE("print: bad options are refused where they are set", "[ops][print]") {
  const DefaultPrintOptions restore;
  CHECK_THROWS_MATCHES(set_printoptions(-1), ValueError,
                       Catch::Message("set_printoptions: precision must be non-negative, got -1"));
  CHECK_THROWS_MATCHES(set_printoptions({}, {}, -2), ValueError,
                       Catch::Message("set_printoptions: edgeitems must be non-negative, got -2"));
  CHECK_THROWS_MATCHES(
      set_printoptions({}, {}, {}, {}, "long"), ValueError,
      Catch::Message("set_printoptions: unknown profile 'long'; expected 'default', 'short' "
                     "or 'full'"));
  CHECK_THROWS_MATCHES(
      set_printoptions(int64_t{1} << 40), ValueError,
      Catch::Message("set_printoptions: precision must be at most 2147483647, got 1099511627776"));
  CHECK_THROWS_AS(set_printoptions(PrintOptions{.precision = -3}), ValueError);
  CHECK_THROWS_AS(set_printoptions(PrintOptions{.edgeitems = -1}), ValueError);
  // A refused call changes nothing.
  CHECK(get_printoptions() == PrintOptions{});
}

TEST_CASE("print: edgeitems 0 on a summarised matrix fails as PyTorch fails", "[ops][print]") {
  const DefaultPrintOptions restore;
  set_printoptions({}, 3, 0);
  const Tensor t = make<int64_t>(seq<int64_t>(25, 0, 1, 1, 0, {}), {5, 5});
  CHECK_THROWS_MATCHES(to_string(t), Error, Catch::Message("stack expects a non-empty TensorList"));
  // Not summarised: fine.
  set_printoptions({}, 100, 0);
  CHECK(to_string(make<int64_t>({1, 2, 3, 4}, {2, 2})) ==
        "tensor([[1, 2],\n"
        "        [3, 4]])");
}

TEST_CASE("print: options are process-wide and safe to use from several threads", "[ops][print]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<double>({1.5, 2.25}, {2});
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) {
    threads.emplace_back([&t, i] {
      for (int k = 0; k < 200; ++k) {
        if (i == 0) set_printoptions(2 + k % 2);
        const std::string s = to_string(t);
        // Each print used one consistent snapshot: precision 2, 3 or the default 4.
        const bool ok = s == "tensor([1.50, 2.25], dtype=tensorplay.float64)" ||
                        s == "tensor([1.500, 2.250], dtype=tensorplay.float64)" ||
                        s == "tensor([1.5000, 2.2500], dtype=tensorplay.float64)";
        if (!ok) throw std::runtime_error(s);
      }
    });
  }
  for (auto& th : threads) th.join();
  set_printoptions(5);
  std::string seen;
  std::thread([&] { seen = to_string(t); }).join();
  CHECK(seen == "tensor([1.50000, 2.25000], dtype=tensorplay.float64)");
}

// ---- Devices: no device backend is compiled into this test, so a tensor that only claims to
// live on CUDA (an empty one, or a from_blob one) shows the suffix logic; reading elements off
// the CPU needs a device-to-host copy, which the printer does not do yet.

TEST_CASE("print: device suffix comes first", "[ops][print]") {
  const DefaultPrintOptions restore;
  CHECK(to_string(from_blob(nullptr, {0}, TensorOptions(kFloat).device(Device("cuda:0")))) ==
        "tensor([], device='cuda:0')");
  CHECK(to_string(from_blob(nullptr, {0, 2}, TensorOptions(kLong).device(Device("cuda:1")))) ==
        "tensor([], device='cuda:1', size=(0, 2), dtype=tensorplay.int64)");
}

TEST_CASE("print: elements off the CPU are read through a copy to the host", "[ops][print]") {
  // Without the device's backend the copy has no kernel (tests/vulkan prints Vulkan tensors).
  const DefaultPrintOptions restore;
  float x = 1;
  const Tensor t = from_blob(&x, {1}, TensorOptions(kFloat).device(Device("cuda:0")));
  CHECK_THROWS_MATCHES(to_string(t), NotImplementedError,
                       Catch::Message("Could not run 'aten::copy_' with arguments from the 'CUDA' "
                                      "backend. TensorPlay was compiled without it: define "
                                      "TENSORPLAY_USE_CUDA (link the matching tensorplay:: "
                                      "target)"));
}

// ---- Pieces ------------------------------------------------------------------------------------

TEST_CASE("print: add_suffixes follows PyTorch's line-length estimate", "[ops][print]") {
  using detail::printer::add_suffixes;
  CHECK(add_suffixes("tensor([1.]", {}, 7, false, 80) == "tensor([1.])");
  CHECK(add_suffixes("tensor([1.]", {"a=1", "b=2"}, 7, false, 80) == "tensor([1.], a=1, b=2)");
  CHECK(add_suffixes("tensor([1.]", {"a=1"}, 7, true, 80) == "tensor([1.],\n       a=1)");
  // First line: estimated as its length + 2 (11 + 2); 13 + 3 + 2 = 18 > 17 wraps.
  CHECK(add_suffixes("tensor([1.]", {"a=1"}, 7, false, 17) == "tensor([1.],\n       a=1)");
  CHECK(add_suffixes("tensor([1.]", {"a=1"}, 7, false, 18) == "tensor([1.], a=1)");
  // Later lines: length after the newline + 1.
  CHECK(add_suffixes("x\n12345", {"a=1"}, 2, false, 11) == "x\n12345,\n  a=1)");
  CHECK(add_suffixes("x\n12345", {"a=1"}, 2, false, 12) == "x\n12345, a=1)");
}

TEST_CASE("print: shape_tuple is Python's tuple repr", "[ops][print]") {
  CHECK(detail::printer::shape_tuple({}) == "()");
  CHECK(detail::printer::shape_tuple({0}) == "(0,)");
  CHECK(detail::printer::shape_tuple({2, 0, 3}) == "(2, 0, 3)");
}

// ---- Golden strings from PyTorch 1.13 ------------------------------------------------------

TEST_CASE("print golden: example 2x3 float32", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({99.0, 2.0, 3.0, 4.0, 5.0, 6.0}, {2, 3});
  CHECK(to_string(t) ==
        "tensor([[99.,  2.,  3.],\n"
        "        [ 4.,  5.,  6.]])");
}

TEST_CASE("print golden: 0-d float32", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({3.5}, {});
  CHECK(to_string(t) == "tensor(3.5000)");
}

TEST_CASE("print golden: 0-d int64", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<int64_t>({7}, {});
  CHECK(to_string(t) == "tensor(7)");
}

TEST_CASE("print golden: 0-d bool", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<bool>({1}, {});
  CHECK(to_string(t) == "tensor(True)");
}

TEST_CASE("print golden: 0-d nan", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({kNan}, {});
  CHECK(to_string(t) == "tensor(nan)");
}

TEST_CASE("print golden: 0-d -inf", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({-kInf}, {});
  CHECK(to_string(t) == "tensor(-inf)");
}

TEST_CASE("print golden: 0-d float64 integral", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<double>({2.0}, {});
  CHECK(to_string(t) == "tensor(2., dtype=tensorplay.float64)");
}

TEST_CASE("print golden: 0-d int32 negative", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<int32_t>({-5}, {});
  CHECK(to_string(t) == "tensor(-5, dtype=tensorplay.int32)");
}

TEST_CASE("print golden: 0-d float32 tiny (sci)", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({1.25e-07}, {});
  CHECK(to_string(t) == "tensor(1.2500e-07)");
}

TEST_CASE("print golden: 0-d zero", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({0.0}, {});
  CHECK(to_string(t) == "tensor(0.)");
}

TEST_CASE("print golden: 1-d float32", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({1.5, -2.25, 3.0}, {3});
  CHECK(to_string(t) == "tensor([ 1.5000, -2.2500,  3.0000])");
}

TEST_CASE("print golden: 1-d single element", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({5.0}, {1});
  CHECK(to_string(t) == "tensor([5.])");
}

TEST_CASE("print golden: 1-d int64", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<int64_t>({1, -20, 300}, {3});
  CHECK(to_string(t) == "tensor([  1, -20, 300])");
}

TEST_CASE("print golden: 2-d 1x1", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({0.5}, {1, 1});
  CHECK(to_string(t) == "tensor([[0.5000]])");
}

TEST_CASE("print golden: 2-d fixed mode", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({0.1, 0.2, 0.3, 0.4}, {2, 2});
  CHECK(to_string(t) ==
        "tensor([[0.1000, 0.2000],\n"
        "        [0.3000, 0.4000]])");
}

TEST_CASE("print golden: 2-d column 4x1", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<int64_t>({1, 22, 333, 4444}, {4, 1});
  CHECK(to_string(t) ==
        "tensor([[   1],\n"
        "        [  22],\n"
        "        [ 333],\n"
        "        [4444]])");
}

TEST_CASE("print golden: 3-d int64 2x3x4", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<int64_t>(seq<int64_t>(24, 0, 1, 1, 0, {}), {2, 3, 4});
  CHECK(to_string(t) ==
        "tensor([[[ 0,  1,  2,  3],\n"
        "         [ 4,  5,  6,  7],\n"
        "         [ 8,  9, 10, 11]],\n"
        "\n"
        "        [[12, 13, 14, 15],\n"
        "         [16, 17, 18, 19],\n"
        "         [20, 21, 22, 23]]])");
}

TEST_CASE("print golden: 3-d float32 2x1x3", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({1.5, 2.0, 3.0, 4.0, 5.0, 6.25}, {2, 1, 3});
  CHECK(to_string(t) ==
        "tensor([[[1.5000, 2.0000, 3.0000]],\n"
        "\n"
        "        [[4.0000, 5.0000, 6.2500]]])");
}

TEST_CASE("print golden: 4-d float32 2x2x2x2", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>(seq<float>(16, 0.0, 0.5, 1, 0, {}), {2, 2, 2, 2});
  CHECK(to_string(t) ==
        "tensor([[[[0.0000, 0.5000],\n"
        "          [1.0000, 1.5000]],\n"
        "\n"
        "         [[2.0000, 2.5000],\n"
        "          [3.0000, 3.5000]]],\n"
        "\n"
        "\n"
        "        [[[4.0000, 4.5000],\n"
        "          [5.0000, 5.5000]],\n"
        "\n"
        "         [[6.0000, 6.5000],\n"
        "          [7.0000, 7.5000]]]])");
}

TEST_CASE("print golden: 4-d int8 1x2x1x3", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<int8_t>({1, -2, 3, -4, 5, -6}, {1, 2, 1, 3});
  CHECK(to_string(t) ==
        "tensor([[[[ 1, -2,  3]],\n"
        "\n"
        "         [[-4,  5, -6]]]], dtype=tensorplay.int8)");
}

TEST_CASE("print golden: 5-d float64 1x1x2x1x2", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<double>({1.25, 2.0, 3.0, 4.0}, {1, 1, 2, 1, 2});
  CHECK(to_string(t) ==
        "tensor([[[[[1.2500, 2.0000]],\n"
        "\n"
        "          [[3.0000, 4.0000]]]]], dtype=tensorplay.float64)");
}

TEST_CASE("print golden: empty 1-d float32", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({}, {0});
  CHECK(to_string(t) == "tensor([])");
}

TEST_CASE("print golden: empty (0, 3) float32", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({}, {0, 3});
  CHECK(to_string(t) == "tensor([], size=(0, 3))");
}

TEST_CASE("print golden: empty 1-d int64", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<int64_t>({}, {0});
  CHECK(to_string(t) == "tensor([], dtype=tensorplay.int64)");
}

TEST_CASE("print golden: empty (2, 0, 3) float16", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<Half>({}, {2, 0, 3});
  CHECK(to_string(t) == "tensor([], size=(2, 0, 3), dtype=tensorplay.float16)");
}

TEST_CASE("print golden: empty 1-d bool", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<bool>({}, {0});
  CHECK(to_string(t) == "tensor([], dtype=tensorplay.bool)");
}

TEST_CASE("print golden: empty (3, 0) float64", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<double>({}, {3, 0});
  CHECK(to_string(t) == "tensor([], size=(3, 0), dtype=tensorplay.float64)");
}

TEST_CASE("print golden: empty (1, 0) int32", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<int32_t>({}, {1, 0});
  CHECK(to_string(t) == "tensor([], size=(1, 0), dtype=tensorplay.int32)");
}

TEST_CASE("print golden: empty (0, 0) uint8", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<uint8_t>({}, {0, 0});
  CHECK(to_string(t) == "tensor([], size=(0, 0), dtype=tensorplay.uint8)");
}

TEST_CASE("print golden: bool 1-d", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<bool>({1, 0, 1}, {3});
  CHECK(to_string(t) == "tensor([ True, False,  True])");
}

TEST_CASE("print golden: bool 2-d", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<bool>({0, 0, 1, 0}, {2, 2});
  CHECK(to_string(t) ==
        "tensor([[False, False],\n"
        "        [ True, False]])");
}

TEST_CASE("print golden: uint8", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<uint8_t>({0, 255, 7, 16}, {4});
  CHECK(to_string(t) == "tensor([  0, 255,   7,  16], dtype=tensorplay.uint8)");
}

TEST_CASE("print golden: int8 extremes", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<int8_t>({-128, 127, 0}, {3});
  CHECK(to_string(t) == "tensor([-128,  127,    0], dtype=tensorplay.int8)");
}

TEST_CASE("print golden: int16 extremes", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<int16_t>({-32768, 32767}, {2});
  CHECK(to_string(t) == "tensor([-32768,  32767], dtype=tensorplay.int16)");
}

TEST_CASE("print golden: int32 extremes", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<int32_t>({-2147483648, 2147483647, 1}, {3});
  CHECK(to_string(t) == "tensor([-2147483648,  2147483647,           1], dtype=tensorplay.int32)");
}

TEST_CASE("print golden: int64 extremes", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<int64_t>({INT64_MIN, INT64_MAX}, {2});
  CHECK(to_string(t) == "tensor([-9223372036854775808,  9223372036854775807])");
}

TEST_CASE("print golden: float16", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<Half>({1.5, -2.0, 65504.0}, {3});
  CHECK(to_string(t) ==
        "tensor([ 1.5000e+00, -2.0000e+00,  6.5504e+04], dtype=tensorplay.float16)");
}

TEST_CASE("print golden: float16 fixed", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<Half>({0.0999755859375, 1.5, -3.25}, {3});
  CHECK(to_string(t) == "tensor([ 0.1000,  1.5000, -3.2500], dtype=tensorplay.float16)");
}

TEST_CASE("print golden: float16 tiny (sci)", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<Half>({5.960464477539063e-08, 1.0}, {2});
  CHECK(to_string(t) == "tensor([5.9605e-08, 1.0000e+00], dtype=tensorplay.float16)");
}

TEST_CASE("print golden: bfloat16", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<BFloat16>({1.0, 3.140625, -0.5}, {3});
  CHECK(to_string(t) == "tensor([ 1.0000,  3.1406, -0.5000], dtype=tensorplay.bfloat16)");
}

TEST_CASE("print golden: bfloat16 huge (sci)", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<BFloat16>({1.0, 3.3895313892515355e+38}, {2});
  CHECK(to_string(t) == "tensor([1.0000e+00, 3.3895e+38], dtype=tensorplay.bfloat16)");
}

TEST_CASE("print golden: float32 dtype default", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({0.25, -1.0}, {2});
  CHECK(to_string(t) == "tensor([ 0.2500, -1.0000])");
}

TEST_CASE("print golden: float64", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<double>({1.1, 2.2}, {2});
  CHECK(to_string(t) == "tensor([1.1000, 2.2000], dtype=tensorplay.float64)");
}

TEST_CASE("print golden: float64 int mode", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<double>({1.0, -2.0, 30.0}, {3});
  CHECK(to_string(t) == "tensor([ 1., -2., 30.], dtype=tensorplay.float64)");
}

TEST_CASE("print golden: tiny -> sci", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({1e-05, 2e-05}, {2});
  CHECK(to_string(t) == "tensor([1.0000e-05, 2.0000e-05])");
}

TEST_CASE("print golden: huge integral -> sci", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({1000000000.0, 2.0}, {2});
  CHECK(to_string(t) == "tensor([1.0000e+09, 2.0000e+00])");
}

TEST_CASE("print golden: ratio > 1000 -> sci", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({0.001, 10.0}, {2});
  CHECK(to_string(t) == "tensor([1.0000e-03, 1.0000e+01])");
}

TEST_CASE("print golden: float32 1e-4 is below 1e-4 -> sci", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({0.0001, 0.5}, {2});
  CHECK(to_string(t) == "tensor([1.0000e-04, 5.0000e-01])");
}

TEST_CASE("print golden: float64 1e-4 is not below -> fixed", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<double>({0.0001, 0.5}, {2});
  CHECK(to_string(t) == "tensor([1.0000e-04, 5.0000e-01], dtype=tensorplay.float64)");
}

TEST_CASE("print golden: int mode at 1e8", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({100000000.0, 1000000.0}, {2});
  CHECK(to_string(t) == "tensor([100000000.,   1000000.])");
}

TEST_CASE("print golden: int mode ratio exactly 1000", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({1.0, 1000.0}, {2});
  CHECK(to_string(t) == "tensor([   1., 1000.])");
}

TEST_CASE("print golden: int mode ratio 1001 -> sci", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({1.0, 1001.0}, {2});
  CHECK(to_string(t) == "tensor([1.0000e+00, 1.0010e+03])");
}

TEST_CASE("print golden: float64 three-digit exponents", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<double>({1e+300, -1e-300}, {2});
  CHECK(to_string(t) == "tensor([ 1.0000e+300, -1.0000e-300], dtype=tensorplay.float64)");
}

TEST_CASE("print golden: float32 max", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({3.4028234663852886e+38, 1.0}, {2});
  CHECK(to_string(t) == "tensor([3.4028e+38, 1.0000e+00])");
}

TEST_CASE("print golden: negative fixed", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({-1.5, 2.25, -300.125}, {3});
  CHECK(to_string(t) == "tensor([  -1.5000,    2.2500, -300.1250])");
}

TEST_CASE("print golden: negative sci", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({-1e-06, 1.0}, {2});
  CHECK(to_string(t) == "tensor([-1.0000e-06,  1.0000e+00])");
}

TEST_CASE("print golden: negative int mode", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({-1.0, 2.0, -300.0}, {3});
  CHECK(to_string(t) == "tensor([  -1.,    2., -300.])");
}

TEST_CASE("print golden: rounding to precision", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<double>({0.12345, 2.00005, 9.99999}, {3});
  CHECK(to_string(t) == "tensor([ 0.1235,  2.0000, 10.0000], dtype=tensorplay.float64)");
}

TEST_CASE("print golden: integral with zero", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({0.0, 1.0, 2.0}, {3});
  CHECK(to_string(t) == "tensor([0., 1., 2.])");
}

TEST_CASE("print golden: negative zero", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({-0.0, 0.0}, {2});
  CHECK(to_string(t) == "tensor([-0., 0.])");
}

TEST_CASE("print golden: negative zero in fixed mode", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({-0.0, 1.5}, {2});
  CHECK(to_string(t) == "tensor([-0.0000, 1.5000])");
}

TEST_CASE("print golden: nan inf -inf with fixed", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({kNan, 1.5, kInf, -kInf}, {4});
  CHECK(to_string(t) == "tensor([   nan, 1.5000,    inf,   -inf])");
}

TEST_CASE("print golden: only nonfinite", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({kNan, kInf, -kInf}, {3});
  CHECK(to_string(t) == "tensor([nan, inf, -inf])");
}

TEST_CASE("print golden: zero and nan", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({0.0, kNan}, {2});
  CHECK(to_string(t) == "tensor([0., nan])");
}

TEST_CASE("print golden: int mode with inf", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({1.0, kInf}, {2});
  CHECK(to_string(t) == "tensor([1., inf])");
}

TEST_CASE("print golden: sci with inf and nan", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({kInf, 10000000000.0, 1.0, kNan}, {4});
  CHECK(to_string(t) == "tensor([       inf, 1.0000e+10, 1.0000e+00,        nan])");
}

TEST_CASE("print golden: nan padded in sci", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<double>({kNan, 0.001, 100.0}, {3});
  CHECK(to_string(t) == "tensor([       nan, 1.0000e-03, 1.0000e+02], dtype=tensorplay.float64)");
}

TEST_CASE("print golden: negative nan", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({-kNan, 2.5}, {2});
  CHECK(to_string(t) == "tensor([   nan, 2.5000])");
}

TEST_CASE("print golden: 2-d nan grid", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({kNan, 1.0, -kInf, 100.0}, {2, 2});
  CHECK(to_string(t) ==
        "tensor([[ nan,   1.],\n"
        "        [-inf, 100.]])");
}

TEST_CASE("print golden: summarised 2000 float32", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>(seq<float>(2000, 0.0, 1.0, 1, 0, {}), {2000});
  CHECK(to_string(t) ==
        "tensor([0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 1.9970e+03, 1.9980e+03,\n"
        "        1.9990e+03])");
}

TEST_CASE("print golden: summarised 2000 int64", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<int64_t>(seq<int64_t>(2000, 0, 1, 1, 0, {}), {2000});
  CHECK(to_string(t) == "tensor([   0,    1,    2,  ..., 1997, 1998, 1999])");
}

TEST_CASE("print golden: summarised 1001 fixed", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>(seq<float>(1001, 0.0, 0.01, 1, 0, {}), {1001});
  CHECK(to_string(t) ==
        "tensor([0.0000e+00, 1.0000e-02, 2.0000e-02,  ..., 9.9800e+00, 9.9900e+00,\n"
        "        1.0000e+01])");
}

TEST_CASE("print golden: not summarised at 1000", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<int16_t>(seq<int16_t>(1000, 0, 1, 7, 10, {}), {1000});
  CHECK(to_string(t) ==
        "tensor([0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1,\n"
        "        8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9,\n"
        "        6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7,\n"
        "        4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5,\n"
        "        2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3,\n"
        "        0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1,\n"
        "        8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9,\n"
        "        6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7,\n"
        "        4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5,\n"
        "        2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3,\n"
        "        0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1,\n"
        "        8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9,\n"
        "        6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7,\n"
        "        4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5,\n"
        "        2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3,\n"
        "        0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1,\n"
        "        8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9,\n"
        "        6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7,\n"
        "        4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5,\n"
        "        2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3,\n"
        "        0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1,\n"
        "        8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9,\n"
        "        6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7,\n"
        "        4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5,\n"
        "        2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3,\n"
        "        0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1,\n"
        "        8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9,\n"
        "        6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7,\n"
        "        4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5,\n"
        "        2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3,\n"
        "        0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1,\n"
        "        8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9,\n"
        "        6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7,\n"
        "        4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5,\n"
        "        2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3,\n"
        "        0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1,\n"
        "        8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9,\n"
        "        6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7,\n"
        "        4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5,\n"
        "        2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3,\n"
        "        0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3, 0, 7, 4, 1,\n"
        "        8, 5, 2, 9, 6, 3, 0, 7, 4, 1, 8, 5, 2, 9, 6, 3],\n"
        "       dtype=tensorplay.int16)");
}

TEST_CASE("print golden: summarised 50x50", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>(seq<float>(2500, -1.25, 0.001, 1, 0, {}), {50, 50});
  CHECK(to_string(t) ==
        "tensor([[-1.2500, -1.2490, -1.2480,  ..., -1.2030, -1.2020, -1.2010],\n"
        "        [-1.2000, -1.1990, -1.1980,  ..., -1.1530, -1.1520, -1.1510],\n"
        "        [-1.1500, -1.1490, -1.1480,  ..., -1.1030, -1.1020, -1.1010],\n"
        "        ...,\n"
        "        [ 1.1000,  1.1010,  1.1020,  ...,  1.1470,  1.1480,  1.1490],\n"
        "        [ 1.1500,  1.1510,  1.1520,  ...,  1.1970,  1.1980,  1.1990],\n"
        "        [ 1.2000,  1.2010,  1.2020,  ...,  1.2470,  1.2480,  1.2490]])");
}

TEST_CASE("print golden: summarised 10x10x20", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>(seq<float>(2000, 0.0, 0.5, 1, 0, {}), {10, 10, 20});
  CHECK(to_string(t) ==
        "tensor([[[0.0000e+00, 5.0000e-01, 1.0000e+00,  ..., 8.5000e+00,\n"
        "          9.0000e+00, 9.5000e+00],\n"
        "         [1.0000e+01, 1.0500e+01, 1.1000e+01,  ..., 1.8500e+01,\n"
        "          1.9000e+01, 1.9500e+01],\n"
        "         [2.0000e+01, 2.0500e+01, 2.1000e+01,  ..., 2.8500e+01,\n"
        "          2.9000e+01, 2.9500e+01],\n"
        "         ...,\n"
        "         [7.0000e+01, 7.0500e+01, 7.1000e+01,  ..., 7.8500e+01,\n"
        "          7.9000e+01, 7.9500e+01],\n"
        "         [8.0000e+01, 8.0500e+01, 8.1000e+01,  ..., 8.8500e+01,\n"
        "          8.9000e+01, 8.9500e+01],\n"
        "         [9.0000e+01, 9.0500e+01, 9.1000e+01,  ..., 9.8500e+01,\n"
        "          9.9000e+01, 9.9500e+01]],\n"
        "\n"
        "        [[1.0000e+02, 1.0050e+02, 1.0100e+02,  ..., 1.0850e+02,\n"
        "          1.0900e+02, 1.0950e+02],\n"
        "         [1.1000e+02, 1.1050e+02, 1.1100e+02,  ..., 1.1850e+02,\n"
        "          1.1900e+02, 1.1950e+02],\n"
        "         [1.2000e+02, 1.2050e+02, 1.2100e+02,  ..., 1.2850e+02,\n"
        "          1.2900e+02, 1.2950e+02],\n"
        "         ...,\n"
        "         [1.7000e+02, 1.7050e+02, 1.7100e+02,  ..., 1.7850e+02,\n"
        "          1.7900e+02, 1.7950e+02],\n"
        "         [1.8000e+02, 1.8050e+02, 1.8100e+02,  ..., 1.8850e+02,\n"
        "          1.8900e+02, 1.8950e+02],\n"
        "         [1.9000e+02, 1.9050e+02, 1.9100e+02,  ..., 1.9850e+02,\n"
        "          1.9900e+02, 1.9950e+02]],\n"
        "\n"
        "        [[2.0000e+02, 2.0050e+02, 2.0100e+02,  ..., 2.0850e+02,\n"
        "          2.0900e+02, 2.0950e+02],\n"
        "         [2.1000e+02, 2.1050e+02, 2.1100e+02,  ..., 2.1850e+02,\n"
        "          2.1900e+02, 2.1950e+02],\n"
        "         [2.2000e+02, 2.2050e+02, 2.2100e+02,  ..., 2.2850e+02,\n"
        "          2.2900e+02, 2.2950e+02],\n"
        "         ...,\n"
        "         [2.7000e+02, 2.7050e+02, 2.7100e+02,  ..., 2.7850e+02,\n"
        "          2.7900e+02, 2.7950e+02],\n"
        "         [2.8000e+02, 2.8050e+02, 2.8100e+02,  ..., 2.8850e+02,\n"
        "          2.8900e+02, 2.8950e+02],\n"
        "         [2.9000e+02, 2.9050e+02, 2.9100e+02,  ..., 2.9850e+02,\n"
        "          2.9900e+02, 2.9950e+02]],\n"
        "\n"
        "        ...,\n"
        "\n"
        "        [[7.0000e+02, 7.0050e+02, 7.0100e+02,  ..., 7.0850e+02,\n"
        "          7.0900e+02, 7.0950e+02],\n"
        "         [7.1000e+02, 7.1050e+02, 7.1100e+02,  ..., 7.1850e+02,\n"
        "          7.1900e+02, 7.1950e+02],\n"
        "         [7.2000e+02, 7.2050e+02, 7.2100e+02,  ..., 7.2850e+02,\n"
        "          7.2900e+02, 7.2950e+02],\n"
        "         ...,\n"
        "         [7.7000e+02, 7.7050e+02, 7.7100e+02,  ..., 7.7850e+02,\n"
        "          7.7900e+02, 7.7950e+02],\n"
        "         [7.8000e+02, 7.8050e+02, 7.8100e+02,  ..., 7.8850e+02,\n"
        "          7.8900e+02, 7.8950e+02],\n"
        "         [7.9000e+02, 7.9050e+02, 7.9100e+02,  ..., 7.9850e+02,\n"
        "          7.9900e+02, 7.9950e+02]],\n"
        "\n"
        "        [[8.0000e+02, 8.0050e+02, 8.0100e+02,  ..., 8.0850e+02,\n"
        "          8.0900e+02, 8.0950e+02],\n"
        "         [8.1000e+02, 8.1050e+02, 8.1100e+02,  ..., 8.1850e+02,\n"
        "          8.1900e+02, 8.1950e+02],\n"
        "         [8.2000e+02, 8.2050e+02, 8.2100e+02,  ..., 8.2850e+02,\n"
        "          8.2900e+02, 8.2950e+02],\n"
        "         ...,\n"
        "         [8.7000e+02, 8.7050e+02, 8.7100e+02,  ..., 8.7850e+02,\n"
        "          8.7900e+02, 8.7950e+02],\n"
        "         [8.8000e+02, 8.8050e+02, 8.8100e+02,  ..., 8.8850e+02,\n"
        "          8.8900e+02, 8.8950e+02],\n"
        "         [8.9000e+02, 8.9050e+02, 8.9100e+02,  ..., 8.9850e+02,\n"
        "          8.9900e+02, 8.9950e+02]],\n"
        "\n"
        "        [[9.0000e+02, 9.0050e+02, 9.0100e+02,  ..., 9.0850e+02,\n"
        "          9.0900e+02, 9.0950e+02],\n"
        "         [9.1000e+02, 9.1050e+02, 9.1100e+02,  ..., 9.1850e+02,\n"
        "          9.1900e+02, 9.1950e+02],\n"
        "         [9.2000e+02, 9.2050e+02, 9.2100e+02,  ..., 9.2850e+02,\n"
        "          9.2900e+02, 9.2950e+02],\n"
        "         ...,\n"
        "         [9.7000e+02, 9.7050e+02, 9.7100e+02,  ..., 9.7850e+02,\n"
        "          9.7900e+02, 9.7950e+02],\n"
        "         [9.8000e+02, 9.8050e+02, 9.8100e+02,  ..., 9.8850e+02,\n"
        "          9.8900e+02, 9.8950e+02],\n"
        "         [9.9000e+02, 9.9050e+02, 9.9100e+02,  ..., 9.9850e+02,\n"
        "          9.9900e+02, 9.9950e+02]]])");
}

TEST_CASE("print golden: summarised hidden outlier", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>(seq<float>(2000, 0.5, 0.25, 1, 0, {{1000, 10000000000.0}}), {2000});
  CHECK(to_string(t) ==
        "tensor([5.0000e-01, 7.5000e-01, 1.0000e+00,  ..., 4.9975e+02, 5.0000e+02,\n"
        "        5.0025e+02])");
}

TEST_CASE("print golden: summarised 40x40 int64", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<int64_t>(seq<int64_t>(1600, -800, 1, 1, 0, {}), {40, 40});
  CHECK(to_string(t) ==
        "tensor([[-800, -799, -798,  ..., -763, -762, -761],\n"
        "        [-760, -759, -758,  ..., -723, -722, -721],\n"
        "        [-720, -719, -718,  ..., -683, -682, -681],\n"
        "        ...,\n"
        "        [ 680,  681,  682,  ...,  717,  718,  719],\n"
        "        [ 720,  721,  722,  ...,  757,  758,  759],\n"
        "        [ 760,  761,  762,  ...,  797,  798,  799]])");
}

TEST_CASE("print golden: summarised 2x3x200 only last dim", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<double>(seq<double>(1200, 0.0, 0.125, 1, 0, {}), {2, 3, 200});
  CHECK(to_string(t) ==
        "tensor([[[0.0000e+00, 1.2500e-01, 2.5000e-01,  ..., 2.4625e+01,\n"
        "          2.4750e+01, 2.4875e+01],\n"
        "         [2.5000e+01, 2.5125e+01, 2.5250e+01,  ..., 4.9625e+01,\n"
        "          4.9750e+01, 4.9875e+01],\n"
        "         [5.0000e+01, 5.0125e+01, 5.0250e+01,  ..., 7.4625e+01,\n"
        "          7.4750e+01, 7.4875e+01]],\n"
        "\n"
        "        [[7.5000e+01, 7.5125e+01, 7.5250e+01,  ..., 9.9625e+01,\n"
        "          9.9750e+01, 9.9875e+01],\n"
        "         [1.0000e+02, 1.0012e+02, 1.0025e+02,  ..., 1.2462e+02,\n"
        "          1.2475e+02, 1.2488e+02],\n"
        "         [1.2500e+02, 1.2512e+02, 1.2525e+02,  ..., 1.4962e+02,\n"
        "          1.4975e+02, 1.4988e+02]]], dtype=tensorplay.float64)");
}

TEST_CASE("print golden: summarised 8x8x8x8", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<int32_t>(seq<int32_t>(4096, 0, 3, 1, 0, {}), {8, 8, 8, 8});
  CHECK(to_string(t) ==
        "tensor([[[[    0,     3,     6,  ...,    15,    18,    21],\n"
        "          [   24,    27,    30,  ...,    39,    42,    45],\n"
        "          [   48,    51,    54,  ...,    63,    66,    69],\n"
        "          ...,\n"
        "          [  120,   123,   126,  ...,   135,   138,   141],\n"
        "          [  144,   147,   150,  ...,   159,   162,   165],\n"
        "          [  168,   171,   174,  ...,   183,   186,   189]],\n"
        "\n"
        "         [[  192,   195,   198,  ...,   207,   210,   213],\n"
        "          [  216,   219,   222,  ...,   231,   234,   237],\n"
        "          [  240,   243,   246,  ...,   255,   258,   261],\n"
        "          ...,\n"
        "          [  312,   315,   318,  ...,   327,   330,   333],\n"
        "          [  336,   339,   342,  ...,   351,   354,   357],\n"
        "          [  360,   363,   366,  ...,   375,   378,   381]],\n"
        "\n"
        "         [[  384,   387,   390,  ...,   399,   402,   405],\n"
        "          [  408,   411,   414,  ...,   423,   426,   429],\n"
        "          [  432,   435,   438,  ...,   447,   450,   453],\n"
        "          ...,\n"
        "          [  504,   507,   510,  ...,   519,   522,   525],\n"
        "          [  528,   531,   534,  ...,   543,   546,   549],\n"
        "          [  552,   555,   558,  ...,   567,   570,   573]],\n"
        "\n"
        "         ...,\n"
        "\n"
        "         [[  960,   963,   966,  ...,   975,   978,   981],\n"
        "          [  984,   987,   990,  ...,   999,  1002,  1005],\n"
        "          [ 1008,  1011,  1014,  ...,  1023,  1026,  1029],\n"
        "          ...,\n"
        "          [ 1080,  1083,  1086,  ...,  1095,  1098,  1101],\n"
        "          [ 1104,  1107,  1110,  ...,  1119,  1122,  1125],\n"
        "          [ 1128,  1131,  1134,  ...,  1143,  1146,  1149]],\n"
        "\n"
        "         [[ 1152,  1155,  1158,  ...,  1167,  1170,  1173],\n"
        "          [ 1176,  1179,  1182,  ...,  1191,  1194,  1197],\n"
        "          [ 1200,  1203,  1206,  ...,  1215,  1218,  1221],\n"
        "          ...,\n"
        "          [ 1272,  1275,  1278,  ...,  1287,  1290,  1293],\n"
        "          [ 1296,  1299,  1302,  ...,  1311,  1314,  1317],\n"
        "          [ 1320,  1323,  1326,  ...,  1335,  1338,  1341]],\n"
        "\n"
        "         [[ 1344,  1347,  1350,  ...,  1359,  1362,  1365],\n"
        "          [ 1368,  1371,  1374,  ...,  1383,  1386,  1389],\n"
        "          [ 1392,  1395,  1398,  ...,  1407,  1410,  1413],\n"
        "          ...,\n"
        "          [ 1464,  1467,  1470,  ...,  1479,  1482,  1485],\n"
        "          [ 1488,  1491,  1494,  ...,  1503,  1506,  1509],\n"
        "          [ 1512,  1515,  1518,  ...,  1527,  1530,  1533]]],\n"
        "\n"
        "\n"
        "        [[[ 1536,  1539,  1542,  ...,  1551,  1554,  1557],\n"
        "          [ 1560,  1563,  1566,  ...,  1575,  1578,  1581],\n"
        "          [ 1584,  1587,  1590,  ...,  1599,  1602,  1605],\n"
        "          ...,\n"
        "          [ 1656,  1659,  1662,  ...,  1671,  1674,  1677],\n"
        "          [ 1680,  1683,  1686,  ...,  1695,  1698,  1701],\n"
        "          [ 1704,  1707,  1710,  ...,  1719,  1722,  1725]],\n"
        "\n"
        "         [[ 1728,  1731,  1734,  ...,  1743,  1746,  1749],\n"
        "          [ 1752,  1755,  1758,  ...,  1767,  1770,  1773],\n"
        "          [ 1776,  1779,  1782,  ...,  1791,  1794,  1797],\n"
        "          ...,\n"
        "          [ 1848,  1851,  1854,  ...,  1863,  1866,  1869],\n"
        "          [ 1872,  1875,  1878,  ...,  1887,  1890,  1893],\n"
        "          [ 1896,  1899,  1902,  ...,  1911,  1914,  1917]],\n"
        "\n"
        "         [[ 1920,  1923,  1926,  ...,  1935,  1938,  1941],\n"
        "          [ 1944,  1947,  1950,  ...,  1959,  1962,  1965],\n"
        "          [ 1968,  1971,  1974,  ...,  1983,  1986,  1989],\n"
        "          ...,\n"
        "          [ 2040,  2043,  2046,  ...,  2055,  2058,  2061],\n"
        "          [ 2064,  2067,  2070,  ...,  2079,  2082,  2085],\n"
        "          [ 2088,  2091,  2094,  ...,  2103,  2106,  2109]],\n"
        "\n"
        "         ...,\n"
        "\n"
        "         [[ 2496,  2499,  2502,  ...,  2511,  2514,  2517],\n"
        "          [ 2520,  2523,  2526,  ...,  2535,  2538,  2541],\n"
        "          [ 2544,  2547,  2550,  ...,  2559,  2562,  2565],\n"
        "          ...,\n"
        "          [ 2616,  2619,  2622,  ...,  2631,  2634,  2637],\n"
        "          [ 2640,  2643,  2646,  ...,  2655,  2658,  2661],\n"
        "          [ 2664,  2667,  2670,  ...,  2679,  2682,  2685]],\n"
        "\n"
        "         [[ 2688,  2691,  2694,  ...,  2703,  2706,  2709],\n"
        "          [ 2712,  2715,  2718,  ...,  2727,  2730,  2733],\n"
        "          [ 2736,  2739,  2742,  ...,  2751,  2754,  2757],\n"
        "          ...,\n"
        "          [ 2808,  2811,  2814,  ...,  2823,  2826,  2829],\n"
        "          [ 2832,  2835,  2838,  ...,  2847,  2850,  2853],\n"
        "          [ 2856,  2859,  2862,  ...,  2871,  2874,  2877]],\n"
        "\n"
        "         [[ 2880,  2883,  2886,  ...,  2895,  2898,  2901],\n"
        "          [ 2904,  2907,  2910,  ...,  2919,  2922,  2925],\n"
        "          [ 2928,  2931,  2934,  ...,  2943,  2946,  2949],\n"
        "          ...,\n"
        "          [ 3000,  3003,  3006,  ...,  3015,  3018,  3021],\n"
        "          [ 3024,  3027,  3030,  ...,  3039,  3042,  3045],\n"
        "          [ 3048,  3051,  3054,  ...,  3063,  3066,  3069]]],\n"
        "\n"
        "\n"
        "        [[[ 3072,  3075,  3078,  ...,  3087,  3090,  3093],\n"
        "          [ 3096,  3099,  3102,  ...,  3111,  3114,  3117],\n"
        "          [ 3120,  3123,  3126,  ...,  3135,  3138,  3141],\n"
        "          ...,\n"
        "          [ 3192,  3195,  3198,  ...,  3207,  3210,  3213],\n"
        "          [ 3216,  3219,  3222,  ...,  3231,  3234,  3237],\n"
        "          [ 3240,  3243,  3246,  ...,  3255,  3258,  3261]],\n"
        "\n"
        "         [[ 3264,  3267,  3270,  ...,  3279,  3282,  3285],\n"
        "          [ 3288,  3291,  3294,  ...,  3303,  3306,  3309],\n"
        "          [ 3312,  3315,  3318,  ...,  3327,  3330,  3333],\n"
        "          ...,\n"
        "          [ 3384,  3387,  3390,  ...,  3399,  3402,  3405],\n"
        "          [ 3408,  3411,  3414,  ...,  3423,  3426,  3429],\n"
        "          [ 3432,  3435,  3438,  ...,  3447,  3450,  3453]],\n"
        "\n"
        "         [[ 3456,  3459,  3462,  ...,  3471,  3474,  3477],\n"
        "          [ 3480,  3483,  3486,  ...,  3495,  3498,  3501],\n"
        "          [ 3504,  3507,  3510,  ...,  3519,  3522,  3525],\n"
        "          ...,\n"
        "          [ 3576,  3579,  3582,  ...,  3591,  3594,  3597],\n"
        "          [ 3600,  3603,  3606,  ...,  3615,  3618,  3621],\n"
        "          [ 3624,  3627,  3630,  ...,  3639,  3642,  3645]],\n"
        "\n"
        "         ...,\n"
        "\n"
        "         [[ 4032,  4035,  4038,  ...,  4047,  4050,  4053],\n"
        "          [ 4056,  4059,  4062,  ...,  4071,  4074,  4077],\n"
        "          [ 4080,  4083,  4086,  ...,  4095,  4098,  4101],\n"
        "          ...,\n"
        "          [ 4152,  4155,  4158,  ...,  4167,  4170,  4173],\n"
        "          [ 4176,  4179,  4182,  ...,  4191,  4194,  4197],\n"
        "          [ 4200,  4203,  4206,  ...,  4215,  4218,  4221]],\n"
        "\n"
        "         [[ 4224,  4227,  4230,  ...,  4239,  4242,  4245],\n"
        "          [ 4248,  4251,  4254,  ...,  4263,  4266,  4269],\n"
        "          [ 4272,  4275,  4278,  ...,  4287,  4290,  4293],\n"
        "          ...,\n"
        "          [ 4344,  4347,  4350,  ...,  4359,  4362,  4365],\n"
        "          [ 4368,  4371,  4374,  ...,  4383,  4386,  4389],\n"
        "          [ 4392,  4395,  4398,  ...,  4407,  4410,  4413]],\n"
        "\n"
        "         [[ 4416,  4419,  4422,  ...,  4431,  4434,  4437],\n"
        "          [ 4440,  4443,  4446,  ...,  4455,  4458,  4461],\n"
        "          [ 4464,  4467,  4470,  ...,  4479,  4482,  4485],\n"
        "          ...,\n"
        "          [ 4536,  4539,  4542,  ...,  4551,  4554,  4557],\n"
        "          [ 4560,  4563,  4566,  ...,  4575,  4578,  4581],\n"
        "          [ 4584,  4587,  4590,  ...,  4599,  4602,  4605]]],\n"
        "\n"
        "\n"
        "        ...,\n"
        "\n"
        "\n"
        "        [[[ 7680,  7683,  7686,  ...,  7695,  7698,  7701],\n"
        "          [ 7704,  7707,  7710,  ...,  7719,  7722,  7725],\n"
        "          [ 7728,  7731,  7734,  ...,  7743,  7746,  7749],\n"
        "          ...,\n"
        "          [ 7800,  7803,  7806,  ...,  7815,  7818,  7821],\n"
        "          [ 7824,  7827,  7830,  ...,  7839,  7842,  7845],\n"
        "          [ 7848,  7851,  7854,  ...,  7863,  7866,  7869]],\n"
        "\n"
        "         [[ 7872,  7875,  7878,  ...,  7887,  7890,  7893],\n"
        "          [ 7896,  7899,  7902,  ...,  7911,  7914,  7917],\n"
        "          [ 7920,  7923,  7926,  ...,  7935,  7938,  7941],\n"
        "          ...,\n"
        "          [ 7992,  7995,  7998,  ...,  8007,  8010,  8013],\n"
        "          [ 8016,  8019,  8022,  ...,  8031,  8034,  8037],\n"
        "          [ 8040,  8043,  8046,  ...,  8055,  8058,  8061]],\n"
        "\n"
        "         [[ 8064,  8067,  8070,  ...,  8079,  8082,  8085],\n"
        "          [ 8088,  8091,  8094,  ...,  8103,  8106,  8109],\n"
        "          [ 8112,  8115,  8118,  ...,  8127,  8130,  8133],\n"
        "          ...,\n"
        "          [ 8184,  8187,  8190,  ...,  8199,  8202,  8205],\n"
        "          [ 8208,  8211,  8214,  ...,  8223,  8226,  8229],\n"
        "          [ 8232,  8235,  8238,  ...,  8247,  8250,  8253]],\n"
        "\n"
        "         ...,\n"
        "\n"
        "         [[ 8640,  8643,  8646,  ...,  8655,  8658,  8661],\n"
        "          [ 8664,  8667,  8670,  ...,  8679,  8682,  8685],\n"
        "          [ 8688,  8691,  8694,  ...,  8703,  8706,  8709],\n"
        "          ...,\n"
        "          [ 8760,  8763,  8766,  ...,  8775,  8778,  8781],\n"
        "          [ 8784,  8787,  8790,  ...,  8799,  8802,  8805],\n"
        "          [ 8808,  8811,  8814,  ...,  8823,  8826,  8829]],\n"
        "\n"
        "         [[ 8832,  8835,  8838,  ...,  8847,  8850,  8853],\n"
        "          [ 8856,  8859,  8862,  ...,  8871,  8874,  8877],\n"
        "          [ 8880,  8883,  8886,  ...,  8895,  8898,  8901],\n"
        "          ...,\n"
        "          [ 8952,  8955,  8958,  ...,  8967,  8970,  8973],\n"
        "          [ 8976,  8979,  8982,  ...,  8991,  8994,  8997],\n"
        "          [ 9000,  9003,  9006,  ...,  9015,  9018,  9021]],\n"
        "\n"
        "         [[ 9024,  9027,  9030,  ...,  9039,  9042,  9045],\n"
        "          [ 9048,  9051,  9054,  ...,  9063,  9066,  9069],\n"
        "          [ 9072,  9075,  9078,  ...,  9087,  9090,  9093],\n"
        "          ...,\n"
        "          [ 9144,  9147,  9150,  ...,  9159,  9162,  9165],\n"
        "          [ 9168,  9171,  9174,  ...,  9183,  9186,  9189],\n"
        "          [ 9192,  9195,  9198,  ...,  9207,  9210,  9213]]],\n"
        "\n"
        "\n"
        "        [[[ 9216,  9219,  9222,  ...,  9231,  9234,  9237],\n"
        "          [ 9240,  9243,  9246,  ...,  9255,  9258,  9261],\n"
        "          [ 9264,  9267,  9270,  ...,  9279,  9282,  9285],\n"
        "          ...,\n"
        "          [ 9336,  9339,  9342,  ...,  9351,  9354,  9357],\n"
        "          [ 9360,  9363,  9366,  ...,  9375,  9378,  9381],\n"
        "          [ 9384,  9387,  9390,  ...,  9399,  9402,  9405]],\n"
        "\n"
        "         [[ 9408,  9411,  9414,  ...,  9423,  9426,  9429],\n"
        "          [ 9432,  9435,  9438,  ...,  9447,  9450,  9453],\n"
        "          [ 9456,  9459,  9462,  ...,  9471,  9474,  9477],\n"
        "          ...,\n"
        "          [ 9528,  9531,  9534,  ...,  9543,  9546,  9549],\n"
        "          [ 9552,  9555,  9558,  ...,  9567,  9570,  9573],\n"
        "          [ 9576,  9579,  9582,  ...,  9591,  9594,  9597]],\n"
        "\n"
        "         [[ 9600,  9603,  9606,  ...,  9615,  9618,  9621],\n"
        "          [ 9624,  9627,  9630,  ...,  9639,  9642,  9645],\n"
        "          [ 9648,  9651,  9654,  ...,  9663,  9666,  9669],\n"
        "          ...,\n"
        "          [ 9720,  9723,  9726,  ...,  9735,  9738,  9741],\n"
        "          [ 9744,  9747,  9750,  ...,  9759,  9762,  9765],\n"
        "          [ 9768,  9771,  9774,  ...,  9783,  9786,  9789]],\n"
        "\n"
        "         ...,\n"
        "\n"
        "         [[10176, 10179, 10182,  ..., 10191, 10194, 10197],\n"
        "          [10200, 10203, 10206,  ..., 10215, 10218, 10221],\n"
        "          [10224, 10227, 10230,  ..., 10239, 10242, 10245],\n"
        "          ...,\n"
        "          [10296, 10299, 10302,  ..., 10311, 10314, 10317],\n"
        "          [10320, 10323, 10326,  ..., 10335, 10338, 10341],\n"
        "          [10344, 10347, 10350,  ..., 10359, 10362, 10365]],\n"
        "\n"
        "         [[10368, 10371, 10374,  ..., 10383, 10386, 10389],\n"
        "          [10392, 10395, 10398,  ..., 10407, 10410, 10413],\n"
        "          [10416, 10419, 10422,  ..., 10431, 10434, 10437],\n"
        "          ...,\n"
        "          [10488, 10491, 10494,  ..., 10503, 10506, 10509],\n"
        "          [10512, 10515, 10518,  ..., 10527, 10530, 10533],\n"
        "          [10536, 10539, 10542,  ..., 10551, 10554, 10557]],\n"
        "\n"
        "         [[10560, 10563, 10566,  ..., 10575, 10578, 10581],\n"
        "          [10584, 10587, 10590,  ..., 10599, 10602, 10605],\n"
        "          [10608, 10611, 10614,  ..., 10623, 10626, 10629],\n"
        "          ...,\n"
        "          [10680, 10683, 10686,  ..., 10695, 10698, 10701],\n"
        "          [10704, 10707, 10710,  ..., 10719, 10722, 10725],\n"
        "          [10728, 10731, 10734,  ..., 10743, 10746, 10749]]],\n"
        "\n"
        "\n"
        "        [[[10752, 10755, 10758,  ..., 10767, 10770, 10773],\n"
        "          [10776, 10779, 10782,  ..., 10791, 10794, 10797],\n"
        "          [10800, 10803, 10806,  ..., 10815, 10818, 10821],\n"
        "          ...,\n"
        "          [10872, 10875, 10878,  ..., 10887, 10890, 10893],\n"
        "          [10896, 10899, 10902,  ..., 10911, 10914, 10917],\n"
        "          [10920, 10923, 10926,  ..., 10935, 10938, 10941]],\n"
        "\n"
        "         [[10944, 10947, 10950,  ..., 10959, 10962, 10965],\n"
        "          [10968, 10971, 10974,  ..., 10983, 10986, 10989],\n"
        "          [10992, 10995, 10998,  ..., 11007, 11010, 11013],\n"
        "          ...,\n"
        "          [11064, 11067, 11070,  ..., 11079, 11082, 11085],\n"
        "          [11088, 11091, 11094,  ..., 11103, 11106, 11109],\n"
        "          [11112, 11115, 11118,  ..., 11127, 11130, 11133]],\n"
        "\n"
        "         [[11136, 11139, 11142,  ..., 11151, 11154, 11157],\n"
        "          [11160, 11163, 11166,  ..., 11175, 11178, 11181],\n"
        "          [11184, 11187, 11190,  ..., 11199, 11202, 11205],\n"
        "          ...,\n"
        "          [11256, 11259, 11262,  ..., 11271, 11274, 11277],\n"
        "          [11280, 11283, 11286,  ..., 11295, 11298, 11301],\n"
        "          [11304, 11307, 11310,  ..., 11319, 11322, 11325]],\n"
        "\n"
        "         ...,\n"
        "\n"
        "         [[11712, 11715, 11718,  ..., 11727, 11730, 11733],\n"
        "          [11736, 11739, 11742,  ..., 11751, 11754, 11757],\n"
        "          [11760, 11763, 11766,  ..., 11775, 11778, 11781],\n"
        "          ...,\n"
        "          [11832, 11835, 11838,  ..., 11847, 11850, 11853],\n"
        "          [11856, 11859, 11862,  ..., 11871, 11874, 11877],\n"
        "          [11880, 11883, 11886,  ..., 11895, 11898, 11901]],\n"
        "\n"
        "         [[11904, 11907, 11910,  ..., 11919, 11922, 11925],\n"
        "          [11928, 11931, 11934,  ..., 11943, 11946, 11949],\n"
        "          [11952, 11955, 11958,  ..., 11967, 11970, 11973],\n"
        "          ...,\n"
        "          [12024, 12027, 12030,  ..., 12039, 12042, 12045],\n"
        "          [12048, 12051, 12054,  ..., 12063, 12066, 12069],\n"
        "          [12072, 12075, 12078,  ..., 12087, 12090, 12093]],\n"
        "\n"
        "         [[12096, 12099, 12102,  ..., 12111, 12114, 12117],\n"
        "          [12120, 12123, 12126,  ..., 12135, 12138, 12141],\n"
        "          [12144, 12147, 12150,  ..., 12159, 12162, 12165],\n"
        "          ...,\n"
        "          [12216, 12219, 12222,  ..., 12231, 12234, 12237],\n"
        "          [12240, 12243, 12246,  ..., 12255, 12258, 12261],\n"
        "          [12264, 12267, 12270,  ..., 12279, 12282, 12285]]]],\n"
        "       dtype=tensorplay.int32)");
}

TEST_CASE("print golden: summarised bool", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<bool>(seq<bool>(1200, 0, 1, 1, 3, {}), {1200});
  CHECK(to_string(t) == "tensor([False,  True,  True,  ..., False,  True,  True])");
}

TEST_CASE("print golden: summarised 2x600", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<Half>(seq<Half>(1200, 0.0, 1.0, 1, 0, {}), {2, 600});
  CHECK(to_string(t) ==
        "tensor([[0.0000e+00, 1.0000e+00, 2.0000e+00,  ..., 5.9700e+02, 5.9800e+02,\n"
        "         5.9900e+02],\n"
        "        [6.0000e+02, 6.0100e+02, 6.0200e+02,  ..., 1.1970e+03, 1.1980e+03,\n"
        "         1.1990e+03]], dtype=tensorplay.float16)");
}

TEST_CASE("print golden: wrap 1-d 30 floats", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>(seq<float>(30, 0.0, 1.5, 1, 0, {}), {30});
  CHECK(to_string(t) ==
        "tensor([ 0.0000,  1.5000,  3.0000,  4.5000,  6.0000,  7.5000,  9.0000, 10.5000,\n"
        "        12.0000, 13.5000, 15.0000, 16.5000, 18.0000, 19.5000, 21.0000, 22.5000,\n"
        "        24.0000, 25.5000, 27.0000, 28.5000, 30.0000, 31.5000, 33.0000, 34.5000,\n"
        "        36.0000, 37.5000, 39.0000, 40.5000, 42.0000, 43.5000])");
}

TEST_CASE("print golden: wrap 2-d 3x20", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>(seq<float>(60, -10.0, 0.25, 1, 0, {}), {3, 20});
  CHECK(to_string(t) ==
        "tensor([[-10.0000,  -9.7500,  -9.5000,  -9.2500,  -9.0000,  -8.7500,  -8.5000,\n"
        "          -8.2500,  -8.0000,  -7.7500,  -7.5000,  -7.2500,  -7.0000,  -6.7500,\n"
        "          -6.5000,  -6.2500,  -6.0000,  -5.7500,  -5.5000,  -5.2500],\n"
        "        [ -5.0000,  -4.7500,  -4.5000,  -4.2500,  -4.0000,  -3.7500,  -3.5000,\n"
        "          -3.2500,  -3.0000,  -2.7500,  -2.5000,  -2.2500,  -2.0000,  -1.7500,\n"
        "          -1.5000,  -1.2500,  -1.0000,  -0.7500,  -0.5000,  -0.2500],\n"
        "        [  0.0000,   0.2500,   0.5000,   0.7500,   1.0000,   1.2500,   1.5000,\n"
        "           1.7500,   2.0000,   2.2500,   2.5000,   2.7500,   3.0000,   3.2500,\n"
        "           3.5000,   3.7500,   4.0000,   4.2500,   4.5000,   4.7500]])");
}

TEST_CASE("print golden: wrap 1-d 100 int64", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<int64_t>(seq<int64_t>(100, 0, 1, 1, 0, {}), {100});
  CHECK(to_string(t) ==
        "tensor([ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17,\n"
        "        18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35,\n"
        "        36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53,\n"
        "        54, 55, 56, 57, 58, 59, 60, 61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71,\n"
        "        72, 73, 74, 75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87, 88, 89,\n"
        "        90, 91, 92, 93, 94, 95, 96, 97, 98, 99])");
}

TEST_CASE("print golden: wrap 3-d 2x2x30", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<int64_t>(seq<int64_t>(120, 0, 11, 1, 0, {}), {2, 2, 30});
  CHECK(to_string(t) ==
        "tensor([[[   0,   11,   22,   33,   44,   55,   66,   77,   88,   99,  110,\n"
        "           121,  132,  143,  154,  165,  176,  187,  198,  209,  220,  231,\n"
        "           242,  253,  264,  275,  286,  297,  308,  319],\n"
        "         [ 330,  341,  352,  363,  374,  385,  396,  407,  418,  429,  440,\n"
        "           451,  462,  473,  484,  495,  506,  517,  528,  539,  550,  561,\n"
        "           572,  583,  594,  605,  616,  627,  638,  649]],\n"
        "\n"
        "        [[ 660,  671,  682,  693,  704,  715,  726,  737,  748,  759,  770,\n"
        "           781,  792,  803,  814,  825,  836,  847,  858,  869,  880,  891,\n"
        "           902,  913,  924,  935,  946,  957,  968,  979],\n"
        "         [ 990, 1001, 1012, 1023, 1034, 1045, 1056, 1067, 1078, 1089, 1100,\n"
        "          1111, 1122, 1133, 1144, 1155, 1166, 1177, 1188, 1199, 1210, 1221,\n"
        "          1232, 1243, 1254, 1265, 1276, 1287, 1298, 1309]]])");
}

TEST_CASE("print golden: suffix wraps to a new line", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<double>(seq<double>(12, 0.0, 0.5, 1, 0, {}), {12});
  CHECK(to_string(t) ==
        "tensor([0.0000, 0.5000, 1.0000, 1.5000, 2.0000, 2.5000, 3.0000, 3.5000, 4.0000,\n"
        "        4.5000, 5.0000, 5.5000], dtype=tensorplay.float64)");
}

TEST_CASE("print golden: suffix fits", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<double>(seq<double>(5, 0.0, 0.5, 1, 0, {}), {5});
  CHECK(to_string(t) ==
        "tensor([0.0000, 0.5000, 1.0000, 1.5000, 2.0000], dtype=tensorplay.float64)");
}

TEST_CASE("print golden: suffix after a full first line wraps", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<double>(seq<double>(8, 0.0, 0.5, 1, 0, {}), {8});
  CHECK(to_string(t) ==
        "tensor([0.0000, 0.5000, 1.0000, 1.5000, 2.0000, 2.5000, 3.0000, 3.5000],\n"
        "       dtype=tensorplay.float64)");
}

TEST_CASE("print golden: suffix wraps because tensorplay. is longer than torch.",
          "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<double>(seq<double>(15, 0.0, 0.5, 1, 0, {}), {15});
  CHECK(to_string(t) ==
        "tensor([0.0000, 0.5000, 1.0000, 1.5000, 2.0000, 2.5000, 3.0000, 3.5000, 4.0000,\n"
        "        4.5000, 5.0000, 5.5000, 6.0000, 6.5000, 7.0000],\n"
        "       dtype=tensorplay.float64)");
}

TEST_CASE("print golden: wrap float64 sci", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<double>(seq<double>(20, 1e-06, 1.0, 1, 0, {}), {20});
  CHECK(to_string(t) ==
        "tensor([1.0000e-06, 1.0000e+00, 2.0000e+00, 3.0000e+00, 4.0000e+00, 5.0000e+00,\n"
        "        6.0000e+00, 7.0000e+00, 8.0000e+00, 9.0000e+00, 1.0000e+01, 1.1000e+01,\n"
        "        1.2000e+01, 1.3000e+01, 1.4000e+01, 1.5000e+01, 1.6000e+01, 1.7000e+01,\n"
        "        1.8000e+01, 1.9000e+01], dtype=tensorplay.float64)");
}

TEST_CASE("print golden: transposed 3x4 float32", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>(seq<float>(12, 0.0, 0.5, 1, 0, {}), {3, 4}, {1, 3});
  CHECK(to_string(t) ==
        "tensor([[0.0000, 1.5000, 3.0000, 4.5000],\n"
        "        [0.5000, 2.0000, 3.5000, 5.0000],\n"
        "        [1.0000, 2.5000, 4.0000, 5.5000]])");
}

TEST_CASE("print golden: transposed int64", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<int64_t>({1, 2, 3, 4, 5, 6}, {2, 3}, {1, 2});
  CHECK(to_string(t) ==
        "tensor([[1, 3, 5],\n"
        "        [2, 4, 6]])");
}

TEST_CASE("print golden: every other element", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({1.0, -1.0, 2.0, -1.0, 3.0, -1.0, 4.0}, {4}, {2});
  CHECK(to_string(t) == "tensor([1., 2., 3., 4.])");
}

TEST_CASE("print golden: storage offset", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<int64_t>({9, 9, 1, 2, 3, 4}, {2, 2}, {2, 1}, 2);
  CHECK(to_string(t) ==
        "tensor([[1, 2],\n"
        "        [3, 4]])");
}

TEST_CASE("print golden: permuted 3-d", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>(seq<float>(24, 0.0, 1.25, 1, 0, {}), {4, 2, 3}, {1, 12, 4});
  CHECK(to_string(t) ==
        "tensor([[[ 0.0000,  5.0000, 10.0000],\n"
        "         [15.0000, 20.0000, 25.0000]],\n"
        "\n"
        "        [[ 1.2500,  6.2500, 11.2500],\n"
        "         [16.2500, 21.2500, 26.2500]],\n"
        "\n"
        "        [[ 2.5000,  7.5000, 12.5000],\n"
        "         [17.5000, 22.5000, 27.5000]],\n"
        "\n"
        "        [[ 3.7500,  8.7500, 13.7500],\n"
        "         [18.7500, 23.7500, 28.7500]]])");
}

TEST_CASE("print golden: broadcast stride 0", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<float>({1.5, 2.0, 3.0, 4.0}, {3, 4}, {0, 1});
  CHECK(to_string(t) ==
        "tensor([[1.5000, 2.0000, 3.0000, 4.0000],\n"
        "        [1.5000, 2.0000, 3.0000, 4.0000],\n"
        "        [1.5000, 2.0000, 3.0000, 4.0000]])");
}

TEST_CASE("print golden: transposed summarised 50x50", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<int64_t>(seq<int64_t>(2500, 0, 1, 1, 0, {}), {50, 50}, {1, 50});
  CHECK(to_string(t) ==
        "tensor([[   0,   50,  100,  ..., 2350, 2400, 2450],\n"
        "        [   1,   51,  101,  ..., 2351, 2401, 2451],\n"
        "        [   2,   52,  102,  ..., 2352, 2402, 2452],\n"
        "        ...,\n"
        "        [  47,   97,  147,  ..., 2397, 2447, 2497],\n"
        "        [  48,   98,  148,  ..., 2398, 2448, 2498],\n"
        "        [  49,   99,  149,  ..., 2399, 2449, 2499]])");
}

TEST_CASE("print golden: column slice of 4x5", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  const Tensor t = make<double>(seq<double>(17, 0.0, 0.5, 1, 0, {}), {4}, {5}, 1);
  CHECK(to_string(t) == "tensor([0.5000, 3.0000, 5.5000, 8.0000], dtype=tensorplay.float64)");
}

TEST_CASE("print golden: precision 2", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  set_printoptions(2);
  const Tensor t = make<float>({1.12345, 2.5}, {2});
  CHECK(to_string(t) == "tensor([1.12, 2.50])");
}

TEST_CASE("print golden: precision 2 sci", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  set_printoptions(2);
  const Tensor t = make<float>({1.2345e-07, 2.5}, {2});
  CHECK(to_string(t) == "tensor([1.23e-07, 2.50e+00])");
}

TEST_CASE("print golden: precision 0", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  set_printoptions(0);
  const Tensor t = make<double>({1.5, 2.5, 0.25}, {3});
  CHECK(to_string(t) == "tensor([2, 2, 0], dtype=tensorplay.float64)");
}

TEST_CASE("print golden: precision 8 float64", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  set_printoptions(8);
  const Tensor t = make<double>({3.141592653589793, -2.718281828459045}, {2});
  CHECK(to_string(t) == "tensor([ 3.14159265, -2.71828183], dtype=tensorplay.float64)");
}

TEST_CASE("print golden: sci_mode true", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  set_printoptions({}, {}, {}, {}, {}, true);
  const Tensor t = make<float>({1.5, 2.5}, {2});
  CHECK(to_string(t) == "tensor([1.5000e+00, 2.5000e+00])");
}

TEST_CASE("print golden: sci_mode true int-valued", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  set_printoptions({}, {}, {}, {}, {}, true);
  const Tensor t = make<float>({1.0, 20.0}, {2});
  CHECK(to_string(t) == "tensor([1.0000e+00, 2.0000e+01])");
}

TEST_CASE("print golden: sci_mode true all zero stays int mode", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  set_printoptions({}, {}, {}, {}, {}, true);
  const Tensor t = make<float>({0.0, 0.0}, {2});
  CHECK(to_string(t) == "tensor([0., 0.])");
}

TEST_CASE("print golden: sci_mode true int64 unaffected", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  set_printoptions({}, {}, {}, {}, {}, true);
  const Tensor t = make<int64_t>({1, 20}, {2});
  CHECK(to_string(t) == "tensor([ 1, 20])");
}

TEST_CASE("print golden: sci_mode false tiny", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  set_printoptions({}, {}, {}, {}, {}, false);
  const Tensor t = make<float>({1e-05, 1.0}, {2});
  CHECK(to_string(t) == "tensor([    0.0000,     1.0000])");
}

TEST_CASE("print golden: sci_mode false huge integral", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  set_printoptions({}, {}, {}, {}, {}, false);
  const Tensor t = make<float>({1.0, 10000000000.0}, {2});
  CHECK(to_string(t) == "tensor([        1., 10000000000.])");
}

TEST_CASE("print golden: sci_mode false float64 1e300 writes every digit", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  set_printoptions({}, {}, {}, {}, {}, false);
  const Tensor t = make<double>({1e+300, 1.0}, {2});
  CHECK(to_string(t) ==
        "tensor(["
        "100000000000000005250476025520442024870446858110815915491585411551180245798890819578637137"
        "508044786404370444383288387817694252323536043057564479218478670698284838720092657580373783"
        "023379478809005936895323497079994508111903896764088007465274278014249457925878882005684283"
        "8115669472196386865459400540160.,          1.],\n"
        "       dtype=tensorplay.float64)");
}

TEST_CASE("print golden: precision 70", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  set_printoptions(70);
  const Tensor t = make<double>({0.1}, {1});
  CHECK(to_string(t) ==
        "tensor([0.1000000000000000055511151231257827021181583404541015625000000000000000],\n"
        "       dtype=tensorplay.float64)");
}

TEST_CASE("print golden: threshold 5", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  set_printoptions({}, 5);
  const Tensor t = make<int64_t>(seq<int64_t>(10, 0, 1, 1, 0, {}), {10});
  CHECK(to_string(t) == "tensor([0, 1, 2,  ..., 7, 8, 9])");
}

TEST_CASE("print golden: threshold 5 2-d", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  set_printoptions({}, 5);
  const Tensor t = make<float>(seq<float>(16, 0.0, 0.5, 1, 0, {}), {4, 4});
  CHECK(to_string(t) ==
        "tensor([[0.0000, 0.5000, 1.0000, 1.5000],\n"
        "        [2.0000, 2.5000, 3.0000, 3.5000],\n"
        "        [4.0000, 4.5000, 5.0000, 5.5000],\n"
        "        [6.0000, 6.5000, 7.0000, 7.5000]])");
}

TEST_CASE("print golden: threshold 5 2-d 8x8", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  set_printoptions({}, 5);
  const Tensor t = make<float>(seq<float>(64, 0.0, 0.5, 1, 0, {}), {8, 8});
  CHECK(to_string(t) ==
        "tensor([[ 0.0000,  0.5000,  1.0000,  ...,  2.5000,  3.0000,  3.5000],\n"
        "        [ 4.0000,  4.5000,  5.0000,  ...,  6.5000,  7.0000,  7.5000],\n"
        "        [ 8.0000,  8.5000,  9.0000,  ..., 10.5000, 11.0000, 11.5000],\n"
        "        ...,\n"
        "        [20.0000, 20.5000, 21.0000,  ..., 22.5000, 23.0000, 23.5000],\n"
        "        [24.0000, 24.5000, 25.0000,  ..., 26.5000, 27.0000, 27.5000],\n"
        "        [28.0000, 28.5000, 29.0000,  ..., 30.5000, 31.0000, 31.5000]])");
}

TEST_CASE("print golden: edgeitems 1", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  set_printoptions({}, {}, 1);
  const Tensor t = make<float>(seq<float>(2000, 0.0, 1.0, 1, 0, {}), {2000});
  CHECK(to_string(t) == "tensor([   0.,  ..., 1999.])");
}

TEST_CASE("print golden: edgeitems 2 3-d", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  set_printoptions({}, 100, 2);
  const Tensor t = make<int64_t>(seq<int64_t>(216, 0, 1, 1, 0, {}), {6, 6, 6});
  CHECK(to_string(t) ==
        "tensor([[[  0,   1,  ...,   4,   5],\n"
        "         [  6,   7,  ...,  10,  11],\n"
        "         ...,\n"
        "         [ 24,  25,  ...,  28,  29],\n"
        "         [ 30,  31,  ...,  34,  35]],\n"
        "\n"
        "        [[ 36,  37,  ...,  40,  41],\n"
        "         [ 42,  43,  ...,  46,  47],\n"
        "         ...,\n"
        "         [ 60,  61,  ...,  64,  65],\n"
        "         [ 66,  67,  ...,  70,  71]],\n"
        "\n"
        "        ...,\n"
        "\n"
        "        [[144, 145,  ..., 148, 149],\n"
        "         [150, 151,  ..., 154, 155],\n"
        "         ...,\n"
        "         [168, 169,  ..., 172, 173],\n"
        "         [174, 175,  ..., 178, 179]],\n"
        "\n"
        "        [[180, 181,  ..., 184, 185],\n"
        "         [186, 187,  ..., 190, 191],\n"
        "         ...,\n"
        "         [204, 205,  ..., 208, 209],\n"
        "         [210, 211,  ..., 214, 215]]])");
}

TEST_CASE("print golden: edgeitems 0 1-d shows the tail", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  set_printoptions({}, 3, 0);
  const Tensor t = make<int64_t>(seq<int64_t>(5, 0, 1, 1, 0, {}), {5});
  CHECK(to_string(t) == "tensor([ ..., 0, 1, 2, 3, 4])");
}

TEST_CASE("print golden: linewidth 40", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  set_printoptions({}, {}, {}, 40);
  const Tensor t = make<float>(seq<float>(12, 0.0, 1.5, 1, 0, {}), {12});
  CHECK(to_string(t) ==
        "tensor([ 0.0000,  1.5000,  3.0000,\n"
        "         4.5000,  6.0000,  7.5000,\n"
        "         9.0000, 10.5000, 12.0000,\n"
        "        13.5000, 15.0000, 16.5000])");
}

TEST_CASE("print golden: linewidth 120 2-d", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  set_printoptions({}, {}, {}, 120);
  const Tensor t = make<int64_t>(seq<int64_t>(80, 0, 1, 1, 0, {}), {2, 40});
  CHECK(to_string(t) ==
        "tensor([[ 0,  1,  2,  3,  4,  5,  6,  7,  8,  9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, "
        "20, 21, 22, 23, 24, 25, 26, 27,\n"
        "         28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39],\n"
        "        [40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 58, 59, "
        "60, 61, 62, 63, 64, 65, 66, 67,\n"
        "         68, 69, 70, 71, 72, 73, 74, 75, 76, 77, 78, 79]])");
}

TEST_CASE("print golden: linewidth 10 one per line", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  set_printoptions({}, {}, {}, 10);
  const Tensor t = make<float>({1.5, 2.5, 3.5, 4.5}, {4});
  CHECK(to_string(t) ==
        "tensor([1.5000,\n"
        "        2.5000,\n"
        "        3.5000,\n"
        "        4.5000])");
}

TEST_CASE("print golden: linewidth 30 pushes suffix", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  set_printoptions({}, {}, {}, 30);
  const Tensor t = make<double>({1.5, 2.5}, {2});
  CHECK(to_string(t) ==
        "tensor([1.5000, 2.5000],\n"
        "       dtype=tensorplay.float64)");
}

TEST_CASE("print golden: profile short", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  set_printoptions({}, {}, {}, {}, "short");
  const Tensor t = make<float>(seq<float>(2000, 0.0, 0.125, 1, 0, {}), {2000});
  CHECK(to_string(t) == "tensor([0.00e+00, 1.25e-01,  ..., 2.50e+02, 2.50e+02])");
}

TEST_CASE("print golden: profile full", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  set_printoptions({}, {}, {}, {}, "full");
  const Tensor t = make<int8_t>(seq<int8_t>(1001, 0, 1, 1, 3, {}), {1001});
  CHECK(to_string(t) ==
        "tensor([0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2,\n"
        "        0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1],\n"
        "       dtype=tensorplay.int8)");
}

TEST_CASE("print golden: profile short then precision 6", "[ops][print][golden]") {
  const DefaultPrintOptions restore;
  set_printoptions(6, {}, {}, {}, "short");
  const Tensor t = make<float>({1.12345678}, {1});
  CHECK(to_string(t) == "tensor([1.123457])");
}

}  // namespace ops_print_test
