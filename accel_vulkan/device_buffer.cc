#include "accel_vulkan/device_buffer.h"

#include <cstring>
#include <memory>
#include <utility>

#include "accel_vulkan/buffer.h"
#include "accel_vulkan/command_batch.h"

namespace dashi::vk {

Status RunOneShot(const VulkanContext& ctx, const std::function<void(VkCommandBuffer)>& record) {
  DASHI_ASSIGN_OR_RETURN(std::unique_ptr<CommandBatch> batch,
                         CommandBatch::Create(ctx, /*max_timestamps=*/0));
  DASHI_RETURN_IF_ERROR(batch->Begin());
  record(batch->command_buffer());
  return batch->SubmitAndWait();
}

StatusOr<DeviceBuffer> DeviceBuffer::Create(const VulkanContext& ctx, VkDeviceSize bytes) {
  DASHI_ASSIGN_OR_RETURN(BoundBuffer bound,
                         CreateBoundBuffer(ctx, bytes, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT));
  return DeviceBuffer(std::move(bound));
}

Status DeviceBuffer::Upload(const VulkanContext& ctx, std::span<const std::byte> bytes,
                            VkDeviceSize offset) {
  if (bytes.empty()) return OkStatus();
  if (offset + bytes.size() > size()) {
    return InvalidArgumentError("upload of " + std::to_string(bytes.size()) + " bytes at offset " +
                                std::to_string(offset) + " overruns a " + std::to_string(size()) +
                                "-byte buffer");
  }
  DASHI_ASSIGN_OR_RETURN(HostVisibleBuffer staging, HostVisibleBuffer::Create(ctx, bytes.size()));
  std::memcpy(staging.data(), bytes.data(), bytes.size());
  const VkBuffer src = staging.buffer(), dst = buffer();
  const VkDeviceSize n = bytes.size();
  return RunOneShot(ctx, [&](VkCommandBuffer cb) {
    VkBufferCopy region{0, offset, n};
    vkCmdCopyBuffer(cb, src, dst, 1, &region);
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                         0, 1, &barrier, 0, nullptr, 0, nullptr);
  });
}

Status DeviceBuffer::Download(const VulkanContext& ctx, std::span<std::byte> out,
                              VkDeviceSize offset) const {
  if (out.empty()) return OkStatus();
  if (offset + out.size() > size()) {
    return InvalidArgumentError("download of " + std::to_string(out.size()) + " bytes at offset " +
                                std::to_string(offset) + " overruns a " + std::to_string(size()) +
                                "-byte buffer");
  }
  DASHI_ASSIGN_OR_RETURN(HostVisibleBuffer staging,
                         HostVisibleBuffer::CreateForReading(ctx, out.size()));
  const VkBuffer src = buffer(), dst = staging.buffer();
  const VkDeviceSize n = out.size();
  DASHI_RETURN_IF_ERROR(RunOneShot(ctx, [&](VkCommandBuffer cb) {
    VkMemoryBarrier before{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    before.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
    before.dstAccessMask = VK_ACCESS_TRANSFER_READ_BIT;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_TRANSFER_BIT, 0, 1, &before, 0, nullptr, 0, nullptr);
    VkBufferCopy region{offset, 0, n};
    vkCmdCopyBuffer(cb, src, dst, 1, &region);
    VkMemoryBarrier after{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    after.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    after.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_PIPELINE_STAGE_HOST_BIT, 0, 1,
                         &after, 0, nullptr, 0, nullptr);
  }));
  std::memcpy(out.data(), staging.data(), out.size());
  return OkStatus();
}

Status DeviceBuffer::Fill(const VulkanContext& ctx, uint32_t pattern, VkDeviceSize offset,
                          VkDeviceSize bytes) {
  const VkBuffer dst = buffer();
  return RunOneShot(ctx, [&](VkCommandBuffer cb) {
    vkCmdFillBuffer(cb, dst, offset, bytes, pattern);
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                            VK_ACCESS_TRANSFER_READ_BIT;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                         1, &barrier, 0, nullptr, 0, nullptr);
  });
}

}  // namespace dashi::vk
