// VulkanBatchedRollout: B fp64 rollouts z_{t+1} = z_t·A with one A at once on a Vulkan device, for
// dataset generation. Every trajectory is bit for bit core_ref's single-trajectory Rollout
// (core_ref/rollout/rollout.h) from its row of Z0: the same product order (vecmat.h, "THE
// CONTRACT"), the same checkpoints and BLAKE2b-128 chain (computed on the host with core_ref's
// StateHash / NextChainLink from the states read back at the checkpoints).
//
//   DASHI_ASSIGN_OR_RETURN(auto r, VulkanBatchedRollout::Create(ctx, D, a));
//   DASHI_ASSIGN_OR_RETURN(BatchedRolloutResult res,
//                          r->Run(z0, B, {.steps = 1000, .hash_every = 100}));  // z0: B×D
//   res.chains[b].back().link;       // = Rollout(row b of z0, a, params)->chain.back().link
//   r->last_timings().gflops;        // device timestamps
//
// Device work. A (D×D) and the states Z (B×D, row-major, ping-ponged between two buffers) stay in
// device-local memory. Three kernels, all bit-exact per row (options.kernel, chosen per Run();
// kAuto chooses between the first two):
//  - kTiled: each step is ONE dispatch of shaders/batched/batched_rollout.comp, a tiled GEMM whose
//    workgroups own (rows × cols) tiles of the output (BatchedTile), followed by one buffer
//    barrier (with K blocks, tile.split > 1: a dispatch of block sums, a barrier, a dispatch
//    combining them); up to `max_steps_per_submit` steps go into one command buffer.
//  - kSmallBatch: shaders/batched/batched_persistent.comp, the B-row form of the single-trajectory
//    persistent kernel: ONE dispatch runs many steps, G resident workgroups (one per SM) share the
//    (64-row chunk, C-column tile) units, each keeps its unit's column block of A in registers
//    across the steps (when every workgroup has at most one unit) and computes it for all B rows,
//    spread over R row groups of C invocations; a device-wide barrier separates the steps (merged
//    with the state's rebuild when every row fits one pass). The state after every step of a
//    dispatch that contains an observed step also goes into a device-side history ring
//    (staging_slots() states), from which the observed states are copied, so a dispatch does not
//    end at every observed step. Its settings (columns per unit C, row groups R, rebuild once) are
//    chosen per (D, B) from a measured table (SmallBatchRule, DefaultSmallBatchRules), so the
//    tiles, workgroups and pipeline follow B from one Run() to the next. kAuto picks it where an
//    automatic table row holds (D, B) (B ≤ kSmallBatchAutoMaxRows = 16 at any D; up to 64 rows at
//    D ∈ [513, 704], up to 64 but B = 32 and 48 … 64 at D ∈ [705, 896], up to 47 but
//    B = 25 … 32 at D ∈ [897, 1023], 56 at D = 1024 but B = 25 … 32, and 32 at D = 512, with
//    small_batch_rebuild_once: each state
//    entry rebuilt once per step, a second device-wide barrier; C = 32 from 17 rows at D = 512;
//    per-chunk counters instead of the device-wide waits at D = 1024, B 8..32) on a device that
//    reports its SM count (VK_NV_shader_sm_builtins: the workgroups must be resident together),
//    when A stays in registers (every workgroup has at most one unit: D ≤ 1024 on a 132-SM GPU)
//    and its buffers fit maxStorageBufferRange; kTiled otherwise. Forced (kSmallBatch) it runs
//    any B for D ≤ 2048 (m ≤ 32 chunks: the state is rebuilt in registers). A bounded spin turns
//    non-resident workgroups into UNAVAILABLE instead of a hang.
//  - kColumnSlice (forced only: slower than the two above wherever measured, docs/PERF.md):
//    shaders/batched/batched_columns.comp, ONE dispatch of many steps as kSmallBatch (the same
//    buffers, holding two state planes where kSmallBatch holds its chunk partials, push
//    constants, history ring and bounded spin), but no K split across workgroups:
//    workgroup g owns Wc columns over the full K, keeps its A in registers, reads the whole
//    state from memory each step, folds its chunk partials in shared memory and writes its
//    columns of the next state (double-buffered in the partials buffer); one device-wide
//    barrier a step.
//  - kTiledPersistent: shaders/batched/batched_tiled_persistent.comp, the tiled kernel's GEMM
//    (the same tile, options.tile, without K blocks or tree slots in memory) with many steps per
//    dispatch: G resident workgroups (the SM count, at most the tiles) walk the output tiles, the
//    steps separated by a device-wide barrier instead of a dispatch boundary; the same buffers,
//    push constants, history ring and bounded spin as kColumnSlice (the partials buffer holds its
//    two states; the host copies each dispatch's input into the second). kAuto takes it at
//    D = 512 for 33 ≤ B ≤ 64 with the tile in eight K groups (SuggestBatchedTile's there) on a GPU
//    that reports its SM count, where every tile has its own workgroup: 3 % faster than the tiled
//    kernel there, slower at D = 1024 and 2048 (docs/PERF.md, "Large batches, part 12").
// Only checkpoint states (and the final one) are copied, inside the same submission, into a
// host-visible staging ring; the device never waits for the host between checkpoints.
//
// Errors, per trajectory as core_ref reports them, prefixed "trajectory b: ". A non-finite state
// can only stay non-finite under z·A, so when a checkpoint holds one, the stretch since the last
// finite checkpoint is replayed step by step and the run fails with core_ref's OUT_OF_RANGE
// error (step, index, value) of the first trajectory to blow up (the lowest b among those that
// blow up at the earliest step). The other trajectories' results are not returned.
//
// Float controls as in VulkanRollout: the shader comes in the eight float-controls variants of
// shaders/defs.bzl and Create() picks every mode the device reports (accel_vulkan/device_caps).
//
// Limits: 1 ≤ D ≤ kMaxDim; A (D²·8 bytes), the states (B·D·8 bytes + kGuardBytes) and, with K
// blocks or the tree slots in memory, the tiled kernel's scratch (BatchedScratchDoubles) each
// within maxStorageBufferRange (lavapipe: 128 MiB); ceil(D / cols) and ceil(B / rows)
// workgroups within maxComputeWorkGroupCount. Beyond them UNIMPLEMENTED naming the limit.
//
// Not thread-safe. Destroy before the VulkanContext.
#ifndef DASHI_ACCEL_VULKAN_BATCHED_VULKAN_BATCHED_ROLLOUT_H_
#define DASHI_ACCEL_VULKAN_BATCHED_VULKAN_BATCHED_ROLLOUT_H_

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "accel_vulkan/batched/batched_tile.h"
#include "accel_vulkan/buffer.h"
#include "accel_vulkan/command_batch.h"
#include "accel_vulkan/compute_pipeline.h"
#include "accel_vulkan/context.h"
#include "accel_vulkan/device_buffer.h"
#include "accel_vulkan/device_caps/device_caps.h"
#include "accel_vulkan/rollout/rollout_driver.h"
#include "core_ref/rollout/rollout.h"
#include "core_ref/status/status.h"

