// CarrierRecorder: records the carrier kernels (CarrierKernels) for carriers and fields of ONE
// grid shape into a caller's CommandBatch — no submission, no wait — so a chain of ops (the
// decoder's mask: smooth, normalise, threshold, closure) runs in one submission with device
// timestamps between the stages. Every kernel invocation is written here once; CarrierOps (the
// submit-and-wait API) and VulkanDecoder both record through it.
//
// Operands are whole DeviceBuffers holding at least the shape's payload (int32 cells in
// {−1, 0, +1} or fp64 values, row-major). Every op ends with a barrier, so the next op recorded may
// read its output. The recorder owns the shape's scratch buffers (made on first use, never
// replaced), a device-local records buffer and a DescriptorSetCache: recorded work refers to
// them, so the recorder must outlive every submission it recorded into, and ops recorded into
// several batches must run in recording order (scratch is shared). Not thread-safe.
//
//   DASHI_ASSIGN_OR_RETURN(auto rec, CarrierRecorder::Create(*kernels, {n, n}));
//   DASHI_RETURN_IF_ERROR(rec->Smooth(batch, field, smoothed, params.smoothing));
//   batch.Timestamp("smooth");
#ifndef DASHI_ACCEL_VULKAN_CARRIER_CARRIER_RECORDER_H_
#define DASHI_ACCEL_VULKAN_CARRIER_CARRIER_RECORDER_H_

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "accel_vulkan/carrier/carrier_closure_control.h"
#include "accel_vulkan/carrier/carrier_kernels.h"
#include "accel_vulkan/carrier/closure_dispatch_plan.h"
#include "accel_vulkan/command_batch.h"
#include "accel_vulkan/descriptor_set_cache.h"
#include "accel_vulkan/device_buffer.h"
#include "core_ref/carrier/annihilation.h"
#include "core_ref/carrier/carrier.h"
#include "core_ref/carrier/closure.h"
#include "core_ref/carrier/defect.h"
#include "core_ref/carrier/majority.h"
#include "core_ref/carrier/pda_threshold.h"
#include "core_ref/carrier/smoothing.h"
#include "core_ref/status/status.h"
#include "shaders/carrier/carrier_params.h"

namespace dashi::vk {

// INVALID_ARGUMENT naming `what` when `buffer` has no handle or fewer than `payload_bytes`;
// RESOURCE_EXHAUSTED when the payload does not fit one storage binding.
Status CheckOperand(const CarrierKernels& kernels, const DeviceBuffer& buffer,
                    uint64_t payload_bytes, const std::string& what);

class CarrierRecorder {
 public:
  // The shape must be valid (ValidateGridShape).
  static StatusOr<std::unique_ptr<CarrierRecorder>> Create(const CarrierKernels& kernels,
                                                           GridShape shape);
  CarrierRecorder(const CarrierRecorder&) = delete;
  CarrierRecorder& operator=(const CarrierRecorder&) = delete;
  ~CarrierRecorder();

  const GridShape& shape() const { return shape_; }
  const CarrierKernels& kernels() const { return kernels_; }
  uint64_t cells() const { return static_cast<uint64_t>(shape_.size()); }

  // records(): one CarrierTotals per slot, device-local, written by the ops below.
  static constexpr uint32_t kRecordMaxAbs = 0;  // NormalizeByMaxAbs: maxabs
  static constexpr uint32_t kRecordDefect = 1;  // Defect: c0
  static constexpr uint32_t kRecordFusion = 2;  // FuseChunk: flags (kTotalsFlagBadFusionValue)
  static constexpr uint32_t kRecordSlots = 3;
  const DeviceBuffer& records() const { return records_; }

  // Forgets the descriptor sets of operand buffers (call before recording ops on buffers that
  // replaced destroyed ones; never while a batch recorded with this recorder is pending).
  Status ForgetOperands();

  // Closure steps may be gated: their dispatches then take their group counts from the control
  // record `gate` (a CarrierClosureControl whose args hold ClosureDispatchArgs()), so the device
  // can turn them into no-ops. Null: direct dispatches.
  std::array<CarrierDispatchArgs, kClosureArgsCount> ClosureDispatchArgs() const {
    return closure_args_;
  }

