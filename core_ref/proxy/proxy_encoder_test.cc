#include "core_ref/proxy/proxy_encoder.h"

#include <cmath>
#include <numbers>
#include <set>
#include <utility>

#include <gtest/gtest.h>

#include "core_ref/prng/prng.h"

namespace dashi {
namespace {

// ω(x, y) = 2 Re(c e^{i(kx x + ky y)}) sampled on an N×N grid (row i ↔ y, column j ↔ x).
std::vector<double> PlaneWave(int64_t n, const Mode& m, Complex c) {
  std::vector<double> w(static_cast<size_t>(n * n));
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      const double th = 2.0 * std::numbers::pi * (double(m.kx) * j + double(m.ky) * i) / double(n);
      w[i * n + j] = 2.0 * (c * std::polar(1.0, th)).real();
    }
  }
  return w;
}

std::vector<double> Noise(int64_t n, uint64_t seed) {
  Xoshiro256ss rng(seed);
  std::vector<double> w(static_cast<size_t>(n * n));
  for (double& x : w) x = rng.NextDouble() - 0.5;
  return w;
}

TEST(ProxyEncoderTest, CanonicalModesAreOrderedAndFreeOfHermitianDuplicates) {
  const std::vector<Mode> modes = CanonicalModes(32);
  std::set<std::pair<int64_t, int64_t>> seen;
  for (size_t i = 0; i < modes.size(); ++i) {
    const Mode& m = modes[i];
    EXPECT_TRUE(m.kx > 0 || (m.kx == 0 && m.ky > 0));
    EXPECT_LE(m.kx, 10);
    EXPECT_LE(std::llabs(m.ky), 10);
    EXPECT_FALSE(seen.count({-m.kx, -m.ky})) << "conjugate of (" << m.kx << "," << m.ky << ")";
    seen.insert({m.kx, m.ky});
    if (i > 0) {
      const Mode& p = modes[i - 1];
      const int64_t a = p.kx * p.kx + p.ky * p.ky, b = m.kx * m.kx + m.ky * m.ky;
      EXPECT_TRUE(a < b || (a == b && (p.kx < m.kx || (p.kx == m.kx && p.ky < m.ky))));
    }
  }
  // (2·10+1)² − 1 non-zero modes in the square, half of them independent.
  EXPECT_EQ(modes.size(), static_cast<size_t>((21 * 21 - 1) / 2));
}

TEST(ProxyEncoderTest, DimensionAndBands) {
  StatusOr<ProxySpec> spec = MakeProxySpec(128, 12, 24, 32, Noise(128, 1));
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  EXPECT_EQ(spec->anchors.size(), 32u);
  EXPECT_EQ(spec->dim(), 2 * static_cast<int64_t>(spec->low_modes.size() + 32) + 2);
  EXPECT_EQ(spec->low_modes.size() + spec->anchors.size() + spec->mid_residual.size() +
                spec->high_residual.size(),
            CanonicalModes(128).size());
  std::printf("N=128 k_lo=12 k_mid=24 M=32: D = %lld (low modes %zu)\n",
              static_cast<long long>(spec->dim()), spec->low_modes.size());
}

TEST(ProxyEncoderTest, PlaneWaveLandsInItsCoefficient) {
  const int64_t n = 32;
  StatusOr<ProxySpec> spec = MakeProxySpec(n, 3, 6, 2, Noise(n, 2));
  ASSERT_TRUE(spec.ok());
  for (size_t idx : {size_t{0}, size_t{4}, spec->low_modes.size() - 1}) {
    const Mode m = spec->low_modes[idx];
    const Complex c(0.25, -0.75);
    StatusOr<std::vector<double>> z = Encode(*spec, PlaneWave(n, m, c));
    ASSERT_TRUE(z.ok());
    for (int64_t k = 0; k < spec->dim(); ++k) {
      double want = 0;
      if (k == int64_t(2 * idx)) want = c.real();
      if (k == int64_t(2 * idx + 1)) want = c.imag();
      EXPECT_NEAR((*z)[k], want, 1e-14) << "mode " << idx << " z[" << k << "]";
    }
  }
}

