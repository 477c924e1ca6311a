// CarrierClosure: the closure s* of C = K_ann ∘ M (core_ref Closure) recorded into a caller's
// CommandBatch, with no host round trip per step. The caller records a segment of steps ahead
// (at most steps_per_submission); after each step one invocation (carrier_closure_control) looks
// at the cells the step changed and, once the closure is finished — a step changed nothing, or
// the cap's check step ran — zeroes the group counts that the later steps' dispatches read
// (vkCmdDispatchIndirect), so steps recorded beyond the fixed point cost an empty dispatch each.
// After the submission the host reads the control record (ReadSubmission); when the closure is
// not finished, the caller records another segment into another submission. The iteration never
// stops short of core_ref's, and its result is bit-identical.
//
// The iterates alternate between two buffers (step s reads iterate s mod 2, writes the other). A
// step that changes nothing writes a copy of its input, so once converged both hold s*; when the
// cap stops the iteration, s* (the last iterate) is iterate max_iterations mod 2 and the check
// step's output is the other. Either way fixed_point() is iterate max_iterations mod 2 — known
// when recording, so later work (the decoder's combine) can be recorded behind the steps.
//
// Each step's statistics (active cells, cells changed, mean |field|) go to a device-local slot of
// the current segment; RecordReadback copies the control record, and the segment's statistics
// when the levels were asked for, to host memory.
//
// Where the grid fits (PlanClosureDispatch: the device's shared memory, cols a multiple of 32,
// radii ≤ 15) the closure instead runs in ONE dispatch (ClosureDispatch::kSharedMemory,
// shaders/carrier/carrier_closure_shared.comp): RecordStart copies s_0 into the fixed-point
// iterate, the first RecordSteps records the one dispatch covering every step up to the cap's
// check step (steps_recorded() = max_steps(); the device stops at the fixed point by itself), and
// the readback copies the control record and the first kSharedReadbackSlots statistics slots
// (levels 0..16: an observer's readback stays about 1 KiB); a deeper closure's further levels are
// downloaded by ReadSubmission, synchronously (only fixed_point() holds s* on this path; the
// other iterate is left as it was). Where it does not fit but cols are a multiple of 32 and the
// radii ≤ 15, each step is instead tiled into strips of whole rows with halos
// (ClosureDispatch::kStrips: carrier_closure_strip.comp computes M, K_ann and the rows' partial
// statistics in one dispatch, carrier_closure_reduce.comp the rows' reduction and the control in
// another): the multi-dispatch path's segments, iterates and gating, 2 dispatches a step instead
// of 7. Everything read through the API is the same on every path; dispatch_plan() says which
// one runs and why.
//
//   DASHI_ASSIGN_OR_RETURN(auto closure, CarrierClosure::Create(*recorder, params, 8));
//   closure->RecordStart(batch, s0, &field, /*read_levels=*/true);
//   closure->RecordSteps(batch, 8); closure->RecordReadback(batch);  ... submit, then:
//   DASHI_ASSIGN_OR_RETURN(CarrierClosure::Progress p, closure->ReadSubmission());
//   while (!p.finished) { RecordSteps + RecordReadback into a new submission, ReadSubmission }
#ifndef DASHI_ACCEL_VULKAN_CARRIER_CARRIER_CLOSURE_H_
#define DASHI_ACCEL_VULKAN_CARRIER_CARRIER_CLOSURE_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

#include "accel_vulkan/buffer.h"
#include "accel_vulkan/carrier/carrier_recorder.h"
#include "accel_vulkan/carrier/closure_dispatch_plan.h"
#include "accel_vulkan/command_batch.h"
#include "accel_vulkan/device_buffer.h"
#include "core_ref/carrier/closure.h"
#include "core_ref/status/status.h"

namespace dashi::vk {

class CarrierClosure {
 public:
  // For carriers of the recorder's shape; the parameters are checked as core_ref Closure does,
  // steps_per_submission must be ≥ 1. The recorder must outlive the closure.
  static StatusOr<std::unique_ptr<CarrierClosure>> Create(CarrierRecorder& recorder,
                                                          const ClosureParams& params,
                                                          int steps_per_submission);
  // Statistics slots the one-dispatch path's RecordReadback copies (levels 0..16).
  static constexpr int64_t kSharedReadbackSlots = 17;
  struct Options {
    int steps_per_submission = 8;  // multi-dispatch path only
    ClosurePlan plan = ClosurePlan::kAuto;
    // Shared memory the one-dispatch closure may use; 0: the device's maxComputeSharedMemorySize
    // (tests lower it to take the multi-dispatch path on small grids).
    uint32_t max_shared_bytes = 0;
    // Invocations the one-dispatch closure's workgroup may have; 0: the device's limit (tests
    // lower it so that an invocation holds several words: the path without register-held
    // field values).
    uint32_t max_invocations = 0;
  };
  static StatusOr<std::unique_ptr<CarrierClosure>> Create(CarrierRecorder& recorder,
                                                          const ClosureParams& params,
                                                          const Options& options);
  CarrierClosure(const CarrierClosure&) = delete;
  CarrierClosure& operator=(const CarrierClosure&) = delete;

