// Shared by the readers' libFuzzer targets: what a reader may do with arbitrary bytes is return
// tensors or throw a tensorplay::Error; anything else (another exception, a crash, a read
// outside the input, a leak) is a finding. Every tensor a reader returns is read in full, so a
// geometry that runs past its storage shows up under ASan.
#pragma once

#include <tensorplay/tensorplay.hpp>

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace tensorplay::fuzz {

// Reads every element of `t` (a strided walk through contiguous()) and folds the bytes, so the
// compiler cannot drop the reads.
inline unsigned touch(const Tensor& t) {
  const Tensor c = t.contiguous();
  const auto* p = static_cast<const unsigned char*>(c.data_ptr());
  unsigned h = 0;
  for (std::size_t i = 0; i < c.nbytes(); ++i) h = h * 31u + p[i];
  return h;
}

// Every tensor in a loaded object (serialize/ivalue.hpp), read in full; Holder is IValue (a
// template so that the readers without IValue need not include it).
template <class Holder>
unsigned touch_all(const Holder& v, int depth = 0) {
  if (depth > 2000) return 0;
  if (v.isTensor()) return touch(v.toTensor());
  unsigned h = 0;
  if (v.isList()) {
    for (const auto& x : v.toList()) h += touch_all(x, depth + 1);
  } else if (v.isTuple()) {
    for (const auto& x : v.toTuple()) h += touch_all(x, depth + 1);
  } else if (v.isGenericDict()) {
    for (const auto& [k, x] : v.toGenericDict()) {
      h += touch_all(k, depth + 1) + touch_all(x, depth + 1);
    }
  }
  return h;
}

// Runs `read` on the input; a tensorplay::Error is a valid answer to a hostile file.
template <class F>
int run(F&& read) {
  try {
    read();
  } catch (const tensorplay::Error&) {
  }
  return 0;
}

}  // namespace tensorplay::fuzz
