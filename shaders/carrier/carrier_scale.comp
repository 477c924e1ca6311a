// NormalizeByMaxAbs, second step: out = x / m with m = max|x| (from carrier_reduce_rows.comp's
// Totals at `slot`), one `precise` division per cell; an all-zero field (m = 0) is copied.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_ARB_gpu_shader_int64 : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer In { double in_values[]; };

#include "carrier_totals.glsl"  // CarrierTotals
layout(std430, set = 0, binding = 1) readonly buffer Tot { Totals totals[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { double out_values[]; };

#include "carrier_scale_params.glsl"  // CarrierScaleParams

void main() {
  const uint k =
      gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (k >= p.n) return;
  const double m = totals[p.slot].maxabs;
  const double x = in_values[k];
  precise double y = x / m;
  out_values[k] = (m > 0.0) ? y : x;
}
