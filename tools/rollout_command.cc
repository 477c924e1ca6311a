#include "tools/rollout_command.h"

#include <chrono>
#include <cstdio>
#include <memory>

#include "core_ref/blake2b/blake2b.h"
#include "core_ref/npy/npy.h"
#include "core_ref/rollout/rollout.h"
#include "tools/chain_json.h"
#include "tools/cli_util.h"
#include "tools/vulkan_backend.h"
#include "accel_vulkan/rollout/vulkan_rollout.h"

namespace dashi::tools {
namespace {

struct RolloutOptions {
  std::string z0, a, out = "zT.npy", backend = "ref";
  int64_t steps = 1000, hash_every = 100, save_every = 0;
  VulkanBackendOptions vulkan;
};

int Run(const RolloutOptions& o) {
  StatusOr<NpyArray> z0 = ReadF64Array(o.z0, 1);
  if (!z0.ok()) return Fail("rollout", z0.status());
  StatusOr<NpyArray> a = ReadF64Array(o.a, 2);
  if (!a.ok()) return Fail("rollout", a.status());
  const int64_t dim = z0->shape[0];
  if (a->shape[0] != a->shape[1]) {
    return Fail("rollout", InvalidArgumentError(o.a + ": shape " + NpyShapeString(a->shape) +
                                                " is not square"));
  }
  if (a->shape[0] != dim) {
    return Fail("rollout", InvalidArgumentError(o.a + ": shape " + NpyShapeString(a->shape) +
                                                " does not match " + o.z0 + "'s length " +
                                                std::to_string(dim)));
  }
  if (o.save_every < 0) return Fail("rollout", InvalidArgumentError("--save-every is negative"));
  const std::vector<double> zv = *z0->As<double>(), av = *a->As<double>();
  RolloutParams params;
  params.steps = o.steps;
  params.hash_every = o.hash_every;
  params.observe_every = o.save_every;
  std::vector<double> saved;
  RolloutObserver observer;
  if (o.save_every > 0) {
    observer = [&](int64_t, std::span<const double> z) {
      saved.insert(saved.end(), z.begin(), z.end());
      return OkStatus();
    };
  }
  std::unique_ptr<VulkanSession> vulkan;
  nlohmann::json prov = ReferenceProvenance(o.backend);
  nlohmann::json device_timing;
  const auto t0 = std::chrono::steady_clock::now();
  StatusOr<RolloutResult> r = InternalError("no backend ran");
  if (o.backend == "vulkan") {
    StatusOr<VulkanSession> s = OpenVulkanDevice(o.vulkan, "dashi rollout");
    if (!s.ok()) return Fail("rollout", s.status());
    vulkan = std::make_unique<VulkanSession>(std::move(s).value());
    StatusOr<std::unique_ptr<vk::VulkanRollout>> vr = CreateVulkanRollout(*vulkan, dim, av);
    if (!vr.ok()) return Fail("rollout", vr.status());
    prov = VulkanProvenance(*vulkan);
    r = (*vr)->Run(zv, params, observer);
    const vk::RolloutTimings& t = (*vr)->last_timings();
    device_timing = {{"device_ms", t.device_ms},
                     {"device_us_per_step", t.device_us_per_step},
                     {"submissions", t.submissions},
                     {"states_read_back", t.snapshots}};
    if (r.ok()) {
      Status v = CheckValidation(*vulkan);
      if (!v.ok()) r = v;
    }
  } else {
    r = Rollout(zv, av, params, observer);
  }
  const double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!r.ok()) return Fail("rollout", r.status());

  StatusOr<NpyArray> out = NpyArray::FromF64({dim}, r->final_state);
  if (!out.ok()) return Fail("rollout", out.status());
  Status st = WriteNpy(o.out, *out);
  if (!st.ok()) return Fail("rollout", st);
  if (o.save_every > 0) {
    StatusOr<NpyArray> traj =
        NpyArray::FromF64({static_cast<int64_t>(saved.size()) / dim, dim}, saved);
    st = traj.ok() ? WriteNpy(ReplaceNpySuffix(o.out, ".trajectory.npy"), *traj) : traj.status();
    if (!st.ok()) return Fail("rollout", st);
  }
  const std::string chain_path = ReplaceNpySuffix(o.out, ".chain.json");
  nlohmann::json chain = {
      {"provenance", prov},
      {"device_timing", device_timing},
      {"z0", o.z0},
      {"a", o.a},
      {"z0_hash", ToHex(Blake2b128(zv.data(), zv.size() * sizeof(double)))},
      {"a_hash", ToHex(Blake2b128(av.data(), av.size() * sizeof(double)))},
      {"dim", dim},
      {"steps", o.steps},
      {"hash_every", o.hash_every},
      {"hash", "BLAKE2b-128; state_hash = H(LE f64 bytes of z), link = H(prev link || state_hash)"},
      {"summation_order", "canonical chunked (docs/MATH.md)"},
      {"seconds", secs},
      {"steps_per_second", o.steps > 0 ? static_cast<double>(o.steps) / secs : 0.0},
      {"checkpoints", ChainJson(r->chain)},
  };
  st = WriteJson(chain_path, chain);
  if (!st.ok()) return Fail("rollout", st);
  std::printf("rolled out %lld steps of D = %lld in %.3f s (%.0f steps/s); final link %s\n"
              "wrote %s and %s\n",
              static_cast<long long>(o.steps), static_cast<long long>(dim), secs,
              o.steps > 0 ? o.steps / secs : 0.0, ToHex(r->chain.back().link).c_str(),
              o.out.c_str(), chain_path.c_str());
  return 0;
}

}  // namespace

CLI::App* AddRolloutCommand(CLI::App& app, std::function<int()>& run) {
  auto o = std::make_shared<RolloutOptions>();
  CLI::App* cmd = app.add_subcommand(
      "rollout",
      "Autonomous rollout z <- z*A in fp64 with the canonical summation order, hashing z every "
      "--hash-every steps into a BLAKE2b-128 chain. Writes --out zT.npy (the final state) and "
      "zT.chain.json beside it.");
  cmd->add_option("--z0", o->z0, "Initial state .npy, float64 shape [D]")->required();
  cmd->add_option("--a", o->a, "Transition matrix .npy, float64 shape [D, D]")->required();
  cmd->add_option("--steps", o->steps, "Number of steps (>= 0)")->capture_default_str();
  cmd->add_option("--hash-every", o->hash_every,
                  "Checkpoint spacing (>= 1); steps 0 and the last are always hashed")
      ->capture_default_str();
  cmd->add_option("--save-every", o->save_every,
                  "Also write zT.trajectory.npy with every k-th state (0: off)")
      ->capture_default_str();
  cmd->add_option("--out", o->out, "Output .npy for the final state")->capture_default_str();
  cmd->add_option("--backend", o->backend, "ref or vulkan; never a silent fallback")
      ->check(CLI::IsMember({"ref", "vulkan"}))
      ->capture_default_str();
  cmd->add_option("--device", o->vulkan.device, "Vulkan device: index, UUID or name substring");
  cmd->add_flag("--allow-uncertified", o->vulkan.allow_uncertified,
                "Use a device without a passing `dashi conform` report (recorded in the output)");
  cmd->add_option("--cert-store", o->vulkan.cert_store, "Certification store directory");
  cmd->add_flag("--validation", o->vulkan.validation, "Enable the Khronos validation layer");
  AddRolloutKernelFlag(cmd, &o->vulkan);
  cmd->callback([o, &run] { run = [o] { return Run(*o); }; });
  return cmd;
}

}  // namespace dashi::tools
