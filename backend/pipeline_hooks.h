// The Vulkan twins of the reference pipeline's rollout and decode, plugged into
// core_ref/pipeline's PipelineBackends hooks (core_ref itself never sees Vulkan).
//
//   auto stats = std::make_shared<DeviceRunStats>();
//   PipelineBackends hooks = VulkanPipelineHooks(*session, stats);  // session outlives the hooks
//   RunPipeline(params, progress, hooks);
//   DeviceRunJson(*stats);  // what the device did, for metrics.json
#ifndef DASHI_BACKEND_PIPELINE_HOOKS_H_
#define DASHI_BACKEND_PIPELINE_HOOKS_H_

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "accel_vulkan/batched/vulkan_batched_rollout.h"
#include "accel_vulkan/decode/field_moments.h"
#include "accel_vulkan/decode/vulkan_decoder.h"
#include "accel_vulkan/scales/vulkan_scale_tower.h"
#include "backend/vulkan_session.h"
#include "core_ref/pipeline/pipeline.h"

namespace dashi::backend {

// What the hooks did on the device in one RunPipeline call.
struct DeviceRunStats {
  bool rollout_ran = false;
  vk::BatchedRolloutTimings rollout;            // the eval rollout's (one Run of the batch)
  int64_t rollout_states_read_back = 0;         // B×D states copied to the host
  std::vector<vk::VulkanDecodeReport> decodes;  // one per snapshot, in order
  // decode_scored ran: each decode report's compare_ms is its device comparison with the LES.
  bool decodes_scored = false;
  // The set-up's VkFFT plans: where their kernels came from ("loaded", "compiled, saved", ...).
  std::vector<std::string> fft_plans;
  // The scale tower's per-layer statistics of each decoded ω (VulkanScaleTower on the decoder's
  // output buffer, metrics-only readback), one per snapshot, in order; and its reports.
  std::vector<std::vector<ScaleLayer>> decoded_towers;
  std::vector<vk::VulkanScaleTowerReport> tower_reports;
  // prepare opened the device again before making anything on it (ReopenVulkanDevice: the set-up
  // includes it), and how long that took.
  std::optional<double> device_reopen_ms;
  // prepare decoded once in the observer mode of the run (VulkanDecoder::WarmUp, with the
  // comparison recorded after it when scored) and ran the scale tower once on its output: the
  // one-time work of a first decode, timed as set-up. The warm-up decode's report, and the
  // tower's host time.
  std::optional<vk::VulkanDecodeReport> decode_warmup;
  double tower_warmup_host_ms = 0;
};

// prepare: first opens the session's device again (ReopenVulkanDevice: the device opened at the
// start, to fail early, has its clock lowered by the time the LES is done), then creates the
// batched rollout kernel (pipeline, upload of A) and, when snapshots are
// decoded, the decoder (pipelines, FFT plans, mode tables) — the one-time device set-up that
// RunPipeline times apart from the rollout and decode rates.
// rollout_batch: the eval rollouts as ONE Run of the batched kernel (VulkanBatchedRollout): every
// state the pipeline observes is copied into the staging ring inside the submissions (many
// steps per submission, one readback each), chains hashed on the host with core_ref's
// StateHash / NextChainLink.
// decode: with the session's precision; the fields are read back (the pipeline compares them
// with the LES). decode_scored (observer "metrics"): the decode reads back only the closure's
// statistics, and VulkanFieldMoments compares the decoded field with the LES field on the device
// in the same submission (eight doubles come back). Every Decode's report is kept in `stats`;
// then, in both, the scale tower of the decoded ω runs on the device from the decoder's buffer
// (default ScaleTowerParams), its layer statistics kept in `stats`.
PipelineBackends VulkanPipelineHooks(VulkanSession& session,
                                     std::shared_ptr<DeviceRunStats> stats);

// The device block of metrics.json: set-up is in the pipeline's timings; here the rollout's
// submissions, device time, hot-loop flag and readback, and the decode's per-stage device times
// beside the host time of each snapshot (means over the snapshots).
nlohmann::json DeviceRunJson(const DeviceRunStats& stats);

}  // namespace dashi::backend

#endif  // DASHI_BACKEND_PIPELINE_HOOKS_H_
