// The submit-and-wait carrier ops. Every op validates its operands, records through the
// CarrierRecorder of its grid shape (kept while consecutive ops use one shape; its cached
// descriptor sets are forgotten at the start of every op, since operand buffers come and go),
// submits once and waits. Outputs are new buffers with a guard region filled in the same
// submission; only small records (a defect count, the fusion flags, the closure's control record
// and level statistics) are read back.
#include "accel_vulkan/carrier/carrier_ops.h"

#include <algorithm>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include "accel_vulkan/buffer.h"
#include "accel_vulkan/carrier/carrier_closure.h"
#include "accel_vulkan/carrier/carrier_kernels.h"
#include "accel_vulkan/command_batch.h"
#include "accel_vulkan/guard_words.h"
#include "core_ref/carrier/fusion.h"
#include "shaders/carrier/carrier_params.h"

namespace dashi::vk {
namespace {

// Largest scratch chunk of fusion channels, bytes (also capped by maxStorageBufferRange).
constexpr uint64_t kFuseChunkBudget = uint64_t{64} << 20;

std::string Bytes(uint64_t b) { return std::to_string(b) + " bytes"; }

}  // namespace

struct CarrierOps::Impl {
  explicit Impl(VulkanContext& c) : ctx(c) {}

  VulkanContext& ctx;
  Options options;
  std::unique_ptr<CarrierKernels> kernels;
  std::unique_ptr<CommandBatch> batch;
  std::unique_ptr<CarrierRecorder> recorder;  // of the last shape used
  std::optional<HostVisibleBuffer> record;    // one CarrierTotals read back
  // Fusion scratch, grown on demand (every op waits for its work, so replacing one is safe).
  std::optional<DeviceBuffer> fuse_sum, fuse_chunk;

  // The recorder for `shape` (made when the shape changes), its operand sets forgotten, and the
  // batch begun.
  StatusOr<CarrierRecorder*> Begin(const GridShape& shape);
  // Submits and waits.
  Status Submit() { return batch->SubmitAndWait(); }
  // Copies records()[slot] to host memory, submits, waits and returns the record.
  StatusOr<CarrierTotals> SubmitReadingRecord(uint32_t slot);
  // An output buffer with room for the guard words (filled by RecordGuardFill in the op's
  // submission).
  StatusOr<DeviceBuffer> NewBuffer(uint64_t payload_bytes) {
    return DeviceBuffer::Create(ctx, payload_bytes + kGuardBytes);
  }
  // The body of every op with one output of `cell_bytes` per cell of `shape`: a new output, the
  // guard fill, `record` (the op on the shape's recorder) and one submission.
  using RecordOp = std::function<Status(CarrierRecorder&, CommandBatch&, const DeviceBuffer& out)>;
  StatusOr<DeviceBuffer> RunPerCellOp(const GridShape& shape, uint64_t cell_bytes,
                                      const RecordOp& record);
  StatusOr<DeviceCarrier> CarrierOp(const GridShape& shape, const RecordOp& record) {
    DASHI_ASSIGN_OR_RETURN(DeviceBuffer out, RunPerCellOp(shape, sizeof(int32_t), record));
    return DeviceCarrier{shape, std::move(out)};
  }
  StatusOr<DeviceField> FieldOp(const GridShape& shape, const RecordOp& record) {
    DASHI_ASSIGN_OR_RETURN(DeviceBuffer out, RunPerCellOp(shape, sizeof(double), record));
    return DeviceField{shape, std::move(out)};
  }
  StatusOr<const DeviceBuffer*> Grow(std::optional<DeviceBuffer>& b, uint64_t bytes);

