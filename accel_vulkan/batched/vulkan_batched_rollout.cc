#include "accel_vulkan/batched/vulkan_batched_rollout.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <utility>

#include "accel_vulkan/guard_words.h"
#include "accel_vulkan/rollout/rollout_driver.h"
#include "core_ref/rollout/vecmat.h"
#include "shaders/batched/batched_rollout.h"
#include "shaders/batched/batched_rollout_params.h"

namespace dashi::vk {
namespace {

// shaders/rollout/rollout_contract.glsl hard-codes the contract's chunk size (kChunk = 64u).
static_assert(kRolloutChunk == 64);

// Two growths of the state buffers per descriptor-set pair; capacity doubles, so 32 pairs cover
// every batch a 4 GiB storage buffer can hold.
constexpr uint32_t kMaxBindingSets = 64;

// core_ref's error (`check` of one trajectory: a row of `states`, dim wide) for the first
// trajectory holding a non-finite value, prefixed "trajectory b"; OK when all are finite.
Status FirstTrajectoryError(std::span<const double> states, int64_t dim,
                            const std::function<Status(std::span<const double>)>& check) {
  const int64_t k = FirstNonFiniteIndex(states);
  if (k < 0) return OkStatus();
  const int64_t row = k / dim;
  return check(states.subspan(static_cast<size_t>(row * dim), static_cast<size_t>(dim)))
      .WithPrefix("trajectory " + std::to_string(row));
}

uint32_t CeilDiv(int64_t a, int64_t b) { return static_cast<uint32_t>((a + b - 1) / b); }

}  // namespace

VulkanBatchedRollout::VulkanBatchedRollout(VulkanContext& ctx, int64_t dim,
                                           const VulkanBatchedRolloutOptions& o)
    : ctx_(ctx), dim_(dim), chunks_((dim + kRolloutChunk - 1) / kRolloutChunk), options_(o) {}

VulkanBatchedRollout::~VulkanBatchedRollout() = default;

StatusOr<std::unique_ptr<VulkanBatchedRollout>> VulkanBatchedRollout::Create(
    VulkanContext& ctx, int64_t dim, std::span<const double> a,
    const VulkanBatchedRolloutOptions& options) {
  DASHI_RETURN_IF_ERROR(ValidateRolloutCreate("batched rollout", dim, kMaxDim, a,
                                              options.max_steps_per_submit,
                                              options.max_snapshots_per_submit));
  std::unique_ptr<VulkanBatchedRollout> r(new VulkanBatchedRollout(ctx, dim, options));
  DASHI_RETURN_IF_ERROR(r->Init(a));
  return r;
}

Status VulkanBatchedRollout::Init(std::span<const double> a) {
  DASHI_ASSIGN_OR_RETURN(const VkPhysicalDeviceProperties props,
                         RolloutDeviceProperties(ctx_, "batched rollout"));
  limits_ = props.limits;
  DASHI_ASSIGN_OR_RETURN(tile_, ResolveBatchedTile(options_.tile, limits_));
  // A's size and the workgroups along D (B = 1 always fits them); Run() checks its B.
  DASHI_RETURN_IF_ERROR(CheckBatchedLimits(1, dim_, tile_, kGuardBytes, limits_));
  float_controls_ = QueryFloat64Controls(ctx_);
  variant_ = options_.use_float_controls ? SupportedFloatControlsVariant(float_controls_) : 0u;

  const VkDeviceSize a_bytes = static_cast<VkDeviceSize>(dim_ * dim_) * sizeof(double);
  DASHI_ASSIGN_OR_RETURN(DeviceBuffer a_buf, DeviceBuffer::Create(ctx_, a_bytes));
  DASHI_RETURN_IF_ERROR(a_buf.UploadValues<double>(ctx_, a));
  a_.emplace(std::move(a_buf));
  DASHI_ASSIGN_OR_RETURN(
      pipe_, ComputePipeline::Create(ctx_, {spirv::kBatchedRolloutVariants[variant_], 3,
                                            sizeof(BatchedRolloutPushConstants),
                                            BatchedSpecialization(tile_, chunks_),
                                            kMaxBindingSets}));
  DASHI_ASSIGN_OR_RETURN(batch_cmd_, CommandBatch::Create(ctx_, 4));
  return OkStatus();
}

Status VulkanBatchedRollout::Reserve(int64_t batch) {
  const uint64_t row_bytes = static_cast<uint64_t>(dim_) * sizeof(double);
  const uint64_t state_bytes = static_cast<uint64_t>(batch) * row_bytes;
  DASHI_RETURN_IF_ERROR(CheckBatchedLimits(batch, dim_, tile_, kGuardBytes, limits_));
  if (batch > capacity_) {
    // Doubling keeps the number of regrowths (each spends two descriptor sets) logarithmic.
    const int64_t max_rows =
        static_cast<int64_t>((limits_.maxStorageBufferRange - kGuardBytes) / row_bytes);
    const int64_t capacity = std::max(batch, std::min(2 * capacity_, max_rows));
    const VkDeviceSize bytes = static_cast<VkDeviceSize>(capacity) * row_bytes + kGuardBytes;
    capacity_ = 0;  // until both buffers and their descriptor sets exist again
    for (auto& z : z_) {
      z.reset();
      DASHI_ASSIGN_OR_RETURN(DeviceBuffer b, DeviceBuffer::Create(ctx_, bytes));
      z.emplace(std::move(b));
    }
    for (int src = 0; src < 2; ++src) {
      const VkBuffer bufs[] = {a_->buffer(), z_[src]->buffer(), z_[1 - src]->buffer()};
      DASHI_ASSIGN_OR_RETURN(sets_[src], pipe_->Bindings(bufs));
    }
    capacity_ = capacity;
  }
  const int64_t by_budget = static_cast<int64_t>(options_.max_staging_bytes / state_bytes);
  slots_ = std::clamp<int64_t>(by_budget, 1, options_.max_snapshots_per_submit);
  const VkDeviceSize staging_bytes = static_cast<VkDeviceSize>(slots_) * state_bytes;
  if (!staging_.has_value() || staging_->size() < staging_bytes) {
    staging_.reset();
    DASHI_ASSIGN_OR_RETURN(HostVisibleBuffer s, HostVisibleBuffer::Create(ctx_, staging_bytes));
    staging_.emplace(std::move(s));
  }
  batch_ = batch;
  for (auto& z : z_) DASHI_RETURN_IF_ERROR(WriteGuardWords(ctx_, *z, state_bytes));
  return OkStatus();
}

std::span<const double> VulkanBatchedRollout::StagingSlot(size_t slot) const {
  const size_t n = static_cast<size_t>(batch_ * dim_);
  return staging_->as<const double>().subspan(slot * n, n);
}

Status VulkanBatchedRollout::Advance(int64_t first_step, int64_t last_step,
                                     std::span<const int64_t> snapshot_steps, int* parity) {
  if (static_cast<int64_t>(snapshot_steps.size()) > slots_) {
    return InternalError("batched rollout: more snapshots than staging slots");
  }
  const BatchedRolloutPushConstants push{static_cast<uint32_t>(dim_),
                                         static_cast<uint32_t>(chunks_),
                                         static_cast<uint32_t>(batch_)};
  const uint32_t groups_x = CeilDiv(dim_, tile_.cols());
  const uint32_t groups_y = CeilDiv(batch_, tile_.rows());
  const VkDeviceSize state_bytes = static_cast<VkDeviceSize>(batch_ * dim_) * sizeof(double);
  return SubmitSteps(
      *batch_cmd_, first_step, last_step, snapshot_steps,
      [&](int src) {
        batch_cmd_->Dispatch(*pipe_, sets_[src], &push, sizeof(push), groups_x, groups_y);
      },
      [&](int state, size_t slot) {
        batch_cmd_->CopyBuffer(z_[state]->buffer(), staging_->buffer(), state_bytes, 0,
                               static_cast<VkDeviceSize>(slot) * state_bytes);
      },
      parity, &tally_);
}

Status VulkanBatchedRollout::LocateNonFinite(int64_t from_step,
                                             std::span<const double> from_states,
                                             int64_t bad_step) {
  DASHI_RETURN_IF_ERROR(z_[0]->UploadValues<double>(ctx_, from_states));
  int parity = 0;
  return ReplayToFirstNonFinite(
      from_step, bad_step, slots_,
      [&](int64_t first, int64_t last, std::span<const int64_t> snaps) {
        return Advance(first, last, snaps, &parity);
      },
      [&](size_t slot, int64_t step) {
        return FirstTrajectoryError(StagingSlot(slot), dim_, [step](std::span<const double> z) {
          return CheckRolloutStateFinite(z, step);
        });
      },
      "batched rollout");
}

StatusOr<BatchedRolloutResult> VulkanBatchedRollout::Run(std::span<const double> z0,
                                                         int64_t batch,
                                                         const RolloutParams& params,
                                                         const BatchedStateSink& sink) {
  const auto start = std::chrono::steady_clock::now();
  tally_ = {};
  StatusOr<BatchedRolloutResult> out = CatchRolloutExceptions<BatchedRolloutResult>(
      "batched rollout", [&] { return RunImpl(z0, batch, params, sink); });
  timings_ = {.batch = batch,
              .steps = tally_.steps,
              .submissions = tally_.submissions,
              .snapshots = tally_.snapshots,
              .timestamps = tally_.timestamps,
              .device_ms = tally_.device_ms,
              .steps_ms = tally_.steps_ms};
  timings_.host_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (timings_.steps_ms > 0 && timings_.steps > 0) {
    const double seconds = timings_.steps_ms * 1e-3;
    const double steps = static_cast<double>(timings_.steps);
    const double b = static_cast<double>(batch), d = static_cast<double>(dim_);
    timings_.device_us_per_step = timings_.steps_ms * 1e3 / steps;
    timings_.trajectory_steps_per_second = b * steps / seconds;
    timings_.gflops = 2.0 * b * d * d * steps / seconds * 1e-9;
  }
  return out;
}

StatusOr<BatchedRolloutResult> VulkanBatchedRollout::RunImpl(std::span<const double> z0,
                                                             int64_t batch,
                                                             const RolloutParams& params,
                                                             const BatchedStateSink& sink) {
  DASHI_RETURN_IF_ERROR(ValidateRolloutParams(params, static_cast<bool>(sink)));
  if (batch < 1) {
    return InvalidArgumentError("batched rollout: B = " + std::to_string(batch) +
                                " must be >= 1");
  }
  if (z0.size() != static_cast<size_t>(batch * dim_)) {
    return InvalidArgumentError("batched rollout: z0 has " + std::to_string(z0.size()) +
                                " entries but B x D = " + std::to_string(batch) + " x " +
                                std::to_string(dim_) + " = " + std::to_string(batch * dim_));
  }
  DASHI_RETURN_IF_ERROR(FirstTrajectoryError(z0, dim_, ValidateRolloutStart));
  DASHI_RETURN_IF_ERROR(Reserve(batch));

  const int64_t steps = params.steps;
  // The next step after `step` whose states come back: a checkpoint, an observed step (with a
  // sink), the final step at the latest.
  auto is_observed = [&](int64_t step) {
    return sink && (step % params.observe_every == 0 || step == steps);
  };
  auto next_snapshot = [&](int64_t step) {
    const int64_t checkpoint = NextMultiple(step, params.hash_every, steps);
    return sink ? std::min(checkpoint, NextMultiple(step, params.observe_every, steps))
                : checkpoint;
  };

  BatchedRolloutResult result;
  result.batch = batch;
  result.dim = dim_;
  result.chains.resize(static_cast<size_t>(batch));
  const size_t width = static_cast<size_t>(dim_);
  // The checkpoint of every trajectory at `step` (core_ref's chain, trajectory by trajectory).
  auto checkpoint = [&](int64_t step, std::span<const double> states) {
    for (size_t b = 0; b < result.chains.size(); ++b) {
      std::vector<ChainCheckpoint>& chain = result.chains[b];
      ChainCheckpoint cp;
      cp.step = step;
      cp.state_hash = StateHash(states.subspan(b * width, width));
      cp.link = NextChainLink(chain.empty() ? Hash128{} : chain.back().link, cp.state_hash);
      chain.push_back(cp);
    }
  };

  DASHI_RETURN_IF_ERROR(z_[0]->UploadValues<double>(ctx_, z0));
  checkpoint(0, z0);
  if (sink) DASHI_RETURN_IF_ERROR(sink(0, z0));
  std::vector<double> last_good(z0.begin(), z0.end());  // the last finite states read back
  int64_t last_good_step = 0;
  int parity = 0;
  std::vector<int64_t> snaps;
  for (int64_t t = 0; t < steps;) {
    // One submission: up to max_steps_per_submit steps, ending early at the checkpoint that
    // fills the last staging slot.
    const int64_t end =
        PlanSubmission(t, steps, options_.max_steps_per_submit, slots_, next_snapshot, &snaps);
    DASHI_RETURN_IF_ERROR(Advance(t, end, snaps, &parity));
    for (size_t k = 0; k < snaps.size(); ++k) {
      const std::span<const double> states = StagingSlot(k);
      if (FirstNonFiniteIndex(states) >= 0) {
        return LocateNonFinite(last_good_step, last_good, snaps[k]);
      }
      // Hash a host copy: the staging memory may be uncached on discrete GPUs.
      std::copy(states.begin(), states.end(), last_good.begin());
      last_good_step = snaps[k];
      if (IsCheckpointStep(snaps[k], steps, params.hash_every)) checkpoint(snaps[k], last_good);
      if (is_observed(snaps[k])) DASHI_RETURN_IF_ERROR(sink(snaps[k], last_good));
    }
    t = end;
  }
  // `steps` is always a checkpoint, so last_good holds z_steps (z0 when steps = 0).
  result.final_states = std::move(last_good);
  return result;
}

Status VulkanBatchedRollout::CheckGuardWords() const {
  const uint64_t payload = static_cast<uint64_t>(batch_ * dim_) * sizeof(double);
  for (int k = 0; k < 2; ++k) {
    if (!z_[k].has_value()) continue;
    DASHI_RETURN_IF_ERROR(vk::CheckGuardWords(ctx_, *z_[k], payload,
                                              "batched rollout state buffer " +
                                                  std::to_string(k)));
  }
  return OkStatus();
}

}  // namespace dashi::vk
