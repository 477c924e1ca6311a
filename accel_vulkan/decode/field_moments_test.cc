// VulkanFieldMoments against core_ref: the device comparison of a field with its reference gives
// core_ref's rel L2, Pearson correlation, spectral energy and enstrophy (the pipeline's snapshot
// metrics) within 1e-12 relative, on several grids and fields; bad references are refused by
// name; the guard words after every buffer stay intact and the validation layer stays silent.
#include "accel_vulkan/decode/field_moments.h"

#include <cmath>
#include <span>
#include <vector>

#include <gtest/gtest.h>

#include "accel_vulkan/testing/vulkan_test.h"
#include "accel_vulkan/decode/vulkan_decoder.h"
#include "core_ref/decode/decoder.h"
#include "core_ref/fft/fft.h"
#include "core_ref/proxy/proxy_encoder.h"
#include "core_ref/learner/metrics.h"
#include "core_ref/les/les_solver.h"
#include "core_ref/les/spectral_grid.h"
#include "core_ref/prng/prng.h"

namespace dashi::vk {
namespace {

using testing::VulkanTest;

class FieldMomentsTest : public VulkanTest {
 protected:
  // A field with structure at every scale and a non-zero mean (so the centring matters).
  static std::vector<double> Field(uint32_t n, uint64_t seed, double offset) {
    Xoshiro256ss rng(seed);
    std::vector<double> f(static_cast<size_t>(n) * n);
    for (double& v : f) v = offset + 2.0 * rng.NextDouble() - 1.0;
    return f;
  }

  DeviceBuffer Upload(std::span<const double> values) {
    StatusOr<DeviceBuffer> b = GuardedBuffer(values.size_bytes());
    EXPECT_TRUE(b.ok()) << b.status().ToString();
    EXPECT_TRUE(b->Upload(ctx(), std::as_bytes(values)).ok());
    return std::move(*b);
  }
};

void ExpectClose(double device, double reference, const char* what) {
  const double scale = std::fabs(reference) > 1e-300 ? std::fabs(reference) : 1.0;
  EXPECT_LE(std::fabs(device - reference) / scale, 1e-12)
      << what << ": device " << device << " vs core_ref " << reference;
}

TEST_F(FieldMomentsTest, MatchesTheReferenceMetricsOnSeveralGrids) {
  for (uint32_t n : {8u, 32u, 64u, 128u}) {
    SCOPED_TRACE("N = " + std::to_string(n));
    const std::vector<double> decoded = Field(n, 100 + n, 0.25);
    const std::vector<double> reference = Field(n, 200 + n, -0.5);
    DeviceBuffer dev = Upload(decoded);
    StatusOr<std::unique_ptr<VulkanFieldMoments>> fm = VulkanFieldMoments::Create(ctx(), n);
    ASSERT_TRUE(fm.ok()) << fm.status().ToString();
    StatusOr<FieldComparison> c = (*fm)->Compare(dev, reference);
    ASSERT_TRUE(c.ok()) << c.status().ToString();

    double diff2 = 0, ref2 = 0;
    for (size_t k = 0; k < decoded.size(); ++k) {
      diff2 += (decoded[k] - reference[k]) * (decoded[k] - reference[k]);
      ref2 += reference[k] * reference[k];
    }
    ExpectClose(c->rel_l2, std::sqrt(diff2 / ref2), "rel L2");
    StatusOr<double> r = PearsonCorrelation(decoded, reference);
    ASSERT_TRUE(r.ok());
    // The correlation of two independent fields is small: compare its absolute error.
    EXPECT_LE(std::fabs(c->correlation - *r), 1e-12) << c->correlation << " vs " << *r;
    StatusOr<Fft2d> fft = Fft2d::Create(n, n);
    ASSERT_TRUE(fft.ok());
    const std::vector<Complex> hat = fft->Rfft(decoded);
    const SpectralGrid grid(n);
    ExpectClose(c->energy, SpectralEnergy(grid, hat), "energy");
    ExpectClose(c->enstrophy, SpectralEnstrophy(grid, hat), "enstrophy");
    EXPECT_EQ((*fm)->last_timings().readback_bytes, 64u);
    EXPECT_TRUE((*fm)->CheckGuards().ok());
    EXPECT_TRUE(GuardsIntact(dev, decoded.size() * 8));
  }
}

TEST_F(FieldMomentsTest, IdenticalFieldsHaveZeroErrorAndUnitCorrelation) {
  const uint32_t n = 32;
  const std::vector<double> f = Field(n, 7, 0.0);
  DeviceBuffer dev = Upload(f);
  auto fm = VulkanFieldMoments::Create(ctx(), n);
  ASSERT_TRUE(fm.ok());
  StatusOr<FieldComparison> c = (*fm)->Compare(dev, f);
  ASSERT_TRUE(c.ok()) << c.status().ToString();
  EXPECT_EQ(c->rel_l2, 0.0);
  EXPECT_NEAR(c->correlation, 1.0, 1e-14);
}

TEST_F(FieldMomentsTest, RefusesBadReferencesByName) {
  const uint32_t n = 16;
  std::vector<double> f = Field(n, 9, 0.0);
  DeviceBuffer dev = Upload(f);
  auto fm = VulkanFieldMoments::Create(ctx(), n);
  ASSERT_TRUE(fm.ok());
  std::vector<double> short_ref(f.begin(), f.end() - 1);
  StatusOr<FieldComparison> c = (*fm)->Compare(dev, short_ref);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("255 values"), std::string::npos) << c.status().ToString();
  std::vector<double> bad = f;
  bad[37] = std::nan("");
  c = (*fm)->Compare(dev, bad);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("index 37"), std::string::npos) << c.status().ToString();
  const std::vector<double> flat(f.size(), 1.0);
  c = (*fm)->Compare(dev, flat);
  ASSERT_FALSE(c.ok());
  EXPECT_NE(c.status().message().find("zero variance"), std::string::npos);
  EXPECT_FALSE(VulkanFieldMoments::Create(ctx(), 48).ok());
}

