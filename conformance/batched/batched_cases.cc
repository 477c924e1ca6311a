// Conformance cases of the batched fp64 Vulkan rollout (accel_vulkan/batched/
// vulkan_batched_rollout.h) against core_ref's single-trajectory Rollout, trajectory by trajectory
// (hash parity): every chain and final state must be bit-exact. Small sizes: lavapipe
// runs these in CI.
//
//   batched_rollout.parity.b<B>_d<D>   trajectories whose hash chain or final state differs from
//                                      core_ref's; (B, D) ∈ {(1, 1), (7, 65), (70, 130),
//                                      (65, 200)}: single row / column, partial tiles and chunks
//   batched_rollout.tiles              the same over four non-default tile shapes (slice depths
//                                      1, 4, 32, 64) at B = 9, D = 193, 8 steps
//   batched_rollout.k_blocks           the same over K blocks (split 8, 4, 3: 7, 4, 2 blocks) and
//                                      the tree slots in memory, B = 9, D = 420, 6 steps
//   batched_rollout.spread_combine     the same over three K-block tiles whose combine folds one
//                                      output an invocation (BatchedTile::spread_combine), D = 420
//   batched_rollout.pipelined_rows     the same over four tiles with the kk loop pipelined
//                                      (BatchedTile::pipeline_rows)
//   batched_rollout.one_stage_local_slots  the same over seven tiles with one shared stage
//                                      (BatchedTile::single_stage), four with the tree slots in
//                                      local memory (local_slots), B = 9, D = 1100 (five slots)
//   batched_rollout.tall_and_narrow_tiles  the same over the automatic tiles of 256 and 128
//                                      invocations (64 × 64 in one stage of 16 rows with local
//                                      slots; 64 × 32 and 32 × 32 of 4 × 2 outputs), 96 × 64 of
//                                      384, and K-block forms, B = 200, D = 1100
//   batched_rollout.k_groups           the same over seven tiles of 2, 3, 4 and 8 K groups
//   batched_rollout.k_groups_m32       the same over the automatic K-group tiles at 32 chunks
//                                      (copies of the tile in a workgroup, folded in shared
//                                      memory), with idle copies, K blocks, slots in scratch and
//                                      in local memory, pipelined rows, scalar loads (the
//                                      automatic 16 × 16 form); B = 70, D = 1100
//   batched_rollout.vector_loads       the same over four tiles with dvec2 shared-memory loads
//                                      (BatchedTile::vector_loads: pairs of rows and columns;
//                                      partial pairs, K blocks, slots in memory), B = 9, D = 193
//   batched_rollout.subnormal          states in the subnormal range (bit-exact or FAIL)
//   batched_rollout.signed_zero        states of ±0 only (the contract's sign-of-zero details)
//   batched_rollout.guard_words        guard words after the state buffers overwritten
//   batched_rollout.rejects_nonfinite_input  NaN/±Inf in A or Z0 accepted (must be an error)
//   batched_rollout.nonfinite_state_error    a blow-up's error ≠ core_ref's for the first
//                                            trajectory to blow up ("trajectory b: " prefixed)
// The cases above run the tiled kernel (BatchedKernel::kTiled); the small-batch persistent
// kernel (kSmallBatch, shaders/batched/batched_persistent.comp) has its own:
//   batched_rollout.small_batch.parity.b<B>_d<D>  as parity, B ∈ {1, 2, 3, 5, 17, 64}, each with
//                                      two or three D at and around the chunk edges (1 … 1000),
//                                      and B = 3 over the contraction sweep up to D = 1088
//   batched_rollout.small_batch.observed   every state observed (history ring), B = 3, D = 506,
//                                          40 steps: observed states, chains and final states
//   batched_rollout.small_batch.subnormal / .signed_zero   the two cases above with this kernel
//   batched_rollout.small_batch.guard_words   guards after the states, partials and history ring
//   batched_rollout.small_batch.rebuild_once.parity.b<B>_d<D> / .observed   the same with each
//                                      state entry rebuilt once per step (small_batch_rebuild_once:
//                                      two device-wide barriers a step), (B, D) ∈ {(1, 1), (5, 65),
//                                      (17, 130), (16, 512), (64, 506), (32, 512), (3, 1000)}
//   batched_rollout.small_batch.per_batch   one object with automatic settings run with B = 16,
//                                      32, 16, 64 at D = 512 (the per-B columns per unit of
//                                      DefaultSmallBatchRules switch between the runs on a GPU)
//   batched_rollout.auto.per_batch     one kAuto object run with B = 48, 32, 64, 16, 128, 48, 32
//                                      at D = 512 (on a GPU the tiled persistent, small-batch and
//                                      tiled kernels alternate: the persistent buffer and its
//                                      descriptor sets follow planes, rows and state buffers)
//   batched_rollout.small_batch.rebuild_once_plain.parity.b<B>_d<D>   the same with the plain
//                                      device-wide barrier (= 3), (B, D) ∈ {(3, 1000), (4, 506),
//                                      (64, 506)}
//   batched_rollout.small_batch.pair_loads.parity.b<B>_d<D>   the same with the staged state
//                                      loaded as dvec2 pairs (small_batch_pair_loads = 2), (B, D)
//                                      ∈ {(5, 65), (17, 130), (3, 449), (32, 512), (16, 1024)}
//   batched_rollout.small_batch.chunk_counters.parity.b<B>_d<D>   the same rebuilt once with
//                                      per-chunk counters instead of device-wide barriers
//                                      (small_batch_rebuild_once = 4), (B, D) ∈ {(3, 40),
//                                      (5, 65), (3, 1000), (48, 512), (64, 512), (33, 1024),
//                                      (64, 1000)}: C 32 (two tiles a chunk) and C 128 (a tile
//                                      over two chunks, a last chunk of 40) on a GPU
//   batched_rollout.small_batch.halves.parity.b<B>_d<D>   the same rebuilt once in two halves of
//                                      the rows with a counter each (small_batch_rebuild_once =
//                                      5), (B, D) ∈ {(3, 40), (9, 40), (5, 65), (3, 1000),
//                                      (33, 512), (64, 512), (48, 1024), (64, 1000)}: an empty
//                                      second half, halves of 8 and 1, C 32 and C 128 on a GPU
// On a GPU that reports its SM count the small-batch kernel runs many steps per dispatch (its
// device-wide barriers and the in-dispatch state rebuild are checked there); on lavapipe one.
// The column-slice kernel (kColumnSlice, shaders/batched/batched_columns.comp) likewise:
//   batched_rollout.column_slice.parity.b<B>_d<D>  as parity, (B, D) ∈ {(1, 1), (5, 65),
//                                      (17, 130), (20, 506), (64, 200), (3, 1000)}: partial
//                                      slices, chunks and passes, rows past the row groups
//   batched_rollout.column_slice.observed / .subnormal / .signed_zero   as the small-batch ones
// (on lavapipe one workgroup walks the slices with A read from memory; on a GPU one slice per
// SM with A in registers and many steps per dispatch).
// The tiled persistent kernel (kTiledPersistent, shaders/batched/batched_tiled_persistent.comp:
// the tiled kernel's GEMM, many steps per dispatch):
//   batched_rollout.tiled_persistent.parity.b<B>_d<D>  as parity with the 16 × 16 tile in eight K
//                                      groups (SuggestBatchedTile's at D = 512, B = 33 … 64),
//                                      (B, D) ∈ {(5, 65), (17, 193), (33, 512), (64, 512),
//                                      (3, 1000)}: idle copies, partial tiles and chunks
//   batched_rollout.tiled_persistent.dispatches.b128_d512   the same tile, 3 steps per dispatch
//                                      (the input copied between dispatches) and 256 tiles (two
//                                      or more a workgroup on a GPU)
//   batched_rollout.tiled_persistent.observed / .subnormal / .signed_zero   as the small-batch
//                                      ones (the first with that tile, the others the default)
//   batched_rollout.auto.parity.b<B>_d<D>   as parity with the automatic kernel and the tile
//                                      SuggestBatchedTile gives for the device's SM count,
//                                      (B, D) ∈ {(48, 512), (64, 512)}, and the kernel that ran
//                                      must be the one TiledPersistentSuits names: the tiled
//                                      persistent kernel on a GPU with as many SMs as tiles (96
//                                      at B = 48, 128 at B = 64), the tiled kernel on lavapipe
// (on lavapipe one workgroup walks the tiles, one step per dispatch; on a GPU one tile per
// workgroup and many steps per dispatch).
//   batched_rollout.tiled_persistent.straggler.b64_d512   as parity with that tile (128 tiles) on
//                                      StragglerGroups(128) workgroups: 127 on a GPU with 127 or
//                                      more SMs, so workgroup 0 walks tiles 0 and 127 and arrives
//                                      last at every device-wide barrier; 1 on lavapipe
//   batched_rollout.column_slice.straggler.b20_d512   the same with the column-slice kernel, slices
//                                      of 16 columns (32) on StragglerGroups(32) workgroups (31)
//
// Inputs: core_ref/testing/random_inputs.h (A = DecayingMatrix(D, seed),
// Z0 = NonZeroUniform(B·D, seed, 1)), seeds in each case's detail.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "accel_vulkan/batched/vulkan_batched_rollout.h"
#include "accel_vulkan/context.h"
#include "accel_vulkan/device_caps/device_caps.h"
#include "accel_vulkan/guard_words.h"
#include "conformance/framework/conformance_case.h"
#include "conformance/framework/sweep_shapes.h"
#include "core_ref/blake2b/blake2b.h"
#include "core_ref/prng/prng.h"
#include "core_ref/rollout/rollout.h"
#include "core_ref/status/status.h"
#include "core_ref/testing/random_inputs.h"

