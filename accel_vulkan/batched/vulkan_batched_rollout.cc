#include "accel_vulkan/batched/vulkan_batched_rollout.h"

#include <algorithm>
#include <chrono>
#include <functional>
#include <string>
#include <utility>

#include "accel_vulkan/guard_words.h"
#include "accel_vulkan/rollout/rollout_driver.h"
#include "core_ref/rollout/vecmat.h"
#include "shaders/batched/batched_columns.h"
#include "shaders/batched/batched_persistent.h"
#include "shaders/batched/batched_persistent_params.h"
#include "shaders/batched/batched_rollout.h"
#include "shaders/batched/batched_rollout_params.h"
#include "shaders/batched/batched_tiled_persistent.h"

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

// The kernels that run many steps per dispatch with a device-wide barrier between them (their
// buffers: the partials / state planes, the sync counters and the history ring; their dispatch
// loop: AdvanceSmallBatch).
bool IsPersistent(BatchedKernel kernel) {
  return kernel == BatchedKernel::kSmallBatch || kernel == BatchedKernel::kColumnSlice ||
         kernel == BatchedKernel::kTiledPersistent;
}

// Doubles per state entry in the persistent kernels' buffer (binding 3): the small-batch
// kernel's chunk partials (2·m) and one state plane (the per-chunk counters' second state); the
// column-slice and tiled persistent kernels' two state planes (batched_columns.comp,
// batched_tiled_persistent.comp).
uint64_t PersistentPlanes(BatchedKernel kernel, int64_t chunks) {
  return kernel == BatchedKernel::kSmallBatch ? 2 * static_cast<uint64_t>(chunks) + 1 : 2;
}

// The options every persistent kernel reads; `kernel` names it in the error.
Status ValidatePersistentOptions(const VulkanBatchedRolloutOptions& options, const char* kernel) {
  if (options.small_batch_spin_limit == 0 || options.small_batch_max_steps_per_dispatch < 0) {
    return InvalidArgumentError(std::string("batched rollout (") + kernel +
                                "): small_batch_spin_limit must be >= 1 and "
                                "small_batch_max_steps_per_dispatch >= 0 (0 = automatic)");
  }
  return OkStatus();
}

// The small-batch kernel's shared memory for P rows per pass: P rows of 64 doubles plus the flag.
bool SmallBatchPassFits(uint64_t pass_rows, const VkPhysicalDeviceLimits& lim) {
  return pass_rows * 64 * sizeof(double) + sizeof(uint32_t) <= lim.maxComputeSharedMemorySize;
}

// The small-batch kernel rebuilds the state in registers from at most this many chunk partials
// (its kMaxChunks): D ≤ 2048.
constexpr int64_t kSmallBatchMaxChunks = 32;
// Its smallest workgroup: the single-trajectory persistent kernel's (lavapipe gave wrong states
// with workgroups of ≤ 8 invocations there; accel_vulkan/rollout/vulkan_rollout.cc).
constexpr uint64_t kSmallBatchMinWorkgroup = 16;
// Rows per pass at most (shared memory 512 bytes a row).
constexpr uint64_t kSmallBatchMaxPassRows = 64;
// Invocations per unit the automatic row groups aim at (C·R ≤ this): with A in registers each
// invocation holds 64 doubles, so 256 invocations use half an SM's register file.
constexpr uint64_t kSmallBatchAutoInvocations = 256;
// Steps per dispatch where the SM count is reported (elsewhere 1: AdvanceSmallBatch).
constexpr int64_t kSmallBatchStepsPerDispatch = 4096;
// Arrival counters: one per dispatch until the host zeroes them again.
constexpr uint32_t kSyncCounters = 1024;
// After them, the per-chunk counters of small_batch_rebuild_once = 4 and the per-half ones of 5
// (the first two of the region; batched_persistent.comp
// kLocalBase = 1 + kSyncCounters): 2 × 32 chunks, 32 uints (128 bytes) apart; zeroed before every
// dispatch that uses them.
constexpr uint32_t kLocalCounters = 2 * 32 * 32;

// The column-slice kernel (batched_columns.comp): the invocations per row group Wc·m of the
// automatic Wc without an SM count (each holds 64 doubles of A: 256 invocations use half an SM's
// registers), the invocations the automatic row groups aim at while a row group is smaller than
// kColumnSliceOneRowGroupPairs (from there one row group of four interleaved rows: at D = 1024,
// 128 invocations per row group, R = 2 took 47.4 µs a step at B = 16 against 25.9 with R = 1 on an
// H200, docs/PERF.md), its doubles per staged chunk (64 + 1 of padding) and its prefetch
// registers (kMaxLoads).
constexpr uint64_t kColumnSliceAutoPairs = 256;
constexpr uint64_t kColumnSliceAutoInvocations = 256;
constexpr uint64_t kColumnSliceOneRowGroupPairs = 128;
constexpr uint64_t kColumnSlicePad = 65;
constexpr uint64_t kColumnSliceMaxLoads = 32;
// The smallest workgroup (lavapipe: see kSmallBatchMinWorkgroup); extra invocations idle.
constexpr uint64_t kColumnSliceMinWorkgroup = 32;

// Shared memory of the column-slice kernel for P rows per pass: P rows of m padded chunks, P·m·Wc
// chunk partials and the flag.
uint64_t ColumnSliceSharedBytes(uint64_t pass_rows, uint64_t chunks, uint64_t cols,
                                bool a_in_shared) {
  return (pass_rows * chunks * (kColumnSlicePad + cols) +
          (a_in_shared ? cols * chunks * kColumnSlicePad : 1)) *
             sizeof(double) +
         sizeof(uint32_t);
}

