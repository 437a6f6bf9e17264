// libFuzzer target: NumPy's .npy reader (serialize/numpy.hpp) on arbitrary bytes.
#include "fuzz_util.hpp"

#include <tensorplay/serialize/numpy.hpp>

#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tensorplay::fuzz::run([&] {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    static volatile unsigned sink = 0;
    sink = sink + tensorplay::fuzz::touch(tensorplay::numpy::load_bytes(bytes));
  });
}
