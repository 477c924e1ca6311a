// CarrierKernels: the compute pipelines of the carrier shaders (shaders/carrier/*.comp), built once
// per device, and the workgroup arithmetic every dispatch of them shares. CarrierRecorder records
// them; CarrierOps and the decoder own one through it. Destroy before the VulkanContext.
#ifndef DASHI_ACCEL_VULKAN_CARRIER_CARRIER_KERNELS_H_
#define DASHI_ACCEL_VULKAN_CARRIER_CARRIER_KERNELS_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "accel_vulkan/compute_pipeline.h"
#include "accel_vulkan/context.h"
#include "core_ref/status/status.h"

namespace dashi::vk {

// Tuning knobs (the defaults suit every device); tests vary them to hit the edge cases.
struct CarrierKernelOptions {
  uint32_t workgroup_size = 64;   // specialization constant 0 of every per-cell / per-row shader
  uint32_t max_groups_x = 65535;  // x workgroup count cap; longer ranges spill into y
};

struct GroupCount {
  uint32_t x = 1, y = 1;
};

class CarrierKernels {
 public:
  // Needs shaderFloat64 and shaderInt64 (UNIMPLEMENTED otherwise); options outside the device's
  // limits are INVALID_ARGUMENT.
  static StatusOr<std::unique_ptr<CarrierKernels>> Create(VulkanContext& ctx,
                                                          const CarrierKernelOptions& options);

  VulkanContext& ctx() const { return ctx_; }
  const CarrierKernelOptions& options() const { return options_; }
  uint64_t max_range() const { return max_range_; }  // maxStorageBufferRange

  // Workgroups covering `invocations` with `workgroup` invocations each (0: the option's size):
  // a 1-D range as a 2-D grid whose x count is capped at max_groups_x; RESOURCE_EXHAUSTED when
  // even that needs more rows than the device allows.
  StatusOr<GroupCount> Groups(uint64_t invocations, uint32_t workgroup = 0) const;
  // RESOURCE_EXHAUSTED, naming `what`, when `payload_bytes` do not fit one storage binding.
  Status CheckBinding(uint64_t payload_bytes, const std::string& what) const;

  std::unique_ptr<ComputePipeline> pda, window_rows, window_cols, level_rows, defect_rows,
      maxabs_rows, reduce_rows, smooth, scale, scale_threshold, fuse, closure_control,
      smooth_max, scale_threshold_groups;

 private:
  CarrierKernels(VulkanContext& ctx, const CarrierKernelOptions& options)
      : ctx_(ctx), options_(options) {}
  Status Init();
  StatusOr<std::unique_ptr<ComputePipeline>> MakePipeline(std::span<const uint32_t> spirv,
                                                          uint32_t buffers, uint32_t push_bytes,
                                                          uint32_t workgroup) const;

  VulkanContext& ctx_;
  CarrierKernelOptions options_;
  uint64_t max_range_ = 0;
  uint32_t max_groups_y_ = 0;
};

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_CARRIER_CARRIER_KERNELS_H_
