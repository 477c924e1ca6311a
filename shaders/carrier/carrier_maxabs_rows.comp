// Per-row max |x| of a real field, one invocation per row. max is exact and order-independent
// (no rounding; the field is finite), so any order gives the value core_ref's fmax loop gives.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_ARB_gpu_shader_int64 : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer Field { double field[]; };

#include "carrier_row_partial.glsl"  // CarrierRowPartial
layout(std430, set = 0, binding = 1) writeonly buffer Rows { RowPartial rows_out[]; };

// params: flag unused.
#include "carrier_row_params.glsl"  // CarrierRowParams

void main() {
  const uint i =
      gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= p.rows) return;
  const uint base = i * p.cols;
  double m = 0.0;
  for (uint j = 0u; j < p.cols; ++j) {
    const double a = abs(field[base + j]);
    if (a > m) m = a;
  }
  RowPartial r;
  r.sum = 0.0;
  r.maxabs = m;
  r.c0 = 0ul;
  r.c1 = 0ul;
  rows_out[i] = r;
}
