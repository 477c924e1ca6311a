// BatchedTile resolution and the batched rollout's device-limit checks, against made-up limits
// (no device needed: the checks are pure functions of the limits).
#include "accel_vulkan/batched/batched_tile.h"

#include <string>
#include <utility>

#include <gtest/gtest.h>

namespace dashi::vk {
namespace {

// Lavapipe's limits where they matter (Mesa 22.3).
VkPhysicalDeviceLimits LavapipeLimits() {
  VkPhysicalDeviceLimits l{};
  l.maxComputeSharedMemorySize = 32768;
  l.maxComputeWorkGroupInvocations = 1024;
  l.maxComputeWorkGroupSize[0] = l.maxComputeWorkGroupSize[1] = l.maxComputeWorkGroupSize[2] = 1024;
  l.maxComputeWorkGroupCount[0] = l.maxComputeWorkGroupCount[1] = 65535;
  l.maxComputeWorkGroupCount[2] = 65535;
  l.maxStorageBufferRange = 128u << 20;
  return l;
}

TEST(BatchedTileTest, AutomaticSliceIsTheDeepestThatFitsSharedMemory) {
  VkPhysicalDeviceLimits l = LavapipeLimits();
  // Default tile 64 × 64: two stages of k · (64 + 1 + 64) doubles = 2064·k bytes.
  StatusOr<BatchedTile> t = ResolveBatchedTile({}, l);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->slice_k, 8u);  // 16 would need 33024 bytes
  // + the unused dvec2 stages, one each, + the fold's spare double (no K groups)
  EXPECT_EQ(BatchedSharedBytes(*t), 16512u + 32u + 8u);
  // Vector loads pad the Z stage's rows by two doubles (an aligned dvec2): 2·8·130·8 bytes, + the
  // unused scalar stages' two doubles.
  StatusOr<BatchedTile> v = ResolveBatchedTile({.vector_loads = 1}, l);
  ASSERT_TRUE(v.ok()) << v.status().ToString();
  EXPECT_EQ(v->slice_k, 8u);
  EXPECT_EQ(BatchedSharedBytes(*v), 16640u + 16u + 8u);
  EXPECT_EQ(v->ToString(), "64x64 (16x16 threads x 4x4 outputs; rows x cols), k 8, vector loads");
  EXPECT_EQ(BatchedTile({.slice_k = 8, .vector_loads = 1, .pipeline_rows = 1}).ToString(),
            "64x64 (16x16 threads x 4x4 outputs; rows x cols), k 8, vector loads, pipelined");
  EXPECT_EQ(BatchedTile({.slice_k = 8, .split = 2, .spread_combine = 1}).ToString(),
            "64x64 (16x16 threads x 4x4 outputs; rows x cols), k 8, split 2, spread combine");
  l.maxComputeSharedMemorySize = 49152;  // NVIDIA
  t = ResolveBatchedTile({}, l);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->slice_k, 16u);
  EXPECT_EQ(t->rows(), 64u);
  EXPECT_EQ(t->cols(), 64u);
  EXPECT_EQ(t->ToString(), "64x64 (16x16 threads x 4x4 outputs; rows x cols), k 16");
}

// One shared stage: half the memory of two, so the automatic slice doubles (from 64 down).
TEST(BatchedTileTest, OneStageHoldsTwiceTheRows) {
  VkPhysicalDeviceLimits l = LavapipeLimits();
  l.maxComputeSharedMemorySize = 49152;  // NVIDIA
  // 64 × 64 with vector loads: one stage of k · (64 + 2 + 64) doubles; k 64 needs 66560 bytes.
  StatusOr<BatchedTile> t = ResolveBatchedTile({.vector_loads = 1, .single_stage = 1}, l);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->slice_k, 32u);
  EXPECT_EQ(BatchedSharedBytes(*t), 33280u + 16u + 8u);
  EXPECT_EQ(t->ToString(),
            "64x64 (16x16 threads x 4x4 outputs; rows x cols), k 32, vector loads, one stage");
  // 32 × 32 (2 × 2 outputs): k 64 fits (64 · 66 · 8 = 33792 bytes).
  t = ResolveBatchedTile(
      {.rows_per_thread = 2, .cols_per_thread = 2, .vector_loads = 1, .single_stage = 1}, l);
  ASSERT_TRUE(t.ok()) << t.status().ToString();
  EXPECT_EQ(t->slice_k, 64u);
  // Lavapipe's 32 KiB: k 16 for 64 × 64 (k 32 needs 33280 bytes), as two stages of k 8.
  l = LavapipeLimits();
  t = ResolveBatchedTile({.vector_loads = 1, .single_stage = 1}, l);
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->slice_k, 16u);
  EXPECT_EQ(BatchedSharedBytes(*t), BatchedSharedBytes({.slice_k = 8, .vector_loads = 1}));
  EXPECT_EQ(BatchedTile({.slice_k = 32, .local_slots = 1}).ToString(),
            "64x64 (16x16 threads x 4x4 outputs; rows x cols), k 32, local slots");
}

