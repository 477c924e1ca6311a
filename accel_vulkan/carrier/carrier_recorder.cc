// Recording of the carrier kernels. Shader design (shaders/carrier/*.comp; workgroup size =
// specialization constant 0; 1-D ranges are dispatched as a 2-D grid whose x group count is
// capped at CarrierKernelOptions::max_groups_x):
//   PdaThreshold  carrier_pda           one invocation per cell, comparisons only.
//   Majority      carrier_window_rows   int32 row window sums (mode 0: Σ s), then
//                 carrier_window_cols   int32 column window sums of those + the M(r, η) decision.
//   Annihilate    the same two shaders, mode 1: (#plus, #minus) window counts as ivec2, K(r).
//   ClosureStep   Majority into a scratch carrier, then Annihilate into the output.
//   LevelStats    carrier_level_rows (a workgroup per row; Σ|f| `precise` by one invocation in
//                 increasing j, from chunks staged in shared memory; active cells and cells
//                 changed counted by all) and carrier_reduce_rows (one workgroup; the sum by one
//                 invocation, rows in increasing i; mean = Σ / active) into one CarrierTotals.
//   Defect        carrier_defect_rows (per row, forward edges with multiplicity, uint64) and
//                 carrier_reduce_rows (exact integer total).
//   FuseChunk     carrier_fuse sums a chunk of channels in int32, writes sign(sum) after the last.
//   ClosureShared carrier_closure_shared: the whole closure in one workgroup (its own comment).
//   ClosureStrip  carrier_closure_strip: one closure step, a workgroup per strip of whole rows with
//                 halos (M, K_ann and the row partials of the level statistics; its own comment).
//   ClosureReduce carrier_closure_reduce: the rows in increasing i, then the control (one
//                 workgroup).
//   Smooth        carrier_smooth along rows into a scratch field, then along columns: the same
//                 products, sums (d = −r..r) and single division as core_ref, each `precise`.
//   NormalizeByMaxAbs  carrier_maxabs_rows (a workgroup per row) + carrier_reduce_rows (max,
//                 order-free), then carrier_scale: x / m (`precise`), or x when m = 0.
//   NormalizeAndThreshold  the same max, then carrier_scale_threshold: the division and P_tau of
//                 its result in one pass.
#include "accel_vulkan/carrier/carrier_recorder.h"

#include <algorithm>
#include <string>
#include <utility>

#include "shaders/carrier/carrier_closure_reduce.h"
#include "shaders/carrier/carrier_closure_shared.h"
#include "shaders/carrier/carrier_closure_strip.h"

