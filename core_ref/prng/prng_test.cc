#include "core_ref/prng/prng.h"

#include <cmath>
#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

namespace dashi {
namespace {

// Published SplitMix64 outputs for seed 1234567 (Vigna's reference C code).
TEST(SplitMix64Test, MatchesPublishedSequence) {
  SplitMix64 sm(1234567);
  const uint64_t expected[] = {6457827717110365317ull, 3203168211198807973ull,
                               9817491932198370423ull, 4593380528125082431ull,
                               16408922859458223821ull};
  for (uint64_t e : expected) EXPECT_EQ(sm.Next(), e);
}

// Expected values from an independent Python implementation of the same definitions (arbitrary
// precision integers masked to 64 bits), kept in docs/MATH.md §PRNG.
TEST(Xoshiro256ssTest, MatchesIndependentImplementation) {
  Xoshiro256ss a(0);
  for (uint64_t e : {0x99ec5f36cb75f2b4ull, 0xbf6e1f784956452aull, 0x1a5f849d4933e6e0ull,
                     0x6aa594f1262d2d2cull}) {
    EXPECT_EQ(a.Next(), e);
  }
  Xoshiro256ss b(42);
  for (uint64_t e : {0x15780b2e0c2ec716ull, 0x6104d9866d113a7eull, 0xae17533239e499a1ull,
                     0xecb8ad4703b360a1ull}) {
    EXPECT_EQ(b.Next(), e);
  }
}

TEST(CounterHashTest, MatchesIndependentImplementation) {
  EXPECT_EQ(CounterHash(0, 0, 0, 0, 0), 0xb7f28f1ac61cda72ull);
  EXPECT_EQ(CounterHash(42, 7, -3, 5, 1), 0x3bdb20c2ad64fbe2ull);
  EXPECT_EQ(CounterHash(UINT64_MAX, 123456, -64, 63, 2), 0x2f9e0938321ca57full);
  EXPECT_EQ(CounterUniform(0, 0, 0, 0, 0), 0.718544906651107);
  EXPECT_EQ(CounterUniform(42, 7, -3, 5, 1), 0.23381237748016648);
}

TEST(CounterHashTest, EveryKeyComponentMatters) {
  const uint64_t base = CounterHash(1, 2, 3, 4, 5);
  EXPECT_NE(base, CounterHash(0, 2, 3, 4, 5));
  EXPECT_NE(base, CounterHash(1, 3, 3, 4, 5));
  EXPECT_NE(base, CounterHash(1, 2, -3, 4, 5));
  EXPECT_NE(base, CounterHash(1, 2, 3, -4, 5));
  EXPECT_NE(base, CounterHash(1, 2, 3, 4, 6));
  // Swapping kx and ky must give a different draw (the phase field is not symmetric).
  EXPECT_NE(CounterHash(1, 2, 3, 4, 5), CounterHash(1, 2, 4, 3, 5));
}

TEST(UnitDoubleTest, RangeAndExactness) {
  EXPECT_EQ(U64ToUnitDouble(0), 0.0);
  EXPECT_LT(U64ToUnitDouble(UINT64_MAX), 1.0);
  EXPECT_EQ(U64ToUnitDouble(UINT64_MAX), 1.0 - 0x1.0p-53);
  EXPECT_EQ(U64ToUnitDouble(1ull << 63), 0.5);
}

TEST(CounterUniformTest, MomentsAreUniform) {
  // Mean 1/2 and variance 1/12 over 2^16 keys; bounds are 6 standard errors.
  const int n = 1 << 16;
  double sum = 0, sum2 = 0;
  for (int i = 0; i < n; ++i) {
    const double u = CounterUniform(7, i / 256, i % 256 - 128, i % 17, 0);
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    sum += u;
    sum2 += u * u;
  }
  const double mean = sum / n, var = sum2 / n - mean * mean;
  EXPECT_NEAR(mean, 0.5, 6 * std::sqrt(1.0 / 12 / n));
  EXPECT_NEAR(var, 1.0 / 12, 6 * std::sqrt(1.0 / 180 / n));
}

TEST(Xoshiro256ssTest, NextBelowStaysInRangeAndCoversIt) {
  Xoshiro256ss rng(3);
  std::vector<int> hits(7, 0);
  for (int i = 0; i < 7000; ++i) {
    uint64_t v = rng.NextBelow(7);
    ASSERT_LT(v, 7u);
    ++hits[v];
  }
  for (int h : hits) EXPECT_GT(h, 800);
  EXPECT_EQ(rng.NextBelow(1), 0u);
  for (int i = 0; i < 100; ++i) {
    int64_t v = rng.NextInRange(-2, 2);
    EXPECT_GE(v, -2);
    EXPECT_LE(v, 2);
  }
}

TEST(Xoshiro256ssTest, SameSeedSameSequence) {
  Xoshiro256ss a(99), b(99), c(100);
  bool differs = false;
  for (int i = 0; i < 100; ++i) {
    uint64_t x = a.Next();
    EXPECT_EQ(x, b.Next());
    differs |= (x != c.Next());
  }
  EXPECT_TRUE(differs);
}

}  // namespace
}  // namespace dashi