// The measured table (docs/PERF.md, "Mid batches: columns per unit chosen per batch"; an H200,
// 132 SMs, 2026-11-26): first row first. At D = 512 32 columns per unit (128 units of A in
// registers instead of 64) with each entry rebuilt once from 17 rows (16: 7.6 µs with C 64,
// 8.2 with C 32; 20: 9.9 against 7.9), and 4 loads in flight from 32 rows (8.7 against 8.9 µs
// at B = 32, 12.6 against 13.5 at 64; 0.2–0.4 µs slower at B = 20, 24). At D = 1024 each entry
// rebuilt once from 8 rows (8.1 against 9.0 µs plain at B = 8), spread over the workgroups up to
// 16 rows (7.9 against 8.1 at B = 8), 4 loads in flight from 48 rows (28.9 against 31.3 µs at
// B = 64, 0.9 µs slower at 32; the boundary between is not measured). Rebuilt once with the
// set-up C elsewhere in D ∈ [512, 1024] from 16 rows; the plain kernel up to 16 rows anywhere A
// stays in registers. Beyond the table (B > 64, or B > 16 outside D ∈ [512, 1024]) kAuto takes
// the tiled kernel. The staged state loaded as dvec2 pairs in every rebuilt-once row
// (docs/PERF.md, "Mid batches: the staged state loaded as pairs"): 3–13 % faster at each of
// D = 512, B = 16, 24, 32, 64 and D = 1024, B = 8, 16, 32, 64 (8.32 against 8.61 µs at 512 / 32,
// 10.18 against 10.87 at 1024 / 16); not measured in the plain row (B ≤ 16 elsewhere). The
// rebuild's and the new state's loads as pairs too (docs/PERF.md, "Mid batches: the rebuild's
// and the new state's loads as pairs") in the rows of D = 512, C = 32 and D = 1024, B ≥ 17:
// 7.76 against 8.34–8.38 µs at 512 / 32, 10.09 against 11.60 at 512 / 64, 15.02 against 15.57
// at 1024 / 32, 24.07 against 25.03 at 1024 / 64, even at 512 / 24 (7.88 against 7.90); not in
// the rows of 512 / 16 (7.49 against 7.30–7.34) and 1024 / 8–16 (7.76 against 7.64 at B = 8,
// 10.11 against 10.20 at 16). Per-chunk counters (small_batch_rebuild_once = 4) at D = 1024,
// B 8–32 (docs/PERF.md, "Mid batches: where the step's time goes, per-chunk counters and
// halves"): 7.41 against 7.62 µs at B = 8, 9.77 against 10.16 at 16, 12.80 against 13.30–13.36
// at 24, 14.86 against 14.98–15.33 at 32; not at 48 (20.21 against 19.88–20.12), 64 (24.88
// against 24.02–24.12) or D = 512 (8.28 against 7.82 at B = 32, 11.20 against 10.01 at 64).
// kAuto takes the tiled kernel at D = 512 from 33 rows (docs/PERF.md, "Large batches, part 7":
// 16 × 16 in eight K groups, 9.07 against 9.74 µs at B = 48, 9.21 against 10.13 at 64; the
// small-batch kernel stays at 32: 7.80 against 8.86), at D = 1024 from 57 rows ("Large
// batches, part 10": 16 × 16 in four K groups, 21.7 µs at B = 50 … 64 against the small-batch
// kernel's 21.6–21.9 at B = 50 … 56, 23.7 at 60, 24.3 at 64) and at 25 … 32 rows ("Large
// batches, part 14", an H100: 16 × 16 in eight K groups, 14.13–14.23 µs at B = 25 … 28 and
// 14.16 at 32 against the small-batch kernel's 15.04–15.24 and 15.44; at 24 13.24 against
// 14.12), and at D = 705 … 896 for B = 32 and 48 … 64 (the same part: the 16 × 16 tiles with
// idle copies, 13.65 against 16.22 µs at D = 768, B = 32, 20.25–20.51 against 20.87–27.06 at
// B = 48 … 64; the small-batch kernel wins at B = 24 and 40), and at D = 897 … 1023 for
// B = 25 … 32 and 48 … 64 ("Large batches, part 15", an H200: at D = 960 / 1000 the 16 × 16 tile
// in eight K groups 13.99–14.08 / 14.33–14.40 µs at B = 25 … 32 against the small-batch kernel's
// 14.28–15.20 / 14.63–15.42, in four 21.41–21.50 / 21.85–21.96 at B = 56 … 64 against
// 24.04–26.51 / 24.67–27.40; at B = 24 12.62 / 12.69 against 14.02 / 14.40. The crossing, an H200
// at D = 897 / 960 / 1000 / 1023: within ±1.1 % at B = 46 and 48, the tiled kernel 7.1–10.7 %
// faster from 50; an H100 at D = 960 / 1000: the small-batch kernel faster at 40, the tiled
// kernel 5.4–6.6 % faster at 48 and 14.3–15.4 % at 55; the small-batch kernel stays at 33 … 47,
// where the H200 had it 1.1–1.4 % faster at 44. "Large batches, part 16", both GPUs at
// D = 897 / 960 / 1023: from 48 the H200 within 0.6 % and the H100 5.3–6.9 % faster with the
// tiled kernel, both 6.8–13.9 % from 50; at 44 the H100 3.8–5.2 % faster with the tiled kernel,
// the H200 1.3–2.5 % with the small-batch one); those rows keep the forced kernel's settings.
constexpr SmallBatchRule kDefaultSmallBatchRules[] = {
    {.min_dim = 512, .max_dim = 512, .min_rows = 32, .max_rows = 32, .columns = 32,
     .row_groups = 8, .rebuild_once = true, .rebuild_unroll = 4, .pair_loads = true,
     .pair_state_loads = true},
    {.min_dim = 512, .max_dim = 512, .min_rows = 33, .max_rows = 64, .columns = 32,
     .row_groups = 8, .rebuild_once = true, .rebuild_unroll = 4, .pair_loads = true,
     .pair_state_loads = true, .automatic = false},
    // The same rows where C 32 would lose A in registers (fewer resident workgroups): the
    // settings of the row for D ∈ [512, 1024] below, still not automatic.
    {.min_dim = 512, .max_dim = 512, .min_rows = 33, .max_rows = 64, .rebuild_once = true,
     .pair_loads = true, .automatic = false},
    {.min_dim = 512, .max_dim = 512, .min_rows = 17, .max_rows = 31, .columns = 32,
     .row_groups = 8, .rebuild_once = true, .pair_loads = true, .pair_state_loads = true},
    {.min_dim = 1024, .max_dim = 1024, .min_rows = 48, .max_rows = 56, .rebuild_once = true,
     .rebuild_unroll = 4, .pair_loads = true, .pair_state_loads = true},
    {.min_dim = 1024, .max_dim = 1024, .min_rows = 57, .max_rows = 64, .rebuild_once = true,
     .rebuild_unroll = 4, .pair_loads = true, .pair_state_loads = true, .automatic = false},
    {.min_dim = 1024, .max_dim = 1024, .min_rows = 8, .max_rows = 16, .rebuild_once = true,
     .rebuilders = 1, .pair_loads = true, .chunk_counters = true},
    {.min_dim = 1024, .max_dim = 1024, .min_rows = 17, .max_rows = 24, .rebuild_once = true,
     .pair_loads = true, .pair_state_loads = true, .chunk_counters = true},
    {.min_dim = 1024, .max_dim = 1024, .min_rows = 25, .max_rows = 32, .rebuild_once = true,
     .pair_loads = true, .pair_state_loads = true, .chunk_counters = true, .automatic = false},
    {.min_dim = 1024, .max_dim = 1024, .min_rows = 33, .max_rows = 47, .rebuild_once = true,
     .pair_loads = true, .pair_state_loads = true},
    // D = 705 … 896 (m = 12 … 14): the tiled kernel's 16 × 16 K-group tiles with idle copies at
    // B = 32 and 48 … 64 (SuggestBatchedTile); the small-batch kernel at the other B.
    {.min_dim = 705, .max_dim = 896, .min_rows = 32, .max_rows = 32, .rebuild_once = true,
     .pair_loads = true, .automatic = false},
    {.min_dim = 705, .max_dim = 896, .min_rows = 48, .max_rows = 64, .rebuild_once = true,
     .pair_loads = true, .automatic = false},
    // D = 897 … 1023 (m = 15, 16): the tiled kernel's 16 × 16 K-group tiles (every copy busy)
    // at B = 25 … 32 and 48 … 64 (D = 1024 from 57); the small-batch kernel at the other B.
    {.min_dim = 897, .max_dim = 1023, .min_rows = 25, .max_rows = 32, .rebuild_once = true,
     .pair_loads = true, .automatic = false},
    {.min_dim = 897, .max_dim = 1023, .min_rows = 48, .max_rows = 64, .rebuild_once = true,
     .pair_loads = true, .automatic = false},
    {.min_dim = 512, .max_dim = 1024, .min_rows = 16, .max_rows = 64, .rebuild_once = true,
     .pair_loads = true},
    {.min_dim = 1, .max_dim = 2048, .min_rows = 1, .max_rows = 16},
};

}  // namespace

std::span<const SmallBatchRule> DefaultSmallBatchRules() { return kDefaultSmallBatchRules; }

const char* BatchedKernelName(BatchedKernel kernel) {
  switch (kernel) {
    case BatchedKernel::kAuto: return "auto";
    case BatchedKernel::kTiled: return "tiled";
    case BatchedKernel::kSmallBatch: return "small-batch";
    case BatchedKernel::kColumnSlice: return "column-slice";
    case BatchedKernel::kTiledPersistent: return "tiled-persistent";
  }
  return "?";
}

std::string VulkanBatchedRollout::KernelDescription(BatchedKernel kernel) const {
  const auto n = [](uint32_t v) { return std::to_string(v); };
  switch (kernel) {
    case BatchedKernel::kSmallBatch:
      return "small-batch persistent kernel: " + n(small_batch_groups()) + " workgroups of " +
             n(small_batch_workgroup()) + " (C=" + n(small_batch_columns()) +
             " R=" + n(small_batch_row_groups()) + " rows=" + n(small_batch_group_rows()) +
             " P=" + n(small_batch_pass_rows()) + " Q=" + n(small_batch_rebuilders()) +
             " U=" + n(small_batch_rebuild_unroll()) + ")" +
             (small_batch_rebuild_once() ? ", rebuild once" : "") +
             (small_now_.rebuild_once == 3 ? " (per-chunk counters)" : "") +
             (small_now_.rebuild_once == 4 ? " (halves)" : "") +
             (small_now_.probe != 0 ? ", TIMING PROBE " + n(small_now_.probe) + " (wrong states)"
                                    : "") +
             (small_batch_pair_loads() ? ", pair loads" : "") +
             (small_batch_pair_state_loads() ? ", pair state loads" : "") +
             (small_batch_resident_a() ? ", A in registers" : ", A from L2");
    case BatchedKernel::kColumnSlice:
      return "column-slice persistent kernel: " + n(column_slice_groups()) + " workgroups, " +
             n(column_slice_slices()) + " slices of " + n(column_slice_columns()) +
             " columns (R=" + n(column_slice_row_groups()) + " rows=" +
             n(column_slice_group_rows()) + " P=" + n(column_slice_pass_rows()) + ")" +
             (options_.column_slice_a_in_shared ? ", A in shared memory"
              : column_slice_resident_a()       ? ", A in registers"
                                                : ", A from L2") +
             (options_.column_slice_no_prefetch ? ", no prefetch" : "");
    case BatchedKernel::kTiledPersistent:
      return "tiled persistent kernel: " + n(TiledPersistentGroups(batch_)) + " workgroups, " +
             n(TiledPersistentTiles(batch_)) + " tiles " + tile_.ToString();
    case BatchedKernel::kTiled:
    case BatchedKernel::kAuto:
      break;
  }
  return "tiled kernel, tile " + tile_.ToString();
}

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
      pipe_, ComputePipeline::Create(ctx_, {spirv::kBatchedRolloutVariants[variant_], 4,
                                            sizeof(BatchedRolloutPushConstants),
                                            BatchedSpecialization(tile_, chunks_),
                                            kMaxBindingSets}));
  DASHI_ASSIGN_OR_RETURN(batch_cmd_, CommandBatch::Create(ctx_, 4));
  sm_info_ = QuerySmInfo(ctx_);
  DASHI_RETURN_IF_ERROR(InitSmallBatch());
  DASHI_RETURN_IF_ERROR(InitColumnSlice());
  return InitTiledPersistent();
}

