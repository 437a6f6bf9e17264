// The offsets of invocation i's operands (output, inputs) in a pointwise iteration space, for
// pointwise.comp and pointwise_typed.glsl, whose push constants `pc` both hold numel, ndim,
// flags, offsets[4], sizes[4] and strides[16] (see there).
void operand_offsets(uint i, out uint at[4]) {
  at = uint[4](pc.offsets[0], pc.offsets[1], pc.offsets[2], pc.offsets[3]);
  // The coordinates of i, dimension 0 fastest; the outermost needs no division (nor does a
  // single dimension: the common, coalesced case).
  uint rest = i;
  for (uint d = 0u; d + 1u < pc.ndim; ++d) {
    const uint c = rest % pc.sizes[d];
    rest /= pc.sizes[d];
    for (uint k = 0u; k < 4u; ++k) {
      at[k] += c * pc.strides[4u * k + d];
    }
  }
  if (pc.ndim > 0u) {
    for (uint k = 0u; k < 4u; ++k) {
      at[k] += rest * pc.strides[4u * k + pc.ndim - 1u];
    }
  }
}