TEST(ProxyEncoderTest, AnchorsAreTheLargestMidModesAndBandsCarryTheRest) {
  const int64_t n = 32;
  std::vector<double> w = Noise(n, 3);
  for (double& x : w) x *= 1e-3;
  const Mode big1{4, -3}, big2{0, 5};  // |k| = 5 in (k_lo = 3, k_mid = 6]
  const std::vector<double> p1 = PlaneWave(n, big1, {2.0, 0.0});
  const std::vector<double> p2 = PlaneWave(n, big2, {0.0, 1.5});
  for (size_t k = 0; k < w.size(); ++k) w[k] += p1[k] + p2[k];
  StatusOr<ProxySpec> spec = MakeProxySpec(n, 3, 6, 2, w);
  ASSERT_TRUE(spec.ok());
  ASSERT_EQ(spec->anchors.size(), 2u);
  // Canonical order: (0,5) has kx = 0 < 4.
  EXPECT_EQ(spec->anchors[0], big2);
  EXPECT_EQ(spec->anchors[1], big1);
  StatusOr<std::vector<double>> z = Encode(*spec, w);
  ASSERT_TRUE(z.ok());
  const size_t a0 = 2 * spec->low_modes.size();
  EXPECT_NEAR((*z)[a0 + 1], 1.5, 1e-3);
  EXPECT_NEAR((*z)[a0 + 2], 2.0, 1e-3);
  // The mid band without anchors holds only the small noise.
  EXPECT_LT((*z)[spec->mid_index()], 0.01);
  EXPECT_GE((*z)[spec->high_index()], 0.0);
}

// The key |c|² (re·re + im·im) ties for equal coefficients; ties keep canonical order. A zero
// frame makes every key 0: the anchors are the first mid-band modes in canonical order.
TEST(ProxyEncoderTest, EqualKeysKeepCanonicalOrder) {
  const int64_t n = 32;
  StatusOr<ProxySpec> spec = MakeProxySpec(n, 3, 6, 4, std::vector<double>(n * n, 0.0));
  ASSERT_TRUE(spec.ok());
  std::vector<Mode> mid;
  for (const Mode& m : CanonicalModes(n)) {
    const int64_t k2 = m.kx * m.kx + m.ky * m.ky;
    if (k2 > 9 && k2 <= 36) mid.push_back(m);
  }
  ASSERT_GE(mid.size(), 4u);
  EXPECT_EQ(spec->anchors, std::vector<Mode>(mid.begin(), mid.begin() + 4));
}

TEST(ProxyEncoderTest, SpecRebuildsFromItsAnchors) {
  StatusOr<ProxySpec> spec = MakeProxySpec(32, 3, 6, 5, Noise(32, 4));
  ASSERT_TRUE(spec.ok());
  StatusOr<ProxySpec> back = ProxySpecFromAnchors(32, 3, 6, spec->anchors);
  ASSERT_TRUE(back.ok()) << back.status().ToString();
  EXPECT_EQ(back->low_modes, spec->low_modes);
  EXPECT_EQ(back->anchors, spec->anchors);
  EXPECT_EQ(back->mid_residual, spec->mid_residual);
  EXPECT_EQ(back->high_residual, spec->high_residual);
  const Mode low[] = {{1, 0}};
  EXPECT_FALSE(ProxySpecFromAnchors(32, 3, 6, low).ok());
  const Mode twice[] = {spec->anchors[0], spec->anchors[0]};
  EXPECT_FALSE(ProxySpecFromAnchors(32, 3, 6, twice).ok());
  const Mode conj[] = {{0, -5}};
  EXPECT_FALSE(ProxySpecFromAnchors(32, 3, 6, conj).ok());
}

TEST(ProxyEncoderTest, RejectsBadInput) {
  EXPECT_FALSE(MakeProxySpec(100, 3, 6, 2, Noise(100, 1)).ok());
  EXPECT_FALSE(MakeProxySpec(32, 6, 6, 2, Noise(32, 1)).ok());
  EXPECT_FALSE(MakeProxySpec(32, 3, 11, 2, Noise(32, 1)).ok());
  EXPECT_FALSE(MakeProxySpec(32, 3, 6, 100000, Noise(32, 1)).ok());
  StatusOr<ProxySpec> spec = MakeProxySpec(32, 3, 6, 2, Noise(32, 1));
  ASSERT_TRUE(spec.ok());
  EXPECT_FALSE(Encode(*spec, Noise(16, 1)).ok());
  std::vector<double> bad = Noise(32, 1);
  bad[77] = std::nan("");
  StatusOr<std::vector<double>> z = Encode(*spec, bad);
  ASSERT_FALSE(z.ok());
  EXPECT_NE(z.status().message().find("index 77"), std::string::npos);
}

}  // namespace
}  // namespace dashi
