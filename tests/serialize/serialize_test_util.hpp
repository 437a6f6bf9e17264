// Helpers shared by the serialize tests: the reference files' folder, whole-file reads and
// scratch files.
#pragma once

#include <catch2/catch.hpp>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <system_error>

namespace serialize_test {

// tests/serialize/data/<sub>, found from this header's path (works for the hand build and CMake).
inline std::filesystem::path data_dir(const char* sub) {
  return std::filesystem::path(__FILE__).parent_path() / "data" / sub;
}

// A whole file's bytes.
inline std::string slurp(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  REQUIRE(in.good());
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A file under the temp dir that does not exist yet, removed at scope exit.
struct TempFile {
  std::filesystem::path path;
  explicit TempFile(const std::string& stem)
      : path(std::filesystem::temp_directory_path() /
             ("tp_serialize_test_" + std::to_string(::getpid()) + "_" + stem)) {
    std::filesystem::remove(path);
  }
  TempFile(const TempFile&) = delete;
  TempFile& operator=(const TempFile&) = delete;
  ~TempFile() {
    std::error_code ec;
    std::filesystem::remove(path, ec);
  }
  std::string str() const { return path.string(); }
  void write(const std::string& bytes) const {
    std::ofstream(path, std::ios::binary).write(bytes.data(), std::streamsize(bytes.size()));
  }
  std::string read() const { return slurp(path); }
};

}  // namespace serialize_test
