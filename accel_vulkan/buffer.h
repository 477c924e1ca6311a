// HostVisibleBuffer: a move-only storage buffer in host-visible, host-coherent memory, mapped for
// its whole life. (Device-local buffers with staging arrive with the accelerator ops.)
// Destroy before the VulkanContext it came from.
#ifndef DASHI_ACCEL_VULKAN_BUFFER_H_
#define DASHI_ACCEL_VULKAN_BUFFER_H_

#include <cstddef>
#include <cstring>
#include <span>

#include <vulkan/vulkan.h>

#include "accel_vulkan/context.h"
#include "core_ref/status/status.h"

namespace dashi::vk {

class HostVisibleBuffer {
 public:
  static StatusOr<HostVisibleBuffer> Create(const VulkanContext& ctx, VkDeviceSize bytes);
  HostVisibleBuffer(HostVisibleBuffer&& other) noexcept;
  HostVisibleBuffer& operator=(HostVisibleBuffer&& other) noexcept;
  HostVisibleBuffer(const HostVisibleBuffer&) = delete;
  HostVisibleBuffer& operator=(const HostVisibleBuffer&) = delete;
  ~HostVisibleBuffer();

  VkBuffer buffer() const { return buffer_; }
  VkDeviceSize size() const { return bytes_; }
  void* data() const { return mapped_; }

  template <typename T>
  std::span<T> as() const {
    return {static_cast<T*>(mapped_), static_cast<size_t>(bytes_ / sizeof(T))};
  }

 private:
  HostVisibleBuffer() = default;
  void Reset();

  VkDevice device_ = VK_NULL_HANDLE;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkDeviceSize bytes_ = 0;
  void* mapped_ = nullptr;
};

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_BUFFER_H_
