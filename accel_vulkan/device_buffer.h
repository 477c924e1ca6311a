// DeviceBuffer: a move-only storage buffer in device-local memory (VkFFT and the hot loops want
// it there: a host-visible buffer on an H200 was up to 28× slower). Upload and Download go through
// a host-visible staging buffer and a one-shot transfer. Destroy before the VulkanContext.
//
//   DASHI_ASSIGN_OR_RETURN(DeviceBuffer a, DeviceBuffer::Create(ctx, bytes));
//   DASHI_RETURN_IF_ERROR(a.Upload(ctx, std::as_bytes(std::span(values))));
#ifndef DASHI_ACCEL_VULKAN_DEVICE_BUFFER_H_
#define DASHI_ACCEL_VULKAN_DEVICE_BUFFER_H_

#include <cstddef>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

#include "accel_vulkan/context.h"
#include "core_ref/status/status.h"

namespace dashi::vk {

class DeviceBuffer {
 public:
  static StatusOr<DeviceBuffer> Create(const VulkanContext& ctx, VkDeviceSize bytes);
  DeviceBuffer(DeviceBuffer&& other) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();

  VkBuffer buffer() const { return buffer_; }
  VkDeviceSize size() const { return bytes_; }

  // Copies `bytes` (at most size()) to the start of the buffer and waits for completion.
  Status Upload(const VulkanContext& ctx, std::span<const std::byte> bytes,
                VkDeviceSize offset = 0);
  // Reads `out.size()` bytes from `offset` and waits for completion.
  Status Download(const VulkanContext& ctx, std::span<std::byte> out, VkDeviceSize offset = 0) const;
  // Fills the whole buffer with a 32-bit pattern.
  Status Fill(const VulkanContext& ctx, uint32_t pattern);

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
  DeviceBuffer() = default;
  void Reset();

  VkDevice device_ = VK_NULL_HANDLE;
  VkBuffer buffer_ = VK_NULL_HANDLE;
  VkDeviceMemory memory_ = VK_NULL_HANDLE;
  VkDeviceSize bytes_ = 0;
};

// Checks that `guard_bytes` after the first `payload_bytes` of `buffer` all hold `guard_word`
// (out-of-bounds writes land there): FAILED_PRECONDITION if the buffer has no room for the
// guards, DATA_LOSS naming `what` and the first overwritten word otherwise.
Status CheckGuardWords(const VulkanContext& ctx, const DeviceBuffer& buffer,
                       uint64_t payload_bytes, uint64_t guard_bytes, uint32_t guard_word,
                       const std::string& what);

// Runs `record` in a one-shot command buffer on the context's queue and waits for it.
Status RunOneShot(const VulkanContext& ctx, const std::function<void(VkCommandBuffer)>& record);

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_DEVICE_BUFFER_H_
