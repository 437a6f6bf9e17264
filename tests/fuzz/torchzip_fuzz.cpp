// libFuzzer target: torch.save's zip format (serialize/torch_zip.hpp: the zip reader, the
// restricted unpickler and the tensor rebuild) on arbitrary bytes.
#include "fuzz_util.hpp"

#include <tensorplay/serialize/torch_zip.hpp>

#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tensorplay::fuzz::run([&] {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    static volatile unsigned sink = 0;
    sink = sink + tensorplay::fuzz::touch_all(tensorplay::pickle_load(bytes));
  });
}
