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
