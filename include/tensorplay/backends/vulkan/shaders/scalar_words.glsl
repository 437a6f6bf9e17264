// The element type T of the typed shaders (pointwise_typed.glsl, reduce_body.glsl), chosen by
// the including .comp file: int64 (TP_I64), float64 (TP_F64), int32 (TP_I32) or float32 (none).
// Buffers are arrays of 32-bit words; a 64-bit element is two of them, low word first (WORDS
// per element): from_words and to_words convert.
#if defined(TP_I64)
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#define T int64_t
const uint WORDS = 2u;
T from_words(uint lo, uint hi) {
  return int64_t(packUint2x32(uvec2(lo, hi)));
}
uvec2 to_words(T v) {
  return unpackUint2x32(uint64_t(v));
}
#elif defined(TP_F64)
#define T double
const uint WORDS = 2u;
T from_words(uint lo, uint hi) {
  return packDouble2x32(uvec2(lo, hi));
}
uvec2 to_words(T v) {
  return unpackDouble2x32(v);
}
#elif defined(TP_I32)
#define T int
const uint WORDS = 1u;
T from_words(uint lo, uint hi) {
  return int(lo);
}
uvec2 to_words(T v) {
  return uvec2(uint(v), 0u);
}
#else
#define T float
const uint WORDS = 1u;
T from_words(uint lo, uint hi) {
  return uintBitsToFloat(lo);
}
uvec2 to_words(T v) {
  return uvec2(floatBitsToUint(v), 0u);
}
#endif
