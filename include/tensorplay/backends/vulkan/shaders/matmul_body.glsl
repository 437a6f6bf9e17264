// The body of the matrix product shaders (matmul.comp: float32; matmul_f64.comp: float64, where
// the device reports shaderFloat64; matmul_i32.comp, matmul_i64.comp: integers, wrapping, int64
// where it reports shaderInt64; T is the element type, scalar_words.glsl): batched matrix
// product with an optional bias term,
//   C[b][i][j] = alpha * sum_l A[b][i][l] * B[b][l][j] + beta * Bias[b][i][j]   (has_bias)
//   C[b][i][j] = alpha * sum_l A[b][i][l] * B[b][l][j]                          (otherwise)
// A, B and Bias are strided (element strides per batch, row and column; 0 broadcasts); C is
// contiguous (batch x m x n, row-major from c_first).
//
// Tiled through shared memory: a workgroup of 256 invocations computes one 16x16 tile of C
// (invocation t owns row t / 16 and column t % 16 of the tile), loading 16x16 tiles of A and
// B per step of 16 along k; elements outside m, n or k load as 0, so no size needs to be a
// multiple of 16. Workgroup (x, y, z) covers column tile base_x + x, row tile base_y + y and
// batch base_z + z (the host splits grids larger than maxComputeWorkGroupCount into several
// dispatches). The sum runs in a fixed order: results are deterministic. Element offsets fit
// 32 bits (checked by the host). See include/tensorplay/backends/vulkan/matmul.hpp.

#include "scalar_words.glsl"

layout(local_size_x = 256) in;

layout(set = 0, binding = 0) readonly buffer A { T v[]; } a;
layout(set = 0, binding = 1) readonly buffer B { T v[]; } b;
layout(set = 0, binding = 2) readonly buffer Bias { T v[]; } bias;
layout(set = 0, binding = 3) writeonly buffer C { T v[]; } c;

// Operand: first element, then batch, row and column strides, in elements.
layout(push_constant) uniform Push {
  uvec4 a_op;
  uvec4 b_op;
  uvec4 bias_op;
  uint c_first;
  uint m, n, k;
  uint batch;
  uint alpha[2], beta[2];  // T's words (a 32-bit T's in word 0)
  uint has_bias;
  uint base_x, base_y, base_z;  // first column tile, row tile and batch of this dispatch
} pc;

// 1: each invocation reads its row and column from memory (short k: no shared-memory tiles).
layout(constant_id = 0) const uint kDirect = 0u;

const uint kTile = 16u;

shared T s_a[16][17];  // [row][l], padded against bank conflicts
shared T s_b[16][17];  // [l][column]

T scalar(uint words[2]) {
  return from_words(words[0], words[1]);
}

void main() {
  const uint tx = gl_LocalInvocationID.x % kTile;
  const uint ty = gl_LocalInvocationID.x / kTile;
  const uint bi = pc.base_z + gl_WorkGroupID.z;
  const uint row0 = (pc.base_y + gl_WorkGroupID.y) * kTile;
  const uint col0 = (pc.base_x + gl_WorkGroupID.x) * kTile;
  if (bi >= pc.batch) {
    return;  // the whole workgroup leaves: no barrier is skipped by part of it
  }
  const uint row = row0 + ty;
  const uint col = col0 + tx;
  const uint a_base = pc.a_op.x + bi * pc.a_op.y;
  const uint b_base = pc.b_op.x + bi * pc.b_op.y;

  T acc = T(0);
  if (kDirect != 0u) {
    if (row < pc.m && col < pc.n) {
      for (uint l = 0u; l < pc.k; ++l) {
        acc += a.v[a_base + row * pc.a_op.z + l * pc.a_op.w] *
               b.v[b_base + l * pc.b_op.z + col * pc.b_op.w];
      }
    }
  }
  for (uint l0 = 0u; kDirect == 0u && l0 < pc.k; l0 += kTile) {
    // This invocation loads A[row0 + ty][l0 + tx] and B[l0 + ty][col0 + tx].
    const uint la = l0 + tx, lb = l0 + ty;
    s_a[ty][tx] = (row < pc.m && la < pc.k) ? a.v[a_base + row * pc.a_op.z + la * pc.a_op.w] : T(0);
    s_b[ty][tx] = (lb < pc.k && col < pc.n) ? b.v[b_base + lb * pc.b_op.z + col * pc.b_op.w] : T(0);
    barrier();
    for (uint l = 0u; l < kTile; ++l) {
      acc += s_a[ty][l] * s_b[l][tx];
    }
    barrier();
  }
  if (row < pc.m && col < pc.n) {
    T r = scalar(pc.alpha) * acc;
    if (pc.has_bias != 0u) {
      r += scalar(pc.beta) * bias.v[pc.bias_op.x + bi * pc.bias_op.y + row * pc.bias_op.z +
                            col * pc.bias_op.w];
    }
    c.v[pc.c_first + (bi * pc.m + row) * pc.n + col] = r;
  }
}
