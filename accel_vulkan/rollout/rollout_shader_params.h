// Push constants of the rollout shaders (shaders/rollout/), mirrored field for field:
// rollout_partials.comp, rollout_combine.comp and rollout_fused.comp take the same block.
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

// Push constants of shaders/rollout/rollout_persistent.comp.
struct RolloutPersistentPushConstants {
  uint32_t dim;         // D
  uint32_t chunks;      // m
  uint32_t steps;       // K ≥ 1: steps of this dispatch
  uint32_t tiles;       // ceil(D / T), T = workgroup size · outputs per invocation
  uint32_t sync_slot;   // arrival counter of this dispatch: sync word 1 + sync_slot
  uint32_t spin_limit;  // polls before a workgroup gives up on a device-wide barrier
};
static_assert(offsetof(RolloutPersistentPushConstants, dim) == 0);
static_assert(offsetof(RolloutPersistentPushConstants, chunks) == 4);
static_assert(offsetof(RolloutPersistentPushConstants, steps) == 8);
static_assert(offsetof(RolloutPersistentPushConstants, tiles) == 12);
static_assert(offsetof(RolloutPersistentPushConstants, sync_slot) == 16);
static_assert(offsetof(RolloutPersistentPushConstants, spin_limit) == 20);
static_assert(sizeof(RolloutPersistentPushConstants) == 24);

// The shaders hard-code the contract's chunk size (const uint kChunk = 64u).
static_assert(kRolloutChunk == 64, "shaders/rollout/*.comp hard-code kRolloutChunk = 64");

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_ROLLOUT_ROLLOUT_SHADER_PARAMS_H_
