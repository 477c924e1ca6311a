// Identities computed at build time (//build_id:build_id_values) that certifications are keyed by:
// what the accelerator was built from, which golden data the suite compared against, and the
// code of the suite's cases.
#ifndef DASHI_BUILD_ID_BUILD_IDS_H_
#define DASHI_BUILD_ID_BUILD_IDS_H_

namespace dashi::build_id {

// BLAKE2b-128 (hex) over the sorted (hash, path) of every file of //accel_vulkan/...,
// //shaders/... and //backend (tests excluded), .bazelrc, cc_defs.bzl, the compiler's version and
// the compilation mode.
extern const char kAcceleratorSourceHash[];
extern const int kAcceleratorSourceFiles;
// BLAKE2b-128 (hex) of golden/manifest.json.
extern const char kGoldenManifestHash[];
// BLAKE2b-128 (hex) over the sorted (hash, path) of every file of the conformance case packages
// and their framework (tests and the Bazel test driver excluded): what the cases compute.
extern const char kSuiteSourceHash[];
extern const int kSuiteSourceFiles;

}  // namespace dashi::build_id

#endif  // DASHI_BUILD_ID_BUILD_IDS_H_
