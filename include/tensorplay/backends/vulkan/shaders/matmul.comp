// float32 matrix products: the body is matmul_body.glsl (see there).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "matmul_body.glsl"
