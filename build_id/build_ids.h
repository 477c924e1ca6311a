// Identities computed at build time (//build_id:build_id_values) that certifications are keyed by:
// what the accelerator was built from, and which golden data the suite compared against.
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

}  // namespace dashi::build_id

#endif  // DASHI_BUILD_ID_BUILD_IDS_H_
