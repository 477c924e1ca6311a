// Smoke shader: y[i] = a[i] * scale + shift in fp64, every operation `precise` (NoContraction) so
// the device computes exactly what a CPU compiled with -ffp-contract=off computes.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer Input { double a[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Output { double y[]; };

#include "smoke_affine_params.glsl"  // params: SmokeAffineParams

void main() {
  const uint i = gl_GlobalInvocationID.x;
  if (i >= params.n) return;
  precise double product = a[i] * params.scale;
  precise double result = product + params.shift;
  y[i] = result;
}