Status VulkanBatchedRollout::InitTiledPersistent() {
  const bool forced = options_.kernel == BatchedKernel::kTiledPersistent;
  // kAuto builds it only where TiledPersistentAutomatic can hold: D = 512 with the K-group tile
  // that SuggestBatchedTile gives there, on a device that reports its SM count.
  const bool automatic =
      options_.kernel == BatchedKernel::kAuto && sm_info_.has_value() &&
      TiledPersistentSuits(kTiledPersistentAutoMinRows, dim_, tile_, sm_info_->sm_count);
  if (!forced && !automatic) {
    tp_unavailable_ = std::string("the ") + BatchedKernelName(options_.kernel) +
                      " kernel was requested (the tiled persistent kernel runs when forced, or "
                      "automatically at D = 512 with eight K groups on a GPU)";
    return OkStatus();
  }
  DASHI_RETURN_IF_ERROR(ValidatePersistentOptions(options_, "tiled-persistent"));
  if (BatchedBlocks(chunks_, tile_) > 1 || tile_.tree_in_memory != 0) {
    return InvalidArgumentError(
        "batched rollout (tiled-persistent): the tile " + tile_.ToString() +
        " has K blocks (split " + std::to_string(tile_.split) + " gives " +
        std::to_string(BatchedBlocks(chunks_, tile_)) +
        " blocks) or tree slots in memory; the persistent kernel runs one block, slots in "
        "registers or local memory");
  }
  // The tile's shared memory plus the grid barrier's flag (grid_barrier.glsl).
  if (BatchedSharedBytes(tile_) + sizeof(uint32_t) > limits_.maxComputeSharedMemorySize) {
    return InvalidArgumentError(
        "batched rollout (tiled-persistent): the tile " + tile_.ToString() + " needs " +
        std::to_string(BatchedSharedBytes(tile_) + sizeof(uint32_t)) +
        " bytes of shared memory with the grid barrier's flag; the device allows "
        "maxComputeSharedMemorySize = " + std::to_string(limits_.maxComputeSharedMemorySize));
  }
  uint64_t groups = forced ? options_.small_batch_groups : 0;
  if (groups == 0) groups = sm_info_.has_value() ? sm_info_->sm_count : 1;
  DASHI_RETURN_IF_ERROR(CheckWaitingWorkgroups(
      ctx_, "batched rollout (tiled-persistent)", groups, sm_info_.has_value(),
      options_.small_batch_allow_unverified_groups,
      "Use small_batch_groups = 1 or the tiled kernel"));
  tp_max_groups_ = static_cast<uint32_t>(groups);
  if (small_steps_per_dispatch_ == 0) {
    small_steps_per_dispatch_ = options_.small_batch_max_steps_per_dispatch;
  }
  DASHI_ASSIGN_OR_RETURN(
      tp_pipe_, ComputePipeline::Create(ctx_, {spirv::kBatchedTiledPersistentVariants[variant_], 6,
                                               sizeof(BatchedPersistentPushConstants),
                                               BatchedSpecialization(tile_, chunks_),
                                               kMaxBindingSets}));
  return EnsureSync();
}

uint32_t VulkanBatchedRollout::TiledPersistentTiles(int64_t batch) const {
  return CeilDiv(std::max<int64_t>(batch, 1), tile_.rows()) * CeilDiv(dim_, tile_.cols());
}

uint32_t VulkanBatchedRollout::TiledPersistentGroups(int64_t batch) const {
  return std::min(tp_max_groups_, TiledPersistentTiles(batch));
}

Status VulkanBatchedRollout::TiledPersistentFits(int64_t batch) const {
  if (!tp_unavailable_.empty() || tp_pipe_ == nullptr) {
    return UnimplementedError("batched rollout (tiled-persistent): " +
                              (tp_unavailable_.empty() ? std::string("not built")
                                                       : tp_unavailable_));
  }
  DASHI_RETURN_IF_ERROR(CheckBatchedLimits(batch, dim_, tile_, kGuardBytes, limits_));
  return PersistentBuffersFit(batch, BatchedKernel::kTiledPersistent);
}

Status VulkanBatchedRollout::EnsureSync() {
  if (sync_.has_value()) return OkStatus();
  DASHI_ASSIGN_OR_RETURN(DeviceBuffer sync,
                         DeviceBuffer::Create(ctx_, (1 + kSyncCounters + kLocalCounters) *
                                                               sizeof(uint32_t)));
  DASHI_RETURN_IF_ERROR(sync.Fill(ctx_, 0));
  DASHI_ASSIGN_OR_RETURN(HostVisibleBuffer sync_host,
                         HostVisibleBuffer::Create(ctx_, sizeof(uint32_t)));
  sync_.emplace(std::move(sync));
  sync_host_.emplace(std::move(sync_host));
  return OkStatus();
}

Status VulkanBatchedRollout::InitColumnSlice() {
  const VkPhysicalDeviceLimits& lim = limits_;
  if (options_.kernel != BatchedKernel::kColumnSlice) {
    // kAuto never picks it (docs/PERF.md): resolved only when requested.
    cs_unavailable_ = std::string("the ") + BatchedKernelName(options_.kernel) +
                      " kernel was requested (the column-slice kernel runs only when forced)";
    return OkStatus();
  }
  if (chunks_ > kSmallBatchMaxChunks) {
    cs_unavailable_ = "D = " + std::to_string(dim_) + " has " + std::to_string(chunks_) +
                      " chunks of 64 rows; the column-slice kernel folds at most " +
                      std::to_string(kSmallBatchMaxChunks) + " (D <= 2048)";
    return OkStatus();
  }
  DASHI_RETURN_IF_ERROR(ValidatePersistentOptions(options_, "column-slice"));
  const uint64_t m = static_cast<uint64_t>(chunks_);
  const uint64_t d = static_cast<uint64_t>(dim_);
  const uint64_t max_wg =
      std::min(lim.maxComputeWorkGroupSize[0], lim.maxComputeWorkGroupInvocations);
  uint64_t groups = options_.small_batch_groups;
  if (groups == 0) groups = sm_info_.has_value() ? sm_info_->sm_count : 1;
  uint64_t cols = options_.column_slice_columns;
  if (cols == 0) {
    cols = sm_info_.has_value() ? CeilDiv(dim_, sm_info_->sm_count)
                                : std::max<uint64_t>(1, kColumnSliceAutoPairs / m);
    cols = std::min(cols, d);
  }
  if (cols < 1 || cols > d || cols * m > max_wg) {
    return InvalidArgumentError("batched rollout (column-slice): " + std::to_string(cols) +
                                " columns per slice x " + std::to_string(m) +
                                " chunks is not within [1, D] columns and " +
                                std::to_string(max_wg) + " invocations");
  }
  const uint32_t group_rows = options_.column_slice_group_rows;
  if (group_rows != 0 && group_rows != 1 && group_rows != 2 && group_rows != 4) {
    return InvalidArgumentError("batched rollout (column-slice): column_slice_group_rows " +
                                std::to_string(group_rows) + " is not 0, 1, 2 or 4");
  }
  const uint64_t slices = CeilDiv(dim_, static_cast<int64_t>(cols));
  groups = std::min<uint64_t>(groups, slices);
  DASHI_RETURN_IF_ERROR(CheckWaitingWorkgroups(
      ctx_, "batched rollout (column-slice)", groups, sm_info_.has_value(),
      options_.small_batch_allow_unverified_groups,
      "Use small_batch_groups = 1 or the tiled kernel"));
  cs_groups_ = static_cast<uint32_t>(groups);
  cs_cols_ = static_cast<uint32_t>(cols);
  cs_slices_ = static_cast<uint32_t>(slices);
  cs_resident_ = slices <= groups && !options_.column_slice_a_in_memory;
  if (options_.column_slice_a_in_shared && !cs_resident_) {
    return InvalidArgumentError(
        "batched rollout (column-slice): column_slice_a_in_shared needs one slice per workgroup "
        "(" + std::to_string(slices) + " slices, " + std::to_string(groups) + " workgroups)");
  }
  if (small_max_wg_ == 0) small_max_wg_ = static_cast<uint32_t>(max_wg);
  if (small_steps_per_dispatch_ == 0) {
    small_steps_per_dispatch_ = options_.small_batch_max_steps_per_dispatch;
  }
  DASHI_ASSIGN_OR_RETURN(cs_now_, ColumnSliceShapeFor(1));
  return EnsureSync();
}

