// Where a command may write: never onto one of its own inputs, never inside a dashi dataset, never
// over the directory it runs in, and a JSON report only over an earlier report of its command.
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

// How a command writes its outputs: replaced whole (an output set renamed into place: run, learn,
// decode, scales, and every file output), or in place inside a directory that is never replaced
// (golden generate, dataset generate and dataset merge; resuming a dataset from inside it is
// legitimate).
enum class OutputWrite { kReplacedWhole, kInPlace };

// INVALID_ARGUMENT naming the output, the path and the input or dataset when an output
//  - is an input, lies inside one or contains one, once symlinks, "." and ".." are resolved
//    (core_ref/fileio/path_overlap.h), or is a hard link to one (same device and inode), or
//  - lies inside a dashi dataset directory (tools/dataset/dataset_manifest.h), or
//  - is the current directory or contains it, for an output replaced whole, or
//  - is a symbolic link to nothing (one message for every command).
// Inputs with an empty path (optional flags not given) are skipped.
[[nodiscard]] Status CheckOutputPlaces(const std::vector<FlaggedPath>& outputs,
                                       const std::vector<FlaggedPath>& inputs,
                                       OutputWrite write = OutputWrite::kReplacedWhole);

// A command's JSON report (`conform --out`, `audit --out`): CheckOutputPlaces (with the places
// the command reads or keeps among `inputs`: --golden-dir, the certification store), and then
// INVALID_ARGUMENT naming the flag, the path and why when the report
//  - does not end in .json, or
//  - lies inside a dashi output set (a directory holding .dashi-output-set), or
//  - exists and is not an earlier report of the command: a JSON object whose "format" is
//    `format` ("dashi-conformance/1"). So a report can never replace a golden manifest, an
//    array, a run's chain or a store's key.
[[nodiscard]] Status CheckReportOutput(const FlaggedPath& out, const std::string& format,
                                       const std::vector<FlaggedPath>& inputs);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_OUTPUT_GUARD_H_
