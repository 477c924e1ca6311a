// HostVisibleBuffer: a move-only storage buffer in host-visible, host-coherent memory, mapped for
// its whole life (staging and small records the host reads; the hot data live in DeviceBuffer).
// Create takes the device's first such memory type, which on discrete GPUs is usually
// write-combined: fast for the host to write, very slow for it to read. CreateForReading prefers
// a host-cached type (HOST_CACHED too) for buffers the device writes and the host reads.
// Its handles are UniqueHandles (unique_handle.h); freeing the memory unmaps it. Destroy before
// the VulkanContext it came from.
#ifndef DASHI_ACCEL_VULKAN_BUFFER_H_
#define DASHI_ACCEL_VULKAN_BUFFER_H_

#include <cstddef>
#include <span>
#include <utility>

#include <vulkan/vulkan.h>

#include "accel_vulkan/buffer_alloc.h"
#include "accel_vulkan/context.h"
#include "core_ref/status/status.h"

namespace dashi::vk {

class HostVisibleBuffer {
 public:
  static StatusOr<HostVisibleBuffer> Create(const VulkanContext& ctx, VkDeviceSize bytes);
  static StatusOr<HostVisibleBuffer> CreateForReading(const VulkanContext& ctx, VkDeviceSize bytes);

  VkBuffer buffer() const { return bound_.buffer.get(); }
  VkDeviceSize size() const { return bound_.size(); }
  void* data() const { return bound_.buffer ? mapped_ : nullptr; }
  // Whether the memory is host-cached (CPU reads at memory speed).
  bool host_cached() const {
    return (bound_.memory_flags & VK_MEMORY_PROPERTY_HOST_CACHED_BIT) != 0;
  }

  template <typename T>
  std::span<T> as() const {
    return {static_cast<T*>(data()), static_cast<size_t>(size() / sizeof(T))};
  }

 private:
  explicit HostVisibleBuffer(BoundBuffer bound) : bound_(std::move(bound)) {}
  static StatusOr<HostVisibleBuffer> CreateWith(const VulkanContext& ctx, VkDeviceSize bytes,
                                                VkMemoryPropertyFlags preferred);

  BoundBuffer bound_;
  void* mapped_ = nullptr;  // valid while bound_ holds the memory
};

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_BUFFER_H_
