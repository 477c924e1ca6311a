// Throughput of the batched fp64 rollout (accel_vulkan/batched/vulkan_batched_rollout.h): device
// time per step, trajectory-steps/s and fp64 GFLOP/s (2·B·D² per step) for each D, B and tile.
//
//   bazel run -c opt //bench/vulkan:batched_rollout_vulkan_benchmark --
//       [--device SEL] [--dims 512,1024] [--batches 64,256,1024,4096] [--steps 50] [--reps 7]
//       [--warmup 2] [--warmup-seconds 0] [--tiles 16x16x4x4,8x16x4x4x8] [--verify-rows 3]
//       [--no-verify] [--validation] [--kernels auto,tiled,small-batch,column-slice,tiled-persistent,single]
//       [--small-configs CxRxG[xP[xQxU[xO[xL[xS[xX]]]]]],...] [--column-configs WcxRxGxP,...]
//       [--pipeline-stats] [--pipeline-ir FILE]
//
// --pipeline-stats: the driver's statistics of each row's tiled pipeline
// (VK_KHR_pipeline_executable_properties: on NVIDIA the register count per invocation, on
// lavapipe its own), printed as "  stats: ..." lines under the row; --pipeline-ir FILE appends
// the driver's internal representations of each tiled pipeline (where it exposes any) to FILE.
//
// --small-configs: the small-batch kernel's rows run once per setting CxRxG[xP[xQxU[xO[xL[xS[xX]]]]]]: C
// columns per unit, R row groups, G interleaved rows, P rows per pass, Q rebuilding invocations, U
// entries each rebuilds at once, O rebuild each state entry once (1 off, 2 on, 3 on with plain
// barriers, 4 on with per-chunk counters, 5 on in two halves), L the staged state loaded as dvec2 pairs (1 off,
// 2 on), S the rebuild's and the new state's loads as pairs (1 off, 2 on), X a TIMING PROBE that
// gives WRONG STATES (bits of the step skipped, with O = 2 only: 1 the second wait, 2 the chains,
// 4 the new state's loads, 8 the rebuild; its rows verify as MISMATCH and are labelled "TIMING
// PROBE") (VulkanBatchedRolloutOptions' small_batch_workgroup, _row_groups, _group_rows,
// _pass_rows, _rebuilders, _rebuild_unroll, _rebuild_once, _pair_loads, _pair_state_loads,
// _timing_probe; 0 = automatic / off). Default: 0x0x0.
// --column-configs: the column-slice kernel's rows run once per setting WcxRxGxP: columns per
// slice, row groups, interleaved rows, rows per pass (column_slice_columns, _row_groups,
// _group_rows, _pass_rows; 0 = automatic), optionally xF: bits 1 = no prefetch, 2 = A in shared
// memory, 4 = A read from memory (column_slice_no_prefetch, _a_in_shared, _a_in_memory).
// Default: 0x0x0x0.
// --kernels: the batched kernel of each row (BatchedKernel: auto, tiled, small-batch), and
// `single`: the single-trajectory VulkanRollout (its automatic kernel, persistent on a GPU) run B
// times one after the other is not measured; its row gives the time of ONE trajectory's step at
// that D (the baseline of issue 13's "within 3x of the single-trajectory step"), B ignored.
// --warmup-seconds: untimed runs go on until this much wall time has passed (after --warmup
// runs), so the GPU clock is up when timing starts. The wall time counts from the end of the
// first run's check against core_ref (the GPU idles during it and its clock drops).
//
// Inputs: A = DecayingMatrix(D, seed 1) and Z0 = NonZeroUniform(B·D, seed 2, 1.0)
// (core_ref/testing/random_inputs.h: never zero; states shrink by about 0.69 per step and stay
// normal for more than a thousand steps). One Run() of `steps` steps with hash_every = steps is one submission
// whose only readback is the final B×D state; the per-step time is the device time from the
// first dispatch to the last step's barrier (BatchedRolloutTimings::steps_ms, timestamps), so it
// counts every dispatch and barrier and excludes the final copy, submission and host hashing.
// Each row: `warmup` untimed runs, then the median (and min) over `reps` runs.
//
// Each row (an error row too) ends with the UTC wall-clock span of its measurement, "[HH:MM:SS.s-HH:MM:SS.s UTC]"
// (set-up, check, warm-up and timed runs), so that a clock log (nvidia-smi -lms) can be matched
// to the row.
//
// Before timing, the first run is checked bit for bit against core_ref's Rollout for sample
// trajectories (the first, the last and evenly spaced ones between: --verify-rows): the hash chain
// and the final state. A mismatch is printed in the row and makes the exit status 1.
// A tile is TYxTXxRMxRN[xK[xS[xM[xV[xP[xC[xO[xL[xG]]]]]]]]], rows (trajectories) before columns as
// BatchedTile::ToString prints it: threads_y, threads_x, rows_per_thread, cols_per_thread,
// slice_k (omitted or 0 = automatic), split (K blocks; omitted = 1), tree_in_memory (0 or 1;
// omitted = 0) and vector_loads (0 or 1; omitted = 0), then pipeline_rows, spread_combine,
// single_stage and local_slots (0 or 1; omitted = 0), then k_groups (1 … 16; omitted = 1).
// Without --tiles each (D, B) row uses
// SuggestBatchedTile (batched_tile.h): the largest tile that still gives every SM a workgroup.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "accel_vulkan/batched/vulkan_batched_rollout.h"
#include "accel_vulkan/context.h"
#include "accel_vulkan/rollout/vulkan_rollout.h"
#include "core_ref/rollout/rollout.h"
#include "core_ref/testing/random_inputs.h"

