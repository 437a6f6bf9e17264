// Dtype conversion between the dtypes of 32 bits and less: the body is cast_body.glsl.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "cast_body.glsl"
