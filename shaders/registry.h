// Every SPIR-V module built by shaders/defs.bzl registers itself here at static initialisation,
// so a binary can name the exact shader build it carries: ShaderBuildHash() is the BLAKE2b-128 of
// the sorted (name, SPIR-V words) of every linked module. Conformance reports and certifications
// are keyed by it.
#ifndef DASHI_SHADERS_REGISTRY_H_
#define DASHI_SHADERS_REGISTRY_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace dashi::spirv {

struct ShaderModuleInfo {
  std::string name;  // "shaders/rollout/rollout_partials_fc0"
  const uint32_t* words;
  size_t word_count;
};

bool RegisterShader(const char* name, const uint32_t* words, size_t word_count);
std::vector<ShaderModuleInfo> RegisteredShaders();  // sorted by name
std::string ShaderBuildHash();                      // 32 lowercase hex characters

}  // namespace dashi::spirv

#endif  // DASHI_SHADERS_REGISTRY_H_
