#include "core_ref/learner/transition_fit.h"

#include <cmath>
#include <string>

#include "core_ref/learner/ridge.h"
#include "core_ref/rollout/vecmat.h"

namespace dashi {

StatusOr<RidgePrior> ParseRidgePrior(const std::string& name) {
  if (name == "zero") return RidgePrior::kZero;
  if (name == "identity") return RidgePrior::kIdentity;
  return InvalidArgumentError("ridge prior '" + name + "' is not one of: zero, identity");
}

const char* RidgePriorName(RidgePrior prior) {
  return prior == RidgePrior::kZero ? "zero" : "identity";
}

StatusOr<std::vector<double>> FitTransition(std::span<const double> states, int64_t count,
                                            int64_t dim, double lambda_rel, RidgePrior prior) {
  if (!std::isfinite(lambda_rel) || lambda_rel < 0) {
    return InvalidArgumentError("ridge lambda must be finite and >= 0");
  }
  // PairsFromTrajectory words the shape errors (count < 2, a size that is not count × dim).
  DASHI_RETURN_IF_ERROR(PairsFromTrajectory(states, count, dim).status());
  return FitTransitionSet(TrajectorySet{dim, {states}}, lambda_rel, prior);
}

StatusOr<std::vector<double>> FitTransitionSet(const TrajectorySet& set, double lambda_rel,
                                               RidgePrior prior) {
  if (!std::isfinite(lambda_rel) || lambda_rel < 0) {
    return InvalidArgumentError("ridge lambda must be finite and >= 0");
  }
  const int64_t dim = set.dim;
  RegressionPairs pairs;
  for (size_t r = 0; r < set.trajectories.size(); ++r) {
    DASHI_ASSIGN_OR_RETURN(RegressionPairs one,
                           PairsFromTrajectory(set.trajectories[r], set.frames(r), dim));
    pairs.z.insert(pairs.z.end(), one.z.begin(), one.z.end());
    pairs.y.insert(pairs.y.end(), one.y.begin(), one.y.end());
    pairs.samples += one.samples;
  }
  pairs.dim = dim;
  if (pairs.samples == 0) return InvalidArgumentError("ridge: no trajectories to fit");
  double scale = 0;
  for (double v : pairs.z) scale += v * v;
  scale /= static_cast<double>(dim);  // trace(ZᵀZ) / D
  if (prior == RidgePrior::kIdentity) {
    for (size_t k = 0; k < pairs.y.size(); ++k) pairs.y[k] -= pairs.z[k];
  }
  DASHI_ASSIGN_OR_RETURN(std::vector<double> a,
                         FitRidge(pairs.z, pairs.y, pairs.samples, dim, lambda_rel * scale));
  if (prior == RidgePrior::kIdentity) {
    for (int64_t i = 0; i < dim; ++i) a[i * dim + i] += 1.0;
  }
  return a;
}

StatusOr<double> OneStepError(std::span<const double> states, int64_t count, int64_t dim,
                              std::span<const double> a) {
  if (count < 0 || dim < 1 || states.size() != static_cast<size_t>(count * dim)) {
    return InvalidArgumentError("one-step error: " + std::to_string(states.size()) +
                                " values are not " + std::to_string(count) + " states of D = " +
                                std::to_string(dim));
  }
  double sum = 0;
  std::vector<double> pred(static_cast<size_t>(dim));
  for (int64_t t = 0; t + 1 < count; ++t) {
    DASHI_RETURN_IF_ERROR(CanonicalVecMat(states.subspan(t * dim, dim), a, pred));
    double num = 0, den = 0;
    for (int64_t i = 0; i < dim; ++i) {
      const double d = pred[i] - states[(t + 1) * dim + i];
      num += d * d;
      den += states[(t + 1) * dim + i] * states[(t + 1) * dim + i];
    }
    sum += den > 0 ? std::sqrt(num / den) : 0.0;
  }
  return count > 1 ? sum / static_cast<double>(count - 1) : 0.0;
}

}  // namespace dashi
