#include "conformance/framework/conformance_case.h"

#include <algorithm>
#include <mutex>

namespace dashi::conformance {
namespace {

std::vector<ConformanceCase>& Registry() {
  static std::vector<ConformanceCase>* cases = new std::vector<ConformanceCase>();
  return *cases;
}

}  // namespace

const char* VerdictName(Verdict v) {
  switch (v) {
    case Verdict::kPass: return "PASS";
    case Verdict::kFail: return "FAIL";
    case Verdict::kNotSupported: return "NOT_SUPPORTED";
  }
  return "FAIL";
}

CaseResult Pass(double measured, std::string detail) {
  return {Verdict::kPass, measured, std::move(detail)};
}
CaseResult Fail(double measured, std::string detail) {
  return {Verdict::kFail, measured, std::move(detail)};
}
CaseResult NotSupported(std::string why) { return {Verdict::kNotSupported, NAN, std::move(why)}; }
CaseResult FailFromStatus(const Status& status) { return {Verdict::kFail, NAN, status.ToString()}; }

CaseResult Judge(double measured, double tolerance, std::string detail) {
  if (std::isnan(measured)) return Fail(measured, "measured NaN; " + detail);
  return {measured <= tolerance ? Verdict::kPass : Verdict::kFail, measured, std::move(detail)};
}

bool RegisterCase(ConformanceCase c) {
  Registry().push_back(std::move(c));
  return true;
}

std::vector<ConformanceCase> AllCases() {
  std::vector<ConformanceCase> out = Registry();
  std::sort(out.begin(), out.end(),
            [](const ConformanceCase& a, const ConformanceCase& b) { return a.name < b.name; });
  return out;
}

CaseResult RunCase(const ConformanceCase& c, vk::VulkanContext& ctx) {
  const size_t before = ctx.validation_messages().size();
  CaseResult r = c.run(ctx);
  const std::vector<std::string> msgs = ctx.validation_messages();
  if (msgs.size() > before) {
    r.verdict = Verdict::kFail;
    r.detail += (r.detail.empty() ? "" : "; ") + std::to_string(msgs.size() - before) +
                " validation message(s), first: " + msgs[before];
  }
  if (r.verdict == Verdict::kPass && std::isnan(r.measured)) {
    r.verdict = Verdict::kFail;
    r.detail = "measured NaN; " + r.detail;
  }
  if (r.verdict == Verdict::kPass && !(r.measured <= c.tolerance)) {
    r.verdict = Verdict::kFail;
    r.detail = "measured " + std::to_string(r.measured) + " exceeds tolerance; " + r.detail;
  }
  return r;
}

}  // namespace dashi::conformance
