// libFuzzer target for certification records, read the way `dashi devices`, `dashi run --backend
// vulkan` and `--allow-uncertified` read them: the input becomes the record a fixed device and
// key look up in a store. Any input must give a state and a reason (never an exception or a
// crash); only a record naming exactly that device, driver, build and suite with verdict PASS
// certifies (and without the store's MAC key none can).
#include <cstdint>
#include <span>
#include <string>

#include "conformance/report/cert_store.h"
#include "fuzz/fuzz_input.h"
#include "json_input/json_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace dashi;
  vk::DeviceInfo device;
  device.name = "fuzz device";
  device.uuid = "00112233-4455-6677-8899-aabbccddeeff";
  device.driver_version = 42;
  const conformance::CertKey key = {"fuzzbuild", "fuzzsuite"};
  const std::string store = fuzz::ScratchDir();
  fuzz::InputAsFile(data, size, conformance::CertFileName(device, key));
  const conformance::CertLookup lookup = conformance::LookUpCertification(store, device, key);
  if (lookup.reason.empty()) fuzz::Broken("cert_record_fuzz", "a lookup without a reason");
  if (lookup.state == conformance::CertState::kCertified) {
    // Independently of the reader: the record must name the device, driver and build, say PASS.
    StatusOr<nlohmann::json> j = ParseJsonInput(std::span<const uint8_t>(data, size), "record");
    const auto is = [](const nlohmann::json& v, const char* key, const nlohmann::json& want) {
      return v.is_object() && v.contains(key) && v[key] == want;
    };
    if (!j.ok() || !j->is_object() || !j->contains("device") ||
        !is((*j)["device"], "uuid", device.uuid) ||
        !is((*j)["device"], "driver_version", device.driver_version) ||
        !is(*j, "accelerator_build", key.accelerator_build) ||
        !is(*j, "suite_id", key.suite_id) || !is(*j, "verdict", "PASS")) {
      fuzz::Broken("cert_record_fuzz", "certified by a record that does not name the device, "
                                       "driver and build with verdict PASS");
    }
  }
  return 0;
}
