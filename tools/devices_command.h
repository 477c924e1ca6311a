// `dashi devices`: lists the Vulkan devices with the features the accelerator needs.
#ifndef DASHI_TOOLS_DEVICES_COMMAND_H_
#define DASHI_TOOLS_DEVICES_COMMAND_H_

#include <functional>

#include <CLI/CLI.hpp>

namespace dashi::tools {

CLI::App* AddDevicesCommand(CLI::App& app, std::function<int()>& run);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_DEVICES_COMMAND_H_
