#include "tools/simulate_command.h"

#include <algorithm>
#include <cstdio>
#include <memory>

#include "backend/provenance.h"
#include "core_ref/les/les_solver.h"
#include "core_ref/npy/npy.h"
#include "core_ref/npy/npy_stream_writer.h"
#include "core_ref/status/checked_arithmetic.h"
#include "tools/cli_numbers.h"
#include "tools/cli_util.h"
#include "tools/les_options.h"
#include "tools/output_guard.h"

namespace dashi::tools {
namespace {

struct SimulateOptions {
  LesCliOptions les;
  int64_t steps = 100;
  int64_t save_every = 1;
  std::string out = "traj.npy";
  bool quiet = false;
  std::string max_memory;
  int threads = 1;
};

int Run(const SimulateOptions& o) {
  StatusOr<LesParams> params = o.les.ToParams();
  if (!params.ok()) return Fail("simulate", params.status());
  if (o.out.empty()) return Fail("simulate", InvalidArgumentError("--out is empty"));
  // simulate reads no file: its outputs are checked against datasets only.
  if (Status st = CheckOutputPlaces(
          {{"--out", o.out}, {"--out's metadata file", ReplaceNpySuffix(o.out, ".json")}}, {});
      !st.ok()) {
    return FailCommandLine("simulate", st);
  }
  StatusOr<int64_t> max_memory = ParseByteSize(o.max_memory, "--max-memory");
  if (!max_memory.ok()) return Fail("simulate", max_memory.status());
  // The frames go to disk as they are made: the solver's working set is what is held, whatever
  // the number of steps (the frame count itself must still fit the .npy size cap).
  StatusOr<int64_t> held = EstimateSimulateBytes(*params, 0, 1);
  if (!held.ok()) return Fail("simulate", held.status());
  if (Status st = CheckMemoryEstimate(*held, "the simulation", *max_memory,
                                      "reduce --n; the frames stream to disk, so --steps "
                                      "barely counts");
      !st.ok()) {
    return Fail("simulate", st);
  }
  const int64_t n = params->n;
  StatusOr<int64_t> frames = CheckedAdd(o.steps / std::max<int64_t>(o.save_every, 1), 1, "frames");
  if (!frames.ok()) return Fail("simulate", frames.status());
  const std::string json_path = ReplaceNpySuffix(o.out, ".json");
  StatusOr<OutputSet> out_set = BeginOutputFiles({o.out, json_path}, "simulate");
  if (!out_set.ok()) return Fail("simulate", out_set.status());
  StatusOr<NpyF64StreamWriter> npy =
      o.steps >= 0 && o.save_every >= 1
          ? NpyF64StreamWriter::Create(out_set->Path(o.out), {*frames, n, n})
          : StatusOr<NpyF64StreamWriter>(InvalidArgumentError(
                "--steps must be >= 0 and --save-every >= 1"));
  if (!npy.ok()) return Fail("simulate", npy.status());
  nlohmann::json meta = {
      {"provenance", backend::ReferenceProvenance("ref")},
      {"params", LesParamsJson(*params)},
      {"steps", o.steps},
      {"save_every", o.save_every},
      {"shape", {*frames, n, n}},
      {"frames", nlohmann::json::array()},
  };
  double e0 = 0, e1 = 0, z0 = 0, z1 = 0;
  ProgressLine progress(!o.quiet);
  Status st = SimulateFrames(
      *params, o.steps, o.save_every,
      [&](const LesFrame& f) -> Status {
        DASHI_RETURN_IF_ERROR(npy->Append(*f.omega));
        meta["frames"].push_back({{"frame", f.index},
                                  {"step", f.step},
                                  {"time", f.time},
                                  {"energy", f.energy},
                                  {"enstrophy", f.enstrophy}});
        if (f.index == 0) e0 = f.energy, z0 = f.enstrophy;
        e1 = f.energy, z1 = f.enstrophy;
        return OkStatus();
      },
      [&](int64_t s, int64_t total) { progress.Update("simulate", s, total); }, o.threads);
  if (st.ok()) st = npy->Finish();
  if (st.ok()) st = WriteJson(out_set->Path(json_path), meta);
  if (st.ok()) st = out_set->Commit();
  if (!st.ok()) return Fail("simulate", st);
  std::printf("wrote %s (%lld frames of %lldx%lld) and %s; energy %.6g -> %.6g, enstrophy %.6g "
              "-> %.6g\n",
              o.out.c_str(), static_cast<long long>(*frames), static_cast<long long>(n),
              static_cast<long long>(n), json_path.c_str(), e0, e1, z0, z1);
  return 0;
}

}  // namespace

CLI::App* AddSimulateCommand(CLI::App& app, std::function<int()>& run) {
  auto o = std::make_shared<SimulateOptions>();
  CLI::App* cmd = app.add_subcommand(
      "simulate",
      "Run the 2D Navier-Stokes/LES solver and write the vorticity trajectory: --out traj.npy "
      "(float64, shape [frames, N, N]; frame 0 is the initial state, frame f the state at step "
      "f*save_every) and traj.json beside it (parameters, time, energy and enstrophy per frame). "
      "Frames are written as they are made: memory does not grow with --steps.");
  AddLesOptions(*cmd, o->les);
  cmd->add_option("--steps", o->steps, "Number of time steps (>= 0)")
      ->check(IntegerIn(0, INT64_MAX))
      ->capture_default_str();
  cmd->add_option("--save-every", o->save_every, "Keep every k-th state (>= 1)")
      ->check(IntegerIn(1, INT64_MAX))
      ->capture_default_str();
  cmd->add_option("--out", o->out, "Output .npy path, NAME.npy (NAME.json goes beside it)")
      ->type_name("PATH")
      ->check(NpyOutputPath())
      ->capture_default_str();
  cmd->add_flag("--quiet", o->quiet, "No progress output");
  cmd->add_option("--threads", o->threads,
                  "Threads of the LES (1..1024): FFT rows/columns and pointwise work split over "
                  "them; the output bytes do not depend on it")
      ->check(IntegerIn(1, 1024))
      ->capture_default_str();
  AddMaxMemoryOption(*cmd, o->max_memory);
  cmd->callback([o, &run] { run = [o] { return Run(*o); }; });
  return cmd;
}

}  // namespace dashi::tools
