// BatchedTile: the tile shape of the batched rollout kernel (shaders/batched/batched_rollout.comp),
// i.e. its specialization constants, and the checks that a shape fits a device.
//
//   BatchedTile t{.threads_x = 16, .threads_y = 16, .rows_per_thread = 4, .cols_per_thread = 4};
//   DASHI_ASSIGN_OR_RETURN(BatchedTile resolved, ResolveBatchedTile(t, limits));  // slice_k set
//   resolved.rows();   // 64 trajectories per workgroup
#ifndef DASHI_ACCEL_VULKAN_BATCHED_BATCHED_TILE_H_
#define DASHI_ACCEL_VULKAN_BATCHED_BATCHED_TILE_H_

#include <cstdint>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

#include "core_ref/status/status.h"

namespace dashi::vk {

// A workgroup of threads_x × threads_y invocations owns rows() = threads_y·rows_per_thread
// trajectories × cols() = threads_x·cols_per_thread outputs; each invocation keeps
// rows_per_thread × cols_per_thread accumulators (and BatchedTreeSlots(m) tree slots of as many)
// in registers. The defaults (a 64 × 64 tile, 4 × 4 outputs per invocation) read 8 doubles from
// shared memory per 16 multiply–add pairs, the least ratio at which an H100 SM's fp64 units, not
// its shared-memory bandwidth, set the pace; tune with the benchmark's --tile.
struct BatchedTile {
  uint32_t threads_x = 16;       // specialization constant 0 (workgroup size x)
  uint32_t threads_y = 16;       // specialization constant 1 (workgroup size y)
  uint32_t rows_per_thread = 4;  // specialization constant 2
  uint32_t cols_per_thread = 4;  // specialization constant 3
  // Specialization constant 4: rows of A (and columns of Z) staged per slice; a divisor of 64 so
  // no slice straddles two chunks. 0 = automatic: the largest of 16, 8, 4, 2, 1 (64, 32, … with
  // single_stage) whose shared stages fit maxComputeSharedMemorySize (16 on NVIDIA's 48 KiB, 8
  // on lavapipe's 32 KiB with the default tile).
  uint32_t slice_k = 0;
  // K blocks: the m chunks are cut into about `split` aligned blocks of a power of two of chunks
  // (BatchedBlockChunks), one workgroup per (tile, block), the block sums folded by a second
  // dispatch (more workgroups for a small B·D; docs/PERF.md). 1 = one dispatch, no block sums.
  uint32_t split = 1;
  // Specialization constant 6: 1 = the tree slots in a device scratch buffer, not in registers
  // (fewer registers per invocation: occupancy, or larger rows_per_thread × cols_per_thread).
  uint32_t tree_in_memory = 0;
  // Specialization constant 7: 1 = vector (dvec2) shared-memory loads: each invocation's outputs
  // are pairs of adjacent rows and columns, the stages hold dvec2 pairs, so a term row of a 4×4
  // invocation is 4 shared loads instead of 8 (needs even rows_per_thread and cols_per_thread).
  uint32_t vector_loads = 0;
  // Specialization constant 8: 1 = the kk loop software-pipelined by hand: the next term row's
  // shared loads issued before this row's products, the last row of a slice computed after the
  // slice's barrier while the next stage's first row loads (two register fragments; ignored when
  // slice_k is 1). Bit-exact either way; measured in docs/PERF.md ("Large batches, part 3").
  uint32_t pipeline_rows = 0;
  // Host only (no specialization constant): 1 = with K blocks, the combine dispatch (phase 2)
  // has rows_per_thread·cols_per_thread workgroups along z, each invocation folding one output
  // instead of all of its outputs one after the other (phase 1): the combine's loads are not
  // serialized over the outputs. Bit-exact either way; no effect without K blocks.
  uint32_t spread_combine = 0;
  // Specialization constant 9: 1 = one shared stage instead of two: the next slice is stored
  // between two barriers (all reads of the stage done; the stores visible), so a slice of twice
  // the rows fits the same shared memory (automatic slice_k from 64 down: 32 for the 64 × 64
  // tile in NVIDIA's 48 KiB, 64 for 32 × 32, 32 for 32 × 32 in two K groups). pipeline_rows is
  // ignored (ResolveBatchedTile clears it). Bit-exact either way; measured in docs/PERF.md
  // ("Large batches, part 5").
  uint32_t single_stage = 0;
  // Specialization constant 10: 1 = the tree slots in the invocation's local memory (the level
  // loops not unrolled, so the slot index is a run-time value) instead of registers: fewer
  // registers where the slots are many (D = 2048: five). Ignored with tree_in_memory
  // (ResolveBatchedTile clears it). Bit-exact either way.
  uint32_t local_slots = 0;
  // Specialization constant 11 (workgroup size z): K groups, copies of the tile in one
  // workgroup, each over an aligned group of bit_ceil(ceil(chunks / k_groups)) of the
  // workgroup's chunks with its own shared stages, their sums folded by the contract's tree
  // through shared memory (more warps a tile without a combine dispatch). Bit-exact either way.
  uint32_t k_groups = 1;

