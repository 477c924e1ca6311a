// PDA admissibility threshold P_tau (docs/MATH.md §1.2), one invocation per cell:
//   out = +1 if x >= tau, -1 if x <= -tau, 0 otherwise
// — the twin of core_ref PdaThresholdValue (carrier_pda_value.glsl).
#version 450
#extension GL_ARB_gpu_shader_fp64 : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer Field { double field[]; };
layout(std430, set = 0, binding = 1) writeonly buffer Out { int cells[]; };

#include "carrier_pda_params.glsl"  // CarrierPdaParams
#include "carrier_pda_value.glsl"   // PdaValue

void main() {
  // 2-D dispatch of a 1-D range (the x group count is capped at 65535).
  const uint k =
      gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (k >= p.n) return;
  cells[k] = PdaValue(field[k], p.tau);
}
