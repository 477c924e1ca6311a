// VulkanRollout: the fp64 hash-chained linear rollout z_{t+1} = z_t·A on a Vulkan device, bit for
// bit the trajectory of core_ref's Rollout (core_ref/rollout/rollout.h): the same product order
// (core_ref/rollout/vecmat.h, "THE CONTRACT"), the same checkpoints, the same BLAKE2b-128 chain
// (computed on the host with core_ref's StateHash / NextChainLink from states read back at the
// checkpoints), the same validation and error codes.
//
//   DASHI_ASSIGN_OR_RETURN(std::unique_ptr<VulkanRollout> r, VulkanRollout::Create(ctx, D, a));
//   DASHI_ASSIGN_OR_RETURN(RolloutResult res, r->Run(z0, {.steps = 1000, .hash_every = 100}));
//   r->last_timings().device_ms;   // device time of the run (timestamp queries)
//
// Device work. A (D×D, row-major) and the state stay in device-local memory. Three kernels, all
// bit-identical to the contract (options.kernel):
//  - kPersistent (the default where the device reports its SM count): ONE dispatch computes many
//    steps (shaders/rollout/rollout_persistent.comp). G workgroups, sized to be resident together,
//    share the (chunk, column tile) work units; a unit rebuilds its 64 entries of the state from
//    the previous step's chunk partials by the contract's tree, computes its chunk partials, and
//    a device-wide barrier (an atomic arrival counter) separates the steps. A dispatch ends at
//    every state the host needs. A bounded spin turns non-resident workgroups into an UNAVAILABLE
//    error instead of a hang.
//  - kFused (the default elsewhere): each step is ONE dispatch of shaders/rollout/rollout_fused.comp:
//    a workgroup owns a tile of T outputs j, computes their m chunk partials into shared memory
//    and folds them by the contract's pairwise tree (level by level, workgroup barriers in
//    between), then writes z_{t+1}[j]; one buffer barrier per step.
//  - kTwoKernels: each step is the older pair of dispatches, kernel 1
//    (shaders/rollout/rollout_partials.comp: one invocation per (chunk c, j) computes the chunk
//    partial p_c[j]) and kernel 2 (rollout_combine.comp: one invocation per j folds the
//    m = ceil(D/64) partials by the contract's pairwise tree), with a barrier after each; for
//    D ≤ 64 (one chunk) kernel 1 writes the next state directly and kernel 2 is skipped.
// The state ping-pongs between two buffers. Up to `max_steps_per_submit` steps are recorded into
// one command buffer and submitted once.
//
// Readback. Only the states the host needs are copied back: each checkpoint (hashing), each
// observer step (when an observer is given: D doubles per observed step, the documented cost of
// observing) and the final step. The copies go into a host-visible staging ring inside the same
// submission (at most `max_snapshots_per_submit` per submission), so the device never waits for
// the host between checkpoints. Finiteness is checked on every state read back; a non-finite
// state can only stay non-finite under z·A (every later component has a ±Inf or NaN term), so
// the first bad step lies between the last finite state read back and this one, and it is
// located by replaying that stretch one step at a time from the last finite state. The error is
// then exactly core_ref's (OUT_OF_RANGE, same step, same index and value).
//
// Float controls. The contract assumes IEEE binary64 with subnormals preserved, signed zeros
// and round-to-nearest-even. The shaders come in variants declaring the SPIR-V execution modes
// DenormPreserve, SignedZeroInfNanPreserve and RoundingModeRTE for 64-bit floats; Create() picks
// the variant with every mode the device reports in VkPhysicalDeviceFloatControlsProperties.
// A device without DenormPreserve still runs (its defaults apply); the conformance suite's
// subnormal case then shows whether its results still match.
//
// Limits: 1 ≤ D ≤ kMaxDim (16384; 32-bit shader indexing), D²·8 bytes within the device's
// maxStorageBufferRange (lavapipe: 128 MiB, i.e. D ≤ 4096). Beyond them Create() returns
// UNIMPLEMENTED naming the limit; nothing is ever silently truncated.
//
// Not thread-safe. Destroy before the VulkanContext.
#ifndef DASHI_ACCEL_VULKAN_ROLLOUT_VULKAN_ROLLOUT_H_
#define DASHI_ACCEL_VULKAN_ROLLOUT_VULKAN_ROLLOUT_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "accel_vulkan/buffer.h"
#include "accel_vulkan/command_batch.h"
#include "accel_vulkan/compute_pipeline.h"
#include "accel_vulkan/context.h"
#include "accel_vulkan/device_buffer.h"
#include "accel_vulkan/device_caps/device_caps.h"
#include "core_ref/rollout/rollout.h"
#include "core_ref/status/status.h"

