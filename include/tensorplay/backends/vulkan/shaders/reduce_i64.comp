// int64 row reductions: the body is reduce_body.glsl (see there).
#version 450
#extension GL_GOOGLE_include_directive : require
#define TP_I64 1
#include "reduce_body.glsl"
