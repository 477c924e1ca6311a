// `dashi golden generate|verify`: writes the golden set, or checks a directory against its
// manifest (see tools/golden/golden_set.h).
#ifndef DASHI_TOOLS_GOLDEN_COMMAND_H_
#define DASHI_TOOLS_GOLDEN_COMMAND_H_

#include <functional>

#include <CLI/CLI.hpp>

namespace dashi::tools {

CLI::App* AddGoldenCommand(CLI::App& app, std::function<int()>& run);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_GOLDEN_COMMAND_H_
