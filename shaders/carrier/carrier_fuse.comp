// K-channel majority fusion (docs/MATH.md §1.2), one invocation per cell, over a chunk of
// `channels` channel-major channels (channel c's cells at [c·n, c·n + n)):
//   sum(x) (+)= Σ_c s_c(x)            (exact int32; `first` starts from 0, else adds to sum)
//   last:  out(x) = sign(sum(x)), a tie (0) gives 0
// A value outside {-1, 0, +1} sets bit 0 of totals[slot].flags (the host reports it as
// INVALID_ARGUMENT, as core_ref FuseMajority does).
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_ARB_gpu_shader_int64 : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer Channels { int channel_cells[]; };
layout(std430, set = 0, binding = 1) buffer Sum { int sum[]; };
layout(std430, set = 0, binding = 2) writeonly buffer Out { int out_cells[]; };

#include "carrier_totals.glsl"  // CarrierTotals
layout(std430, set = 0, binding = 3) buffer Tot { Totals totals[]; };

#include "carrier_fuse_params.glsl"  // CarrierFuseParams

void main() {
  const uint x =
      gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (x >= p.n) return;
  int s = (p.first != 0u) ? 0 : sum[x];
  bool bad = false;
  for (uint c = 0u; c < p.channels; ++c) {
    const int v = channel_cells[c * p.n + x];
    if (v < -1 || v > 1) bad = true;
    s += v;
  }
  if (bad) atomicOr(totals[p.slot].flags, kTotalsFlagBadFusionValue);
  if (p.last != 0u) {
    out_cells[x] = (s > 0) ? 1 : ((s < 0) ? -1 : 0);
  } else {
    sum[x] = s;
  }
}
