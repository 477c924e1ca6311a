// Push constants of shaders/rollout/rollout_partials.comp, rollout_combine.comp and
// rollout_fused.comp (all three kernels take the same block), mirrored field for field.
#ifndef DASHI_ACCEL_VULKAN_ROLLOUT_ROLLOUT_SHADER_PARAMS_H_
#define DASHI_ACCEL_VULKAN_ROLLOUT_ROLLOUT_SHADER_PARAMS_H_

#include <cstddef>
#include <cstdint>

#include "core_ref/rollout/vecmat.h"

namespace dashi::vk {

struct RolloutPushConstants {
  uint32_t dim;     // D
  uint32_t chunks;  // m = ceil(D / kRolloutChunk)
};
static_assert(offsetof(RolloutPushConstants, dim) == 0);
static_assert(offsetof(RolloutPushConstants, chunks) == 4);
static_assert(sizeof(RolloutPushConstants) == 8);

// The shaders hard-code the contract's chunk size (const uint kChunk = 64u).
static_assert(kRolloutChunk == 64, "shaders/rollout/*.comp hard-code kRolloutChunk = 64");

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_ROLLOUT_ROLLOUT_SHADER_PARAMS_H_
