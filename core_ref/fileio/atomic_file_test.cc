#include "core_ref/fileio/atomic_file.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core_ref/testing/scratch_dirs.h"

namespace dashi {
namespace {

namespace fs = std::filesystem;
using testing::EntryNames;
using testing::FileText;
using testing::FreshScratchDir;

std::span<const uint8_t> Bytes(std::string_view s) {
  return {reinterpret_cast<const uint8_t*>(s.data()), s.size()};
}

TEST(AtomicFileTest, WritesAndReadsBackLeavingNoTemporary) {
  const std::string dir = FreshScratchDir("atomic_ok");
  const std::string path = dir + "/a.txt";
  ASSERT_TRUE(WriteFileAtomically(path, std::string_view("hello")).ok());
  ASSERT_TRUE(WriteFileAtomically(path, std::string_view("hello, again")).ok());
  StatusOr<std::vector<uint8_t>> back = ReadFileBytes(path);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(std::string(back->begin(), back->end()), "hello, again");
  EXPECT_EQ(EntryNames(dir), std::vector<std::string>{"a.txt"});
}

TEST(AtomicFileTest, MissingDirectoryIsNotFoundNamingThePathAndLeavesNothing) {
  const std::string path = FreshScratchDir("atomic_missing") + "/no_such_dir/x.txt";
  Status s = WriteFileAtomically(path, std::string_view("x"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kNotFound) << s.ToString();
  EXPECT_EQ(s.message().rfind(path + ": cannot create temporary file", 0), 0u) << s.message();
  EXPECT_FALSE(fs::exists(path));
}

// Before the single writer, npy, JSON and PNG outputs opened "<path>.tmp.<pid>" without O_EXCL:
// a symlink planted there redirected the write to any file the user could write.
TEST(AtomicFileTest, PlantedSymlinkAtTheOldPredictableNameIsNotFollowed) {
  const std::string dir = FreshScratchDir("atomic_old_name");
  const std::string victim = dir + "/victim.txt", path = dir + "/out.json";
  std::ofstream(victim) << "precious";
  const std::string planted = path + ".tmp." + std::to_string(::getpid());
  fs::create_symlink(victim, planted);
  ASSERT_TRUE(WriteFileAtomically(path, std::string_view("new")).ok());
  EXPECT_EQ(FileText(victim), "precious");
  EXPECT_EQ(FileText(path), "new");
  EXPECT_FALSE(fs::is_symlink(path));
  EXPECT_TRUE(fs::is_symlink(planted));
}

// Whatever name the writer tries, a symlink (dangling or not) or a file already there is skipped,
// never opened: the write goes to the next fresh name.
TEST(AtomicFileTest, TakenTemporaryNamesAreSkippedNotFollowed) {
  const std::string dir = FreshScratchDir("atomic_taken");
  const std::string victim = dir + "/victim.txt", path = dir + "/out.npy";
  std::ofstream(victim) << "precious";
  fs::create_symlink(victim, dir + "/t0");
  fs::create_symlink(dir + "/would_be_created", dir + "/t1");  // dangling
  std::ofstream(dir + "/t2") << "someone else's";
  int tried = 0;
  Status s = fileio_internal::WriteFileAtomicallyVia(path, Bytes("payload"), [&](int attempt) {
    tried = attempt + 1;
    return dir + "/t" + std::to_string(attempt);
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(tried, 4);
  EXPECT_EQ(FileText(path), "payload");
  EXPECT_EQ(FileText(victim), "precious");
  EXPECT_EQ(FileText(dir + "/t2"), "someone else's");
  EXPECT_FALSE(fs::exists(dir + "/would_be_created"));
  EXPECT_EQ(EntryNames(dir),
            (std::vector<std::string>{"out.npy", "t0", "t1", "t2", "victim.txt"}));
}

TEST(AtomicFileTest, EveryNameTakenFailsWithoutTouchingAnything) {
  const std::string dir = FreshScratchDir("atomic_all_taken");
  const std::string victim = dir + "/victim.txt", path = dir + "/out.png";
  std::ofstream(victim) << "precious";
  fs::create_symlink(victim, dir + "/planted");
  int calls = 0;
  Status s = fileio_internal::WriteFileAtomicallyVia(path, Bytes("payload"), [&](int) {
    ++calls;
    return dir + "/planted";
  });
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(calls, fileio_internal::kTemporaryAttempts);
  EXPECT_NE(s.message().find(path + ": cannot create temporary file '" + dir + "/planted'"),
            std::string::npos)
      << s.message();
  EXPECT_EQ(FileText(victim), "precious");
  EXPECT_FALSE(fs::exists(path));
}

TEST(AtomicFileTest, FailingRenameRemovesTheTemporary) {
  // The target is a non-empty directory: rename(2) fails after the temporary was written.
  const std::string dir = FreshScratchDir("atomic_rename");
  const std::string path = dir + "/target";
  fs::create_directories(path);
  std::ofstream(path + "/keep") << "x";
  Status s = WriteFileAtomically(path, std::string_view("payload"));
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), StatusCode::kFailedPrecondition) << s.ToString();
  EXPECT_NE(s.message().find(path + ": cannot rename"), std::string::npos) << s.message();
  EXPECT_EQ(EntryNames(dir), std::vector<std::string>{"target"});
  EXPECT_EQ(EntryNames(path), std::vector<std::string>{"keep"});
}

TEST(AtomicFileTest, MissingFileIsNotFound) {
  StatusOr<std::vector<uint8_t>> r = ReadFileBytes(FreshScratchDir("atomic_read") + "/missing.bin");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find("missing.bin"), std::string::npos);
}

}  // namespace
}  // namespace dashi
