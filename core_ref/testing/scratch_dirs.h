// Scratch directories and whole-file reads for tests that write files: a fresh, empty directory
// under $TEST_TMPDIR (or /tmp), a file's bytes as a string, a directory's entry names sorted.
//
//   const std::string dir = FreshScratchDir("atomic_ok");
//   EXPECT_EQ(EntryNames(dir), std::vector<std::string>{"a.txt"});
#ifndef DASHI_CORE_REF_TESTING_SCRATCH_DIRS_H_
#define DASHI_CORE_REF_TESTING_SCRATCH_DIRS_H_

#include <string>
#include <vector>

namespace dashi::testing {

// $TEST_TMPDIR/<name> (or /tmp/<name>), removed with its contents and created empty.
std::string FreshScratchDir(const std::string& name);
// The file's bytes ("" when it cannot be read).
std::string FileText(const std::string& path);
// The names in `dir` (without "." and ".."), sorted.
std::vector<std::string> EntryNames(const std::string& dir);

}  // namespace dashi::testing

#endif  // DASHI_CORE_REF_TESTING_SCRATCH_DIRS_H_
