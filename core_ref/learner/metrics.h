// Accuracy metrics for predicted trajectories: relative L2 error per step and Pearson correlation
// (whole arrays or per step), in fp64 with fixed sequential summation orders.
//
//   StatusOr<std::vector<double>> e = RelativeL2ErrorPerStep(pred, truth, num_steps, dim);
//   StatusOr<double> r = PearsonCorrelation(pred, truth);
//
// Definitions (all sums sequential in increasing index, starting from the first term):
//   relative error of step t = sqrt(Σ_i (p[t][i] − q[t][i])²) / sqrt(Σ_i q[t][i]²)
//     (p predicted, q true; each difference and square rounded; two sqrt, one division).
//   Pearson r(x, y), n ≥ 2: mx = (Σ x_k) / n, my = (Σ y_k) / n, then sxy = Σ (x_k − mx)(y_k − my),
//     sxx = Σ (x_k − mx)², syy = Σ (y_k − my)²; r = sxy / sqrt(sxx · syy).
#ifndef DASHI_CORE_REF_LEARNER_METRICS_H_
#define DASHI_CORE_REF_LEARNER_METRICS_H_

#include <cstdint>
#include <span>
#include <vector>

#include "core_ref/status/status.h"

namespace dashi {

// One value per step (row) of two num_steps × dim trajectories.
// INVALID_ARGUMENT: num_steps < 1, dim < 1, a size ≠ num_steps·dim, a NaN/±Inf value, or a true
// state with zero norm (relative error undefined; the message names the step).
StatusOr<std::vector<double>> RelativeL2ErrorPerStep(std::span<const double> predicted,
                                                     std::span<const double> truth,
                                                     int64_t num_steps, int64_t dim);

// Pearson correlation of two equally long arrays (flattened trajectories, for instance).
// INVALID_ARGUMENT: sizes differ, fewer than 2 values, a NaN/±Inf, or zero variance in x or y.
StatusOr<double> PearsonCorrelation(std::span<const double> x, std::span<const double> y);

// PearsonCorrelation of each step's predicted and true state (dim ≥ 2 values each).
StatusOr<std::vector<double>> PearsonCorrelationPerStep(std::span<const double> predicted,
                                                        std::span<const double> truth,
                                                        int64_t num_steps, int64_t dim);

}  // namespace dashi

#endif  // DASHI_CORE_REF_LEARNER_METRICS_H_
