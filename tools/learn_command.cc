#include "tools/learn_command.h"

#include <cstdio>
#include <memory>

#include "backend/provenance.h"
#include "core_ref/learner/transition_fit.h"
#include "core_ref/npy/npy.h"
#include "core_ref/pipeline/pipeline.h"
#include "tools/cli_util.h"
#include "tools/learner_options.h"
#include "tools/output_guard.h"
#include "tools/proxy_json.h"

namespace dashi::tools {
namespace {

struct LearnOptions {
  std::string traj;
  std::string eval_traj;
  LearnerCliOptions learner;
  std::string out_dir = "model";
};

StatusOr<std::vector<std::vector<double>>> LoadFrames(const std::string& path, int64_t* n) {
  DASHI_ASSIGN_OR_RETURN(NpyArray a, ReadF64Array(path, 3));
  if (a.shape[1] != a.shape[2]) {
    return InvalidArgumentError(path + ": frames of shape " + NpyShapeString(a.shape) +
                                " are not square");
  }
  if (a.shape[0] < 2) return InvalidArgumentError(path + ": needs at least 2 frames");
  if (*n != 0 && a.shape[1] != *n) {
    return InvalidArgumentError(path + ": N = " + std::to_string(a.shape[1]) +
                                " differs from the training trajectory's N = " + std::to_string(*n));
  }
  *n = a.shape[1];
  DASHI_ASSIGN_OR_RETURN(std::vector<double> v, a.As<double>());
  const size_t frame = static_cast<size_t>(*n * *n);
  std::vector<std::vector<double>> frames;
  for (int64_t f = 0; f < a.shape[0]; ++f) {
    frames.emplace_back(v.begin() + f * frame, v.begin() + (f + 1) * frame);
  }
  return frames;
}

int Run(const LearnOptions& o) {
  if (Status st = CheckOutputPlaces({{"--out-dir", o.out_dir}},
                                    {{"--traj", o.traj}, {"--eval-traj", o.eval_traj}});
      !st.ok()) {
    return FailCommandLine("learn", st);
  }
  StatusOr<RidgePrior> prior = ParseRidgePrior(o.learner.prior);
  if (!prior.ok()) return Fail("learn", prior.status());
  int64_t n = 0;
  StatusOr<std::vector<std::vector<double>>> train = LoadFrames(o.traj, &n);
  if (!train.ok()) return Fail("learn", train.status());
  StatusOr<ProxySpec> spec =
      MakeProxySpec(n, o.learner.k_lo, o.learner.k_mid, o.learner.anchors, train->front());
  if (!spec.ok()) return Fail("learn", spec.status());
  const int64_t dim = spec->dim();
  StatusOr<std::vector<double>> z = EncodeFrames(*spec, *train);
  if (!z.ok()) return Fail("learn", z.status());
  const int64_t count = static_cast<int64_t>(train->size());
  StatusOr<std::vector<double>> a = FitTransition(*z, count, dim, o.learner.lambda, *prior);
  if (!a.ok()) return Fail("learn", a.status());
  StatusOr<double> train_err = OneStepError(*z, count, dim, *a);
  if (!train_err.ok()) return Fail("learn", train_err.status());

  nlohmann::json report = {{"provenance", backend::ReferenceProvenance("ref")},
                           {"train_trajectory", o.traj},
                           {"train_frames", count},
                           {"dim", dim},
                           {"ridge_lambda", o.learner.lambda},
                           {"ridge_prior", o.learner.prior},
                           {"train_one_step_rel_l2", *train_err}};
  std::vector<double> z0(z->begin(), z->begin() + dim);
  StatusOr<OutputSet> out_set = BeginOutputDirectory(o.out_dir, "learn");
  if (!out_set.ok()) return Fail("learn", out_set.status());
  Status st;
  if (!o.eval_traj.empty()) {
    StatusOr<std::vector<std::vector<double>>> eval = LoadFrames(o.eval_traj, &n);
    if (!eval.ok()) return Fail("learn", eval.status());
    StatusOr<std::vector<double>> ze = EncodeFrames(*spec, *eval);
    if (!ze.ok()) return Fail("learn", ze.status());
    StatusOr<double> eval_err = OneStepError(*ze, static_cast<int64_t>(eval->size()), dim, *a);
    if (!eval_err.ok()) return Fail("learn", eval_err.status());
    report["eval_trajectory"] = o.eval_traj;
    report["eval_frames"] = eval->size();
    report["eval_one_step_rel_l2"] = *eval_err;
    z0.assign(ze->begin(), ze->begin() + dim);
    StatusOr<NpyArray> ze_arr =
        NpyArray::FromF64({static_cast<int64_t>(eval->size()), dim}, *ze);
    st = ze_arr.ok() ? WriteNpy(out_set->Path("z_eval.npy"), *ze_arr) : ze_arr.status();
    if (!st.ok()) return Fail("learn", st);
  }

  StatusOr<NpyArray> a_arr = NpyArray::FromF64({dim, dim}, *a);
  StatusOr<NpyArray> z_arr = NpyArray::FromF64({count, dim}, *z);
  StatusOr<NpyArray> z0_arr = NpyArray::FromF64({dim}, z0);
  if (!a_arr.ok() || !z_arr.ok() || !z0_arr.ok()) {
    return Fail("learn", InternalError("cannot build output arrays"));
  }
  for (const auto& [name, arr] : {std::pair{"A.npy", &*a_arr}, std::pair{"z_train.npy", &*z_arr},
                                  std::pair{"z0.npy", &*z0_arr}}) {
    st = WriteNpy(out_set->Path(name), *arr);
    if (!st.ok()) return Fail("learn", st);
  }
  st = WriteJson(out_set->Path("proxy.json"), ProxySpecJson(*spec));
  if (st.ok()) st = WriteJson(out_set->Path("learn.json"), report);
  if (st.ok()) st = out_set->Commit();
  if (!st.ok()) return Fail("learn", st);
  std::printf("learned A (%lld x %lld) from %lld frames; one-step rel L2 on train %.3e%s\n"
              "wrote %s/{A.npy, z_train.npy, z0.npy, proxy.json, learn.json}\n",
              static_cast<long long>(dim), static_cast<long long>(dim),
              static_cast<long long>(count), *train_err,
              report.contains("eval_one_step_rel_l2")
                  ? (", on eval " + std::to_string(report["eval_one_step_rel_l2"].get<double>()))
                        .c_str()
                  : "",
              o.out_dir.c_str());
  return 0;
}

}  // namespace

CLI::App* AddLearnCommand(CLI::App& app, std::function<int()>& run) {
  auto o = std::make_shared<LearnOptions>();
  CLI::App* cmd = app.add_subcommand(
      "learn",
      "Encode a vorticity trajectory (from `dashi simulate`) into proxy states z and fit the "
      "transition A by ridge regression (Cholesky, fp64). Writes to --out-dir: A.npy [D, D], "
      "z_train.npy [frames, D], z0.npy [D] (the first eval state, or the first train state), "
      "proxy.json (the encoding, needed by decode) and learn.json (one-step errors).");
  cmd->add_option("--traj", o->traj, "Training trajectory .npy [frames, N, N]")
      ->type_name("PATH")
      ->required();
  cmd->add_option("--eval-traj", o->eval_traj,
                  "Held-out trajectory .npy (another seed) to report the eval error on")
      ->type_name("PATH");
  AddLearnerOptions(*cmd, o->learner);
  cmd->add_option("--out-dir", o->out_dir, "Output directory")
      ->type_name("PATH")
      ->capture_default_str();
  cmd->callback([o, &run] { run = [o] { return Run(*o); }; });
  return cmd;
}

}  // namespace dashi::tools
