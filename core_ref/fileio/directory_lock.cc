#include "core_ref/fileio/directory_lock.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

namespace dashi {

StatusOr<DirectoryLock> DirectoryLock::TryAcquire(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    const int err = errno;
    if (err == ENOTDIR) return FailedPreconditionError(dir + ": exists and is not a directory");
    return UnavailableError(dir + ": cannot open: " + std::strerror(err));
  }
  int err = 0;
  while (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    err = errno;
    if (err != EINTR) break;
    err = 0;
  }
  if (err == 0) return DirectoryLock(fd, State::kLocked, 0);
  ::close(fd);
  if (err == EWOULDBLOCK) return DirectoryLock(-1, State::kBusy, 0);
  return DirectoryLock(-1, State::kUnsupported, err);
}

DirectoryLock::DirectoryLock(DirectoryLock&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)),
      state_(other.state_),
      unsupported_errno_(other.unsupported_errno_) {}

DirectoryLock& DirectoryLock::operator=(DirectoryLock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = std::exchange(other.fd_, -1);
    state_ = other.state_;
    unsupported_errno_ = other.unsupported_errno_;
  }
  return *this;
}

DirectoryLock::~DirectoryLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace dashi
