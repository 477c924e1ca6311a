#include "backend/pipeline_hooks.h"

#include <chrono>
#include <memory>
#include <numeric>
#include <optional>
#include <string>
#include <utility>

#include "accel_vulkan/batched/batched_tile.h"
#include "accel_vulkan/device_caps/device_caps.h"

#include "core_ref/rollout/rollout_batch.h"

namespace dashi::backend {
namespace {

// The device objects of one pipeline run, made by prepare (or on first use).
struct DeviceObjects {
  std::unique_ptr<vk::VulkanBatchedRollout> rollout;
  int64_t rollout_batch = 0;  // the batch its tile was chosen for
  std::unique_ptr<vk::VulkanDecoder> decoder;
  std::unique_ptr<vk::VulkanFieldMoments> moments;  // decode_scored's comparison
  std::vector<std::string> fft_plans;  // each VkFFT plan's cache use, in creation order
  std::unique_ptr<vk::VulkanScaleTower> tower;  // of the decoded ω
};

// The batched rollout for `batch` rows. For B ≤ 8 on a device that reports its SM count (with A
// held in registers, D ≤ 1024 there) it runs the small-batch persistent kernel (A kept on chip across the steps, many steps per dispatch,
// observed states copied from a device-side history ring: docs/ARCHITECTURE.md); otherwise the
// tiled kernel (at D = 512, 33 ≤ B ≤ 64 its tiled persistent form, many steps per dispatch:
// VulkanBatchedRollout's kAuto) with the tile SuggestBatchedTile picks for this device's SM count (the default
// 64×64 tile gives a batch of 3 only ceil(D/64) workgroups: 330 µs a step at D = 506 in a run on
// an H200; 75 µs with the 8×8 tile it picked before K blocks, docs/PERF.md; it now picks the
// tile and the K blocks, "Large batches" there).
Status CreateRollout(VulkanSession& session, DeviceObjects& objects, int64_t dim,
                     std::span<const double> a, int64_t batch) {
  const std::optional<vk::SmInfo> sm = vk::QuerySmInfo(*session.ctx);
  vk::VulkanBatchedRolloutOptions options;
  options.tile = vk::SuggestBatchedTile(batch, dim, sm ? sm->sm_count : 0);
  // The eval observes every step: room for 256 observed states per submission (within the
  // staging budget), so the default 200-step eval is one submission (and, with the small-batch
  // kernel, one dispatch) instead of four.
  options.max_steps_per_submit = 4096;
  options.max_snapshots_per_submit = 256;
  DASHI_ASSIGN_OR_RETURN(objects.rollout,
                         vk::VulkanBatchedRollout::Create(*session.ctx, dim, a, options));
  objects.rollout_batch = batch;
  // Buffers, staging ring and guard words now, in the set-up, not in the timed rollout.
  DASHI_RETURN_IF_ERROR(objects.rollout->Prepare(batch));
  DASHI_ASSIGN_OR_RETURN(const vk::BatchedKernel kernel, objects.rollout->KernelFor(batch));
  const vk::VulkanBatchedRollout& r = *objects.rollout;
  session.rollout_kernel_used =
      "batched (VulkanBatchedRollout, " + r.KernelDescription(kernel) +
      (kernel == vk::BatchedKernel::kTiled
           ? ", observed states copied in bulk inside the submissions)"
           : ", observed states copied in bulk from a device-side ring)");
  return OkStatus();
}

Status CreateDecoder(VulkanSession& session, DeviceObjects& objects, const ProxySpec& spec,
                     const DecodeParams& params) {
  const vk::Precision precision =
      session.options.decode_precision == "fp32" ? vk::Precision::kFp32 : vk::Precision::kFp64;
  DASHI_ASSIGN_OR_RETURN(objects.decoder,
                         vk::VulkanDecoder::Create(*session.ctx, spec, params, precision));
  for (vk::VkFftPlan::CacheUse u : objects.decoder->fft_cache_uses()) {
    objects.fft_plans.push_back(vk::VkFftPlan::CacheUseName(u));
  }
  DASHI_ASSIGN_OR_RETURN(objects.tower,
                         vk::VulkanScaleTower::Create(*session.ctx, spec.n, ScaleTowerParams{}));
  return OkStatus();
}

Status CreateMoments(VulkanSession& session, DeviceObjects& objects, const ProxySpec& spec) {
  DASHI_ASSIGN_OR_RETURN(objects.moments,
                         vk::VulkanFieldMoments::Create(*session.ctx,
                                                        static_cast<uint32_t>(spec.n)));
  objects.fft_plans.push_back(vk::VkFftPlan::CacheUseName(objects.moments->fft_cache_use()));
  return OkStatus();
}

// One decode in the run's observer mode (with the device comparison recorded after it when
// scored, against an all-zero reference) and one scale tower of its output, in the set-up: what
// a first decode and tower would otherwise do inside the timed snapshots (the mask's scratch
// buffers and descriptor sets, the readback buffer, first touches of host-mapped pages, the
// driver's first submissions of these pipelines).
Status WarmUpDecode(DeviceObjects& objects, DeviceRunStats& stats, const ProxySpec& spec,
                    bool scored) {
  vk::VulkanDecoder& decoder = *objects.decoder;
  if (scored) {
    const std::vector<double> reference(static_cast<size_t>(spec.n) * spec.n, 0.0);
    vk::VulkanFieldMoments& moments = *objects.moments;
    const vk::DeviceBuffer& omega = decoder.omega_buffer();
    DASHI_RETURN_IF_ERROR(decoder.WarmUp(vk::ObserverMode::kMetrics, [&](vk::CommandBatch& b) {
      return moments.Record(b, omega, reference);
    }));
  } else {
    DASHI_RETURN_IF_ERROR(decoder.WarmUp(vk::ObserverMode::kSnapshots));
  }
  stats.decode_warmup = decoder.warmup_report();
  if (objects.tower != nullptr) {
    const auto t0 = std::chrono::steady_clock::now();
    DASHI_RETURN_IF_ERROR(objects.tower->RunOnDevice(decoder.omega_buffer()).status());
    stats.tower_warmup_host_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  return OkStatus();
}

// The eval rollouts as one Run of the batched kernel, every observed state handed to the
// recorder that core_ref's RolloutBatch uses, so the chains and observer calls are the same.
StatusOr<std::vector<RolloutResult>> BatchedOnDevice(VulkanSession& session,
                                                     DeviceObjects& objects,
                                                     DeviceRunStats& stats,
                                                     std::span<const double> z0, int64_t batch,
                                                     std::span<const double> a,
                                                     const RolloutParams& params,
                                                     const BatchRolloutObserver& observer) {
  if (batch < 1 || z0.empty() || z0.size() % static_cast<size_t>(batch) != 0) {
    return InvalidArgumentError("batched rollout: " + std::to_string(z0.size()) +
                                " start values are not batch = " + std::to_string(batch) +
                                " rows");
  }
  const int64_t dim = static_cast<int64_t>(z0.size()) / batch;
  if (objects.rollout == nullptr || objects.rollout->dim() != dim ||
      objects.rollout_batch != batch) {
    DASHI_RETURN_IF_ERROR(CreateRollout(session, objects, dim, a, batch));
  }
  BatchRolloutRecorder recorder(batch, dim, params, observer);
  // The recorder hashes the chain's checkpoints and calls the observer, so the device must hand
  // it the states of both: every multiple of gcd(observe_every, hash_every) (the recorder calls
  // the observer only at its own steps). Without an observer, the checkpoints alone.
  RolloutParams device_params = params;
  device_params.observe_every =
      observer ? std::gcd(params.observe_every, params.hash_every) : params.hash_every;
  int64_t states_read_back = 0;
  StatusOr<vk::BatchedRolloutResult> run = objects.rollout->Run(
      z0, batch, device_params, [&](int64_t step, std::span<const double> states) {
        if (step > 0) ++states_read_back;
        return recorder.Record(step, states);
      });
  stats.rollout_ran = true;
  stats.rollout = objects.rollout->last_timings();
  stats.rollout_states_read_back = states_read_back;
  DASHI_RETURN_IF_ERROR(run.status());
  DASHI_RETURN_IF_ERROR(objects.rollout->CheckGuardWords());
  return recorder.Finish(run->final_states);
}

}  // namespace

PipelineBackends VulkanPipelineHooks(VulkanSession& session,
                                     std::shared_ptr<DeviceRunStats> stats) {
  PipelineBackends b;
  auto objects = std::make_shared<DeviceObjects>();
  b.prepare = [&session, objects, stats](const ProxySpec& spec, const DecodeParams& params,
                                  std::span<const double> a,
                                  const PipelineBackends::Preparation& what) -> Status {
    if (!stats->device_reopen_ms.has_value() && objects->rollout == nullptr &&
        objects->decoder == nullptr && objects->moments == nullptr) {
      DASHI_ASSIGN_OR_RETURN(const double ms, ReopenVulkanDevice(session));
      stats->device_reopen_ms = ms;
    }
    DASHI_RETURN_IF_ERROR(CreateRollout(session, *objects, spec.dim(), a, what.batch));
    if (what.decode) DASHI_RETURN_IF_ERROR(CreateDecoder(session, *objects, spec, params));
    if (what.scored) DASHI_RETURN_IF_ERROR(CreateMoments(session, *objects, spec));
    stats->fft_plans = objects->fft_plans;
    if (what.decode) DASHI_RETURN_IF_ERROR(WarmUpDecode(*objects, *stats, spec, what.scored));
    return OkStatus();
  };
  b.rollout_batch = [&session, objects, stats](std::span<const double> z0, int64_t batch,
                                               std::span<const double> a,
                                               const RolloutParams& params,
                                               const BatchRolloutObserver& observer) {
    return BatchedOnDevice(session, *objects, *stats, z0, batch, a, params, observer);
  };
  b.decode = [&session, objects, stats](const ProxySpec& spec, const DecodeParams& params,
                                        std::span<const double> z,
                                        uint64_t t) -> StatusOr<DecodedFrame> {
    if (objects->decoder == nullptr) {
      DASHI_RETURN_IF_ERROR(CreateDecoder(session, *objects, spec, params));
    }
    // The comparison with the LES needs the decoded field, so snapshots are read back.
    StatusOr<DecodedFrame> frame = objects->decoder->Decode(z, t, vk::ObserverMode::kSnapshots);
    if (!frame.ok()) return frame;
    stats->decodes.push_back(objects->decoder->last_report());
    return frame;
  };
  b.decode_scored = [&session, objects, stats](
                        const ProxySpec& spec, const DecodeParams& params,
                        std::span<const double> z, uint64_t t,
                        std::span<const double> les_omega) -> StatusOr<ScoredDecode> {
    if (objects->decoder == nullptr) {
      DASHI_RETURN_IF_ERROR(CreateDecoder(session, *objects, spec, params));
    }
    if (objects->moments == nullptr) DASHI_RETURN_IF_ERROR(CreateMoments(session, *objects, spec));
    // Only the closure's statistics and eight sums come back; ω̂ stays on the device. The
    // comparison is recorded into the decode's own submission (one wait for both).
    DecodedFrame frame{{}, {}, {}, ClosureResult{*Carrier::Zeros({1, 1}), 0, false, {}}, {}};
    vk::VulkanFieldMoments& moments = *objects->moments;
    const vk::DeviceBuffer& omega = objects->decoder->omega_buffer();
    DASHI_RETURN_IF_ERROR(objects->decoder->DecodeInto(
        z, t, vk::ObserverMode::kMetrics, frame,
        [&](vk::CommandBatch& batch) { return moments.Record(batch, omega, les_omega); }));
    const vk::VulkanDecodeReport& report = objects->decoder->last_report();
    stats->decodes.push_back(report);
    stats->decodes_scored = true;
    DASHI_ASSIGN_OR_RETURN(vk::FieldComparison c,
                           vk::CompareFromSums(moments.ReadSums(), spec.n));
    return ScoredDecode{std::move(frame), c.rel_l2, c.correlation, c.energy, c.enstrophy};
  };
  // After each decode (either kind), timed apart from it by the pipeline: the scale tower of ω̂ on
  // the device from the decoder's buffer.
  b.after_decode = [objects, stats](const ProxySpec&, uint64_t) -> Status {
    if (objects->decoder == nullptr || objects->tower == nullptr) {
      return FailedPreconditionError("scale tower: no decode ran before it");
    }
    DASHI_ASSIGN_OR_RETURN(std::vector<ScaleLayer> tower,
                           objects->tower->RunOnDevice(objects->decoder->omega_buffer()));
    stats->decoded_towers.push_back(std::move(tower));
    stats->tower_reports.push_back(objects->tower->last_report());
    return OkStatus();
  };
  return b;
}

nlohmann::json DeviceRunJson(const DeviceRunStats& stats) {
  nlohmann::json j = nlohmann::json::object();
  const vk::BatchedRolloutTimings& r = stats.rollout;
  // No per-step readback: the steps between two readbacks ran back to back on the device.
  const bool hotloop = stats.rollout_ran && (r.steps <= 1 || r.submissions < r.steps);
  j["gpu_hotloop_active"] = hotloop;
  // The set-up's VkFFT plans and where their kernels came from: "loaded" from the on-disk binary
  // cache (DASHI_CACHE_DIR, else ~/.cache/dashi) or "compiled, saved" for the next run.
  if (!stats.fft_plans.empty()) j["setup_fft_plans"] = stats.fft_plans;
  // The device was opened again just before the set-up (part of it): see ReopenVulkanDevice.
  if (stats.device_reopen_ms.has_value()) j["setup_device_reopen_ms"] = *stats.device_reopen_ms;
  // The warm-up decode and tower of the set-up (part of it): the first decode's one-time work.
  if (stats.decode_warmup.has_value()) {
    const vk::VulkanDecodeReport& w = *stats.decode_warmup;
    j["setup_decode_warmup"] = {{"mode", vk::ObserverModeName(w.mode)},
                                {"host_ms", w.host_ms},
                                {"host_record_ms", w.host_record_ms},
                                {"host_wait_ms", w.host_wait_ms},
                                {"host_finish_ms", w.host_finish_ms},
                                {"device_ms", w.device_ms},
                                {"tower_host_ms", stats.tower_warmup_host_ms}};
  }
  if (stats.rollout_ran) {
    j["rollout"] = {{"kernel", std::string("batched ") + vk::BatchedKernelName(r.kernel)},
                    {"dispatches", r.dispatches},
                    {"batch", r.batch},
                    {"steps", r.steps},
                    {"submissions", r.submissions},
                    {"states_read_back", stats.rollout_states_read_back},
                    {"timestamps", r.timestamps},
                    {"device_ms", r.device_ms},
                    {"steps_device_ms", r.steps_ms},
                    {"readback_device_ms", r.device_ms - r.steps_ms},
                    {"host_ms", r.host_ms},
                    {"device_us_per_step", r.device_us_per_step},
                    {"device_trajectory_steps_per_s", r.trajectory_steps_per_second}};
  }
  if (!stats.decodes.empty()) {
    const double n = static_cast<double>(stats.decodes.size());
    double scatter = 0, ifft_lp = 0, mask = 0, synth = 0, ifft_resid = 0, combine = 0, compare = 0;
    double smooth = 0, normalise = 0, threshold = 0, closure = 0;
    double readback = 0, readback_host = 0, device = 0, host = 0;
    std::vector<double> host_each, device_each;  // per snapshot, in order
    std::vector<double> record_each, wait_each, finish_each;  // the parts of host_each
    for (const vk::VulkanDecodeReport& d : stats.decodes) {
      scatter += d.stages.scatter_lowk_ms / n;
      compare += d.compare_ms / n;
      ifft_lp += d.stages.ifft_lp_ms / n;
      mask += d.stages.mask_ms / n;
      synth += d.stages.synth_ms / n;
      ifft_resid += d.stages.ifft_resid_ms / n;
      combine += d.stages.combine_ms / n;
      smooth += d.mask.smooth_ms / n;
      normalise += d.mask.normalise_ms / n;
      threshold += d.mask.threshold_ms / n;
      closure += d.mask.closure_ms / n;
      readback += d.readback_ms / n;
      readback_host += d.readback_host_ms / n;
      device += d.device_ms / n;
      host += d.host_ms / n;
      host_each.push_back(d.host_ms);
      device_each.push_back(d.device_ms);
      record_each.push_back(d.host_record_ms);
      wait_each.push_back(d.host_wait_ms);
      finish_each.push_back(d.host_finish_ms);
    }
    const vk::VulkanDecodeReport& last = stats.decodes.back();
    j["decode"] = {{"snapshots", stats.decodes.size()},
                   {"mode", vk::ObserverModeName(last.mode)},
                   {"precision", last.precision == vk::Precision::kFp32 ? "fp32" : "fp64"},
                   {"mean_device_stage_ms",
                    {{"scatter_lowk_ms", scatter},
                     {"ifft_lp_ms", ifft_lp},
                     {"mask_ms", mask},
                     {"mask_smooth_ms", smooth},
                     {"mask_normalise_ms", normalise},
                     {"mask_threshold_ms", threshold},
                     {"mask_closure_ms", closure},
                     {"synth_ms", synth},
                     {"ifft_resid_ms", ifft_resid},
                     {"combine_ms", combine},
                     {"readback_ms", readback}}},
                   {"mean_device_ms", device},
                   {"mean_readback_host_ms", readback_host},
                   {"mean_host_ms", host},
                   {"host_ms_each", host_each},
                   {"device_ms_each", device_each},
                   {"host_record_ms_each", record_each},
                   {"host_wait_ms_each", wait_each},
                   {"host_finish_ms_each", finish_each},
                   {"readback_bytes_per_snapshot",
                    last.readback_bytes + last.closure_readback_bytes +
                        (stats.decodes_scored ? vk::kFieldMomentsReadbackBytes : 0)},
                   {"field_readback_bytes_per_snapshot", last.readback_bytes},
                   {"submissions_last", last.submissions}};
    if (stats.decodes_scored) {
      // observer "metrics": the comparison with the LES ran on the device (VulkanFieldMoments),
      // recorded into the decode's submission: its device time is inside mean_device_ms.
      j["decode"]["scored_on_device"] = true;
      j["decode"]["mean_device_stage_ms"]["compare_ms"] = compare;
    }
  }
  if (!stats.tower_reports.empty()) {
    const double n = static_cast<double>(stats.tower_reports.size());
    double device = 0, host = 0, forward = 0, band = 0, threshold = 0, closure = 0, sums = 0;
    for (const vk::VulkanScaleTowerReport& r : stats.tower_reports) {
      device += r.device_ms / n;
      host += r.host_ms / n;
      forward += r.forward_ms / n;
      band += r.band_ms / n;
      threshold += r.threshold_ms / n;
      closure += r.closure_ms / n;
      sums += r.sums_ms / n;
    }
    const vk::VulkanScaleTowerReport& last = stats.tower_reports.back();
    j["scales"] = {{"snapshots", stats.tower_reports.size()},
                   {"input", "the decoder's output buffer (no upload)"},
                   {"layers", last.layers},
                   {"readback_bytes_per_snapshot",
                    last.stats_readback_bytes + last.closure_readback_bytes},
                   {"stats_readback_bytes", last.stats_readback_bytes},
                   {"closure_control_readback_bytes", last.closure_readback_bytes},
                   {"submissions_last", last.submissions},
                   {"mean_device_ms", device},
                   {"mean_device_stage_ms",
                    {{"forward_ms", forward},
                     {"band_ms", band},
                     {"threshold_ms", threshold},
                     {"closure_ms", closure},
                     {"sums_ms", sums}}},
                   {"mean_host_ms", host}};
  }
  return j;
}

}  // namespace dashi::backend
