// Batched rollout: one step Y = Z·A for B trajectories at once (Z: B×D row-major, A: D×D
// row-major), every element Y[b][j] bit for bit the contract of core_ref/rollout/vecmat.h ("THE
// CONTRACT"; docs/MATH.md §9) applied to row b of Z, i.e. what rollout_fused.comp computes for a
// single trajectory. The host is accel_vulkan/batched/vulkan_batched_rollout.h.
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
//   registers; the bits tested depend only on c and m, uniform across the workgroup.
// Rows b ≥ B and columns j ≥ D of a partial tile are staged as zeros and never written.
// Every barrier() is reached in uniform control flow (the loops depend only on push and
// specialization constants). Shared memory: 2·TK·(TM + 1 + TN) doubles (the +1 pads the Z stage
// so the transposing stores of a warp spread over the banks); the host checks it against
// maxComputeSharedMemorySize.
#version 450
#extension GL_ARB_gpu_shader_fp64 : require
#extension GL_EXT_control_flow_attributes : require
#include "float_controls.glsl"  // the execution modes of the variant built (shaders/defs.bzl)

layout(local_size_x_id = 0, local_size_y_id = 1) in;
layout(constant_id = 0) const uint kThreadsX = 16u;      // TX
layout(constant_id = 1) const uint kThreadsY = 16u;      // TY
layout(constant_id = 2) const uint kRowsPerThread = 4u;  // RM
layout(constant_id = 3) const uint kColsPerThread = 4u;  // RN
layout(constant_id = 4) const uint kSliceK = 8u;         // TK, divides 64
layout(constant_id = 5) const uint kTreeSlots = 1u;      // max(1, bit_width(m − 1))

#include "rollout_contract.glsl"  // kChunk, the chunk partial and the pairwise tree

const uint kThreads = kThreadsX * kThreadsY;
const uint kTileRows = kThreadsY * kRowsPerThread;  // TM
const uint kTileCols = kThreadsX * kColsPerThread;  // TN
const uint kOutputs = kRowsPerThread * kColsPerThread;
const uint kZStride = kTileRows + 1u;               // padded row of the Z stage
const uint kZStage = kSliceK * kZStride;
const uint kAStage = kSliceK * kTileCols;
const uint kZLoads = (kTileRows * kSliceK + kThreads - 1u) / kThreads;  // per invocation
const uint kALoads = (kSliceK * kTileCols + kThreads - 1u) / kThreads;

layout(std430, set = 0, binding = 0) readonly buffer MatrixA { double a[]; };   // D×D
layout(std430, set = 0, binding = 1) readonly buffer StatesIn { double z[]; };  // B×D
layout(std430, set = 0, binding = 2) writeonly buffer StatesOut { double y[]; };  // B×D

#include "batched_rollout_params.glsl"  // BatchedRolloutPushConstants

shared double zs[2u * kZStage];  // [stage][kk][row of the tile]: Z transposed
shared double as[2u * kAStage];  // [stage][kk][column of the tile]

double acc[kOutputs];                  // p_c of the current chunk, [r·RN + n]
double slot[kTreeSlots * kOutputs];    // the tree's binary counter, [k·RM·RN + r·RN + n]
double z_next[kZLoads];                // this invocation's share of the next slice
double a_next[kALoads];

// Global loads of slice `t` into z_next / a_next (zeros outside B×D and D×D).
void LoadSlice(uint t, uint l, uint b0, uint j0) {
  const uint dim = params.dim;
  const uint k0 = t * kSliceK;
  [[unroll]] for (uint s = 0u; s < kZLoads; ++s) {
    const uint e = l + s * kThreads;  // row-major in the slice: consecutive e, consecutive i
    const uint row = e / kSliceK;
    const uint i = k0 + (e - row * kSliceK);
    const uint b = b0 + row;
    z_next[s] = (e < kTileRows * kSliceK && b < params.rows && i < dim) ? z[b * dim + i] : 0.0LF;
  }
  [[unroll]] for (uint s = 0u; s < kALoads; ++s) {
    const uint e = l + s * kThreads;  // consecutive e, consecutive j: coalesced rows of A
    const uint kk = e / kTileCols;
    const uint i = k0 + kk;
    const uint j = j0 + (e - kk * kTileCols);
    a_next[s] = (e < kSliceK * kTileCols && i < dim && j < dim) ? a[i * dim + j] : 0.0LF;
  }
}

// z_next / a_next into shared stage `stage`.
void StoreSlice(uint stage, uint l) {
  [[unroll]] for (uint s = 0u; s < kZLoads; ++s) {
    const uint e = l + s * kThreads;
    if (e < kTileRows * kSliceK) {
      const uint row = e / kSliceK;
      zs[stage * kZStage + (e - row * kSliceK) * kZStride + row] = z_next[s];
    }
  }
  [[unroll]] for (uint s = 0u; s < kALoads; ++s) {
    const uint e = l + s * kThreads;
    if (e < kSliceK * kTileCols) as[stage * kAStage + e] = a_next[s];
  }
}

