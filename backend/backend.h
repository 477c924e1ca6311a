// The one seam between the `dashi` commands and where work runs: a Backend is the fp64 reference
// ("ref") or a certified Vulkan device ("vulkan"), opened by name with no fallback from one to
// the other. Every command that rolls out or decodes goes through it: `run` (the pipeline's
// hooks), `rollout` (a PreparedRollout) and `audit` (two PreparedRollouts compared).
//
//   DASHI_ASSIGN_OR_RETURN(Backend b, Backend::Open({.name = "vulkan"}, "dashi rollout"));
//   DASHI_ASSIGN_OR_RETURN(PreparedRollout r, b.PrepareRollout(dim, a));
//   DASHI_ASSIGN_OR_RETURN(RolloutResult res, r.Run(z0, {.steps = 1000, .hash_every = 100}));
//   DASHI_RETURN_IF_ERROR(b.CheckValidation());
//   out["provenance"] = b.Provenance();
#ifndef DASHI_BACKEND_BACKEND_H_
#define DASHI_BACKEND_BACKEND_H_

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "backend/pipeline_hooks.h"
#include "backend/vulkan_session.h"
#include "core_ref/pipeline/pipeline.h"
#include "core_ref/rollout/rollout.h"
#include "core_ref/status/status.h"

namespace dashi::backend {

struct BackendOptions {
  std::string name = "ref";      // "ref" or "vulkan"
  VulkanOptions vulkan;          // used when name is "vulkan"
  std::string policy = "strict";  // strict: a backend that cannot run is an error; permissive:
                                  // run on the reference instead, recorded as a downgrade
};

// z ← z·A for one A on one backend (on a device: A uploaded once, reused by every Run).
class PreparedRollout {
 public:
  PreparedRollout(PreparedRollout&&) noexcept;
  PreparedRollout& operator=(PreparedRollout&&) noexcept;
  ~PreparedRollout();

  StatusOr<RolloutResult> Run(std::span<const double> z0, const RolloutParams& params,
                              const RolloutObserver& observer = nullptr);
  // Device time, submissions and states read back by the last Run; an empty object on the
  // reference (which has no device clock).
  nlohmann::json DeviceTimingJson() const;

 private:
  friend class Backend;
  PreparedRollout() = default;
  std::vector<double> a_;                         // the reference's copy of A
  std::unique_ptr<vk::VulkanRollout> device_;     // null on the reference
};

class Backend {
 public:
  // "ref" always opens; "vulkan" opens the device through the certification gate
  // (OpenVulkanSession); anything else is INVALID_ARGUMENT. `command` names the command in
  // messages.
  static StatusOr<Backend> Open(const BackendOptions& options, const std::string& command);

  const std::string& name() const { return name_; }
  // Empty, or why the requested backend was replaced by the reference (policy "permissive"):
  // "backend vulkan -> ref: <the error>". Provenance() lists it under "perf_flags".
  const std::string& downgrade() const { return downgrade_; }
  bool on_device() const { return session_ != nullptr; }
  // The device session (null on the reference).
  const VulkanSession* session() const { return session_.get(); }

  StatusOr<PreparedRollout> PrepareRollout(int64_t dim, std::span<const double> a);
  // Empty hooks (the reference) or the device's twins; the Backend outlives them.
  PipelineBackends PipelineHooks();
  // What the hooks did on the device (DeviceRunJson: hot-loop flag, rollout submissions and
  // readback, decode stage times beside host times); {"gpu_hotloop_active": false} on the
  // reference.
  nlohmann::json PipelineDeviceJson() const;
  // The device's scale-tower statistics of each decoded snapshot of the last pipeline run, in
  // order (empty on the reference).
  const std::vector<std::vector<ScaleLayer>>& DecodedScaleTowers() const;
  // The per-layer statistics of ω's scale tower computed on the device (VulkanScaleTower,
  // metrics-only readback; the tower is made once per N and parameters, then reused), with its
  // report; FAILED_PRECONDITION on the reference, which has no device tower (use core_ref's
  // BuildScaleTower).
  StatusOr<std::vector<ScaleLayer>> DeviceScaleLayers(std::span<const double> omega, int64_t n,
                                                      const ScaleTowerParams& params,
                                                      vk::VulkanScaleTowerReport* report = nullptr);
  // The provenance of work done on this backend.
  nlohmann::json Provenance() const;
  // Validation-layer messages fail a device run (OK on the reference).
  Status CheckValidation() const;

 private:
  std::string name_;
  std::string downgrade_;
  std::unique_ptr<VulkanSession> session_;
  std::shared_ptr<DeviceRunStats> device_stats_ = std::make_shared<DeviceRunStats>();
  std::shared_ptr<vk::VulkanScaleTower> tower_;  // DeviceScaleLayers' (destroyed before session_)
};

}  // namespace dashi::backend

#endif  // DASHI_BACKEND_BACKEND_H_