namespace dashi::vk {
namespace {

// The smoothing's push constants (axis 0) for a box or triangle kernel, after checking it.
StatusOr<CarrierSmoothParams> SmoothParamsFor(const SmoothingParams& p, const GridShape& shape) {
  DASHI_RETURN_IF_ERROR(ValidateSmoothingParams(p));
  if (p.kernel != SmoothingKernel::kBox && p.kernel != SmoothingKernel::kTriangle) {
    return InvalidArgumentError("smoothing kernel " + std::to_string(static_cast<int>(p.kernel)) +
                                " is neither box nor triangle");
  }
  const int r = p.radius;
  const bool tri = p.kernel == SmoothingKernel::kTriangle;
  // Exactly core_ref's weight total.
  const double total = tri ? static_cast<double>(r + 1) * (r + 1) : 2.0 * r + 1.0;
  return CarrierSmoothParams{total,
                             static_cast<uint32_t>(shape.rows),
                             static_cast<uint32_t>(shape.cols),
                             static_cast<uint32_t>(r),
                             tri ? 1u : 0u,
                             0,
                             0};
}


BufferRange R(const DeviceBuffer& b) { return BufferRange::Of(b); }

// The push constants of the one-dispatch and the strip-tiled closure (the same block).
CarrierClosureSharedParams ClosureShaderParams(GridShape shape, const ClosureParams& p,
                                               bool has_field) {
  return {static_cast<uint32_t>(shape.rows),
          static_cast<uint32_t>(shape.cols),
          static_cast<uint32_t>(shape.cols / 32),
          static_cast<uint32_t>(p.majority.radius),
          p.majority.eta,
          static_cast<uint32_t>(p.annihilation.radius),
          static_cast<uint32_t>(p.max_iterations),
          has_field ? 1u : 0u};
}

}  // namespace

Status CheckOperand(const CarrierKernels& kernels, const DeviceBuffer& buffer,
                    uint64_t payload_bytes, const std::string& what) {
  if (buffer.buffer() == VK_NULL_HANDLE) return InvalidArgumentError(what + " has no device buffer");
  if (buffer.size() < payload_bytes) {
    return InvalidArgumentError(what + " buffer holds " + std::to_string(buffer.size()) +
                                " bytes but needs " + std::to_string(payload_bytes));
  }
  return kernels.CheckBinding(payload_bytes, what);
}

StatusOr<std::unique_ptr<CarrierRecorder>> CarrierRecorder::Create(const CarrierKernels& kernels,
                                                                   GridShape shape) {
  DASHI_RETURN_IF_ERROR(ValidateGridShape(shape));
  DASHI_ASSIGN_OR_RETURN(DeviceBuffer records,
                         DeviceBuffer::Create(kernels.ctx(), kRecordSlots * sizeof(CarrierTotals)));
  std::unique_ptr<CarrierRecorder> r(new CarrierRecorder(kernels, shape, std::move(records)));
  DASHI_ASSIGN_OR_RETURN(r->sets_, DescriptorSetCache::Create(kernels.ctx()));
  DASHI_ASSIGN_OR_RETURN(GroupCount cells, kernels.Groups(r->cells()));
  // carrier_level_rows runs a workgroup per row.
  DASHI_ASSIGN_OR_RETURN(GroupCount rows,
                         kernels.Groups(static_cast<uint64_t>(shape.rows) *
                                        kernels.options().workgroup_size));
  r->closure_args_[kClosureArgsCells] = {cells.x, cells.y, 1, 0};
  r->closure_args_[kClosureArgsRows] = {rows.x, rows.y, 1, 0};
  r->closure_args_[kClosureArgsOne] = {1, 1, 1, 0};
  return r;
}

CarrierRecorder::~CarrierRecorder() = default;

Status CarrierRecorder::ForgetOperands() { return sets_->Reset(); }

StatusOr<const DeviceBuffer*> CarrierRecorder::Scratch(ScratchId id) {
  std::optional<DeviceBuffer>& s = scratch_[id];
  if (!s.has_value()) {
    const uint64_t n = cells();
    uint64_t bytes = 0;
    const char* what = "";
    switch (id) {
      case kWindowTmp: bytes = n * 8, what = "the window-sum scratch"; break;
      case kCarrierTmp: bytes = n * 4, what = "the carrier scratch"; break;
      case kRowPartials:
        bytes = static_cast<uint64_t>(shape_.rows) * sizeof(CarrierRowPartial);
        what = "the row-partials scratch";
        break;
      case kFieldTmp: bytes = n * 8, what = "the field scratch"; break;
      case kGroupMax: {
        DASHI_ASSIGN_OR_RETURN(GroupCount g, kernels_.Groups(n));
        bytes = uint64_t{g.x} * g.y * 8, what = "the workgroup maxima";
        break;
      }
      case kNumScratch: return InternalError("bad scratch id");
    }
    DASHI_RETURN_IF_ERROR(kernels_.CheckBinding(bytes, what));
    DASHI_ASSIGN_OR_RETURN(DeviceBuffer b, DeviceBuffer::Create(kernels_.ctx(), bytes));
    s.emplace(std::move(b));
  }
  return &*s;
}

Status CarrierRecorder::CheckCarrierOperand(const DeviceBuffer& b, const char* what) const {
  return CheckOperand(kernels_, b, cells() * 4, std::string(what) + " " + ToString(shape_));
}

Status CarrierRecorder::CheckFieldOperand(const DeviceBuffer& b, const char* what) const {
  return CheckOperand(kernels_, b, cells() * 8, std::string(what) + " " + ToString(shape_));
}

Status CarrierRecorder::Dispatch(CommandBatch& b, const ComputePipeline& p, VkDescriptorSet set,
                                 const void* push, uint32_t push_bytes, uint64_t invocations,
                                 uint32_t workgroup, const DeviceBuffer* gate,
                                 uint32_t gate_args) {
  if (gate != nullptr) {
    b.DispatchIndirect(p, set, push, push_bytes, gate->buffer(),
                       offsetof(CarrierClosureControl, args) +
                           gate_args * sizeof(CarrierDispatchArgs));
    return OkStatus();
  }
  DASHI_ASSIGN_OR_RETURN(GroupCount g, kernels_.Groups(invocations, workgroup));
  b.Dispatch(p, set, push, push_bytes, g.x, g.y);
  return OkStatus();
}

Status CarrierRecorder::PdaThreshold(CommandBatch& b, const DeviceBuffer& field,
                                     const DeviceBuffer& out, const PdaThresholdParams& p) {
  DASHI_RETURN_IF_ERROR(ValidatePdaThresholdParams(p));
  DASHI_RETURN_IF_ERROR(CheckFieldOperand(field, "PDA threshold input"));
  DASHI_RETURN_IF_ERROR(CheckCarrierOperand(out, "PDA threshold output"));
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet set, sets_->Get({R(field), R(out)}));
  const CarrierPdaParams pp{p.tau, static_cast<uint32_t>(cells()), 0};
  DASHI_RETURN_IF_ERROR(
      Dispatch(b, *kernels_.pda, set, &pp, sizeof(pp), cells(), 0, nullptr, 0));
  b.Barrier();
  return OkStatus();
}

