#include "tools/simulate_command.h"

#include <cstdio>
#include <memory>

#include "backend/provenance.h"
#include "core_ref/les/les_solver.h"
#include "core_ref/npy/npy.h"
#include "core_ref/status/checked_arithmetic.h"
#include "tools/cli_util.h"
#include "tools/les_options.h"

namespace dashi::tools {
namespace {

struct SimulateOptions {
  LesCliOptions les;
  int64_t steps = 100;
  int64_t save_every = 1;
  std::string out = "traj.npy";
  bool quiet = false;
};

int Run(const SimulateOptions& o) {
  StatusOr<LesParams> params = o.les.ToParams();
  if (!params.ok()) return Fail("simulate", params.status());
  if (o.out.empty()) return Fail("simulate", InvalidArgumentError("--out is empty"));
  // The frames are held three times at the end: the trajectory, the flat array, the .npy array.
  StatusOr<int64_t> bytes = EstimateSimulateBytes(*params, o.steps, o.save_every);
  if (!bytes.ok()) return Fail("simulate", bytes.status());
  StatusOr<int64_t> held = CheckedMul(*bytes, 3, "simulate bytes");
  if (!held.ok()) return Fail("simulate", held.status());
  if (Status st = CheckMemoryEstimate(*held, "dashi simulate"); !st.ok()) return Fail("simulate", st);
  ProgressLine progress(!o.quiet);
  StatusOr<LesTrajectory> traj = Simulate(*params, o.steps, o.save_every,
                                          [&](int64_t s, int64_t total) {
                                            progress.Update("simulate", s, total);
                                          });
  if (!traj.ok()) return Fail("simulate", traj.status());
  const int64_t n = params->n, frames = static_cast<int64_t>(traj->frames.size());
  std::vector<double> flat;
  flat.reserve(static_cast<size_t>(frames * n * n));
  for (const auto& f : traj->frames) flat.insert(flat.end(), f.begin(), f.end());
  StatusOr<NpyArray> arr = NpyArray::FromF64({frames, n, n}, flat);
  if (!arr.ok()) return Fail("simulate", arr.status());
  nlohmann::json meta = {
      {"provenance", backend::ReferenceProvenance("ref")},
      {"params", LesParamsJson(*params)},
      {"steps", o.steps},
      {"save_every", o.save_every},
      {"shape", {frames, n, n}},
      {"frames", nlohmann::json::array()},
  };
  for (int64_t f = 0; f < frames; ++f) {
    meta["frames"].push_back({{"frame", f},
                              {"step", f * o.save_every},
                              {"time", traj->times[f]},
                              {"energy", traj->energy[f]},
                              {"enstrophy", traj->enstrophy[f]}});
  }
  const std::string json_path = ReplaceNpySuffix(o.out, ".json");
  Status st = WriteNpy(o.out, *arr);
  if (!st.ok()) return Fail("simulate", st);
  st = WriteJson(json_path, meta);
  if (!st.ok()) return Fail("simulate", st);
  std::printf("wrote %s (%lld frames of %lldx%lld) and %s; energy %.6g -> %.6g, enstrophy %.6g "
              "-> %.6g\n",
              o.out.c_str(), static_cast<long long>(frames), static_cast<long long>(n),
              static_cast<long long>(n), json_path.c_str(), traj->energy.front(),
              traj->energy.back(), traj->enstrophy.front(), traj->enstrophy.back());
  return 0;
}

}  // namespace

CLI::App* AddSimulateCommand(CLI::App& app, std::function<int()>& run) {
  auto o = std::make_shared<SimulateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "simulate",
      "Run the 2D Navier-Stokes/LES solver and write the vorticity trajectory: --out traj.npy "
      "(float64, shape [frames, N, N]; frame 0 is the initial state, frame f the state at step "
      "f*save_every) and traj.json beside it (parameters, time, energy and enstrophy per frame).");
  AddLesOptions(*cmd, o->les);
  cmd->add_option("--steps", o->steps, "Number of time steps (>= 0)")->capture_default_str();
  cmd->add_option("--save-every", o->save_every, "Keep every k-th state (>= 1)")
      ->capture_default_str();
  cmd->add_option("--out", o->out, "Output .npy path (the JSON goes beside it)")
      ->capture_default_str();
  cmd->add_flag("--quiet", o->quiet, "No progress output");
  cmd->callback([o, &run] { run = [o] { return Run(*o); }; });
  return cmd;
}

}  // namespace dashi::tools
