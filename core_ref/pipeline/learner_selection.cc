#include "core_ref/pipeline/learner_selection.h"

#include "core_ref/pipeline/evaluation.h"
#include "core_ref/proxy/proxy_energy.h"
#include "core_ref/rollout/rollout_batch.h"

namespace dashi {
namespace {

// Rolls `a` out from each validation trajectory's first state and scores it.
StatusOr<CandidateScore> Validate(const LearnerConfig& config, std::span<const double> a,
                                  const ProxySpec& spec, const TrajectorySet& validation) {
  const int64_t dim = validation.dim;
  const int64_t steps = validation.frames(0) - 1;
  std::vector<double> z0;
  for (size_t r = 0; r < validation.trajectories.size(); ++r) {
    if (validation.frames(r) != steps + 1) {
      return InvalidArgumentError("validation trajectories differ in length");
    }
    z0.insert(z0.end(), validation.state(r, 0), validation.state(r, 0) + dim);
  }
  const int64_t batch = static_cast<int64_t>(validation.trajectories.size());
  std::vector<std::vector<double>> states(static_cast<size_t>(batch));
  RolloutParams p;
  p.steps = steps;
  p.hash_every = steps > 0 ? steps : 1;
  p.observe_every = 1;
  DASHI_RETURN_IF_ERROR(RolloutBatch(z0, batch, a, p,
                                     [&](int64_t b, int64_t, std::span<const double> z) {
                                       states[b].insert(states[b].end(), z.begin(), z.end());
                                       return OkStatus();
                                     })
                            .status());
  const std::vector<double> weights = EnergyWeights(spec);
  const std::vector<double> no_damping(static_cast<size_t>(steps + 1), 0.0);
  std::vector<TrajectoryScores> scores;
  for (int64_t b = 0; b < batch; ++b) {
    DASHI_ASSIGN_OR_RETURN(TrajectoryScores s,
                           ScoreTrajectory(validation.trajectories[b], states[b], dim, no_damping,
                                           weights));
    scores.push_back(std::move(s));
  }
  const Evaluation e = CombineScores(std::move(scores), {}, false);
  CandidateScore c;
  c.config = config;
  c.max_ratio_before_10 = e.max_ratio_before_10;
  for (int64_t h : e.horizons) c.score += e.skill.mean[h];
  c.score /= static_cast<double>(e.horizons.size());
  c.energy_ratio_last = e.energy_ratio.mean[steps];
  c.eligible = c.max_ratio_before_10 <= 1.02;
  return c;
}

}  // namespace

std::vector<LearnerConfig> LearnerCandidates(const LearnerConfig& base, bool choose_k,
                                             bool choose_lambda, int64_t min_frames) {
  std::vector<LearnerConfig> out;
  if (base.kind == LearnerKind::kRidge && choose_lambda) {
    const std::vector<double> grid = base.ridge_prior == RidgePrior::kIdentity
                                         ? std::vector<double>{1e-2, 1e-1, 1, 10, 100, 1000}
                                         : std::vector<double>{1e-6, 1e-4, 1e-2, 1};
    for (double l : grid) {
      LearnerConfig c = base;
      c.ridge_lambda = l;
      out.push_back(c);
    }
    return out;
  }
  if (base.kind != LearnerKind::kRidge && choose_k) {
    for (int64_t k : {1, 5, 10, 20}) {
      if (k >= min_frames) break;
      LearnerConfig c = base;
      c.k = k;
      out.push_back(c);
    }
    return out;
  }
  return {base};
}

StatusOr<LearnerSelection> SelectLearner(const std::vector<LearnerConfig>& candidates,
                                         const ProxySpec& spec, const TrajectorySet& train,
                                         const TrajectorySet& validation) {
  if (candidates.empty()) return InvalidArgumentError("learner selection: no candidates");
  LearnerSelection sel;
  if (candidates.size() == 1) {
    sel.chosen = candidates.front();
    DASHI_ASSIGN_OR_RETURN(sel.fit, FitLearner(sel.chosen, spec, train));
    return sel;
  }
  if (validation.trajectories.empty()) {
    return InvalidArgumentError("choosing " + LearnerConfigText(candidates.front()) +
                                " and its alternatives needs validation seeds (none given)");
  }
  DASHI_RETURN_IF_ERROR(ValidateTrajectorySet(validation, 2));
  int best = -1;
  std::vector<FittedLearner> fits;
  for (size_t i = 0; i < candidates.size(); ++i) {
    DASHI_ASSIGN_OR_RETURN(FittedLearner f, FitLearner(candidates[i], spec, train));
    DASHI_ASSIGN_OR_RETURN(CandidateScore c, Validate(candidates[i], f.a, spec, validation));
    if (c.eligible && (best < 0 || c.score > sel.candidates[best].score)) {
      best = static_cast<int>(i);
    }
    sel.candidates.push_back(c);
    fits.push_back(std::move(f));
  }
  if (best < 0) best = 0;
  sel.chosen = candidates[best];
  sel.fit = std::move(fits[best]);
  return sel;
}

}  // namespace dashi
