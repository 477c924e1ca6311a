// Per-row partials of the closure level statistics (docs/MATH.md §1.2), one invocation per row i,
// walking j = 0, 1, ..., C-1 in increasing order:
//   c0  = #{j : cur(i, j) != 0}                      (active cells, exact)
//   c1  = #{j : cur(i, j) != prev(i, j)}             (cells changed by the last step, exact)
//   sum = Σ |field(i, j)| over the active cells, accumulated from 0.0 in increasing j, `precise`
//         (exactly core_ref ComputeLevelStats' inner loop; skipped cells add nothing)
// carrier_reduce_rows.comp then adds the rows in increasing i.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_ARB_gpu_shader_int64 : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer Prev { int prev[]; };
layout(std430, set = 0, binding = 1) readonly buffer Cur { int cur[]; };
layout(std430, set = 0, binding = 2) readonly buffer Field { double field[]; };

#include "carrier_row_partial.glsl"  // CarrierRowPartial
layout(std430, set = 0, binding = 3) writeonly buffer Rows { RowPartial rows_out[]; };

// params: flag = 1 when a field is bound (else `field` is a dummy).
#include "carrier_row_params.glsl"  // CarrierRowParams

void main() {
  const uint i =
      gl_GlobalInvocationID.x + gl_GlobalInvocationID.y * gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  if (i >= p.rows) return;
  const uint base = i * p.cols;
  precise double sum = 0.0;
  uint64_t n_active = 0ul;
  uint64_t changed = 0ul;
  for (uint j = 0u; j < p.cols; ++j) {
    const int v = cur[base + j];
    if (v != prev[base + j]) changed += 1ul;
    if (v == 0) continue;
    n_active += 1ul;
    if (p.flag != 0u) {
      precise double a = abs(field[base + j]);
      sum = sum + a;
    }
  }
  RowPartial r;
  r.sum = sum;
  r.maxabs = 0.0;
  r.c0 = n_active;
  r.c1 = changed;
  rows_out[i] = r;
}
