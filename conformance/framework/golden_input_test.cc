// Golden inputs are bound to the golden set the suite id names: an edited array, an edited
// manifest or an unlisted name is an error naming the file and the hashes, never a silent read.
#include "conformance/framework/golden_input.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "build_id/build_ids.h"
#include "core_ref/blake2b/blake2b.h"

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
    fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write);
    std::fstream f(path, std::ios::in | std::ios::out | std::ios::binary);
    ASSERT_TRUE(f.is_open()) << path;
    f.seekg(-1, std::ios::end);
    char c = 0;
    f.get(c);
    f.seekp(-1, std::ios::end);
    f.put(static_cast<char>(c ^ 0x01));
    ASSERT_TRUE(f.good()) << path;
  }
  static void Write(const std::string& path, const std::string& text) {
    if (fs::exists(path)) fs::permissions(path, fs::perms::owner_read | fs::perms::owner_write);
    std::ofstream f(path, std::ios::trunc | std::ios::binary);
    ASSERT_TRUE(f.is_open()) << path;
    f << text;
    ASSERT_TRUE(f.good()) << path;
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
  std::ifstream in("golden/manifest.json", std::ios::binary);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  Write(dir + "/manifest.json", text + "\n");
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
  StatusOr<GoldenEntry> e =
      FindGoldenEntry("golden", "carrier_32_field", build_id::kGoldenManifestHash);
  ASSERT_TRUE(e.ok()) << e.status().ToString();
  EXPECT_EQ(e->file, "carrier_32_field.npy");
  EXPECT_EQ(e->dtype, "<f8");
  EXPECT_EQ(e->shape, (std::vector<int64_t>{32, 32}));
  StatusOr<GoldenEntry> h = FindGoldenEntry("golden", "carrier_32_field", std::string(32, '0'));
  ASSERT_FALSE(h.ok());
  EXPECT_EQ(h.status().code(), StatusCode::kFailedPrecondition);
}

// A manifest that hashes as expected but is malformed, or whose entry says another shape: errors,
// never a read. (The expected hash is the edited manifest's own, as a build from it would have.)
TEST_F(GoldenInputTest, MalformedManifestsAndMismatchedEntries) {
  const std::string dir = CopyOfGolden("malformed");
  const auto own_hash = [&] {
    std::ifstream in(dir + "/manifest.json", std::ios::binary);
    const std::string t((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return ToHex(Blake2b128(t.data(), t.size()));
  };
  Write(dir + "/manifest.json", "{\"format\": 1}");
  StatusOr<GoldenEntry> e = FindGoldenEntry(dir, "carrier_32_field", own_hash());
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument);
  Write(dir + "/manifest.json",
        "{\"arrays\": [{\"name\": \"carrier_32_field\", \"file\": \"../x.npy\", "
        "\"dtype\": \"<f8\", \"shape\": [32, 32], \"blake2b_128\": \"00\"}]}");
  e = FindGoldenEntry(dir, "carrier_32_field", own_hash());
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument) << "a path, not a file name";
  Write(dir + "/manifest.json",
        "{\"arrays\": [{\"name\": \"carrier_32_field\", \"file\": \"carrier_32_field.npy\", "
        "\"dtype\": \"<f8\", \"shape\": [32, \"32\"], \"blake2b_128\": \"00\"}]}");
  e = FindGoldenEntry(dir, "carrier_32_field", own_hash());
  ASSERT_FALSE(e.ok());
  EXPECT_EQ(e.status().code(), StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace dashi::conformance
