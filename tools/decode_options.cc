#include "tools/decode_options.h"

#include <cstdio>
#include <utility>

#include "core_ref/carrier/window_sum.h"
#include "core_ref/npy/npy.h"
#include "tools/cli_numbers.h"
#include "tools/png_image.h"

namespace dashi::tools {

namespace {

StatusOr<SmoothingKernel> ParseSmoothingKernel(const std::string& name) {
  if (name == "box") return SmoothingKernel::kBox;
  if (name == "triangle") return SmoothingKernel::kTriangle;
  return InvalidArgumentError("'" + name + "' is not one of: box, triangle");
}

}  // namespace

StatusOr<DecodeParams> DecodeCliOptions::ToParams() const {
  DecodeParams p;
  DASHI_ASSIGN_OR_RETURN(p.smoothing.kernel, ParseSmoothingKernel(smoothing));
  p.smoothing.radius = smooth_radius;
  p.threshold.tau = tau;
  p.closure.annihilation.radius = ann_radius;
  p.closure.majority = {maj_radius, eta};
  p.closure.max_iterations = max_levels;
  p.seed = seed;
  DASHI_RETURN_IF_ERROR(ValidateSmoothingParams(p.smoothing));
  DASHI_RETURN_IF_ERROR(ValidatePdaThresholdParams(p.threshold));
  DASHI_RETURN_IF_ERROR(ValidateClosureParams(p.closure));
  return p;
}

std::string TauProblem(double tau) {
  if (tau > 0.0 && tau <= 1.0) return "";  // NaN fails too
  return "--tau " + NumberText(tau) +
         " is outside (0, 1]: the threshold applies to a field normalised to max |f| = 1";
}

std::string DecodeCliOptions::FlagProblem() const {
  if (std::string problem = TauProblem(tau); !problem.empty()) return problem;
  const int64_t window = (2 * int64_t{maj_radius} + 1) * (2 * int64_t{maj_radius} + 1);
  if (eta < 1 || eta > window) {
    return "--eta " + std::to_string(eta) + " is outside [1, " + std::to_string(window) +
           "] for --maj-radius " + std::to_string(maj_radius) +
           ": the agreement margin counts the cell itself, and the window holds " +
           std::to_string(window) + " cells";
  }
  return "";
}

void AddDecodeOptions(CLI::App& cmd, DecodeCliOptions& o) {
  cmd.add_option("--tau", o.tau, "PDA threshold on the normalised smoothed low-pass, in (0, 1]")
      ->capture_default_str();
  cmd.add_option("--smoothing", o.smoothing, "Mask smoothing kernel: box or triangle")
      ->check(AcceptedBy([](const std::string& s) { return ParseSmoothingKernel(s).status(); }))
      ->capture_default_str();
  const std::string radius_range = " (0.." + std::to_string(kMaxWindowRadius) + ")";
  // The most cells a window holds: --eta's bound at the largest --maj-radius.
  constexpr int64_t kMaxWindow =
      (2 * int64_t{kMaxWindowRadius} + 1) * (2 * int64_t{kMaxWindowRadius} + 1);
  cmd.add_option("--smooth-radius", o.smooth_radius, "Mask smoothing radius" + radius_range)
      ->check(IntegerIn(0, kMaxWindowRadius))
      ->capture_default_str();
  cmd.add_option("--ann-radius", o.ann_radius, "Annihilation window radius" + radius_range)
      ->check(IntegerIn(0, kMaxWindowRadius))
      ->capture_default_str();
  cmd.add_option("--maj-radius", o.maj_radius, "Majority window radius" + radius_range)
      ->check(IntegerIn(0, kMaxWindowRadius))
      ->capture_default_str();
  cmd.add_option("--eta", o.eta,
                 "Majority agreement margin: a cell s is kept when s times its window's sum "
                 "(itself included) is at least eta; 1..(2 maj-radius + 1)^2")
      ->check(IntegerIn(1, kMaxWindow))
      ->capture_default_str();
  cmd.add_option("--max-levels", o.max_levels, "Cap on closure iterations (>= 0)")
      ->check(IntAtLeast(0))
      ->capture_default_str();
  cmd.add_option("--phase-seed", o.seed, "Seed of the residual phases (counter-based PRNG)")
      ->capture_default_str();
  AddFlagCheck(cmd, [&o] { return o.FlagProblem(); });
}

nlohmann::json DecodeParamsJson(const DecodeParams& p) {
  return {{"smoothing", p.smoothing.kernel == SmoothingKernel::kBox ? "box" : "triangle"},
          {"smooth_radius", p.smoothing.radius},
          {"tau", p.threshold.tau},
          {"ann_radius", p.closure.annihilation.radius},
          {"maj_radius", p.closure.majority.radius},
          {"eta", p.closure.majority.eta},
          {"max_levels", p.closure.max_iterations},
          {"phase_seed", p.seed}};
}

nlohmann::json DecodedFrameJson(const DecodedFrame& f) {
  nlohmann::json levels = nlohmann::json::array();
  for (size_t l = 0; l < f.closure.levels.size(); ++l) {
    levels.push_back({{"level", l},
                      {"active_cells", f.closure.levels[l].active_cells},
                      {"mean_abs_field", f.closure.levels[l].mean_abs_field}});
  }
  const DecodeStageTimes& t = f.times;
  return {{"closure_depth", f.closure.depth},
          {"reached_fixed_point", f.closure.reached_fixed_point},
          {"levels", levels},
          {"stage_ms",
           {{"scatter_lowk", t.scatter_lowk_ms},
            {"ifft_lp", t.ifft_lp_ms},
            {"mask", t.mask_ms},
            {"synth", t.synth_ms},
            {"ifft_resid", t.ifft_resid_ms},
            {"combine", t.combine_ms}}}};
}

Status WriteDecodedFrame(const std::string& prefix, const DecodedFrame& f, int64_t n, bool png,
                         int scale) {
  const std::vector<int64_t> shape = {n, n};
  const std::pair<const char*, const std::vector<double>*> fields[] = {
      {"omega", &f.omega}, {"omega_lp", &f.omega_lp}, {"omega_resid", &f.omega_resid}};
  for (const auto& [name, values] : fields) {
    DASHI_ASSIGN_OR_RETURN(NpyArray a, NpyArray::FromF64(shape, *values));
    DASHI_RETURN_IF_ERROR(WriteNpy(prefix + name + ".npy", a));
  }
  const auto mask = f.closure.fixed_point.values();
  DASHI_ASSIGN_OR_RETURN(NpyArray m, NpyArray::From<int8_t>(shape, mask));
  DASHI_RETURN_IF_ERROR(WriteNpy(prefix + "mask.npy", m));
  if (png) {
    DASHI_RETURN_IF_ERROR(WriteFieldPng(prefix + "omega.png", f.omega, n, n, scale));
    DASHI_RETURN_IF_ERROR(WriteFieldPng(prefix + "omega_lp.png", f.omega_lp, n, n, scale));
    DASHI_RETURN_IF_ERROR(WriteCarrierPng(prefix + "mask.png", mask, n, n, scale));
  }
  return OkStatus();
}

int DefaultPngScale(int64_t n) { return n >= 384 ? 1 : static_cast<int>((384 + n - 1) / n); }

}  // namespace dashi::tools
