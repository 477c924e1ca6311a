// Where a command may write: never onto one of its own inputs, never inside a dashi dataset and
// never over the directory it runs in.
// Each command that writes checks every output path (its files, their companions, its output
// directory) with CheckOutputPlaces before any work, so a mistyped --out cannot replace a learned
// A.npy, a z0, an array of a dataset or the current directory. A refusal is a command-line error:
// exit 2 (FailCommandLine, tools/cli_util.h).
//
//   DASHI_RETURN_IF_ERROR(CheckOutputPlaces({{"--out", out}, {"--out's chain file", chain}},
//                                           {{"--z0", z0}, {"--a", a}}));
#ifndef DASHI_TOOLS_OUTPUT_GUARD_H_
#define DASHI_TOOLS_OUTPUT_GUARD_H_

#include <string>
#include <vector>

#include "core_ref/status/status.h"

namespace dashi::tools {

// A path and the flag (or description) that names it in messages.
struct FlaggedPath {
  std::string what;  // "--out", "--out's chain file", "--a"
  std::string path;
};

// INVALID_ARGUMENT naming the output, the path and the input or dataset when an output
//  - is an input, lies inside one or contains one, once symlinks, "." and ".." are resolved
//    (core_ref/fileio/path_overlap.h), or is a hard link to one (same device and inode), or
//  - lies inside a dashi dataset directory (tools/dataset/dataset_manifest.h), or
//  - is the current directory or contains it (an output directory is replaced whole), or
//  - is a symbolic link to nothing (one message for every command).
// Inputs with an empty path (optional flags not given) are skipped.
[[nodiscard]] Status CheckOutputPlaces(const std::vector<FlaggedPath>& outputs,
                                       const std::vector<FlaggedPath>& inputs);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_OUTPUT_GUARD_H_
