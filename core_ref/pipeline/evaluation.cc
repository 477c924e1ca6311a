#include "core_ref/pipeline/evaluation.h"

#include <cmath>
#include <cstdio>
#include <limits>
#include <utility>

#include "core_ref/learner/metrics.h"
#include "core_ref/proxy/proxy_energy.h"
#include "core_ref/rollout/vecmat.h"

namespace dashi {
namespace {

double SquaredNorm(std::span<const double> v) {
  double s = 0;
  for (double x : v) s += x * x;
  return s;
}

// Σ_i (c·z0_i − z_i)² (c = 1: persistence, c = α: damped, c = 0: zero).
double ScaledError(double c, std::span<const double> z0, std::span<const double> z) {
  double s = 0;
  for (size_t i = 0; i < z.size(); ++i) {
    const double d = c * z0[i] - z[i];
    s += d * d;
  }
  return s;
}

double Correlation(std::span<const double> x, std::span<const double> y) {
  StatusOr<double> r = PearsonCorrelation(x, y);
  return r.ok() ? *r : 0.0;  // a constant forecast (zero variance) correlates 0
}

double RelL2(double mse, double truth_norm2) {
  return truth_norm2 > 0 ? std::sqrt(mse / truth_norm2) : std::sqrt(mse);
}

Spread Combine(const std::vector<TrajectoryScores>& s,
               std::vector<double> TrajectoryScores::*field) {
  Spread out;
  const size_t steps = (s.front().*field).size();
  for (size_t t = 0; t < steps; ++t) {
    double sum = 0, lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (const TrajectoryScores& e : s) {
      const double v = (e.*field)[t];
      sum += v;
      lo = v < lo ? v : lo;
      hi = v > hi ? v : hi;
    }
    out.mean.push_back(sum / static_cast<double>(s.size()));
    out.min.push_back(lo);
    out.max.push_back(hi);
  }
  return out;
}

std::string Format(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof(buf), fmt, v);
  return buf;
}

std::string Verdict(const Evaluation& e) {
  const int64_t h = e.steps;
  const int64_t mid = h >= 100 ? 100 : h;
  const double e_last = e.energy_ratio.mean[h], z_last = e.enstrophy_ratio.mean[h];
  std::string v;
  if (e.skill_from_step < 0) {
    v = "no skill over persistence (rel L2 ratio " + Format("%.3f", e.ratio.mean[h]) +
        " at step " + std::to_string(h) + ")";
  } else {
    v = "skill over persistence from step " + std::to_string(e.skill_from_step) + " on, by " +
        Format("%.1f", 100.0 * (1.0 - e.ratio.mean[mid])) + " % at step " + std::to_string(mid) +
        " (rel L2 ratio " + Format("%.3f", e.ratio.mean[mid]) + ", skill " +
        Format("%.3f", e.skill.mean[mid]) + ")";
    if (mid != h) {
      v += ", " + Format("%.1f", 100.0 * (1.0 - e.ratio.mean[h])) + " % at step " +
           std::to_string(h);
    }
  }
  v += "; energy at step " + std::to_string(h) + " " + Format("%.3f", e_last) +
       " of the LES's, enstrophy " + Format("%.2f", z_last) + "; rho(A) " +
       Format("%.4f", e.spectral_radius);
  if (!std::isfinite(e_last) || (e_last > 1.15 && e.spectral_radius > 1.0)) {
    v += "; EXPLODES (energy grows, rho(A) > 1)";
  } else if (e_last < 0.5) {
    v += "; COLLAPSE (energy below half the LES's)";
  } else if (std::fabs(e_last - 1.0) > 0.15) {
    v += "; ENERGY DRIFT (" + Format("%+.0f", 100.0 * (e_last - 1.0)) + " %)";
  }
  v += e.meets_target ? "; meets the target" : "; misses the target";
  return v;
}

}  // namespace

