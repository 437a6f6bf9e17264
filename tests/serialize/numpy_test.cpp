// NumPy .npy (serialize/numpy.hpp): every dtype in both byte orders, C and Fortran order, 0-d,
// empty, versions 1.0/2.0/3.0 and NumPy's older or hand-written headers, loaded and compared by
// value and strides against files NumPy 1.24 wrote (data/make_npy.py); saved tensors compared
// byte for byte with np.save's files; and every check that guards the input, each triggered by
// a hostile file built here.
#include <tensorplay/serialize/numpy.hpp>

#include <tensorplay/core/empty.hpp>
#include <tensorplay/ops/as_strided.hpp>
#include <tensorplay/ops/views.hpp>

#include <catch2/catch.hpp>

#include "serialize_test_util.hpp"

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

namespace serialize_numpy_test {

using namespace tensorplay;
using namespace std::string_literals;

namespace {

using serialize_test::slurp;
std::filesystem::path data_dir() { return serialize_test::data_dir("npy"); }

std::string ref_file(const std::string& name) { return slurp(data_dir() / (name + ".npy")); }

struct Code {
  const char* code;
  DType dtype;
};
const std::vector<Code> kCodes = {{"b1", kBool},  {"u1", kByte},  {"i1", kChar},
                                  {"i2", kShort}, {"i4", kInt},   {"i8", kLong},
                                  {"f2", kHalf},  {"f4", kFloat}, {"f8", kDouble}};

// make_npy.py's value(code, i), as a double (exact for every value used).
double value(DType dt, int64_t i) {
  switch (dt) {
    case kBool: return i % 3 == 1 ? 1 : 0;
    case kByte: return static_cast<double>((i * 37) % 256);
    case kChar: return static_cast<double>((i * 37) % 256 - 128);
    case kShort: return static_cast<double>(i * 1001 - 12000);
    case kInt: return static_cast<double>(i * 100003 - 1200000);
    case kLong: return static_cast<double>(i * 1000000007 - 3000000000);
    case kHalf: return static_cast<double>(i) * 0.5 - 3.0;
    case kFloat: return static_cast<double>(i) * 0.25 - 2.5;
    case kDouble: return static_cast<double>(i) * 0.1 - 1.0;
    default: FAIL("unexpected dtype"); return 0;
  }
}

void write_elem(char* p, DType dt, double v) {
  switch (dt) {
    case kBool: *reinterpret_cast<bool*>(p) = v != 0; break;
    case kByte: *reinterpret_cast<uint8_t*>(p) = static_cast<uint8_t>(v); break;
    case kChar: *reinterpret_cast<int8_t*>(p) = static_cast<int8_t>(v); break;
    case kShort: *reinterpret_cast<int16_t*>(p) = static_cast<int16_t>(v); break;
    case kInt: *reinterpret_cast<int32_t*>(p) = static_cast<int32_t>(v); break;
    case kLong: *reinterpret_cast<int64_t*>(p) = static_cast<int64_t>(v); break;
    case kHalf: *reinterpret_cast<Half*>(p) = Half(static_cast<float>(v)); break;
    case kFloat: *reinterpret_cast<float*>(p) = static_cast<float>(v); break;
    case kDouble: *reinterpret_cast<double*>(p) = v; break;
    default: FAIL("unexpected dtype");
  }
}

// Every element equals value(dtype, base_index(C position)).
template <class F>
void check_values(const Tensor& t, F base_index) {
  for (int64_t i = 0; i < t.numel(); ++i) {
    INFO("element " << i);
    CHECK(serialize_test::element(t, i) == value(t.dtype(), base_index(i)));
  }
}
void check_values(const Tensor& t) {
  check_values(t, [](int64_t i) { return i; });
}

// A tensor of `sizes` and `strides` holding value(dtype, i) at C position i.
Tensor make_pattern(DType dt, std::vector<int64_t> sizes, std::vector<int64_t> strides = {}) {
  if (strides.empty()) strides = SizesAndStrides::compute_contiguous_strides(sizes);
  Tensor t = empty_strided<>(sizes, strides, TensorOptions().dtype(dt));
  for (int64_t i = 0; i < t.numel(); ++i) {
    write_elem(const_cast<char*>(serialize_test::element_ptr(t, i)), dt, value(dt, i));
  }
  return t;
}

std::vector<int64_t> vec(IntArrayRef a) { return std::vector<int64_t>(a.begin(), a.end()); }

// A version 1.0 (or 2.0/3.0) file around a header given as text, padded as NumPy pads.
std::string npy(const std::string& header, const std::string& data = "", int major = 1) {
  const std::size_t lb = major == 1 ? 2 : 4;
  const std::size_t hlen = header.size() + 1;
  const std::size_t pad = (64 - (6 + 2 + lb + hlen) % 64) % 64;
  std::string out = "\x93NUMPY";
  out += static_cast<char>(major);
  out += '\0';
  for (std::size_t i = 0; i < lb; ++i) out += static_cast<char>(((hlen + pad) >> (8 * i)) & 0xff);
  return out + header + std::string(pad, ' ') + "\n" + data;
}
std::string dict(const std::string& descr, const std::string& fortran, const std::string& shape) {
  return "{'descr': " + descr + ", 'fortran_order': " + fortran + ", 'shape': " + shape + ", }";
}
const std::string k24Bytes(24, '\0');  // data of a (2, 3) int32 array

template <class E>
void expect_error(const std::string& bytes, const std::string& fragment) {
  INFO("expecting: " << fragment);
  try {
    numpy::load_bytes(bytes);
    FAIL("no exception");
  } catch (const E& e) {
    CHECK_THAT(std::string(e.what()), Catch::Matchers::Contains(fragment));
  }
}

}  // namespace

TEST_CASE("numpy: every dtype loads from np.save's C-order files", "[serialize]") {
  for (const auto& c : kCodes) {
    INFO(c.code);
    const Tensor t = numpy::load(data_dir() / (std::string("c_") + c.code + ".npy"));
    CHECK(t.dtype() == c.dtype);
    CHECK(t.is_cpu());
    CHECK(vec(t.sizes()) == std::vector<int64_t>{2, 3});
    CHECK(vec(t.strides()) == std::vector<int64_t>{3, 1});
    check_values(t);
  }
}

TEST_CASE("numpy: big-endian files are swapped on load", "[serialize]") {
  for (const auto& c : kCodes) {
    if (itemsize(c.dtype) == 1) continue;
    INFO(c.code);
    const Tensor t = numpy::load_bytes(ref_file(std::string("be_") + c.code));
    CHECK(t.dtype() == c.dtype);
    CHECK(vec(t.strides()) == std::vector<int64_t>{3, 1});
    check_values(t);
    // Saved back little-endian: np.save's bytes of the same values.
    CHECK(numpy::save_bytes(t) == ref_file(std::string("c_") + c.code));
  }
}

TEST_CASE("numpy: Fortran order loads with Fortran strides, as torch.from_numpy", "[serialize]") {
  for (const auto& c : kCodes) {
    for (const char* prefix : {"f_", "fbe_"}) {
      if (prefix[1] == 'b' && itemsize(c.dtype) == 1) continue;
      INFO(prefix << c.code);
      const Tensor t = numpy::load_bytes(ref_file(prefix + std::string(c.code)));
      CHECK(t.dtype() == c.dtype);
      CHECK(vec(t.sizes()) == std::vector<int64_t>{2, 3, 4});
      CHECK(vec(t.strides()) == std::vector<int64_t>{1, 2, 6});
      CHECK_FALSE(t.is_contiguous());
      check_values(t);
      CHECK(numpy::save_bytes(t) == ref_file(std::string("f_") + c.code));
    }
  }
  const Tensor v2 = numpy::load_bytes(ref_file("v2_f_f8"));
  CHECK(vec(v2.strides()) == std::vector<int64_t>{1, 2});
  check_values(v2);
}

TEST_CASE("numpy: 0-d, empty, 1-d, non-contiguous and many-dim files", "[serialize]") {
  const Tensor s = numpy::load_bytes(ref_file("scalar_f8"));
  CHECK(s.dim() == 0);
  CHECK(s.numel() == 1);
  check_values(s);
  const Tensor b = numpy::load_bytes(ref_file("scalar_b1"));
  CHECK(b.dim() == 0);
  CHECK(serialize_test::element(b, 0) == 1);

  const Tensor e = numpy::load_bytes(ref_file("empty_f4"));
  CHECK(vec(e.sizes()) == std::vector<int64_t>{0, 3});
  CHECK(e.numel() == 0);
  const Tensor e2 = numpy::load_bytes(ref_file("empty_i2"));
  CHECK(vec(e2.sizes()) == std::vector<int64_t>{4, 0, 2});
  CHECK(vec(e2.strides()) == std::vector<int64_t>{2, 2, 1});  // max(size, 1), as NumPy and c10

  const Tensor v = numpy::load_bytes(ref_file("vec_i8"));
  CHECK(vec(v.sizes()) == std::vector<int64_t>{5});
  check_values(v);

  // np.save of a (2, 3, 4) array transposed to (3, 2, 4): written in C order of the view.
  const Tensor nc = numpy::load_bytes(ref_file("noncontig_i4"));
  CHECK(vec(nc.sizes()) == std::vector<int64_t>{3, 2, 4});
  CHECK(nc.is_contiguous());
  check_values(nc, [](int64_t i) {
    const int64_t a = i / 8, b = i / 4 % 2, c = i % 4;
    return b * 12 + a * 4 + c;
  });

  const Tensor md = numpy::load_bytes(ref_file("many_dims_u1"));
  CHECK(md.dim() == 20);
  check_values(md);
  const Tensor p = numpy::load_bytes(ref_file("pad64_f4"));
  CHECK(p.dim() == 12);
  CHECK(p.numel() == 0);
}

TEST_CASE("numpy: versions 2.0 and 3.0, and headers NumPy's writers no longer produce",
          "[serialize]") {
  for (const char* name : {"v2_f4", "v3_f4"}) {
    INFO(name);
    const std::string bytes = ref_file(name);
    CHECK(numpy::read_header(bytes).major == (name[1] == '2' ? 2 : 3));
    const Tensor t = numpy::load_bytes(bytes);
    CHECK(vec(t.sizes()) == std::vector<int64_t>{2, 3});
    check_values(t);
    CHECK(numpy::save_bytes(t) == ref_file("c_f4"));  // written back as 1.0, as np.save would
  }
  // Python 2's `2L`, NumPy < 1.9's 16-byte alignment, double quotes without a trailing comma.
  for (const char* name : {"py2_long", "align16", "dquote"}) {
    INFO(name);
    const Tensor t = numpy::load_bytes(ref_file(name));
    CHECK(t.dtype() == kInt);
    CHECK(vec(t.sizes()) == std::vector<int64_t>{2, 3});
    check_values(t);
  }
  CHECK(numpy::read_header(ref_file("align16")).data_offset == 80);
}

TEST_CASE("numpy: load then save gives np.save's bytes back", "[serialize]") {
  std::vector<std::string> names = {"scalar_f8", "scalar_b1",    "vec_i8",   "empty_f4",
                                    "empty_i2",  "noncontig_i4", "pad64_f4", "many_dims_u1"};
  for (const auto& c : kCodes) {
    names.push_back(std::string("c_") + c.code);
    names.push_back(std::string("f_") + c.code);
  }
  for (const auto& name : names) {
    INFO(name);
    const std::string bytes = ref_file(name);
    CHECK(numpy::save_bytes(numpy::load_bytes(bytes)) == bytes);
  }
}

TEST_CASE("numpy: tensors built in C++ save as np.save writes them", "[serialize]") {
  for (const auto& c : kCodes) {
    INFO(c.code);
    CHECK(numpy::save_bytes(make_pattern(c.dtype, {2, 3})) == ref_file(std::string("c_") + c.code));
    // Fortran-contiguous and not C-contiguous: fortran_order True, as NumPy decides.
    CHECK(numpy::save_bytes(make_pattern(c.dtype, {2, 3, 4}, {1, 2, 6})) ==
          ref_file(std::string("f_") + c.code));
  }
  // Neither order: gathered in C order.
  const Tensor base = make_pattern(kInt, {2, 3, 4});
  const Tensor nc = base.as_strided({3, 2, 4}, {4, 12, 1});
  CHECK(numpy::save_bytes(nc) == ref_file("noncontig_i4"));
  CHECK(numpy::save_bytes(make_pattern(kDouble, {})) == ref_file("scalar_f8"));
  CHECK(numpy::save_bytes(make_pattern(kLong, {5})) == ref_file("vec_i8"));
  CHECK(numpy::save_bytes(make_pattern(kFloat, {0, 3})) == ref_file("empty_f4"));
  // A storage offset and a step: a strided 1-d view is gathered.
  const Tensor longer = make_pattern(kLong, {11});
  const Tensor stepped = longer.as_strided({5}, {2}, 1);
  const Tensor back = numpy::load_bytes(numpy::save_bytes(stepped));
  check_values(back, [](int64_t i) { return 2 * i + 1; });
  // Size-1 dims with odd strides are still C-contiguous in NumPy's (relaxed) sense.
  const Tensor odd = make_pattern(kFloat, {2, 3}).as_strided({2, 1, 3}, {3, 99, 1});
  const std::string odd_bytes = numpy::save_bytes(odd);
  CHECK(numpy::read_header(odd_bytes).fortran_order == false);
  CHECK(odd_bytes.substr(odd_bytes.size() - 24) == ref_file("c_f4").substr(128));
}

TEST_CASE("numpy: save and load through a file", "[serialize]") {
  const auto path = std::filesystem::temp_directory_path() / "tensorplay_numpy_test_hC.npy";
  const Tensor t = make_pattern(kHalf, {2, 3, 4}, {1, 2, 6});
  numpy::save(path.string(), t);
  CHECK(slurp(path) == ref_file("f_f2"));
  const Tensor back = numpy::load(path.string());
  CHECK(vec(back.strides()) == std::vector<int64_t>{1, 2, 6});
  check_values(back);
  std::filesystem::remove(path);
  CHECK_THROWS_WITH(numpy::load(path.string()), Catch::Matchers::Contains("cannot open"));
  CHECK_THROWS_WITH(numpy::save("/nonexistent-dir-hC/x.npy", t),
                    Catch::Matchers::Contains("cannot open"));
}

TEST_CASE("numpy: a header past 65535 bytes is written as version 2.0", "[serialize]") {
  const std::vector<int64_t> sizes(22000, 1);  // "1, " per dim: 66000 bytes of shape
  const Tensor t = make_pattern(kFloat, sizes);
  const std::string bytes = numpy::save_bytes(t);
  CHECK(bytes.substr(0, 8) == std::string("\x93NUMPY\x02\x00", 8));
  const numpy::NpyHeader h = numpy::read_header(bytes);
  CHECK(h.major == 2);
  CHECK(h.data_offset % 64 == 0);
  CHECK(h.data_offset + 4 == bytes.size());
  const std::string start = "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1, ";
  CHECK(bytes.compare(12, start.size(), start) == 0);
  CHECK(bytes[h.data_offset - 1] == '\n');
  const Tensor back = numpy::load_bytes(bytes);
  CHECK(back.dim() == 22000);
  check_values(back);
  // A small header stays 1.0, padded so that the data starts at byte 128.
  CHECK(numpy::header_bytes(kFloat, {2, 3}, false).size() == 128);
  CHECK(numpy::header_bytes(kFloat, {2, 3}, false)[6] == 1);
}

TEST_CASE("numpy: descr, and the dtypes NumPy has and TensorPlay lacks", "[serialize]") {
  CHECK(numpy::descr(kBool) == "|b1");
  CHECK(numpy::descr(kHalf) == "<f2");
  CHECK(numpy::descr(kLong) == "<i8");
  // torch's bfloat16_tensor.numpy() TypeError.
  CHECK_THROWS_AS(numpy::save_bytes(empty<>({2}, TensorOptions().dtype(kBFloat16))), TypeError);
  CHECK_THROWS_WITH(numpy::save_bytes(empty<>({2}, TensorOptions().dtype(kBFloat16))),
                    "Got unsupported ScalarType BFloat16");
  CHECK_THROWS_AS(numpy::save_bytes(Tensor()), Error);

  // '=' and '|' are native, '>' on a one-byte type is not a swap.
  for (const char* d : {"'=i4'", "'|i4'", "\"<i4\""}) {
    INFO(d);
    check_values(numpy::load_bytes(npy(dict(d, "False", "(2, 3)"), ref_file("c_i4").substr(128))));
  }
  check_values(
      numpy::load_bytes(npy(dict("'>u1'", "False", "(2, 3)"), ref_file("c_u1").substr(128))));

  expect_error<TypeError>(npy(dict("'<u2'", "False", "(2, 3)"), k24Bytes),
                          "descr '<u2' (uint16) is not supported: tensorplay has no uint16 dtype");
  expect_error<TypeError>(npy(dict("'<u4'", "False", "(2, 3)"), k24Bytes),
                          "tensorplay has no uint32 dtype");
  expect_error<TypeError>(npy(dict("'>u8'", "False", "(2, 3)"), k24Bytes),
                          "tensorplay has no uint64 dtype");
  for (const char* d :
       {"<c8", "<c16", "<U3", "|O", "|V4", "|S2", "<M8[ns]", "float32", "", "<f16", "<b1x"}) {
    INFO(d);
    expect_error<TypeError>(npy(dict(std::string("'") + d + "'", "False", "(2, 3)"), k24Bytes),
                            std::string("descr '") + d + "' is not supported");
  }
  expect_error<TypeError>(npy(dict("[('a', '<f4'), ('b', '<i4')]", "False", "(2, 3)"), k24Bytes),
                          "is a structured or subarray dtype");
  expect_error<TypeError>(npy(dict("('<f4', (2,))", "False", "(2, 3)"), k24Bytes),
                          "is a structured or subarray dtype");
  expect_error<ValueError>(npy(dict("4", "False", "(2, 3)"), k24Bytes), "descr is not a string");
}

TEST_CASE("numpy: hostile prefixes: magic, version, header length", "[serialize]") {
  const std::string good = ref_file("c_i4");
  expect_error<ValueError>("", "EOF: reading magic string, expected 8 bytes got 0");
  expect_error<ValueError>(good.substr(0, 7), "EOF: reading magic string, expected 8 bytes got 7");
  std::string bad = good;
  bad[1] = 'M';
  expect_error<ValueError>(bad,
                           "the magic string is not correct; expected b'\\x93NUMPY', got "
                           "b'\\x93MUMPY'");
  expect_error<ValueError>("PK\x03\x04 zip file not npy", "the magic string is not correct");
  for (auto [major, minor] : {std::pair{4, 0}, std::pair{0, 0}, std::pair{1, 1}}) {
    bad = good;
    bad[6] = static_cast<char>(major);
    bad[7] = static_cast<char>(minor);
    expect_error<ValueError>(bad, "we only support format version (1,0), (2,0), and (3,0), not (" +
                                      std::to_string(major) + ", " + std::to_string(minor) + ")");
  }
  expect_error<ValueError>(good.substr(0, 9),
                           "EOF: reading array header length, expected 2 bytes "
                           "got 1");
  expect_error<ValueError>(ref_file("v2_f4").substr(0, 11),
                           "EOF: reading array header length, "
                           "expected 4 bytes got 3");
  // Header length past the end: truncated inside the header, or a lying length.
  expect_error<ValueError>(good.substr(0, 100),
                           "EOF: reading array header, expected 118 bytes got "
                           "90");
  bad = good;
  bad[8] = '\xff';
  bad[9] = '\xff';
  expect_error<ValueError>(bad, "EOF: reading array header, expected 65535 bytes got 142");
  bad = ref_file("v2_f4");
  bad[11] = '\x80';
  expect_error<ValueError>(bad, "EOF: reading array header, expected 2147483764 bytes");
}

TEST_CASE("numpy: hostile headers: the dict literal", "[serialize]") {
  const std::string d = "'<i4'";
  // Unterminated, or text that is not a dict.
  expect_error<ValueError>(
      npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), ", k24Bytes),
      "unterminated dictionary");
  expect_error<ValueError>(
      npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3)", k24Bytes),
      "unterminated dictionary");
  expect_error<TypeError>(npy("{'descr': '<i4, 'fortran_order': False}", k24Bytes),
                          "descr '<i4, ' is not supported");  // the string swallowed the next quote
  expect_error<ValueError>(npy("{'descr: '<i4'", k24Bytes), "expected ':'");
  expect_error<ValueError>(npy("{'descr", k24Bytes), "unsupported character in a string");
  // Without NumPy's padding the text ends where the header length says.
  expect_error<ValueError>("\x93NUMPY\x01\x00\x07\x00{'descr"s, "unterminated string");
  expect_error<ValueError>("\x93NUMPY\x01\x00\x0f\x00{'descr': '<i4'"s, "unterminated dictionary");
  expect_error<ValueError>("\x93NUMPY\x01\x00\x01\x00{"s, "unterminated dictionary");
  expect_error<ValueError>("\x93NUMPY\x01\x00\x00\x00"s, "expected '{'");
  expect_error<ValueError>(npy("['descr', '<i4']", k24Bytes), "expected '{'");
  expect_error<ValueError>(npy("", k24Bytes), "expected '{'");
  expect_error<ValueError>(npy(dict(d, "False", "(2, 3)") + " x", k24Bytes),
                           "unexpected text after the dictionary");
  expect_error<ValueError>(npy(dict(d, "False", "(2, 3)") + "}", k24Bytes),
                           "unexpected text after the dictionary");
  expect_error<ValueError>(
      npy("{'descr': '<i4' 'fortran_order': False, 'shape': (2, 3)}", k24Bytes),
      "expected ',' or '}'");
  expect_error<ValueError>(
      npy("{'descr': '<\\x69\\x34', 'fortran_order': False, 'shape': (2,3)}", k24Bytes),
      "unsupported character in a string");
  expect_error<ValueError>(npy("{'descr': '<i4',\0 'fortran_order': False}"s, k24Bytes),
                           "Cannot parse header");
  // Keys: missing, duplicate, extra.
  expect_error<ValueError>(npy("{'descr': '<i4', 'shape': (2, 3), }", k24Bytes),
                           "Header does not contain the correct keys: ['descr', 'shape']");
  expect_error<ValueError>(npy("{}", k24Bytes), "Header does not contain the correct keys: []");
  expect_error<ValueError>(
      npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), 'shape': (6,)}", k24Bytes),
      "Header has a duplicate key: 'shape'");
  expect_error<ValueError>(
      npy("{'descr': '<i4', 'descr': '<i4', 'fortran_order': False, 'shape': (2, 3)}", k24Bytes),
      "Header has a duplicate key: 'descr'");
  expect_error<ValueError>(
      npy("{'fortran_order': False, 'fortran_order': False, 'shape': (2, 3)}", k24Bytes),
      "Header has a duplicate key: 'fortran_order'");
  expect_error<ValueError>(
      npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3), 'extra': 1}", k24Bytes),
      "unexpected key 'extra'");
  // fortran_order must be a Python bool.
  for (const char* f : {"0", "1", "'False'", "false", "Truex", "None"}) {
    INFO(f);
    expect_error<ValueError>(npy(dict(d, f, "(2, 3)"), k24Bytes),
                             "fortran_order is not a valid bool");
  }
}

