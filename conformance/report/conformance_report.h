// Running the conformance suite on one device and recording the result: a report (device, driver,
// API version, shader build, each case's verdict with measured error and tolerance, the overall
// verdict) written as JSON, and the certification store that `dashi run --backend vulkan` consults.
// The certification store that keeps these reports and the lookup are in cert_store.h.
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

// The report's "format" field; the certification store accepts records of this format only.
inline constexpr char kConformanceReportFormat[] = "dashi-conformance/1";

struct CaseRecord {
  std::string name, op, measure;
  double tolerance = 0;
  CaseResult result;
  double seconds = 0;
};

struct SuiteReport {
  vk::DeviceInfo device;
  bool validation = false;
  std::string shader_build;        // hash of every embedded SPIR-V module (informative)
  std::string accelerator_build;   // the accelerator's sources, flags and SPIR-V (the key)
  std::string suite_id;            // SuiteId() of the binary that ran the suite (the key)
  std::string filter;              // --filter; a filtered run never certifies
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

// The suite's identity: BLAKE2b-128 (hex) over the sorted "name\tmeasure\ttolerance" of every
// linked case, the golden manifest's hash and the source hash of the case packages (//build_id).
// Empty when no case is linked.
std::string SuiteId();
// SuiteId() of the given cases and hashes (what it computes, for tests).
std::string SuiteIdOf(const std::vector<ConformanceCase>& cases, const std::string& golden_hash,
                      const std::string& case_source_hash);

}  // namespace dashi::conformance

#endif  // DASHI_CONFORMANCE_REPORT_CONFORMANCE_REPORT_H_
