// The scale tower of a field (docs/MATH.md §12): the field split into dyadic wavenumber bands,
// each band normalised, cut into a carrier by the PDA threshold and closed by C = K_ann ∘ M.
// Every layer is built from the existing carrier kernels, so every layer obeys support
// non-creation and defect monotonicity.
//
//   ScaleTowerParams p;  p.k_lo = 4;
//   StatusOr<ScaleTower> t = BuildScaleTower(omega, /*n=*/128, p);
//   t->layers[2].active_after;  t->layers[2].coherence;
#ifndef DASHI_CORE_REF_SCALES_SCALE_TOWER_H_
#define DASHI_CORE_REF_SCALES_SCALE_TOWER_H_

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "core_ref/carrier/carrier.h"
#include "core_ref/carrier/closure.h"
#include "core_ref/carrier/pda_threshold.h"
#include "core_ref/status/status.h"

namespace dashi {

struct ScaleTowerParams {
  int64_t k_lo = 4;                          // ≥ 1: layer 0 is |k| ≤ k_lo
  PdaThresholdParams threshold{0.3};         // the decoder's τ
  ClosureParams closure{{1}, {1, 3}, 64};    // the decoder's closure
  // A band whose max |b_ℓ| is below floor · max |ω| is empty (its carrier all zero): normalising
  // rounding noise (a band the LES's 2/3 rule left at ~1e-17) would otherwise fill the carrier.
  double relative_floor = 1e-9;
};

Status ValidateScaleTowerParams(const ScaleTowerParams& params, int64_t n);

// Layer ℓ keeps the modes with lo2 < |k|² ≤ hi2 (integers: kx² + ky² of the signed wavenumbers);
// layer 0 has lo2 = −1 (the mean mode included), the last layer hi2 = 2·(N/2)² (every mode).
struct ScaleBand {
  int64_t lo2 = -1;
  int64_t hi2 = 0;
};
inline bool ScaleBandContains(const ScaleBand& b, int64_t k2) { return k2 > b.lo2 && k2 <= b.hi2; }

// L = 1 + ⌈log2((N/2) / k_lo)⌉ layers (1 when k_lo ≥ N/2): bands (k_lo·2^(ℓ−1))² < |k|² ≤
// (k_lo·2^ℓ)² for 1 ≤ ℓ < L−1, the last band open to the grid's corner.
std::vector<ScaleBand> ScaleBands(int64_t n, int64_t k_lo);

struct ScaleLayer {
  ScaleBand band;
  int64_t modes = 0;            // half-spectrum modes in the band (Parseval-weighted count)
  double energy = 0.0;          // ½ Σ |ω̂_k|²/|k|² / N⁴ over the band (as the LES's energy)
  double enstrophy = 0.0;       // ½ Σ |ω̂_k|² / N⁴ over the band
  double max_abs = 0.0;         // max |b_ℓ| of the band field (the normaliser)
  bool below_floor = false;     // max_abs < relative_floor · max|ω|: the carrier is all zero
  int64_t active_before = 0;    // |supp s_0|: the PDA carrier of b_ℓ / max|b_ℓ|
  int64_t active_after = 0;     // |supp s*| after the closure
  double annihilated_fraction = 0.0;  // 1 − after/before (0 when before = 0)
  int closure_depth = 0;
  int64_t defect_before = 0;    // D(s_0), 4-neighbourhood
  int64_t defect_after = 0;     // D(s*)
  // Sign persistence with layer ℓ−1 on the shared closed support S = supp s*_ℓ ∩ supp s*_{ℓ−1}:
  // (agree − disagree) / |S|; absent for layer 0 and when S is empty.
  std::optional<double> coherence;
  int64_t shared_support = 0;   // |S|
  // Share of the band's enstrophy on the closed support: Σ_{supp s*} b² / Σ b² (0 when Σ b² = 0).
  double concentration = 0.0;
};

struct ScaleTower {
  int64_t n = 0;
  std::vector<ScaleLayer> layers;
  std::vector<Carrier> closed;   // s*_ℓ per layer
  std::vector<Carrier> initial;  // s_0,ℓ per layer
};

// omega: N×N finite values, N a power of two ≥ 2 (the FFT's domain).
StatusOr<ScaleTower> BuildScaleTower(std::span<const double> omega, int64_t n,
                                     const ScaleTowerParams& params);

// Refinement: the field rebuilt from layers 0..m, c_m = Σ_{ℓ≤m} b_ℓ (added in layer order, cell
// by cell), cut and closed exactly as a layer is (normalise, P_τ, closure). Per m: the cells
// where s*(c_m) differs from s*(c_{m−1}) (m = 0: from the empty carrier), |supp s*(c_m)| and
// D(s*(c_m)). The "closure checks" of docs/MATH.md §12.6 are stated on these.
struct RefinementStep {
  int64_t changed_cells = 0;
  int64_t active_cells = 0;
  int64_t defect = 0;
};
StatusOr<std::vector<RefinementStep>> Refinement(std::span<const double> omega, int64_t n,
                                                 const ScaleTowerParams& params);

// The band-passed field b_ℓ of every layer (N×N each), from the field's half spectrum.
StatusOr<std::vector<std::vector<double>>> BandFields(std::span<const double> omega, int64_t n,
                                                      const std::vector<ScaleBand>& bands);

}  // namespace dashi

#endif  // DASHI_CORE_REF_SCALES_SCALE_TOWER_H_
