#include "backend/pipeline_hooks.h"

#include <memory>

#include "accel_vulkan/batched/vulkan_batched_rollout.h"
#include "accel_vulkan/decode/vulkan_decoder.h"
#include "core_ref/rollout/vecmat.h"

namespace dashi::backend {
namespace {

// The eval rollouts on the device's batched kernel (VulkanBatchedRollout), one step per Run so
// that every state comes back for the evaluation; the chains are hashed on the host with
// core_ref's StateHash / NextChainLink at the checkpoint steps, so each row's chain is the one
// core_ref's Rollout makes when the states are the same bits.
StatusOr<std::vector<RolloutResult>> BatchedOnDevice(VulkanSession& session,
                                                     std::span<const double> z0, int64_t batch,
                                                     std::span<const double> a,
                                                     const RolloutParams& params,
                                                     const BatchRolloutObserver& observer) {
  DASHI_RETURN_IF_ERROR(ValidateRolloutParams(params, static_cast<bool>(observer)));
  if (batch < 1 || z0.empty() || z0.size() % static_cast<size_t>(batch) != 0) {
    return InvalidArgumentError("batched rollout: " + std::to_string(z0.size()) +
                                " start values are not batch = " + std::to_string(batch) +
                                " rows");
  }
  const int64_t dim = static_cast<int64_t>(z0.size()) / batch;
  DASHI_ASSIGN_OR_RETURN(std::unique_ptr<vk::VulkanBatchedRollout> kernel,
                         vk::VulkanBatchedRollout::Create(*session.ctx, dim, a));
  session.rollout_kernel_used = "batched (VulkanBatchedRollout, one step per submission)";
  std::vector<double> states(z0.begin(), z0.end());
  BatchRolloutRecorder recorder(batch, dim, params, observer);
  for (int64_t step = 0; step <= params.steps; ++step) {
    if (step > 0) {
      StatusOr<vk::BatchedRolloutResult> next = kernel->Run(states, batch, {.steps = 1});
      if (!next.ok() && next.status().code() == StatusCode::kOutOfRange) {
        // Name the step of the whole rollout, as core_ref does: find the row on the host.
        std::vector<double> row(static_cast<size_t>(dim));
        for (int64_t b = 0; b < batch; ++b) {
          DASHI_RETURN_IF_ERROR(CanonicalVecMat(
              std::span<const double>(states).subspan(b * dim, dim), a, row));
          Status s = CheckRolloutStateFinite(row, step);
          if (!s.ok()) return s.WithPrefix("trajectory " + std::to_string(b));
        }
      }
      DASHI_RETURN_IF_ERROR(next.status());
      states = std::move(next->final_states);
    }
    DASHI_RETURN_IF_ERROR(recorder.Record(step, states));
  }
  DASHI_RETURN_IF_ERROR(kernel->CheckGuardWords());
  return recorder.Finish(states);
}

}  // namespace

PipelineBackends VulkanPipelineHooks(VulkanSession& session) {
  PipelineBackends b;
  b.rollout_batch = [&session](std::span<const double> z0, int64_t batch,
                               std::span<const double> a, const RolloutParams& params,
                               const BatchRolloutObserver& observer) {
    return BatchedOnDevice(session, z0, batch, a, params, observer);
  };
  auto decoder = std::make_shared<std::unique_ptr<vk::VulkanDecoder>>();
  b.decode = [&session, decoder](const ProxySpec& spec, const DecodeParams& params,
                                 std::span<const double> z,
                                 uint64_t t) -> StatusOr<DecodedFrame> {
    if (*decoder == nullptr) {
      const vk::Precision precision = session.options.decode_precision == "fp32"
                                          ? vk::Precision::kFp32
                                          : vk::Precision::kFp64;
      DASHI_ASSIGN_OR_RETURN(*decoder,
                             vk::VulkanDecoder::Create(*session.ctx, spec, params, precision));
    }
    // The comparison with the LES needs the decoded field, so snapshots are read back.
    return (*decoder)->Decode(z, t, vk::ObserverMode::kSnapshots);
  };
  return b;
}

}  // namespace dashi::backend