TEST_CASE("numpy: hostile headers: shapes", "[serialize]") {
  const std::string d = "'<i4'";
  // Not a tuple of ints.
  expect_error<ValueError>(npy(dict(d, "False", "(6)"), k24Bytes),
                           "shape is not valid: 6 (a one-element tuple needs a trailing comma");
  expect_error<ValueError>(npy(dict(d, "False", "[2, 3]"), k24Bytes), "shape is not valid");
  expect_error<ValueError>(npy(dict(d, "False", "6"), k24Bytes), "shape is not valid");
  expect_error<ValueError>(npy(dict(d, "False", "(2, 3.0)"), k24Bytes),
                           "expected ',' or ')' in the shape tuple");
  expect_error<ValueError>(npy(dict(d, "False", "(2, 3e0)"), k24Bytes), "invalid integer literal");
  expect_error<ValueError>(npy(dict(d, "False", "(a,)"), k24Bytes), "expected an integer");
  expect_error<ValueError>(npy(dict(d, "False", "(2,,3)"), k24Bytes), "expected an integer");
  expect_error<ValueError>(npy(dict(d, "False", "(,)"), k24Bytes), "expected an integer");
  expect_error<ValueError>(npy(dict(d, "False", "(06,)"), k24Bytes), "leading zeros");
  expect_error<ValueError>(npy(dict(d, "False", "(0x6,)"), k24Bytes), "invalid integer literal");
  expect_error<ValueError>(npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2, 3", k24Bytes),
                           "unterminated shape tuple");
  // `L` only in Python 2 era versions (1.0, 2.0), never in 3.0.
  expect_error<ValueError>(npy(dict(d, "False", "(2L, 3L)"), k24Bytes, 3),
                           "invalid integer literal");
  CHECK(numpy::load_bytes(npy(dict(d, "False", "(2L, 3L)"), k24Bytes, 2)).numel() == 6);
  // Python's own spellings are accepted: signs, spaces, zeros, trailing commas.
  CHECK(numpy::load_bytes(npy(dict(d, "False", "( +2 ,\n 3 , )"), k24Bytes)).numel() == 6);
  CHECK(numpy::load_bytes(npy(dict(d, "False", "(00, 3)"), "")).numel() == 0);
  CHECK(numpy::load_bytes(npy(dict(d, "False", "(-0, 3)"), "")).numel() == 0);
  // Negative dimensions, dimensions past int64, products past int64.
  expect_error<ValueError>(npy(dict(d, "False", "(-1, 3)"), k24Bytes),
                           "negative dimensions are not allowed");
  expect_error<ValueError>(npy(dict(d, "False", "(- 2, -3)"), k24Bytes),
                           "negative dimensions are not allowed");
  expect_error<ValueError>(npy(dict(d, "False", "(99999999999999999999,)"), k24Bytes),
                           "the dimension 99999999999999999999 does not fit in int64");
  expect_error<ValueError>(npy(dict(d, "False", "(9223372036854775808,)"), k24Bytes),
                           "does not fit in int64");
  const std::string too_big =
      "array is too big; `arr.size * arr.dtype.itemsize` is larger than "
      "the maximum possible size";
  expect_error<ValueError>(npy(dict(d, "False", "(4294967296, 4294967296)"), k24Bytes), too_big);
  // numel fits in int64, numel * itemsize does not.
  expect_error<ValueError>(npy(dict("'<f8'", "False", "(2305843009213693952,)"), k24Bytes),
                           too_big);
  expect_error<ValueError>(npy(dict(d, "False", "(9223372036854775807,)"), k24Bytes), too_big);
  // Empty arrays too: their strides (products of max(size, 1)) must fit in int64.
  expect_error<ValueError>(npy(dict(d, "False", "(4294967296, 4294967296, 0)"), ""), too_big);
  expect_error<ValueError>(npy(dict(d, "False", "(0, 4294967296, 4294967296)"), ""), too_big);
  expect_error<ValueError>(npy(dict(d, "True", "(4294967296, 0, 1073741824)"), ""), too_big);
  const Tensor e = numpy::load_bytes(npy(dict(d, "False", "(0, 1073741824, 1073741824)"), ""));
  CHECK(e.numel() == 0);
  CHECK(vec(e.strides()) == std::vector<int64_t>{int64_t{1} << 60, int64_t{1} << 30, 1});
}

