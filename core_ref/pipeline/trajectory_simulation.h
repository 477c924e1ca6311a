// Runs the pipeline's LES trajectories (train, validation and eval seeds) and encodes the frames
// of each one's window as they are made, on up to `threads` std::threads. Each LES run is
// single-threaded and deterministic and writes only its own slot, so the results are the same
// bytes whatever the scheduling; errors come back in job order.
//
//   std::vector<TrajectoryJob> jobs = {{les_seed_1, /*start=*/200, /*steps=*/400, 2}, ...};
//   DASHI_ASSIGN_OR_RETURN(auto out, SimulateTrajectories(jobs, spec, 2, progress));
#ifndef DASHI_CORE_REF_PIPELINE_TRAJECTORY_SIMULATION_H_
#define DASHI_CORE_REF_PIPELINE_TRAJECTORY_SIMULATION_H_

#include <cstdint>
#include <functional>
#include <vector>

#include "core_ref/les/les_solver.h"
#include "core_ref/proxy/proxy_encoder.h"
#include "core_ref/status/status.h"

namespace dashi {

struct TrajectoryJob {
  LesParams les;              // seed included
  int64_t start = 0;          // first proxy frame of the window
  int64_t steps = 0;          // the window holds frames start … start + steps
  int64_t sample_every = 1;   // LES steps per proxy frame
  std::vector<int64_t> keep;  // window frames (0 … steps, increasing) whose field ω is kept
};

struct SimulatedTrajectory {
  std::vector<double> z;                  // (steps + 1) × D, the window's encoded frames
  std::vector<double> energy, enstrophy;  // the LES's own, per window frame
  std::vector<std::vector<double>> kept;  // ω of the frames in job.keep, in that order
};

// The field ω at proxy frame `frame` of the LES run `les` (frame · sample_every LES steps).
StatusOr<std::vector<double>> SimulateToFrame(const LesParams& les, int64_t frame,
                                              int64_t sample_every);

// `progress` (optional) gets (LES steps done over all jobs, total), under a lock.
StatusOr<std::vector<SimulatedTrajectory>> SimulateTrajectories(
    const std::vector<TrajectoryJob>& jobs, const ProxySpec& spec, int threads,
    const std::function<void(int64_t, int64_t)>& progress = {});

}  // namespace dashi

#endif  // DASHI_CORE_REF_PIPELINE_TRAJECTORY_SIMULATION_H_
