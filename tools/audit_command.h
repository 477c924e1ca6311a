// `dashi audit`: replays one rollout on the reference and on a Vulkan device and reports where the
// hash chains first diverge (checkpoint, then step), with both states' hashes.
#ifndef DASHI_TOOLS_AUDIT_COMMAND_H_
#define DASHI_TOOLS_AUDIT_COMMAND_H_

#include <functional>

#include <CLI/CLI.hpp>

namespace dashi::tools {

CLI::App* AddAuditCommand(CLI::App& app, std::function<int()>& run);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_AUDIT_COMMAND_H_
