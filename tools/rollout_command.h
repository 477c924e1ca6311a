// `dashi rollout`: see the subcommand's --help (registered in rollout_command.cc).
#ifndef DASHI_TOOLS_ROLLOUT_COMMAND_H_
#define DASHI_TOOLS_ROLLOUT_COMMAND_H_

#include <functional>

#include <CLI/CLI.hpp>

namespace dashi::tools {

// Registers the subcommand; after parsing, `run` holds the function that executes it.
CLI::App* AddRolloutCommand(CLI::App& app, std::function<int()>& run);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_ROLLOUT_COMMAND_H_
