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

#include <nlohmann/json.hpp>

#include "core_ref/npy/npy.h"
#include "core_ref/status/status.h"

namespace dashi::tools {

// Prints "dashi <command>: <STATUS>" to stderr and returns the exit code 1.
int Fail(std::string_view command, const Status& status);

// The machine's physical memory in bytes (sysconf), or 0 when unknown.
int64_t MachineMemoryBytes();

// RESOURCE_EXHAUSTED naming the estimate and the machine's memory when `estimated_bytes` exceeds
// it, before a command starts work that would die of bad_alloc later (`what`: "dashi run").
Status CheckMemoryEstimate(int64_t estimated_bytes, const std::string& what);

// Creates `dir` (and parents) if missing.
Status EnsureDir(const std::string& dir);

// A command's output directory: created if missing; unless Keep() is called, the destructor
// removes it again when this object created it and it is still empty — a command that fails
// leaves no empty directory behind (a directory that existed before is never touched).
class OutputDir {
 public:
  static StatusOr<OutputDir> Create(const std::string& dir);
  OutputDir(OutputDir&& other) noexcept
      : dir_(std::move(other.dir_)), created_(other.created_), keep_(other.keep_) {
    other.created_ = false;
  }
  OutputDir& operator=(OutputDir&&) = delete;
  OutputDir(const OutputDir&) = delete;
  ~OutputDir();
  void Keep() { keep_ = true; }
  const std::string& path() const { return dir_; }

 private:
  OutputDir(std::string dir, bool created) : dir_(std::move(dir)), created_(created) {}
  std::string dir_;
  bool created_ = false;
  bool keep_ = false;
};

// Pretty-printed JSON (2-space indent, trailing newline), written atomically.
Status WriteJson(const std::string& path, const nlohmann::json& value);
StatusOr<nlohmann::json> ReadJson(const std::string& path);

// Reads an .npy of dtype <f8 with the given rank, every value finite; messages name the file.
StatusOr<NpyArray> ReadF64Array(const std::string& path, int rank);

// `path` with its ".npy" suffix replaced by `suffix` (or `suffix` appended).
std::string ReplaceNpySuffix(const std::string& path, std::string_view suffix);

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
