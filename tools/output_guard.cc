#include "tools/output_guard.h"

#include <sys/stat.h>

#include "core_ref/fileio/path_overlap.h"
#include "tools/dataset/dataset_manifest.h"

namespace dashi::tools {
namespace {

// Two names of one file: a hard link has another path but the same device and inode.
bool SameInode(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

}  // namespace

Status CheckOutputPlaces(const std::vector<FlaggedPath>& outputs,
                         const std::vector<FlaggedPath>& inputs) {
  for (const FlaggedPath& out : outputs) {
    for (const FlaggedPath& in : inputs) {
      if (in.path.empty()) continue;
      DASHI_RETURN_IF_ERROR(RefuseOverlap(out.path, out.what, in.path, in.what));
      if (SameInode(out.path, in.path)) {
        return InvalidArgumentError(out.what + " " + out.path + " is the same file as " + in.what +
                                    " " + in.path + " (a hard link: same device and inode): "
                                    "writing the output would replace that input under this "
                                    "name; choose an output outside every input");
      }
    }
    DASHI_RETURN_IF_ERROR(RefuseOutputInsideDataset(out.path, out.what));
  }
  return OkStatus();
}

}  // namespace dashi::tools
