#include "accel_vulkan/carrier/carrier_kernels.h"

#include <algorithm>

#include "shaders/carrier/carrier_closure_control.h"
#include "shaders/carrier/carrier_defect_rows.h"
#include "shaders/carrier/carrier_fuse.h"
#include "shaders/carrier/carrier_level_rows.h"
#include "shaders/carrier/carrier_maxabs_rows.h"
#include "shaders/carrier/carrier_params.h"
#include "shaders/carrier/carrier_pda.h"
#include "shaders/carrier/carrier_reduce_rows.h"
#include "shaders/carrier/carrier_scale.h"
#include "shaders/carrier/carrier_scale_threshold.h"
#include "shaders/carrier/carrier_smooth.h"
#include "shaders/carrier/carrier_smooth_max.h"
#include "shaders/carrier/carrier_scale_threshold_groups.h"
#include "shaders/carrier/carrier_window_cols.h"
#include "shaders/carrier/carrier_window_rows.h"

namespace dashi::vk {

StatusOr<std::unique_ptr<CarrierKernels>> CarrierKernels::Create(
    VulkanContext& ctx, const CarrierKernelOptions& options) {
  if (!ctx.info().shader_float64 || !ctx.info().shader_int64) {
    return UnimplementedError("carrier ops need shaderFloat64 and shaderInt64; device '" +
                              ctx.info().name + "' lacks them");
  }
  std::unique_ptr<CarrierKernels> k(new CarrierKernels(ctx, options));
  DASHI_RETURN_IF_ERROR(k->Init());
  return k;
}

Status CarrierKernels::Init() {
  VkPhysicalDeviceProperties props;
  vkGetPhysicalDeviceProperties(ctx_.physical_device(), &props);
  max_range_ = props.limits.maxStorageBufferRange;
  max_groups_y_ = props.limits.maxComputeWorkGroupCount[1];
  const uint32_t w = options_.workgroup_size;
  if (w == 0 || w > props.limits.maxComputeWorkGroupSize[0] ||
      w > props.limits.maxComputeWorkGroupInvocations) {
    return InvalidArgumentError(
        "carrier workgroup size " + std::to_string(w) + " is outside [1, " +
        std::to_string(std::min(props.limits.maxComputeWorkGroupSize[0],
                                props.limits.maxComputeWorkGroupInvocations)) +
        "]");
  }
  if (options_.max_groups_x == 0 ||
      options_.max_groups_x > props.limits.maxComputeWorkGroupCount[0]) {
    return InvalidArgumentError("carrier max_groups_x " + std::to_string(options_.max_groups_x) +
                                " is outside [1, " +
                                std::to_string(props.limits.maxComputeWorkGroupCount[0]) + "]");
  }
  DASHI_ASSIGN_OR_RETURN(pda, MakePipeline(spirv::kCarrierPda, 2, sizeof(CarrierPdaParams), w));
  DASHI_ASSIGN_OR_RETURN(
      window_rows, MakePipeline(spirv::kCarrierWindowRows, 2, sizeof(CarrierWindowParams), w));
  DASHI_ASSIGN_OR_RETURN(
      window_cols, MakePipeline(spirv::kCarrierWindowCols, 3, sizeof(CarrierWindowParams), w));
  DASHI_ASSIGN_OR_RETURN(level_rows,
                         MakePipeline(spirv::kCarrierLevelRows, 4, sizeof(CarrierRowParams), w));
  DASHI_ASSIGN_OR_RETURN(defect_rows,
                         MakePipeline(spirv::kCarrierDefectRows, 2, sizeof(CarrierRowParams), w));
  DASHI_ASSIGN_OR_RETURN(maxabs_rows,
                         MakePipeline(spirv::kCarrierMaxabsRows, 2, sizeof(CarrierRowParams), w));
  // The row reduction is one workgroup (its sum one invocation's, in the canonical order); the
  // closure control is one invocation by design (one control record).
  DASHI_ASSIGN_OR_RETURN(
      reduce_rows, MakePipeline(spirv::kCarrierReduceRows, 2, sizeof(CarrierReduceParams), w));
  DASHI_ASSIGN_OR_RETURN(closure_control,
                         MakePipeline(spirv::kCarrierClosureControl, 2,
                                      sizeof(CarrierClosureControlParams), 1));
  DASHI_ASSIGN_OR_RETURN(smooth,
                         MakePipeline(spirv::kCarrierSmooth, 2, sizeof(CarrierSmoothParams), w));
  DASHI_ASSIGN_OR_RETURN(scale,
                         MakePipeline(spirv::kCarrierScale, 3, sizeof(CarrierScaleParams), w));
  DASHI_ASSIGN_OR_RETURN(scale_threshold,
                         MakePipeline(spirv::kCarrierScaleThreshold, 4,
                                      sizeof(CarrierScaleThresholdParams), w));
  DASHI_ASSIGN_OR_RETURN(smooth_max, MakePipeline(spirv::kCarrierSmoothMax, 3,
                                                  sizeof(CarrierSmoothParams), w));
  DASHI_ASSIGN_OR_RETURN(scale_threshold_groups,
                         MakePipeline(spirv::kCarrierScaleThresholdGroups, 4,
                                      sizeof(CarrierScaleThresholdGroupsParams), w));
  DASHI_ASSIGN_OR_RETURN(fuse, MakePipeline(spirv::kCarrierFuse, 4, sizeof(CarrierFuseParams), w));
  return OkStatus();
}

StatusOr<std::unique_ptr<ComputePipeline>> CarrierKernels::MakePipeline(
    std::span<const uint32_t> spirv, uint32_t buffers, uint32_t push_bytes,
    uint32_t workgroup) const {
  ComputePipelineSpec spec;
  spec.spirv = spirv;
  spec.num_buffers = buffers;
  spec.push_constant_bytes = push_bytes;
  spec.specialization = {workgroup};
  spec.max_binding_sets = 1;  // sets come from the recorders' DescriptorSetCache
  return ComputePipeline::Create(ctx_, spec);
}

StatusOr<GroupCount> CarrierKernels::Groups(uint64_t invocations, uint32_t workgroup) const {
  const uint64_t w = workgroup != 0 ? workgroup : options_.workgroup_size;
  const uint64_t groups = std::max<uint64_t>(1, (invocations + w - 1) / w);
  const uint64_t gx = std::min<uint64_t>(groups, options_.max_groups_x);
  const uint64_t gy = (groups + gx - 1) / gx;
  if (gy > max_groups_y_) {
    return ResourceExhaustedError(
        "a dispatch of " + std::to_string(invocations) + " invocations needs " +
        std::to_string(gy) + " workgroup rows; the device allows " + std::to_string(max_groups_y_));
  }
  return GroupCount{static_cast<uint32_t>(gx), static_cast<uint32_t>(gy)};
}

Status CarrierKernels::CheckBinding(uint64_t payload_bytes, const std::string& what) const {
  if (payload_bytes > max_range_) {
    return ResourceExhaustedError(what + " needs " + std::to_string(payload_bytes) +
                                  " bytes in one storage buffer; the device's "
                                  "maxStorageBufferRange is " +
                                  std::to_string(max_range_) + " bytes");
  }
  return OkStatus();
}

}  // namespace dashi::vk
