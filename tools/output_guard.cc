#include "tools/output_guard.h"

#include <sys/stat.h>

#include <filesystem>
#include <system_error>

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

// An output set replaces its directory whole: were that the current directory or one above it, the
// shell that ran the command would be left in a deleted directory with its files gone from view.
Status RefuseCurrentDirectory(const FlaggedPath& out) {
  std::error_code ec;
  const std::string cwd = std::filesystem::current_path(ec).string();
  if (ec) return OkStatus();  // no current directory (removed): nothing of it to protect
  const PathOverlap overlap = ComparePaths(out.path, cwd);
  if (overlap != PathOverlap::kSame && overlap != PathOverlap::kContains) return OkStatus();
  return InvalidArgumentError(out.what + " " + out.path +
                              (overlap == PathOverlap::kSame ? " is" : " contains") +
                              " the current directory " + cwd +
                              ": writing the output would replace the directory this command runs "
                              "in; choose another output, or run the command from elsewhere");
}

// A link to nothing (or to itself): each writer met it in its own way (a directory set, a file set,
// golden generate), so the flag's path is refused here, once, with one message.
Status RefuseDanglingLink(const FlaggedPath& out) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_symlink(fs::symlink_status(out.path, ec)) || fs::exists(out.path, ec)) {
    return OkStatus();
  }
  const std::string target = fs::read_symlink(out.path, ec).string();
  return InvalidArgumentError(out.what + " " + out.path + " is a symbolic link to " + target +
                              ", which does not exist: dashi writes no output through a dangling "
                              "link; remove the link or choose another path");
}

}  // namespace

Status CheckOutputPlaces(const std::vector<FlaggedPath>& outputs,
                         const std::vector<FlaggedPath>& inputs) {
  for (const FlaggedPath& out : outputs) {
    DASHI_RETURN_IF_ERROR(RefuseDanglingLink(out));
    DASHI_RETURN_IF_ERROR(RefuseCurrentDirectory(out));
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
