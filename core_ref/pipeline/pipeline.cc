#include "core_ref/pipeline/pipeline.h"

#include <chrono>
#include <cmath>
#include <optional>
#include <string>
#include <tuple>
#include <utility>

#include "core_ref/learner/metrics.h"
#include "core_ref/pipeline/trajectory_simulation.h"
#include "core_ref/proxy/proxy_energy.h"
#include "core_ref/status/checked_arithmetic.h"

namespace dashi {
namespace {

using Clock = std::chrono::steady_clock;
double MsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

void Report(const std::function<void(const PipelineProgress&)>& progress, const char* stage,
            int64_t done, int64_t total) {
  if (progress) progress({stage, done, total});
}

double RelL2(std::span<const double> x, std::span<const double> ref) {
  double num = 0, den = 0;
  for (size_t k = 0; k < x.size(); ++k) {
    const double d = x[k] - ref[k];
    num += d * d;
    den += ref[k] * ref[k];
  }
  return den > 0 ? std::sqrt(num / den) : std::sqrt(num);
}

std::string SeedList(const std::vector<uint64_t>& seeds) {
  std::string s;
  for (uint64_t v : seeds) s += (s.empty() ? "" : ",") + std::to_string(v);
  return s;
}

// The snapshot steps: `count` evenly spaced over 0 … steps, both ends included.
std::vector<int64_t> SnapshotSteps(int count, int64_t steps) {
  std::vector<int64_t> out;
  const int c = static_cast<int>(std::min<int64_t>(count, steps + 1));
  for (int s = 0; s < c; ++s) out.push_back(c == 1 ? 0 : steps * s / (c - 1));
  return out;
}

// Mean of OneStepError over the trajectories, weighted by their pairs.
StatusOr<double> MeanOneStepError(const TrajectorySet& set, std::span<const double> a) {
  double sum = 0;
  int64_t pairs = 0;
  for (size_t r = 0; r < set.trajectories.size(); ++r) {
    DASHI_ASSIGN_OR_RETURN(double e, OneStepError(set.trajectories[r], set.frames(r), set.dim, a));
    sum += e * static_cast<double>(set.frames(r) - 1);
    pairs += set.frames(r) - 1;
  }
  return pairs > 0 ? sum / static_cast<double>(pairs) : 0.0;
}

Status DecodeSnapshots(const PipelineParams& p, const PipelineBackends& backends,
                       const std::function<void(const PipelineProgress&)>& progress,
                       std::vector<std::vector<double>> les_frames, PipelineResult& r) {
  const std::vector<int64_t> steps = SnapshotSteps(p.snapshots, p.eval_steps);
  if (steps.empty()) return OkStatus();
  const EvalTrajectory& e = r.eval.front();
  const int64_t dim = r.spec.dim();
  DASHI_ASSIGN_OR_RETURN(Decoder decoder, Decoder::Create(r.spec, p.decode));
  const SpectralGrid grid(p.les.n);
  DASHI_ASSIGN_OR_RETURN(Fft2d fft, Fft2d::Create(static_cast<size_t>(p.les.n),
                                                  static_cast<size_t>(p.les.n)));
  const int count = static_cast<int>(steps.size());
  const bool scored = !p.keep_snapshot_fields && static_cast<bool>(backends.decode_scored);
  double decode_ms = 0, after_ms = 0;
  for (int s = 0; s < count; ++s) {
    const int64_t step = steps[s];
    const Clock::time_point t0 = Clock::now();
    const std::span<const double> zs = std::span<const double>(e.z_rollout).subspan(step * dim, dim);
    std::optional<SnapshotResult> snap;
    if (scored) {
      // Decoded and scored by the backend where the field is: only the numbers come back.
      DASHI_ASSIGN_OR_RETURN(ScoredDecode d, backends.decode_scored(r.spec, p.decode, zs,
                                                                   static_cast<uint64_t>(step),
                                                                   les_frames[s]));
      decode_ms += MsSince(t0);
      snap.emplace(SnapshotResult{step, std::move(les_frames[s]), std::move(d.frame)});
      snap->rel_l2 = d.rel_l2;
      snap->correlation = d.correlation;
      snap->energy_decoded = d.energy;
      snap->enstrophy_decoded = d.enstrophy;
    } else {
      DASHI_ASSIGN_OR_RETURN(DecodedFrame frame,
                             backends.decode
                                 ? backends.decode(r.spec, p.decode, zs, static_cast<uint64_t>(step))
                                 : decoder.Decode(zs, static_cast<uint64_t>(step)));
      decode_ms += MsSince(t0);
      snap.emplace(SnapshotResult{step, std::move(les_frames[s]), std::move(frame)});
      snap->rel_l2 = RelL2(snap->decoded.omega, snap->les_omega);
      DASHI_ASSIGN_OR_RETURN(snap->correlation,
                             PearsonCorrelation(snap->decoded.omega, snap->les_omega));
      const std::vector<Complex> dec_hat = fft.Rfft(snap->decoded.omega);
      snap->energy_decoded = SpectralEnergy(grid, dec_hat);
      snap->enstrophy_decoded = SpectralEnstrophy(grid, dec_hat);
    }
    snap->energy_les = e.les_energy[static_cast<size_t>(step)];
    snap->enstrophy_les = e.les_enstrophy[static_cast<size_t>(step)];
    if (backends.after_decode) {
      const Clock::time_point t1 = Clock::now();
      DASHI_RETURN_IF_ERROR(backends.after_decode(r.spec, static_cast<uint64_t>(step)));
      after_ms += MsSince(t1);
    }
    DecodeStageTimes& m = r.timings.decode_stage_ms;
    const DecodeStageTimes& t = snap->decoded.times;
    m.scatter_lowk_ms += t.scatter_lowk_ms / count;
    m.ifft_lp_ms += t.ifft_lp_ms / count;
    m.mask_ms += t.mask_ms / count;
    m.synth_ms += t.synth_ms / count;
    m.ifft_resid_ms += t.ifft_resid_ms / count;
    m.combine_ms += t.combine_ms / count;
    r.snapshots.push_back(std::move(*snap));
    Report(progress, "decode", s + 1, count);
  }
  r.timings.decode_ms_per_snapshot = decode_ms / count;
  r.timings.after_decode_ms_per_snapshot = after_ms / count;
  return OkStatus();
}

}  // namespace

StatusOr<std::vector<double>> EncodeFrames(const ProxySpec& spec,
                                           const std::vector<std::vector<double>>& frames) {
  std::vector<double> z;
  z.reserve(frames.size() * static_cast<size_t>(spec.dim()));
  for (const std::vector<double>& f : frames) {
    DASHI_ASSIGN_OR_RETURN(std::vector<double> zf, Encode(spec, f));
    z.insert(z.end(), zf.begin(), zf.end());
  }
  return z;
}

LesParams EvalLesParams(const PipelineParams& p) {
  LesParams les = p.les;
  if (p.eval_shift.nu0) les.nu0 = *p.eval_shift.nu0;
  if (p.eval_shift.cs) les.cs = *p.eval_shift.cs;
  if (p.eval_shift.dt) les.dt = *p.eval_shift.dt;
  return les;
}

Status ValidatePipelineParams(const PipelineParams& p) {
  DASHI_RETURN_IF_ERROR(ValidateLesParams(p.les));
  DASHI_RETURN_IF_ERROR(ValidateLesParams(EvalLesParams(p)).WithPrefix("eval shift"));
  if (p.train_steps < 2) return InvalidArgumentError("train steps must be >= 2");
  if (p.eval_steps < 1) return InvalidArgumentError("eval steps must be >= 1");
  if (p.sample_every < 1) return InvalidArgumentError("sample-every must be >= 1");
  if (p.train_start < 0) return InvalidArgumentError("train start must be >= 0");
  if (p.eval_start < 0) return InvalidArgumentError("eval start must be >= 0");
  if (p.hash_every < 1) return InvalidArgumentError("hash-every must be >= 1");
  if (p.threads < 1) return InvalidArgumentError("threads must be >= 1");
  if (p.train_seeds.empty()) {
    return InvalidArgumentError("no train seeds (the anchors come from the first one's frame)");
  }
  if (p.eval_seeds.empty()) return InvalidArgumentError("no eval seeds");
  // The LES steps of each window and the doubles of its frames must be representable.
  const int64_t cells = p.les.n * p.les.n;
  for (const auto& [start, steps, name] :
       {std::tuple<int64_t, int64_t, const char*>{p.train_start, p.train_steps, "train"},
        std::tuple<int64_t, int64_t, const char*>{p.eval_start, p.eval_steps, "eval"}}) {
    const std::string what = std::string(name) + " window (" + std::to_string(steps) +
                             " proxy steps from frame " + std::to_string(start) +
                             ", sample-every " + std::to_string(p.sample_every) + ")";
    DASHI_ASSIGN_OR_RETURN(const int64_t last, CheckedAdd(start, steps, what + " frames"));
    DASHI_RETURN_IF_ERROR(CheckedMul(last, p.sample_every, what + " LES steps").status());
    DASHI_ASSIGN_OR_RETURN(const int64_t frames, CheckedAdd(steps, 1, what + " frames"));
    DASHI_ASSIGN_OR_RETURN(const int64_t values, CheckedMul(frames, cells, what + " field values"));
    DASHI_RETURN_IF_ERROR(CheckedMul(values, 8, what + " field bytes").status());
  }
  if (p.snapshots < 0) return InvalidArgumentError("snapshots must be >= 0");
  if (!std::isfinite(p.learner.ridge_lambda) || p.learner.ridge_lambda < 0) {
    return InvalidArgumentError("ridge lambda must be finite and >= 0");
  }
  if (p.learner.k < 1) return InvalidArgumentError("K-step loss: K must be >= 1");
  if (!p.choose_k && p.learner.k > p.train_steps) {
    return InvalidArgumentError("K-step loss: K = " + std::to_string(p.learner.k) +
                                " exceeds the train steps (" + std::to_string(p.train_steps) + ")");
  }
  // Held out means held out: no seed twice, in one role or two.
  std::vector<std::pair<uint64_t, const char*>> seeds;
  for (uint64_t v : p.train_seeds) seeds.push_back({v, "a train"});
  for (uint64_t v : p.val_seeds) seeds.push_back({v, "a validation"});
  for (uint64_t v : p.eval_seeds) seeds.push_back({v, "an eval"});
  for (size_t i = 0; i < seeds.size(); ++i) {
    for (size_t j = i + 1; j < seeds.size(); ++j) {
      if (seeds[i].first != seeds[j].first) continue;
      return InvalidArgumentError(
          "seed " + std::to_string(seeds[i].first) + " is both " + seeds[i].second +
          " and " + seeds[j].second + " seed (train " + SeedList(p.train_seeds) +
          ", validation " + SeedList(p.val_seeds) + ", eval " + SeedList(p.eval_seeds) +
          "): every trajectory must be held out from the others");
    }
  }
  if (!p.given_a.empty()) {
    for (size_t k = 0; k < p.given_a.size(); ++k) {
      if (!std::isfinite(p.given_a[k])) {
        return InvalidArgumentError("the given A has a non-finite entry at flat index " +
                                    std::to_string(k));
      }
    }
  }
  return OkStatus();
}

StatusOr<int64_t> EstimatePipelineBytes(const PipelineParams& p) {
  // One LES working set (frame 0 kept) per concurrent run.
  DASHI_ASSIGN_OR_RETURN(const int64_t run, EstimateSimulateBytes(p.les, 0, 1));
  const int64_t runs = static_cast<int64_t>(p.train_seeds.size() + p.val_seeds.size() +
                                            p.eval_seeds.size());
  DASHI_ASSIGN_OR_RETURN(const int64_t les,
                         CheckedMul(run, std::min<int64_t>(p.threads, runs > 0 ? runs : 1),
                                    "pipeline bytes"));
  // D ≤ 2·(modes with |k| ≤ k_mid in the half plane) + 2 ≤ (2 k_mid + 1)² + 2.
  const int64_t dim = (2 * int64_t{p.k_mid} + 1) * (2 * int64_t{p.k_mid} + 1) + 2;
  DASHI_ASSIGN_OR_RETURN(const int64_t train_frames,
                         CheckedAdd(p.train_steps, 1, "pipeline bytes"));
  DASHI_ASSIGN_OR_RETURN(const int64_t eval_frames, CheckedAdd(p.eval_steps, 1, "pipeline bytes"));
  DASHI_ASSIGN_OR_RETURN(
      const int64_t t, CheckedMul(train_frames, static_cast<int64_t>(p.train_seeds.size()),
                                  "pipeline bytes"));
  DASHI_ASSIGN_OR_RETURN(
      const int64_t e,
      CheckedMul(eval_frames, 2 * static_cast<int64_t>(p.val_seeds.size() + p.eval_seeds.size()),
                 "pipeline bytes"));  // truth and rollout
  DASHI_ASSIGN_OR_RETURN(const int64_t frames, CheckedAdd(t, e, "pipeline bytes"));
  DASHI_ASSIGN_OR_RETURN(const int64_t states, CheckedMul(frames, dim * 8, "pipeline bytes"));
  // A (and a candidate per validation choice), the snapshot fields (LES, decoded, mask) and the
  // decoder's grids.
  DASHI_ASSIGN_OR_RETURN(const int64_t a, CheckedMul(dim * dim, 8 * 8, "pipeline bytes"));
  DASHI_ASSIGN_OR_RETURN(const int64_t grid, CheckedMul(p.les.n * p.les.n, 8, "pipeline bytes"));
  DASHI_ASSIGN_OR_RETURN(const int64_t snaps,
                         CheckedMul(grid, 3 * int64_t{p.snapshots} + 16, "pipeline bytes"));
  DASHI_ASSIGN_OR_RETURN(int64_t sum, CheckedAdd(les, states, "pipeline bytes"));
  DASHI_ASSIGN_OR_RETURN(sum, CheckedAdd(sum, a, "pipeline bytes"));
  return CheckedAdd(sum, snaps, "pipeline bytes");
}

StatusOr<PipelineResult> RunPipeline(const PipelineParams& p,
                                     const std::function<void(const PipelineProgress&)>& progress,
                                     const PipelineBackends& backends) {
  DASHI_RETURN_IF_ERROR(ValidatePipelineParams(p));
  PipelineResult r;
  r.params = p;
  r.trained = p.given_a.empty();
  r.params.learner.energy_lag = std::min(p.eval_steps, p.train_steps / 2);

  // The anchors: the largest mid-band modes of the first train seed's frame train_start.
  Clock::time_point t0 = Clock::now();
  LesParams les = p.les;
  les.seed = p.train_seeds.front();
  Report(progress, "anchors", 0, 1);
  DASHI_ASSIGN_OR_RETURN(std::vector<double> anchor_frame,
                         SimulateToFrame(les, p.train_start, p.sample_every));
  DASHI_ASSIGN_OR_RETURN(r.spec, MakeProxySpec(p.les.n, p.k_lo, p.k_mid, p.anchors, anchor_frame));
  const int64_t dim = r.spec.dim();
  if (!r.trained && p.given_a.size() != static_cast<size_t>(dim * dim)) {
    return InvalidArgumentError("the given A has " + std::to_string(p.given_a.size()) +
                                " entries; the proxy spec of these parameters has D = " +
                                std::to_string(dim) + ", so A must be " + std::to_string(dim) +
                                " x " + std::to_string(dim));
  }
  r.timings.anchors_ms = MsSince(t0);
  Report(progress, "anchors", 1, 1);

  // Every window: train (training LES), validation (training LES, only to choose K or λ) and
  // eval (the eval LES, possibly shifted).
  std::vector<TrajectoryJob> jobs;
  for (uint64_t s : p.train_seeds) {
    les.seed = s;
    jobs.push_back({les, p.train_start, p.train_steps, p.sample_every, {}});
  }
  const std::vector<uint64_t> val_seeds = r.trained ? p.val_seeds : std::vector<uint64_t>{};
  for (uint64_t s : val_seeds) {
    les.seed = s;
    jobs.push_back({les, p.eval_start, p.eval_steps, p.sample_every, {}});
  }
  LesParams eval_les = EvalLesParams(p);
  for (size_t e = 0; e < p.eval_seeds.size(); ++e) {
    eval_les.seed = p.eval_seeds[e];
    jobs.push_back({eval_les, p.eval_start, p.eval_steps, p.sample_every,
                    e == 0 ? SnapshotSteps(p.snapshots, p.eval_steps) : std::vector<int64_t>{}});
  }
  t0 = Clock::now();
  DASHI_ASSIGN_OR_RETURN(
      std::vector<SimulatedTrajectory> sims,
      SimulateTrajectories(jobs, r.spec, p.threads, [&](int64_t done, int64_t total) {
        if (done % 200 == 0 || done == total) Report(progress, "simulate", done, total);
      }));
  r.timings.simulate_ms = MsSince(t0);

  const size_t n_train = p.train_seeds.size(), n_val = val_seeds.size();
  TrajectorySet train{dim, {}}, validation{dim, {}};
  for (size_t i = 0; i < n_train; ++i) {
    train.trajectories.push_back(sims[i].z);
    r.train_energy_first.push_back(sims[i].energy.front());
    r.train_energy_last.push_back(sims[i].energy.back());
  }
  for (size_t i = 0; i < n_val; ++i) validation.trajectories.push_back(sims[n_train + i].z);

  // Learn (always on the reference), or take the given A.
  t0 = Clock::now();
  if (r.trained) {
    const bool k_step = p.learner.kind != LearnerKind::kRidge;
    const std::vector<LearnerConfig> candidates =
        LearnerCandidates(r.params.learner, k_step && p.choose_k,
                          p.learner.kind == LearnerKind::kRidge && p.choose_lambda,
                          p.train_steps + 1);
    DASHI_ASSIGN_OR_RETURN(r.learner, SelectLearner(candidates, r.spec, train, validation));
    r.a = r.learner.fit.a;
    DASHI_ASSIGN_OR_RETURN(r.train_one_step_rel_l2, MeanOneStepError(train, r.a));
  } else {
    r.a = p.given_a;
  }
  r.damped_alpha = FitDampedPersistence(train, p.eval_steps);
  r.timings.fit_ms = MsSince(t0);
  Report(progress, "fit", 1, 1);

  // The eval rollouts, one batch: row e starts at eval window e's first state.
  const size_t first_eval = n_train + n_val;
  const int64_t batch = static_cast<int64_t>(p.eval_seeds.size());
  std::vector<double> z0;
  for (size_t e = 0; e < p.eval_seeds.size(); ++e) {
    EvalTrajectory t;
    t.seed = p.eval_seeds[e];
    SimulatedTrajectory& s = sims[first_eval + e];
    t.z_truth = std::move(s.z);
    t.les_energy = std::move(s.energy);
    t.les_enstrophy = std::move(s.enstrophy);
    z0.insert(z0.end(), t.z_truth.begin(), t.z_truth.begin() + dim);
    t.z_rollout.reserve(t.z_truth.size());
    r.eval.push_back(std::move(t));
  }
  RolloutParams rp;
  rp.steps = p.eval_steps;
  rp.hash_every = p.hash_every;
  rp.observe_every = 1;
  const BatchRolloutObserver record = [&](int64_t b, int64_t step, std::span<const double> z) {
    std::vector<double>& dst = r.eval[static_cast<size_t>(b)].z_rollout;
    dst.insert(dst.end(), z.begin(), z.end());
    if (b == batch - 1 && (step % 50 == 0 || step == p.eval_steps)) {
      Report(progress, "rollout", step, p.eval_steps);
    }
    return OkStatus();
  };
  if (backends.prepare) {
    t0 = Clock::now();
    PipelineBackends::Preparation what;
    what.batch = batch;
    what.decode = !SnapshotSteps(p.snapshots, p.eval_steps).empty();
    what.scored = what.decode && !p.keep_snapshot_fields && static_cast<bool>(backends.decode_scored);
    DASHI_RETURN_IF_ERROR(backends.prepare(r.spec, p.decode, r.a, what));
    r.timings.setup_ms = MsSince(t0);
  }
  t0 = Clock::now();
  DASHI_ASSIGN_OR_RETURN(std::vector<RolloutResult> rolled,
                         backends.rollout_batch
                             ? backends.rollout_batch(z0, batch, r.a, rp, record)
                             : RolloutBatch(z0, batch, r.a, rp, record));
  r.timings.rollout_ms = MsSince(t0);
  r.timings.rollout_ns_per_step =
      r.timings.rollout_ms * 1e6 / static_cast<double>(p.eval_steps * batch);
  r.timings.rollout_steps_per_s = 1e9 / r.timings.rollout_ns_per_step;
  if (rolled.size() != static_cast<size_t>(batch)) {
    return InternalError("batched rollout returned " + std::to_string(rolled.size()) +
                         " trajectories, expected " + std::to_string(batch));
  }

  // Scores, baselines, norms and the verdict.
  const std::vector<double> weights = EnergyWeights(r.spec);
  std::vector<TrajectoryScores> scores;
  const int64_t n_eval = p.eval_steps + 1;
  for (size_t e = 0; e < r.eval.size(); ++e) {
    EvalTrajectory& t = r.eval[e];
    t.chain = std::move(rolled[e].chain);
    if (static_cast<int64_t>(t.z_rollout.size()) != n_eval * dim) {
      return InternalError("rollout observer saw " + std::to_string(t.z_rollout.size() / dim) +
                           " states of trajectory " + std::to_string(e) + ", expected " +
                           std::to_string(n_eval));
    }
    DASHI_ASSIGN_OR_RETURN(t.one_step_rel_l2, OneStepError(t.z_truth, n_eval, dim, r.a));
    DASHI_ASSIGN_OR_RETURN(TrajectoryScores s, ScoreTrajectory(t.z_truth, t.z_rollout, dim,
                                                               r.damped_alpha, weights));
    scores.push_back(std::move(s));
  }
  const bool exact = r.trained && r.learner.fit.spectral_radius >= 0;
  const MatrixNorms norms =
      exact ? MatrixNorms{r.learner.fit.spectral_radius, r.learner.fit.spectral_radius}
            : EstimateMatrixNorms(r.a, dim);
  r.evaluation = CombineScores(std::move(scores), norms, exact);

  // Decode evenly spaced snapshots of eval trajectory 0 and compare with its LES (none at all
  // when snapshots = 0: the observer mode "none").
  DASHI_RETURN_IF_ERROR(
      DecodeSnapshots(p, backends, progress, std::move(sims[first_eval].kept), r));
  return r;
}

}  // namespace dashi
