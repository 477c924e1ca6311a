#include "core_ref/learner/learner.h"

#include <cmath>
#include <vector>

#include "core_ref/learner/coordinate_groups.h"
#include "core_ref/prng/prng.h"
#include "core_ref/proxy/proxy_energy.h"
#include "gtest/gtest.h"

namespace dashi {
namespace {

// N = 32, k_lo = 3, k_mid = 6, two anchors: shells 1, 2, 3 of the low modes and the anchors'.
ProxySpec Spec() {
  const std::vector<Mode> anchors = {{4, 1}, {0, 6}};
  StatusOr<ProxySpec> s = ProxySpecFromAnchors(32, 3, 6, anchors);
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return *s;
}

// Every coordinate decays as its shell's gain 1 − 0.01·shell (bands 0.9), from random starts.
std::vector<double> ShellDecay(const ProxySpec& spec, int64_t frames, uint64_t seed) {
  const int64_t dim = spec.dim();
  std::vector<double> gain(static_cast<size_t>(dim), 0.9);
  for (size_t m = 0; m < spec.low_modes.size() + spec.anchors.size(); ++m) {
    const Mode& mode = m < spec.low_modes.size() ? spec.low_modes[m]
                                                 : spec.anchors[m - spec.low_modes.size()];
    gain[2 * m] = gain[2 * m + 1] = 1.0 - 0.01 * static_cast<double>(ModeShell(mode));
  }
  Xoshiro256ss rng(seed);
  std::vector<double> z(static_cast<size_t>(dim));
  for (double& v : z) v = rng.NextDouble() - 0.5;
  std::vector<double> out;
  for (int64_t t = 0; t < frames; ++t) {
    out.insert(out.end(), z.begin(), z.end());
    for (int64_t i = 0; i < dim; ++i) z[i] *= gain[i];
  }
  return out;
}

TEST(LearnerTest, ShellGroupsByRoundedRadius) {
  const ProxySpec spec = Spec();
  const CoordinateGroups g = MakeCoordinateGroups(GroupingKind::kShell, spec);
  // Shells 1, 2, 3 (low), 4 (anchor (4,1): |k| = 4.12), 6 (anchor (0,6)), then the bands.
  EXPECT_EQ(g.names, (std::vector<std::string>{"shell 1", "shell 2", "shell 3", "shell 4",
                                               "shell 6", "z_mid", "z_high"}));
  EXPECT_EQ(g.group_of[spec.mid_index()], 5);
  EXPECT_EQ(g.group_of[spec.high_index()], 6);
  EXPECT_EQ(MakeCoordinateGroups(GroupingKind::kDiagonal, spec).count, spec.dim());
  EXPECT_EQ(MakeCoordinateGroups(GroupingKind::kScalar, spec).count, 1);
}

TEST(LearnerTest, GainLearnersRecoverShellDecays) {
  const ProxySpec spec = Spec();
  const std::vector<double> z1 = ShellDecay(spec, 40, 1), z2 = ShellDecay(spec, 30, 2);
  const TrajectorySet set{spec.dim(), {z1, z2}};
  for (LearnerKind kind : {LearnerKind::kShell, LearnerKind::kDiagonal, LearnerKind::kMode2x2}) {
    for (int64_t k : {1, 5}) {
      LearnerConfig c;
      c.kind = kind;
      c.k = k;
      StatusOr<FittedLearner> f = FitLearner(c, spec, set);
      ASSERT_TRUE(f.ok()) << f.status().ToString();
      const int64_t dim = spec.dim();
      // A is diagonal with each coordinate's own decay (the true map of this data).
      const std::vector<double> truth = ShellDecay(spec, 2, 1);
      for (int64_t i = 0; i < dim; ++i) {
        for (int64_t j = 0; j < dim; ++j) {
          const double want = i == j ? truth[dim + i] / truth[i] : 0.0;
          EXPECT_NEAR(f->a[i * dim + j], want, 1e-10) << LearnerConfigText(c) << " " << i << "," << j;
        }
      }
      EXPECT_NEAR(f->spectral_radius, 0.99, 1e-10) << LearnerConfigText(c);
    }
  }
}

TEST(LearnerTest, RidgeOnOneTrajectoryIsFitTransition) {
  const ProxySpec spec = Spec();
  const std::vector<double> z = ShellDecay(spec, 40, 3);
  LearnerConfig c;
  c.kind = LearnerKind::kRidge;
  c.ridge_lambda = 1e-3;
  StatusOr<FittedLearner> f = FitLearner(c, spec, TrajectorySet{spec.dim(), {z}});
  StatusOr<std::vector<double>> want =
      FitTransition(z, 40, spec.dim(), 1e-3, RidgePrior::kIdentity);
  ASSERT_TRUE(f.ok() && want.ok());
  EXPECT_EQ(f->a, *want);
}

TEST(LearnerTest, RejectsWhatDoesNotApply) {
  const ProxySpec spec = Spec();
  const std::vector<double> z = ShellDecay(spec, 10, 4);
  const TrajectorySet set{spec.dim(), {z}};
  LearnerConfig ridge_k;
  ridge_k.kind = LearnerKind::kRidge;
  ridge_k.k = 5;
  EXPECT_FALSE(FitLearner(ridge_k, spec, set).ok());
  LearnerConfig rotation_energy;
  rotation_energy.kind = LearnerKind::kMode2x2;
  rotation_energy.energy_constraint = true;
  rotation_energy.energy_lag = 3;
  EXPECT_FALSE(FitLearner(rotation_energy, spec, set).ok());
  LearnerConfig too_long;
  too_long.energy_constraint = true;
  too_long.energy_lag = 10;  // needs 11 states
  EXPECT_FALSE(FitLearner(too_long, spec, set).ok());
  EXPECT_FALSE(ParseLearnerKind("full").ok());
  EXPECT_EQ(*ParseLearnerKind("mode2x2"), LearnerKind::kMode2x2);
}

}  // namespace
}  // namespace dashi
