// `dashi dataset verify` and `dashi dataset merge`: a dataset directory checked against its spec
// and manifest (every item's every hash; items missing, extra or listed twice; leftovers of a
// killed run), optionally with K random items regenerated and compared byte for byte; and shard
// directories combined into one dataset identical to a one-process run.
//
//   DASHI_ASSIGN_OR_RETURN(VerifyReport r, VerifyDataset({"data", /*regenerate=*/4, /*seed=*/1}));
//   if (!r.problems.empty()) ...
//   DASHI_RETURN_IF_ERROR(MergeDatasets("all", {"shard0", "shard1"}));
#ifndef DASHI_TOOLS_DATASET_DATASET_VERIFY_H_
#define DASHI_TOOLS_DATASET_DATASET_VERIFY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "core_ref/status/status.h"

namespace dashi::tools {

struct VerifyOptions {
  std::string dir;
  int64_t regenerate = 0;  // items regenerated and compared byte for byte
  uint64_t seed = 1;       // which items (Xoshiro256**, the same choice on every machine)
};

struct VerifyReport {
  int64_t items = 0;                  // listed in dataset.json and checked
  int64_t regenerated = 0;            // regenerated and identical
  std::vector<std::string> problems;  // one line each, naming the file or item
};

// An error only when the dataset cannot be examined at all (no spec.json, a malformed
// dataset.json, no dataset.json: an incomplete generation); everything else is a problem
// (symlinked items, item files, spec.json, dataset.json or items/ among them).
StatusOr<VerifyReport> VerifyDataset(const VerifyOptions& o);

// `out` must be missing or empty, and neither be, lie inside or contain a shard directory nor lie
// inside any dataset (INVALID_ARGUMENT naming both, before anything is read). Every shard
// directory must be a complete, verifying dataset of the same spec, and together they must be
// shards 0..N-1 of N, each once.
Status MergeDatasets(const std::string& out, const std::vector<std::string>& shard_dirs);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_DATASET_DATASET_VERIFY_H_
