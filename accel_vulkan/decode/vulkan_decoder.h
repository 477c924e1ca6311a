// VulkanDecoder: the decoder on the device, the twin of core_ref's Decoder (core_ref/decode):
//   ω̂ = ω_lp + s*·ω_resid
// Stages, all on the device, recorded into ONE command buffer per snapshot, hot data never leaving
// the device:
//   spectra       ONE dispatch writes every slot of both half spectra (fp64;   shaders/decode
//                 no clearing pass): the low modes and anchors of z (uploaded)  decode_spectra
//                 scattered, and the residual modes, phases 2π·CounterUniform(seed, t, kx, ky, 0)
//                 (exact uint64 PRNG, our fp64 sin/cos); a slot map made once per spec says which
//                 mode core_ref writes last at each slot. Its time is reported as scatter_lowk_ms
//                 (synth_ms is 0 on the device).
//   ifft_lp       VkFFT C2R (1/N²) → ω_lp                                     VkFftPlan
//   ifft_resid    VkFFT C2R → ω_resid
//   mask          smooth, normalise by max|·|, PDA threshold, closure → s*    CarrierRecorder,
//                 (N ≤ 256: the max folded into the smoothing's column pass,
//                 Options::fold_max)
//                 (the closure's steps recorded ahead; past the fixed point    CarrierClosure
//                 the device turns them into empty dispatches)
//   combine       ω = ω_lp + s*·ω_resid (`precise`)
//   readback      only what the observer mode asks for
// Every stage, and each part of the mask, is timed by device timestamps. The host waits once per
// snapshot, then reads the closure's control record: in the rare case that the closure needed
// more steps than were recorded, it records the remaining steps, the combine and the readback
// into another submission (the result is the same; report().submissions says how many).
// Precision::kFp64 does everything in fp64. Precision::kFp32 runs the two inverse FFTs in fp32
// (the fp64 spectra are rounded to fp32 before, the fp32 fields widened exactly after, both
// inside the ifft stages); everything else stays fp64. An fp32 decode must say so in its output
// (precision() / last_report().precision).
//
//   DASHI_ASSIGN_OR_RETURN(auto dec, VulkanDecoder::Create(ctx, spec, DecodeParams{},
//                                                           Precision::kFp64));
//   DASHI_ASSIGN_OR_RETURN(DecodedFrame f, dec->Decode(z, /*t=*/step, ObserverMode::kSnapshots));
#ifndef DASHI_ACCEL_VULKAN_DECODE_VULKAN_DECODER_H_
#define DASHI_ACCEL_VULKAN_DECODE_VULKAN_DECODER_H_

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <vector>

#include "accel_vulkan/carrier/closure_dispatch_plan.h"
#include "accel_vulkan/command_batch.h"
#include "accel_vulkan/context.h"
#include "accel_vulkan/device_buffer.h"
#include "accel_vulkan/decode/vkfft_plan.h"
#include "core_ref/decode/decoder.h"
#include "core_ref/proxy/proxy_encoder.h"
#include "core_ref/status/status.h"
#include "shaders/decode/decode_params.h"

