// Per-step device time of the fp64 Vulkan rollout (accel_vulkan/rollout/vulkan_rollout.h).
//
//   bazel run -c opt //bench/vulkan:rollout_vulkan_benchmark --
//       [--device SEL] [--dims 512,1024,2048] [--kernels persistent,fused,two-kernel]
//       [--wg 64,128,256] [--tile 0] [--cols 0] [--groups 0] [--groups-per-sm 1] [--no-resident]
//       [--steps 1000] [--reps 9] [--warmup 2] [--no-verify] [--validation]
//
// One row per (D, kernel, configuration): fused and two-kernel rows for each --wg (fused also for
// each --tile, 0 = automatic); persistent rows for each --groups (0 = the SM count ×
// --groups-per-sm) × --cols (outputs per invocation, 0 = automatic) × --wg, where a --wg of 0
// means the automatic workgroup size of the persistent kernel.
//
// For each D: A with entries uniform in ±[0.5, 1)/sqrt(D) and z0 uniform in ±[0.5, 1)
// (Xoshiro256** seeds 1 and 2; never zero; the state decays by about 0.76 per step, so after 1000
// steps it is still ~1e-117, far from the subnormal range). One Run() of `steps` steps is one
// command buffer (all steps recorded, one submission, the final state read back); its device
// time comes from the timestamps around the recorded steps, so per step = device_ms / steps
// includes the dispatches and barriers of each step and excludes submission, upload and host
// work. After `warmup` runs, the median (and min) over `reps` runs is reported, plus the
// effective bandwidth of reading A once per step (D²·8 bytes / step time). Unless --no-verify,
// the first run's chain and final state are compared with core_ref's Rollout bit for bit (on the
// CPU; a few seconds at D = 2048).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "accel_vulkan/context.h"
#include "accel_vulkan/rollout/vulkan_rollout.h"
#include "core_ref/prng/prng.h"
#include "core_ref/rollout/rollout.h"