namespace dashi::conformance {
namespace {

using vk::BatchedKernel;
using vk::BatchedRolloutResult;
using vk::BatchedTile;
using vk::VulkanBatchedRollout;
using vk::VulkanContext;

constexpr uint64_t kMatrixSeed = 0xBA7C4A00u;  // + D
constexpr uint64_t kStateSeed = 0xBA7C2000u;   // + B
constexpr RolloutParams kParityParams{.steps = 20, .hash_every = 7};  // checkpoints 0, 7, 14, 20

std::string SeedText(int64_t batch, int64_t dim) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), "seeds A=%#llx Z0=%#llx",
                static_cast<unsigned long long>(kMatrixSeed + dim),
                static_cast<unsigned long long>(kStateSeed + batch));
  return buf;
}

std::optional<CaseResult> NeedsFloat64(const VulkanContext& ctx) {
  if (ctx.info().shader_float64) return std::nullopt;
  return NotSupported("device '" + ctx.info().name + "' lacks shaderFloat64 (fp64 rollout)");
}

// core_ref's Rollout of every row of z0, with `observer` (may be empty) seeing each row's states.
struct Reference {
  std::vector<RolloutResult> rows;
  Status status;
};
Reference RunCoreRef(std::span<const double> z0, std::span<const double> a, int64_t dim,
                     const RolloutParams& p, const RolloutObserver& observer = nullptr) {
  Reference ref;
  const size_t width = static_cast<size_t>(dim);
  for (size_t off = 0; off < z0.size(); off += width) {
    StatusOr<RolloutResult> r = Rollout(z0.subspan(off, width), a, p, observer);
    if (!r.ok()) {
      ref.status = r.status().WithPrefix("core_ref");
      break;
    }
    ref.rows.push_back(*std::move(r));
  }
  return ref;
}

// Trajectories whose chain or final state differs from the reference, and the first of them.
std::pair<int64_t, int64_t> DifferingTrajectories(const BatchedRolloutResult& got,
                                                  const Reference& want) {
  int64_t differ = 0, first = -1;
  for (int64_t b = 0; b < got.batch; ++b) {
    const RolloutResult& w = want.rows[static_cast<size_t>(b)];
    const std::span<const double> state = got.final_state(b);
    const bool same = got.chains[b] == w.chain && state.size() == w.final_state.size() &&
                      std::memcmp(state.data(), w.final_state.data(),
                                  state.size() * sizeof(double)) == 0;
    if (!same && first < 0) first = b;
    differ += same ? 0 : 1;
  }
  return {differ, first};
}

// Runs the batch on the device with `options` and compares it with `want`: the case's measure
// (differing trajectories) and a detail fragment; a device error is returned as the status.
StatusOr<std::pair<int64_t, std::string>> DeviceVersusReference(
    VulkanContext& ctx, int64_t batch, int64_t dim, std::span<const double> a,
    std::span<const double> z0, const RolloutParams& p, const Reference& want,
    const vk::VulkanBatchedRolloutOptions& options = {.kernel = BatchedKernel::kTiled}) {
  DASHI_ASSIGN_OR_RETURN(std::unique_ptr<VulkanBatchedRollout> r,
                         VulkanBatchedRollout::Create(ctx, dim, a, options));
  DASHI_ASSIGN_OR_RETURN(BatchedRolloutResult got, r->Run(z0, batch, p));
  const auto [differ, first] = DifferingTrajectories(got, want);
  const vk::BatchedRolloutTimings& t = r->last_timings();
  std::string detail =
      r->KernelDescription(t.kernel) +
      (t.kernel == BatchedKernel::kTiled
           ? std::string()
           : ", " + std::to_string(t.dispatches) + " dispatches for " + std::to_string(t.steps) +
                 " steps") +
      ", shaders " + vk::FloatControlsVariantName(r->shader_variant());
  if (first >= 0) detail += ", first differing trajectory " + std::to_string(first);
  return std::make_pair(differ, detail);
}

vk::VulkanBatchedRolloutOptions KernelOptions(BatchedKernel kernel) { return {.kernel = kernel}; }

// The small-batch kernel with each state entry rebuilt once per step (small_batch_rebuild_once).
vk::VulkanBatchedRolloutOptions RebuildOnceOptions(uint32_t once = 2) {
  return {.kernel = BatchedKernel::kSmallBatch, .small_batch_rebuild_once = once};
}

// The tiled kernel with each of `tiles` against `want`: differing trajectories summed over the
// tiles (tolerance 0), each tile's count in the detail after `detail`.
CaseResult TileSweep(VulkanContext& ctx, int64_t batch, int64_t dim, const RolloutParams& p,
                     std::span<const BatchedTile> tiles) {
  if (auto ns = NeedsFloat64(ctx)) return *ns;
  const std::vector<double> a = testing::DecayingMatrix(dim, kMatrixSeed + dim);
  const std::vector<double> z0 =
      testing::NonZeroUniform(static_cast<size_t>(batch * dim), kStateSeed + batch, 1.0);
  const Reference want = RunCoreRef(z0, a, dim, p);
  if (!want.status.ok()) return FailFromStatus(want.status);
  std::string detail = "B=" + std::to_string(batch) + ", D=" + std::to_string(dim) + ", " +
                       SeedText(batch, dim) + ", " + std::to_string(p.steps) +
                       " steps, hash_every " + std::to_string(p.hash_every);
  int64_t differ = 0;
  for (const BatchedTile& tile : tiles) {
    CASE_ASSIGN(const auto compared,
                DeviceVersusReference(ctx, batch, dim, a, z0, p, want,
                                      {.tile = tile, .kernel = BatchedKernel::kTiled}));
    differ += compared.first;
    detail += "; " + compared.second + ": " + std::to_string(compared.first) + " differ";
  }
  return Judge(static_cast<double>(differ), 0, detail);
}

CaseResult Parity(VulkanContext& ctx, int64_t batch, int64_t dim,
                  const vk::VulkanBatchedRolloutOptions& options) {
  if (auto ns = NeedsFloat64(ctx)) return *ns;
  const std::vector<double> a = testing::DecayingMatrix(dim, kMatrixSeed + dim);
  const std::vector<double> z0 =
      testing::NonZeroUniform(static_cast<size_t>(batch * dim), kStateSeed + batch, 1.0);
  const Reference want = RunCoreRef(z0, a, dim, kParityParams);
  if (!want.status.ok()) return FailFromStatus(want.status);
  CASE_ASSIGN(const auto compared,
              DeviceVersusReference(ctx, batch, dim, a, z0, kParityParams, want, options));
  return Judge(static_cast<double>(compared.first), 0,
               "B=" + std::to_string(batch) + ", D=" + std::to_string(dim) + ", " +
                   SeedText(batch, dim) + ", 20 steps, hash_every 7, " + compared.second +
                   ", head link of trajectory 0 " + ToHex(want.rows[0].chain.back().link));
}

// Registers "<prefix>.b<B>_d<D>" for every (B, D) of `shapes`, each a Parity run with `options`.
void RegisterParityCases(const std::string& prefix,
                         std::span<const std::pair<int64_t, int64_t>> shapes,
                         const vk::VulkanBatchedRolloutOptions& options) {
  for (const auto& shape : shapes) {
    // Plain variables, not a structured binding: clang 14 (the fuzz and portability builds)
    // cannot capture one in a lambda.
    const int64_t batch = shape.first, dim = shape.second;
    RegisterCase({prefix + ".b" + std::to_string(batch) + "_d" + std::to_string(dim),
                  "batched_rollout",
                  "trajectories whose chain or final state differs from core_ref", 0.0,
                  [batch, dim, options](VulkanContext& ctx) {
                    return Parity(ctx, batch, dim, options);
                  }});
  }
}

