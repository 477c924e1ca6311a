// BoundBuffer: a storage buffer bound to memory of its own, both owned (UniqueHandle), and the one
// place such a buffer is created (HostVisibleBuffer, DeviceBuffer). The memory is declared first,
// so the buffer is destroyed before the memory it is bound to.
#ifndef DASHI_ACCEL_VULKAN_BUFFER_ALLOC_H_
#define DASHI_ACCEL_VULKAN_BUFFER_ALLOC_H_

#include <vulkan/vulkan.h>

#include "accel_vulkan/context.h"
#include "accel_vulkan/unique_handle.h"
#include "core_ref/status/status.h"

namespace dashi::vk {

struct BoundBuffer {
  UniqueHandle<VkDeviceMemory, vkFreeMemory> memory;
  UniqueHandle<VkBuffer, vkDestroyBuffer> buffer;
  VkDeviceSize bytes = 0;
  VkMemoryPropertyFlags memory_flags = 0;  // the property flags of the memory type bound

  // 0 once moved from (the handles are then empty).
  VkDeviceSize size() const { return buffer ? bytes : 0; }
};

// A storage + transfer-src/dst + indirect-argument buffer of `bytes` bound to memory with all of
// `memory_flags`, and with all of `preferred_flags` too where the device has such a type.
StatusOr<BoundBuffer> CreateBoundBuffer(const VulkanContext& ctx, VkDeviceSize bytes,
                                        VkMemoryPropertyFlags memory_flags,
                                        VkMemoryPropertyFlags preferred_flags = 0);

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_BUFFER_ALLOC_H_
