#include "tools/cli_app.h"

#include "core_ref/version/version.h"
#include "tools/audit_command.h"
#include "tools/cli_numbers.h"
#include "tools/conform_command.h"
#include "tools/dataset_command.h"
#include "tools/decode_command.h"
#include "tools/devices_command.h"
#include "tools/golden_command.h"
#include "tools/learn_command.h"
#include "tools/rollout_command.h"
#include "tools/run_command.h"
#include "tools/scales_command.h"
#include "tools/simulate_command.h"
#include "tools/vulkan_flags.h"

namespace dashi::tools {

const char kDashiDescription[] =
    "dashi: a deterministic fp64 reference for a structural-dynamics pipeline (LES data, proxy "
    "encoding, ridge learner, hash-chained rollout, ternary-mask decoder) and the Vulkan "
    "accelerator that must match it.\nRun `dashi <command> --help` for each command's flags.\n"
    "Environment: DASHI_CERT_STORE (the certification store, as --cert-store), DASHI_VK_DEVICE "
    "(the Vulkan device, as --device), DASHI_CACHE_DIR (the VkFFT kernel cache; else "
    "$XDG_CACHE_HOME/dashi or ~/.cache/dashi; empty or off: no cache), DASHI_FENCE_SPIN_US (microseconds to spin on a "
    "fence before blocking, default 2000), DASHI_FFT_V8 (0 or 1: the reference FFT's 8-lane "
    "paths off or on; every choice gives the same bytes); "
    "XDG_DATA_HOME and HOME place the default store and cache.";

void BuildDashiApp(CLI::App& app, std::function<int()>& run) {
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Print help for every command");
  app.set_version_flag(
      "--version", [] { return std::string(kReferenceVersion) + "; " + BinaryBuildText(); },
      "Print the reference version, the accelerator build, the conformance suite and the shader "
      "build, and exit");
  AddRunCommand(app, run);
  AddSimulateCommand(app, run);
  AddDatasetCommand(app, run);
  AddScalesCommand(app, run);
  AddLearnCommand(app, run);
  AddRolloutCommand(app, run);
  AddDecodeCommand(app, run);
  AddGoldenCommand(app, run);
  AddConformCommand(app, run);
  AddAuditCommand(app, run);
  AddDevicesCommand(app, run);
  RequireDecimalIntegers(app);
}

int ParseDashiCommandLine(CLI::App& app, int argc, const char* const* argv,
                          const std::function<int()>& run) {
  try {
    app.parse(argc, argv);
    CheckCertStoreEnvironment(app);
    CheckVulkanOnlyFlags(app);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;  // prints help, or the flag and the problem
  }
  return run ? -1 : 2;
}

}  // namespace dashi::tools
