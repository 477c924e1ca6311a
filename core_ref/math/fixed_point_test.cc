// The exact arithmetic under the accurate paths: fixed-point operations on known values, and
// RoundToDouble against the hardware's correctly rounded integer → double conversion, at the
// subnormal and overflow edges, and with its midpoint-ambiguity flag.
#include "core_ref/math/fixed_point.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

#include "core_ref/prng/prng.h"

namespace dashi::math_internal {
namespace {

std::vector<uint32_t> Words(uint64_t v) {
  return {static_cast<uint32_t>(v), static_cast<uint32_t>(v >> 32)};
}

double Round(uint64_t v, int exponent, uint64_t err = 0, bool* ambiguous = nullptr) {
  const std::vector<uint32_t> w = Words(v);
  return RoundToDouble(w, exponent, err, ambiguous);
}

uint64_t Bits(double d) { return std::bit_cast<uint64_t>(d); }

TEST(FixedPointTest, ArithmeticOnExactValues) {
  const Fixed half = FixedFromDouble(0.5), quarter = FixedFromDouble(0.25);
  EXPECT_FALSE(FixedLess(FixedMul(half, half), quarter));
  EXPECT_FALSE(FixedLess(quarter, FixedMul(half, half)));
  const Fixed three = FixedFromInt(3);
  EXPECT_FALSE(FixedLess(FixedAdd(FixedFromDouble(1.5), FixedFromDouble(1.5)), three));
  EXPECT_TRUE(FixedIsZero(FixedSub(FixedMulInt(half, 6), three)));
  EXPECT_TRUE(FixedIsZero(FixedSub(FixedDivInt(three, 6), half)));
  // 1/3 truncated: 3·(1/3) falls short of 1 by exactly one unit of 2^-192.
  const Fixed third = FixedDivInt(FixedFromInt(1), 3);
  const Fixed short_one = FixedMulInt(third, 3);
  EXPECT_TRUE(FixedLess(short_one, FixedFromInt(1)));
  Fixed unit;
  unit.limb[0] = 1;
  EXPECT_TRUE(FixedIsZero(FixedSub(FixedSub(FixedFromInt(1), short_one), unit)));
  // Truncation below 2^-192.
  EXPECT_TRUE(FixedIsZero(FixedFromDouble(0x1p-193)));
  EXPECT_FALSE(FixedIsZero(FixedFromDouble(0x1p-192)));
  // Borrow across every limb: 1 − 2^-192.
  const Fixed almost = FixedSub(FixedFromInt(1), unit);
  for (int i = 0; i < kFixedLimbs - 1; ++i) EXPECT_EQ(almost.limb[i], 0xFFFFFFFFu) << i;
  EXPECT_EQ(almost.limb[kFixedLimbs - 1], 0u);
}

TEST(FixedPointTest, DecomposeDouble) {
  EXPECT_EQ(DecomposeDouble(1.0).significand, uint64_t{1} << 52);
  EXPECT_EQ(DecomposeDouble(1.0).exponent, -52);
  const DoubleParts sub = DecomposeDouble(std::numeric_limits<double>::denorm_min() * 3);
  EXPECT_EQ(sub.significand, 3u);
  EXPECT_EQ(sub.exponent, -1074);
}

TEST(FixedPointTest, RoundToDoubleMatchesHardwareConversion) {
  Xoshiro256ss rng(99);  // replay: this seed
  for (int i = 0; i < 200000; ++i) {
    const int width = 1 + static_cast<int>(rng.NextBelow(64));
    const uint64_t v = rng.Next() >> (64 - width);
    const int exponent = static_cast<int>(rng.NextBelow(1800)) - 900;
    const double expected = std::ldexp(static_cast<double>(v), exponent);  // normal range: exact
    if (v == 0 || std::fabs(expected) < 0x1p-1022 || std::isinf(expected)) continue;
    ASSERT_EQ(Bits(Round(v, exponent)), Bits(expected)) << v << " * 2^" << exponent;
  }
}

TEST(FixedPointTest, RoundToDoubleWideValuesUseEveryWord) {
  // A 224-bit value: the rounding must see the sticky bits far below the top 64.
  Xoshiro256ss rng(5);
  for (int i = 0; i < 20000; ++i) {
    std::vector<uint32_t> w(7);
    for (uint32_t& x : w) x = static_cast<uint32_t>(rng.Next());
    w[6] |= 0x80000000u;
    if (i % 2 == 0) {  // a tie pattern above the low words, decided by the sticky bits
      // 53 bits kept from bit 223 down to 171: the half bit is bit 170 (word 5, bit 10).
      w[5] = (w[5] & ~0x7FFu) | 0x400u;
      w[4] = w[3] = w[2] = w[1] = w[0] = 0;
      w[static_cast<size_t>(rng.NextBelow(5))] = i % 4 == 0 ? 1u : 0u;
    }
    uint64_t top = (static_cast<uint64_t>(w[6]) << 32) | w[5];
    bool sticky = false;
    for (int k = 0; k < 5; ++k) sticky = sticky || w[static_cast<size_t>(k)] != 0;
    // The top 64 bits with a sticky bit in the lowest position round like the whole value.
    const double expected = std::ldexp(static_cast<double>(top | (sticky ? 1u : 0u)), 160 - 192);
    ASSERT_EQ(Bits(RoundToDouble(w, -192, 0, nullptr)), Bits(expected)) << i;
  }
}

TEST(FixedPointTest, SubnormalsOverflowAndTies) {
  const double tiny = std::numeric_limits<double>::denorm_min();
  EXPECT_EQ(Round(1, -1074), tiny);
  EXPECT_EQ(Round(1, -1075), 0.0);       // tie between 0 and 2^-1074: to even, 0
  EXPECT_EQ(Round(3, -1076), tiny);      // 0.75·2^-1074
  EXPECT_EQ(Round(3, -1075), 2 * tiny);  // tie 1.5 → 2
  EXPECT_EQ(Round(5, -1075), 2 * tiny);  // tie 2.5 → 2
  EXPECT_EQ(Round((uint64_t{1} << 53) - 1, -1074 - 1), 0x1p-1022);  // rounds up into the normals
  EXPECT_EQ(Round((uint64_t{1} << 52) + 1, -1074), 0x1p-1022 + tiny);
  const double max = std::numeric_limits<double>::max();
  EXPECT_EQ(Round((uint64_t{1} << 53) - 1, 971), max);
  EXPECT_EQ(Round((uint64_t{1} << 54) - 2, 970), max);
  EXPECT_TRUE(std::isinf(Round((uint64_t{1} << 54) - 1, 970)));  // max + ulp/2: to even, 2^1024
  EXPECT_TRUE(std::isinf(Round(1, 1024)));
  EXPECT_EQ(Round(0, 0), 0.0);
}

TEST(FixedPointTest, AmbiguityFlagsValuesWithinTheErrorOfAMidpoint) {
  bool amb = true;
  const uint64_t tie = (uint64_t{1} << 53) + 1;  // midpoint between 2^53 and 2^53 + 2
  EXPECT_EQ(Round(tie, 0, 0, &amb), 0x1p53);
  EXPECT_FALSE(amb);  // exact: ties to even
  Round(tie, 0, 1, &amb);
  EXPECT_TRUE(amb);
  const uint64_t above = (uint64_t{1} << 55) + 5;  // R = 5 above the midpoint 4: distance 1
  Round(above, 0, 0, &amb);
  EXPECT_FALSE(amb);
  Round(above, 0, 1, &amb);
  EXPECT_TRUE(amb);
  const uint64_t below = (uint64_t{1} << 55) + 2;  // R = 2, midpoint 4: distance 2
  Round(below, 0, 1, &amb);
  EXPECT_FALSE(amb);
  Round(below, 0, 2, &amb);
  EXPECT_TRUE(amb);
  Round((uint64_t{1} << 55) + 8, 0, 3, &amb);  // exactly representable, far from midpoints
  EXPECT_FALSE(amb);
}

}  // namespace
}  // namespace dashi::math_internal
