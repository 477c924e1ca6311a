#include "tools/devices_command.h"

#include <cstdio>

#include "accel_vulkan/context.h"
#include "conformance/report/conformance_report.h"
#include "shaders/registry.h"

namespace dashi::tools {

namespace {
int Run();
}  // namespace

CLI::App* AddDevicesCommand(CLI::App& app, std::function<int()>& run) {
  CLI::App* cmd = app.add_subcommand(
      "devices",
      "List Vulkan devices: index, name, UUID, driver, API version, shaderFloat64/shaderInt64 "
      "and certification state for this binary's shader build. "
      "Select one elsewhere with --device or $DASHI_VK_DEVICE (index, UUID or name substring).");
  cmd->callback([&run] { run = [] { return Run(); }; });
  return cmd;
}

namespace {
int Run() {
  StatusOr<std::vector<vk::DeviceInfo>> devices = vk::EnumerateDevices();
  if (!devices.ok()) {
    std::fprintf(stderr, "dashi devices: %s\n", devices.status().ToString().c_str());
    return 1;
  }
  const std::string store = conformance::DefaultCertStore();
  const std::string build = spirv::ShaderBuildHash();
  for (const vk::DeviceInfo& d : *devices) {
    std::printf("%u: %s [%s]\n   uuid %s\n   driver %s (%s), version %u, Vulkan %s\n"
                "   shaderFloat64 %s, shaderInt64 %s\n   certification: %s (shader build %s)\n",
                d.index, d.name.c_str(), d.device_type.c_str(), d.uuid.c_str(),
                d.driver_name.c_str(), d.driver_info.c_str(), d.driver_version,
                d.api_version.c_str(), d.shader_float64 ? "yes" : "NO",
                d.shader_int64 ? "yes" : "NO",
                conformance::CertStateName(conformance::LookUpCertification(store, d, build)),
                build.c_str());
  }
  std::printf("certification store: %s\n", store.c_str());
  return 0;
}
}  // namespace

}  // namespace dashi::tools
