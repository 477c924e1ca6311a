// `dashi simulate`: runs the LES and writes the vorticity trajectory as .npy plus a JSON of the
// parameters and the energy/enstrophy of every saved frame.
#ifndef DASHI_TOOLS_SIMULATE_COMMAND_H_
#define DASHI_TOOLS_SIMULATE_COMMAND_H_

#include <CLI/CLI.hpp>

namespace dashi::tools {

// Registers the subcommand; the returned callback runs it after parsing.
CLI::App* AddSimulateCommand(CLI::App& app, std::function<int()>& run);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_SIMULATE_COMMAND_H_
