// Golden inputs for conformance cases: arrays from the checked-in golden set, found in
// $DASHI_GOLDEN_DIR or else ./golden (the repository root, and the runfiles root in Bazel tests),
// each checked against the manifest whose hash is part of the suite id.
#ifndef DASHI_CONFORMANCE_FRAMEWORK_GOLDEN_INPUT_H_
#define DASHI_CONFORMANCE_FRAMEWORK_GOLDEN_INPUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core_ref/npy/npy.h"
#include "core_ref/status/status.h"

namespace dashi::conformance {

std::string GoldenDir();

// Reads the array `name` of the golden set the suite id names: <GoldenDir()>/manifest.json must
// hash (BLAKE2b-128 of its bytes) to the manifest hash this binary was built with (//build_id,
// part of the suite id), and the file of its entry there must have the entry's data hash, dtype
// and shape (FAILED_PRECONDITION naming the file and both sides otherwise; NOT_FOUND for a name
// the manifest lacks). When `shape` is non-empty the array must have it. Errors say how to point the
// suite at the golden set.
StatusOr<NpyArray> ReadGolden(const std::string& name, const std::vector<int64_t>& shape = {});

// An array's entry in a golden manifest.
struct GoldenEntry {
  std::string file;         // a plain file name in the golden directory
  std::string dtype;        // NumPy descr, e.g. "<f8", "|i1"
  std::vector<int64_t> shape;
  std::string blake2b_128;  // of the array's data bytes (hex)
};

// The entry of `name` in <dir>/manifest.json, after checking that the manifest's own BLAKE2b-128
// is `want_manifest_hash` (ReadGolden's first step; exposed for tests). FAILED_PRECONDITION for
// another manifest, INVALID_ARGUMENT for a malformed one or entry, NOT_FOUND for an unlisted name.
StatusOr<GoldenEntry> FindGoldenEntry(const std::string& dir, const std::string& name,
                                      const std::string& want_manifest_hash);

}  // namespace dashi::conformance

#endif  // DASHI_CONFORMANCE_FRAMEWORK_GOLDEN_INPUT_H_
