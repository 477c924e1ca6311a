// The fining depth K of a field (docs/MATH.md §12): how many layers of the scale tower carry
// structure, where "structure" means more than a random field of the same spectrum shows. The
// noise level of each layer comes from phase-randomised surrogates (the field's |ω̂_k| with phases
// from the counter-based PRNG), put through the same tower.
//
//   StatusOr<FiningDepth> d = ComputeFiningDepth(omega, n, tower_params, FiningParams{});
//   d->k;  d->layers[3].structured;
#ifndef DASHI_CORE_REF_SCALES_FINING_DEPTH_H_
#define DASHI_CORE_REF_SCALES_FINING_DEPTH_H_

#include <cstdint>
#include <span>
#include <vector>

#include "core_ref/scales/scale_tower.h"
#include "core_ref/status/status.h"

namespace dashi {

struct FiningParams {
  int surrogates = 8;               // ≥ 2 phase-randomised surrogates per field
  double sigmas = 3.0;              // the noise level: surrogates' mean + sigmas · their sd
  uint64_t seed = 1;                // their phases: CounterUniform(seed, index, kx, ky, stream)
  double total_annihilation = 0.9;  // annihilated fraction at or above which a layer is "dead"
};

Status ValidateFiningParams(const FiningParams& params);

// The field's surrogate number `index`: every half-spectrum coefficient keeps its modulus and
// gets the phase 2π·u(kx, |ky|) (negated for ky < 0 on the self-conjugate columns kx = 0, N/2;
// a sign ±1 on the self-conjugate modes), so the result is real with the same power spectrum.
StatusOr<std::vector<double>> PhaseRandomisedSurrogate(std::span<const double> omega, int64_t n,
                                                       uint64_t seed, uint64_t index);

struct FiningLayer {
  // Mean and sample standard deviation over the surrogates, and the noise level a field must
  // exceed, mean + sigmas · sd (coherence: layers ≥ 1, an absent coherence counts 0).
  double coherence_mean = 0.0, coherence_sd = 0.0, coherence_noise = 0.0;
  double concentration_mean = 0.0, concentration_sd = 0.0, concentration_noise = 0.0;
  // annihilated_fraction < total_annihilation, and coherence > coherence_noise (layer 0, which
  // has no coarser layer: concentration > concentration_noise).
  bool structured = false;
};

struct FiningDepth {
  ScaleTower tower;                 // of the field itself
  std::vector<FiningLayer> layers;
  int k = 0;                        // 1 + the last structured layer (0 when none is)
  int annihilation_level = 0;       // first layer with annihilated_fraction ≥ total (L if none)
};

// Sets each layer's `structured`, k and annihilation_level from d.tower.layers and the noise
// levels in d.layers (ComputeFiningDepth's last step; the device tower's statistics go through it
// too, with the host's noise levels).
void ClassifyFiningLayers(const FiningParams& params, FiningDepth& d);

StatusOr<FiningDepth> ComputeFiningDepth(std::span<const double> omega, int64_t n,
                                         const ScaleTowerParams& tower_params,
                                         const FiningParams& params);

}  // namespace dashi

#endif  // DASHI_CORE_REF_SCALES_FINING_DEPTH_H_
