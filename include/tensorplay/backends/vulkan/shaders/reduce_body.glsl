// The body of the reduce shaders (reduce.comp: float32; reduce_i32.comp, reduce_i64.comp,
// reduce_f64.comp), each defining its type and including this file: one value of the type (or
// an int64 index) per row of a rows x cols row-major matrix: sum, mean, prod, amax, amin,
// argmax, argmin. Short rows: one invocation per row (serial). Otherwise one
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
layout(local_size_x = 256) in;

// The element type: float32 (reduce.comp), int32, int64 or float64 (reduce_i32.comp ...), one
// or two 32-bit words per element (low word first); Sum/Mean/Prod/Amax/Amin results in the same
// type, indices as int64.
#include "scalar_words.glsl"
#if defined(TP_F64)
bool is_nan(T x) {  // on the bits (see above)
  const uvec2 w = unpackDouble2x32(x);
  const uint hi = w.y & 0x7FFFFFFFu;
  return hi > 0x7FF00000u || (hi == 0x7FF00000u && w.x != 0u);
}
#define NAN packDouble2x32(uvec2(0u, 0x7FF80000u))
#elif defined(TP_I64) || defined(TP_I32)
bool is_nan(T x) {
  return false;
}
#define NAN T(0)
#else
bool is_nan(T x) {  // on the bits (see above)
  return (floatBitsToUint(x) & 0x7FFFFFFFu) > 0x7F800000u;
}
#define NAN uintBitsToFloat(0x7FC00000u)
#endif


layout(set = 0, binding = 0) readonly buffer Src { uint words[]; } src;
layout(set = 0, binding = 1) writeonly buffer Dst { uint words[]; } dst;

layout(push_constant) uniform Push {
  uint src_first;  // first element of row 0, from the bound range's start
  uint rows;
  uint cols;
  uint kind;       // ReduceKind: 0 sum, 1 mean, 2 amax, 3 amin, 4 argmax, 5 argmin, 6 prod
  uint dst_first;  // first output element (T, or int64), from the bound range's start
  uint serial;     // 1: one invocation per row, walking it in order (short rows)
} pc;

const uint kSum = 0u, kMean = 1u, kAmax = 2u, kAmin = 3u, kArgmax = 4u, kArgmin = 5u, kProd = 6u;
const uint kNone = 0xFFFFFFFFu;  // index of an empty partial result

shared T s_val[256];
shared uint s_idx[256];

// Sum, mean and prod accumulate: their identity and their combination.
bool accumulates() {
  return pc.kind == kSum || pc.kind == kMean || pc.kind == kProd;
}
T identity() {
  return pc.kind == kProd ? T(1) : T(0);
}
T combine(T a, T b) {
  return pc.kind == kProd ? a * b : a + b;
}

T load(uint e) {
  const uint i = e * WORDS;
  return from_words(src.words[i], WORDS == 2u ? src.words[i + 1u] : 0u);
}

// Whether candidate (v, i) beats the current best (bv, bi) for argmax (want_max) or argmin.
bool better(T v, uint i, T bv, uint bi, bool want_max) {
  if (i == kNone) return false;
  if (bi == kNone) return true;
  const bool vn = is_nan(v), bn = is_nan(bv);
  if (vn || bn) return vn && (!bn || i < bi);
  if (v != bv) return want_max ? v > bv : v < bv;
  return i < bi;
}

void write_result(uint row, T value, uint index) {
  if (pc.kind == kMean) {
    value = pc.cols == 0u ? NAN : value / T(pc.cols);
  }
  if (pc.kind == kArgmax || pc.kind == kArgmin) {
    dst.words[2u * (pc.dst_first + row)] = index;
    dst.words[2u * (pc.dst_first + row) + 1u] = 0u;
  } else {
    const uvec2 w = to_words(value);
    dst.words[WORDS * (pc.dst_first + row)] = w.x;
    if (WORDS == 2u) {
      dst.words[WORDS * (pc.dst_first + row) + 1u] = w.y;
    }
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
    T acc = identity();
    for (uint j = 0u; j < pc.cols; ++j) {
      acc = combine(acc, load(base + j));
    }
    write_result(row, acc, 0u);
    return;
  }
  const bool want_max = pc.kind == kAmax || pc.kind == kArgmax;
  T best = T(0);
  uint best_i = kNone;
  for (uint j = 0u; j < pc.cols; ++j) {
    const T x = load(base + j);
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
    T acc = identity();
    for (uint j = tid; j < pc.cols; j += 256u) {
      acc = combine(acc, load(base + j));
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
  T best = T(0);
  uint best_i = kNone;
  for (uint j = tid; j < pc.cols; j += 256u) {
    const T x = load(base + j);
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
