// Per-row partial of the defect D(s) (docs/MATH.md §1.3), one invocation per row i: the forward
// edges of every cell of the row, with multiplicity, indices mod (R, C):
//   4-neighbourhood (flag 0): (i, j)->(i, j+1), (i, j)->(i+1, j)
//   8-neighbourhood (flag 1): those and (i, j)->(i+1, j+1), (i, j)->(i+1, j-1)
// c0 = #{edges with s(x)·s(y) = -1}, an exact integer. carrier_reduce_rows.comp adds the rows.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_ARB_gpu_shader_int64 : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer In { int cells[]; };

#include "carrier_row_partial.glsl"  // CarrierRowPartial
layout(std430, set = 0, binding = 1) writeonly buffer Rows { RowPartial rows_out[]; };

// params: flag = 1 for the 8-neighbourhood.
#include "carrier_row_params.glsl"  // CarrierRowParams

void main() {
  const uint i =
      gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= p.rows) return;
  const uint c = p.cols;
  const uint base = i * c;
  const uint down = ((i + 1u == p.rows) ? 0u : i + 1u) * c;
  uint64_t d = 0ul;
  for (uint j = 0u; j < c; ++j) {
    const int v = cells[base + j];
    if (v == 0) continue;
    const uint right = (j + 1u == c) ? 0u : j + 1u;
    if (v * cells[base + right] == -1) d += 1ul;
    if (v * cells[down + j] == -1) d += 1ul;
    if (p.flag != 0u) {
      const uint left = (j == 0u) ? c - 1u : j - 1u;
      if (v * cells[down + right] == -1) d += 1ul;
      if (v * cells[down + left] == -1) d += 1ul;
    }
  }
  RowPartial r;
  r.sum = 0.0;
  r.maxabs = 0.0;
  r.c0 = d;
  r.c1 = 0ul;
  rows_out[i] = r;
}
