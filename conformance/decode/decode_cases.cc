// Conformance cases of the device decoder (accel_vulkan/decode) against core_ref's Decoder
// (docs/MATH.md §11, tolerances in docs/CONFORMANCE.md):
//   decode.prng.counter_hash_bit_exact   the shaders' CounterHash / CounterUniform bit for bit
//                                        (negative kx, ky, large seeds and t); guard words.
//   decode.trig.sincospi_bit_exact       the residual phases' sin(πx), cos(πx) bit for bit.
//   decode.fp64.n<N>.{omega_lp,omega_resid,omega}   MAE / max|ω_ref| ≤ 1e-12
//   decode.fp64.n<N>.mask_hamming        cells where the device mask s* differs: 0
//   decode.fp64.n<N>.closure_depth       |depth_gpu − depth_ref| (+ level-count mismatch): 0
//   decode.fp32.n<N>.{omega_lp,omega_resid,omega}  fp32 inverse FFTs: MAE / max|ω_ref| ≤ 1e-6
//   decode.fp32.n<N>.mask_hamming        share of cells where the fp32 path's mask differs ≤ 1e-3
//   decode.golden.n128.{omega,mask_hamming}  golden/decode_128_*.npy (Decode of
//                                        proxy_128_z[2], t = 2, default DecodeParams)
//   decode.observer.{none,metrics}       what each observer mode reads back
// N ∈ {32, 64, 128}: proxy specs and z from the encoder on LES initial fields (128 is the
// design's sanity size). Every decode run also checks the decoder's guard words (after every buffer its
// shaders and FFTs write) and fails on any NaN in a device output. One device decode per
// (N, precision) serves all that run's cases: the results (host data only, never device objects)
// are cached per context.
#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <numbers>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "accel_vulkan/decode/vulkan_decoder.h"
#include "accel_vulkan/device_caps/device_caps.h"
#include "conformance/framework/conformance_case.h"
#include "conformance/framework/golden_input.h"
#include "core_ref/decode/decoder.h"
#include "core_ref/les/les_solver.h"
#include "core_ref/math/sincospi.h"
#include "core_ref/npy/npy.h"
#include "core_ref/prng/prng.h"
#include "core_ref/proxy/proxy_encoder.h"
#include "shaders/decode/decode_params.h"

namespace dashi::conformance {
namespace {

using vk::ObserverMode;
using vk::Precision;
using vk::VulkanDecoder;

constexpr double kFp64Tol = 1e-12;
constexpr double kFp32Tol = 1e-6;
// The fp32 low-pass moves cells whose normalised value is within fp32 rounding of ±τ (or whose
// closure neighbourhood contains one): at most 0.1 % of the grid (measured: 0 on lavapipe).
constexpr double kFp32MaskTol = 1e-3;

std::string Hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%016llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", v);
  return buf;
}

// ---- measures -----------------------------------------------------------------------------------

struct Measured {
  double value = NAN;
  std::string detail;
};

// mean |gpu − ref| / max |ref|; NaN (a FAIL) for a size mismatch or any non-finite device value.
Measured MaeOverMax(const std::vector<double>& gpu, const std::vector<double>& ref) {
  if (gpu.size() != ref.size()) {
    return {NAN, "device output has " + std::to_string(gpu.size()) + " values, reference " +
                     std::to_string(ref.size())};
  }
  double sum = 0, max_ref = 0, max_err = 0;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (!std::isfinite(gpu[i])) {
      return {NAN, "device value " + std::to_string(i) + " is not finite (" + Num(gpu[i]) + ")"};
    }
    const double e = std::fabs(gpu[i] - ref[i]);
    sum += e;
    max_err = std::max(max_err, e);
    max_ref = std::max(max_ref, std::fabs(ref[i]));
  }
  if (max_ref == 0) return {sum == 0 ? 0.0 : NAN, "reference is all zero"};
  return {sum / static_cast<double>(ref.size()) / max_ref,
          "max|ref| " + Num(max_ref) + ", max abs err " + Num(max_err) + " (" +
              Num(max_err / max_ref) + " of max)"};
}

