// What a Vulkan device reports about itself that the ops choose their shaders by: the 64-bit
// float controls (which float-controls variant of a bit-exact shader to load) and the SM count
// of NVIDIA devices (how many workgroups of a persistent kernel can be resident together).
//
//   const Float64Controls fc = QueryFloat64Controls(ctx);
//   const uint32_t variant = SupportedFloatControlsVariant(fc);   // index of kRolloutFusedVariants
//   if (const std::optional<SmInfo> sm = QuerySmInfo(ctx)) { ... sm->sm_count ... }
#ifndef DASHI_ACCEL_VULKAN_DEVICE_CAPS_DEVICE_CAPS_H_
#define DASHI_ACCEL_VULKAN_DEVICE_CAPS_DEVICE_CAPS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "accel_vulkan/context.h"
#include "shaders/float_controls_variants.h"

namespace dashi::vk {

// The 64-bit float controls a device reports (VkPhysicalDeviceFloatControlsProperties).
struct Float64Controls {
  bool denorm_preserve = false;               // shaderDenormPreserveFloat64
  bool denorm_flush_to_zero = false;          // shaderDenormFlushToZeroFloat64
  bool signed_zero_inf_nan_preserve = false;  // shaderSignedZeroInfNanPreserveFloat64
  bool rounding_mode_rte = false;             // shaderRoundingModeRTEFloat64
  bool rounding_mode_rtz = false;             // shaderRoundingModeRTZFloat64
  // "DenormPreserve=1 DenormFlushToZero=0 SignedZeroInfNanPreserve=1 RTE=1 RTZ=0"
  std::string ToString() const;
};

// Queries the context's physical device (needs Vulkan 1.2, where the struct is core; an older
// device reports nothing, i.e. all false).
Float64Controls QueryFloat64Controls(const VulkanContext& ctx);

// Bits of a shader float-controls variant, generated from shaders/defs.bzl: variant k declares
// each 64-bit execution mode whose bit is set in k.
inline constexpr uint32_t kVariantDenormPreserve = spirv::kFloatControlsDenormPreserve;
inline constexpr uint32_t kVariantSignedZeroInfNanPreserve =
    spirv::kFloatControlsSignedZeroInfNanPreserve;
inline constexpr uint32_t kVariantRoundingModeRte = spirv::kFloatControlsRoundingModeRte;
// The variant declaring every 64-bit float control the device reports.
uint32_t SupportedFloatControlsVariant(const Float64Controls& fc);
// "DenormPreserve+SignedZeroInfNanPreserve+RoundingModeRTE", or "none".
std::string FloatControlsVariantName(uint32_t variant);

// SM count and warps per SM from VK_NV_shader_sm_builtins, or nullopt when not supported.
struct SmInfo {
  uint32_t sm_count = 0;
  uint32_t warps_per_sm = 0;
};
std::optional<SmInfo> QuerySmInfo(const VulkanContext& ctx);

// The checks on the group count of a kernel whose workgroups wait on one another (the persistent
// rollout, the small-batch batched rollout): at most maxComputeWorkGroupCount[0], and more than
// one only on a device that reports its SM count (so the count can be sized to be resident
// together) unless the caller allows it. `kernel` prefixes the message; `remedy` ends it.
Status CheckWaitingWorkgroups(const VulkanContext& ctx, const std::string& kernel, uint64_t groups,
                              bool has_sm_count, bool allow_unverified,
                              const std::string& remedy);

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_DEVICE_CAPS_DEVICE_CAPS_H_
