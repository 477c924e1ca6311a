// libFuzzer target for dashi's command line: the input, split at NUL bytes, is the argument vector
// after "dashi". It is built and parsed exactly as dashi_main does (every subcommand, the decimal
// and UTF-8 checks) but nothing is run. Any vector must parse to a command, help (0) or a usage
// error (2), never a crash or an exception. Run with -close_fd_mask=3: help and errors print.
#include <cstdint>
#include <string>
#include <vector>

#include "fuzz/fuzz_input.h"
#include "tools/cli_app.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;  // argument vectors, not files
  std::vector<std::string> args = {"dashi"};
  std::string current;
  for (size_t i = 0; i < size; ++i) {
    if (data[i] == 0) {
      args.push_back(current);
      current.clear();
    } else {
      current.push_back(static_cast<char>(data[i]));
    }
  }
  args.push_back(current);
  if (args.size() > 64) return 0;
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  CLI::App app{dashi::tools::kDashiDescription};
  std::function<int()> run;
  dashi::tools::BuildDashiApp(app, run);
  const int code =
      dashi::tools::ParseDashiCommandLine(app, static_cast<int>(argv.size()), argv.data(), run);
  if (code != -1 && code != 0 && code != 2) {
    dashi::fuzz::Broken("cli_args_fuzz", "exit code " + std::to_string(code));
  }
  if (code == -1 && !run) dashi::fuzz::Broken("cli_args_fuzz", "parsed without a command");
  return 0;
}
