#include "core_ref/pipeline/evaluation.h"

#include <cmath>
#include <vector>

#include "gtest/gtest.h"

namespace dashi {
namespace {

// Three coordinates decaying as 0.99^t, 0.95^t, 0.9^t from (1, 2, 3); frames 0 … h.
std::vector<double> Decaying(int64_t h, double scale = 1.0) {
  std::vector<double> z;
  for (int64_t t = 0; t <= h; ++t) {
    z.push_back(scale * std::pow(0.99, static_cast<double>(t)));
    z.push_back(scale * 2 * std::pow(0.95, static_cast<double>(t)));
    z.push_back(scale * 3 * std::pow(0.9, static_cast<double>(t)));
  }
  return z;
}

const std::vector<double> kWeights = {1.0, 0.5, 0.0};

TEST(EvaluationTest, DampedPersistenceOfOneCoordinateIsItsDecay) {
  std::vector<double> z;
  for (int t = 0; t < 30; ++t) z.push_back(std::pow(0.9, t));
  const std::vector<double> alpha = FitDampedPersistence(TrajectorySet{1, {z}}, 40);
  ASSERT_EQ(alpha.size(), 41u);
  EXPECT_EQ(alpha[0], 1.0);
  for (int tau = 1; tau < 30; ++tau) EXPECT_NEAR(alpha[tau], std::pow(0.9, tau), 1e-14) << tau;
  EXPECT_EQ(alpha[30], 0.0);  // no pair that far apart: the zero forecast
}

TEST(EvaluationTest, PerfectAndPersistentForecastsScoreAsDefined) {
  const int64_t h = 12;
  const std::vector<double> truth = Decaying(h);
  const std::vector<double> alpha(h + 1, 0.5);
  StatusOr<TrajectoryScores> perfect = ScoreTrajectory(truth, truth, 3, alpha, kWeights);
  ASSERT_TRUE(perfect.ok()) << perfect.status().ToString();
  std::vector<double> persistent;
  for (int64_t t = 0; t <= h; ++t) persistent.insert(persistent.end(), truth.begin(), truth.begin() + 3);
  StatusOr<TrajectoryScores> same = ScoreTrajectory(truth, persistent, 3, alpha, kWeights);
  ASSERT_TRUE(same.ok());
  for (int64_t t = 1; t <= h; ++t) {
    EXPECT_EQ(perfect->ratio[t], 0.0);
    EXPECT_EQ(perfect->skill[t], 1.0);
    EXPECT_EQ(perfect->energy_rollout[t], perfect->energy_truth[t]);
    EXPECT_EQ(same->ratio[t], 1.0);
    EXPECT_EQ(same->skill[t], 0.0);
    EXPECT_EQ(same->rel_l2_zero[t], 1.0);
    EXPECT_EQ(same->rel_l2_rollout[t], same->rel_l2_persistence[t]);
    EXPECT_GT(same->rel_l2_persistence[t], 0.0);
  }
  // E_z weighs z_0² by 1 and z_1² by ½, ignores z_2; Z_z sums every square.
  EXPECT_DOUBLE_EQ(perfect->energy_truth[0], 1.0 + 0.5 * 4.0);
  EXPECT_DOUBLE_EQ(perfect->enstrophy_truth[0], 1.0 + 4.0 + 9.0);
  EXPECT_EQ(perfect->ratio[0], 1.0);
  EXPECT_EQ(perfect->skill[0], 0.0);

  // Combined: the perfect forecast has skill from step 1; persistence has none.
  Evaluation good = CombineScores({*perfect, *perfect}, {0.99, 0.99}, true);
  EXPECT_EQ(good.horizons, (std::vector<int64_t>{1, 5, 10, 12}));
  EXPECT_EQ(good.skill_from_step, 1);
  EXPECT_TRUE(good.meets_target);
  EXPECT_NE(good.verdict.find("skill over persistence from step 1 on"), std::string::npos)
      << good.verdict;
  Evaluation none = CombineScores({*same}, {1.0, 1.0}, true);
  EXPECT_EQ(none.skill_from_step, -1);
  EXPECT_FALSE(none.meets_target);
  EXPECT_NE(none.verdict.find("no skill"), std::string::npos) << none.verdict;
}

TEST(EvaluationTest, SpreadIsOverTrajectories) {
  const int64_t h = 3;
  const std::vector<double> truth = Decaying(h);
  const std::vector<double> alpha(h + 1, 1.0);
  // Rollouts: the truth scaled by 1.1 and by 0.8 from step 1 on (ratios differ per trajectory).
  std::vector<TrajectoryScores> scores;
  for (double c : {1.1, 0.8}) {
    std::vector<double> r = truth;
    for (size_t k = 3; k < r.size(); ++k) r[k] *= c;
    StatusOr<TrajectoryScores> s = ScoreTrajectory(truth, r, 3, alpha, kWeights);
    ASSERT_TRUE(s.ok());
    scores.push_back(*s);
  }
  const double r0 = scores[0].ratio[2], r1 = scores[1].ratio[2];
  const Evaluation e = CombineScores(scores, {}, false);
  EXPECT_EQ(e.ratio.mean[2], (r0 + r1) / 2);
  EXPECT_EQ(e.ratio.min[2], std::min(r0, r1));
  EXPECT_EQ(e.ratio.max[2], std::max(r0, r1));
  EXPECT_DOUBLE_EQ(e.energy_ratio.mean[2], (1.1 * 1.1 + 0.8 * 0.8) / 2);
  EXPECT_FALSE(e.meets_target);  // H < 10: the target cannot be judged
}

TEST(EvaluationTest, NormsOfANonNormalMatrix) {
  // [[0.5, 1], [0, 0.5]]: ρ = 0.5 (a Jordan block: power iteration converges slowly, as 1/k),
  // ‖A‖₂ = sqrt((1.5 + √2) / 2).
  const std::vector<double> a = {0.5, 1.0, 0.0, 0.5};
  const MatrixNorms n = EstimateMatrixNorms(a, 2);
  EXPECT_NEAR(n.norm2, std::sqrt((1.5 + std::sqrt(2.0)) / 2), 1e-12);
  EXPECT_NEAR(n.spectral_radius, 0.5, 0.01);
  const std::vector<double> d = {0.9, 0.0, 0.0, -0.95};
  const MatrixNorms m = EstimateMatrixNorms(d, 2);
  EXPECT_NEAR(m.norm2, 0.95, 1e-9);  // converges as (0.9/0.95)^200
  EXPECT_NEAR(m.spectral_radius, 0.95, 1e-3);
}

}  // namespace
}  // namespace dashi
