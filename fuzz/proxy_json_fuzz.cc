// libFuzzer target for proxy.json, read the way `dashi decode --proxy` and `dashi learn` read it:
// ReadJson (size and nesting caps, no exceptions) then ProxySpecFromJson. Any input must give a
// spec or an error with a message; a spec it accepts must survive ProxySpecJson → parse unchanged.
#include <cstdint>

#include "fuzz/fuzz_input.h"
#include "tools/cli_util.h"
#include "tools/proxy_json.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dashi;
  const std::string path = fuzz::InputAsFile(data, size, "proxy.json");
  StatusOr<nlohmann::json> j = tools::ReadJson(path);
  if (!j.ok()) {
    fuzz::RequireMessage("proxy_json_fuzz", j.status());
    return 0;
  }
  StatusOr<ProxySpec> spec = tools::ProxySpecFromJson(*j, path);
  if (!spec.ok()) {
    fuzz::RequireMessage("proxy_json_fuzz", spec.status());
    return 0;
  }
  StatusOr<ProxySpec> again = tools::ProxySpecFromJson(tools::ProxySpecJson(*spec), path);
  if (!again.ok()) fuzz::Broken("proxy_json_fuzz", "a spec it accepted does not read back:", again.status());
  if (tools::ProxySpecJson(*again) != tools::ProxySpecJson(*spec)) {
    fuzz::Broken("proxy_json_fuzz", "a spec changed in a write/read round trip");
  }
  return 0;
}
