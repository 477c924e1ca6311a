// Opening a Vulkan device for `dashi run|rollout|audit --backend vulkan`: selects the device,
// refuses one without a passing conformance report for this (UUID, driver version, shader build)
// unless --allow-uncertified, and adapts the device ops to the pipeline's backend hooks. Never a
// silent fallback: every failure is an error that says what to do.
#ifndef DASHI_TOOLS_VULKAN_BACKEND_H_
#define DASHI_TOOLS_VULKAN_BACKEND_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "accel_vulkan/context.h"
#include "accel_vulkan/rollout/vulkan_rollout.h"
#include "conformance/report/conformance_report.h"
#include "core_ref/pipeline/pipeline.h"
#include "core_ref/status/status.h"

namespace dashi::tools {

struct VulkanBackendOptions {
  std::string device;        // selector: index, UUID or name substring ("" → $DASHI_VK_DEVICE / 0)
  bool allow_uncertified = false;
  std::string cert_store;    // "" → conformance::DefaultCertStore()
  bool validation = false;   // Khronos validation layer (slow; any message fails the run)
  bool decode_fp32 = false;  // fp32 inverse FFTs in the decoder (declared in the output)
  std::string rollout_kernel = "auto";  // auto | fused | two-kernel | persistent
};

struct VulkanSession {
  std::unique_ptr<vk::VulkanContext> ctx;
  std::string shader_build;
  conformance::CertState cert = conformance::CertState::kUncertified;
  std::string cert_store;
  VulkanBackendOptions options;
  std::string rollout_kernel_used;  // set by CreateVulkanRollout (recorded in the provenance)
};

// The rollout on the session's device with the kernel of options.rollout_kernel (INVALID_ARGUMENT
// for an unknown name); records the kernel used in the session.
StatusOr<std::unique_ptr<vk::VulkanRollout>> CreateVulkanRollout(VulkanSession& session,
                                                                 int64_t dim,
                                                                 std::span<const double> a);

// Adds --rollout-kernel to a command.
void AddRolloutKernelFlag(CLI::App* cmd, VulkanBackendOptions* options);

// Opens and checks the device; `command` names the CLI command in messages.
StatusOr<VulkanSession> OpenVulkanDevice(const VulkanBackendOptions& options,
                                         const std::string& command);

// Rollout and decode on the session's device (the session must outlive the returned functions).
PipelineBackends VulkanPipelineBackends(VulkanSession& session);

// Provenance of the session for outputs: backend requested/used, device, driver, certification.
nlohmann::json VulkanProvenance(const VulkanSession& session);

// Fails if validation is on and the layer reported anything.
Status CheckValidation(const VulkanSession& session);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_VULKAN_BACKEND_H_
