// int64 matrix products (wrapping; shaderInt64): the body is matmul_body.glsl (see there).
#version 450
#extension GL_GOOGLE_include_directive : require
#define TP_I64 1
#include "matmul_body.glsl"
