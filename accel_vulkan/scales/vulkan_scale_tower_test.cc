// VulkanScaleTower against core_ref's BuildScaleTower (integers equal, floats within 1e-12 of the
// tower's largest value; the conformance cases scales.* sweep more grids and seeds), what it
// reads back, its guard words, and its input checks. Every test fails on any validation message
// (VulkanTest).
#include "accel_vulkan/scales/vulkan_scale_tower.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "accel_vulkan/testing/vulkan_test.h"
#include "core_ref/carrier/closure.h"
#include "core_ref/carrier/defect.h"
#include "core_ref/carrier/pda_threshold.h"
#include "core_ref/carrier/smoothing.h"
#include "core_ref/les/les_solver.h"
#include "core_ref/scales/filament_trace.h"
#include "core_ref/scales/layer_sums.h"
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

// The reference twin of every step after the FFT, on the device's own intermediates (read back in
// the kCarriers mode): P_τ of the normalised band, the closure, the defects and the layer sums in
// core_ref's order must give the device's carriers and statistics bit for bit — floats included.
void ExpectTwinOfDeviceIntermediates(VulkanContext& ctx, const std::vector<double>& omega,
                                     int64_t n, const ScaleTowerParams& params) {
  StatusOr<std::unique_ptr<VulkanScaleTower>> tower = VulkanScaleTower::Create(ctx, n, params);
  ASSERT_TRUE(tower.ok()) << tower.status().ToString();
  StatusOr<std::vector<ScaleLayer>> dev = (*tower)->Run(omega, TowerReadback::kCarriers);
  ASSERT_TRUE(dev.ok()) << dev.status().ToString();
  const TowerIntermediates& in = (*tower)->last_intermediates();
  const std::vector<ScaleBand> bands = ScaleBands(n, params.k_lo);
  ASSERT_EQ(in.band.size(), bands.size());
  EXPECT_EQ((*tower)->last_report().carrier_readback_bytes,
            static_cast<uint64_t>(n * (n / 2 + 1) * 16 + bands.size() * n * n * 16));
  double field_max = 0.0;
  for (double v : omega) field_max = std::fmax(field_max, std::fabs(v));
  const GridShape shape{n, n};
  for (size_t l = 0; l < bands.size(); ++l) {
    SCOPED_TRACE("layer " + std::to_string(l));
    const std::vector<double>& b = in.band[l];
    LayerSums sums;
    AddSpectrumSums(in.spectrum, n, bands[l], sums);
    for (double v : b) sums.max_abs = std::fmax(sums.max_abs, std::fabs(v));
    sums.below_floor = sums.max_abs < params.relative_floor * field_max;
    const RealField normalised = sums.below_floor
                                     ? *RealField::FromValues(shape, std::vector<double>(b.size(), 0.0))
                                     : NormalizeByMaxAbs(*RealField::FromValues(shape, b));
    StatusOr<Carrier> s0 = PdaThreshold(normalised, params.threshold);
    ASSERT_TRUE(s0.ok());
    EXPECT_TRUE(std::ranges::equal(s0->values(), in.initial[l].values()));
    StatusOr<ClosureResult> closed = Closure(*s0, &normalised, params.closure);
    ASSERT_TRUE(closed.ok());
    EXPECT_TRUE(std::ranges::equal(closed->fixed_point.values(), in.closed[l].values()));
    sums.closure_depth = closed->depth;
    sums.defect_before = Defect(*s0);
    sums.defect_after = Defect(closed->fixed_point);
    AddCarrierSums(b, s0->values(), closed->fixed_point.values(),
                   l > 0 ? in.closed[l - 1].values() : std::span<const int8_t>(), sums);
    const ScaleLayer want = LayerFromSums(bands[l], n, sums);
    const ScaleLayer& got = (*dev)[l];
    const LayerComparison c = CompareScaleLayers({got}, {want});
    EXPECT_EQ(c.integer_mismatches, 0) << c.first_difference;
    // Bit for bit: the same sums of the same values in the same order.
    EXPECT_EQ(got.energy, want.energy);
    EXPECT_EQ(got.enstrophy, want.enstrophy);
    EXPECT_EQ(got.max_abs, want.max_abs);
    EXPECT_EQ(got.concentration, want.concentration);
  }
  // The filament trace of the device's carriers (a host computation in this separate mode) is
  // core_ref's trace of its own tower.
  StatusOr<ScaleTower> ref = BuildScaleTower(omega, n, params);
  ASSERT_TRUE(ref.ok());
  ScaleTower from_device{n, *dev, in.closed, in.initial};
  const FilamentTrace a = TraceFilaments(from_device), want = TraceFilaments(*ref);
  EXPECT_EQ(a.components, want.components);
  EXPECT_EQ(a.alive_from_layer0, want.alive_from_layer0);
  EXPECT_EQ(a.filaments.size(), want.filaments.size());
}

TEST_F(VulkanScaleTowerTest, TwinOfCoreRefOnTheDevicesIntermediates) {
  ExpectTwinOfDeviceIntermediates(ctx(), LesVorticity(64, 5, 4), 64, ScaleTowerParams{});
  const RealField f = dashi::testing::RandomField({32, 32}, 13);
  ScaleTowerParams p;
  p.k_lo = 2;
  ExpectTwinOfDeviceIntermediates(ctx(), std::vector<double>(f.values().begin(), f.values().end()),
                                  32, p);
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
  EXPECT_EQ(r.carrier_readback_bytes, 0u);
  EXPECT_NEAR(r.forward_ms + r.band_ms + r.threshold_ms + r.closure_ms + r.sums_ms, r.device_ms,
              1e-9 * (1 + r.device_ms));
  EXPECT_TRUE((*tower)->last_intermediates().band.empty());
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
