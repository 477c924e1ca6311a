// Times the device decoder (VulkanDecoder) per snapshot and per stage.
//
//   bazel run -c opt //bench/vulkan:decode_vulkan_benchmark -- [--reps 50] [--warmup 5]
//       [--warmup-seconds 1]
//       [--sizes 128,1024] [--device SELECTOR] [--validation] [--modes] [--json out.json]
//       [--closure-plan auto|multi|strips|both|all] [--timed-mode snapshots|metrics]
//       [--readback-reps 20] [--eta 3] [--cap 64]
//
// For each N (default 128 and 1024) and precision (fp64, fp32): a proxy spec with k_lo = 12,
// k_mid = 24, 32 anchors (MakeProxySpec on an LES initial field, seed 1), and a random non-zero z
// (Xoshiro256** seed 1: coefficients uniform in ±[0.5, 1), band scalars in [0.5, 1)). After
// --warmup decodes (and at least --warmup-seconds of them, default 1 s), --reps decodes in mode `snapshots` (t = rep, so the phases change), each
// timed: the wall-clock time of the whole Decode call (per snapshot, readback into host vectors
// included), the device time of the snapshot (first timestamp to last: every stage is recorded
// into one command buffer, one submission unless the closure runs past the steps recorded) and
// every stage's device time from its timestamps (scatter_lowk — on the device the one dispatch
// that writes both spectra, so synth is 0 —, ifft_lp, ifft_resid, the mask and its parts smooth /
// normalise (with the threshold: threshold is 0) / closure, combine, readback), with the
// closure steps recorded and run and the submissions per decode. "per snapshot" decodes with
// DecodeInto into one reused DecodedFrame (an observer's steady state); "with a new frame" uses
// Decode, which allocates the frame's vectors every call. Medians (and minima) are reported. --modes also times modes `none` and
// `metrics` per decode, host and device (no field readback copy in either). Decoder creation (VkFFT plan compilation) is reported separately and not
// counted. Unless --no-check, the first decode of each row is compared with core_ref's Decoder
// (MAE / max|ω_ref| of ω_lp, ω_resid, ω and the mask's Hamming distance) and the guard words are
// checked: a fast wrong answer is reported as such (exit status 3). --closure-plan picks the
// mask closure's path (VulkanDecoder::Options::closure_plan): `auto` (the default: one
// shared-memory dispatch where the grid fits, else the multi-dispatch steps), `multi` (always the
// multi-dispatch steps, the path before the one-dispatch closure) or `both` (each row twice, multi
// first), the path taken and its dispatch count printed with each row; `strips` forces the
// strip-tiled steps where they apply, `all` runs multi, strips and auto.
//
// --timed-mode metrics (for grids whose snapshot readback is large, N >= 512): the warm-up and
// the timed reps decode in mode `metrics` back to back — no full-field readback, so the GPU is
// not left idle while the host copies 8 MB (N = 1024) and its clock stays up — and the fields'
// readback copy is timed apart afterwards, over --readback-reps decodes in mode `snapshots`
// (reported as "readback copy (snapshots)"; its device time is the copy of ω, ω_lp, ω_resid and
// s* into host-visible memory). The "with a new frame" line is not measured in this mode.
// --eta / --cap set the mask closure's majority margin η and iteration cap (DecodeParams, default
// 3 and 64) for the device and the core_ref check alike: the benchmark field's closure converges
// after one step with the defaults; η = 7 erodes its blobs ring by ring, so the closure runs to
// the cap (cap + 1 steps) and its per-step cost shows.
#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "accel_vulkan/context.h"
#include "accel_vulkan/decode/vulkan_decoder.h"
#include "core_ref/decode/decoder.h"
#include "core_ref/les/les_solver.h"
#include "core_ref/prng/prng.h"
#include "core_ref/proxy/proxy_encoder.h"