namespace dashi::vk {

// The kernel of the batched steps (see the file comment).
enum class BatchedKernel {
  kAuto,        // kSmallBatch where it is faster (a DefaultSmallBatchRules row holds (D, B),
                // SM count reported, A in registers), else kTiledPersistent where it is
                // (TiledPersistentAutomatic), else kTiled
                // (never kColumnSlice: slower everywhere measured)
  kTiled,       // one tiled-GEMM dispatch per step: shaders/batched/batched_rollout.comp
  kSmallBatch,  // many steps per dispatch, A on chip: shaders/batched/batched_persistent.comp
  // Many steps per dispatch, each workgroup a slice of Wc columns over the full K (A in
  // registers), the whole state read by every workgroup per step: batched_columns.comp.
  kColumnSlice,
  // The tiled kernel's tile, many steps per dispatch, a device-wide barrier between them:
  // batched_tiled_persistent.comp (kAuto: D = 512, 33 ≤ B ≤ 64, eight K groups, on a GPU).
  kTiledPersistent,
};
// "auto", "tiled", "small-batch", "column-slice", "tiled-persistent".
const char* BatchedKernelName(BatchedKernel kernel);

// One row of the table the small-batch kernel's automatic settings come from, per (D, B): for D in
// [min_dim, max_dim] and B in [min_rows, max_rows], C columns per unit, R row groups and whether
// each state entry is rebuilt once per step (with its Q and U). The first row that holds (D, B)
// wins, except that a row with columns ≠ 0 is skipped where its m·ceil(D / C) units would exceed
// the resident workgroups while the set-up C's units do not (it would lose A in registers). kAuto
// takes the small-batch kernel exactly where a row wins and A stays in registers; a forced
// kSmallBatch takes a winning row's settings for those left automatic (0) in the options (its R
// only with its own C or the set-up one). Rows with rebuild_unroll > 4 are INVALID_ARGUMENT too.
// DefaultSmallBatchRules() is the measured table (docs/PERF.md, "Mid batches: columns per unit
// chosen per batch").
struct SmallBatchRule {
  int64_t min_dim = 1;
  int64_t max_dim = 2048;
  int64_t min_rows = 1;
  int64_t max_rows = 16;
  uint32_t columns = 0;      // C (0: the set-up default, 64 where its units fit, else 128)
  uint32_t row_groups = 0;   // R (0: automatic per B)
  bool rebuild_once = false;  // small_batch_rebuild_once on (it needs the merged wait)
  // small_batch_rebuilders and _rebuild_unroll (with rebuild_once: spread the rebuilt entries
  // over the workgroups, loads in flight; 0 = automatic).
  uint32_t rebuilders = 0;
  uint32_t rebuild_unroll = 0;
  // small_batch_pair_loads on: the inner loop loads the staged state as dvec2 pairs.
  bool pair_loads = false;
  // small_batch_pair_state_loads on: the rebuild's and the new state's loads as dvec2 pairs.
  bool pair_state_loads = false;
  // With rebuild_once: per-chunk counters instead of the device-wide barriers
  // (small_batch_rebuild_once = 4).
  bool chunk_counters = false;
  // kAuto takes the small-batch kernel where this row holds (D, B); false: the row only sets the
  // forced kernel's settings (kAuto takes the tiled kernel, faster there).
  bool automatic = true;
  bool operator==(const SmallBatchRule&) const = default;
};
// The built-in table (an H200 with 132 SMs, docs/PERF.md), used on devices that report their SM
// count; first row first.
std::span<const SmallBatchRule> DefaultSmallBatchRules();

struct VulkanBatchedRolloutOptions {
  BatchedTile tile;  // the kTiled and kTiledPersistent kernels' tile (specialization constants)
  BatchedKernel kernel = BatchedKernel::kAuto;
  // kSmallBatch (and, forced, kColumnSlice and kTiledPersistent). Workgroups G (all must be
  // resident at once): 0 = automatic, the SM count, or 1 on a device that does not report it
  // (more is INVALID_ARGUMENT there unless small_batch_allow_unverified_groups, for tests of the
  // bounded spin); clamped to the units (slices, tiles).
  uint32_t small_batch_groups = 0;
  bool small_batch_allow_unverified_groups = false;
  // Columns per unit C (≥ 16): 0 = automatic per (D, B): the winning small_batch_rules row's C,
  // else the set-up default, 64 when the m·ceil(D/64) units fit in G, else 128; 256 when G = 1
  // (lavapipe: fewer barrier() calls per dispatch, see the .cc). The workgroup has C·R
  // invocations (R below).
  uint32_t small_batch_workgroup = 0;
  // Row groups R: the B rows of a unit are spread over R groups of C invocations (more warps per
  // unit): 0 = automatic per B (the winning small_batch_rules row's R, else 1 when G = 1, else
  // min(B, max(1, 256 / C))).
  uint32_t small_batch_row_groups = 0;
  // Rows whose dependent chains one invocation interleaves (1, 2 or 4): 0 = automatic per B
  // (ceil(B / R) capped at 4, rounded up to 1, 2 or 4).
  uint32_t small_batch_group_rows = 0;
  // Rows staged per pass (multiple of 4; shared memory 512·P bytes): 0 = automatic, every row (B
  // rounded up to 4) where that fits maxComputeSharedMemorySize and 64 rows, else the most that
  // fit. With A in registers and one pass, the arrival wait and the state's rebuild are merged (the
  // single-trajectory persistent kernel's step; shaders/batched/batched_persistent.comp).
  uint32_t small_batch_pass_rows = 0;
  // The merged wait only: invocations that poll and rebuild the state (0 = automatic) and the
  // entries each rebuilds at once, 1..4 (0 = automatic: 1); see batched_persistent.comp. With
  // small_batch_rebuild_once they mean: rebuilders ≠ 0 spreads the rebuilt entries evenly over
  // the workgroups, and rebuild_unroll ≥ 2 rebuilds two entries a round and keeps that many
  // loads in flight when a unit loads the new state (batched_persistent.comp, "Rebuild once").
  uint32_t small_batch_rebuilders = 0;
  uint32_t small_batch_rebuild_unroll = 0;
  // The merged wait only: rebuild each state entry once per step (a second device-wide barrier;
  // batched_persistent.comp, "Rebuild once"): 0 = automatic (the winning small_batch_rules row's
  // choice: on for 8 <= B <= 64 at the measured D, see DefaultSmallBatchRules), 1 = off, 2 = on,
  // 3 = on with the plain device-wide barrier (one poller per workgroup), 4 = on with per-chunk
  // counters instead of device-wide barriers (batched_persistent.comp, "Per-chunk counters"),
  // 5 = on in two halves of the rows with a counter each, one half's waits overlapping the other
  // half's work (batched_persistent.comp, "Halves"). Ignored (off) where the merged wait does not
  // apply (A not in registers, or B > P).
  uint32_t small_batch_rebuild_once = 0;
  // The inner loop's loads of the staged state from shared memory as dvec2 pairs (two entries a
  // load; the same products and adds in the same order, batched_persistent.comp kPairLoads):
  // 0 = automatic (the winning small_batch_rules row's pair_loads), 1 = off, 2 = on.
  uint32_t small_batch_pair_loads = 0;
  // With the state rebuilt once (small_batch_rebuild_once) and D even: the rebuild's loads of the
  // chunk partials and each unit's loads of the new state as dvec2 pairs (two entries a load, each
  // entry's tree unchanged; batched_persistent.comp kPairLoads bit 1): 0 = automatic (the winning
  // row's pair_state_loads), 1 = off, 2 = on. Ignored (off) elsewhere.
  uint32_t small_batch_pair_state_loads = 0;
  // TIMING PROBE, WRONG STATES: the benchmark's phase costs only (batched_persistent.comp
  // kProbe: bits 1 = no second wait, 2 = no chains, 4 = no loads of the new state, 8 = no
  // rebuild). 0 = off (the only value the table or any caller but the benchmark uses); nonzero
  // only with small_batch_rebuild_once = 2 (else INVALID_ARGUMENT). A Run() with it returns
  // whatever states the skipped phases leave: never compare or keep them.
  uint32_t small_batch_timing_probe = 0;
  // The per-(D, B) table of automatic settings (SmallBatchRule): nullopt = DefaultSmallBatchRules()
  // where the SM count is reported and none elsewhere; a table given here is used on any device
  // (tests). Rows with min > max, 0 < columns < 16, or columns·row_groups beyond the workgroup
  // limit are INVALID_ARGUMENT.
  std::optional<std::vector<SmallBatchRule>> small_batch_rules;
  uint32_t small_batch_spin_limit = 1u << 22;  // polls before a device-wide barrier gives up
  // Most steps in one dispatch: 0 = automatic, 4096 where the SM count is reported, else 1
  // (lavapipe computed wrong states with several: accel_vulkan/batched/vulkan_batched_rollout.cc).
  int64_t small_batch_max_steps_per_dispatch = 0;
  // kColumnSlice only (it shares small_batch_groups, _allow_unverified_groups, _spin_limit and
  // _max_steps_per_dispatch with kSmallBatch, as kTiledPersistent does; the workgroups are
  // min(G, slices)). Columns per
  // slice Wc: 0 = automatic, ceil(D / SM count) (one slice per SM; every workgroup then keeps
  // its A in registers), or 256 / m (at least 1) without an SM count. Row groups R (0 =
  // automatic: 256 / (Wc·m), 1 from Wc·m = 128; at most B and the rows per pass), rows
  // interleaved per invocation G (1, 2 or 4; 0 = automatic: the most with R·G within the rows
  // per pass and B) and rows per pass P (a multiple of G; 0 = automatic: the most rows, a
  // multiple of R·G, whose padded chunks fit shared memory and whose loads fit 32 prefetch
  // registers). The workgroup has Wc·m·R invocations (at least 32).
  uint32_t column_slice_columns = 0;
  uint32_t column_slice_row_groups = 0;
  uint32_t column_slice_group_rows = 0;
  uint32_t column_slice_pass_rows = 0;
  // Experiments (docs/PERF.md, "Mid batches: the column-slice kernel"): A's slice in shared
  // memory instead of registers (needs one slice per workgroup), A read from memory at each use,
  // and each pass's rows staged straight from memory instead of prefetched into registers during
  // the previous pass.
  bool column_slice_a_in_shared = false;
  bool column_slice_a_in_memory = false;
  bool column_slice_no_prefetch = false;
  int64_t max_steps_per_submit = 1024;    // steps recorded into one command buffer (≥ 1)
  int64_t max_snapshots_per_submit = 64;  // staging slots: checkpoints per submission (≥ 1) ...
  uint64_t max_staging_bytes = 256ull << 20;  // ... fewer where B·D·8 per slot exceeds this
                                              // (at least one slot)
  // false: the shader variant without float-controls execution modes (for experiments).
  bool use_float_controls = true;
};

struct BatchedRolloutResult {
  int64_t batch = 0;
  int64_t dim = 0;
  std::vector<double> final_states;                 // B×D row-major: row b is z_steps of b
  std::vector<std::vector<ChainCheckpoint>> chains;  // chains[b], in increasing step order