namespace dashi::vk {

// What Decode reads back (the observer modes of docs/ARCHITECTURE.md; `visualize` reads what `snapshots` reads).
enum class ObserverMode {
  kNone,       // nothing: the DecodedFrame's fields stay empty (the stage times are filled)
  kMetrics,    // the closure statistics only: closure.depth, reached_fixed_point, levels
  kSnapshots,  // ω, ω_lp, ω_resid and the mask s* (closure.fixed_point), plus the statistics
};
const char* ObserverModeName(ObserverMode m);  // "none", "metrics", "snapshots"

// Device times of the mask's parts (their sum is DecodeStageTimes::mask_ms).
struct MaskStageTimes {
  double smooth_ms = 0, normalise_ms = 0, threshold_ms = 0, closure_ms = 0;
};

// About the last Decode call. Stage times are device timestamps, summed over the submissions.
struct VulkanDecodeReport {
  Precision precision = Precision::kFp64;
  ObserverMode mode = ObserverMode::kNone;
  DecodeStageTimes stages;      // the same numbers as the returned DecodedFrame::times
  MaskStageTimes mask;          // the parts of stages.mask_ms
  double compare_ms = 0;        // device time of DecodeInto's `after` work (0 without it)
  double readback_ms = 0;       // device time of the copies into host-visible memory (the fields
                                // in snapshots mode, the closure's records in every mode)
  double readback_host_ms = 0;  // host time copying out of the mapped readback buffer
  bool readback_host_cached = false;  // that buffer is in HOST_CACHED memory (fast CPU reads)
  double device_ms = 0;  // from the first timestamp to the last, summed over the submissions
  double host_ms = 0;    // wall-clock time of the whole Decode call, which is the sum of:
  double host_record_ms = 0;  // checks, staging z, recording (DecodeInto's `after` included)
                              // and every lazily made object (a first decode's cost, unless
                              // WarmUp made them: see there)
  double host_wait_ms = 0;    // submitting and waiting (fence, timestamps), every submission
  double host_finish_ms = 0;  // reading the closure's records, continuations' recording, the
                              // frame (the field copies of snapshots mode included)
  uint64_t readback_bytes = 0;  // field bytes copied device → host (ω, ω_lp, ω_resid, s*)
  // The closure's control record (every mode) and level statistics (metrics, snapshots).
  uint64_t closure_readback_bytes = 0;
  int submissions = 0;             // command buffers submitted (1 unless the closure ran long)
  int closure_steps_recorded = 0;  // closure steps recorded, the empty ones included (all up to
                                   // the cap's check step on the one-dispatch path)
  int closure_steps_run = 0;       // steps the device ran: depth + 1 once converged
  // The closure's path (one shared-memory dispatch, or 7 dispatches per step recorded, or 2 per
  // step for strips) and the dispatches recorded for it in this decode (empty ones included).
  ClosureDispatch closure_dispatch = ClosureDispatch::kMultiDispatch;
  int closure_dispatches = 0;
};

class VulkanDecoder {
 public:
  // The context must outlive the decoder and have shaderFloat64 and shaderInt64 (both precisions
  // need them: the scatter, the synthesis, the mask and the combine are fp64). The spec's mode
  // tables are uploaded here, once; params are validated as core_ref's Decoder::Create does.
  static StatusOr<std::unique_ptr<VulkanDecoder>> Create(VulkanContext& ctx, const ProxySpec& spec,
                                                         const DecodeParams& params,
                                                         Precision precision);

  // Tuning knobs of the decoder's own shaders (the defaults suit every device; tests shrink them
  // to exercise the grid-stride loops that let one dispatch cover any N).
  struct Options {
    uint32_t workgroup_size = 128;  // specialization constant 0 of every decode shader
    uint32_t max_groups_x = 65535;  // x workgroup count cap (Vulkan's guaranteed minimum limit)
    // The most closure steps recorded into one submission. The first submission of a decode
    // records one step more than the previous decode ran (snapshots change slowly), at most this
    // many; a closure that needs more continues in further submissions of up to this many.
    int closure_steps_per_submission = 8;
    // The closure's path: one shared-memory dispatch where the grid fits (N ≤ 128 on lavapipe's
    // 32 KiB, N ≤ 256 on 48 KiB), else the steps above; kMultiDispatch forces the latter.
    ClosurePlan closure_plan = ClosurePlan::kAuto;
    // The normalisation's max folded into the smoothing's column pass where the grid allows
    // (CarrierRecorder::FoldsMax: N ≤ 256 with the carrier's 64-wide workgroups): the mask's
    // smooth, normalise and threshold in 3 dispatches instead of 5, the same bits. false: the
    // two-pass max (a workgroup per row, then one workgroup) everywhere.
    bool fold_max = true;
  };
  static StatusOr<std::unique_ptr<VulkanDecoder>> Create(VulkanContext& ctx, const ProxySpec& spec,
                                                         const DecodeParams& params,
                                                         Precision precision,
                                                         const Options& options);
  ~VulkanDecoder();
  VulkanDecoder(const VulkanDecoder&) = delete;
  VulkanDecoder& operator=(const VulkanDecoder&) = delete;

