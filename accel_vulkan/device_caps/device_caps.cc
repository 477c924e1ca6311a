#include "accel_vulkan/device_caps/device_caps.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace dashi::vk {

std::string Float64Controls::ToString() const {
  return std::string("DenormPreserve=") + (denorm_preserve ? "1" : "0") +
         " DenormFlushToZero=" + (denorm_flush_to_zero ? "1" : "0") +
         " SignedZeroInfNanPreserve=" + (signed_zero_inf_nan_preserve ? "1" : "0") +
         " RTE=" + (rounding_mode_rte ? "1" : "0") + " RTZ=" + (rounding_mode_rtz ? "1" : "0");
}

Float64Controls QueryFloat64Controls(const VulkanContext& ctx) {
  Float64Controls out;
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(ctx.physical_device(), &props);
  if (props.apiVersion < VK_API_VERSION_1_2) return out;
  VkPhysicalDeviceFloatControlsProperties fc{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FLOAT_CONTROLS_PROPERTIES};
  VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &fc};
  vkGetPhysicalDeviceProperties2(ctx.physical_device(), &p2);
  out.denorm_preserve = fc.shaderDenormPreserveFloat64 == VK_TRUE;
  out.denorm_flush_to_zero = fc.shaderDenormFlushToZeroFloat64 == VK_TRUE;
  out.signed_zero_inf_nan_preserve = fc.shaderSignedZeroInfNanPreserveFloat64 == VK_TRUE;
  out.rounding_mode_rte = fc.shaderRoundingModeRTEFloat64 == VK_TRUE;
  out.rounding_mode_rtz = fc.shaderRoundingModeRTZFloat64 == VK_TRUE;
  return out;
}

uint32_t SupportedFloatControlsVariant(const Float64Controls& fc) {
  return (fc.denorm_preserve ? kVariantDenormPreserve : 0u) |
         (fc.signed_zero_inf_nan_preserve ? kVariantSignedZeroInfNanPreserve : 0u) |
         (fc.rounding_mode_rte ? kVariantRoundingModeRte : 0u);
}

std::string FloatControlsVariantName(uint32_t variant) {
  std::string out;
  auto add = [&](const char* name) { out += (out.empty() ? "" : "+") + std::string(name); };
  if (variant & kVariantDenormPreserve) add("DenormPreserve");
  if (variant & kVariantSignedZeroInfNanPreserve) add("SignedZeroInfNanPreserve");
  if (variant & kVariantRoundingModeRte) add("RoundingModeRTE");
  return out.empty() ? "none" : out;
}

Status CheckWaitingWorkgroups(const VulkanContext& ctx, const std::string& kernel, uint64_t groups,
                              bool has_sm_count, bool allow_unverified,
                              const std::string& remedy) {
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(ctx.physical_device(), &props);
  const uint32_t max_x = props.limits.maxComputeWorkGroupCount[0];
  if (groups > max_x) {
    return UnimplementedError(kernel + ": " + std::to_string(groups) +
                              " workgroups exceed maxComputeWorkGroupCount[0] = " +
                              std::to_string(max_x));
  }
  if (groups > 1 && !has_sm_count && !allow_unverified) {
    return InvalidArgumentError(
        kernel + ": " + std::to_string(groups) +
        " workgroups need a device that reports its SM count (VK_NV_shader_sm_builtins), so "
        "that they can be sized to be resident together; device '" + ctx.info().name +
        "' does not (lavapipe computed wrong states with several waiting workgroups: "
        "docs/PERF.md). " + remedy);
  }
  return OkStatus();
}

std::optional<SmInfo> QuerySmInfo(const VulkanContext& ctx) {
  uint32_t count = 0;
  if (vkEnumerateDeviceExtensionProperties(ctx.physical_device(), nullptr, &count, nullptr) !=
      VK_SUCCESS) {
    return std::nullopt;
  }
  std::vector<VkExtensionProperties> exts(count);
  if (vkEnumerateDeviceExtensionProperties(ctx.physical_device(), nullptr, &count, exts.data()) !=
      VK_SUCCESS) {
    return std::nullopt;
  }
  const bool supported = std::any_of(exts.begin(), exts.end(), [](const VkExtensionProperties& e) {
    return std::strcmp(e.extensionName, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME) == 0;
  });
  if (!supported) return std::nullopt;
  VkPhysicalDeviceShaderSMBuiltinsPropertiesNV sm{
      VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_PROPERTIES_NV};
  VkPhysicalDeviceProperties2 p2{VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2, &sm};
  vkGetPhysicalDeviceProperties2(ctx.physical_device(), &p2);
  if (sm.shaderSMCount == 0) return std::nullopt;
  return SmInfo{sm.shaderSMCount, sm.shaderWarpsPerSM};
}

}  // namespace dashi::vk
