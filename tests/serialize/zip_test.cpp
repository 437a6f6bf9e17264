// Zip archives (serialize/zip.hpp): archives written by Python's zipfile (stored, deflated,
// comment, zip64 local extras) read back; the writer's archives (stored 64-byte aligned,
// deflated, forced zip64) read back here and, through check_torchzip.py, by Python's zipfile and
// numpy; and every check on hostile input: truncation at every length, a flipped byte anywhere,
// bad CRC, central directory / local header / data past the end, bad counts, methods, flags.
#include <tensorplay/serialize/zip.hpp>

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

namespace serialize_zip_test {

using namespace tensorplay;
using tensorplay::serialize::ZipReader;
using tensorplay::serialize::ZipWriter;

namespace {

using serialize_test::slurp;
std::filesystem::path data_dir() { return serialize_test::data_dir("torchzip"); }

ZipReader reader(const std::string& s) { return ZipReader(s.data(), s.size()); }

std::string pattern(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>((i * 31 + 7) % 251);
  return s;
}

// Deflate is zlib's (TENSORPLAY_USE_ZLIB); a build without it (CI's aarch64 cross build) checks
// that deflated entries are refused with NotImplementedError and runs everything else stored.
constexpr bool kZlib = TENSORPLAY_USE_ZLIB != 0;

// A small archive of the writer's: one stored and one deflated entry (stored without zlib).
std::string small_archive(bool zip64 = false) {
  ZipWriter w;
  w.set_force_zip64(zip64);
  w.write_record("a/stored", pattern(100));
  w.write_record("a/deflated", std::string(300, 'x') + pattern(50), /*compress=*/kZlib);
  w.finalize();
  return w.str();
}

void put32(std::string& s, std::size_t at, uint32_t v) {
  for (int i = 0; i < 4; ++i) s[at + i] = static_cast<char>((v >> (8 * i)) & 0xFF);
}
void put16(std::string& s, std::size_t at, uint16_t v) {
  s[at] = static_cast<char>(v & 0xFF);
  s[at + 1] = static_cast<char>(v >> 8);
}
std::size_t find_sig(const std::string& s, const char* sig, bool last = true) {
  const auto pos = last ? s.rfind(std::string(sig, 4)) : s.find(std::string(sig, 4));
  REQUIRE(pos != std::string::npos);
  return pos;
}
constexpr const char* kEOCD = "PK\x05\x06";
constexpr const char* kCentral = "PK\x01\x02";
constexpr const char* kLocal = "PK\x03\x04";

// Reads every entry; any defect must surface as a tensorplay::Error.
void read_all(const std::string& s) {
  ZipReader r = reader(s);
  for (const auto& name : r.names()) r.read(name);
}

}  // namespace

TEST_CASE("zip: reads an archive written by Python's zipfile", "[serialize]") {
  const std::string bytes = slurp(data_dir() / "python.zip");
  ZipReader r = reader(bytes);
  CHECK(r.names() == std::vector<std::string>{"stored.txt", "dir/deflated.bin", "empty"});
  CHECK(r.contains("stored.txt"));
  CHECK_FALSE(r.contains("missing"));
  CHECK(r.read("stored.txt") == "hello stored\n");
  std::string expect;
  for (int k = 0; k < 8; ++k) {
    for (int i = 0; i < 256; ++i) expect.push_back(static_cast<char>(i));
  }
  CHECK(r.entry("dir/deflated.bin").method == 8);
  if (kZlib) {
    CHECK(r.read("dir/deflated.bin") == expect);
  } else {
    CHECK_THROWS_AS(r.read("dir/deflated.bin"), NotImplementedError);
    CHECK_THROWS_WITH(r.read("dir/deflated.bin"), Catch::Contains("TENSORPLAY_USE_ZLIB"));
  }
  CHECK(r.read("empty").empty());
  // stored_view points into the caller's buffer: zero copy.
  auto view = r.stored_view("stored.txt");
  CHECK(reinterpret_cast<const char*>(view.data()) >= bytes.data());
  CHECK(reinterpret_cast<const char*>(view.data()) + view.size() <= bytes.data() + bytes.size());
  CHECK(std::string(reinterpret_cast<const char*>(view.data()), view.size()) == "hello stored\n");
  CHECK_THROWS_WITH(r.stored_view("dir/deflated.bin"), Catch::Contains("is compressed"));
  CHECK_THROWS_WITH(r.read("missing"),
                    "PytorchStreamReader failed locating file missing: file not found");
}

TEST_CASE("zip: reads Python's zip64 local extra fields", "[serialize]") {
  const std::string bytes = slurp(data_dir() / "python_zip64.zip");
  ZipReader r = reader(bytes);
  CHECK(r.read("big.txt") == "zip64 entry");
}

TEST_CASE("zip: writer round trip, stored data 64-byte aligned", "[serialize]") {
  for (bool zip64 : {false, true}) {
    ZipWriter w;
    w.set_force_zip64(zip64);
    const std::string big = pattern(5000);
    w.write_record("arch/data.pkl", std::string_view("pickle"));
    w.write_record("arch/data/0", big);
    w.write_record("arch/x", std::string(), false);
    if (kZlib) {
      w.write_record("arch/deflated", big + big, /*compress=*/true);
      w.write_record("arch/deflated_empty", std::string(), true);
    } else {
      CHECK_THROWS_AS(w.write_record("arch/deflated", big, /*compress=*/true), NotImplementedError);
      w.write_record("arch/deflated", big + big);
      w.write_record("arch/deflated_empty", std::string());
    }
    CHECK_THROWS_WITH(w.write_record("arch/x", std::string_view("dup")),
                      Catch::Contains("duplicate record"));
    CHECK_THROWS_WITH(w.write_record(std::string(70000, 'n'), std::string_view("")),
                      Catch::Contains("entry name too long"));
    w.finalize();
    CHECK_THROWS_WITH(w.write_record("late", std::string_view("")),
                      Catch::Contains("write_record after finalize"));
    const std::string s = w.str();
    ZipReader r = reader(s);
    CHECK(r.names().size() == 5);
    for (const auto& e : r.entries()) {
      if (e.method == 0) CHECK(e.data_offset % 64 == 0);
    }
    CHECK(r.read("arch/data.pkl") == "pickle");
    CHECK(r.read("arch/data/0") == big);
    CHECK(r.read("arch/x").empty());
    CHECK(r.read("arch/deflated") == big + big);
    if (kZlib) CHECK(r.entry("arch/deflated").compressed_size < 2 * big.size());
    CHECK(r.read("arch/deflated_empty").empty());
    CHECK(r.stored_view("arch/data/0").size() == big.size());
    CHECK((s.find("PK\x06\x06") != std::string::npos) == zip64);
  }
}

TEST_CASE("zip: writer to a file", "[serialize]") {
  const auto path = std::filesystem::temp_directory_path() / "tensorplay_zip_test_file.zip";
  {
    ZipWriter w(path.string());
    w.write_record("f/a", std::string_view("file contents"));
  }  // the destructor finalizes
  const std::string s = slurp(path);
  CHECK(reader(s).read("f/a") == "file contents");
  std::filesystem::remove(path);
  CHECK_THROWS_AS(ZipWriter("/nonexistent-dir/x.zip"), Error);
}

TEST_CASE("zip: hostile archives are typed errors", "[serialize]") {
  const std::string good = small_archive();
  read_all(good);

  SECTION("truncated at every length") {
    for (std::size_t n = 0; n < good.size(); ++n) {
      CHECK_THROWS_AS(read_all(good.substr(0, n)), Error);
    }
    CHECK_THROWS_WITH(read_all(""), Catch::Contains("failed finding central directory"));
  }
  SECTION("a byte flipped anywhere reads or throws, never crashes") {
    std::size_t read = 0, refused = 0;
    for (bool zip64 : {false, true}) {
      const std::string base = small_archive(zip64);
      for (std::size_t i = 0; i < base.size(); ++i) {
        for (int bit : {0, 7}) {
          std::string s = base;
          s[i] = static_cast<char>(s[i] ^ (1 << bit));
          try {
            read_all(s);
            ++read;
          } catch (const Error&) {
            ++refused;
          }
        }
      }
    }
    CHECK(refused > 0);  // the CRC, the signatures and the bounds notice most flips
    CHECK(read > 0);     // a flip in a field the reader ignores (the date) reads fine
  }
  SECTION("bad CRC") {
    std::string s = good;
    const std::size_t data = reader(good).entry("a/stored").data_offset;
    s[data + 3] = static_cast<char>(s[data + 3] ^ 1);
    CHECK_THROWS_WITH(reader(s).read("a/stored"), Catch::Contains("CRC-32 mismatch in a/stored"));
    CHECK_THROWS_WITH(reader(s).stored_view("a/stored"), Catch::Contains("CRC-32 mismatch"));
    CHECK(reader(s).stored_view("a/stored", /*check_crc=*/false).size() == 100);
  }
  SECTION("central directory pointing past the end") {
    std::string s = good;
    put32(s, find_sig(s, kEOCD) + 16, 0x7FFFFFF0u);
    CHECK_THROWS_WITH(reader(s), Catch::Contains("central directory at offset") &&
                                     Catch::Contains("runs past the end"));
    s = good;
    put32(s, find_sig(s, kEOCD) + 12, 0x7FFFFFF0u);  // its size
    CHECK_THROWS_WITH(reader(s), Catch::Contains("runs past the end"));
  }
  SECTION("entry count larger than the directory") {
    std::string s = good;
    put16(s, find_sig(s, kEOCD) + 10, 0xFFFE);
    CHECK_THROWS_WITH(reader(s), Catch::Contains("central directory claims 65534 entries"));
  }
  SECTION("local header offset past the end") {
    std::string s = good;
    put32(s, find_sig(s, kCentral, false) + 42, 0x7FFFFFF0u);
    CHECK_THROWS_WITH(reader(s), Catch::Contains("local header of a/stored"));
  }
  SECTION("sizes running past the end / into the directory") {
    std::string s = good;
    const std::size_t c = find_sig(s, kCentral, false);
    put32(s, c + 20, 0x7FFFFFF0u);
    put32(s, c + 24, 0x7FFFFFF0u);
    CHECK_THROWS_WITH(reader(s), Catch::Contains("data of a/stored"));
    s = good;
    const std::size_t cd = find_sig(s, kCentral, false);
    put32(s, c + 20, static_cast<uint32_t>(cd));
    put32(s, c + 24, static_cast<uint32_t>(cd));
    CHECK_THROWS_WITH(reader(s), Catch::Contains("runs into the central directory"));
  }
  SECTION("stored sizes that disagree") {
    std::string s = good;
    put32(s, find_sig(s, kCentral, false) + 24, 99);
    CHECK_THROWS_WITH(reader(s), Catch::Contains("different compressed and uncompressed sizes"));
  }
  SECTION("bad signatures and disagreeing local headers") {
    std::string s = good;
    s[find_sig(s, kCentral, false) + 3] = 9;
    CHECK_THROWS_WITH(reader(s), Catch::Contains("bad central directory entry signature"));
    s = good;
    s[find_sig(s, kLocal, false) + 3] = 9;
    CHECK_THROWS_WITH(reader(s), Catch::Contains("bad local header signature"));
    s = good;
    s[find_sig(s, kLocal, false) + 30] = 'z';  // the name's first byte
    CHECK_THROWS_WITH(reader(s), Catch::Contains("local header name disagrees"));
    s = good;
    put16(s, find_sig(s, kLocal, false) + 8, 8);
    CHECK_THROWS_WITH(reader(s), Catch::Contains("disagrees on the method"));
  }
  SECTION("unsupported method, encryption, multi-disk") {
    std::string s = good;
    const std::size_t c = find_sig(s, kCentral, false);
    put16(s, c + 10, 12);  // bzip2
    CHECK_THROWS_WITH(reader(s), Catch::Contains("unsupported compression method 12"));
    s = good;
    put16(s, c + 8, 1);
    CHECK_THROWS_WITH(reader(s), Catch::Contains("is encrypted"));
    s = good;
    put16(s, find_sig(s, kEOCD) + 4, 1);
    CHECK_THROWS_WITH(reader(s), Catch::Contains("multi-disk"));
  }
  SECTION("name and extra fields past the directory's end") {
    std::string s = good;
    put16(s, find_sig(s, kCentral) + 28, 0xFFFF);  // last entry's name length
    CHECK_THROWS_WITH(reader(s), Catch::Contains("runs past its end"));
    s = good;
    put16(s, find_sig(s, kCentral) + 30, 0xFFFF);
    CHECK_THROWS_WITH(reader(s), Catch::Contains("runs past its end"));
  }
#if TENSORPLAY_USE_ZLIB
  SECTION("corrupt and bomb-sized deflate data") {
    std::string s = good;
    const serialize::ZipEntry e = reader(good).entry("a/deflated");
    for (uint64_t i = 0; i < e.compressed_size; ++i) s[e.data_offset + i] = '\xFF';
    CHECK_THROWS_WITH(reader(s).read("a/deflated"), Catch::Contains("corrupt deflate data"));
    s = good;
    put32(s, find_sig(s, kCentral) + 24, 0x7FFFFFF0u);  // uncompressed size of the last
    CHECK_THROWS_WITH(reader(s), Catch::Contains("impossible compression ratio"));
    s = good;
    put32(s, find_sig(s, kCentral) + 24, 351 + 10);  // longer than what inflates
    CHECK_THROWS_WITH(reader(s).read("a/deflated"), Catch::Contains("corrupt deflate data"));
    s = good;
    put32(s, find_sig(s, kCentral) + 24, 351 - 10);  // shorter than what inflates
    CHECK_THROWS_WITH(reader(s).read("a/deflated"), Catch::Contains("corrupt deflate data"));
  }
#endif
  SECTION("directory and end records that overlap") {
    std::string s = good;
    const std::size_t eocd = find_sig(s, kEOCD);
    const std::size_t cd = find_sig(s, kCentral, false);
    put32(s, eocd + 12, static_cast<uint32_t>(eocd - cd + 1));  // the directory runs into it
    CHECK_THROWS_WITH(reader(s), Catch::Contains("central directory overlaps its end record"));
    s = good;
    put32(s, eocd + 12, 92);  // room for two fixed headers, not for the names
    CHECK_THROWS_WITH(reader(s), Catch::Contains("central directory entry runs past its end"));
    s = small_archive(true);
    const std::size_t loc = find_sig(s, "PK\x06\x07");
    const std::size_t z64 = find_sig(s, "PK\x06\x06");
    put32(s, loc + 8, static_cast<uint32_t>(z64 + 10));  // a zip64 record inside its locator
    s.replace(z64 + 10, 4, "PK\x06\x06");
    CHECK_THROWS_WITH(reader(s), Catch::Contains("zip64 end record overlaps its locator"));
  }
  SECTION("local header name and extra past the end") {
    std::string s = good;
    put16(s, find_sig(s, kLocal) + 28, 0xFFFF);  // the last local header's extra length
    CHECK_THROWS_WITH(reader(s), Catch::Contains("local header of a/deflated"));
  }
  SECTION("duplicate names") {
    // Two entries renamed to the same name in both their central and local headers.
    ZipWriter w;
    w.write_record("a", std::string_view("1"));
    w.write_record("b", std::string_view("2"));
    w.finalize();
    std::string d = w.str();
    d[find_sig(d, kCentral) + 46] = 'a';
    d[find_sig(d, kLocal) + 30] = 'a';
    CHECK_THROWS_WITH(reader(d), Catch::Contains("duplicate entry a"));
  }
  SECTION("zip64 records past the end") {
    std::string s = small_archive(/*zip64=*/true);
    const std::size_t loc = find_sig(s, "PK\x06\x07");
    put32(s, loc + 8, 0x7FFFFFF0u);
    CHECK_THROWS_WITH(reader(s), Catch::Contains("zip64 end of central directory record"));
    s = small_archive(true);
    s[find_sig(s, "PK\x06\x06") + 3] = 9;
    CHECK_THROWS_WITH(reader(s), Catch::Contains("bad zip64 end of central directory signature"));
    s = small_archive(true);
    const std::size_t c = find_sig(s, kCentral, false);
    put16(s, c + 46 + 8 + 2, 4);  // the zip64 field holds 4 bytes but needs 24
    CHECK_THROWS_WITH(reader(s), Catch::Contains("zip64 extra field of a/stored too short"));
    s = small_archive(true);
    put16(s, c + 46 + 8 + 2, 200);  // and past the extra area
    CHECK_THROWS_WITH(reader(s), Catch::Contains("extra field of a/stored runs past its end"));
  }
}

// Files for check_torchzip.py: Python's zipfile and numpy must read what the writer writes.
TEST_CASE("zip: files for the Python check", "[serialize]") {
  // Written to TENSORPLAY_SERIALIZE_OUT for check_torchzip.py (CTest serialize_interchange), else
  // to a scratch folder; each must read back here too.
  const char* out = std::getenv("TENSORPLAY_SERIALIZE_OUT");
  const std::filesystem::path dir =
      out ? std::filesystem::path(out) : std::filesystem::temp_directory_path() / "tp_zip_out";
  std::filesystem::create_directories(dir);
  for (bool zip64 : {false, true}) {
    ZipWriter w((dir / (zip64 ? "writer_zip64.zip" : "writer.zip")).string());
    w.set_force_zip64(zip64);
    w.write_record("stored.bin", pattern(1000));
    w.write_record("deflated.bin", pattern(1000), kZlib);
    w.write_record("empty", std::string());
  }
  // An .npz: arrays as .npy records (version 1.0 header, padded to 64 bytes).
  auto npy = [](const std::string& descr, const std::string& shape, const std::string& body) {
    std::string header =
        "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
    while ((10 + header.size() + 1) % 64 != 0) header += ' ';
    header += '\n';
    std::string s = "\x93NUMPY\x01";
    s.push_back('\0');
    s.push_back(static_cast<char>(header.size() & 0xFF));
    s.push_back(static_cast<char>(header.size() >> 8));
    return s + header + body;
  };
  std::string f64(6 * 8, '\0');
  for (int i = 0; i < 6; ++i) {
    const double v = i * 0.5;
    std::memcpy(&f64[static_cast<std::size_t>(i) * 8], &v, 8);
  }
  {
    ZipWriter w((dir / "writer.npz").string());
    w.write_record("a.npy", npy("<f8", "(2, 3)", f64));
    w.write_record("b.npy", npy("|u1", "(4,)", "\x01\x02\x03\x04"), kZlib);
  }
  for (const char* name : {"writer.zip", "writer_zip64.zip"}) {
    const std::string bytes = slurp(dir / name);
    CHECK(reader(bytes).read("stored.bin") == pattern(1000));
    CHECK(reader(bytes).read("deflated.bin") == pattern(1000));
  }
  CHECK(reader(slurp(dir / "writer.npz")).names() == std::vector<std::string>{"a.npy", "b.npy"});
  if (!out) std::filesystem::remove_all(dir);
}

}  // namespace serialize_zip_test
