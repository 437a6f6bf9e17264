#include <tensorplay/core/tensor_options.hpp>

#include <catch2/catch.hpp>

#include <sstream>

namespace core_tensor_options_test {

using namespace tensorplay;

TEST_CASE("TensorOptions defaults, builders and implicit conversions", "[core][options]") {
  TensorOptions o;
  CHECK(o.dtype() == kFloat);
  CHECK(o.device() == Device(kCPU));
  CHECK(o.memory_format() == MemoryFormat::Contiguous);
  CHECK_FALSE(o.has_dtype());
  CHECK_FALSE(o.has_device());

  auto d = TensorOptions().dtype(kDouble).device("cuda:1");
  CHECK(d.dtype() == kDouble);
  CHECK(d.device() == Device(kCUDA, 1));
  CHECK(d.has_dtype());
  CHECK(dtype(kInt).dtype() == kInt32);
  CHECK(dtype<int64_t>().dtype() == kLong);
  CHECK(device(kCPU).device().is_cpu());
  CHECK(TensorOptions().dtype<double>().dtype() == kDouble);

  TensorOptions from_dtype = kHalf;
  TensorOptions from_device = Device("vulkan");
  TensorOptions from_type = kCUDA;
  TensorOptions from_string = "cuda:0";
  TensorOptions from_pair(kCUDA, 2);
  CHECK(from_dtype.dtype() == kHalf);
  CHECK(from_device.device().is_vulkan());
  CHECK(from_type.device().is_cuda());
  CHECK(from_string.device().index() == 0);
  CHECK(from_pair.device().index() == 2);
  CHECK_THROWS_WITH(TensorOptions("gpu"), Catch::StartsWith("Expected one of cpu, cuda"));

  auto merged = dtype(kDouble).merge_in(device(kCUDA));
  CHECK(merged.dtype() == kDouble);
  CHECK(merged.device().is_cuda());

  std::ostringstream os;
  os << dtype(kDouble);
  CHECK(os.str() ==
        "TensorOptions(dtype=tensorplay.float64, device=cpu, "
        "memory_format=tensorplay.contiguous_format, "
        "requires_grad=false, pinned_memory=false)");
  CHECK_FALSE(TensorOptions().pinned_memory());
  CHECK_FALSE(TensorOptions().has_pinned_memory());
  CHECK(TensorOptions().pinned_memory(true).pinned_memory());
  CHECK(dtype(kDouble).merge_in(TensorOptions().pinned_memory(true)).pinned_memory());
  CHECK(TensorOptions().pinned_memory(true).merge_in(dtype(kInt)).pinned_memory());
  CHECK_FALSE(TensorOptions().requires_grad());
  CHECK_FALSE(TensorOptions().has_requires_grad());
  CHECK(requires_grad().requires_grad());
  CHECK(dtype(kDouble).requires_grad(true).requires_grad());
  CHECK(dtype(kDouble).merge_in(requires_grad()).requires_grad());
}

}  // namespace core_tensor_options_test
