#include "core_ref/learner/gain_fit.h"

namespace dashi {
namespace {

// L'(g) / 2 of the K-step loss.
double HalfSlope(std::span<const double> p, std::span<const double> c, int64_t k, double g) {
  double slope = 0, g_tau_minus_1 = 1;  // g^{τ−1}
  for (int64_t tau = 1; tau <= k; ++tau) {
    const double g_tau = g_tau_minus_1 * g;
    slope += static_cast<double>(tau) * (p[tau] * (g_tau * g_tau_minus_1) - c[tau] * g_tau_minus_1);
    g_tau_minus_1 = g_tau;
  }
  return slope;
}

// f(g) = Σ_τ (P[τ] g^{2τ} − 2 C[τ] g^τ) − μ W g^{2L}.
double PenalisedLoss(std::span<const double> p, std::span<const double> c, int64_t k,
                     double mu_w, int64_t two_l, double g) {
  double f = 0, g_tau = 1;
  for (int64_t tau = 1; tau <= k; ++tau) {
    g_tau *= g;
    f += p[tau] * (g_tau * g_tau) - 2.0 * (c[tau] * g_tau);
  }
  return f - mu_w * PowInt(g, two_l);
}

// The first least value of f over `count` + 1 points lo + (hi − lo)·j/count.
template <typename F>
double FirstArgmin(const F& f, double lo, double hi, int64_t count) {
  double best_g = lo, best = f(lo);
  for (int64_t j = 1; j <= count; ++j) {
    const double g = lo + (hi - lo) * static_cast<double>(j) / static_cast<double>(count);
    const double v = f(g);
    if (v < best) {
      best = v;
      best_g = g;
    }
  }
  return best_g;
}

double ConstrainedGain(std::span<const double> p, std::span<const double> c, int64_t k,
                       double mu_w, int64_t two_l) {
  const auto f = [&](double g) { return PenalisedLoss(p, c, k, mu_w, two_l, g); };
  const double coarse = FirstArgmin(f, 0.0, 1.0, 1000);
  const double lo = coarse - 0.002 > 0.0 ? coarse - 0.002 : 0.0;
  const double hi = coarse + 0.002 < 1.0 ? coarse + 0.002 : 1.0;
  return FirstArgmin(f, lo, hi, 4000);
}

}  // namespace

double PowInt(double x, int64_t n) {
  double result = 1.0, base = x;
  while (n > 0) {
    if (n & 1) result *= base;
    n >>= 1;
    if (n > 0) base *= base;
  }
  return result;
}

double FitKStepGain(std::span<const double> p, std::span<const double> c, int64_t k) {
  if (k == 1) {
    if (p[1] == 0.0) return 1.0;
    const double g = c[1] / p[1];
    return g < 0.0 ? 0.0 : (g > 1.0 ? 1.0 : g);
  }
  if (HalfSlope(p, c, k, 1.0) <= 0.0) return 1.0;
  if (HalfSlope(p, c, k, 0.0) >= 0.0) return 0.0;
  double lo = 0.0, hi = 1.0;
  for (int i = 0; i < 60; ++i) {
    const double m = 0.5 * (lo + hi);
    if (HalfSlope(p, c, k, m) < 0.0) {
      lo = m;
    } else {
      hi = m;
    }
  }
  return 0.5 * (lo + hi);
}

std::vector<double> FitKStepGains(const GroupLagSums& sums, int64_t k) {
  std::vector<double> g;
  for (int64_t s = 0; s < sums.groups; ++s) g.push_back(FitKStepGain(sums.p_of(s), sums.c_of(s), k));
  return g;
}

std::vector<double> FitEnergyConstrainedGains(const GroupLagSums& sums, int64_t k,
                                              const EnergyLagSums& energy) {
  const int64_t two_l = 2 * energy.lag;
  const auto gains_at = [&](double mu) {
    std::vector<double> g;
    for (int64_t s = 0; s < sums.groups; ++s) {
      g.push_back(ConstrainedGain(sums.p_of(s), sums.c_of(s), k, mu * energy.per_group[s], two_l));
    }
    return g;
  };
  const auto kept = [&](const std::vector<double>& g) {
    double e = 0;
    for (int64_t s = 0; s < sums.groups; ++s) e += energy.per_group[s] * PowInt(g[s], two_l);
    return e;
  };
  std::vector<double> g = gains_at(0.0);
  if (kept(g) >= energy.target) return g;
  double hi = 1.0;
  g = gains_at(hi);
  for (int grow = 0; grow < 20 && kept(g) < energy.target; ++grow) {
    hi *= 4.0;
    g = gains_at(hi);
  }
  double lo = 0.0;
  for (int i = 0; i < 60; ++i) {
    const double m = 0.5 * (lo + hi);
    if (kept(gains_at(m)) < energy.target) {
      lo = m;
    } else {
      hi = m;
    }
  }
  return gains_at(hi);
}

}  // namespace dashi
