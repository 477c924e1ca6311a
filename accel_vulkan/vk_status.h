// The one place where a VkResult becomes a dashi Status.
#ifndef DASHI_ACCEL_VULKAN_VK_STATUS_H_
#define DASHI_ACCEL_VULKAN_VK_STATUS_H_

#include <string_view>

#include <vulkan/vulkan.h>

#include "core_ref/status/status.h"

namespace dashi::vk {

// "VK_ERROR_DEVICE_LOST", ...
std::string_view VkResultName(VkResult result);

// OK for VK_SUCCESS; otherwise an error whose message is "<what>: <VK_...>", with a code that says
// what kind of failure it was (out of memory → RESOURCE_EXHAUSTED, device lost → UNAVAILABLE,
// missing feature/extension/layer → UNIMPLEMENTED, ...).
Status VkCheck(VkResult result, std::string_view what);

}  // namespace dashi::vk

#define DASHI_VK_RETURN_IF_ERROR(call, what) DASHI_RETURN_IF_ERROR(::dashi::vk::VkCheck((call), (what)))

#endif  // DASHI_ACCEL_VULKAN_VK_STATUS_H_