  std::span<const double> final_state(int64_t b) const {
    return std::span<const double>(final_states).subspan(static_cast<size_t>(b * dim),
                                                         static_cast<size_t>(dim));
  }
};

// Called by Run() with every observed step's states (B×D, row-major), steps in increasing order
// from 0; an error stops the run and is returned as it is. The span is valid during the call.
using BatchedStateSink = std::function<Status(int64_t step, std::span<const double> states)>;

// Timings of the last Run() (also filled, as far as it got, when it failed).
struct BatchedRolloutTimings {
  int64_t batch = 0;
  int64_t steps = 0;        // steps computed on the device (including replays)
  int64_t submissions = 0;  // command buffers submitted
  int64_t snapshots = 0;    // batch states read back (checkpoints, replays)
  bool timestamps = false;  // false when the queue has no timestamps (device figures are 0)
  double device_ms = 0;     // device time of all submissions, snapshot copies included
  // Device time of the steps: each submission up to its last step, i.e. device_ms without the
  // copy of a snapshot taken at a submission's last step (with hash_every ≥ steps, the final
  // state's copy: then steps_ms is the products alone). The per-step figures below use it.
  double steps_ms = 0;
  double host_ms = 0;       // wall-clock time of Run() (upload, hashing and waits included)
  double device_us_per_step = 0;           // steps_ms / steps
  double trajectory_steps_per_second = 0;  // batch · steps / steps_ms
  double gflops = 0;                       // 2·B·D² · steps / steps_ms, in 1e9 per second
  BatchedKernel kernel = BatchedKernel::kTiled;  // the kernel that ran
  int64_t dispatches = 0;                  // kernel dispatches recorded
};

class VulkanBatchedRollout {
 public:
  static constexpr int64_t kMaxDim = 16384;
  // The largest B for which kAuto picks the small-batch kernel at any D ≤ 2048 (where A stays in
  // registers: the measured crossover with the tiled kernel on an H200, docs/PERF.md); up to 64
  // rows at some D ∈ [512, 1024] (the automatic rows of DefaultSmallBatchRules).
  static constexpr int64_t kSmallBatchAutoMaxRows = 16;