StatusOr<VulkanBatchedRollout::ColumnSliceShape> VulkanBatchedRollout::ColumnSliceShapeFor(
    int64_t batch) const {
  const uint64_t b = static_cast<uint64_t>(std::max<int64_t>(batch, 1));
  const uint64_t m = static_cast<uint64_t>(chunks_);
  const uint64_t pairs = static_cast<uint64_t>(cs_cols_) * m;
  const uint64_t max_wg = small_max_wg_;
  auto workgroup = [&](uint64_t r) { return std::max(pairs * r, kColumnSliceMinWorkgroup); };
  // The most rows per pass for R row groups: shared memory and the prefetch registers.
  auto max_pass = [&](uint64_t r) {
    const uint64_t loads = (64 * m + workgroup(r) - 1) / workgroup(r);
    uint64_t p = kColumnSliceMaxLoads / loads;
    while (p > 0 && ColumnSliceSharedBytes(p, m, cs_cols_, options_.column_slice_a_in_shared) >
                        limits_.maxComputeSharedMemorySize) {
      --p;
    }
    return p;
  };
  uint64_t r = options_.column_slice_row_groups;
  if (r == 0) {
    r = pairs >= kColumnSliceOneRowGroupPairs
            ? 1
            : std::max<uint64_t>(1, kColumnSliceAutoInvocations / pairs);
    r = std::min(r, b);
    while (r > 1 && (workgroup(r) > max_wg || r > max_pass(r))) --r;
  }
  const uint64_t pmax = max_pass(r);
  if (workgroup(r) > max_wg || pmax == 0) {
    return InvalidArgumentError(
        "batched rollout (column-slice): " + std::to_string(r) + " row groups of " +
        std::to_string(pairs) + " invocations exceed the workgroup limit " +
        std::to_string(max_wg) + ", or one row of " + std::to_string(m) +
        " padded chunks does not fit maxComputeSharedMemorySize = " +
        std::to_string(limits_.maxComputeSharedMemorySize));
  }
  uint64_t g = options_.column_slice_group_rows;
  if (g == 0) {
    g = 4;
    while (g > 1 && (r * g > pmax || g > (b + r - 1) / r)) g /= 2;
  }
  uint64_t p = options_.column_slice_pass_rows;
  if (p == 0) {
    const uint64_t unit = r * g;
    p = unit <= pmax ? pmax / unit * unit : pmax / g * g;
    p = std::min(p, (b + unit - 1) / unit * unit);
    p = std::max(p, g);
  }
  if (p == 0 || p % g != 0 || p > pmax) {
    return InvalidArgumentError("batched rollout (column-slice): " + std::to_string(p) +
                                " rows per pass is not a multiple of " + std::to_string(g) +
                                " interleaved rows within " + std::to_string(pmax) +
                                " (shared memory and prefetch registers)");
  }
  ColumnSliceShape shape;
  shape.row_groups = static_cast<uint32_t>(r);
  shape.group_rows = static_cast<uint32_t>(g);
  shape.pass_rows = static_cast<uint32_t>(p);
  return shape;
}

Status VulkanBatchedRollout::SelectColumnSlicePipeline(int64_t batch) {
  DASHI_ASSIGN_OR_RETURN(const ColumnSliceShape shape, ColumnSliceShapeFor(batch));
  for (const auto& [s, pipe] : cs_pipes_) {
    if (s == shape) {
      small_pipe_ = pipe.get();
      cs_now_ = shape;
      return OkStatus();
    }
  }
  const uint64_t m = static_cast<uint64_t>(chunks_);
  const uint64_t wg = std::max<uint64_t>(cs_cols_ * m * shape.row_groups,
                                         kColumnSliceMinWorkgroup);
  const uint32_t row_loads = static_cast<uint32_t>((64 * m + wg - 1) / wg);
  DASHI_ASSIGN_OR_RETURN(
      std::unique_ptr<ComputePipeline> pipe,
      ComputePipeline::Create(ctx_, {spirv::kBatchedColumnsVariants[variant_], 6,
                                     sizeof(BatchedPersistentPushConstants),
                                     {static_cast<uint32_t>(wg), shape.pass_rows,
                                      static_cast<uint32_t>(chunks_), cs_resident_ ? 1u : 0u,
                                      shape.row_groups, shape.group_rows, cs_cols_, row_loads,
                                      options_.column_slice_a_in_shared ? 1u : 0u,
                                      options_.column_slice_no_prefetch ? 0u : 1u,
                                      options_.column_slice_a_in_shared
                                          ? static_cast<uint32_t>(cs_cols_ * m * kColumnSlicePad)
                                          : 1u},
                                     kMaxBindingSets}));
  small_pipe_ = pipe.get();
  cs_now_ = shape;
  cs_pipes_.emplace_back(shape, std::move(pipe));
  return OkStatus();
}

Status VulkanBatchedRollout::ColumnSliceFits(int64_t batch) const {
  if (!cs_unavailable_.empty() || cs_cols_ == 0) {
    return UnimplementedError("batched rollout (column-slice): " +
                              (cs_unavailable_.empty() ? std::string("not built")
                                                       : cs_unavailable_));
  }
  DASHI_RETURN_IF_ERROR(PersistentBuffersFit(batch, BatchedKernel::kColumnSlice));
  return ColumnSliceShapeFor(batch).status();
}

