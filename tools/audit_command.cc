#include "tools/audit_command.h"

#include <cstdio>
#include <memory>

#include "accel_vulkan/rollout/vulkan_rollout.h"
#include "core_ref/npy/npy.h"
#include "tools/audit.h"
#include "tools/cli_util.h"
#include "tools/vulkan_backend.h"

namespace dashi::tools {
namespace {

struct AuditOptions {
  std::string z0, a, out = "audit.json";
  int64_t steps = 1000, hash_every = 100;
  VulkanBackendOptions vulkan;
};

int Run(AuditOptions o) {
  StatusOr<NpyArray> z0 = ReadF64Array(o.z0, 1);
  if (!z0.ok()) return Fail("audit", z0.status());
  StatusOr<NpyArray> a = ReadF64Array(o.a, 2);
  if (!a.ok()) return Fail("audit", a.status());
  const int64_t dim = z0->shape[0];
  if (a->shape[0] != dim || a->shape[1] != dim) {
    return Fail("audit", InvalidArgumentError(o.a + ": shape " + NpyShapeString(a->shape) +
                                              " is not (" + std::to_string(dim) + ", " +
                                              std::to_string(dim) + ") to match " + o.z0));
  }
  const std::vector<double> zv = *z0->As<double>(), av = *a->As<double>();
  // An audit is how an uncertified device is examined, so it never needs a certification.
  o.vulkan.allow_uncertified = true;
  StatusOr<VulkanSession> s = OpenVulkanDevice(o.vulkan, "dashi audit");
  if (!s.ok()) return Fail("audit", s.status());
  StatusOr<std::unique_ptr<vk::VulkanRollout>> vr = CreateVulkanRollout(*s, dim, av);
  if (!vr.ok()) return Fail("audit", vr.status());
  const RolloutBackend reference = [&](std::span<const double> z, int64_t, int64_t steps,
                                       int64_t every) {
    return Rollout(z, av, {steps, every, 0});
  };
  const RolloutBackend device = [&](std::span<const double> z, int64_t, int64_t steps,
                                    int64_t every) {
    return (*vr)->Run(z, {steps, every, 0});
  };
  StatusOr<AuditResult> r = AuditRollout(zv, o.steps, o.hash_every, reference, device);
  if (!r.ok()) return Fail("audit", r.status());
  nlohmann::json j = {{"provenance", VulkanProvenance(*s)},
                      {"z0", o.z0},
                      {"a", o.a},
                      {"dim", dim},
                      {"steps", o.steps},
                      {"hash_every", o.hash_every},
                      {"checkpoints", r->checkpoints},
                      {"chains_equal", r->chains_equal}};
  if (r->chains_equal) {
    std::printf("audit: %lld checkpoints over %lld steps on %s: hash chains EQUAL\n",
                static_cast<long long>(r->checkpoints), static_cast<long long>(o.steps),
                s->ctx->info().name.c_str());
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
                s->ctx->info().name.c_str(),
                static_cast<long long>(r->last_matching_checkpoint_step),
                static_cast<long long>(r->first_diverging_checkpoint_step),
                static_cast<long long>(r->first_diverging_step), r->ref_state_hash.c_str(),
                r->dev_state_hash.c_str(), static_cast<long long>(r->first_differing_index),
                r->ref_value, r->dev_value);
  }
  Status st = WriteJson(o.out, j);
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
  cmd->add_option("--z0", o->z0, "Initial state .npy, float64 [D]")->required();
  cmd->add_option("--a", o->a, "Transition matrix .npy, float64 [D, D]")->required();
  cmd->add_option("--steps", o->steps, "Steps")->capture_default_str();
  cmd->add_option("--hash-every", o->hash_every, "Checkpoint spacing")->capture_default_str();
  cmd->add_option("--device", o->vulkan.device, "Vulkan device: index, UUID or name substring");
  cmd->add_flag("--validation", o->vulkan.validation, "Enable the Khronos validation layer");
  AddRolloutKernelFlag(cmd, &o->vulkan);
  cmd->add_option("--out", o->out, "Report path (JSON)")->capture_default_str();
  cmd->callback([o, &run] { run = [o] { return Run(*o); }; });
  return cmd;
}

}  // namespace dashi::tools