namespace {

using dashi::StatusOr;
using dashi::vk::BatchedTile;

struct Flags {
  std::string device;
  std::vector<int64_t> dims = {512, 1024};
  std::vector<int64_t> batches = {64, 256, 1024, 4096};
  std::vector<BatchedTile> tiles;  // empty: SuggestBatchedTile per (B, D)
  int64_t steps = 50;
  int64_t reps = 7;
  int64_t warmup = 2;
  int64_t verify_rows = 3;  // 0 = --no-verify
  bool validation = false;
  std::vector<std::string> kernels = {"auto"};
  double warmup_seconds = 0;
  std::vector<std::vector<int64_t>> small_configs = {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}};  // C R G P Q U O L S X
  std::vector<std::vector<int64_t>> column_configs = {{0, 0, 0, 0, 0}};  // Wc, R, G, P, F
  bool pipeline_stats = false;
  std::string pipeline_ir;  // file the internal representations are appended to ("" = none)
};

constexpr const char* kUsage =
    "usage: batched_rollout_vulkan_benchmark [--device SEL] [--dims 512,1024]\n"
    "         [--batches 64,256,1024,4096] [--steps 50] [--reps 7] [--warmup 2]\n"
    "         [--warmup-seconds 0] [--tiles TYxTXxRMxRN[xK[xS[xM[xV[xP[xC[xO[xL[xG]]]]]]]]],...]\n"
    "         [--verify-rows 3]\n"
    "         [--no-verify] [--validation] [--kernels auto,tiled,small-batch,column-slice,tiled-persistent,single]\n"
    "         [--small-configs CxRxG[xP[xQxU[xO[xL[xS[xX]]]]]],...] [--column-configs WcxRxGxP,...]\n"
    "         [--pipeline-stats] [--pipeline-ir FILE]\n";

// Splits "a<sep>b<sep>c"; false when any piece is not an integer ≥ min_value.
bool ParseIntegers(const std::string& text, char sep, int64_t min_value,
                   std::vector<int64_t>* out) {
  out->clear();
  std::stringstream in(text);
  std::string piece;
  while (std::getline(in, piece, sep)) {
    char* end = nullptr;
    const long long v = std::strtoll(piece.c_str(), &end, 10);
    if (piece.empty() || *end != '\0' || v < min_value) return false;
    out->push_back(v);
  }
  return !out->empty();
}

