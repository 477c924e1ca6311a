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

// Reads <GoldenDir()>/<name>.npy, bound to the golden set the suite id names: <GoldenDir()>/
// manifest.json must hash (BLAKE2b-128 of its bytes) to the manifest hash this binary was built
// with (//build_id, part of the suite id), and the array's data to its entry there
// (FAILED_PRECONDITION naming the file and both hashes otherwise; NOT_FOUND for a name the
// manifest lacks). When `shape` is non-empty the array must have it. Errors say how to point the
// suite at the golden set.
StatusOr<NpyArray> ReadGolden(const std::string& name, const std::vector<int64_t>& shape = {});

// The manifest entry's BLAKE2b-128 of `name` in <dir>/manifest.json, after checking that the
// manifest's own hash is `want_manifest_hash` (ReadGolden's first step; exposed for tests).
StatusOr<std::string> GoldenManifestHash(const std::string& dir, const std::string& name,
                                         const std::string& want_manifest_hash);

}  // namespace dashi::conformance

#endif  // DASHI_CONFORMANCE_FRAMEWORK_GOLDEN_INPUT_H_
