// Dataset specs: the grid's order and ids, the canonical text and its hash, shard selection, and
// hostile specs (wrong types, unknown keys, duplicates, impossible proxies) refused with a message
// naming the input and the field.
#include "tools/dataset/dataset_spec.h"

#include <gtest/gtest.h>

namespace dashi::tools {
namespace {

nlohmann::json Good() {
  return nlohmann::json::parse(R"({
    "format": "dashi-dataset-spec/1", "n": [32, 64], "seeds": {"first": 5, "count": 3},
    "les": [{"nu0": 1e-3}, {"nu0": 5e-4, "cs": 0.1}], "steps": 20, "save_every": 5,
    "keep": {"vorticity": true, "series": true, "proxy": {"k_lo": 3, "k_mid": 6, "anchors": 4}}})");
}

TEST(DatasetSpec, ExpandsNThenParametersThenSeeds) {
  StatusOr<DatasetSpec> s = ParseDatasetSpec(Good(), "spec.json");
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->items.size(), 12u);
  EXPECT_EQ(s->items[0].id, "n32_p0_s5");
  EXPECT_EQ(s->items[1].id, "n32_p0_s6");
  EXPECT_EQ(s->items[3].id, "n32_p1_s5");
  EXPECT_EQ(s->items[3].les.nu0, 5e-4);
  EXPECT_EQ(s->items[3].les.cs, 0.1);
  EXPECT_EQ(s->items[6].id, "n64_p0_s5");
  EXPECT_EQ(s->items[11].id, "n64_p1_s7");
  EXPECT_EQ(s->items[11].les.seed, 7u);
  EXPECT_EQ(s->items[11].les.n, 64);
  for (size_t i = 0; i < s->items.size(); ++i) EXPECT_EQ(s->items[i].index, int64_t(i));
  EXPECT_EQ(s->frames(), 5);
  // D = 2 * (low modes + anchors) + 2; the low modes with |k| <= 3 in the half plane: 14.
  EXPECT_EQ(ProxyDim(*s, 32), 2 * (14 + 4) + 2);
}

TEST(DatasetSpec, HashIgnoresKeyOrderAndWhitespaceButNotValues) {
  StatusOr<DatasetSpec> a = ParseDatasetSpec(Good(), "a");
  nlohmann::json reordered = nlohmann::json::parse(Good().dump(7));
  StatusOr<DatasetSpec> b = ParseDatasetSpec(reordered, "b");
  nlohmann::json changed = Good();
  changed["steps"] = 21;
  StatusOr<DatasetSpec> c = ParseDatasetSpec(changed, "c");
  ASSERT_TRUE(a.ok() && b.ok() && c.ok());
  EXPECT_EQ(a->blake2b128, b->blake2b128);
  EXPECT_NE(a->blake2b128, c->blake2b128);
  EXPECT_EQ(a->blake2b128.size(), 32u);
}

TEST(DatasetSpec, EstimateCountsEveryKeptArray) {
  StatusOr<DatasetSpec> s = ParseDatasetSpec(Good(), "spec.json");
  ASSERT_TRUE(s.ok());
  StatusOr<int64_t> b = EstimateItemBytes(*s, s->items[0]);
  ASSERT_TRUE(b.ok());
  const int64_t omega = 5 * 32 * 32 * 8;
  EXPECT_GT(*b, omega + 3 * 5 * 8 + 5 * ProxyDim(*s, 32) * 8);
  EXPECT_LT(*b, omega + 64 * 1024);
  // keep.decodes adds one [frames, N, N] array per item.
  nlohmann::json j = Good();
  j["keep"]["decodes"] = true;
  StatusOr<DatasetSpec> d = ParseDatasetSpec(j, "spec.json");
  ASSERT_TRUE(d.ok()) << d.status().ToString();
  EXPECT_TRUE(d->keep_decodes);
  EXPECT_FALSE(s->keep_decodes);
  StatusOr<int64_t> bd = EstimateItemBytes(*d, d->items[0]);
  ASSERT_TRUE(bd.ok());
  EXPECT_GE(*bd - *b, omega);
  EXPECT_LE(*bd - *b, omega + 128);
}

struct BadCase {
  const char* name;
  const char* patch;   // JSON merge patch applied to Good()
  const char* expect;  // substring of the message
};

