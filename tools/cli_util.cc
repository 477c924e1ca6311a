#include "tools/cli_util.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <utility>
#include <vector>

#include "core_ref/fileio/atomic_file.h"
#include "json_input/json_input.h"
#include "tools/human_bytes.h"

namespace dashi::tools {

int Fail(std::string_view command, const Status& status) {
  std::fprintf(stderr, "dashi %.*s: %s\n", static_cast<int>(command.size()), command.data(),
               status.ToString().c_str());
  return 1;
}

int FailCommandLine(std::string_view command, const Status& status) {
  Fail(command, status);
  return 2;
}

int64_t MachineMemoryBytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<int64_t>(pages) * static_cast<int64_t>(page);
}

Status CheckMemoryEstimate(int64_t estimated_bytes, const std::string& what,
                           int64_t max_memory_bytes, const std::string& hint) {
  const bool flag = max_memory_bytes > 0;
  const int64_t limit = flag ? max_memory_bytes : MachineMemoryBytes();
  if (limit > 0 && estimated_bytes > limit) {
    return ResourceExhaustedError(what + " needs an estimated " + HumanBytes(estimated_bytes) +
                                  ", more than " + (flag ? "--max-memory " : "this machine's ") +
                                  HumanBytes(limit) + (hint.empty() ? "" : " (" + hint + ")"));
  }
  return OkStatus();
}

StatusOr<int64_t> ParseByteSize(const std::string& text, const std::string& flag) {
  if (text.empty()) return 0;
  size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
  const std::string unit = text.substr(digits);
  int shift = -1;
  for (const auto& [names, s] : {std::pair{std::vector<std::string>{"", "B"}, 0},
                                 std::pair{std::vector<std::string>{"K", "KiB"}, 10},
                                 std::pair{std::vector<std::string>{"M", "MiB"}, 20},
                                 std::pair{std::vector<std::string>{"G", "GiB"}, 30},
                                 std::pair{std::vector<std::string>{"T", "TiB"}, 40}}) {
    for (const std::string& n : names) {
      if (unit == n) shift = s;
    }
  }
  if (digits == 0 || shift < 0) {
    return InvalidArgumentError(flag + " '" + text +
                                "': expected decimal digits and an optional unit B, K, M, G, T "
                                "(or KiB, MiB, GiB, TiB), e.g. 8G");
  }
  int64_t value = 0;
  for (size_t i = 0; i < digits; ++i) {
    if (value > (INT64_MAX - 9) / 10) return InvalidArgumentError(flag + " '" + text + "': too large");
    value = value * 10 + (text[i] - '0');
  }
  if (value > (INT64_MAX >> shift)) return InvalidArgumentError(flag + " '" + text + "': too large");
  if (value == 0) {
    return InvalidArgumentError(flag + " '" + text +
                                "': a limit of 0 bytes; give a positive size, or leave the flag "
                                "out for the default");
  }
  return value << shift;
}

CLI::Option* AddByteSizeOption(CLI::App& cmd, const std::string& name, std::string& value,
                               const std::string& description) {
  return cmd.add_option(name, value, description)
      ->type_name("SIZE")
      ->check(CLI::Validator(
          [](std::string& text) {
            StatusOr<int64_t> v = ParseByteSize(text, "");
            return v.ok() ? std::string() : std::string(v.status().message()).substr(1);
          },
          std::string{}, "byte size"));
}

void AddMaxMemoryOption(CLI::App& cmd, std::string& value) {
  AddByteSizeOption(cmd, "--max-memory", value,
                    "Refuse to start when the estimated memory exceeds SIZE (e.g. 4G, 512M, bytes "
                    "without a unit; 0 is refused); default: the machine's physical memory");
}

Status EnsureDir(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return InvalidArgumentError(dir + ": cannot create directory: " + ec.message());
  if (!std::filesystem::is_directory(dir)) {
    return InvalidArgumentError(dir + ": exists and is not a directory");
  }
  return OkStatus();
}

namespace {

StatusOr<OutputSet> Announced(StatusOr<OutputSet> set, const std::string& command) {
  if (set.ok()) {
    for (const std::string& name : set->removed_stale()) {
      std::fprintf(stderr, "dashi %s: removed %s, the unfinished output of a killed earlier run\n",
                   command.c_str(), name.c_str());
    }
  }
  return set;
}

}  // namespace

