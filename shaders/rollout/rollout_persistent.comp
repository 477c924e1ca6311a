// Rollout, persistent: K steps y = z·A in ONE dispatch, bit for bit the contract of
// core_ref/rollout/vecmat.h ("THE CONTRACT"; docs/MATH.md §9), with a device-wide barrier between
// the steps instead of a dispatch + pipeline barrier per step.
//
// Work units. The (chunk c, output j) pairs of one step are grouped into units u = (c, t): chunk c
// (rows i ∈ [64c, min(64c + 64, D))) and column tile t (outputs j ∈ [T·t, T·t + T), T = W·R, W the
// workgroup size = specialization constant 0, R = columns per invocation = specialization constant
// 1). There are m·ceil(D/T) units, numbered u = c·tiles + t; workgroup g takes u = g, g + G, …
// (G = the number of workgroups dispatched). Per step and unit:
//   1. the 64 entries z[64c .. 64c+63] of the current state go to shared memory: at step 0 from the
//      input state, later rebuilt from the previous step's chunk partials by the contract's
//      pairwise tree (shared memory part[c'·64 + k], level by level, exactly as
//      rollout_fused.comp does with a tile of 64 outputs: the same additions, left operand the
//      lower chunk, an odd last element carried);
//   2. invocation l computes the chunk partial p_c[j] for j = T·t + l + r·W (r < R) in the
//      contract's order (acc = z[i0]·A[i0][j], then acc = acc + z[i]·A[i][j] for i in order, every
//      product rounded before the add: `precise` = NoContraction) and stores it in
//      partials[s mod 2][c][j].
// Then the device-wide barrier (below); after the last step workgroup g rebuilds the chunks
// c ≡ g (mod G) of z_K and writes them to the output state.
//
// Device-wide barrier. Workgroup barrier; invocation 0 increments the dispatch's arrival counter
// (sync[1 + slot], zeroed by the host before the submission) and spins until it reaches (s+1)·G;
// workgroup barrier (grid_barrier.glsl). The partials are `coherent` (device-scope visibility),
// written before a memoryBarrierBuffer() and read after the acquire load that saw the last
// arrival — invocation 0's, then a workgroup barrier, or on the register-resident path (below)
// each rebuilding invocation's own. This needs all G workgroups resident at once, which
// Vulkan does not promise: the host sizes G from the device's SM count (VK_NV_shader_sm_builtins)
// or uses G = 1, and the spin is bounded: after spin_limit polls a workgroup sets sync[0] = 1 and
// leaves, every other workgroup leaves as soon as it sees sync[0] ≠ 0, and the host reports the
// dispatch as failed (never a hang, never a silently wrong state).
//
// Strided loops over invocations keep a uniform counter: `for (k0 = 0; k0 < n; k0 += W) { k = k0 +
// l; … }`.
//
// Buffer double-buffering makes one barrier per step enough: step s writes partials[s mod 2] and
// reads partials[(s−1) mod 2]; a workgroup can only write partials[s mod 2] again at step s + 2,
// after barrier s + 1, by which time every workgroup has finished reading it (during step s + 1).
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_memory_scope_semantics : require
#include "float_controls.glsl"  // the execution modes of the variant built (shaders/defs.bzl)

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint kCols = 1u;     // R: outputs per invocation in a unit
layout(constant_id = 2) const uint kSlots = 64u;   // ≥ 64·m: shared doubles for the tree
// 1: each workgroup has at most one unit, R = 1 and kRegisterTreeChunks ≠ 0 (the host checks all
// three), so every invocation
// keeps its column of the unit's A block (64 doubles) in registers for the whole dispatch and
// the steps read A from memory never again.
layout(constant_id = 3) const uint kResident = 0u;
// m when the state is rebuilt in registers (m ≤ 32: invocation k < 64 loads the m partials of
// entry k and folds them by the pairwise tree in registers, no shared-memory levels), else 0.
layout(constant_id = 4) const uint kRegisterTreeChunks = 0u;
const uint kMaxRegisterTreeChunks = 32u;

#include "rollout_contract.glsl"  // kChunk, the chunk partial and the pairwise tree

layout(std430, set = 0, binding = 0) readonly buffer MatrixA { double a[]; };   // D×D
layout(std430, set = 0, binding = 1) readonly buffer StateIn { double z_in[]; };   // D
layout(std430, set = 0, binding = 2) writeonly buffer StateOut { double z_out[]; }; // D
layout(std430, set = 0, binding = 3) coherent buffer Partials { double partials[]; };  // 2·m·D
// volatile: the failure flag sync[0] is read with plain loads that always go to memory; the
// arrival counters are polled with atomic loads (grid_barrier.glsl).
layout(std430, set = 0, binding = 4) coherent volatile buffer Sync { uint sync[]; };  // [0] error

