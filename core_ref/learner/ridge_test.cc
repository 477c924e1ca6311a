#include "core_ref/learner/ridge.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>
#include <utility>
#include <vector>

#include "core_ref/prng/prng.h"
#include "core_ref/rollout/rollout.h"
#include "gtest/gtest.h"

namespace dashi {
namespace {

std::vector<double> RandomValues(Xoshiro256ss& rng, size_t n, double scale) {
  std::vector<double> v(n);
  for (double& x : v) x = scale * (2.0 * rng.NextDouble() - 1.0);
  return v;
}

// A random orthogonal dim×dim matrix (modified Gram–Schmidt on the rows of a random matrix).
std::vector<double> RandomOrthogonal(Xoshiro256ss& rng, int64_t dim) {
  std::vector<double> q = RandomValues(rng, dim * dim, 1.0);
  for (int64_t i = 0; i < dim; ++i) {
    double* qi = q.data() + i * dim;
    for (int64_t k = 0; k < i; ++k) {
      const double* qk = q.data() + k * dim;
      double dot = 0;
      for (int64_t j = 0; j < dim; ++j) dot += qi[j] * qk[j];
      for (int64_t j = 0; j < dim; ++j) qi[j] -= dot * qk[j];
    }
    double norm = 0;
    for (int64_t j = 0; j < dim; ++j) norm += qi[j] * qi[j];
    norm = std::sqrt(norm);
    for (int64_t j = 0; j < dim; ++j) qi[j] /= norm;
  }
  return q;
}

// States z_0..z_steps of z_{t+1} = z_t·A (canonical product), row-major (steps+1) × dim.
std::vector<double> Trajectory(const std::vector<double>& z0, const std::vector<double>& a,
                               int64_t steps) {
  std::vector<double> states;
  RolloutObserver record = [&](int64_t, std::span<const double> z) {
    states.insert(states.end(), z.begin(), z.end());
    return OkStatus();
  };
  StatusOr<RolloutResult> r =
      Rollout(z0, a, {.steps = steps, .hash_every = steps + 1, .observe_every = 1}, record);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return states;
}

double MaxAbsDiff(const std::vector<double>& a, const std::vector<double>& b) {
  double m = 0;
  for (size_t k = 0; k < a.size(); ++k) m = std::max(m, std::abs(a[k] - b[k]));
  return m;
}

double FrobeniusNorm(const std::vector<double>& a) {
  double s = 0;
  for (double x : a) s += x * x;
  return std::sqrt(s);
}

// (ZᵀZ + λI)·A = ZᵀY formed and solved by Gaussian elimination with partial pivoting, all in
// long double: an independent check of the fp64 Cholesky path.
std::vector<double> NaiveRidgeLongDouble(const std::vector<double>& z, const std::vector<double>& y,
                                         int64_t samples, int64_t dim, double lambda) {
  const int64_t d = dim;
  std::vector<long double> g(d * d, 0.0L), b(d * d, 0.0L);
  for (int64_t t = 0; t < samples; ++t) {
    for (int64_t i = 0; i < d; ++i) {
      for (int64_t k = 0; k < d; ++k) {
        g[i * d + k] += static_cast<long double>(z[t * d + i]) * z[t * d + k];
        b[i * d + k] += static_cast<long double>(z[t * d + i]) * y[t * d + k];
      }
    }
  }
  for (int64_t i = 0; i < d; ++i) g[i * d + i] += lambda;
  for (int64_t col = 0; col < d; ++col) {
    int64_t piv = col;
    for (int64_t r = col + 1; r < d; ++r) {
      if (std::abs(g[r * d + col]) > std::abs(g[piv * d + col])) piv = r;
    }
    for (int64_t c = 0; c < d; ++c) {
      std::swap(g[col * d + c], g[piv * d + c]);
      std::swap(b[col * d + c], b[piv * d + c]);
    }
    for (int64_t r = col + 1; r < d; ++r) {
      const long double f = g[r * d + col] / g[col * d + col];
      for (int64_t c = 0; c < d; ++c) {
        g[r * d + c] -= f * g[col * d + c];
        b[r * d + c] -= f * b[col * d + c];
      }
    }
  }
  std::vector<long double> x(d * d);
  for (int64_t r = d - 1; r >= 0; --r) {
    for (int64_t c = 0; c < d; ++c) {
      long double s = b[r * d + c];
      for (int64_t k = r + 1; k < d; ++k) s -= g[r * d + k] * x[k * d + c];
      x[r * d + c] = s / g[r * d + r];
    }
  }
  return std::vector<double>(x.begin(), x.end());
}

// The orders documented in ridge.h, written out literally (scalar loops, row-by-row Cholesky,
// one output entry at a time). FitRidge must match it bit for bit.
std::vector<double> LiteralOrderRidge(const std::vector<double>& z, const std::vector<double>& y,
                                      int64_t samples, int64_t dim, double lambda) {
  const int64_t d = dim;
  std::vector<double> g(d * d, 0.0), b(d * d), l(d * d, 0.0), w(d * d), a(d * d);
  for (int64_t i = 0; i < d; ++i) {
    for (int64_t k = 0; k <= i; ++k) {
      double acc = z[i] * z[k];
      for (int64_t t = 1; t < samples; ++t) acc = acc + z[t * d + i] * z[t * d + k];
      g[i * d + k] = acc;
    }
    g[i * d + i] = g[i * d + i] + lambda;
    for (int64_t j = 0; j < d; ++j) {
      double acc = z[i] * y[j];
      for (int64_t t = 1; t < samples; ++t) acc = acc + z[t * d + i] * y[t * d + j];
      b[i * d + j] = acc;
    }
  }
  for (int64_t i = 0; i < d; ++i) {
    for (int64_t j = 0; j <= i; ++j) {
      double s = g[i * d + j];
      for (int64_t k = 0; k < j; ++k) s = s - l[i * d + k] * l[j * d + k];
      l[i * d + j] = j < i ? s / l[j * d + j] : std::sqrt(s);
    }
  }
  for (int64_t i = 0; i < d; ++i) {
    for (int64_t c = 0; c < d; ++c) {
      double s = b[i * d + c];
      for (int64_t k = 0; k < i; ++k) s = s - l[i * d + k] * w[k * d + c];
      w[i * d + c] = s / l[i * d + i];
    }
  }
  for (int64_t i = d - 1; i >= 0; --i) {
    for (int64_t c = 0; c < d; ++c) {
      double s = w[i * d + c];
      for (int64_t k = i + 1; k < d; ++k) s = s - l[k * d + i] * a[k * d + c];
      a[i * d + c] = s / l[i * d + i];
    }
  }
  return a;
}

TEST(RidgeTest, FollowsTheDocumentedOrderBitForBit) {
  Xoshiro256ss rng(17);
  for (auto [samples, dim, lambda] : {std::tuple<int64_t, int64_t, double>{1, 1, 0.5},
                                      {2, 3, 0.25},
                                      {7, 5, 1e-3},
                                      {50, 12, 0.1},
                                      {33, 37, 2.0},
                                      {101, 67, 1e-6},
                                      {130, 9, 0.0}}) {
    const std::vector<double> z = RandomValues(rng, samples * dim, 3.0);
    const std::vector<double> y = RandomValues(rng, samples * dim, 1.0);
    StatusOr<std::vector<double>> a = FitRidge(z, y, samples, dim, lambda);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    const std::vector<double> want = LiteralOrderRidge(z, y, samples, dim, lambda);
    EXPECT_EQ(std::memcmp(a->data(), want.data(), want.size() * sizeof(double)), 0)
        << samples << " x " << dim;
  }
}

TEST(RidgeTest, RecoversKnownDynamicsFromNoiseFreeTrajectory) {
  Xoshiro256ss rng(11);
  const int64_t dim = 6;
  const std::vector<double> a_true = RandomOrthogonal(rng, dim);
  const std::vector<double> z0 = RandomValues(rng, dim, 1.0);
  const std::vector<double> states = Trajectory(z0, a_true, 80);
  StatusOr<RegressionPairs> pairs = PairsFromTrajectory(states, 81, dim);
  ASSERT_TRUE(pairs.ok()) << pairs.status().ToString();
  EXPECT_EQ(pairs->samples, 80);
  StatusOr<std::vector<double>> a = FitRidge(pairs->z, pairs->y, pairs->samples, dim, 1e-12);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_LT(MaxAbsDiff(*a, a_true), 1e-8);
}

TEST(RidgeTest, RecoversKnownMatrixFromRandomInputs) {
  Xoshiro256ss rng(12);
  const int64_t dim = 40, samples = 120;
  const std::vector<double> a_true = RandomValues(rng, dim * dim, 0.3);
  const std::vector<double> z = RandomValues(rng, samples * dim, 1.0);
  std::vector<double> y(samples * dim);
  for (int64_t t = 0; t < samples; ++t) {
    ASSERT_TRUE(CanonicalVecMat(std::span<const double>(z).subspan(t * dim, dim), a_true,
                                std::span<double>(y).subspan(t * dim, dim))
                    .ok());
  }
  StatusOr<std::vector<double>> a = FitRidge(z, y, samples, dim, 0.0);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_LT(MaxAbsDiff(*a, a_true), 1e-10);
}

TEST(RidgeTest, LargeLambdaShrinksTowardZero) {
  Xoshiro256ss rng(13);
  const int64_t dim = 8, samples = 30;
  const std::vector<double> z = RandomValues(rng, samples * dim, 1.0);
  const std::vector<double> y = RandomValues(rng, samples * dim, 1.0);
  double previous = std::numeric_limits<double>::infinity();
  for (double lambda : {0.0, 0.1, 1.0, 10.0, 100.0, 1e4}) {
    StatusOr<std::vector<double>> a = FitRidge(z, y, samples, dim, lambda);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    const double norm = FrobeniusNorm(*a);
    EXPECT_LT(norm, previous) << "lambda " << lambda;
    previous = norm;
  }
  StatusOr<std::vector<double>> a = FitRidge(z, y, samples, dim, 1e12);
  ASSERT_TRUE(a.ok());
  for (double x : *a) EXPECT_LT(std::abs(x), 1e-9);
}

TEST(RidgeTest, MatchesLongDoubleGaussianElimination) {
  Xoshiro256ss rng(14);
  for (auto [samples, dim, lambda] : {std::tuple<int64_t, int64_t, double>{50, 12, 0.1},
                                      {200, 33, 1e-3},
                                      {20, 30, 0.5},  // fewer samples than dim: λ regularises
                                      {3, 1, 0.0}}) {
    const std::vector<double> z = RandomValues(rng, samples * dim, 2.0);
    const std::vector<double> y = RandomValues(rng, samples * dim, 1.0);
    StatusOr<std::vector<double>> a = FitRidge(z, y, samples, dim, lambda);
    ASSERT_TRUE(a.ok()) << a.status().ToString();
    const std::vector<double> ref = NaiveRidgeLongDouble(z, y, samples, dim, lambda);
    double scale = 0;
    for (double x : ref) scale = std::max(scale, std::abs(x));
    EXPECT_LT(MaxAbsDiff(*a, ref), 1e-10 * scale) << samples << " x " << dim;
  }
}

TEST(RidgeTest, RankDeficientWithoutRegularisationFails) {
  Xoshiro256ss rng(15);
  const int64_t dim = 5, samples = 20;
  std::vector<double> z = RandomValues(rng, samples * dim, 1.0);
  const std::vector<double> y = RandomValues(rng, samples * dim, 1.0);
  // Coordinate 2 is always zero: pivot 2 is exactly 0.
  for (int64_t t = 0; t < samples; ++t) z[t * dim + 2] = 0.0;
  StatusOr<std::vector<double>> a = FitRidge(z, y, samples, dim, 0.0);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(a.status().message().find("pivot 2 "), std::string::npos) << a.status().ToString();
  // With λ > 0 the same data are fine (that coordinate's row of A is 0).
  a = FitRidge(z, y, samples, dim, 1e-3);
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  for (int64_t j = 0; j < dim; ++j) EXPECT_EQ((*a)[2 * dim + j], 0.0);

  // Coordinate 4 duplicates coordinate 1: numerically singular.
  z = RandomValues(rng, samples * dim, 1.0);
  for (int64_t t = 0; t < samples; ++t) z[t * dim + 4] = z[t * dim + 1];
  a = FitRidge(z, y, samples, dim, 0.0);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(a.status().message().find("pivot 4 "), std::string::npos) << a.status().ToString();

  // Fewer samples than dim.
  const std::vector<double> z3 = RandomValues(rng, 3 * dim, 1.0);
  const std::vector<double> y3 = RandomValues(rng, 3 * dim, 1.0);
  a = FitRidge(z3, y3, 3, dim, 0.0);
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), StatusCode::kFailedPrecondition);
}

