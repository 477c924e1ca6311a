#include "accel_vulkan/buffer_alloc.h"

#include <string>

#include "accel_vulkan/vk_status.h"

namespace dashi::vk {

Status CreateBoundBuffer(const VulkanContext& ctx, VkDeviceSize bytes,
                         VkMemoryPropertyFlags memory_flags, VkBuffer* buffer,
                         VkDeviceMemory* memory) {
  if (bytes == 0) return InvalidArgumentError("buffer size must be > 0");
  const VkDevice dev = ctx.device();
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.size = bytes;
  // Indirect too: a kernel may write the group counts of later dispatches (CarrierClosure).
  bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
              VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;
  bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  DASHI_VK_RETURN_IF_ERROR(vkCreateBuffer(dev, &bci, nullptr, buffer), "vkCreateBuffer");
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(dev, *buffer, &req);
  DASHI_ASSIGN_OR_RETURN(uint32_t type, ctx.FindMemoryType(req.memoryTypeBits, memory_flags));
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = type;
  DASHI_VK_RETURN_IF_ERROR(vkAllocateMemory(dev, &mai, nullptr, memory),
                           "vkAllocateMemory (" + std::to_string(bytes) + " bytes)");
  return VkCheck(vkBindBufferMemory(dev, *buffer, *memory, 0), "vkBindBufferMemory");
}

}  // namespace dashi::vk