std::vector<double> FitDampedPersistence(const TrajectorySet& train, int64_t horizon) {
  std::vector<double> alpha;
  for (int64_t tau = 0; tau <= horizon; ++tau) {
    double num = 0, den = 0;
    for (size_t r = 0; r < train.trajectories.size(); ++r) {
      for (int64_t t = 0; t + tau < train.frames(r); ++t) {
        const double* z = train.state(r, t);
        const double* y = train.state(r, t + tau);
        for (int64_t i = 0; i < train.dim; ++i) {
          num += z[i] * y[i];
          den += z[i] * z[i];
        }
      }
    }
    alpha.push_back(den > 0 ? num / den : 0.0);
  }
  return alpha;
}

StatusOr<TrajectoryScores> ScoreTrajectory(std::span<const double> truth,
                                           std::span<const double> rollout, int64_t dim,
                                           std::span<const double> alpha,
                                           std::span<const double> energy_weights) {
  if (dim < 1 || truth.size() != rollout.size() || truth.size() % dim != 0 ||
      truth.size() / dim != alpha.size() || energy_weights.size() != static_cast<size_t>(dim)) {
    return InvalidArgumentError("evaluation: truth " + std::to_string(truth.size()) +
                                " and rollout " + std::to_string(rollout.size()) +
                                " values, " + std::to_string(alpha.size()) +
                                " damping factors and " + std::to_string(energy_weights.size()) +
                                " energy weights do not fit D = " + std::to_string(dim));
  }
  const int64_t frames = static_cast<int64_t>(truth.size()) / dim;
  const std::span<const double> z0 = truth.first(dim);
  TrajectoryScores s;
  for (int64_t t = 0; t < frames; ++t) {
    const std::span<const double> z = truth.subspan(t * dim, dim);
    const std::span<const double> zh = rollout.subspan(t * dim, dim);
    for (double v : zh) {
      if (!std::isfinite(v)) {
        return InvalidArgumentError("evaluation: the rollout is not finite at step " +
                                    std::to_string(t));
      }
    }
    const double norm2 = SquaredNorm(z);
    double mse = 0;
    for (int64_t i = 0; i < dim; ++i) {
      const double d = zh[i] - z[i];
      mse += d * d;
    }
    const double mse_p = ScaledError(1.0, z0, z);
    s.rel_l2_rollout.push_back(RelL2(mse, norm2));
    s.rel_l2_persistence.push_back(RelL2(mse_p, norm2));
    s.rel_l2_damped.push_back(RelL2(ScaledError(alpha[t], z0, z), norm2));
    s.rel_l2_zero.push_back(RelL2(norm2, norm2));
    s.correlation_rollout.push_back(Correlation(zh, z));
    s.correlation_persistence.push_back(Correlation(z0, z));
    if (mse_p > 0) {
      s.ratio.push_back(std::sqrt(mse / mse_p));
      s.skill.push_back(1.0 - mse / mse_p);
    } else {
      s.ratio.push_back(mse == 0 ? 1.0 : std::numeric_limits<double>::infinity());
      s.skill.push_back(mse == 0 ? 0.0 : -std::numeric_limits<double>::infinity());
    }
    s.energy_rollout.push_back(ProxyEnergy(energy_weights, zh));
    s.energy_truth.push_back(ProxyEnergy(energy_weights, z));
    s.enstrophy_rollout.push_back(ProxyEnstrophy(zh));
    s.enstrophy_truth.push_back(ProxyEnstrophy(z));
  }
  return s;
}

