#include "tools/conform_command.h"

#include <cstdio>
#include <cstdlib>
#include <memory>

#include "accel_vulkan/context.h"
#include "conformance/report/conformance_report.h"
#include "shaders/registry.h"
#include "tools/cli_util.h"

namespace dashi::tools {
namespace {

struct ConformOptions {
  std::string device;
  std::string out = "conformance_report.json";
  std::string store;
  std::string filter;
  std::string golden_dir = "golden";
  bool no_validation = false;
  bool no_store = false;
};

int Run(const ConformOptions& o) {
  // Cases that compare against golden data read $DASHI_GOLDEN_DIR.
  ::setenv("DASHI_GOLDEN_DIR", o.golden_dir.c_str(), 1);
  vk::ContextOptions opts;
  opts.device_selector = o.device;
  opts.enable_validation = !o.no_validation;
  opts.require_float64 = false;  // a device without fp64 gets NOT_SUPPORTED verdicts, not an abort
  StatusOr<std::unique_ptr<vk::VulkanContext>> ctx = vk::VulkanContext::Create(opts);
  if (!ctx.ok()) {
    Status st = ctx.status();
    if (!o.no_validation && st.code() == StatusCode::kFailedPrecondition) {
      st = FailedPreconditionError(st.message() +
                                   "; install it, or pass --no-validation (recorded in the "
                                   "report; such a report never certifies a device)");
    }
    return Fail("conform", st);
  }
  const vk::DeviceInfo& d = (*ctx)->info();
  std::printf("dashi conform: %s [%s], driver %s (%s) version %u, Vulkan %s, uuid %s\n",
              d.name.c_str(), d.device_type.c_str(), d.driver_name.c_str(), d.driver_info.c_str(),
              d.driver_version, d.api_version.c_str(), d.uuid.c_str());
  std::printf("validation layer: %s; shader build %s\n\n", o.no_validation ? "OFF" : "on",
              spirv::ShaderBuildHash().c_str());
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
  report.shader_build = spirv::ShaderBuildHash();
  if (report.cases.empty()) {
    return Fail("conform", InvalidArgumentError(
                               o.filter.empty() ? std::string("no conformance cases are linked in")
                                                : "no conformance case matches --filter '" +
                                                      o.filter + "'"));
  }
  Status st = WriteJson(o.out, conformance::ReportJson(report));
  if (!st.ok()) return Fail("conform", st);
  const bool certifiable = report.conformant() && !o.no_validation && o.filter.empty();
  std::printf("\n%d passed, %d failed, %d not supported: %s\nreport: %s\n", report.passed,
              report.failed, report.not_supported, report.conformant() ? "CONFORMANT" : "NOT CONFORMANT",
              o.out.c_str());
  if (!o.no_store && o.filter.empty() && !o.no_validation) {
    const std::string store = o.store.empty() ? conformance::DefaultCertStore() : o.store;
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
  cmd->add_option("--device", o->device,
                  "Device: index, UUID or name substring (default $DASHI_VK_DEVICE, else 0)");
  cmd->add_option("--out", o->out, "Report path (JSON)")->capture_default_str();
  cmd->add_option("--store", o->store,
                  "Certification store directory (default $DASHI_CERT_STORE, else "
                  "~/.local/share/dashi/certifications)");
  cmd->add_option("--filter", o->filter,
                  "Run only cases whose name contains this (never certifies)");
  cmd->add_option("--golden-dir", o->golden_dir, "Golden data directory")->capture_default_str();
  cmd->add_flag("--no-validation", o->no_validation,
                "Run without the Khronos validation layer (the report says so; never certifies)");
  cmd->add_flag("--no-store", o->no_store, "Do not record the result in the store");
  cmd->callback([o, &run] { run = [o] { return Run(*o); }; });
  return cmd;
}

}  // namespace dashi::tools
