// Tests of the device capability queries: the variant choice for every combination of reported
// float controls (pure functions), and the queries on the default device (lavapipe in CI) with the
// validation layer on.
#include "accel_vulkan/device_caps/device_caps.h"

#include <bit>
#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "accel_vulkan/testing/vulkan_test.h"

namespace dashi::vk {
namespace {

Float64Controls FromBits(uint32_t bits) {
  Float64Controls fc;
  fc.denorm_preserve = (bits & 1) != 0;
  fc.denorm_flush_to_zero = (bits & 2) != 0;
  fc.signed_zero_inf_nan_preserve = (bits & 4) != 0;
  fc.rounding_mode_rte = (bits & 8) != 0;
  fc.rounding_mode_rtz = (bits & 16) != 0;
  return fc;
}

TEST(FloatControlsVariantTest, BitsAreDistinctAndIndexTheEightVariants) {
  for (uint32_t bit : {kVariantDenormPreserve, kVariantSignedZeroInfNanPreserve,
                       kVariantRoundingModeRte}) {
    EXPECT_TRUE(std::has_single_bit(bit)) << bit;
    EXPECT_LT(bit, spirv::kFloatControlsVariantCount);
  }
  EXPECT_EQ(kVariantDenormPreserve | kVariantSignedZeroInfNanPreserve | kVariantRoundingModeRte,
            spirv::kFloatControlsVariantCount - 1);
}

// The variant declares exactly the modes the device reports; flush-to-zero and RTZ are never
// declared (the contract wants subnormals and round-to-nearest-even).
TEST(FloatControlsVariantTest, DeclaresExactlyTheReportedPreservingModes) {
  for (uint32_t bits = 0; bits < 32; ++bits) {
    const Float64Controls fc = FromBits(bits);
    const uint32_t v = SupportedFloatControlsVariant(fc);
    EXPECT_LT(v, spirv::kFloatControlsVariantCount) << fc.ToString();
    EXPECT_EQ((v & kVariantDenormPreserve) != 0, fc.denorm_preserve) << fc.ToString();
    EXPECT_EQ((v & kVariantSignedZeroInfNanPreserve) != 0, fc.signed_zero_inf_nan_preserve)
        << fc.ToString();
    EXPECT_EQ((v & kVariantRoundingModeRte) != 0, fc.rounding_mode_rte) << fc.ToString();
  }
}

TEST(FloatControlsVariantTest, NamesEveryVariant) {
  EXPECT_EQ(FloatControlsVariantName(0), "none");
  EXPECT_EQ(FloatControlsVariantName(kVariantDenormPreserve), "DenormPreserve");
  EXPECT_EQ(FloatControlsVariantName(kVariantSignedZeroInfNanPreserve), "SignedZeroInfNanPreserve");
  EXPECT_EQ(FloatControlsVariantName(kVariantRoundingModeRte), "RoundingModeRTE");
  EXPECT_EQ(FloatControlsVariantName(kVariantDenormPreserve | kVariantRoundingModeRte),
            "DenormPreserve+RoundingModeRTE");
  EXPECT_EQ(FloatControlsVariantName(kVariantSignedZeroInfNanPreserve | kVariantRoundingModeRte),
            "SignedZeroInfNanPreserve+RoundingModeRTE");
  EXPECT_EQ(FloatControlsVariantName(7), "DenormPreserve+SignedZeroInfNanPreserve+RoundingModeRTE");
}

TEST(FloatControlsVariantTest, ToStringListsEveryControl) {
  EXPECT_EQ(FromBits(0).ToString(),
            "DenormPreserve=0 DenormFlushToZero=0 SignedZeroInfNanPreserve=0 RTE=0 RTZ=0");
  EXPECT_EQ(FromBits(1 | 4 | 8).ToString(),
            "DenormPreserve=1 DenormFlushToZero=0 SignedZeroInfNanPreserve=1 RTE=1 RTZ=0");
  EXPECT_EQ(FromBits(2 | 16).ToString(),
            "DenormPreserve=0 DenormFlushToZero=1 SignedZeroInfNanPreserve=0 RTE=0 RTZ=1");
}

class DeviceCapsTest : public testing::VulkanTest {};

// The queries on the device agree with what the device reports through the other paths: the
// float controls read twice are the same, and an SM count is reported exactly when the device
// lists VK_NV_shader_sm_builtins.
TEST_F(DeviceCapsTest, QueriesAgreeWithTheDevice) {
  const Float64Controls a = QueryFloat64Controls(ctx());
  const Float64Controls b = QueryFloat64Controls(ctx());
  EXPECT_EQ(a.ToString(), b.ToString());
  EXPECT_LT(SupportedFloatControlsVariant(a), spirv::kFloatControlsVariantCount);
  std::printf("device '%s': %s -> variant %s\n", ctx().info().name.c_str(), a.ToString().c_str(),
              FloatControlsVariantName(SupportedFloatControlsVariant(a)).c_str());

  uint32_t count = 0;
  ASSERT_EQ(vkEnumerateDeviceExtensionProperties(ctx().physical_device(), nullptr, &count,
                                                 nullptr),
            VK_SUCCESS);
  std::vector<VkExtensionProperties> exts(count);
  ASSERT_EQ(vkEnumerateDeviceExtensionProperties(ctx().physical_device(), nullptr, &count,
                                                 exts.data()),
            VK_SUCCESS);
  bool listed = false;
  for (const VkExtensionProperties& e : exts) {
    listed = listed || std::string(e.extensionName) == VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME;
  }
  const std::optional<SmInfo> sm = QuerySmInfo(ctx());
  EXPECT_EQ(sm.has_value(), listed);
  if (sm) {
    EXPECT_GT(sm->sm_count, 0u);
    EXPECT_GT(sm->warps_per_sm, 0u);
  }
}

}  // namespace
}  // namespace dashi::vk