MatrixNorms EstimateMatrixNorms(std::span<const double> a, int64_t dim) {
  MatrixNorms n;
  const auto normalise = [](std::vector<double>& v) {
    const double len = std::sqrt(SquaredNorm(v));
    if (len > 0) {
      for (double& x : v) x /= len;
    }
    return len;
  };
  VecMatWorkspace ws;
  std::vector<double> v(static_cast<size_t>(dim), 1.0), w(v.size()), x(v.size());
  normalise(v);
  // ‖A‖₂: v ← normalise(A·(v·A)ᵀ); σ = ‖v·A‖.
  for (int it = 0; it < 100; ++it) {
    ws.Multiply(v.data(), a.data(), dim, w.data());
    for (int64_t i = 0; i < dim; ++i) {
      double s = 0;
      for (int64_t j = 0; j < dim; ++j) s += a[i * dim + j] * w[j];
      x[i] = s;
    }
    if (normalise(x) == 0) break;
    v = x;
  }
  ws.Multiply(v.data(), a.data(), dim, w.data());
  n.norm2 = std::sqrt(SquaredNorm(w));
  // ρ(A): 64 normalised warm-up steps, then the growth over 64 more, rooted by six square roots.
  std::fill(v.begin(), v.end(), 1.0);
  normalise(v);
  for (int it = 0; it < 64; ++it) {
    ws.Multiply(v.data(), a.data(), dim, w.data());
    if (normalise(w) == 0) return n;
    v = w;
  }
  double growth = 1;  // ‖v·A^64‖ as a product of per-step growths (no overflow)
  for (int it = 0; it < 64; ++it) {
    ws.Multiply(v.data(), a.data(), dim, w.data());
    const double len = normalise(w);
    if (len == 0) return n;
    growth *= len;
    v = w;
  }
  double root = growth;
  for (int i = 0; i < 6; ++i) root = std::sqrt(root);
  n.spectral_radius = root;
  return n;
}

Evaluation CombineScores(std::vector<TrajectoryScores> scores, const MatrixNorms& norms,
                         bool norms_exact) {
  Evaluation e;
  e.steps = static_cast<int64_t>(scores.front().ratio.size()) - 1;
  const int64_t h = e.steps;
  e.trajectories = std::move(scores);
  // Per-trajectory energy and enstrophy ratios, then their spreads.
  std::vector<TrajectoryScores> ratios(e.trajectories.size());
  for (size_t k = 0; k < e.trajectories.size(); ++k) {
    const TrajectoryScores& s = e.trajectories[k];
    for (int64_t t = 0; t <= h; ++t) {
      ratios[k].energy_rollout.push_back(s.energy_rollout[t] / s.energy_truth[t]);
      ratios[k].enstrophy_rollout.push_back(s.enstrophy_rollout[t] / s.enstrophy_truth[t]);
    }
  }
  e.energy_ratio = Combine(ratios, &TrajectoryScores::energy_rollout);
  e.enstrophy_ratio = Combine(ratios, &TrajectoryScores::enstrophy_rollout);
  e.ratio = Combine(e.trajectories, &TrajectoryScores::ratio);
  e.skill = Combine(e.trajectories, &TrajectoryScores::skill);
  e.rel_l2_rollout = Combine(e.trajectories, &TrajectoryScores::rel_l2_rollout);
  e.rel_l2_persistence = Combine(e.trajectories, &TrajectoryScores::rel_l2_persistence);
  e.rel_l2_damped = Combine(e.trajectories, &TrajectoryScores::rel_l2_damped);
  e.rel_l2_zero = Combine(e.trajectories, &TrajectoryScores::rel_l2_zero);
  e.correlation_rollout = Combine(e.trajectories, &TrajectoryScores::correlation_rollout);
  e.correlation_persistence = Combine(e.trajectories, &TrajectoryScores::correlation_persistence);

  for (int64_t hz : {1, 5, 10, 20, 50, 100, 200}) {
    if (hz <= h) e.horizons.push_back(hz);
  }
  if (h >= 1 && (e.horizons.empty() || e.horizons.back() != h)) e.horizons.push_back(h);
  e.skill_from_step = -1;
  for (int64_t t = h; t >= 1 && e.ratio.mean[t] < 1.0; --t) e.skill_from_step = t;
  for (int64_t t = 1; t <= h; ++t) {
    double& m = t < 10 ? e.max_ratio_before_10 : e.max_ratio_from_10;
    m = e.ratio.mean[t] > m ? e.ratio.mean[t] : m;
  }
  const double e_last = e.energy_ratio.mean[h];
  e.meets_target = h >= 10 && e.max_ratio_before_10 <= 1.02 && e.max_ratio_from_10 < 1.0 &&
                   std::fabs(e_last - 1.0) <= 0.15;
  e.spectral_radius = norms.spectral_radius;
  e.norm2 = norms.norm2;
  e.norms_exact = norms_exact;
  e.verdict = Verdict(e);
  return e;
}

}  // namespace dashi
