// The command line as dashi_main parses it, without running a command: a flag out of its range
// is exit code 2 with CLI11's message naming the flag, before any work (docs/ARCHITECTURE.md: a
// bad flag exits 2, a command that ran and failed 1); values in range parse.
#include "tools/cli_app.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "tools/vulkan_flags.h"

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
  // The value as typed, not %g's "1"; an empty value, spaces, names outside a flag's list.
  ExpectFlagError(with({"--tau", "1.0000000001"}), "--tau 1.0000000001 is outside (0, 1]");
  ExpectFlagError(with({"--tau", ""}), "--tau: an empty value is not a number");
  ExpectFlagError(with({"--tau", " 0.5"}), "--tau: ' 0.5' has spaces around the number");
  ExpectFlagError(with({"--smoothing", "foo"}), "--smoothing: 'foo' is not one of: box, triangle");
  ExpectFlagError(with({"--eta", "-1"}),
                  "--eta: '-1' is out of range; this flag takes a number in [1, 67125249]");
  ExpectFlagError(with({"--eta", "0"}), "--eta: '0' is out of range");
  ExpectFlagError(with({"--eta", "10"}), "--eta 10 is outside [1, 9]");
  ExpectFlagError(with({"--maj-radius", "-1"}),
                  "--maj-radius: '-1' is out of range; this flag takes a number in [0, 4096]");
  ExpectFlagError(with({"--max-levels", "-1"}), "--max-levels: '-1' is out of range");
  ExpectFlagError(with({"--eta", "4294967299"}),
                  "--eta: '4294967299' is out of range; this flag takes a number in [1, 67125249]");
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

