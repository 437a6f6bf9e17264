// The body of the typed elementwise shaders (pointwise_i32.comp, pointwise_i64.comp,
// pointwise_f64.comp, each defining its type and including this file): the ops of
// shaders/pointwise.comp that have a meaning in int32 and int64 (those without float32's
// transcendental functions, and integer division), and in float64 all of them: the
// transcendental ones come from math_f64.glsl, since GLSL has none for double. The same
// iteration space, operand layout and op numbers as pointwise.comp; see
// include/tensorplay/backends/vulkan/pointwise.hpp. A 64-bit element is two 32-bit words, low
// word first (scalar_words.glsl). Constants (CPU numbers) are passed in place of the offset for
// int32 only; the host uploads 64-bit ones.

#include "scalar_words.glsl"

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
// float64 only (math_f64.glsl).
const uint POW = 6u, EXP = 16u, LOG = 17u, TANH = 20u, SIGMOID = 21u, GELU = 23u;
const uint GELU_TANH = 24u, SILU = 25u, SIN = 26u, COS = 27u, ATAN2 = 31u, TAN = 36u;
const uint ASIN = 37u, ACOS = 38u, ATAN = 39u, SINH = 40u, COSH = 41u, EXP2 = 42u;
const uint EXPM1 = 43u, LOG2 = 44u, LOG10 = 45u, LOG1P = 46u, ERF = 47u;

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
#include "math_f64.glsl"  // and sign_bit
#define NAN packDouble2x32(uvec2(0u, 0x7ff80000u))
bool is_nan(double x) {
  return isnan(x);
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
// Integer division as on the CPU (ops/binary.hpp), on magnitudes in the unsigned type U, which
// has no undefined case (a signed / b is undefined for the most negative a and b = -1): the
// quotient truncates, wrapping for that case as the CPU's b == -1 branch does. Division by zero
// never reaches the device (the host checks the divisor first); it gives 0 here.
#if defined(TP_I64)
#define U uint64_t
#else
#define U uint
#endif
U magnitude(T v) {
  return v < T(0) ? U(0) - U(v) : U(v);
}
T div_trunc_of(T a, T b) {
  if (b == T(0)) {
    return T(0);
  }
  const T q = T(magnitude(a) / magnitude(b));
  return (a < T(0)) != (b < T(0)) ? -q : q;
}
// C's %: the dividend's sign.
T fmod_of(T a, T b) {
  if (b == T(0)) {
    return T(0);
  }
  const T r = T(magnitude(a) % magnitude(b));
  return a < T(0) ? -r : r;
}
// Python's %: the divisor's sign.
T remainder_of(T a, T b) {
  const T r = fmod_of(a, b);
  return r != T(0) && ((r < T(0)) != (b < T(0))) ? r + b : r;
}
// Integer power by squaring, wrapping, as the CPU's powi: a negative exponent gives 1 for a
// base of 1, +-1 for a base of -1 and 0 otherwise (the scalar form's error is the front end's).
T powi_of(T a, T b) {
  if (b < T(0)) {
    if (a == T(1)) {
      return T(1);
    }
    if (a == T(-1)) {
      return (b & T(1)) != T(0) ? T(-1) : T(1);
    }
    return T(0);
  }
  U result = U(1);
  U base = U(a);
  for (T e = b; e != T(0); e >>= 1) {
    if ((e & T(1)) != T(0)) {
      result *= base;
    }
    base *= base;
  }
  return T(result);
}
// Python's //: truncation, minus one when the signs differ and the division is inexact.
T div_floor_of(T a, T b) {
  const T q = div_trunc_of(a, b);
  return (a < T(0)) != (b < T(0)) && fmod_of(a, b) != T(0) ? q - T(1) : q;
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
    case REMAINDER: return remainder_of(a, b);
    case FMOD: return fmod_of(a, b);
    case DIV_FLOOR: return div_floor_of(a, b);
#if !defined(TP_F64)
    case DIV_TRUNC: return div_trunc_of(a, b);
    case FLOOR: case CEIL: case TRUNC: case ROUND: return a;  // integers are their own
    case POW: return powi_of(a, b);
#else
    case DIV: return a / b;
    case SQRT: return a < 0.0 ? NAN : sqrt(a);
    case RSQRT: return a < 0.0 ? NAN : 1.0 / sqrt(a);
    case RECIPROCAL: return 1.0 / a;
    case DIV_TRUNC: return trunc(a / b);
    case FLOOR: return floor(a);
    case CEIL: return ceil(a);
    case TRUNC: return trunc(a);
    case ROUND: return roundEven(a);
    case POW: return pow_f64(a, b);
    case EXP: return exp_f64(a);
    case EXP2: return exp2_f64(a);
    case EXPM1: return expm1_f64(a);
    case LOG: return log_f64(a, 1.0LF, 0.0LF);
    case LOG2: return log_f64(a, INV_LN2_HI, INV_LN2_LO);
    case LOG10: return log_f64(a, INV_LN10_HI, INV_LN10_LO);
    case LOG1P: return log1p_f64(a);
    case SIN: return sincos_f64(a, false);
    case COS: return sincos_f64(a, true);
    case TAN: return tan_f64(a);
    case ASIN: return asin_acos_f64(a, false);
    case ACOS: return asin_acos_f64(a, true);
    case ATAN: return atan_f64(a);
    case ATAN2: return atan2_f64(a, b);
    case SINH: return sinh_f64(a);
    case COSH: return cosh_f64(a);
    case TANH: return tanh_f64(a);
    case ERF: return erf_f64(a);
    // The CPU's formulas (ops/unary.hpp), in its order of operations; precise keeps a driver
    // from fusing them into a different rounding.
    case SIGMOID: {
      precise double r = 1.0LF / (1.0LF + exp_f64(-a));
      return r;
    }
    case SILU: {
      precise double r = a / (1.0LF + exp_f64(-a));
      return r;
    }
    case GELU: {
      precise double r = (a * 0.5LF) * (1.0LF + erf_f64(a * 0.7071067811865476LF));
      return r;
    }
    case GELU_TANH: {
      precise double u = 0.7978845608028654LF * (a + ((0.044715LF * a) * a) * a);
      precise double r = (0.5LF * a) * (1.0LF + tanh_f64(u));
      return r;
    }
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
