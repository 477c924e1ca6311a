#include "core_ref/learner/lag_sums.h"

#include <string>

namespace dashi {
namespace {

Status CheckGroups(const TrajectorySet& set, const CoordinateGroups& groups) {
  if (static_cast<int64_t>(groups.group_of.size()) != set.dim) {
    return InvalidArgumentError("lag sums: the groups cover " +
                                std::to_string(groups.group_of.size()) +
                                " coordinates, the states have D = " + std::to_string(set.dim));
  }
  return OkStatus();
}

}  // namespace

StatusOr<GroupLagSums> ComputeGroupLagSums(const TrajectorySet& set, const CoordinateGroups& groups,
                                           int64_t max_lag) {
  if (max_lag < 1) return InvalidArgumentError("lag sums: K = " + std::to_string(max_lag) + " < 1");
  DASHI_RETURN_IF_ERROR(ValidateTrajectorySet(set, max_lag + 1));
  DASHI_RETURN_IF_ERROR(CheckGroups(set, groups));
  GroupLagSums s;
  s.groups = groups.count;
  s.max_lag = max_lag;
  const size_t width = static_cast<size_t>(max_lag + 1);
  s.p.assign(static_cast<size_t>(groups.count) * width, 0.0);
  s.c.assign(s.p.size(), 0.0);
  for (int64_t tau = 0; tau <= max_lag; ++tau) {
    for (size_t r = 0; r < set.trajectories.size(); ++r) {
      for (int64_t t = 0; t + tau < set.frames(r); ++t) {
        const double* z = set.state(r, t);
        const double* y = set.state(r, t + tau);
        for (int64_t i = 0; i < set.dim; ++i) {
          const size_t at = static_cast<size_t>(groups.group_of[i]) * width + tau;
          s.p[at] += z[i] * z[i];
          s.c[at] += z[i] * y[i];
        }
      }
    }
  }
  return s;
}

StatusOr<EnergyLagSums> ComputeEnergyLagSums(const TrajectorySet& set,
                                             const CoordinateGroups& groups,
                                             std::span<const double> weights, int64_t lag) {
  if (lag < 1) return InvalidArgumentError("energy lag L = " + std::to_string(lag) + " < 1");
  DASHI_RETURN_IF_ERROR(ValidateTrajectorySet(set, lag + 1));
  DASHI_RETURN_IF_ERROR(CheckGroups(set, groups));
  if (static_cast<int64_t>(weights.size()) != set.dim) {
    return InvalidArgumentError("energy lag sums: " + std::to_string(weights.size()) +
                                " weights for D = " + std::to_string(set.dim));
  }
  EnergyLagSums e;
  e.lag = lag;
  e.per_group.assign(static_cast<size_t>(groups.count), 0.0);
  for (size_t r = 0; r < set.trajectories.size(); ++r) {
    for (int64_t t = 0; t + lag < set.frames(r); ++t) {
      const double* z = set.state(r, t);
      const double* y = set.state(r, t + lag);
      for (int64_t i = 0; i < set.dim; ++i) {
        e.per_group[static_cast<size_t>(groups.group_of[i])] += weights[i] * (z[i] * z[i]);
        e.target += weights[i] * (y[i] * y[i]);
      }
    }
  }
  return e;
}

}  // namespace dashi
