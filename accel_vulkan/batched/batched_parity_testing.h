// Test helper of the persistent batched kernels (small-batch, column-slice, tiled persistent):
// runs B rows on the device with the given options and compares every row's chain, final state
// and observed states (observe_every of the params, through the sink) with core_ref's
// RolloutBatch, bit for bit, then the guard words; and checks that a row that blows up gives
// core_ref's error.
#ifndef DASHI_ACCEL_VULKAN_BATCHED_BATCHED_PARITY_TESTING_H_
#define DASHI_ACCEL_VULKAN_BATCHED_BATCHED_PARITY_TESTING_H_

#include <cstdint>
#include <span>

#include "accel_vulkan/batched/vulkan_batched_rollout.h"
#include "accel_vulkan/context.h"
#include "core_ref/rollout/rollout.h"

namespace dashi::vk::testing {

// Whether two arrays hold the same bits.
bool SameBits(std::span<const double> a, std::span<const double> b);

// A = DecayingMatrix(dim, seed), Z0 = NonZeroUniform(B·D, seed + 1); the Run() must take
// `expected` (options.kernel, or what kAuto picks). Failures are gtest expectations, traced with
// B, D and the seeds.
void ExpectBatchedMatchesRolloutBatch(VulkanContext& ctx, int64_t batch, int64_t dim,
                                      const RolloutParams& p,
                                      const VulkanBatchedRolloutOptions& options, uint64_t seed,
                                      BatchedKernel expected);

// A row that overflows to ±inf mid-run (D = 90, B = 5: row 3 starts at 1e100 times the others,
// A is scaled by 1e25; 60 steps, hashes every 25; A = DecayingMatrix(90, seed), Z0 =
// NonZeroUniform(450, seed + 1)): Run() with `options` must return core_ref's RolloutBatch
// status, OUT_OF_RANGE naming the step and the row.
void ExpectNonFiniteStateGivesCoreRefsError(VulkanContext& ctx,
                                            const VulkanBatchedRolloutOptions& options,
                                            uint64_t seed);

}  // namespace dashi::vk::testing

#endif  // DASHI_ACCEL_VULKAN_BATCHED_BATCHED_PARITY_TESTING_H_
