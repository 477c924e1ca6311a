// The host side shared by the Vulkan rollouts (VulkanRollout: one trajectory; VulkanBatchedRollout
// in accel_vulkan/batched: B at once): the checks of their Create() (core_ref/rollout's for the
// values of A, with its wording; the other errors of a run are core_ref/rollout's own functions),
// the plan of which steps go into one submission, recording a submission's steps with snapshot
// copies into a staging ring, and the step-by-step replay that locates the first non-finite
// state. The device work of one step and of one copy stays with the caller (callbacks), so one
// loop serves every kernel layout.
//
//   std::vector<int64_t> snaps;
//   const int64_t end = PlanSubmission(t, steps, max_steps, slots, next_snapshot, &snaps);
//   DASHI_RETURN_IF_ERROR(SubmitSteps(*batch, t, end, snaps, record_step, record_copy,
//                                     &parity, &tally));
#ifndef DASHI_ACCEL_VULKAN_ROLLOUT_ROLLOUT_DRIVER_H_
#define DASHI_ACCEL_VULKAN_ROLLOUT_ROLLOUT_DRIVER_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include <vulkan/vulkan.h>

#include "accel_vulkan/command_batch.h"
#include "accel_vulkan/context.h"
#include "core_ref/status/status.h"

namespace dashi::vk {

// The smallest multiple of `every` (≥ 1) above `step` (≥ 0), or `cap` when that is smaller (also
// when the multiple would overflow).
int64_t NextMultiple(int64_t step, int64_t every, int64_t cap);

// The checks of a rollout's Create(), messages opening with `who` ("vulkan rollout: ..."):
// INVALID_ARGUMENT for D < 1 or a.size() ≠ D², UNIMPLEMENTED for D > max_dim (32-bit indexing
// in the shaders); then core_ref's check of A's values (ValidateRolloutMatrixValues: a NaN/±Inf
// named with its flat index, in core_ref's words); then INVALID_ARGUMENT unless
// max_steps_per_submit and max_snapshots_per_submit are both >= 1.
Status ValidateRolloutCreate(std::string_view who, int64_t dim, int64_t max_dim,
                             std::span<const double> a, int64_t max_steps_per_submit,
                             int64_t max_snapshots_per_submit);

// The device's properties, or UNIMPLEMENTED (opening with `who`) when it lacks shaderFloat64 or
// Vulkan 1.2 (the rollout shaders are SPIR-V 1.5).
StatusOr<VkPhysicalDeviceProperties> RolloutDeviceProperties(const VulkanContext& ctx,
                                                             std::string_view who);

// What the submissions of a run did. Device times come from timestamps (0 without them).
struct SubmissionTally {
  int64_t steps = 0;        // steps computed
  int64_t submissions = 0;  // command buffers submitted
  int64_t snapshots = 0;    // states copied into staging slots
  bool timestamps = false;
  double device_ms = 0;  // every submission from its first dispatch to its last copy
  // device_ms without the copy of a snapshot taken at a submission's last step (with one
  // snapshot at the end of each submission: the products alone).
  double steps_ms = 0;
};

// The next submission from step t (0 ≤ t < steps): up to `max_steps` steps, ending early at the
// snapshot that fills the last of `slots` staging slots. Returns its last step `end` and fills
// `snapshots` with the snapshot steps in (t, end], in order. `next_snapshot(s)` is the first step
// after s whose state the host needs; `steps` must be one (it is always read back).
int64_t PlanSubmission(int64_t t, int64_t steps, int64_t max_steps, int64_t slots,
                       const std::function<int64_t(int64_t)>& next_snapshot,
                       std::vector<int64_t>* snapshots);

// How a rollout records its device work into a submission (see SubmitSteps).
struct StepRecorder {
  // Records the dispatches computing steps step+1 .. end from state buffer `src` (into 1 − src)
  // and returns end, step < end ≤ limit (limit: the next snapshot step or the submission's last
  // step). A kernel of one step per dispatch returns step + 1.
  std::function<int64_t(int src, int64_t step, int64_t limit)> record_steps;
  // Copies state buffer `state` into staging slot `slot`.
  std::function<void(int state, size_t slot)> record_copy;
  // Optional: recorded after the start timestamp, and after the last copy (before the transfer →
  // host barrier, which is then always recorded: e.g. a status word copied for the host).
  std::function<void()> record_prologue;
  std::function<void()> record_epilogue;
  // The steps are plain dispatches (no indirect arguments, no transfers): between two steps with
  // no copy around them the barrier is compute → compute only (CommandBatch::ComputeBarrier).
  bool compute_barriers = false;
};

// Records steps first_step+1 .. last_step (> first_step) into `batch` and submits them: the
// recorder's dispatches (each call advancing to at most the next snapshot step; state buffer
// `src` = *parity, flipping after each call), a compute barrier after each call; after each step
// listed in `snapshot_steps` (increasing, within the range), record_copy(state, slot) copies the
// new state (buffer `state`) into staging slot 0, 1, …; a transfer → host barrier ends the
// buffer. Waits for it, leaves *parity at the buffer holding last_step's state and adds to *tally.
Status SubmitSteps(CommandBatch& batch, int64_t first_step, int64_t last_step,
                   std::span<const int64_t> snapshot_steps, const StepRecorder& recorder,
                   int* parity, SubmissionTally* tally);

// The same for a kernel of one step per record_step(src) call.
Status SubmitSteps(CommandBatch& batch, int64_t first_step, int64_t last_step,
                   std::span<const int64_t> snapshot_steps,
                   const std::function<void(int src)>& record_step,
                   const std::function<void(int state, size_t slot)>& record_copy, int* parity,
                   SubmissionTally* tally);

// Locates the first non-finite state after a finite one at `from_step` (which the caller has put
// back on the device) up to `bad_step` (whose state was not finite): advance(first, last,
// snapshots) computes steps first+1..last with a snapshot at each (`slots` per submission), then
// check(slot, step) says whether that state is finite (OK) or returns the error to report. INTERNAL
// naming `who` when every replayed state is finite (the device is not deterministic).
Status ReplayToFirstNonFinite(
    int64_t from_step, int64_t bad_step, int64_t slots,
    const std::function<Status(int64_t first, int64_t last, std::span<const int64_t> snapshots)>&
        advance,
    const std::function<Status(size_t slot, int64_t step)>& check, std::string_view who);

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_ROLLOUT_ROLLOUT_DRIVER_H_
