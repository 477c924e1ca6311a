// VulkanContext: one Vulkan instance, one physical device chosen by a selector, one logical device
// with a compute queue, and (on request) the Khronos validation layer with every warning and
// error it reports collected, so tests can fail on any validation message.
//
// Lifetime order (reverse of creation, enforced by the destructor): device, debug messenger,
// instance. Buffers, pipelines and command pools made from a context must be destroyed before it.
//
//   ContextOptions opts;  opts.enable_validation = true;  opts.device_selector = "llvmpipe";
//   StatusOr<std::unique_ptr<VulkanContext>> ctx = VulkanContext::Create(opts);
//   (*ctx)->info().name;  (*ctx)->validation_messages();
#ifndef DASHI_ACCEL_VULKAN_CONTEXT_H_
#define DASHI_ACCEL_VULKAN_CONTEXT_H_

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <vulkan/vulkan.h>

#include "core_ref/status/status.h"

namespace dashi::vk {

inline constexpr char kValidationLayerName[] = "VK_LAYER_KHRONOS_validation";
// The environment variable read when ContextOptions::device_selector is empty.
inline constexpr char kDeviceEnvVar[] = "DASHI_VK_DEVICE";

struct ContextOptions {
  bool enable_validation = false;
  // "" (then $DASHI_VK_DEVICE, then device 0), a decimal index, a device UUID
  // (8-4-4-4-12 hex as vulkaninfo prints it, or 32 hex digits), or a case-insensitive substring
  // of the device name.
  std::string device_selector;
  // shaderFloat64 + shaderInt64 (needed by every fp64 path) are enabled whenever the device has
  // them; with require_float64 their absence is an UNIMPLEMENTED error.
  bool require_float64 = true;
  // Enables VK_KHR_pipeline_executable_properties (pipelineExecutableInfo) where the device has
  // it, so that ComputePipeline captures the driver's statistics (register counts and the like:
  // ComputePipeline::ExecutableStatistics). For probes and benchmarks; a device without the
  // extension is not an error (pipeline_statistics() stays false).
  bool capture_pipeline_statistics = false;
};

struct DeviceInfo {
  uint32_t index = 0;
  std::string name;
  std::string uuid;  // 8-4-4-4-12 lowercase hex
  std::string driver_name;
  std::string driver_info;
  uint32_t driver_version = 0;
  std::string api_version;  // "1.3.230"
  std::string device_type;  // "cpu", "discrete-gpu", ...
  bool shader_float64 = false;
  bool shader_int64 = false;
  double timestamp_period_ns = 0;
  uint32_t max_workgroup_size_x = 0;
};

// Lists every physical device (no logical device is created).
StatusOr<std::vector<DeviceInfo>> EnumerateDevices();

class VulkanContext {
 public:
  static StatusOr<std::unique_ptr<VulkanContext>> Create(const ContextOptions& options);
  ~VulkanContext();
  VulkanContext(const VulkanContext&) = delete;
  VulkanContext& operator=(const VulkanContext&) = delete;

  VkInstance instance() const { return instance_; }
  VkPhysicalDevice physical_device() const { return physical_; }
  VkDevice device() const { return device_; }
  VkQueue queue() const { return queue_; }
  uint32_t queue_family() const { return queue_family_; }
  const DeviceInfo& info() const { return info_; }
  bool validation_enabled() const { return validation_enabled_; }
  // Valid bits of timestamps on the compute queue (0: no timestamps).
  uint32_t timestamp_valid_bits() const { return timestamp_valid_bits_; }
  // Whether pipelines capture executable statistics (ContextOptions::capture_pipeline_statistics
  // on a device with VK_KHR_pipeline_executable_properties).
  bool pipeline_statistics() const { return pipeline_statistics_; }

  // Every validation warning and error reported so far ("[ERROR] VUID-...: ...").
  std::vector<std::string> validation_messages() const;
  void RecordValidationMessage(std::string message);

  // A memory type index with all of `required` flags among `type_bits`, or NOT_FOUND.
  StatusOr<uint32_t> FindMemoryType(uint32_t type_bits, VkMemoryPropertyFlags required) const;
  // The property flags of memory type `type` (0 for an index the device does not have).
  VkMemoryPropertyFlags MemoryTypeFlags(uint32_t type) const;

 private:
  VulkanContext() = default;
  Status Init(const ContextOptions& options);

  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT messenger_ = VK_NULL_HANDLE;
  VkPhysicalDevice physical_ = VK_NULL_HANDLE;
  VkDevice device_ = VK_NULL_HANDLE;
  VkQueue queue_ = VK_NULL_HANDLE;
  uint32_t queue_family_ = 0;
  uint32_t timestamp_valid_bits_ = 0;
  DeviceInfo info_;
  bool validation_enabled_ = false;
  bool pipeline_statistics_ = false;

  mutable std::mutex messages_mu_;
  std::vector<std::string> messages_;
};

}  // namespace dashi::vk

#endif  // DASHI_ACCEL_VULKAN_CONTEXT_H_
