// `dashi dataset generate | verify | merge`: golden datasets of many LES trajectories — a grid
// of seeds × LES parameter sets × N from a spec.json, resumable, shardable (Slurm arrays,
// Kubernetes Indexed Jobs), verified by hashes and by regeneration (tools/dataset/).
#ifndef DASHI_TOOLS_DATASET_COMMAND_H_
#define DASHI_TOOLS_DATASET_COMMAND_H_

#include <CLI/CLI.hpp>
#include <functional>

namespace dashi::tools {

CLI::App* AddDatasetCommand(CLI::App& app, std::function<int()>& run);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_DATASET_COMMAND_H_
