// Comparing two towers' layer statistics (e.g. the device's against core_ref's) by the measures of
// docs/CONFORMANCE.md (scales.*): the integer statistics, and the ratios made of them only, must
// be equal; each float statistic is compared relative to its largest value over the tower.
//
//   LayerComparison c = CompareScaleLayers(device_layers, ref_layers);
//   c.integer_mismatches == 0 && c.max_float_error <= 1e-12;
#ifndef DASHI_CORE_REF_SCALES_LAYER_COMPARE_H_
#define DASHI_CORE_REF_SCALES_LAYER_COMPARE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core_ref/scales/scale_tower.h"

namespace dashi {

struct LayerComparison {
  // Layers whose band, modes, active cells, defects, closure depth, shared support, floor flag,
  // annihilated fraction or coherence differ (a differing layer count counts every layer).
  int64_t integer_mismatches = 0;
  // max over the statistics q ∈ {energy, enstrophy, max_abs} and the layers ℓ of
  // |a_ℓ,q − b_ℓ,q| / max_ℓ |b_ℓ,q|, and |a_ℓ − b_ℓ| of the concentration (in [0, 1]); NaN when
  // any value is NaN.
  double max_float_error = 0.0;
  std::string first_difference;      // the first integer difference ("layer 2: modes"), or ""
  std::string largest_float_error;   // where max_float_error is ("layer 4: energy"), or ""
};

// a: the statistics under test; b: the reference.
LayerComparison CompareScaleLayers(const std::vector<ScaleLayer>& a,
                                   const std::vector<ScaleLayer>& b);

}  // namespace dashi

#endif  // DASHI_CORE_REF_SCALES_LAYER_COMPARE_H_