Status CarrierRecorder::Window(CommandBatch& b, const DeviceBuffer& in, const DeviceBuffer& out,
                               int radius, uint32_t mode, int eta, const DeviceBuffer* gate) {
  DASHI_RETURN_IF_ERROR(CheckCarrierOperand(in, "window kernel input"));
  DASHI_RETURN_IF_ERROR(CheckCarrierOperand(out, "window kernel output"));
  DASHI_ASSIGN_OR_RETURN(const DeviceBuffer* tmp, Scratch(kWindowTmp));
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet rows_set, sets_->Get({R(in), R(*tmp)}));
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet cols_set, sets_->Get({R(in), R(*tmp), R(out)}));
  const CarrierWindowParams wp{static_cast<uint32_t>(shape_.rows),
                               static_cast<uint32_t>(shape_.cols),
                               static_cast<uint32_t>(radius),
                               mode,
                               eta,
                               0};
  DASHI_RETURN_IF_ERROR(Dispatch(b, *kernels_.window_rows, rows_set, &wp, sizeof(wp), cells(), 0,
                                 gate, kClosureArgsCells));
  b.Barrier();
  DASHI_RETURN_IF_ERROR(Dispatch(b, *kernels_.window_cols, cols_set, &wp, sizeof(wp), cells(), 0,
                                 gate, kClosureArgsCells));
  b.Barrier();
  return OkStatus();
}

Status CarrierRecorder::Majority(CommandBatch& b, const DeviceBuffer& in, const DeviceBuffer& out,
                                 const MajorityParams& p) {
  DASHI_RETURN_IF_ERROR(ValidateMajorityParams(p));
  return Window(b, in, out, p.radius, kWindowModeMajority, p.eta, nullptr);
}

Status CarrierRecorder::Annihilate(CommandBatch& b, const DeviceBuffer& in,
                                   const DeviceBuffer& out, const AnnihilationParams& p) {
  DASHI_RETURN_IF_ERROR(ValidateAnnihilationParams(p));
  return Window(b, in, out, p.radius, kWindowModeAnnihilation, 0, nullptr);
}

Status CarrierRecorder::ClosureStep(CommandBatch& b, const DeviceBuffer& in,
                                    const DeviceBuffer& out, const ClosureParams& p,
                                    const DeviceBuffer* gate) {
  // As core_ref ClosureStep: the two kernels' parameters are checked, the iteration cap is not.
  DASHI_RETURN_IF_ERROR(ValidateMajorityParams(p.majority));
  DASHI_RETURN_IF_ERROR(ValidateAnnihilationParams(p.annihilation));
  DASHI_ASSIGN_OR_RETURN(const DeviceBuffer* m, Scratch(kCarrierTmp));
  DASHI_RETURN_IF_ERROR(
      Window(b, in, *m, p.majority.radius, kWindowModeMajority, p.majority.eta, gate));
  return Window(b, *m, out, p.annihilation.radius, kWindowModeAnnihilation, 0, gate);
}

