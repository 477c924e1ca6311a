#include "accel_vulkan/testing/vulkan_test.h"

#include <cstring>

namespace dashi::vk::testing {

void VulkanTest::SetUp() {
  ContextOptions opts;
  opts.enable_validation = true;
  StatusOr<std::unique_ptr<VulkanContext>> ctx = VulkanContext::Create(opts);
  ASSERT_TRUE(ctx.ok()) << "cannot create a validated Vulkan device (this test never skips): "
                        << ctx.status().ToString();
  ctx_ = std::move(ctx).value();
}

void VulkanTest::TearDown() {
  if (ctx_ == nullptr) return;
  for (const std::string& m : ctx_->validation_messages()) ADD_FAILURE() << "validation: " << m;
}

StatusOr<DeviceBuffer> VulkanTest::GuardedBuffer(uint64_t bytes) {
  DASHI_ASSIGN_OR_RETURN(DeviceBuffer b, DeviceBuffer::Create(*ctx_, bytes + kGuardBytes));
  DASHI_RETURN_IF_ERROR(b.Fill(*ctx_, kGuardWord32));
  return b;
}

::testing::AssertionResult VulkanTest::GuardsIntact(const DeviceBuffer& buffer, uint64_t bytes) {
  StatusOr<std::vector<uint32_t>> g =
      buffer.DownloadValues<uint32_t>(*ctx_, kGuardBytes / 4, bytes);
  if (!g.ok()) return ::testing::AssertionFailure() << g.status().ToString();
  for (size_t i = 0; i < g->size(); ++i) {
    if ((*g)[i] != kGuardWord32) {
      return ::testing::AssertionFailure()
             << "guard word " << i << " after the output was overwritten (out-of-bounds write)";
    }
  }
  return ::testing::AssertionSuccess();
}

}  // namespace dashi::vk::testing
