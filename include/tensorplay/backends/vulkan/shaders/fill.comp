// fill: writes a 32-bit pattern to `count` consecutive 32-bit words of a storage buffer,
// starting at word `first` of the bound range (float32, int32 and uint32 fills: the host passes
// the value's bits). See include/tensorplay/backends/vulkan/fill.hpp.
#version 450

layout(local_size_x = 256) in;

layout(set = 0, binding = 0) writeonly buffer Dst { uint words[]; } dst;

layout(push_constant) uniform Push {
  uint first;    // first word to write, from the start of the bound range
  uint count;    // words to write
  uint pattern;  // the 32 bits to write
} pc;

void main() {
  const uint i = gl_GlobalInvocationID.x +
                 gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i < pc.count) {
    dst.words[pc.first + i] = pc.pattern;
  }
}
