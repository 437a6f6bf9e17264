// float64 elementwise ops: the body is pointwise_typed.glsl (see there).
#version 450
#extension GL_GOOGLE_include_directive : require
#define TP_F64 1
#include "pointwise_typed.glsl"
