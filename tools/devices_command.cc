#include "tools/devices_command.h"

#include <cstdio>
#include <memory>

#include "backend/device_catalog.h"
#include "conformance/report/conformance_report.h"
#include "tools/cli_util.h"
#include "tools/vulkan_flags.h"

namespace dashi::tools {
namespace {

int Run(const backend::BackendOptions& o) {
  const std::string store =
      o.vulkan.cert_store.empty() ? conformance::DefaultCertStore() : o.vulkan.cert_store;
  StatusOr<std::vector<backend::DeviceStatus>> devices = backend::ListDevices(store);
  if (!devices.ok()) return Fail("devices", devices.status());
  std::printf("this binary: %s\n", BinaryBuildText().c_str());
  for (const backend::DeviceStatus& s : *devices) {
    const vk::DeviceInfo& d = s.info;
    std::printf("%u: %s [%s]\n   uuid %s\n   driver %s (%s), version %u, Vulkan %s\n"
                "   shaderFloat64 %s, shaderInt64 %s\n   certification: %s: %s\n",
                d.index, d.name.c_str(), d.device_type.c_str(), d.uuid.c_str(),
                d.driver_name.c_str(), d.driver_info.c_str(), d.driver_version,
                d.api_version.c_str(), d.shader_float64 ? "yes" : "NO",
                d.shader_int64 ? "yes" : "NO", conformance::CertStateName(s.cert.state),
                s.cert.reason.c_str());
  }
  std::printf("certification store: %s\n", store.c_str());
  return 0;
}

}  // namespace

std::string BinaryBuildText() {
  const conformance::CertKey key = backend::CurrentCertKey();
  return "accelerator build " + key.accelerator_build + ", conformance suite " + key.suite_id +
         " (shader build " + backend::ShaderBuild() + ")";
}

CLI::App* AddDevicesCommand(CLI::App& app, std::function<int()>& run) {
  auto o = std::make_shared<backend::BackendOptions>();
  CLI::App* cmd = app.add_subcommand(
      "devices",
      "List Vulkan devices: index, name, UUID, driver, API version, shaderFloat64/shaderInt64 "
      "and certification state for this binary's accelerator build and conformance suite (with "
      "the reason when it is not certified). "
      "Select one elsewhere with --device or $DASHI_VK_DEVICE (index, UUID or name substring).");
  AddVulkanFlags(*cmd, *o, {.cert_store = true});
  cmd->callback([o, &run] { run = [o] { return Run(*o); }; });
  return cmd;
}

}  // namespace dashi::tools