const bool kParityRegistered = [] {
  // Hand-picked batch shapes, then batch 3 over the generated contraction sweep up to D = 1088
  // (framework/sweep_shapes.h: chunk counts with three or four set bits, 2^k ± 1).
  std::vector<std::pair<int64_t, int64_t>> shapes = {{1, 1}, {7, 65}, {70, 130}, {65, 200}};
  for (int64_t dim : ContractionSweepDims(1088)) {
    if (dim > 200) shapes.push_back({3, dim});
  }
  RegisterParityCases("batched_rollout.parity", shapes, KernelOptions(BatchedKernel::kTiled));
  return true;
}();

const bool kSmallBatchParityRegistered = [] {
  // Every B with D at and around the chunk edges (each D compiles its own pipeline, ~10 s on
  // lavapipe, so the grid is not a full product), then B = 3 over the contraction sweep.
  std::vector<std::pair<int64_t, int64_t>> shapes = {
      {1, 1},   {1, 449},  {1, 1000}, {2, 63},  {2, 506},  {5, 65},   {5, 200},
      {17, 130}, {17, 1000}, {64, 65}, {64, 200}, {64, 506}, {3, 1},   {3, 130}};
  for (int64_t dim : ContractionSweepDims(1088)) {
    if (dim > 200) shapes.push_back({3, dim});
  }
  RegisterParityCases("batched_rollout.small_batch.parity", shapes,
                      KernelOptions(BatchedKernel::kSmallBatch));
  return true;
}();

const bool kRebuildOnceParityRegistered = [] {
  // The rebuild-once option of the small-batch kernel: one chunk, partial chunks, several rows
  // per invocation, the mid-batch shapes of issue 13 (16 and 64 rows at D = 506 / 512), and
  // D = 1000 (16 chunks, 128-column units). On lavapipe (one workgroup, A in registers only
  // for D <= 256) the larger shapes fall back to the plain rebuild (the detail says which ran).
  const std::pair<int64_t, int64_t> shapes[] = {{1, 1},   {5, 65},   {17, 130}, {16, 512},
                                                {64, 506}, {32, 512}, {3, 1000}};
  RegisterParityCases("batched_rollout.small_batch.rebuild_once.parity", shapes,
                      RebuildOnceOptions());
  // The same with the plain device-wide barrier (small_batch_rebuild_once = 3).
  const std::pair<int64_t, int64_t> plain_shapes[] = {{3, 1000}, {4, 506}, {64, 506}};
  RegisterParityCases("batched_rollout.small_batch.rebuild_once_plain.parity", plain_shapes,
                      RebuildOnceOptions(3));
  return true;
}();

const bool kPairLoadsParityRegistered = [] {
  // The small-batch kernel with the staged state loaded as dvec2 pairs (small_batch_pair_loads =
  // 2), the rest automatic: last chunks of one row (D = 65, 449: the pair's second entry past
  // the chunk), 2 chunks, and the mid batches of issue 13 (32 rows at D = 512, 16 at D = 1024:
  // rebuilt once with the table's C on a GPU).
  const std::pair<int64_t, int64_t> shapes[] = {{5, 65}, {17, 130}, {3, 449}, {32, 512},
                                                {16, 1024}};
  RegisterParityCases("batched_rollout.small_batch.pair_loads.parity", shapes,
                      {.kernel = BatchedKernel::kSmallBatch, .small_batch_pair_loads = 2});
  return true;
}();

const bool kChunkCountersParityRegistered = [] {
  // Rebuilt once with per-chunk counters (small_batch_rebuild_once = 4), the rest automatic. On
  // lavapipe (one workgroup) only D = 40 takes them (one unit); on a GPU every shape (many steps
  // per dispatch, both state planes).
  const std::pair<int64_t, int64_t> shapes[] = {{3, 40},   {5, 65},   {3, 1000}, {48, 512},
                                                {64, 512}, {33, 1024}, {64, 1000}};
  RegisterParityCases("batched_rollout.small_batch.chunk_counters.parity", shapes,
                      {.kernel = BatchedKernel::kSmallBatch, .small_batch_rebuild_once = 4});
  return true;
}();

const bool kHalvesParityRegistered = [] {
  // Rebuilt once in two halves of the rows (small_batch_rebuild_once = 5), the rest automatic. On
  // lavapipe (one workgroup) only D = 40 takes them; on a GPU every shape.
  const std::pair<int64_t, int64_t> shapes[] = {{3, 40},   {9, 40},   {5, 65},    {3, 1000},
                                                {33, 512}, {64, 512}, {48, 1024}, {64, 1000}};
  RegisterParityCases("batched_rollout.small_batch.halves.parity", shapes,
                      {.kernel = BatchedKernel::kSmallBatch, .small_batch_rebuild_once = 5});
  return true;
}();

// SuggestBatchedTile's tile at D = 512, B = 33 … 64 on 132 SMs: 16 × 16 of 4 × 8 invocations with
// 4 × 2 outputs, scalar loads, one stage, eight K groups (kAuto's tiled persistent kernel).
const BatchedTile kKGroups8Tile = vk::SuggestBatchedTile(48, 512, 132);

const bool kTiledPersistentParityRegistered = [] {
  const std::pair<int64_t, int64_t> shapes[] = {
      {5, 65}, {17, 193}, {33, 512}, {64, 512}, {3, 1000}};
  RegisterParityCases("batched_rollout.tiled_persistent.parity", shapes,
                      {.tile = kKGroups8Tile, .kernel = BatchedKernel::kTiledPersistent});
  const std::pair<int64_t, int64_t> several[] = {{128, 512}};
  RegisterParityCases("batched_rollout.tiled_persistent.dispatches", several,
                      {.tile = kKGroups8Tile,
                       .kernel = BatchedKernel::kTiledPersistent,
                       .small_batch_max_steps_per_dispatch = 3});
  return true;
}();

// kAuto with the tile SuggestBatchedTile gives on this device, as dashi's pipeline asks for it.
const bool kAutoParityRegistered = [] {
  for (const int64_t batch : {48, 64}) {
    const int64_t dim = 512;
    RegisterCase({"batched_rollout.auto.parity.b" + std::to_string(batch) + "_d512",
                  "batched_rollout",
                  "trajectories whose chain or final state differs from core_ref", 0.0,
                  [batch, dim](VulkanContext& ctx) -> CaseResult {
                    const std::optional<vk::SmInfo> sm = vk::QuerySmInfo(ctx);
                    const uint32_t sms = sm ? sm->sm_count : 0;
                    const vk::VulkanBatchedRolloutOptions options{
                        .tile = vk::SuggestBatchedTile(batch, dim, sms),
                        .kernel = BatchedKernel::kAuto};
                    // The kernel kAuto must take here (the tiled kernel without an SM count).
                    const BatchedKernel want = vk::TiledPersistentSuits(batch, dim, options.tile,
                                                                        sms)
                                                   ? BatchedKernel::kTiledPersistent
                                                   : BatchedKernel::kTiled;
                    CASE_ASSIGN(std::unique_ptr<VulkanBatchedRollout> r,
                                VulkanBatchedRollout::Create(
                                    ctx, dim, testing::DecayingMatrix(dim, kMatrixSeed + dim),
                                    options));
                    CASE_ASSIGN(const BatchedKernel got, r->KernelFor(batch));
                    if (got != want) {
                      return Fail(NAN, std::string("kAuto took the ") +
                                           vk::BatchedKernelName(got) + " kernel, not the " +
                                           vk::BatchedKernelName(want) + " one");
                    }
                    return Parity(ctx, batch, dim, options);
                  }});
  }
  return true;
}();

