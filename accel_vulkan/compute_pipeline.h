// ComputePipeline: a compute pipeline built from embedded SPIR-V, with `num_buffers` storage
// buffers at set 0 (bindings 0..n−1), one push-constant block (mirrored by a C++ struct with
// static_asserts next to the op that uses it), and uint32 specialization constants 0..k−1 (the
// workgroup size is constant 0 by convention). Bindings() makes a descriptor set for a list of
// buffers; make them once and reuse them across dispatches. Move-only via unique_ptr; destroy
// before the VulkanContext.
#ifndef DASHI_ACCEL_VULKAN_COMPUTE_PIPELINE_H_
#define DASHI_ACCEL_VULKAN_COMPUTE_PIPELINE_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

#include "accel_vulkan/context.h"
#include "accel_vulkan/unique_handle.h"
#include "core_ref/status/status.h"

namespace dashi::vk {

struct ComputePipelineSpec {
  std::span<const uint32_t> spirv;
  uint32_t num_buffers = 1;
  uint32_t push_constant_bytes = 0;
  std::vector<uint32_t> specialization;  // constant_id i = specialization[i]
  uint32_t max_binding_sets = 16;        // descriptor sets Bindings() may allocate
};

// The set layout of that convention: `num_buffers` storage buffers at bindings 0..n−1, compute
// stage. Sets allocated with any layout made here are compatible with every pipeline of n buffers
// (DescriptorSetCache relies on it). The caller destroys the layout.
StatusOr<VkDescriptorSetLayout> CreateStorageBufferSetLayout(VkDevice device,
                                                             uint32_t num_buffers);
// Points binding b of `set` at infos[b], for every b.
void WriteStorageBufferSet(VkDevice device, VkDescriptorSet set,
                           std::span<const VkDescriptorBufferInfo> infos);

class ComputePipeline {
 public:
  static StatusOr<std::unique_ptr<ComputePipeline>> Create(const VulkanContext& ctx,
                                                           const ComputePipelineSpec& spec);
  ComputePipeline(const ComputePipeline&) = delete;
  ComputePipeline& operator=(const ComputePipeline&) = delete;

  // A descriptor set binding `buffers` (exactly num_buffers, whole ranges) in order.
  StatusOr<VkDescriptorSet> Bindings(std::span<const VkBuffer> buffers);

  VkPipeline pipeline() const { return pipeline_.get(); }
  VkPipelineLayout layout() const { return pipeline_layout_.get(); }
  uint32_t push_constant_bytes() const { return push_constant_bytes_; }

  // The driver's statistics of the compiled pipeline (VK_KHR_pipeline_executable_properties), one
  // line per statistic: "<executable name>: <statistic name> = <value>" (e.g. NVIDIA's register
  // count). FAILED_PRECONDITION when the context does not capture them
  // (ContextOptions::capture_pipeline_statistics, VulkanContext::pipeline_statistics()).
  StatusOr<std::vector<std::string>> ExecutableStatistics() const;
  // The driver's internal representations (compiler IR, assembly) where it exposes any, as
  // "=== <executable>: <name> (<description>) ===" headers followed by the text; the same
  // precondition.
  StatusOr<std::string> ExecutableRepresentations() const;

 private:
  explicit ComputePipeline(const VulkanContext& ctx) : ctx_(ctx) {}
  Status Init(const ComputePipelineSpec& spec);

  const VulkanContext& ctx_;
  uint32_t num_buffers_ = 0;
  uint32_t push_constant_bytes_ = 0;
  // In creation order: destroyed in reverse (the pool and the pipeline before its layouts).
  UniqueHandle<VkShaderModule, vkDestroyShaderModule> module_;
  UniqueHandle<VkDescriptorSetLayout, vkDestroyDescriptorSetLayout> set_layout_;
  UniqueHandle<VkPipelineLayout, vkDestroyPipelineLayout> pipeline_layout_;
  UniqueHandle<VkPipeline, vkDestroyPipeline> pipeline_;
  UniqueHandle<VkDescriptorPool, vkDestroyDescriptorPool> pool_;
};

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_COMPUTE_PIPELINE_H_
