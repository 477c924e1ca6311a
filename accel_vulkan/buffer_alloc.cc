#include "accel_vulkan/buffer_alloc.h"

#include <string>

#include "accel_vulkan/vk_status.h"

namespace dashi::vk {

StatusOr<BoundBuffer> CreateBoundBuffer(const VulkanContext& ctx, VkDeviceSize bytes,
                                        VkMemoryPropertyFlags memory_flags,
                                        VkMemoryPropertyFlags preferred_flags) {
  if (bytes == 0) return InvalidArgumentError("buffer size must be > 0");
  const VkDevice dev = ctx.device();
  BoundBuffer b;
  b.bytes = bytes;
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.size = bytes;
  // Indirect too: a kernel may write the group counts of later dispatches (CarrierClosure).
  bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
              VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_INDIRECT_BUFFER_BIT;
  bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  DASHI_VK_RETURN_IF_ERROR(vkCreateBuffer(dev, &bci, nullptr, b.buffer.Receive(dev)),
                           "vkCreateBuffer");
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(dev, b.buffer.get(), &req);
  StatusOr<uint32_t> type = NotFoundError("no preferred memory type");
  if (preferred_flags != 0) {
    type = ctx.FindMemoryType(req.memoryTypeBits, memory_flags | preferred_flags);
  }
  if (!type.ok()) type = ctx.FindMemoryType(req.memoryTypeBits, memory_flags);
  if (!type.ok()) return type.status();
  b.memory_flags = ctx.MemoryTypeFlags(*type);
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = *type;
  DASHI_VK_RETURN_IF_ERROR(vkAllocateMemory(dev, &mai, nullptr, b.memory.Receive(dev)),
                           "vkAllocateMemory (" + std::to_string(bytes) + " bytes)");
  DASHI_VK_RETURN_IF_ERROR(vkBindBufferMemory(dev, b.buffer.get(), b.memory.get(), 0),
                           "vkBindBufferMemory");
  return b;
}

}  // namespace dashi::vk
