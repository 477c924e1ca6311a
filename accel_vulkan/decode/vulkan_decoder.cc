#include "accel_vulkan/decode/vulkan_decoder.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "accel_vulkan/buffer.h"
#include "accel_vulkan/carrier/carrier_closure.h"
#include "accel_vulkan/carrier/carrier_kernels.h"
#include "accel_vulkan/carrier/carrier_recorder.h"
#include "accel_vulkan/command_batch.h"
#include "accel_vulkan/compute_pipeline.h"
#include "accel_vulkan/device_buffer.h"
#include "accel_vulkan/guard_words.h"
#include "accel_vulkan/unique_handle.h"
#include "accel_vulkan/vk_status.h"
#include "shaders/decode/combine.h"
#include "shaders/decode/convert_f32_to_f64.h"
#include "shaders/decode/convert_f64_to_f32.h"
#include "shaders/decode/decode_params.h"
#include "accel_vulkan/device_caps/device_caps.h"
#include "shaders/decode/decode_spectra.h"

namespace dashi::vk {
namespace {

using Clock = std::chrono::steady_clock;
double MsSince(Clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(Clock::now() - t0).count();
}

// decode_spectra.comp's slot map: per half-spectrum slot, the mode core_ref's Put writes there
// last, for the low-pass spectrum (x) and the residual's (y): kNoMode, or the mode's index in its
// table, with kMirrorBit where that write is the conjugate (the −ky slot on the kx = 0 column).
// The modes are replayed in core_ref's order (the table's): where two writes meet, the later wins.
void MapModes(int64_t n, std::span<const Mode* const> modes, uint32_t* map_x_or_y,
              size_t stride) {
  const int64_t hc = n / 2 + 1;
  for (size_t i = 0; i < modes.size(); ++i) {
    const Mode& m = *modes[i];
    const int64_t row = m.ky >= 0 ? m.ky : m.ky + n;
    map_x_or_y[static_cast<size_t>(row * hc + m.kx) * stride] = static_cast<uint32_t>(i);
    if (m.kx == 0) {
      const int64_t mirror = -m.ky >= 0 ? -m.ky : -m.ky + n;
      map_x_or_y[static_cast<size_t>(mirror * hc) * stride] =
          static_cast<uint32_t>(i) | kMirrorBit;
    }
  }
}

// Adds one submission's stage times (CommandBatch::StageMilliseconds labels) to the report.
void AddStageTimes(const std::vector<std::pair<std::string, double>>& stages,
                   VulkanDecodeReport& r) {
  for (const auto& [label, ms] : stages) {
    r.device_ms += ms;
    // One dispatch fills both spectra: its time is the scatter's (synth_ms stays 0).
    if (label == "spectra") r.stages.scatter_lowk_ms += ms;
    if (label == "ifft_lp") r.stages.ifft_lp_ms += ms;
    if (label == "ifft_resid") r.stages.ifft_resid_ms += ms;
    if (label == "mask_smooth") r.mask.smooth_ms += ms;
    if (label == "mask_normalise") r.mask.normalise_ms += ms;
    if (label == "mask_closure") r.mask.closure_ms += ms;
    if (label == "combine") r.stages.combine_ms += ms;
    if (label == "readback") r.readback_ms += ms;
    if (label == "compare") r.compare_ms += ms;
  }
  r.stages.mask_ms = r.mask.smooth_ms + r.mask.normalise_ms + r.mask.threshold_ms +
                     r.mask.closure_ms;
}

}  // namespace

const char* ObserverModeName(ObserverMode m) {
  switch (m) {
    case ObserverMode::kNone: return "none";
    case ObserverMode::kMetrics: return "metrics";
    case ObserverMode::kSnapshots: return "snapshots";
  }
  return "none";
}

struct VulkanDecoder::Impl {
  explicit Impl(VulkanContext& c) : ctx(c) {}

  VulkanContext& ctx;
  VulkanDecoder::Options options;
  ProxySpec spec;
  DecodeParams params;
  Precision precision = Precision::kFp64;
  uint32_t n = 0;
  uint64_t cells = 0;         // N²
  uint64_t half_complex = 0;  // N·(N/2+1)
  uint32_t mid_count = 0;