TEST(DatasetSpec, HostileSpecsNameTheField) {
  const BadCase cases[] = {
      {"format", R"({"format": "other/1"})", "format \"other/1\""},
      {"n not array", R"({"n": 32})", "\"n\""},
      {"n not power of two", R"({"n": [48]})", "power of two"},
      {"n string", R"({"n": ["32"]})", "n[0] is a string"},
      {"n twice", R"({"n": [32, 32]})", "listed twice"},
      {"seed twice", R"({"seeds": [1, 2, 1]})", "seed 1 is listed twice"},
      {"seed negative", R"({"seeds": [-1]})", "seeds[0]"},
      {"seeds empty", R"({"seeds": []})", "seeds"},
      {"seed count zero", R"({"seeds": {"first": 0, "count": 0}})", "count"},
      {"les empty", R"({"les": []})", "empty"},
      {"les nu0 negative", R"({"les": [{"nu0": -1}]})", "les[0] at N = 32: nu0"},
      {"les typo", R"({"les": [{"nu": 1e-3}]})", "unknown key \"nu\""},
      {"les repeated", R"({"les": [{"cs": 0.1}, {"cs": 0.1}]})", "les[1] repeats les[0]"},
      {"les cs string", R"({"les": [{"cs": "0.1"}]})", "\"cs\" is a string"},
      {"les init", R"({"les": [{"init": "vortex"}]})", "vortex"},
      {"steps negative", R"({"steps": -1})", "steps"},
      {"save_every zero", R"({"save_every": 0})", "save_every"},
      {"unknown top key", R"({"step": 5})", "unknown key \"step\""},
      {"keeps nothing", R"({"keep": {"vorticity": false, "series": false, "proxy": null}})",
       "keeps nothing"},
      {"proxy too wide", R"({"keep": {"proxy": {"k_lo": 3, "k_mid": 11, "anchors": 1}}})",
       "N = 32"},
      {"too many anchors", R"({"keep": {"proxy": {"k_lo": 3, "k_mid": 4, "anchors": 500}}})",
       "anchors = 500"},
      {"keep bool", R"({"keep": {"series": 1}})", "\"series\" is an integer"},
      {"decodes without proxy", R"({"keep": {"proxy": null, "decodes": true}})",
       "keep.decodes needs keep.proxy"},
      {"decodes not bool", R"({"keep": {"decodes": "yes"}})", "\"decodes\" is a string"},
      {"keep typo", R"({"keep": {"decode": true}})", "unknown key \"decode\""},
  };
  for (const BadCase& c : cases) {
    SCOPED_TRACE(c.name);
    nlohmann::json j = Good();
    j.merge_patch(nlohmann::json::parse(c.patch));
    StatusOr<DatasetSpec> s = ParseDatasetSpec(j, "my_spec.json");
    ASSERT_FALSE(s.ok());
    EXPECT_EQ(s.status().code(), StatusCode::kInvalidArgument);
    const std::string msg(s.status().message());
    EXPECT_NE(msg.find("my_spec.json"), std::string::npos) << msg;
    EXPECT_NE(msg.find(c.expect), std::string::npos) << msg;
  }
  StatusOr<DatasetSpec> s = ParseDatasetSpec(nlohmann::json::array(), "arr.json");
  EXPECT_FALSE(s.ok());
}

TEST(DatasetSpec, ShardSelection) {
  StatusOr<ShardSel> s = ParseShard("2/3");
  ASSERT_TRUE(s.ok());
  EXPECT_TRUE(s->Holds(2));
  EXPECT_TRUE(s->Holds(5));
  EXPECT_FALSE(s->Holds(3));
  for (const char* bad : {"3/3", "1", "-1/2", "1/0", "a/b", "1/2/3", "", "/2", "1/", "01x/2"}) {
    EXPECT_FALSE(ParseShard(bad).ok()) << bad;
  }
  // Every item lands in exactly one of N shards.
  for (int64_t n = 1; n <= 5; ++n) {
    for (int64_t item = 0; item < 17; ++item) {
      int holders = 0;
      for (int64_t i = 0; i < n; ++i) holders += ShardSel{i, n}.Holds(item) ? 1 : 0;
      EXPECT_EQ(holders, 1);
    }
  }
}

}  // namespace
}  // namespace dashi::tools
