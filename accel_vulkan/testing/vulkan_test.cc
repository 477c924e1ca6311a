#include "accel_vulkan/testing/vulkan_test.h"

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
  return CreateGuardedBuffer(*ctx_, bytes);
}

::testing::AssertionResult VulkanTest::GuardsIntact(const DeviceBuffer& buffer, uint64_t bytes) {
  const Status st = CheckGuardWords(*ctx_, buffer, bytes, "output");
  if (!st.ok()) return ::testing::AssertionFailure() << st.ToString();
  return ::testing::AssertionSuccess();
}

}  // namespace dashi::vk::testing
