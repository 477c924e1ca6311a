#include "core_ref/learner/ridge.h"

#include <cmath>
#include <exception>
#include <new>
#include <sstream>
#include <string>

namespace dashi {
namespace {

#if defined(__GNUC__)
#define DASHI_RESTRICT __restrict__
#else
#define DASHI_RESTRICT
#endif

// Element-wise loops over fixed blocks of kLanes (a compile-time trip count lets GCC's -O2
// vectoriser take them); vectorising over the element index never changes an element's order.
constexpr int64_t kLanes = 8;

// dst[k] = s·src[k]
void Scaled(double* DASHI_RESTRICT dst, const double* DASHI_RESTRICT src, double s, int64_t n) {
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes) {
    for (int64_t l = 0; l < kLanes; ++l) dst[k + l] = s * src[k + l];
  }
  for (; k < n; ++k) dst[k] = s * src[k];
}

// dst[k] = dst[k] + s·src[k]
void AddScaled(double* DASHI_RESTRICT dst, const double* DASHI_RESTRICT src, double s,
               int64_t n) {
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes) {
    for (int64_t l = 0; l < kLanes; ++l) dst[k + l] = dst[k + l] + s * src[k + l];
  }
  for (; k < n; ++k) dst[k] = dst[k] + s * src[k];
}

// dst[k] = dst[k] − s·src[k]
void SubScaled(double* DASHI_RESTRICT dst, const double* DASHI_RESTRICT src, double s,
               int64_t n) {
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes) {
    for (int64_t l = 0; l < kLanes; ++l) dst[k + l] = dst[k + l] - s * src[k + l];
  }
  for (; k < n; ++k) dst[k] = dst[k] - s * src[k];
}

// dst[k] = (((dst[k] + s0·x0[k]) + s1·x1[k]) + s2·x2[k]) + s3·x3[k]: four AddScaled in a row,
// fused so dst is read and written once.
void AddScaled4(double* DASHI_RESTRICT dst, const double* DASHI_RESTRICT x0,
                const double* DASHI_RESTRICT x1, const double* DASHI_RESTRICT x2,
                const double* DASHI_RESTRICT x3, double s0, double s1, double s2, double s3,
                int64_t n) {
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes) {
    for (int64_t l = 0; l < kLanes; ++l) {
      double v = dst[k + l] + s0 * x0[k + l];
      v = v + s1 * x1[k + l];
      v = v + s2 * x2[k + l];
      dst[k + l] = v + s3 * x3[k + l];
    }
  }
  for (; k < n; ++k) {
    double v = dst[k] + s0 * x0[k];
    v = v + s1 * x1[k];
    v = v + s2 * x2[k];
    dst[k] = v + s3 * x3[k];
  }
}

// dst[k] = (((dst[k] − s0·x0[k]) − s1·x1[k]) − s2·x2[k]) − s3·x3[k] (four SubScaled, fused).
void SubScaled4(double* DASHI_RESTRICT dst, const double* DASHI_RESTRICT x0,
                const double* DASHI_RESTRICT x1, const double* DASHI_RESTRICT x2,
                const double* DASHI_RESTRICT x3, double s0, double s1, double s2, double s3,
                int64_t n) {
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes) {
    for (int64_t l = 0; l < kLanes; ++l) {
      double v = dst[k + l] - s0 * x0[k + l];
      v = v - s1 * x1[k + l];
      v = v - s2 * x2[k + l];
      dst[k + l] = v - s3 * x3[k + l];
    }
  }
  for (; k < n; ++k) {
    double v = dst[k] - s0 * x0[k];
    v = v - s1 * x1[k];
    v = v - s2 * x2[k];
    dst[k] = v - s3 * x3[k];
  }
}

// dst[k] = dst[k] / d
void DivideBy(double* DASHI_RESTRICT dst, double d, int64_t n) {
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes) {
    for (int64_t l = 0; l < kLanes; ++l) dst[k + l] = dst[k + l] / d;
  }
  for (; k < n; ++k) dst[k] = dst[k] / d;
}

