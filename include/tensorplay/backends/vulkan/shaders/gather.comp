// gather: materialises a strided view of 32-bit elements (float32, int32, uint32) as a
// contiguous row-major array: dst[dst_first + i] = src[src_offset + sum_d index_d(i) * stride_d],
// where index_d(i) are the row-major coordinates of i in `sizes`. Up to 8 dimensions; sizes,
// strides and offsets are in elements and fit 32 bits (checked by the host).
// See include/tensorplay/backends/vulkan/gather.hpp.
#version 450

layout(local_size_x = 256) in;

layout(set = 0, binding = 0) readonly buffer Src { uint words[]; } src;
layout(set = 0, binding = 1) writeonly buffer Dst { uint words[]; } dst;

layout(push_constant) uniform Push {
  uint ndim;
  uint numel;
  uint src_offset;  // the view's storage offset, in elements from the bound range's start
  uint dst_first;   // first output element, from the bound range's start
  uint sizes[8];
  uint strides[8];
} pc;

void main() {
  const uint i = gl_GlobalInvocationID.x +
                 gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= pc.numel) {
    return;
  }
  uint rest = i;
  uint s = pc.src_offset;
  for (int d = int(pc.ndim) - 1; d >= 0; --d) {
    const uint size = pc.sizes[d];
    s += (rest % size) * pc.strides[d];
    rest /= size;
  }
  dst.words[pc.dst_first + i] = src.words[s];
}