#include "rollout_persistent_params.glsl"  // RolloutPersistentPushConstants

shared double part[kSlots];
#include "grid_barrier.glsl"  // GridBarrier, AwaitArrivals and the flag grid_failed

// Entry i of the state from the m chunk partials at `base` (register tree, kRegisterTreeChunks
// = m ≤ 32): the contract's tree, level s adding position c + s into c (c ≡ 0 mod 2s, c + s < m).
double RebuildEntry(uint base, uint i) {
  const uint dim = params.dim;
  double v[kMaxRegisterTreeChunks];
  [[unroll]] for (uint cc = 0u; cc < kMaxRegisterTreeChunks; ++cc) {
    if (cc < kRegisterTreeChunks) v[cc] = partials[base + cc * dim + i];
  }
  [[unroll]] for (uint s = 1u; s < kMaxRegisterTreeChunks; s <<= 1u) {
    [[unroll]] for (uint cc = 0u; cc + s < kMaxRegisterTreeChunks; cc += 2u * s) {
      if (cc + s < kRegisterTreeChunks) {
        CONTRACT_MERGE(v[cc], v[cc], v[cc + s]);
      }
    }
  }
  return v[0];
}

// part[0..63] ← the 64 entries of chunk c of the state after `step` steps of this dispatch
// (step 0: the input state; otherwise the tree over partials[(step − 1) mod 2]). Ends with a
// workgroup barrier, so part[0..63] may be read right away. lead_barrier: first wait until every
// invocation is done reading part[] (not needed right after a device-wide barrier).
void LoadChunkState(uint c, uint step, bool lead_barrier) {
  const uint dim = params.dim;
  const uint chunks = params.chunks;
  const uint l = gl_LocalInvocationID.x;
  const uint wg = gl_WorkGroupSize.x;
  const uint i0 = c * kChunk;
  if (lead_barrier) barrier();  // earlier readers of part[] are done (uniform condition)
  if (step == 0u) {
    for (uint k0 = 0u; k0 < kChunk; k0 += wg) {
      const uint k = k0 + l;
      if (k < kChunk) part[k] = (i0 + k < dim) ? z_in[i0 + k] : 0.0LF;
    }
  } else if (kRegisterTreeChunks != 0u) {
    const uint base = ((step - 1u) & 1u) * chunks * dim;
    for (uint k0 = 0u; k0 < kChunk; k0 += wg) {
      const uint k = k0 + l;
      if (k < kChunk && i0 + k < dim) part[k] = RebuildEntry(base, i0 + k);
    }
  } else {
    const uint base = ((step - 1u) & 1u) * chunks * dim;
    for (uint q0 = 0u; q0 < chunks * kChunk; q0 += wg) {
      const uint q = q0 + l;
      if (q < chunks * kChunk) {
        const uint cc = q / kChunk;
        const uint i = i0 + (q - cc * kChunk);
        part[q] = (i < dim) ? partials[base + cc * dim + i] : 0.0LF;
      }
    }
    for (uint s = 1u; s < chunks; s <<= 1u) {
      memoryBarrierShared();
      barrier();
      const uint merges = CONTRACT_TREE_MERGES(chunks, s);
      for (uint r0 = 0u; r0 < merges * kChunk; r0 += wg) {
        const uint r = r0 + l;
        if (r < merges * kChunk) {
          const uint k = r / kChunk;
          const uint kk = r - k * kChunk;
          const uint left = CONTRACT_TREE_LEFT(k, s, kChunk, kk);
          const uint right = left + s * kChunk;
          CONTRACT_MERGE(part[left], part[left], part[right]);
        }
      }
    }
  }
  memoryBarrierShared();
  barrier();
}

