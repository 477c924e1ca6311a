// Adds per-workgroup partial sums, in one workgroup: out[m] = Σ_g partials[g·moments + m] for
// m < moments, each invocation adding groups l, l + 256, … in increasing order, then a fixed
// binary tree over the 256 invocations (the order docs/MATH.md §11.4 states). `precise` sums.
// Bindings: 0 partials (fp64, groups·moments), 1 out (fp64, moments).
// Push constants: SumPartialsParams.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require

layout(local_size_x = 256) in;

layout(std430, set = 0, binding = 0) readonly buffer Partials { double partials[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { double result[]; };

#include "sum_partials_params.glsl"  // SumPartialsParams

shared double sums[256];

void main() {
  const uint l = gl_LocalInvocationID.x;
  for (uint m = 0; m < params.moments; ++m) {
    precise double s = 0.0;
    for (uint g = l; g < params.groups; g += 256) s = s + partials[g * params.moments + m];
    sums[l] = s;
    barrier();
    for (uint half_width = 128; half_width > 0; half_width >>= 1) {
      if (l < half_width) {
        precise double t = sums[l] + sums[l + half_width];
        sums[l] = t;
      }
      barrier();
    }
    if (l == 0) result[m] = sums[0];
    barrier();
  }
}
