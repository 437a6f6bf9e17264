// The body of the softmax shaders (softmax.comp: float32; softmax_f64.comp: float64, where the
// device reports shaderFloat64, with math_f64.glsl's exp and log; T is the element type):
// softmax or log_softmax of each row of a rows x cols row-major matrix,
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

#if defined(TP_F64)
#include "math_f64.glsl"
#define T double
#define EXP(x) exp_f64(x)
#define LOG(x) log_f64(x, 1.0LF, 0.0LF)
#define NEG_INF packDouble2x32(uvec2(0u, 0xfff00000u))
#define NAN_T packDouble2x32(uvec2(0u, 0x7ff80000u))
bool is_nan(double x) {
  return isnan(x);
}
#else
#define T float
#define EXP(x) exp(x)
#define LOG(x) log(x)
#define NEG_INF uintBitsToFloat(0xFF800000u)
#define NAN_T uintBitsToFloat(0x7FC00000u)
bool is_nan(float x) {
  return (floatBitsToUint(x) & 0x7FFFFFFFu) > 0x7F800000u;
}
#endif

layout(local_size_x = 256) in;

layout(set = 0, binding = 0) readonly buffer Src { T v[]; } src;
layout(set = 0, binding = 1) writeonly buffer Dst { T v[]; } dst;

layout(push_constant) uniform Push {
  uint src_first;  // first element of row 0, from the bound range's start
  uint rows;
  uint cols;
  uint log_softmax;  // 1: log_softmax, 0: softmax
  uint dst_first;    // first output element, from the bound range's start
  uint serial;       // 1: one invocation per row, walking it in order (short rows)
} pc;

shared T s_val[256];

// NaN-propagating max.
T nan_max(T a, T b) {
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
  T m = NEG_INF;
  for (uint j = 0u; j < pc.cols; ++j) {
    m = nan_max(m, src.v[in_base + j]);
  }
  if (is_nan(m)) {
    for (uint j = 0u; j < pc.cols; ++j) {
      dst.v[out_base + j] = NAN_T;
    }
    return;
  }
  T sum = T(0);
  for (uint j = 0u; j < pc.cols; ++j) {
    sum += EXP(src.v[in_base + j] - m);
  }
  if (pc.log_softmax != 0u) {
    const T log_sum = LOG(sum);
    for (uint j = 0u; j < pc.cols; ++j) {
      dst.v[out_base + j] = (src.v[in_base + j] - m) - log_sum;
    }
  } else {
    for (uint j = 0u; j < pc.cols; ++j) {
      dst.v[out_base + j] = EXP(src.v[in_base + j] - m) / sum;
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

  T m = NEG_INF;
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
      dst.v[out_base + j] = NAN_T;
    }
    return;
  }
  barrier();  // everyone has read s_val[0] before it is reused

  T acc = T(0);
  for (uint j = tid; j < pc.cols; j += 256u) {
    acc += EXP(src.v[in_base + j] - m);
  }
  s_val[tid] = acc;
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1) {
    if (tid < s) {
      s_val[tid] = s_val[tid] + s_val[tid + s];
    }
    barrier();
  }
  const T sum = s_val[0];
  if (pc.log_softmax != 0u) {
    const T log_sum = LOG(sum);
    for (uint j = tid; j < pc.cols; j += 256u) {
      dst.v[out_base + j] = (src.v[in_base + j] - m) - log_sum;
    }
  } else {
    for (uint j = tid; j < pc.cols; j += 256u) {
      dst.v[out_base + j] = EXP(src.v[in_base + j] - m) / sum;
    }
  }
}
