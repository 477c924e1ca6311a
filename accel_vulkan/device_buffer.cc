#include "accel_vulkan/device_buffer.h"

#include <cstring>
#include <utility>

#include "accel_vulkan/buffer.h"
#include "accel_vulkan/buffer_alloc.h"
#include "accel_vulkan/vk_status.h"

namespace dashi::vk {

Status RunOneShot(const VulkanContext& ctx, const std::function<void(VkCommandBuffer)>& record) {
  const VkDevice dev = ctx.device();
  VkCommandPool pool = VK_NULL_HANDLE;
  VkFence fence = VK_NULL_HANDLE;
  VkCommandBuffer cb = VK_NULL_HANDLE;
  auto cleanup = [&] {
    if (fence) vkDestroyFence(dev, fence, nullptr);
    if (pool) vkDestroyCommandPool(dev, pool, nullptr);
  };
  VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pci.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  pci.queueFamilyIndex = ctx.queue_family();
  Status st = VkCheck(vkCreateCommandPool(dev, &pci, nullptr, &pool), "vkCreateCommandPool");
  if (st.ok()) {
    VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
    ai.commandPool = pool;
    ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
    ai.commandBufferCount = 1;
    st = VkCheck(vkAllocateCommandBuffers(dev, &ai, &cb), "vkAllocateCommandBuffers");
  }
  if (st.ok()) {
    VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
    st = VkCheck(vkCreateFence(dev, &fci, nullptr, &fence), "vkCreateFence");
  }
  if (st.ok()) {
    VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
    bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
    st = VkCheck(vkBeginCommandBuffer(cb, &bi), "vkBeginCommandBuffer");
  }
  if (st.ok()) {
    record(cb);
    st = VkCheck(vkEndCommandBuffer(cb), "vkEndCommandBuffer");
  }
  if (st.ok()) {
    VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
    si.commandBufferCount = 1;
    si.pCommandBuffers = &cb;
    st = VkCheck(vkQueueSubmit(ctx.queue(), 1, &si, fence), "vkQueueSubmit");
  }
  if (st.ok()) {
    st = VkCheck(vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_C(120'000'000'000)),
                 "vkWaitForFences (120 s)");
  }
  cleanup();
  return st;
}

StatusOr<DeviceBuffer> DeviceBuffer::Create(const VulkanContext& ctx, VkDeviceSize bytes) {
  DeviceBuffer b;
  b.device_ = ctx.device();
  b.bytes_ = bytes;
  DASHI_RETURN_IF_ERROR(CreateBoundBuffer(ctx, bytes, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT,
                                          &b.buffer_, &b.memory_));
  return b;
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept { *this = std::move(o); }

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    Reset();
    device_ = std::exchange(o.device_, VK_NULL_HANDLE);
    buffer_ = std::exchange(o.buffer_, VK_NULL_HANDLE);
    memory_ = std::exchange(o.memory_, VK_NULL_HANDLE);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() { Reset(); }

void DeviceBuffer::Reset() {
  if (device_ == VK_NULL_HANDLE) return;
  if (buffer_ != VK_NULL_HANDLE) vkDestroyBuffer(device_, buffer_, nullptr);
  if (memory_ != VK_NULL_HANDLE) vkFreeMemory(device_, memory_, nullptr);
  device_ = VK_NULL_HANDLE;
  buffer_ = VK_NULL_HANDLE;
  memory_ = VK_NULL_HANDLE;
}

Status DeviceBuffer::Upload(const VulkanContext& ctx, std::span<const std::byte> bytes,
                            VkDeviceSize offset) {
  if (bytes.empty()) return OkStatus();
  if (offset + bytes.size() > bytes_) {
    return InvalidArgumentError("upload of " + std::to_string(bytes.size()) + " bytes at offset " +
                                std::to_string(offset) + " overruns a " + std::to_string(bytes_) +
                                "-byte buffer");
  }
  DASHI_ASSIGN_OR_RETURN(HostVisibleBuffer staging, HostVisibleBuffer::Create(ctx, bytes.size()));
  std::memcpy(staging.data(), bytes.data(), bytes.size());
  const VkBuffer src = staging.buffer(), dst = buffer_;
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
  if (offset + out.size() > bytes_) {
    return InvalidArgumentError("download of " + std::to_string(out.size()) + " bytes at offset " +
                                std::to_string(offset) + " overruns a " + std::to_string(bytes_) +
                                "-byte buffer");
  }
  DASHI_ASSIGN_OR_RETURN(HostVisibleBuffer staging, HostVisibleBuffer::Create(ctx, out.size()));
  const VkBuffer src = buffer_, dst = staging.buffer();
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

Status DeviceBuffer::Fill(const VulkanContext& ctx, uint32_t pattern) {
  const VkBuffer dst = buffer_;
  return RunOneShot(ctx, [&](VkCommandBuffer cb) {
    vkCmdFillBuffer(cb, dst, 0, VK_WHOLE_SIZE, pattern);
    VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
    barrier.srcAccessMask = VK_ACCESS_TRANSFER_WRITE_BIT;
    barrier.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                            VK_ACCESS_TRANSFER_READ_BIT;
    vkCmdPipelineBarrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
                         VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT, 0,
                         1, &barrier, 0, nullptr, 0, nullptr);
  });
}

Status CheckGuardWords(const VulkanContext& ctx, const DeviceBuffer& buffer,
                       uint64_t payload_bytes, uint64_t guard_bytes, uint32_t guard_word,
                       const std::string& what) {
  if (buffer.size() < payload_bytes + guard_bytes) {
    return FailedPreconditionError(what + " buffer has no guard region");
  }
  DASHI_ASSIGN_OR_RETURN(std::vector<uint32_t> g,
                         buffer.DownloadValues<uint32_t>(ctx, guard_bytes / 4, payload_bytes));
  for (size_t i = 0; i < g.size(); ++i) {
    if (g[i] != guard_word) {
      return DataLossError("guard word " + std::to_string(i) + " after the " + what +
                           " was overwritten (out-of-bounds write)");
    }
  }
  return OkStatus();
}

}  // namespace dashi::vk
