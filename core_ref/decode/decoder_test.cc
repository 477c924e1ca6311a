#include "core_ref/decode/decoder.h"

#include <cmath>
#include <cstring>

#include <gtest/gtest.h>

#include "core_ref/les/les_solver.h"
#include "core_ref/prng/prng.h"

namespace dashi {
namespace {

struct Fixture {
  ProxySpec spec;
  std::vector<double> omega;
  std::vector<double> z;
};

Fixture MakeFixture(int64_t n) {
  LesParams p;
  p.n = n;
  p.seed = 5;
  p.k_peak = 4;
  StatusOr<LesSolver> les = LesSolver::Create(p);
  EXPECT_TRUE(les.ok()) << les.status().ToString();
  Fixture f{*MakeProxySpec(n, 4, 8, 6, les->Vorticity()), les->Vorticity(), {}};
  f.z = *Encode(f.spec, f.omega);
  return f;
}

TEST(DecoderTest, LowPassIsTheSpectralProjectionOfTheEncodedModes) {
  Fixture f = MakeFixture(32);
  StatusOr<Decoder> dec = Decoder::Create(f.spec, DecodeParams{});
  ASSERT_TRUE(dec.ok()) << dec.status().ToString();
  StatusOr<DecodedFrame> out = dec->Decode(f.z, 0);
  ASSERT_TRUE(out.ok()) << out.status().ToString();
  // Project ω onto the low-k and anchor modes directly and compare.
  Fft2d fft = *Fft2d::Create(32, 32);
  std::vector<Complex> w_hat = fft.Rfft(f.omega), keep(w_hat.size(), Complex(0, 0));
  auto copy = [&](const Mode& m) {
    for (int64_t sgn : {1, -1}) {
      if (sgn < 0 && m.kx != 0) continue;
      const int64_t ky = sgn * m.ky, row = ky >= 0 ? ky : ky + 32;
      keep[row * 17 + m.kx] = w_hat[row * 17 + m.kx];
    }
  };
  for (const Mode& m : f.spec.low_modes) copy(m);
  for (const Mode& m : f.spec.anchors) copy(m);
  const std::vector<double> lp = fft.Irfft(keep);
  double max_err = 0, max_ref = 0;
  for (size_t k = 0; k < lp.size(); ++k) {
    max_err = std::fmax(max_err, std::fabs(lp[k] - out->omega_lp[k]));
    max_ref = std::fmax(max_ref, std::fabs(lp[k]));
  }
  EXPECT_LT(max_err / max_ref, 1e-14);
}

TEST(DecoderTest, ResidualCarriesTheBandEnstrophyAndDependsOnlyOnTheKey) {
  Fixture f = MakeFixture(32);
  DecodeParams params;
  params.seed = 9;
  StatusOr<Decoder> dec = Decoder::Create(f.spec, params);
  ASSERT_TRUE(dec.ok());
  StatusOr<DecodedFrame> a = dec->Decode(f.z, 3), b = dec->Decode(f.z, 3), c = dec->Decode(f.z, 4);
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(0, std::memcmp(a->omega.data(), b->omega.data(), a->omega.size() * 8));
  EXPECT_NE(0, std::memcmp(a->omega_resid.data(), c->omega_resid.data(), a->omega.size() * 8));
  // Re-encoding the residual recovers the band scalars and nothing in the low/anchor slots.
  std::vector<double> zr = *Encode(f.spec, a->omega_resid);
  EXPECT_NEAR(zr[f.spec.mid_index()], f.z[f.spec.mid_index()], 1e-12);
  EXPECT_NEAR(zr[f.spec.high_index()], f.z[f.spec.high_index()], 1e-12);
  for (int64_t k = 0; k < f.spec.mid_index(); ++k) EXPECT_NEAR(zr[k], 0.0, 1e-14);
}

TEST(DecoderTest, CombineIsLowPassPlusMaskedResidual) {
  Fixture f = MakeFixture(32);
  StatusOr<Decoder> dec = Decoder::Create(f.spec, DecodeParams{});
  ASSERT_TRUE(dec.ok());
  StatusOr<DecodedFrame> out = dec->Decode(f.z, 1);
  ASSERT_TRUE(out.ok());
  const auto s = out->closure.fixed_point.values();
  for (size_t k = 0; k < out->omega.size(); ++k) {
    ASSERT_EQ(out->omega[k], out->omega_lp[k] + double(s[k]) * out->omega_resid[k]);
  }
  EXPECT_TRUE(out->closure.reached_fixed_point);
  EXPECT_EQ(*ClosureStep(out->closure.fixed_point, dec->params().closure),
            out->closure.fixed_point);
}

TEST(DecoderTest, RejectsBadZ) {
  Fixture f = MakeFixture(32);
  StatusOr<Decoder> dec = Decoder::Create(f.spec, DecodeParams{});
  ASSERT_TRUE(dec.ok());
  std::vector<double> short_z(f.z.begin(), f.z.end() - 1);
  EXPECT_FALSE(dec->Decode(short_z, 0).ok());
  std::vector<double> bad = f.z;
  bad[1] = INFINITY;
  EXPECT_FALSE(dec->Decode(bad, 0).ok());
  DecodeParams p;
  p.threshold.tau = 0;
  EXPECT_FALSE(Decoder::Create(f.spec, p).ok());
}

}  // namespace
}  // namespace dashi
