#include "tools/audit_command.h"

#include <cstdio>
#include <memory>

#include "backend/backend.h"
#include "backend/rollout_audit.h"
#include "tools/chain_json.h"
#include "tools/cli_util.h"
#include "tools/output_guard.h"
#include "tools/rollout_inputs.h"
#include "tools/vulkan_flags.h"

namespace dashi::tools {
namespace {

// Recorded in the report, so that a later audit replaces only an earlier audit's report.
constexpr char kAuditReportFormat[] = "dashi-audit/1";

struct AuditOptions {
  RolloutInputFlags input;
  std::string out = "audit.json";
  backend::BackendOptions device{.name = "vulkan"};
};

int Run(AuditOptions o) {
  if (Status st = CheckReportOutput({"--out", o.out}, kAuditReportFormat,
                                    {{"--z0", o.input.z0},
                                     {"--a", o.input.a},
                                     CertStorePlace(o.device.vulkan)});
      !st.ok()) {
    return FailCommandLine("audit", st);
  }
  StatusOr<RolloutInputs> in = ReadRolloutInputs(o.input);
  if (!in.ok()) return Fail("audit", in.status());
  // The report's place is checked (and its staging made) before the replays, not after them.
  StatusOr<OutputSet> out_set = BeginOutputFiles({o.out}, "audit");
  if (!out_set.ok()) return Fail("audit", out_set.status());
  // An audit is how an uncertified device is examined, so it never needs a certification.
  o.device.vulkan.allow_uncertified = true;
  StatusOr<backend::Backend> dev = backend::Backend::Open(o.device, "dashi audit");
  if (!dev.ok()) return Fail("audit", dev.status());
  StatusOr<backend::Backend> ref = backend::Backend::Open({.name = "ref"}, "dashi audit");
  if (!ref.ok()) return Fail("audit", ref.status());
  StatusOr<backend::PreparedRollout> dev_rollout = dev->PrepareRollout(in->dim, in->a);
  if (!dev_rollout.ok()) return Fail("audit", dev_rollout.status());
  StatusOr<backend::PreparedRollout> ref_rollout = ref->PrepareRollout(in->dim, in->a);
  if (!ref_rollout.ok()) return Fail("audit", ref_rollout.status());
  StatusOr<backend::AuditResult> r = backend::AuditPreparedRollouts(
      in->z0, o.input.steps, o.input.hash_every, *ref_rollout, *dev_rollout);
  if (!r.ok()) return Fail("audit", r.status());
  Status v = dev->CheckValidation();
  if (!v.ok()) return Fail("audit", v);
  const std::string device_name = dev->session()->ctx->info().name;
  nlohmann::json j = {{"format", kAuditReportFormat},
                      {"provenance", dev->Provenance()},
                      {"z0", o.input.z0},
                      {"a", o.input.a},
                      // What was audited, as a rollout's chain file names it (BLAKE2b-128 of
                      // the arrays' bytes): the report is tied to its inputs, not to paths.
                      {"z0_hash", F64HashHex(in->z0)},
                      {"a_hash", F64HashHex(in->a)},
                      {"dim", in->dim},
                      {"steps", o.input.steps},
                      {"hash_every", o.input.hash_every},
                      {"checkpoints", r->checkpoints},
                      {"chains_equal", r->chains_equal}};
  if (r->chains_equal) {
    std::printf("audit: %lld checkpoints over %lld steps on %s: hash chains EQUAL\n",
                static_cast<long long>(r->checkpoints), static_cast<long long>(o.input.steps),
                device_name.c_str());
  } else {
    j["first_diverging_checkpoint_step"] = r->first_diverging_checkpoint_step;
    j["last_matching_checkpoint_step"] = r->last_matching_checkpoint_step;
    j["first_diverging_step"] = r->first_diverging_step;
    j["reference_state_hash"] = r->ref_state_hash;
    j["device_state_hash"] = r->dev_state_hash;
    j["first_differing_index"] = r->first_differing_index;
    j["reference_value"] = r->ref_value;
    j["device_value"] = r->dev_value;
    j["replays"] = r->bisection_runs;
    std::printf("audit: hash chains DIVERGE on %s\n  last matching checkpoint: step %lld\n"
                "  first diverging checkpoint: step %lld\n  first diverging step: %lld\n"
                "  state hash there: reference %s, device %s\n"
                "  first differing component z[%lld]: reference %.17g, device %.17g\n",
                device_name.c_str(), static_cast<long long>(r->last_matching_checkpoint_step),
                static_cast<long long>(r->first_diverging_checkpoint_step),
                static_cast<long long>(r->first_diverging_step), r->ref_state_hash.c_str(),
                r->dev_state_hash.c_str(), static_cast<long long>(r->first_differing_index),
                r->ref_value, r->dev_value);
  }
  Status st = WriteJson(out_set->Path(o.out), j);
  if (st.ok()) st = out_set->Commit();
  if (!st.ok()) return Fail("audit", st);
  std::printf("wrote %s\n", o.out.c_str());
  return r->chains_equal ? 0 : 3;
}

}  // namespace

CLI::App* AddAuditCommand(CLI::App& app, std::function<int()>& run) {
  auto o = std::make_shared<AuditOptions>();
  CLI::App* cmd = app.add_subcommand(
      "audit",
      "Replay one rollout on the fp64 reference and on a Vulkan device, compare the hash chains, "
      "and report the first diverging checkpoint and then the first diverging step (replaying "
      "between checkpoints), with both states' hashes. Exit 0 if equal, 3 if they diverge.");
  AddRolloutInputFlags(*cmd, o->input);
  AddVulkanFlags(*cmd, o->device, {.device = true, .validation = true, .rollout_kernel = true});
  cmd->add_option("--out", o->out, "Report path (JSON)")->type_name("PATH")->capture_default_str();
  cmd->callback([o, &run] { run = [o] { return Run(*o); }; });
  return cmd;
}

}  // namespace dashi::tools
