#include "core_ref/pipeline/pipeline.h"

#include <cmath>

#include <gtest/gtest.h>

namespace dashi {
namespace {

PipelineParams Small() {
  PipelineParams p;
  p.les.n = 32;
  p.les.dt = 0.01;
  p.les.k_peak = 3;
  p.train_steps = 80;
  p.eval_steps = 30;
  p.sample_every = 2;
  p.k_lo = 4;
  p.k_mid = 8;
  p.anchors = 8;
  p.hash_every = 7;
  p.snapshots = 3;
  p.ridge_lambda = 1e-6;
  p.ridge_prior = RidgePrior::kZero;
  return p;
}

TEST(PipelineTest, RunsEndToEndAndIsDeterministic) {
  int progress_calls = 0;
  StatusOr<PipelineResult> a = RunPipeline(Small(), [&](const PipelineProgress&) { ++progress_calls; });
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_GT(progress_calls, 5);
  const int64_t dim = a->spec.dim();
  EXPECT_EQ(static_cast<int64_t>(a->a.size()), dim * dim);
  // Rollout starts from the eval truth; the chain has checkpoints 0, 7, 14, 21, 28, 30.
  EXPECT_EQ(a->eval_rel_l2[0], 0.0);
  ASSERT_EQ(a->rollout.chain.size(), 6u);
  EXPECT_EQ(a->rollout.chain.back().step, 30);
  EXPECT_EQ(a->snapshots.size(), 3u);
  EXPECT_EQ(a->snapshots[0].step, 0);
  EXPECT_EQ(a->snapshots[2].step, 30);
  for (const SnapshotResult& s : a->snapshots) {
    EXPECT_TRUE(std::isfinite(s.rel_l2) && std::isfinite(s.correlation)) << "step " << s.step;
    EXPECT_GT(s.energy_decoded, 0.0);
  }
  // Step 0 decodes the true z: the low-pass part is exact, so the field correlates clearly.
  EXPECT_GT(a->snapshots[0].correlation, 0.3);
  // A linear model fits one step of its own training data well.
  EXPECT_LT(a->train_one_step_rel_l2, 0.05);
  EXPECT_EQ(a->persistence_rel_l2[0], 0.0);
  std::printf("D = %lld, one-step rel L2 train %.3e eval %.3e, final-step rel L2 %.3e, "
              "snapshot corr %.3f %.3f %.3f\n",
              static_cast<long long>(dim), a->train_one_step_rel_l2, a->eval_one_step_rel_l2,
              a->eval_rel_l2.back(), a->snapshots[0].correlation, a->snapshots[1].correlation,
              a->snapshots[2].correlation);

  StatusOr<PipelineResult> b = RunPipeline(Small());
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a->rollout.chain, b->rollout.chain);
  EXPECT_EQ(a->a, b->a);
}

TEST(PipelineTest, IdentityPriorBeatsZeroPriorOnHeldOutData) {
  PipelineParams p = Small();
  p.ridge_lambda = 1e-2;
  StatusOr<PipelineResult> zero = RunPipeline(p);
  p.ridge_prior = RidgePrior::kIdentity;
  StatusOr<PipelineResult> ident = RunPipeline(p);
  ASSERT_TRUE(zero.ok() && ident.ok());
  std::printf("eval one-step rel L2: zero prior %.3e, identity prior %.3e, persistence %.3e\n",
              zero->eval_one_step_rel_l2, ident->eval_one_step_rel_l2,
              ident->persistence_rel_l2[1]);
  EXPECT_LT(ident->eval_one_step_rel_l2, zero->eval_one_step_rel_l2);
}

TEST(PipelineTest, RejectsSharedSeedsAndNonsense) {
  PipelineParams p = Small();
  p.eval_seed = p.train_seed;
  StatusOr<PipelineResult> r = RunPipeline(p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("held out"), std::string::npos);
  p = Small();
  p.les.dt = -1;
  EXPECT_FALSE(RunPipeline(p).ok());
  p = Small();
  p.k_mid = 40;
  EXPECT_FALSE(RunPipeline(p).ok());
}

// Issue 13 #1: the observer mode "none" decodes nothing — no snapshot, the decode hook never
// called — and the rollout and its chain are those of a run that decodes.
TEST(PipelineTest, NoSnapshotsMeansNoDecodeAtAll) {
  PipelineParams p = Small();
  StatusOr<PipelineResult> with = RunPipeline(p);
  p.snapshots = 0;
  int decodes = 0;
  PipelineBackends hooks;
  hooks.decode = [&](const ProxySpec&, const DecodeParams&, std::span<const double>,
                     uint64_t) -> StatusOr<DecodedFrame> {
    ++decodes;
    return InternalError("the decode hook must not be called");
  };
  StatusOr<PipelineResult> without = RunPipeline(p, {}, hooks);
  ASSERT_TRUE(with.ok() && without.ok()) << without.status().ToString();
  EXPECT_EQ(decodes, 0);
  EXPECT_TRUE(without->snapshots.empty());
  EXPECT_EQ(without->timings.decode_ms_per_snapshot, 0.0);
  EXPECT_EQ(without->rollout.chain, with->rollout.chain);
  p.snapshots = -1;
  EXPECT_FALSE(RunPipeline(p).ok());
}

}  // namespace
}  // namespace dashi

namespace dashi {
namespace {

// Issue 12 #1: eval_steps · sample_every overflowed int64, the frame count was never checked and
// OneStepError read past the end (SIGSEGV). Every size product is checked now.
TEST(PipelineTest, RefusesSizesWhoseProductsOverflow) {
  PipelineParams p = Small();
  p.eval_steps = int64_t{1} << 62;
  p.sample_every = 4;
  StatusOr<PipelineResult> r = RunPipeline(p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("eval"), std::string::npos) << r.status().ToString();
  p = Small();
  p.train_steps = (int64_t{1} << 62) + 1;
  p.sample_every = 2;
  r = RunPipeline(p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("train"), std::string::npos) << r.status().ToString();
}

}  // namespace
}  // namespace dashi

namespace dashi {
namespace {

// Issue 12 #6: the memory a run needs is estimated before it starts (tools refuse it when it
// exceeds the machine): ~54 GB for N = 4096 with the default steps, and an overflow is an error.
TEST(PipelineTest, EstimatesItsMemoryBeforeStarting) {
  PipelineParams p;  // defaults: N = 128
  StatusOr<int64_t> small = EstimatePipelineBytes(p);
  ASSERT_TRUE(small.ok());
  EXPECT_GT(*small, int64_t{100} << 20);  // hundreds of frames of 128² doubles, held twice
  EXPECT_LT(*small, int64_t{4} << 30);
  p.les.n = 4096;
  StatusOr<int64_t> big = EstimatePipelineBytes(p);
  ASSERT_TRUE(big.ok());
  EXPECT_GT(*big, int64_t{54} << 30);
  p.train_steps = int64_t{1} << 61;
  EXPECT_FALSE(EstimatePipelineBytes(p).ok());
}

}  // namespace
}  // namespace dashi