Status CarrierRecorder::Reduce(CommandBatch& b, const DeviceBuffer& dst, uint32_t flag,
                               uint32_t slot, const DeviceBuffer* gate) {
  DASHI_ASSIGN_OR_RETURN(const DeviceBuffer* partials, Scratch(kRowPartials));
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet set, sets_->Get({R(*partials), R(dst)}));
  const CarrierReduceParams rp{static_cast<uint32_t>(shape_.rows), flag, slot, 0};
  DASHI_RETURN_IF_ERROR(
      Dispatch(b, *kernels_.reduce_rows, set, &rp, sizeof(rp), 1, 1, gate, kClosureArgsOne));
  b.Barrier();
  return OkStatus();
}

Status CarrierRecorder::LevelStats(CommandBatch& b, const DeviceBuffer& prev,
                                   const DeviceBuffer& cur, const DeviceBuffer* field,
                                   const DeviceBuffer& stats, uint32_t slot,
                                   const DeviceBuffer* gate) {
  DASHI_RETURN_IF_ERROR(CheckCarrierOperand(prev, "closure level previous carrier"));
  DASHI_RETURN_IF_ERROR(CheckCarrierOperand(cur, "closure level carrier"));
  if (field != nullptr) DASHI_RETURN_IF_ERROR(CheckFieldOperand(*field, "closure field"));
  if (stats.size() < (uint64_t{slot} + 1) * sizeof(CarrierTotals)) {
    return InvalidArgumentError("closure statistics buffer has no slot " + std::to_string(slot));
  }
  const uint32_t rows = static_cast<uint32_t>(shape_.rows);
  DASHI_ASSIGN_OR_RETURN(const DeviceBuffer* partials, Scratch(kRowPartials));
  // Without a field, `cur` stands in for the unread field binding.
  const DeviceBuffer& f = field != nullptr ? *field : cur;
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet set,
                         sets_->Get({R(prev), R(cur), R(f), R(*partials)}));
  const uint32_t has_field = field != nullptr ? 1 : 0;
  const CarrierRowParams p{rows, static_cast<uint32_t>(shape_.cols), has_field, 0};
  DASHI_RETURN_IF_ERROR(Dispatch(b, *kernels_.level_rows, set, &p, sizeof(p),
                                 uint64_t{rows} * kernels_.options().workgroup_size, 0, gate,
                                 kClosureArgsRows));
  b.Barrier();
  return Reduce(b, stats, has_field, slot, gate);
}

Status CarrierRecorder::ClosureControl(CommandBatch& b, const DeviceBuffer& levels,
                                       const DeviceBuffer& control, uint32_t step,
                                       uint32_t max_iterations, uint32_t slot) {
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet set, sets_->Get({R(levels), R(control)}));
  const CarrierClosureControlParams p{step, max_iterations, slot, 0};
  DASHI_RETURN_IF_ERROR(
      Dispatch(b, *kernels_.closure_control, set, &p, sizeof(p), 1, 1, nullptr, 0));
  b.Barrier();
  return OkStatus();
}

Status CarrierRecorder::ClosureShared(CommandBatch& b, const ClosureDispatchPlan& plan,
                                      const DeviceBuffer& iterate, const DeviceBuffer* field,
                                      const DeviceBuffer& levels, const DeviceBuffer& control,
                                      const ClosureParams& p) {
  if (plan.dispatch != ClosureDispatch::kSharedMemory || plan.rows != shape_.rows ||
      uint64_t{plan.words} * 32 != cells()) {
    return InvalidArgumentError("closure dispatch plan '" + plan.note + "' is not a " +
                                "shared-memory plan for " + ToString(shape_));
  }
  DASHI_RETURN_IF_ERROR(CheckCarrierOperand(iterate, "closure iterate"));
  if (field != nullptr) DASHI_RETURN_IF_ERROR(CheckFieldOperand(*field, "closure field"));
  DASHI_ASSIGN_OR_RETURN(const ComputePipeline* pipe, ClosureSharedPipeline(plan));
  // Without a field, the iterate stands in for the unread field binding.
  const DeviceBuffer& f = field != nullptr ? *field : iterate;
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet set,
                         sets_->Get({R(iterate), R(f), R(levels), R(control)}));
  const CarrierClosureSharedParams sp = ClosureShaderParams(shape_, p, field != nullptr);
  b.Dispatch(*pipe, set, &sp, sizeof(sp), 1, 1);
  b.Barrier();
  return OkStatus();
}

