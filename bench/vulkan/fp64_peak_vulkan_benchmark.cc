// The fp64 throughput a shader reaches on this device when every multiply and add is a separate
// instruction (the rollout contract: `precise`, no FMA) — the measured counterpart of the
// batched rollout's floor (docs/PERF.md: 2·B·D² flops at 16.7 TFLOP/s on an H100 at 1980 MHz).
// Fourteen loops (fp64_peak.comp): register chains (mode 0), the tiled kernel's term-row loop
// with its operands in shared memory (mode 1: 4×4 outputs an invocation, TK term rows a pass,
// --tk), the same with a barrier at the end of each pass (mode 2) or per 16 term rows (mode 5),
// with 4×8 outputs (mode 3), with adjacent operand pairs (mode 4), with its operands loaded from
// a buffer instead, no shared memory read and no barrier (mode 6: 512 term rows, more than L1
// holds; mode 7: 64), with an execution-only barrier (mode 8) or a subgroup barrier (mode 9) per
// 16 term rows, with a barrier every second pass (mode 10), with memoryBarrierShared() alone
// (mode 11) or an acquire-only or release-only barrier (modes 12, 13) per 16 term rows, each at
// 1, 2, 4 and 8 workgroups of 256 invocations dispatched per SM (--wg 64: 4, 8, 16, 32 of 64).
// Flops count one per multiply and one per add.
//
//   bazel build -c opt //bench/vulkan:fp64_peak_vulkan_benchmark
//   fp64_peak_vulkan_benchmark [--reps 5] [--seconds 0.2] [--warmup-seconds 1] [--modes 0,1,6,7]
#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "accel_vulkan/command_batch.h"
#include "accel_vulkan/compute_pipeline.h"
#include "accel_vulkan/context.h"
#include "accel_vulkan/device_buffer.h"
#include "accel_vulkan/device_caps/device_caps.h"
#include "bench/vulkan/fp64_peak.h"

namespace {

using dashi::Status;
using dashi::StatusOr;

// fp64_peak.comp's push-constant block (std430 layout: x at 0, y at 8, iters at 16).
struct PushConstants {
  double x;
  double y;
  uint32_t iters;
  uint32_t unused;
};
static_assert(offsetof(PushConstants, x) == 0 && offsetof(PushConstants, y) == 8 &&
              offsetof(PushConstants, iters) == 16 && sizeof(PushConstants) == 24);

int Fail(const char* what, const Status& s) {
  std::fprintf(stderr, "fp64_peak_vulkan_benchmark: %s: %s\n", what, s.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  int reps = 5;
  double seconds = 0.2, warmup_seconds = 1.0;
  std::string modes;  // empty: every loop
  uint32_t wg = 256;  // invocations a workgroup (modes 1-13 index a 16-wide grid of them)
  uint32_t tk = 32;   // term rows of the shared tiles (2 · tk · 32 dvec2: 32 KiB at 32)
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--reps" && i + 1 < argc) {
      reps = std::atoi(argv[++i]);
    } else if (a == "--seconds" && i + 1 < argc) {
      seconds = std::atof(argv[++i]);
    } else if (a == "--warmup-seconds" && i + 1 < argc) {
      warmup_seconds = std::atof(argv[++i]);
    } else if (a == "--wg" && i + 1 < argc) {
      wg = static_cast<uint32_t>(std::atoi(argv[++i]));
    } else if (a == "--tk" && i + 1 < argc) {
      tk = static_cast<uint32_t>(std::atoi(argv[++i]));
    } else if (a == "--modes" && i + 1 < argc) {
      modes = argv[++i];
    } else {
      std::fprintf(stderr,
                   "usage: fp64_peak_vulkan_benchmark [--reps N] [--seconds S] "
                   "[--warmup-seconds W] [--modes M,M,...] [--wg N] [--tk K]\n"
                   "  --reps: timed runs per row (median reported)\n"
                   "  --seconds: device time per timed run (dispatches back to back)\n"
                   "  --warmup-seconds: back-to-back dispatches before each row\n"
                   "  --modes: comma-separated loops to run (fp64_peak.comp's modes 0..13; "
                   "default all)\n"
                   "  --wg: invocations per workgroup, a multiple of 32 up to 256 (default 256; "
                   "the 4x4 loops then cover fewer rows of the tile)\n"
                   "  --tk: term rows of the shared tiles, 16, 32 or 48 (default 32: 32 KiB a "
                   "workgroup; the shared-operand loops' flops scale with it)\n");
      return 2;
    }
  }
  if (reps < 1 || !(seconds > 0) || !(warmup_seconds >= 0) || wg < 32 || wg > 256 ||
      wg % 32 != 0 || (tk != 16 && tk != 32 && tk != 48)) {
    std::fprintf(stderr,
                 "fp64_peak_vulkan_benchmark: --reps >= 1, --seconds > 0, --wg a multiple of 32 "
                 "in [32, 256], --tk 16, 32 or 48\n");
    return 2;
  }
  // --modes as numbers (empty: every loop); each is checked against the loops below.
  std::vector<uint32_t> requested;
  for (size_t at = 0; !modes.empty() && at <= modes.size();) {
    const size_t comma = std::min(modes.find(',', at), modes.size());
    const std::string m = modes.substr(at, comma - at);
    if (m.empty() || m.size() > 2 || m.find_first_not_of("0123456789") != std::string::npos) {
      std::fprintf(stderr, "fp64_peak_vulkan_benchmark: --modes: '%s' is not a mode 0..13\n",
                   m.c_str());
      return 2;
    }
    requested.push_back(static_cast<uint32_t>(std::atoi(m.c_str())));
    at = comma + 1;
  }
  dashi::vk::ContextOptions copts;
  StatusOr<std::unique_ptr<dashi::vk::VulkanContext>> ctx = dashi::vk::VulkanContext::Create(copts);
  if (!ctx.ok()) return Fail("Vulkan context", ctx.status());
  const dashi::vk::DeviceInfo& d = (*ctx)->info();
  uint32_t sms = 132;  // an H100 / H200, where the device does not report its SM count
  const std::optional<dashi::vk::SmInfo> sm = dashi::vk::QuerySmInfo(**ctx);
  if (sm) sms = sm->sm_count;
  std::printf("device: %s | driver %s (%s) | Vulkan %s | SMs %u%s\n", d.name.c_str(),
              d.driver_name.c_str(), d.driver_info.c_str(), d.api_version.c_str(), sms,
              sm ? "" : " (not reported: assumed)");
  std::printf("workgroups of %u invocations, shared tiles of %u term rows (%u KiB)\n", wg, tk,
              tk * 2 * 32 * 16 / 1024);
  std::printf("%-28s %10s %12s %12s %12s\n", "loop", "WG/SM", "ms/dispatch", "TFLOP/s",
              "min-max");

