#include "tools/run_command.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <vector>

#include <nlohmann/json.hpp>

#include "core_ref/carrier/closure.h"
#include "core_ref/carrier/defect.h"
#include "core_ref/carrier/pda_threshold.h"
#include "core_ref/carrier/smoothing.h"
#include "core_ref/fileio/atomic_file.h"
#include "core_ref/prng/prng.h"
#include "tools/reference_version.h"

namespace dashi::tools {
namespace {

int Fail(const Status& s) {
  std::fprintf(stderr, "dashi run: %s\n", s.ToString().c_str());
  return 1;
}

}  // namespace

CLI::App* AddRunCommand(CLI::App& app, RunOptions& o) {
  CLI::App* cmd = app.add_subcommand(
      "run",
      "The main job. Currently: the carrier stage on a seeded synthetic field "
      "(random field → triangle smoothing → normalise by max|.| → PDA threshold → closure "
      "K_ann∘M to its fixed point), writing metrics.json to --out.");
  cmd->add_option("--n", o.n, "Grid size N (N×N), 1..4096")->capture_default_str();
  cmd->add_option("--seed", o.seed, "Seed of the synthetic field (Xoshiro256**)")
      ->capture_default_str();
  cmd->add_option("--tau", o.tau, "PDA threshold τ on the normalised field, in (0, 1]")
      ->capture_default_str();
  cmd->add_option("--smooth-radius", o.smooth_radius, "Triangle smoothing radius (applied twice)")
      ->capture_default_str();
  cmd->add_option("--ann-radius", o.ann_radius, "Annihilation window radius r")
      ->capture_default_str();
  cmd->add_option("--maj-radius", o.maj_radius, "Majority window radius r")->capture_default_str();
  cmd->add_option("--eta", o.eta, "Majority agreement margin η")->capture_default_str();
  cmd->add_option("--max-levels", o.max_levels, "Cap on closure iterations")->capture_default_str();
  cmd->add_option("--backend", o.backend,
                  "Backend: ref (the fp64 reference) or vulkan. A backend that cannot run is an "
                  "error, never a silent fallback.")
      ->check(CLI::IsMember({"ref", "vulkan"}))
      ->capture_default_str();
  cmd->add_option("--out", o.out, "Output directory (created if missing)")->capture_default_str();
  return cmd;
}

int RunRunCommand(const RunOptions& o) {
  if (o.backend != "ref") {
    return Fail(UnimplementedError(
        "backend '" + o.backend +
        "' requested, but the Vulkan pipeline ops are not built yet; use --backend ref"));
  }
  if (o.n < 1 || o.n > 4096) return Fail(InvalidArgumentError("--n must be in 1..4096"));
  if (!(o.tau > 0 && o.tau <= 1)) return Fail(InvalidArgumentError("--tau must be in (0, 1]"));
  std::error_code ec;
  std::filesystem::create_directories(o.out, ec);
  if (ec) return Fail(InvalidArgumentError(o.out + ": cannot create directory: " + ec.message()));

  const auto t0 = std::chrono::steady_clock::now();
  const GridShape shape{o.n, o.n};
  Xoshiro256ss rng(o.seed);
  std::vector<double> noise(static_cast<size_t>(shape.size()));
  for (double& x : noise) x = 2.0 * rng.NextDouble() - 1.0;
  StatusOr<RealField> field = RealField::FromValues(shape, std::move(noise));
  if (!field.ok()) return Fail(field.status());
  const SmoothingParams tri{SmoothingKernel::kTriangle, o.smooth_radius};
  StatusOr<RealField> s1 = Smooth(*field, tri);
  if (!s1.ok()) return Fail(s1.status());
  StatusOr<RealField> s2 = Smooth(*s1, tri);
  if (!s2.ok()) return Fail(s2.status());
  const RealField normalised = NormalizeByMaxAbs(*s2);
  StatusOr<Carrier> s0 = PdaThreshold(normalised, {o.tau});
  if (!s0.ok()) return Fail(s0.status());
  ClosureParams cp;
  cp.annihilation.radius = o.ann_radius;
  cp.majority = {o.maj_radius, o.eta};
  cp.max_iterations = o.max_levels;
  StatusOr<ClosureResult> closure = Closure(*s0, &normalised, cp);
  if (!closure.ok()) return Fail(closure.status());
  const double ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();

  std::printf("dashi run: backend ref, N=%d seed=%llu tau=%g\n", o.n,
              static_cast<unsigned long long>(o.seed), o.tau);
  nlohmann::json levels = nlohmann::json::array();
  for (size_t l = 0; l < closure->levels.size(); ++l) {
    const auto& st = closure->levels[l];
    std::printf("  level %2zu: active cells %8lld  mean|field| on support %.6f\n", l,
                static_cast<long long>(st.active_cells), st.mean_abs_field);
    levels.push_back({{"level", l}, {"active_cells", st.active_cells},
                      {"mean_abs_field", st.mean_abs_field}});
  }
  std::printf("  closure depth %d (fixed point: %s), defect %lld -> %lld, %.1f ms\n",
              closure->depth, closure->reached_fixed_point ? "yes" : "no (cap)",
              static_cast<long long>(Defect(*s0)),
              static_cast<long long>(Defect(closure->fixed_point)), ms);

  nlohmann::json metrics = {
      {"reference_version", kReferenceVersion},
      {"stage", "carrier"},
      {"backend_requested", o.backend},
      {"backend_used", "ref"},
      {"device", "cpu (core_ref fp64 reference)"},
      {"driver", "none"},
      {"params",
       {{"n", o.n}, {"seed", o.seed}, {"tau", o.tau}, {"smooth_radius", o.smooth_radius},
        {"ann_radius", o.ann_radius}, {"maj_radius", o.maj_radius}, {"eta", o.eta},
        {"max_levels", o.max_levels}}},
      {"closure_depth", closure->depth},
      {"reached_fixed_point", closure->reached_fixed_point},
      {"levels", levels},
      {"defect_initial", Defect(*s0)},
      {"defect_final", Defect(closure->fixed_point)},
      {"elapsed_ms", ms},
  };
  const std::string path = o.out + "/metrics.json";
  Status w = WriteFileAtomically(path, metrics.dump(2) + "\n");
  if (!w.ok()) return Fail(w);
  std::printf("  wrote %s\n", path.c_str());
  return 0;
}

}  // namespace dashi::tools