Status VulkanBatchedRollout::InitSmallBatch() {
  const VkPhysicalDeviceLimits& lim = limits_;
  if (options_.kernel == BatchedKernel::kTiled || options_.kernel == BatchedKernel::kColumnSlice ||
      options_.kernel == BatchedKernel::kTiledPersistent) {
    small_unavailable_ = std::string("the ") + BatchedKernelName(options_.kernel) +
                         " kernel was requested";
    return OkStatus();
  }
  if (chunks_ > kSmallBatchMaxChunks) {
    small_unavailable_ = "D = " + std::to_string(dim_) + " has " + std::to_string(chunks_) +
                         " chunks of 64 rows; the small-batch kernel rebuilds the state from at "
                         "most " + std::to_string(kSmallBatchMaxChunks) + " (D <= 2048)";
    return OkStatus();
  }
  if (options_.kernel == BatchedKernel::kAuto && !sm_info_.has_value()) {
    small_unavailable_ = "device '" + ctx_.info().name +
                         "' does not report its SM count (VK_NV_shader_sm_builtins)";
    return OkStatus();
  }
  DASHI_RETURN_IF_ERROR(ValidatePersistentOptions(options_, "small-batch"));
  uint64_t groups = options_.small_batch_groups;
  if (groups == 0) groups = sm_info_.has_value() ? sm_info_->sm_count : 1;
  const uint64_t m = static_cast<uint64_t>(chunks_);
  const uint64_t max_wg =
      std::min(lim.maxComputeWorkGroupSize[0], lim.maxComputeWorkGroupInvocations);
  uint64_t cols = options_.small_batch_workgroup;
  if (cols == 0) {
    // 64-column tiles while their units fit in the resident workgroups (more SMs busy), else 128.
    // One workgroup (lavapipe): 256, the fewest barrier() calls per step (see AdvanceSmallBatch).
    // A small_batch_rules row may set another C per B (SmallBatchShapeFor).
    cols = groups == 1 ? 256 : m * CeilDiv(dim_, 64) <= groups ? 64 : 128;
    cols = std::min(cols, max_wg);
  }
  const uint64_t row_groups = options_.small_batch_row_groups;
  if (cols < kSmallBatchMinWorkgroup || cols * std::max<uint64_t>(row_groups, 1) > max_wg) {
    return InvalidArgumentError("batched rollout (small-batch): workgroup size " +
                                std::to_string(cols) + " x " +
                                std::to_string(std::max<uint64_t>(row_groups, 1)) +
                                " row groups is outside [" +
                                std::to_string(kSmallBatchMinWorkgroup) + ", " +
                                std::to_string(max_wg) + "]");
  }
  const uint32_t group_rows = options_.small_batch_group_rows;
  if (group_rows != 0 && group_rows != 1 && group_rows != 2 && group_rows != 4) {
    return InvalidArgumentError("batched rollout (small-batch): small_batch_group_rows " +
                                std::to_string(group_rows) + " is not 0, 1, 2 or 4");
  }
  if (options_.small_batch_rebuild_once > 5) {
    return InvalidArgumentError("batched rollout (small-batch): small_batch_rebuild_once " +
                                std::to_string(options_.small_batch_rebuild_once) +
                                " is not 0 (automatic), 1 (off), 2 (on), 3 (on, plain barriers), "
                                "4 (on, per-chunk counters) or 5 (on, in two halves)");
  }
  if (options_.small_batch_timing_probe > 15 ||
      (options_.small_batch_timing_probe != 0 && options_.small_batch_rebuild_once != 2)) {
    return InvalidArgumentError("batched rollout (small-batch): small_batch_timing_probe " +
                                std::to_string(options_.small_batch_timing_probe) +
                                " (a benchmark's timing probe, wrong states) is not 0, or not "
                                "1..15 with small_batch_rebuild_once = 2");
  }
  if (options_.small_batch_pair_loads > 2) {
    return InvalidArgumentError("batched rollout (small-batch): small_batch_pair_loads " +
                                std::to_string(options_.small_batch_pair_loads) +
                                " is not 0 (automatic), 1 (off) or 2 (on)");
  }
  if (options_.small_batch_pair_state_loads > 2) {
    return InvalidArgumentError("batched rollout (small-batch): small_batch_pair_state_loads " +
                                std::to_string(options_.small_batch_pair_state_loads) +
                                " is not 0 (automatic), 1 (off) or 2 (on)");
  }
  if (options_.small_batch_rebuild_unroll > 4) {
    return InvalidArgumentError("batched rollout (small-batch): small_batch_rebuild_unroll " +
                                std::to_string(options_.small_batch_rebuild_unroll) +
                                " is not 0 (automatic) or 1..4");
  }
  // The per-(D, B) table: the options' (any device) or the measured one (SM count reported).
  if (options_.small_batch_rules.has_value()) {
    small_rules_ = *options_.small_batch_rules;
  } else if (sm_info_.has_value()) {
    small_rules_.assign(std::begin(kDefaultSmallBatchRules), std::end(kDefaultSmallBatchRules));
  }
  for (size_t k = 0; k < small_rules_.size(); ++k) {
    const SmallBatchRule& rule = small_rules_[k];
    if (rule.min_dim > rule.max_dim || rule.min_rows > rule.max_rows ||
        (rule.columns != 0 && rule.columns < kSmallBatchMinWorkgroup) ||
        static_cast<uint64_t>(std::max<uint32_t>(rule.columns, 1)) *
                std::max<uint32_t>(rule.row_groups, 1) > max_wg ||
        rule.rebuild_unroll > 4) {
      return InvalidArgumentError(
          "batched rollout (small-batch): small_batch_rules row " + std::to_string(k) +
          " is not valid (min <= max, columns 0 or >= " +
          std::to_string(kSmallBatchMinWorkgroup) + ", columns x row groups <= " +
          std::to_string(max_wg) + ", rebuild unroll <= 4)");
    }
  }
  const uint64_t tiles = CeilDiv(dim_, static_cast<int64_t>(cols));
  DASHI_RETURN_IF_ERROR(CheckWaitingWorkgroups(
      ctx_, "batched rollout (small-batch)", std::min<uint64_t>(groups, m * tiles),
      sm_info_.has_value(), options_.small_batch_allow_unverified_groups,
      "Use small_batch_groups = 1 or the tiled kernel"));
  const uint64_t pass_rows = options_.small_batch_pass_rows;
  if (pass_rows != 0 &&
      (pass_rows % 4 != 0 || pass_rows > 1024 || !SmallBatchPassFits(pass_rows, lim))) {
    return InvalidArgumentError("batched rollout (small-batch): small_batch_pass_rows " +
                                std::to_string(pass_rows) +
                                " is not a multiple of 4 whose 512·P bytes fit "
                                "maxComputeSharedMemorySize = " +
                                std::to_string(lim.maxComputeSharedMemorySize));
  }
  small_max_groups_ = static_cast<uint32_t>(groups);
  small_default_cols_ = static_cast<uint32_t>(cols);
  small_max_wg_ = static_cast<uint32_t>(max_wg);
  small_steps_per_dispatch_ = options_.small_batch_max_steps_per_dispatch;
  small_now_ = SmallBatchShapeFor(1);
  DASHI_RETURN_IF_ERROR(EnsureSync());
  small_ready_ = true;
  return OkStatus();
}

const SmallBatchRule* VulkanBatchedRollout::SmallBatchRuleFor(int64_t batch) const {
  const uint64_t m = static_cast<uint64_t>(chunks_);
  for (const SmallBatchRule& rule : small_rules_) {
    if (dim_ < rule.min_dim || dim_ > rule.max_dim || batch < rule.min_rows ||
        batch > rule.max_rows) {
      continue;
    }
    // A row's own C applies where the options leave C automatic, and not where it would lose
    // the A in registers that the set-up C keeps (more units than resident workgroups).
    const uint64_t default_units = m * CeilDiv(dim_, small_default_cols_);
    if (rule.columns != 0 && options_.small_batch_workgroup == 0 &&
        default_units <= small_max_groups_ &&
        m * CeilDiv(dim_, rule.columns) > small_max_groups_) {
      continue;
    }
    return &rule;
  }
  return nullptr;
}

VulkanBatchedRollout::SmallBatchShape VulkanBatchedRollout::SmallBatchShapeFor(
    int64_t batch) const {
  const uint64_t b = static_cast<uint64_t>(std::max<int64_t>(batch, 1));
  const uint64_t m = static_cast<uint64_t>(chunks_);
  SmallBatchShape shape;
  // Columns per unit: the options', else the winning table row's, else the set-up default; the
  // tiles, workgroups and residency of A follow from it.
  const SmallBatchRule* rule = SmallBatchRuleFor(batch);
  const bool rule_cols = options_.small_batch_workgroup == 0 && rule != nullptr &&
                         rule->columns != 0;
  shape.cols = rule_cols ? rule->columns : small_default_cols_;
  shape.tiles = CeilDiv(dim_, shape.cols);
  shape.groups = static_cast<uint32_t>(std::min<uint64_t>(small_max_groups_, m * shape.tiles));
  shape.resident = m * shape.tiles <= shape.groups;
  // The row's R where its C is the one in use (or it leaves C to the set-up).
  const bool rule_r = rule != nullptr && rule->row_groups != 0 &&
                      (rule->columns == 0 || rule->columns == shape.cols) &&
                      static_cast<uint64_t>(shape.cols) * rule->row_groups <= small_max_wg_;
  // Automatic row groups and rows per invocation (docs/PERF.md, "Small and mid batches"): with A
  // in registers one row group per row up to 256 / C (B = 3 at C = 64: one row per invocation),
  // then 2 or 4 interleaved rows; with A read per step (D = 2048, or one workgroup) four
  // interleaved rows per invocation and a row group per four rows up to 256 / C (one row per
  // invocation was slower there: 63.8 vs 34.9 µs at B = 1, D = 2048).
  const uint64_t max_r = std::max<uint64_t>(1, kSmallBatchAutoInvocations / shape.cols);
  uint64_t r = options_.small_batch_row_groups;
  if (r == 0 && rule_r) {
    r = std::min<uint64_t>(rule->row_groups, b);
  } else if (r == 0) {
    r = shape.groups <= 1 ? 1
        : shape.resident  ? std::min<uint64_t>(b, max_r)
                          : std::min<uint64_t>((b + 3) / 4, max_r);
    while (r > 1 && shape.cols * r > small_max_wg_) --r;
  }
  shape.row_groups = static_cast<uint32_t>(r);
  uint64_t g = options_.small_batch_group_rows;
  if (g == 0) {
    const uint64_t per_group = (b + r - 1) / r;
    g = !shape.resident || per_group > 2 ? 4 : per_group;
  }
  shape.group_rows = static_cast<uint32_t>(g);
  uint64_t p = options_.small_batch_pass_rows;
  if (p == 0) {
    // Every row in one pass where it fits (the merged wait), else the most rows that fit.
    p = std::min<uint64_t>((b + 3) / 4 * 4, kSmallBatchMaxPassRows);
    while (p > 4 && !SmallBatchPassFits(p, limits_)) p -= 4;
  }
  shape.pass_rows = static_cast<uint32_t>(p);
  // Rebuild once: only with the merged wait (A in registers, every row in one pass).
  const bool merged = shape.resident && b <= p;
  const uint32_t once = options_.small_batch_rebuild_once;
  const bool auto_once = once == 0 && rule != nullptr && rule->rebuild_once;
  shape.rebuild_once = !merged                      ? 0u
                       : auto_once                  ? (rule->chunk_counters ? 3u : 1u)
                       : once == 2                  ? 1u
                       : once == 3                  ? 2u
                       : once == 4                  ? 3u
                       : once == 5                  ? 4u
                                                    : 0u;
  shape.probe = shape.rebuild_once == 1 ? options_.small_batch_timing_probe : 0u;
  // Q and U: the options', else (a row's are for its rebuild once) the row's where the entries
  // are rebuilt once as it asks.
  const bool rule_qu = rule != nullptr && rule->rebuild_once && shape.rebuild_once != 0;
  shape.rebuilders = options_.small_batch_rebuilders;
  if (shape.rebuilders == 0 && rule_qu) shape.rebuilders = rule->rebuilders;
  shape.rebuild_unroll = options_.small_batch_rebuild_unroll;
  if (shape.rebuild_unroll == 0 && rule_qu) shape.rebuild_unroll = rule->rebuild_unroll;
  if (shape.rebuild_unroll == 0) shape.rebuild_unroll = 1;
  // Pair loads: the options', else the winning row's (any path: the inner loop is shared).
  const uint32_t pairs = options_.small_batch_pair_loads;
  shape.pair_loads = pairs == 2 || (pairs == 0 && rule != nullptr && rule->pair_loads);
  // Pair state loads: the options', else the row's; only rebuilt once with D even.
  const uint32_t state_pairs = options_.small_batch_pair_state_loads;
  shape.pair_state_loads =
      shape.rebuild_once != 0 && dim_ % 2 == 0 &&
      (state_pairs == 2 || (state_pairs == 0 && rule != nullptr && rule->pair_state_loads));
  return shape;
}

