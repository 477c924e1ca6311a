#include "accel_vulkan/batched/batched_parity_testing.h"

#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core_ref/rollout/rollout_batch.h"
#include "core_ref/testing/random_inputs.h"

namespace dashi::vk::testing {

bool SameBits(std::span<const double> a, std::span<const double> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

void ExpectBatchedMatchesRolloutBatch(VulkanContext& ctx, int64_t batch, int64_t dim,
                                      const RolloutParams& p,
                                      const VulkanBatchedRolloutOptions& options, uint64_t seed,
                                      BatchedKernel expected) {
  SCOPED_TRACE("B=" + std::to_string(batch) + " D=" + std::to_string(dim) + " seeds A=" +
               std::to_string(seed) + " Z0=" + std::to_string(seed + 1));
  const std::vector<double> a = dashi::testing::DecayingMatrix(dim, seed);
  const std::vector<double> z0 =
      dashi::testing::NonZeroUniform(static_cast<size_t>(batch * dim), seed + 1, 1.0);
  std::vector<std::vector<double>> want_observed;  // [k]: B×D states of the k-th observed step
  std::vector<int64_t> want_steps;
  StatusOr<std::vector<RolloutResult>> want = RolloutBatch(
      z0, batch, a, p, [&](int64_t b, int64_t t, std::span<const double> z) {
        if (b == 0) {
          want_steps.push_back(t);
          want_observed.emplace_back();
        }
        want_observed.back().insert(want_observed.back().end(), z.begin(), z.end());
        return OkStatus();
      });
  ASSERT_TRUE(want.ok()) << want.status().ToString();

  StatusOr<std::unique_ptr<VulkanBatchedRollout>> r =
      VulkanBatchedRollout::Create(ctx, dim, a, options);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  std::vector<int64_t> got_steps;
  std::vector<std::vector<double>> got_observed;
  StatusOr<BatchedRolloutResult> got =
      (*r)->Run(z0, batch, p, [&](int64_t t, std::span<const double> z) {
        if (t % p.observe_every == 0 || t == p.steps) {
          got_steps.push_back(t);
          got_observed.emplace_back(z.begin(), z.end());
        }
        return OkStatus();
      });
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ((*r)->last_timings().kernel, expected);
  for (int64_t b = 0; b < batch; ++b) {
    EXPECT_EQ(got->chains[b], (*want)[b].chain) << "trajectory " << b;
    EXPECT_TRUE(SameBits(got->final_state(b), (*want)[b].final_state)) << "trajectory " << b;
  }
  ASSERT_EQ(got_steps, want_steps);
  for (size_t k = 0; k < got_observed.size(); ++k) {
    EXPECT_TRUE(SameBits(got_observed[k], want_observed[k])) << "step " << got_steps[k];
  }
  const Status guards = (*r)->CheckGuardWords();
  EXPECT_TRUE(guards.ok()) << guards.ToString();
}

void ExpectNonFiniteStateGivesCoreRefsError(VulkanContext& ctx,
                                            const VulkanBatchedRolloutOptions& options,
                                            uint64_t seed) {
  const int64_t dim = 90, batch = 5;
  std::vector<double> a = dashi::testing::DecayingMatrix(dim, seed);
  for (double& x : a) x *= 1e25;
  std::vector<double> z0 =
      dashi::testing::NonZeroUniform(static_cast<size_t>(batch * dim), seed + 1, 1e-100);
  for (int64_t i = 0; i < dim; ++i) z0[3 * dim + i] *= 1e100;
  const RolloutParams p{.steps = 60, .hash_every = 25};
  const Status want = RolloutBatch(z0, batch, a, p).status();
  ASSERT_EQ(want.code(), StatusCode::kOutOfRange) << want.ToString();
  StatusOr<std::unique_ptr<VulkanBatchedRollout>> r =
      VulkanBatchedRollout::Create(ctx, dim, a, options);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ((*r)->Run(z0, batch, p).status(), want);
}

}  // namespace dashi::vk::testing
