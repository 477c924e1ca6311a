// DescriptorSetCache: one set per distinct buffer list, reused; more sets than one pool holds;
// Reset forgets them; binding counts outside 1..4 are errors. Fails on any validation message.
#include "accel_vulkan/descriptor_set_cache.h"

#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "accel_vulkan/device_buffer.h"
#include "accel_vulkan/testing/vulkan_test.h"

namespace dashi::vk {
namespace {

class DescriptorSetCacheTest : public testing::VulkanTest {};

TEST_F(DescriptorSetCacheTest, SameBuffersSameSetAcrossPools) {
  auto cache = DescriptorSetCache::Create(ctx());
  ASSERT_TRUE(cache.ok()) << cache.status().ToString();
  std::vector<DeviceBuffer> buffers;
  for (int i = 0; i < 12; ++i) buffers.push_back(*DeviceBuffer::Create(ctx(), 64 + 16 * i));
  auto r = [&](int i) { return BufferRange::Of(buffers[i]); };

  // 12·11 ordered pairs: more sets than one pool holds (64).
  std::set<VkDescriptorSet> distinct;
  for (int i = 0; i < 12; ++i) {
    for (int j = 0; j < 12; ++j) {
      if (i == j) continue;
      StatusOr<VkDescriptorSet> s = (*cache)->Get({r(i), r(j)});
      ASSERT_TRUE(s.ok()) << s.status().ToString();
      distinct.insert(*s);
    }
  }
  EXPECT_EQ(distinct.size(), 132u);
  EXPECT_EQ((*cache)->size(), 132u);
  // Asking again gives the cached sets; order and size are part of the key.
  EXPECT_EQ(*(*cache)->Get({r(3), r(7)}), *(*cache)->Get({r(3), r(7)}));
  EXPECT_NE(*(*cache)->Get({r(3), r(7)}), *(*cache)->Get({r(7), r(3)}));
  BufferRange shorter = r(3);
  shorter.size -= 16;
  EXPECT_NE(*(*cache)->Get({r(3)}), *(*cache)->Get({shorter}));
  EXPECT_EQ((*cache)->size(), 134u);  // the two single-buffer sets are new

  ASSERT_TRUE((*cache)->Reset().ok());
  EXPECT_EQ((*cache)->size(), 0u);
  EXPECT_TRUE((*cache)->Get({r(0), r(1), r(2), r(3)}).ok());
  EXPECT_EQ((*cache)->size(), 1u);
}

TEST_F(DescriptorSetCacheTest, BindingCountOutsideRangeIsAnError) {
  auto cache = DescriptorSetCache::Create(ctx());
  ASSERT_TRUE(cache.ok());
  DeviceBuffer b = *DeviceBuffer::Create(ctx(), 64);
  const BufferRange r = BufferRange::Of(b);
  EXPECT_FALSE((*cache)->Get({}).ok());
  static_assert(DescriptorSetCache::kMaxBindings == 5);
  EXPECT_FALSE((*cache)->Get({r, r, r, r, r, r}).ok());
  EXPECT_TRUE((*cache)->Get({r, r, r, r, r}).ok());  // the strip-tiled closure step binds 5
  EXPECT_TRUE((*cache)->Get({r, r, r, r}).ok());
}

}  // namespace
}  // namespace dashi::vk
