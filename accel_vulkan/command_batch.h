// CommandBatch: records many compute dispatches (with the barriers between dependent ones and
// timestamp queries around stages) into one command buffer, submits it once, and waits on a
// fence. Reusable: Begin() again after SubmitAndWait(). Stage times come from device timestamps
// (VkPhysicalDeviceLimits::timestampPeriod). Move-only via unique_ptr; destroy before the
// VulkanContext (its handles are UniqueHandles).
//
//   batch->Begin();
//   batch->Timestamp("start");
//   for (...) { batch->Dispatch(*pipe, set, &params, sizeof(params), groups); batch->Barrier(); }
//   batch->Timestamp("rollout");
//   DASHI_RETURN_IF_ERROR(batch->SubmitAndWait());
//   batch->StageMilliseconds();   // {"rollout", ms}: time from the previous timestamp
#ifndef DASHI_ACCEL_VULKAN_COMMAND_BATCH_H_
#define DASHI_ACCEL_VULKAN_COMMAND_BATCH_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <vulkan/vulkan.h>

#include "accel_vulkan/compute_pipeline.h"
#include "accel_vulkan/context.h"
#include "accel_vulkan/unique_handle.h"
#include "core_ref/status/status.h"

namespace dashi::vk {

// How long SubmitAndWait polls its fence (vkGetFenceStatus) before blocking in vkWaitForFences:
// $DASHI_FENCE_SPIN_US when it is a non-negative integer (0: block at once), else this default.
// Polling costs a host core while it lasts; it spares a short submission the blocking wait's
// wake-up latency.
inline constexpr int64_t kDefaultFenceSpinMicroseconds = 2000;
int64_t FenceSpinMicroseconds();
// Waits for `fence`: polls for up to spin_us microseconds, then blocks (600 s limit).
Status WaitForFence(VkDevice dev, VkFence fence, int64_t spin_us);

class CommandBatch {
 public:
  static StatusOr<std::unique_ptr<CommandBatch>> Create(const VulkanContext& ctx,
                                                        uint32_t max_timestamps = 64);
  CommandBatch(const CommandBatch&) = delete;
  CommandBatch& operator=(const CommandBatch&) = delete;

  Status Begin();
  void Dispatch(const ComputePipeline& pipeline, VkDescriptorSet set, const void* push_constants,
                uint32_t push_bytes, uint32_t groups_x, uint32_t groups_y = 1,
                uint32_t groups_z = 1);
  // The same with the group counts read by the device from `args` at `offset` (a
  // VkDispatchIndirectCommand) when the dispatch executes, so an earlier kernel in the batch can
  // zero them and turn the dispatch into a no-op without a host round trip.
  void DispatchIndirect(const ComputePipeline& pipeline, VkDescriptorSet set,
                        const void* push_constants, uint32_t push_bytes, VkBuffer args,
                        VkDeviceSize offset);
  // Compute → compute (and transfer, and indirect-argument) memory dependency between dispatches.
  void Barrier();
  // Compute → compute only: the shader writes of the dispatches before it visible to (and
  // ordered before) the shader reads and writes of the dispatches after it; no transfer or
  // indirect stage (for consecutive dispatches with no copy between them).
  void ComputeBarrier();
  // Transfer and compute writes → host reads (before reading mapped memory after the wait).
  void HostReadBarrier();
  void CopyBuffer(VkBuffer src, VkBuffer dst, VkDeviceSize bytes, VkDeviceSize src_offset = 0,
                  VkDeviceSize dst_offset = 0);
  // vkCmdFillBuffer: `bytes` (a multiple of 4) at `offset` set to the 32-bit `value`.
  void FillBuffer(VkBuffer buffer, VkDeviceSize offset, VkDeviceSize bytes, uint32_t value);
  // Writes a device timestamp after all previous work; the label names the stage that ends here.
  // Ignored (with no error) once max_timestamps are used or when the queue has no timestamps.
  void Timestamp(std::string label);
  VkCommandBuffer command_buffer() const { return cb_; }

  Status SubmitAndWait();
  // (label, ms since the previous timestamp) for every timestamp after the first.
  std::vector<std::pair<std::string, double>> StageMilliseconds() const;

 private:
  explicit CommandBatch(const VulkanContext& ctx) : ctx_(ctx) {}
  Status Init(uint32_t max_timestamps);
  void BindForDispatch(const ComputePipeline& pipeline, VkDescriptorSet set,
                       const void* push_constants, uint32_t push_bytes);

  const VulkanContext& ctx_;
  UniqueHandle<VkCommandPool, vkDestroyCommandPool> pool_;  // frees cb_ too
  VkCommandBuffer cb_ = VK_NULL_HANDLE;
  UniqueHandle<VkFence, vkDestroyFence> fence_;
  UniqueHandle<VkQueryPool, vkDestroyQueryPool> queries_;
  uint32_t max_timestamps_ = 0;
  bool timestamps_supported_ = false;
  std::vector<std::string> labels_;
  std::vector<uint64_t> ticks_;
};

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_COMMAND_BATCH_H_
