// The complex-gain learner ("mode2x2", docs/MATH.md §10): per low or anchor mode m, with
// c_t = z_{2m} + i·z_{2m+1}, one complex gain g = a + ib so that c_{t+1} ≈ g·c_t, i.e. the 2×2
// block [[a, b], [−b, a]] of A in the row-vector convention z ← z·A. Fitted on the K-step loss
// Σ_τ Σ_r Σ_t |c_{t+τ} − g^τ c_t|² through the lag sums P[τ] = Σ |c_t|², C[τ] = Σ conj(c_t) c_{t+τ}:
//   one step: g = C[1] / P[1];
//   K > 1:    50 Gauss–Newton steps from the one-step g,
//             g ← g − Σ_τ τ conj(g^{τ−1}) (g^τ P[τ] − C[τ]) / Σ_τ τ² |g|^{2(τ−1)} P[τ];
// then |g| is clipped to 1 (g ← g / |g|). The band scalars z_mid and z_high get real K-step gains
// (gain_fit.h). Complex products are written out in real arithmetic, in a fixed order.
#ifndef DASHI_CORE_REF_LEARNER_MODE_ROTATION_H_
#define DASHI_CORE_REF_LEARNER_MODE_ROTATION_H_

#include <cstdint>
#include <vector>

#include "core_ref/learner/trajectory_set.h"
#include "core_ref/proxy/proxy_encoder.h"
#include "core_ref/status/status.h"

namespace dashi {

struct ComplexGain {
  double re = 1, im = 0;
};

// One gain per low or anchor mode (z order) and the two band gains; INVALID_ARGUMENT for an
// invalid set (K + 1 frames each) or a dimension other than spec.dim().
struct ModeRotationFit {
  std::vector<ComplexGain> modes;
  double mid_gain = 1, high_gain = 1;
};
StatusOr<ModeRotationFit> FitModeRotations(const TrajectorySet& set, const ProxySpec& spec,
                                           int64_t k);

// A (D×D, row-major) of the fit: the 2×2 blocks and the two band gains on the diagonal.
std::vector<double> ModeRotationMatrix(const ModeRotationFit& fit, int64_t dim);

}  // namespace dashi

#endif  // DASHI_CORE_REF_LEARNER_MODE_ROTATION_H_
