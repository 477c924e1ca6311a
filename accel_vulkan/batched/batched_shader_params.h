// Push constants of shaders/batched/batched_rollout.comp, mirrored field for field.
#ifndef DASHI_ACCEL_VULKAN_BATCHED_BATCHED_SHADER_PARAMS_H_
#define DASHI_ACCEL_VULKAN_BATCHED_BATCHED_SHADER_PARAMS_H_

#include <cstddef>
#include <cstdint>

#include "core_ref/rollout/vecmat.h"

namespace dashi::vk {

struct BatchedRolloutPushConstants {
  uint32_t dim;     // D
  uint32_t chunks;  // m = ceil(D / kRolloutChunk)
  uint32_t rows;    // B
};
static_assert(offsetof(BatchedRolloutPushConstants, dim) == 0);
static_assert(offsetof(BatchedRolloutPushConstants, chunks) == 4);
static_assert(offsetof(BatchedRolloutPushConstants, rows) == 8);
static_assert(sizeof(BatchedRolloutPushConstants) == 12);

// The shader hard-codes the contract's chunk size (const uint kChunk = 64u).
static_assert(kRolloutChunk == 64, "shaders/batched/batched_rollout.comp hard-codes 64");

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_BATCHED_BATCHED_SHADER_PARAMS_H_
