#include "core_ref/rollout/rollout_batch.h"

#include <cmath>
#include <limits>
#include <vector>

#include "core_ref/testing/random_inputs.h"
#include "gtest/gtest.h"

namespace dashi {
namespace {

// Every row is bit for bit the single rollout: states seen by the observer, chain, final state,
// over batch sizes 1..4 and dimensions where the canonical product's blocks change.
TEST(RolloutBatchTest, RowsAreTheSingleRollout) {
  for (int64_t dim : {1, 3, 8, 17}) {
    for (int64_t batch : {1, 2, 3, 4}) {
      const uint64_t seed = static_cast<uint64_t>(100 * dim + batch);
      const std::vector<double> a = testing::StableMatrix(dim, seed);
      const std::vector<double> z0 = testing::UniformValues(static_cast<size_t>(batch * dim), seed, 1.0);
      const RolloutParams p{.steps = 13, .hash_every = 4, .observe_every = 1};
      std::vector<std::vector<double>> seen(static_cast<size_t>(batch));
      StatusOr<std::vector<RolloutResult>> got = RolloutBatch(
          z0, batch, a, p, [&](int64_t b, int64_t, std::span<const double> z) {
            seen[b].insert(seen[b].end(), z.begin(), z.end());
            return OkStatus();
          });
      ASSERT_TRUE(got.ok()) << got.status().ToString();
      for (int64_t b = 0; b < batch; ++b) {
        std::vector<double> want_states;
        StatusOr<RolloutResult> want = Rollout(
            std::span<const double>(z0).subspan(b * dim, dim), a, p,
            [&](int64_t, std::span<const double> z) {
              want_states.insert(want_states.end(), z.begin(), z.end());
              return OkStatus();
            });
        ASSERT_TRUE(want.ok());
        SCOPED_TRACE("dim " + std::to_string(dim) + " batch " + std::to_string(batch) + " row " +
                     std::to_string(b));
        EXPECT_EQ((*got)[b].chain, want->chain);
        EXPECT_EQ((*got)[b].final_state, want->final_state);
        EXPECT_EQ(seen[b], want_states);
      }
    }
  }
}

TEST(RolloutBatchTest, BlowUpNamesTheFirstTrajectory) {
  // Row 1 grows ×1e200 per step and overflows at step 2; row 0 stays finite.
  const std::vector<double> a = {1e200};
  const std::vector<double> z0 = {0.0, 1.0, 1.0};
  StatusOr<std::vector<RolloutResult>> r = RolloutBatch(z0, 3, a, {.steps = 5, .hash_every = 1});
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kOutOfRange);
  EXPECT_NE(r.status().message().find("trajectory 1: "), std::string::npos)
      << r.status().ToString();
  EXPECT_NE(r.status().message().find("step 2"), std::string::npos) << r.status().ToString();
}

TEST(RolloutBatchTest, RejectsBadShapes) {
  const std::vector<double> a = {1, 0, 0, 1};
  EXPECT_FALSE(RolloutBatch(std::vector<double>{1, 2, 3}, 2, a, {.steps = 1}).ok());
  EXPECT_FALSE(RolloutBatch(std::vector<double>{1, 2}, 0, a, {.steps = 1}).ok());
  EXPECT_FALSE(RolloutBatch(std::vector<double>{1, 2, 3}, 1, a, {.steps = 1}).ok());
  const std::vector<double> bad = {1, std::numeric_limits<double>::quiet_NaN(), 3, 4};
  StatusOr<std::vector<RolloutResult>> r = RolloutBatch(bad, 2, a, {.steps = 1});
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("trajectory 0"), std::string::npos);
}

}  // namespace
}  // namespace dashi
