// The choice of a learner's hyperparameters (K of the K-step loss, ridge's λ) on validation
// trajectories that the evaluation never sees (docs/MATH.md §10.3). Each candidate is fitted on
// the training set and rolled out on the reference (RolloutBatch) from every validation
// trajectory's first state for as many steps as the trajectory has; it is eligible when its
// validation-mean rel L2 ratio to persistence is ≤ 1.02 at every step 1 … 9; among eligible
// candidates the largest score (mean skill over the horizons {1, 5, 10, 20, 50, 100, 200, H})
// wins, ties to the earlier candidate; with none eligible, the first candidate.
#ifndef DASHI_CORE_REF_PIPELINE_LEARNER_SELECTION_H_
#define DASHI_CORE_REF_PIPELINE_LEARNER_SELECTION_H_

#include <vector>

#include "core_ref/learner/learner.h"
#include "core_ref/learner/trajectory_set.h"
#include "core_ref/proxy/proxy_encoder.h"
#include "core_ref/status/status.h"

namespace dashi {

// K ∈ {1, 5, 10, 20} for a K-step loss with K chosen on validation (those with K < min_frames);
// λ ∈ {1e-2, 0.1, 1, 10, 100, 1000} (prior identity) or {1e-6, 1e-4, 1e-2, 1} (prior zero) for
// ridge; otherwise `base` alone.
std::vector<LearnerConfig> LearnerCandidates(const LearnerConfig& base, bool choose_k,
                                             bool choose_lambda, int64_t min_frames);

struct CandidateScore {
  LearnerConfig config;
  double max_ratio_before_10 = 0;
  double score = 0;
  double energy_ratio_last = 0;  // validation mean, rollout over LES, at the last step
  bool eligible = false;
};

struct LearnerSelection {
  LearnerConfig chosen;
  FittedLearner fit;
  std::vector<CandidateScore> candidates;  // empty when there was nothing to choose
};

// One candidate: fitted, not validated. Several: `validation` must hold at least one trajectory
// of at least 2 states (INVALID_ARGUMENT otherwise).
StatusOr<LearnerSelection> SelectLearner(const std::vector<LearnerConfig>& candidates,
                                         const ProxySpec& spec, const TrajectorySet& train,
                                         const TrajectorySet& validation);

}  // namespace dashi

#endif  // DASHI_CORE_REF_PIPELINE_LEARNER_SELECTION_H_