// Flags whose values are names (or a name and numbers) were checked when the command ran: exit 1.
TEST(CliApp, NamesOutsideAFlagsListAreFlagErrors) {
  ExpectFlagError({"simulate", "--init", "foo"},
                  "--init: initial condition 'foo' is not one of: random, taylor-green");
  ExpectFlagError({"learn", "--traj", "t", "--ridge-prior", "foo"},
                  "--ridge-prior: ridge prior 'foo' is not one of: zero, identity");
  ExpectFlagError({"run", "--k-step", "0"},
                  "--k-step: '0' is not auto or a number in 1 .. 1000000");
  ExpectFlagError({"run", "--smoothing", "Box"}, "--smoothing: 'Box' is not one of: box, triangle");
  ExpectFlagError({"simulate", "--dt", ""}, "--dt: an empty value is not a number");
  for (const auto& ok : std::vector<std::vector<std::string>>{
           {"simulate", "--init", "taylor-green", "--dt", "1e-3"},
           {"run", "--k-step", "auto", "--smoothing", "box"},
           {"run", "--k-step", "20"}}) {
    EXPECT_EQ(Parse(ok).code, -1) << Parse(ok).err;
  }
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

// With --backend ref (the default) the Vulkan-only flags were silently ignored (`rollout --device 5
// --rollout-kernel persistent --validation --allow-uncertified` exit 0); a blank --device matched
// every device's name and chose device 0.
TEST(CliApp, VulkanOnlyFlagsNeedTheVulkanBackend) {
  const std::vector<std::string> rollout = {"rollout", "--z0", "z", "--a", "a"};
  auto with = [&](std::vector<std::string> extra) {
    std::vector<std::string> args = rollout;
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  };
  ExpectFlagError(with({"--device", "5", "--rollout-kernel", "persistent", "--validation",
                        "--allow-uncertified"}),
                  "--device, --allow-uncertified, --validation, --rollout-kernel: only for "
                  "--backend vulkan, and --backend is ref (the default): give --backend vulkan, "
                  "or leave them out");
  ExpectFlagError(with({"--backend", "ref", "--cert-store", "/tmp"}),
                  "--cert-store: only for --backend vulkan, and --backend is ref (the default): "
                  "give --backend vulkan, or leave it out");
  ExpectFlagError({"run", "--decode-precision", "fp32"}, "--decode-precision: only for --backend");
  EXPECT_EQ(Parse(with({"--backend", "vulkan", "--device", "5", "--validation"})).code, -1);
  EXPECT_EQ(Parse({"run", "--backend", "vulkan", "--backend-policy", "permissive",
                   "--decode-precision", "fp32"})
                .code,
            -1);
  for (const char* blank : {"", " ", "\t"}) {
    ExpectFlagError(with({"--backend", "vulkan", "--device", blank}),
                    "--device: an empty or blank device selector would match every device");
    ExpectFlagError({"audit", "--z0", "z", "--a", "a", "--device", blank}, "blank device selector");
  }
}

// scales ran with --tau 1.5 (a meaningless result) and refused --sigmas 200 only when it ran,
// exit 1, without naming the flag ("fining depth: sigmas must be in [0, 100]").
TEST(CliApp, ScalesRangesAreFlagErrors) {
  ExpectFlagError({"scales", "--tau", "1.5"}, "--tau 1.5 is outside (0, 1]");
  ExpectFlagError({"scales", "--tau", "0"}, "--tau 0 is outside (0, 1]");
  ExpectFlagError({"scales", "--sigmas", "200"}, "--sigmas 200 is outside [0, 100]");
  ExpectFlagError({"scales", "--sigmas", "-0.5"}, "--sigmas -0.5 is outside [0, 100]");
  ExpectFlagError({"scales", "--sigmas", ""}, "--sigmas: an empty value is not a number");
  ExpectFlagError({"scales", "--surrogates", "1"}, "--surrogates: '1' is out of range");
  EXPECT_EQ(Parse({"scales", "--tau", "1", "--sigmas", "100"}).code, -1);
}

// conform --filter "" ran the whole suite and --filter zzz opened the device before exit 1; audit
// --help described a [B, D] --z0 it refuses; there was no --version.
TEST(CliApp, ConformFilterAuditHelpAndVersion) {
  ExpectFlagError({"conform", "--filter", ""}, "--filter: an empty filter would run the whole suite");
  ExpectFlagError({"conform", "--filter", "zzz"}, "--filter: 'zzz' matches no conformance case");
  EXPECT_EQ(Parse({"conform", "--filter", "carrier.pda"}).code, -1);
  const Parsed audit = Parse({"audit", "--help"});
  EXPECT_EQ(audit.code, 0);
  EXPECT_EQ(audit.out.find("[B, D]"), std::string::npos) << audit.out;
  EXPECT_NE(Parse({"rollout", "--help"}).out.find("[B, D]"), std::string::npos);
  EXPECT_NE(Parse({"conform", "--help"}).out.find("overrides $DASHI_GOLDEN_DIR"),
            std::string::npos);
  const Parsed version = Parse({"--version"});
  EXPECT_EQ(version.code, 0);
  EXPECT_NE(version.out.find("dashi-ref "), std::string::npos) << version.out;
  EXPECT_NE(version.out.find("; accelerator build "), std::string::npos) << version.out;
  EXPECT_NE(version.out.find(", conformance suite "), std::string::npos) << version.out;
  for (const char* var : {"DASHI_CERT_STORE", "DASHI_VK_DEVICE", "DASHI_CACHE_DIR",
                          "DASHI_FENCE_SPIN_US", "DASHI_FFT_V8"}) {
    EXPECT_NE(Parse({"--help"}).out.find(var), std::string::npos) << var;
  }
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

// `conform --cert-store DIR` that could not be written was reported after the whole suite had
// run (14 minutes): checked first, leaving nothing behind either way.
TEST(CliApp, CertStoreWritableIsCheckedAndLeavesNothing) {
  namespace fs = std::filesystem;
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(tmp != nullptr ? tmp : "/tmp") + "/cert_store_writable";
  fs::remove_all(dir);
  fs::create_directories(dir + "/store");
  EXPECT_TRUE(CheckCertStoreWritable({"--cert-store", dir + "/store"}).ok());
  EXPECT_TRUE(CheckCertStoreWritable({"--cert-store", dir + "/new/deeper/store"}).ok());
  EXPECT_TRUE(fs::is_empty(dir + "/store"));
  EXPECT_FALSE(fs::exists(dir + "/new")) << "the probe left the store's directories behind";
  std::ofstream(dir + "/file") << "x";
  const Status st = CheckCertStoreWritable({"DASHI_CERT_STORE", dir + "/file/store"});
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(st.message()),
            "DASHI_CERT_STORE " + dir + "/file/store: the certification store cannot be written "
            "(cannot create " + dir + "/file/store: Not a directory), so the result could not be "
            "recorded; the suite was not run: name a writable store, or pass --no-store");
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

// Every option of `app` and of its subcommands, with the words that select its command.
void ForEachOption(CLI::App& app, std::vector<std::string> words,
                   const std::function<void(const std::vector<std::string>&, CLI::Option&)>& f) {
  for (CLI::Option* opt : app.get_options()) f(words, *opt);
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    std::vector<std::string> w = words;
    w.push_back(sub->get_name());
    ForEachOption(*sub, w, f);
  }
}

// `--eta 4294967299` was "Could not convert: --eta = 4294967299": a decimal that fits 64 bits but
// not the flag's 32-bit integer. No integer flag answers so: each `int` flag has a range
// (IntegerIn / IntAtLeast), whose message names the flag, the value and the range.
TEST(CliApp, EveryIntegerFlagNamesItsRange) {
  CLI::App app{kDashiDescription};
  std::function<int()> run;
  BuildDashiApp(app, run);
  int checked = 0;
  ForEachOption(app, {}, [&](const std::vector<std::string>& words, CLI::Option& opt) {
    const std::string type = opt.get_type_name();
    if (type.rfind("INT", 0) != 0 && type.rfind("UINT", 0) != 0) return;
    if (opt.get_lnames().empty()) return;
    for (const char* big : {"4294967299", "-4294967299", "9223372036854775807"}) {
      std::vector<std::string> args = words;
      args.insert(args.end(), {"--" + opt.get_lnames()[0], big});
      const Parsed p = Parse(args);
      EXPECT_EQ(p.err.find("Could not convert"), std::string::npos)
          << "--" << opt.get_lnames()[0] << " " << big << ": " << p.err;
    }
    ++checked;
  });
  EXPECT_GT(checked, 40);
}

}  // namespace
}  // namespace dashi::tools