// Straggler cases (StragglerGroups, framework/sweep_shapes.h): workgroup 0 walks two units and
// every other workgroup one, so it reaches each of the 19 device-wide barriers of a run last. The
// tiled persistent kernel with the 16 × 16 tile at D = 512, B = 64 (128 tiles) on 127 workgroups;
// the column-slice kernel with slices of 16 columns at D = 512 (32 slices) on 31. Parity as above.
const bool kStragglerRegistered = [] {
  struct Straggler {
    const char* name;
    int64_t batch, dim;
    uint32_t units;  // output tiles or column slices
    vk::VulkanBatchedRolloutOptions options;
  };
  const auto ceil_div = [](int64_t a, int64_t b) { return static_cast<uint32_t>((a + b - 1) / b); };
  const Straggler cases[] = {
      {"batched_rollout.tiled_persistent.straggler.b64_d512", 64, 512,
       ceil_div(64, kKGroups8Tile.rows()) * ceil_div(512, kKGroups8Tile.cols()),
       {.tile = kKGroups8Tile, .kernel = BatchedKernel::kTiledPersistent}},
      {"batched_rollout.column_slice.straggler.b20_d512", 20, 512, ceil_div(512, 16),
       {.kernel = BatchedKernel::kColumnSlice, .column_slice_columns = 16}},
  };
  for (const Straggler& c : cases) {
    RegisterCase({c.name, "batched_rollout",
                  "trajectories whose chain or final state differs from core_ref", 0.0,
                  [c](VulkanContext& ctx) {
                    const std::optional<vk::SmInfo> sm = vk::QuerySmInfo(ctx);
                    vk::VulkanBatchedRolloutOptions options = c.options;
                    options.small_batch_groups = StragglerGroups(c.units, sm ? sm->sm_count : 0);
                    return Parity(ctx, c.batch, c.dim, options);
                  }});
  }
  return true;
}();

const bool kColumnSliceParityRegistered = [] {
  const std::pair<int64_t, int64_t> shapes[] = {{1, 1},   {5, 65},  {17, 130},
                                                {20, 506}, {64, 200}, {3, 1000}};
  RegisterParityCases("batched_rollout.column_slice.parity", shapes,
                      KernelOptions(BatchedKernel::kColumnSlice));
  return true;
}();

// Runs one object with each B of `batches` in turn (z0 seeded per B, kParityParams) against
// core_ref at D = `dim`: the measure is the differing trajectories summed over the runs; a run's
// damaged guard words (VulkanBatchedRollout::CheckGuardWords) fail the case. `describe` names
// the settings of the run just made in the detail.
CaseResult PerBatchRuns(VulkanBatchedRollout& r, std::span<const double> a, int64_t dim,
                        std::span<const int64_t> batches,
                        const std::function<std::string()>& describe) {
  int64_t differ = 0;
  std::string detail = "D=" + std::to_string(dim) + ", 20 steps, hash_every 7";
  for (const int64_t batch : batches) {
    const std::vector<double> z0 =
        testing::NonZeroUniform(static_cast<size_t>(batch * dim), kStateSeed + batch, 1.0);
    const Reference want = RunCoreRef(z0, a, dim, kParityParams);
    if (!want.status.ok()) return FailFromStatus(want.status);
    CASE_ASSIGN(BatchedRolloutResult got, r.Run(z0, batch, kParityParams));
    const auto [n, first] = DifferingTrajectories(got, want);
    differ += n;
    detail += "; B=" + std::to_string(batch) + " (" + SeedText(batch, dim) + "): " + describe() +
              ", " + std::to_string(n) + " differ";
    CASE_CHECK(r.CheckGuardWords());
  }
  return Judge(static_cast<double>(differ), 0, detail);
}

// One small-batch object (automatic settings) run with B = 16, 32, 16, 64 rows in turn at
// D = 512: on a GPU that reports its SM count the table (DefaultSmallBatchRules) switches the
// columns per unit between runs (C 64 at B = 16, C 32 with 8 row groups from B = 17), so the
// tiles, workgroups and pipeline must follow B.
CaseResult SmallBatchPerBatch(VulkanContext& ctx) {
  if (auto ns = NeedsFloat64(ctx)) return *ns;
  const int64_t dim = 512;
  const std::vector<double> a = testing::DecayingMatrix(dim, kMatrixSeed + dim);
  CASE_ASSIGN(std::unique_ptr<VulkanBatchedRollout> r,
              VulkanBatchedRollout::Create(ctx, dim, a, KernelOptions(BatchedKernel::kSmallBatch)));
  const int64_t batches[] = {16, 32, 16, 64};
  return PerBatchRuns(*r, a, dim, batches, [&r] {
    return "C=" + std::to_string(r->small_batch_columns()) +
           " R=" + std::to_string(r->small_batch_row_groups()) + " " +
           std::to_string(r->small_batch_groups()) + " workgroups" +
           (r->small_batch_rebuild_once() ? " rebuild once" : "");
  });
}

DASHI_CONFORMANCE_CASE("batched_rollout.small_batch.per_batch", "batched_rollout",
                       "trajectories differing from core_ref, summed over B = 16, 32, 16, 64 on "
                       "one object",
                       0.0, [](VulkanContext& ctx) { return SmallBatchPerBatch(ctx); });

// One kAuto object (the tile SuggestBatchedTile gives at D = 512, B = 48) run with B = 48, 32,
// 64, 16, 128, 48, 32 rows in turn: on a GPU that reports its SM count (132 SMs) kAuto takes the
// tiled persistent kernel at 48 and 64 (two state planes in the persistent buffer), the
// small-batch kernel at 32 and 16 (2·m + 1 planes) and the tiled kernel at 128, whose larger
// state buffers the persistent kernels' descriptor sets must then follow; so the persistent
// buffer regrows for more planes, more rows and new state buffers. Without an SM count
// (lavapipe) every run takes the tiled kernel. The detail names each run's kernel.
CaseResult AutoPerBatch(VulkanContext& ctx) {
  if (auto ns = NeedsFloat64(ctx)) return *ns;
  const int64_t dim = 512;
  const std::vector<double> a = testing::DecayingMatrix(dim, kMatrixSeed + dim);
  const std::optional<vk::SmInfo> sm = vk::QuerySmInfo(ctx);
  const vk::VulkanBatchedRolloutOptions options{
      .tile = vk::SuggestBatchedTile(48, dim, sm ? sm->sm_count : 0),
      .kernel = BatchedKernel::kAuto};
  CASE_ASSIGN(std::unique_ptr<VulkanBatchedRollout> r,
              VulkanBatchedRollout::Create(ctx, dim, a, options));
  const int64_t batches[] = {48, 32, 64, 16, 128, 48, 32};
  return PerBatchRuns(*r, a, dim, batches, [&r] {
    return std::string(vk::BatchedKernelName(r->last_timings().kernel));
  });
}

DASHI_CONFORMANCE_CASE("batched_rollout.auto.per_batch", "batched_rollout",
                       "trajectories differing from core_ref, summed over B = 48, 32, 64, 16, "
                       "128, 48, 32 on one kAuto object",
                       0.0, [](VulkanContext& ctx) { return AutoPerBatch(ctx); });

// Every state observed, as the pipeline's eval rollout asks for it (B = 3, D = 506): the states
// come back through the persistent kernels' history ring, several per dispatch on a GPU.
CaseResult SmallBatchObserved(VulkanContext& ctx, const vk::VulkanBatchedRolloutOptions& options) {
  if (auto ns = NeedsFloat64(ctx)) return *ns;
  const int64_t batch = 3, dim = 506;
  const std::vector<double> a = testing::DecayingMatrix(dim, kMatrixSeed + dim);
  const std::vector<double> z0 =
      testing::NonZeroUniform(static_cast<size_t>(batch * dim), kStateSeed + batch, 1.0);
  const RolloutParams p{.steps = 40, .hash_every = 10, .observe_every = 1};
  std::vector<Hash128> want_states;  // StateHash of every row's state, step by step
  const size_t width = static_cast<size_t>(dim);
  std::vector<std::vector<double>> rows(static_cast<size_t>(batch));
  for (int64_t b = 0; b < batch; ++b) {
    StatusOr<RolloutResult> r =
        Rollout(std::span<const double>(z0).subspan(b * width, width), a, p,
                [&](int64_t, std::span<const double> s) {
                  rows[b].insert(rows[b].end(), s.begin(), s.end());
                  return OkStatus();
                });
    if (!r.ok()) return FailFromStatus(r.status());
  }
  CASE_ASSIGN(std::unique_ptr<VulkanBatchedRollout> r,
              VulkanBatchedRollout::Create(ctx, dim, a, options));
  int64_t differing = 0, observed = 0;
  CASE_ASSIGN(BatchedRolloutResult got,
              r->Run(z0, batch, p, [&](int64_t step, std::span<const double> states) {
                ++observed;
                for (int64_t b = 0; b < batch; ++b) {
                  const std::span<const double> want =
                      std::span<const double>(rows[b]).subspan(step * width, width);
                  differing += std::memcmp(states.data() + b * width, want.data(),
                                           width * sizeof(double)) != 0;
                }
                return OkStatus();
              }));
  const vk::BatchedRolloutTimings& t = r->last_timings();
  const std::string detail =
      "B=3, D=506, " + SeedText(batch, dim) + ", 40 steps, observe_every 1, hash_every 10; " +
      std::to_string(observed) + " observed steps, " + std::to_string(t.dispatches) +
      " dispatches, " + std::to_string(t.submissions) + " submissions" +
      (t.kernel == BatchedKernel::kSmallBatch && r->small_batch_rebuild_once() ? ", rebuild once"
                                                                               : "");
  if (observed != p.steps + 1) return Fail(NAN, "observed steps missing; " + detail);
  return Judge(static_cast<double>(differing), 0, detail);
}

