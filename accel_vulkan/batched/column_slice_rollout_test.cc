// The column-slice persistent kernel of VulkanBatchedRollout (BatchedKernel::kColumnSlice,
// shaders/batched/batched_columns.comp) against core_ref's RolloutBatch, bit for bit per row:
// chains, final states and every observed state, on the default device (lavapipe in CI: one
// workgroup walks every slice of Wc columns with A read from memory, or holds A in registers
// where one slice covers D). Shapes: several B (one row; B not a multiple of R·G or of the rows
// per pass; several passes) and D (1, 63, 65, 100, 130, 506: partial last chunks, partial last
// slices); the options (columns per slice, row groups, interleaved rows, rows per pass, steps per
// dispatch, submissions, history ring); the kernel choice and its errors; core_ref's error for a
// blow-up.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "accel_vulkan/batched/batched_parity_testing.h"
#include "accel_vulkan/batched/vulkan_batched_rollout.h"
#include "accel_vulkan/device_caps/device_caps.h"
#include "accel_vulkan/testing/vulkan_test.h"
#include "core_ref/rollout/rollout.h"
#include "core_ref/rollout/rollout_batch.h"
#include "core_ref/testing/random_inputs.h"

namespace dashi::vk {
namespace {

using dashi::testing::DecayingMatrix;
using dashi::testing::NonZeroUniform;

VulkanBatchedRolloutOptions Columns(VulkanBatchedRolloutOptions o = {}) {
  o.kernel = BatchedKernel::kColumnSlice;
  return o;
}

class ColumnSliceRolloutTest : public testing::VulkanTest {
 protected:
  // Runs B rows with the column-slice kernel and compares every row's chain, final state and
  // observed states with core_ref's RolloutBatch (batched_parity_testing.h).
  void ExpectMatchesRolloutBatch(int64_t batch, int64_t dim, const RolloutParams& p,
                                 const VulkanBatchedRolloutOptions& options, uint64_t seed) {
    testing::ExpectBatchedMatchesRolloutBatch(ctx(), batch, dim, p, options, seed,
                                              BatchedKernel::kColumnSlice);
  }
};

// Automatic settings over B and D: partial last chunks (D = 63, 65, 130, 506: the last chunk of
// 58 rows), one chunk of one row (D = 1), B = 1 and B not a multiple of the rows per pass.
TEST_F(ColumnSliceRolloutTest, MatchesRolloutBatchAutomatic) {
  const RolloutParams p{.steps = 7, .hash_every = 3, .observe_every = 2};
  const std::pair<int64_t, int64_t> shapes[] = {{1, 1},   {2, 63},   {3, 65},  {5, 130},
                                                {17, 100}, {9, 64},  {13, 506}, {1, 506}};
  for (const auto& [batch, dim] : shapes) {
    ExpectMatchesRolloutBatch(batch, dim, p, Columns(), 2000 + static_cast<uint64_t>(dim));
  }
}

// More than 16 chunks (D = 1100: 18, the last of 12 rows; D = 2048: 32): the tree's level at
// stride 16, which no shape above reaches.
TEST_F(ColumnSliceRolloutTest, MatchesRolloutBatchPastSixteenChunks) {
  const RolloutParams p{.steps = 3, .hash_every = 1, .observe_every = 1};
  const std::pair<int64_t, int64_t> shapes[] = {{3, 1100}, {1, 2048}};
  for (const auto& [batch, dim] : shapes) {
    ExpectMatchesRolloutBatch(batch, dim, p, Columns(), 3000 + static_cast<uint64_t>(dim));
  }
}

// The run's eval shape (B = 3, D = 506) with every state observed.
TEST_F(ColumnSliceRolloutTest, EveryStateObservedAtTheRunsShape) {
  ExpectMatchesRolloutBatch(3, 506, {.steps = 20, .hash_every = 10, .observe_every = 1}, Columns(),
                            78);
}

// Options: A in registers (one slice: Wc = D) with R row groups and G interleaved rows where B is
// not a multiple of R·G (rows past B in the last group and pass); several slices walked by the
// one workgroup with A from memory, a slice width that does not divide D (the last slice
// partial); several steps per dispatch (the device-wide barrier with one workgroup); small
// submissions and a history ring shorter than the observed stretch.
TEST_F(ColumnSliceRolloutTest, OptionsAgree) {
  const RolloutParams every{.steps = 9, .hash_every = 4, .observe_every = 1};
  const RolloutParams sparse{.steps = 12, .hash_every = 5, .observe_every = 3};
  ExpectMatchesRolloutBatch(7, 100, sparse,
                            Columns({.column_slice_columns = 100,
                                     .column_slice_row_groups = 2,
                                     .column_slice_group_rows = 2,
                                     .column_slice_pass_rows = 4}),
                            31);
  ExpectMatchesRolloutBatch(9, 65, every,
                            Columns({.column_slice_columns = 65,
                                     .column_slice_row_groups = 1,
                                     .column_slice_group_rows = 4,
                                     .column_slice_pass_rows = 4}),
                            32);
  ExpectMatchesRolloutBatch(6, 65, sparse,
                            Columns({.column_slice_columns = 3,
                                     .column_slice_row_groups = 3,
                                     .column_slice_group_rows = 1,
                                     .column_slice_pass_rows = 3}),
                            33);
  ExpectMatchesRolloutBatch(11, 130, every,
                            Columns({.column_slice_columns = 7,
                                     .column_slice_row_groups = 2,
                                     .column_slice_group_rows = 2,
                                     .column_slice_pass_rows = 6}),
                            34);
  ExpectMatchesRolloutBatch(5, 70, sparse, Columns({.small_batch_max_steps_per_dispatch = 4}), 35);
  ExpectMatchesRolloutBatch(
      4, 70, every, Columns({.max_steps_per_submit = 5, .max_snapshots_per_submit = 3}), 36);
}

// The experiment switches: A's slice in shared memory (one slice: D = 40 on lavapipe's 32 KiB),
// A read from memory with one slice, each pass staged without the register prefetch, and two of
// them together; B = 9 over passes of fewer rows.
TEST_F(ColumnSliceRolloutTest, ExperimentSwitchesAgree) {
  const RolloutParams p{.steps = 8, .hash_every = 3, .observe_every = 2};
  ExpectMatchesRolloutBatch(9, 40, p, Columns({.column_slice_a_in_shared = true}), 41);
  ExpectMatchesRolloutBatch(9, 40, p, Columns({.column_slice_a_in_memory = true}), 42);
  ExpectMatchesRolloutBatch(9, 100, p, Columns({.column_slice_no_prefetch = true}), 43);
  ExpectMatchesRolloutBatch(
      9, 40, p, Columns({.column_slice_a_in_shared = true, .column_slice_no_prefetch = true}), 44);
  ExpectMatchesRolloutBatch(7, 130, p,
                            Columns({.column_slice_columns = 9,
                                     .column_slice_row_groups = 2,
                                     .column_slice_group_rows = 1,
                                     .column_slice_pass_rows = 2,
                                     .column_slice_no_prefetch = true}),
                            45);
  // A in shared memory needs one slice per workgroup.
  const std::vector<double> a = DecayingMatrix(100, 46);
  EXPECT_EQ(VulkanBatchedRollout::Create(
                ctx(), 100, a, Columns({.column_slice_columns = 10, .column_slice_a_in_shared = true}))
                .status()
                .code(),
            StatusCode::kInvalidArgument);
}

// One dispatch covers many steps where the device reports its SM count; elsewhere one.
TEST_F(ColumnSliceRolloutTest, StepsPerDispatch) {
  const int64_t dim = 65, batch = 3;
  const std::vector<double> a = DecayingMatrix(dim, 9);
  const std::vector<double> z0 = NonZeroUniform(static_cast<size_t>(batch * dim), 10, 1.0);
  StatusOr<std::unique_ptr<VulkanBatchedRollout>> r =
      VulkanBatchedRollout::Create(ctx(), dim, a, Columns());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_TRUE((*r)->Run(z0, batch, {.steps = 20, .hash_every = 20}).ok());
  const BatchedRolloutTimings& t = (*r)->last_timings();
  EXPECT_EQ(t.kernel, BatchedKernel::kColumnSlice);
  EXPECT_EQ(t.steps, 20);
  EXPECT_EQ(t.dispatches, QuerySmInfo(ctx()).has_value() ? 1 : 20);
}

// kAuto never takes the column-slice kernel (slower than the others wherever measured,
// docs/PERF.md); forced, any B; its settings' errors.
TEST_F(ColumnSliceRolloutTest, KernelChoiceAndErrors) {
  const int64_t dim = 70;
  const std::vector<double> a = DecayingMatrix(dim, 11);
  StatusOr<std::unique_ptr<VulkanBatchedRollout>> autos =
      VulkanBatchedRollout::Create(ctx(), dim, a);
  ASSERT_TRUE(autos.ok()) << autos.status().ToString();
  for (int64_t batch : {1, 16, 17, 32, 64, 65}) {
    EXPECT_NE(*(*autos)->KernelFor(batch), BatchedKernel::kColumnSlice) << "B=" << batch;
  }
  StatusOr<std::unique_ptr<VulkanBatchedRollout>> forced =
      VulkanBatchedRollout::Create(ctx(), dim, a, Columns());
  ASSERT_TRUE(forced.ok()) << forced.status().ToString();
  EXPECT_EQ(*(*forced)->KernelFor(1), BatchedKernel::kColumnSlice);
  EXPECT_EQ(*(*forced)->KernelFor(300), BatchedKernel::kColumnSlice);
  // A small-batch-only rollout never runs it.
  StatusOr<std::unique_ptr<VulkanBatchedRollout>> small =
      VulkanBatchedRollout::Create(ctx(), dim, a, {.kernel = BatchedKernel::kSmallBatch});
  ASSERT_TRUE(small.ok());
  EXPECT_EQ(*(*small)->KernelFor(20), BatchedKernel::kSmallBatch);

  const int64_t big = 2049;
  const std::vector<double> a_big = DecayingMatrix(big, 12);
  StatusOr<std::unique_ptr<VulkanBatchedRollout>> r =
      VulkanBatchedRollout::Create(ctx(), big, a_big, Columns());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const std::vector<double> z0 = NonZeroUniform(static_cast<size_t>(big), 13, 1.0);
  const Status st = (*r)->Run(z0, 1, {.steps = 1}).status();
  EXPECT_EQ(st.code(), StatusCode::kUnimplemented) << st.ToString();
  EXPECT_NE(st.message().find("D <= 2048"), std::string::npos) << st.ToString();
  auto code = [&](const VulkanBatchedRolloutOptions& o) {
    return VulkanBatchedRollout::Create(ctx(), dim, a, Columns(o)).status().code();
  };
  EXPECT_EQ(code({.column_slice_group_rows = 3}), StatusCode::kInvalidArgument);
  EXPECT_EQ(code({.column_slice_columns = 71}), StatusCode::kInvalidArgument);  // > D
  EXPECT_EQ(code({.column_slice_columns = 70, .column_slice_row_groups = 64}),
            StatusCode::kInvalidArgument);  // 70·2·64 invocations
  EXPECT_EQ(code({.column_slice_group_rows = 2, .column_slice_pass_rows = 3}),
            StatusCode::kInvalidArgument);  // P not a multiple of G
}

// A blow-up: core_ref's error for the first trajectory to overflow, found by the replay.
TEST_F(ColumnSliceRolloutTest, NonFiniteStateGivesCoreRefsError) {
  testing::ExpectNonFiniteStateGivesCoreRefsError(ctx(), Columns(), 14);
}

}  // namespace
}  // namespace dashi::vk
