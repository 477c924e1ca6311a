// DeviceBuffer: a move-only storage buffer in device-local memory (VkFFT and the hot loops want
// it there: a host-visible buffer on an H200 was up to 28× slower), its handles UniqueHandles
// (unique_handle.h). Upload and Download go through a host-visible staging buffer and a one-shot
// transfer. Destroy before the VulkanContext.
//
//   DASHI_ASSIGN_OR_RETURN(DeviceBuffer a, DeviceBuffer::Create(ctx, bytes));
//   DASHI_RETURN_IF_ERROR(a.Upload(ctx, std::as_bytes(std::span(values))));
#ifndef DASHI_ACCEL_VULKAN_DEVICE_BUFFER_H_
#define DASHI_ACCEL_VULKAN_DEVICE_BUFFER_H_

#include <cstddef>
#include <functional>
#include <span>
#include <utility>
#include <vector>

#include <vulkan/vulkan.h>

#include "accel_vulkan/buffer_alloc.h"
#include "accel_vulkan/context.h"
#include "core_ref/status/status.h"

namespace dashi::vk {

class DeviceBuffer {
 public:
  static StatusOr<DeviceBuffer> Create(const VulkanContext& ctx, VkDeviceSize bytes);

  VkBuffer buffer() const { return bound_.buffer.get(); }
  VkDeviceSize size() const { return bound_.size(); }

  // Copies `bytes` (at most size()) to the start of the buffer and waits for completion.
  Status Upload(const VulkanContext& ctx, std::span<const std::byte> bytes,
                VkDeviceSize offset = 0);
  // Reads `out.size()` bytes from `offset` and waits for completion.
  Status Download(const VulkanContext& ctx, std::span<std::byte> out, VkDeviceSize offset = 0) const;
  // Fills `bytes` (a multiple of 4, or VK_WHOLE_SIZE: to the end) from `offset` with a 32-bit
  // pattern and waits for completion.
  Status Fill(const VulkanContext& ctx, uint32_t pattern, VkDeviceSize offset = 0,
              VkDeviceSize bytes = VK_WHOLE_SIZE);

  template <typename T>
  Status UploadValues(const VulkanContext& ctx, std::span<const T> values, VkDeviceSize offset = 0) {
    return Upload(ctx, std::as_bytes(values), offset);
  }
  template <typename T>
  StatusOr<std::vector<T>> DownloadValues(const VulkanContext& ctx, size_t count,
                                          VkDeviceSize offset = 0) const {
    std::vector<T> out(count);
    DASHI_RETURN_IF_ERROR(Download(ctx, std::as_writable_bytes(std::span<T>(out)), offset));
    return out;
  }

 private:
  explicit DeviceBuffer(BoundBuffer bound) : bound_(std::move(bound)) {}

  BoundBuffer bound_;
};

// Runs `record` in a one-shot command buffer on the context's queue and waits for it.
Status RunOneShot(const VulkanContext& ctx, const std::function<void(VkCommandBuffer)>& record);

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_DEVICE_BUFFER_H_
