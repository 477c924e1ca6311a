// Outputs checked against inputs and datasets: the same file by another spelling, through a
// symlink or a hard link, a directory output holding an input, and an output inside a dataset
// directory are refused with a message naming the output and what it would overwrite; outputs
// beside the inputs pass; so is an output that is the current directory or holds it (decode
// --out-dir ../X run inside X replaced the directory its shell stood in).
#include "tools/output_guard.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <utility>

#include <gtest/gtest.h>

#include "core_ref/testing/scratch_dirs.h"

namespace dashi::tools {
namespace {

namespace fs = std::filesystem;

void Touch(const std::string& path) { std::ofstream(path) << "x"; }

std::string Message(const Status& st) { return std::string(st.message()); }

TEST(OutputGuard, OutputsBesideTheInputsPass) {
  const std::string d = testing::FreshScratchDir("output_guard_pass");
  Touch(d + "/A.npy");
  Touch(d + "/z0.npy");
  EXPECT_TRUE(CheckOutputPlaces({{"--out", d + "/zT.npy"}, {"--out's chain file", d + "/zT.chain.json"}},
                                {{"--z0", d + "/z0.npy"}, {"--a", d + "/A.npy"}, {"--expect-chain", ""}})
                  .ok());
}

TEST(OutputGuard, AnOutputThatIsAnInputIsRefused) {
  const std::string d = testing::FreshScratchDir("output_guard_same");
  Touch(d + "/A.npy");
  Touch(d + "/z0.npy");
  const std::vector<FlaggedPath> inputs = {{"--z0", d + "/z0.npy"}, {"--a", d + "/A.npy"}};
  Status st = CheckOutputPlaces({{"--out", d + "/./A.npy"}}, inputs);
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(Message(st).find("--out " + d + "/./A.npy is --a " + d + "/A.npy"), std::string::npos)
      << Message(st);
  // A companion file named like an input.
  st = CheckOutputPlaces({{"--out", d + "/zT.npy"}, {"--out's chain file", d + "/z0.npy"}}, inputs);
  EXPECT_NE(Message(st).find("--out's chain file " + d + "/z0.npy is --z0"), std::string::npos)
      << Message(st);
  // Through a symlink.
  fs::create_symlink(d + "/A.npy", d + "/A_link.npy");
  st = CheckOutputPlaces({{"--out", d + "/A_link.npy"}}, inputs);
  EXPECT_NE(Message(st).find("is --a " + d + "/A.npy"), std::string::npos) << Message(st);
  // Through a hard link: another path, the same inode.
  fs::create_hard_link(d + "/A.npy", d + "/A_hard.npy");
  st = CheckOutputPlaces({{"--out", d + "/A_hard.npy"}}, inputs);
  EXPECT_NE(Message(st).find("--out " + d + "/A_hard.npy is the same file as --a " + d +
                             "/A.npy (a hard link"),
            std::string::npos)
      << Message(st);
  // A directory output holding an input (its set would replace the directory).
  fs::create_directories(d + "/run");
  Touch(d + "/run/A.npy");
  st = CheckOutputPlaces({{"--out", d + "/run"}}, {{"--a", d + "/run/A.npy"}});
  EXPECT_NE(Message(st).find("--out " + d + "/run contains --a"), std::string::npos) << Message(st);
}

TEST(OutputGuard, AnOutputInsideADatasetIsRefused) {
  const std::string d = testing::FreshScratchDir("output_guard_dataset");
  fs::create_directories(d + "/DS/items/n32_p0_s1");
  Touch(d + "/DS/spec.json");
  for (const std::string& out : {d + "/DS/items/n32_p0_s1/omega.npy", d + "/DS/items/n32_p0_s1/dec",
                                d + "/DS/new.npy", d + "/DS/items"}) {
    const Status st = CheckOutputPlaces({{"--out-dir", out}}, {});
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << out;
    EXPECT_NE(Message(st).find("--out-dir " + out + " is inside the dataset " + d + "/DS"),
              std::string::npos)
        << Message(st);
  }
  EXPECT_TRUE(CheckOutputPlaces({{"--out", d + "/beside.npy"}}, {}).ok());
}

// A dangling --out link read "a symlink that cannot be resolved" (decode, learn), "exists and is
// not a regular file (a symlink)" (rollout) or "exists and is not a directory" (golden generate).
TEST(OutputGuard, ADanglingLinkIsRefusedWithOneMessage) {
  const std::string d = testing::FreshScratchDir("output_guard_dangling");
  fs::create_symlink(d + "/nowhere/x", d + "/dangling");
  fs::create_symlink(d + "/loop", d + "/loop");
  for (const auto& [out, target] : {std::pair{d + "/dangling", d + "/nowhere/x"},
                                    std::pair{d + "/loop", d + "/loop"}}) {
    const Status st = CheckOutputPlaces({{"--out", out}}, {});
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << out;
    EXPECT_EQ(Message(st), "--out " + out + " is a symbolic link to " + target +
                               ", which does not exist: dashi writes no output through a "
                               "dangling link; remove the link or choose another path");
  }
  Touch(d + "/file");
  fs::create_symlink(d + "/file", d + "/live");
  EXPECT_TRUE(CheckOutputPlaces({{"--out", d + "/live"}}, {}).ok());
}

TEST(OutputGuard, TheCurrentDirectoryAndItsAncestorsAreRefused) {
  const std::string d = testing::FreshScratchDir("output_guard_cwd");
  fs::create_directories(d + "/X/sub");
  const fs::path before = fs::current_path();
  fs::current_path(d + "/X/sub");
  const std::string cwd = fs::current_path().string();
  struct Case {
    std::string out, relation;
  };
  for (const Case& c : {Case{"../sub", " is "}, Case{".", " is "}, Case{d + "/X/sub/", " is "},
                        Case{"..", " contains "}, Case{"../../X", " contains "},
                        Case{d, " contains "}}) {
    const Status st = CheckOutputPlaces({{"--out-dir", c.out}}, {});
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << c.out;
    EXPECT_NE(Message(st).find("--out-dir " + c.out + c.relation + "the current directory " + cwd +
                               ": writing the output would replace the directory this command "
                               "runs in"),
              std::string::npos)
        << Message(st);
  }
  EXPECT_TRUE(CheckOutputPlaces({{"--out-dir", "inner"}}, {}).ok());
  EXPECT_TRUE(CheckOutputPlaces({{"--out-dir", "../beside"}}, {}).ok());
  fs::current_path(before);
}

}  // namespace
}  // namespace dashi::tools
