// `dashi`: the command-line front end. Each subcommand lives in its own file under tools/ and
// reports errors as "dashi <cmd>: <message>" with a non-zero exit; `dashi <cmd> --help` explains
// every flag.
#include <cstdio>
#include <cstdlib>

#include <unistd.h>

#include <CLI/CLI.hpp>

#include "tools/devices_command.h"
#include "tools/run_command.h"

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
      "dashi: a deterministic fp64 reference for structural-dynamics pipelines and the Vulkan "
      "accelerator that must match it.\nRun `dashi <command> --help` for each command's flags."};
  app.require_subcommand(1);
  app.set_help_all_flag("--help-all", "Print help for every command");

  dashi::tools::RunOptions run_options;
  CLI::App* run = dashi::tools::AddRunCommand(app, run_options);
  CLI::App* devices = dashi::tools::AddDevicesCommand(app);

  CLI11_PARSE(app, argc, argv);

  if (run->parsed()) return dashi::tools::RunRunCommand(run_options);
  if (devices->parsed()) return dashi::tools::RunDevicesCommand();
  return 2;
}
