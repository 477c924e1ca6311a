#include "backend/pipeline_hooks.h"

#include <memory>

#include "accel_vulkan/decode/vulkan_decoder.h"

namespace dashi::backend {

PipelineBackends VulkanPipelineHooks(VulkanSession& session) {
  PipelineBackends b;
  b.rollout = [&session](std::span<const double> z0, std::span<const double> a,
                         const RolloutParams& params,
                         const RolloutObserver& observer) -> StatusOr<RolloutResult> {
    DASHI_ASSIGN_OR_RETURN(std::unique_ptr<vk::VulkanRollout> r,
                           CreateVulkanRollout(session, static_cast<int64_t>(z0.size()), a));
    return r->Run(z0, params, observer);
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
