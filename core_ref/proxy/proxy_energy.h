// Energy and enstrophy of a proxy state z and the integer shell of each coordinate: the rollout's
// own diagnostics (docs/MATH.md §10), exact and cheap per step, no decode needed.
//   E_z(z) = Σ_m (z_{2m}² + z_{2m+1}²) / |k_m|²  over the low and anchor modes m in z order
//            (= ½⟨|u|²⟩ of those modes, since c(k) are Fourier-series coefficients)
//   Z_z(z) = Σ_i z_i²  over all D entries (= ½⟨ω²⟩ of the dealiased range when z = encode(ω))
// Both sums run in increasing index from the first term.
#ifndef DASHI_CORE_REF_PROXY_PROXY_ENERGY_H_
#define DASHI_CORE_REF_PROXY_PROXY_ENERGY_H_

#include <cstdint>
#include <span>
#include <vector>

#include "core_ref/proxy/proxy_encoder.h"

namespace dashi {

// w_i = 1/|k|² for both coordinates of a low or anchor mode, 0 for the two band scalars.
std::vector<double> EnergyWeights(const ProxySpec& spec);

// E_z(z) with the weights above (z.size() = weights.size()).
double ProxyEnergy(std::span<const double> weights, std::span<const double> z);
double ProxyEnstrophy(std::span<const double> z);

// The shell round(|k|) = floor(|k| + ½) of a mode, in integers (|k|² is never (r + ½)²).
int64_t ModeShell(const Mode& m);

}  // namespace dashi

#endif  // DASHI_CORE_REF_PROXY_PROXY_ENERGY_H_
