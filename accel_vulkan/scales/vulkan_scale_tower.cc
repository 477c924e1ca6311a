#include "accel_vulkan/scales/vulkan_scale_tower.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstddef>
#include <cstring>
#include <string>
#include <utility>

#include "accel_vulkan/buffer.h"
#include "accel_vulkan/carrier/carrier_closure.h"
#include "accel_vulkan/carrier/carrier_kernels.h"
#include "accel_vulkan/carrier/carrier_recorder.h"
#include "accel_vulkan/command_batch.h"
#include "accel_vulkan/compute_pipeline.h"
#include "accel_vulkan/decode/vkfft_plan.h"
#include "accel_vulkan/guard_words.h"
#include "core_ref/scales/layer_sums.h"
#include "shaders/carrier/carrier_params.h"
#include "shaders/scales/scales_band.h"
#include "shaders/scales/scales_gate.h"
#include "shaders/scales/scales_layer_sums.h"
#include "shaders/scales/scales_params.h"

namespace dashi::vk {
namespace {

constexpr uint32_t kWorkgroup = 64;
// The layer sums' one workgroup (its tile; shaders/scales/scales_layer_sums.comp holds at most
// 1024). 256 is within every Vulkan device's maxComputeWorkGroupSize (≥ 128 guaranteed, 1024 on
// lavapipe and NVIDIA).
constexpr uint32_t kSumsWorkgroup = 256;
constexpr int kClosureStepsPerSubmission = 8;

using Clock = std::chrono::steady_clock;

// The record's sums as core_ref's LayerSums (the closure depth is the host's, from the control
// record).
LayerSums SumsFromRecord(const ScaleLayerRecord& r, int depth) {
  LayerSums s;
  s.modes = static_cast<int64_t>(r.modes);
  s.enstrophy_sum = r.enstrophy_sum;
  s.energy_sum = r.energy_sum;
  s.max_abs = r.max_abs;
  s.below_floor = r.below_floor != 0;
  s.active_before = static_cast<int64_t>(r.active_before);
  s.active_after = static_cast<int64_t>(r.active_after);
  s.defect_before = static_cast<int64_t>(r.defect_before);
  s.defect_after = static_cast<int64_t>(r.defect_after);
  s.agree = static_cast<int64_t>(r.agree);
  s.disagree = static_cast<int64_t>(r.disagree);
  s.band_total = r.band_total;
  s.on_support = r.on_support;
  s.closure_depth = depth;
  return s;
}

}  // namespace

struct VulkanScaleTower::Impl {
  explicit Impl(VulkanContext& c) : ctx(c) {}

  VulkanContext& ctx;
  int64_t n = 0;
  uint64_t cells = 0;
  ScaleTowerParams params;
  std::vector<ScaleBand> bands;

  std::unique_ptr<CarrierKernels> kernels;
  std::unique_ptr<CarrierRecorder> recorder;
  std::unique_ptr<CarrierClosure> closure;
  std::unique_ptr<CommandBatch> batch;
  std::unique_ptr<ComputePipeline> band_pipe, gate_pipe, sums_pipe;
  // real_in: ω (the forward plan's real buffer); spectrum: its half spectrum; band_spectrum and
  // band: one layer's (the inverse plan's buffers); normalised, s0; coarser[ℓ % 2]: s*_ℓ kept
  // for layer ℓ + 1; records: L + 1 ScaleLayerRecords.
  std::unique_ptr<DeviceBuffer> real_in, spectrum, band_spectrum, band, normalised, s0, records;
  std::unique_ptr<DeviceBuffer> coarser[2];
  std::unique_ptr<VkFftPlan> forward, inverse;
  std::unique_ptr<HostVisibleBuffer> staging, host_records;
  std::unique_ptr<HostVisibleBuffer> host_carriers;  // kCarriers: spectrum, then per layer b, s0, s*
  bool read_carriers = false;
  TowerIntermediates intermediates;
  VkDescriptorSet band_set = VK_NULL_HANDLE, gate_set = VK_NULL_HANDLE;
  VkDescriptorSet sums_set[2] = {VK_NULL_HANDLE, VK_NULL_HANDLE};  // by the coarser's parity
  VulkanScaleTowerReport report;

