// What `dashi run` writes about its evaluation (docs/MATH.md §10.4): the "evaluation" and
// "learner" blocks of metrics.json, each eval trajectory's states and chain under
// eval/seed_<s>/, and the canonical plot canonical.png with its legend canonical.json.
#ifndef DASHI_TOOLS_RUN_EVALUATION_OUTPUT_H_
#define DASHI_TOOLS_RUN_EVALUATION_OUTPUT_H_

#include <string>

#include <nlohmann/json.hpp>

#include "core_ref/pipeline/pipeline.h"
#include "core_ref/status/status.h"

namespace dashi::tools {

// The learner: the chosen configuration, its gains, the validation table.
nlohmann::json LearnerJson(const PipelineResult& r);

// Baselines, per-horizon table, per-step curves, spreads over eval seeds, norms, verdict.
nlohmann::json EvaluationJson(const PipelineResult& r);

// eval/seed_<s>/{z_rollout.npy, z_eval_truth.npy, chain.json} for every eval trajectory.
Status WriteEvalTrajectories(const std::string& out, const PipelineResult& r,
                             const nlohmann::json& provenance);

// canonical.png: (1) rel L2 against the horizon (log x) of the rollout (its seed mean, and thin
// lines at its min and max), persistence, damped persistence and zero; (2) the rollout's and
// damped persistence's rel L2 over persistence's; (3) E_z and (4) Z_z per step of each eval
// seed's rollout and its LES. canonical.json names colours and axes.
Status WriteCanonicalPlot(const std::string& out, const PipelineResult& r);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_RUN_EVALUATION_OUTPUT_H_
