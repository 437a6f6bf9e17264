// The body of the typed elementwise shaders (pointwise_i32.comp, pointwise_i64.comp,
// pointwise_f64.comp, each defining its type and including this file): the ops of
// shaders/pointwise.comp that have a meaning in int32, int64 or float64 without float32's
// transcendental functions (which GLSL does not have for double). The same iteration space,
// operand layout and op numbers as pointwise.comp; see include/tensorplay/backends/vulkan/
// pointwise.hpp. A 64-bit element is two 32-bit words, low word first. Constants (CPU numbers)
// are passed in place of the offset for int32 only; the host uploads 64-bit ones.

#if defined(TP_I64)
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#define T int64_t
const uint WORDS = 2u;
#elif defined(TP_F64)
#define T double
const uint WORDS = 2u;
#else
#define T int
const uint WORDS = 1u;
#endif

layout(local_size_x = 256) in;

layout(set = 0, binding = 0) buffer Out { uint words[]; } dst;
layout(set = 0, binding = 1) readonly buffer In0 { uint words[]; } in0;
layout(set = 0, binding = 2) readonly buffer In1 { uint words[]; } in1;
layout(set = 0, binding = 3) readonly buffer In2 { uint words[]; } in2;

layout(constant_id = 0) const uint kOp = 0u;

layout(push_constant) uniform Push {
  uint numel;
  uint ndim;
  uint flags;        // as in pointwise.comp
  uint offsets[4];   // element (byte, for bool) offsets: output, inputs; an int32 constant
  uint sizes[4];     // the iteration shape, dimension 0 innermost
  uint strides[16];  // strides[4 * operand + dim], in elements (bytes, for bool)
  uint s[4];         // s0 (alpha, clamp's lower bound), s1 (clamp's upper bound): T's words
} pc;

const uint ADD = 0u, SUB = 1u, MUL = 2u, DIV = 3u, MAXIMUM = 4u, MINIMUM = 5u;
const uint EQ = 7u, NE = 8u, LT = 9u, LE = 10u, GT = 11u, GE = 12u, WHERE = 13u;
const uint NEG = 14u, ABS = 15u, SQRT = 18u, RSQRT = 19u, RELU = 22u, CLAMP = 28u;
const uint RECIPROCAL = 29u, SQUARE = 30u, REMAINDER = 32u, FMOD = 33u, DIV_TRUNC = 34u;
const uint DIV_FLOOR = 35u, FLOOR = 48u, CEIL = 49u, TRUNC = 50u, ROUND = 51u;

T from_words(uint lo, uint hi) {
#if defined(TP_I64)
  return int64_t(packUint2x32(uvec2(lo, hi)));
#elif defined(TP_F64)
  return packDouble2x32(uvec2(lo, hi));
#else
  return int(lo);
#endif
}

uvec2 to_words(T v) {
#if defined(TP_I64)
  return unpackUint2x32(uint64_t(v));
#elif defined(TP_F64)
  return unpackDouble2x32(v);
#else
  return uvec2(uint(v), 0u);
#endif
}

uint word(uint k, uint i) {
  if (k == 0u) {
    return in0.words[i];
  }
  return k == 1u ? in1.words[i] : in2.words[i];
}

T load(uint k, uint at) {
  if ((pc.flags & (1u << k)) != 0u) {
    return from_words(pc.offsets[k + 1u], 0u);
  }
  if ((pc.flags & (16u << k)) != 0u) {  // bool: one byte
    return T((word(k, at >> 2u) >> ((at & 3u) * 8u)) & 0xffu);
  }
  const uint i = at * WORDS;
  return from_words(word(k, i), WORDS == 2u ? word(k, i + 1u) : 0u);
}

T s0() {
  return from_words(pc.s[0], pc.s[1]);
}
T s1() {
  return from_words(pc.s[2], pc.s[3]);
}

