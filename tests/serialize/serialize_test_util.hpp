// Helpers shared by the serialize tests: the reference files' folder, whole-file reads, scratch
// files, and reading a loaded tensor's elements through its strides.
#pragma once

#include <catch2/catch.hpp>

#include <tensorplay/core/dtype.hpp>
#include <tensorplay/core/half.hpp>
#include <tensorplay/core/tensor.hpp>

#include <unistd.h>

#include <cstdint>
#include <cstring>
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

// The address of the element at C-order position `linear` (row-major over the tensor's own
// sizes), through its strides and storage offset.
inline const char* element_ptr(const tensorplay::Tensor& t, std::int64_t linear) {
  std::int64_t offset = 0;
  for (std::int64_t d = t.dim() - 1; d >= 0; --d) {
    offset += (linear % t.size(d)) * t.stride(d);
    linear /= t.size(d);
  }
  return static_cast<const char*>(t.data_ptr()) + offset * std::int64_t(t.element_size());
}

template <class T>
T load_unaligned(const char* p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}

// That element as a double (exact for every value the tests use); a bool must be a valid one,
// 0 or 1.
inline double element(const tensorplay::Tensor& t, std::int64_t linear) {
  using namespace tensorplay;
  const char* p = element_ptr(t, linear);
  switch (t.dtype()) {
    case kBool: {
      const auto b = load_unaligned<std::uint8_t>(p);
      REQUIRE(b <= 1);
      return b;
    }
    case kByte: return load_unaligned<std::uint8_t>(p);
    case kChar: return load_unaligned<std::int8_t>(p);
    case kShort: return load_unaligned<std::int16_t>(p);
    case kInt: return load_unaligned<std::int32_t>(p);
    case kLong: return static_cast<double>(load_unaligned<std::int64_t>(p));
    case kHalf: return static_cast<float>(load_unaligned<Half>(p));
    case kBFloat16: return static_cast<float>(load_unaligned<BFloat16>(p));
    case kFloat: return load_unaligned<float>(p);
    case kDouble: return load_unaligned<double>(p);
    default: break;  // the quantized dtypes
  }
  FAIL("unexpected dtype");
  return 0;
}

}  // namespace serialize_test