Measured Hamming(const Carrier& gpu, std::span<const int8_t> ref, GridShape shape) {
  if (!(gpu.shape() == shape) || static_cast<int64_t>(ref.size()) != shape.size()) {
    return {NAN,
            "device mask has shape " + ToString(gpu.shape()) + ", reference " + ToString(shape)};
  }
  int64_t diff = 0, first = -1;
  for (size_t k = 0; k < ref.size(); ++k) {
    if (gpu.values()[k] != ref[k]) {
      ++diff;
      if (first < 0) first = static_cast<int64_t>(k);
    }
  }
  std::string d = std::to_string(gpu.SupportCount()) + " active cells on the device";
  if (first >= 0) {
    d += "; first difference at cell " + std::to_string(first) + " (row " +
         std::to_string(first / shape.cols) + ", col " + std::to_string(first % shape.cols) +
         "): gpu " + std::to_string(gpu.values()[first]) + " ref " + std::to_string(ref[first]);
  }
  return {static_cast<double>(diff), d};
}

// ---- inputs -------------------------------------------------------------------------------------

struct DecodeInput {
  std::string tag;  // printed in every detail
  ProxySpec spec;
  std::vector<double> z;
  uint64_t t = 0;
  DecodeParams params;
};

// The encoder's z of an LES initial field (band-limited random phases, seed `les_seed`).
// k_peak is chosen so that the spectrum (cut at min(3·k_peak, N/3)) reaches past k_mid: both
// residual bands then carry energy.
StatusOr<DecodeInput> LesInput(int64_t n, int k_lo, int k_mid, int anchors, int k_peak,
                               uint64_t les_seed, uint64_t t, uint64_t phase_seed) {
  LesParams p;
  p.n = n;
  p.seed = les_seed;
  p.k_peak = k_peak;
  DASHI_ASSIGN_OR_RETURN(LesSolver les, LesSolver::Create(p));
  const std::vector<double> omega = les.Vorticity();
  DecodeInput in;
  DASHI_ASSIGN_OR_RETURN(in.spec, MakeProxySpec(n, k_lo, k_mid, anchors, omega));
  DASHI_ASSIGN_OR_RETURN(in.z, Encode(in.spec, omega));
  in.t = t;
  in.params.seed = phase_seed;
  in.tag = "N=" + std::to_string(n) + " k_lo=" + std::to_string(k_lo) +
           " k_mid=" + std::to_string(k_mid) + " anchors=" + std::to_string(anchors) +
           " (LES seed " + std::to_string(les_seed) + ", k_peak " + std::to_string(k_peak) +
           "), D=" + std::to_string(in.spec.dim()) + ", phase seed " + Hex(phase_seed) +
           ", t=" + std::to_string(t);
  return in;
}


// golden/proxy_128_*: ProxySpecFromAnchors(128, 12, 24, anchors), z = proxy_128_z[2], t = 2.
StatusOr<DecodeInput> GoldenInput() {
  DASHI_ASSIGN_OR_RETURN(NpyArray anchors_npy, ReadGolden("proxy_128_anchors", {32, 2}));
  DASHI_ASSIGN_OR_RETURN(std::vector<int64_t> a, anchors_npy.As<int64_t>());
  std::vector<Mode> anchors;
  for (size_t i = 0; i + 1 < a.size(); i += 2) anchors.push_back({a[i], a[i + 1]});
  DecodeInput in;
  DASHI_ASSIGN_OR_RETURN(in.spec, ProxySpecFromAnchors(128, 12, 24, anchors));
  DASHI_ASSIGN_OR_RETURN(NpyArray z_npy, ReadGolden("proxy_128_z", {3, in.spec.dim()}));
  DASHI_ASSIGN_OR_RETURN(std::vector<double> z, z_npy.As<double>());
  in.z.assign(z.begin() + 2 * in.spec.dim(), z.begin() + 3 * in.spec.dim());
  in.t = 2;
  in.tag = "golden proxy_128_z[2], t=2, default DecodeParams, dir " + GoldenDir();
  return in;
}

