// Real gains g ∈ [0, 1], one per coordinate group, fitted from lag sums (docs/MATH.md §10).
// Every search has a fixed number of steps, so the result is the same bytes everywhere.
//
// K-step loss of a group: L(g) = Σ_{τ=1}^{K} (P[τ] g^{2τ} − 2 C[τ] g^τ) (+ a constant).
//   K = 1: g = clamp(C[1] / P[1], 0, 1) (1 when P[1] = 0).
//   K > 1: bisection on L'(g) = Σ_τ 2τ (P[τ] g^{2τ−1} − C[τ] g^{τ−1}) over [0, 1], 60 halvings,
//          the midpoint of the last interval (1 when L'(1) ≤ 0, 0 when L'(0) ≥ 0).
//
// Under the energy constraint ("shell-Econ"): minimise Σ_s L_s(g_s) subject to the rollout
// keeping, after L steps, the energy the training LES kept: Σ_s W_s g_s^{2L} ≥ T. For a
// multiplier μ ≥ 0, g_s(μ) = argmin over [0, 1] of f_s(g) = L_s(g) − μ W_s g^{2L}: f_s on
// g = j/1000 (j = 0 … 1000), the first least value c, then on 4001 equally spaced points of
// [max(0, c − 0.002), min(1, c + 0.002)], again the first least value. E(μ) = Σ_s W_s g_s(μ)^{2L}.
// If E(0) ≥ T the gains are g(0); else hi = 1, ×4 while E(hi) < T (at most up to 4^20), then 60
// bisections of [0, hi] keeping E(hi) ≥ T; the gains are g(hi).
#ifndef DASHI_CORE_REF_LEARNER_GAIN_FIT_H_
#define DASHI_CORE_REF_LEARNER_GAIN_FIT_H_

#include <cstdint>
#include <span>
#include <vector>

#include "core_ref/learner/lag_sums.h"

namespace dashi {

// x^n for n ≥ 0 by binary exponentiation (squarings and products in a fixed order; no libm).
double PowInt(double x, int64_t n);

// The K-step gain of one group from its P[0 … K], C[0 … K].
double FitKStepGain(std::span<const double> p, std::span<const double> c, int64_t k);

// One gain per group, K-step loss with K ≤ sums.max_lag.
std::vector<double> FitKStepGains(const GroupLagSums& sums, int64_t k);

// One gain per group under the energy constraint (energy.per_group.size() = sums.groups).
std::vector<double> FitEnergyConstrainedGains(const GroupLagSums& sums, int64_t k,
                                              const EnergyLagSums& energy);

}  // namespace dashi

#endif  // DASHI_CORE_REF_LEARNER_GAIN_FIT_H_
