// One item of a dataset on disk: DIR/items/<id>/ holding item.json (the item's manifest) and its
// arrays as .npy — omega.npy [frames, N, N], time.npy / energy.npy / enstrophy.npy [frames],
// z.npy [frames, D] with proxy.json, omega_decoded.npy [frames, N, N] (each z decoded) — each as
// the spec's "keep" asks. The directory is an output
// set (core_ref/fileio/output_set.h): written in a staging sibling and renamed into place whole,
// so a killed run leaves either a complete item or none. item.json records, for every array, the
// BLAKE2b-128 of its data bytes and of the whole file, for every other file its BLAKE2b-128, the
// LES parameters, what was kept, and the provenance (reference version, compiler).
//
//   DASHI_ASSIGN_OR_RETURN(std::string h, GenerateItem(spec, spec.items[3], "out/items"));
//   DASHI_ASSIGN_OR_RETURN(std::string same, VerifyItem(spec, spec.items[3],
//   "out/items/n64_p0_s4"));
#ifndef DASHI_TOOLS_DATASET_DATASET_ITEM_H_
#define DASHI_TOOLS_DATASET_DATASET_ITEM_H_

#include <string>
#include <vector>

#include "core_ref/status/status.h"
#include "tools/dataset/dataset_spec.h"

namespace dashi::tools {

inline constexpr char kDatasetItemFormat[] = "dashi-dataset-item/1";
inline constexpr char kItemManifestName[] = "item.json";

// Runs the LES of `item` and writes items_dir/<id> (replacing an earlier, possibly corrupt, item
// of that name; removing a staging directory a killed run left). Frames go to disk as they are
// made: memory does not grow with the number of steps. Returns the hex BLAKE2b-128 of item.json.
// `threads`: the LES's threads (LesSolver::Create); the bytes do not depend on it. The names of
// the staging directories removed are added to `removed_stale` when given (the caller says so).
StatusOr<std::string> GenerateItem(const DatasetSpec& spec, const DatasetItem& item,
                                   const std::string& items_dir, int threads = 1,
                                   std::vector<std::string>* removed_stale = nullptr);

// Checks `item_dir` against `item` of `spec`: item.json describes this item (same parameters,
// steps and kept arrays), every file it lists exists with its size and hashes (an .npy also with
// the exact header of its shape), and no other file is there. Returns item.json's hex BLAKE2b-128.
// Codes: NOT_FOUND (missing directory or file), DATA_LOSS (size, header or hash mismatch, an
// unexpected file), INVALID_ARGUMENT (item.json malformed or describing another item).
// Every message starts with the offending path.
StatusOr<std::string> VerifyItem(const DatasetSpec& spec, const DatasetItem& item,
                                 const std::string& item_dir);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_DATASET_DATASET_ITEM_H_
