// reduce: one float32 value (or int64 index) per row of a rows x cols row-major matrix: sum,
// mean, prod, amax, amin, argmax, argmin. Short rows: one invocation per row (serial). Otherwise one
// workgroup per row (row = gl_WorkGroupID.x +
// gl_WorkGroupID.y * gl_NumWorkGroups.x: the dispatch_1d fold with one group per row). Each
// invocation walks the row with a stride of 256 in index order, then a shared-memory tree
// combines the 256 partial results in a fixed order, so results are deterministic.
//
// NaN: amax/amin/argmax/argmin treat NaN as larger (and smaller) than everything, as PyTorch
// does: any NaN in the row gives NaN (amax/amin) or the index of the first NaN (argmax/argmin).
// NaN is tested on the bits, never with float comparisons a driver might reorder. Ties go to
// the smallest index. Sum, mean and prod rely on IEEE arithmetic to propagate NaN and inf; the
// mean of an empty row is NaN (written explicitly: 0/0 is undefined in Vulkan), its prod 1.
//
// Indices are written as int64: two 32-bit words (low, high) per row. Every element offset
// fits 32 bits (checked by the host). See include/tensorplay/backends/vulkan/reduce.hpp.
#version 450

layout(local_size_x = 256) in;

layout(set = 0, binding = 0) readonly buffer Src { float v[]; } src;
layout(set = 0, binding = 1) writeonly buffer Dst { uint words[]; } dst;

layout(push_constant) uniform Push {
  uint src_first;  // first element of row 0, from the bound range's start
  uint rows;
  uint cols;
  uint kind;       // ReduceKind: 0 sum, 1 mean, 2 amax, 3 amin, 4 argmax, 5 argmin, 6 prod
  uint dst_first;  // first output element (float32 or int64), from the bound range's start
  uint serial;     // 1: one invocation per row, walking it in order (short rows)
} pc;

const uint kSum = 0u, kMean = 1u, kAmax = 2u, kAmin = 3u, kArgmax = 4u, kArgmin = 5u, kProd = 6u;
const uint kNone = 0xFFFFFFFFu;  // index of an empty partial result

shared float s_val[256];
shared uint s_idx[256];

// Sum, mean and prod accumulate: their identity and their combination.
bool accumulates() {
  return pc.kind == kSum || pc.kind == kMean || pc.kind == kProd;
}
float identity() {
  return pc.kind == kProd ? 1.0 : 0.0;
}
float combine(float a, float b) {
  return pc.kind == kProd ? a * b : a + b;
}

bool is_nan(float x) {
  return (floatBitsToUint(x) & 0x7FFFFFFFu) > 0x7F800000u;
}

// Whether candidate (v, i) beats the current best (bv, bi) for argmax (want_max) or argmin.
bool better(float v, uint i, float bv, uint bi, bool want_max) {
  if (i == kNone) return false;
  if (bi == kNone) return true;
  const bool vn = is_nan(v), bn = is_nan(bv);
  if (vn || bn) return vn && (!bn || i < bi);
  if (v != bv) return want_max ? v > bv : v < bv;
  return i < bi;
}

void write_result(uint row, float value, uint index) {
  if (pc.kind == kMean) {
    value = pc.cols == 0u ? uintBitsToFloat(0x7FC00000u) : value / float(pc.cols);
  }
  if (pc.kind == kArgmax || pc.kind == kArgmin) {
    dst.words[2u * (pc.dst_first + row)] = index;
    dst.words[2u * (pc.dst_first + row) + 1u] = 0u;
  } else {
    dst.words[pc.dst_first + row] = floatBitsToUint(value);
  }
}

// Short rows: one invocation per row, no shared memory and no barriers (which cost more than
// the work on such rows, on CPU implementations above all).
void serial_row() {
  const uint row = gl_GlobalInvocationID.x +
                   gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (row >= pc.rows) {
    return;
  }
  const uint base = pc.src_first + row * pc.cols;
  if (accumulates()) {
    float acc = identity();
    for (uint j = 0u; j < pc.cols; ++j) {
      acc = combine(acc, src.v[base + j]);
    }
    write_result(row, acc, 0u);
    return;
  }
  const bool want_max = pc.kind == kAmax || pc.kind == kArgmax;
  float best = 0.0;
  uint best_i = kNone;
  for (uint j = 0u; j < pc.cols; ++j) {
    const float x = src.v[base + j];
    if (better(x, j, best, best_i, want_max)) {
      best = x;
      best_i = j;
    }
  }
  write_result(row, best, best_i);
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
  const uint base = pc.src_first + row * pc.cols;
  if (accumulates()) {
    float acc = identity();
    for (uint j = tid; j < pc.cols; j += 256u) {
      acc = combine(acc, src.v[base + j]);
    }
    s_val[tid] = acc;
    barrier();
    for (uint s = 128u; s > 0u; s >>= 1) {
      if (tid < s) {
        s_val[tid] = combine(s_val[tid], s_val[tid + s]);
      }
      barrier();
    }
    if (tid == 0u) {
      write_result(row, s_val[0], 0u);
    }
    return;
  }
  const bool want_max = pc.kind == kAmax || pc.kind == kArgmax;
  float best = 0.0;
  uint best_i = kNone;
  for (uint j = tid; j < pc.cols; j += 256u) {
    const float x = src.v[base + j];
    if (better(x, j, best, best_i, want_max)) {
      best = x;
      best_i = j;
    }
  }
  s_val[tid] = best;
  s_idx[tid] = best_i;
  barrier();
  for (uint s = 128u; s > 0u; s >>= 1) {
    if (tid < s && better(s_val[tid + s], s_idx[tid + s], s_val[tid], s_idx[tid], want_max)) {
      s_val[tid] = s_val[tid + s];
      s_idx[tid] = s_idx[tid + s];
    }
    barrier();
  }
  if (tid == 0u) {
    write_result(row, s_val[0], s_idx[0]);
  }
}