  Status PdaThreshold(CommandBatch& b, const DeviceBuffer& field, const DeviceBuffer& out,
                      const PdaThresholdParams& p);
  Status Majority(CommandBatch& b, const DeviceBuffer& in, const DeviceBuffer& out,
                  const MajorityParams& p);
  Status Annihilate(CommandBatch& b, const DeviceBuffer& in, const DeviceBuffer& out,
                    const AnnihilationParams& p);
  // C = K_ann ∘ M, M's output in a scratch carrier.
  Status ClosureStep(CommandBatch& b, const DeviceBuffer& in, const DeviceBuffer& out,
                     const ClosureParams& p, const DeviceBuffer* gate = nullptr);
  // The closure level statistics of `cur` (active cells c0, cells differing from `prev` c1, and
  // Σ|field| / c0 over the support when `field` is given) into slot `slot` of `stats`.
  Status LevelStats(CommandBatch& b, const DeviceBuffer& prev, const DeviceBuffer& cur,
                    const DeviceBuffer* field, const DeviceBuffer& stats, uint32_t slot,
                    const DeviceBuffer* gate = nullptr);
  // carrier_closure_control after closure step `step`, whose statistics are at levels[slot].
  Status ClosureControl(CommandBatch& b, const DeviceBuffer& levels, const DeviceBuffer& control,
                        uint32_t step, uint32_t max_iterations, uint32_t slot);
  // The whole closure in ONE dispatch (carrier_closure_shared.comp; `plan` from
  // PlanClosureDispatch for this shape and `p`, kSharedMemory): `iterate` holds s_0 and receives
  // s*, levels[0..steps] the statistics (levels[s + 1] after step s), `control` the
  // CarrierClosureControl (zeroed depth/converged/steps before). The pipeline of each workgroup
  // size is made on first use and kept.
  Status ClosureShared(CommandBatch& b, const ClosureDispatchPlan& plan,
                       const DeviceBuffer& iterate, const DeviceBuffer* field,
                       const DeviceBuffer& levels, const DeviceBuffer& control,
                       const ClosureParams& p);
  // The one-dispatch closure's pipeline for `plan`'s workgroup size, made on first use and kept
  // (CarrierClosure::Create asks for it, so no pipeline is made while a decode is timed).
  StatusOr<const ComputePipeline*> ClosureSharedPipeline(const ClosureDispatchPlan& plan);
  // The same for the strip-tiled closure's step (its plan and parameters) and its reduction.
  StatusOr<const ComputePipeline*> ClosureStripPipeline(const ClosureDispatchPlan& plan,
                                                        const ClosureParams& p);
  StatusOr<const ComputePipeline*> ClosureReducePipeline();
  // One step of the strip-tiled closure (carrier_closure_strip.comp; `plan` from
  // PlanClosureDispatch for this shape and `p`, kStrips): out = C(in), and per row the partials
  // of out's level statistics (active cells, cells changed against `in`, Σ|field| over the
  // support when `field` is given) into the row-partials scratch; a no-op once `control` says the
  // closure is finished. Then ClosureReduce.
  Status ClosureStrip(CommandBatch& b, const ClosureDispatchPlan& plan, const DeviceBuffer& in,
                      const DeviceBuffer& out, const DeviceBuffer* field,
                      const DeviceBuffer& control, const ClosureParams& p);
  // After ClosureStrip of step `step`: the row partials into levels[slot] (as LevelStats) and
  // the control (as ClosureControl), in one dispatch (carrier_closure_reduce.comp).
  Status ClosureReduce(CommandBatch& b, const DeviceBuffer& levels, const DeviceBuffer& control,
                       bool has_field, uint32_t step, uint32_t max_iterations, uint32_t slot);
  Status Smooth(CommandBatch& b, const DeviceBuffer& in, const DeviceBuffer& out,
                const SmoothingParams& p);
  // max|x| into records()[kRecordMaxAbs], then out = x / max|x| (x when the max is 0).
  Status NormalizeByMaxAbs(CommandBatch& b, const DeviceBuffer& in, const DeviceBuffer& out);
  // NormalizeByMaxAbs into `normalised`, then PdaThreshold of it into `carrier`, the division and
  // the threshold in one pass (carrier_scale_threshold): the same values, one dispatch fewer.
  Status NormalizeAndThreshold(CommandBatch& b, const DeviceBuffer& in,
                               const DeviceBuffer& normalised, const DeviceBuffer& carrier,
                               const PdaThresholdParams& p);
  // The same smoothing, NormalizeByMaxAbs and threshold with the max folded into the smoothing:
  // SmoothWithMax's column pass (carrier_smooth_max) also writes each workgroup's max |out|, and
  // NormalizeAndThresholdFromGroups (carrier_scale_threshold_groups) folds those maxima in every
  // workgroup before dividing — the same bits as Smooth + NormalizeAndThreshold, without the
  // latter's two max passes (one per row and one reduction). Only where the grid's cells make at
  // most kMaxFoldedGroups workgroups (FoldsMax(); every workgroup reads every maximum), else
  // FAILED_PRECONDITION. SmoothWithMax returns the maxima's count, to be passed on.
  static constexpr uint64_t kMaxFoldedGroups = 1024;
  bool FoldsMax() const;
  StatusOr<uint32_t> SmoothWithMax(CommandBatch& b, const DeviceBuffer& in, const DeviceBuffer& out,
                                   const SmoothingParams& p);
  Status NormalizeAndThresholdFromGroups(CommandBatch& b, const DeviceBuffer& in,
                                         const DeviceBuffer& normalised,
                                         const DeviceBuffer& carrier, const PdaThresholdParams& p,
                                         uint32_t groups);
  // D(s) into records()[kRecordDefect].c0; n must be kFour or kEight.
  Status Defect(CommandBatch& b, const DeviceBuffer& in, Neighbourhood n);
  // Zeroes records()[slot].
  void ClearRecord(CommandBatch& b, uint32_t slot);
  // One chunk of K-channel fusion: `channels` carriers channel-major in `chunk`, summed into
  // `sum` (from 0 when `first`), sign(sum) written to `out` when `last`; a value outside
  // {−1, 0, +1} sets kTotalsFlagBadFusionValue in records()[kRecordFusion].
  Status FuseChunk(CommandBatch& b, const DeviceBuffer& chunk, uint32_t channels, bool first,
                   bool last, const DeviceBuffer& sum, const DeviceBuffer& out);

