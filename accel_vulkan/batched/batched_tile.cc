#include "accel_vulkan/batched/batched_tile.h"

#include <algorithm>
#include <bit>
#include <string>
#include <vector>

#include "core_ref/rollout/vecmat.h"

namespace dashi::vk {

std::string BatchedTile::ToString() const {
  return std::to_string(rows()) + "x" + std::to_string(cols()) + " (" +
         std::to_string(threads_y) + "x" + std::to_string(threads_x) + " threads x " +
         std::to_string(rows_per_thread) + "x" + std::to_string(cols_per_thread) +
         " outputs; rows x cols), k " + std::to_string(slice_k) +
         (split > 1 ? ", split " + std::to_string(split) : std::string()) +
         (tree_in_memory != 0 ? ", tree in memory" : "") +
         (vector_loads != 0 ? ", vector loads" : "") + (pipeline_rows != 0 ? ", pipelined" : "") +
         (spread_combine != 0 ? ", spread combine" : "") +
         (single_stage != 0 ? ", one stage" : "") + (local_slots != 0 ? ", local slots" : "") +
         (k_groups > 1 ? ", k groups " + std::to_string(k_groups) : std::string());
}

uint32_t BatchedBlockChunks(int64_t chunks, const BatchedTile& tile) {
  const uint64_t m = static_cast<uint64_t>(std::max<int64_t>(chunks, 1));
  const uint64_t split = std::max<uint32_t>(tile.split, 1);
  return static_cast<uint32_t>(std::bit_ceil((m + split - 1) / split));
}

uint32_t BatchedBlocks(int64_t chunks, const BatchedTile& tile) {
  const uint64_t m = static_cast<uint64_t>(std::max<int64_t>(chunks, 1));
  const uint64_t q = BatchedBlockChunks(chunks, tile);
  return static_cast<uint32_t>((m + q - 1) / q);
}

BatchedStepDispatches BatchedStepDispatchesFor(int64_t chunks, const BatchedTile& tile) {
  BatchedStepDispatches d;
  d.blocks = BatchedBlocks(chunks, tile);
  if (d.blocks > 1) {
    d.combine_phase = tile.spread_combine != 0 ? 2u : 1u;
    d.combine_z = tile.spread_combine != 0 ? tile.rows_per_thread * tile.cols_per_thread : 1u;
  }
  return d;
}

uint32_t BatchedGroupChunks(int64_t block_chunks, const BatchedTile& tile) {
  const uint64_t m = static_cast<uint64_t>(std::max<int64_t>(block_chunks, 1));
  const uint64_t groups = std::max<uint32_t>(tile.k_groups, 1);
  return static_cast<uint32_t>(std::bit_ceil((m + groups - 1) / groups));
}

uint64_t BatchedScratchDoubles(int64_t batch, int64_t dim, const BatchedTile& tile) {
  const int64_t chunks = (dim + kRolloutChunk - 1) / kRolloutChunk;
  const uint64_t plane = static_cast<uint64_t>(batch) * static_cast<uint64_t>(dim);
  const uint64_t blocks = BatchedBlocks(chunks, tile);
  uint64_t doubles = blocks > 1 ? blocks * plane : 0;
  if (tile.tree_in_memory != 0) {
    const uint32_t slots = BatchedTreeSlots(
        BatchedGroupChunks(std::min<int64_t>(chunks, BatchedBlockChunks(chunks, tile)), tile));
    doubles += blocks * std::max<uint32_t>(tile.k_groups, 1) * slots * plane;
  }
  return doubles;
}

uint64_t BatchedSharedBytes(const BatchedTile& tile) {
  // The shader declares both the scalar and the dvec2 stages and sizes the unused pair to one
  // element each (statically used under a specialization constant, so they count): two doubles
  // with vector loads, two dvec2 without.
  const uint64_t unused_pair = tile.vector_loads != 0 ? 2 * sizeof(double) : 4 * sizeof(double);
  const uint64_t stages = uint64_t{tile.k_groups} * (tile.single_stage != 0 ? 1 : 2);
  const uint64_t fold = (uint64_t{tile.k_groups} / 2) * tile.rows() * tile.cols() + 1;
  return stages * tile.slice_k *
             (uint64_t{tile.rows()} + 1 + (tile.vector_loads != 0 ? 1 : 0) + tile.cols()) *
             sizeof(double) +
         unused_pair + fold * sizeof(double);
}

uint32_t BatchedTreeSlots(int64_t chunks) {
  return std::max<uint32_t>(
      1, static_cast<uint32_t>(std::bit_width(static_cast<uint64_t>(chunks - 1))));
}

StatusOr<BatchedTile> ResolveBatchedTile(const BatchedTile& tile,
                                         const VkPhysicalDeviceLimits& limits) {
  const std::string where = "batched rollout: tile " + tile.ToString() + ": ";
  if (tile.threads_x == 0 || tile.threads_y == 0 || tile.rows_per_thread == 0 ||
      tile.cols_per_thread == 0) {
    return InvalidArgumentError(where + "threads_x, threads_y, rows_per_thread and "
                                "cols_per_thread must be >= 1");
  }
  if (uint64_t{tile.rows_per_thread} * tile.cols_per_thread > kMaxOutputsPerThread) {
    return InvalidArgumentError(where + "rows_per_thread x cols_per_thread exceeds " +
                                std::to_string(kMaxOutputsPerThread) +
                                " accumulators per invocation");
  }
  if (tile.k_groups == 0 || tile.k_groups > kMaxBatchedKGroups) {
    return InvalidArgumentError(where + "k_groups must lie in [1, " +
                                std::to_string(kMaxBatchedKGroups) + "]");
  }
  if (tile.threads_x > limits.maxComputeWorkGroupSize[0] ||
      tile.threads_y > limits.maxComputeWorkGroupSize[1] ||
      tile.k_groups > limits.maxComputeWorkGroupSize[2] ||
      uint64_t{tile.threads_x} * tile.threads_y * tile.k_groups >
          limits.maxComputeWorkGroupInvocations) {
    return InvalidArgumentError(
        where + "the workgroup exceeds the device's maxComputeWorkGroupSize (" +
        std::to_string(limits.maxComputeWorkGroupSize[0]) + ", " +
        std::to_string(limits.maxComputeWorkGroupSize[1]) + ", " +
        std::to_string(limits.maxComputeWorkGroupSize[2]) +
        ") or maxComputeWorkGroupInvocations = " +
        std::to_string(limits.maxComputeWorkGroupInvocations));
  }
  if (tile.split == 0 || tile.split > kMaxBatchedBlocks) {
    return InvalidArgumentError(where + "split must lie in [1, " +
                                std::to_string(kMaxBatchedBlocks) + "]");
  }
  if (tile.tree_in_memory > 1) {
    return InvalidArgumentError(where + "tree_in_memory must be 0 or 1");
  }
  if (tile.vector_loads > 1) {
    return InvalidArgumentError(where + "vector_loads must be 0 or 1");
  }
  if (tile.pipeline_rows > 1) {
    return InvalidArgumentError(where + "pipeline_rows must be 0 or 1");
  }
  if (tile.spread_combine > 1) {
    return InvalidArgumentError(where + "spread_combine must be 0 or 1");
  }
  if (tile.single_stage > 1) {
    return InvalidArgumentError(where + "single_stage must be 0 or 1");
  }
  if (tile.local_slots > 1) {
    return InvalidArgumentError(where + "local_slots must be 0 or 1");
  }
  if (tile.spread_combine != 0 &&
      uint64_t{tile.rows_per_thread} * tile.cols_per_thread > limits.maxComputeWorkGroupCount[2]) {
    return InvalidArgumentError(where + "spread_combine needs rows_per_thread x cols_per_thread "
                                "workgroups along z, beyond maxComputeWorkGroupCount[2] = " +
                                std::to_string(limits.maxComputeWorkGroupCount[2]));
  }
  if (tile.vector_loads != 0 && (tile.rows_per_thread % 2 != 0 || tile.cols_per_thread % 2 != 0)) {
    return InvalidArgumentError(where + "vector_loads needs even rows_per_thread and "
                                "cols_per_thread (pairs of outputs)");
  }
  BatchedTile out = tile;
  // Flags the kernel ignores in this combination are cleared, so the tile prints as it runs.
  if (out.single_stage != 0) out.pipeline_rows = 0;
  if (out.tree_in_memory != 0) out.local_slots = 0;
  if (out.slice_k == 0) {
    out.slice_k = tile.single_stage != 0 ? 64 : 16;
    while (out.slice_k > 1 && BatchedSharedBytes(out) > limits.maxComputeSharedMemorySize) {
      out.slice_k /= 2;
    }
  } else if (out.slice_k > 64 || 64 % out.slice_k != 0) {
    return InvalidArgumentError(where + "slice_k must divide 64 (the contract's chunk)");
  }
  if (BatchedSharedBytes(out) > limits.maxComputeSharedMemorySize) {
    return InvalidArgumentError(where + "needs " + std::to_string(BatchedSharedBytes(out)) +
                                " bytes of shared memory, beyond maxComputeSharedMemorySize = " +
                                std::to_string(limits.maxComputeSharedMemorySize));
  }
  return out;
}

Status CheckBatchedLimits(int64_t batch, int64_t dim, const BatchedTile& tile,
                          uint64_t guard_bytes, const VkPhysicalDeviceLimits& limits) {
  const uint64_t b = static_cast<uint64_t>(batch), d = static_cast<uint64_t>(dim);
  const std::string shape =
      "batched rollout: B x D = " + std::to_string(batch) + " x " + std::to_string(dim) + ": ";
  const std::string range =
      " in one storage buffer, beyond maxStorageBufferRange = " +
      std::to_string(limits.maxStorageBufferRange);
  if (d * d * sizeof(double) > limits.maxStorageBufferRange) {
    return UnimplementedError(shape + "A needs " + std::to_string(d * d * sizeof(double)) +
                              " bytes" + range);
  }
  if (b * d * sizeof(double) + guard_bytes > limits.maxStorageBufferRange) {
    return UnimplementedError(shape + "the states need " +
                              std::to_string(b * d * sizeof(double) + guard_bytes) +
                              " bytes (with guard words)" + range);
  }
  const uint64_t scratch = BatchedScratchDoubles(batch, dim, tile);
  if (scratch >= (1ull << 32) ||
      scratch * sizeof(double) + guard_bytes > limits.maxStorageBufferRange) {
    return UnimplementedError(shape + "tile " + tile.ToString() + " needs " +
                              std::to_string(scratch) +
                              " doubles of scratch (block sums, tree slots; at most 2^32 - 1)" +
                              range);
  }
  const uint64_t groups_x = (d + tile.cols() - 1) / tile.cols();
  const uint64_t groups_y = (b + tile.rows() - 1) / tile.rows();
  if (groups_x > limits.maxComputeWorkGroupCount[0] ||
      groups_y > limits.maxComputeWorkGroupCount[1]) {
    return UnimplementedError(shape + "tile " + tile.ToString() + " needs " +
                              std::to_string(groups_x) + " x " + std::to_string(groups_y) +
                              " workgroups, beyond maxComputeWorkGroupCount = (" +
                              std::to_string(limits.maxComputeWorkGroupCount[0]) + ", " +
                              std::to_string(limits.maxComputeWorkGroupCount[1]) + ")");
  }
  return OkStatus();
}

std::vector<uint32_t> BatchedSpecialization(const BatchedTile& tile, int64_t chunks) {
  return {tile.threads_x,
          tile.threads_y,
          tile.rows_per_thread,
          tile.cols_per_thread,
          tile.slice_k,
          BatchedTreeSlots(BatchedGroupChunks(
              std::min<int64_t>(chunks, BatchedBlockChunks(chunks, tile)), tile)),
          tile.tree_in_memory,
          tile.vector_loads,
          tile.pipeline_rows,
          tile.single_stage,
          tile.local_slots,
          tile.k_groups};
}

BatchedTile SuggestBatchedTile(int64_t batch, int64_t dim, uint32_t sm_count) {
  // First 64×64 with vector loads in blocks of at most 32 chunks (five tree slots still fit the
  // registers with vector loads: D = 2048 ran 220 / 860 / 3412 µs a step at B = 256 / 1024 / 4096
  // in one block against 239 / 932 / 3686 in two, docs/PERF.md). Then K blocks of at most 16
  // chunks (four tree slots in registers: without vector loads D = 2048 ran 245 µs a step at
  // B = 256 in two blocks against 300 µs in one), then more blocks or smaller tiles until the
  // workgroups fill the SMs. Vector loads wherever the outputs come in pairs (4×4 and 2×2; they
  // were as fast or faster in every measured row). The spread combine everywhere (only K
  // blocks use it: 0.7–14 % faster in every measured automatic K-block tile, B = 16 … 256,
  // docs/PERF.md "Large batches, part 3"); never pipeline_rows (as fast where the registers
  // allow it, up to 3.4× slower where it spills). One shared stage of twice the rows on the
  // 64 × 64 tiles (4–14 % faster, docs/PERF.md "Large batches, part 5"), with the tree slots in
  // local memory where a block has five or more (D = 2048 in one block: 4 % faster; at four
  // slots the registers win). For at most 16 chunks 64 × 32 (16 × 16 invocations of 4 × 2
  // outputs) in one block before 64 × 64 in two: 8–38 % faster at D = 256 … 1024 where both
  // fill the SMs (the combine dispatch saved), within 1 % at D = 1024, B = 320; the blocks win
  // beyond m = 16 (docs/PERF.md, "Large batches, part 6"). Two workgroups per SM where the
  // 64 × 64 tile gives enough of them: one stage of 16 rows with the slots in local memory
  // (112 registers on NVIDIA's driver, against 139–242 for the slice of 32, so that two
  // 256-invocation workgroups share an SM and one computes while the other waits at its
  // barriers), where the slots sit in local memory anyway (five or more) and the tile gives at
  // least twice `target` workgroups — D = 2048, B = 512 … 4096: 5–9 % faster than 64 × 64 with
  // the slice of 32 or 96 × 64 (24 × 16 invocations, the choice of before), D = 4096: 4.5–6 %;
  // 8 % slower at D = 2048, B = 256 (128 workgroups) — and, with the slots in registers, at
  // least four times `target`: D = 512 / 1024, B = 4096 / 8192 1–4 % faster, D = 1024,
  // B = 2048 1 % slower; 1–15 % slower at 256 or fewer workgroups (docs/PERF.md, "Large
  // batches, part 9").
  // For at most 16 chunks, after those, the K-group tiles (docs/PERF.md, "Large batches, part
  // 7"; for 17 … 32 chunks see below), only where every copy has chunks: 32 × 32 in two copies
  // where it fills the SMs
  // (D = 512, B = 256: 18.63 µs against 18.94 for 32 × 32 in one; D = 1024, B = 128: 34.12
  // against 44.39 for 32 × 32 in two K blocks, B = 192: 65.08 against 67.47), then 16 × 16 in
  // eight copies wherever it gives at most one workgroup per SM and in four copies (128
  // invocations) up to two (docs/PERF.md, "Large batches, part 10": D = 512, B = 72 … 128:
  // 12.3–12.7 µs against 15.0–15.6 in eight; D = 768, B = 64: 20.5 against 24.8; D = 1024,
  // B = 48 / 64: 21.7 against 25.8 / 26.1; eight copies won at one workgroup per SM: D = 512,
  // B = 64 8.95 against 9.85), both with scalar loads (1.0–4.4 % faster than the vector loads
  // at D = 512, B = 32 … 128 and D = 1024, B = 16 … 128).
  const int64_t chunks = (dim + kRolloutChunk - 1) / kRolloutChunk;
  auto first_split = [&](int64_t max_chunks) {
    return static_cast<uint32_t>(std::min<uint64_t>(
        std::bit_ceil(static_cast<uint64_t>((chunks + max_chunks - 1) / max_chunks)),
        kMaxBatchedBlocks));
  };
  const uint32_t s0 = first_split(16);
  auto split = [&](uint32_t f) { return std::min(s0 * f, kMaxBatchedBlocks); };
  std::vector<BatchedTile> candidates = {
      {.threads_x = 16, .threads_y = 16, .rows_per_thread = 4, .cols_per_thread = 4,
       .split = first_split(32), .vector_loads = 1, .spread_combine = 1, .single_stage = 1},
      {.threads_x = 16, .threads_y = 16, .rows_per_thread = 4, .cols_per_thread = 4,
       .split = split(1), .vector_loads = 1, .spread_combine = 1, .single_stage = 1},
      {.threads_x = 16, .threads_y = 16, .rows_per_thread = 4, .cols_per_thread = 4,
       .split = split(2), .vector_loads = 1, .spread_combine = 1, .single_stage = 1},
      {.threads_x = 16, .threads_y = 16, .rows_per_thread = 2, .cols_per_thread = 2,
       .split = split(2), .vector_loads = 1, .spread_combine = 1},
      {.threads_x = 16, .threads_y = 16, .rows_per_thread = 2, .cols_per_thread = 2,
       .split = split(4), .vector_loads = 1, .spread_combine = 1},
      {.threads_x = 16, .threads_y = 16, .rows_per_thread = 1, .cols_per_thread = 2,
       .split = split(4), .spread_combine = 1},
      {.threads_x = 16, .threads_y = 16, .rows_per_thread = 1, .cols_per_thread = 1,
       .split = split(4), .spread_combine = 1},
      {.threads_x = 8, .threads_y = 8, .rows_per_thread = 1, .cols_per_thread = 1,
       .split = split(4), .spread_combine = 1},
  };
  // The K-group tiles: where m ≤ 16, 32 × 32 (8 × 16 invocations of 4 × 2 outputs) in two
  // copies and 16 × 16 (4 × 8 of 4 × 2) in eight; where 16 < m ≤ 32, the 16 × 16 tile and, for
  // B = 5 … 8, 8 × 16 (2 × 8 of 4 × 2) in eight copies only (32 × 32 in two copies, 65.1 µs at
  // D = 2048, B = 48, loses to 64 × 64 in four K blocks, 60.9, which fills the SMs wherever it
  // would).
  const BatchedTile k_groups_32{.threads_x = 16, .threads_y = 8, .rows_per_thread = 4,
                                .cols_per_thread = 2, .split = 1, .vector_loads = 1,
                                .spread_combine = 1, .single_stage = 1, .k_groups = 2};
  const BatchedTile k_groups_16{.threads_x = 8, .threads_y = 4, .rows_per_thread = 4,
                                .cols_per_thread = 2, .split = 1, .spread_combine = 1,
                                .single_stage = 1, .k_groups = 8};
  BatchedTile k_groups_8 = k_groups_16;
  k_groups_8.threads_y = 2;
  if (chunks <= 16) {
    // 64 × 32 in one block before 64 × 64 in 2·s0 blocks; after that, the K-group tiles before
    // 32 × 32 in two K blocks.
    candidates.insert(candidates.begin() + 2,
                      {.threads_x = 16, .threads_y = 16, .rows_per_thread = 4,
                       .cols_per_thread = 2, .split = 1, .vector_loads = 1,
                       .spread_combine = 1, .single_stage = 1});
    candidates.insert(candidates.begin() + 4, {k_groups_32, k_groups_16});
  } else if (chunks <= 32) {
    // After 64 × 64 in 2·s0 blocks, as above (D = 2048, B = 8 … 64 on an H200, docs/PERF.md
    // "Large batches, part 11": B = 8 23.2 µs against 29.3 for 8 × 8 in eight K blocks, B = 16
    // 24.6 against 36.4 for 16 × 32 in eight, B = 24 / 32 38.9 / 39.5 (four copies) against
    // 62.1 / 44.1; 64 × 64 in four K blocks, less than half idle, takes B = 33 … 64).
    candidates.insert(candidates.begin() + 3, {k_groups_16, k_groups_8});
  }
  // Unknown SM count (CPU drivers): the 64 × 64 default in one block, as before K blocks (no
  // scratch buffer, so the largest B·D is not halved by block sums).
  if (sm_count == 0) return {};
  // "Fills": within 1/16 of the SM count (128 workgroups on 132 SMs).
  const int64_t target = static_cast<int64_t>(sm_count - sm_count / 16);
  // The one-stage tiles of 4 × 4 outputs an invocation: those that take local slots and the
  // two-per-SM form.
  auto one_stage_4x4 = [](const BatchedTile& t) {
    return t.single_stage != 0 && t.rows_per_thread * t.cols_per_thread == 16;
  };
  auto with_slots = [&](BatchedTile t) {  // local slots on the 4 × 4-output tiles only
    if (one_stage_4x4(t) && BatchedTreeSlots(BatchedBlockChunks(chunks, t)) >= 5) {
      t.local_slots = 1;
    }
    return t;
  };
  auto groups = [&](const BatchedTile& t) {
    return ((batch + t.rows() - 1) / t.rows()) * ((dim + t.cols() - 1) / t.cols()) *
           BatchedBlocks(chunks, t);
  };
  auto busy_copies = [&](const BatchedTile& t) {  // every K group of a workgroup has chunks
    const int64_t per_group = BatchedGroupChunks(chunks, t);
    return (chunks + per_group - 1) / per_group == t.k_groups;
  };
  for (const BatchedTile& t : candidates) {
    // Idle rows in every workgroup: not taken, but for 16 < m ≤ 32 a K-group or 64 × 64 tile
    // less than half idle is (the step takes as long with idle rows as with full ones where the
    // workgroups are as many: D = 2048, 16 × 16 in eight K groups at B = 8 24.1 µs, B = 16 24.6;
    // 64 × 64 in four K blocks at B = 48 60.9, B = 64 62.3; docs/PERF.md "Large batches, part
    // 11" — measured on 132 SMs; on fewer, 64 × 64 takes B = 33 … 63 wherever it takes B = 64).
    const bool may_idle = chunks > 16 && chunks <= 32 && (t.k_groups > 1 || t.rows() == 64) &&
                          2 * batch > static_cast<int64_t>(t.rows());
    if (t.rows() > batch && !may_idle) continue;
    // Idle copies (m < 8, m = 9 … 14 and 17 … 28 for eight): taken only at m = 12 … 14
    // (D = 705 … 896), where the 16 × 16 tile in eight copies (one or two idle) or four (one idle
    // at m = 12) beat the small-batch kernel at B = 32 and 48 … 64 on an H100 (D = 768 / 896,
    // B = 32: 13.65 / 13.88 µs against 16.22 / 16.81; B = 64: 20.51 / 21.13 against 27.06 /
    // 28.00; docs/PERF.md "Large batches, part 14"; kAuto takes the small-batch kernel at the
    // other B up to 64 there), and at B = 65 … 80, where kAuto takes the tiled kernel and the four
    // copies give at most two workgroups per SM at D ≤ 832, beat 32 × 32 in two K blocks on an
    // H200 (20.45–21.09 µs against 33.89–37.16; "Large batches, part 15"). Elsewhere not
    // measured, or slower (m = 10, B = 32: 13.36 against 11.34).
    const bool idle_copies_measured = chunks >= 12 && chunks <= 14;
    if (t.k_groups > 1 && !busy_copies(t) && !idle_copies_measured) continue;
    if (t.k_groups == 8) {
      // 16 × 16 (or 8 × 16) in K groups: faster than every later tile wherever it was measured
      // with at most two workgroups per SM, however few (D = 512 and 1024, B = 16 … 128; D = 2048,
      // B = 8 … 32): eight copies up to one workgroup per SM, four beyond (where every copy
      // still has chunks).
      const int64_t sms = static_cast<int64_t>(sm_count);
      if (groups(t) > 2 * sms) continue;
      // 8 × 16 only in eight copies: in four (where its workgroups outnumber the SMs: fewer than
      // 128 SMs at D = 2048) it was slower than 8 × 8 in eight K blocks at B = 5 and 8 (D = 2048
      // on 132 SMs: 33.1 µs against 28.9–29.4 on an H200, 33.2–33.5 against 29.1–29.3 on an
      // H100; docs/PERF.md "Large batches, part 11").
      if (t.rows() == 8 && groups(t) > sms) continue;
      // Four copies take the slice of 16 (the automatic slice would be 32 in half the shared
      // memory: D = 512, B = 96 15.5 µs against 12.6, D = 1024, B = 64 27.4 against 21.7);
      // busy wherever eight copies are (m = 8, 15, 16, 29 … 32), one idle at m = 12 (above).
      BatchedTile four = t;
      four.k_groups = 4;
      four.slice_k = 16;
      return groups(t) > sms && (busy_copies(four) || idle_copies_measured) ? four : t;
    }
    if (groups(t) < target) continue;
    const BatchedTile chosen = with_slots(t);
    if (one_stage_4x4(chosen) && groups(chosen) >= (chosen.local_slots != 0 ? 2 : 4) * target) {
      BatchedTile two_per_sm = chosen;  // one stage of 16 rows, slots in local memory
      two_per_sm.slice_k = 16;
      two_per_sm.local_slots = 1;
      return two_per_sm;
    }
    return chosen;
  }
  return with_slots(candidates.back());
}

bool TiledPersistentSuits(int64_t batch, int64_t dim, const BatchedTile& tile, uint32_t sm_count) {
  const int64_t chunks = (dim + kRolloutChunk - 1) / kRolloutChunk;
  const int64_t tiles = (batch + tile.rows() - 1) / tile.rows() *
                        ((dim + tile.cols() - 1) / tile.cols());
  return dim == kTiledPersistentAutoDim && batch >= kTiledPersistentAutoMinRows &&
         batch <= kTiledPersistentAutoMaxRows && tile.k_groups == kTiledPersistentAutoKGroups &&
         BatchedBlocks(chunks, tile) == 1 && tile.tree_in_memory == 0 && sm_count > 0 &&
         tiles <= static_cast<int64_t>(sm_count);
}

}  // namespace dashi::vk
