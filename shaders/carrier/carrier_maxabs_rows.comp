// Per-row max |x| of a real field, ONE WORKGROUP per row (row = the flattened workgroup index):
// invocation t takes the max over columns t, t + w, t + 2w, ... (coalesced loads across the
// workgroup), then invocation 0 the max of the w partials. max is exact and order-independent (no
// rounding; the field is finite), so any order gives the value core_ref's fmax loop gives.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_ARB_gpu_shader_int64 : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer Field { double field[]; };

#include "carrier_row_partial.glsl"  // CarrierRowPartial
layout(std430, set = 0, binding = 1) writeonly buffer Rows { RowPartial rows_out[]; };

// params: flag unused.
#include "carrier_row_params.glsl"  // CarrierRowParams

shared double partial[gl_WorkGroupSize.x];

void main() {
  const uint i = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  if (i >= p.rows) return;  // the whole workgroup: barrier() below stays in uniform control flow
  const uint t = gl_LocalInvocationID.x;
  const uint base = i * p.cols;
  double m = 0.0;
  for (uint j = t; j < p.cols; j += gl_WorkGroupSize.x) {
    const double a = abs(field[base + j]);
    if (a > m) m = a;
  }
  partial[t] = m;
  barrier();
  if (t != 0u) return;
  for (uint k = 1u; k < gl_WorkGroupSize.x; ++k) {
    if (partial[k] > m) m = partial[k];
  }
  RowPartial r;
  r.sum = 0.0;
  r.maxabs = m;
  r.c0 = 0ul;
  r.c1 = 0ul;
  rows_out[i] = r;
}