#if defined(TP_F64)
#define NAN packDouble2x32(uvec2(0u, 0x7ff80000u))
bool is_nan(double x) {
  return isnan(x);
}
bool sign_bit(double x) {
  return (unpackDouble2x32(x).y & 0x80000000u) != 0u;
}
// pointwise.comp's fmod_of, remainder_of and div_floor_of in double.
double fmod_of(double x, double y) {
  if (y == 0.0 || isinf(x) || isnan(x) || isnan(y)) {
    return NAN;
  }
  const double ay = abs(y);
  double r = abs(x);
  if (isinf(y) || r < ay) {
    return x;
  }
  // Exact, as C's fmod: subtract ay scaled into r's binade (halved if above r) until r < ay;
  // each subtraction is exact (t <= r < 2t), at most one per binade between r and ay.
  int ey;
  frexp(ay, ey);
  while (r >= ay) {
    int er;
    frexp(r, er);
    double t = ldexp(ay, er - ey);
    if (t > r) {
      t = ldexp(t, -1);
    }
    r -= t;
  }
  return sign_bit(x) ? -r : r;  // the dividend's sign, a zero's too
}
double remainder_of(double x, double y) {
  const double r = fmod_of(x, y);
  return r != 0.0 && ((r < 0.0) != (y < 0.0)) ? r + y : r;
}
double div_floor_of(double x, double y) {
  if (y == 0.0) {
    return x / y;
  }
  const double m = fmod_of(x, y);
  double d = (x - m) / y;
  if (m != 0.0 && ((y < 0.0) != (m < 0.0))) {
    d -= 1.0;
  }
  if (d == 0.0) {
    return sign_bit(x) != sign_bit(y) ? -0.0LF : 0.0LF;
  }
  const double f = floor(d);
  return d - f > 0.5 ? f + 1.0 : f;
}
#else
bool is_nan(T x) {
  return false;
}
#endif

#include "pointwise_index.glsl"

T apply(T a, T b, T c) {
  const T zero = T(0);
  const T one = T(1);
  switch (kOp) {
    // Integers wrap on overflow (two's complement), as on the CPU.
    case ADD: return a + s0() * b;
    case SUB: return a - s0() * b;
    case MUL: return a * b;
    // The CPU's order (which zero of -0 and +0 wins, too).
    case MAXIMUM: return is_nan(a) ? a : is_nan(b) ? b : (a < b ? b : a);
    case MINIMUM: return is_nan(a) ? a : is_nan(b) ? b : (b < a ? b : a);
    case EQ: return a == b ? one : zero;
    case NE: return a == b ? zero : one;
    case LT: return a < b ? one : zero;
    case LE: return a <= b ? one : zero;
    case GT: return a > b ? one : zero;
    case GE: return a >= b ? one : zero;
    case WHERE: return a != zero ? b : c;
    case NEG: return -a;  // the most negative integer stays itself (wraps), as on the CPU
#if defined(TP_F64)
    case ABS: return abs(a);  // +0 for -0
#else
    case ABS: return a < zero ? -a : a;
#endif
    case RELU: return a < zero ? zero : a;
    case CLAMP: {
      const T lo = s0(), hi = s1();
      const T y = (a < lo || is_nan(lo)) ? lo : a;
      return (hi < y || is_nan(hi)) ? hi : y;
    }
    case SQUARE: return a * a;
#if defined(TP_F64)
    case DIV: return a / b;
    case SQRT: return a < 0.0 ? NAN : sqrt(a);
    case RSQRT: return a < 0.0 ? NAN : 1.0 / sqrt(a);
    case RECIPROCAL: return 1.0 / a;
    case REMAINDER: return remainder_of(a, b);
    case FMOD: return fmod_of(a, b);
    case DIV_TRUNC: return trunc(a / b);
    case DIV_FLOOR: return div_floor_of(a, b);
    case FLOOR: return floor(a);
    case CEIL: return ceil(a);
    case TRUNC: return trunc(a);
    case ROUND: return roundEven(a);
#endif
  }
  return zero;
}

void main() {
  const uint i = gl_GlobalInvocationID.x +
                 gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= pc.numel) {
    return;
  }
  uint at[4];
  operand_offsets(i, at);
  const T r = apply(load(0u, at[1]), load(1u, at[2]), load(2u, at[3]));
  if ((pc.flags & 256u) != 0u) {
    const uint shift = (at[0] & 3u) * 8u;
    const uint w = at[0] >> 2u;
    atomicAnd(dst.words[w], ~(0xffu << shift));
    atomicOr(dst.words[w], (r != T(0) ? 1u : 0u) << shift);
  } else {
    const uvec2 v = to_words(r);
    dst.words[at[0] * WORDS] = v.x;
    if (WORDS == 2u) {
      dst.words[at[0] * WORDS + 1u] = v.y;
    }
  }
}