 private:
  enum ScratchId { kWindowTmp, kCarrierTmp, kRowPartials, kFieldTmp, kGroupMax, kNumScratch };

  CarrierRecorder(const CarrierKernels& kernels, GridShape shape, DeviceBuffer records)
      : kernels_(kernels), shape_(shape), records_(std::move(records)) {}
  StatusOr<const DeviceBuffer*> Scratch(ScratchId id);
  Status Dispatch(CommandBatch& b, const ComputePipeline& p, VkDescriptorSet set,
                  const void* push, uint32_t push_bytes, uint64_t invocations, uint32_t workgroup,
                  const DeviceBuffer* gate, uint32_t gate_args);
  // Rows + columns window passes and the M / K decision: in → out.
  Status Window(CommandBatch& b, const DeviceBuffer& in, const DeviceBuffer& out, int radius,
                uint32_t mode, int eta, const DeviceBuffer* gate);
  // carrier_maxabs_rows and carrier_reduce_rows: max|in| into records()[kRecordMaxAbs].
  Status MaxAbs(CommandBatch& b, const DeviceBuffer& in);
  // carrier_reduce_rows over the row partials into dst[slot].
  Status Reduce(CommandBatch& b, const DeviceBuffer& dst, uint32_t flag, uint32_t slot,
                const DeviceBuffer* gate);
  Status CheckCarrierOperand(const DeviceBuffer& b, const char* what) const;
  Status CheckFieldOperand(const DeviceBuffer& b, const char* what) const;

  const CarrierKernels& kernels_;
  GridShape shape_;
  DeviceBuffer records_;
  std::unique_ptr<DescriptorSetCache> sets_;
  std::optional<DeviceBuffer> scratch_[kNumScratch];
  std::array<CarrierDispatchArgs, kClosureArgsCount> closure_args_{};
  // The one-dispatch closure's pipelines, by workgroup size (kept: recorded work refers to them).
  std::vector<std::pair<uint32_t, std::unique_ptr<ComputePipeline>>> closure_shared_;
  // The strip-tiled closure's pipelines: the step's by specialization (strip rows, words per
  // row, halo, r_a; made on first use and kept, as above), the reduction's.
  std::vector<std::pair<std::array<uint32_t, 4>, std::unique_ptr<ComputePipeline>>>
      closure_strip_;
  std::unique_ptr<ComputePipeline> closure_reduce_;
};

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_CARRIER_CARRIER_RECORDER_H_
