// Adds the per-row partials in increasing i (docs/MATH.md §1.2: "then the row sums added in
// increasing i") and writes one Totals record at `slot`:
//   sum    = Σ_i rows[i].sum from 0.0, `precise`, in increasing i, by invocation 0
//   maxabs = max_i rows[i].maxabs                 (order-independent)
//   c0, c1 = Σ_i rows[i].c0, Σ_i rows[i].c1       (exact integers, any order)
//   mean   = sum / double(c0) when flag != 0 and c0 > 0, else 0.0   (the closure's mean |field|)
// Dispatched as ONE workgroup of w invocations: the partials are read in chunks of w rows
// (coalesced), each chunk's sums staged in shared memory for invocation 0's sequential sum; the
// maxima and counts are folded per invocation, then by invocation 0.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_ARB_gpu_shader_int64 : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;

#include "carrier_row_partial.glsl"  // CarrierRowPartial
layout(std430, set = 0, binding = 0) readonly buffer Rows { RowPartial rows_in[]; };

#include "carrier_totals.glsl"  // CarrierTotals
layout(std430, set = 0, binding = 1) buffer Out { Totals totals[]; };

#include "carrier_reduce_params.glsl"  // CarrierReduceParams

shared double chunk_sum[gl_WorkGroupSize.x];
shared double part_max[gl_WorkGroupSize.x];
shared uint64_t part_c0[gl_WorkGroupSize.x];
shared uint64_t part_c1[gl_WorkGroupSize.x];

void main() {
  if (gl_WorkGroupID.x != 0u || gl_WorkGroupID.y != 0u) return;  // one workgroup does it all
  const uint t = gl_LocalInvocationID.x;
  const uint w = gl_WorkGroupSize.x;
  precise double sum = 0.0;  // invocation 0's
  double m = 0.0;
  uint64_t c0 = 0ul;
  uint64_t c1 = 0ul;
  for (uint i0 = 0u; i0 < p.rows; i0 += w) {
    const uint i = i0 + t;
    if (i < p.rows) {
      const RowPartial r = rows_in[i];
      chunk_sum[t] = r.sum;
      if (r.maxabs > m) m = r.maxabs;
      c0 += r.c0;
      c1 += r.c1;
    }
    barrier();
    if (t == 0u) {
      const uint n = min(w, p.rows - i0);
      // Eight partials read at a time, then added in increasing i (the same chain of additions).
      uint k = 0u;
      for (; k + 8u <= n; k += 8u) {
        double r8[8];
        [[unroll]] for (uint q = 0u; q < 8u; ++q) r8[q] = chunk_sum[k + q];
        [[unroll]] for (uint q = 0u; q < 8u; ++q) sum = sum + r8[q];
      }
      for (; k < n; ++k) sum = sum + chunk_sum[k];
    }
    barrier();
  }
  part_max[t] = m;
  part_c0[t] = c0;
  part_c1[t] = c1;
  barrier();
  if (t != 0u) return;
  for (uint k = 1u; k < w; ++k) {
    if (part_max[k] > m) m = part_max[k];
    c0 += part_c0[k];
    c1 += part_c1[k];
  }
  precise double mean = 0.0;
  if (p.flag != 0u && c0 > 0ul) mean = sum / double(c0);
  totals[p.slot].sum = sum;
  totals[p.slot].maxabs = m;
  totals[p.slot].mean = mean;
  totals[p.slot].c0 = c0;
  totals[p.slot].c1 = c1;
}