// ---- one device decode per (context, input, precision), cached ----------------------------------

struct DecodeRun {
  Status status;  // creating or running the decoder failed: every case of the run FAILs
  std::string tag;
  std::optional<DecodedFrame> ref;  // core_ref
  std::optional<DecodedFrame> gpu;  // snapshots
  Status guards;
  vk::VulkanDecodeReport report;
  // Observer modes (when asked for): the frames and the decoder's readback byte counts.
  std::optional<DecodedFrame> none, metrics;
  uint64_t none_bytes = 0, metrics_bytes = 0;
};

std::shared_ptr<DecodeRun> Execute(vk::VulkanContext& ctx, const StatusOr<DecodeInput>& input,
                                   Precision precision, bool observer_modes) {
  auto run = std::make_shared<DecodeRun>();
  if (!input.ok()) {
    run->status = input.status();
    return run;
  }
  const DecodeInput& in = *input;
  run->tag = in.tag + ", " + vk::PrecisionName(precision);
  auto fail = [&](const Status& s) {
    run->status = s;
    return run;
  };
  StatusOr<Decoder> ref_dec = Decoder::Create(in.spec, in.params);
  if (!ref_dec.ok()) return fail(ref_dec.status());
  StatusOr<DecodedFrame> ref = ref_dec->Decode(in.z, in.t);
  if (!ref.ok()) return fail(ref.status());
  run->ref = std::move(ref).value();
  StatusOr<std::unique_ptr<VulkanDecoder>> dec =
      VulkanDecoder::Create(ctx, in.spec, in.params, precision);
  if (!dec.ok()) return fail(dec.status());
  StatusOr<DecodedFrame> gpu = (*dec)->Decode(in.z, in.t, ObserverMode::kSnapshots);
  if (!gpu.ok()) return fail(gpu.status());
  run->gpu = std::move(gpu).value();
  run->report = (*dec)->last_report();
  if (observer_modes) {
    StatusOr<DecodedFrame> none = (*dec)->Decode(in.z, in.t, ObserverMode::kNone);
    if (!none.ok()) return fail(none.status());
    run->none = std::move(none).value();
    run->none_bytes = (*dec)->last_report().readback_bytes;
    StatusOr<DecodedFrame> metrics = (*dec)->Decode(in.z, in.t, ObserverMode::kMetrics);
    if (!metrics.ok()) return fail(metrics.status());
    run->metrics = std::move(metrics).value();
    run->metrics_bytes = (*dec)->last_report().readback_bytes;
  }
  run->guards = (*dec)->CheckGuards();
  return run;
}

enum class Input { kN32, kN64, kN128, kGolden };

StatusOr<DecodeInput> MakeInput(Input which) {
  switch (which) {
    case Input::kN32: return LesInput(32, 4, 8, 6, 4, 5, 3, 1);
    case Input::kN64: return LesInput(64, 8, 16, 16, 6, 6, 123456789012ull, 0xFEDCBA9876543210ull);
    case Input::kN128: return LesInput(128, 12, 24, 32, 10, 9, 2, 1);
    case Input::kGolden: return GoldenInput();
  }
  return InvalidArgumentError("unknown decode input");
}

// The cache is keyed by the context's address and its VkDevice handle, and holds host results
// only, so nothing outlives the context.
std::shared_ptr<DecodeRun> GetRun(vk::VulkanContext& ctx, Input which, Precision precision) {
  static std::mutex mu;
  static auto* cache =
      new std::map<std::tuple<const void*, VkDevice, int, int>, std::shared_ptr<DecodeRun>>();
  const auto key = std::make_tuple(static_cast<const void*>(&ctx), ctx.device(),
                                   static_cast<int>(which), static_cast<int>(precision));
  std::lock_guard<std::mutex> lock(mu);
  auto it = cache->find(key);
  if (it != cache->end()) return it->second;
  std::shared_ptr<DecodeRun> run =
      Execute(ctx, MakeInput(which), precision,
              /*observer_modes=*/which == Input::kN32 && precision == Precision::kFp64);
  (*cache)[key] = run;
  return run;
}

