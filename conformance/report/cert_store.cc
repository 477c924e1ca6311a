#include "conformance/report/cert_store.h"

#include <fcntl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <map>

#include "core_ref/blake2b/blake2b.h"
#include "core_ref/fileio/atomic_file.h"
#include "core_ref/fileio/errno_status.h"
#include "core_ref/fileio/input_file.h"
#include "json_input/json_input.h"

namespace dashi::conformance {
namespace {

constexpr size_t kStoreKeyBytes = 32;
constexpr char kStoreKeyName[] = "store.key";

std::string KeyPath(const std::string& store) { return store + "/" + kStoreKeyName; }

// Reads the store's key: a regular file of exactly 32 bytes that only its owner can read.
StatusOr<std::vector<uint8_t>> ReadStoreKey(const std::string& store) {
  const std::string path = KeyPath(store);
  StatusOr<InputFile> opened = InputFile::Open(path);
  if (!opened.ok()) {
    // InputFile's messages name the problem only ("no such file"): name the key file too.
    return Status(opened.status().code(), "the store's key " + path + ": " +
                                              std::string(opened.status().message()));
  }
  const InputFile& f = *opened;
  struct stat st {};
  if (::fstat(f.fd(), &st) != 0) return ErrnoStatus(errno, path + ": cannot stat");
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%04o", static_cast<unsigned>(st.st_mode & 07777));
    return FailedPreconditionError(path + ": mode " + mode +
                                   " lets others read the store's key; it must be 0600");
  }
  DASHI_ASSIGN_OR_RETURN(std::vector<uint8_t> key, ReadFileBytes(path));
  if (key.size() != kStoreKeyBytes) {
    return DataLossError(path + ": " + std::to_string(key.size()) + " bytes, expected " +
                         std::to_string(kStoreKeyBytes));
  }
  return key;
}

// The key, created (32 bytes from getrandom, mode 0600, exclusively) when the store has none.
StatusOr<std::vector<uint8_t>> GetOrCreateStoreKey(const std::string& store) {
  StatusOr<std::vector<uint8_t>> key = ReadStoreKey(store);
  if (key.ok() || key.status().code() != StatusCode::kNotFound) return key;
  std::vector<uint8_t> fresh(kStoreKeyBytes);
  size_t got = 0;
  while (got < fresh.size()) {
    const ssize_t r = ::getrandom(fresh.data() + got, fresh.size() - got, 0);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) return ErrnoStatus(errno, "getrandom failed for the store key");
    got += static_cast<size_t>(r);
  }
  const std::string path = KeyPath(store);
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    if (errno == EEXIST) return ReadStoreKey(store);  // another process made it first
    return ErrnoStatus(errno, path + ": cannot create the store key");
  }
  const ssize_t w = ::write(fd, fresh.data(), fresh.size());
  const bool synced = ::fsync(fd) == 0;
  ::close(fd);
  if (w != static_cast<ssize_t>(fresh.size()) || !synced) {
    ::unlink(path.c_str());
    return UnavailableError(path + ": cannot write the store key");
  }
  return fresh;
}

StatusOr<std::string> MacWithKey(std::span<const uint8_t> key, const std::string& text) {
  DASHI_ASSIGN_OR_RETURN(
      std::vector<uint8_t> mac,
      Blake2bDigest(32, std::span<const uint8_t>(
                            reinterpret_cast<const uint8_t*>(text.data()), text.size()),
                    key));
  return ToHex(mac);
}

// A number field (an integer or a floating-point value) as a double; anything else is an error.
StatusOr<double> NumberField(const nlohmann::json& obj, const char* key, const std::string& what) {
  if (!obj.is_object() || !obj.contains(key) || !obj[key].is_number()) {
    return InvalidArgumentError(what + ": \"" + key + "\" is missing or not a number");
  }
  return obj[key].get<double>();
}

CertLookup Refused(const std::string& why) {
  return {CertState::kUncertified, "refused: " + why};
}

// How many records of this device for other keys the store holds (for the message).
int OtherRecordsOfDevice(const std::string& store, const vk::DeviceInfo& device,
                         const std::string& this_file) {
  int n = 0;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator(store, ec)) {
    const std::string name = e.path().filename().string();
    if (name != this_file && name.rfind(device.uuid + "_", 0) == 0) ++n;
  }
  return n;
}

}  // namespace

std::string DefaultCertStore() {
  if (const char* s = std::getenv("DASHI_CERT_STORE"); s != nullptr && *s) return s;
  if (const char* x = std::getenv("XDG_DATA_HOME"); x != nullptr && *x) {
    return std::string(x) + "/dashi/certifications";
  }
  const char* home = std::getenv("HOME");
  return std::string(home != nullptr ? home : ".") + "/.local/share/dashi/certifications";
}