  // Uploads A (dim×dim, row-major) and builds the pipeline.
  // INVALID_ARGUMENT: dim < 1, a.size() ≠ dim², a NaN/±Inf in A (naming the entry), bad options.
  // UNIMPLEMENTED: dim > kMaxDim or beyond a device limit (named), no shaderFloat64, Vulkan < 1.2.
  static StatusOr<std::unique_ptr<VulkanBatchedRollout>> Create(
      VulkanContext& ctx, int64_t dim, std::span<const double> a,
      const VulkanBatchedRolloutOptions& options = {});
  ~VulkanBatchedRollout();
  VulkanBatchedRollout(const VulkanBatchedRollout&) = delete;
  VulkanBatchedRollout& operator=(const VulkanBatchedRollout&) = delete;

  // Runs `batch` trajectories from z0 (batch × dim, row-major). With a `sink`, the states of
  // step 0, every multiple of params.observe_every and the last step are passed to it; they are
  // copied into the staging ring inside the submissions (up to staging_slots() per submission,
  // one readback each), so the device never waits for the host between two steps unless the
  // ring holds a single slot. Without a sink observe_every is ignored. INVALID_ARGUMENT for bad
  // params (core_ref's ValidateRolloutParams), batch < 1, z0.size() ≠
  // batch·dim, or a non-finite z0 entry ("trajectory b: " + core_ref's message); OUT_OF_RANGE when
  // a state becomes non-finite (see the file comment); UNIMPLEMENTED when B is beyond a device
  // limit; device errors as VkCheck maps them. Buffers grow to the largest batch seen.
  StatusOr<BatchedRolloutResult> Run(std::span<const double> z0, int64_t batch,
                                     const RolloutParams& params,
                                     const BatchedStateSink& sink = nullptr);

