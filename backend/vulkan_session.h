// Opening a Vulkan device for `dashi run|rollout|audit --backend vulkan`: selects the device,
// refuses one without a passing conformance report for this (UUID, driver version, shader build)
// unless allow_uncertified (the certification gate), creates its rollout with the requested
// kernel, and describes the session for the output's provenance. Never a silent fallback: every
// failure is an error that says what to do.
//
//   DASHI_ASSIGN_OR_RETURN(std::unique_ptr<VulkanSession> s, OpenVulkanSession(opts, "dashi run"));
//   DASHI_ASSIGN_OR_RETURN(auto rollout, CreateVulkanRollout(*s, dim, a));
#ifndef DASHI_BACKEND_VULKAN_SESSION_H_
#define DASHI_BACKEND_VULKAN_SESSION_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "accel_vulkan/context.h"
#include "accel_vulkan/rollout/vulkan_rollout.h"
#include "conformance/report/cert_store.h"
#include "core_ref/status/status.h"

namespace dashi::backend {

struct VulkanOptions {
  std::string device;         // selector: index, UUID or name substring ("" → $DASHI_VK_DEVICE / 0)
  bool allow_uncertified = false;
  std::string cert_store;     // "" → conformance::DefaultCertStore()
  bool validation = false;    // Khronos validation layer (slow; any message fails the run)
  std::string decode_precision = "fp64";  // fp64 | fp32 (fp32 inverse FFTs, declared in output)
  std::string rollout_kernel = "auto";    // auto | fused | two-kernel | persistent
};

struct VulkanSession {
  std::unique_ptr<vk::VulkanContext> ctx;
  std::string shader_build;
  conformance::CertKey key;  // accelerator build id and suite id of this binary
  conformance::CertState cert = conformance::CertState::kUncertified;
  std::string cert_reason;   // the store's answer in words (which file, which problem)
  std::string cert_store;
  VulkanOptions options;
  std::string rollout_kernel_used;  // set by CreateVulkanRollout (recorded in the provenance)
};

// Opens and checks the device; `command` names the command in messages. INVALID_ARGUMENT for
// an unknown decode precision or rollout kernel, the device's error prefixed with "backend
// 'vulkan' requested but the device cannot be used", FAILED_PRECONDITION for an uncertified
// device without allow_uncertified. The session lives on the heap: adapters keep its address.
StatusOr<std::unique_ptr<VulkanSession>> OpenVulkanSession(const VulkanOptions& options,
                                                           const std::string& command);

// Replaces the session's device with a new one on the same physical device (same options; the
// same UUID is required), for a command that opens the device early — to fail before hours of
// CPU work when the backend cannot run — and uses it only later. Why: the NVIDIA driver raises the
// SM clock when a device is created and lowers it again about 3 s after (345 MHz idle against
// 1980 MHz on an H200, docs/PERF.md), so a device opened before the run's LES has its clock down
// by the time the GPU stages start. Every object made on the old device must be gone; with
// validation on, the old device's messages are checked first. Returns the milliseconds taken.
StatusOr<double> ReopenVulkanDevice(VulkanSession& session);

// The rollout on the session's device with the kernel of options.rollout_kernel; records the
// kernel used in the session.
StatusOr<std::unique_ptr<vk::VulkanRollout>> CreateVulkanRollout(VulkanSession& session,
                                                                 int64_t dim,
                                                                 std::span<const double> a);

// Backend requested/used, device, driver, shader build, certification, validation, decode
// precision and rollout kernel.
nlohmann::json VulkanProvenance(const VulkanSession& session);

// Fails if validation is on and the layer reported anything.
Status CheckValidation(const VulkanSession& session);

}  // namespace dashi::backend

#endif  // DASHI_BACKEND_VULKAN_SESSION_H_
