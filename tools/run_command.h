// `dashi run`: the main job end to end — simulate the LES (train and eval seeds), encode, learn A,
// roll out autonomously with a hash chain, decode snapshots — and write metrics, the chain, the
// model and pictures to --out.
#ifndef DASHI_TOOLS_RUN_COMMAND_H_
#define DASHI_TOOLS_RUN_COMMAND_H_

#include <functional>

#include <CLI/CLI.hpp>

namespace dashi::tools {

CLI::App* AddRunCommand(CLI::App& app, std::function<int()>& run);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_RUN_COMMAND_H_
