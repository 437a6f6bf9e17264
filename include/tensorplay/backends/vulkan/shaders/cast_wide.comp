// Dtype conversion between every dtype (shaderInt64, shaderFloat64): the body is
// cast_body.glsl.
#version 450
#extension GL_GOOGLE_include_directive : require
#define TP_WIDE 1
#include "cast_body.glsl"