StatusOr<OutputSet> BeginOutputDirectory(const std::string& dir, const std::string& command) {
  return Announced(OutputSet::ForDirectory(dir, command), command);
}

StatusOr<OutputSet> BeginOutputFiles(const std::vector<std::string>& paths,
                                     const std::string& command) {
  return Announced(OutputSet::ForFiles(paths), command);
}

Status WriteJson(const std::string& path, const nlohmann::json& value) {
  // Invalid UTF-8 (a byte string from outside that slipped past the flag check) becomes U+FFFD
  // instead of an exception: a JSON output is always written.
  return WriteFileAtomically(
      path, value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

StatusOr<nlohmann::json> ReadJson(const std::string& path) { return ReadJsonInput(path); }

StatusOr<NpyArray> ReadF64Array(const std::string& path, int rank) {
  return ReadF64Array(path, rank, rank);
}

StatusOr<NpyArray> ReadF64Array(const std::string& path, int min_rank, int max_rank) {
  DASHI_ASSIGN_OR_RETURN(NpyArray a, ReadNpy(path));
  if (a.dtype != NpyDtype::kF8) {
    return InvalidArgumentError(path + ": dtype " + std::string(NpyDescr(a.dtype)) +
                                " is not <f8 (float64)");
  }
  const int rank = static_cast<int>(a.shape.size());
  if (rank < min_rank || rank > max_rank) {
    std::string expected = std::to_string(min_rank);
    for (int r = min_rank + 1; r <= max_rank; ++r) {
      expected += (r == max_rank ? " or " : ", ") + std::to_string(r);
    }
    return InvalidArgumentError(path + ": shape " + NpyShapeString(a.shape) + " has rank " +
                                std::to_string(rank) + ", expected rank " + expected);
  }
  DASHI_ASSIGN_OR_RETURN(std::vector<double> v, a.As<double>());
  for (size_t k = 0; k < v.size(); ++k) {
    if (!std::isfinite(v[k])) {
      return InvalidArgumentError(path + ": value at flat index " + std::to_string(k) +
                                  " is not finite (" + std::to_string(v[k]) + ")");
    }
  }
  return a;
}

std::string ReplaceNpySuffix(const std::string& path, std::string_view suffix) {
  const std::string ext = ".npy";
  if (path.size() >= ext.size() && path.compare(path.size() - ext.size(), ext.size(), ext) == 0) {
    return path.substr(0, path.size() - ext.size()) + std::string(suffix);
  }
  return path + std::string(suffix);
}

CLI::Validator NpyOutputPath() {
  return CLI::Validator(
      [](std::string& path) -> std::string {
        if (path.empty()) return {};  // the PATH check of RequireDecimalIntegers names it
        const std::string name = path.substr(path.find_last_of('/') + 1);
        const std::string ext = ".npy";
        if (name.size() > ext.size() &&
            name.compare(name.size() - ext.size(), ext.size(), ext) == 0) {
          return {};
        }
        return path +
               " is not NAME.npy: the output is an .npy array (and its companions are named "
               "after it), so a name without .npy could replace a file that is not dashi's";
      },
      "NAME.npy", "npy output");
}

void ProgressLine::Update(std::string_view stage, int64_t done, int64_t total) {
  if (!enabled_) return;
  const auto now = std::chrono::steady_clock::now();
  const bool finished = done >= total;
  if (stage == last_stage_ && !finished && now - last_print_ < std::chrono::milliseconds(1000)) {
    return;
  }
  last_stage_ = std::string(stage);
  last_print_ = now;
  const double pct = total > 0 ? 100.0 * static_cast<double>(done) / static_cast<double>(total)
                               : 100.0;
  const int bars = static_cast<int>(pct / 5.0);
  std::string bar(static_cast<size_t>(bars), '#');
  bar.resize(20, '.');
  const double secs = std::chrono::duration<double>(now - start_).count();
  std::fprintf(stderr, "  %-15.*s [%s] %3.0f%%  %lld/%lld  (%.1f s)\n",
               static_cast<int>(stage.size()), stage.data(), bar.c_str(), pct,
               static_cast<long long>(done), static_cast<long long>(total), secs);
}

}  // namespace dashi::tools
