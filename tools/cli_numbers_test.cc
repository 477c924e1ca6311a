// Issue 12 #8: every integer flag is decimal, in range, never empty (CLI11 alone read "010" as
// octal 8, accepted "0x10", ran "" as 0 and clamped out-of-range values to INT64_MAX).
#include "tools/cli_numbers.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace dashi::tools {
namespace {

// Parses `args` with an app holding one signed, one unsigned and one list option (and a
// subcommand with an int option); returns the parse error's message or "".
struct Parsed {
  double tau = -7;
  int64_t steps = -7;
  uint64_t seed = 7;
  std::vector<int64_t> grids;
  int64_t sub_n = 0;
  std::string error;
};

Parsed Parse(std::vector<std::string> args) {
  Parsed p;
  CLI::App app;
  app.add_option("--steps", p.steps);
  app.add_option("--tau", p.tau);
  app.add_option("--seed", p.seed)->check(CLI::Range(uint64_t{0}, uint64_t{1} << 40));
  app.add_option("--n", p.grids)->delimiter(',');
  CLI::App* sub = app.add_subcommand("sub");
  sub->add_option("--n", p.sub_n);
  RequireDecimalIntegers(app);
  std::vector<std::string> reversed(args.rbegin(), args.rend());
  try {
    app.parse(reversed);
  } catch (const CLI::ParseError& e) {
    p.error = e.what();
  }
  return p;
}

TEST(CliNumbers, DecimalOnlyInRangeNeverEmpty) {
  EXPECT_EQ(Parse({"--steps", "010"}).steps, 10);
  EXPECT_EQ(Parse({"--steps", "-12"}).steps, -12);
  EXPECT_EQ(Parse({"--seed", "0042"}).seed, 42u);
  for (const char* bad : {"0x10", "", "1e3", "+5", "12abc", " 3", "-", "99999999999999999999"}) {
    const Parsed p = Parse({"--steps", bad});
    EXPECT_NE(p.error.find("--steps"), std::string::npos) << "'" << bad << "': " << p.error;
    EXPECT_EQ(p.steps, -7) << bad;
  }
  EXPECT_NE(Parse({"--seed", "-1"}).error.find("negative"), std::string::npos);
  EXPECT_NE(Parse({"--seed", "18446744073709551616"}).error.find("out of range"), std::string::npos);
  const Parsed list = Parse({"--n", "064,0128"});
  EXPECT_TRUE(list.error.empty()) << list.error;
  EXPECT_EQ(list.grids, (std::vector<int64_t>{64, 128}));
  EXPECT_NE(Parse({"--n", "64,0x80"}).error.find("0x80"), std::string::npos);
  EXPECT_EQ(Parse({"sub", "--n", "08"}).sub_n, 8);
  EXPECT_NE(Parse({"sub", "--n", "0x8"}).error.find("--n"), std::string::npos);
}

// "" was read as 0, " 0.5" was taken and "0.5 " refused with "Could not convert": one rule for
// every floating-point flag, a whole number or an error naming the flag.
TEST(CliNumbers, RealNumbersWholeNeverEmpty) {
  EXPECT_EQ(Parse({"--tau", "0.25"}).tau, 0.25);
  EXPECT_EQ(Parse({"--tau", "-1e-3"}).tau, -1e-3);
  EXPECT_TRUE(std::isnan(Parse({"--tau", "nan"}).tau));
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"", "--tau: an empty value is not a number"},
      {" 0.5", "--tau: ' 0.5' has spaces around the number"},
      {"0.5 ", "--tau: '0.5 ' has spaces around the number"},
      {"0.5\t", "has spaces around the number"},
      {"0x1p3", "--tau: '0x1p3' is not a decimal number"},
      {"+1", "'+1' is not a decimal number"},
      {"1.5x", "'1.5x' is not a decimal number"},
      {"1e999", "--tau: '1e999' is out of range of a double"}};
  for (const auto& [text, message] : bad) {
    const Parsed p = Parse({"--tau", text});
    EXPECT_NE(p.error.find(message), std::string::npos) << "'" << text << "': " << p.error;
    EXPECT_EQ(p.tau, -7) << text;
  }
  EXPECT_EQ(NumberText(1.0000000001), "1.0000000001");
  EXPECT_EQ(NumberText(0.1), "0.1");
  EXPECT_EQ(NumberText(2), "2");
}

// Issue 12 #3: a path that is not UTF-8 aborted rollout, decode, learn and audit after some
// outputs were written (nlohmann's dump throws). It is refused before any work now.
TEST(CliNumbers, TextFlagsMustBeUtf8) {
  std::string out;
  CLI::App app;
  app.add_option("--out", out);
  RequireDecimalIntegers(app);
  for (const std::string& bad : {std::string("dir/\xff.npy"), std::string("\xc0\xaf"),
                                std::string("\xed\xa0\x80"), std::string("a\xe2\x82")}) {
    std::vector<std::string> args = {bad, "--out"};
    try {
      app.parse(args);
      ADD_FAILURE() << "accepted a non-UTF-8 value";
    } catch (const CLI::ParseError& e) {
      EXPECT_NE(std::string(e.what()).find("not valid UTF-8"), std::string::npos) << e.what();
    }
  }
  std::vector<std::string> ok = {"r\xc3\xa9sultats/\xe2\x82\xac.npy", "--out"};
  app.parse(ok);
  EXPECT_EQ(out, "r\xc3\xa9sultats/\xe2\x82\xac.npy");
  EXPECT_EQ(Utf8Problem("plain"), "");
}

// An empty path argument was read as / or the current directory (`dataset verify ""` checked
// /spec.json). A PATH option refuses it (and checks UTF-8 as a TEXT one does); TEXT may be empty.
TEST(CliNumbers, PathFlagsMustNotBeEmpty) {
  std::string dir, out, seeds;
  CLI::App app;
  app.add_option("dir", dir)->type_name("PATH");
  app.add_option("--out", out)->type_name("PATH");
  app.add_option("--seeds", seeds);
  RequireDecimalIntegers(app);
  for (const std::vector<std::string>& bad :
       {std::vector<std::string>{""}, {"--out", "", "d"}, {"d\xff"}}) {
    std::vector<std::string> args(bad.rbegin(), bad.rend());  // CLI11 takes them reversed
    try {
      app.parse(args);
      ADD_FAILURE() << "accepted an empty or non-UTF-8 path";
    } catch (const CLI::ParseError& e) {
      const std::string what = e.what();
      EXPECT_TRUE(what.find("an empty path names no file or directory") != std::string::npos ||
                  what.find("not valid UTF-8") != std::string::npos)
          << what;
    }
  }
  std::vector<std::string> ok = {"", "--seeds", "d"};
  app.parse(ok);
  EXPECT_EQ(dir, "d");
  EXPECT_EQ(seeds, "");
}

}  // namespace
}  // namespace dashi::tools
