// The learners: each fits one D×D transition A on a training set of proxy trajectories, so the
// rollout z ← z·A is the same contract whatever learned A (docs/MATH.md §10).
//   ridge     full D×D ridge regression, prior 0 or I, relative λ (one-step loss only)
//   scalar    one real gain for every coordinate
//   diagonal  one real gain per coordinate
//   shell     one real gain per integer shell round(|k|), one per band scalar
//   mode2x2   one complex gain per mode (a 2×2 rotation-scaling block), real gains for the bands
// The gain learners (scalar, diagonal, shell) minimise the K-step loss (K = 1: one-step) over
// g ∈ [0, 1], optionally under the energy constraint (gain_fit.h); mode2x2 clips |g| ≤ 1. So
// ρ(A) ≤ 1 for all but ridge, and ρ(A) is known exactly for them.
//
//   LearnerConfig c;  c.kind = LearnerKind::kShell;  c.k = 10;  c.energy_lag = 200;
//   DASHI_ASSIGN_OR_RETURN(FittedLearner f, FitLearner(c, spec, train_set));   // f.a: D×D
#ifndef DASHI_CORE_REF_LEARNER_LEARNER_H_
#define DASHI_CORE_REF_LEARNER_LEARNER_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core_ref/learner/trajectory_set.h"
#include "core_ref/learner/transition_fit.h"
#include "core_ref/proxy/proxy_encoder.h"
#include "core_ref/status/status.h"

namespace dashi {

enum class LearnerKind { kRidge, kScalar, kDiagonal, kShell, kMode2x2 };
// "ridge", "scalar", "diagonal", "shell", "mode2x2"; INVALID_ARGUMENT otherwise.
StatusOr<LearnerKind> ParseLearnerKind(const std::string& name);
const char* LearnerKindName(LearnerKind kind);
// True for the learners the energy constraint applies to (scalar, diagonal, shell).
bool IsGainLearner(LearnerKind kind);

struct LearnerConfig {
  LearnerKind kind = LearnerKind::kShell;
  int64_t k = 1;                  // steps of the K-step loss (1: one-step loss); ridge: 1 only
  double ridge_lambda = 1e-2;     // relative to trace(ZᵀZ)/D
  RidgePrior ridge_prior = RidgePrior::kIdentity;
  bool energy_constraint = false; // gain learners only
  int64_t energy_lag = 0;         // L ≥ 1 when the constraint applies
};

// "shell, K-step K=10, energy constraint L=200" and the like.
std::string LearnerConfigText(const LearnerConfig& c);

struct FittedLearner {
  std::vector<double> a;               // D×D, row-major
  std::vector<std::string> gain_names; // gain learners: one per group; mode2x2: per mode |g|
  std::vector<double> gains;
  double spectral_radius = -1;         // exact for the block-diagonal learners; -1 for ridge
};

// INVALID_ARGUMENT: k < 1, ridge with k ≠ 1, the energy constraint on a learner it does not
// apply to or with energy_lag < 1, a set of another dimension than spec.dim(), trajectories
// shorter than max(K, L) + 1 states; the fits' own errors otherwise.
StatusOr<FittedLearner> FitLearner(const LearnerConfig& config, const ProxySpec& spec,
                                   const TrajectorySet& train);

}  // namespace dashi

#endif  // DASHI_CORE_REF_LEARNER_LEARNER_H_
