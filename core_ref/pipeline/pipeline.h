// The reference pipeline end to end: simulate the LES on the train seed, encode every
// saved frame, fit A by ridge regression, simulate the eval seed for ground truth, roll z ← z·A
// out autonomously from the eval split's first state with a hash chain, and decode snapshots.
// Everything here is deterministic; timings are measured but never part of a result's identity.
//
//   PipelineParams p;  // defaults: N = 128
//   StatusOr<PipelineResult> r = RunPipeline(p, [](const PipelineProgress& pr) { ... });
#ifndef DASHI_CORE_REF_PIPELINE_PIPELINE_H_
#define DASHI_CORE_REF_PIPELINE_PIPELINE_H_

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <vector>

#include "core_ref/decode/decoder.h"
#include "core_ref/learner/transition_fit.h"
#include "core_ref/les/les_solver.h"
#include "core_ref/proxy/proxy_encoder.h"
#include "core_ref/rollout/rollout.h"
#include "core_ref/status/status.h"

namespace dashi {

struct PipelineParams {
  LesParams les;                // n, dt, nu0, cs, init (the seed is set per split)
  uint64_t train_seed = 1;
  uint64_t eval_seed = 2;
  int64_t train_steps = 400;    // K proxy steps of training data
  int64_t eval_steps = 200;     // M proxy steps of autonomous rollout
  int64_t sample_every = 2;     // LES steps per proxy step
  int k_lo = 12;
  int k_mid = 24;
  int anchors = 32;
  double ridge_lambda = 1e-2;   // relative to trace(ZᵀZ)/D; see docs/MATH.md §Ridge
  RidgePrior ridge_prior = RidgePrior::kIdentity;
  int64_t hash_every = 10;
  int snapshots = 4;            // decoded eval steps, evenly spaced including 0 and M; 0: none
  DecodeParams decode;
};

Status ValidatePipelineParams(const PipelineParams& p);

// The bytes RunPipeline(p) holds at its peak, as an estimate: both splits' frames and LES working
// sets (EstimateSimulateBytes), the encoded states, A and the snapshots. INVALID_ARGUMENT when
// the arithmetic overflows.
StatusOr<int64_t> EstimatePipelineBytes(const PipelineParams& p);

struct PipelineProgress {
  std::string stage;  // "simulate-train", "encode", "fit", "simulate-eval", "rollout", "decode"
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
  double simulate_train_ms = 0, encode_ms = 0, fit_ms = 0, simulate_eval_ms = 0, rollout_ms = 0;
  double rollout_ns_per_step = 0, rollout_steps_per_s = 0;
  double decode_ms_per_snapshot = 0;
  DecodeStageTimes decode_stage_ms;  // mean over snapshots
};

struct PipelineResult {
  PipelineParams params;
  ProxySpec spec;
  std::vector<double> a;                 // D×D, row-major
  std::vector<double> z_eval_truth;      // (M+1)×D
  std::vector<double> z_rollout;         // (M+1)×D
  RolloutResult rollout;
  std::vector<double> train_energy, train_enstrophy, eval_energy, eval_enstrophy;  // per frame
  double train_one_step_rel_l2 = 0;      // mean over train pairs of ‖z_t A − z_{t+1}‖/‖z_{t+1}‖
  double eval_one_step_rel_l2 = 0;       // same on the eval pairs (A never saw them)
  std::vector<double> eval_rel_l2;       // per rollout step, z space
  std::vector<double> eval_correlation;  // per rollout step, z space
  std::vector<double> persistence_rel_l2;  // per step: ‖z_0 − z_t‖/‖z_t‖, the A = I baseline
  std::vector<SnapshotResult> snapshots;
  PipelineTimings timings;
};

// Where the rollout and the decode run. Empty functions mean the fp64 reference; the tools layer
// plugs in the Vulkan twins (core_ref itself never depends on an accelerator).
struct PipelineBackends {
  std::function<StatusOr<RolloutResult>(std::span<const double> z0, std::span<const double> a,
                                        const RolloutParams& params,
                                        const RolloutObserver& observer)>
      rollout;
  // Decodes z at time key t with the spec and params RunPipeline passes.
  std::function<StatusOr<DecodedFrame>(const ProxySpec& spec, const DecodeParams& params,
                                       std::span<const double> z, uint64_t t)>
      decode;
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
