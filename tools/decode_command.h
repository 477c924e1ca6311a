// `dashi decode`: see the subcommand's --help (registered in decode_command.cc).
#ifndef DASHI_TOOLS_DECODE_COMMAND_H_
#define DASHI_TOOLS_DECODE_COMMAND_H_

#include <functional>

#include <CLI/CLI.hpp>

namespace dashi::tools {

// Registers the subcommand; after parsing, `run` holds the function that executes it.
CLI::App* AddDecodeCommand(CLI::App& app, std::function<int()>& run);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_DECODE_COMMAND_H_
