#include "tools/chain_json.h"

#include "core_ref/blake2b/blake2b.h"

namespace dashi::tools {

nlohmann::json ChainJson(std::span<const ChainCheckpoint> chain) {
  nlohmann::json out = nlohmann::json::array();
  for (const ChainCheckpoint& c : chain) {
    out.push_back(
        {{"step", c.step}, {"state_hash", ToHex(c.state_hash)}, {"link", ToHex(c.link)}});
  }
  return out;
}

}  // namespace dashi::tools
