// Push constants of shaders/smoke_affine_f64.comp, mirrored field for field.
#ifndef DASHI_ACCEL_VULKAN_SMOKE_AFFINE_PARAMS_H_
#define DASHI_ACCEL_VULKAN_SMOKE_AFFINE_PARAMS_H_

#include <cstddef>
#include <cstdint>

namespace dashi::vk {

struct SmokeAffineParams {
  double scale;
  double shift;
  uint32_t n;
  uint32_t padding;
};
static_assert(offsetof(SmokeAffineParams, scale) == 0);
static_assert(offsetof(SmokeAffineParams, shift) == 8);
static_assert(offsetof(SmokeAffineParams, n) == 16);
static_assert(sizeof(SmokeAffineParams) == 24);

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_SMOKE_AFFINE_PARAMS_H_
