#include "tools/chain_json.h"

#include "core_ref/blake2b/blake2b.h"

namespace dashi::tools {

nlohmann::json ChainFileJson(const ChainFile& f) {
  nlohmann::json checkpoints = nlohmann::json::array();
  for (const ChainCheckpoint& c : f.chain) {
    checkpoints.push_back(
        {{"step", c.step}, {"state_hash", ToHex(c.state_hash)}, {"link", ToHex(c.link)}});
  }
  return {{"provenance", f.provenance},
          {"dim", f.dim},
          {"steps", f.steps},
          {"hash_every", f.hash_every},
          {"hash",
           "BLAKE2b-128; state_hash = H(LE f64 bytes of z), link = H(prev link || state_hash)"},
          {"summation_order", "canonical chunked (docs/MATH.md)"},
          {"final_link", FinalLinkHex(f.chain)},
          {"checkpoints", checkpoints}};
}

std::string FinalLinkHex(std::span<const ChainCheckpoint> chain) {
  return chain.empty() ? std::string() : ToHex(chain.back().link);
}

}  // namespace dashi::tools