// A run's preconditions: decoded, guards intact.
std::optional<CaseResult> RunProblem(const DecodeRun& run) {
  if (!run.status.ok()) return FailFromStatus(run.status);
  if (!run.guards.ok()) return Fail(NAN, run.tag + ": " + run.guards.ToString());
  return std::nullopt;
}

enum class Field { kLp, kResid, kOmega };

CaseResult JudgeField(vk::VulkanContext& ctx, Input which, Precision precision, Field field,
                      double tolerance) {
  const std::shared_ptr<DecodeRun> run = GetRun(ctx, which, precision);
  if (auto problem = RunProblem(*run)) return *problem;
  const std::vector<double>* gpu = nullptr;
  const std::vector<double>* ref = nullptr;
  switch (field) {
    case Field::kLp:
      gpu = &run->gpu->omega_lp;
      ref = &run->ref->omega_lp;
      break;
    case Field::kResid:
      gpu = &run->gpu->omega_resid;
      ref = &run->ref->omega_resid;
      break;
    case Field::kOmega:
      gpu = &run->gpu->omega;
      ref = &run->ref->omega;
      break;
  }
  const Measured m = MaeOverMax(*gpu, *ref);
  const auto& s = run->report.stages;
  return Judge(m.value, tolerance,
               run->tag + "; " + m.detail + "; device ms: scatter " + Num(s.scatter_lowk_ms) +
                   ", ifft_lp " + Num(s.ifft_lp_ms) + ", mask " + Num(s.mask_ms) + ", synth " +
                   Num(s.synth_ms) + ", ifft_resid " + Num(s.ifft_resid_ms) + ", combine " +
                   Num(s.combine_ms) + ", readback " + Num(run->report.readback_ms));
}

CaseResult JudgeMask(vk::VulkanContext& ctx, Input which, Precision precision = Precision::kFp64,
                     double tolerance = 0) {
  const std::shared_ptr<DecodeRun> run = GetRun(ctx, which, precision);
  if (auto problem = RunProblem(*run)) return *problem;
  const Carrier& ref = run->ref->closure.fixed_point;
  Measured m = Hamming(run->gpu->closure.fixed_point, ref.values(), ref.shape());
  if (tolerance > 0) {  // fp32: the share of the grid's cells, so one tolerance serves every N
    m.value /= static_cast<double>(ref.size());
    m.detail += " (share of " + std::to_string(ref.size()) + " cells)";
  }
  return Judge(m.value, tolerance, run->tag + "; " + m.detail);
}

CaseResult JudgeDepth(vk::VulkanContext& ctx, Input which) {
  const std::shared_ptr<DecodeRun> run = GetRun(ctx, which, Precision::kFp64);
  if (auto problem = RunProblem(*run)) return *problem;
  const ClosureResult& g = run->gpu->closure;
  const ClosureResult& r = run->ref->closure;
  double measured = std::fabs(static_cast<double>(g.depth - r.depth));
  std::string detail = run->tag + "; depth gpu " + std::to_string(g.depth) + " ref " +
                       std::to_string(r.depth) + (g.reached_fixed_point ? "" : " (cap hit)");
  if (g.levels.size() != r.levels.size()) {
    measured += 1;
    detail += "; level count gpu " + std::to_string(g.levels.size()) + " ref " +
              std::to_string(r.levels.size());
  } else {
    for (size_t l = 0; l < g.levels.size(); ++l) {
      if (g.levels[l].active_cells != r.levels[l].active_cells) {
        measured += 1;
        detail += "; level " + std::to_string(l) + " active cells gpu " +
                  std::to_string(g.levels[l].active_cells) + " ref " +
                  std::to_string(r.levels[l].active_cells);
      }
    }
  }
  if (g.reached_fixed_point != r.reached_fixed_point) {
    measured += 1;
    detail += "; reached_fixed_point differs";
  }
  return Judge(measured, 0, detail);
}