namespace {

using dashi::Status;
using dashi::StatusOr;

struct Options {
  std::string device;
  std::vector<int64_t> dims = {512, 1024, 2048};
  std::vector<int64_t> workgroups = {64, 128, 256};
  int64_t steps = 1000;
  int reps = 9;
  int warmup = 2;
  bool verify = true;
  bool validation = false;
  std::vector<int64_t> tiles = {0};  // fused_tile values (0 = automatic)
  std::vector<dashi::vk::RolloutKernel> kernels = {dashi::vk::RolloutKernel::kPersistent,
                                                   dashi::vk::RolloutKernel::kFused,
                                                   dashi::vk::RolloutKernel::kTwoKernels};
  std::vector<int64_t> cols = {0};    // persistent_cols values (0 = automatic)
  std::vector<int64_t> groups = {0};  // persistent_groups values (0 = automatic)
  int64_t groups_per_sm = 1;
  bool resident = true;  // persistent: A in registers where possible
  int64_t steps_per_dispatch = 0;  // persistent: most steps per dispatch (0 = automatic)
};

void Usage() {
  std::printf(
      "usage: rollout_vulkan_benchmark [--device SEL] [--dims 512,1024,2048]\n"
      "         [--kernels persistent,fused,two-kernel] [--wg 64,128,256] [--tile 0]\n"
      "         [--cols 0] [--groups 0] [--groups-per-sm 1] [--steps 1000] [--reps 9]\n"
      "         [--warmup 2] [--no-verify] [--validation]\n"
      "  --kernels  which kernels to time (persistent: many steps per dispatch; fused: one\n"
      "             dispatch per step; two-kernel: two dispatches per step)\n"
      "  --wg       workgroup sizes (0 = automatic; for fused/two-kernel 0 means 256)\n"
      "  --tile     fused: outputs per workgroup (0 = automatic)\n"
      "  --cols     persistent: outputs per invocation (0 = automatic)\n"
      "  --groups   persistent: workgroups (0 = SM count x --groups-per-sm)\n"
      "  --steps-per-dispatch N  persistent: at most N steps per dispatch (0 = automatic)\n"
      "  --no-resident  persistent: read A from memory every step even where it fits in\n"
      "             registers (one unit per workgroup, R = 1)\n"
      "  --steps    steps per run (one submission); --reps timed runs after --warmup runs\n"
      "  --no-verify  skip the bit-exact check against core_ref; --validation  layer on\n");
}

// A comma-separated list of integers ≥ min_value.
bool ParseList(const char* text, std::vector<int64_t>* out, int64_t min_value = 1) {
  out->clear();
  std::string s(text);
  size_t pos = 0;
  while (pos <= s.size()) {
    const size_t comma = std::min(s.find(',', pos), s.size());
    const std::string item = s.substr(pos, comma - pos);
    char* end = nullptr;
    const long long v = std::strtoll(item.c_str(), &end, 10);
    if (item.empty() || *end != '\0' || v < min_value) return false;
    out->push_back(v);
    pos = comma + 1;
  }
  return !out->empty();
}

bool ParseArgs(int argc, char** argv, Options* o) {
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    auto value = [&]() -> const char* { return i + 1 < argc ? argv[++i] : nullptr; };
    const char* v = nullptr;
    if (arg == "--help" || arg == "-h") {
      Usage();
      std::exit(0);
    } else if (arg == "--no-resident") {
      o->resident = false;
    } else if (arg == "--no-verify") {
      o->verify = false;
    } else if (arg == "--validation") {
      o->validation = true;
    } else if ((v = value()) == nullptr) {
      std::fprintf(stderr, "%s needs a value\n", arg.c_str());
      return false;
    } else if (arg == "--device") {
      o->device = v;
    } else if (arg == "--dims") {
      if (!ParseList(v, &o->dims)) return false;
    } else if (arg == "--wg") {
      if (!ParseList(v, &o->workgroups, /*min_value=*/0)) return false;
    } else if (arg == "--cols") {
      if (!ParseList(v, &o->cols, /*min_value=*/0)) return false;
    } else if (arg == "--groups") {
      if (!ParseList(v, &o->groups, /*min_value=*/0)) return false;
    } else if (arg == "--steps-per-dispatch") {
      o->steps_per_dispatch = std::atoll(v);
      if (o->steps_per_dispatch < 0) return false;
    } else if (arg == "--groups-per-sm") {
      o->groups_per_sm = std::atoll(v);
      if (o->groups_per_sm < 1) return false;
    } else if (arg == "--kernels") {
      o->kernels.clear();
      std::string list(v);
      for (size_t pos = 0; pos <= list.size();) {
        const size_t comma = std::min(list.find(',', pos), list.size());
        StatusOr<dashi::vk::RolloutKernel> k =
            dashi::vk::ParseRolloutKernel(list.substr(pos, comma - pos));
        if (!k.ok()) {
          std::fprintf(stderr, "%s\n", k.status().ToString().c_str());
          return false;
        }
        o->kernels.push_back(*k);
        pos = comma + 1;
      }
    } else if (arg == "--steps") {
      o->steps = std::atoll(v);
    } else if (arg == "--reps") {
      o->reps = std::atoi(v);
    } else if (arg == "--tile") {
      if (!ParseList(v, &o->tiles, /*min_value=*/0)) return false;  // 0 = automatic
    } else if (arg == "--warmup") {
      o->warmup = std::atoi(v);
    } else {
      std::fprintf(stderr, "unknown argument %s\n", arg.c_str());
      return false;
    }
  }
  return o->steps >= 1 && o->reps >= 1 && o->warmup >= 0;
}

