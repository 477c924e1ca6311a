// The suite id (docs/CONFORMANCE.md, certification): it names the cases, their measures and
// tolerances, the golden data and the code of the case packages, so that a certification cannot
// outlive a change to what a case computes. (The carrier cases are linked so that the suite is not
// empty.)
#include <gtest/gtest.h>

#include <cctype>
#include <string>
#include <vector>

#include "build_id/build_ids.h"
#include "conformance/report/conformance_report.h"

namespace dashi::conformance {
namespace {

bool IsHex128(const std::string& s) {
  if (s.size() != 32) return false;
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (!std::isxdigit(u) || std::isupper(u)) return false;
  }
  return true;
}

TEST(SuiteIdTest, IsTheLinkedCasesWithTheBuildsHashes) {
  EXPECT_TRUE(IsHex128(SuiteId())) << SuiteId();
  EXPECT_EQ(SuiteId(), SuiteIdOf(AllCases(), build_id::kGoldenManifestHash,
                                 build_id::kSuiteSourceHash));
}

// The source hash is computed over the case packages, their framework and the input generators:
// at least the eight BUILD files, the five case files, the framework's sources and those of
// core_ref/prng, core_ref/testing and core_ref/carrier (docs/CONFORMANCE.md).
TEST(SuiteIdTest, CaseSourceHashCoversTheCasePackages) {
  EXPECT_TRUE(IsHex128(build_id::kSuiteSourceHash)) << build_id::kSuiteSourceHash;
  EXPECT_GE(build_id::kSuiteSourceFiles, 26);
}

TEST(SuiteIdTest, EveryPartChangesTheId) {
  const std::vector<ConformanceCase> cases = AllCases();
  ASSERT_FALSE(cases.empty());
  const std::string golden(32, 'a');
  const std::string sources(32, 'b');
  const std::string id = SuiteIdOf(cases, golden, sources);
  EXPECT_NE(SuiteIdOf(cases, golden, std::string(32, 'c')), id) << "case code not covered";
  EXPECT_NE(SuiteIdOf(cases, std::string(32, 'c'), sources), id) << "golden data not covered";
  std::vector<ConformanceCase> other = cases;
  other[0].tolerance = other[0].tolerance + 1.0;
  EXPECT_NE(SuiteIdOf(other, golden, sources), id) << "tolerance not covered";
  other = cases;
  other[0].measure += " (changed)";
  EXPECT_NE(SuiteIdOf(other, golden, sources), id) << "measure not covered";
  other = cases;
  other.pop_back();
  EXPECT_NE(SuiteIdOf(other, golden, sources), id) << "the set of cases not covered";
  EXPECT_EQ(SuiteIdOf({}, golden, sources), "") << "an empty suite must have no id";
}

}  // namespace
}  // namespace dashi::conformance
