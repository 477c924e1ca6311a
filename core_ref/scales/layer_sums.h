// The sums one layer of the scale tower is made of (docs/MATH.md §12.8), in their canonical order,
// and the layer's statistics derived from them. BuildScaleTower computes the sums here; the
// device tower (accel_vulkan/scales) computes the same sums in the same order on the device,
// reads back only them, and derives the statistics with the same LayerFromSums.
//
//   LayerSums s;  AddSpectrumSums(spectrum, n, band, s);  AddCarrierSums(b, s0, s1, prev, s);
//   ScaleLayer layer = LayerFromSums(band, n, s);
#ifndef DASHI_CORE_REF_SCALES_LAYER_SUMS_H_
#define DASHI_CORE_REF_SCALES_LAYER_SUMS_H_

#include <cstdint>
#include <span>

#include "core_ref/fft/fft.h"
#include "core_ref/scales/scale_tower.h"

namespace dashi {

struct LayerSums {
  // Over the half spectrum in row-major order (row i, then kx = j), modes in the band only:
  int64_t modes = 0;         // Σ w (w: the Parseval weight, 1 on kx = 0 and kx = N/2, else 2)
  double enstrophy_sum = 0;  // Σ w·|ω̂_k|², one add per mode:  z ← z + (w·m2)
  double energy_sum = 0;     // Σ w·|ω̂_k|²/|k|² (k ≠ 0):        e ← e + ((w·m2) / k2)
  // The band field b and its closure, over the cells in row-major order:
  double max_abs = 0;        // max |b|
  bool below_floor = false;  // max_abs < relative_floor · max |ω|
  int64_t active_before = 0, active_after = 0;  // |supp s_0|, |supp s*|
  int64_t defect_before = 0, defect_after = 0;  // D(s_0), D(s*)
  int64_t agree = 0, disagree = 0;  // cells of supp s* ∩ supp s*_{ℓ−1} where the signs (dis)agree
  double band_total = 0;     // Σ b², one add per cell:          t ← t + b·b
  double on_support = 0;     // Σ_{supp s*} b², one add per cell: o ← o + b·b
  int closure_depth = 0;
};

// Adds the band's modes of `spectrum` (core_ref's Rfft layout, N×(N/2+1)) to the spectrum sums.
void AddSpectrumSums(std::span<const Complex> spectrum, int64_t n, const ScaleBand& band,
                     LayerSums& sums);

// Adds the carrier sums: b (N² values), s0, the closed s1 and the coarser layer's closed carrier
// `coarser` (empty for layer 0: agree = disagree = 0). Defects, max_abs, below_floor and the
// closure depth are set by the caller.
void AddCarrierSums(std::span<const double> b, std::span<const int8_t> s0,
                    std::span<const int8_t> s1, std::span<const int8_t> coarser,
                    LayerSums& sums);

// The layer's statistics (ScaleLayer) from its sums, with the LES's N⁴ normalisation.
ScaleLayer LayerFromSums(const ScaleBand& band, int64_t n, const LayerSums& sums);

}  // namespace dashi

#endif  // DASHI_CORE_REF_SCALES_LAYER_SUMS_H_
