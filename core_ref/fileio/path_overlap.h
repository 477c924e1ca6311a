// Whether an output path would land on one of a command's inputs: two paths compared after
// std::filesystem::weakly_canonical (symlinks in the existing part resolved, "." and ".."
// folded, relative paths made absolute), so `out`, `./out/` and a symlink to it are one place.
// A command checks its output against every input before any work, so writing the output can
// never change, replace or add to an input.
//
//   DASHI_RETURN_IF_ERROR(RefuseOverlap("out", "merge OUT", "shard0", "shard directory"));
#ifndef DASHI_CORE_REF_FILEIO_PATH_OVERLAP_H_
#define DASHI_CORE_REF_FILEIO_PATH_OVERLAP_H_

#include <string>

#include "core_ref/status/status.h"

namespace dashi {

enum class PathOverlap {
  kNone,      // neither is the other or inside it
  kSame,      // the same place
  kInside,    // the first is inside the second (a descendant)
  kContains,  // the first contains the second
};

// The canonical form used for the comparison (no trailing separator).
std::string CanonicalPath(const std::string& path);

PathOverlap ComparePaths(const std::string& a, const std::string& b);

// INVALID_ARGUMENT naming both paths when `out` is `in`, lies inside it or contains it:
//   "<out_what> X is inside <in_what> Y: writing it would change that input; ..."
Status RefuseOverlap(const std::string& out, const std::string& out_what, const std::string& in,
                     const std::string& in_what);

}  // namespace dashi

#endif  // DASHI_CORE_REF_FILEIO_PATH_OVERLAP_H_
