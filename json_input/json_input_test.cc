// Issue 12 #2: hostile JSON (type-confused fields, deep nesting, huge files, NUL bytes and \u0000
// escapes, a key twice in one object) gets a clear error naming the input, never an exception or a stack overflow.
#include "json_input/json_input.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core_ref/fileio/atomic_file.h"
#include "core_ref/testing/scratch_dirs.h"

namespace dashi {
namespace {

StatusOr<nlohmann::json> Parse(const std::string& text) {
  return ParseJsonInput({reinterpret_cast<const uint8_t*>(text.data()), text.size()}, "in.json");
}

TEST(JsonInput, TypeConfusedFieldsAreErrorsNamingTheField) {
  const nlohmann::json j = *Parse(R"({"format": 1, "uuid": 5, "n": "64", "big": 18446744073709551615,
                                      "neg": -3, "arr": {}, "obj": [], "k": 4294967308})");
  StatusOr<std::string> f = StringField(j, "format", "in.json");
  ASSERT_FALSE(f.ok());
  EXPECT_EQ(f.status().message(), "in.json: field \"format\" is an integer, expected a string");
  EXPECT_FALSE(StringField(j, "uuid", "in.json").ok());
  EXPECT_NE(IntField(j, "n", "in.json").status().message().find("is a string"), std::string::npos);
  EXPECT_NE(IntField(j, "big", "in.json").status().message().find("out of range"), std::string::npos);
  EXPECT_NE(UintField(j, "neg", "in.json").status().message().find("negative"), std::string::npos);
  EXPECT_FALSE(ArrayField(j, "arr", "in.json").ok());
  EXPECT_FALSE(ObjectField(j, "obj", "in.json").ok());
  EXPECT_NE(IntField(j, "k", "in.json", 1, 1 << 20).status().message().find("outside"),
            std::string::npos);
  EXPECT_NE(IntField(j, "missing", "in.json").status().message().find("missing"), std::string::npos);
  EXPECT_FALSE(StringField(nlohmann::json::array(), "x", "in.json").ok());
  EXPECT_EQ(*UintField(j, "big", "in.json"), UINT64_MAX);
}

TEST(JsonInput, DeepNestingAndHugeInputsAreRefusedBeforeParsing) {
  const std::string deep = std::string(100000, '[') + std::string(100000, ']');
  StatusOr<nlohmann::json> d = Parse(deep);
  ASSERT_FALSE(d.ok());
  EXPECT_NE(d.status().message().find("nested deeper"), std::string::npos);
  // Brackets inside strings do not count.
  EXPECT_TRUE(Parse("{\"s\": \"" + std::string(1000, '[') + "\\\"\"}").ok());
  const std::string ok_depth = std::string(kJsonInputMaxDepth, '[') + std::string(kJsonInputMaxDepth, ']');
  EXPECT_TRUE(Parse(ok_depth).ok());
  std::string huge(static_cast<size_t>(kJsonInputMaxBytes) + 1, ' ');
  StatusOr<nlohmann::json> h = Parse(huge);
  ASSERT_FALSE(h.ok());
  EXPECT_NE(h.status().message().find("more than the limit"), std::string::npos);
  EXPECT_FALSE(Parse("{\"a\": ").ok());
}

std::string ErrorOf(const std::string& text) {
  StatusOr<nlohmann::json> j = Parse(text);
  return j.ok() ? "accepted" : j.status().ToString();
}

// nlohmann stops reading at a NUL byte: `{...}\0garbage` parsed as the part before it.
TEST(JsonInput, RefusesNulBytes) {
  EXPECT_EQ(ErrorOf(std::string("{\"a\": 1}\0garbage", 16)),
            "INVALID_ARGUMENT: in.json: a NUL byte at offset 8 (JSON text holds none; a file cut "
            "short or padded?)");
  EXPECT_NE(ErrorOf(std::string("{\"a\": 1}\0", 9)).find("a NUL byte at offset 8"),
            std::string::npos);
  EXPECT_NE(ErrorOf(std::string("{\"a\": \"x\0y\"}", 12)).find("offset 8"), std::string::npos);
}

// The escape \u0000 decoded to a NUL character inside a string, and a message quoting the string
// ("format \"dashi-proxy/1") was cut at it. It is refused in values and keys alike; an escaped
// backslash followed by "u0000" is text, and other escapes pass.
TEST(JsonInput, RefusesTheNulEscapeInStrings) {
  EXPECT_EQ(ErrorOf(R"({"format": "dashi-proxy/1\u0000 more"})"),
            "INVALID_ARGUMENT: in.json: the escape \\u0000 (a NUL character) in a string at offset "
            "25 (dashi's JSON holds no NUL character; a damaged or forged file?)");
  EXPECT_NE(ErrorOf(R"({"k\u0000": 1})").find("at offset 3 "), std::string::npos);
  EXPECT_NE(ErrorOf(R"(["a", "\"\u0000"])").find("at offset 9 "), std::string::npos);
  for (const char* ok : {R"({"a": "x\\u0000y"})", R"({"a": "\u0001\u00e9\n"})",
                         R"({"u0000": "\\"})"}) {
    EXPECT_EQ(ErrorOf(ok), "accepted") << ok;
  }
}

// nlohmann keeps the last of a repeated key: two readers could see two different records.
TEST(JsonInput, RefusesAKeyTwiceInOneObject) {
  EXPECT_EQ(ErrorOf(R"({"steps": 8, "dim": 2, "steps": 9})"),
            "INVALID_ARGUMENT: in.json: key \"steps\" appears twice in one object (which one "
            "counts is ambiguous)");
  EXPECT_NE(ErrorOf(R"({"a": [{"x": 1}, {"y": 1, "y": 2}]})").find("key \"y\" appears twice"),
            std::string::npos);
  EXPECT_NE(ErrorOf(R"({"": 1, "": 2})").find("key \"\" appears twice"), std::string::npos);
  // The same key in sibling and nested objects is fine.
  EXPECT_TRUE(Parse(R"({"a": {"a": 1}, "b": [{"a": 1}, {"a": 2}]})").ok());
}

TEST(JsonInput, ReadsFilesNamingThem) {
  const std::string dir = dashi::testing::FreshScratchDir("json_input_files");
  const std::string path = dir + "/chain.json";
  ASSERT_TRUE(WriteFileAtomically(path, std::string("{\"a\": 1}\0\0\0\0", 12)).ok());
  StatusOr<nlohmann::json> j = ReadJsonInput(path);
  ASSERT_FALSE(j.ok());
  EXPECT_NE(j.status().message().find(path + ": a NUL byte at offset 8"), std::string::npos)
      << j.status().ToString();
  EXPECT_EQ(ReadJsonInput(dir + "/missing.json").status().code(), StatusCode::kNotFound);
  ASSERT_TRUE(WriteFileAtomically(path, std::string(R"({"a": 1, "a": 1})")).ok());
  EXPECT_NE(ReadJsonInput(path).status().message().find(path + ": key \"a\" appears twice"),
            std::string::npos);
  ASSERT_TRUE(WriteFileAtomically(path, std::string(R"({"a": 1})")).ok());
  ASSERT_TRUE(ReadJsonInput(path).ok());
}

}  // namespace
}  // namespace dashi
