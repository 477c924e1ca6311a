#include "core_ref/pipeline/trajectory_simulation.h"

#include <atomic>
#include <exception>
#include <mutex>
#include <new>
#include <string>
#include <thread>

#include "core_ref/status/checked_arithmetic.h"

namespace dashi {
namespace {

StatusOr<SimulatedTrajectory> RunJob(const TrajectoryJob& job, const ProxySpec& spec,
                                     const std::function<void(int64_t)>& advance) {
  DASHI_ASSIGN_OR_RETURN(const int64_t last, CheckedAdd(job.start, job.steps, "window end"));
  DASHI_ASSIGN_OR_RETURN(const int64_t les_steps,
                         CheckedMul(last, job.sample_every, "trajectory LES steps"));
  SimulatedTrajectory out;
  size_t next_keep = 0;
  int64_t reported = 0;
  DASHI_RETURN_IF_ERROR(SimulateFrames(
      job.les, les_steps, job.sample_every,
      [&](const LesFrame& f) -> Status {
        advance(f.step - reported);
        reported = f.step;
        if (f.index < job.start) return OkStatus();
        DASHI_ASSIGN_OR_RETURN(std::vector<double> z, Encode(spec, *f.omega));
        out.z.insert(out.z.end(), z.begin(), z.end());
        out.energy.push_back(f.energy);
        out.enstrophy.push_back(f.enstrophy);
        if (next_keep < job.keep.size() && job.keep[next_keep] == f.index - job.start) {
          out.kept.push_back(*f.omega);
          ++next_keep;
        }
        return OkStatus();
      }));
  return out;
}

}  // namespace

StatusOr<std::vector<double>> SimulateToFrame(const LesParams& les, int64_t frame,
                                              int64_t sample_every) {
  DASHI_ASSIGN_OR_RETURN(const int64_t steps, CheckedMul(frame, sample_every, "LES steps"));
  std::vector<double> last;
  DASHI_RETURN_IF_ERROR(SimulateFrames(les, steps, steps > 0 ? steps : 1,
                                       [&](const LesFrame& f) {
                                         if (f.step == steps) last = *f.omega;
                                         return OkStatus();
                                       }));
  return last;
}

StatusOr<std::vector<SimulatedTrajectory>> SimulateTrajectories(
    const std::vector<TrajectoryJob>& jobs, const ProxySpec& spec, int threads,
    const std::function<void(int64_t, int64_t)>& progress) {
  int64_t total = 0;
  for (const TrajectoryJob& j : jobs) total += (j.start + j.steps) * j.sample_every;
  std::vector<StatusOr<SimulatedTrajectory>> results(jobs.size(),
                                                     InternalError("trajectory not simulated"));
  std::mutex mu;
  int64_t done = 0;
  const auto advance = [&](int64_t steps) {
    if (!progress || steps == 0) return;
    std::lock_guard<std::mutex> lock(mu);
    done += steps;
    progress(done, total);
  };
  std::atomic<size_t> next{0};
  const auto worker = [&] {
    for (size_t i = next++; i < jobs.size(); i = next++) {
      try {
        results[i] = RunJob(jobs[i], spec, advance);
      } catch (const std::bad_alloc&) {
        results[i] = ResourceExhaustedError("trajectory simulation: out of memory");
      } catch (const std::exception& e) {
        results[i] = InternalError(std::string("trajectory simulation: ") + e.what());
      }
    }
  };
  const size_t workers = std::min<size_t>(threads > 0 ? static_cast<size_t>(threads) : 1,
                                          jobs.size());
  std::vector<std::thread> pool;
  try {
    for (size_t w = 1; w < workers; ++w) pool.emplace_back(worker);
  } catch (const std::system_error&) {
    // Fewer threads than asked: the remaining jobs run on the ones that started.
  }
  worker();
  for (std::thread& t : pool) t.join();
  std::vector<SimulatedTrajectory> out;
  for (size_t i = 0; i < jobs.size(); ++i) {
    if (!results[i].ok()) {
      return results[i].status().WithPrefix("trajectory " + std::to_string(i) + " (seed " +
                                            std::to_string(jobs[i].les.seed) + ")");
    }
    out.push_back(std::move(*results[i]));
  }
  return out;
}

}  // namespace dashi
