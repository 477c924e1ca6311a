#include "core_ref/scales/layer_compare.h"

#include <cmath>

namespace dashi {
namespace {

// The first integer statistic of the layer that differs, or "".
std::string IntegerDifference(const ScaleLayer& a, const ScaleLayer& b) {
  if (a.band.lo2 != b.band.lo2 || a.band.hi2 != b.band.hi2) return "band";
  if (a.modes != b.modes) return "modes";
  if (a.below_floor != b.below_floor) return "below_floor";
  if (a.active_before != b.active_before) return "active_before";
  if (a.active_after != b.active_after) return "active_after";
  if (a.closure_depth != b.closure_depth) return "closure_depth";
  if (a.defect_before != b.defect_before) return "defect_before";
  if (a.defect_after != b.defect_after) return "defect_after";
  if (a.shared_support != b.shared_support) return "shared_support";
  if (a.annihilated_fraction != b.annihilated_fraction) return "annihilated_fraction";
  if (a.coherence.has_value() != b.coherence.has_value()) return "coherence (presence)";
  if (a.coherence && *a.coherence != *b.coherence) return "coherence";
  return "";
}

}  // namespace

LayerComparison CompareScaleLayers(const std::vector<ScaleLayer>& a,
                                   const std::vector<ScaleLayer>& b) {
  LayerComparison c;
  if (a.size() != b.size()) {
    c.integer_mismatches = static_cast<int64_t>(a.size() > b.size() ? a.size() : b.size());
    c.first_difference = "layer count " + std::to_string(a.size()) + " vs " +
                         std::to_string(b.size());
    return c;
  }
  for (size_t l = 0; l < a.size(); ++l) {
    const std::string d = IntegerDifference(a[l], b[l]);
    if (d.empty()) continue;
    ++c.integer_mismatches;
    if (c.first_difference.empty()) c.first_difference = "layer " + std::to_string(l) + ": " + d;
  }
  double (*const getters[])(const ScaleLayer&) = {
      [](const ScaleLayer& x) { return x.energy; },
      [](const ScaleLayer& x) { return x.enstrophy; },
      [](const ScaleLayer& x) { return x.max_abs; },
  };
  const char* names[] = {"energy", "enstrophy", "max_abs"};
  double worst = 0.0;
  std::string worst_name;
  auto consider = [&](double err, size_t l, const char* name) {
    if (std::isnan(err) || err > worst || worst_name.empty()) {
      worst = std::isnan(err) ? NAN : err;
      worst_name = "layer " + std::to_string(l) + ": " + name;
    }
  };
  for (int q = 0; q < 3; ++q) {
    double scale = 0.0;
    for (const ScaleLayer& x : b) scale = std::fmax(scale, std::fabs(getters[q](x)));
    for (size_t l = 0; l < a.size(); ++l) {
      const double diff = std::fabs(getters[q](a[l]) - getters[q](b[l]));
      consider(scale > 0.0 ? diff / scale : diff, l, names[q]);
      if (std::isnan(worst)) break;
    }
  }
  for (size_t l = 0; l < a.size() && !std::isnan(worst); ++l) {
    consider(std::fabs(a[l].concentration - b[l].concentration), l, "concentration");
  }
  c.max_float_error = worst;
  c.largest_float_error = worst_name;
  return c;
}

}  // namespace dashi
