// The golden data set (docs/CONFORMANCE.md, golden data): arrays produced by core_ref for the carrier kernels, the FFT, LES
// steps, encoding, a learned A, a rollout hash chain and decodes at N = 32, 64 and 128, written as
// .npy files plus manifest.json (generator parameters, reference version, and per array its file,
// dtype, shape and BLAKE2b-128 of the raw C-order data bytes). Regenerating reproduces every byte.
//
//   DASHI_RETURN_IF_ERROR(GenerateGoldenSet("golden", progress));
//   StatusOr<GoldenReport> r = VerifyGoldenSet("golden");   // r->problems lists every mismatch
#ifndef DASHI_TOOLS_GOLDEN_GOLDEN_SET_H_
#define DASHI_TOOLS_GOLDEN_GOLDEN_SET_H_

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core_ref/npy/npy.h"
#include "core_ref/status/status.h"

namespace dashi::tools {

struct GoldenArray {
  std::string name;         // file is name + ".npy"
  std::string description;  // what produced it
  NpyArray array;
};

// Computes every golden array in a fixed order (pure function of the reference code).
StatusOr<std::vector<GoldenArray>> ComputeGoldenArrays(
    const std::function<void(const std::string&)>& progress = {});

// Writes the arrays and manifest.json into `dir` (created if missing). `dir` must be missing,
// empty, a golden set (its manifest.json parses), or hold only files of the set and BUILD /
// README.md (an interrupted regeneration); anything else is FAILED_PRECONDITION before any write.
Status GenerateGoldenSet(const std::string& dir,
                         const std::function<void(const std::string&)>& progress = {});

struct GoldenReport {
  int checked = 0;                    // arrays listed in the manifest
  int ok = 0;                         // arrays whose file, dtype, shape and hash all match
  std::vector<std::string> problems;  // "golden/x.npy: BLAKE2b-128 mismatch: ..." etc.
};

// manifest.json as read: the entries that are well formed, and a problem for each that is not.
struct GoldenManifestEntry {
  int index = 0;  // 1-based position in "arrays"
  std::string file, dtype, blake2b_128;
  std::vector<int64_t> shape;
  bool shape_ok = true;  // every dim an integer
};
struct GoldenManifest {
  std::vector<GoldenManifestEntry> entries;
  std::vector<std::string> problems;
};
// Checks the format and the "arrays" list of a parsed manifest; `path` names it in messages.
// Malformed entries become problems (among them an array name listed twice, and a file that is
// not its name + ".npy"); a missing format or arrays field is an error.
StatusOr<GoldenManifest> ParseGoldenManifest(const nlohmann::json& m, const std::string& path);

// Whether `dir` can serve as golden data (`dashi conform --golden-dir`): a directory whose
// manifest.json reads and parses. Errors name `flag` and the directory; the files themselves are
// checked by VerifyGoldenSet and by the cases that read them.
Status CheckGoldenDir(const std::string& dir, const std::string& flag);

// Checks every file listed in `dir`/manifest.json. An unreadable or malformed manifest is an
// error; per-array problems are collected in the report.
StatusOr<GoldenReport> VerifyGoldenSet(const std::string& dir);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_GOLDEN_GOLDEN_SET_H_
