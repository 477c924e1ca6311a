// Batched rollout: one step Y = Z·A for B trajectories at once (Z: B×D row-major, A: D×D
// row-major), every element Y[b][j] bit for bit the contract of core_ref/rollout/vecmat.h ("THE
// CONTRACT"; docs/MATH.md §9) applied to row b of Z, i.e. what rollout_fused.comp computes for a
// single trajectory. The host is accel_vulkan/batched/vulkan_batched_rollout.h. This file holds
// the bindings, the K blocks' combine (phases 1, 2) and main(); the tiled GEMM described below is
// in batched_tile_core.glsl, which batched_tiled_persistent.comp shares (many steps a dispatch).
//
// Tiled GEMM. A workgroup of TX × TY invocations (specialization constants 0, 1) owns a tile of
// TM = TY·RM rows b and TN = TX·RN columns j (RM, RN: constants 2, 3). Invocation (tx, ty) owns the
// RM × RN outputs b = b0 + ty + r·TY, j = j0 + tx + n·TX (strided, so that the invocations of a
// warp read consecutive doubles of a staged row of A and few distinct doubles of Z).
//   The i axis is walked in slices of TK (constant 4, a divisor of 64, so no slice straddles two
//   chunks). Each slice of Z (TM × TK) and of A (TK × TN) is staged through shared memory, double
//   buffered: while the workgroup computes on one stage, every invocation holds its share of the
//   next slice in registers and stores it into the other stage afterwards (one barrier a slice).
//   Chunk partial p_c[b][j]: in registers, in the contract's order: the first product of the
//   chunk is assigned (acc = z[i0]·A[i0][j], never 0 + product: 0 + (−0) would be +0), each later
//   one added in increasing i (acc = acc + z[i]·A[i][j]); every product is rounded to fp64 before
//   the addition (`precise` = SPIR-V NoContraction: no FMA). A last, partial chunk stops at D:
//   nothing is added for i ≥ D (not even a zero: +0 added to −0 would change the sign).
//   Pairwise tree: evaluated as a binary counter in registers, the scheme of core_ref's fast
//   kernel and of rollout_combine.comp, which forms exactly the contract's additions. Slot k holds
//   the sum of an aligned block of 2^k chunks while bit k of the number of chunks finished so far
//   is set. A new partial p_c (c chunks finished before it) is carried upwards: at each level k
//   where bit k of c is set, carry = slot[k] + carry (the earlier, lower-indexed block on the
//   left); at the first clear bit it is stored. After all m chunks the slots of the set bits of m
//   hold the blocks of m's binary expansion, earliest in the highest slot, and the contract's tree
//   adds them right to left: y = slot[k_top] + (… + (slot[k_1] + slot[k_0])). The last chunk's
//   carry stops at bit k_0 (the lowest set bit of m: m−1's trailing ones are the merges) and is
//   kept in the accumulators instead of being stored, so it starts that fold directly; every other
//   store lands below bit_width(m − 1), which is the number of slots kept (constant 5, at least
//   1): 4 for D = 1024 instead of 5, i.e. RM·RN fewer live doubles. The level loops are unrolled
//   over the slots, so every slot index is a compile-time constant and the slots stay in
//   registers (unless local slots, below); the bits tested depend only on c and m, uniform
//   across the workgroup.
//   Tree slots in memory (constant 6 = 1): the slots live in the scratch buffer (binding 3),
//   each invocation's own words, written and read back by the same invocation only (program
//   order, no barrier), instead of RM·RN·kTreeSlots registers: a slot is touched at most twice
//   per chunk (64 terms), and the registers freed buy occupancy or larger RM × RN tiles.
//   K blocks (push constants block_chunks, blocks): for a small B·D the chunks are split into
//   blocks of block_chunks (a power of two) aligned chunks, one workgroup per (tile, block)
//   (gl_WorkGroupID.z). The contract's tree over m chunks is the same tree over the block sums,
//   each block sum the tree over its own chunks (an aligned block of 2^q chunks is a subtree of
//   the level-by-level tree, and the last, partial block pairs as a list of its own: its offset
//   is even at every level below q), so each workgroup runs the counter above over its block
//   and writes the block sum into the scratch buffer (phase 0); a second dispatch (phase 1, same
//   pipeline, no barrier() on that path) folds the blocks per output with the same counter.
//   Phase 2 is phase 1 spread over RM·RN times the workgroups (BatchedTile::spread_combine): the
//   dispatch has RM·RN workgroups along z and invocation (tx, ty) of workgroup z folds only its
//   output e = z, so the block sums' loads of one invocation are not serialized over its RM·RN
//   outputs (the fold of each output is the same function: bit-exact either way).
//   Scratch layout (doubles): block sums [s][b][j] (blocks > 1) first, then the slots
//   [s][k][b][j] (constant 6 = 1); the host sizes it (BatchedScratchDoubles).
//   Vector loads (constant 7 = 1; RM and RN even): invocation (tx, ty) owns pairs of adjacent
//   rows and columns instead, b = b0 + 2·(ty + p·TY) + {0, 1}, j = j0 + 2·(tx + q·TX) + {0, 1}
//   (OutRow, OutCol), and the stages hold dvec2 pairs (Z's rows padded to TM + 2 doubles so a
//   pair stays aligned), so a term row of a 4 × 4 invocation is 2 + 2 dvec2 shared loads instead
//   of 4 + 4 doubles. Only the mapping of outputs to invocations and the staging change: every
//   output's terms, chunks and tree are those above (bit-exact either way). On the H200 it saves
//   8–20 registers an invocation and was 0–7 % faster in the same tile (docs/PERF.md, "Large
//   batches, part 2").
//   Pipelined term rows (constant 8 = 1; TK ≥ 2 and two stages, else ignored): the kk loop is
//   software-pipelined by hand through two register fragments: row kk + 1's shared loads (zv,
//   av) are issued before row kk's products, and the last row of a full slice is computed after
//   the slice's barrier, while the first row of the next stage is being loaded (so the loads
//   after a barrier overlap arithmetic). The global → shared staging (next slice in registers, two
//   stages, one barrier a slice) is the same with or without it. Only when the shared loads are
//   issued changes: every accumulator still takes its terms in increasing i, the last row of a
//   chunk before its PushChunk (bit-exact either way).
//   One stage (constant 9 = 1; pipelined rows ignored): a single shared stage instead of two, so
//   a slice of twice the rows fits the same memory (32 rows of a 64 × 64 tile in NVIDIA's
//   48 KiB). The next slice still waits in registers during the products and is stored between
//   two barriers (every invocation done with the stage; the stores visible): two barriers a
//   slice, close together, instead of one. A workgroup barrier drains the SM (one workgroup of
//   this kernel fills it), so fewer, deeper slices pay (docs/PERF.md, "Large batches, part 5").
//   Local slots (constant 10 = 1; constant 6 = 0): the tree's level loops are not unrolled, so
//   the slot index is a run-time value and the slots live in the invocation's local memory
//   (cached in L1, touched once or twice per chunk) instead of RM·RN·kTreeSlots registers.
//   Both change only where operands wait and when the barriers fall: every output's terms,
//   chunks and tree are those above (bit-exact either way).
//   K groups (constant 11 = KG, the workgroup size along z): the workgroup's chunks (its K block,
//   or all m) are cut into aligned groups of gc = bit_ceil(ceil(chunks / KG)) chunks, and the
//   KG × TX × TY invocations form KG copies of the tile, copy g (gl_LocalInvocationID.z) running
//   the counter above over group g with its own shared stages (nothing past the last chunk: a
//   copy may be idle). The copies then fold their group sums by the contract's tree level by
//   level through shared memory (position g + s added into g for g ≡ 0 mod 2s, an odd last one
//   carried; the K-block argument: an aligned group of 2^q chunks is a subtree), and copy 0
//   writes the result. More warps a tile without the combine dispatch of K blocks: only which
//   invocation forms a subtree changes (bit-exact either way). Every copy walks the same number
//   of slices (group 0's) so that the barriers stay uniform; an idle slice skips its loads and
//   products.
// Rows b ≥ B and columns j ≥ D of a partial tile are staged as zeros and never written.
// Every barrier() is reached in uniform control flow (the loops depend only on push and
// specialization constants). Shared memory: KG·2·TK·(TM + 1 + TN) doubles (one stage: half),
// TM + 2 with vector loads (the padding spreads the transposing stores of a warp over the banks),
// plus ⌊KG/2⌋·TM·TN doubles for the fold of the K groups (one without); the host checks it
// against maxComputeSharedMemorySize.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_EXT_control_flow_attributes : require
#include "float_controls.glsl"  // the execution modes of the variant built (shaders/defs.bzl)

