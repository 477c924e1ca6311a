// DescriptorSetCache: descriptor sets of storage buffers at bindings 0..n−1 (n ≤ 5), compatible
// with every ComputePipeline taking n buffers (identically defined set layouts), allocated once
// per distinct buffer list and then reused. Recording a long command buffer again and again (the
// decoder, every snapshot) then costs no vkUpdateDescriptorSets. Pools are added as needed.
//
// The cache keys on VkBuffer handles, and a destroyed buffer's handle can be reused by a new one:
// Reset() whenever a buffer it has seen may have been destroyed, and only when no pending
// submission uses one of its sets. Destroy before the VulkanContext.
//
//   DASHI_ASSIGN_OR_RETURN(auto cache, DescriptorSetCache::Create(ctx));
//   DASHI_ASSIGN_OR_RETURN(VkDescriptorSet set, cache->Get({BufferRange::Of(in), ...}));
#ifndef DASHI_ACCEL_VULKAN_DESCRIPTOR_SET_CACHE_H_
#define DASHI_ACCEL_VULKAN_DESCRIPTOR_SET_CACHE_H_

#include <cstdint>
#include <initializer_list>
#include <map>
#include <memory>
#include <vector>

#include <vulkan/vulkan.h>

#include "accel_vulkan/context.h"
#include "accel_vulkan/unique_handle.h"
#include "core_ref/status/status.h"

namespace dashi::vk {

// One storage-buffer binding: a whole buffer of `size` bytes (the descriptor covers all of it,
// guard region included, clamped to maxStorageBufferRange).
struct BufferRange {
  VkBuffer buffer = VK_NULL_HANDLE;
  VkDeviceSize size = 0;
  template <typename B>
  static BufferRange Of(const B& b) {
    return {b.buffer(), b.size()};
  }
};

class DescriptorSetCache {
 public:
  static constexpr uint32_t kMaxBindings = 5;  // the strip-tiled closure step binds 5

  static StatusOr<std::unique_ptr<DescriptorSetCache>> Create(const VulkanContext& ctx);
  DescriptorSetCache(const DescriptorSetCache&) = delete;
  DescriptorSetCache& operator=(const DescriptorSetCache&) = delete;

  // The set binding `buffers` (1..kMaxBindings) in order; the same set for the same list.
  StatusOr<VkDescriptorSet> Get(std::initializer_list<BufferRange> buffers);
  // Frees every set (keeps the first pool).
  Status Reset();
  size_t size() const { return sets_.size(); }

 private:
  explicit DescriptorSetCache(const VulkanContext& ctx) : ctx_(ctx) {}
  Status Init();
  Status AddPool();

  const VulkanContext& ctx_;
  VkDeviceSize max_range_ = 0;
  // By binding count (0 unused); declared before the pools, so destroyed after them.
  UniqueHandle<VkDescriptorSetLayout, vkDestroyDescriptorSetLayout> layouts_[kMaxBindings + 1];
  std::vector<UniqueHandle<VkDescriptorPool, vkDestroyDescriptorPool>> pools_;  // last allocates
  std::map<std::vector<uint64_t>, VkDescriptorSet> sets_;  // (handle bits, size) pairs
};

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_DESCRIPTOR_SET_CACHE_H_
