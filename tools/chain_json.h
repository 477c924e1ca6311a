// The rollout hash chain as JSON: [{"step", "state_hash", "link"}, ...] with lowercase hex.
#ifndef DASHI_TOOLS_CHAIN_JSON_H_
#define DASHI_TOOLS_CHAIN_JSON_H_

#include <span>

#include <nlohmann/json.hpp>

#include "core_ref/rollout/rollout.h"

namespace dashi::tools {

nlohmann::json ChainJson(std::span<const ChainCheckpoint> chain);

}  // namespace dashi::tools

#endif  // DASHI_TOOLS_CHAIN_JSON_H_
