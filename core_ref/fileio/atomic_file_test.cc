#include "core_ref/fileio/atomic_file.h"

#include <cstdlib>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

namespace dashi {
namespace {

std::string TempDir() {
  const char* t = std::getenv("TEST_TMPDIR");
  return t != nullptr ? t : "/tmp";
}

TEST(AtomicFileTest, WritesAndReadsBackLeavingNoTemporary) {
  const std::string dir = TempDir() + "/atomic_ok";
  std::filesystem::create_directories(dir);
  const std::string path = dir + "/a.txt";
  ASSERT_TRUE(WriteFileAtomically(path, std::string_view("hello")).ok());
  ASSERT_TRUE(WriteFileAtomically(path, std::string_view("hello, again")).ok());
  StatusOr<std::vector<uint8_t>> back = ReadFileBytes(path);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(std::string(back->begin(), back->end()), "hello, again");
  int entries = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    ++entries;
    EXPECT_EQ(e.path().filename(), "a.txt");
  }
  EXPECT_EQ(entries, 1);
}

TEST(AtomicFileTest, FailureNamesThePathAndLeavesNothing) {
  const std::string path = TempDir() + "/no_such_dir/x.txt";
  Status s = WriteFileAtomically(path, std::string_view("x"));
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.message().find(path), std::string::npos) << s.message();
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(AtomicFileTest, MissingFileIsNotFound) {
  StatusOr<std::vector<uint8_t>> r = ReadFileBytes(TempDir() + "/missing.bin");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find("missing.bin"), std::string::npos);
}

}  // namespace
}  // namespace dashi