namespace dashi::vk {

// The kernel of a step (docs/ARCHITECTURE.md, docs/PERF.md).
enum class RolloutKernel {
  // kPersistent on a device that reports its SM count (VK_NV_shader_sm_builtins), so the
  // workgroups of the persistent kernel can be sized to be resident together; otherwise kFused.
  // (Chosen this way, dispatches of 1–3 steps run the fused kernel: short_segments_fused().)
  kAuto,
  kFused,       // one dispatch per step: shaders/rollout/rollout_fused.comp
  kTwoKernels,  // two dispatches per step: rollout_partials.comp, then rollout_combine.comp
  // Many steps per dispatch with a device-wide barrier between steps:
  // shaders/rollout/rollout_persistent.comp. Needs all workgroups resident at once; when they
  // are not, a bounded spin makes Run() fail with UNAVAILABLE (never a hang or a wrong state).
  kPersistent,
};
// "auto", "fused", "two-kernel", "persistent".
const char* RolloutKernelName(RolloutKernel kernel);
// Parses the names above; INVALID_ARGUMENT otherwise.
StatusOr<RolloutKernel> ParseRolloutKernel(std::string_view name);

struct VulkanRolloutOptions {
  // Specialization constant 0 of the kernels; 0 = automatic: min(256, the device's limits), the
  // fastest fused setting measured on an H100 (docs/PERF.md).
  uint32_t workgroup_size = 0;
  int64_t max_steps_per_submit = 1024;   // steps recorded into one command buffer (≥ 1)
  int64_t max_snapshots_per_submit = 64; // staging slots: states read back per submission (≥ 1)
  // false: always the variant without float-controls execution modes (for experiments; the
  // default picks every mode the device supports).
  bool use_float_controls = true;
  // Which kernel computes the steps; all are bit-identical to the contract.
  RolloutKernel kernel = RolloutKernel::kAuto;
  // kFused only: outputs per workgroup T (its shared memory holds T·m doubles; clamped to D).
  // 0 = automatic: max(4, workgroup_size / m), i.e. about one (chunk, j) pair per invocation but
  // at least one 32-byte sector of each row of A per warp, reduced if needed to fit
  // maxComputeSharedMemorySize. A larger T means fewer, busier workgroups (each invocation
  // loops over ceil(T·m / workgroup_size) pairs); tune with the benchmark's --tile.
  uint32_t fused_tile = 0;
  // kPersistent only: workgroups G of the dispatch (all must be resident at once). 0 = automatic:
  // the device's SM count (VK_NV_shader_sm_builtins) × persistent_groups_per_sm, or 1 on a
  // device that does not report it. Clamped to the number of work units.
  uint32_t persistent_groups = 0;
  uint32_t persistent_groups_per_sm = 1;
  // kPersistent only: on a device that does not report its SM count, more than one workgroup is
  // INVALID_ARGUMENT unless this is set: nothing there tells whether the workgroups can be
  // resident together, and lavapipe (Mesa 22.3.6) computed wrong states with several resident
  // workgroups waiting on each other (docs/PERF.md). Set only by the tests of the non-residency
  // handling (the bounded spin that turns a wait which cannot end into UNAVAILABLE).
  bool persistent_allow_unverified_groups = false;
  // kPersistent: workgroup_size must be ≥ 16 (INVALID_ARGUMENT otherwise; see kernel notes in
  // docs/PERF.md). kPersistent only: outputs per invocation R in a work unit (tile
  // T = workgroup_size·R).
  // 0 = automatic: the smallest R ∈ {1, 2, 4, 8} for which the m·ceil(D/T) units do not exceed G
  // (R = 1 when G = 1). workgroup_size = 0 is automatic too: 128, or 64 when G = 1.
  uint32_t persistent_cols = 0;
  // kPersistent only: keep each invocation's 64 entries of A in registers across the steps when
  // every workgroup has at most one unit, R = 1 and m ≤ 32 (otherwise A is read from memory each
  // step).
  bool persistent_resident_a = true;
  // kPersistent only: dispatches of 1–3 steps run the fused kernel instead (set by kAuto when it
  // picks the persistent kernel).
  bool persistent_short_segments_fused = false;
  // kPersistent only: polls of the arrival counter before a workgroup gives up on a device-wide
  // barrier (the dispatch then fails with UNAVAILABLE instead of hanging).
  uint32_t persistent_spin_limit = 1u << 22;
  // kPersistent only: most steps in one dispatch. 0 = automatic: 4096 on a device that reports
  // its SM count; elsewhere as many as keep a workgroup's barrier() calls per dispatch within
  // 4096 (lavapipe, Mesa 22.3.6, gave wrong states once one workgroup ran more than about 10^4
  // barriers in one dispatch; docs/PERF.md). Resolved by Create().
  int64_t persistent_max_steps_per_dispatch = 0;
};

// Timings of the last Run() (also filled, as far as it got, when it failed).
struct RolloutTimings {
  int64_t steps = 0;          // products computed on the device (including replays)
  int64_t submissions = 0;    // command buffers submitted
  int64_t snapshots = 0;      // states read back (checkpoints, observer steps, replays)
  bool timestamps = false;    // false when the queue has no timestamps (device_ms is then 0)
  double device_ms = 0;       // device time of all submissions (timestamps), snapshot copies
                              // included; uploads and host work excluded
  double host_ms = 0;         // wall-clock time of Run()
  double steps_per_second = 0;     // steps / device time
  double device_us_per_step = 0;   // device time / steps
};

class VulkanRollout {
 public:
  static constexpr int64_t kMaxDim = 16384;

