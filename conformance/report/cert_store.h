// The certification store that `dashi conform` writes and every Vulkan run consults
// (docs/CONFORMANCE.md, certification). A certification is keyed by (device UUID, driver version,
// accelerator build id, suite id); the store keeps the whole report, sealed with a keyed
// BLAKE2b-256 MAC under a per-store key (`store.key`, 32 random bytes, mode 0600, created on first
// use). Looking a device up re-checks the record: MAC, the key fields, validation and
// synchronisation validation on, no filter, counts consistent, every case of the current suite
// present once and PASS. Anything else is refused with the file and the problem; nothing throws.
//
//   DASHI_RETURN_IF_ERROR(SaveCertification(store, report));
//   CertLookup c = LookUpCertification(store, device, key);  // c.state, c.reason
#ifndef DASHI_CONFORMANCE_REPORT_CERT_STORE_H_
#define DASHI_CONFORMANCE_REPORT_CERT_STORE_H_

#include <string>
#include <vector>

#include "accel_vulkan/context.h"
#include "conformance/report/conformance_report.h"
#include "core_ref/status/status.h"

namespace dashi::conformance {

struct CertKey {
  std::string accelerator_build;  // what the accelerator was built from (sources, flags, SPIR-V)
  std::string suite_id;  // SuiteId(): the cases, their measures and tolerances, golden data, code
};

// $DASHI_CERT_STORE, else $XDG_DATA_HOME/dashi/certifications, else
// ~/.local/share/dashi/certifications.
std::string DefaultCertStore();
// "<uuid>_<driver version>_<accelerator build>_<suite id>.json"
std::string CertFileName(const vk::DeviceInfo& device, const CertKey& key);

// Writes the report (with its key fields) and its MAC. A filtered run is refused: it certifies
// nothing.
Status SaveCertification(const std::string& store, const SuiteReport& r);

enum class CertState { kCertified, kFailed, kUncertified };
const char* CertStateName(CertState s);  // "certified", "failed", "uncertified"

struct CertLookup {
  CertState state = CertState::kUncertified;
  std::string reason;  // why, in words naming the file: "no record ...", "refused: ..."
};
// What the store says about this device for this binary's key.
CertLookup LookUpCertification(const std::string& store, const vk::DeviceInfo& device,
                               const CertKey& key);

// The case names the current suite consists of (sorted), for the re-check.
std::vector<std::string> CurrentSuiteCaseNames();

namespace cert_internal {
// The MAC of a record's text without its "mac" field, with the store's key (tests forge with it).
StatusOr<std::string> RecordMac(const std::string& store, const std::string& record_without_mac);
}  // namespace cert_internal

}  // namespace dashi::conformance

#endif  // DASHI_CONFORMANCE_REPORT_CERT_STORE_H_