bool ParseTiles(const std::string& text, std::vector<BatchedTile>* out) {
  out->clear();
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    std::vector<int64_t> v;
    if (!ParseIntegers(item, 'x', 0, &v) || v.size() < 4 || v.size() > 13) return false;
    out->push_back({.threads_x = static_cast<uint32_t>(v[1]),
                    .threads_y = static_cast<uint32_t>(v[0]),
                    .rows_per_thread = static_cast<uint32_t>(v[2]),
                    .cols_per_thread = static_cast<uint32_t>(v[3]),
                    .slice_k = v.size() >= 5 ? static_cast<uint32_t>(v[4]) : 0u,
                    .split = v.size() >= 6 ? static_cast<uint32_t>(v[5]) : 1u,
                    .tree_in_memory = v.size() >= 7 ? static_cast<uint32_t>(v[6]) : 0u,
                    .vector_loads = v.size() >= 8 ? static_cast<uint32_t>(v[7]) : 0u,
                    .pipeline_rows = v.size() >= 9 ? static_cast<uint32_t>(v[8]) : 0u,
                    .spread_combine = v.size() >= 10 ? static_cast<uint32_t>(v[9]) : 0u,
                    .single_stage = v.size() >= 11 ? static_cast<uint32_t>(v[10]) : 0u,
                    .local_slots = v.size() >= 12 ? static_cast<uint32_t>(v[11]) : 0u,
                    .k_groups = v.size() >= 13 ? static_cast<uint32_t>(v[12]) : 1u});
  }
  return !out->empty();
}

bool ParseFlags(int argc, char** argv, Flags* f) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--help" || arg == "-h") {
      std::printf("%s", kUsage);
      std::exit(0);
    }
    if (arg == "--no-verify") {
      f->verify_rows = 0;
      continue;
    }
    if (arg == "--validation") {
      f->validation = true;
      continue;
    }
    if (arg == "--pipeline-stats") {
      f->pipeline_stats = true;
      continue;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "%s needs a value\n", arg.c_str());
      return false;
    }
    const std::string value = argv[++i];
    // The single-integer flags: --steps and --reps ≥ 1, --warmup and --verify-rows ≥ 0.
    int64_t* integer = arg == "--steps"         ? &f->steps
                       : arg == "--reps"        ? &f->reps
                       : arg == "--warmup"      ? &f->warmup
                       : arg == "--verify-rows" ? &f->verify_rows
                                                : nullptr;
    std::vector<int64_t> one;
    bool ok = true;
    if (integer != nullptr) {
      ok = ParseIntegers(value, ',', integer == &f->steps || integer == &f->reps ? 1 : 0, &one) &&
           one.size() == 1;
      if (ok) *integer = one[0];
    } else if (arg == "--device") {
      f->device = value;
    } else if (arg == "--pipeline-ir") {
      f->pipeline_ir = value;
    } else if (arg == "--dims") {
      ok = ParseIntegers(value, ',', 1, &f->dims);
    } else if (arg == "--batches") {
      ok = ParseIntegers(value, ',', 1, &f->batches);
    } else if (arg == "--tiles") {
      ok = ParseTiles(value, &f->tiles);
    } else if (arg == "--small-configs") {
      f->small_configs.clear();
      std::stringstream in(value);
      std::string item;
      while (ok && std::getline(in, item, ',')) {
        std::vector<int64_t> v;
        ok = ParseIntegers(item, 'x', 0, &v) && v.size() >= 3 && v.size() <= 10;
        v.resize(10, 0);
        f->small_configs.push_back(v);
      }
      ok = ok && !f->small_configs.empty();
    } else if (arg == "--column-configs") {
      f->column_configs.clear();
      std::stringstream in(value);
      std::string item;
      while (ok && std::getline(in, item, ',')) {
        std::vector<int64_t> v;
        ok = ParseIntegers(item, 'x', 0, &v) && v.size() >= 4 && v.size() <= 5;
        v.resize(5, 0);
        f->column_configs.push_back(v);
      }
      ok = ok && !f->column_configs.empty();
    } else if (arg == "--warmup-seconds") {
      char* end = nullptr;
      f->warmup_seconds = std::strtod(value.c_str(), &end);
      ok = !value.empty() && *end == '\0' && f->warmup_seconds >= 0;
    } else if (arg == "--kernels") {
      f->kernels.clear();
      std::stringstream in(value);
      std::string k;
      while (std::getline(in, k, ',')) {
        ok = ok && (k == "auto" || k == "tiled" || k == "small-batch" || k == "column-slice" ||
                    k == "tiled-persistent" || k == "single");
        f->kernels.push_back(k);
      }
      ok = ok && !f->kernels.empty();
    } else {
      std::fprintf(stderr, "unknown argument %s\n", arg.c_str());
      return false;
    }
    if (!ok) {
      std::fprintf(stderr, "bad value for %s: %s\n", arg.c_str(), value.c_str());
      return false;
    }
  }
  return true;
}

