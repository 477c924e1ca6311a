#include "core_ref/learner/trajectory_set.h"

#include <cmath>

namespace dashi {

Status ValidateTrajectorySet(const TrajectorySet& set, int64_t min_frames) {
  if (set.dim < 1) return InvalidArgumentError("trajectory set: D = " + std::to_string(set.dim));
  if (set.trajectories.empty()) return InvalidArgumentError("trajectory set: no trajectories");
  for (size_t r = 0; r < set.trajectories.size(); ++r) {
    const std::span<const double> z = set.trajectories[r];
    const std::string name = "trajectory set: trajectory " + std::to_string(r);
    if (z.size() % static_cast<size_t>(set.dim) != 0) {
      return InvalidArgumentError(name + " has " + std::to_string(z.size()) +
                                  " values, not a whole number of states of D = " +
                                  std::to_string(set.dim));
    }
    if (set.frames(r) < min_frames) {
      return InvalidArgumentError(name + " has " + std::to_string(set.frames(r)) +
                                  " states; at least " + std::to_string(min_frames) +
                                  " are needed");
    }
    for (size_t k = 0; k < z.size(); ++k) {
      if (!std::isfinite(z[k])) {
        return InvalidArgumentError(name + ", frame " + std::to_string(k / set.dim) +
                                    ", index " + std::to_string(k % set.dim) +
                                    " is not finite");
      }
    }
  }
  return OkStatus();
}

}  // namespace dashi
