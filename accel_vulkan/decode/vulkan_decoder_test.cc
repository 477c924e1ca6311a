// VulkanDecoder against core_ref's Decoder (N = 32, fp64 and fp32) at tolerances tighter than the
// conformance table's, and what the conformance cases (//conformance/decode) do not cover: buffer
// reuse, the report, closure continuation across submissions, DecodeInto, grid-stride dispatch
// and input checks. (The shaders' fp64 sin/cos and PRNG: decode.trig.sincos_ulp and
// decode.prng.counter_hash_bit_exact.) Every test fails on any validation message (VulkanTest).
#include "accel_vulkan/decode/vulkan_decoder.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "accel_vulkan/testing/vulkan_test.h"
#include "core_ref/decode/decoder.h"
#include "core_ref/les/les_solver.h"
#include "core_ref/proxy/proxy_encoder.h"
#include "shaders/decode/decode_params.h"

namespace dashi::vk {
namespace {

using testing::VulkanTest;

struct Fixture {
  ProxySpec spec;
  std::vector<double> z;
};

Fixture MakeFixture(int64_t n, int k_lo, int k_mid, int anchors, uint64_t seed) {
  LesParams p;
  p.n = n;
  p.seed = seed;
  p.k_peak = 4;
  StatusOr<LesSolver> les = LesSolver::Create(p);
  EXPECT_TRUE(les.ok()) << les.status().ToString();
  const std::vector<double> omega = les->Vorticity();
  Fixture f{*MakeProxySpec(n, k_lo, k_mid, anchors, omega), {}};
  f.z = *Encode(f.spec, omega);
  return f;
}

// mean |a − b| / max |b|
double MaeOverMax(const std::vector<double>& a, const std::vector<double>& b) {
  double sum = 0, max_ref = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    sum += std::fabs(a[i] - b[i]);
    max_ref = std::max(max_ref, std::fabs(b[i]));
  }
  return sum / static_cast<double>(b.size()) / max_ref;
}

// Two decodes of one snapshot agree bit for bit: ω, the mask, the depth, the flag and every
// level's active cells and mean |field|.
void ExpectSameFrame(const DecodedFrame& a, const DecodedFrame& b) {
  EXPECT_EQ(0, std::memcmp(a.omega.data(), b.omega.data(), a.omega.size() * 8));
  EXPECT_TRUE(a.closure.fixed_point == b.closure.fixed_point);
  EXPECT_EQ(a.closure.depth, b.closure.depth);
  EXPECT_EQ(a.closure.reached_fixed_point, b.closure.reached_fixed_point);
  ASSERT_EQ(a.closure.levels.size(), b.closure.levels.size());
  for (size_t l = 0; l < a.closure.levels.size(); ++l) {
    EXPECT_EQ(a.closure.levels[l].active_cells, b.closure.levels[l].active_cells);
    EXPECT_EQ(0, std::memcmp(&a.closure.levels[l].mean_abs_field,
                             &b.closure.levels[l].mean_abs_field, 8));
  }
}

class VulkanDecoderTest : public VulkanTest {};

TEST_F(VulkanDecoderTest, Fp64SnapshotMatchesCoreRef) {
  const Fixture f = MakeFixture(32, 4, 8, 6, 5);
  const DecodeParams params;
  StatusOr<Decoder> ref_dec = Decoder::Create(f.spec, params);
  ASSERT_TRUE(ref_dec.ok());
  StatusOr<DecodedFrame> ref = ref_dec->Decode(f.z, 7);
  ASSERT_TRUE(ref.ok());
  StatusOr<std::unique_ptr<VulkanDecoder>> dec =
      VulkanDecoder::Create(ctx(), f.spec, params, Precision::kFp64);
  ASSERT_TRUE(dec.ok()) << dec.status().ToString();
  for (int rep = 0; rep < 2; ++rep) {  // a second decode reuses every buffer
    StatusOr<DecodedFrame> got = (*dec)->Decode(f.z, 7, ObserverMode::kSnapshots);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    EXPECT_LE(MaeOverMax(got->omega_lp, ref->omega_lp), 1e-15);
    EXPECT_LE(MaeOverMax(got->omega_resid, ref->omega_resid), 1e-15);
    EXPECT_LE(MaeOverMax(got->omega, ref->omega), 1e-15);
    EXPECT_TRUE(got->closure.fixed_point == ref->closure.fixed_point);
    EXPECT_EQ(got->closure.depth, ref->closure.depth);
    EXPECT_EQ(got->closure.reached_fixed_point, ref->closure.reached_fixed_point);
    ASSERT_EQ(got->closure.levels.size(), ref->closure.levels.size());
    for (size_t l = 0; l < ref->closure.levels.size(); ++l) {
      EXPECT_EQ(got->closure.levels[l].active_cells, ref->closure.levels[l].active_cells);
    }
    const VulkanDecodeReport& r = (*dec)->last_report();
    EXPECT_EQ(r.precision, Precision::kFp64);
    EXPECT_EQ(r.readback_bytes, 32u * 32u * (3 * 8 + 4));
    EXPECT_GT(r.host_ms, 0.0);
    std::printf(
        "N=32 fp64: lp %.3g resid %.3g omega %.3g | scatter %.3f ifft_lp %.3f mask %.3f "
        "synth %.3f ifft_resid %.3f combine %.3f readback %.3f ms\n",
        MaeOverMax(got->omega_lp, ref->omega_lp), MaeOverMax(got->omega_resid, ref->omega_resid),
        MaeOverMax(got->omega, ref->omega), r.stages.scatter_lowk_ms, r.stages.ifft_lp_ms,
        r.stages.mask_ms, r.stages.synth_ms, r.stages.ifft_resid_ms, r.stages.combine_ms,
        r.readback_ms);
  }
  EXPECT_TRUE((*dec)->CheckGuards().ok()) << (*dec)->CheckGuards().ToString();
}

TEST_F(VulkanDecoderTest, Fp32LowPassWithinTolerance) {
  const Fixture f = MakeFixture(32, 4, 8, 6, 6);
  StatusOr<DecodedFrame> ref = Decoder::Create(f.spec, DecodeParams{})->Decode(f.z, 3);
  ASSERT_TRUE(ref.ok());
  StatusOr<std::unique_ptr<VulkanDecoder>> dec =
      VulkanDecoder::Create(ctx(), f.spec, DecodeParams{}, Precision::kFp32);
  ASSERT_TRUE(dec.ok()) << dec.status().ToString();
  StatusOr<DecodedFrame> got = (*dec)->Decode(f.z, 3, ObserverMode::kSnapshots);
  ASSERT_TRUE(got.ok()) << got.status().ToString();
  EXPECT_EQ((*dec)->precision(), Precision::kFp32);
  EXPECT_EQ((*dec)->last_report().precision, Precision::kFp32);
  const double lp = MaeOverMax(got->omega_lp, ref->omega_lp);
  const double resid = MaeOverMax(got->omega_resid, ref->omega_resid);
  EXPECT_LE(lp, 1e-6);
  EXPECT_LE(resid, 1e-6);
  EXPECT_GT(lp, 0.0);  // really fp32
  std::printf("N=32 fp32: lp %.3g resid %.3g\n", lp, resid);
  EXPECT_TRUE((*dec)->CheckGuards().ok()) << (*dec)->CheckGuards().ToString();
}

// The report of each observer mode: its name, and the closure records read back (the statistics
// in metrics mode; in none the 64-byte control record alone, for the host to go on if the closure
// did not finish). (The fields each mode reads back: decode.observer.none / .metrics.)
TEST_F(VulkanDecoderTest, ObserverModesReportTheirClosureReadback) {
  const Fixture f = MakeFixture(32, 4, 8, 6, 5);
  StatusOr<std::unique_ptr<VulkanDecoder>> dec =
      VulkanDecoder::Create(ctx(), f.spec, DecodeParams{}, Precision::kFp64);
  ASSERT_TRUE(dec.ok()) << dec.status().ToString();
  ASSERT_TRUE((*dec)->Decode(f.z, 1, ObserverMode::kNone).ok());
  EXPECT_EQ((*dec)->last_report().mode, ObserverMode::kNone);
  EXPECT_EQ((*dec)->last_report().readback_bytes, 0u);
  ASSERT_TRUE((*dec)->Decode(f.z, 1, ObserverMode::kMetrics).ok());
  EXPECT_EQ((*dec)->last_report().mode, ObserverMode::kMetrics);
  EXPECT_GT((*dec)->last_report().closure_readback_bytes, 64u);
  ASSERT_TRUE((*dec)->Decode(f.z, 1, ObserverMode::kNone).ok());
  EXPECT_EQ((*dec)->last_report().closure_readback_bytes, 64u);
}

// On the multi-dispatch closure path with one closure step per submission the decoder goes on
// submitting until the closure is finished, with the same result as one submission; by default a
// decode is one submission, and the next one records one step more than the last one ran.
TEST_F(VulkanDecoderTest, ClosureContinuesInFurtherSubmissions) {
  const Fixture f = MakeFixture(32, 4, 8, 6, 5);
  StatusOr<DecodedFrame> ref = Decoder::Create(f.spec, DecodeParams{})->Decode(f.z, 2);
  ASSERT_TRUE(ref.ok());
  ASSERT_TRUE(ref->closure.reached_fixed_point);
  ASSERT_GE(ref->closure.depth, 1);  // else one step per submission would prove nothing
  const int steps = ref->closure.depth + 1;
  VulkanDecoder::Options one_step;
  one_step.closure_steps_per_submission = 1;
  one_step.closure_plan = ClosurePlan::kMultiDispatch;
  VulkanDecoder::Options multi;
  multi.closure_plan = ClosurePlan::kMultiDispatch;
  StatusOr<std::unique_ptr<VulkanDecoder>> a =
      VulkanDecoder::Create(ctx(), f.spec, DecodeParams{}, Precision::kFp64, one_step);
  StatusOr<std::unique_ptr<VulkanDecoder>> b =
      VulkanDecoder::Create(ctx(), f.spec, DecodeParams{}, Precision::kFp64, multi);
  ASSERT_TRUE(a.ok() && b.ok());
  StatusOr<DecodedFrame> fa = (*a)->Decode(f.z, 2, ObserverMode::kSnapshots);
  ASSERT_TRUE(fa.ok()) << fa.status().ToString();
  const VulkanDecodeReport ra = (*a)->last_report();
  EXPECT_EQ(ra.submissions, steps);
  EXPECT_EQ(ra.closure_steps_recorded, steps);
  EXPECT_EQ(ra.closure_steps_run, steps);
  EXPECT_EQ(ra.closure_dispatch, ClosureDispatch::kMultiDispatch);
  EXPECT_EQ(ra.closure_dispatches, 2 + 7 * steps);
  EXPECT_EQ(ra.stages.mask_ms,
            ra.mask.smooth_ms + ra.mask.normalise_ms + ra.mask.threshold_ms + ra.mask.closure_ms);
  EXPECT_TRUE(fa->closure.fixed_point == ref->closure.fixed_point);
  EXPECT_EQ(fa->closure.depth, ref->closure.depth);
  ASSERT_EQ(fa->closure.levels.size(), ref->closure.levels.size());
  for (size_t l = 0; l < ref->closure.levels.size(); ++l) {
    // (mean |field| is of the device's own ω_lp, which differs from core_ref's in the last bits)
    EXPECT_EQ(fa->closure.levels[l].active_cells, ref->closure.levels[l].active_cells);
  }

  const VulkanDecoder::Options defaults;
  for (int rep = 0; rep < 2; ++rep) {
    SCOPED_TRACE(rep);
    StatusOr<DecodedFrame> fb = (*b)->Decode(f.z, 2, ObserverMode::kSnapshots);
    ASSERT_TRUE(fb.ok()) << fb.status().ToString();
    const VulkanDecodeReport& rb = (*b)->last_report();
    EXPECT_EQ(rb.submissions, 1);
    EXPECT_EQ(rb.closure_steps_run, steps);
    EXPECT_EQ(rb.closure_steps_recorded,
              rep == 0 ? defaults.closure_steps_per_submission
                       : std::min(steps + 1, defaults.closure_steps_per_submission));
    EXPECT_EQ(0, std::memcmp(fa->omega.data(), fb->omega.data(), fa->omega.size() * 8));
    EXPECT_TRUE(fa->closure.fixed_point == fb->closure.fixed_point);
    ASSERT_EQ(fb->closure.levels.size(), fa->closure.levels.size());
    for (size_t l = 0; l < fa->closure.levels.size(); ++l) {
      EXPECT_EQ(fb->closure.levels[l].mean_abs_field, fa->closure.levels[l].mean_abs_field);
    }
  }
  EXPECT_TRUE((*a)->CheckGuards().ok()) << (*a)->CheckGuards().ToString();
  one_step.closure_steps_per_submission = 0;
  EXPECT_EQ(VulkanDecoder::Create(ctx(), f.spec, DecodeParams{}, Precision::kFp64, one_step)
                .status()
                .code(),
            StatusCode::kInvalidArgument);
}

// By default the N = 32 mask's closure runs in one shared-memory dispatch, one submission, with
// the multi-dispatch path's bits: ω, the mask, the depth and every level statistic.
TEST_F(VulkanDecoderTest, OneDispatchClosureIsBitIdenticalToTheMultiDispatchPath) {
  const Fixture f = MakeFixture(32, 4, 8, 6, 5);
  VulkanDecoder::Options multi;
  multi.closure_plan = ClosurePlan::kMultiDispatch;
  StatusOr<std::unique_ptr<VulkanDecoder>> one =
      VulkanDecoder::Create(ctx(), f.spec, DecodeParams{}, Precision::kFp64);
  StatusOr<std::unique_ptr<VulkanDecoder>> many =
      VulkanDecoder::Create(ctx(), f.spec, DecodeParams{}, Precision::kFp64, multi);
  ASSERT_TRUE(one.ok() && many.ok());
  for (uint64_t t : {0u, 9u}) {
    SCOPED_TRACE(t);
    StatusOr<DecodedFrame> a = (*one)->Decode(f.z, t, ObserverMode::kSnapshots);
    StatusOr<DecodedFrame> b = (*many)->Decode(f.z, t, ObserverMode::kSnapshots);
    ASSERT_TRUE(a.ok() && b.ok());
    const VulkanDecodeReport& ra = (*one)->last_report();
    EXPECT_EQ(ra.closure_dispatch, ClosureDispatch::kSharedMemory);
    EXPECT_EQ(ra.closure_dispatches, 1);
    EXPECT_EQ(ra.submissions, 1);
    EXPECT_EQ(ra.closure_steps_run, a->closure.reached_fixed_point ? a->closure.depth + 1 : 65);
    EXPECT_EQ((*many)->last_report().closure_dispatch, ClosureDispatch::kMultiDispatch);
    ExpectSameFrame(*a, *b);
  }
  EXPECT_TRUE((*one)->CheckGuards().ok()) << (*one)->CheckGuards().ToString();
}

// The strip-tiled closure (the path of N > 256 on NVIDIA, asked for here at N = 32) gives the
// multi-dispatch path's bits: ω, the mask, the depth and every level statistic, in every mode,
// over snapshots whose closures continue past the first submission (one step recorded ahead).
TEST_F(VulkanDecoderTest, StripClosureIsBitIdenticalToTheMultiDispatchPath) {
  const Fixture f = MakeFixture(32, 4, 8, 6, 5);
  VulkanDecoder::Options multi, strips;
  multi.closure_plan = ClosurePlan::kMultiDispatch;
  strips.closure_plan = ClosurePlan::kStrips;
  strips.closure_steps_per_submission = 1;
  StatusOr<std::unique_ptr<VulkanDecoder>> tiled =
      VulkanDecoder::Create(ctx(), f.spec, DecodeParams{}, Precision::kFp64, strips);
  StatusOr<std::unique_ptr<VulkanDecoder>> many =
      VulkanDecoder::Create(ctx(), f.spec, DecodeParams{}, Precision::kFp64, multi);
  ASSERT_TRUE(tiled.ok() && many.ok());
  for (uint64_t t : {0u, 9u}) {
    for (ObserverMode mode : {ObserverMode::kSnapshots, ObserverMode::kMetrics}) {
      SCOPED_TRACE(std::to_string(t) + " " + ObserverModeName(mode));
      StatusOr<DecodedFrame> a = (*tiled)->Decode(f.z, t, mode);
      StatusOr<DecodedFrame> b = (*many)->Decode(f.z, t, mode);
      ASSERT_TRUE(a.ok() && b.ok());
      const VulkanDecodeReport& ra = (*tiled)->last_report();
      EXPECT_EQ(ra.closure_dispatch, ClosureDispatch::kStrips);
      EXPECT_EQ(ra.closure_dispatches, 2 + 2 * ra.closure_steps_recorded);
      EXPECT_GT(ra.submissions, 1);
      EXPECT_GT(a->closure.depth, 0);
      ExpectSameFrame(*a, *b);
    }
  }
  EXPECT_TRUE((*tiled)->CheckGuards().ok()) << (*tiled)->CheckGuards().ToString();
}

TEST_F(VulkanDecoderTest, DecodeIntoReusesTheFrameAcrossModes) {
  const Fixture f = MakeFixture(32, 4, 8, 6, 5);
  StatusOr<std::unique_ptr<VulkanDecoder>> dec =
      VulkanDecoder::Create(ctx(), f.spec, DecodeParams{}, Precision::kFp64);
  ASSERT_TRUE(dec.ok()) << dec.status().ToString();
  StatusOr<DecodedFrame> want = (*dec)->Decode(f.z, 4, ObserverMode::kSnapshots);
  ASSERT_TRUE(want.ok());
  DecodedFrame frame{{}, {}, {}, ClosureResult{*Carrier::Zeros({1, 1}), 0, false, {}}, {}};
  ASSERT_TRUE((*dec)->DecodeInto(f.z, 4, ObserverMode::kSnapshots, frame).ok());
  const double* storage = frame.omega.data();
  ASSERT_TRUE((*dec)->DecodeInto(f.z, 4, ObserverMode::kNone, frame).ok());
  EXPECT_TRUE(frame.omega.empty() && frame.omega_lp.empty() && frame.omega_resid.empty());
  EXPECT_EQ(frame.closure.fixed_point.size(), 1);
  EXPECT_TRUE(frame.closure.levels.empty());
  ASSERT_TRUE((*dec)->DecodeInto(f.z, 4, ObserverMode::kSnapshots, frame).ok());
  EXPECT_EQ(frame.omega.data(), storage);  // the same storage, no reallocation
  EXPECT_EQ(0, std::memcmp(frame.omega.data(), want->omega.data(), want->omega.size() * 8));
  EXPECT_EQ(0, std::memcmp(frame.omega_lp.data(), want->omega_lp.data(), want->omega.size() * 8));
  EXPECT_TRUE(frame.closure.fixed_point == want->closure.fixed_point);
  EXPECT_EQ(frame.closure.depth, want->closure.depth);
  EXPECT_EQ(frame.times.combine_ms, (*dec)->last_report().stages.combine_ms);
}

// Tiny workgroups and an x-group cap force every decode shader through its grid-stride loop; the
// output must be bit-identical to the default geometry's.
TEST_F(VulkanDecoderTest, GridStrideDispatchIsBitIdentical) {
  const Fixture f = MakeFixture(32, 4, 8, 6, 5);
  for (Precision p : {Precision::kFp64, Precision::kFp32}) {
    SCOPED_TRACE(PrecisionName(p));
    StatusOr<std::unique_ptr<VulkanDecoder>> a =
        VulkanDecoder::Create(ctx(), f.spec, DecodeParams{}, p);
    StatusOr<std::unique_ptr<VulkanDecoder>> b =
        VulkanDecoder::Create(ctx(), f.spec, DecodeParams{}, p, {16, 3});
    ASSERT_TRUE(a.ok() && b.ok());
    StatusOr<DecodedFrame> fa = (*a)->Decode(f.z, 9, ObserverMode::kSnapshots);
    StatusOr<DecodedFrame> fb = (*b)->Decode(f.z, 9, ObserverMode::kSnapshots);
    ASSERT_TRUE(fa.ok() && fb.ok());
    auto same = [](const std::vector<double>& x, const std::vector<double>& y) {
      return x.size() == y.size() && std::memcmp(x.data(), y.data(), x.size() * 8) == 0;
    };
    EXPECT_TRUE(same(fa->omega_lp, fb->omega_lp));
    EXPECT_TRUE(same(fa->omega_resid, fb->omega_resid));
    EXPECT_TRUE(same(fa->omega, fb->omega));
    EXPECT_TRUE(fa->closure.fixed_point == fb->closure.fixed_point);
    EXPECT_TRUE((*b)->CheckGuards().ok()) << (*b)->CheckGuards().ToString();
  }
  EXPECT_FALSE(
      VulkanDecoder::Create(ctx(), f.spec, DecodeParams{}, Precision::kFp64, {64, 0}).ok());
}

// The max folded into the smoothing (the default where N ≤ 256) gives the two-pass max's bits:
// ω, the mask, the depth and every level's mean |normalised field|
// (the carrier's 64-wide workgroups: 16 maxima folded at N = 32).
TEST_F(VulkanDecoderTest, FoldedMaxIsBitIdenticalToTheTwoPassMax) {
  const Fixture f = MakeFixture(32, 4, 8, 6, 5);
  VulkanDecoder::Options two_pass;
  two_pass.fold_max = false;
  StatusOr<std::unique_ptr<VulkanDecoder>> folded =
      VulkanDecoder::Create(ctx(), f.spec, DecodeParams{}, Precision::kFp64);
  StatusOr<std::unique_ptr<VulkanDecoder>> plain =
      VulkanDecoder::Create(ctx(), f.spec, DecodeParams{}, Precision::kFp64, two_pass);
  ASSERT_TRUE(folded.ok() && plain.ok());
  for (uint64_t t : {0u, 3u, 9u, 17u}) {
    SCOPED_TRACE(t);
    StatusOr<DecodedFrame> a = (*folded)->Decode(f.z, t, ObserverMode::kSnapshots);
    StatusOr<DecodedFrame> b = (*plain)->Decode(f.z, t, ObserverMode::kSnapshots);
    ASSERT_TRUE(a.ok() && b.ok());
    ExpectSameFrame(*a, *b);
    ASSERT_FALSE(a->closure.levels.empty());
    EXPECT_GT(a->closure.levels[0].active_cells, 0);  // a mask to compare
  }
  EXPECT_TRUE((*folded)->CheckGuards().ok()) << (*folded)->CheckGuards().ToString();
}

// WarmUp decodes once in the set-up (its own report, the steps recorded ahead restored): the
// decodes after it give the bits of a decoder that never warmed up, in every mode, and report
// the same closure steps recorded; their host time is split into its three parts.
TEST_F(VulkanDecoderTest, WarmUpLeavesLaterDecodesUnchanged) {
  const Fixture f = MakeFixture(32, 4, 8, 6, 5);
  for (ClosurePlan plan : {ClosurePlan::kAuto, ClosurePlan::kMultiDispatch}) {
    VulkanDecoder::Options options;
    options.closure_plan = plan;
    StatusOr<std::unique_ptr<VulkanDecoder>> warm =
        VulkanDecoder::Create(ctx(), f.spec, DecodeParams{}, Precision::kFp64, options);
    StatusOr<std::unique_ptr<VulkanDecoder>> cold =
        VulkanDecoder::Create(ctx(), f.spec, DecodeParams{}, Precision::kFp64, options);
    ASSERT_TRUE(warm.ok() && cold.ok());
    EXPECT_EQ((*warm)->warmup_report().host_ms, 0.0);
    ASSERT_TRUE((*warm)->WarmUp(ObserverMode::kSnapshots).ok());
    const VulkanDecodeReport& w = (*warm)->warmup_report();
    EXPECT_EQ(w.mode, ObserverMode::kSnapshots);
    EXPECT_GT(w.host_ms, 0.0);
    EXPECT_GT(w.submissions, 0);
    EXPECT_EQ((*warm)->last_report().host_ms, 0.0);  // the warm-up is not a decode's report
    for (ObserverMode mode : {ObserverMode::kMetrics, ObserverMode::kSnapshots}) {
      SCOPED_TRACE(std::string(ObserverModeName(mode)) + " " +
                   std::to_string(static_cast<int>(plan)));
      StatusOr<DecodedFrame> a = (*warm)->Decode(f.z, 5, mode);
      StatusOr<DecodedFrame> b = (*cold)->Decode(f.z, 5, mode);
      ASSERT_TRUE(a.ok() && b.ok());
      ExpectSameFrame(*a, *b);
      const VulkanDecodeReport& ra = (*warm)->last_report();
      EXPECT_EQ(ra.closure_steps_recorded, (*cold)->last_report().closure_steps_recorded);
      EXPECT_EQ(ra.submissions, (*cold)->last_report().submissions);
      EXPECT_GE(ra.host_record_ms, 0.0);
      EXPECT_GT(ra.host_wait_ms, 0.0);
      // The finish part is the rest of host_ms: >= 0 iff recording and waiting, each timed on
      // its own, do not add up to more than the whole call.
      EXPECT_GE(ra.host_finish_ms, 0.0);
    }
    EXPECT_TRUE((*warm)->CheckGuards().ok()) << (*warm)->CheckGuards().ToString();
  }
}

TEST_F(VulkanDecoderTest, RejectsBadInput) {
  const Fixture f = MakeFixture(32, 4, 8, 6, 5);
  StatusOr<std::unique_ptr<VulkanDecoder>> dec =
      VulkanDecoder::Create(ctx(), f.spec, DecodeParams{}, Precision::kFp64);
  ASSERT_TRUE(dec.ok()) << dec.status().ToString();
  std::vector<double> z = f.z;
  z.pop_back();
  EXPECT_EQ((*dec)->Decode(z, 0, ObserverMode::kNone).status().code(),
            StatusCode::kInvalidArgument);
  z = f.z;
  z[3] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ((*dec)->Decode(z, 0, ObserverMode::kNone).status().code(),
            StatusCode::kInvalidArgument);
  DecodeParams bad;
  bad.threshold.tau = -1;
  EXPECT_FALSE(VulkanDecoder::Create(ctx(), f.spec, bad, Precision::kFp64).ok());
}

}  // namespace
}  // namespace dashi::vk
