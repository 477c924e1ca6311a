// Accuracy probe of the fp64 sin/cos (trig_f64.glsl): out[2i] = sin(x[i]), out[2i+1] = cos(x[i]).
// Bindings: 0 x (double), 1 out (double). Push constants: CountParams.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_ARB_gpu_shader_int64 : require
#include "trig_f64.glsl"

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer X { double x[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { double sc[]; };

#include "count_params.glsl"  // CountParams

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i >= params.count) return;
  double s, c;
  SinCosF64(x[i], s, c);
  sc[2u * i] = s;
  sc[2u * i + 1u] = c;
}
