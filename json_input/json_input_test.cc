// Issue 12 #2: hostile JSON (type-confused fields, deep nesting, huge files) gets a clear error,
// never an exception or a stack overflow.
#include "json_input/json_input.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

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

}  // namespace
}  // namespace dashi