layout(std430, set = 0, binding = 0) readonly buffer MatrixA { double a[]; };   // D×D
layout(std430, set = 0, binding = 1) readonly buffer StatesIn { double z[]; };  // B×D
layout(std430, set = 0, binding = 2) writeonly buffer StatesOut { double y[]; };  // B×D
layout(std430, set = 0, binding = 3) buffer Scratch { double scratch[]; };  // see the header

#include "batched_rollout_params.glsl"  // BatchedRolloutPushConstants

// The tiled GEMM (batched_tile_core.glsl) reads Z from binding 1, its tree slots in memory from
// the scratch buffer, D, B and the K blocks from the push constants.
#define TILE_DIM params.dim
#define TILE_ROWS params.rows
#define TILE_CHUNKS params.chunks
#define TILE_BLOCK_CHUNKS params.block_chunks
#define TILE_BLOCKS params.blocks
#define TILE_Z(i) z[i]
#define TILE_SCRATCH scratch
#include "batched_tile_core.glsl"  // the specialization constants, stages and TileProducts

// Phase 1: output (b, j) = the counter above over the `blocks` block sums [s][b][j] (s in
// increasing order), with its slots in a register array (blocks ≤ 2^kMaxBlockLevels, checked by
// the host).
const uint kMaxBlockLevels = 6u;
double CombineBlocks(uint b, uint j) {
  const uint blocks = params.blocks;
  const uint plane = params.rows * params.dim;
  double st[kMaxBlockLevels];
  double carry = 0.0LF;
  for (uint s = 0u; s < blocks; ++s) {
    carry = scratch[s * plane + b * params.dim + j];
    const bool last = s + 1u == blocks;
    bool carrying = true;
    [[unroll]] for (uint k = 0u; k < kMaxBlockLevels; ++k) {
      if (carrying) {
        if (((s >> k) & 1u) != 0u) {
          CONTRACT_MERGE(carry, st[k], carry);
        } else {
          if (!last) st[k] = carry;
          carrying = false;
        }
      }
    }
  }
  const uint low = uint(findLSB(blocks));
  [[unroll]] for (uint k = 0u; k < kMaxBlockLevels; ++k) {
    if (k > low && ((blocks >> k) & 1u) != 0u) {
      CONTRACT_MERGE(carry, st[k], carry);
    }
  }
  return carry;
}

