// The device-side state of a closure run (CarrierClosure): the Control buffer block of
// shaders/carrier/carrier_closure_control.comp, mirrored field for field with static_asserts. The
// step dispatches read their group counts from `args` (vkCmdDispatchIndirect); the control shader
// zeroes every x count once the closure is finished, so the steps recorded after that are no-ops.
// (The other push constants and records of the carrier shaders are generated from one description:
// shaders/carrier/carrier_params.h. This block is written by hand because its GLSL form is a buffer
// block with uvec4 members, which the generator does not describe.)
#ifndef DASHI_ACCEL_VULKAN_CARRIER_CARRIER_CLOSURE_CONTROL_H_
#define DASHI_ACCEL_VULKAN_CARRIER_CARRIER_CLOSURE_CONTROL_H_

#include <cstddef>
#include <cstdint>

namespace dashi::vk {

inline constexpr uint32_t kClosureArgsCells = 0;  // one invocation per cell (window kernels)
inline constexpr uint32_t kClosureArgsRows = 1;   // one workgroup per row (level statistics)
inline constexpr uint32_t kClosureArgsOne = 2;    // one workgroup (the row reduction)
inline constexpr uint32_t kClosureArgsCount = 3;
struct CarrierDispatchArgs {  // a VkDispatchIndirectCommand, padded to 16 bytes (a uvec4)
  uint32_t x;
  uint32_t y;
  uint32_t z;
  uint32_t pad;
};
static_assert(sizeof(CarrierDispatchArgs) == 16);
struct CarrierClosureControl {
  uint32_t depth;      // steps that changed the carrier (the cap's check step never counts)
  uint32_t converged;  // 1 once a step changed nothing
  uint32_t steps;      // steps run so far (the converging step and the check step included)
  uint32_t pad;
  CarrierDispatchArgs args[kClosureArgsCount];
};
static_assert(offsetof(CarrierClosureControl, depth) == 0);
static_assert(offsetof(CarrierClosureControl, converged) == 4);
static_assert(offsetof(CarrierClosureControl, steps) == 8);
static_assert(offsetof(CarrierClosureControl, args) == 16);
static_assert(sizeof(CarrierClosureControl) == 64);

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_CARRIER_CARRIER_CLOSURE_CONTROL_H_
