// ComputeKernel: a compute pipeline built from embedded SPIR-V with `num_buffers` storage buffers
// at set 0, bindings 0..n-1, a push-constant block, and the workgroup size as specialization
// constant 0. Run() records one dispatch, submits it and waits on a fence. Move-only; destroy
// before its VulkanContext.
#ifndef DASHI_ACCEL_VULKAN_COMPUTE_KERNEL_H_
#define DASHI_ACCEL_VULKAN_COMPUTE_KERNEL_H_

#include <cstdint>
#include <memory>
#include <span>

#include <vulkan/vulkan.h>

#include "accel_vulkan/buffer.h"
#include "accel_vulkan/context.h"
#include "core_ref/status/status.h"

namespace dashi::vk {

struct ComputeKernelSpec {
  std::span<const uint32_t> spirv;
  uint32_t num_buffers = 1;
  uint32_t push_constant_bytes = 0;
  uint32_t workgroup_size_x = 64;  // specialization constant id 0
};

class ComputeKernel {
 public:
  static StatusOr<std::unique_ptr<ComputeKernel>> Create(const VulkanContext& ctx,
                                                         const ComputeKernelSpec& spec);
  ~ComputeKernel();
  ComputeKernel(const ComputeKernel&) = delete;
  ComputeKernel& operator=(const ComputeKernel&) = delete;

  // Binds `buffers` (exactly num_buffers), pushes `push_constants` (exactly push_constant_bytes),
  // dispatches `groups_x` workgroups, and waits for completion.
  Status Run(std::span<const HostVisibleBuffer* const> buffers,
             std::span<const uint8_t> push_constants, uint32_t groups_x);

  uint32_t workgroup_size_x() const { return spec_.workgroup_size_x; }

 private:
  explicit ComputeKernel(const VulkanContext& ctx) : ctx_(ctx) {}
  Status Init(const ComputeKernelSpec& spec);

  const VulkanContext& ctx_;
  ComputeKernelSpec spec_;
  VkShaderModule module_ = VK_NULL_HANDLE;
  VkDescriptorSetLayout set_layout_ = VK_NULL_HANDLE;
  VkPipelineLayout pipeline_layout_ = VK_NULL_HANDLE;
  VkPipeline pipeline_ = VK_NULL_HANDLE;
  VkDescriptorPool pool_ = VK_NULL_HANDLE;
  VkDescriptorSet set_ = VK_NULL_HANDLE;
  VkCommandPool command_pool_ = VK_NULL_HANDLE;
  VkCommandBuffer command_buffer_ = VK_NULL_HANDLE;
  VkFence fence_ = VK_NULL_HANDLE;
};

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_COMPUTE_KERNEL_H_
