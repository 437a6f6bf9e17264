// The body of the dtype conversion shaders (cast.comp: the dtypes of 32 bits and less, which
// need no shader feature; cast_wide.comp: every dtype, with shaderInt64 and shaderFloat64):
// dst[i] = convert(src[i]) over an iteration space of up to 8 dimensions, each side with its
// own element strides (0 along broadcast dimensions), with the CPU's conversion rules
// (core/convert.hpp, core/half.hpp): to bool is != 0 (NaN is true), floats truncate toward zero
// into integers, integers wrap into narrower ones, Half and BFloat16 are rounded once to
// nearest even from the exact source value. Elements of 8 and 16 bits are read from and written
// into 32-bit words (written with atomics, so that neighbours in a word never race). The pair
// of dtypes is a specialization constant (one pipeline per pair). The same dtype on both sides
// is a strided copy of any element width. See include/tensorplay/backends/vulkan/cast.hpp.

#if defined(TP_WIDE)
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#define I int64_t
#define F double
#else
#define I int
#define F float
#endif

layout(local_size_x = 256) in;

layout(set = 0, binding = 0) buffer Dst { uint words[]; } dst;
layout(set = 0, binding = 1) readonly buffer Src { uint words[]; } src;

// tensorplay's DType numbers (core/dtype.hpp).
const uint BOOL = 0u, U8 = 1u, I8 = 2u, I16 = 3u, I32 = 4u, I64 = 5u, F16 = 6u, BF16 = 7u;
const uint F32 = 8u, F64 = 9u;

layout(constant_id = 0) const uint kPair = 0u;  // source dtype * 10 + destination dtype
const uint kSrc = kPair / 10u;
const uint kDst = kPair % 10u;

layout(push_constant) uniform Push {
  uint numel;
  uint ndim;
  uint offsets[2];   // elements: destination, source
  uint sizes[8];     // the iteration shape, dimension 0 innermost
  uint strides[16];  // strides[8 * side + dim] in elements, side 0 the destination
} pc;

uint width_of(uint dt) {
  if (dt <= I8) {
    return 1u;
  }
  return (dt == I16 || dt == F16 || dt == BF16) ? 2u : (dt == I64 || dt == F64) ? 8u : 4u;
}

// binary16 bits -> float, exactly (subnormals included).
float half_to_float(uint h) {
  const uint sign = (h & 0x8000u) << 16u;
  const uint e = (h >> 10u) & 0x1fu;
  const uint m = h & 0x3ffu;
  if (e == 0x1fu) {
    return uintBitsToFloat(sign | 0x7f800000u | (m << 13u));
  }
  if (e == 0u) {
    const float v = ldexp(float(m), -24);
    return sign != 0u ? -v : v;
  }
  return uintBitsToFloat(sign | ((e + 112u) << 23u) | (m << 13u));
}

// float -> binary16 bits, rounded to nearest even (in integer arithmetic, so no device rounding
// mode or denormal flushing is involved).
uint float_to_half(float f) {
  const uint x = floatBitsToUint(f);
  const uint sign = (x >> 16u) & 0x8000u;
  const uint a = x & 0x7fffffffu;
  if (a > 0x7f800000u) {
    return sign | 0x7e00u;  // NaN
  }
  if (a >= 0x477ff000u) {
    return sign | 0x7c00u;  // 65520 and above round to infinity
  }
  if (a >= 0x38800000u) {  // a normal half: rebias the exponent, round off 13 bits
    const uint r = a - 0x38000000u;
    return sign | ((r + 0x0fffu + ((r >> 13u) & 1u)) >> 13u);
  }
  if (a <= 0x33000000u) {
    return sign;  // 2^-25 and below: zero (2^-25 itself is a tie, to even)
  }
  // A subnormal half: the value in units of 2^-24, rounded to nearest even.
  const uint m = (a & 0x7fffffu) | 0x800000u;
  const uint shift = 126u - (a >> 23u);  // 14..24
  uint q = m >> shift;
  const uint rest = m & ((1u << shift) - 1u);
  const uint half_way = 1u << (shift - 1u);
  if (rest > half_way || (rest == half_way && (q & 1u) != 0u)) {
    q += 1u;
  }
  return sign | q;
}

// float -> bfloat16 bits, rounded to nearest even.
uint float_to_bfloat16(float f) {
  const uint x = floatBitsToUint(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) {
    return ((x >> 16u) & 0x8000u) | 0x7fc0u;  // NaN
  }
  return (x + 0x7fffu + ((x >> 16u) & 1u)) >> 16u;
}

// Integers of more than 24 bits to float rounded to odd (truncated, the last bit set when
// anything was dropped): rounding that to binary16 or bfloat16 (at least two bits shorter) then
// rounds once, as a direct conversion would.
float uint_to_float_odd(uint m) {
  if (m < 0x1000000u) {
    return float(m);
  }
  const int shift = findMSB(m) - 23;
  uint keep = m >> uint(shift);
  if ((m & ((1u << uint(shift)) - 1u)) != 0u) {
    keep |= 1u;
  }
  return ldexp(float(keep), shift);
}

