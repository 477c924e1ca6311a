// The tiled GEMM of the batched rollout, shared by the per-step kernel (batched_rollout.comp,
// whose header describes the tile, the K blocks, the K groups and every option) and the
// persistent one (batched_tiled_persistent.comp): the specialization constants 0..11, the shared
// stages, the per-invocation state and TileProducts, which computes one tile's outputs into acc.
// The including shader defines, before `#include`:
//   TILE_DIM, TILE_ROWS, TILE_CHUNKS   D, B and m (uint expressions)
//   TILE_BLOCK_CHUNKS, TILE_BLOCKS     chunks per K block and K blocks (m and 1 without blocks)
//   TILE_Z(i)                          entry i of the state Z the products read (B×D row-major)
//   TILE_SCRATCH                       the double array of the tree slots in memory (constant 6)
// and declares `a` (A, D×D row-major).
layout(local_size_x_id = 0, local_size_y_id = 1, local_size_z_id = 11) in;
layout(constant_id = 0) const uint kThreadsX = 16u;      // TX
layout(constant_id = 1) const uint kThreadsY = 16u;      // TY
layout(constant_id = 2) const uint kRowsPerThread = 4u;  // RM
layout(constant_id = 3) const uint kColsPerThread = 4u;  // RN
layout(constant_id = 4) const uint kSliceK = 8u;         // TK, divides 64
layout(constant_id = 5) const uint kTreeSlots = 1u;      // max(1, bit_width(block_chunks − 1))
layout(constant_id = 6) const uint kTreeInMemory = 0u;   // 1: the tree slots in scratch
layout(constant_id = 7) const uint kVectorLoads = 0u;    // 1: dvec2 stages and outputs in pairs
layout(constant_id = 8) const uint kPipelineRows = 0u;   // 1: the kk loop pipelined (header)
layout(constant_id = 9) const uint kSingleStage = 0u;    // 1: one shared stage (header)
layout(constant_id = 10) const uint kLocalSlots = 0u;    // 1: tree slots in local memory (header)
layout(constant_id = 11) const uint kKGroups = 1u;       // KG: copies of the tile along z (header)

#include "rollout_contract.glsl"  // kChunk, the chunk partial and the pairwise tree

const uint kThreads = kThreadsX * kThreadsY;
const uint kTileRows = kThreadsY * kRowsPerThread;  // TM
const uint kTileCols = kThreadsX * kColsPerThread;  // TN
const uint kOutputs = kRowsPerThread * kColsPerThread;
// Padded row of the Z stage: TM + 1 doubles, or TM + 2 with vector loads (a dvec2 stays aligned;
// the transposing dvec2 stores of a warp still spread over the banks: 33 dvec2 a row).
const uint kZStride = kTileRows + 1u + kVectorLoads;
const uint kZStage = kSliceK * kZStride;
const uint kAStage = kSliceK * kTileCols;
const uint kZLoads = (kTileRows * kSliceK + kThreads - 1u) / kThreads;  // per invocation
const uint kALoads = (kSliceK * kTileCols + kThreads - 1u) / kThreads;
// Vector loads: pairs of rows of Z / columns of A, one dvec2 each (kZPairLoads, kAPairLoads per
// invocation; the host requires even RM and RN; a pair load past the slice is skipped).
// Strides of the stages in their elements (doubles, or dvec2 with vector loads).
const uint kElem = 1u + kVectorLoads;
const uint kZRowE = kZStride / kElem;
const uint kARowE = kTileCols / kElem;
const uint kZStageE = kZStage / kElem;
const uint kAStageE = kAStage / kElem;
const uint kZPairLoads = (kTileRows * kSliceK / 2u + kThreads - 1u) / kThreads;
const uint kAPairLoads = (kSliceK * kTileCols / 2u + kThreads - 1u) / kThreads;
// Pipelined term rows: only with at least two rows a slice (the fragment of row kk sits in
// register set kk & 1, a compile-time constant once the slice is unrolled).
const bool kPipelined = kPipelineRows != 0u && kSliceK >= 2u && kSingleStage == 0u;



