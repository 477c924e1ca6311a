#include "accel_vulkan/compute_pipeline.h"

#include <string>
#include <vector>

#include "accel_vulkan/vk_status.h"

namespace dashi::vk {

StatusOr<VkDescriptorSetLayout> CreateStorageBufferSetLayout(VkDevice device,
                                                             uint32_t num_buffers) {
  std::vector<VkDescriptorSetLayoutBinding> bindings(num_buffers);
  for (uint32_t b = 0; b < num_buffers; ++b) {
    bindings[b] = {b, VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, 1, VK_SHADER_STAGE_COMPUTE_BIT, nullptr};
  }
  VkDescriptorSetLayoutCreateInfo ci{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_LAYOUT_CREATE_INFO};
  ci.bindingCount = num_buffers;
  ci.pBindings = bindings.data();
  VkDescriptorSetLayout layout = VK_NULL_HANDLE;
  DASHI_VK_RETURN_IF_ERROR(vkCreateDescriptorSetLayout(device, &ci, nullptr, &layout),
                           "vkCreateDescriptorSetLayout");
  return layout;
}

void WriteStorageBufferSet(VkDevice device, VkDescriptorSet set,
                           std::span<const VkDescriptorBufferInfo> infos) {
  std::vector<VkWriteDescriptorSet> writes(infos.size());
  for (uint32_t b = 0; b < infos.size(); ++b) {
    writes[b] = {VK_STRUCTURE_TYPE_WRITE_DESCRIPTOR_SET};
    writes[b].dstSet = set;
    writes[b].dstBinding = b;
    writes[b].descriptorCount = 1;
    writes[b].descriptorType = VK_DESCRIPTOR_TYPE_STORAGE_BUFFER;
    writes[b].pBufferInfo = &infos[b];
  }
  vkUpdateDescriptorSets(device, static_cast<uint32_t>(writes.size()), writes.data(), 0, nullptr);
}

StatusOr<std::unique_ptr<ComputePipeline>> ComputePipeline::Create(
    const VulkanContext& ctx, const ComputePipelineSpec& spec) {
  std::unique_ptr<ComputePipeline> p(new ComputePipeline(ctx));
  DASHI_RETURN_IF_ERROR(p->Init(spec));
  return p;
}

Status ComputePipeline::Init(const ComputePipelineSpec& spec) {
  const VkDevice dev = ctx_.device();
  num_buffers_ = spec.num_buffers;
  push_constant_bytes_ = spec.push_constant_bytes;
  if (spec.spirv.empty()) return InvalidArgumentError("empty SPIR-V");
  if (!spec.specialization.empty() &&
      (spec.specialization[0] == 0 || spec.specialization[0] > ctx_.info().max_workgroup_size_x)) {
    return InvalidArgumentError("workgroup size " + std::to_string(spec.specialization[0]) +
                                " is outside [1, " +
                                std::to_string(ctx_.info().max_workgroup_size_x) + "]");
  }
  VkShaderModuleCreateInfo smci{VK_STRUCTURE_TYPE_SHADER_MODULE_CREATE_INFO};
  smci.codeSize = spec.spirv.size_bytes();
  smci.pCode = spec.spirv.data();
  DASHI_VK_RETURN_IF_ERROR(vkCreateShaderModule(dev, &smci, nullptr, module_.Receive(dev)),
                           "vkCreateShaderModule");

  DASHI_ASSIGN_OR_RETURN(VkDescriptorSetLayout set_layout,
                         CreateStorageBufferSetLayout(dev, spec.num_buffers));
  set_layout_ = {dev, set_layout};

  VkPushConstantRange range{VK_SHADER_STAGE_COMPUTE_BIT, 0, spec.push_constant_bytes};
  VkPipelineLayoutCreateInfo plci{VK_STRUCTURE_TYPE_PIPELINE_LAYOUT_CREATE_INFO};
  plci.setLayoutCount = 1;
  plci.pSetLayouts = set_layout_.ptr();
  plci.pushConstantRangeCount = spec.push_constant_bytes > 0 ? 1 : 0;
  plci.pPushConstantRanges = &range;
  DASHI_VK_RETURN_IF_ERROR(
      vkCreatePipelineLayout(dev, &plci, nullptr, pipeline_layout_.Receive(dev)),
      "vkCreatePipelineLayout");

  std::vector<VkSpecializationMapEntry> entries(spec.specialization.size());
  for (uint32_t i = 0; i < entries.size(); ++i) {
    entries[i] = {i, static_cast<uint32_t>(i * sizeof(uint32_t)), sizeof(uint32_t)};
  }
  VkSpecializationInfo si{static_cast<uint32_t>(entries.size()), entries.data(),
                          spec.specialization.size() * sizeof(uint32_t),
                          spec.specialization.data()};
  VkComputePipelineCreateInfo cpci{VK_STRUCTURE_TYPE_COMPUTE_PIPELINE_CREATE_INFO};
  cpci.stage = {VK_STRUCTURE_TYPE_PIPELINE_SHADER_STAGE_CREATE_INFO};
  cpci.stage.stage = VK_SHADER_STAGE_COMPUTE_BIT;
  cpci.stage.module = module_.get();
  cpci.stage.pName = "main";
  cpci.stage.pSpecializationInfo = entries.empty() ? nullptr : &si;
  cpci.layout = pipeline_layout_.get();
  DASHI_VK_RETURN_IF_ERROR(
      vkCreateComputePipelines(dev, VK_NULL_HANDLE, 1, &cpci, nullptr, pipeline_.Receive(dev)),
      "vkCreateComputePipelines");

  VkDescriptorPoolSize ps{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER,
                          spec.num_buffers * spec.max_binding_sets};
  VkDescriptorPoolCreateInfo dpci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  dpci.maxSets = spec.max_binding_sets;
  dpci.poolSizeCount = spec.num_buffers > 0 ? 1 : 0;
  dpci.pPoolSizes = &ps;
  return VkCheck(vkCreateDescriptorPool(dev, &dpci, nullptr, pool_.Receive(dev)),
                 "vkCreateDescriptorPool");
}

StatusOr<VkDescriptorSet> ComputePipeline::Bindings(std::span<const VkBuffer> buffers) {
  if (buffers.size() != num_buffers_) {
    return InvalidArgumentError("pipeline takes " + std::to_string(num_buffers_) +
                                " buffers, got " + std::to_string(buffers.size()));
  }
  VkDescriptorSet set = VK_NULL_HANDLE;
  VkDescriptorSetAllocateInfo dsai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  dsai.descriptorPool = pool_.get();
  dsai.descriptorSetCount = 1;
  dsai.pSetLayouts = set_layout_.ptr();
  DASHI_VK_RETURN_IF_ERROR(vkAllocateDescriptorSets(ctx_.device(), &dsai, &set),
                           "vkAllocateDescriptorSets (raise max_binding_sets?)");
  std::vector<VkDescriptorBufferInfo> infos(buffers.size());
  for (uint32_t b = 0; b < buffers.size(); ++b) infos[b] = {buffers[b], 0, VK_WHOLE_SIZE};
  WriteStorageBufferSet(ctx_.device(), set, infos);
  return set;
}

}  // namespace dashi::vk