// Median and minimum of the timed runs (v non-empty).
struct Spread {
  double median = 0;
  double min = 0;
};
Spread SpreadOf(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return {n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]), v.front()};
}

// Sample trajectories: `count` indices from 0 to B−1, evenly spaced (fewer when B is small).
std::vector<int64_t> SampleRows(int64_t batch, int64_t count) {
  std::vector<int64_t> rows;
  for (int64_t k = 0; k < count; ++k) {
    rows.push_back(count == 1 ? 0 : k * (batch - 1) / (count - 1));
  }
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  return rows;
}

// "bit-exact (rows 0, 31, 63)" or "MISMATCH row 31 (...)".
std::string Verify(const dashi::vk::BatchedRolloutResult& got, std::span<const double> z0,
                   std::span<const double> a, const dashi::RolloutParams& params,
                   int64_t count) {
  std::string rows;
  for (int64_t b : SampleRows(got.batch, count)) {
    const size_t d = static_cast<size_t>(got.dim);
    StatusOr<dashi::RolloutResult> want =
        dashi::Rollout(z0.subspan(static_cast<size_t>(b) * d, d), a, params);
    if (!want.ok()) return "core_ref failed on row " + std::to_string(b);
    const std::span<const double> state = got.final_state(b);
    if (got.chains[b] != want->chain ||
        std::memcmp(state.data(), want->final_state.data(), d * sizeof(double)) != 0) {
      return "MISMATCH row " + std::to_string(b);
    }
    rows += (rows.empty() ? "" : ", ") + std::to_string(b);
  }
  return "bit-exact (rows " + rows + ")";
}

struct Row {
  std::string error;  // Create() or Run() failed
  std::string verified = "skipped";
  BatchedTile tile;
  std::string kernel;  // what ran: the tile, or the small-batch kernel's settings
  Spread us_per_step;
  Spread host_ms;
  std::vector<std::string> stats;  // --pipeline-stats: the tiled pipeline's statistics
};

// The wall clock as HH:MM:SS.s in UTC (the row's span, beside a clock log).
std::string UtcClock() {
  const auto now = std::chrono::system_clock::now();
  const std::time_t secs = std::chrono::system_clock::to_time_t(now);
  const auto tenths = std::chrono::duration_cast<std::chrono::milliseconds>(
                          now.time_since_epoch()).count() % 1000 / 100;
  std::tm utc{};
  gmtime_r(&secs, &utc);
  char buf[32];
  std::snprintf(buf, sizeof buf, "%02d:%02d:%02d.%lld", utc.tm_hour, utc.tm_min, utc.tm_sec,
                static_cast<long long>(tenths));
  return buf;
}

// Untimed runs while rep < warmup or less than `seconds` have passed since `start`.
bool WarmingUp(int64_t rep, const Flags& f, std::chrono::steady_clock::time_point start,
               int64_t* timed_from) {
  if (*timed_from >= 0) return rep < *timed_from;
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (rep < f.warmup || elapsed < f.warmup_seconds) return true;
  *timed_from = rep;
  return false;
}

