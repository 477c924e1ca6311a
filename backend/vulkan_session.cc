#include "backend/vulkan_session.h"

#include <chrono>

#include "backend/device_catalog.h"

namespace dashi::backend {
namespace {

// The device the session's options ask for, with `selector` (the options' own, or a UUID).
vk::ContextOptions ContextOptionsFor(const VulkanOptions& options, const std::string& selector) {
  vk::ContextOptions copts;
  copts.device_selector = selector;
  copts.enable_validation = options.validation;
  copts.require_float64 = true;
  return copts;
}

}  // namespace

StatusOr<std::unique_ptr<VulkanSession>> OpenVulkanSession(const VulkanOptions& options,
                                                           const std::string& command) {
  if (options.decode_precision != "fp64" && options.decode_precision != "fp32") {
    return InvalidArgumentError("decode precision '" + options.decode_precision +
                                "' is not fp64 or fp32");
  }
  DASHI_RETURN_IF_ERROR(vk::ParseRolloutKernel(options.rollout_kernel).status());
  auto s = std::make_unique<VulkanSession>();
  s->options = options;
  StatusOr<std::unique_ptr<vk::VulkanContext>> ctx =
      vk::VulkanContext::Create(ContextOptionsFor(options, options.device));
  if (!ctx.ok()) {
    return ctx.status().WithPrefix("backend 'vulkan' requested but the device cannot be used");
  }
  s->ctx = std::move(ctx).value();
  s->shader_build = ShaderBuild();
  s->key = CurrentCertKey();
  s->cert_store =
      options.cert_store.empty() ? conformance::DefaultCertStore() : options.cert_store;
  const conformance::CertLookup lookup =
      conformance::LookUpCertification(s->cert_store, s->ctx->info(), s->key);
  s->cert = lookup.state;
  s->cert_reason = lookup.reason;
  if (s->cert != conformance::CertState::kCertified && !options.allow_uncertified) {
    const vk::DeviceInfo& d = s->ctx->info();
    return FailedPreconditionError(
        "device '" + d.name + "' (uuid " + d.uuid + ", driver version " +
        std::to_string(d.driver_version) + ", accelerator build " + s->key.accelerator_build +
        ", suite " + s->key.suite_id + ") is " + conformance::CertStateName(s->cert) + ": " +
        lookup.reason + ". Certify it with `dashi conform --device " + d.uuid +
        "`, or pass --allow-uncertified to " + command + " (the output then says so)");
  }
  return s;
}

StatusOr<double> ReopenVulkanDevice(VulkanSession& session) {
  const auto start = std::chrono::steady_clock::now();
  DASHI_RETURN_IF_ERROR(CheckValidation(session));
  const std::string uuid = session.ctx->info().uuid;
  session.ctx.reset();  // one device at a time
  StatusOr<std::unique_ptr<vk::VulkanContext>> ctx =
      vk::VulkanContext::Create(ContextOptionsFor(session.options, uuid));
  if (!ctx.ok()) {
    return ctx.status().WithPrefix("reopening the Vulkan device " + uuid + " failed");
  }
  if ((*ctx)->info().uuid != uuid) {
    return InternalError("reopening the Vulkan device " + uuid + " gave device " +
                         (*ctx)->info().uuid);
  }
  session.ctx = std::move(ctx).value();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
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

nlohmann::json VulkanProvenance(const VulkanSession& s) {
  nlohmann::json p = DeviceProvenance(s.ctx->info());
  p["shader_build"] = s.shader_build;
  p["accelerator_build"] = s.key.accelerator_build;
  p["suite_id"] = s.key.suite_id;
  p["certification"] = conformance::CertStateName(s.cert);
  p["certification_detail"] = s.cert_reason;
  p["allow_uncertified"] = s.options.allow_uncertified;
  p["validation_layer"] = s.options.validation;
  p["decode_precision"] =
      s.options.decode_precision == "fp32" ? "fp32 FFTs (declared)" : "fp64";
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

}  // namespace dashi::backend
