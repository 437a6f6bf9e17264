// pointwise: every elementwise op of the Vulkan backend (ops/device_dispatch.hpp's
// PointwiseCode), float32 compute, one invocation per element of a TensorIterator's iteration
// space: up to 4 (coalesced) dimensions, dimension 0 innermost, each operand with its own
// element strides (0 along broadcast dimensions). Operand 0 is the output (float32, or bool
// for comparisons, written bytewise with atomics so that neighbours in a word never race);
// operands 1..3 are the inputs (float32, or bool: bytes), or constants (a CPU number: its
// float bits in place of the offset). See include/tensorplay/backends/vulkan/pointwise.hpp.
#version 450
#extension GL_GOOGLE_include_directive : require

layout(local_size_x = 256) in;

layout(set = 0, binding = 0) buffer Out { uint words[]; } dst;
layout(set = 0, binding = 1) readonly buffer In0 { uint words[]; } in0;
layout(set = 0, binding = 2) readonly buffer In1 { uint words[]; } in1;
layout(set = 0, binding = 3) readonly buffer In2 { uint words[]; } in2;

// The op: one pipeline per op (a specialization constant), so each compiles to its own code.
layout(constant_id = 0) const uint kOp = 0u;

layout(push_constant) uniform Push {
  uint numel;
  uint ndim;
  // bit k (k = 0..2): input k is a constant; bit 4 + k: input k is bool (bytes);
  // bit 8: the output is bool (bytes).
  uint flags;
  uint offsets[4];   // element (byte, for bool) offsets: output, inputs; a constant's bits
  uint sizes[4];     // the iteration shape, dimension 0 innermost
  uint strides[16];  // strides[4 * operand + dim], in elements (bytes, for bool)
  float s0;          // add/sub: alpha; clamp: the lower bound
  float s1;          // clamp: the upper bound
} pc;

// Shader op numbers: include/tensorplay/backends/vulkan/pointwise.hpp's ShaderOp.
const uint ADD = 0u, SUB = 1u, MUL = 2u, DIV = 3u, MAXIMUM = 4u, MINIMUM = 5u, POW = 6u;
const uint EQ = 7u, NE = 8u, LT = 9u, LE = 10u, GT = 11u, GE = 12u, WHERE = 13u;
const uint NEG = 14u, ABS = 15u, EXP = 16u, LOG = 17u, SQRT = 18u, RSQRT = 19u, TANH = 20u;
const uint SIGMOID = 21u, RELU = 22u, GELU = 23u, GELU_TANH = 24u, SILU = 25u, SIN = 26u;
const uint COS = 27u, CLAMP = 28u, RECIPROCAL = 29u, SQUARE = 30u, ATAN2 = 31u, REMAINDER = 32u;
const uint FMOD = 33u, DIV_TRUNC = 34u, DIV_FLOOR = 35u, TAN = 36u, ASIN = 37u, ACOS = 38u;
const uint ATAN = 39u, SINH = 40u, COSH = 41u, EXP2 = 42u, EXPM1 = 43u, LOG2 = 44u;
const uint LOG10 = 45u, LOG1P = 46u, ERF = 47u, FLOOR = 48u, CEIL = 49u, TRUNC = 50u;
const uint ROUND = 51u;
const float PI = 3.14159265358979323846;

#define NAN uintBitsToFloat(0x7fc00000u)
#define INF uintBitsToFloat(0x7f800000u)

float load(uint k, uint at) {
  if ((pc.flags & (1u << k)) != 0u) {
    return uintBitsToFloat(pc.offsets[k + 1u]);
  }
  const bool bytes = (pc.flags & (16u << k)) != 0u;
  const uint word = bytes ? at >> 2u : at;
  uint w;
  if (k == 0u) {
    w = in0.words[word];
  } else if (k == 1u) {
    w = in1.words[word];
  } else {
    w = in2.words[word];
  }
  return bytes ? float((w >> ((at & 3u) * 8u)) & 0xffu) : uintBitsToFloat(w);
}

// tanh without the overflow of (e^2x - 1) / (e^2x + 1); a series near 0 keeps small values'
// relative precision.
float tanh_of(float x) {
  const float a = abs(x);
  if (a < 0.0625) {
    const float x2 = x * x;
    return x * (1.0 + x2 * (-1.0 / 3.0 + x2 * (2.0 / 15.0 + x2 * (-17.0 / 315.0))));
  }
  const float t = exp(-2.0 * a);
  return sign(x) * ((1.0 - t) / (1.0 + t));
}

// erf, Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7).
float erf_of(float x) {
  const float a = abs(x);
  const float t = 1.0 / (1.0 + 0.3275911 * a);
  const float poly =
      t * (0.254829592 + t * (-0.284496736 + t * (1.421413741 + t * (-1.453152027 +
                                                                  t * 1.061405429))));
  return sign(x) * (1.0 - poly * exp(-a * a));
}

