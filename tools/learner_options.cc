#include "tools/learner_options.h"

#include "core_ref/learner/transition_fit.h"
#include "tools/cli_numbers.h"

namespace dashi::tools {

void AddLearnerOptions(CLI::App& cmd, LearnerCliOptions& o) {
  cmd.add_option("--k-lo", o.k_lo, "Low-k cutoff of the proxy: modes with 0 < |k| <= k_lo")
      ->check(IntAtLeast(1))
      ->capture_default_str();
  cmd.add_option("--k-mid", o.k_mid, "Mid-band cutoff for anchors: k_lo < |k| <= k_mid")
      ->check(IntAtLeast(1))
      ->capture_default_str();
  cmd.add_option("--anchors", o.anchors, "Number M of mid-band anchor modes")
      ->check(IntAtLeast(0))
      ->capture_default_str();
  cmd.add_option("--lambda", o.lambda, "Ridge lambda, relative to trace(Z^T Z)/D")
      ->capture_default_str();
  cmd.add_option("--ridge-prior", o.prior,
                 "identity: lambda*|A - I|^2, fits the increment and shrinks towards persistence "
                 "(default; generalises across seeds); zero: lambda*|A|^2, the design's literal "
                 "formula")
      ->check(AcceptedBy([](const std::string& s) { return ParseRidgePrior(s).status(); }))
      ->capture_default_str();
}

}  // namespace dashi::tools
