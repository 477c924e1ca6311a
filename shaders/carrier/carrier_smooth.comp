// One pass of the separable periodic smoothing (docs/MATH.md §1.2), one invocation per cell: the
// operation sequence of core_ref Smooth is in carrier_smooth_cell.glsl (SmoothCell).
#version 450
#extension GL_ARB_gpu_shader_fp64 : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer In { double in_values[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { double out_values[]; };

#include "carrier_smooth_params.glsl"  // CarrierSmoothParams
#include "carrier_smooth_cell.glsl"    // SmoothCell

void main() {
  const uint n = p.rows * p.cols;
  const uint k =
      gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (k >= n) return;
  out_values[k] = SmoothCell(k);
}
