#include "tools/run_evaluation_output.h"

#include <cmath>
#include <initializer_list>
#include <vector>

#include "core_ref/npy/npy.h"
#include "tools/chain_json.h"
#include "tools/cli_util.h"
#include "tools/line_plot.h"

namespace dashi::tools {
namespace {

nlohmann::json SpreadAt(const Spread& s, int64_t t) {
  return {{"mean", s.mean[t]}, {"min", s.min[t]}, {"max", s.max[t]}};
}

nlohmann::json ConfigJson(const LearnerConfig& c) {
  nlohmann::json j = {{"kind", LearnerKindName(c.kind)}, {"text", LearnerConfigText(c)}};
  if (c.kind == LearnerKind::kRidge) {
    j["ridge_lambda"] = c.ridge_lambda;
    j["ridge_prior"] = RidgePriorName(c.ridge_prior);
  } else {
    j["loss"] = c.k == 1 ? "one-step" : "k-step";
    j["k"] = c.k;
    j["energy_constraint"] = c.energy_constraint;
    if (c.energy_constraint) j["energy_lag"] = c.energy_lag;
  }
  return j;
}

std::string SeedDir(const std::string& out, uint64_t seed) {
  return out + "/eval/seed_" + std::to_string(seed);
}

// Rounds `v` up to 1, 2 or 5 × 10^k.
double NiceCeil(double v) {
  if (!(v > 0)) return 1.0;
  const double decade = std::pow(10.0, std::floor(std::log10(v)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * decade >= v) return m * decade;
  }
  return 10.0 * decade;
}

}  // namespace

nlohmann::json LearnerJson(const PipelineResult& r) {
  if (!r.trained) return {{"trained", false}, {"a", "given (--no-train --a)"}};
  nlohmann::json j = ConfigJson(r.learner.chosen);
  j["trained"] = true;
  j["chosen_on"] = r.learner.candidates.empty() ? "fixed (nothing to choose)"
                                                : "validation seeds";
  nlohmann::json gains = nlohmann::json::array();
  if (r.learner.fit.gains.size() <= 64) {
    for (size_t i = 0; i < r.learner.fit.gains.size(); ++i) {
      gains.push_back({{"group", r.learner.fit.gain_names[i]}, {"gain", r.learner.fit.gains[i]}});
    }
    j["gains"] = gains;
  } else if (!r.learner.fit.gains.empty()) {
    j["gains"] = r.learner.fit.gains;  // one per coordinate (diagonal) or mode (mode2x2)
  }
  nlohmann::json table = nlohmann::json::array();
  for (const CandidateScore& c : r.learner.candidates) {
    table.push_back({{"config", ConfigJson(c.config)},
                     {"validation_score_mean_skill", c.score},
                     {"validation_max_ratio_steps_1_to_9", c.max_ratio_before_10},
                     {"validation_energy_ratio_last", c.energy_ratio_last},
                     {"eligible", c.eligible}});
  }
  j["validation"] = table;
  j["train_one_step_rel_l2"] = r.train_one_step_rel_l2;
  return j;
}

nlohmann::json EvaluationJson(const PipelineResult& r) {
  const Evaluation& e = r.evaluation;
  nlohmann::json horizons = nlohmann::json::array();
  for (int64_t h : e.horizons) {
    horizons.push_back({{"step", h},
                        {"ratio_to_persistence", SpreadAt(e.ratio, h)},
                        {"skill", SpreadAt(e.skill, h)},
                        {"rel_l2_rollout", SpreadAt(e.rel_l2_rollout, h)},
                        {"rel_l2_persistence", SpreadAt(e.rel_l2_persistence, h)},
                        {"rel_l2_damped_persistence", SpreadAt(e.rel_l2_damped, h)},
                        {"rel_l2_zero", SpreadAt(e.rel_l2_zero, h)},
                        {"correlation_rollout", SpreadAt(e.correlation_rollout, h)},
                        {"correlation_persistence", SpreadAt(e.correlation_persistence, h)},
                        {"energy_rollout_over_les", SpreadAt(e.energy_ratio, h)},
                        {"enstrophy_rollout_over_les", SpreadAt(e.enstrophy_ratio, h)}});
  }
  nlohmann::json trajectories = nlohmann::json::array();
  for (size_t k = 0; k < r.eval.size(); ++k) {
    const EvalTrajectory& t = r.eval[k];
    const TrajectoryScores& s = e.trajectories[k];
    trajectories.push_back({{"seed", t.seed},
                            {"hash_chain_final_link", FinalLinkHex(t.chain)},
                            {"one_step_rel_l2", t.one_step_rel_l2},
                            {"ratio_per_step", s.ratio},
                            {"rel_l2_rollout_per_step", s.rel_l2_rollout},
                            {"energy_rollout_per_step", s.energy_rollout},
                            {"energy_les_per_step", s.energy_truth},
                            {"enstrophy_rollout_per_step", s.enstrophy_rollout},
                            {"enstrophy_les_per_step", s.enstrophy_truth},
                            {"les_energy_drift", t.les_energy.back() / t.les_energy.front() - 1.0},
                            {"les_enstrophy_drift",
                             t.les_enstrophy.back() / t.les_enstrophy.front() - 1.0}});
  }
  return {
      {"definitions",
       {{"ratio_to_persistence", "sqrt(MSE_rollout / MSE_persistence) in z space, per trajectory"},
        {"skill", "1 - MSE_rollout / MSE_persistence"},
        {"persistence", "z_t = z_0"},
        {"damped_persistence",
         "z_t = alpha(t) z_0, alpha fitted on the train windows (docs/MATH.md §10.4)"},
        {"zero", "z_t = 0 (rel L2 = 1)"},
        {"energy", "E_z = sum over low and anchor modes of |c_k|^2 / |k|^2, rollout over LES"},
        {"enstrophy", "Z_z = sum of z_i^2, rollout over LES"},
        {"spread", "mean, min, max over the eval seeds"}}},
      {"verdict", e.verdict},
      {"meets_target", e.meets_target},
      {"skill_from_step", e.skill_from_step},
      {"max_ratio_steps_1_to_9", e.max_ratio_before_10},
      {"max_ratio_from_step_10", e.max_ratio_from_10},
      {"spectral_radius", e.spectral_radius},
      {"norm2", e.norm2},
      {"norms", e.norms_exact ? "exact (block-diagonal A)"
                              : "estimated (power iterations, fixed counts)"},
      {"eval_seeds", r.params.eval_seeds},
      {"horizons", horizons},
      {"per_step",
       {{"ratio_mean", e.ratio.mean},
        {"ratio_min", e.ratio.min},
        {"ratio_max", e.ratio.max},
        {"skill_mean", e.skill.mean},
        {"rel_l2_rollout_mean", e.rel_l2_rollout.mean},
        {"rel_l2_persistence_mean", e.rel_l2_persistence.mean},
        {"rel_l2_damped_persistence_mean", e.rel_l2_damped.mean},
        {"energy_rollout_over_les_mean", e.energy_ratio.mean},
        {"enstrophy_rollout_over_les_mean", e.enstrophy_ratio.mean}}},
      {"damped_persistence_alpha", r.damped_alpha},
      {"trajectories", trajectories},
  };
}

Status WriteEvalTrajectories(const std::string& out, const PipelineResult& r,
                             const nlohmann::json& provenance) {
  const int64_t dim = r.spec.dim(), frames = r.params.eval_steps + 1;
  for (const EvalTrajectory& t : r.eval) {
    const std::string dir = SeedDir(out, t.seed);
    DASHI_RETURN_IF_ERROR(EnsureDir(dir));
    DASHI_ASSIGN_OR_RETURN(NpyArray zr, NpyArray::FromF64({frames, dim}, t.z_rollout));
    DASHI_RETURN_IF_ERROR(WriteNpy(dir + "/z_rollout.npy", zr));
    DASHI_ASSIGN_OR_RETURN(NpyArray zt, NpyArray::FromF64({frames, dim}, t.z_truth));
    DASHI_RETURN_IF_ERROR(WriteNpy(dir + "/z_eval_truth.npy", zt));
    DASHI_RETURN_IF_ERROR(WriteJson(
        dir + "/chain.json",
        ChainFileJson({provenance, dim, r.params.eval_steps, r.params.hash_every, t.chain})));
  }
  return OkStatus();
}

Status WriteCanonicalPlot(const std::string& out, const PipelineResult& r) {
  const Evaluation& e = r.evaluation;
  const int64_t h = e.steps;
  std::vector<double> steps, all_steps;
  for (int64_t t = 0; t <= h; ++t) {
    all_steps.push_back(static_cast<double>(t));
    if (t > 0) steps.push_back(static_cast<double>(t));
  }
  const auto from1 = [](const std::vector<double>& v) {
    return std::vector<double>(v.begin() + 1, v.end());
  };
  const Rgb blue = PaletteColour(0), red = PaletteColour(1), green = PaletteColour(2),
            orange = PaletteColour(3), light_blue{158, 202, 225}, light_red{240, 160, 160};
  // (1) error against the horizon.
  PlotPanel error;
  error.axes.log_x = true;
  error.axes.tick_labels = true;
  error.axes.x_min = 1;
  error.axes.x_max = static_cast<double>(h > 1 ? h : 2);
  double top = 1.0;
  for (const std::vector<double>* v :
       {&e.rel_l2_rollout.max, &e.rel_l2_persistence.mean, &e.rel_l2_damped.mean}) {
    for (double x : *v) top = std::isfinite(x) && x > top ? x : top;
  }
  error.axes.y_max = NiceCeil(top);
  error.series = {{steps, from1(e.rel_l2_rollout.min), light_blue, 0, 0},
                  {steps, from1(e.rel_l2_rollout.max), light_blue, 0, 0},
                  {steps, from1(e.rel_l2_persistence.mean), red, 0, 1},
                  {steps, from1(e.rel_l2_damped.mean), green, 0, 1},
                  {steps, from1(e.rel_l2_zero.mean), orange, 0, 1},
                  {steps, from1(e.rel_l2_rollout.mean), blue, 0, 1}};
  // (2) the ratio of each forecast's rel L2 to persistence's, against the horizon.
  PlotPanel ratio;
  ratio.axes = error.axes;
  std::vector<double> damped_ratio, one(steps.size(), 1.0);
  double lo = 1.0, hi = 1.0;
  for (int64_t t = 1; t <= h; ++t) {
    const double p = e.rel_l2_persistence.mean[t];
    damped_ratio.push_back(p > 0 ? e.rel_l2_damped.mean[t] / p : 1.0);
  }
  for (const std::vector<double>* v :
       std::initializer_list<const std::vector<double>*>{&e.ratio.min, &e.ratio.max,
                                                         &damped_ratio}) {
    for (size_t t = (v == &damped_ratio ? 0 : 1); t < v->size(); ++t) {
      if (!std::isfinite((*v)[t])) continue;
      lo = (*v)[t] < lo ? (*v)[t] : lo;
      hi = (*v)[t] > hi ? (*v)[t] : hi;
    }
  }
  ratio.axes.y_min = std::floor(lo * 10.0) / 10.0;
  ratio.axes.y_max = std::floor(hi * 10.0) / 10.0 + 0.1;  // above the largest value
  ratio.series = {{steps, one, red, 0, 1},
                  {steps, damped_ratio, green, 0, 1},
                  {steps, from1(e.ratio.min), light_blue, 0, 0},
                  {steps, from1(e.ratio.max), light_blue, 0, 0},
                  {steps, from1(e.ratio.mean), blue, 0, 1}};
  // (3) energy and (4) enstrophy of each eval trajectory's rollout and LES.
  PlotPanel energy, enstrophy;
  for (PlotPanel* p : {&energy, &enstrophy}) {
    p->axes.tick_labels = true;
    p->axes.x_min = 0;
    p->axes.x_max = static_cast<double>(h);
    p->axes.y_min = 1e300;
    p->axes.y_max = -1e300;
  }
  for (const TrajectoryScores& s : e.trajectories) {
    energy.series.push_back({all_steps, s.energy_truth, light_red, 0, 1});
    energy.series.push_back({all_steps, s.energy_rollout, blue, 0, 0});
    enstrophy.series.push_back({all_steps, s.enstrophy_truth, light_red, 0, 1});
    enstrophy.series.push_back({all_steps, s.enstrophy_rollout, blue, 0, 0});
  }
  for (PlotPanel* p : {&energy, &enstrophy}) {
    for (const PlotSeries& s : p->series) {
      for (double v : s.y) {
        if (!std::isfinite(v)) continue;
        p->axes.y_min = v < p->axes.y_min ? v : p->axes.y_min;
        p->axes.y_max = v > p->axes.y_max ? v : p->axes.y_max;
      }
    }
    const double pad = 0.05 * (p->axes.y_max - p->axes.y_min) + 1e-12;
    p->axes.y_min -= pad;
    p->axes.y_max += pad;
  }
  DASHI_RETURN_IF_ERROR(WritePanelPlot(out + "/canonical.png", {error, ratio, energy, enstrophy},
                                       720, 240));
  return WriteJson(
      out + "/canonical.json",
      {{"file", "canonical.png"},
       {"panels",
        {{{"position", "top"},
          {"x", "rollout step (log scale), 1 .. " + std::to_string(h)},
          {"y", "rel L2 error in z space, mean over the eval seeds"},
          {"series",
           {{"blue (thick)", "rollout, mean"},
            {"light blue (thin)", "rollout, min and max over the eval seeds"},
            {"red", "persistence z_t = z_0"},
            {"green", "damped persistence alpha(t) z_0"},
            {"orange", "zero forecast (1)"}}}},
         {{"position", "second"},
          {"x", "rollout step (log scale), 1 .. " + std::to_string(h)},
          {"y", "rel L2 over persistence's (below 1: better than persistence)"},
          {"series",
           {{"blue (thick)", "rollout, mean of the per-seed ratios"},
            {"light blue (thin)", "rollout, min and max over the eval seeds"},
            {"green", "damped persistence (seed-mean rel L2 over persistence's)"},
            {"red", "persistence (1)"}}}},
         {{"position", "third"},
          {"x", "rollout step"},
          {"y", "energy E_z per step"},
          {"series", {{"light red", "LES, one line per eval seed"},
                      {"blue (thin)", "rollout, one line per eval seed"}}}},
         {{"position", "bottom"},
          {"x", "rollout step"},
          {"y", "enstrophy Z_z per step"},
          {"series", {{"light red", "LES, one line per eval seed"},
                      {"blue (thin)", "rollout, one line per eval seed"}}}}}},
       {"eval_seeds", r.params.eval_seeds}});
}

}  // namespace dashi::tools
