// JSON inputs with a NUL byte (nlohmann stopped reading at it) or a key twice in one object
// (nlohmann kept the last) are refused, naming the input; the same key in two objects, NUL as an
// escape inside a string, and what json_input refuses (syntax, depth) behave as before.
#include "tools/strict_json.h"

#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "core_ref/fileio/atomic_file.h"
#include "core_ref/testing/scratch_dirs.h"

namespace dashi::tools {
namespace {

StatusOr<nlohmann::json> Parse(const std::string& text) {
  const std::vector<uint8_t> bytes(text.begin(), text.end());
  return ParseStrictJson(bytes, "in.json");
}

std::string ErrorOf(const std::string& text) {
  StatusOr<nlohmann::json> j = Parse(text);
  return j.ok() ? "accepted" : j.status().ToString();
}

TEST(StrictJson, RefusesNulBytes) {
  EXPECT_EQ(ErrorOf(std::string("{\"a\": 1}\0garbage", 16)),
            "INVALID_ARGUMENT: in.json: a NUL byte at offset 8 (JSON text holds none; a file cut "
            "short or padded?)");
  EXPECT_NE(ErrorOf(std::string("{\"a\": 1}\0", 9)).find("a NUL byte at offset 8"),
            std::string::npos);
  EXPECT_NE(ErrorOf(std::string("{\"a\": \"x\0y\"}", 12)).find("offset 8"), std::string::npos);
  StatusOr<nlohmann::json> escaped = Parse(R"({"a": "x\u0000y"})");  // an escape, not a byte
  ASSERT_TRUE(escaped.ok()) << escaped.status().ToString();
  EXPECT_EQ((*escaped)["a"].get<std::string>(), std::string("x\0y", 3));
}

TEST(StrictJson, RefusesAKeyTwiceInOneObject) {
  EXPECT_EQ(ErrorOf(R"({"steps": 8, "dim": 2, "steps": 9})"),
            "INVALID_ARGUMENT: in.json: key \"steps\" appears twice in one object (which one "
            "counts is ambiguous)");
  EXPECT_NE(ErrorOf(R"({"a": [{"x": 1}, {"y": 1, "y": 2}]})").find("key \"y\" appears twice"),
            std::string::npos);
  EXPECT_NE(ErrorOf(R"({"": 1, "": 2})").find("key \"\" appears twice"), std::string::npos);
  // The same key in sibling and nested objects is fine.
  EXPECT_TRUE(Parse(R"({"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}]})").ok());
}

TEST(StrictJson, JsonInputChecksStillApply) {
  EXPECT_NE(ErrorOf("{]").find("in.json: not valid JSON"), std::string::npos);
  EXPECT_NE(ErrorOf(std::string(100, '[') + std::string(100, ']')).find("nested deeper"),
            std::string::npos);
}

TEST(StrictJson, ReadsFilesNamingThem) {
  const std::string dir = dashi::testing::FreshScratchDir("strict_json_files");
  const std::string path = dir + "/chain.json";
  ASSERT_TRUE(WriteFileAtomically(path, std::string("{\"a\": 1}\0\0\0\0", 12)).ok());
  StatusOr<nlohmann::json> j = ReadStrictJson(path);
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.status().message().find(path + ": a NUL byte at offset 8"), std::string::npos)
      << j.status().ToString();
  EXPECT_EQ(ReadStrictJson(dir + "/missing.json").status().code(), StatusCode::kNotFound);
  ASSERT_TRUE(WriteFileAtomically(path, std::string(R"({"a": 1})")).ok());
  ASSERT_TRUE(ReadStrictJson(path).ok());
}

}  // namespace
}  // namespace dashi::tools
