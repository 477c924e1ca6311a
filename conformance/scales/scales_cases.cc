// Conformance cases of the scale tower on the device (accel_vulkan/scales) against core_ref's
// BuildScaleTower (docs/MATH.md §12.8, tolerances in docs/CONFORMANCE.md):
//   scales.les.n<N>.s<seed>.integers  layers whose integer statistics (band, modes, active cells
//                                     before / after, closure depth, defects, shared support,
//                                     floor flag) or ratios of them (annihilated fraction,
//                                     coherence) differ: 0
//   scales.les.n<N>.s<seed>.floats    energy, enstrophy, max|b|: max_ℓ |gpu − ref| / max_ℓ |ref|;
//                                     concentration: max_ℓ |gpu − ref|; ≤ 1e-12
//   scales.white.n32.k2.{integers,floats}  a white field, k_lo = 2: every band above the floor
//   scales.lowpass.n64.integers       three low modes: layers 2 and 3 below the floor (empty)
//   scales.golden.n<N>.counts         the golden set's per-layer integers (scales_<N>_layer_counts
//                                     columns 0–6) and reals (energy, enstrophy, max|b| within
//                                     1e-12 of the tower's largest; annihilated fraction,
//                                     coherence exactly): mismatching values, 0
//   scales.readback.n128.bytes        bytes read back per snapshot (layer records and closure
//                                     control records; no field): ≤ 1024
// N ∈ {32, 64, 128}, seeds 1 and 2: LES fields after 10 steps. Every run checks the tower's guard
// words. One device run per input serves its cases (results cached per context, host data only).
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <vector>

#include "accel_vulkan/scales/vulkan_scale_tower.h"
#include "conformance/framework/conformance_case.h"
#include "conformance/framework/golden_input.h"
#include "core_ref/fft/fft.h"
#include "core_ref/les/les_solver.h"
#include "core_ref/scales/layer_compare.h"
#include "core_ref/scales/scale_tower.h"
#include "core_ref/testing/random_inputs.h"

