// A training (or validation) set for the learners: R trajectories of proxy states, each
// frames_r × D row-major. Pairs (z_t, z_{t+τ}) are always taken inside one trajectory, never
// across two; every sum over the set runs over r ascending, then t ascending.
#ifndef DASHI_CORE_REF_LEARNER_TRAJECTORY_SET_H_
#define DASHI_CORE_REF_LEARNER_TRAJECTORY_SET_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core_ref/status/status.h"

namespace dashi {

struct TrajectorySet {
  int64_t dim = 0;
  std::vector<std::span<const double>> trajectories;  // each frames_r × dim

  int64_t frames(size_t r) const { return static_cast<int64_t>(trajectories[r].size()) / dim; }
  const double* state(size_t r, int64_t t) const { return trajectories[r].data() + t * dim; }
};

// INVALID_ARGUMENT unless dim ≥ 1, there is at least one trajectory, every one holds a whole
// number of at least `min_frames` states, and every value is finite (naming trajectory, frame
// and index).
Status ValidateTrajectorySet(const TrajectorySet& set, int64_t min_frames);

}  // namespace dashi

#endif  // DASHI_CORE_REF_LEARNER_TRAJECTORY_SET_H_
