#include "core_ref/testing/random_inputs.h"

#include <cmath>
#include <utility>

#include "core_ref/carrier/pda_threshold.h"
#include "core_ref/carrier/smoothing.h"

namespace dashi::testing {

std::vector<double> UniformValues(Xoshiro256ss& rng, size_t n, double scale) {
  std::vector<double> v(n);
  for (double& x : v) x = (2.0 * rng.NextDouble() - 1.0) * scale;
  return v;
}

std::vector<double> UniformValues(size_t n, uint64_t seed, double scale) {
  Xoshiro256ss rng(seed);
  return UniformValues(rng, n, scale);
}

std::vector<double> NonZeroUniform(size_t n, uint64_t seed, double scale) {
  Xoshiro256ss rng(seed);
  std::vector<double> v(n);
  for (double& x : v) {
    const double magnitude = (0.5 + 0.5 * rng.NextDouble()) * scale;
    x = (rng.Next() & 1) != 0 ? magnitude : -magnitude;
  }
  return v;
}

namespace {
double MatrixScale(int64_t dim) { return 0.9 / std::sqrt(static_cast<double>(dim)); }
}  // namespace

std::vector<double> StableMatrix(int64_t dim, uint64_t seed) {
  return UniformValues(static_cast<size_t>(dim * dim), seed, MatrixScale(dim));
}

std::vector<double> DecayingMatrix(int64_t dim, uint64_t seed) {
  return NonZeroUniform(static_cast<size_t>(dim * dim), seed, MatrixScale(dim));
}

std::vector<GridShape> PropertyTestShapes() {
  return {{1, 1}, {1, 2}, {2, 1}, {1, 17}, {17, 1}, {2, 2}, {3, 3}, {5, 7},
          {8, 8}, {16, 16}, {31, 33}, {32, 8}, {4, 64}, {64, 4}, {63, 65}};
}

Carrier RandomCarrier(GridShape shape, uint64_t seed, double p_zero) {
  Xoshiro256ss rng(seed);
  std::vector<int8_t> v(static_cast<size_t>(shape.size()));
  for (int8_t& x : v) {
    if (rng.NextDouble() < p_zero) {
      x = 0;
    } else {
      x = (rng.Next() >> 63) ? 1 : -1;
    }
  }
  return *Carrier::FromValues(shape, std::move(v));
}

RealField RandomField(GridShape shape, uint64_t seed, double scale) {
  return *RealField::FromValues(shape,
                                UniformValues(static_cast<size_t>(shape.size()), seed, scale));
}

Carrier BlobCarrier(GridShape shape, uint64_t seed, double tau) {
  RealField f = RandomField(shape, seed);
  const SmoothingParams box{SmoothingKernel::kBox, 2};
  f = *Smooth(*Smooth(f, box), box);
  return *PdaThreshold(NormalizeByMaxAbs(f), {tau});
}

std::string ReplayTag(uint64_t seed, GridShape shape) {
  return "seed=" + std::to_string(seed) + " shape=" + ToString(shape);
}

}  // namespace dashi::testing
