// The checked-in golden set (golden/) must match its manifest, and regenerating it with the
// reference must reproduce every byte of every file. Corrupted copies are reported file by file.
#include "tools/golden/golden_set.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

namespace dashi::tools {
namespace {

namespace fs = std::filesystem;

std::string TmpDir(const std::string& name) {
  const char* t = std::getenv("TEST_TMPDIR");
  const std::string dir = std::string(t != nullptr ? t : "/tmp") + "/" + name;
  fs::remove_all(dir);
  return dir;
}

std::string Slurp(const fs::path& p) {
  std::ifstream f(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

// A plain copy of the checked-in set (in the test's runfiles every file is a symbolic link into
// the source tree, which the verifier rightly refuses).
std::string PlainCopy(const std::string& name) {
  const std::string dir = TmpDir(name);
  fs::create_directories(dir);
  for (const auto& e : fs::directory_iterator("golden")) {
    fs::copy_file(e.path(), fs::path(dir) / e.path().filename());
  }
  return dir;
}

TEST(GoldenTest, CheckedInSetMatchesItsManifest) {
  StatusOr<GoldenReport> r = VerifyGoldenSet(PlainCopy("checked_in"));
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  for (const std::string& p : r->problems) ADD_FAILURE() << p;
  EXPECT_GT(r->checked, 40);
  EXPECT_EQ(r->ok, r->checked);
}

TEST(GoldenTest, RegenerationReproducesEveryByte) {
  const std::string dir = TmpDir("regen");
  Status st = GenerateGoldenSet(dir);
  ASSERT_TRUE(st.ok()) << st.ToString();
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    ++files;
    const fs::path golden = fs::path("golden") / e.path().filename();
    ASSERT_TRUE(fs::exists(golden)) << golden << " is not checked in";
    EXPECT_TRUE(Slurp(e.path()) == Slurp(golden))
        << e.path().filename() << " differs from the checked-in golden file; if the change is "
        << "intended, bump kReferenceVersion and run `dashi golden generate --out golden`";
  }
  int checked_in = 0;
  for (const auto& e : fs::directory_iterator("golden")) {
    if (e.path().extension() == ".npy" || e.path().filename() == "manifest.json") ++checked_in;
  }
  EXPECT_EQ(files, checked_in);
}

TEST(GoldenTest, VerifyNamesMissingCorruptAndMismatchingFiles) {
  const std::string dir = TmpDir("corrupt");
  fs::create_directories(dir);
  for (const auto& e : fs::directory_iterator("golden")) {
    fs::copy_file(e.path(), fs::path(dir) / e.path().filename());
  }
  fs::remove(fs::path(dir) / "fft_64_rfft.npy");
  {  // flip one data byte (the last) of a carrier array
    const fs::path p = fs::path(dir) / "carrier_32_random.npy";
    std::string bytes = Slurp(p);
    bytes.back() = static_cast<char>(bytes.back() ^ 1);
    std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
  }
  {  // truncate one array
    const fs::path p = fs::path(dir) / "les_32_random.npy";
    fs::resize_file(p, fs::file_size(p) - 8);
  }
  StatusOr<GoldenReport> r = VerifyGoldenSet(dir);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  ASSERT_EQ(r->problems.size(), 3u);
  std::string all;
  for (const std::string& p : r->problems) all += p + "\n";
  EXPECT_NE(all.find("fft_64_rfft.npy: missing"), std::string::npos) << all;
  EXPECT_NE(all.find("carrier_32_random.npy: BLAKE2b-128 mismatch"), std::string::npos) << all;
  EXPECT_NE(all.find("les_32_random.npy: corrupt"), std::string::npos) << all;

  fs::remove(fs::path(dir) / "manifest.json");
  EXPECT_EQ(VerifyGoldenSet(dir).status().code(), StatusCode::kNotFound);
}

}  // namespace
}  // namespace dashi::tools

namespace dashi::tools {
namespace {

// Issue 12 #2: type-confused and hostile manifests are errors, never an uncaught exception.
TEST(GoldenTest, HostileManifestsAreErrorsNotAborts) {
  const std::string dir = TmpDir("hostile_manifest");
  fs::create_directories(dir);
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"({"format": 1, "arrays": []})", "format"},
      {R"({"format": "dashi-golden/1", "arrays": {}})", "arrays"},
      {R"([1, 2, 3])", "expected a JSON object"},
      {R"({"format": "other/1", "arrays": []})", "not a dashi-golden/1 manifest"},
      {std::string(100000, '[') + std::string(100000, ']'), "nested"},
  };
  for (const auto& [text, want] : cases) {
    std::ofstream(dir + "/manifest.json", std::ios::binary | std::ios::trunc) << text;
    StatusOr<GoldenReport> r = VerifyGoldenSet(dir);
    ASSERT_FALSE(r.ok()) << text.substr(0, 60);
    EXPECT_NE(r.status().message().find(want), std::string::npos) << r.status().ToString();
  }
}

}  // namespace
}  // namespace dashi::tools

