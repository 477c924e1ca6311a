// Issue 12 #2: a certification record with type-confused fields ("uuid": 5, a string driver
// version, an array for the device) used to throw out of LookUpCertification and kill `dashi
// devices` and `--allow-uncertified` runs. It now reads as "uncertified"; only a record naming
// this device, driver and shader build with the verdict PASS certifies.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "conformance/report/conformance_report.h"

namespace dashi::conformance {
namespace {

TEST(CertRecord, TypeConfusedRecordsReadAsUncertified) {
  const char* t = std::getenv("TEST_TMPDIR");
  const std::string store = std::string(t != nullptr ? t : "/tmp") + "/cert_store";
  std::filesystem::create_directories(store);
  vk::DeviceInfo dev;
  dev.uuid = "6d657361-3232-2e33-2e36-000000000000";
  dev.driver_version = 1;
  const std::string build = "e6419df2e2c607833ce19919fda450d3";
  const std::string file = store + "/" + CertFileName(dev, build);
  auto write = [&](const std::string& text) { std::ofstream(file, std::ios::trunc) << text; };
  const std::string good_device =
      R"({"uuid": "6d657361-3232-2e33-2e36-000000000000", "driver_version": 1})";
  write(R"({"device": )" + good_device + R"(, "shader_build": ")" + build + R"(", "verdict": "PASS"})");
  EXPECT_EQ(LookUpCertification(store, dev, build), CertState::kCertified);
  for (const std::string& bad : {
           std::string(R"({"device": {"uuid": 5, "driver_version": 1}, "shader_build": ")") + build + R"(", "verdict": "PASS"})",
           std::string(R"({"device": {"uuid": "6d657361-3232-2e33-2e36-000000000000", "driver_version": "1"}, "shader_build": ")") + build + R"(", "verdict": "PASS"})",
           std::string(R"({"device": [], "shader_build": ")") + build + R"(", "verdict": "PASS"})",
           std::string(R"({"device": )") + good_device + R"(, "shader_build": 7, "verdict": "PASS"})",
           std::string(R"({"device": )") + good_device + R"(, "shader_build": ")" + build + R"(", "verdict": true})",
           std::string(R"([1, 2])"),
           std::string(100000, '[') + std::string(100000, ']'),
       }) {
    write(bad);
    EXPECT_EQ(LookUpCertification(store, dev, build), CertState::kUncertified) << bad.substr(0, 80);
  }
}

}  // namespace
}  // namespace dashi::conformance
