#include "accel_vulkan/rollout/rollout_driver.h"

#include <algorithm>
#include <string>

#include "core_ref/rollout/rollout.h"

namespace dashi::vk {

int64_t NextMultiple(int64_t step, int64_t every, int64_t cap) {
  const int64_t base = step - step % every;
  if (every > cap - base) return cap;
  return std::min(cap, base + every);
}

Status ValidateRolloutCreate(std::string_view who, int64_t dim, int64_t max_dim,
                             std::span<const double> a, int64_t max_steps_per_submit,
                             int64_t max_snapshots_per_submit) {
  const std::string w(who);
  if (dim < 1) return InvalidArgumentError(w + ": D = " + std::to_string(dim) + " must be >= 1");
  if (dim > max_dim) {
    return UnimplementedError(w + ": D = " + std::to_string(dim) +
                              " exceeds the supported maximum " + std::to_string(max_dim) +
                              " (32-bit indexing in the shaders)");
  }
  if (a.size() != static_cast<size_t>(dim * dim)) {
    return InvalidArgumentError(w + ": A has " + std::to_string(a.size()) + " entries but D = " +
                                std::to_string(dim) + ", so A must be D x D = " +
                                std::to_string(dim) + " x " + std::to_string(dim));
  }
  DASHI_RETURN_IF_ERROR(ValidateRolloutMatrixValues(a, dim));
  if (max_steps_per_submit < 1 || max_snapshots_per_submit < 1) {
    return InvalidArgumentError(
        w + ": max_steps_per_submit and max_snapshots_per_submit must be >= 1");
  }
  return OkStatus();
}

StatusOr<VkPhysicalDeviceProperties> RolloutDeviceProperties(const VulkanContext& ctx,
                                                             std::string_view who) {
  const DeviceInfo& info = ctx.info();
  if (!info.shader_float64) {
    return UnimplementedError(std::string(who) + ": device '" + info.name +
                              "' lacks shaderFloat64, which the fp64 rollout needs");
  }
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(ctx.physical_device(), &props);
  if (props.apiVersion < VK_API_VERSION_1_2) {
    return UnimplementedError(std::string(who) + ": device '" + info.name +
                              "' supports Vulkan " + info.api_version +
                              "; the rollout shaders are SPIR-V 1.5 and need Vulkan 1.2");
  }
  return props;
}

int64_t PlanSubmission(int64_t t, int64_t steps, int64_t max_steps, int64_t slots,
                       const std::function<int64_t(int64_t)>& next_snapshot,
                       std::vector<int64_t>* snapshots) {
  int64_t end = t + std::min(max_steps, steps - t);
  snapshots->clear();
  for (int64_t s = next_snapshot(t); s <= end; s = next_snapshot(s)) {
    snapshots->push_back(s);
    if (s == steps) break;
    if (static_cast<int64_t>(snapshots->size()) == slots) return s;
  }
  return end;
}

Status SubmitSteps(CommandBatch& batch, int64_t first_step, int64_t last_step,
                   std::span<const int64_t> snapshot_steps, const StepRecorder& recorder,
                   int* parity, SubmissionTally* tally) {
  DASHI_RETURN_IF_ERROR(batch.Begin());
  batch.Timestamp("start");
  if (recorder.record_prologue) recorder.record_prologue();
  size_t next_snapshot = 0;
  int p = *parity;
  bool copied = false;  // a copy recorded after the previous step (so since the last barrier)
  for (int64_t step = first_step; step < last_step;) {
    const int64_t limit = next_snapshot < snapshot_steps.size()
                              ? std::min(last_step, snapshot_steps[next_snapshot])
                              : last_step;
    const int64_t end = recorder.record_steps(p, step, limit);
    if (end <= step || end > limit) {
      return InternalError("rollout driver: a recorder advanced from step " +
                           std::to_string(step) + " to " + std::to_string(end) +
                           " (limit " + std::to_string(limit) + ")");
    }
    step = end;
    // Orders the next step and the copy below after this step. With compute_barriers, compute →
    // compute only where no copy follows this step and none was recorded since the last barrier
    // (a copy of the state before this step reads the buffer the next step writes).
    const bool copy_next =
        next_snapshot < snapshot_steps.size() && snapshot_steps[next_snapshot] == step;
    if (!recorder.compute_barriers || copy_next || copied) {
      batch.Barrier();
    } else {
      batch.ComputeBarrier();
    }
    p = 1 - p;
    // A copy at the last step falls after this timestamp, so steps_ms can exclude it.
    if (step == last_step) batch.Timestamp("steps");
    if (copy_next) {
      recorder.record_copy(p, next_snapshot);
      ++next_snapshot;
    }
    copied = copy_next;
  }
  if (next_snapshot != snapshot_steps.size()) {
    return InternalError("rollout driver: a snapshot step lies outside the submitted steps");
  }
  batch.Timestamp("last copy");
  if (recorder.record_epilogue) recorder.record_epilogue();
  if (!snapshot_steps.empty() || recorder.record_epilogue) {
    VkMemoryBarrier to_host{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    to_host.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    to_host.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(batch.command_buffer(), VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &to_host, 0, nullptr, 0, nullptr);
  }
  DASHI_RETURN_IF_ERROR(batch.SubmitAndWait());
  *parity = p;
  tally->steps += last_step - first_step;
  tally->submissions += 1;
  tally->snapshots += static_cast<int64_t>(snapshot_steps.size());
  for (const auto& [label, ms] : batch.StageMilliseconds()) {
    tally->timestamps = true;
    tally->device_ms += ms;
    if (label == "steps") tally->steps_ms += ms;
  }
  return OkStatus();
}

Status SubmitSteps(CommandBatch& batch, int64_t first_step, int64_t last_step,
                   std::span<const int64_t> snapshot_steps,
                   const std::function<void(int src)>& record_step,
                   const std::function<void(int state, size_t slot)>& record_copy, int* parity,
                   SubmissionTally* tally) {
  StepRecorder recorder;
  recorder.record_steps = [&record_step](int src, int64_t step, int64_t) {
    record_step(src);
    return step + 1;
  };
  recorder.record_copy = record_copy;
  return SubmitSteps(batch, first_step, last_step, snapshot_steps, recorder, parity, tally);
}

Status ReplayToFirstNonFinite(
    int64_t from_step, int64_t bad_step, int64_t slots,
    const std::function<Status(int64_t first, int64_t last, std::span<const int64_t> snapshots)>&
        advance,
    const std::function<Status(size_t slot, int64_t step)>& check, std::string_view who) {
  std::vector<int64_t> snaps;
  for (int64_t t = from_step; t < bad_step;) {
    const int64_t end = std::min(bad_step, t + slots);
    snaps.clear();
    for (int64_t s = t + 1; s <= end; ++s) snaps.push_back(s);
    DASHI_RETURN_IF_ERROR(advance(t, end, snaps));
    for (size_t k = 0; k < snaps.size(); ++k) DASHI_RETURN_IF_ERROR(check(k, snaps[k]));
    t = end;
  }
  return InternalError(std::string(who) + ": the device state at step " +
                       std::to_string(bad_step) + " was non-finite, but replaying steps " +
                       std::to_string(from_step + 1) + ".." + std::to_string(bad_step) +
                       " from the finite state at step " + std::to_string(from_step) +
                       " stayed finite: the device is not deterministic");
}

}  // namespace dashi::vk
