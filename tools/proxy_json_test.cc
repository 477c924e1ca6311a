// Issue 12 #2: a proxy spec with type-confused fields ("format": 1, "n": "64", k_lo 2^32 + 12)
// is an error naming the file and the field, never an exception or a silently truncated value.
#include "tools/proxy_json.h"

#include <gtest/gtest.h>

#include <string>

namespace dashi::tools {
namespace {

TEST(ProxyJson, TypeConfusedFieldsAreErrors) {
  const nlohmann::json good = {{"format", "dashi-proxy/1"}, {"n", 32}, {"k_lo", 4}, {"k_mid", 8},
                               {"anchors", nlohmann::json::array()}};
  ASSERT_TRUE(ProxySpecFromJson(good, "p.json").ok()) << ProxySpecFromJson(good, "p.json").status().ToString();
  struct Case {
    const char* key;
    nlohmann::json value;
    const char* want;
  };
  for (const Case& c : {Case{"format", 1, "format"}, Case{"n", "32", "\"n\""},
                        Case{"k_lo", int64_t{4294967308}, "k_lo"}, Case{"k_mid", 8.5, "k_mid"},
                        Case{"anchors", 3, "anchors"}, Case{"dim", "x", "dim"}}) {
    nlohmann::json j = good;
    j[c.key] = c.value;
    StatusOr<ProxySpec> s = ProxySpecFromJson(j, "p.json");
    ASSERT_FALSE(s.ok()) << c.key;
    EXPECT_NE(s.status().message().find("p.json"), std::string::npos);
    EXPECT_NE(s.status().message().find(c.want), std::string::npos) << s.status().ToString();
  }
}

}  // namespace
}  // namespace dashi::tools
