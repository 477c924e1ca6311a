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
  if (ctx_.pipeline_statistics()) {
    cpci.flags |= VK_PIPELINE_CREATE_CAPTURE_STATISTICS_BIT_KHR |
                  VK_PIPELINE_CREATE_CAPTURE_INTERNAL_REPRESENTATIONS_BIT_KHR;
  }
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

namespace {

// A device function of VK_KHR_pipeline_executable_properties (the context enabled it), or null.
template <typename Fn>
Fn DeviceProc(VkDevice dev, const char* name) {
  return reinterpret_cast<Fn>(vkGetDeviceProcAddr(dev, name));
}

// Vulkan's two-call enumeration: get(&n, nullptr) for the count, then get(&n, items) into n
// elements made from `blank` (their sType set); `name` names the call in errors.
template <typename T, typename Get>
StatusOr<std::vector<T>> Enumerate(const char* name, const T& blank, Get get) {
  uint32_t n = 0;
  DASHI_VK_RETURN_IF_ERROR(get(&n, nullptr), name);
  std::vector<T> items(n, blank);
  DASHI_VK_RETURN_IF_ERROR(get(&n, items.data()), name);
  items.resize(n);
  return items;
}

// The executables of `pipeline`.
StatusOr<std::vector<VkPipelineExecutablePropertiesKHR>> Executables(VkDevice dev,
                                                                      VkPipeline pipeline) {
  constexpr const char* kName = "vkGetPipelineExecutablePropertiesKHR";
  auto get = DeviceProc<PFN_vkGetPipelineExecutablePropertiesKHR>(dev, kName);
  if (get == nullptr) return UnimplementedError(std::string(kName) + " missing");
  VkPipelineInfoKHR info{VK_STRUCTURE_TYPE_PIPELINE_INFO_KHR};
  info.pipeline = pipeline;
  return Enumerate(kName,
                   VkPipelineExecutablePropertiesKHR{
                       VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_PROPERTIES_KHR},
                   [&](uint32_t* n, VkPipelineExecutablePropertiesKHR* p) {
                     return get(dev, &info, n, p);
                   });
}

VkPipelineExecutableInfoKHR ExecutableInfo(VkPipeline pipeline, uint32_t index) {
  VkPipelineExecutableInfoKHR info{VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INFO_KHR};
  info.pipeline = pipeline;
  info.executableIndex = index;
  return info;
}

}  // namespace

StatusOr<std::vector<std::string>> ComputePipeline::ExecutableStatistics() const {
  if (!ctx_.pipeline_statistics()) {
    return FailedPreconditionError("pipeline statistics are not captured on this context");
  }
  const VkDevice dev = ctx_.device();
  DASHI_ASSIGN_OR_RETURN(std::vector<VkPipelineExecutablePropertiesKHR> execs,
                         Executables(dev, pipeline_.get()));
  constexpr const char* kName = "vkGetPipelineExecutableStatisticsKHR";
  auto get = DeviceProc<PFN_vkGetPipelineExecutableStatisticsKHR>(dev, kName);
  if (get == nullptr) return UnimplementedError(std::string(kName) + " missing");
  std::vector<std::string> lines;
  for (uint32_t e = 0; e < execs.size(); ++e) {
    const VkPipelineExecutableInfoKHR info = ExecutableInfo(pipeline_.get(), e);
    DASHI_ASSIGN_OR_RETURN(
        std::vector<VkPipelineExecutableStatisticKHR> stats,
        Enumerate(kName,
                  VkPipelineExecutableStatisticKHR{
                      VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_STATISTIC_KHR},
                  [&](uint32_t* n, VkPipelineExecutableStatisticKHR* p) {
                    return get(dev, &info, n, p);
                  }));
    for (const VkPipelineExecutableStatisticKHR& s : stats) {
      std::string value;
      switch (s.format) {
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_BOOL32_KHR:
          value = s.value.b32 ? "true" : "false";
          break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_INT64_KHR:
          value = std::to_string(s.value.i64);
          break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_UINT64_KHR:
          value = std::to_string(s.value.u64);
          break;
        case VK_PIPELINE_EXECUTABLE_STATISTIC_FORMAT_FLOAT64_KHR:
          value = std::to_string(s.value.f64);
          break;
        default:
          value = "?";
      }
      lines.push_back(std::string(execs[e].name) + ": " + s.name + " = " + value);
    }
  }
  return lines;
}

StatusOr<std::string> ComputePipeline::ExecutableRepresentations() const {
  if (!ctx_.pipeline_statistics()) {
    return FailedPreconditionError("pipeline statistics are not captured on this context");
  }
  const VkDevice dev = ctx_.device();
  DASHI_ASSIGN_OR_RETURN(std::vector<VkPipelineExecutablePropertiesKHR> execs,
                         Executables(dev, pipeline_.get()));
  constexpr const char* kName = "vkGetPipelineExecutableInternalRepresentationsKHR";
  auto get = DeviceProc<PFN_vkGetPipelineExecutableInternalRepresentationsKHR>(dev, kName);
  if (get == nullptr) return UnimplementedError(std::string(kName) + " missing");
  std::string out;
  for (uint32_t e = 0; e < execs.size(); ++e) {
    const VkPipelineExecutableInfoKHR info = ExecutableInfo(pipeline_.get(), e);
    DASHI_ASSIGN_OR_RETURN(
        std::vector<VkPipelineExecutableInternalRepresentationKHR> reps,
        Enumerate(kName,
                  VkPipelineExecutableInternalRepresentationKHR{
                      VK_STRUCTURE_TYPE_PIPELINE_EXECUTABLE_INTERNAL_REPRESENTATION_KHR},
                  [&](uint32_t* n, VkPipelineExecutableInternalRepresentationKHR* p) {
                    return get(dev, &info, n, p);
                  }));
    // Second call with the buffers the first one sized.
    uint32_t n = static_cast<uint32_t>(reps.size());
    std::vector<std::string> texts(n);
    for (uint32_t k = 0; k < n; ++k) {
      texts[k].assign(reps[k].dataSize, '\0');
      reps[k].pData = texts[k].data();
    }
    DASHI_VK_RETURN_IF_ERROR(get(dev, &info, &n, reps.data()), kName);
    for (uint32_t k = 0; k < n; ++k) {
      std::string text = texts[k].substr(0, reps[k].dataSize);
      if (reps[k].isText && !text.empty() && text.back() == '\0') text.pop_back();
      out += "=== " + std::string(execs[e].name) + ": " + reps[k].name + " (" +
             reps[k].description + ") ===\n" + (reps[k].isText ? text : "(binary, " +
             std::to_string(text.size()) + " bytes)") + "\n";
    }
  }
  return out;
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
