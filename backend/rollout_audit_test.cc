#include "backend/rollout_audit.h"

#include <cmath>
#include <cstring>

#include <gtest/gtest.h>

#include "core_ref/prng/prng.h"

namespace dashi::backend {
namespace {

constexpr int64_t kDim = 24;

std::vector<double> RandomA() {
  Xoshiro256ss rng(5);
  std::vector<double> a(kDim * kDim);
  for (double& x : a) x = (2 * rng.NextDouble() - 1) * 0.9 / std::sqrt(double(kDim));
  return a;
}

RolloutBackend Reference(const std::vector<double>& a) {
  return [&a](std::span<const double> z, int64_t, int64_t steps, int64_t hash_every) {
    return Rollout(z, a, {steps, hash_every, 0});
  };
}

// The reference, except that mantissa bit 40 of component 3 flips when the absolute step
// reaches `fault_step` (a stand-in for a device that computes one product wrongly).
RolloutBackend Faulty(const std::vector<double>& a, int64_t fault_step) {
  return [&a, fault_step](std::span<const double> z, int64_t start, int64_t steps,
                          int64_t hash_every) -> StatusOr<RolloutResult> {
    std::vector<double> cur(z.begin(), z.end());
    RolloutResult out;
    std::vector<ChainCheckpoint> chain;
    Hash128 link{};
    for (int64_t s = 0; s <= steps; ++s) {
      if (s > 0) {
        DASHI_ASSIGN_OR_RETURN(RolloutResult one, Rollout(cur, a, {1, 1, 0}));
        cur = one.final_state;
        if (start + s == fault_step) {
          uint64_t bits;
          std::memcpy(&bits, &cur[3], 8);
          bits ^= uint64_t{1} << 40;
          std::memcpy(&cur[3], &bits, 8);
        }
      }
      if (IsCheckpointStep(s, steps, hash_every)) {
        const Hash128 h = StateHash(cur);
        link = NextChainLink(link, h);
        chain.push_back({s, h, link});
      }
    }
    out.final_state = cur;
    out.chain = chain;
    return out;
  };
}

std::vector<double> Z0() {
  std::vector<double> z(kDim);
  for (int64_t i = 0; i < kDim; ++i) z[i] = 0.1 * double(i + 1);
  return z;
}

TEST(AuditTest, EqualChains) {
  const std::vector<double> a = RandomA();
  StatusOr<AuditResult> r = AuditRollout(Z0(), 50, 10, Reference(a), Reference(a));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->chains_equal);
  EXPECT_EQ(r->checkpoints, 6);
}

TEST(AuditTest, LocatesTheFirstDivergingStep) {
  const std::vector<double> a = RandomA();
  for (int64_t fault : {1, 9, 10, 11, 37, 50, 700}) {
    SCOPED_TRACE("fault at step " + std::to_string(fault));
    const int64_t steps = fault == 700 ? 1000 : 50, every = fault == 700 ? 1000 : 10;
    StatusOr<AuditResult> r = AuditRollout(Z0(), steps, every, Reference(a), Faulty(a, fault));
    ASSERT_TRUE(r.ok()) << r.status().ToString();
    EXPECT_FALSE(r->chains_equal);
    EXPECT_EQ(r->first_diverging_step, fault);
    EXPECT_EQ(r->first_diverging_checkpoint_step, (fault + every - 1) / every * every);
    EXPECT_EQ(r->first_differing_index, 3);
    EXPECT_NE(r->ref_state_hash, r->dev_state_hash);
  }
}

}  // namespace
}  // namespace dashi::backend
