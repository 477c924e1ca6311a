#include "accel_vulkan/batched/batched_inputs.h"

#include <cmath>

#include "core_ref/prng/prng.h"

namespace dashi::vk {

std::vector<double> NonZeroUniform(size_t n, uint64_t seed, double scale) {
  Xoshiro256ss rng(seed);
  std::vector<double> out(n);
  for (double& x : out) {
    const double magnitude = (0.5 + 0.5 * rng.NextDouble()) * scale;
    x = (rng.Next() & 1) != 0 ? magnitude : -magnitude;
  }
  return out;
}

std::vector<double> DecayingMatrix(int64_t dim, uint64_t seed) {
  return NonZeroUniform(static_cast<size_t>(dim * dim), seed,
                        0.9 / std::sqrt(static_cast<double>(dim)));
}

}  // namespace dashi::vk
