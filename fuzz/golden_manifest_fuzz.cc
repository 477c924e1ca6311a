// libFuzzer target for the golden manifest, read as `dashi golden verify` reads it: ReadJson then
// ParseGoldenManifest. Any input must give entries and problems, or an error with a message; every
// entry it keeps has a plain file name (no '/', no "..").
#include <cstdint>

#include "fuzz/fuzz_input.h"
#include "tools/cli_util.h"
#include "tools/golden/golden_set.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dashi;
  const std::string path = fuzz::InputAsFile(data, size, "manifest.json");
  StatusOr<nlohmann::json> j = tools::ReadJson(path);
  if (!j.ok()) {
    fuzz::RequireMessage("golden_manifest_fuzz", j.status());
    return 0;
  }
  StatusOr<tools::GoldenManifest> m = tools::ParseGoldenManifest(*j, path);
  if (!m.ok()) {
    fuzz::RequireMessage("golden_manifest_fuzz", m.status());
    return 0;
  }
  for (const tools::GoldenManifestEntry& e : m->entries) {
    if (e.file.find('/') != std::string::npos || e.file.find("..") != std::string::npos) {
      fuzz::Broken("golden_manifest_fuzz", "kept an entry whose file is not a plain name: " + e.file);
    }
  }
  for (const std::string& p : m->problems) {
    if (p.empty()) fuzz::Broken("golden_manifest_fuzz", "an empty problem");
  }
  return 0;
}
