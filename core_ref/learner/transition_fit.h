// The learner as the pipeline uses it: fit the transition A of z_{t+1} ≈ z_t·A on a trajectory by
// ridge regression with a relative λ and a prior (towards 0 or towards persistence, docs/MATH.md
// §10), and measure its one-step error on any trajectory.
//
//   DASHI_ASSIGN_OR_RETURN(RidgePrior prior, ParseRidgePrior("identity"));
//   DASHI_ASSIGN_OR_RETURN(std::vector<double> a, FitTransition(z, frames, dim, 1e-2, prior));
//   DASHI_ASSIGN_OR_RETURN(double err, OneStepError(z_eval, eval_frames, dim, a));
#ifndef DASHI_CORE_REF_LEARNER_TRANSITION_FIT_H_
#define DASHI_CORE_REF_LEARNER_TRANSITION_FIT_H_

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "core_ref/learner/trajectory_set.h"
#include "core_ref/status/status.h"

namespace dashi {

// What the ridge penalty pulls A towards. kZero is the design's formula, λ‖A‖²; kIdentity fits the
// increment, A = I + B with B = argmin Σ‖(z_{t+1} − z_t) − z_t B‖² + λ‖B‖² (i.e. λ‖A − I‖²),
// which shrinks towards persistence instead of towards 0.
enum class RidgePrior { kZero, kIdentity };
// "zero" or "identity"; anything else is INVALID_ARGUMENT naming the input.
StatusOr<RidgePrior> ParseRidgePrior(const std::string& name);
const char* RidgePriorName(RidgePrior prior);

// Fits A (dim × dim, row-major) on the consecutive pairs of `count` states (count × dim,
// row-major): λ_abs = lambda_rel · trace(ZᵀZ)/D, penalty towards 0 or I as `prior` says, solved
// by FitRidge (core_ref/learner/ridge.h). INVALID_ARGUMENT for a negative or non-finite
// lambda_rel and FitRidge's errors otherwise.
StatusOr<std::vector<double>> FitTransition(std::span<const double> states, int64_t count,
                                            int64_t dim, double lambda_rel, RidgePrior prior);

// The same fit on the consecutive pairs of every trajectory of `set` (r ascending, t ascending;
// never a pair across two trajectories). One trajectory gives FitTransition's bytes.
StatusOr<std::vector<double>> FitTransitionSet(const TrajectorySet& set, double lambda_rel,
                                               RidgePrior prior);

// Mean over consecutive pairs of ‖z_t·A − z_{t+1}‖ / ‖z_{t+1}‖ (z_t·A in the canonical order of
// core_ref/rollout; a pair whose target is 0 counts 0); 0 for fewer than two states.
StatusOr<double> OneStepError(std::span<const double> states, int64_t count, int64_t dim,
                              std::span<const double> a);

}  // namespace dashi

#endif  // DASHI_CORE_REF_LEARNER_TRANSITION_FIT_H_
