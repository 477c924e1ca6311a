// The learner and evaluation flags of `dashi run` (--learner, --loss, --k-step,
// --energy-constraint, --train-seeds, --val-seeds, --eval-seeds, --train-start, --eval-start,
// --eval-shift, --no-train, --a, --threads), registered and applied in one place.
#ifndef DASHI_TOOLS_EVALUATION_OPTIONS_H_
#define DASHI_TOOLS_EVALUATION_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core_ref/pipeline/pipeline.h"
#include "core_ref/status/status.h"
#include "tools/learner_options.h"

namespace dashi::tools {

struct EvaluationCliOptions {
  std::string learner = "shell";
  std::string loss = "k-step";
  std::string k_step = "auto";
  std::string energy_constraint = "on";
  std::string train_seeds = "1,2", val_seeds = "11,12", eval_seeds = "21,22,23";
  int64_t train_start = 200, eval_start = 200;
  std::string eval_shift;
  bool no_train = false;
  std::string a_path;
  int threads = 2;
  bool lambda_given = false;  // set from the parsed command: --lambda fixes ridge's λ
};

void AddEvaluationOptions(CLI::App& cmd, EvaluationCliOptions& o);

// "1,2,3" → {1, 2, 3}: decimal seeds, comma-separated, none empty; an empty text → {} (for
// --val-seeds ""). INVALID_ARGUMENT naming the flag and the item otherwise.
StatusOr<std::vector<uint64_t>> ParseSeedList(const std::string& text, const std::string& flag);

// "nu=1.5e-3,cs=0.2,dt=0.004" (any subset, each once) → the shift; INVALID_ARGUMENT naming the
// item otherwise.
StatusOr<LesShift> ParseEvalShift(const std::string& text);

// Sets the learner, seeds, windows, shift and given A of `p` (the ridge λ and prior come from
// `learner`, already set in p.learner by the caller's LearnerCliOptions).
Status ApplyEvaluationOptions(const EvaluationCliOptions& o, PipelineParams& p);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_EVALUATION_OPTIONS_H_
