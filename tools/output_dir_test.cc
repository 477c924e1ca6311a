// Issue 12 #10: a command that fails leaves no empty output directory behind; a directory that
// existed before, or one that holds files, is never removed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "tools/cli_util.h"

namespace dashi::tools {
namespace {

namespace fs = std::filesystem;

std::string Tmp(const std::string& name) {
  const char* t = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(t != nullptr ? t : "/tmp") + "/" + name;
  fs::remove_all(dir);
  return dir;
}

TEST(OutputDir, AFailedCommandLeavesNoEmptyDirectory) {
  const std::string dropped = Tmp("dropped");
  { StatusOr<OutputDir> d = OutputDir::Create(dropped); ASSERT_TRUE(d.ok()); EXPECT_TRUE(fs::is_directory(dropped)); }
  EXPECT_FALSE(fs::exists(dropped));

  const std::string kept = Tmp("kept");
  { StatusOr<OutputDir> d = OutputDir::Create(kept); ASSERT_TRUE(d.ok()); d->Keep(); }
  EXPECT_TRUE(fs::is_directory(kept));

  const std::string existing = Tmp("existing");
  fs::create_directories(existing);
  { StatusOr<OutputDir> d = OutputDir::Create(existing); ASSERT_TRUE(d.ok()); }
  EXPECT_TRUE(fs::is_directory(existing));

  const std::string partial = Tmp("partial");
  {
    StatusOr<OutputDir> d = OutputDir::Create(partial);
    ASSERT_TRUE(d.ok());
    std::ofstream(partial + "/a.json") << "{}";
  }
  EXPECT_TRUE(fs::exists(partial + "/a.json"));

  const std::string file = Tmp("a_file");
  std::ofstream(file) << "x";
  EXPECT_FALSE(OutputDir::Create(file).ok());
  EXPECT_TRUE(fs::is_regular_file(file));
}

}  // namespace
}  // namespace dashi::tools