Status VulkanBatchedRollout::SelectSmallBatchPipeline(int64_t batch) {
  const SmallBatchShape shape = SmallBatchShapeFor(batch);
  // A table row's C may give more units (and workgroups) than the set-up default.
  DASHI_RETURN_IF_ERROR(CheckWaitingWorkgroups(
      ctx_, "batched rollout (small-batch)", shape.groups, sm_info_.has_value(),
      options_.small_batch_allow_unverified_groups,
      "Use small_batch_groups = 1 or the tiled kernel"));
  for (const auto& [s, pipe] : small_pipes_) {
    if (s == shape) {
      small_pipe_ = pipe.get();
      small_now_ = shape;
      return OkStatus();
    }
  }
  DASHI_ASSIGN_OR_RETURN(
      std::unique_ptr<ComputePipeline> pipe,
      ComputePipeline::Create(ctx_, {spirv::kBatchedPersistentVariants[variant_], 6,
                                     sizeof(BatchedPersistentPushConstants),
                                     {shape.cols * shape.row_groups, shape.pass_rows,
                                      static_cast<uint32_t>(chunks_), shape.resident ? 1u : 0u,
                                      shape.row_groups, shape.group_rows, shape.rebuilders,
                                      shape.rebuild_unroll, shape.rebuild_once,
                                      (shape.pair_loads ? 1u : 0u) |
                                          (shape.pair_state_loads ? 2u : 0u),
                                      shape.probe},
                                     kMaxBindingSets}));
  small_pipe_ = pipe.get();
  small_now_ = shape;
  small_pipes_.emplace_back(shape, std::move(pipe));
  return OkStatus();
}

Status VulkanBatchedRollout::SmallBatchFits(int64_t batch) const {
  if (!small_unavailable_.empty() || !small_ready_) {
    return UnimplementedError("batched rollout (small-batch): " +
                              (small_unavailable_.empty() ? std::string("not built")
                                                          : small_unavailable_));
  }
  return PersistentBuffersFit(batch, BatchedKernel::kSmallBatch);
}

Status VulkanBatchedRollout::PersistentBuffersFit(int64_t batch, BatchedKernel kernel) const {
  // The kernel's planes (PersistentPlanes) in one storage buffer, with 32-bit indices in the
  // shader.
  const uint64_t doubles = PersistentPlanes(kernel, chunks_) * static_cast<uint64_t>(batch) *
                           static_cast<uint64_t>(dim_);
  const uint64_t bytes = doubles * sizeof(double) + kGuardBytes;
  if (doubles >= (1ull << 32) || bytes > limits_.maxStorageBufferRange) {
    return UnimplementedError(
        std::string("batched rollout (") + BatchedKernelName(kernel) + "): B = " +
        std::to_string(batch) + " needs " + std::to_string(bytes) + " bytes of " +
        (kernel == BatchedKernel::kSmallBatch ? "chunk partials and a state plane"
                                              : "two state planes") +
        " in one storage buffer (at most 2^32 doubles); the device allows "
        "maxStorageBufferRange = " + std::to_string(limits_.maxStorageBufferRange));
  }
  return OkStatus();
}

StatusOr<BatchedKernel> VulkanBatchedRollout::KernelFor(int64_t batch) const {
  switch (options_.kernel) {
    case BatchedKernel::kTiled:
      return BatchedKernel::kTiled;
    case BatchedKernel::kSmallBatch:
      DASHI_RETURN_IF_ERROR(SmallBatchFits(batch));
      return BatchedKernel::kSmallBatch;
    case BatchedKernel::kColumnSlice:
      DASHI_RETURN_IF_ERROR(ColumnSliceFits(batch));
      return BatchedKernel::kColumnSlice;
    case BatchedKernel::kTiledPersistent:
      DASHI_RETURN_IF_ERROR(TiledPersistentFits(batch));
      return BatchedKernel::kTiledPersistent;
    case BatchedKernel::kAuto:
      break;
  }
  // kAuto never takes the column-slice kernel: it was slower than the small-batch or the tiled
  // kernel at every measured (D, B) (docs/PERF.md, "Mid batches: the column-slice kernel").
  // The small-batch kernel where an automatic row of the measured table holds (D, B) and A stays in
  // registers with its settings (SmallBatchRuleFor, SmallBatchShapeFor).
  const SmallBatchRule* rule = SmallBatchRuleFor(batch);
  if (SmallBatchFits(batch).ok() && rule != nullptr && rule->automatic &&
      SmallBatchShapeFor(batch).resident) {
    return BatchedKernel::kSmallBatch;
  }
  return TiledPersistentAutomatic(batch) ? BatchedKernel::kTiledPersistent : BatchedKernel::kTiled;
}

bool VulkanBatchedRollout::TiledPersistentAutomatic(int64_t batch) const {
  return options_.kernel == BatchedKernel::kAuto && sm_info_.has_value() &&
         TiledPersistentSuits(batch, dim_, tile_, sm_info_->sm_count) &&
         TiledPersistentFits(batch).ok();
}