  uint32_t threads() const { return threads_x * threads_y * k_groups; }
  uint32_t rows() const { return threads_y * rows_per_thread; }
  uint32_t cols() const { return threads_x * cols_per_thread; }
  // "64x64 (16x16 threads x 4x4 outputs; rows x cols), k 16", then ", split 4" when split > 1
  // ", tree in memory", ", vector loads", ", pipelined", ", spread combine", ", one stage" and
  // ", local slots" when set, ", k groups G" when k_groups > 1: every pair rows (B) first.
  std::string ToString() const;
};

// Largest rows_per_thread · cols_per_thread accepted: register arrays beyond this only spill.
inline constexpr uint32_t kMaxOutputsPerThread = 64;

// Shared memory of the kernel: k_groups times two stages (one with single_stage) of
// slice_k · (rows() + 1 + cols()) doubles
// (rows() + 2 with vector_loads), plus the unused stage pair's one-element arrays (32 bytes, or
// 16 with vector_loads), plus the fold of the K groups: ⌊k_groups / 2⌋ · rows() · cols() + 1
// doubles.
uint64_t BatchedSharedBytes(const BatchedTile& tile);

// Tree slots of the kernel's binary counter (specialization constant 5) for m ≥ 1 chunks:
// max(1, bit_width(m − 1)); the last chunk's carry stays in the accumulators.
uint32_t BatchedTreeSlots(int64_t chunks);

// Chunks of one K group for a workgroup of `block_chunks` chunks:
// bit_ceil(ceil(block_chunks / k_groups)) (1 for one chunk), as the shader computes it.
uint32_t BatchedGroupChunks(int64_t block_chunks, const BatchedTile& tile);

// Chunks per K block for m ≥ 1 chunks: bit_ceil(ceil(m / split)) (a power of two, so each block
// is a subtree of the contract's tree), and the number of blocks ceil(m / that).
uint32_t BatchedBlockChunks(int64_t chunks, const BatchedTile& tile);
uint32_t BatchedBlocks(int64_t chunks, const BatchedTile& tile);
// The dispatches of one step of the tiled kernel over `chunks` chunks: the products (phase 0)
// with `blocks` workgroups along z, then, with K blocks only, the combine of the block sums:
// phase 1 with one workgroup along z, or phase 2 (spread_combine) with
// rows_per_thread·cols_per_thread workgroups along z, one output an invocation.
struct BatchedStepDispatches {
  uint32_t blocks = 1;         // workgroups along z of the products (BatchedBlocks)
  uint32_t combine_phase = 0;  // 0 = no combine dispatch (one block), else the push constant
  uint32_t combine_z = 0;      // workgroups along z of the combine (0 without one)
};
BatchedStepDispatches BatchedStepDispatchesFor(int64_t chunks, const BatchedTile& tile);
// Most K blocks: the combine keeps log2 of this many slots (batched_rollout.comp).
inline constexpr uint32_t kMaxBatchedBlocks = 64;
// Most K groups in one workgroup.
inline constexpr uint32_t kMaxBatchedKGroups = 16;

// Doubles of the kernel's scratch buffer for B × D: the block sums (blocks·B·D when blocks > 1)
// and the tree slots in memory (blocks·k_groups·slots·B·D when tree_in_memory); 0 when neither.
uint64_t BatchedScratchDoubles(int64_t batch, int64_t dim, const BatchedTile& tile);

// Checks `tile` against the device limits and resolves slice_k = 0. INVALID_ARGUMENT naming the
// field and the limit: a zero field, slice_k not a divisor of 64, split beyond
// kMaxBatchedBlocks, k_groups outside [1, kMaxBatchedKGroups], tree_in_memory, vector_loads,
// pipeline_rows, spread_combine, single_stage or local_slots not 0 or 1 (pipeline_rows is
// cleared with single_stage, local_slots with tree_in_memory: the kernel ignores them there),
// vector_loads with an odd rows_per_thread or cols_per_thread, more than kMaxOutputsPerThread
// accumulators, spread_combine with rows_per_thread·cols_per_thread beyond
// maxComputeWorkGroupCount[2], a workgroup beyond maxComputeWorkGroupSize /
// maxComputeWorkGroupInvocations, shared memory beyond maxComputeSharedMemorySize.
StatusOr<BatchedTile> ResolveBatchedTile(const BatchedTile& tile,
                                         const VkPhysicalDeviceLimits& limits);

// Whether B trajectories of dimension D fit one dispatch of a resolved tile on the device:
// UNIMPLEMENTED naming the limit when A (D²·8 bytes), the states plus `guard_bytes`
// (B·D·8 + guard_bytes) or the scratch buffer plus `guard_bytes` exceed maxStorageBufferRange
// (or the scratch 2^32 doubles, the shader's 32-bit indices), or ceil(D / cols) or ceil(B / rows)
// workgroups exceed maxComputeWorkGroupCount[0] or [1].
Status CheckBatchedLimits(int64_t batch, int64_t dim, const BatchedTile& tile,
                          uint64_t guard_bytes, const VkPhysicalDeviceLimits& limits);

// A tile for B trajectories of dimension D on a device with `sm_count` SMs (0: unknown): the
// first of 64×64 (16×16 threads, 4×4 outputs) in K blocks of at most 32 chunks
// (bit_ceil(ceil(m / 32)) blocks: five tree slots; D = 2048 is one block), then, with
// s0 = bit_ceil(ceil(m / 16)) (four tree slots), 64×64 with split s0, 64×32 in one block
// (16×16 threads, 4×2 outputs; only for m ≤ 16), 64×64 with 2·s0, 32×32 in two K groups (8×16
// threads, 4×2 outputs), 16×16 in K groups (4×8 threads, 4×2 outputs, scalar loads; taken
// wherever it gives at most 2·sm_count workgroups: eight copies up to sm_count workgroups, four
// beyond, these with slice_k 16) — the K-group tiles only for m ≤ 32 and where every copy has
// chunks (but at m = 12 … 14, where idle copies were measured faster); for 16 < m ≤ 32 only
// the 16×16 tile and 8×16 (2×8 threads), after 64×64 in 2·s0 blocks (no 64×32), and there a
// K-group or 64×64 tile may leave fewer than half its rows idle —, 32×32 (2×2 outputs) with
// 2·s0 and with 4·s0 (these with vector_loads), 16×32, 16×16 (1×1 outputs) and 8×8 (8×8
// threads) with 4·s0 of at most B rows whose workgroup count ceil(B/rows)·ceil(D/cols)·blocks
// reaches sm_count − sm_count/16, else the last, every one with spread_combine; the 64×64 tiles, 64×32 in one block and the K-group tiles with
// single_stage, the 64×64 ones with local_slots where their blocks need five or more tree
// slots; a chosen 64×64 tile takes slice_k 16 and local_slots (two workgroups per SM on NVIDIA)
// where it gives at least 2·(sm_count − sm_count/16) workgroups with five or more slots, or
// 4·(sm_count − sm_count/16) with fewer. The 64×64 default without K blocks when sm_count is
// 0. K blocks need blocks·B·D doubles of scratch (CheckBatchedLimits). Small B·D are
// latency-bound (every output is a chain of dependent adds): K blocks, K groups and smaller
// tiles spread them over more SMs (measured on an H200: docs/PERF.md).
BatchedTile SuggestBatchedTile(int64_t batch, int64_t dim, uint32_t sm_count);

// kAuto's tiled persistent kernel (VulkanBatchedRollout, BatchedKernel::kTiledPersistent): B
// trajectories of dimension D with `tile` on `sm_count` SMs run one dispatch of many steps instead
// of a dispatch a step where it was measured faster: D = 512, 33 ≤ B ≤ 64, the tile in eight K
// groups without K blocks or slots in memory (SuggestBatchedTile's there), and no more output
// tiles than SMs (each its own resident workgroup). On an H200: 8.55–8.66 µs a step against
// 8.80–8.95 with a dispatch a step; slower at D = 1024 (B = 16, 32) and 2048 (B = 8, 16)
// (docs/PERF.md, "Large batches, part 12").
inline constexpr int64_t kTiledPersistentAutoDim = 512;
inline constexpr int64_t kTiledPersistentAutoMinRows = 33;
inline constexpr int64_t kTiledPersistentAutoMaxRows = 64;
inline constexpr uint32_t kTiledPersistentAutoKGroups = 8;
bool TiledPersistentSuits(int64_t batch, int64_t dim, const BatchedTile& tile, uint32_t sm_count);

// The specialization constants 0..11 of the kernel for a resolved tile and m chunks (constant 5:
// the tree slots of one K group of a full K block).
std::vector<uint32_t> BatchedSpecialization(const BatchedTile& tile, int64_t chunks);

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_BATCHED_BATCHED_TILE_H_
