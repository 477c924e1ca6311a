// The strip-tiled closure's statistics and control after each step (ClosureDispatch::kStrips,
// accel_vulkan/carrier/carrier_closure.h), ONE workgroup: carrier_reduce_rows then
// carrier_closure_control in one dispatch.
//   reduce   the per-row partials of carrier_closure_strip.comp into levels[slot]: sum = Σ_i
//            rows[i].sum from 0.0, `precise`, in increasing i by invocation 0 (docs/MATH.md §1.2:
//            "then the row sums added in increasing i"), from chunks of w rows staged in shared
//            memory; c0, c1 = the exact integer totals (any order); mean = sum / c0 when a field
//            is bound and c0 > 0, else 0; maxabs = 0;
//   control  as carrier_closure_control.comp: a step that changed nothing converges, a changing
//            step below the cap deepens, the cap's check step ends it; once finished the dispatch
//            arguments are zeroed (the later strip dispatches then return at once).
// A step recorded after the closure finished (ctl.converged, or ctl.steps != step) returns before
// writing anything: its statistics slot keeps the bits RecordStart filled it with.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_ARB_gpu_shader_int64 : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;

#include "carrier_row_partial.glsl"  // CarrierRowPartial
layout(std430, set = 0, binding = 0) readonly buffer Rows { RowPartial rows_in[]; };

#include "carrier_totals.glsl"  // CarrierTotals
layout(std430, set = 0, binding = 1) buffer Levels { Totals levels[]; };

// Mirrored by CarrierClosureControl.
layout(std430, set = 0, binding = 2) buffer Control {
  uint depth;
  uint converged;
  uint steps;
  uint pad;
  uvec4 args[3];  // (x, y, z, pad) per kClosureArgs*
} ctl;

#include "carrier_closure_reduce_params.glsl"  // CarrierClosureReduceParams

shared double chunk_sum[gl_WorkGroupSize.x];
shared uint64_t part_c0[gl_WorkGroupSize.x];
shared uint64_t part_c1[gl_WorkGroupSize.x];

void main() {
  if (gl_WorkGroupID.x != 0u || gl_WorkGroupID.y != 0u) return;  // one workgroup does it all
  // Read by every invocation before invocation 0 writes the record (after the barriers below).
  if (ctl.converged != 0u || ctl.steps != p.step) return;
  const uint t = gl_LocalInvocationID.x;
  const uint w = gl_WorkGroupSize.x;
  precise double sum = 0.0;  // invocation 0's
  uint64_t c0 = 0ul;
  uint64_t c1 = 0ul;
  for (uint i0 = 0u; i0 < p.rows; i0 += w) {
    const uint i = i0 + t;
    if (i < p.rows) {
      const RowPartial r = rows_in[i];
      chunk_sum[t] = r.sum;
      c0 += r.c0;
      c1 += r.c1;
    }
    barrier();
    if (t == 0u && p.has_field != 0u) {
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
  part_c0[t] = c0;
  part_c1[t] = c1;
  barrier();
  if (t != 0u) return;
  for (uint k = 1u; k < w; ++k) {
    c0 += part_c0[k];
    c1 += part_c1[k];
  }
  precise double mean = 0.0;
  if (p.has_field != 0u && c0 > 0ul) mean = sum / double(c0);
  levels[p.slot].sum = sum;
  levels[p.slot].maxabs = 0.0;
  levels[p.slot].mean = mean;
  levels[p.slot].c0 = c0;
  levels[p.slot].c1 = c1;

  ctl.steps = p.step + 1u;
  const bool changed = c1 != 0ul;
  if (!changed) {
    ctl.converged = 1u;
  } else if (p.step < p.max_iterations) {
    ctl.depth += 1u;
  }
  if (!changed || p.step >= p.max_iterations) {
    for (uint a = 0u; a < 3u; ++a) ctl.args[a].x = 0u;
  }
}
