// The conformance registry: every accelerator op registers named cases, each comparing the device
// against core_ref by one stated measure and tolerance (docs/CONFORMANCE.md). The same list drives
// `bazel test //conformance/...` (one GoogleTest per case) and `dashi conform` (a report). Modelled
// on the Khronos CTS: fixed verdicts, NOT_SUPPORTED is never a pass, NaN never passes, and any
// validation-layer message during a case turns it into a FAIL.
//
//   DASHI_CONFORMANCE_CASE(rollout_hash_parity_d512, "rollout", "hash chain bit-exact", 0.0,
//                          [](vk::VulkanContext& ctx) -> CaseResult { ... });
#ifndef DASHI_CONFORMANCE_FRAMEWORK_CONFORMANCE_CASE_H_
#define DASHI_CONFORMANCE_FRAMEWORK_CONFORMANCE_CASE_H_

#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "accel_vulkan/context.h"
#include "core_ref/status/status.h"

namespace dashi::conformance {

enum class Verdict { kPass, kFail, kNotSupported };
const char* VerdictName(Verdict v);  // "PASS", "FAIL", "NOT_SUPPORTED"

struct CaseResult {
  Verdict verdict = Verdict::kFail;
  double measured = NAN;  // the measure's value (0 for bit-exact matches, mismatches otherwise)
  std::string detail;     // what was compared, and where it first differed
};

struct ConformanceCase {
  std::string name;     // unique, e.g. "rollout.hash_parity.d512"
  std::string op;       // the op under test, e.g. "rollout", "annihilate", "decode.fp64"
  std::string measure;  // e.g. "max |gpu - ref| / max |ref|", "mismatching cells"
  double tolerance = 0;  // pass iff measured <= tolerance (and measured is not NaN)
  std::function<CaseResult(vk::VulkanContext&)> run;
};

// Helpers for a case body.
CaseResult Pass(double measured, std::string detail = "");
CaseResult Fail(double measured, std::string detail);
CaseResult NotSupported(std::string why);
// A Status error inside a case body is a FAIL carrying the error text (a device error such as
// VK_ERROR_DEVICE_LOST is reported, never a crash).
CaseResult FailFromStatus(const Status& status);
// PASS iff measured <= tolerance and not NaN.
CaseResult Judge(double measured, double tolerance, std::string detail = "");

// Registers a case; returns true so it can initialise a static (see the macro below).
bool RegisterCase(ConformanceCase c);
// All cases, sorted by name.
std::vector<ConformanceCase> AllCases();

// Runs one case on `ctx`, turning new validation messages during it into a FAIL and a NaN
// measurement into a FAIL.
CaseResult RunCase(const ConformanceCase& c, vk::VulkanContext& ctx);

}  // namespace dashi::conformance

// Inside a case body: a Status error becomes a FAIL carrying its text.
//   CASE_ASSIGN(DeviceCarrier s, ops->Upload(c));   CASE_CHECK(buffer.Upload(...));
#define CASE_ASSIGN_IMPL_(lhs, expr, tmp)                                   \
  auto tmp = (expr);                                                        \
  if (!tmp.ok()) return ::dashi::conformance::FailFromStatus(tmp.status()); \
  lhs = std::move(tmp).value()
#define CASE_ASSIGN(lhs, expr) \
  CASE_ASSIGN_IMPL_(lhs, expr, DASHI_CONFORMANCE_CONCAT_(case_tmp_, __LINE__))
#define CASE_CHECK(expr)                                                                 \
  do {                                                                                   \
    const ::dashi::Status case_status_ = (expr);                                         \
    if (!case_status_.ok()) return ::dashi::conformance::FailFromStatus(case_status_);   \
  } while (0)

#define DASHI_CONFORMANCE_CONCAT_INNER_(a, b) a##b
#define DASHI_CONFORMANCE_CONCAT_(a, b) DASHI_CONFORMANCE_CONCAT_INNER_(a, b)
// Registers a case at static-initialisation time (the library needs alwayslink = True).
#define DASHI_CONFORMANCE_CASE(name, op, measure, tolerance, body)                  \
  static const bool DASHI_CONFORMANCE_CONCAT_(dashi_conformance_case_, __LINE__) = \
      ::dashi::conformance::RegisterCase({name, op, measure, tolerance, body})

#endif  // DASHI_CONFORMANCE_FRAMEWORK_CONFORMANCE_CASE_H_
