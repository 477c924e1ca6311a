#include "tools/conform_command.h"

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "backend/device_catalog.h"
#include "conformance/report/conformance_report.h"
#include "tools/cli_util.h"
#include "tools/golden/golden_set.h"
#include "tools/output_guard.h"
#include "tools/vulkan_flags.h"

namespace dashi::tools {
namespace {

struct ConformOptions {
  backend::BackendOptions device{.name = "vulkan"};  // device, cert_store, validation
  std::string out = "conformance_report.json";
  std::string filter;
  std::string golden_dir = "golden";
  bool no_store = false;
};

// Empty when `filter` selects a case, else why not: an empty filter ran the whole suite, one that
// matches nothing opened the device before saying so.
std::string FilterProblem(const std::string& filter) {
  if (filter.empty()) {
    return "an empty filter would run the whole suite; leave --filter out for that";
  }
  for (const std::string& name : conformance::CurrentSuiteCaseNames()) {
    if (name.find(filter) != std::string::npos) return {};
  }
  return "'" + filter + "' matches no conformance case name (names look like carrier.pda..., "
         "see a report's \"cases\")";
}

int Run(const ConformOptions& o) {
  // The report never lands in the golden data the suite reads nor in the store it records to.
  if (Status st = CheckReportOutput({"--out", o.out}, conformance::kConformanceReportFormat,
                                    {{"--golden-dir", o.golden_dir}, CertStorePlace(o.device.vulkan)});
      !st.ok()) {
    return FailCommandLine("conform", st);
  }
  // A missing or foreign golden directory made every golden case a device FAIL.
  if (Status st = CheckGoldenDir(o.golden_dir, "--golden-dir"); !st.ok()) {
    return Fail("conform", st);
  }
  const bool records = !o.no_store && o.filter.empty() && o.device.vulkan.validation;
  if (records) {
    if (Status st = CheckCertStoreWritable(CertStorePlace(o.device.vulkan)); !st.ok()) {
      return FailCommandLine("conform", st);
    }
  }
  // Cases that compare against golden data read $DASHI_GOLDEN_DIR.
  ::setenv("DASHI_GOLDEN_DIR", o.golden_dir.c_str(), 1);
  // The report's place is checked (and its staging made) before the suite runs, not after it.
  StatusOr<OutputSet> out_set = BeginOutputFiles({o.out}, "conform");
  if (!out_set.ok()) return Fail("conform", out_set.status());
  const backend::VulkanOptions& v = o.device.vulkan;
  StatusOr<std::unique_ptr<vk::VulkanContext>> ctx =
      backend::OpenDeviceForConformance(v.device, v.validation);
  if (!ctx.ok()) return Fail("conform", ctx.status());
  const vk::DeviceInfo& d = (*ctx)->info();
  std::printf("dashi conform: %s [%s], driver %s (%s) version %u, Vulkan %s, uuid %s\n",
              d.name.c_str(), d.device_type.c_str(), d.driver_name.c_str(), d.driver_info.c_str(),
              d.driver_version, d.api_version.c_str(), d.uuid.c_str());
  const std::string shader_build = backend::ShaderBuild();
  const conformance::CertKey key = backend::CurrentCertKey();
  std::printf("validation layer: %s (synchronisation validation with it); accelerator build %s, "
              "suite %s (shader build %s)\n\n",
              v.validation ? "on" : "OFF", key.accelerator_build.c_str(), key.suite_id.c_str(),
              shader_build.c_str());
  std::printf("%-46s %-14s %-12s %-10s %s\n", "case", "verdict", "measured", "tolerance",
              "measure");
  conformance::SuiteReport report =
      conformance::RunSuite(**ctx, o.filter, [](const conformance::CaseRecord& c) {
        std::printf("%-46s %-14s %-12.4g %-10.3g %s\n", c.name.c_str(),
                    conformance::VerdictName(c.result.verdict), c.result.measured, c.tolerance,
                    c.measure.c_str());
        if (c.result.verdict != conformance::Verdict::kPass) {
          std::printf("    %s\n", c.result.detail.c_str());
        }
        std::fflush(stdout);
      });
  report.shader_build = shader_build;
  report.accelerator_build = key.accelerator_build;
  report.suite_id = key.suite_id;
  report.filter = o.filter;
  if (report.cases.empty()) {
    return Fail("conform", InvalidArgumentError(
                               o.filter.empty() ? std::string("no conformance cases are linked in")
                                                : "no conformance case matches --filter '" +
                                                      o.filter + "'"));
  }
  nlohmann::json report_json = conformance::ReportJson(report);
  report_json["provenance"] = backend::DeviceProvenance(d);
  Status st = WriteJson(out_set->Path(o.out), report_json);
  if (st.ok()) st = out_set->Commit();
  if (!st.ok()) return Fail("conform", st);
  const bool certifiable = report.conformant() && v.validation && o.filter.empty();
  std::printf("\n%d passed, %d failed, %d not supported: %s\nreport: %s\n", report.passed,
              report.failed, report.not_supported, report.conformant() ? "CONFORMANT" : "NOT CONFORMANT",
              o.out.c_str());
  if (records) {
    const std::string store = CertStorePlace(v).path;
    st = conformance::SaveCertification(store, report);
    if (!st.ok()) return Fail("conform", st);
    std::printf("certification store: %s (%s)\n", store.c_str(),
                certifiable ? "certified" : "recorded as failed");
  } else {
    std::printf("not recorded in the certification store (%s)\n",
                o.no_store ? "--no-store" : !o.filter.empty() ? "--filter given" : "validation off");
  }
  return report.conformant() ? 0 : 1;
}

}  // namespace

CLI::App* AddConformCommand(CLI::App& app, std::function<int()>& run) {
  auto o = std::make_shared<ConformOptions>();
  CLI::App* cmd = app.add_subcommand(
      "conform",
      "Run the conformance suite (every accelerator op against the fp64 reference, with the "
      "validation layer) on one Vulkan device; print a table, write a JSON report and record the "
      "result in the certification store, which `dashi run --backend vulkan` consults.");
  AddVulkanFlags(*cmd, o->device, {.device = true, .cert_store = true, .no_validation = true});
  cmd->add_option("--out", o->out, "Report path (JSON)")->type_name("PATH")->capture_default_str();
  cmd->add_option("--filter", o->filter,
                  "Run only cases whose name contains this (never certifies)")
      ->check(CLI::Validator([](std::string& filter) { return FilterProblem(filter); },
                             std::string{}, "filter"));
  cmd->add_option("--golden-dir", o->golden_dir,
                  "Golden data directory (`dashi golden generate` writes one); this is how to "
                  "point the suite at golden data: it overrides $DASHI_GOLDEN_DIR, which the "
                  "cases' messages name")
      ->type_name("PATH")
      ->capture_default_str();
  cmd->add_flag("--no-store", o->no_store, "Do not record the result in the store");
  cmd->callback([o, &run] { run = [o] { return Run(*o); }; });
  return cmd;
}

}  // namespace dashi::tools
