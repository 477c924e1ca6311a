#include "conformance/report/conformance_report.h"

#include <chrono>
#include <cstdlib>
#include <ctime>
#include <filesystem>

#include "core_ref/fileio/atomic_file.h"
#include "json_input/json_input.h"

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
  return {{"format", "dashi-conformance/1"},
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
          {"shader_build", r.shader_build},
          {"started_utc", r.started_utc},
          {"summary",
           {{"passed", r.passed}, {"failed", r.failed}, {"not_supported", r.not_supported}}},
          {"verdict", r.conformant() ? "PASS" : "FAIL"},
          {"cases", cases}};
}

std::string DefaultCertStore() {
  if (const char* s = std::getenv("DASHI_CERT_STORE"); s != nullptr && *s) return s;
  if (const char* x = std::getenv("XDG_DATA_HOME"); x != nullptr && *x) {
    return std::string(x) + "/dashi/certifications";
  }
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : ".") + "/.local/share/dashi/certifications";
}

std::string CertFileName(const vk::DeviceInfo& device, const std::string& shader_build) {
  return device.uuid + "_" + std::to_string(device.driver_version) + "_" + shader_build + ".json";
}

Status SaveCertification(const std::string& store, const SuiteReport& r) {
  std::error_code ec;
  std::filesystem::create_directories(store, ec);
  if (ec) return InvalidArgumentError(store + ": cannot create the certification store: " +
                                      ec.message());
  return WriteFileAtomically(store + "/" + CertFileName(r.device, r.shader_build),
                             ReportJson(r).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

const char* CertStateName(CertState s) {
  switch (s) {
    case CertState::kCertified: return "certified";
    case CertState::kFailed: return "failed";
    case CertState::kUncertified: return "uncertified";
  }
  return "uncertified";
}

CertState LookUpCertification(const std::string& store, const vk::DeviceInfo& device,
                              const std::string& shader_build) {
  StatusOr<std::vector<uint8_t>> bytes =
      ReadFileBytes(store + "/" + CertFileName(device, shader_build));
  if (!bytes.ok()) return CertState::kUncertified;
  const std::string what = store + "/" + CertFileName(device, shader_build);
  StatusOr<nlohmann::json> j = ParseJsonInput(*bytes, what);
  if (!j.ok()) return CertState::kUncertified;
  // The file name is only a key: the content must name the same triple. A field of another type
  // (a hand-edited record) reads as no certification, never as an exception.
  StatusOr<const nlohmann::json*> d = ObjectField(*j, "device", what);
  if (!d.ok()) return CertState::kUncertified;
  StatusOr<std::string> uuid = StringField(**d, "uuid", what);
  StatusOr<uint64_t> driver = UintField(**d, "driver_version", what);
  StatusOr<std::string> build = StringField(*j, "shader_build", what);
  StatusOr<std::string> verdict = StringField(*j, "verdict", what);
  if (!uuid.ok() || !driver.ok() || !build.ok() || !verdict.ok() || *uuid != device.uuid ||
      *driver != device.driver_version || *build != shader_build) {
    return CertState::kUncertified;
  }
  return *verdict == "PASS" ? CertState::kCertified : CertState::kFailed;
}

}  // namespace dashi::conformance
