#include "tools/run_command.h"

#include <chrono>
#include <cstdio>
#include <memory>

#include "backend/backend.h"
#include "backend/provenance.h"
#include "core_ref/npy/npy.h"
#include "core_ref/pipeline/pipeline.h"
#include "tools/chain_json.h"
#include "tools/cli_numbers.h"
#include "tools/cli_util.h"
#include "tools/decode_options.h"
#include "tools/evaluation_options.h"
#include "tools/learner_options.h"
#include "tools/les_options.h"
#include "tools/output_guard.h"
#include "tools/png_image.h"
#include "tools/proxy_json.h"
#include "tools/run_evaluation_output.h"
#include "tools/scales_json.h"
#include "tools/vulkan_flags.h"

namespace dashi::tools {
namespace {

struct RunOptions {
  LesCliOptions les;
  DecodeCliOptions decode;
  EvaluationCliOptions eval;
  int64_t train_steps = 400, eval_steps = 200, sample_every = 2, hash_every = 10;
  LearnerCliOptions learner;
  int snapshots = 4;
  std::string observer = "visualize";
  backend::BackendOptions backend;
  std::string out = "out/run";
  bool quiet = false;
  std::string max_memory;  // --max-memory, parsed by ParseByteSize
};

StatusOr<PipelineParams> ToParams(const RunOptions& o) {
  PipelineParams p;
  DASHI_ASSIGN_OR_RETURN(p.les, o.les.ToParams());
  DASHI_ASSIGN_OR_RETURN(p.decode, o.decode.ToParams());
  DASHI_ASSIGN_OR_RETURN(p.learner.ridge_prior, ParseRidgePrior(o.learner.prior));
  p.learner.ridge_lambda = o.learner.lambda;
  DASHI_RETURN_IF_ERROR(ApplyEvaluationOptions(o.eval, p));
  p.train_steps = o.train_steps;
  p.eval_steps = o.eval_steps;
  p.sample_every = o.sample_every;
  p.hash_every = o.hash_every;
  p.k_lo = o.learner.k_lo;
  p.k_mid = o.learner.k_mid;
  p.anchors = o.learner.anchors;
  p.snapshots = o.observer == "none" ? 0 : o.snapshots;  // "none": no decode at all
  // "metrics": only numbers come back from the backend (the Vulkan one scores the snapshots on
  // the device); "snapshots" and "visualize" write the fields.
  p.keep_snapshot_fields = o.observer != "metrics";
  DASHI_RETURN_IF_ERROR(ValidatePipelineParams(p));
  return p;
}

// Writes every output into `out` (the output set's staging directory).
Status WriteOutputs(const RunOptions& o, const PipelineResult& r, const backend::Backend& b,
                    double wall_ms,
                    const std::string& out) {
  const int64_t dim = r.spec.dim(), n = r.params.les.n;
  DASHI_ASSIGN_OR_RETURN(NpyArray a, NpyArray::FromF64({dim, dim}, r.a));
  DASHI_RETURN_IF_ERROR(WriteNpy(out + "/A.npy", a));
  // The first eval trajectory's states at the top level, for the single-trajectory tools
  // (`dashi rollout|audit --z0`); every trajectory's under eval/seed_<s>/.
  const EvalTrajectory& first = r.eval.front();
  const int64_t frames = r.params.eval_steps + 1;
  DASHI_ASSIGN_OR_RETURN(NpyArray zr, NpyArray::FromF64({frames, dim}, first.z_rollout));
  DASHI_RETURN_IF_ERROR(WriteNpy(out + "/z_rollout.npy", zr));
  DASHI_ASSIGN_OR_RETURN(NpyArray zt, NpyArray::FromF64({frames, dim}, first.z_truth));
  DASHI_RETURN_IF_ERROR(WriteNpy(out + "/z_eval_truth.npy", zt));
  DASHI_ASSIGN_OR_RETURN(
      NpyArray z0, NpyArray::FromF64({dim}, std::span<const double>(first.z_truth).first(dim)));
  DASHI_RETURN_IF_ERROR(WriteNpy(out + "/z0.npy", z0));
  DASHI_RETURN_IF_ERROR(WriteJson(out + "/proxy.json", ProxySpecJson(r.spec)));

  const nlohmann::json ref_prov = backend::ReferenceProvenance(o.backend.name);
  // Simulation, encoding and learning always run on the reference; rollout and decode on the
  // requested backend.
  const nlohmann::json prov = b.Provenance();
  DASHI_RETURN_IF_ERROR(WriteJson(
      out + "/chain.json",
      ChainFileJson({prov, dim, r.params.eval_steps, r.params.hash_every, first.chain})));
  DASHI_RETURN_IF_ERROR(WriteEvalTrajectories(out, r, prov));
  DASHI_RETURN_IF_ERROR(WriteCanonicalPlot(out, r));

  nlohmann::json snaps = nlohmann::json::array();
  const bool decode = o.observer != "none";
  if (decode) {
    const std::vector<std::vector<ScaleLayer>>& towers = b.DecodedScaleTowers();
    for (size_t si = 0; si < r.snapshots.size(); ++si) {
      const SnapshotResult& s = r.snapshots[si];
      nlohmann::json j = DecodedFrameJson(s.decoded);
      j["step"] = s.step;
      j["rel_l2_vs_les"] = s.rel_l2;
      j["correlation_vs_les"] = s.correlation;
      j["energy_les"] = s.energy_les;
      j["energy_decoded"] = s.energy_decoded;
      j["enstrophy_les"] = s.enstrophy_les;
      j["enstrophy_decoded"] = s.enstrophy_decoded;
      // The scale tower (docs/MATH.md §12) of the decoded field and of the LES truth. On a device
      // the decoded field's per-layer statistics come from the device tower (run on the
      // decoder's buffer, only the layer records read back); the surrogate noise levels and the
      // filament trace, and the LES truth's tower, are core_ref's on the host.
      // scales_device_vs_ref: the device's layer statistics against core_ref's tower of the same
      // read-back field (null on the reference).
      j["scales_device_vs_ref"] = nullptr;
      if (si < towers.size() && s.decoded.omega.empty()) {
        // observer "metrics" on the device: the decoded field never left it, so its record holds
        // the device's per-layer statistics alone (the noise levels, fining depth and filament
        // trace need the field: --observer snapshots).
        j["scales_decoded"] = LayerStatisticsJson(towers[si]);
        j["scales_decoded"]["fining_depth"] = nullptr;
        j["scales_decoded"]["filaments"] = nullptr;
        j["scales_computed_by"] =
            "decoded: per-layer statistics on the device (VulkanScaleTower, metrics-only "
            "readback; no noise levels, fining depth or trace in metrics mode); les: ref (host)";
      } else if (si < towers.size()) {
        LayerComparison c;
        DASHI_ASSIGN_OR_RETURN(j["scales_decoded"],
                               FieldScalesJson(s.decoded.omega, n, towers[si], &c));
        j["scales_device_vs_ref"] = {{"integer_mismatches", c.integer_mismatches},
                                     {"max_float_error", c.max_float_error}};
        j["scales_computed_by"] =
            "decoded: per-layer statistics on the device (VulkanScaleTower, metrics-only "
            "readback); noise levels and filament trace by ref (host, from the decoded field); "
            "les: ref (host)";
      } else {
        DASHI_ASSIGN_OR_RETURN(j["scales_decoded"], FieldScalesJson(s.decoded.omega, n));
        j["scales_computed_by"] = "ref (host, from the decoded and LES fields)";
      }
      DASHI_ASSIGN_OR_RETURN(j["scales_les"], FieldScalesJson(s.les_omega, n));
      snaps.push_back(j);
      if (o.observer == "snapshots" || o.observer == "visualize") {
        char name[32];
        std::snprintf(name, sizeof(name), "/step_%05lld", static_cast<long long>(s.step));
        const std::string dir = out + "/snapshots" + name;
        DASHI_RETURN_IF_ERROR(EnsureDir(dir));
        const bool png = o.observer == "visualize";
        const int scale = DefaultPngScale(n);
        DASHI_RETURN_IF_ERROR(WriteDecodedFrame(dir + "/", s.decoded, n, png, scale));
        DASHI_ASSIGN_OR_RETURN(NpyArray les, NpyArray::FromF64({n, n}, s.les_omega));
        DASHI_RETURN_IF_ERROR(WriteNpy(dir + "/les_omega.npy", les));
        if (png) DASHI_RETURN_IF_ERROR(WriteFieldPng(dir + "/les_omega.png", s.les_omega, n, n, scale));
      }
    }
  }
  const PipelineTimings& t = r.timings;
  nlohmann::json final_links = nlohmann::json::object();
  for (const EvalTrajectory& e : r.eval) final_links[std::to_string(e.seed)] = FinalLinkHex(e.chain);
  const auto last = [](const std::vector<double>& v) { return v.empty() ? 0.0 : v.back(); };
  nlohmann::json stage_prov = {{"simulate", ref_prov}, {"encode", ref_prov},
                               {"learn", ref_prov}, {"rollout", prov}};
  if (decode) stage_prov["decode"] = prov;
  nlohmann::json metrics = {
      {"provenance", prov},
      {"stages", stage_prov},
      // Every downgrade of this run (--backend-policy permissive); empty when none.
      {"perf_flags", prov.value("perf_flags", nlohmann::json::array())},
      {"observer", o.observer},
      {"params",
       {{"les", LesParamsJson(r.params.les)},
        {"train_seeds", r.params.train_seeds},
        {"val_seeds", r.params.val_seeds},
        {"eval_seeds", r.params.eval_seeds},
        {"train_start", r.params.train_start},
        {"train_steps", r.params.train_steps},
        {"eval_start", r.params.eval_start},
        {"eval_steps", r.params.eval_steps},
        {"eval_les", LesParamsJson(EvalLesParams(r.params))},
        {"sample_every", r.params.sample_every},
        {"k_lo", r.params.k_lo},
        {"k_mid", r.params.k_mid},
        {"anchors", r.params.anchors},
        {"dim", dim},
        {"learner", o.eval.learner},
        {"loss", o.eval.loss},
        {"k_step", o.eval.k_step},
        {"energy_constraint", o.eval.energy_constraint},
        {"ridge_lambda", o.eval.lambda_given ? nlohmann::json(r.params.learner.ridge_lambda)
                                             : nlohmann::json("chosen on validation (ridge)")},
        {"ridge_prior", RidgePriorName(r.params.learner.ridge_prior)},
        {"no_train", !r.trained},
        {"hash_every", r.params.hash_every},
        {"decode", DecodeParamsJson(r.params.decode)}}},
      {"learner", LearnerJson(r)},
      {"train",
       {{"one_step_rel_l2", r.train_one_step_rel_l2},
        {"energy_window_start", r.train_energy_first},
        {"energy_window_end", r.train_energy_last}}},
      // The first eval trajectory, as before the multi-seed evaluation; "evaluation" has them all.
      {"eval",
       {{"seed", first.seed},
        {"one_step_rel_l2", first.one_step_rel_l2},
        {"rollout_rel_l2_per_step", r.evaluation.trajectories.front().rel_l2_rollout},
        {"rollout_correlation_per_step", r.evaluation.trajectories.front().correlation_rollout},
        {"persistence_rel_l2_per_step", r.evaluation.trajectories.front().rel_l2_persistence},
        {"rollout_rel_l2_final", last(r.evaluation.trajectories.front().rel_l2_rollout)},
        {"persistence_rel_l2_final", last(r.evaluation.trajectories.front().rel_l2_persistence)},
        {"les_energy_drift", last(first.les_energy) / first.les_energy.front() - 1.0},
        {"les_enstrophy_drift", last(first.les_enstrophy) / first.les_enstrophy.front() - 1.0}}},
      {"evaluation", EvaluationJson(r)},
      {"snapshots", snaps},
      {"hash_chain_final_link", FinalLinkHex(first.chain)},
      {"hash_chain_final_links", final_links},
      // What the device did (hot-loop flag, rollout submissions and readback, decode stage
      // device times beside host times); {"gpu_hotloop_active": false} on the reference.
      {"device", b.PipelineDeviceJson()},
      {"gpu_hotloop_active", b.PipelineDeviceJson()["gpu_hotloop_active"]},
      {"timings",
       {{"wall_ms", wall_ms},
        {"anchors_ms", t.anchors_ms},
        {"simulate_and_encode_ms", t.simulate_ms},
        {"fit_ms", t.fit_ms},
        {"setup_ms", t.setup_ms},
        {"rollout_ms", t.rollout_ms},
        {"rollout_ns_per_step", t.rollout_ns_per_step},
        {"rollout_steps_per_s", t.rollout_steps_per_s},
        {"decode_ms_per_snapshot", decode ? t.decode_ms_per_snapshot : 0.0},
        // The device scale tower of each decoded snapshot (Vulkan backend), timed apart from the
        // decode; on the reference the towers are computed while writing the outputs.
        {"scales_ms_per_snapshot", decode ? t.after_decode_ms_per_snapshot : 0.0},
        // Per snapshot, means: on the reference host times, on a device its timestamps (the
        // host time of each snapshot is decode_ms_per_snapshot; device.decode has the rest).
        {"decode_stage_ms",
         {{"scatter_lowk_ms", t.decode_stage_ms.scatter_lowk_ms},
          {"ifft_lp_ms", t.decode_stage_ms.ifft_lp_ms},
          {"mask_ms", t.decode_stage_ms.mask_ms},
          {"synth_ms", t.decode_stage_ms.synth_ms},
          {"ifft_resid_ms", t.decode_stage_ms.ifft_resid_ms},
          {"combine_ms", t.decode_stage_ms.combine_ms}}}}},
  };
  if (!snaps.empty()) {
    const SnapshotResult& s = r.snapshots.back();
    metrics["eval"]["decoded_energy_drift_vs_les"] = s.energy_decoded / s.energy_les - 1.0;
    metrics["eval"]["decoded_enstrophy_drift_vs_les"] =
        s.enstrophy_decoded / s.enstrophy_les - 1.0;
  }
  return WriteJson(out + "/metrics.json", metrics);
}

// The learner, the per-horizon table over the eval seeds and the verdict, on stdout.
void PrintEvaluationSummary(const PipelineResult& r) {
  const Evaluation& e = r.evaluation;
  std::printf("dashi run: D = %lld; %s%s; one-step rel L2 on the train windows %.3e\n",
              static_cast<long long>(r.spec.dim()),
              r.trained ? LearnerConfigText(r.learner.chosen).c_str() : "given A (--no-train)",
              r.learner.candidates.empty() ? "" : " (chosen on the validation seeds)",
              r.train_one_step_rel_l2);
  std::printf("  eval seeds");
  for (uint64_t s : r.params.eval_seeds) std::printf(" %llu", static_cast<unsigned long long>(s));
  std::printf(", %lld steps from frame %lld; mean [min, max] over the seeds:\n",
              static_cast<long long>(e.steps), static_cast<long long>(r.params.eval_start));
  std::printf("  %5s %9s %9s %9s %9s  %-22s %7s %7s %7s\n", "step", "rel L2", "persist.",
              "damped", "zero", "ratio to persistence", "skill", "E/E_LES", "Z/Z_LES");
  for (int64_t h : e.horizons) {
    std::printf("  %5lld %9.4f %9.4f %9.4f %9.4f  %.4f [%.4f, %.4f] %7.4f %7.4f %7.3f\n",
                static_cast<long long>(h), e.rel_l2_rollout.mean[h], e.rel_l2_persistence.mean[h],
                e.rel_l2_damped.mean[h], e.rel_l2_zero.mean[h], e.ratio.mean[h], e.ratio.min[h],
                e.ratio.max[h], e.skill.mean[h], e.energy_ratio.mean[h],
                e.enstrophy_ratio.mean[h]);
  }
  std::printf("  rho(A) %.6f, |A|_2 %.6f (%s)\n", e.spectral_radius, e.norm2,
              e.norms_exact ? "exact" : "estimated");
  std::printf("  verdict: %s\n", e.verdict.c_str());
}

int Run(const RunOptions& o) {
  const auto run_start = std::chrono::steady_clock::now();
  if (Status st = CheckOutputPlaces({{"--out", o.out}}, {{"--a", o.eval.a_path}}); !st.ok()) {
    return FailCommandLine("run", st);
  }
  StatusOr<PipelineParams> params = ToParams(o);
  if (!params.ok()) return Fail("run", params.status());
  if (Status st = ValidatePipelineParams(*params); !st.ok()) return Fail("run", st);
  StatusOr<int64_t> bytes = EstimatePipelineBytes(*params);
  if (!bytes.ok()) return Fail("run", bytes.status());
  StatusOr<int64_t> max_memory = ParseByteSize(o.max_memory, "--max-memory");
  if (!max_memory.ok()) return Fail("run", max_memory.status());
  if (Status st = CheckMemoryEstimate(*bytes, "the pipeline", *max_memory,
                                      "reduce --n, --k-mid, --threads, --train-steps, "
                                      "--eval-steps, the seeds or --snapshots");
      !st.ok()) {
    return Fail("run", st);
  }
  if (o.backend.name == "ref" && o.backend.vulkan.decode_precision != "fp64") {
    return Fail("run", InvalidArgumentError("--decode-precision fp32 needs --backend vulkan"));
  }
  StatusOr<backend::Backend> b = backend::Backend::Open(o.backend, "dashi run");
  if (!b.ok()) return Fail("run", b.status());
  AnnounceDowngrade(*b, "run");
  if (b->on_device() && !o.quiet) {
    std::fprintf(stderr, "dashi run: rollout and decode on %s (%s)\n",
                 b->session()->ctx->info().name.c_str(),
                 conformance::CertStateName(b->session()->cert));
  }
  StatusOr<OutputSet> out_set = BeginOutputDirectory(o.out, "run");
  if (!out_set.ok()) return Fail("run", out_set.status());
  if (!o.quiet) {
    std::fprintf(stderr,
                 "dashi run: backend %s, N=%lld, train %lld + eval %lld proxy steps "
                 "(x%lld LES steps), out %s\n",
                 o.backend.name.c_str(), static_cast<long long>(params->les.n),
                 static_cast<long long>(params->train_steps),
                 static_cast<long long>(params->eval_steps),
                 static_cast<long long>(params->sample_every), o.out.c_str());
  }
  ProgressLine progress(!o.quiet);
  StatusOr<PipelineResult> r = RunPipeline(
      *params, [&](const PipelineProgress& p) { progress.Update(p.stage, p.done, p.total); },
      b->PipelineHooks());
  if (!r.ok()) return Fail("run", r.status());
  Status st = b->CheckValidation();
  if (!st.ok()) return Fail("run", st);
  const double wall_ms = std::chrono::duration<double, std::milli>(
                             std::chrono::steady_clock::now() - run_start).count();
  st = WriteOutputs(o, *r, *b, wall_ms, out_set->staging());
  if (st.ok()) st = out_set->Commit();
  if (!st.ok()) return Fail("run", st);

  PrintEvaluationSummary(*r);
  if (o.observer != "none") {
    for (const SnapshotResult& s : r->snapshots) {
      std::printf("  snapshot step %4lld: corr vs LES %.3f, rel L2 %.3f, closure depth %d\n",
                  static_cast<long long>(s.step), s.correlation, s.rel_l2,
                  s.decoded.closure.depth);
    }
  }
  std::printf("  rollout %.0f trajectory steps/s (%.0f ns/step", r->timings.rollout_steps_per_s,
              r->timings.rollout_ns_per_step);
  if (b->on_device()) std::printf("; device set-up %.1f ms apart", r->timings.setup_ms);
  std::printf("); hash chain final links:");
  for (const EvalTrajectory& e : r->eval) {
    std::printf(" %llu %s", static_cast<unsigned long long>(e.seed), FinalLinkHex(e.chain).c_str());
  }
  std::printf("\n  wrote %s/{metrics.json, canonical.png, canonical.json, chain.json, A.npy, z0.npy, "
              "proxy.json, z_rollout.npy, z_eval_truth.npy, eval/seed_*/%s}\n",
              o.out.c_str(), o.observer == "snapshots" || o.observer == "visualize"
                                 ? ", snapshots/"
                                 : "");
  return 0;
}

}  // namespace

CLI::App* AddRunCommand(CLI::App& app, std::function<int()>& run) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* cmd = app.add_subcommand(
      "run",
      "The main job, end to end: simulate the LES on the train, validation and eval seeds, "
      "encode the frames into proxy states, fit the learner's A on the train windows (its K or "
      "lambda chosen on the validation seeds), roll z <- z*A out autonomously from every eval "
      "window's first state as one batch with a BLAKE2b hash chain each, score it against the "
      "LES and the baselines (persistence, damped persistence, zero) with a verdict, decode "
      "snapshots of the first eval trajectory, and compare with the LES. Writes metrics.json, "
      "canonical.png (+ canonical.json), chain.json, A.npy, z0.npy, proxy.json, z_rollout.npy, "
      "z_eval_truth.npy (the first eval trajectory), eval/seed_<s>/ (every eval trajectory) "
      "and snapshots/ (npy + PNG) to --out.");
  AddLesOptions(*cmd, o->les, /*with_seed=*/false);
  AddEvaluationOptions(*cmd, o->eval);
  cmd->add_option("--train-steps", o->train_steps, "Proxy steps of each training window")
      ->capture_default_str();
  cmd->add_option("--eval-steps", o->eval_steps, "Proxy steps of autonomous rollout (M)")
      ->capture_default_str();
  cmd->add_option("--sample-every", o->sample_every, "LES steps per proxy step")
      ->capture_default_str();
  AddLearnerOptions(*cmd, o->learner);
  cmd->add_option("--hash-every", o->hash_every, "Hash-chain checkpoint spacing")
      ->capture_default_str();
  cmd->add_option("--snapshots", o->snapshots, "Decoded snapshots, evenly spaced over the eval")
      ->check(IntAtLeast(0))
      ->capture_default_str();
  cmd->add_option("--observer", o->observer,
                  "none (no decode), metrics (decode, numbers only: on --backend vulkan the "
                  "snapshots are scored against the LES on the device and no field is read "
                  "back), snapshots (+ .npy fields), visualize (+ PNG pictures)")
      ->check(CLI::IsMember({"none", "metrics", "snapshots", "visualize"}))
      ->capture_default_str();
  AddDecodeOptions(*cmd, o->decode);
  VulkanFlagSet flags = kBackendWorkFlags;
  flags.decode_precision = true;
  AddVulkanFlags(*cmd, o->backend, flags);
  cmd->add_option("--out", o->out, "Output directory")->type_name("PATH")->capture_default_str();
  cmd->add_flag("--quiet", o->quiet, "No progress output");
  AddMaxMemoryOption(*cmd, o->max_memory);
  cmd->callback([o, cmd, &run] {
    o->eval.lambda_given = cmd->count("--lambda") > 0;
    run = [o] { return Run(*o); };
  });
  return cmd;
}

}  // namespace dashi::tools
