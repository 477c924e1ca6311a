#include "accel_vulkan/descriptor_set_cache.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "accel_vulkan/compute_pipeline.h"
#include "accel_vulkan/vk_status.h"

namespace dashi::vk {
namespace {

constexpr uint32_t kSetsPerPool = 64;

// A handle's bits (VkBuffer is a pointer on 64-bit platforms and a uint64_t elsewhere).
uint64_t HandleBits(VkBuffer b) {
  uint64_t v = 0;
  std::memcpy(&v, &b, sizeof(b));
  return v;
}

}  // namespace

StatusOr<std::unique_ptr<DescriptorSetCache>> DescriptorSetCache::Create(
    const VulkanContext& ctx) {
  std::unique_ptr<DescriptorSetCache> c(new DescriptorSetCache(ctx));
  DASHI_RETURN_IF_ERROR(c->Init());
  return c;
}

Status DescriptorSetCache::Init() {
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(ctx_.physical_device(), &props);
  max_range_ = props.limits.maxStorageBufferRange;
  for (uint32_t n = 1; n <= kMaxBindings; ++n) {
    DASHI_ASSIGN_OR_RETURN(VkDescriptorSetLayout layout,
                           CreateStorageBufferSetLayout(ctx_.device(), n));
    layouts_[n] = {ctx_.device(), layout};
  }
  return AddPool();
}

Status DescriptorSetCache::AddPool() {
  VkDescriptorPoolSize ps{VK_DESCRIPTOR_TYPE_STORAGE_BUFFER, kSetsPerPool * kMaxBindings};
  VkDescriptorPoolCreateInfo pci{VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO};
  pci.maxSets = kSetsPerPool;
  pci.poolSizeCount = 1;
  pci.pPoolSizes = &ps;
  UniqueHandle<VkDescriptorPool, vkDestroyDescriptorPool> pool;
  DASHI_VK_RETURN_IF_ERROR(
      vkCreateDescriptorPool(ctx_.device(), &pci, nullptr, pool.Receive(ctx_.device())),
      "vkCreateDescriptorPool");
  pools_.push_back(std::move(pool));
  return OkStatus();
}

StatusOr<VkDescriptorSet> DescriptorSetCache::Get(std::initializer_list<BufferRange> buffers) {
  const uint32_t n = static_cast<uint32_t>(buffers.size());
  if (n == 0 || n > kMaxBindings) {
    return InternalError("descriptor set of " + std::to_string(n) + " buffers (1.." +
                         std::to_string(kMaxBindings) + " supported)");
  }
  std::vector<uint64_t> key;
  key.reserve(2 * n);
  for (const BufferRange& r : buffers) {
    key.push_back(HandleBits(r.buffer));
    key.push_back(r.size);
  }
  if (auto it = sets_.find(key); it != sets_.end()) return it->second;

  // Every pool holds kSetsPerPool sets of up to kMaxBindings descriptors, so a pool with room for
  // one more set also has the descriptors for it.
  if (sets_.size() >= pools_.size() * kSetsPerPool) DASHI_RETURN_IF_ERROR(AddPool());
  VkDescriptorSet set = VK_NULL_HANDLE;
  VkDescriptorSetAllocateInfo ai{VK_STRUCTURE_TYPE_DESCRIPTOR_SET_ALLOCATE_INFO};
  ai.descriptorPool = pools_.back().get();
  ai.descriptorSetCount = 1;
  ai.pSetLayouts = layouts_[n].ptr();
  DASHI_VK_RETURN_IF_ERROR(vkAllocateDescriptorSets(ctx_.device(), &ai, &set),
                           "vkAllocateDescriptorSets");
  std::vector<VkDescriptorBufferInfo> infos;
  for (const BufferRange& r : buffers) {
    // The whole buffer (payload and guard region, so an out-of-bounds write lands in the guard),
    // as far as maxStorageBufferRange allows; callers check that every payload fits.
    infos.push_back({r.buffer, 0, std::min(r.size, max_range_)});
  }
  WriteStorageBufferSet(ctx_.device(), set, infos);
  sets_.emplace(std::move(key), set);
  return set;
}

Status DescriptorSetCache::Reset() {
  sets_.clear();
  pools_.resize(1);  // destroys the others
  return VkCheck(vkResetDescriptorPool(ctx_.device(), pools_[0].get(), 0),
                 "vkResetDescriptorPool");
}

}  // namespace dashi::vk
