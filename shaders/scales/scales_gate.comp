// The floor of a layer (core_ref BuildScaleTower): a band whose max |b| is below
// relative_floor · max |ω| is empty, so its carrier s_0 is zeroed (the twin of thresholding an
// all-zero field). Reads records[slot].max_abs and records[field_slot].max_abs (copied there from
// the carrier kernels' normalise record); invocation 0 writes records[slot].below_floor.
// Bindings: 0 the layer records, 1 s_0 (int32). Push constants: ScalesGateParams.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_ARB_gpu_shader_int64 : require

layout(local_size_x_id = 0) in;

#include "scale_layer_record.glsl"  // ScaleLayerRecord
layout(std430, set = 0, binding = 0) buffer Records { LayerRecord records[]; };
layout(std430, set = 0, binding = 1) buffer Carrier { int s0[]; };

#include "scales_gate_params.glsl"  // ScalesGateParams

void main() {
  precise double limit = p.relative_floor * records[p.field_slot].max_abs;
  const bool below = records[p.slot].max_abs < limit;
  const uint stride = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (gl_GlobalInvocationID.x == 0u) records[p.slot].below_floor = below ? 1ul : 0ul;
  if (!below) return;
  for (uint k = gl_GlobalInvocationID.x; k < p.cells; k += stride) s0[k] = 0;
}
