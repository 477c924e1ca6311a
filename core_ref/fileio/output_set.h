// A command's outputs appear complete or not at all. Every file is written into a hidden staging
// directory beside the final place, ".<name>.dashi-partial.<host>.<pid>.<hex>", and Commit() moves
// the set into place:
// - a directory set (run, learn, decode, scales) is renamed as a whole: onto a missing or empty
//   directory with rename(2), onto an earlier output set of the same command (the marker's; another
//   command's set is refused, it may hold this command's inputs) with an atomic exchange
//   (renameat2 RENAME_EXCHANGE; elsewhere: old aside, new in, old removed). Commit first writes
//   ".dashi-output-set" (the command and every file's size and BLAKE2b-128), which is what marks a
//   directory as one dashi may replace: a non-empty directory without it is refused before any
//   work, so no user file is ever deleted.
// - a file set (rollout's zT.npy, .trajectory.npy, .chain.json; simulate's .npy and .json) is
//   renamed file by file (a final name that exists as anything but a regular file — a symlink,
//   /dev/null — is refused) after the old completion record (the last name) was removed, the
//   completion record last: a reader that finds the record finds the set it describes. Commits
//   into one directory take turns (an exclusive flock(2) on it, held only while renaming), so
//   two processes writing the same set at once leave the last committer's whole set.
// A set never committed — an error, an exception, SIGINT/SIGTERM/SIGHUP — removes its staging
// directory; one left by kill -9 is removed as stale by the next set with the same final name.
//
//   DASHI_ASSIGN_OR_RETURN(OutputSet out, OutputSet::ForDirectory(o.out, "run"));
//   DASHI_RETURN_IF_ERROR(WriteNpy(out.Path("A.npy"), a));
//   DASHI_RETURN_IF_ERROR(out.Commit());
#ifndef DASHI_CORE_REF_FILEIO_OUTPUT_SET_H_
#define DASHI_CORE_REF_FILEIO_OUTPUT_SET_H_

#include <memory>
#include <string>
#include <vector>

#include "core_ref/status/status.h"

namespace dashi {

inline constexpr char kOutputSetMarker[] = ".dashi-output-set";

class OutputSet {
 public:
  // What an earlier set of the same command may hold that its marker does not record: refused
  // (a user's file beside a run's outputs), or replaced with the set (a dataset item's directory,
  // which is dashi's own: an unrecorded entry there is damage that the regeneration repairs).
  enum class Unrecorded { kRefuse, kReplace };
  // `dir` must be missing, an empty directory, or an earlier dashi output set of the same
  // `command` (a symlink is followed) holding only the files its marker records (or anything,
  // with Unrecorded::kReplace). `command` is recorded in the marker.
  static StatusOr<OutputSet> ForDirectory(const std::string& dir, const std::string& command,
                                          Unrecorded unrecorded = Unrecorded::kRefuse);
  // `final_paths` share one parent directory; the last one is the set's completion record.
  static StatusOr<OutputSet> ForFiles(const std::vector<std::string>& final_paths);

  OutputSet(OutputSet&&) noexcept;
  OutputSet& operator=(OutputSet&&) = delete;
  OutputSet(const OutputSet&) = delete;
  ~OutputSet();  // not committed: the staging directory and everything in it is removed

  // Where to write an output: for a directory set `relative` is a path inside it ("A.npy",
  // "snapshots/step_0010/omega.npy"; subdirectories are the caller's to create under
  // staging()); for a file set it is one of `final_paths`.
  std::string Path(const std::string& relative) const;
  const std::string& staging() const;
  // Stale staging directories of earlier, killed processes that creating this set removed.
  const std::vector<std::string>& removed_stale() const;

  // Moves the set into place; afterwards the staging directory is gone. On an error the final
  // place is as it was before (except as stated above for a file set's renames).
  Status Commit();

 private:
  struct State;
  explicit OutputSet(std::unique_ptr<State> state);
  std::unique_ptr<State> state_;
};

}  // namespace dashi

#endif  // DASHI_CORE_REF_FILEIO_OUTPUT_SET_H_
