// libFuzzer target: the safetensors reader (serialize/safetensors.hpp) on arbitrary bytes.
#include "fuzz_util.hpp"

#include <tensorplay/serialize/safetensors.hpp>

#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tensorplay::fuzz::run([&] {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    static volatile unsigned sink = 0;
    for (const auto& [name, tensor] : tensorplay::safetensors::load(bytes)) {
      sink = sink + static_cast<unsigned>(name.size()) + tensorplay::fuzz::touch(tensor);
    }
  });
}
