// VulkanBatchedRollout against core_ref's single-trajectory Rollout (the oracle), row by row, on
// the default device (lavapipe in CI) with the validation layer on, where the conformance cases
// (//conformance/batched) do not reach: the shapes where tiling bugs live beyond the cases' four
// (B and D of 1, below / at / above a tile or a 64-chunk, partial tiles and slices, chunk counts
// 1..8 and 16), the options (tile shapes, submission splits, staging slots, float controls), the
// pairwise-tree examples, batches changing between runs, timings, and core_ref's errors per
// trajectory.
#include "accel_vulkan/batched/vulkan_batched_rollout.h"

#include <cmath>
#include <cstring>
#include <functional>
#include <initializer_list>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "accel_vulkan/testing/vulkan_test.h"
#include "core_ref/rollout/rollout.h"
#include "core_ref/rollout/vecmat.h"
#include "core_ref/testing/random_inputs.h"

namespace dashi::vk {
namespace {

using dashi::testing::DecayingMatrix;
using dashi::testing::NonZeroUniform;

std::span<const double> Row(std::span<const double> z, int64_t b, int64_t dim) {
  return z.subspan(static_cast<size_t>(b * dim), static_cast<size_t>(dim));
}

bool SameBits(std::span<const double> a, std::span<const double> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

std::string Seeds(uint64_t a_seed, uint64_t z_seed) {
  return "seeds A=" + std::to_string(a_seed) + " Z0=" + std::to_string(z_seed);
}

class VulkanBatchedRolloutTest : public testing::VulkanTest {
 protected:
  std::unique_ptr<VulkanBatchedRollout> Make(int64_t dim, std::span<const double> a,
                                             const VulkanBatchedRolloutOptions& options = {}) {
    StatusOr<std::unique_ptr<VulkanBatchedRollout>> r =
        VulkanBatchedRollout::Create(ctx(), dim, a, options);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(r).value() : nullptr;
  }

  // Runs the batch and core_ref on every row; expects identical chains and final states, and
  // intact guard words.
  void ExpectMatchesReference(VulkanBatchedRollout& r, std::span<const double> z0, int64_t batch,
                              std::span<const double> a, const RolloutParams& p) {
    const int64_t dim = r.dim();
    StatusOr<BatchedRolloutResult> got = r.Run(z0, batch, p);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ(got->batch, batch);
    ASSERT_EQ(got->chains.size(), static_cast<size_t>(batch));
    ASSERT_EQ(got->final_states.size(), static_cast<size_t>(batch * dim));
    for (int64_t b = 0; b < batch; ++b) {
      StatusOr<RolloutResult> want = Rollout(Row(z0, b, dim), a, p);
      ASSERT_TRUE(want.ok()) << want.status().ToString();
      EXPECT_EQ(got->chains[b], want->chain) << "trajectory " << b;
      EXPECT_TRUE(SameBits(got->final_state(b), want->final_state)) << "trajectory " << b;
    }
    const Status guards = r.CheckGuardWords();
    EXPECT_TRUE(guards.ok()) << guards.ToString();
  }

  // Every tile at every D and B (one object per (D, tile)): A = DecayingMatrix(D, a_seed + D),
  // Z0 = NonZeroUniform(B·D, z_seed + B), 3 steps hashed every 2, through ExpectMatchesReference;
  // `skip(D, B)` leaves a pair out, `after(r)` adds checks after each run.
  void ExpectTilesMatchReference(
      std::span<const BatchedTile> tiles, std::initializer_list<int64_t> dims,
      std::initializer_list<int64_t> batches, uint64_t a_seed, uint64_t z_seed,
      const std::function<bool(int64_t, int64_t)>& skip = nullptr,
      const std::function<void(const VulkanBatchedRollout&)>& after = nullptr) {
    for (const int64_t dim : dims) {
      const std::vector<double> a = DecayingMatrix(dim, a_seed + dim);
      for (const BatchedTile& tile : tiles) {
        std::unique_ptr<VulkanBatchedRollout> r = Make(dim, a, {.tile = tile});
        ASSERT_NE(r, nullptr);
        for (const int64_t batch : batches) {
          if (skip && skip(dim, batch)) continue;
          SCOPED_TRACE("tile " + tile.ToString() + " B=" + std::to_string(batch) +
                       " D=" + std::to_string(dim) + " " + Seeds(a_seed + dim, z_seed + batch));
          const std::vector<double> z0 =
              NonZeroUniform(static_cast<size_t>(batch * dim), z_seed + batch, 1.0);
          ExpectMatchesReference(*r, z0, batch, a, {.steps = 3, .hash_every = 2});
          if (after) after(*r);
        }
      }
    }
  }
};

TEST_F(VulkanBatchedRolloutTest, PicksTheSupportedFloatControlsVariant) {
  const std::vector<double> a = DecayingMatrix(3, 1);
  std::unique_ptr<VulkanBatchedRollout> r = Make(3, a);
  ASSERT_NE(r, nullptr);
  const Float64Controls& fc = r->device_float_controls();
  EXPECT_EQ((r->shader_variant() & kVariantDenormPreserve) != 0, fc.denorm_preserve);
  EXPECT_EQ((r->shader_variant() & kVariantSignedZeroInfNanPreserve) != 0,
            fc.signed_zero_inf_nan_preserve);
  EXPECT_EQ((r->shader_variant() & kVariantRoundingModeRte) != 0, fc.rounding_mode_rte);
  std::unique_ptr<VulkanBatchedRollout> plain = Make(3, a, {.use_float_controls = false});
  ASSERT_NE(plain, nullptr);
  EXPECT_EQ(plain->shader_variant(), 0u);
  const std::vector<double> z0 = NonZeroUniform(6, 2, 1.0);
  ExpectMatchesReference(*plain, z0, 2, a, {.steps = 5, .hash_every = 2});
}

// The register probe (ComputePipeline::ExecutableStatistics): FAILED_PRECONDITION on a context
// that does not capture statistics; on one that asked for them, either the same (the device lacks
// VK_KHR_pipeline_executable_properties: lavapipe 22.3) or "<executable>: <name> = <value>" lines.
TEST_F(VulkanBatchedRolloutTest, PipelineStatisticsOnlyWhenCaptured) {
  const std::vector<double> a = DecayingMatrix(3, 1);
  std::unique_ptr<VulkanBatchedRollout> r = Make(3, a);
  ASSERT_NE(r, nullptr);
  EXPECT_FALSE(ctx().pipeline_statistics());
  EXPECT_EQ(r->tiled_pipeline().ExecutableStatistics().status().code(),
            StatusCode::kFailedPrecondition);
  EXPECT_EQ(r->tiled_pipeline().ExecutableRepresentations().status().code(),
            StatusCode::kFailedPrecondition);

  StatusOr<std::unique_ptr<VulkanContext>> capturing =
      VulkanContext::Create({.capture_pipeline_statistics = true});
  ASSERT_TRUE(capturing.ok()) << capturing.status().ToString();
  StatusOr<std::unique_ptr<VulkanBatchedRollout>> c =
      VulkanBatchedRollout::Create(**capturing, 3, a, {.tile = {.vector_loads = 1}});
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  StatusOr<std::vector<std::string>> stats = (*c)->tiled_pipeline().ExecutableStatistics();
  if (!(*capturing)->pipeline_statistics()) {
    EXPECT_EQ(stats.status().code(), StatusCode::kFailedPrecondition);
  } else {
    ASSERT_TRUE(stats.ok()) << stats.status().ToString();
    ASSERT_FALSE(stats->empty());
    for (const std::string& line : *stats) {
      EXPECT_NE(line.find(": "), std::string::npos) << line;
      EXPECT_NE(line.find(" = "), std::string::npos) << line;
    }
  }
  // Capturing changes nothing in the results.
  const std::vector<double> z0 = NonZeroUniform(6, 2, 1.0);
  StatusOr<BatchedRolloutResult> got = (*c)->Run(z0, 2, {.steps = 4, .hash_every = 2});
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  for (int64_t b = 0; b < 2; ++b) {
    StatusOr<RolloutResult> want = Rollout(Row(z0, b, 3), a, {.steps = 4, .hash_every = 2});
    ASSERT_TRUE(want.ok());
    EXPECT_EQ(got->chains[b], want->chain) << "trajectory " << b;
    EXPECT_TRUE(SameBits(got->final_state(b), want->final_state)) << "trajectory " << b;
  }
}

// The default tile (64 × 64): B and D of 1, partial tiles in both directions, D at and around the
// chunk size, several chunks with a partial last one and odd chunk counts (3, 5).
TEST_F(VulkanBatchedRolloutTest, DefaultTileMatchesCoreRefRowByRow) {
  // Chunk counts m = 1 .. 8 and 16: D = 420 (m = 7) folds three blocks (4, 2, 1) right to left,
  // D = 330 (m = 6) two, D = 449 (m = 8) and 1000 (m = 16) end with one carry through all slots.
  const std::pair<int64_t, int64_t> shapes[] = {
      {1, 1},    {3, 1},   {1, 64},  {2, 63},  {5, 65},  {65, 130},
      {70, 200}, {64, 257}, {4, 330}, {3, 420}, {2, 449}, {2, 1000}};
  for (const auto& [batch, dim] : shapes) {
    const uint64_t a_seed = 100 + dim, z_seed = 200 + batch;
    SCOPED_TRACE("B=" + std::to_string(batch) + " D=" + std::to_string(dim) + " " +
                 Seeds(a_seed, z_seed));
    const std::vector<double> a = DecayingMatrix(dim, a_seed);
    const std::vector<double> z0 = NonZeroUniform(static_cast<size_t>(batch * dim), z_seed, 1.0);
    std::unique_ptr<VulkanBatchedRollout> r = Make(dim, a);
    ASSERT_NE(r, nullptr);
    ExpectMatchesReference(*r, z0, batch, a, {.steps = 9, .hash_every = 4});
  }
}

// Tile shapes other than the default: one invocation per workgroup and output, non-power-of-two
// workgroups and micro-tiles, slice depths 1, 2, 4, 32, 64 (64 .. 1 slices per chunk), and
// tiles larger than B.
TEST_F(VulkanBatchedRolloutTest, TileShapesAndSliceDepthsAgree) {
  const BatchedTile tiles[] = {
      {.threads_x = 1, .threads_y = 1, .rows_per_thread = 1, .cols_per_thread = 1, .slice_k = 1},
      {.threads_x = 3, .threads_y = 2, .rows_per_thread = 2, .cols_per_thread = 3, .slice_k = 4},
      {.threads_x = 8, .threads_y = 4, .rows_per_thread = 1, .cols_per_thread = 2, .slice_k = 64},
      {.threads_x = 5, .threads_y = 7, .rows_per_thread = 3, .cols_per_thread = 1, .slice_k = 32},
      {.threads_x = 32, .threads_y = 8, .rows_per_thread = 2, .cols_per_thread = 2, .slice_k = 2},
  };
  // D = 130: a partial slice and a last chunk of two rows for every slice depth. B = 1, 7, 17 on
  // one object (one shader compile per tile: lavapipe's compile of the unrolled slice loop
  // dominates this test); 17 rows leave a partial last tile for every shape above.
  const int64_t dim = 130;
  const uint64_t a_seed = 300 + dim;
  const std::vector<double> a = DecayingMatrix(dim, a_seed);
  for (const BatchedTile& tile : tiles) {
    std::unique_ptr<VulkanBatchedRollout> r = Make(dim, a, {.tile = tile});
    ASSERT_NE(r, nullptr);
    EXPECT_EQ(r->tile().slice_k, tile.slice_k);
    for (const int64_t batch : {1, 7, 17}) {
      const uint64_t z_seed = 400 + batch;
      SCOPED_TRACE("tile " + tile.ToString() + " B=" + std::to_string(batch) +
                   " D=" + std::to_string(dim) + " " + Seeds(a_seed, z_seed));
      const std::vector<double> z0 =
          NonZeroUniform(static_cast<size_t>(batch * dim), z_seed, 1.0);
      ExpectMatchesReference(*r, z0, batch, a, {.steps = 4, .hash_every = 3});
    }
  }
}

// K blocks (split > 1: block sums, then their combine) and the tree slots in memory, alone and
// together: chunk counts m = 3 (D = 130), 7 (420: blocks of 1, 2 and 4 chunks give 7, 4 and 2
// blocks, the last partial), 8 (449: a last chunk of one row) and 16 (1000), partial tiles, an
// 8 × 8 micro-tile, 64 blocks at most (D = 2100: 33 blocks of one chunk).
TEST_F(VulkanBatchedRolloutTest, KBlocksAndTreeInMemoryMatchCoreRef) {
  const BatchedTile tiles[] = {
      {.threads_x = 4, .threads_y = 4, .rows_per_thread = 2, .cols_per_thread = 2, .slice_k = 16,
       .split = 1, .tree_in_memory = 1},
      {.threads_x = 4, .threads_y = 4, .rows_per_thread = 2, .cols_per_thread = 2, .slice_k = 16,
       .split = 2},
      {.threads_x = 3, .threads_y = 5, .rows_per_thread = 2, .cols_per_thread = 3, .slice_k = 8,
       .split = 3, .tree_in_memory = 1},
      {.threads_x = 4, .threads_y = 4, .rows_per_thread = 2, .cols_per_thread = 2, .slice_k = 32,
       .split = 64},
      {.threads_x = 4, .threads_y = 2, .rows_per_thread = 8, .cols_per_thread = 8, .slice_k = 8,
       .split = 4, .tree_in_memory = 1},
  };
  ExpectTilesMatchReference(tiles, {130, 420, 449, 1000}, {1, 17}, 500, 600,
                            nullptr,
                            [](const VulkanBatchedRollout& r) {
                              EXPECT_EQ(r.last_timings().dispatches,
                                        3 * (BatchedBlocks(r.chunks(), r.tile()) > 1 ? 2 : 1));
                            });
  const int64_t dim = 2100, batch = 3;
  const std::vector<double> a = DecayingMatrix(dim, 500 + dim);
  const std::vector<double> z0 = NonZeroUniform(static_cast<size_t>(batch * dim), 603, 1.0);
  std::unique_ptr<VulkanBatchedRollout> r = Make(dim, a, {.tile = tiles[3]});
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(BatchedBlocks(r->chunks(), r->tile()), 33u);
  ExpectMatchesReference(*r, z0, batch, a, {.steps = 2, .hash_every = 1});
}

// Vector (dvec2) shared-memory loads (BatchedTile::vector_loads): outputs in pairs of rows and
// columns. Odd B and D leave the last pair of a tile half outside B × D (D = 193, 449; B = 17);
// with K blocks and the slots in memory, and the 64 × 64 tile of the GPUs (partial here).
TEST_F(VulkanBatchedRolloutTest, VectorLoadsMatchCoreRef) {
  const BatchedTile tiles[] = {
      {.threads_x = 16, .threads_y = 16, .rows_per_thread = 4, .cols_per_thread = 4,
       .vector_loads = 1},
      {.threads_x = 4, .threads_y = 4, .rows_per_thread = 2, .cols_per_thread = 2, .slice_k = 16,
       .split = 2, .vector_loads = 1},
      {.threads_x = 3, .threads_y = 5, .rows_per_thread = 2, .cols_per_thread = 4, .slice_k = 8,
       .split = 3, .tree_in_memory = 1, .vector_loads = 1},
      {.threads_x = 4, .threads_y = 2, .rows_per_thread = 4, .cols_per_thread = 2, .slice_k = 64,
       .vector_loads = 1},
  };
  ExpectTilesMatchReference(tiles, {2, 193, 449}, {1, 17, 70}, 700, 800);
}

// The spread combine (BatchedTile::spread_combine: phase 2, one output an invocation, RM·RN
// workgroups along z): K blocks of 1, 2, 4 chunks (D = 130, 420, 449, 1000: partial last
// blocks), scalar and vector loads, an odd workgroup, 8 × 8 outputs (64 workgroups along z),
// pipelined rows; the dispatch count is that of phase 1; without K blocks the flag does nothing.
TEST_F(VulkanBatchedRolloutTest, SpreadCombineMatchesCoreRef) {
  const BatchedTile tiles[] = {
      {.threads_x = 16, .threads_y = 16, .rows_per_thread = 4, .cols_per_thread = 4,
       .split = 4, .vector_loads = 1, .spread_combine = 1},
      {.threads_x = 4, .threads_y = 4, .rows_per_thread = 2, .cols_per_thread = 2, .slice_k = 16,
       .split = 2, .spread_combine = 1},
      {.threads_x = 3, .threads_y = 5, .rows_per_thread = 2, .cols_per_thread = 3, .slice_k = 8,
       .split = 8, .tree_in_memory = 1, .spread_combine = 1},
      {.threads_x = 4, .threads_y = 2, .rows_per_thread = 8, .cols_per_thread = 8, .slice_k = 8,
       .split = 3, .vector_loads = 1, .pipeline_rows = 1, .spread_combine = 1},
      {.threads_x = 4, .threads_y = 4, .rows_per_thread = 2, .cols_per_thread = 2, .slice_k = 16,
       .spread_combine = 1},
  };
  ExpectTilesMatchReference(tiles, {130, 420, 449, 1000}, {1, 17, 70}, 1100, 1200,
                            nullptr,
                            [](const VulkanBatchedRollout& r) {
                              EXPECT_EQ(r.last_timings().dispatches,
                                        3 * (BatchedBlocks(r.chunks(), r.tile()) > 1 ? 2 : 1));
                            });
}

// Pipelined term rows (BatchedTile::pipeline_rows): the kk loop's shared loads a row ahead and
// the last row of every full slice after the barrier. D = 193 and 449 end in a partial slice
// (the unpipelined tail) for k 8 and 16; D = 2 is one partial slice; k 2 is the shortest
// pipeline (one row before the barrier, one after), k 1 ignores the flag; with K blocks (chunk
// ends in the deferred row: PushChunk after the barrier), the slots in memory, scalar and vector
// loads, and the 64 × 64 tile of the GPUs.
TEST_F(VulkanBatchedRolloutTest, PipelinedRowsMatchCoreRef) {
  const BatchedTile tiles[] = {
      {.threads_x = 16, .threads_y = 16, .rows_per_thread = 4, .cols_per_thread = 4,
       .vector_loads = 1, .pipeline_rows = 1},
      {.threads_x = 16, .threads_y = 16, .rows_per_thread = 4, .cols_per_thread = 4,
       .pipeline_rows = 1},
      {.threads_x = 4, .threads_y = 4, .rows_per_thread = 2, .cols_per_thread = 2, .slice_k = 16,
       .split = 2, .vector_loads = 1, .pipeline_rows = 1},
      {.threads_x = 3, .threads_y = 5, .rows_per_thread = 2, .cols_per_thread = 4, .slice_k = 2,
       .split = 3, .tree_in_memory = 1, .vector_loads = 1, .pipeline_rows = 1},
      {.threads_x = 5, .threads_y = 3, .rows_per_thread = 1, .cols_per_thread = 3, .slice_k = 4,
       .split = 4, .pipeline_rows = 1},
      {.threads_x = 4, .threads_y = 4, .rows_per_thread = 2, .cols_per_thread = 2, .slice_k = 1,
       .pipeline_rows = 1},
  };
  ExpectTilesMatchReference(tiles, {2, 193, 449}, {1, 17, 70}, 900, 1000);
}

// One shared stage (BatchedTile::single_stage: the next slice stored between two barriers) and the
// tree slots in local memory (local_slots: the level loops with a run-time slot index): the
// automatic slice (16 on lavapipe's 32 KiB), k 1, 2, 8, 64; D = 2 (one partial slice), 193 and
// 449 (partial last slices and chunks), 1100 (18 chunks: five slots, the fold of 18 = 16 + 2);
// with K blocks, the slots in scratch (local_slots then ignored), the pipelined flag (ignored
// with one stage), scalar and vector loads, an odd workgroup.
TEST_F(VulkanBatchedRolloutTest, OneStageAndLocalSlotsMatchCoreRef) {
  const BatchedTile tiles[] = {
      {.threads_x = 16, .threads_y = 16, .rows_per_thread = 4, .cols_per_thread = 4,
       .vector_loads = 1, .spread_combine = 1, .single_stage = 1},
      {.threads_x = 16, .threads_y = 16, .rows_per_thread = 4, .cols_per_thread = 4, .slice_k = 8,
       .vector_loads = 1, .single_stage = 1, .local_slots = 1},
      {.threads_x = 4, .threads_y = 4, .rows_per_thread = 2, .cols_per_thread = 2, .slice_k = 64,
       .split = 2, .vector_loads = 1, .spread_combine = 1, .single_stage = 1, .local_slots = 1},
      {.threads_x = 3, .threads_y = 5, .rows_per_thread = 2, .cols_per_thread = 4, .slice_k = 2,
       .split = 3, .tree_in_memory = 1, .vector_loads = 1, .single_stage = 1, .local_slots = 1},
      {.threads_x = 5, .threads_y = 3, .rows_per_thread = 1, .cols_per_thread = 3, .slice_k = 1,
       .single_stage = 1, .local_slots = 1},
      {.threads_x = 4, .threads_y = 4, .rows_per_thread = 2, .cols_per_thread = 2, .slice_k = 16,
       .pipeline_rows = 1, .single_stage = 1},
      {.threads_x = 4, .threads_y = 4, .rows_per_thread = 2, .cols_per_thread = 2, .slice_k = 16,
       .vector_loads = 1, .local_slots = 1},
  };
  // D = 1100 without B = 70 (lavapipe's time; B = 17 already leaves partial tiles).
  ExpectTilesMatchReference(tiles, {2, 193, 449, 1100}, {1, 17, 70}, 1300, 1400,
                            [](int64_t dim, int64_t batch) { return dim == 1100 && batch == 70; });
}

// The GPUs' automatic tiles of many workgroups and the narrower ones (SuggestBatchedTile): 64 × 64
// in one stage of 16 rows with local slots (two workgroups per SM), 32 × 32 of 8 × 16 and 64 × 32
// of 16 × 16 invocations with 4 × 2 outputs; and 96 × 64 of 24 × 16 invocations with local slots
// (rows 2·(ty + 24·p) + {0, 1}; automatic before the 64 × 64 one), in one block and in two.
// B = 200 (two full tiles of 96 rows, a partial third), D = 193 and 1100 (partial last slices,
// chunks and column tiles; five slots at 1100).
TEST_F(VulkanBatchedRolloutTest, TallAndNarrowTilesMatchCoreRef) {
  const BatchedTile tiles[] = {
      {.threads_x = 16, .threads_y = 16, .rows_per_thread = 4, .cols_per_thread = 4,
       .slice_k = 16, .vector_loads = 1, .spread_combine = 1, .single_stage = 1,
       .local_slots = 1},
      {.threads_x = 16, .threads_y = 24, .rows_per_thread = 4, .cols_per_thread = 4,
       .vector_loads = 1, .spread_combine = 1, .single_stage = 1, .local_slots = 1},
      {.threads_x = 16, .threads_y = 24, .rows_per_thread = 4, .cols_per_thread = 4, .split = 2,
       .vector_loads = 1, .spread_combine = 1, .single_stage = 1, .local_slots = 1},
      {.threads_x = 16, .threads_y = 8, .rows_per_thread = 4, .cols_per_thread = 2,
       .vector_loads = 1, .spread_combine = 1, .single_stage = 1},
      {.threads_x = 16, .threads_y = 16, .rows_per_thread = 4, .cols_per_thread = 2,
       .vector_loads = 1, .spread_combine = 1, .single_stage = 1},
  };
  ExpectTilesMatchReference(tiles, {193, 1100}, {17, 200}, 1500, 1600);
}

// K groups (BatchedTile::k_groups: copies of the tile in one workgroup over aligned groups of
// chunks, folded through shared memory): 2, 3 (an odd copy carried in the fold) and 4 copies, and
// 4 where the last copies are idle (D = 193: three chunks), and the automatic 16 × 16 tiles in 8
// and 4; with one and two stages, scalar and vector loads, pipelined rows, K blocks (spread and
// not), the slots in scratch and in local memory, an odd workgroup; D = 2 … 1100 (18 chunks:
// groups of 8, 16 + 2 with two copies).
TEST_F(VulkanBatchedRolloutTest, KGroupsMatchCoreRef) {
  const BatchedTile tiles[] = {
      {.threads_x = 16, .threads_y = 8, .rows_per_thread = 4, .cols_per_thread = 2,
       .vector_loads = 1, .spread_combine = 1, .single_stage = 1, .k_groups = 2},
      {.threads_x = 8, .threads_y = 8, .rows_per_thread = 2, .cols_per_thread = 2, .slice_k = 8,
       .k_groups = 4},
      {.threads_x = 5, .threads_y = 3, .rows_per_thread = 1, .cols_per_thread = 3, .slice_k = 4,
       .split = 2, .tree_in_memory = 1, .k_groups = 3},
      {.threads_x = 4, .threads_y = 4, .rows_per_thread = 2, .cols_per_thread = 2, .slice_k = 16,
       .split = 3, .vector_loads = 1, .pipeline_rows = 1, .spread_combine = 1, .k_groups = 2},
      {.threads_x = 8, .threads_y = 4, .rows_per_thread = 2, .cols_per_thread = 4, .slice_k = 16,
       .vector_loads = 1, .single_stage = 1, .local_slots = 1, .k_groups = 3},
      // SuggestBatchedTile's 16 × 16 tiles: scalar loads, one stage, eight copies (automatic
      // slice) and four copies (the slice of 16).
      {.threads_x = 8, .threads_y = 4, .rows_per_thread = 4, .cols_per_thread = 2,
       .spread_combine = 1, .single_stage = 1, .k_groups = 8},
      {.threads_x = 8, .threads_y = 4, .rows_per_thread = 4, .cols_per_thread = 2, .slice_k = 16,
       .spread_combine = 1, .single_stage = 1, .k_groups = 4},
  };
  ExpectTilesMatchReference(tiles, {2, 193, 449, 1100}, {1, 17, 70}, 1700, 1800,
                            [](int64_t dim, int64_t batch) { return dim == 1100 && batch == 70; });
}

// K-group tiles at m = 32 chunks (SuggestBatchedTile takes 8 × 16 in eight copies and 16 × 16 in
// eight or four at 29 … 32 chunks, D = 1793 … 2048, B = 5 … 32): those, and 8 × 16 in four copies
// and 32 × 32 in two; D = 2000 (the last chunk of 16 rows) and 2048, B = 8 (8 × 16: one full row
// tile), 13 (a partial one), 16.
TEST_F(VulkanBatchedRolloutTest, KGroupsAtThirtyTwoChunksMatchCoreRef) {
  const BatchedTile tiles[] = {
      {.threads_x = 8, .threads_y = 2, .rows_per_thread = 4, .cols_per_thread = 2,
       .spread_combine = 1, .single_stage = 1, .k_groups = 8},
      {.threads_x = 8, .threads_y = 2, .rows_per_thread = 4, .cols_per_thread = 2, .slice_k = 16,
       .spread_combine = 1, .single_stage = 1, .k_groups = 4},
      {.threads_x = 8, .threads_y = 4, .rows_per_thread = 4, .cols_per_thread = 2,
       .spread_combine = 1, .single_stage = 1, .k_groups = 8},
      {.threads_x = 8, .threads_y = 4, .rows_per_thread = 4, .cols_per_thread = 2, .slice_k = 16,
       .spread_combine = 1, .single_stage = 1, .k_groups = 4},
      {.threads_x = 16, .threads_y = 8, .rows_per_thread = 4, .cols_per_thread = 2,
       .vector_loads = 1, .spread_combine = 1, .single_stage = 1, .k_groups = 2},
  };
  ExpectTilesMatchReference(tiles, {2000, 2048}, {8, 13, 16}, 1900, 2000);
}

// docs/MATH.md §9's pairwise-tree examples in every row (z = s at the first row of each chunk, 0
// elsewhere; s differs per row): D = 256 with partials (1e16, 1, −1e16, 1)·s gives 0 (a flat sum
// gives s), D = 192 with (1, 1e16, −1e16)·s gives 0 (left to right gives s).
TEST_F(VulkanBatchedRolloutTest, PairwiseTreeExamples) {
  const std::vector<std::vector<double>> cases = {{1e16, 1, -1e16, 1}, {1, 1e16, -1e16}};
  for (const std::vector<double>& partials : cases) {
    const int64_t dim = 64 * static_cast<int64_t>(partials.size());
    const int64_t batch = 3;
    std::vector<double> a = DecayingMatrix(dim, 700 + dim);
    std::vector<double> z0(static_cast<size_t>(batch * dim), 0.0);
    for (int64_t b = 0; b < batch; ++b) {
      // s = 1, −2, 4: a power of two scales every rounding exactly, so each row still gives 0.
      const double s = std::ldexp(b % 2 == 0 ? 1.0 : -1.0, static_cast<int>(b));
      for (size_t c = 0; c < partials.size(); ++c) z0[b * dim + 64 * c] = s;
    }
    for (size_t c = 0; c < partials.size(); ++c) {
      for (int64_t j = 0; j < dim; ++j) a[64 * c * dim + j] = partials[c];
    }
    // The default tile, then K blocks of 2 and of 1 chunk (the combine forms the tree's upper
    // levels) with the slots in memory.
    // Then K groups of one and two chunks (the fold through shared memory forms them).
    for (const BatchedTile tile :
         {BatchedTile{}, BatchedTile{.split = 2}, BatchedTile{.split = 4, .tree_in_memory = 1},
          BatchedTile{.threads_x = 8, .threads_y = 8, .rows_per_thread = 2, .cols_per_thread = 2,
                      .k_groups = 4},
          BatchedTile{.threads_x = 8, .threads_y = 8, .rows_per_thread = 2, .cols_per_thread = 2,
                      .k_groups = 3},
          BatchedTile{.threads_x = 8, .threads_y = 8, .k_groups = 2}}) {
      std::unique_ptr<VulkanBatchedRollout> r = Make(dim, a, {.tile = tile});
      ASSERT_NE(r, nullptr);
      StatusOr<BatchedRolloutResult> got = r->Run(z0, batch, {.steps = 1, .hash_every = 1});
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      for (int64_t b = 0; b < batch; ++b) {
        std::vector<double> want(static_cast<size_t>(dim));
        ASSERT_TRUE(CanonicalVecMatScalar(Row(z0, b, dim), a, want).ok());
        for (double w : want) ASSERT_EQ(w, 0.0);
        EXPECT_TRUE(SameBits(got->final_state(b), want))
            << "D=" << dim << " trajectory " << b << " tile " << tile.ToString();
      }
    }
  }
}

TEST_F(VulkanBatchedRolloutTest, SubmissionSplitsAndStagingSlots) {
  const int64_t dim = 70, batch = 11;
  const std::vector<double> a = DecayingMatrix(dim, 41);
  const std::vector<double> z0 = NonZeroUniform(static_cast<size_t>(batch * dim), 42, 1.0);
  const uint64_t state_bytes = static_cast<uint64_t>(batch * dim) * sizeof(double);
  const VulkanBatchedRolloutOptions configs[] = {
      {.max_steps_per_submit = 1, .max_snapshots_per_submit = 1},
      {.max_steps_per_submit = 3, .max_snapshots_per_submit = 2},
      {.max_steps_per_submit = 1024, .max_snapshots_per_submit = 1},
      {.max_snapshots_per_submit = 64, .max_staging_bytes = 2 * state_bytes + 1},  // 2 slots
      {.max_staging_bytes = 1},  // less than one state: still one slot
  };
  const int64_t want_slots[] = {1, 2, 1, 2, 1};
  for (size_t k = 0; k < std::size(configs); ++k) {
    const VulkanBatchedRolloutOptions& o = configs[k];
    SCOPED_TRACE("config " + std::to_string(k));
    std::unique_ptr<VulkanBatchedRollout> r = Make(dim, a, o);
    ASSERT_NE(r, nullptr);
    ExpectMatchesReference(*r, z0, batch, a, {.steps = 11, .hash_every = 2});
    EXPECT_EQ(r->staging_slots(), want_slots[k]);
    const BatchedRolloutTimings& t = r->last_timings();
    EXPECT_EQ(t.batch, batch);
    EXPECT_EQ(t.steps, 11);
    EXPECT_EQ(t.snapshots, 6);  // 2, 4, 6, 8, 10, 11
    const int64_t by_steps = (11 + o.max_steps_per_submit - 1) / o.max_steps_per_submit;
    const int64_t by_slots = (6 + want_slots[k] - 1) / want_slots[k];
    EXPECT_GE(t.submissions, std::max(by_steps, by_slots));
  }
}

// A sink sees step 0, every multiple of observe_every and the last step, each state bit for bit
// core_ref's at that step, in increasing order; the chains stay core_ref's (checkpoints are not
// observed steps); with 4 slots the observed states come back 4 per submission, not one per step;
// the sink's error stops the run.
TEST_F(VulkanBatchedRolloutTest, SinkSeesTheObservedStatesInBulk) {
  const int64_t dim = 70, batch = 3, steps = 13;
  const std::vector<double> a = DecayingMatrix(dim, 71);
  const std::vector<double> z0 = NonZeroUniform(static_cast<size_t>(batch * dim), 72, 1.0);
  // The reference's state of every row at every step.
  std::vector<std::vector<double>> want(static_cast<size_t>(steps + 1));
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<double> z(Row(z0, b, dim).begin(), Row(z0, b, dim).end());
    for (int64_t t = 0; t <= steps; ++t) {
      if (t > 0) {
        std::vector<double> next(static_cast<size_t>(dim));
        ASSERT_TRUE(CanonicalVecMat(z, a, next).ok());
        z = next;
      }
      want[t].insert(want[t].end(), z.begin(), z.end());
    }
  }
  std::unique_ptr<VulkanBatchedRollout> r =
      Make(dim, a, {.max_snapshots_per_submit = 4});
  ASSERT_NE(r, nullptr);
  for (int64_t every : {1, 3, 20}) {
    SCOPED_TRACE("observe_every " + std::to_string(every));
    const RolloutParams p{.steps = steps, .hash_every = 5, .observe_every = every};
    std::vector<int64_t> seen;
    StatusOr<BatchedRolloutResult> got =
        r->Run(z0, batch, p, [&](int64_t step, std::span<const double> states) {
          seen.push_back(step);
          EXPECT_TRUE(SameBits(states, want[step])) << "step " << step;
          return OkStatus();
        });
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    std::vector<int64_t> expected;
    for (int64_t t = 0; t <= steps; ++t) {
      if (t % every == 0 || t == steps) expected.push_back(t);
    }
    EXPECT_EQ(seen, expected);
    for (int64_t b = 0; b < batch; ++b) {
      StatusOr<RolloutResult> ref = Rollout(Row(z0, b, dim), a, p);
      ASSERT_TRUE(ref.ok());
      EXPECT_EQ(got->chains[b], ref->chain) << "trajectory " << b;
    }
    if (every == 1) {
      // 13 observed steps (and the checkpoints among them) in slots of 4: 4 submissions.
      EXPECT_EQ(r->last_timings().submissions, 4);
      EXPECT_EQ(r->last_timings().snapshots, steps);
    }
  }
  StatusOr<BatchedRolloutResult> stopped =
      r->Run(z0, batch, {.steps = steps, .hash_every = 5, .observe_every = 1},
             [](int64_t step, std::span<const double>) {
               return step == 6 ? InternalError("sink full") : OkStatus();
             });
  EXPECT_EQ(stopped.status().code(), StatusCode::kInternal);
  EXPECT_NE(stopped.status().message().find("sink full"), std::string::npos);
}

// One object, batches growing and shrinking: the buffers regrow, guards follow the live rows.
TEST_F(VulkanBatchedRolloutTest, BatchSizeChangesBetweenRuns) {
  const int64_t dim = 66;
  const std::vector<double> a = DecayingMatrix(dim, 51);
  std::unique_ptr<VulkanBatchedRollout> r = Make(dim, a);
  ASSERT_NE(r, nullptr);
  for (int64_t batch : {2, 70, 5, 129, 1}) {
    SCOPED_TRACE("B=" + std::to_string(batch));
    const std::vector<double> z0 =
        NonZeroUniform(static_cast<size_t>(batch * dim), 52 + batch, 1.0);
    ExpectMatchesReference(*r, z0, batch, a, {.steps = 3, .hash_every = 2});
  }
}

TEST_F(VulkanBatchedRolloutTest, TimingsFilled) {
  const int64_t dim = 64, batch = 16;
  const std::vector<double> a = DecayingMatrix(dim, 61);
  const std::vector<double> z0 = NonZeroUniform(static_cast<size_t>(batch * dim), 62, 1.0);
  std::unique_ptr<VulkanBatchedRollout> r = Make(dim, a);
  ASSERT_NE(r, nullptr);
  ASSERT_TRUE(r->Run(z0, batch, {.steps = 12, .hash_every = 4}).ok());
  const BatchedRolloutTimings& t = r->last_timings();
  EXPECT_EQ(t.steps, 12);
  EXPECT_EQ(t.submissions, 1);
  EXPECT_EQ(t.snapshots, 3);
  EXPECT_GT(t.host_ms, 0.0);
  EXPECT_LE(t.steps_ms, t.device_ms);
  if (t.timestamps && t.steps_ms > 0) {
    EXPECT_NEAR(t.trajectory_steps_per_second * t.device_us_per_step, batch * 1e6, 1e-3 * batch);
    EXPECT_NEAR(t.gflops * 1e3 * t.device_us_per_step, 2.0 * batch * dim * dim, 1.0);
  }
}

TEST_F(VulkanBatchedRolloutTest, RejectsBadCreateArguments) {
  const int64_t dim = 4;
  const std::vector<double> a = DecayingMatrix(dim, 71);
  auto code = [&](int64_t d, std::span<const double> m, const VulkanBatchedRolloutOptions& o) {
    return VulkanBatchedRollout::Create(ctx(), d, m, o).status().code();
  };
  EXPECT_EQ(code(0, {}, {}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code(dim, std::span(a).first(15), {}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code(VulkanBatchedRollout::kMaxDim + 1, {}, {}), StatusCode::kUnimplemented);
  EXPECT_EQ(code(dim, a, {.max_steps_per_submit = 0}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code(dim, a, {.max_snapshots_per_submit = 0}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code(dim, a, {.tile = {.threads_x = 0}}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code(dim, a, {.tile = {.slice_k = 3}}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code(dim, a, {.tile = {.threads_x = 1u << 20}}), StatusCode::kInvalidArgument);
  for (double bad : {std::numeric_limits<double>::quiet_NaN(),
                     -std::numeric_limits<double>::infinity()}) {
    std::vector<double> a_bad = a;
    a_bad[1 * dim + 2] = bad;
    const Status st = VulkanBatchedRollout::Create(ctx(), dim, a_bad).status();
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
    EXPECT_NE(st.message().find("A[1][2] (flat index 6)"), std::string::npos) << st.ToString();
  }
}

TEST_F(VulkanBatchedRolloutTest, RejectsBadRunArgumentsLikeCoreRef) {
  const int64_t dim = 5, batch = 4;
  const std::vector<double> a = DecayingMatrix(dim, 81);
  const std::vector<double> z0 = NonZeroUniform(static_cast<size_t>(batch * dim), 82, 1.0);
  std::unique_ptr<VulkanBatchedRollout> r = Make(dim, a);
  ASSERT_NE(r, nullptr);
  for (const RolloutParams& p : {RolloutParams{.steps = -1}, RolloutParams{.hash_every = 0},
                                 RolloutParams{.steps = 2, .observe_every = -1}}) {
    const Status want = Rollout(Row(z0, 0, dim), a, p).status();
    EXPECT_EQ(r->Run(z0, batch, p).status(), want) << want.ToString();
  }
  EXPECT_EQ(r->Run(z0, 0, {.steps = 1}).status().code(), StatusCode::kInvalidArgument);
  const Status size = r->Run(std::span(z0).first(19), batch, {.steps = 1}).status();
  EXPECT_EQ(size.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(size.message().find("B x D = 4 x 5 = 20"), std::string::npos) << size.ToString();
  for (double bad : {std::numeric_limits<double>::quiet_NaN(),
                     std::numeric_limits<double>::infinity()}) {
    std::vector<double> z_bad = z0;
    z_bad[2 * dim + 3] = bad;  // trajectory 2, z0[3]
    z_bad[3 * dim + 1] = bad;  // a later trajectory: not the one reported
    const Status want =
        Rollout(Row(z_bad, 2, dim), a, {.steps = 1}).status().WithPrefix("trajectory 2");
    EXPECT_EQ(r->Run(z_bad, batch, {.steps = 1}).status(), want) << want.ToString();
  }
}

// A blow-up: trajectories 1 and 3 start 1e100 times larger than the others (same values), so they
// overflow first, at the same step; the error must be core_ref's for trajectory 1, whatever the
// checkpoint spacing and staging slots (the replay finds the step).
TEST_F(VulkanBatchedRolloutTest, NonFiniteStateGivesTheFirstTrajectorysCoreRefError) {
  const int64_t dim = 100, batch = 5;
  std::vector<double> a = DecayingMatrix(dim, 91);
  for (double& x : a) x *= 1e30;
  std::vector<double> z0 = NonZeroUniform(static_cast<size_t>(batch * dim), 92, 1e-100);
  for (int64_t i = 0; i < dim; ++i) {
    z0[1 * dim + i] *= 1e100;
    z0[3 * dim + i] = z0[1 * dim + i];
  }
  for (int64_t max_snaps : {1, 3, 64}) {
    std::unique_ptr<VulkanBatchedRollout> r =
        Make(dim, a, {.max_steps_per_submit = 4, .max_snapshots_per_submit = max_snaps});
    ASSERT_NE(r, nullptr);
    for (int64_t hash_every : {1, 3, 7, 1000}) {
      SCOPED_TRACE("max_snaps=" + std::to_string(max_snaps) +
                   " hash_every=" + std::to_string(hash_every));
      const RolloutParams p{.steps = 40, .hash_every = hash_every};
      const Status want = Rollout(Row(z0, 1, dim), a, p).status().WithPrefix("trajectory 1");
      ASSERT_EQ(want.code(), StatusCode::kOutOfRange) << want.ToString();
      // Trajectory 0 blows up too, but later: the error must not be its.
      ASSERT_NE(Rollout(Row(z0, 0, dim), a, p).status().message(),
                Rollout(Row(z0, 1, dim), a, p).status().message());
      EXPECT_EQ(r->Run(z0, batch, p).status(), want);
    }
  }
}

}  // namespace
}  // namespace dashi::vk