// Scalar stages (kVectorLoads = 0) or dvec2 stages (1); the other pair has one element.
// Two stages, or one (kSingleStage), for each of the KG copies: copy g's stages are g·kStages
// and g·kStages + 1.
const uint kStages = 2u - kSingleStage;
const uint kAllStages = kKGroups * kStages;
shared double zs[(1u - kVectorLoads) * kAllStages * kZStage + kVectorLoads];  // [stage][kk][row]
shared double as[(1u - kVectorLoads) * kAllStages * kAStage + kVectorLoads];  // [stage][kk][col]
shared dvec2 zs2[kVectorLoads * kAllStages * kZStage / 2u + (1u - kVectorLoads)];  // row pairs
shared dvec2 as2[kVectorLoads * kAllStages * kAStage / 2u + (1u - kVectorLoads)];  // col pairs
// The fold of the K groups: the sums of at most ⌊KG/2⌋ copies at a level, [g / 2s][e][l] (one
// spare double, so that the array is not empty with one group).
shared double fold[(kKGroups / 2u) * kTileRows * kTileCols + 1u];

double acc[kOutputs];                  // p_c of the current chunk, [r·RN + n]
// The tree's binary counter, [k·RM·RN + r·RN + n]; one unused double with the slots in memory.
double slot[kTreeSlots * kOutputs * (1u - kTreeInMemory) + kTreeInMemory];
uint slot_base;                        // slots in memory: scratch index of slot 0 of (b0, j0)
uint tx_, ty_;                         // gl_LocalInvocationID.xy
bool valid[kOutputs];                  // output (r, n) lies inside B × D
double z_next[kZLoads];                // this invocation's share of the next slice
double a_next[kALoads];
// The same with vector loads (one unused element without: an array of 0 is not valid SPIR-V,
// and with vector loads RM, RN are even, so both counts are at least 1).
dvec2 z_next2[kZPairLoads + 1u - kVectorLoads];
dvec2 a_next2[kAPairLoads + 1u - kVectorLoads];
// Pipelined term rows: two fragments (the operands of one term row), [set·RM + r], [set·RN + n].
double frag_z[2u * kRowsPerThread];
double frag_a[2u * kColsPerThread];

// Output (r, n) of invocation (tx, ty): row b0 + OutRow(ty, r), column j0 + OutCol(tx, n).
// Scalar: strided by TY / TX. Vector loads: pairs of adjacent rows / columns (one dvec2 of the
// stage each), the pairs strided by 2·TY / 2·TX.
uint OutRow(uint ty, uint r) {
  return kVectorLoads != 0u ? 2u * (ty + (r >> 1u) * kThreadsY) + (r & 1u) : ty + r * kThreadsY;
}
uint OutCol(uint tx, uint n) {
  return kVectorLoads != 0u ? 2u * (tx + (n >> 1u) * kThreadsX) + (n & 1u) : tx + n * kThreadsX;
}

// Global loads of slice `t` into z_next / a_next (zeros outside B×D and D×D).
void LoadSlice(uint t, uint l, uint b0, uint j0) {
  const uint dim = TILE_DIM;
  const uint k0 = t * kSliceK;
  [[unroll]] for (uint s = 0u; s < kZLoads; ++s) {
    const uint e = l + s * kThreads;  // row-major in the slice: consecutive e, consecutive i
    const uint row = e / kSliceK;
    const uint i = k0 + (e - row * kSliceK);
    const uint b = b0 + row;
    z_next[s] = (e < kTileRows * kSliceK && b < TILE_ROWS && i < dim) ? TILE_Z(b * dim + i) : 0.0LF;
  }
  [[unroll]] for (uint s = 0u; s < kALoads; ++s) {
    const uint e = l + s * kThreads;  // consecutive e, consecutive j: coalesced rows of A
    const uint kk = e / kTileCols;
    const uint i = k0 + kk;
    const uint j = j0 + (e - kk * kTileCols);
    a_next[s] = (e < kSliceK * kTileCols && i < dim && j < dim) ? a[i * dim + j] : 0.0LF;
  }
}