DASHI_CONFORMANCE_CASE("batched_rollout.small_batch.observed", "batched_rollout",
                       "(step, trajectory) observed states differing from core_ref", 0.0,
                       [](VulkanContext& ctx) {
                         return SmallBatchObserved(ctx, KernelOptions(BatchedKernel::kSmallBatch));
                       });
DASHI_CONFORMANCE_CASE("batched_rollout.small_batch.rebuild_once.observed", "batched_rollout",
                       "(step, trajectory) observed states differing from core_ref", 0.0,
                       [](VulkanContext& ctx) {
                         return SmallBatchObserved(ctx, RebuildOnceOptions());
                       });
DASHI_CONFORMANCE_CASE("batched_rollout.column_slice.observed", "batched_rollout",
                       "(step, trajectory) observed states differing from core_ref", 0.0,
                       [](VulkanContext& ctx) {
                         return SmallBatchObserved(ctx, KernelOptions(BatchedKernel::kColumnSlice));
                       });
DASHI_CONFORMANCE_CASE("batched_rollout.tiled_persistent.observed", "batched_rollout",
                       "(step, trajectory) observed states differing from core_ref", 0.0,
                       [](VulkanContext& ctx) {
                         return SmallBatchObserved(
                             ctx, {.tile = kKGroups8Tile,
                                   .kernel = BatchedKernel::kTiledPersistent});
                       });

CaseResult Tiles(VulkanContext& ctx) {
  const BatchedTile tiles[] = {
      {.threads_x = 1, .threads_y = 1, .rows_per_thread = 1, .cols_per_thread = 1, .slice_k = 1},
      {.threads_x = 3, .threads_y = 2, .rows_per_thread = 2, .cols_per_thread = 3, .slice_k = 4},
      {.threads_x = 5, .threads_y = 7, .rows_per_thread = 3, .cols_per_thread = 1, .slice_k = 32},
      {.threads_x = 8, .threads_y = 4, .rows_per_thread = 1, .cols_per_thread = 2, .slice_k = 64},
  };
  // D = 193: 4 chunks, the last of one row. Fewer steps than the parity cases: the
  // one-invocation tile is slow on CPU drivers.
  return TileSweep(ctx, /*batch=*/9, /*dim=*/193, {.steps = 8, .hash_every = 3}, tiles);
}

DASHI_CONFORMANCE_CASE("batched_rollout.tiles", "batched_rollout",
                       "trajectories differing from core_ref, summed over 4 tile shapes", 0.0,
                       Tiles);

// Vector (dvec2) shared-memory loads (BatchedTile::vector_loads): B = 9 and D = 193 are odd, so
// the last row pair and column pair of the tiles are half outside B × D; m = 4 chunks (the last
// of one row): split 2 and 4 give 2 and 4 K blocks; one tile keeps the slots in memory.
CaseResult VectorLoads(VulkanContext& ctx) {
  const BatchedTile tiles[] = {
      {.threads_x = 16, .threads_y = 16, .rows_per_thread = 4, .cols_per_thread = 4,
       .vector_loads = 1},
      {.threads_x = 4, .threads_y = 2, .rows_per_thread = 2, .cols_per_thread = 4, .slice_k = 16,
       .split = 2, .vector_loads = 1},
      {.threads_x = 3, .threads_y = 5, .rows_per_thread = 2, .cols_per_thread = 2, .slice_k = 8,
       .split = 4, .vector_loads = 1},
      {.threads_x = 4, .threads_y = 4, .rows_per_thread = 4, .cols_per_thread = 2, .slice_k = 4,
       .tree_in_memory = 1, .vector_loads = 1},
  };
  return TileSweep(ctx, /*batch=*/9, /*dim=*/193, {.steps = 6, .hash_every = 2}, tiles);
}

DASHI_CONFORMANCE_CASE("batched_rollout.vector_loads", "batched_rollout",
                       "trajectories differing from core_ref, summed over 4 vector-load tiles",
                       0.0, VectorLoads);

// Pipelined term rows (BatchedTile::pipeline_rows): B = 9, D = 193 (a partial last slice for
// k ≥ 2: the unpipelined tail); k 2, 4, 8, 16 with vector and scalar loads, K blocks (a chunk's
// last row computed after the barrier, then PushChunk) and the slots in memory.
CaseResult PipelinedRows(VulkanContext& ctx) {
  const BatchedTile tiles[] = {
      {.threads_x = 16, .threads_y = 16, .rows_per_thread = 4, .cols_per_thread = 4,
       .vector_loads = 1, .pipeline_rows = 1},
      {.threads_x = 4, .threads_y = 2, .rows_per_thread = 2, .cols_per_thread = 4, .slice_k = 16,
       .split = 2, .vector_loads = 1, .pipeline_rows = 1},
      {.threads_x = 3, .threads_y = 5, .rows_per_thread = 1, .cols_per_thread = 3, .slice_k = 4,
       .split = 4, .pipeline_rows = 1},
      {.threads_x = 4, .threads_y = 4, .rows_per_thread = 4, .cols_per_thread = 2, .slice_k = 2,
       .tree_in_memory = 1, .vector_loads = 1, .pipeline_rows = 1},
  };
  return TileSweep(ctx, /*batch=*/9, /*dim=*/193, {.steps = 6, .hash_every = 2}, tiles);
}

DASHI_CONFORMANCE_CASE("batched_rollout.pipelined_rows", "batched_rollout",
                       "trajectories differing from core_ref, summed over 4 pipelined tiles",
                       0.0, PipelinedRows);

// One shared stage and the tree slots in local memory (BatchedTile::single_stage, local_slots):
// B = 9, D = 1100 (18 chunks: five slots, the fold of 16 + 2; a partial last chunk of 12 rows),
// seven one-stage tiles: 64 × 64 with the automatic slice (32 on NVIDIA's 48 KiB, 16 on lavapipe's
// 32 KiB), with and without local slots (the automatic tile of D = 2048 uses them), and with
// k 8; 32 × 32 in one block (the automatic tile of D ≤ 512, B ≈ 256: slice 64 on NVIDIA, 32 on
// lavapipe) and in two K blocks with local slots; k 1 with an odd workgroup; the slots in
// scratch (local_slots then ignored).
CaseResult OneStageLocalSlots(VulkanContext& ctx) {
  const BatchedTile tiles[] = {
      {.threads_x = 16, .threads_y = 16, .rows_per_thread = 4, .cols_per_thread = 4,
       .vector_loads = 1, .single_stage = 1},
      {.threads_x = 16, .threads_y = 16, .rows_per_thread = 4, .cols_per_thread = 4,
       .vector_loads = 1, .spread_combine = 1, .single_stage = 1, .local_slots = 1},
      {.threads_x = 16, .threads_y = 16, .rows_per_thread = 4, .cols_per_thread = 4,
       .slice_k = 8, .vector_loads = 1, .single_stage = 1, .local_slots = 1},
      {.threads_x = 16, .threads_y = 16, .rows_per_thread = 2, .cols_per_thread = 2,
       .vector_loads = 1, .spread_combine = 1, .single_stage = 1},
      {.threads_x = 16, .threads_y = 16, .rows_per_thread = 2, .cols_per_thread = 2,
       .split = 2, .vector_loads = 1, .spread_combine = 1, .single_stage = 1, .local_slots = 1},
      {.threads_x = 3, .threads_y = 5, .rows_per_thread = 1, .cols_per_thread = 3, .slice_k = 1,
       .single_stage = 1, .local_slots = 1},
      {.threads_x = 4, .threads_y = 4, .rows_per_thread = 2, .cols_per_thread = 2, .slice_k = 4,
       .split = 3, .tree_in_memory = 1, .single_stage = 1, .local_slots = 1},
  };
  return TileSweep(ctx, /*batch=*/9, /*dim=*/1100, {.steps = 4, .hash_every = 2}, tiles);
}

