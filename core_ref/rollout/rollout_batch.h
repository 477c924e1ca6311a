// RolloutBatch: B hash-chained rollouts z_{t+1} = z_t·A with one A, stepped together (all rows
// advance one step before any advances the next). Row b's states, chain and errors are bit for bit
// Rollout(row b of Z0, A, params): the batched reference twin of accel_vulkan's
// VulkanBatchedRollout, used by the pipeline to roll out every eval trajectory at once.
//
//   DASHI_ASSIGN_OR_RETURN(std::vector<RolloutResult> r,
//                          RolloutBatch(z0, /*batch=*/3, a, {.steps = 200, .hash_every = 10},
//                                       [&](int64_t b, int64_t t, std::span<const double> z) {...}));
#ifndef DASHI_CORE_REF_ROLLOUT_ROLLOUT_BATCH_H_
#define DASHI_CORE_REF_ROLLOUT_ROLLOUT_BATCH_H_

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "core_ref/rollout/rollout.h"
#include "core_ref/status/status.h"

namespace dashi {

// Called with (b, t, z_t of row b) at the steps Rollout's observer sees, rows in increasing b
// within a step. The span is valid only during the call.
using BatchRolloutObserver =
    std::function<Status(int64_t row, int64_t step, std::span<const double> state)>;

// z0: batch × D row-major (D = z0.size() / batch). Errors as Rollout's, prefixed
// "trajectory b: " (the lowest b among those failing at the earliest step); INVALID_ARGUMENT
// also for batch < 1 or z0.size() not a positive multiple of batch.
StatusOr<std::vector<RolloutResult>> RolloutBatch(std::span<const double> z0, int64_t batch,
                                                  std::span<const double> a,
                                                  const RolloutParams& params,
                                                  const BatchRolloutObserver& observer = nullptr);

// What RolloutBatch does with the states after each step — the checkpoints of every row's chain
// and the observer calls, rows in increasing b — for a twin that computes the states elsewhere
// (the Vulkan backend's batched kernel), so that both record a step the same way.
class BatchRolloutRecorder {
 public:
  BatchRolloutRecorder(int64_t batch, int64_t dim, const RolloutParams& params,
                       const BatchRolloutObserver& observer);
  // `states`: batch × dim, z_step of every row. The observer's error, prefixed with
  // "trajectory b: rollout observer at step t".
  Status Record(int64_t step, std::span<const double> states);
  // The results, with the final states (batch × dim) of the last step.
  std::vector<RolloutResult> Finish(std::span<const double> final_states);

 private:
  int64_t batch_, dim_;
  RolloutParams params_;
  BatchRolloutObserver observer_;
  std::vector<RolloutResult> results_;
  std::vector<Hash128> links_;
};

}  // namespace dashi

#endif  // DASHI_CORE_REF_ROLLOUT_ROLLOUT_BATCH_H_
