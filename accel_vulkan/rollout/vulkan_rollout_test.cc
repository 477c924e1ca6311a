// VulkanRollout against core_ref's Rollout (the oracle) on the default device (lavapipe in CI),
// with the validation layer on: what the conformance cases (//conformance/rollout, default
// options) do not cover — the options (workgroup sizes, tiles, kernels, submission splits,
// staging slots), the pairwise-tree examples, step-count edges, core_ref's errors word for word,
// the non-finite location, timings and D = 4096.
#include "accel_vulkan/rollout/vulkan_rollout.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "accel_vulkan/testing/vulkan_test.h"
#include "core_ref/rollout/rollout.h"
#include "core_ref/rollout/vecmat.h"
#include "core_ref/testing/random_inputs.h"

namespace dashi::vk {
namespace {

constexpr RolloutKernel kAllKernels[] = {RolloutKernel::kFused, RolloutKernel::kTwoKernels,
                                         RolloutKernel::kPersistent};

// A: entries uniform in [-1, 1) · 0.9 / sqrt(D), stable over a few dozen steps; z0 uniform.
using dashi::testing::StableMatrix;
using dashi::testing::UniformValues;

bool SameBits(std::span<const double> a, std::span<const double> b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

class VulkanRolloutTest : public testing::VulkanTest {
 protected:
  std::unique_ptr<VulkanRollout> Make(int64_t dim, std::span<const double> a,
                                      const VulkanRolloutOptions& options = {}) {
    StatusOr<std::unique_ptr<VulkanRollout>> r = VulkanRollout::Create(ctx(), dim, a, options);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    return r.ok() ? std::move(r).value() : nullptr;
  }

  // Runs both and expects identical chains and final states.
  void ExpectMatchesReference(VulkanRollout& r, std::span<const double> z0,
                              std::span<const double> a, const RolloutParams& p) {
    StatusOr<RolloutResult> want = Rollout(z0, a, p);
    ASSERT_TRUE(want.ok()) << want.status().ToString();
    StatusOr<RolloutResult> got = r.Run(z0, p);
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    ASSERT_EQ(got->chain.size(), want->chain.size());
    for (size_t k = 0; k < want->chain.size(); ++k) {
      EXPECT_EQ(got->chain[k], want->chain[k]) << "checkpoint " << k << " (step "
                                               << want->chain[k].step << ")";
    }
    EXPECT_TRUE(SameBits(got->final_state, want->final_state));
  }
};

TEST_F(VulkanRolloutTest, ReportsFloatControlsAndPicksTheSupportedVariant) {
  const std::vector<double> a = StableMatrix(3, 1);
  std::unique_ptr<VulkanRollout> r = Make(3, a);
  ASSERT_NE(r, nullptr);
  const Float64Controls& fc = r->device_float_controls();
  std::printf("device %s: fp64 float controls %s; shader variant %s\n", ctx().info().name.c_str(),
              fc.ToString().c_str(), FloatControlsVariantName(r->shader_variant()).c_str());
  EXPECT_EQ((r->shader_variant() & kVariantDenormPreserve) != 0, fc.denorm_preserve);
  EXPECT_EQ((r->shader_variant() & kVariantSignedZeroInfNanPreserve) != 0,
            fc.signed_zero_inf_nan_preserve);
  EXPECT_EQ((r->shader_variant() & kVariantRoundingModeRte) != 0, fc.rounding_mode_rte);
  EXPECT_EQ(FloatControlsVariantName(0), "none");
  EXPECT_EQ(FloatControlsVariantName(7), "DenormPreserve+SignedZeroInfNanPreserve+RoundingModeRTE");
}

// docs/MATH.md §9's examples of the pairwise tree, on both paths: z = 1 at the first row of each
// chunk and 0 elsewhere, so column j's chunk partials are the A entries of those rows.
// D = 256, partials (1e16, 1, −1e16, 1): (1e16+1) + (−1e16+1) = 0 (a flat sum gives 1);
// D = 192, partials (1, 1e16, −1e16): (1+1e16) + (−1e16) = 0.
TEST_F(VulkanRolloutTest, PairwiseTreeExamplesOnEveryKernel) {
  const std::vector<std::vector<double>> cases = {{1e16, 1, -1e16, 1}, {1, 1e16, -1e16}};
  for (const std::vector<double>& partials : cases) {
    const int64_t dim = 64 * static_cast<int64_t>(partials.size());
    std::vector<double> a = StableMatrix(dim, 700 + dim);
    std::vector<double> z0(static_cast<size_t>(dim), 0.0);
    for (size_t c = 0; c < partials.size(); ++c) {
      z0[64 * c] = 1.0;
      for (int64_t j = 0; j < dim; ++j) a[64 * c * dim + j] = partials[c];
    }
    std::vector<double> want(dim);
    ASSERT_TRUE(CanonicalVecMatScalar(z0, a, want).ok());
    for (double w : want) ASSERT_EQ(w, 0.0);
    for (const RolloutKernel kernel : kAllKernels) {
      const uint32_t smallest = kernel == RolloutKernel::kPersistent ? 16u : 1u;
      for (const uint32_t wg : {smallest, 64u, 256u}) {
        SCOPED_TRACE("D=" + std::to_string(dim) + " kernel=" + RolloutKernelName(kernel) +
                     " wg=" + std::to_string(wg));
        std::unique_ptr<VulkanRollout> r = Make(dim, a, {.workgroup_size = wg, .kernel = kernel});
        ASSERT_NE(r, nullptr);
        StatusOr<RolloutResult> got = r->Run(z0, {.steps = 1, .hash_every = 1});
        ASSERT_TRUE(got.ok()) << got.status().ToString();
        EXPECT_TRUE(SameBits(got->final_state, want));
      }
    }
  }
}

// Step counts the conformance cases (40 steps, hash_every 7) do not reach: none at all (z0's
// checkpoint only), fewer steps than the checkpoint spacing; one object run repeatedly.
TEST_F(VulkanRolloutTest, StepCountEdgesMatchCoreRef) {
  for (int64_t dim : {1, 65}) {
    SCOPED_TRACE("D=" + std::to_string(dim));
    const std::vector<double> a = StableMatrix(dim, 300 + dim);
    const std::vector<double> z0 = UniformValues(dim, 400 + dim, 1.0);
    std::unique_ptr<VulkanRollout> r = Make(dim, a);
    ASSERT_NE(r, nullptr);
    ExpectMatchesReference(*r, z0, a, {.steps = 0, .hash_every = 3});  // z0 only
    ExpectMatchesReference(*r, z0, a, {.steps = 4, .hash_every = 100});
    ExpectMatchesReference(*r, z0, a, {.steps = 23, .hash_every = 5});
  }
}

TEST_F(VulkanRolloutTest, WorkgroupSizesSubmissionSplitsAndVariantsAgree) {
  const int64_t dim = 130;
  const std::vector<double> a = StableMatrix(dim, 7);
  const std::vector<double> z0 = UniformValues(dim, 8, 1.0);
  const VulkanRolloutOptions configs[] = {
      {.workgroup_size = 1},
      {.workgroup_size = 7},
      {.workgroup_size = 256},
      {.max_steps_per_submit = 1, .max_snapshots_per_submit = 1},
      {.max_steps_per_submit = 3, .max_snapshots_per_submit = 2},
      {.max_steps_per_submit = 1024, .max_snapshots_per_submit = 1},
      {.workgroup_size = 32, .max_steps_per_submit = 5, .use_float_controls = false},
      {.workgroup_size = 1, .kernel = RolloutKernel::kTwoKernels},
      {.workgroup_size = 7, .kernel = RolloutKernel::kTwoKernels},
      {.workgroup_size = 256, .kernel = RolloutKernel::kTwoKernels},
      {.max_steps_per_submit = 3, .max_snapshots_per_submit = 2, .kernel = RolloutKernel::kTwoKernels},
      {.workgroup_size = 32, .use_float_controls = false, .kernel = RolloutKernel::kTwoKernels},
      {.workgroup_size = 5, .fused_tile = 1},
      {.workgroup_size = 64, .fused_tile = 7},
      {.workgroup_size = 128, .fused_tile = 200},  // clamped to D: one workgroup
      {.kernel = RolloutKernel::kPersistent},
      {.workgroup_size = 16, .kernel = RolloutKernel::kPersistent},
      {.workgroup_size = 17, .kernel = RolloutKernel::kPersistent, .persistent_cols = 3},
      {.max_steps_per_submit = 3, .max_snapshots_per_submit = 2,
       .kernel = RolloutKernel::kPersistent},
      {.kernel = RolloutKernel::kPersistent, .persistent_max_steps_per_dispatch = 1},
      {.use_float_controls = false, .kernel = RolloutKernel::kPersistent,
       .persistent_max_steps_per_dispatch = 4},
      {.max_steps_per_submit = 3, .kernel = RolloutKernel::kPersistent,
       .persistent_short_segments_fused = true},
  };
  for (const VulkanRolloutOptions& o : configs) {
    SCOPED_TRACE("wg=" + std::to_string(o.workgroup_size) +
                 " max_steps=" + std::to_string(o.max_steps_per_submit) +
                 " max_snaps=" + std::to_string(o.max_snapshots_per_submit) +
                 " float_controls=" + std::to_string(o.use_float_controls) +
                 " kernel=" + RolloutKernelName(o.kernel) + " tile=" + std::to_string(o.fused_tile) +
                 " cols=" + std::to_string(o.persistent_cols) +
                 " per_dispatch=" + std::to_string(o.persistent_max_steps_per_dispatch));
    std::unique_ptr<VulkanRollout> r = Make(dim, a, o);
    ASSERT_NE(r, nullptr);
    if (!o.use_float_controls) {
      EXPECT_EQ(r->shader_variant(), 0u);
    }
    ExpectMatchesReference(*r, z0, a, {.steps = 11, .hash_every = 2});
    const RolloutTimings& t = r->last_timings();
    EXPECT_EQ(t.steps, 11);
    EXPECT_EQ(t.snapshots, 6);  // 2, 4, 6, 8, 10, 11
    const int64_t by_steps = (11 + o.max_steps_per_submit - 1) / o.max_steps_per_submit;
    const int64_t by_snaps = (6 + o.max_snapshots_per_submit - 1) / o.max_snapshots_per_submit;
    EXPECT_GE(t.submissions, std::max(by_steps, by_snaps));
  }
}

// Every kernel at chunk and tile boundaries: partial last tiles, partial last chunks, odd chunk
// counts (the carried element of the tree), tiles of one output, several units per workgroup.
TEST_F(VulkanRolloutTest, EveryKernelMatchesCoreRefAtTileBoundaries) {
  for (int64_t dim : {1, 2, 63, 64, 65, 128, 129, 191, 193, 300, 449}) {
    const std::vector<double> a = StableMatrix(dim, 500 + dim);
    const std::vector<double> z0 = UniformValues(dim, 600 + dim, 1.0);
    using K = RolloutKernel;
    for (const auto& [wg, tile, kernel] : {std::tuple<uint32_t, uint32_t, K>{64, 0, K::kFused},
                                          {1, 0, K::kFused},
                                          {3, 1, K::kFused},
                                          {48, 5, K::kFused},
                                          {256, 0, K::kFused},
                                          {64, 0, K::kTwoKernels},
                                          {64, 0, K::kPersistent},
                                          {19, 2, K::kPersistent}}) {
      SCOPED_TRACE("D=" + std::to_string(dim) + " wg=" + std::to_string(wg) +
                   " tile/cols=" + std::to_string(tile) + " kernel=" + RolloutKernelName(kernel));
      const bool fused = kernel == K::kFused;
      VulkanRolloutOptions o{.workgroup_size = wg, .kernel = kernel};
      (fused ? o.fused_tile : o.persistent_cols) = tile;
      std::unique_ptr<VulkanRollout> r = Make(dim, a, o);
      ASSERT_NE(r, nullptr);
      EXPECT_EQ(r->kernel(), kernel);
      if (kernel == K::kPersistent) {
        EXPECT_EQ(r->persistent_groups(), 1u);  // lavapipe reports no SM count
        if (tile != 0) {
          EXPECT_EQ(r->persistent_cols(), tile);
        }
      }
      if (fused) {
        EXPECT_GE(r->fused_tile(), 1u);
        if (tile != 0) {
          EXPECT_EQ(r->fused_tile(), std::min<uint32_t>(tile, static_cast<uint32_t>(dim)));
        }
      } else {
        EXPECT_EQ(r->fused_tile(), 0u);
      }
      ExpectMatchesReference(*r, z0, a, {.steps = 9, .hash_every = 4});
      StatusOr<int64_t> bad = r->CountCorruptedGuardWords();
      ASSERT_TRUE(bad.ok()) << bad.status().ToString();
      EXPECT_EQ(*bad, 0);
    }
  }
}

TEST_F(VulkanRolloutTest, ObserverSeesTheReferenceStatesInOrder) {
  const int64_t dim = 70;
  const std::vector<double> a = StableMatrix(dim, 11);
  const std::vector<double> z0 = UniformValues(dim, 12, 1.0);
  std::unique_ptr<VulkanRollout> r = Make(dim, a, {.max_snapshots_per_submit = 2});
  ASSERT_NE(r, nullptr);
  using Seen = std::vector<std::pair<int64_t, std::vector<double>>>;
  auto recorder = [](Seen* seen) {
    return [seen](int64_t step, std::span<const double> s) {
      seen->emplace_back(step, std::vector<double>(s.begin(), s.end()));
      return OkStatus();
    };
  };
  const RolloutParams p{.steps = 10, .hash_every = 4, .observe_every = 3};
  Seen want_seen, got_seen;
  StatusOr<RolloutResult> want = Rollout(z0, a, p, recorder(&want_seen));
  StatusOr<RolloutResult> got = r->Run(z0, p, recorder(&got_seen));
  ASSERT_TRUE(want.ok() && got.ok()) << got.status().ToString();
  EXPECT_EQ(got->chain, want->chain);
  ASSERT_EQ(got_seen.size(), want_seen.size());  // steps 0, 3, 6, 9, 10
  for (size_t k = 0; k < want_seen.size(); ++k) {
    EXPECT_EQ(got_seen[k].first, want_seen[k].first);
    EXPECT_TRUE(SameBits(got_seen[k].second, want_seen[k].second)) << "step "
                                                                   << want_seen[k].first;
  }
  EXPECT_EQ(r->last_timings().snapshots, 6);  // 3, 4, 6, 8, 9, 10
}

// The persistent kernel with short dispatches handed to the fused kernel (what kAuto does on a
// GPU): snapshots at 4, 8, 10, 12, 16, 20 make dispatches of 4 steps (persistent) and 2 (fused)
// alternate on the same state buffers.
TEST_F(VulkanRolloutTest, PersistentWithFusedShortSegmentsMatchesCoreRef) {
  const int64_t dim = 130;
  const std::vector<double> a = StableMatrix(dim, 24);
  const std::vector<double> z0 = UniformValues(dim, 25, 1.0);
  std::unique_ptr<VulkanRollout> r = Make(
      dim, a, {.kernel = RolloutKernel::kPersistent, .persistent_short_segments_fused = true});
  ASSERT_NE(r, nullptr);
  EXPECT_TRUE(r->short_segments_fused());
  std::vector<std::pair<int64_t, std::vector<double>>> want_seen, got_seen;
  auto recorder = [](std::vector<std::pair<int64_t, std::vector<double>>>* seen) {
    return [seen](int64_t step, std::span<const double> s) {
      seen->emplace_back(step, std::vector<double>(s.begin(), s.end()));
      return OkStatus();
    };
  };
  const RolloutParams p{.steps = 20, .hash_every = 10, .observe_every = 4};
  StatusOr<RolloutResult> want = Rollout(z0, a, p, recorder(&want_seen));
  StatusOr<RolloutResult> got = r->Run(z0, p, recorder(&got_seen));
  ASSERT_TRUE(want.ok() && got.ok()) << got.status().ToString();
  EXPECT_EQ(got->chain, want->chain);
  ASSERT_EQ(got_seen.size(), want_seen.size());
  for (size_t k = 0; k < want_seen.size(); ++k) {
    EXPECT_TRUE(SameBits(got_seen[k].second, want_seen[k].second)) << "step "
                                                                   << want_seen[k].first;
  }
  std::unique_ptr<VulkanRollout> plain = Make(dim, a, {.kernel = RolloutKernel::kPersistent});
  ASSERT_NE(plain, nullptr);
  EXPECT_FALSE(plain->short_segments_fused());
}

TEST_F(VulkanRolloutTest, ObserverErrorAndExceptionLikeCoreRef) {
  const int64_t dim = 9;
  const std::vector<double> a = StableMatrix(dim, 13);
  const std::vector<double> z0 = UniformValues(dim, 14, 1.0);
  std::unique_ptr<VulkanRollout> r = Make(dim, a);
  ASSERT_NE(r, nullptr);
  auto failing = [](int64_t step, std::span<const double>) {
    return step == 6 ? DataLossError("disk full") : OkStatus();
  };
  const RolloutParams p{.steps = 10, .hash_every = 5, .observe_every = 2};
  StatusOr<RolloutResult> want = Rollout(z0, a, p, failing);
  StatusOr<RolloutResult> got = r->Run(z0, p, failing);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status(), want.status()) << got.status().ToString();
  EXPECT_EQ(got.status().message(), "rollout observer at step 6: disk full");

  auto throwing = [](int64_t, std::span<const double>) -> Status {
    throw std::runtime_error("boom");
  };
  want = Rollout(z0, a, p, throwing);
  got = r->Run(z0, p, throwing);
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status(), want.status()) << got.status().ToString();
}

TEST_F(VulkanRolloutTest, RejectsBadInputsLikeCoreRef) {
  const int64_t dim = 4;
  std::vector<double> a = StableMatrix(dim, 15);
  const std::vector<double> z0 = UniformValues(dim, 16, 1.0);
  // Create.
  EXPECT_EQ(VulkanRollout::Create(ctx(), 0, {}).status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(VulkanRollout::Create(ctx(), dim, std::span(a).first(15)).status().code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(VulkanRollout::Create(ctx(), VulkanRollout::kMaxDim + 1, {}).status().code(),
            StatusCode::kUnimplemented);
  {  // 0 = automatic: 256 where the device allows it (lavapipe and NVIDIA do)
    StatusOr<std::unique_ptr<VulkanRollout>> automatic =
        VulkanRollout::Create(ctx(), dim, a, {.workgroup_size = 0});
    ASSERT_TRUE(automatic.ok()) << automatic.status().ToString();
    EXPECT_EQ((*automatic)->options().workgroup_size, 256u);
  }
  EXPECT_EQ(VulkanRollout::Create(ctx(), dim, a, {.workgroup_size = 1u << 20}).status().code(),
            StatusCode::kInvalidArgument);
  for (double bad : {std::numeric_limits<double>::quiet_NaN(),
                     std::numeric_limits<double>::infinity()}) {
    std::vector<double> a_bad = a;
    a_bad[1 * dim + 2] = bad;
    StatusOr<std::unique_ptr<VulkanRollout>> r = VulkanRollout::Create(ctx(), dim, a_bad);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(r.status().message().find("A[1][2] (flat index 6)"), std::string::npos)
        << r.status().ToString();
  }
  // Run: the same codes and (where D plays no role) the same messages as core_ref.
  std::unique_ptr<VulkanRollout> r = Make(dim, a);
  ASSERT_NE(r, nullptr);
  const RolloutObserver noop = [](int64_t, std::span<const double>) { return OkStatus(); };
  const std::vector<std::pair<RolloutParams, bool>> bad_params = {
      {{.steps = -1}, false},
      {{.steps = 3, .hash_every = 0}, false},
      {{.steps = 3, .hash_every = 1, .observe_every = -2}, false},
      {{.steps = 3, .hash_every = 1, .observe_every = 0}, true},
  };
  for (const auto& [p, with_observer] : bad_params) {
    const RolloutObserver obs = with_observer ? noop : nullptr;
    Status want = Rollout(z0, a, p, obs).status();
    Status got = r->Run(z0, p, obs).status();
    EXPECT_EQ(got, want) << got.ToString();
  }
  for (double bad : {std::numeric_limits<double>::quiet_NaN(),
                     -std::numeric_limits<double>::infinity()}) {
    std::vector<double> z_bad = z0;
    z_bad[3] = bad;
    Status want = Rollout(z_bad, a, {.steps = 2}).status();
    Status got = r->Run(z_bad, {.steps = 2}).status();
    EXPECT_EQ(got, want) << got.ToString();
  }
  Status got = r->Run(std::span(z0).first(3), {.steps = 2}).status();
  EXPECT_EQ(got.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(got.message().find("created for D = 4"), std::string::npos) << got.ToString();
}

TEST_F(VulkanRolloutTest, NonFiniteStateGivesCoreRefsErrorAtTheSameStep) {
  // A = 1e30·(random): |z| grows by ~1e29 per step and overflows after ~10 steps.
  const int64_t dim = 100;
  std::vector<double> a = StableMatrix(dim, 17);
  for (double& x : a) x *= 1e30;
  const std::vector<double> z0 = UniformValues(dim, 18, 1.0);
  for (const auto& [max_snaps, kernel] :
       {std::pair<int64_t, RolloutKernel>{1, RolloutKernel::kFused},
        {3, RolloutKernel::kFused},
        {64, RolloutKernel::kFused},
        {3, RolloutKernel::kPersistent},
        {64, RolloutKernel::kPersistent}}) {
    SCOPED_TRACE("max_snaps=" + std::to_string(max_snaps) + " kernel=" +
                 RolloutKernelName(kernel));
    std::unique_ptr<VulkanRollout> r = Make(
        dim, a, {.max_steps_per_submit = 4, .max_snapshots_per_submit = max_snaps,
                 .kernel = kernel});
    ASSERT_NE(r, nullptr);
    for (int64_t hash_every : {1, 3, 7, 1000}) {
      const RolloutParams p{.steps = 40, .hash_every = hash_every};
      Status want = Rollout(z0, a, p).status();
      ASSERT_EQ(want.code(), StatusCode::kOutOfRange) << want.ToString();
      Status got = r->Run(z0, p).status();
      EXPECT_EQ(got, want) << got.ToString();
    }
  }
}

// Lavapipe reports no SM count, so the automatic kernel is the fused one there.
TEST_F(VulkanRolloutTest, KernelNamesAndAutomaticChoice) {
  for (RolloutKernel k : {RolloutKernel::kAuto, RolloutKernel::kFused, RolloutKernel::kTwoKernels,
                          RolloutKernel::kPersistent}) {
    StatusOr<RolloutKernel> parsed = ParseRolloutKernel(RolloutKernelName(k));
    ASSERT_TRUE(parsed.ok());
    EXPECT_EQ(*parsed, k);
  }
  EXPECT_EQ(ParseRolloutKernel("fast").status().code(), StatusCode::kInvalidArgument);
  const int64_t dim = 70;
  const std::vector<double> a = StableMatrix(dim, 21);
  std::unique_ptr<VulkanRollout> r = Make(dim, a);
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->kernel(), QuerySmInfo(ctx()).has_value() ? RolloutKernel::kPersistent
                                                         : RolloutKernel::kFused);
}

// The persistent kernel needs its workgroups resident together. Without an SM count several
// workgroups are refused unless explicitly allowed; 256 workgroups on lavapipe (a thread pool
// far smaller than that) cannot be resident, and the bounded spin must turn that into
// UNAVAILABLE naming the cause, not a hang or a wrong state; with G = 1 the same problem gives
// the reference chain.
TEST_F(VulkanRolloutTest, PersistentKernelReportsNonResidentWorkgroups) {
  const int64_t dim = 512;  // W = 16, R = 1: 8 chunks × 32 tiles = 256 units
  const std::vector<double> a = StableMatrix(dim, 22);
  const std::vector<double> z0 = UniformValues(dim, 23, 1.0);
  EXPECT_EQ(VulkanRollout::Create(ctx(), dim, a,
                                  {.workgroup_size = 8, .kernel = RolloutKernel::kPersistent})
                .status()
                .code(),
            StatusCode::kInvalidArgument);
  if (!QuerySmInfo(ctx()).has_value()) {  // residency unknown: several workgroups are refused
    StatusOr<std::unique_ptr<VulkanRollout>> refused = VulkanRollout::Create(
        ctx(), dim, a,
        {.workgroup_size = 16, .kernel = RolloutKernel::kPersistent, .persistent_groups = 256,
         .persistent_cols = 1});
    EXPECT_EQ(refused.status().code(), StatusCode::kInvalidArgument);
    EXPECT_NE(refused.status().message().find("SM count"), std::string::npos)
        << refused.status().ToString();
  }
  std::unique_ptr<VulkanRollout> r =
      Make(dim, a, {.workgroup_size = 16, .kernel = RolloutKernel::kPersistent,
                    .persistent_groups = 256, .persistent_allow_unverified_groups = true,
                    .persistent_cols = 1, .persistent_spin_limit = 20000});
  ASSERT_NE(r, nullptr);
  EXPECT_EQ(r->persistent_groups(), 256u);
  StatusOr<RolloutResult> got = r->Run(z0, {.steps = 3, .hash_every = 1});
  ASSERT_FALSE(got.ok());
  EXPECT_EQ(got.status().code(), StatusCode::kUnavailable) << got.status().ToString();
  EXPECT_NE(got.status().message().find("not all resident"), std::string::npos)
      << got.status().ToString();
  std::unique_ptr<VulkanRollout> one =
      Make(dim, a, {.kernel = RolloutKernel::kPersistent, .persistent_groups = 1});
  ASSERT_NE(one, nullptr);
  ExpectMatchesReference(*one, z0, a, {.steps = 3, .hash_every = 1});
}

// The persistent kernel's register-resident path (A in registers, the wait merged with the state
// rebuild) with one work unit (D <= W, so G = 1 on lavapipe): W < 64, where an invocation
// rebuilds several state entries, and W >= 64; one and many steps per dispatch; the same object
// run twice. (Several units need several workgroups resident together: checked by conformance
// on GPUs; lavapipe, Mesa 22.3.6, computed wrong states with several waiting workgroups,
// docs/PERF.md.)
TEST_F(VulkanRolloutTest, ResidentPathMatchesCoreRef) {
  for (const auto& [dim, wg] : {std::pair<int64_t, uint32_t>{1, 16},
                                {10, 16},
                                {16, 16},
                                {30, 32},
                                {40, 64},
                                {64, 64},
                                {64, 128}}) {
    const std::vector<double> a = StableMatrix(dim, 800 + dim);
    const std::vector<double> z0 = UniformValues(dim, 900 + dim, 1.0);
    for (const int64_t per_dispatch : {0, 1, 4}) {
      SCOPED_TRACE("D=" + std::to_string(dim) + " wg=" + std::to_string(wg) +
                   " per_dispatch=" + std::to_string(per_dispatch));
      std::unique_ptr<VulkanRollout> r =
          Make(dim, a, {.workgroup_size = wg, .kernel = RolloutKernel::kPersistent,
                        .persistent_max_steps_per_dispatch = per_dispatch});
      ASSERT_NE(r, nullptr);
      EXPECT_EQ(r->persistent_groups(), 1u);
      EXPECT_TRUE(r->persistent_resident_a());
      ExpectMatchesReference(*r, z0, a, {.steps = 23, .hash_every = 5});
      ExpectMatchesReference(*r, z0, a, {.steps = 3, .hash_every = 1});
      StatusOr<int64_t> bad = r->CountCorruptedGuardWords();
      ASSERT_TRUE(bad.ok()) << bad.status().ToString();
      EXPECT_EQ(*bad, 0);
    }
  }
}

// (Guard words after 9 steps of every kernel: the case rollout.guard_words.)
TEST_F(VulkanRolloutTest, TimingsFilled) {
  for (int64_t dim : {3, 64, 65, 300}) {
    const std::vector<double> a = StableMatrix(dim, 19);
    const std::vector<double> z0 = UniformValues(dim, 20, 1.0);
    std::unique_ptr<VulkanRollout> r = Make(dim, a, {.workgroup_size = 256});
    ASSERT_NE(r, nullptr);
    StatusOr<RolloutResult> got = r->Run(z0, {.steps = 12, .hash_every = 4});
    ASSERT_TRUE(got.ok()) << got.status().ToString();
    const RolloutTimings& t = r->last_timings();
    EXPECT_EQ(t.steps, 12);
    EXPECT_EQ(t.submissions, 1);
    EXPECT_EQ(t.snapshots, 3);
    EXPECT_GE(t.device_ms, 0.0);
    EXPECT_GT(t.host_ms, 0.0);
    if (t.timestamps && t.device_ms > 0) {
      EXPECT_NEAR(t.steps_per_second * t.device_us_per_step, 1e6, 1.0);
    }
  }
}

TEST_F(VulkanRolloutTest, LargestLavapipeDimension4096) {
  const int64_t dim = 4096;
  const std::vector<double> a = StableMatrix(dim, 21);
  const std::vector<double> z0 = UniformValues(dim, 22, 1.0);
  std::unique_ptr<VulkanRollout> r = Make(dim, a);
  ASSERT_NE(r, nullptr);
  ExpectMatchesReference(*r, z0, a, {.steps = 2, .hash_every = 1});
  StatusOr<int64_t> bad = r->CountCorruptedGuardWords();
  ASSERT_TRUE(bad.ok());
  EXPECT_EQ(*bad, 0);
}

}  // namespace
}  // namespace dashi::vk