#if defined(TP_WIDE)
// A double to float rounded to odd (see above).
float double_to_float_odd(double d) {
  float f = float(d);
  if (double(f) != d && !isnan(d)) {
    if (abs(double(f)) > abs(d)) {
      f = uintBitsToFloat(floatBitsToUint(f) - 1u);  // one step toward zero
    }
    f = uintBitsToFloat(floatBitsToUint(f) | 1u);
  }
  return f;
}
// An int64 to double rounded to odd.
double int64_to_double_odd(int64_t v) {
  const uint64_t m = v < 0l ? uint64_t(0) - uint64_t(v) : uint64_t(v);
  double d;
  if (m < (uint64_t(1) << 53)) {
    d = double(m);
  } else {
    const uvec2 w = unpackUint2x32(m);
    const int msb = w.y != 0u ? 32 + findMSB(w.y) : findMSB(w.x);
    const int shift = msb - 52;
    uint64_t keep = m >> uint64_t(shift);
    if ((m & ((uint64_t(1) << uint64_t(shift)) - uint64_t(1))) != uint64_t(0)) {
      keep |= uint64_t(1);
    }
    d = ldexp(double(keep), shift);
  }
  return v < 0l ? -d : d;
}
#endif

// The value read: an integer (bool and the integer dtypes) or a floating value.
struct Value {
  bool is_float;
  I i;
  F f;
};

Value read_src(uint at) {
  Value v = Value(false, I(0), F(0));
  if (kSrc <= I8) {
    const uint b = (src.words[at >> 2u] >> ((at & 3u) * 8u)) & 0xffu;
    v.i = I(kSrc == I8 ? int(b << 24u) >> 24 : int(b));
  } else if (kSrc == I16 || kSrc == F16 || kSrc == BF16) {
    const uint h = (src.words[at >> 1u] >> ((at & 1u) * 16u)) & 0xffffu;
    if (kSrc == I16) {
      v.i = I(int(h << 16u) >> 16);
    } else {
      v.is_float = true;
      v.f = F(kSrc == F16 ? half_to_float(h) : uintBitsToFloat(h << 16u));
    }
  } else if (kSrc == I32) {
    v.i = I(int(src.words[at]));
  } else if (kSrc == F32) {
    v.is_float = true;
    v.f = F(uintBitsToFloat(src.words[at]));
  }
#if defined(TP_WIDE)
  else {
    const uvec2 w = uvec2(src.words[2u * at], src.words[2u * at + 1u]);
    if (kSrc == I64) {
      v.i = int64_t(packUint2x32(w));
    } else {
      v.is_float = true;
      v.f = packDouble2x32(w);
    }
  }
#endif
  return v;
}

// Writes the low `width` bytes of `bits` into element `at` of dst (width 1, 2 or 4).
void write_bits(uint at, uint width, uint bits) {
  if (width == 4u) {
    dst.words[at] = bits;
    return;
  }
  const uint per_word = 4u / width;
  const uint shift = (at % per_word) * width * 8u;
  const uint mask = width == 1u ? 0xffu : 0xffffu;
  const uint w = at / per_word;
  atomicAnd(dst.words[w], ~(mask << shift));
  atomicOr(dst.words[w], (bits & mask) << shift);
}

// The value as a float rounded to odd where it is not exact (for the 16-bit float targets).
float to_float_odd(Value v) {
#if defined(TP_WIDE)
  if (v.is_float) {
    return double_to_float_odd(v.f);
  }
  return double_to_float_odd(int64_to_double_odd(v.i));
#else
  if (v.is_float) {
    return v.f;
  }
  const float m = uint_to_float_odd(v.i < 0 ? 0u - uint(v.i) : uint(v.i));
  return v.i < 0 ? -m : m;
#endif
}

void main() {
  const uint i = gl_GlobalInvocationID.x +
                 gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= pc.numel) {
    return;
  }
  uint o = pc.offsets[0];
  uint s = pc.offsets[1];
  uint rest = i;
  for (uint d = 0u; d < pc.ndim; ++d) {
    const uint c = d + 1u < pc.ndim ? rest % pc.sizes[d] : rest;
    rest /= pc.sizes[d];
    o += c * pc.strides[d];
    s += c * pc.strides[8u + d];
  }
  const Value v = read_src(s);
  if (kDst == BOOL) {
    const bool nonzero = v.is_float ? (isnan(v.f) || v.f != F(0)) : v.i != I(0);
    write_bits(o, 1u, nonzero ? 1u : 0u);
  } else if (kDst == U8 || kDst == I8 || kDst == I16 || kDst == I32) {
    // Floats truncate toward zero (out of range is undefined, as in C++); integers wrap.
    const I k = v.is_float ? I(v.f) : v.i;
#if defined(TP_WIDE)
    const uint bits = unpackUint2x32(uint64_t(k)).x;
#else
    const uint bits = uint(k);
#endif
    write_bits(o, width_of(kDst), bits);
  } else if (kDst == F32) {
    write_bits(o, 4u, floatBitsToUint(v.is_float ? float(v.f) : float(v.i)));
  } else if (kDst == F16) {
    write_bits(o, 2u, float_to_half(to_float_odd(v)));
  } else if (kDst == BF16) {
    write_bits(o, 2u, float_to_bfloat16(to_float_odd(v)));
  }
#if defined(TP_WIDE)
  else {
    const uvec2 w = kDst == I64 ? unpackUint2x32(uint64_t(v.is_float ? int64_t(v.f) : v.i))
                                : unpackDouble2x32(v.is_float ? v.f : double(v.i));
    dst.words[2u * o] = w.x;
    dst.words[2u * o + 1u] = w.y;
  }
#endif
}