std::string Num(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

Status CheckMatrix(std::span<const double> m, int64_t rows, int64_t cols, const char* name) {
  if (static_cast<int64_t>(m.size()) != rows * cols) {
    return InvalidArgumentError(std::string("ridge: ") + name + " has " +
                                std::to_string(m.size()) + " entries, expected samples x dim = " +
                                std::to_string(rows) + " x " + std::to_string(cols));
  }
  for (size_t k = 0; k < m.size(); ++k) {
    if (!std::isfinite(m[k])) {
      return InvalidArgumentError(std::string("ridge: ") + name + "[" + std::to_string(k / cols) +
                                  "][" + std::to_string(k % cols) + "] = " + Num(m[k]) +
                                  " is not finite");
    }
  }
  return OkStatus();
}

StatusOr<std::vector<double>> FitRidgeImpl(std::span<const double> z, std::span<const double> y,
                                           int64_t samples, int64_t dim, double lambda) {
  if (samples < 1) {
    return InvalidArgumentError("ridge: samples = " + std::to_string(samples) + " must be >= 1");
  }
  if (dim < 1) return InvalidArgumentError("ridge: dim = " + std::to_string(dim) + " must be >= 1");
  if (samples > (int64_t{1} << 40) / dim || dim > (int64_t{1} << 20)) {
    return InvalidArgumentError("ridge: samples x dim = " + std::to_string(samples) + " x " +
                                std::to_string(dim) + " is too large");
  }
  if (!std::isfinite(lambda) || lambda < 0.0) {
    return InvalidArgumentError("ridge: lambda = " + Num(lambda) +
                                " must be finite and >= 0");
  }
  DASHI_RETURN_IF_ERROR(CheckMatrix(z, samples, dim, "Z"));
  DASHI_RETURN_IF_ERROR(CheckMatrix(y, samples, dim, "Y"));

  const int64_t d = dim;
  const size_t dd = static_cast<size_t>(d * d);
  // G = ZᵀZ (lower triangle, row i holds k = 0..i) and B = ZᵀY, sequential over t per entry.
  // Row i of G and B stays in L1 while the rows of Z and Y stream past, four samples at a time.
  std::vector<double> g(dd, 0.0);
  std::vector<double> b(dd, 0.0);
  const double* zd = z.data();
  const double* yd = y.data();
  for (int64_t i = 0; i < d; ++i) {
    double* grow = g.data() + i * d;
    double* brow = b.data() + i * d;
    Scaled(grow, zd, zd[i], i + 1);
    Scaled(brow, yd, zd[i], d);
    int64_t t = 1;
    for (; t + 4 <= samples; t += 4) {
      const double* z0 = zd + t * d;
      const double* y0 = yd + t * d;
      const double s0 = z0[i], s1 = z0[d + i], s2 = z0[2 * d + i], s3 = z0[3 * d + i];
      AddScaled4(grow, z0, z0 + d, z0 + 2 * d, z0 + 3 * d, s0, s1, s2, s3, i + 1);
      AddScaled4(brow, y0, y0 + d, y0 + 2 * d, y0 + 3 * d, s0, s1, s2, s3, d);
    }
    for (; t < samples; ++t) {
      AddScaled(grow, zd + t * d, zd[t * d + i], i + 1);
      AddScaled(brow, yd + t * d, zd[t * d + i], d);
    }
  }
  for (int64_t i = 0; i < d; ++i) g[i * d + i] = g[i * d + i] + lambda;
  for (int64_t i = 0; i < d; ++i) {
    for (int64_t k = 0; k <= i; ++k) {
      if (!std::isfinite(g[i * d + k])) {
        return InvalidArgumentError("ridge: Z^T Z overflowed at [" + std::to_string(i) + "][" +
                                    std::to_string(k) + "] (inputs too large)");
      }
    }
  }
  for (size_t k = 0; k < dd; ++k) {
    if (!std::isfinite(b[k])) {
      return InvalidArgumentError("ridge: Z^T Y overflowed at [" + std::to_string(k / d) + "][" +
                                  std::to_string(k % d) + "] (inputs too large)");
    }
  }

  // Cholesky in place: the lower triangle of g becomes L. Evaluated column by column (every
  // entry's own order is the one documented; only independent entries are interleaved): the
  // pivot of column j first, then rows i > j four at a time, so four dot products run side by side.
  const double tolerance = static_cast<double>(d) * 0x1.0p-52;
  for (int64_t j = 0; j < d; ++j) {
    double* lj = g.data() + j * d;
    const double diagonal = lj[j];  // G[j][j] + λ
    double pivot = diagonal;
    for (int64_t k = 0; k < j; ++k) pivot = pivot - lj[k] * lj[k];
    if (!(pivot > tolerance * diagonal)) {
      return FailedPreconditionError(
          "ridge: Z^T Z + lambda*I is not positive definite: Cholesky pivot " +
          std::to_string(j) + " = " + Num(pivot) + " (diagonal " + Num(diagonal) + ", lambda " +
          Num(lambda) +
          "); Z is rank-deficient (fewer samples than dim, or a zero or repeated coordinate) — "
          "use lambda > 0");
    }
    const double ljj = std::sqrt(pivot);
    lj[j] = ljj;
    int64_t i = j + 1;
    for (; i + 4 <= d; i += 4) {
      double* l0 = g.data() + i * d;
      double* l1 = l0 + d;
      double* l2 = l0 + 2 * d;
      double* l3 = l0 + 3 * d;
      double s0 = l0[j], s1 = l1[j], s2 = l2[j], s3 = l3[j];
      for (int64_t k = 0; k < j; ++k) {
        const double v = lj[k];
        s0 = s0 - l0[k] * v;
        s1 = s1 - l1[k] * v;
        s2 = s2 - l2[k] * v;
        s3 = s3 - l3[k] * v;
      }
      l0[j] = s0 / ljj;
      l1[j] = s1 / ljj;
      l2[j] = s2 / ljj;
      l3[j] = s3 / ljj;
    }
    for (; i < d; ++i) {
      double* li = g.data() + i * d;
      double s = li[j];
      for (int64_t k = 0; k < j; ++k) s = s - li[k] * lj[k];
      li[j] = s / ljj;
    }
  }

  // Forward substitution L·W = B (in place in b), then backward Lᵀ·A = W (in place). Each row is
  // updated by the earlier (later) rows in ascending k, four at a time, then divided.
  for (int64_t i = 0; i < d; ++i) {
    double* wi = b.data() + i * d;
    const double* li = g.data() + i * d;
    int64_t k = 0;
    for (; k + 4 <= i; k += 4) {
      const double* w0 = b.data() + k * d;
      SubScaled4(wi, w0, w0 + d, w0 + 2 * d, w0 + 3 * d, li[k], li[k + 1], li[k + 2], li[k + 3],
                 d);
    }
    for (; k < i; ++k) SubScaled(wi, b.data() + k * d, li[k], d);
    DivideBy(wi, li[i], d);
  }
  for (int64_t i = d - 1; i >= 0; --i) {
    double* ai = b.data() + i * d;
    int64_t k = i + 1;
    for (; k + 4 <= d; k += 4) {
      const double* a0 = b.data() + k * d;
      SubScaled4(ai, a0, a0 + d, a0 + 2 * d, a0 + 3 * d, g[k * d + i], g[(k + 1) * d + i],
                 g[(k + 2) * d + i], g[(k + 3) * d + i], d);
    }
    for (; k < d; ++k) SubScaled(ai, b.data() + k * d, g[k * d + i], d);
    DivideBy(ai, g[i * d + i], d);
  }
  for (size_t k = 0; k < dd; ++k) {
    if (!std::isfinite(b[k])) {
      return FailedPreconditionError("ridge: the solution overflowed at A[" +
                                     std::to_string(k / d) + "][" + std::to_string(k % d) +
                                     "] (ill-conditioned; increase lambda)");
    }
  }
  return b;
}

}  // namespace

