#include "backend/device_catalog.h"

#include "backend/provenance.h"
#include "build_id/build_ids.h"
#include "core_ref/blake2b/blake2b.h"
#include "shaders/registry.h"

namespace dashi::backend {

nlohmann::json DeviceProvenance(const vk::DeviceInfo& d) {
  return Provenance("vulkan", "vulkan", d.name + " (uuid " + d.uuid + ")",
                    d.driver_name + " " + d.driver_info + " (version " +
                        std::to_string(d.driver_version) + "), Vulkan " + d.api_version);
}

std::string ShaderBuild() { return spirv::ShaderBuildHash(); }

std::string AcceleratorBuildId() {
  const std::string text = std::string("accelerator sources ") +
                           build_id::kAcceleratorSourceHash + "\nSPIR-V " + ShaderBuild() + "\n";
  return ToHex(Blake2b128(text.data(), text.size()));
}

conformance::CertKey CurrentCertKey() { return {AcceleratorBuildId(), conformance::SuiteId()}; }

StatusOr<std::vector<DeviceStatus>> ListDevices(const std::string& cert_store) {
  DASHI_ASSIGN_OR_RETURN(std::vector<vk::DeviceInfo> devices, vk::EnumerateDevices());
  const conformance::CertKey key = CurrentCertKey();
  std::vector<DeviceStatus> out;
  for (vk::DeviceInfo& d : devices) {
    conformance::CertLookup cert = conformance::LookUpCertification(cert_store, d, key);
    out.push_back({std::move(d), std::move(cert)});
  }
  return out;
}

StatusOr<std::unique_ptr<vk::VulkanContext>> OpenDeviceForConformance(const std::string& selector,
                                                                      bool validation) {
  vk::ContextOptions opts;
  opts.device_selector = selector;
  opts.enable_validation = validation;
  opts.require_float64 = false;  // a device without fp64 gets NOT_SUPPORTED verdicts, not an abort
  StatusOr<std::unique_ptr<vk::VulkanContext>> ctx = vk::VulkanContext::Create(opts);
  if (!ctx.ok() && validation && ctx.status().code() == StatusCode::kFailedPrecondition) {
    return FailedPreconditionError(ctx.status().message() +
                                   "; install it, or pass --no-validation (recorded in the "
                                   "report; such a report never certifies a device)");
  }
  return ctx;
}

}  // namespace dashi::backend