TEST_CASE("numpy: hostile data: short, trailing, odd bools", "[serialize]") {
  const std::string good = ref_file("c_i4");
  expect_error<ValueError>(good.substr(0, good.size() - 1),
                           "EOF: reading array data, expected 24 bytes got 23");
  expect_error<ValueError>(good.substr(0, 128), "EOF: reading array data, expected 24 bytes got 0");
  // A huge shape with little data is refused before anything is allocated.
  expect_error<ValueError>(npy(dict("'<f8'", "False", "(1000000000000,)"), k24Bytes),
                           "EOF: reading array data, expected 8000000000000 bytes got 24");
  expect_error<ValueError>(npy(dict("'<f8'", "True", "(100000, 100000)"), k24Bytes),
                           "EOF: reading array data, expected 80000000000 bytes got 24");
  // Bytes past the data are ignored, as np.load ignores them.
  check_values(numpy::load_bytes(good + "trailing"));
  // A bool byte that is not 0 or 1 reads as true, and the tensor holds a valid bool.
  std::string bools = ref_file("c_b1");
  bools[128 + 4] = '\x02';
  bools[128 + 5] = '\xff';
  const Tensor b = numpy::load_bytes(bools);
  const auto* p = static_cast<const uint8_t*>(b.data_ptr());
  CHECK(std::vector<uint8_t>(p, p + 6) == std::vector<uint8_t>{0, 1, 0, 0, 1, 1});
}

}  // namespace serialize_numpy_test
