// The certification store (issue 11 #6, #7; issue 12 #2): a record certifies only when its MAC
// under the store's key holds and, re-checked, it names this device, driver, accelerator build and
// suite, ran with validation and no filter, and has every case of the current suite PASS. Edited,
// hand-written, type-confused, older-build and filtered records are refused with the file and the
// problem; nothing throws. (The carrier cases are linked so that the suite is not empty.)
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "conformance/report/cert_store.h"
#include "conformance/report/conformance_report.h"

namespace dashi::conformance {
namespace {

namespace fs = std::filesystem;

class CertStoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* t = std::getenv("TEST_TMPDIR");
    store_ = std::string(t != nullptr ? t : "/tmp") + "/cert_store_" +
             ::testing::UnitTest::GetInstance()->current_test_info()->name();
    fs::remove_all(store_);
    dev_.name = "lavapipe";
    dev_.uuid = "6d657361-3232-2e33-2e36-000000000000";
    dev_.driver_version = 1;
    key_ = {"a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1a1", SuiteId()};
    ASSERT_FALSE(key_.suite_id.empty()) << "no case linked: the suite would be empty";
  }

  // A report of the whole current suite, every case PASS, with validation and no filter.
  SuiteReport GoodReport() const {
    SuiteReport r;
    r.device = dev_;
    r.validation = true;
    r.accelerator_build = key_.accelerator_build;
    r.suite_id = key_.suite_id;
    for (const ConformanceCase& suite_case : AllCases()) {
      CaseRecord c;
      c.name = suite_case.name;
      c.tolerance = suite_case.tolerance;
      c.result.verdict = Verdict::kPass;
      c.result.measured = 0;
      r.cases.push_back(c);
      ++r.passed;
    }
    return r;
  }

  std::string File() const { return store_ + "/" + CertFileName(dev_, key_); }
  nlohmann::json Read() const {
    std::ifstream f(File());
    return nlohmann::json::parse(f);
  }
  void Write(const std::string& text) const { std::ofstream(File(), std::ios::trunc) << text; }
  // Writes `j` re-sealed with the store's own key: what only someone holding the key can do.
  void WriteResealed(nlohmann::json j) const {
    j.erase("mac");
    StatusOr<std::string> mac = cert_internal::RecordMac(store_, j.dump());
    ASSERT_TRUE(mac.ok()) << mac.status().ToString();
    j["mac"] = *mac;
    Write(j.dump(2));
  }
  CertLookup LookUp() const { return LookUpCertification(store_, dev_, key_); }

  std::string store_;
  vk::DeviceInfo dev_;
  CertKey key_;
};

#define EXPECT_REFUSED(lookup, text)                                            \
  do {                                                                          \
    const CertLookup l_ = (lookup);                                             \
    EXPECT_EQ(l_.state, CertState::kUncertified) << l_.reason;                 \
    EXPECT_NE(l_.reason.find(text), std::string::npos) << l_.reason;            \
  } while (0)

TEST_F(CertStoreTest, AGenuineRecordCertifiesAndTheKeyIsPrivate) {
  EXPECT_EQ(LookUp().state, CertState::kUncertified);
  EXPECT_NE(LookUp().reason.find("no record"), std::string::npos) << LookUp().reason;
  ASSERT_TRUE(SaveCertification(store_, GoodReport()).ok());
  const CertLookup l = LookUp();
  EXPECT_EQ(l.state, CertState::kCertified) << l.reason;
  struct stat st {};
  ASSERT_EQ(::stat((store_ + "/store.key").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  EXPECT_EQ(st.st_size, 32);
}

TEST_F(CertStoreTest, EveryCaseFailWithTheVerdictLeftPassIsRefused) {
  ASSERT_TRUE(SaveCertification(store_, GoodReport()).ok());
  nlohmann::json j = Read();
  for (nlohmann::json& c : j["cases"]) c["verdict"] = "FAIL";
  Write(j.dump(2));
  EXPECT_REFUSED(LookUp(), "the MAC does not match");
  // Even re-sealed with the key (a writer bug, or someone holding it), the re-check refuses it.
  WriteResealed(j);
  EXPECT_REFUSED(LookUp(), "the summary does not count");
  j["summary"]["passed"] = 0;
  j["summary"]["failed"] = j["cases"].size();
  WriteResealed(j);
  EXPECT_REFUSED(LookUp(), "verdict PASS with");
}

TEST_F(CertStoreTest, AHandWrittenRecordIsRefused) {
  ASSERT_TRUE(SaveCertification(store_, GoodReport()).ok());  // the store has a key
  Write(R"({"device": {"uuid": ")" + dev_.uuid +
        R"(", "driver_version": 1}, "shader_build": "x", "verdict": "PASS"})");
  EXPECT_REFUSED(LookUp(), "no MAC");
  Write(std::string(100000, '[') + std::string(100000, ']'));
  EXPECT_REFUSED(LookUp(), "nest");
  for (const char* bad : {R"([1, 2])", R"({"mac": 5})", R"({"mac": "00", "device": []})", ""}) {
    Write(bad);
    EXPECT_EQ(LookUp().state, CertState::kUncertified) << bad;
  }
}

TEST_F(CertStoreTest, ARecordOfAnOlderAcceleratorBuildDoesNotCertify) {
  SuiteReport old = GoodReport();
  old.accelerator_build = "00000000000000000000000000000000";
  ASSERT_TRUE(SaveCertification(store_, old).ok());
  EXPECT_REFUSED(LookUp(), "1 record(s) of this device for other drivers, builds or suites");
  // The older build's genuine record renamed to this build's name.
  fs::rename(store_ + "/" + CertFileName(dev_, {old.accelerator_build, old.suite_id}), File());
  EXPECT_REFUSED(LookUp(), "made with accelerator_build 00000000000000000000000000000000");
}

