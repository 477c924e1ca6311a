// The proxy-encoding and ridge flags shared by `dashi learn` and `dashi run` (--k-lo, --k-mid,
// --anchors, --lambda, --ridge-prior), registered once so both spell and explain them alike.
#ifndef DASHI_TOOLS_LEARNER_OPTIONS_H_
#define DASHI_TOOLS_LEARNER_OPTIONS_H_

#include <string>

#include <CLI/CLI.hpp>

namespace dashi::tools {

struct LearnerCliOptions {
  int k_lo = 12;
  int k_mid = 24;
  int anchors = 32;
  double lambda = 1e-2;
  std::string prior = "identity";  // parsed by core_ref's ParseRidgePrior
};

void AddLearnerOptions(CLI::App& cmd, LearnerCliOptions& o);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_LEARNER_OPTIONS_H_