// The comparison recorded into the decoder's own submission (DecodeInto's `after`), with the
// multi-dispatch closure at one step per submission so the decode continues in further submissions: the sums are those
// of the final ω̂ — equal to a separate Sums() over the decoder's buffer afterwards — and the
// scores match core_ref's on the reference decode within the decode tolerance.
TEST_F(FieldMomentsTest, RecordedIntoTheDecodeSeesTheFinalField) {
  const uint32_t n = 32;
  LesParams lp;
  lp.n = n;
  lp.seed = 5;
  lp.k_peak = 4;
  StatusOr<LesSolver> les = LesSolver::Create(lp);
  ASSERT_TRUE(les.ok());
  const std::vector<double> omega = les->Vorticity();
  StatusOr<ProxySpec> spec = MakeProxySpec(n, 4, 8, 6, omega);
  ASSERT_TRUE(spec.ok());
  StatusOr<std::vector<double>> z = Encode(*spec, omega);
  ASSERT_TRUE(z.ok());
  StatusOr<DecodedFrame> ref = Decoder::Create(*spec, DecodeParams{})->Decode(*z, 2);
  ASSERT_TRUE(ref.ok());
  ASSERT_GE(ref->closure.depth, 1);  // else a single submission would prove nothing
  VulkanDecoder::Options one_step;
  one_step.closure_steps_per_submission = 1;
  one_step.closure_plan = ClosurePlan::kMultiDispatch;  // the one-dispatch closure never continues
  auto dec = VulkanDecoder::Create(ctx(), *spec, DecodeParams{}, Precision::kFp64, one_step);
  auto fm = VulkanFieldMoments::Create(ctx(), n);
  ASSERT_TRUE(dec.ok() && fm.ok());
  DecodedFrame frame{{}, {}, {}, ClosureResult{*Carrier::Zeros({1, 1}), 0, false, {}}, {}};
  const Status st = (*dec)->DecodeInto(
      *z, 2, ObserverMode::kMetrics, frame,
      [&](CommandBatch& b) { return (*fm)->Record(b, (*dec)->omega_buffer(), omega); });
  ASSERT_TRUE(st.ok()) << st.ToString();
  EXPECT_GT((*dec)->last_report().submissions, 1);
  EXPECT_GT((*dec)->last_report().compare_ms, 0.0);
  EXPECT_TRUE(frame.omega.empty());
  const FieldMomentSums in_decode = (*fm)->ReadSums();
  StatusOr<FieldMomentSums> after = (*fm)->Sums((*dec)->omega_buffer(), omega);
  ASSERT_TRUE(after.ok());
  EXPECT_EQ(in_decode.diff2, after->diff2);
  EXPECT_EQ(in_decode.cross, after->cross);
  EXPECT_EQ(in_decode.spectral_energy, after->spectral_energy);
  StatusOr<FieldComparison> c = CompareFromSums(in_decode, n);
  ASSERT_TRUE(c.ok());
  double diff2 = 0, ref2 = 0;
  for (size_t k = 0; k < omega.size(); ++k) {
    diff2 += (ref->omega[k] - omega[k]) * (ref->omega[k] - omega[k]);
    ref2 += omega[k] * omega[k];
  }
  EXPECT_NEAR(c->rel_l2, std::sqrt(diff2 / ref2), 1e-9);
}

}  // namespace
}  // namespace dashi::vk
