// `dashi scales`: the scale-tower study (docs/MATH.md §12) — over grids N, seeds, LES steps and
// k_lo, the fining depth K of the LES vorticity against phase-randomised surrogates, the
// annihilation trace and its survival curves; JSON, a table on stdout and PNGs.
#ifndef DASHI_TOOLS_SCALES_COMMAND_H_
#define DASHI_TOOLS_SCALES_COMMAND_H_

#include <CLI/CLI.hpp>

namespace dashi::tools {

CLI::App* AddScalesCommand(CLI::App& app, std::function<int()>& run);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_SCALES_COMMAND_H_
