// Lag sums of a trajectory set per coordinate group: the sufficient statistics of every
// homogeneous learner's K-step loss and of the energy constraint (docs/MATH.md §10).
//   P_s[τ] = Σ_r Σ_{t=0}^{N_r−1−τ} Σ_{i∈s} (z_{t,i})²,   C_s[τ] = Σ_r Σ_t Σ_{i∈s} z_{t,i} z_{t+τ,i}
//   W_s = Σ_r Σ_{t=0}^{N_r−1−L} Σ_{i∈s} w_i (z_{t,i})²,  T = Σ_r Σ_t Σ_i w_i (z_{t+L,i})²
// Each sum runs r ascending, t ascending, i ascending, from its first term.
#ifndef DASHI_CORE_REF_LEARNER_LAG_SUMS_H_
#define DASHI_CORE_REF_LEARNER_LAG_SUMS_H_

#include <cstdint>
#include <span>
#include <vector>

#include "core_ref/learner/coordinate_groups.h"
#include "core_ref/learner/trajectory_set.h"
#include "core_ref/status/status.h"

namespace dashi {

struct GroupLagSums {
  int64_t groups = 0;
  int64_t max_lag = 0;  // K
  std::vector<double> p, c;  // groups × (K + 1), row s holds τ = 0 … K

  std::span<const double> p_of(int64_t s) const {
    return std::span<const double>(p).subspan(s * (max_lag + 1), max_lag + 1);
  }
  std::span<const double> c_of(int64_t s) const {
    return std::span<const double>(c).subspan(s * (max_lag + 1), max_lag + 1);
  }
};

// INVALID_ARGUMENT for an invalid set (ValidateTrajectorySet with K + 1 frames), max_lag < 1, or
// groups that do not cover the set's dimension.
StatusOr<GroupLagSums> ComputeGroupLagSums(const TrajectorySet& set, const CoordinateGroups& groups,
                                           int64_t max_lag);

// The energy the training LES keeps over `lag` steps, by group.
struct EnergyLagSums {
  int64_t lag = 0;                 // L
  std::vector<double> per_group;   // W_s
  double target = 0;               // T
};

// INVALID_ARGUMENT as above (L + 1 frames), or weights.size() ≠ D.
StatusOr<EnergyLagSums> ComputeEnergyLagSums(const TrajectorySet& set,
                                             const CoordinateGroups& groups,
                                             std::span<const double> weights, int64_t lag);

}  // namespace dashi

#endif  // DASHI_CORE_REF_LEARNER_LAG_SUMS_H_
