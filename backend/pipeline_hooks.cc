#include "backend/pipeline_hooks.h"

#include <memory>
#include <utility>

#include "core_ref/rollout/rollout_batch.h"

namespace dashi::backend {
namespace {

// The device objects of one pipeline run, made by prepare (or on first use).
struct DeviceObjects {
  std::unique_ptr<vk::VulkanBatchedRollout> rollout;
  std::unique_ptr<vk::VulkanDecoder> decoder;
  std::unique_ptr<vk::VulkanFieldMoments> moments;  // decode_scored's comparison
};

Status CreateRollout(VulkanSession& session, DeviceObjects& objects, int64_t dim,
                     std::span<const double> a) {
  DASHI_ASSIGN_OR_RETURN(objects.rollout, vk::VulkanBatchedRollout::Create(*session.ctx, dim, a));
  session.rollout_kernel_used =
      "batched (VulkanBatchedRollout, observed states copied in bulk inside the submissions)";
  return OkStatus();
}

Status CreateDecoder(VulkanSession& session, DeviceObjects& objects, const ProxySpec& spec,
                     const DecodeParams& params) {
  const vk::Precision precision =
      session.options.decode_precision == "fp32" ? vk::Precision::kFp32 : vk::Precision::kFp64;
  DASHI_ASSIGN_OR_RETURN(objects.decoder,
                         vk::VulkanDecoder::Create(*session.ctx, spec, params, precision));
  return OkStatus();
}

Status CreateMoments(VulkanSession& session, DeviceObjects& objects, const ProxySpec& spec) {
  DASHI_ASSIGN_OR_RETURN(objects.moments,
                         vk::VulkanFieldMoments::Create(*session.ctx,
                                                        static_cast<uint32_t>(spec.n)));
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
  if (objects.rollout == nullptr || objects.rollout->dim() != dim) {
    DASHI_RETURN_IF_ERROR(CreateRollout(session, objects, dim, a));
  }
  BatchRolloutRecorder recorder(batch, dim, params, observer);
  int64_t states_read_back = 0;
  StatusOr<vk::BatchedRolloutResult> run = objects.rollout->Run(
      z0, batch, params, [&](int64_t step, std::span<const double> states) {
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
  b.prepare = [&session, objects](const ProxySpec& spec, const DecodeParams& params,
                                  std::span<const double> a, bool decode,
                                  bool scored) -> Status {
    DASHI_RETURN_IF_ERROR(CreateRollout(session, *objects, spec.dim(), a));
    if (decode) DASHI_RETURN_IF_ERROR(CreateDecoder(session, *objects, spec, params));
    if (scored) DASHI_RETURN_IF_ERROR(CreateMoments(session, *objects, spec));
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
    if (frame.ok()) stats->decodes.push_back(objects->decoder->last_report());
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
    // Only the closure's statistics come back from the decode; ω̂ stays on the device.
    DASHI_ASSIGN_OR_RETURN(DecodedFrame frame,
                           objects->decoder->Decode(z, t, vk::ObserverMode::kMetrics));
    stats->decodes.push_back(objects->decoder->last_report());
    DASHI_ASSIGN_OR_RETURN(vk::FieldComparison c,
                           objects->moments->Compare(objects->decoder->omega_buffer(), les_omega));
    stats->comparisons.push_back(objects->moments->last_timings());
    return ScoredDecode{std::move(frame), c.rel_l2, c.correlation, c.energy, c.enstrophy};
  };
  return b;
}

nlohmann::json DeviceRunJson(const DeviceRunStats& stats) {
  nlohmann::json j = nlohmann::json::object();
  const vk::BatchedRolloutTimings& r = stats.rollout;
  // No per-step readback: the steps between two readbacks ran back to back on the device.
  const bool hotloop = stats.rollout_ran && (r.steps <= 1 || r.submissions < r.steps);
  j["gpu_hotloop_active"] = hotloop;
  if (stats.rollout_ran) {
    j["rollout"] = {{"kernel", "batched"},
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
    double scatter = 0, ifft_lp = 0, mask = 0, synth = 0, ifft_resid = 0, combine = 0;
    double smooth = 0, normalise = 0, threshold = 0, closure = 0;
    double readback = 0, readback_host = 0, device = 0, host = 0;
    for (const vk::VulkanDecodeReport& d : stats.decodes) {
      scatter += d.stages.scatter_lowk_ms / n;
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
                   {"readback_bytes_per_snapshot",
                    last.readback_bytes + last.closure_readback_bytes +
                        (stats.comparisons.empty() ? 0 : stats.comparisons.back().readback_bytes)},
                   {"field_readback_bytes_per_snapshot", last.readback_bytes},
                   {"submissions_last", last.submissions}};
    if (!stats.comparisons.empty()) {
      // observer "metrics": the comparison with the LES ran on the device (VulkanFieldMoments).
      double cmp_device = 0, cmp_host = 0;
      const double m = static_cast<double>(stats.comparisons.size());
      for (const vk::FieldMomentsTimings& c : stats.comparisons) {
        cmp_device += c.device_ms / m;
        cmp_host += c.host_ms / m;
      }
      j["decode"]["scored_on_device"] = true;
      j["decode"]["mean_device_stage_ms"]["compare_ms"] = cmp_device;
      j["decode"]["mean_compare_host_ms"] = cmp_host;
    }
  }
  return j;
}

}  // namespace dashi::backend
