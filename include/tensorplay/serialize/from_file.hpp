// from_file: a tensor on a memory-mapped file (torch.from_file / libtorch's torch::from_file).
//
//   auto t = tensorplay::from_file("weights.bin", /*shared=*/false, /*size=*/1024, kFloat);
//
// `size` elements of the options' dtype are mapped from the start of the file. shared=true maps
// MAP_SHARED read-write: writes go to the file, which is created if missing and grown to the
// size if shorter (as PyTorch does). shared=false (the default) maps MAP_PRIVATE copy-on-write:
// the tensor is writable and the file never changes; a file shorter than the size is refused with
// PyTorch's message. The tensor is 1-d, its storage not resizable, and the mapping lives as long
// as the last tensor, view or storage on it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <tensorplay/core/empty.hpp>
#include <tensorplay/core/error.hpp>
#include <tensorplay/core/safe_math.hpp>
#include <tensorplay/core/tensor_options.hpp>
#include <tensorplay/serialize/mapped_file.hpp>

namespace tensorplay {

template <class = void>
Tensor from_file(const std::string& filename, std::optional<bool> shared = std::nullopt,
                 std::optional<int64_t> size = 0, const TensorOptions& options = {}) {
  const int64_t n = size.value_or(0);
  TP_CHECK_VALUE(n >= 0, "from_file: size must be non-negative, but got size=", n);
  TP_CHECK(options.device().is_cpu(), "from_file: a file is mapped into CPU memory; got device ",
           options.device(), " (map it on the CPU, then call .to(device))");
  const DType dt = options.dtype();
  const int64_t sizes[1] = {n};
  const std::size_t nbytes = detail::contiguous_nbytes(IntArrayRef(sizes, 1), itemsize(dt));
  const MappedFile file = MappedFile::open(
      filename, shared.value_or(false) ? MapMode::SharedWritable : MapMode::CopyOnWrite, nbytes);
  const int64_t strides[1] = {1};
  return detail::finish_factory(detail::make_tensor(file.storage(0, nbytes), dt,
                                                    IntArrayRef(sizes, 1), IntArrayRef(strides, 1)),
                                options);
}

}  // namespace tensorplay
