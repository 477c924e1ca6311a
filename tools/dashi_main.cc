// `dashi`: the command-line front end. Each subcommand lives in its own file under tools/ and
// reports errors as "dashi <cmd>: <STATUS>: <message>". Exit codes: 0 success (and --help),
// 1 the command ran and failed (the message names the input and the problem), 2 the command line
// is wrong (unknown flag, missing value, a number that is not decimal or out of range; CLI11's
// message names the flag), 3 a replay that does not reproduce its record (audit, rollout
// --expect-chain). `dashi <cmd> --help` explains every flag.
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <functional>
#include <new>

#include <CLI/CLI.hpp>
#include <unistd.h>

#include "core_ref/fileio/temporaries.h"
#include "tools/cli_app.h"

int main(int argc, char** argv) {
  // Under `bazel run` the process starts in the runfiles tree; relative paths given by the user
  // mean their own working directory.
  if (const char* wd = std::getenv("BUILD_WORKING_DIRECTORY"); wd != nullptr) {
    if (::chdir(wd) != 0) {
      std::fprintf(stderr, "dashi: cannot change to BUILD_WORKING_DIRECTORY %s\n", wd);
      return 1;
    }
  }
  // An interrupted command removes its temporaries and staging directories (core_ref/fileio).
  dashi::InstallTemporaryCleanupOnSignals();
  CLI::App app{dashi::tools::kDashiDescription};
  std::function<int()> run;
  dashi::tools::BuildDashiApp(app, run);
  if (int code = dashi::tools::ParseDashiCommandLine(app, argc, argv, run); code >= 0) {
    return code;
  }
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
