// Seeded inputs shared by the batched rollout's test, benchmark and conformance cases (one
// definition, so a seed printed by any of them replays the same data in the others).
//
//   std::vector<double> a = DecayingMatrix(D, /*seed=*/1);              // D×D
//   std::vector<double> z0 = NonZeroUniform(B * D, /*seed=*/2, 1.0);     // B×D
#ifndef DASHI_ACCEL_VULKAN_BATCHED_BATCHED_INPUTS_H_
#define DASHI_ACCEL_VULKAN_BATCHED_BATCHED_INPUTS_H_

#include <cstddef>
#include <cstdint>
#include <vector>

namespace dashi::vk {

// n values of magnitude uniform in [0.5, 1)·scale with random signs (Xoshiro256** from `seed`:
// magnitude draw, then sign bit). Never zero: no product of the contract is trivially ±0, so a
// wrong order or a skipped product shows in the bits.
std::vector<double> NonZeroUniform(size_t n, uint64_t seed, double scale);

// A D×D row-major matrix of NonZeroUniform entries with scale 0.9/sqrt(D): |z·A| ≈ 0.69·|z| per
// step, so states stay normal for more than a thousand steps (≈ 1e-163 after 1000).
std::vector<double> DecayingMatrix(int64_t dim, uint64_t seed);

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_BATCHED_BATCHED_INPUTS_H_
