// `dashi learn`: see the subcommand's --help (registered in learn_command.cc).
#ifndef DASHI_TOOLS_LEARN_COMMAND_H_
#define DASHI_TOOLS_LEARN_COMMAND_H_

#include <functional>

#include <CLI/CLI.hpp>

namespace dashi::tools {

// Registers the subcommand; after parsing, `run` holds the function that executes it.
CLI::App* AddLearnCommand(CLI::App& app, std::function<int()>& run);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_LEARN_COMMAND_H_