bool sign_bit(float x) {
  return (floatBitsToUint(x) & 0x80000000u) != 0u;
}

// C's fmod, exactly: NaN for y = 0 or infinite x, x for infinite y or |x| < |y|; otherwise |y|
// scaled into the remainder's binade (halved if above it) is subtracted until the remainder is
// below |y|: each subtraction is exact (t <= r < 2t). The dividend's sign, a zero's too.
float fmod_of(float x, float y) {
  if (y == 0.0 || isinf(x) || isnan(x) || isnan(y)) {
    return NAN;
  }
  const float ay = abs(y);
  float r = abs(x);
  if (isinf(y) || r < ay) {
    return x;
  }
  int ey;
  frexp(ay, ey);
  while (r >= ay) {
    int er;
    frexp(r, er);
    float t = ldexp(ay, er - ey);
    if (t > r) {
      t = ldexp(t, -1);
    }
    r -= t;
  }
  return sign_bit(x) ? -r : r;
}

// Python's (PyTorch's) remainder: fmod moved to the divisor's sign.
float remainder_of(float x, float y) {
  const float r = fmod_of(x, y);
  return r != 0.0 && ((r < 0.0) != (y < 0.0)) ? r + y : r;
}

// PyTorch's floor division: (x - fmod(x, y)) / y, corrected to the floor and rounded to the
// nearest integer (so exact quotients stay exact); x / y when y = 0.
float div_floor_of(float x, float y) {
  if (y == 0.0) {
    return x / y;
  }
  const float m = fmod_of(x, y);
  float d = (x - m) / y;
  if (m != 0.0 && ((y < 0.0) != (m < 0.0))) {
    d -= 1.0;
  }
  if (d == 0.0) {
    return sign_bit(x) != sign_bit(y) ? -0.0 : 0.0;
  }
  const float f = floor(d);
  return d - f > 0.5 ? f + 1.0 : f;
}

// C's atan2, which GLSL's atan(y, x) leaves undefined at x = y = 0.
float atan2_of(float y, float x) {
  if (isnan(x) || isnan(y)) {
    return NAN;
  }
  if (y == 0.0 && x == 0.0) {
    const float r = sign_bit(x) ? PI : 0.0;
    return sign_bit(y) ? -r : r;
  }
  return atan(y, x);
}

// log with C's special cases (GLSL leaves x <= 0 undefined), in base e, 2 or 10.
float log_base(float x, uint op) {
  if (isnan(x) || x < 0.0) {
    return NAN;
  }
  if (x == 0.0) {
    return -INF;
  }
  if (op == LOG2) {
    return log2(x);
  }
  return op == LOG10 ? log2(x) * 0.30102999566398119521 : log(x);
}

// log(1 + x) keeping small x's relative precision: log(u) * x / (u - 1), u = 1 + x rounded.
float log1p_of(float x) {
  if (x < -1.0 || isnan(x)) {
    return NAN;
  }
  if (x == -1.0) {
    return -INF;
  }
  if (isinf(x)) {
    return x;
  }
  const float u = 1.0 + x;
  return u == 1.0 ? x : log(u) * (x / (u - 1.0));
}

// exp(x) - 1, the same trick: (u - 1) * x / log(u), u = exp(x) rounded.
float expm1_of(float x) {
  if (isnan(x)) {
    return NAN;
  }
  if (x > 88.72283935546875) {
    return INF;
  }
  const float u = exp(x);
  if (u == 1.0) {
    return x;
  }
  const float um1 = u - 1.0;
  return um1 == -1.0 ? -1.0 : um1 * (x / log(u));
}

// asin and acos through atan2 (NaN outside [-1, 1], which GLSL leaves undefined), with
// sqrt(1 - x^2) as sqrt((1 - x)(1 + x)) to keep its precision near |x| = 1.
float asin_of(float x, bool cosine) {
  if (isnan(x) || abs(x) > 1.0) {
    return NAN;
  }
  const float c = sqrt((1.0 - x) * (1.0 + x));
  return cosine ? atan2_of(c, x) : atan2_of(x, c);
}

// (e^a + s e^-a) / 2 for a >= 0 and s = +-1 (cosh, sinh): from one exp, and for a > 88, where
// e^a overflows but e^a / 2 may not, as e^(a/2) * (e^(a/2) / 2).
float half_exp_sum(float a, float s) {
  if (a > 88.0) {
    const float h = exp(0.5 * a);
    return h * (0.5 * h);
  }
  const float e = exp(a);
  return 0.5 * e + s * (0.5 / e);
}
float sinh_of(float x) {
  if (abs(x) < 0.0625) {  // a series keeps small values' relative precision
    const float x2 = x * x;
    return x * (1.0 + x2 * (1.0 / 6.0 + x2 * (1.0 / 120.0 + x2 * (1.0 / 5040.0))));
  }
  return sign(x) * half_exp_sum(abs(x), -1.0);
}
float cosh_of(float x) {
  return half_exp_sum(abs(x), 1.0);
}

