// Golden inputs for conformance cases: arrays from the checked-in golden set, found in
// $DASHI_GOLDEN_DIR or else ./golden (the repository root, and the runfiles root in Bazel tests).
#ifndef DASHI_CONFORMANCE_FRAMEWORK_GOLDEN_INPUT_H_
#define DASHI_CONFORMANCE_FRAMEWORK_GOLDEN_INPUT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core_ref/npy/npy.h"
#include "core_ref/status/status.h"

namespace dashi::conformance {

std::string GoldenDir();

// Reads <GoldenDir()>/<name>.npy; when `shape` is non-empty the array must have it. Errors say how
// to point the suite at the golden set.
StatusOr<NpyArray> ReadGolden(const std::string& name, const std::vector<int64_t>& shape = {});

}  // namespace dashi::conformance

#endif  // DASHI_CONFORMANCE_FRAMEWORK_GOLDEN_INPUT_H_
