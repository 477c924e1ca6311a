#include "conformance/report/conformance_report.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <ctime>

#include "build_id/build_ids.h"
#include "core_ref/blake2b/blake2b.h"

namespace dashi::conformance {
namespace {

std::string UtcNow() {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

nlohmann::json Number(double x) {
  if (std::isnan(x)) return nullptr;
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return x;
}

}  // namespace

SuiteReport RunSuite(vk::VulkanContext& ctx, const std::string& filter,
                     const std::function<void(const CaseRecord&)>& on_case) {
  SuiteReport r;
  r.device = ctx.info();
  r.validation = ctx.validation_enabled();
  r.started_utc = UtcNow();
  for (const ConformanceCase& c : AllCases()) {
    if (!filter.empty() && c.name.find(filter) == std::string::npos) continue;
    const auto t0 = std::chrono::steady_clock::now();
    CaseRecord rec{c.name, c.op, c.measure, c.tolerance, RunCase(c, ctx), 0};
    rec.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    switch (rec.result.verdict) {
      case Verdict::kPass: ++r.passed; break;
      case Verdict::kFail: ++r.failed; break;
      case Verdict::kNotSupported: ++r.not_supported; break;
    }
    if (on_case) on_case(rec);
    r.cases.push_back(std::move(rec));
  }
  return r;
}

nlohmann::json ReportJson(const SuiteReport& r) {
  nlohmann::json cases = nlohmann::json::array();
  for (const CaseRecord& c : r.cases) {
    cases.push_back({{"name", c.name},
                     {"op", c.op},
                     {"measure", c.measure},
                     {"tolerance", Number(c.tolerance)},
                     {"measured", Number(c.result.measured)},
                     {"verdict", VerdictName(c.result.verdict)},
                     {"detail", c.result.detail},
                     {"seconds", c.seconds}});
  }
  const vk::DeviceInfo& d = r.device;
  return {{"format", kConformanceReportFormat},
          {"device",
           {{"name", d.name},
            {"uuid", d.uuid},
            {"type", d.device_type},
            {"driver_name", d.driver_name},
            {"driver_info", d.driver_info},
            {"driver_version", d.driver_version},
            {"api_version", d.api_version},
            {"shader_float64", d.shader_float64},
            {"shader_int64", d.shader_int64}}},
          {"validation_layer", r.validation},
          // Synchronisation validation is on whenever the validation layer is (accel_vulkan).
          {"sync_validation", r.validation},
          {"filter", r.filter},
          {"shader_build", r.shader_build},
          {"accelerator_build", r.accelerator_build},
          {"suite_id", r.suite_id},
          {"started_utc", r.started_utc},
          {"summary",
           {{"passed", r.passed}, {"failed", r.failed}, {"not_supported", r.not_supported}}},
          {"verdict", r.conformant() ? "PASS" : "FAIL"},
          {"cases", cases}};
}

std::string SuiteIdOf(const std::vector<ConformanceCase>& cases, const std::string& golden_hash,
                      const std::string& case_source_hash) {
  std::vector<std::string> lines;
  for (const ConformanceCase& c : cases) {
    char tol[40];
    std::snprintf(tol, sizeof tol, "%.17g", c.tolerance);
    lines.push_back(c.name + "\t" + c.measure + "\t" + tol + "\n");
  }
  if (lines.empty()) return "";
  std::sort(lines.begin(), lines.end());
  std::string text;
  for (const std::string& l : lines) text += l;
  text += "golden manifest " + golden_hash + "\n";
  text += "case sources " + case_source_hash + "\n";
  return ToHex(Blake2b128(text.data(), text.size()));
}

std::string SuiteId() {
  return SuiteIdOf(AllCases(), build_id::kGoldenManifestHash, build_id::kSuiteSourceHash);
}

}  // namespace dashi::conformance
