#include "accel_vulkan/command_batch.h"

#include <chrono>
#include <cstdlib>
#include <string>

#include "accel_vulkan/vk_status.h"

namespace dashi::vk {

int64_t FenceSpinMicroseconds() {
  static const int64_t spin = [] {
    const char* v = std::getenv("DASHI_FENCE_SPIN_US");
    if (v == nullptr || *v == '\0') return kDefaultFenceSpinMicroseconds;
    char* end = nullptr;
    const long long parsed = std::strtoll(v, &end, 10);
    if (end == v || *end != '\0' || parsed < 0) return kDefaultFenceSpinMicroseconds;
    return static_cast<int64_t>(parsed);
  }();
  return spin;
}

Status WaitForFence(VkDevice dev, VkFence fence, int64_t spin_us) {
  // Poll first: a blocking wait is woken by an interrupt, which on some drivers costs tens of
  // microseconds — more than a short submission's own device time.
  if (spin_us > 0) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::microseconds(spin_us);
    while (true) {
      const VkResult r = vkGetFenceStatus(dev, fence);
      if (r == VK_SUCCESS) return OkStatus();
      if (r != VK_NOT_READY) {
        DASHI_VK_RETURN_IF_ERROR(r, "vkGetFenceStatus");
      }
      if (std::chrono::steady_clock::now() >= until) break;
    }
  }
  DASHI_VK_RETURN_IF_ERROR(vkWaitForFences(dev, 1, &fence, VK_TRUE, UINT64_C(600'000'000'000)),
                           "vkWaitForFences (600 s)");
  return OkStatus();
}

StatusOr<std::unique_ptr<CommandBatch>> CommandBatch::Create(const VulkanContext& ctx,
                                                             uint32_t max_timestamps) {
  std::unique_ptr<CommandBatch> b(new CommandBatch(ctx));
  DASHI_RETURN_IF_ERROR(b->Init(max_timestamps));
  return b;
}

Status CommandBatch::Init(uint32_t max_timestamps) {
  const VkDevice dev = ctx_.device();
  VkCommandPoolCreateInfo pci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  pci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  pci.queueFamilyIndex = ctx_.queue_family();
  DASHI_VK_RETURN_IF_ERROR(vkCreateCommandPool(dev, &pci, nullptr, pool_.Receive(dev)),
                           "vkCreateCommandPool");
  VkCommandBufferAllocateInfo ai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  ai.commandPool = pool_.get();
  ai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  ai.commandBufferCount = 1;
  DASHI_VK_RETURN_IF_ERROR(vkAllocateCommandBuffers(dev, &ai, &cb_), "vkAllocateCommandBuffers");
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  DASHI_VK_RETURN_IF_ERROR(vkCreateFence(dev, &fci, nullptr, fence_.Receive(dev)),
                           "vkCreateFence");
  timestamps_supported_ = ctx_.info().timestamp_period_ns > 0 && ctx_.timestamp_valid_bits() > 0;
  max_timestamps_ = max_timestamps;
  if (timestamps_supported_ && max_timestamps_ > 0) {
    VkQueryPoolCreateInfo qci{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qci.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qci.queryCount = max_timestamps_;
    DASHI_VK_RETURN_IF_ERROR(vkCreateQueryPool(dev, &qci, nullptr, queries_.Receive(dev)),
                             "vkCreateQueryPool");
  }
  return OkStatus();
}

Status CommandBatch::Begin() {
  labels_.clear();
  ticks_.clear();
  DASHI_VK_RETURN_IF_ERROR(vkResetCommandBuffer(cb_, 0), "vkResetCommandBuffer");
  VkCommandBufferBeginInfo bi{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  bi.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  DASHI_VK_RETURN_IF_ERROR(vkBeginCommandBuffer(cb_, &bi), "vkBeginCommandBuffer");
  if (queries_) vkCmdResetQueryPool(cb_, queries_.get(), 0, max_timestamps_);
  return OkStatus();
}

void CommandBatch::BindForDispatch(const ComputePipeline& pipeline, VkDescriptorSet set,
                                   const void* push_constants, uint32_t push_bytes) {
  vkCmdBindPipeline(cb_, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.pipeline());
  vkCmdBindDescriptorSets(cb_, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline.layout(), 0, 1, &set, 0,
                          nullptr);
  if (push_bytes > 0) {
    vkCmdPushConstants(cb_, pipeline.layout(), VK_SHADER_STAGE_COMPUTE_BIT, 0, push_bytes,
                       push_constants);
  }
}

void CommandBatch::Dispatch(const ComputePipeline& pipeline, VkDescriptorSet set,
                            const void* push_constants, uint32_t push_bytes, uint32_t groups_x,
                            uint32_t groups_y, uint32_t groups_z) {
  BindForDispatch(pipeline, set, push_constants, push_bytes);
  vkCmdDispatch(cb_, groups_x, groups_y, groups_z);
}

void CommandBatch::DispatchIndirect(const ComputePipeline& pipeline, VkDescriptorSet set,
                                    const void* push_constants, uint32_t push_bytes,
                                    VkBuffer args, VkDeviceSize offset) {
  BindForDispatch(pipeline, set, push_constants, push_bytes);
  vkCmdDispatchIndirect(cb_, args, offset);
}

void CommandBatch::Barrier() {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  b.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT |
                    VK_ACCESS_TRANSFER_READ_BIT | VK_ACCESS_TRANSFER_WRITE_BIT |
                    VK_ACCESS_INDIRECT_COMMAND_READ_BIT;
  vkCmdPipelineBarrier(cb_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT |
                           VK_PIPELINE_STAGE_DRAW_INDIRECT_BIT,
                       0, 1, &b, 0, nullptr, 0, nullptr);
}

void CommandBatch::ComputeBarrier() {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  b.dstAccessMask = VK_ACCESS_SHADER_READ_BIT | VK_ACCESS_SHADER_WRITE_BIT;
  vkCmdPipelineBarrier(cb_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT, 0, 1, &b, 0, nullptr, 0, nullptr);
}

void CommandBatch::HostReadBarrier() {
  VkMemoryBarrier b{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  b.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT | VK_ACCESS_TRANSFER_WRITE_BIT;
  b.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(cb_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT | VK_PIPELINE_STAGE_TRANSFER_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &b, 0, nullptr, 0, nullptr);
}

void CommandBatch::CopyBuffer(VkBuffer src, VkBuffer dst, VkDeviceSize bytes,
                              VkDeviceSize src_offset, VkDeviceSize dst_offset) {
  VkBufferCopy region{src_offset, dst_offset, bytes};
  vkCmdCopyBuffer(cb_, src, dst, 1, &region);
}

void CommandBatch::FillBuffer(VkBuffer buffer, VkDeviceSize offset, VkDeviceSize bytes,
                              uint32_t value) {
  vkCmdFillBuffer(cb_, buffer, offset, bytes, value);
}

void CommandBatch::Timestamp(std::string label) {
  if (!queries_ || labels_.size() >= max_timestamps_) return;
  vkCmdWriteTimestamp(cb_, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, queries_.get(),
                      static_cast<uint32_t>(labels_.size()));
  labels_.push_back(std::move(label));
}

Status CommandBatch::SubmitAndWait() {
  const VkDevice dev = ctx_.device();
  DASHI_VK_RETURN_IF_ERROR(vkEndCommandBuffer(cb_), "vkEndCommandBuffer");
  VkSubmitInfo si{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  si.commandBufferCount = 1;
  si.pCommandBuffers = &cb_;
  DASHI_VK_RETURN_IF_ERROR(vkResetFences(dev, 1, fence_.ptr()), "vkResetFences");
  DASHI_VK_RETURN_IF_ERROR(vkQueueSubmit(ctx_.queue(), 1, &si, fence_.get()), "vkQueueSubmit");
  DASHI_RETURN_IF_ERROR(WaitForFence(dev, fence_.get(), FenceSpinMicroseconds()));
  if (!labels_.empty()) {
    ticks_.assign(labels_.size(), 0);
    DASHI_VK_RETURN_IF_ERROR(
        vkGetQueryPoolResults(dev, queries_.get(), 0, static_cast<uint32_t>(labels_.size()),
                              ticks_.size() * sizeof(uint64_t), ticks_.data(), sizeof(uint64_t),
                              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT),
        "vkGetQueryPoolResults");
  }
  return OkStatus();
}

std::vector<std::pair<std::string, double>> CommandBatch::StageMilliseconds() const {
  std::vector<std::pair<std::string, double>> out;
  const double period = ctx_.info().timestamp_period_ns;
  const uint32_t bits = ctx_.timestamp_valid_bits();
  const uint64_t mask = bits >= 64 ? ~uint64_t{0} : ((uint64_t{1} << bits) - 1);
  for (size_t i = 1; i < ticks_.size(); ++i) {
    const uint64_t d = (ticks_[i] - ticks_[i - 1]) & mask;
    out.emplace_back(labels_[i], static_cast<double>(d) * period * 1e-6);
  }
  return out;
}

}  // namespace dashi::vk
