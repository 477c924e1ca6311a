#include "core_ref/pipeline/pipeline.h"

#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

namespace dashi {
namespace {

// N = 32: train seed 1, validation seed 5, eval seeds 2 and 3, windows from frame 10.
PipelineParams Small() {
  PipelineParams p;
  p.les.n = 32;
  p.les.dt = 0.01;
  p.les.k_peak = 3;
  p.train_seeds = {1};
  p.val_seeds = {5};
  p.eval_seeds = {2, 3};
  p.train_start = 10;
  p.eval_start = 10;
  p.train_steps = 80;
  p.eval_steps = 30;
  p.sample_every = 2;
  p.k_lo = 4;
  p.k_mid = 8;
  p.anchors = 8;
  p.hash_every = 7;
  p.snapshots = 3;
  return p;
}

TEST(PipelineTest, RunsEndToEndAndIsDeterministic) {
  int progress_calls = 0;
  StatusOr<PipelineResult> a =
      RunPipeline(Small(), [&](const PipelineProgress&) { ++progress_calls; });
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  EXPECT_GT(progress_calls, 5);
  const int64_t dim = a->spec.dim();
  EXPECT_EQ(static_cast<int64_t>(a->a.size()), dim * dim);
  ASSERT_EQ(a->eval.size(), 2u);
  for (const EvalTrajectory& e : a->eval) {
    // Each rollout starts from its own eval truth; checkpoints 0, 7, 14, 21, 28, 30.
    EXPECT_TRUE(std::equal(e.z_rollout.begin(), e.z_rollout.begin() + dim, e.z_truth.begin()));
    ASSERT_EQ(e.chain.size(), 6u);
    EXPECT_EQ(e.chain.back().step, 30);
    EXPECT_EQ(e.les_energy.size(), 31u);
  }
  EXPECT_NE(a->eval[0].chain.back().link, a->eval[1].chain.back().link);
  // The shell learner chose K among 1, 5, 10, 20 on the validation seed.
  EXPECT_TRUE(a->trained);
  EXPECT_EQ(a->learner.chosen.kind, LearnerKind::kShell);
  EXPECT_EQ(a->learner.candidates.size(), 4u);
  EXPECT_EQ(a->learner.chosen.energy_lag, 30);  // min(eval steps, train steps / 2)
  EXPECT_LE(a->evaluation.spectral_radius, 1.0);
  EXPECT_TRUE(a->evaluation.norms_exact);
  EXPECT_EQ(a->damped_alpha.size(), 31u);
  EXPECT_EQ(a->damped_alpha[0], 1.0);
  EXPECT_FALSE(a->evaluation.verdict.empty());
  EXPECT_EQ(a->snapshots.size(), 3u);
  EXPECT_EQ(a->snapshots[0].step, 0);
  EXPECT_EQ(a->snapshots[2].step, 30);
  for (const SnapshotResult& s : a->snapshots) {
    EXPECT_TRUE(std::isfinite(s.rel_l2) && std::isfinite(s.correlation)) << "step " << s.step;
    EXPECT_GT(s.energy_decoded, 0.0);
  }
  // Step 0 decodes the true z: the low-pass part is exact, so the field correlates clearly.
  EXPECT_GT(a->snapshots[0].correlation, 0.3);
  std::printf("D = %lld, %s; %s\n", static_cast<long long>(dim),
              LearnerConfigText(a->learner.chosen).c_str(), a->evaluation.verdict.c_str());

  // The same bytes again, and with any number of LES threads.
  PipelineParams one_thread = Small();
  one_thread.threads = 1;
  StatusOr<PipelineResult> b = RunPipeline(one_thread);
  ASSERT_TRUE(b.ok());
  EXPECT_EQ(a->a, b->a);
  for (size_t e = 0; e < a->eval.size(); ++e) {
    EXPECT_EQ(a->eval[e].chain, b->eval[e].chain);
    EXPECT_EQ(a->eval[e].z_truth, b->eval[e].z_truth);
  }
}

// The batched eval rollout's rows are the single-trajectory rollouts.
TEST(PipelineTest, EvalRowsAreSingleRollouts) {
  StatusOr<PipelineResult> r = RunPipeline(Small());
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  const int64_t dim = r->spec.dim();
  for (const EvalTrajectory& e : r->eval) {
    StatusOr<RolloutResult> one =
        Rollout(std::span<const double>(e.z_truth).first(dim), r->a,
                {.steps = 30, .hash_every = 7});
    ASSERT_TRUE(one.ok());
    EXPECT_EQ(one->chain, e.chain);
    EXPECT_TRUE(std::equal(one->final_state.begin(), one->final_state.end(),
                           e.z_rollout.end() - dim));
  }
}

// Ridge with λ chosen on validation; then --no-train with that A reproduces the evaluation.
TEST(PipelineTest, RidgeChoosesLambdaAndAGivenAIsEvaluatedAlike) {
  PipelineParams p = Small();
  p.learner = LearnerConfig{.kind = LearnerKind::kRidge};
  StatusOr<PipelineResult> ridge = RunPipeline(p);
  ASSERT_TRUE(ridge.ok()) << ridge.status().ToString();
  EXPECT_EQ(ridge->learner.candidates.size(), 6u);
  EXPECT_FALSE(ridge->evaluation.norms_exact);
  EXPECT_GT(ridge->evaluation.norm2, 0.0);
  p.given_a = ridge->a;
  StatusOr<PipelineResult> given = RunPipeline(p);
  ASSERT_TRUE(given.ok()) << given.status().ToString();
  EXPECT_FALSE(given->trained);
  EXPECT_EQ(given->eval[1].chain, ridge->eval[1].chain);
  EXPECT_EQ(given->evaluation.ratio.mean, ridge->evaluation.ratio.mean);
  p.given_a.pop_back();
  StatusOr<PipelineResult> bad = RunPipeline(p);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("must be"), std::string::npos) << bad.status().ToString();
}

// A parameter shift changes the eval LES (and nothing that was learned).
TEST(PipelineTest, EvalShiftChangesOnlyTheEvalRuns) {
  PipelineParams p = Small();
  p.snapshots = 0;
  StatusOr<PipelineResult> base = RunPipeline(p);
  p.eval_shift.nu0 = 1.5 * p.les.nu0;
  StatusOr<PipelineResult> shifted = RunPipeline(p);
  ASSERT_TRUE(base.ok() && shifted.ok()) << shifted.status().ToString();
  EXPECT_EQ(base->a, shifted->a);
  EXPECT_NE(base->eval[0].z_truth, shifted->eval[0].z_truth);
  EXPECT_EQ(EvalLesParams(p).nu0, 1.5 * p.les.nu0);
  EXPECT_EQ(EvalLesParams(p).cs, p.les.cs);
}

TEST(PipelineTest, RejectsSharedSeedsAndNonsense) {
  PipelineParams p = Small();
  p.eval_seeds = {2, 5};  // 5 is the validation seed
  StatusOr<PipelineResult> r = RunPipeline(p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("held out"), std::string::npos);
  EXPECT_NE(r.status().message().find("seed 5 is both a validation and an eval"),
            std::string::npos)
      << r.status().ToString();
  p = Small();
  p.train_seeds = {1, 1};
  EXPECT_FALSE(RunPipeline(p).ok());
  p = Small();
  p.les.dt = -1;
  EXPECT_FALSE(RunPipeline(p).ok());
  p = Small();
  p.eval_shift.dt = -1;
  r = RunPipeline(p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("eval shift"), std::string::npos);
  p = Small();
  p.k_mid = 40;
  EXPECT_FALSE(RunPipeline(p).ok());
  p = Small();
  p.val_seeds = {};  // K cannot be chosen without validation seeds
  r = RunPipeline(p);
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("validation seeds"), std::string::npos);
  p.choose_k = false;  // a fixed K needs none
  EXPECT_TRUE(RunPipeline(p).ok());
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
  EXPECT_EQ(without->eval[0].chain, with->eval[0].chain);
  p.snapshots = -1;
  EXPECT_FALSE(RunPipeline(p).ok());
}