void main() {
  const uint dim = params.dim;
  const uint chunks = params.chunks;
  const uint tiles = params.tiles;
  const uint units = chunks * tiles;
  const uint groups = gl_NumWorkGroups.x;
  const uint g = gl_WorkGroupID.x;
  const uint l = gl_LocalInvocationID.x;
  const uint wg = gl_WorkGroupSize.x;
  const uint tile_cols = wg * kCols;
  if (l == 0u) grid_failed = 0u;  // read after the barriers below (grid_barrier.glsl)

  if (kResident != 0u) {
    // At most one unit per workgroup (u = g), R = 1: A's column block stays in registers.
    const bool has_unit = g < units;  // uniform in the workgroup
    const uint c = has_unit ? g / tiles : 0u;
    const uint t = has_unit ? g - c * tiles : 0u;
    const uint i0 = c * kChunk;
    const uint rows = has_unit ? min(kChunk, dim - i0) : 0u;
    const uint j = t * wg + l;
    const uint jl = min(j, dim - 1u);  // clamped loads; the store is guarded
    double ar[kChunk];
    [[unroll]] for (uint k = 0u; k < kChunk; ++k) {
      ar[k] = (k < rows) ? a[(i0 + k) * dim + jl] : 0.0LF;
    }
    // The device-wide barrier and the rebuild of the next state in one: after the arrival,
    // invocations k < 64 each poll the counter themselves and, once every workgroup has
    // arrived, rebuild entry k (no workgroup barrier between the wait and the loads).
    LoadChunkState(c, 0u, false);  // z_0 from the input; ends with a barrier
    for (uint step = 0u; step < params.steps; ++step) {
      if (has_unit) {
        precise double acc = part[0] * ar[0];
        [[unroll]] for (uint k = 1u; k < kChunk; ++k) {
          if (k < rows) {  // the contract's loop stops at the end of the chunk
            CONTRACT_TERM(acc, part[k], ar[k]);
          }
        }
        if (j < dim) partials[(step & 1u) * chunks * dim + c * dim + j] = acc;
      }
      memoryBarrierBuffer();  // the partials are visible device-wide before the arrival
      barrier();              // ... and every invocation is done reading part[]
      if (l == 0u) atomicAdd(sync[1u + params.sync_slot], 1u);
      if (l < kChunk) {
        if (AwaitArrivals((step + 1u) * groups) != 0u) {
          atomicOr(grid_failed, 1u);
        } else {
          const uint base = (step & 1u) * chunks * dim;
          for (uint k = l; k < kChunk; k += wg) {
            if (i0 + k < dim) part[k] = RebuildEntry(base, i0 + k);
          }
        }
      }
      memoryBarrierShared();
      barrier();
      if (grid_failed != 0u) return;  // uniform: read after the barrier
    }
    // part[] holds z_K's chunk c; the unit with t = 0 of each chunk writes it.
    if (has_unit && t == 0u) {
      for (uint k = l; k < kChunk; k += wg) {
        if (i0 + k < dim) z_out[i0 + k] = part[k];
      }
    }
    return;
  } else {
    for (uint step = 0u; step < params.steps; ++step) {
      const uint out_base = (step & 1u) * chunks * dim;
      for (uint u = g; u < units; u += groups) {
        const uint c = u / tiles;
        const uint t = u - c * tiles;
        LoadChunkState(c, step, true);
        const uint i0 = c * kChunk;
        const uint rows = min(kChunk, dim - i0);
        const uint j_first = t * tile_cols + l;
        double acc[kCols];
        [[unroll]] for (uint r = 0u; r < kCols; ++r) {
          const uint j = min(j_first + r * wg, dim - 1u);  // clamped loads; stores are guarded
          acc[r] = part[0] * a[i0 * dim + j];
        }
        if (rows == kChunk) {
          [[unroll]] for (uint k = 1u; k < kChunk; ++k) {
            const double zk = part[k];
            [[unroll]] for (uint r = 0u; r < kCols; ++r) {
              const uint j = min(j_first + r * wg, dim - 1u);
              CONTRACT_TERM(acc[r], zk, a[(i0 + k) * dim + j]);
            }
          }
        } else {
          for (uint k = 1u; k < rows; ++k) {
            const double zk = part[k];
            [[unroll]] for (uint r = 0u; r < kCols; ++r) {
              const uint j = min(j_first + r * wg, dim - 1u);
              CONTRACT_TERM(acc[r], zk, a[(i0 + k) * dim + j]);
            }
          }
        }
        [[unroll]] for (uint r = 0u; r < kCols; ++r) {
          const uint j = j_first + r * wg;
          if (j < dim) partials[out_base + c * dim + j] = acc[r];
        }
      }
      if (!GridBarrier((step + 1u) * groups)) break;
    }
  }
  if (grid_failed != 0u) return;  // uniform: every invocation read it after the last barrier

  // z_K: workgroup g writes the chunks c ≡ g (mod G).
  for (uint c = g; c < chunks; c += groups) {
    LoadChunkState(c, params.steps, true);
    const uint i0 = c * kChunk;
    for (uint k0 = 0u; k0 < kChunk; k0 += wg) {
      const uint k = k0 + l;
      if (k < kChunk && i0 + k < dim) z_out[i0 + k] = part[k];
    }
  }
}
