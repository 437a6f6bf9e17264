// float32 softmax and log_softmax: the body is softmax_body.glsl (see there).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "softmax_body.glsl"