  // The mask: carrier kernels recorded for N×N, the closure with its two iterates (s* is
  // closure->fixed_point(), bound by the combine).
  std::unique_ptr<CarrierKernels> kernels;
  std::unique_ptr<CarrierRecorder> recorder;
  std::unique_ptr<CarrierClosure> closure;
  int first_closure_steps = 0;  // steps the next decode records into its first submission
  std::unique_ptr<CommandBatch> batch;
  std::unique_ptr<ComputePipeline> spectra, combine, to_f32, to_f64;

  // Device buffers (payload + guard words where a shader or FFT writes).
  std::unique_ptr<HostVisibleBuffer> z_staging;
  std::unique_ptr<DeviceBuffer> z_dev, slot_map, resid_modes, spec_lp, spec_resid, lp, resid, omega;
  std::unique_ptr<DeviceBuffer> smoothed, normalised, s0;  // the mask's intermediates
  // fp32 path: one fp32 spectrum + real pair, one plan, used for both transforms in turn.
  std::unique_ptr<DeviceBuffer> spec32, real32;
  std::unique_ptr<VkFftPlan> plan_lp, plan_resid, plan32;
  // Snapshots: ω, ω_lp, ω_resid (f64), s* (i32), in host-cached memory where the device has it.
  std::optional<HostVisibleBuffer> readback;

  VkDescriptorSet set_spectra = VK_NULL_HANDLE,
                  set_combine = VK_NULL_HANDLE, set_lp_to_f32 = VK_NULL_HANDLE,
                  set_resid_to_f32 = VK_NULL_HANDLE, set_f64_lp = VK_NULL_HANDLE,
                  set_f64_resid = VK_NULL_HANDLE;

  VulkanDecodeReport report;
  VulkanDecodeReport warmup_report;

