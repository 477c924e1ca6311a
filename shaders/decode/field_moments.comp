// The comparison of a decoded field ω̂ with its reference ω (docs/MATH.md §11.4, device metrics):
// per workgroup, six partial sums over the cells in a fixed order — Σ(ω̂−ω)², Σω², Σω̂², Σω̂ω,
// Σω̂, Σω — written to partials[group·6 + m]; sum_partials.comp adds the groups. Each invocation
// adds its grid-stride cells in increasing index, then the workgroup adds the 256 invocations'
// sums by a fixed binary tree, so the result depends only on N and the group count, never on
// scheduling. Every product and sum is `precise` (no contraction).
// Bindings: 0 ω̂, 1 ω (fp64, N² each), 2 partials (fp64, groups·6). Push constants: CountParams.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require

layout(local_size_x = 256) in;

layout(std430, set = 0, binding = 0) readonly buffer Decoded { double decoded[]; };
layout(std430, set = 0, binding = 1) readonly buffer Reference { double reference[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Partials { double partials[]; };

#include "count_params.glsl"  // CountParams

const uint kMoments = 6;
shared double sums[kMoments][256];

void main() {
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  precise double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0, s4 = 0.0, s5 = 0.0;
  for (uint i = gl_GlobalInvocationID.x; i < params.count; i += stride) {
    const double d = decoded[i], r = reference[i];
    precise double e = d - r;
    precise double ee = e * e;
    precise double rr = r * r;
    precise double dd = d * d;
    precise double dr = d * r;
    s0 = s0 + ee;
    s1 = s1 + rr;
    s2 = s2 + dd;
    s3 = s3 + dr;
    s4 = s4 + d;
    s5 = s5 + r;
  }
  const uint l = gl_LocalInvocationID.x;
  sums[0][l] = s0;
  sums[1][l] = s1;
  sums[2][l] = s2;
  sums[3][l] = s3;
  sums[4][l] = s4;
  sums[5][l] = s5;
  barrier();
  for (uint half_width = 128; half_width > 0; half_width >>= 1) {
    if (l < half_width) {
      for (uint m = 0; m < kMoments; ++m) {
        precise double t = sums[m][l] + sums[m][l + half_width];
        sums[m][l] = t;
      }
    }
    barrier();
  }
  if (l == 0) {
    for (uint m = 0; m < kMoments; ++m) partials[gl_WorkGroupID.x * kMoments + m] = sums[m][0];
  }
}