// Issue 13 #1: with keep_snapshot_fields false, a backend's decode_scored hook decodes and scores
// each snapshot (it receives that snapshot's LES field) and its numbers are the snapshot's; with
// the fields kept, the hook is never called.
TEST(PipelineTest, ScoredDecodeHookScoresSnapshotsWhereTheyAre) {
  PipelineParams p = Small();
  StatusOr<PipelineResult> plain = RunPipeline(p);
  ASSERT_TRUE(plain.ok()) << plain.status().ToString();
  int calls = 0;
  PipelineBackends hooks;
  hooks.decode_scored = [&](const ProxySpec& spec, const DecodeParams& params,
                            std::span<const double> z, uint64_t t,
                            std::span<const double> les) -> StatusOr<ScoredDecode> {
    const SnapshotResult& ref = plain->snapshots[static_cast<size_t>(calls)];
    EXPECT_TRUE(std::equal(les.begin(), les.end(), ref.les_omega.begin(), ref.les_omega.end()));
    ++calls;
    DASHI_ASSIGN_OR_RETURN(Decoder dec, Decoder::Create(spec, params));
    DASHI_ASSIGN_OR_RETURN(DecodedFrame f, dec.Decode(z, t));
    f.omega.clear();
    return ScoredDecode{std::move(f), 0.25 + calls, 0.5, 7.0, 9.0};
  };
  StatusOr<PipelineResult> kept = RunPipeline(p, {}, hooks);
  ASSERT_TRUE(kept.ok()) << kept.status().ToString();
  EXPECT_EQ(calls, 0);
  p.keep_snapshot_fields = false;
  StatusOr<PipelineResult> scored = RunPipeline(p, {}, hooks);
  ASSERT_TRUE(scored.ok()) << scored.status().ToString();
  ASSERT_EQ(calls, static_cast<int>(plain->snapshots.size()));
  for (size_t s = 0; s < scored->snapshots.size(); ++s) {
    EXPECT_EQ(scored->snapshots[s].rel_l2, 1.25 + static_cast<double>(s));
    EXPECT_EQ(scored->snapshots[s].energy_decoded, 7.0);
    EXPECT_EQ(scored->snapshots[s].energy_les, plain->snapshots[s].energy_les);
    EXPECT_TRUE(scored->snapshots[s].decoded.omega.empty());
  }
  EXPECT_EQ(scored->eval[0].chain, plain->eval[0].chain);
}

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

// Issue 12 #6: the memory a run needs is estimated before it starts (tools refuse it when it
// exceeds the machine). The frames are encoded as they are made, so the LES working sets of the
// concurrent runs dominate at large N; an overflow is an error.
TEST(PipelineTest, EstimatesItsMemoryBeforeStarting) {
  PipelineParams p;  // defaults: N = 128
  StatusOr<int64_t> small = EstimatePipelineBytes(p);
  ASSERT_TRUE(small.ok());
  EXPECT_GT(*small, int64_t{10} << 20);
  EXPECT_LT(*small, int64_t{1} << 30);
  p.les.n = 4096;
  StatusOr<int64_t> big = EstimatePipelineBytes(p);
  ASSERT_TRUE(big.ok());
  EXPECT_GT(*big, int64_t{5} << 30);  // two LES runs of ~27 grids of 4096² doubles
  p.threads = 4;
  EXPECT_GT(*EstimatePipelineBytes(p), *big);
  p.train_steps = int64_t{1} << 61;
  EXPECT_FALSE(EstimatePipelineBytes(p).ok());
}

}  // namespace
}  // namespace dashi
