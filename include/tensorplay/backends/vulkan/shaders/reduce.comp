// float32 row reductions: the body is reduce_body.glsl (see there).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "reduce_body.glsl"
