// Conformance cases of the fp64 Vulkan rollout (accel_vulkan/rollout/vulkan_rollout.h) against
// core_ref's Rollout (hash parity): the hash chain and the states must be bit-exact.
//
//   rollout.hash_parity.d<D>    checkpoint links ≠ core_ref's, D ∈ {1, 63, …, 2112}, random
//                               stable A and z0 (seeds in the detail), 40 steps, hash_every 7
//   rollout.final_state.d<D>    final-state elements whose bits differ from core_ref's
//   rollout.{hash_parity,final_state}.{two_kernel,persistent}.d<D>  the same with the
//                               two-dispatch kernel and with the persistent kernel (many steps
//                               per dispatch, device-wide barriers; its workgroups sized from the
//                               SM count where the device reports it, else one); the cases
//                               without a kernel name run the fused kernel (one dispatch per
//                               step). subnormal, signed_zero and guard_words cover all three.
//   rollout.persistent.straggler  the persistent kernel, D = 512, 32 units on StragglerGroups(32)
//                               workgroups (31 on a GPU: workgroup 0 takes two units and arrives
//                               last at every barrier; 1 on lavapipe): links + final-state
//                               elements that differ
//   rollout.golden.pipeline_32  golden/pipeline_32_*: links and the 21 states of the golden run
//   rollout.subnormal           states and products in the subnormal range (bit-exact or FAIL)
//   rollout.signed_zero         states made of ±0 only (the contract's sign-of-zero details)
//   rollout.observer_states     states handed to an observer ≠ core_ref's
//   rollout.guard_words         guard words after the state / scratch buffers overwritten
//   rollout.rejects_nonfinite_input   NaN/±Inf in A or z0 accepted (must be an error)
//   rollout.nonfinite_state_error     a blow-up's error differs from core_ref's (step, index)
//
// Golden data are read from $DASHI_GOLDEN_DIR, else "golden" relative to the working directory.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "accel_vulkan/context.h"
#include "accel_vulkan/device_caps/device_caps.h"
#include "accel_vulkan/guard_words.h"
#include "accel_vulkan/rollout/vulkan_rollout.h"
#include "conformance/framework/conformance_case.h"
#include "conformance/framework/sweep_shapes.h"
#include "conformance/framework/golden_input.h"
#include "core_ref/blake2b/blake2b.h"
#include "core_ref/npy/npy.h"
#include "core_ref/prng/prng.h"
#include "core_ref/rollout/rollout.h"
#include "core_ref/rollout/vecmat.h"
#include "core_ref/status/status.h"
#include "core_ref/testing/random_inputs.h"