  // Makes the device buffers, descriptor sets and staging ring for `batch` rows and writes their
  // guard words now (a later Run() of at most that many rows then allocates nothing), so a caller
  // can count it as set-up. INVALID_ARGUMENT for batch < 1; the limits of Run().
  Status Prepare(int64_t batch);

  int64_t dim() const { return dim_; }
  int64_t chunks() const { return chunks_; }
  const BatchedTile& tile() const { return tile_; }  // slice_k resolved
  // `kernel` with the settings this object runs it with now (the small-batch and column-slice
  // settings of the last Prepare or Run), in one line: what `dashi run`'s metrics, the
  // conformance details and the benchmark print. E.g. "small-batch persistent kernel: 66
  // workgroups of 128 (C=32 R=4 rows=4 P=32 Q=0 U=4), rebuild once, pair loads, A in registers".
  std::string KernelDescription(BatchedKernel kernel) const;
  // The tiled kernel's pipeline (for its driver statistics: ComputePipeline::ExecutableStatistics).
  const ComputePipeline& tiled_pipeline() const { return *pipe_; }
  // The kernel a Run() of `batch` rows would use (kTiled, kSmallBatch or kTiledPersistent
  // automatically; a forced kColumnSlice too), or the error a forced kernel gives for it.
  StatusOr<BatchedKernel> KernelFor(int64_t batch) const;
  // kSmallBatch's resolved settings (0 when it cannot run on this D / device).
  // Workgroup size, row groups, interleaved rows and rows per pass are those of the last
  // Prepare() / Run() with the small-batch kernel (before any: B = 1's).
  uint32_t small_batch_groups() const { return small_now_.groups; }
  uint32_t small_batch_columns() const { return small_now_.cols; }
  uint32_t small_batch_workgroup() const { return small_now_.cols * small_now_.row_groups; }
  uint32_t small_batch_row_groups() const { return small_now_.row_groups; }
  uint32_t small_batch_group_rows() const { return small_now_.group_rows; }
  uint32_t small_batch_pass_rows() const { return small_now_.pass_rows; }
  uint32_t small_batch_rebuilders() const { return small_now_.rebuilders; }
  uint32_t small_batch_rebuild_unroll() const { return small_now_.rebuild_unroll; }
  bool small_batch_rebuild_once() const { return small_now_.rebuild_once != 0; }
  bool small_batch_pair_loads() const { return small_now_.pair_loads; }
  bool small_batch_pair_state_loads() const { return small_now_.pair_state_loads; }
  bool small_batch_resident_a() const { return small_now_.resident; }
  // The settings a small-batch Run() of `batch` rows would use (C, R, G, …; for tests and tools).
  struct SmallBatchShape {
    uint32_t cols = 0;     // C, columns per unit (specialization: W = C·R)
    uint32_t tiles = 0;    // ceil(D / C)
    uint32_t groups = 0;   // workgroups: min(resident workgroups, m·tiles)
    bool resident = false;  // m·tiles ≤ groups: A in registers
    uint32_t row_groups = 1;
    uint32_t group_rows = 4;
    uint32_t pass_rows = 4;
    uint32_t rebuilders = 0;  // 0: all C·R
    uint32_t rebuild_unroll = 1;
    uint32_t rebuild_once = 0;  // the specialization constant kRebuildOnce (3: per-chunk counters,
                                // 4: halves)
    uint32_t probe = 0;         // kProbe (small_batch_timing_probe)
    bool pair_loads = false;    // the specialization constant kPairLoads, bit 0
    bool pair_state_loads = false;  // ... bit 1 (only with rebuild_once and D even)
    bool operator==(const SmallBatchShape&) const = default;
  };
  SmallBatchShape SmallBatchShapeFor(int64_t batch) const;
  // kColumnSlice's resolved settings (0 when it cannot run here); R, G and P those of the last
  // Prepare() / Run() with it (before any: B = 1's).
  uint32_t column_slice_groups() const { return cs_groups_; }
  uint32_t column_slice_columns() const { return cs_cols_; }
  uint32_t column_slice_slices() const { return cs_slices_; }
  uint32_t column_slice_row_groups() const { return cs_now_.row_groups; }
  uint32_t column_slice_group_rows() const { return cs_now_.group_rows; }
  uint32_t column_slice_pass_rows() const { return cs_now_.pass_rows; }
  bool column_slice_resident_a() const { return cs_resident_; }
  const BatchedRolloutTimings& last_timings() const { return timings_; }
  const Float64Controls& device_float_controls() const { return float_controls_; }
  uint32_t shader_variant() const { return variant_; }
  // Staging slots of the last Run() (max_snapshots_per_submit, fewer for large batches).
  int64_t staging_slots() const { return slots_; }

