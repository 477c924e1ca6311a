// An exclusive flock(2) on a directory itself (no lock file: the directory's contents stay its
// owner's), held until the object is destroyed; the kernel drops it when the process dies, so a
// kill -9 leaves no stale lock. Used by `dataset generate` (one run per --out: refused when busy)
// and by file output sets (commits into one directory take turns: wait while busy).
//
//   DASHI_ASSIGN_OR_RETURN(DirectoryLock lock, DirectoryLock::TryAcquire(dir));
//   if (lock.state() == DirectoryLock::State::kBusy) ...  // another process holds it
#ifndef DASHI_CORE_REF_FILEIO_DIRECTORY_LOCK_H_
#define DASHI_CORE_REF_FILEIO_DIRECTORY_LOCK_H_

#include <string>

#include "core_ref/status/status.h"

namespace dashi {

class DirectoryLock {
 public:
  enum class State {
    kLocked,       // this object holds the lock
    kBusy,         // another open descriptor holds it (nothing held here)
    kUnsupported,  // the file system offers no flock on a directory (nothing held here)
  };
  // One non-blocking attempt on the existing directory `dir`. FAILED_PRECONDITION when `dir` is
  // not a directory, UNAVAILABLE when it cannot be opened; `unsupported_errno` tells why a
  // kUnsupported lock was not taken.
  static StatusOr<DirectoryLock> TryAcquire(const std::string& dir);

  State state() const { return state_; }
  int unsupported_errno() const { return unsupported_errno_; }

  DirectoryLock(DirectoryLock&& other) noexcept;
  DirectoryLock& operator=(DirectoryLock&& other) noexcept;
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;
  ~DirectoryLock();  // closing the descriptor releases the lock

 private:
  DirectoryLock(int fd, State state, int unsupported_errno)
      : fd_(fd), state_(state), unsupported_errno_(unsupported_errno) {}
  int fd_ = -1;  // the directory's descriptor while locked, else -1
  State state_ = State::kUnsupported;
  int unsupported_errno_ = 0;
};

}  // namespace dashi

#endif  // DASHI_CORE_REF_FILEIO_DIRECTORY_LOCK_H_