// Vector loads: slice `t` into z_next2 (rows 2p, 2p + 1 of the tile at one i) and a_next2
// (columns 2q, 2q + 1 at one i); zeros outside B×D and D×D.
void LoadSlice2(uint t, uint l, uint b0, uint j0) {
  const uint dim = TILE_DIM;
  const uint k0 = t * kSliceK;
  [[unroll]] for (uint s = 0u; s < kZPairLoads; ++s) {
    const uint e = l + s * kThreads;  // consecutive e, consecutive i
    const uint pair = e / kSliceK;
    const uint i = k0 + (e - pair * kSliceK);
    const uint b = b0 + 2u * pair;
    const bool inside = e < kTileRows * kSliceK / 2u && i < dim;
    z_next2[s] = dvec2((inside && b < TILE_ROWS) ? TILE_Z(b * dim + i) : 0.0LF,
                       (inside && b + 1u < TILE_ROWS) ? TILE_Z((b + 1u) * dim + i) : 0.0LF);
  }
  [[unroll]] for (uint s = 0u; s < kAPairLoads; ++s) {
    const uint e = l + s * kThreads;  // consecutive e, consecutive column pairs
    const uint kk = e / (kTileCols / 2u);
    const uint i = k0 + kk;
    const uint j = j0 + 2u * (e - kk * (kTileCols / 2u));
    const bool inside = e < kSliceK * kTileCols / 2u && i < dim;
    a_next2[s] = dvec2((inside && j < dim) ? a[i * dim + j] : 0.0LF,
                       (inside && j + 1u < dim) ? a[i * dim + j + 1u] : 0.0LF);
  }
}