StatusOr<const ComputePipeline*> CarrierRecorder::ClosureSharedPipeline(
    const ClosureDispatchPlan& plan) {
  for (const auto& [w, pl] : closure_shared_) {
    if (w == plan.workgroup) return pl.get();
  }
  ComputePipelineSpec spec;
  spec.spirv = spirv::kCarrierClosureShared;
  spec.num_buffers = 4;
  spec.push_constant_bytes = sizeof(CarrierClosureSharedParams);
  spec.specialization = {plan.workgroup, plan.words, plan.rows};
  spec.max_binding_sets = 1;  // sets come from the DescriptorSetCache
  DASHI_ASSIGN_OR_RETURN(std::unique_ptr<ComputePipeline> made,
                         ComputePipeline::Create(kernels_.ctx(), spec));
  const ComputePipeline* pipe = made.get();
  closure_shared_.emplace_back(plan.workgroup, std::move(made));
  return pipe;
}

StatusOr<const ComputePipeline*> CarrierRecorder::ClosureStripPipeline(
    const ClosureDispatchPlan& plan, const ClosureParams& p) {
  const uint32_t halo = static_cast<uint32_t>(p.majority.radius + p.annihilation.radius);
  const std::array<uint32_t, 4> key{plan.rows, plan.words, halo,
                                    static_cast<uint32_t>(p.annihilation.radius)};
  for (const auto& [k, pl] : closure_strip_) {
    if (k == key) return pl.get();
  }
  ComputePipelineSpec spec;
  spec.spirv = spirv::kCarrierClosureStrip;
  spec.num_buffers = 5;
  spec.push_constant_bytes = sizeof(CarrierClosureSharedParams);
  spec.specialization = {plan.workgroup, key[0], key[1], key[2], key[3]};
  spec.max_binding_sets = 1;  // sets come from the DescriptorSetCache
  DASHI_ASSIGN_OR_RETURN(std::unique_ptr<ComputePipeline> made,
                         ComputePipeline::Create(kernels_.ctx(), spec));
  const ComputePipeline* pipe = made.get();
  closure_strip_.emplace_back(key, std::move(made));
  return pipe;
}

StatusOr<const ComputePipeline*> CarrierRecorder::ClosureReducePipeline() {
  if (closure_reduce_ == nullptr) {
    ComputePipelineSpec spec;
    spec.spirv = spirv::kCarrierClosureReduce;
    spec.num_buffers = 3;
    spec.push_constant_bytes = sizeof(CarrierClosureReduceParams);
    spec.specialization = {kernels_.options().workgroup_size};
    spec.max_binding_sets = 1;
    DASHI_ASSIGN_OR_RETURN(closure_reduce_, ComputePipeline::Create(kernels_.ctx(), spec));
  }
  return closure_reduce_.get();
}

