// One `dashi dataset generate` at a time per output directory: a DirectoryLock
// (core_ref/fileio: an exclusive, non-blocking flock(2) on the directory itself, no lock file),
// held until the object is destroyed — the kernel drops it when the process dies, so a kill -9
// leaves no stale lock. Two shards given the same --out by mistake (a Slurm array without
// $SLURM_ARRAY_TASK_ID in the path) were both exiting 0 with a mixed dataset.
//
//   DASHI_ASSIGN_OR_RETURN(DatasetDirLock lock, DatasetDirLock::Acquire(out, quiet));
#ifndef DASHI_TOOLS_DATASET_DATASET_LOCK_H_
#define DASHI_TOOLS_DATASET_DATASET_LOCK_H_

#include <string>
#include <utility>

#include "core_ref/fileio/directory_lock.h"
#include "core_ref/status/status.h"

namespace dashi::tools {

class DatasetDirLock {
 public:
  // Creates `dir` if it is missing, then locks it. FAILED_PRECONDITION naming `dir` when another
  // process holds the lock, or when `dir` exists and is not a directory; UNAVAILABLE when it can
  // be neither created nor opened. Where the file system offers no flock on a directory (some
  // network file systems), the run goes on unlocked and says so on stderr unless `quiet`.
  static StatusOr<DatasetDirLock> Acquire(const std::string& dir, bool quiet);

  DatasetDirLock(DatasetDirLock&&) noexcept = default;
  DatasetDirLock& operator=(DatasetDirLock&&) noexcept = default;

 private:
  explicit DatasetDirLock(DirectoryLock lock) : lock_(std::move(lock)) {}
  DirectoryLock lock_;  // released when this object is destroyed
};

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_DATASET_DATASET_LOCK_H_