  // Records the start of a closure of `s0` (copied into iterate 0; guard words and the control
  // record reset; level 0's statistics) and opens the first segment. `field` (may be null) is
  // read by every step recorded after this and must stay alive until they completed.
  // `read_levels`: whether RecordReadback copies the level statistics too. On the one-dispatch
  // path s0 may be fixed_point() itself (the dispatch reads s_0 from it): then nothing is copied,
  // and the start (transfers only) may be recorded before the writes of s_0, anywhere after the
  // last reads of the previous closure's fixed point, e.g. at the top of a command buffer behind
  // its first barrier (the decoder does so: one transfer stage and barrier fewer before the
  // closure).
  Status RecordStart(CommandBatch& b, const DeviceBuffer& s0, const DeviceBuffer* field,
                     bool read_levels);
  // Records up to `max_steps` further steps into the open segment (no more than it has room for,
  // none past the cap's check step); returns the number recorded.
  StatusOr<int> RecordSteps(CommandBatch& b, int max_steps);
  // Records the copy of the control record (and of the segment's statistics) to host memory and
  // closes the segment; bytes copied: last_readback_bytes().
  void RecordReadback(CommandBatch& b);
  uint64_t last_readback_bytes() const { return last_readback_bytes_; }

  struct Progress {
    bool finished = false;             // converged, or the cap's check step ran
    bool reached_fixed_point = false;  // as core_ref's ClosureResult
    int depth = 0;                     // steps that changed the carrier
    int steps = 0;                     // steps the device ran
  };
  // After the submission holding the last RecordReadback completed: the device's progress, and
  // the segment's level statistics appended to levels() (on the one-dispatch path, levels past
  // the slots read back are downloaded here, with a wait). DATA_LOSS when the control record
  // disagrees with the steps recorded (a step skipped or run twice). Then open the next segment
  // with RecordSteps (when not finished).
  StatusOr<Progress> ReadSubmission();
  // levels[0..depth] so far (empty unless read_levels).
  const std::vector<ClosureLevelStats>& levels() const { return levels_; }

  int64_t steps_recorded() const { return steps_recorded_; }
  int steps_per_submission() const { return steps_per_submission_; }
  // The cap's steps and the check step.
  int64_t max_steps() const { return int64_t{params_.max_iterations} + 1; }
  const ClosureParams& params() const { return params_; }
  // s0 can be fixed_point() (the one-dispatch path): see RecordStart.
  bool start_reads_fixed_point() const { return shared(); }
  // Which path runs (fixed at Create) and why.
  const ClosureDispatchPlan& dispatch_plan() const { return plan_; }
  ClosureDispatch dispatch() const { return plan_.dispatch; }

  // The iterate holding s* once finished (recording reads of it before that is fine: see above).
  const DeviceBuffer& fixed_point() const { return iterates_[params_.max_iterations % 2]; }
  // Moves the fixed point's buffer out; the closure cannot be recorded again afterwards.
  DeviceBuffer TakeFixedPoint() { return std::move(iterates_[params_.max_iterations % 2]); }

  // The guard words after both iterates are intact (DATA_LOSS otherwise).
  Status CheckGuards() const;
  // The device statistics slots (CarrierTotals): slot 0 level 0, slot i the segment's i-th step.
  // RecordStart fills them with all-ones bits, so the slot of a step the device skipped keeps
  // that pattern (tests check it).
  const DeviceBuffer& statistics() const { return *stats_; }

 private:
  CarrierClosure(CarrierRecorder& recorder, const ClosureParams& params, int steps_per_submission,
                 ClosureDispatchPlan plan)
      : recorder_(recorder),
        params_(params),
        steps_per_submission_(steps_per_submission),
        plan_(std::move(plan)) {}
  bool shared() const { return plan_.dispatch == ClosureDispatch::kSharedMemory; }

  CarrierRecorder& recorder_;
  ClosureParams params_;
  int steps_per_submission_;
  ClosureDispatchPlan plan_;
  std::vector<DeviceBuffer> iterates_;          // 2, each cells·4 bytes + guard region
  // steps_per_submission + 1 CarrierTotals (max_steps() + 1 on the shared-memory path)
  std::optional<DeviceBuffer> stats_;
  std::optional<DeviceBuffer> control_;         // one CarrierClosureControl
  std::optional<HostVisibleBuffer> host_;       // the control record, then the statistics
  const DeviceBuffer* field_ = nullptr;
  bool read_levels_ = false;
  bool started_ = false;
  int64_t steps_recorded_ = 0;
  int segment_steps_ = 0;  // steps recorded into the open segment (its slots 1..)
  int64_t slots_read_ = 0;  // statistics slots the last RecordReadback copied
  bool segment_has_level0_ = false;
  bool segment_read_has_level0_ = false;  // of the segment RecordReadback closed
  int64_t depth_seen_ = 0;
  uint64_t last_readback_bytes_ = 0;
  std::vector<ClosureLevelStats> levels_;
};

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_CARRIER_CARRIER_CLOSURE_H_
