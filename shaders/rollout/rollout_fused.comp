// Rollout, fused: one whole step y = z·A in ONE dispatch, bit for bit the contract of
// core_ref/rollout/vecmat.h ("THE CONTRACT"; docs/MATH.md §9), replacing the pair
// rollout_partials.comp + rollout_combine.comp (and the barrier between them).
//
// A workgroup of W invocations (specialization constant 0) owns a tile of T consecutive outputs
// j ∈ [T·g, T·g + T) (T = specialization constant 1; g = gl_WorkGroupID.x).
//   Phase 1 (chunk partials): the T·m pairs (chunk c, output j) of the tile, numbered
//     q = c·T + (j − T·g), are spread over the W invocations (q = l, l + W, …; consecutive
//     invocations take consecutive j of one chunk, so the loads of A stay coalesced). Each pair
//     computes p_c[j] exactly as rollout_partials.comp does: acc = z[i0]·A[i0][j], then
//     acc = acc + z[i]·A[i][j] for i = i0+1 .. min(i0+64, D)−1 in order, every product rounded
//     to fp64 before the add (`precise` = SPIR-V NoContraction: no FMA), the accumulator starting
//     from the first product (never from 0: 0 + (−0) = +0). p_c[j] goes to shared memory,
//     part[q].
//   Phase 2 (pairwise tree): the contract's tree literally, level by level, in shared memory:
//     after the level of stride s, part[c·T + jj] for c ≡ 0 (mod 2s) holds the sum of the block
//     of chunks [c, c + 2s) ∩ [0, m). Level s adds position c + s into position c (c ≡ 0 mod 2s,
//     lower index on the left) when c + s < m; an odd last element (c + s ≥ m) is carried
//     unchanged. That is L ← (L0+L1, L2+L3, …) on the list of the surviving positions, so the
//     additions are exactly the contract's. A workgroup barrier separates the levels.
//   Output: y[j] = part[jj] (position c = 0) for jj < T, j < D (jj = l, l + W, …: T may exceed W).
// Shared memory: T·m doubles (specialization constant 2 = kSlots ≥ T·m; the host checks it
// against maxComputeSharedMemorySize). Every barrier() is reached in uniform control flow
// (the loops depend only on push constants and specialization constants).
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_EXT_control_flow_attributes : require
#include "float_controls.glsl"  // the execution modes of the variant built (shaders/defs.bzl)

layout(local_size_x_id = 0) in;
layout(constant_id = 1) const uint kTile = 1u;   // T: outputs per workgroup
layout(constant_id = 2) const uint kSlots = 64u; // ≥ T·m: shared doubles

#include "rollout_contract.glsl"  // kChunk, the chunk partial and the pairwise tree

layout(std430, set = 0, binding = 0) readonly buffer MatrixA { double a[]; };   // D×D
layout(std430, set = 0, binding = 1) readonly buffer StateIn { double z[]; };   // D
layout(std430, set = 0, binding = 2) writeonly buffer StateOut { double y[]; }; // D

#include "rollout_params.glsl"  // RolloutPushConstants

shared double part[kSlots];

void main() {
  const uint dim = params.dim;
  const uint chunks = params.chunks;
  const uint l = gl_LocalInvocationID.x;
  const uint wg = gl_WorkGroupSize.x;
  const uint j0 = gl_WorkGroupID.x * kTile;
  const uint pairs = kTile * chunks;

  // Phase 1: chunk partials of the tile into shared memory.
  for (uint q = l; q < pairs; q += wg) {
    const uint c = q / kTile;
    const uint j = j0 + (q - c * kTile);
    if (j >= dim) continue;  // a partial tile at the end: those slots are never read
    const uint i0 = c * kChunk;
    const uint i1 = min(i0 + kChunk, dim);
    uint idx = i0 * dim + j;  // A[i0][j]; D ≤ 16384 keeps every index below 2^32
    CONTRACT_CHUNK_PARTIAL(acc, z, a, i0, i1, idx, dim);
    part[q] = acc;
  }

  // Phase 2: the pairwise tree, one level per stride s = 1, 2, 4, … < m.
  for (uint s = 1u; s < chunks; s <<= 1u) {
    memoryBarrierShared();
    barrier();
    const uint merges = CONTRACT_TREE_MERGES(chunks, s);
    for (uint r = l; r < merges * kTile; r += wg) {
      const uint k = r / kTile;
      const uint jj = r - k * kTile;
      if (j0 + jj >= dim) continue;
      const uint left = CONTRACT_TREE_LEFT(k, s, kTile, jj);
      const uint right = left + s * kTile;
      CONTRACT_MERGE(part[left], part[left], part[right]);
    }
  }
  memoryBarrierShared();
  barrier();

  for (uint jj = l; jj < kTile && j0 + jj < dim; jj += wg) y[j0 + jj] = part[jj];
}
