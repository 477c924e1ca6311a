#include "accel_vulkan/carrier/carrier_closure.h"

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "accel_vulkan/carrier/carrier_closure_control.h"
#include "accel_vulkan/guard_words.h"
#include "shaders/carrier/carrier_params.h"

namespace dashi::vk {

StatusOr<std::unique_ptr<CarrierClosure>> CarrierClosure::Create(CarrierRecorder& recorder,
                                                                 const ClosureParams& params,
                                                                 int steps_per_submission) {
  Options o;
  o.steps_per_submission = steps_per_submission;
  return Create(recorder, params, o);
}

StatusOr<std::unique_ptr<CarrierClosure>> CarrierClosure::Create(CarrierRecorder& recorder,
                                                                 const ClosureParams& params,
                                                                 const Options& options) {
  DASHI_RETURN_IF_ERROR(ValidateClosureParams(params));
  const int steps_per_submission = options.steps_per_submission;
  if (steps_per_submission < 1) {
    return InvalidArgumentError("closure steps per submission " +
                                std::to_string(steps_per_submission) + " must be at least 1");
  }
  const CarrierKernels& k = recorder.kernels();
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(k.ctx().physical_device(), &props);
  ClosureDeviceLimits limits;
  limits.max_shared_bytes = props.limits.maxComputeSharedMemorySize;
  if (options.max_shared_bytes != 0) {
    limits.max_shared_bytes = std::min(limits.max_shared_bytes, options.max_shared_bytes);
  }
  limits.max_invocations = std::min(props.limits.maxComputeWorkGroupInvocations,
                                    props.limits.maxComputeWorkGroupSize[0]);
  if (options.max_invocations != 0) {
    limits.max_invocations = std::min(limits.max_invocations, options.max_invocations);
  }
  ClosureDispatchPlan plan = PlanClosureDispatch(recorder.shape(), params, limits, options.plan);
  // The pipelines now, so that none is compiled inside a timed decode.
  if (plan.dispatch == ClosureDispatch::kSharedMemory) {
    DASHI_RETURN_IF_ERROR(recorder.ClosureSharedPipeline(plan).status());
  } else if (plan.dispatch == ClosureDispatch::kStrips) {
    DASHI_RETURN_IF_ERROR(recorder.ClosureStripPipeline(plan, params).status());
    DASHI_RETURN_IF_ERROR(recorder.ClosureReducePipeline().status());
  }
  const uint64_t carrier_bytes = recorder.cells() * 4;
  const uint64_t slots = plan.dispatch == ClosureDispatch::kSharedMemory
                             ? std::max<uint64_t>(steps_per_submission,
                                                  uint64_t{1} + params.max_iterations)
                             : static_cast<uint64_t>(steps_per_submission);
  const uint64_t stats_bytes = (slots + 1) * sizeof(CarrierTotals);
  DASHI_RETURN_IF_ERROR(k.CheckBinding(carrier_bytes, "a closure iterate"));
  DASHI_RETURN_IF_ERROR(k.CheckBinding(stats_bytes, "the closure statistics"));
  std::unique_ptr<CarrierClosure> c(
      new CarrierClosure(recorder, params, steps_per_submission, std::move(plan)));
  for (int i = 0; i < 2; ++i) {
    DASHI_ASSIGN_OR_RETURN(DeviceBuffer b,
                           DeviceBuffer::Create(k.ctx(), carrier_bytes + kGuardBytes));
    c->iterates_.push_back(std::move(b));
  }
  DASHI_ASSIGN_OR_RETURN(DeviceBuffer stats, DeviceBuffer::Create(k.ctx(), stats_bytes));
  c->stats_.emplace(std::move(stats));
  DASHI_ASSIGN_OR_RETURN(DeviceBuffer control,
                         DeviceBuffer::Create(k.ctx(), sizeof(CarrierClosureControl)));
  c->control_.emplace(std::move(control));
  DASHI_ASSIGN_OR_RETURN(HostVisibleBuffer host, HostVisibleBuffer::CreateForReading(
                                                     k.ctx(), sizeof(CarrierClosureControl) +
                                                                  stats_bytes));
  c->host_.emplace(std::move(host));
  return c;
}

Status CarrierClosure::RecordStart(CommandBatch& b, const DeviceBuffer& s0,
                                   const DeviceBuffer* field, bool read_levels) {
  const uint64_t carrier_bytes = recorder_.cells() * 4;
  DASHI_RETURN_IF_ERROR(
      CheckOperand(recorder_.kernels(), s0, carrier_bytes, "closure input " +
                                                               ToString(recorder_.shape())));
  for (const DeviceBuffer& it : iterates_) {
    if (it.buffer() == VK_NULL_HANDLE) {
      return FailedPreconditionError("closure recorded again after TakeFixedPoint()");
    }
  }
  // Transfers only, then the one barrier RecordGuardFill ends with. The shared-memory dispatch
  // reads s_0 from, and writes s* to, the fixed-point iterate.
  const DeviceBuffer& first = shared() ? fixed_point() : iterates_[0];
  if (s0.buffer() == first.buffer() && !shared()) {
    return InvalidArgumentError("closure input is the iterate it would be copied into");
  }
  if (s0.buffer() != first.buffer()) b.CopyBuffer(s0.buffer(), first.buffer(), carrier_bytes);
  vkCmdFillBuffer(b.command_buffer(), stats_->buffer(), 0, VK_WHOLE_SIZE, 0xFFFFFFFFu);
  CarrierClosureControl init{};
  const auto args = recorder_.ClosureDispatchArgs();
  std::copy(args.begin(), args.end(), init.args);
  vkCmdUpdateBuffer(b.command_buffer(), control_->buffer(), 0, sizeof(init), &init);
  RecordGuardFill(b, {&iterates_[0], &iterates_[1]}, carrier_bytes);
  if (!shared()) {
    DASHI_RETURN_IF_ERROR(
        recorder_.LevelStats(b, iterates_[0], iterates_[0], field, *stats_, 0, nullptr));
  }
  field_ = field;
  read_levels_ = read_levels;
  started_ = true;
  steps_recorded_ = 0;
  segment_steps_ = 0;
  segment_has_level0_ = true;
  segment_read_has_level0_ = false;
  depth_seen_ = 0;
  levels_.clear();
  return OkStatus();
}

StatusOr<int> CarrierClosure::RecordSteps(CommandBatch& b, int max_steps) {
  if (!started_) return FailedPreconditionError("closure steps recorded before RecordStart");
  if (shared()) {
    // One dispatch runs the whole closure; it goes into the first segment.
    if (max_steps < 1 || steps_recorded_ > 0) return 0;
    DASHI_RETURN_IF_ERROR(recorder_.ClosureShared(b, plan_, fixed_point(), field_, *stats_,
                                                  *control_, params_));
    steps_recorded_ = this->max_steps();
    segment_steps_ = static_cast<int>(this->max_steps());
    return segment_steps_;
  }
  const int64_t n = std::min<int64_t>({max_steps, steps_per_submission_ - segment_steps_,
                                       this->max_steps() - steps_recorded_});
  const DeviceBuffer& control = *control_;
  for (int64_t k = 0; k < n; ++k) {
    const int64_t s = steps_recorded_;
    const DeviceBuffer& in = iterates_[s % 2];
    const DeviceBuffer& out = iterates_[(s + 1) % 2];
    const uint32_t slot = static_cast<uint32_t>(segment_steps_ + 1);
    if (plan_.dispatch == ClosureDispatch::kStrips) {
      // The step and its row partials in one dispatch, the rows' reduction and the control in one.
      DASHI_RETURN_IF_ERROR(recorder_.ClosureStrip(b, plan_, in, out, field_, control, params_));
      DASHI_RETURN_IF_ERROR(recorder_.ClosureReduce(
          b, *stats_, control, field_ != nullptr, static_cast<uint32_t>(s),
          static_cast<uint32_t>(params_.max_iterations), slot));
    } else {
      DASHI_RETURN_IF_ERROR(recorder_.ClosureStep(b, in, out, params_, &control));
      DASHI_RETURN_IF_ERROR(recorder_.LevelStats(b, in, out, field_, *stats_, slot, &control));
      DASHI_RETURN_IF_ERROR(recorder_.ClosureControl(
          b, *stats_, control, static_cast<uint32_t>(s),
          static_cast<uint32_t>(params_.max_iterations), slot));
    }
    ++steps_recorded_;
    ++segment_steps_;
  }
  return static_cast<int>(std::max<int64_t>(n, 0));
}

void CarrierClosure::RecordReadback(CommandBatch& b) {
  b.CopyBuffer(control_->buffer(), host_->buffer(), sizeof(CarrierClosureControl));
  last_readback_bytes_ = sizeof(CarrierClosureControl);
  slots_read_ = 0;
  if (read_levels_) {
    slots_read_ = int64_t{segment_steps_} + 1;
    if (shared()) slots_read_ = std::min(slots_read_, kSharedReadbackSlots);
    const uint64_t bytes = static_cast<uint64_t>(slots_read_) * sizeof(CarrierTotals);
    b.CopyBuffer(stats_->buffer(), host_->buffer(), bytes, 0, sizeof(CarrierClosureControl));
    last_readback_bytes_ += bytes;
  }
  b.HostReadBarrier();
  segment_read_has_level0_ = segment_has_level0_;
  segment_steps_ = 0;
  segment_has_level0_ = false;
}

StatusOr<CarrierClosure::Progress> CarrierClosure::ReadSubmission() {
  const auto* bytes = static_cast<const std::byte*>(host_->data());
  CarrierClosureControl ctl;
  std::memcpy(&ctl, bytes, sizeof(ctl));
  const int64_t steps = ctl.steps, depth = ctl.depth;
  const int64_t cap = params_.max_iterations;
  const std::string seen = "closure control record: steps " + std::to_string(steps) + ", depth " +
                           std::to_string(depth) + ", converged " +
                           std::to_string(ctl.converged) + " after " +
                           std::to_string(steps_recorded_) + " steps recorded";
  bool consistent = steps <= steps_recorded_ && depth >= depth_seen_ && ctl.converged <= 1;
  if (ctl.converged != 0) {
    consistent = consistent && depth + 1 == steps;
  } else {
    consistent = consistent && steps == steps_recorded_ && depth == std::min(steps, cap);
  }
  if (!consistent) return DataLossError("inconsistent " + seen);

  if (read_levels_) {
    // Slots past those read back (a closure deeper than kSharedReadbackSlots − 1 on the
    // one-dispatch path): downloaded now.
    std::vector<CarrierTotals> deep;
    if (depth - depth_seen_ + 1 > slots_read_) {
      DASHI_ASSIGN_OR_RETURN(deep, stats_->DownloadValues<CarrierTotals>(
                                       recorder_.kernels().ctx(),
                                       static_cast<size_t>(depth - depth_seen_ + 1)));
    }
    auto stat = [&](int64_t slot) {
      CarrierTotals t;
      if (slot < slots_read_) {
        std::memcpy(&t, bytes + sizeof(CarrierClosureControl) + slot * sizeof(CarrierTotals),
                    sizeof(t));
      } else {
        t = deep[static_cast<size_t>(slot)];
      }
      return ClosureLevelStats{static_cast<int64_t>(t.c0), t.mean};
    };
    if (segment_read_has_level0_) levels_.push_back(stat(0));
    // The steps that changed the carrier are the segment's first depth − depth_seen_ ones (a step
    // that changes nothing ends the closure; the check step never counts).
    for (int64_t i = 0; i < depth - depth_seen_; ++i) levels_.push_back(stat(i + 1));
  }
  segment_read_has_level0_ = false;
  depth_seen_ = depth;
  Progress p;
  p.reached_fixed_point = ctl.converged != 0;
  p.finished = p.reached_fixed_point || steps == cap + 1;
  p.depth = static_cast<int>(depth);
  p.steps = static_cast<int>(steps);
  return p;
}

Status CarrierClosure::CheckGuards() const {
  const uint64_t carrier_bytes = recorder_.cells() * 4;
  for (size_t i = 0; i < iterates_.size(); ++i) {
    if (iterates_[i].buffer() == VK_NULL_HANDLE) continue;  // taken
    DASHI_RETURN_IF_ERROR(CheckGuardWords(recorder_.kernels().ctx(), iterates_[i], carrier_bytes,
                                          "closure iterate " + std::to_string(i)));
  }
  return OkStatus();
}

}  // namespace dashi::vk