  // Guard words (accel_vulkan/guard_words.h) after the last Run()'s B×D states in both state
  // buffers (and, for the small-batch kernel, after its partials and history ring) are written
  // whenever the buffers or B change. OK while they are intact; DATA_LOSS naming the first
  // overwritten word. All regions are read back in one submission.
  Status CheckGuardWords() const;

 private:
  VulkanBatchedRollout(VulkanContext& ctx, int64_t dim, const VulkanBatchedRolloutOptions& o);
  Status Init(std::span<const double> a);
  StatusOr<BatchedRolloutResult> RunImpl(std::span<const double> z0, int64_t batch,
                                         const RolloutParams& params,
                                         const BatchedStateSink& sink);
  // Makes the state buffers, descriptor sets and staging ring fit `batch` and writes the guards.
  Status Reserve(int64_t batch);
  // Steps first_step+1 .. last_step from the states in z_[*parity], copying the states of the
  // steps in `snapshot_steps` (increasing, at most slots_) into staging slots 0, 1, …
  Status Advance(int64_t first_step, int64_t last_step, std::span<const int64_t> snapshot_steps,
                 int* parity);
  // The same with the small-batch kernel.
  Status AdvanceSmallBatch(int64_t first_step, int64_t last_step,
                           std::span<const int64_t> snapshot_steps, int* parity);
  // Resolves the small-batch settings that do not depend on B (no-op when it cannot apply).
  Status InitSmallBatch();
  // The winning row of the small-batch table for `batch` rows (nullptr: none).
  const SmallBatchRule* SmallBatchRuleFor(int64_t batch) const;
  // Builds (once per shape) and selects the pipeline for `batch` rows.
  Status SelectSmallBatchPipeline(int64_t batch);
  // Why the small-batch kernel cannot run `batch` rows here (OK when it can).
  Status SmallBatchFits(int64_t batch) const;
  // `kernel`'s buffer for `batch` rows fits a storage buffer: the small-batch kernel's chunk
  // partials and state plane, the column-slice and tiled persistent kernels' two state planes.
  Status PersistentBuffersFit(int64_t batch, BatchedKernel kernel) const;
  // The column-slice kernel: settings that do not depend on B, its per-B shape and pipeline, and
  // why it cannot run `batch` rows (OK when it can).
  Status InitColumnSlice();
  struct ColumnSliceShape {
    uint32_t row_groups = 1;
    uint32_t group_rows = 1;
    uint32_t pass_rows = 1;
    bool operator==(const ColumnSliceShape&) const = default;
  };
  StatusOr<ColumnSliceShape> ColumnSliceShapeFor(int64_t batch) const;
  Status SelectColumnSlicePipeline(int64_t batch);
  Status ColumnSliceFits(int64_t batch) const;
  // The tiled persistent kernel: its pipeline and workgroups (once), and why it cannot run
  // `batch` rows (OK when it can).
  Status InitTiledPersistent();
  Status TiledPersistentFits(int64_t batch) const;
  // Its tiles for the current batch (ceil(B / rows) · ceil(D / cols)) and workgroups.
  uint32_t TiledPersistentTiles(int64_t batch) const;
  uint32_t TiledPersistentGroups(int64_t batch) const;
  // Whether kAuto takes it for `batch` rows: TiledPersistentSuits (batched_tile.h) on a GPU that
  // reports its SM count, and the buffers fit.
  bool TiledPersistentAutomatic(int64_t batch) const;
  // Creates the sync words shared by the persistent kernels (once).
  Status EnsureSync();
  std::span<const double> StagingSlot(size_t slot) const;
  // Replays from the finite states at `from_step` to `bad_step` (whose states were not all
  // finite) one step at a time; returns the first trajectory's core_ref OUT_OF_RANGE error.
  Status LocateNonFinite(int64_t from_step, std::span<const double> from_states,
                         int64_t bad_step);

