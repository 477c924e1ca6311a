#include "core_ref/learner/transition_fit.h"

#include <cmath>
#include <limits>
#include <vector>

#include "core_ref/prng/prng.h"
#include "core_ref/rollout/rollout.h"
#include "gtest/gtest.h"

namespace dashi {
namespace {

constexpr uint64_t kSeed = 20261123;

// Block-diagonal 2×2 rotations by random angles (dim even): norm-preserving, so a trajectory keeps
// exploring every direction and the fit is well conditioned.
std::vector<double> RandomRotations(Xoshiro256ss& rng, int64_t dim) {
  std::vector<double> a(static_cast<size_t>(dim * dim), 0.0);
  for (int64_t b = 0; b + 1 < dim; b += 2) {
    const double angle = 0.2 + 1.2 * rng.NextDouble();
    const double c = std::cos(angle), s = std::sin(angle);
    a[b * dim + b] = c;
    a[b * dim + b + 1] = s;
    a[(b + 1) * dim + b] = -s;
    a[(b + 1) * dim + b + 1] = c;
  }
  return a;
}

// States z_0..z_steps of z_{t+1} = z_t·A, row-major (steps + 1) × dim.
std::vector<double> Trajectory(std::span<const double> z0, std::span<const double> a,
                               int64_t steps) {
  std::vector<double> states;
  const RolloutObserver record = [&](int64_t, std::span<const double> z) {
    states.insert(states.end(), z.begin(), z.end());
    return OkStatus();
  };
  const StatusOr<RolloutResult> r =
      Rollout(z0, a, {.steps = steps, .hash_every = steps + 1, .observe_every = 1}, record);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return states;
}

double MaxAbsDiff(std::span<const double> a, std::span<const double> b) {
  double m = 0;
  for (size_t k = 0; k < a.size(); ++k) m = std::fmax(m, std::fabs(a[k] - b[k]));
  return m;
}

TEST(RidgePriorTest, ParsesItsNamesAndRejectsOthers) {
  for (RidgePrior p : {RidgePrior::kZero, RidgePrior::kIdentity}) {
    StatusOr<RidgePrior> back = ParseRidgePrior(RidgePriorName(p));
    ASSERT_TRUE(back.ok());
    EXPECT_EQ(*back, p);
  }
  StatusOr<RidgePrior> bad = ParseRidgePrior("ones");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(bad.status().message().find("'ones'"), std::string::npos);
}

// With a tiny λ both priors recover the map that generated the data; its one-step error is ~0.
TEST(FitTransitionTest, RecoversTheGeneratingMapWithEitherPrior) {
  Xoshiro256ss rng(kSeed);
  const int64_t dim = 6, steps = 40;
  const std::vector<double> a_true = RandomRotations(rng, dim);
  std::vector<double> z0(dim);
  for (double& v : z0) v = 2.0 * rng.NextDouble() - 1.0;
  const std::vector<double> z = Trajectory(z0, a_true, steps);
  for (RidgePrior prior : {RidgePrior::kZero, RidgePrior::kIdentity}) {
    StatusOr<std::vector<double>> a = FitTransition(z, steps + 1, dim, 1e-14, prior);
    ASSERT_TRUE(a.ok()) << a.status().ToString() << " (seed " << kSeed << ")";
    EXPECT_LT(MaxAbsDiff(*a, a_true), 1e-9) << RidgePriorName(prior) << ", seed " << kSeed;
    StatusOr<double> err = OneStepError(z, steps + 1, dim, *a);
    ASSERT_TRUE(err.ok());
    EXPECT_LT(*err, 1e-8) << RidgePriorName(prior);
  }
}

// A huge λ pulls A onto its prior: 0 for kZero, I (persistence) for kIdentity.
TEST(FitTransitionTest, LargeLambdaShrinksTowardsThePrior) {
  Xoshiro256ss rng(kSeed + 1);
  const int64_t dim = 4, steps = 20;
  const std::vector<double> a_true = RandomRotations(rng, dim);
  const std::vector<double> z = Trajectory(std::vector<double>{1, -0.5, 0.25, 2}, a_true, steps);
  StatusOr<std::vector<double>> zero = FitTransition(z, steps + 1, dim, 1e9, RidgePrior::kZero);
  StatusOr<std::vector<double>> ident =
      FitTransition(z, steps + 1, dim, 1e9, RidgePrior::kIdentity);
  ASSERT_TRUE(zero.ok() && ident.ok());
  std::vector<double> identity(static_cast<size_t>(dim * dim), 0.0);
  for (int64_t i = 0; i < dim; ++i) identity[i * dim + i] = 1.0;
  EXPECT_LT(MaxAbsDiff(*zero, std::vector<double>(identity.size(), 0.0)), 1e-6);
  EXPECT_LT(MaxAbsDiff(*ident, identity), 1e-6);
}

TEST(FitTransitionTest, RejectsABadLambdaAndBadTrajectories) {
  const std::vector<double> z = {1, 0, 0.5, 0.5, 0.25, 0.75};  // 3 states of D = 2
  for (double lambda : {-1.0, std::numeric_limits<double>::quiet_NaN(),
                        std::numeric_limits<double>::infinity()}) {
    StatusOr<std::vector<double>> a = FitTransition(z, 3, 2, lambda, RidgePrior::kZero);
    ASSERT_FALSE(a.ok()) << lambda;
    EXPECT_NE(a.status().message().find("ridge lambda"), std::string::npos);
  }
  EXPECT_FALSE(FitTransition(z, 1, 2, 1e-3, RidgePrior::kZero).ok());  // no pair to fit
  EXPECT_FALSE(FitTransition(z, 4, 2, 1e-3, RidgePrior::kZero).ok());  // size mismatch
}

TEST(OneStepErrorTest, IsTheMeanRelativeErrorOverPairs) {
  // A = I predicts z_t for z_{t+1}: pair 1 has error ‖(1,0) − (2,0)‖/‖(2,0)‖ = 1/2, pair 2 has
  // ‖(2,0) − (2,0)‖ = 0; the mean is 1/4.
  const std::vector<double> z = {1, 0, 2, 0, 2, 0};
  const std::vector<double> identity = {1, 0, 0, 1};
  StatusOr<double> err = OneStepError(z, 3, 2, identity);
  ASSERT_TRUE(err.ok()) << err.status().ToString();
  EXPECT_EQ(*err, 0.25);
  StatusOr<double> single = OneStepError(std::span<const double>(z).first(2), 1, 2, identity);
  ASSERT_TRUE(single.ok());
  EXPECT_EQ(*single, 0.0);
  EXPECT_FALSE(OneStepError(z, 4, 2, identity).ok());                          // too few values
  EXPECT_FALSE(OneStepError(z, 3, 2, std::vector<double>{1, 0, 0}).ok());      // A not D×D
}

}  // namespace
}  // namespace dashi