  StatusOr<std::unique_ptr<dashi::vk::CommandBatch>> batch = dashi::vk::CommandBatch::Create(**ctx);
  if (!batch.ok()) return Fail("command batch", batch.status());
  // fp64_peak.comp's loops (specialization constant 1), with the flops of one invocation and
  // iteration at TK = 32: 16 chains × 2; 32 term rows × 4×4 outputs × 2; 32 term rows × 4×8
  // outputs × 2; 512 or 64 term rows × 4×4 outputs × 2. The shared-tile loops' flops scale with
  // TK (tk / 32), the others' do not.
  struct Loop {
    uint32_t mode;
    const char* name;
    double flops_per_iter;
    bool scales_with_tk = true;
  };
  const std::string per_pass = std::to_string(tk), two_passes = std::to_string(2 * tk);
  const std::string shared_4x4 = "shared operands (4x4, TK " + per_pass + ")";
  const std::string shared_4x8 = "shared operands (4x8, TK " + per_pass + ")";
  const std::string barrier_pass = "4x4 + barrier per " + per_pass + " rows";
  const std::string barrier_two = "4x4 + barrier per " + two_passes + " rows";
  const Loop loops[] = {{0, "registers (16 chains)", 32.0, false},
                        {1, shared_4x4.c_str(), 1024.0},
                        {2, barrier_pass.c_str(), 1024.0},
                        {5, "4x4 + barrier per 16 rows", 1024.0},
                        {3, shared_4x8.c_str(), 2048.0},
                        {4, "4x4, adjacent pairs", 1024.0},
                        {6, "4x4 from a buffer, 512 rows", 512.0 * 32.0, false},
                        {7, "4x4 from a buffer, 64 rows", 64.0 * 32.0, false},
                        {8, "4x4 + exec-only bar / 16", 1024.0},
                        {9, "4x4 + subgroup bar / 16", 1024.0},
                        {10, barrier_two.c_str(), 1024.0},
                        {11, "4x4 + shared fence / 16", 1024.0},
                        {12, "4x4 + acquire bar / 16", 1024.0},
                        {13, "4x4 + release bar / 16", 1024.0}};
  for (uint32_t m : requested) {
    if (std::none_of(std::begin(loops), std::end(loops),
                     [m](const Loop& loop) { return loop.mode == m; })) {
      std::fprintf(stderr, "fp64_peak_vulkan_benchmark: --modes: %u is not a mode 0..13\n", m);
      return 2;
    }
  }
  // The operands of modes 6 and 7 (fp64_peak.comp: 512 × 64 doubles of A, then 64 × 512 of Z),
  // values near 1 so that no product or sum leaves the normal range.
  constexpr size_t kOperandDoubles = 2 * 512 * 64;
  std::vector<double> operands(kOperandDoubles);
  for (size_t i = 0; i < operands.size(); ++i) {
    operands[i] = 1.0 + 1e-9 * static_cast<double>(i % 977);
  }
  StatusOr<dashi::vk::DeviceBuffer> operand_buf =
      dashi::vk::DeviceBuffer::Create(**ctx, kOperandDoubles * sizeof(double));
  if (!operand_buf.ok()) return Fail("buffer", operand_buf.status());
  if (Status st = operand_buf->UploadValues(**ctx, std::span<const double>(operands)); !st.ok()) {
    return Fail("upload", st);
  }
  for (const Loop& loop : loops) {
    if (!requested.empty() &&
        std::find(requested.begin(), requested.end(), loop.mode) == requested.end()) {
      continue;
    }
    StatusOr<std::unique_ptr<dashi::vk::ComputePipeline>> pipe =
        dashi::vk::ComputePipeline::Create(
            **ctx, {dashi::spirv::kFp64Peak, 2, sizeof(PushConstants), {wg, loop.mode, tk}, 4});
    if (!pipe.ok()) return Fail("pipeline", pipe.status());
    for (uint32_t per_256 : {1u, 2u, 4u, 8u}) {
      const uint32_t per_sm = per_256 * (256 / wg);
      const uint32_t groups = sms * per_sm;
      StatusOr<dashi::vk::DeviceBuffer> out =
          dashi::vk::DeviceBuffer::Create(**ctx, static_cast<VkDeviceSize>(groups) * wg * 8);
      if (!out.ok()) return Fail("buffer", out.status());
      const VkBuffer bufs[] = {out->buffer(), operand_buf->buffer()};
      StatusOr<VkDescriptorSet> set = (*pipe)->Bindings(bufs);
      if (!set.ok()) return Fail("bindings", set.status());
      PushConstants pc{0.9999999, 1e-7, 8, 0};
      auto run = [&](int dispatches, double* ms) -> Status {
        DASHI_RETURN_IF_ERROR((*batch)->Begin());
        (*batch)->Timestamp("start");
        for (int k = 0; k < dispatches; ++k) {
          (*batch)->Dispatch(**pipe, *set, &pc, sizeof(pc), groups);
        }
        (*batch)->Timestamp("loop");
        DASHI_RETURN_IF_ERROR((*batch)->SubmitAndWait());
        *ms = (*batch)->StageMilliseconds().at(0).second;
        return dashi::OkStatus();
      };
      // Size one dispatch to about 5 ms, then run for `seconds` per timed run.
      double ms = 0;
      Status st = run(1, &ms);
      if (!st.ok()) return Fail("dispatch", st);
      for (int grow = 0; grow < 20 && ms < 5.0; ++grow) {
        const double grow_by = std::max(2.0, 5.0 / std::max(ms, 1e-3));
        pc.iters = static_cast<uint32_t>(std::min(1e8, pc.iters * grow_by));
        st = run(1, &ms);
        if (!st.ok()) return Fail("dispatch", st);
      }
      const int per_run = std::max(1, static_cast<int>(seconds * 1e3 / ms));
      for (double spent = 0; spent < warmup_seconds * 1e3;) {
        st = run(per_run, &ms);
        if (!st.ok()) return Fail("warm-up", st);
        spent += ms;
      }
      std::vector<double> t;
      for (int r = 0; r < reps; ++r) {
        st = run(per_run, &ms);
        if (!st.ok()) return Fail("timed run", st);
        t.push_back(ms / per_run);
      }
      std::sort(t.begin(), t.end());
      const double per_iter = loop.flops_per_iter * (loop.scales_with_tk ? tk / 32.0 : 1.0);
      const double flops = per_iter * pc.iters * static_cast<double>(groups) * wg;
      auto tflops = [&](double m) { return flops / (m * 1e-3) / 1e12; };
      std::printf("%-28s %10u %12.3f %12.3f %5.3f-%5.3f\n", loop.name, per_sm, t[t.size() / 2],
                  tflops(t[t.size() / 2]), tflops(t.back()), tflops(t.front()));
    }
  }
  return 0;
}
