// The inputs `dashi rollout` and `dashi audit` share: the flags --z0, --a, --steps, --hash-every,
// and reading z0 [D] (or [B, D] where a batch is allowed) and A [D, D] as finite float64 arrays whose shapes agree (messages name the
// file and the shape).
#ifndef DASHI_TOOLS_ROLLOUT_INPUTS_H_
#define DASHI_TOOLS_ROLLOUT_INPUTS_H_

#include <cstdint>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "core_ref/status/status.h"

namespace dashi::tools {

struct RolloutInputFlags {
  std::string z0, a;
  int64_t steps = 1000;
  int64_t hash_every = 100;
};

// allow_batch: --z0 is described as [D] or [B, D] (`rollout`), else [D] only (`audit`); the same
// value is given to ReadRolloutInputs.
void AddRolloutInputFlags(CLI::App& cmd, RolloutInputFlags& flags, bool allow_batch = false);

struct RolloutInputs {
  int64_t dim = 0;
  int64_t batch = 1;       // rows of a [B, D] z0
  bool batched = false;    // z0 was [B, D] (even with B = 1)
  std::vector<double> z0;  // B×D, row-major
  std::vector<double> a;   // D×D, row-major
};

// allow_batch: z0 may also be [B, D] (B ≥ 1 trajectories of dimension D).
StatusOr<RolloutInputs> ReadRolloutInputs(const RolloutInputFlags& flags,
                                          bool allow_batch = false);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_ROLLOUT_INPUTS_H_
