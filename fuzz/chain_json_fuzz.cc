// libFuzzer target for chain files (`dashi rollout --expect-chain`): ReadChainFile then a
// comparison against itself. Any input must give a chain or an error with a message; a chain it
// accepts has increasing steps within `steps`, and compares equal to itself.
#include <cstdint>

#include "fuzz/fuzz_input.h"
#include "tools/chain_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dashi;
  const std::string path = fuzz::InputAsFile(data, size, "chain.json");
  StatusOr<tools::RecordedChain> c = tools::ReadChainFile(path);
  if (!c.ok()) {
    fuzz::RequireMessage("chain_json_fuzz", c.status());
    return 0;
  }
  int64_t previous = -1;
  for (const ChainCheckpoint& cp : c->chain) {
    if (cp.step <= previous || cp.step > c->steps) {
      fuzz::Broken("chain_json_fuzz", "accepted a checkpoint out of order or past the end");
    }
    previous = cp.step;
  }
  if (!tools::CompareWithRecordedChain(*c, c->dim, c->steps, c->hash_every, c->chain).empty()) {
    fuzz::Broken("chain_json_fuzz", "a chain differs from itself");
  }
  return 0;
}
