#include "accel_vulkan/compute_kernel.h"

#include <string>
#include <vector>

#include "accel_vulkan/vk_status.h"

namespace dashi::vk {

StatusOr<std::unique_ptr<ComputeKernel>> ComputeKernel::Create(const VulkanContext& ctx,
                                                               const ComputeKernelSpec& spec) {
  std::unique_ptr<ComputeKernel> k(new ComputeKernel(ctx));
  DASHI_RETURN_IF_ERROR(k->Init(spec));
  return k;
}

Status ComputeKernel::Init(const ComputeKernelSpec& spec) {
  spec_ = spec;
  const VkDevice dev = ctx_.device();
  if (spec.spirv.empty()) return InvalidArgumentError("empty SPIR-V");
  if (spec.workgroup_size_x == 0 || spec.workgroup_size_x > ctx_.info().max_workgroup_size_x) {
    return InvalidArgumentError("workgroup size " + std::to_string(spec.workgroup_size_x) +
                                " is outside [1, " +
                                std::to_string(ctx_.info().max_workgroup_size_x) + "]");
  }
  VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  smci.codeSize = spec.spirv.size_bytes();
  smci.pCode = spec.spirv.data();
  DASHI_VK_RETURN_IF_ERROR(vkCreateShaderModule(dev, &smci, nullptr, &module_),
                           "vkCreateShaderModule");

  std::vector<VkDescriptorSetLayoutBinding> bindings(spec.num_buffers);
  for (uint32_t b = 0; b < spec.num_buffers; ++b) {
    bindings[b] = {b, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  }
  VkDescriptorSetLayoutCreateInfo dslci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  dslci.bindingCount = spec.num_buffers;
  dslci.pBindings = bindings.data();
  DASHI_VK_RETURN_IF_ERROR(vkCreateDescriptorSetLayout(dev, &dslci, nullptr, &set_layout_),
                           "vkCreateDescriptorSetLayout");

  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, spec.push_constant_bytes};
  VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  plci.setLayoutCount = 1;
  plci.pSetLayouts = &set_layout_;
  plci.pushConstantRangeCount = spec.push_constant_bytes > 0 ? 1 : 0;
  plci.pPushConstantRanges = &range;
  DASHI_VK_RETURN_IF_ERROR(vkCreatePipelineLayout(dev, &plci, nullptr, &pipeline_layout_),
                           "vkCreatePipelineLayout");

  VkSpecializationMapEntry entry{0, 0, sizeof(uint32_t)};
  VkSpecializationInfo si{1, &entry, sizeof(uint32_t), &spec_.workgroup_size_x};
  VkComputePipelineCreateInfo cpci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  cpci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpci.stage.module = module_;
  cpci.stage.pName = "main";
  cpci.stage.pSpecializationInfo = &si;
  cpci.layout = pipeline_layout_;
  DASHI_VK_RETURN_IF_ERROR(
      vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &cpci, nullptr, &pipeline_),
      "vkCreateComputePipelines");

  VkDescriptorPoolSize ps{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, spec.num_buffers};
  VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dpci.maxSets = 1;
  dpci.poolSizeCount = 1;
  dpci.pPoolSizes = &ps;
  DASHI_VK_RETURN_IF_ERROR(vkCreateDescriptorPool(dev, &dpci, nullptr, &pool_),
                           "vkCreateDescriptorPool");
  VkDescriptorSetAllocateInfo dsai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  dsai.descriptorPool = pool_;
  dsai.descriptorSetCount = 1;
  dsai.pSetLayouts = &set_layout_;
  DASHI_VK_RETURN_IF_ERROR(vkAllocateDescriptorSets(dev, &dsai, &set_), "vkAllocateDescriptorSets");

  VkCommandPoolCreateInfo cpoolci{VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO};
  cpoolci.flags = VK_COMMAND_POOL_CREATE_RESET_COMMAND_BUFFER_BIT;
  cpoolci.queueFamilyIndex = ctx_.queue_family();
  DASHI_VK_RETURN_IF_ERROR(vkCreateCommandPool(dev, &cpoolci, nullptr, &command_pool_),
                           "vkCreateCommandPool");
  VkCommandBufferAllocateInfo cbai{VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO};
  cbai.commandPool = command_pool_;
  cbai.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cbai.commandBufferCount = 1;
  DASHI_VK_RETURN_IF_ERROR(vkAllocateCommandBuffers(dev, &cbai, &command_buffer_),
                           "vkAllocateCommandBuffers");
  VkFenceCreateInfo fci{VK_STRUCTURE_TYPE_FENCE_CREATE_INFO};
  return VkCheck(vkCreateFence(dev, &fci, nullptr, &fence_), "vkCreateFence");
}

