#include "core_ref/scales/layer_sums.h"

#include "core_ref/les/spectral_grid.h"

namespace dashi {

void AddSpectrumSums(std::span<const Complex> spectrum, int64_t n, const ScaleBand& band,
                     LayerSums& sums) {
  const SpectralGrid g(n);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < g.half_cols(); ++j) {
      const int64_t ky = g.Ky(i), kx = g.Kx(j);
      const int64_t k2 = kx * kx + ky * ky;
      if (!ScaleBandContains(band, k2)) continue;
      const double w = g.ParsevalWeight(j);
      const double wm = w * SquaredMagnitude(spectrum[i * g.half_cols() + j]);
      sums.modes += static_cast<int64_t>(w);
      sums.enstrophy_sum += wm;
      if (k2 != 0) sums.energy_sum += wm / static_cast<double>(k2);
    }
  }
}

void AddCarrierSums(std::span<const double> b, std::span<const int8_t> s0,
                    std::span<const int8_t> s1, std::span<const int8_t> coarser,
                    LayerSums& sums) {
  for (size_t k = 0; k < b.size(); ++k) {
    const double b2 = b[k] * b[k];
    sums.band_total += b2;
    if (s0[k] != 0) ++sums.active_before;
    if (s1[k] == 0) continue;
    ++sums.active_after;
    sums.on_support += b2;
    if (coarser.empty() || coarser[k] == 0) continue;
    (s1[k] == coarser[k] ? sums.agree : sums.disagree) += 1;
  }
}

ScaleLayer LayerFromSums(const ScaleBand& band, int64_t n, const LayerSums& s) {
  const double n4 = static_cast<double>(n) * n * n * n;
  ScaleLayer layer;
  layer.band = band;
  layer.modes = s.modes;
  layer.energy = 0.5 * s.energy_sum / n4;
  layer.enstrophy = 0.5 * s.enstrophy_sum / n4;
  layer.max_abs = s.max_abs;
  layer.below_floor = s.below_floor;
  layer.active_before = s.active_before;
  layer.active_after = s.active_after;
  layer.annihilated_fraction =
      s.active_before == 0 ? 0.0
                           : 1.0 - static_cast<double>(s.active_after) /
                                       static_cast<double>(s.active_before);
  layer.closure_depth = s.closure_depth;
  layer.defect_before = s.defect_before;
  layer.defect_after = s.defect_after;
  layer.shared_support = s.agree + s.disagree;
  if (layer.shared_support > 0) {
    layer.coherence = static_cast<double>(s.agree - s.disagree) /
                      static_cast<double>(layer.shared_support);
  }
  layer.concentration = s.band_total > 0.0 ? s.on_support / s.band_total : 0.0;
  return layer;
}

}  // namespace dashi