// ---- the cases ----------------------------------------------------------------------------------

// The per-size cases, registered in a loop (one decode per size and precision serves them all).
bool RegisterSizeCases() {
  const std::pair<const char*, Input> sizes[] = {
      {"32", Input::kN32}, {"64", Input::kN64}, {"128", Input::kN128}};
  for (const auto& [n, in] : sizes) {
    const std::string p64 = std::string("decode.fp64.n") + n + ".";
    const Input which = in;
    RegisterCase({p64 + "omega_lp", "decode.fp64", "mean|gpu - ref| / max|ref| of omega_lp",
                  kFp64Tol, [which](vk::VulkanContext& ctx) {
                    return JudgeField(ctx, which, Precision::kFp64, Field::kLp, kFp64Tol);
                  }});
    RegisterCase({p64 + "omega_resid", "decode.fp64",
                  "mean|gpu - ref| / max|ref| of omega_resid (shared PRNG)", kFp64Tol,
                  [which](vk::VulkanContext& ctx) {
                    return JudgeField(ctx, which, Precision::kFp64, Field::kResid, kFp64Tol);
                  }});
    RegisterCase({p64 + "omega", "decode.fp64", "mean|gpu - ref| / max|ref| of omega", kFp64Tol,
                  [which](vk::VulkanContext& ctx) {
                    return JudgeField(ctx, which, Precision::kFp64, Field::kOmega, kFp64Tol);
                  }});
    RegisterCase({p64 + "mask_hamming", "decode.fp64",
                  "cells where the device mask s* differs from core_ref's", 0.0,
                  [which](vk::VulkanContext& ctx) { return JudgeMask(ctx, which); }});
    RegisterCase({p64 + "closure_depth", "decode.fp64",
                  "|depth gpu - ref| + mismatching level counts", 0.0,
                  [which](vk::VulkanContext& ctx) { return JudgeDepth(ctx, which); }});
    const std::string p32 = std::string("decode.fp32.n") + n + ".";
    RegisterCase({p32 + "omega_lp", "decode.fp32",
                  "mean|gpu - ref| / max|ref| of omega_lp (fp32 inverse FFTs)", kFp32Tol,
                  [which](vk::VulkanContext& ctx) {
                    return JudgeField(ctx, which, Precision::kFp32, Field::kLp, kFp32Tol);
                  }});
    RegisterCase({p32 + "omega_resid", "decode.fp32",
                  "mean|gpu - ref| / max|ref| of omega_resid (fp32 inverse FFTs)", kFp32Tol,
                  [which](vk::VulkanContext& ctx) {
                    return JudgeField(ctx, which, Precision::kFp32, Field::kResid, kFp32Tol);
                  }});
    RegisterCase({p32 + "omega", "decode.fp32",
                  "mean|gpu - ref| / max|ref| of omega (fp32 inverse FFTs)", kFp32Tol,
                  [which](vk::VulkanContext& ctx) {
                    return JudgeField(ctx, which, Precision::kFp32, Field::kOmega, kFp32Tol);
                  }});
    RegisterCase({p32 + "mask_hamming", "decode.fp32",
                  "share of cells where the device mask s* (cut from the fp32 omega_lp) differs",
                  kFp32MaskTol, [which](vk::VulkanContext& ctx) {
                    return JudgeMask(ctx, which, Precision::kFp32, kFp32MaskTol);
                  }});
  }
  return true;
}
const bool kSizeCasesRegistered = RegisterSizeCases();

