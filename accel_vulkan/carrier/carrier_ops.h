// The carrier kernels on the device, one op per call — the twins of core_ref/carrier, taking the
// same parameter structs and producing bit-identical results (integer kernels exactly; smoothing,
// normalisation and the level statistics in the canonical fp64 orders of docs/MATH.md §1.2, every
// operation `precise`). Carriers live on the device as one int32 per cell (values −1, 0, +1), real
// fields as fp64, both row-major; host-side helpers convert to and from core_ref's Carrier and
// RealField. Every op records through CarrierRecorder (the kernels' one implementation), submits
// once and waits; to chain ops into one submission, record them with CarrierRecorder and
// CarrierClosure directly (as VulkanDecoder does).
//
//   StatusOr<std::unique_ptr<CarrierOps>> ops = CarrierOps::Create(ctx);
//   DASHI_ASSIGN_OR_RETURN(DeviceCarrier s, (*ops)->Upload(carrier));
//   DASHI_ASSIGN_OR_RETURN(DeviceCarrier t, (*ops)->Annihilate(s, {1}));
//   DASHI_ASSIGN_OR_RETURN(Carrier back, (*ops)->Download(t));
#ifndef DASHI_ACCEL_VULKAN_CARRIER_CARRIER_OPS_H_
#define DASHI_ACCEL_VULKAN_CARRIER_CARRIER_OPS_H_

#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "accel_vulkan/carrier/carrier_recorder.h"
#include "accel_vulkan/carrier/closure_dispatch_plan.h"
#include "accel_vulkan/context.h"
#include "accel_vulkan/device_buffer.h"
#include "core_ref/carrier/annihilation.h"
#include "core_ref/carrier/carrier.h"
#include "core_ref/carrier/closure.h"
#include "core_ref/carrier/defect.h"
#include "core_ref/carrier/majority.h"
#include "core_ref/carrier/pda_threshold.h"
#include "core_ref/carrier/smoothing.h"
#include "core_ref/status/status.h"

namespace dashi::vk {

struct DeviceCarrier {
  GridShape shape;
  DeviceBuffer cells;  // shape.size() int32 values in {−1, 0, +1}
};

struct DeviceField {
  GridShape shape;
  DeviceBuffer values;  // shape.size() doubles
};

class CarrierOps {
 public:
  static StatusOr<std::unique_ptr<CarrierOps>> Create(VulkanContext& ctx);

  // Tuning knobs (the defaults suit every device); tests vary them to hit the edge cases.
  struct Options {
    uint32_t workgroup_size = 64;  // specialization constant 0 of every per-cell / per-row shader
    uint32_t max_groups_x = 65535;  // x workgroup count cap; longer ranges spill into y
    // Closure steps recorded into one submission (CarrierClosure); a deeper closure takes more
    // submissions, never fewer steps.
    int closure_steps_per_submission = 8;
    // The closure's path (CarrierClosure::Options): one shared-memory dispatch where it fits, or
    // strip-tiled steps, or always the multi-dispatch steps; and the shared memory it may use
    // (0: the device's).
    ClosurePlan closure_plan = ClosurePlan::kAuto;
    uint32_t closure_max_shared_bytes = 0;
    // And its workgroup's invocations (0: the device's limit).
    uint32_t closure_max_invocations = 0;
  };
  static StatusOr<std::unique_ptr<CarrierOps>> Create(VulkanContext& ctx, const Options& options);

  // Every buffer CarrierOps allocates (Upload and every op's output) holds the guard words of
  // accel_vulkan/guard_words.h after its payload, filled before the shaders run; CheckGuards()
  // verifies them (DATA_LOSS when a shader wrote past the end). Not thread-safe: one CarrierOps
  // per thread.
  Status CheckGuards(const DeviceCarrier& c);
  Status CheckGuards(const DeviceField& f);
  ~CarrierOps();
  CarrierOps(const CarrierOps&) = delete;
  CarrierOps& operator=(const CarrierOps&) = delete;

  StatusOr<DeviceCarrier> Upload(const Carrier& c);
  StatusOr<Carrier> Download(const DeviceCarrier& c);
  StatusOr<DeviceField> Upload(const RealField& f);
  StatusOr<RealField> Download(const DeviceField& f);

  StatusOr<DeviceCarrier> PdaThreshold(const DeviceField& f,
                                               const PdaThresholdParams& p);
  StatusOr<DeviceCarrier> Annihilate(const DeviceCarrier& s,
                                             const AnnihilationParams& p);
  StatusOr<DeviceCarrier> Majority(const DeviceCarrier& s, const MajorityParams& p);
  // One C = K_ann ∘ M step.
  StatusOr<DeviceCarrier> ClosureStep(const DeviceCarrier& s, const ClosureParams& p);
  // The whole closure on the device (CarrierClosure: steps recorded ahead, submissions of
  // Options::closure_steps_per_submission steps until it is finished); only the control record
  // and the per-level statistics are read back. `field` may be null. The fixed point stays on
  // the device.
  struct DeviceClosure {
    DeviceCarrier fixed_point;
    int depth = 0;
    bool reached_fixed_point = false;
    std::vector<ClosureLevelStats> levels;
    ClosureDispatch dispatch = ClosureDispatch::kMultiDispatch;  // the path that ran
  };
  StatusOr<DeviceClosure> Closure(const DeviceCarrier& s0, const DeviceField* field,
                                          const ClosureParams& p);
  // channels: k carriers of one shape.
  StatusOr<DeviceCarrier> FuseMajority(std::span<const DeviceCarrier* const> channels);
  // The same on one channel-major buffer of k·shape.size() int32 values (channel c's cells at
  // [c·n, c·n + n)), as core_ref FuseMajority takes them. A value outside {−1, 0, +1} is
  // INVALID_ARGUMENT, as in core_ref (also for the span overload).
  StatusOr<DeviceCarrier> FuseMajorityChannelMajor(const DeviceBuffer& channels, int64_t k,
                                                   GridShape shape);
  // n must be kFour or kEight (anything else is INVALID_ARGUMENT).
  StatusOr<int64_t> Defect(const DeviceCarrier& s, Neighbourhood n);
  StatusOr<DeviceField> Smooth(const DeviceField& f, const SmoothingParams& p);
  StatusOr<DeviceField> NormalizeByMaxAbs(const DeviceField& f);
  // PdaThreshold(NormalizeByMaxAbs(Smooth(f))) with the max folded into the smoothing
  // (CarrierRecorder::SmoothWithMax + NormalizeAndThresholdFromGroups, the decoder's mask for
  // N ≤ 256): the normalised field and the carrier. FAILED_PRECONDITION where the grid makes more
  // than CarrierRecorder::kMaxFoldedGroups workgroups.
  struct DeviceNormalisedMask {
    DeviceField normalised;
    DeviceCarrier cells;
  };
  StatusOr<DeviceNormalisedMask> SmoothNormalizeThresholdFolded(const DeviceField& f,
                                                                const SmoothingParams& smoothing,
                                                                const PdaThresholdParams& tau);

 private:
  struct Impl;  // kernels, the recorder of the last shape, the batch; in carrier_ops.cc
  explicit CarrierOps(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_CARRIER_CARRIER_OPS_H_