std::string CertFileName(const vk::DeviceInfo& device, const CertKey& key) {
  return device.uuid + "_" + std::to_string(device.driver_version) + "_" +
         key.accelerator_build + "_" + key.suite_id + ".json";
}

std::vector<std::string> CurrentSuiteCaseNames() {
  std::vector<std::string> names;
  for (const ConformanceCase& c : AllCases()) names.push_back(c.name);
  std::sort(names.begin(), names.end());
  return names;
}

std::map<std::string, double> CurrentSuiteTolerances() {
  std::map<std::string, double> tolerances;
  for (const ConformanceCase& c : AllCases()) tolerances.emplace(c.name, c.tolerance);
  return tolerances;
}

namespace cert_internal {

StatusOr<std::string> RecordMac(const std::string& store, const std::string& record_without_mac) {
  DASHI_ASSIGN_OR_RETURN(std::vector<uint8_t> key, ReadStoreKey(store));
  return MacWithKey(key, record_without_mac);
}

}  // namespace cert_internal

Status SaveCertification(const std::string& store, const SuiteReport& r) {
  if (!r.filter.empty()) {
    return InvalidArgumentError("a run with --filter '" + r.filter + "' certifies nothing");
  }
  std::error_code ec;
  std::filesystem::create_directories(store, ec);
  if (ec) {
    return InvalidArgumentError(store + ": cannot create the certification store: " +
                                ec.message());
  }
  DASHI_ASSIGN_OR_RETURN(std::vector<uint8_t> key, GetOrCreateStoreKey(store));
  nlohmann::json record = ReportJson(r);
  DASHI_ASSIGN_OR_RETURN(
      std::string mac,
      MacWithKey(key, record.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)));
  record["mac"] = mac;
  return WriteFileAtomically(
      store + "/" + CertFileName(r.device, {r.accelerator_build, r.suite_id}),
      record.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

const char* CertStateName(CertState s) {
  switch (s) {
    case CertState::kCertified: return "certified";
    case CertState::kFailed: return "failed";
    case CertState::kUncertified: return "uncertified";
  }
  return "uncertified";
}

CertLookup LookUpCertification(const std::string& store, const vk::DeviceInfo& device,
                               const CertKey& key) {
  if (key.suite_id.empty()) {
    return {CertState::kUncertified,
            "this binary links no conformance case (empty suite id), so nothing can certify it"};
  }
  const std::string file = CertFileName(device, key);
  const std::string what = store + "/" + file;
  StatusOr<std::vector<uint8_t>> bytes = ReadFileBytes(what);
  if (!bytes.ok() && bytes.status().code() == StatusCode::kNotFound) {
    const int others = OtherRecordsOfDevice(store, device, file);
    return {CertState::kUncertified,
            "no record for this device, driver, accelerator build " + key.accelerator_build +
                " and suite " + key.suite_id + " in " + store +
                (others > 0 ? " (" + std::to_string(others) +
                                  " record(s) of this device for other drivers, builds or suites: "
                                  "they do not certify this binary)"
                            : "")};
  }
  if (!bytes.ok()) return Refused(std::string(bytes.status().message()));
  StatusOr<nlohmann::json> parsed = ParseJsonInput(*bytes, what);
  if (!parsed.ok()) return Refused(std::string(parsed.status().message()));
  nlohmann::json j = std::move(*parsed);
  if (!j.is_object()) return Refused(what + ": not a JSON object");

  // The seal first: an edited or hand-written record stops here.
  StatusOr<std::string> mac = StringField(j, "mac", what);
  if (!mac.ok()) {
    return Refused(what + ": no MAC (\"mac\"): not a record written by `dashi conform`");
  }
  j.erase("mac");
  StatusOr<std::string> expected = cert_internal::RecordMac(
      store, j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
  if (!expected.ok()) {
    return Refused(std::string(expected.status().message()) +
                   " (without the store's key no record in it can be trusted)");
  }
  if (*mac != *expected) {
    return Refused(what + ": the MAC does not match: the record was edited after `dashi "
                          "conform` wrote it, or written with another store's key");
  }

  // Then what it says, re-checked against this binary.
  StatusOr<std::string> format = StringField(j, "format", what);
  if (!format.ok() || *format != kConformanceReportFormat) {
    return Refused(what + ": not a " + kConformanceReportFormat + " record");
  }
  StatusOr<const nlohmann::json*> d = ObjectField(j, "device", what);
  if (!d.ok()) return Refused(std::string(d.status().message()));
  StatusOr<std::string> uuid = StringField(**d, "uuid", what);
  StatusOr<uint64_t> driver = UintField(**d, "driver_version", what);
  if (!uuid.ok() || !driver.ok() || *uuid != device.uuid || *driver != device.driver_version) {
    return Refused(what + ": names another device or driver");
  }
  for (const auto& [field, want] : {std::pair{"accelerator_build", key.accelerator_build},
                                    std::pair{"suite_id", key.suite_id}}) {
    StatusOr<std::string> got = StringField(j, field, what);
    if (!got.ok()) return Refused(std::string(got.status().message()));
    if (*got != want) {
      return Refused(what + ": made with " + field + " " + *got + ", this binary's is " + want +
                     " (certify this build with `dashi conform`)");
    }
  }
  for (const char* flag : {"validation_layer", "sync_validation"}) {
    if (!j.contains(flag) || !j[flag].is_boolean() || !j[flag].get<bool>()) {
      return Refused(what + ": \"" + flag + "\" is not true: only a run with validation certifies");
    }
  }
  StatusOr<std::string> filter = StringField(j, "filter", what);
  if (!filter.ok() || !filter->empty()) return Refused(what + ": a filtered run certifies nothing");

  StatusOr<const nlohmann::json*> cases = ArrayField(j, "cases", what);
  if (!cases.ok()) return Refused(std::string(cases.status().message()));
  std::map<std::string, std::string> verdicts;
  const std::map<std::string, double> tolerances = CurrentSuiteTolerances();
  int passed = 0, failed = 0, not_supported = 0;
  std::string first_failure;
  for (const nlohmann::json& c : **cases) {
    StatusOr<std::string> name = StringField(c, "name", what);
    StatusOr<std::string> verdict = StringField(c, "verdict", what);
    if (!name.ok() || !verdict.ok()) return Refused(what + ": a case without name or verdict");
    if (!verdicts.emplace(*name, *verdict).second) {
      return Refused(what + ": case " + *name + " appears twice");
    }
    if (*verdict != "PASS" && *verdict != "FAIL" && *verdict != "NOT_SUPPORTED") {
      return Refused(what + ": case " + *name + " has the verdict \"" + *verdict +
                     "\", not PASS, FAIL or NOT_SUPPORTED");
    }
    if (*verdict == "PASS") {
      // A PASS stands only with this suite's tolerance for the case and a measured value
      // within it (what RunCase decided, re-checked).
      const auto t = tolerances.find(*name);
      StatusOr<double> tolerance = NumberField(c, "tolerance", what);
      StatusOr<double> measured = NumberField(c, "measured", what);
      if (t != tolerances.end() && (!tolerance.ok() || *tolerance != t->second)) {
        return Refused(what + ": case " + *name + " records a tolerance other than this suite's");
      }
      if (!measured.ok() || !tolerance.ok() || !(*measured <= *tolerance)) {
        return Refused(what + ": case " + *name + " is PASS with a measured value not within its "
                              "tolerance");
      }
      ++passed;
    } else {
      if (first_failure.empty()) first_failure = *name + " " + *verdict;
      ++(*verdict == "FAIL" ? failed : not_supported);
    }
  }
  StatusOr<const nlohmann::json*> summary = ObjectField(j, "summary", what);
  if (!summary.ok()) return Refused(std::string(summary.status().message()));
  StatusOr<int64_t> s_passed = IntField(**summary, "passed", what);
  StatusOr<int64_t> s_failed = IntField(**summary, "failed", what);
  StatusOr<int64_t> s_ns = IntField(**summary, "not_supported", what);
  if (!s_passed.ok() || !s_failed.ok() || !s_ns.ok() || *s_passed != passed ||
      *s_failed != failed || *s_ns != not_supported) {
    return Refused(what + ": the summary does not count the cases' verdicts");
  }
  StatusOr<std::string> verdict = StringField(j, "verdict", what);
  if (!verdict.ok()) return Refused(std::string(verdict.status().message()));
  if (*verdict != "PASS" && *verdict != "FAIL") {
    return Refused(what + ": the suite's verdict \"" + *verdict + "\" is neither PASS nor FAIL");
  }
  if (*verdict != "PASS") {
    return {CertState::kFailed, "the suite failed on this device (" + std::to_string(failed) +
                                    " failed, " + std::to_string(not_supported) +
                                    " not supported; first: " + first_failure + ") per " + what};
  }
  if (failed != 0 || not_supported != 0 || passed == 0) {
    return Refused(what + ": verdict PASS with " + first_failure);
  }
  for (const std::string& name : CurrentSuiteCaseNames()) {
    if (verdicts.count(name) == 0) return Refused(what + ": case " + name + " of this suite is missing");
  }
  if (verdicts.size() != CurrentSuiteCaseNames().size()) {
    return Refused(what + ": holds cases this suite does not have");
  }
  return {CertState::kCertified, "certified by " + what};
}

}  // namespace dashi::conformance
