#include "core_ref/learner/mode_rotation.h"

#include <cmath>
#include <vector>

#include "core_ref/rollout/vecmat.h"
#include "gtest/gtest.h"

namespace dashi {
namespace {

// N = 32, k_lo = 1: two low modes ((0,1), (1,0)), no anchors: D = 6.
ProxySpec SmallSpec() {
  StatusOr<ProxySpec> s = ProxySpecFromAnchors(32, 1, 2, {});
  EXPECT_TRUE(s.ok()) << s.status().ToString();
  return *s;
}

// States rotating and decaying exactly: c_t = g_m^t c_0 per mode, bands decaying by 0.95.
std::vector<double> Rotating(const std::vector<ComplexGain>& g, int64_t frames) {
  std::vector<double> z;
  std::vector<ComplexGain> c = {{1.0, 0.5}, {-0.3, 0.8}};
  double band = 2.0;
  for (int64_t t = 0; t < frames; ++t) {
    for (size_t m = 0; m < c.size(); ++m) {
      z.push_back(c[m].re);
      z.push_back(c[m].im);
      c[m] = {g[m].re * c[m].re - g[m].im * c[m].im, g[m].re * c[m].im + g[m].im * c[m].re};
    }
    z.push_back(band);
    z.push_back(0.5 * band);
    band *= 0.95;
  }
  return z;
}

TEST(ModeRotationTest, RecoversExactRotationsForEveryK) {
  const ProxySpec spec = SmallSpec();
  ASSERT_EQ(spec.dim(), 6);
  const std::vector<ComplexGain> g = {{0.98 * std::cos(0.1), 0.98 * std::sin(0.1)},
                                      {0.9 * std::cos(-0.4), 0.9 * std::sin(-0.4)}};
  const std::vector<double> z = Rotating(g, 50);
  for (int64_t k : {1, 3, 8}) {
    StatusOr<ModeRotationFit> fit = FitModeRotations(TrajectorySet{6, {z}}, spec, k);
    ASSERT_TRUE(fit.ok()) << fit.status().ToString();
    for (size_t m = 0; m < 2; ++m) {
      EXPECT_NEAR(fit->modes[m].re, g[m].re, 1e-10) << "K " << k << " mode " << m;
      EXPECT_NEAR(fit->modes[m].im, g[m].im, 1e-10) << "K " << k << " mode " << m;
    }
    EXPECT_NEAR(fit->mid_gain, 0.95, 1e-10);
    EXPECT_NEAR(fit->high_gain, 0.95, 1e-10);
    // The block reproduces one step of the data: z_1 = z_0·A.
    const std::vector<double> a = ModeRotationMatrix(*fit, 6);
    std::vector<double> z1(6);
    ASSERT_TRUE(CanonicalVecMat(std::span<const double>(z).first(6), a, z1).ok());
    for (int i = 0; i < 6; ++i) EXPECT_NEAR(z1[i], z[6 + i], 1e-10) << i;
  }
}

TEST(ModeRotationTest, GrowthIsClippedToTheUnitCircle) {
  const ProxySpec spec = SmallSpec();
  const std::vector<ComplexGain> g = {{1.1, 0.0}, {0.0, 1.05}};
  const std::vector<double> z = Rotating(g, 20);
  StatusOr<ModeRotationFit> fit = FitModeRotations(TrajectorySet{6, {z}}, spec, 2);
  ASSERT_TRUE(fit.ok());
  for (const ComplexGain& m : fit->modes) {
    EXPECT_NEAR(m.re * m.re + m.im * m.im, 1.0, 1e-15);
  }
}

}  // namespace
}  // namespace dashi
