// `dashi`: the command-line front end. Each subcommand lives in its own file under tools/ and
// reports errors as "dashi <cmd>: <STATUS>: <message>". Exit codes: 0 success (and --help),
// 1 the command ran and failed (the message names the input and the problem), 2 the command line
// is wrong (unknown flag, missing value, a number that is not decimal or out of range; CLI11's
// message names the flag). `dashi <cmd> --help` explains every flag.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <new>

#include <CLI/CLI.hpp>
#include <unistd.h>

#include "tools/audit_command.h"
#include "tools/cli_numbers.h"
#include "tools/conform_command.h"
#include "tools/decode_command.h"
#include "tools/devices_command.h"
#include "tools/golden_command.h"
#include "tools/learn_command.h"
#include "tools/rollout_command.h"
#include "tools/run_command.h"
#include "tools/scales_command.h"
#include "tools/simulate_command.h"

int main(int argc, char** argv) {
  // Under `bazel run` the process starts in the runfiles tree; relative paths given by the user
  // mean their own working directory.
  if (const char* wd = std::getenv("BUILD_WORKING_DIRECTORY"); wd != nullptr) {
    if (::chdir(wd) != 0) {
      std::fprintf(stderr, "dashi: cannot change to BUILD_WORKING_DIRECTORY %s\n", wd);
      return 1;
    }
  }
  CLI::App app{
      "dashi: a deterministic fp64 reference for a structural-dynamics pipeline (LES data, "
      "proxy encoding, ridge learner, hash-chained rollout, ternary-mask decoder) and the Vulkan "
      "accelerator that must match it.\nRun `dashi <command> --help` for each command's flags."};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Print help for every command");

  std::function<int()> run;
  dashi::tools::AddRunCommand(app, run);
  dashi::tools::AddSimulateCommand(app, run);
  dashi::tools::AddScalesCommand(app, run);
  dashi::tools::AddLearnCommand(app, run);
  dashi::tools::AddRolloutCommand(app, run);
  dashi::tools::AddDecodeCommand(app, run);
  dashi::tools::AddGoldenCommand(app, run);
  dashi::tools::AddConformCommand(app, run);
  dashi::tools::AddAuditCommand(app, run);
  dashi::tools::AddDevicesCommand(app, run);

  dashi::tools::RequireDecimalIntegers(app);
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;  // prints help, or the flag and the problem
  }
  if (!run) return 2;
  // A backstop, not the error path: every reader returns Status (json_input, InputFile, npy);
  // should anything still throw, the user gets a message and exit code 1, not an abort.
  try {
    return run();
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "dashi: RESOURCE_EXHAUSTED: out of memory\n");
  } catch (const std::exception& e) {
    std::fprintf(stderr, "dashi: INTERNAL: uncaught exception: %s\n", e.what());
  }
  return 1;
}