void StoreSlice2(uint stage, uint l) {
  [[unroll]] for (uint s = 0u; s < kZPairLoads; ++s) {
    const uint e = l + s * kThreads;
    if (e < kTileRows * kSliceK / 2u) {
      const uint pair = e / kSliceK;
      zs2[(stage * kZStage + (e - pair * kSliceK) * kZStride) / 2u + pair] = z_next2[s];
    }
  }
  [[unroll]] for (uint s = 0u; s < kAPairLoads; ++s) {
    const uint e = l + s * kThreads;
    if (e < kSliceK * kTileCols / 2u) as2[stage * kAStage / 2u + e] = a_next2[s];
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
// Vector loads: zbase, abase index the dvec2 stages (pair ty of the rows, pair tx of the columns).
void Products(uint zbase, uint abase, bool first) {
  double zv[kRowsPerThread];
  double av[kColsPerThread];
  if (kVectorLoads != 0u) {
    [[unroll]] for (uint r = 0u; r < kRowsPerThread; r += 2u) {
      const dvec2 v = zs2[zbase + (r >> 1u) * kThreadsY];
      zv[r] = v.x;
      zv[r + 1u] = v.y;
    }
    [[unroll]] for (uint n = 0u; n < kColsPerThread; n += 2u) {
      const dvec2 v = as2[abase + (n >> 1u) * kThreadsX];
      av[n] = v.x;
      av[n + 1u] = v.y;
    }
  } else {
    [[unroll]] for (uint r = 0u; r < kRowsPerThread; ++r) zv[r] = zs[zbase + r * kThreadsY];
    [[unroll]] for (uint n = 0u; n < kColsPerThread; ++n) av[n] = as[abase + n * kThreadsX];
  }
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

// Pipelined term rows: the operands of the term row at zbase, abase (as Products reads them)
// into fragment `set`.
void LoadFragment(uint set, uint zbase, uint abase) {
  if (kVectorLoads != 0u) {
    [[unroll]] for (uint r = 0u; r < kRowsPerThread; r += 2u) {
      const dvec2 v = zs2[zbase + (r >> 1u) * kThreadsY];
      frag_z[set * kRowsPerThread + r] = v.x;
      frag_z[set * kRowsPerThread + r + 1u] = v.y;
    }
    [[unroll]] for (uint n = 0u; n < kColsPerThread; n += 2u) {
      const dvec2 v = as2[abase + (n >> 1u) * kThreadsX];
      frag_a[set * kColsPerThread + n] = v.x;
      frag_a[set * kColsPerThread + n + 1u] = v.y;
    }
  } else {
    [[unroll]] for (uint r = 0u; r < kRowsPerThread; ++r) {
      frag_z[set * kRowsPerThread + r] = zs[zbase + r * kThreadsY];
    }
    [[unroll]] for (uint n = 0u; n < kColsPerThread; ++n) {
      frag_a[set * kColsPerThread + n] = as[abase + n * kThreadsX];
    }
  }
}

// The products of the term row in fragment `set`, as Products.
void FragmentProducts(uint set, bool first) {
  [[unroll]] for (uint r = 0u; r < kRowsPerThread; ++r) {
    [[unroll]] for (uint n = 0u; n < kColsPerThread; ++n) {
      CONTRACT_PRODUCT(product, frag_z[set * kRowsPerThread + r],
                       frag_a[set * kColsPerThread + n]);
      if (first) {
        acc[r * kColsPerThread + n] = product;
      } else {
        CONTRACT_ACCUMULATE(acc[r * kColsPerThread + n], product);
      }
    }
  }
}

// Pipelined: rows 0 .. TK − 2 of a full slice in stage `stage` (row 0 already in fragment 0;
// `first`: row 0 is its chunk's first term row); row TK − 1 is left in fragment (TK − 1) & 1
// = 1 for after the barrier.
void PipelinedSlice(uint stage, uint tx, uint ty, bool first) {
  const uint zbase = stage * kZStageE + ty;
  const uint abase = stage * kAStageE + tx;
  [[unroll]] for (uint kk = 0u; kk + 1u < kSliceK; ++kk) {
    LoadFragment((kk + 1u) & 1u, zbase + (kk + 1u) * kZRowE, abase + (kk + 1u) * kARowE);
    FragmentProducts(kk & 1u, first && kk == 0u);
  }
}

// Rows kk ∈ [begin, count) of the slice in stage `stage`. `count` is TK except in the last slice.
void AccumulateSlice(uint stage, uint tx, uint ty, uint begin, uint count) {
  const uint zbase = stage * kZStageE + ty;
  const uint abase = stage * kAStageE + tx;
  if (count == kSliceK) {
    // A full slice: a constant trip count, unrolled, so the shared loads run ahead of the
    // (sequential, dependent) additions. `begin` is 0 or 1, uniform.
    if (begin == 0u) Products(zbase, abase, false);
    [[unroll]] for (uint kk = 1u; kk < kSliceK; ++kk) {
      Products(zbase + kk * kZRowE, abase + kk * kARowE, false);
    }
  } else {
    for (uint kk = begin; kk < count; ++kk) {
      Products(zbase + kk * kZRowE, abase + kk * kARowE, false);
    }
  }
}

// Scratch index of slot k of output e (slots in memory).
uint SlotIndex(uint k, uint e) {
  const uint r = e / kColsPerThread, n = e - r * kColsPerThread;
  return slot_base + k * TILE_ROWS * TILE_DIM + OutRow(ty_, r) * TILE_DIM + OutCol(tx_, n);
}

// slot k + acc into acc (the earlier block on the left). With local slots k is a run-time value
// (the register array then lives in local memory); otherwise a constant of an unrolled loop.
void MergeSlot(uint k) {
  [[unroll]] for (uint e = 0u; e < kOutputs; ++e) {
    if (kTreeInMemory != 0u) {
      if (valid[e]) {
        CONTRACT_MERGE(acc[e], TILE_SCRATCH[SlotIndex(k, e)], acc[e]);
      }
    } else {
      CONTRACT_MERGE(acc[e], slot[k * kOutputs + e], acc[e]);
    }
  }
}

void StoreSlot(uint k) {
  [[unroll]] for (uint e = 0u; e < kOutputs; ++e) {
    if (kTreeInMemory != 0u) {
      if (valid[e]) TILE_SCRATCH[SlotIndex(k, e)] = acc[e];
    } else {
      slot[k * kOutputs + e] = acc[e];
    }
  }
}

// Adds the finished partial p_c (in acc; c chunks were finished before it) to the tree counter.
// The last chunk's carry stays in acc (see the file comment).
void PushChunk(uint c, bool last) {
  if (kLocalSlots != 0u && kTreeInMemory == 0u) {  // the same carry, k a run-time value
    uint k = 0u;
    [[dont_unroll]] while (k < kTreeSlots && ((c >> k) & 1u) != 0u) {
      MergeSlot(k);
      ++k;
    }
    if (!last && k < kTreeSlots) StoreSlot(k);
    return;
  }
  bool carrying = true;
  [[unroll]] for (uint k = 0u; k < kTreeSlots; ++k) {
    if (carrying) {
      if (((c >> k) & 1u) != 0u) {
        MergeSlot(k);
      } else {
        if (!last) StoreSlot(k);
        carrying = false;
      }
    }
  }
}

// acc holds the block of m's lowest set bit k_0 (the last carry); adds the blocks of the higher
// set bits right to left: the finished y of the tile.
void FoldTree(uint chunks) {
  const uint low = uint(findLSB(chunks));
  if (kLocalSlots != 0u && kTreeInMemory == 0u) {
    [[dont_unroll]] for (uint k = low + 1u; k < kTreeSlots; ++k) {
      if (((chunks >> k) & 1u) != 0u) MergeSlot(k);
    }
    return;
  }
  [[unroll]] for (uint k = 0u; k < kTreeSlots; ++k) {
    if (k > low && ((chunks >> k) & 1u) != 0u) MergeSlot(k);
  }
}

// The products of the tile at rows b0.., columns j0.. over K block `block` (chunks
// [block·TILE_BLOCK_CHUNKS, …)), K groups folded: copy 0's acc holds the block's sum of each of
// its outputs (the finished y with one block). Every invocation of the workgroup calls it
// (barrier() inside, in uniform control flow); l = ty·TX + tx, g = gl_LocalInvocationID.z.
void TileProducts(uint j0, uint b0, uint block, uint tx, uint ty, uint l, uint g) {
  const uint dim = TILE_DIM;
  tx_ = tx;
  ty_ = ty;
  // This workgroup's K block: chunks [w_begin, w_end); this copy's group within it: chunks
  // [c_begin, c_end) (empty past the last chunk), slices [t_begin, t_end).
  const uint w_begin = block * TILE_BLOCK_CHUNKS;
  const uint w_end = min(TILE_CHUNKS, w_begin + TILE_BLOCK_CHUNKS);
  const uint per_group = (w_end - w_begin + kKGroups - 1u) / kKGroups;
  const uint group_chunks = per_group <= 1u ? 1u : 1u << uint(findMSB(per_group - 1u) + 1);
  const uint c_begin = min(w_end, w_begin + g * group_chunks);
  const uint c_end = min(w_end, c_begin + group_chunks);
  const uint chunks = c_end - c_begin;
  const uint slices = (dim + kSliceK - 1u) / kSliceK;
  const uint slices_per_chunk = kChunk / kSliceK;
  const uint t_begin = c_begin * slices_per_chunk;
  const uint t_end = min(slices, c_end * slices_per_chunk);
  // Slices every copy walks (group 0's, the most): uniform across the workgroup.
  const uint walk = min(slices, min(w_end, w_begin + group_chunks) * slices_per_chunk) -
                    w_begin * slices_per_chunk;
  const uint plane = TILE_ROWS * dim;
  [[unroll]] for (uint e = 0u; e < kOutputs; ++e) {
    const uint r = e / kColsPerThread, n = e - r * kColsPerThread;
    valid[e] = b0 + OutRow(ty, r) < TILE_ROWS && j0 + OutCol(tx, n) < dim;
  }
  slot_base = (TILE_BLOCKS > 1u ? TILE_BLOCKS * plane : 0u) +
              (block * kKGroups + g) * kTreeSlots * plane + b0 * dim + j0;

  const uint stage0 = g * kStages;  // this copy's first stage
  if (chunks > 0u) {
    if (kVectorLoads != 0u) {
      LoadSlice2(t_begin, l, b0, j0);
      StoreSlice2(stage0, l);
    } else {
      LoadSlice(t_begin, l, b0, j0);
      StoreSlice(stage0, l);
    }
  }
  memoryBarrierShared();
  barrier();
  if (kPipelined) LoadFragment(0u, stage0 * kZStageE + ty, stage0 * kAStageE + tx);  // row 0
  for (uint u = 0u; u < walk; ++u) {
    const uint t = t_begin + u;
    const bool has_slice = t < t_end;  // this copy has slice t
    const uint stage = stage0 + (kSingleStage != 0u ? 0u : u & 1u);
    // Issue the next slice's global loads now; they complete while this slice is computed.
    if (t + 1u < t_end) {
      if (kVectorLoads != 0u) {
        LoadSlice2(t + 1u, l, b0, j0);
      } else {
        LoadSlice(t + 1u, l, b0, j0);
      }
    }
    const uint count = has_slice ? min(kSliceK, dim - t * kSliceK) : 0u;
    const uint c = t / slices_per_chunk;  // global chunk; c − c_begin within the group
    const bool chunk_start = t == c * slices_per_chunk;
    // Pipelined, full slice: rows 0 .. TK − 2 now, row TK − 1 (fragment 1) after the barrier.
    // A partial slice (the last of D) runs row 0 from fragment 0 and the rest unpipelined.
    const bool defer_last = kPipelined && count == kSliceK;
    if (!has_slice) {
      // an idle copy: only the barriers
    } else if (defer_last) {
      PipelinedSlice(stage, tx, ty, chunk_start);
    } else if (kPipelined) {
      FragmentProducts(0u, chunk_start);
      AccumulateSlice(stage, tx, ty, 1u, count);
    } else {
      if (chunk_start) Products(stage * kZStageE + ty, stage * kAStageE + tx, true);
      AccumulateSlice(stage, tx, ty, chunk_start ? 1u : 0u, count);
    }
    if (has_slice && !defer_last) {
      if (t + 1u == t_end) {
        PushChunk(c - c_begin, true);
      } else if (t + 1u == (c + 1u) * slices_per_chunk) {
        PushChunk(c - c_begin, false);
      }
    }
    if (u + 1u < walk) {
      // One stage: every invocation has read it before it is overwritten.
      if (kSingleStage != 0u) barrier();
      const uint next = kSingleStage != 0u ? stage0 : stage ^ 1u;
      if (t + 1u < t_end) {
        if (kVectorLoads != 0u) {
          StoreSlice2(next, l);
        } else {
          StoreSlice(next, l);
        }
      }
    }
    memoryBarrierShared();
    barrier();
    if (defer_last) {
      // Row 0 of the next stage loads while row TK − 1 of this one is computed (stage is not
      // overwritten before the next slice's StoreSlice, after that slice's products).
      if (t + 1u < t_end) {
        LoadFragment(0u, (stage ^ 1u) * kZStageE + ty, (stage ^ 1u) * kAStageE + tx);
      }
      FragmentProducts(1u, false);
      if (t + 1u == t_end) {
        PushChunk(c - c_begin, true);
      } else if (t + 1u == (c + 1u) * slices_per_chunk) {
        PushChunk(c - c_begin, false);
      }
    }
  }
  if (chunks > 0u) FoldTree(chunks);

  // K groups: the group sums folded by the contract's tree, level by level through `fold`
  // (copy g + s into copy g for g ≡ 0 mod 2s while g + s holds a group; an odd last carried).
  if (kKGroups > 1u) {
    const uint groups = (w_end - w_begin + group_chunks - 1u) / group_chunks;
    for (uint s = 1u; s < kKGroups; s *= 2u) {  // uniform: a constant trip count
      barrier();  // the previous level's loads (and the stages' last reads) are done
      if (g % (2u * s) == s && g < groups) {
        [[unroll]] for (uint e = 0u; e < kOutputs; ++e) {
          fold[((g / (2u * s)) * kOutputs + e) * kThreads + l] = acc[e];
        }
      }
      memoryBarrierShared();
      barrier();
      if (g % (2u * s) == 0u && g + s < groups) {
        [[unroll]] for (uint e = 0u; e < kOutputs; ++e) {
          CONTRACT_MERGE(acc[e], acc[e], fold[((g / (2u * s)) * kOutputs + e) * kThreads + l]);
        }
      }
    }
  }
}
