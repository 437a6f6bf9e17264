// float64 softmax and log_softmax (shaderFloat64): the body is softmax_body.glsl (see there).
#version 450
#extension GL_GOOGLE_include_directive : require
#define TP_F64 1
#include "softmax_body.glsl"