Status CarrierRecorder::ClosureStrip(CommandBatch& b, const ClosureDispatchPlan& plan,
                                     const DeviceBuffer& in, const DeviceBuffer& out,
                                     const DeviceBuffer* field, const DeviceBuffer& control,
                                     const ClosureParams& p) {
  if (plan.dispatch != ClosureDispatch::kStrips || plan.rows == 0 ||
      uint64_t{plan.words} * 32 != static_cast<uint64_t>(shape_.cols) ||
      plan.strips != (static_cast<uint64_t>(shape_.rows) + plan.rows - 1) / plan.rows) {
    return InvalidArgumentError("closure dispatch plan '" + plan.note + "' is not a " +
                                "strip plan for " + ToString(shape_));
  }
  DASHI_RETURN_IF_ERROR(CheckCarrierOperand(in, "closure step input"));
  DASHI_RETURN_IF_ERROR(CheckCarrierOperand(out, "closure step output"));
  if (field != nullptr) DASHI_RETURN_IF_ERROR(CheckFieldOperand(*field, "closure field"));
  DASHI_ASSIGN_OR_RETURN(const ComputePipeline* pipe, ClosureStripPipeline(plan, p));
  DASHI_ASSIGN_OR_RETURN(const DeviceBuffer* partials, Scratch(kRowPartials));
  // Without a field, the input stands in for the unread field binding.
  const DeviceBuffer& f = field != nullptr ? *field : in;
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet set,
                         sets_->Get({R(in), R(out), R(f), R(*partials), R(control)}));
  const CarrierClosureSharedParams sp = ClosureShaderParams(shape_, p, field != nullptr);
  DASHI_ASSIGN_OR_RETURN(GroupCount g,
                         kernels_.Groups(uint64_t{plan.strips} * plan.workgroup, plan.workgroup));
  b.Dispatch(*pipe, set, &sp, sizeof(sp), g.x, g.y);
  b.Barrier();
  return OkStatus();
}

Status CarrierRecorder::ClosureReduce(CommandBatch& b, const DeviceBuffer& levels,
                                      const DeviceBuffer& control, bool has_field, uint32_t step,
                                      uint32_t max_iterations, uint32_t slot) {
  if (levels.size() < (uint64_t{slot} + 1) * sizeof(CarrierTotals)) {
    return InvalidArgumentError("closure statistics buffer has no slot " + std::to_string(slot));
  }
  DASHI_ASSIGN_OR_RETURN(const ComputePipeline* pipe, ClosureReducePipeline());
  DASHI_ASSIGN_OR_RETURN(const DeviceBuffer* partials, Scratch(kRowPartials));
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet set, sets_->Get({R(*partials), R(levels), R(control)}));
  const CarrierClosureReduceParams rp{static_cast<uint32_t>(shape_.rows), has_field ? 1u : 0u,
                                      step, max_iterations, slot, 0};
  b.Dispatch(*pipe, set, &rp, sizeof(rp), 1, 1);
  b.Barrier();
  return OkStatus();
}

Status CarrierRecorder::Smooth(CommandBatch& b, const DeviceBuffer& in, const DeviceBuffer& out,
                               const SmoothingParams& p) {
  DASHI_ASSIGN_OR_RETURN(CarrierSmoothParams sp, SmoothParamsFor(p, shape_));
  DASHI_RETURN_IF_ERROR(CheckFieldOperand(in, "smoothing input"));
  DASHI_RETURN_IF_ERROR(CheckFieldOperand(out, "smoothing output"));
  DASHI_ASSIGN_OR_RETURN(const DeviceBuffer* tmp, Scratch(kFieldTmp));
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet rows_set, sets_->Get({R(in), R(*tmp)}));
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet cols_set, sets_->Get({R(*tmp), R(out)}));
  DASHI_RETURN_IF_ERROR(
      Dispatch(b, *kernels_.smooth, rows_set, &sp, sizeof(sp), cells(), 0, nullptr, 0));
  b.Barrier();
  sp.axis = 1;
  DASHI_RETURN_IF_ERROR(
      Dispatch(b, *kernels_.smooth, cols_set, &sp, sizeof(sp), cells(), 0, nullptr, 0));
  b.Barrier();
  return OkStatus();
}

bool CarrierRecorder::FoldsMax() const {
  const StatusOr<GroupCount> g = kernels_.Groups(cells());
  return g.ok() && uint64_t{g->x} * g->y <= kMaxFoldedGroups;
}

