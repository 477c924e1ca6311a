#include "tools/scales_json.h"

#include <cmath>
#include <string>


namespace dashi::tools {
namespace {

// The band's |k| interval for people: (√lo2, √hi2]; layer 0 starts at 0.
nlohmann::json BandJson(const ScaleBand& b) {
  return {{"k2_above", b.lo2}, {"k2_at_most", b.hi2},
          {"k_above", b.lo2 < 0 ? 0.0 : std::sqrt(static_cast<double>(b.lo2))},
          {"k_at_most", std::sqrt(static_cast<double>(b.hi2))}};
}

// One layer's own statistics (no noise level, no trace): what every record of a layer holds.
nlohmann::json LayerJson(size_t l, const ScaleLayer& L) {
  return {
      {"scale", l},
      {"coherence", L.coherence ? nlohmann::json(*L.coherence) : nlohmann::json(nullptr)},
      {"annihilated_fraction", L.annihilated_fraction},
      {"band", BandJson(L.band)},
      {"modes", L.modes},
      {"energy", L.energy},
      {"enstrophy", L.enstrophy},
      {"below_floor", L.below_floor},
      {"active_before", L.active_before},
      {"active_after", L.active_after},
      {"closure_depth", L.closure_depth},
      {"defect_before", L.defect_before},
      {"defect_after", L.defect_after},
      {"shared_support", L.shared_support},
      {"concentration", L.concentration},
  };
}

}  // namespace

nlohmann::json LayerStatisticsJson(const std::vector<ScaleLayer>& layers) {
  nlohmann::json out = nlohmann::json::array(), active = nlohmann::json::array();
  for (size_t l = 0; l < layers.size(); ++l) {
    out.push_back(LayerJson(l, layers[l]));
    active.push_back(layers[l].active_after);
  }
  return {{"decode_levels", layers.size()}, {"active_cells_by_level", active}, {"layers", out}};
}

nlohmann::json ScaleTowerJson(const FiningDepth& d, const FilamentTrace& tr) {
  nlohmann::json layers = nlohmann::json::array(), active = nlohmann::json::array();
  for (size_t l = 0; l < d.tower.layers.size(); ++l) {
    const ScaleLayer& L = d.tower.layers[l];
    const FiningLayer& F = d.layers[l];
    nlohmann::json j = LayerJson(l, L);
    j["coherence_noise"] = F.coherence_noise;
    j["coherence_surrogate_mean"] = F.coherence_mean;
    j["coherence_surrogate_sd"] = F.coherence_sd;
    j["concentration_noise"] = F.concentration_noise;
    j["structured"] = F.structured;
    j["components"] = tr.components[l];
    j["filaments_born"] = tr.born[l];
    j["filaments_died"] = tr.died[l];
    j["filaments_alive_from_layer0"] = tr.alive_from_layer0[l];
    layers.push_back(std::move(j));
    active.push_back(L.active_after);
  }
  nlohmann::json fates = {{"alive", 0}, {"merged", 0}, {"annihilated", 0}, {"sign_flip", 0},
                          {"below_threshold", 0}};
  for (const Filament& f : tr.filaments) fates[FilamentFateName(f.fate)] = fates[FilamentFateName(f.fate)].get<int64_t>() + 1;
  return {
      {"decode_levels", d.tower.layers.size()},
      {"annihilation_level", d.annihilation_level},
      {"active_cells_by_level", active},
      {"entropy_plateau", d.k},
      {"fining_depth", d.k},
      {"layers", layers},
      {"filaments", {{"count", tr.filaments.size()}, {"fates", fates}}},
  };
}

StatusOr<nlohmann::json> FieldScalesJson(std::span<const double> omega, int64_t n) {
  DASHI_ASSIGN_OR_RETURN(FiningDepth d,
                         ComputeFiningDepth(omega, n, ScaleTowerParams{}, FiningParams{}));
  return ScaleTowerJson(d, TraceFilaments(d.tower));
}

Status ApplyLayerStatistics(const std::vector<ScaleLayer>& layers, const FiningParams& params,
                            FiningDepth& d, LayerComparison* vs_host) {
  if (layers.size() != d.tower.layers.size()) {
    return InvalidArgumentError("scales: " + std::to_string(layers.size()) +
                                " layers given, the tower of N = " + std::to_string(d.tower.n) +
                                " has " + std::to_string(d.tower.layers.size()));
  }
  if (vs_host != nullptr) *vs_host = CompareScaleLayers(layers, d.tower.layers);
  d.tower.layers = layers;
  ClassifyFiningLayers(params, d);
  return OkStatus();
}

StatusOr<nlohmann::json> FieldScalesJson(std::span<const double> omega, int64_t n,
                                         const std::vector<ScaleLayer>& layers,
                                         LayerComparison* vs_host) {
  const FiningParams params;
  DASHI_ASSIGN_OR_RETURN(FiningDepth d,
                         ComputeFiningDepth(omega, n, ScaleTowerParams{}, params));
  const FilamentTrace trace = TraceFilaments(d.tower);
  DASHI_RETURN_IF_ERROR(ApplyLayerStatistics(layers, params, d, vs_host));
  return ScaleTowerJson(d, trace);
}

}  // namespace dashi::tools
