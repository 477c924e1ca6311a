// Running the conformance suite on one device and recording the result: a report (device, driver,
// API version, shader build, each case's verdict with measured error and tolerance, the overall
// verdict) written as JSON, and the certification store that `dashi run --backend vulkan` consults.
// A device is certified for a (device UUID, driver version, shader build) triple when the store
// holds a report for exactly that triple whose overall verdict is PASS.
#ifndef DASHI_CONFORMANCE_REPORT_CONFORMANCE_REPORT_H_
#define DASHI_CONFORMANCE_REPORT_CONFORMANCE_REPORT_H_

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "accel_vulkan/context.h"
#include "conformance/framework/conformance_case.h"
#include "core_ref/status/status.h"

namespace dashi::conformance {

struct CaseRecord {
  std::string name, op, measure;
  double tolerance = 0;
  CaseResult result;
  double seconds = 0;
};

struct SuiteReport {
  vk::DeviceInfo device;
  bool validation = false;
  std::string shader_build;  // hash of every embedded SPIR-V module
  std::string started_utc;
  std::vector<CaseRecord> cases;
  int passed = 0, failed = 0, not_supported = 0;
  bool conformant() const { return failed == 0 && not_supported == 0 && passed > 0; }
};

// Runs every registered case whose name contains `filter` (all if empty); `on_case` is called after
// each case (for a progress table).
SuiteReport RunSuite(vk::VulkanContext& ctx, const std::string& filter,
                     const std::function<void(const CaseRecord&)>& on_case = {});

nlohmann::json ReportJson(const SuiteReport& r);

// The store: a directory of reports named <uuid>_<driver version>_<shader build>.json.
// Default: $DASHI_CERT_STORE, else $XDG_DATA_HOME/dashi/certifications, else
// ~/.local/share/dashi/certifications.
std::string DefaultCertStore();
std::string CertFileName(const vk::DeviceInfo& device, const std::string& shader_build);
Status SaveCertification(const std::string& store, const SuiteReport& r);

enum class CertState { kCertified, kFailed, kUncertified };
const char* CertStateName(CertState s);  // "certified", "failed", "uncertified"
// What the store says about this device, driver and shader build.
CertState LookUpCertification(const std::string& store, const vk::DeviceInfo& device,
                              const std::string& shader_build);

}  // namespace dashi::conformance

#endif  // DASHI_CONFORMANCE_REPORT_CONFORMANCE_REPORT_H_
