// safetensors (serialize/safetensors.hpp): byte-identical output against the reference
// implementation's own test vectors (huggingface/safetensors, safetensors/src/tensor.rs) and
// against files laid out by data/make_safetensors.py from torch 1.13's tensors; round trips of
// every dtype, 0-d, empty and non-contiguous tensors, metadata; zero-copy loading and its
// lifetime; read-only and copy-on-write loads; safe_open; and every hostile-file refusal.
#include <tensorplay/serialize/safetensors.hpp>

#include <tensorplay/ops/binary.hpp>
#include <tensorplay/ops/compare.hpp>
#include <tensorplay/ops/copy.hpp>
#include <tensorplay/ops/factories.hpp>
#include <tensorplay/ops/indexing.hpp>
#include <tensorplay/ops/shape_ops.hpp>
#include <tensorplay/ops/views.hpp>

#include <catch2/catch.hpp>

#include "serialize_test_util.hpp"

#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <map>
#include <string>
#include <vector>

namespace serialize_safetensors_test {

using namespace tensorplay;
namespace st = tensorplay::safetensors;
using Catch::Matchers::Contains;

namespace {

using serialize_test::TempFile;

const std::filesystem::path kData = std::filesystem::path(__FILE__).parent_path() / "data";

using serialize_test::slurp;

std::string from_ints(std::initializer_list<int> bytes) {
  std::string s;
  for (int b : bytes) s += static_cast<char>(b);
  return s;
}

// A file with this exact header text (no padding) and data block.
std::string file_with(const std::string& header, const std::string& data = "") {
  std::string out(8, '\0');
  uint64_t n = header.size();
  for (int i = 0; i < 8; ++i) out[std::size_t(i)] = static_cast<char>((n >> (8 * i)) & 0xFF);
  return out + header + data;
}

std::string le_u64(uint64_t n) {
  std::string out(8, '\0');
  for (int i = 0; i < 8; ++i) out[std::size_t(i)] = static_cast<char>((n >> (8 * i)) & 0xFF);
  return out;
}

// The tensors make_safetensors.py writes to all_dtypes.safetensors.
std::map<std::string, Tensor> all_dtypes() {
  const Tensor base = arange(6).reshape({2, 3});
  const Tensor f = base.to(kFloat) / 3;
  return {{"bool", base.remainder(2).eq(1)},
          {"u8", (base * 40).to(kByte)},
          {"i8", (base * -20).to(kChar)},
          {"i16", (base * -1000).to(kShort)},
          {"i32", (base * -100000).to(kInt)},
          {"i64", base * -1000000000000LL},
          {"f16", f.to(kHalf)},
          {"bf16", f.to(kBFloat16)},
          {"f32", f},
          {"f64", base.to(kDouble) / 3}};
}

void check_same(const std::map<std::string, Tensor>& a, const std::map<std::string, Tensor>& b) {
  REQUIRE(a.size() == b.size());
  for (const auto& [name, t] : a) {
    INFO(name);
    REQUIRE(b.count(name) == 1);
    const Tensor& u = b.at(name);
    CHECK(u.dtype() == t.dtype());
    CHECK(u.sizes() == t.sizes());
    CHECK(u.equal(t));
  }
}

}  // namespace

TEST_CASE("safetensors: the reference implementation's byte vectors", "[serialize]") {
  // tensor.rs test_serialization: "attn.0", F32 [1, 2, 3], values 0..5.
  const std::string serialization =
      from_ints({64, 0,  0,   0,   0,   0,   0,   0,   123, 34,  97,  116, 116, 110, 46,  48,
                 34, 58, 123, 34,  100, 116, 121, 112, 101, 34,  58,  34,  70,  51,  50,  34,
                 44, 34, 115, 104, 97,  112, 101, 34,  58,  91,  49,  44,  50,  44,  51,  93,
                 44, 34, 100, 97,  116, 97,  95,  111, 102, 102, 115, 101, 116, 115, 34,  58,
                 91, 48, 44,  50,  52,  93,  125, 125, 0,   0,   0,   0,   0,   0,   128, 63,
                 0,  0,  0,   64,  0,   0,   64,  64,  0,   0,   128, 64,  0,   0,   160, 64});
  const Tensor attn = arange(6, TensorOptions().dtype(kFloat)).reshape({1, 2, 3});
  CHECK(st::save({{"attn.0", attn}}) == serialization);
  check_same(st::load(serialization), {{"attn.0", attn}});

  // test_serialization_forced_alignement: a shorter name, so the header is padded with spaces.
  const std::string aligned = from_ints(
      {72,  0,   0,   0,   0,   0,   0,   0,   123, 34, 97, 116, 116, 110, 48,  34,  58,  123,
       34,  100, 116, 121, 112, 101, 34,  58,  34,  70, 51, 50,  34,  44,  34,  115, 104, 97,
       112, 101, 34,  58,  91,  49,  44,  49,  44,  50, 44, 51,  93,  44,  34,  100, 97,  116,
       97,  95,  111, 102, 102, 115, 101, 116, 115, 34, 58, 91,  48,  44,  50,  52,  93,  125,
       125, 32,  32,  32,  32,  32,  32,  32,  0,   0,  0,  0,   0,   0,   128, 63,  0,   0,
       0,   64,  0,   0,   64,  64,  0,   0,   128, 64, 0,  0,   160, 64});
  CHECK(st::save({{"attn0", attn.reshape({1, 1, 2, 3})}}) == aligned);

  // test_empty: no tensors, without and with metadata.
  CHECK(st::save({}) == from_ints({8, 0, 0, 0, 0, 0, 0, 0, 123, 125, 32, 32, 32, 32, 32, 32}));
  const std::string with_metadata =
      from_ints({40,  0,   0,   0,  0,  0,  0,   0,   123, 34,  95,  95,  109, 101, 116, 97,
                 100, 97,  116, 97, 95, 95, 34,  58,  123, 34,  102, 114, 97,  109, 101, 119,
                 111, 114, 107, 34, 58, 34, 112, 116, 34,  125, 125, 32,  32,  32,  32,  32});
  CHECK(st::save({}, {{"framework", "pt"}}) == with_metadata);
  CHECK(st::load(with_metadata).empty());
  CHECK(st::load_metadata(with_metadata) ==
        std::map<std::string, std::string>{{"framework", "pt"}});
}

TEST_CASE("safetensors: files laid out from torch's tensors, read and rewritten byte for byte",
          "[serialize]") {
  const std::filesystem::path all = kData / "safetensors" / "all_dtypes.safetensors";
  const auto loaded = st::load_file(all.string());
  check_same(loaded, all_dtypes());
  CHECK(st::safe_open(all.string()).metadata() ==
        std::map<std::string, std::string>{{"format", "pt"}});
  // The writer's order (dtype order descending, then name) and JSON are the reference's.
  CHECK(st::save(all_dtypes(), {{"format", "pt"}}) == slurp(all));
  CHECK(st::save(loaded, {{"format", "pt"}}) == slurp(all));

  const std::filesystem::path shapes = kData / "safetensors" / "shapes.safetensors";
  const auto s = st::load_file(shapes.string());
  REQUIRE(s.size() == 5);
  CHECK(s.at("scalar").dim() == 0);
  CHECK(s.at("scalar").item<float>() == 2.5f);
  CHECK(s.at("empty").sizes() == IntArrayRef({0, 3}));
  CHECK(s.at("a.weight").dtype() == kLong);
  CHECK(s.at("a.weight").index({1, 0}).item<int64_t>() == 3);
  CHECK(s.at("caf\xC3\xA9").item<int64_t>() == 7);
  CHECK(st::save(s) == slurp(shapes));
  CHECK(st::safe_open(shapes.string()).metadata().empty());
}

TEST_CASE("safetensors: round trips of every dtype, views, 0-d, empty, metadata", "[serialize]") {
  auto tensors = all_dtypes();
  const Tensor big = arange(24, TensorOptions().dtype(kDouble)).reshape({2, 3, 4});
  tensors["transposed"] = big.transpose(0, 2);     // non-contiguous
  tensors["stepped"] = big.slice(2, 0, 4, 2);      // non-contiguous
  tensors["expanded"] = ones({3}).expand({2, 3});  // stride 0
  tensors["zero_d"] = tensor(7, TensorOptions().dtype(kInt));
  tensors["empty"] = empty({2, 0, 5}, TensorOptions().dtype(kHalf));
  tensors["alias"] = tensors["f32"];  // shares memory: written twice
  const std::map<std::string, std::string> metadata = {
      {"format", "pt"}, {"quote\"back\\slash\nnl", "caf\xC3\xA9 \xF0\x9F\x98\x80"}, {"", ""}};
  const std::string bytes = st::save(tensors, metadata);
  check_same(st::load(bytes), tensors);
  CHECK(st::load_metadata(bytes) == metadata);
  CHECK(st::load(bytes).at("transposed").is_contiguous());

  TempFile f("roundtrip");
  st::save_file(tensors, f.str(), metadata);
  CHECK(slurp(f.path) == bytes);
  check_same(st::load_file(f.str()), tensors);
  const auto opened = st::safe_open(f.str());
  CHECK(opened.metadata() == metadata);
  std::vector<std::string> keys;
  for (const auto& [k, v] : tensors) keys.push_back(k);
  CHECK(opened.keys() == keys);  // sorted
}

TEST_CASE("safetensors: zero-copy loads share the mapping and outlive the loader", "[serialize]") {
  TempFile f("zero_copy");
  st::save_file({{"w", arange(12, TensorOptions().dtype(kFloat)).reshape({3, 4})},
                 {"b", arange(4, TensorOptions().dtype(kLong))}},
                f.str());
  const int64_t before = MappedFile::live_mappings();
  Tensor row;
  {
    auto tensors = st::load_file(f.str());
    CHECK(MappedFile::live_mappings() == before + 1);
    const Tensor& w = tensors.at("w");
    CHECK(w.storage().read_only());
    CHECK_FALSE(w.storage().resizable());
    // Both tensors point into the same mapping, at their offsets.
    const auto* wp = static_cast<const char*>(w.const_data_ptr());
    const auto* bp = static_cast<const char*>(tensors.at("b").const_data_ptr());
    CHECK(bp + 32 == wp);  // I64 first (dtype order), then F32
    row = w.select(0, 2);
  }
  CHECK(MappedFile::live_mappings() == before + 1);  // the view keeps the mapping
  CHECK(row.index({3}).item<float>() == 11.0f);
  row = Tensor();
  CHECK(MappedFile::live_mappings() == before);

  // A safe_open handle dropped before its tensors.
  Tensor kept;
  {
    const auto h = st::safe_open(f.str());
    kept = h.get_tensor("b");
  }
  CHECK(kept.sum().item<int64_t>() == 6);
  kept = Tensor();
  CHECK(MappedFile::live_mappings() == before);
}

TEST_CASE("safetensors: read-only loads refuse writes; writable loads copy on write",
          "[serialize]") {
  TempFile f("writable");
  st::save_file({{"w", ones({2, 2})}}, f.str());
  const std::string original = slurp(f.path);
  const std::string msg =
      "cannot write to a read-only tensor: its storage is a read-only memory mapping (load it "
      "writable, or clone() it)";
  {
    const Tensor w = st::load_file(f.str()).at("w");
    CHECK_THROWS_WITH(w.add_(1), msg);
    CHECK_THROWS_WITH(w.select(0, 1).fill_(3), msg);
    CHECK_THROWS_WITH(w.index_put_({0, 0}, 5), msg);
    const Tensor c = w.clone();
    c.add_(1);
    CHECK(c.sum().item<float>() == 8.0f);
  }
  {
    const Tensor w = st::load_file(f.str(), kCPU, /*writable=*/true).at("w");
    CHECK_FALSE(w.storage().read_only());
    w.mul_(5);
    w.index_put_({0, 0}, 9);
    CHECK(w.sum().item<float>() == 24.0f);
  }
  CHECK(slurp(f.path) == original);
  CHECK(st::load_file(f.str()).at("w").sum().item<float>() == 4.0f);
}

TEST_CASE("safetensors: safe_open", "[serialize]") {
  TempFile f("safe_open");
  st::save_file({{"z", zeros({1})}, {"a", ones({2})}}, f.str());
  const st::SafeOpen h = st::safe_open(f.str());
  CHECK(h.keys() == std::vector<std::string>{"a", "z"});
  CHECK(h.contains("a"));
  CHECK_FALSE(h.contains("nope"));
  CHECK(h.metadata().empty());
  CHECK(h.get_tensor("a").sum().item<float>() == 2.0f);
  CHECK_THROWS_AS(h.get_tensor("nope"), st::KeyError);
  CHECK_THROWS_AS(h.get_tensor("nope"), IndexError);
  CHECK_THROWS_WITH(h.get_tensor("nope"), "File does not contain tensor nope");
  CHECK_THROWS_WITH(st::safe_open(f.str() + ".missing"),
                    Contains("unable to open file <") && Contains("No such file or directory (2)"));
  CHECK_THROWS_WITH(st::safe_open(f.str(), Device("cuda")).get_tensor("a"), Contains("CUDA"));
}

TEST_CASE("safetensors: a misaligned tensor is copied into an aligned storage", "[serialize]") {
  // Header of 61 bytes: the F32 data starts at byte 69 of the file, not a multiple of 4.
  const std::string header = R"({"x":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}       )";
  REQUIRE(header.size() % 4 != 0);
  const float values[2] = {1.5f, -2.0f};
  const std::string bytes =
      file_with(header, std::string(reinterpret_cast<const char*>(values), 8));
  TempFile f("misaligned");
  f.write(bytes);
  const int64_t before = MappedFile::live_mappings();
  const Tensor x = st::load_file(f.str()).at("x");
  CHECK(MappedFile::live_mappings() == before);  // nothing points into the mapping
  CHECK(reinterpret_cast<uintptr_t>(x.const_data_ptr()) % 4 == 0);
  CHECK_FALSE(x.storage().read_only());
  CHECK(x.index({0}).item<float>() == 1.5f);
  CHECK(x.index({1}).item<float>() == -2.0f);
  check_same(st::load(bytes), {{"x", x}});
}

TEST_CASE("safetensors: hostile files are refused with typed errors", "[serialize]") {
  const std::string f32x2(8, '\0');
  auto entry = [](const std::string& name, const std::string& body) {
    return "\"" + name + "\":{" + body + "}";
  };
  const std::string ok = entry("t", R"("dtype":"F32","shape":[2],"data_offsets":[0,8])");
  REQUIRE(st::load(file_with("{" + ok + "}", f32x2)).size() == 1);

  SECTION("sizes and lengths") {
    CHECK_THROWS_WITH(st::load(""), Contains("HeaderTooSmall") && Contains("0 bytes long"));
    CHECK_THROWS_WITH(st::load("1234567"), Contains("HeaderTooSmall"));
    CHECK_THROWS_WITH(st::load(le_u64(100000001) + "{}"), Contains("HeaderTooLarge"));
    CHECK_THROWS_WITH(st::load(le_u64(~uint64_t(0)) + "{}"), Contains("HeaderTooLarge"));
    CHECK_THROWS_WITH(st::load(le_u64(16) + "{}      "), Contains("InvalidHeaderLength"));
    CHECK_THROWS_WITH(st::load(le_u64(1)), Contains("InvalidHeaderLength"));
    CHECK_THROWS_AS(st::load(le_u64(0)), ValueError);  // an empty header is not JSON
    // Truncated data, trailing bytes.
    CHECK_THROWS_WITH(st::load(file_with("{" + ok + "}", f32x2.substr(0, 7))),
                      Contains("MetadataIncompleteBuffer"));
    CHECK_THROWS_WITH(st::load(file_with("{" + ok + "}", f32x2 + "x")),
                      Contains("MetadataIncompleteBuffer"));
    CHECK_THROWS_WITH(st::load(file_with("{}", "x")), Contains("MetadataIncompleteBuffer"));
    TempFile empty("empty_file");
    empty.write("");
    CHECK_THROWS_WITH(st::load_file(empty.str()), Contains("HeaderTooSmall"));
    TempFile truncated("truncated");
    truncated.write(file_with("{" + ok + "}", f32x2).substr(0, 20));
    CHECK_THROWS_WITH(st::load_file(truncated.str()),
                      Contains("InvalidHeaderLength") && Contains(truncated.str()));
  }
  SECTION("JSON and UTF-8") {
    CHECK_THROWS_WITH(st::load(file_with("{\"t\":}")), Contains("InvalidHeaderDeserialization"));
    CHECK_THROWS_WITH(st::load(file_with("{\"\xFF\":{}}")), Contains("InvalidHeader: the header "
                                                                     "is not valid UTF-8"));
    CHECK_THROWS_WITH(st::load(file_with("[]")), Contains("the header is not a JSON object"));
    CHECK_THROWS_WITH(st::load(file_with("{} x")), Contains("trailing characters"));
    CHECK_THROWS_WITH(st::load(file_with("{" + ok + "," + ok + "}", f32x2)),
                      Contains("duplicate key \"t\""));
    CHECK_THROWS_WITH(
        st::load(file_with(R"({"t":{"dtype":"F32","shape":[2.0],"data_offsets":[0,8]}})", f32x2)),
        Contains("only integers"));
  }
  SECTION("fields") {
    CHECK_THROWS_WITH(st::load(file_with(R"({"t":[]})")), Contains("is not an object"));
    CHECK_THROWS_WITH(
        st::load(file_with("{" + entry("t", R"("shape":[2],"data_offsets":[0,8])") + "}", f32x2)),
        Contains("missing field \"dtype\""));
    CHECK_THROWS_WITH(
        st::load(file_with("{" + entry("t", R"("dtype":"F32","data_offsets":[0,8])") + "}", f32x2)),
        Contains("missing field \"shape\""));
    CHECK_THROWS_WITH(
        st::load(file_with("{" + entry("t", R"("dtype":"F32","shape":[2])") + "}", f32x2)),
        Contains("missing field \"data_offsets\""));
    CHECK_THROWS_WITH(
        st::load(file_with(
            "{" + entry("t", R"("dtype":"F32","shape":[2],"data_offsets":[0,8],"x":1)") + "}",
            f32x2)),
        Contains("unknown field \"x\""));
    CHECK_THROWS_WITH(
        st::load(file_with("{" + entry("t", R"("dtype":3,"shape":[2],"data_offsets":[0,8])") + "}",
                           f32x2)),
        Contains("dtype of tensor \"t\" is not a string"));
    CHECK_THROWS_WITH(
        st::load(file_with(
            "{" + entry("t", R"("dtype":"F32","shape":2,"data_offsets":[0,8])") + "}", f32x2)),
        Contains("is not an array"));
    CHECK_THROWS_WITH(
        st::load(file_with(
            "{" + entry("t", R"("dtype":"F32","shape":[-2],"data_offsets":[0,8])") + "}", f32x2)),
        Contains("not a non-negative integer"));
    CHECK_THROWS_WITH(
        st::load(file_with(
            "{" + entry("t", R"("dtype":"F32","shape":["2"],"data_offsets":[0,8])") + "}", f32x2)),
        Contains("not a non-negative integer"));
    for (const char* offsets : {"[0]", "[0,8,8]", "[-1,8]", "[0,\"8\"]", "{}"}) {
      INFO(offsets);
      CHECK_THROWS_WITH(
          st::load(file_with(
              "{" +
                  entry("t",
                        std::string(R"("dtype":"F32","shape":[2],"data_offsets":)") + offsets) +
                  "}",
              f32x2)),
          Contains("are not two non-negative integers"));
    }
    CHECK_THROWS_WITH(st::load(file_with(R"({"__metadata__":{"k":1}})")),
                      Contains("__metadata__ value of \"k\" is not a string"));
    CHECK_THROWS_WITH(st::load(file_with(R"({"__metadata__":[]})")),
                      Contains("__metadata__ is not an object"));
  }
  SECTION("dtypes") {
    auto with_dtype = [&](const std::string& dt) {
      return file_with(
          "{" + entry("t", "\"dtype\":\"" + dt + R"(","shape":[2],"data_offsets":[0,8])") + "}",
          f32x2);
    };
    CHECK_THROWS_AS(st::load(with_dtype("F8_E4M3")), NotImplementedError);
    CHECK_THROWS_WITH(st::load(with_dtype("F8_E4M3")), Contains("has dtype F8_E4M3"));
    CHECK_THROWS_AS(st::load(with_dtype("C64")), NotImplementedError);
    CHECK_THROWS_AS(st::load(with_dtype("U32")), NotImplementedError);
    CHECK_THROWS_AS(st::load(with_dtype("f32")), ValueError);
    CHECK_THROWS_WITH(st::load(with_dtype("Q7")), Contains("unknown dtype \"Q7\""));
    TempFile f("dtype");
    f.write(with_dtype("F8_E5M2"));
    CHECK_THROWS_AS(st::load_file(f.str()), NotImplementedError);
    // BOOL bytes must be 0 or 1.
    const std::string bools = file_with(
        R"({"m":{"dtype":"BOOL","shape":[3],"data_offsets":[0,3]}})", from_ints({1, 0, 2}));
    CHECK_THROWS_WITH(st::load(bools), Contains("neither 0 nor 1"));
    TempFile fb("bools");
    fb.write(bools);
    CHECK_THROWS_WITH(st::load_file(fb.str()), Contains("neither 0 nor 1"));
  }
  SECTION("offsets and sizes") {
    const auto two = [&](const std::string& a, const std::string& b, const std::string& data) {
      return file_with("{" + entry("a", R"("dtype":"F32","shape":[2],"data_offsets":)" + a) + "," +
                           entry("b", R"("dtype":"F32","shape":[2],"data_offsets":)" + b) + "}",
                       data);
    };
    CHECK(st::load(two("[0,8]", "[8,16]", std::string(16, '\0'))).size() == 2);
    CHECK(st::load(two("[8,16]", "[0,8]", std::string(16, '\0'))).size() == 2);  // any order
    CHECK_THROWS_WITH(st::load(two("[0,8]", "[4,12]", std::string(12, '\0'))),
                      Contains("InvalidOffset") && Contains("overlaps"));
    CHECK_THROWS_WITH(st::load(two("[0,8]", "[12,20]", std::string(20, '\0'))),
                      Contains("InvalidOffset: tensor \"b\""));
    CHECK_THROWS_WITH(st::load(two("[0,8]", "[0,8]", std::string(8, '\0'))),
                      Contains("InvalidOffset"));
    CHECK_THROWS_WITH(
        st::load(file_with(
            "{" + entry("t", R"("dtype":"F32","shape":[2],"data_offsets":[8,0])") + "}", f32x2)),
        Contains("InvalidOffset"));
    CHECK_THROWS_WITH(
        st::load(file_with(
            "{" + entry("t", R"("dtype":"F32","shape":[2],"data_offsets":[0,12])") + "}", f32x2)),
        Contains("TensorInvalidInfo") && Contains("needs 8 bytes"));
    CHECK_THROWS_WITH(
        st::load(
            file_with("{" + entry("t", R"("dtype":"F32","shape":[2],"data_offsets":[0,4])") + "}",
                      f32x2.substr(0, 4))),
        Contains("TensorInvalidInfo"));
    // Offsets far past the data block (no read happens).
    CHECK_THROWS_WITH(
        st::load(file_with(
            "{" +
                entry("t", R"("dtype":"F32","shape":[2],"data_offsets":[0,18446744073709551615])") +
                "}",
            f32x2)),
        Contains("TensorInvalidInfo"));
    CHECK_THROWS_WITH(
        st::load(file_with(
            "{" +
                entry("t", R"("dtype":"U8","shape":[18446744073709551615],"data_offsets":[0,8])") +
                "}",
            f32x2)),
        Contains("ValidationOverflow"));
    // numel fits, numel * itemsize does not; and numel itself overflows.
    CHECK_THROWS_WITH(
        st::load(file_with(
            "{" +
                entry("t", R"("dtype":"F64","shape":[4611686018427387904],"data_offsets":[0,8])") +
                "}",
            f32x2)),
        Contains("ValidationOverflow: the shape of tensor \"t\" overflows numel * itemsize"));
    CHECK_THROWS_WITH(
        st::load(file_with(
            "{" +
                entry("t", R"("dtype":"U8","shape":[4294967296,4294967296],"data_offsets":[0,8])") +
                "}",
            f32x2)),
        Contains("ValidationOverflow"));
    // A zero dimension makes any other dimension harmless.
    CHECK(st::load(
              file_with(
                  "{" +
                  entry("t",
                        R"("dtype":"F64","shape":[0,4611686018427387904],"data_offsets":[0,0])") +
                  "}"))
              .at("t")
              .numel() == 0);
  }
  SECTION("the writer's own refusals") {
    CHECK_THROWS_AS(st::save({{"__metadata__", ones({1})}}), ValueError);
    CHECK_THROWS_WITH(st::save({{"u", Tensor()}}), "safetensors: tensor \"u\" is undefined");
    CHECK_THROWS_WITH(st::save_file({{"a", ones({1})}}, "/nonexistent-dir/x.safetensors"),
                      Contains("unable to open file </nonexistent-dir/x.safetensors> for writing"));
  }
}

}  // namespace serialize_safetensors_test
