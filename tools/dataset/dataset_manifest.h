// A dataset directory's layout and its manifest, dataset.json:
//   DIR/spec.json       the spec, canonical (keys sorted); its BLAKE2b-128 is the spec's hash
//   DIR/items/<id>/     one directory per item (tools/dataset/dataset_item.h)
//   DIR/dataset.json    written last, only when every item of the shard is complete: the spec's
//                       hash, the shard, and every item's index, id and item.json BLAKE2b-128 in
//                       index order. A shard's manifest lists that shard's items; a merged or
//                       one-process dataset is shard 0/1, and the two are byte-identical.
//
//   DASHI_ASSIGN_OR_RETURN(DatasetManifest m, ReadDatasetManifest("out"));
#ifndef DASHI_TOOLS_DATASET_DATASET_MANIFEST_H_
#define DASHI_TOOLS_DATASET_DATASET_MANIFEST_H_

#include <string>
#include <vector>

#include "core_ref/status/status.h"
#include "tools/dataset/dataset_spec.h"

namespace dashi::tools {

inline constexpr char kDatasetFormat[] = "dashi-dataset/1";
inline constexpr char kDatasetManifestName[] = "dataset.json";
inline constexpr char kDatasetSpecName[] = "spec.json";
inline constexpr char kDatasetItemsDir[] = "items";

struct ManifestEntry {
  int64_t index = 0;
  std::string id;
  std::string item_json_blake2b128;
};

struct DatasetManifest {
  std::string spec_blake2b128;
  ShardSel shard;
  std::vector<ManifestEntry> items;
};

// dataset.json's text (2-space JSON, trailing newline).
std::string DatasetManifestText(const DatasetManifest& m);
Status WriteDatasetManifest(const std::string& dir, const DatasetManifest& m);
// Errors name DIR/dataset.json and the field; NOT_FOUND when the dataset has no manifest (an
// incomplete or interrupted generation).
StatusOr<DatasetManifest> ReadDatasetManifest(const std::string& dir);

// DIR/spec.json read back, checked to be byte-identical to the canonical text of what it parses
// to (so its hash is the spec's hash).
StatusOr<DatasetSpec> ReadDatasetDirSpec(const std::string& dir);

// The nearest directory strictly above `path` (resolved as core_ref/fileio/path_overlap.h
// resolves it) that is a dataset directory (it holds spec.json and items/), or "" when none is:
// an output there would add an extra item to that dataset or replace one of its items.
std::string EnclosingDatasetDir(const std::string& path);
// INVALID_ARGUMENT naming both when `out` lies inside a dataset directory (`out_what`: "--out").
Status RefuseOutputInsideDataset(const std::string& out, const std::string& out_what);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_DATASET_DATASET_MANIFEST_H_
