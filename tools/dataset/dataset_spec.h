// A dataset's specification (spec.json) and the items it expands to: every grid size N × every
// LES parameter set × every seed, in that nesting order, item k having index k. What each item
// keeps (vorticity frames, E/Z series, proxy z series, decodes of those z) is the same for all
// items.
//
//   {"format": "dashi-dataset-spec/1", "n": [64, 128], "seeds": {"first": 1, "count": 16},
//    "les": [{"nu0": 1e-3, "cs": 0.17}, {"nu0": 5e-4, "cs": 0.1}], "steps": 200, "save_every": 10,
//    "keep": {"vorticity": true, "series": true, "proxy": {"k_lo": 4, "k_mid": 8, "anchors": 8},
//             "decodes": true}}
//
//   DASHI_ASSIGN_OR_RETURN(DatasetSpec spec, ReadDatasetSpec("spec.json"));
//   for (const DatasetItem& item : spec.items) ...   // item.id "n64_p1_s3"
#ifndef DASHI_TOOLS_DATASET_DATASET_SPEC_H_
#define DASHI_TOOLS_DATASET_DATASET_SPEC_H_

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "core_ref/les/les_solver.h"
#include "core_ref/status/status.h"

namespace dashi::tools {

inline constexpr char kDatasetSpecFormat[] = "dashi-dataset-spec/1";

struct DatasetProxyParams {
  int k_lo = 0;
  int k_mid = 0;
  int anchors = 0;  // chosen from each item's frame 0
};

struct DatasetItem {
  int64_t index = 0;
  std::string id;  // "n<N>_p<parameter set>_s<seed>", unique within the spec
  LesParams les;
};

struct DatasetSpec {
  int64_t steps = 0;
  int64_t save_every = 1;
  bool keep_vorticity = true;
  bool keep_series = true;
  std::optional<DatasetProxyParams> proxy;
  // Every frame's z decoded by core_ref's Decoder with the default DecodeParams, residual phases
  // keyed by the frame index (what `dashi decode --frame F` does). Needs `proxy`.
  bool keep_decodes = false;
  std::vector<DatasetItem> items;
  nlohmann::json canonical;  // the spec as parsed; its dump() is spec.json
  std::string blake2b128;    // hex BLAKE2b-128 of CanonicalSpecText()

  int64_t frames() const { return steps / save_every + 1; }
  std::string CanonicalSpecText() const;  // canonical.dump(2) + "\n", keys sorted
};

// Parses and checks a spec; errors are INVALID_ARGUMENT naming `what` and the field ("spec.json:
// les[1].nu0 = -1 ..."). Unknown keys are refused (a misspelt key would silently use a default).
StatusOr<DatasetSpec> ParseDatasetSpec(const nlohmann::json& j, const std::string& what);
StatusOr<DatasetSpec> ReadDatasetSpec(const std::string& path);

// Proxy dimension D of an item of grid size n (0 without a proxy).
int64_t ProxyDim(const DatasetSpec& spec, int64_t n);

// The bytes an item's files take on disk (arrays with their .npy headers plus a bound on the
// JSON files); INVALID_ARGUMENT when the arithmetic overflows.
StatusOr<int64_t> EstimateItemBytes(const DatasetSpec& spec, const DatasetItem& item);

// "I/N" → {I, N} with 0 <= I < N; errors name --shard.
struct ShardSel {
  int64_t index = 0;
  int64_t count = 1;
  bool Holds(int64_t item_index) const { return item_index % count == index; }
};
StatusOr<ShardSel> ParseShard(const std::string& text);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_DATASET_DATASET_SPEC_H_