// Golden: the checked-in decode of proxy_128_z[2].
DASHI_CONFORMANCE_CASE("decode.golden.n128.omega", "decode.fp64",
                       "mean|gpu - golden| / max|golden| of omega (golden/decode_128_omega.npy)",
                       kFp64Tol, ([](vk::VulkanContext& ctx) -> CaseResult {
                         const std::shared_ptr<DecodeRun> run =
                             GetRun(ctx, Input::kGolden, Precision::kFp64);
                         if (auto problem = RunProblem(*run)) return *problem;
                         CASE_ASSIGN(NpyArray g, ReadGolden("decode_128_omega", {128, 128}));
                         CASE_ASSIGN(std::vector<double> golden, g.As<double>());
                         const Measured m = MaeOverMax(run->gpu->omega, golden);
                         return Judge(m.value, kFp64Tol, run->tag + "; " + m.detail);
                       }));

DASHI_CONFORMANCE_CASE(
    "decode.golden.n128.mask_hamming", "decode.fp64",
    "cells where the device mask differs from golden/decode_128_mask.npy", 0.0,
    ([](vk::VulkanContext& ctx) -> CaseResult {
      const std::shared_ptr<DecodeRun> run = GetRun(ctx, Input::kGolden, Precision::kFp64);
      if (auto problem = RunProblem(*run)) return *problem;
      CASE_ASSIGN(NpyArray g, ReadGolden("decode_128_mask", {128, 128}));
      CASE_ASSIGN(std::vector<int8_t> golden, g.As<int8_t>());
      const Measured m = Hamming(run->gpu->closure.fixed_point, golden, {128, 128});
      return Judge(m.value, 0, run->tag + "; " + m.detail);
    }));

// Observer modes: `none` reads back nothing, `metrics` only the closure statistics (equal to the
// snapshot run's).
DASHI_CONFORMANCE_CASE("decode.observer.none", "decode.observer",
                       "bytes read back + non-empty DecodedFrame fields in mode none", 0.0,
                       ([](vk::VulkanContext& ctx) -> CaseResult {
                         const std::shared_ptr<DecodeRun> run =
                             GetRun(ctx, Input::kN32, Precision::kFp64);
                         if (auto problem = RunProblem(*run)) return *problem;
                         const DecodedFrame& f = *run->none;
                         const double nonempty =
                             (f.omega.empty() ? 0 : 1) + (f.omega_lp.empty() ? 0 : 1) +
                             (f.omega_resid.empty() ? 0 : 1) + (f.closure.levels.empty() ? 0 : 1) +
                             (f.closure.fixed_point.size() > 1 ? 1 : 0);
                         return Judge(static_cast<double>(run->none_bytes) + nonempty, 0,
                                      run->tag + "; readback bytes " +
                                          std::to_string(run->none_bytes) + ", non-empty fields " +
                                          Num(nonempty));
                       }));

DASHI_CONFORMANCE_CASE(
    "decode.observer.metrics", "decode.observer",
    "bytes read back + non-empty field vectors + stats differing from snapshots, mode metrics", 0.0,
    ([](vk::VulkanContext& ctx) -> CaseResult {
      const std::shared_ptr<DecodeRun> run = GetRun(ctx, Input::kN32, Precision::kFp64);
      if (auto problem = RunProblem(*run)) return *problem;
      const DecodedFrame& f = *run->metrics;
      const ClosureResult& s = run->gpu->closure;
      double bad = (f.omega.empty() ? 0 : 1) + (f.omega_lp.empty() ? 0 : 1) +
                   (f.omega_resid.empty() ? 0 : 1) + (f.closure.fixed_point.size() > 1 ? 1 : 0);
      bad += f.closure.depth != s.depth ? 1 : 0;
      bad += f.closure.reached_fixed_point != s.reached_fixed_point ? 1 : 0;
      bad += f.closure.levels.size() != s.levels.size() ? 1 : 0;
      for (size_t l = 0; l < std::min(f.closure.levels.size(), s.levels.size()); ++l) {
        bad += f.closure.levels[l].active_cells != s.levels[l].active_cells ? 1 : 0;
        bad += f.closure.levels[l].mean_abs_field != s.levels[l].mean_abs_field ? 1 : 0;
      }
      return Judge(static_cast<double>(run->metrics_bytes) + bad, 0,
                   run->tag + "; readback bytes " + std::to_string(run->metrics_bytes) +
                       ", depth " + std::to_string(f.closure.depth) + ", levels " +
                       std::to_string(f.closure.levels.size()) + ", problems " + Num(bad));
    }));