Status VulkanBatchedRollout::Reserve(int64_t batch) {
  const uint64_t row_bytes = static_cast<uint64_t>(dim_) * sizeof(double);
  const uint64_t state_bytes = static_cast<uint64_t>(batch) * row_bytes;
  DASHI_ASSIGN_OR_RETURN(kernel_, KernelFor(batch));
  if (kernel_ == BatchedKernel::kTiled) {
    DASHI_RETURN_IF_ERROR(CheckBatchedLimits(batch, dim_, tile_, kGuardBytes, limits_));
  }
  bool regrown = false;
  if (batch > capacity_) {
    regrown = true;
    // Doubling keeps the number of regrowths (each spends two descriptor sets) logarithmic.
    const int64_t max_rows =
        static_cast<int64_t>((limits_.maxStorageBufferRange - kGuardBytes) / row_bytes);
    const int64_t capacity = std::max(batch, std::min(2 * capacity_, max_rows));
    const VkDeviceSize bytes = static_cast<VkDeviceSize>(capacity) * row_bytes + kGuardBytes;
    capacity_ = 0;  // until both buffers and their descriptor sets exist again
    // The persistent kernels' descriptor sets name the old state buffers too: they are made
    // again by the next persistent run, whichever kernel regrew the buffers now (a tiled run
    // between two persistent ones of fewer rows must not leave them naming freed buffers).
    small_capacity_ = 0;
    for (auto& z : z_) {
      z.reset();
      DASHI_ASSIGN_OR_RETURN(DeviceBuffer b, DeviceBuffer::Create(ctx_, bytes));
      z.emplace(std::move(b));
    }
    capacity_ = capacity;
  }
  if (regrown || batch > scratch_rows_) {
    // The tiled kernel's block sums and tree slots (batched_rollout.comp): for the state
    // buffers' capacity where that fits the limits, else for `batch` rows.
    const int64_t rows =
        CheckBatchedLimits(capacity_, dim_, tile_, kGuardBytes, limits_).ok() ? capacity_ : batch;
    scratch_rows_ = 0;
    const int64_t capacity = capacity_;
    capacity_ = 0;  // until the descriptor sets exist again
    scratch_.reset();
    DASHI_ASSIGN_OR_RETURN(
        DeviceBuffer scratch,
        CreateGuardedBuffer(ctx_, BatchedScratchDoubles(rows, dim_, tile_) * sizeof(double)));
    scratch_.emplace(std::move(scratch));
    for (int src = 0; src < 2; ++src) {
      const VkBuffer bufs[] = {a_->buffer(), z_[src]->buffer(), z_[1 - src]->buffer(),
                               scratch_->buffer()};
      DASHI_ASSIGN_OR_RETURN(sets_[src], pipe_->Bindings(bufs));
    }
    capacity_ = capacity;
    scratch_rows_ = rows;
  }
  const int64_t by_budget = static_cast<int64_t>(options_.max_staging_bytes / state_bytes);
  slots_ = std::clamp<int64_t>(by_budget, 1, options_.max_snapshots_per_submit);
  const VkDeviceSize staging_bytes = static_cast<VkDeviceSize>(slots_) * state_bytes;
  if (!staging_.has_value() || staging_->size() < staging_bytes) {
    staging_.reset();
    DASHI_ASSIGN_OR_RETURN(HostVisibleBuffer s,
                           HostVisibleBuffer::CreateForReading(ctx_, staging_bytes));
    staging_.emplace(std::move(s));
  }
  if (!upload_.has_value() || upload_->size() < state_bytes) {
    upload_.reset();
    DASHI_ASSIGN_OR_RETURN(HostVisibleBuffer u, HostVisibleBuffer::Create(ctx_, state_bytes));
    upload_.emplace(std::move(u));
  }
  batch_ = batch;
  if (regrown || batch != guards_batch_) {
    guards_batch_ = 0;
    for (auto& z : z_) DASHI_RETURN_IF_ERROR(WriteGuardWords(ctx_, *z, state_bytes));
    guards_batch_ = batch;
  }
  const bool persistent = IsPersistent(kernel_);
  if (kernel_ == BatchedKernel::kSmallBatch) {
    DASHI_RETURN_IF_ERROR(SelectSmallBatchPipeline(batch));
  }
  if (kernel_ == BatchedKernel::kColumnSlice) {
    DASHI_RETURN_IF_ERROR(SelectColumnSlicePipeline(batch));
  }
  if (kernel_ == BatchedKernel::kTiledPersistent) small_pipe_ = tp_pipe_.get();
  if (persistent &&
      (regrown || !small_partials_.has_value() || batch > small_capacity_ ||
       PersistentPlanes(kernel_, chunks_) > small_planes_ || slots_ > history_slots_)) {
    // Sized for the state buffers' capacity, so they regrow (and spend descriptor sets) with them.
    const int64_t rows = std::max(capacity_, batch);
    const int64_t partial_rows = PersistentBuffersFit(rows, kernel_).ok() ? rows : batch;
    const uint64_t planes = PersistentPlanes(kernel_, chunks_);
    small_capacity_ = 0;
    small_planes_ = 0;
    small_partials_.reset();
    history_.reset();
    DASHI_ASSIGN_OR_RETURN(
        DeviceBuffer partials,
        CreateGuardedBuffer(ctx_, planes * static_cast<uint64_t>(partial_rows) * row_bytes));
    small_partials_.emplace(std::move(partials));
    // The history ring: one slot per staging slot, fewer if its bytes exceed a storage buffer.
    const uint64_t ring_state_bytes = static_cast<uint64_t>(partial_rows) * row_bytes;
    const int64_t by_range = static_cast<int64_t>(
        (limits_.maxStorageBufferRange - kGuardBytes) / ring_state_bytes);
    history_slots_ = std::clamp<int64_t>(by_range, 1, slots_);
    DASHI_ASSIGN_OR_RETURN(DeviceBuffer history,
                           CreateGuardedBuffer(ctx_, static_cast<uint64_t>(history_slots_) *
                                                         ring_state_bytes));
    history_.emplace(std::move(history));
    for (int src = 0; src < 2; ++src) {
      const VkBuffer bufs[] = {a_->buffer(),           z_[src]->buffer(), z_[1 - src]->buffer(),
                               small_partials_->buffer(), sync_->buffer(), history_->buffer()};
      DASHI_ASSIGN_OR_RETURN(small_sets_[src], small_pipe_->Bindings(bufs));
    }
    small_capacity_ = partial_rows;
    small_planes_ = planes;
  }
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
  if (IsPersistent(kernel_)) {
    return AdvanceSmallBatch(first_step, last_step, snapshot_steps, parity);
  }
  // K blocks: the products of each block (workgroups along z), then the combine of the blocks
  // (phase 1, or phase 2 spread over the outputs: BatchedStepDispatchesFor).
  const BatchedStepDispatches step = BatchedStepDispatchesFor(chunks_, tile_);
  dispatches_ += (last_step - first_step) * (step.combine_phase != 0 ? 2 : 1);
  const BatchedRolloutPushConstants push{
      static_cast<uint32_t>(dim_),   static_cast<uint32_t>(chunks_),
      static_cast<uint32_t>(batch_), BatchedBlockChunks(chunks_, tile_),
      step.blocks,                   0u};
  BatchedRolloutPushConstants combine = push;
  combine.phase = step.combine_phase;
  const uint32_t groups_x = CeilDiv(dim_, tile_.cols());
  const uint32_t groups_y = CeilDiv(batch_, tile_.rows());
  const VkDeviceSize state_bytes = static_cast<VkDeviceSize>(batch_ * dim_) * sizeof(double);
  StepRecorder recorder;
  recorder.record_steps = [&](int src, int64_t step_index, int64_t) {
    batch_cmd_->Dispatch(*pipe_, sets_[src], &push, sizeof(push), groups_x, groups_y,
                         step.blocks);
    if (step.combine_phase != 0) {
      batch_cmd_->ComputeBarrier();  // the block sums, written by the products
      batch_cmd_->Dispatch(*pipe_, sets_[src], &combine, sizeof(combine), groups_x, groups_y,
                           step.combine_z);
    }
    return step_index + 1;
  };
  recorder.record_copy = [&](int state, size_t slot) {
    batch_cmd_->CopyBuffer(z_[state]->buffer(), staging_->buffer(), state_bytes, 0,
                           static_cast<VkDeviceSize>(slot) * state_bytes);
  };
  // Plain dispatches: compute → compute barriers between steps with no copy around them
  // (2.1–4.6 µs a step less on an H200: docs/PERF.md, "Large batches, part 7").
  recorder.compute_barriers = true;
  return SubmitSteps(*batch_cmd_, first_step, last_step, snapshot_steps, recorder, parity,
                     &tally_);
}

