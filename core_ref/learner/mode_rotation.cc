#include "core_ref/learner/mode_rotation.h"

#include <cmath>

#include "core_ref/learner/gain_fit.h"
#include "core_ref/learner/lag_sums.h"

namespace dashi {
namespace {

ComplexGain Mul(ComplexGain x, ComplexGain y) {
  return {x.re * y.re - x.im * y.im, x.re * y.im + x.im * y.re};
}

// Lag sums of one mode: p[τ] real, c[τ] complex, τ = 0 … K.
struct ModeLagSums {
  std::vector<double> p, c_re, c_im;
};

ModeLagSums ModeSums(const TrajectorySet& set, int64_t m, int64_t k) {
  ModeLagSums s{std::vector<double>(static_cast<size_t>(k + 1), 0.0),
                std::vector<double>(static_cast<size_t>(k + 1), 0.0),
                std::vector<double>(static_cast<size_t>(k + 1), 0.0)};
  for (int64_t tau = 0; tau <= k; ++tau) {
    for (size_t r = 0; r < set.trajectories.size(); ++r) {
      for (int64_t t = 0; t + tau < set.frames(r); ++t) {
        const double x = set.state(r, t)[2 * m], y = set.state(r, t)[2 * m + 1];
        const double u = set.state(r, t + tau)[2 * m], v = set.state(r, t + tau)[2 * m + 1];
        s.p[tau] += x * x + y * y;
        // conj(x + iy)·(u + iv) = (xu + yv) + i(xv − yu)
        s.c_re[tau] += x * u + y * v;
        s.c_im[tau] += x * v - y * u;
      }
    }
  }
  return s;
}

ComplexGain FitMode(const ModeLagSums& s, int64_t k) {
  if (s.p[1] == 0.0) return {1.0, 0.0};
  ComplexGain g{s.c_re[1] / s.p[1], s.c_im[1] / s.p[1]};
  for (int it = 0; k > 1 && it < 50; ++it) {
    double num_re = 0, num_im = 0, den = 0;
    ComplexGain g_prev{1.0, 0.0};  // g^{τ−1}
    for (int64_t tau = 1; tau <= k; ++tau) {
      const ComplexGain g_tau = Mul(g_prev, g);
      const double r_re = g_tau.re * s.p[tau] - s.c_re[tau];
      const double r_im = g_tau.im * s.p[tau] - s.c_im[tau];
      // conj(g^{τ−1})·r
      const double w = static_cast<double>(tau);
      num_re += w * (g_prev.re * r_re + g_prev.im * r_im);
      num_im += w * (g_prev.re * r_im - g_prev.im * r_re);
      den += (w * w) * ((g_prev.re * g_prev.re + g_prev.im * g_prev.im) * s.p[tau]);
      g_prev = g_tau;
    }
    if (den == 0.0) break;
    g.re -= num_re / den;
    g.im -= num_im / den;
  }
  const double mod2 = g.re * g.re + g.im * g.im;
  if (mod2 > 1.0) {
    const double mod = std::sqrt(mod2);
    g.re /= mod;
    g.im /= mod;
  }
  return g;
}

}  // namespace

StatusOr<ModeRotationFit> FitModeRotations(const TrajectorySet& set, const ProxySpec& spec,
                                           int64_t k) {
  if (k < 1) return InvalidArgumentError("mode2x2: K = " + std::to_string(k) + " < 1");
  DASHI_RETURN_IF_ERROR(ValidateTrajectorySet(set, k + 1));
  if (set.dim != spec.dim()) {
    return InvalidArgumentError("mode2x2: states have D = " + std::to_string(set.dim) +
                                ", the proxy spec D = " + std::to_string(spec.dim()));
  }
  ModeRotationFit fit;
  const int64_t modes = (spec.dim() - 2) / 2;
  for (int64_t m = 0; m < modes; ++m) fit.modes.push_back(FitMode(ModeSums(set, m, k), k));
  // The band scalars: one real gain each (the shell grouping's last two groups).
  const CoordinateGroups groups = MakeCoordinateGroups(GroupingKind::kShell, spec);
  DASHI_ASSIGN_OR_RETURN(GroupLagSums sums, ComputeGroupLagSums(set, groups, k));
  fit.mid_gain = FitKStepGain(sums.p_of(groups.count - 2), sums.c_of(groups.count - 2), k);
  fit.high_gain = FitKStepGain(sums.p_of(groups.count - 1), sums.c_of(groups.count - 1), k);
  return fit;
}

std::vector<double> ModeRotationMatrix(const ModeRotationFit& fit, int64_t dim) {
  std::vector<double> a(static_cast<size_t>(dim * dim), 0.0);
  for (size_t m = 0; m < fit.modes.size(); ++m) {
    const int64_t i = 2 * static_cast<int64_t>(m);
    a[i * dim + i] = fit.modes[m].re;
    a[i * dim + i + 1] = fit.modes[m].im;
    a[(i + 1) * dim + i] = -fit.modes[m].im;
    a[(i + 1) * dim + i + 1] = fit.modes[m].re;
  }
  a[(dim - 2) * dim + dim - 2] = fit.mid_gain;
  a[(dim - 1) * dim + dim - 1] = fit.high_gain;
  return a;
}

}  // namespace dashi
