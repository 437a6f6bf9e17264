// MemoryFormat: the layout tag of a dense tensor (libtorch's names).
#pragma once

#include <cstdint>
#include <ostream>

namespace tensorplay {

enum class MemoryFormat : int8_t {
  Contiguous,    // row-major
  Preserve,      // keep the input's layout when it is dense (clone, to, *_like)
  ChannelsLast,  // NHWC strides for a 4-d NCHW tensor
};

inline std::ostream& operator<<(std::ostream& os, MemoryFormat f) {
  switch (f) {
    case MemoryFormat::Contiguous: return os << "tensorplay.contiguous_format";
    case MemoryFormat::Preserve: return os << "tensorplay.preserve_format";
    case MemoryFormat::ChannelsLast: return os << "tensorplay.channels_last";
  }
  return os << "unknown memory format";
}

}  // namespace tensorplay
