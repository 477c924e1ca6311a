// Test support for every Vulkan test (GoogleTest): a fixture whose context has the Khronos
// validation layer on and that fails the test on any validation message, and the accelerator's
// guard words (accel_vulkan/guard_words.h) to catch out-of-bounds writes. A missing device or
// layer FAILS the test: nothing skips quietly.
//
//   class MyOpTest : public dashi::vk::testing::VulkanTest {};
//   TEST_F(MyOpTest, Matches) { ctx();  ... }
#ifndef DASHI_ACCEL_VULKAN_TESTING_VULKAN_TEST_H_
#define DASHI_ACCEL_VULKAN_TESTING_VULKAN_TEST_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "accel_vulkan/context.h"
#include "accel_vulkan/device_buffer.h"
#include "accel_vulkan/guard_words.h"

namespace dashi::vk::testing {

class VulkanTest : public ::testing::Test {
 protected:
  void SetUp() override;
  void TearDown() override;
  VulkanContext& ctx() { return *ctx_; }

  // A device buffer of `bytes` + kGuardBytes, entirely filled with kGuardWord.
  StatusOr<DeviceBuffer> GuardedBuffer(uint64_t bytes);
  // Checks that bytes [bytes, bytes + kGuardBytes) of `buffer` still hold the guard pattern.
  ::testing::AssertionResult GuardsIntact(const DeviceBuffer& buffer, uint64_t bytes);

  std::unique_ptr<VulkanContext> ctx_;
};

}  // namespace dashi::vk::testing

#endif  // DASHI_ACCEL_VULKAN_TESTING_VULKAN_TEST_H_