// Uniform in ±[0.5, 1) · scale: never zero.
std::vector<double> NonZeroValues(uint64_t seed, size_t n, double scale) {
  dashi::Xoshiro256ss rng(seed);
  std::vector<double> v(n);
  for (double& x : v) {
    const double m = 0.5 + 0.5 * rng.NextDouble();
    x = (rng.Next() & 1) ? scale * m : -scale * m;
  }
  return v;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int Fail(const std::string& what, const Status& s) {
  std::fprintf(stderr, "rollout_vulkan_benchmark: %s: %s\n", what.c_str(), s.ToString().c_str());
  return 1;
}

struct Measurement {
  std::string error;     // non-empty: Create() or Run() failed
  std::string verified;  // "bit-exact", "MISMATCH", "skipped" or why not
  int64_t chunks = 0;
  std::string config;  // "wg 256 tile 8", "G 132 wg 128 R 2", "wg 256"
  double median_us = 0, min_us = 0, host_ms = 0;
};

// warmup + reps runs of one configuration; the first run is compared with `reference`.
Measurement Measure(dashi::vk::VulkanContext& ctx, int64_t dim, const std::vector<double>& a,
                    const std::vector<double>& z0, const dashi::RolloutParams& params,
                    const dashi::vk::VulkanRolloutOptions& ro, const Options& o,
                    const StatusOr<dashi::RolloutResult>& reference) {
  Measurement out;
  out.verified = o.verify ? "" : "skipped";
  StatusOr<std::unique_ptr<dashi::vk::VulkanRollout>> r =
      dashi::vk::VulkanRollout::Create(ctx, dim, a, ro);
  if (!r.ok()) {
    out.error = r.status().ToString();
    return out;
  }
  out.chunks = (*r)->chunks();
  const dashi::vk::VulkanRollout& ro_used = **r;
  out.config = "wg " + std::to_string(ro_used.options().workgroup_size);
  if (ro_used.kernel() == dashi::vk::RolloutKernel::kFused) {
    out.config += " tile " + std::to_string(ro_used.fused_tile());
  } else if (ro_used.kernel() == dashi::vk::RolloutKernel::kPersistent) {
    out.config = "G " + std::to_string(ro_used.persistent_groups()) + " " + out.config + " R " +
                 std::to_string(ro_used.persistent_cols()) +
                 (ro_used.persistent_resident_a() ? " regA" : "");
  }
  std::vector<double> per_step_us, host_ms;
  for (int rep = 0; rep < o.warmup + o.reps; ++rep) {
    StatusOr<dashi::RolloutResult> got = (*r)->Run(z0, params);
    if (!got.ok()) {
      out.error = got.status().ToString();
      return out;
    }
    if (rep == 0 && o.verify) {
      if (!reference.ok()) {
        out.verified = "core_ref failed: " + reference.status().ToString();
      } else {
        const bool same =
            got->chain == reference->chain &&
            std::memcmp(got->final_state.data(), reference->final_state.data(),
                        reference->final_state.size() * sizeof(double)) == 0;
        out.verified = same ? "bit-exact" : "MISMATCH";
        if (!same && std::getenv("DASHI_BENCH_DEBUG") != nullptr) {
          for (size_t k = 0; k < got->final_state.size(); ++k) {
            if (got->final_state[k] != reference->final_state[k]) {
              std::printf("  z[%zu] = %.17g, core_ref %.17g\n", k, got->final_state[k],
                          reference->final_state[k]);
            }
          }
        }
      }
    }
    const dashi::vk::RolloutTimings& t = (*r)->last_timings();
    if (rep >= o.warmup) {
      per_step_us.push_back(t.device_us_per_step);
      host_ms.push_back(t.host_ms);
    }
  }
  out.median_us = Median(per_step_us);
  out.min_us = *std::min_element(per_step_us.begin(), per_step_us.end());
  out.host_ms = Median(host_ms);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  Options o;
  if (!ParseArgs(argc, argv, &o)) {
    Usage();
    return 2;
  }
  dashi::vk::ContextOptions copts;
  copts.device_selector = o.device;
  copts.enable_validation = o.validation;
  StatusOr<std::unique_ptr<dashi::vk::VulkanContext>> ctx = dashi::vk::VulkanContext::Create(copts);
  if (!ctx.ok()) return Fail("Vulkan context", ctx.status());
  const dashi::vk::DeviceInfo& d = (*ctx)->info();
  const dashi::vk::Float64Controls fc = dashi::vk::QueryFloat64Controls(**ctx);
  std::printf("device: %s [%s] | driver %s (%s) | Vulkan %s | timestamp period %.3f ns\n",
              d.name.c_str(), d.device_type.c_str(), d.driver_name.c_str(), d.driver_info.c_str(),
              d.api_version.c_str(), d.timestamp_period_ns);
  std::printf("fp64 float controls: %s | validation %s\n", fc.ToString().c_str(),
              o.validation ? "ON (timings not representative)" : "off");
  std::printf("%lld steps per run (one submission), %d warm-up + %d timed runs per row\n",
              static_cast<long long>(o.steps), o.warmup, o.reps);
  if (const std::optional<dashi::vk::SmInfo> sm = dashi::vk::QuerySmInfo(**ctx)) {
    std::printf("SMs: %u (warps per SM %u)\n", sm->sm_count, sm->warps_per_sm);
  } else {
    std::printf("SMs: not reported (no VK_NV_shader_sm_builtins): persistent G = 1 unless "
                "--groups\n");
  }
  std::printf("GB/s(A) = D*D*8 bytes / median step time (A stays in L2 where it fits: H100 50 MB, "
              "H200 60 MB)\n\n");
  std::printf("%6s %6s %-11s %-22s | %10s %10s | %9s %9s %9s  %s\n", "D", "chunks", "kernel",
              "config", "us/step", "min us", "GB/s(A)", "steps/s", "host ms", "verified");

  int failures = 0;
  auto report = [&](int64_t dim, dashi::vk::RolloutKernel kernel, const Measurement& m) {
    const char* name = dashi::vk::RolloutKernelName(kernel);
    if (!m.error.empty()) {
      std::printf("%6lld %6s %-11s error: %s\n", static_cast<long long>(dim), "", name,
                  m.error.c_str());
      ++failures;
      return;
    }
    if (m.verified == "MISMATCH") ++failures;
    const double a_bytes = static_cast<double>(dim) * static_cast<double>(dim) * 8.0;
    const double med = m.median_us;
    std::printf("%6lld %6lld %-11s %-22s | %10.3f %10.3f | %9.1f %9.0f %9.2f  %s\n",
                static_cast<long long>(dim), static_cast<long long>(m.chunks), name,
                m.config.c_str(), med, m.min_us, med > 0 ? a_bytes / (med * 1e3) : 0.0,
                med > 0 ? 1e6 / med : 0.0, m.host_ms, m.verified.c_str());
    std::fflush(stdout);
  };
  for (int64_t dim : o.dims) {
    const std::vector<double> a =
        NonZeroValues(1, static_cast<size_t>(dim * dim), 1.0 / std::sqrt(static_cast<double>(dim)));
    const std::vector<double> z0 = NonZeroValues(2, static_cast<size_t>(dim), 1.0);
    const dashi::RolloutParams params{.steps = o.steps, .hash_every = o.steps};
    StatusOr<dashi::RolloutResult> reference = dashi::InternalError("not computed");
    if (o.verify) reference = dashi::Rollout(z0, a, params);
    for (const dashi::vk::RolloutKernel kernel : o.kernels) {
      dashi::vk::VulkanRolloutOptions ro;
      ro.max_steps_per_submit = o.steps;
      ro.kernel = kernel;
      ro.persistent_groups_per_sm = static_cast<uint32_t>(o.groups_per_sm);
      ro.persistent_resident_a = o.resident;
      ro.persistent_max_steps_per_dispatch = o.steps_per_dispatch;
      for (int64_t wg : o.workgroups) {
        ro.workgroup_size = static_cast<uint32_t>(wg);
        if (kernel == dashi::vk::RolloutKernel::kFused) {
          for (int64_t tile : o.tiles) {
            ro.fused_tile = static_cast<uint32_t>(tile);
            report(dim, kernel, Measure(**ctx, dim, a, z0, params, ro, o, reference));
          }
        } else if (kernel == dashi::vk::RolloutKernel::kPersistent) {
          for (int64_t groups : o.groups) {
            for (int64_t cols : o.cols) {
              ro.persistent_groups = static_cast<uint32_t>(groups);
              ro.persistent_cols = static_cast<uint32_t>(cols);
              report(dim, kernel, Measure(**ctx, dim, a, z0, params, ro, o, reference));
            }
          }
        } else {
          report(dim, kernel, Measure(**ctx, dim, a, z0, params, ro, o, reference));
        }
      }
    }
  }
  if (!(*ctx)->validation_messages().empty()) {
    std::printf("\n%zu validation message(s), first: %s\n", (*ctx)->validation_messages().size(),
                (*ctx)->validation_messages()[0].c_str());
    ++failures;
  }
  return failures == 0 ? 0 : 1;
}
