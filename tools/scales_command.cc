#include "tools/scales_command.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "backend/backend.h"
#include "backend/provenance.h"
#include "core_ref/les/les_solver.h"
#include "core_ref/scales/filament_trace.h"
#include "core_ref/scales/fining_depth.h"
#include "tools/cli_numbers.h"
#include "tools/cli_util.h"
#include "tools/decode_options.h"
#include "tools/les_options.h"
#include "tools/line_plot.h"
#include "tools/output_guard.h"
#include "tools/png_image.h"
#include "tools/scales_json.h"
#include "tools/vulkan_flags.h"

namespace dashi::tools {
namespace {

struct ScalesOptions {
  std::vector<int64_t> grids = {64, 128, 256};
  std::vector<int64_t> seeds = {1, 2};
  std::vector<int64_t> steps = {1000, 2000};
  std::vector<int64_t> k_lo = {4};
  int surrogates = 8;
  double sigmas = 3.0;
  double tau = 0.3;
  std::string out = "scales_out";
  bool quiet = false;
  backend::BackendOptions backend;  // vulkan: each layer's statistics from the device tower
};

// Mean and sample standard deviation (0 for one value), summed in order.
std::pair<double, double> MeanSd(const std::vector<double>& v) {
  double s = 0.0;
  for (double x : v) s += x;
  const double mean = s / static_cast<double>(v.size());
  if (v.size() < 2) return {mean, 0.0};
  double q = 0.0;
  for (double x : v) q += (x - mean) * (x - mean);
  return {mean, std::sqrt(q / static_cast<double>(v.size() - 1))};
}

// The closed carriers of every layer side by side, 4 empty columns apart.
Status WriteTowerStrip(const std::string& path, const ScaleTower& t) {
  const int64_t n = t.n, layers = static_cast<int64_t>(t.closed.size()), gap = 4;
  const int64_t cols = layers * n + (layers - 1) * gap;
  std::vector<int8_t> strip(static_cast<size_t>(n * cols), 0);
  for (int64_t l = 0; l < layers; ++l) {
    const auto v = t.closed[l].values();
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t j = 0; j < n; ++j) strip[i * cols + l * (n + gap) + j] = v[i * n + j];
    }
  }
  return WriteCarrierPng(path, strip, n, cols, n <= 128 ? 2 : 1);
}

Status Validate(const ScalesOptions& o) {
  auto positive = [](const std::vector<int64_t>& v, const char* flag) -> Status {
    if (v.empty()) return InvalidArgumentError(std::string(flag) + " is empty");
    for (int64_t x : v) {
      if (x < 0) return InvalidArgumentError(std::string(flag) + ": " + std::to_string(x) + " is negative");
    }
    return OkStatus();
  };
  DASHI_RETURN_IF_ERROR(positive(o.grids, "--n"));
  DASHI_RETURN_IF_ERROR(positive(o.seeds, "--seeds"));
  DASHI_RETURN_IF_ERROR(positive(o.steps, "--steps"));
  DASHI_RETURN_IF_ERROR(positive(o.k_lo, "--k-lo"));
  for (int64_t n : o.grids) {
    if (n < 16 || n > 2048 || (n & (n - 1)) != 0) {
      return InvalidArgumentError("--n: " + std::to_string(n) + " (expected a power of two in [16, 2048])");
    }
    for (int64_t k : o.k_lo) {
      if (k < 1 || k > n / 2) {
        return InvalidArgumentError("--k-lo: " + std::to_string(k) + " outside [1, N/2] for N = " +
                                    std::to_string(n));
      }
    }
  }
  if (o.out.empty()) return InvalidArgumentError("--out is empty");
  if (!(o.sigmas >= 0.0 && o.sigmas <= 100.0)) {  // core_ref/scales' range; NaN fails too
    return InvalidArgumentError("--sigmas " + NumberText(o.sigmas) + " is outside [0, 100]");
  }
  if (std::string problem = TauProblem(o.tau); !problem.empty()) {
    return InvalidArgumentError(problem);
  }
  return OkStatus();
}