  Status Init();
  // Workgroups for `count` items: the shaders loop with a grid stride, so the count is capped.
  uint32_t Groups(uint64_t count) const {
    const uint64_t g = (count + options.workgroup_size - 1) / options.workgroup_size;
    return static_cast<uint32_t>(
        std::min<uint64_t>(std::max<uint64_t>(g, 1), options.max_groups_x));
  }
  // The inverse FFT of `spectrum` (fp64) into `out` (fp64), through fp32 when asked.
  Status RecordInverse(VkFftPlan* plan64, VkDescriptorSet to_f32_set, VkDescriptorSet to_f64_set);
  // The two spectra (one dispatch: the scatter and the synthesis), ifft_lp, ifft_resid (each
  // followed by its timestamp).
  // read_levels: the closure's level statistics are asked for (its Σ|field| over `normalised`).
  Status RecordFields(uint64_t z_bytes, uint64_t t, const double amps[2], bool read_levels);
  // smooth, normalise, threshold, the closure's start and `steps` steps (timestamped).
  Status RecordMask(bool read_levels, int steps);
  // combine and the readback (the fields when `snapshots`, the closure's records), timestamped.
  void RecordCombineAndReadback(bool snapshots);
};

VulkanDecoder::VulkanDecoder(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

VulkanDecoder::~VulkanDecoder() {
  // Plans first (VkFFT holds descriptors on the buffers), then the buffers and pipelines.
  if (impl_ != nullptr) {
    vkDeviceWaitIdle(impl_->ctx.device());
    impl_->plan_lp.reset();
    impl_->plan_resid.reset();
    impl_->plan32.reset();
  }
}

StatusOr<std::unique_ptr<VulkanDecoder>> VulkanDecoder::Create(VulkanContext& ctx,
                                                               const ProxySpec& spec,
                                                               const DecodeParams& params,
                                                               Precision precision) {
  return Create(ctx, spec, params, precision, Options{});
}

StatusOr<std::unique_ptr<VulkanDecoder>> VulkanDecoder::Create(VulkanContext& ctx,
                                                               const ProxySpec& spec,
                                                               const DecodeParams& params,
                                                               Precision precision,
                                                               const Options& options) {
  if (options.max_groups_x == 0 || options.max_groups_x > 65535) {
    return InvalidArgumentError("VulkanDecoder: max_groups_x = " +
                                std::to_string(options.max_groups_x) + " must be in [1, 65535]");
  }
  // core_ref's own validation of the parameters (smoothing, threshold, closure) and of N.
  DASHI_RETURN_IF_ERROR(Decoder::Create(spec, params).status());
  if (spec.n < 8 || spec.n > 4096 || (spec.n & (spec.n - 1)) != 0) {
    return InvalidArgumentError("VulkanDecoder: N = " + std::to_string(spec.n) +
                                " must be a power of two in [8, 4096]");
  }
  if (!ctx.info().shader_float64 || !ctx.info().shader_int64) {
    return UnimplementedError(
        "VulkanDecoder needs shaderFloat64 and shaderInt64 (fp64 scatter, "
        "synthesis, mask and combine in both precisions); " +
        ctx.info().name + " lacks them");
  }
  auto impl = std::make_unique<Impl>(ctx);
  impl->spec = spec;
  impl->params = params;
  impl->precision = precision;
  impl->options = options;
  DASHI_RETURN_IF_ERROR(impl->Init());
  return std::unique_ptr<VulkanDecoder>(new VulkanDecoder(std::move(impl)));
}

Status VulkanDecoder::Impl::Init() {
  n = static_cast<uint32_t>(spec.n);
  cells = uint64_t{n} * n;
  half_complex = uint64_t{n} * (n / 2 + 1);
  mid_count = static_cast<uint32_t>(spec.mid_residual.size());
  report.precision = precision;

  // Every buffer is bound whole; the largest (a fp64 spectrum or field, plus guard words) must fit
  // the device's storage-buffer range (lavapipe: 128 MiB, so N = 4096 does not fit there).
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(ctx.physical_device(), &props);
  const uint64_t largest = std::max(VkFftPlan::SpectrumBytes(n, Precision::kFp64),
                                    VkFftPlan::RealBufferBytes(n, Precision::kFp64)) +
                           kGuardBytes;
  if (largest > props.limits.maxStorageBufferRange) {
    return UnimplementedError(
        "VulkanDecoder N = " + std::to_string(n) + " needs " + std::to_string(largest) +
        "-byte storage buffers; " + ctx.info().name + " allows " +
        std::to_string(props.limits.maxStorageBufferRange) + " (maxStorageBufferRange)");
  }

  DASHI_ASSIGN_OR_RETURN(kernels, CarrierKernels::Create(ctx, {}));
  DASHI_ASSIGN_OR_RETURN(recorder, CarrierRecorder::Create(*kernels, {spec.n, spec.n}));
  CarrierClosure::Options closure_options;
  closure_options.steps_per_submission = options.closure_steps_per_submission;
  closure_options.plan = options.closure_plan;
  DASHI_ASSIGN_OR_RETURN(closure, CarrierClosure::Create(*recorder, params.closure,
                                                         closure_options));
  first_closure_steps = options.closure_steps_per_submission;
  DASHI_ASSIGN_OR_RETURN(batch, CommandBatch::Create(ctx, 32));
  auto pipeline = [&](std::span<const uint32_t> spirv, uint32_t buffers, uint32_t push,
                      std::unique_ptr<ComputePipeline>& out) -> Status {
    DASHI_ASSIGN_OR_RETURN(
        out, ComputePipeline::Create(ctx, {spirv, buffers, push, {options.workgroup_size}, 4}));
    return OkStatus();
  };
  // The residual phases must be core_ref's bits: the float-controls variant the device supports.
  const uint32_t variant = SupportedFloatControlsVariant(QueryFloat64Controls(ctx));
  DASHI_RETURN_IF_ERROR(
      pipeline(spirv::kDecodeSpectraVariants[variant], 5, sizeof(DecodeSpectraParams), spectra));
  DASHI_RETURN_IF_ERROR(pipeline(spirv::kCombine, 4, sizeof(CountParams), combine));

  const uint64_t dim = static_cast<uint64_t>(spec.dim());
  DASHI_ASSIGN_OR_RETURN(HostVisibleBuffer zs, HostVisibleBuffer::Create(ctx, dim * 8));
  z_staging = std::make_unique<HostVisibleBuffer>(std::move(zs));
  DASHI_RETURN_IF_ERROR(CreateGuardedBuffer(ctx, dim * 8, z_dev));

  // Mode tables, once per spec: the slot map (replaying core_ref's writes) and the residual
  // modes' wave numbers.
  std::vector<const Mode*> lowk_modes, resid_list;
  for (const auto* list : {&spec.low_modes, &spec.anchors}) {
    for (const Mode& m : *list) lowk_modes.push_back(&m);
  }
  std::vector<ResidualModeEntry> resid_table;
  for (const auto* list : {&spec.mid_residual, &spec.high_residual}) {
    for (const Mode& m : *list) {
      resid_list.push_back(&m);
      resid_table.push_back({static_cast<int32_t>(m.kx), static_cast<int32_t>(m.ky)});
    }
  }
  std::vector<uint32_t> map(2 * half_complex, kNoMode);
  MapModes(spec.n, lowk_modes, map.data(), 2);
  MapModes(spec.n, resid_list, map.data() + 1, 2);
  DASHI_RETURN_IF_ERROR(CreateGuardedBuffer(ctx, map.size() * sizeof(uint32_t), slot_map));
  DASHI_RETURN_IF_ERROR(slot_map->UploadValues<uint32_t>(ctx, map));
  DASHI_RETURN_IF_ERROR(CreateGuardedBuffer(
      ctx, std::max<uint64_t>(resid_table.size(), 1) * sizeof(ResidualModeEntry), resid_modes));
  DASHI_RETURN_IF_ERROR(resid_modes->UploadValues<ResidualModeEntry>(ctx, resid_table));

  // Spectra (fp64) and fields (fp64; the real buffers VkFFT writes need RealBufferBytes).
  const uint64_t spec_bytes = VkFftPlan::SpectrumBytes(n, Precision::kFp64);
  const uint64_t real_buffer_bytes = VkFftPlan::RealBufferBytes(n, Precision::kFp64);
  DASHI_RETURN_IF_ERROR(CreateGuardedBuffer(ctx, spec_bytes, spec_lp));
  DASHI_RETURN_IF_ERROR(CreateGuardedBuffer(ctx, spec_bytes, spec_resid));
  DASHI_RETURN_IF_ERROR(CreateGuardedBuffer(ctx, real_buffer_bytes, lp));
  DASHI_RETURN_IF_ERROR(CreateGuardedBuffer(ctx, real_buffer_bytes, resid));
  DASHI_RETURN_IF_ERROR(CreateGuardedBuffer(ctx, cells * 8, omega));
  DASHI_RETURN_IF_ERROR(CreateGuardedBuffer(ctx, cells * 8, smoothed));
  DASHI_RETURN_IF_ERROR(CreateGuardedBuffer(ctx, cells * 8, normalised));
  DASHI_RETURN_IF_ERROR(CreateGuardedBuffer(ctx, cells * 4, s0));

  const VkBuffer spectra_bufs[] = {z_dev->buffer(), slot_map->buffer(), resid_modes->buffer(),
                                   spec_lp->buffer(), spec_resid->buffer()};
  DASHI_ASSIGN_OR_RETURN(set_spectra, spectra->Bindings(spectra_bufs));
  const VkBuffer combine_bufs[] = {lp->buffer(), resid->buffer(),
                                   closure->fixed_point().buffer(), omega->buffer()};
  DASHI_ASSIGN_OR_RETURN(set_combine, combine->Bindings(combine_bufs));

  if (precision == Precision::kFp64) {
    DASHI_ASSIGN_OR_RETURN(plan_lp,
                           VkFftPlan::Create(ctx, n, Precision::kFp64, *spec_lp, *lp));
    DASHI_ASSIGN_OR_RETURN(plan_resid,
                           VkFftPlan::Create(ctx, n, Precision::kFp64, *spec_resid, *resid));
  } else {
    DASHI_RETURN_IF_ERROR(pipeline(spirv::kConvertF64ToF32, 2, sizeof(CountParams), to_f32));
    DASHI_RETURN_IF_ERROR(pipeline(spirv::kConvertF32ToF64, 2, sizeof(CountParams), to_f64));
    DASHI_RETURN_IF_ERROR(
        CreateGuardedBuffer(ctx, VkFftPlan::SpectrumBytes(n, Precision::kFp32), spec32));
    DASHI_RETURN_IF_ERROR(
        CreateGuardedBuffer(ctx, VkFftPlan::RealBufferBytes(n, Precision::kFp32), real32));
    DASHI_ASSIGN_OR_RETURN(plan32, VkFftPlan::Create(ctx, n, Precision::kFp32, *spec32, *real32));
    const VkBuffer a[] = {spec_lp->buffer(), spec32->buffer()};
    DASHI_ASSIGN_OR_RETURN(set_lp_to_f32, to_f32->Bindings(a));
    const VkBuffer b[] = {spec_resid->buffer(), spec32->buffer()};
    DASHI_ASSIGN_OR_RETURN(set_resid_to_f32, to_f32->Bindings(b));
    const VkBuffer c[] = {real32->buffer(), lp->buffer()};
    DASHI_ASSIGN_OR_RETURN(set_f64_lp, to_f64->Bindings(c));
    const VkBuffer d[] = {real32->buffer(), resid->buffer()};
    DASHI_ASSIGN_OR_RETURN(set_f64_resid, to_f64->Bindings(d));
  }
  return OkStatus();
}

Status VulkanDecoder::Impl::RecordInverse(VkFftPlan* plan64, VkDescriptorSet to_f32_set,
                                          VkDescriptorSet to_f64_set) {
  if (precision == Precision::kFp64) {
    DASHI_RETURN_IF_ERROR(plan64->RecordInverse(batch->command_buffer()));
    batch->Barrier();
    return OkStatus();
  }
  const CountParams spectrum_scalars{static_cast<uint32_t>(2 * half_complex)};
  batch->Dispatch(*to_f32, to_f32_set, &spectrum_scalars, sizeof(spectrum_scalars),
                  Groups(spectrum_scalars.count));
  batch->Barrier();
  DASHI_RETURN_IF_ERROR(plan32->RecordInverse(batch->command_buffer()));
  batch->Barrier();
  const CountParams real_scalars{static_cast<uint32_t>(cells)};
  batch->Dispatch(*to_f64, to_f64_set, &real_scalars, sizeof(real_scalars),
                  Groups(real_scalars.count));
  batch->Barrier();
  return OkStatus();
}

StatusOr<DecodedFrame> VulkanDecoder::Decode(std::span<const double> z, uint64_t t,
                                             ObserverMode mode) {
  DecodedFrame frame{{}, {}, {}, ClosureResult{*Carrier::Zeros({1, 1}), 0, false, {}}, {}};
  DASHI_RETURN_IF_ERROR(DecodeInto(z, t, mode, frame));
  return frame;
}

Status VulkanDecoder::Impl::RecordFields(uint64_t z_bytes, uint64_t t, const double amps[2],
                                         bool read_levels) {
  const DeviceBuffer* mask_field = read_levels ? normalised.get() : nullptr;
  const double n2 = static_cast<double>(spec.n) * static_cast<double>(spec.n);
  batch->CopyBuffer(z_staging->buffer(), z_dev->buffer(), z_bytes);
  // On the one-dispatch closure path the threshold writes s_0 straight into the closure's
  // fixed-point iterate, and the closure's start (resetting its records: transfers only) goes
  // here, behind the z copy's barrier, instead of between the threshold and the closure.
  if (closure->start_reads_fixed_point()) {
    DASHI_RETURN_IF_ERROR(closure->RecordStart(*batch, closure->fixed_point(), mask_field,
                                               read_levels));
  }
  batch->Barrier();
  // Every slot of both spectra written (no clearing pass): the scatter and the synthesis.
  const DecodeSpectraParams sp{params.seed, t,         amps[0], amps[1],
                               n2,          mid_count, static_cast<uint32_t>(half_complex)};
  batch->Dispatch(*spectra, set_spectra, &sp, sizeof(sp), Groups(half_complex));
  batch->Barrier();
  batch->Timestamp("spectra");
  DASHI_RETURN_IF_ERROR(RecordInverse(plan_lp.get(), set_lp_to_f32, set_f64_lp));
  batch->Timestamp("ifft_lp");
  DASHI_RETURN_IF_ERROR(RecordInverse(plan_resid.get(), set_resid_to_f32, set_f64_resid));
  batch->Timestamp("ifft_resid");
  return OkStatus();
}

Status VulkanDecoder::Impl::RecordMask(bool read_levels, int steps) {
  CommandBatch& b = *batch;
  const DeviceBuffer* mask_field = read_levels ? normalised.get() : nullptr;
  // s_0: straight into the closure's fixed-point iterate on the one-dispatch path (RecordFields
  // recorded its start).
  const DeviceBuffer& carrier = closure->start_reads_fixed_point() ? closure->fixed_point() : *s0;
  // The threshold runs in the normalisation's last pass: its time is the normalise stage's
  // (threshold_ms is 0 on the device).
  if (options.fold_max && recorder->FoldsMax()) {
    DASHI_ASSIGN_OR_RETURN(const uint32_t groups,
                           recorder->SmoothWithMax(b, *lp, *smoothed, params.smoothing));
    b.Timestamp("mask_smooth");
    DASHI_RETURN_IF_ERROR(recorder->NormalizeAndThresholdFromGroups(
        b, *smoothed, *normalised, carrier, params.threshold, groups));
  } else {
    DASHI_RETURN_IF_ERROR(recorder->Smooth(b, *lp, *smoothed, params.smoothing));
    b.Timestamp("mask_smooth");
    DASHI_RETURN_IF_ERROR(
        recorder->NormalizeAndThreshold(b, *smoothed, *normalised, carrier, params.threshold));
  }
  b.Timestamp("mask_normalise");
  // Without levels to read back, the statistics pass only counts cells (the control record needs
  // the changed count), skipping the Σ|field| the levels' means would need.
  if (!closure->start_reads_fixed_point()) {
    DASHI_RETURN_IF_ERROR(closure->RecordStart(b, *s0, mask_field, read_levels));
  }
  DASHI_RETURN_IF_ERROR(closure->RecordSteps(b, steps).status());
  b.Timestamp("mask_closure");
  return OkStatus();
}

void VulkanDecoder::Impl::RecordCombineAndReadback(bool snapshots) {
  CommandBatch& b = *batch;
  const CountParams cp{static_cast<uint32_t>(cells)};
  b.Dispatch(*combine, set_combine, &cp, sizeof(cp), Groups(cells));
  b.Barrier();
  b.Timestamp("combine");
  if (snapshots) {
    const uint64_t f64_bytes = cells * 8;
    const VkBuffer rb = readback->buffer();
    b.CopyBuffer(omega->buffer(), rb, f64_bytes, 0, 0);
    b.CopyBuffer(lp->buffer(), rb, f64_bytes, 0, f64_bytes);
    b.CopyBuffer(resid->buffer(), rb, f64_bytes, 0, 2 * f64_bytes);
    b.CopyBuffer(closure->fixed_point().buffer(), rb, cells * 4, 0, 3 * f64_bytes);
  }
  closure->RecordReadback(b);  // ends with the host-read barrier for both
  b.Timestamp("readback");
}

Status VulkanDecoder::DecodeInto(std::span<const double> z, uint64_t t, ObserverMode mode,
                                 DecodedFrame& frame) {
  return DecodeInto(z, t, mode, frame, AfterCombine());
}

Status VulkanDecoder::DecodeInto(std::span<const double> z, uint64_t t, ObserverMode mode,
                                 DecodedFrame& frame, const AfterCombine& after) {
  Impl& m = *impl_;
  const auto host_start = Clock::now();
  if (static_cast<int64_t>(z.size()) != m.spec.dim()) {
    return InvalidArgumentError("z has " + std::to_string(z.size()) +
                                " values, the proxy has D = " + std::to_string(m.spec.dim()));
  }
  for (size_t k = 0; k < z.size(); ++k) {
    if (!std::isfinite(z[k])) {
      return InvalidArgumentError("z value at index " + std::to_string(k) + " is not finite");
    }
  }
  VulkanDecodeReport report;
  report.precision = m.precision;
  report.mode = mode;

  // Residual amplitudes exactly as core_ref computes them (host fp64, correctly rounded sqrt).
  const double n2 = static_cast<double>(m.spec.n) * static_cast<double>(m.spec.n);
  const double scalars[2] = {z[m.spec.mid_index()], z[m.spec.high_index()]};
  const size_t band_sizes[2] = {m.spec.mid_residual.size(), m.spec.high_residual.size()};
  double amps[2] = {0, 0};
  for (int b = 0; b < 2; ++b) {
    if (band_sizes[b] == 0) continue;
    amps[b] = std::fabs(scalars[b]) / std::sqrt(static_cast<double>(band_sizes[b])) * n2;
  }
  std::memcpy(m.z_staging->data(), z.data(), z.size_bytes());

  const bool snapshots = mode == ObserverMode::kSnapshots;
  const uint64_t f64_bytes = m.cells * 8, mask_bytes = m.cells * 4;
  if (snapshots && !m.readback.has_value()) {
    DASHI_ASSIGN_OR_RETURN(HostVisibleBuffer rb,
                           HostVisibleBuffer::CreateForReading(m.ctx, 3 * f64_bytes + mask_bytes));
    m.readback.emplace(std::move(rb));
  }

  // One submission: every stage, then one wait.
  CommandBatch& batch = *m.batch;
  DASHI_RETURN_IF_ERROR(batch.Begin());
  batch.Barrier();  // earlier submissions' writes before this one's
  batch.Timestamp("begin");
  DASHI_RETURN_IF_ERROR(
      m.RecordFields(z.size_bytes(), t, amps, /*read_levels=*/mode != ObserverMode::kNone));
  DASHI_RETURN_IF_ERROR(m.RecordMask(/*read_levels=*/mode != ObserverMode::kNone,
                                     m.first_closure_steps));
  m.RecordCombineAndReadback(snapshots);
  if (after) DASHI_RETURN_IF_ERROR(after(batch));
  const auto wait_start = Clock::now();
  report.host_record_ms =
      std::chrono::duration<double, std::milli>(wait_start - host_start).count();
  DASHI_RETURN_IF_ERROR(batch.SubmitAndWait());
  report.host_wait_ms += MsSince(wait_start);
  AddStageTimes(batch.StageMilliseconds(), report);
  report.submissions = 1;
  report.closure_readback_bytes = m.closure->last_readback_bytes();
  DASHI_ASSIGN_OR_RETURN(CarrierClosure::Progress progress, m.closure->ReadSubmission());

  // A closure deeper than the steps recorded: more steps, and the combine and readback again.
  while (!progress.finished) {
    DASHI_RETURN_IF_ERROR(batch.Begin());
    batch.Barrier();
    batch.Timestamp("begin");
    DASHI_ASSIGN_OR_RETURN(
        int recorded, m.closure->RecordSteps(batch, m.options.closure_steps_per_submission));
    if (recorded == 0) {
      return InternalError("closure not finished after all " +
                           std::to_string(m.closure->steps_recorded()) + " steps");
    }
    batch.Timestamp("mask_closure");
    m.RecordCombineAndReadback(snapshots);
    if (after) {
      report.compare_ms = 0;  // only the last submission's comparison counts
      DASHI_RETURN_IF_ERROR(after(batch));
    }
    const auto more_start = Clock::now();
    DASHI_RETURN_IF_ERROR(batch.SubmitAndWait());
    report.host_wait_ms += MsSince(more_start);
    AddStageTimes(batch.StageMilliseconds(), report);
    ++report.submissions;
    report.closure_readback_bytes += m.closure->last_readback_bytes();
    DASHI_ASSIGN_OR_RETURN(progress, m.closure->ReadSubmission());
  }
  report.closure_steps_recorded = static_cast<int>(m.closure->steps_recorded());
  report.closure_steps_run = progress.steps;
  report.closure_dispatch = m.closure->dispatch();
  // Multi-dispatch: level 0's statistics (2), then per step M and K_ann (2 + 2), the statistics (2)
  // and the control (1); strips: level 0's statistics (2), then per step the strip step and the
  // reduction with the control (2).
  switch (report.closure_dispatch) {
    case ClosureDispatch::kSharedMemory: report.closure_dispatches = 1; break;
    case ClosureDispatch::kMultiDispatch:
      report.closure_dispatches = 2 + 7 * report.closure_steps_recorded;
      break;
    case ClosureDispatch::kStrips:
      report.closure_dispatches = 2 + 2 * report.closure_steps_recorded;
      break;
  }
  // Snapshots change slowly: the next decode records one step more than this one ran.
  m.first_closure_steps = std::clamp(progress.steps + 1, 1, m.options.closure_steps_per_submission);

  frame.omega.clear();  // clear() keeps the capacity for the next snapshot
  frame.omega_lp.clear();
  frame.omega_resid.clear();
  frame.closure.depth = 0;
  frame.closure.reached_fixed_point = false;
  frame.closure.levels.clear();
  if (!snapshots && frame.closure.fixed_point.size() != 1) {
    DASHI_ASSIGN_OR_RETURN(frame.closure.fixed_point, Carrier::Zeros({1, 1}));
  }
  if (mode != ObserverMode::kNone) {
    frame.closure.depth = progress.depth;
    frame.closure.reached_fixed_point = progress.reached_fixed_point;
    frame.closure.levels = m.closure->levels();
  }
  if (snapshots) {
    report.readback_bytes = 3 * f64_bytes + mask_bytes;
    report.readback_host_cached = m.readback->host_cached();
    const auto unpack_start = Clock::now();
    const auto* base = static_cast<const uint8_t*>(m.readback->data());
    const auto* f64 = reinterpret_cast<const double*>(base);
    frame.omega.assign(f64, f64 + m.cells);  // one pass each: no zero-fill before the copy
    frame.omega_lp.assign(f64 + m.cells, f64 + 2 * m.cells);
    frame.omega_resid.assign(f64 + 2 * m.cells, f64 + 3 * m.cells);
    const auto* words = reinterpret_cast<const int32_t*>(base + 3 * f64_bytes);
    std::vector<int8_t> values(m.cells);
    for (size_t k = 0; k < values.size(); ++k) {
      if (words[k] < -1 || words[k] > 1) {
        return DataLossError("device mask cell " + std::to_string(k) + " holds " +
                             std::to_string(words[k]) + ", not -1, 0 or +1");
      }
      values[k] = static_cast<int8_t>(words[k]);
    }
    DASHI_ASSIGN_OR_RETURN(frame.closure.fixed_point,
                           Carrier::FromValues({m.spec.n, m.spec.n}, std::move(values)));
    report.readback_host_ms = MsSince(unpack_start);
  }
  report.host_ms = MsSince(host_start);
  report.host_finish_ms = report.host_ms - report.host_record_ms - report.host_wait_ms;
  frame.times = report.stages;
  m.report = report;
  return OkStatus();
}

Status VulkanDecoder::WarmUp(ObserverMode mode, const AfterCombine& after) {
  Impl& m = *impl_;
  const std::vector<double> z(static_cast<size_t>(m.spec.dim()), 1.0);
  const VulkanDecodeReport kept = m.report;
  const int kept_steps = m.first_closure_steps;
  DecodedFrame frame{{}, {}, {}, ClosureResult{*Carrier::Zeros({1, 1}), 0, false, {}}, {}};
  const Status s = DecodeInto(z, /*t=*/0, mode, frame, after);
  m.warmup_report = m.report;
  m.report = kept;
  m.first_closure_steps = kept_steps;
  return s;
}

const VulkanDecodeReport& VulkanDecoder::warmup_report() const { return impl_->warmup_report; }

const VulkanDecodeReport& VulkanDecoder::last_report() const { return impl_->report; }
Precision VulkanDecoder::precision() const { return impl_->precision; }
const ProxySpec& VulkanDecoder::spec() const { return impl_->spec; }
const DecodeParams& VulkanDecoder::params() const { return impl_->params; }
const DeviceBuffer& VulkanDecoder::omega_buffer() const { return *impl_->omega; }

std::vector<VkFftPlan::CacheUse> VulkanDecoder::fft_cache_uses() const {
  std::vector<VkFftPlan::CacheUse> uses;
  for (const VkFftPlan* p : {impl_->plan_lp.get(), impl_->plan_resid.get(), impl_->plan32.get()}) {
    if (p != nullptr) uses.push_back(p->cache_use());
  }
  return uses;
}

Status VulkanDecoder::CheckGuards() const {
  const Impl& m = *impl_;
  std::vector<GuardedPayload> items = {
      {"z", m.z_dev.get(), static_cast<uint64_t>(m.spec.dim()) * 8},
      {"spectrum_lp", m.spec_lp.get(), m.half_complex * 16},
      {"spectrum_resid", m.spec_resid.get(), m.half_complex * 16},
      {"omega_lp", m.lp.get(), m.cells * 8},
      {"omega_resid", m.resid.get(), m.cells * 8},
      {"omega", m.omega.get(), m.cells * 8},
      {"mask_smoothed", m.smoothed.get(), m.cells * 8},
      {"mask_normalised", m.normalised.get(), m.cells * 8},
      {"mask_s0", m.s0.get(), m.cells * 4},
  };
  if (m.precision == Precision::kFp32) {
    items.push_back({"spectrum_fp32", m.spec32.get(), m.half_complex * 8});
    items.push_back({"real_fp32", m.real32.get(), m.cells * 4});
  }
  DASHI_RETURN_IF_ERROR(CheckGuardWords(m.ctx, items, " buffer"));
  return m.closure->CheckGuards();  // the iterates, s* among them
}

}  // namespace dashi::vk
