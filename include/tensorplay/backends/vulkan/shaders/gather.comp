// gather: copies a strided view of 32-bit elements (float32, int32, uint32) into another
// strided view: dst[dst_offset + sum_d index_d(i) * dst_strides_d] =
// src[src_offset + sum_d index_d(i) * src_strides_d], where index_d(i) are the row-major
// coordinates of i in `sizes`. With contiguous destination strides this materialises a view;
// with a slice's strides it writes into part of a tensor (cat, the gradient of a view). Up to 8
// dimensions; sizes, strides and offsets are in elements and fit 32 bits (checked by the host).
// See include/tensorplay/backends/vulkan/gather.hpp.
#version 450

layout(local_size_x = 256) in;

layout(set = 0, binding = 0) readonly buffer Src { uint words[]; } src;
layout(set = 0, binding = 1) writeonly buffer Dst { uint words[]; } dst;

layout(push_constant) uniform Push {
  uint ndim;
  uint numel;
  uint src_offset;  // elements from the bound range's start
  uint dst_offset;
  uint sizes[8];
  uint src_strides[8];
  uint dst_strides[8];
} pc;

void main() {
  const uint i = gl_GlobalInvocationID.x +
                 gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= pc.numel) {
    return;
  }
  uint rest = i;
  uint s = pc.src_offset;
  uint d = pc.dst_offset;
  for (int k = int(pc.ndim) - 1; k >= 0; --k) {
    const uint size = pc.sizes[k];
    const uint at = rest % size;
    s += at * pc.src_strides[k];
    d += at * pc.dst_strides[k];
    rest /= size;
  }
  dst.words[d] = src.words[s];
}
