// The reference pipeline end to end: simulate the LES on the train, validation and eval seeds
// (concurrently, each run single-threaded), encode every window frame with anchors taken at the
// first train seed's frame train_start, fit the learner on the train windows (its K or λ chosen
// on the validation windows), roll z ← z·A out autonomously from every eval window's first
// state as one batched rollout with a hash chain per trajectory, score it against the LES and
// the baselines (persistence, damped persistence, zero), and decode snapshots of the first eval
// trajectory. Deterministic; timings are measured but never part of a result's identity.
//
//   PipelineParams p;  // the defaults of `dashi run`
//   StatusOr<PipelineResult> r = RunPipeline(p, [](const PipelineProgress& pr) { ... });
//   r->evaluation.verdict;  // "skill over persistence from step 4 on, ..."
#ifndef DASHI_CORE_REF_PIPELINE_PIPELINE_H_
#define DASHI_CORE_REF_PIPELINE_PIPELINE_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "core_ref/decode/decoder.h"
#include "core_ref/learner/learner.h"
#include "core_ref/les/les_solver.h"
#include "core_ref/pipeline/evaluation.h"
#include "core_ref/pipeline/learner_selection.h"
#include "core_ref/proxy/proxy_encoder.h"
#include "core_ref/rollout/rollout.h"
#include "core_ref/rollout/rollout_batch.h"
#include "core_ref/status/status.h"