// The products z[i]·A[i][j] of row kk of the staged slice: assigned (first = the chunk's first
// product) or added to the accumulators.
void Products(uint zbase, uint abase, bool first) {
  double zv[kRowsPerThread];
  double av[kColsPerThread];
  [[unroll]] for (uint r = 0u; r < kRowsPerThread; ++r) zv[r] = zs[zbase + r * kThreadsY];
  [[unroll]] for (uint n = 0u; n < kColsPerThread; ++n) av[n] = as[abase + n * kThreadsX];
  [[unroll]] for (uint r = 0u; r < kRowsPerThread; ++r) {
    [[unroll]] for (uint n = 0u; n < kColsPerThread; ++n) {
      CONTRACT_PRODUCT(product, zv[r], av[n]);
      if (first) {
        acc[r * kColsPerThread + n] = product;
      } else {
        CONTRACT_ACCUMULATE(acc[r * kColsPerThread + n], product);
      }
    }
  }
}

// Rows kk ∈ [begin, count) of the slice in stage `stage`. `count` is TK except in the last slice.
void AccumulateSlice(uint stage, uint tx, uint ty, uint begin, uint count) {
  const uint zbase = stage * kZStage + ty;
  const uint abase = stage * kAStage + tx;
  if (count == kSliceK) {
    // A full slice: a constant trip count, unrolled, so the shared loads run ahead of the
    // (sequential, dependent) additions. `begin` is 0 or 1, uniform.
    if (begin == 0u) Products(zbase, abase, false);
    [[unroll]] for (uint kk = 1u; kk < kSliceK; ++kk) {
      Products(zbase + kk * kZStride, abase + kk * kTileCols, false);
    }
  } else {
    for (uint kk = begin; kk < count; ++kk) {
      Products(zbase + kk * kZStride, abase + kk * kTileCols, false);
    }
  }
}

// Adds the finished partial p_c (in acc; c chunks were finished before it) to the tree counter.
// The last chunk's carry stays in acc (see the file comment).
void PushChunk(uint c, bool last) {
  bool carrying = true;
  [[unroll]] for (uint k = 0u; k < kTreeSlots; ++k) {
    if (carrying) {
      if (((c >> k) & 1u) != 0u) {
        [[unroll]] for (uint e = 0u; e < kOutputs; ++e) {
          CONTRACT_MERGE(acc[e], slot[k * kOutputs + e], acc[e]);
        }
      } else {
        if (!last) {
          [[unroll]] for (uint e = 0u; e < kOutputs; ++e) slot[k * kOutputs + e] = acc[e];
        }
        carrying = false;
      }
    }
  }
}

// acc holds the block of m's lowest set bit k_0 (the last carry); adds the blocks of the higher
// set bits right to left: the finished y of the tile.
void FoldTree(uint chunks) {
  const uint low = uint(findLSB(chunks));
  [[unroll]] for (uint k = 0u; k < kTreeSlots; ++k) {
    if (k > low && ((chunks >> k) & 1u) != 0u) {
      [[unroll]] for (uint e = 0u; e < kOutputs; ++e) {
        CONTRACT_MERGE(acc[e], slot[k * kOutputs + e], acc[e]);
      }
    }
  }
}

void main() {
  const uint dim = params.dim;
  const uint chunks = params.chunks;
  const uint tx = gl_LocalInvocationID.x;
  const uint ty = gl_LocalInvocationID.y;
  const uint l = ty * kThreadsX + tx;
  const uint j0 = gl_WorkGroupID.x * kTileCols;
  const uint b0 = gl_WorkGroupID.y * kTileRows;
  const uint slices = (dim + kSliceK - 1u) / kSliceK;
  const uint slices_per_chunk = kChunk / kSliceK;

  LoadSlice(0u, l, b0, j0);
  StoreSlice(0u, l);
  memoryBarrierShared();
  barrier();
  for (uint t = 0u; t < slices; ++t) {
    const uint stage = t & 1u;
    // Issue the next slice's global loads now; they complete while this slice is computed.
    if (t + 1u < slices) LoadSlice(t + 1u, l, b0, j0);
    const uint count = min(kSliceK, dim - t * kSliceK);
    const uint c = t / slices_per_chunk;
    const bool chunk_start = t == c * slices_per_chunk;
    if (chunk_start) Products(stage * kZStage + ty, stage * kAStage + tx, true);
    AccumulateSlice(stage, tx, ty, chunk_start ? 1u : 0u, count);
    if (t + 1u == slices) {
      PushChunk(c, true);
    } else if (t + 1u == (c + 1u) * slices_per_chunk) {
      PushChunk(c, false);
    }
    if (t + 1u < slices) StoreSlice(stage ^ 1u, l);
    memoryBarrierShared();
    barrier();
  }
  FoldTree(chunks);

  [[unroll]] for (uint r = 0u; r < kRowsPerThread; ++r) {
    const uint b = b0 + ty + r * kThreadsY;
    [[unroll]] for (uint n = 0u; n < kColsPerThread; ++n) {
      const uint j = j0 + tx + n * kThreadsX;
      if (b < params.rows && j < dim) y[b * dim + j] = acc[r * kColsPerThread + n];
    }
  }
}
