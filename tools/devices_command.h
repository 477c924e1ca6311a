// `dashi devices`: lists the Vulkan devices with the features the accelerator needs.
#ifndef DASHI_TOOLS_DEVICES_COMMAND_H_
#define DASHI_TOOLS_DEVICES_COMMAND_H_

#include <functional>
#include <string>

#include <CLI/CLI.hpp>

namespace dashi::tools {

CLI::App* AddDevicesCommand(CLI::App& app, std::function<int()>& run);

// What this binary is, the first line of `dashi devices` and `dashi --version`: "accelerator build
// X, conformance suite Y (shader build Z)".
std::string BinaryBuildText();

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_DEVICES_COMMAND_H_