TEST(RidgeTest, DeterministicBytes) {
  Xoshiro256ss rng(16);
  const int64_t dim = 37, samples = 90;
  const std::vector<double> z = RandomValues(rng, samples * dim, 1.0);
  const std::vector<double> y = RandomValues(rng, samples * dim, 1.0);
  StatusOr<std::vector<double>> a1 = FitRidge(z, y, samples, dim, 0.01);
  StatusOr<std::vector<double>> a2 = FitRidge(z, y, samples, dim, 0.01);
  ASSERT_TRUE(a1.ok() && a2.ok());
  EXPECT_EQ(std::memcmp(a1->data(), a2->data(), a1->size() * sizeof(double)), 0);
}

// D = 1, T = 2: G = z0² + z1² + λ, B = z0·y0 + z1·y1, A = B / G (Cholesky: sqrt then two
// divisions, exact here because every intermediate is a small dyadic number).
TEST(RidgeTest, HandCheckedScalarCase) {
  const std::vector<double> z = {1.0, 2.0}, y = {3.0, 4.0};
  StatusOr<std::vector<double>> a = FitRidge(z, y, 2, 1, 11.0);  // (3 + 8) / (1 + 4 + 11)
  ASSERT_TRUE(a.ok());
  EXPECT_EQ((*a)[0], 11.0 / 16.0);
}