namespace {

using dashi::vk::ObserverMode;
using dashi::vk::Precision;
using Clock = std::chrono::steady_clock;

struct Stats {
  double median = 0, min = 0;
};

Stats Summarise(std::vector<double> v) {
  if (v.empty()) return {};
  std::sort(v.begin(), v.end());
  return {v[v.size() / 2], v[0]};
}

std::vector<int> ParseSizes(const std::string& s) {
  std::vector<int> out;
  size_t pos = 0;
  while (pos < s.size()) {
    const size_t comma = s.find(',', pos);
    out.push_back(std::atoi(s.substr(pos, comma - pos).c_str()));
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return out;
}

std::string LoadAverage() {
  std::ifstream f("/proc/loadavg");
  std::string a, b, c;
  f >> a >> b >> c;
  return a + " " + b + " " + c;
}

struct Row {
  int n = 0;
  Precision precision = Precision::kFp64;
  double create_ms = 0;
  Stats snapshot, device, scatter, ifft_lp, mask, synth, ifft_resid, combine, readback, unpack;
  Stats mask_smooth, mask_normalise, mask_threshold, mask_closure;
  Stats snapshot_new, unpack_new, mode_none, mode_metrics, mode_none_device, mode_metrics_device;
  Stats submissions, steps_recorded, steps_run;
  Stats readback_copy;  // --timed-mode metrics: the snapshot readback, timed apart
  std::string closure_plan, closure_dispatch;
  int closure_dispatches = 0;
};

}  // namespace

int main(int argc, char** argv) {
  int reps = 50, warmup = 5;
  double warmup_seconds = 1.0;
  std::string sizes = "128,1024", device, json;
  bool validation = false, modes = false, check = true;
  std::string closure_plan = "auto";
  std::string timed_mode = "snapshots";
  int readback_reps = 20;
  dashi::DecodeParams params;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--reps")
      reps = std::max(1, std::atoi(next().c_str()));
    else if (a == "--warmup")
      warmup = std::max(0, std::atoi(next().c_str()));
    else if (a == "--warmup-seconds")
      warmup_seconds = std::max(0.0, std::atof(next().c_str()));
    else if (a == "--sizes")
      sizes = next();
    else if (a == "--device")
      device = next();
    else if (a == "--json")
      json = next();
    else if (a == "--validation")
      validation = true;
    else if (a == "--modes")
      modes = true;
    else if (a == "--no-check")
      check = false;
    else if (a == "--closure-plan")
      closure_plan = next();
    else if (a == "--timed-mode")
      timed_mode = next();
    else if (a == "--readback-reps")
      readback_reps = std::max(1, std::atoi(next().c_str()));
    else if (a == "--eta")
      params.closure.majority.eta = std::atoi(next().c_str());
    else if (a == "--cap")
      params.closure.max_iterations = std::max(0, std::atoi(next().c_str()));
    else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  std::vector<std::pair<std::string, dashi::vk::ClosurePlan>> plans;
  if (closure_plan == "multi" || closure_plan == "both" || closure_plan == "all") {
    plans.push_back({"multi", dashi::vk::ClosurePlan::kMultiDispatch});
  }
  if (closure_plan == "strips" || closure_plan == "all") {
    plans.push_back({"strips", dashi::vk::ClosurePlan::kStrips});
  }
  if (closure_plan == "auto" || closure_plan == "both" || closure_plan == "all") {
    plans.push_back({"auto", dashi::vk::ClosurePlan::kAuto});
  }
  if (plans.empty()) {
    std::fprintf(stderr, "--closure-plan %s: expected auto, multi, strips, both or all\n",
                 closure_plan.c_str());
    return 2;
  }
  if (timed_mode != "snapshots" && timed_mode != "metrics") {
    std::fprintf(stderr, "--timed-mode %s: expected snapshots or metrics\n", timed_mode.c_str());
    return 2;
  }
  const bool timed_metrics = timed_mode == "metrics";
  const ObserverMode timed = timed_metrics ? ObserverMode::kMetrics : ObserverMode::kSnapshots;
  dashi::vk::ContextOptions opts;
  opts.enable_validation = validation;
  opts.device_selector = device;
  auto ctx = dashi::vk::VulkanContext::Create(opts);
  if (!ctx.ok()) {
    std::fprintf(stderr, "no Vulkan device: %s\n", ctx.status().ToString().c_str());
    return 1;
  }
  const dashi::vk::DeviceInfo& info = (*ctx)->info();
  const std::time_t now = std::time(nullptr);
  char date[64];
  std::strftime(date, sizeof date, "%Y-%m-%d %H:%M:%S UTC", std::gmtime(&now));
  std::printf("decode_vulkan_benchmark  %s\n", date);
  std::printf("device: %s | driver %s %s | Vulkan %s | validation %s\n", info.name.c_str(),
              info.driver_name.c_str(), info.driver_info.c_str(), info.api_version.c_str(),
              validation ? "on" : "off");
  std::printf("load average at start: %s\nreps %d after %d warm-up decodes (at least %.1f s); "
              "timed decodes in mode %s; closure eta %d, cap %d; medians (min)\n\n",
              LoadAverage().c_str(), reps, warmup, warmup_seconds, timed_mode.c_str(),
              params.closure.majority.eta, params.closure.max_iterations);

  std::vector<Row> rows;
  bool check_failed = false;
  for (int n : ParseSizes(sizes)) {
    dashi::LesParams lp;
    lp.n = n;
    lp.seed = 1;
    auto les = dashi::LesSolver::Create(lp);
    if (!les.ok()) {
      std::fprintf(stderr, "N = %d: %s\n", n, les.status().ToString().c_str());
      return 1;
    }
    auto spec = dashi::MakeProxySpec(n, 12, 24, 32, les->Vorticity());
    if (!spec.ok()) {
      std::fprintf(stderr, "N = %d: %s\n", n, spec.status().ToString().c_str());
      return 1;
    }
    dashi::Xoshiro256ss rng(1);
    std::vector<double> z(static_cast<size_t>(spec->dim()));
    for (double& v : z) {
      const double m = 0.5 + 0.5 * rng.NextDouble();
      v = (rng.Next() & 1) ? m : -m;
    }
    z[spec->mid_index()] = 0.5 + 0.5 * rng.NextDouble();
    z[spec->high_index()] = 0.5 + 0.5 * rng.NextDouble();
    for (Precision p : {Precision::kFp64, Precision::kFp32}) for (const auto& plan : plans) {
      Row row;
      row.n = n;
      row.precision = p;
      row.closure_plan = plan.first;
      dashi::vk::VulkanDecoder::Options dec_options;
      dec_options.closure_plan = plan.second;
      const auto t0 = Clock::now();
      auto dec =
          dashi::vk::VulkanDecoder::Create(**ctx, *spec, params, p, dec_options);
      row.create_ms = std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
      if (!dec.ok()) {
        std::fprintf(stderr, "N = %d %s: %s\n", n, dashi::vk::PrecisionName(p),
                     dec.status().ToString().c_str());
        return 1;
      }
      auto decode = [&](uint64_t t, ObserverMode mode) -> bool {
        auto f = (*dec)->Decode(z, t, mode);
        if (!f.ok()) {
          std::fprintf(stderr, "N = %d %s: %s\n", n, dashi::vk::PrecisionName(p),
                       f.status().ToString().c_str());
        }
        return f.ok();
      };
      if (check) {
        auto ref_dec = dashi::Decoder::Create(*spec, params);
        auto ref = ref_dec->Decode(z, 0);
        auto got = (*dec)->Decode(z, 0, ObserverMode::kSnapshots);
        if (!ref.ok() || !got.ok()) {
          std::fprintf(stderr, "check failed to run\n");
          return 1;
        }
        auto mae = [](const std::vector<double>& g, const std::vector<double>& r) {
          double sum = 0, mx = 0;
          for (size_t i = 0; i < r.size(); ++i) {
            sum += std::fabs(g[i] - r[i]);  // NaN propagates
            mx = std::max(mx, std::fabs(r[i]));
          }
          return sum / static_cast<double>(r.size()) / mx;
        };
        int64_t hamming = 0;
        for (int64_t k = 0; k < ref->closure.fixed_point.size(); ++k) {
          hamming += ref->closure.fixed_point.values()[k] != got->closure.fixed_point.values()[k];
        }
        const double e_lp = mae(got->omega_lp, ref->omega_lp);
        const double e_resid = mae(got->omega_resid, ref->omega_resid);
        const double e_omega = mae(got->omega, ref->omega);
        const dashi::Status guards = (*dec)->CheckGuards();
        const double tol = p == Precision::kFp64 ? 1e-12 : 1e-6;
        const bool ok = e_lp <= tol && e_resid <= tol &&
                        (p != Precision::kFp64 || (e_omega <= tol && hamming == 0 &&
                                                   got->closure.depth == ref->closure.depth)) &&
                        guards.ok();
        std::printf(
            "N=%-5d %s  check vs core_ref: MAE/max omega_lp %.3g, omega_resid %.3g, "
            "omega %.3g; mask Hamming %lld; depth %d vs %d; guards %s -> %s\n",
            n, dashi::vk::PrecisionName(p), e_lp, e_resid, e_omega, static_cast<long long>(hamming),
            got->closure.depth, ref->closure.depth,
            guards.ok() ? "intact" : guards.ToString().c_str(), ok ? "OK" : "WRONG");
        if (!ok) check_failed = true;
      }
      // Warm-up: --warmup decodes, and at least --warmup-seconds of back-to-back decodes so the
      // GPU's clock has ramped up before timing (it idles down within seconds).
      const auto warm_start = std::chrono::steady_clock::now();
      for (int w = 0;
           w < warmup || std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                                       warm_start).count() < warmup_seconds;
           ++w) {
        if (!decode(static_cast<uint64_t>(w), timed)) return 1;
      }
      bool readback_cached = false;
      std::vector<double> snap, dev, sc, il, mk, sy, ir, cb, rb, up, none, metrics, snap_new,
          up_new, mk_smooth, mk_norm, mk_thr, mk_closure, subs, rec_steps, run_steps, none_dev,
          metrics_dev;
      // The steady state of an observer: DecodeInto a frame whose storage is reused.
      dashi::DecodedFrame frame{
          {}, {}, {}, dashi::ClosureResult{*dashi::Carrier::Zeros({1, 1}), 0, false, {}}, {}};
      for (int r = 0; r < reps; ++r) {
        const dashi::Status st =
            (*dec)->DecodeInto(z, static_cast<uint64_t>(r), timed, frame);
        if (!st.ok()) {
          std::fprintf(stderr, "N = %d %s: %s\n", n, dashi::vk::PrecisionName(p),
                       st.ToString().c_str());
          return 1;
        }
        const dashi::vk::VulkanDecodeReport& rep = (*dec)->last_report();
        snap.push_back(rep.host_ms);
        dev.push_back(rep.device_ms);
        sc.push_back(rep.stages.scatter_lowk_ms);
        il.push_back(rep.stages.ifft_lp_ms);
        mk.push_back(rep.stages.mask_ms);
        mk_smooth.push_back(rep.mask.smooth_ms);
        mk_norm.push_back(rep.mask.normalise_ms);
        mk_thr.push_back(rep.mask.threshold_ms);
        mk_closure.push_back(rep.mask.closure_ms);
        subs.push_back(rep.submissions);
        rec_steps.push_back(rep.closure_steps_recorded);
        run_steps.push_back(rep.closure_steps_run);
        row.closure_dispatch = dashi::vk::ClosureDispatchName(rep.closure_dispatch);
        row.closure_dispatches = rep.closure_dispatches;
        sy.push_back(rep.stages.synth_ms);
        ir.push_back(rep.stages.ifft_resid_ms);
        cb.push_back(rep.stages.combine_ms);
        rb.push_back(rep.readback_ms);
        up.push_back(rep.readback_host_ms);
        readback_cached = rep.readback_host_cached;
        // A fresh DecodedFrame per call (Decode): its vectors are allocated, and faulted in,
        // every time. Not in metrics mode: it would put a snapshot readback between the reps.
        if (!timed_metrics) {
          if (!decode(static_cast<uint64_t>(r), ObserverMode::kSnapshots)) return 1;
          snap_new.push_back((*dec)->last_report().host_ms);
          up_new.push_back((*dec)->last_report().readback_host_ms);
        }
        if (modes) {
          if (!decode(static_cast<uint64_t>(r), ObserverMode::kNone)) return 1;
          none.push_back((*dec)->last_report().host_ms);
          none_dev.push_back((*dec)->last_report().device_ms);
          if (!decode(static_cast<uint64_t>(r), ObserverMode::kMetrics)) return 1;
          metrics.push_back((*dec)->last_report().host_ms);
          metrics_dev.push_back((*dec)->last_report().device_ms);
        }
      }
      if (timed_metrics) {
        // The snapshot readback copy, timed apart (after the timed reps, GPU still warm).
        std::vector<double> rbc;
        for (int r = 0; r < readback_reps; ++r) {
          const dashi::Status st = (*dec)->DecodeInto(z, static_cast<uint64_t>(r),
                                                      ObserverMode::kSnapshots, frame);
          if (!st.ok()) {
            std::fprintf(stderr, "N = %d %s: %s\n", n, dashi::vk::PrecisionName(p),
                         st.ToString().c_str());
            return 1;
          }
          rbc.push_back((*dec)->last_report().readback_ms);
          readback_cached = (*dec)->last_report().readback_host_cached;
        }
        row.readback_copy = Summarise(rbc);
      }
      row.snapshot = Summarise(snap);
      row.device = Summarise(dev);
      row.scatter = Summarise(sc);
      row.ifft_lp = Summarise(il);
      row.mask = Summarise(mk);
      row.mask_smooth = Summarise(mk_smooth);
      row.mask_normalise = Summarise(mk_norm);
      row.mask_threshold = Summarise(mk_thr);
      row.mask_closure = Summarise(mk_closure);
      row.submissions = Summarise(subs);
      row.steps_recorded = Summarise(rec_steps);
      row.steps_run = Summarise(run_steps);
      row.synth = Summarise(sy);
      row.ifft_resid = Summarise(ir);
      row.combine = Summarise(cb);
      row.readback = Summarise(rb);
      row.unpack = Summarise(up);
      row.snapshot_new = Summarise(snap_new);
      row.unpack_new = Summarise(up_new);
      row.mode_none = Summarise(none);
      row.mode_metrics = Summarise(metrics);
      row.mode_none_device = Summarise(none_dev);
      row.mode_metrics_device = Summarise(metrics_dev);
      rows.push_back(row);
      std::printf("N=%-5d %s  closure plan %s (%s, %d dispatches)  D=%lld, %zu residual modes, "
                  "decoder created in %.0f ms\n",
                  n, dashi::vk::PrecisionName(p), row.closure_plan.c_str(),
                  row.closure_dispatch.c_str(), row.closure_dispatches,
                  static_cast<long long>(spec->dim()),
                  spec->mid_residual.size() + spec->high_residual.size(), row.create_ms);
      auto line = [](const char* name, Stats s) {
        std::printf("  %-22s %10.4f ms  (%.4f)\n", name, s.median, s.min);
      };
      line("per snapshot (host)", row.snapshot);
      line("  with a new frame", row.snapshot_new);
      line("per snapshot (device)", row.device);
      line("  scatter_lowk", row.scatter);
      line("  ifft_lp", row.ifft_lp);
      line("  synth", row.synth);
      line("  ifft_resid", row.ifft_resid);
      line("  mask", row.mask);
      line("    smooth", row.mask_smooth);
      line("    normalise", row.mask_normalise);
      line("    threshold", row.mask_threshold);
      line("    closure", row.mask_closure);
      line("  combine", row.combine);
      line("  readback", row.readback);
      line("readback unpack (host)", row.unpack);
      if (!timed_metrics) line("  into a new frame", row.unpack_new);
      if (timed_metrics) line("readback copy (snapshots)", row.readback_copy);
      std::printf("  (readback memory %s)\n", readback_cached ? "host-cached" : "NOT host-cached");
      std::printf("  closure steps recorded %.0f, run %.0f (depth + 1); submissions %.0f (max %s)\n",
                  row.steps_recorded.median, row.steps_run.median, row.submissions.median,
                  std::to_string(static_cast<int>(*std::max_element(subs.begin(), subs.end())))
                      .c_str());
      if (modes) {
        line("mode none (host)", row.mode_none);
        line("mode metrics (host)", row.mode_metrics);
        line("mode none (device)", row.mode_none_device);
        line("mode metrics (device)", row.mode_metrics_device);
      }
      std::printf("\n");
    }
  }
  std::printf(
      "Device times are timestamps written between the stages of the one command buffer per "
      "snapshot (summed over submissions when the closure continues); per snapshot (device) is "
      "first to last timestamp, host is the wall time of the Decode call.\n");
  if (validation) {
    const std::vector<std::string> msgs = (*ctx)->validation_messages();
    std::printf("validation messages: %zu\n", msgs.size());
    for (size_t i = 0; i < msgs.size() && i < 5; ++i) std::printf("  %s\n", msgs[i].c_str());
  }
  if (!json.empty()) {
    std::ofstream out(json);
    out << "{\n  \"device\": \"" << info.name << "\",\n  \"driver\": \"" << info.driver_name << " "
        << info.driver_info << "\",\n  \"api_version\": \"" << info.api_version
        << "\",\n  \"timed_mode\": \"" << timed_mode << "\",\n  \"reps\": " << reps << ",\n  \"warmup\": " << warmup << ",\n  \"rows\": [\n";
    for (size_t i = 0; i < rows.size(); ++i) {
      const Row& r = rows[i];
      auto kv = [&](const char* k, Stats s) {
        out << "      \"" << k << "_ms\": {\"median\": " << s.median << ", \"min\": " << s.min
            << "},\n";
      };
      out << "    {\n      \"n\": " << r.n << ",\n      \"precision\": \""
          << dashi::vk::PrecisionName(r.precision) << "\",\n      \"closure_plan\": \""
          << r.closure_plan << "\",\n      \"closure_dispatch\": \"" << r.closure_dispatch
          << "\",\n      \"closure_dispatches\": " << r.closure_dispatches
          << ",\n      \"create_ms\": " << r.create_ms << ",\n";
      kv("snapshot_host", r.snapshot);
      kv("snapshot_host_new_frame", r.snapshot_new);
      kv("snapshot_device", r.device);
      kv("scatter_lowk", r.scatter);
      kv("ifft_lp", r.ifft_lp);
      kv("mask", r.mask);
      kv("mask_smooth", r.mask_smooth);
      kv("mask_normalise", r.mask_normalise);
      kv("mask_threshold", r.mask_threshold);
      kv("mask_closure", r.mask_closure);
      kv("synth", r.synth);
      kv("ifft_resid", r.ifft_resid);
      kv("combine", r.combine);
      kv("readback", r.readback);
      kv("readback_unpack_host", r.unpack);
      kv("readback_unpack_host_new_frame", r.unpack_new);
      kv("readback_copy_snapshots", r.readback_copy);
      kv("mode_none_host", r.mode_none);
      kv("mode_metrics_host", r.mode_metrics);
      kv("mode_none_device", r.mode_none_device);
      kv("mode_metrics_device", r.mode_metrics_device);
      out << "      \"closure_steps_recorded\": " << r.steps_recorded.median
          << ",\n      \"closure_steps_run\": " << r.steps_run.median
          << ",\n      \"submissions\": " << r.submissions.median << "\n";
      out << "    }" << (i + 1 < rows.size() ? ",\n" : "\n");
    }
    out << "  ]\n}\n";
  }
  if (check_failed) {
    std::printf("ACCURACY CHECK FAILED (see the check lines above)\n");
    return 3;
  }
  return 0;
}