int Run(const ScalesOptions& o) {
  if (Status st = CheckOutputPlaces({{"--out", o.out}}, {}); !st.ok()) {
    return FailCommandLine("scales", st);
  }
  StatusOr<backend::Backend> b = backend::Backend::Open(o.backend, "dashi scales");
  if (!b.ok()) return Fail("scales", b.status());
  AnnounceDowngrade(*b, "scales");
  StatusOr<OutputSet> out_set = BeginOutputDirectory(o.out, "scales");
  if (!out_set.ok()) return Fail("scales", out_set.status());
  std::vector<int64_t> steps = o.steps;
  std::sort(steps.begin(), steps.end());
  steps.erase(std::unique(steps.begin(), steps.end()), steps.end());

  FiningParams fp;
  fp.surrogates = o.surrogates;
  fp.sigmas = o.sigmas;
  nlohmann::json snapshots = nlohmann::json::array();
  // (N, k_lo) → fining depths, layer count, survival curves (normalised by layer 0's count).
  std::map<std::pair<int64_t, int64_t>, std::vector<double>> depths;
  std::map<std::pair<int64_t, int64_t>, std::vector<std::vector<double>>> survival;
  std::map<std::pair<int64_t, int64_t>, int64_t> levels;
  ProgressLine progress(!o.quiet);
  const int64_t total = static_cast<int64_t>(o.grids.size() * o.seeds.size() * steps.size());
  int64_t done = 0;
  bool strip_written = false;
  for (int64_t n : o.grids) {
    for (int64_t seed : o.seeds) {
      LesParams p;
      p.n = n;
      p.seed = static_cast<uint64_t>(seed);
      StatusOr<LesSolver> les = LesSolver::Create(p);
      if (!les.ok()) return Fail("scales", les.status());
      for (int64_t step : steps) {
        while (les->step() < step) {
          if (Status st = les->Step(); !st.ok()) return Fail("scales", st);
        }
        const std::vector<double> omega = les->Vorticity();
        for (int64_t k_lo : o.k_lo) {
          ScaleTowerParams tp;
          tp.k_lo = k_lo;
          tp.threshold.tau = o.tau;
          StatusOr<FiningDepth> d = ComputeFiningDepth(omega, n, tp, fp);
          if (!d.ok()) return Fail("scales", d.status());
          const FilamentTrace tr = TraceFilaments(d->tower);
          // On a device: the layers' statistics (hence K and the annihilation level) are the
          // device tower's; the noise levels and the trace stay the host's.
          nlohmann::json vs_host = nullptr;
          if (b->on_device()) {
            StatusOr<std::vector<ScaleLayer>> layers = b->DeviceScaleLayers(omega, n, tp);
            if (!layers.ok()) return Fail("scales", layers.status());
            LayerComparison c;
            if (Status st = ApplyLayerStatistics(*layers, fp, *d, &c); !st.ok()) {
              return Fail("scales", st);
            }
            vs_host = {{"integer_mismatches", c.integer_mismatches},
                       {"max_float_error", c.max_float_error}};
          }
          nlohmann::json rec = ScaleTowerJson(*d, tr);
          rec["layers_computed_by"] = b->on_device() ? "vulkan (VulkanScaleTower)" : "ref";
          rec["device_vs_ref"] = vs_host;
          rec["n"] = n;
          rec["seed"] = seed;
          rec["step"] = step;
          rec["k_lo"] = k_lo;
          rec["log2_n_over_2k_lo"] = std::log2(static_cast<double>(n) / (2.0 * static_cast<double>(k_lo)));
          snapshots.push_back(rec);
          depths[{n, k_lo}].push_back(d->k);
          levels[{n, k_lo}] = static_cast<int64_t>(d->tower.layers.size());
          std::vector<double> curve;
          for (int64_t a : tr.alive_from_layer0) {
            curve.push_back(tr.alive_from_layer0[0] > 0
                                ? static_cast<double>(a) / static_cast<double>(tr.alive_from_layer0[0])
                                : 0.0);
          }
          survival[{n, k_lo}].push_back(curve);
          if (!strip_written && n == 128) {
            if (Status st = WriteTowerStrip(out_set->Path("tower_n128.png"), d->tower); !st.ok()) {
              return Fail("scales", st);
            }
            strip_written = true;
          }
        }
        progress.Update("scales", ++done, total);
      }
    }
  }

  // The table, the mean survival curve per (N, k_lo), and the plots.
  nlohmann::json table = nlohmann::json::array();
  std::vector<PlotSeries> curves, depth_points(1), level_points(1);
  nlohmann::json legend = nlohmann::json::array();
  double max_layers = 1;
  std::printf("%6s %5s %7s %14s %8s %8s %5s %5s\n", "N", "k_lo", "layers", "log2(N/2k_lo)",
              "K mean", "K sd", "K min", "K max");
  for (const auto& [key, ks] : depths) {
    const auto [mean, sd] = MeanSd(ks);
    const int64_t layers = levels[key];
    const double log2r = std::log2(static_cast<double>(key.first) / (2.0 * static_cast<double>(key.second)));
    std::printf("%6lld %5lld %7lld %14.2f %8.2f %8.2f %5.0f %5.0f\n",
                static_cast<long long>(key.first), static_cast<long long>(key.second),
                static_cast<long long>(layers), log2r, mean, sd,
                *std::min_element(ks.begin(), ks.end()), *std::max_element(ks.begin(), ks.end()));
    std::vector<double> mean_curve(static_cast<size_t>(layers), 0.0), xs;
    for (int64_t l = 0; l < layers; ++l) {
      double s = 0.0;
      for (const auto& c : survival[key]) s += c[l];
      mean_curve[l] = s / static_cast<double>(survival[key].size());
      xs.push_back(static_cast<double>(l));
    }
    const size_t idx = curves.size();
    curves.push_back({xs, mean_curve, PaletteColour(idx)});
    legend.push_back({{"colour", PaletteColourName(idx)}, {"n", key.first}, {"k_lo", key.second}});
    max_layers = std::max(max_layers, static_cast<double>(layers));
    depth_points[0].x.push_back(log2r);
    depth_points[0].y.push_back(mean);
    table.push_back({{"n", key.first}, {"k_lo", key.second}, {"layers", layers},
                     {"log2_n_over_2k_lo", log2r}, {"k_mean", mean}, {"k_sd", sd},
                     {"k_values", ks}, {"survival_mean", mean_curve}});
  }
  PlotAxes survival_axes{0, std::max(1.0, max_layers - 1), 0, 1};
  if (Status st = WriteLinePlot(out_set->Path("survival.png"), curves, survival_axes); !st.ok()) {
    return Fail("scales", st);
  }
  depth_points[0].colour = PaletteColour(0);
  double xmax = 1;
  for (double x : depth_points[0].x) xmax = std::max(xmax, x);
  // Grey: K = log2(N/2k_lo) + 1, the number of layers (every layer structured).
  PlotSeries all_layers{{0, xmax + 1}, {1, xmax + 2}, Rgb{150, 150, 150}};
  if (Status st = WriteLinePlot(out_set->Path("fining_depth.png"), {all_layers, depth_points[0]},
                                PlotAxes{0, xmax + 1, 0, xmax + 2});
      !st.ok()) {
    return Fail("scales", st);
  }
  if (Status st = b->CheckValidation(); !st.ok()) return Fail("scales", st);
  nlohmann::json out = {
      {"provenance", b->Provenance()},
      {"command", "scales"},
      {"surrogates", o.surrogates},
      {"sigmas", o.sigmas},
      {"tau", o.tau},
      {"table", table},
      {"plots",
       {{"survival.png",
         {{"x", "layer"}, {"y", "filaments of layer 0 alive at the layer, as a share"},
          {"legend", legend}}},
        {"fining_depth.png",
         {{"x", "log2(N / 2 k_lo)"}, {"y", "mean fining depth K"},
          {"legend", {{{"colour", "blue"}, {"series", "measured mean K"}},
                      {{"colour", "grey"}, {"series", "every layer structured (K = L)"}}}}}},
        {"tower_n128.png", {{"what", "closed carriers s*_l of the first N = 128 snapshot, layer 0 on the left"}}}}},
      {"snapshots", snapshots},
  };
  Status st = WriteJson(out_set->Path("scales.json"), out);
  if (st.ok()) st = out_set->Commit();
  if (!st.ok()) return Fail("scales", st);
  std::printf("wrote %s/scales.json, survival.png, fining_depth.png%s\n", o.out.c_str(),
              strip_written ? ", tower_n128.png" : "");
  return 0;
}

}  // namespace

