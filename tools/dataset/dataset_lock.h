// One `dashi dataset generate` at a time per output directory: an exclusive, non-blocking
// flock(2) on the directory itself (no lock file: the directory's contents stay the dataset's),
// held until the object is destroyed — the kernel drops it when the process dies, so a kill -9
// leaves no stale lock. Two shards given the same --out by mistake (a Slurm array without
// $SLURM_ARRAY_TASK_ID in the path) were both exiting 0 with a mixed dataset.
//
//   DASHI_ASSIGN_OR_RETURN(DatasetDirLock lock, DatasetDirLock::Acquire(out, quiet));
#ifndef DASHI_TOOLS_DATASET_DATASET_LOCK_H_
#define DASHI_TOOLS_DATASET_DATASET_LOCK_H_

#include <string>

#include "core_ref/status/status.h"

namespace dashi::tools {

class DatasetDirLock {
 public:
  // Creates `dir` if it is missing, then locks it. FAILED_PRECONDITION naming `dir` when another
  // process holds the lock, or when `dir` exists and is not a directory; UNAVAILABLE when it can
  // be neither created nor opened. Where the file system offers no flock on a directory (some
  // network file systems), the run goes on unlocked and says so on stderr unless `quiet`.
  static StatusOr<DatasetDirLock> Acquire(const std::string& dir, bool quiet);

  DatasetDirLock(DatasetDirLock&& other) noexcept;
  DatasetDirLock& operator=(DatasetDirLock&& other) noexcept;
  DatasetDirLock(const DatasetDirLock&) = delete;
  DatasetDirLock& operator=(const DatasetDirLock&) = delete;
  ~DatasetDirLock();

 private:
  explicit DatasetDirLock(int fd) : fd_(fd) {}
  int fd_ = -1;  // the directory's descriptor (-1: unlocked)
};

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_DATASET_DATASET_LOCK_H_