// ---- PRNG and trigonometry probes ---------------------------------------------------------------

DASHI_CONFORMANCE_CASE(
    "decode.prng.counter_hash_bit_exact", "decode.prng",
    "mismatching words (CounterHash and CounterUniform bits) + damaged guard words", 0.0,
    ([](vk::VulkanContext& ctx) -> CaseResult {
      std::vector<vk::CounterKey> keys;
      const uint64_t seeds[] = {0, 1, 42, 0x9E3779B97F4A7C15ull, (1ull << 63) + 5, ~0ull};
      const uint64_t ts[] = {0, 1, 7, (1ull << 40) + 3, ~0ull};
      const int64_t ks[] = {0,
                            1,
                            -1,
                            5,
                            -3,
                            42,
                            -42,
                            INT32_MAX,
                            INT32_MIN,
                            std::numeric_limits<int64_t>::max(),
                            std::numeric_limits<int64_t>::min()};
      const uint64_t streams[] = {0, 1, 1ull << 63};
      for (uint64_t seed : seeds) {
        for (uint64_t t : ts) {
          for (int64_t kx : ks) {
            for (int64_t ky : ks) keys.push_back({seed, t, kx, ky, streams[(kx ^ ky) & 1]});
          }
        }
      }
      Xoshiro256ss rng(20261122);
      for (int i = 0; i < 4000; ++i) {
        const int64_t kx = static_cast<int64_t>(rng.NextBelow(1025)) - 512;
        const int64_t ky = static_cast<int64_t>(rng.NextBelow(1025)) - 512;
        keys.push_back({rng.Next(), rng.Next(), kx, ky, streams[rng.NextBelow(3)]});
      }
      keys.push_back({42, 7, -3, 5, 1});  // MATH §3's known answer 0.23381237748016648
      const uint32_t count = static_cast<uint32_t>(keys.size());
      CASE_ASSIGN(vk::DecodeProbeResult probe,
                  vk::RunDecodeProbe(ctx, vk::DecodeProbe::kCounterHash,
                                     std::as_bytes(std::span(keys)), count));
      const int64_t damaged = probe.damaged_guard_words;
      std::vector<uint64_t> words(2 * size_t{count});
      std::memcpy(words.data(), probe.output.data(), probe.output.size());
      int64_t mismatches = 0;
      std::string first;
      for (uint32_t i = 0; i < count; ++i) {
        const vk::CounterKey& k = keys[i];
        const uint64_t h = CounterHash(k.seed, k.t, k.kx, k.ky, k.stream);
        const double u = CounterUniform(k.seed, k.t, k.kx, k.ky, k.stream);
        uint64_t ubits;
        std::memcpy(&ubits, &u, 8);
        for (int w = 0; w < 2; ++w) {
          const uint64_t want = w == 0 ? h : ubits;
          if (words[2 * i + w] != want) {
            if (mismatches++ == 0) {
              first = "; first mismatch key (seed " + Hex(k.seed) + ", t " + Hex(k.t) + ", kx " +
                      std::to_string(k.kx) + ", ky " + std::to_string(k.ky) + ", stream " +
                      Hex(k.stream) + ") " + (w == 0 ? "hash" : "uniform") + " gpu " +
                      Hex(words[2 * i + w]) + " ref " + Hex(want);
            }
          }
        }
      }
      return Judge(static_cast<double>(mismatches + damaged), 0,
                   std::to_string(count) + " keys; " + std::to_string(damaged) +
                       " damaged guard words" + first);
    }));

