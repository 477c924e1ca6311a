// Shared pieces of the `dashi` subcommands: error reporting, progress lines, output directories,
// JSON written atomically, and .npy inputs checked for shape and finiteness. (The provenance every
// output carries comes from backend/provenance.h.)
#ifndef DASHI_TOOLS_CLI_UTIL_H_
#define DASHI_TOOLS_CLI_UTIL_H_

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "core_ref/fileio/output_set.h"
#include "core_ref/npy/npy.h"
#include "core_ref/status/status.h"

namespace dashi::tools {

// Prints "dashi <command>: <STATUS>" to stderr and returns the exit code 1.
int Fail(std::string_view command, const Status& status);
// The same message, and the exit code 2: the command line is wrong in a way only the filesystem
// shows (an output flag naming an input, a dataset or the current directory), found before any
// work.
int FailCommandLine(std::string_view command, const Status& status);

// The machine's physical memory in bytes (sysconf), or 0 when unknown.
int64_t MachineMemoryBytes();

// RESOURCE_EXHAUSTED naming the estimate and the limit, each in the unit that fits it
// (HumanBytes), when `estimated_bytes` exceeds it, before a command starts work that would die of
// bad_alloc later (`what`: "the pipeline"; Fail names the command), ending with
// `hint` in parentheses (the flags that scale the estimate: "reduce --n or --threads"; none when
// empty). The limit is `max_memory_bytes` (from --max-memory) when positive, else the machine's
// memory.
Status CheckMemoryEstimate(int64_t estimated_bytes, const std::string& what,
                           int64_t max_memory_bytes = 0, const std::string& hint = "");

// A byte limit from a flag: decimal digits with an optional binary unit (B, K/KiB, M/MiB, G/GiB,
// T/TiB): "512M", "8GiB", "1000000". Empty text (the flag not given) is 0, no limit; a limit of
// zero bytes ("0", "0G") is refused, as it cannot mean "no limit". Errors name `flag`.
StatusOr<int64_t> ParseByteSize(const std::string& text, const std::string& flag);

// Registers a byte-limit option (`name`: "--max-disk") stored as text for ParseByteSize, whose
// errors are command-line errors (exit code 2) naming the flag.
CLI::Option* AddByteSizeOption(CLI::App& cmd, const std::string& name, std::string& value,
                               const std::string& description);

// --max-memory SIZE, explained in --help, stored as text for ParseByteSize.
void AddMaxMemoryOption(CLI::App& cmd, std::string& value);

// Creates `dir` (and parents) if missing.
Status EnsureDir(const std::string& dir);

// A command's output directory as one set (core_ref/fileio/output_set.h): written into a hidden
// staging sibling, in place only at Commit(). Prints a line for each stale staging directory of a
// killed earlier run that it removed. `command` is "run", "learn", ...
StatusOr<OutputSet> BeginOutputDirectory(const std::string& dir, const std::string& command);
// The same for a set of files beside each other; the last one is the completion record.
StatusOr<OutputSet> BeginOutputFiles(const std::vector<std::string>& paths,
                                     const std::string& command);

// Pretty-printed JSON (2-space indent, trailing newline), written atomically.
Status WriteJson(const std::string& path, const nlohmann::json& value);
StatusOr<nlohmann::json> ReadJson(const std::string& path);

// Reads an .npy of dtype <f8 with the given rank, every value finite; messages name the file.
StatusOr<NpyArray> ReadF64Array(const std::string& path, int rank);
// The same for a rank in [min_rank, max_rank] ("expected rank 1 or 2" when it is not).
StatusOr<NpyArray> ReadF64Array(const std::string& path, int min_rank, int max_rank);

// `path` with its ".npy" suffix replaced by `suffix` (or `suffix` appended).
std::string ReplaceNpySuffix(const std::string& path, std::string_view suffix);

// A check for an option naming an .npy output (rollout's and simulate's --out; its siblings are
// named from it by ReplaceNpySuffix): the file name must be NAME.npy with NAME not empty, so
// `--out notes.txt` can never replace a file that is not an array. A command-line error (exit 2).
CLI::Validator NpyOutputPath();

// A progress line on stderr, at most every `interval` and always at the end:
//   "simulate-train  [#######.............]  35%  700/2000  (12.3 s)"
class ProgressLine {
 public:
  explicit ProgressLine(bool enabled) : enabled_(enabled) {}
  void Update(std::string_view stage, int64_t done, int64_t total);

 private:
  bool enabled_;
  std::string last_stage_;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_print_{};
};

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_CLI_UTIL_H_
