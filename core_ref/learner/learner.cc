#include "core_ref/learner/learner.h"

#include <cmath>
#include <cstdio>

#include "core_ref/learner/coordinate_groups.h"
#include "core_ref/learner/gain_fit.h"
#include "core_ref/learner/lag_sums.h"
#include "core_ref/learner/mode_rotation.h"
#include "core_ref/proxy/proxy_energy.h"

namespace dashi {
namespace {

constexpr LearnerKind kKinds[] = {LearnerKind::kRidge, LearnerKind::kScalar,
                                  LearnerKind::kDiagonal, LearnerKind::kShell,
                                  LearnerKind::kMode2x2};

GroupingKind GroupingOf(LearnerKind kind) {
  if (kind == LearnerKind::kScalar) return GroupingKind::kScalar;
  if (kind == LearnerKind::kDiagonal) return GroupingKind::kDiagonal;
  return GroupingKind::kShell;
}

StatusOr<FittedLearner> FitGains(const LearnerConfig& c, const ProxySpec& spec,
                                 const TrajectorySet& train) {
  const CoordinateGroups groups = MakeCoordinateGroups(GroupingOf(c.kind), spec);
  DASHI_ASSIGN_OR_RETURN(GroupLagSums sums, ComputeGroupLagSums(train, groups, c.k));
  std::vector<double> g;
  if (c.energy_constraint) {
    DASHI_ASSIGN_OR_RETURN(EnergyLagSums energy,
                           ComputeEnergyLagSums(train, groups, EnergyWeights(spec), c.energy_lag));
    g = FitEnergyConstrainedGains(sums, c.k, energy);
  } else {
    g = FitKStepGains(sums, c.k);
  }
  FittedLearner f;
  const int64_t dim = spec.dim();
  f.a.assign(static_cast<size_t>(dim * dim), 0.0);
  for (int64_t i = 0; i < dim; ++i) f.a[i * dim + i] = g[groups.group_of[i]];
  f.gain_names = groups.names;
  f.gains = g;
  f.spectral_radius = 0;
  for (double v : g) f.spectral_radius = v > f.spectral_radius ? v : f.spectral_radius;
  return f;
}

StatusOr<FittedLearner> FitRotations(const LearnerConfig& c, const ProxySpec& spec,
                                     const TrajectorySet& train) {
  DASHI_ASSIGN_OR_RETURN(ModeRotationFit fit, FitModeRotations(train, spec, c.k));
  FittedLearner f;
  f.a = ModeRotationMatrix(fit, spec.dim());
  f.spectral_radius = fit.mid_gain > fit.high_gain ? fit.mid_gain : fit.high_gain;
  size_t m = 0;
  for (const std::vector<Mode>* modes : {&spec.low_modes, &spec.anchors}) {
    for (const Mode& mode : *modes) {
      const ComplexGain& g = fit.modes[m++];
      const double mod = std::sqrt(g.re * g.re + g.im * g.im);
      f.gain_names.push_back("|g| (" + std::to_string(mode.kx) + "," + std::to_string(mode.ky) +
                             ")");
      f.gains.push_back(mod);
      f.spectral_radius = mod > f.spectral_radius ? mod : f.spectral_radius;
    }
  }
  f.gain_names.push_back("z_mid");
  f.gains.push_back(fit.mid_gain);
  f.gain_names.push_back("z_high");
  f.gains.push_back(fit.high_gain);
  return f;
}

}  // namespace

StatusOr<LearnerKind> ParseLearnerKind(const std::string& name) {
  for (LearnerKind k : kKinds) {
    if (name == LearnerKindName(k)) return k;
  }
  return InvalidArgumentError("learner '" + name +
                              "' is not one of: ridge, scalar, diagonal, shell, mode2x2");
}

const char* LearnerKindName(LearnerKind kind) {
  switch (kind) {
    case LearnerKind::kRidge: return "ridge";
    case LearnerKind::kScalar: return "scalar";
    case LearnerKind::kDiagonal: return "diagonal";
    case LearnerKind::kShell: return "shell";
    case LearnerKind::kMode2x2: return "mode2x2";
  }
  return "?";
}

bool IsGainLearner(LearnerKind kind) {
  return kind == LearnerKind::kScalar || kind == LearnerKind::kDiagonal ||
         kind == LearnerKind::kShell;
}

std::string LearnerConfigText(const LearnerConfig& c) {
  std::string s = LearnerKindName(c.kind);
  if (c.kind == LearnerKind::kRidge) {
    char lambda[32];
    std::snprintf(lambda, sizeof(lambda), "%g", c.ridge_lambda);
    return s + ", prior " + RidgePriorName(c.ridge_prior) + ", lambda " + lambda;
  }
  s += c.k == 1 ? ", one-step loss" : ", K-step loss K=" + std::to_string(c.k);
  if (c.energy_constraint) s += ", energy constraint L=" + std::to_string(c.energy_lag);
  return s;
}

StatusOr<FittedLearner> FitLearner(const LearnerConfig& c, const ProxySpec& spec,
                                   const TrajectorySet& train) {
  if (c.k < 1) return InvalidArgumentError("learner: K = " + std::to_string(c.k) + " < 1");
  if (c.kind == LearnerKind::kRidge && c.k != 1) {
    return InvalidArgumentError("learner ridge has a one-step loss only (K = " +
                                std::to_string(c.k) + " requested)");
  }
  if (c.energy_constraint && !IsGainLearner(c.kind)) {
    return InvalidArgumentError(std::string("the energy constraint applies to the scalar, "
                                            "diagonal and shell learners, not to ") +
                                LearnerKindName(c.kind));
  }
  if (c.energy_constraint && c.energy_lag < 1) {
    return InvalidArgumentError("energy constraint: lag L = " + std::to_string(c.energy_lag) +
                                " < 1");
  }
  if (train.dim != spec.dim()) {
    return InvalidArgumentError("learner: states have D = " + std::to_string(train.dim) +
                                ", the proxy spec D = " + std::to_string(spec.dim()));
  }
  switch (c.kind) {
    case LearnerKind::kRidge: {
      FittedLearner f;
      DASHI_ASSIGN_OR_RETURN(f.a, FitTransitionSet(train, c.ridge_lambda, c.ridge_prior));
      return f;
    }
    case LearnerKind::kMode2x2:
      return FitRotations(c, spec, train);
    default:
      return FitGains(c, spec, train);
  }
}

}  // namespace dashi
