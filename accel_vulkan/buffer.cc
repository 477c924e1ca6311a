#include "accel_vulkan/buffer.h"

#include <utility>

#include "accel_vulkan/buffer_alloc.h"
#include "accel_vulkan/vk_status.h"

namespace dashi::vk {

StatusOr<HostVisibleBuffer> HostVisibleBuffer::Create(const VulkanContext& ctx,
                                                      VkDeviceSize bytes) {
  HostVisibleBuffer b;
  b.device_ = ctx.device();
  b.bytes_ = bytes;
  DASHI_RETURN_IF_ERROR(CreateBoundBuffer(
      ctx, bytes, VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
      &b.buffer_, &b.memory_));
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