// C's pow (PyTorch's), which GLSL's pow leaves undefined for x < 0 and x = 0.
float pow_of(float x, float y) {
  if (y == 0.0 || x == 1.0) {
    return 1.0;
  }
  if (isnan(x) || isnan(y)) {
    return NAN;
  }
  const float ax = abs(x);
  if (isinf(y)) {
    if (ax == 1.0) {
      return 1.0;
    }
    return (ax < 1.0) == (y > 0.0) ? 0.0 : INF;
  }
  const bool integer = y == trunc(y);
  const bool odd = integer && abs(mod(y, 2.0)) == 1.0;
  const bool negative = x < 0.0 || (x == 0.0 && floatBitsToUint(x) != 0u);  // -0 too
  float r;
  if (ax == 0.0) {
    r = y > 0.0 ? 0.0 : INF;
  } else if (isinf(ax)) {
    r = y > 0.0 ? INF : 0.0;
  } else if (x < 0.0 && !integer) {
    return NAN;
  } else {
    r = pow(ax, y);
  }
  return odd && negative ? -r : r;
}

#include "pointwise_index.glsl"

float apply(float a, float b, float c) {
  switch (kOp) {
    case ADD: return a + pc.s0 * b;
    case SUB: return a - pc.s0 * b;
    case MUL: return a * b;
    case DIV: return a / b;
    // The CPU's order (which zero of -0 and +0 wins, too).
    case MAXIMUM: return (isnan(a) || isnan(b)) ? NAN : (a < b ? b : a);
    case MINIMUM: return (isnan(a) || isnan(b)) ? NAN : (b < a ? b : a);
    case POW: return pow_of(a, b);
    case EQ: return a == b ? 1.0 : 0.0;
    case NE: return a == b ? 0.0 : 1.0;
    case LT: return a < b ? 1.0 : 0.0;
    case LE: return a <= b ? 1.0 : 0.0;
    case GT: return a > b ? 1.0 : 0.0;
    case GE: return a >= b ? 1.0 : 0.0;
    case WHERE: return a != 0.0 ? b : c;
    case NEG: return -a;
    case ABS: return abs(a);
    case EXP: return exp(a);
    case LOG: return a < 0.0 ? NAN : a == 0.0 ? -INF : log(a);
    case SQRT: return a < 0.0 ? NAN : sqrt(a);
    case RSQRT: return a < 0.0 ? NAN : 1.0 / sqrt(a);
    case TANH: return tanh_of(a);
    case SIGMOID: return 1.0 / (1.0 + exp(-a));
    case RELU: return a < 0.0 ? 0.0 : a;
    case GELU: return a * 0.5 * (1.0 + erf_of(a * 0.70710678118654752));
    case GELU_TANH:
      return 0.5 * a * (1.0 + tanh_of(0.79788456080286536 * (a + 0.044715 * a * a * a)));
    case SILU: return a / (1.0 + exp(-a));
    case SIN: return sin(a);
    case COS: return cos(a);
    case CLAMP: {
      const float y = (a < pc.s0 || isnan(pc.s0)) ? pc.s0 : a;
      return (pc.s1 < y || isnan(pc.s1)) ? pc.s1 : y;
    }
    case RECIPROCAL: return 1.0 / a;
    case SQUARE: return a * a;
    case ATAN2: return atan2_of(a, b);
    case REMAINDER: return remainder_of(a, b);
    case FMOD: return fmod_of(a, b);
    case DIV_TRUNC: return trunc(a / b);
    case DIV_FLOOR: return div_floor_of(a, b);
    case TAN: return isinf(a) ? NAN : tan(a);
    case ASIN: return asin_of(a, false);
    case ACOS: return asin_of(a, true);
    case ATAN: return atan2_of(a, 1.0);
    case SINH: return sinh_of(a);
    case COSH: return cosh_of(a);
    case EXP2: return exp2(a);
    case EXPM1: return expm1_of(a);
    case LOG2: return log_base(a, LOG2);
    case LOG10: return log_base(a, LOG10);
    case LOG1P: return log1p_of(a);
    case ERF: return erf_of(a);
    case FLOOR: return floor(a);
    case CEIL: return ceil(a);
    case TRUNC: return trunc(a);
    case ROUND: return roundEven(a);
  }
  return NAN;
}

void main() {
  const uint i = gl_GlobalInvocationID.x +
                 gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= pc.numel) {
    return;
  }
  uint at[4];
  operand_offsets(i, at);
  const float r = apply(load(0u, at[1]), load(1u, at[2]), load(2u, at[3]));
  if ((pc.flags & 256u) != 0u) {
    const uint shift = (at[0] & 3u) * 8u;
    const uint word = at[0] >> 2u;
    atomicAnd(dst.words[word], ~(0xffu << shift));
    atomicOr(dst.words[word], (r != 0.0 ? 1u : 0u) << shift);
  } else {
    dst.words[at[0]] = floatBitsToUint(r);
  }
}