  Status Init();
  uint32_t Groups(uint64_t count) const {
    const uint64_t g = (count + kWorkgroup - 1) / kWorkgroup;
    return static_cast<uint32_t>(std::clamp<uint64_t>(g, 1, 65535));
  }
  uint64_t RecordBytes() const { return (bands.size() + 1) * sizeof(ScaleLayerRecord); }
  uint64_t SpectrumBytes() const { return cells / n * (n / 2 + 1) * 16; }
  uint64_t LayerCarrierBytes() const { return cells * 16; }  // b (fp64), s0 and s* (int32)
  uint64_t CarrierBytes() const { return SpectrumBytes() + bands.size() * LayerCarrierBytes(); }
  Status UnpackCarriers();
  // Copies 8 bytes of the carrier recorder's record `slot` at `field_offset` into layer record
  // `layer` at `record_offset`.
  void StashRecord(uint32_t slot, size_t field_offset, size_t layer, size_t record_offset) {
    batch->CopyBuffer(recorder->records().buffer(), records->buffer(), 8,
                      slot * sizeof(CarrierTotals) + field_offset,
                      layer * sizeof(ScaleLayerRecord) + record_offset);
    batch->Barrier();
  }
  // ω's forward FFT and max |ω|, then layer ℓ up to its closure's first steps.
  Status RecordLayerStart(size_t l, const VkBuffer omega_source);
  // After the closure: D(s*), the layer's sums, s* kept; the records to the host after the last.
  Status RecordLayerEnd(size_t l);
  Status RunFrom(VkBuffer omega_source, std::vector<ScaleLayer>& out);
};

VulkanScaleTower::VulkanScaleTower(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

VulkanScaleTower::~VulkanScaleTower() {
  if (impl_ != nullptr) {
    vkDeviceWaitIdle(impl_->ctx.device());
    impl_->forward.reset();  // VkFFT holds descriptors on the buffers
    impl_->inverse.reset();
  }
}

StatusOr<std::unique_ptr<VulkanScaleTower>> VulkanScaleTower::Create(
    VulkanContext& ctx, int64_t n, const ScaleTowerParams& params) {
  DASHI_RETURN_IF_ERROR(ValidateScaleTowerParams(params, n));
  if (n < 8) {
    return InvalidArgumentError("VulkanScaleTower: N = " + std::to_string(n) +
                                " (the device FFT needs N ≥ 8)");
  }
  if (!ctx.info().shader_float64 || !ctx.info().shader_int64) {
    return UnimplementedError("VulkanScaleTower needs shaderFloat64 and shaderInt64; " +
                              ctx.info().name + " lacks them");
  }
  auto impl = std::make_unique<Impl>(ctx);
  impl->n = n;
  impl->cells = static_cast<uint64_t>(n * n);
  impl->params = params;
  impl->bands = ScaleBands(n, params.k_lo);
  DASHI_RETURN_IF_ERROR(impl->Init());
  return std::unique_ptr<VulkanScaleTower>(new VulkanScaleTower(std::move(impl)));
}

Status VulkanScaleTower::Impl::Init() {
  const uint32_t un = static_cast<uint32_t>(n);
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(ctx.physical_device(), &props);
  const uint64_t largest = VkFftPlan::RealBufferBytes(un, Precision::kFp64) + kGuardBytes;
  if (largest > props.limits.maxStorageBufferRange) {
    return UnimplementedError("VulkanScaleTower N = " + std::to_string(n) + " needs " +
                              std::to_string(largest) + "-byte storage buffers; " +
                              ctx.info().name + " allows " +
                              std::to_string(props.limits.maxStorageBufferRange));
  }
  DASHI_ASSIGN_OR_RETURN(kernels, CarrierKernels::Create(ctx, {}));
  DASHI_ASSIGN_OR_RETURN(recorder, CarrierRecorder::Create(*kernels, {n, n}));
  DASHI_ASSIGN_OR_RETURN(closure, CarrierClosure::Create(*recorder, params.closure,
                                                         kClosureStepsPerSubmission));
  DASHI_ASSIGN_OR_RETURN(batch, CommandBatch::Create(ctx, 64));
  auto pipeline = [&](std::span<const uint32_t> spirv, uint32_t buffers, uint32_t push,
                      std::unique_ptr<ComputePipeline>& out, uint32_t workgroup = kWorkgroup) -> Status {
    DASHI_ASSIGN_OR_RETURN(out, ComputePipeline::Create(ctx, {spirv, buffers, push, {workgroup}, 4}));
    return OkStatus();
  };
  DASHI_RETURN_IF_ERROR(pipeline(spirv::kScalesBand, 2, sizeof(ScalesBandParams), band_pipe));
  DASHI_RETURN_IF_ERROR(pipeline(spirv::kScalesGate, 2, sizeof(ScalesGateParams), gate_pipe));
  DASHI_RETURN_IF_ERROR(
      pipeline(spirv::kScalesLayerSums, 6, sizeof(ScalesLayerParams), sums_pipe, kSumsWorkgroup));

  const uint64_t spec_bytes = VkFftPlan::SpectrumBytes(un, Precision::kFp64);
  const uint64_t real_bytes = VkFftPlan::RealBufferBytes(un, Precision::kFp64);
  DASHI_RETURN_IF_ERROR(CreateGuardedBuffer(ctx, real_bytes, real_in));
  DASHI_RETURN_IF_ERROR(CreateGuardedBuffer(ctx, spec_bytes, spectrum));
  DASHI_RETURN_IF_ERROR(CreateGuardedBuffer(ctx, spec_bytes, band_spectrum));
  DASHI_RETURN_IF_ERROR(CreateGuardedBuffer(ctx, real_bytes, band));
  DASHI_RETURN_IF_ERROR(CreateGuardedBuffer(ctx, cells * 8, normalised));
  DASHI_RETURN_IF_ERROR(CreateGuardedBuffer(ctx, cells * 4, s0));
  DASHI_RETURN_IF_ERROR(CreateGuardedBuffer(ctx, cells * 4, coarser[0]));
  DASHI_RETURN_IF_ERROR(CreateGuardedBuffer(ctx, cells * 4, coarser[1]));
  DASHI_RETURN_IF_ERROR(CreateGuardedBuffer(ctx, RecordBytes(), records));
  DASHI_ASSIGN_OR_RETURN(HostVisibleBuffer host,
                         HostVisibleBuffer::CreateForReading(ctx, RecordBytes()));
  host_records = std::make_unique<HostVisibleBuffer>(std::move(host));
  DASHI_ASSIGN_OR_RETURN(forward,
                         VkFftPlan::Create(ctx, un, Precision::kFp64, *spectrum, *real_in));
  DASHI_ASSIGN_OR_RETURN(inverse,
                         VkFftPlan::Create(ctx, un, Precision::kFp64, *band_spectrum, *band));

  const VkBuffer band_bufs[] = {spectrum->buffer(), band_spectrum->buffer()};
  DASHI_ASSIGN_OR_RETURN(band_set, band_pipe->Bindings(band_bufs));
  const VkBuffer gate_bufs[] = {records->buffer(), s0->buffer()};
  DASHI_ASSIGN_OR_RETURN(gate_set, gate_pipe->Bindings(gate_bufs));
  for (int parity = 0; parity < 2; ++parity) {
    const VkBuffer sums_bufs[] = {spectrum->buffer(),          band->buffer(),
                                  s0->buffer(),                closure->fixed_point().buffer(),
                                  coarser[parity]->buffer(),   records->buffer()};
    DASHI_ASSIGN_OR_RETURN(sums_set[parity], sums_pipe->Bindings(sums_bufs));
  }
  return OkStatus();
}

Status VulkanScaleTower::Impl::RecordLayerStart(size_t l, const VkBuffer omega_source) {
  CommandBatch& b = *batch;
  const uint32_t un = static_cast<uint32_t>(n);
  const uint32_t field_slot = static_cast<uint32_t>(bands.size());
  if (l == 0) {
    b.CopyBuffer(omega_source, real_in->buffer(), cells * 8);
    b.FillBuffer(coarser[1]->buffer(), 0, cells * 4, 0);  // layer 0 has no coarser layer
    b.FillBuffer(records->buffer(), 0, RecordBytes(), 0);
    b.Barrier();
    DASHI_RETURN_IF_ERROR(recorder->NormalizeByMaxAbs(b, *real_in, *normalised));
    StashRecord(CarrierRecorder::kRecordMaxAbs, offsetof(CarrierTotals, maxabs), field_slot,
                offsetof(ScaleLayerRecord, max_abs));
    DASHI_RETURN_IF_ERROR(forward->RecordForward(b.command_buffer()));
    b.Barrier();
    if (read_carriers) b.CopyBuffer(spectrum->buffer(), host_carriers->buffer(), SpectrumBytes());
    b.Timestamp("forward");
  }
  const ScaleBand& band_k = bands[l];
  const ScalesBandParams bp{un, static_cast<int32_t>(band_k.lo2),
                            static_cast<int32_t>(band_k.hi2), 0};
  b.Dispatch(*band_pipe, band_set, &bp, sizeof(bp), Groups(uint64_t{un} * (un / 2 + 1)));
  b.Barrier();
  DASHI_RETURN_IF_ERROR(inverse->RecordInverse(b.command_buffer()));
  b.Barrier();
  b.Timestamp("band");
  DASHI_RETURN_IF_ERROR(
      recorder->NormalizeAndThreshold(b, *band, *normalised, *s0, params.threshold));
  StashRecord(CarrierRecorder::kRecordMaxAbs, offsetof(CarrierTotals, maxabs), l,
              offsetof(ScaleLayerRecord, max_abs));
  const ScalesGateParams gp{params.relative_floor, static_cast<uint32_t>(cells),
                            static_cast<uint32_t>(l), field_slot, 0};
  b.Dispatch(*gate_pipe, gate_set, &gp, sizeof(gp), Groups(cells));
  b.Barrier();
  DASHI_RETURN_IF_ERROR(recorder->Defect(b, *s0, Neighbourhood::kFour));
  StashRecord(CarrierRecorder::kRecordDefect, offsetof(CarrierTotals, c0), l,
              offsetof(ScaleLayerRecord, defect_before));
  b.Timestamp("threshold");
  DASHI_RETURN_IF_ERROR(closure->RecordStart(b, *s0, nullptr, /*read_levels=*/false));
  DASHI_RETURN_IF_ERROR(closure->RecordSteps(b, kClosureStepsPerSubmission).status());
  b.Timestamp("closure");
  return OkStatus();
}

Status VulkanScaleTower::Impl::RecordLayerEnd(size_t l) {
  CommandBatch& b = *batch;
  const DeviceBuffer& closed = closure->fixed_point();
  DASHI_RETURN_IF_ERROR(recorder->Defect(b, closed, Neighbourhood::kFour));
  StashRecord(CarrierRecorder::kRecordDefect, offsetof(CarrierTotals, c0), l,
              offsetof(ScaleLayerRecord, defect_after));
  const ScaleBand& band_k = bands[l];
  const ScalesLayerParams sp{static_cast<uint32_t>(n), static_cast<int32_t>(band_k.lo2),
                             static_cast<int32_t>(band_k.hi2), static_cast<uint32_t>(l)};
  b.Dispatch(*sums_pipe, sums_set[(l + 1) % 2], &sp, sizeof(sp), 1);
  b.Barrier();
  // Layer ℓ reads coarser[(ℓ+1) % 2] and writes coarser[ℓ % 2]: re-recording this end after a
  // closure continuation reads the same coarser carrier again.
  b.CopyBuffer(closed.buffer(), coarser[l % 2]->buffer(), cells * 4);
  if (read_carriers) {
    const uint64_t at = SpectrumBytes() + l * LayerCarrierBytes();
    b.CopyBuffer(band->buffer(), host_carriers->buffer(), cells * 8, 0, at);
    b.CopyBuffer(s0->buffer(), host_carriers->buffer(), cells * 4, 0, at + cells * 8);
    b.CopyBuffer(closed.buffer(), host_carriers->buffer(), cells * 4, 0, at + cells * 12);
  }
  b.Barrier();
  if (l + 1 == bands.size()) {
    b.CopyBuffer(records->buffer(), host_records->buffer(), RecordBytes());
  }
  closure->RecordReadback(b);  // ends with the host-read barrier
  b.Timestamp("sums");
  return OkStatus();
}

Status VulkanScaleTower::Impl::RunFrom(VkBuffer omega_source, std::vector<ScaleLayer>& out) {
  std::vector<int> depth(bands.size(), 0);
  auto submit = [&]() -> Status {
    DASHI_RETURN_IF_ERROR(batch->SubmitAndWait());
    for (const auto& [label, ms] : batch->StageMilliseconds()) {
      report.device_ms += ms;
      if (label == "forward") report.forward_ms += ms;
      if (label == "band") report.band_ms += ms;
      if (label == "threshold") report.threshold_ms += ms;
      if (label == "closure") report.closure_ms += ms;
      if (label == "sums") report.sums_ms += ms;
    }
    ++report.submissions;
    report.closure_readback_bytes += closure->last_readback_bytes();
    return OkStatus();
  };
  for (size_t l = 0; l < bands.size(); ++l) {
    DASHI_RETURN_IF_ERROR(batch->Begin());
    batch->Barrier();
    batch->Timestamp("begin");
    DASHI_RETURN_IF_ERROR(RecordLayerStart(l, omega_source));
    DASHI_RETURN_IF_ERROR(RecordLayerEnd(l));
    DASHI_RETURN_IF_ERROR(submit());
    DASHI_ASSIGN_OR_RETURN(CarrierClosure::Progress progress, closure->ReadSubmission());
    while (!progress.finished) {  // a closure deeper than the steps recorded
      DASHI_RETURN_IF_ERROR(batch->Begin());
      batch->Barrier();
      batch->Timestamp("begin");
      DASHI_ASSIGN_OR_RETURN(int recorded,
                             closure->RecordSteps(*batch, kClosureStepsPerSubmission));
      if (recorded == 0) return InternalError("scale tower: the closure of layer " +
                                              std::to_string(l) + " did not finish");
      batch->Timestamp("closure");
      DASHI_RETURN_IF_ERROR(RecordLayerEnd(l));
      DASHI_RETURN_IF_ERROR(submit());
      DASHI_ASSIGN_OR_RETURN(progress, closure->ReadSubmission());
    }
    depth[l] = progress.depth;
  }
  report.stats_readback_bytes = RecordBytes();
  std::vector<ScaleLayerRecord> recs(bands.size() + 1);
  std::memcpy(recs.data(), host_records->data(), RecordBytes());
  out.clear();
  for (size_t l = 0; l < bands.size(); ++l) {
    const ScaleLayerRecord& r = recs[l];
    if (r.below_floor > 1 || r.active_after > r.active_before ||
        r.active_before > cells || r.agree + r.disagree > r.active_after) {
      return DataLossError("scale tower: the device's record of layer " + std::to_string(l) +
                           " is inconsistent (counts outside their bounds)");
    }
    out.push_back(LayerFromSums(bands[l], n, SumsFromRecord(r, depth[l])));
  }
  intermediates = TowerIntermediates{};
  if (read_carriers) {
    report.carrier_readback_bytes = CarrierBytes();
    DASHI_RETURN_IF_ERROR(UnpackCarriers());
  }
  return OkStatus();
}

Status VulkanScaleTower::Impl::UnpackCarriers() {
  const auto* base = static_cast<const uint8_t*>(host_carriers->data());
  const auto* spec = reinterpret_cast<const double*>(base);
  for (uint64_t k = 0; k < SpectrumBytes() / 16; ++k) {
    intermediates.spectrum.emplace_back(spec[2 * k], spec[2 * k + 1]);
  }
  auto carrier = [&](const int32_t* words, std::vector<Carrier>& out) -> Status {
    std::vector<int8_t> v(cells);
    for (uint64_t k = 0; k < cells; ++k) {
      if (words[k] < -1 || words[k] > 1) {
        return DataLossError("scale tower: device carrier cell " + std::to_string(k) + " holds " +
                             std::to_string(words[k]));
      }
      v[k] = static_cast<int8_t>(words[k]);
    }
    DASHI_ASSIGN_OR_RETURN(Carrier c, Carrier::FromValues({n, n}, std::move(v)));
    out.push_back(std::move(c));
    return OkStatus();
  };
  for (size_t l = 0; l < bands.size(); ++l) {
    const uint8_t* at = base + SpectrumBytes() + l * LayerCarrierBytes();
    const auto* b = reinterpret_cast<const double*>(at);
    intermediates.band.emplace_back(b, b + cells);
    DASHI_RETURN_IF_ERROR(
        carrier(reinterpret_cast<const int32_t*>(at + cells * 8), intermediates.initial));
    DASHI_RETURN_IF_ERROR(
        carrier(reinterpret_cast<const int32_t*>(at + cells * 12), intermediates.closed));
  }
  return OkStatus();
}

StatusOr<std::vector<ScaleLayer>> VulkanScaleTower::Run(std::span<const double> omega,
                                                        TowerReadback readback) {
  Impl& m = *impl_;
  const auto start = Clock::now();
  if (omega.size() != m.cells) {
    return InvalidArgumentError("scale tower: the field has " + std::to_string(omega.size()) +
                                " values, expected N² = " + std::to_string(m.cells));
  }
  for (size_t k = 0; k < omega.size(); ++k) {
    if (!std::isfinite(omega[k])) {
      return InvalidArgumentError("scale tower: the field's value at index " + std::to_string(k) +
                                  " is not finite");
    }
  }
  if (m.staging == nullptr) {
    DASHI_ASSIGN_OR_RETURN(HostVisibleBuffer s, HostVisibleBuffer::Create(m.ctx, m.cells * 8));
    m.staging = std::make_unique<HostVisibleBuffer>(std::move(s));
  }
  std::memcpy(m.staging->data(), omega.data(), omega.size_bytes());
  m.read_carriers = readback == TowerReadback::kCarriers;
  if (m.read_carriers && m.host_carriers == nullptr) {
    DASHI_ASSIGN_OR_RETURN(HostVisibleBuffer h,
                           HostVisibleBuffer::CreateForReading(m.ctx, m.CarrierBytes()));
    m.host_carriers = std::make_unique<HostVisibleBuffer>(std::move(h));
  }
  m.report = VulkanScaleTowerReport{};
  m.report.layers = static_cast<int>(m.bands.size());
  m.report.upload_bytes = omega.size_bytes();
  std::vector<ScaleLayer> out;
  DASHI_RETURN_IF_ERROR(m.RunFrom(m.staging->buffer(), out));
  m.report.host_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return out;
}

StatusOr<std::vector<ScaleLayer>> VulkanScaleTower::RunOnDevice(const DeviceBuffer& omega) {
  Impl& m = *impl_;
  const auto start = Clock::now();
  if (omega.buffer() == VK_NULL_HANDLE || omega.size() < m.cells * 8) {
    return InvalidArgumentError("scale tower: the device field holds fewer than N² doubles");
  }
  m.read_carriers = false;
  m.report = VulkanScaleTowerReport{};
  m.report.layers = static_cast<int>(m.bands.size());
  std::vector<ScaleLayer> out;
  DASHI_RETURN_IF_ERROR(m.RunFrom(omega.buffer(), out));
  m.report.host_ms = std::chrono::duration<double, std::milli>(Clock::now() - start).count();
  return out;
}

const VulkanScaleTowerReport& VulkanScaleTower::last_report() const { return impl_->report; }
const TowerIntermediates& VulkanScaleTower::last_intermediates() const {
  return impl_->intermediates;
}
int64_t VulkanScaleTower::n() const { return impl_->n; }
const ScaleTowerParams& VulkanScaleTower::params() const { return impl_->params; }

Status VulkanScaleTower::CheckGuards() const {
  const Impl& m = *impl_;
  const GuardedPayload items[] = {
      {"omega", m.real_in.get(), m.cells * 8},
      {"spectrum", m.spectrum.get(), m.SpectrumBytes()},
      {"band_spectrum", m.band_spectrum.get(), m.SpectrumBytes()},
      {"band", m.band.get(), m.cells * 8},
      {"normalised", m.normalised.get(), m.cells * 8},
      {"s0", m.s0.get(), m.cells * 4},
      {"coarser_even", m.coarser[0].get(), m.cells * 4},
      {"coarser_odd", m.coarser[1].get(), m.cells * 4},
      {"layer_records", m.records.get(), m.RecordBytes()},
  };
  DASHI_RETURN_IF_ERROR(CheckGuardWords(m.ctx, items, " buffer"));
  return m.closure->CheckGuards();
}

}  // namespace dashi::vk
