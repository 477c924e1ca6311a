#include "tools/output_guard.h"

#include <sys/stat.h>

#include <filesystem>
#include <system_error>

#include "core_ref/fileio/output_set.h"
#include "core_ref/fileio/path_overlap.h"
#include "json_input/json_input.h"
#include "tools/dataset/dataset_manifest.h"

namespace dashi::tools {
namespace {

// Two names of one file: a hard link has another path but the same device and inode.
bool SameInode(const std::string& a, const std::string& b) {
  struct stat sa {}, sb {};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev &&
         sa.st_ino == sb.st_ino;
}

// An output replaced whole: were that the current directory or one above it, the
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

// The dashi output set (a directory holding .dashi-output-set) that `path` lies inside, or "".
std::string EnclosingOutputSet(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path canonical = CanonicalPath(path);
  for (fs::path p = canonical.parent_path(); p.has_relative_path(); p = p.parent_path()) {
    std::error_code ec;
    if (fs::exists(fs::symlink_status(p / kOutputSetMarker, ec))) return p.string();
  }
  return "";
}

// An existing report is replaced only when it is one: a JSON object whose "format" is `format`.
Status RefuseOtherThanEarlierReport(const FlaggedPath& out, const std::string& format) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(out.path, ec);
  if (!fs::exists(st)) return OkStatus();
  std::string found;
  if (!fs::is_regular_file(st)) {
    found = "it is not a regular file";
  } else if (StatusOr<nlohmann::json> j = ReadJsonInput(out.path); !j.ok()) {
    found = "it is not JSON";
  } else if (!j->is_object() || !j->contains("format") || (*j)["format"] != format) {
    found = "it is not a report of that format";
  } else {
    return OkStatus();
  }
  return InvalidArgumentError(out.what + " " + out.path + " exists and is not an earlier report "
                              "(\"format\": \"" + format + "\"): " + found + "; a report replaces "
                              "only a missing file or an earlier report: choose another path");
}

}  // namespace

Status CheckReportOutput(const FlaggedPath& out, const std::string& format,
                         const std::vector<FlaggedPath>& inputs) {
  DASHI_RETURN_IF_ERROR(CheckOutputPlaces({out}, inputs));
  const std::string name = std::filesystem::path(out.path).filename().string();
  if (name.size() <= 5 || name.substr(name.size() - 5) != ".json") {
    return InvalidArgumentError(out.what + " " + out.path + ": a report's name is NAME.json, so "
                                "that it can never replace an array or another file; choose a "
                                ".json path");
  }
  if (const std::string set = EnclosingOutputSet(out.path); !set.empty()) {
    return InvalidArgumentError(out.what + " " + out.path + " is inside the dashi output set " +
                                set + " (it holds " + kOutputSetMarker + "): writing there would "
                                "change those outputs; choose a path outside it");
  }
  return RefuseOtherThanEarlierReport(out, format);
}

Status CheckOutputPlaces(const std::vector<FlaggedPath>& outputs,
                         const std::vector<FlaggedPath>& inputs, OutputWrite write) {
  for (const FlaggedPath& out : outputs) {
    DASHI_RETURN_IF_ERROR(RefuseDanglingLink(out));
    if (write == OutputWrite::kReplacedWhole) DASHI_RETURN_IF_ERROR(RefuseCurrentDirectory(out));
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