Status ComputeKernel::Run(std::span<const HostVisibleBuffer* const> buffers,
                          std::span<const uint8_t> push_constants, uint32_t groups_x) {
  if (buffers.size() != spec_.num_buffers) {
    return InvalidArgumentError("kernel takes " + std::to_string(spec_.num_buffers) +
                                " buffers, got " + std::to_string(buffers.size()));
  }
  if (push_constants.size() != spec_.push_constant_bytes) {
    return InvalidArgumentError("kernel takes " + std::to_string(spec_.push_constant_bytes) +
                                " push-constant bytes, got " +
                                std::to_string(push_constants.size()));
  }
  const VkDevice dev = ctx_.device();
  std::vector<VkDescriptorBufferInfo> infos(buffers.size());
  std::vector<VkWriteDescriptorSet> writes(buffers.size());
  for (uint32_t b = 0; b < buffers.size(); ++b) {
    infos[b] = {buffers[b]->buffer(), 0, VK_WHOLE_SIZE};
    writes[b] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[b].dstSet = set_;
    writes[b].dstBinding = b;
    writes[b].descriptorCount = 1;
    writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[b].pBufferInfo = &infos[b];
  }
  vkUpdateDescriptorSets(dev, static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);

  DASHI_VK_RETURN_IF_ERROR(vkResetCommandBuffer(command_buffer_, 0), "vkResetCommandBuffer");
  VkCommandBufferBeginInfo begin{VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO};
  begin.flags = VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT;
  DASHI_VK_RETURN_IF_ERROR(vkBeginCommandBuffer(command_buffer_, &begin), "vkBeginCommandBuffer");
  vkCmdBindPipeline(command_buffer_, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_);
  vkCmdBindDescriptorSets(command_buffer_, VK_PIPELINE_BIND_POINT_COMPUTE, pipeline_layout_, 0, 1,
                          &set_, 0, nullptr);
  if (!push_constants.empty()) {
    vkCmdPushConstants(command_buffer_, pipeline_layout_, VK_SHADER_STAGE_COMPUTE_BIT, 0,
                       static_cast<uint32_t>(push_constants.size()), push_constants.data());
  }
  vkCmdDispatch(command_buffer_, groups_x, 1, 1);
  // Make the shader's writes visible to the host reads that follow the fence.
  VkMemoryBarrier barrier{VK_STRUCTURE_TYPE_MEMORY_BARRIER};
  barrier.srcAccessMask = VK_ACCESS_SHADER_WRITE_BIT;
  barrier.dstAccessMask = VK_ACCESS_HOST_READ_BIT;
  vkCmdPipelineBarrier(command_buffer_, VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT,
                       VK_PIPELINE_STAGE_HOST_BIT, 0, 1, &barrier, 0, nullptr, 0, nullptr);
  DASHI_VK_RETURN_IF_ERROR(vkEndCommandBuffer(command_buffer_), "vkEndCommandBuffer");

  VkSubmitInfo submit{VK_STRUCTURE_TYPE_SUBMIT_INFO};
  submit.commandBufferCount = 1;
  submit.pCommandBuffers = &command_buffer_;
  DASHI_VK_RETURN_IF_ERROR(vkResetFences(dev, 1, &fence_), "vkResetFences");
  DASHI_VK_RETURN_IF_ERROR(vkQueueSubmit(ctx_.queue(), 1, &submit, fence_), "vkQueueSubmit");
  return VkCheck(vkWaitForFences(dev, 1, &fence_, VK_TRUE, UINT64_C(60'000'000'000)),
                 "vkWaitForFences (60 s)");
}

ComputeKernel::~ComputeKernel() {
  const VkDevice dev = ctx_.device();
  if (fence_) vkDestroyFence(dev, fence_, nullptr);
  if (command_pool_) vkDestroyCommandPool(dev, command_pool_, nullptr);
  if (pool_) vkDestroyDescriptorPool(dev, pool_, nullptr);
  if (pipeline_) vkDestroyPipeline(dev, pipeline_, nullptr);
  if (pipeline_layout_) vkDestroyPipelineLayout(dev, pipeline_layout_, nullptr);
  if (set_layout_) vkDestroyDescriptorSetLayout(dev, set_layout_, nullptr);
  if (module_) vkDestroyShaderModule(dev, module_, nullptr);
}

}  // namespace dashi::vk
