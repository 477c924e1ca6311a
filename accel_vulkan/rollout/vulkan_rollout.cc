#include "accel_vulkan/rollout/vulkan_rollout.h"

#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <exception>
#include <new>
#include <string>
#include <utility>

#include "accel_vulkan/guard_words.h"
#include "accel_vulkan/rollout/rollout_driver.h"
#include "accel_vulkan/vk_status.h"
#include "core_ref/rollout/vecmat.h"
#include "shaders/rollout/rollout_combine.h"
#include "shaders/rollout/rollout_fused.h"
#include "shaders/rollout/rollout_params.h"
#include "shaders/rollout/rollout_partials.h"
#include "shaders/rollout/rollout_persistent.h"

namespace dashi::vk {
namespace {

// shaders/rollout/rollout_contract.glsl hard-codes the contract's chunk size (kChunk = 64u).
static_assert(kRolloutChunk == 64);

constexpr VkDeviceSize kDoubleBytes = sizeof(double);

// Smallest workgroup of the persistent kernel. On lavapipe (Mesa 22.3.6) workgroups of ≤ 8
// invocations (one SIMD vector there) gave wrong states with this kernel and ≥ 16 right ones; the
// cause was not found (the same logic run by one invocation is correct on paper, and the fused
// kernel is right at every size), so smaller workgroups are refused rather than trusted.
constexpr uint64_t kMinPersistentWorkgroup = 16;

// Automatic steps per dispatch of the persistent kernel, and on devices that do not report
// their SM count (lavapipe) the barrier() calls one workgroup may make per dispatch: lavapipe
// (Mesa 22.3.6) computed wrong states once one workgroup passed roughly 10^4 barriers in a
// dispatch (found by bisecting D and the steps per dispatch; the cause inside the driver was not
// investigated).
constexpr int64_t kMaxStepsPerDispatch = 4096;

// Most chunks for which the persistent kernel rebuilds the state in registers (its
// kMaxRegisterTreeChunks).
constexpr int64_t kMaxRegisterTreeChunks = 32;

// With RolloutKernel::kAuto on a device that gets the persistent kernel, dispatches of fewer
// steps than this run the fused kernel instead.
constexpr int64_t kMinPersistentSegment = 4;
constexpr int64_t kBarrierBudgetPerDispatch = 4096;

// Arrival counters of the persistent kernel: one per dispatch until the host zeroes them again
// (inside the same command buffer when a submission has more dispatches than counters).
constexpr uint32_t kSyncCounters = 1024;

// Number of tree-stack slots kernel 2 needs: bit_width(m − 1) + 1.
uint32_t TreeSlots(int64_t chunks) {
  return static_cast<uint32_t>(std::bit_width(static_cast<uint64_t>(chunks - 1))) + 1;
}

// Smallest automatic tile of the fused kernel (outputs per workgroup): 4 doubles = 32 bytes.
constexpr uint64_t kMinAutoTile = 4;

uint32_t CeilDiv(int64_t a, int64_t b) { return static_cast<uint32_t>((a + b - 1) / b); }

// The persistent kernel's shared memory: 64·m doubles for the tree plus a flag.
bool PersistentFits(const VkPhysicalDeviceLimits& lim, int64_t chunks) {
  return (64 * static_cast<uint64_t>(chunks) + 1) * sizeof(double) <=
         lim.maxComputeSharedMemorySize;
}

}  // namespace

const char* RolloutKernelName(RolloutKernel kernel) {
  switch (kernel) {
    case RolloutKernel::kAuto: return "auto";
    case RolloutKernel::kFused: return "fused";
    case RolloutKernel::kTwoKernels: return "two-kernel";
    case RolloutKernel::kPersistent: return "persistent";
  }
  return "?";
}

StatusOr<RolloutKernel> ParseRolloutKernel(std::string_view name) {
  for (RolloutKernel k : {RolloutKernel::kAuto, RolloutKernel::kFused, RolloutKernel::kTwoKernels,
                          RolloutKernel::kPersistent}) {
    if (name == RolloutKernelName(k)) return k;
  }
  return InvalidArgumentError("unknown rollout kernel '" + std::string(name) +
                              "' (expected auto, fused, two-kernel or persistent)");
}

VulkanRollout::VulkanRollout(VulkanContext& ctx, int64_t dim, const VulkanRolloutOptions& options)
    : ctx_(ctx),
      dim_(dim),
      chunks_((dim + kRolloutChunk - 1) / kRolloutChunk),
      options_(options) {}

VulkanRollout::~VulkanRollout() = default;

StatusOr<std::unique_ptr<VulkanRollout>> VulkanRollout::Create(
    VulkanContext& ctx, int64_t dim, std::span<const double> a,
    const VulkanRolloutOptions& options) {
  DASHI_RETURN_IF_ERROR(ValidateRolloutCreate("vulkan rollout", dim, kMaxDim, a,
                                              options.max_steps_per_submit,
                                              options.max_snapshots_per_submit));
  std::unique_ptr<VulkanRollout> r(new VulkanRollout(ctx, dim, options));
  DASHI_RETURN_IF_ERROR(r->Init(a));
  return r;
}

Status VulkanRollout::Init(std::span<const double> a) {
  const DeviceInfo& info = ctx_.info();
  DASHI_ASSIGN_OR_RETURN(const VkPhysicalDeviceProperties props,
                         RolloutDeviceProperties(ctx_, "vulkan rollout"));
  const VkPhysicalDeviceLimits& lim = props.limits;
  const uint64_t a_bytes = static_cast<uint64_t>(dim_) * static_cast<uint64_t>(dim_) * kDoubleBytes;
  if (a_bytes > lim.maxStorageBufferRange) {
    return UnimplementedError("vulkan rollout: A (D = " + std::to_string(dim_) + ") needs " +
                              std::to_string(a_bytes) +
                              " bytes in one storage buffer but device '" +
                              info.name + "' allows maxStorageBufferRange = " +
                              std::to_string(lim.maxStorageBufferRange) + " bytes");
  }
  sm_info_ = QuerySmInfo(ctx_);
  if (options_.kernel == RolloutKernel::kAuto) {
    const bool persistent = sm_info_.has_value() && PersistentFits(lim, chunks_);
    options_.kernel = persistent ? RolloutKernel::kPersistent : RolloutKernel::kFused;
    // A dispatch of one to three steps is quicker with the fused kernel (docs/PERF.md: the main
    // job, reading every state back, ran 8.1k steps/s fused vs 6.1k persistent on an H200).
    options_.persistent_short_segments_fused = persistent;
  }
  short_segments_fused_ =
      options_.kernel == RolloutKernel::kPersistent && options_.persistent_short_segments_fused;
  if (options_.workgroup_size == 0 && options_.kernel != RolloutKernel::kPersistent) {
    // automatic: 256 (the H100's best for the fused kernel, docs/PERF.md) if allowed
    options_.workgroup_size =
        std::min({256u, lim.maxComputeWorkGroupSize[0], lim.maxComputeWorkGroupInvocations});
  }
  if (const uint32_t wg = options_.workgroup_size;
      wg > lim.maxComputeWorkGroupSize[0] || wg > lim.maxComputeWorkGroupInvocations) {
    return InvalidArgumentError("vulkan rollout: workgroup_size " + std::to_string(wg) +
                                " exceeds the device's limits (maxComputeWorkGroupSize[0] = " +
                                std::to_string(lim.maxComputeWorkGroupSize[0]) +
                                ", maxComputeWorkGroupInvocations = " +
                                std::to_string(lim.maxComputeWorkGroupInvocations) + ")");
  }

  float_controls_ = QueryFloat64Controls(ctx_);
  variant_ = options_.use_float_controls ? SupportedFloatControlsVariant(float_controls_) : 0u;

  // Buffers. Everything the kernels write carries a guard region inside its bound range.
  const VkDeviceSize state_bytes = static_cast<VkDeviceSize>(dim_) * kDoubleBytes;
  DASHI_ASSIGN_OR_RETURN(DeviceBuffer a_buf, DeviceBuffer::Create(ctx_, a_bytes));
  DASHI_RETURN_IF_ERROR(a_buf.UploadValues<double>(ctx_, a));
  a_.emplace(std::move(a_buf));
  for (auto& z : z_) {
    DASHI_ASSIGN_OR_RETURN(DeviceBuffer b, CreateGuardedBuffer(ctx_, state_bytes));
    z.emplace(std::move(b));
  }
  DASHI_ASSIGN_OR_RETURN(
      HostVisibleBuffer staging,
      HostVisibleBuffer::CreateForReading(
          ctx_, static_cast<VkDeviceSize>(options_.max_snapshots_per_submit) * state_bytes));
  staging_.emplace(std::move(staging));
  DASHI_ASSIGN_OR_RETURN(batch_, CommandBatch::Create(ctx_, 4));

  // Pipelines and their descriptor sets (made once, reused by every dispatch).
  switch (options_.kernel) {
    case RolloutKernel::kPersistent:
      DASHI_RETURN_IF_ERROR(InitPersistent(lim));
      if (short_segments_fused_) {
        DASHI_RETURN_IF_ERROR(InitFused(lim, std::min({256u, lim.maxComputeWorkGroupSize[0],
                                                       lim.maxComputeWorkGroupInvocations})));
      }
      return OkStatus();
    case RolloutKernel::kFused:
      return InitFused(lim, options_.workgroup_size);
    default:
      break;
  }
  const uint32_t wg = options_.workgroup_size;
  if (CeilDiv(dim_, wg) > lim.maxComputeWorkGroupCount[0] ||
      static_cast<uint64_t>(chunks_) > lim.maxComputeWorkGroupCount[1]) {
    return UnimplementedError("vulkan rollout: D = " + std::to_string(dim_) + " with workgroup " +
                              std::to_string(wg) + " needs " + std::to_string(CeilDiv(dim_, wg)) +
                              " x " + std::to_string(chunks_) +
                              " workgroups, beyond maxComputeWorkGroupCount");
  }
  if (chunks_ > 1) {
    DASHI_ASSIGN_OR_RETURN(
        DeviceBuffer b,
        CreateGuardedBuffer(ctx_, static_cast<VkDeviceSize>(chunks_) * state_bytes));
    partials_.emplace(std::move(b));
  }
  DASHI_ASSIGN_OR_RETURN(
      partials_pipe_,
      ComputePipeline::Create(ctx_, {spirv::kRolloutPartialsVariants[variant_], 3,
                                     sizeof(RolloutPushConstants), {wg}, 2}));
  for (int src = 0; src < 2; ++src) {
    const VkBuffer out = chunks_ > 1 ? partials_->buffer() : z_[1 - src]->buffer();
    const VkBuffer bufs[] = {a_->buffer(), z_[src]->buffer(), out};
    DASHI_ASSIGN_OR_RETURN(partials_sets_[src], partials_pipe_->Bindings(bufs));
  }
  if (chunks_ > 1) {
    DASHI_ASSIGN_OR_RETURN(
        combine_pipe_,
        ComputePipeline::Create(ctx_, {spirv::kRolloutCombineVariants[variant_], 2,
                                       sizeof(RolloutPushConstants), {wg, TreeSlots(chunks_)},
                                       2}));
    for (int src = 0; src < 2; ++src) {
      const VkBuffer bufs[] = {partials_->buffer(), z_[1 - src]->buffer()};
      DASHI_ASSIGN_OR_RETURN(combine_sets_[src], combine_pipe_->Bindings(bufs));
    }
  }
  return OkStatus();
}

Status VulkanRollout::InitFused(const VkPhysicalDeviceLimits& lim, uint32_t wg) {
  const DeviceInfo& info = ctx_.info();
  // Tile T: T·m doubles of shared memory per workgroup, ceil(D/T) workgroups.
  const uint64_t shared_doubles = lim.maxComputeSharedMemorySize / kDoubleBytes;
  const uint64_t m = static_cast<uint64_t>(chunks_);
  if (m > shared_doubles) {
    return UnimplementedError("vulkan rollout (fused): D = " + std::to_string(dim_) + " has " +
                              std::to_string(m) + " chunks, needing " +
                              std::to_string(m * kDoubleBytes) +
                              " bytes of shared memory per output, beyond device '" + info.name +
                              "' maxComputeSharedMemorySize = " +
                              std::to_string(lim.maxComputeSharedMemorySize) +
                              " (use the two-kernel path)");
  }
  // More than D outputs per workgroup would only leave invocations idle.
  uint64_t tile = std::min<uint64_t>(options_.fused_tile, static_cast<uint64_t>(dim_));
  if (tile == 0) {
    // About one (chunk, j) pair per invocation, but at least 4 outputs: a warp then reads
    // ≥ 32 contiguous bytes (one memory sector) of each row of A it touches.
    tile = std::max<uint64_t>(kMinAutoTile, wg / m);
    tile = std::min<uint64_t>(tile, shared_doubles / m);
  } else if (tile * m > shared_doubles) {
    return InvalidArgumentError("vulkan rollout (fused): fused_tile " + std::to_string(tile) +
                                " x " + std::to_string(m) + " chunks x 8 bytes exceeds "
                                "maxComputeSharedMemorySize = " +
                                std::to_string(lim.maxComputeSharedMemorySize));
  }
  tile = std::max<uint64_t>(1, std::min<uint64_t>(tile, static_cast<uint64_t>(dim_)));
  fused_tile_ = static_cast<uint32_t>(tile);
  if (CeilDiv(dim_, fused_tile_) > lim.maxComputeWorkGroupCount[0]) {
    return UnimplementedError("vulkan rollout (fused): D = " + std::to_string(dim_) +
                              " with tile " + std::to_string(tile) + " needs " +
                              std::to_string(CeilDiv(dim_, fused_tile_)) +
                              " workgroups, beyond maxComputeWorkGroupCount[0] = " +
                              std::to_string(lim.maxComputeWorkGroupCount[0]));
  }
  const uint32_t slots = fused_tile_ * static_cast<uint32_t>(chunks_);
  DASHI_ASSIGN_OR_RETURN(
      fused_pipe_,
      ComputePipeline::Create(ctx_, {spirv::kRolloutFusedVariants[variant_], 3,
                                     sizeof(RolloutPushConstants), {wg, fused_tile_, slots}, 2}));
  for (int src = 0; src < 2; ++src) {
    const VkBuffer bufs[] = {a_->buffer(), z_[src]->buffer(), z_[1 - src]->buffer()};
    DASHI_ASSIGN_OR_RETURN(fused_sets_[src], fused_pipe_->Bindings(bufs));
  }
  return OkStatus();
}

Status VulkanRollout::InitPersistent(const VkPhysicalDeviceLimits& lim) {
  const DeviceInfo& info = ctx_.info();
  if (!PersistentFits(lim, chunks_)) {
    return UnimplementedError("vulkan rollout (persistent): D = " + std::to_string(dim_) +
                              " needs 64 x " + std::to_string(chunks_) +
                              " doubles of shared memory, beyond device '" + info.name +
                              "' maxComputeSharedMemorySize = " +
                              std::to_string(lim.maxComputeSharedMemorySize));
  }
  if (options_.persistent_spin_limit == 0 || options_.persistent_max_steps_per_dispatch < 0 ||
      options_.persistent_groups_per_sm == 0) {
    return InvalidArgumentError(
        "vulkan rollout (persistent): persistent_spin_limit and persistent_groups_per_sm must be "
        ">= 1, persistent_max_steps_per_dispatch >= 0 (0 = automatic)");
  }
  // G: resident workgroups.
  uint64_t groups = options_.persistent_groups;
  if (groups == 0) {
    groups = sm_info_.has_value()
                 ? static_cast<uint64_t>(sm_info_->sm_count) * options_.persistent_groups_per_sm
                 : 1;
  }
  // W and R: the automatic choice grows the tile until the units fit in G.
  const uint64_t m = static_cast<uint64_t>(chunks_);
  const uint64_t max_wg = std::min(lim.maxComputeWorkGroupSize[0],
                                   lim.maxComputeWorkGroupInvocations);
  auto units = [&](uint64_t wg, uint64_t cols) { return m * CeilDiv(dim_, wg * cols); };
  uint64_t wg = options_.workgroup_size;
  uint64_t cols = options_.persistent_cols;
  if (wg == 0) {
    // 128 (the fastest on an H200 at D = 512, 1024 and 2048: docs/PERF.md), 64 when one
    // workgroup walks every unit anyway (lavapipe).
    wg = std::min<uint64_t>(groups > 1 ? 128 : 64, max_wg);
  }
  if (cols == 0) {  // one workgroup walks all units anyway: no reason to widen them
    cols = 1;
    while (groups > 1 && units(wg, cols) > groups && cols < 8) cols *= 2;
  }
  if (wg < kMinPersistentWorkgroup) {
    return InvalidArgumentError(
        "vulkan rollout (persistent): workgroup_size " + std::to_string(wg) + " is below " +
        std::to_string(kMinPersistentWorkgroup) +
        " (lavapipe computed wrong states with workgroups of <= 8 invocations; docs/PERF.md)");
  }
  if (cols > 64) {
    return InvalidArgumentError("vulkan rollout (persistent): persistent_cols " +
                                std::to_string(cols) + " exceeds 64");
  }
  options_.workgroup_size = static_cast<uint32_t>(wg);
  persistent_cols_ = static_cast<uint32_t>(cols);
  persistent_tiles_ = CeilDiv(dim_, static_cast<int64_t>(wg * cols));
  groups = std::min<uint64_t>(groups, units(wg, cols));
  DASHI_RETURN_IF_ERROR(CheckWaitingWorkgroups(ctx_, "vulkan rollout (persistent)", groups,
                                               sm_info_.has_value(),
                                               options_.persistent_allow_unverified_groups,
                                               "Use persistent_groups = 1 or another kernel"));
  persistent_groups_ = static_cast<uint32_t>(groups);
  if (options_.persistent_max_steps_per_dispatch == 0) {
    int64_t per_dispatch = kMaxStepsPerDispatch;
    if (!sm_info_.has_value()) {
      // barrier() calls of one workgroup per step: per unit the state load (2 + tree levels),
      // plus the device-wide barrier (2).
      const int64_t units_per_group = CeilDiv(static_cast<int64_t>(units(wg, cols)),
                                              static_cast<int64_t>(groups));
      const int64_t per_step =
          units_per_group * (2 + std::bit_width(static_cast<uint64_t>(chunks_ - 1))) + 2;
      per_dispatch = std::max<int64_t>(1, kBarrierBudgetPerDispatch / per_step);
    }
    options_.persistent_max_steps_per_dispatch = per_dispatch;
  }
  // The state is rebuilt in registers for m ≤ 32 (shaders/rollout/rollout_persistent.comp); the
  // register-resident A path relies on it.
  const uint32_t register_tree_chunks =
      chunks_ <= kMaxRegisterTreeChunks ? static_cast<uint32_t>(chunks_) : 0u;
  persistent_resident_ = options_.persistent_resident_a && cols == 1 &&
                         units(wg, cols) <= groups && register_tree_chunks != 0;

  const VkDeviceSize state_bytes = static_cast<VkDeviceSize>(dim_) * kDoubleBytes;
  DASHI_ASSIGN_OR_RETURN(
      DeviceBuffer partials,
      CreateGuardedBuffer(ctx_, 2 * static_cast<VkDeviceSize>(chunks_) * state_bytes));
  persistent_partials_.emplace(std::move(partials));
  DASHI_ASSIGN_OR_RETURN(DeviceBuffer sync,
                         DeviceBuffer::Create(ctx_, (1 + kSyncCounters) * sizeof(uint32_t)));
  DASHI_RETURN_IF_ERROR(sync.Fill(ctx_, 0));
  sync_.emplace(std::move(sync));
  DASHI_ASSIGN_OR_RETURN(HostVisibleBuffer sync_host,
                         HostVisibleBuffer::Create(ctx_, sizeof(uint32_t)));
  sync_host_.emplace(std::move(sync_host));

  const uint32_t slots = register_tree_chunks != 0 ? 64u : 64 * static_cast<uint32_t>(chunks_);
  DASHI_ASSIGN_OR_RETURN(
      persistent_pipe_,
      ComputePipeline::Create(ctx_, {spirv::kRolloutPersistentVariants[variant_], 5,
                                     sizeof(RolloutPersistentPushConstants),
                                     {options_.workgroup_size, persistent_cols_, slots,
                                      persistent_resident_ ? 1u : 0u, register_tree_chunks},
                                     2}));
  for (int src = 0; src < 2; ++src) {
    const VkBuffer bufs[] = {a_->buffer(), z_[src]->buffer(), z_[1 - src]->buffer(),
                             persistent_partials_->buffer(), sync_->buffer()};
    DASHI_ASSIGN_OR_RETURN(persistent_sets_[src], persistent_pipe_->Bindings(bufs));
  }
  return OkStatus();
}

std::span<const double> VulkanRollout::StagingSlot(size_t slot) const {
  return staging_->as<const double>().subspan(slot * static_cast<size_t>(dim_),
                                              static_cast<size_t>(dim_));
}

Status VulkanRollout::Advance(int64_t first_step, int64_t last_step,
                              std::span<const int64_t> snapshot_steps, int* parity) {
  if (snapshot_steps.size() > static_cast<size_t>(options_.max_snapshots_per_submit)) {
    return InternalError("vulkan rollout: more snapshots than staging slots");
  }
  const RolloutPushConstants push{static_cast<uint32_t>(dim_), static_cast<uint32_t>(chunks_)};
  const uint32_t groups_x =
      CeilDiv(dim_, fused_pipe_ ? fused_tile_ : options_.workgroup_size);
  const VkDeviceSize state_bytes = static_cast<VkDeviceSize>(dim_) * kDoubleBytes;
  uint32_t sync_slot = 0;
  StepRecorder recorder;
  recorder.record_steps = [&](int p, int64_t step, int64_t limit) -> int64_t {
    const bool short_segment = limit - step < kMinPersistentSegment;
    if (persistent_pipe_ && !(short_segments_fused_ && short_segment)) {
      const int64_t end = std::min(limit, step + options_.persistent_max_steps_per_dispatch);
      if (sync_slot == kSyncCounters) {  // reuse the counters (the error flag stays)
        batch_->FillBuffer(sync_->buffer(), sizeof(uint32_t), kSyncCounters * sizeof(uint32_t), 0);
        batch_->Barrier();
        sync_slot = 0;
      }
      const RolloutPersistentPushConstants pp{
          static_cast<uint32_t>(dim_),        static_cast<uint32_t>(chunks_),
          static_cast<uint32_t>(end - step),  persistent_tiles_,
          sync_slot++,                        options_.persistent_spin_limit};
      batch_->Dispatch(*persistent_pipe_, persistent_sets_[p], &pp, sizeof(pp),
                       persistent_groups_);
      return end;
    }
    if (fused_pipe_) {
      batch_->Dispatch(*fused_pipe_, fused_sets_[p], &push, sizeof(push), groups_x, 1);
    } else if (chunks_ > 1) {
      batch_->Dispatch(*partials_pipe_, partials_sets_[p], &push, sizeof(push), groups_x,
                       static_cast<uint32_t>(chunks_));
      batch_->Barrier();
      batch_->Dispatch(*combine_pipe_, combine_sets_[p], &push, sizeof(push), groups_x);
    } else {
      batch_->Dispatch(*partials_pipe_, partials_sets_[p], &push, sizeof(push), groups_x, 1);
    }
    return step + 1;
  };
  recorder.record_copy = [&](int state, size_t slot) {
    batch_->CopyBuffer(z_[state]->buffer(), staging_->buffer(), state_bytes, 0,
                       static_cast<VkDeviceSize>(slot) * state_bytes);
  };
  if (persistent_pipe_) {
    recorder.record_prologue = [&] {  // fresh arrival counters and error flag
      batch_->FillBuffer(sync_->buffer(), 0, VK_WHOLE_SIZE, 0);
      batch_->Barrier();
    };
    recorder.record_epilogue = [&] {
      batch_->CopyBuffer(sync_->buffer(), sync_host_->buffer(), sizeof(uint32_t));
    };
  }
  SubmissionTally tally;
  const Status st =
      SubmitSteps(*batch_, first_step, last_step, snapshot_steps, recorder, parity, &tally);
  timings_.steps += tally.steps;
  timings_.submissions += tally.submissions;
  timings_.snapshots += tally.snapshots;
  timings_.timestamps = timings_.timestamps || tally.timestamps;
  timings_.device_ms += tally.device_ms;
  if (st.ok() && persistent_pipe_ && sync_host_->as<const uint32_t>()[0] != 0) {
    return UnavailableError(
        "vulkan rollout (persistent): the " + std::to_string(persistent_groups_) +
        " workgroups of the persistent kernel were not all resident at once on device '" +
        ctx_.info().name + "' (a device-wide barrier timed out after " +
        std::to_string(options_.persistent_spin_limit) +
        " polls); use fewer workgroups (persistent_groups) or another kernel");
  }
  return st;
}

Status VulkanRollout::LocateNonFinite(int64_t from_step, std::span<const double> from_state,
                                      int64_t bad_step) {
  DASHI_RETURN_IF_ERROR(z_[0]->UploadValues<double>(ctx_, from_state));
  int parity = 0;
  return ReplayToFirstNonFinite(
      from_step, bad_step, options_.max_snapshots_per_submit,
      [&](int64_t first, int64_t last, std::span<const int64_t> snaps) {
        return Advance(first, last, snaps, &parity);
      },
      [&](size_t slot, int64_t step) { return CheckRolloutStateFinite(StagingSlot(slot), step); },
      "vulkan rollout");
}

StatusOr<RolloutResult> VulkanRollout::Run(std::span<const double> z0, const RolloutParams& params,
                                           const RolloutObserver& observer) {
  const auto start = std::chrono::steady_clock::now();
  timings_ = {};
  // "rollout": the wording of core_ref's Rollout, which an observer's exception must match.
  StatusOr<RolloutResult> out = CatchRolloutExceptions<RolloutResult>(
      "rollout", [&] { return RunImpl(z0, params, observer); });
  timings_.host_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (timings_.device_ms > 0 && timings_.steps > 0) {
    timings_.steps_per_second = static_cast<double>(timings_.steps) / (timings_.device_ms * 1e-3);
    timings_.device_us_per_step = timings_.device_ms * 1e3 / static_cast<double>(timings_.steps);
  }
  return out;
}

StatusOr<RolloutResult> VulkanRollout::RunImpl(std::span<const double> z0,
                                               const RolloutParams& params,
                                               const RolloutObserver& observer) {
  // The checks of core_ref's ValidateInputs, in its order, with D fixed by Create().
  const bool has_observer = static_cast<bool>(observer);
  DASHI_RETURN_IF_ERROR(ValidateRolloutParams(params, has_observer));
  if (z0.size() != static_cast<size_t>(dim_)) {
    return InvalidArgumentError("rollout: z0 has " + std::to_string(z0.size()) +
                                " entries but this Vulkan rollout was created for D = " +
                                std::to_string(dim_));
  }
  DASHI_RETURN_IF_ERROR(ValidateRolloutStart(z0));

  const int64_t steps = params.steps;
  auto is_observed = [&](int64_t step) {
    return has_observer && (step % params.observe_every == 0 || step == steps);
  };
  // The next step after `step` whose state the host needs (checkpoint, observation or the end).
  auto next_snapshot = [&](int64_t step) {
    int64_t next = NextMultiple(step, params.hash_every, steps);
    if (has_observer) next = std::min(next, NextMultiple(step, params.observe_every, steps));
    return next;
  };

  RolloutResult result;
  Hash128 link{};  // 16 zero bytes before the first checkpoint
  // What core_ref does at the end of a step: checkpoint, then observer.
  auto visit = [&](int64_t step, std::span<const double> state) -> Status {
    if (IsCheckpointStep(step, steps, params.hash_every)) {
      ChainCheckpoint cp;
      cp.step = step;
      cp.state_hash = StateHash(state);
      cp.link = NextChainLink(link, cp.state_hash);
      link = cp.link;
      result.chain.push_back(cp);
    }
    if (is_observed(step)) {
      Status s = observer(step, state);
      if (!s.ok()) return s.WithPrefix("rollout observer at step " + std::to_string(step));
    }
    return OkStatus();
  };

  DASHI_RETURN_IF_ERROR(z_[0]->UploadValues<double>(ctx_, z0));
  DASHI_RETURN_IF_ERROR(visit(0, z0));
  std::vector<double> last_good(z0.begin(), z0.end());  // the last finite state read back
  int64_t last_good_step = 0;
  int parity = 0;
  std::vector<int64_t> snaps;
  for (int64_t t = 0; t < steps;) {
    // One submission: up to max_steps_per_submit steps, ending early when the staging slots
    // are full (at the step of the last snapshot).
    const int64_t end = PlanSubmission(t, steps, options_.max_steps_per_submit,
                                       options_.max_snapshots_per_submit, next_snapshot, &snaps);
    DASHI_RETURN_IF_ERROR(Advance(t, end, snaps, &parity));
    for (size_t k = 0; k < snaps.size(); ++k) {
      const std::span<const double> state = StagingSlot(k);
      if (FirstNonFiniteIndex(state) >= 0) {
        return LocateNonFinite(last_good_step, last_good, snaps[k]);
      }
      // Hash and observe a host copy: the staging memory may be uncached on discrete GPUs.
      std::copy(state.begin(), state.end(), last_good.begin());
      last_good_step = snaps[k];
      DASHI_RETURN_IF_ERROR(visit(snaps[k], last_good));
    }
    t = end;
  }
  // steps is always a snapshot step, so last_good is z_steps (z0 when steps = 0).
  result.final_state = std::move(last_good);
  return result;
}

StatusOr<int64_t> VulkanRollout::CountCorruptedGuardWords() const {
  int64_t corrupted = 0;
  auto count = [&](const DeviceBuffer& b) -> Status {
    // Every buffer was made by CreateGuardedBuffer: the guard words end it.
    DASHI_ASSIGN_OR_RETURN(const int64_t n, vk::CountCorruptedGuardWords(
                                                ctx_, b, b.size() - kGuardBytes, "rollout"));
    corrupted += n;
    return OkStatus();
  };
  for (const auto& z : z_) DASHI_RETURN_IF_ERROR(count(*z));
  if (partials_.has_value()) DASHI_RETURN_IF_ERROR(count(*partials_));
  if (persistent_partials_.has_value()) DASHI_RETURN_IF_ERROR(count(*persistent_partials_));
  return corrupted;
}

}  // namespace dashi::vk
