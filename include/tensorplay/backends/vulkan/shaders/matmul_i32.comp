// int32 matrix products (wrapping): the body is matmul_body.glsl (see there).
#version 450
#extension GL_GOOGLE_include_directive : require
#define TP_I32 1
#include "matmul_body.glsl"
