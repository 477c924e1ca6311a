// The tiled persistent kernel of VulkanBatchedRollout (BatchedKernel::kTiledPersistent,
// shaders/batched/batched_tiled_persistent.comp) against core_ref's RolloutBatch, bit for bit per
// row: chains, final states and every observed state, on the default device (lavapipe in CI: one
// workgroup walks every output tile, one step per dispatch unless the options ask for more).
// Tiles: the default 64 × 64, SuggestBatchedTile's K-group tiles (16 × 16 in eight and four
// copies, 8 × 16 in eight), vector loads with local slots, pipelined rows, an odd workgroup;
// shapes with partial tiles, partial last chunks and several tiles per workgroup; several steps
// per dispatch (the device-wide barrier and both state planes), submissions and the history ring;
// the kernel choice and its errors; core_ref's error for a blow-up.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "accel_vulkan/batched/batched_parity_testing.h"
#include "accel_vulkan/batched/vulkan_batched_rollout.h"
#include "accel_vulkan/testing/vulkan_test.h"
#include "core_ref/rollout/rollout.h"
#include "core_ref/testing/random_inputs.h"

namespace dashi::vk {
namespace {

using dashi::testing::DecayingMatrix;

VulkanBatchedRolloutOptions TiledPersistent(const BatchedTile& tile,
                                            VulkanBatchedRolloutOptions o = {}) {
  o.kernel = BatchedKernel::kTiledPersistent;
  o.tile = tile;
  return o;
}

// SuggestBatchedTile's K-group tiles and two others (see the file comment).
const BatchedTile kTiles[] = {
    {},  // 64 × 64 of 16 × 16 invocations with 4 × 4 outputs, two stages
    {.threads_x = 8, .threads_y = 4, .rows_per_thread = 4, .cols_per_thread = 2,
     .spread_combine = 1, .single_stage = 1, .k_groups = 8},
    {.threads_x = 8, .threads_y = 4, .rows_per_thread = 4, .cols_per_thread = 2, .slice_k = 16,
     .spread_combine = 1, .single_stage = 1, .k_groups = 4},
    {.threads_x = 8, .threads_y = 2, .rows_per_thread = 4, .cols_per_thread = 2,
     .spread_combine = 1, .single_stage = 1, .k_groups = 8},
    {.threads_x = 4, .threads_y = 4, .rows_per_thread = 2, .cols_per_thread = 2, .slice_k = 16,
     .vector_loads = 1, .pipeline_rows = 1},
    {.threads_x = 8, .threads_y = 4, .rows_per_thread = 2, .cols_per_thread = 4, .slice_k = 16,
     .vector_loads = 1, .single_stage = 1, .local_slots = 1, .k_groups = 3},
    {.threads_x = 5, .threads_y = 3, .rows_per_thread = 1, .cols_per_thread = 3, .slice_k = 4},
};

class TiledPersistentRolloutTest : public testing::VulkanTest {
 protected:
  void ExpectMatchesRolloutBatch(int64_t batch, int64_t dim, const RolloutParams& p,
                                 const VulkanBatchedRolloutOptions& options, uint64_t seed) {
    SCOPED_TRACE("tile " + options.tile.ToString());
    testing::ExpectBatchedMatchesRolloutBatch(ctx(), batch, dim, p, options, seed,
                                              BatchedKernel::kTiledPersistent);
  }
};

// Every tile over B and D: one row, partial row tiles (B = 17), several tiles for the one
// workgroup, D = 2 / 193 (partial last chunk and column tile) / 512.
TEST_F(TiledPersistentRolloutTest, MatchesRolloutBatch) {
  const RolloutParams p{.steps = 5, .hash_every = 2, .observe_every = 2};
  const std::pair<int64_t, int64_t> shapes[] = {{1, 2}, {17, 193}, {3, 512}};
  uint64_t seed = 4100;
  for (const BatchedTile& tile : kTiles) {
    for (const auto& [batch, dim] : shapes) {
      ExpectMatchesRolloutBatch(batch, dim, p, TiledPersistent(tile), seed++);
    }
  }
}

// Several steps per dispatch (the device-wide barrier, both state planes, odd and even step
// counts per dispatch), every state observed through a history ring of fewer slots than the
// observed stretch, several submissions.
TEST_F(TiledPersistentRolloutTest, StepsPerDispatchAndHistory) {
  const RolloutParams every{.steps = 11, .hash_every = 4, .observe_every = 1};
  const RolloutParams sparse{.steps = 13, .hash_every = 5, .observe_every = 3};
  for (const BatchedTile& tile : {kTiles[1], kTiles[4]}) {
    VulkanBatchedRolloutOptions o{.small_batch_max_steps_per_dispatch = 4};
    o.max_steps_per_submit = 5;
    o.max_snapshots_per_submit = 3;
    ExpectMatchesRolloutBatch(9, 130, every, TiledPersistent(tile, o), 4200);
    ExpectMatchesRolloutBatch(
        20, 100, sparse, TiledPersistent(tile, {.small_batch_max_steps_per_dispatch = 3}), 4201);
  }
}

// Several workgroups (3, unverified as resident: lavapipe reports no SM count), each walking
// several output tiles a step; one step per dispatch, so no workgroup waits at the grid barrier.
TEST_F(TiledPersistentRolloutTest, SeveralWorkgroupsWalkTheTiles) {
  const RolloutParams p{.steps = 4, .hash_every = 2, .observe_every = 1};
  VulkanBatchedRolloutOptions o{.small_batch_groups = 3,
                                .small_batch_allow_unverified_groups = true};
  ExpectMatchesRolloutBatch(17, 193, p, TiledPersistent(kTiles[1], o), 4300);  // 26 tiles
  ExpectMatchesRolloutBatch(70, 193, p, TiledPersistent(kTiles[0], o), 4301);  // 8 tiles
}

// kAuto never takes it; forced, any B; a tile with K blocks or slots in memory is refused.
TEST_F(TiledPersistentRolloutTest, KernelChoiceAndErrors) {
  const int64_t dim = 70;
  const std::vector<double> a = DecayingMatrix(dim, 41);
  StatusOr<std::unique_ptr<VulkanBatchedRollout>> autos =
      VulkanBatchedRollout::Create(ctx(), dim, a);
  ASSERT_TRUE(autos.ok()) << autos.status().ToString();
  for (int64_t batch : {1, 16, 64, 300}) {
    EXPECT_NE(*(*autos)->KernelFor(batch), BatchedKernel::kTiledPersistent) << "B=" << batch;
  }
  StatusOr<std::unique_ptr<VulkanBatchedRollout>> forced =
      VulkanBatchedRollout::Create(ctx(), dim, a, TiledPersistent(kTiles[1]));
  ASSERT_TRUE(forced.ok()) << forced.status().ToString();
  EXPECT_EQ(*(*forced)->KernelFor(1), BatchedKernel::kTiledPersistent);
  EXPECT_EQ(*(*forced)->KernelFor(300), BatchedKernel::kTiledPersistent);
  EXPECT_NE((*forced)->KernelDescription(BatchedKernel::kTiledPersistent).find("tiled persistent"),
            std::string::npos);
  auto status = [&](BatchedTile tile) {
    return VulkanBatchedRollout::Create(ctx(), 700, DecayingMatrix(700, 42),
                                        TiledPersistent(tile))
        .status();
  };
  const Status blocks = status({.split = 2});  // D = 700: 11 chunks, two K blocks
  EXPECT_EQ(blocks.code(), StatusCode::kInvalidArgument) << blocks.ToString();
  EXPECT_NE(blocks.message().find("K blocks"), std::string::npos) << blocks.ToString();
  EXPECT_EQ(status({.tree_in_memory = 1}).code(), StatusCode::kInvalidArgument);
  EXPECT_TRUE(status({.split = 1}).ok());
}

// A blow-up: core_ref's error for the first trajectory to overflow, found by the replay.
TEST_F(TiledPersistentRolloutTest, NonFiniteStateGivesCoreRefsError) {
  testing::ExpectNonFiniteStateGivesCoreRefsError(ctx(), TiledPersistent(kTiles[1]), 43);
}

}  // namespace
}  // namespace dashi::vk
