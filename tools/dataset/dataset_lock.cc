#include "tools/dataset/dataset_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

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
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOTDIR) return FailedPreconditionError(dir + ": exists and is not a directory");
    return UnavailableError(dir + ": cannot open: " + std::strerror(err));
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) return DatasetDirLock(fd);
  const int err = errno;
  if (err == EWOULDBLOCK) {
    ::close(fd);
    return FailedPreconditionError(
        dir + ": another `dashi dataset generate` is writing this directory now (it holds the "
              "directory's lock); wait for it to finish, or give each shard its own --out");
  }
  if (!quiet) {
    std::fprintf(stderr,
                 "dataset: %s: cannot lock the directory (%s); a second run writing it at the same "
                 "time would not be detected\n",
                 dir.c_str(), std::strerror(err));
  }
  ::close(fd);
  return DatasetDirLock(-1);
}

DatasetDirLock::DatasetDirLock(DatasetDirLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)) {}

DatasetDirLock& DatasetDirLock::operator=(DatasetDirLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

DatasetDirLock::~DatasetDirLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor releases the flock
}

}  // namespace dashi::tools