  VulkanContext& ctx_;
  const int64_t dim_;
  const int64_t chunks_;
  VulkanBatchedRolloutOptions options_;
  VkPhysicalDeviceLimits limits_{};
  BatchedTile tile_;
  Float64Controls float_controls_;
  uint32_t variant_ = 0;
  BatchedRolloutTimings timings_;
  SubmissionTally tally_;  // of the current Run(), copied into timings_ at its end

  int64_t batch_ = 0;     // B of the current / last Run()
  int64_t capacity_ = 0;  // rows the state buffers hold
  int64_t slots_ = 0;     // staging slots for batch_
  std::optional<DeviceBuffer> a_;
  std::array<std::optional<DeviceBuffer>, 2> z_;  // ping-pong states, capacity_ × D + guard
  std::optional<HostVisibleBuffer> staging_;
  // The start states on their way to the device (written by the host; made by Reserve, so a Run
  // uploads without allocating or creating a command buffer).
  std::optional<HostVisibleBuffer> upload_;
  std::unique_ptr<ComputePipeline> pipe_;
  std::optional<DeviceBuffer> scratch_;  // block sums and tree slots, scratch_rows_ rows + guard
  int64_t scratch_rows_ = 0;
  std::array<VkDescriptorSet, 2> sets_{};  // [src]: (A, z[src], z[1−src], scratch)
  std::unique_ptr<CommandBatch> batch_cmd_;

