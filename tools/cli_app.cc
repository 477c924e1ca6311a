#include "tools/cli_app.h"

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
    "accelerator that must match it.\nRun `dashi <command> --help` for each command's flags.";

void BuildDashiApp(CLI::App& app, std::function<int()>& run) {
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Print help for every command");
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
