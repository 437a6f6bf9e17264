// PyTorch's torch.save format (serialize/torch_zip.hpp): files torch 1.13 wrote (a state dict,
// views sharing a storage, every dtype, 0-d / non-contiguous / empty tensors, nested containers,
// a Parameter and tensors that require grad, pickle protocol 4) load with their values, shapes,
// strides, offsets and sharing; C++ -> bytes/file -> C++ round trips keep all of that; the pickle
// written is torch's byte for byte; and hostile archives (geometry past the storage, a short
// storage record, unknown storage types, missing records, bad version/byteorder, mixed dtypes on
// one storage) are typed errors. With
// TENSORPLAY_SERIALIZE_OUT set, the last case writes files that check_torchzip.py loads with
// torch.load(weights_only=True) and compares against the reference files.
#include <tensorplay/serialize/torch_zip.hpp>

#include <tensorplay/core/empty.hpp>
#include <tensorplay/tensorplay.hpp>

#include <catch2/catch.hpp>

#include "serialize_test_util.hpp"

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

namespace serialize_torch_zip_test {

using namespace tensorplay;
using namespace std::string_literals;

namespace {

std::string fixture(const std::string& name) {
  return (serialize_test::data_dir("torchzip") / name).string();
}

// Element `index` (row-major over the tensor's own sizes) as a double, read through its strides.
double at(const Tensor& t, int64_t index) {
  int64_t offset = t.storage_offset();
  for (int64_t d = t.dim() - 1; d >= 0; --d) {
    offset += (index % t.size(d)) * t.stride(d);
    index /= t.size(d);
  }
  const auto* base = static_cast<const char*>(t.storage().data());
  const auto* p = base + offset * t.element_size();
  switch (t.dtype()) {
    case kBool: return *reinterpret_cast<const bool*>(p) ? 1 : 0;
    case kByte: return *reinterpret_cast<const uint8_t*>(p);
    case kChar: return *reinterpret_cast<const int8_t*>(p);
    case kShort: return *reinterpret_cast<const int16_t*>(p);
    case kInt: return *reinterpret_cast<const int32_t*>(p);
    case kLong: return static_cast<double>(*reinterpret_cast<const int64_t*>(p));
    case kHalf: return static_cast<float>(*reinterpret_cast<const Half*>(p));
    case kBFloat16: return static_cast<float>(*reinterpret_cast<const BFloat16*>(p));
    case kFloat: return *reinterpret_cast<const float*>(p);
    case kDouble: return *reinterpret_cast<const double*>(p);
    default: break;  // the quantized dtypes
  }
  return 0;
}

std::vector<double> values(const Tensor& t) {
  std::vector<double> out;
  for (int64_t i = 0; i < t.numel(); ++i) out.push_back(at(t, i));
  return out;
}

const Tensor& tensor(const IValue& dict, const char* key) {
  return dict.toGenericDict().at(key).toTensor();
}

Tensor arange_float(int64_t n) {
  Tensor t = tensorplay::empty({n});
  for (int64_t i = 0; i < n; ++i) static_cast<float*>(t.data_ptr())[i] = static_cast<float>(i);
  return t;
}

// A view over `base`'s storage (what torch's x.t(), x[1:, 2:] are).
Tensor view(const Tensor& base, std::vector<int64_t> sizes, std::vector<int64_t> strides,
            int64_t offset) {
  return tensorplay::detail::make_tensor(base.storage(), base.dtype(), sizes, strides, offset);
}

void check_views(const IValue& v) {
  const Tensor& x = tensor(v, "x");
  const Tensor& t = tensor(v, "t");
  const Tensor& s = tensor(v, "s");
  CHECK(x.sizes() == IntArrayRef({3, 4}));
  CHECK(x.strides() == IntArrayRef({4, 1}));
  CHECK(t.sizes() == IntArrayRef({4, 3}));
  CHECK(t.strides() == IntArrayRef({1, 4}));
  CHECK(s.sizes() == IntArrayRef({2, 2}));
  CHECK(s.strides() == IntArrayRef({4, 1}));
  CHECK(s.storage_offset() == 6);
  CHECK(x.is_alias_of(t));
  CHECK(x.is_alias_of(s));
  CHECK(x.storage().nbytes() == 48);
  CHECK(values(s) == std::vector<double>{6, 7, 10, 11});
  CHECK(values(t) == std::vector<double>{0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11});
}

void check_dtypes(const IValue& v) {
  const GenericDict& d = v.toGenericDict();
  CHECK(d.ordered);
  CHECK(values(tensor(v, "bool")) == std::vector<double>{1, 0, 1, 1, 0, 0});
  CHECK(tensor(v, "bool").dtype() == kBool);
  const std::vector<std::pair<const char*, DType>> ints = {
      {"int8", kChar}, {"int16", kShort}, {"int32", kInt}, {"int64", kLong}};
  for (auto [name, dt] : ints) {
    INFO(name);
    CHECK(tensor(v, name).dtype() == dt);
    CHECK(values(tensor(v, name)) == std::vector<double>{-2, -1, 0, 1, 2, 3});
  }
  CHECK(tensor(v, "uint8").dtype() == kByte);
  CHECK(values(tensor(v, "uint8")) == std::vector<double>{0, 1, 2, 3, 4, 5});
  const std::vector<std::pair<const char*, DType>> floats = {
      {"float16", kHalf}, {"bfloat16", kBFloat16}, {"float32", kFloat}, {"float64", kDouble}};
  for (auto [name, dt] : floats) {
    INFO(name);
    CHECK(tensor(v, name).dtype() == dt);
    CHECK(values(tensor(v, name)) == std::vector<double>{-2, -0.5, 1, 2.5, 4, 5.5});
  }
  const Tensor& scalar = tensor(v, "scalar");
  CHECK(scalar.dim() == 0);
  CHECK(values(scalar) == std::vector<double>{3.25});
  const Tensor& nc = tensor(v, "noncontig");
  CHECK(nc.dtype() == kInt);
  CHECK(nc.sizes() == IntArrayRef({4, 2, 2}));
  CHECK(nc.strides() == IntArrayRef({1, 12, 8}));
  CHECK(nc.storage().nbytes() == 24 * 4);
  for (int64_t i = 0; i < 4; ++i) {
    for (int64_t j = 0; j < 2; ++j) {
      for (int64_t k = 0; k < 2; ++k) CHECK(at(nc, i * 4 + j * 2 + k) == j * 12 + 2 * k * 4 + i);
    }
  }
  CHECK(tensor(v, "empty").sizes() == IntArrayRef({0, 3}));
}

void check_nested(const IValue& v) {
  const GenericDict& d = v.toGenericDict();
  const auto& list = d.at("list").toList();
  CHECK(list[2].toStringRef() == "str");
  CHECK(list[4].isNone());
  CHECK(list[5].toTuple()[2].toList()[0].toInt() == 3);
  CHECK(d.at("dict").toGenericDict().at(1).toStringRef() == "int key");
  CHECK(d.at("min").toInt() == INT64_MIN);
  CHECK(d.at("ord").toGenericDict().ordered);
  const Tensor& p = tensor(v, "param");
  CHECK(p.requires_grad());
  CHECK(values(p) == std::vector<double>{1, 2});
  const Tensor& g = tensor(v, "grad");
  CHECK(g.requires_grad());
  CHECK(values(g) == std::vector<double>{3});
  const auto& tup = d.at("tup").toTuple();
  CHECK(tup[0].toTensor().unsafeGetTensorImpl() == g.unsafeGetTensorImpl());
  CHECK(tup[1].toTensor().unsafeGetTensorImpl() == g.unsafeGetTensorImpl());
}

void check_state_dict(const IValue& v) {
  const GenericDict& d = v.toGenericDict();
  CHECK(d.ordered);
  std::vector<std::string> keys;
  for (const auto& kv : d) keys.push_back(kv.first.toStringRef());
  CHECK(keys == std::vector<std::string>{"0.weight", "0.bias", "1.weight", "1.bias",
                                         "1.running_mean", "1.running_var",
                                         "1.num_batches_tracked"});
  CHECK(tensor(v, "0.weight").sizes() == IntArrayRef({2, 3}));
  CHECK(values(tensor(v, "0.weight")) == std::vector<double>{0, 0.25, 0.5, 0.75, 1, 1.25});
  CHECK(values(tensor(v, "0.bias")) == std::vector<double>{0.5, -0.5});
  CHECK(values(tensor(v, "1.running_mean")) == std::vector<double>{1, 2});
  CHECK(values(tensor(v, "1.running_var")) == std::vector<double>{1, 1});
  const Tensor& n = tensor(v, "1.num_batches_tracked");
  CHECK(n.dtype() == kLong);
  CHECK(n.dim() == 0);
  CHECK(values(n) == std::vector<double>{7});
  CHECK_FALSE(tensor(v, "0.weight").requires_grad());
}

// A torch zip archive assembled by hand: data.pkl from `value` with `numel` claimed for every
// storage, and each storage's record cut to `record_bytes` (all of it when negative).
std::vector<char> handmade(const IValue& value, int64_t numel, int64_t record_bytes,
                           const char* byteorder = nullptr, const char* version = "3\n") {
  std::vector<Tensor> storages;
  const std::string pkl = serialize::pickle(value, [&](const Tensor& t) {
    storages.push_back(t);
    return serialize::StorageRef{std::to_string(storages.size() - 1), "cpu", numel};
  });
  serialize::ZipWriter w;
  w.write_record("h/data.pkl", pkl);
  if (byteorder) w.write_record("h/byteorder", std::string_view(byteorder));
  for (std::size_t i = 0; i < storages.size(); ++i) {
    const auto n =
        record_bytes < 0 ? storages[i].storage().nbytes() : static_cast<std::size_t>(record_bytes);
    w.write_record("h/data/" + std::to_string(i), storages[i].storage().data(), n);
  }
  if (version) w.write_record("h/version", std::string_view(version));
  w.finalize();
  return std::vector<char>(w.str().begin(), w.str().end());
}

}  // namespace

TEST_CASE("torch zip: loads torch 1.13's files", "[serialize]") {
  SECTION("state dict") { check_state_dict(load(fixture("state_dict.pt"))); }
  SECTION("views sharing a storage") { check_views(load(fixture("views.pt"))); }
  SECTION("every dtype, 0-d, non-contiguous, empty") { check_dtypes(load(fixture("dtypes.pt"))); }
  SECTION("nested containers, Parameter, requires_grad") {
    check_nested(load(fixture("nested.pt")));
    check_nested(load(fixture("nested_p4.pt")));
  }
}

TEST_CASE("torch zip: C++ round trip through bytes and a file", "[serialize]") {
  for (const char* name : {"state_dict.pt", "views.pt", "dtypes.pt", "nested.pt"}) {
    INFO(name);
    const IValue v = load(fixture(name));
    const std::vector<char> bytes = pickle_save(v);
    const IValue back = pickle_load(bytes);
    const std::string n(name);
    if (n == "state_dict.pt") check_state_dict(back);
    if (n == "views.pt") check_views(back);
    if (n == "dtypes.pt") check_dtypes(back);
    if (n == "nested.pt") check_nested(back);
  }
  // Views built in C++; one record per storage.
  Tensor x = arange_float(12);
  IValue d = IValue::make_dict();
  d.insert("x", view(x, {3, 4}, {4, 1}, 0));
  d.insert("t", view(x, {4, 3}, {1, 4}, 0));
  d.insert("s", view(x, {2, 2}, {4, 1}, 6));
  const auto path = std::filesystem::temp_directory_path() / "tensorplay_torch_zip_test.pt";
  save(d, path.string());
  check_views(load(path.string()));
  const std::vector<char> bytes = pickle_save(d);
  serialize::ZipReader r(bytes.data(), bytes.size());
  CHECK(r.names() == std::vector<std::string>{"archive/data.pkl", "archive/byteorder",
                                              "archive/data/0", "archive/version"});
  CHECK(r.entry("archive/data/0").data_offset % 64 == 0);
  CHECK(r.read("archive/version") == "3\n");
  std::filesystem::remove(path);
  // The top folder of a file is its stem, as torch names it.
  save(IValue(1), (std::filesystem::temp_directory_path() / "my_model.pt").string());
  const std::vector<char> file = [&] {
    std::ifstream in(std::filesystem::temp_directory_path() / "my_model.pt", std::ios::binary);
    return std::vector<char>((std::istreambuf_iterator<char>(in)),
                             std::istreambuf_iterator<char>());
  }();
  CHECK(serialize::ZipReader(file.data(), file.size()).contains("my_model/data.pkl"));
  std::filesystem::remove(std::filesystem::temp_directory_path() / "my_model.pt");
  CHECK_THROWS_WITH(load("/nonexistent/x.pt"), Catch::Contains("No such file or directory"));
}

TEST_CASE("torch zip: data.pkl is byte-identical to torch.save's", "[serialize]") {
  // For objects without Parameters or a state dict's _metadata (which loading drops).
  for (const char* stem : {"views", "dtypes"}) {
    INFO(stem);
    std::ifstream in(fixture(std::string(stem) + ".pt"), std::ios::binary);
    const std::vector<char> torch_file((std::istreambuf_iterator<char>(in)),
                                       std::istreambuf_iterator<char>());
    serialize::ZipReader theirs(torch_file.data(), torch_file.size());
    const std::vector<char> ours_file = pickle_save(pickle_load(torch_file));
    serialize::ZipReader ours(ours_file.data(), ours_file.size());
    CHECK(ours.read("archive/data.pkl") == theirs.read(std::string(stem) + "/data.pkl"));
  }
}

TEST_CASE("torch zip: refuses two dtypes on one storage", "[serialize]") {
  Tensor x = arange_float(4);
  Tensor as_int = tensorplay::detail::make_tensor(x.storage(), kInt, {4}, {1}, 0);
  CHECK_THROWS_WITH(pickle_save(IValue(std::vector<IValue>{x, as_int})),
                    "Cannot save multiple tensors or storages that view the same data as "
                    "different types");
  Tensor undefined;
  CHECK_THROWS_WITH(pickle_save(IValue(undefined)), Catch::Contains("undefined tensor"));
}

#if TENSORPLAY_USE_ZLIB  // deflate is zlib's (zip_test checks the refusal without it)
TEST_CASE("torch zip: deflated storage records load", "[serialize]") {
  // torch writes stored records, but a zip tool may recompress the file.
  Tensor x = arange_float(12);
  const std::string pkl = serialize::pickle(view(x, {3, 4}, {4, 1}, 0), [&](const Tensor&) {
    return serialize::StorageRef{"0", "cpu", 12};
  });
  serialize::ZipWriter w;
  w.write_record("h/data.pkl", pkl, /*compress=*/true);
  w.write_record("h/data/0", x.storage().data(), 48, /*compress=*/true);
  w.write_record("h/version", std::string_view("3"), true);
  w.finalize();
  const Tensor back = pickle_load(w.str()).toTensor();
  CHECK(values(back) == values(x));
}
#endif

TEST_CASE("torch zip: byteorder big is swapped", "[serialize]") {
  Tensor x = tensorplay::empty({2}, kShort);
  static_cast<int16_t*>(x.data_ptr())[0] = 0x0102;
  static_cast<int16_t*>(x.data_ptr())[1] = -2;  // 0xFFFE
  const IValue little = pickle_load(handmade(IValue(x), 2, -1, "little"));
  CHECK(values(little.toTensor()) == std::vector<double>{0x0102, -2});
  const IValue big = pickle_load(handmade(IValue(x), 2, -1, "big"));
  CHECK(values(big.toTensor()) == std::vector<double>{0x0201, static_cast<int16_t>(0xFEFF)});
  CHECK_THROWS_WITH(pickle_load(handmade(IValue(x), 2, -1, "middle")),
                    Catch::Contains("Unknown endianness type: middle"));
}

TEST_CASE("torch zip: hostile archives are typed errors", "[serialize]") {
  Tensor x = arange_float(12);
  const IValue t = view(x, {3, 4}, {4, 1}, 0);
  CHECK(values(pickle_load(handmade(t, 12, -1)).toTensor()).size() == 12);
  SECTION("size/stride running past the storage") {
    CHECK_THROWS_AS(pickle_load(handmade(t, 11, -1)), ValueError);
    CHECK_THROWS_WITH(pickle_load(handmade(t, 11, -1)),
                      Catch::Contains("are out of bounds for storage of size 44"));
    CHECK_THROWS_WITH(pickle_load(handmade(view(x, {2, 2}, {4, 1}, 7), 12, -1)),
                      Catch::Contains("storage offset 7"));
    CHECK_THROWS_WITH(pickle_load(handmade(view(x, {2}, {INT64_MAX / 2}, 0), 12, -1)),
                      Catch::Contains("Storage size calculation overflowed"));
  }
  SECTION("storage record shorter than numel * itemsize") {
    CHECK_THROWS_AS(pickle_load(handmade(t, 12, 47)), ValueError);
    CHECK_THROWS_WITH(pickle_load(handmade(t, 12, 47)),
                      "storage record h/data/0 has 47 bytes, but its storage of 12 "
                      "torch.FloatStorage elements needs 48");
    CHECK_THROWS_WITH(pickle_load(handmade(t, int64_t{1} << 62, -1)),
                      Catch::Contains("Storage size calculation overflowed"));
    CHECK_THROWS_WITH(pickle_load(handmade(t, -1, -1)), Catch::Contains("negative element count"));
  }
  SECTION("missing records, version, top folder") {
    CHECK_THROWS_WITH(pickle_load(handmade(t, 12, -1, nullptr, nullptr)),
                      Catch::Contains("failed locating file h/.data/version"));
    CHECK_THROWS_WITH(pickle_load(handmade(t, 12, -1, nullptr, "11\n")),
                      "Attempted to read a PyTorch file with version 11, but the maximum "
                      "supported version for reading is 10");
    CHECK_THROWS_WITH(pickle_load(handmade(t, 12, -1, nullptr, "x")),
                      Catch::Contains("with version x"));
    serialize::ZipWriter w;
    w.write_record("h/version", std::string_view("3"));
    w.write_record("other/data.pkl", std::string_view("."));
    w.finalize();
    CHECK_THROWS_WITH(pickle_load(w.str()), Catch::Contains("not in a subdirectory h/"));
    serialize::ZipWriter w2;
    w2.write_record("h/version", std::string_view("3"));
    w2.finalize();
    CHECK_THROWS_WITH(pickle_load(w2.str()), Catch::Contains("failed locating file h/data.pkl"));
    serialize::ZipWriter w3;
    w3.write_record("flat", std::string_view("3"));
    w3.finalize();
    CHECK_THROWS_WITH(pickle_load(w3.str()), Catch::Contains("not in a subdirectory"));
    std::vector<char> missing = handmade(t, 12, -1);
    // Rename the storage record (both headers) so that the persistent id names nothing.
    const std::string name = "h/data/0";
    for (std::size_t i = 0; i + name.size() <= missing.size(); ++i) {
      if (std::string(missing.data() + i, name.size()) == name) missing[i + 7] = '9';
    }
    CHECK_THROWS_WITH(pickle_load(missing), Catch::Contains("failed locating file h/data/0"));
    CHECK_THROWS_AS(pickle_load(std::string_view("not a zip")), Error);
    serialize::ZipWriter empty;
    empty.finalize();
    CHECK_THROWS_WITH(pickle_load(empty.str()), Catch::Contains("the archive is empty"));
  }
  SECTION("unknown storage types and persistent ids") {
    // A pickle naming torch.ComplexFloatStorage: refused as a global before any record is read.
    std::string pkl = serialize::pickle(t, [](const Tensor&) {
      return serialize::StorageRef{"0", "cpu", 12};
    });
    const auto pos = pkl.find("FloatStorage");
    REQUIRE(pos != std::string::npos);
    std::string bad = pkl;
    bad.replace(pos, 12, "ComplexFloatStorage");
    serialize::ZipWriter w;
    w.write_record("h/data.pkl", bad);
    w.write_record("h/version", std::string_view("3"));
    w.finalize();
    CHECK_THROWS_WITH(pickle_load(w.str()),
                      Catch::Contains("Unsupported global: GLOBAL torch.ComplexFloatStorage"));
    // Persistent ids written by hand: a class that is a plain string, one key with two sizes.
    auto archive = [](const std::string& pkl) {
      serialize::ZipWriter z;
      z.write_record("h/data.pkl", pkl);
      z.write_record("h/data/0", std::string(16, '\0'));
      z.write_record("h/version", std::string_view("3"));
      z.finalize();
      return z.release();
    };
    auto pid = [](const char* cls, int numel) {
      return "(X\x07\x00\x00\x00storageX"s + char(std::strlen(cls)) + "\x00\x00\x00"s + cls +
             "X\x01\x00\x00\x00"
             "0X\x03\x00\x00\x00"
             "cpuK"s +
             char(numel) + "tQ";
    };
    CHECK(pickle_load(archive("\x80\x02" + pid("torch.FloatStorage", 4) + ".")).isTensor());
    CHECK_THROWS_WITH(pickle_load(archive("\x80\x02" + pid("numpy.FloatStorage", 4) + ".")),
                      Catch::Contains("unsupported storage type numpy.FloatStorage"));
    CHECK_THROWS_WITH(pickle_load(archive("\x80\x02" + pid("torch.FloatStorage", 4) +
                                          pid("torch.FloatStorage", 2) + "\x86.")),
                      Catch::Contains("storage 0 is referenced with two different types or sizes"));
    CHECK_THROWS_WITH(pickle_load(archive("\x80\x02" + pid("torch.FloatStorage", 4) +
                                          pid("torch.IntStorage", 4) + "\x86.")),
                      Catch::Contains("two different types"));
    // A persistent id that is not a storage tuple.
    serialize::ZipWriter w2;
    w2.write_record("h/data.pkl", std::string("\x80\x02K\x01Q.", 6));
    w2.write_record("h/version", std::string_view("3"));
    w2.finalize();
    CHECK_THROWS_WITH(pickle_load(w2.str()), Catch::Contains("unsupported persistent id"));
  }
}

// Files for check_torchzip.py: torch.load must read what tensorplay writes.
TEST_CASE("torch zip: files for the Python check", "[serialize]") {
  // Written to TENSORPLAY_SERIALIZE_OUT for check_torchzip.py (CTest serialize_interchange), else
  // to a scratch folder; each must load back here too.
  const char* out = std::getenv("TENSORPLAY_SERIALIZE_OUT");
  const std::filesystem::path dir =
      out ? std::filesystem::path(out) : std::filesystem::temp_directory_path() / "tp_torch_out";
  std::filesystem::create_directories(dir);
  for (const char* name : {"state_dict.pt", "views.pt", "dtypes.pt", "nested.pt"}) {
    save(load(fixture(name)), (dir / name).string());
  }
  check_views(load((dir / "views.pt").string()));
  check_dtypes(load((dir / "dtypes.pt").string()));
  if (!out) std::filesystem::remove_all(dir);
}

TEST_CASE("torch zip: load(path, mmap=true) maps the storages copy-on-write", "[serialize]") {
  const auto path = std::filesystem::temp_directory_path() / "tensorplay_torch_zip_mmap.pt";
  std::filesystem::copy_file(fixture("views.pt"), path,
                             std::filesystem::copy_options::overwrite_existing);
  const auto file_bytes = [&] {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  };
  const std::string before = file_bytes();
  const int64_t live = MappedFile::live_mappings();
  {
    const IValue v = load(path.string(), /*mmap=*/true);
    check_views(v);
    CHECK(MappedFile::live_mappings() == live + 1);  // the storage holds the mapping
    Tensor x = tensor(v, "x");
    x.add_(1);  // private pages: the tensor changes, the file does not
    CHECK(values(tensor(v, "s")) == std::vector<double>{7, 8, 11, 12});
    CHECK_THROWS_WITH(x.resize_({100}), Catch::Contains("not resizable"));
    // The default load copies: its storages are ordinary memory.
    const IValue copied = load(path.string());
    CHECK(values(tensor(copied, "s")) == std::vector<double>{6, 7, 10, 11});
  }
  CHECK(MappedFile::live_mappings() == live);
  CHECK(file_bytes() == before);
  std::filesystem::remove(path);
}

}  // namespace serialize_torch_zip_test