StatusOr<RegressionPairs> PairsFromTrajectory(std::span<const double> states, int64_t num_states,
                                              int64_t dim) {
  if (dim < 1) {
    return InvalidArgumentError("trajectory: dim = " + std::to_string(dim) + " must be >= 1");
  }
  if (num_states < 2) {
    return InvalidArgumentError("trajectory: " + std::to_string(num_states) +
                                " states; at least 2 are needed for one (z_t, z_t+1) pair");
  }
  if (num_states > static_cast<int64_t>(states.size()) / dim ||
      static_cast<int64_t>(states.size()) != num_states * dim) {
    return InvalidArgumentError("trajectory: " + std::to_string(states.size()) +
                                " values, expected num_states x dim = " +
                                std::to_string(num_states) + " x " + std::to_string(dim));
  }
  for (size_t k = 0; k < states.size(); ++k) {
    if (!std::isfinite(states[k])) {
      return InvalidArgumentError("trajectory: state " + std::to_string(k / dim) + " index " +
                                  std::to_string(k % dim) + " = " + Num(states[k]) +
                                  " is not finite");
    }
  }
  try {
    RegressionPairs p;
    p.samples = num_states - 1;
    p.dim = dim;
    const size_t n = static_cast<size_t>(p.samples * dim);
    p.z.assign(states.begin(), states.begin() + n);
    p.y.assign(states.begin() + dim, states.end());
    return p;
  } catch (const std::bad_alloc&) {
    return ResourceExhaustedError("trajectory: out of memory");
  }
}

StatusOr<std::vector<double>> FitRidge(std::span<const double> z, std::span<const double> y,
                                       int64_t samples, int64_t dim, double lambda) {
  try {
    return FitRidgeImpl(z, y, samples, dim, lambda);
  } catch (const std::bad_alloc&) {
    return ResourceExhaustedError("ridge: out of memory");
  } catch (const std::exception& e) {
    return InternalError(std::string("ridge: unexpected exception: ") + e.what());
  }
}

}  // namespace dashi
