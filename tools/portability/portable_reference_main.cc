// The reference results that tools/portability/check.sh compares across compilers, CPU feature
// sets and architectures: the golden set, and the default pipeline run's hash chain. A small
// binary with no Vulkan, CLI or image dependency, so it cross-builds from the same sources.
//
//   portable_reference golden DIR   # writes the golden set (.npy + manifest.json) into DIR
//   portable_reference chain        # prints the final hash-chain link of the default run
#include <cstdio>
#include <string>

#include "core_ref/blake2b/blake2b.h"
#include "core_ref/pipeline/pipeline.h"
#include "tools/golden/golden_set.h"

namespace {

int Usage() {
  std::fprintf(stderr, "usage: portable_reference golden DIR | portable_reference chain\n");
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  const std::string command = argc > 1 ? argv[1] : "";
  if (command == "golden" && argc == 3) {
    const dashi::Status st = dashi::tools::GenerateGoldenSet(argv[2]);
    if (!st.ok()) {
      std::fprintf(stderr, "golden: %s\n", st.ToString().c_str());
      return 1;
    }
    return 0;
  }
  if (command == "chain" && argc == 2) {
    dashi::PipelineParams p;  // the defaults of `dashi run`
    p.snapshots = 1;          // decoding does not enter the chain
    const dashi::StatusOr<dashi::PipelineResult> r = dashi::RunPipeline(p);
    if (!r.ok()) {
      std::fprintf(stderr, "chain: %s\n", r.status().ToString().c_str());
      return 1;
    }
    // One final link per eval trajectory, space-separated.
    std::string links;
    for (const dashi::EvalTrajectory& e : r->eval) {
      links += (links.empty() ? "" : " ") + dashi::ToHex(e.chain.back().link);
    }
    std::printf("%s\n", links.c_str());
    return 0;
  }
  return Usage();
}