  // Uploads A (dim×dim, row-major) and builds the pipelines.
  // INVALID_ARGUMENT: dim < 1, a.size() ≠ dim², a NaN/±Inf in A (naming the entry), bad options.
  // UNIMPLEMENTED: dim > kMaxDim or beyond a device limit (named), no shaderFloat64, Vulkan < 1.2.
  static StatusOr<std::unique_ptr<VulkanRollout>> Create(VulkanContext& ctx, int64_t dim,
                                                         std::span<const double> a,
                                                         const VulkanRolloutOptions& options = {});
  ~VulkanRollout();
  VulkanRollout(const VulkanRollout&) = delete;
  VulkanRollout& operator=(const VulkanRollout&) = delete;

  // Runs the rollout from z0 with core_ref's semantics (see Rollout in core_ref/rollout/rollout.h):
  // INVALID_ARGUMENT for bad params, z0.size() ≠ dim() or a non-finite z0 entry; OUT_OF_RANGE when
  // the state becomes non-finite (core_ref's message: step, index, value); an observer's error
  // prefixed "rollout observer at step t"; an exception from the observer → INTERNAL; device
  // errors as VkCheck maps them. The observer sees (t, z_t) at t = 0, observe_every, … and at
  // t = steps, after that step's checkpoint, in order.
  StatusOr<RolloutResult> Run(std::span<const double> z0, const RolloutParams& params,
                              const RolloutObserver& observer = nullptr);

  int64_t dim() const { return dim_; }
  int64_t chunks() const { return chunks_; }
  const RolloutTimings& last_timings() const { return timings_; }
  const Float64Controls& device_float_controls() const { return float_controls_; }
  uint32_t shader_variant() const { return variant_; }
  const VulkanRolloutOptions& options() const { return options_; }
  // The kernel in use (never kAuto) and, for kFused, its outputs per workgroup (else 0); for
  // kPersistent its workgroups G and outputs per invocation R (else 0).
  RolloutKernel kernel() const { return options_.kernel; }
  uint32_t fused_tile() const { return fused_tile_; }
  uint32_t persistent_groups() const { return persistent_groups_; }
  uint32_t persistent_cols() const { return persistent_cols_; }
  bool persistent_resident_a() const { return persistent_resident_; }
  // True when kAuto chose the persistent kernel: dispatches of 1–3 steps (e.g. an observer of
  // every state) then run the fused kernel, quicker there (docs/PERF.md).
  bool short_segments_fused() const { return short_segments_fused_; }