TEST_F(CertStoreTest, ReChecksValidationFilterAndMissingCases) {
  SuiteReport filtered = GoodReport();
  filtered.filter = "carrier";
  EXPECT_FALSE(SaveCertification(store_, filtered).ok());
  ASSERT_TRUE(SaveCertification(store_, GoodReport()).ok());
  nlohmann::json j = Read();
  nlohmann::json no_validation = j;
  no_validation["sync_validation"] = false;
  WriteResealed(no_validation);
  EXPECT_REFUSED(LookUp(), "\"sync_validation\" is not true");
  nlohmann::json missing = j;
  const std::string dropped = missing["cases"].back()["name"];
  missing["cases"].erase(missing["cases"].size() - 1);
  missing["summary"]["passed"] = missing["cases"].size();
  WriteResealed(missing);
  EXPECT_REFUSED(LookUp(), "case " + dropped + " of this suite is missing");
  nlohmann::json twice = j;
  twice["cases"].push_back(twice["cases"][0]);
  twice["summary"]["passed"] = twice["cases"].size();
  WriteResealed(twice);
  EXPECT_REFUSED(LookUp(), "appears twice");
}

TEST_F(CertStoreTest, AFailedSuiteReadsAsFailed) {
  SuiteReport r = GoodReport();
  r.cases[0].result.verdict = Verdict::kFail;
  r.passed -= 1;
  r.failed = 1;
  ASSERT_TRUE(SaveCertification(store_, r).ok());
  const CertLookup l = LookUp();
  EXPECT_EQ(l.state, CertState::kFailed) << l.reason;
  EXPECT_NE(l.reason.find(r.cases[0].name + " FAIL"), std::string::npos) << l.reason;
}

TEST_F(CertStoreTest, AStoreKeyOthersCanReadOrOfTheWrongSizeIsRefused) {
  ASSERT_TRUE(SaveCertification(store_, GoodReport()).ok());
  ASSERT_EQ(::chmod((store_ + "/store.key").c_str(), 0644), 0);
  EXPECT_REFUSED(LookUp(), "lets others read the store's key");
  ASSERT_EQ(::chmod((store_ + "/store.key").c_str(), 0600), 0);
  std::ofstream(store_ + "/store.key", std::ios::app) << "x";
  EXPECT_REFUSED(LookUp(), "33 bytes, expected 32");
  fs::remove(store_ + "/store.key");
  EXPECT_REFUSED(LookUp(), "without the store's key");
  EXPECT_REFUSED(LookUp(), "the store's key " + store_ + "/store.key: no such file");
}

// What only a holder of the key could write: each is refused by the re-check, not the MAC.
TEST_F(CertStoreTest, ResealedRecordsWithWrongFormatVerdictsOrMeasuresAreRefused) {
  ASSERT_TRUE(SaveCertification(store_, GoodReport()).ok());
  const nlohmann::json j = Read();
  ASSERT_EQ(LookUp().state, CertState::kCertified) << LookUp().reason;
  nlohmann::json other_format = j;
  other_format["format"] = "dashi-conformance/2";
  WriteResealed(other_format);
  EXPECT_REFUSED(LookUp(), "not a dashi-conformance/1 record");
  nlohmann::json lower_case = j;
  lower_case["cases"][0]["verdict"] = "pass";
  WriteResealed(lower_case);
  EXPECT_REFUSED(LookUp(), "has the verdict \"pass\", not PASS, FAIL or NOT_SUPPORTED");
  nlohmann::json suite_lower = j;
  suite_lower["verdict"] = "pass";
  WriteResealed(suite_lower);
  EXPECT_REFUSED(LookUp(), "the suite's verdict \"pass\" is neither PASS nor FAIL");
  const std::string name = j["cases"][0]["name"];
  const double tolerance = j["cases"][0]["tolerance"];
  nlohmann::json above = j;
  above["cases"][0]["measured"] = tolerance + 5.0;
  WriteResealed(above);
  EXPECT_REFUSED(LookUp(), "case " + name + " is PASS with a measured value not within");
  nlohmann::json no_measure = j;
  no_measure["cases"][0]["measured"] = nullptr;
  WriteResealed(no_measure);
  EXPECT_REFUSED(LookUp(), "case " + name + " is PASS with a measured value not within");
  nlohmann::json loosened = j;
  loosened["cases"][0]["tolerance"] = tolerance + 10.0;
  loosened["cases"][0]["measured"] = tolerance + 5.0;
  WriteResealed(loosened);
  EXPECT_REFUSED(LookUp(), "case " + name + " records a tolerance other than this suite's");
}

TEST_F(CertStoreTest, TypeConfusedRecordsAreRefusedWithoutThrowing) {
  ASSERT_TRUE(SaveCertification(store_, GoodReport()).ok());
  const nlohmann::json j = Read();
  for (const auto& [path, value] :
       {std::pair<std::string, nlohmann::json>{"/device/uuid", 5},
        {"/device/driver_version", "1"},
        {"/device", nlohmann::json::array()},
        {"/accelerator_build", 7},
        {"/verdict", true},
        {"/cases", "all"},
        {"/cases/0", 3},
        {"/summary/passed", -1.5},
        {"/validation_layer", "yes"}}) {
    nlohmann::json bad = j;
    bad[nlohmann::json::json_pointer(path)] = value;
    WriteResealed(bad);
    EXPECT_EQ(LookUp().state, CertState::kUncertified) << path << ": " << LookUp().reason;
  }
}

}  // namespace
}  // namespace dashi::conformance
