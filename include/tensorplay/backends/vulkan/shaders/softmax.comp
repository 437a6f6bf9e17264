// softmax: softmax or log_softmax of each row of a rows x cols row-major float32 matrix,
// numerically stable: with m the row's max and s = sum_j exp(x_j - m),
//   softmax_j = exp(x_j - m) / s,   log_softmax_j = (x_j - m) - log(s).
// Rows of up to 128 elements: one invocation each, in order. Longer rows: one workgroup per
// row (row = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x: the
// dispatch_1d fold with one group per row); each invocation walks the row with a stride of 256
// and a shared-memory tree combines the partial max and sum in a fixed order (deterministic).
// A NaN anywhere in the row (tested on the bits) makes the whole output row NaN, as in
// PyTorch; infinities follow IEEE arithmetic (a +inf, or a row of only -inf, gives NaN too).
// Element offsets fit 32 bits (checked by the host).
// See include/tensorplay/backends/vulkan/softmax.hpp.
#version 450

layout(local_size_x = 256) in;

layout(set = 0, binding = 0) readonly buffer Src { float v[]; } src;
layout(set = 0, binding = 1) writeonly buffer Dst { float v[]; } dst;

layout(push_constant) uniform Push {
  uint src_first;  // first element of row 0, from the bound range's start
  uint rows;
  uint cols;
  uint log_softmax;  // 1: log_softmax, 0: softmax
  uint dst_first;    // first output element, from the bound range's start
  uint serial;       // 1: one invocation per row, walking it in order (short rows)
} pc;

shared float s_val[256];

bool is_nan(float x) {
  return (floatBitsToUint(x) & 0x7FFFFFFFu) > 0x7F800000u;
}

// NaN-propagating max.
float nan_max(float a, float b) {
  return (is_nan(a) || a >= b) ? a : b;
}

// Short rows: one invocation per row, no shared memory and no barriers.
void serial_row() {
  const uint row = gl_GlobalInvocationID.x +
                   gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (row >= pc.rows) {
    return;
  }
  const uint in_base = pc.src_first + row * pc.cols;
  const uint out_base = pc.dst_first + row * pc.cols;
  float m = uintBitsToFloat(0xFF800000u);  // -inf
  for (uint j = 0u; j < pc.cols; ++j) {
    m = nan_max(m, src.v[in_base + j]);
  }
  if (is_nan(m)) {
    for (uint j = 0u; j < pc.cols; ++j) {
      dst.v[out_base + j] = uintBitsToFloat(0x7FC00000u);
    }
    return;
  }
  float sum = 0.0;
  for (uint j = 0u; j < pc.cols; ++j) {
    sum += exp(src.v[in_base + j] - m);
  }
  if (pc.log_softmax != 0u) {
    const float log_sum = log(sum);
    for (uint j = 0u; j < pc.cols; ++j) {
      dst.v[out_base + j] = (src.v[in_base + j] - m) - log_sum;
    }
  } else {
    for (uint j = 0u; j < pc.cols; ++j) {
      dst.v[out_base + j] = exp(src.v[in_base + j] - m) / sum;
    }
  }
}

void main() {
  if (pc.serial != 0u) {  // uniform: the whole dispatch takes one road
    serial_row();
    return;
  }
  const uint row = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  if (row >= pc.rows) {
    return;  // the whole workgroup leaves: no barrier is skipped by part of it
  }
  const uint tid = gl_LocalInvocationID.x;
  const uint in_base = pc.src_first + row * pc.cols;
  const uint out_base = pc.dst_first + row * pc.cols;

  float m = uintBitsToFloat(0xFF800000u);  // -inf
  for (uint j = tid; j < pc.cols; j += 256u) {
    m = nan_max(m, src.v[in_base + j]);
  }
  s_val[tid] = m;
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1) {
    if (tid < s) {
      s_val[tid] = nan_max(s_val[tid], s_val[tid + s]);
    }
    barrier();
  }
  m = s_val[0];
  if (is_nan(m)) {  // the same value in every invocation: a uniform branch
    for (uint j = tid; j < pc.cols; j += 256u) {
      dst.v[out_base + j] = uintBitsToFloat(0x7FC00000u);
    }
    return;
  }
  barrier();  // everyone has read s_val[0] before it is reused

  float acc = 0.0;
  for (uint j = tid; j < pc.cols; j += 256u) {
    acc += exp(src.v[in_base + j] - m);
  }
  s_val[tid] = acc;
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1) {
    if (tid < s) {
      s_val[tid] = s_val[tid] + s_val[tid + s];
    }
    barrier();
  }
  const float sum = s_val[0];
  if (pc.log_softmax != 0u) {
    const float log_sum = log(sum);
    for (uint j = tid; j < pc.cols; j += 256u) {
      dst.v[out_base + j] = (src.v[in_base + j] - m) - log_sum;
    }
  } else {
    for (uint j = tid; j < pc.cols; j += 256u) {
      dst.v[out_base + j] = exp(src.v[in_base + j] - m) / sum;
    }
  }
}