  // Guard words (accel_vulkan/guard_words.h): every state and scratch buffer the kernels write
  // has them after its data (inside the bound range), written at Create(). Returns how many no
  // longer hold kGuardWord (0 unless a kernel wrote out of bounds).
  StatusOr<int64_t> CountCorruptedGuardWords() const;

 private:
  VulkanRollout(VulkanContext& ctx, int64_t dim, const VulkanRolloutOptions& options);
  Status Init(std::span<const double> a);
  StatusOr<RolloutResult> RunImpl(std::span<const double> z0, const RolloutParams& params,
                                  const RolloutObserver& observer);
  // Computes steps first_step+1 .. last_step from the state in z_[*parity], copying the states of
  // the steps in `snapshot_steps` (increasing, within that range, at most
  // max_snapshots_per_submit) into staging slots 0, 1, …; flips *parity as it goes.
  Status Advance(int64_t first_step, int64_t last_step, std::span<const int64_t> snapshot_steps,
                 int* parity);
  std::span<const double> StagingSlot(size_t slot) const;
  // Replays from a finite state at `from_step` to `bad_step` (whose state was non-finite) one
  // step at a time and returns core_ref's OUT_OF_RANGE error for the first non-finite step.
  Status LocateNonFinite(int64_t from_step, std::span<const double> from_state, int64_t bad_step);

  VulkanContext& ctx_;
  const int64_t dim_;
  const int64_t chunks_;
  VulkanRolloutOptions options_;  // workgroup_size resolved by Init (0 = automatic)
  Float64Controls float_controls_;
  uint32_t variant_ = 0;
  RolloutTimings timings_;

  std::optional<DeviceBuffer> a_;
  std::array<std::optional<DeviceBuffer>, 2> z_;  // ping-pong states, D doubles + guard
  std::optional<DeviceBuffer> partials_;          // m×D doubles + guard (only when m > 1)
  std::optional<HostVisibleBuffer> staging_;      // max_snapshots_per_submit × D doubles
  std::unique_ptr<ComputePipeline> partials_pipe_;
  std::unique_ptr<ComputePipeline> combine_pipe_;
  std::unique_ptr<ComputePipeline> fused_pipe_;   // kFused only
  std::array<VkDescriptorSet, 2> fused_sets_{};   // [src]: (A, z[src], z[1−src])
  uint32_t fused_tile_ = 0;
  std::array<VkDescriptorSet, 2> partials_sets_{};  // [src]: (A, z[src], partials or z[1−src])
  std::array<VkDescriptorSet, 2> combine_sets_{};   // [src]: (partials, z[1−src])
  // kPersistent: partials (2·m·D doubles + guard), the sync words (error flag + one arrival
  // counter per dispatch of a submission) and a host copy of the error flag.
  std::unique_ptr<ComputePipeline> persistent_pipe_;
  std::array<VkDescriptorSet, 2> persistent_sets_{};  // [src]: (A, z[src], z[1−src], partials, sync)
  std::optional<DeviceBuffer> persistent_partials_;
  std::optional<DeviceBuffer> sync_;
  std::optional<HostVisibleBuffer> sync_host_;
  uint32_t persistent_groups_ = 0;
  uint32_t persistent_cols_ = 0;
  uint32_t persistent_tiles_ = 0;
  bool persistent_resident_ = false;
  std::unique_ptr<CommandBatch> batch_;
  Status InitPersistent(const VkPhysicalDeviceLimits& lim);
  Status InitFused(const VkPhysicalDeviceLimits& lim, uint32_t workgroup_size);
  bool short_segments_fused_ = false;  // kAuto → persistent: fused for 1–3-step dispatches
  std::optional<SmInfo> sm_info_;      // QuerySmInfo at Init
};

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_ROLLOUT_VULKAN_ROLLOUT_H_
