// Outputs checked against inputs and datasets: the same file by another spelling, through a
// symlink or a hard link, a directory output holding an input, and an output inside a dataset
// directory are refused with a message naming the output and what it would overwrite; outputs
// beside the inputs pass; so is an output replaced whole that is the current directory or holds it
// (decode --out-dir ../X run inside X replaced the directory its shell stood in), while one written
// in place there passes (golden generate --out ., a dataset resumed from inside it). A report
// replaces only an earlier report of its format, never a golden manifest, an array, a run's file
// or a store's key.
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
  // Written in place (golden generate, dataset generate): the directory is never replaced.
  for (const std::string out : {".", "../sub", ".."}) {
    EXPECT_TRUE(CheckOutputPlaces({{"--out", out}}, {}, OutputWrite::kInPlace).ok()) << out;
  }
  fs::current_path(before);
}

TEST(OutputGuard, AReportReplacesOnlyAnEarlierReport) {
  const std::string d = testing::FreshScratchDir("output_guard_report");
  const std::string format = "dashi-conformance/1";
  std::ofstream(d + "/earlier.json") << R"({"format": "dashi-conformance/1", "cases": []})";
  EXPECT_TRUE(CheckReportOutput({"--out", d + "/earlier.json"}, format, {}).ok());
  EXPECT_TRUE(CheckReportOutput({"--out", d + "/new.json"}, format, {}).ok());
  std::ofstream(d + "/other.json") << R"({"format": "dashi-audit/1"})";
  std::ofstream(d + "/list.json") << R"([1, 2])";
  Touch(d + "/notes.json");
  fs::create_directories(d + "/dir.json");
  struct Case {
    std::string name, found;
  };
  for (const Case& c : {Case{"other.json", "it is not a report of that format"},
                        Case{"list.json", "it is not a report of that format"},
                        Case{"notes.json", "it is not JSON"},
                        Case{"dir.json", "it is not a regular file"}}) {
    const Status st = CheckReportOutput({"--out", d + "/" + c.name}, format, {});
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << c.name;
    EXPECT_EQ(Message(st), "--out " + d + "/" + c.name + " exists and is not an earlier report "
                           "(\"format\": \"dashi-conformance/1\"): " + c.found + "; a report "
                           "replaces only a missing file or an earlier report: choose another path");
  }
  Touch(d + "/A.npy");
  for (const std::string name : {"A.npy", "new.npy", "report", ".json"}) {
    const Status st = CheckReportOutput({"--out", d + "/" + name}, format, {});
    EXPECT_NE(Message(st).find("--out " + d + "/" + name + ": a report's name is NAME.json"),
              std::string::npos)
        << Message(st);
  }
}

TEST(OutputGuard, AReportInsideGoldenDataAStoreOrAnOutputSetIsRefused) {
  const std::string d = testing::FreshScratchDir("output_guard_report_places");
  fs::create_directories(d + "/golden");
  std::ofstream(d + "/golden/manifest.json") << R"({"format": "dashi-conformance/1"})";
  fs::create_directories(d + "/store");
  const std::vector<FlaggedPath> inputs = {{"--golden-dir", d + "/golden"},
                                           {"DASHI_CERT_STORE", d + "/store"}};
  Status st = CheckReportOutput({"--out", d + "/golden/manifest.json"}, "dashi-conformance/1",
                                inputs);
  EXPECT_NE(Message(st).find("--out " + d + "/golden/manifest.json is inside --golden-dir"),
            std::string::npos)
      << Message(st);
  st = CheckReportOutput({"--out", d + "/store/key.json"}, "dashi-conformance/1", inputs);
  EXPECT_NE(Message(st).find("--out " + d + "/store/key.json is inside DASHI_CERT_STORE"),
            std::string::npos)
      << Message(st);
  fs::create_directories(d + "/run/sub");
  Touch(d + "/run/.dashi-output-set");
  for (const std::string out : {d + "/run/chain.json", d + "/run/sub/new.json"}) {
    st = CheckReportOutput({"--out", out}, "dashi-conformance/1", inputs);
    EXPECT_EQ(st.code(), StatusCode::kInvalidArgument) << out;
    EXPECT_NE(Message(st).find("--out " + out + " is inside the dashi output set " + d + "/run"),
              std::string::npos)
        << Message(st);
  }
  EXPECT_TRUE(CheckReportOutput({"--out", d + "/report.json"}, "dashi-conformance/1", inputs).ok());
}

}  // namespace
}  // namespace dashi::tools
