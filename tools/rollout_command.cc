#include "tools/rollout_command.h"

#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>
#include <system_error>

#include "backend/backend.h"
#include "core_ref/npy/npy.h"
#include "core_ref/pipeline/pipeline.h"
#include "core_ref/rollout/rollout.h"
#include "core_ref/rollout/rollout_batch.h"
#include "tools/chain_json.h"
#include "tools/cli_numbers.h"
#include "tools/cli_util.h"
#include "tools/human_bytes.h"
#include "tools/output_guard.h"
#include "tools/rollout_inputs.h"
#include "tools/vulkan_flags.h"

namespace dashi::tools {
namespace {

struct RolloutOptions {
  RolloutInputFlags input;
  std::string out = "zT.npy";
  int64_t save_every = 0;
  std::string expect_chain;  // a recorded chain file the replay must reproduce
  backend::BackendOptions backend;
};

// zT.npy [, zT.trajectory.npy], zT.chain.json: one set, the chain (the completion record) last.
StatusOr<OutputSet> BeginRolloutOutputs(const RolloutOptions& o) {
  std::vector<std::string> set_paths = {o.out};
  if (o.save_every > 0) set_paths.push_back(ReplaceNpySuffix(o.out, ".trajectory.npy"));
  set_paths.push_back(ReplaceNpySuffix(o.out, ".chain.json"));
  return BeginOutputFiles(set_paths, "rollout");
}

// z0 [B, D]: the B trajectories as ONE batched rollout (on Vulkan the batched kernel, its tile
// chosen for B; on the reference core_ref's RolloutBatch), each row bit-exact to its own single
// rollout. Writes zT.npy [B, D], zT.trajectory.npy [T, B, D] with --save-every, and
// zT.chain.json with one chain per row.
int RunBatched(const RolloutOptions& o, const RolloutInputs& in, backend::Backend& b) {
  const int64_t dim = in.dim, batch = in.batch;
  RolloutParams params;
  params.steps = o.input.steps;
  params.hash_every = o.input.hash_every;
  params.observe_every = o.save_every;
  // Every row's observed states, in step order; interleaved to [T, B, D] at the end.
  std::vector<std::vector<double>> saved(static_cast<size_t>(batch));
  BatchRolloutObserver observer;
  if (o.save_every > 0) {
    observer = [&](int64_t row, int64_t, std::span<const double> z) {
      std::vector<double>& v = saved[static_cast<size_t>(row)];
      v.insert(v.end(), z.begin(), z.end());
      return OkStatus();
    };
  }
  const std::string chain_path = ReplaceNpySuffix(o.out, ".chain.json");
  const std::string traj_path = ReplaceNpySuffix(o.out, ".trajectory.npy");
  StatusOr<OutputSet> out_set = BeginRolloutOutputs(o);
  if (!out_set.ok()) return Fail("rollout", out_set.status());
  const PipelineBackends hooks = b.PipelineHooks();
  const auto t0 = std::chrono::steady_clock::now();
  StatusOr<std::vector<RolloutResult>> r =
      hooks.rollout_batch ? hooks.rollout_batch(in.z0, batch, in.a, params, observer)
                          : RolloutBatch(in.z0, batch, in.a, params, observer);
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (r.ok()) {
    Status v = b.CheckValidation();
    if (!v.ok()) r = v;
  }
  if (!r.ok()) return Fail("rollout", r.status());

  std::vector<double> finals;
  finals.reserve(static_cast<size_t>(batch * dim));
  const nlohmann::json provenance = b.Provenance();
  nlohmann::json rows = nlohmann::json::array();
  nlohmann::json links = nlohmann::json::array();
  for (const RolloutResult& row : *r) {
    finals.insert(finals.end(), row.final_state.begin(), row.final_state.end());
    rows.push_back(
        ChainFileJson({provenance, dim, o.input.steps, o.input.hash_every, row.chain}));
    links.push_back(FinalLinkHex(row.chain));
  }
  StatusOr<NpyArray> out = NpyArray::FromF64({batch, dim}, finals);
  Status st = out.ok() ? WriteNpy(out_set->Path(o.out), *out) : out.status();
  if (!st.ok()) return Fail("rollout", st);
  if (o.save_every > 0) {
    const int64_t frames = static_cast<int64_t>(saved.front().size()) / dim;
    std::vector<double> traj;
    traj.reserve(static_cast<size_t>(frames * batch * dim));
    for (int64_t t = 0; t < frames; ++t) {
      for (const std::vector<double>& row : saved) {
        traj.insert(traj.end(), row.begin() + t * dim, row.begin() + (t + 1) * dim);
      }
    }
    StatusOr<NpyArray> tr = NpyArray::FromF64({frames, batch, dim}, traj);
    st = tr.ok() ? WriteNpy(out_set->Path(traj_path), *tr) : tr.status();
    if (!st.ok()) return Fail("rollout", st);
  }
  const double traj_steps = static_cast<double>(batch) * static_cast<double>(o.input.steps);
  nlohmann::json chain = {
      {"provenance", provenance},
      {"batch", batch},
      {"dim", dim},
      {"steps", o.input.steps},
      {"hash_every", o.input.hash_every},
      {"final_links", links},
      // Row b's chain, exactly as a single `dashi rollout` of that row writes it.
      {"trajectories", rows},
      {"device_timing", b.PipelineDeviceJson()},
      {"z0", o.input.z0},
      {"a", o.input.a},
      {"z0_hash", F64HashHex(in.z0)},
      {"a_hash", F64HashHex(in.a)},
      {"seconds", secs},
      {"trajectory_steps_per_second", secs > 0 ? traj_steps / secs : 0.0}};
  st = WriteJson(out_set->Path(chain_path), chain);
  if (st.ok()) st = out_set->Commit();
  if (!st.ok()) return Fail("rollout", st);
  std::printf("rolled out %lld trajectories x %lld steps of D = %lld as one batch in %.3f s "
              "(%.0f trajectory-steps/s); final links:",
              static_cast<long long>(batch), static_cast<long long>(o.input.steps),
              static_cast<long long>(dim), secs, secs > 0 ? traj_steps / secs : 0.0);
  for (const nlohmann::json& l : links) std::printf(" %s", l.get<std::string>().c_str());
  std::printf("\nwrote %s and %s\n", o.out.c_str(), chain_path.c_str());
  return 0;
}

// The --save-every trajectory is held in memory until the end: refused up front where it would
// take more than half of this machine's memory.
Status CheckTrajectoryFitsMemory(const RolloutOptions& o, int64_t batch, int64_t dim) {
  if (o.save_every <= 0 || o.input.steps <= 0) return OkStatus();
  // States kept: every save_every-th step from 0, and the final one.
  const long double states = static_cast<long double>(o.input.steps / o.save_every) + 2.0L;
  const long double bytes = states * static_cast<long double>(batch) *
                            static_cast<long double>(dim) * sizeof(double);
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page = ::sysconf(_SC_PAGE_SIZE);
  if (pages <= 0 || page <= 0) return OkStatus();
  const long double limit = static_cast<long double>(pages) * page / 2.0L;
  if (bytes <= limit) return OkStatus();
  const auto human = [](long double b) {  // --steps may be near 2^63: beyond int64 bytes
    return b >= 9.0e18L ? std::string("more than 8 EiB")
                        : "about " + HumanBytes(static_cast<int64_t>(b));
  };
  return ResourceExhaustedError(
      "--save-every " + std::to_string(o.save_every) + " with --steps " +
      std::to_string(o.input.steps) + " keeps " + human(bytes) + " of states (" +
      std::to_string(batch) + " x " + std::to_string(dim) + " doubles each) in memory until the "
      "trajectory is written, more than half of this machine's " +
      HumanBytes(static_cast<int64_t>(pages) * page) + ": save less often (a larger "
      "--save-every) or roll out in parts");
}

// Every file this rollout writes, checked against its inputs and any dataset before any work:
// among them --expect-chain (the replay would overwrite the record it is checked against, and a
// second run would "reproduce" whatever the first wrote).
Status CheckRolloutOutputPlaces(const RolloutOptions& o) {
  std::vector<FlaggedPath> outputs = {
      {"--out", o.out}, {"--out's chain file", ReplaceNpySuffix(o.out, ".chain.json")}};
  if (o.save_every > 0) {
    outputs.push_back({"--out's trajectory file", ReplaceNpySuffix(o.out, ".trajectory.npy")});
  }
  return CheckOutputPlaces(
      outputs, {{"--z0", o.input.z0}, {"--a", o.input.a}, {"--expect-chain", o.expect_chain}});
}

int Run(const RolloutOptions& o) {
  if (Status st = CheckRolloutOutputPlaces(o); !st.ok()) return FailCommandLine("rollout", st);
  StatusOr<RolloutInputs> in = ReadRolloutInputs(o.input, /*allow_batch=*/true);
  if (!in.ok()) return Fail("rollout", in.status());
  const int64_t dim = in->dim;
  if (o.save_every < 0) return Fail("rollout", InvalidArgumentError("--save-every is negative"));
  if (Status st = CheckTrajectoryFitsMemory(o, in->batch, dim); !st.ok()) {
    return Fail("rollout", st);
  }
  std::optional<RecordedChain> recorded;
  if (!o.expect_chain.empty()) {  // read and checked before any work
    StatusOr<RecordedChain> c = ReadChainFile(o.expect_chain);
    if (!c.ok()) return Fail("rollout", c.status());
    recorded = std::move(*c);
  }
  RolloutParams params;
  params.steps = o.input.steps;
  params.hash_every = o.input.hash_every;
  params.observe_every = o.save_every;
  std::vector<double> saved;
  RolloutObserver observer;
  if (o.save_every > 0) {
    observer = [&](int64_t, std::span<const double> z) {
      saved.insert(saved.end(), z.begin(), z.end());
      return OkStatus();
    };
  }
  if (in->batched && recorded.has_value()) {
    return Fail("rollout", InvalidArgumentError(
                               "--expect-chain replays one recorded trajectory: give " + o.input.z0 +
                               " as [D], not [B, D]"));
  }
  if (recorded.has_value()) {
    // A record of other inputs cannot be reproduced: a divergence (exit 3), found before any
    // step, so nothing is rolled out or written.
    const std::string diff =
        CompareRecordedInputs(*recorded, F64HashHex(in->z0), F64HashHex(in->a));
    if (!diff.empty()) {
      std::printf("replay DIVERGES from %s: %s (--z0 %s, --a %s): the record was made from other "
                  "inputs; nothing rolled out or written\n",
                  o.expect_chain.c_str(), diff.c_str(), o.input.z0.c_str(), o.input.a.c_str());
      return 3;
    }
  }
  StatusOr<backend::Backend> b = backend::Backend::Open(o.backend, "dashi rollout");
  if (!b.ok()) return Fail("rollout", b.status());
  AnnounceDowngrade(*b, "rollout");
  if (in->batched) return RunBatched(o, *in, *b);
  const std::string chain_path = ReplaceNpySuffix(o.out, ".chain.json");
  const std::string traj_path = ReplaceNpySuffix(o.out, ".trajectory.npy");
  StatusOr<OutputSet> out_set = BeginRolloutOutputs(o);
  if (!out_set.ok()) return Fail("rollout", out_set.status());
  StatusOr<backend::PreparedRollout> prepared = b->PrepareRollout(dim, in->a);
  if (!prepared.ok()) return Fail("rollout", prepared.status());
  const auto t0 = std::chrono::steady_clock::now();
  StatusOr<RolloutResult> r = prepared->Run(in->z0, params, observer);
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (r.ok()) {
    Status v = b->CheckValidation();
    if (!v.ok()) r = v;
  }
  if (!r.ok()) return Fail("rollout", r.status());

  StatusOr<NpyArray> out = NpyArray::FromF64({dim}, r->final_state);
  if (!out.ok()) return Fail("rollout", out.status());
  Status st = WriteNpy(out_set->Path(o.out), *out);
  if (!st.ok()) return Fail("rollout", st);
  if (o.save_every > 0) {
    StatusOr<NpyArray> traj =
        NpyArray::FromF64({static_cast<int64_t>(saved.size()) / dim, dim}, saved);
    st = traj.ok() ? WriteNpy(out_set->Path(traj_path), *traj) : traj.status();
    if (!st.ok()) return Fail("rollout", st);
  }
  nlohmann::json chain =
      ChainFileJson({b->Provenance(), dim, o.input.steps, o.input.hash_every, r->chain});
  chain["device_timing"] = prepared->DeviceTimingJson();
  chain["z0"] = o.input.z0;
  chain["a"] = o.input.a;
  chain["z0_hash"] = F64HashHex(in->z0);
  chain["a_hash"] = F64HashHex(in->a);
  chain["seconds"] = secs;
  chain["steps_per_second"] = o.input.steps > 0 ? static_cast<double>(o.input.steps) / secs : 0.0;
  st = WriteJson(out_set->Path(chain_path), chain);
  if (st.ok()) st = out_set->Commit();
  if (!st.ok()) return Fail("rollout", st);
  std::printf("rolled out %lld steps of D = %lld in %.3f s (%.0f steps/s); final link %s\n"
              "wrote %s and %s\n",
              static_cast<long long>(o.input.steps), static_cast<long long>(dim), secs,
              o.input.steps > 0 ? o.input.steps / secs : 0.0, FinalLinkHex(r->chain).c_str(),
              o.out.c_str(), chain_path.c_str());
  if (recorded.has_value()) {
    const std::string diff =
        CompareWithRecordedChain(*recorded, dim, o.input.steps, o.input.hash_every, r->chain);
    if (!diff.empty()) {
      std::printf("replay DIVERGES from %s: %s\n", o.expect_chain.c_str(), diff.c_str());
      return 3;
    }
    std::printf("replay REPRODUCES %s: %zu checkpoints, final link equal\n",
                o.expect_chain.c_str(), r->chain.size());
  }
  return 0;
}

}  // namespace

CLI::App* AddRolloutCommand(CLI::App& app, std::function<int()>& run) {
  auto o = std::make_shared<RolloutOptions>();
  CLI::App* cmd = app.add_subcommand(
      "rollout",
      "Autonomous rollout z <- z*A in fp64 with the canonical summation order, hashing z every "
      "--hash-every steps into a BLAKE2b-128 chain. Writes --out zT.npy (the final state) and "
      "zT.chain.json beside it. A [B, D] --z0 runs B trajectories as one batched rollout (the "
      "batched kernel on Vulkan), each row bit-exact to its own single rollout: zT.npy is then "
      "[B, D], zT.trajectory.npy [T, B, D], and zT.chain.json holds every row's chain.");
  AddRolloutInputFlags(*cmd, o->input, /*allow_batch=*/true);
  cmd->add_option("--save-every", o->save_every,
                  "Also write zT.trajectory.npy with every k-th state and the final one (0: off); "
                  "the states are held in memory until the end, refused beyond half of the "
                  "machine's memory")
      ->check(IntegerIn(0, INT64_MAX))
      ->capture_default_str();
  cmd->add_option("--out", o->out,
                  "Output .npy for the final state (NAME.npy; NAME.chain.json and, with "
                  "--save-every, NAME.trajectory.npy go beside it)")
      ->type_name("PATH")
      ->check(NpyOutputPath())
      ->capture_default_str();
  cmd->add_option(
         "--expect-chain", o->expect_chain,
         "A recorded chain file (a run's chain.json or an earlier rollout's .chain.json) "
         "this replay must reproduce: every checkpoint compared, exit code 3 and the first "
         "difference when it does not (the outputs are still written). A record naming "
         "z0_hash / a_hash (a rollout's) must name these --z0 / --a: otherwise exit 3 "
         "before any step, nothing written. One trajectory only (a [D] --z0 and a single "
         "rollout's or a run's chain, not a batched one), and not a file this run writes "
         "(its own zT.chain.json)")
      ->type_name("PATH");
  AddVulkanFlags(*cmd, o->backend, kBackendWorkFlags);
  cmd->callback([o, &run] { run = [o] { return Run(*o); }; });
  return cmd;
}

}  // namespace dashi::tools
