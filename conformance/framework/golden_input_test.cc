// Golden inputs are bound to the golden set the suite id names: an edited array, an edited
// manifest or an unlisted name is an error naming the file and the hashes, never a silent read.
#include "conformance/framework/golden_input.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "build_id/build_ids.h"

namespace dashi::conformance {
namespace {

namespace fs = std::filesystem;

class GoldenInputTest : public ::testing::Test {
 protected:
  void TearDown() override { ::unsetenv("DASHI_GOLDEN_DIR"); }

  // A copy of the checked-in golden set (the runfiles' golden/) in its own directory.
  std::string CopyOfGolden(const std::string& tag) {
    const char* t = std::getenv("TEST_TMPDIR");
    const std::string dir = std::string(t != nullptr ? t : "/tmp") + "/golden_" + tag;
    fs::remove_all(dir);
    fs::copy("golden", dir);
    return dir;
  }
  static void FlipLastByte(const std::string& path) {
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(-1, std::ios::end);
    char c = 0;
    f.get(c);
    f.seekp(-1, std::ios::end);
    f.put(static_cast<char>(c ^ 0x01));
  }
};

TEST_F(GoldenInputTest, ReadsTheCheckedInSet) {
  StatusOr<NpyArray> a = ReadGolden("carrier_32_field", {32, 32});
  ASSERT_TRUE(a.ok()) << a.status().ToString();
  const std::string dir = CopyOfGolden("copy");
  ::setenv("DASHI_GOLDEN_DIR", dir.c_str(), 1);
  EXPECT_TRUE(ReadGolden("carrier_32_field", {32, 32}).ok());
}

TEST_F(GoldenInputTest, RefusesAnEditedArray) {
  const std::string dir = CopyOfGolden("array");
  FlipLastByte(dir + "/carrier_32_field.npy");
  ::setenv("DASHI_GOLDEN_DIR", dir.c_str(), 1);
  StatusOr<NpyArray> a = ReadGolden("carrier_32_field", {32, 32});
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(a.status().message().find(dir + "/carrier_32_field.npy"), std::string::npos)
      << a.status().message();
  EXPECT_NE(a.status().message().find("manifest entry"), std::string::npos);
  // The other arrays still read.
  EXPECT_TRUE(ReadGolden("carrier_32_random").ok());
}

TEST_F(GoldenInputTest, RefusesAManifestOtherThanTheSuitesOne) {
  const std::string dir = CopyOfGolden("manifest");
  std::ofstream(dir + "/manifest.json", std::ios::app) << "\n";
  ::setenv("DASHI_GOLDEN_DIR", dir.c_str(), 1);
  StatusOr<NpyArray> a = ReadGolden("carrier_32_field");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(a.status().message().find(dir + "/manifest.json"), std::string::npos);
  EXPECT_NE(a.status().message().find(build_id::kGoldenManifestHash), std::string::npos)
      << a.status().message();
}

TEST_F(GoldenInputTest, RefusesANameTheManifestLacks) {
  StatusOr<NpyArray> a = ReadGolden("no_such_array");
  ASSERT_FALSE(a.ok());
  EXPECT_EQ(a.status().code(), StatusCode::kNotFound);
  EXPECT_NE(a.status().message().find("not listed"), std::string::npos);
}

TEST_F(GoldenInputTest, ManifestHashIsChecked) {
  EXPECT_TRUE(GoldenManifestHash("golden", "carrier_32_field", build_id::kGoldenManifestHash).ok());
  StatusOr<std::string> h = GoldenManifestHash("golden", "carrier_32_field", std::string(32, '0'));
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.status().code(), StatusCode::kFailedPrecondition);
}

}  // namespace
}  // namespace dashi::conformance
