// Per-row partials of the closure level statistics (docs/MATH.md §1.2), ONE WORKGROUP per row i
// (i = the flattened workgroup index), the row taken in chunks of w = gl_WorkGroupSize.x columns:
//   c0  = #{j : cur(i, j) != 0}                      (active cells, exact)
//   c1  = #{j : cur(i, j) != prev(i, j)}             (cells changed by the last step, exact)
//   sum = Σ |field(i, j)| over the active cells, accumulated from 0.0 in increasing j, `precise`
//         (exactly core_ref ComputeLevelStats' inner loop; skipped cells add nothing)
// Invocation t loads column j = chunk + t (coalesced) and counts its cells; the chunk's |field|
// values of active cells go to shared memory, and invocation 0 adds them in increasing j — one
// sequential sum per row, as the reference, without a strided global load per addition. The
// counts are summed in any order (integers). carrier_reduce_rows.comp then adds the rows in
// increasing i.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_ARB_gpu_shader_int64 : require
#extension GL_EXT_control_flow_attributes : require

layout(local_size_x_id = 0) in;

layout(std430, set = 0, binding = 0) readonly buffer Prev { int prev[]; };
layout(std430, set = 0, binding = 1) readonly buffer Cur { int cur[]; };
layout(std430, set = 0, binding = 2) readonly buffer Field { double field[]; };

#include "carrier_row_partial.glsl"  // CarrierRowPartial
layout(std430, set = 0, binding = 3) writeonly buffer Rows { RowPartial rows_out[]; };

// params: flag = 1 when a field is bound (else `field` is a dummy).
#include "carrier_row_params.glsl"  // CarrierRowParams

shared double chunk_abs[gl_WorkGroupSize.x];
shared uint chunk_active[gl_WorkGroupSize.x];
shared uint active_total;
shared uint changed_total;

void main() {
  const uint i = gl_WorkGroupID.x + gl_WorkGroupID.y * gl_NumWorkGroups.x;
  if (i >= p.rows) return;  // the whole workgroup: its barriers stay in uniform control flow
  const uint t = gl_LocalInvocationID.x;
  const uint w = gl_WorkGroupSize.x;
  const uint base = i * p.cols;
  if (t == 0u) {
    active_total = 0u;
    changed_total = 0u;
  }
  precise double sum = 0.0;  // invocation 0's
  uint n_active = 0u;
  uint changed = 0u;
  for (uint j0 = 0u; j0 < p.cols; j0 += w) {
    const uint j = j0 + t;
    uint is_active = 0u;
    double a = 0.0;
    if (j < p.cols) {
      const int v = cur[base + j];
      if (v != prev[base + j]) changed += 1u;
      if (v != 0) {
        is_active = 1u;
        n_active += 1u;
        if (p.flag != 0u) a = abs(field[base + j]);
      }
    }
    chunk_abs[t] = a;
    chunk_active[t] = is_active;
    barrier();
    if (t == 0u && p.flag != 0u) {
      const uint n = min(w, p.cols - j0);
      // Eight cells read at a time (independent shared loads), then added in increasing j: the
      // same additions in the same order as one at a time.
      uint k = 0u;
      for (; k + 8u <= n; k += 8u) {
        double a8[8];
        uint m8[8];
        [[unroll]] for (uint q = 0u; q < 8u; ++q) {
          a8[q] = chunk_abs[k + q];
          m8[q] = chunk_active[k + q];
        }
        [[unroll]] for (uint q = 0u; q < 8u; ++q) {
          if (m8[q] != 0u) sum = sum + a8[q];
        }
      }
      for (; k < n; ++k) {
        if (chunk_active[k] != 0u) sum = sum + chunk_abs[k];
      }
    }
    barrier();
  }
  atomicAdd(active_total, n_active);
  atomicAdd(changed_total, changed);
  barrier();
  if (t != 0u) return;
  RowPartial r;
  r.sum = sum;
  r.maxabs = 0.0;
  r.c0 = uint64_t(active_total);
  r.c1 = uint64_t(changed_total);
  rows_out[i] = r;
}
