#include "core_ref/proxy/proxy_energy.h"

#include <cmath>
#include <vector>

#include "core_ref/fft/fft.h"
#include "core_ref/les/les_solver.h"
#include "gtest/gtest.h"

namespace dashi {
namespace {

TEST(ProxyEnergyTest, ShellIsRoundedRadius) {
  for (int64_t kx = 0; kx <= 30; ++kx) {
    for (int64_t ky = -30; ky <= 30; ++ky) {
      const double r = std::sqrt(static_cast<double>(kx * kx + ky * ky));
      EXPECT_EQ(ModeShell({kx, ky}), static_cast<int64_t>(std::floor(r + 0.5))) << kx << "," << ky;
    }
  }
}

// With every mode of |k| ≤ k_mid in z (the whole mid band as anchors), E_z is the LES's energy
// less the high band's (small, positive) and Z_z is the LES's whole enstrophy (the LES field is
// dealiased, so the 2/3 range holds all of it).
TEST(ProxyEnergyTest, EnergyAndEnstrophyMatchTheField) {
  LesParams p;
  p.n = 32;
  p.seed = 3;
  StatusOr<LesTrajectory> les = Simulate(p, 20, 20);
  ASSERT_TRUE(les.ok());
  const std::vector<double>& omega = les->frames.back();
  // Anchors = the whole mid band: then z holds every mode with |k| ≤ k_mid, and Z_mid = 0.
  StatusOr<ProxySpec> spec0 = MakeProxySpec(32, 4, 10, 0, omega);
  ASSERT_TRUE(spec0.ok());
  const int all_mid = static_cast<int>(spec0->mid_residual.size());
  StatusOr<ProxySpec> spec = MakeProxySpec(32, 4, 10, all_mid, omega);
  ASSERT_TRUE(spec.ok()) << spec.status().ToString();
  StatusOr<std::vector<double>> z = Encode(*spec, omega);
  ASSERT_TRUE(z.ok());
  const std::vector<double> w = EnergyWeights(*spec);
  ASSERT_EQ(w.size(), z->size());
  EXPECT_EQ(w[w.size() - 1], 0.0);
  EXPECT_EQ(w[w.size() - 2], 0.0);
  const double e_z = ProxyEnergy(w, *z), z_z = ProxyEnstrophy(*z);
  const double e = les->energy.back(), ens = les->enstrophy.back();
  // The modes above k_mid = 10 hold a small part of the energy and all of it is in Z_high.
  EXPECT_LE(e_z, e * (1 + 1e-12));
  EXPECT_GT(e_z, 0.9 * e);
  EXPECT_NEAR(z_z, ens, 1e-10 * ens);
}

}  // namespace
}  // namespace dashi