// The single-trajectory VulkanRollout (automatic kernel) on row 0: device µs per step.
Row MeasureSingle(dashi::vk::VulkanContext& ctx, int64_t dim, std::span<const double> a,
                  std::span<const double> z0, const Flags& f) {
  Row row;
  const dashi::RolloutParams params{.steps = f.steps, .hash_every = f.steps};
  StatusOr<std::unique_ptr<dashi::vk::VulkanRollout>> r = dashi::vk::VulkanRollout::Create(
      ctx, dim, a, {.max_steps_per_submit = f.steps, .max_snapshots_per_submit = 1});
  if (!r.ok()) {
    row.error = r.status().ToString();
    return row;
  }
  row.kernel = std::string("single trajectory, ") + dashi::vk::RolloutKernelName((*r)->kernel());
  const std::span<const double> z = z0.subspan(0, static_cast<size_t>(dim));
  std::vector<double> per_step_us, host_ms;
  auto start = std::chrono::steady_clock::now();
  int64_t timed_from = -1;
  for (int64_t rep = 0; timed_from < 0 || rep < timed_from + f.reps; ++rep) {
    StatusOr<dashi::RolloutResult> got = (*r)->Run(z, params);
    if (!got.ok()) {
      row.error = got.status().ToString();
      return row;
    }
    if (rep == 0 && f.verify_rows > 0) {
      StatusOr<dashi::RolloutResult> want = dashi::Rollout(z, a, params);
      row.verified = want.ok() && want->chain == got->chain ? "bit-exact (row 0)" : "MISMATCH row 0";
      start = std::chrono::steady_clock::now();  // the warm-up time starts after the check
    }
    if (!WarmingUp(rep, f, start, &timed_from)) {
      per_step_us.push_back((*r)->last_timings().device_us_per_step);
      host_ms.push_back((*r)->last_timings().host_ms);
    }
  }
  row.us_per_step = SpreadOf(per_step_us);
  row.host_ms = SpreadOf(host_ms);
  return row;
}