StatusOr<uint32_t> CarrierRecorder::SmoothWithMax(CommandBatch& b, const DeviceBuffer& in,
                                                  const DeviceBuffer& out,
                                                  const SmoothingParams& p) {
  if (!FoldsMax()) {
    return FailedPreconditionError("the max folded into the smoothing needs at most " +
                                   std::to_string(kMaxFoldedGroups) + " workgroups; " +
                                   ToString(shape_) + " has more");
  }
  DASHI_ASSIGN_OR_RETURN(CarrierSmoothParams sp, SmoothParamsFor(p, shape_));
  DASHI_RETURN_IF_ERROR(CheckFieldOperand(in, "smoothing input"));
  DASHI_RETURN_IF_ERROR(CheckFieldOperand(out, "smoothing output"));
  DASHI_ASSIGN_OR_RETURN(const DeviceBuffer* tmp, Scratch(kFieldTmp));
  DASHI_ASSIGN_OR_RETURN(const DeviceBuffer* maxima, Scratch(kGroupMax));
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet rows_set, sets_->Get({R(in), R(*tmp)}));
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet cols_set, sets_->Get({R(*tmp), R(out), R(*maxima)}));
  DASHI_ASSIGN_OR_RETURN(GroupCount g, kernels_.Groups(cells()));
  DASHI_RETURN_IF_ERROR(
      Dispatch(b, *kernels_.smooth, rows_set, &sp, sizeof(sp), cells(), 0, nullptr, 0));
  b.Barrier();
  sp.axis = 1;
  b.Dispatch(*kernels_.smooth_max, cols_set, &sp, sizeof(sp), g.x, g.y);
  b.Barrier();
  return g.x * g.y;
}

Status CarrierRecorder::NormalizeAndThresholdFromGroups(CommandBatch& b, const DeviceBuffer& in,
                                                        const DeviceBuffer& normalised,
                                                        const DeviceBuffer& carrier,
                                                        const PdaThresholdParams& p,
                                                        uint32_t groups) {
  DASHI_RETURN_IF_ERROR(ValidatePdaThresholdParams(p));
  DASHI_RETURN_IF_ERROR(CheckFieldOperand(in, "normalisation input"));
  DASHI_RETURN_IF_ERROR(CheckFieldOperand(normalised, "normalisation output"));
  DASHI_RETURN_IF_ERROR(CheckCarrierOperand(carrier, "PDA threshold output"));
  DASHI_ASSIGN_OR_RETURN(GroupCount g, kernels_.Groups(cells()));
  if (!FoldsMax() || groups != g.x * g.y) {
    return InvalidArgumentError("NormalizeAndThresholdFromGroups: " + std::to_string(groups) +
                                " workgroup maxima, SmoothWithMax writes " +
                                std::to_string(g.x * g.y) + " for " + ToString(shape_));
  }
  DASHI_ASSIGN_OR_RETURN(const DeviceBuffer* maxima, Scratch(kGroupMax));
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet set,
                         sets_->Get({R(in), R(*maxima), R(normalised), R(carrier)}));
  const CarrierScaleThresholdGroupsParams sp{p.tau, static_cast<uint32_t>(cells()), groups};
  DASHI_RETURN_IF_ERROR(Dispatch(b, *kernels_.scale_threshold_groups, set, &sp, sizeof(sp),
                                 cells(), 0, nullptr, 0));
  b.Barrier();
  return OkStatus();
}

Status CarrierRecorder::MaxAbs(CommandBatch& b, const DeviceBuffer& in) {
  const uint32_t rows = static_cast<uint32_t>(shape_.rows);
  DASHI_ASSIGN_OR_RETURN(const DeviceBuffer* partials, Scratch(kRowPartials));
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet rows_set, sets_->Get({R(in), R(*partials)}));
  const CarrierRowParams rp{rows, static_cast<uint32_t>(shape_.cols), 0, 0};
  // One workgroup per row.
  DASHI_RETURN_IF_ERROR(Dispatch(b, *kernels_.maxabs_rows, rows_set, &rp, sizeof(rp),
                                 uint64_t{rows} * kernels_.options().workgroup_size, 0, nullptr,
                                 0));
  b.Barrier();
  return Reduce(b, records_, 0, kRecordMaxAbs, nullptr);
}

