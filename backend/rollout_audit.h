// Replay audit: runs one rollout on two backends (the fp64 reference and a device), compares the
// hash chains, and locates the first diverging checkpoint and then the first diverging step by
// bisection between the last matching checkpoint and the first mismatching one (re-running both
// backends from the last matching state). Used by `dashi audit`.
//
//   DASHI_ASSIGN_OR_RETURN(AuditResult r, AuditPreparedRollouts(z0, 5000, 500, ref, dev));
//   if (!r.chains_equal) Report(r.first_diverging_step, r.first_differing_index);
#ifndef DASHI_BACKEND_ROLLOUT_AUDIT_H_
#define DASHI_BACKEND_ROLLOUT_AUDIT_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "core_ref/rollout/rollout.h"
#include "core_ref/status/status.h"

namespace dashi::backend {

// Runs `steps` steps from z (which is the state at absolute step `start_step`) and returns the
// result with checkpoints every `hash_every` (steps relative to z).
using RolloutBackend = std::function<StatusOr<RolloutResult>(
    std::span<const double> z, int64_t start_step, int64_t steps, int64_t hash_every)>;

struct AuditResult {
  bool chains_equal = false;
  int64_t checkpoints = 0;
  // When they differ:
  int64_t first_diverging_checkpoint_step = -1;
  int64_t last_matching_checkpoint_step = -1;
  int64_t first_diverging_step = -1;  // the first step whose state differs bit for bit
  std::string ref_state_hash, dev_state_hash;  // of that step's states
  int64_t first_differing_index = -1;
  double ref_value = 0, dev_value = 0;
  int64_t bisection_runs = 0;
};

StatusOr<AuditResult> AuditRollout(std::span<const double> z0, int64_t steps, int64_t hash_every,
                                   const RolloutBackend& reference, const RolloutBackend& device);

// AuditRollout of two prepared rollouts of the same A (typically the reference's and a device's).
StatusOr<AuditResult> AuditPreparedRollouts(std::span<const double> z0, int64_t steps,
                                            int64_t hash_every, PreparedRollout& reference,
                                            PreparedRollout& device);

}  // namespace dashi::backend

#endif  // DASHI_BACKEND_ROLLOUT_AUDIT_H_
