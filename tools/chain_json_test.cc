// The chain-file reader behind `dashi rollout --expect-chain`: it reads back what the writer
// writes, refuses a malformed record naming the field, and names the first differing checkpoint.
#include "tools/chain_json.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>

namespace dashi::tools {
namespace {

std::vector<ChainCheckpoint> SampleChain() {
  std::vector<ChainCheckpoint> c(3);
  for (int i = 0; i < 3; ++i) {
    c[i].step = 4 * i;
    for (int b = 0; b < 16; ++b) {
      c[i].state_hash[b] = static_cast<uint8_t>(17 * i + b);
      c[i].link[b] = static_cast<uint8_t>(255 - 13 * i - b);
    }
  }
  return c;
}

nlohmann::json SampleFile(const std::vector<ChainCheckpoint>& chain) {
  return ChainFileJson({nlohmann::json::object(), 58, 8, 4, chain});
}

TEST(ChainJson, ReadsBackWhatTheWriterWrites) {
  const std::vector<ChainCheckpoint> chain = SampleChain();
  StatusOr<RecordedChain> r = ParseChainFile(SampleFile(chain), "c.json");
  ASSERT_TRUE(r.ok()) << r.status().ToString();
  EXPECT_EQ(r->dim, 58);
  EXPECT_EQ(r->steps, 8);
  EXPECT_EQ(r->hash_every, 4);
  EXPECT_EQ(r->chain, chain);
  EXPECT_EQ(CompareWithRecordedChain(*r, 58, 8, 4, chain), "");
}

TEST(ChainJson, RefusesMalformedRecordsNamingTheField) {
  const nlohmann::json good = SampleFile(SampleChain());
  const auto error_of = [](const nlohmann::json& j) {
    StatusOr<RecordedChain> r = ParseChainFile(j, "c.json");
    return r.ok() ? std::string("accepted") : std::string(r.status().message());
  };
  nlohmann::json j = good;
  j["checkpoints"][1]["link"] = "ABCDEF0123456789abcdef0123456789";
  EXPECT_NE(error_of(j).find("checkpoint 1: \"link\" is not lowercase hex"), std::string::npos)
      << error_of(j);
  j = good;
  j["checkpoints"][2]["state_hash"] = "00";
  EXPECT_NE(error_of(j).find("expected 32 hex digits"), std::string::npos) << error_of(j);
  j = good;
  j["checkpoints"][2]["step"] = 4;  // not after checkpoint 1's step 4
  EXPECT_NE(error_of(j).find("does not follow step 4"), std::string::npos) << error_of(j);
  j = good;
  j["checkpoints"][2]["step"] = 9;  // past steps = 8
  EXPECT_NE(error_of(j).find("checkpoint 2"), std::string::npos) << error_of(j);
  j = good;
  j["final_link"] = std::string(32, '0');
  EXPECT_NE(error_of(j).find("is not the last checkpoint's link"), std::string::npos);
  j = good;
  j["dim"] = "58";
  EXPECT_NE(error_of(j).find("\"dim\""), std::string::npos) << error_of(j);
  j = good;
  j.erase("checkpoints");
  EXPECT_NE(error_of(j).find("checkpoints"), std::string::npos) << error_of(j);
  EXPECT_NE(error_of(nlohmann::json::array()).find("not a JSON object"), std::string::npos);
}

TEST(ChainJson, ComparisonNamesTheFirstDifference) {
  const std::vector<ChainCheckpoint> chain = SampleChain();
  StatusOr<RecordedChain> r = ParseChainFile(SampleFile(chain), "c.json");
  ASSERT_TRUE(r.ok());
  std::vector<ChainCheckpoint> other = chain;
  other[1].state_hash[3] ^= 1;
  other[2].link[0] ^= 1;
  EXPECT_EQ(CompareWithRecordedChain(*r, 58, 8, 4, other).rfind("checkpoint 1 (step 4): state hash ", 0), 0u)
      << CompareWithRecordedChain(*r, 58, 8, 4, other);
  other = chain;
  other[2].link[0] ^= 1;
  EXPECT_EQ(CompareWithRecordedChain(*r, 58, 8, 4, other).rfind("checkpoint 2 (step 8): link ", 0), 0u);
  EXPECT_EQ(CompareWithRecordedChain(*r, 58, 9, 4, chain), "steps = 9 where the record has 8");
  EXPECT_EQ(CompareWithRecordedChain(*r, 57, 8, 4, chain), "D = 57 where the record has 58");
  EXPECT_NE(CompareWithRecordedChain(*r, 58, 8, 4, std::span(chain).first(2)), "");
}

// A batched rollout's chain file (one chain per row) is named as such, not as a record lacking
// "checkpoints".
TEST(ChainJson, BatchedChainIsNamed) {
  const nlohmann::json row = SampleFile(SampleChain());
  const nlohmann::json batched = {{"batch", 2}, {"dim", 58}, {"steps", 8}, {"hash_every", 4},
                                  {"trajectories", {row, row}}};
  StatusOr<RecordedChain> r = ParseChainFile(batched, "b.chain.json");
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.status().code(), StatusCode::kInvalidArgument);
  EXPECT_NE(r.status().message().find("b.chain.json: a batched chain of 2 trajectories"),
            std::string::npos)
      << r.status().ToString();
  EXPECT_NE(r.status().message().find("--expect-chain replays one trajectory's chain"),
            std::string::npos);
}

// z0_hash / a_hash, where a record names them, are read (checked as hashes) and compared.
TEST(ChainJson, RecordedInputHashesAreCompared) {
  nlohmann::json j = SampleFile(SampleChain());
  const std::vector<double> z0 = {1.0, 2.0}, a = {0.5, 0.0, 0.0, 0.5};
  StatusOr<RecordedChain> r = ParseChainFile(j, "c.json");  // a run's chain: no input hashes
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(CompareRecordedInputs(*r, F64HashHex(z0), F64HashHex(a)), "");
  j["z0_hash"] = F64HashHex(z0);
  j["a_hash"] = F64HashHex(a);
  r = ParseChainFile(j, "c.json");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(CompareRecordedInputs(*r, F64HashHex(z0), F64HashHex(a)), "");
  const std::vector<double> other_a = {0.5, 0.0, 0.0, 0.25};
  EXPECT_EQ(CompareRecordedInputs(*r, F64HashHex(z0), F64HashHex(other_a)),
            "a_hash " + F64HashHex(other_a) + " where the record has " + F64HashHex(a));
  EXPECT_EQ(CompareRecordedInputs(*r, F64HashHex(a), F64HashHex(a)).rfind("z0_hash ", 0), 0u);
  j["a_hash"] = "not a hash";
  r = ParseChainFile(j, "c.json");
  ASSERT_FALSE(r.ok());
  EXPECT_NE(r.status().message().find("\"a_hash\""), std::string::npos) << r.status().ToString();
}

// The file reader behind --expect-chain refuses a key twice and trailing NUL bytes, naming the
// file (nlohmann alone kept the last key and stopped reading at a NUL).
TEST(ChainJson, FileWithAKeyTwiceOrNulBytesIsRefused) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  const std::string path = std::string(tmp != nullptr ? tmp : "/tmp") + "/strict.chain.json";
  const std::string good = SampleFile(SampleChain()).dump(2);
  const auto read_back = [&](const std::string& text) {
    std::ofstream(path, std::ios::binary | std::ios::trunc) << text;
    StatusOr<RecordedChain> r = ReadChainFile(path);
    return r.ok() ? std::string("accepted") : r.status().ToString();
  };
  EXPECT_EQ(read_back(good), "accepted");
  std::string twice = good;
  twice.insert(twice.find("\"steps\""), "\"steps\": 1000,\n  ");
  EXPECT_NE(read_back(twice).find(path + ": key \"steps\" appears twice"), std::string::npos)
      << read_back(twice);
  EXPECT_NE(read_back(good + std::string(3, '\0')).find(path + ": a NUL byte at offset"),
            std::string::npos);
}

}  // namespace
}  // namespace dashi::tools
