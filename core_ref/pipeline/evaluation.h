// The evaluation of a rollout against held-out LES trajectories, with its baselines and skill
// (docs/MATH.md §10.4). Per eval trajectory e and step τ (truth z_τ, rollout ẑ_τ, both encoded or
// rolled out from the same z_0), for x ∈ {rollout, persistence ẑ = z_0, damped persistence
// ẑ = α(τ) z_0, zero ẑ = 0}:
//   MSE_x(τ) = Σ_i (ẑ^x_{τ,i} − z_{τ,i})²,  rel L2 = sqrt(MSE / Σ_i z_{τ,i}²),
//   ratio    = sqrt(MSE_rollout / MSE_persistence),  skill = 1 − MSE_rollout / MSE_persistence
//   (step 0: ratio 1, skill 0 by convention; both forecasts are exact there),
//   correlation = Pearson over the D entries; energy E_z and enstrophy Z_z of ẑ_τ and of z_τ.
// Across eval trajectories: mean, min and max per step, sums in trajectory order. Damped
// persistence's α(τ) is fitted on the training trajectories (never on eval data):
//   α(τ) = Σ_r Σ_{t=0}^{N_r−1−τ} ⟨z_t, z_{t+τ}⟩ / Σ_r Σ_t ‖z_t‖²   (0 where no pair exists).
#ifndef DASHI_CORE_REF_PIPELINE_EVALUATION_H_
#define DASHI_CORE_REF_PIPELINE_EVALUATION_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core_ref/learner/trajectory_set.h"
#include "core_ref/status/status.h"

namespace dashi {

// α(0 … horizon) on the training set.
std::vector<double> FitDampedPersistence(const TrajectorySet& train, int64_t horizon);

struct TrajectoryScores {
  std::vector<double> rel_l2_rollout, rel_l2_persistence, rel_l2_damped, rel_l2_zero;
  std::vector<double> correlation_rollout, correlation_persistence;
  std::vector<double> ratio, skill;
  std::vector<double> energy_rollout, energy_truth, enstrophy_rollout, enstrophy_truth;
};

// Per-step statistics over the eval trajectories.
struct Spread {
  std::vector<double> mean, min, max;
};

struct Evaluation {
  int64_t steps = 0;  // H; every per-step array has H + 1 entries
  std::vector<TrajectoryScores> trajectories;
  Spread ratio, skill, rel_l2_rollout, rel_l2_persistence, rel_l2_damped, rel_l2_zero;
  Spread correlation_rollout, correlation_persistence;
  Spread energy_ratio, enstrophy_ratio;  // rollout over truth, per step
  std::vector<int64_t> horizons;         // {1, 5, 10, 20, 50, 100, 200, H} ∩ [1, H]
  // The smallest N with mean ratio < 1 at every step N … H; -1 when the last step's is ≥ 1.
  int64_t skill_from_step = -1;
  double max_ratio_before_10 = 0;   // mean ratio's largest value over steps 1 … min(9, H)
  double max_ratio_from_10 = 0;     // … over steps 10 … H (0 when H < 10)
  bool meets_target = false;        // ≤ 1.02 before step 10, < 1 from 10 on, |E_H/E_LES − 1| ≤ 0.15
  double spectral_radius = 0, norm2 = 0;
  bool norms_exact = false;         // false: estimated by fixed-count power iterations
  std::string verdict;              // one line
};

// Scores one trajectory: truth and rollout (H+1)×D, α(0 … H), energy weights (D).
StatusOr<TrajectoryScores> ScoreTrajectory(std::span<const double> truth,
                                           std::span<const double> rollout, int64_t dim,
                                           std::span<const double> alpha,
                                           std::span<const double> energy_weights);

// ‖A‖₂ (100 power iterations on AᵀA) and ρ(A) (‖v·A^64‖^{1/64} after 64 normalised warm-up
// steps, the root by six square roots), both from v = (1, …, 1)/√D: estimates for a general A.
struct MatrixNorms {
  double spectral_radius = 0, norm2 = 0;
};
MatrixNorms EstimateMatrixNorms(std::span<const double> a, int64_t dim);

// Combines the trajectories' scores (at least one, all of H + 1 steps), fills the spreads, the
// horizons, the target check and the verdict. `norms` are stored as given.
Evaluation CombineScores(std::vector<TrajectoryScores> scores, const MatrixNorms& norms,
                         bool norms_exact);

}  // namespace dashi

#endif  // DASHI_CORE_REF_PIPELINE_EVALUATION_H_
