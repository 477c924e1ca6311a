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
#include <vector>

#include <nlohmann/json.hpp>

#include "core_ref/rollout/rollout.h"
#include "core_ref/status/status.h"

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

// A chain file read back (the reader of what ChainFileJson writes): for `dashi rollout
// --expect-chain`, which replays a recorded run and says whether it reproduced bit for bit.
struct RecordedChain {
  int64_t dim = 0, steps = 0, hash_every = 0;
  std::vector<ChainCheckpoint> chain;
  // BLAKE2b-128 (lowercase hex) of the inputs' float64 bytes, where the record names them (a
  // rollout's chain does, a run's does not): "" when absent.
  std::string z0_hash, a_hash;
};
// Checks dim ≥ 1, steps ≥ 0, hash_every ≥ 1, every checkpoint's step (increasing, within steps)
// and 32-hex-digit hashes (z0_hash and a_hash too, when present), and that final_link is the last
// link. Errors name `path` and the field; a batched rollout's chain file (one chain per row under
// "trajectories") is refused as such.
StatusOr<RecordedChain> ParseChainFile(const nlohmann::json& j, const std::string& path);
StatusOr<RecordedChain> ReadChainFile(const std::string& path);

// Empty when `got` reproduces `recorded` (same dim, steps, spacing and every checkpoint), else
// the first difference in words ("checkpoint 3 (step 300): link 1f.. where the record has 9a..").
// BLAKE2b-128 in lowercase hex of float64 values' little-endian bytes: a rollout's z0_hash and
// a_hash.
std::string F64HashHex(std::span<const double> values);

// Empty when the record names no input hashes or names these, else the first that differs
// ("a_hash 1f.. where the record has 9a.."): a record made from other inputs cannot be reproduced.
std::string CompareRecordedInputs(const RecordedChain& recorded, const std::string& z0_hash,
                                  const std::string& a_hash);

std::string CompareWithRecordedChain(const RecordedChain& recorded, int64_t dim, int64_t steps,
                                     int64_t hash_every, std::span<const ChainCheckpoint> got);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_CHAIN_JSON_H_