namespace dashi::conformance {
namespace {

constexpr double kFloatTol = 1e-12;
constexpr double kReadbackLimit = 1024;

struct TowerRun {
  std::vector<ScaleLayer> device, ref;
  vk::VulkanScaleTowerReport report;
};

enum class Field { kLes, kWhite, kLowPass };

// A field with only the modes (3, 0), (2, 5) and (1, −6) (|k|² = 9, 29, 37): with k_lo = 4 the
// layers above 1 hold only rounding noise, below the floor, so their carriers must be empty.
StatusOr<std::vector<double>> LowPassField(int64_t n) {
  DASHI_ASSIGN_OR_RETURN(Fft2d fft, Fft2d::Create(static_cast<size_t>(n), static_cast<size_t>(n)));
  std::vector<Complex> half(static_cast<size_t>(n) * fft.half_cols(), Complex(0.0, 0.0));
  const double amp = static_cast<double>(n) * static_cast<double>(n);
  half[0 * fft.half_cols() + 3] = Complex(amp, 0.0);
  half[5 * fft.half_cols() + 2] = Complex(0.0, 0.5 * amp);
  half[static_cast<size_t>(n - 6) * fft.half_cols() + 1] = Complex(0.3 * amp, -0.2 * amp);
  return fft.Irfft(half);
}

StatusOr<std::vector<double>> LesField(int64_t n, uint64_t seed, int64_t steps) {
  LesParams p;
  p.n = n;
  p.seed = seed;
  DASHI_ASSIGN_OR_RETURN(LesTrajectory t, Simulate(p, steps, steps));
  return t.frames.back();
}

StatusOr<TowerRun> RunTower(vk::VulkanContext& ctx, const std::vector<double>& omega, int64_t n,
                            const ScaleTowerParams& params) {
  TowerRun r;
  DASHI_ASSIGN_OR_RETURN(ScaleTower ref, BuildScaleTower(omega, n, params));
  r.ref = std::move(ref.layers);
  DASHI_ASSIGN_OR_RETURN(auto tower, vk::VulkanScaleTower::Create(ctx, n, params));
  DASHI_ASSIGN_OR_RETURN(r.device, tower->Run(omega));
  r.report = tower->last_report();
  DASHI_RETURN_IF_ERROR(tower->CheckGuards());
  return r;
}

// One run per (context, field, N, seed, steps), shared by that input's cases.
StatusOr<std::shared_ptr<const TowerRun>> GetRun(vk::VulkanContext& ctx, Field field, int64_t n,
                                                 uint64_t seed, int64_t steps) {
  using Key = std::tuple<const void*, int, int64_t, uint64_t, int64_t>;
  static std::mutex mu;
  static std::map<Key, std::shared_ptr<const TowerRun>> cache;
  const Key key{&ctx, static_cast<int>(field), n, seed, steps};
  std::lock_guard<std::mutex> lock(mu);
  if (auto it = cache.find(key); it != cache.end()) return it->second;
  std::vector<double> omega;
  ScaleTowerParams params;
  if (field == Field::kLes) {
    DASHI_ASSIGN_OR_RETURN(omega, LesField(n, seed, steps));
  } else if (field == Field::kLowPass) {
    DASHI_ASSIGN_OR_RETURN(omega, LowPassField(n));
  } else {
    const RealField f = dashi::testing::RandomField({n, n}, seed);
    omega.assign(f.values().begin(), f.values().end());
    params.k_lo = 2;
  }
  DASHI_ASSIGN_OR_RETURN(TowerRun r, RunTower(ctx, omega, n, params));
  auto shared = std::make_shared<const TowerRun>(std::move(r));
  cache[key] = shared;
  return shared;
}

CaseResult JudgeIntegers(vk::VulkanContext& ctx, Field field, int64_t n, uint64_t seed,
                         int64_t steps) {
  CASE_ASSIGN(std::shared_ptr<const TowerRun> run, GetRun(ctx, field, n, seed, steps));
  const LayerComparison c = CompareScaleLayers(run->device, run->ref);
  const std::string detail = std::to_string(run->device.size()) + " layers" +
                             (c.first_difference.empty() ? "" : "; " + c.first_difference);
  return Judge(static_cast<double>(c.integer_mismatches), 0.0, detail);
}

CaseResult JudgeFloats(vk::VulkanContext& ctx, Field field, int64_t n, uint64_t seed,
                       int64_t steps) {
  CASE_ASSIGN(std::shared_ptr<const TowerRun> run, GetRun(ctx, field, n, seed, steps));
  const LayerComparison c = CompareScaleLayers(run->device, run->ref);
  return Judge(c.max_float_error, kFloatTol,
               "largest at " + c.largest_float_error +
                   (c.first_difference.empty() ? "" : "; integers differ: " + c.first_difference));
}

// The golden set's tower (tools/golden/golden_set.cc AddScaleTowerCase): Simulate(N, seed)
// after `steps` steps.
CaseResult JudgeGolden(vk::VulkanContext& ctx, int64_t n, uint64_t seed, int64_t steps) {
  CASE_ASSIGN(std::shared_ptr<const TowerRun> run, GetRun(ctx, Field::kLes, n, seed, steps));
  const std::string tag = "scales_" + std::to_string(n);
  const int64_t layers = static_cast<int64_t>(run->device.size());
  CASE_ASSIGN(NpyArray counts, ReadGolden(tag + "_layer_counts", {layers, 12}));
  CASE_ASSIGN(NpyArray reals, ReadGolden(tag + "_layer_reals", {layers, 8}));
  CASE_ASSIGN(std::vector<int64_t> c, counts.As<int64_t>());
  CASE_ASSIGN(std::vector<double> r, reals.As<double>());
  double max_energy = 0, max_enstrophy = 0, max_b = 0;
  for (int64_t l = 0; l < layers; ++l) {
    max_energy = std::fmax(max_energy, std::fabs(r[l * 8 + 0]));
    max_enstrophy = std::fmax(max_enstrophy, std::fabs(r[l * 8 + 1]));
    max_b = std::fmax(max_b, std::fabs(r[l * 8 + 2]));
  }
  int64_t mismatches = 0;
  std::string first;
  auto note = [&](bool bad, int64_t l, const char* what) {
    if (!bad) return;
    ++mismatches;
    if (first.empty()) first = "layer " + std::to_string(l) + ": " + what;
  };
  for (int64_t l = 0; l < layers; ++l) {
    const ScaleLayer& d = run->device[l];
    const int64_t* g = &c[l * 12];
    note(d.modes != g[0], l, "modes");
    note(d.active_before != g[1], l, "active_before");
    note(d.active_after != g[2], l, "active_after");
    note(d.closure_depth != g[3], l, "closure_depth");
    note(d.defect_before != g[4], l, "defect_before");
    note(d.defect_after != g[5], l, "defect_after");
    note(d.shared_support != g[6], l, "shared_support");
    const double* gr = &r[l * 8];
    note(!(std::fabs(d.energy - gr[0]) <= kFloatTol * max_energy), l, "energy");
    note(!(std::fabs(d.enstrophy - gr[1]) <= kFloatTol * max_enstrophy), l, "enstrophy");
    note(!(std::fabs(d.max_abs - gr[2]) <= kFloatTol * max_b), l, "max_abs");
    note(d.annihilated_fraction != gr[3], l, "annihilated_fraction");
    note(d.coherence.value_or(-2.0) != gr[4], l, "coherence");
    note(!(std::fabs(d.concentration - gr[5]) <= kFloatTol), l, "concentration");
  }
  return Judge(static_cast<double>(mismatches), 0.0,
               std::to_string(layers) + " layers vs " + tag + "_layer_*" +
                   (first.empty() ? "" : "; " + first));
}

bool RegisterCases() {
  for (int64_t n : {32, 64, 128}) {
    for (uint64_t seed : {1, 2}) {
      const std::string p =
          "scales.les.n" + std::to_string(n) + ".s" + std::to_string(seed) + ".";
      RegisterCase({p + "integers", "scales",
                    "layers whose integer statistics (or ratios of them) differ", 0.0,
                    [n, seed](vk::VulkanContext& ctx) {
                      return JudgeIntegers(ctx, Field::kLes, n, seed, 10);
                    }});
      RegisterCase({p + "floats", "scales",
                    "max over layers |gpu - ref| / max over layers |ref| (energy, enstrophy, "
                    "max|b|), |gpu - ref| (concentration)",
                    kFloatTol, [n, seed](vk::VulkanContext& ctx) {
                      return JudgeFloats(ctx, Field::kLes, n, seed, 10);
                    }});
    }
  }
  RegisterCase({"scales.white.n32.k2.integers", "scales",
                "layers whose integer statistics (or ratios of them) differ", 0.0,
                [](vk::VulkanContext& ctx) { return JudgeIntegers(ctx, Field::kWhite, 32, 11, 0); }});
  RegisterCase({"scales.white.n32.k2.floats", "scales",
                "max over layers |gpu - ref| / max over layers |ref|, |gpu - ref| (concentration)",
                kFloatTol,
                [](vk::VulkanContext& ctx) { return JudgeFloats(ctx, Field::kWhite, 32, 11, 0); }});
  // The floor: a band of rounding noise only must give an empty carrier (core_ref's floor test).
  RegisterCase({"scales.lowpass.n64.integers", "scales",
                "layers whose integer statistics (or ratios of them) differ; layers 2-3 below the "
                "floor",
                0.0,
                [](vk::VulkanContext& ctx) -> CaseResult {
                  CASE_ASSIGN(std::shared_ptr<const TowerRun> run,
                              GetRun(ctx, Field::kLowPass, 64, 0, 0));
                  int64_t below = 0;
                  for (const ScaleLayer& l : run->ref) below += l.below_floor ? 1 : 0;
                  if (below != 2) {
                    return Fail(1, "the input has " + std::to_string(below) +
                                       " layers below the floor in core_ref, expected 2");
                  }
                  return JudgeIntegers(ctx, Field::kLowPass, 64, 0, 0);
                }});
  RegisterCase({"scales.golden.n64.counts", "scales",
                "values differing from golden/scales_64_layer_{counts,reals}", 0.0,
                [](vk::VulkanContext& ctx) { return JudgeGolden(ctx, 64, 3, 40); }});
  RegisterCase({"scales.golden.n128.counts", "scales",
                "values differing from golden/scales_128_layer_{counts,reals}", 0.0,
                [](vk::VulkanContext& ctx) { return JudgeGolden(ctx, 128, 5, 20); }});
  RegisterCase({"scales.readback.n128.bytes", "scales",
                "bytes read back per snapshot (layer and closure control records)",
                kReadbackLimit, [](vk::VulkanContext& ctx) -> CaseResult {
                  CASE_ASSIGN(std::shared_ptr<const TowerRun> run,
                              GetRun(ctx, Field::kLes, 128, 1, 10));
                  const double bytes = static_cast<double>(run->report.stats_readback_bytes +
                                                           run->report.closure_readback_bytes);
                  return Judge(bytes, kReadbackLimit,
                               std::to_string(run->report.stats_readback_bytes) +
                                   " bytes of layer records + " +
                                   std::to_string(run->report.closure_readback_bytes) +
                                   " of closure control over " +
                                   std::to_string(run->report.submissions) + " submissions");
                }});
  return true;
}
const bool kRegistered = RegisterCases();

}  // namespace
}  // namespace dashi::conformance
