// The command line as dashi_main parses it, without running a command: a flag out of its range
// is exit code 2 with CLI11's message naming the flag, before any work (docs/ARCHITECTURE.md: a
// bad flag exits 2, a command that ran and failed 1); values in range parse.
#include "tools/cli_app.h"

#include <cstdlib>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace dashi::tools {
namespace {

struct Parsed {
  int code;
  std::string err, out;
};

Parsed Parse(std::vector<std::string> args) {
  args.insert(args.begin(), "dashi");
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());
  CLI::App app{kDashiDescription};
  std::function<int()> run;
  BuildDashiApp(app, run);
  ::testing::internal::CaptureStderr();
  ::testing::internal::CaptureStdout();
  const int code = ParseDashiCommandLine(app, static_cast<int>(argv.size()), argv.data(), run);
  std::string out = ::testing::internal::GetCapturedStdout();
  return {code, ::testing::internal::GetCapturedStderr(), std::move(out)};
}

void ExpectFlagError(const std::vector<std::string>& args, const std::string& expect) {
  const Parsed p = Parse(args);
  std::string line;
  for (const std::string& a : args) line += a + " ";
  EXPECT_EQ(p.code, 2) << line << "\n" << p.err;
  EXPECT_NE(p.err.find(expect), std::string::npos) << line << "\n" << p.err;
}

TEST(CliApp, DecodeFlagsOutsideTheirRangesAreFlagErrors) {
  const std::vector<std::string> base = {"decode", "--z", "z.npy", "--proxy", "p.json"};
  const auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> a = base;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  ExpectFlagError(with({"--t", "-5"}), "--t: '-5' is out of range; this flag takes a number >= 0");
  ExpectFlagError(with({"--frame", "-1"}), "--frame: '-1' is out of range");
  ExpectFlagError(with({"--tau", "1.5"}), "--tau 1.5 is outside (0, 1]");
  ExpectFlagError(with({"--tau", "0"}), "--tau 0 is outside (0, 1]");
  ExpectFlagError(with({"--tau", "nan"}), "--tau nan is outside (0, 1]");
  ExpectFlagError(with({"--eta", "-1"}), "--eta -1 is outside [1, 9] for --maj-radius 1");
  ExpectFlagError(with({"--eta", "10"}), "--eta 10 is outside [1, 9]");
  ExpectFlagError(with({"--maj-radius", "-1"}), "--maj-radius -1 is outside [0, 4096]");
  ExpectFlagError(with({"--max-levels", "-1"}), "--max-levels -1 is negative");
  // `run` shares the decoder flags and their check.
  ExpectFlagError({"run", "--tau", "2"}, "--tau 2 is outside (0, 1]");
  for (const auto& ok : {with({"--t", "0", "--tau", "1", "--eta", "1"}),
                         with({"--eta", "25", "--maj-radius", "2", "--frame", "3"})}) {
    EXPECT_EQ(Parse(ok).code, -1) << Parse(ok).err;
  }
}

// Integer flags with a fixed range were refused only when the command ran (exit 1).
TEST(CliApp, IntegerFlagsOutsideTheirRangesAreFlagErrors) {
  ExpectFlagError({"dataset", "generate", "--spec", "s", "--out", "o", "--jobs", "0"},
                  "--jobs: '0' is out of range; this flag takes a number in [1, 32]");
  ExpectFlagError({"dataset", "generate", "--spec", "s", "--out", "o", "--threads", "257"},
                  "--threads: '257' is out of range; this flag takes a number in [1, 256]");
  ExpectFlagError({"dataset", "verify", "d", "--regenerate", "-1"}, "--regenerate: '-1'");
  ExpectFlagError({"dataset", "generate", "--spec", "s", "--out", "o", "--shard", "2/2"},
                  "--shard: \"2/2\": expected I/N with 0 <= I < N");
  ExpectFlagError({"rollout", "--z0", "z", "--a", "a", "--save-every", "-2"}, "--save-every: '-2'");
  ExpectFlagError({"rollout", "--z0", "z", "--a", "a", "--hash-every", "0"},
                  "--hash-every: '0' is out of range; this flag takes a number >= 1");
  ExpectFlagError({"audit", "--z0", "z", "--a", "a", "--steps", "-1"}, "--steps: '-1'");
  ExpectFlagError({"simulate", "--save-every", "0"}, "--save-every: '0'");
  ExpectFlagError({"simulate", "--threads", "0"}, "--threads: '0'");
  ExpectFlagError({"scales", "--n", "15"}, "--n: 15 (expected a power of two in [16, 2048])");
  EXPECT_EQ(Parse({"dataset", "verify", "d", "--regenerate", "0"}).code, -1);
}

// A byte limit of 0 meant "no limit"; it is refused, and a malformed size is a flag error too.
TEST(CliApp, ByteLimitsOfZeroOrMalformedAreFlagErrors) {
  const std::vector<std::string> gen = {"dataset", "generate", "--spec", "s", "--out", "o"};
  auto with = [&](const std::string& flag, const std::string& v) {
    std::vector<std::string> a = gen;
    a.insert(a.end(), {flag, v});
    return a;
  };
  ExpectFlagError(with("--max-disk", "0"), "--max-disk: '0': a limit of 0 bytes");
  ExpectFlagError(with("--max-disk", "10X"), "--max-disk: '10X': expected decimal digits");
  ExpectFlagError({"run", "--max-memory", "0G"}, "--max-memory: '0G': a limit of 0 bytes");
  ExpectFlagError({"simulate", "--max-memory", "0"}, "a limit of 0 bytes");
  EXPECT_EQ(Parse(with("--max-disk", "20G")).code, -1);
  const Parsed help = Parse({"dataset", "generate", "--help"});
  EXPECT_EQ(help.code, 0);
  EXPECT_NE(help.out.find("0 is refused"), std::string::npos) << help.out;
}

