// The one place a storage buffer and its memory are created and bound (used by HostVisibleBuffer
// and DeviceBuffer). On error the caller's handles hold whatever was created, for it to destroy.
#ifndef DASHI_ACCEL_VULKAN_BUFFER_ALLOC_H_
#define DASHI_ACCEL_VULKAN_BUFFER_ALLOC_H_

#include <vulkan/vulkan.h>

#include "accel_vulkan/context.h"
#include "core_ref/status/status.h"

namespace dashi::vk {

// A storage + transfer-src/dst + indirect-argument buffer of `bytes` bound to memory with all of
// `memory_flags`.
Status CreateBoundBuffer(const VulkanContext& ctx, VkDeviceSize bytes,
                         VkMemoryPropertyFlags memory_flags, VkBuffer* buffer,
                         VkDeviceMemory* memory);

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_BUFFER_ALLOC_H_