DASHI_CONFORMANCE_CASE("batched_rollout.one_stage_local_slots", "batched_rollout",
                       "trajectories differing from core_ref, summed over 7 one-stage tiles "
                       "(4 with local slots)",
                       0.0, OneStageLocalSlots);

// The automatic tiles of many workgroups and the narrower ones (SuggestBatchedTile on a GPU):
// 64 × 64 in one stage of 16 rows with local slots (two workgroups per SM on NVIDIA), in one
// block (five slots) and in two; 96 × 64 of 24 × 16 invocations with local slots (the automatic
// tile before those), in one block and in two; 32 × 32 of 8 × 16
// invocations with 4 × 2 outputs, in one block and in two, and 64 × 32 of 16 × 16 with 4 × 2
// outputs in one block; B = 200 (two full row tiles of 96
// and a partial third of 8 rows; 6.25 tiles of 32), D = 1100 (18 chunks, a partial last chunk
// of 12 rows, a partial last column tile), automatic slices (32 or 64 on NVIDIA's 48 KiB, 16 or
// 32 on lavapipe's 32 KiB) but for the first two tiles (16 given).
CaseResult TallAndNarrowTiles(VulkanContext& ctx) {
  const BatchedTile tiles[] = {
      {.threads_x = 16, .threads_y = 16, .rows_per_thread = 4, .cols_per_thread = 4,
       .slice_k = 16, .vector_loads = 1, .spread_combine = 1, .single_stage = 1,
       .local_slots = 1},
      {.threads_x = 16, .threads_y = 16, .rows_per_thread = 4, .cols_per_thread = 4,
       .slice_k = 16, .split = 2, .vector_loads = 1, .spread_combine = 1, .single_stage = 1,
       .local_slots = 1},
      {.threads_x = 16, .threads_y = 24, .rows_per_thread = 4, .cols_per_thread = 4,
       .vector_loads = 1, .spread_combine = 1, .single_stage = 1, .local_slots = 1},
      {.threads_x = 16, .threads_y = 24, .rows_per_thread = 4, .cols_per_thread = 4, .split = 2,
       .vector_loads = 1, .spread_combine = 1, .single_stage = 1, .local_slots = 1},
      {.threads_x = 16, .threads_y = 8, .rows_per_thread = 4, .cols_per_thread = 2,
       .vector_loads = 1, .spread_combine = 1, .single_stage = 1},
      {.threads_x = 16, .threads_y = 8, .rows_per_thread = 4, .cols_per_thread = 2, .split = 2,
       .vector_loads = 1, .spread_combine = 1, .single_stage = 1},
      {.threads_x = 16, .threads_y = 16, .rows_per_thread = 4, .cols_per_thread = 2,
       .vector_loads = 1, .spread_combine = 1, .single_stage = 1},
  };
  return TileSweep(ctx, /*batch=*/200, /*dim=*/1100, {.steps = 4, .hash_every = 2}, tiles);
}

DASHI_CONFORMANCE_CASE("batched_rollout.tall_and_narrow_tiles", "batched_rollout",
                       "trajectories differing from core_ref, summed over 7 tiles of 256, 384 "
                       "and 128 invocations",
                       0.0, TallAndNarrowTiles);

// K groups (BatchedTile::k_groups: copies of the tile in one workgroup over aligned groups of
// chunks, their sums folded by the contract's tree through shared memory): D = 1100 (18 chunks)
// over 2 copies of 32 × 32 (groups of 16 + 2 chunks) and 4 (groups of 8, 8, 2 and an idle copy),
// 3 copies of 16 × 16 (groups of 8, 8, 2: the third carried in the fold) with the slots in
// scratch, 4 copies in K blocks of 4 chunks (the last block of 2: two idle copies) with the
// combine dispatch and pipelined rows, 2 copies of 64 × 32 with local slots, and 16 × 16 tiles
// of 4 × 8 invocations with scalar loads and one stage (SuggestBatchedTile's form) in 8 copies
// (groups of 4 chunks: 4, 4, 4, 4, 2 and three idle copies) and in 4 copies (groups of 8, 8, 2
// and an idle copy); B = 70 (two full row tiles of 32 and a partial third; 4.375 tiles of 16),
// automatic slices — for the four copies 32 in NVIDIA's 48 KiB, 16 in lavapipe's 32 KiB, where
// SuggestBatchedTile fixes 16 (that exact tile: the unit test KGroupsMatchCoreRef on lavapipe).
CaseResult KGroups(VulkanContext& ctx) {
  const BatchedTile tiles[] = {
      {.threads_x = 16, .threads_y = 8, .rows_per_thread = 4, .cols_per_thread = 2,
       .vector_loads = 1, .spread_combine = 1, .single_stage = 1, .k_groups = 2},
      {.threads_x = 16, .threads_y = 8, .rows_per_thread = 4, .cols_per_thread = 2,
       .vector_loads = 1, .single_stage = 1, .k_groups = 4},
      {.threads_x = 8, .threads_y = 8, .rows_per_thread = 2, .cols_per_thread = 2,
       .tree_in_memory = 1, .k_groups = 3},
      {.threads_x = 8, .threads_y = 8, .rows_per_thread = 2, .cols_per_thread = 2, .split = 5,
       .vector_loads = 1, .pipeline_rows = 1, .k_groups = 4},
      {.threads_x = 16, .threads_y = 16, .rows_per_thread = 4, .cols_per_thread = 2,
       .vector_loads = 1, .single_stage = 1, .local_slots = 1, .k_groups = 2},
      {.threads_x = 8, .threads_y = 4, .rows_per_thread = 4, .cols_per_thread = 2,
       .spread_combine = 1, .single_stage = 1, .k_groups = 8},
      {.threads_x = 8, .threads_y = 4, .rows_per_thread = 4, .cols_per_thread = 2,
       .spread_combine = 1, .single_stage = 1, .k_groups = 4},
  };
  return TileSweep(ctx, /*batch=*/70, /*dim=*/1100, {.steps = 4, .hash_every = 2}, tiles);
}

DASHI_CONFORMANCE_CASE("batched_rollout.k_groups", "batched_rollout",
                       "trajectories differing from core_ref, summed over 7 tiles of 2 to 8 "
                       "K groups",
                       0.0, KGroups);

// K groups at m = 32 chunks (SuggestBatchedTile takes them at 29 … 32 chunks, D = 1793 … 2048,
// for B = 5 … 32 on 132 SMs): D = 2000 (32 chunks, the last of 16 rows), B = 13 (a full row tile
// of 8 and a partial one; one partial tile of 16 or 32) over the forms it can choose — 8 × 16 (2 ×
// 8 invocations of 4 × 2) in eight copies and 16 × 16 (4 × 8) in eight and four (scalar loads, one
// stage; eight copies take groups of four chunks and the automatic slice, four take groups of
// eight and the slice of 16) — and two it does not: 8 × 16 in four copies and 32 × 32 in two
// (groups of 16, vector loads); every copy busy, the fold over eight, four and two group sums.
CaseResult KGroupsM32(VulkanContext& ctx) {
  const BatchedTile tiles[] = {
      {.threads_x = 8, .threads_y = 2, .rows_per_thread = 4, .cols_per_thread = 2,
       .spread_combine = 1, .single_stage = 1, .k_groups = 8},
      {.threads_x = 8, .threads_y = 2, .rows_per_thread = 4, .cols_per_thread = 2, .slice_k = 16,
       .spread_combine = 1, .single_stage = 1, .k_groups = 4},
      {.threads_x = 8, .threads_y = 4, .rows_per_thread = 4, .cols_per_thread = 2,
       .spread_combine = 1, .single_stage = 1, .k_groups = 8},
      {.threads_x = 8, .threads_y = 4, .rows_per_thread = 4, .cols_per_thread = 2, .slice_k = 16,
       .spread_combine = 1, .single_stage = 1, .k_groups = 4},
      {.threads_x = 16, .threads_y = 8, .rows_per_thread = 4, .cols_per_thread = 2,
       .vector_loads = 1, .spread_combine = 1, .single_stage = 1, .k_groups = 2},
  };
  return TileSweep(ctx, /*batch=*/13, /*dim=*/2000, {.steps = 3, .hash_every = 2}, tiles);
}

DASHI_CONFORMANCE_CASE("batched_rollout.k_groups_m32", "batched_rollout",
                       "trajectories differing from core_ref, summed over 5 tiles of 2 to 8 "
                       "K groups at 32 chunks",
                       0.0, KGroupsM32);

