// libFuzzer target: the restricted unpickler (serialize/pickle.hpp) on arbitrary bytes, with a
// persistent-id loader that hands out small storages as torch_zip.hpp's does, so the tensor
// rebuilds (_rebuild_tensor_v2, _rebuild_parameter) and their geometry checks are reached.
#include "fuzz_util.hpp"

#include <tensorplay/serialize/pickle.hpp>

#include <string_view>

namespace {

using tensorplay::IValue;

IValue load_storage(const IValue& pid) {
  const bool ok = pid.isTuple() && pid.toTuple().size() == 5 && pid.toTuple()[1].isString() &&
                  pid.toTuple()[4].isInt();
  if (!ok) throw tensorplay::ValueError("bad persistent id");
  const std::string& cls = pid.toTuple()[1].toStringRef();
  const auto dtype = cls.rfind("torch.", 0) == 0
                         ? tensorplay::serialize::detail::dtype_from_storage_class(cls.substr(6))
                         : std::nullopt;
  const int64_t numel = pid.toTuple()[4].toInt();
  if (!dtype || numel < 0 || numel > (1 << 16)) throw tensorplay::ValueError("bad storage");
  return tensorplay::zeros({numel}, *dtype);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  return tensorplay::fuzz::run([&] {
    const std::string_view bytes(reinterpret_cast<const char*>(data), size);
    static volatile unsigned sink = 0;
    sink = sink + tensorplay::fuzz::touch_all(tensorplay::serialize::unpickle(bytes, load_storage));
  });
}