// The host's count is what the shader declares: a limit one byte short of it rejects the tile,
// the exact count passes (the unused stage pair included: 16 / 32 bytes beyond the stages, and
// the fold of the K groups: its spare double, and ⌊k_groups / 2⌋ tiles of doubles).
TEST(BatchedTileTest, SharedMemoryCountIncludesTheUnusedStagePair) {
  for (uint32_t vector : {0u, 1u}) {
    const BatchedTile tile{.slice_k = 8, .vector_loads = vector};
    const uint64_t stages = 2ull * 8 * (64 + 1 + vector + 64) * sizeof(double);
    const uint64_t bytes = BatchedSharedBytes(tile);
    EXPECT_EQ(bytes, stages + (vector != 0 ? 16u : 32u) + 8u);
    VkPhysicalDeviceLimits l = LavapipeLimits();
    l.maxComputeSharedMemorySize = static_cast<uint32_t>(bytes);
    EXPECT_TRUE(ResolveBatchedTile(tile, l).ok()) << "vector " << vector;
    l.maxComputeSharedMemorySize = static_cast<uint32_t>(bytes - 1);
    EXPECT_FALSE(ResolveBatchedTile(tile, l).ok()) << "vector " << vector;
  }
  for (uint32_t groups : {2u, 3u, 4u}) {
    const BatchedTile tile{.threads_x = 8, .threads_y = 8, .rows_per_thread = 2,
                           .cols_per_thread = 2, .slice_k = 8, .k_groups = groups};
    const uint64_t stages = groups * 2ull * 8 * (16 + 1 + 16) * sizeof(double);
    const uint64_t fold = ((groups / 2) * 16 * 16 + 1) * sizeof(double);
    const uint64_t bytes = BatchedSharedBytes(tile);
    EXPECT_EQ(bytes, stages + 32u + fold);
    VkPhysicalDeviceLimits l = LavapipeLimits();
    l.maxComputeSharedMemorySize = static_cast<uint32_t>(bytes);
    EXPECT_TRUE(ResolveBatchedTile(tile, l).ok()) << "k groups " << groups;
    l.maxComputeSharedMemorySize = static_cast<uint32_t>(bytes - 1);
    EXPECT_FALSE(ResolveBatchedTile(tile, l).ok()) << "k groups " << groups;
  }
}

