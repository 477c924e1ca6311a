// The small-batch persistent kernel of VulkanBatchedRollout (BatchedKernel::kSmallBatch,
// shaders/batched/batched_persistent.comp) against core_ref's RolloutBatch, bit for bit per row:
// chains, final states and every observed state, on the default device (lavapipe in CI: one
// workgroup, which walks every (chunk, tile) unit; D ≤ W gives the register-resident A path).
// Shapes: B = 1, 2, 3, 5, 17, 64 (one row, partial and several row groups and passes) over the
// contraction sweep of conformance/framework (chunk counts 1..17 with partial last chunks); the
// options (workgroup size, rows per pass, submissions, history ring smaller than the observed
// stretch); the kernel choice; core_ref's error for a blow-up.
#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "accel_vulkan/batched/batched_parity_testing.h"
#include "accel_vulkan/batched/vulkan_batched_rollout.h"
#include "accel_vulkan/testing/vulkan_test.h"
#include "conformance/framework/sweep_shapes.h"
#include "core_ref/rollout/rollout.h"
#include "core_ref/rollout/rollout_batch.h"
#include "core_ref/testing/random_inputs.h"

namespace dashi::vk {
namespace {

using dashi::testing::DecayingMatrix;
using dashi::testing::NonZeroUniform;
using testing::SameBits;

VulkanBatchedRolloutOptions SmallBatch(VulkanBatchedRolloutOptions o = {}) {
  o.kernel = BatchedKernel::kSmallBatch;
  return o;
}

class SmallBatchRolloutTest : public testing::VulkanTest {
 protected:
  // Runs B rows with the small-batch kernel and compares every row's chain, final state and
  // observed states with core_ref's RolloutBatch (batched_parity_testing.h).
  void ExpectMatchesRolloutBatch(int64_t batch, int64_t dim, const RolloutParams& p,
                                 const VulkanBatchedRolloutOptions& options, uint64_t seed) {
    testing::ExpectBatchedMatchesRolloutBatch(ctx(), batch, dim, p, options, seed,
                                              BatchedKernel::kSmallBatch);
  }
};

// B = 1, 2, 3, 5, 17, 64 over the contraction sweep (D ≤ 1100: chunk counts 1..17, partial last
// chunks of one row, 63/64/65 and 127/128/129): each D with the next B in turn, and B = 64 and 17
// at the chunk edges.
TEST_F(SmallBatchRolloutTest, MatchesRolloutBatchOverSweepShapes) {
  const int64_t batches[] = {1, 2, 3, 5, 17, 64};
  std::vector<std::pair<int64_t, int64_t>> shapes;
  size_t k = 0;
  for (int64_t dim : conformance::ContractionSweepDims(1100)) {
    shapes.push_back({batches[k++ % 6], dim});
  }
  for (int64_t batch : batches) {
    for (int64_t dim : {1, 63, 65, 130}) shapes.push_back({batch, dim});
  }
  for (const auto& [batch, dim] : shapes) {
    ExpectMatchesRolloutBatch(batch, dim, {.steps = 7, .hash_every = 3, .observe_every = 2},
                              SmallBatch(), 1000 + static_cast<uint64_t>(dim));
  }
}

// The run's eval shape (B = 3, D = 506) with every state observed, as the pipeline asks for it.
TEST_F(SmallBatchRolloutTest, EveryStateObservedAtTheRunsShape) {
  ExpectMatchesRolloutBatch(3, 506, {.steps = 40, .hash_every = 10, .observe_every = 1},
                            SmallBatch(), 77);
}

// Options: workgroups of 16 and 32 (D ≤ W: A register-resident), 4 and 8 rows per pass (B = 17:
// five and three passes), one step per dispatch, three staging slots (and history slots) per
// submission under every state observed, and several of them together.
TEST_F(SmallBatchRolloutTest, OptionsAgree) {
  const RolloutParams every{.steps = 11, .hash_every = 4, .observe_every = 1};
  const RolloutParams sparse{.steps = 13, .hash_every = 5, .observe_every = 3};
  ExpectMatchesRolloutBatch(5, 16, every, SmallBatch({.small_batch_workgroup = 16}), 1);
  ExpectMatchesRolloutBatch(5, 30, every, SmallBatch({.small_batch_workgroup = 32}), 2);
  ExpectMatchesRolloutBatch(17, 100, sparse, SmallBatch({.small_batch_pass_rows = 4}), 3);
  ExpectMatchesRolloutBatch(17, 129, every, SmallBatch({.small_batch_pass_rows = 8}), 4);
  ExpectMatchesRolloutBatch(3, 70, sparse, SmallBatch({.small_batch_max_steps_per_dispatch = 1}),
                            5);
  ExpectMatchesRolloutBatch(3, 70, every,
                            SmallBatch({.max_steps_per_submit = 5, .max_snapshots_per_submit = 3}),
                            6);
  ExpectMatchesRolloutBatch(
      6, 200, sparse,
      SmallBatch({.small_batch_workgroup = 16,
                  .small_batch_pass_rows = 4,
                  .max_steps_per_submit = 7,
                  .max_snapshots_per_submit = 2}),
      7);
}

// Row groups (a unit's rows spread over R groups of C invocations) and interleaved rows per
// invocation: with A in registers and every row in one pass (the merged arrival wait and
// rebuild), in several passes, and with A read per unit (the one workgroup walks the units).
// Lavapipe runs one workgroup, so A stays in registers only for D ≤ 64 (one unit): the merged
// path's tree over m > 1 chunk partials runs on GPUs (conformance, the benchmark's check).
TEST_F(SmallBatchRolloutTest, RowGroupsAgree) {
  const RolloutParams every{.steps = 9, .hash_every = 4, .observe_every = 1};
  const RolloutParams sparse{.steps = 12, .hash_every = 5, .observe_every = 3};
  // Merged: B = 3 over 3 row groups of one row each (the run's shape of the GPU).
  ExpectMatchesRolloutBatch(
      3, 16, every, SmallBatch({.small_batch_workgroup = 16, .small_batch_row_groups = 3}), 21);
  // Merged: 2 row groups of 3 rows (4 interleaved, the last zero), a partial chunk.
  ExpectMatchesRolloutBatch(
      5, 30, sparse, SmallBatch({.small_batch_workgroup = 32, .small_batch_row_groups = 2}), 22);
  // Merged, one row per chain, more row groups than rows.
  ExpectMatchesRolloutBatch(3, 64, every,
                            SmallBatch({.small_batch_workgroup = 64,
                                        .small_batch_row_groups = 4,
                                        .small_batch_group_rows = 1}),
                            23);
  // Resident A, several passes (B > P): the separate device-wide barrier.
  ExpectMatchesRolloutBatch(9, 64, sparse,
                            SmallBatch({.small_batch_workgroup = 64,
                                        .small_batch_row_groups = 3,
                                        .small_batch_pass_rows = 4}),
                            24);
  // A read per unit (D > C), two interleaved rows per invocation.
  ExpectMatchesRolloutBatch(17, 100, sparse,
                            SmallBatch({.small_batch_workgroup = 16,
                                        .small_batch_row_groups = 4,
                                        .small_batch_group_rows = 2}),
                            25);
  // Merged, the rebuild by fewer invocations, several entries at once: Q = 16 invocations of 48
  // rebuilding 3 entries each; Q = 20, U = 4 (an uneven last round, clamped loads); Q = 0 (all)
  // with U = 2 at B = 17.
  ExpectMatchesRolloutBatch(3, 16, every,
                            SmallBatch({.small_batch_workgroup = 16,
                                        .small_batch_row_groups = 3,
                                        .small_batch_rebuilders = 16,
                                        .small_batch_rebuild_unroll = 3}),
                            27);
  ExpectMatchesRolloutBatch(5, 61, sparse,
                            SmallBatch({.small_batch_workgroup = 64,
                                        .small_batch_row_groups = 2,
                                        .small_batch_rebuilders = 20,
                                        .small_batch_rebuild_unroll = 4}),
                            28);
  ExpectMatchesRolloutBatch(17, 60, every,
                            SmallBatch({.small_batch_workgroup = 64,
                                        .small_batch_row_groups = 2,
                                        .small_batch_rebuild_unroll = 2}),
                            29);
  // A read per unit at the run's D (506: eight chunks, the last of 58 rows), B = 3 in 2 row
  // groups.
  ExpectMatchesRolloutBatch(
      3, 506, every, SmallBatch({.small_batch_workgroup = 512, .small_batch_row_groups = 2}), 26);
}

// Rebuild once (small_batch_rebuild_once = 2): every state entry rebuilt once per step by all
// workgroups, a second device-wide barrier, then each unit loads its chunk of the new state. On
// lavapipe (one workgroup) the option applies where A stays in registers (D <= C); one step per
// dispatch by default there, so the steps after a dispatch's first (the second barrier and the
// loads of step (5)) are covered by the runs of a few steps per dispatch below and on GPUs by
// conformance. B > P (several passes) falls back to the plain path.
TEST_F(SmallBatchRolloutTest, RebuildOnceAgrees) {
  const RolloutParams every{.steps = 9, .hash_every = 4, .observe_every = 1};
  const RolloutParams sparse{.steps = 12, .hash_every = 5, .observe_every = 3};
  ExpectMatchesRolloutBatch(3, 16, every,
                            SmallBatch({.small_batch_workgroup = 16,
                                        .small_batch_row_groups = 3,
                                        .small_batch_rebuild_once = 2}),
                            31);
  ExpectMatchesRolloutBatch(5, 61, sparse,
                            SmallBatch({.small_batch_workgroup = 64,
                                        .small_batch_row_groups = 2,
                                        .small_batch_rebuild_once = 2}),
                            32);
  ExpectMatchesRolloutBatch(17, 60, every,
                            SmallBatch({.small_batch_workgroup = 64,
                                        .small_batch_row_groups = 4,
                                        .small_batch_rebuild_once = 2}),
                            33);
  // Several steps per dispatch: the second barrier and the loads from the rebuilt state.
  ExpectMatchesRolloutBatch(3, 16, every,
                            SmallBatch({.small_batch_workgroup = 16,
                                        .small_batch_row_groups = 3,
                                        .small_batch_rebuild_once = 2,
                                        .small_batch_max_steps_per_dispatch = 3}),
                            34);
  ExpectMatchesRolloutBatch(6, 40, sparse,
                            SmallBatch({.small_batch_workgroup = 64,
                                        .small_batch_row_groups = 2,
                                        .small_batch_rebuild_once = 2,
                                        .small_batch_max_steps_per_dispatch = 4}),
                            35);
  // The plain device-wide barrier (= 3), several steps per dispatch.
  ExpectMatchesRolloutBatch(5, 61, every,
                            SmallBatch({.small_batch_workgroup = 64,
                                        .small_batch_row_groups = 2,
                                        .small_batch_rebuild_once = 3,
                                        .small_batch_max_steps_per_dispatch = 3}),
                            39);
  // Q != 0: the entries spread over the workgroups (one here: its share is all of them, in
  // rounds of W); U >= 2: two entries a round in the rebuild (B = 5, D = 61: 305 entries, rounds
  // of 2 x 128, the last second entry past the end) and U loads in flight in the loads of the
  // new state (U = 4 at B = 3, W = 48: one round of 192; U = 3 at B = 6, W = 128: one of 384),
  // several steps per dispatch.
  ExpectMatchesRolloutBatch(3, 16, every,
                            SmallBatch({.small_batch_workgroup = 16,
                                        .small_batch_row_groups = 3,
                                        .small_batch_rebuild_unroll = 4,
                                        .small_batch_rebuild_once = 2,
                                        .small_batch_max_steps_per_dispatch = 3}),
                            45);
  ExpectMatchesRolloutBatch(6, 40, sparse,
                            SmallBatch({.small_batch_workgroup = 64,
                                        .small_batch_row_groups = 2,
                                        .small_batch_rebuilders = 1,
                                        .small_batch_rebuild_unroll = 3,
                                        .small_batch_rebuild_once = 2,
                                        .small_batch_max_steps_per_dispatch = 4}),
                            46);
  ExpectMatchesRolloutBatch(5, 61, every,
                            SmallBatch({.small_batch_workgroup = 64,
                                        .small_batch_row_groups = 2,
                                        .small_batch_rebuilders = 1,
                                        .small_batch_rebuild_unroll = 2,
                                        .small_batch_rebuild_once = 2,
                                        .small_batch_max_steps_per_dispatch = 3}),
                            47);
  ExpectMatchesRolloutBatch(5, 61, sparse,
                            SmallBatch({.small_batch_workgroup = 64,
                                        .small_batch_row_groups = 2,
                                        .small_batch_rebuild_unroll = 2,
                                        .small_batch_rebuild_once = 3,
                                        .small_batch_max_steps_per_dispatch = 3}),
                            48);
  // Several passes (B = 9 > P = 4): the option does not apply, the plain path runs.
  ExpectMatchesRolloutBatch(9, 64, sparse,
                            SmallBatch({.small_batch_workgroup = 64,
                                        .small_batch_row_groups = 3,
                                        .small_batch_pass_rows = 4,
                                        .small_batch_rebuild_once = 2}),
                            36);

  // The option is reported where it applies, off where it does not or is not asked for.
  const int64_t dim = 40;
  const std::vector<double> a = DecayingMatrix(dim, 37);
  const std::vector<double> z0 = NonZeroUniform(static_cast<size_t>(9 * dim), 38, 1.0);
  for (const auto& [once, pass_rows, want] :
       {std::tuple<uint32_t, uint32_t, bool>{2, 0, true}, {2, 4, false}, {1, 0, false},
        {0, 0, false}}) {
    StatusOr<std::unique_ptr<VulkanBatchedRollout>> r = VulkanBatchedRollout::Create(
        ctx(), dim, a,
        SmallBatch({.small_batch_workgroup = 64,
                    .small_batch_pass_rows = pass_rows,
                    .small_batch_rebuild_once = once}));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_TRUE((*r)->Run(z0, 9, {.steps = 2, .hash_every = 2}).ok());
    EXPECT_EQ((*r)->small_batch_rebuild_once(), want) << once << " " << pass_rows;
  }
  EXPECT_EQ(VulkanBatchedRollout::Create(ctx(), dim, a, SmallBatch({.small_batch_rebuild_once = 6}))
                .status()
                .code(),
            StatusCode::kInvalidArgument);
}

// Pair loads (small_batch_pair_loads = 2): the inner loop reads the staged state as dvec2 pairs,
// the same products and adds in the same order, so every row stays bit-exact with core_ref: the
// merged wait (1, 2 and 4 interleaved rows), rebuild once (with U and Q, several steps per
// dispatch), several passes (B > P), A read per unit with a last chunk of an odd row count (D =
// 61: n = 61; D = 125: chunks of 64 and 61, the last pair's second entry past the chunk).
TEST_F(SmallBatchRolloutTest, PairLoadsAgree) {
  const RolloutParams every{.steps = 9, .hash_every = 4, .observe_every = 1};
  const RolloutParams sparse{.steps = 12, .hash_every = 5, .observe_every = 3};
  ExpectMatchesRolloutBatch(3, 16, every,
                            SmallBatch({.small_batch_workgroup = 16,
                                        .small_batch_row_groups = 3,
                                        .small_batch_group_rows = 1,
                                        .small_batch_pair_loads = 2}),
                            61);
  ExpectMatchesRolloutBatch(5, 61, sparse,
                            SmallBatch({.small_batch_workgroup = 64,
                                        .small_batch_row_groups = 2,
                                        .small_batch_group_rows = 2,
                                        .small_batch_pair_loads = 2}),
                            62);
  ExpectMatchesRolloutBatch(17, 60, every,
                            SmallBatch({.small_batch_workgroup = 64,
                                        .small_batch_row_groups = 2,
                                        .small_batch_pair_loads = 2}),
                            63);
  ExpectMatchesRolloutBatch(6, 40, sparse,
                            SmallBatch({.small_batch_workgroup = 64,
                                        .small_batch_row_groups = 2,
                                        .small_batch_rebuild_unroll = 4,
                                        .small_batch_rebuild_once = 2,
                                        .small_batch_pair_loads = 2,
                                        .small_batch_max_steps_per_dispatch = 4}),
                            64);
  ExpectMatchesRolloutBatch(5, 61, every,
                            SmallBatch({.small_batch_workgroup = 64,
                                        .small_batch_row_groups = 2,
                                        .small_batch_rebuilders = 1,
                                        .small_batch_rebuild_once = 2,
                                        .small_batch_pair_loads = 2,
                                        .small_batch_max_steps_per_dispatch = 3}),
                            65);
  ExpectMatchesRolloutBatch(9, 64, sparse,
                            SmallBatch({.small_batch_workgroup = 64,
                                        .small_batch_row_groups = 3,
                                        .small_batch_pass_rows = 4,
                                        .small_batch_pair_loads = 2}),
                            66);
  ExpectMatchesRolloutBatch(7, 125, every,
                            SmallBatch({.small_batch_workgroup = 32,
                                        .small_batch_row_groups = 2,
                                        .small_batch_group_rows = 4,
                                        .small_batch_pair_loads = 2}),
                            67);

  // Reported as asked (1 = off, 2 = on, 0 = the table row's), 3 is INVALID_ARGUMENT.
  const int64_t dim = 40;
  const std::vector<double> a = DecayingMatrix(dim, 37);
  const std::vector<double> z0 = NonZeroUniform(static_cast<size_t>(4 * dim), 38, 1.0);
  for (const auto& [pairs, rule_pairs, want] :
       {std::tuple<uint32_t, bool, bool>{2, false, true}, {1, true, false}, {0, true, true},
        {0, false, false}}) {
    StatusOr<std::unique_ptr<VulkanBatchedRollout>> r = VulkanBatchedRollout::Create(
        ctx(), dim, a,
        SmallBatch({.small_batch_pair_loads = pairs,
                    .small_batch_rules = std::vector<SmallBatchRule>{
                        {.min_dim = 1, .max_dim = 64, .min_rows = 1, .max_rows = 8,
                         .pair_loads = rule_pairs}}}));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_TRUE((*r)->Run(z0, 4, {.steps = 2, .hash_every = 2}).ok());
    EXPECT_EQ((*r)->small_batch_pair_loads(), want) << pairs << " " << rule_pairs;
    // The one-line description names the kernel and the settings it ran with.
    const std::string text = (*r)->KernelDescription(BatchedKernel::kSmallBatch);
    EXPECT_TRUE(text.starts_with("small-batch persistent kernel: ")) << text;
    EXPECT_NE(text.find(" (C=" + std::to_string((*r)->small_batch_columns()) + " "),
              std::string::npos)
        << text;
    EXPECT_EQ(text.find(", pair loads") != std::string::npos, want) << text;
    EXPECT_TRUE((*r)->KernelDescription(BatchedKernel::kTiled).starts_with("tiled kernel, tile "))
        << (*r)->KernelDescription(BatchedKernel::kTiled);
  }
  EXPECT_EQ(VulkanBatchedRollout::Create(ctx(), dim, a, SmallBatch({.small_batch_pair_loads = 3}))
                .status()
                .code(),
            StatusCode::kInvalidArgument);
}

// Pair state loads (small_batch_pair_state_loads = 2, with the state rebuilt once and D even):
// the rebuild's loads of the partials and each unit's loads of the new state (step (5)) as dvec2
// pairs. Bit-exact with core_ref at even D (one entry U, four in flight, the rebuilt entries
// spread, the plain barrier, with and without the inner loop's pairs; odd B), a few steps per
// dispatch so that step (5) runs on lavapipe; odd D falls back to single loads (reported off).
TEST_F(SmallBatchRolloutTest, PairStateLoadsAgree) {
  const RolloutParams every{.steps = 9, .hash_every = 4, .observe_every = 1};
  const RolloutParams sparse{.steps = 12, .hash_every = 5, .observe_every = 3};
  ExpectMatchesRolloutBatch(5, 40, every,
                            SmallBatch({.small_batch_workgroup = 64,
                                        .small_batch_row_groups = 2,
                                        .small_batch_rebuild_once = 2,
                                        .small_batch_pair_loads = 2,
                                        .small_batch_pair_state_loads = 2,
                                        .small_batch_max_steps_per_dispatch = 4}),
                            71);
  ExpectMatchesRolloutBatch(6, 40, sparse,
                            SmallBatch({.small_batch_workgroup = 64,
                                        .small_batch_row_groups = 2,
                                        .small_batch_rebuild_unroll = 4,
                                        .small_batch_rebuild_once = 2,
                                        .small_batch_pair_loads = 2,
                                        .small_batch_pair_state_loads = 2,
                                        .small_batch_max_steps_per_dispatch = 4}),
                            72);
  ExpectMatchesRolloutBatch(7, 62, every,
                            SmallBatch({.small_batch_workgroup = 64,
                                        .small_batch_row_groups = 2,
                                        .small_batch_rebuilders = 1,
                                        .small_batch_rebuild_unroll = 2,
                                        .small_batch_rebuild_once = 2,
                                        .small_batch_pair_state_loads = 2,
                                        .small_batch_max_steps_per_dispatch = 3}),
                            73);
  ExpectMatchesRolloutBatch(3, 16, sparse,
                            SmallBatch({.small_batch_workgroup = 16,
                                        .small_batch_row_groups = 3,
                                        .small_batch_group_rows = 1,
                                        .small_batch_rebuild_unroll = 3,
                                        .small_batch_rebuild_once = 3,
                                        .small_batch_pair_loads = 2,
                                        .small_batch_pair_state_loads = 2,
                                        .small_batch_max_steps_per_dispatch = 5}),
                            74);
  ExpectMatchesRolloutBatch(5, 61, every,
                            SmallBatch({.small_batch_workgroup = 64,
                                        .small_batch_row_groups = 2,
                                        .small_batch_rebuild_once = 2,
                                        .small_batch_pair_loads = 2,
                                        .small_batch_pair_state_loads = 2,
                                        .small_batch_max_steps_per_dispatch = 3}),
                            75);

  // Reported on where it applies (rebuilt once, D even), from the option or the table row.
  for (const auto& [dim, state_pairs, rule_state, once, want] :
       {std::tuple<int64_t, uint32_t, bool, uint32_t, bool>{40, 2, false, 2, true},
        {40, 0, true, 2, true},
        {40, 0, false, 2, false},
        {40, 1, true, 2, false},
        {41, 2, true, 2, false},
        {40, 2, true, 1, false}}) {
    const std::vector<double> a = DecayingMatrix(dim, 76);
    const std::vector<double> z0 = NonZeroUniform(static_cast<size_t>(4 * dim), 77, 1.0);
    StatusOr<std::unique_ptr<VulkanBatchedRollout>> r = VulkanBatchedRollout::Create(
        ctx(), dim, a,
        SmallBatch({.small_batch_workgroup = 64,
                    .small_batch_row_groups = 2,
                    .small_batch_rebuild_once = once,
                    .small_batch_pair_state_loads = state_pairs,
                    .small_batch_rules = std::vector<SmallBatchRule>{
                        {.min_dim = 1, .max_dim = 64, .min_rows = 1, .max_rows = 8,
                         .pair_state_loads = rule_state}}}));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_TRUE((*r)->Run(z0, 4, {.steps = 2, .hash_every = 2}).ok());
    EXPECT_EQ((*r)->small_batch_pair_state_loads(), want) << dim << " " << state_pairs;
    EXPECT_EQ((*r)->KernelDescription(BatchedKernel::kSmallBatch).find(", pair state loads") !=
                  std::string::npos,
              want);
  }
  const std::vector<double> a = DecayingMatrix(40, 78);
  EXPECT_EQ(VulkanBatchedRollout::Create(ctx(), 40, a,
                                         SmallBatch({.small_batch_pair_state_loads = 3}))
                .status()
                .code(),
            StatusCode::kInvalidArgument);
}

// small_batch_rebuild_once = 4 and 5. 4 (per-chunk counters instead of the device-wide barriers, the new
// state alternating between z_out and a plane after the partials): bit-exact with core_ref with
// several steps per dispatch (odd and even K, so that both planes hold the state and the last
// step's goes to z_out), single and pair loads, U 1 and 4, odd B, odd D (pairs off), every step
// observed and sparse; reported in the kernel's description. On lavapipe (one workgroup) only one
// unit counts; several units of several chunks are checked on a GPU (benchmark --verify-rows,
// the conformance case batched_rollout.small_batch.chunk_counters.*). Then the timing probe's
// checks (the benchmark's only: wrong states): INVALID_ARGUMENT unless with rebuild once = 2,
// and labelled in the description.
TEST_F(SmallBatchRolloutTest, ChunkCountersAndHalvesAgree) {
  const RolloutParams every{.steps = 9, .hash_every = 4, .observe_every = 1};
  const RolloutParams sparse{.steps = 12, .hash_every = 5, .observe_every = 3};
  ExpectMatchesRolloutBatch(5, 40, every,
                            SmallBatch({.small_batch_workgroup = 64,
                                        .small_batch_row_groups = 2,
                                        .small_batch_rebuild_once = 4,
                                        .small_batch_pair_loads = 2,
                                        .small_batch_pair_state_loads = 2,
                                        .small_batch_max_steps_per_dispatch = 4}),
                            81);
  ExpectMatchesRolloutBatch(6, 64, sparse,
                            SmallBatch({.small_batch_workgroup = 64,
                                        .small_batch_row_groups = 2,
                                        .small_batch_rebuild_unroll = 4,
                                        .small_batch_rebuild_once = 4,
                                        .small_batch_pair_loads = 2,
                                        .small_batch_pair_state_loads = 2,
                                        .small_batch_max_steps_per_dispatch = 5}),
                            82);
  ExpectMatchesRolloutBatch(7, 62, every,
                            SmallBatch({.small_batch_workgroup = 64,
                                        .small_batch_row_groups = 2,
                                        .small_batch_rebuild_unroll = 2,
                                        .small_batch_rebuild_once = 4,
                                        .small_batch_max_steps_per_dispatch = 3}),
                            83);
  ExpectMatchesRolloutBatch(3, 61, sparse,
                            SmallBatch({.small_batch_workgroup = 64,
                                        .small_batch_row_groups = 2,
                                        .small_batch_rebuild_unroll = 3,
                                        .small_batch_rebuild_once = 4,
                                        .small_batch_pair_state_loads = 2,
                                        .small_batch_max_steps_per_dispatch = 4}),
                            84);

  // Halves (small_batch_rebuild_once = 5): rows [0, half) and [half, B) with a counter each,
  // half = ceil(B / 2) in whole groups of interleaved rows: B = 9 (halves of 8 and 1 with 4
  // rows a group), 12 (one row a group: 6 and 6), 3 (4 and an empty half), pairs and single
  // loads, U 1 and 4, odd D.
  ExpectMatchesRolloutBatch(9, 40, every,
                            SmallBatch({.small_batch_workgroup = 64,
                                        .small_batch_row_groups = 2,
                                        .small_batch_rebuild_once = 5,
                                        .small_batch_pair_loads = 2,
                                        .small_batch_pair_state_loads = 2,
                                        .small_batch_max_steps_per_dispatch = 4}),
                            87);
  ExpectMatchesRolloutBatch(12, 64, sparse,
                            SmallBatch({.small_batch_workgroup = 64,
                                        .small_batch_row_groups = 4,
                                        .small_batch_group_rows = 1,
                                        .small_batch_rebuild_unroll = 4,
                                        .small_batch_rebuild_once = 5,
                                        .small_batch_pair_state_loads = 2,
                                        .small_batch_max_steps_per_dispatch = 5}),
                            88);
  ExpectMatchesRolloutBatch(3, 61, sparse,
                            SmallBatch({.small_batch_workgroup = 64,
                                        .small_batch_row_groups = 2,
                                        .small_batch_rebuild_unroll = 2,
                                        .small_batch_rebuild_once = 5,
                                        .small_batch_max_steps_per_dispatch = 3}),
                            89);
  ExpectMatchesRolloutBatch(16, 62, every,
                            SmallBatch({.small_batch_workgroup = 64,
                                        .small_batch_row_groups = 2,
                                        .small_batch_rebuild_unroll = 3,
                                        .small_batch_rebuild_once = 5,
                                        .small_batch_pair_loads = 2,
                                        .small_batch_pair_state_loads = 2,
                                        .small_batch_max_steps_per_dispatch = 4}),
                            90);

  const std::vector<double> a = DecayingMatrix(40, 85);
  const std::vector<double> z0 = NonZeroUniform(4 * 40, 86, 1.0);
  // Each form reported: rebuilt once, named in the kernel's description (the timing probe too,
  // labelled as giving wrong states).
  for (const auto& [once, probe, label] :
       {std::tuple<uint32_t, uint32_t, const char*>{5, 0, "(halves)"},
        {4, 0, "(per-chunk counters)"},
        {2, 8, "TIMING PROBE 8 (wrong states)"}}) {
    StatusOr<std::unique_ptr<VulkanBatchedRollout>> r = VulkanBatchedRollout::Create(
        ctx(), 40, a,
        SmallBatch({.small_batch_workgroup = 64,
                    .small_batch_rebuild_once = once,
                    .small_batch_timing_probe = probe}));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    ASSERT_TRUE((*r)->Run(z0, 4, {.steps = 2, .hash_every = 2}).ok());
    EXPECT_TRUE((*r)->small_batch_rebuild_once()) << label;
    EXPECT_NE((*r)->KernelDescription(BatchedKernel::kSmallBatch).find(label), std::string::npos)
        << label;
  }
  EXPECT_EQ(VulkanBatchedRollout::Create(ctx(), 40, a,
                                         SmallBatch({.small_batch_rebuild_once = 6}))
                .status()
                .code(),
            StatusCode::kInvalidArgument);
  // The timing probe: only with rebuild once = 2, at most 15.
  for (const auto& [once, probe] : {std::pair<uint32_t, uint32_t>{0, 1}, {1, 1}, {3, 2}, {4, 4},
                                    {2, 16}}) {
    EXPECT_EQ(VulkanBatchedRollout::Create(ctx(), 40, a,
                                           SmallBatch({.small_batch_rebuild_once = once,
                                                       .small_batch_timing_probe = probe}))
                  .status()
                  .code(),
              StatusCode::kInvalidArgument)
        << once << " " << probe;
  }
}

// The per-(D, B) table (small_batch_rules): ONE object run with B = 3, 9, 3, 1, 17 in turn, the
// table switching C and R between the runs (D = 100: A read per unit on lavapipe's one
// workgroup, so C changes the tiles and units it walks), every row bit-exact with core_ref and
// the settings the table names reported; a table row's rebuild-once (D = 16: A in registers);
// then the built-in table's choice at D = 512 / 1024 (as on a GPU, here through the option).
TEST_F(SmallBatchRolloutTest, ColumnsPerBatchFromTable) {
  struct Want {
    int64_t batch;
    uint32_t cols, row_groups;
    bool once;
    uint32_t rebuilders = 0, rebuild_unroll = 1;
  };
  auto run_all = [&](int64_t dim, const std::vector<SmallBatchRule>& rules,
                     std::span<const Want> wants, uint64_t seed, int64_t steps_per_dispatch = 0) {
    SCOPED_TRACE("D=" + std::to_string(dim));
    const std::vector<double> a = DecayingMatrix(dim, seed);
    StatusOr<std::unique_ptr<VulkanBatchedRollout>> r = VulkanBatchedRollout::Create(
        ctx(), dim, a,
        SmallBatch({.small_batch_rules = rules,
                    .small_batch_max_steps_per_dispatch = steps_per_dispatch}));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    const RolloutParams p{.steps = 6, .hash_every = 4};
    for (const Want& w : wants) {
      SCOPED_TRACE("B=" + std::to_string(w.batch));
      const std::vector<double> z0 =
          NonZeroUniform(static_cast<size_t>(w.batch * dim), seed + w.batch, 1.0);
      StatusOr<std::vector<RolloutResult>> want = RolloutBatch(z0, w.batch, a, p);
      ASSERT_TRUE(want.ok()) << want.status().ToString();
      StatusOr<BatchedRolloutResult> got = (*r)->Run(z0, w.batch, p);
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      EXPECT_EQ((*r)->last_timings().kernel, BatchedKernel::kSmallBatch);
      EXPECT_EQ((*r)->small_batch_columns(), w.cols);
      EXPECT_EQ((*r)->small_batch_row_groups(), w.row_groups);
      EXPECT_EQ((*r)->small_batch_rebuild_once(), w.once);
      EXPECT_EQ((*r)->small_batch_rebuilders(), w.rebuilders);
      EXPECT_EQ((*r)->small_batch_rebuild_unroll(), w.rebuild_unroll);
      for (int64_t b = 0; b < w.batch; ++b) {
        EXPECT_EQ(got->chains[b], (*want)[b].chain) << "trajectory " << b;
        EXPECT_TRUE(SameBits(got->final_state(b), (*want)[b].final_state)) << "trajectory " << b;
      }
      const Status guards = (*r)->CheckGuardWords();
      EXPECT_TRUE(guards.ok()) << guards.ToString();
    }
  };
  // D = 100 (two chunks, the last of 36 rows): C 32 (4 tiles, 8 units) with 2 row groups for
  // B <= 4, C 16 (7 tiles, the last of 4 columns; 14 units) with 4 row groups for 5..16, the
  // set-up C (256 on one workgroup) beyond.
  const std::vector<SmallBatchRule> rules100 = {
      {.min_dim = 100, .max_dim = 100, .min_rows = 1, .max_rows = 4, .columns = 32,
       .row_groups = 2},
      {.min_dim = 100, .max_dim = 100, .min_rows = 5, .max_rows = 16, .columns = 16,
       .row_groups = 4},
  };
  const Want wants100[] = {{3, 32, 2, false}, {9, 16, 4, false}, {3, 32, 2, false},
                           {1, 32, 1, false}, {17, 256, 1, false}};
  run_all(100, rules100, wants100, 41);
  // D = 16 (A in registers with every C here): C 16 with 3 row groups and the entries rebuilt
  // once for B <= 2, the same spread over the workgroups with 3 loads in flight for 3..4
  // (several steps per dispatch: the loads of the new state run), C 64 plain beyond.
  const std::vector<SmallBatchRule> rules16 = {
      {.min_dim = 1, .max_dim = 64, .min_rows = 1, .max_rows = 2, .columns = 16,
       .row_groups = 3, .rebuild_once = true},
      {.min_dim = 1, .max_dim = 64, .min_rows = 3, .max_rows = 4, .columns = 16,
       .row_groups = 3, .rebuild_once = true, .rebuilders = 1, .rebuild_unroll = 3},
      {.min_dim = 1, .max_dim = 64, .min_rows = 5, .max_rows = 64, .columns = 64},
  };
  const Want wants16[] = {{3, 16, 3, true, 1, 3}, {6, 64, 1, false}, {4, 16, 3, true, 1, 3},
                          {2, 16, 2, true}};
  run_all(16, rules16, wants16, 42, 3);
  // A row's Q and U belong to its rebuild once: not applied where the options turn it off.
  {
    const std::vector<double> a16 = DecayingMatrix(16, 49);
    StatusOr<std::unique_ptr<VulkanBatchedRollout>> off = VulkanBatchedRollout::Create(
        ctx(), 16, a16, SmallBatch({.small_batch_rebuild_once = 1, .small_batch_rules = rules16}));
    ASSERT_TRUE(off.ok()) << off.status().ToString();
    const VulkanBatchedRollout::SmallBatchShape shape = (*off)->SmallBatchShapeFor(3);
    EXPECT_EQ(shape.rebuild_once, 0u);
    EXPECT_EQ(shape.rebuilders, 0u);
    EXPECT_EQ(shape.rebuild_unroll, 1u);
  }

  // The built-in table's settings per B (through the option: lavapipe does not report its SM
  // count, and its one workgroup holds A in registers at neither D, so no row loses that).
  const std::vector<SmallBatchRule> builtin(DefaultSmallBatchRules().begin(),
                                            DefaultSmallBatchRules().end());
  // The first row that holds (D, B): the one that decides it.
  const auto first_row = [&builtin](int64_t dim, int64_t batch) {
    return std::find_if(builtin.begin(), builtin.end(), [&](const SmallBatchRule& u) {
      return u.min_dim <= dim && dim <= u.max_dim && u.min_rows <= batch && batch <= u.max_rows;
    });
  };
  // Pair loads in every rebuilt-once row, not in the plain row (B <= 16 elsewhere) nor beyond.
  for (const auto& [dim, batch, cols, row_groups, pairs] :
       {std::tuple<int64_t, int64_t, uint32_t, uint32_t, bool>{512, 16, 256, 1, true},
        {512, 24, 32, 8, true},
        {512, 64, 32, 8, true},
        {512, 65, 256, 1, false},
        {512, 8, 256, 1, false},
        {1024, 8, 256, 1, true},
        {1024, 12, 256, 1, true},
        {1024, 32, 256, 1, true},
        {1024, 64, 256, 1, true}}) {
    const std::vector<double> a = DecayingMatrix(dim, 43);
    StatusOr<std::unique_ptr<VulkanBatchedRollout>> r =
        VulkanBatchedRollout::Create(ctx(), dim, a, SmallBatch({.small_batch_rules = builtin}));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    const VulkanBatchedRollout::SmallBatchShape shape = (*r)->SmallBatchShapeFor(batch);
    EXPECT_EQ(shape.cols, cols) << "D=" << dim << " B=" << batch;
    EXPECT_EQ(shape.row_groups, row_groups) << "D=" << dim << " B=" << batch;
    EXPECT_EQ(shape.tiles, (dim + cols - 1) / cols) << "D=" << dim << " B=" << batch;
    EXPECT_EQ(shape.pair_loads, pairs) << "D=" << dim << " B=" << batch;
    // The rebuild's and the new state's loads as pairs (the row's pair_state_loads: lavapipe's
    // one workgroup does not rebuild once at these D, so the row itself): D = 512, C = 32 and
    // D = 1024, B >= 17.
    const auto row = first_row(dim, batch);
    EXPECT_EQ(row != builtin.end() && row->pair_state_loads,
              cols == 32 || (dim == 1024 && 17 <= batch && batch <= 64))
        << "D=" << dim << " B=" << batch;
    // Per-chunk counters: D = 1024, B 8..32 (shape 3 where the row rebuilds once).
    EXPECT_EQ(row != builtin.end() && row->rebuild_once && row->chunk_counters,
              dim == 1024 && 8 <= batch && batch <= 32)
        << "D=" << dim << " B=" << batch;
  }
  // Where kAuto takes the small-batch kernel at D = 512 … 1024 (the first row that holds
  // (D, B) is automatic): at D = 512 up to 32 rows; at D = 1024 up to 24 and from 33 to 56; at
  // D = 705 … 896 except B = 32 and 48 … 64; at D = 897 … 1023 except B = 25 … 32 and 48 … 64;
  // the tiled kernel's K-group tiles at the others (docs/PERF.md, "Large batches", parts 7, 10,
  // 14, 15 and 16).
  for (const auto& [dim, batch, automatic] :
       {std::tuple<int64_t, int64_t, bool>{512, 32, true},
        {512, 33, false},
        {512, 64, false},
        {1024, 24, true},
        {1024, 25, false},
        {1024, 32, false},
        {1024, 33, true},
        {1024, 48, true},
        {1024, 56, true},
        {1024, 57, false},
        {1024, 64, false},
        {704, 32, true},
        {704, 64, true},
        {705, 31, true},
        {705, 32, false},
        {768, 33, true},
        {768, 47, true},
        {768, 48, false},
        {768, 64, false},
        {896, 32, false},
        {896, 40, true},
        {896, 64, false},
        {897, 24, true},
        {897, 25, false},
        {897, 32, false},
        {897, 33, true},
        {960, 47, true},
        {960, 48, false},
        {960, 55, false},
        {1000, 64, false},
        {1023, 25, false},
        {1023, 47, true},
        {1023, 48, false},
        {1023, 64, false}}) {
    const auto row = first_row(dim, batch);
    ASSERT_NE(row, builtin.end()) << "D=" << dim << " B=" << batch;
    EXPECT_EQ(row->automatic, automatic) << "D=" << dim << " B=" << batch;
  }
  // A row's chunk_counters select kRebuildOnce 3 where it rebuilds once (D = 16, A in registers
  // on lavapipe's one workgroup), bit-exact with core_ref over several steps per dispatch; the
  // options' rebuild once = 2 overrides it.
  {
    const std::vector<SmallBatchRule> rules = {{.min_dim = 1, .max_dim = 64, .min_rows = 1,
                                                .max_rows = 8, .columns = 16, .row_groups = 2,
                                                .rebuild_once = true, .chunk_counters = true}};
    const std::vector<double> a16 = DecayingMatrix(16, 50);
    StatusOr<std::unique_ptr<VulkanBatchedRollout>> r = VulkanBatchedRollout::Create(
        ctx(), 16, a16, SmallBatch({.small_batch_rules = rules}));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_EQ((*r)->SmallBatchShapeFor(5).rebuild_once, 3u);
    StatusOr<std::unique_ptr<VulkanBatchedRollout>> forced = VulkanBatchedRollout::Create(
        ctx(), 16, a16, SmallBatch({.small_batch_rebuild_once = 2, .small_batch_rules = rules}));
    ASSERT_TRUE(forced.ok()) << forced.status().ToString();
    EXPECT_EQ((*forced)->SmallBatchShapeFor(5).rebuild_once, 1u);
    ExpectMatchesRolloutBatch(5, 16, {.steps = 9, .hash_every = 4, .observe_every = 2},
                              SmallBatch({.small_batch_rules = rules,
                                          .small_batch_max_steps_per_dispatch = 4}),
                              51);
  }
  // A malformed row is INVALID_ARGUMENT.
  const std::vector<double> a = DecayingMatrix(100, 44);
  for (const SmallBatchRule& bad :
       {SmallBatchRule{.min_rows = 5, .max_rows = 4}, SmallBatchRule{.columns = 8},
        SmallBatchRule{.columns = 256, .row_groups = 1024}, SmallBatchRule{.rebuild_unroll = 5}}) {
    EXPECT_EQ(VulkanBatchedRollout::Create(ctx(), 100, a, SmallBatch({.small_batch_rules =
                                                                          std::vector{bad}}))
                  .status()
                  .code(),
              StatusCode::kInvalidArgument);
  }
}

// One dispatch covers many steps where the device reports its SM count (the point of the
// kernel); elsewhere (lavapipe) one step per dispatch (see vulkan_batched_rollout.cc).
TEST_F(SmallBatchRolloutTest, StepsPerDispatch) {
  const int64_t dim = 65, batch = 3;
  const std::vector<double> a = DecayingMatrix(dim, 9);
  const std::vector<double> z0 = NonZeroUniform(static_cast<size_t>(batch * dim), 10, 1.0);
  StatusOr<std::unique_ptr<VulkanBatchedRollout>> r =
      VulkanBatchedRollout::Create(ctx(), dim, a, SmallBatch());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE((*r)->Run(z0, batch, {.steps = 50, .hash_every = 50}).ok());
  const BatchedRolloutTimings& t = (*r)->last_timings();
  EXPECT_EQ(t.kernel, BatchedKernel::kSmallBatch);
  EXPECT_EQ(t.steps, 50);
  if (QuerySmInfo(ctx()).has_value()) {
    EXPECT_EQ(t.dispatches, 1);
  } else {
    EXPECT_EQ(t.dispatches, 50);
  }
}

// kAuto: the tiled kernel on a device without the SM count (lavapipe) or for B > 16; a forced
// small-batch kernel beyond D = 2048 is UNIMPLEMENTED naming the limit.
TEST_F(SmallBatchRolloutTest, KernelChoice) {
  const int64_t dim = 70;
  const std::vector<double> a = DecayingMatrix(dim, 11);
  StatusOr<std::unique_ptr<VulkanBatchedRollout>> autos =
      VulkanBatchedRollout::Create(ctx(), dim, a);
  ASSERT_TRUE(autos.ok()) << autos.status().ToString();
  const bool has_sm_count = QuerySmInfo(ctx()).has_value();
  EXPECT_EQ(*(*autos)->KernelFor(3),
            has_sm_count ? BatchedKernel::kSmallBatch : BatchedKernel::kTiled);
  EXPECT_EQ(*(*autos)->KernelFor(VulkanBatchedRollout::kSmallBatchAutoMaxRows),
            has_sm_count ? BatchedKernel::kSmallBatch : BatchedKernel::kTiled);
  EXPECT_EQ(*(*autos)->KernelFor(VulkanBatchedRollout::kSmallBatchAutoMaxRows + 1),
            BatchedKernel::kTiled);
  StatusOr<std::unique_ptr<VulkanBatchedRollout>> tiled =
      VulkanBatchedRollout::Create(ctx(), dim, a, {.kernel = BatchedKernel::kTiled});
  ASSERT_TRUE(tiled.ok());
  EXPECT_EQ(*(*tiled)->KernelFor(3), BatchedKernel::kTiled);
  StatusOr<std::unique_ptr<VulkanBatchedRollout>> forced =
      VulkanBatchedRollout::Create(ctx(), dim, a, SmallBatch());
  ASSERT_TRUE(forced.ok());
  EXPECT_EQ(*(*forced)->KernelFor(200), BatchedKernel::kSmallBatch);  // any B when forced

  // The rebuild-once band: B ∈ [16, 64] at D ∈ [513, 1024] and [16, 32] at D = 512 (GPU only);
  // tiled beyond, and at D = 512 from 33 rows (the table's row there is not automatic).
  // The small-batch kernel where the GPU condition holds, else the tiled one.
  const BatchedKernel small_on_gpu =
      has_sm_count ? BatchedKernel::kSmallBatch : BatchedKernel::kTiled;
  auto automatic = [&](int64_t d, uint64_t seed, VulkanBatchedRolloutOptions options = {}) {
    const std::vector<double> m = DecayingMatrix(d, seed);
    StatusOr<std::unique_ptr<VulkanBatchedRollout>> made =
        VulkanBatchedRollout::Create(ctx(), d, m, options);
    EXPECT_TRUE(made.ok()) << made.status().ToString();
    return made.ok() ? std::move(*made) : nullptr;
  };
  {
    std::unique_ptr<VulkanBatchedRollout> mid = automatic(512, 16);
    ASSERT_NE(mid, nullptr);
    EXPECT_EQ(*mid->KernelFor(32), small_on_gpu);
    EXPECT_EQ(*mid->KernelFor(33), BatchedKernel::kTiled);
    EXPECT_EQ(*mid->KernelFor(64), BatchedKernel::kTiled);
    EXPECT_EQ(*mid->KernelFor(65), BatchedKernel::kTiled);
    std::unique_ptr<VulkanBatchedRollout> wide = automatic(1024, 17);
    ASSERT_NE(wide, nullptr);
    EXPECT_EQ(*wide->KernelFor(64), small_on_gpu);
  }
  // A row with automatic = false sets the forced kernel's settings only: kAuto takes the tiled
  // kernel where the same row with automatic = true takes the small-batch one. Only a device
  // that reports its SM count tells them apart (without it kAuto never takes the small-batch
  // kernel: both are tiled on lavapipe).
  for (const bool automatic_row : {true, false}) {
    const std::vector<SmallBatchRule> rules = {{.min_dim = 1, .max_dim = 2048, .min_rows = 1,
                                                .max_rows = 16, .automatic = automatic_row}};
    std::unique_ptr<VulkanBatchedRollout> manual =
        automatic(dim, 11, {.small_batch_rules = rules});
    ASSERT_NE(manual, nullptr);
    EXPECT_EQ(*manual->KernelFor(3), automatic_row ? small_on_gpu : BatchedKernel::kTiled)
        << "automatic " << automatic_row;
  }

  const int64_t big = 2049;
  const std::vector<double> a_big = DecayingMatrix(big, 12);
  StatusOr<std::unique_ptr<VulkanBatchedRollout>> r =
      VulkanBatchedRollout::Create(ctx(), big, a_big, SmallBatch());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const std::vector<double> z0 = NonZeroUniform(static_cast<size_t>(big), 13, 1.0);
  const Status st = (*r)->Run(z0, 1, {.steps = 1}).status();
  EXPECT_EQ(st.code(), StatusCode::kUnimplemented) << st.ToString();
  EXPECT_NE(st.message().find("D <= 2048"), std::string::npos) << st.ToString();
  EXPECT_EQ(VulkanBatchedRollout::Create(ctx(), dim, a, SmallBatch({.small_batch_pass_rows = 6}))
                .status()
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(VulkanBatchedRollout::Create(ctx(), dim, a, SmallBatch({.small_batch_workgroup = 8}))
                .status()
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(VulkanBatchedRollout::Create(ctx(), dim, a, SmallBatch({.small_batch_group_rows = 3}))
                .status()
                .code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(
      VulkanBatchedRollout::Create(ctx(), dim, a, SmallBatch({.small_batch_rebuild_unroll = 5}))
          .status()
          .code(),
      StatusCode::kInvalidArgument);
  EXPECT_EQ(VulkanBatchedRollout::Create(
                ctx(), dim, a,
                SmallBatch({.small_batch_workgroup = 256, .small_batch_row_groups = 1024}))
                .status()
                .code(),
            StatusCode::kInvalidArgument);
}

// A blow-up: core_ref's error for the first trajectory to overflow, found by the replay.
TEST_F(SmallBatchRolloutTest, NonFiniteStateGivesCoreRefsError) {
  testing::ExpectNonFiniteStateGivesCoreRefsError(ctx(), SmallBatch(), 14);
}

}  // namespace
}  // namespace dashi::vk