CLI::App* AddScalesCommand(CLI::App& app, std::function<int()>& run) {
  auto o = std::make_shared<ScalesOptions>();
  CLI::App* cmd = app.add_subcommand(
      "scales",
      "The scale-tower study (docs/MATH.md section 12): for every grid N, seed, LES step and k_lo, "
      "the LES vorticity is split into dyadic bands (layer 0: |k| <= k_lo; layer l: "
      "k_lo*2^(l-1) < |k| <= k_lo*2^l; the last layer open to the corner), each band normalised, "
      "PDA-thresholded and closed; the fining depth K (layers carrying more structure than "
      "phase-randomised surrogates of the same spectrum) and the filament trace are written to "
      "OUT/scales.json with a table on stdout, survival.png, fining_depth.png and tower_n128.png.");
  cmd->add_option("--n", o->grids, "Grids N (powers of two, 16..2048), comma-separated")
      ->delimiter(',')->capture_default_str();
  cmd->add_option("--seeds", o->seeds, "LES seeds, comma-separated")->delimiter(',')->capture_default_str();
  cmd->add_option("--steps", o->steps, "LES steps at which a snapshot is taken, comma-separated")
      ->delimiter(',')->capture_default_str();
  cmd->add_option("--k-lo", o->k_lo, "Layer 0's cut-off wavenumber(s), comma-separated")
      ->delimiter(',')
      ->check(IntAtLeast(1))
      ->capture_default_str();
  cmd->add_option("--surrogates", o->surrogates, "Phase-randomised surrogates per snapshot (2..64)")
      ->check(IntegerIn(2, 64))
      ->capture_default_str();
  cmd->add_option("--sigmas", o->sigmas,
                  "Noise level = surrogates' mean + sigmas * their standard deviation; sigmas in "
                  "[0, 100]")
      ->capture_default_str();
  cmd->add_option("--tau", o->tau, "PDA threshold of every layer (on the band normalised by max|b|), in (0, 1]")
      ->capture_default_str();
  cmd->add_option("--out", o->out, "Output directory")->type_name("PATH")->capture_default_str();
  cmd->add_flag("--quiet", o->quiet, "No progress output");
  AddVulkanFlags(*cmd, o->backend,
                 {.backend = true, .device = true, .allow_uncertified = true, .cert_store = true,
                  .validation = true});
  // The flags' ranges: a command-line error (exit code 2) before any work.
  AddFlagCheck(*cmd, [o] {
    const Status st = Validate(*o);
    return st.ok() ? std::string() : std::string(st.message());
  });
  cmd->callback([o, &run] { run = [o] { return Run(*o); }; });
  return cmd;
}

}  // namespace dashi::tools
