#include "tools/vulkan_backend.h"

#include "accel_vulkan/decode/vulkan_decoder.h"
#include "accel_vulkan/rollout/vulkan_rollout.h"
#include "shaders/registry.h"
#include "tools/cli_util.h"

namespace dashi::tools {

StatusOr<VulkanSession> OpenVulkanDevice(const VulkanBackendOptions& options,
                                         const std::string& command) {
  VulkanSession s;
  s.options = options;
  vk::ContextOptions copts;
  copts.device_selector = options.device;
  copts.enable_validation = options.validation;
  copts.require_float64 = true;
  StatusOr<std::unique_ptr<vk::VulkanContext>> ctx = vk::VulkanContext::Create(copts);
  if (!ctx.ok()) {
    return ctx.status().WithPrefix("backend 'vulkan' requested but the device cannot be used");
  }
  s.ctx = std::move(ctx).value();
  s.shader_build = spirv::ShaderBuildHash();
  s.cert_store = options.cert_store.empty() ? conformance::DefaultCertStore() : options.cert_store;
  s.cert = conformance::LookUpCertification(s.cert_store, s.ctx->info(), s.shader_build);
  if (s.cert != conformance::CertState::kCertified && !options.allow_uncertified) {
    const vk::DeviceInfo& d = s.ctx->info();
    return FailedPreconditionError(
        "device '" + d.name + "' (uuid " + d.uuid + ", driver version " +
        std::to_string(d.driver_version) + ", shader build " + s.shader_build + ") is " +
        conformance::CertStateName(s.cert) + " in " + s.cert_store +
        ": certify it first with `dashi conform --device " + d.uuid +
        "`, or pass --allow-uncertified to " + command + " (the output then says so)");
  }
  return s;
}

StatusOr<std::unique_ptr<vk::VulkanRollout>> CreateVulkanRollout(VulkanSession& session,
                                                                 int64_t dim,
                                                                 std::span<const double> a) {
  DASHI_ASSIGN_OR_RETURN(vk::RolloutKernel kernel,
                         vk::ParseRolloutKernel(session.options.rollout_kernel));
  DASHI_ASSIGN_OR_RETURN(std::unique_ptr<vk::VulkanRollout> r,
                         vk::VulkanRollout::Create(*session.ctx, dim, a, {.kernel = kernel}));
  session.rollout_kernel_used = vk::RolloutKernelName(r->kernel());
  if (r->short_segments_fused()) session.rollout_kernel_used += " (fused for 1-3-step dispatches)";
  return r;
}

void AddRolloutKernelFlag(CLI::App* cmd, VulkanBackendOptions* options) {
  cmd->add_option("--rollout-kernel", options->rollout_kernel,
                  "Vulkan rollout kernel: auto (persistent where the device reports its SM count, "
                  "else fused), persistent (many steps per dispatch), fused (one dispatch per "
                  "step) or two-kernel; all are bit-identical to the reference")
      ->check(CLI::IsMember({"auto", "fused", "two-kernel", "persistent"}))
      ->capture_default_str();
}

PipelineBackends VulkanPipelineBackends(VulkanSession& session) {
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
      DASHI_ASSIGN_OR_RETURN(*decoder,
                             vk::VulkanDecoder::Create(*session.ctx, spec, params,
                                                       session.options.decode_fp32
                                                           ? vk::Precision::kFp32
                                                           : vk::Precision::kFp64));
    }
    // The comparison with the LES needs the decoded field, so snapshots are read back.
    return (*decoder)->Decode(z, t, vk::ObserverMode::kSnapshots);
  };
  return b;
}

nlohmann::json VulkanProvenance(const VulkanSession& s) {
  const vk::DeviceInfo& d = s.ctx->info();
  nlohmann::json p = Provenance("vulkan", "vulkan", d.name + " (uuid " + d.uuid + ")",
                                d.driver_name + " " + d.driver_info + " (version " +
                                    std::to_string(d.driver_version) + "), Vulkan " +
                                    d.api_version);
  p["shader_build"] = s.shader_build;
  p["certification"] = conformance::CertStateName(s.cert);
  p["allow_uncertified"] = s.options.allow_uncertified;
  p["validation_layer"] = s.options.validation;
  p["decode_precision"] = s.options.decode_fp32 ? "fp32 FFTs (declared)" : "fp64";
  p["rollout_kernel_requested"] = s.options.rollout_kernel;
  if (!s.rollout_kernel_used.empty()) p["rollout_kernel_used"] = s.rollout_kernel_used;
  return p;
}

Status CheckValidation(const VulkanSession& s) {
  if (!s.options.validation) return OkStatus();
  const std::vector<std::string> msgs = s.ctx->validation_messages();
  if (msgs.empty()) return OkStatus();
  return InternalError(std::to_string(msgs.size()) + " validation message(s); first: " + msgs[0]);
}

}  // namespace dashi::tools