// K blocks and the tree slots in memory (BatchedTile::split, tree_in_memory): D = 420, m = 7
// chunks (the last of 36 rows); split 8, 4, 3 give 7, 4 and 2 blocks of 1, 2 and 4 chunks (the
// last partial), and the slots in memory alone.
CaseResult KBlocks(VulkanContext& ctx) {
  const BatchedTile tiles[] = {
      {.threads_x = 4, .threads_y = 4, .rows_per_thread = 2, .cols_per_thread = 2, .slice_k = 16,
       .split = 8},
      {.threads_x = 4, .threads_y = 4, .rows_per_thread = 2, .cols_per_thread = 2, .slice_k = 16,
       .split = 4, .tree_in_memory = 1},
      {.threads_x = 3, .threads_y = 2, .rows_per_thread = 2, .cols_per_thread = 3, .slice_k = 8,
       .split = 3},
      {.threads_x = 4, .threads_y = 4, .rows_per_thread = 2, .cols_per_thread = 2, .slice_k = 16,
       .tree_in_memory = 1},
  };
  return TileSweep(ctx, /*batch=*/9, /*dim=*/420, {.steps = 6, .hash_every = 2}, tiles);
}

DASHI_CONFORMANCE_CASE("batched_rollout.k_blocks", "batched_rollout",
                       "trajectories differing from core_ref, summed over 4 K-block / "
                       "slots-in-memory tiles", 0.0,
                       KBlocks);

// The spread combine (BatchedTile::spread_combine: the K blocks' fold with one output an
// invocation, phase 2): D = 420, m = 7 chunks; split 8, 4, 3 (7, 4, 2 blocks, the last partial)
// with 2 × 2, 2 × 3 and 4 × 4 outputs (4, 6, 16 workgroups along z), vector loads and the slots
// in memory.
CaseResult SpreadCombine(VulkanContext& ctx) {
  const BatchedTile tiles[] = {
      {.threads_x = 4, .threads_y = 4, .rows_per_thread = 2, .cols_per_thread = 2, .slice_k = 16,
       .split = 8, .vector_loads = 1, .spread_combine = 1},
      {.threads_x = 3, .threads_y = 2, .rows_per_thread = 2, .cols_per_thread = 3, .slice_k = 8,
       .split = 4, .tree_in_memory = 1, .spread_combine = 1},
      {.threads_x = 16, .threads_y = 16, .rows_per_thread = 4, .cols_per_thread = 4,
       .split = 3, .vector_loads = 1, .spread_combine = 1},
  };
  return TileSweep(ctx, /*batch=*/9, /*dim=*/420, {.steps = 6, .hash_every = 2}, tiles);
}

DASHI_CONFORMANCE_CASE("batched_rollout.spread_combine", "batched_rollout",
                       "trajectories differing from core_ref, summed over 3 spread-combine tiles",
                       0.0, SpreadCombine);

// Subnormal arithmetic, D = 130 (chunks 64, 64, 2), B = 4: even indices i are "s", odd "n";
// z0[s] ~ 2^-1040 (subnormal), z0[n] ~ 1e-160; A[n][s] ~ 1e-160 (normal × normal = subnormal
// products), the other entries ~ sqrt(3/65). Row b is scaled by 2^-b, so the rows differ while
// staying in range. Checkpoints at every step compare every state by its hash.
CaseResult Subnormal(VulkanContext& ctx, BatchedKernel kernel) {
  if (auto ns = NeedsFloat64(ctx)) return *ns;
  const int64_t dim = 130, batch = 4;
  Xoshiro256ss rng(0x5AB0A12u);
  auto u = [&] { return 2.0 * rng.NextDouble() - 1.0; };
  std::vector<double> a(static_cast<size_t>(dim * dim));
  for (int64_t i = 0; i < dim; ++i) {
    for (int64_t j = 0; j < dim; ++j) {
      a[i * dim + j] = u() * ((i % 2 == 1 && j % 2 == 0) ? 1e-160 : std::sqrt(3.0 / 65.0));
    }
  }
  std::vector<double> z0(static_cast<size_t>(batch * dim));
  for (size_t k = 0; k < z0.size(); ++k) {
    const int64_t b = static_cast<int64_t>(k) / dim, i = static_cast<int64_t>(k) % dim;
    z0[k] = std::ldexp(u() * (i % 2 == 0 ? std::ldexp(1.0, -1040) : 1e-160), -b);
  }
  const RolloutParams p{.steps = 16, .hash_every = 1, .observe_every = 1};
  int64_t subnormals = 0;
  const Reference want = RunCoreRef(z0, a, dim, p, [&](int64_t, std::span<const double> s) {
    for (double x : s) subnormals += std::fpclassify(x) == FP_SUBNORMAL;
    return OkStatus();
  });
  if (!want.status.ok()) return FailFromStatus(want.status);
  CASE_ASSIGN(const auto compared,
              DeviceVersusReference(ctx, batch, dim, a, z0, p, want, KernelOptions(kernel)));
  const vk::Float64Controls fc = vk::QueryFloat64Controls(ctx);
  const std::string detail = "D=130, B=4, seed 0x5ab0a12, 16 steps, every state hashed; "
                             "reference states hold " + std::to_string(subnormals) +
                             " subnormal entries; " + compared.second +
                             "; device fp64 float controls: " + fc.ToString();
  if (subnormals == 0) return Fail(NAN, "test data produced no subnormals; " + detail);
  return Judge(static_cast<double>(compared.first), 0, detail);
}

DASHI_CONFORMANCE_CASE("batched_rollout.subnormal", "batched_rollout",
                       "trajectories differing from core_ref (subnormal range)", 0.0,
                       [](VulkanContext& ctx) { return Subnormal(ctx, BatchedKernel::kTiled); });
DASHI_CONFORMANCE_CASE("batched_rollout.small_batch.subnormal", "batched_rollout",
                       "trajectories differing from core_ref (subnormal range)", 0.0,
                       [](VulkanContext& ctx) {
                         return Subnormal(ctx, BatchedKernel::kSmallBatch);
                       });
DASHI_CONFORMANCE_CASE("batched_rollout.column_slice.subnormal", "batched_rollout",
                       "trajectories differing from core_ref (subnormal range)", 0.0,
                       [](VulkanContext& ctx) {
                         return Subnormal(ctx, BatchedKernel::kColumnSlice);
                       });
DASHI_CONFORMANCE_CASE("batched_rollout.tiled_persistent.subnormal", "batched_rollout",
                       "trajectories differing from core_ref (subnormal range)", 0.0,
                       [](VulkanContext& ctx) {
                         return Subnormal(ctx, BatchedKernel::kTiledPersistent);
                       });

// States of signed zeros only: column j ≡ 0 (mod 3) of A all negative, j ≡ 1 all positive, the
// rest mixed; row 0 of Z0 is all +0, row 1 all −0, the others random signs. The sign of every
// output depends on the chunk partial starting from its first product (not from +0), on the tree,
// and on nothing being added past D.
CaseResult SignedZero(VulkanContext& ctx, BatchedKernel kernel) {
  if (auto ns = NeedsFloat64(ctx)) return *ns;
  const int64_t dim = 200, batch = 6;
  Xoshiro256ss rng(0x2E206u);
  std::vector<double> a(static_cast<size_t>(dim * dim));
  for (size_t k = 0; k < a.size(); ++k) {
    const double m = 0.5 + 0.5 * rng.NextDouble();
    const int64_t j = static_cast<int64_t>(k) % dim;
    a[k] = j % 3 == 0 ? -m : j % 3 == 1 ? m : ((rng.Next() & 1) ? m : -m);
  }
  std::vector<double> z0(static_cast<size_t>(batch * dim));
  for (size_t k = 0; k < z0.size(); ++k) {
    const size_t row = k / static_cast<size_t>(dim);
    z0[k] = row == 0 ? 0.0 : row == 1 ? -0.0 : ((rng.Next() & 1) ? 0.0 : -0.0);
  }
  const RolloutParams p{.steps = 8, .hash_every = 1, .observe_every = 1};
  int64_t negative = 0, positive = 0;
  const Reference want = RunCoreRef(z0, a, dim, p, [&](int64_t, std::span<const double> s) {
    for (double x : s) (std::signbit(x) ? negative : positive) += 1;
    return OkStatus();
  });
  if (!want.status.ok()) return FailFromStatus(want.status);
  CASE_ASSIGN(const auto compared,
              DeviceVersusReference(ctx, batch, dim, a, z0, p, want, KernelOptions(kernel)));
  const std::string detail = "D=200, B=6, seed 0x2e206, 8 steps, every state hashed; reference "
                             "states hold " + std::to_string(negative) + " -0 and " +
                             std::to_string(positive) + " +0 entries; " + compared.second;
  if (negative == 0 || positive == 0) {
    return Fail(NAN, "test data did not produce both signed zeros; " + detail);
  }
  return Judge(static_cast<double>(compared.first), 0, detail);
}

