// chain.json, the one writer of a rollout's hash chain (`dashi run` writes it as chain.json,
// `dashi rollout` as <out>.chain.json with its inputs and timings added): provenance, D, steps,
// spacing, how the chain is defined, the final link and every checkpoint
// [{"step", "state_hash", "link"}, ...] in lowercase hex.
//
//   nlohmann::json j = ChainFileJson({prov, dim, steps, hash_every, result.chain});
#ifndef DASHI_TOOLS_CHAIN_JSON_H_
#define DASHI_TOOLS_CHAIN_JSON_H_

#include <cstdint>
#include <span>
#include <string>

#include <nlohmann/json.hpp>

#include "core_ref/rollout/rollout.h"

namespace dashi::tools {

struct ChainFile {
  nlohmann::json provenance;
  int64_t dim = 0;
  int64_t steps = 0;
  int64_t hash_every = 0;
  std::span<const ChainCheckpoint> chain;
};

nlohmann::json ChainFileJson(const ChainFile& file);

// The last checkpoint's link in hex ("" for an empty chain): the one string that certifies a run.
std::string FinalLinkHex(std::span<const ChainCheckpoint> chain);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_CHAIN_JSON_H_
