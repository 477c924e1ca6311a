#include "accel_vulkan/device_buffer.h"

#include <cstring>
#include <utility>

#include "accel_vulkan/buffer.h"
#include "accel_vulkan/unique_handle.h"
#include "accel_vulkan/vk_status.h"

namespace dashi::vk {

Status RunOneShot(const VulkanContext& ctx, const std::function<void(VkCommandBuffer)>& record) {
  const VkDevice dev = ctx.device();
  UniqueHandle<VkCommandPool, vkDestroyCommandPool> pool;  // frees the command buffer too
  UniqueHandle<VkFence, vkDestroyFence> fence;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pci.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  pci.queueFamilyIndex = ctx.queue_family();
  DASHI_VK_RETURN_IF_ERROR(vkCreateCommandPool(dev, &pci, nullptr, pool.Receive(dev)),
                           "vkCreateCommandPool");
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = pool.get();
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  DASHI_VK_RETURN_IF_ERROR(vkAllocateCommandBuffers(dev, &ai, &cb), "vkAllocateCommandBuffers");
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  DASHI_VK_RETURN_IF_ERROR(vkCreateFence(dev, &fci, nullptr, fence.Receive(dev)),
                           "vkCreateFence");
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  DASHI_VK_RETURN_IF_ERROR(vkBeginCommandBuffer(cb, &bi), "vkBeginCommandBuffer");
  record(cb);
  DASHI_VK_RETURN_IF_ERROR(vkEndCommandBuffer(cb), "vkEndCommandBuffer");
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cb;
  DASHI_VK_RETURN_IF_ERROR(vkQueueSubmit(ctx.queue(), 1, &si, fence.get()), "vkQueueSubmit");
  return VkCheck(vkWaitForFences(dev, 1, fence.ptr(), VK_TRUE, UINT64_C(120'000'000'000)),
                 "vkWaitForFences (120 s)");
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
  DASHI_ASSIGN_OR_RETURN(HostVisibleBuffer staging, HostVisibleBuffer::Create(ctx, out.size()));
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