DASHI_CONFORMANCE_CASE(
    "decode.trig.sincospi_bit_exact", "decode.fp64",
    "arguments whose device sin(pi x) or cos(pi x) bits differ from core_ref's SinCosPi", 0.0,
    ([](vk::VulkanContext& ctx) -> CaseResult {
      // The residual phases' arguments 2u, u uniform in [0, 1) (53-bit grid), and the places a
      // reduction or a rounding decision goes wrong: multiples of 1/4 and 1/64 and their
      // neighbours, tiny, huge (>= 2^52: integers), negative and signed-zero arguments.
      std::vector<double> x;
      Xoshiro256ss rng(7);
      for (int i = 0; i < 20000; ++i) x.push_back(2.0 * rng.NextDouble());
      for (int k = -8; k <= 136; ++k) {
        double up = k / 64.0, down = up;
        for (int s = 0; s < 6; ++s) {
          x.push_back(up);
          x.push_back(down);
          up = std::nextafter(up, 1e300);
          down = std::nextafter(down, -1e300);
        }
      }
      for (double v : {0.0, -0.0, 1e-300, -1e-300, 4.9e-324, 1e-9, 0.25, 0.5, 0.75, 1.0, 1.5, 3.0,
                       -2.5, 1e5 + 0.25, 0x1p52, 0x1p52 + 1, 0x1p53, 0x1p53 + 2, 1e300, -0x1p60}) {
        x.push_back(v);
      }
      const uint32_t count = static_cast<uint32_t>(x.size());
      CASE_ASSIGN(vk::DecodeProbeResult probe,
                  vk::RunDecodeProbe(ctx, vk::DecodeProbe::kSinCosPi,
                                     std::as_bytes(std::span(x)), count));
      if (probe.damaged_guard_words != 0) {
        return Fail(NAN, std::to_string(probe.damaged_guard_words) + " damaged guard words");
      }
      std::vector<double> sc(2 * size_t{count});
      std::memcpy(sc.data(), probe.output.data(), probe.output.size());
      int64_t differ = 0, sin_differ = 0, cos_differ = 0, max_ulps = 0;
      std::string first;
      const auto ulps = [](double a, double b) {
        const int64_t ia = std::bit_cast<int64_t>(a), ib = std::bit_cast<int64_t>(b);
        return ia > ib ? ia - ib : ib - ia;  // same sign in practice; a sign flip is huge
      };
      for (uint32_t i = 0; i < count; ++i) {
        const SinCos want = SinCosPi(x[i]);
        const bool s_ok = std::bit_cast<uint64_t>(sc[2 * i]) == std::bit_cast<uint64_t>(want.sin);
        const bool c_ok =
            std::bit_cast<uint64_t>(sc[2 * i + 1]) == std::bit_cast<uint64_t>(want.cos);
        sin_differ += !s_ok;
        cos_differ += !c_ok;
        max_ulps = std::max({max_ulps, ulps(sc[2 * i], want.sin), ulps(sc[2 * i + 1], want.cos)});
        if ((!s_ok || !c_ok) && differ++ < 3) {
          char buf[200];
          std::snprintf(buf, sizeof buf, "; x = %a: device (%a, %a), core_ref (%a, %a)", x[i],
                        sc[2 * i], sc[2 * i + 1], want.sin, want.cos);
          first += buf;
        }
      }
      if (differ > 0) {
        first = " (" + std::to_string(sin_differ) + " sin, " + std::to_string(cos_differ) +
                " cos, at most " + std::to_string(max_ulps) + " ulp)" + first;
      }
      // The probe runs in the device's supported float-controls variant, as the decoder's
      // synth_residual does: without it the H100 returned 36 of these 1 ulp off (docs/MATH.md §5).
      const uint32_t variant = vk::SupportedFloatControlsVariant(vk::QueryFloat64Controls(ctx));
      return Judge(static_cast<double>(differ), 0,
                   std::to_string(count) + " arguments (shaders " +
                       vk::FloatControlsVariantName(variant) + ")" + first);
    }));

}  // namespace
}  // namespace dashi::conformance