namespace dashi::tools {
namespace {

// Issue 12 #7: the verifier knows the set the reference generates. Each way the old verifier was
// fooled is now a named problem.
TEST(GoldenTest, VerifyCannotBeFooled) {
  auto fresh_copy = [](const std::string& name) { return PlainCopy(name); };
  auto edit_manifest = [](const std::string& dir, const std::function<void(nlohmann::json&)>& f) {
    nlohmann::json m = nlohmann::json::parse(Slurp(fs::path(dir) / "manifest.json"));
    f(m);
    std::ofstream(fs::path(dir) / "manifest.json", std::ios::trunc) << m.dump(2);
  };
  auto problems = [](const std::string& dir) {
    StatusOr<GoldenReport> r = VerifyGoldenSet(dir);
    EXPECT_TRUE(r.ok()) << r.status().ToString();
    std::string all;
    for (const std::string& p : r->problems) all += p + "\n";
    return all;
  };

  {  // an entry removed together with its file
    const std::string dir = fresh_copy("fool_removed");
    edit_manifest(dir, [](nlohmann::json& m) { m["arrays"].erase(m["arrays"].begin()); });
    fs::remove(fs::path(dir) / "carrier_32_field.npy");
    EXPECT_NE(problems(dir).find("carrier_32_field.npy is generated by the reference but not listed"),
              std::string::npos);
  }
  {  // a duplicate entry
    const std::string dir = fresh_copy("fool_duplicate");
    edit_manifest(dir, [](nlohmann::json& m) { m["arrays"].push_back(m["arrays"][0]); });
    EXPECT_NE(problems(dir).find("listed more than once"), std::string::npos);
  }
  {  // an unlisted extra file
    const std::string dir = fresh_copy("fool_extra");
    fs::copy_file(fs::path(dir) / "fft_64_input.npy", fs::path(dir) / "extra.npy");
    EXPECT_NE(problems(dir).find("extra.npy: not listed in the manifest"), std::string::npos);
  }
  {  // edited header padding: the data bytes (and their hash) are unchanged
    const std::string dir = fresh_copy("fool_padding");
    const fs::path p = fs::path(dir) / "carrier_32_field.npy";
    std::string bytes = Slurp(p);
    const size_t nl = bytes.find('\n');
    ASSERT_NE(nl, std::string::npos);
    ASSERT_EQ(bytes[nl - 1], ' ');
    bytes[nl - 1] = '\t';
    std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
    EXPECT_NE(problems(dir).find("carrier_32_field.npy: the file's bytes differ"), std::string::npos);
  }
  {  // a symlink to a file outside the directory
    const std::string dir = fresh_copy("fool_link");
    const std::string outside = TmpDir("fool_link_outside.npy");
    fs::copy_file(fs::path(dir) / "fft_64_input.npy", outside);
    fs::remove(fs::path(dir) / "fft_64_input.npy");
    fs::create_symlink(outside, fs::path(dir) / "fft_64_input.npy");
    EXPECT_NE(problems(dir).find("fft_64_input.npy: is a symbolic link"), std::string::npos);
  }
  {  // an array name listed twice (entry 2 renamed as entry 1, its file unchanged)
    const std::string dir = fresh_copy("fool_name_twice");
    edit_manifest(dir, [](nlohmann::json& m) { m["arrays"][1]["name"] = m["arrays"][0]["name"]; });
    EXPECT_NE(problems(dir).find("entry 2: array name 'carrier_32_field' is listed more than once"),
              std::string::npos)
        << problems(dir);
  }
  {  // a name that is not its file's
    const std::string dir = fresh_copy("fool_name_file");
    edit_manifest(dir, [](nlohmann::json& m) { m["arrays"][0]["name"] = "renamed"; });
    EXPECT_NE(problems(dir).find("file 'carrier_32_field.npy' is not its array name 'renamed'"),
              std::string::npos)
        << problems(dir);
  }
  EXPECT_EQ(problems(PlainCopy("fool_none")), "");
}

// `conform --golden-dir` is checked before the suite runs: a directory with a parsing manifest.
TEST(GoldenTest, CheckGoldenDirNamesTheFlagAndTheDirectory) {
  EXPECT_TRUE(CheckGoldenDir(PlainCopy("check_dir_ok"), "--golden-dir").ok());
  const std::string missing = TmpDir("check_dir_missing");
  Status st = CheckGoldenDir(missing, "--golden-dir");
  EXPECT_EQ(st.code(), StatusCode::kNotFound);
  EXPECT_NE(st.message().find("--golden-dir " + missing + ": no such directory"), std::string::npos)
      << st.ToString();
  const std::string empty = TmpDir("check_dir_empty");
  fs::create_directories(empty);
  st = CheckGoldenDir(empty, "--golden-dir");
  EXPECT_NE(st.message().find("--golden-dir " + empty + ": not a golden set: "), std::string::npos)
      << st.ToString();
  std::ofstream(empty + "/manifest.json") << R"({"format": "dashi-golden/1"})";
  st = CheckGoldenDir(empty, "--golden-dir");
  EXPECT_NE(st.message().find("arrays"), std::string::npos) << st.ToString();
  EXPECT_EQ(CheckGoldenDir(empty + "/manifest.json", "--golden-dir").code(),
            StatusCode::kFailedPrecondition);
}

// `golden generate --out DIR` wrote its arrays into any directory: DIR must be missing, empty, a
// golden set, or an interrupted regeneration of one (only the set's files, BUILD, README.md).
TEST(GoldenTest, GenerateRefusesADirectoryThatIsNotAGoldenSet) {
  const std::string foreign = TmpDir("gen_foreign");
  fs::create_directories(foreign);
  std::ofstream(foreign + "/notes.txt") << "precious";
  int computed = 0;  // refused before any array is computed (that takes minutes)
  Status st = GenerateGoldenSet(foreign, [&](const std::string&) { ++computed; });
  EXPECT_EQ(computed, 0);
  EXPECT_EQ(st.code(), StatusCode::kFailedPrecondition) << st.ToString();
  EXPECT_NE(st.message().find(foreign + ": not empty and not a golden set (no manifest.json, and "
                              "notes.txt is not a file of the set)"),
            std::string::npos)
      << st.ToString();
  EXPECT_EQ(Slurp(foreign + "/notes.txt"), "precious");
  EXPECT_EQ(std::distance(fs::directory_iterator(foreign), fs::directory_iterator()), 1);
  std::ofstream(foreign + "/manifest.json") << R"({"format": "something-else/1"})";
  st = GenerateGoldenSet(foreign, [&](const std::string&) { ++computed; });
  EXPECT_EQ(computed, 0);
  EXPECT_NE(st.message().find(foreign + ": not a golden set ("), std::string::npos)
      << st.ToString();
  // A file named like an array but not one of the set passes the first check and is refused by
  // the second, once the names are known.
  const std::string npy_foreign = TmpDir("gen_foreign_npy");
  fs::create_directories(npy_foreign);
  std::ofstream(npy_foreign + "/mine.npy") << "precious";
  st = GenerateGoldenSet(npy_foreign);
  EXPECT_NE(st.message().find("mine.npy is not a file of the set"), std::string::npos)
      << st.ToString();
  EXPECT_EQ(Slurp(npy_foreign + "/mine.npy"), "precious");
  // A golden set, and one whose regeneration was interrupted (manifest gone), are regenerated.
  const std::string set = PlainCopy("gen_over_set");
  EXPECT_TRUE(GenerateGoldenSet(set).ok());
  fs::remove(set + "/manifest.json");
  fs::remove(set + "/fft_64_input.npy");
  st = GenerateGoldenSet(set);
  EXPECT_TRUE(st.ok()) << st.ToString();
  StatusOr<GoldenReport> r = VerifyGoldenSet(set);
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_TRUE(r->problems.empty());
}

}  // namespace
}  // namespace dashi::tools
