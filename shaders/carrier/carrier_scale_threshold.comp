// NormalizeByMaxAbs's second step and the PDA threshold in one pass (one invocation per cell):
// y = x / m with m = max|x| (from carrier_reduce_rows.comp's Totals at `slot`; an all-zero field,
// m = 0, is copied), written out, and P_tau(y) written to the carrier — exactly carrier_scale.comp
// followed by carrier_pda.comp, one barrier and one read of y fewer.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_ARB_gpu_shader_int64 : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer In { double in_values[]; };

#include "carrier_totals.glsl"  // CarrierTotals
layout(std430, set = 0, binding = 1) readonly buffer Tot { Totals totals[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { double out_values[]; };
layout(std430, set = 0, binding = 3) writeonly buffer Cells { int cells[]; };

#include "carrier_scale_threshold_params.glsl"  // CarrierScaleThresholdParams
#include "carrier_pda_value.glsl"               // PdaValue

void main() {
  // 2-D dispatch of a 1-D range (the x group count is capped at 65535).
  const uint k =
      gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (k >= p.n) return;
  const double m = totals[p.slot].maxabs;
  const double x = in_values[k];
  precise double y = x / m;
  const double v = (m > 0.0) ? y : x;
  out_values[k] = v;
  cells[k] = PdaValue(v, p.tau);
}
