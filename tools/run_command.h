// `dashi run`: the main job. Today it runs the carrier stage of the pipeline on a seeded synthetic
// field (smooth → normalise → PDA threshold → closure) and writes metrics.json; the LES, learner,
// rollout and decoder join it as they land.
#ifndef DASHI_TOOLS_RUN_COMMAND_H_
#define DASHI_TOOLS_RUN_COMMAND_H_

#include <cstdint>
#include <string>

#include <CLI/CLI.hpp>

namespace dashi::tools {

struct RunOptions {
  int n = 128;
  uint64_t seed = 1;
  double tau = 0.2;
  int smooth_radius = 2;
  int ann_radius = 1;
  int maj_radius = 1;
  int eta = 2;
  int max_levels = 64;
  std::string backend = "ref";
  std::string out = "out/run";
};

CLI::App* AddRunCommand(CLI::App& app, RunOptions& options);
int RunRunCommand(const RunOptions& options);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_RUN_COMMAND_H_
