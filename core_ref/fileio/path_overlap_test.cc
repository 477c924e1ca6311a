// Output-versus-input path checks: the same place, inside and containing, seen through ".",
// "..", trailing separators, relative paths and symlinks; paths that merely share a prefix of
// characters ("data" and "data2") do not overlap.
#include "core_ref/fileio/path_overlap.h"

#include <filesystem>

#include <gtest/gtest.h>

#include "core_ref/testing/scratch_dirs.h"

namespace dashi {
namespace {

namespace fs = std::filesystem;

TEST(PathOverlap, SameInsideContainsAndNone) {
  const std::string d = testing::FreshScratchDir("path_overlap_basic");
  fs::create_directories(d + "/sh0/items");
  fs::create_directories(d + "/sh1");
  EXPECT_EQ(ComparePaths(d + "/sh0", d + "/sh0/"), PathOverlap::kSame);
  EXPECT_EQ(ComparePaths(d + "/sh0/./items/..", d + "/sh0"), PathOverlap::kSame);
  EXPECT_EQ(ComparePaths(d + "/sh0/items/inner", d + "/sh0"), PathOverlap::kInside);
  EXPECT_EQ(ComparePaths(d + "/sh0/items/missing/deeper", d + "/sh0"), PathOverlap::kInside);
  EXPECT_EQ(ComparePaths(d, d + "/sh0"), PathOverlap::kContains);
  EXPECT_EQ(ComparePaths(d + "/sh0", d + "/sh1"), PathOverlap::kNone);
  fs::create_directories(d + "/sh00");
  EXPECT_EQ(ComparePaths(d + "/sh00", d + "/sh0"), PathOverlap::kNone);  // a prefix of characters
}

TEST(PathOverlap, SymlinksAndRelativePathsResolve) {
  const std::string d = testing::FreshScratchDir("path_overlap_links");
  fs::create_directories(d + "/real/items");
  fs::create_directory_symlink(d + "/real", d + "/link");
  EXPECT_EQ(ComparePaths(d + "/link", d + "/real"), PathOverlap::kSame);
  EXPECT_EQ(ComparePaths(d + "/link/items/new", d + "/real"), PathOverlap::kInside);
  const fs::path cwd = fs::current_path();
  fs::current_path(d);
  EXPECT_EQ(ComparePaths("real/items", d + "/link"), PathOverlap::kInside);
  fs::current_path(cwd);
}

TEST(PathOverlap, RefusalNamesBothPaths) {
  const std::string d = testing::FreshScratchDir("path_overlap_refuse");
  fs::create_directories(d + "/sh0");
  EXPECT_TRUE(RefuseOverlap(d + "/out", "merge OUT", d + "/sh0", "shard directory").ok());
  const Status st = RefuseOverlap(d + "/sh0/items/inner", "merge OUT", d + "/sh0", "shard directory");
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  const std::string m(st.message());
  EXPECT_NE(m.find("merge OUT " + d + "/sh0/items/inner is inside shard directory " + d + "/sh0"),
            std::string::npos)
      << m;
  EXPECT_NE(std::string(RefuseOverlap(d, "OUT", d + "/sh0", "input").message()).find(" contains "),
            std::string::npos);
  EXPECT_NE(std::string(RefuseOverlap(d + "/sh0", "OUT", d + "/sh0/", "input").message())
                .find(" is input "),
            std::string::npos);
}

}  // namespace
}  // namespace dashi