Status VulkanBatchedRollout::AdvanceSmallBatch(int64_t first_step, int64_t last_step,
                                                std::span<const int64_t> snapshot_steps,
                                                int* parity) {
  const int64_t history = history_slots_;
  // Steps per dispatch: on a device without the SM count, within the barrier budget (per step a
  // workgroup makes 2 barrier() calls per row pass of each of its units, plus the grid
  // barrier's 2).
  int64_t per_dispatch = small_steps_per_dispatch_;
  if (per_dispatch == 0) {
    // One step per dispatch where the SM count is not reported (lavapipe). There (Mesa 22.3.6)
    // the one workgroup walking every unit gave wrong states once a dispatch held many barrier()
    // calls, far fewer than the ~10^4 the single-trajectory kernel tolerates: several steps per
    // dispatch went wrong after a few steps (B = 1, D = 506, W = 16: z_4 came back equal to z_2;
    // B = 3, D = 506, W = 64: from step 7; B = 64, D = 1000, W = 128 or 256: at once), and so did
    // single steps of ~700–1000 barriers (B = 64, D = 769 and 1000, W = 64), while single steps
    // of W = 128 or 256 were right in every shape tried. The logic is the single-trajectory
    // persistent kernel's; the cause was not found in the driver. The multi-step path is checked
    // on GPUs by the conformance cases (docs/CONFORMANCE.md).
    per_dispatch = sm_info_.has_value() ? kSmallBatchStepsPerDispatch : 1;
  }
  const VkDeviceSize state_bytes = static_cast<VkDeviceSize>(batch_ * dim_) * sizeof(double);
  // The column-slice and tiled persistent kernels take the same push constants (tiles = their
  // slices or output tiles) and bindings (the partials buffer holds their two states).
  const bool columns = kernel_ == BatchedKernel::kColumnSlice;
  const bool tiled = kernel_ == BatchedKernel::kTiledPersistent;
  const uint32_t groups = columns ? cs_groups_
                          : tiled ? TiledPersistentGroups(batch_)
                                  : small_now_.groups;
  const uint32_t tiles = columns ? cs_slices_
                         : tiled ? TiledPersistentTiles(batch_)
                                 : small_now_.tiles;
  CommandBatch& cmd = *batch_cmd_;
  DASHI_RETURN_IF_ERROR(cmd.Begin());
  cmd.Timestamp("start");
  cmd.FillBuffer(sync_->buffer(), 0, VK_WHOLE_SIZE, 0);  // fresh counters and error flag
  cmd.Barrier();
  size_t next = 0;
  int p = *parity;
  uint32_t sync_slot = 0;
  std::vector<VkBufferCopy> regions;
  for (int64_t step = first_step; step < last_step;) {
    int64_t end = std::min(last_step, step + per_dispatch);
    const bool observed = next < snapshot_steps.size() && snapshot_steps[next] <= end;
    // A snapshot's ring slot must not be written again before the copy after the dispatch.
    if (observed) end = std::min(end, snapshot_steps[next] + history - 1);
    if (sync_slot == kSyncCounters) {  // reuse the counters (the error flag stays)
      cmd.FillBuffer(sync_->buffer(), sizeof(uint32_t), kSyncCounters * sizeof(uint32_t), 0);
      cmd.Barrier();
      sync_slot = 0;
    }
    const BatchedPersistentPushConstants push{
        static_cast<uint32_t>(dim_),
        static_cast<uint32_t>(chunks_),
        static_cast<uint32_t>(batch_),
        static_cast<uint32_t>(end - step),
        tiles,
        sync_slot++,
        options_.small_batch_spin_limit,
        observed ? static_cast<uint32_t>(snapshot_steps[next] - step) : 0u,
        static_cast<uint32_t>((step + 1) % history),
        static_cast<uint32_t>(history)};
    if (!columns && !tiled && small_now_.rebuild_once >= 3) {  // fresh per-chunk / per-half counters
      cmd.FillBuffer(sync_->buffer(), (1 + kSyncCounters) * sizeof(uint32_t),
                     kLocalCounters * sizeof(uint32_t), 0);
      cmd.Barrier();
    }
    if (tiled) {
      // Its step 0 reads plane 1 of the partials buffer (batched_tiled_persistent.comp).
      cmd.CopyBuffer(z_[p]->buffer(), small_partials_->buffer(), state_bytes, 0, state_bytes);
      cmd.Barrier();
    }
    cmd.Dispatch(*small_pipe_, small_sets_[p], &push, sizeof(push), groups);
    ++dispatches_;
    cmd.Barrier();  // orders the next dispatch and the copies after this one
    p = 1 - p;
    if (end == last_step) cmd.Timestamp("steps");
    regions.clear();
    for (; next < snapshot_steps.size() && snapshot_steps[next] <= end; ++next) {
      if (snapshot_steps[next] <= step) {
        return InternalError(std::string("batched rollout (") + BatchedKernelName(kernel_) +
                             "): snapshot steps out of order");
      }
      regions.push_back({static_cast<VkDeviceSize>(snapshot_steps[next] % history) * state_bytes,
                         static_cast<VkDeviceSize>(next) * state_bytes, state_bytes});
    }
    if (!regions.empty()) {
      vkCmdCopyBuffer(cmd.command_buffer(), history_->buffer(), staging_->buffer(),
                      static_cast<uint32_t>(regions.size()), regions.data());
      cmd.Barrier();  // the next dispatch writes the ring after these reads
    }
    step = end;
  }
  if (next != snapshot_steps.size()) {
    return InternalError(std::string("batched rollout (") + BatchedKernelName(kernel_) +
                         "): a snapshot step lies outside the steps");
  }
  cmd.Timestamp("last copy");
  cmd.CopyBuffer(sync_->buffer(), sync_host_->buffer(), sizeof(uint32_t));
  cmd.HostReadBarrier();
  DASHI_RETURN_IF_ERROR(cmd.SubmitAndWait());
  *parity = p;
  tally_.steps += last_step - first_step;
  tally_.submissions += 1;
  tally_.snapshots += static_cast<int64_t>(snapshot_steps.size());
  for (const auto& [label, ms] : cmd.StageMilliseconds()) {
    tally_.timestamps = true;
    tally_.device_ms += ms;
    if (label == "steps") tally_.steps_ms += ms;
  }
  if (sync_host_->as<const uint32_t>()[0] != 0) {
    return UnavailableError(
        std::string("batched rollout (") + BatchedKernelName(kernel_) + "): the " +
        std::to_string(groups) +
        " workgroups were not all resident at once on device '" + ctx_.info().name +
        "' (a device-wide barrier timed out after " +
        std::to_string(options_.small_batch_spin_limit) +
        " polls); use fewer workgroups (small_batch_groups) or the tiled kernel");
  }
  return OkStatus();
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
  dispatches_ = 0;
  StatusOr<BatchedRolloutResult> out = CatchRolloutExceptions<BatchedRolloutResult>(
      "batched rollout", [&] { return RunImpl(z0, batch, params, sink); });
  timings_ = {.batch = batch,
              .steps = tally_.steps,
              .submissions = tally_.submissions,
              .snapshots = tally_.snapshots,
              .timestamps = tally_.timestamps,
              .device_ms = tally_.device_ms,
              .steps_ms = tally_.steps_ms,
              .kernel = kernel_,
              .dispatches = dispatches_};
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

  // z0 through the prepared upload buffer, in one submission of the rollout's command batch.
  std::copy(z0.begin(), z0.end(), upload_->as<double>().begin());
  DASHI_RETURN_IF_ERROR(batch_cmd_->Begin());
  batch_cmd_->CopyBuffer(upload_->buffer(), z_[0]->buffer(), z0.size_bytes());
  batch_cmd_->Barrier();
  DASHI_RETURN_IF_ERROR(batch_cmd_->SubmitAndWait());
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

Status VulkanBatchedRollout::Prepare(int64_t batch) {
  if (batch < 1) {
    return InvalidArgumentError("batched rollout: B = " + std::to_string(batch) +
                                " must be >= 1");
  }
  return Reserve(batch);
}

Status VulkanBatchedRollout::CheckGuardWords() const {
  struct Region {
    const DeviceBuffer* buffer;
    uint64_t payload;
    std::string what;
  };
  std::vector<Region> regions;
  const uint64_t payload = static_cast<uint64_t>(batch_ * dim_) * sizeof(double);
  for (int k = 0; k < 2; ++k) {
    if (z_[k].has_value()) {
      regions.push_back({&*z_[k], payload, "batched rollout state buffer " + std::to_string(k)});
    }
  }
  // The tiled kernel's scratch and the small-batch kernel's buffers end with their guards
  // (CreateGuardedBuffer).
  if (scratch_.has_value()) {
    regions.push_back(
        {&*scratch_, scratch_->size() - kGuardBytes, "batched rollout tiled scratch"});
  }
  if (small_partials_.has_value()) {
    regions.push_back({&*small_partials_, small_partials_->size() - kGuardBytes,
                       "batched rollout persistent buffer (chunk partials or state planes)"});
  }
  if (history_.has_value()) {
    regions.push_back(
        {&*history_, history_->size() - kGuardBytes, "batched rollout history ring"});
  }
  if (regions.empty()) return OkStatus();
  for (const Region& r : regions) {
    if (r.payload + kGuardBytes > r.buffer->size()) {
      return FailedPreconditionError("the " + r.what + " has no guard region");
    }
  }
  // One submission copies every guard region into a host-visible buffer.
  const VkDeviceSize bytes = static_cast<VkDeviceSize>(regions.size()) * kGuardBytes;
  if (!guard_host_.has_value() || guard_host_->size() < bytes) {
    guard_host_.reset();
    DASHI_ASSIGN_OR_RETURN(HostVisibleBuffer h, HostVisibleBuffer::CreateForReading(ctx_, bytes));
    guard_host_.emplace(std::move(h));
  }
  DASHI_RETURN_IF_ERROR(batch_cmd_->Begin());
  for (size_t k = 0; k < regions.size(); ++k) {
    batch_cmd_->CopyBuffer(regions[k].buffer->buffer(), guard_host_->buffer(), kGuardBytes,
                           regions[k].payload, static_cast<VkDeviceSize>(k) * kGuardBytes);
  }
  batch_cmd_->HostReadBarrier();
  DASHI_RETURN_IF_ERROR(batch_cmd_->SubmitAndWait());
  const std::span<const uint32_t> words = guard_host_->as<const uint32_t>();
  const size_t per_region = kGuardBytes / sizeof(uint32_t);
  for (size_t k = 0; k < regions.size(); ++k) {
    for (size_t i = 0; i < per_region; ++i) {
      if (words[k * per_region + i] != kGuardWord) {
        return DataLossError("guard word " + std::to_string(i) + " after the " + regions[k].what +
                             " was overwritten (out-of-bounds write)");
      }
    }
  }
  return OkStatus();
}

}  // namespace dashi::vk
