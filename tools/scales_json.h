// The JSON record of one snapshot's scale tower (docs/MATH.md §12): per layer the design's
// {"scale", "coherence", "annihilated_fraction"} and the rest of the layer's statistics; per
// snapshot decode_levels, annihilation_level, active_cells_by_level, entropy_plateau, the fining
// depth and the filament trace. Used by `dashi scales` and by every `dashi run`.
#ifndef DASHI_TOOLS_SCALES_JSON_H_
#define DASHI_TOOLS_SCALES_JSON_H_

#include <cstdint>
#include <span>
#include <vector>

#include <nlohmann/json.hpp>

#include "core_ref/scales/filament_trace.h"
#include "core_ref/scales/fining_depth.h"
#include "core_ref/scales/layer_compare.h"
#include "core_ref/status/status.h"

namespace dashi::tools {

nlohmann::json ScaleTowerJson(const FiningDepth& depth, const FilamentTrace& trace);

// Per-layer statistics alone (decode_levels, active_cells_by_level, layers with the design's
// {"scale", "coherence", "annihilated_fraction"} and the rest): for a tower whose field is not on
// the host (the device tower in the `metrics` observer mode), so no noise level, fining depth or
// filament trace.
nlohmann::json LayerStatisticsJson(const std::vector<ScaleLayer>& layers);

// The tower, fining depth (default ScaleTowerParams and FiningParams) and trace of one N×N field,
// as ScaleTowerJson; `dashi run` records it for the decoded field and the LES of every snapshot.
StatusOr<nlohmann::json> FieldScalesJson(std::span<const double> omega, int64_t n);

// The same with the per-layer statistics computed elsewhere (the device tower, VulkanScaleTower):
// they replace the host tower's in the record, and the structured flags, fining depth and
// annihilation level are derived from them (with the host's surrogate noise levels). The filament
// trace and the noise levels stay the host's, from `omega`. `vs_host` (may be null) receives
// CompareScaleLayers of the given layers against the host tower's. INVALID_ARGUMENT when the
// layer counts differ.
StatusOr<nlohmann::json> FieldScalesJson(std::span<const double> omega, int64_t n,
                                         const std::vector<ScaleLayer>& layers,
                                         LayerComparison* vs_host);

// The step both use: `layers` replace d.tower.layers (d.tower's carriers, which the trace reads,
// stay the host's) and the structured flags, K and annihilation level are derived again from
// them with d's noise levels. INVALID_ARGUMENT when the layer counts differ.
Status ApplyLayerStatistics(const std::vector<ScaleLayer>& layers, const FiningParams& params,
                            FiningDepth& d, LayerComparison* vs_host);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_SCALES_JSON_H_
