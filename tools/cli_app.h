// The whole `dashi` command line, built and parsed apart from running it: dashi_main runs the
// command chosen; the CLI fuzz target parses hostile argument vectors without running anything.
//
//   CLI::App app{...};  std::function<int()> run;
//   BuildDashiApp(app, run);
//   if (int code = ParseDashiCommandLine(app, argc, argv); code >= 0) return code;
//   return run();
#ifndef DASHI_TOOLS_CLI_APP_H_
#define DASHI_TOOLS_CLI_APP_H_

#include <functional>

#include <CLI/CLI.hpp>

namespace dashi::tools {

// The description shown by `dashi --help`.
extern const char kDashiDescription[];

// Adds every subcommand and the decimal/UTF-8 checks of every flag; `run` receives the chosen
// command's work when parsing succeeds.
void BuildDashiApp(CLI::App& app, std::function<int()>& run);

// -1 when a command is to run (`run` is set), else the exit code: 0 after --help, 2 for a wrong
// command line (CLI11 prints the flag and the problem).
int ParseDashiCommandLine(CLI::App& app, int argc, const char* const* argv,
                          const std::function<int()>& run);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_CLI_APP_H_