DASHI_CONFORMANCE_CASE("batched_rollout.signed_zero", "batched_rollout",
                       "trajectories differing from core_ref (signed zeros)", 0.0,
                       [](VulkanContext& ctx) { return SignedZero(ctx, BatchedKernel::kTiled); });
DASHI_CONFORMANCE_CASE("batched_rollout.small_batch.signed_zero", "batched_rollout",
                       "trajectories differing from core_ref (signed zeros)", 0.0,
                       [](VulkanContext& ctx) {
                         return SignedZero(ctx, BatchedKernel::kSmallBatch);
                       });
DASHI_CONFORMANCE_CASE("batched_rollout.column_slice.signed_zero", "batched_rollout",
                       "trajectories differing from core_ref (signed zeros)", 0.0,
                       [](VulkanContext& ctx) {
                         return SignedZero(ctx, BatchedKernel::kColumnSlice);
                       });
DASHI_CONFORMANCE_CASE("batched_rollout.tiled_persistent.signed_zero", "batched_rollout",
                       "trajectories differing from core_ref (signed zeros)", 0.0,
                       [](VulkanContext& ctx) {
                         return SignedZero(ctx, BatchedKernel::kTiledPersistent);
                       });

CaseResult GuardWords(VulkanContext& ctx, BatchedKernel kernel) {
  if (auto ns = NeedsFloat64(ctx)) return *ns;
  int64_t damaged = 0;
  std::string detail = std::to_string(vk::kGuardBytes) +
                       " guard bytes after the B x D states of both state buffers, after 5 "
                       "steps at (B, D, tile):";
  const BatchedTile small{.threads_x = 3, .threads_y = 5, .rows_per_thread = 2,
                          .cols_per_thread = 2, .slice_k = 16};
  for (const auto& [batch, dim, tile] :
       {std::tuple<int64_t, int64_t, BatchedTile>{1, 1, {}}, {63, 65, {}}, {65, 64, {}},
        {11, 100, small}}) {
    const std::vector<double> a = testing::DecayingMatrix(dim, kMatrixSeed + dim);
    const std::vector<double> z0 =
        testing::NonZeroUniform(static_cast<size_t>(batch * dim), kStateSeed + batch, 1.0);
    CASE_ASSIGN(std::unique_ptr<VulkanBatchedRollout> r,
                VulkanBatchedRollout::Create(ctx, dim, a, {.tile = tile, .kernel = kernel}));
    CASE_ASSIGN(BatchedRolloutResult got,
                r->Run(z0, batch, {.steps = 5, .hash_every = 2, .observe_every = 1},
                       [](int64_t, std::span<const double>) { return OkStatus(); }));
    const Status guards = r->CheckGuardWords();
    detail += " (" + std::to_string(batch) + ", " + std::to_string(dim) + ", " +
              r->tile().ToString() + ")" + (guards.ok() ? "" : " " + guards.ToString());
    if (guards.code() == StatusCode::kDataLoss) {
      ++damaged;
    } else if (!guards.ok()) {
      return FailFromStatus(guards);
    }
  }
  return Judge(static_cast<double>(damaged), 0, detail);
}

DASHI_CONFORMANCE_CASE("batched_rollout.guard_words", "batched_rollout",
                       "configurations with an overwritten guard word", 0.0,
                       [](VulkanContext& ctx) { return GuardWords(ctx, BatchedKernel::kTiled); });
// The same shapes with the small-batch kernel: guards after the states, the chunk partials and
// the history ring (VulkanBatchedRollout::CheckGuardWords checks all of them).
DASHI_CONFORMANCE_CASE("batched_rollout.small_batch.guard_words", "batched_rollout",
                       "configurations with an overwritten guard word", 0.0,
                       [](VulkanContext& ctx) {
                         return GuardWords(ctx, BatchedKernel::kSmallBatch);
                       });

CaseResult RejectsNonFiniteInput(VulkanContext& ctx) {
  if (auto ns = NeedsFloat64(ctx)) return *ns;
  const int64_t dim = 70, batch = 3;
  const std::vector<double> a = testing::DecayingMatrix(dim, kMatrixSeed + dim);
  const std::vector<double> z0 =
      testing::NonZeroUniform(static_cast<size_t>(batch * dim), kStateSeed + batch, 1.0);
  const double inf = std::numeric_limits<double>::infinity();
  int64_t accepted = 0, tried = 0;
  std::string detail;
  auto expect_invalid = [&](const std::string& what, const Status& st) {
    ++tried;
    if (st.code() == StatusCode::kInvalidArgument) return;
    ++accepted;
    detail += " [" + what + ": " + (st.ok() ? std::string("accepted") : st.ToString()) + "]";
  };
  CASE_ASSIGN(std::unique_ptr<VulkanBatchedRollout> r, VulkanBatchedRollout::Create(ctx, dim, a));
  for (double bad : {std::numeric_limits<double>::quiet_NaN(), inf, -inf}) {
    std::vector<double> a_bad = a;
    a_bad[5 * dim + 66] = bad;
    expect_invalid("A[5][66] = " + std::to_string(bad),
                   VulkanBatchedRollout::Create(ctx, dim, a_bad).status());
    for (const size_t index : {size_t{0}, static_cast<size_t>(dim + 64), z0.size() - 1}) {
      std::vector<double> z_bad = z0;
      z_bad[index] = bad;
      expect_invalid("Z0 flat index " + std::to_string(index) + " = " + std::to_string(bad),
                     r->Run(z_bad, batch, {.steps = 3}).status());
    }
  }
  return Judge(static_cast<double>(accepted), 0,
               std::to_string(tried) + " non-finite inputs (NaN, +Inf, -Inf in A and in the "
                                       "first, second and last trajectory of Z0), each must be "
                                       "INVALID_ARGUMENT" + detail);
}

DASHI_CONFORMANCE_CASE("batched_rollout.rejects_nonfinite_input", "batched_rollout",
                       "non-finite inputs not rejected with INVALID_ARGUMENT", 0.0,
                       RejectsNonFiniteInput);

// Trajectories 2 and 4 start 1e100 times larger (with equal values), so they overflow first and
// at the same step; the error must be core_ref's for trajectory 2, prefixed "trajectory 2".
CaseResult NonFiniteStateError(VulkanContext& ctx) {
  if (auto ns = NeedsFloat64(ctx)) return *ns;
  const int64_t dim = 90, batch = 6;
  std::vector<double> a = testing::DecayingMatrix(dim, kMatrixSeed + dim);
  for (double& x : a) x *= 1e25;
  std::vector<double> z0 =
      testing::NonZeroUniform(static_cast<size_t>(batch * dim), kStateSeed + batch, 1e-100);
  for (int64_t i = 0; i < dim; ++i) {
    z0[2 * dim + i] *= 1e100;
    z0[4 * dim + i] = z0[2 * dim + i];
  }
  const RolloutParams p{.steps = 60, .hash_every = 25};
  const Status want =
      Rollout(std::span<const double>(z0).subspan(2 * dim, dim), a, p).status().WithPrefix(
          "trajectory 2");
  if (want.code() != StatusCode::kOutOfRange) {
    return Fail(NAN, "core_ref did not blow up as designed: " + want.ToString());
  }
  CASE_ASSIGN(std::unique_ptr<VulkanBatchedRollout> r, VulkanBatchedRollout::Create(ctx, dim, a));
  const Status got = r->Run(z0, batch, p).status();
  const bool same = got == want;
  const std::string device = same ? "identical" : got.ToString();
  return Judge(same ? 0.0 : 1.0, 0,
               "A = 1e25 x DecayingMatrix, B=6, 60 steps, hash_every 25; expected: " +
                   want.ToString() + "; device: " + device);
}

DASHI_CONFORMANCE_CASE("batched_rollout.nonfinite_state_error", "batched_rollout",
                       "error status differs from core_ref's for the first trajectory to blow up "
                       "(0 = identical)",
                       0.0, NonFiniteStateError);

}  // namespace
}  // namespace dashi::conformance
