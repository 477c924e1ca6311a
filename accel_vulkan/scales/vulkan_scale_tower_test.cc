// VulkanScaleTower against core_ref's BuildScaleTower (integers equal, floats within 1e-12 of the
// tower's largest value; the conformance cases scales.* sweep more grids and seeds), what it
// reads back, its guard words, and its input checks. Every test fails on any validation message
// (VulkanTest).
#include "accel_vulkan/scales/vulkan_scale_tower.h"

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "accel_vulkan/testing/vulkan_test.h"
#include "core_ref/les/les_solver.h"
#include "core_ref/scales/layer_compare.h"
#include "core_ref/scales/scale_tower.h"
#include "core_ref/testing/random_inputs.h"

namespace dashi::vk {
namespace {

using testing::VulkanTest;

constexpr double kFloatTolerance = 1e-12;

std::vector<double> LesVorticity(int64_t n, uint64_t seed, int steps) {
  LesParams p;
  p.n = n;
  p.seed = seed;
  p.k_peak = 4;
  StatusOr<LesSolver> les = LesSolver::Create(p);
  EXPECT_TRUE(les.ok()) << les.status().ToString();
  for (int s = 0; s < steps; ++s) EXPECT_TRUE(les->Step().ok());
  return les->Vorticity();
}

class VulkanScaleTowerTest : public VulkanTest {
 protected:
  // Runs both towers on omega and checks them equal by the conformance measures.
  void ExpectMatchesCoreRef(const std::vector<double>& omega, int64_t n,
                            const ScaleTowerParams& params) {
    StatusOr<ScaleTower> ref = BuildScaleTower(omega, n, params);
    ASSERT_TRUE(ref.ok()) << ref.status().ToString();
    StatusOr<std::unique_ptr<VulkanScaleTower>> tower = VulkanScaleTower::Create(ctx(), n, params);
    ASSERT_TRUE(tower.ok()) << tower.status().ToString();
    StatusOr<std::vector<ScaleLayer>> dev = (*tower)->Run(omega);
    ASSERT_TRUE(dev.ok()) << dev.status().ToString();
    const LayerComparison c = CompareScaleLayers(*dev, ref->layers);
    EXPECT_EQ(c.integer_mismatches, 0) << c.first_difference;
    EXPECT_LE(c.max_float_error, kFloatTolerance) << c.largest_float_error;
    std::printf("N = %lld: %zu layers, max float error %.3g, %llu bytes of statistics read back\n",
                static_cast<long long>(n), dev->size(), c.max_float_error,
                static_cast<unsigned long long>((*tower)->last_report().stats_readback_bytes));
    EXPECT_TRUE((*tower)->CheckGuards().ok());
  }
};

TEST_F(VulkanScaleTowerTest, LesFieldMatchesCoreRef) {
  ExpectMatchesCoreRef(LesVorticity(32, 3, 0), 32, ScaleTowerParams{});
  ExpectMatchesCoreRef(LesVorticity(64, 5, 4), 64, ScaleTowerParams{});
}

TEST_F(VulkanScaleTowerTest, RandomFieldMatchesCoreRef) {
  // A white field: every band above the floor, closures of every depth.
  const RealField f = dashi::testing::RandomField({32, 32}, 11);
  const std::vector<double> omega(f.values().begin(), f.values().end());
  ScaleTowerParams p;
  p.k_lo = 2;
  ExpectMatchesCoreRef(omega, 32, p);
}

TEST_F(VulkanScaleTowerTest, ReadsBackOnlyTheLayerRecords) {
  const int64_t n = 64;
  StatusOr<std::unique_ptr<VulkanScaleTower>> tower =
      VulkanScaleTower::Create(ctx(), n, ScaleTowerParams{});
  ASSERT_TRUE(tower.ok()) << tower.status().ToString();
  ASSERT_TRUE((*tower)->Run(LesVorticity(n, 7, 0)).ok());
  const VulkanScaleTowerReport& r = (*tower)->last_report();
  const size_t layers = ScaleBands(n, 4).size();
  EXPECT_EQ(r.layers, static_cast<int>(layers));
  EXPECT_EQ(r.stats_readback_bytes, (layers + 1) * 104);  // no field crosses the bus
  EXPECT_GE(r.submissions, r.layers);
  EXPECT_LT(r.stats_readback_bytes + r.closure_readback_bytes, 1024u);
}

TEST_F(VulkanScaleTowerTest, RunsAgainWithTheSameResult) {
  const std::vector<double> a = LesVorticity(32, 1, 0), b = LesVorticity(32, 2, 0);
  StatusOr<std::unique_ptr<VulkanScaleTower>> tower =
      VulkanScaleTower::Create(ctx(), 32, ScaleTowerParams{});
  ASSERT_TRUE(tower.ok());
  StatusOr<std::vector<ScaleLayer>> first = (*tower)->Run(a);
  ASSERT_TRUE(first.ok());
  ASSERT_TRUE((*tower)->Run(b).ok());  // another field in between: no state leaks
  StatusOr<std::vector<ScaleLayer>> again = (*tower)->Run(a);
  ASSERT_TRUE(again.ok());
  const LayerComparison c = CompareScaleLayers(*again, *first);
  EXPECT_EQ(c.integer_mismatches, 0) << c.first_difference;
  EXPECT_EQ(c.max_float_error, 0.0) << c.largest_float_error;
}

TEST_F(VulkanScaleTowerTest, RejectsBadInput) {
  EXPECT_FALSE(VulkanScaleTower::Create(ctx(), 48, ScaleTowerParams{}).ok());  // not 2^k
  EXPECT_FALSE(VulkanScaleTower::Create(ctx(), 4, ScaleTowerParams{}).ok());   // below 8
  StatusOr<std::unique_ptr<VulkanScaleTower>> tower =
      VulkanScaleTower::Create(ctx(), 16, ScaleTowerParams{});
  ASSERT_TRUE(tower.ok());
  EXPECT_FALSE((*tower)->Run(std::vector<double>(15 * 16, 0.0)).ok());
  std::vector<double> nan(16 * 16, 0.0);
  nan[5] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_FALSE((*tower)->Run(nan).ok());
}

}  // namespace
}  // namespace dashi::vk