namespace dashi {

// LES parameters of the eval runs that differ from training (absolute values; unset: as trained).
struct LesShift {
  std::optional<double> nu0, cs, dt;
  bool any() const { return nu0 || cs || dt; }
};

struct PipelineParams {
  LesParams les;                // n, dt, nu0, cs, init (the seed is set per trajectory)
  std::vector<uint64_t> train_seeds = {1, 2};
  std::vector<uint64_t> val_seeds = {11, 12};
  std::vector<uint64_t> eval_seeds = {21, 22, 23};
  int64_t train_start = 200;    // first proxy frame of each training window (spin-up before it)
  int64_t train_steps = 400;    // proxy steps of each training window
  int64_t eval_start = 200;     // first proxy frame of each validation and eval window
  int64_t eval_steps = 200;     // M proxy steps of autonomous rollout
  int64_t sample_every = 2;     // LES steps per proxy step
  int k_lo = 12;
  int k_mid = 24;
  int anchors = 32;
  // The learner; its k (K-step loss) and ridge_lambda are chosen on the validation seeds when
  // choose_k / choose_lambda say so; the energy lag L of the constraint is set by RunPipeline to
  // min(eval_steps, ⌊train_steps / 2⌋).
  LearnerConfig learner = {.kind = LearnerKind::kShell, .k = 10, .energy_constraint = true};
  bool choose_k = true;
  bool choose_lambda = true;
  LesShift eval_shift;
  std::vector<double> given_a;  // non-empty: no training, evaluate this A (D×D, row-major)
  int64_t hash_every = 10;
  int snapshots = 4;            // decoded eval steps, evenly spaced including 0 and M; 0: none
  DecodeParams decode;
  int threads = 2;              // LES runs at once (each single-threaded); the results do not depend on it
  // false (observer "metrics"): the decoded fields are not needed on the host, so a backend with
  // a decode_scored hook decodes and scores each snapshot where it is (only numbers come back);
  // without that hook the fields are decoded and scored on the host as usual.
  bool keep_snapshot_fields = true;
};

Status ValidatePipelineParams(const PipelineParams& p);

// The LES parameters of the eval runs: les with eval_shift applied.
LesParams EvalLesParams(const PipelineParams& p);

// The bytes RunPipeline(p) holds at its peak, as an estimate: the LES working sets of `threads`
// concurrent runs, every window's encoded states, A and the kept snapshot fields.
// INVALID_ARGUMENT when the arithmetic overflows.
StatusOr<int64_t> EstimatePipelineBytes(const PipelineParams& p);

struct PipelineProgress {
  std::string stage;  // "anchors", "simulate", "fit", "rollout", "decode"
  int64_t done = 0;
  int64_t total = 0;
};

struct SnapshotResult {
  int64_t step = 0;                 // eval proxy step
  std::vector<double> les_omega;    // N×N ground truth
  DecodedFrame decoded;
  double rel_l2 = 0, correlation = 0;
  double energy_les = 0, energy_decoded = 0, enstrophy_les = 0, enstrophy_decoded = 0;
};

struct PipelineTimings {
  double anchors_ms = 0, simulate_ms = 0, fit_ms = 0, rollout_ms = 0;
  double setup_ms = 0;  // the backend's prepare (0 on the reference, which needs none)
  double rollout_ns_per_step = 0, rollout_steps_per_s = 0;  // per trajectory step
  double decode_ms_per_snapshot = 0;        // the decode (and a device comparison) alone
  double after_decode_ms_per_snapshot = 0;  // the backends' after_decode hook (0 without one)
  DecodeStageTimes decode_stage_ms;  // mean over snapshots
};

// One eval trajectory: the LES window encoded, the rollout from its first state, its scores.
struct EvalTrajectory {
  uint64_t seed = 0;
  std::vector<double> z_truth;      // (M+1)×D
  std::vector<double> z_rollout;    // (M+1)×D
  std::vector<ChainCheckpoint> chain;
  std::vector<double> les_energy, les_enstrophy;  // the LES's own, per window frame
  double one_step_rel_l2 = 0;       // mean over its pairs of ‖z_t A − z_{t+1}‖/‖z_{t+1}‖
};

struct PipelineResult {
  PipelineParams params;
  ProxySpec spec;
  std::vector<double> a;                 // D×D, row-major
  bool trained = false;                  // false: params.given_a was evaluated
  LearnerSelection learner;              // chosen config, fit, validation table (when trained)
  double train_one_step_rel_l2 = 0;      // mean over all train pairs (0 when not trained)
  std::vector<double> train_energy_first, train_energy_last;  // per train seed: window ends
  std::vector<double> damped_alpha;      // α(0 … M) fitted on the train windows
  std::vector<EvalTrajectory> eval;      // one per eval seed, in order
  Evaluation evaluation;
  std::vector<SnapshotResult> snapshots; // of eval trajectory 0
  PipelineTimings timings;
};

// A snapshot decoded and scored against the LES field by a backend, where the field lives: the
// frame's fields may be empty (the closure statistics are kept). The scores are those of
// SnapshotResult, computed in the backend's stated summation order.
struct ScoredDecode {
  DecodedFrame frame;
  double rel_l2 = 0, correlation = 0, energy = 0, enstrophy = 0;
};

// Where the eval rollout and the decode run. Empty functions mean the fp64 reference; the tools
// layer plugs in the Vulkan twins (core_ref itself never depends on an accelerator). The batched
// rollout must give every row bit for bit core_ref's Rollout (RolloutBatch is the reference).
struct PipelineBackends {
  // Optional: the backend's one-time set-up for this run's A (for `batch` eval trajectories at
  // once), the decoder when `decode`, and what decode_scored needs when `scored`; called once
  // before the eval rollouts and timed as PipelineTimings::setup_ms, so that the rollout and
  // decode rates measure the work alone.
  struct Preparation {
    int64_t batch = 1;
    bool decode = false;
    bool scored = false;
  };
  std::function<Status(const ProxySpec& spec, const DecodeParams& params,
                       std::span<const double> a, const Preparation& what)>
      prepare;
  std::function<StatusOr<std::vector<RolloutResult>>(
      std::span<const double> z0, int64_t batch, std::span<const double> a,
      const RolloutParams& params, const BatchRolloutObserver& observer)>
      rollout_batch;
  // Decodes z at time key t with the spec and params RunPipeline passes.
  std::function<StatusOr<DecodedFrame>(const ProxySpec& spec, const DecodeParams& params,
                                       std::span<const double> z, uint64_t t)>
      decode;
  // Optional, used when PipelineParams::keep_snapshot_fields is false: decodes z at time key t
  // and scores the result against les_omega (N×N) without handing the fields back.
  std::function<StatusOr<ScoredDecode>(const ProxySpec& spec, const DecodeParams& params,
                                       std::span<const double> z, uint64_t t,
                                       std::span<const double> les_omega)>
      decode_scored;
  // Optional: called right after each snapshot's decode (either hook), timed apart from it as
  // PipelineTimings::after_decode_ms_per_snapshot: the backend's own analysis of the decoded
  // field where it lives (the Vulkan backend's scale tower).
  std::function<Status(const ProxySpec& spec, uint64_t t)> after_decode;
};

// Encodes every frame (N×N each) into a (frames × D) row-major array.
StatusOr<std::vector<double>> EncodeFrames(const ProxySpec& spec,
                                           const std::vector<std::vector<double>>& frames);

StatusOr<PipelineResult> RunPipeline(
    const PipelineParams& params,
    const std::function<void(const PipelineProgress&)>& progress = {},
    const PipelineBackends& backends = {});

}  // namespace dashi

#endif  // DASHI_CORE_REF_PIPELINE_PIPELINE_H_
