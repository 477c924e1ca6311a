#include "shaders/registry.h"

#include <algorithm>

#include "core_ref/blake2b/blake2b.h"

namespace dashi::spirv {
namespace {
std::vector<ShaderModuleInfo>& Modules() {
  static auto* m = new std::vector<ShaderModuleInfo>();
  return *m;
}
}  // namespace

bool RegisterShader(const char* name, const uint32_t* words, size_t word_count) {
  Modules().push_back({name, words, word_count});
  return true;
}

std::vector<ShaderModuleInfo> RegisteredShaders() {
  std::vector<ShaderModuleInfo> out = Modules();
  std::sort(out.begin(), out.end(),
            [](const ShaderModuleInfo& a, const ShaderModuleInfo& b) { return a.name < b.name; });
  return out;
}

std::string ShaderBuildHash() {
  StatusOr<Blake2b> h = Blake2b::Create(16);
  if (!h.ok()) return "";
  for (const ShaderModuleInfo& m : RegisteredShaders()) {
    h->Update(m.name.data(), m.name.size() + 1);  // includes the terminating NUL as separator
    const uint64_t n = m.word_count;
    uint8_t len[8];
    for (int i = 0; i < 8; ++i) len[i] = static_cast<uint8_t>(n >> (8 * i));
    h->Update(len, 8);
    for (size_t w = 0; w < m.word_count; ++w) {
      uint8_t b[4];
      for (int i = 0; i < 4; ++i) b[i] = static_cast<uint8_t>(m.words[w] >> (8 * i));
      h->Update(b, 4);
    }
  }
  return ToHex(h->Finalize());
}

}  // namespace dashi::spirv