TEST(BatchedTileTest, RejectsShapesTheKernelOrDeviceCannotRun) {
  const VkPhysicalDeviceLimits l = LavapipeLimits();
  auto code = [&](const BatchedTile& t) { return ResolveBatchedTile(t, l).status().code(); };
  EXPECT_EQ(code({.threads_x = 0}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({.rows_per_thread = 0}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({.rows_per_thread = 8, .cols_per_thread = 9}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({.threads_x = 64, .threads_y = 32}), StatusCode::kInvalidArgument);  // 2048
  EXPECT_EQ(code({.slice_k = 3}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({.split = 0}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({.split = 65}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({.split = 64}), StatusCode::kOk);
  EXPECT_EQ(code({.tree_in_memory = 2}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({.vector_loads = 2}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({.slice_k = 8, .vector_loads = 1}), StatusCode::kOk);
  EXPECT_EQ(code({.pipeline_rows = 2}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({.spread_combine = 2}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({.slice_k = 8, .split = 2, .spread_combine = 1}), StatusCode::kOk);
  EXPECT_EQ(code({.single_stage = 2}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({.local_slots = 2}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({.slice_k = 8, .single_stage = 1, .local_slots = 1}), StatusCode::kOk);
  EXPECT_EQ(code({.slice_k = 32, .single_stage = 1}), StatusCode::kInvalidArgument);  // 33 KiB
  // K groups: 1 … 16 copies, within the workgroup's z size and invocation count (lavapipe: 1024).
  EXPECT_EQ(code({.k_groups = 0}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({.threads_x = 1, .threads_y = 1, .slice_k = 1, .k_groups = 17}),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(code({.threads_x = 1, .threads_y = 1, .slice_k = 1, .k_groups = 16}),
            StatusCode::kOk);
  EXPECT_EQ(code({.threads_x = 16, .threads_y = 16, .rows_per_thread = 1, .cols_per_thread = 1,
                  .slice_k = 1, .k_groups = 5}),
            StatusCode::kInvalidArgument);  // 1280 invocations
  {
    VkPhysicalDeviceLimits z = l;
    z.maxComputeWorkGroupSize[2] = 2;
    EXPECT_EQ(ResolveBatchedTile({.threads_x = 1, .threads_y = 1, .slice_k = 1, .k_groups = 3}, z)
                  .status()
                  .code(),
              StatusCode::kInvalidArgument);
  }
  // Flags the kernel ignores in a combination are cleared: pipelined rows with one stage, local
  // slots with the slots in scratch.
  StatusOr<BatchedTile> cleared =
      ResolveBatchedTile({.slice_k = 8, .pipeline_rows = 1, .single_stage = 1}, l);
  ASSERT_TRUE(cleared.ok());
  EXPECT_EQ(cleared->pipeline_rows, 0u);
  cleared = ResolveBatchedTile({.slice_k = 8, .tree_in_memory = 1, .local_slots = 1}, l);
  ASSERT_TRUE(cleared.ok());
  EXPECT_EQ(cleared->local_slots, 0u);
  EXPECT_EQ(cleared->tree_in_memory, 1u);
  {
    // The spread combine's workgroups along z: rows_per_thread × cols_per_thread = 16.
    VkPhysicalDeviceLimits z = l;
    z.maxComputeWorkGroupCount[2] = 15;
    EXPECT_EQ(
        ResolveBatchedTile({.slice_k = 8, .split = 2, .spread_combine = 1}, z).status().code(),
        StatusCode::kInvalidArgument);
    EXPECT_TRUE(ResolveBatchedTile({.slice_k = 8, .split = 2}, z).ok());
  }
  EXPECT_EQ(code({.slice_k = 8, .pipeline_rows = 1}), StatusCode::kOk);
  EXPECT_EQ(code({.slice_k = 1, .pipeline_rows = 1}), StatusCode::kOk);  // ignored by the kernel
  // Vector loads need pairs of outputs in both directions.
  EXPECT_EQ(code({.rows_per_thread = 3, .slice_k = 8, .vector_loads = 1}),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(code({.cols_per_thread = 1, .slice_k = 8, .vector_loads = 1}),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(code({.rows_per_thread = 2, .cols_per_thread = 2, .slice_k = 8, .vector_loads = 1}),
            StatusCode::kOk);
  EXPECT_EQ(code({.slice_k = 128}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({.slice_k = 16}), StatusCode::kInvalidArgument);  // 33024 > 32768 bytes
  const Status st = ResolveBatchedTile({.slice_k = 16}, l).status();
  EXPECT_NE(st.message().find("maxComputeSharedMemorySize = 32768"), std::string::npos)
      << st.ToString();
  EXPECT_TRUE(ResolveBatchedTile({.threads_x = 1, .threads_y = 1, .rows_per_thread = 1,
                                  .cols_per_thread = 1, .slice_k = 64},
                                 l)
                  .ok());
}

TEST(BatchedTileTest, TreeSlotsAreTheBitWidthOfTheChunkCountMinusOne) {
  EXPECT_EQ(BatchedTreeSlots(1), 1u);   // no slot is used; the array needs one
  EXPECT_EQ(BatchedTreeSlots(2), 1u);
  EXPECT_EQ(BatchedTreeSlots(3), 2u);
  EXPECT_EQ(BatchedTreeSlots(8), 3u);   // D = 512
  EXPECT_EQ(BatchedTreeSlots(9), 4u);
  EXPECT_EQ(BatchedTreeSlots(16), 4u);  // D = 1024
  EXPECT_EQ(BatchedSpecialization({.slice_k = 8}, 5),
            (std::vector<uint32_t>{16, 16, 4, 4, 8, 3, 0, 0, 0, 0, 0, 1}));
  // K blocks: the slots of one block (16 of 32 chunks: 4), the slots-in-memory flag, the vector
  // loads flag.
  EXPECT_EQ(BatchedSpecialization({.slice_k = 8, .split = 2, .tree_in_memory = 1}, 32),
            (std::vector<uint32_t>{16, 16, 4, 4, 8, 4, 1, 0, 0, 0, 0, 1}));
  EXPECT_EQ(BatchedSpecialization({.slice_k = 8, .vector_loads = 1}, 32),
            (std::vector<uint32_t>{16, 16, 4, 4, 8, 5, 0, 1, 0, 0, 0, 1}));
  // Pipelined term rows: constant 8.
  EXPECT_EQ(BatchedSpecialization({.slice_k = 8, .vector_loads = 1, .pipeline_rows = 1}, 32),
            (std::vector<uint32_t>{16, 16, 4, 4, 8, 5, 0, 1, 1, 0, 0, 1}));
  // One stage and local slots: constants 9 and 10.
  EXPECT_EQ(BatchedSpecialization({.slice_k = 32, .single_stage = 1, .local_slots = 1}, 32),
            (std::vector<uint32_t>{16, 16, 4, 4, 32, 5, 0, 0, 0, 1, 1, 1}));
  // K groups: constant 11, and the slots of one group (32 chunks in 4 groups of 8: 3; a block of
  // 16 of 32 chunks in 3 groups of bit_ceil(6) = 8: 3; 5 chunks in 2 groups of 4: 2).
  EXPECT_EQ(BatchedSpecialization({.slice_k = 8, .k_groups = 4}, 32),
            (std::vector<uint32_t>{16, 16, 4, 4, 8, 3, 0, 0, 0, 0, 0, 4}));
  EXPECT_EQ(BatchedSpecialization({.slice_k = 8, .split = 2, .k_groups = 3}, 32),
            (std::vector<uint32_t>{16, 16, 4, 4, 8, 3, 0, 0, 0, 0, 0, 3}));
  EXPECT_EQ(BatchedSpecialization({.slice_k = 8, .k_groups = 2}, 5),
            (std::vector<uint32_t>{16, 16, 4, 4, 8, 2, 0, 0, 0, 0, 0, 2}));
  EXPECT_EQ(BatchedGroupChunks(1, {.k_groups = 4}), 1u);
  EXPECT_EQ(BatchedGroupChunks(3, {.k_groups = 4}), 1u);
  EXPECT_EQ(BatchedGroupChunks(18, {.k_groups = 2}), 16u);
  EXPECT_EQ(BatchedGroupChunks(18, {}), 32u);
  EXPECT_EQ(BatchedTile({.slice_k = 8, .k_groups = 2}).ToString(),
            "64x64 (16x16 threads x 4x4 outputs; rows x cols), k 8, k groups 2");
  EXPECT_EQ(BatchedTile({.slice_k = 8, .k_groups = 2}).threads(), 512u);
}

TEST(BatchedTileTest, KBlocksArePowerOfTwoChunkRuns) {
  // m = 7: split 3 → ceil(7/3) = 3 → blocks of 4 chunks, 2 blocks (the last of 3).
  EXPECT_EQ(BatchedBlockChunks(7, {.split = 3}), 4u);
  EXPECT_EQ(BatchedBlocks(7, {.split = 3}), 2u);
  EXPECT_EQ(BatchedBlocks(7, {.split = 8}), 7u);  // blocks of one chunk
  EXPECT_EQ(BatchedBlocks(7, {.split = 1}), 1u);
  EXPECT_EQ(BatchedBlocks(16, {.split = 4}), 4u);
  // Scratch: B·D per block sum (blocks > 1) plus blocks·slots·B·D with the slots in memory.
  EXPECT_EQ(BatchedScratchDoubles(3, 1024, {.split = 1}), 0u);
  EXPECT_EQ(BatchedScratchDoubles(3, 1024, {.split = 4}), 4u * 3 * 1024);
  EXPECT_EQ(BatchedScratchDoubles(3, 1024, {.split = 4, .tree_in_memory = 1}),
            4u * 3 * 1024 + 4u * 2 * 3 * 1024);
  EXPECT_EQ(BatchedScratchDoubles(3, 1024, {.tree_in_memory = 1}), 4u * 3 * 1024);
  // K groups: each copy its own slots (16 chunks in 4 groups of 4: two slots).
  EXPECT_EQ(BatchedScratchDoubles(3, 1024, {.tree_in_memory = 1, .k_groups = 4}),
            4u * 2 * 3 * 1024);
}

TEST(BatchedTileTest, StepDispatchesRunTheSpreadCombineOnlyWithKBlocks) {
  // One block: the products alone, whatever spread_combine says.
  for (uint32_t spread : {0u, 1u}) {
    const BatchedStepDispatches one =
        BatchedStepDispatchesFor(16, {.split = 1, .spread_combine = spread});
    EXPECT_EQ(one.blocks, 1u);
    EXPECT_EQ(one.combine_phase, 0u);
    EXPECT_EQ(one.combine_z, 0u);
  }
  // K blocks without the spread: phase 1, one workgroup along z folds all of an invocation's
  // outputs.
  const BatchedStepDispatches plain = BatchedStepDispatchesFor(16, {.split = 4});
  EXPECT_EQ(plain.blocks, 4u);
  EXPECT_EQ(plain.combine_phase, 1u);
  EXPECT_EQ(plain.combine_z, 1u);
  // With the spread: phase 2 over rows_per_thread · cols_per_thread workgroups along z (both
  // phases are bit-exact, so only this pins that the faster one runs).
  const BatchedStepDispatches spread =
      BatchedStepDispatchesFor(16, {.split = 4, .spread_combine = 1});
  EXPECT_EQ(spread.blocks, 4u);
  EXPECT_EQ(spread.combine_phase, 2u);
  EXPECT_EQ(spread.combine_z, 16u);
  const BatchedStepDispatches wide = BatchedStepDispatchesFor(
      7, {.rows_per_thread = 2, .cols_per_thread = 4, .split = 3, .spread_combine = 1});
  EXPECT_EQ(wide.blocks, 2u);
  EXPECT_EQ(wide.combine_phase, 2u);
  EXPECT_EQ(wide.combine_z, 8u);
}

TEST(BatchedTileTest, LimitsOfTheStatesAndTheGrid) {
  VkPhysicalDeviceLimits l = LavapipeLimits();
  const BatchedTile tile{.slice_k = 8};  // 64 × 64
  EXPECT_TRUE(CheckBatchedLimits(16383, 1024, tile, 256, l).ok());
  // 16384 rows of D = 1024 are exactly 128 MiB: no room left for the guard words.
  Status st = CheckBatchedLimits(16384, 1024, tile, 256, l);
  EXPECT_EQ(st.code(), StatusCode::kUnimplemented);
  EXPECT_NE(st.message().find("maxStorageBufferRange"), std::string::npos) << st.ToString();
  EXPECT_EQ(CheckBatchedLimits(1, 4097, tile, 256, l).code(), StatusCode::kUnimplemented);  // A
  l.maxStorageBufferRange = 0xFFFFFFFFu;
  l.maxComputeWorkGroupCount[1] = 10;
  EXPECT_TRUE(CheckBatchedLimits(640, 8, tile, 256, l).ok());
  st = CheckBatchedLimits(641, 8, tile, 256, l);
  EXPECT_EQ(st.code(), StatusCode::kUnimplemented);
  EXPECT_NE(st.message().find("maxComputeWorkGroupCount"), std::string::npos) << st.ToString();
  l.maxComputeWorkGroupCount[0] = 2;
  EXPECT_TRUE(CheckBatchedLimits(1, 128, tile, 256, l).ok());
  EXPECT_EQ(CheckBatchedLimits(1, 129, tile, 256, l).code(), StatusCode::kUnimplemented);
}

TEST(SuggestBatchedTile, LargestTileFillingEverySm) {
  // Unknown SM count: the 64 × 64 default in one K block.
  EXPECT_EQ(SuggestBatchedTile(64, 512, 0).rows(), 64u);
  EXPECT_EQ(SuggestBatchedTile(64, 512, 0).cols(), 64u);
  EXPECT_EQ(SuggestBatchedTile(64, 512, 0).split, 1u);
  EXPECT_EQ(SuggestBatchedTile(64, 2048, 0).split, 1u);
  EXPECT_EQ(SuggestBatchedTile(64, 512, 0).vector_loads, 0u);
  EXPECT_EQ(SuggestBatchedTile(64, 512, 0).spread_combine, 0u);
  EXPECT_EQ(SuggestBatchedTile(64, 512, 0).pipeline_rows, 0u);
  EXPECT_EQ(SuggestBatchedTile(64, 512, 0).single_stage, 0u);
  EXPECT_EQ(SuggestBatchedTile(64, 2048, 0).local_slots, 0u);
  // Known SM count, enough workgroups: K blocks of at most 32 chunks, vector loads.
  EXPECT_EQ(SuggestBatchedTile(4096, 1024, 132).split, 1u);
  EXPECT_EQ(SuggestBatchedTile(4096, 1024, 132).vector_loads, 1u);
  EXPECT_EQ(SuggestBatchedTile(4096, 2048, 132).split, 1u);
  EXPECT_EQ(SuggestBatchedTile(4096, 2049, 132).split, 2u);
  EXPECT_EQ(SuggestBatchedTile(4096, 4096, 132).split, 2u);
  // 132 SMs (a workgroup count of at least 124 fills them). B = 1024, D = 1024: 16 × 16 = 256
  // workgroups of 64 × 64.
  BatchedTile t = SuggestBatchedTile(1024, 1024, 132);
  EXPECT_EQ(t.rows(), 64u);
  EXPECT_EQ(t.cols(), 64u);
  EXPECT_EQ(t.split, 1u);
  // One stage on 64 × 64; the slots in registers at four (D = 1024) and three (D = 512).
  EXPECT_EQ(t.single_stage, 1u);
  EXPECT_EQ(t.local_slots, 0u);
  EXPECT_EQ(t.slice_k, 0u);  // automatic: 32 on NVIDIA's 48 KiB
  EXPECT_EQ(SuggestBatchedTile(2048, 512, 132).local_slots, 0u);  // 256 workgroups
  // B = 256, D = 1024: 64 × 64 gives 64 workgroups; 64 × 32 (4 × 2 outputs) in one block 128,
  // before 64 × 64 in two K blocks (m ≤ 16).
  t = SuggestBatchedTile(256, 1024, 132);
  EXPECT_EQ(t.rows(), 64u);
  EXPECT_EQ(t.cols(), 32u);
  EXPECT_EQ(t.rows_per_thread, 4u);
  EXPECT_EQ(t.cols_per_thread, 2u);
  EXPECT_EQ(t.split, 1u);
  EXPECT_EQ(t.single_stage, 1u);
  // The same at D = 512, B = 512 and D = 256, B = 1024 (128 workgroups of 64 × 32); not at
  // D = 2048, B = 192 (m = 32: 64 × 64 in two blocks).
  EXPECT_EQ(SuggestBatchedTile(512, 512, 132).cols(), 32u);
  EXPECT_EQ(SuggestBatchedTile(512, 512, 132).rows(), 64u);
  EXPECT_EQ(SuggestBatchedTile(1024, 256, 132).cols(), 32u);
  t = SuggestBatchedTile(192, 2048, 132);
  EXPECT_EQ(t.cols(), 64u);
  EXPECT_EQ(t.split, 2u);
  // B = 256, D = 512: 64 × 64 gives 32 and 64; 32 × 32 in two K groups 128 (one stage).
  t = SuggestBatchedTile(256, 512, 132);
  EXPECT_EQ(t.rows(), 32u);
  EXPECT_EQ(t.cols(), 32u);
  EXPECT_EQ(t.split, 1u);
  EXPECT_EQ(t.k_groups, 2u);
  EXPECT_EQ(t.single_stage, 1u);
  EXPECT_EQ(t.vector_loads, 1u);
  EXPECT_EQ(t.threads(), 256u);  // two copies of 8 × 16 invocations of 4 × 2 outputs
  EXPECT_EQ(t.rows_per_thread, 4u);
  EXPECT_EQ(t.cols_per_thread, 2u);
  // B = 128, D = 512: 32 × 32 in two K groups gives 64; 16 × 16 256 (at most 2 · 132, more
  // than 132): in four K groups, scalar loads.
  t = SuggestBatchedTile(128, 512, 132);
  EXPECT_EQ(t.rows(), 16u);
  EXPECT_EQ(t.cols(), 16u);
  EXPECT_EQ(t.k_groups, 4u);
  EXPECT_EQ(t.split, 1u);
  EXPECT_EQ(t.threads(), 128u);  // four copies of 4 × 8 invocations of 4 × 2 outputs
  EXPECT_EQ(t.single_stage, 1u);
  EXPECT_EQ(t.vector_loads, 0u);
  EXPECT_EQ(t.slice_k, 16u);  // not the automatic 32 (slower)
  // B = 64, D = 512: 16 × 16 gives 128 (at most 132): eight copies, scalar loads.
  t = SuggestBatchedTile(64, 512, 132);
  EXPECT_EQ(t.rows(), 16u);
  EXPECT_EQ(t.k_groups, 8u);
  EXPECT_EQ(t.slice_k, 0u);  // automatic: 16 in NVIDIA's 48 KiB
  EXPECT_EQ(t.threads(), 256u);  // eight copies of 4 × 8 invocations of 4 × 2 outputs
  EXPECT_EQ(t.vector_loads, 0u);
  // The threshold exactly: 128 workgroups take eight copies on 128 SMs, four on 127 (and none
  // beyond 2 · 127 = 254: B = 128 gives 256, 32 × 32 in two K blocks instead).
  EXPECT_EQ(SuggestBatchedTile(64, 512, 128).k_groups, 8u);
  EXPECT_EQ(SuggestBatchedTile(64, 512, 127).k_groups, 4u);
  EXPECT_EQ(SuggestBatchedTile(128, 512, 128).k_groups, 4u);
  EXPECT_EQ(SuggestBatchedTile(128, 512, 127).k_groups, 1u);
  // B = 192, D = 512: 32 × 32 in two K groups gives 96, 16 × 16 in eight 384 (beyond 2 · 132):
  // 32 × 32 in two K blocks (two stages).
  t = SuggestBatchedTile(192, 512, 132);
  EXPECT_EQ(t.rows(), 32u);
  EXPECT_EQ(t.split, 2u);
  EXPECT_EQ(t.k_groups, 1u);
  EXPECT_EQ(t.single_stage, 0u);
  // The spread combine with every known SM count (it acts only with K blocks), never the
  // pipelined rows (slower: docs/PERF.md, "Large batches, part 3").
  EXPECT_EQ(t.spread_combine, 1u);
  EXPECT_EQ(t.pipeline_rows, 0u);
  EXPECT_EQ(SuggestBatchedTile(4096, 1024, 132).pipeline_rows, 0u);
  // D = 2048: one block (five tree slots) where 64 × 64 fills the SMs (B = 256: 4 × 32 = 128
  // workgroups); else blocks of at most 16 chunks: B = 64 needs four for 128 workgroups.
  t = SuggestBatchedTile(256, 2048, 132);
  EXPECT_EQ(t.rows(), 64u);
  EXPECT_EQ(t.split, 1u);
  EXPECT_EQ(t.local_slots, 1u);  // five slots: in local memory
  EXPECT_EQ(t.slice_k, 0u);  // 128 workgroups: the slice of 32 (one per SM)
  // Two workgroups per SM (one stage of 16 rows, slots in local memory) where 64 × 64 gives at
  // least 2 · 124 = 248 workgroups with five or more slots (B = 512 at D = 2048: 8 × 32 = 256;
  // B = 512 at D = 4096 in two blocks: 8 × 64 × 2) and 4 · 124 = 496 with fewer (B = 4096 at
  // D = 512: 64 × 8 = 512 and D = 1024; B = 2048 at D = 1024: 512), not below (B = 2048 at
  // D = 512: 256; B = 1024 at D = 1024: 256, above). 96 × 64 is no longer chosen.
  for (const auto& [batch, dim] : {std::pair<int64_t, int64_t>{512, 2048}, {4096, 2048},
                                  {3200, 2048}, {1024, 4096}, {512, 4096}, {4096, 512},
                                  {4096, 1024}, {2048, 1024}, {8192, 512}}) {
    SCOPED_TRACE(std::to_string(batch) + " x " + std::to_string(dim));
    t = SuggestBatchedTile(batch, dim, 132);
    EXPECT_EQ(t.rows(), 64u);
    EXPECT_EQ(t.cols(), 64u);
    EXPECT_EQ(t.threads(), 256u);
    EXPECT_EQ(t.single_stage, 1u);
    EXPECT_EQ(t.slice_k, 16u);
    EXPECT_EQ(t.local_slots, 1u);
  }
  EXPECT_EQ(SuggestBatchedTile(1024, 4096, 132).split, 2u);
  EXPECT_EQ(SuggestBatchedTile(2048, 512, 132).slice_k, 0u);
  EXPECT_EQ(SuggestBatchedTile(2048, 512, 132).local_slots, 0u);
  EXPECT_EQ(SuggestBatchedTile(256, 2048, 132).slice_k, 0u);
  // Fewer SMs, the same rule: 64 SMs fill at 60, B = 256 at D = 2048 gives 128 ≥ 2 · 60.
  EXPECT_EQ(SuggestBatchedTile(256, 2048, 64).slice_k, 16u);
  // The thresholds exactly: 136 SMs fill at 128 workgroups, 137 at 129. Five slots (D = 2048,
  // 32 column tiles): B = 512 gives 256 = 2 · 128 (taken) < 2 · 129 (not); four (D = 1024, 16
  // column tiles): B = 2048 gives 512 = 4 · 128 (taken) < 4 · 129 (not).
  EXPECT_EQ(SuggestBatchedTile(512, 2048, 136).slice_k, 16u);
  EXPECT_EQ(SuggestBatchedTile(512, 2048, 137).slice_k, 0u);
  EXPECT_EQ(SuggestBatchedTile(512, 2048, 137).local_slots, 1u);  // five slots: local anyway
  EXPECT_EQ(SuggestBatchedTile(2048, 1024, 136).slice_k, 16u);
  EXPECT_EQ(SuggestBatchedTile(2048, 1024, 137).slice_k, 0u);
  EXPECT_EQ(SuggestBatchedTile(2048, 1024, 137).local_slots, 0u);
  EXPECT_EQ(SuggestBatchedTile(4096, 2048, 0).rows(), 64u);  // unknown SM count: the default
  t = SuggestBatchedTile(128, 2048, 132);
  EXPECT_EQ(t.rows(), 64u);
  EXPECT_EQ(t.split, 2u);
  EXPECT_EQ(t.local_slots, 0u);  // blocks of 16 chunks: four slots
  // B = 128, D = 1024 (m = 16): 32 × 32 in two K groups (one block, 128 workgroups); B = 192
  // the same (192); B = 256: 64 × 32 in one block comes first (128); B = 16 … 64: 16 × 16 in
  // eight K groups up to 132 workgroups (B = 16 … 32: 64, 128), in four beyond (B = 48, 64:
  // 192, 256); at D = 512 up to B = 64 (128) in eight.
  t = SuggestBatchedTile(128, 1024, 132);
  EXPECT_EQ(t.rows(), 32u);
  EXPECT_EQ(t.split, 1u);
  EXPECT_EQ(t.k_groups, 2u);
  EXPECT_EQ(t.single_stage, 1u);
  EXPECT_EQ(SuggestBatchedTile(192, 1024, 132).k_groups, 2u);
  EXPECT_EQ(SuggestBatchedTile(256, 1024, 132).k_groups, 1u);
  for (int64_t batch : {16, 24, 32, 48, 64}) {
    t = SuggestBatchedTile(batch, 1024, 132);
    EXPECT_EQ(t.rows(), 16u) << batch;
    EXPECT_EQ(t.k_groups, batch <= 32 ? 8u : 4u) << batch;
    EXPECT_EQ(t.vector_loads, 0u) << batch;
    EXPECT_EQ(SuggestBatchedTile(batch, 512, 132).k_groups, 8u) << batch;
  }
  // Only where every copy has chunks (but at m = 12 … 14, below): not 16 × 16 in eight at m = 4
  // (D = 256: groups of one chunk, four idle copies) nor m = 10 (groups of 2: five busy); at m = 15 all eight are busy
  // (groups of 2, the last of one) and all four (groups of 4, the last of 3): B = 32 (120
  // workgroups) takes eight, B = 64 (240) four. (Eight busy copies — m = 8, 15, 16 — always
  // leave four busy too.)
  EXPECT_EQ(SuggestBatchedTile(32, 256, 132).k_groups, 1u);
  EXPECT_EQ(SuggestBatchedTile(64, 640, 132).k_groups, 1u);
  EXPECT_EQ(SuggestBatchedTile(32, 704, 132).k_groups, 1u);  // m = 11
  // Idle copies where measured faster: m = 12 … 14 (D = 705 … 896), eight copies up to one
  // workgroup per SM (B = 32: 90 … 112 workgroups), four with the slice of 16 up to two
  // (B = 48 … 64: 135 … 224), one idle of four at m = 12 (docs/PERF.md "Large batches, part
  // 14"), and four up to B = 80 at D ≤ 832 (B = 65 … 80: 225 … 260 workgroups; faster than
  // 32 × 32 in two K blocks there, "Large batches, part 15"); not at D = 896, B = 65 (280).
  for (int64_t dim : {705, 768, 832, 896}) {
    t = SuggestBatchedTile(32, dim, 132);
    EXPECT_EQ(t.rows(), 16u) << dim;
    EXPECT_EQ(t.k_groups, 8u) << dim;
    for (int64_t batch : {48, 64, 65, 72, 80}) {
      if (dim == 896 && batch > 64) {
        EXPECT_EQ(SuggestBatchedTile(batch, dim, 132).k_groups, 1u) << dim << " " << batch;
        continue;
      }
      t = SuggestBatchedTile(batch, dim, 132);
      EXPECT_EQ(t.rows(), 16u) << dim << " " << batch;
      EXPECT_EQ(t.k_groups, 4u) << dim << " " << batch;
      EXPECT_EQ(t.slice_k, 16u) << dim << " " << batch;
    }
  }
  EXPECT_EQ(SuggestBatchedTile(32, 960, 132).k_groups, 8u);
  EXPECT_EQ(SuggestBatchedTile(64, 960, 132).k_groups, 4u);
  // Not beyond two workgroups per SM (B = 96 at D = 1024: 384), nor at D = 2048 where 64 × 64
  // in K blocks fills the SMs first (B = 64: four blocks, 128; B = 128: two), nor beyond 32
  // chunks (D = 2112: m = 33).
  EXPECT_EQ(SuggestBatchedTile(96, 1024, 132).k_groups, 1u);
  EXPECT_EQ(SuggestBatchedTile(64, 2048, 132).k_groups, 1u);
  EXPECT_EQ(SuggestBatchedTile(128, 2048, 132).k_groups, 1u);
  for (int64_t batch : {8, 16, 32, 48}) {
    EXPECT_EQ(SuggestBatchedTile(batch, 2112, 132).k_groups, 1u) << batch;
  }
  // Without an SM count: the default (no K groups).
  EXPECT_EQ(SuggestBatchedTile(64, 512, 0).k_groups, 1u);
  t = SuggestBatchedTile(64, 2048, 132);
  EXPECT_EQ(t.rows(), 64u);
  EXPECT_EQ(t.split, 4u);
  EXPECT_EQ(t.vector_loads, 1u);
  // B = 16, D = 2112 (m = 33: no K groups): no tile taller than B; 16 × 32 in K blocks of four
  // chunks (4·s0 = 16 asked, nine needed) gives 66 · 9 = 594 workgroups.
  t = SuggestBatchedTile(16, 2112, 132);
  EXPECT_EQ(t.rows(), 16u);
  EXPECT_EQ(t.cols(), 32u);
  EXPECT_EQ(t.k_groups, 1u);
  EXPECT_EQ(t.vector_loads, 0u);  // 1 × 2 outputs: no row pairs
  EXPECT_EQ(t.spread_combine, 1u);
  // B = 3: no candidate is as short; the last, 8 × 8.
  t = SuggestBatchedTile(3, 512, 132);
  EXPECT_EQ(t.rows(), 8u);
  EXPECT_EQ(t.cols(), 8u);
  EXPECT_EQ(t.threads(), 64u);
}

// 17 … 32 chunks (docs/PERF.md, "Large batches, part 11"): the K-group tiles where every copy has
// chunks (29 … 32), and a K-group or 64 × 64 tile less than half idle.
TEST(SuggestBatchedTile, KGroupsAndIdleRowsAtSeventeenToThirtyTwoChunks) {
  BatchedTile t;
  // B = 33 … 63, D = 2048: 64 × 64 in four K blocks (128 workgroups) with fewer than half its
  // rows idle (m = 32); B = 32 is half idle: 16 × 16 in four K groups instead.
  for (int64_t batch : {33, 48, 63}) {
    t = SuggestBatchedTile(batch, 2048, 132);
    EXPECT_EQ(t.rows(), 64u) << batch;
    EXPECT_EQ(t.split, 4u) << batch;
    EXPECT_EQ(t.k_groups, 1u) << batch;
  }
  // The threshold: 128 workgroups fill 127 SMs (127 − 7 = 120 ≤ 128), not 137 (129 > 128),
  // where no K-group tile fits two per SM either (B = 48: 384 of 16 × 16) and 32 × 32 (2 × 2
  // outputs) in four K blocks (512) takes over, as before.
  EXPECT_EQ(SuggestBatchedTile(48, 2048, 127).rows(), 64u);
  t = SuggestBatchedTile(48, 2048, 137);
  EXPECT_EQ(t.rows(), 32u);
  EXPECT_EQ(t.split, 4u);
  EXPECT_EQ(t.k_groups, 1u);
  // Not at m ≤ 16: B = 48 at D = 1024 takes 16 × 16 in four K groups, never the idle 64 × 64.
  EXPECT_EQ(SuggestBatchedTile(48, 1024, 132).rows(), 16u);
  // D = 2048 (m = 32), B < 33: 16 × 16 in eight K groups (four chunks each) up to 132
  // workgroups (B = 9 … 16: 128, rows idle below 16), four copies with the slice of 16 up to 264
  // (B = 17 … 32: 256); 8 × 16 (2 × 8 invocations) in eight for B = 5 … 8 (128).
  for (int64_t batch : {5, 8, 9, 12, 16, 17, 24, 32}) {
    t = SuggestBatchedTile(batch, 2048, 132);
    EXPECT_EQ(t.rows(), batch <= 8 ? 8u : 16u) << batch;
    EXPECT_EQ(t.cols(), 16u) << batch;
    EXPECT_EQ(t.split, 1u) << batch;
    EXPECT_EQ(t.k_groups, batch <= 16 ? 8u : 4u) << batch;
    EXPECT_EQ(t.slice_k, batch <= 16 ? 0u : 16u) << batch;
    EXPECT_EQ(t.vector_loads, 0u) << batch;
  }
  // 8 × 16 only in eight copies: on 114 SMs its 128 workgroups would need four, so B = 8 keeps
  // 8 × 8 in eight K blocks, as B = 4 does on 132; the 16 × 16 tile still takes B = 16 on 114
  // SMs, in four copies.
  for (const auto& [batch, sms] : {std::pair<int64_t, uint32_t>{4, 132}, {8, 114}}) {
    t = SuggestBatchedTile(batch, 2048, sms);
    EXPECT_EQ(t.rows(), 8u) << batch << " on " << sms;
    EXPECT_EQ(t.cols(), 8u) << batch << " on " << sms;
    EXPECT_EQ(t.k_groups, 1u) << batch << " on " << sms;
    EXPECT_EQ(t.split, 8u) << batch << " on " << sms;
  }
  t = SuggestBatchedTile(16, 2048, 114);
  EXPECT_EQ(t.rows(), 16u);
  EXPECT_EQ(t.k_groups, 4u);
  EXPECT_EQ(t.slice_k, 16u);
  // m = 17 … 28 (D = 1536: m = 24): eight copies would idle (groups of 4: six busy) — four
  // copies are only taken in place of eight —; and the tiles that are not K-group or 64 × 64
  // never run with idle rows (B = 12: 8 × 8 in K blocks, as before, not 16 × 32).
  for (int64_t batch : {8, 12, 16, 32, 48}) {
    EXPECT_EQ(SuggestBatchedTile(batch, 1536, 132).k_groups, 1u) << batch;
  }
  EXPECT_EQ(SuggestBatchedTile(12, 1536, 132).rows(), 8u);
}

// kAuto's tiled persistent kernel: exactly D = 512, 33 ≤ B ≤ 64 with SuggestBatchedTile's tile
// there (16 × 16 in eight K groups) on a GPU with at least as many SMs as output tiles.
TEST(TiledPersistentSuits, OnlyWhereMeasuredFaster) {
  for (int64_t batch = 30; batch <= 66; ++batch) {
    const BatchedTile t = SuggestBatchedTile(batch, 512, 132);
    EXPECT_EQ(TiledPersistentSuits(batch, 512, t, 132), batch >= 33 && batch <= 64) << batch;
  }
  const BatchedTile kg8 = SuggestBatchedTile(64, 512, 132);
  ASSERT_EQ(kg8.k_groups, 8u);
  EXPECT_FALSE(TiledPersistentSuits(64, 512, kg8, 0));    // no SM count
  EXPECT_FALSE(TiledPersistentSuits(64, 512, kg8, 127));  // 128 tiles
  EXPECT_TRUE(TiledPersistentSuits(64, 512, kg8, 128));
  EXPECT_TRUE(TiledPersistentSuits(48, 512, kg8, 96));    // 96 tiles
  EXPECT_FALSE(TiledPersistentSuits(48, 512, kg8, 95));
  EXPECT_FALSE(TiledPersistentSuits(48, 511, kg8, 132));
  EXPECT_FALSE(TiledPersistentSuits(48, 1024, kg8, 132));
  BatchedTile kg4 = kg8;
  kg4.k_groups = 4;
  EXPECT_FALSE(TiledPersistentSuits(48, 512, kg4, 132));
  BatchedTile blocks = kg8;
  blocks.split = 2;
  EXPECT_FALSE(TiledPersistentSuits(48, 512, blocks, 132));
  BatchedTile slots = kg8;
  slots.tree_in_memory = 1;
  EXPECT_FALSE(TiledPersistentSuits(48, 512, slots, 132));
}

}  // namespace
}  // namespace dashi::vk
