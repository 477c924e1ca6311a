// Ridge regression for linear latent dynamics z_{t+1} ≈ z_t·A: A = argmin Σ_t ‖z_{t+1} − z_t·A‖²
// + λ‖A‖²_F, solved from the normal equations (ZᵀZ + λI)·A = ZᵀY by Cholesky in fp64 with fixed
// summation orders (docs/MATH.md, "Ridge regression (solve order)"), so the fit is bit-reproducible.
//
//   StatusOr<RegressionPairs> p = PairsFromTrajectory(states, num_states, dim);   // [T+1, D]
//   StatusOr<std::vector<double>> a = FitRidge(p->z, p->y, p->samples, p->dim, /*lambda=*/1e-3);
//   // *a is D×D row-major: predict z_{t+1} = z_t·A (core_ref/rollout).
//
// Orders (Z: T×D rows z_t, Y: T×D rows z_{t+1}, all row-major; every product rounded, no FMA):
//   G[i][k] = Σ_t Z[t][i]·Z[t][k] for k ≤ i: acc = Z[0][i]·Z[0][k], then acc = acc + Z[t][i]·Z[t][k]
//             for t = 1..T−1; then G[i][i] = G[i][i] + λ.           (only the lower triangle)
//   B[i][j] = Σ_t Z[t][i]·Y[t][j], the same sequential order over t.
//   Cholesky G = L·Lᵀ, row by row (i = 0..D−1), j = 0..i:
//             s = G[i][j]; s = s − L[i][k]·L[j][k] for k = 0..j−1 ascending;
//             j < i: L[i][j] = s / L[j][j];   j = i: L[i][i] = sqrt(s) (the pivot s is checked).
//   Forward   W[i][c] = (B[i][c] − Σ_{k<i} L[i][k]·W[k][c]) / L[i][i]: s = B[i][c], then
//             s = s − L[i][k]·W[k][c] for k = 0..i−1 ascending, one division; i = 0..D−1.
//   Backward  A[i][c] = (W[i][c] − Σ_{k>i} L[k][i]·A[k][c]) / L[i][i]: s = W[i][c], then
//             s = s − L[k][i]·A[k][c] for k = i+1..D−1 ascending, one division; i = D−1..0.
#ifndef DASHI_CORE_REF_LEARNER_RIDGE_H_
#define DASHI_CORE_REF_LEARNER_RIDGE_H_

#include <cstdint>
#include <span>
#include <vector>

#include "core_ref/status/status.h"

namespace dashi {

// Regression pairs: row t of z is the input z_t, row t of y the target z_{t+1}.
struct RegressionPairs {
  std::vector<double> z;  // samples × dim, row-major
  std::vector<double> y;  // samples × dim, row-major
  int64_t samples = 0;
  int64_t dim = 0;
};

// From a trajectory `states` of num_states × dim (row-major, state t in row t): samples =
// num_states − 1, z = rows 0..T−1, y = rows 1..T. INVALID_ARGUMENT when dim < 1, num_states < 2,
// states.size() ≠ num_states·dim, or a value is NaN/±Inf (the message names state and index).
StatusOr<RegressionPairs> PairsFromTrajectory(std::span<const double> states, int64_t num_states,
                                              int64_t dim);

// A (dim × dim, row-major) minimising Σ_t ‖y_t − z_t·A‖² + λ‖A‖²_F, by the orders above.
// INVALID_ARGUMENT: samples < 1, dim < 1, z or y not samples·dim entries, λ negative or not
//   finite, a NaN/±Inf in z or y (named by row and column).
// FAILED_PRECONDITION: ZᵀZ + λI is not (numerically) positive definite: a Cholesky pivot
//   s ≤ dim·2⁻⁵²·G[j][j] (this includes s ≤ 0); the message names the pivot index j and its value.
//   Typical cause: λ = 0 with rank-deficient Z (fewer samples than dim, a constant-zero or
//   duplicated coordinate).
StatusOr<std::vector<double>> FitRidge(std::span<const double> z, std::span<const double> y,
                                       int64_t samples, int64_t dim, double lambda);

}  // namespace dashi

#endif  // DASHI_CORE_REF_LEARNER_RIDGE_H_