  Status CheckCarrier(const DeviceCarrier& c, const char* what) const;
  Status CheckField(const DeviceField& f, const char* what) const;
  // Fusion over `sources` (buffer, byte offset) channels, each n int32.
  StatusOr<DeviceCarrier> Fuse(const std::vector<std::pair<VkBuffer, uint64_t>>& sources,
                               GridShape shape);
};

StatusOr<CarrierRecorder*> CarrierOps::Impl::Begin(const GridShape& shape) {
  if (recorder == nullptr || !(recorder->shape() == shape)) {
    recorder.reset();
    DASHI_ASSIGN_OR_RETURN(recorder, CarrierRecorder::Create(*kernels, shape));
  } else {
    DASHI_RETURN_IF_ERROR(recorder->ForgetOperands());
  }
  DASHI_RETURN_IF_ERROR(batch->Begin());
  return recorder.get();
}

StatusOr<DeviceBuffer> CarrierOps::Impl::RunPerCellOp(const GridShape& shape,
                                                      uint64_t cell_bytes,
                                                      const RecordOp& record) {
  const uint64_t payload = static_cast<uint64_t>(shape.size()) * cell_bytes;
  DASHI_ASSIGN_OR_RETURN(DeviceBuffer out, NewBuffer(payload));
  DASHI_ASSIGN_OR_RETURN(CarrierRecorder * rec, Begin(shape));
  RecordGuardFill(*batch, {&out}, payload);
  DASHI_RETURN_IF_ERROR(record(*rec, *batch, out));
  DASHI_RETURN_IF_ERROR(Submit());
  return out;
}

StatusOr<CarrierTotals> CarrierOps::Impl::SubmitReadingRecord(uint32_t slot) {
  batch->CopyBuffer(recorder->records().buffer(), record->buffer(), sizeof(CarrierTotals),
                    uint64_t{slot} * sizeof(CarrierTotals), 0);
  batch->HostReadBarrier();
  DASHI_RETURN_IF_ERROR(Submit());
  return record->as<CarrierTotals>()[0];
}

StatusOr<const DeviceBuffer*> CarrierOps::Impl::Grow(std::optional<DeviceBuffer>& b,
                                                     uint64_t bytes) {
  bytes = std::max<uint64_t>(bytes, 256);
  if (!b.has_value() || b->size() < bytes) {
    b.reset();
    DASHI_ASSIGN_OR_RETURN(DeviceBuffer n, DeviceBuffer::Create(ctx, bytes));
    b.emplace(std::move(n));
  }
  return &*b;
}

Status CarrierOps::Impl::CheckCarrier(const DeviceCarrier& c, const char* what) const {
  DASHI_RETURN_IF_ERROR(ValidateGridShape(c.shape));
  return CheckOperand(*kernels, c.cells, static_cast<uint64_t>(c.shape.size()) * sizeof(int32_t),
                      std::string(what) + " " + ToString(c.shape));
}

Status CarrierOps::Impl::CheckField(const DeviceField& f, const char* what) const {
  DASHI_RETURN_IF_ERROR(ValidateGridShape(f.shape));
  return CheckOperand(*kernels, f.values, static_cast<uint64_t>(f.shape.size()) * sizeof(double),
                      std::string(what) + " " + ToString(f.shape));
}

StatusOr<DeviceCarrier> CarrierOps::Impl::Fuse(
    const std::vector<std::pair<VkBuffer, uint64_t>>& sources, GridShape shape) {
  const uint64_t n = static_cast<uint64_t>(shape.size());
  const uint64_t k = sources.size();
  const uint64_t channel_bytes = n * 4;
  DASHI_RETURN_IF_ERROR(kernels->CheckBinding(channel_bytes, "a fusion channel"));
  const uint64_t budget = std::min<uint64_t>(kernels->max_range(), kFuseChunkBudget);
  const uint64_t chunk = std::max<uint64_t>(1, std::min<uint64_t>(k, budget / channel_bytes));
  DASHI_ASSIGN_OR_RETURN(DeviceBuffer out, NewBuffer(channel_bytes));
  DASHI_ASSIGN_OR_RETURN(const DeviceBuffer* sum, Grow(fuse_sum, channel_bytes));
  DASHI_ASSIGN_OR_RETURN(const DeviceBuffer* staging, Grow(fuse_chunk, chunk * channel_bytes));
  DASHI_ASSIGN_OR_RETURN(CarrierRecorder * rec, Begin(shape));
  rec->ClearRecord(*batch, CarrierRecorder::kRecordFusion);
  RecordGuardFill(*batch, {&out}, channel_bytes);
  for (uint64_t c0 = 0; c0 < k; c0 += chunk) {
    const uint64_t m = std::min(chunk, k - c0);
    for (uint64_t c = 0; c < m; ++c) {
      batch->CopyBuffer(sources[c0 + c].first, staging->buffer(), channel_bytes,
                        sources[c0 + c].second, c * channel_bytes);
    }
    batch->Barrier();
    DASHI_RETURN_IF_ERROR(rec->FuseChunk(*batch, *staging, static_cast<uint32_t>(m), c0 == 0,
                                         c0 + m == k, *sum, out));
  }
  DASHI_ASSIGN_OR_RETURN(CarrierTotals t, SubmitReadingRecord(CarrierRecorder::kRecordFusion));
  if (t.flags & kTotalsFlagBadFusionValue) {
    return InvalidArgumentError("fusion input holds a value outside {-1, 0, +1}");
  }
  return DeviceCarrier{shape, std::move(out)};
}

// ---------------------------------------------------------------------------------------------

CarrierOps::CarrierOps(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
CarrierOps::~CarrierOps() = default;

StatusOr<std::unique_ptr<CarrierOps>> CarrierOps::Create(VulkanContext& ctx) {
  return Create(ctx, Options{});
}

StatusOr<std::unique_ptr<CarrierOps>> CarrierOps::Create(VulkanContext& ctx,
                                                         const Options& options) {
  if (options.closure_steps_per_submission < 1) {
    return InvalidArgumentError("closure_steps_per_submission " +
                                std::to_string(options.closure_steps_per_submission) +
                                " must be at least 1");
  }
  auto impl = std::make_unique<Impl>(ctx);
  impl->options = options;
  DASHI_ASSIGN_OR_RETURN(impl->kernels,
                         CarrierKernels::Create(ctx, {options.workgroup_size, options.max_groups_x}));
  DASHI_ASSIGN_OR_RETURN(impl->batch, CommandBatch::Create(ctx, 0));
  DASHI_ASSIGN_OR_RETURN(HostVisibleBuffer r,
                         HostVisibleBuffer::CreateForReading(ctx, sizeof(CarrierTotals)));
  impl->record.emplace(std::move(r));
  return std::unique_ptr<CarrierOps>(new CarrierOps(std::move(impl)));
}

Status CarrierOps::CheckGuards(const DeviceCarrier& c) {
  DASHI_RETURN_IF_ERROR(impl_->CheckCarrier(c, "carrier"));
  return CheckGuardWords(impl_->ctx, c.cells, static_cast<uint64_t>(c.shape.size()) * 4,
                         ToString(c.shape) + " carrier");
}

Status CarrierOps::CheckGuards(const DeviceField& f) {
  DASHI_RETURN_IF_ERROR(impl_->CheckField(f, "field"));
  return CheckGuardWords(impl_->ctx, f.values, static_cast<uint64_t>(f.shape.size()) * 8,
                         ToString(f.shape) + " field");
}

StatusOr<DeviceCarrier> CarrierOps::Upload(const Carrier& c) {
  const uint64_t n = static_cast<uint64_t>(c.size());
  DASHI_RETURN_IF_ERROR(impl_->kernels->CheckBinding(n * 4, "carrier " + ToString(c.shape())));
  const std::vector<int32_t> words(c.values().begin(), c.values().end());
  DASHI_ASSIGN_OR_RETURN(DeviceBuffer b, CreateGuardedBuffer(impl_->ctx, n * 4));
  DASHI_RETURN_IF_ERROR(b.UploadValues<int32_t>(impl_->ctx, words));
  return DeviceCarrier{c.shape(), std::move(b)};
}

StatusOr<Carrier> CarrierOps::Download(const DeviceCarrier& c) {
  DASHI_RETURN_IF_ERROR(impl_->CheckCarrier(c, "carrier"));
  const size_t n = static_cast<size_t>(c.shape.size());
  DASHI_ASSIGN_OR_RETURN(std::vector<int32_t> words,
                         c.cells.DownloadValues<int32_t>(impl_->ctx, n));
  std::vector<int8_t> v(n);
  for (size_t k = 0; k < n; ++k) {
    if (words[k] < -1 || words[k] > 1) {
      return InvalidArgumentError("device carrier value " + std::to_string(words[k]) +
                                  " at index " + std::to_string(k) + " is not -1, 0 or +1");
    }
    v[k] = static_cast<int8_t>(words[k]);
  }
  return Carrier::FromValues(c.shape, std::move(v));
}

StatusOr<DeviceField> CarrierOps::Upload(const RealField& f) {
  const uint64_t n = static_cast<uint64_t>(f.size());
  DASHI_RETURN_IF_ERROR(impl_->kernels->CheckBinding(n * 8, "field " + ToString(f.shape())));
  DASHI_ASSIGN_OR_RETURN(DeviceBuffer b, CreateGuardedBuffer(impl_->ctx, n * 8));
  DASHI_RETURN_IF_ERROR(b.UploadValues<double>(impl_->ctx, f.values()));
  return DeviceField{f.shape(), std::move(b)};
}

StatusOr<RealField> CarrierOps::Download(const DeviceField& f) {
  DASHI_RETURN_IF_ERROR(impl_->CheckField(f, "field"));
  DASHI_ASSIGN_OR_RETURN(std::vector<double> v,
                         f.values.DownloadValues<double>(impl_->ctx, f.shape.size()));
  return RealField::FromValues(f.shape, std::move(v));
}

StatusOr<DeviceCarrier> CarrierOps::PdaThreshold(const DeviceField& f,
                                                 const PdaThresholdParams& p) {
  DASHI_RETURN_IF_ERROR(ValidatePdaThresholdParams(p));
  DASHI_RETURN_IF_ERROR(impl_->CheckField(f, "PDA threshold input"));
  return impl_->CarrierOp(f.shape, [&](CarrierRecorder& rec, CommandBatch& b,
                                       const DeviceBuffer& out) {
    return rec.PdaThreshold(b, f.values, out, p);
  });
}

StatusOr<DeviceCarrier> CarrierOps::Annihilate(const DeviceCarrier& s,
                                               const AnnihilationParams& p) {
  DASHI_RETURN_IF_ERROR(ValidateAnnihilationParams(p));
  DASHI_RETURN_IF_ERROR(impl_->CheckCarrier(s, "annihilation input"));
  return impl_->CarrierOp(s.shape, [&](CarrierRecorder& rec, CommandBatch& b,
                                       const DeviceBuffer& out) {
    return rec.Annihilate(b, s.cells, out, p);
  });
}

StatusOr<DeviceCarrier> CarrierOps::Majority(const DeviceCarrier& s, const MajorityParams& p) {
  DASHI_RETURN_IF_ERROR(ValidateMajorityParams(p));
  DASHI_RETURN_IF_ERROR(impl_->CheckCarrier(s, "majority input"));
  return impl_->CarrierOp(s.shape, [&](CarrierRecorder& rec, CommandBatch& b,
                                       const DeviceBuffer& out) {
    return rec.Majority(b, s.cells, out, p);
  });
}

StatusOr<DeviceCarrier> CarrierOps::ClosureStep(const DeviceCarrier& s, const ClosureParams& p) {
  // As core_ref ClosureStep: the two kernels' parameters are checked, the iteration cap is not.
  DASHI_RETURN_IF_ERROR(ValidateMajorityParams(p.majority));
  DASHI_RETURN_IF_ERROR(ValidateAnnihilationParams(p.annihilation));
  DASHI_RETURN_IF_ERROR(impl_->CheckCarrier(s, "closure input"));
  return impl_->CarrierOp(s.shape, [&](CarrierRecorder& rec, CommandBatch& b,
                                       const DeviceBuffer& out) {
    return rec.ClosureStep(b, s.cells, out, p);
  });
}

StatusOr<CarrierOps::DeviceClosure> CarrierOps::Closure(const DeviceCarrier& s0,
                                                        const DeviceField* field,
                                                        const ClosureParams& p) {
  DASHI_RETURN_IF_ERROR(ValidateClosureParams(p));
  DASHI_RETURN_IF_ERROR(impl_->CheckCarrier(s0, "closure input"));
  if (field != nullptr) {
    DASHI_RETURN_IF_ERROR(impl_->CheckField(*field, "closure field"));
    if (!(field->shape == s0.shape)) {
      return InvalidArgumentError("closure field shape " + ToString(field->shape) +
                                  " differs from carrier shape " + ToString(s0.shape));
    }
  }
  Impl& m = *impl_;
  DASHI_ASSIGN_OR_RETURN(CarrierRecorder * rec, m.Begin(s0.shape));
  CarrierClosure::Options co;
  co.steps_per_submission = m.options.closure_steps_per_submission;
  co.plan = m.options.closure_plan;
  co.max_shared_bytes = m.options.closure_max_shared_bytes;
  co.max_invocations = m.options.closure_max_invocations;
  DASHI_ASSIGN_OR_RETURN(std::unique_ptr<CarrierClosure> closure,
                         CarrierClosure::Create(*rec, p, co));
  DASHI_RETURN_IF_ERROR(closure->RecordStart(*m.batch, s0.cells,
                                             field != nullptr ? &field->values : nullptr,
                                             /*read_levels=*/true));
  CarrierClosure::Progress progress;
  for (bool first = true; !progress.finished; first = false) {
    if (!first) DASHI_RETURN_IF_ERROR(m.batch->Begin());
    DASHI_ASSIGN_OR_RETURN(int recorded,
                           closure->RecordSteps(*m.batch, closure->steps_per_submission()));
    closure->RecordReadback(*m.batch);
    DASHI_RETURN_IF_ERROR(m.Submit());
    DASHI_ASSIGN_OR_RETURN(progress, closure->ReadSubmission());
    if (!progress.finished && recorded == 0) {
      return InternalError("closure not finished after all " +
                           std::to_string(closure->steps_recorded()) + " steps");
    }
  }
  std::vector<ClosureLevelStats> levels = closure->levels();
  return DeviceClosure{DeviceCarrier{s0.shape, closure->TakeFixedPoint()}, progress.depth,
                       progress.reached_fixed_point, std::move(levels), closure->dispatch()};
}

StatusOr<DeviceCarrier> CarrierOps::FuseMajority(std::span<const DeviceCarrier* const> channels) {
  const int64_t k = static_cast<int64_t>(channels.size());
  if (k < 1 || k > kMaxFusionChannels) {
    return InvalidArgumentError("fusion channel count " + std::to_string(k) + " is outside [1, " +
                                std::to_string(kMaxFusionChannels) + "]");
  }
  std::vector<std::pair<VkBuffer, uint64_t>> sources;
  sources.reserve(channels.size());
  for (int64_t c = 0; c < k; ++c) {
    const DeviceCarrier* ch = channels[c];
    if (ch == nullptr) {
      return InvalidArgumentError("fusion channel " + std::to_string(c) + " is null");
    }
    DASHI_RETURN_IF_ERROR(impl_->CheckCarrier(*ch, "fusion channel"));
    if (!(ch->shape == channels[0]->shape)) {
      return InvalidArgumentError("fusion channel " + std::to_string(c) + " has shape " +
                                  ToString(ch->shape) + " but channel 0 has shape " +
                                  ToString(channels[0]->shape));
    }
    sources.emplace_back(ch->cells.buffer(), 0);
  }
  return impl_->Fuse(sources, channels[0]->shape);
}

StatusOr<DeviceCarrier> CarrierOps::FuseMajorityChannelMajor(const DeviceBuffer& channels,
                                                             int64_t k, GridShape shape) {
  DASHI_RETURN_IF_ERROR(ValidateGridShape(shape));
  if (k < 1 || k > kMaxFusionChannels) {
    return InvalidArgumentError("fusion channel count " + std::to_string(k) + " is outside [1, " +
                                std::to_string(kMaxFusionChannels) + "]");
  }
  if (channels.buffer() == VK_NULL_HANDLE) {
    return InvalidArgumentError("fusion input has no device buffer");
  }
  const uint64_t channel_bytes = static_cast<uint64_t>(shape.size()) * 4;
  const uint64_t need = static_cast<uint64_t>(k) * channel_bytes;
  if (channels.size() < need) {
    return InvalidArgumentError("fusion input buffer holds " + Bytes(channels.size()) + " but " +
                                std::to_string(k) + " channels of shape " + ToString(shape) +
                                " need " + Bytes(need));
  }
  std::vector<std::pair<VkBuffer, uint64_t>> sources;
  sources.reserve(static_cast<size_t>(k));
  for (int64_t c = 0; c < k; ++c) sources.emplace_back(channels.buffer(), c * channel_bytes);
  return impl_->Fuse(sources, shape);
}

StatusOr<int64_t> CarrierOps::Defect(const DeviceCarrier& s, Neighbourhood nbhd) {
  DASHI_RETURN_IF_ERROR(impl_->CheckCarrier(s, "defect input"));
  Impl& m = *impl_;
  DASHI_ASSIGN_OR_RETURN(CarrierRecorder * rec, m.Begin(s.shape));
  DASHI_RETURN_IF_ERROR(rec->Defect(*m.batch, s.cells, nbhd));
  DASHI_ASSIGN_OR_RETURN(CarrierTotals t, m.SubmitReadingRecord(CarrierRecorder::kRecordDefect));
  return static_cast<int64_t>(t.c0);
}

StatusOr<DeviceField> CarrierOps::Smooth(const DeviceField& f, const SmoothingParams& p) {
  DASHI_RETURN_IF_ERROR(ValidateSmoothingParams(p));
  DASHI_RETURN_IF_ERROR(impl_->CheckField(f, "smoothing input"));
  return impl_->FieldOp(f.shape, [&](CarrierRecorder& rec, CommandBatch& b,
                                     const DeviceBuffer& out) {
    return rec.Smooth(b, f.values, out, p);
  });
}

StatusOr<DeviceField> CarrierOps::NormalizeByMaxAbs(const DeviceField& f) {
  DASHI_RETURN_IF_ERROR(impl_->CheckField(f, "normalisation input"));
  return impl_->FieldOp(f.shape, [&](CarrierRecorder& rec, CommandBatch& b,
                                     const DeviceBuffer& out) {
    return rec.NormalizeByMaxAbs(b, f.values, out);
  });
}

StatusOr<CarrierOps::DeviceNormalisedMask> CarrierOps::SmoothNormalizeThresholdFolded(
    const DeviceField& f, const SmoothingParams& smoothing, const PdaThresholdParams& tau) {
  DASHI_RETURN_IF_ERROR(ValidateSmoothingParams(smoothing));
  DASHI_RETURN_IF_ERROR(ValidatePdaThresholdParams(tau));
  DASHI_RETURN_IF_ERROR(impl_->CheckField(f, "smoothing input"));
  Impl& m = *impl_;
  const uint64_t cells = static_cast<uint64_t>(f.shape.size());
  DASHI_ASSIGN_OR_RETURN(DeviceBuffer smoothed, m.NewBuffer(cells * 8));
  DASHI_ASSIGN_OR_RETURN(DeviceBuffer normalised, m.NewBuffer(cells * 8));
  DASHI_ASSIGN_OR_RETURN(DeviceBuffer carrier, m.NewBuffer(cells * 4));
  DASHI_ASSIGN_OR_RETURN(CarrierRecorder * rec, m.Begin(f.shape));
  RecordGuardFill(*m.batch, {&smoothed, &normalised}, cells * 8);
  RecordGuardFill(*m.batch, {&carrier}, cells * 4);
  DASHI_ASSIGN_OR_RETURN(const uint32_t groups,
                         rec->SmoothWithMax(*m.batch, f.values, smoothed, smoothing));
  DASHI_RETURN_IF_ERROR(
      rec->NormalizeAndThresholdFromGroups(*m.batch, smoothed, normalised, carrier, tau, groups));
  DASHI_RETURN_IF_ERROR(m.Submit());
  return DeviceNormalisedMask{DeviceField{f.shape, std::move(normalised)},
                              DeviceCarrier{f.shape, std::move(carrier)}};
}

}  // namespace dashi::vk
