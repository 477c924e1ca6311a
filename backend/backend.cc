#include "backend/backend.h"

#include "backend/pipeline_hooks.h"
#include "backend/provenance.h"

namespace dashi::backend {

PreparedRollout::PreparedRollout(PreparedRollout&&) noexcept = default;
PreparedRollout& PreparedRollout::operator=(PreparedRollout&&) noexcept = default;
PreparedRollout::~PreparedRollout() = default;

StatusOr<RolloutResult> PreparedRollout::Run(std::span<const double> z0,
                                             const RolloutParams& params,
                                             const RolloutObserver& observer) {
  if (device_ != nullptr) return device_->Run(z0, params, observer);
  return Rollout(z0, a_, params, observer);
}

nlohmann::json PreparedRollout::DeviceTimingJson() const {
  if (device_ == nullptr) return nlohmann::json::object();
  const vk::RolloutTimings& t = device_->last_timings();
  return {{"device_ms", t.device_ms},
          {"device_us_per_step", t.device_us_per_step},
          {"submissions", t.submissions},
          {"states_read_back", t.snapshots}};
}

StatusOr<Backend> Backend::Open(const BackendOptions& options, const std::string& command) {
  Backend b;
  b.name_ = options.name;
  if (options.name == "ref") return b;
  if (options.name != "vulkan") {
    return InvalidArgumentError("backend '" + options.name + "' is not ref or vulkan");
  }
  if (options.policy != "strict" && options.policy != "permissive") {
    return InvalidArgumentError("backend policy '" + options.policy +
                                "' is not strict or permissive");
  }
  StatusOr<std::unique_ptr<VulkanSession>> session = OpenVulkanSession(options.vulkan, command);
  if (!session.ok()) {
    // Options that are wrong stay errors under either policy; only a device that cannot run
    // is downgraded, and only when asked.
    if (options.policy != "permissive" ||
        session.status().code() == StatusCode::kInvalidArgument) {
      return session.status();
    }
    b.name_ = "ref";
    b.downgrade_ = "backend vulkan -> ref: " + session.status().ToString();
    return b;
  }
  b.session_ = std::move(session).value();
  return b;
}

StatusOr<PreparedRollout> Backend::PrepareRollout(int64_t dim, std::span<const double> a) {
  PreparedRollout r;
  if (session_ != nullptr) {
    DASHI_ASSIGN_OR_RETURN(r.device_, CreateVulkanRollout(*session_, dim, a));
  } else {
    r.a_.assign(a.begin(), a.end());
  }
  return r;
}

PipelineBackends Backend::PipelineHooks() {
  return session_ != nullptr ? VulkanPipelineHooks(*session_, device_stats_) : PipelineBackends{};
}

nlohmann::json Backend::PipelineDeviceJson() const { return DeviceRunJson(*device_stats_); }
const std::vector<std::vector<ScaleLayer>>& Backend::DecodedScaleTowers() const {
  return device_stats_->decoded_towers;
}

StatusOr<std::vector<ScaleLayer>> Backend::DeviceScaleLayers(std::span<const double> omega,
                                                             int64_t n,
                                                             const ScaleTowerParams& params,
                                                             vk::VulkanScaleTowerReport* report) {
  if (session_ == nullptr) {
    return FailedPreconditionError("the scale tower on the device needs backend vulkan, not " +
                                   name_);
  }
  const bool same = tower_ != nullptr && tower_->n() == n &&
                    tower_->params().k_lo == params.k_lo &&
                    tower_->params().threshold.tau == params.threshold.tau &&
                    tower_->params().relative_floor == params.relative_floor &&
                    tower_->params().closure.max_iterations == params.closure.max_iterations &&
                    tower_->params().closure.annihilation.radius ==
                        params.closure.annihilation.radius &&
                    tower_->params().closure.majority.radius == params.closure.majority.radius &&
                    tower_->params().closure.majority.eta == params.closure.majority.eta;
  if (!same) {
    tower_.reset();
    DASHI_ASSIGN_OR_RETURN(std::unique_ptr<vk::VulkanScaleTower> t,
                           vk::VulkanScaleTower::Create(*session_->ctx, n, params));
    tower_ = std::move(t);
  }
  DASHI_ASSIGN_OR_RETURN(std::vector<ScaleLayer> layers, tower_->Run(omega));
  if (report != nullptr) *report = tower_->last_report();
  return layers;
}

nlohmann::json Backend::Provenance() const {
  if (session_ != nullptr) return VulkanProvenance(*session_);
  if (downgrade_.empty()) return ReferenceProvenance(name_);
  nlohmann::json p = ReferenceProvenance("vulkan");
  p["backend_policy"] = "permissive";
  p["perf_flags"] = nlohmann::json::array({downgrade_});
  return p;
}

Status Backend::CheckValidation() const {
  return session_ != nullptr ? backend::CheckValidation(*session_) : OkStatus();
}

}  // namespace dashi::backend