TEST(RidgeTest, PairsFromTrajectory) {
  const std::vector<double> states = {1, 2, 3, 4, 5, 6};  // 3 states of dim 2
  StatusOr<RegressionPairs> p = PairsFromTrajectory(states, 3, 2);
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->samples, 2);
  EXPECT_EQ(p->dim, 2);
  EXPECT_EQ(p->z, (std::vector<double>{1, 2, 3, 4}));
  EXPECT_EQ(p->y, (std::vector<double>{3, 4, 5, 6}));
  EXPECT_EQ(PairsFromTrajectory(states, 1, 6).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(PairsFromTrajectory(states, 2, 2).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(PairsFromTrajectory(states, 3, 0).status().code(), StatusCode::kInvalidArgument);
  std::vector<double> bad = states;
  bad[5] = std::numeric_limits<double>::quiet_NaN();
  Status s = PairsFromTrajectory(bad, 3, 2).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("state 2 index 1"), std::string::npos) << s.ToString();
}

TEST(RidgeTest, RejectsInvalidArguments) {
  const std::vector<double> z = {1, 2, 3, 4}, y = {1, 0, 0, 1};
  EXPECT_TRUE(FitRidge(z, y, 2, 2, 0.0).ok());
  EXPECT_EQ(FitRidge(z, y, 2, 2, -1.0).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(FitRidge(z, y, 2, 2, std::numeric_limits<double>::quiet_NaN()).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(FitRidge(z, y, 2, 2, std::numeric_limits<double>::infinity()).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(FitRidge(z, y, 4, 2, 0.0).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(FitRidge(z, y, 0, 2, 1.0).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(FitRidge(z, y, 2, 0, 1.0).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(FitRidge(z, std::vector<double>{1, 2, 3}, 2, 2, 1.0).status().code(),
            StatusCode::kInvalidArgument);
  std::vector<double> bad = z;
  bad[3] = -std::numeric_limits<double>::infinity();
  Status s = FitRidge(bad, y, 2, 2, 1.0).status();
  EXPECT_EQ(s.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(s.message().find("Z[1][1]"), std::string::npos) << s.ToString();
  const std::vector<double> huge = {1e200, 1, 1, 1};
  EXPECT_EQ(FitRidge(huge, y, 2, 2, 1.0).status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace dashi
