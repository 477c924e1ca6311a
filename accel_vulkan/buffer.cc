#include "accel_vulkan/buffer.h"

#include <utility>

#include "accel_vulkan/vk_status.h"

namespace dashi::vk {

StatusOr<HostVisibleBuffer> HostVisibleBuffer::Create(const VulkanContext& ctx,
                                                      VkDeviceSize bytes) {
  if (bytes == 0) return InvalidArgumentError("buffer size must be > 0");
  HostVisibleBuffer b;
  b.device_ = ctx.device();
  b.bytes_ = bytes;
  VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
  bci.size = bytes;
  bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
              VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  DASHI_VK_RETURN_IF_ERROR(vkCreateBuffer(b.device_, &bci, nullptr, &b.buffer_), "vkCreateBuffer");
  VkMemoryRequirements req;
  vkGetBufferMemoryRequirements(b.device_, b.buffer_, &req);
  DASHI_ASSIGN_OR_RETURN(
      uint32_t type,
      ctx.FindMemoryType(req.memoryTypeBits, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT |
                                                 VK_MEMORY_PROPERTY_HOST_COHERENT_BIT));
  VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
  mai.allocationSize = req.size;
  mai.memoryTypeIndex = type;
  DASHI_VK_RETURN_IF_ERROR(vkAllocateMemory(b.device_, &mai, nullptr, &b.memory_),
                           "vkAllocateMemory (" + std::to_string(bytes) + " bytes)");
  DASHI_VK_RETURN_IF_ERROR(vkBindBufferMemory(b.device_, b.buffer_, b.memory_, 0),
                           "vkBindBufferMemory");
  DASHI_VK_RETURN_IF_ERROR(vkMapMemory(b.device_, b.memory_, 0, VK_WHOLE_SIZE, 0, &b.mapped_),
                           "vkMapMemory");
  return b;
}

HostVisibleBuffer::HostVisibleBuffer(HostVisibleBuffer&& o) noexcept { *this = std::move(o); }

HostVisibleBuffer& HostVisibleBuffer::operator=(HostVisibleBuffer&& o) noexcept {
  if (this != &o) {
    Reset();
    device_ = std::exchange(o.device_, VK_NULL_HANDLE);
    buffer_ = std::exchange(o.buffer_, VK_NULL_HANDLE);
    memory_ = std::exchange(o.memory_, VK_NULL_HANDLE);
    bytes_ = std::exchange(o.bytes_, 0);
    mapped_ = std::exchange(o.mapped_, nullptr);
  }
  return *this;
}

HostVisibleBuffer::~HostVisibleBuffer() { Reset(); }

void HostVisibleBuffer::Reset() {
  if (device_ == VK_NULL_HANDLE) return;
  if (mapped_ != nullptr) vkUnmapMemory(device_, memory_);
  if (buffer_ != VK_NULL_HANDLE) vkDestroyBuffer(device_, buffer_, nullptr);
  if (memory_ != VK_NULL_HANDLE) vkFreeMemory(device_, memory_, nullptr);
  device_ = VK_NULL_HANDLE;
  buffer_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
  mapped_ = nullptr;
}

}  // namespace dashi::vk
