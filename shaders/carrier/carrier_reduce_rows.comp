// Adds the per-row partials in increasing i, in ONE invocation (docs/MATH.md §1.2: "then the row
// sums added in increasing i"), and writes one Totals record at `slot`:
//   sum    = Σ_i rows[i].sum from 0.0, `precise`, in increasing i
//   maxabs = max_i rows[i].maxabs                 (order-independent)
//   c0, c1 = Σ_i rows[i].c0, Σ_i rows[i].c1       (exact integers)
//   mean   = sum / double(c0) when flag != 0 and c0 > 0, else 0.0   (the closure's mean |field|)
// Dispatched as one workgroup; every invocation but the first returns at once.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_ARB_gpu_shader_int64 : require

layout(local_size_x_id = 0) in;

#include "carrier_row_partial.glsl"  // CarrierRowPartial
layout(std430, set = 0, binding = 0) readonly buffer Rows { RowPartial rows_in[]; };

#include "carrier_totals.glsl"  // CarrierTotals
layout(std430, set = 0, binding = 1) buffer Out { Totals totals[]; };

#include "carrier_reduce_params.glsl"  // CarrierReduceParams

void main() {
  if (gl_GlobalInvocationID.x != 0u || gl_GlobalInvocationID.y != 0u) return;
  precise double sum = 0.0;
  double m = 0.0;
  uint64_t c0 = 0ul;
  uint64_t c1 = 0ul;
  for (uint i = 0u; i < p.rows; ++i) {
    const RowPartial r = rows_in[i];
    sum = sum + r.sum;
    if (r.maxabs > m) m = r.maxabs;
    c0 += r.c0;
    c1 += r.c1;
  }
  precise double mean = 0.0;
  if (p.flag != 0u && c0 > 0ul) mean = sum / double(c0);
  totals[p.slot].sum = sum;
  totals[p.slot].maxabs = m;
  totals[p.slot].mean = mean;
  totals[p.slot].c0 = c0;
  totals[p.slot].c1 = c1;
}
