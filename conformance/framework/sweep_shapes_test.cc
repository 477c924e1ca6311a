// The generated sweeps contain the shapes the pairwise tree's bugs need (each planted bug of
// tools/mutation/mutants.txt in the tree was first seen at one of these).
#include "conformance/framework/sweep_shapes.h"

#include <algorithm>
#include <bit>

#include <gtest/gtest.h>

namespace dashi::conformance {
namespace {

bool Has(const std::vector<int64_t>& v, int64_t x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

TEST(SweepShapes, ChunkCountsCoverEverySetBitPatternThatMatters) {
  const std::vector<int64_t> m = ChunkCountSweep(33);
  EXPECT_TRUE(std::is_sorted(m.begin(), m.end()));
  for (int64_t c : {1, 2, 3, 4, 5, 7, 8, 9, 11, 13, 14, 15, 16, 17, 31, 32, 33}) {
    EXPECT_TRUE(Has(m, c)) << "m = " << c;
  }
  int three_bits = 0, four_bits = 0;
  for (int64_t c : m) {
    three_bits += std::popcount(static_cast<uint64_t>(c)) == 3;
    four_bits += std::popcount(static_cast<uint64_t>(c)) >= 4;
  }
  EXPECT_GE(three_bits, 4);
  EXPECT_GE(four_bits, 2);
}

TEST(SweepShapes, DimsKeepTheEdgesAndReachTheSharedMemoryTree) {
  const std::vector<int64_t> d = ContractionSweepDims(2112);
  for (int64_t x : {1, 63, 64, 65, 127, 128, 129, 200, 448, 512, 704, 960, 1000, 1984, 2112}) {
    EXPECT_TRUE(Has(d, x)) << "D = " << x;
  }
  EXPECT_TRUE(Has(d, 385)) << "m = 7 with a one-element last chunk";
  EXPECT_GT(d.back(), 2048) << "the persistent kernel's shared-memory tree (m > 32)";
  EXPECT_TRUE(std::adjacent_find(d.begin(), d.end()) == d.end());
  EXPECT_LE(ContractionSweepDims(1100).back(), 1100);
}

TEST(SweepShapes, StragglerGroupsLeaveWorkgroupZeroTwoUnits) {
  EXPECT_EQ(StragglerGroups(128, 132), 127u);  // units 0 and 127 on workgroup 0
  EXPECT_EQ(StragglerGroups(32, 132), 31u);
  EXPECT_EQ(StragglerGroups(128, 108), 108u);  // too few SMs: no single straggler
  EXPECT_EQ(StragglerGroups(128, 0), 1u);      // no SM count
  EXPECT_EQ(StragglerGroups(1, 132), 1u);
  EXPECT_EQ(StragglerGroups(0, 132), 1u);
}

}  // namespace
}  // namespace dashi::conformance
