#include "core_ref/fileio/output_set.h"

#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "core_ref/testing/scratch_dirs.h"

#include "core_ref/fileio/atomic_file.h"
#include "core_ref/fileio/temporaries.h"

namespace dashi {
namespace {

namespace fs = std::filesystem;
using testing::EntryNames;
using testing::FileText;
using testing::FreshScratchDir;

Status WriteText(const std::string& path, std::string_view text) {
  return WriteFileAtomically(path, text);
}

TEST(OutputSetTest, DirectoryAppearsOnlyAtCommitWithItsMarker) {
  const std::string root = FreshScratchDir("set_commit");
  const std::string out = root + "/run1";
  StatusOr<OutputSet> set = OutputSet::ForDirectory(out, "run");
  ASSERT_TRUE(set.ok()) << set.status().ToString();
  ASSERT_TRUE(WriteText(set->Path("a.json"), "{}").ok());
  fs::create_directories(set->staging() + "/snapshots");
  ASSERT_TRUE(WriteText(set->Path("snapshots/b.txt"), "b").ok());
  EXPECT_FALSE(fs::exists(out)) << "nothing may appear before Commit";
  ASSERT_TRUE(set->Commit().ok());
  EXPECT_EQ(EntryNames(out), (std::vector<std::string>{kOutputSetMarker, "a.json", "snapshots"}));
  const std::string marker = FileText(out + "/" + kOutputSetMarker);
  EXPECT_NE(marker.find("\"command\": \"run\""), std::string::npos) << marker;
  EXPECT_NE(marker.find("\"path\": \"snapshots/b.txt\", \"bytes\": 1"), std::string::npos)
      << marker;
  EXPECT_EQ(EntryNames(root), std::vector<std::string>{"run1"}) << "the staging directory is gone";
}

TEST(OutputSetTest, FailureBeforeCommitLeavesTheEarlierSetWhole) {
  const std::string root = FreshScratchDir("set_fail");
  const std::string out = root + "/run";
  {
    StatusOr<OutputSet> first = OutputSet::ForDirectory(out, "run");
    ASSERT_TRUE(first.ok());
    ASSERT_TRUE(WriteText(first->Path("A.npy"), "old A").ok());
    ASSERT_TRUE(WriteText(first->Path("chain.json"), "old chain").ok());
    ASSERT_TRUE(first->Commit().ok());
  }
  {
    StatusOr<OutputSet> second = OutputSet::ForDirectory(out, "run");
    ASSERT_TRUE(second.ok()) << second.status().ToString();
    ASSERT_TRUE(WriteText(second->Path("A.npy"), "new A").ok());
    // The disk fills up (or the command fails) before chain.json: no Commit.
  }
  EXPECT_EQ(FileText(out + "/A.npy"), "old A");
  EXPECT_EQ(FileText(out + "/chain.json"), "old chain");
  EXPECT_EQ(EntryNames(root), std::vector<std::string>{"run"}) << "no staging directory left";
}

TEST(OutputSetTest, CommitReplacesAnEarlierSetWhole) {
  const std::string root = FreshScratchDir("set_replace");
  const std::string out = root + "/run";
  for (const char* version : {"v1", "v2"}) {
    StatusOr<OutputSet> set = OutputSet::ForDirectory(out, "run");
    ASSERT_TRUE(set.ok()) << set.status().ToString();
    ASSERT_TRUE(WriteText(set->Path(std::string(version) + ".txt"), version).ok());
    ASSERT_TRUE(set->Commit().ok());
  }
  EXPECT_EQ(EntryNames(out), (std::vector<std::string>{kOutputSetMarker, "v2.txt"}))
      << "no file of the earlier set survives next to the new one";
  EXPECT_EQ(EntryNames(root), std::vector<std::string>{"run"});
}

TEST(OutputSetTest, RefusesANonEmptyDirectoryItDidNotWriteAndTouchesNothing) {
  const std::string root = FreshScratchDir("set_foreign");
  const std::string out = root + "/mine";
  fs::create_directories(out);
  ASSERT_TRUE(WriteText(out + "/thesis.tex", "precious").ok());
  StatusOr<OutputSet> set = OutputSet::ForDirectory(out, "run");
  ASSERT_FALSE(set.ok());
  EXPECT_EQ(set.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(set.status().message().find(out), std::string::npos) << set.status().ToString();
  EXPECT_EQ(FileText(out + "/thesis.tex"), "precious");
  EXPECT_EQ(EntryNames(root), std::vector<std::string>{"mine"});
  // An empty directory and a file in the way.
  const std::string empty = root + "/empty";
  fs::create_directories(empty);
  StatusOr<OutputSet> into_empty = OutputSet::ForDirectory(empty, "run");
  ASSERT_TRUE(into_empty.ok());
  ASSERT_TRUE(WriteText(into_empty->Path("x"), "x").ok());
  ASSERT_TRUE(into_empty->Commit().ok());
  EXPECT_EQ(FileText(empty + "/x"), "x");
  EXPECT_FALSE(OutputSet::ForDirectory(out + "/thesis.tex", "run").ok());
}

TEST(OutputSetTest, FileSetRenamesTheCompletionRecordLast) {
  const std::string root = FreshScratchDir("set_files");
  const std::vector<std::string> paths = {root + "/zT.npy", root + "/zT.chain.json"};
  ASSERT_TRUE(WriteText(paths[0], "old z").ok());
  ASSERT_TRUE(WriteText(paths[1], "old chain").ok());
  {
    StatusOr<OutputSet> set = OutputSet::ForFiles(paths);
    ASSERT_TRUE(set.ok()) << set.status().ToString();
    ASSERT_TRUE(WriteText(set->Path(paths[0]), "new z").ok());  // then the run fails
  }
  EXPECT_EQ(FileText(paths[0]), "old z");
  EXPECT_EQ(FileText(paths[1]), "old chain");
  StatusOr<OutputSet> set = OutputSet::ForFiles(paths);
  ASSERT_TRUE(set.ok());
  ASSERT_TRUE(WriteText(set->Path(paths[0]), "new z").ok());
  ASSERT_TRUE(WriteText(set->Path(paths[1]), "new chain").ok());
  ASSERT_TRUE(set->Commit().ok());
  EXPECT_EQ(FileText(paths[0]), "new z");
  EXPECT_EQ(FileText(paths[1]), "new chain");
  EXPECT_EQ(EntryNames(root), (std::vector<std::string>{"zT.chain.json", "zT.npy"}));
  EXPECT_FALSE(OutputSet::ForFiles({root + "/a", root + "/sub/b"}).ok());
}

TEST(OutputSetTest, AnotherCommandsSetIsRefusedAndKeptWhole) {
  // `dashi decode --out-dir model` onto `dashi learn`'s model directory (which decode reads).
  const std::string root = FreshScratchDir("set_other_command");
  const std::string out = root + "/model";
  {
    StatusOr<OutputSet> set = OutputSet::ForDirectory(out, "learn");
    ASSERT_TRUE(set.ok()) << set.status().ToString();
    ASSERT_TRUE(WriteText(set->Path("A.npy"), "model").ok());
    ASSERT_TRUE(set->Commit().ok());
  }
  StatusOr<OutputSet> other = OutputSet::ForDirectory(out, "decode");
  ASSERT_FALSE(other.ok());
  EXPECT_EQ(other.status().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(other.status().message().find("`dashi learn`"), std::string::npos)
      << other.status().ToString();
  EXPECT_EQ(FileText(out + "/A.npy"), "model");
  // The same command still replaces its own set, and a marker naming no command counts as
  // another command's.
  StatusOr<OutputSet> again = OutputSet::ForDirectory(out, "learn");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  ASSERT_TRUE(WriteText(again->Path("A.npy"), "model 2").ok());
  ASSERT_TRUE(again->Commit().ok());
  EXPECT_EQ(FileText(out + "/A.npy"), "model 2");
  ASSERT_TRUE(WriteText(out + "/" + kOutputSetMarker, "{\"format\": 1}").ok());
  EXPECT_FALSE(OutputSet::ForDirectory(out, "learn").ok());
}

// Re-running a command onto its own earlier outputs deletes the directory's contents: a file a
// user added there at any depth (notes beside `dashi run`'s outputs) is refused and kept.
TEST(OutputSetTest, TheSameCommandsSetWithUnrecordedEntriesIsRefusedAndKeptWhole) {
  const std::string root = FreshScratchDir("set_unrecorded");
  const std::string out = root + "/run";
  {
    StatusOr<OutputSet> set = OutputSet::ForDirectory(out, "run");
    ASSERT_TRUE(set.ok()) << set.status().ToString();
    fs::create_directories(set->Path("model"));
    ASSERT_TRUE(WriteText(set->Path("model/A.npy"), "A").ok());
    ASSERT_TRUE(WriteText(set->Path("metrics.json"), "{}").ok());
    ASSERT_TRUE(set->Commit().ok());
  }
  fs::create_directories(out + "/myplots");  // empty: deleting it loses nothing
  for (const char* added : {"analysis.md", "myplots/p.png", "model/notes.txt"}) {
    ASSERT_TRUE(WriteText(out + "/" + added, "mine").ok());
    StatusOr<OutputSet> again = OutputSet::ForDirectory(out, "run");
    ASSERT_FALSE(again.ok()) << added;
    EXPECT_EQ(again.status().code(), StatusCode::kFailedPrecondition);
    EXPECT_NE(again.status().message().find(std::string("holds ") + added +
                                            ", which the earlier `dashi run` did not write"),
              std::string::npos)
        << again.status().ToString();
    EXPECT_EQ(FileText(out + "/" + added), "mine") << added;
    EXPECT_EQ(FileText(out + "/model/A.npy"), "A");
    fs::remove(out + "/" + added);
  }
  // Without them the set is replaced as before.
  StatusOr<OutputSet> again = OutputSet::ForDirectory(out, "run");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  ASSERT_TRUE(WriteText(again->Path("metrics.json"), "{\"v\": 2}").ok());
  ASSERT_TRUE(again->Commit().ok());
  EXPECT_EQ(EntryNames(out), (std::vector<std::string>{kOutputSetMarker, "metrics.json"}));
}

// Two `simulate --out t.npy` at once both exited 0 and left t.npy of one run with t.json of the
// other (54 of 150 trials): file sets into one directory commit one at a time, so after every
// round of concurrent commits both files come from the same writer.
TEST(OutputSetTest, ConcurrentFileSetsCommitAsUnits) {
  const std::string root = FreshScratchDir("set_concurrent_files");
  const std::vector<std::string> paths = {root + "/t.npy", root + "/t.json"};
  constexpr int kWriters = 4;
  constexpr int kRounds = 150;
  for (int round = 0; round < kRounds; ++round) {
    std::vector<std::thread> writers;
    std::vector<Status> results(kWriters);
    for (int w = 0; w < kWriters; ++w) {
      writers.emplace_back([&, w] {
        StatusOr<OutputSet> set = OutputSet::ForFiles(paths);
        if (!set.ok()) {
          results[w] = set.status();
          return;
        }
        const std::string text = std::to_string(w);
        results[w] = WriteText(set->Path(paths[0]), text);
        if (results[w].ok()) results[w] = WriteText(set->Path(paths[1]), text);
        if (results[w].ok()) results[w] = set->Commit();
      });
    }
    for (std::thread& t : writers) t.join();
    for (const Status& st : results) ASSERT_TRUE(st.ok()) << st.ToString();
    ASSERT_EQ(FileText(paths[0]), FileText(paths[1])) << "a mixed set after round " << round;
  }
  EXPECT_EQ(EntryNames(root), (std::vector<std::string>{"t.json", "t.npy"}));
}

TEST(OutputSetTest, FileSetRefusesFinalNamesThatAreNotRegularFiles) {
  // Renaming over a symlink replaces the link, over a device or FIFO (/dev/null) the node.
  const std::string root = FreshScratchDir("set_not_regular");
  ASSERT_TRUE(WriteText(root + "/target.npy", "kept").ok());
  fs::create_symlink(root + "/target.npy", root + "/link.npy");
  ASSERT_EQ(::mkfifo((root + "/fifo.npy").c_str(), 0600), 0);
  for (const char* name : {"link.npy", "fifo.npy"}) {
    const std::string path = root + "/" + name;
    StatusOr<OutputSet> set = OutputSet::ForFiles({path, root + "/zT.chain.json"});
    ASSERT_FALSE(set.ok()) << name;
    EXPECT_EQ(set.status().code(), StatusCode::kInvalidArgument) << name;
    EXPECT_NE(set.status().message().find("not a regular file"), std::string::npos)
        << set.status().ToString();
  }
  EXPECT_TRUE(fs::is_symlink(fs::symlink_status(root + "/link.npy")));
  EXPECT_TRUE(fs::is_fifo(fs::symlink_status(root + "/fifo.npy")));
  EXPECT_EQ(FileText(root + "/target.npy"), "kept");
}

// A child process starts a set, writes into it and is stopped by `sig` before committing.
void KillMidSet(const std::string& out, int sig) {
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    InstallTemporaryCleanupOnSignals();
    StatusOr<OutputSet> set = OutputSet::ForDirectory(out, "run");
    if (!set.ok() || !WriteText(set->Path("A.npy"), "partial").ok()) ::_exit(3);
    ::raise(sig);
    ::_exit(4);  // not reached for SIGTERM/SIGINT/SIGKILL
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "status " << status;
  EXPECT_EQ(WTERMSIG(status), sig) << "the process still dies of the signal";
}

TEST(OutputSetTest, SigtermAndSigintRemoveTheStagingDirectory) {
  for (int sig : {SIGTERM, SIGINT}) {
    const std::string root = FreshScratchDir("set_signal_" + std::to_string(sig));
    KillMidSet(root + "/run", sig);
    EXPECT_TRUE(EntryNames(root).empty()) << "signal " << sig << " left " << EntryNames(root).size()
                                     << " entries, first: " << EntryNames(root).front();
  }
}

TEST(OutputSetTest, ASignalBetweenCreatingAndRegisteringStillRemovesTheTemporary) {
  // The window the staging directory and the atomic writer's temporary had before their guard
  // existed: a signal raised right after mkdir, inside CleanupSignalsBlocked, is delivered when
  // the block ends — after the guard — so the directory goes and the process dies of it. (With the
  // signal raised outside the block, the same steps leave the directory behind.)
  const std::string root = FreshScratchDir("set_signal_window");
  const std::string dir = root + "/.run.dashi-partial." + TemporaryOwnerTag() + ".window";
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    InstallTemporaryCleanupOnSignals();
    std::optional<TemporaryGuard> guard;
    {
      CleanupSignalsBlocked blocked;
      if (::mkdir(dir.c_str(), 0777) != 0) ::_exit(3);
      ::raise(SIGINT);  // pending until the block ends
      guard.emplace(dir, /*directory=*/true);
    }
    ::_exit(4);  // not reached: the pending SIGINT is delivered when the block ends
  }
  int status = 0;
  ASSERT_EQ(::waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFSIGNALED(status)) << "status " << status;
  EXPECT_EQ(WTERMSIG(status), SIGINT);
  EXPECT_TRUE(EntryNames(root).empty()) << "left " << EntryNames(root).front();
}

TEST(OutputSetTest, StagingLeftByKill9IsRecognisedAndRemovedByTheNextSet) {
  const std::string root = FreshScratchDir("set_kill9");
  KillMidSet(root + "/run", SIGKILL);
  const std::vector<std::string> left = EntryNames(root);
  ASSERT_EQ(left.size(), 1u) << "kill -9 cannot be caught: the staging directory stays";
  EXPECT_EQ(left[0].rfind(".run.dashi-partial.", 0), 0u) << left[0];
  EXPECT_TRUE(IsStaleTemporaryName(left[0], ".run.dashi-partial."));
  EXPECT_FALSE(fs::exists(root + "/run")) << "and nothing looks like a finished output";
  StatusOr<OutputSet> next = OutputSet::ForDirectory(root + "/run", "run");
  ASSERT_TRUE(next.ok());
  EXPECT_EQ(next->removed_stale(), left);
  ASSERT_TRUE(next->Commit().ok());
  EXPECT_EQ(EntryNames(root), std::vector<std::string>{"run"});
}

TEST(OutputSetTest, ALiveOrForeignOwnerIsNeverStale) {
  const std::string mine = ".x.dashi-partial." + TemporaryOwnerTag() + ".0123456789abcdef";
  EXPECT_FALSE(IsStaleTemporaryName(mine, ".x.dashi-partial.")) << "this process is alive";
  EXPECT_FALSE(IsStaleTemporaryName(".x.dashi-partial.some-other-host.999999.00", ".x.dashi-partial."));
  EXPECT_FALSE(IsStaleTemporaryName(".x.dashi-partial.h.notapid.00", ".x.dashi-partial."));
  EXPECT_FALSE(IsStaleTemporaryName(".y.dashi-partial.h.1.00", ".x.dashi-partial."));
}

TEST(OutputSetTest, AtomicWriterTemporaryLeftByKill9IsRemovedByTheNextWrite) {
  const std::string root = FreshScratchDir("tmp_kill9");
  const pid_t pid = ::fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) ::_exit(0);
  ASSERT_EQ(::waitpid(pid, nullptr, 0), pid);  // a pid that no longer exists
  const std::string host_pid = TemporaryOwnerTag().substr(0, TemporaryOwnerTag().find('.')) +
                               "." + std::to_string(pid);
  const std::string stale = "a.json.dashi-tmp." + host_pid + ".00000000000000aa";
  ASSERT_TRUE(WriteText(root + "/" + stale, "half").ok());
  ASSERT_TRUE(WriteText(root + "/a.json", "{}").ok());
  EXPECT_EQ(EntryNames(root), std::vector<std::string>{"a.json"});
}

}  // namespace
}  // namespace dashi
