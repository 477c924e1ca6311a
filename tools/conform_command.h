// `dashi conform`: runs the conformance suite on one Vulkan device, prints a table, writes a JSON
// report and records the result in the certification store.
#ifndef DASHI_TOOLS_CONFORM_COMMAND_H_
#define DASHI_TOOLS_CONFORM_COMMAND_H_

#include <functional>

#include <CLI/CLI.hpp>

namespace dashi::tools {

CLI::App* AddConformCommand(CLI::App& app, std::function<int()>& run);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_CONFORM_COMMAND_H_
