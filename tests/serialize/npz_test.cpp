// NumPy's .npz (serialize/npz.hpp): archives written by np.savez / np.savez_compressed load with
// their keys, values and layouts; what savez writes loads back; members that are not arrays and
// broken archives are typed errors.
#include <catch2/catch.hpp>

#include "serialize_test_util.hpp"

#include <tensorplay/serialize/npz.hpp>
#include <tensorplay/tensorplay.hpp>

#include <filesystem>
#include <fstream>
#include <iterator>

namespace serialize_npz_test {

using namespace tensorplay;
using serialize_test::slurp;

std::filesystem::path data_dir() { return serialize_test::data_dir("npz"); }
std::vector<double> values(const Tensor& t) {
  const Tensor d = t.to(kDouble).contiguous();
  const auto* p = static_cast<const double*>(d.data_ptr());
  return {p, p + d.numel()};
}

// The arrays of make_npz.py.
void check_reference(const std::map<std::string, Tensor>& a) {
  REQUIRE(a.size() == 4);
  CHECK(a.at("w").dtype() == kFloat);
  CHECK(a.at("w").sizes().vec() == std::vector<int64_t>{2, 3});
  CHECK(values(a.at("w")) == std::vector<double>{0, 1, 2, 3, 4, 5});
  CHECK(a.at("idx").dtype() == kLong);
  CHECK(values(a.at("idx")) == std::vector<double>{3, -1, 7});
  CHECK(a.at("flag").dtype() == kBool);
  CHECK(a.at("flag").dim() == 0);
  CHECK(a.at("flag").item<bool>());
  CHECK(a.at("ft").dtype() == kShort);
  CHECK(a.at("ft").strides().vec() == std::vector<int64_t>{1, 2});  // Fortran order
  CHECK(values(a.at("ft")) == std::vector<double>{0, 1, 2, 3, 4, 5});
}

TEST_CASE("npz: np.savez's archive loads", "[serialize]") {
  check_reference(numpy::load_npz((data_dir() / "plain.npz").string()));
}

TEST_CASE("npz: np.savez_compressed's archive loads (zlib) or names the macro", "[serialize]") {
  const std::string path = (data_dir() / "compressed.npz").string();
  if (TENSORPLAY_USE_ZLIB) {
    check_reference(numpy::load_npz(path));
  } else {
    CHECK_THROWS_AS(numpy::load_npz(path), NotImplementedError);
  }
}

TEST_CASE("npz: savez round trip, stored and compressed", "[serialize]") {
  const Tensor w = arange(6, kFloat).reshape({2, 3});
  const std::map<std::string, Tensor> arrays{
      {"w", w}, {"wt", w.t()}, {"h", ones({3}, kHalf)}, {"e", empty({0, 4}, kInt)}};
  for (const bool compress : {false, true}) {
    if (compress && !TENSORPLAY_USE_ZLIB) {
      CHECK_THROWS_AS(numpy::savez_bytes(arrays, true), NotImplementedError);
      continue;
    }
    const auto back = numpy::load_npz_bytes(numpy::savez_bytes(arrays, compress));
    REQUIRE(back.size() == arrays.size());
    for (const auto& [k, v] : arrays) {
      CHECK(back.at(k).dtype() == v.dtype());
      CHECK(back.at(k).sizes().vec() == v.sizes().vec());
      CHECK(values(back.at(k)) == values(v));
    }
    CHECK(back.at("wt").strides().vec() == std::vector<int64_t>{1, 3});  // written F order
  }
  const auto path = std::filesystem::temp_directory_path() / "tensorplay_npz_test.npz";
  numpy::savez(path.string(), arrays);
  CHECK(numpy::load_npz(path.string()).size() == 4);
  std::filesystem::remove(path);
  CHECK_THROWS_WITH(numpy::savez("/nonexistent-dir/x.npz", arrays),
                    Catch::Contains("numpy.savez: cannot open"));
  CHECK_THROWS_WITH(numpy::load_npz("/nonexistent-dir/x.npz"), Catch::Contains("cannot open"));
}

TEST_CASE("npz: members that are not arrays, broken members and archives", "[serialize]") {
  serialize::ZipWriter zip;
  zip.write_record("notes.txt", std::string_view("not an array"));
  zip.finalize();
  CHECK_THROWS_AS(numpy::load_npz_bytes(zip.str()), ValueError);
  CHECK_THROWS_WITH(numpy::load_npz_bytes(zip.str()),
                    Catch::Contains("member 'notes.txt' of the .npz archive is not an .npy"));

  std::string npy = numpy::save_bytes(arange(4, kFloat));
  npy.resize(npy.size() - 1);  // one byte short of its data
  serialize::ZipWriter short_zip;
  short_zip.write_record("a.npy", npy);
  short_zip.finalize();
  CHECK_THROWS_WITH(numpy::load_npz_bytes(short_zip.str()), Catch::Contains("EOF"));

  serialize::ZipWriter twice;  // "a" and "a.npy" name the same key
  twice.write_record("a", numpy::save_bytes(ones({1})));
  twice.write_record("a.npy", numpy::save_bytes(ones({1})));
  twice.finalize();
  CHECK_THROWS_WITH(numpy::load_npz_bytes(twice.str()), Catch::Contains("holds 'a' twice"));

  const std::string good = slurp(data_dir() / "plain.npz");
  CHECK_THROWS_AS(numpy::load_npz_bytes(std::string_view(good).substr(0, good.size() / 2)), Error);
}

}  // namespace serialize_npz_test
