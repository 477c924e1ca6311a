#include "core_ref/pipeline/pipeline.h"

#include <chrono>
#include <cmath>
#include <string>

#include "core_ref/learner/metrics.h"
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

// Simulates one split and returns its frames (every sample_every LES steps).
StatusOr<LesTrajectory> SimulateSplit(const PipelineParams& p, uint64_t seed, int64_t proxy_steps,
                                      const char* stage,
                                      const std::function<void(const PipelineProgress&)>& progress) {
  LesParams les = p.les;
  les.seed = seed;
  DASHI_ASSIGN_OR_RETURN(const int64_t les_steps,
                         CheckedMul(proxy_steps, p.sample_every, std::string(stage) + " LES steps"));
  return Simulate(les, les_steps, p.sample_every,
                  [&](int64_t step, int64_t total) { Report(progress, stage, step, total); });
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

Status ValidatePipelineParams(const PipelineParams& p) {
  DASHI_RETURN_IF_ERROR(ValidateLesParams(p.les));
  if (p.train_steps < 2) return InvalidArgumentError("train steps must be >= 2");
  if (p.eval_steps < 1) return InvalidArgumentError("eval steps must be >= 1");
  if (p.sample_every < 1) return InvalidArgumentError("sample-every must be >= 1");
  if (p.hash_every < 1) return InvalidArgumentError("hash-every must be >= 1");
  // The LES steps of each split and the doubles of its frames must be representable.
  const int64_t cells = p.les.n * p.les.n;
  for (const auto& [steps, name] : {std::pair<int64_t, const char*>{p.train_steps, "train"},
                                    std::pair<int64_t, const char*>{p.eval_steps, "eval"}}) {
    const std::string what = std::string(name) + " split (" + std::to_string(steps) +
                             " proxy steps, sample-every " + std::to_string(p.sample_every) + ")";
    DASHI_ASSIGN_OR_RETURN(const int64_t les_steps, CheckedMul(steps, p.sample_every, what + " LES steps"));
    (void)les_steps;
    DASHI_ASSIGN_OR_RETURN(const int64_t frames, CheckedAdd(steps, 1, what + " frames"));
    DASHI_ASSIGN_OR_RETURN(const int64_t values, CheckedMul(frames, cells, what + " field values"));
    DASHI_RETURN_IF_ERROR(CheckedMul(values, 8, what + " field bytes").status());
  }
  if (p.snapshots < 0) return InvalidArgumentError("snapshots must be >= 0");
  if (!std::isfinite(p.ridge_lambda) || p.ridge_lambda < 0) {
    return InvalidArgumentError("ridge lambda must be finite and >= 0");
  }
  if (p.train_seed == p.eval_seed) {
    return InvalidArgumentError("train seed and eval seed are equal (" +
                                std::to_string(p.train_seed) +
                                "): the evaluation would not be held out");
  }
  return OkStatus();
}

StatusOr<int64_t> EstimatePipelineBytes(const PipelineParams& p) {
  DASHI_ASSIGN_OR_RETURN(const int64_t train,
                         EstimateSimulateBytes(p.les, p.train_steps, 1));
  DASHI_ASSIGN_OR_RETURN(const int64_t eval, EstimateSimulateBytes(p.les, p.eval_steps, 1));
  // D < N² always; the states, A and the snapshots are bounded by a few more grids per frame.
  DASHI_ASSIGN_OR_RETURN(const int64_t splits, CheckedAdd(train, eval, "pipeline bytes"));
  return CheckedMul(splits, 2, "pipeline bytes");
}

StatusOr<PipelineResult> RunPipeline(const PipelineParams& p,
                                     const std::function<void(const PipelineProgress&)>& progress,
                                     const PipelineBackends& backends) {
  DASHI_RETURN_IF_ERROR(ValidatePipelineParams(p));
  PipelineResult r;
  r.params = p;

  auto t0 = Clock::now();
  DASHI_ASSIGN_OR_RETURN(LesTrajectory train,
                         SimulateSplit(p, p.train_seed, p.train_steps, "simulate-train", progress));
  r.timings.simulate_train_ms = MsSince(t0);
  r.train_energy = train.energy;
  r.train_enstrophy = train.enstrophy;

  t0 = Clock::now();
  DASHI_ASSIGN_OR_RETURN(r.spec, MakeProxySpec(p.les.n, p.k_lo, p.k_mid, p.anchors,
                                                train.frames.front()));
  const int64_t dim = r.spec.dim();
  DASHI_ASSIGN_OR_RETURN(std::vector<double> z_train, EncodeFrames(r.spec, train.frames));
  r.timings.encode_ms = MsSince(t0);
  Report(progress, "encode", 1, 1);
  train.frames.clear();

  t0 = Clock::now();
  const int64_t n_train = static_cast<int64_t>(z_train.size()) / dim;
  DASHI_ASSIGN_OR_RETURN(r.a, FitTransition(z_train, n_train, dim, p.ridge_lambda,
                                            p.ridge_prior));
  r.timings.fit_ms = MsSince(t0);
  Report(progress, "fit", 1, 1);
  DASHI_ASSIGN_OR_RETURN(r.train_one_step_rel_l2, OneStepError(z_train, n_train, dim, r.a));

  t0 = Clock::now();
  DASHI_ASSIGN_OR_RETURN(LesTrajectory eval,
                         SimulateSplit(p, p.eval_seed, p.eval_steps, "simulate-eval", progress));
  r.timings.simulate_eval_ms = MsSince(t0);
  r.eval_energy = eval.energy;
  r.eval_enstrophy = eval.enstrophy;
  DASHI_ASSIGN_OR_RETURN(r.z_eval_truth, EncodeFrames(r.spec, eval.frames));
  const int64_t n_eval = p.eval_steps + 1;
  DASHI_ASSIGN_OR_RETURN(r.eval_one_step_rel_l2, OneStepError(r.z_eval_truth, n_eval, dim, r.a));

  // Autonomous rollout from the eval split's first state; the observer only records.
  r.z_rollout.reserve(static_cast<size_t>(n_eval * dim));
  RolloutParams rp;
  rp.steps = p.eval_steps;
  rp.hash_every = p.hash_every;
  rp.observe_every = 1;
  t0 = Clock::now();
  const RolloutObserver record = [&](int64_t step, std::span<const double> z) {
    r.z_rollout.insert(r.z_rollout.end(), z.begin(), z.end());
    if (step % 50 == 0 || step == p.eval_steps) Report(progress, "rollout", step, p.eval_steps);
    return OkStatus();
  };
  const std::span<const double> z0 = std::span<const double>(r.z_eval_truth).subspan(0, dim);
  DASHI_ASSIGN_OR_RETURN(r.rollout, backends.rollout ? backends.rollout(z0, r.a, rp, record)
                                                     : Rollout(z0, r.a, rp, record));
  r.timings.rollout_ms = MsSince(t0);
  r.timings.rollout_ns_per_step = r.timings.rollout_ms * 1e6 / static_cast<double>(p.eval_steps);
  r.timings.rollout_steps_per_s = 1e9 / r.timings.rollout_ns_per_step;
  if (static_cast<int64_t>(r.z_rollout.size()) != n_eval * dim) {
    return InternalError("rollout observer saw " + std::to_string(r.z_rollout.size() / dim) +
                         " states, expected " + std::to_string(n_eval));
  }
  DASHI_ASSIGN_OR_RETURN(r.eval_rel_l2,
                         RelativeL2ErrorPerStep(r.z_rollout, r.z_eval_truth, n_eval, dim));
  DASHI_ASSIGN_OR_RETURN(r.eval_correlation,
                         PearsonCorrelationPerStep(r.z_rollout, r.z_eval_truth, n_eval, dim));
  const std::span<const double> truth(r.z_eval_truth);
  for (int64_t t = 0; t < n_eval; ++t) {
    r.persistence_rel_l2.push_back(RelL2(truth.subspan(0, dim), truth.subspan(t * dim, dim)));
  }

  // Decode evenly spaced snapshots of the rollout and compare with the LES (none at all when
  // snapshots = 0: the observer mode "none").
  if (p.snapshots == 0) return r;
  DASHI_ASSIGN_OR_RETURN(Decoder decoder, Decoder::Create(r.spec, p.decode));
  const SpectralGrid grid(p.les.n);
  DASHI_ASSIGN_OR_RETURN(Fft2d fft, Fft2d::Create(static_cast<size_t>(p.les.n),
                                                  static_cast<size_t>(p.les.n)));
  const int count = static_cast<int>(std::min<int64_t>(p.snapshots, n_eval));
  double decode_ms = 0;
  for (int s = 0; s < count; ++s) {
    const int64_t step = count == 1 ? 0 : p.eval_steps * s / (count - 1);
    t0 = Clock::now();
    const std::span<const double> zs = std::span<const double>(r.z_rollout).subspan(step * dim, dim);
    DASHI_ASSIGN_OR_RETURN(DecodedFrame frame,
                           backends.decode
                               ? backends.decode(r.spec, p.decode, zs, static_cast<uint64_t>(step))
                               : decoder.Decode(zs, static_cast<uint64_t>(step)));
    decode_ms += MsSince(t0);
    SnapshotResult snap{step, eval.frames[static_cast<size_t>(step)], std::move(frame)};
    snap.rel_l2 = RelL2(snap.decoded.omega, snap.les_omega);
    DASHI_ASSIGN_OR_RETURN(snap.correlation, PearsonCorrelation(snap.decoded.omega, snap.les_omega));
    snap.energy_les = eval.energy[static_cast<size_t>(step)];
    snap.enstrophy_les = eval.enstrophy[static_cast<size_t>(step)];
    const std::vector<Complex> dec_hat = fft.Rfft(snap.decoded.omega);
    snap.energy_decoded = SpectralEnergy(grid, dec_hat);
    snap.enstrophy_decoded = SpectralEnstrophy(grid, dec_hat);
    DecodeStageTimes& m = r.timings.decode_stage_ms;
    const DecodeStageTimes& t = snap.decoded.times;
    m.scatter_lowk_ms += t.scatter_lowk_ms / count;
    m.ifft_lp_ms += t.ifft_lp_ms / count;
    m.mask_ms += t.mask_ms / count;
    m.synth_ms += t.synth_ms / count;
    m.ifft_resid_ms += t.ifft_resid_ms / count;
    m.combine_ms += t.combine_ms / count;
    r.snapshots.push_back(std::move(snap));
    Report(progress, "decode", s + 1, count);
  }
  r.timings.decode_ms_per_snapshot = decode_ms / count;
  return r;
}

}  // namespace dashi
