#include "core_ref/learner/metrics.h"

#include <cmath>
#include <new>
#include <string>

namespace dashi {
namespace {

Status CheckFinite(std::span<const double> v, const char* name) {
  for (size_t k = 0; k < v.size(); ++k) {
    if (!std::isfinite(v[k])) {
      return InvalidArgumentError(std::string("metrics: ") + name + "[" + std::to_string(k) +
                                  "] is not finite");
    }
  }
  return OkStatus();
}

Status CheckTrajectories(std::span<const double> predicted, std::span<const double> truth,
                         int64_t num_steps, int64_t dim) {
  if (num_steps < 1 || dim < 1) {
    return InvalidArgumentError("metrics: shape (" + std::to_string(num_steps) + ", " +
                                std::to_string(dim) + ") needs num_steps >= 1 and dim >= 1");
  }
  const int64_t n = static_cast<int64_t>(truth.size());
  if (num_steps > n / dim || n != num_steps * dim ||
      static_cast<int64_t>(predicted.size()) != n) {
    return InvalidArgumentError("metrics: predicted has " + std::to_string(predicted.size()) +
                                " and truth " + std::to_string(truth.size()) +
                                " values; shape (" + std::to_string(num_steps) + ", " +
                                std::to_string(dim) + ") needs " +
                                std::to_string(num_steps * dim) + " each");
  }
  DASHI_RETURN_IF_ERROR(CheckFinite(predicted, "predicted"));
  return CheckFinite(truth, "truth");
}

// Pearson on already validated inputs (n ≥ 2, finite). `what` names the data in errors.
StatusOr<double> Pearson(std::span<const double> x, std::span<const double> y,
                         const std::string& what) {
  const size_t n = x.size();
  double sx = x[0], sy = y[0];
  for (size_t k = 1; k < n; ++k) {
    sx = sx + x[k];
    sy = sy + y[k];
  }
  const double mx = sx / static_cast<double>(n);
  const double my = sy / static_cast<double>(n);
  double dx = x[0] - mx, dy = y[0] - my;
  double sxy = dx * dy, sxx = dx * dx, syy = dy * dy;
  for (size_t k = 1; k < n; ++k) {
    dx = x[k] - mx;
    dy = y[k] - my;
    sxy = sxy + dx * dy;
    sxx = sxx + dx * dx;
    syy = syy + dy * dy;
  }
  if (!(sxx > 0.0) || !(syy > 0.0)) {
    return InvalidArgumentError("metrics: " + what +
                                " has zero variance; the correlation is undefined");
  }
  return sxy / std::sqrt(sxx * syy);
}

}  // namespace

StatusOr<std::vector<double>> RelativeL2ErrorPerStep(std::span<const double> predicted,
                                                     std::span<const double> truth,
                                                     int64_t num_steps, int64_t dim) {
  DASHI_RETURN_IF_ERROR(CheckTrajectories(predicted, truth, num_steps, dim));
  try {
    std::vector<double> out(static_cast<size_t>(num_steps));
    for (int64_t t = 0; t < num_steps; ++t) {
      const double* p = predicted.data() + t * dim;
      const double* q = truth.data() + t * dim;
      double diff = p[0] - q[0];
      double num = diff * diff;
      double den = q[0] * q[0];
      for (int64_t i = 1; i < dim; ++i) {
        diff = p[i] - q[i];
        num = num + diff * diff;
        den = den + q[i] * q[i];
      }
      if (!(den > 0.0)) {
        return InvalidArgumentError("metrics: the true state at step " + std::to_string(t) +
                                    " has zero norm; the relative error is undefined");
      }
      out[t] = std::sqrt(num) / std::sqrt(den);
    }
    return out;
  } catch (const std::bad_alloc&) {
    return ResourceExhaustedError("metrics: out of memory");
  }
}

StatusOr<double> PearsonCorrelation(std::span<const double> x, std::span<const double> y) {
  if (x.size() != y.size()) {
    return InvalidArgumentError("metrics: Pearson inputs have " + std::to_string(x.size()) +
                                " and " + std::to_string(y.size()) + " values");
  }
  if (x.size() < 2) {
    return InvalidArgumentError("metrics: Pearson needs at least 2 values, got " +
                                std::to_string(x.size()));
  }
  DASHI_RETURN_IF_ERROR(CheckFinite(x, "x"));
  DASHI_RETURN_IF_ERROR(CheckFinite(y, "y"));
  return Pearson(x, y, "the input");
}

StatusOr<std::vector<double>> PearsonCorrelationPerStep(std::span<const double> predicted,
                                                        std::span<const double> truth,
                                                        int64_t num_steps, int64_t dim) {
  DASHI_RETURN_IF_ERROR(CheckTrajectories(predicted, truth, num_steps, dim));
  if (dim < 2) {
    return InvalidArgumentError("metrics: per-step Pearson needs dim >= 2, got " +
                                std::to_string(dim));
  }
  try {
    std::vector<double> out(static_cast<size_t>(num_steps));
    for (int64_t t = 0; t < num_steps; ++t) {
      StatusOr<double> r = Pearson(predicted.subspan(t * dim, dim), truth.subspan(t * dim, dim),
                                   "step " + std::to_string(t));
      if (!r.ok()) return r.status();
      out[t] = *r;
    }
    return out;
  } catch (const std::bad_alloc&) {
    return ResourceExhaustedError("metrics: out of memory");
  }
}

}  // namespace dashi