  // z has spec.dim() finite values (else INVALID_ARGUMENT, as core_ref); t keys the phases.
  // In modes kNone and kMetrics, closure.fixed_point is a 1×1 zero placeholder (ClosureResult
  // cannot hold an empty carrier) and the field vectors are empty; in kNone the closure
  // statistics are empty too. Not thread-safe.
  StatusOr<DecodedFrame> Decode(std::span<const double> z, uint64_t t, ObserverMode mode);
  // The same into `frame`, reusing its vectors' storage: in a loop of snapshots this avoids
  // allocating (and page-faulting) 3·N² doubles per call, the largest host cost at N = 1024.
  // On error `frame` is unspecified.
  Status DecodeInto(std::span<const double> z, uint64_t t, ObserverMode mode, DecodedFrame& frame);
  // The same with `after`: more work recorded into the decode's submission right after the
  // combine and readback (again into a continuation submission when the closure runs long, so
  // it always sees the final ω̂), e.g. VulkanFieldMoments::Record on omega_buffer(): one
  // submission and one wait for both. Its "compare" timestamp is reported as compare_ms.
  using AfterCombine = std::function<Status(CommandBatch&)>;
  Status DecodeInto(std::span<const double> z, uint64_t t, ObserverMode mode, DecodedFrame& frame,
                    const AfterCombine& after);

  // Does once, in the set-up, what the first Decode in `mode` would otherwise do inside a timed
  // decode: one whole decode of a fixed z (every value 1.0, t = 0) recorded, submitted and read
  // back, with `after` recorded as DecodeInto would. It makes the objects made on first use (the
  // mask's scratch buffers, its descriptor sets, the snapshot readback buffer), touches the pages
  // of every host-mapped buffer a decode writes or reads, and lets the driver do its own
  // first-submission work. Later decodes' results are unchanged (they do not depend on an
  // earlier decode; the steps recorded ahead are restored). Its report is warmup_report(), not
  // last_report().
  Status WarmUp(ObserverMode mode, const AfterCombine& after = AfterCombine());
  // WarmUp's report (all zero without one).
  const VulkanDecodeReport& warmup_report() const;

  const VulkanDecodeReport& last_report() const;
  Precision precision() const;
  const ProxySpec& spec() const;
  const DecodeParams& params() const;
  // The decoded field ω̂ (N² fp64, row-major) as the last Decode left it on the device, in every
  // observer mode: later device work (VulkanFieldMoments, the scale tower of accel_vulkan/scales)
  // reads it without a readback. Valid until the next Decode.
  const DeviceBuffer& omega_buffer() const;
  // Where each of its VkFFT plans' kernels came from (the on-disk binary cache or a compile).
  std::vector<VkFftPlan::CacheUse> fft_cache_uses() const;

  // The guard words (accel_vulkan/guard_words.h) after the payload of every buffer the
  // decoder's shaders, FFTs and mask kernels write are unchanged; DATA_LOSS naming the buffer
  // otherwise.
  Status CheckGuards() const;

 private:
  struct Impl;
  explicit VulkanDecoder(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The decoder's shader libraries alone, for the conformance suite: the counter-based PRNG and the
// fp64 sin/cos the synthesis stage draws its phases with, each run over `count` inputs by a probe
// shader (shaders/decode/*_test.comp) whose output carries guard words.
enum class DecodeProbe {
  kCounterHash,  // input: CounterKey[count]; output per key: CounterHash, CounterUniform's bits
  kSinCosPi,     // input: double[count]; output per argument: sin(πx), cos(πx) (SinCosPiF64)
};
struct DecodeProbeResult {
  std::vector<uint8_t> output;      // 16 bytes per input
  int64_t damaged_guard_words = 0;  // guard words after the output that the shader overwrote
};
StatusOr<DecodeProbeResult> RunDecodeProbe(VulkanContext& ctx, DecodeProbe probe,
                                           std::span<const std::byte> input, uint32_t count);

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_DECODE_VULKAN_DECODER_H_