// rollout --out notes.txt replaced the user's file with an array: .npy outputs must be NAME.npy.
TEST(CliApp, NpyOutputsMustBeNamedNpy) {
  for (const std::string bad : {"notes.txt", "zT.npy.bak", "out/.npy", "zT.NPY"}) {
    ExpectFlagError({"rollout", "--z0", "z", "--a", "a", "--out", bad},
                    "--out: " + bad + " is not NAME.npy");
  }
  ExpectFlagError({"simulate", "--out", "traj.json"}, "--out: traj.json is not NAME.npy");
  EXPECT_EQ(Parse({"rollout", "--z0", "z", "--a", "a", "--out", "runs/x.npy"}).code, -1);
  EXPECT_EQ(Parse({"simulate", "--out", "t.npy"}).code, -1);
}

// A --cert-store that is a regular file was read as an empty store.
TEST(CliApp, CertStoreMustBeADirectory) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string file = std::string(tmp != nullptr ? tmp : "/tmp") + "/cert_store_file";
  std::ofstream(file) << "not a store";
  for (const char* cmd : {"devices", "conform"}) {
    ExpectFlagError({cmd, "--cert-store", file},
                    "--cert-store: " + file + " exists and is not a directory");
  }
  ExpectFlagError({"rollout", "--z0", "z", "--a", "a", "--store", file}, "is not a directory");
  EXPECT_EQ(Parse({"devices", "--cert-store", std::string(tmp != nullptr ? tmp : "/tmp")}).code, -1);
  EXPECT_EQ(Parse({"devices", "--cert-store", file + ".missing"}).code, -1);
}

// DASHI_CERT_STORE naming a regular file was read as an empty store ("uncertified ... in
// certfile", exit 0) where --cert-store certfile is refused: the variable gets the same check,
// named as the variable; --cert-store given on the command line overrides it.
TEST(CliApp, CertStoreEnvironmentMustBeADirectory) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = tmp != nullptr ? tmp : "/tmp";
  const std::string file = dir + "/cert_store_env_file";
  std::ofstream(file) << "not a store";
  ASSERT_EQ(::setenv("DASHI_CERT_STORE", file.c_str(), 1), 0);
  for (const char* cmd : {"devices", "conform"}) {
    ExpectFlagError({cmd}, "DASHI_CERT_STORE: " + file + " exists and is not a directory");
  }
  ExpectFlagError({"rollout", "--z0", "z", "--a", "a"}, "DASHI_CERT_STORE: " + file);
  EXPECT_EQ(Parse({"devices", "--cert-store", dir}).code, -1);
  EXPECT_EQ(Parse({"simulate"}).code, -1);  // takes no store
  ASSERT_EQ(::setenv("DASHI_CERT_STORE", dir.c_str(), 1), 0);
  EXPECT_EQ(Parse({"devices"}).code, -1);
  ASSERT_EQ(::setenv("DASHI_CERT_STORE", (file + ".missing").c_str(), 1), 0);
  EXPECT_EQ(Parse({"devices"}).code, -1);
  ASSERT_EQ(::unsetenv("DASHI_CERT_STORE"), 0);
}

// Every file or directory argument refuses an empty value ("" was read as / or the current
// directory: `dataset verify ""` examined /spec.json).
TEST(CliApp, EmptyPathArgumentsAreFlagErrors) {
  const std::string empty = "an empty path names no file or directory";
  ExpectFlagError({"dataset", "verify", ""}, "dir: " + empty);
  ExpectFlagError({"dataset", "merge", "out", "s0", ""}, empty);
  ExpectFlagError({"dataset", "generate", "--spec", "s", "--out", ""}, "--out: " + empty);
  ExpectFlagError({"rollout", "--z0", "", "--a", "a"}, "--z0: " + empty);
  ExpectFlagError({"rollout", "--z0", "z", "--a", "a", "--expect-chain", ""},
                  "--expect-chain: " + empty);
  ExpectFlagError({"decode", "--z", "z", "--proxy", "p", "--out-dir", ""}, "--out-dir: " + empty);
  ExpectFlagError({"golden", "verify", ""}, empty);
  ExpectFlagError({"conform", "--golden-dir", ""}, "--golden-dir: " + empty);
  ExpectFlagError({"devices", "--cert-store", ""}, empty);
  ExpectFlagError({"learn", "--traj", "t", "--out-dir", ""}, empty);
  ExpectFlagError({"run", "--out", ""}, empty);
  ExpectFlagError({"simulate", "--out", ""}, empty);
  ExpectFlagError({"audit", "--z0", "z", "--a", "a", "--out", ""}, empty);
  ExpectFlagError({"scales", "--out", ""}, empty);
  // A text flag where "" has a meaning keeps it.
  EXPECT_EQ(Parse({"run", "--val-seeds", ""}).code, -1);
}

}  // namespace
}  // namespace dashi::tools