Status CarrierRecorder::NormalizeAndThreshold(CommandBatch& b, const DeviceBuffer& in,
                                              const DeviceBuffer& normalised,
                                              const DeviceBuffer& carrier,
                                              const PdaThresholdParams& p) {
  DASHI_RETURN_IF_ERROR(ValidatePdaThresholdParams(p));
  DASHI_RETURN_IF_ERROR(CheckFieldOperand(in, "normalisation input"));
  DASHI_RETURN_IF_ERROR(CheckFieldOperand(normalised, "normalisation output"));
  DASHI_RETURN_IF_ERROR(CheckCarrierOperand(carrier, "PDA threshold output"));
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet set,
                         sets_->Get({R(in), R(records_), R(normalised), R(carrier)}));
  DASHI_RETURN_IF_ERROR(MaxAbs(b, in));
  const CarrierScaleThresholdParams sp{p.tau, static_cast<uint32_t>(cells()), kRecordMaxAbs};
  DASHI_RETURN_IF_ERROR(
      Dispatch(b, *kernels_.scale_threshold, set, &sp, sizeof(sp), cells(), 0, nullptr, 0));
  b.Barrier();
  return OkStatus();
}

Status CarrierRecorder::NormalizeByMaxAbs(CommandBatch& b, const DeviceBuffer& in,
                                          const DeviceBuffer& out) {
  DASHI_RETURN_IF_ERROR(CheckFieldOperand(in, "normalisation input"));
  DASHI_RETURN_IF_ERROR(CheckFieldOperand(out, "normalisation output"));
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet scale_set, sets_->Get({R(in), R(records_), R(out)}));
  DASHI_RETURN_IF_ERROR(MaxAbs(b, in));
  const CarrierScaleParams sp{static_cast<uint32_t>(cells()), kRecordMaxAbs};
  DASHI_RETURN_IF_ERROR(
      Dispatch(b, *kernels_.scale, scale_set, &sp, sizeof(sp), cells(), 0, nullptr, 0));
  b.Barrier();
  return OkStatus();
}

Status CarrierRecorder::Defect(CommandBatch& b, const DeviceBuffer& in, Neighbourhood nbhd) {
  if (nbhd != Neighbourhood::kFour && nbhd != Neighbourhood::kEight) {
    return InvalidArgumentError("defect neighbourhood " + std::to_string(static_cast<int>(nbhd)) +
                                " is neither 4 nor 8");
  }
  DASHI_RETURN_IF_ERROR(CheckCarrierOperand(in, "defect input"));
  const uint32_t rows = static_cast<uint32_t>(shape_.rows);
  DASHI_ASSIGN_OR_RETURN(const DeviceBuffer* partials, Scratch(kRowPartials));
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet set, sets_->Get({R(in), R(*partials)}));
  const CarrierRowParams rp{rows, static_cast<uint32_t>(shape_.cols),
                            nbhd == Neighbourhood::kEight ? 1u : 0u, 0};
  DASHI_RETURN_IF_ERROR(
      Dispatch(b, *kernels_.defect_rows, set, &rp, sizeof(rp), rows, 0, nullptr, 0));
  b.Barrier();
  return Reduce(b, records_, 0, kRecordDefect, nullptr);
}

void CarrierRecorder::ClearRecord(CommandBatch& b, uint32_t slot) {
  vkCmdFillBuffer(b.command_buffer(), records_.buffer(), uint64_t{slot} * sizeof(CarrierTotals),
                  sizeof(CarrierTotals), 0);
  b.Barrier();
}

Status CarrierRecorder::FuseChunk(CommandBatch& b, const DeviceBuffer& chunk, uint32_t channels,
                                  bool first, bool last, const DeviceBuffer& sum,
                                  const DeviceBuffer& out) {
  DASHI_RETURN_IF_ERROR(
      CheckOperand(kernels_, chunk, uint64_t{channels} * cells() * 4, "fusion channel chunk"));
  DASHI_RETURN_IF_ERROR(CheckCarrierOperand(sum, "fusion sum"));
  DASHI_RETURN_IF_ERROR(CheckCarrierOperand(out, "fusion output"));
  DASHI_ASSIGN_OR_RETURN(VkDescriptorSet set,
                         sets_->Get({R(chunk), R(sum), R(out), R(records_)}));
  const CarrierFuseParams fp{static_cast<uint32_t>(cells()),
                             channels,
                             first ? 1u : 0u,
                             last ? 1u : 0u,
                             kRecordFusion,
                             0};
  DASHI_RETURN_IF_ERROR(
      Dispatch(b, *kernels_.fuse, set, &fp, sizeof(fp), cells(), 0, nullptr, 0));
  b.Barrier();
  return OkStatus();
}

}  // namespace dashi::vk