namespace dashi::conformance {
namespace {

using vk::VulkanContext;
using vk::RolloutKernel;
using vk::VulkanRollout;

// The generated sweep (framework/sweep_shapes.h): chunk counts m = ⌈D/64⌉ with three or more set
// bits reach the final fold of the pairwise tree (448: m = 7, 704: 11, 960: 15, 1984: 31), one-
// element last chunks (385, 897, 1921), and 2112 (m = 33 = 2^5 + 1, D > 2048) runs the persistent
// kernel's shared-memory tree.
constexpr int64_t kParityMaxDim = 2112;
constexpr int64_t kParitySteps = 40;
constexpr int64_t kParityHashEvery = 7;  // 40 is not a multiple: the last checkpoint is extra

uint64_t MatrixSeed(int64_t dim) { return 0xA5EED000u + static_cast<uint64_t>(dim); }
uint64_t StateSeed(int64_t dim) { return 0x25EED000u + static_cast<uint64_t>(dim); }

// The inputs of dimension D (core_ref/testing/random_inputs.h): a random stable matrix
// A = StableMatrix(D, MatrixSeed(D)), uniform in [-1, 1) · 0.9 / sqrt(D), and
// z0 = UniformValues(D, StateSeed(D), 1).
struct SeededInputs {
  std::vector<double> a, z0;
};
SeededInputs Inputs(int64_t dim) {
  return {testing::StableMatrix(dim, MatrixSeed(dim)),
          testing::UniformValues(static_cast<size_t>(dim), StateSeed(dim), 1.0)};
}

std::string Seeds(int64_t dim) {
  char buf[96];
  std::snprintf(buf, sizeof(buf), "seeds A=0x%llx z0=0x%llx",
                static_cast<unsigned long long>(MatrixSeed(dim)),
                static_cast<unsigned long long>(StateSeed(dim)));
  return buf;
}

int64_t DifferingBits(std::span<const double> a, std::span<const double> b) {
  if (a.size() != b.size()) return static_cast<int64_t>(std::max(a.size(), b.size()));
  int64_t n = 0;
  for (size_t k = 0; k < a.size(); ++k) n += std::memcmp(&a[k], &b[k], sizeof(double)) != 0;
  return n;
}

// Number of checkpoints whose (step, link) differ, and the first differing step (-1 if none).
std::pair<int64_t, int64_t> CompareChains(std::span<const ChainCheckpoint> got,
                                          std::span<const ChainCheckpoint> want) {
  int64_t differ = 0, first = -1;
  const size_t n = std::max(got.size(), want.size());
  for (size_t k = 0; k < n; ++k) {
    const bool same = k < got.size() && k < want.size() && got[k].step == want[k].step &&
                      got[k].link == want[k].link;
    if (!same) {
      ++differ;
      if (first < 0) first = k < want.size() ? want[k].step : got[k].step;
    }
  }
  return {differ, first};
}

std::optional<CaseResult> RequireFloat64(const VulkanContext& ctx) {
  if (!ctx.info().shader_float64) {
    return NotSupported("device '" + ctx.info().name + "' lacks shaderFloat64 (fp64 rollout)");
  }
  return std::nullopt;
}

constexpr RolloutKernel kKernels[] = {RolloutKernel::kFused, RolloutKernel::kTwoKernels,
                                      RolloutKernel::kPersistent};

// "fused, tile 8", "two-kernel", "persistent, 132 workgroups of 128 x 2 outputs".
std::string KernelDetail(const VulkanRollout& r) {
  switch (r.kernel()) {
    case RolloutKernel::kFused:
      return "fused, tile " + std::to_string(r.fused_tile());
    case RolloutKernel::kPersistent:
      return "persistent, " + std::to_string(r.persistent_groups()) + " workgroups of " +
             std::to_string(r.options().workgroup_size) + " x " +
             std::to_string(r.persistent_cols()) + " outputs";
    default:
      return RolloutKernelName(r.kernel());
  }
}

// One Vulkan run and one core_ref run on the same inputs.
struct PairedRun {
  StatusOr<RolloutResult> device = InternalError("not run");
  StatusOr<RolloutResult> reference = InternalError("not run");
  std::string variant;
};

PairedRun RunBoth(VulkanContext& ctx, int64_t dim, std::span<const double> a,
                  std::span<const double> z0, const RolloutParams& p,
                  const vk::VulkanRolloutOptions& options) {
  PairedRun out;
  out.reference = Rollout(z0, a, p);
  StatusOr<std::unique_ptr<VulkanRollout>> r = VulkanRollout::Create(ctx, dim, a, options);
  if (!r.ok()) {
    out.device = r.status();
    return out;
  }
  out.variant = vk::FloatControlsVariantName((*r)->shader_variant()) + ", " + KernelDetail(**r);
  out.device = (*r)->Run(z0, p);
  return out;
}

// One run per kernel with every state observed, against core_ref's run `want` (with its states
// want_states[step]); the counts add up over the kernels.
struct KernelSweep {
  vk::Float64Controls float_controls;
  uint32_t variant = 0;
  int64_t states_differ = 0;
  int64_t first_state = -1;  // first observed step whose state differs, or -1
  int64_t links_differ = 0;
};

StatusOr<KernelSweep> SweepKernels(VulkanContext& ctx, int64_t dim, std::span<const double> a,
                                   std::span<const double> z0, const RolloutParams& p,
                                   const RolloutResult& want,
                                   const std::vector<std::vector<double>>& want_states) {
  KernelSweep out;
  for (const RolloutKernel kernel : kKernels) {
    DASHI_ASSIGN_OR_RETURN(std::unique_ptr<VulkanRollout> r,
                           VulkanRollout::Create(ctx, dim, a, {.kernel = kernel}));
    out.float_controls = r->device_float_controls();
    out.variant = r->shader_variant();
    DASHI_ASSIGN_OR_RETURN(
        RolloutResult got, r->Run(z0, p, [&](int64_t step, std::span<const double> s) {
          if (DifferingBits(s, want_states[static_cast<size_t>(step)]) != 0) {
            ++out.states_differ;
            if (out.first_state < 0) out.first_state = step;
          }
          return OkStatus();
        }));
    out.links_differ += CompareChains(got.chain, want.chain).first;
  }
  return out;
}

// core_ref's run with every state observed (`tally` sees each), then SweepKernels against it.
StatusOr<KernelSweep> SweepAgainstCoreRef(
    VulkanContext& ctx, int64_t dim, std::span<const double> a, std::span<const double> z0,
    const RolloutParams& p, const std::function<void(std::span<const double>)>& tally) {
  std::vector<std::vector<double>> want_states;
  StatusOr<RolloutResult> want = Rollout(z0, a, p, [&](int64_t, std::span<const double> s) {
    tally(s);
    want_states.emplace_back(s.begin(), s.end());
    return OkStatus();
  });
  if (!want.ok()) return want.status().WithPrefix("core_ref");
  return SweepKernels(ctx, dim, a, z0, p, *want, want_states);
}

// "<L> links and <S> states differ[ (first at step t)]"
std::string SweepDifferences(const KernelSweep& s) {
  std::string d = std::to_string(s.links_differ) + " links and " +
                  std::to_string(s.states_differ) + " states differ";
  if (s.first_state >= 0) d += " (first at step " + std::to_string(s.first_state) + ")";
  return d;
}

CaseResult HashParity(VulkanContext& ctx, int64_t dim, RolloutKernel kernel) {
  if (auto ns = RequireFloat64(ctx)) return *ns;
  const auto [a, z0] = Inputs(dim);
  const RolloutParams p{.steps = kParitySteps, .hash_every = kParityHashEvery};
  PairedRun run = RunBoth(ctx, dim, a, z0, p, {.kernel = kernel});
  if (!run.reference.ok()) return FailFromStatus(run.reference.status().WithPrefix("core_ref"));
  if (!run.device.ok()) return FailFromStatus(run.device.status());
  const auto [differ, first] = CompareChains(run.device->chain, run.reference->chain);
  std::string detail = "D=" + std::to_string(dim) + ", " + Seeds(dim) + ", " +
                       std::to_string(kParitySteps) + " steps, hash_every " +
                       std::to_string(kParityHashEvery) + ", " +
                       std::to_string(run.reference->chain.size()) + " checkpoints";
  if (differ == 0) {
    detail += ", head link " + ToHex(run.reference->chain.back().link);
  } else {
    detail += ", first differing step " + std::to_string(first);
  }
  return Judge(static_cast<double>(differ), 0, detail + " (shaders: " + run.variant + ")");
}

CaseResult FinalState(VulkanContext& ctx, int64_t dim, RolloutKernel kernel) {
  if (auto ns = RequireFloat64(ctx)) return *ns;
  const auto [a, z0] = Inputs(dim);
  const RolloutParams p{.steps = kParitySteps, .hash_every = kParityHashEvery};
  PairedRun run = RunBoth(ctx, dim, a, z0, p, {.kernel = kernel});
  if (!run.reference.ok()) return FailFromStatus(run.reference.status().WithPrefix("core_ref"));
  if (!run.device.ok()) return FailFromStatus(run.device.status());
  const std::vector<double>& got = run.device->final_state;
  const std::vector<double>& want = run.reference->final_state;
  const int64_t differ = DifferingBits(got, want);
  std::string detail = "D=" + std::to_string(dim) + ", " + Seeds(dim) + ", z_" +
                       std::to_string(kParitySteps) + " (" + run.variant + ")";
  for (size_t k = 0; k < want.size() && k < got.size(); ++k) {
    if (std::memcmp(&got[k], &want[k], sizeof(double)) != 0) {
      char buf[128];
      std::snprintf(buf, sizeof(buf), ", first differing index %zu: %.17g vs core_ref %.17g", k,
                    got[k], want[k]);
      detail += buf;
      break;
    }
  }
  return Judge(static_cast<double>(differ), 0, detail);
}

const bool kParityCasesRegistered = [] {
  for (const RolloutKernel kernel : kKernels) {
    const std::string path = kernel == RolloutKernel::kFused      ? ""
                             : kernel == RolloutKernel::kTwoKernels ? "two_kernel."
                                                                    : "persistent.";
    for (int64_t dim : ContractionSweepDims(kParityMaxDim)) {
      const std::string d = path + "d" + std::to_string(dim);
      RegisterCase({"rollout.hash_parity." + d, "rollout",
                    "checkpoint links differing from core_ref", 0.0,
                    [dim, kernel](VulkanContext& ctx) { return HashParity(ctx, dim, kernel); }});
      RegisterCase({"rollout.final_state." + d, "rollout",
                    "final-state elements whose bits differ from core_ref", 0.0,
                    [dim, kernel](VulkanContext& ctx) { return FinalState(ctx, dim, kernel); }});
    }
  }
  return true;
}();

// The persistent kernel with a straggler (StragglerGroups, framework/sweep_shapes.h): D = 512,
// workgroups of 128 invocations with one output each, so 8 chunks × 4 column tiles = 32 units on
// 31 workgroups (on a GPU with 31 or more SMs): workgroup 0 takes units 0 and 31 and reaches
// every device-wide barrier last, a whole unit behind, and the units' partials are read from
// memory (A too: more than one unit a workgroup). Links and final-state elements that differ.
CaseResult PersistentStraggler(VulkanContext& ctx) {
  if (auto ns = RequireFloat64(ctx)) return *ns;
  const int64_t dim = 512;
  const int64_t workgroup = 128;  // invocations, one output column each (persistent_cols 1)
  // Units: the contract's 64-row chunks times the column tiles of one workgroup each.
  const uint32_t units = static_cast<uint32_t>(((dim + kRolloutChunk - 1) / kRolloutChunk) *
                                               ((dim + workgroup - 1) / workgroup));
  const std::optional<vk::SmInfo> sm = vk::QuerySmInfo(ctx);
  const auto [a, z0] = Inputs(dim);
  const RolloutParams p{.steps = kParitySteps, .hash_every = kParityHashEvery};
  PairedRun run = RunBoth(ctx, dim, a, z0, p,
                          {.workgroup_size = static_cast<uint32_t>(workgroup),
                           .kernel = RolloutKernel::kPersistent,
                           .persistent_groups = StragglerGroups(units, sm ? sm->sm_count : 0),
                           .persistent_cols = 1});
  if (!run.reference.ok()) return FailFromStatus(run.reference.status().WithPrefix("core_ref"));
  if (!run.device.ok()) return FailFromStatus(run.device.status());
  const int64_t links = CompareChains(run.device->chain, run.reference->chain).first;
  const int64_t states = DifferingBits(run.device->final_state, run.reference->final_state);
  return Judge(static_cast<double>(links + states), 0,
               "D=512, " + Seeds(dim) + ", " + std::to_string(kParitySteps) +
                   " steps, hash_every " + std::to_string(kParityHashEvery) + ", " +
                   std::to_string(units) + " units, " + std::to_string(links) +
                   " links and " + std::to_string(states) +
                   " final-state elements differ (shaders: " + run.variant + ")");
}

DASHI_CONFORMANCE_CASE("rollout.persistent.straggler", "rollout",
                       "links plus final-state elements differing from core_ref", 0.0,
                       PersistentStraggler);

// golden/pipeline_32_*: A (66×66), the 21 states z_0..z_20 of the golden run, and its chain
// (20 steps, hash_every 5: checkpoints 0, 5, 10, 15, 20).
CaseResult GoldenPipeline32(VulkanContext& ctx) {
  if (auto ns = RequireFloat64(ctx)) return *ns;
  const std::string dir = GoldenDir();
  StatusOr<NpyArray> a_npy = ReadGolden("pipeline_32_A");
  if (!a_npy.ok()) return FailFromStatus(a_npy.status());
  StatusOr<NpyArray> z_npy = ReadGolden("pipeline_32_z_rollout");
  if (!z_npy.ok()) return FailFromStatus(z_npy.status());
  StatusOr<NpyArray> links_npy = ReadGolden("pipeline_32_chain_links");
  if (!links_npy.ok()) return FailFromStatus(links_npy.status());
  StatusOr<NpyArray> steps_npy = ReadGolden("pipeline_32_chain_steps");
  if (!steps_npy.ok()) return FailFromStatus(steps_npy.status());

  StatusOr<std::vector<double>> a = a_npy->As<double>();
  StatusOr<std::vector<double>> zs = z_npy->As<double>();
  StatusOr<std::vector<uint8_t>> links = links_npy->As<uint8_t>();
  StatusOr<std::vector<int64_t>> cp_steps = steps_npy->As<int64_t>();
  if (!a.ok()) return FailFromStatus(a.status());
  if (!zs.ok()) return FailFromStatus(zs.status());
  if (!links.ok()) return FailFromStatus(links.status());
  if (!cp_steps.ok()) return FailFromStatus(cp_steps.status());
  if (a_npy->shape.size() != 2 || a_npy->shape[0] != a_npy->shape[1] ||
      z_npy->shape.size() != 2 || z_npy->shape[1] != a_npy->shape[0] ||
      links_npy->shape.size() != 2 || links_npy->shape[1] != 16 ||
      steps_npy->shape.size() != 1 || steps_npy->shape[0] != links_npy->shape[0]) {
    return Fail(NAN, "golden pipeline_32 arrays have unexpected shapes: A " +
                         NpyShapeString(a_npy->shape) + ", z_rollout " +
                         NpyShapeString(z_npy->shape) + ", chain_links " +
                         NpyShapeString(links_npy->shape) + ", chain_steps " +
                         NpyShapeString(steps_npy->shape));
  }
  const int64_t dim = a_npy->shape[0];
  const int64_t steps = z_npy->shape[0] - 1;  // 20
  const int64_t hash_every = 5;
  const std::span<const double> z0(zs->data(), static_cast<size_t>(dim));

  StatusOr<std::unique_ptr<VulkanRollout>> r = VulkanRollout::Create(ctx, dim, *a);
  if (!r.ok()) return FailFromStatus(r.status());
  int64_t states_differ = 0;
  auto observer = [&](int64_t step, std::span<const double> state) {
    const std::span<const double> want(zs->data() + step * dim, static_cast<size_t>(dim));
    states_differ += DifferingBits(state, want) != 0 ? 1 : 0;
    return OkStatus();
  };
  StatusOr<RolloutResult> got =
      (*r)->Run(z0, {.steps = steps, .hash_every = hash_every, .observe_every = 1}, observer);
  if (!got.ok()) return FailFromStatus(got.status());

  const size_t n = static_cast<size_t>(links_npy->shape[0]);
  int64_t links_differ = 0, first = -1;
  for (size_t k = 0; k < std::max(n, got->chain.size()); ++k) {
    bool same = k < n && k < got->chain.size() && got->chain[k].step == (*cp_steps)[k] &&
                std::memcmp(got->chain[k].link.data(), links->data() + 16 * k, 16) == 0;
    if (!same) {
      ++links_differ;
      if (first < 0) first = k < n ? (*cp_steps)[k] : got->chain[k].step;
    }
  }
  std::string detail = "golden '" + dir + "': D=" + std::to_string(dim) + ", " +
                       std::to_string(steps) + " steps, hash_every " + std::to_string(hash_every) +
                       ", " + std::to_string(n) + " golden links (" +
                       std::to_string(links_differ) + " differ), " +
                       std::to_string(steps + 1) + " golden states (" +
                       std::to_string(states_differ) + " differ)";
  if (first >= 0) detail += ", first differing checkpoint step " + std::to_string(first);
  if (links_differ == 0) detail += ", head link " + ToHex(got->chain.back().link);
  return Judge(static_cast<double>(links_differ + states_differ), 0, detail);
}

DASHI_CONFORMANCE_CASE("rollout.golden.pipeline_32", "rollout",
                       "golden chain links + golden states differing", 0.0, GoldenPipeline32);

// Subnormal arithmetic: D = 130 (chunks of 64, 64, 2), even indices "s", odd indices "n".
//   z0[s] ~ 2^-1040 (subnormal), z0[n] ~ 1e-160 (normal);
//   A[n][s] ~ 1e-160, so z[n]·A[n][s] ~ 1e-320: normal × normal = subnormal product;
//   A[s][s], A[n][n], A[s][n] ~ sqrt(3/65) (norm-preserving on average),
// so every state has subnormal components y[s] = Σ (subnormal products), and every chunk partial
// for j ∈ s sums subnormals. A device that flushes subnormals (inputs or results) fails.
CaseResult Subnormal(VulkanContext& ctx) {
  if (auto ns = RequireFloat64(ctx)) return *ns;
  const int64_t dim = 130;
  const uint64_t seed = 0x5AB0A11u;
  Xoshiro256ss rng(seed);
  auto u = [&] { return 2.0 * rng.NextDouble() - 1.0; };
  const double o1 = std::sqrt(3.0 / 65.0);
  std::vector<double> a(static_cast<size_t>(dim * dim));
  for (int64_t i = 0; i < dim; ++i) {
    for (int64_t j = 0; j < dim; ++j) {
      const bool n_row = (i % 2) == 1, s_col = (j % 2) == 0;
      a[i * dim + j] = u() * ((n_row && s_col) ? 1e-160 : o1);
    }
  }
  std::vector<double> z0(static_cast<size_t>(dim));
  for (int64_t i = 0; i < dim; ++i) z0[i] = u() * ((i % 2) == 0 ? std::ldexp(1.0, -1040) : 1e-160);
  const RolloutParams p{.steps = 24, .hash_every = 4, .observe_every = 1};

  int64_t subnormal_entries = 0, zero_entries = 0;
  CASE_ASSIGN(const KernelSweep sweep,
              SweepAgainstCoreRef(ctx, dim, a, z0, p, [&](std::span<const double> s) {
                for (double x : s) {
                  subnormal_entries += std::fpclassify(x) == FP_SUBNORMAL;
                  zero_entries += x == 0.0;
                }
              }));
  const vk::Float64Controls& fc = sweep.float_controls;
  std::string detail = "D=130, seed 0x5ab0a11, 24 steps, hash_every 4, fused, two-kernel and persistent "
                       "paths; reference states hold " +
                       std::to_string(subnormal_entries) + " subnormal and " +
                       std::to_string(zero_entries) + " zero entries; " + SweepDifferences(sweep);
  detail += "; device fp64 float controls: " + fc.ToString() +
            "; shaders: " + vk::FloatControlsVariantName(sweep.variant);
  if (!fc.denorm_preserve) {
    detail += " (the device does not guarantee fp64 subnormals: DenormPreserve unavailable)";
  }
  if (subnormal_entries == 0) return Fail(NAN, "test data produced no subnormals; " + detail);
  return Judge(static_cast<double>(sweep.links_differ + sweep.states_differ), 0, detail);
}

DASHI_CONFORMANCE_CASE("rollout.subnormal", "rollout",
                       "links + states differing from core_ref (subnormal range)", 0.0,
                       Subnormal);

// Signed zeros: z0 = ±0 (signs random), so every state is a vector of signed zeros, and the sign
// of y[j] depends on the contract's details: a product 0·a has the sign of z[i]·a, a chunk
// partial is −0 only if every product is −0 (the accumulator starts from the first product, not
// from +0), and the tree adds −0 + −0 = −0 but −0 + +0 = +0. Columns j ≡ 0 (mod 3) of A are all
// negative, j ≡ 1 all positive, the rest mixed, so −0 and +0 both persist.
CaseResult SignedZero(VulkanContext& ctx) {
  if (auto ns = RequireFloat64(ctx)) return *ns;
  const int64_t dim = 200;
  const uint64_t seed = 0x2E205u;
  Xoshiro256ss rng(seed);
  std::vector<double> a(static_cast<size_t>(dim * dim));
  for (int64_t i = 0; i < dim; ++i) {
    for (int64_t j = 0; j < dim; ++j) {
      const double m = 0.5 + 0.5 * rng.NextDouble();
      a[i * dim + j] = j % 3 == 0 ? -m : j % 3 == 1 ? m : (rng.Next() & 1 ? m : -m);
    }
  }
  std::vector<double> z0(static_cast<size_t>(dim));
  for (double& x : z0) x = (rng.Next() & 1) ? 0.0 : -0.0;
  const RolloutParams p{.steps = 12, .hash_every = 3, .observe_every = 1};
  int64_t negative_zeros = 0, positive_zeros = 0;
  CASE_ASSIGN(const KernelSweep sweep,
              SweepAgainstCoreRef(ctx, dim, a, z0, p, [&](std::span<const double> s) {
                for (double x : s) {
                  if (x == 0.0) (std::signbit(x) ? negative_zeros : positive_zeros) += 1;
                }
              }));
  std::string detail = "D=200, seed 0x2e205, 12 steps, hash_every 3, fused, two-kernel and persistent "
                       "paths; reference states hold " +
                       std::to_string(negative_zeros) + " -0 and " +
                       std::to_string(positive_zeros) + " +0 entries; " + SweepDifferences(sweep);
  detail += "; shaders: " + vk::FloatControlsVariantName(sweep.variant);
  if (negative_zeros == 0 || positive_zeros == 0) {
    return Fail(NAN, "test data did not produce both signed zeros; " + detail);
  }
  return Judge(static_cast<double>(sweep.links_differ + sweep.states_differ), 0, detail);
}

DASHI_CONFORMANCE_CASE("rollout.signed_zero", "rollout",
                       "links + states differing from core_ref (signed zeros)", 0.0, SignedZero);

CaseResult ObserverStates(VulkanContext& ctx) {
  if (auto ns = RequireFloat64(ctx)) return *ns;
  const int64_t dim = 150;
  const auto [a, z0] = Inputs(dim);
  const RolloutParams p{.steps = 17, .hash_every = 5, .observe_every = 3};
  std::vector<std::pair<int64_t, std::vector<double>>> want_seen, got_seen;
  StatusOr<RolloutResult> want = Rollout(z0, a, p, [&](int64_t t, std::span<const double> s) {
    want_seen.emplace_back(t, std::vector<double>(s.begin(), s.end()));
    return OkStatus();
  });
  if (!want.ok()) return FailFromStatus(want.status().WithPrefix("core_ref"));
  StatusOr<std::unique_ptr<VulkanRollout>> r = VulkanRollout::Create(ctx, dim, a);
  if (!r.ok()) return FailFromStatus(r.status());
  StatusOr<RolloutResult> got = (*r)->Run(z0, p, [&](int64_t t, std::span<const double> s) {
    got_seen.emplace_back(t, std::vector<double>(s.begin(), s.end()));
    return OkStatus();
  });
  if (!got.ok()) return FailFromStatus(got.status());
  int64_t differ = 0;
  std::string first;
  for (size_t k = 0; k < std::max(want_seen.size(), got_seen.size()); ++k) {
    const bool same = k < want_seen.size() && k < got_seen.size() &&
                      want_seen[k].first == got_seen[k].first &&
                      DifferingBits(want_seen[k].second, got_seen[k].second) == 0;
    if (!same) {
      ++differ;
      if (first.empty()) first = ", first difference at observation " + std::to_string(k);
    }
  }
  return Judge(static_cast<double>(differ), 0,
               "D=150, " + Seeds(dim) + ", 17 steps, observe_every 3: " +
                   std::to_string(want_seen.size()) + " observations (steps 0, 3, …, 15, 17)" +
                   first);
}

DASHI_CONFORMANCE_CASE("rollout.observer_states", "rollout",
                       "observed (step, state) pairs differing from core_ref", 0.0,
                       ObserverStates);

CaseResult GuardWords(VulkanContext& ctx) {
  if (auto ns = RequireFloat64(ctx)) return *ns;
  int64_t corrupted = 0;
  std::string detail =
      std::to_string(vk::kGuardBytes) +
      " guard bytes after each state and scratch buffer, after 9 steps at (D, workgroup) = "
      "(1, 64), (64, 256), (65, 64), (129, 256), (1000, 64), (1000, 256)";
  const std::pair<int64_t, uint32_t> configs[] = {{1, 64}, {64, 256}, {65, 64}, {129, 256},
                                                  {1000, 64}, {1000, 256}};
  detail += ", fused, two-kernel and persistent kernels";
  for (const RolloutKernel kernel : kKernels) {
    for (const auto& [dim, wg] : configs) {
      const auto [a, z0] = Inputs(dim);
      StatusOr<std::unique_ptr<VulkanRollout>> r =
          VulkanRollout::Create(ctx, dim, a, {.workgroup_size = wg, .kernel = kernel});
      if (!r.ok()) return FailFromStatus(r.status());
      StatusOr<RolloutResult> got = (*r)->Run(z0, {.steps = 9, .hash_every = 4});
      if (!got.ok()) return FailFromStatus(got.status());
      StatusOr<int64_t> bad = (*r)->CountCorruptedGuardWords();
      if (!bad.ok()) return FailFromStatus(bad.status());
      corrupted += *bad;
      if (*bad > 0) {
        detail += std::string(" [") + KernelDetail(**r) + " D=" +
                  std::to_string(dim) + " wg=" + std::to_string(wg) + ": " +
                  std::to_string(*bad) + " overwritten]";
      }
    }
  }
  return Judge(static_cast<double>(corrupted), 0, detail);
}

DASHI_CONFORMANCE_CASE("rollout.guard_words", "rollout", "guard words overwritten", 0.0,
                       GuardWords);

CaseResult RejectsNonFiniteInput(VulkanContext& ctx) {
  if (auto ns = RequireFloat64(ctx)) return *ns;
  const int64_t dim = 70;
  const auto [a, z0] = Inputs(dim);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const double inf = std::numeric_limits<double>::infinity();
  int64_t accepted = 0, tried = 0;
  std::string detail;
  auto expect_error = [&](const std::string& what, const Status& st) {
    ++tried;
    if (st.code() != StatusCode::kInvalidArgument) {
      ++accepted;
      detail += " [" + what + ": " + (st.ok() ? std::string("accepted") : st.ToString()) + "]";
    }
  };
  for (double bad : {nan, inf, -inf}) {
    std::vector<double> a_bad = a;
    a_bad[5 * dim + 66] = bad;
    expect_error("A[5][66] = " + std::to_string(bad),
                 VulkanRollout::Create(ctx, dim, a_bad).status());
  }
  StatusOr<std::unique_ptr<VulkanRollout>> r = VulkanRollout::Create(ctx, dim, a);
  if (!r.ok()) return FailFromStatus(r.status());
  for (double bad : {nan, inf, -inf}) {
    for (size_t index : {size_t{0}, size_t{64}, size_t{69}}) {
      std::vector<double> z_bad = z0;
      z_bad[index] = bad;
      expect_error("z0[" + std::to_string(index) + "] = " + std::to_string(bad),
                   (*r)->Run(z_bad, {.steps = 3}).status());
    }
  }
  return Judge(static_cast<double>(accepted), 0,
               std::to_string(tried) + " non-finite inputs (NaN, +Inf, -Inf in A and z0), " +
                   "each must be INVALID_ARGUMENT" + detail);
}

DASHI_CONFORMANCE_CASE("rollout.rejects_nonfinite_input", "rollout",
                       "non-finite inputs not rejected with INVALID_ARGUMENT", 0.0,
                       RejectsNonFiniteInput);

CaseResult NonFiniteStateError(VulkanContext& ctx) {
  if (auto ns = RequireFloat64(ctx)) return *ns;
  const int64_t dim = 90;
  auto [a, z0] = Inputs(dim);
  for (double& x : a) x *= 1e25;  // the state overflows after a dozen steps
  const RolloutParams p{.steps = 60, .hash_every = 25};
  const Status want = Rollout(z0, a, p).status();
  if (want.code() != StatusCode::kOutOfRange) {
    return Fail(NAN, "core_ref did not blow up as designed: " + want.ToString());
  }
  StatusOr<std::unique_ptr<VulkanRollout>> r = VulkanRollout::Create(ctx, dim, a);
  if (!r.ok()) return FailFromStatus(r.status());
  const Status got = (*r)->Run(z0, p).status();
  const bool same = got == want;
  return Judge(same ? 0.0 : 1.0, 0,
               "A = 1e25 x stable, 60 steps, hash_every 25; core_ref: " + want.ToString() +
                   (same ? "; device: identical" : "; device: " + got.ToString()));
}

DASHI_CONFORMANCE_CASE("rollout.nonfinite_state_error", "rollout",
                       "error status differs from core_ref's (0 = identical)", 0.0,
                       NonFiniteStateError);

}  // namespace
}  // namespace dashi::conformance