Row Measure(dashi::vk::VulkanContext& ctx, int64_t dim, int64_t batch, const BatchedTile& tile,
            dashi::vk::BatchedKernel kernel, std::span<const double> a,
            std::span<const double> z0, const Flags& f, const std::vector<int64_t>& small,
            const std::vector<int64_t>& columns) {
  Row row;
  if (small.size() != 10 || columns.size() != 5) {  // every small-batch / column-slice field given
    row.error = "internal: a settings list of the wrong length";
    return row;
  }
  const dashi::RolloutParams params{.steps = f.steps, .hash_every = f.steps};
  StatusOr<std::unique_ptr<dashi::vk::VulkanBatchedRollout>> r =
      dashi::vk::VulkanBatchedRollout::Create(
          ctx, dim, a,
          // One submission of all steps, one staging slot (its only snapshot is the final state).
          {.tile = tile,
           .kernel = kernel,
           .small_batch_workgroup = static_cast<uint32_t>(small[0]),
           .small_batch_row_groups = static_cast<uint32_t>(small[1]),
           .small_batch_group_rows = static_cast<uint32_t>(small[2]),
           .small_batch_pass_rows = static_cast<uint32_t>(small[3]),
           .small_batch_rebuilders = static_cast<uint32_t>(small[4]),
           .small_batch_rebuild_unroll = static_cast<uint32_t>(small[5]),
           .small_batch_rebuild_once = static_cast<uint32_t>(small[6]),
           .small_batch_pair_loads = static_cast<uint32_t>(small[7]),
           .small_batch_pair_state_loads = static_cast<uint32_t>(small[8]),
           .small_batch_timing_probe = static_cast<uint32_t>(small[9]),
           .column_slice_columns = static_cast<uint32_t>(columns[0]),
           .column_slice_row_groups = static_cast<uint32_t>(columns[1]),
           .column_slice_group_rows = static_cast<uint32_t>(columns[2]),
           .column_slice_pass_rows = static_cast<uint32_t>(columns[3]),
           .column_slice_a_in_shared = (columns[4] & 2) != 0,
           .column_slice_a_in_memory = (columns[4] & 4) != 0,
           .column_slice_no_prefetch = (columns[4] & 1) != 0,
           .max_steps_per_submit = f.steps,
           .max_snapshots_per_submit = 1});
  if (!r.ok()) {
    row.error = r.status().ToString();
    return row;
  }
  row.tile = (*r)->tile();
  if (f.pipeline_stats || !f.pipeline_ir.empty()) {
    StatusOr<std::vector<std::string>> stats = (*r)->tiled_pipeline().ExecutableStatistics();
    row.stats = stats.ok() ? *stats : std::vector<std::string>{stats.status().ToString()};
  }
  if (!f.pipeline_ir.empty()) {
    StatusOr<std::string> ir = (*r)->tiled_pipeline().ExecutableRepresentations();
    if (FILE* out = std::fopen(f.pipeline_ir.c_str(), "a")) {
      std::fprintf(out, "##### D %lld, tile %s\n%s\n", static_cast<long long>(dim),
                   row.tile.ToString().c_str(),
                   ir.ok() ? ir->c_str() : ir.status().ToString().c_str());
      std::fclose(out);
    }
  }
  std::vector<double> per_step_us, host_ms;
  auto start = std::chrono::steady_clock::now();
  int64_t timed_from = -1;
  for (int64_t rep = 0; timed_from < 0 || rep < timed_from + f.reps; ++rep) {
    StatusOr<dashi::vk::BatchedRolloutResult> got = (*r)->Run(z0, batch, params);
    if (!got.ok()) {
      row.error = got.status().ToString();
      return row;
    }
    if (rep == 0) {
      const dashi::vk::BatchedRolloutTimings& t = (*r)->last_timings();
      row.kernel = (*r)->KernelDescription(t.kernel) +
                   (t.kernel == dashi::vk::BatchedKernel::kTiled
                        ? std::string()
                        : ", " + std::to_string(t.dispatches) + " dispatch(es)");
    }
    if (rep == 0 && f.verify_rows > 0) {
      row.verified = Verify(*got, z0, a, params, f.verify_rows);
      start = std::chrono::steady_clock::now();  // the warm-up time starts after the check
    }
    if (!WarmingUp(rep, f, start, &timed_from)) {
      per_step_us.push_back((*r)->last_timings().device_us_per_step);
      host_ms.push_back((*r)->last_timings().host_ms);
    }
  }
  row.us_per_step = SpreadOf(per_step_us);
  row.host_ms = SpreadOf(host_ms);
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  Flags f;
  if (!ParseFlags(argc, argv, &f)) {
    std::fprintf(stderr, "%s", kUsage);
    return 2;
  }
  dashi::vk::ContextOptions copts;
  copts.device_selector = f.device;
  copts.enable_validation = f.validation;
  copts.capture_pipeline_statistics = f.pipeline_stats || !f.pipeline_ir.empty();
  StatusOr<std::unique_ptr<dashi::vk::VulkanContext>> ctx = dashi::vk::VulkanContext::Create(copts);
  if (!ctx.ok()) {
    std::fprintf(stderr, "Vulkan context: %s\n", ctx.status().ToString().c_str());
    return 1;
  }
  const dashi::vk::DeviceInfo& d = (*ctx)->info();
  std::printf("device: %s [%s] | driver %s (%s) | Vulkan %s\n", d.name.c_str(),
              d.device_type.c_str(), d.driver_name.c_str(), d.driver_info.c_str(),
              d.api_version.c_str());
  std::printf("fp64 float controls: %s | validation %s\n",
              dashi::vk::QueryFloat64Controls(**ctx).ToString().c_str(),
              f.validation ? "ON (timings not representative)" : "off");
  std::printf("%lld steps per run (one submission), %lld warm-up + %lld timed runs per row; "
              "us/step = device time of the steps (final copy excluded); GFLOP/s counts "
              "2*B*D^2 per step (a multiply and an add, never fused)\n\n",
              static_cast<long long>(f.steps), static_cast<long long>(f.warmup),
              static_cast<long long>(f.reps));
  std::printf("%6s %6s  %-56s | %11s %11s | %14s %9s | %9s  %s\n", "D", "B", "kernel", "us/step",
              "min us", "traj-steps/s", "GFLOP/s", "host ms", "verified");

  int failures = 0;
  for (int64_t dim : f.dims) {
    const std::vector<double> a = dashi::testing::DecayingMatrix(dim, 1);
    for (int64_t batch : f.batches) {
      const std::vector<double> z0 =
          dashi::testing::NonZeroUniform(static_cast<size_t>(batch * dim), 2, 1.0);
      std::vector<BatchedTile> tiles = f.tiles;
      if (tiles.empty()) {
        const std::optional<dashi::vk::SmInfo> sm = dashi::vk::QuerySmInfo(**ctx);
        tiles.push_back(dashi::vk::SuggestBatchedTile(batch, dim, sm ? sm->sm_count : 0));
      }
      const std::vector<std::vector<int64_t>> automatic = {{0, 0, 0, 0, 0, 0, 0, 0, 0, 0}};
      const std::vector<std::vector<int64_t>> column_automatic = {{0, 0, 0, 0, 0}};
      for (const std::string& kernel_name : f.kernels)
      for (const BatchedTile& tile : tiles)
      for (const std::vector<int64_t>& small :
           kernel_name == "small-batch" ? f.small_configs : automatic)
      for (const std::vector<int64_t>& columns :
           kernel_name == "column-slice" ? f.column_configs : column_automatic) {
        if (kernel_name == "single" && (batch != f.batches.front() || &tile != &tiles.front())) {
          continue;  // one baseline row per D
        }
        const dashi::vk::BatchedKernel kernel =
            kernel_name == "tiled"         ? dashi::vk::BatchedKernel::kTiled
            : kernel_name == "small-batch" ? dashi::vk::BatchedKernel::kSmallBatch
            : kernel_name == "column-slice" ? dashi::vk::BatchedKernel::kColumnSlice
            : kernel_name == "tiled-persistent" ? dashi::vk::BatchedKernel::kTiledPersistent
                                           : dashi::vk::BatchedKernel::kAuto;
        const std::string began = UtcClock();
        const Row row = kernel_name == "single" ? MeasureSingle(**ctx, dim, a, z0, f)
                                                : Measure(**ctx, dim, batch, tile, kernel, a, z0, f, small, columns);
        const std::string span = "  [" + began + "-" + UtcClock() + " UTC]";
        if (!row.error.empty()) {
          std::printf("%6lld %6lld  %-56s | error: %s%s\n", static_cast<long long>(dim),
                      static_cast<long long>(batch), kernel_name.c_str(), row.error.c_str(),
                      span.c_str());
          ++failures;
          continue;
        }
        const int64_t rows_run = kernel_name == "single" ? 1 : batch;
        if (row.verified.rfind("bit-exact", 0) != 0 && row.verified != "skipped") ++failures;
        const double b = static_cast<double>(rows_run), dd = static_cast<double>(dim);
        const double med = row.us_per_step.median;
        const double per_second = med > 0 ? b * 1e6 / med : 0.0;
        const double gflops = med > 0 ? 2.0 * b * dd * dd / (med * 1e3) : 0.0;
        std::printf("%6lld %6lld  %-56s | %11.2f %11.2f | %14.4g %9.1f | %9.1f  %s%s\n",
                    static_cast<long long>(dim), static_cast<long long>(rows_run),
                    row.kernel.c_str(), med, row.us_per_step.min, per_second, gflops,
                    row.host_ms.median, row.verified.c_str(), span.c_str());
        for (const std::string& line : row.stats) std::printf("  stats: %s\n", line.c_str());
        std::fflush(stdout);
      }
    }
  }
  // With --validation, any message from the layer fails the run like a mismatch.
  const std::vector<std::string>& messages = (*ctx)->validation_messages();
  for (size_t k = 0; k < messages.size(); ++k) {
    if (k == 0) std::printf("\n%zu validation message(s):\n", messages.size());
    if (k < 5) std::printf("  %s\n", messages[k].c_str());
  }
  return failures == 0 && messages.empty() ? 0 : 1;
}
