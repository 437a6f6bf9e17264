// int64 elementwise ops: the body is pointwise_typed.glsl (see there).
#version 450
#extension GL_GOOGLE_include_directive : require
#define TP_I64 1
#include "pointwise_typed.glsl"