void main() {
  const uint dim = params.dim;
  const uint tx = gl_LocalInvocationID.x;
  const uint ty = gl_LocalInvocationID.y;
  const uint l = ty * kThreadsX + tx;
  const uint g = gl_LocalInvocationID.z;
  const uint j0 = gl_WorkGroupID.x * kTileCols;
  const uint b0 = gl_WorkGroupID.y * kTileRows;
  if (params.phase != 0u && g != 0u) return;  // the combines: copy 0 only, no barrier()
  if (params.phase == 2u) {  // uniform: a push constant; no barrier() on this path
    const uint e = gl_WorkGroupID.z;
    const uint r = e / kColsPerThread, n = e - r * kColsPerThread;
    const uint b = b0 + OutRow(ty, r);
    const uint j = j0 + OutCol(tx, n);
    if (e < kOutputs && b < params.rows && j < dim) y[b * dim + j] = CombineBlocks(b, j);
    return;
  }
  if (params.phase != 0u) {  // uniform: a push constant; no barrier() on this path
    [[unroll]] for (uint r = 0u; r < kRowsPerThread; ++r) {
      const uint b = b0 + OutRow(ty, r);
      [[unroll]] for (uint n = 0u; n < kColsPerThread; ++n) {
        const uint j = j0 + OutCol(tx, n);
        if (b < params.rows && j < dim) y[b * dim + j] = CombineBlocks(b, j);
      }
    }
    return;
  }
  TileProducts(j0, b0, gl_WorkGroupID.z, tx, ty, l, g);
  if (g != 0u) return;

  // The finished y of the tile, or this block's sum for phase 1.
  const uint block = gl_WorkGroupID.z;
  const bool to_scratch = params.blocks > 1u;
  const uint plane = params.rows * dim;
  [[unroll]] for (uint r = 0u; r < kRowsPerThread; ++r) {
    const uint b = b0 + OutRow(ty, r);
    [[unroll]] for (uint n = 0u; n < kColsPerThread; ++n) {
      const uint j = j0 + OutCol(tx, n);
      if (b < params.rows && j < dim) {
        if (to_scratch) {
          scratch[block * plane + b * dim + j] = acc[r * kColsPerThread + n];
        } else {
          y[b * dim + j] = acc[r * kColsPerThread + n];
        }
      }
    }
  }
}
