#include "tools/cli_util.h"

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>

#include "core_ref/fileio/atomic_file.h"
#include "json_input/json_input.h"

namespace dashi::tools {

int Fail(std::string_view command, const Status& status) {
  std::fprintf(stderr, "dashi %.*s: %s\n", static_cast<int>(command.size()), command.data(),
               status.ToString().c_str());
  return 1;
}

int64_t MachineMemoryBytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return 0;
  return static_cast<int64_t>(pages) * static_cast<int64_t>(page);
}

Status CheckMemoryEstimate(int64_t estimated_bytes, const std::string& what) {
  const int64_t machine = MachineMemoryBytes();
  if (machine > 0 && estimated_bytes > machine) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "needs an estimated %.1f GiB, more than this machine's %.1f GiB",
                  static_cast<double>(estimated_bytes) / (1 << 30),
                  static_cast<double>(machine) / (1 << 30));
    return ResourceExhaustedError(what + ": " + buf + " (reduce N or the number of steps)");
  }
  return OkStatus();
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

StatusOr<OutputDir> OutputDir::Create(const std::string& dir) {
  std::error_code ec;
  const bool existed = std::filesystem::exists(std::filesystem::symlink_status(dir, ec));
  DASHI_RETURN_IF_ERROR(EnsureDir(dir));
  return OutputDir(dir, !existed);
}

OutputDir::~OutputDir() {
  if (!created_ || keep_) return;
  std::error_code ec;
  if (std::filesystem::is_empty(dir_, ec) && !ec) std::filesystem::remove(dir_, ec);
}

Status WriteJson(const std::string& path, const nlohmann::json& value) {
  // Invalid UTF-8 (a byte string from outside that slipped past the flag check) becomes U+FFFD
  // instead of an exception: a JSON output is always written.
  return WriteFileAtomically(
      path, value.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

StatusOr<nlohmann::json> ReadJson(const std::string& path) { return ReadJsonInput(path); }

StatusOr<NpyArray> ReadF64Array(const std::string& path, int rank) {
  DASHI_ASSIGN_OR_RETURN(NpyArray a, ReadNpy(path));
  if (a.dtype != NpyDtype::kF8) {
    return InvalidArgumentError(path + ": dtype " + std::string(NpyDescr(a.dtype)) +
                                " is not <f8 (float64)");
  }
  if (static_cast<int>(a.shape.size()) != rank) {
    return InvalidArgumentError(path + ": shape " + NpyShapeString(a.shape) + " has rank " +
                                std::to_string(a.shape.size()) + ", expected rank " +
                                std::to_string(rank));
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