  // The persistent kernels: pipeline, per-batch buffer (PersistentPlanes · rows · D doubles +
  // guard: kSmallBatch's chunk partials and a state plane, 2·m + 1 planes; kColumnSlice's and
  // kTiledPersistent's two state planes; remade for more rows, more planes or new state
  // buffers), history ring
  // (slots_·B·D doubles + guard), sync words (error flag + arrival counters) and the flag's host
  // copy; descriptor sets [src]: (A, z[src], z[1−src], partials, sync, history), remade by
  // Reserve() whenever a buffer is.
  std::optional<SmInfo> sm_info_;
  BatchedKernel kernel_ = BatchedKernel::kTiled;  // of the current / last Run()
  // Pipelines by shape (kept: the descriptor sets of one serve all, same layout); the current.
  std::vector<std::pair<SmallBatchShape, std::unique_ptr<ComputePipeline>>> small_pipes_;
  ComputePipeline* small_pipe_ = nullptr;
  SmallBatchShape small_now_;
  bool small_ready_ = false;
  std::optional<DeviceBuffer> small_partials_;
  std::optional<DeviceBuffer> history_;
  std::optional<DeviceBuffer> sync_;
  std::optional<HostVisibleBuffer> sync_host_;
  std::array<VkDescriptorSet, 2> small_sets_{};
  int64_t small_capacity_ = 0;  // rows the partials and history were made for
  uint64_t small_planes_ = 0;   // doubles per state entry in small_partials_ (PersistentPlanes)
  int64_t history_slots_ = 0;
  uint32_t small_max_groups_ = 0;  // resident workgroups (before clamping to the units)
  uint32_t small_default_cols_ = 0;  // C where neither the options nor a table row set it
  uint32_t small_max_wg_ = 0;  // the device's workgroup size limit
  std::vector<SmallBatchRule> small_rules_;  // the table in use (may be empty)
  int64_t small_steps_per_dispatch_ = 0;
  int64_t guards_batch_ = 0;  // B whose guard words the state buffers hold (0: none written)
  mutable std::optional<HostVisibleBuffer> guard_host_;  // CheckGuardWords' readback
  std::string small_unavailable_;  // why kSmallBatch cannot run at all here ("" when it can)
  // kColumnSlice: pipelines by shape, the current one's shape, and the per-D settings.
  std::vector<std::pair<ColumnSliceShape, std::unique_ptr<ComputePipeline>>> cs_pipes_;
  ColumnSliceShape cs_now_;
  uint32_t cs_groups_ = 0;
  uint32_t cs_cols_ = 0;
  uint32_t cs_slices_ = 0;
  bool cs_resident_ = false;
  std::string cs_unavailable_;  // why kColumnSlice cannot run at all here ("" when it can)
  // kTiledPersistent: the pipeline, the most workgroups (before clamping to the tiles) and why it
  // cannot run at all here ("" when it can).
  std::unique_ptr<ComputePipeline> tp_pipe_;
  uint32_t tp_max_groups_ = 0;
  std::string tp_unavailable_;
  int64_t dispatches_ = 0;
};

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_BATCHED_VULKAN_BATCHED_ROLLOUT_H_
