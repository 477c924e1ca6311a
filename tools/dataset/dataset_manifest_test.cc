// dataset.json and spec.json read back: a written manifest round-trips; hostile manifests (not
// JSON, wrong types, a count that disagrees with the list, a shard index out of range, another
// format) and a hand-edited spec.json are errors naming the file and the field, never a crash.
#include "tools/dataset/dataset_manifest.h"

#include <gtest/gtest.h>

#include "core_ref/fileio/atomic_file.h"
#include "core_ref/testing/scratch_dirs.h"

namespace dashi::tools {
namespace {

DatasetManifest Sample() {
  return {"0123456789abcdef0123456789abcdef",
          ShardSel{1, 3},
          {{1, "n16_p0_s2", "aa"}, {4, "n16_p1_s2", "bb"}}};
}

TEST(DatasetManifest, RoundTrips) {
  const std::string dir = testing::FreshScratchDir("manifest_rt");
  ASSERT_TRUE(WriteDatasetManifest(dir, Sample()).ok());
  StatusOr<DatasetManifest> m = ReadDatasetManifest(dir);
  ASSERT_TRUE(m.ok()) << m.status().ToString();
  EXPECT_EQ(DatasetManifestText(*m), DatasetManifestText(Sample()));
  EXPECT_EQ(m->shard.index, 1);
  EXPECT_EQ(m->shard.count, 3);
  ASSERT_EQ(m->items.size(), 2u);
  EXPECT_EQ(m->items[1].id, "n16_p1_s2");
}

TEST(DatasetManifest, HostileManifestsNameTheFileAndField) {
  const std::string good = DatasetManifestText(Sample());
  struct Case {
    const char* name;
    std::string text;
    const char* expect;
  };
  auto edit = [&](const std::string& from, const std::string& to) {
    std::string t = good;
    t.replace(t.find(from), from.size(), to);
    return t;
  };
  const Case cases[] = {
      {"not json", "{\"format\": ", "not valid JSON"},
      {"array", "[1, 2]", "not a JSON object"},
      {"format", edit("dashi-dataset/1", "dashi-dataset/9"), "format"},
      {"count", edit("\"item_count\": 2", "\"item_count\": 3"), "item_count 3 but 2"},
      {"count type", edit("\"item_count\": 2", "\"item_count\": \"2\""), "item_count"},
      {"shard index", edit("\"index\": 1\n", "\"index\": 3\n"), "index"},
      {"id type", edit("\"id\": \"n16_p0_s2\"", "\"id\": 7"), "items[0]"},
      {"no spec hash", edit("\"spec_blake2b128\"", "\"spec\""), "spec_blake2b128"},
      {"a key twice", edit("\"item_count\": 2", "\"item_count\": 2, \"item_count\": 2"),
       "key \"item_count\" appears twice"},
      {"trailing NUL bytes", good + std::string(4, '\0'), "a NUL byte at offset"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const std::string dir = testing::FreshScratchDir("manifest_bad");
    ASSERT_TRUE(WriteFileAtomically(dir + "/dataset.json", c.text).ok());
    StatusOr<DatasetManifest> m = ReadDatasetManifest(dir);
    ASSERT_FALSE(m.ok());
    const std::string msg = m.status().ToString();
    EXPECT_NE(msg.find("dataset.json"), std::string::npos) << msg;
    EXPECT_NE(msg.find(c.expect), std::string::npos) << msg;
  }
  const std::string empty = testing::FreshScratchDir("manifest_missing");
  StatusOr<DatasetManifest> m = ReadDatasetManifest(empty);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.status().code(), StatusCode::kNotFound);
  EXPECT_NE(m.status().message().find("incomplete"), std::string::npos);
}

TEST(DatasetManifest, HandEditedSpecJsonIsRefused) {
  const std::string dir = testing::FreshScratchDir("manifest_spec");
  const std::string canonical = R"({
  "format": "dashi-dataset-spec/1",
  "les": [
    {}
  ],
  "n": [
    16
  ],
  "seeds": [
    1
  ],
  "steps": 2
}
)";
  ASSERT_TRUE(WriteFileAtomically(dir + "/spec.json", canonical).ok());
  StatusOr<DatasetSpec> s = ReadDatasetDirSpec(dir);
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->CanonicalSpecText(), canonical);
  std::string edited = canonical;
  edited.replace(edited.find("\"steps\": 2"), 10, "\"steps\":  2");
  ASSERT_TRUE(WriteFileAtomically(dir + "/spec.json", edited).ok());
  s = ReadDatasetDirSpec(dir);
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.status().code(), StatusCode::kDataLoss);
  EXPECT_NE(s.status().message().find("spec.json"), std::string::npos);
}

}  // namespace
}  // namespace dashi::tools
