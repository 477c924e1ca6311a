#include "accel_vulkan/buffer.h"

#include <utility>

#include "accel_vulkan/vk_status.h"

namespace dashi::vk {

StatusOr<HostVisibleBuffer> HostVisibleBuffer::Create(const VulkanContext& ctx,
                                                      VkDeviceSize bytes) {
  return CreateWith(ctx, bytes, 0);
}

StatusOr<HostVisibleBuffer> HostVisibleBuffer::CreateForReading(const VulkanContext& ctx,
                                                                VkDeviceSize bytes) {
  return CreateWith(ctx, bytes, VK_MEMORY_PROPERTY_HOST_CACHED_BIT);
}

StatusOr<HostVisibleBuffer> HostVisibleBuffer::CreateWith(const VulkanContext& ctx,
                                                          VkDeviceSize bytes,
                                                          VkMemoryPropertyFlags preferred) {
  constexpr VkMemoryPropertyFlags kHostCoherent =
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT;
  DASHI_ASSIGN_OR_RETURN(BoundBuffer bound,
                         CreateBoundBuffer(ctx, bytes, kHostCoherent, preferred));
  HostVisibleBuffer b(std::move(bound));
  DASHI_VK_RETURN_IF_ERROR(
      vkMapMemory(ctx.device(), b.bound_.memory.get(), 0, VK_WHOLE_SIZE, 0, &b.mapped_),
      "vkMapMemory");
  return b;
}

}  // namespace dashi::vk
