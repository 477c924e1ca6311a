#include "tools/dataset/dataset_lock.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <utility>

namespace dashi::tools {

StatusOr<DatasetDirLock> DatasetDirLock::Acquire(const std::string& dir, bool quiet) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::exists(dir, ec)) {
    fs::create_directories(dir, ec);
    if (ec) return UnavailableError(dir + ": cannot create: " + ec.message());
  }
  DASHI_ASSIGN_OR_RETURN(DirectoryLock lock, DirectoryLock::TryAcquire(dir));
  if (lock.state() == DirectoryLock::State::kBusy) {
    return FailedPreconditionError(
        dir + ": another `dashi dataset generate` is writing this directory now (it holds the "
              "directory's lock); wait for it to finish, or give each shard its own --out");
  }
  if (lock.state() == DirectoryLock::State::kUnsupported && !quiet) {
    std::fprintf(stderr,
                 "dataset: %s: cannot lock the directory (%s); a second run writing it at the same "
                 "time would not be detected\n",
                 dir.c_str(), std::strerror(lock.unsupported_errno()));
  }
  return DatasetDirLock(std::move(lock));
}

}  // namespace dashi::tools
